/*
 * test-shellrun.c: shell_exec_run() (servers/shell/shell_run.c) on real
 * programs, /bin/sh scripts, /bin/cat and /bin/echo, without the sandbox.
 *
 * Each case runs in a forked process, as a handler runs in its child: a
 * struct tc_call whose channel (io) is a pipe, as child.c sets it up, or
 * none; the result serialized as child.c sends it, on that pipe, after the
 * output and progress frames.  The case process is a child subreaper, so
 * that what a program leaves behind becomes its child: after the run it
 * reaps every one and says how each ended, in a last frame of the test's
 * own, so that "killed with its group" is checked, not hoped for.
 *
 * ppoll() and tc_now_ms() are wrapped (-Wl,--wrap): a case that arms them
 * (test_late()) makes the handler late just after it noted the program's
 * exit, at that moment exactly, with no race.  read() is wrapped too: a
 * case that arms it (test_endless()) has every read of a pipe from that
 * moment on answered in full, as a process left behind that writes
 * without end would have it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/json.h"
#include "policy/policy.h"
#include "protocol/tools.h"
#include "sandbox/sandbox.h"
#include "sandbox/stream.h"
#include "shell.h"
#include "tap.h"

#define FRAME_TRAILER	100	/* the case process's own last frame */
#define GUARD_S		20	/* no case may take longer */
#define MiB		(1u << 20)

/* What a case process ends with. */
struct trailer {
	int	rc;		/* shell_exec_run()'s */
	int	orphans;	/* processes it reaped after the run */
	int	orphans_killed;	/* of those, killed by SIGKILL */
	int	sigpipe_dfl;	/* SIGPIPE's disposition was given back */
	int	serialized;	/* tc_result_serialize() took it */
	size_t	result_len;
	int	late;		/* test_late()'s moment came */
	unsigned long long endless;	/* test_endless()'s bytes */
	int	fds_before;	/* fds open as the run began, and after it */
	int	fds_after;
	int	grown;		/* F_SETPIPE_SZ calls that asked for more */
};

struct spec {
	const char	*path;
	const char	*argv[8];
	char *const	*envp;
	const char	*stdin_data;
	size_t		 stdin_len;
	int		 stdin_fd;
	int		 cwd_fd;
	int		 timeout_ms;
	size_t		 max_output;
	int		 binary;
	int		 stream;
	int		 no_io;		/* call->io NULL */
	int		 tty;		/* on a pseudo-terminal of its own */
	size_t		 max_result;	/* 0: no policy */
	void		(*before)(void); /* in the case process */
};

struct got {
	struct trailer	 t;
	int		 exited;	/* the case process exited 0 */
	cJSON		*res;		/* the CallToolResult */
	cJSON		*sc;		/* its structuredContent */
	const char	*text;
	int		 is_error;
	struct tc_buf	 so, se;	/* streamed output */
	int		 nprogress;
	int		 progress_up;	/* each progress above the last */
	char		 msg[256];	/* the last progress message */
};

static char *const env_empty[] = { NULL };
static int unclean;		/* case processes that did not exit 0 */

/* --- A handler late after the program's exit (test_late()) --- */

#define LATE_MS		300	/* past shell_run.c's HELD_IDLE_MS (100) */
#define ENDLESS_MS	5000	/* past its HELD_MAX_MS (1000) */

int	__real_pipe2(int [2], int);
int	__wrap_pipe2(int [2], int);
int	__real_fcntl(int, int, ...);
int	__wrap_fcntl(int, int, ...);
int	__real_ppoll(struct pollfd *, nfds_t, const struct timespec *,
	    const sigset_t *);
int	__wrap_ppoll(struct pollfd *, nfds_t, const struct timespec *,
	    const sigset_t *);
int64_t	__real_tc_now_ms(void);
int64_t	__wrap_tc_now_ms(void);
ssize_t	__real_read(int, void *, size_t);
ssize_t	__wrap_read(int, void *, size_t);
ssize_t	__real_getrandom(void *, size_t, unsigned);
ssize_t	__wrap_getrandom(void *, size_t, unsigned);

/* In a case process, once armed (late_arm()): 4 until ppoll() has
 * answered output, 1 until it has answered the program's exit, 2 until
 * the clock has said when, then 3. */
static int late;
static int64_t late_ms = LATE_MS;	/* how late, from then on */
static int endless;			/* endless_arm()'s */
static unsigned long long endless_bytes;	/* read() made up */

static void
late_arm(void)
{
	late = 4;
}

/* Armed as late_arm(), but past the most that output may be held after
 * the exit, and with pipes that never run dry from then on. */
static void
endless_arm(void)
{
	late = 4;
	late_ms = ENDLESS_MS;
	endless = 1;
}

/*
 * read(); armed by endless_arm(), once the clock is late (the handler's
 * next look is its last), a read of a pipe gets all it asks for, of
 * 'y', and never blocks or ends: the output of a process left behind
 * that writes faster than it is read, and without end.
 */
ssize_t
__wrap_read(int fd, void *buf, size_t n)
{
	struct stat st;

	if (!endless || late != 3 || fstat(fd, &st) != 0 ||
	    !S_ISFIFO(st.st_mode))
		return __real_read(fd, buf, n);
	memset(buf, 'y', n);
	endless_bytes += n;
	return (ssize_t)n;
}

/* getrandom(), the terminal's mark's: 1 makes it all zero bytes (the
 * mark "#AAAAAAAAAAAAAAA", which a case can then write), -1 refuses it
 * (ENOSYS). */
static int known_mark;

ssize_t
__wrap_getrandom(void *buf, size_t n, unsigned flags)
{
	if (known_mark < 0) {
		errno = ENOSYS;
		return -1;
	}
	if (known_mark > 0) {
		memset(buf, 0, n);
		return (ssize_t)n;
	}
	return __real_getrandom(buf, n, flags);
}

/* Which pipe2() calls to refuse (EMFILE): bit k for the k-th from 0,
 * counted from the hook that sets them (no_ahead() and the like). */
static unsigned refuse_pipes;
static unsigned pipe_calls;
/* F_SETPIPE_SZ calls past the default size, in the case process. */
static int grown;

int
__wrap_pipe2(int fds[2], int flags)
{
	if (pipe_calls < 32 && (refuse_pipes & 1u << pipe_calls++)) {
		errno = EMFILE;
		return -1;
	}
	return __real_pipe2(fds, flags);
}

/* fcntl(), its argument passed on whole (an int or a pointer) or read
 * where there is none, as the C library's own does. */
int
__wrap_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	unsigned long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (cmd == F_SETPIPE_SZ && (int)arg > 65536)
		grown++;
	return __real_fcntl(fd, cmd, arg);
}

/* The fds open in this process. */
static int
count_fds(void)
{
	struct dirent *e;
	DIR *d;
	int n = 0;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Returns 1 if |fd| is a pidfd. */
static int
is_pidfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((n = readlink(path, link, sizeof(link) - 1)) < 0)
		return 0;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[pidfd]") == 0;
}

/*
 * ppoll(), the pump's; armed, once it has answered some output, until
 * the program has exited, it waits for that alone (its pidfd) and
 * answers that alone: what a wait reports whose look at the output found
 * it empty just before the program wrote its last bytes and exited.  The
 * bytes stay unread, for the handler's next look.
 */
int
__wrap_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
    const sigset_t *mask)
{
	nfds_t i, k = n;
	int rc;

	if (late == 4) {
		rc = __real_ppoll(fds, n, ts, mask);
		for (i = 0; rc > 0 && i < n; i++)
			if ((fds[i].revents & POLLIN) && !is_pidfd(fds[i].fd))
				late = 1;
		return rc;
	}
	if (late != 1)
		return __real_ppoll(fds, n, ts, mask);
	for (i = 0; i < n; i++) {
		fds[i].revents = 0;
		if (is_pidfd(fds[i].fd))
			k = i;
	}
	if (k == n)
		return __real_ppoll(fds, n, ts, mask);
	if ((rc = __real_ppoll(&fds[k], 1, ts, mask)) > 0)
		late = 2;
	return rc;
}

/*
 * The clock; armed, LATE_MS on from just after the handler noted the
 * exit (reap(): its first look after ppoll() answered it): what a handler
 * descheduled there for that long sees.
 */
