/*
 * pids.c: each call's pids cgroup (see pids.h): where the server may
 * make them, found once at start; the server's directory among them;
 * a child without a keeper placed in a call's own, a keeper's steps into
 * and out of it, and the cgroup kept or removed once the call is over.
 * It calls nothing else of the sandbox.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/proc.h"
#include "sandbox/pids.h"

/* What tc_pids_open() made, for tc_pids_current(). */
static const struct tc_pids *opened;

/*
 * The server that the probe moved into a leaf, and its directory, as
 * tc_pids_close() would undo them, for an exit() that skips
 * tc_pids_close() (tc_fatal(): a start refused once the sandbox is
 * prepared).  Copies, not a pointer to the caller's struct, which an
 * exit after main() has returned would outlive.
 */
static struct {
	pid_t	moved;		/* 0: nothing to undo */
	char	base[PATH_MAX];
	char	controller[16];
	char	dir[PATH_MAX];
} at_exit;

static void	keep_for_exit(const struct tc_pids *);

/* Returns 1 if the list |list| (|n| bytes, words separated by |sep|)
 * holds |word|. */
static int
has_word(const char *list, size_t n, char sep, const char *word)
{
	size_t w = strlen(word), k;

	while (n > 0) {
		for (k = 0; k < n && list[k] != sep; k++)
			;
		if (k == w && memcmp(list, word, w) == 0)
			return 1;
		list += k < n ? k + 1 : k;
		n -= k < n ? k + 1 : k;
	}
	return 0;
}

/*
 * Finds in /proc/self/cgroup's text the path of our cgroup in the
 * hierarchy of |kind|: "0::PATH" for v2, "ID:...,pids,...:PATH" for v1.
 * Sets *|path| and *|plen| to it.  Returns 1 if found.
 */
static int
own_path(const char *text, enum tc_pids_kind kind, const char **path,
    size_t *plen)
{
	const char *line, *eol, *c1, *c2;

	for (line = text; *line != '\0'; line = *eol ? eol + 1 : eol) {
		eol = line + strcspn(line, "\n");
		if ((c1 = memchr(line, ':', (size_t)(eol - line))) == NULL ||
		    (c2 = memchr(c1 + 1, ':', (size_t)(eol - c1 - 1))) == NULL)
			continue;
		if (kind == TC_PIDS_V2 ? (c1 - line == 1 && line[0] == '0' &&
		    c2 == c1 + 1) : has_word(c1 + 1, (size_t)(c2 - c1 - 1),
		    ',', "pids")) {
			*path = c2 + 1;
			*plen = (size_t)(eol - c2 - 1);
			/* A process outside its cgroup namespace's root
			 * sees paths from "/..", which no mount of ours
			 * shows. */
			return *plen > 0 && **path == '/' &&
			    !has_word(*path, *plen, '/', "..");
		}
	}
	return 0;
}

/*
 * Finds in /proc/self/mountinfo's text a mount of the hierarchy of |kind|
 * ("ID PARENT M:N ROOT POINT OPTS [TAGS] - FSTYPE SOURCE SUPEROPTS"):
 * sets *|root| and *|point| (with their lengths).  A path with an escape
 * (a blank or a backslash in it) is not taken.  Returns 1 if found.
 */
static int
mount_of(const char *text, enum tc_pids_kind kind, const char **root,
    size_t *rlen, const char **point, size_t *plen)
{
	const char *line, *eol, *f[5], *dash, *fs, *super;
	size_t n, i;

	for (line = text; *line != '\0'; line = *eol ? eol + 1 : eol) {
		eol = line + strcspn(line, "\n");
		f[0] = line;
		for (i = 1; i < 5; i++) {
			f[i] = memchr(f[i - 1], ' ', (size_t)(eol - f[i - 1]));
			if (f[i] == NULL)
				break;
			f[i]++;
		}
		if (i < 5 || (dash = strstr(f[4], " - ")) == NULL ||
		    dash > eol)
			continue;
		fs = dash + 3;
		n = strcspn(fs, " \n");
		if (kind == TC_PIDS_V2 ? !(n == 7 && memcmp(fs, "cgroup2",
		    7) == 0) : !(n == 6 && memcmp(fs, "cgroup", 6) == 0))
			continue;
		if (kind == TC_PIDS_V1) {
			/* The source, then the super options. */
			if ((super = memchr(fs + n + 1, ' ',
			    (size_t)(eol - fs - n - 1))) == NULL ||
			    !has_word(super + 1, (size_t)(eol - super - 1), ',',
			    "pids"))
				continue;
		}
		*root = f[3];
		*rlen = (size_t)(f[4] - f[3] - 1);
		*point = f[4];
		*plen = strcspn(f[4], " \n");
		if (memchr(*root, '\\', *rlen) != NULL ||
		    memchr(*point, '\\', *plen) != NULL)
			continue;
		return 1;
	}
	return 0;
}

int
tc_pids_find(const char *cgroup, const char *mountinfo,
    enum tc_pids_kind kind, char *out, size_t len)
{
	const char *path, *root, *point;
	size_t n, rlen, plen;
	int w;

