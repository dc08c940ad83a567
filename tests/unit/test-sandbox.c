/*
 * test-sandbox.c: the fork-per-call runner with a tool table of its own:
 * handlers that answer, fail, crash, overstay their deadline, send too
 * much or garbage, leave a grandchild behind, or close their pipe and
 * linger; and the pool of ready children.  The test process is a child
 * subreaper, so anything a handler leaves behind becomes its child and the
 * final "no child left" check sees it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "policy/policy.h"
#include "sandbox/fd.h"
#include "sandbox/pids.h"
#include "sandbox/sandbox-int.h"
#include "sandbox/sandbox.h"
#include "sandbox/stream.h"
#include "tap.h"

/* tests/hostile/hostile_profile.c: a profile for programs, which fork,
 * sleep and signal; and fs-read's copy, for a second profile. */
extern const struct tc_profile hostile_exec, hostile_fs_read;

#define EXEC	(&hostile_exec)

/* The exec profile with a pseudo-terminal (TC_MAY_TTY) and one ready
 * child at most: made from hostile_exec in main(). */
static struct tc_profile tty_exec;

/* fs-read's copy with a zygote (sandbox/zygote.c), whose ahead hook
 * (zyg_ahead()) opens |zyg_lockpath| as a database connection would:
 * made in main(). */
static struct tc_profile zyg_fs;
static char zyg_lockpath[64];
static int zyg_fd = -1;

#define GUARD_MS	15000	/* no run in this file may take longer */

static int leak_fd = -1;	/* opened without O_CLOEXEC by the parent */

/*
 * Opens the fd the children must not inherit, at a number no process
 * of the sandbox gets by chance: an fd received or opened later takes
 * the lowest free number, which could be the one this had once it is
 * closed, and the child's check by number would then see that one.
 */
static int
open_leak_fd(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd < 0 || dup2(fd, 200) != 200)
		abort();
	close(fd);
	return 200;
}

static const struct tc_arg no_args[] = {
	{ .name = NULL }
};

static int
h_hello(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	tc_result_printf(res, "hello");
	cJSON_AddNumberToObject(tc_result_obj(res), "n", 1);
	return 0;
}

static int
h_fails(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	(void)res;
	return TC_ENOTFOUND;
}

/*
 * Crashes with SIGILL: a fault, which reaches even pid 1 of a PID
 * namespace (the exec profile's child is one, and ignores the signals it
 * sends itself, abort()'s SIGABRT among them), and which the sanitizers do
 * not catch.
 */
static int
h_crash(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	(void)res;
	__builtin_trap();
}

static int
h_sleep(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	(void)res;
	sleep(10);
	return 0;
}

static int
h_huge(const struct tc_call *call, struct tc_result *res)
{
	static char block[1024];
	int i;

	(void)call;
	memset(block, 'x', sizeof(block));
	for (i = 0; i < 64; i++)
		tc_result_text(res, block, sizeof(block));
	return 0;
}

static int
h_noresult(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	(void)res;
	_exit(0);
}

/*
 * Takes the call's terminal and says what it is: whether there was one,
 * the slave and then the mark connected to the master (the mark alone
 * non-blocking), a second take refused, and whether /dev/ptmx opens in
 * the child ("tty=1 linked=1 again=19 ptmx=13").
 */
static int
h_tty(const struct tc_call *call, struct tc_result *res)
{
	int m, s, k, m2, s2, k2, again = 0, ptmx, linked = 0, fl;
	char c = 0, d = 0;

	if (tc_call_tty(call, &m, &s, &k) != 0) {
		tc_result_printf(res, "tty=0 err=%d", errno);
		return 0;
	}
	if (tc_call_tty(call, &m2, &s2, &k2) != 0)
		again = errno;
	/* A byte written to the slave comes out of the master (no ioctl:
	 * the exec profile's filter allows none of a terminal's), and so
	 * does one written to the mark, the slave once more, after it; the
	 * slave blocks, the mark does not. */
	if (write(s, "z", 1) == 1 && write(k, "y", 1) == 1 &&
	    read(m, &c, 1) == 1 && read(m, &d, 1) == 1)
		linked = c == 'z' && d == 'y' &&
		    (fl = fcntl(s, F_GETFL)) >= 0 && !(fl & O_NONBLOCK) &&
		    (fl = fcntl(k, F_GETFL)) >= 0 && (fl & O_NONBLOCK);
	if ((ptmx = open("/dev/ptmx", O_RDWR | O_NOCTTY)) >= 0) {
		close(ptmx);
		ptmx = 0;
	} else
		ptmx = errno;
	tc_result_printf(res, "tty=1 linked=%d again=%d ptmx=%d", linked,
	    again, ptmx);
	close(m);
	close(s);
	close(k);
	return 0;
}

/* Returns the first pipe among the fds above 2: the result pipe. */
static int
result_pipe(void)
{
	struct stat st;
	int fd;

	for (fd = 3; fd < 256; fd++)
		if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
			return fd;
	return -1;
}

static int
h_garbage(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	(void)res;
	if (tc_frame_write(result_pipe(), TC_FRAME_RESULT, "{bad}", 5) != 0)
		_exit(3);
	_exit(0);
}

static int
h_badtype(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	(void)res;
	tc_frame_write(result_pipe(), (enum tc_frame_type)7, "{}", 2);
	sleep(10);
	return 0;
}

static int
h_progress(const struct tc_call *call, struct tc_result *res)
{
	int rc = 0;

	rc |= tc_call_progress(call, 1, 3, "one");
	rc |= tc_call_progress(call, 2, 3, "two");
	/* Out of order: refused here, and dropped by the server when sent
	 * all the same. */
	if (tc_call_progress(call, 2, 3, "again") != TC_EINVAL)
		rc = -1;
	call->io->sent = 0;
	rc |= tc_call_progress(call, 1.5, 3, "backwards");
	rc |= tc_call_progress(call, 3, -1, "three\xff");
	rc |= tc_call_output(call, TC_STREAM_STDOUT, "out ", 4);
	rc |= tc_call_output(call, TC_STREAM_STDERR, "err", 3);
	tc_result_printf(res, rc == 0 ? "after progress" : "send failed");
	return 0;
}

/* Far more progress than a client should be sent. */
static int
h_progress_flood(const struct tc_call *call, struct tc_result *res)
{
	int i;

	for (i = 1; i <= 1000; i++)
		tc_call_progress(call, i, 1000, NULL);
	tc_result_printf(res, "flooded");
	return 0;
}

/* Output past the run's ring, then a result. */
static int
h_output_flood(const struct tc_call *call, struct tc_result *res)
{
	char line[32];
	int i, n;

	for (i = 0; i < 1000; i++) {
		n = snprintf(line, sizeof(line), "%04d\n", i);
		tc_call_output(call, TC_STREAM_STDOUT, line, (size_t)n);
	}
	tc_result_printf(res, "done");
	return 0;
}

/* Output, then no result before the deadline. */
static int
h_output_sleep(const struct tc_call *call, struct tc_result *res)
{
	(void)res;
	tc_call_output(call, TC_STREAM_STDOUT, "partial output\n", 15);
	sleep(10);
	return 0;
}

/* A frame too large for a progress frame. */
static int
h_big_progress(const struct tc_call *call, struct tc_result *res)
{
	static char big[TC_STREAM_FRAME_MAX + 1];

	(void)res;
	tc_frame_write(call->io->out_fd, TC_FRAME_PROGRESS, big, sizeof(big));
	sleep(10);
	return 0;
}

/* A job: echoes its input to its output, then answers. */
static int
h_echo(const struct tc_call *call, struct tc_result *res)
{
	char buf[256];
	size_t total = 0;
	ssize_t n;

	while ((n = tc_call_input(call, buf, sizeof(buf))) > 0) {
		tc_call_output(call, TC_STREAM_STDOUT, buf, (size_t)n);
		total += (size_t)n;
	}
	tc_result_printf(res, "echoed %zu", total);
	return 0;
}

/* A call has no input. */
static int
h_noinput(const struct tc_call *call, struct tc_result *res)
{
	char c;

	tc_result_printf(res, "fd=%d read=%zd", tc_call_input_fd(call),
	    tc_call_input(call, &c, 1));
	return 0;
}

/* Leaves a grandchild in the process group and answers at once. */
static int
h_grandchild(const struct tc_call *call, struct tc_result *res)
{
	char line[256];
	long outer = 0;
	ssize_t n;
	int p[2];
	FILE *f;

	/* It reports its pid as the test sees it: in a PID namespace of
	 * its own, the first field of NSpid. */
	(void)call;
	if (pipe(p) != 0)
		return TC_ESYS;
	if (fork() == 0) {
		if ((f = fopen("/proc/self/status", "r")) != NULL) {
			while (fgets(line, sizeof(line), f) != NULL)
				if (strncmp(line, "NSpid:", 6) == 0)
					outer = strtol(line + 6, NULL, 10);
		}
		dprintf(p[1], "%ld", outer > 0 ? outer : (long)getpid());
		close(p[1]);
		sleep(30);
		_exit(0);
	}
	close(p[1]);
	if ((n = read(p[0], line, sizeof(line) - 1)) <= 0)
		return TC_ESYS;
	line[n] = '\0';
	tc_result_printf(res, "%s", line);
	return 0;
}

