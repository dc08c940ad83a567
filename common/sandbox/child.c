/*
 * child.c: a call child's life (tc_child_main()): a keeper between it
 * and the server when its profile may fork and no PID namespace of its
 * own holds its tree (the keeper enters the call's pids cgroup before it
 * clones the child; a child without one is placed in it as it is cloned:
 * ns.c), its confinement (confine.c), then its one call: it
 * reads it, runs the handler and sends back its result (frame.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "sandbox/keeper.h"
#include "sandbox/sandbox-int.h"
#include "sandbox/stream.h"

/* --- The child --- */

static int
read_all(int fd, void *p, size_t n)
{
	char *s = p;
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, s, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			return s == p ? 0 : -1;	/* EOF: clean only at 0 */
		s += r;
		n -= (size_t)r;
	}
	return 1;
}


/*
 * Walks the path every call takes once, before the call: the stack and the
 * allocator's arena, parsing arguments, building and printing a result.
 * The page faults that costs (copy-on-write for data, first use for code)
 * are paid while the child waits rather than on the call's path.
 */
static void
prefault(void)
{
	volatile char stack[32 << 10];
	struct tc_result res;
	struct tc_buf out;
	char *heap;
	size_t i;

	for (i = 0; i < sizeof(stack); i += 4096)
		stack[i] = 0;
	if ((heap = malloc(64 << 10)) != NULL) {
		memset(heap, 0, 64 << 10);
		free(heap);
	}
	cJSON_Delete(cJSON_Parse("{\"path\":\"a\",\"n\":[1,true,null]}"));
	tc_result_init(&res);
	tc_result_printf(&res, "%s %d", "warm", 1);
	tc_buf_init(&out, 1u << 20);
	(void)tc_result_serialize(&res, &out);
	tc_buf_release(&out);
	tc_result_release(&res);
}

/*
 * Reads the pins and the unconsented rules of |head| from |p| (|len|
 * bytes) into |call|.  Returns 0, or -1 if they do not fit.
 */
static int
read_context(const struct call_head *head, const char *p, size_t len,
    struct tc_call *call)
{
	struct tc_pin *pins = NULL;
	size_t *un = NULL;
	struct pin_wire w;
	uint32_t i, k;

	if (head->npins > 0 && (pins = calloc(head->npins,
	    sizeof(*pins))) == NULL)
		return -1;
	for (i = 0; i < head->npins; i++) {
		if (len < sizeof(w))
			return -1;
		memcpy(&w, p, sizeof(w));
		p += sizeof(w);
		len -= sizeof(w);
		if (len < w.rellen || (pins[i].rel = strndup(p,
		    w.rellen)) == NULL)
			return -1;
		p += w.rellen;
		len -= w.rellen;
		pins[i].root = w.root;
		pins[i].kind = w.kind;
		pins[i].missing = w.missing;
		pins[i].dev = w.dev;
		pins[i].ino = w.ino;
		pins[i].entry = (int)w.entry;
		pins[i].edev = w.edev;
		pins[i].eino = w.eino;
	}
	if (head->nunconsented > 0 && (un = calloc(head->nunconsented,
	    sizeof(*un))) == NULL)
		return -1;
	for (i = 0; i < head->nunconsented; i++) {
		if (len < sizeof(k))
			return -1;
		memcpy(&k, p, sizeof(k));
		p += sizeof(k);
		len -= sizeof(k);
		if (k >= head->policy->nconsent)
			return -1;
		un[i] = k;
	}
	if (len != 0)
		return -1;
	call->pins = pins;
	call->npins = head->npins;
	call->pinned = head->pinned != 0;
	call->unconsented = un;
	call->nunconsented = head->nunconsented;
	return 0;
}

/*
 * Reads the call from |rfd| into |call| (arguments parsed into |*args|).
 * Exits quietly when the parent closes the pipe without sending one: the
 * standby is being retired.
 */