	if (len > 0)
		out[0] = '\0';
	if (kind == TC_PIDS_NONE || !own_path(cgroup, kind, &path, &n) ||
	    !mount_of(mountinfo, kind, &root, &rlen, &point, &plen))
		return 0;
	/* Both paths are seen from our cgroup namespace: the mount shows
	 * the part of the hierarchy below its root. */
	if (rlen > 1) {
		if (n < rlen || memcmp(path, root, rlen) != 0 ||
		    (n > rlen && path[rlen] != '/'))
			return 0;
		path += rlen;
		n -= rlen;
	} else if (rlen != 1 || root[0] != '/')
		return 0;
	/* "/" alone adds nothing to the mount point. */
	if (n == 1)
		n = 0;
	w = snprintf(out, len, "%.*s%.*s", (int)plen, point, (int)n, path);
	if (w < 0 || (size_t)w >= len) {
		if (len > 0)
			out[0] = '\0';
		return 0;
	}
	return 1;
}

/* Reads |dir|/|name| into |buf|.  Returns |buf|, or NULL if it cannot
 * (no such file). */
static const char *
read_at(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX + 32];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path) || tc_read_small(path, buf, len) < 0)
		return NULL;
	return buf;
}

/* Writes |text| to |dir|/|name| in one write.  Returns 0 or -1. */
static int
write_at(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 32];
	size_t n = strlen(text);
	ssize_t w;
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	w = write(fd, text, n);
	err = errno;
	close(fd);
	if (w != (ssize_t)n) {
		errno = w < 0 ? err : EIO;
		return -1;
	}
	return 0;
}

/* Returns 1 if the server may make cgroups in |home| and move into and
 * out of it, as its effective ids. */
static int
writable(const char *home)
{
	char procs[PATH_MAX + 32];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", home);
	return eaccess(home, W_OK | X_OK) == 0 && eaccess(procs, W_OK) == 0;
}

/* Returns 1 if the first line of |text| (NULL: none), words separated by
 * blanks, holds |word|. */
static int
listed(const char *text, const char *word)
{
	return text != NULL && has_word(text, strcspn(text, "\n"), ' ', word);
}

/*
 * Returns 1 if every line of |list| (NULL: unread) is the id of a process
 * or thread that |ours| calls the server's own; else 0, with the first
 * that is not in *|other| (0: one of another PID namespace; -1: a line
 * that is no id).
 */
static int
all_ours(const char *list, tc_pids_ours_fn *ours, void *ctx, long *other)
{
	const char *c = list;
	char *end;
	long id;

	*other = -1;
	if (list == NULL)
		return 0;
	while (*c != '\0') {
		if (*c == '\n') {
			c++;
			continue;
		}
		if (!isdigit((unsigned char)*c))
			return 0;
		errno = 0;
		id = strtol(c, &end, 10);
		if (errno != 0 || (*end != '\n' && *end != '\0'))
			return 0;
		if (id <= 0 || !ours(id, ctx)) {
			*other = id;
			return 0;
		}
		c = end;
	}
	return 1;
}

/* Writes to |why| that |list|'s process or thread |other| is not ours. */
static void
not_ours(char *why, size_t len, const char *what, long other)
{
	if (other > 0)
		snprintf(why, len, "it holds other %s (%s %ld), not this "
		    "server's own", what, what[0] == 'p' ? "pid" : "tid",
		    other);
	else if (other == 0)
		snprintf(why, len, "it holds other %s, of another PID "
		    "namespace", what);
	else
		snprintf(why, len, "its %s could not be read in full", what);
}

/* Returns 1 if cgroup name |name| is a systemd service's or scope's. */
static int
unit_name(const char *name)
{
	size_t n = name != NULL ? strlen(name) : 0;

	return (n > 8 && strcmp(name + n - 8, ".service") == 0) ||
	    (n > 6 && strcmp(name + n - 6, ".scope") == 0);
}

enum tc_pids_way
tc_pids_way(const struct tc_cgroup_view *v, const char *controller,
    tc_pids_ours_fn *ours, void *ctx, char *why, size_t len)
{
	size_t n;
	long other;

	if (len > 0)
		why[0] = '\0';
	/* Only a plain "domain" cgroup: a threaded one, or the root of
	 * threaded ones, holds threads whose processes' other threads may
	 * be elsewhere, and a "domain invalid" one takes no process. */
	if (v->type != NULL && (strcspn(v->type, "\n") != 6 ||
	    strncmp(v->type, "domain", 6) != 0)) {
		n = strcspn(v->type, "\n");
		snprintf(why, len, "it is a cgroup of type '%.*s', not "
		    "'domain'", (int)(n < 32 ? n : 32), v->type);
		return TC_PIDS_WAY_NONE;
	}
	if (listed(v->subtree, controller)) {
		if (v->writable)
			return TC_PIDS_WAY_HERE;
		snprintf(why, len, "this server may not make cgroups in it");
		return TC_PIDS_WAY_NONE;
	}
	if (!listed(v->controllers, controller)) {
		snprintf(why, len, "%s is not among its controllers "
		    "(cgroup.controllers)", controller);
		return TC_PIDS_WAY_NONE;
	}
	/* A second server, started from a process in a server's leaf:
	 * its parent gives the leaf the controller, so it gives ours; but
	 * a name is no proof, so the parent must pass the test a server
	 * moving there would: no systemd unit's left unmarked. */
	if (v->name != NULL && strcmp(v->name, TC_PIDS_LEAF) == 0) {
		if (unit_name(v->parent_name) && !v->parent_marked) {
			snprintf(why, len, "it is a leaf '%s' of a systemd "
			    "unit's cgroup not marked delegated", TC_PIDS_LEAF);
			return TC_PIDS_WAY_NONE;
		}
		if (v->parent_writable)
			return TC_PIDS_WAY_BESIDE;
		snprintf(why, len, "this server may not make cgroups beside "
		    "its leaf '%s'", TC_PIDS_LEAF);
		return TC_PIDS_WAY_NONE;
	}
	/* The root cgroup is the machine's, never delegated. */
	if (v->type == NULL) {
		snprintf(why, len, "it is the root cgroup, whose "
		    "cgroup.subtree_control does not enable %s", controller);
		return TC_PIDS_WAY_NONE;
	}
	/* Root may write every cgroup: a systemd unit's is delegated only
	 * where systemd says so (Delegate=yes sets the mark). */
	if (unit_name(v->name) && !v->marked) {
		snprintf(why, len, "it is a systemd unit's cgroup not "
		    "marked delegated (no trusted.delegate or user.delegate: "
		    "no Delegate=yes, or a user manager's unit, which it never "
		    "marks)");
		return TC_PIDS_WAY_NONE;
	}
	if (!v->writable || !v->subtree_writable) {
		snprintf(why, len, "it was not delegated to this server (it "
		    "may not make cgroups in it, or write its cgroup.procs "
		    "and cgroup.subtree_control)");
		return TC_PIDS_WAY_NONE;
	}
	if (!all_ours(v->procs, ours, ctx, &other)) {
		not_ours(why, len, "processes", other);
		return TC_PIDS_WAY_NONE;
	}
	if (!all_ours(v->threads, ours, ctx, &other)) {
		not_ours(why, len, "threads", other);
		return TC_PIDS_WAY_NONE;
	}
	return TC_PIDS_WAY_MOVE;
}