/* Returns this process's pid as the test sees it (NSpid's first). */
static long
outer_pid(void)
{
	char line[256];
	long outer = 0;
	FILE *f;

	if ((f = fopen("/proc/self/status", "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "NSpid:", 6) == 0)
				outer = strtol(line + 6, NULL, 10);
		fclose(f);
	}
	return outer > 0 ? outer : (long)getpid();
}

/*
 * Leaves two grandchildren that a process group does not hold: one in a
 * session of its own, one forked twice (its parent gone), and answers at
 * once with their pids.
 */
static int
h_detach(const struct tc_call *call, struct tc_result *res)
{
	long pids[2] = { 0, 0 };
	int p[2], i;

	(void)call;
	if (pipe(p) != 0)
		return TC_ESYS;
	for (i = 0; i < 2; i++) {
		if (fork() != 0)
			continue;
		if (i == 1 && fork() != 0)
			_exit(0);	/* the middle one: gone at once */
		setsid();
		pids[0] = outer_pid();
		(void)!write(p[1], pids, sizeof(long));
		close(p[1]);
		sleep(30);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &pids[0], sizeof(long)) != sizeof(long) ||
	    read(p[0], &pids[1], sizeof(long)) != sizeof(long))
		return TC_ESYS;
	tc_result_printf(res, "%ld %ld", pids[0], pids[1]);
	return 0;
}

/* Leaves twenty orphans that end 10 ms later (a middle process forks
 * each and goes at once), then stays 600 ms before it answers. */
static int
h_orphans(const struct tc_call *call, struct tc_result *res)
{
	pid_t mid;
	int i;

	(void)call;
	for (i = 0; i < 20; i++) {
		if ((mid = fork()) < 0)
			return TC_ESYS;
		if (mid == 0) {
			if (fork() == 0)
				usleep(10000);
			_exit(0);
		}
		while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	usleep(600000);
	tc_result_printf(res, "left %d", i);
	return 0;
}

/* Closes its result pipe (and all else) and stays. */
static int
h_closer(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	(void)res;
	close_range(3, ~0U, 0);
	sleep(10);
	return 0;
}

/* Writes to stdout, which must not be the server's. */
static int
h_noisy(const struct tc_call *call, struct tc_result *res)
{
	static const char junk[] = "not an MCP message\n";

	(void)call;
	if (write(STDOUT_FILENO, junk, sizeof(junk) - 1) < 0)
		tc_result_printf(res, "write failed");
	tc_result_printf(res, "wrote");
	return 0;
}

#ifdef TC_SANITIZE
#define STDERR_WANT	""
#else
#define STDERR_WANT	" stderr=devnull"
#endif

static int
is_devnull(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	    st.st_rdev == makedev(1, 3);
}

/* Reports what it can see of its confinement. */
static int
h_probe(const struct tc_call *call, struct tc_result *res)
{
	int root_fd = call->policy->roots[0].fd;
	int fd, extra = 0;
	size_t i;

	/* Besides stdio and the roots' fds, only its result pipe is open. */
	for (fd = 3; fd < 1024; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		for (i = 0; i < call->policy->nroots; i++)
			if (call->policy->roots[i].fd == fd)
				break;
		if (i == call->policy->nroots)
			extra++;
	}
	tc_result_printf(res, "fds=%d ", extra);
	tc_result_printf(res, "leak_fd=%s root_fd=%s env=%s nnp=%d "
	    "session=%s stdout=%s",
	    fcntl(leak_fd, F_GETFD) < 0 && errno == EBADF ? "closed" : "open",
	    fcntl(root_fd, F_GETFD) >= 0 ? "open" : "closed",
	    getenv("TC_TEST_SECRET") == NULL ? "clean" : "leaked",
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0),
	    getsid(0) == getpid() ? "own" : "shared",
	    is_devnull(STDOUT_FILENO) ? "devnull" : "other");
#ifndef TC_SANITIZE
	/* Sanitizer builds keep stderr for their reports. */
	tc_result_printf(res, " stderr=%s", is_devnull(STDERR_FILENO) ?
	    "devnull" : "other");
#endif
	return 0;
}

/* Takes an OFD read lock on byte 0 of the file its zygote opened. */
static int
h_ofd_lock(const struct tc_call *call, struct tc_result *res)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET,
	    .l_start = 0, .l_len = 1 };

	(void)call;
	tc_result_printf(res, "%d", fcntl(zyg_fd, F_OFD_SETLK, &fl) == 0 ?
	    0 : errno);
	return 0;
}

/* The shell profile: these handlers fork, sleep and signal themselves,
 * which the file profiles' seccomp filters do not allow. */
#define TOOL(n, f)	{ .name = n, .description = n, .args = no_args,	\
	.output_schema = "{\"type\":\"object\"}", .fn = f,		\
	.profile = EXEC }

static const struct tc_tool tools[] = {
	TOOL("hello", h_hello),
	TOOL("fails", h_fails),
	TOOL("crash", h_crash),
	TOOL("sleep", h_sleep),
	TOOL("huge", h_huge),
	TOOL("noresult", h_noresult),
	TOOL("garbage", h_garbage),
	TOOL("badtype", h_badtype),
	TOOL("progress", h_progress),
	TOOL("progress_flood", h_progress_flood),
	TOOL("output_flood", h_output_flood),
	TOOL("output_sleep", h_output_sleep),
	TOOL("big_progress", h_big_progress),
	TOOL("noinput", h_noinput),
	{ .name = "echo", .description = "echo", .args = no_args,
	  .fn = h_echo, .profile = EXEC,
	  .flags = TC_TOOL_JOB },
	TOOL("grandchild", h_grandchild),
	TOOL("detach", h_detach),
	TOOL("orphans", h_orphans),
	TOOL("closer", h_closer),
	TOOL("noisy", h_noisy),
	TOOL("probe", h_probe),
	TOOL("tty_none", h_tty),
	{ .name = "tty", .description = "tty", .args = no_args,
	  .output_schema = "{\"type\":\"object\"}", .fn = h_tty,
	  .profile = &tty_exec },
	{ .name = "ofd_lock", .description = "ofd_lock", .args = no_args,
	  .output_schema = "{\"type\":\"object\"}", .fn = h_ofd_lock,
	  .profile = &zyg_fs },
};

static const struct tc_tool *
tool(const char *name)
{
	const struct tc_tool *t = tc_tool_find(tools, TC_NITEMS(tools), name);

	if (t == NULL)
		abort();
	return t;
}

/*
 * Starts |name| and drives it with poll() and tc_run_step() until done,
 * as the server's loop does.  Returns 0, or -1 if it could not start or
 * had to be stopped at GUARD_MS.
 */
static int
run(struct tc_sandbox *sb, const char *name, struct tc_run *r)
{
	struct tc_call call;
	struct pollfd pfd[2];
	struct tc_diag d;
	int64_t start = tc_now_ms(), ms;
	cJSON *args = cJSON_CreateObject();
	int n;

	memset(&call, 0, sizeof(call));
	call.tool = tool(name);
	call.args = args;
	call.policy = sb->policy;
	memset(&d, 0, sizeof(d));
	n = tc_run_start(r, sb, &call, &d);
	cJSON_Delete(args);
	if (!is_int(n, 0, "%s: tc_run_start", name)) {
		printf("#   %s\n", d.msg);
		return -1;
	}
	for (;;) {
		if ((n = tc_run_pollfds(r, pfd)) < 1 || n > 2) {
			ok(0, "%s: %d pollfds while running", name, n);
			tc_run_kill(r, TC_OUT_CANCELLED);
			tc_run_wait(r);
			return -1;
		}
		/* Wake at least every 100 ms, as if other calls ran. */
		ms = r->deadline_ms - tc_now_ms();
		poll(pfd, (nfds_t)n, ms < 0 ? 0 : ms > 100 ? 100 : (int)ms);
		if (tc_run_step(r, pfd, n, tc_now_ms()))
			break;
		if (tc_now_ms() - start > GUARD_MS) {
			ok(0, "%s: still running after %d ms", name, GUARD_MS);
			tc_run_kill(r, TC_OUT_CANCELLED);
			tc_run_wait(r);
			return -1;
		}
	}
	is_int(r->state, TC_RUN_DONE, "%s: done", name);
	/* Done: the pipe is closed, and the child reaped, or killed with its
	 * group once its result was in (the reaping comes later). */
	ok(r->fd < 0 && (r->pidfd < 0 || (r->killed && r->answered)),
	    "%s: pipe closed, child reaped or killed when done", name);
	return 0;
}

/* Takes the run's result and returns its first text (caller frees). */
static char *
take_text(struct tc_run *r, int *is_error)
{
	const cJSON *c;
	const char *text;
	char *copy;
	cJSON *res;

	res = tc_run_take_result(r);
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0);
	text = cJSON_GetStringValue(cJSON_GetObjectItem(c, "text"));
	copy = strdup(text != NULL ? text : "(none)");
	*is_error = cJSON_IsTrue(cJSON_GetObjectItem(res, "isError"));
	cJSON_Delete(res);
	return copy;
}

/*
 * Runs |name|, checks its outcome, and that its result is a tool error
 * whose text holds |want|.
 */
static void
expect_failure(struct tc_sandbox *sb, const char *name,
    enum tc_run_outcome outcome, const char *want)
{
	struct tc_run r;
	char *text;
	int is_error;

	if (run(sb, name, &r) == 0) {
		is_int(r.outcome, outcome, "%s: outcome, once done", name);
		text = take_text(&r, &is_error);
		is_int(r.outcome, outcome, "%s: outcome, after the result",
		    name);
		ok(is_error, "%s: isError", name);
		like(text, want, "%s: text", name);
		free(text);
	}
	tc_run_release(&r);
}

static void
test_ok(struct tc_sandbox *sb)
{
	struct tc_run r;
	cJSON *res, *want;
	char *text;
	int is_error;

	if (run(sb, "hello", &r) == 0) {
		is_int(r.outcome, TC_OUT_OK, "hello: outcome OK");
		res = tc_run_take_result(&r);
		want = cJSON_Parse("{\"content\":[{\"type\":\"text\",\"text\":"
		    "\"hello\"}],\"structuredContent\":{\"n\":1}}");
		ok(cJSON_Compare(res, want, 1),
		    "hello: the result round-trips");
		cJSON_Delete(want);
		cJSON_Delete(res);
		ok(r.killed || r.pidfd < 0, "hello: answered with its "
		    "process group killed (or already reaped)");
	}
	tc_run_release(&r);

	if (run(sb, "fails", &r) == 0) {
		is_int(r.outcome, TC_OUT_OK, "fails: outcome OK");
		text = take_text(&r, &is_error);
		ok(is_error, "fails: isError");
		is_str(text, "fails failed: not found", "fails: text");
		free(text);
	}
	tc_run_release(&r);

	if (run(sb, "progress", &r) == 0) {
		text = take_text(&r, &is_error);
		is_int(r.outcome, TC_OUT_OK, "progress: outcome OK");
		is_str(text, "after progress", "progress: result after it");
		free(text);
	}
	tc_run_release(&r);
}

