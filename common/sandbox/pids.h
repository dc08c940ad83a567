/*
 * pids.h: a pids cgroup of its own for each call whose profile may fork,
 * with pids.max from the policy's process limit, so that one call's fork
 * bomb cannot take the processes another call needs, whoever the calls
 * run as (root too, whom RLIMIT_NPROC never holds).
 * Returns (sandbox/): 0 or a negative TC_E* code, with a struct tc_diag
 * where a person must read why; a question 1 or 0; a count or a lookup
 * what it found (NULL: nothing); a step that a child or a keeper takes
 * against the kernel 0 or -1 with errno set.
 *
 * Where: in the hierarchy that has the pids controller, found from
 * /proc/self/cgroup and /proc/self/mountinfo, and where the server may
 * write (access(2) as its effective ids: root finds every cgroup
 * writable, another user only those delegated to it).  On cgroup v2, the
 * server's own cgroup if it is one of these (tc_pids_way()):
 *  - one whose cgroup.subtree_control already enables pids: in practice
 *    the root cgroup, the only one that may both hold processes and give
 *    its children controllers;
 *  - a leaf "toolcell-server" that a server made (below), where a second
 *    server started from a process in it finds itself: its calls'
 *    cgroups go beside the leaf, in the delegated cgroup, which it must
 *    be able to write;
 *  - a delegated cgroup: one whose cgroup.controllers lists pids, of type
 *    "domain" (not threaded, not the root), that the server may make
 *    cgroups in and whose cgroup.procs and cgroup.subtree_control it may
 *    write (what systemd's Delegate=yes, or a container's own cgroup
 *    namespace, hands over), that is no systemd unit's (a name ending in
 *    .service or .scope) unless systemd marked it delegated (its
 *    trusted.delegate or user.delegate attribute: root may write every
 *    cgroup, so writing is no sign of delegation, and a unit without
 *    Delegate=yes is systemd's own), and that holds no process or thread
 *    but the server's and its own children's (cgroup.procs and
 *    cgroup.threads; toolcell-shell's scratch sweeper is such a child
 *    at this point; the spawner and the ready children come later).
 *    cgroup v2 lets no process stay in a cgroup that gives its children
 *    controllers, so the server moves itself, then those children, into
 *    a leaf of it, "toolcell-server", then enables pids for the
 *    delegated cgroup's children; the calls' cgroups go beside the leaf.
 *    The kernel refuses that last step while any process is left in the
 *    cgroup (one that came since its list was read), and any step that
 *    fails undoes the others: what moved moves back, the leaf made is
 *    removed.
 * Else a cgroup v1 hierarchy with pids; else none, and RLIMIT_NPROC
 * holds alone where it can.  Where v2 offered pids, p->note says what
 * became of it: used, the server moved; or why not (not delegated, other
 * processes there, threaded, not writable: a read-only mount), and what
 * holds instead.
 *
 * A cgroup namespace's root is delegated the same way under the
 * nsdelegate mount option: the kernel lets its cgroup.procs and
 * cgroup.subtree_control be written from inside the namespace, and the
 * moves (into the leaf, into a call's cgroup and back) stay within it.
 *
 * Who does what: the server makes its directory,
 * BASE/toolcell-NS-PID-START (BASE: the server's own cgroup, or the
 * delegated cgroup its leaf is in; its PID namespace's inode, its pid there
 * and its start time: no other server, in this namespace or another,
 * and no later one given its pid, has that name), at start
 * (tc_pids_open()) and removes it and whatever is left in it at the end
 * (tc_pids_close()).  A call's cgroup is named by the pid of the process
 * that holds the call's tree:
 *  - A child without a keeper (pid 1 of its own PID namespace, whose end
 *    ends every process of the call: sandbox-int.h,
 *    tc_sandbox_keeper()) is placed in its cgroup by the process that
 *    clones it (the spawner, or the server), after the clone and before
 *    the child runs anything of its own: it waits on the clone's gate
 *    until then (tc_pids_place(), from tc_clone_child()).  The server
 *    keeps or removes the cgroup once the child has ended, before it
 *    reaps it (tc_pids_done()): by then every other process of the
 *    call is gone, since the kernel reaps a PID namespace's other
 *    processes before its pid 1 ends, and the child's zombie holds its
 *    pid, which no child cloned meanwhile can be given.
 *  - A keeper (a child that may fork where no PID namespace of its own
 *    holds it) makes its own cgroup and moves itself in before it clones
 *    the call's child, so that the child and everything it starts are in
 *    it from their first instruction (tc_pids_enter()); once it has killed
 *    the tree it moves itself back to the server's own cgroup (HOME: the
 *    leaf, where there is one) and removes the call's cgroup
 *    (tc_pids_leave()).
 * On cgroup v1, a call's cgroup proven empty as its keeper leaves (its
 * pids.current 0: no process of the call is left in it, not even a
 * zombie), or as the server is about to reap its child (1: that child's
 * zombie alone), is not removed but kept, renamed
 * "0-N" (N below 4; no pid is written so), and the next call's renames it
 * to its own pid rather than making one: a rename each way costs the
 * kernel less than making a cgroup and destroying one.  One that finds no
 * spare, or one that cannot be proven empty or finds every spare name
 * taken, makes or removes as before.  Each rename is atomic, and kernfs
 * renames onto no existing name, so a spare goes to one call only.
 * cgroup v2 renames no cgroup: there every call's is made and removed.
 * A ready child is made before anyone knows which tool it will run, so
 * its cgroup's pids.max is the server's to write: the tool's process
 * limit, when the call is handed to it and before the child reads it
 * (tc_pids_limit(); until then the keeper and the child run only the
 * sandbox's own code, which forks nothing more).  A keeper is in the
 * cgroup too, so there pids.max is the limit plus one, and never below 2
 * (the keeper and its child: a spare keeps the last call's pids.max until
 * the server writes the next one's, and the next keeper clones its child
 * before that); without a keeper it is the limit, which counts the child
 * itself as RLIMIT_NPROC does (a move into a cgroup is never refused by
 * its pids.max, so a spare's last limit cannot refuse a child placed in
 * it).  A keeper that cannot enter, a child that cannot be placed (it
 * exits at the gate: it never runs), or a server that cannot write
 * pids.max, fails the call: it does not run without its limit.  A keeper
 * the server had to kill (past its grace) never leaves: the server
 * removes its cgroup as it reaps the keeper, or once the call's processes
 * are gone (tc_pids_done(), tc_pids_retry()), not only at its end.
 *
 * A server that moved itself into its leaf moves back at its end
 * (tc_pids_close(); or, where an exit() skips that, as a start refused
 * once the sandbox is prepared does, at exit: an atexit(3) handler, in
 * the server's own pid only), so that the delegated cgroup is left as it
 * was found and its manager may place processes in it again (systemd's
 * ExecReload=, a container's exec; while the server runs, they are
 * refused: its processes live in the leaf, as the no-internal-process
 * rule asks).
 * Once its directory is gone, and if the leaf holds only the server and
 * its own children, it disables pids there, moves them back, and removes
 * the leaf (which cannot be removed while the server is in it).  Where it
 * cannot (another server in the leaf or beside it, or a call's process
 * still dying), it leaves everything as it is: a valid state, which the
 * manager removes with the unit.  A server killed (SIGKILL) leaves its
 * leaf the same way.
 */
