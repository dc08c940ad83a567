/*
 * sandbox-int.h: the sandbox module's private parts, shared by the files
 * of common/sandbox/.  Nothing outside them includes it (but the unit
 * tests of the module).
 * Returns (sandbox/): 0 or a negative TC_E* code, with a struct tc_diag
 * where a person must read why; a question 1 or 0; a count or a lookup
 * what it found (NULL: nothing); a step that a child or a keeper takes
 * against the kernel 0 or -1 with errno set.
 * What makes an fd or a process returns it, or fails as its entry says.
 *
 * The files, each calling only those listed below it (sandbox.h is the
 * public face of them all):
 *
 *	run.c		the parent's side of a call: hands it to a child,
 *			reads its frames, turns them into the answer
 *	prepare.c	the sandbox made ready at start (the kernel probed,
 *			each profile prepared, the roots' reach), re-rooted
 *			when the roots change, released
 *	hook.c		the consent hook runner (hook.h), apart
 *	spawn.c		the pool of ready children and the spawner
 *	zygote.c	a profile's zygote, which forks its ready children
 *	child.c		a child's life: its keeper if it has one, its
 *			confinement, its call
 *	confine.c	the confinement steps, one STEP a line
 *	landlock.c	a profile's Landlock ruleset
 *	seccomp.c	a profile's seccomp filter
 *	stream.c	what a handler streams (stream.h)
 *	frame.c		the frames on a child's pipes
 *	ns.c		namespaces, and a child cloned into them (and placed
 *			in its call's pids cgroup)
 *	mounts.c	what a profile keeps read-only beneath the writable
 *			roots, bound in a child's mount namespace
 *	watch.c		the server's watch on those places, which retires
 *			ready children that would bind too little
 *	keeper.c	a subreaper that kills a whole tree (keeper.h)
 *	pids.c		a call's pids cgroup, its child or keeper put in it
 *			(pids.h)
 *	fd.c		closing fds (fd.h)
 *	sig.c		a signal back to its default (sig.h)
 *
 * with this header, sandbox.h and profile.h at the bottom: types,
 * constants and the small inline helpers below.
 */
#ifndef TC_SANDBOX_INT_H
#define TC_SANDBOX_INT_H

#include <sched.h>

#include "sandbox/fd.h"
#include "sandbox/sandbox.h"

/* --- The pool (spawn.c) --- */

void	tc_standby_clear(struct tc_standby *st);

/*
 * Moves a started, confined child for |profile| into |out|: a ready one
 * from the pool, the spawner's answer, or failing those a child forked
 * here.  Returns 0, or TC_ESYS with |d| set (also for a profile that was
 * not prepared).
 */
int	tc_standby_take(struct tc_sandbox *sb, const struct tc_profile *profile,
	    struct tc_standby *out, struct tc_diag *d);

/*
 * Reaps the killed children of answered calls (sb->dead); with |block|,
 * waits for them.  Returns how many are left.
 */
size_t	tc_sandbox_reap(struct tc_sandbox *sb, int block);

/*
 * waitpid(|pid|, |status|, |options|) for a child of the server, retried
 * on EINTR.  For a child whose pid names a call's pids cgroup (|head|,
 * from tc_sandbox_head(); never for any other, whose pid may name a
 * stale cgroup of an earlier holder's), once the child has ended and
 * before it is reaped, keeps that cgroup as a spare or removes it
 * (tc_pids_done()) while its zombie still holds the pid that names it;
 * with WNOHANG, a child not yet ended is left as it is (0).  Returns what
 * waitpid() returns.
 */
pid_t	tc_sandbox_waitpid(struct tc_sandbox *sb, int head, pid_t pid,
	    int *status, int options);

/* --- A child's life (child.c) --- */

/*
 * A call child's life: confine itself for |sp|'s profile, wait for its one
 * call on |rfd|, run the handler, send the result on |wfd|, exit.
 */
void	tc_child_main(const struct tc_sandbox *sb,
	    const struct tc_sandbox_profile *sp, int rfd, int wfd)
	    __attribute__((__noreturn__));

