/*
 * hook.c: the consent hook runner: the server's side (start, step, kill),
 * the keeper that runs the hook and kills whatever it leaves, and the
 * hook's own start (stdio, signals, environment, exec).  See hook.h for
 * the protocol and for why a keeper.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/clock.h"
#include "sandbox/fd.h"
#include "sandbox/hook.h"
#include "sandbox/sig.h"
#include "sandbox/keeper.h"
#include "base/text.h"

#define HOOK_NAME_MAX	128	/* of TOOLCELL_SERVER and TOOLCELL_TOOL */

/* The variables tc_hook_env_capture() keeps; see hook.h. */
static const char *const env_names[] = {
	"HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_MESSAGES", "TERM",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR",
	"DBUS_SESSION_BUS_ADDRESS",
};

/* The hook's PATH: not const, as execve() wants the strings. */
static char env_path[] = "PATH=" TC_HOOK_PATH;

/* "NAME=value" for each of env_names that was set, or NULL. */
static char *env_kept[TC_NITEMS(env_names)];

/*
 * Records on the report pipe, from the keeper and from the child that
 * would have become the hook.  Both are forks of this process, so the
 * byte order is ours; each record is far below PIPE_BUF, so it is
 * written whole.
 */
enum rep_type {
	REP_EXEC = 1,		/* value: errno of execve() */
	REP_STATUS,		/* value: the hook's wait status */
	REP_KEEPER,		/* value: errno of a failed step before exec */
	REP_GONE,		/* value: ENOENT, or ESTALE: argv[0] is no
				   longer the file to run */
};

struct rep {
	int32_t		 type;
	int32_t		 value;
};

/* What the keeper needs, prepared before the fork. */
struct spawn {
	char *const	*argv;
	char		**envp;
	int		 exec_fd;	/* the program to run, or -1: argv[0] */
	int		 script;	/* exec_fd starts with "#!" */
	int		 in_r;		/* the hook's stdin */
	int		 out_w;		/* the hook's stdout */
	int		 rep_w;
	int		 ctl_r;
	int		 null_stderr;	/* give it /dev/null as stderr */
};

const char *
tc_hook_answer_str(enum tc_hook_answer a)
{
	switch (a) {
	case TC_HOOK_ALLOW:
		return "allow";
	case TC_HOOK_ALLOW_SESSION:
		return "session";
	case TC_HOOK_DENY:
		return "deny";
	case TC_HOOK_FAILED:
		break;
	}
	return "failed";
}

void
tc_hook_env_capture(void)
{
	const char *v;
	size_t i, n;

	for (i = 0; i < TC_NITEMS(env_names); i++) {
		free(env_kept[i]);
		env_kept[i] = NULL;
		if ((v = getenv(env_names[i])) == NULL)
			continue;
		n = strlen(env_names[i]) + 1 + strlen(v) + 1;
		/* Out of memory at start: the hook goes without it. */
		if ((env_kept[i] = malloc(n)) != NULL)
			snprintf(env_kept[i], n, "%s=%s", env_names[i], v);
	}
}

void
tc_hook_init(struct tc_hook *h)
{
	memset(h, 0, sizeof(*h));
	h->pid = -1;
	h->pidfd = -1;
	h->in_fd = -1;
	h->out_fd = -1;
	h->rep_fd = -1;
	h->ctl_fd = -1;
	h->done = 1;
	h->answer = TC_HOOK_FAILED;
}

/* --- The hook's environment --- */

/* Returns 1 if |s| may be a TOOLCELL_SERVER or TOOLCELL_TOOL value. */
static int
plain_name(const char *s)
{
	size_t n;

	for (n = 0; s[n] != '\0'; n++)
		if (n >= HOOK_NAME_MAX || !isgraph((unsigned char)s[n]))
			return 0;
	return n > 0;
}

