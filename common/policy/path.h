/*
 * path.h: resolving a path a client gave to a file beneath an allowed root,
 * and refusing what the policy's deny rules name.
 * Return convention: what opens or looks at a file answers as open(2), an
 * fd or 0, else -1 with errno; tc_path_map() and the messages return 0 or
 * a negative TC_E* with a struct tc_diag; a question returns 1 or 0.
 *
 * The guard is the kernel: every open is openat2() from a root's directory
 * fd with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, so "..", absolute
 * symlinks, symlinks that climb out and /proc magic links all fail inside
 * the one system call that opens the file, with no window between a check
 * and its use.  The string work here only decides which root a path names.
 *
 * Deny rules (glob.h) are checked twice by tc_path_open(): on the path as
 * given, before anything is opened, for a clear early answer; and on the
 * file actually opened, by the path /proc/self/fd shows for its fd, so that
 * a symlink inside a root ("notes" -> ".env", "cfg" -> ".ssh") or a rename
 * between the check and the open cannot reach a denied file.  What the
 * second check cannot see: a hard link to a denied file under another
 * name, and a bind mount of a denied directory elsewhere in a root, are
 * allowed by the name they have.  A file renamed after it was opened and
 * checked is read under the name it had when checked.  The server's own
 * files (own.h) are refused by identity as well, on what was opened, so
 * that no other name reaches them.
 */
#ifndef TC_PATH_H
#define TC_PATH_H

#include <stddef.h>

#include "base/err.h"
#include "policy/glob.h"

struct tc_policy;
struct tc_deny;

struct tc_path {
	size_t		 root;		/* index into policy->roots */
	char		*rel;		/* relative to the root; "." for itself */
	char		*display;	/* absolute form, for messages */

	/* Why the last tc_path_check() or tc_path_open() failed with EACCES
	 * for the deny rules, if it did: the rule (in policy->deny), or why
	 * they could not be checked (a static string). */
	const struct tc_deny *denied_by;
	const char	*unchecked;
};

/*
 * What the server found at a path when it decided a call that a person
 * consented to, which the call's child holds it to (tc_policy.pins): a
 * symbolic link swapped between the question and the open would reach a
 * file nobody consented to.  A pin is found by the path's root and rel as
 * tc_path_map() gave them, and its kind:
 *	TC_PIN_PATH	the path followed, as a reader opens it: the first
 *			components (as fs_create_directory() splits them)
 *			lead to the file (dev, ino), and |missing| more
 *			below it did not exist; 0: the whole path did
 *	TC_PIN_ENTRY	the directory a change is made in, as
 *			fs_target_open() opens it, likewise; with |missing|
 *			0, whether the entry itself existed there
 *			(|entry|) and what it was, not followed
 */
enum tc_pin_kind {
	TC_PIN_PATH,
	TC_PIN_ENTRY,
};

struct tc_pin {
	size_t		 root;
	char		*rel;
	unsigned	 kind;
	unsigned	 missing;
	unsigned long long dev, ino;
	int		 entry;
	unsigned long long edev, eino;
};

/* Where an open file is now, as /proc/self/fd shows it. */
struct tc_where {
	char		*abs;		/* canonical and absolute */
	const char	*rel;		/* in |abs|, after the root; or "." */
};

/*
 * Maps |user| to a root and a relative path: an absolute path must lie
 * within a root (compared component by component, in either the canonical
 * or the given form of the root); a relative path is taken relative to the
 * first root.  Touches no file.  Returns 0, TC_EOUTSIDE or TC_EINVAL (empty
 * path, NUL byte) with a message in |d|.
 */
int	tc_path_map(const struct tc_policy *pol, const char *user,
	    struct tc_path *out, struct tc_diag *d);

void	tc_path_release(struct tc_path *p);

/*
 * Opens |p| beneath its root with openat2(|flags|, |mode|) and
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS (retrying on EAGAIN), or, where
 * openat2() is refused, with tc_path_walk_beneath().  Returns an fd, or
 * -1 with errno set (EXDEV: it resolves outside its root).  Applies no
 * deny rule: handlers use tc_path_open().
 */
int	tc_path_openat(const struct tc_policy *pol, const struct tc_path *p,
	    int flags, unsigned mode);