int64_t
__wrap_tc_now_ms(void)
{
	int64_t now = __real_tc_now_ms();

	if (late == 2) {
		late = 3;
		return now;
	}
	return late == 3 ? now + late_ms : now;
}

static void
write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, s, n)) < 0) {
			if (errno == EINTR)
				continue;
			_exit(90);
		}
		s += w;
		n -= (size_t)w;
	}
}

/* A pseudo-terminal pair for |x|, with its mark, as child.c opens one.
 * Returns 0 or -1. */
static int
open_tty(struct shell_exec *x)
{
	int m, s = -1, k = -1, unlock = 0;

	if ((m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	if (ioctl(m, TIOCSPTLCK, &unlock) != 0 ||
	    (s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 ||
	    (k = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC |
	    O_NONBLOCK)) < 0) {
		if (s >= 0)
			close(s);
		close(m);
		return -1;
	}
	x->tty = 1;
	x->tty_master = m;
	x->tty_slave = s;
	x->tty_mark = k;
	return 0;
}

static void __attribute__((noreturn))
case_main(const struct spec *sp, int wfd)
{
	static const struct tc_tool tool = { .name = "run_command" };
	struct shell_exec x;
	struct tc_call_io io = { .in_fd = -1, .out_fd = wfd };
	struct tc_policy pol;
	struct tc_call call;
	struct tc_result res;
	struct tc_buf out;
	struct trailer t;
	struct sigaction sa;
	int st;

	memset(&t, 0, sizeof(t));
	alarm(GUARD_S);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_DFL);
	if (sp->before != NULL)
		sp->before();
	memset(&call, 0, sizeof(call));
	call.tool = &tool;
	if (sp->max_result > 0) {
		tc_policy_init(&pol);
		pol.limits.max_result = sp->max_result;
		call.policy = &pol;
	}
	call.io = sp->no_io ? NULL : &io;
	memset(&x, 0, sizeof(x));
	x.path = sp->path;
	x.argv = (char *const *)(uintptr_t)sp->argv;
	x.envp = sp->envp != NULL ? sp->envp : env_empty;
	x.cwd_fd = sp->cwd_fd;
	x.stdin_data = sp->stdin_data;
	x.stdin_len = sp->stdin_len;
	x.stdin_fd = sp->stdin_fd;
	x.timeout_ms = sp->timeout_ms;
	x.max_output = sp->max_output;
	x.binary = sp->binary;
	x.stream = sp->stream;
	x.tty_mark = -1;
	if (sp->tty && open_tty(&x) != 0)
		_exit(91);

	tc_result_init(&res);
	/* The terminal's slave and mark are the runner's to close. */
	t.fds_before = count_fds() - (x.tty ? 2 : 0);
	t.rc = shell_exec_run(&call, &x, &res);
	t.fds_after = count_fds();
	t.grown = grown;
	t.late = late == 3;
	t.endless = endless_bytes;
	endless = 0;
	if (x.tty)
		close(x.tty_master);	/* slave and mark: the runner's */
	tc_buf_init(&out, (size_t)-1);
	t.serialized = tc_result_serialize(&res, &out) == 0;
	t.result_len = out.len;
	tc_frame_write(wfd, TC_FRAME_RESULT, out.data != NULL ? out.data : "",
	    out.len);
	sigaction(SIGPIPE, NULL, &sa);
	t.sigpipe_dfl = sa.sa_handler == SIG_DFL;
	while (waitpid(-1, &st, 0) > 0) {
		t.orphans++;
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			t.orphans_killed++;
	}
	tc_frame_write(wfd, FRAME_TRAILER, (const char *)&t, sizeof(t));
	/* exit, not _exit: the sanitizer build's leak check runs here. */
	tc_buf_release(&out);
	tc_result_release(&res);
	if (call.policy != NULL)
		tc_policy_release(&pol);
	exit(0);
}

static uint32_t
get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void
got_free(struct got *g)
{
	cJSON_Delete(g->res);
	tc_buf_release(&g->so);
	tc_buf_release(&g->se);
	memset(g, 0, sizeof(*g));
}

/* Runs |sp| in a case process and reads back all it sent. */
static void
run_case(const struct spec *sp, struct got *g)
{
	struct tc_buf in;
	char buf[65536];
	const unsigned char *h;
	size_t off = 0;
	uint32_t type, len;
	double prog, last = -1;
	ssize_t n;
	pid_t pid;
	int p[2], st;

	memset(g, 0, sizeof(*g));
	g->progress_up = 1;
	tc_buf_init(&g->so, (size_t)-1);
	tc_buf_init(&g->se, (size_t)-1);
	tc_buf_init(&in, (size_t)-1);
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(p[0]);
		case_main(sp, p[1]);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		tc_buf_append(&in, buf, (size_t)n);
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	g->exited = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!g->exited) {
		unclean++;
		printf("# a case process ended with status %#x\n", st);
	}
	while (in.len - off >= TC_FRAME_HDR) {
		h = (const unsigned char *)in.data + off;
		type = get_u32(h);
		len = get_u32(h + 4);
		if (in.len - off - TC_FRAME_HDR < len)
			break;
		h += TC_FRAME_HDR;
		switch (type) {
		case TC_FRAME_STDOUT:
			tc_buf_append(&g->so, h, len);
			break;
		case TC_FRAME_STDERR:
			tc_buf_append(&g->se, h, len);
			break;
		case TC_FRAME_PROGRESS:
			memcpy(&prog, h, sizeof(prog));
			if (prog <= last)
				g->progress_up = 0;
			last = prog;
			g->nprogress++;
			snprintf(g->msg, sizeof(g->msg), "%.*s",
			    (int)(len - 2 * sizeof(double)),
			    (const char *)h + 2 * sizeof(double));
			break;
		case TC_FRAME_RESULT:
			g->res = cJSON_ParseWithLength((const char *)h, len);
			break;
		case FRAME_TRAILER:
			if (len == sizeof(g->t))
				memcpy(&g->t, h, sizeof(g->t));
			break;
		}
		off += TC_FRAME_HDR + len;
	}
	tc_buf_release(&in);
	if (g->res != NULL) {
		g->sc = cJSON_GetObjectItem(g->res, "structuredContent");
		g->text = cJSON_GetStringValue(cJSON_GetArrayItem(
		    cJSON_GetObjectItem(g->res, "content"), 0) != NULL ?
		    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(
		    g->res, "content"), 0), "text") : NULL);
		g->is_error = cJSON_IsTrue(cJSON_GetObjectItem(g->res,
		    "isError"));
	}
}

static const char *
s_str(const struct got *g, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(g->sc, name));
}

