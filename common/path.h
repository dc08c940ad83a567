/*
 * path.h: resolving a path a client gave to a file beneath an allowed root.
 *
 * The guard is the kernel: every open is openat2() from a root's directory
 * fd with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, so "..", absolute
 * symlinks, symlinks that climb out and /proc magic links all fail inside
 * the one system call that opens the file, with no window between a check
 * and its use.  The string work here only decides which root a path names.
 */
#ifndef TC_PATH_H
#define TC_PATH_H

#include <stddef.h>

#include "err.h"

struct tc_policy;

struct tc_path {
	size_t		 root;		/* index into policy->roots */
	char		*rel;		/* relative to the root; "." for itself */
	char		*display;	/* absolute form, for messages */
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
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS (retrying on EAGAIN).  Returns an
 * fd, or -1 with errno set (EXDEV: it resolves outside its root).
 */
int	tc_path_openat(const struct tc_policy *pol, const struct tc_path *p,
	    int flags, unsigned mode);

/*
 * Like tc_path_openat(), relative to an fd already beneath a root, for
 * walking a tree: |dirfd| must itself have been opened beneath the root.
 */
int	tc_path_openat_in(int dirfd, const char *rel, int flags, unsigned mode);

/*
 * Returns a message for a failed resolution of |user| with errno |err|:
 * "'x': outside the allowed directories", "'x': not found", ...
 * Formats into |d| and returns a TC_E* code.
 */
int	tc_path_error(struct tc_diag *d, const char *user, int err);

#endif /* TC_PATH_H */
