/*
 * bench-runner: what one confined call costs, against a bare fork and
 * reap measured in the same run.
 *
 * Each row runs a trivial tool (it returns "ok") in toolcell-fs's fs-read
 * profile through the real runner, tc_run_start() to
 * tc_run_take_result(): with a child forked on the call; then handed to a
 * ready child from the pool (the servers' way), back to back (the pool
 * refilled after each call, as a server does when it has answered) and 5
 * ms apart (a client that does something between calls); then 8 calls in
 * flight at once (a host's parallel tool calls), from pools of 1 (one
 * standby, as before the pool), 4 and 8 (the default); then 5 ms apart
 * with one confinement layer off at a time.  It prints p50 and p99 in microseconds, the ratio of each p50 to
 * the bare fork's, and the mean cycle: a call plus preparing the next
 * child, without the gaps.  For a burst, a call's time is the burst's
 * (the first start to the last answer) over its 8 calls.
 *
 * Built with -DTC_BENCH, which gives its own build of the confinement
 * steps the switch that turns a layer off (tc_bench_off); the servers'
 * have none.
 *
 *   bench-runner [N]        (default 2000 calls a row; BENCH_QUICK=1: 100)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policy/policy.h"
#include "sandbox/sandbox.h"

#ifndef TC_BENCH
#error "bench-runner is built with -DTC_BENCH"
#endif

extern const struct tc_profile fs_read_profile;	/* servers/fs */

static const struct tc_arg no_args[] = { { NULL } };

static int
h_trivial(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	return tc_result_printf(res, "ok");
}

static const struct tc_tool trivial = {
	.name = "trivial", .description = "trivial", .args = no_args,
	.output_schema = "{\"type\":\"object\"}", .fn = h_trivial,
	.profile = &fs_read_profile,
};

#define BURST		8	/* calls in flight at once */

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
stats(double *v, int n, double *p50, double *p99)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	*p50 = v[n / 2];
	*p99 = v[(n * 99) / 100];
}

static void
bare_fork(double *v, int n)
{
	int i, st;
	pid_t pid;
	double t;

	for (i = 0; i < n; i++) {
		t = now_us();
		if ((pid = fork()) == 0)
			_exit(0);
		waitpid(pid, &st, 0);
		v[i] = now_us() - t;
	}
}

/* Runs |call| to its end; returns 1 if it did not answer OK. */
static int
one(struct tc_sandbox *sb, struct tc_run *r, const struct tc_call *call)
{
	struct tc_diag d = { "", 0 };
	cJSON *res;
	int bad;

	if (tc_run_start(r, sb, call, &d) != 0) {
		fprintf(stderr, "bench-runner: %s\n", d.msg);
		exit(1);
	}
	tc_run_wait(r);
	res = tc_run_take_result(r);
	if ((bad = r->outcome != TC_OUT_OK))
		fprintf(stderr, "bench-runner: outcome %d: %s\n",
		    (int)r->outcome, r->why);
	cJSON_Delete(res);
	tc_run_release(r);
	return bad;
}

/*
 * Refills the pool until every child is forked, then leaves them 10 ms to
 * confine themselves: a burst that comes after a pause.
 */
static void
settle(struct tc_sandbox *sb)
{
	int i;

	for (i = 0; i < 1000 && tc_sandbox_ready(sb, &fs_read_profile) <
	    sb->pool; i++) {
		tc_sandbox_refill(sb);
		usleep(1000);
	}
	usleep(10000);
}

/*
 * Runs |n| calls in bursts of BURST, all started before any is waited
 * for, the pool refilled and settled between bursts; v[i] is burst i's
 * time over BURST.  Returns how many bursts it ran in *|nb|.
 */
static int
bursts(struct tc_sandbox *sb, const struct tc_call *call, double *v, int n,
    int *nb)
{
	struct tc_diag d = { "", 0 };
	struct tc_run r[BURST];
	cJSON *res;
	int b, i, bad = 0;
	double t;

	for (b = 0; b < n / BURST; b++) {
		settle(sb);
		t = now_us();
		for (i = 0; i < BURST; i++)
			if (tc_run_start(&r[i], sb, call, &d) != 0) {
				fprintf(stderr, "bench-runner: %s\n", d.msg);
				exit(1);
			}
		for (i = 0; i < BURST; i++) {
			tc_run_wait(&r[i]);
			res = tc_run_take_result(&r[i]);
			bad += r[i].outcome != TC_OUT_OK;
			cJSON_Delete(res);
			tc_run_release(&r[i]);
		}
		v[b] = (now_us() - t) / BURST;
		tc_sandbox_refill(sb);
	}
	*nb = b;
	return bad;
}

/*
 * Runs |n| calls; v[i] is the call's own time, from tc_run_start() to the
 * released run.  With a pool the children used are replaced after each
 * call, outside that time but inside *cycle, the mean wall time of a whole
 * iteration (what a client calling back to back would see per call).
 */
static int
confined(struct tc_sandbox *sb, double *v, int n, int gap_us, double *cycle)
{
	struct tc_call call;
	struct tc_run r;
	cJSON *args = cJSON_CreateObject();
	int i, bad = 0;
	double t, t0;

	memset(&call, 0, sizeof(call));
	call.tool = &trivial;
	call.args = args;
	call.policy = sb->policy;
	t0 = now_us();
	for (i = 0; i < n; i++) {
		if (gap_us > 0) {
			/* A client that thinks between calls: the standby
			 * is ready when the call comes. */
			usleep((useconds_t)gap_us);
			tc_sandbox_refill(sb);
			t0 += gap_us;
		}
		t = now_us();
		bad += one(sb, &r, &call);
		v[i] = now_us() - t;
		tc_sandbox_refill(sb);
	}
	*cycle = (now_us() - t0) / n;	/* without the gaps */
	cJSON_Delete(args);
	return bad;
}

