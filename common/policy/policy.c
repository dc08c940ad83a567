/* policy.c: the allowed roots and the per-call limits. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strv.h"
#include "policy/glob.h"
#include "base/log.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "base/text.h"

/*
 * Secrets and the places that run code on the next git command: denied
 * unless a policy says "default-deny off".  A pattern that matches a
 * directory denies everything beneath it.
 */
#define RW	(TC_ACCESS_READ | TC_ACCESS_WRITE)
static const struct {
	const char	*pattern;
	unsigned	 access;
} default_deny[] = {
	{ "**/.env",		RW },
	{ "**/.env.*",		RW },
	{ "**/.ssh",		RW },
	{ "**/.gnupg",		RW },
	{ "**/.aws",		RW },
	{ "**/.netrc",		RW },
	{ "**/.git-credentials", RW },
	{ "**/*.pem",		RW },
	{ "**/*.key",		RW },
	{ "**/id_rsa",		RW },
	{ "**/id_ecdsa",	RW },
	{ "**/id_ed25519",	RW },
	{ "**/.git/hooks",	TC_ACCESS_WRITE },
	{ "**/.git/config",	TC_ACCESS_WRITE },
	/* And the rest of a repository's metadata, the ".git" file that
	 * points elsewhere included: a gitdir written anywhere else with a
	 * config of its own runs code on the next git command. */
	{ "**/.git",		TC_ACCESS_WRITE },
};
#undef RW

void
tc_policy_init(struct tc_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->default_deny = 1;
	p->consent_hook_fd = -1;
	p->consent_timeout_ms = 30000;	/* under the clients' 60 s */
	p->roots_timeout_ms = 5000;
	p->max_jobs = 4;
	p->job_lifetime_ms = 60 * 60 * 1000;
	p->audit_sync = TC_AUDIT_SYNC_EVERY;
	p->children = 8;
	p->limits.deadline_ms = 30000;	/* under the clients' 60 s */
	p->limits.max_result = 64u << 20;
	p->limits.cpu_sec = 30;
	p->limits.mem_bytes = 1ul << 30;
	p->limits.fsize_bytes = 1ul << 30;
	p->limits.nofile = 256;
	p->limits.nproc = 64;
	p->limits.max_inflight = 16;
}

static void
free_roots(struct tc_root *roots, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (roots[i].fd >= 0)
			close(roots[i].fd);
		free(roots[i].path);
		free(roots[i].given);
		free(roots[i].scope);
	}
	free(roots);
}

/* Frees the section's slot: the strings its typed keywords stored, then
 * what its own parsers kept there. */
static void
release_section(struct tc_policy *p)
{
	const struct tc_policy_keyword *k;
	size_t i;

	if (p->slot != NULL) {
		for (i = 0; i < p->section->nkeywords; i++) {
			k = &p->section->keywords[i];
			if (k->shape == TC_POLICY_PATH ||
			    k->shape == TC_POLICY_WORD)
				free(*(char **)(void *)((char *)p->slot +
				    k->offset));
		}
		if (p->section->release != NULL)
			p->section->release(p->slot);
	}
	free(p->slot);
	free(p->slot_at);
	free(p->skipped);
}

void
tc_policy_release(struct tc_policy *p)
{
	size_t i;

	free_roots(p->roots, p->nroots);
	if (p->ceiling != NULL)
		free_roots(p->ceiling, p->nceiling);
	for (i = 0; i < p->ndeny; i++)
		free(p->deny[i].pattern);
	free(p->deny);
	for (i = 0; i < p->ntools; i++)
		free(p->tools[i].name);
	free(p->tools);
	for (i = 0; i < p->naliases; i++)
		free(p->aliases[i].name);
	free(p->aliases);
	for (i = 0; i < p->nconsent; i++) {
		free(p->consent[i].tool);
		tc_strv_free(p->consent[i].patterns);
		tc_strv_free(p->consent[i].values);
	}
	free(p->consent);
	tc_strv_free(p->consent_hook);
	if (p->consent_hook_fd >= 0)
		close(p->consent_hook_fd);
	free(p->own);
	tc_strv_free(p->client_roots);
	free(p->audit_file);
	free(p->audit_key_file);
	free(p->run_as_spec);
	free(p->file);
	release_section(p);
	tc_policy_init(p);
}