/* A number member, -1 when it is null or absent. */
static long long
s_num(const struct got *g, const char *name)
{
	const cJSON *v = cJSON_GetObjectItem(g->sc, name);

	return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

static int
s_true(const struct got *g, const char *name)
{
	return cJSON_IsTrue(cJSON_GetObjectItem(g->sc, name));
}

static int
s_null(const struct got *g, const char *name)
{
	return cJSON_IsNull(cJSON_GetObjectItem(g->sc, name));
}

/* Decodes base64 |s| into |out| (room for all).  Returns its length, or
 * -1 if |s| is not base64. */
static long
unbase64(const char *s, unsigned char *out)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(s), i, o = 0;
	uint32_t v;
	int k, pad;
	const char *c;

	if (len % 4 != 0)
		return -1;
	for (i = 0; i < len; i += 4) {
		v = 0;
		pad = 0;
		for (k = 0; k < 4; k++) {
			if (s[i + k] == '=' && i + 4 == len && k >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (pad > 0 || (c = strchr(abc, s[i + k])) == NULL ||
			    s[i + k] == '\0')
				return -1;
			v = v << 6 | (uint32_t)(c - abc);
		}
		out[o++] = (unsigned char)(v >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)v;
	}
	return (long)o;
}

static void
spec_init(struct spec *sp, const char *path)
{
	memset(sp, 0, sizeof(*sp));
	sp->path = path;
	sp->argv[0] = path;
	sp->stdin_fd = -1;
	sp->cwd_fd = -1;
	sp->max_output = MiB;
}

/* /bin/sh -c |script|. */
static void
spec_sh(struct spec *sp, const char *script)
{
	spec_init(sp, "/bin/sh");
	sp->argv[0] = "sh";
	sp->argv[1] = "-c";
	sp->argv[2] = script;
}

/* --- Cases --- */

static void
test_echo(void)
{
	struct spec sp;
	struct got g;

	spec_init(&sp, "/bin/echo");
	sp.argv[1] = "hi";
	run_case(&sp, &g);
	ok(g.exited && g.t.rc == 0 && g.res != NULL, "echo: ran and answered");
	ok(!g.is_error, "echo: not an error");
	is_str(s_str(&g, "stdout"), "hi\n", "echo: stdout");
	is_str(s_str(&g, "stderr"), "", "echo: stderr empty");
	is_int(s_num(&g, "exit_code"), 0, "echo: exit_code 0");
	ok(s_null(&g, "signal"), "echo: signal null");
	is_int(s_num(&g, "stdout_bytes"), 3, "echo: stdout_bytes");
	is_int(s_num(&g, "stderr_bytes"), 0, "echo: stderr_bytes");
	ok(!s_true(&g, "stdout_truncated") && !s_true(&g, "stderr_truncated"),
	    "echo: nothing truncated");
	ok(!s_true(&g, "timed_out"), "echo: not timed out");
	ok(s_num(&g, "duration_ms") >= 0, "echo: duration_ms");
	ok(cJSON_GetObjectItem(g.sc, "stdout_base64") == NULL,
	    "echo: no base64 unless asked");
	ok(cJSON_GetObjectItem(g.sc, "note") == NULL, "echo: no note");
	/* How it ended and the sizes first, then stderr, then stdout: a
	 * host that cuts the middle out keeps them (docs/hosts.md). */
	{
		const char *want[] = { "exit_code", "signal", "timed_out",
		    "duration_ms", "stdout_bytes", "stdout_truncated",
		    "stderr_bytes", "stderr_truncated", "stderr", "stdout" };
		const cJSON *m = g.sc != NULL ? g.sc->child : NULL;
		size_t k = 0;

		for (; m != NULL && k < sizeof(want) / sizeof(want[0]);
		    m = m->next, k++)
			if (strcmp(m->string, want[k]) != 0)
				break;
		ok(k == sizeof(want) / sizeof(want[0]) && m == NULL,
		    "echo: the members in their order");
	}
	like(g.text, "exit 0 in ", "echo: text summary");
	like(g.text, "--- stdout: 3 bytes ---\nhi\n--- stderr: 0 bytes ---",
	    "echo: text streams labelled");
	ok(g.t.sigpipe_dfl, "echo: SIGPIPE's disposition given back");
	is_int(g.t.orphans, 0, "echo: nothing left behind");
	/* Its pipes and /dev/null were opened as the run began (a ready
	 * child opens them before its call, shell_exec_ready()); all are
	 * closed after it. */
	ok(g.t.fds_before > 0 && g.t.fds_after == g.t.fds_before,
	    "echo: no fd left open in the handler (%d, %d)", g.t.fds_before,
	    g.t.fds_after);
	is_int(g.t.grown, 0, "echo: its pipes were not made larger");
	got_free(&g);
}

/* sh writing "out" and "err" and copying its input, "in", after
 * |before|: each stream in its place, and no fd left in the handler. */
static void
out_err_in(void (*before)(void), const char *what)
{
	struct spec sp;
	struct got g;

	spec_sh(&sp, "echo out; echo err >&2; cat");
	sp.stdin_data = "in\n";
	sp.stdin_len = 3;
	sp.before = before;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "out\nin\n", "%s: stdout and stdin in "
	    "place", what);
	is_str(s_str(&g, "stderr"), "err\n", "%s: stderr in place", what);
	ok(g.t.fds_after == g.t.fds_before, "%s: no fd left", what);
	got_free(&g);
}

/* The pipe2() calls, in order: the three made ahead (the first refused
 * stops them), then the run's status pipe, stdout's, stderr's, stdin's. */
static void
no_ahead(void)
{
	pipe_calls = 0;
	refuse_pipes = 1u << 0;
}

static void
no_pipes(void)
{
	pipe_calls = 0;
	refuse_pipes = 1u << 0 | 1u << 1;
}

static void
no_stderr_pipe(void)
{
	pipe_calls = 0;
	refuse_pipes = 1u << 0 | 1u << 3;
}

/* echo with pipes refused by |before|: an error saying so, no fd left. */
static void
pipes_refused(void (*before)(void), const char *what)
{
	struct spec sp;
	struct got g;

	spec_init(&sp, "/bin/echo");
	sp.before = before;
	run_case(&sp, &g);
	ok(g.is_error && g.text != NULL &&
	    strstr(g.text, "cannot make the pipes") != NULL,
	    "%s: said so", what);
	ok(g.t.fds_after == g.t.fds_before, "%s: no fd left", what);
	got_free(&g);
}

/*
 * What a program leaves that ends while it runs is reaped then, not at
 * the end: the runner's process (here a subreaper, as pid 1 of its PID
 * namespace is in a call) would otherwise hold each as a zombie, counted
 * against the call's process limit.  Twenty orphans that end 10 ms after
 * they are left, while the program runs on for 300 ms: none is a zombie
 * when the program looks, and none is left to reap after the run.
 */
static void
test_orphans_reaped(void)
{
	struct spec sp;
	struct got g;

	spec_sh(&sp, "i=0; while [ $i -lt 20 ]; do (sleep 0.01 &); "
	    "i=$((i + 1)); done; sleep 0.3; z=0; "
	    "read -r kids < /proc/$PPID/task/$PPID/children; "
	    "for c in $kids; do read -r s < /proc/$c/stat; "
	    "case \"${s##*) }\" in Z*) z=$((z + 1));; esac; done; "
	    "echo $i $z");
	run_case(&sp, &g);
	/* The program's own count, as it ends, of the zombies among its
	 * parent's children: they were reaped as they ended, not only at
	 * the end of the run. */
	is_str(s_str(&g, "stdout"), "20 0\n", "orphans: none a zombie "
	    "300 ms on, as the program runs");
	is_int(g.t.orphans, 0, "orphans: none left to reap after the run");
	got_free(&g);
}

static void
test_ahead(void)
{
	struct spec sp;
	struct got g;

	/* The pipes made before the call refused: the run makes its own. */
	out_err_in(no_ahead, "no pipes ahead");

	/* And its own refused too: an error, nothing left open. */
	pipes_refused(no_pipes, "no pipes at all");
	/* The status pipe and stdout's made, stderr's refused: what was
	 * made is closed. */
	pipes_refused(no_stderr_pipe, "no pipe for stderr");

	/* Input given, if empty: the /dev/null opened ahead goes unused,
	 * and is closed. */
	spec_sh(&sp, "cat");
	sp.stdin_data = "";
	sp.stdin_len = 0;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "", "empty stdin: nothing out");
	ok(g.t.fds_after == g.t.fds_before, "empty stdin: no fd left");
	got_free(&g);
}

static void
test_exit_codes(void)
{
	static const int codes[] = { 1, 3, 127, 255 };
	char script[32];
	struct spec sp;
	struct got g;
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		snprintf(script, sizeof(script), "exit %d", codes[i]);
		spec_sh(&sp, script);
		run_case(&sp, &g);
		is_int(s_num(&g, "exit_code"), codes[i], "exit %d", codes[i]);
		ok(!g.is_error && g.t.rc == 0, "exit %d: a result, not an "
		    "error", codes[i]);
		got_free(&g);
	}

	spec_sh(&sp, "echo before; kill -USR1 $$; echo after");
	run_case(&sp, &g);
	ok(s_null(&g, "exit_code"), "signal: exit_code null");
	is_str(s_str(&g, "signal"), "SIGUSR1", "signal: named");
	is_str(s_str(&g, "stdout"), "before\n", "signal: output kept");
	like(g.text, "killed by signal 10 (SIGUSR1) in ", "signal: summary");
	got_free(&g);
}

static void
test_streams_apart(void)
{
	struct spec sp;
	struct got g;

	spec_sh(&sp, "echo out1; echo err1 >&2; echo out2; echo err2 >&2");
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "out1\nout2\n", "apart: stdout");
	is_str(s_str(&g, "stderr"), "err1\nerr2\n", "apart: stderr");
	got_free(&g);
}

static char *
pattern(size_t n, int printable)
{
	char *p = malloc(n);
	size_t i;

	for (i = 0; p != NULL && i < n; i++)
		p[i] = printable ? (char)('a' + (i * 7 + i / 251) % 26) :
		    (char)(i * 131 + i / 253);
	return p;
}

