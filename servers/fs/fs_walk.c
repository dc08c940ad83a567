/*
 * fs_walk.c: one bounded directory walker (fs_walk.h), and two of the tools
 * built on it, directory_tree and search_files; search_file_contents is in
 * fs_grep.c.
 *
 * The walk starts from a directory opened beneath its root by tc_path_open()
 * (openat2 with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, deny rules checked
 * on the path and on what was opened).  Below that it never resolves a path
 * again: each subdirectory is opened by its one-component name from its
 * parent's fd with O_DIRECTORY | O_NOFOLLOW, so a symlink is never followed
 * (into another place or round a loop), and a directory swapped for a
 * symlink fails to open rather than leading elsewhere.  Entries the deny
 * rules refuse are dropped as they are read, before anything else is done
 * with them: they are never named, counted or descended into.  Where each
 * directory really is comes from /proc/self/fd (tc_path_where_under(), with
 * the root's own place read once per walk), as for list_directory, so a
 * directory renamed under a denied name during the walk does not lend its
 * contents the old name.
 *
 * Every walk is bounded: a depth limit, a cap on the entries read from one
 * directory, a time budget checked between entries (and between lines of a
 * file), and each tool's own cap on what it returns.  Entries are visited
 * depth first in byte order of their names, so a walk is deterministic and a
 * later call can page on from an offset.
 *
 * Patterns (search_files' pattern, search_file_contents' include, every
 * excludePatterns item) use glob.h's syntax, matched against the path
 * relative to the directory searched:
 *	- a pattern without a '/' is matched against the name at any depth
 *	  ("*.ts" is taken as "**" "/" "*.ts");
 *	- a pattern with a '/' is matched against the whole relative path
 *	  ("src/" "*.ts" only directly in src);
 *	- a leading '/' anchors it at the top ("/" "*.ts": top-level names
 *	  only, which is what the reference server's "*.ts" finds); a
 *	  trailing '/' and a leading "./" are ignored.
 * (Adjacent strings, as in glob.h: a slash and a star together would end
 * this comment.)
 * An excluded directory is not descended into.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "base/json.h"
#include "fs_walk.h"
#include "policy/glob.h"
#include "policy/own.h"
#include "policy/path.h"
#include "policy/policy.h"

#define WALK_DIR_MAX	100000		/* entries read from one directory */
#define WALK_BUDGET_MS	10000		/* directory_tree, search_files */

/*
 * A component no file can have (longer than NAME_MAX), appended to a path
 * and to a pattern to match the whole path only: tc_glob_match() also
 * matches a path whose ancestor matches, which suits excludes but not a
 * search.  Since no real component can equal it, the pattern can end only
 * where the path ends.
 */
#define SENTINEL_LEN	(NAME_MAX + 1)

/* An entry read from a directory. */
struct walk_ent {
	union {
		size_t	 off;		/* in the names, while reading */
		char	*name;		/* then */
	};
	unsigned char	 type;		/* DT_* */
};

/* --- patterns --- */

/*
 * Normalises a user pattern into a tc_glob pattern relative to the start:
 * see the top of the file.  Returns a new string, or NULL with the reason
 * in |why|.
 */
char *
fs_walk_pattern(const char *user, char *why, size_t n)
{
	size_t len;
	char *out;
	int anchored = 0;

	while (user[0] == '.' && user[1] == '/')
		user += 2;
	if (user[0] == '/') {
		anchored = 1;
		while (*user == '/')
			user++;
	}
	len = strlen(user);
	while (len > 0 && user[len - 1] == '/')
		len--;
	if (len == 0) {
		snprintf(why, n, "empty pattern");
		return NULL;
	}
	if (len > FS_WALK_PATTERN_MAX) {
		snprintf(why, n, "longer than %u bytes", FS_WALK_PATTERN_MAX);
		return NULL;
	}
	if ((out = malloc(len + 4)) == NULL) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	if (!anchored && memchr(user, '/', len) == NULL)
		snprintf(out, len + 4, "**/%.*s", (int)len, user);
	else
		snprintf(out, len + 4, "%.*s", (int)len, user);
	if (!tc_glob_valid(out, why, n)) {
		free(out);
		return NULL;
	}
	return out;
}

int
fs_exact_init(struct exact *x, const char *pat)
{
	size_t n = strlen(pat);

	memset(x, 0, sizeof(*x));
	if ((x->pat = malloc(n + 1 + SENTINEL_LEN + 1)) == NULL)
		return -1;
	memcpy(x->pat, pat, n);
	x->pat[n] = '/';
	memset(x->pat + n + 1, 'x', SENTINEL_LEN);
	x->pat[n + 1 + SENTINEL_LEN] = '\0';
	return 0;
}

