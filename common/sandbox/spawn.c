/*
 * spawn.c: where call children come from.
 *
 * A child is forked and confined ahead of its call (a ready child, or
 * standby) so that the call pays neither.  The sandbox keeps a pool of
 * them per profile, as many as the policy's "children" says, refilled
 * when the server is idle, so that calls that come in a burst or back to
 * back find one ready.  Standbys are forked by the spawner, a small
 * process the server forks once at start, before it has served anything:
 * the spawner asks clone3() for CLONE_PARENT, so each standby is the
 * server's own child (the server reaps it, and its PDEATHSIG follows the
 * server), while the server itself never forks again.  That matters twice over.
 * Every fork marks the forking process's memory copy-on-write, and on a
 * paravirtualised machine the faults the server would then take on its
 * own heap cost more than a whole call.  And a child forked from the
 * spawner holds a copy of the spawner's memory, which has never seen a
 * call, rather than of the server's, where earlier calls' arguments and
 * results linger in freed memory.
 *
 * Without a spawner (it could not start, or died) the server forks the
 * child itself, as tests that call tc_run_start() directly also do.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"

/* What the server asks of the spawner, with two fds attached: a child
 * of sb->prof[profile], for its pool's slot |slot|. */
struct spawn_req {
	uint32_t	profile;
	uint32_t	slot;
};

/* What the spawner answers, in the order of the requests. */
struct spawn_rep {
	uint32_t	profile;
	uint32_t	slot;
	int32_t		pid;		/* or -errno */
	int32_t		err;		/* killed child to reap: why */
	int32_t		zygote;		/* the profile's new zygote, or 0 */
};

void
tc_standby_clear(struct tc_standby *st)
{
	st->pid = 0;
	st->pending = 0;
	st->head = 0;
	st->pidfd = st->req = st->res = -1;
}

static void
standby_close(struct tc_standby *st)
{
	tc_fd_close(&st->pidfd);
	tc_fd_close(&st->req);
	tc_fd_close(&st->res);
	tc_standby_clear(st);
}

/*
 * Finishes |st| once its child |pid| exists: its pidfd (failing that, or
 * making the pipe non-blocking, is reported as pidfd_open's), a
 * non-blocking result pipe.  The pid is ours until we reap it, so
 * pidfd_open() cannot race.
 */
static int
adopt(struct tc_sandbox *sb, struct tc_standby *st, pid_t pid, int head,
    struct tc_diag *d)
{
	siginfo_t si;

	/* A pid from the spawner may be a zygote's answer (zygote.c), and
	 * a zygote reads database files: only a child of ours is taken,
	 * never signalled or waited for otherwise (waitid() finds no
	 * other, and leaves the child as it is). */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
		tc_diag(d, TC_ESYS, "pid %ld is not a child of the server",
		    (long)pid);
		standby_close(st);
		return TC_ESYS;
	}
	st->pid = pid;
	st->pending = 0;
	st->head = head;
	if ((st->pidfd = pidfd_open(pid, 0)) < 0 ||
	    fcntl(st->res, F_SETFL, O_NONBLOCK) != 0) {
		tc_diag_errno(d, TC_ESYS, "pidfd_open");
		kill(pid, SIGKILL);
		(void)tc_sandbox_waitpid(sb, head, pid, NULL, 0);
		standby_close(st);
		return TC_ESYS;
	}
	return 0;
}

/* --- The spawner --- */

/*
 * The spawner's side of a profile's zygote (zygote.c): its pid, the
 * server's child, and the socket it serves; how many zygotes died before
 * they forked a child (past ZYGOTE_TRIES, the profile has none: its
 * children are confined from the start, as without one).
 */
struct zygote {
	pid_t		 pid;
	int		 sock;
	int		 forked;
	unsigned	 died;
};

#define ZYGOTE_TRIES	3

