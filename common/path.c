/* path.c: mapping client paths to roots, and opening them beneath a root. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "path.h"
#include "policy.h"

/*
 * Returns the rest of |path| after |root| if |root| names |path| or one of
 * its ancestors, compared component by component ("/a" is not an ancestor
 * of "/ab"); else NULL.
 */
static const char *
beneath(const char *path, const char *root, size_t rootlen)
{
	if (rootlen == 1 && root[0] == '/')
		return path + 1;
	if (strncmp(path, root, rootlen) != 0)
		return NULL;
	if (path[rootlen] == '\0')
		return path + rootlen;
	if (path[rootlen] == '/')
		return path + rootlen + 1;
	return NULL;
}

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
			a = beneath(user_abs, r->path, r->pathlen);
			b = beneath(user_abs, r->given, r->givenlen);
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
	r = &pol->roots[i];
	n = r->pathlen + strlen(rest) + 2;
	out->display = malloc(n);
	if (out->rel == NULL || out->display == NULL) {
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

int
tc_path_openat_in(int dirfd, const char *rel, int flags, unsigned mode)
{
	struct open_how how;
	int fd, tries;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)flags | O_CLOEXEC;
	/* A mode is allowed only with O_CREAT or O_TMPFILE (which includes
	 * the O_DIRECTORY bit, so test all of its bits). */
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	/* openat2 returns EAGAIN when a concurrent rename may have raced
	 * the resolution; a few retries settle it. */
	for (tries = 0; tries < 8; tries++) {
		fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
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
	default:
		return tc_diag(d, TC_ESYS, "'%s': %s", user, strerror(err));
	}
}