/* Progress and output before the result: taken as they come, bounded. */
static void
test_stream(struct tc_sandbox *sb, struct tc_policy *pol)
{
	struct tc_progress p;
	struct tc_run r;
	char buf[64], *text;
	uint64_t from;
	size_t n;
	int is_error, i, inc;
	double last;

	if (run(sb, "progress", &r) == 0) {
		is_int(r.progress_frames, 4, "progress: 4 frames came");
		ok(tc_run_take_progress(&r, &p) && p.progress == 1 &&
		    p.total == 3 && strcmp(p.message, "one") == 0,
		    "progress: the first, as sent");
		ok(tc_run_take_progress(&r, &p) && p.progress == 2 &&
		    strcmp(p.message, "two") == 0, "progress: the second");
		ok(tc_run_take_progress(&r, &p) && p.progress == 3 &&
		    p.total < 0, "progress: the one that went backwards "
		    "was dropped; no total is none");
		is_str(p.message, "three", "progress: a message cut before "
		    "its first byte that is not UTF-8");
		ok(!tc_run_take_progress(&r, &p), "progress: no more");
		n = tc_ring_read(&r.out, 0, buf, sizeof(buf) - 1, &from);
		buf[n] = '\0';
		is_str(buf, "out err", "output: both streams kept, in order");
		ok(r.out_bytes[0] == 4 && r.out_bytes[1] == 3,
		    "output: counted per stream");
	}
	tc_run_release(&r);

	if (run(sb, "progress_flood", &r) == 0) {
		is_int(r.progress_frames, 1000, "flood: 1000 frames came");
		is_int(r.nprogress, TC_PROGRESS_QUEUE, "flood: at most "
		    "TC_PROGRESS_QUEUE kept");
		for (i = 0, inc = 1, last = 0; tc_run_take_progress(&r, &p);
		    i++) {
			inc &= p.progress > last;
			last = p.progress;
		}
		ok(inc && last == 1000, "flood: increasing, the last one kept");
	}
	tc_run_release(&r);

	pol->limits.max_result = 4096;
	if (run(sb, "output_flood", &r) == 0) {
		text = take_text(&r, &is_error);
		is_str(text, "done", "ring: the result is unchanged");
		free(text);
		is_int(r.out.end, 5000, "ring: every byte counted");
		is_int(tc_ring_dropped(&r.out), 5000 - 4096, "ring: kept no "
		    "more than the result's limit");
		n = tc_ring_read(&r.out, 0, buf, 10, &from);
		buf[n] = '\0';
		ok(from == 5000 - 4096, "ring: a read from 0 says where it "
		    "began");
	}
	tc_run_release(&r);
	pol->limits.max_result = 1u << 20;

	pol->limits.deadline_ms = 300;
	expect_failure(sb, "output_sleep", TC_OUT_TIMEOUT,
	    "deadline of 300 ms\n\nIts output before it ended:\npartial "
	    "output\n");
	pol->limits.deadline_ms = 5000;
	expect_failure(sb, "big_progress", TC_OUT_BADFRAME, "over its size "
	    "limit");

	if (run(sb, "noinput", &r) == 0) {
		text = take_text(&r, &is_error);
		is_str(text, "fd=-1 read=-1", "input: a call has none");
		free(text);
	}
	tc_run_release(&r);
}

/* A job's input: written by the server, read by the child. */
static void
test_input(struct tc_sandbox *sb, struct tc_policy *pol)
{
	struct tc_call call = { .tool = tool("echo"), .policy = pol };
	struct tc_run r;
	char buf[64], *text;
	uint64_t from;
	size_t n;
	int is_error;

	if (!is_int(tc_run_start(&r, sb, &call, NULL), 0, "echo: start"))
		return;
	ok(r.in_fd >= 0, "echo: a job has an input");
	is_int(tc_run_input(&r, "hello ", 6, 0), 0, "echo: input");
	is_int(tc_run_input(&r, "world", 5, 1), 0, "echo: input, closed");
	is_int(tc_run_input(&r, "more", 4, 0), TC_EINVAL, "echo: no input "
	    "once closed");
	tc_run_wait(&r);
	text = take_text(&r, &is_error);
	is_str(text, "echoed 11", "echo: the child read it all, then its "
	    "end");
	free(text);
	n = tc_ring_read(&r.out, 0, buf, sizeof(buf) - 1, &from);
	buf[n] = '\0';
	is_str(buf, "hello world", "echo: and sent it back as output");
	tc_run_release(&r);
}

static void
test_failures(struct tc_sandbox *sb, struct tc_policy *pol)
{
	int64_t t0;

	expect_failure(sb, "crash", TC_OUT_CRASHED, "signal 4");

	pol->limits.deadline_ms = 200;
	t0 = tc_now_ms();
	expect_failure(sb, "sleep", TC_OUT_TIMEOUT, "deadline of 200 ms");
	ok(tc_now_ms() - t0 < 2000, "sleep: stopped soon after 200 ms");
	pol->limits.deadline_ms = 5000;

	pol->limits.max_result = 4096;
	expect_failure(sb, "huge", TC_OUT_TOOBIG, "4096-byte limit");
	pol->limits.max_result = 1u << 20;

	expect_failure(sb, "noresult", TC_OUT_NORESULT,
	    "exited with status 0 without a result");
	expect_failure(sb, "garbage", TC_OUT_BADFRAME, "malformed result");
	expect_failure(sb, "badtype", TC_OUT_BADFRAME, "unknown type");

	/* A limit the kernel refuses (past fs.nr_open): the handler never
	 * runs, and the call says why. */
	pol->limits.nofile = 1ul << 30;
	expect_failure(sb, "hello", TC_OUT_CONFINE,
	    "sandbox could not be set up (could not set resource limits)");
	pol->limits.nofile = 256;

	is_str(tc_child_exit_str(TC_CHILD_EXIT_LANDLOCK),
	    "could not apply the Landlock ruleset", "tc_child_exit_str");
	ok(tc_child_exit_str(0) == NULL && tc_child_exit_str(1) == NULL,
	    "tc_child_exit_str: NULL for ordinary statuses");
}

static void
test_cancel(struct tc_sandbox *sb, struct tc_policy *pol)
{
	struct tc_call call = { .tool = tool("sleep"), .policy = pol };
	struct tc_run r;
	char *text;
	int is_error;
	int64_t t0;

	t0 = tc_now_ms();
	is_int(tc_run_start(&r, sb, &call, NULL), 0, "cancel: start");
	tc_run_kill(&r, TC_OUT_CANCELLED);
	tc_run_wait(&r);
	is_int(r.state, TC_RUN_DONE, "cancel: done");
	is_int(r.outcome, TC_OUT_CANCELLED, "cancel: outcome");
	ok(tc_now_ms() - t0 < 2000, "cancel: prompt");
	text = take_text(&r, &is_error);
	ok(is_error, "cancel: isError");
	is_str(text, "the call was cancelled", "cancel: text");
	free(text);
	tc_run_release(&r);
}

/* Checks that |pid|, our child as subreaper, dies by SIGKILL soon. */
static void
expect_killed(pid_t pid, const char *name)
{
	int64_t t0 = tc_now_ms();
	int st = 0;
	pid_t w;

	/* Until its parent, our child, is dead (the runner reaps that one
	 * later), it is not ours to wait for: ECHILD.  5 s: a machine
	 * running a CI and a benchmark besides took more than 2 once.  In the child's own
	 * PID namespace it never is: that namespace's end kills and reaps
	 * it, and it is simply gone. */
	for (;;) {
		w = waitpid(pid, &st, WNOHANG);
		if (w == pid || (w < 0 && errno == ECHILD && kill(pid, 0) < 0 &&
		    errno == ESRCH) || tc_now_ms() - t0 > 5000)
			break;
		usleep(10000);
	}
	if (w == pid) {
		ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		    "%s: killed with the call", name);
		return;
	}
	if (ok(w < 0 && errno == ESRCH, "%s: gone with the call", name))
		return;
	/* Left alive: killed here, so that it outlives neither the test
	 * nor (a sanitizer build's, which keeps stderr) its output. */
	if (kill(pid, SIGKILL) == 0)
		(void)waitpid(pid, NULL, 0);
}

static void
test_leftovers(struct tc_sandbox *sb, struct tc_policy *pol)
{
	struct tc_call call = { .tool = tool("closer"), .policy = pol };
	struct tc_run r;
	char *text, *end;
	int is_error;
	int64_t t0;
	long gpid;

	/* A grandchild in the process group goes with the child. */
	if (run(sb, "grandchild", &r) == 0) {
		text = take_text(&r, &is_error);
		is_int(r.outcome, TC_OUT_OK, "grandchild: outcome OK");
		gpid = strtol(text, &end, 10);
		if (ok(*end == '\0' && gpid > 0, "grandchild: its pid"))
			expect_killed((pid_t)gpid, "grandchild");
		else
			printf("#   got '%s'\n", text);
		free(text);
	}
	tc_run_release(&r);

	/*
	 * A child that closes its pipe and lingers is still killed at its
	 * deadline by tc_run_wait().  An alarm breaks the wait should it
	 * block past the deadline, so the test cannot hang.
	 */
	pol->limits.deadline_ms = 300;
	t0 = tc_now_ms();
	if (is_int(tc_run_start(&r, sb, &call, NULL), 0, "closer: start")) {
		alarm(3);
		tc_run_wait(&r);
		alarm(0);
		is_int(r.outcome, TC_OUT_TIMEOUT, "closer: outcome timeout");
		if (!ok(tc_now_ms() - t0 < 2000, "closer: tc_run_wait kept the "
		    "300 ms deadline"))
			printf("#   took %lld ms\n", (long long)(tc_now_ms() -
			    t0));
	}
	tc_run_release(&r);
	pol->limits.deadline_ms = 5000;
}