#ifndef TC_PIDS_H
#define TC_PIDS_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

enum tc_pids_kind {
	TC_PIDS_NONE = 0,	/* no pids cgroup the server may write */
	TC_PIDS_V1,		/* a cgroup v1 hierarchy with pids */
	TC_PIDS_V2,		/* the unified hierarchy, pids enabled */
};

/* Calls' cgroups whose removal the server retries (tc_pids_reaped()). */
#define TC_PIDS_LEFT_MAX	16

/* The leaf of a delegated cgroup that the server moves itself into. */
#define TC_PIDS_LEAF		"toolcell-server"

struct tc_pids {
	enum tc_pids_kind kind;
	char		 home[PATH_MAX];  /* the server's own cgroup there,
					     where keepers return */
	char		 base[PATH_MAX];  /* where dir is made: home, or its
					     parent where home is the leaf */
	char		 dir[PATH_MAX];	  /* base/toolcell-NS-PID-START; ""
					     if none */
	char		 controller[16];  /* "pids" (the tests' may differ:
					     tc_pids_probe_controller()) */
	unsigned long	 max;		  /* pids.max at the server's limit */
	pid_t		 owner;		  /* the server that made dir */
	pid_t		 moved;		  /* the server that moved itself
					     into home, a leaf of base, and
					     enabled pids in base (0: none):
					     tc_pids_close() moves it back */
	char		 note[PATH_MAX + 512]; /* what the probe says of cgroup
					     v2: that the server moved into
					     its leaf or is in one, or why
					     v2 was not used where it offered
					     pids; "" */
	pid_t		 left[TC_PIDS_LEFT_MAX];  /* keepers (or children
					     without one) reaped whose
					     cgroups were still busy */
	int		 kept;		  /* 1 where calls that may fork have
					     a keeper in their cgroup (pids.max
					     counts it: tc_pids_max()); set
					     before tc_pids_open() */
	size_t		 nleft;
};