static void
test_stdin(void)
{
	char *in = pattern(MiB, 1), *bin = pattern(MiB, 0);
	unsigned char *dec = malloc(MiB);
	struct spec sp;
	struct got g;
	const char *s;

	/* cat writes as it reads: a pump that wrote all the input before
	 * reading would block on both full pipes. */
	spec_init(&sp, "/bin/cat");
	sp.stdin_data = in;
	sp.stdin_len = MiB;
	sp.max_output = 2 * MiB;
	run_case(&sp, &g);
	is_int(s_num(&g, "stdout_bytes"), MiB, "stdin: 1 MiB out for 1 MiB in");
	s = s_str(&g, "stdout");
	ok(s != NULL && strlen(s) == MiB && memcmp(s, in, MiB) == 0,
	    "stdin: the same bytes, in order");
	ok(!s_true(&g, "stdout_truncated"), "stdin: not truncated");
	got_free(&g);

	/* Every byte value, back exactly through base64. */
	spec_init(&sp, "/bin/cat");
	sp.stdin_data = bin;
	sp.stdin_len = MiB;
	sp.binary = 1;
	run_case(&sp, &g);
	s = s_str(&g, "stdout_base64");
	ok(s != NULL && unbase64(s, dec) == (long)MiB &&
	    memcmp(dec, bin, MiB) == 0, "stdin: binary round trip exact");
	got_free(&g);

	/* It reads none of it: the handler lives on (no SIGPIPE). */
	spec_sh(&sp, "echo done");
	sp.stdin_data = in;
	sp.stdin_len = MiB;
	run_case(&sp, &g);
	ok(g.exited && g.t.rc == 0, "stdin unread: the handler lives");
	is_str(s_str(&g, "stdout"), "done\n", "stdin unread: output");
	is_int(s_num(&g, "exit_code"), 0, "stdin unread: exit 0");
	ok(g.t.sigpipe_dfl, "stdin unread: SIGPIPE given back");
	got_free(&g);

	/* Empty stdin: end of file at once. */
	spec_init(&sp, "/bin/cat");
	sp.stdin_data = "";
	run_case(&sp, &g);
	is_int(s_num(&g, "exit_code"), 0, "stdin empty: cat ends");
	is_str(s_str(&g, "stdout"), "", "stdin empty: nothing out");
	got_free(&g);

	/* No stdin: /dev/null. */
	spec_sh(&sp, "cat; [ -c /dev/stdin ] && echo chardev");
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "chardev\n", "no stdin: /dev/null");
	got_free(&g);
	free(in);
	free(bin);
	free(dec);
}

static void
test_stdin_fd(void)
{
	struct spec sp;
	struct got g;
	int p[2];

	if (pipe(p) != 0) {
		ok(0, "stdin_fd: pipe");
		return;
	}
	write_all(p[1], "job input\n", 10);
	close(p[1]);
	spec_init(&sp, "/bin/cat");
	sp.stdin_fd = p[0];
	run_case(&sp, &g);
	close(p[0]);
	is_str(s_str(&g, "stdout"), "job input\n", "stdin_fd: read through");
	is_int(s_num(&g, "exit_code"), 0, "stdin_fd: to its end");
	got_free(&g);
}

static void
test_tty(void)
{
	struct spec sp;
	struct got g;
	int p[2];

	if (access("/dev/ptmx", R_OK | W_OK) != 0) {
		skip("no /dev/ptmx here: no terminal to run on");
		return;
	}
	/* fds 0-2 the terminal; stderr comes through it, as stdout. */
	spec_sh(&sp, "test -t 0 && test -t 1 && test -t 2 && echo tty; "
	    "echo err >&2");
	sp.tty = 1;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "tty\r\nerr\r\n", "tty: fds 0-2 a "
	    "terminal, stderr through it, \\n as \\r\\n");
	is_str(s_str(&g, "stderr"), "", "tty: stderr empty");
	ok(s_true(&g, "tty"), "tty: the result says so");
	like(g.text, "it ran on a terminal", "tty: and its text");
	is_int(g.t.orphans, 0, "tty: nothing left behind");
	got_free(&g);

	/* The window child.c gives it is the caller's; this one is the
	 * kernel's (0x0): what matters is that it is asked on fd 0. */
	spec_sh(&sp, "stty size");
	sp.tty = 1;
	run_case(&sp, &g);
	is_int(s_num(&g, "exit_code"), 0, "tty: stty reads its terminal");
	got_free(&g);

	/* stdin text, then end-of-file (^D): cat ends. */
	spec_init(&sp, "/bin/cat");
	sp.stdin_data = "hello\n";
	sp.stdin_len = 6;
	sp.tty = 1;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "hello\r\nhello\r\n", "tty: typed, "
	    "echoed, read");
	is_int(s_num(&g, "exit_code"), 0, "tty: ^D after the input ends it");
	got_free(&g);

	/* A job's input, to its end. */
	if (pipe(p) != 0) {
		ok(0, "tty: pipe");
		return;
	}
	write_all(p[1], "job\n", 4);
	close(p[1]);
	spec_init(&sp, "/bin/cat");
	sp.stdin_fd = p[0];
	sp.tty = 1;
	run_case(&sp, &g);
	close(p[0]);
	is_str(s_str(&g, "stdout"), "job\r\njob\r\n", "tty: a job's input "
	    "typed");
	is_int(s_num(&g, "exit_code"), 0, "tty: and its end");
	got_free(&g);

	/* Its controlling terminal: ^C is SIGINT to its group. */
	spec_sh(&sp, "exec sleep 10");
	sp.stdin_data = "\003";
	sp.stdin_len = 1;
	sp.tty = 1;
	run_case(&sp, &g);
	is_str(s_str(&g, "signal"), "SIGINT", "tty: ^C interrupts it");
	got_free(&g);

	/* What it left holding the terminal is killed: the kernel sends
	 * SIGHUP to the foreground group when the session leader exits,
	 * so only what ignores it (from before the fork: no race) is
	 * left. */
	spec_sh(&sp, "trap '' HUP; sleep 10 & echo left");
	sp.tty = 1;
	run_case(&sp, &g);
	is_int(s_num(&g, "exit_code"), 0, "tty held: its own exit");
	like(g.text, "held its output open", "tty held: said");
	is_int(g.t.orphans, 1, "tty held: one left behind");
	is_int(g.t.orphans_killed, 1, "tty held: killed");
	got_free(&g);
}

/* head -c |n| of a printable pattern, on stdout. */
static void
spec_bytes(struct spec *sp, char *script, size_t size, unsigned long n,
    const char *to)
{
	snprintf(script, size, "i=0; while [ $i -lt %lu ]; do "
	    "printf 0123456789abcdef; i=$((i+16)); done | head -c %lu %s",
	    (n + 15) / 16 * 16, n, to);
	spec_sh(sp, script);
}

static void
test_caps(void)
{
	static const size_t caps[] = { 4096, 65536 };
	char script[256];
	struct spec sp;
	struct got g;
	const char *s;
	size_t i;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		spec_bytes(&sp, script, sizeof(script), caps[i], "");
		sp.max_output = caps[i];
		run_case(&sp, &g);
		s = s_str(&g, "stdout");
		is_int(s != NULL ? strlen(s) : 0, caps[i], "cap %zu: all of "
		    "exactly the cap kept", caps[i]);
		ok(!s_true(&g, "stdout_truncated"), "cap %zu: not truncated "
		    "at the bound", caps[i]);
		is_int(s_num(&g, "stdout_bytes"), caps[i], "cap %zu: counted",
		    caps[i]);
		got_free(&g);

		spec_bytes(&sp, script, sizeof(script), caps[i] + 1, "");
		sp.max_output = caps[i];
		run_case(&sp, &g);
		s = s_str(&g, "stdout");
		is_int(s != NULL ? strlen(s) : 0, caps[i], "cap %zu: one "
		    "over, the cap kept", caps[i]);
		ok(s_true(&g, "stdout_truncated"), "cap %zu: one over, "
		    "truncated", caps[i]);
		is_int(s_num(&g, "stdout_bytes"), caps[i] + 1, "cap %zu: one "
		    "over, counted", caps[i]);
		ok(s != NULL && strncmp(s, "0123456789abcdef0123", 20) == 0,
		    "cap %zu: the first bytes kept", caps[i]);
		like(g.text, "bytes, the first", "cap %zu: the text says it "
		    "was cut", caps[i]);
		got_free(&g);
	}

	/* A cap on stderr alone. */
	spec_bytes(&sp, script, sizeof(script), 5000, ">&2; echo out");
	sp.max_output = 100;
	run_case(&sp, &g);
	is_int(s_num(&g, "stderr_bytes"), 5000, "stderr cap: counted");
	ok(s_true(&g, "stderr_truncated") && !s_true(&g, "stdout_truncated"),
	    "stderr cap: only stderr truncated");
	is_str(s_str(&g, "stdout"), "out\n", "stderr cap: stdout whole");
	got_free(&g);

	/* Nothing kept, all counted. */
	spec_sh(&sp, "head -c 3000000 /dev/zero");
	sp.max_output = 0;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "", "cap 0: nothing kept");
	is_int(s_num(&g, "stdout_bytes"), 3000000, "cap 0: all counted");
	ok(s_true(&g, "stdout_truncated"), "cap 0: truncated");
	got_free(&g);
}

