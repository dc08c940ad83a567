/*
 * own.c: the server's own files: finding them at start, refusing a start
 * that leaves one within a call's reach, and the rules and identities that
 * keep the rest out of every call's (own.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "policy/glob.h"
#include "base/log.h"
#include "policy/own.h"
#include "policy/policy.h"

#define LINKS_MAX	40	/* symbolic links followed, as the kernel does */
#define INTERP_DEPTH	4	/* "#!" interpreters that are scripts, in turn */
#define SHEBANG_MAX	256	/* bytes of a "#!" line read */

/* statfs(2) f_type of the filesystems whose readdir d_ino may differ
 * from stat's st_ino (linux/magic.h). */
#define OVERLAYFS_MAGIC	0x794c7630
#define FUSE_MAGIC	0x65735546

/* A path as the server opens it: where each symbolic link met on the way
 * lies, and where it ends. */
struct trace {
	char	*links[LINKS_MAX];	/* canonical places of the links */
	size_t	 nlinks;
	char	 final[PATH_MAX];	/* canonical, as far as it exists */
};

/* What tc_own_collect() works through: one own file, and what it found. */
struct item {
	const char	*kind;		/* TC_OWN_* */
	int		 log;		/* the audit log */
	char		*path;		/* absolute, as the server opens it */
	struct trace	 t;
};

struct collect {
	struct tc_policy	*p;
	tc_policy_report_fn	*report;
	void			*ctx;
	int			 problems;
	struct item		*items;
	size_t			 nitems;
	int			 nomem;
};

