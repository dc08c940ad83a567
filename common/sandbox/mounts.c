/*
 * mounts.c: what a profile keeps read-only beneath the writable roots
 * (profile.h, read_only), in a child's mount namespace of its own
 * (CLONE_NEWNS, asked for by prepare.c), before the child is confined
 * (tc_mounts_protect()).
 *
 * Landlock grants a right on a directory and everything beneath it, and
 * can take nothing back: a writable root's .git is as writable as the
 * rest.  A mount can: each place found is bound over itself, read-only,
 * so that the kernel answers EROFS to any change there, whatever opens
 * it.  The steps, in the child's namespace, none of them by a path a
 * call could have swapped meanwhile (a job runs beside a child being
 * made):
 *
 *	every mount a slave, so that nothing made here reaches the
 *	server's namespace (a child without a user namespace of its own
 *	shares the mounts' peer groups);
 *	each root opened again by its path, checked to be the directory the
 *	server holds (device and inode);
 *	at its top and in each directory one level down, each name of the
 *	profile's list opened beneath it without following a link, cloned
 *	(open_tree()), made read-only (mount_setattr()) and moved onto the
 *	very file it was opened as (move_mount());
 *	a directory one level down that holds one also bound over itself,
 *	writable: a mount point cannot be renamed, so a call cannot move the
 *	repository aside and put one of its own making in its place;
 *	every root's fd then opened again and put in place of the server's
 *	(dup3()).  An fd opened in the server's namespace resolves through
 *	the server's mounts, where none of this is: the child's working
 *	directory, opened beneath a root's fd, would walk past every bind.
 *
 * Once the child is confined no process of the call can undo it: it has
 * no capability, Landlock refuses any change to the mounts of a process
 * it restricts, and the filter refuses the mount calls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <limits.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/glob.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"

_Static_assert(TC_READ_ONLY_MAX == 512, "tc_mounts_strerror() says 512");

struct tc_keep {
	const char *const *names;
	/* The profile's read_only_found, or NULL. */
	int		(*found)(struct tc_keep *k, int at, const char *dir,
			    const char *place);
	const char	*root;		/* the writable root's canonical path */
	unsigned	 n;		/* mounts made so far */
};

const char *
tc_keep_root(const struct tc_keep *k)
{
	return k->root;
}

static int
open_beneath(int at, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_CLOEXEC);
	how.resolve = resolve | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, at, path, &how, sizeof(how));
}

/*
 * Binds the file or directory |fd| (O_PATH, in this namespace) over
 * itself, its mounts too, read-only if |ro|.  Returns 0, or -1 with
 * errno.
 */
static int
bind_over(int fd, int ro)
{
	struct mount_attr attr;
	int tree, rc = -1, e;

	if ((tree = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE)) < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_RDONLY;
	if ((!ro || syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH |
	    AT_RECURSIVE, &attr, sizeof(attr)) == 0) &&
	    syscall(SYS_move_mount, tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH |
	    MOVE_MOUNT_T_EMPTY_PATH) == 0)
		rc = 0;
	e = errno;
	close(tree);
	errno = e;
	return rc;
}

/*
 * Opens |path| beneath |at| as the place to bind: a directory or a
 * regular file, reached through no link.  Returns the fd (O_PATH); -1
 * with errno 0 where there is none (nothing there, a link, another kind
 * of file, or one the child may not look at); -1 with errno on a failure.
 */
static int
open_place(int at, const char *path)
{
	struct stat st;
	int fd;

	if ((fd = open_beneath(at, path, O_PATH | O_NOFOLLOW,
	    RESOLVE_BENEATH)) < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
		    errno == EACCES || errno == EXDEV)
			errno = 0;
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		close(fd);
		errno = 0;
		return -1;
	}
	return fd;
}

/* bind_over() |fd|, which it closes, counted against the child's most
 * (E2BIG past it).  Returns 0, or -1 with errno. */
static int
bind_counted(struct tc_keep *k, int fd, int ro)
{
	int rc = -1, e = E2BIG;

	if (++k->n <= TC_READ_ONLY_MAX) {
		rc = bind_over(fd, ro);
		e = errno;
	}
	close(fd);
	errno = e;
	return rc;
}

/*
 * Binds over itself, writable, each directory of |rel| (beneath |at|)
 * from its first component down to itself ("a", "a/b", "a/b/c"), but
 * those no longer than |skip| bytes: a mount point cannot be renamed or
 * removed, so what lies beneath stays where it was found.  Returns 0 (a
 * directory not there, or a link, ends it quietly: nothing beneath is
 * there to keep), or -1 with errno.
 */