static void
test_flood(void)
{
	struct spec sp;
	struct got g;

	/* 100 MiB on each stream, at once: drained to the end, counted,
	 * the first MiB kept. */
	spec_sh(&sp, "head -c 104857600 /dev/zero >&2 & "
	    "head -c 104857600 /dev/zero; wait");
	run_case(&sp, &g);
	is_int(s_num(&g, "stdout_bytes"), 100 * MiB, "flood: stdout counted");
	is_int(s_num(&g, "stderr_bytes"), 100 * MiB, "flood: stderr counted");
	is_int(s_num(&g, "exit_code"), 0, "flood: it ended by itself");
	ok(s_true(&g, "stdout_truncated") && s_true(&g, "stderr_truncated"),
	    "flood: truncated");
	/* Each NUL is U+FFFD: 3 bytes. */
	ok(s_str(&g, "stdout") != NULL && strlen(s_str(&g, "stdout")) ==
	    3 * MiB, "flood: a MiB kept, as text");
	is_int(g.t.grown, 2, "flood: both pipes made larger");
	ok(g.t.fds_after == g.t.fds_before, "flood: no fd left");
	got_free(&g);
}

static void
test_utf8(void)
{
	unsigned char dec[64];
	struct spec sp;
	struct got g;
	const char *s;
	long n;

	/* ff fe: ill-formed; a NUL; a lone lead byte at the end. */
	spec_sh(&sp, "printf '\\377\\376a\\000b\\303'");
	sp.binary = 1;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "\xef\xbf\xbd\xef\xbf\xbd" "a"
	    "\xef\xbf\xbd" "b" "\xef\xbf\xbd", "utf8: ill-formed bytes and "
	    "NUL replaced in text");
	s = s_str(&g, "stdout_base64");
	n = s != NULL ? unbase64(s, dec) : -1;
	ok(n == 6 && memcmp(dec, "\377\376a\0b\303", 6) == 0,
	    "utf8: base64 exact");
	is_str(s, "//5hAGLD", "utf8: base64 text");
	is_str(s_str(&g, "stderr_base64"), "", "utf8: empty stderr_base64");
	got_free(&g);

	/* A cut inside a character: the text drops the piece, base64 has
	 * it. */
	spec_sh(&sp, "printf '\\303\\251\\303\\251\\303\\251'");
	sp.binary = 1;
	sp.max_output = 5;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "\xc3\xa9\xc3\xa9", "utf8 cut: whole "
	    "characters in text");
	s = s_str(&g, "stdout_base64");
	n = s != NULL ? unbase64(s, dec) : -1;
	ok(n == 5 && memcmp(dec, "\303\251\303\251\303", 5) == 0,
	    "utf8 cut: the 5 kept bytes in base64");
	is_int(s_num(&g, "stdout_bytes"), 6, "utf8 cut: 6 bytes counted");
	got_free(&g);

	/* base64 of each length mod 3. */
	spec_sh(&sp, "printf a; printf ab >&2");
	sp.binary = 1;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout_base64"), "YQ==", "base64: one byte");
	is_str(s_str(&g, "stderr_base64"), "YWI=", "base64: two bytes");
	got_free(&g);
}

static void
test_timeout(void)
{
	struct spec sp;
	struct got g;

	/* A grandchild in its group holds the pipes: both killed. */
	/* Timeouts leave the shell ample time to start: the cases are
	 * about what happens at the timeout, not about the machine's
	 * speed. */
	spec_sh(&sp, "echo started; sleep 100 & wait");
	sp.timeout_ms = 1000;
	run_case(&sp, &g);
	ok(s_true(&g, "timed_out"), "timeout: timed_out");
	ok(s_null(&g, "exit_code"), "timeout: no exit code");
	is_str(s_str(&g, "signal"), "SIGTERM", "timeout: SIGTERM first");
	is_str(s_str(&g, "stdout"), "started\n", "timeout: output kept");
	like(g.text, "; timed out after 1000 ms", "timeout: summary");
	ok(s_num(&g, "duration_ms") >= 1000, "timeout: not before its time");
	ok(g.exited, "timeout: the run ended");
	got_free(&g);

	/* SIGTERM ignored: SIGKILL after the grace. */
	spec_sh(&sp, "trap '' TERM; echo deaf; sleep 100; echo after");
	sp.timeout_ms = 1000;
	run_case(&sp, &g);
	ok(s_true(&g, "timed_out"), "deaf: timed_out");
	is_str(s_str(&g, "signal"), "SIGKILL", "deaf: SIGKILL");
	is_str(s_str(&g, "stdout"), "deaf\n", "deaf: output kept");
	got_free(&g);

	/* Its stdout and stderr closed, still running. */
	spec_sh(&sp, "exec >&- 2>&-; sleep 100");
	sp.timeout_ms = 200;
	run_case(&sp, &g);
	ok(s_true(&g, "timed_out"), "closed pipes: timed_out");
	ok(s_str(&g, "signal") != NULL, "closed pipes: killed");
	got_free(&g);
}

static void
test_held(void)
{
	struct spec sp;
	struct got g;

	/* It exits; the sleep it left holds stdout.  No timeout: the run
	 * ends anyway, with its exit, and the sleep is killed. */
	spec_sh(&sp, "sleep 100 & echo hi");
	run_case(&sp, &g);
	ok(g.exited && g.res != NULL, "held: the run ended");
	is_int(s_num(&g, "exit_code"), 0, "held: its own exit");
	ok(!s_true(&g, "timed_out"), "held: not timed out");
	is_str(s_str(&g, "stdout"), "hi\n", "held: output");
	like(g.text, "held its output open after it exited",
	    "held: the text says so");
	like(s_str(&g, "note"), "held its output open after it exited: they "
	    "were killed", "held: and the structured note");
	is_int(g.t.orphans, 1, "held: one left behind");
	is_int(g.t.orphans_killed, 1, "held: killed with SIGKILL");
	got_free(&g);

	/* Left behind, not holding the output: killed with its group. */
	spec_sh(&sp, "sleep 100 >/dev/null 2>&1 & echo hi");
	run_case(&sp, &g);
	is_int(s_num(&g, "exit_code"), 0, "left: its own exit");
	ok(g.text != NULL && strstr(g.text, "held") == NULL,
	    "left: nothing held");
	is_int(g.t.orphans_killed, 1, "left: its group killed");
	got_free(&g);
}

static void
mark_known(void)
{
	late_arm();
	known_mark = 1;
}

static void
mark_refused(void)
{
	late_arm();
	known_mark = -1;
}

/*
 * A terminal's mark (shell_run.c: what the handler writes to its own
 * slave once the program has exited, and reads the master up to), made
 * known here, "#AAAAAAAAAAAAAAA", with the program's last bytes unread
 * at its exit (as test_late()), so that they are read while the mark is
 * awaited: bytes that start as the mark does are output all the same,
 * however far they go (the last, 15 of its 16 bytes, then the mark
 * itself, whose first byte ends them), and the mark is not.  Without
 * randomness for a mark, the master's end of file ends the output, as
 * it did before marks.
 */
#define MARK_TAIL	"x#AAAA#A#AAAAB#AAAAAAAAAAAAAA"