/* Frees an environment made by build_env(). */
static void
free_env(char **envp)
{
	size_t i;

	if (envp == NULL)
		return;
	/* The captured variables are borrowed; the rest are ours. */
	for (i = 0; envp[i] != NULL; i++)
		if (strncmp(envp[i], "TOOLCELL_", 9) == 0)
			free(envp[i]);
	free(envp);
}

/* Appends "NAME=value" (a copy) to |envp|.  Returns 0 or -1. */
static int
add_env(char **envp, size_t *n, const char *name, const char *value)
{
	size_t len = strlen(name) + 1 + strlen(value) + 1;

	if ((envp[*n] = malloc(len)) == NULL)
		return -1;
	snprintf(envp[(*n)++], len, "%s=%s", name, value);
	return 0;
}

/*
 * Builds the hook's environment for the document |json|, which must be an
 * object with "server" and "tool" strings.  Returns 0 with |*out| set (the
 * caller frees it with free_env()), or a TC_E* code with |d| set.
 */
static int
build_env(const char *json, size_t len, int timeout_ms, char ***out,
    struct tc_diag *d)
{
	const char *server, *tool;
	char **envp, ms[24];
	size_t i, n = 0;
	cJSON *doc;
	int rc = TC_ENOMEM;

	*out = NULL;
	if ((doc = cJSON_ParseWithLength(json, len)) == NULL ||
	    !cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return tc_diag(d, TC_EINVAL, "the consent hook's input is not "
		    "a JSON object");
	}
	server = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc,
	    "server"));
	tool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc,
	    "tool"));
	if (server == NULL || tool == NULL || !plain_name(server) ||
	    !plain_name(tool)) {
		cJSON_Delete(doc);
		return tc_diag(d, TC_EINVAL, "the consent hook's input names "
		    "no server or no tool");
	}
	/* PATH, the captured ones, three of ours, NULL. */
	if ((envp = calloc(TC_NITEMS(env_names) + 5, sizeof(*envp))) == NULL)
		goto out;
	envp[n++] = env_path;
	for (i = 0; i < TC_NITEMS(env_names); i++)
		if (env_kept[i] != NULL)
			envp[n++] = env_kept[i];
	snprintf(ms, sizeof(ms), "%d", timeout_ms);
	if (add_env(envp, &n, "TOOLCELL_SERVER", server) != 0 ||
	    add_env(envp, &n, "TOOLCELL_TOOL", tool) != 0 ||
	    add_env(envp, &n, "TOOLCELL_TIMEOUT_MS", ms) != 0) {
		free_env(envp);
		goto out;
	}
	*out = envp;
	rc = 0;
out:
	cJSON_Delete(doc);
	return rc == 0 ? 0 : tc_diag(d, rc, "cannot start the consent hook: "
	    "out of memory");
}

/* --- The hook: the keeper's child, up to exec --- */

/*
 * Writes a record to the report pipe.  A failure is not reported: the
 * server then finds no record, and says the hook could not be run.
 */
static void
report(int fd, enum rep_type type, int value)
{
	struct rep r = { (int32_t)type, (int32_t)value };
	ssize_t w;

	do
		w = write(fd, &r, sizeof(r));
	while (w < 0 && errno == EINTR);
}

/*
 * Every signal back to its default disposition and none blocked: the
 * server ignores SIGPIPE, which exec would keep, and the keeper blocks
 * everything, which exec would keep too.  Handlers are reset by exec
 * itself, so only the ignored ones matter, but all are reset.
 */
