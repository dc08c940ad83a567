/*
 * shell_scratch.c: each call's scratch directory, its HOME and TMPDIR when
 * the policy names no home (shell.h).
 *
 * A call's child can write only beneath the writable roots (Landlock), and
 * programs want a home and a temporary directory (git reads ~/.gitconfig,
 * a compiler writes its temporary files in $TMPDIR): so at start the
 * server makes one directory in the system's temporary directory (the
 * base), which the profile lets every call write beneath, with two in it:
 * CALLS, where each call makes its own directory, named by 128 random
 * bits, and SPENT, where it moves it once emptied.  CALLS and SPENT are
 * mode 0300 (their owner, the calls' user, may make and enter entries but
 * not list them), and the calls run without capabilities, so that no call
 * can find another's directory, in use or spent.  The base itself is mode
 * 0111: a call may pass through it and nothing more, so that no call can
 * move CALLS or SPENT away and put a directory of its own, which it could
 * list, in their place.  What a killed call leaves is removed with the
 * base when the server exits.
 *
 * Removing a directory costs a journalled file system such as ext4 far
 * more than making one (milliseconds against microseconds on a busy
 * machine: its block is freed, and the removal waits on the journal),
 * and a call's child would pay it before sending its result.  So a call
 * empties its directory and moves it, by rename, into SPENT, and the
 * sweeper, a small process the server forks at start, removes what
 * arrives there, off every call's path.  The sweeper learns the names
 * from inotify (it cannot list SPENT either), runs as the calls' user
 * without capabilities or new privileges, removes only empty directories
 * directly in SPENT (rmdir, which follows no link and fails on anything
 * else), and dies with the server.  A directory that is not empty when it
 * arrives (processes the call left behind wrote in it until the call
 * ended) stays, unlisted, until the server exits.  Without inotify, or
 * where the move fails (a kernel whose Landlock cannot rename across
 * directories), the call removes its directory itself.
 *
 * A ready child makes its call's directory before the call comes, and may
 * be retired without one (every change of the client's roots retires them
 * all).  So the process that makes a directory holds a lock on it (flock)
 * until it is done with it, and only then is it named in CALLS (made
 * under a dot name, locked, renamed).  The sweeper notes each name that
 * arrives in CALLS, and each dot name made there, and whenever it wakes,
 * removes those whose lock it can take (their maker is gone) if they are
 * empty, and forgets those that are not there any more.  A dot name only
 * once it is DOT_AGE seconds old: its maker, if alive, locks and renames
 * it within microseconds, and a maker that loses the race all the same
 * (the sweeper took the lock, or removed it) tries again with a new name.
 * Where inotify's queue overflowed (IN_Q_OVERFLOW: events were lost), the
 * sweeper looks again at the last names it noted, in SPENT and in CALLS
 * (rescan()); a directory of which it saw no event stays until the
 * server exits.
 *
 * A server killed before its exit (SIGKILL) leaves its base.  So the base
 * is named for its server, as "toolcell-shell.NS-PID-START.BOOT.XXXXXX":
 * the server's PID namespace (the inode of /proc/self/ns/pid), its pid
 * there, its start time (field 22 of /proc/PID/stat), the machine's boot
 * id (/proc/sys/kernel/random/boot_id, its 32 hex digits), then
 * mkdtemp()'s random letters.  A starting server removes the bases of
 * such names in the same directory that it can prove left:
 *   - one of its own boot id (this machine, since it booted) whose server
 *     is dead: of its own PID namespace, and whose pid no process has
 *     now, or (where /proc shows that namespace) a process that started
 *     at another time has;
 *   - one of another boot id only on a file system known to be local
 *     (fs_local(): ext4, XFS, btrfs, tmpfs and the like; never NFS,
 *     CIFS/SMB, 9p, FUSE, AFS, Ceph, GFS2, OCFS2 or overlayfs, nor one it
 *     does not know) and last changed before this machine booted: its
 *     server ran in an earlier boot.  A TMPDIR shared between machines
 *     holds the live bases of other boot ids, and a local directory may
 *     be shared out (exported, or a virtual machine's shared folder): a
 *     base made since this boot is another machine's, and is left.
 * A name of the previous form, without the boot id, is left: the initial
 * PID namespace has the same inode on every machine, so its server could
 * be another machine's, alive.  Only a directory owned by the server's own user, not
 * a link, of the mode a base has (0111, or 0700 while it was being made),
 * is removed; anything else of such a name, and every base it cannot
 * prove left, or named otherwise, is left as it is.  Without its boot id
 * or /proc, the server names its base "toolcell-shell.XXXXXX", which no
 * server removes, and removes none.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "base/proc.h"
#include "base/text.h"
#include "policy/policy.h"
#include "sandbox/sandbox.h"
#include "shell.h"

#define TREE_DEPTH	64	/* levels a removal holds open below its root */
#define LIFT_TRIES	8	/* lift(): names tried */
#define CALLS		"calls"
#define SPENT		"spent"
#define NAME_LEN	32	/* a directory's name: 128 bits in hex */
#define TRACK_MAX	256	/* names in CALLS the sweeper keeps an eye on */
#define DOT_AGE		2	/* seconds: a dot name older is left */
#define MAKE_TRIES	3	/* shell_scratch_make(): names tried */
#define GATHER_MS	10	/* the sweeper's pause after each wakeup */
#define BASE_PREFIX	"toolcell-shell."
#define BASE_RANDOM	6	/* mkdtemp()'s letters */
#define BOOT_LEN	32	/* a boot id's hex digits, without its dashes */
#define BOOT_ID		"/proc/sys/kernel/random/boot_id"