static void	problem(struct collect *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

/* Reports one problem and counts it. */
static void
problem(struct collect *c, const char *fmt, ...)
{
	char msg[PATH_MAX * 2 + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->report(c->ctx, msg);
	c->problems++;
}

static void
trace_release(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nlinks; i++)
		free(t->links[i]);
	t->nlinks = 0;
}

/* Appends component |c| (|n| bytes) to canonical |cur|; 0 or -1. */
static int
push(char *cur, const char *c, size_t n)
{
	size_t len = strlen(cur);

	if (len + 1 + n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	cur[len] = '/';
	memcpy(cur + len + 1, c, n);
	cur[len + 1 + n] = '\0';
	return 0;
}

/* Removes the last component of |cur| ("" is "/"). */
static void
pop(char *cur)
{
	char *s = strrchr(cur, '/');

	if (s != NULL)
		*s = '\0';
}

/*
 * Follows absolute |path| as open(2) would, one component at a time,
 * noting where each symbolic link met lies.  What does not exist is taken
 * as written.  Returns 0, or -1 with errno set (ELOOP, ENAMETOOLONG,
 * ENOMEM).
 */
static int
trace_path(const char *path, struct trace *t)
{
	char *rest, *next, target[PATH_MAX];
	const char *c;
	struct stat st;
	size_t n;
	ssize_t k;
	int missing = 0;

	memset(t, 0, sizeof(*t));
	if ((rest = strdup(path)) == NULL)
		return -1;
	t->final[0] = '\0';		/* "" stands for "/" */
	c = rest;
	for (;;) {
		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		n = strcspn(c, "/");
		if (n == 1 && c[0] == '.') {
			c += n;
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			pop(t->final);
			c += n;
			continue;
		}
		if (push(t->final, c, n) != 0)
			goto fail;
		c += n;
		if (missing || lstat(t->final, &st) != 0) {
			/* Not there (or not for us): as written. */
			missing = 1;
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (t->nlinks == LINKS_MAX) {
			errno = ELOOP;
			goto fail;
		}
		if ((t->links[t->nlinks] = strdup(t->final)) == NULL)
			goto fail;
		t->nlinks++;
		k = readlink(t->final, target, sizeof(target) - 1);
		if (k < 0)
			goto fail;
		target[k] = '\0';
		pop(t->final);
		if (target[0] == '/')
			t->final[0] = '\0';
		if (asprintf(&next, "%s/%s", target, c) < 0)
			goto fail;
		free(rest);
		rest = next;
		c = rest;
	}
	if (t->final[0] == '\0')
		snprintf(t->final, sizeof(t->final), "/");
	free(rest);
	return 0;
fail:
	free(rest);
	trace_release(t);
	return -1;
}

/* Adds an item; on failure notes it (out of memory). */
static struct item *
add_item(struct collect *c, const char *kind, const char *path)
{
	struct item *ni, *it;

	if ((ni = reallocarray(c->items, c->nitems + 1, sizeof(*ni))) ==
	    NULL) {
		c->nomem = 1;
		return NULL;
	}
	c->items = ni;
	it = &ni[c->nitems];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	if ((it->path = strdup(path)) == NULL) {
		c->nomem = 1;
		return NULL;
	}
	c->nitems++;
	return it;
}

/* Adds identity |st| as an own file of |kind|.  Returns 0 or -1. */
static int
add_id(struct tc_policy *p, const struct stat *st, const char *kind)
{
	struct tc_own_id *n;
	size_t i;

	for (i = 0; i < p->nown; i++)
		if (p->own[i].dev == st->st_dev && p->own[i].ino == st->st_ino)
			return 0;
	if ((n = reallocarray(p->own, p->nown + 1, sizeof(*n))) == NULL)
		return -1;
	p->own = n;
	memset(&n[p->nown], 0, sizeof(*n));
	n[p->nown].dev = st->st_dev;
	n[p->nown].ino = st->st_ino;
	n[p->nown].rule.access = TC_ACCESS_READ | TC_ACCESS_WRITE;
	n[p->nown].rule.own = kind;
	n[p->nown].rule.exact = 1;
	p->nown++;
	return 0;
}

/* Returns |path| as a pattern matching it alone, or NULL (no memory, or
 * too long a pattern: errno ENAMETOOLONG). */
static char *
escape(const char *path, const char *suffix)
{
	size_t n = strlen(suffix);
	char *out, *w;
	const char *s;

	if ((out = malloc(2 * strlen(path) + n + 1)) == NULL)
		return NULL;
	for (s = path, w = out; *s != '\0'; s++) {
		if (strchr("*?[]\\", *s) != NULL)
			*w++ = '\\';
		*w++ = *s;
	}
	memcpy(w, suffix, n + 1);
	if (strlen(out) > TC_GLOB_MAX) {
		free(out);
		errno = ENAMETOOLONG;
		return NULL;
	}
	return out;
}

/* Adds a deny rule for |pattern| (taken); 0 or -1. */
static int
add_rule(struct tc_policy *p, char *pattern, const char *kind, int exact)
{
	struct tc_deny *n;

	if (pattern == NULL)
		return -1;
	if ((n = reallocarray(p->deny, p->ndeny + 1, sizeof(*n))) == NULL) {
		free(pattern);
		return -1;
	}
	p->deny = n;
	memset(&n[p->ndeny], 0, sizeof(*n));
	n[p->ndeny].pattern = pattern;
	n[p->ndeny].access = TC_ACCESS_READ | TC_ACCESS_WRITE;
	n[p->ndeny].own = kind;
	n[p->ndeny].exact = exact;
	p->ndeny++;
	return 0;
}

/* Returns 1 if canonical |path| is some root or lies beneath one. */
static int
in_a_root(const struct tc_policy *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nroots; i++)
		if (tc_path_beneath(path, p->roots[i].path) != NULL)
			return 1;
	return 0;
}

/* Names where root |r| comes from in |origin| (32 bytes). */
static void
root_origin(const struct tc_root *r, char *origin, size_t size)
{
	/* What made it writable: a policy line, or --write. */
	if (r->write_line > 0)
		snprintf(origin, size, "policy line %d", r->write_line);
	else
		snprintf(origin, size, "command line");
}

static void
refuse_writable(struct collect *c, const struct item *it, const char *how,
    const struct tc_root *r)
{
	char origin[32];

	root_origin(r, origin, sizeof(origin));
	problem(c, "%s '%s': %s the writable directory '%s' (%s): a call "
	    "could change or replace it, or rename a directory above it and "
	    "put another file in its place; keep it outside every writable "
	    "directory", it->kind, it->path, how, r->path, origin);
}

/* Returns the writable root of |p| that is the directory |st| by
 * identity, or NULL. */
static const struct tc_root *
writable_id(const struct tc_policy *p, const struct stat *st)
{
	const struct tc_root *r;
	struct stat rs;
	size_t i;

	for (i = 0; i < p->nroots; i++) {
		r = &p->roots[i];
		if (!(r->flags & TC_ROOT_WRITE) ||
		    (r->fd >= 0 ? fstat(r->fd, &rs) : stat(r->path, &rs)) != 0)
			continue;
		if (rs.st_dev == st->st_dev && rs.st_ino == st->st_ino)
			return r;
	}
	return NULL;
}

/*
 * Opens each directory on the way to canonical |where| in turn, from "/",
 * and returns the writable root that one of them is by identity (a bind
 * mount of it, or of a directory above it, shows the same device and
 * inode), with that directory's path in |dir|; or NULL.  It stops where
 * the path stops being a directory that can be opened.
 */
static const struct tc_root *
ancestor_writable(const struct tc_policy *p, const char *where,
    char dir[PATH_MAX])
{
	const struct tc_root *r = NULL;
	struct stat st;
	char name[NAME_MAX + 1];
	const char *s = where;
	size_t n;
	int fd, nfd;

	if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return NULL;
	snprintf(dir, PATH_MAX, "/");
	for (;;) {
		if (fstat(fd, &st) == 0 && (r = writable_id(p, &st)) != NULL)
			break;
		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		n = strcspn(s, "/");
		snprintf(dir, PATH_MAX, "%.*s", (int)(s + n - where), where);
		if (n > NAME_MAX)
			break;
		memcpy(name, s, n);
		name[n] = '\0';
		nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		s += n;
		close(fd);
		if ((fd = nfd) < 0)
			break;
	}
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * Reports |it| if it, or a link on its way, lies beneath a writable root:
 * one line, naming the first place found and its root.  Beneath by path,
 * or by identity: a directory on the way that is a writable root (the
 * root is a bind mount of it, or it of the root).  Returns 1 if it did,
 * else 0.
 */
static int
check_writable(struct collect *c, const struct item *it)
{
	const struct tc_root *r;
	const char *where;
	char how[PATH_MAX * 2 + 128], dir[PATH_MAX];
	size_t i, k;

	for (k = 0; k <= it->t.nlinks; k++) {
		where = k < it->t.nlinks ? it->t.links[k] : it->t.final;
		for (i = 0; i < c->p->nroots; i++) {
			r = &c->p->roots[i];
			if (!(r->flags & TC_ROOT_WRITE) ||
			    tc_path_beneath(where, r->path) == NULL)
				continue;
			if (k < it->t.nlinks)
				snprintf(how, sizeof(how), "the symbolic link "
				    "'%s' on the way to it lies beneath", where);
			else
				snprintf(how, sizeof(how), "it lies beneath");
			refuse_writable(c, it, how, r);
			return 1;
		}
	}
	for (k = 0; k <= it->t.nlinks; k++) {
		where = k < it->t.nlinks ? it->t.links[k] : it->t.final;
		if ((r = ancestor_writable(c->p, where, dir)) == NULL)
			continue;
		if (k < it->t.nlinks)
			snprintf(how, sizeof(how), "the directory '%s' on the "
			    "way to the symbolic link '%s' on its way is, by "
			    "identity (a bind mount),", dir, where);
		else
			snprintf(how, sizeof(how), "the directory '%s' on its "
			    "way is, by identity (a bind mount),", dir);
		refuse_writable(c, it, how, r);
		return 1;
	}
	return 0;
}

/*
 * Adds the identities of the log's directory |dir| (canonical) and of
 * the entries |base| and |base|.* in it.  Returns 0 or -1 (no memory); a
 * directory that cannot be read adds only what it can.
 */
static int
add_log_ids(struct tc_policy *p, const char *dir, const char *base)
{
	struct dirent *de;
	struct stat st;
	size_t n = strlen(base);
	DIR *d;
	int rc = 0;

	if (stat(dir, &st) == 0 && add_id(p, &st, TC_OWN_LOG_DIR) != 0)
		return -1;
	if ((d = opendir(dir)) == NULL)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, base, n) != 0 ||
		    (de->d_name[n] != '\0' && de->d_name[n] != '.'))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    0 && add_id(p, &st, TC_OWN_LOG) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

/* Splits canonical |path| into its directory (in |dir|) and last name. */
static const char *
split(const char *path, char dir[PATH_MAX])
{
	const char *slash = strrchr(path, '/');

	if (slash == path)
		snprintf(dir, PATH_MAX, "/");
	else
		snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path), path);
	return slash + 1;
}