/*
 * The parts of that life after the confinement, for tc_child_main() and
 * a zygote's children (zygote.c): what a confined child does before its
 * call comes (the walk that prefaults a call's path, the profile's ahead
 * hook), then the call itself: read it on |rfd|, run the handler, send
 * the result on |wfd|, exit.
 */
void	tc_child_prefault(void);
void	tc_child_ready(const struct tc_sandbox *sb,
	    const struct tc_profile *profile);
void	tc_child_serve(const struct tc_sandbox *sb,
	    const struct tc_profile *profile, int rfd, int wfd)
	    __attribute__((__noreturn__));


/*
 * Keepers: 1 if the children of |profile| may need a keeper
 * (sandbox/keeper.h) between them and the server, because they may fork
 * (TC_MAY_FORK): prepare.c probes the pids cgroup for them.
 */
static inline int
tc_sandbox_may_keep(const struct tc_profile *profile)
{
	/* Only a profile that may fork can leave anything behind; any
	 * other child is its whole tree, and killing it is enough. */
	return (profile->may & TC_MAY_FORK) != 0;
}

/*
 * 1 if the children of |sp| in |sb| have a keeper: they may fork, and no
 * PID namespace of their own is in force, where only a keeper finds and
 * kills what they leave.  Else the child, pid 1 of its PID namespace, is
 * the whole tree: the kernel kills every process of the namespace when
 * it ends, however they detached, so the spawner clones it in its
 * namespaces as the server's own child, places it in its call's pids
 * cgroup where one is in force before it runs (tc_sandbox_pids()), and
 * the server ends it as any child without a keeper (run.c).  Server and
 * spawner decide alike, from the profile's namespaces alone.
 * The spawner clones a kept child's keeper in the namespaces
 * tc_child_clone_ns() gives (none), and the keeper clones the child in
 * its own (tc_sandbox_ns()).
 */
static inline int
tc_sandbox_keeper(const struct tc_sandbox *sb,
    const struct tc_sandbox_profile *sp)
{
	(void)sb;
	/* Not one of |sb|'s: a keeper, which holds the most. */
	if (sp == NULL)
		return 1;
	return tc_sandbox_may_keep(sp->profile) && !(sp->ns & CLONE_NEWPID);
}

/*
 * The pids cgroups of |sp|'s children in |sb|, or NULL: where they may
 * fork and the server opened its directory, each call has one
 * (pids.h).  A keeper enters it before it clones its child; a child
 * without one is placed in it by whoever clones it (tc_clone_child()).
 */
static inline const struct tc_pids *
tc_sandbox_pids(const struct tc_sandbox *sb,
    const struct tc_sandbox_profile *sp)
{
	return sp != NULL && tc_sandbox_may_keep(sp->profile) &&
	    sb->pids.dir[0] != '\0' ? &sb->pids : NULL;
}

/* What the pid of what the server holds for a call (the child, or its
 * keeper) names: nothing, or a call's pids cgroup, which the server keeps
 * or removes as it reaps it (tc_sandbox_waitpid()). */
enum {
	TC_HEAD_NONE = 0,
	TC_HEAD_CHILD,		/* a child placed, pid 1 of its PID namespace:
				   ended, its zombie is all the cgroup holds */
	TC_HEAD_KEEPER,		/* a keeper, which leaves the cgroup before it
				   ends, and may be killed with processes of
				   its call still in it */
};

/* The TC_HEAD_* of a call of |sp|. */
static inline int
tc_sandbox_head(const struct tc_sandbox *sb,
    const struct tc_sandbox_profile *sp)
{
	if (tc_sandbox_pids(sb, sp) == NULL)
		return TC_HEAD_NONE;
	return tc_sandbox_keeper(sb, sp) ? TC_HEAD_KEEPER : TC_HEAD_CHILD;
}

/* What the process that clones |sp|'s child places in a pids cgroup
 * (tc_clone_child()): the child itself where it has no keeper; none
 * where its keeper enters one. */
