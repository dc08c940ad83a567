/*
 * test-hook.c: the consent hook runner, driven as the server drives it
 * (poll, then step), with small hooks written to a temporary directory:
 * ones that allow, deny, ask for the session, crash, hang with children
 * (one in a session of its own, one orphaned), never read their stdin,
 * write too much, or cannot be executed; then the example hooks of
 * policy/hooks.  This binary is also its own probe: run as a hook with
 * --probe FILE, it writes what it can see of its start (fds, signals,
 * working directory, stderr, environment) to FILE.
 *
 * The test process is a child subreaper, so that a keeper orphaned by
 * its server's death becomes its child, and the final check that no child
 * is left sees every keeper reaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/hook.h"
#include "tap.h"

#define GUARD_MS	15000	/* no hook in this file may take longer */

extern char **environ;

static char dir[256];		/* the fixtures */
static char root[PATH_MAX];	/* the source tree, for policy/hooks */
static char self[PATH_MAX];	/* this binary, as a probe */

static const char call_json[] = "{\"server\":\"toolcell-test\","
    "\"tool\":\"write_file\",\"arguments\":{\"path\":\"notes.txt\","
    "\"content\":\"hello\"},\"annotations\":{\"readOnlyHint\":false,"
    "\"destructiveHint\":true},\"rule\":\"consent write_file (line 3)\","
    "\"client\":{\"name\":\"test\",\"version\":\"0.1\"},"
    "\"paths\":[\"/tmp/notes.txt\"]}";

/* The monotonic clock in milliseconds, as the runner reads it. */
static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- The probe --- */

/* Returns 1 if |fd| is /dev/null. */
static int
is_devnull(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	    st.st_rdev == makedev(1, 3);
}

