/* policy.c: the allowed roots and the per-call limits. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
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
	free(p->run_as_spec);
	free(p->file);
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

/* Parses a user or group id written as a number; returns 0 or -1. */
static int
numeric_id(const char *s, unsigned *id)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	/* (uid_t)-1 means "unchanged" to setresuid(2): never an id. */
	if (*end != '\0' || errno != 0 || v >= UINT32_MAX)
		return -1;
	*id = (unsigned)v;
	return 0;
}

int
tc_policy_run_as(struct tc_policy *p, const char *spec, struct tc_diag *d)
{
	const struct passwd *pw;
	const struct group *gr;
	char *user, *group;
	unsigned id;
	int rc = 0;

	if (geteuid() != 0)
		return tc_diag(d, TC_EDENIED, "only a server started as root "
		    "can run its calls as another user");
	if ((user = strdup(spec)) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	if ((group = strchr(user, ':')) != NULL)
		*group++ = '\0';
	if ((pw = getpwnam(user)) != NULL) {
		p->run_uid = pw->pw_uid;
		p->run_gid = pw->pw_gid;
	} else if (numeric_id(user, &id) == 0)
		p->run_uid = p->run_gid = (uid_t)id;
	else {
		rc = tc_diag(d, TC_EINVAL, "no user '%s'", user);
		goto out;
	}
	if (group != NULL) {
		if ((gr = getgrnam(group)) != NULL)
			p->run_gid = gr->gr_gid;
		else if (numeric_id(group, &id) == 0)
			p->run_gid = (gid_t)id;
		else {
			rc = tc_diag(d, TC_EINVAL, "no group '%s'", group);
			goto out;
		}
	}
	if (p->run_uid == 0 || p->run_gid == 0) {
		rc = tc_diag(d, TC_EINVAL, "calls already run as root without "
		    "it; name an unprivileged user and group");
		goto out;
	}
	p->run_as = 1;
out:
	free(user);
	return rc;
}
