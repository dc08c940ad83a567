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
 * Who does what: the server makes its directory, HOME/toolcell-PID, at
 * start (tc_pids_open()) and removes it and whatever is left in it at
 * the end (tc_pids_close()).  Each call's keeper (child.c) makes its own
 * cgroup in it, named by the keeper's pid, writes pids.max and moves
 * itself in before it clones the call's child, so that the child and
 * everything it starts are in it from their first instruction
 * (tc_pids_enter()); once it has killed the tree it moves itself back
 * and removes the cgroup (tc_pids_leave()).  The keeper is in the
 * cgroup too, so pids.max is the process limit plus one.  A keeper that
 * cannot enter fails its call: the call does not run without its limit.
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

struct tc_pids {
	enum tc_pids_kind kind;
	char		 home[PATH_MAX];  /* the server's own cgroup there */
	char		 dir[PATH_MAX];	  /* home/toolcell-PID; "" if none */
	unsigned long	 max;		  /* pids.max of a call's cgroup */
	pid_t		 owner;		  /* the server that made dir */
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
 * Makes the server's directory in the cgroup |p| found, for calls whose
 * process limit is |nproc|.  Returns 0, or TC_ESYS with |d| set (|p| is
 * then as tc_pids_probe() left it).
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
 * cgroup (the server's directory, then the keeper's pid), sets its
 * pids.max and moves the calling process into it.  Nothing to do (0)
 * for a |p| with no directory.  Returns 0 or -1 (the cgroup removed).
 */
int	tc_pids_enter(const struct tc_pids *p);

/*
 * In the keeper, once its tree is dead: moves it back to the server's
 * own cgroup and removes the call's.  Nothing for a |p| with no directory.
 */
void	tc_pids_leave(const struct tc_pids *p);

/*
 * Writes how |p| limits a call's processes, "pids cgroup v1 at HOME" or
 * "pids cgroup v2 at HOME", to |buf|; "" for none.  Returns |buf|.
 */
const char *tc_pids_str(const struct tc_pids *p, char *buf, size_t len);

#endif /* TC_PIDS_H */