/* Returns the value of field |name| ("\nPPid:") of /proc/ID/status text
 * |status|, or -1. */
static long
status_field(const char *status, const char *name)
{
	const char *f = strstr(status, name);
	char *end;
	long v;

	if (f == NULL)
		return -1;
	errno = 0;
	v = strtol(f + strlen(name), &end, 10);
	return errno != 0 || end == f + strlen(name) ? -1 : v;
}

int
tc_pids_own(long id, void *ctx)
{
	char path[64], status[1024];
	long me = (long)getpid();

	(void)ctx;
	if (id == me)
		return 1;
	/* Only where /proc/ID is the id that cgroup.procs shows us. */
	if (id <= 0 || !tc_proc_is_ours())
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/status", id);
	if (tc_read_small(path, status, sizeof(status)) < 0)
		return 0;
	/* One of our threads, a child of ours, or a child's thread (a
	 * thread's parent is its process's). */
	return status_field(status, "\nTgid:") == me ||
	    status_field(status, "\nPPid:") == me;
}

/* Moves process |id| (0: the caller) into cgroup |dir|.  Returns 0 or
 * -1. */
static int
move_to(const char *dir, long id)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", id);
	return write_at(dir, "cgroup.procs", text);
}

/* Enables (|on|) or disables |controller| for cgroup |cg|'s children.
 * Returns 0 or -1. */
static int
enable(const char *cg, const char *controller, int on)
{
	char text[64];

	if (snprintf(text, sizeof(text), "%c%s", on ? '+' : '-',
	    controller) >= (int)sizeof(text)) {
		errno = EINVAL;
		return -1;
	}
	return write_at(cg, "cgroup.subtree_control", text);
}

/* Reads cgroup |dir|'s cgroup.procs into |list| (TC_PIDS_LIST_MAX
 * bytes).  Returns 0, or -1 if it cannot be read in full (EFBIG: it
 * fills that room). */
static int
read_procs(const char *dir, char *list)
{
	if (read_at(dir, "cgroup.procs", list, TC_PIDS_LIST_MAX) == NULL)
		return -1;
	if (strlen(list) == TC_PIDS_LIST_MAX - 1) {
		errno = EFBIG;
		return -1;
	}
	return 0;
}

/*
 * Moves to |to| each process of |from| (by their cgroup.procs) that
 * |ours| calls the server's own, the caller first.  Stops at the first
 * that will not move (*|bad| its pid; errno set), or at a list not read
 * in full or with a line that is no pid, and returns -1; 0 once all
 * moved.
 */
static int
move_ours(const char *from, const char *to, tc_pids_ours_fn *ours,
    void *ctx, long *bad)
{
	char list[TC_PIDS_LIST_MAX], *c, *end;
	long id, me = (long)getpid();

	*bad = me;
	if (move_to(to, 0) != 0 && errno != ESRCH)
		return -1;
	if (read_procs(from, list) != 0)
		return -1;
	for (c = list; *c != '\0'; c = *end != '\0' ? end + 1 : end) {
		errno = 0;
		id = strtol(c, &end, 10);
		if (end == c || errno != 0 || (*end != '\n' && *end != '\0')) {
			errno = EINVAL;
			return -1;
		}
		if (id <= 0 || id == me || !ours(id, ctx))
			continue;
		*bad = id;
		/* A child that exited since: nothing to move. */
		if (move_to(to, id) != 0 && errno != ESRCH)
			return -1;
	}
	return 0;
}

/*
 * Returns 1 if cgroup |dir|'s cgroup.procs, read in full, lists only
 * processes |ours| calls the server's own; else 0, with the first that is
 * not in *|bad| (-1: the list could not be read in full).
 */