static inline const struct tc_pids *
tc_child_clone_pids(const struct tc_sandbox *sb,
    const struct tc_sandbox_profile *sp)
{
	return tc_sandbox_keeper(sb, sp) ? NULL : tc_sandbox_pids(sb, sp);
}

static inline unsigned long
tc_child_clone_ns(const struct tc_sandbox *sb,
    const struct tc_sandbox_profile *sp)
{
	/* The keeper stays outside the child's namespaces: in a PID
	 * namespace of its own the child is its pid 1, as without one. */
	return tc_sandbox_keeper(sb, sp) ? 0 : sp->ns;
}

/*
 * The network the children of |profile| have under |pol|: the policy's
 * grant if the profile may have one (TC_MAY_NETWORK), else none.
 */
static inline enum tc_network
tc_profile_network(const struct tc_policy *pol,
    const struct tc_profile *profile)
{
	return (profile->may & TC_MAY_NETWORK) ? pol->network :
	    TC_NETWORK_OFF;
}

/* --- Read-only places (mounts.c) --- */

/*
 * In a child of |sp| cloned in a mount namespace of its own, before it
 * is confined: binds read-only what sp->profile->read_only names beneath
 * the writable roots, and opens every root's fd again in the namespace
 * (the numbers kept).  Nothing to do returns 0.  Returns 0, or -1 with
 * errno (E2BIG: more places than a child binds; ESTALE: a root's path
 * names another directory now).
 */
int	tc_mounts_protect(const struct tc_sandbox *sb,
	    const struct tc_sandbox_profile *sp);

/* The mounts one child makes to keep places read-only, at most (two for
 * a repository one level down: it, and its directory): past it the child
 * fails rather than leave one writable. */
#define TC_READ_ONLY_MAX	512

/* Why tc_mounts_protect() failed with |err|, for a person. */
const char	*tc_mounts_strerror(int err);

/* 1 if the children of |profile| want a mount namespace under |pol|: it
 * keeps places read-only and there is a writable root to keep them in. */
int	tc_mounts_wanted(const struct tc_policy *pol,
	    const struct tc_profile *profile);

/* --- The watch on them (watch.c) --- */

/*
 * Watches the tops of the writable roots and the directories one level
 * down for a name some profile keeps read-only (tc_watch_start(), anew;
 * nothing where none is kept); tc_watch_stop() ends it.
 * tc_watch_changed() reads what the watch saw and returns 1 if one of
 * the names appeared (the ready children bind too little), else 0.
 */
void	tc_watch_start(struct tc_sandbox *sb);
void	tc_watch_stop(struct tc_sandbox *sb);
int	tc_watch_changed(struct tc_sandbox *sb);

/* --- The confinement steps (confine.c) --- */

/*
 * Locks root out of regaining capabilities through exec or a uid change
 * (securebits) and empties the bounding set.  Both need CAP_SETPCAP, which
 * only a privileged process has (or one in a user namespace of its own); an
 * unprivileged one has nothing here to drop.  A process that is root and
 * |stays_root| (it will not switch to another user) but lacks CAP_SETPCAP
 * (a root whose bounding set was cut, without a user namespace) cannot be
 * locked, and an exec would give it back its bounding set's capabilities:
 * that fails.  Returns 0 or -1.
 */
int	tc_lock_privileges(int stays_root);

/*
 * Sets a call's resource limits |l|; RLIMIT_NPROC only with
 * |own_userns| (a user namespace of the call's own, where it counts that
 * call's processes).  Returns 0 or -1.
 */
int	tc_set_rlimits(const struct tc_limits *l, int own_userns);


/*
 * Becomes |uid|:|gid| with no supplementary groups, for good, and arms
 * the death signal of |parent| again.  Returns 0 or -1.
 */
int	tc_switch_user(uid_t uid, gid_t gid, pid_t parent);

/*
 * Empties every capability set and checks that they are.  Returns 0 or
 * -1.
 */
int	tc_clear_capabilities(void);

