/*
 * watch.c: the server's watch on what its ready children keep read-only
 * (mounts.c).  A ready child finds the places it binds as it is made,
 * ahead of its call, and may wait long for it: a repository cloned into a
 * writable directory meanwhile would be writable to that call.  So the
 * server watches, with inotify, the top of each writable root and each
 * directory one level down, and retires its ready children when one of
 * the profile's names appears there (made, or moved in), or a directory
 * that already holds one is: the next call's child finds it.  A
 * directory made at the top is watched as it appears, and looked in once
 * the watch is in place, so that what was made in it before is not
 * missed.  Where the kernel refuses a watch (too many: fs.inotify.
 * max_user_watches), the children are retired, and the server says once
 * that what appears there from then on is found only by the children
 * made after it; where it drops events, all is watched anew and the
 * children are retired.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"

/* A name made or moved in, or removed or moved out: a child binds one
 * more, or one less (past TC_READ_ONLY_MAX, the ready children failed,
 * and may not now). */
#define WATCH_MASK	(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | \
			 IN_ONLYDIR | IN_EXCL_UNLINK)

/* The names some profile of |sb| keeps read-only, or NULL. */
static const char *const *
kept_names(const struct tc_sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->nprof; i++)
		if (sb->prof[i].ns & CLONE_NEWNS)
			return sb->prof[i].profile->read_only(sb->policy);
	return NULL;
}

static int
is_kept(const struct tc_sandbox *sb, const char *name)
{
	const char *const *n;

	for (n = kept_names(sb); n != NULL && *n != NULL; n++)
		if (strcmp(*n, name) == 0)
			return 1;
	return 0;
}

/* 1 if directory |dir| beneath root fd |at| holds one of the names. */
static int
holds_kept(const struct tc_sandbox *sb, int at, const char *dir)
{
	const char *const *n;
	char path[PATH_MAX];
	struct stat st;
	int len;

	for (n = kept_names(sb); n != NULL && *n != NULL; n++) {
		if (**n == '/')
			continue;
		len = snprintf(path, sizeof(path), "%s/%s", dir, *n);
		if (len > 0 && (size_t)len < sizeof(path) &&
		    fstatat(at, path, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return 1;
	}
	return 0;
}

/* Watches |dir| (beneath root fd |at|; "" for the root) with |mask|.
 * Returns the watch, or -1 with errno. */
static int
add_watch(const struct tc_sandbox *sb, int at, const char *dir,
    uint32_t mask)
{
	char path[PATH_MAX];
	int len;

	/* By the root's fd, as the server resolves everything beneath it:
	 * inotify takes a path, which /proc gives to the directory held. */
	len = snprintf(path, sizeof(path), "/proc/self/fd/%d%s%s", at,
	    *dir != '\0' ? "/" : "", dir);
	if (len < 0 || (size_t)len >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* The root's own magic link followed; a directory in it is never
	 * a link. */
	return inotify_add_watch(sb->watch_fd, path, mask |
	    (*dir != '\0' ? IN_DONT_FOLLOW : 0));
}

/* Where a watch failed: said once. */
static void
watch_lost(struct tc_sandbox *sb, const char *what, int err)
{
	const char *const *n = kept_names(sb);

	if (!sb->watch_warned)
		tc_warn("cannot watch %s for a new %s (%s): one made there "
		    "from now on is kept read-only from the calls whose "
		    "children are made after it, not at once", what,
		    n != NULL ? n[0] : "place to keep", strerror(err));
	sb->watch_warned = 1;
}

void
tc_watch_stop(struct tc_sandbox *sb)
{
	if (sb->watch_fd >= 0)
		close(sb->watch_fd);
	sb->watch_fd = -1;
	sb->nwatch_top = 0;
}

void
tc_watch_start(struct tc_sandbox *sb)
{
	const struct tc_policy *pol = sb->policy;
	struct dirent *e;
	DIR *dir;
	size_t i;
	int fd, wd;

	tc_watch_stop(sb);
	if (kept_names(sb) == NULL)
		return;
	if ((sb->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		watch_lost(sb, "the writable directories", errno);
		return;
	}
	for (i = 0; i < pol->nroots && sb->nwatch_top < TC_ROOTS_MAX; i++) {
		if (!(pol->roots[i].flags & TC_ROOT_WRITE) ||
		    pol->roots[i].fd < 0)
			continue;
		if ((wd = add_watch(sb, pol->roots[i].fd, "", WATCH_MASK)) < 0) {
			watch_lost(sb, pol->roots[i].path, errno);
			continue;
		}
		sb->watch_top[sb->nwatch_top].wd = wd;
		sb->watch_top[sb->nwatch_top++].root = pol->roots[i].fd;
		if ((fd = openat(pol->roots[i].fd, ".", O_RDONLY |
		    O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;
		if ((dir = fdopendir(fd)) == NULL) {
			close(fd);
			continue;
		}
		while ((e = readdir(dir)) != NULL) {
			if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
			    strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			if (add_watch(sb, pol->roots[i].fd, e->d_name,
			    WATCH_MASK) < 0 && errno != ENOTDIR &&
			    errno != ENOENT && errno != EACCES &&
			    errno != ELOOP)
				watch_lost(sb, e->d_name, errno);
		}
		closedir(dir);
	}
}

int
tc_watch_changed(struct tc_sandbox *sb)
{
	char buf[4096] __attribute__((aligned(__alignof__(
	    struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	size_t i;
	int changed = 0, overflow = 0, root;
	char *p;

	if (sb->watch_fd < 0)
		return 0;
	while ((n = read(sb->watch_fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(void *)p;
			if (ev->mask & IN_Q_OVERFLOW) {
				overflow = 1;
				continue;
			}
			if (ev->len == 0)
				continue;
			if (is_kept(sb, ev->name)) {
				changed = 1;
				continue;
			}
			if (!(ev->mask & (IN_CREATE | IN_MOVED_TO)))
				continue;
			/* A directory new at the top of a root: watched,
			 * then looked in. */
			root = -1;
			for (i = 0; i < sb->nwatch_top; i++)
				if (sb->watch_top[i].wd == ev->wd)
					root = sb->watch_top[i].root;
			if (root < 0 || !(ev->mask & IN_ISDIR))
				continue;
			if (add_watch(sb, root, ev->name, WATCH_MASK) < 0 &&
			    errno != ENOENT && errno != ENOTDIR &&
			    errno != EACCES && errno != ELOOP) {
				watch_lost(sb, ev->name, errno);
				changed = 1;
			}
			if (holds_kept(sb, root, ev->name))
				changed = 1;
		}
	}
	/* Events dropped: a directory made meanwhile is watched by no one.
	 * All of it watched anew, and the children made again. */
	if (overflow) {
		tc_watch_start(sb);
		changed = 1;
	}
	return changed;
}