static void
read_call(int rfd, const struct tc_profile *profile, struct tc_call *call,
    cJSON **args)
{
	unsigned char hdr[TC_FRAME_HDR];
	struct call_head head;
	uint32_t len;
	char *text;
	int rc;

	if ((rc = read_all(rfd, hdr, sizeof(hdr))) == 0)
		_exit(0);
	if (rc < 0 || tc_get_u32(hdr) != TC_FRAME_CALL ||
	    (len = tc_get_u32(hdr + 4)) < sizeof(head) ||
	    read_all(rfd, &head, sizeof(head)) != 1)
		_exit(TC_CHILD_EXIT_CALL);
	len -= (uint32_t)sizeof(head);
	if (head.ctxlen > len || head.tool == NULL || head.policy == NULL)
		_exit(TC_CHILD_EXIT_CALL);
	if ((text = malloc((size_t)len + 1)) == NULL ||
	    (len > 0 && read_all(rfd, text, len) != 1))
		_exit(TC_CHILD_EXIT_CALL);
	text[len] = '\0';
	/* A job's input follows its call on this pipe; other calls have
	 * none (the server has closed its end already). */
	if (!(head.tool->flags & TC_TOOL_JOB))
		close(rfd);
	if (head.tool->profile != profile ||
	    read_context(&head, text, head.ctxlen, call) != 0 ||
	    (*args = cJSON_ParseWithLength(text + head.ctxlen,
	    len - head.ctxlen)) == NULL)
		_exit(TC_CHILD_EXIT_CALL);
	free(text);
	call->tool = head.tool;
	call->policy = head.policy;
	call->args = *args;
}

/*
 * Makes |own| the policy a call's child runs under: |pol|, with the
 * call's pins, and with a deny rule for each pattern of each consent rule
 * the call was not given (marked TC_ACCESS_CONSENT), so that it neither
 * lists, nor walks into, nor opens, nor changes what those cover.
 * Returns 0, or -1 when out of memory.
 */
static int
child_policy(const struct tc_policy *pol, const struct tc_call *call,
    struct tc_policy *own)
{
	const struct tc_consent_rule *r;
	struct tc_deny *deny;
	size_t i, k, n = pol->ndeny;

	*own = *pol;
	own->pins = call->pins;
	own->npins = call->npins;
	own->pinned = call->pinned;
	if (call->nunconsented == 0)
		return 0;
	for (i = 0; i < call->nunconsented; i++)
		n += pol->consent[call->unconsented[i]].npatterns;
	if ((deny = calloc(n, sizeof(*deny))) == NULL)
		return -1;
	if (pol->ndeny > 0)
		memcpy(deny, pol->deny, pol->ndeny * sizeof(*deny));
	n = pol->ndeny;
	for (i = 0; i < call->nunconsented; i++) {
		r = &pol->consent[call->unconsented[i]];
		for (k = 0; k < r->npatterns; k++) {
			deny[n].pattern = r->patterns[k];
			deny[n].access = TC_ACCESS_READ | TC_ACCESS_WRITE |
			    TC_ACCESS_CONSENT;
			deny[n++].line = r->line;
		}
	}
	own->deny = deny;
	own->ndeny = n;
	return 0;
}

/* --- The keeper --- */

/*
 * Exits as |status| says the child did: with its exit code, or by its
 * signal.  The keeper is not dumpable (as the server), so a signal that
 * dumps core dumps nothing here.
 */