/*
 * Whether a confinement layer is on: always, but in the bench runner's
 * build (-DTC_BENCH), where bench/ may switch one off.
 */
#ifdef TC_BENCH
#define TC_LAYER_ON(layer)	(!(tc_bench_off & (layer)))
#else
#define TC_LAYER_ON(layer)	1
#endif

/* --- Landlock (landlock.c) --- */

/*
 * Returns the running kernel's Landlock ABI version, or 0 when Landlock is
 * missing or disabled.
 */
int	tc_landlock_abi(void);

/*
 * Builds the ruleset for |profile| from |pol|'s roots: its root_access
 * beneath every root and its write_access beneath the writable ones, its
 * system paths, and the rules its rules function adds.  Every filesystem
 * right of |abi| is handled, so anything not granted is denied; so are TCP
 * bind and connect (ABI 4) and, with ABI 6, abstract unix sockets and
 * signals outside the sandbox.  With the network the policy grants the
 * profile (tc_profile_network()): its net_system paths, and TCP connect
 * on each port of "network connect", or for "network on" TCP left
 * unhandled (any port).  Returns the ruleset fd, or -1 with |d| set (for
 * ports on a kernel below ABI 4 too, which tc_sandbox_init() refuses
 * before it builds anything).
 */
int	tc_landlock_build(const struct tc_policy *pol,
	    const struct tc_profile *profile, int abi, struct tc_diag *d);

/* In the child: enforces ruleset |fd| on the calling process, and closes
 * |fd|. */
int	tc_landlock_apply(int fd);

/*
 * A ruleset that grants and refuses no file or port, and scopes abstract
 * unix sockets and signals (ABI 6): enforced, it makes the process a
 * Landlock domain of its own within its current one, whose signals and
 * abstract sockets reach no process outside it, its siblings in the
 * domain above included.  Returns its fd, or -1 with errno set (EINVAL
 * below ABI 6).
 */
int	tc_landlock_scope(void);

/* --- seccomp (seccomp.c) --- */

/* What the other layers confine, which the filter relies on. */
enum tc_seccomp_opts {
	/* Landlock is in force: a profile with TC_MAY_OPENAT2 may use
	 * openat2(), since it can make no file with it. */
	TC_SECCOMP_LANDLOCK	= 1 << 0,
	/* A PID namespace or Landlock's signal scope keeps the signals of
	 * a profile with TC_MAY_SIGNAL within the call: kill() and tgkill()
	 * of any pid; else kill() of its own process group only. */
	TC_SECCOMP_SIGNALS	= 1 << 1,
	/* A network granted (TC_MAY_NETWORK): TCP sockets that Landlock
	 * lets connect to the policy's ports (ABI 4), and no TCP Fast
	 * Open; or with TC_SECCOMP_NET_ANY as well, TCP and UDP, bind,
	 * listen, accept, any port. */
	TC_SECCOMP_NET_CONNECT	= 1 << 2,
	TC_SECCOMP_NET_ANY	= 1 << 3,
	/* The profile's zygote (zygote.c): also what it needs to fork a
	 * child and what the child does once before its call (clone() as
	 * CLONE_PARENT alone, receiving the child's pipes, setsid(), its
	 * parent-death signal, a Landlock domain and a filter of its
	 * own), which tc_seccomp_build_fork() takes back. */
	TC_SECCOMP_ZYGOTE	= 1 << 4,
	/* The policy's "jit on", for a profile with TC_MAY_EXEC_MEMORY:
	 * mmap() and mprotect() with any protection, writable and
	 * executable at once included (a JIT compiler's code). */
	TC_SECCOMP_JIT		= 1 << 5,
};

/*
 * Compiles the default-deny allowlist of |profile| (native architecture
 * only): the base list and the profile's own tables, for the layers
 * |opts| (TC_SECCOMP_*) says are in force, into |out|.  Returns 0, or
 * TC_EINVAL (a profile at odds with itself: TC_MAY_OPENAT2 with a right to
 * make files, a fork without TC_MAY_FORK, TC_MAY_NETWORK with a send call
 * that may carry MSG_FASTOPEN) or TC_ESYS with |d| set.
 */