/*
 * How long the spawner waits for a zygote's answer, in ms.  A fork takes
 * well under one; a zygote that runs its ahead work again first (its
 * stale hook) takes what that work may take (toolcell-sqlite's: a busy
 * database's short waits).  One that does not answer in time is stuck
 * (an open that blocks, say): it is killed, and the request that met it
 * gets no child (zygote_fork()).
 */
#define ZYGOTE_WAIT_MS	5000

static struct zygote zygotes[TC_PROFILES_MAX];

/*
 * Starts the zygote of sb->prof[|i|], the server's child.  Returns its
 * pid, or 0 when it cannot be started.
 */
static pid_t
zygote_start(const struct tc_sandbox *sb, size_t i, int spawner_sock)
{
	struct zygote *z = &zygotes[i];
	int sv[2], err;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return 0;
	if ((pid = tc_clone_child(0, 1, sb->uid, sb->gid, NULL, &err)) == 0) {
		close(sv[0]);
		close(spawner_sock);
		tc_zygote_main(sb, &sb->prof[i], sv[1]);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return 0;
	}
	z->pid = pid;
	z->sock = sv[0];
	z->forked = 0;
	return pid;
}

/* The zygote of sb->prof[|i|] is gone or misbehaved: the server reaps it
 * (it knows the pid from the answer that reported it). */
static void
zygote_lost(size_t i)
{
	struct zygote *z = &zygotes[i];

	if (z->pid > 0)
		kill(z->pid, SIGKILL);
	tc_fd_close(&z->sock);
	if (!z->forked)
		z->died++;
	z->pid = 0;
}

/*
 * Asks the zygote of sb->prof[|i|] for a child holding |fds|, starting
 * the zygote first where there is none (its pid then in *|started|).
 * Returns the child's pid, or 0 when there is no zygote to ask or it
 * forked none: the spawner then clones the child itself; or -1 when it
 * took |fds| and gave no answer (it died, or misbehaved), when a child
 * it forked may hold them: they are then no other child's.
 */