static int
only_ours(const char *dir, tc_pids_ours_fn *ours, void *ctx, long *bad)
{
	char list[TC_PIDS_LIST_MAX];

	*bad = -1;
	return read_procs(dir, list) == 0 && all_ours(list, ours, ctx, bad);
}

/* The path of |cg|'s leaf into |out|.  Returns 0 or -1 (too long). */
static int
leaf_of(const char *cg, char *out, size_t len)
{
	if (snprintf(out, len, "%s/%s", cg, TC_PIDS_LEAF) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
tc_pids_delegate(const char *cg, const char *controller,
    tc_pids_ours_fn *ours, void *ctx, struct tc_diag *d)
{
	char leaf[PATH_MAX + 32], what[64];
	long bad;
	int made;

	if (leaf_of(cg, leaf, sizeof(leaf)) != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot make a leaf in '%s'",
		    cg);
	if (mkdir(leaf, 0755) == 0)
		made = 1;
	else if (errno == EEXIST)
		made = 0;
	else
		return tc_diag_errno(d, TC_ESYS, "cannot make the leaf '%s'",
		    leaf);
	/* One of that name already there (left by a server killed, or made
	 * by another) is taken only if it holds nothing but our own: the
	 * leaf is shared with no one. */
	if (!made && !only_ours(leaf, ours, ctx, &bad)) {
		not_ours(what, sizeof(what), "processes", bad);
		return tc_diag(d, TC_ESYS, "the leaf '%s' is already there: %s",
		    leaf, what);
	}
	if (move_ours(cg, leaf, ours, ctx, &bad) != 0) {
		(void)tc_diag_errno(d, TC_ESYS, "cannot move pid %ld into "
		    "'%s'", bad, leaf);
		goto undo;
	}
	/* The kernel's own check that no process is left in |cg|: one
	 * that appeared since we read its list fails this (EBUSY). */
	if (enable(cg, controller, 1) != 0) {
		(void)tc_diag_errno(d, TC_ESYS, "cannot enable the %s "
		    "controller in '%s'", controller, cg);
		goto undo;
	}
	return 0;
undo:
	(void)move_ours(leaf, cg, ours, ctx, &bad);
	if (made)
		(void)rmdir(leaf);
	return TC_ESYS;
}

int
tc_pids_undelegate(const char *cg, const char *controller,
    tc_pids_ours_fn *ours, void *ctx, struct tc_diag *d)
{
	char leaf[PATH_MAX + 32], what[64];
	long bad;

	if (leaf_of(cg, leaf, sizeof(leaf)) != 0)
		return tc_diag_errno(d, TC_ESYS, "no leaf in '%s'", cg);
	if (!only_ours(leaf, ours, ctx, &bad)) {
		not_ours(what, sizeof(what), "processes", bad);
		return tc_diag(d, TC_ESYS, "'%s' is left as it is: %s", leaf,
		    what);
	}
	/* No process may be in |cg| while it gives its children a
	 * controller: first the controller, then the moves.  Refused
	 * while a cgroup below still uses it (another server's). */
	if (enable(cg, controller, 0) != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot disable the %s "
		    "controller in '%s': left as it is", controller, cg);
	if (move_ours(leaf, cg, ours, ctx, &bad) != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot move pid %ld back "
		    "to '%s'", bad, cg);
	if (rmdir(leaf) != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot remove '%s'", leaf);
	return 0;
}

/* Returns 1 if the server may write |dir|/|name|. */
static int
may_write(const char *dir, const char *name)
{
	char path[PATH_MAX + 32];

	return snprintf(path, sizeof(path), "%s/%s", dir, name) <
	    (int)sizeof(path) && eaccess(path, W_OK) == 0;
}

/* Returns 1 if directory |dir|'s extended attribute |name| is "1" (a
 * trusted.* one reads as absent to a process without CAP_SYS_ADMIN). */
static int
marked(const char *dir, const char *name)
{
	char value[8];

	return getxattr(dir, name, value, sizeof(value)) == 1 &&
	    value[0] == '1';
}

int
tc_pids_read(const char *dir, struct tc_cgroup_text *t,
    struct tc_cgroup_view *v)
{
	struct stat st, pst;
	const char *slash;

	memset(v, 0, sizeof(*v));
	if ((slash = strrchr(dir, '/')) == NULL ||
	    (size_t)(slash - dir) >= sizeof(t->parent))
		return -1;
	v->name = slash + 1;
	v->type = read_at(dir, "cgroup.type", t->type, sizeof(t->type));
	if ((v->controllers = read_at(dir, "cgroup.controllers",
	    t->controllers, sizeof(t->controllers))) == NULL ||
	    (v->subtree = read_at(dir, "cgroup.subtree_control", t->subtree,
	    sizeof(t->subtree))) == NULL)
		return -1;
	/* The root cgroup's lists are the machine's: never moved. */
	if (v->type != NULL) {
		v->procs = read_at(dir, "cgroup.procs", t->procs,
		    sizeof(t->procs));
		v->threads = read_at(dir, "cgroup.threads", t->threads,
		    sizeof(t->threads));
		/* A list that fills the room may go on: unread. */
		if (v->procs != NULL &&
		    strlen(v->procs) == sizeof(t->procs) - 1)
			v->procs = NULL;
		if (v->threads != NULL &&
		    strlen(v->threads) == sizeof(t->threads) - 1)
			v->threads = NULL;
	}
	v->writable = writable(dir);
	v->subtree_writable = may_write(dir, "cgroup.subtree_control");
	/* Its parent, if it is a cgroup of the same mount. */
	memcpy(t->parent, dir, (size_t)(slash - dir));
	t->parent[slash - dir] = '\0';
	v->parent_writable = slash > dir && stat(dir, &st) == 0 &&
	    stat(t->parent, &pst) == 0 && st.st_dev == pst.st_dev &&
	    writable(t->parent);
	v->marked = marked(dir, "trusted.delegate") ||
	    marked(dir, "user.delegate");
	if (slash > dir) {
		v->parent_name = strrchr(t->parent, '/') != NULL ?
		    strrchr(t->parent, '/') + 1 : t->parent;
		v->parent_marked = marked(t->parent, "trusted.delegate") ||
		    marked(t->parent, "user.delegate");
	}
	return 0;
}

/*
 * On cgroup v2, with p->home the server's cgroup: decides and takes the
 * way pids.h's header gives (tc_pids_way()), moving the server where
 * delegated.  Returns 1 with p->base set (and p->home and p->moved
 * where it moved, p->note where it took a leaf), or 0 with p->note set
 * where the cgroup offered pids.
 */
static int
v2(struct tc_pids *p)
{
	char leaf[PATH_MAX + 32], why[256];
	struct tc_diag d = { "", 0 };
	struct tc_cgroup_text *t;
	struct tc_cgroup_view v;
	enum tc_pids_way way;
	int offered, rc = 0;

	if ((t = malloc(sizeof(*t))) == NULL)
		return 0;
	if (tc_pids_read(p->home, t, &v) != 0) {
		free(t);
		return 0;
	}
	way = tc_pids_way(&v, p->controller, tc_pids_own, NULL, why,
	    sizeof(why));
	offered = listed(v.controllers, p->controller) ||
	    listed(v.subtree, p->controller);
	switch (way) {
	case TC_PIDS_WAY_HERE:
		snprintf(p->base, sizeof(p->base), "%s", p->home);
		rc = 1;
		break;
	case TC_PIDS_WAY_BESIDE:
		snprintf(p->base, sizeof(p->base), "%s", t->parent);
		snprintf(p->note, sizeof(p->note), "this server started in "
		    "the leaf '%s' of the cgroup v2 '%s', delegated to "
		    "another: the calls' pids cgroups go beside it",
		    TC_PIDS_LEAF, p->base);
		rc = 1;
		break;
	case TC_PIDS_WAY_MOVE:
		if (leaf_of(p->home, leaf, sizeof(p->home)) != 0) {
			snprintf(why, sizeof(why), "its path is too long");
			break;
		}
		if (tc_pids_delegate(p->home, p->controller, tc_pids_own, NULL,
		    &d) != 0) {
			snprintf(why, sizeof(why), "%s", d.msg);
			break;
		}
		snprintf(p->base, sizeof(p->base), "%s", p->home);
		memcpy(p->home, leaf, strlen(leaf) + 1);
		p->moved = getpid();
		keep_for_exit(p);
		snprintf(p->note, sizeof(p->note), "the cgroup v2 '%s' is "
		    "delegated to this server: it moved into its leaf '%s', "
		    "and the calls' pids cgroups go beside it", p->base,
		    TC_PIDS_LEAF);
		rc = 1;
		break;
	case TC_PIDS_WAY_NONE:
		break;
	}
	free(t);
	/* Said only where pids was offered: elsewhere v2 is simply not
	 * where this machine's pids controller is. */
	if (rc == 0 && offered)
		snprintf(p->note, sizeof(p->note), "the cgroup v2 '%s' is not "
		    "used for the calls' pids cgroups: %s", p->home, why);
	return rc;
}

int
tc_pids_probe(struct tc_pids *p)
{
	return tc_pids_probe_controller(p, "pids");
}

int
tc_pids_probe_controller(struct tc_pids *p, const char *controller)
{
	static const enum tc_pids_kind order[] = { TC_PIDS_V2, TC_PIDS_V1 };
	char *cg, *mi;
	size_t i;

	memset(p, 0, sizeof(*p));
	if (snprintf(p->controller, sizeof(p->controller), "%s",
	    controller) >= (int)sizeof(p->controller))
		return 0;
	cg = malloc(8192);
	mi = malloc(65536);
	if (cg == NULL || mi == NULL ||
	    tc_read_small("/proc/self/cgroup", cg, 8192) < 0 ||
	    tc_read_small("/proc/self/mountinfo", mi, 65536) < 0) {
		free(cg);
		free(mi);
		return 0;
	}
	for (i = 0; i < TC_NITEMS(order); i++) {
		/* v1's is found by the name pids; another controller (the
		 * tests') is looked for on v2 alone. */
		if (order[i] == TC_PIDS_V1 && strcmp(controller, "pids") != 0)
			continue;
		if (!tc_pids_find(cg, mi, order[i], p->home, sizeof(p->home)))
			continue;
		if (order[i] == TC_PIDS_V2 ? !v2(p) : !writable(p->home))
			continue;
		if (order[i] == TC_PIDS_V1)
			snprintf(p->base, sizeof(p->base), "%s", p->home);
		p->kind = order[i];
		break;
	}
	free(cg);
	free(mi);
	if (p->kind == TC_PIDS_NONE)
		p->home[0] = p->base[0] = '\0';
	/* What holds instead, where v2 said why not. */
	if (p->note[0] != '\0' && p->kind == TC_PIDS_V1) {
		i = strlen(p->note);
		snprintf(p->note + i, sizeof(p->note) - i, "; they are made "
		    "in the cgroup v1 '%s'", p->home);
	} else if (p->note[0] != '\0' && p->kind == TC_PIDS_NONE) {
		i = strlen(p->note);
		snprintf(p->note + i, sizeof(p->note) - i, "; none is made");
	}
	return p->kind != TC_PIDS_NONE;
}

/* Removes |dir|'s calls' cgroups and spares (the names that start with
 * a digit; those whose processes are gone: the others stay, busy), then
 * |dir| itself if it is empty by then. */
static void
remove_dir(const char *dir)
{
	char sub[PATH_MAX + 32];
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s", dir,
			    de->d_name) < (int)sizeof(sub))
				(void)rmdir(sub);
		}
		closedir(d);
	}
	(void)rmdir(dir);
}