int	tc_seccomp_build(const struct tc_profile *profile, unsigned opts,
	    struct tc_bpf *out, struct tc_diag *d);
void	tc_seccomp_release(struct tc_bpf *b);

/*
 * Compiles the filter a zygote's child loads on top of its zygote's (a
 * TC_SECCOMP_ZYGOTE build of |profile|): it refuses, as the profile's own
 * filter would, every call that TC_SECCOMP_ZYGOTE added, so that the two
 * together allow what the profile's filter alone allows, less fcntl()'s
 * F_OFD_SETLK, F_OFD_SETLKW and F_SETFL (EPERM), which would set state
 * on a description the child shares with the zygote and its later
 * children, outliving the call (seccomp.c: shared_fcntl).  Returns 0, or
 * TC_ESYS with |d| set, or TC_EINVAL where |profile|'s own tables have a
 * rule for one of those calls that the two could not keep exactly (by
 * arguments, or an errno of its own; any rule for clone() or prctl()):
 * such a profile has no zygote.  tc_seccomp_build() with
 * TC_SECCOMP_ZYGOTE refuses the same.
 */
int	tc_seccomp_build_fork(const struct tc_profile *profile,
	    struct tc_bpf *out, struct tc_diag *d);

/*
 * The kinds of the rules |p|'s own tables have for system call |nr|: a
 * TC_RULE(kind) bit for each kind found (enum tc_sys_kind), 0 for none.
 */
#define TC_RULE(kind)	(1u << (kind))
unsigned	tc_profile_rules(const struct tc_profile *p, int nr);

/* In the child, last: loads |b|.  no_new_privs must be set. */
int	tc_seccomp_apply(const struct tc_bpf *b);

/* --- Frames (frame.c) --- */

/* Writes all |n| bytes of |p| to |fd|.  Returns 0 or -1. */
int	tc_write_all(int fd, const void *p, size_t n);

/*
 * A call as the parent sends it: this head, then the pins (each a
 * struct pin_wire and its rel), then the unconsented rules (each a
 * uint32_t), |ctxlen| bytes in all, then the arguments as JSON.  The
 * tool and the policy go as addresses: parent and child are one
 * program, forked after every tool table and the policy existed, and
 * neither ever moves, so the pointers and the layout are the same on
 * both sides.
 */
struct call_head {
	const struct tc_tool	*tool;
	const struct tc_policy	*policy;
	uint32_t		 npins;
	uint32_t		 nunconsented;
	uint32_t		 ctxlen;
	int32_t			 pinned;
};

struct pin_wire {
	uint64_t		 dev, ino, edev, eino;
	uint32_t		 root, kind, missing, entry, rellen;
};

/* Frame headers: little-endian u32s. */
static inline void
tc_put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline uint32_t
tc_get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* --- Namespaces (ns.c) --- */

/*
 * Returns which of the namespaces |want| (of TC_NS_ALL) a child can be
 * created in: all, or those but the user namespace (root where user
 * namespaces are denied), or none.  Forks once or twice.
 */
unsigned long	tc_ns_probe(unsigned long want);

/*
 * In a child in a new user namespace of a server that is not root: maps
 * |uid| and |gid| (the server's) to themselves.  Returns 0 or -1.
 */
int	tc_child_maps(uid_t uid, gid_t gid);