/* The sandbox's prepared EXEC profile, whose namespaces a case may turn
 * off, or NULL. */
static struct tc_sandbox_profile *
exec_profile(struct tc_sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->nprof; i++)
		if (sb->prof[i].profile == EXEC)
			return &sb->prof[i];
	return NULL;
}

/*
 * A keeper slow to take its next step after its fork (|keeper_slow_ms|,
 * test_keeper()'s second pass), as on a loaded machine: the link wraps
 * tc_keeper_become().
 */
static int keeper_slow_ms;
/* Or one the kernel refuses (test_keeper()'s last case). */
static int keeper_refused;

int __real_tc_keeper_become(void);
int __wrap_tc_keeper_become(void);

int
__wrap_tc_keeper_become(void)
{
	if (keeper_refused) {
		errno = EPERM;
		return -1;
	}
	if (keeper_slow_ms > 0)
		usleep((useconds_t)keeper_slow_ms * 1000);
	return __real_tc_keeper_become();
}

/*
 * Without namespaces (no PID namespace ends the call's processes), the
 * keeper alone kills what left the process group: a grandchild in a
 * session of its own and one forked twice.  Then the same with a keeper
 * that takes 300 ms to become one: the call has run by then, and the
 * child its parent's exit orphaned is still the keeper's to kill, which
 * it was not while a keeper became a subreaper after its clone of the
 * child (an intermittent failure of jobs.test.mjs on a loaded machine).
 * Last, a keeper the kernel does not let become one: the call fails in
 * words of its own, and nothing of it runs.
 */
static void
test_keeper(struct tc_sandbox *sb)
{
	static const int slow[] = { 0, 300 };
	struct tc_sandbox_profile *sp;
	unsigned long ns;
	struct tc_run r;
	char *text, *end, what[64];
	long a, b;
	int is_error;
	size_t i;

	/* The profile's namespaces off, as a kernel that denies them
	 * leaves them: its children are forked on the call here. */
	if (!ok((sp = exec_profile(sb)) != NULL, "keeper: the profile"))
		return;
	ns = sp->ns;
	sp->ns = 0;
	for (i = 0; i < TC_NITEMS(slow); i++) {
		keeper_slow_ms = slow[i];
		snprintf(what, sizeof(what), "keeper (%d ms to become one)",
		    slow[i]);
		if (run(sb, "detach", &r) == 0) {
			ok(r.keeper, "%s: a child that may fork, without a "
			    "PID namespace, has one", what);
			text = take_text(&r, &is_error);
			a = strtol(text, &end, 10);
			b = strtol(end, &end, 10);
			if (ok(*end == '\0' && a > 0 && b > 0, "%s: the pids",
			    what)) {
				expect_killed((pid_t)a, slow[i] ? "slow keeper: "
				    "the setsid grandchild" : "keeper: the "
				    "setsid grandchild");
				expect_killed((pid_t)b, slow[i] ? "slow keeper: "
				    "the double-forked one" : "keeper: the "
				    "double-forked one");
			} else
				printf("#   got '%s'\n", text);
			free(text);
		}
		tc_run_release(&r);
	}
	keeper_slow_ms = 0;
	/* A keeper that cannot become one runs nothing, and says so. */
	keeper_refused = 1;
	expect_failure(sb, "detach", TC_OUT_CONFINE, "sandbox could not be "
	    "set up (could not become its call's keeper)");
	keeper_refused = 0;
	sp->ns = ns;
}

/* Returns 1 if this kernel lists a task's children in /proc
 * (CONFIG_PROC_CHILDREN), which the keeper's cases read; else skips
 * |what| and returns 0. */
static int
proc_children(const char *what)
{
	char path[64], why[128];

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
	    (long)getpid(), (long)getpid());
	if (access(path, R_OK) == 0)
		return 1;
	snprintf(why, sizeof(why), "%s: no /proc/PID/task/TID/children on "
	    "this kernel", what);
	skip(why);
	return 0;
}

/* How many of process |pid|'s children are zombies, or -1 if they
 * cannot be read. */
static int
zombie_children(pid_t pid)
{
	char path[64], stat[512], *p;
	int n = 0, fd;
	long child;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
	    (long)pid, (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fscanf(f, "%ld", &child) == 1) {
		snprintf(path, sizeof(path), "/proc/%ld/stat", child);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		memset(stat, 0, sizeof(stat));
		(void)!read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if ((p = strrchr(stat, ')')) != NULL && p[1] == ' ' &&
		    p[2] == 'Z')
			n++;
	}
	fclose(f);
	return n;
}

/*
 * Without namespaces, the orphans a call leaves are the keeper's, and
 * it reaps those that end as the call runs: none of twenty is still a
 * zombie 400 ms on, while the call has 200 ms to go.  (As zombies they
 * counted against the call's process limit until the call ended.)
 */
static void
test_keeper_reaps(struct tc_sandbox *sb)
{
	struct tc_call call = { .tool = tool("orphans"), .policy = sb->policy };
	struct tc_sandbox_profile *sp;
	struct pollfd pfd[2];
	struct tc_diag d;
	unsigned long ns;
	struct tc_run r;
	int64_t t0;
	int n, zombies = -2;

	if (!proc_children("keeper reaps"))
		return;
	if (!ok((sp = exec_profile(sb)) != NULL, "keeper reaps: the "
	    "profile"))
		return;
	ns = sp->ns;
	sp->ns = 0;
	memset(&d, 0, sizeof(d));
	if (!is_int(tc_run_start(&r, sb, &call, &d), 0, "keeper reaps: "
	    "start")) {
		printf("#   %s\n", d.msg);
		sp->ns = ns;
		return;
	}
	ok(r.keeper, "keeper reaps: a keeper");
	t0 = tc_now_ms();
	alarm(10);
	for (;;) {
		n = tc_run_pollfds(&r, pfd);
		poll(pfd, (nfds_t)n, 20);
		if (zombies == -2 && tc_now_ms() - t0 >= 400)
			zombies = zombie_children(r.pid);
		if (tc_run_step(&r, pfd, n, tc_now_ms()))
			break;
	}
	alarm(0);
	is_int(zombies, 0, "keeper reaps: no zombie of the twenty orphans "
	    "400 ms on");
	tc_run_release(&r);
	sp->ns = ns;
}

/*
 * The same with the dead list full (TC_DEAD_MAX children of ours that do
 * not end, as stuck ones would not): releasing a given-up run does not
 * wait for its child, which here does not end either, a process of ours
 * in pause().  Returns with every one of them killed and reaped.
 */
static void
test_given_up_full(struct tc_sandbox *sb)
{
	struct tc_call call = { .tool = tool("sleep"), .policy = sb->policy };
	pid_t stuck[TC_DEAD_MAX + 1], real;
	struct tc_run r;
	int64_t t0;
	size_t i, n = 0;

	while (n < TC_DEAD_MAX + 1 && (stuck[n] = fork()) >= 0) {
		if (stuck[n] == 0) {
			pause();
			_exit(0);
		}
		n++;
	}
	if (!ok(n == TC_DEAD_MAX + 1 && sb->ndead == 0, "full: %zu children "
	    "that do not end", n))
		goto out;
	for (i = 0; i < TC_DEAD_MAX; i++) {
		sb->dead[i].pid = stuck[i];
		sb->dead[i].pidfd = pidfd_open(stuck[i], 0);
	}
	sb->ndead = TC_DEAD_MAX;
	if (!is_int(tc_run_start(&r, sb, &call, NULL), 0, "full: start"))
		goto out;
	real = r.pid;
	tc_run_kill(&r, TC_OUT_CANCELLED);
	waitpid(real, NULL, 0);
	/* Its child, as the run sees it, one that does not end. */
	r.pid = stuck[TC_DEAD_MAX];
	r.grace_ms = tc_now_ms() - 1;
	alarm(10);
	tc_run_wait(&r);
	t0 = tc_now_ms();
	tc_run_release(&r);
	alarm(0);
	ok(tc_now_ms() - t0 < 1000, "full: a given-up child not waited for "
	    "(%lld ms)", (long long)(tc_now_ms() - t0));
out:
	for (i = 0; i < n; i++)
		kill(stuck[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(stuck[i], NULL, 0);
	for (i = 0; i < sb->ndead; i++)
		close(sb->dead[i].pidfd);
	sb->ndead = 0;
}

/*
 * A child without a keeper that a kill does not end (a process of its PID
 * namespace in uninterruptible sleep holds the namespace's pid 1: made
 * here by putting, in its pidfd's place, one of a process that no kill
 * of ours ends, pid 1 of the machine) is given up TC_KEEPER_GRACE_MS
 * after the kill: the run is done, and its real child is reaped later.
 */
static void
test_given_up(struct tc_sandbox *sb)
{
	struct tc_call call = { .tool = tool("sleep"), .policy = sb->policy };
	struct tc_run r;
	int64_t t0, took;
	int real, init;

	if (!is_int(tc_run_start(&r, sb, &call, NULL), 0, "given up: start"))
		return;
	ok(!r.keeper, "given up: no keeper");
	if ((init = pidfd_open(1, 0)) < 0) {
		ok(0, "given up: pidfd_open(1): %s", strerror(errno));
		tc_run_release(&r);
		return;
	}
	real = r.pidfd;
	r.pidfd = init;
	t0 = tc_now_ms();
	tc_run_kill(&r, TC_OUT_CANCELLED);
	alarm(10);
	tc_run_wait(&r);
	alarm(0);
	took = tc_now_ms() - t0;
	ok(r.state == TC_RUN_DONE && took >= TC_KEEPER_GRACE_MS,
	    "given up: done once the grace was over (%lld ms)",
	    (long long)took);
	is_int(r.outcome, TC_OUT_CANCELLED, "given up: its outcome");
	/* The dead list takes (its pid, the pidfd in its place); reaping
	 * waits for the pid, which the kill of its group ended. */
	tc_run_release(&r);
	close(real);
	ok(tc_sandbox_reap(sb, 1) == 0, "given up: reaped later");
	test_given_up_full(sb);
}

/*
 * A child that may fork, in a PID namespace of its own, has no keeper,
 * with a pids cgroup or without (a server that is not root, as this one
 * is made to look): it is the server's own child, pid 1 of its
 * namespace, and what it left (a grandchild in a session of its own, one
 * forked twice) dies with that namespace when the server ends the child.
 */
static void
test_no_keeper(struct tc_sandbox *sb)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, EXEC);
	char saved[sizeof(sb->pids.dir)];
	struct tc_run r;
	char *text, *end;
	long a, b;
	int is_error, cg;

	if (sp == NULL || !(sp->ns & CLONE_NEWPID)) {
		skip("no PID namespace of its own here: every child that "
		    "may fork has a keeper");
		return;
	}
	memcpy(saved, sb->pids.dir, sizeof(saved));
	for (cg = saved[0] != '\0'; cg >= 0; cg--) {
		if (!cg)
			sb->pids.dir[0] = '\0';
		if (run(sb, "detach", &r) != 0) {
			tc_run_release(&r);
			continue;
		}
		ok(!r.keeper && r.head == cg, "no keeper: in its own PID "
		    "namespace, %s", cg ? "placed in its pids cgroup" :
		    "without a pids cgroup");
		text = take_text(&r, &is_error);
		a = strtol(text, &end, 10);
		b = strtol(end, &end, 10);
		if (ok(*end == '\0' && a > 0 && b > 0, "no keeper: the "
		    "pids")) {
			expect_killed((pid_t)a, "no keeper: the setsid "
			    "grandchild");
			expect_killed((pid_t)b, "no keeper: the double-forked "
			    "one");
		} else
			printf("#   got '%s'\n", text);
		free(text);
		tc_run_release(&r);
	}
	test_given_up(sb);
	memcpy(sb->pids.dir, saved, sizeof(saved));
}