static void
reset_signals(void)
{
	sigset_t none;
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)tc_signal_default(sig);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the keeper's child: becomes the hook, or reports why not. */
static noreturn void
exec_hook(const struct spawn *sp)
{
	int keep[2] = { sp->rep_w, sp->exec_fd };

	/* stdin, stdout and stderr are in place (the keeper did it); every
	 * other fd goes but the report pipe, which exec closes. */
	reset_signals();
	if (tc_close_fds_except(keep, sp->exec_fd >= 0 ? 2 : 1) != 0 ||
	    chdir("/") != 0) {
		report(sp->rep_w, REP_KEEPER, errno);
		_exit(127);
	}
	if (sp->exec_fd < 0)
		execve(sp->argv[0], sp->argv, sp->envp);
	else {
		struct stat now, was;

		/* The path must still name the file: a hook removed, or
		 * replaced, or a directory above it renamed, is refused
		 * rather than run as it was (the change takes effect at
		 * the next start, where it is checked). */
		if (stat(sp->argv[0], &now) != 0) {
			report(sp->rep_w, REP_GONE, errno);
			_exit(127);
		}
		if (fstat(sp->exec_fd, &was) != 0 ||
		    now.st_dev != was.st_dev || now.st_ino != was.st_ino) {
			report(sp->rep_w, REP_GONE, ESTALE);
			_exit(127);
		}
		/* The file opened and checked at start, whatever is at its
		 * path now.  A script's interpreter is given /dev/fd/N to
		 * read it from, which exec would close were it close-on-exec
		 * (execveat(2) then fails with ENOENT): such a hook keeps the
		 * fd, its own script, and nothing else. */
		if (sp->script && fcntl(sp->exec_fd, F_SETFD, 0) != 0) {
			report(sp->rep_w, REP_KEEPER, errno);
			_exit(127);
		}
		syscall(SYS_execveat, sp->exec_fd, "", sp->argv, sp->envp,
		    AT_EMPTY_PATH);
	}
	report(sp->rep_w, REP_EXEC, errno);
	_exit(127);
}

/* --- The keeper --- */

/*
 * The keeper's life (see hook.h): subreaper, fds and signals in order, the
 * hook forked; then wait for the hook's exit or the server's word, kill
 * everything, report, exit.
 */
static noreturn void
keeper_main(const struct spawn *sp)
{
	int keep[3] = { sp->rep_w, sp->ctl_r, sp->exec_fd };
	int devnull, hookfd = -1, status = 0, have_status = 0;
	pid_t hook;

	/* Nothing but the server's word (or its end) stops the keeper
	 * before the hook's descendants are dead: a ^C at the terminal
	 * reaches the hook, in the same process group, but not this. */
	if (tc_keeper_become() != 0)
		goto fail;
	/* stdio as the hook will have it; then close all the server's fds
	 * but the two pipes the keeper uses: another hook's control pipe
	 * among them would keep that hook's keeper from hearing its end. */
	if (sp->null_stderr) {
		if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
		    dup2(devnull, STDERR_FILENO) < 0)
			goto fail;
	}
	if (dup2(sp->in_r, STDIN_FILENO) < 0 ||
	    dup2(sp->out_w, STDOUT_FILENO) < 0 ||
	    tc_close_fds_except(keep, sp->exec_fd >= 0 ? 3 : 2) != 0)
		goto fail;

	if ((hook = fork()) < 0)
		goto fail;
	if (hook == 0) {
		close(sp->ctl_r);
		exec_hook(sp);
	}
	/* The hook's pipes are its own now: its early exit is an EPIPE for
	 * the server, and its stdout ends with it and its descendants. */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 ||
	    dup2(devnull, STDOUT_FILENO) < 0 ||
	    (hookfd = pidfd_open(hook, 0)) < 0) {
		report(sp->rep_w, REP_KEEPER, errno);
		kill(hook, SIGKILL);
		tc_keeper_kill_tree(hook, &status, &have_status);
		_exit(1);
	}
	close(devnull);

	/* Until the hook exits, or the server's word (or its end). */
	tc_keeper_watch(hook, hookfd, sp->ctl_r, &status, &have_status);
	if (have_status)
		report(sp->rep_w, REP_STATUS, status);
	_exit(0);
fail:
	report(sp->rep_w, REP_KEEPER, errno);
	_exit(1);
}

/* --- The server's side --- */

