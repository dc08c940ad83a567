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
 * Where: the server's own cgroup in the hierarchy that has the pids
 * controller, if the server may write there: on cgroup v2, one whose
 * cgroup.subtree_control already enables pids (the root cgroup, or a
 * cgroup a manager delegated that way; the server never moves itself);
 * else a cgroup v1 hierarchy with the pids controller.  Both are found
 * from /proc/self/cgroup and /proc/self/mountinfo.  Root finds them
 * writable; another user only where they were delegated to it.
 *
 * Who does what: the server makes its directory,
 * HOME/toolcell-NS-PID-START (its PID namespace's inode, its pid there
 * and its start time: no other server, in this namespace or another,
 * and no later one given its pid, has that name), at start
 * (tc_pids_open()) and removes it and whatever is left in it at the end
 * (tc_pids_close()).  Each call's keeper (child.c) makes its own cgroup
 * in it, named by the keeper's pid, and moves itself in before it clones
 * the call's child, so that the child and everything it starts are in
 * it from their first instruction (tc_pids_enter()); once it has killed
 * the tree it moves itself back and removes the cgroup
 * (tc_pids_leave()).  A ready child is made before anyone knows which
 * tool it will run, so its cgroup's pids.max is the server's to write:
 * the tool's process limit, when the call is handed to it and before the
 * child reads it (tc_pids_limit(); until then the keeper and the child
 * run only the sandbox's own code, which forks nothing more).  The
 * keeper is in the cgroup too, so pids.max is the limit plus one.  A
 * keeper that cannot enter, or a server that cannot write pids.max,
 * fails the call: it does not run without its limit.  A keeper the
 * server had to kill (past its grace) never leaves: the server removes
 * its cgroup once the keeper is reaped and the call's processes are gone
 * (tc_pids_reaped(), tc_pids_retry()), not only at its end.
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

struct tc_pids {
	enum tc_pids_kind kind;
	char		 home[PATH_MAX];  /* the server's own cgroup there */
	char		 dir[PATH_MAX];	  /* home/toolcell-PID; "" if none */
	unsigned long	 max;		  /* pids.max at the server's limit */
	pid_t		 owner;		  /* the server that made dir */
	pid_t		 left[TC_PIDS_LEFT_MAX];  /* keepers reaped whose
					     cgroups were still busy */
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
 * Finds where calls' pids cgroups can be made (see above): fills |p|
 * (kind, home; dir empty) and returns 1, or returns 0 with p->kind
 * TC_PIDS_NONE.  Makes nothing; checks the controller and whether the
 * server may write (access(2) as its effective ids).
 */
int	tc_pids_probe(struct tc_pids *p);

/*
 * Makes the server's directory in the cgroup |p| found, for calls of a
 * server whose own process limit is |nproc| (p->max, what it says; a
 * tool's own may differ: tc_pids_limit()).  First removes the
 * directories that dead servers of the same PID namespace left there,
 * and one of its own name left by no one now.  Returns 0, or TC_ESYS
 * with |d| set (|p| is then as tc_pids_probe() left it).
 */
int	tc_pids_open(struct tc_pids *p, unsigned long nproc,
	    struct tc_diag *d);

/*
 * Removes every call's cgroup left in the server's directory (those whose
 * processes are gone) and the directory itself; |p| has none after.
 * Safe on a |p| never opened.
 */
void	tc_pids_close(struct tc_pids *p);

/*
 * The server's pids cgroup that tc_pids_open() made and tc_pids_close()
 * has not removed, or NULL: what a server says is in force.
 */
const struct tc_pids *tc_pids_current(void);

/*
 * In a keeper, before it clones the call's child: makes the call's
 * cgroup (the server's directory, then the keeper's pid) unless the
 * server made it first, and moves the calling process into it.  Writes
 * no pids.max (tc_pids_limit() does).  Nothing to do (0) for a |p| with
 * no directory.  Returns 0 or -1 (the cgroup removed).
 */
int	tc_pids_enter(const struct tc_pids *p);

/*
 * In the server, when a call goes to the ready child whose keeper is
 * |keeper| (its pid) and before the call is sent: sets that call's
 * cgroup's pids.max to |nproc| (the tool's process limit) plus one for
 * the keeper, making the cgroup first if the keeper has not yet.  One
 * write to cgroupfs where the keeper was there first.  A limit below the
 * count already in the cgroup stops new forks only.  Nothing to do (0)
 * for a |p| with no directory.  Returns 0 or -1 with errno set; the
 * caller must then not send the call.
 */
int	tc_pids_limit(const struct tc_pids *p, pid_t keeper,
	    unsigned long nproc);

/* The pids.max of a call whose tool's process limit is |nproc|: that,
 * and one more for its keeper. */
static inline unsigned long
tc_pids_max(unsigned long nproc)
{
	return nproc + 1;
}

/*
 * In the keeper, once its tree is dead: moves it back to the server's
 * own cgroup and removes the call's.  Nothing for a |p| with no directory.
 */
void	tc_pids_leave(const struct tc_pids *p);

/*
 * In the server, once it has reaped keeper |keeper|, which it killed
 * (SIGKILL, its grace over) before the keeper could leave its call's
 * cgroup: removes that cgroup, or, while the call's last processes are
 * still dying in it (EBUSY: the keeper's child dies of its parent's death
 * after the keeper can be reaped), keeps |keeper| for tc_pids_retry().
 * Once TC_PIDS_LEFT_MAX are kept, the cgroup waits for tc_pids_close().
 * Nothing for a |p| with no directory.
 */
void	tc_pids_reaped(struct tc_pids *p, pid_t keeper);

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
 * Writes how |p| limits a call's processes, "pids cgroup v1 at HOME" or
 * "pids cgroup v2 at HOME", to |buf|; "" for none.  Returns |buf|.
 */
const char *tc_pids_str(const struct tc_pids *p, char *buf, size_t len);

#endif /* TC_PIDS_H */