/*
 * A child without a keeper where a pids cgroup is in force (a root
 * server's) is in its call's cgroup, named by its pid, with the tool's
 * limit as pids.max (no keeper to count); once the runner has reaped it
 * the cgroup is a spare (cgroup v1) or gone, and nothing is left to
 * retry.
 */
static void
test_placed(struct tc_sandbox *sb, struct tc_policy *pol)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, EXEC);
	struct tc_call call = { .tool = tool("sleep"), .policy = pol };
	char dir[PATH_MAX + 32], file[PATH_MAX + 48], path[64], line[4096];
	char want[64], max[32];
	const char *base;
	struct tc_limits l;
	struct stat st;
	struct tc_run r;
	ssize_t n;
	int fd;

	if (sb->pids.dir[0] == '\0' || sp == NULL ||
	    !(sp->ns & CLONE_NEWPID)) {
		skip("no pids cgroup this process may write here, or no "
		    "PID namespace: no child is placed");
		return;
	}
	if (!is_int(tc_run_start(&r, sb, &call, NULL), 0, "placed: start"))
		return;
	ok(!r.keeper && r.head, "placed: no keeper, the child placed");
	snprintf(dir, sizeof(dir), "%s/%ld", sb->pids.dir, (long)r.pid);
	base = strrchr(sb->pids.dir, '/');
	snprintf(want, sizeof(want), "%s/%ld\n", base != NULL ? base : "",
	    (long)r.pid);
	snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)r.pid);
	n = -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
	}
	line[n > 0 ? n : 0] = '\0';
	if (!ok(strstr(line, want) != NULL, "placed: the child is in its "
	    "call's cgroup, named by its pid"))
		printf("# %s:\n%s", path, line);
	tc_policy_limits(pol, "sleep", &l);
	snprintf(path, sizeof(path), "%lu\n", tc_pids_max(l.nproc, 0));
	n = -1;
	snprintf(file, sizeof(file), "%s/pids.max", dir);
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, max, sizeof(max) - 1);
		close(fd);
	}
	max[n > 0 ? n : 0] = '\0';
	is_str(max, path, "placed: its pids.max is the tool's limit itself");
	tc_run_kill(&r, TC_OUT_CANCELLED);
	alarm(10);
	tc_run_wait(&r);
	alarm(0);
	tc_run_release(&r);
	ok(stat(dir, &st) != 0 && errno == ENOENT, "placed: once reaped, "
	    "its cgroup is a spare or removed");
	is_int((int)sb->pids.nleft, 0, "placed: nothing left to retry");
}

/*
 * A cgroup named by a pid that its holder left busy (a killed keeper's,
 * a process of its call still in it) is not made a spare, nor removed,
 * when the server reaps another child of that pid that heads no cgroup
 * (one whose profile cannot fork, on the list of killed children): that
 * child's end proves nothing of the cgroup.  With pid_max 32768 a pid
 * comes round again within seconds.
 */
static void
test_dead_not_head(struct tc_sandbox *sb)
{
	char dir[PATH_MAX + 32], text[32];
	pid_t c, live;
	struct stat st;
	int fd;

	if (sb->pids.dir[0] == '\0' || sb->ndead != 0) {
		skip("no pids cgroup this process may write here (not root, "
		    "and none delegated)");
		return;
	}
	if ((c = fork()) == 0) {
		pause();
		_exit(0);
	}
	if ((live = fork()) == 0) {
		pause();
		_exit(0);
	}
	snprintf(dir, sizeof(dir), "%s/%ld", sb->pids.dir, (long)c);
	snprintf(text, sizeof(text), "%ld", (long)live);
	if (!ok(c > 0 && live > 0 && mkdir(dir, 0755) == 0, "not a head: "
	    "a busy cgroup named by the pid of a child that heads none"))
		goto out;
	{
		char procs[PATH_MAX + 48];

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		ok(fd >= 0 && write(fd, text, strlen(text)) ==
		    (ssize_t)strlen(text), "not a head: a process of an "
		    "earlier call in it");
		if (fd >= 0)
			close(fd);
	}
	sb->dead[0].pid = c;
	sb->dead[0].pidfd = pidfd_open(c, 0);
	sb->dead[0].head = 0;
	sb->ndead = 1;
	kill(c, SIGKILL);
	is_int((int)tc_sandbox_reap(sb, 1), 0, "not a head: reaped");
	ok(stat(dir, &st) == 0, "not a head: the busy cgroup of its pid "
	    "left as it is, neither a spare nor removed");
out:
	kill(live, SIGKILL);
	waitpid(live, NULL, 0);
	if (c > 0 && kill(c, SIGKILL) == 0)
		waitpid(c, NULL, 0);
	for (fd = 0; fd < 100 && rmdir(dir) != 0 && errno == EBUSY; fd++)
		usleep(10000);
}

/*
 * A keeper that has not ended when its grace is over (stopped here, as
 * one stuck without /proc to find its tree would be) is killed by the
 * runner, which removes its call's pids cgroup once it has reaped it and
 * the call's child, dying of its parent's death, is gone: at once, or on
 * the next retry (the next call or reaping), not at the server's end.
 * A child has a keeper only without a PID namespace: the profile's are
 * turned off here, as a kernel that denies them leaves them.
 */
static void
test_stuck_keeper(struct tc_sandbox *sb, struct tc_policy *pol)
{
	struct tc_call call = { .tool = tool("sleep"), .policy = pol };
	char dir[PATH_MAX + 32], path[64];
	struct tc_sandbox_profile *sp;
	unsigned long ns;
	struct stat st;
	struct tc_run r;
	long child = 0;
	int64_t t0;
	FILE *f;
	int i;

	sp = exec_profile(sb);
	if (sb->pids.dir[0] == '\0' || sp == NULL) {
		skip("no pids cgroup this process may write here (not root, "
		    "and none delegated)");
		return;
	}
	if (!proc_children("stuck keeper"))
		return;
	ns = sp->ns;
	sp->ns = 0;
	if (!is_int(tc_run_start(&r, sb, &call, NULL), 0, "stuck keeper: "
	    "start")) {
		sp->ns = ns;
		return;
	}
	sp->ns = ns;
	ok(r.keeper, "stuck keeper: without a PID namespace, a keeper");
	snprintf(dir, sizeof(dir), "%s/%ld", sb->pids.dir, (long)r.pid);
	ok(stat(dir, &st) == 0, "stuck keeper: its call's cgroup, %s", dir);
	/* The call's child, which comes to us, the subreaper, once its
	 * keeper is dead. */
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
	    (long)r.pid, (long)r.pid);
	for (i = 0; i < 500 && child <= 0; i++) {
		if ((f = fopen(path, "re")) != NULL) {
			if (fscanf(f, "%ld", &child) != 1)
				child = 0;
			fclose(f);
		}
		if (child <= 0)
			usleep(10000);
	}
	ok(child > 0, "stuck keeper: its child, %ld", child);
	kill(r.pid, SIGSTOP);
	t0 = tc_now_ms();
	tc_run_kill(&r, TC_OUT_CANCELLED);
	alarm(10);
	tc_run_wait(&r);
	alarm(0);
	ok(r.keeper_killed && tc_now_ms() - t0 >= TC_KEEPER_GRACE_MS,
	    "stuck keeper: killed when its grace was over");
	/* The kernel ends the call's child and its PID namespace as it
	 * pleases: retried as a later call would, for up to 5 s. */
	for (i = 0; i < 500 && stat(dir, &st) == 0; i++) {
		usleep(10000);
		tc_pids_retry(&sb->pids, 0);
	}
	ok(stat(dir, &st) != 0 && errno == ENOENT, "stuck keeper: its "
	    "call's cgroup removed once it was reaped");
	is_int((int)sb->pids.nleft, 0, "stuck keeper: nothing left to "
	    "retry");
	if (child > 0)
		expect_killed((pid_t)child, "stuck keeper: its child");
	tc_run_release(&r);
}