/*
 * Like tc_path_openat(), relative to an fd already beneath a root, for
 * walking a tree: |dirfd| must itself have been opened beneath the root.
 * Applies no deny rule.
 */
int	tc_path_openat_in(int dirfd, const char *rel, int flags, unsigned mode);

/*
 * Returns the path |p| names as given, before any file is looked at: its
 * root's canonical path, then the components of p->rel without "." and
 * empty ones, up to the first ".." (what follows one depends on the
 * files).  *|rel| points at the part after the root, "" for the root
 * itself.  Returns a new string (the caller frees it), or NULL with errno
 * set.
 */
char	*tc_path_given(const struct tc_policy *pol, const struct tc_path *p,
	    const char **rel);

/*
 * What tc_path_openat_in() does where openat2() is refused (ENOSYS: the
 * seccomp filter of every profile that can make files refuses it, since
 * it cannot read the mode in its struct open_how): the same resolution,
 * one component at a time with openat(O_PATH | O_NOFOLLOW) from |dirfd|.
 * A symlink's target is resolved lexically beneath |dirfd|: an absolute
 * one, or ".." above |dirfd|, fails with EXDEV; more than 40 links with
 * ELOOP, as does any of /proc's magic links.  The last component is
 * opened with |flags| | O_NOFOLLOW (followed here when it is a symlink
 * and |flags| lack O_NOFOLLOW), so the kernel never follows a link on
 * the walk's behalf.  EAGAIN when a directory on the way changed.
 * Returns an fd, or -1 with errno set.  Exposed for the tests, which hold
 * it to openat2()'s answers.
 */
int	tc_path_walk_beneath(int dirfd, const char *rel, int flags,
	    unsigned mode);

/*
 * Splits |rel| (changed in place: '/' becomes NUL) into its components,
 * without empty ones and ".", into |v|; returns how many, at most |max|.
 * ".." is kept.  The server and create_directory's child both split a
 * path to be created with it, so that they walk the same names.
 */
size_t	tc_path_split(char *rel, char **v, size_t max);

/*
 * Checks |p| as given, without touching a file, against the deny rules of
 * |pol| for |access| (TC_ACCESS_*): its components up to the first ".."
 * (what follows one depends on the files, and is left to the check of the
 * opened file), relative to the root and made absolute.  Returns 0, or -1
 * with errno EACCES and p->denied_by set, or ENOMEM.
 */
int	tc_path_check(const struct tc_policy *pol, struct tc_path *p,
	    unsigned access);

/*
 * Opens |p| as tc_path_openat() does, for |access| (TC_ACCESS_READ or
 * TC_ACCESS_WRITE; only rules for that access apply), refusing what the
 * deny rules name: tc_path_check() first, then the file opened, by where
 * it really is; and refusing one of the server's own files by its device
 * and inode (own.h).  With O_CREAT or O_TRUNC, which change a file as it
 * is opened, the parent directory is opened and checked first, an own
 * file already at the last component is refused before anything is
 * truncated, and the last component is then opened within the parent with
 * O_NOFOLLOW, so a symlink there is refused (ELOOP) rather than followed
 * to a file no check has seen.  Returns an fd, or -1 with errno set:
 * EACCES with p->denied_by or p->unchecked set when the deny rules or the
 * own files refused it (tc_path_open_error() words it), else as
 * tc_path_openat().  Without a rule for |access| and without own files in
 * the policy it is tc_path_openat().
 */
int	tc_path_open(const struct tc_policy *pol, struct tc_path *p,
	    int flags, unsigned mode, unsigned access);

/*
 * Finds where |fd|, opened beneath root |root|, is now: its path from
 * /proc/self/fd, and the same relative to the root's own current path.
 * Returns 0 and fills |w| (released with tc_where_release()); or -1 with
 * errno ENOMEM, or EACCES and *|why| a static reason (no /proc, or the
 * file is no longer beneath the root).
 */
int	tc_path_where(const struct tc_policy *pol, size_t root, int fd,
	    struct tc_where *w, const char **why);