static pid_t
zygote_fork(const struct tc_sandbox *sb, size_t i, const int fds[2],
    int spawner_sock, pid_t *started)
{
	struct zygote *z = &zygotes[i];
	struct pollfd pfd;
	char byte = 'c';
	int32_t answer;
	ssize_t n;

	if (!tc_sandbox_zygote(&sb->prof[i]) || z->died >= ZYGOTE_TRIES)
		return 0;
	if (z->pid <= 0 && (*started = zygote_start(sb, i,
	    spawner_sock)) <= 0) {
		z->died++;
		return 0;
	}
	if (tc_fds_send(z->sock, &byte, 1, fds) != 0) {
		zygote_lost(i);
		return 0;
	}
	pfd.fd = z->sock;
	pfd.events = POLLIN;
	do
		n = poll(&pfd, 1, ZYGOTE_WAIT_MS);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		do
			n = recv(z->sock, &answer, sizeof(answer),
			    MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
	else
		n = -1;
	if (n != sizeof(answer) || answer <= 0) {
		/* Whatever it was, the next request gets a new zygote.  A
		 * child forked before the zygote could answer would share
		 * the pipes with one cloned here: this request gets none. */
		zygote_lost(i);
		return n != sizeof(answer) ? -1 : 0;
	}
	z->forked = 1;
	return (pid_t)answer;
}

static void __attribute__((__noreturn__))
spawner_main(const struct tc_sandbox *sb, int sock)
{
	const struct tc_policy *pol = sb->policy;
	const struct tc_sandbox_profile *sp;
	struct spawn_req rq;
	struct spawn_rep rp;
	int keep[TC_KEEP_MAX], fds[2], rc, err;
	size_t nkeep = 0, i;
	pid_t pid;

	/* It lives and dies with the server. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
	    getppid() != sb->server_pid)
		_exit(1);
	/* It keeps what its children need and nothing of the server's
	 * protocol: stdin and stdout become /dev/null. */
	keep[nkeep++] = sock;
	keep[nkeep++] = sb->devnull;
	for (i = 0; i < sb->nprof; i++)
		if (sb->prof[i].ruleset >= 0)
			keep[nkeep++] = sb->prof[i].ruleset;
	for (i = 0; i < pol->nroots && nkeep < TC_KEEP_MAX; i++)
		keep[nkeep++] = pol->roots[i].fd;
	if (dup2(sb->devnull, STDIN_FILENO) < 0 ||
	    dup2(sb->devnull, STDOUT_FILENO) < 0 ||
	    tc_close_fds_except(keep, nkeep) != 0)
		_exit(1);
	/* The heap its children inherit, consolidated once here and kept
	 * so (no fastbins): otherwise each child's first large allocation
	 * merged the free chunks left from the server's start, writing to
	 * pages all over the heap, each one copied on write, which cost
	 * more than the rest of a child's preparation. */
	(void)mallopt(M_MXFAST, 0);
	(void)malloc_trim(0);
	/* What every child would do first, done once: its children inherit
	 * it (and the spawner itself can never regain a capability through
	 * exec).  It keeps its effective capabilities: root's children need
	 * theirs to switch users and write namespace maps. */
	if (TC_LAYER_ON(TC_LAYER_CAPS) && tc_lock_privileges(0) != 0)
		_exit(1);
	for (i = 0; i < TC_PROFILES_MAX; i++) {
		zygotes[i].pid = 0;
		zygotes[i].sock = -1;
		zygotes[i].died = 0;
	}
	/* One empty network namespace for the children that want one,
	 * where that is safe. */
	tc_netns_share(sb);

	for (;;) {
		if ((rc = tc_fds_recv(sock, &rq, sizeof(rq), fds)) <= 0)
			_exit(rc == 0 ? 0 : 1);
		rp.profile = rq.profile;
		rp.slot = rq.slot;
		rp.zygote = 0;
		/* This request's own: a request that never clones must not
		 * answer with the last one's. */
		err = 0;
		sp = rq.profile < sb->nprof ? &sb->prof[rq.profile] : NULL;
		if (sp == NULL)
			rp.pid = -EINVAL;
		else if ((pid = zygote_fork(sb, rq.profile, fds, sock,
		    &rp.zygote)) > 0)
			rp.pid = (int32_t)pid;
		else if (pid < 0)
			rp.pid = -ECHILD;
		else if ((pid = tc_clone_child(tc_child_clone_ns(sb, sp), 1,
		    sb->uid, sb->gid, tc_child_clone_pids(sb, sp),
		    &err)) == 0) {
			close(sock);
			tc_child_main(sb, sp, fds[0], fds[1]);
		} else
			rp.pid = pid > 0 ? (int32_t)pid : -errno;
		rp.err = err;
		close(fds[0]);
		close(fds[1]);
		if (send(sock, &rp, sizeof(rp), MSG_NOSIGNAL) != sizeof(rp))
			_exit(1);
	}
}

/* Kills and reaps the zygote of |sp|, if it has one. */
static void
zygote_reap(struct tc_sandbox_profile *sp)
{
	if (sp->zygote <= 0)
		return;
	kill(sp->zygote, SIGKILL);
	while (waitpid(sp->zygote, NULL, 0) < 0 && errno == EINTR)
		;
	sp->zygote = 0;
}

static void
spawner_stop(struct tc_sandbox *sb)
{
	size_t i;

	if (sb->spawner <= 0)
		return;
	tc_fd_close(&sb->spawner_fd);
	kill(sb->spawner, SIGKILL);
	while (waitpid(sb->spawner, NULL, 0) < 0 && errno == EINTR)
		;
	sb->spawner = 0;
	/* The zygotes are the server's children, which the spawner
	 * started and told of. */
	for (i = 0; i < sb->nprof; i++)
		zygote_reap(&sb->prof[i]);
}

static int
spawner_start(struct tc_sandbox *sb, struct tc_diag *d)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return tc_diag_errno(d, TC_ESYS, "socketpair");
	if ((pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		return tc_diag_errno(d, TC_ESYS, "fork");
	}
	if (pid == 0) {
		close(sv[0]);
		spawner_main(sb, sv[1]);
	}
	close(sv[1]);
	sb->spawner = pid;
	sb->spawner_fd = sv[0];
	return 0;
}

/* Returns how many children are asked of the spawner and not answered. */
static size_t
npending(const struct tc_sandbox *sb)
{
	size_t i, k, n = 0;

	for (i = 0; i < sb->nprof; i++)
		for (k = 0; k < TC_POOL_MAX; k++)
			n += sb->prof[i].pool[k].pending != 0;
	return n;
}

/* The spawner is gone or misbehaved: fork children ourselves from now. */
static void
spawner_lost(struct tc_sandbox *sb, const char *why)
{
	size_t i, k;

	tc_warn("the spawner of call children stopped (%s); the server "
	    "forks them itself from now on", why);
	spawner_stop(sb);
	for (i = 0; i < sb->nprof; i++)
		for (k = 0; k < TC_POOL_MAX; k++)
			if (sb->prof[i].pool[k].pending)
				standby_close(&sb->prof[i].pool[k]);
}

/* Asks the spawner for a child of sb->prof[|pi|] in its pool's slot |k|. */
static int
spawner_ask(struct tc_sandbox *sb, size_t pi, size_t k)
{
	struct tc_standby *st = &sb->prof[pi].pool[k];
	struct spawn_req rq = { (uint32_t)pi, (uint32_t)k };
	int req[2], res[2], fds[2], rc, err;

	if (pipe2(req, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(res, O_CLOEXEC) != 0) {
		close(req[0]);
		close(req[1]);
		return -1;
	}
	tc_stream_grow(res[0], TC_PIPE_BYTES);
	fds[0] = req[0];
	fds[1] = res[1];
	rc = tc_fds_send(sb->spawner_fd, &rq, sizeof(rq), fds);
	err = errno;
	/* The child's ends live on in the spawner's copy. */
	close(req[0]);
	close(res[1]);
	if (rc != 0) {
		close(req[1]);
		close(res[0]);
		spawner_lost(sb, strerror(err));
		return -1;
	}
	tc_standby_clear(st);
	st->pending = 1;
	st->req = req[1];
	st->res = res[0];
	st->seq = ++sb->seq;
	return 0;
}

/* 1 if |pid| is the spawner, a zygote or a ready child of |sb|'s. */
static int
known(const struct tc_sandbox *sb, pid_t pid)
{
	size_t i, k;

	if (pid == sb->spawner)
		return 1;
	for (i = 0; i < sb->nprof; i++) {
		if (pid == sb->prof[i].zygote)
			return 1;
		for (k = 0; k < TC_POOL_MAX; k++)
			if (pid == sb->prof[i].pool[k].pid)
				return 1;
	}
	return 0;
}

/*
 * Takes one of the spawner's answers, waiting for it with |block|.
 * Returns 1 when one was taken, 0 when none is there (or none pending),
 * -1 when the spawner is lost.
 */
static int
collect_one(struct tc_sandbox *sb, int block)
{
	struct tc_diag d TC_UNINIT;
	struct tc_standby *st;
	struct spawn_rep rp;
	ssize_t n;

	if (sb->spawner <= 0 || npending(sb) == 0)
		return 0;
	do
		n = recv(sb->spawner_fd, &rp, sizeof(rp), block ? 0 :
		    MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n != sizeof(rp) || rp.profile >= sb->nprof ||
	    rp.slot >= TC_POOL_MAX ||
	    !sb->prof[rp.profile].pool[rp.slot].pending) {
		spawner_lost(sb, n < 0 ? strerror(errno) : n == 0 ?
		    "it exited" : "a malformed answer");
		return -1;
	}
	st = &sb->prof[rp.profile].pool[rp.slot];
	/* A new zygote for the profile: the old one, if any, is gone (the
	 * spawner killed it), and is reaped now. */
	if (rp.zygote > 0) {
		zygote_reap(&sb->prof[rp.profile]);
		sb->prof[rp.profile].zygote = (pid_t)rp.zygote;
	}
	if (rp.pid > 0 && rp.err != 0) {
		/* Ours to reap: the spawner killed it (or it exited at the
		 * gate, perhaps placed in its cgroup). */
		(void)tc_sandbox_waitpid(sb, tc_sandbox_head(sb,
		    &sb->prof[rp.profile]), (pid_t)rp.pid, NULL, 0);
		rp.pid = -rp.err;
	}
	tc_diag_init(&d);
	if (rp.pid > 0 && known(sb, (pid_t)rp.pid)) {
		/* A zygote's answer naming a child of ours that is not
		 * the one it forked: never taken for a ready child. */
		tc_debug("no standby child: pid %ld is another child of the "
		    "server", (long)rp.pid);
		standby_close(st);
	} else if (rp.pid <= 0) {
		tc_debug("no standby child: clone3: %s", strerror(-rp.pid));
		standby_close(st);
	} else if (adopt(sb, st, (pid_t)rp.pid, tc_sandbox_head(sb,
	    &sb->prof[rp.profile]), &d) != 0)
		tc_debug("no standby child: %s", d.msg);
	return 1;
}

/*
 * Takes the spawner's answers: all that are there, or with |block| until
 * none is pending.
 */
static void
spawner_collect(struct tc_sandbox *sb, int block)
{
	while (collect_one(sb, block) == 1)
		;
}

/* --- Ready children --- */

/* Forks a child for |sp| from this process; it confines itself. */
static int
fork_child(struct tc_sandbox *sb, const struct tc_sandbox_profile *sp,
    struct tc_standby *st, struct tc_diag *d)
{
	int req[2], res[2], err;
	pid_t pid;

	tc_standby_clear(st);
	if (pipe2(req, O_CLOEXEC) != 0)
		return tc_diag_errno(d, TC_ESYS, "pipe");
	if (pipe2(res, O_CLOEXEC) != 0) {
		tc_diag_errno(d, TC_ESYS, "pipe");
		close(req[0]);
		close(req[1]);
		return TC_ESYS;
	}
	tc_stream_grow(res[0], TC_PIPE_BYTES);
	if ((pid = tc_clone_child(tc_child_clone_ns(sb, sp), 0, sb->uid,
	    sb->gid, tc_child_clone_pids(sb, sp), &err)) > 0 && err != 0) {
		(void)tc_sandbox_waitpid(sb, tc_sandbox_head(sb, sp), pid,
		    NULL, 0);
		pid = -1;
		errno = err;
	}
	if (pid < 0) {
		tc_diag_errno(d, TC_ESYS, sp->ns != 0 ?
		    "cannot create a child in its own namespaces" :
		    "cannot create a child");
		close(req[0]);
		close(req[1]);
		close(res[0]);
		close(res[1]);
		return TC_ESYS;
	}
	if (pid == 0) {
		close(req[1]);
		close(res[0]);
		tc_child_main(sb, sp, req[0], res[1]);
	}
	close(req[0]);
	close(res[1]);
	st->req = req[1];
	st->res = res[0];
	st->seq = ++sb->seq;
	return adopt(sb, st, pid, tc_sandbox_head(sb, sp), d);
}

/*
 * Kills every ready child at once, then reaps them: a pool is retired in
 * the time of one child's death, not of each in turn.
 */
static void
retire_all(struct tc_sandbox *sb)
{
	struct tc_standby *st;
	struct pollfd pfd;
	size_t i, k;

	/* A child with a keeper is retired by the keeper's word, the
	 * result pipe's end closed: it kills the tree and exits.  Killing
	 * the keeper instead would leave the child it holds to the nearest
	 * subreaper, for its parent-death signal to end. */
	for (i = 0; i < sb->nprof; i++)
		for (k = 0; k < TC_POOL_MAX; k++) {
			if ((st = &sb->prof[i].pool[k])->pid <= 0)
				continue;
			if (tc_sandbox_keeper(sb, &sb->prof[i])) {
				tc_fd_close(&st->req);
				tc_fd_close(&st->res);
			} else
				pidfd_send_signal(st->pidfd, SIGKILL, NULL, 0);
		}
	for (i = 0; i < sb->nprof; i++)
		for (k = 0; k < TC_POOL_MAX; k++) {
			st = &sb->prof[i].pool[k];
			if (st->pid > 0 && tc_sandbox_keeper(sb, &sb->prof[i])) {
				pfd.fd = st->pidfd;
				pfd.events = POLLIN;
				while (poll(&pfd, 1, TC_KEEPER_GRACE_MS) < 0 &&
				    errno == EINTR)
					;
				pidfd_send_signal(st->pidfd, SIGKILL, NULL, 0);
			}
			if (st->pid > 0)
				(void)tc_sandbox_waitpid(sb, st->head,
				    st->pid, NULL, 0);
			standby_close(st);
		}
}

/* Returns |sp|'s ready child asked for first, or NULL. */
static struct tc_standby *
oldest_ready(struct tc_sandbox_profile *sp)
{
	struct tc_standby *best = NULL;
	size_t k;

	for (k = 0; k < TC_POOL_MAX; k++)
		if (sp->pool[k].pid > 0 && (best == NULL ||
		    sp->pool[k].seq < best->seq))
			best = &sp->pool[k];
	return best;
}

int
tc_standby_take(struct tc_sandbox *sb, const struct tc_profile *profile,
    struct tc_standby *out, struct tc_diag *d)
{
	const struct tc_sandbox_profile *found = tc_sandbox_find(sb, profile);
	struct tc_sandbox_profile *sp;
	struct tc_standby *st;
	size_t i, k;
	int asked = 0, pending;

	if (found == NULL)
		return tc_diag(d, TC_ESYS, "no confinement was prepared for "
		    "profile '%s'", profile != NULL ? profile->name : "(none)");
	i = (size_t)(found - sb->prof);
	sp = &sb->prof[i];
	spawner_collect(sb, 0);
	for (;;) {
		if ((st = oldest_ready(sp)) != NULL) {
			*out = *st;
			tc_standby_clear(st);
			return 0;
		}
		/* One on its way: the spawner answers in order, so it comes
		 * before any asked for now. */
		for (pending = 0, k = 0; k < TC_POOL_MAX; k++)
			pending |= sp->pool[k].pending;
		if (pending) {
			collect_one(sb, 1);
			continue;
		}
		for (k = 0; k < TC_POOL_MAX && (sp->pool[k].pid > 0 ||
		    sp->pool[k].pending); k++)
			;
		/* Asked once: if the spawner could not make it, neither is
		 * asking again likely to. */
		if (!asked && sb->spawner > 0 && k < TC_POOL_MAX &&
		    spawner_ask(sb, i, k) == 0) {
			asked = 1;
			continue;
		}
		return fork_child(sb, sp, out, d);
	}
}

unsigned
tc_sandbox_ready(const struct tc_sandbox *sb, const struct tc_profile *profile)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, profile);
	unsigned n = 0;
	size_t k;

	for (k = 0; sp != NULL && k < TC_POOL_MAX; k++)
		n += sp->pool[k].pid > 0;
	return n;
}