void
fs_exact_release(struct exact *x)
{
	free(x->pat);
	free(x->buf);
	memset(x, 0, sizeof(*x));
}

int
fs_exact_match(struct exact *x, const char *rel)
{
	size_t n = strlen(rel), need = n + 1 + SENTINEL_LEN + 1;
	char *nb;

	if (need > x->bufsz) {
		if ((nb = realloc(x->buf, need)) == NULL)
			return 0;
		x->buf = nb;
		x->bufsz = need;
	}
	memcpy(x->buf, rel, n);
	x->buf[n] = '/';
	memset(x->buf + n + 1, 'x', SENTINEL_LEN);
	x->buf[n + 1 + SENTINEL_LEN] = '\0';
	return tc_glob_match(x->pat, x->buf);
}

/*
 * Makes the exclude patterns of argument |name|.  Returns 0, or -1 with
 * |res| made a tool error.
 */
static int
excludes_make(const struct tc_call *call, struct walk *w,
    struct tc_result *res)
{
	const cJSON *arr = tc_arg_json(call, "excludePatterns"), *it;
	char why[256];
	size_t n;

	w->excl = NULL;
	w->nexcl = 0;
	if (arr == NULL || (n = (size_t)cJSON_GetArraySize(arr)) == 0)
		return 0;
	if ((w->excl = calloc(n, sizeof(*w->excl))) == NULL) {
		tc_result_error(res, "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(it, arr) {
		if ((w->excl[w->nexcl] = fs_walk_pattern(it->valuestring, why,
		    sizeof(why))) == NULL) {
			tc_result_error(res, "excludePatterns: '%s': %s",
			    it->valuestring, why);
			return -1;
		}
		w->nexcl++;
	}
	return 0;
}

static int
excluded(const struct walk *w, const char *rel)
{
	size_t i;

	for (i = 0; i < w->nexcl; i++)
		if (tc_glob_match(w->excl[i], rel))
			return 1;
	return 0;
}

/*
 * Returns a new copy of the absolute path |s| without "." and empty
 * components, to prefix the paths found ("/srv/p/./a" reads badly); ".."
 * stays, as only the kernel knows what it leads to.  NULL on ENOMEM.
 */
static char *
clean_display(const char *s)
{
	char *out, *w;
	size_t n;

	if ((out = malloc(strlen(s) + 2)) == NULL)
		return NULL;
	w = out;
	while (*s != '\0') {
		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.')) {
			s += n;
			continue;
		}
		*w++ = '/';
		memcpy(w, s, n);
		w += n;
		s += n;
	}
	if (w == out)
		*w++ = '/';
	*w = '\0';
	return out;
}

/* --- the walker --- */

void
fs_walk_budget(struct walk *w, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, &w->deadline);
	w->deadline.tv_sec += ms / 1000;
	w->deadline.tv_nsec += (ms % 1000) * 1000000L;
	if (w->deadline.tv_nsec >= 1000000000L) {
		w->deadline.tv_sec++;
		w->deadline.tv_nsec -= 1000000000L;
	}
}

/* Returns 1 once the budget is spent, and marks the walk stopped. */
int
fs_walk_out_of_time(struct walk *w)
{
	struct timespec now;

	if (w->cut & CUT_TIME)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > w->deadline.tv_sec || (now.tv_sec ==
	    w->deadline.tv_sec && now.tv_nsec >= w->deadline.tv_nsec)) {
		w->cut |= CUT_TIME;
		w->stopped = 1;
		return 1;
	}
	return 0;
}

/*
 * The time budget, in ms: |want|, but well inside the call's own deadline
 * (a policy may set a short one), so that a walk stops with what it found
 * rather than being killed with nothing.
 */
long
fs_walk_budget_ms(const struct tc_call *call, long want)
{
	struct tc_limits l;
	long cap;

	tc_policy_limits(call->policy, call->tool->name, &l);
	cap = (long)l.deadline_ms * 2 / 3;
	if (cap < 50)
		cap = 50;
	return want < cap ? want : cap;
}

/*
 * Opens |name| in |dirfd| with |flags|, with O_NOATIME while the kernel
 * allows it: a search should not touch every atime it passes.  O_NOATIME
 * needs the file's owner (or CAP_FOWNER, which a child never has); after
 * the first EPERM it is not tried again, as trees mostly have one owner.
 */
