/*
 * procs.c: hostile tools that reach for other processes: signals to the
 * server and to everything, ptrace and process_vm_readv of the server,
 * a setuid binary run under no_new_privs, a program run to read what the
 * call may not, a fork bomb and an orphan that tries to outlive its call.  Most need fork(), which only the shell-exec
 * profile allows.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"
#include "base/clock.h"
#include "sandbox/sandbox.h"

/* Sleeps |ms| milliseconds. */
static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Waits up to |ms| for |pid|; kills it if it is still there.  Returns the
 * wait status, or -1 if it could not be reaped. */
static int
reap_within(pid_t pid, long ms, int *killed)
{
	int st;
	long t;

	*killed = 0;
	for (t = 0; t <= ms; t += 5) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		nap(5);
	}
	*killed = 1;
	kill(pid, SIGKILL);
	return waitpid(pid, &st, 0) == pid ? st : -1;
}

int
hs_signal_server(const struct tc_call *call, struct tc_result *res)
{
	long pid = hs_server_pid(call);
	int rc, err;

	if (pid <= 0)
		return tc_result_error(res, "the server's pid is unknown: "
		    "pass it as 'pid'");
	hs_int(res, "server_pid", pid);
	rc = kill((pid_t)pid, SIGTERM);
	err = rc != 0 ? errno : 0;
	return hs_outcome(res, rc == 0, err, "kill(%ld, SIGTERM): %s", pid,
	    rc == 0 ? "delivered" : strerror(err));
}

/*
 * kill(-1, SIGKILL): every process the caller may signal.  Sent only where
 * it is shown not to reach past the call: as pid 1 of a PID namespace of
 * our own, or when the test's sentinel, a process of our own uid, refuses
 * our signals (Landlock's signal scope) -- not merely another uid's.
 * Escaped when the server or the sentinel can be signalled from here.  Our
 * own children, forked first, show that the signal does go out.
 */
int
hs_kill_all(const struct tc_call *call, struct tc_result *res)
{
	long server = hs_server_pid(call);
	long sentinel = tc_arg_int(call, "sentinel", 0);
	long long sentinel_uid = tc_arg_int(call, "sentinel_uid", -1);
	int reach_server, reach_sentinel = 0, rc, err, serr = 0, st, killed;
	int nkids = 0, by_sigkill = 0, pidns, scoped, i;
	pid_t kids[3], p;

	pidns = getpid() == 1;
	reach_server = getppid() > 0 && kill(getppid(), 0) == 0;
	if (sentinel > 0 && !(reach_sentinel = kill((pid_t)sentinel, 0) == 0))
		serr = errno;
	scoped = serr == EPERM && sentinel_uid == (long long)geteuid();
	hs_bool(res, "pid_namespace", pidns);
	hs_bool(res, "server_reachable", reach_server);
	hs_bool(res, "sentinel_reachable", reach_sentinel);
	hs_int(res, "server_pid", server);
	if (reach_server || reach_sentinel) {
		hs_bool(res, "sent", 0);
		return hs_outcome(res, 1, 0, "signals reach %s from here: "
		    "kill(-1, SIGKILL) was not sent", reach_server ?
		    "the server" : "the test's sentinel");
	}
	if (!pidns && !scoped) {
		hs_bool(res, "sent", 0);
		return hs_outcome(res, 0, 0, "not pid 1 of a PID namespace, and "
		    "no sentinel of uid %d refused a signal: kill(-1, SIGKILL) "
		    "might reach past the call and was not sent",
		    (int)geteuid());
	}
	for (i = 0; i < 3; i++) {
		if ((p = fork()) == 0) {
			for (;;)
				pause();
		}
		if (p > 0)
			kids[nkids++] = p;
	}
	rc = kill(-1, SIGKILL);
	err = rc != 0 ? errno : 0;
	for (i = 0; i < nkids; i++) {
		st = reap_within(kids[i], 1000, &killed);
		if (!killed && st != -1 && WIFSIGNALED(st) &&
		    WTERMSIG(st) == SIGKILL)
			by_sigkill++;
	}
	hs_bool(res, "sent", 1);
	hs_int(res, "own_children", nkids);
	hs_int(res, "own_killed", by_sigkill);
	return hs_outcome(res, 0, err, "kill(-1, SIGKILL) %s: %s; %d of our "
	    "%d children died of it; neither the server nor the sentinel "
	    "could be signalled", pidns ? "as pid 1 of our PID namespace" :
	    "under a signal scope", rc == 0 ? "sent" : strerror(err),
	    by_sigkill, nkids);
}