pid_t
tc_sandbox_waitpid(struct tc_sandbox *sb, int head, pid_t pid,
    int *status, int options)
{
	siginfo_t si;
	pid_t w;
	int rc;

	if (head != TC_HEAD_NONE && sb != NULL && sb->pids.dir[0] != '\0' &&
	    pid > 0) {
		/* Ended, not reaped: the zombie holds the pid. */
		memset(&si, 0, sizeof(si));
		do
			rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT |
			    (options & WNOHANG));
		while (rc < 0 && errno == EINTR);
		if (rc == 0 && si.si_pid == pid)
			tc_pids_done(&sb->pids, pid, head == TC_HEAD_CHILD);
		else if (rc == 0 && (options & WNOHANG))
			return 0;	/* not ended: left for later */
	}
	do
		w = waitpid(pid, status, options);
	while (w < 0 && errno == EINTR);
	return w;
}

size_t
tc_sandbox_reap(struct tc_sandbox *sb, int block)
{
	struct tc_standby *z;
	size_t i = 0;
	pid_t w;

	while (i < sb->ndead) {
		z = &sb->dead[i];
		/* A child without a keeper leaves its cgroup to us; a
		 * keeper killed before it left, too. */
		w = tc_sandbox_waitpid(sb, z->head, z->pid, NULL,
		    block ? 0 : WNOHANG);
		if (w == 0) {
			i++;
			continue;
		}
		tc_fd_close(&z->pidfd);
		*z = sb->dead[--sb->ndead];
	}
	return sb->ndead;
}

