/*
 * path.c: mapping client paths to roots, opening them beneath a root, and
 * refusing what the deny rules name, both as given and as opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/glob.h"
#include "policy/own.h"
#include "policy/path.h"
#include "policy/policy.h"

/* What /proc shows for a file whose last name was removed. */
#define DELETED		" (deleted)"

/* Returns a copy of absolute |p| without empty and "." components. */
static char *
clean_path(const char *p)
{
	char *out, *w;
	size_t len;

	if ((out = malloc(strlen(p) + 2)) == NULL)
		return NULL;
	w = out;
	while (*p != '\0') {
		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 0 || (len == 1 && p[0] == '.')) {
			p += len;
			continue;
		}
		*w++ = '/';
		memcpy(w, p, len);
		w += len;
		p += len;
	}
	if (w == out)
		*w++ = '/';
	*w = '\0';
	return out;
}

int
tc_path_map(const struct tc_policy *pol, const char *user, struct tc_path *out,
    struct tc_diag *d)
{
	const struct tc_root *r;
	const char *rest = NULL, *user_abs = user;
	char *clean = NULL;
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	if (user == NULL || user[0] == '\0')
		return tc_diag(d, TC_EINVAL, "empty path");
	if (pol->nroots == 0)
		return tc_diag(d, TC_EOUTSIDE, "'%s': no allowed directories",
		    user);
	if (user[0] != '/') {
		i = 0;
		rest = user;
	} else {
		/* "//" and "/./" do not change what a path names; ".." does
		 * and is left for the kernel to resolve beneath the root. */
		if ((clean = clean_path(user)) == NULL)
			return tc_diag(d, TC_ENOMEM, "out of memory");
		user_abs = clean;
		/* The longest matching root wins, so nested roots keep their
		 * own access mode. */
		size_t best = 0;

		for (i = 0; i < pol->nroots; i++) {
			const char *a, *b;

			r = &pol->roots[i];
			a = tc_path_beneath(user_abs, r->path);
			b = tc_path_beneath(user_abs, r->given);
			if (a != NULL && r->pathlen >= best) {
				rest = a;
				best = r->pathlen;
				n = i;
			}
			if (b != NULL && r->givenlen >= best) {
				rest = b;
				best = r->givenlen;
				n = i;
			}
		}
		if (rest == NULL) {
			free(clean);
			return tc_diag(d, TC_EOUTSIDE, "'%s': outside the "
			    "allowed directories", user);
		}
		i = n;
	}
	while (*rest == '/')
		rest++;
	out->root = i;
	out->rel = strdup(*rest ? rest : ".");
	/* What a relative path shows: without "." and empty components,
	 * as an absolute one, so that "." is the directory itself. */
	if (user[0] != '/' && (clean = clean_path(rest)) != NULL)
		rest = clean + 1;
	r = &pol->roots[i];
	n = r->pathlen + strlen(rest) + 2;
	out->display = malloc(n);
	if (out->rel == NULL || clean == NULL || out->display == NULL) {
		free(clean);
		tc_path_release(out);
		return tc_diag(d, TC_ENOMEM, "out of memory");
	}
	if (*rest)
		snprintf(out->display, n, "%s%s%s", r->path,
		    r->pathlen > 1 ? "/" : "", rest);
	else
		snprintf(out->display, n, "%s", r->path);
	free(clean);
	return 0;
}

void
tc_path_release(struct tc_path *p)
{
	free(p->rel);
	free(p->display);
	p->rel = p->display = NULL;
}

/* --- Beneath a directory without openat2() --- */

/* As the kernel's MAXSYMLINKS: links followed in one resolution. */
#define WALK_MAXLINKS	40
/* The inode of /proc's top directory, in every procfs. */
#define PROC_TOP_INO	1

/* Where the walk is. */
struct walk {
	int	 start;			/* the top: never left, never closed */
	int	 cur;			/* start, or an fd of the walk's own */
	size_t	 depth;			/* directories below start */
	size_t	 nlinks;		/* symlinks followed */
	char	 names[PATH_MAX];	/* "/a/b": how cur was reached */
	size_t	 len;
};

static void
walk_set(struct walk *w, int fd)
{
	if (w->cur != w->start)
		close(w->cur);
	w->cur = fd;
}