/* Something at the same address in the server: we are a fork of it. */
static const char probe_word[] = "toolcell-hostile probe word";

int
hs_ptrace_server(const struct tc_call *call, struct tc_result *res)
{
	long pid = hs_server_pid(call);
	struct iovec local, remote;
	char buf[sizeof(probe_word)];
	int rc, aerr, verr;
	ssize_t n;

	if (pid <= 0)
		return tc_result_error(res, "the server's pid is unknown: "
		    "pass it as 'pid'");
	hs_int(res, "server_pid", pid);
	rc = (int)syscall(SYS_ptrace, PTRACE_ATTACH, (pid_t)pid, NULL, NULL);
	aerr = rc != 0 ? errno : 0;
	if (rc == 0) {
		waitpid((pid_t)pid, NULL, __WALL);
		syscall(SYS_ptrace, PTRACE_DETACH, (pid_t)pid, NULL, NULL);
	}
	hs_bool(res, "attached", rc == 0);
	hs_int(res, "ptrace_errno", aerr);
	memset(buf, 0, sizeof(buf));
	local.iov_base = buf;
	local.iov_len = sizeof(buf);
	remote.iov_base = (void *)(uintptr_t)probe_word;
	remote.iov_len = sizeof(buf);
	n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
	verr = n < 0 ? errno : 0;
	hs_int(res, "vm_read_bytes", n);
	hs_int(res, "vm_errno", verr);
	hs_bool(res, "vm_read_matched", n > 0 &&
	    memcmp(buf, probe_word, (size_t)n) == 0);
	return hs_outcome(res, rc == 0 || n > 0, aerr ? aerr : verr,
	    "ptrace(PTRACE_ATTACH, %ld): %s; process_vm_readv: %s", pid,
	    rc == 0 ? "attached" : strerror(aerr), n >= 0 ? "read" :
	    strerror(verr));
}

/*
 * Reads the effective uid and gid (the second fields of the "Uid:" and
 * "Gid:" lines) of |pid| from /proc.  Returns 0, or -1 when it cannot.
 */
static int
status_ids(long pid, long *euid, long *egid)
{
	char path[64], line[256], *end;
	FILE *f;

	*euid = *egid = -1;
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "Uid:", 4) == 0) {
			strtol(line + 4, &end, 10);
			*euid = strtol(end, NULL, 10);
		} else if (strncmp(line, "Gid:", 4) == 0) {
			strtol(line + 4, &end, 10);
			*egid = strtol(end, NULL, 10);
		}
	}
	fclose(f);
	return *euid >= 0 && *egid >= 0 ? 0 : -1;
}

/*
 * Runs a setuid or setgid binary and looks at the ids it runs with: the
 * euid from its output when it prints one (a setuid copy of id(1) run as
 * "id -u"), the euid and egid from its /proc status for up to |watch_ms|
 * while it lives.  Its stdin is a pipe held open, so that a program that
 * reads a password (su, unix_chkpwd) waits to be watched.  Under
 * no_new_privs the kernel ignores both bits, so the ids must stay ours.
 */
