/*
 * own.h: the server's own files, kept out of every call's reach.
 * Return convention: 0 or a negative TC_E*, but tc_own_collect() counts
 * the problems it reported; a check returns the refusing rule or NULL
 * (tc_own_fd(): 0, or -1 with errno as fstat(2)); a question 1 or 0.
 *
 * A server trusts some files for its decisions: the policy file; the
 * consent hook, with the interpreter its "#!" line names (and that one's,
 * and so on; for env(1), the program it finds through the hook's PATH,
 * TC_HOOK_PATH, and each place searched before it), the argument a "#!"
 * line gives its interpreter and every argument of the hook that names a
 * regular file (a relative one from "/", the hook's working directory);
 * the audit log, its rotated files (LOG.1, LOG.new, ...)
 * and the directory that holds them; the audit key.  A call that could
 * change one of them could grant itself consent, hide what it did, or
 * rewrite the policy for the next start; one that could read the key could
 * forge the log.  tc_own_collect() finds them at start and:
 *
 *  - refuses each one that a call could replace: one that lies beneath a
 *    writable root, at any depth (a read-only directory nested in a
 *    writable one is no shelter: the writable one can rename it), or that
 *    is reached through a symbolic link lying beneath one; beneath by
 *    path, or by identity (a directory on the way that has the device and
 *    inode of a writable root: one is a bind mount of the other); and a
 *    hook whose "#!" line runs env(1) with options, which it cannot
 *    follow;
 *
 *  - adds a built-in deny rule, for reading and writing, for each one
 *    that lies beneath a root: an exact rule (tc_deny.exact) on its
 *    canonical path, and for the log, exact rules on its directory and on
 *    the log, and a rule on every LOG.* in that directory, so that the
 *    rotated files made after start are refused by name as well.  So the
 *    deny machinery refuses them as given, as opened (through symbolic
 *    links), in listings, walks and searches, and for consent and audit;
 *
 *  - records each one's identity (device and inode), with those of the
 *    log's directory and of every LOG and LOG.* in it, in p->own: the
 *    child checks every file it opens against them (tc_own_fd()) and every
 *    directory entry it lists or walks (tc_own_entry()), so that a hard
 *    link, a bind mount, or a directory renamed after start reaches
 *    nothing either;
 *
 *  - opens the consent hook (O_PATH) as p->consent_hook_fd, and records in
 *    p->consent_hook_script whether it starts with "#!": the hook is run
 *    from that fd (hook.h), so the program that runs is the one checked
 *    here, whatever is put at its path later.
 *
 * Rotation makes new log files after start, whose identities the children
 * forked earlier do not know: they are refused by name (the rules above),
 * and the directory by identity; tc_own_refresh() adds the identities of
 * those that exist when it is called (the server calls it once the log is
 * open, before it forks the children's spawner).
 */
#ifndef TC_OWN_H
#define TC_OWN_H

#include <sys/stat.h>
#include <sys/types.h>

#include "policy/policy.h"

/* What an own file is, in messages ("the server's own audit key"). */
#define TC_OWN_POLICY		"policy file"
#define TC_OWN_HOOK		"consent hook"
#define TC_OWN_INTERPRETER	"consent hook's interpreter"
#define TC_OWN_HOOK_FILE	"consent hook's file"
#define TC_OWN_LOG		"audit log"
#define TC_OWN_LOG_DIR		"audit log directory"
#define TC_OWN_KEY		"audit key"

/*
 * Finds the own files of |p|, loaded and finished (tc_policy_finish()),
 * with |policy_file| the policy as given (NULL: none; a relative one is
 * taken from the working directory), and does all of the above.  Each
 * problem is passed to |report| (with |ctx|), one line per file:
 *
 *	audit key '/srv/w/k': it lies beneath the writable directory
 *	'/srv/w' (policy line 2): a call could change or replace it, ...
 *
 * Returns the number of problems reported; out of memory counts as one.
 */
int	tc_own_collect(struct tc_policy *p, const char *policy_file,
	    tc_policy_report_fn *report, void *ctx);

/*
 * Adds the identities of the log's family as it is now: the log made at
 * start, say.  Returns 0 or TC_ENOMEM.
 */
int	tc_own_refresh(struct tc_policy *p);

/* Returns the rule refusing the file |st| describes if it is an own file,
 * else NULL. */
const struct tc_deny *tc_own_stat(const struct tc_policy *p,
	    const struct stat *st);

/*
 * Checks the file open as |fd|: returns 0 with *|rule| the refusing rule
 * if it is an own file (else NULL), or -1 with errno set if it cannot be
 * told (fstat failed).  Without own files, 0 at once.
 */
int	tc_own_fd(const struct tc_policy *p, int fd,
	    const struct tc_deny **rule);

/*
 * Returns 1 if readdir's d_ino in the directory open as |dirfd| can be
 * taken for the entry's st_ino; 0 if not (overlayfs, FUSE: see
 * tc_own_fstype_exact()), or if fstatfs() fails.  A caller asks once per
 * directory, and passes 0 for |ino| to tc_own_entry() when it says 0.
 */
int	tc_own_dir_exact(int dirfd);

/* The decision of tc_own_dir_exact() on a statfs f_type: 0 for overlayfs
 * (a directory's d_ino is its layer's, not its st_ino, when the layers lie
 * on several filesystems without xino) and FUSE (d_ino is the daemon's
 * word), 1 for every other. */
int	tc_own_fstype_exact(unsigned long type);

/*
 * Returns the rule refusing the entry |name| of the directory |dirfd|,
 * whose inode readdir gave as |ino|, if it is an own file; else NULL.
 * Only an entry whose |ino| is an own file's is stat'ed, so that a
 * listing pays nothing for the others; one that cannot be stat'ed is
 * refused.  With |ino| 0 (the directory's d_ino cannot be trusted:
 * tc_own_dir_exact()), every entry is stat'ed, and one that cannot be
 * (but for one gone), while there are own files, is refused.  (A bind mount onto an entry
 * shows the inode beneath it and is listed, but opening it is refused.)
 */
const struct tc_deny *tc_own_entry(const struct tc_policy *p, int dirfd,
	    const char *name, ino_t ino);

#endif /* TC_OWN_H */