static void __attribute__((__noreturn__))
exit_as(int status)
{
	sigset_t one;
	int sig;

	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

/*
 * The keeper's life: a subreaper outside the child's namespaces and
 * confinement (start_keeper() made it one), holding only the result
 * pipe's write end, whose reader (the server) closes it to have the tree
 * killed.  It waits for the child's end or that word, kills everything,
 * and exits as the child did.
 */
static void __attribute__((__noreturn__))
keeper_main(const struct tc_sandbox *sb, pid_t child, int wfd)
{
	int keep[1], childfd, status = 0, have_status = 0;

	keep[0] = wfd;
	if (setsid() < 0 ||
	    dup2(sb->devnull, STDIN_FILENO) < 0 ||
	    dup2(sb->devnull, STDOUT_FILENO) < 0 ||
#ifndef TC_SANITIZE
	    dup2(sb->devnull, STDERR_FILENO) < 0 ||
#endif
	    tc_close_fds_except(keep, 1) != 0 ||
	    (childfd = pidfd_open(child, 0)) < 0) {
		kill(child, SIGKILL);
		tc_keeper_kill_tree(child, &status, &have_status);
		tc_pids_leave(&sb->pids);
		_exit(TC_CHILD_EXIT_SESSION);
	}
	tc_keeper_watch(child, childfd, wfd, &status, &have_status);
	tc_pids_leave(&sb->pids);
	if (!have_status)
		_exit(TC_CHILD_EXIT_SESSION);
	exit_as(status);
}

/*
 * For a profile with a keeper: forks the child in its namespaces, and
 * becomes its keeper.  Returns in the child only, with the keeper's pid
 * as the child sees its parent (0 in a PID namespace of its own).
 */
static pid_t
start_keeper(const struct tc_sandbox *sb, const struct tc_profile *profile,
    int wfd)
{
	pid_t self = getpid(), child;
	int err;

	/* The child is born in the call's pids cgroup, if there is one. */
	if (tc_pids_enter(&sb->pids) != 0 && tc_pids_enter(&sb->pids) != 0) {
		tc_warn("a call's pids cgroup in '%s' could not be entered: "
		    "%s", sb->pids.dir, strerror(errno));
		_exit(TC_CHILD_EXIT_PIDS);
	}
	/* A keeper before there is a child: a process inherits at its fork
	 * whether an ancestor is a subreaper, and the kernel tells the
	 * child's descendants only of those it can find when the keeper
	 * becomes one.  Made one later, a keeper slow to get there (a
	 * loaded machine) let a call that had run already orphan what it
	 * forked twice to init, out of its reach.  The child unblocks the
	 * signals this blocks as it confines itself. */
	if (tc_keeper_become() != 0) {
		tc_pids_leave(&sb->pids);
		_exit(TC_CHILD_EXIT_KEEPER);
	}
	/* Not root: where the shared network namespace is, which a keeper,
	 * a process of this one call, may enter for good. */
	tc_netns_join();
	child = tc_clone_child(tc_sandbox_ns(sb, profile), 0, sb->uid, sb->gid,
	    NULL, &err);
	if (child == 0)
		return self;
	if (child < 0 || err != 0) {
		while (child > 0 && waitpid(child, NULL, 0) < 0 &&
		    errno == EINTR)
			;
		tc_pids_leave(&sb->pids);
		_exit(TC_CHILD_EXIT_NS);
	}
	keeper_main(sb, child, wfd);
}

/* --- A pseudo-terminal (TC_MAY_TTY) --- */

/* The window a terminal starts with. */
#define TTY_ROWS	24
#define TTY_COLS	80

/* Opens master |m|'s slave, with |flags| more: by the master (Linux
 * 4.13), else by its name (into |name|).  Returns the fd or -1. */
static int
open_slave(int m, char *name, size_t size, int flags)
{
	int s;

	flags |= O_RDWR | O_NOCTTY | O_CLOEXEC;
	if ((s = ioctl(m, TIOCGPTPEER, flags)) >= 0)
		return s;
	if (ptsname_r(m, name, size) != 0)
		return -1;
	return open(name, flags);
}

/*
 * Opens a fresh pseudo-terminal pair into |io|, before the child is
 * confined: no Landlock right on /dev/ptmx or /dev/pts is needed, so none
 * is granted, and its programs can neither open another terminal nor make
 * one.  O_NOCTTY: it becomes no one's controlling terminal until the
 * handler's program asks (TIOCSCTTY).  The slave twice: the second, the
 * handler's own mark (stream.h), non-blocking.  Failing leaves io->tty 0
 * and the errno in io->tty_err, for the handler to tell a call that asks
 * for one.
 */
static void
open_terminal(struct tc_call_io *io)
{
	struct winsize ws = { .ws_row = TTY_ROWS, .ws_col = TTY_COLS };
	char name[64];
	int m, s, k, unlock = 0;

	io->tty = 0;
	io->tty_master = io->tty_slave = io->tty_mark = -1;
	if ((m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		io->tty_err = errno;
		return;
	}
	if (ioctl(m, TIOCSPTLCK, &unlock) != 0 ||
	    ioctl(m, TIOCSWINSZ, &ws) != 0)
		goto fail;
	if ((s = open_slave(m, name, sizeof(name), 0)) < 0)
		goto fail;
	if ((k = open_slave(m, name, sizeof(name), O_NONBLOCK)) < 0) {
		close(s);	/* errno stays */
		goto fail;
	}
	io->tty = 1;
	io->tty_master = m;
	io->tty_slave = s;
	io->tty_mark = k;
	io->tty_err = 0;
	return;
fail:
	io->tty_err = errno;
	close(m);
}

/* --- Its life --- */

/*
 * A child's life: confine itself for |profile|, wait for its one call on
 * |rfd|, run the handler, send the result on |wfd|, exit.
 */
/* Its terminal, when its profile gives one (TC_MAY_TTY). */
static struct tc_call_io io;

void
tc_child_main(const struct tc_sandbox *sb, const struct tc_sandbox_profile *sp,
    int rfd, int wfd)
{
	const struct tc_profile *profile = sp->profile;
	struct tc_sandbox kept;
	int keep[TC_KEEP_MAX];
	size_t nkeep = 0;
	int rc;

	if (tc_sandbox_keeper(sb, sp)) {
		/* Its parent is the keeper now, which its parent-death
		 * signal follows. */
		kept = *sb;
		kept.server_pid = start_keeper(sb, profile, wfd);
		sb = &kept;
	}
	/* In the child, not the keeper (which stays in the server's
	 * namespaces), before its capabilities go. */
	if (tc_mounts_protect(sb, sp) != 0) {
		int err = errno;

		tc_warn("a call's child could not keep %s read-only: %s",
		    profile->read_only(sb->policy)[0], tc_mounts_strerror(err));
		_exit(TC_CHILD_EXIT_MOUNTS);
	}
	keep[nkeep++] = rfd;
	keep[nkeep++] = wfd;
	if (profile->may & TC_MAY_TTY) {
		open_terminal(&io);
		if (io.tty) {
			keep[nkeep++] = io.tty_master;
			keep[nkeep++] = io.tty_slave;
			keep[nkeep++] = io.tty_mark;
		}
	}
	if ((rc = tc_sandbox_confine(sb, profile, keep, nkeep)))
		_exit(rc);
	tc_child_ready(sb, profile);
	if (profile->ahead_child != NULL)
		profile->ahead_child(sb->policy);
	tc_child_serve(sb, profile, rfd, wfd);
}

void
tc_child_prefault(void)
{
	prefault();
}

void
tc_child_ready(const struct tc_sandbox *sb, const struct tc_profile *profile)
{
	prefault();
	if (profile->ahead != NULL)
		profile->ahead(sb->policy);
}

void
tc_child_serve(const struct tc_sandbox *sb, const struct tc_profile *profile,
    int rfd, int wfd)
{
	const struct tc_policy *pol = sb->policy;
	struct tc_result res;
	struct tc_policy own;
	struct tc_call call;
	struct tc_buf out;
	cJSON *args = NULL;
	int rc;

	memset(&call, 0, sizeof(call));
	read_call(rfd, profile, &call, &args);
	if (child_policy(call.policy, &call, &own) != 0)
		_exit(TC_CHILD_EXIT_CALL);
	call.policy = &own;
	io.in_fd = (call.tool->flags & TC_TOOL_JOB) ? rfd : -1;
	io.out_fd = wfd;
	call.io = &io;
	/* Confined under the highest limits of any tool: down to this
	 * one's (lowering needs no privilege). */
	if (sb->tool_rlimits && TC_LAYER_ON(TC_LAYER_RLIMITS)) {
		struct tc_limits l;

		tc_policy_limits(pol, call.tool->name, &l);
		if (tc_set_rlimits(&l, tc_sandbox_ns(sb, profile) &
		    CLONE_NEWUSER) != 0)
			_exit(TC_CHILD_EXIT_RLIMIT);
	}
	tc_result_init(&res);
	rc = call.tool->fn(&call, &res);
	if (rc != 0 && !res.is_error)
		tc_result_error(&res, "%s failed: %s", call.tool->name,
		    tc_strerror(rc));
	else if (res.failed != 0 && !res.is_error)
		tc_result_error(&res, "%s: the answer could not be built "
		    "whole (%s); ask for less at a time", call.tool->name,
		    tc_strerror(res.failed));
	/* The server's own cap on results refuses what is too large; this
	 * one only keeps a runaway buffer in bounds. */
	tc_buf_init(&out, (size_t)UINT32_MAX);
	if (tc_result_serialize(&res, &out) != 0 ||
	    tc_frame_write(wfd, TC_FRAME_RESULT, out.data, out.len) != 0)
		_exit(TC_CHILD_EXIT_RESULT);
	/* _exit: no atexit handlers, no stdio flushing of the parent's
	 * buffers, no sanitizer leak report for memory the exit frees. */
	_exit(0);
}