/* The rules and identities of the log |it|. */
static int
protect_log(struct collect *c, const struct item *it)
{
	char dir[PATH_MAX];
	const char *base;

	base = split(it->t.final, dir);
	if (in_a_root(c->p, dir) &&
	    (add_rule(c->p, escape(dir, ""), TC_OWN_LOG_DIR, 1) != 0 ||
	    add_rule(c->p, escape(it->t.final, ""), TC_OWN_LOG, 1) != 0 ||
	    add_rule(c->p, escape(it->t.final, ".*"), TC_OWN_LOG, 0) != 0))
		return -1;
	return add_log_ids(c->p, dir, base);
}

/* The rule and identity of the own file |it| (not the log). */
static int
protect(struct collect *c, const struct item *it)
{
	struct stat st;

	if (in_a_root(c->p, it->t.final) &&
	    add_rule(c->p, escape(it->t.final, ""), it->kind, 1) != 0)
		return -1;
	if (stat(it->t.final, &st) == 0 && add_id(c->p, &st, it->kind) != 0)
		return -1;
	return 0;
}

/*
 * Reads the "#!" line of the file open as |fd|: the interpreter it names
 * into |interp| (PATH_MAX bytes; made absolute as the kernel would, from
 * "/", the hook's working directory), and the one argument the kernel
 * passes it, the rest of the line without its outer blanks, into |arg|
 * (SHEBANG_MAX + 1 bytes; "" if none).  Returns 1 if it has one, 0 if not.
 */