int
fs_walk_open(struct walk *w, int dirfd, const char *name, int flags)
{
	int fd;

	flags |= O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
	if (w->noatime) {
		fd = openat(dirfd, name, flags | O_NOATIME);
		if (fd >= 0 || errno != EPERM)
			return fd;
		w->noatime = 0;
	}
	return openat(dirfd, name, flags);
}

/*
 * Returns 1 if the directory open as |fd| is one of the server's own
 * (own.h), or cannot be told from one; else 0.
 */
static int
own_dir(const struct tc_policy *pol, int fd)
{
	const struct tc_deny *rule;

	return pol->nown > 0 && (tc_own_fd(pol, fd, &rule) != 0 ||
	    rule != NULL);
}

static int
cmp_ent(const void *a, const void *b)
{
	return strcmp(((const struct walk_ent *)a)->name,
	    ((const struct walk_ent *)b)->name);
}

/*
 * Reads the entries of the directory |fd| (at |where|) that the deny rules
 * and excludes keep, in name order.  Returns the count, with the array in
 * *|out| and the names it points into in one block, *|names|; or -1
 * (ENOMEM).  Sets CUT_DIRSIZE in |*cut| when it stopped at WALK_DIR_MAX,
 * CUT_UNREADABLE when the directory could not be read to its end.
 *
 * fs_dents_next() reads into the walk's one buffer, and the names are
 * copied into one block per directory: a strdup() per entry cost more than
 * the rest of the walk's own work.
 */
static ssize_t
read_dir(struct walk *w, int fd, const struct tc_where *where,
    struct walk_ent **out, char **names, unsigned *cut)
{
	const struct tc_deny *rule;
	struct tc_deny_dir dd;
	struct walk_ent *v = NULL, *nv;
	struct tc_buf nb;
	size_t n = 0, cap = 0, base = w->rel.len, i;
	struct fs_dents it = { fd, w->dents, 0, 0, 0 };
	struct dirent64 *de;
	struct stat st;
	int byino;

	*out = NULL;
	*names = NULL;
	tc_buf_init(&nb, SIZE_MAX / 2);
	if (w->deny && tc_deny_dir_init(&dd, w->pol, where->abs, where->rel,
	    TC_ACCESS_READ) != 0) {
		errno = ENOMEM;
		return -1;
	}
	byino = w->pol->nown > 0 && tc_own_dir_exact(fd);
	while ((de = fs_dents_next(&it)) != NULL) {
		/* Every entry read counts against the time budget, those
		 * left out included: a directory of millions of denied or
		 * excluded names is bounded by it too. */
		if ((++w->ticks & 255) == 0 && fs_walk_out_of_time(w)) {
			*cut |= CUT_TIME;
			break;
		}
		if (w->deny && tc_path_dir_entry_denied(&dd, where,
		    de->d_name, &rule))
			continue;
		/* The server's own files, by identity (own.h). */
		if (w->pol->nown > 0 && tc_own_entry(w->pol, fd, de->d_name,
		    byino ? de->d_ino : 0) != NULL)
			continue;
		if (w->nexcl > 0) {
			int ex = 0;

			/* A path too long to build is left to walk_dir(),
			 * which drops it. */
			if ((base == 0 || tc_buf_append(&w->rel, "/", 1) == 0) &&
			    tc_buf_append_str(&w->rel, de->d_name) == 0)
				ex = excluded(w, w->rel.data);
			w->rel.len = base;
			w->rel.data[base] = '\0';
			if (ex)
				continue;
		}
		if (n == WALK_DIR_MAX) {
			*cut |= CUT_DIRSIZE;
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				goto nomem;
			v = nv;
		}
		v[n].type = de->d_type;
		if (v[n].type == DT_UNKNOWN && fstatat(fd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0)
			v[n].type = IFTODT(st.st_mode);
		v[n].off = nb.len;
		if (tc_buf_append(&nb, de->d_name, strlen(de->d_name) + 1) != 0)
			goto nomem;
		n++;
	}
	if (it.err != 0)
		*cut |= CUT_UNREADABLE;
	if (w->deny)
		tc_deny_dir_release(&dd);
	/* The block holds them all now: offsets become pointers. */
	for (i = 0; i < n; i++)
		v[i].name = nb.data + v[i].off;
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_ent);
	*out = v;
	*names = nb.data;
	return (ssize_t)n;
nomem:
	if (w->deny)
		tc_deny_dir_release(&dd);
	tc_buf_release(&nb);
	free(v);
	errno = ENOMEM;
	return -1;
}