const char *shell_scratch_base;

static char	*base;		/* shell_scratch_base, owned */
static char	*calls;		/* base/CALLS */
static pid_t	 base_owner;	/* the server, which removes it */
static pid_t	 sweeper = -1;	/* the server's: the sweeper's pid */
static int	 spent_ok;	/* SPENT and its sweeper are there */
static int	 base_fd = -1;	/* the base, open as it was made (O_PATH):
				   the calls' Landlock rules' */
static char	*ready_dir;	/* a ready child's: shell_scratch_ready() */
static int	 held = -1;	/* the lock on the directory this process
				   made (shell_scratch_make()) */

/* The sweeper's: the names that arrived in CALLS, TRACK_MAX at most (the
 * oldest give way); and the last TRACK_MAX of them that left CALLS other
 * than by its own removal, looked at again if events were lost. */
static char	 tracked[TRACK_MAX][NAME_LEN + 2];	/* and a dot */
static size_t	 ntracked, track_next;
static char	 went[TRACK_MAX][NAME_LEN + 2];
static size_t	 nwent, went_next;

/* A removal's state: the directory it empties, and the directories it
 * moved there from too deep below (lift()). */
struct tree {
	int		root;		/* the directory emptied, held */
	unsigned long	lifts;		/* names tried in |root|: each new */
	int		lifted;		/* a directory moved up this pass */
};

/*
 * Moves the directory |name|, in the directory open at |dfd| TREE_DEPTH
 * levels below |t|'s root, up into the root, under a new name: its own
 * entries are then TREE_DEPTH levels nearer, and a later pass over the
 * root enters it from there.  Gone meanwhile is as good as moved.
 * Returns 0 or -1.
 *
 * Both directories are held by fd, never reached by a path, and rename
 * acts on the entry itself, never on what a link names (a link moved up
 * is unlinked later as any file is): whatever a program still running
 * has done to the tree since it was listed, what is moved stays in the
 * root, and nothing outside is touched.  RENAME_NOREPLACE, so as not to
 * replace an entry of the root (which would be the tree's all the same);
 * where the file system cannot do that (EINVAL), a plain rename, which
 * fails on a name taken by a directory that is not empty or of another
 * kind, and then tries the next.
 */
static int
lift(struct tree *t, int dfd, const char *name)
{
	char to[32];
	int i, rc;

	for (i = 0; i < LIFT_TRIES; i++) {
		snprintf(to, sizeof(to), ".lifted.%lu", t->lifts++);
		if ((rc = renameat2(dfd, name, t->root, to,
		    RENAME_NOREPLACE)) != 0 && errno == EINVAL)
			rc = renameat(dfd, name, t->root, to);
		if (rc == 0) {
			t->lifted = 1;
			return 0;
		}
		if (errno == ENOENT)
			return 0;
		if (errno != EEXIST && errno != ENOTEMPTY &&
		    errno != ENOTDIR && errno != EISDIR)
			return -1;
	}
	return -1;
}

/*
 * Removes what the directory |d| holds, |depth| levels below it at most:
 * a directory found deeper is moved up into the root (lift()).  A
 * directory it cannot enter is made enterable first.  Returns 0, or -1
 * if something is left; what it moved up is in the root (|t|->lifted),
 * where this pass may not see it.
 */