/*
 * In the spawner, once: makes the empty network namespace that the
 * children it (and their keepers) clone are put in, in place of one each
 * (tc_clone_child()).  Making a network namespace, and tearing it down
 * in the kernel's workers after the call, cost more CPU than the rest of
 * a shell call; one that has no interface but a loopback that is down,
 * and is not a call's own (the calls' user namespaces have no
 * capability in it), is as empty for every call, so long as no call can
 * give a socket a name there or reach one by its name.  So only where
 * |sb|'s seccomp filters are in force and refuse socket(), bind(),
 * connect() and io_uring to every profile that wants a network
 * namespace (prepare.c: only a profile without a network has one; ns.c
 * checks the profiles' own tables): else, or where it fails, each child
 * has its own, as before.  Root makes it in its own user namespace and
 * each clone goes into it and back; anyone else makes it in a user
 * namespace of their own (their uid and gid mapped to themselves), which
 * the process that clones a call's child enters for good
 * (tc_netns_join()), since nothing comes back from a user namespace it
 * entered: a keeper, or the spawner itself where every profile wants the
 * namespace and none has a keeper (tc_sandbox_keeper()); beside a
 * profile without namespaces the spawner stays, and a child it clones
 * has a network namespace of its own still.  The two fds it keeps are
 * closed by each child's confinement, as every fd not kept is.
 */
void	tc_netns_share(const struct tc_sandbox *sb);

/*
 * In the process that clones calls' children (a keeper before it clones
 * its child, or the spawner: tc_netns_share()), where the server is not
 * root: enters the user namespace that owns the shared network
 * namespace, and that network namespace, for good, so that a child's
 * user namespace is made inside the first and the child is born in the
 * second (tc_clone_child()).  It gains every capability in that user
 * namespace and in the calls' user namespaces below it (their owner's,
 * as any process of the server's user outside them has); the calls
 * themselves have none in it or in each other's.  If entering fails, the
 * child gets a network namespace of its own.  Closes the fds either way.
 */
void	tc_netns_join(void);

/*
 * Clones a child in |ns| namespaces, as our own child or, with |parent|,
 * as our parent's.  A new network namespace is the shared one
 * (tc_netns_share()) where there is one.  With |pids| (a directory
 * opened: else ignored), the child is in its call's pids cgroup before
 * it runs anything of its own (tc_pids_place()).  Returns what fork()
 * would, or -1 with errno set; when the new user namespace's maps cannot
 * be written or the child cannot be placed, the child exits with
 * TC_CHILD_EXIT_NS and *|err| is set: its parent must still reap it.
 */
pid_t	tc_clone_child(unsigned long ns, int parent, uid_t uid, gid_t gid,
	    const struct tc_pids *pids, int *err);

/* --- A profile's zygote (zygote.c) --- */

/*
 * 1 if |sp|'s children come from a zygote: the sandbox built its filters
 * (prepare.c) and every layer is on.
 */
static inline int
tc_sandbox_zygote(const struct tc_sandbox_profile *sp)
{
	return sp->zygote_filter.insns != NULL &&
	    TC_LAYER_ON(TC_LAYER_SECCOMP) && TC_LAYER_ON(TC_LAYER_LANDLOCK);
}

/*
 * The life of |sp|'s zygote, a child of the server's (cloned by the
 * spawner with CLONE_PARENT): it confines itself for the profile (its
 * filter the TC_SECCOMP_ZYGOTE build), runs tc_child_ready(), then
 * serves |sock|: for each request (one byte with the child's two pipe
 * ends, its request pipe's read end first), it forks a child, the
 * server's too, and answers its pid (an int32_t, -errno if none).  Exits
 * at the end of |sock|.
 */
/*
 * tc_sandbox_confine() for |sp|'s zygote: every step, with the zygote's
 * filter.  Returns 0, or a TC_CHILD_EXIT_* code (TC_CHILD_EXIT_SECCOMP
 * where |sp| has no zygote).
 */
int	tc_sandbox_confine_zygote(const struct tc_sandbox *sb,
	    const struct tc_sandbox_profile *sp, const int *keep,
	    size_t nkeep);

/*
 * Arms the parent-death signal (SIGKILL) and checks that |parent| is
 * still the parent.  Returns 0 or -1.
 */
int	tc_arm_pdeathsig(pid_t parent);

void	tc_zygote_main(const struct tc_sandbox *sb,
	    const struct tc_sandbox_profile *sp, int sock)
	    __attribute__((__noreturn__));

#endif /* TC_SANDBOX_INT_H */