/*
 * Walks the directory |fd| (taking ownership of it) at |depth| - 1 below
 * the start, whose path relative to the start is in w->rel.  Returns 0
 * (read whole), a CUT_* bit for a directory cut short, or -errno.
 */
static int
walk_dir(struct walk *w, int fd, int depth)
{
	struct tc_where where = { NULL, NULL };
	struct walk_item it;
	struct walk_ent *v = NULL;
	const char *why;
	char *names = NULL;
	unsigned cut = 0;
	size_t base = w->rel.len, i;
	ssize_t n;
	int r, cfd, how, rc = 0;

	if (w->deny && tc_path_where_under(w->rootpath, fd, &where,
	    &why) != 0) {
		/* Fail closed: without knowing where it is, nothing in it
		 * can be checked against the deny rules. */
		rc = -errno;
		close(fd);
		return rc;
	}
	if ((n = read_dir(w, fd, &where, &v, &names, &cut)) < 0) {
		rc = -ENOMEM;
		w->nomem = w->stopped = 1;
		goto out;
	}
	for (i = 0; i < (size_t)n && !w->stopped; i++) {
		if ((++w->ticks & 63) == 0 && fs_walk_out_of_time(w))
			break;
		w->rel.len = base;
		w->rel.data[base] = '\0';
		if ((base > 0 && tc_buf_append(&w->rel, "/", 1) != 0) ||
		    tc_buf_append_str(&w->rel, v[i].name) != 0) {
			/* Longer than a path can be: leave it out. */
			w->cut |= CUT_LONGPATH;
			continue;
		}
		it.name = v[i].name;
		it.rel = w->rel.data;
		it.type = v[i].type;
		it.depth = depth;
		it.dirfd = fd;
		r = w->visit(w, &it);
		if (r == WALK_STOP) {
			w->stopped = 1;
			break;
		}
		if (r == WALK_SKIP || v[i].type != DT_DIR)
			continue;
		if (depth >= w->max_depth) {
			w->cut |= CUT_DEPTH;
			w->depth_limited++;
			how = CUT_DEPTH;
		} else if ((cfd = fs_walk_open(w, fd, v[i].name,
		    O_RDONLY | O_DIRECTORY)) < 0) {
			how = -errno;
		} else if (own_dir(w->pol, cfd)) {
			/* One of the server's own, mounted here under
			 * another name: nothing in it is shown. */
			close(cfd);
			how = 0;
		} else
			how = walk_dir(w, cfd, depth + 1);
		if (how < 0) {
			w->cut |= CUT_UNREADABLE;
			w->unreadable++;
		}
		/* walk_dir() leaves w->rel as it found it. */
		it.rel = w->rel.data;
		if (w->leave != NULL)
			w->leave(w, &it, how);
	}
	if (i < (size_t)n)
		cut |= w->cut & CUT_TIME ? CUT_TIME : CUT_CAP;
	if (cut & CUT_DIRSIZE)
		w->cut |= CUT_DIRSIZE;
	if (cut & CUT_TIME)
		w->cut |= CUT_TIME;
	if (cut & CUT_UNREADABLE) {
		w->cut |= CUT_UNREADABLE;
		w->unreadable++;
	}
	rc = cut & CUT_TIME ? CUT_TIME : cut & CUT_CAP ? CUT_CAP :
	    cut & CUT_DIRSIZE ? CUT_DIRSIZE : cut & CUT_UNREADABLE ?
	    CUT_UNREADABLE : 0;
out:
	free(v);
	free(names);
	w->rel.len = base;
	if (w->rel.data != NULL)
		w->rel.data[base] = '\0';
	close(fd);
	tc_where_release(&where);
	return rc;
}

/*
 * Opens the directory a tool was given and prepares |w|.  Returns the fd,
 * or -1 with |res| made a tool error; |p| is filled on success.
 */