/* A burst's calls, for bursts(). */
static int
burst_rows(struct tc_sandbox *sb, double *v, int n, int *nb)
{
	struct tc_call call;
	cJSON *args = cJSON_CreateObject();
	int bad;

	memset(&call, 0, sizeof(call));
	call.tool = &trivial;
	call.args = args;
	call.policy = sb->policy;
	bad = bursts(sb, &call, v, n, nb);
	cJSON_Delete(args);
	return bad;
}

int
main(int argc, char *argv[])
{
	/* pool: -1 no spawner (the caller forks); else ready children. */
	static const struct {
		const char	*name;
		unsigned	 off;
		int		 pool;
		int		 gap_us;
		int		 burst;
		int		 calls;		/* 0: N */
	} rows[] = {
		{ "forked on the call",		0, -1, 0, 0, 0 },
		{ "1 ready, back to back",	0, 1, 0, 0, 0 },
		{ "8 ready, 1,000 back to back", 0, 8, 0, 0, 1000 },
		{ "ready, 5 ms apart",		0, 8, 5000, 0, 0 },
		{ "8 in flight, 1 ready",	0, 1, 0, 1, 0 },
		{ "8 in flight, 4 ready",	0, 4, 0, 1, 0 },
		{ "8 in flight, 8 ready",	0, 8, 0, 1, 0 },
		{ "  without rlimits",		TC_LAYER_RLIMITS, 8, 5000, 0, 0 },
		{ "  without capability drop",	TC_LAYER_CAPS, 8, 5000, 0, 0 },
		{ "  without Landlock",		TC_LAYER_LANDLOCK, 8, 5000, 0, 0 },
		{ "  without seccomp",		TC_LAYER_SECCOMP, 8, 5000, 0, 0 },
		{ "  none of those four",	TC_LAYER_RLIMITS | TC_LAYER_CAPS |
						TC_LAYER_LANDLOCK |
						TC_LAYER_SECCOMP, 8, 5000, 0, 0 },
	};
	struct tc_profiles profiles = { { NULL }, 0 };
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	struct tc_policy pol;
	double *v, p50, p99, base, cycle = 0;
	const char *quick = getenv("BENCH_QUICK");
	int n = argc > 1 ? atoi(argv[1]) : 2000, calls, bad;
	size_t i;

	if (quick != NULL && strcmp(quick, "1") == 0 && argc < 2)
		n = 100;
	if (n < 100)
		n = 100;
	if ((v = calloc((size_t)(n > 1000 ? n : 1000), sizeof(*v))) == NULL)
		return 1;
	signal(SIGPIPE, SIG_IGN);	/* as the servers do */
	tc_policy_init(&pol);
	tc_profiles_add(&profiles, &fs_read_profile);
	if (tc_policy_add_root(&pol, ".", 0, &d) != 0 ||
	    tc_sandbox_init(&sb, &pol, &profiles, &d) != 0) {
		fprintf(stderr, "bench-runner: %s\n", d.msg);
		return 1;
	}
	printf("%d calls per row (1,000 back to back), uid %d, Landlock ABI "
	    "%d\n\n", n, (int)geteuid(), sb.landlock_abi);
	printf("| %-28s | %9s | %9s | %10s | %9s |\n", "row", "p50 us",
	    "p99 us", "p50 / fork", "cycle us");
	printf("|------------------------------|----------:|----------:|"
	    "-----------:|----------:|\n");
	bare_fork(v, n);
	stats(v, n, &base, &p99);
	printf("| %-28s | %9.0f | %9.0f | %10.2f | %9s |\n",
	    "bare fork + reap", base, p99, 1.0, "");
	for (i = 0; i < TC_NITEMS(rows); i++) {
		/* A ready child is confined when it is forked: retire the
		 * old ones before changing the layers. */
		tc_sandbox_stop(&sb);
		tc_bench_off = rows[i].off;
		if (rows[i].pool >= 0)
			tc_sandbox_prefork(&sb, (unsigned)rows[i].pool);
		calls = rows[i].calls > 0 && n >= rows[i].calls ?
		    rows[i].calls : n;
		if (rows[i].burst)
			bad = burst_rows(&sb, v, calls, &calls);
		else
			bad = confined(&sb, v, calls, rows[i].gap_us, &cycle);
		if (bad != 0) {
			fprintf(stderr, "bench-runner: '%s': calls failed\n",
			    rows[i].name);
			return 1;
		}
		stats(v, calls, &p50, &p99);
		if (rows[i].burst)
			printf("| %-28s | %9.0f | %9.0f | %10.2f | %9s |\n",
			    rows[i].name, p50, p99, p50 / base, "");
		else
			printf("| %-28s | %9.0f | %9.0f | %10.2f | %9.0f |\n",
			    rows[i].name, p50, p99, p50 / base, cycle);
	}
	tc_sandbox_release(&sb);
	tc_policy_release(&pol);
	free(v);
	return 0;
}