/* Parses a server's directory name "toolcell-NS-PID-START" into |w|.
 * Returns 1 if it is one. */
static int
parse_name(const char *name, struct tc_proc_id *w)
{
	return strncmp(name, "toolcell-", 9) == 0 &&
	    tc_proc_id_parse(name + 9, '\0', w) != NULL;
}

/*
 * Removes the directories that servers of our PID namespace killed
 * before their end (SIGKILL) left in |home|: those named for a pid that
 * no process has now, or (where /proc shows our namespace) that a
 * process started later has.  A live server's is left alone, however
 * empty, and so is every directory of another namespace, whose pids mean
 * nothing here.  |me| is the calling server.
 */
static void
sweep(const char *home, const struct tc_proc_id *me)
{
	char dir[PATH_MAX + 32];
	struct tc_proc_id w;
	struct dirent *de;
	DIR *d;

	if ((d = opendir(home)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!parse_name(de->d_name, &w) || !tc_proc_gone(&w, me))
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", home, de->d_name) <
		    (int)sizeof(dir))
			remove_dir(dir);
	}
	closedir(d);
}

/* In the server the probe moved into its leaf: moves it back, as far as
 * it can (pids.h).  Returns TC_ESYS, for tc_pids_open()'s failures. */
static int
unmove(struct tc_pids *p)
{
	struct tc_diag d = { "", 0 };

	if (p->moved != 0 && p->moved == getpid()) {
		(void)tc_pids_undelegate(p->base, p->controller, tc_pids_own,
		    NULL, &d);
		at_exit.moved = 0;
	}
	p->moved = 0;
	return TC_ESYS;
}