int
fs_walk_start(const struct tc_call *call, struct walk *w, struct tc_path *p,
    struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	struct tc_diag d TC_UNINIT;
	char *clean;
	int fd, saved;

	tc_diag_init(&d);
	memset(w, 0, sizeof(*w));
	w->pol = call->policy;
	w->noatime = 1;
	w->max_depth = (int)tc_arg_int(call, "maxDepth", FS_TREE_MAX_DEPTH);
	w->deny = tc_deny_any(call->policy, TC_ACCESS_READ);
	tc_buf_init(&w->rel, PATH_MAX);
	if (excludes_make(call, w, res) != 0)
		return -1;
	if ((saved = tc_path_map(call->policy, user, p, &d)) != 0) {
		fs_map_error(call, saved, &d, res);
		return -1;
	}
	w->root = p->root;
	/* Only for what is shown: the paths found are named from it. */
	if ((clean = clean_display(p->display)) != NULL) {
		free(p->display);
		p->display = clean;
	}
	if ((fd = tc_path_open(call->policy, p, O_RDONLY | O_DIRECTORY |
	    O_NOCTTY, 0, TC_ACCESS_READ)) < 0) {
		saved = errno;
		if (saved == ENOTDIR)
			tc_result_error(res, "'%s': not a directory", user);
		else {
			tc_path_open_error(&d, p, user, saved);
			tc_result_error(res, "%s", d.msg);
		}
		tc_path_release(p);
		return -1;
	}
	/* The start directory's path is empty, and must be a string. */
	if (tc_buf_append(&w->rel, "", 0) != 0 || tc_buf_reserve(&w->rel,
	    1) != 0) {
		close(fd);
		tc_path_release(p);
		tc_result_error(res, "out of memory");
		return -1;
	}
	w->rel.data[0] = '\0';
	return fd;
}

void
fs_walk_release(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->nexcl; i++)
		free(w->excl[i]);
	free(w->excl);
	free(w->dents);
	w->dents = NULL;
	tc_buf_release(&w->rel);
}

/* Runs the walk from |fd|, taking ownership of it. */
int
fs_walk_run(struct walk *w, int fd)
{
	const char *why;
	int how;

	/* Where the root is, once for the whole walk (tc_path_where_under()):
	 * each directory is then placed by one question to /proc. */
	if ((w->dents = malloc(FS_DENTS)) == NULL) {
		close(fd);
		return -ENOMEM;
	}
	if (w->deny && tc_path_root_now(w->pol, w->root, w->rootpath,
	    &why) != 0) {
		how = -errno;
		close(fd);
	} else
		how = walk_dir(w, fd, 1);

	/* Out of memory anywhere: the caller says so rather than answer
	 * with a tree that lacks what could not be held. */
	if (w->nomem)
		return -ENOMEM;
	if (how < 0) {
		w->cut |= CUT_UNREADABLE;
		w->unreadable++;
	}
	return how;
}

/* --- output helpers --- */

/*
 * Appends |s| (|n| bytes) to the text for a line-oriented listing, shown
 * as text.h shows it: valid UTF-8, with controls, format characters and
 * line separators escaped, so that a name holding a newline cannot pose
 * as another line of the answer, nor one holding a reordering mark read
 * as another name.
 */
int
fs_walk_text(struct tc_buf *t, const char *s, size_t n, int tabs)
{
	return tc_buf_append_shown(t, s, n, tabs ? TC_SHOW_TAB : 0);
}

int
fs_walk_failed(int how, int nomem, const char *user, const char *lower,
    struct tc_result *res)
{
	if (nomem || how == -ENOMEM) {
		tc_result_error(res, "'%s': out of memory; lower %s", user,
		    lower);
		return 1;
	}
	if (how < 0) {
		tc_result_error(res, "'%s': cannot be read: %s", user,
		    strerror(-how));
		return 1;
	}
	return 0;
}

void
fs_walk_cut(cJSON *o, unsigned cut, const char *cap_name)
{
	cJSON *a;

	cJSON_AddBoolToObject(o, "truncated", cut != 0);
	if (cut == 0 || (a = cJSON_AddArrayToObject(o, "truncated_by")) ==
	    NULL)
		return;
	if (cut & CUT_CAP)
		cJSON_AddItemToArray(a, cJSON_CreateString(cap_name));
	if (cut & CUT_DEPTH)
		cJSON_AddItemToArray(a, cJSON_CreateString("maxDepth"));
	if (cut & CUT_TIME)
		cJSON_AddItemToArray(a, cJSON_CreateString("timeBudget"));
	if (cut & CUT_DIRSIZE)
		cJSON_AddItemToArray(a, cJSON_CreateString("directorySize"));
	if (cut & CUT_UNREADABLE)
		cJSON_AddItemToArray(a, cJSON_CreateString("unreadable"));
	if (cut & CUT_OUTPUT)
		cJSON_AddItemToArray(a, cJSON_CreateString("outputSize"));
	if (cut & CUT_LONGPATH)
		cJSON_AddItemToArray(a, cJSON_CreateString("pathLength"));
}