/* Makes a pipe whose ends are both above stdio and close-on-exec. */
static int
make_pipe(int p[2])
{
	int i, fd;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	for (i = 0; i < 2; i++) {
		if (p[i] > STDERR_FILENO)
			continue;
		/* A server started with stdio closed: keep 0-2 free for
		 * the keeper's dup2()s. */
		fd = fcntl(p[i], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
		if (fd < 0) {
			close(p[0]);
			close(p[1]);
			return -1;
		}
		close(p[i]);
		p[i] = fd;
	}
	return 0;
}

/* Makes reads and writes on |fd| return EAGAIN rather than block. */
static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/*
 * Returns 1 if the hook should not inherit our stderr: it is closed, or it
 * is our stdout (a server started with 2>&1), which carries MCP only.
 */
static int
stderr_unusable(void)
{
	struct stat out, err;

	if (fstat(STDERR_FILENO, &err) != 0)
		return 1;
	return fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == err.st_dev &&
	    out.st_ino == err.st_ino;
}

static void	fail(struct tc_hook *h, enum tc_hook_failure f,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Records a failure (the first one counts) and its reason. */
static void
fail(struct tc_hook *h, enum tc_hook_failure f, const char *fmt, ...)
{
	va_list ap;

	if (h->failure != TC_HOOK_FAIL_NONE)
		return;
	h->failure = f;
	va_start(ap, fmt);
	tc_text_vfmt(h->why, sizeof(h->why), fmt, ap);
	va_end(ap);
}

/* Nothing more is sent: the hook reads end-of-file. */
static void
stop_input(struct tc_hook *h)
{
	tc_fd_close(&h->in_fd);
	free(h->json);
	h->json = NULL;
}

/*
 * Has the keeper kill the hook and its descendants, by closing its
 * control pipe; it gets TC_HOOK_GRACE_MS from |now| to do so.
 */
static void
request_kill(struct tc_hook *h, int64_t now)
{
	if (h->killing)
		return;
	h->killing = 1;
	tc_fd_close(&h->ctl_fd);
	stop_input(h);
	h->deadline_ms = now + TC_HOOK_GRACE_MS;
}

int
tc_hook_start(struct tc_hook *h, char *const argv[], const char *json,
    size_t len, int timeout_ms, struct tc_diag *d)
{
	return tc_hook_start_fd(h, -1, 0, argv, json, len, timeout_ms, d);
}

int
tc_hook_start_fd(struct tc_hook *h, int fd, int script, char *const argv[],
    const char *json, size_t len, int timeout_ms, struct tc_diag *d)
{
	struct tc_diag own = { "", 0 };
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, rep[2] = { -1, -1 };
	int ctl[2] = { -1, -1 };
	struct spawn sp;
	char **envp = NULL;
	int rc;

	if (d == NULL)
		d = &own;
	tc_hook_init(h);
	if (timeout_ms <= 0)
		timeout_ms = TC_HOOK_TIMEOUT_MS;
	h->timeout_ms = timeout_ms;
	if (argv == NULL || argv[0] == NULL || argv[0][0] != '/') {
		rc = tc_diag(d, TC_EINVAL, "consent hook '%s' is not an "
		    "absolute path", argv != NULL && argv[0] != NULL ?
		    argv[0] : "");
		goto out;
	}
	if (fd >= 0 && fd <= STDERR_FILENO) {
		rc = tc_diag(d, TC_EINVAL, "consent hook '%s': its fd %d is "
		    "one of stdio", argv[0], fd);
		goto out;
	}
	h->by_fd = fd >= 0;
	if ((h->path = strdup(argv[0])) == NULL) {
		rc = tc_diag(d, TC_ENOMEM, "cannot start consent hook '%s': "
		    "out of memory", argv[0]);
		goto out;
	}
	/* It checks the document too: an object, so not empty. */
	if ((rc = build_env(json, len, timeout_ms, &envp, d)) != 0)
		goto out;
	if ((h->json = malloc(len)) == NULL) {
		rc = tc_diag(d, TC_ENOMEM, "cannot start consent hook '%s': "
		    "out of memory", argv[0]);
		goto out;
	}
	memcpy(h->json, json, len);
	h->json_len = len;
	if (make_pipe(in) != 0 || make_pipe(out) != 0 || make_pipe(rep) != 0 ||
	    make_pipe(ctl) != 0) {
		rc = tc_diag_errno(d, TC_ESYS, "cannot start consent hook "
		    "'%s': pipe", argv[0]);
		goto out;
	}
	sp.argv = argv;
	sp.envp = envp;
	sp.exec_fd = fd;
	sp.script = script;
	sp.in_r = in[0];
	sp.out_w = out[1];
	sp.rep_w = rep[1];
	sp.ctl_r = ctl[0];
	sp.null_stderr = stderr_unusable();
	if ((h->pid = fork()) < 0) {
		rc = tc_diag_errno(d, TC_ESYS, "cannot start consent hook "
		    "'%s': fork", argv[0]);
		goto out;
	}
	if (h->pid == 0)
		keeper_main(&sp);
	if ((h->pidfd = pidfd_open(h->pid, 0)) < 0) {
		rc = tc_diag_errno(d, TC_ESYS, "cannot start consent hook "
		    "'%s': pidfd_open", argv[0]);
		/* Without a pidfd, no polling: have the keeper kill what
		 * it started, and wait for it (it is quick). */
		tc_fd_close(&ctl[1]);
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
		h->pid = -1;
		goto out;
	}
	h->in_fd = in[1];
	h->out_fd = out[0];
	h->rep_fd = rep[0];
	h->ctl_fd = ctl[1];
	in[1] = out[0] = rep[0] = ctl[1] = -1;
	if (set_nonblock(h->in_fd) != 0 || set_nonblock(h->out_fd) != 0 ||
	    set_nonblock(h->rep_fd) != 0) {
		rc = tc_diag_errno(d, TC_ESYS, "cannot start consent hook "
		    "'%s': fcntl", argv[0]);
		goto out;
	}
	h->deadline_ms = tc_now_ms() + timeout_ms;
	h->done = 0;
	rc = 0;
out:
	tc_fd_close(&in[0]);
	tc_fd_close(&in[1]);
	tc_fd_close(&out[0]);
	tc_fd_close(&out[1]);
	tc_fd_close(&rep[0]);
	tc_fd_close(&rep[1]);
	tc_fd_close(&ctl[0]);
	tc_fd_close(&ctl[1]);
	free_env(envp);
	if (rc != 0) {
		/* A keeper still running (fcntl failed) is stopped and
		 * reaped by tc_hook_kill(), which wants a hook not done. */
		h->done = 0;
		fail(h, TC_HOOK_FAIL_START, "%s", d->msg);
		if (h->pid > 0)
			tc_hook_kill(h);
		stop_input(h);
		h->done = 1;
		h->answer = TC_HOOK_FAILED;
	}
	return rc;
}

int
tc_hook_pollfds(const struct tc_hook *h, struct pollfd *pfd)
{
	int n = 0;

	if (h->done)
		return 0;
	if (h->in_fd >= 0) {
		pfd[n].fd = h->in_fd;
		pfd[n].events = POLLOUT;
		pfd[n++].revents = 0;
	}
	if (h->out_fd >= 0) {
		pfd[n].fd = h->out_fd;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	if (h->pidfd >= 0) {
		pfd[n].fd = h->pidfd;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	return n;
}

/* Writes what the pipe takes of the document; at its end, closes it. */
static void
send_input(struct tc_hook *h)
{
	ssize_t w;

	while (h->in_fd >= 0 && h->json_off < h->json_len) {
		w = write(h->in_fd, h->json + h->json_off,
		    h->json_len - h->json_off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			/* EPIPE: the hook exited, or closed its stdin,
			 * without reading it all.  That is its right. */
			break;
		}
		h->json_off += (size_t)w;
	}
	stop_input(h);
}

/* Keeps the first line's first TC_HOOK_REASON_MAX bytes. */
static void
take_line(struct tc_hook *h, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && !h->line_done; i++) {
		if (p[i] == '\n')
			h->line_done = 1;
		else if (h->line_len < sizeof(h->line))
			h->line[h->line_len++] = p[i];
	}
}

/*
 * Reads what the hook wrote on stdout, until the pipe is empty; at EOF
 * closes it.  Past TC_HOOK_MAX_OUTPUT bytes, the hook is killed.
 */
static void
read_output(struct tc_hook *h, int64_t now)
{
	/* Static: the server is single-threaded, and an automatic array
	 * would be zeroed on every call (-ftrivial-auto-var-init). */
	static char chunk[16384];
	ssize_t n;

	while (h->out_fd >= 0) {
		n = read(h->out_fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				tc_fd_close(&h->out_fd);
			return;
		}
		if (n == 0) {
			tc_fd_close(&h->out_fd);
			return;
		}
		take_line(h, chunk, (size_t)n);
		h->out_total += (size_t)n;
		if (h->out_total > TC_HOOK_MAX_OUTPUT) {
			fail(h, TC_HOOK_FAIL_OUTPUT, "consent hook '%s' wrote "
			    "more than %d bytes to its stdout and was killed; "
			    "a hook's answer is its exit status and one line",
			    h->path, TC_HOOK_MAX_OUTPUT);
			tc_fd_close(&h->out_fd);
			request_kill(h, now);
		}
	}
}

/*
 * Makes the kept line fit for a JSON string, a log line and a terminal:
 * control characters (C0, DEL, C1) become blanks, ill-formed UTF-8 '?',
 * a character cut at the byte limit goes; blanks at either end go too.
 * Never longer than the input.
 */
static void
sanitize_line(struct tc_hook *h)
{
	const unsigned char *p = (const unsigned char *)h->line;
	size_t n = h->line_len, i = 0, k, j, o = 0, start;
	char *dst = h->reason;

	if (n == sizeof(h->line))	/* perhaps cut: a split character */
		n = tc_utf8_whole(p, n);
	while (i < n) {
		k = tc_utf8_prefix(p + i, n - i);
		for (j = i; j < i + k; j++) {
			if (p[j] < 0x20 || p[j] == 0x7f)
				dst[o++] = ' ';
			else if (p[j] == 0xc2 && j + 1 < i + k &&
			    p[j + 1] >= 0x80 && p[j + 1] <= 0x9f) {
				dst[o++] = ' ';
				j++;
			} else
				dst[o++] = (char)p[j];
		}
		i += k;
		if (i < n) {
			dst[o++] = '?';
			i++;
		}
	}
	dst[o] = '\0';
	while (o > 0 && dst[o - 1] == ' ')
		dst[--o] = '\0';
	for (start = 0; dst[start] == ' '; start++)
		;
	memmove(dst, dst + start, o - start + 1);
}

/*
 * Turns "session ..." into the rest of the line.  Returns 1 if the first
 * word was "session".
 */
static int
strip_session(char *reason)
{
	size_t i = 7;

	if (strncmp(reason, "session", 7) != 0 ||
	    (reason[7] != '\0' && reason[7] != ' '))
		return 0;
	while (reason[i] == ' ')
		i++;
	memmove(reason, reason + i, strlen(reason + i) + 1);
	return 1;
}

/* Reads the keeper's reports: the exec errno, the keeper's, and why the
 * file to run was not there. */
static void
read_reports(struct tc_hook *h, int *exec_err, int *keeper_err,
    int *gone_err)
{
	struct rep r;
	ssize_t n;

	*exec_err = *keeper_err = *gone_err = 0;
	while (h->rep_fd >= 0) {
		n = read(h->rep_fd, &r, sizeof(r));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(r))
			break;		/* EOF, EAGAIN, or a torn record */
		switch (r.type) {
		case REP_EXEC:
			*exec_err = r.value;
			break;
		case REP_STATUS:
			h->status = r.value;
			h->exited = 1;
			break;
		case REP_KEEPER:
			*keeper_err = r.value;
			break;
		case REP_GONE:
			*gone_err = r.value;
			break;
		default:
			break;
		}
	}
	tc_fd_close(&h->rep_fd);
}

/* Explains why execve() of the hook failed with |err|. */
static void
exec_failed(struct tc_hook *h, int err)
{
	struct stat st;

	/* Run from its fd, it was found: what is missing is its '#!'
	 * line's interpreter. */
	if (err == ENOENT && !h->by_fd && stat(h->path, &st) != 0)
		fail(h, TC_HOOK_FAIL_NOTFOUND, "consent hook '%s' not found",
		    h->path);
	else if (err == ENOENT)
		fail(h, TC_HOOK_FAIL_NOTFOUND, "consent hook '%s' cannot run: "
		    "the interpreter its '#!' line names was not found",
		    h->path);
	else if (err == EACCES)
		fail(h, TC_HOOK_FAIL_NOEXEC, "consent hook '%s' is not "
		    "executable (permission denied)", h->path);
	else if (err == ENOEXEC)
		fail(h, TC_HOOK_FAIL_NOEXEC, "consent hook '%s' is not a "
		    "program the system can run (a script needs a '#!' line)",
		    h->path);
	else
		fail(h, TC_HOOK_FAIL_NOTFOUND, "consent hook '%s' cannot run: "
		    "%s", h->path, strerror(err));
}

/* The keeper is gone: turns everything known into the answer. */
static void
decide(struct tc_hook *h, int keeper_status)
{
	int exec_err, keeper_err, gone_err, code, sig;

	read_reports(h, &exec_err, &keeper_err, &gone_err);
	sanitize_line(h);
	if (gone_err == ENOENT)
		fail(h, TC_HOOK_FAIL_NOTFOUND, "consent hook '%s' not found",
		    h->path);
	else if (gone_err != 0)
		fail(h, TC_HOOK_FAIL_CHANGED, "consent hook '%s' is no longer "
		    "the file the server checked at start (%s): it was "
		    "replaced or moved; restart the server to use the new "
		    "one", h->path, gone_err == ESTALE ? "another file is at "
		    "its path" : strerror(gone_err));
	else if (exec_err != 0)
		exec_failed(h, exec_err);
	else if (keeper_err != 0)
		fail(h, TC_HOOK_FAIL_START, "consent hook '%s' could not be "
		    "started: %s", h->path, strerror(keeper_err));
	else if (!h->exited)
		fail(h, TC_HOOK_FAIL_START, "consent hook '%s' could not be "
		    "run: its keeper process %s %d", h->path,
		    WIFSIGNALED(keeper_status) ? "was killed by signal" :
		    "exited with status", WIFSIGNALED(keeper_status) ?
		    WTERMSIG(keeper_status) : WEXITSTATUS(keeper_status));
	else if (WIFSIGNALED(h->status)) {
		sig = WTERMSIG(h->status);
		fail(h, TC_HOOK_FAIL_CRASHED, "consent hook '%s' was killed "
		    "by signal %d (%s)", h->path, sig, strsignal(sig));
	}
	if (h->failure != TC_HOOK_FAIL_NONE) {
		h->answer = TC_HOOK_FAILED;
		return;
	}
	code = WEXITSTATUS(h->status);
	if (code == 0 && strip_session(h->reason)) {
		h->answer = TC_HOOK_ALLOW_SESSION;
		tc_text_fmt(h->why, sizeof(h->why), "consent hook '%s' allowed "
		    "the call for this session%s%s", h->path,
		    h->reason[0] ? ": " : "", h->reason);
	} else if (code == 0) {
		h->answer = TC_HOOK_ALLOW;
		tc_text_fmt(h->why, sizeof(h->why), "consent hook '%s' allowed "
		    "the call%s%s", h->path, h->reason[0] ? ": " : "",
		    h->reason);
	} else {
		h->answer = TC_HOOK_DENY;
		tc_text_fmt(h->why, sizeof(h->why), "consent hook '%s' denied "
		    "the call (exit status %d)%s%s", h->path, code,
		    h->reason[0] ? ": " : "", h->reason);
	}
}

/*
 * Reaps the keeper if it has exited; then reads what is left of the
 * hook's stdout (its writers are all dead) and decides.
 */
static void
reap(struct tc_hook *h, int64_t now)
{
	int st = 0;
	pid_t w;

	do
		w = waitpid(h->pid, &st, WNOHANG);
	while (w < 0 && errno == EINTR);
	if (w == 0)
		return;			/* not yet: poll again */
	tc_fd_close(&h->pidfd);
	h->pid = -1;
	read_output(h, now);
	tc_fd_close(&h->out_fd);
	tc_fd_close(&h->ctl_fd);
	stop_input(h);
	decide(h, w > 0 ? st : 0);
	h->done = 1;
}

int
tc_hook_step(struct tc_hook *h, const struct pollfd *pfd, int npfd,
    int64_t now)
{
	int i;

	if (h->done)
		return 1;
	for (i = 0; i < npfd && !h->done; i++) {
		if (pfd[i].revents == 0 || pfd[i].fd < 0)
			continue;
		if (pfd[i].fd == h->in_fd)
			send_input(h);
		else if (pfd[i].fd == h->out_fd)
			read_output(h, now);
		else if (pfd[i].fd == h->pidfd)
			reap(h, now);
	}
	if (h->done || now < h->deadline_ms)
		return h->done;
	if (!h->killing) {
		fail(h, TC_HOOK_FAIL_TIMEOUT, "consent hook '%s' gave no "
		    "answer within %d ms and was killed", h->path,
		    h->timeout_ms);
		request_kill(h, now);
	} else if (!h->keeper_killed) {
		/* The keeper did not finish killing in time: a descendant
		 * stuck in the kernel, or no /proc to find them with. */
		pidfd_send_signal(h->pidfd, SIGKILL, NULL, 0);
		h->keeper_killed = 1;
		h->deadline_ms = now + TC_HOOK_GRACE_MS;
	} else
		h->deadline_ms = now + TC_HOOK_GRACE_MS;
	return 0;
}

void
tc_hook_kill(struct tc_hook *h)
{
	struct pollfd pfd[TC_HOOK_POLLFDS];
	int64_t now;
	int n, ms;

	if (h->done || h->pid <= 0)
		return;
	fail(h, TC_HOOK_FAIL_ABANDONED, "consent hook '%s' was abandoned "
	    "before it answered", h->path);
	request_kill(h, tc_now_ms());
	while (!h->done) {
		n = tc_hook_pollfds(h, pfd);
		now = tc_now_ms();
		ms = h->deadline_ms > now ? (int)(h->deadline_ms - now) : 0;
		if (poll(pfd, (nfds_t)n, ms) < 0 && errno != EINTR)
			n = 0;
		tc_hook_step(h, pfd, n, tc_now_ms());
	}
}

void
tc_hook_release(struct tc_hook *h)
{
	if (!h->done)
		tc_hook_kill(h);
	tc_fd_close(&h->in_fd);
	tc_fd_close(&h->out_fd);
	tc_fd_close(&h->rep_fd);
	tc_fd_close(&h->ctl_fd);
	tc_fd_close(&h->pidfd);
	free(h->json);
	h->json = NULL;
	free(h->path);
	h->path = NULL;
	h->done = 1;
}