static void
test_confinement(struct tc_sandbox *sb)
{
	struct tc_run r;
	char *text, buf[1024];
	int is_error, saved, n, p[2];
	ssize_t got;

	setenv("TC_TEST_SECRET", "hunter2", 1);
	leak_fd = open_leak_fd();
	if (run(sb, "probe", &r) == 0) {
		text = take_text(&r, &is_error);
		is_str(text, "fds=1 leak_fd=closed root_fd=open env=clean nnp=1 "
		    "session=own stdout=devnull" STDERR_WANT, "probe: inherited "
		    "fds closed "
		    "but the roots', environment scrubbed, no_new_privs, own "
		    "session, stdout on /dev/null");
		free(text);
	}
	tc_run_release(&r);
	close(leak_fd);
	unsetenv("TC_TEST_SECRET");

	/* The child's stdout is not ours: catch ours in a pipe. */
	fflush(stdout);
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0 ||
	    (saved = dup(STDOUT_FILENO)) < 0) {
		ok(0, "noisy: set up");
		return;
	}
	dup2(p[1], STDOUT_FILENO);
	n = run(sb, "noisy", &r);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(p[1]);
	/* What the TAP calls printed meanwhile is ours; the junk is not. */
	got = read(p[0], buf, sizeof(buf) - 1);
	buf[got > 0 ? got : 0] = '\0';
	close(p[0]);
	fputs(buf, stdout);
	ok(strstr(buf, "not an MCP message") == NULL,
	    "noisy: nothing reached the parent's stdout");
	if (n == 0) {
		text = take_text(&r, &is_error);
		is_str(text, "wrote", "noisy: the handler wrote to its stdout");
		free(text);
	}
	tc_run_release(&r);
}

/* The pid in slot |k| of |profile|'s pool, or 0. */
static pid_t
pool_pid(const struct tc_sandbox *sb, const struct tc_profile *profile,
    size_t k)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, profile);

	return sp != NULL && sp->pool[k].pid > 0 ? sp->pool[k].pid : 0;
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/*
 * The servers' way: a standby child forked by the spawner (as our own
 * child) and confined before the call comes.
 */
static void
test_standby(struct tc_sandbox *sb)
{
	struct tc_run r;
	pid_t want;
	char *text;
	int is_error, i;

	/* What the spawner and its children must not pass on. */
	setenv("TC_TEST_SECRET", "hunter2", 1);
	leak_fd = open_leak_fd();
	tc_sandbox_prefork(sb, 1);
	close(leak_fd);
	unsetenv("TC_TEST_SECRET");
	ok(sb->spawner > 0, "standby: the spawner runs");
	for (i = 0; i < 200 && tc_sandbox_ready(sb, EXEC) == 0; i++) {
		usleep(5000);
		tc_sandbox_refill(sb);
	}
	want = pool_pid(sb, EXEC, 0);
	if (!ok(want > 0 && getpgid(want) >= 0, "standby: a standby child "
	    "is ready"))
		return;
	if (run(sb, "probe", &r) == 0) {
		is_int(r.pid, want, "standby: it ran the call");
		text = take_text(&r, &is_error);
		is_str(text, "fds=1 leak_fd=closed root_fd=open env=clean nnp=1 "
		    "session=own stdout=devnull" STDERR_WANT, "standby: confined "
		    "as a "
		    "child forked on the call is");
		free(text);
	}
	tc_run_release(&r);
	/* The next one is asked for when the server has answered. */
	for (i = 0; i < 200 && tc_sandbox_ready(sb, EXEC) == 0; i++) {
		usleep(5000);
		tc_sandbox_refill(sb);
	}
	ok(pool_pid(sb, EXEC, 0) > 0 && pool_pid(sb, EXEC, 0) != want,
	    "standby: a fresh one replaces it");
	if (run(sb, "hello", &r) == 0)
		is_int(r.outcome, TC_OUT_OK, "standby: second call OK");
	tc_run_release(&r);
	tc_sandbox_stop(sb);
	ok(sb->spawner == 0 && tc_sandbox_ready(sb, EXEC) == 0,
	    "standby: retired with the spawner");
}

/* Refills until each profile has |n| ready children, or gives up (after
 * 20 s: a bound for a machine under load, not a measure). */
static int
wait_ready(struct tc_sandbox *sb, unsigned n)
{
	size_t i, k;
	int all;

	for (i = 0; i < 4000; i++) {
		tc_sandbox_refill(sb);
		for (all = 1, k = 0; k < sb->nprof; k++)
			all &= tc_sandbox_ready(sb, sb->prof[k].profile) == n;
		if (all)
			return 1;
		usleep(5000);
	}
	return 0;
}

/* Fills |pids| and pidfds of our own with every ready child; returns
 * how many. */
static size_t
pooled(const struct tc_sandbox *sb, pid_t *pids, int *fds, size_t cap)
{
	size_t i, k, n = 0;

	for (i = 0; i < sb->nprof; i++)
		for (k = 0; k < TC_POOL_MAX && n < cap; k++)
			if (sb->prof[i].pool[k].pid > 0) {
				pids[n] = sb->prof[i].pool[k].pid;
				fds[n++] = pidfd_open(sb->prof[i].pool[k].pid,
				    0);
			}
	return n;
}

/* Returns 1 if every process of |fds| (pidfds) has exited and been
 * reaped (by the sandbox, not by us); closes them. */
static int
all_gone(int *fds, size_t n)
{
	struct pollfd pfd;
	siginfo_t si;
	size_t i;
	int gone = 1;

	for (i = 0; i < n; i++) {
		pfd.fd = fds[i];
		pfd.events = POLLIN;
		if (fds[i] < 0 || poll(&pfd, 1, 0) != 1 ||
		    waitid(P_PIDFD, (id_t)fds[i], &si, WEXITED | WNOHANG) == 0 ||
		    errno != ECHILD)
			gone = 0;
		if (fds[i] >= 0)
			close(fds[i]);
	}
	return gone;
}