/* Adds a second text block, |note|, as read_text_file does. */
void
fs_walk_note(struct tc_result *res, const char *note)
{
	cJSON *o;

	if (res->content == NULL && (res->content = cJSON_CreateArray()) ==
	    NULL)
		return;
	if ((o = cJSON_CreateObject()) == NULL)
		return;
	cJSON_AddStringToObject(o, "type", "text");
	cJSON_AddStringToObject(o, "text", note);
	cJSON_AddItemToArray(res->content, o);
}

/* Appends the common part of a truncation note to |b|. */
void
fs_walk_note_cuts(struct tc_buf *b, const struct walk *w, long budget)
{
	if (w->cut & CUT_DEPTH)
		tc_buf_printf(b, "; %zu director%s at maxDepth=%d not opened",
		    w->depth_limited, w->depth_limited == 1 ? "y" : "ies",
		    w->max_depth);
	if (w->cut & CUT_TIME)
		tc_buf_printf(b, "; stopped when the time budget (%ld ms) "
		    "ran out", budget);
	if (w->cut & CUT_DIRSIZE)
		tc_buf_printf(b, "; a directory had more than %u entries and "
		    "only the first %u read were used", WALK_DIR_MAX,
		    WALK_DIR_MAX);
	if (w->cut & CUT_UNREADABLE)
		tc_buf_printf(b, "; %zu director%s could not be read",
		    w->unreadable, w->unreadable == 1 ? "y" : "ies");
	if (w->cut & CUT_LONGPATH)
		tc_buf_printf(b, "; entries whose path would be longer than "
		    "%u bytes were left out", PATH_MAX);
}

/* --- directory_tree --- */

/*
 * The tree is written as it is walked, depth first: its JSON (for
 * structuredContent) and an outline (the text), without a tree in memory.
 * A directory's "children" member is written with its first child, or
 * when it is left, so that one that could not be opened has an "error"
 * instead.
 */
enum { KIDS_PENDING, KIDS_OPEN, KIDS_SOME };

struct tree {
	struct tc_buf	 json;
	struct tc_buf	*text;
	unsigned char	 kids[FS_TREE_MAX_DEPTH + 2];	/* per depth */
	size_t		 entries, max;
	int		 err;
};

static void
outline_line(struct tree *t, int depth, const char *s, size_t n,
    const char *tail)
{
	static const char sp[] = "                                ";
	int k;

	for (k = 2 * (depth - 1); t->err == 0 && k > 0; k -= 32)
		t->err = tc_buf_append(t->text, sp, k > 32 ? 32 : (size_t)k);
	if (t->err == 0)
		t->err = fs_walk_text(t->text, s, n, 0);
	if (t->err == 0)
		t->err = tc_buf_append_str(t->text, tail);
}

static void
put(struct tree *t, const char *s)
{
	if (t->err == 0)
		t->err = tc_buf_append_str(&t->json, s);
}

static int
tree_visit(struct walk *w, const struct walk_item *it)
{
	struct tree *t = w->arg;
	struct tc_buf name;
	int d = it->depth;
	size_t n;

	if (t->entries == t->max) {
		w->cut |= CUT_CAP;
		return WALK_STOP;
	}
	put(t, t->kids[d] == KIDS_PENDING ? ",\"children\":[" :
	    t->kids[d] == KIDS_SOME ? "," : "");
	t->kids[d] = KIDS_SOME;
	/* A regular file is its name alone, the most of any tree: a fifth
	 * of the bytes of an object, and for a client far less to parse. */
	if (it->type != DT_REG)
		put(t, "{\"name\":");
	n = strlen(it->name);
	if (t->err == 0 && tc_utf8_valid(it->name, n))
		t->err = tc_json_put_string(&t->json, it->name, n);
	else if (t->err == 0) {
		/* Made valid first, as every name shown is. */
		tc_buf_init(&name, 4 * NAME_MAX + 16);
		t->err = tc_buf_append_utf8(&name, it->name, n);
		if (t->err == 0)
			t->err = tc_json_put_string(&t->json, name.data,
			    name.len);
		tc_buf_release(&name);
	}
	if (it->type != DT_REG) {
		put(t, ",\"type\":\"");
		put(t, fs_dtype_name(it->type));
		put(t, it->type == DT_DIR ? "\"" : "\"}");
	}
	outline_line(t, d, it->name, n, it->type == DT_DIR ? "/\n" : "\n");
	if (t->err != 0)
		return WALK_STOP;
	t->entries++;
	if (it->type == DT_DIR && d < w->max_depth)
		t->kids[d + 1] = KIDS_PENDING;
	return WALK_NEXT;
}

