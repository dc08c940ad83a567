/*
 * stream.c: tools that stream and jobs, for tests/e2e/sdk/jobs.test.mjs:
 * progress in steps or in a flood, a call that leaves a process tree and
 * waits to be cancelled, and a job that leaves one too, writes output and
 * echoes its input.  The trees hold what a process group does not: a
 * grandchild in a session of its own and one forked twice, each running
 * /bin/sleep, whose pids (as the test sees them) the tool reports.  The
 * job can also write bytes that are not UTF-8, for read_output's exact
 * bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"
#include "sandbox/stream.h"

/*
 * Waits up to 20 s for |name| to appear in root 0: the test makes it once
 * it has seen what it waits for, so that the answer cannot overtake the
 * progress the test counts.  Returns 1 if it came.
 */
static int
wait_for(const struct tc_call *call, const char *name)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	struct stat st;
	int i;

	for (i = 0; i < 4000; i++) {
		if (fstatat(hs_root_fd(call, 0), name, &st, 0) == 0)
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

int
hs_progress_steps(const struct tc_call *call, struct tc_result *res)
{
	long long n = tc_arg_int(call, "steps", 5), i, sent = 0;
	int quiet = tc_arg_bool(call, "quiet", 0);
	const char *go = tc_arg_str(call, "go");
	char msg[64];

	for (i = 1; i <= n; i++) {
		snprintf(msg, sizeof(msg), "step %lld of %lld", i, n);
		if (tc_call_progress(call, (double)i, (double)n, quiet ? NULL :
		    msg) == 0)
			sent++;
	}
	if (go != NULL && !wait_for(call, go))
		return tc_result_error(res, "'%s' never came", go);
	hs_int(res, "sent", sent);
	tc_result_printf(res, "sent %lld progress updates", sent);
	return 0;
}

/*
 * Starts the two grandchildren: each runs /bin/sleep |secs| (its pid the
 * one reported: exec keeps it).  Fills |pids| with their pids as the test
 * sees them.  Returns 0, or -1 with errno set.
 */
static int
start_tree(long secs, long pids[2])
{
	char num[32];
	int p[2], i, st, nested;
	long outer;
	pid_t mid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	snprintf(num, sizeof(num), "%ld", secs);
	for (i = 0; i < 2; i++) {
		if ((mid = fork()) < 0)
			return -1;
		if (mid == 0) {
			/* The second forks again and its parent goes: an
			 * orphan.  The first starts a session of its own. */
			if (i == 1 && fork() != 0)
				_exit(0);
			if (i == 0)
				setsid();
			outer = hs_outer_pid(&nested);
			(void)!write(p[1], &outer, sizeof(outer));
			execl("/bin/sleep", "sleep", num, (char *)NULL);
			_exit(127);
		}
		if (i == 1)
			waitpid(mid, &st, 0);
	}
	close(p[1]);
	for (i = 0; i < 2; i++)
		if (read(p[0], &pids[i], sizeof(long)) != sizeof(long))
			pids[i] = -1;
	close(p[0]);
	return pids[0] > 0 && pids[1] > 0 ? 0 : -1;
}

int
hs_tree_sleep(const struct tc_call *call, struct tc_result *res)
{
	char msg[64];
	long pids[2];

	if (start_tree(1000, pids) != 0)
		return tc_result_error(res, "the tree could not be started: "
		    "%s", strerror(errno));
	/* The test learns the pids through progress, then cancels. */
	snprintf(msg, sizeof(msg), "pids %ld %ld", pids[0], pids[1]);
	tc_call_progress(call, 1, -1, msg);
	for (;;)
		pause();
}

/* What job_echo writes with "bytes" (jobs.test.mjs has them too). */
#define BAD_BYTES	"bytes: \x80\x00\xc3(\xc3\xa9\xe2\x82\n\xfe\xff\n"

int
hs_job_echo(const struct tc_call *call, struct tc_result *res)
{
	long long lines = tc_arg_int(call, "lines", 0), i;
	long long flood = tc_arg_int(call, "flood_kib", 0);
	char buf[4096], line[64];
	long pids[2] = { 0, 0 };
	size_t echoed = 0;
	ssize_t n;
	int len;

	if (tc_arg_bool(call, "tree", 0)) {
		if (start_tree(1000, pids) != 0)
			return tc_result_error(res, "the tree could not be "
			    "started: %s", strerror(errno));
		len = snprintf(line, sizeof(line), "pids %ld %ld\n", pids[0],
		    pids[1]);
		tc_call_output(call, TC_STREAM_STDOUT, line, (size_t)len);
	}
	for (i = 1; i <= lines; i++) {
		len = snprintf(line, sizeof(line), "line %lld\n", i);
		tc_call_output(call, i % 2 ? TC_STREAM_STDOUT :
		    TC_STREAM_STDERR, line, (size_t)len);
	}
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < flood; i += 4)
		tc_call_output(call, TC_STREAM_STDOUT, buf, sizeof(buf));
	if (flood > 0)
		tc_call_output(call, TC_STREAM_STDOUT, "end of flood\n", 13);
	/* A stray continuation byte, a NUL, a character cut by the next,
	 * a whole one, one cut by the newline, and bytes UTF-8 never has. */
	if (tc_arg_bool(call, "bytes", 0))
		tc_call_output(call, TC_STREAM_STDOUT, BAD_BYTES,
		    sizeof(BAD_BYTES) - 1);
	tc_call_output(call, TC_STREAM_STDOUT, "ready\n", 6);
	while ((n = tc_call_input(call, buf, sizeof(buf))) > 0) {
		tc_call_output(call, TC_STREAM_STDOUT, "echo: ", 6);
		tc_call_output(call, TC_STREAM_STDOUT, buf, (size_t)n);
		echoed += (size_t)n;
	}
	hs_int(res, "echoed", (long long)echoed);
	tc_result_printf(res, "echoed %zu bytes; input ended", echoed);
	return 0;
}