/*
 * From the text of /proc/self/cgroup (|cgroup|) and of
 * /proc/self/mountinfo (|mountinfo|), finds the server's own cgroup in
 * the hierarchy of |kind| (TC_PIDS_V2: the unified one; TC_PIDS_V1: the
 * one whose mount has the pids controller) and writes its directory to
 * |out| (|len| bytes).  Checks nothing on disk.  Returns 1 if found, 0
 * if not (no such hierarchy, no such mount, a path that does not fit or
 * that the mount's root does not lead to).
 */
int	tc_pids_find(const char *cgroup, const char *mountinfo,
	    enum tc_pids_kind kind, char *out, size_t len);

/*
 * What a cgroup v2 directory's files say, as read (a whole file's text
 * each), for tc_pids_way().  Borrowed: lives as long as the caller's
 * buffers.
 */
struct tc_cgroup_view {
	const char *name;	 /* its last path component */
	const char *type;	 /* cgroup.type; NULL where there is none
				    (the root cgroup) */
	const char *controllers; /* cgroup.controllers */
	const char *subtree;	 /* cgroup.subtree_control */
	const char *procs;	 /* cgroup.procs (NULL: unread) */
	const char *threads;	 /* cgroup.threads (NULL: unread) */
	int	    writable;	 /* the server may make cgroups in it and
				    write its cgroup.procs */
	int	    subtree_writable; /* ... and its cgroup.subtree_control */
	int	    parent_writable;  /* the server may make cgroups in its
				    parent, in the same hierarchy, and write
				    the parent's cgroup.procs */
	int	    marked;	 /* systemd marked it delegated: its
				    extended attribute trusted.delegate or
				    user.delegate is "1" */
	const char *parent_name; /* its parent's last path component
				    (NULL: not known) */
	int	    parent_marked; /* the parent marked so */
};

/* Room for what tc_pids_read() reads: a delegated cgroup lists a few
 * processes; a longer list is not the server's alone. */
#define TC_PIDS_LIST_MAX	16384

struct tc_cgroup_text {
	char	type[64], controllers[512], subtree[512];
	char	procs[TC_PIDS_LIST_MAX], threads[TC_PIDS_LIST_MAX];
	char	parent[PATH_MAX];	/* the directory's parent */
};