int
tc_policy_set_server(struct tc_policy *p, const char *server,
    const char *const *names, size_t n, unsigned features)
{
	size_t i;

	p->server = server;
	p->features = features;
	if ((p->tools = calloc(n ? n : 1, sizeof(*p->tools))) == NULL)
		return TC_ENOMEM;
	for (i = 0; i < n; i++) {
		if ((p->tools[i].name = strdup(names[i])) == NULL)
			return TC_ENOMEM;
		p->tools[i].enabled = 1;
		p->ntools++;
	}
	return 0;
}

int
tc_policy_add_alias(struct tc_policy *p, const char *alias, const char *tool)
{
	struct tc_tool_alias *na;
	size_t i;

	for (i = 0; i < p->ntools; i++)
		if (strcmp(p->tools[i].name, tool) == 0)
			break;
	if (i == p->ntools)
		return TC_EINVAL;
	if ((na = reallocarray(p->aliases, p->naliases + 1,
	    sizeof(*na))) == NULL)
		return TC_ENOMEM;
	p->aliases = na;
	if ((na[p->naliases].name = strdup(alias)) == NULL)
		return TC_ENOMEM;
	na[p->naliases++].tool = i;
	return 0;
}

const char *
tc_policy_alias_of(const struct tc_policy *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->naliases; i++)
		if (strcmp(p->aliases[i].name, name) == 0)
			return p->tools[p->aliases[i].tool].name;
	return NULL;
}

int
tc_policy_finish(struct tc_policy *p, struct tc_diag *d)
{
	struct tc_deny *nd;
	size_t i, n;

	/* Asked by elicitation where the client offers it, else by the
	 * hook when there is one, else denied. */
	if (p->nconsent_by == 0) {
		p->consent_by[p->nconsent_by++] = TC_CONSENT_ELICIT;
		if (p->consent_hook != NULL)
			p->consent_by[p->nconsent_by++] = TC_CONSENT_HOOK;
	}
	if (!p->default_deny || p->default_added)
		return 0;
	n = sizeof(default_deny) / sizeof(default_deny[0]);
	if ((nd = calloc(p->ndeny + n, sizeof(*nd))) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		nd[i].access = default_deny[i].access;
		if ((nd[i].pattern = strdup(default_deny[i].pattern)) == NULL) {
			while (i-- > 0)
				free(nd[i].pattern);
			free(nd);
			return tc_diag(d, TC_ENOMEM, "out of memory");
		}
	}
	if (p->ndeny > 0)
		memcpy(nd + n, p->deny, p->ndeny * sizeof(*nd));
	free(p->deny);
	p->deny = nd;
	p->ndeny += n;
	p->default_added = 1;	/* finishing again adds nothing */
	return 0;
}

const struct tc_tool_policy *
tc_policy_tool(const struct tc_policy *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ntools; i++)
		if (strcmp(p->tools[i].name, name) == 0)
			return &p->tools[i];
	for (i = 0; i < p->naliases; i++)
		if (strcmp(p->aliases[i].name, name) == 0)
			return &p->tools[p->aliases[i].tool];
	return NULL;
}

void
tc_policy_limits(const struct tc_policy *p, const char *name,
    struct tc_limits *out)
{
	const struct tc_tool_policy *t;