/* At exit(), in a server still in its leaf (no tc_pids_close()): what
 * tc_pids_close() does, from the copies.  Nothing in a forked process. */
static void
undo_at_exit(void)
{
	struct tc_diag d = { "", 0 };

	if (at_exit.moved == 0 || at_exit.moved != getpid())
		return;
	at_exit.moved = 0;
	if (at_exit.dir[0] != '\0')
		remove_dir(at_exit.dir);
	(void)tc_pids_undelegate(at_exit.base, at_exit.controller,
	    tc_pids_own, NULL, &d);
}

/* Keeps what undo_at_exit() needs of |p|, which just moved. */
static void
keep_for_exit(const struct tc_pids *p)
{
	static int registered;

	if (!registered && atexit(undo_at_exit) == 0)
		registered = 1;
	snprintf(at_exit.base, sizeof(at_exit.base), "%s", p->base);
	snprintf(at_exit.controller, sizeof(at_exit.controller), "%s",
	    p->controller);
	at_exit.dir[0] = '\0';
	at_exit.moved = p->moved;
}

int
tc_pids_open(struct tc_pids *p, unsigned long nproc, struct tc_diag *d)
{
	struct tc_proc_id me;
	int rc;

	if (p->kind == TC_PIDS_NONE)
		return 0;
	if (tc_proc_me(&me) != 0) {
		(void)tc_diag_errno(d, TC_ESYS, "cannot tell this server's "
		    "PID namespace and start time from /proc/self");
		return unmove(p);
	}
	if (snprintf(p->dir, sizeof(p->dir), "%s/toolcell-" TC_PROC_ID_FMT,
	    p->base, me.ns, me.pid, me.start) >= (int)sizeof(p->dir)) {
		p->dir[0] = '\0';
		errno = ENAMETOOLONG;
		(void)tc_diag_errno(d, TC_ESYS, "cannot make the calls' pids "
		    "cgroup in '%s'", p->base);
		return unmove(p);
	}
	sweep(p->base, &me);
	/* One of that name is no one's now (this server made none yet):
	 * its calls' cgroups go with it, and a fresh one is made. */
	rc = mkdir(p->dir, 0755);
	if (rc != 0 && errno == EEXIST) {
		remove_dir(p->dir);
		rc = mkdir(p->dir, 0755);
	}
	if (rc != 0) {
		(void)tc_diag_errno(d, TC_ESYS, "cannot make the calls' pids "
		    "cgroup '%s'", p->dir);
		p->dir[0] = '\0';
		return unmove(p);
	}
	/* On v2 the calls' cgroups have pids.max only if their parent gives
	 * them the controller. */
	if (p->kind == TC_PIDS_V2 &&
	    enable(p->dir, p->controller, 1) != 0) {
		(void)tc_diag_errno(d, TC_ESYS, "cannot enable the pids "
		    "controller in '%s'", p->dir);
		(void)rmdir(p->dir);
		p->dir[0] = '\0';
		return unmove(p);
	}
	p->max = tc_pids_max(nproc, p->kept);
	p->owner = getpid();
	opened = p;
	if (p->moved != 0 && p->moved == at_exit.moved)
		snprintf(at_exit.dir, sizeof(at_exit.dir), "%s", p->dir);
	return 0;
}