/*
 * Reads cgroup v2 directory |dir|'s files into |t| and points |v| at
 * them (name: |dir|'s last component; procs and threads NULL for the
 * root cgroup, whose lists are the machine's, and for a list that fills
 * its room), with what the server may write (access(2) as its effective
 * ids) and systemd's mark.  Returns 0, or -1 where |dir| is no cgroup v2
 * directory (no cgroup.controllers or cgroup.subtree_control to read).
 */
int	tc_pids_read(const char *dir, struct tc_cgroup_text *t,
	    struct tc_cgroup_view *v);

enum tc_pids_way {
	TC_PIDS_WAY_NONE = 0,	/* none of these: not delegated, shared */
	TC_PIDS_WAY_HERE,	/* the controller is enabled for its
				   children: calls' cgroups in it */
	TC_PIDS_WAY_BESIDE,	/* a server's leaf (TC_PIDS_LEAF) whose
				   parent enables the controller: calls'
				   cgroups in the parent */
	TC_PIDS_WAY_MOVE,	/* delegated: move into a leaf, enable the
				   controller (tc_pids_delegate()) */
};

/*
 * Says whether a process, or a thread, |id| (as cgroup.procs or
 * cgroup.threads shows it: 0 for one of another PID namespace) is the
 * server's own: the server itself or one of its children, which it may
 * move with it.  Returns 1 or 0.
 */
typedef int tc_pids_ours_fn(long id, void *ctx);

/*
 * Decides, from |v| alone, how the server, in the cgroup |v| describes,
 * can give calls cgroups with |controller| ("pids"; the tests name
 * another), in the order pids.h's header gives.  Checks nothing on disk:
 * |ours| answers for each id of v->procs and v->threads (a process
 * outside our PID namespace, shown as 0, is never ours; a list that is
 * NULL is not the server's alone).  Returns the way; for
 * TC_PIDS_WAY_NONE, writes why to |why| (|len| bytes: "it holds other
 * processes (pid 812)"), "" for the others.
 */
enum tc_pids_way tc_pids_way(const struct tc_cgroup_view *v,
	    const char *controller, tc_pids_ours_fn *ours, void *ctx,
	    char *why, size_t len);

/*
 * Returns 1 if |id| is the calling process, one of its threads, one of
 * its children or a child's thread (/proc/ID/status: Tgid or PPid is our
 * pid, where /proc shows our PID namespace), else 0.  The probe's
 * tc_pids_ours_fn (|ctx| unused).
 */
int	tc_pids_own(long id, void *ctx);

/*
 * Moves the calling process, then every process of cgroup v2 directory
 * |cg| that |ours| calls the server's own, into |cg|/TC_PIDS_LEAF (made
 * unless there; one already there is taken only where its cgroup.procs,
 * read in full, lists nothing but the server's own, else nothing is
 * done), then enables |controller| for |cg|'s children
 * ("+CONTROLLER" to its cgroup.subtree_control), which the kernel
 * refuses while any process is left in |cg|.  Checks nothing else
 * (tc_pids_way() decided).  On any failure, undoes what it did (moves
 * back what it moved, removes the leaf) and returns TC_ESYS with |d|
 * saying which step; 0 once done.
 */
int	tc_pids_delegate(const char *cg, const char *controller,
	    tc_pids_ours_fn *ours, void *ctx, struct tc_diag *d);

/*
 * Undoes tc_pids_delegate() of |cg| and |controller|: if
 * |cg|/TC_PIDS_LEAF holds only processes |ours| calls the server's own,
 * disables |controller| in |cg|, moves them back to |cg| and removes the
 * leaf.  Returns 0 once all is undone; TC_ESYS with |d| set where it
 * stopped (a process not ours in the leaf: nothing was done; the
 * controller still used below |cg|: nothing was done; a move or the
 * removal refused: what was done stays done).
 */