/* Returns 1 if |pid| is one of |pids|[0..n). */
static int
among(pid_t pid, const pid_t *pids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

#define BURST	5

/*
 * The pool: n ready children of each profile after tc_sandbox_prefork();
 * a burst of calls takes them (and has the others made on the call);
 * tc_sandbox_refill() makes them up again, fresh; reroot, and stop,
 * retire and reap every one; with n 0 none is kept.
 */
static void
test_pool(struct tc_sandbox *sb)
{
	pid_t pids[2 * TC_POOL_MAX], used[BURST];
	int fds[2 * TC_POOL_MAX], fresh = 1, alive = 1, ok_all = 1;
	struct tc_diag d = { "", 0 };
	struct tc_run runs[BURST];
	struct tc_call call;
	cJSON *args, *res;
	size_t n, i, took = 0;

	tc_sandbox_prefork(sb, 3);
	if (!ok(wait_ready(sb, 3), "pool: 3 ready children of each of the "
	    "%zu profiles", sb->nprof))
		return;
	n = pooled(sb, pids, fds, TC_NITEMS(pids));
	for (i = 0; i < n; i++) {
		alive &= fds[i] >= 0 && kill(pids[i], 0) == 0;
		fresh &= !among(pids[i], pids, i);
	}
	ok(n == 3 * sb->nprof && alive && fresh, "pool: each a live process "
	    "of its own");
	all_gone(fds, n);	/* closes them */

	/* A burst: every call started before any is waited for. */
	args = cJSON_CreateObject();
	memset(&call, 0, sizeof(call));
	call.tool = tool("hello");
	call.args = args;
	call.policy = sb->policy;
	for (i = 0; i < BURST; i++) {
		if (tc_run_start(&runs[i], sb, &call, &d) != 0) {
			ok(0, "pool: burst call %zu: %s", i, d.msg);
			tc_run_init(&runs[i]);
			continue;
		}
		used[i] = runs[i].pid;
		took += among(runs[i].pid, pids, n);
	}
	for (i = 0; i < BURST; i++) {
		tc_run_wait(&runs[i]);
		res = tc_run_take_result(&runs[i]);
		ok_all &= runs[i].outcome == TC_OUT_OK;
		cJSON_Delete(res);
		tc_run_release(&runs[i]);
	}
	cJSON_Delete(args);
	ok(ok_all, "pool: %d calls at once, all answered", BURST);
	is_int((int)took, 3, "pool: the burst took the 3 ready children, and "
	    "the other calls children made on the call");
	is_int((int)tc_sandbox_ready(sb, EXEC), 0, "pool: empty after the "
	    "burst");

	/* Refilled when idle, with children none of which ran a call. */
	ok(wait_ready(sb, 3), "pool: refilled to 3");
	n = pooled(sb, pids, fds, TC_NITEMS(pids));
	for (fresh = 1, i = 0; i < n; i++)
		fresh &= !among(pids[i], used, BURST);
	ok(fresh, "pool: refilled with fresh children");

	/* Re-rooting retires and reaps every ready child, then refills. */
	if (!is_int(tc_sandbox_reroot(sb, &d), 0, "pool: reroot"))
		printf("#   %s\n", d.msg);
	ok(all_gone(fds, n), "pool: reroot retired and reaped all %zu ready "
	    "children", n);
	ok(wait_ready(sb, 3), "pool: refilled after the reroot");
	n = pooled(sb, pids, fds, TC_NITEMS(pids));
	tc_sandbox_stop(sb);
	ok(all_gone(fds, n) && sb->spawner == 0, "pool: stop retired and "
	    "reaped all %zu, and the spawner", n);

	/* None kept: each call's child is asked of the spawner. */
	tc_sandbox_prefork(sb, 0);
	tc_sandbox_refill(sb);
	ok(sb->spawner > 0 && tc_sandbox_ready(sb, EXEC) == 0, "pool of 0: "
	    "the spawner, no ready child");
	if (run(sb, "hello", &runs[0]) == 0)
		is_int(runs[0].outcome, TC_OUT_OK, "pool of 0: a call runs");
	tc_run_release(&runs[0]);
	tc_sandbox_refill(sb);
	is_int((int)tc_sandbox_ready(sb, EXEC), 0, "pool of 0: none made "
	    "after it");
	tc_sandbox_prefork(sb, 1000);
	is_int((int)sb->pool, TC_POOL_MAX, "pool: at most TC_POOL_MAX");
	tc_sandbox_stop(sb);
}

/*
 * Re-rooting builds every profile's ruleset anew or changes none: when a
 * build fails (here no fd can be had), the rulesets in force stay, whole.
 */
static void
test_reroot(struct tc_sandbox *sb)
{
	int before[TC_PROFILES_MAX], fd, same = 1, valid = 1;
	size_t i;
	struct tc_diag d = { "", 0 };
	struct rlimit old, none;
	struct tc_run r;

	if (sb->degraded & TC_DEGRADE_LANDLOCK) {
		skip("reroot: the kernel has no Landlock");
		return;
	}
	for (i = 0; i < sb->nprof; i++)
		before[i] = sb->prof[i].ruleset;
	if ((fd = dup(0)) < 0 || getrlimit(RLIMIT_NOFILE, &old) != 0) {
		ok(0, "reroot: dup or getrlimit: %s", strerror(errno));
		return;
	}
	close(fd);
	/* The lowest free descriptor is fd: none at or above it. */
	none = old;
	none.rlim_cur = (rlim_t)fd;
	setrlimit(RLIMIT_NOFILE, &none);
	is_int(tc_sandbox_reroot(sb, &d), TC_ESYS, "reroot: fails without "
	    "descriptors");
	setrlimit(RLIMIT_NOFILE, &old);
	for (i = 0; i < sb->nprof; i++) {
		same &= sb->prof[i].ruleset == before[i];
		valid &= before[i] < 0 || fcntl(before[i], F_GETFD) >= 0;
	}
	ok(same && valid, "reroot: a failed one leaves every ruleset as it "
	    "was");
	is_int(tc_sandbox_reroot(sb, &d), 0, "reroot: succeeds with them");
	if (run(sb, "hello", &r) == 0)
		is_int(r.outcome, TC_OUT_OK, "reroot: calls run after it");
	tc_run_release(&r);
	tc_sandbox_stop(sb);
}

/*
 * TC_MAY_TTY: a child of such a profile has a pseudo-terminal pair,
 * taken once, that works though the child is confined; the child cannot
 * open /dev/ptmx itself; a profile without it has none.  And the
 * profile's ready children are at most its own count (tty_exec.ready),
 * however many the sandbox keeps of the others.
 */
static void
test_tty(struct tc_policy *pol, struct tc_sandbox *main_sb)
{
	struct tc_profiles profiles = { { NULL }, 0 };
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	struct tc_run r;
	char *text;
	int is_error, i;

	if (run(main_sb, "tty_none", &r) == 0) {
		text = take_text(&r, &is_error);
		is_str(text, "tty=0 err=19", "tty: none without TC_MAY_TTY "
		    "(ENODEV)");
		free(text);
	}
	tc_run_release(&r);
	if (access("/dev/ptmx", R_OK | W_OK) != 0) {
		skip("no /dev/ptmx here: no terminal to open");
		return;
	}
	tc_profiles_add(&profiles, &tty_exec);
	tc_profiles_add(&profiles, EXEC);
	if (!is_int(tc_sandbox_init(&sb, pol, &profiles, &d), 0,
	    "tty: tc_sandbox_init")) {
		printf("#   %s\n", d.msg);
		return;
	}
	if (run(&sb, "tty", &r) == 0) {
		text = take_text(&r, &is_error);
		is_str(text, "tty=1 linked=1 again=19 ptmx=13", "tty: a pair, "
		    "linked, taken once; /dev/ptmx refused (EACCES) in the "
		    "child");
		free(text);
	}
	tc_run_release(&r);
	tc_sandbox_prefork(&sb, 3);
	for (i = 0; i < 4000 && tc_sandbox_ready(&sb, EXEC) < 3; i++) {
		usleep(5000);
		tc_sandbox_refill(&sb);
	}
	is_int(tc_sandbox_ready(&sb, EXEC), 3, "ready: 3 of a profile without "
	    "a count of its own");
	is_int(tc_sandbox_ready(&sb, &tty_exec), 1, "ready: 1 of one whose "
	    "count is 1");
	tc_sandbox_release(&sb);
}

/*
 * A zygote (sandbox/zygote.c) answers the spawner with the pid of the
 * child it forked; the server adopts that pid as a ready child, and
 * signals it when it retires it.  A zygote is confined but reads
 * database files ahead, so a compromised one answers what it likes: here
 * its ahead hook takes over its loop and names |zyg_victim|, a process
 * that is not the server's child.
 */
static pid_t zyg_victim;
static int zyg_poison;	/* zyg_ahead(): write into a result pipe, and die */

static void
zyg_ahead(const struct tc_policy *pol)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(4 * sizeof(int))];
	} u;
	struct msghdr msg;
	struct iovec iov;
	struct cmsghdr *c;
	struct stat st;
	int32_t answer;
	char byte;
	int fd, k, got[4];

	(void)pol;
	if (zyg_victim <= 0 && !zyg_poison) {
		if (zyg_lockpath[0] != '\0')
			zyg_fd = open(zyg_lockpath, O_RDONLY | O_CLOEXEC);
		return;
	}
	for (fd = 3; fd < 64; fd++)
		if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			break;
	/* Not a zygote (a child confined from the start runs the hook
	 * too): nothing to take over. */
	if (fd == 64)
		return;
	for (;;) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = &byte;
		iov.iov_len = 1;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		if (recvmsg(fd, &msg, MSG_CMSG_CLOEXEC) <= 0)
			_exit(0);
		if ((c = CMSG_FIRSTHDR(&msg)) != NULL) {
			memcpy(got, CMSG_DATA(c), c->cmsg_len - CMSG_LEN(0));
			/* As a child forked just before the zygote died
			 * would: something in the result pipe, and no
			 * answer. */
			if (zyg_poison && write(got[1], "garbage", 7) == 7)
				_exit(0);
			for (k = 0; k < (int)((c->cmsg_len - CMSG_LEN(0)) /
			    sizeof(int)); k++)
				close(got[k]);
		}
		answer = (int32_t)zyg_victim;
		if (write(fd, &answer, sizeof(answer)) != sizeof(answer))
			_exit(0);
	}
}

static void
test_zygote_pid(struct tc_policy *pol)
{
	struct tc_profiles profiles = { { NULL }, 0 };
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	int p[2], st, i;
	pid_t mid, victim = 0;
	/* The victim: a grandchild, whose parent waits for it. */
	if (pipe(p) != 0)
		abort();
	if ((mid = fork()) == 0) {
		pid_t v = fork();

		if (v == 0) {
			for (;;)
				pause();
		}
		if (write(p[1], &v, sizeof(v)) != sizeof(v))
			kill(v, SIGKILL);
		while (waitpid(v, NULL, 0) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &victim, sizeof(victim)) != sizeof(victim))
		victim = 0;
	close(p[0]);
	if (!ok(victim > 0, "zygote: a process that is not ours"))
		return;
	tc_profiles_add(&profiles, &zyg_fs);
	if (!is_int(tc_sandbox_init(&sb, pol, &profiles, &d), 0,
	    "zygote: tc_sandbox_init")) {
		printf("#   %s\n", d.msg);
		goto out;
	}
	if (sb.prof[0].zygote_filter.insns == NULL) {
		skip("zygote: Landlock or seccomp not in force here: no "
		    "zygote");
		tc_sandbox_release(&sb);
		goto out;
	}
	zyg_victim = victim;
	tc_sandbox_prefork(&sb, 1);
	for (i = 0; i < 200 && tc_sandbox_ready(&sb, &zyg_fs) == 0; i++) {
		usleep(5000);
		tc_sandbox_refill(&sb);
	}
	ok(pool_pid(&sb, &zyg_fs, 0) != victim, "zygote: the pid a zygote "
	    "names is adopted only if it is the server's child");
	tc_sandbox_stop(&sb);
	tc_sandbox_release(&sb);
	ok(kill(victim, 0) == 0, "zygote: the server signals no process a "
	    "zygote names that is not its own");
out:
	zyg_victim = 0;
	kill(victim, SIGKILL);
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
}

/*
 * What a zygote's child inherits it shares with the zygote and every
 * later child: an fd of the zygote's is one open file description.  A
 * lock a call takes on it by the description (F_OFD_SETLK) would outlive
 * the call, held by the zygote, in the way of every later call and of
 * every other program: refused.
 */