static int
pin(struct tc_keep *k, int at, const char *rel, size_t skip)
{
	char path[PATH_MAX];
	const char *slash;
	size_t len;
	int fd;

	if (*rel == '\0')
		return 0;
	for (slash = rel;; slash++) {
		if (*slash != '/' && *slash != '\0')
			continue;
		/* Those above |skip| are held already. */
		if ((len = (size_t)(slash - rel)) <= skip) {
			if (*slash == '\0')
				break;
			continue;
		}
		if (len >= sizeof(path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(path, rel, len);
		path[len] = '\0';
		if ((fd = open_place(at, path)) < 0)
			return errno == 0 ? 0 : -1;
		if (bind_counted(k, fd, 0) != 0)
			return -1;
		if (*slash == '\0')
			break;
	}
	return 0;
}

int
tc_keep_beneath(struct tc_keep *k, int at, const char *top, const char *path)
{
	size_t tlen = strlen(top);
	int fd;

	if ((fd = open_place(at, path)) < 0)
		return errno == 0 ? 0 : -1;
	close(fd);
	/* The directories between first, and the place opened again
	 * through their mounts: a bind made beneath a directory's old
	 * mount would be hidden under the new one. */
	if (tlen > 0 && (strncmp(path, top, tlen) != 0 || path[tlen] != '/')) {
		errno = EINVAL;
		return -1;
	}
	if (strrchr(path, '/') != NULL) {
		char dir[PATH_MAX];
		size_t dlen = (size_t)(strrchr(path, '/') - path);

		memcpy(dir, path, dlen);
		dir[dlen] = '\0';
		if (dlen > tlen && pin(k, at, dir, tlen) != 0)
			return -1;
	}
	if ((fd = open_place(at, path)) < 0)
		return errno == 0 ? 0 : -1;
	return bind_counted(k, fd, 1) != 0 ? -1 : 1;
}

/*
 * Binds read-only each relative name of |k| found in |dir| (beneath
 * |at|, "" for |at| itself), |dir| bound over itself first, and then
 * what the profile finds in each (read_only_found).  Returns 0, or -1
 * with errno.
 */
static int
protect_dir(struct tc_keep *k, int at, const char *dir)
{
	char path[PATH_MAX];
	const char *const *name;
	int n, rc;

	for (name = k->names; *name != NULL; name++) {
		if (**name == '/')
			continue;
		n = snprintf(path, sizeof(path), "%s%s%s", dir,
		    *dir != '\0' ? "/" : "", *name);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if ((rc = tc_keep_beneath(k, at, "", path)) < 0)
			return -1;
		if (rc > 0 && k->found != NULL &&
		    k->found(k, at, dir, path) != 0)
			return -1;
	}
	return 0;
}

/*
 * Opens root |r| again by its path, in this namespace: the directory the
 * server holds as r->fd, or -1 with errno (ESTALE where the path now
 * names another).
 */
static int
reopen_root(const struct tc_root *r)
{
	struct stat a, b;
	int fd;

	if ((fd = open_beneath(AT_FDCWD, r->path, O_PATH | O_DIRECTORY,
	    0)) < 0)
		return -1;
	if (fstat(fd, &a) != 0 || fstat(r->fd, &b) != 0) {
		close(fd);
		return -1;
	}
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

/* 1 if a component of |rel| is one of |k|'s relative names. */
static int
named_in(const struct tc_keep *k, const char *rel)
{
	const char *const *name;
	size_t len;

	for (; rel != NULL && *rel != '\0'; rel += len + (rel[len] == '/')) {
		len = strcspn(rel, "/");
		for (name = k->names; *name != NULL; name++)
			if (**name != '/' && strlen(*name) == len &&
			    strncmp(*name, rel, len) == 0)
				return 1;
	}
	return 0;
}

/* 1 if |path| is, or lies beneath, one of |k|'s absolute names. */
static int
within_absolute(const struct tc_keep *k, const char *path)
{
	const char *const *name;

	for (name = k->names; *name != NULL; name++)
		if (**name == '/' && tc_path_beneath(path, *name) != NULL)
			return 1;
	return 0;
}

/* Binds what |k| names at the top of writable root |r| and one level
 * down, and what the profile finds from them and from the root (its
 * read_only_found).  Returns 0, or -1 with errno. */
static int
protect_root(struct tc_keep *k, const struct tc_root *r)
{
	struct dirent *e;
	DIR *dir;
	int fd, lfd, rc = 0, err = 0;

	if ((fd = reopen_root(r)) < 0)
		return -1;
	k->root = r->path;
	/* A root the client's roots narrowed to inside a kept place (a
	 * .git, or beneath one, or an absolute one): all of it is. */
	if (named_in(k, r->scope) || within_absolute(k, r->path))
		return bind_counted(k, fd, 1);
	if (protect_dir(k, fd, "") != 0 || (k->found != NULL &&
	    k->found(k, fd, "", NULL) != 0)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	if ((lfd = open_beneath(fd, ".", O_RDONLY | O_DIRECTORY,
	    RESOLVE_BENEATH)) < 0 || (dir = fdopendir(lfd)) == NULL) {
		err = errno;
		if (lfd >= 0)
			close(lfd);
		close(fd);
		/* A root the child may not list holds nothing it may
		 * change either. */
		if (err == EACCES)
			return 0;
		errno = err;
		return -1;
	}
	while (rc == 0) {
		errno = 0;
		if ((e = readdir(dir)) == NULL) {
			if (errno != 0) {
				rc = -1;
				err = errno;
			}
			break;
		}
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((rc = protect_dir(k, fd, e->d_name)) != 0)
			err = errno;
	}
	closedir(dir);
	close(fd);
	errno = err;
	return rc;
}

/*
 * Binds over itself each directory from writable root |outer| (not
 * included) down to root |inner| beneath it (included): a call that may
 * write |outer| could otherwise rename |inner|, or a directory above it,
 * aside with what is kept in it, and put one of its own making at its
 * path.  Returns 0, or -1 with errno.
 */
static int
pin_nested(struct tc_keep *k, const struct tc_root *outer,
    const struct tc_root *inner)
{
	const char *rel;
	int fd, rc, err;

	if ((rel = tc_path_beneath(inner->path, outer->path)) == NULL ||
	    *rel == '\0')
		return 0;
	if ((fd = reopen_root(outer)) < 0)
		return -1;
	rc = pin(k, fd, rel, 0);
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

/* Binds each absolute name of |k| that lies beneath writable root |r|
 * read-only, each directory between pinned.  Returns 0, or -1 with
 * errno. */
static int
protect_absolute(struct tc_keep *k, const struct tc_root *r)
{
	const char *const *name;
	const char *rel;
	int fd, rc = 0, err;

	for (name = k->names; *name != NULL && rc == 0; name++) {
		if (**name != '/' || (rel = tc_path_beneath(*name,
		    r->path)) == NULL || *rel == '\0')
			continue;
		if ((fd = reopen_root(r)) < 0)
			return -1;
		rc = tc_keep_beneath(k, fd, "", rel) < 0 ? -1 : 0;
		err = errno;
		close(fd);
		errno = err;
	}
	return rc;
}

int
tc_mounts_protect(const struct tc_sandbox *sb,
    const struct tc_sandbox_profile *sp)
{
	const struct tc_policy *pol = sb->policy;
	const struct tc_root *r;
	struct mount_attr attr;
	struct tc_keep k;
	size_t i, o;
	int fd;

	memset(&k, 0, sizeof(k));
	if (!(sp->ns & CLONE_NEWNS) || sp->profile->read_only == NULL ||
	    (k.names = sp->profile->read_only(pol)) == NULL)
		return 0;
	/* Dies with whoever made it, as it walks what calls wrote: the
	 * confinement steps arm it again, and check the parent is there. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		return -1;
	k.found = sp->profile->read_only_found;
	memset(&attr, 0, sizeof(attr));
	attr.propagation = MS_SLAVE;
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr,
	    sizeof(attr)) != 0)
		return -1;
	/* The nested roots held in place first, so that what is kept in
	 * them is found where the policy names them. */
	for (i = 0; i < pol->nroots; i++)
		for (o = 0; o < pol->nroots; o++)
			if (o != i && pol->roots[i].fd >= 0 &&
			    (pol->roots[o].flags & TC_ROOT_WRITE) &&
			    pol->roots[o].fd >= 0 &&
			    pin_nested(&k, &pol->roots[o], &pol->roots[i]) != 0)
				return -1;
	for (i = 0; i < pol->nroots; i++) {
		r = &pol->roots[i];
		if (!(r->flags & TC_ROOT_WRITE) || r->fd < 0)
			continue;
		if (protect_root(&k, r) != 0 || protect_absolute(&k, r) != 0)
			return -1;
	}
	/* Every root, read-only ones too: a writable root may lie beneath
	 * one, and a call's working directory beneath it would reach the
	 * repository through the server's mounts. */
	for (i = 0; i < pol->nroots; i++) {
		if (pol->roots[i].fd < 0)
			continue;
		if ((fd = reopen_root(&pol->roots[i])) < 0)
			return -1;
		if (dup3(fd, pol->roots[i].fd, O_CLOEXEC) < 0) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

int
tc_mounts_wanted(const struct tc_policy *pol, const struct tc_profile *profile)
{
	return profile->read_only != NULL && profile->read_only(pol) != NULL &&
	    tc_policy_writable(pol);
}

const char *
tc_mounts_strerror(int err)
{
	switch (err) {
	case E2BIG:
		/* TC_READ_ONLY_MAX: two a repository one level down. */
		return "more to keep than a child binds (512 mounts, about "
		    "256 repositories): give write access to fewer, or "
		    "remove the .git directories you did not make";
	case ENOSYS:
		return "the kernel has no mount_setattr() (Linux 5.12 or "
		    "later)";
	case ESTALE:
		return "a directory's path names another directory now";
	case ELOOP:
		return "submodules nested too deep to follow";
	case EBADMSG:
		return "a git configuration git itself would not read";
	case EFBIG:
		return "a git configuration larger than 64K";
	}
	return strerror(err);
}