/* Closes directory |it|, which the walk has left (see walk.leave). */
static void
tree_leave(struct walk *w, const struct walk_item *it, int how)
{
	struct tree *t = w->arg;
	int d = it->depth;
	char msg[128];

	if (d < w->max_depth) {
		if (t->kids[d + 1] != KIDS_PENDING)
			put(t, "]");
		else if (how < 0) {
			put(t, ",\"error\":");
			if (t->err == 0)
				t->err = tc_json_put_string(&t->json,
				    strerror(-how), strlen(strerror(-how)));
		} else
			put(t, ",\"children\":[]");
	}
	if (how != 0)
		put(t, ",\"truncated\":true");
	put(t, "}");
	if (how == 0)
		return;
	if (how < 0)
		tc_text_fmt(msg, sizeof(msg), "[cannot be read: %s]",
		    strerror(-how));
	else
		tc_text_fmt(msg, sizeof(msg), "%s", how == CUT_DEPTH ?
		    "[not opened: maxDepth]" : how == CUT_UNREADABLE ?
		    "[cannot be read to its end]" :
		    "[more entries not shown]");
	outline_line(t, d + 1, msg, strlen(msg), "\n");
}

int
fs_directory_tree(const struct tc_call *call, struct tc_result *res)
{
	struct tree t;
	struct walk w;
	struct tc_path p;
	struct tc_buf note;
	cJSON *o;
	long budget = fs_walk_budget_ms(call, WALK_BUDGET_MS);
	int fd, how;

	memset(&t, 0, sizeof(t));
	if ((fd = fs_walk_start(call, &w, &p, res)) < 0) {
		fs_walk_release(&w);
		return 0;
	}
	w.max_depth = (int)tc_arg_int(call, "maxDepth",
	    FS_TREE_DEFAULT_DEPTH);
	t.max = (size_t)tc_arg_int(call, "maxEntries",
	    FS_TREE_DEFAULT_ENTRIES);
	tc_buf_init(&t.json, TC_RESULT_TEXT_MAX);
	t.text = &res->text;
	t.kids[1] = KIDS_OPEN;
	/* Room for maxEntries entries of ordinary names, reserved once: a
	 * buffer grown by copies costs more than the walk, while pages
	 * reserved and never written cost nothing. */
	if ((t.err = tc_buf_reserve(&t.json, t.max * 64 + 64)) == 0)
		t.err = tc_buf_reserve(t.text, t.max * 32 + 64);
	put(&t, "[");
	w.visit = tree_visit;
	w.leave = tree_leave;
	w.arg = &t;
	fs_walk_budget(&w, budget);
	how = fs_walk_run(&w, fd);
	put(&t, "]");
	if (t.err == TC_ETOOBIG) {
		tc_result_error(res, "'%s': the tree is too large; lower "
		    "maxEntries", tc_arg_str(call, "path"));
		goto out;
	}
	if (fs_walk_failed(how, t.err != 0, tc_arg_str(call, "path"),
	    "maxEntries", res))
		goto out;
	if (t.entries == 0)
		tc_result_printf(res, "(no entries)\n");
	/* The directories still open when the walk stopped have lost the
	 * rest of their children: tree_leave() marked them on the way out,
	 * all but the start, which the top-level flag stands for. */
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", p.display);
	cJSON_AddItemToObject(o, "tree", tc_json_raw_take(&t.json));
	cJSON_AddNumberToObject(o, "entries", (double)t.entries);
	fs_walk_cut(o, w.cut, "maxEntries");
	if (w.cut != 0) {
		tc_buf_init(&note, 4096);
		tc_buf_printf(&note, "[tree truncated: %zu entr%s shown",
		    t.entries, t.entries == 1 ? "y" : "ies");
		if (w.cut & CUT_CAP)
			tc_buf_printf(&note, "; maxEntries=%zu reached", t.max);
		fs_walk_note_cuts(&note, &w, budget);
		tc_buf_printf(&note, ". Lines in brackets mark incomplete "
		    "directories (\"truncated\": true in the structured "
		    "tree): call directory_tree on one of them, or raise "
		    "maxEntries (at most %u) or maxDepth (at most %u), or "
		    "add excludePatterns]", FS_TREE_MAX_ENTRIES,
		    FS_TREE_MAX_DEPTH);
		fs_walk_note(res, note.data != NULL ? note.data : "[truncated]");
		tc_buf_release(&note);
	}
out:
	tc_buf_release(&t.json);
	tc_path_release(&p);
	fs_walk_release(&w);
	return 0;
}

/* --- search_files --- */