static int
empty_dir(struct tree *t, DIR *d, int depth)
{
	struct dirent *e;
	DIR *sd;
	int sub, left, rc = 0;

	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR) {
			rc = -1;
			continue;
		}
		/* A program may have left a directory without the write or
		 * search bit: where chmod is allowed (the server), give them
		 * back; else the open, the move or the removal below fails
		 * (a directory moved to another parent must be writable, for
		 * its ".." entry).  Never through a link: a program still
		 * running may have swapped the directory for one since
		 * unlinkat() looked, and the server may be root (the C
		 * library refuses a link here, by the file it opened with
		 * O_PATH; the open below then fails with ELOOP). */
		if (fchmodat(dirfd(d), e->d_name, S_IRWXU,
		    AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
			continue;
		if (depth <= 0) {
			if (lift(t, dirfd(d), e->d_name) != 0)
				rc = -1;
			continue;
		}
		/* Gone meanwhile is as good as removed. */
		if ((sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0) {
			if (errno != ENOENT)
				rc = -1;
			continue;
		}
		if ((sd = fdopendir(sub)) == NULL) {
			close(sub);
			rc = -1;
			continue;
		}
		left = empty_dir(t, sd, depth - 1);
		closedir(sd);
		if (left != 0 || (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR)
		    != 0 && errno != ENOENT))
			rc = -1;
	}
	return rc;
}

/*
 * Removes what the directory open at |fd| holds, at any depth and of any
 * width, and closes |fd|.  Returns 0, or -1 if something is left.
 *
 * Holding an fd for each level down would take as many as the tree is
 * deep, and a program may build it deeper than any limit on fds; going
 * back up by ".." would follow wherever a program still running moved a
 * directory meanwhile.  So a pass holds TREE_DEPTH + 1 directories at
 * most, each entered from the one above by fd, and moves each directory
 * it finds deeper up into the root (lift()); then another pass, while a
 * pass moved one.  What it holds is bounded (TREE_DEPTH + 1 streams and
 * their buffers), whatever the tree.  Each move takes a directory from
 * TREE_DEPTH + 1 levels or more below the root to one, and nothing
 * brings one down: in a tree nobody changes, the passes end.  A program
 * of the call may still be changing it when the call's child empties its
 * home (one that left its process group lives until the call ends),
 * and can keep the passes going as long as it runs: the call's deadline
 * ends both, and the home is then removed with the base.  At the
 * server's exit its calls have been stopped and their processes killed
 * (remove_base() tries again while the last of them die), and at a
 * later server's start the base's server is gone, and its calls with it.
 */
static int
empty_tree(int fd)
{
	struct tree t = { fd, 0, 0 };
	DIR *d;
	int rc;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	for (;;) {
		t.lifted = 0;
		rc = empty_dir(&t, d, TREE_DEPTH);
		if (!t.lifted)
			break;
		rewinddir(d);
	}
	closedir(d);
	return rc;
}

/*
 * Returns 1 if the directory open at |fd| holds nothing but "." and "..",
 * 0 if it holds more or cannot be read, with its offset back at the start
 * either way; -1 if it cannot be put back there.  Read straight into the
 * stack: a DIR stream's buffer and the system calls that set one up cost
 * a call more than the reads, and nearly every call leaves its directory
 * empty.
 */
static int
dir_is_empty(int fd)
{
	char buf[1024] __attribute__((aligned(8)));
	const struct dirent64 *e;
	ssize_t n, off;
	int empty = 1;

	while (empty && (n = getdents64(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			empty = 0;
			break;
		}
		for (off = 0; off < n; off += e->d_reclen) {
			e = (const struct dirent64 *)(buf + off);
			if (strcmp(e->d_name, ".") != 0 &&
			    strcmp(e->d_name, "..") != 0) {
				empty = 0;
				break;
			}
		}
	}
	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	return empty;
}

/* Empties the directory open at |fd| and closes it.  Returns 0 or -1
 * (then it may not be empty). */
static int
empty_and_close(int fd)
{
	int empty = dir_is_empty(fd);

	if (empty == 0)
		return empty_tree(fd);
	close(fd);
	return empty > 0 ? 0 : -1;
}

int
shell_tree_remove(const char *path)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (empty_tree(fd) != 0)
		return -1;
	return rmdir(path);
}

/*
 * At the server's exit (not a child's: the spawner and the children share
 * this handler, and leave by _exit() anyway).  Children it retired may
 * still be dying, and one may be making its call's home: the base is
 * moved out of their way first (they make homes by its path), and its
 * removal tried again a few times while what it holds still changes.
 */
static void
remove_base(void)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	char *gone, *path;
	int i;

	if (base == NULL || getpid() != base_owner)
		return;
	/* No sweeper removing what the removal below is about to. */
	if (sweeper > 0 && kill(sweeper, SIGKILL) == 0)
		while (waitpid(sweeper, NULL, 0) < 0 && errno == EINTR)
			;
	path = base;
	/* A new empty directory of our own that the base replaces. */
	if ((gone = tc_text_alloc("%s.XXXXXX", base)) != NULL) {
		if (mkdtemp(gone) != NULL && rename(base, gone) == 0)
			path = gone;
		else
			(void)rmdir(gone);
	}
	/* The server may not be root: let it list what it removes (the
	 * removal gives CALLS and SPENT back their bits).  Never through a
	 * link: where the policy lets calls of uid 0 write the directory the
	 * base is in, one may have taken the base's place (the rename above
	 * then fails, and the removal leaves the link). */
	for (i = 0; i < 10; i++) {
		if (fchmodat(AT_FDCWD, path, S_IRWXU, AT_SYMLINK_NOFOLLOW) !=
		    0 || shell_tree_remove(path) == 0)
			break;	/* at exit: nobody to tell */
		(void)nanosleep(&pause, NULL);
	}
	free(gone);
}

