/* policy.c: the allowed roots and the per-call limits. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

void
tc_policy_init(struct tc_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->limits.deadline_ms = 30000;	/* under the clients' 60 s */
	p->limits.max_result = 64u << 20;
	p->limits.cpu_sec = 30;
	p->limits.mem_bytes = 1ul << 30;
	p->limits.fsize_bytes = 1ul << 30;
	p->limits.nofile = 256;
	p->limits.nproc = 64;
	p->limits.max_inflight = 16;
}

void
tc_policy_release(struct tc_policy *p)
{
	size_t i;

	for (i = 0; i < p->nroots; i++) {
		if (p->roots[i].fd >= 0)
			close(p->roots[i].fd);
		free(p->roots[i].path);
		free(p->roots[i].given);
	}
	free(p->roots);
	tc_policy_init(p);
}

/* Returns |dir| made absolute against the working directory, lexically
 * cleaned of "." and empty components and of trailing slashes. */
static char *
absolute(const char *dir)
{
	char cwd[PATH_MAX], *out, *w;
	const char *s;
	size_t n;

	if (dir[0] != '/') {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return NULL;
	} else
		cwd[0] = '\0';
	n = strlen(cwd) + strlen(dir) + 2;
	if ((out = malloc(n)) == NULL)
		return NULL;
	w = out;
	for (s = cwd; *s; s++)
		*w++ = *s;
	*w++ = '/';
	for (s = dir; *s; s++) {
		if (*s == '/' && w[-1] == '/')
			continue;
		if (*s == '.' && w[-1] == '/' && (s[1] == '/' || s[1] == '\0')) {
			if (s[1] == '/')
				s++;
			continue;
		}
		*w++ = *s;
	}
	while (w > out + 1 && w[-1] == '/')
		w--;
	*w = '\0';
	return out;
}

int
tc_policy_add_root(struct tc_policy *p, const char *dir, unsigned flags,
    struct tc_diag *d)
{
	struct tc_root *r, *nr;
	struct stat st;
	char *given, *real;
	int fd = -1, rc;

	if (dir[0] == '\0')
		return tc_diag(d, TC_EINVAL, "empty directory name");
	if ((given = absolute(dir)) == NULL)
		return tc_diag_errno(d, TC_ESYS, "'%s'", dir);
	if ((real = realpath(given, NULL)) == NULL) {
		tc_diag_errno(d, TC_ESYS, "'%s'", dir);
		free(given);
		return TC_ESYS;
	}
	if (p->nroots >= TC_ROOTS_MAX) {
		rc = tc_diag(d, TC_EINVAL, "'%s': at most %d directories can "
		    "be served", dir, TC_ROOTS_MAX);
		goto fail;
	}
	fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = tc_diag_errno(d, TC_ESYS, "'%s'", dir);
		goto fail;
	}
	if ((nr = reallocarray(p->roots, p->nroots + 1, sizeof(*nr))) == NULL) {
		rc = tc_diag(d, TC_ENOMEM, "out of memory");
		goto fail;
	}
	p->roots = nr;
	r = &p->roots[p->nroots++];
	r->path = real;
	r->pathlen = strlen(real);
	r->given = given;
	r->givenlen = strlen(given);
	r->fd = fd;
	r->flags = flags;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(given);
	free(real);
	return rc;
}

int
tc_policy_writable(const struct tc_policy *p)
{
	size_t i;

	for (i = 0; i < p->nroots; i++)
		if (p->roots[i].flags & TC_ROOT_WRITE)
			return 1;
	return 0;
}