/*
 * tc_path_where() for an fd opened as root |root|'s "." (a call's default
 * working directory): where it is is the root's current path, read from
 * /proc once rather than twice.  Its identity (st_dev, st_ino) is checked
 * against the root's as a guard; it cannot tell the root from a bind
 * mount of it beneath itself, so an fd opened by any other name is not
 * for this.  Returns 0 and fills |w|; or -1 when |fd| is not the root or
 * anything fails, for tc_path_where() to try.
 */
int	tc_path_where_root(const struct tc_policy *pol, size_t root, int fd,
	    struct tc_where *w);

/*
 * The same with the root's path as |rootpath| (from tc_path_root_now()):
 * for many files beneath one root in a short while, such as a walk, which
 * asks /proc once for the root rather than once per file.  Should the root
 * move meanwhile, what is beneath it is found no longer beneath it and
 * refused, as when it moves between the two readings of tc_path_where().
 */
int	tc_path_where_under(const char *rootpath, int fd, struct tc_where *w,
	    const char **why);

/*
 * Writes root |root|'s current path into |buf| (PATH_MAX bytes).  Returns
 * 0, or -1 with errno set and *|why| a static reason.
 */
int	tc_path_root_now(const struct tc_policy *pol, size_t root, char *buf,
	    const char **why);

void	tc_where_release(struct tc_where *w);

/*
 * Returns 1 if the entry |name| of the directory at |dir| is refused for
 * |access|, with the rule in *|rule| (NULL if the entry's path is too long
 * to check, which also refuses it); else 0.  For leaving denied entries
 * out of listings.
 */
int	tc_path_entry_denied(const struct tc_policy *pol,
	    const struct tc_where *dir, const char *name, unsigned access,
	    const struct tc_deny **rule);

/*
 * The same for many entries of one directory: |dd| holds the rules as
 * they apply there (tc_deny_dir_init() on the directory's own path), so
 * that an entry costs little more than matching its name.
 */
int	tc_path_dir_entry_denied(const struct tc_deny_dir *dd,
	    const struct tc_where *dir, const char *name,
	    const struct tc_deny **rule);

/*
 * In a call's child: checks |fd|, just opened for the mapped path |p|
 * (following symbolic links, as a reader does), against what the server
 * found there when consent was given (pol->pins).  Returns 0 (also when
 * the call has no pins), or -1 with errno ESTALE: the path has no pin, or
 * leads to another file, or to one that did not exist then.
 */
int	tc_path_pin_check(const struct tc_policy *pol, const struct tc_path *p,
	    int fd);

/*
 * The same for a change: |dfd| is the directory the change is made in,
 * |name| the entry there (not followed), and |p| the whole path.
 */
int	tc_path_pin_check_entry(const struct tc_policy *pol,
	    const struct tc_path *p, int dfd, const char *name);

/*
 * The same for create_directory: |fd| is the deepest directory on the way
 * that exists, with |missing| components still to make below it.
 */
int	tc_path_pin_check_prefix(const struct tc_policy *pol,
	    const struct tc_path *p, int fd, size_t missing);

/*
 * Returns a message for a failed resolution of |user| with errno |err|:
 * "'x': outside the allowed directories", "'x': not found", ...
 * Formats into |d| and returns a TC_E* code.
 */
int	tc_path_error(struct tc_diag *d, const char *user, int err);

/*
 * Formats the refusal of |user| by |rule| into |d|: "'x/.env': denied by
 * policy rule 'deny **' '/.env' (line 4)", or "(built in)" for a rule of
 * no line; "deny write ..." for a rule on writes only; for a rule that
 * stands for a consent rule (TC_ACCESS_CONSENT), that it needs consent
 * the call was not given; for one of the server's own files, "'x':
 * denied: it is the server's own audit key, which no call may read, list
 * or change".  Returns TC_EDENIED.
 */
int	tc_path_denied(struct tc_diag *d, const char *user,
	    const struct tc_deny *rule);

/*
 * Returns a message for a failed tc_path_check() or tc_path_open() of |p|
 * (mapped from |user|) with errno |err|: tc_path_denied()'s when a rule
 * refused it, "'x': cannot be checked against the deny rules: ..." when
 * none could be checked, else tc_path_error()'s.  Formats into |d| and
 * returns a TC_E* code.
 */
int	tc_path_open_error(struct tc_diag *d, const struct tc_path *p,
	    const char *user, int err);

#endif /* TC_PATH_H */
