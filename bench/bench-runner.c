/*
 * bench-runner: what one confined call costs, against a bare fork and
 * reap measured in the same run.
 *
 * Each row runs a trivial tool (it returns "ok") through the real runner,
 * tc_run_start() to tc_run_take_result(), N times: first with a child
 * forked on the call, then handed to a standby child (the servers' way),
 * back to back and then 5 ms apart (a client that does something between
 * calls, so that the next standby is ready), with every layer on and with
 * one layer off at a time.  It prints p50 and p99 in microseconds, the
 * ratio of each p50 to the bare fork's, and the mean cycle: a call plus
 * preparing the next standby, without the gaps.
 *
 *   bench-runner [N]        (default 2000)
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
	.profile = TC_PROFILE_FS_READ,
};

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

/*
 * Runs |n| calls; v[i] is the call's own time, from tc_run_start() to the
 * released run.  With standby children the next one is forked after each
 * call, outside that time but inside *cycle, the mean wall time of a whole
 * iteration (what a client calling back to back would see per call).
 */
static int
confined(struct tc_sandbox *sb, double *v, int n, int gap_us, double *cycle)
{
	struct tc_diag d = { "", 0 };
	struct tc_call call;
	struct tc_run r;
	cJSON *args = cJSON_CreateObject(), *res;
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
		if (tc_run_start(&r, sb, &call, &d) != 0) {
			fprintf(stderr, "bench-runner: %s\n", d.msg);
			exit(1);
		}
		tc_run_wait(&r);
		res = tc_run_take_result(&r);
		if (r.outcome != TC_OUT_OK && bad++ == 0)
			fprintf(stderr, "bench-runner: outcome %d: %s\n",
			    (int)r.outcome, r.why);
		cJSON_Delete(res);
		tc_run_release(&r);
		v[i] = now_us() - t;
		tc_sandbox_refill(sb);
	}
	*cycle = (now_us() - t0) / n;	/* without the gaps */
	cJSON_Delete(args);
	return bad;
}

int
main(int argc, char *argv[])
{
	static const struct {
		const char	*name;
		unsigned	 off;
		int		 warm;
		int		 gap_us;
	} rows[] = {
		{ "forked on the call",		0, 0, 0 },
		{ "standby, back to back",	0, 1, 0 },
		{ "standby, 5 ms apart",	0, 1, 5000 },
		{ "  without rlimits",		TC_LAYER_RLIMITS, 1, 5000 },
		{ "  without capability drop",	TC_LAYER_CAPS, 1, 5000 },
		{ "  without Landlock",		TC_LAYER_LANDLOCK, 1, 5000 },
		{ "  without seccomp",		TC_LAYER_SECCOMP, 1, 5000 },
		{ "  none of those four",	TC_LAYER_RLIMITS | TC_LAYER_CAPS |
						TC_LAYER_LANDLOCK |
						TC_LAYER_SECCOMP, 1, 5000 },
	};
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	struct tc_policy pol;
	double *v, p50, p99, base, cycle;
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	size_t i;

	if (n < 100)
		n = 100;
	if ((v = calloc((size_t)n, sizeof(*v))) == NULL)
		return 1;
	signal(SIGPIPE, SIG_IGN);	/* as the servers do */
	tc_policy_init(&pol);
	if (tc_policy_add_root(&pol, ".", 0, &d) != 0 ||
	    tc_sandbox_init(&sb, &pol, &d) != 0) {
		fprintf(stderr, "bench-runner: %s\n", d.msg);
		return 1;
	}
	printf("%d calls per row, uid %d, Landlock ABI %d\n\n", n,
	    (int)geteuid(), sb.landlock_abi);
	printf("| %-28s | %9s | %9s | %10s | %9s |\n", "row", "p50 us",
	    "p99 us", "p50 / fork", "cycle us");
	printf("|------------------------------|----------:|----------:|"
	    "-----------:|----------:|\n");
	bare_fork(v, n);
	stats(v, n, &base, &p99);
	printf("| %-28s | %9.0f | %9.0f | %10.2f | %9s |\n",
	    "bare fork + reap", base, p99, 1.0, "");
	for (i = 0; i < TC_NITEMS(rows); i++) {
		/* A standby is confined when it is forked: retire the old
		 * one before changing the layers. */
		tc_sandbox_prefork(&sb, 0);
		sb.bench_off = rows[i].off;
		tc_sandbox_prefork(&sb, rows[i].warm ?
		    1u << TC_PROFILE_FS_READ : 0);
		if (confined(&sb, v, n, rows[i].gap_us, &cycle) != 0) {
			fprintf(stderr, "bench-runner: '%s': calls failed\n",
			    rows[i].name);
			return 1;
		}
		stats(v, n, &p50, &p99);
		printf("| %-28s | %9.0f | %9.0f | %10.2f | %9.0f |\n",
		    rows[i].name, p50, p99, p50 / base, cycle);
	}
	tc_sandbox_release(&sb);
	tc_policy_release(&pol);
	free(v);
	return 0;
}