static void
test_mark(void)
{
	struct spec sp;
	struct got g;
	char want[64];

	if (access("/dev/ptmx", R_OK | W_OK) != 0) {
		skip("no /dev/ptmx here: no terminal to run on");
		return;
	}
	snprintf(want, sizeof(want), "one\r\n%s", MARK_TAIL);
	spec_sh(&sp, "echo one; sleep 0.1; printf '" MARK_TAIL "'");
	sp.tty = 1;
	sp.stream = 1;
	sp.before = mark_known;
	run_case(&sp, &g);
	if (!g.t.late)
		skip("no pidfd for the program here: the moment never came");
	else {
		is_str(g.so.data != NULL ? g.so.data : "", want, "mark: the "
		    "program's bytes that look like its start are output");
		is_int(s_num(&g, "stdout_bytes"), strlen(want), "mark: "
		    "counted, the mark not");
		is_int(s_num(&g, "exit_code"), 0, "mark: its exit");
		ok(g.text != NULL && strstr(g.text, "held") == NULL,
		    "mark: nothing held its output");
	}
	got_free(&g);

	spec_sh(&sp, "echo one; sleep 0.1; echo two");
	sp.tty = 1;
	sp.stream = 1;
	sp.before = mark_refused;
	run_case(&sp, &g);
	if (!g.t.late)
		skip("no pidfd for the program here: the moment never came");
	else {
		is_str(g.so.data != NULL ? g.so.data : "", "one\r\ntwo\r\n",
		    "no mark: every byte, to the master's end");
		ok(g.text != NULL && strstr(g.text, "held") == NULL,
		    "no mark: nothing held its output");
	}
	got_free(&g);

	/* A terminal stopped by ^S typed into it takes no mark: given up
	 * on at the second, and the run ends on its own exit, with no word
	 * of processes that held its output (there were none). */
	spec_sh(&sp, "sleep 0.3");
	sp.tty = 1;
	sp.stdin_data = "\023";
	sp.stdin_len = 1;
	run_case(&sp, &g);
	is_int(s_num(&g, "exit_code"), 0, "stopped: its exit");
	ok(g.text != NULL && strstr(g.text, "held") == NULL,
	    "stopped: nothing held its output, and the text does not say so");
	got_free(&g);
}

/*
 * The handler late just after it noted the program's exit (descheduled,
 * on a busy machine), with the last bytes the program wrote before it
 * exited still unread, its first line read: by the clock, nothing came
 * for longer than the output may be held after the exit.  Every byte is in the result all the
 * same, and it does not say that processes left behind held the output:
 * there were none.  On pipes, and on a terminal, whose master reads EIO
 * once the program has gone, after the bytes it wrote.
 */
static void
test_late(void)
{
	static const char *const how[] = { "pipes", "tty" };
	static const char *const want[] = { "one\ntwo\nthree\n",
	    "one\r\ntwo\r\nthree\r\n" };
	struct spec sp;
	struct got g;
	int k;

	for (k = 0; k < 2; k++) {
		if (k == 1 && access("/dev/ptmx", R_OK | W_OK) != 0) {
			skip("no /dev/ptmx here: no terminal to run on");
			continue;
		}
		spec_sh(&sp, "echo one; sleep 0.1; echo two; echo three");
		sp.tty = k;
		sp.stream = 1;
		sp.before = late_arm;
		run_case(&sp, &g);
		if (!g.t.late) {
			skip("no pidfd for the program here: the moment never "
			    "came");
			got_free(&g);
			continue;
		}
		ok(g.exited && g.res != NULL, "late %s: the run ended", how[k]);
		is_int(s_num(&g, "exit_code"), 0, "late %s: its exit", how[k]);
		is_str(g.so.data != NULL ? g.so.data : "", want[k],
		    "late %s: every byte it wrote before its exit", how[k]);
		is_int(s_num(&g, "stdout_bytes"), strlen(want[k]), "late %s: "
		    "counted", how[k]);
		ok(g.text != NULL && strstr(g.text, "held") == NULL,
		    "late %s: nothing held its output, and the text does not "
		    "say so", how[k]);
		got_free(&g);
	}
}

/*
 * A process left behind that writes without end after the program's
 * exit, past the most that output may be held: the handler's last look
 * at each stream reads 2 MiB of it (shell_run.c's LAST_LOOK_MAX, past
 * what any kernel buffers for a pipe or a terminal) and no more than a
 * turn's reads beyond, then stops, and the result says that something
 * held the output.  Without that bound, the last look would never end.
 */
static void
test_endless(void)
{
	const unsigned long long look = 2 * MiB, turn = 16 * 64 * 1024;
	long long so, se;
	struct spec sp;
	struct got g;

	/* Its first line read, then its exit noted apart. */
	spec_sh(&sp, "echo start; sleep 0.1; sleep 100 & exit 0");
	sp.max_output = 4096;
	sp.before = endless_arm;
	run_case(&sp, &g);
	/* A case process that did not end (its alarm) is a failure. */
	if (g.exited && !g.t.late) {
		skip("no pidfd for the program here: the moment never came");
		got_free(&g);
		return;
	}
	so = s_num(&g, "stdout_bytes") - (long long)strlen("start\n");
	se = s_num(&g, "stderr_bytes");
	ok(g.exited && g.res != NULL, "endless: the run ended");
	is_int(s_num(&g, "exit_code"), 0, "endless: its own exit");
	ok(g.t.endless == (unsigned long long)(so + se), "endless: every "
	    "byte after the exit was its last look's (%llu)", g.t.endless);
	ok(so >= (long long)look && so < (long long)(look + turn),
	    "endless: the last look read 2 MiB of stdout, and less than a "
	    "turn beyond (%lld)", so);
	ok(se >= (long long)look && se < (long long)(look + turn),
	    "endless: and of stderr (%lld)", se);
	like(g.text, "held its output open after it exited",
	    "endless: the text says the output was held");
	is_int(g.t.orphans_killed, 1, "endless: what was left was killed");
	got_free(&g);
}

static void
test_start_errors(void)
{
	struct spec sp;
	struct got g;

	spec_init(&sp, "/nonexistent/prog");
	run_case(&sp, &g);
	ok(g.t.rc != 0, "no such program: a code");
	ok(g.is_error, "no such program: an error result");
	like(g.text, "cannot run '/nonexistent/prog': No such file or "
	    "directory", "no such program: said precisely");
	is_int(g.t.orphans, 0, "no such program: reaped");
	got_free(&g);

	spec_init(&sp, "/etc/passwd");
	run_case(&sp, &g);
	like(g.text, "cannot run '/etc/passwd': Permission denied",
	    "not executable: said precisely");
	got_free(&g);
}

static void
test_cwd_env(void)
{
	static char foo[] = "FOO=bar baz", path[] = "PATH=/usr/bin:/bin";
	char *const env[] = { foo, path, NULL };
	char dir[] = "/tmp/test-shellrun.XXXXXX", want[64];
	struct spec sp;
	struct got g;
	int fd;

	if (mkdtemp(dir) == NULL ||
	    (fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		ok(0, "cwd: a directory");
		return;
	}
	spec_init(&sp, "/bin/pwd");
	sp.cwd_fd = fd;
	run_case(&sp, &g);
	snprintf(want, sizeof(want), "%s\n", dir);
	is_str(s_str(&g, "stdout"), want, "cwd: runs there");
	got_free(&g);
	close(fd);
	rmdir(dir);

	spec_init(&sp, "/usr/bin/env");
	sp.envp = env;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "FOO=bar baz\nPATH=/usr/bin:/bin\n",
	    "env: exactly what it was given");
	got_free(&g);
}

/* Before the run: a fd without close-on-exec, SIGINT ignored, SIGTERM
 * blocked. */
static void
leave_state(void)
{
	sigset_t set;
	int fd = open("/dev/null", O_WRONLY);

	if (fd >= 0 && fd != 9) {
		dup2(fd, 9);
		close(fd);
	}
	signal(SIGINT, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Also: close_range() and clone(CLONE_PIDFD) refused, as a profile may
 * refuse them: the fallbacks. */
static void
leave_state_filtered(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	leave_state();
	if (ctx == NULL ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(close_range),
	    0) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_PIDFD, CLONE_PIDFD)) != 0 ||
	    seccomp_load(ctx) != 0)
		_exit(91);
	seccomp_release(ctx);
}