struct search {
	struct exact	 pat;
	const char	*display;	/* the start's absolute path */
	cJSON		*matches;
	size_t		 offset, max, seen, found;
	int		 nomem;
};

/* Appends the absolute path of |rel| (made valid UTF-8) to |b|. */
int
fs_walk_full_path(struct tc_buf *b, const char *display, const char *rel)
{
	size_t dl = strlen(display);
	int rc;

	rc = tc_buf_append_utf8(b, display, dl);
	if (rc == 0 && (dl == 0 || display[dl - 1] != '/'))
		rc = tc_buf_append(b, "/", 1);
	return rc == 0 ? tc_buf_append_utf8(b, rel, strlen(rel)) : rc;
}

static int
search_visit(struct walk *w, const struct walk_item *it)
{
	struct search *s = w->arg;
	struct tc_buf b;
	cJSON *j;

	if (!fs_exact_match(&s->pat, it->rel))
		return WALK_NEXT;
	if (s->seen++ < s->offset)
		return WALK_NEXT;
	if (s->found == s->max) {
		w->cut |= CUT_CAP;
		return WALK_STOP;
	}
	tc_buf_init(&b, 4 * PATH_MAX + 16);
	if (fs_walk_full_path(&b, s->display, it->rel) != 0 ||
	    tc_buf_append(&b, "", 0) != 0 ||
	    (j = cJSON_CreateString(b.data)) == NULL) {
		tc_buf_release(&b);
		s->nomem = 1;
		return WALK_STOP;
	}
	tc_buf_release(&b);
	cJSON_AddItemToArray(s->matches, j);
	s->found++;
	return WALK_NEXT;
}

int
fs_search_files(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	const char *upat = tc_arg_str(call, "pattern");
	struct search s;
	struct walk w;
	struct tc_path p;
	struct tc_buf note;
	char why[256], *pat = NULL;
	long budget = fs_walk_budget_ms(call, WALK_BUDGET_MS);
	const cJSON *m;
	cJSON *o;
	int fd, how;

	memset(&s, 0, sizeof(s));
	if ((pat = fs_walk_pattern(upat, why, sizeof(why))) == NULL)
		return tc_result_error(res, "pattern '%s': %s", upat, why);
	if (fs_exact_init(&s.pat, pat) != 0) {
		free(pat);
		return tc_result_error(res, "out of memory");
	}
	if ((fd = fs_walk_start(call, &w, &p, res)) < 0) {
		fs_walk_release(&w);
		fs_exact_release(&s.pat);
		free(pat);
		return 0;
	}
	s.display = p.display;
	s.offset = (size_t)tc_arg_int(call, "offset", 0);
	s.max = (size_t)tc_arg_int(call, "maxResults",
	    FS_SEARCH_DEFAULT_RESULTS);
	w.visit = search_visit;
	w.arg = &s;
	fs_walk_budget(&w, budget);
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", p.display);
	s.matches = cJSON_AddArrayToObject(o, "matches");
	how = s.matches == NULL ? -ENOMEM : fs_walk_run(&w, fd);
	if (fs_walk_failed(how, s.nomem, user, "maxResults", res))
		goto out;
	fs_walk_cut(o, w.cut, "maxResults");
	if (w.cut & (CUT_CAP | CUT_TIME))
		cJSON_AddNumberToObject(o, "next_offset",
		    (double)(s.offset + s.found));
	cJSON_ArrayForEach(m, s.matches) {
		fs_walk_text(&res->text, m->valuestring,
		    strlen(m->valuestring), 0);
		tc_buf_append(&res->text, "\n", 1);
	}
	if (s.found == 0)
		tc_result_printf(res, "No matches found\n");
	if (w.cut != 0) {
		tc_buf_init(&note, 4096);
		tc_buf_printf(&note, "[search truncated: %zu match%s shown "
		    "from offset %zu", s.found, s.found == 1 ? "" : "es",
		    s.offset);
		if (w.cut & CUT_CAP)
			tc_buf_printf(&note, "; maxResults=%zu reached",
			    s.max);
		fs_walk_note_cuts(&note, &w, budget);
		if (w.cut & (CUT_CAP | CUT_TIME))
			tc_buf_printf(&note, "; call search_files again "
			    "with offset=%zu to continue", s.offset +
			    s.found);
		tc_buf_printf(&note, "]");
		fs_walk_note(res, note.data != NULL ? note.data : "[truncated]");
		tc_buf_release(&note);
	}
out:
	tc_path_release(&p);
	fs_walk_release(&w);
	fs_exact_release(&s.pat);
	free(pat);
	return 0;
}