int	tc_pids_undelegate(const char *cg, const char *controller,
	    tc_pids_ours_fn *ours, void *ctx, struct tc_diag *d);

/*
 * Finds where calls' pids cgroups can be made (see above): fills |p|
 * (kind, home, base; dir empty) and returns 1, or returns 0 with p->kind
 * TC_PIDS_NONE.  Checks the controller and whether the server may write
 * (access(2) as its effective ids), and makes nothing, except in a
 * delegated v2 cgroup, where it moves the server into its leaf
 * (p->moved: tc_pids_close() moves it back; the leaf is made, and pids
 * enabled, before tc_pids_open()).  p->note, whatever it returns, says
 * that it moved, or found itself in a leaf, or why v2 was not used where
 * it offered pids and what holds instead ("" where v2 did not offer pids,
 * or enabled it already): for the start's log.
 */
int	tc_pids_probe(struct tc_pids *p);

/*
 * tc_pids_probe() for cgroup v2 |controller|, which tc_pids_open() and
 * tc_pids_close() then enable and disable in its stead: tc_pids_probe()
 * is this with "pids".  Another controller is for the tests alone, where
 * pids is not on the machine's cgroup v2 (hugetlb stands for it there,
 * through the same steps, the calls' pids.max aside); it is looked for on
 * v2 alone.
 */
int	tc_pids_probe_controller(struct tc_pids *p, const char *controller);

/*
 * Makes the server's directory in the cgroup |p| found (p->base), for
 * calls of a server whose own process limit is |nproc| (p->max, what it
 * says; a tool's own may differ: tc_pids_limit()).  First removes the
 * directories that dead servers of the same PID namespace left there,
 * and one of its own name left by no one now.  Returns 0, or TC_ESYS
 * with |d| set (|p| then has no directory; a move the probe made is
 * undone, and |p| is left for tc_pids_close(), which is then harmless).
 */
int	tc_pids_open(struct tc_pids *p, unsigned long nproc,
	    struct tc_diag *d);

/*
 * Removes every call's cgroup left in the server's directory (those whose
 * processes are gone) and the directory itself; |p| has none after.
 * Then, in the server that the probe moved into a leaf, moves it back
 * (tc_pids_undelegate(), pids.h's header).  Safe on a |p| never opened.
 */
void	tc_pids_close(struct tc_pids *p);

/*
 * The server's pids cgroup that tc_pids_open() made and tc_pids_close()
 * has not removed, or NULL: what a server says is in force.
 */
const struct tc_pids *tc_pids_current(void);

/*
 * In a keeper, before it clones the call's child: takes a spare cgroup
 * as the call's (cgroup v1: renamed to the keeper's pid), or makes the
 * call's cgroup (the server's directory, then the keeper's pid) unless
 * the server made it first, and moves the calling process into it.
 * Writes no pids.max (tc_pids_limit() does; a spare has the last call's
 * until then).  Nothing to do (0) for a |p| with no directory.  Returns
 * 0 or -1 (the cgroup removed).
 */
int	tc_pids_enter(const struct tc_pids *p);

/*
 * In the process that clones a call's child without a keeper, once it is
 * cloned and before it runs anything of its own (tc_clone_child()):
 * takes a spare cgroup as the call's (cgroup v1: renamed to |pid|), or
 * makes the call's cgroup (the server's directory, then |pid|), and
 * moves process |pid| into it.  Writes no pids.max, as tc_pids_enter().
 * Nothing to do (0) for a |p| with no directory.  Returns 0 or -1 (the
 * cgroup removed); the caller must then not let the child run.
 */
int	tc_pids_place(const struct tc_pids *p, pid_t pid);