static void
close_stdio(void)
{
	close(0);
	close(1);
	close(2);
}

static void
ignore_sigchld(void)
{
	signal(SIGCHLD, SIG_IGN);
}

static void
test_inherited(void)
{
	struct spec sp;
	struct got g;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		const char *how = pass ? " (fallbacks)" : "";

		/* fd 9: open in the handler, not in the program.  The
		 * channel's fd too (the case's pipe). */
		spec_sh(&sp, "if (: >&9) 2>/dev/null; then echo fd9; fi; "
		    "for fd in 3 4 5 6 7 8; do if (: >&$fd) 2>/dev/null; "
		    "then echo open $fd; fi; done; echo ok");
		sp.before = pass ? leave_state_filtered : leave_state;
		run_case(&sp, &g);
		is_str(s_str(&g, "stdout"), "ok\n", "no fd but 0-2 "
		    "inherited%s", how);
		got_free(&g);

		spec_sh(&sp, "kill -INT $$; echo survived");
		sp.before = pass ? leave_state_filtered : leave_state;
		run_case(&sp, &g);
		is_str(s_str(&g, "signal"), "SIGINT", "an ignored signal at "
		    "its default%s", how);
		got_free(&g);

		spec_sh(&sp, "kill -TERM $$; echo survived");
		sp.before = pass ? leave_state_filtered : leave_state;
		run_case(&sp, &g);
		is_str(s_str(&g, "signal"), "SIGTERM", "no signal blocked%s",
		    how);
		got_free(&g);
	}

	/* A handler with none of 0-2 open: its pipes take those numbers. */
	out_err_in(close_stdio, "no stdio in the handler");

	/* SIGCHLD ignored in the handler would reap it unseen. */
	spec_init(&sp, "/bin/echo");
	sp.argv[1] = "hi";
	sp.before = ignore_sigchld;
	run_case(&sp, &g);
	is_int(s_num(&g, "exit_code"), 0, "SIGCHLD ignored: its exit seen");
	is_str(s_str(&g, "stdout"), "hi\n", "SIGCHLD ignored: its output");
	got_free(&g);

	/* Without a pidfd, the exit is seen by looking: still on time. */
	spec_sh(&sp, "sleep 100 & echo hi");
	sp.before = leave_state_filtered;
	run_case(&sp, &g);
	is_int(s_num(&g, "exit_code"), 0, "no pidfd: held output, its exit");
	is_int(g.t.orphans_killed, 1, "no pidfd: what it left killed");
	got_free(&g);

	spec_sh(&sp, "sleep 100");
	sp.before = leave_state_filtered;
	sp.timeout_ms = 200;
	run_case(&sp, &g);
	ok(s_true(&g, "timed_out") && s_str(&g, "signal") != NULL,
	    "no pidfd: timeout");
	got_free(&g);
}

/* Signals only to its own group, as seccomp.c allows a profile without a
 * PID namespace or Landlock's signal scope. */
static void
own_group_signals(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (ctx == NULL ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1,
	    SCMP_A0(SCMP_CMP_NE, 0)) != 0 ||
	    seccomp_load(ctx) != 0)
		_exit(91);
	seccomp_release(ctx);
}

static void
test_unkillable(void)
{
	struct spec sp;
	struct got g;

	spec_sh(&sp, "echo x; sleep 1.5");
	sp.before = own_group_signals;
	sp.timeout_ms = 1000;
	run_case(&sp, &g);
	ok(g.exited && g.t.rc == 0 && !g.is_error, "unkillable: a result");
	ok(s_true(&g, "timed_out"), "unkillable: timed_out");
	ok(s_null(&g, "exit_code") && s_null(&g, "signal"),
	    "unkillable: neither exit code nor signal");
	is_str(s_str(&g, "stdout"), "x\n", "unkillable: output kept");
	like(g.text, "still running after ", "unkillable: summary");
	like(g.text, "could not be signalled", "unkillable: says why");
	like(s_str(&g, "note"), "could not be signalled",
	    "unkillable: the note too");
	got_free(&g);

	/* It exits; what it left holds its output and cannot be killed
	 * from here either. */
	spec_sh(&sp, "sleep 1 & echo hi");
	sp.before = own_group_signals;
	run_case(&sp, &g);
	is_int(s_num(&g, "exit_code"), 0, "unkillable held: its own exit");
	is_str(s_str(&g, "stdout"), "hi\n", "unkillable held: output");
	like(g.text, "could not be signalled from here and are killed as the "
	    "call ends", "unkillable held: says so");
	got_free(&g);
}

static void
test_stream(void)
{
	struct spec sp;
	struct got g;

	spec_sh(&sp, "echo a; echo b >&2; echo c; echo d >&2");
	sp.stream = 1;
	run_case(&sp, &g);
	is_str(g.so.data, "a\nc\n", "stream: stdout frames");
	is_str(g.se.data, "b\nd\n", "stream: stderr frames");
	/* The output is the job's: the result counts it, keeps none. */
	is_str(s_str(&g, "stdout"), "", "stream: not in the result");
	is_int(s_num(&g, "stdout_bytes"), 4, "stream: counted there");
	ok(s_true(&g, "stdout_truncated"), "stream: said so");
	like(g.text, "--- stdout: 4 bytes, in the job's output ---",
	    "stream: the text says where it is");
	got_free(&g);

	/* Past the cap, streamed still. */
	spec_sh(&sp, "head -c 300000 /dev/zero | tr '\\0' x");
	sp.stream = 1;
	sp.max_output = 10;
	run_case(&sp, &g);
	is_int(g.so.len, 300000, "stream: all of it past the cap");
	is_int(s_num(&g, "stdout_bytes"), 300000, "stream: counted");
	is_str(s_str(&g, "stdout"), "", "stream: none kept past the cap");
	got_free(&g);

	/* Not asked: no frames. */
	spec_sh(&sp, "echo a");
	run_case(&sp, &g);
	is_int(g.so.len, 0, "no stream: no frames");
	got_free(&g);

	/* No channel at all (not in a child): the same result. */
	spec_sh(&sp, "echo a");
	sp.stream = 1;
	sp.no_io = 1;
	run_case(&sp, &g);
	is_str(s_str(&g, "stdout"), "a\n", "no channel: runs");
	got_free(&g);
}

static void
test_progress(void)
{
	struct spec sp;
	struct got g;

	spec_sh(&sp, "echo start; sleep 2.5");
	run_case(&sp, &g);
	ok(g.nprogress >= 1, "progress: sent for a run past a second (%d)",
	    g.nprogress);
	ok(g.progress_up, "progress: each above the last");
	like(g.msg, " s, 6 B out", "progress: time and bytes");
	got_free(&g);
}

/*
 * A stream over 64 KiB is whole in structuredContent and a view in the
 * text (its first 16 KiB, a line saying what is left out, its last
 * 48 KiB), so a long output is in the result about once, not twice.
 */
static void
test_view(void)
{
	struct spec sp;
	struct got g;
	const char *so, *marker;

	/* 220,000 bytes: "line N" lines, so head and tail can be told. */
	spec_sh(&sp, "i=0; while [ $i -lt 20000 ]; do "
	    "printf 'line %05d\\n' $i; i=$((i+1)); done; echo err >&2");
	sp.max_output = 1 << 20;
	sp.max_result = 1 << 20;
	run_case(&sp, &g);
	so = s_str(&g, "stdout");
	is_int(s_num(&g, "stdout_bytes"), 220000, "view: stdout counted");
	ok(so != NULL && strlen(so) == 220000 && !s_true(&g,
	    "stdout_truncated"), "view: structured stdout whole");
	ok(g.text != NULL && strstr(g.text, "line 00000\n") != NULL &&
	    strstr(g.text, "line 19999\n") != NULL, "view: the text has the "
	    "first line and the last");
	ok(g.text != NULL && strstr(g.text, "line 10000\n") == NULL,
	    "view: and not the middle");
	marker = g.text != NULL ? strstr(g.text, "bytes left out here: "
	    "stdout in full is in structuredContent.stdout ...]") : NULL;
	ok(marker != NULL, "view: the text says where the rest is");
	ok(g.text != NULL && strstr(g.text, "--- stderr: 4 bytes ---\nerr\n")
	    != NULL, "view: a short stream whole in the text");
	/* Once whole and escaped (each newline 2 bytes: 240,000), the view
	 * (64 KiB and its newlines), the rest: well under twice. */
	ok(g.t.serialized && g.t.result_len < 240000 + 72000 + 2048,
	    "view: the result holds stdout about once (%zu bytes, against "
	    "%d for two copies)", g.t.result_len, 2 * 240000);
	got_free(&g);
}