static void
test_zygote_ofd(struct tc_policy *pol)
{
	struct tc_profiles profiles = { { NULL }, 0 };
	struct tc_diag d = { "", 0 };
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
	    .l_start = 0, .l_len = 1 };
	struct tc_sandbox sb;
	struct tc_run r;
	char dir[] = "/tmp/tc-zygote-XXXXXX", *text;
	int fd, is_error, i;

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(zyg_lockpath, sizeof(zyg_lockpath), "%s/db", dir);
	if ((fd = open(zyg_lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
		abort();
	tc_profiles_add(&profiles, &zyg_fs);
	if (!is_int(tc_sandbox_init(&sb, pol, &profiles, &d), 0,
	    "zygote ofd: tc_sandbox_init")) {
		printf("#   %s\n", d.msg);
		goto out;
	}
	if (sb.prof[0].zygote_filter.insns == NULL) {
		skip("zygote ofd: Landlock or seccomp not in force here: no "
		    "zygote");
		tc_sandbox_release(&sb);
		goto out;
	}
	tc_sandbox_prefork(&sb, 1);
	for (i = 0; i < 200 && tc_sandbox_ready(&sb, &zyg_fs) == 0; i++) {
		usleep(5000);
		tc_sandbox_refill(&sb);
	}
	if (run(&sb, "ofd_lock", &r) == 0) {
		text = take_text(&r, &is_error);
		ok(text != NULL, "zygote ofd: the call answered (%s)",
		    text != NULL ? text : "nothing");
		free(text);
	}
	tc_run_release(&r);
	is_int(fcntl(fd, F_SETLK, &fl) == 0 ? 0 : errno, 0, "zygote ofd: "
	    "no lock of the call's outlives it");
	tc_sandbox_stop(&sb);
	tc_sandbox_release(&sb);
out:
	zyg_lockpath[0] = '\0';
	close(fd);
	(void)unlink(zyg_lockpath);
	(void)rmdir(dir);
}

/*
 * A zygote that dies after it took a request's pipes, before it answered,
 * may have forked a child that holds them: they are no other child's.
 * Here it writes into the result pipe before it dies, as such a child
 * could; the call must get its own handler's answer.
 */
static void
test_zygote_lost(struct tc_policy *pol)
{
	struct tc_profiles profiles = { { NULL }, 0 };
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	struct tc_run r;
	char *text;
	int is_error = 1, i;

	tc_profiles_add(&profiles, &zyg_fs);
	if (!is_int(tc_sandbox_init(&sb, pol, &profiles, &d), 0,
	    "zygote lost: tc_sandbox_init")) {
		printf("#   %s\n", d.msg);
		return;
	}
	if (sb.prof[0].zygote_filter.insns == NULL) {
		skip("zygote lost: Landlock or seccomp not in force here: no "
		    "zygote");
		tc_sandbox_release(&sb);
		return;
	}
	zyg_poison = 1;
	tc_sandbox_prefork(&sb, 1);
	for (i = 0; i < 400 && tc_sandbox_ready(&sb, &zyg_fs) == 0; i++) {
		usleep(5000);
		tc_sandbox_refill(&sb);
	}
	zyg_poison = 0;
	if (run(&sb, "ofd_lock", &r) == 0) {
		text = take_text(&r, &is_error);
		/* An errno, whichever child ran it: a zygote's (EPERM) or,
		 * the zygote given up on, one confined from the start. */
		ok(!is_error && text != NULL && text[0] != '\0' &&
		    strspn(text, "0123456789") == strlen(text),
		    "zygote lost: the call gets its handler's answer (%s)",
		    text != NULL ? text : "none");
		free(text);
	}
	tc_run_release(&r);
	tc_sandbox_stop(&sb);
	tc_sandbox_release(&sb);
}

/*
 * A new set of roots (tc_sandbox_reroot()): the zygote, confined to the
 * old ones, is killed and reaped with the spawner; the next ready child
 * comes from a new one.
 */
static void
test_zygote_reroot(struct tc_policy *pol)
{
	struct tc_profiles profiles = { { NULL }, 0 };
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	pid_t old;
	int i;

	tc_profiles_add(&profiles, &zyg_fs);
	if (!is_int(tc_sandbox_init(&sb, pol, &profiles, &d), 0,
	    "zygote reroot: tc_sandbox_init")) {
		printf("#   %s\n", d.msg);
		return;
	}
	if (sb.prof[0].zygote_filter.insns == NULL) {
		skip("zygote reroot: Landlock or seccomp not in force here: "
		    "no zygote");
		tc_sandbox_release(&sb);
		return;
	}
	tc_sandbox_prefork(&sb, 1);
	for (i = 0; i < 400 && tc_sandbox_ready(&sb, &zyg_fs) == 0; i++) {
		usleep(5000);
		tc_sandbox_refill(&sb);
	}
	old = sb.prof[0].zygote;
	if (!ok(old > 0, "zygote reroot: the server knows its zygote")) {
		tc_sandbox_release(&sb);
		return;
	}
	is_int(tc_sandbox_reroot(&sb, &d), 0, "zygote reroot: rerooted");
	ok(kill(old, 0) == -1 && errno == ESRCH, "zygote reroot: the old "
	    "zygote is gone, reaped");
	for (i = 0; i < 400 && tc_sandbox_ready(&sb, &zyg_fs) == 0; i++) {
		usleep(5000);
		tc_sandbox_refill(&sb);
	}
	ok(sb.prof[0].zygote > 0 && sb.prof[0].zygote != old,
	    "zygote reroot: a new zygote forks the ready children");
	tc_sandbox_stop(&sb);
	ok(sb.prof[0].zygote == 0, "zygote reroot: stopped with the spawner");
	tc_sandbox_release(&sb);
}

/* Counts this process's open fds. */
static int
open_fds(void)
{
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

/*
 * tc_fds_send() and tc_fds_recv(): a message and two fds, whole; any
 * other message refused, and whatever fds it carried closed.
 */
static void
test_fds_passing(void)
{
	struct { uint32_t a, b; } in, out = { 7, 9 };
	int sv[2], pp[2], got[2], one[2], before;
	char c = 0, byte = 'x';

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0 ||
	    pipe2(pp, O_CLOEXEC) != 0)
		abort();
	before = open_fds();
	is_int(tc_fds_send(sv[0], &out, sizeof(out), pp), 0, "fds: sent");
	if (is_int(tc_fds_recv(sv[1], &in, sizeof(in), got), 1,
	    "fds: received")) {
		ok(in.a == 7 && in.b == 9, "fds: the message whole");
		ok(got[0] != pp[0] && got[1] != pp[1] &&
		    write(got[1], "z", 1) == 1 && read(pp[0], &c, 1) == 1 &&
		    c == 'z', "fds: two new fds, to the same pipe");
		ok((fcntl(got[0], F_GETFD) & FD_CLOEXEC) != 0, "fds: "
		    "close-on-exec");
		close(got[0]);
		close(got[1]);
	}
	/* A message of another size: refused, its fds closed. */
	is_int(tc_fds_send(sv[0], &byte, 1, pp), 0, "fds: a short message "
	    "sent");
	errno = 0;
	is_int(tc_fds_recv(sv[1], &in, sizeof(in), got), -1, "fds: a "
	    "message of another size refused");
	is_int(errno, EBADMSG, "fds: EBADMSG");
	is_int(open_fds(), before, "fds: the fds it carried closed");
	/* One fd where two are expected. */
	one[0] = one[1] = pp[0];
	is_int(tc_fds_send(sv[0], &out, sizeof(out), one), 0, "fds: the same "
	    "fd twice sent");
	is_int(tc_fds_recv(sv[1], &in, sizeof(in), got), 1, "fds: received "
	    "as two");
	close(got[0]);
	close(got[1]);
	close(sv[0]);
	is_int(tc_fds_recv(sv[1], &in, sizeof(in), got), 0, "fds: 0 at the "
	    "socket's end");
	close(sv[1]);
	close(pp[0]);
	close(pp[1]);
}

int
main(void)
{
	struct tc_profiles profiles = { { NULL }, 0 };
	struct sigaction sa;
	struct tc_sandbox sb;
	struct tc_policy pol;
	struct tc_diag d;
	pid_t w;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* As the servers do: a call written to a child that died gives
	 * EPIPE, not death. */
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	tc_policy_init(&pol);
	pol.limits.deadline_ms = 5000;
	pol.limits.max_result = 1u << 20;
	memset(&d, 0, sizeof(d));
	if (!is_int(tc_policy_add_root(&pol, "/tmp", 0, &d), 0, "root /tmp"))
		return done_testing();
	/* The grandchild reads its own /proc/self/status. */
	if (!is_int(tc_policy_add_root(&pol, "/proc", 0, &d), 0, "root /proc"))
		return done_testing();
	tty_exec = hostile_exec;
	tty_exec.name = "exec-tty";
	tty_exec.may |= TC_MAY_TTY;
	tty_exec.ready = 1;
	zyg_fs = hostile_fs_read;
	zyg_fs.name = "zygote-fs-read";
	zyg_fs.zygote = 1;
	zyg_fs.ahead = zyg_ahead;
	tc_profiles_add(&profiles, EXEC);
	tc_profiles_add(&profiles, &hostile_fs_read);
	if (!is_int(tc_sandbox_init(&sb, &pol, &profiles, &d), 0,
	    "tc_sandbox_init")) {
		printf("#   %s\n", d.msg);
		return done_testing();
	}
	is_int(tc_tools_validate(tools, TC_NITEMS(tools), &d), 0,
	    "the test's tool table is valid");

	test_fds_passing();
	test_ok(&sb);
	test_stream(&sb, &pol);
	test_input(&sb, &pol);
	test_failures(&sb, &pol);
	test_cancel(&sb, &pol);
	test_leftovers(&sb, &pol);
	test_keeper(&sb);
	test_keeper_reaps(&sb);
	test_no_keeper(&sb);
	test_placed(&sb, &pol);
	test_dead_not_head(&sb);
	test_stuck_keeper(&sb, &pol);
	test_confinement(&sb);
	test_standby(&sb);
	test_pool(&sb);
	test_reroot(&sb);
	test_tty(&pol, &sb);
	test_zygote_pid(&pol);
	test_zygote_ofd(&pol);
	test_zygote_lost(&pol);
	test_zygote_reroot(&pol);

	tc_sandbox_release(&sb);
	w = waitpid(-1, NULL, WNOHANG);
	ok(w == -1 && errno == ECHILD, "no child is left");
	tc_policy_release(&pol);
	return done_testing();
}