/*
 * In the server, when a call goes to the ready child whose tree's
 * cgroup is named |pid| (its keeper's pid, with |keeper|; else its own)
 * and before the call is sent: sets that call's cgroup's pids.max to
 * tc_pids_max(|nproc|, |keeper|) (|nproc|: the tool's process limit),
 * making the cgroup first if the keeper has not yet.  One write to
 * cgroupfs where the cgroup was made first.  A limit below the count
 * already in the cgroup stops new forks only.  Nothing to do (0) for a
 * |p| with no directory.  Returns 0 or -1 with errno set; the caller
 * must then not send the call.
 */
int	tc_pids_limit(const struct tc_pids *p, pid_t pid, unsigned long nproc,
	    int keeper);

/* The pids.max of a call whose tool's process limit is |nproc|.  With a
 * |keeper|: that, and one more for the keeper; at least 2, the keeper
 * and its child (below that it would hold no differently: both are there
 * before the limit is written; but a spare cgroup with it would refuse
 * the next keeper its child).  Without: |nproc|, the child itself
 * counted as RLIMIT_NPROC counts it; at least 1, the child. */
static inline unsigned long
tc_pids_max(unsigned long nproc, int keeper)
{
	if (!keeper)
		return nproc > 1 ? nproc : 1;
	return nproc + 1 > 2 ? nproc + 1 : 2;
}

/*
 * In the keeper, once its tree is dead: moves it back to the server's
 * own cgroup, then keeps the call's as a spare where it can (cgroup v1,
 * its pids.current 0, a spare name free), else removes it.  Nothing for
 * a |p| with no directory.
 */
void	tc_pids_leave(const struct tc_pids *p);

/*
 * Removes the cgroup named |keeper| (a keeper's pid, or a child's without
 * one), which the server killed or saw end before it could be kept as a
 * spare (tc_pids_done()), or, while the call's last processes are still
 * dying in it (EBUSY: a killed keeper's child dies of its parent's death
 * after the keeper ends), keeps |keeper| for tc_pids_retry().  Once
 * TC_PIDS_LEFT_MAX are kept, the cgroup waits for tc_pids_close().
 * Nothing for a |p| with no directory.
 */
void	tc_pids_reaped(struct tc_pids *p, pid_t keeper);

/*
 * In the server, once a child of its own whose pid names a call's cgroup
 * (a child without a keeper, tc_pids_place(); or a keeper) has ended and
 * before it reaps it (tc_sandbox_waitpid()), while its zombie still holds
 * the pid, so that no child cloned meanwhile can be given that pid, and
 * that cgroup's name: keeps that cgroup as a spare where it can (cgroup
 * v1, its pids.current 0; or 1 with |alone|, for a child without a
 * keeper, pid 1 of its PID namespace, whose zombie is then all the
 * cgroup holds: never for a keeper, which moves out before it ends, so
 * that the one process counted may be one of its call's, left alive
 * when the keeper was killed; a spare name free),
 * else removes it (a zombie holds no cgroup), else keeps |pid| for
 * tc_pids_retry() as tc_pids_reaped() does.  No cgroup of that name:
 * nothing.  Nothing for a |p| with no directory.
 */
void	tc_pids_done(struct tc_pids *p, pid_t pid, int alone);

/*
 * In the server, as it hands a call to the ready child whose keeper is
 * |keeper| (before tc_pids_limit()) and as it reaps one: first forgets
 * |keeper| if tc_pids_reaped() kept that pid (it is a live keeper's now,
 * whose cgroup the server may just have made, limit and all, before the
 * keeper entered it: never to be removed from under it; 0: none), then
 * tries again to remove the cgroup of each pid kept, and forgets those
 * removed or gone.  Nothing to do when none is kept.
 */
void	tc_pids_retry(struct tc_pids *p, pid_t keeper);

/*
 * Writes how |p| limits a call's processes, "pids cgroup v1 at BASE" or
 * "pids cgroup v2 at BASE" (where the calls' cgroups are made), to
 * |buf|; "" for none.  Returns |buf|.
 */
const char *tc_pids_str(const struct tc_pids *p, char *buf, size_t len);

#endif /* TC_PIDS_H */