/* --- Bases left by servers killed before their exit --- */

/* A base's name, as parse_base() reads it. */
struct base_name {
	struct tc_proc_id	id;
	char			boot[BOOT_LEN + 1];
};

/* 1 if |c| is a lowercase hex digit, as boot ids and our names are. */
static int
lower_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* 1 if the |n| bytes at |s| are all lowercase hex digits. */
static int
all_lower_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!lower_hex((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * Reads this machine's boot id into |boot|, its 32 hex digits without
 * the dashes.  Returns 0, or -1 if it cannot be read or is not one.
 */
static int
read_boot_id(char boot[BOOT_LEN + 1])
{
	char buf[64];
	size_t i, k = 0;

	/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n" */
	if (tc_read_small(BOOT_ID, buf, sizeof(buf)) != BOOT_LEN + 5)
		return -1;
	for (i = 0; i < BOOT_LEN + 4; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (buf[i] != '-')
				return -1;
		} else if (lower_hex((unsigned char)buf[i]))
			boot[k++] = buf[i];
		else
			return -1;
	}
	boot[k] = '\0';
	return buf[i] == '\n' ? 0 : -1;
}

/*
 * Parses a base's name, "toolcell-shell.NS-PID-START.BOOT.XXXXXX", or that
 * and ".XXXXXX" again (a base its server's exit moved aside to remove it:
 * remove_base()), into |b|.  Returns 1 if it is one; a name of the
 * previous form, without ".BOOT", is none.
 */
static int
parse_base(const char *name, struct base_name *b)
{
	const char *p = name + strlen(BASE_PREFIX);
	int i, k;

	if (strncmp(name, BASE_PREFIX, strlen(BASE_PREFIX)) != 0 ||
	    (p = tc_proc_id_parse(p, '.', &b->id)) == NULL)
		return 0;
	/* BOOT_LEN lowercase hex digits and a dot: a boot id (mkdtemp()'s
	 * letters are BASE_RANDOM). */
	if (!all_lower_hex(p, BOOT_LEN) || p[BOOT_LEN] != '.')
		return 0;
	memcpy(b->boot, p, BOOT_LEN);
	b->boot[BOOT_LEN] = '\0';
	p += BOOT_LEN + 1;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < BASE_RANDOM; i++, p++)
			if (!((*p >= '0' && *p <= '9') ||
			    (*p >= 'a' && *p <= 'z') ||
			    (*p >= 'A' && *p <= 'Z')))
				return 0;
		if (*p == '\0')
			return 1;
		if (*p++ != '.')
			return 0;
	}
	return 0;
}

/* File systems that <linux/magic.h> may not name. */
#define JFS_MAGIC	0x3153464a
#define ZFS_MAGIC	0x2fc12fc1
#define BCACHEFS_MAGIC	0xca451a4e

/*
 * Returns 1 if the file system of |fd| is known to be local: one a disk
 * or memory of this machine holds, which no other machine writes while
 * it is mounted here.  Anything else is 0: a network or cluster file
 * system: NFS, CIFS/SMB, 9p, AFS, Ceph, GFS2, OCFS2; FUSE (which may be
 * any of them), a stacked one (overlayfs, whose upper layer it cannot
 * tell), one unknown, or an fd fstatfs() fails on.
 */
static int
fs_local(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) != 0)
		return 0;
	switch ((unsigned long)sf.f_type) {
	case EXT4_SUPER_MAGIC:		/* ext2 and ext3 too */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case F2FS_SUPER_MAGIC:
	case TMPFS_MAGIC:
	case RAMFS_MAGIC:
	case NILFS_SUPER_MAGIC:
	case REISERFS_SUPER_MAGIC:
	case MSDOS_SUPER_MAGIC:
	case EXFAT_SUPER_MAGIC:
	case JFS_MAGIC:
	case ZFS_MAGIC:
	case BCACHEFS_MAGIC:
		return 1;
	default:
		return 0;
	}
}

/* Returns 1 if |st| was last changed before this machine booted (as
 * its clocks say now); 0 if not, or if it cannot tell. */