	*out = p->limits;
	if ((t = tc_policy_tool(p, name)) == NULL)
		return;
	if (t->set_at[TC_SET_TIMEOUT])
		out->deadline_ms = t->limits.deadline_ms;
	if (t->set_at[TC_SET_MEMORY])
		out->mem_bytes = t->limits.mem_bytes;
	if (t->set_at[TC_SET_CPU])
		out->cpu_sec = t->limits.cpu_sec;
	if (t->set_at[TC_SET_OUTPUT])
		out->max_result = t->limits.max_result;
	if (t->set_at[TC_SET_FILES])
		out->nofile = t->limits.nofile;
	if (t->set_at[TC_SET_PROCESSES])
		out->nproc = t->limits.nproc;
	if (t->set_at[TC_SET_FILESIZE])
		out->fsize_bytes = t->limits.fsize_bytes;
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
	memset(r, 0, sizeof(*r));
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
tc_policy_add_root_once(struct tc_policy *p, const char *dir,
    unsigned flags, size_t *same, unsigned *before, struct tc_diag *d)
{
	struct tc_root *r, *e;
	size_t i;
	int rc;

	*same = SIZE_MAX;
	*before = 0;
	if ((rc = tc_policy_add_root(p, dir, flags, d)) != 0)
		return rc;
	r = &p->roots[p->nroots - 1];
	r->cmdline = 1;
	for (i = 0; i + 1 < p->nroots; i++) {
		e = &p->roots[i];
		if (strcmp(e->path, r->path) != 0)
			continue;
		*same = i;
		*before = e->flags;
		e->cmdline = 1;
		if ((flags & TC_ROOT_WRITE) && !(e->flags & TC_ROOT_WRITE)) {
			e->flags |= TC_ROOT_WRITE;
			e->write_line = 0;
		}
		p->nroots--;
		close(r->fd);
		free(r->path);
		free(r->given);
		break;
	}
	return 0;
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

const char *
tc_deny_str(const struct tc_deny *r, char *buf, size_t len)
{
	if (r->own != NULL)
		tc_text_fmt(buf, len, "'the server's own %s' (built in)",
		    r->own);
	else if (r->line > 0)
		tc_text_fmt(buf, len, "'deny %s%s' (line %d)",
		    r->access == TC_ACCESS_WRITE ? "write " : "", r->pattern,
		    r->line);
	else
		tc_text_fmt(buf, len, "'deny %s%s' (built in)",
		    r->access == TC_ACCESS_WRITE ? "write " : "", r->pattern);
	return buf;
}

/* Adds |real| (canonical, beneath or equal to |from|) to |out|. */
static int
add_narrowed(const struct tc_policy *p, struct tc_root *out, size_t *nout,
    const struct tc_root *from, const char *real)
{
	struct tc_root *r = &out[*nout];
	const char *rest;
	size_t i;

	for (i = 0; i < *nout; i++)
		if (strcmp(out[i].path, real) == 0)
			return 0;		/* named twice */
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if ((r->path = strdup(real)) == NULL ||
	    (r->given = strdup(real)) == NULL)
		goto fail;
	r->pathlen = r->givenlen = strlen(real);
	r->flags = from->flags;
	r->line = from->line;
	r->cmdline = from->cmdline;
	r->write_line = from->write_line;
	rest = real + (strcmp(from->path, "/") == 0 ? 1 : from->pathlen);
	while (*rest == '/')
		rest++;
	if (*rest != '\0' || from->scope != NULL) {
		if (from->scope != NULL && *rest != '\0') {
			if (asprintf(&r->scope, "%s/%s", from->scope, rest) < 0)
				r->scope = NULL;
		} else
			r->scope = strdup(*rest != '\0' ? rest : from->scope);
		if (r->scope == NULL)
			goto fail;
	}
	/* A client root the policy denies is no root: the rules stay
	 * relative to the policy's own directories. */
	for (i = 0; r->scope != NULL && i < p->ndeny; i++) {
		const struct tc_deny *dn = &p->deny[i];

		if (!tc_deny_rule_match(dn, dn->pattern[0] == '/' ? real :
		    r->scope))
			continue;
		if (dn->access & TC_ACCESS_READ) {
			free(r->path);
			free(r->given);
			free(r->scope);
			return 0;
		}
		/* One it denies writing (the built-in rules on .git) is
		 * read-only: beneath it, every path would be relative to
		 * the client's root, where the rule cannot see it. */
		r->flags &= ~(unsigned)TC_ROOT_WRITE;
	}
	if ((r->fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		/* Gone, or not a directory: dropped.  Dropped too when the
		 * server is short of descriptors or memory, which narrows
		 * access, never widens it; but that is worth a word. */
		if (errno != ENOENT && errno != ENOTDIR && errno != EACCES)
			tc_log(TC_LOG_WARN, "client root '%s' left out: "
			    "%s", real, strerror(errno));
		free(r->path);
		free(r->given);
		free(r->scope);
		return 0;
	}
	(*nout)++;
	return 0;
fail:
	free(r->path);
	free(r->given);
	free(r->scope);
	return -1;
}

int
tc_policy_narrow(struct tc_policy *p, char *const *dirs, size_t n,
    struct tc_diag *d)
{
	const struct tc_root *ceil, *best;
	struct tc_root *out;
	size_t nceil, nout = 0, i, k, cap;
	char *real = NULL, **copy = NULL;

	ceil = p->ceiling != NULL ? p->ceiling : p->roots;
	nceil = p->ceiling != NULL ? p->nceiling : p->nroots;
	cap = nceil * (n + 1) + 1;
	if ((out = calloc(cap, sizeof(*out))) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	for (k = 0; k < n; k++) {
		if ((real = realpath(dirs[k], NULL)) == NULL)
			continue;	/* the client names what is not here */
		/* A client root inside allowed directories takes the access
		 * of the innermost one, as a path there would: a read-only
		 * directory nested in a writable one stays read-only. */
		best = NULL;
		for (i = 0; i < nceil; i++)
			if (tc_path_beneath(real, ceil[i].path) != NULL &&
			    (best == NULL || ceil[i].pathlen > best->pathlen))
				best = &ceil[i];
		if (best != NULL && nout < TC_ROOTS_MAX &&
		    add_narrowed(p, out, &nout, best, real) != 0)
			goto oom;
		/* Allowed directories inside it stay, each as it was. */
		for (i = 0; i < nceil && nout < TC_ROOTS_MAX; i++) {
			if (strcmp(ceil[i].path, real) != 0 &&
			    tc_path_beneath(ceil[i].path, real) != NULL &&
			    add_narrowed(p, out, &nout, &ceil[i],
			    ceil[i].path) != 0)
				goto oom;
		}
		free(real);
		real = NULL;
	}
	if ((copy = calloc(n + 1, sizeof(*copy))) == NULL)
		goto oom;
	for (k = 0; k < n; k++)
		if ((copy[k] = strdup(dirs[k])) == NULL)
			goto oom;
	tc_strv_free(p->client_roots);
	p->client_roots = copy;
	p->nclient_roots = n;
	if (nout == 0 && p->roots_mode != TC_ROOTS_STRICT) {
		/* They meet none of the policy's directories: a client
		 * started elsewhere does not switch the server off, and the
		 * policy's own directories stay, as if it had no roots. */
		free_roots(out, nout);
		if (p->ceiling != NULL) {
			free_roots(p->roots, p->nroots);
			p->roots = p->ceiling;
			p->nroots = p->nceiling;
			p->ceiling = NULL;
			p->nceiling = 0;
		}
		p->roots_state = TC_ROOTS_KEPT;
		return 0;
	}
	if (p->ceiling == NULL) {
		p->ceiling = p->roots;
		p->nceiling = p->nroots;
	} else
		free_roots(p->roots, p->nroots);
	p->roots = out;
	p->nroots = nout;
	p->roots_state = nout == 0 ? TC_ROOTS_EMPTY : TC_ROOTS_NARROWED;
	return 0;
oom:
	free(real);
	tc_strv_free(copy);
	free_roots(out, nout);
	return tc_diag(d, TC_ENOMEM, "out of memory");
}

const char *
tc_roots_mode_name(enum tc_roots_mode m)
{
	switch (m) {
	case TC_ROOTS_NARROW:
		return "narrow";
	case TC_ROOTS_STRICT:
		return "strict";
	case TC_ROOTS_IGNORE:
		return "ignore";
	}
	return "?";
}

/* Appends |s| to |b|, shown as text.h shows what it did not write. */
static void
put_shown(struct tc_buf *b, const char *s)
{
	(void)tc_buf_append_shown(b, s, strlen(s), 0);
}

/* Appends the paths of |r| (|n| of them), with their access if |access|,
 * as a list; stops once |b| holds |enough| bytes. */
static void
put_roots(struct tc_buf *b, const struct tc_root *r, size_t n, int access,
    size_t enough)
{
	size_t i;

	for (i = 0; i < n && b->len < enough; i++) {
		if (i > 0)
			tc_buf_append_str(b, ", ");
		put_shown(b, r[i].path);
		if (access)
			tc_buf_append_str(b, (r[i].flags & TC_ROOT_WRITE) ?
			    " (read-write)" : " (read-only)");
	}
	if (n == 0)
		tc_buf_append_str(b, "none");
}

const char *
tc_policy_roots_note(const struct tc_policy *p, char *buf, size_t len)
{
	const struct tc_root *own = p->ceiling != NULL ? p->ceiling : p->roots;
	size_t nown = p->ceiling != NULL ? p->nceiling : p->nroots, i;
	struct tc_buf b;

	buf[0] = '\0';
	if (p->roots_state == TC_ROOTS_OWN)
		return buf;
	/* Lists stop once the text is longer than |buf|, where it is cut:
	 * a client may name thousands of roots. */
	tc_buf_init(&b, len + 64 * PATH_MAX);
	tc_buf_append_str(&b, "The client's roots: ");
	for (i = 0; i < p->nclient_roots && b.len < len; i++) {
		if (i > 0)
			tc_buf_append_str(&b, ", ");
		put_shown(&b, p->client_roots[i]);
	}
	tc_buf_append_str(&b, p->nclient_roots == 0 ? "none. " : ". ");
	switch (p->roots_state) {
	case TC_ROOTS_NARROWED:
		tc_buf_append_str(&b, "They narrow the policy's directories "
		    "(");
		put_roots(&b, own, nown, 0, len);
		tc_buf_append_str(&b, ") to those served: ");
		put_roots(&b, p->roots, p->nroots, 1, len);
		tc_buf_append_str(&b, ".");
		break;
	case TC_ROOTS_KEPT:
		tc_buf_append_str(&b, "None of them is in or above a "
		    "directory the policy allows, so the policy's directories "
		    "are served ('roots narrow'): ");
		put_roots(&b, own, nown, 1, len);
		tc_buf_append_str(&b, ".");
		break;
	case TC_ROOTS_EMPTY:
		tc_buf_append_str(&b, "None of them is in or above a "
		    "directory the policy allows (");
		put_roots(&b, own, nown, 0, len);
		tc_buf_append_str(&b, "), and with 'roots strict' nothing is "
		    "served then: start the client in or under one of those "
		    "directories, or set 'roots narrow' in the policy.");
		break;
	case TC_ROOTS_OWN:
		break;
	}
	if (b.data != NULL && b.len < len)
		memcpy(buf, b.data, b.len + 1);
	else if (b.data != NULL && len > TC_TEXT_CUT_LEN) {
		/* Too long (many roots): cut, and say so. */
		i = tc_utf8_cut(b.data, b.len, len - 1 - TC_TEXT_CUT_LEN);
		memcpy(buf, b.data, i);
		memcpy(buf + i, TC_TEXT_CUT, TC_TEXT_CUT_LEN + 1);
	}
	tc_buf_release(&b);
	return buf;
}