/* Steps into directory |name| (|n| bytes) of cur, following nothing. */
static int
walk_down(struct walk *w, const char *name, size_t n)
{
	char comp[NAME_MAX + 1];
	int fd;

	if (n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (w->len + 1 + n >= sizeof(w->names)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(comp, name, n);
	comp[n] = '\0';
	fd = openat(w->cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	walk_set(w, fd);
	w->names[w->len++] = '/';
	memcpy(w->names + w->len, comp, n + 1);
	w->len += n;
	w->depth++;
	return 0;
}

/*
 * ".." : one directory up, never above start (EXDEV, as RESOLVE_BENEATH
 * says).  Up is by name, from start down the way the walk came: never
 * the directory's real parent, which is outside when the directory was
 * moved out meanwhile.  A way that no longer leads there is EAGAIN.
 */
static int
walk_up(struct walk *w)
{
	char way[PATH_MAX];
	size_t len, i, n;

	if (w->depth == 0) {
		errno = EXDEV;
		return -1;
	}
	len = (size_t)(strrchr(w->names, '/') - w->names);
	memcpy(way, w->names, len);
	way[len] = '\0';
	walk_set(w, w->start);
	w->names[0] = '\0';
	w->len = 0;
	w->depth = 0;
	for (i = 1; i < len; i += n + 1) {
		n = strcspn(way + i, "/");
		if (walk_down(w, way + i, n) != 0) {
			if (errno != ENAMETOOLONG)
				errno = EAGAIN;
			return -1;
		}
	}
	return 0;
}

/* Returns 1 if the symlink in cur is one of /proc's magic links. */
static int
walk_magic(const struct walk *w)
{
	struct statfs sf;
	struct stat st;

	/* /proc's links outside its top directory are its magic ones
	 * (fd/N, cwd, root, exe, ns/...), which jump to their file rather
	 * than name it; those at the top (self, thread-self, mounts) only
	 * name a directory.  Any other /proc link is refused with them,
	 * which errs on the safe side. */
	if (fstatfs(w->cur, &sf) != 0 || fstat(w->cur, &st) != 0)
		return 1;
	return sf.f_type == PROC_SUPER_MAGIC && st.st_ino != PROC_TOP_INO;
}

/*
 * Follows the symlink |name| of cur, whose target is |target|: what is
 * left to resolve becomes the target followed by |rest|.  *|path| is
 * replaced (and freed when *|own|).
 */
static int
walk_follow(struct walk *w, const char *target, const char *rest,
    char **path, int *own)
{
	size_t tl = strlen(target), rl = strlen(rest);
	char *np;

	if (walk_magic(w) || ++w->nlinks > WALK_MAXLINKS) {
		errno = ELOOP;
		return -1;
	}
	if (tl == 0) {
		errno = ENOENT;
		return -1;
	}
	if (target[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	if ((np = malloc(tl + rl + 1)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(np, target, tl);
	memcpy(np + tl, rest, rl + 1);
	if (*own)
		free(*path);
	*path = np;
	*own = 1;
	return 0;
}

/* Reads the target of |name| in |dirfd| into |buf|.  Returns its
 * length, or -1 with errno EINVAL for what is not a symlink. */
static ssize_t
walk_readlink(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t n;

	if ((n = readlinkat(dirfd, name, buf, size)) < 0)
		return -1;
	if ((size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

int
tc_path_walk_beneath(int dirfd, const char *rel, int flags, unsigned mode)
{
	struct walk w;
	char comp[NAME_MAX + 1], target[PATH_MAX];
	char *path = (char *)(uintptr_t)rel;
	const char *p, *next;
	struct stat st;
	int own = 0, fd = -1, err, last, slash;
	size_t n;

	w.start = w.cur = dirfd;
	w.depth = w.nlinks = w.len = 0;
	w.names[0] = '\0';
	flags |= O_CLOEXEC;
	if (rel[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (rel[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	p = path;
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0') {
			/* Nothing after the last "/" or "..": cur itself. */
			fd = openat(w.cur, ".", flags, mode);
			break;
		}
		n = strcspn(p, "/");
		for (next = p + n; *next == '/'; next++)
			;
		last = *next == '\0';
		slash = last && p[n] == '/';
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (walk_up(&w) != 0)
				break;
			p += n;
			continue;
		}
		if (n > NAME_MAX) {
			errno = ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (!last || slash) {
			/* A directory on the way, or named with a trailing
			 * "/": a symlink is followed, whatever the flags. */
			if (last && (flags & O_CREAT)) {
				errno = EISDIR;
				break;
			}
			if (walk_down(&w, p, n) == 0) {
				p += n;
				continue;
			}
			if (errno != ENOTDIR && errno != ELOOP)
				break;
			err = errno;
			if (walk_readlink(w.cur, comp, target,
			    sizeof(target)) < 0) {
				errno = errno == EINVAL ? err : errno;
				break;
			}
			if (walk_follow(&w, target, p + n, &path, &own) != 0)
				break;
			p = path;
			continue;
		}
		/* The last component, opened as asked but never through a
		 * symlink: one found there is followed here, unless the
		 * flags say not to. */
		fd = openat(w.cur, comp, flags | O_NOFOLLOW, mode);
		if (fd >= 0) {
			if (!(flags & O_PATH) || (flags & O_NOFOLLOW) ||
			    fstat(fd, &st) != 0 || !S_ISLNK(st.st_mode))
				break;
			close(fd);
			fd = -1;
		} else if ((flags & O_NOFOLLOW) || (errno != ELOOP &&
		    (errno != ENOTDIR || !(flags & O_DIRECTORY))))
			break;
		err = errno;
		if (walk_readlink(w.cur, comp, target, sizeof(target)) < 0) {
			/* ELOOP for what is not a link now: it changed. */
			errno = errno != EINVAL ? errno : err == ELOOP ?
			    EAGAIN : err;
			break;
		}
		if (walk_follow(&w, target, "", &path, &own) != 0)
			break;
		p = path;
	}
	err = errno;
	walk_set(&w, w.start);
	if (own)
		free(path);
	errno = err;
	return fd;
}

/* 1 once openat2() was refused here (ENOSYS): the walk instead. */
static int no_openat2;

int
tc_path_openat_in(int dirfd, const char *rel, int flags, unsigned mode)
{
	struct open_how how;
	int fd = -1, tries;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)flags | O_CLOEXEC;
	/* A mode is allowed only with O_CREAT or O_TMPFILE (which includes
	 * the O_DIRECTORY bit, so test all of its bits). */
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	/* openat2 returns EAGAIN when a concurrent rename may have raced
	 * the resolution, and the walk when a way it took changed; a few
	 * retries settle it. */
	for (tries = 0; tries < 8; tries++) {
		if (!no_openat2) {
			fd = (int)syscall(SYS_openat2, dirfd, rel, &how,
			    sizeof(how));
			if (fd < 0 && errno == ENOSYS)
				no_openat2 = 1;
		}
		/* Where the filter refuses openat2(), whose mode it cannot
		 * read (or the kernel predates it). */
		if (no_openat2)
			fd = tc_path_walk_beneath(dirfd, rel, flags,
			    (unsigned)how.mode);
		if (fd >= 0 || (errno != EAGAIN && errno != EINTR))
			break;
	}
	return fd;
}

int
tc_path_openat(const struct tc_policy *pol, const struct tc_path *p,
    int flags, unsigned mode)
{
	if (p->root >= pol->nroots) {
		errno = EINVAL;
		return -1;
	}
	return tc_path_openat_in(pol->roots[p->root].fd, p->rel, flags, mode);
}

/* Returns 1 if |s| is |n| bytes of "..". */
static int
is_dotdot(const char *s, size_t n)
{
	return n == 2 && s[0] == '.' && s[1] == '.';
}

char *
tc_path_given(const struct tc_policy *pol, const struct tc_path *p,
    const char **rel)
{
	const struct tc_root *r;
	const char *s;
	char *abs, *w, *start;
	size_t n;

	*rel = NULL;
	if (p->root >= pol->nroots) {
		errno = EINVAL;
		return NULL;
	}
	r = &pol->roots[p->root];
	if ((abs = malloc(r->pathlen + strlen(p->rel) + 2)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* The root's canonical path, then the components of rel without
	 * "." and empty ones, up to the first "..": the kernel resolves
	 * that one, through whatever symlinks came before it. */
	memcpy(abs, r->path, r->pathlen);
	w = start = abs + (r->pathlen == 1 ? 0 : r->pathlen);
	for (s = p->rel; *s != '\0'; s += n) {
		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.'))
			continue;
		if (is_dotdot(s, n))
			break;
		*w++ = '/';
		memcpy(w, s, n);
		w += n;
	}
	if (w == start) {
		/* The root itself ("/" is whole again). */
		if (w == abs)
			*w++ = '/';
		*rel = w;
	} else
		*rel = start + 1;
	*w = '\0';
	return abs;
}

int
tc_path_check(const struct tc_policy *pol, struct tc_path *p,
    unsigned access)
{
	const char *rel;
	char *abs;

	p->denied_by = NULL;
	p->unchecked = NULL;
	if (p->root >= pol->nroots) {
		errno = EINVAL;
		return -1;
	}
	if (!tc_deny_any(pol, access))
		return 0;
	if ((abs = tc_path_given(pol, p, &rel)) == NULL)
		return -1;
	if (*rel != '\0')
		p->denied_by = tc_deny_match(pol, abs, rel, access);
	free(abs);
	if (p->denied_by != NULL) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

/*
 * Reads where |fd| is from /proc/self/fd into |buf| (|size| bytes).
 * Returns 0, or -1 with errno set (ENAMETOOLONG; ENOENT for what has no
 * path, such as a pipe).
 */
static int
fd_path(int fd, char *buf, size_t size)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlinkat(AT_FDCWD, link, buf, size)) < 0)
		return -1;
	if ((size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = '\0';
	if (buf[0] != '/') {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int
tc_path_root_now(const struct tc_policy *pol, size_t root, char *buf,
    const char **why)
{
	*why = NULL;
	if (root >= pol->nroots) {
		errno = EINVAL;
		return -1;
	}
	if (fd_path(pol->roots[root].fd, buf, PATH_MAX) != 0) {
		*why = errno == ENAMETOOLONG ? "its path is too long" :
		    "/proc/self/fd does not say where it is";
		errno = EACCES;
		return -1;
	}
	return 0;
}

int
tc_path_where_under(const char *rootpath, int fd, struct tc_where *w,
    const char **why)
{
	const char *rest;

	memset(w, 0, sizeof(*w));
	*why = NULL;
	if ((w->abs = malloc(PATH_MAX)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (fd_path(fd, w->abs, PATH_MAX) != 0) {
		*why = errno == ENAMETOOLONG ? "its path is too long" :
		    "/proc/self/fd does not say where it is";
		goto fail;
	}
	if ((rest = tc_path_beneath(w->abs, rootpath)) == NULL) {
		/* Beneath the root by openat2(), yet not by name: the root
		 * or the file was removed or moved meanwhile. */
		*why = "it is no longer beneath its allowed directory";
		goto fail;
	}
	w->rel = *rest != '\0' ? rest : ".";
	return 0;
fail:
	tc_where_release(w);
	errno = EACCES;
	return -1;
}

int
tc_path_where(const struct tc_policy *pol, size_t root, int fd,
    struct tc_where *w, const char **why)
{
	char rootpath[PATH_MAX];

	memset(w, 0, sizeof(*w));
	/* The root's current path, not the one it had at start: if it has
	 * moved since, what lies beneath it is still named right. */
	if (tc_path_root_now(pol, root, rootpath, why) != 0)
		return -1;
	return tc_path_where_under(rootpath, fd, w, why);
}

int
tc_path_where_root(const struct tc_policy *pol, size_t root, int fd,
    struct tc_where *w)
{
	struct stat a, b;
	const char *why;

	memset(w, 0, sizeof(*w));
	if (root >= pol->nroots || fstat(fd, &a) != 0 ||
	    fstat(pol->roots[root].fd, &b) != 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino || (w->abs = malloc(PATH_MAX)) == NULL)
		return -1;
	if (tc_path_root_now(pol, root, w->abs, &why) != 0) {
		tc_where_release(w);
		return -1;
	}
	w->rel = ".";
	return 0;
}

void
tc_where_release(struct tc_where *w)
{
	free(w->abs);
	w->abs = NULL;
	w->rel = NULL;
}

/*
 * Returns the rule that refuses |w| for |access|, or NULL.  A file whose
 * name was removed shows with " (deleted)" after it: it is checked with
 * and without, since a file may also have that in its name.
 */
static const struct tc_deny *
where_denied(const struct tc_policy *pol, struct tc_where *w,
    unsigned access)
{
	const struct tc_deny *rule;
	size_t n = strlen(w->abs), k = sizeof(DELETED) - 1;

	if ((rule = tc_deny_match(pol, w->abs, w->rel, access)) != NULL)
		return rule;
	if (n > k && strcmp(w->abs + n - k, DELETED) == 0) {
		w->abs[n - k] = '\0';
		rule = tc_deny_match(pol, w->abs, w->rel, access);
		w->abs[n - k] = DELETED[0];
	}
	return rule;
}

/*
 * Checks the file open as |fd| beneath p's root against the deny rules.
 * Returns 0, or -1 with errno EACCES and p->denied_by or p->unchecked
 * set, or ENOMEM.
 */
static int
check_fd(const struct tc_policy *pol, struct tc_path *p, int fd,
    unsigned access)
{
	struct tc_where w;

	if ((strcmp(p->rel, ".") != 0 ||
	    tc_path_where_root(pol, p->root, fd, &w) != 0) &&
	    tc_path_where(pol, p->root, fd, &w, &p->unchecked) != 0)
		return -1;
	p->denied_by = where_denied(pol, &w, access);
	tc_where_release(&w);
	if (p->denied_by != NULL) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

/*
 * Writes the path of entry |name| of |dir| into |buf|; returns the offset
 * of its rel there, or -1 if it is too long.
 */
static ssize_t
entry_path(const struct tc_where *dir, const char *name, char *buf,
    size_t len)
{
	size_t dlen = strlen(dir->abs), reloff;
	int n;

	/* The entry's rel is a suffix of its abs, as the directory's is. */
	if (strcmp(dir->rel, ".") == 0)
		reloff = dlen + (dlen > 1);
	else
		reloff = (size_t)(dir->rel - dir->abs);
	n = snprintf(buf, len, "%s%s%s", dir->abs, dlen > 1 ? "/" : "", name);
	if (n < 0 || (size_t)n >= len)
		return -1;
	return (ssize_t)reloff;
}

/*
 * The whole-path half of tc_path_dir_entry_denied(), apart: the build
 * zeroes every local array as its function starts (-ftrivial-auto-var-init)
 * and this one is 4 KiB, which most entries of a walk never need.
 */
static int __attribute__((noinline))
dir_entry_match(const struct tc_deny_dir *dd, const struct tc_where *dir,
    const char *name, const struct tc_deny **rule)
{
	char buf[PATH_MAX + NAME_MAX + 2];
	ssize_t reloff;

	if ((reloff = entry_path(dir, name, buf, sizeof(buf))) < 0)
		return 1;
	*rule = tc_deny_dir_match(dd, name, buf, buf + reloff);
	return *rule != NULL;
}

int
tc_path_dir_entry_denied(const struct tc_deny_dir *dd,
    const struct tc_where *dir, const char *name, const struct tc_deny **rule)
{
	*rule = NULL;
	if (!tc_deny_dir_maybe(dd, name))
		return 0;
	return dir_entry_match(dd, dir, name, rule);
}

int
tc_path_entry_denied(const struct tc_policy *pol, const struct tc_where *dir,
    const char *name, unsigned access, const struct tc_deny **rule)
{
	char buf[PATH_MAX + NAME_MAX + 2];
	ssize_t reloff;

	*rule = NULL;
	if ((reloff = entry_path(dir, name, buf, sizeof(buf))) < 0)
		return 1;
	*rule = tc_deny_match(pol, buf, buf + reloff, access);
	return *rule != NULL;
}

/*
 * Refuses the file open as |fd| if it is one of the server's own (own.h),
 * by identity: a hard link, a bind mount or a renamed directory reaches
 * it under a name no rule knows.  Returns 0, or -1 with errno EACCES and
 * p->denied_by or p->unchecked set.
 */
static int
check_own(const struct tc_policy *pol, struct tc_path *p, int fd)
{
	if (tc_own_fd(pol, fd, &p->denied_by) != 0) {
		p->unchecked = "it cannot be told from the server's own files";
		errno = EACCES;
		return -1;
	}
	if (p->denied_by != NULL) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

/*
 * tc_path_open() for flags that change the file as it opens: resolve and
 * check the parent, check the last component by name (by the deny rules
 * when |deny|) and by identity, and open it within the parent without
 * following a symlink.
 */
static int
open_for_change(const struct tc_policy *pol, struct tc_path *p, int flags,
    unsigned mode, unsigned access, int deny)
{
	const char *slash, *name;
	struct tc_where w;
	struct stat st;
	char *parent;
	int dfd, fd, saved;

	if (p->rel[strlen(p->rel) - 1] == '/') {
		errno = EISDIR;
		return -1;
	}
	if ((slash = strrchr(p->rel, '/')) != NULL) {
		parent = strndup(p->rel, (size_t)(slash - p->rel));
		name = slash + 1;
	} else {
		parent = strdup(".");
		name = p->rel;
	}
	if (parent == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (strcmp(name, ".") == 0 || is_dotdot(name, strlen(name))) {
		free(parent);
		errno = EISDIR;
		return -1;
	}
	dfd = tc_path_openat_in(pol->roots[p->root].fd, parent,
	    O_PATH | O_DIRECTORY, 0);
	free(parent);
	if (dfd < 0)
		return -1;
	fd = -1;
	if (deny) {
		if (tc_path_where(pol, p->root, dfd, &w, &p->unchecked) != 0)
			goto out;
		if ((p->denied_by = where_denied(pol, &w, access)) != NULL ||
		    tc_path_entry_denied(pol, &w, name, access,
		    &p->denied_by)) {
			if (p->denied_by == NULL)
				p->unchecked = "its path is too long";
			tc_where_release(&w);
			errno = EACCES;
			goto out;
		}
		tc_where_release(&w);
	}
	/* O_TRUNC changes a file as it opens it: what is there is checked
	 * first (and what is opened, after). */
	if (check_own(pol, p, dfd) != 0)
		goto out;
	if (pol->nown > 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ==
	    0 && (p->denied_by = tc_own_stat(pol, &st)) != NULL) {
		errno = EACCES;
		goto out;
	}
	fd = tc_path_openat_in(dfd, name, flags | O_NOFOLLOW, mode);
out:
	saved = errno;
	close(dfd);
	errno = saved;
	return fd;
}

/* Returns the pin of kind |kind| for the mapped path |p|, or NULL. */
static const struct tc_pin *
find_pin(const struct tc_policy *pol, const struct tc_path *p,
    unsigned kind)
{
	size_t i;

	for (i = 0; i < pol->npins; i++)
		if (pol->pins[i].kind == kind && pol->pins[i].root == p->root &&
		    strcmp(pol->pins[i].rel, p->rel) == 0)
			return &pol->pins[i];
	return NULL;
}

/* Returns 1 if |fd| is the file (|dev|, |ino|). */
static int
same_file(int fd, unsigned long long dev, unsigned long long ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
}

int
tc_path_pin_check(const struct tc_policy *pol, const struct tc_path *p,
    int fd)
{
	const struct tc_pin *pin;

	if (!pol->pinned)
		return 0;
	if ((pin = find_pin(pol, p, TC_PIN_PATH)) == NULL ||
	    pin->missing != 0 || !same_file(fd, pin->dev, pin->ino)) {
		errno = ESTALE;
		return -1;
	}
	return 0;
}

int
tc_path_pin_check_entry(const struct tc_policy *pol,
    const struct tc_path *p, int dfd, const char *name)
{
	const struct tc_pin *pin;
	struct stat st;
	int r;

	if (!pol->pinned)
		return 0;
	if ((pin = find_pin(pol, p, TC_PIN_ENTRY)) == NULL ||
	    pin->missing != 0 || !same_file(dfd, pin->dev, pin->ino))
		goto stale;
	r = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
	if (r != 0 && errno != ENOENT)
		goto stale;
	if ((r == 0) != (pin->entry != 0))
		goto stale;
	if (r == 0 && ((unsigned long long)st.st_dev != pin->edev ||
	    (unsigned long long)st.st_ino != pin->eino))
		goto stale;
	return 0;
stale:
	errno = ESTALE;
	return -1;
}

int
tc_path_pin_check_prefix(const struct tc_policy *pol,
    const struct tc_path *p, int fd, size_t missing)
{
	const struct tc_pin *pin;

	if (!pol->pinned)
		return 0;
	if ((pin = find_pin(pol, p, TC_PIN_PATH)) == NULL ||
	    pin->missing != missing || !same_file(fd, pin->dev, pin->ino)) {
		errno = ESTALE;
		return -1;
	}
	return 0;
}

int
tc_path_open(const struct tc_policy *pol, struct tc_path *p, int flags,
    unsigned mode, unsigned access)
{
	int fd, saved, deny;

	if (tc_path_check(pol, p, access) != 0)
		return -1;
	deny = tc_deny_any(pol, access);
	if ((deny || pol->nown > 0) && (flags & (O_CREAT | O_TRUNC)))
		fd = open_for_change(pol, p, flags, mode, access, deny);
	else
		fd = tc_path_openat(pol, p, flags, mode);
	if (fd < 0)
		return -1;
	/* What was opened, wherever symlinks and renames took the path:
	 * no file a rule refuses, none of the server's own, and for a call
	 * consent was given for, the file it was given for. */
	if ((deny && check_fd(pol, p, fd, access) != 0) ||
	    check_own(pol, p, fd) != 0 || tc_path_pin_check(pol, p, fd) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int
tc_path_error(struct tc_diag *d, const char *user, int err)
{
	switch (err) {
	case EXDEV:
		return tc_diag(d, TC_EOUTSIDE, "'%s': resolves outside the "
		    "allowed directories", user);
	case ELOOP:
		return tc_diag(d, TC_EOUTSIDE, "'%s': too many symbolic "
		    "links, or a link through /proc that is not followed",
		    user);
	case ENOENT:
		return tc_diag(d, TC_ENOTFOUND, "'%s': not found", user);
	case ENOTDIR:
		return tc_diag(d, TC_ENOTFOUND, "'%s': a component of the "
		    "path is not a directory", user);
	case EACCES:
	case EPERM:
		return tc_diag(d, TC_EDENIED, "'%s': permission denied", user);
	case ENAMETOOLONG:
		return tc_diag(d, TC_EINVAL, "'%s': name too long", user);
	case ESTALE:
		return tc_diag(d, TC_EDENIED, "'%s': changed after the call "
		    "was checked (consent was given for what it was then), "
		    "so nothing was done; call again to be asked about what "
		    "it is now", user);
	default:
		return tc_diag(d, TC_ESYS, "'%s': %s", user, strerror(err));
	}
}

int
tc_path_denied(struct tc_diag *d, const char *user, const struct tc_deny *rule)
{
	const char *what;
	char where[32];

	if (rule->own != NULL)
		return tc_diag(d, TC_EDENIED, "'%s': denied: it is the "
		    "server's own %s, which no call may read, list or change",
		    user, rule->own);
	if (rule->access & TC_ACCESS_CONSENT)
		return tc_diag(d, TC_EDENIED, "'%s': needs consent (the policy "
		    "rule on line %d, pattern '%s'), which this call was not "
		    "given; name it in a call of its own to be asked", user,
		    rule->line, rule->pattern);
	switch (rule->access & (TC_ACCESS_READ | TC_ACCESS_WRITE)) {
	case TC_ACCESS_WRITE:
		what = "write ";
		break;
	case TC_ACCESS_READ:
		what = "read ";
		break;
	default:
		what = "";
		break;
	}
	if (rule->line > 0)
		snprintf(where, sizeof(where), "line %d", rule->line);
	else
		snprintf(where, sizeof(where), "built in");
	return tc_diag(d, TC_EDENIED, "'%s': denied by policy rule "
	    "'deny %s%s' (%s)", user, what, rule->pattern, where);
}

int
tc_path_open_error(struct tc_diag *d, const struct tc_path *p,
    const char *user, int err)
{
	if (err == EACCES && p->denied_by != NULL)
		return tc_path_denied(d, user, p->denied_by);
	if (err == EACCES && p->unchecked != NULL)
		return tc_diag(d, TC_EDENIED, "'%s': cannot be checked against "
		    "the deny rules: %s", user, p->unchecked);
	return tc_path_error(d, user, err);
}

size_t
tc_path_split(char *rel, char **v, size_t max)
{
	size_t n = 0;
	char *p = rel, *e;

	while (*p != '\0' && n < max) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = p + strcspn(p, "/");
		if (*e != '\0')
			*e++ = '\0';
		if (strcmp(p, ".") != 0)
			v[n++] = p;
		p = e;
	}
	return n;
}