void
tc_pids_close(struct tc_pids *p)
{
	if (opened == p)
		opened = NULL;
	/* Only the server that made it removes it (a process forked from
	 * it that releases its copy of the sandbox does not). */
	if (p->dir[0] != '\0' && p->owner == getpid()) {
		if (p->moved != 0 && p->moved == at_exit.moved)
			at_exit.dir[0] = '\0';
		/* The spares, and a call's cgroup left by a keeper killed
		 * before it could remove it, or one the server could not
		 * remove as it reaped the call's child; the processes in it
		 * are dead by now, or the rmdir fails (EBUSY) and it stays. */
		remove_dir(p->dir);
	}
	p->dir[0] = '\0';
	/* Then out of the leaf, as far as the server can: its directory
	 * is gone, or it is left as it is (pids.h). */
	(void)unmove(p);
}

const struct tc_pids *
tc_pids_current(void)
{
	return opened;
}

/* The call's cgroup named by pid |keeper| (the call's keeper, or its
 * child where it has none), into |out|.  Returns 0 or -1. */
static int
call_dir(const struct tc_pids *p, pid_t keeper, char *out, size_t len)
{
	if (snprintf(out, len, "%s/%ld", p->dir, (long)keeper) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Makes the call's cgroup |dir| in the server's directory, or finds it
 * made.  A server's directory removed from under it (by hand, or by
 * another program's clean-up) is made again, so that its calls go on
 * with their limit instead of failing from then on.  Returns 0 or -1.
 */
static int
make_call_dir(const struct tc_pids *p, const char *dir)
{
	if (mkdir(dir, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	if (mkdir(p->dir, 0755) != 0 && errno != EEXIST)
		return -1;
	if (p->kind == TC_PIDS_V2 &&
	    enable(p->dir, p->controller, 1) != 0)
		return -1;
	return mkdir(dir, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/*
 * On cgroup v1, the calls' cgroups proven empty as their keepers left
 * them or as the server reaped their children, kept in the server's
 * directory for the next calls to take (rename, not mkdir and rmdir:
 * pids.h), under the names "0-0" to "0-3": a few, for the ready
 * children made while others end.  No pid is written so, and
 * remove_dir() takes them as it takes the calls' cgroups.
 */
#define SPARE_MAX	4

/* Spare |i| of |p|'s directory, into |out|.  Returns 0 or -1. */
static int
spare_dir(const struct tc_pids *p, unsigned i, char *out, size_t len)
{
	if (snprintf(out, len, "%s/0-%u", p->dir, i) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Moves a call's cgroup |dir| to the first free spare name (|give|), or
 * the first spare there is to |dir| (a keeper, or the process that
 * places a child, taking one).  Each rename is atomic: of those trying
 * at once, one has it; kernfs renames onto no existing name (EEXIST:
 * that spare name is taken, or, taking, the server made |dir| first,
 * which is then used).  Returns 0 if moved, else -1.
 */
static int
move_spare(const struct tc_pids *p, const char *dir, int give)
{
	char spare[PATH_MAX + 32];
	unsigned i;

	for (i = 0; i < SPARE_MAX; i++) {
		if (spare_dir(p, i, spare, sizeof(spare)) != 0)
			return -1;
		if (rename(give ? dir : spare, give ? spare : dir) == 0)
			return 0;
		if (errno != (give ? EEXIST : ENOENT))
			return -1;
	}
	return -1;
}

/* How many processes cgroup |dir|'s pids.current counts (every one
 * charged to it until it is reaped, zombies too), or -1 if that cannot
 * be read. */
static long
charged(const char *dir)
{
	char now[32], *end;
	long n;

	if (read_at(dir, "pids.current", now, sizeof(now)) == NULL)
		return -1;
	n = strtol(now, &end, 10);
	return end != now && *end == '\n' && n >= 0 ? n : -1;
}

/*
 * Takes a spare (v1) renamed to the call's cgroup of |pid|, or makes it,
 * and moves |who| ("0": the writer itself; else |pid|) into it.  Its
 * pids.max is the server's to write, never ours.  One of that name
 * already there is taken as it is for a keeper (the server may have made
 * it first: tc_pids_limit()); for a child placed (|placed|), whose
 * cgroup no one makes first, only if it is empty: else it is an earlier
 * holder's of the same pid, busy still (tc_pids_reaped()), and the
 * placing fails (EBUSY) rather than put two calls in one cgroup.
 * Returns 0 or -1 (a cgroup it made or took removed).
 */
static int
enter(const struct tc_pids *p, pid_t pid, const char *who, int placed)
{
	char dir[PATH_MAX + 32];
	int err;

	if (p->dir[0] == '\0')
		return 0;
	if (call_dir(p, pid, dir, sizeof(dir)) != 0)
		return -1;
	if (p->kind != TC_PIDS_V1 || move_spare(p, dir, 0) != 0) {
		if (placed && mkdir(dir, 0755) == 0)
			;	/* made */
		else if (placed && errno == EEXIST) {
			if (charged(dir) != 0) {
				errno = EBUSY;
				return -1;
			}
		} else if (make_call_dir(p, dir) != 0)
			return -1;
	}
	if (write_at(dir, "cgroup.procs", who) != 0) {
		err = errno;
		(void)rmdir(dir);
		errno = err;
		return -1;
	}
	return 0;
}

int
tc_pids_enter(const struct tc_pids *p)
{
	return enter(p, getpid(), "0", 0);
}

int
tc_pids_place(const struct tc_pids *p, pid_t pid)
{
	char text[32];

	if (pid <= 0) {
		errno = ESRCH;
		return -1;
	}
	snprintf(text, sizeof(text), "%ld", (long)pid);
	return enter(p, pid, text, 1);
}

int
tc_pids_limit(const struct tc_pids *p, pid_t pid, unsigned long nproc,
    int keeper)
{
	char dir[PATH_MAX + 32], max[32];

	if (p->dir[0] == '\0')
		return 0;
	if (call_dir(p, pid, dir, sizeof(dir)) != 0)
		return -1;
	snprintf(max, sizeof(max), "%lu", tc_pids_max(nproc, keeper));
	/* Mostly one write: the keeper made its cgroup long ago.  A keeper
	 * not there yet finds it made, and enters it as it is.  A child
	 * without one was placed in its cgroup as it was cloned: where
	 * that is gone, the child is not in it, and the call must not run. */
	if (write_at(dir, "pids.max", max) == 0)
		return 0;
	if (errno != ENOENT || !keeper || make_call_dir(p, dir) != 0)
		return -1;
	return write_at(dir, "pids.max", max);
}

/*
 * Keeps the call's cgroup |dir|, which its keeper just left, or whose
 * head (a child without a keeper, or a keeper) the server has seen end,
 * as a spare, if it is proven empty: its pids.current, which counts every
 * process charged to it until that process is reaped (zombies too), is
 * 0, or, with |zombie|, 1: the head's own zombie, not yet reaped, which
 * the kernel reaps only after every other process of its PID namespace,
 * or its keeper after every process of its tree.  Nothing can come into
 * it after that: only a process in it forks into it, and only root
 * outside the calls moves one in; and its name is a pid that no process
 * can be given while that zombie holds it.  Returns 0 if it is a spare
 * now, else -1 (all are there already, or it is not empty, or that
 * cannot be told).
 */
static int
give_spare(const struct tc_pids *p, const char *dir, int zombie)
{
	long n;

	if (p->kind != TC_PIDS_V1 || ((n = charged(dir)) != 0 &&
	    (!zombie || n != 1)))
		return -1;
	return move_spare(p, dir, 1);
}

void
tc_pids_leave(const struct tc_pids *p)
{
	char dir[PATH_MAX + 32];

	if (p->dir[0] == '\0' || call_dir(p, getpid(), dir, sizeof(dir)) != 0)
		return;
	/* A cgroup with a process in it cannot be removed; if the move
	 * fails, the server removes it at its end.  An empty one is kept
	 * for the next call where it can be. */
	if (write_at(p->home, "cgroup.procs", "0") == 0 &&
	    give_spare(p, dir, 0) != 0)
		(void)rmdir(dir);
}

/* Removes the call's cgroup named by pid |keeper| (its keeper's, or its
 * child's).  Returns 1 if it is gone (or was), 0 if it stays (busy, or
 * any other failure, to be tried again). */
static int
remove_call(const struct tc_pids *p, pid_t keeper)
{
	char dir[PATH_MAX + 32];

	if (call_dir(p, keeper, dir, sizeof(dir)) != 0)
		return 1;	/* no such name: nothing to remove */
	return rmdir(dir) == 0 || errno == ENOENT;
}

void
tc_pids_reaped(struct tc_pids *p, pid_t keeper)
{
	size_t i;

	if (p->dir[0] == '\0' || keeper <= 0 || remove_call(p, keeper))
		return;
	for (i = 0; i < p->nleft; i++)
		if (p->left[i] == keeper)
			return;
	if (p->nleft < TC_PIDS_LEFT_MAX)
		p->left[p->nleft++] = keeper;
}

void
tc_pids_done(struct tc_pids *p, pid_t pid, int alone)
{
	char dir[PATH_MAX + 32];

	if (p->dir[0] == '\0' || pid <= 0 ||
	    call_dir(p, pid, dir, sizeof(dir)) != 0)
		return;
	/* Proven empty but for |pid|'s zombie: a spare for the next
	 * child; else removed (a zombie holds no cgroup), or kept to try
	 * again. */
	if (give_spare(p, dir, alone) != 0)
		tc_pids_reaped(p, pid);
}

void
tc_pids_retry(struct tc_pids *p, pid_t keeper)
{
	size_t i = 0;

	while (i < p->nleft) {
		/* A live keeper's or child's now, or removed: forgotten. */
		if (p->dir[0] == '\0' || p->left[i] == keeper ||
		    remove_call(p, p->left[i]))
			p->left[i] = p->left[--p->nleft];
		else
			i++;
	}
}

const char *
tc_pids_str(const struct tc_pids *p, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (p != NULL && p->kind != TC_PIDS_NONE)
		snprintf(buf, len, "pids cgroup v%d at %s",
		    p->kind == TC_PIDS_V2 ? 2 : 1, p->base);
	return buf;
}