static int
before_boot(const struct stat *st)
{
	struct timespec now, up;
	long long sec;
	long nsec;

	if (clock_gettime(CLOCK_REALTIME, &now) != 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &up) != 0)
		return 0;
	sec = (long long)now.tv_sec - up.tv_sec;
	if ((nsec = now.tv_nsec - up.tv_nsec) < 0) {
		sec--;
		nsec += 1000000000L;
	}
	return st->st_ctim.tv_sec < sec || (st->st_ctim.tv_sec == sec &&
	    st->st_ctim.tv_nsec < nsec);
}

/*
 * Returns 1 if the base named |b|, held at |fd| (|st|), was left by a
 * server that is gone, as the server |me| of boot id |boot| can prove
 * it: of its boot id, by tc_proc_gone(); of
 * another, on a file system known to be local (fs_local()), and changed
 * last before this boot (before_boot()).
 */
static int
base_left(const struct base_name *b, const struct tc_proc_id *me,
    const char *boot, int fd, const struct stat *st)
{
	if (strcmp(b->boot, boot) == 0)
		return tc_proc_gone(&b->id, me);
	return fs_local(fd) && before_boot(st);
}

/* Returns 1 if |st| is what a base is: a directory of this server's
 * user, mode 0111 (made), or 0700 (being made). */
static int
base_shape(const struct stat *st)
{
	mode_t mode = st->st_mode & 07777;

	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
	    (mode == (S_IXUSR | S_IXGRP | S_IXOTH) || mode == S_IRWXU);
}

/*
 * Removes the base |name| in the directory open at |dfd|, held at |fd|
 * (O_PATH) and found to be one (|st|): all of it is removed through that
 * fd, never by a path that could lead elsewhere by now, and its name only
 * while it still names that directory (then empty: rmdir).
 */