/* Writes "key: value" lines about this process to |file|; exits 0. */
static int
probe(const char *file)
{
	char line[256], cwd[PATH_MAX];
	char **e;
	FILE *f, *out;
	int fd, nfds = 0;

	for (fd = 3; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			nfds++;
	if ((out = fopen(file, "w")) == NULL)
		return 1;
	fprintf(out, "fds: %d\n", nfds);
	if ((f = fopen("/proc/self/status", "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "SigBlk:", 7) == 0 ||
			    strncmp(line, "SigIgn:", 7) == 0)
				fputs(line, out);
		fclose(f);
	}
	fprintf(out, "cwd: %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	fprintf(out, "stderr: %s\n", is_devnull(STDERR_FILENO) ? "devnull" :
	    "other");
	fprintf(out, "stdin: %s\n", isatty(STDIN_FILENO) ? "tty" : "other");
	fprintf(out, "env:");
	for (e = environ; *e != NULL; e++)
		fprintf(out, " %s", *e);
	fprintf(out, "\n");
	fclose(out);
	printf("probed\n");
	return 0;
}

/* --- Fixtures --- */

/* Writes the fixture |name| with |mode|, or bails out. */
static void
fixture(const char *name, mode_t mode, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 ||
	    fclose(f) != 0 || chmod(path, mode) != 0) {
		printf("Bail out! cannot write %s: %s\n", path,
		    strerror(errno));
		exit(1);
	}
}

/* The hooks the tests run, each a few lines of sh. */
static void
make_fixtures(void)
{
	fixture("allow", 0755, "#!/bin/sh\ncat >/dev/null\n"
	    "echo 'fine by me'\nexit 0\n");
	fixture("deny", 0755, "#!/bin/sh\ncat >/dev/null\n"
	    "echo 'not today: too risky'\nexit 1\n");
	fixture("deny-silent", 0755, "#!/bin/sh\nexit 3\n");
	fixture("session", 0755, "#!/bin/sh\necho '  session  ok for now'\n");
	fixture("session-deny", 0755, "#!/bin/sh\necho session\nexit 2\n");
	fixture("sessions", 0755, "#!/bin/sh\necho sessions are fun\n");
	fixture("crash", 0755, "#!/bin/sh\necho about to crash\n"
	    "kill -SEGV $$\nsleep 5\n");
	/* A child, one in a session of its own, an orphan, then a hang. */
	fixture("hang", 0755, "#!/bin/sh\nd=$(dirname \"$0\")\n"
	    "sleep 100 & echo $! >\"$d/child.pid\"\n"
	    "setsid sleep 100 & echo $! >\"$d/session.pid\"\n"
	    "(sleep 100 & echo $! >\"$d/orphan.pid\")\n"
	    "echo started >\"$d/hang.ready\"\n"
	    "sleep 100\n");
	fixture("leftover", 0755, "#!/bin/sh\nd=$(dirname \"$0\")\n"
	    "sleep 100 & echo $! >\"$d/left.pid\"\n"
	    "echo 'allowed, leaving a child'\n");
	fixture("noread", 0755, "#!/bin/sh\nexec sleep 100\n");
	fixture("noread-exit", 0755, "#!/bin/sh\necho 'did not read'\n");
	fixture("copy", 0755, "#!/bin/sh\ncat >\"$(dirname \"$0\")/got\"\n"
	    "echo copied\n");
	fixture("long-line", 0755, "#!/bin/sh\n"
	    "head -c 300 /dev/zero | tr '\\0' x\necho\n"
	    "head -c 30000 /dev/zero | tr '\\0' y\n");
	fixture("endless", 0755, "#!/bin/sh\nexec yes\n");
	fixture("controls", 0755, "#!/bin/sh\n"
	    "printf ' a\\tb\\033[31mc\\302\\233d\\377e\\r\\n'\nexit 1\n");
	fixture("cut-utf8", 0755, "#!/bin/sh\n"
	    "head -c 199 /dev/zero | tr '\\0' x\nprintf '\\303\\251\\n'\n");
	fixture("stderr", 0755, "#!/bin/sh\necho to-stderr >&2\n");
	fixture("not-executable", 0644, "#!/bin/sh\nexit 0\n");
	fixture("bad-interpreter", 0755, "#!/nonexistent/sh\nexit 0\n");
	fixture("no-shebang", 0755, "\177ELF junk, not a program\n");
	fixture("fd-script", 0755, "#!/bin/sh\ncat >/dev/null\n"
	    "echo \"ran $0 $1\"\n");
	fixture("fd-evil", 0755, "#!/bin/sh\necho evil >\"$(dirname "
	    "\"$0\")/evil.ran\"\nexit 0\n");
}

/* Returns the fixture's path: one of 4 static buffers, used in turn. */
static char *
path_of(const char *name)
{
	static char path[4][sizeof(dir) + 64];
	static int next;

	next = (next + 1) % 4;
	snprintf(path[next], sizeof(path[next]), "%s/%s", dir, name);
	return path[next];
}

/* Returns the pid written to |name| in the fixture dir, or -1. */
static pid_t
read_pid(const char *name)
{
	char buf[32];
	ssize_t n;
	int fd;

	if ((fd = open(path_of(name), O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return (pid_t)strtol(buf, NULL, 10);
}

/* Checks that the pid in |name| is gone within two seconds. */
static void
expect_gone(const char *name)
{
	pid_t pid = read_pid(name);
	int64_t t0 = now_ms();

	if (!ok(pid > 0, "%s: its pid was written", name))
		return;
	while (kill(pid, 0) == 0 && now_ms() - t0 < 2000)
		usleep(10000);
	ok(kill(pid, 0) < 0 && errno == ESRCH, "%s: pid %d is gone", name,
	    (int)pid);
}

/* --- Driving hooks as the server does --- */

struct drive {
	int64_t		 took;		/* ms from before the start to done */
	int64_t		 start_ms;	/* in tc_hook_start() */
	int64_t		 max_step;	/* the longest tc_hook_step() */
};

/*
 * Drives |h| (started) with poll() and tc_hook_step() until done, waking
 * at least every 100 ms as if other calls ran.  Returns 0, or -1 if it
 * had to be stopped at GUARD_MS.
 */
static int
drive(struct tc_hook *h, struct drive *dr)
{
	struct pollfd pfd[TC_HOOK_POLLFDS];
	int64_t t0 = now_ms(), t, ms;
	int n;

	while (!h->done) {
		n = tc_hook_pollfds(h, pfd);
		ms = h->deadline_ms - now_ms();
		poll(pfd, (nfds_t)n, ms < 0 ? 0 : ms > 100 ? 100 : (int)ms);
		t = now_ms();
		tc_hook_step(h, pfd, n, t);
		if (now_ms() - t > dr->max_step)
			dr->max_step = now_ms() - t;
		if (now_ms() - t0 > GUARD_MS) {
			tc_hook_kill(h);
			return -1;
		}
	}
	return 0;
}

/* Starts |argv| with |json| and drives it; 0, or -1 if it could not. */
static int
run_argv(struct tc_hook *h, char *const argv[], const char *json,
    size_t len, int timeout_ms, struct drive *dr)
{
	struct tc_diag d = { "", 0 };
	int64_t t0 = now_ms();
	int rc;

	memset(dr, 0, sizeof(*dr));
	rc = tc_hook_start(h, argv, json, len, timeout_ms, &d);
	dr->start_ms = now_ms() - t0;
	if (rc != 0) {
		printf("# tc_hook_start: %s\n", d.msg);
		return -1;
	}
	rc = drive(h, dr);
	/* From before the start, which sets the deadline. */
	dr->took = now_ms() - t0;
	return rc;
}

/* Runs the fixture |name| with the standard call. */
static int
run(struct tc_hook *h, const char *name, int timeout_ms, struct drive *dr)
{
	char *argv[] = { path_of(name), NULL };

	return run_argv(h, argv, call_json, sizeof(call_json) - 1,
	    timeout_ms, dr);
}

/* Runs |name| and checks its answer, failure and why. */
static void
expect(const char *name, enum tc_hook_answer answer,
    enum tc_hook_failure failure, const char *why)
{
	struct tc_hook h;
	struct drive dr;

	if (run(&h, name, 5000, &dr) == 0) {
		is_str(tc_hook_answer_str(h.answer),
		    tc_hook_answer_str(answer), "%s: answer", name);
		is_int(h.failure, failure, "%s: failure", name);
		like(h.why, why, "%s: why", name);
		ok(h.pid < 0 && h.pidfd < 0 && h.in_fd < 0 && h.out_fd < 0 &&
		    h.rep_fd < 0 && h.ctl_fd < 0, "%s: keeper reaped, fds "
		    "closed", name);
		is_int(tc_hook_pollfds(&h, NULL), 0, "%s: no pollfds once "
		    "done", name);
	} else
		ok(0, "%s: ran", name);
	tc_hook_release(&h);
}

/* Exit statuses and first lines: allow, deny, session. */
static void
test_answers(void)
{
	struct tc_hook h;
	struct drive dr;

	expect("allow", TC_HOOK_ALLOW, TC_HOOK_FAIL_NONE,
	    "allowed the call: fine by me");
	expect("deny", TC_HOOK_DENY, TC_HOOK_FAIL_NONE,
	    "denied the call (exit status 1): not today: too risky");
	expect("deny-silent", TC_HOOK_DENY, TC_HOOK_FAIL_NONE,
	    "denied the call (exit status 3)");
	expect("session", TC_HOOK_ALLOW_SESSION, TC_HOOK_FAIL_NONE,
	    "allowed the call for this session: ok for now");
	expect("session-deny", TC_HOOK_DENY, TC_HOOK_FAIL_NONE,
	    "(exit status 2): session");
	expect("sessions", TC_HOOK_ALLOW, TC_HOOK_FAIL_NONE,
	    ": sessions are fun");

	if (run(&h, "deny", 5000, &dr) == 0) {
		is_str(h.reason, "not today: too risky", "deny: reason");
		ok(h.exited && WIFEXITED(h.status) &&
		    WEXITSTATUS(h.status) == 1, "deny: status 1");
		ok(dr.took < 3000, "deny: answered in %lld ms",
		    (long long)dr.took);
	}
	tc_hook_release(&h);
	is_str(h.reason, "not today: too risky", "release keeps the answer");
	if (run(&h, "session", 5000, &dr) == 0)
		is_str(h.reason, "ok for now", "session: the word is not part "
		    "of the reason");
	tc_hook_release(&h);
	is_str(tc_hook_answer_str(TC_HOOK_FAILED), "failed",
	    "tc_hook_answer_str");
}

/* No answer: a crash, a program that cannot run, bad arguments. */
static void
test_failures(void)
{
	char *argv[] = { path_of("missing"), NULL };
	char relpath[] = "policy/hooks/ask-tty";
	char *rel[] = { relpath, NULL };
	struct tc_diag d = { "", 0 };
	struct tc_hook h;
	struct drive dr;

	expect("crash", TC_HOOK_FAILED, TC_HOOK_FAIL_CRASHED,
	    "was killed by signal 11 (Segmentation fault)");
	expect("missing", TC_HOOK_FAILED, TC_HOOK_FAIL_NOTFOUND,
	    "/missing' not found");
	expect("not-executable", TC_HOOK_FAILED, TC_HOOK_FAIL_NOEXEC,
	    "/not-executable' is not executable (permission denied)");
	expect("bad-interpreter", TC_HOOK_FAILED, TC_HOOK_FAIL_NOTFOUND,
	    "the interpreter its '#!' line names was not found");
	expect("no-shebang", TC_HOOK_FAILED, TC_HOOK_FAIL_NOEXEC,
	    "is not a program the system can run");
	if (run(&h, "missing", 5000, &dr) == 0)
		ok(dr.took < 3000, "missing: answered at once (%lld ms)",
		    (long long)dr.took);
	tc_hook_release(&h);

	/* Refused before anything runs. */
	is_int(tc_hook_start(&h, rel, call_json, sizeof(call_json) - 1, 0, &d),
	    TC_EINVAL, "relative path: TC_EINVAL");
	is_str(d.msg, "consent hook 'policy/hooks/ask-tty' is not an absolute "
	    "path", "relative path: message");
	ok(h.done && h.answer == TC_HOOK_FAILED &&
	    h.failure == TC_HOOK_FAIL_START && strcmp(h.why, d.msg) == 0,
	    "relative path: done, failed, why = message");
	tc_hook_release(&h);
	is_int(tc_hook_start(&h, argv, "[1]", 3, 0, &d), TC_EINVAL,
	    "not an object: TC_EINVAL");
	is_str(d.msg, "the consent hook's input is not a JSON object",
	    "not an object: message");
	tc_hook_release(&h);
	is_int(tc_hook_start(&h, argv, "{\"tool\":\"x\"}", 12, 0, &d),
	    TC_EINVAL, "no server: TC_EINVAL");
	tc_hook_release(&h);
	is_int(tc_hook_start(&h, argv, "{\"server\":\"s\",\"tool\":\"x\"}", 25,
	    0, NULL), 0, "a minimal document, no diag: started");
	tc_hook_release(&h);
}

/* The deadline kills the hook and all it started; so does its exit. */
static void
test_deadline(void)
{
	struct tc_hook h;
	struct drive dr;

	unlink(path_of("hang.ready"));
	if (run(&h, "hang", 500, &dr) == 0) {
		is_int(h.answer, TC_HOOK_FAILED, "hang: failed");
		is_int(h.failure, TC_HOOK_FAIL_TIMEOUT, "hang: timeout");
		like(h.why, "/hang' gave no answer within 500 ms and was "
		    "killed",
		    "hang: why");
		ok(dr.took >= 500 && dr.took < 3000, "hang: done %lld ms "
		    "after its start, for a 500 ms deadline",
		    (long long)dr.took);
		ok(access(path_of("hang.ready"), F_OK) == 0,
		    "hang: had started its children");
		expect_gone("child.pid");
		expect_gone("session.pid");
		expect_gone("orphan.pid");
	}
	tc_hook_release(&h);

	/* Exits at once, its child holding stdout: no wait for that. */
	if (run(&h, "leftover", 5000, &dr) == 0) {
		is_int(h.answer, TC_HOOK_ALLOW, "leftover: allowed");
		is_str(h.reason, "allowed, leaving a child",
		    "leftover: reason");
		ok(dr.took < 3000, "leftover: answered in %lld ms",
		    (long long)dr.took);
		expect_gone("left.pid");
	}
	tc_hook_release(&h);
}

/* The document on stdin: never read, read in part, read whole. */
static void
test_input(void)
{
	char *noread[] = { path_of("noread"), NULL };
	char *exits[] = { path_of("noread-exit"), NULL };
	char *copy[] = { path_of("copy"), NULL };
	static const char head[] = "{\"server\":\"s\",\"tool\":\"t\","
	    "\"arguments\":{\"content\":\"";
	size_t len, i, n = 1u << 20;
	struct tc_hook h;
	struct drive dr;
	char *json, *got;
	FILE *f;

	/* A megabyte of JSON, far past a pipe's buffer. */
	if ((json = malloc(n + 128)) == NULL)
		return;
	len = (size_t)snprintf(json, 64, "%s", head);
	for (i = 0; i < n; i++)
		json[len++] = (char)('a' + i % 26);
	len += (size_t)snprintf(json + len, 64, "\"}}");

	/* Were a write to block, start or a step would take the whole
	 * deadline, or forever; the bounds leave room for a loaded machine
	 * and a sanitizer build. */
	if (run_argv(&h, noread, json, len, 1000, &dr) == 0) {
		is_int(h.failure, TC_HOOK_FAIL_TIMEOUT, "noread: timeout");
		ok(dr.start_ms < 500, "noread: tc_hook_start took %lld ms",
		    (long long)dr.start_ms);
		ok(dr.max_step < 200, "noread: no step blocked (longest %lld "
		    "ms)", (long long)dr.max_step);
		ok(dr.took >= 1000 && dr.took < 3000, "noread: done at its "
		    "deadline (%lld ms)", (long long)dr.took);
	}
	tc_hook_release(&h);

	if (run_argv(&h, exits, json, len, 5000, &dr) == 0) {
		is_int(h.answer, TC_HOOK_ALLOW, "noread-exit: an early exit "
		    "(EPIPE) is no error");
		is_str(h.reason, "did not read", "noread-exit: reason");
	}
	tc_hook_release(&h);

	unlink(path_of("got"));
	if (run_argv(&h, copy, json, len, 10000, &dr) == 0) {
		is_int(h.answer, TC_HOOK_ALLOW, "copy: allowed");
		got = calloc(1, len + 2);
		if (got != NULL && (f = fopen(path_of("got"), "r")) != NULL) {
			ok(fread(got, 1, len + 1, f) == len &&
			    memcmp(got, json, len) == 0,
			    "copy: the hook read the document whole, then EOF");
			fclose(f);
		} else
			ok(0, "copy: read what the hook got");
		free(got);
	}
	tc_hook_release(&h);
	free(json);
}

/* stdout: the reason line cut and cleaned, the rest drained, a cap. */
static void
test_output(void)
{
	char want[TC_HOOK_REASON_MAX + 1];
	struct tc_hook h;
	struct drive dr;

	memset(want, 'x', TC_HOOK_REASON_MAX);
	want[TC_HOOK_REASON_MAX] = '\0';
	if (run(&h, "long-line", 5000, &dr) == 0) {
		is_int(h.answer, TC_HOOK_ALLOW, "long-line: 30 KB of stdout is "
		    "fine");
		is_str(h.reason, want, "long-line: the first %d bytes of the "
		    "first line kept", TC_HOOK_REASON_MAX);
	}
	tc_hook_release(&h);

	if (run(&h, "endless", 5000, &dr) == 0) {
		is_int(h.failure, TC_HOOK_FAIL_OUTPUT, "endless: killed for "
		    "its output");
		like(h.why, "wrote more than 65536 bytes to its stdout",
		    "endless: why");
		is_str(h.reason, "y", "endless: its first line is kept");
		ok(dr.took < 3000, "endless: stopped in %lld ms",
		    (long long)dr.took);
	}
	tc_hook_release(&h);

	if (run(&h, "controls", 5000, &dr) == 0)
		is_str(h.reason, "a b [31mc d?e", "controls: C0, C1 and DEL "
		    "blanked, bad UTF-8 '?', trimmed");
	tc_hook_release(&h);

	memset(want, 'x', 199);
	want[199] = '\0';
	if (run(&h, "cut-utf8", 5000, &dr) == 0)
		is_str(h.reason, want, "cut-utf8: a character cut at the limit "
		    "is dropped");
	tc_hook_release(&h);
}

/* Reads |file| into |buf| (NUL-terminated). */
static void
slurp(const char *file, char *buf, size_t size)
{
	size_t n = 0;
	FILE *f;

	buf[0] = '\0';
	if ((f = fopen(file, "r")) == NULL)
		return;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Returns the value of |key| in the probe's report (static), or "". */
static const char *
probed(const char *report, const char *key)
{
	static char val[1024];
	const char *p;
	size_t n;

	val[0] = '\0';
	for (p = report; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		n = strlen(key);
		if (strncmp(p, key, n) == 0 && p[n] == ':') {
			p += n + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			n = strcspn(p, "\n");
			snprintf(val, sizeof(val), "%.*s", (int)n, p);
			break;
		}
	}
	return val;
}

/* What a hook starts with: fds, signals, cwd, stderr, environment. */
static void
test_environment(void)
{
	char report[4096], file[sizeof(dir) + 16], opt[] = "--probe";
	char *argv[] = { self, opt, file, NULL };
	struct tc_hook h, other;
	struct drive dr;
	sigset_t set;
	int leak, saved, fd;

	snprintf(file, sizeof(file), "%s/probe", dir);
	/* As the server: SIGPIPE ignored (main), its signals blocked. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* An fd without O_CLOEXEC, and another hook's pipes, open. */
	leak = open("/dev/null", O_RDONLY);
	tc_hook_start(&other, (char *[]){ path_of("noread"), NULL },
	    call_json, sizeof(call_json) - 1, 5000, NULL);

	/* The variables: some kept, a secret not. */
	setenv("SECRET_CANARY", "hunter2", 1);
	setenv("TERM", "tc-test-term", 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("HOME", "/nonexistent/tc-test", 1);
	unsetenv("LC_ALL");
	tc_hook_env_capture();
	setenv("TERM", "changed-after-capture", 1);

	if (run_argv(&h, argv, call_json, sizeof(call_json) - 1, 5000,
	    &dr) == 0) {
		slurp(file, report, sizeof(report));
		is_int(h.answer, TC_HOOK_ALLOW, "probe: ran (%s)", h.why);
		is_str(probed(report, "fds"), "0", "probe: no fd but stdio");
		is_str(probed(report, "SigBlk"), "0000000000000000",
		    "probe: no signal blocked");
		is_str(probed(report, "SigIgn"), "0000000000000000",
		    "probe: no signal ignored (SIGPIPE was)");
		is_str(probed(report, "cwd"), "/", "probe: working directory");
		like(probed(report, "env"),
		    "PATH=/usr/local/bin:/usr/bin:/bin ",
		    "probe: PATH");
		like(probed(report, "env"), " TERM=tc-test-term ",
		    "probe: TERM as captured");
		like(probed(report, "env"), " HOME=/nonexistent/tc-test ",
		    "probe: HOME as captured");
		like(probed(report, "env"), " LANG=C.UTF-8 ",
		    "probe: LANG as captured");
		like(probed(report, "env"), " TOOLCELL_SERVER=toolcell-test "
		    "TOOLCELL_TOOL=write_file TOOLCELL_TIMEOUT_MS=5000",
		    "probe: TOOLCELL_SERVER, _TOOL, _TIMEOUT_MS");
		ok(strstr(report, "SECRET_CANARY") == NULL &&
		    strstr(report, "hunter2") == NULL &&
		    strstr(report, "LC_ALL") == NULL,
		    "probe: nothing else of the environment");
	} else
		ok(0, "probe: ran");
	tc_hook_release(&h);

	/* stderr: inherited when it is not stdout, else /dev/null. */
	fflush(stdout);
	saved = dup(STDERR_FILENO);
	fd = open(path_of("stderr.out"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0) {
		ok(0, "stderr: set up");
		return;
	}
	dup2(fd, STDERR_FILENO);
	close(fd);
	run(&h, "stderr", 5000, &dr);
	tc_hook_release(&h);
	dup2(STDOUT_FILENO, STDERR_FILENO);
	run_argv(&h, argv, call_json, sizeof(call_json) - 1, 5000, &dr);
	tc_hook_release(&h);
	dup2(saved, STDERR_FILENO);
	close(saved);
	slurp(path_of("stderr.out"), report, sizeof(report));
	is_str(report, "to-stderr\n", "stderr: the server's, inherited");
	slurp(file, report, sizeof(report));
	is_str(probed(report, "stderr"), "devnull", "stderr: /dev/null when "
	    "the server's stderr is its stdout");

	tc_hook_release(&other);
	close(leak);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	unsetenv("SECRET_CANARY");
}

/*
 * Starts the program open as |fd| (|script| or not) as |argv| and drives
 * it; 0, or -1 if it could not start.
 */
static int
run_fd(struct tc_hook *h, int fd, int script, char *const argv[])
{
	struct tc_diag d = { "", 0 };
	struct drive dr;

	memset(&dr, 0, sizeof(dr));
	if (tc_hook_start_fd(h, fd, script, argv, call_json,
	    sizeof(call_json) - 1, 5000, &d) != 0) {
		printf("# tc_hook_start_fd: %s\n", d.msg);
		return -1;
	}
	return drive(h, &dr);
}

/*
 * Hooks run from an fd opened beforehand (own.h): a script (its
 * interpreter reads it from /dev/fd/N), a program, and neither once
 * another file is at the path, or none.
 */
static void
test_from_fd(void)
{
	char arg[] = "one", want[64], report[4096], opt[] = "--probe";
	char file[sizeof(dir) + 16], *path;
	struct tc_hook h;
	struct tc_diag d;
	int fd;

	path = path_of("fd-script");
	fd = open(path, O_PATH | O_CLOEXEC);
	if (!ok(fd > STDERR_FILENO, "fd-script: opened"))
		return;
	if (run_fd(&h, fd, 1, (char *[]){ path, arg, NULL }) == 0) {
		is_int(h.answer, TC_HOOK_ALLOW, "fd-script: ran (%s)", h.why);
		snprintf(want, sizeof(want), "ran /dev/fd/%d one", fd);
		is_str(h.reason, want, "fd-script: its interpreter read it "
		    "from the fd, and got its arguments");
	} else
		ok(0, "fd-script: started");
	tc_hook_release(&h);
	/* Close-on-exec, the script cannot be read by its interpreter:
	 * that is what the flag is for. */
	if (run_fd(&h, fd, 0, (char *[]){ path, arg, NULL }) == 0)
		is_int(h.failure, TC_HOOK_FAIL_NOTFOUND, "fd-script not said "
		    "to be a script: cannot run (%s)", h.why);
	else
		ok(0, "fd-script, close-on-exec: started");
	tc_hook_release(&h);
	ok(fcntl(fd, F_GETFD) == FD_CLOEXEC, "the caller's fd stays "
	    "close-on-exec");

	/* Another file put at the path: neither runs. */
	if (rename(path_of("fd-evil"), path) != 0) {
		ok(0, "rename: %s", strerror(errno));
		close(fd);
		return;
	}
	if (run_fd(&h, fd, 1, (char *[]){ path, arg, NULL }) == 0) {
		is_int(h.failure, TC_HOOK_FAIL_CHANGED, "replaced: refused");
		like(h.why, "is no longer the file the server checked at "
		    "start (another file is at its path)", "replaced: why");
	} else
		ok(0, "replaced: started");
	tc_hook_release(&h);
	ok(access(path_of("evil.ran"), F_OK) != 0, "replaced: the new file "
	    "never ran");
	unlink(path);
	if (run_fd(&h, fd, 1, (char *[]){ path, arg, NULL }) == 0) {
		is_int(h.failure, TC_HOOK_FAIL_NOTFOUND, "removed: refused");
		like(h.why, "' not found", "removed: why");
	} else
		ok(0, "removed: started");
	tc_hook_release(&h);
	close(fd);

	/* A program from its fd: this binary, as the probe. */
	snprintf(file, sizeof(file), "%s/probe-fd", dir);
	fd = open(self, O_PATH | O_CLOEXEC);
	if (run_fd(&h, fd, 0, (char *[]){ self, opt, file, NULL }) == 0) {
		is_int(h.answer, TC_HOOK_ALLOW, "program from its fd: ran (%s)",
		    h.why);
		slurp(file, report, sizeof(report));
		is_str(probed(report, "fds"), "0", "program from its fd: no "
		    "fd but stdio, its own neither");
	} else
		ok(0, "program from its fd: started");
	tc_hook_release(&h);
	close(fd);

	is_int(tc_hook_start_fd(&h, STDIN_FILENO, 0, (char *[]){ self, NULL },
	    call_json, sizeof(call_json) - 1, 5000, &d), TC_EINVAL,
	    "an fd of stdio is refused");
	tc_hook_release(&h);
}

/* Two hooks in one loop: the quick one answers while the other hangs. */
static void
test_concurrent(void)
{
	char *slow[] = { path_of("noread"), NULL };
	char *quick[] = { path_of("allow"), NULL };
	struct pollfd pfd[2 * TC_HOOK_POLLFDS];
	struct tc_hook a, b;
	int64_t t0 = now_ms();
	int na, nb, slow_running = 0;

	if (tc_hook_start(&a, slow, call_json, sizeof(call_json) - 1, 3000,
	    NULL) != 0 || tc_hook_start(&b, quick, call_json,
	    sizeof(call_json) - 1, 5000, NULL) != 0) {
		ok(0, "concurrent: started");
		tc_hook_release(&a);
		tc_hook_release(&b);
		return;
	}
	while ((!a.done || !b.done) && now_ms() - t0 < GUARD_MS) {
		na = tc_hook_pollfds(&a, pfd);
		nb = tc_hook_pollfds(&b, pfd + na);
		poll(pfd, (nfds_t)(na + nb), 50);
		tc_hook_step(&a, pfd, na + nb, now_ms());
		if (!b.done && tc_hook_step(&b, pfd, na + nb, now_ms()))
			slow_running = !a.done;
	}
	ok(slow_running, "concurrent: the quick hook answered while the "
	    "other ran");
	is_int(b.answer, TC_HOOK_ALLOW, "concurrent: the quick one allowed");
	is_int(a.failure, TC_HOOK_FAIL_TIMEOUT, "concurrent: the slow one "
	    "timed out");
	tc_hook_release(&a);
	tc_hook_release(&b);
}

/* Abandoned, released while running, or left by a dying server. */
static void
test_kill(void)
{
	struct tc_hook h;
	int64_t t0;
	pid_t pid, w;
	int st, i;

	/* Abandoned: killed with its children, at once. */
	unlink(path_of("hang.ready"));
	unlink(path_of("child.pid"));
	if (tc_hook_start(&h, (char *[]){ path_of("hang"), NULL }, call_json,
	    sizeof(call_json) - 1, 10000, NULL) == 0) {
		for (i = 0; i < 300 && access(path_of("hang.ready"), F_OK); i++)
			usleep(10000);
		t0 = now_ms();
		tc_hook_kill(&h);
		ok(now_ms() - t0 < TC_HOOK_GRACE_MS, "kill: done in %lld ms",
		    (long long)(now_ms() - t0));
		ok(h.done && h.answer == TC_HOOK_FAILED &&
		    h.failure == TC_HOOK_FAIL_ABANDONED, "kill: abandoned");
		like(h.why, "was abandoned before it answered", "kill: why");
		expect_gone("child.pid");
		tc_hook_kill(&h);	/* again: nothing */
		ok(h.failure == TC_HOOK_FAIL_ABANDONED, "kill: twice is fine");
	}
	tc_hook_release(&h);

	/* Released while running: killed and reaped too. */
	unlink(path_of("hang.ready"));
	if (tc_hook_start(&h, (char *[]){ path_of("hang"), NULL }, call_json,
	    sizeof(call_json) - 1, 10000, NULL) == 0) {
		for (i = 0; i < 300 && access(path_of("hang.ready"), F_OK); i++)
			usleep(10000);
		tc_hook_release(&h);
		ok(h.pid < 0 && h.done, "release: the keeper is reaped");
		expect_gone("child.pid");
	}

	/*
	 * A server that dies without a word: its keeper hears the end of
	 * the control pipe and kills the hook.  The keeper, orphaned, is
	 * ours (we are a subreaper) and exits.
	 */
	unlink(path_of("hang.ready"));
	unlink(path_of("child.pid"));
	if ((pid = fork()) == 0) {
		tc_hook_start(&h, (char *[]){ path_of("hang"), NULL },
		    call_json, sizeof(call_json) - 1, 10000, NULL);
		for (i = 0; i < 300 && access(path_of("hang.ready"), F_OK); i++)
			usleep(10000);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	expect_gone("child.pid");
	t0 = now_ms();
	do
		w = waitpid(-1, &st, WNOHANG);
	while (w == 0 && now_ms() - t0 < 2000 && usleep(10000) == 0);
	ok(w > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "server died: its orphaned keeper exits");
}

/* --- The example hooks --- */

/* policy/hooks/allow-read-only: on the annotation, not the text. */
static void
test_allow_read_only(void)
{
	static const char ro[] = "{\"server\":\"toolcell-fs\",\"tool\":"
	    "\"read_file\",\"arguments\":{\"path\":\"x\"},\"annotations\":"
	    "{\"readOnlyHint\":true}}";
	/* An argument that mentions the hint fools no one. */
	static const char rw[] = "{\"server\":\"toolcell-fs\",\"tool\":"
	    "\"write_file\",\"arguments\":{\"content\":\"\\\"readOnlyHint\\\":"
	    "true\"},\"annotations\":{\"readOnlyHint\":false}}";
	char hook[sizeof(root) + 64];
	char *argv[] = { hook, NULL };
	struct tc_hook h;
	struct drive dr;

	snprintf(hook, sizeof(hook), "%s/policy/hooks/allow-read-only", root);
	if (access("/usr/bin/jq", X_OK) != 0 &&
	    access("/usr/local/bin/jq", X_OK) != 0) {
		skip("allow-read-only: no jq (apt-get install jq)");
		return;
	}
	if (run_argv(&h, argv, ro, sizeof(ro) - 1, 10000, &dr) == 0) {
		is_int(h.answer, TC_HOOK_ALLOW, "allow-read-only: read_file "
		    "allowed");
		is_str(h.reason, "allowed: read_file is read-only",
		    "allow-read-only: its reason");
	}
	tc_hook_release(&h);
	if (run_argv(&h, argv, rw, sizeof(rw) - 1, 10000, &dr) == 0) {
		is_int(h.answer, TC_HOOK_DENY, "allow-read-only: write_file "
		    "denied");
		like(h.reason, "denied: write_file may change things",
		    "allow-read-only: its reason");
	}
	tc_hook_release(&h);
}

/* policy/hooks/desktop, where it can only deny. */
static void
test_desktop(void)
{
	char hook[sizeof(root) + 64];
	char *argv[] = { hook, NULL };
	struct tc_hook h;
	struct drive dr;

	/* Captured without DISPLAY or WAYLAND_DISPLAY (main). */
	snprintf(hook, sizeof(hook), "%s/policy/hooks/desktop", root);
	if (run_argv(&h, argv, call_json, sizeof(call_json) - 1, 10000,
	    &dr) == 0) {
		is_int(h.answer, TC_HOOK_DENY, "desktop: denied without a "
		    "graphical session");
		like(h.reason, "no graphical session", "desktop: its reason");
	}
	tc_hook_release(&h);
}

/* What a hook run in a child process (as a server elsewhere) gave. */
struct remote {
	int		 ran;
	enum tc_hook_answer answer;
	enum tc_hook_failure failure;
	char		 reason[TC_HOOK_REASON_MAX + 1];
};

enum tty_mode {
	TTY_NONE,		/* a new session, no terminal */
	TTY_FOREGROUND,		/* a terminal, our job in the foreground */
	TTY_BACKGROUND,		/* a terminal, another job in the foreground */
};

/*
 * In a child: becomes a session leader, with |slave| as its controlling
 * terminal unless NULL, runs |hook| and writes a struct remote to |fd|.
 */
static void __attribute__((noreturn))
remote_hook(const char *hook, const char *slave, enum tty_mode mode, int fd)
{
	char path[sizeof(root) + 64];
	char *argv[] = { path, NULL };
	struct remote r;
	struct tc_hook h;
	struct drive dr;
	pid_t job = -1;
	int tty = -1;

	memset(&r, 0, sizeof(r));
	snprintf(path, sizeof(path), "%s", hook);
	if (setsid() < 0)
		_exit(1);
	/* A session leader without a terminal gets one by opening it. */
	if (mode != TTY_NONE && (tty = open(slave, O_RDWR)) < 0)
		_exit(1);
	if (mode == TTY_BACKGROUND) {
		if ((job = fork()) == 0) {
			setpgid(0, 0);
			pause();
			_exit(0);
		}
		setpgid(job, job);
		if (tcsetpgrp(tty, job) != 0)
			_exit(1);
	}
	if (run_argv(&h, argv, call_json, sizeof(call_json) - 1, 5000,
	    &dr) == 0) {
		r.ran = 1;
		r.answer = h.answer;
		r.failure = h.failure;
		snprintf(r.reason, sizeof(r.reason), "%s", h.reason);
	}
	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	if (job > 0)
		kill(job, SIGKILL);
	_exit(0);
}

/*
 * Runs ask-tty in a child with the terminal |mode|; for a terminal, types
 * |keys| once it asks.  Fills |r|; returns what the terminal showed.
 */
static void
ask_tty(enum tty_mode mode, const char *keys, struct remote *r,
    char *shown, size_t size)
{
	char hook[sizeof(root) + 64], *slave = NULL;
	struct pollfd pfd[2];
	size_t len = 0;
	int master = -1, ptm = -1, p[2], st;
	int64_t t0;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	shown[0] = '\0';
	snprintf(hook, sizeof(hook), "%s/policy/hooks/ask-tty", root);
	if (mode != TTY_NONE) {
		if ((ptm = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 ||
		    grantpt(ptm) != 0 || unlockpt(ptm) != 0 ||
		    (slave = ptsname(ptm)) == NULL)
			return;
		master = ptm;
	}
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(p[0]);
		remote_hook(hook, slave, mode, p[1]);
	}
	close(p[1]);
	/* Read what the hook shows, answer when it asks, until the child
	 * reports. */
	t0 = now_ms();
	for (;;) {
		if (now_ms() - t0 > GUARD_MS) {
			kill(pid, SIGKILL);
			break;
		}
		pfd[0].fd = p[0];
		pfd[0].events = POLLIN;
		pfd[1].fd = master;
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		if (poll(pfd, master >= 0 ? 2 : 1, 100) <= 0)
			continue;
		if (pfd[1].revents != 0) {
			n = read(master, shown + len, size - len - 1);
			if (n > 0) {
				len += (size_t)n;
				shown[len] = '\0';
			} else
				master = -1;	/* EIO: the slave is closed */
		}
		if (keys != NULL && strstr(shown, "s): ") != NULL) {
			if (write(pfd[1].fd, keys, strlen(keys)) < 0)
				break;
			keys = NULL;
		}
		if (pfd[0].revents != 0) {
			if (read(p[0], r, sizeof(*r)) != sizeof(*r))
				r->ran = 0;
			break;
		}
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (ptm >= 0)
		close(ptm);
}

/* policy/hooks/ask-tty: no terminal, y, s, n, a background job. */
static void
test_ask_tty(void)
{
	struct remote r;
	char shown[4096];

	ask_tty(TTY_NONE, NULL, &r, shown, sizeof(shown));
	ok(r.ran, "ask-tty, no terminal: ran");
	is_int(r.answer, TC_HOOK_DENY, "ask-tty, no terminal: denied");
	like(r.reason, "there is no terminal to ask on",
	    "ask-tty, no terminal: its reason");

	ask_tty(TTY_FOREGROUND, "y\n", &r, shown, sizeof(shown));
	ok(r.ran, "ask-tty, y: ran");
	is_int(r.answer, TC_HOOK_ALLOW, "ask-tty, y: allowed");
	is_str(r.reason, "allowed at the terminal", "ask-tty, y: its reason");
	like(shown, "toolcell-test wants to call write_file",
	    "ask-tty: shows server and tool");
	like(shown, "content = \"hello\"", "ask-tty: shows the arguments");
	like(shown, "path: /tmp/notes.txt", "ask-tty: shows the paths");

	ask_tty(TTY_FOREGROUND, "s\n", &r, shown, sizeof(shown));
	is_int(r.answer, TC_HOOK_ALLOW_SESSION, "ask-tty, s: for the session");
	like(r.reason, "allowed at the terminal", "ask-tty, s: its reason");

	ask_tty(TTY_FOREGROUND, "n\n", &r, shown, sizeof(shown));
	is_int(r.answer, TC_HOOK_DENY, "ask-tty, n: denied");
	is_str(r.reason, "denied at the terminal", "ask-tty, n: its reason");

	/* Not the foreground job: denied at once, not stopped. */
	ask_tty(TTY_BACKGROUND, NULL, &r, shown, sizeof(shown));
	is_int(r.answer, TC_HOOK_DENY, "ask-tty, background job: denied");
	like(r.reason, "no answer could be read on the terminal",
	    "ask-tty, background job: its reason");
}

/* Finds the source tree: three levels above this binary, or ".". */
static void
find_root(const char *argv0)
{
	char probe_path[sizeof(root) + 64];
	char *p;
	int i;

	if (realpath("/proc/self/exe", self) == NULL &&
	    realpath(argv0, self) == NULL) {
		printf("Bail out! cannot find this binary\n");
		exit(1);
	}
	snprintf(root, sizeof(root), "%s", self);
	for (i = 0; i < 3; i++)
		if ((p = strrchr(root, '/')) != NULL)
			*p = '\0';
	snprintf(probe_path, sizeof(probe_path), "%s/policy/hooks/ask-tty",
	    root);
	if (access(probe_path, F_OK) != 0 && getcwd(root, sizeof(root)) == NULL)
		root[0] = '\0';
}

int
main(int argc, char *argv[])
{
	char tmpl[] = "/tmp/test-hook.XXXXXX";
	int64_t t0;
	pid_t w;

	if (argc == 3 && strcmp(argv[1], "--probe") == 0)
		return probe(argv[2]);
	find_root(argv[0]);
	if (mkdtemp(tmpl) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", tmpl);
	make_fixtures();
	/* As the server. */
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	unsetenv("DISPLAY");
	unsetenv("WAYLAND_DISPLAY");
	tc_hook_env_capture();

	test_answers();
	test_failures();
	test_deadline();
	test_input();
	test_output();
	test_environment();
	test_from_fd();
	test_concurrent();
	test_kill();
	test_allow_read_only();
	test_desktop();
	test_ask_tty();

	/* Every keeper reaped, nothing left behind. */
	t0 = now_ms();
	while ((w = waitpid(-1, NULL, WNOHANG)) >= 0 && now_ms() - t0 < 2000)
		if (w == 0)
			usleep(10000);
	ok(w < 0 && errno == ECHILD, "no child left");
	if (fork() == 0)
		execl("/bin/rm", "rm", "-rf", dir, (char *)NULL);
	wait(NULL);
	return done_testing();
}