/*
 * 5 MiB with its exact bytes: base64 whole, the string a view, and the
 * result under the 9 MiB the official client takes by default.
 */
static void
test_view_binary(void)
{
	struct spec sp;
	struct got g;
	const char *b64, *so;

	spec_sh(&sp, "yes abcdefg | head -c 5242880");
	sp.max_output = 8 << 20;
	sp.binary = 1;
	run_case(&sp, &g);
	b64 = s_str(&g, "stdout_base64");
	so = s_str(&g, "stdout");
	is_int(s_num(&g, "stdout_bytes"), 5242880, "view binary: counted");
	ok(!s_true(&g, "stdout_truncated"), "view binary: not cut");
	ok(b64 != NULL && strlen(b64) == (5242880 + 2) / 3 * 4 &&
	    strncmp(b64, "YWJjZGVmZwphYmNkZWZnCm", 22) == 0,
	    "view binary: base64 of every byte");
	ok(so != NULL && strlen(so) < (80u << 10) && strstr(so,
	    "structuredContent.stdout_base64 ...]") != NULL,
	    "view binary: the string is the view, pointing at the base64");
	ok(g.t.serialized && g.t.result_len < ((size_t)9 << 20),
	    "view binary: the result is under 9 MiB (%zu bytes)",
	    g.t.result_len);
	got_free(&g);
}

static void
test_budget(void)
{
	char script[256];
	struct spec sp;
	struct got g;
	const char *s;
	int binary;

	/* The result fits the output limit, cut further than max_output;
	 * the counts stay exact. */
	for (binary = 0; binary < 2; binary++) {
		spec_bytes(&sp, script, sizeof(script), 100000,
		    "; head -c 50000 /dev/zero >&2");
		sp.max_result = 8192;
		sp.binary = binary;
		run_case(&sp, &g);
		ok(g.t.serialized && g.t.result_len <= 8192, "budget%s: the "
		    "result fits (%zu bytes)", binary ? " binary" : "",
		    g.t.result_len);
		ok(g.t.result_len > 6000, "budget%s: and uses the room",
		    binary ? " binary" : "");
		is_int(s_num(&g, "stdout_bytes"), 100000, "budget: stdout "
		    "counted");
		is_int(s_num(&g, "stderr_bytes"), 50000, "budget: stderr "
		    "counted");
		ok(s_true(&g, "stdout_truncated") && s_true(&g,
		    "stderr_truncated"), "budget: both truncated");
		s = s_str(&g, "stdout");
		ok(s != NULL && strlen(s) > 500 &&
		    strncmp(s, "0123456789abcdef", 16) == 0,
		    "budget: stdout's first bytes");
		got_free(&g);
	}

	/* Within it: untouched. */
	spec_sh(&sp, "echo small");
	sp.max_result = 8192;
	run_case(&sp, &g);
	ok(!s_true(&g, "stdout_truncated"), "budget: a small result whole");
	got_free(&g);

	/* Within it when counted exactly, not by the bound of 6 bytes a
	 * byte: whole too. */
	spec_bytes(&sp, script, sizeof(script), 3000, "");
	sp.max_result = 8192;
	run_case(&sp, &g);
	ok(!s_true(&g, "stdout_truncated") && s_str(&g, "stdout") != NULL &&
	    strlen(s_str(&g, "stdout")) == 3000, "budget: counted exactly, "
	    "3000 bytes whole");
	ok(g.t.result_len <= 8192, "budget: and within it");
	got_free(&g);
}

/*
 * Output is counted as it comes (shell_run.c, count_some()), and pauses
 * between a character's bytes make reads that cut it: five two-byte
 * characters and an ill-formed part (one U+FFFD, three bytes in JSON),
 * each cut across two reads, then "A".  Counted exactly, 14 bytes, the
 * stream fits a budget with room for twice that and not one byte less.
 */
static void
test_budget_split(void)
{
	static const char script[] =
	    "for i in 1 2 3 4 5; do printf '\\303'; sleep 0.02; "
	    "printf '\\251'; sleep 0.02; done; printf '\\342'; sleep 0.02; "
	    "printf '\\202'; sleep 0.02; printf A";
	static const char want[] = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xef\xbf\xbd" "A";
	struct spec sp;
	struct got g;
	int room;

	for (room = 28; room >= 27; room--) {
		spec_sh(&sp, script);
		/* RESULT_OVERHEAD (1024) and the room for the streams, the
		 * text's copy and the structured one. */
		sp.max_result = 1024 + (size_t)room;
		run_case(&sp, &g);
		is_int(s_num(&g, "stdout_bytes"), 13, "split characters: "
		    "13 bytes written");
		if (room == 28)
			ok(!s_true(&g, "stdout_truncated") && s_str(&g,
			    "stdout") != NULL && strcmp(s_str(&g, "stdout"),
			    want) == 0, "split characters: counted exactly, "
			    "whole in room for 2 x 14 bytes");
		else
			ok(s_true(&g, "stdout_truncated"), "split characters: "
			    "cut in room for one byte less");
		got_free(&g);
	}
}

/*
 * The count of a stream's JSON size steps over plain bytes sixteen or
 * eight at a time (shell_run.c, plain_run()): a byte that needs an escape
 * (newline, quote, backslash, tab, a control byte of six) at each offset
 * of 40-byte blocks, nine bytes before a two-byte character (the two
 * often in one step), passed through cat.  Counted exactly (as json.c,
 * which scans otherwise, says), the stream fits a budget with room for
 * twice its cost and not one byte less.
 */
static void
test_budget_escapes(void)
{
	static char text[40 * 40 + 1];
	size_t n = 0, cost;
	struct spec sp;
	struct got g;
	int k, less;

	for (k = 0; k < 40; k++, n += 40) {
		memset(text + n, 'a', 40);
		text[n + (size_t)k] = "\n\"\\\t\x01"[k % 5];
		memcpy(text + n + (size_t)(k + 9) % 38, "\xc3\xa9", 2);
	}
	cost = tc_json_string_len(text, n) - 2;
	for (less = 0; less < 2; less++) {
		spec_init(&sp, "/bin/cat");
		sp.stdin_data = text;
		sp.stdin_len = n;
		sp.max_result = 1024 + 2 * cost - (size_t)less;
		run_case(&sp, &g);
		if (!less)
			ok(!s_true(&g, "stdout_truncated") && s_str(&g,
			    "stdout") != NULL && strcmp(s_str(&g, "stdout"),
			    text) == 0, "escapes at every offset: counted "
			    "exactly, whole in room for 2 x %zu bytes", cost);
		else
			ok(s_true(&g, "stdout_truncated"), "escapes at every "
			    "offset: cut in room for one byte less");
		got_free(&g);
	}
}

static void
test_many(void)
{
	struct spec sp;
	struct got g;
	int i, bad = 0;

	for (i = 0; i < 300; i++) {
		spec_init(&sp, "/bin/echo");
		sp.argv[1] = "hi";
		run_case(&sp, &g);
		if (s_str(&g, "stdout") == NULL ||
		    strcmp(s_str(&g, "stdout"), "hi\n") != 0 ||
		    s_num(&g, "exit_code") != 0)
			bad++;
		got_free(&g);
	}
	is_int(bad, 0, "300 runs of echo hi: none lost");
}

int
main(void)
{
	test_echo();
	test_ahead();
	test_orphans_reaped();
	test_exit_codes();
	test_streams_apart();
	test_stdin();
	test_stdin_fd();
	test_tty();
	test_caps();
	test_flood();
	test_utf8();
	test_timeout();
	test_held();
	test_late();
	test_mark();
	test_endless();
	test_start_errors();
	test_cwd_env();
	test_inherited();
	test_unkillable();
	test_stream();
	test_progress();
	test_budget();
	test_budget_split();
	test_budget_escapes();
	test_view();
	test_view_binary();
	test_many();
	/* A sanitizer report (a leak) fails its case process. */
	is_int(unclean, 0, "every case process ended cleanly");
	return done_testing();
}