int
hs_setuid_exec(const struct tc_call *call, struct tc_result *res)
{
	const char *path = tc_arg_str(call, "path");
	const cJSON *jargs = tc_arg_json(call, "args"), *it;
	long long watch = tc_arg_int(call, "watch_ms", 0), i;
	char *argv[16], out[256];
	int ep[2], op[2], pp[2], ip[2], st, xerr = 0, killed, nargs = 0;
	int nested, looks = 0, ended = 0;
	long outer = -1, seen = -1, seen_g = -1, printed = -1, e, g;
	long me = (long)geteuid(), my_g = (long)getegid();
	ssize_t n;
	char *end;
	pid_t pid;

	argv[nargs++] = (char *)(uintptr_t)path;
	cJSON_ArrayForEach(it, jargs)
		if (nargs < 15 && cJSON_IsString(it))
			argv[nargs++] = it->valuestring;
	argv[nargs] = NULL;
	if (pipe2(ep, O_CLOEXEC) != 0 || pipe2(op, O_CLOEXEC) != 0 ||
	    pipe2(pp, O_CLOEXEC) != 0 || pipe2(ip, O_CLOEXEC) != 0)
		return tc_result_error(res, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0)
		return hs_outcome(res, 0, errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		outer = hs_outer_pid(&nested);
		(void)!write(pp[1], &outer, sizeof(outer));
		dup2(ip[0], STDIN_FILENO);
		dup2(op[1], STDOUT_FILENO);
		execv(path, argv);
		xerr = errno;
		(void)!write(ep[1], &xerr, sizeof(xerr));
		_exit(127);
	}
	close(ep[1]);
	close(op[1]);
	close(pp[1]);
	close(ip[0]);
	if (read(pp[0], &outer, sizeof(outer)) != sizeof(outer))
		outer = -1;
	/* The error pipe closes on a successful exec; it carries errno
	 * otherwise. */
	if (read(ep[0], &xerr, sizeof(xerr)) != sizeof(xerr))
		xerr = 0;
	for (i = 0; xerr == 0 && outer > 0 && i < watch; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			ended = 1;
			break;
		}
		if (status_ids(outer, &e, &g) == 0) {
			looks++;
			if (e != me)
				seen = e;
			if (g != my_g)
				seen_g = g;
		}
		nap(1);
	}
	/* Enough: it goes, and its output ends with it. */
	if (!ended)
		reap_within(pid, 0, &killed);
	close(ip[1]);
	n = hs_read_some(op[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	if (n > 0 && out[0] >= '0' && out[0] <= '9') {
		e = strtol(out, &end, 10);
		if (*end == '\n' || *end == '\0')
			printed = e;
	}
	close(ep[0]);
	close(op[0]);
	close(pp[0]);
	hs_int(res, "exec_errno", xerr);
	hs_int(res, "euid", me);
	hs_int(res, "egid", my_g);
	hs_int(res, "printed_euid", printed);
	hs_int(res, "seen_euid", seen);
	hs_int(res, "seen_egid", seen_g);
	hs_int(res, "observations", looks);
	/* Gone before the first look: nothing could be seen, either way. */
	hs_int(res, "ended_unwatched", ended && looks == 0);
	hs_str(res, "output", out);
	return hs_outcome(res, xerr == 0 && ((printed >= 0 && printed != me) ||
	    seen >= 0 || seen_g >= 0), xerr, "exec '%s': %s; euid %ld, egid "
	    "%ld; it printed %ld; its status, read %d times, showed %s euid "
	    "and %s egid", path, xerr ? strerror(xerr) : "ran", me, my_g,
	    printed, looks, seen >= 0 ? "another" : "no other", seen_g >= 0 ?
	    "another" : "no other");
}

/* Whether this process is in a PID namespace below the server's. */
static int
in_own_pidns(void)
{
	int nested;

	if (getpid() == 1)
		return 1;
	hs_outer_pid(&nested);
	return nested;
}

/*
 * Forks up to |max| children that leave the process group (setsid()),
 * rename themselves to |tag| and wait forever, then returns.  They are
 * out of reach of the process-group kill: only a PID namespace ends them
 * with the call.
 */
int
hs_fork_bomb(const struct tc_call *call, struct tc_result *res)
{
	long long max = tc_arg_int(call, "max", 0), n;
	long long max_ms = tc_arg_int(call, "max_ms", 0);
	const char *tag = tc_arg_str(call, "tag");
	int err = 0, ns = in_own_pidns();
	int64_t t0 = tc_now_ms();
	pid_t p;

	for (n = 0; n < max && tc_now_ms() - t0 < max_ms; n++) {
		if ((p = fork()) < 0) {
			err = errno;
			break;
		}
		if (p == 0) {
			setsid();
			prctl(PR_SET_NAME, tag, 0, 0, 0);
			signal(SIGTERM, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			for (;;)
				pause();
		}
	}
	hs_int(res, "forked", n);
	hs_int(res, "max", max);
	hs_bool(res, "pid_namespace", ns);
	hs_str(res, "tag", tag);
	return hs_outcome(res, n > 0 && !ns, err, "forked %lld of %lld "
	    "children, each in a session of its own%s%s; %s", n, max,
	    err ? ", then fork: " : "", err ? strerror(err) : "", ns ?
	    "they share our PID namespace, which ends with the call" :
	    "no PID namespace of ours holds them");
}

/*
 * Double-forks a grandchild that leaves the process group, renames itself
 * to |tag|, tells us its pid as the test sees it, then tries to become
 * sleep(1) and sleeps anyway when exec is refused.
 */
int
hs_orphan(const struct tc_call *call, struct tc_result *res)
{
	const char *tag = tc_arg_str(call, "tag");
	long long secs = tc_arg_int(call, "seconds", 0);
	char num[32];
	int pp[2], ep[2], xerr = 0, sid = 0, nested = 0, st, ns;
	long outer = -1;
	pid_t mid;

	ns = in_own_pidns();
	if (pipe2(pp, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0)
		return tc_result_error(res, "pipe: %s", strerror(errno));
	if ((mid = fork()) < 0)
		return hs_outcome(res, 0, errno, "fork: %s", strerror(errno));
	if (mid == 0) {
		if (fork() != 0)
			_exit(0);
		sid = setsid() > 0;
		prctl(PR_SET_NAME, tag, 0, 0, 0);
		outer = hs_outer_pid(&nested);
		(void)!write(pp[1], &outer, sizeof(outer));
		(void)!write(pp[1], &sid, sizeof(sid));
		snprintf(num, sizeof(num), "%lld", secs);
		execl("/bin/sleep", "sleep", num, (char *)NULL);
		xerr = errno;
		(void)!write(ep[1], &xerr, sizeof(xerr));
		nap((long)secs * 1000);
		_exit(0);
	}
	close(pp[1]);
	close(ep[1]);
	waitpid(mid, &st, 0);
	if (read(pp[0], &outer, sizeof(outer)) != sizeof(outer) ||
	    read(pp[0], &sid, sizeof(sid)) != sizeof(sid))
		outer = -1;
	if (read(ep[0], &xerr, sizeof(xerr)) != sizeof(xerr))
		xerr = 0;
	close(pp[0]);
	close(ep[0]);
	hs_int(res, "pid", outer);
	hs_bool(res, "new_session", sid);
	hs_bool(res, "pid_namespace", ns);
	hs_int(res, "exec_errno", xerr);
	hs_str(res, "tag", tag);
	if (outer <= 0)
		return tc_result_error(res, "the grandchild did not report");
	return hs_outcome(res, sid && !ns, xerr, "grandchild %ld (%s) left "
	    "our process group%s; exec sleep: %s; %s", outer, tag, sid ?
	    "" : " (setsid failed)", xerr ? strerror(xerr) : "ran", ns ?
	    "it is in our PID namespace, which ends with the call" :
	    "no PID namespace of ours holds it");
}

/*
 * Runs a program and captures what it writes (stdout and stderr, up to
 * 64 KiB): escaped when the secret is in it.  Whatever the program is, it
 * runs in the call's sandbox, which exec does not end.
 */
int
hs_exec_capture(const struct tc_call *call, struct tc_result *res)
{
	const char *path = tc_arg_str(call, "path");
	const char *secret = tc_arg_str(call, "secret");
	const cJSON *jargs = tc_arg_json(call, "args"), *it;
	static char out[64 << 10];
	char *argv[16];
	int ep[2], op[2], st, xerr = 0, killed, nargs = 0, found;
	ssize_t n;
	pid_t pid;

	argv[nargs++] = (char *)(uintptr_t)path;
	cJSON_ArrayForEach(it, jargs)
		if (nargs < 15 && cJSON_IsString(it))
			argv[nargs++] = it->valuestring;
	argv[nargs] = NULL;
	if (pipe2(ep, O_CLOEXEC) != 0 || pipe2(op, O_CLOEXEC) != 0)
		return tc_result_error(res, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0)
		return hs_outcome(res, 0, errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(op[1], STDOUT_FILENO);
		dup2(op[1], STDERR_FILENO);
		execv(path, argv);
		xerr = errno;
		(void)!write(ep[1], &xerr, sizeof(xerr));
		_exit(127);
	}
	close(ep[1]);
	close(op[1]);
	if (read(ep[0], &xerr, sizeof(xerr)) != sizeof(xerr))
		xerr = 0;
	close(ep[0]);
	n = hs_read_some(op[0], out, sizeof(out));
	close(op[0]);
	st = reap_within(pid, 5000, &killed);
	found = n > 0 && hs_contains(out, (size_t)n, secret);
	hs_int(res, "exec_errno", xerr);
	hs_int(res, "bytes", n);
	hs_int(res, "exit_status", st != -1 && WIFEXITED(st) ?
	    WEXITSTATUS(st) : -1);
	hs_str(res, "output", "");
	if (n > 0) {
		/* The first line, for the record: an error message, say. */
		out[n < 200 ? n : 200] = '\0';
		out[strcspn(out, "\n")] = '\0';
		hs_str(res, "output", found ? "(the secret)" : out);
	}
	return hs_outcome(res, found, xerr, "exec '%s': %s; %zd bytes of "
	    "output, %s", path, xerr ? strerror(xerr) : "ran", n, found ?
	    "the secret among them" : "no secret in them");
}