static void
remove_left(int dfd, const char *name, int fd, const struct stat *st)
{
	char self[64];
	struct stat now;
	int dir;

	/* Its bits back, for a server that is not root: on the directory
	 * held (the fd's magic link), not on what its name leads to. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	(void)chmod(self, S_IRWXU);
	/* "." of the fd held: that directory itself, whatever its name
	 * leads to by now. */
	if ((dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if (empty_tree(dir) == 0 &&
	    fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_dev == st->st_dev && now.st_ino == st->st_ino)
		(void)unlinkat(dfd, name, AT_REMOVEDIR);
}

/*
 * Removes from |tmp| the bases left by servers that are gone
 * (base_left()), of the shape a base has (base_shape()), never through a
 * link.  |me| is the calling server, |boot| its boot id.  Whatever it
 * cannot tell, or cannot do, it leaves: there is nobody to tell at
 * start.
 */
static void
remove_left_bases(const char *tmp, const struct tc_proc_id *me,
    const char *boot)
{
	struct dirent *e;
	struct stat st;
	struct base_name b;
	int dfd, fd;
	DIR *d;

	/* The stream's own fd (close-on-exec, as glibc opens it) for the
	 * openat()s: the entries are looked up where they were listed. */
	if ((d = opendir(tmp)) == NULL || (dfd = dirfd(d)) < 0) {
		if (d != NULL)
			closedir(d);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (!parse_base(e->d_name, &b))
			continue;
		/* O_NOFOLLOW with O_PATH and O_DIRECTORY: a link fails. */
		if ((fd = openat(dfd, e->d_name, O_PATH | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		if (fstat(fd, &st) == 0 && base_shape(&st) &&
		    base_left(&b, me, boot, fd, &st))
			remove_left(dfd, e->d_name, fd, &st);
		close(fd);
	}
	closedir(d);
}

/* Returns 1 if |name| (|len| bytes, a NUL among them) is one a call's
 * directory could have: NAME_LEN hex digits, after a dot if |dot|. */
static int
is_dir_name(const char *name, size_t len, int dot)
{
	if (dot && (len == 0 || *name++ != '.'))
		return 0;
	len -= (size_t)(dot != 0);
	if (len <= NAME_LEN || name[NAME_LEN] != '\0')
		return 0;
	return all_lower_hex(name, NAME_LEN);
}

/* Notes |name|, a directory's that arrived or was made in CALLS. */
static void
track(const char *name)
{
	snprintf(tracked[track_next], sizeof(tracked[track_next]), "%s",
	    name);
	track_next = (track_next + 1) % TRACK_MAX;
	if (ntracked < TRACK_MAX)
		ntracked++;
}

/* Returns 1 if |name| is noted. */
static int
tracking(const char *name)
{
	size_t i;

	for (i = 0; i < ntracked; i++)
		if (strcmp(tracked[i], name) == 0)
			return 1;
	return 0;
}

/* Returns 1 if the directory open at |fd|, of name |name|, may be taken
 * for one whose maker is gone: its lock is free, and a dot name is
 * DOT_AGE seconds old.  Sets *|gone| when it is not one to keep noting. */
static int
left(int fd, const char *name, int *gone)
{
	struct timespec now;
	struct stat st;

	*gone = 0;
	if (name[0] == '.' && (fstat(fd, &st) != 0 ||
	    clock_gettime(CLOCK_REALTIME, &now) != 0 ||
	    now.tv_sec - st.st_ctim.tv_sec < DOT_AGE))
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 1;
	*gone = errno != EWOULDBLOCK;
	return 0;
}

/*
 * Looks at each directory noted in CALLS (held at |calls|): one whose
 * lock it can take was left by a process that is gone (a ready child
 * retired before its call, or a call killed), and is removed if it is
 * empty; one that is not there any more (spent, or removed), or that it
 * cannot open as a directory, is forgotten, and its name kept in |went|
 * unless it removed it itself.  It never blocks: the lock is only tried.
 */
static void
reap_left(int calls_fd)
{
	size_t i = 0, last;
	int fd, gone, removed;

	while (i < ntracked) {
		gone = 1;
		removed = 0;
		if ((fd = openat(calls_fd, tracked[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) >= 0) {
			if (left(fd, tracked[i], &gone)) {
				removed = unlinkat(calls_fd, tracked[i],
				    AT_REMOVEDIR) == 0;
				gone = 1;
			}
			close(fd);
		}
		if (!gone) {
			i++;
			continue;
		}
		if (!removed) {
			memcpy(went[went_next], tracked[i], sizeof(went[0]));
			went_next = (went_next + 1) % TRACK_MAX;
			if (nwent < TRACK_MAX)
				nwent++;
		}
		/* The last one in its place; the ring's order is lost, which
		 * only changes which name gives way first. */
		last = --ntracked;
		if (i != last)
			memcpy(tracked[i], tracked[last], sizeof(tracked[i]));
		track_next = ntracked;
	}
}

/*
 * After events were lost (the queue overflowed: IN_Q_OVERFLOW), looks
 * again at every name it noted that has left CALLS (held at |calls|),
 * as reap_left() kept them: each may have arrived in SPENT (held at
 * |spent|) unseen, and is removed there if it did and is empty; a dot
 * name may have been renamed in CALLS unseen, and its name without the
 * dot is noted.  Then it looks at CALLS as after any wakeup.  Names of
 * which every event was lost it cannot find: it may not list either
 * directory; they stay until the server exits.
 */
static void
rescan(int spent, int calls_fd)
{
	char name[NAME_LEN + 2];
	size_t i;

	reap_left(calls_fd);
	for (i = 0; i < nwent; i++) {
		memcpy(name, went[i], sizeof(name));
		(void)unlinkat(spent, name + (name[0] == '.'), AT_REMOVEDIR);
		if (name[0] == '.' && !tracking(name + 1))
			track(name + 1);
	}
	reap_left(calls_fd);
}

/*
 * Acts on the |n| bytes of inotify events in |buf|: a directory moved
 * into SPENT (watch |spent_wd|, held at |spent|) is removed; one moved
 * into CALLS (watch |calls_wd|), or made there under a dot name, is
 * noted.  Returns 1 if the events say some were lost (IN_Q_OVERFLOW),
 * else 0.
 */
static int
sweep(int spent, int spent_wd, int calls_wd, const char *buf, size_t n)
{
	const struct inotify_event *e;
	size_t at;
	int lost = 0;

	for (at = 0; at + sizeof(*e) <= n; at += sizeof(*e) + e->len) {
		e = (const struct inotify_event *)(const void *)(buf + at);
		if (at + sizeof(*e) + e->len > n)
			break;
		if (e->mask & IN_Q_OVERFLOW)
			lost = 1;
		if (e->len == 0 || memchr(e->name, '\0', e->len) == NULL)
			continue;
		if (e->wd == spent_wd && (e->mask & IN_MOVED_TO))
			(void)unlinkat(spent, e->name, AT_REMOVEDIR);
		else if (e->wd == calls_wd && (((e->mask & IN_MOVED_TO) &&
		    is_dir_name(e->name, e->len, 0)) || ((e->mask &
		    IN_CREATE) && is_dir_name(e->name, e->len, 1))))
			track(e->name);
	}
	return lost;
}

/* The sweeper's fds, in the server and in the sweeper. */
struct sweeper_fds {
	int	spent;		/* O_PATH */
	int	calls;		/* O_PATH */
	int	ino;		/* inotify */
	int	spent_wd;
	int	calls_wd;
};

/*
 * The sweeper's life: the calls' user, no capability, no new privileges,
 * nothing of the server's open but SPENT, CALLS and the inotify watch on
 * them; it removes each directory moved into SPENT as inotify names it,
 * and the directories left in CALLS by processes that are gone, until the
 * server dies.
 */
static void __attribute__((__noreturn__))
sweeper_main(const struct tc_policy *pol, pid_t server,
    const struct sweeper_fds *f)
{
	const struct timespec gather = { 0, GATHER_MS * 1000 * 1000 };
	char buf[8192] __attribute__((aligned(__alignof__(
	    struct inotify_event))));
	int null, hi[3], i;
	ssize_t n;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server)
		_exit(1);
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(null, STDERR_FILENO) < 0)
		_exit(1);
	/* SPENT at 3, inotify's fd at 4, CALLS at 5, nothing else open. */
	if ((hi[0] = fcntl(f->spent, F_DUPFD_CLOEXEC, 100)) < 0 ||
	    (hi[1] = fcntl(f->ino, F_DUPFD_CLOEXEC, 100)) < 0 ||
	    (hi[2] = fcntl(f->calls, F_DUPFD_CLOEXEC, 100)) < 0)
		_exit(1);
	for (i = 0; i < 3; i++)
		if (dup3(hi[i], 3 + i, O_CLOEXEC) < 0)
			_exit(1);
	if (close_range(6, ~0U, 0) != 0)
		_exit(1);
	/* Only what the calls' user may do. */
	if (tc_sandbox_as_calls(pol, server) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(1);
	for (;;) {
		if ((n = read(4, buf, sizeof(buf))) > 0) {
			if (sweep(3, f->spent_wd, f->calls_wd, buf,
			    (size_t)n))
				rescan(3, 5);
			else
				reap_left(5);
			/* Each call makes three events: woken for each, and
			 * looking at every noted name each time, it took 5%
			 * of the CPU of calls back to back.  What comes in
			 * the next GATHER_MS is read in one go. */
			(void)nanosleep(&gather, NULL);
		} else if (n == 0 || errno != EINTR)
			_exit(1);
	}
}

/*
 * Makes a directory |name| in the base, owned by the calls' user, mode
 * 0700 until the base is ready (shell_scratch_init() makes it 0300).
 * Returns its path (owned), or NULL with errno set.
 */
static char *
make_inner(const struct tc_policy *pol, const char *name)
{
	char *path;

	if ((path = tc_text_alloc("%s/%s", base, name)) == NULL)
		return NULL;
	if (mkdir(path, S_IRWXU) != 0 ||
	    (pol->run_as && chown(path, pol->run_uid, pol->run_gid) != 0)) {
		free(path);
		return NULL;
	}
	return path;
}

/*
 * Watches SPENT and CALLS at |spent| and |calls| (not yet 0300: a watch
 * needs the read bit), and forks the sweeper.  Returns 0 or -1: without
 * them, calls remove their directories themselves.
 */
static int
spent_init(const struct tc_policy *pol, const char *spent, const char *calls_at)
{
	struct sweeper_fds f = { -1, -1, -1, -1, -1 };
	pid_t pid = -1, server = getpid();
	const uint32_t mask = IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW;

	/* O_PATH: directories the sweeper's removals are relative to,
	 * which it will have no right to read. */
	if ((f.spent = open(spent, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || (f.calls = open(calls_at, O_PATH |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (f.ino = inotify_init1(IN_CLOEXEC)) < 0 ||
	    (f.spent_wd = inotify_add_watch(f.ino, spent, mask)) < 0 ||
	    (f.calls_wd = inotify_add_watch(f.ino, calls_at, mask |
	    IN_CREATE)) < 0)
		goto out;
	if ((pid = fork()) == 0)
		sweeper_main(pol, server, &f);
	sweeper = pid;
out:
	if (f.spent >= 0)
		close(f.spent);
	if (f.calls >= 0)
		close(f.calls);
	if (f.ino >= 0)
		close(f.ino);
	return pid < 0 ? -1 : 0;
}

int
shell_scratch_init(const struct tc_policy *pol, struct tc_diag *d)
{
	const char *tmp = shell_scratch_tmpdir();
	char *spent = NULL, boot[BOOT_LEN + 1];
	struct tc_proc_id me;

	if (base != NULL)
		return 0;
	/* Named for this server and its machine's boot, so that a later
	 * one can tell it is gone if it dies without removing it; without
	 * them, named so that no server removes it. */
	if (tc_proc_me(&me) == 0 && read_boot_id(boot) == 0) {
		remove_left_bases(tmp, &me, boot);
		base = tc_text_alloc("%s/" BASE_PREFIX TC_PROC_ID_FMT
		    ".%s.XXXXXX", tmp, me.ns, me.pid, me.start, boot);
	} else
		base = tc_text_alloc("%s/" BASE_PREFIX "XXXXXX", tmp);
	if (base == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	if (mkdtemp(base) == NULL) {
		tc_diag_errno(d, TC_ESYS, "cannot make the calls' scratch "
		    "directory in '%s' (give the [shell] section a 'home "
		    "DIR')", tmp);
		free(base);
		base = NULL;
		return TC_ESYS;
	}
	/* Held for the calls' rules, which are built again when the roots
	 * change: by then the name may lead elsewhere. */
	if ((base_fd = open(base, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		tc_diag_errno(d, TC_ESYS, "cannot open '%s'", base);
		(void)rmdir(base);
		free(base);
		base = NULL;
		return TC_ESYS;
	}
	base_owner = getpid();
	if (atexit(remove_base) != 0) {
		close(base_fd);
		base_fd = -1;
		(void)rmdir(base);
		free(base);
		base = NULL;
		return tc_diag(d, TC_ENOMEM, "out of memory");
	}
	/* CALLS, its owner the calls' user: make entries, enter them, list
	 * none; SPENT the same, where they go once spent; then the base:
	 * passed through, never changed, by anyone but the server. */
	if ((calls = make_inner(pol, CALLS)) == NULL ||
	    (spent = make_inner(pol, SPENT)) == NULL) {
		tc_diag_errno(d, TC_ESYS, "cannot make the calls' scratch "
		    "directories in '%s'", base);
		goto fail;
	}
	spent_ok = spent_init(pol, spent, calls) == 0;
	if (chmod(calls, S_IWUSR | S_IXUSR) != 0 ||
	    chmod(spent, S_IWUSR | S_IXUSR) != 0 ||
	    chmod(base, S_IXUSR | S_IXGRP | S_IXOTH) != 0) {
		tc_diag_errno(d, TC_ESYS, "cannot close '%s' to the calls",
		    base);
		goto fail;
	}
	free(spent);
	shell_scratch_base = base;
	return 0;
fail:
	remove_base();
	close(base_fd);
	base_fd = -1;
	free(spent);
	free(calls);
	calls = NULL;
	free(base);
	base = NULL;
	return TC_ESYS;
}

int
shell_scratch_base_fd(void)
{
	return base_fd;
}

/*
 * Makes a directory of a random name in CALLS, under a dot name first,
 * locked, then renamed.  Returns its path, or NULL with errno set.
 */
static char *
make_once(void)
{
	unsigned char r[16];
	char *path = NULL, *tmp = NULL;
	size_t i;
	int fd = -1, err;
	char name[2 * sizeof(r) + 1];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return NULL;
	for (i = 0; i < sizeof(r); i++)
		snprintf(name + 2 * i, 3, "%02x", r[i]);
	/* Named in CALLS only once locked: the sweeper takes a directory
	 * whose lock it can take for one whose maker is gone. */
	if ((path = tc_text_alloc("%s/%s", calls, name)) == NULL ||
	    (tmp = tc_text_alloc("%s/.%s", calls, name)) == NULL)
		goto fail;
	if (mkdir(tmp, S_IRWXU) != 0) {
		free(tmp);
		tmp = NULL;
		goto fail;
	}
	if ((fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0 ||
	    rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	if (held >= 0)
		close(held);
	held = fd;
	return path;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	if (tmp != NULL)
		(void)rmdir(tmp);
	free(tmp);
	free(path);
	errno = err;
	return NULL;
}

char *
shell_scratch_make(void)
{
	char *path = NULL;
	int i;

	if (shell_scratch_base == NULL) {
		errno = ENOENT;
		return NULL;
	}
	/* A sweeper that took a dot name for one left (its maker stopped
	 * for DOT_AGE seconds between mkdir and flock) costs a try. */
	for (i = 0; i < MAKE_TRIES && path == NULL; i++)
		path = make_once();
	return path;
}

void
shell_scratch_done(const char *path)
{
	const char *name = strrchr(path, '/');
	char to[PATH_MAX];
	int fd, moved = 0;

	/* Emptied here, as the call's user and confined: the sweeper only
	 * ever removes an empty directory. */
	if (spent_ok && name != NULL && snprintf(to, sizeof(to), "%s/%s%s",
	    shell_scratch_base, SPENT, name) < (int)sizeof(to) &&
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0 && empty_and_close(fd) == 0)
		moved = rename(path, to) == 0;
	if (!moved)
		(void)shell_tree_remove(path);
	/* Out of CALLS (or left there, not empty): the lock goes. */
	if (held >= 0)
		close(held);
	held = -1;
}

void
shell_scratch_ready(const struct tc_policy *pol)
{
	if (shell_policy(pol)->home == NULL && ready_dir == NULL)
		ready_dir = shell_scratch_make();
}

char *
shell_scratch_take(void)
{
	char *path = ready_dir;

	ready_dir = NULL;
	return path != NULL ? path : shell_scratch_make();
}