int
tc_sandbox_pollfds(const struct tc_sandbox *sb, struct pollfd *pfd)
{
	size_t i;

	for (i = 0; i < sb->ndead; i++) {
		pfd[i].fd = sb->dead[i].pidfd;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
	if (sb->watch_fd < 0)
		return (int)sb->ndead;
	pfd[i].fd = sb->watch_fd;
	pfd[i].events = POLLIN;
	pfd[i].revents = 0;
	return (int)sb->ndead + 1;
}

void
tc_sandbox_step(struct tc_sandbox *sb, const struct pollfd *pfd, int npfd)
{
	int i, reap = 0;

	for (i = 0; i < npfd; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (pfd[i].fd == sb->watch_fd) {
			/* Ready children that would bind too little: made
			 * again, each finding what is there now. */
			if (tc_watch_changed(sb) && sb->pooling) {
				spawner_collect(sb, 1);
				retire_all(sb);
				tc_sandbox_refill(sb);
			}
		} else
			reap = 1;
	}
	if (reap)
		tc_sandbox_reap(sb, 0);
}

void
tc_sandbox_refill(struct tc_sandbox *sb)
{
	struct tc_diag d TC_UNINIT;
	struct tc_standby *st;
	size_t i, k, n;

	tc_diag_init(&d);
	tc_sandbox_reap(sb, 0);
	spawner_collect(sb, 0);
	/* Every slot at once: the spawner forks them one after another,
	 * and they confine themselves side by side. */
	for (i = 0; i < sb->nprof; i++) {
		n = sb->pool;
		if (sb->prof[i].profile->ready > 0 &&
		    sb->prof[i].profile->ready < n)
			n = sb->prof[i].profile->ready;
		for (k = 0; k < n && k < TC_POOL_MAX; k++) {
			st = &sb->prof[i].pool[k];
			if (st->pid > 0 || st->pending)
				continue;
			if (sb->spawner > 0 && spawner_ask(sb, i, k) == 0)
				continue;
			if (fork_child(sb, &sb->prof[i], st, &d) != 0)
				tc_debug("no standby child: %s", d.msg);
		}
	}
}

void
tc_sandbox_prefork(struct tc_sandbox *sb, unsigned n)
{
	struct tc_diag d = { "", 0 };

	/* Ready children, and the spawner's copy of the sandbox, are as
	 * the sandbox was when they were forked: start afresh. */
	spawner_collect(sb, 1);
	retire_all(sb);
	spawner_stop(sb);
	tc_watch_stop(sb);
	sb->pool = n < TC_POOL_MAX ? n : TC_POOL_MAX;
	sb->pooling = 1;
	if (sb->nprof > 0 && spawner_start(sb, &d) != 0)
		tc_warn("cannot start the spawner of call children (%s); "
		    "the server forks them itself", d.msg);
	/* After the spawner, which has no use for it; before the children,
	 * so that nothing made while they are made is missed. */
	tc_watch_start(sb);
	tc_sandbox_refill(sb);
}

void
tc_sandbox_stop(struct tc_sandbox *sb)
{
	sb->pool = 0;
	sb->pooling = 0;
	spawner_collect(sb, 1);
	retire_all(sb);
	spawner_stop(sb);
	tc_sandbox_reap(sb, 1);
	tc_watch_stop(sb);
}