static int
shebang(int fd, char *interp, char *arg)
{
	char buf[SHEBANG_MAX + 1], *s, *e;
	ssize_t n;
	size_t len;

	interp[0] = arg[0] = '\0';
	do
		n = pread(fd, buf, SHEBANG_MAX, 0);
	while (n < 0 && errno == EINTR);
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (s = buf + 2; *s == ' ' || *s == '\t'; s++)
		;
	len = strcspn(s, " \t");
	if (len == 0 || len + 2 > PATH_MAX)
		return 1;		/* a script, whose interpreter fails */
	snprintf(interp, PATH_MAX, "%s%.*s", s[0] == '/' ? "" : "/",
	    (int)len, s);
	for (s += len; *s == ' ' || *s == '\t'; s++)
		;
	for (e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t');)
		e--;
	snprintf(arg, SHEBANG_MAX + 1, "%.*s", (int)(e - s), s);
	return 1;
}

/*
 * Adds |name|, an argument given to the hook or to its interpreter, as an
 * item if it is the path of a regular file: an absolute one, or one
 * relative to "/", the hook's working directory.  Returns 0, or -1 out of
 * memory.
 */
static int
hook_arg(struct collect *c, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (name[0] == '\0' || snprintf(path, sizeof(path), "%s%s",
	    name[0] == '/' ? "" : "/", name) >= (int)sizeof(path))
		return 0;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return add_item(c, TC_OWN_HOOK_FILE, path) == NULL ? -1 : 0;
}

/* Returns 1 if the interpreter |interp| is env(1), which runs a program
 * it finds through PATH. */
static int
is_env(const char *interp)
{
	const char *base = strrchr(interp, '/');

	return strcmp(base != NULL ? base + 1 : interp, "env") == 0;
}

/*
 * For a "#!" line that runs env(1) with |arg|: puts the program env will
 * run in |prog| (PATH_MAX bytes; "" if none is found), searching the
 * hook's PATH as env does.  Each place searched before it is added as an
 * item too (a program put there later would run instead), and all of
 * them if none is found.  Returns 0; -1 if it cannot be followed
 * (options, several words: reported) or out of memory.
 */
static int
env_program(struct collect *c, const char *arg, char *prog)
{
	const char *dir = TC_HOOK_PATH, *hook = c->p->consent_hook[0];
	struct stat st;
	size_t n;

	prog[0] = '\0';
	if (arg[0] == '\0')
		return 0;		/* env alone runs nothing */
	if (arg[0] == '-' || strpbrk(arg, " \t=") != NULL) {
		problem(c, "%s '%s': its \"#!\" line runs env with '%s', "
		    "which the server cannot follow to the program it runs; "
		    "name the interpreter by its absolute path", TC_OWN_HOOK,
		    hook, arg);
		return -1;
	}
	if (strchr(arg, '/') != NULL) {
		snprintf(prog, PATH_MAX, "%s%s", arg[0] == '/' ? "" : "/",
		    arg);
		return 0;
	}
	for (; *dir != '\0'; dir += n + (dir[n] == ':')) {
		n = strcspn(dir, ":");
		if (snprintf(prog, PATH_MAX, "%.*s/%s", (int)n, dir, arg) >=
		    PATH_MAX)
			continue;
		if (stat(prog, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111))
			return 0;	/* added by the caller */
		if (add_item(c, TC_OWN_INTERPRETER, prog) == NULL)
			return -1;
	}
	prog[0] = '\0';
	return 0;
}

/*
 * Opens the consent hook as p->consent_hook_fd, checks it, and adds it,
 * the interpreters its "#!" lines name (through env(1) too), the
 * arguments those lines give them and the hook's own arguments that are
 * files, as items.
 */
static void
hook_items(struct collect *c)
{
	struct tc_policy *p = c->p;
	char self[32], interp[PATH_MAX], arg[SHEBANG_MAX + 1];
	const char *prog = p->consent_hook[0];
	struct stat st;
	int fd, depth;
	size_t k;

	if (add_item(c, TC_OWN_HOOK, prog) == NULL)
		return;
	/* The file run is the file opened here: checked as the policy
	 * parser checked it by name, on what was opened. */
	fd = open(prog, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		problem(c, "%s '%s': %s", TC_OWN_HOOK, prog,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		problem(c, "%s '%s': not a regular file, or writable by "
		    "group or others", TC_OWN_HOOK, prog);
		close(fd);
		return;
	}
	if (fd <= STDERR_FILENO) {
		/* The keeper puts the hook's stdio there. */
		int nfd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);

		close(fd);
		if ((fd = nfd) < 0) {
			problem(c, "%s '%s': %s", TC_OWN_HOOK, prog,
			    strerror(errno));
			return;
		}
	}
	if (add_id(p, &st, TC_OWN_HOOK) != 0)
		c->nomem = 1;
	p->consent_hook_fd = fd;
	/* What the hook is given to read: "python3 ask.py", run from
	 * "/". */
	for (k = 1; p->consent_hook[k] != NULL; k++)
		if (hook_arg(c, p->consent_hook[k]) != 0)
			return;
	/* Whether it is a script, read through the fd opened (a program
	 * that may only be executed cannot be read, and is none). */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if ((fd = open(self, O_RDONLY | O_CLOEXEC)) < 0 &&
	    (fd = open(prog, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	p->consent_hook_script = shebang(fd, interp, arg);
	close(fd);
	for (depth = 0; p->consent_hook_script && depth < INTERP_DEPTH &&
	    interp[0] != '\0'; depth++) {
		if (add_item(c, TC_OWN_INTERPRETER, interp) == NULL)
			return;
		if (is_env(interp)) {
			/* The program env finds is the next interpreter. */
			if (env_program(c, arg, interp) != 0)
				return;
			arg[0] = '\0';
			continue;
		}
		if (hook_arg(c, arg) != 0)
			return;
		fd = open(interp, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (!shebang(fd, interp, arg))
			interp[0] = '\0';
		close(fd);
	}
}

static int
cmp_id(const void *a, const void *b)
{
	const struct tc_own_id *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

/* Sorts the identities by inode, for first_ino(): a log kept whole may
 * have thousands of rotated files, and a walk asks about every entry. */
static void
sort_ids(struct tc_policy *p)
{
	if (p->nown > 1)
		qsort(p->own, p->nown, sizeof(*p->own), cmp_id);
}

/* Returns the index of the first identity with inode |ino|, or of the
 * first above it (p->nown if none). */
static size_t
first_ino(const struct tc_policy *p, ino_t ino)
{
	size_t lo = 0, hi = p->nown, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->own[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* --- The kernel's own filesystems --- */

/*
 * Filesystems whose files are not data but the kernel's: its settings
 * (proc, sysfs), devices (devtmpfs), cgroups' limits, security modules'
 * policies, tracing, firmware variables.  Uid 0 writes most of them
 * without any capability.
 */
static const char *const kernel_fs[] = {
	"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2",
	"debugfs", "tracefs", "securityfs", "bpf", "configfs", "efivarfs",
	"pstore", "fusectl", "binfmt_misc", "mqueue", "selinuxfs", "smackfs",
	"hugetlbfs", "nsfs", "autofs", "rpc_pipefs",
};

/* Returns 1 if |type| is one of kernel_fs[]. */
static int
is_kernel_fs(const char *type)
{
	size_t k;

	for (k = 0; k < TC_NITEMS(kernel_fs); k++)
		if (strcmp(type, kernel_fs[k]) == 0)
			return 1;
	return 0;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void
unescape(char *s)
{
	char *w = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
			    (s[3] - '0'));
			s += 3;
		} else
			*w++ = *s;
	}
	*w = '\0';
}

/* A mount, as check_kernel_fs() reads it from the mount table. */
struct mount {
	char	*point;		/* unescaped */
	char	*type;
};

/*
 * Reads /proc/self/mountinfo into *|out| (*|n| mounts; the caller frees
 * them).  Returns 0; -1 with errno set if it cannot be read, or with
 * c->nomem set.
 */
static int
read_mounts(struct collect *c, struct mount **out, size_t *n)
{
	struct mount *m = NULL, *grown;
	char *line = NULL, *f, *save, *point;
	size_t cap = 0, nm = 0, k;
	FILE *in;

	if ((in = fopen("/proc/self/mountinfo", "re")) == NULL)
		return -1;
	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPT...] - TYPE ... */
	while (getline(&line, &cap, in) > 0 && !c->nomem) {
		for (k = 0, f = strtok_r(line, " \n", &save); f != NULL &&
		    k < 4; k++)
			f = strtok_r(NULL, " \n", &save);
		if (f == NULL)
			continue;
		point = f;
		while ((f = strtok_r(NULL, " \n", &save)) != NULL &&
		    strcmp(f, "-") != 0)
			;
		if (f == NULL || (f = strtok_r(NULL, " \n", &save)) == NULL)
			continue;
		unescape(point);
		if ((grown = reallocarray(m, nm + 1, sizeof(*m))) == NULL) {
			c->nomem = 1;
			break;
		}
		m = grown;
		if ((m[nm].point = strdup(point)) == NULL ||
		    (m[nm].type = strdup(f)) == NULL) {
			free(m[nm].point);
			c->nomem = 1;
			break;
		}
		nm++;
	}
	free(line);
	fclose(in);
	*out = m;
	*n = nm;
	return c->nomem ? -1 : 0;
}

/*
 * Refuses, when calls would run as uid 0, a writable root that is, lies
 * in, or holds a mount of one of the kernel's own filesystems: Landlock
 * grants a right beneath a directory whatever is mounted there, and a
 * call of uid 0 needs no capability to write /proc/sys or a disk's
 * device.  Calls of another user are held off those by the files' own
 * modes.  Fails closed: a mount table that cannot be read refuses too.
 */
static void
check_kernel_fs(struct collect *c)
{
	const struct tc_policy *p = c->p;
	const struct tc_root *r;
	struct mount *m = NULL;
	char origin[32];
	size_t nm = 0, i, k, deep, best;

	if (p->run_as ? p->run_uid != 0 : geteuid() != 0)
		return;
	for (i = 0; i < p->nroots; i++)
		if (p->roots[i].flags & TC_ROOT_WRITE)
			break;
	if (i == p->nroots)
		return;
	if (read_mounts(c, &m, &nm) != 0 && !c->nomem)
		problem(c, "calls run as uid 0 and some directories are "
		    "writable, but the mount table cannot be read to check "
		    "that none holds the kernel's own files: "
		    "/proc/self/mountinfo: %s", strerror(errno));
	for (i = 0; i < p->nroots && !c->nomem && m != NULL; i++) {
		r = &p->roots[i];
		if (!(r->flags & TC_ROOT_WRITE))
			continue;
		root_origin(r, origin, sizeof(origin));
		/* The root's own filesystem: the deepest mount it lies in;
		 * then every mount beneath it. */
		for (best = nm, deep = 0, k = 0; k < nm; k++)
			if (tc_path_beneath(r->path, m[k].point) != NULL &&
			    strlen(m[k].point) >= deep) {
				deep = strlen(m[k].point);
				best = k;
			}
		for (k = 0; k < nm; k++) {
			if (!is_kernel_fs(m[k].type) || (k != best &&
			    tc_path_beneath(m[k].point, r->path) == NULL))
				continue;
			problem(c, "the writable directory '%s' (%s) %s the "
			    "kernel's %s filesystem at '%s', whose files are "
			    "the kernel's settings or devices, and calls would "
			    "run as uid 0, which writes most of them without "
			    "any capability: serve %s directory, or give calls "
			    "another user (run-as)", r->path, origin,
			    k == best ? "lies in" : "holds", m[k].type,
			    m[k].point, k == best ? "another" : "a narrower");
		}
	}
	for (k = 0; k < nm; k++) {
		free(m[k].point);
		free(m[k].type);
	}
	free(m);
}

int
tc_own_collect(struct tc_policy *p, const char *policy_file,
    tc_policy_report_fn *report, void *ctx)
{
	const char *key = TC_OWN_KEY;
	struct collect c;
	struct item *it;
	char cwd[PATH_MAX], abs[PATH_MAX * 2 + 2];
	size_t i;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.report = report;
	c.ctx = ctx;
	if (policy_file != NULL) {
		/* Relative: from the working directory, which must be
		 * known (a relative path is not taken from "/"). */
		if (policy_file[0] == '/') {
			add_item(&c, TC_OWN_POLICY, policy_file);
		} else if (getcwd(cwd, sizeof(cwd)) == NULL) {
			problem(&c, "%s '%s': where it lies cannot be told: "
			    "the working directory: %s", TC_OWN_POLICY,
			    policy_file, strerror(errno));
		} else {
			snprintf(abs, sizeof(abs), "%s/%s", cwd, policy_file);
			add_item(&c, TC_OWN_POLICY, abs);
		}
	}
	if (p->consent_hook != NULL && p->consent_hook[0] != NULL)
		hook_items(&c);
	if (p->audit_key_file != NULL)
		add_item(&c, key, p->audit_key_file);
	if (p->audit_file != NULL && (it = add_item(&c, TC_OWN_LOG,
	    p->audit_file)) != NULL)
		it->log = 1;
	for (i = 0; i < c.nitems && !c.nomem; i++) {
		it = &c.items[i];
		if (trace_path(it->path, &it->t) != 0) {
			if (errno == ENOMEM)
				c.nomem = 1;
			else
				problem(&c, "%s '%s': cannot be followed: %s",
				    it->kind, it->path, strerror(errno));
			continue;
		}
		/* Calls are refused it, but a child whose code were taken
		 * over could read what Landlock lets it: a secret is best
		 * kept outside every root. */
		if (!check_writable(&c, it) && it->kind == key &&
		    in_a_root(p, it->t.final))
			tc_warn("%s '%s' lies in a served directory: no call "
			    "may read it, but keep it outside every served "
			    "directory", it->kind, it->path);
		if ((it->log ? protect_log(&c, it) :
		    protect(&c, it)) != 0) {
			if (errno == ENAMETOOLONG)
				problem(&c, "%s '%s': its path is too long to "
				    "protect", it->kind, it->path);
			else
				c.nomem = 1;
		}
	}
	check_kernel_fs(&c);
	if (c.nomem)
		problem(&c, "out of memory");
	sort_ids(p);
	for (i = 0; i < c.nitems; i++) {
		trace_release(&c.items[i].t);
		free(c.items[i].path);
	}
	free(c.items);
	return c.problems;
}

int
tc_own_refresh(struct tc_policy *p)
{
	struct trace t;
	char dir[PATH_MAX];
	const char *base;
	int rc;

	if (p->audit_file == NULL || trace_path(p->audit_file, &t) != 0)
		return 0;
	base = split(t.final, dir);
	rc = add_log_ids(p, dir, base) != 0 ? TC_ENOMEM : 0;
	trace_release(&t);
	sort_ids(p);
	return rc;
}

const struct tc_deny *
tc_own_stat(const struct tc_policy *p, const struct stat *st)
{
	size_t i;

	for (i = first_ino(p, st->st_ino); i < p->nown &&
	    p->own[i].ino == st->st_ino; i++)
		if (p->own[i].dev == st->st_dev)
			return &p->own[i].rule;
	return NULL;
}

int
tc_own_fd(const struct tc_policy *p, int fd, const struct tc_deny **rule)
{
	struct stat st;

	*rule = NULL;
	if (p->nown == 0)
		return 0;
	if (fstat(fd, &st) != 0)
		return -1;
	*rule = tc_own_stat(p, &st);
	return 0;
}

int
tc_own_fstype_exact(unsigned long type)
{
	/* overlayfs: a directory's d_ino is its layer's inode when the
	 * layers are on several filesystems without xino; FUSE: d_ino is
	 * whatever the daemon says. */
	return type != OVERLAYFS_MAGIC && type != FUSE_MAGIC;
}

int
tc_own_dir_exact(int dirfd)
{
	struct statfs sf;

	if (fstatfs(dirfd, &sf) != 0)
		return 0;		/* cannot be told: stat each entry */
	return tc_own_fstype_exact((unsigned long)sf.f_type);
}

const struct tc_deny *
tc_own_entry(const struct tc_policy *p, int dirfd, const char *name,
    ino_t ino)
{
	struct stat st;
	size_t i = 0;

	if (ino != 0 &&
	    ((i = first_ino(p, ino)) == p->nown || p->own[i].ino != ino))
		return NULL;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return tc_own_stat(p, &st);
	/* An own file's inode, gone or hidden: out.  Without one (|ino|
	 * 0), an entry gone is no own file; one hidden may be. */
	if (p->nown == 0 || (ino == 0 && errno == ENOENT))
		return NULL;
	return &p->own[i].rule;
}
