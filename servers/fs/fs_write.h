/*
 * fs_write.h: the target of a change, shared by fs_write.c (write_file,
 * create_directory, move_file, delete_file) and fs_edit.c (edit_file)
 * only: nothing else includes it.  fs_write.c implements it; its first
 * comment says how a change is confined to the allowed directories.
 */
#ifndef TC_FS_WRITE_H
#define TC_FS_WRITE_H

#include <stddef.h>
#include <sys/types.h>

#include "policy/path.h"
#include "protocol/tools.h"

struct stat;

/* What a path names for a change: its parent, open, and its last name. */
struct target {
	const struct tc_policy *pol;	/* the call's */
	const char	*user;		/* as the client gave it */
	struct tc_path	 p;
	int		 dfd;		/* the parent directory, O_PATH */
	char		*name;		/* the last component */
	char		*abs;		/* where the entry is, when known */
	size_t		 reloff;	/* its path relative to its root */
};

/*
 * Maps |user| and opens its parent directory beneath its root for a change
 * (|access|: the deny rules that apply, TC_ACCESS_WRITE and maybe READ).
 * Checks, in order: the path as given is not denied; it is not a root
 * itself; the parent is beneath its root (openat2); where the parent
 * really is, neither it nor the entry is denied, and the innermost root
 * holding it is read-write.  Returns 0 with |t| filled (released with
 * fs_target_release()), or -1 with |res| made a tool error.
 */
int	fs_target_open(const struct tc_call *call, const char *user,
	    unsigned access, struct target *t, struct tc_result *res);

/* Closes the parent directory fs_target_open() opened in |t| and frees
 * what it allocated there. */
void	fs_target_release(struct target *t);

/* lstat() of the target's entry itself, into |st|.  Returns 0, or -1 with
 * errno set. */
int	fs_target_stat(const struct target *t, struct stat *st);

/* Refuses the change of |t| with the open's |err| (an errno): makes |res|
 * a tool error naming |t|'s path.  Returns 0, as tc_result_error() does. */
int	fs_open_error(struct tc_result *res, struct target *t, int err);

/*
 * Refuses what write_file and edit_file do not replace: a symlink, a
 * directory, any other non-regular file, a file with other hard links.
 * Returns 0 if |st| may be replaced, else -1 with |res| set; |tool| names
 * the tool in the message.
 */
int	fs_replaceable(const struct target *t, const struct stat *st,
	    const char *tool, struct tc_result *res);

/*
 * Replaces the target's entry with |n| bytes of |data| atomically: a new
 * file in its directory, written, synced, then renamed over the entry.
 * The new file is unnamed (O_TMPFILE) while it is written, and linked
 * under a random name just before the rename, so a call killed meanwhile
 * leaves nothing; where the filesystem has no O_TMPFILE it is created
 * under that name (O_EXCL) from the start.  The name starts with the
 * entry's own, unless the deny rules would refuse that name.  |mode|
 * (permission bits) is given to the new file if |keep_mode|, else it is
 * created 0644 less the umask.  With |expect|, the entry must still be
 * that file (device, inode, size and change time) just before the rename,
 * else nothing changes.  The entry is checked again just before the
 * rename: a symlink or a hard-linked file put there meanwhile is refused.
 * The temporary file is removed on every failure.  Returns 0, or -1 with
 * |res| set.
 */
int	fs_replace_file(const struct target *t, const char *data, size_t n,
	    mode_t mode, int keep_mode, const struct stat *expect,
	    const char *tool, struct tc_result *res);

#endif /* TC_FS_WRITE_H */
