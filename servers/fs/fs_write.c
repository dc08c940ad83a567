/*
 * fs_write.c: toolcell-fs's tools that change files: write_file, edit_file,
 * create_directory, move_file and delete_file.  They run in the confined
 * child of the fs-write profile.
 *
 * Every change is made relative to a directory fd: the parent directory of
 * the path is opened beneath its root with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS), where it really is is checked (deny rules for
 * writing, a read-only directory nested in a writable one), and only then
 * is the last component created, renamed or removed with an *at() call on
 * that fd, which never follows it.  A file is written whole into a new
 * temporary file beside the target (O_CREAT | O_EXCL), synced, and renamed
 * over it, so a reader, a crash or a concurrent writer sees the old file or
 * a new one, never a mixture; a symlink there is refused rather than
 * followed, and so is a file with more than one hard link.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fs.h"
#include "glob.h"
#include "path.h"
#include "policy.h"

#define WALK_MAX	10000	/* entries of a moved directory checked */
#define WALK_DEPTH	64
#define DIFF_CONTEXT	3
#define DIFF_MAX_D	2000	/* edit distance the diff works out exactly */
#define DIFF_BUDGET	50000000 /* line comparisons before giving up on it */
#define EXCERPT_LINES	12	/* of a closest candidate, in an error */
#define EXCERPT_BYTES	160	/* per line of it */
#define WHERE_LIST	10	/* line numbers named for repeated matches */

/* What a path names for a change: its parent, open, and its last name. */
struct target {
	const char	*user;		/* as the client gave it */
	struct tc_path	 p;
	int		 dfd;		/* the parent directory, O_PATH */
	char		*name;		/* the last component */
	char		*abs;		/* where the entry is, when known */
	size_t		 reloff;	/* its path relative to its root */
};

static const char *
type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:	return "file";
	case S_IFDIR:	return "directory";
	case S_IFLNK:	return "symlink";
	case S_IFIFO:	return "fifo";
	case S_IFSOCK:	return "socket";
	case S_IFCHR:	return "char-device";
	case S_IFBLK:	return "block-device";
	default:	return "other";
	}
}

/* renameat2(): glibc turns flags 0 into renameat(2), which no profile
 * lists, so the system call is made directly. */
static int
rename2(int ofd, const char *oname, int nfd, const char *nname,
    unsigned flags)
{
	return (int)syscall(SYS_renameat2, ofd, oname, nfd, nname, flags);
}

/* Reads where root |i|'s fd is now into |buf|. */
static int
root_now(const struct tc_policy *pol, size_t i, char *buf, size_t size)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", pol->roots[i].fd);
	if ((n = readlinkat(AT_FDCWD, link, buf, size)) < 0 ||
	    (size_t)n >= size)
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * Returns the innermost root that holds the absolute path |abs| (its
 * current path an ancestor of |abs| or |abs| itself), or -1.
 */
static long
innermost_root(const struct tc_policy *pol, const char *abs)
{
	char rp[PATH_MAX];
	size_t i, n, best = 0;
	long found = -1;

	for (i = 0; i < pol->nroots; i++) {
		if (root_now(pol, i, rp, sizeof(rp)) != 0)
			continue;
		n = strlen(rp);
		if (n == 1)
			n = 0;
		if (strncmp(abs, rp, n) != 0 ||
		    (abs[n] != '/' && abs[n] != '\0'))
			continue;
		if (found < 0 || n >= best) {
			best = n;
			found = (long)i;
		}
	}
	return found;
}

/* Returns 1 if |st| is one of the allowed directories themselves. */
static int
is_root(const struct tc_policy *pol, const struct stat *st)
{
	struct stat rs;
	size_t i;

	for (i = 0; i < pol->nroots; i++)
		if (fstat(pol->roots[i].fd, &rs) == 0 &&
		    rs.st_dev == st->st_dev && rs.st_ino == st->st_ino)
			return 1;
	return 0;
}

/*
 * Returns the deny rule that refuses |access| on the entry at |abs|, whose
 * path relative to its root starts at |reloff|, or NULL.  A directory that
 * was removed shows in /proc with " (deleted)" after it; it is checked
 * with and without.
 */
static const struct tc_deny *
denied_at(const struct tc_policy *pol, char *abs, size_t reloff,
    unsigned access)
{
	static const char del[] = " (deleted)";
	const struct tc_deny *rule;
	size_t n = strlen(abs), k = sizeof(del) - 1;
	const char *rel = reloff < n ? abs + reloff : ".";

	if ((rule = tc_deny_match(pol, abs, rel, access)) != NULL)
		return rule;
	if (n > k && strcmp(abs + n - k, del) == 0) {
		abs[n - k] = '\0';
		rule = tc_deny_match(pol, abs, rel, access);
		abs[n - k] = del[0];
	}
	return rule;
}

/* Makes |res| a tool error with |text| (any length, made valid UTF-8). */
static int
long_error(struct tc_result *res, const struct tc_buf *text)
{
	tc_buf_reset(&res->text);
	cJSON_Delete(res->structured);
	res->structured = NULL;
	res->is_error = 1;
	(void)tc_buf_append_utf8(&res->text, text->data ? text->data : "",
	    text->len);
	return 0;
}

static void
target_release(struct target *t)
{
	if (t->dfd >= 0)
		close(t->dfd);
	t->dfd = -1;
	free(t->name);
	free(t->abs);
	t->name = t->abs = NULL;
	tc_path_release(&t->p);
}

/* Refuses the change of |t| with the open's |err|. */
static int
open_error(struct tc_result *res, struct target *t, int err)
{
	struct tc_diag d = { "", 0 };

	switch (err) {
	case ENOENT:
		return tc_result_error(res, "'%s': its directory does not "
		    "exist (create_directory makes it)", t->user);
	case ENOTDIR:
		return tc_result_error(res, "'%s': a component of the path "
		    "is not a directory", t->user);
	default:
		tc_path_open_error(&d, &t->p, t->user, err);
		return tc_result_error(res, "%s", d.msg);
	}
}

/*
 * Maps |user| and opens its parent directory beneath its root for a change
 * (|access|: the deny rules that apply, TC_ACCESS_WRITE and maybe READ).
 * Checks, in order: the path as given is not denied; it is not a root
 * itself; the parent is beneath its root (openat2); where the parent
 * really is, neither it nor the entry is denied, and the innermost root
 * holding it is read-write.
 * Returns 0 with |t| filled (released with target_release()), or -1 with
 * |res| made a tool error.
 */
static int
target_open(const struct tc_call *call, const char *user, unsigned access,
    struct target *t, struct tc_result *res)
{
	const struct tc_policy *pol = call->policy;
	const struct tc_deny *rule;
	struct tc_diag d = { "", 0 };
	struct tc_where w;
	const char *why, *slash, *rootp;
	char *rel = NULL, *parent = NULL;
	size_t n;
	long r;

	memset(t, 0, sizeof(*t));
	t->dfd = -1;
	t->user = user;
	if (tc_path_map(pol, user, &t->p, &d) != 0)
		return tc_result_error(res, "%s", d.msg), -1;
	if (tc_path_check(pol, &t->p, access) != 0) {
		tc_path_open_error(&d, &t->p, user, errno);
		tc_result_error(res, "%s", d.msg);
		goto fail;
	}
	if ((rel = strdup(t->p.rel)) == NULL)
		goto nomem;
	n = strlen(rel);
	while (n > 1 && rel[n - 1] == '/')
		rel[--n] = '\0';
	if ((slash = strrchr(rel, '/')) != NULL) {
		parent = strndup(rel, (size_t)(slash - rel));
		t->name = strdup(slash + 1);
	} else {
		parent = strdup(".");
		t->name = strdup(rel);
	}
	if (parent == NULL || t->name == NULL)
		goto nomem;
	if (strcmp(rel, ".") == 0) {
		tc_result_error(res, "'%s': is an allowed directory itself, "
		    "which cannot be changed this way", user);
		goto fail;
	}
	if (strcmp(t->name, ".") == 0 || strcmp(t->name, "..") == 0) {
		tc_result_error(res, "'%s': ends with '%s'; name the entry "
		    "itself", user, t->name);
		goto fail;
	}
	t->dfd = tc_path_openat_in(pol->roots[t->p.root].fd, parent,
	    O_PATH | O_DIRECTORY, 0);
	if (t->dfd < 0) {
		open_error(res, t, errno);
		goto fail;
	}
	/* Where the parent really is, wherever symlinks inside the root
	 * took the path: the deny rules and a read-only directory nested in
	 * a writable one are decided on that.  Without /proc it cannot be
	 * told, and the change is refused. */
	if (tc_path_where(pol, t->p.root, t->dfd, &w, &why) != 0) {
		if (errno == ENOMEM)
			goto nomem;
		tc_result_error(res, "'%s': cannot be checked against the "
		    "policy: %s", user, why);
		goto fail;
	}
	n = strlen(w.abs);
	if ((t->abs = malloc(n + strlen(t->name) + 2)) == NULL) {
		tc_where_release(&w);
		goto nomem;
	}
	snprintf(t->abs, n + strlen(t->name) + 2, "%s%s%s", w.abs,
	    n > 1 ? "/" : "", t->name);
	/* The entry's path relative to its root is a suffix of its
	 * absolute path, as the parent's is. */
	t->reloff = strcmp(w.rel, ".") == 0 ? n + (n > 1) :
	    (size_t)(w.rel - w.abs);
	rule = denied_at(pol, w.abs, strcmp(w.rel, ".") == 0 ? n + 1 :
	    (size_t)(w.rel - w.abs), access);
	if (rule == NULL)
		rule = denied_at(pol, t->abs, t->reloff, access);
	/* Read-write or not is the innermost root's say, where the parent
	 * really is: "scratch/x" relative to a read-only project may lie in
	 * a writable scratch root nested in it, and the other way round. */
	if (rule == NULL && ((r = innermost_root(pol, w.abs)) < 0 ||
	    !(pol->roots[r].flags & TC_ROOT_WRITE))) {
		rootp = r < 0 ? NULL : pol->roots[r].path;
		tc_where_release(&w);
		if (rootp == NULL)
			tc_result_error(res, "'%s': cannot be checked against "
			    "the policy: its directory is no longer beneath "
			    "an allowed directory", user);
		else
			tc_result_error(res, "'%s': in a read-only directory "
			    "(%s); only read-write directories may be "
			    "changed", user, rootp);
		goto fail;
	}
	tc_where_release(&w);
	if (rule != NULL) {
		tc_path_denied(&d, user, rule);
		tc_result_error(res, "%s", d.msg);
		goto fail;
	}
	free(rel);
	free(parent);
	return 0;
nomem:
	tc_result_error(res, "'%s': out of memory", user);
fail:
	free(rel);
	free(parent);
	target_release(t);
	return -1;
}

/* lstat() of the target's entry itself. */
static int
target_stat(const struct target *t, struct stat *st)
{
	return fstatat(t->dfd, t->name, st, AT_SYMLINK_NOFOLLOW);
}

/*
 * Refuses what write_file and edit_file do not replace: a symlink, a
 * directory, any other non-regular file, a file with other hard links.
 * Returns 0 if |st| may be replaced, else -1 with |res| set.
 */
static int
replaceable(const struct target *t, const struct stat *st, const char *tool,
    struct tc_result *res)
{
	if (S_ISLNK(st->st_mode))
		return tc_result_error(res, "'%s': is a symbolic link; %s "
		    "neither follows nor replaces links (name the file "
		    "itself, or delete the link first)", t->user, tool), -1;
	if (S_ISDIR(st->st_mode))
		return tc_result_error(res, "'%s': is a directory", t->user),
		    -1;
	if (!S_ISREG(st->st_mode))
		return tc_result_error(res, "'%s': not a regular file (it is "
		    "a %s)", t->user, type_name(st->st_mode)), -1;
	if (st->st_nlink > 1)
		return tc_result_error(res, "'%s': has %ju hard links; %s "
		    "refuses a file with more than one, since another of its "
		    "names may lie outside the allowed directories (delete "
		    "this name first to write a new file)", t->user,
		    (uintmax_t)st->st_nlink, tool), -1;
	return 0;
}

/* Writes |n| bytes, whatever the short writes. */
static int
write_all(int fd, const char *p, size_t n)
{
	ssize_t k;

	while (n > 0) {
		k = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static const char *
write_errstr(int err)
{
	switch (err) {
	case EFBIG:
		return "larger than the file size limit of a call";
	case ENOSPC:
		return "no space left on the device";
	case EDQUOT:
		return "over the disk quota";
	case EACCES:
	case EPERM:
		return "permission denied";
	case EROFS:
		return "a read-only filesystem";
	default:
		return strerror(err);
	}
}

/*
 * Replaces the target's entry with |n| bytes of |data| atomically: a new
 * file beside it, created O_EXCL under a random name, written, synced,
 * then renamed over the entry.  |mode| (permission bits) is given to the
 * new file if |keep_mode|, else it is created 0644 less the umask.  With
 * |expect|, the entry must still be that file (device, inode, size and
 * change time) just before the rename, else nothing changes.  The entry is
 * checked again just before the rename: a symlink or a hard-linked file
 * put there meanwhile is refused.  The temporary file is removed on every
 * failure.  Returns 0, or -1 with |res| set.
 */
static int
replace_file(const struct target *t, const char *data, size_t n,
    mode_t mode, int keep_mode, const struct stat *expect, const char *tool,
    struct tc_result *res)
{
	char tmp[NAME_MAX + 1], stem[200];
	unsigned char rnd[8];
	struct stat st;
	int fd = -1, tries, err;
	size_t i, len;

	/* The temporary name starts with the target's, so a listing shows
	 * what it belongs to, and stays under NAME_MAX. */
	snprintf(stem, sizeof(stem), "%s", t->name);
	len = tc_utf8_prefix(stem, strlen(stem));
	stem[len] = '\0';
	for (tries = 0; tries < 16 && fd < 0; tries++) {
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return tc_result_error(res, "'%s': no random bytes "
			    "for a temporary name", t->user), -1;
		len = (size_t)snprintf(tmp, sizeof(tmp), ".%s.tc-", stem);
		for (i = 0; i < sizeof(rnd) && len + 2 < sizeof(tmp); i++)
			len += (size_t)snprintf(tmp + len, sizeof(tmp) - len,
			    "%02x", rnd[i]);
		fd = tc_path_openat_in(t->dfd, tmp, O_WRONLY | O_CREAT |
		    O_EXCL | O_NOFOLLOW | O_NOCTTY, keep_mode ? 0600 : 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return tc_result_error(res, "'%s': cannot create a file in "
		    "its directory: %s", t->user, write_errstr(errno)), -1;
	if (write_all(fd, data, n) != 0) {
		err = errno;
		tc_result_error(res, "'%s': cannot write: %s", t->user,
		    write_errstr(err));
		goto fail;
	}
	/* Only the permission bits: set-user-ID and set-group-ID never
	 * pass to content the model wrote. */
	if (keep_mode && fchmod(fd, mode & 0777) != 0) {
		tc_result_error(res, "'%s': cannot set its mode: %s", t->user,
		    write_errstr(errno));
		goto fail;
	}
	if (fsync(fd) != 0) {
		tc_result_error(res, "'%s': cannot write: %s", t->user,
		    write_errstr(errno));
		goto fail;
	}
	if (close(fd) != 0) {
		fd = -1;
		tc_result_error(res, "'%s': cannot write: %s", t->user,
		    write_errstr(errno));
		goto fail;
	}
	fd = -1;
	/* Checked once more as late as possible; a swap after this still
	 * only replaces the name in this directory, never a file a link
	 * leads to. */
	if (target_stat(t, &st) == 0) {
		if (expect != NULL && (st.st_dev != expect->st_dev ||
		    st.st_ino != expect->st_ino ||
		    st.st_size != expect->st_size ||
		    st.st_ctim.tv_sec != expect->st_ctim.tv_sec ||
		    st.st_ctim.tv_nsec != expect->st_ctim.tv_nsec)) {
			tc_result_error(res, "'%s': changed while it was being "
			    "edited; nothing was written: try again",
			    t->user);
			goto fail;
		}
		if (replaceable(t, &st, tool, res) != 0)
			goto fail;
	} else if (expect != NULL) {
		tc_result_error(res, "'%s': removed while it was being "
		    "edited; nothing was written", t->user);
		goto fail;
	}
	if (rename2(t->dfd, tmp, t->dfd, t->name, 0) != 0) {
		err = errno;
		if (err == EISDIR)
			tc_result_error(res, "'%s': is a directory", t->user);
		else
			tc_result_error(res, "'%s': cannot replace it: %s",
			    t->user, write_errstr(err));
		goto fail;
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	(void)unlinkat(t->dfd, tmp, 0);
	return -1;
}

/* --- write_file --- */

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Decodes base64 |s| (standard alphabet; blanks and newlines skipped;
 * padding optional) into a new buffer.  Returns 0, or -1 with the offset
 * of the first bad byte in *|bad|.
 */
static int
b64_decode(const char *s, char **out, size_t *outlen, size_t *bad)
{
	size_t n = strlen(s), i, o = 0, pad = 0;
	uint32_t acc = 0;
	int bits = 0, v;
	char *buf;

	*out = NULL;
	*outlen = 0;
	*bad = 0;
	if ((buf = malloc(n / 4 * 3 + 3)) == NULL)
		return -2;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if (pad > 0 || (v = b64_value(c)) < 0) {
			*bad = i;
			free(buf);
			return -1;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	/* Leftover bits must be the zero padding of a whole encoding. */
	if (bits >= 6 || pad > 2 || (acc & ((1u << bits) - 1)) != 0) {
		*bad = n;
		free(buf);
		return -1;
	}
	*out = buf;
	*outlen = o;
	return 0;
}

int
fs_write_file(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	const char *content = tc_arg_str(call, "content");
	const char *enc = tc_arg_str(call, "encoding");
	char *decoded = NULL;
	const char *data = content;
	size_t len = strlen(content), bad;
	struct target t;
	struct stat st = { 0 };
	int exists = 0, b64 = enc != NULL && strcmp(enc, "base64") == 0;
	cJSON *o;

	/* Past the file size limit a write fails with EFBIG rather than
	 * killing the call, so the error can say so. */
	signal(SIGXFSZ, SIG_IGN);
	if (b64) {
		int rc = b64_decode(content, &decoded, &len, &bad);

		if (rc == -2)
			return tc_result_error(res, "'%s': out of memory",
			    user);
		if (rc != 0)
			return tc_result_error(res, "'%s': content is not "
			    "valid base64 (at byte %zu)", user, bad);
		data = decoded;
	}
	if (target_open(call, user, TC_ACCESS_WRITE, &t, res) != 0)
		goto out;
	if (user[strlen(user) - 1] == '/') {
		tc_result_error(res, "'%s': ends with '/'; name a file", user);
		goto done;
	}
	if (target_stat(&t, &st) == 0) {
		if (is_root(call->policy, &st)) {
			tc_result_error(res, "'%s': is an allowed directory "
			    "itself", user);
			goto done;
		}
		if (replaceable(&t, &st, "write_file", res) != 0)
			goto done;
		exists = 1;
	} else if (errno != ENOENT) {
		open_error(res, &t, errno);
		goto done;
	}
	if (replace_file(&t, data, len, st.st_mode, exists, NULL,
	    "write_file", res) != 0)
		goto done;
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", t.p.display);
	cJSON_AddNumberToObject(o, "size", (double)len);
	cJSON_AddBoolToObject(o, "created", !exists);
	cJSON_AddStringToObject(o, "encoding", b64 ? "base64" : "utf8");
	tc_result_printf(res, "Wrote %zu byte%s to %s (%s)\n", len,
	    len == 1 ? "" : "s", t.p.display, exists ? "replaced" :
	    "created");
done:
	target_release(&t);
out:
	free(decoded);
	return 0;
}

/* --- edit_file: the diff --- */

struct line {
	const char	*p;
	size_t		 n;		/* with its '\n', if it has one */
};

/* Splits |buf| into lines; returns the count, or -1 on ENOMEM. */
static long
split_lines(const char *buf, size_t len, struct line **out)
{
	struct line *v = NULL, *nv;
	size_t n = 0, cap = 0, i = 0;
	const char *nl;

	*out = NULL;
	while (i < len) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL) {
				free(v);
				return -1;
			}
			v = nv;
		}
		nl = memchr(buf + i, '\n', len - i);
		v[n].p = buf + i;
		v[n].n = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;
		i += v[n].n;
		n++;
	}
	*out = v;
	return (long)n;
}

static int
line_eq(const struct line *a, const struct line *b)
{
	return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

enum { OP_EQ, OP_DEL, OP_ADD };

struct op {
	int	type;
	long	a, b;		/* line indices in the old and the new file */
};

/*
 * Myers' O(ND) difference of a[0..n) and b[0..m): fills |ops| (room for
 * n + m) with the edit script in order, and returns its length; or -1
 * when the distance is over DIFF_MAX_D, the comparisons over DIFF_BUDGET,
 * or memory runs out, for the caller to fall back on replacing the whole
 * range.
 */
static long
myers(const struct line *a, long n, const struct line *b, long m,
    long a0, long b0, struct op *ops)
{
	long max = n + m, off, d, k, x, y, D = -1, nops = 0, i;
	long *v, *trace = NULL, *nt, used = 0, cap = 0, pk, px, py;
	long budget = DIFF_BUDGET;
	struct op *tmp;

	if (max == 0)
		return 0;
	off = max + 1;
	if ((v = calloc((size_t)(2 * max + 3), sizeof(*v))) == NULL)
		return -1;
	for (d = 0; d <= max && d <= DIFF_MAX_D; d++) {
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] <
			    v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m && line_eq(&a[x], &b[y])) {
				x++;
				y++;
				budget--;
			}
			if (--budget < 0)
				goto fail;
			v[off + k] = x;
			if (x >= n && y >= m)
				D = d;
		}
		/* Keep v[-d..d] of this step for the way back. */
		if (used + 2 * d + 1 > cap) {
			cap = (cap + 2 * d + 1) * 2;
			if ((nt = reallocarray(trace, (size_t)cap,
			    sizeof(*trace))) == NULL)
				goto fail;
			trace = nt;
		}
		memcpy(trace + used, v + off - d, (size_t)(2 * d + 1) *
		    sizeof(*v));
		used += 2 * d + 1;
		if (D >= 0)
			break;
	}
	if (D < 0)
		goto fail;
	if ((tmp = calloc((size_t)(n + m), sizeof(*tmp))) == NULL)
		goto fail;
	/* Backwards from the end; step d's slice starts at d * d. */
	x = n;
	y = m;
	for (d = D; d > 0; d--) {
		const long *pv = trace + (d - 1) * (d - 1) + (d - 1);

		k = x - y;
		if (k == -d || (k != d && pv[k - 1] < pv[k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = pv[pk];
		py = px - pk;
		while (x > px + (pk == k - 1) && y > py + (pk == k + 1)) {
			x--;
			y--;
			tmp[nops++] = (struct op){ OP_EQ, a0 + x, b0 + y };
		}
		if (pk == k + 1) {
			y--;
			tmp[nops++] = (struct op){ OP_ADD, a0 + x, b0 + y };
		} else {
			x--;
			tmp[nops++] = (struct op){ OP_DEL, a0 + x, b0 + y };
		}
	}
	while (x > 0 && y > 0) {
		x--;
		y--;
		tmp[nops++] = (struct op){ OP_EQ, a0 + x, b0 + y };
	}
	for (i = 0; i < nops; i++)
		ops[i] = tmp[nops - 1 - i];
	free(tmp);
	free(trace);
	free(v);
	return nops;
fail:
	free(trace);
	free(v);
	return -1;
}

/* Appends "-a,b" style range of a hunk. */
static void
hunk_range(struct tc_buf *out, long start, long count)
{
	if (count == 1)
		tc_buf_printf(out, "%ld", start + 1);
	else
		tc_buf_printf(out, "%ld,%ld", count == 0 ? start : start + 1,
		    count);
}

static void
diff_line(struct tc_buf *out, char tag, const struct line *l)
{
	tc_buf_append(out, &tag, 1);
	tc_buf_append(out, l->p, l->n);
	if (l->n == 0 || l->p[l->n - 1] != '\n')
		tc_buf_append_str(out, "\n\\ No newline at end of file\n");
}

/*
 * Appends to |out| the unified diff (3 lines of context) that turns |old|
 * into |new|, with "--- a/NAME" and "+++ b/NAME" headers; nothing when
 * they are equal.  Returns 0, or TC_ENOMEM.
 */
static int
unified_diff(const char *old, size_t oldlen, const char *new, size_t newlen,
    const char *name, struct tc_buf *out)
{
	struct line *a = NULL, *b = NULL;
	struct op *ops = NULL;
	long na, nb, pre = 0, suf = 0, nops = 0, mid, i, j, h0, h1;
	long as, ac, bs, bc, last;
	int rc = TC_ENOMEM;

	if ((na = split_lines(old, oldlen, &a)) < 0 ||
	    (nb = split_lines(new, newlen, &b)) < 0)
		goto out;
	while (pre < na && pre < nb && line_eq(&a[pre], &b[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	    line_eq(&a[na - 1 - suf], &b[nb - 1 - suf]))
		suf++;
	if (pre == na && pre == nb) {
		rc = 0;
		goto out;
	}
	if ((ops = calloc((size_t)(na + nb + 1), sizeof(*ops))) == NULL)
		goto out;
	for (i = 0; i < pre; i++)
		ops[nops++] = (struct op){ OP_EQ, i, i };
	mid = myers(a + pre, na - pre - suf, b + pre, nb - pre - suf, pre,
	    pre, ops + nops);
	if (mid < 0) {
		/* Too different to work out: the whole middle is replaced. */
		mid = 0;
		for (i = pre; i < na - suf; i++)
			ops[nops + mid++] = (struct op){ OP_DEL, i, pre };
		for (j = pre; j < nb - suf; j++)
			ops[nops + mid++] = (struct op){ OP_ADD, na - suf, j };
	}
	nops += mid;
	for (i = 0; i < suf; i++)
		ops[nops++] = (struct op){ OP_EQ, na - suf + i, nb - suf + i };
	tc_buf_printf(out, "--- a/%s\n+++ b/%s\n", name, name);
	for (i = 0; i < nops;) {
		if (ops[i].type == OP_EQ) {
			i++;
			continue;
		}
		/* A hunk: from this change, taking in every change less than
		 * two contexts after the last one. */
		h0 = i > DIFF_CONTEXT ? i - DIFF_CONTEXT : 0;
		last = i;
		for (j = i + 1; j < nops; j++) {
			if (ops[j].type != OP_EQ)
				last = j;
			else if (j - last > 2 * DIFF_CONTEXT)
				break;
		}
		h1 = last + DIFF_CONTEXT + 1 < nops ? last + DIFF_CONTEXT + 1 :
		    nops;
		as = ops[h0].a;
		bs = ops[h0].b;
		ac = bc = 0;
		for (j = h0; j < h1; j++) {
			ac += ops[j].type != OP_ADD;
			bc += ops[j].type != OP_DEL;
		}
		tc_buf_append_str(out, "@@ -");
		hunk_range(out, as, ac);
		tc_buf_append_str(out, " +");
		hunk_range(out, bs, bc);
		tc_buf_append_str(out, " @@\n");
		for (j = h0; j < h1; j++)
			diff_line(out, ops[j].type == OP_EQ ? ' ' :
			    ops[j].type == OP_DEL ? '-' : '+',
			    ops[j].type == OP_ADD ? &b[ops[j].b] :
			    &a[ops[j].a]);
		i = h1;
	}
	rc = 0;
out:
	free(a);
	free(b);
	free(ops);
	return rc;
}

/* --- edit_file: matching --- */

/* 1-based line of byte |off| of |buf|. */
static long
line_of(const char *buf, size_t off)
{
	long n = 1;
	const char *p = buf, *e = buf + off;

	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

static const char *
find(const char *hay, size_t hlen, size_t from, const char *needle,
    size_t nlen)
{
	if (from > hlen)
		return NULL;
	return memmem(hay + from, hlen - from, needle, nlen);
}

/* Counts non-overlapping matches of |needle| in |hay|. */
static size_t
count_matches(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
	const char *p;
	size_t n = 0, from = 0;

	while ((p = find(hay, hlen, from, needle, nlen)) != NULL) {
		n++;
		from = (size_t)(p - hay) + nlen;
	}
	return n;
}

/*
 * Copies |s| (|n| bytes) with runs of blanks (space, tab) made one space,
 * blanks before a line end or the end dropped, and CR before LF dropped;
 * |map| (if not NULL) gets, for each byte out, the offset of the byte in.
 * Returns the new length.  |out| has room for |n| + 1 bytes.
 */
static size_t
squash_blanks(const char *s, size_t n, char *out, size_t *map)
{
	size_t i, o = 0, run = 0, at = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == ' ' || c == '\t' || (c == '\r' && i + 1 < n &&
		    s[i + 1] == '\n')) {
			if (run++ == 0)
				at = i;
			continue;
		}
		if (run > 0 && c != '\n' && c != '\r') {
			if (map != NULL)
				map[o] = at;
			out[o++] = ' ';
		}
		run = 0;
		if (map != NULL)
			map[o] = i;
		out[o++] = c;
	}
	out[o] = '\0';
	return o;
}

/* Shows |n| bytes of |s| in quotes, with \t, \r, \n spelt out. */
static void
show_bytes(struct tc_buf *m, const char *s, size_t n)
{
	size_t i;

	tc_buf_append_str(m, "\"");
	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '\t':
			tc_buf_append_str(m, "\\t");
			break;
		case '\r':
			tc_buf_append_str(m, "\\r");
			break;
		case '\n':
			tc_buf_append_str(m, "\\n");
			break;
		case '"':
			tc_buf_append_str(m, "\\\"");
			break;
		default:
			tc_buf_append(m, s + i, 1);
		}
	}
	tc_buf_append_str(m, "\"");
}

/* Appends lines |first|..|last| (1-based) of |buf|, numbered. */
static void
show_lines(struct tc_buf *m, const char *buf, size_t len, long first,
    long last)
{
	const char *p = buf, *e = buf + len, *nl;
	long ln = 1;
	size_t n;

	if (last - first >= EXCERPT_LINES)
		last = first + EXCERPT_LINES - 1;
	while (p < e && ln <= last) {
		nl = memchr(p, '\n', (size_t)(e - p));
		n = nl ? (size_t)(nl - p) : (size_t)(e - p);
		if (ln >= first) {
			if (n > 0 && p[n - 1] == '\r')
				n--;
			tc_buf_printf(m, "%6ld| ", ln);
			tc_buf_append(m, p, n > EXCERPT_BYTES ? EXCERPT_BYTES :
			    n);
			tc_buf_append_str(m, n > EXCERPT_BYTES ? "...\n" :
			    "\n");
		}
		p = nl ? nl + 1 : e;
		ln++;
	}
}

/* Returns 1 if |c| is a blank or a line end. */
static int
is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Explains why |old| was not found in |buf|, into |m|: a line-ending
 * difference (CRLF against LF), a match once blanks are ignored, and the
 * closest candidate: the longest start of |old| that occurs in the file,
 * where it is and what differs right after it.
 */
static void
explain_miss(const char *buf, size_t len, const char *old, size_t oldlen,
    struct tc_buf *m)
{
	size_t lo = 0, hi = oldlen, mid, sb, so, *map = NULL, i, k;
	const char *p, *at = NULL;
	char *sbuf = NULL, *sold = NULL, *conv = NULL;
	int file_crlf = memmem(buf, len, "\r\n", 2) != NULL;
	int old_crlf = memmem(old, oldlen, "\r\n", 2) != NULL;
	long l0, l1;

	/* Line endings: the same text with the file's own. */
	if (file_crlf != old_crlf && memchr(old, '\n', oldlen) != NULL &&
	    (conv = malloc(oldlen * 2 + 1)) != NULL) {
		for (i = k = 0; i < oldlen; i++) {
			if (file_crlf && old[i] == '\n' &&
			    (i == 0 || old[i - 1] != '\r'))
				conv[k++] = '\r';
			if (!file_crlf && old[i] == '\r' && i + 1 < oldlen &&
			    old[i + 1] == '\n')
				continue;
			conv[k++] = old[i];
		}
		if ((p = memmem(buf, len, conv, k)) != NULL) {
			l0 = line_of(buf, (size_t)(p - buf));
			tc_buf_printf(m, "Line endings differ: the file "
			    "uses %s, oldText uses %s; with the file's line "
			    "endings it matches at line %ld.\n", file_crlf ?
			    "CRLF (\\r\\n)" : "LF (\\n)", file_crlf ?
			    "LF (\\n)" : "CRLF (\\r\\n)", l0);
			free(conv);
			return;
		}
		free(conv);
	}
	/* Blanks: a match once runs of blanks count as one. */
	if ((sbuf = malloc(len + 1)) != NULL &&
	    (sold = malloc(oldlen + 1)) != NULL &&
	    (map = calloc(len + 1, sizeof(*map))) != NULL) {
		sb = squash_blanks(buf, len, sbuf, map);
		so = squash_blanks(old, oldlen, sold, NULL);
		/* Leading blanks of oldText count as indentation, which
		 * may be absent in the squashed file's line starts. */
		if (so > 0 && (p = memmem(sbuf, sb, sold, so)) != NULL) {
			k = (size_t)(p - sbuf);
			l0 = line_of(buf, map[k]);
			l1 = line_of(buf, map[k + so - 1]);
			tc_buf_printf(m, "It matches lines %ld-%ld if blanks "
			    "are ignored: compare indentation (tabs, "
			    "spaces), blanks between words and at line ends"
			    "%s.\n", l0, l1, file_crlf != old_crlf ?
			    ", and line endings (CRLF, LF)" : "");
			tc_buf_append_str(m, "The file there:\n");
			show_lines(m, buf, len, l0, l1);
			goto out;
		}
	}
	/* The longest start of oldText found anywhere: a binary search,
	 * since every start of a start that occurs occurs too. */
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (memmem(buf, len, old, mid) != NULL)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (lo == 0 || (at = memmem(buf, len, old, lo)) == NULL) {
		tc_buf_append_str(m, "No part of it occurs in the file.\n");
		goto out;
	}
	l0 = line_of(buf, (size_t)(at - buf));
	l1 = line_of(old, lo);
	tc_buf_printf(m, "Closest: its first %zu of %zu bytes match the file "
	    "at line %ld; they part at line %ld of the file, where the file "
	    "has ", lo, oldlen, l0, l0 + l1 - 1);
	k = (size_t)(at - buf) + lo;
	show_bytes(m, buf + k, len - k < 24 ? len - k : 24);
	tc_buf_append_str(m, " and oldText has ");
	show_bytes(m, old + lo, oldlen - lo < 24 ? oldlen - lo : 24);
	tc_buf_append_str(m, ".\n");
	if (k < len && (buf[k] == '\r' || old[lo] == '\r'))
		tc_buf_append_str(m, "Hint: line endings differ (CRLF, "
		    "LF).\n");
	else if (k < len && is_ws(buf[k]) && is_ws(old[lo]))
		tc_buf_append_str(m, "Hint: blanks differ there (tabs, "
		    "spaces, or a line break).\n");
	else if (k < len && (is_ws(buf[k]) || is_ws(old[lo])))
		tc_buf_append_str(m, "Hint: one has a blank or a line break "
		    "where the other has text.\n");
	tc_buf_append_str(m, "The file there:\n");
	/* As many lines as oldText has, a last newline ending one. */
	show_lines(m, buf, len, l0, l0 + line_of(old, oldlen -
	    (old[oldlen - 1] == '\n')) - 1);
out:
	free(sbuf);
	free(sold);
	free(map);
}

struct edit {
	const char	*old, *new;
	size_t		 oldlen, newlen;
	int		 all;
	size_t		 count;		/* replacements made */
};

/*
 * Applies |e| to |*buf| (|*len| bytes, owned), replacing it.  Returns 0;
 * or -1 with the reason in |m|; or -2 on ENOMEM.
 */
static int
apply_edit(char **buf, size_t *len, struct edit *e, size_t index,
    const char *user, struct tc_buf *m)
{
	const char *p;
	size_t n, from = 0, i, out, cap;
	char *nb;

	n = count_matches(*buf, *len, e->old, e->oldlen);
	if (n == 0) {
		tc_buf_printf(m, "'%s': edit %zu: oldText not found; nothing "
		    "was changed.\n", user, index + 1);
		explain_miss(*buf, *len, e->old, e->oldlen, m);
		return -1;
	}
	if (n > 1 && !e->all) {
		tc_buf_printf(m, "'%s': edit %zu: oldText occurs %zu times, "
		    "at line%s ", user, index + 1, n, n > 1 ? "s" : "");
		for (i = 0; i < n && i < WHERE_LIST; i++) {
			p = find(*buf, *len, from, e->old, e->oldlen);
			tc_buf_printf(m, "%s%ld", i ? ", " : "",
			    line_of(*buf, (size_t)(p - *buf)));
			from = (size_t)(p - *buf) + e->oldlen;
		}
		tc_buf_printf(m, "%s; nothing was changed.  Add lines around "
		    "it to make it unique, or set replaceAll to replace "
		    "every one.\n", n > WHERE_LIST ? ", ..." : "");
		return -1;
	}
	/* The new size, checked before anything is allocated (and before
	 * it could overflow: n and the growth are both bounded by it). */
	if (e->newlen > e->oldlen && (e->newlen - e->oldlen) >
	    (FS_EDIT_MAX_BYTES - (*len < FS_EDIT_MAX_BYTES ? *len :
	    FS_EDIT_MAX_BYTES)) / n) {
		tc_buf_printf(m, "'%s': edit %zu: the file would grow past "
		    "the %u bytes that edit_file handles; nothing was "
		    "changed.\n", user, index + 1, FS_EDIT_MAX_BYTES);
		return -1;
	}
	if (e->newlen >= e->oldlen)
		cap = *len + n * (e->newlen - e->oldlen);
	else
		cap = *len - n * (e->oldlen - e->newlen);
	if ((nb = malloc(cap + 1)) == NULL)
		return -2;
	out = 0;
	from = 0;
	while ((p = find(*buf, *len, from, e->old, e->oldlen)) != NULL) {
		i = (size_t)(p - *buf);
		memcpy(nb + out, *buf + from, i - from);
		out += i - from;
		memcpy(nb + out, e->new, e->newlen);
		out += e->newlen;
		from = i + e->oldlen;
	}
	memcpy(nb + out, *buf + from, *len - from);
	out += *len - from;
	nb[out] = '\0';
	free(*buf);
	*buf = nb;
	*len = out;
	e->count = n;
	return 0;
}

/* Returns at most |max| of the |n| bytes of |s|, not cutting a UTF-8
 * character. */
static size_t
cut_utf8(const char *s, size_t n, size_t max)
{
	size_t k;

	if (s == NULL)
		return 0;
	if (n <= max)
		return n;
	for (k = max; k > 0 && max - k < 3 &&
	    ((unsigned char)s[k] & 0xc0) == 0x80; k--)
		;
	return ((unsigned char)s[k] & 0xc0) == 0x80 ? max : k;
}

/* Reads the whole of |fd| (|size| bytes by fstat) into a new buffer. */
static int
read_whole(int fd, size_t size, char **out, size_t *outlen)
{
	char *buf;
	size_t got = 0;
	ssize_t k;

	if ((buf = malloc(size + 1)) == NULL)
		return -1;
	while (got < size) {
		k = read(fd, buf + got, size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			free(buf);
			return -1;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	buf[got] = '\0';
	*out = buf;
	*outlen = got;
	return 0;
}

int
fs_edit_file(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	const cJSON *edits = tc_arg_json(call, "edits"), *it, *v;
	int dry = tc_arg_bool(call, "dryRun", 0);
	struct edit *ev = NULL;
	struct tc_buf msg, diff, shown;
	char *buf = NULL, *orig = NULL;
	size_t len = 0, origlen = 0, ne, i, total = 0;
	struct stat st, st2;
	struct target t;
	cJSON *o, *arr, *e;
	int fd, rc, changed;

	signal(SIGXFSZ, SIG_IGN);
	tc_buf_init(&msg, 1u << 20);
	/* Every line of both files, and a tag and a note for each. */
	tc_buf_init(&diff, (size_t)FS_EDIT_MAX_BYTES * 4 + (1u << 20));
	/* Each bad byte may become a 3-byte U+FFFD. */
	tc_buf_init(&shown, (size_t)FS_DIFF_MAX_BYTES * 3 + 16);
	ne = (size_t)cJSON_GetArraySize(edits);
	if (ne == 0) {
		tc_result_error(res, "'%s': edits is empty; give at least one "
		    "{oldText, newText}", user);
		goto out;
	}
	if ((ev = calloc(ne, sizeof(*ev))) == NULL)
		goto nomem;
	i = 0;
	cJSON_ArrayForEach(it, edits) {
		v = cJSON_GetObjectItemCaseSensitive(it, "oldText");
		ev[i].old = v->valuestring;
		ev[i].oldlen = strlen(v->valuestring);
		v = cJSON_GetObjectItemCaseSensitive(it, "newText");
		ev[i].new = v->valuestring;
		ev[i].newlen = strlen(v->valuestring);
		v = cJSON_GetObjectItemCaseSensitive(it, "replaceAll");
		ev[i].all = cJSON_IsTrue(v);
		i++;
	}
	/* Reading counts too: a rule that refuses reading refuses an edit,
	 * whose diff shows the file. */
	if (target_open(call, user, TC_ACCESS_WRITE | TC_ACCESS_READ, &t,
	    res) != 0)
		goto out;
	if (target_stat(&t, &st) != 0) {
		if (errno == ENOENT)
			tc_result_error(res, "'%s': not found (write_file "
			    "creates a file)", user);
		else
			open_error(res, &t, errno);
		goto done;
	}
	if (replaceable(&t, &st, "edit_file", res) != 0)
		goto done;
	if ((uintmax_t)st.st_size > FS_EDIT_MAX_BYTES) {
		tc_result_error(res, "'%s': too large to edit (%jd bytes; "
		    "edit_file handles at most %u)", user,
		    (intmax_t)st.st_size, FS_EDIT_MAX_BYTES);
		goto done;
	}
	fd = tc_path_openat_in(t.dfd, t.name, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0) {
		open_error(res, &t, errno);
		goto done;
	}
	if (fstat(fd, &st2) != 0 || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino || !S_ISREG(st2.st_mode) ||
	    st2.st_size > (off_t)FS_EDIT_MAX_BYTES) {
		close(fd);
		tc_result_error(res, "'%s': changed while it was opened; try "
		    "again", user);
		goto done;
	}
	rc = read_whole(fd, (size_t)st2.st_size, &orig, &origlen);
	close(fd);
	if (rc != 0) {
		tc_result_error(res, "'%s': cannot read: %s", user,
		    strerror(errno));
		goto done;
	}
	st = st2;
	if ((buf = malloc(origlen + 1)) == NULL)
		goto nomem_t;
	memcpy(buf, orig, origlen + 1);
	len = origlen;
	for (i = 0; i < ne; i++) {
		rc = apply_edit(&buf, &len, &ev[i], i, user, &msg);
		if (rc == -2)
			goto nomem_t;
		if (rc != 0) {
			long_error(res, &msg);
			goto done;
		}
		total += ev[i].count;
	}
	if (unified_diff(orig, origlen, buf, len, t.p.rel, &diff) != 0)
		goto nomem_t;
	/* The diff as sent: valid UTF-8, and bounded. */
	tc_buf_append_utf8(&shown, diff.data ? diff.data : "",
	    cut_utf8(diff.data, diff.len, FS_DIFF_MAX_BYTES));
	changed = len != origlen || memcmp(buf, orig, len) != 0;
	if (!dry && changed && replace_file(&t, buf, len, st.st_mode, 1, &st,
	    "edit_file", res) != 0)
		goto done;
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", t.p.display);
	cJSON_AddBoolToObject(o, "dryRun", dry);
	cJSON_AddBoolToObject(o, "changed", changed);
	cJSON_AddNumberToObject(o, "replacements", (double)total);
	arr = cJSON_AddArrayToObject(o, "edits");
	for (i = 0; i < ne; i++) {
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "replacements",
		    (double)ev[i].count);
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_AddNumberToObject(o, "size", (double)len);
	cJSON_AddStringToObject(o, "diff", shown.data ? shown.data : "");
	if (diff.len > FS_DIFF_MAX_BYTES)
		cJSON_AddTrueToObject(o, "diff_truncated");
	tc_result_printf(res, "%s %s: %zu edit%s, %zu replacement%s%s.\n",
	    dry ? "Dry run, nothing written:" : "Edited", t.p.display, ne,
	    ne == 1 ? "" : "s", total, total == 1 ? "" : "s",
	    changed ? "" : "; the file is unchanged");
	if (shown.len > 0)
		tc_result_text(res, shown.data, shown.len);
	if (diff.len > FS_DIFF_MAX_BYTES)
		tc_result_printf(res, "[diff cut at %u bytes]\n",
		    FS_DIFF_MAX_BYTES);
	goto done;
nomem_t:
	tc_result_error(res, "'%s': out of memory", user);
done:
	target_release(&t);
	goto out;
nomem:
	tc_result_error(res, "'%s': out of memory", user);
out:
	free(buf);
	free(orig);
	free(ev);
	tc_buf_release(&msg);
	tc_buf_release(&diff);
	tc_buf_release(&shown);
	return 0;
}

/* --- create_directory --- */

/* Splits |rel| into its components, without empty ones and ".". */
static size_t
components(char *rel, char **v, size_t max)
{
	size_t n = 0;
	char *s = rel, *e;

	while (*s != '\0' && n < max) {
		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = s + strcspn(s, "/");
		if (*e != '\0')
			*e++ = '\0';
		if (strcmp(s, ".") != 0)
			v[n++] = s;
		s = e;
	}
	return n;
}

/* Opens the first |n| components of |v| beneath |rootfd|, O_PATH. */
static int
open_prefix(int rootfd, char **v, size_t n)
{
	char path[PATH_MAX + 1];
	size_t i, len = 0;
	int k;

	path[0] = '\0';
	if (n == 0)
		return tc_path_openat_in(rootfd, ".", O_PATH | O_DIRECTORY,
		    0);
	for (i = 0; i < n; i++) {
		k = snprintf(path + len, sizeof(path) - len, "%s%s",
		    i ? "/" : "", v[i]);
		if (k < 0 || (size_t)k >= sizeof(path) - len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		len += (size_t)k;
	}
	return tc_path_openat_in(rootfd, path, O_PATH | O_DIRECTORY, 0);
}

int
fs_create_directory(const struct tc_call *call, struct tc_result *res)
{
	const struct tc_policy *pol = call->policy;
	const char *user = tc_arg_str(call, "path");
	const struct tc_deny *rule;
	struct tc_diag d = { "", 0 };
	struct tc_path p;
	struct tc_where w = { NULL, NULL };
	char *rel = NULL, **v = NULL, *abs = NULL;
	const char *why;
	size_t n, i, have, alen, acap, reloff;
	int fd = -1, nfd, err;
	long r;
	cJSON *o;

	if (tc_path_map(pol, user, &p, &d) != 0)
		return tc_result_error(res, "%s", d.msg);
	if (tc_path_check(pol, &p, TC_ACCESS_WRITE) != 0) {
		tc_path_open_error(&d, &p, user, errno);
		tc_result_error(res, "%s", d.msg);
		goto out;
	}
	n = strlen(p.rel);
	if ((rel = strdup(p.rel)) == NULL ||
	    (v = calloc(n / 2 + 2, sizeof(*v))) == NULL)
		goto nomem;
	n = components(rel, v, n / 2 + 2);
	/* The deepest directory that exists already, resolved beneath the
	 * root as any path is ("..", and symlinks inside the root, work
	 * there); what is missing below it is made one name at a time. */
	for (have = n;; have--) {
		if ((fd = open_prefix(pol->roots[p.root].fd, v, have)) >= 0)
			break;
		err = errno;
		if (err != ENOENT || have == 0) {
			if (err == ENOTDIR)
				tc_result_error(res, "'%s': exists, or has a "
				    "component that exists, and is not a "
				    "directory", user);
			else {
				tc_path_error(&d, user, err);
				tc_result_error(res, "%s", d.msg);
			}
			goto out;
		}
	}
	for (i = have; i < n; i++)
		if (strcmp(v[i], "..") == 0) {
			tc_result_error(res, "'%s': has '..' after a "
			    "directory that does not exist", user);
			goto out;
		}
	if (have < n) {
		if (tc_path_where(pol, p.root, fd, &w, &why) != 0) {
			if (errno == ENOMEM)
				goto nomem;
			tc_result_error(res, "'%s': cannot be checked against "
			    "the policy: %s", user, why);
			goto out;
		}
		if ((r = innermost_root(pol, w.abs)) < 0) {
			tc_result_error(res, "'%s': cannot be checked against "
			    "the policy: it is no longer beneath an allowed "
			    "directory", user);
			goto out;
		}
		if (!(pol->roots[r].flags & TC_ROOT_WRITE)) {
			tc_result_error(res, "'%s': in a read-only directory "
			    "(%s); only read-write directories may be "
			    "changed", user, pol->roots[r].path);
			goto out;
		}
		alen = strlen(w.abs);
		reloff = strcmp(w.rel, ".") == 0 ? alen + (alen > 1) :
		    (size_t)(w.rel - w.abs);
		acap = alen + strlen(p.rel) + 2;
		if ((abs = malloc(acap)) == NULL)
			goto nomem;
		memcpy(abs, w.abs, alen + 1);
		/* Every directory to be made is checked before the first
		 * is. */
		for (i = have; i < n; i++) {
			snprintf(abs + alen, acap - alen, "%s%s",
			    alen > 1 ? "/" : "", v[i]);
			alen += strlen(abs + alen);
			if ((rule = denied_at(pol, abs, reloff,
			    TC_ACCESS_WRITE)) != NULL) {
				tc_path_denied(&d, user, rule);
				tc_result_error(res, "%s", d.msg);
				goto out;
			}
		}
	}
	for (i = have; i < n; i++) {
		if (mkdirat(fd, v[i], 0755) != 0 && errno != EEXIST) {
			err = errno;
			tc_result_error(res, "'%s': cannot create '%s': %s",
			    user, v[i], write_errstr(err));
			goto out;
		}
		/* Never through a symlink put there meanwhile. */
		nfd = tc_path_openat_in(fd, v[i], O_PATH | O_DIRECTORY |
		    O_NOFOLLOW, 0);
		if (nfd < 0) {
			tc_result_error(res, "'%s': '%s' exists and is not a "
			    "directory (a file or a symbolic link)", user,
			    v[i]);
			goto out;
		}
		close(fd);
		fd = nfd;
	}
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", p.display);
	cJSON_AddBoolToObject(o, "created", have < n);
	tc_result_printf(res, have < n ? "Created directory %s\n" :
	    "Directory %s already exists\n", p.display);
	goto out;
nomem:
	tc_result_error(res, "'%s': out of memory", user);
out:
	if (fd >= 0)
		close(fd);
	tc_where_release(&w);
	free(abs);
	free(v);
	free(rel);
	tc_path_release(&p);
	return 0;
}

/* --- move_file --- */

struct walk {
	const struct tc_policy	*pol;
	char			 sub[PATH_MAX];	/* beneath the directory */
	char			 buf[PATH_MAX * 2];
	const struct target	*at[2];		/* old and new place */
	size_t			 seen;
	const struct tc_deny	*rule;
	const char		*why;
};

/* Checks entry |sub| beneath both places.  Returns 0 or -1. */
static int
walk_check(struct walk *wk)
{
	const struct target *t;
	int i, k;

	for (i = 0; i < 2; i++) {
		t = wk->at[i];
		k = snprintf(wk->buf, sizeof(wk->buf), "%s/%s", t->abs,
		    wk->sub);
		if (k < 0 || (size_t)k >= sizeof(wk->buf)) {
			wk->why = "a path beneath it is too long";
			return -1;
		}
		if ((wk->rule = denied_at(wk->pol, wk->buf, t->reloff,
		    TC_ACCESS_WRITE)) != NULL)
			return -1;
	}
	return 0;
}

/*
 * Walks the directory open as |fd| (taking it), checking every entry
 * beneath it against the deny rules for writing at both places.  Returns
 * 0, or -1 with wk->rule or wk->why set.
 */
static int
walk_dir(struct walk *wk, int fd, size_t sublen, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int type, cfd, rc = 0, k;

	if (depth > WALK_DEPTH) {
		close(fd);
		wk->why = "it is nested too deep to check";
		return -1;
	}
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		wk->why = "a directory beneath it cannot be read";
		return -1;
	}
	while (rc == 0 && (de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++wk->seen > WALK_MAX) {
			wk->why = "it holds too many entries to check";
			rc = -1;
			break;
		}
		k = snprintf(wk->sub + sublen, sizeof(wk->sub) - sublen,
		    "%s%s", sublen ? "/" : "", de->d_name);
		if (k < 0 || (size_t)k >= sizeof(wk->sub) - sublen) {
			wk->why = "a path beneath it is too long";
			rc = -1;
			break;
		}
		if ((rc = walk_check(wk)) != 0)
			break;
		type = de->d_type;
		if (type == DT_UNKNOWN && fstatat(dirfd(dir), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0)
			type = IFTODT(st.st_mode);
		if (type != DT_DIR)
			continue;
		cfd = tc_path_openat_in(dirfd(dir), de->d_name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW, 0);
		if (cfd < 0) {
			wk->why = "a directory beneath it cannot be read";
			rc = -1;
			break;
		}
		rc = walk_dir(wk, cfd, sublen + (size_t)k, depth + 1);
	}
	/* On a refusal the entry stays named, for the message. */
	if (rc == 0)
		wk->sub[sublen] = '\0';
	closedir(dir);
	return rc;
}

/*
 * For a directory moved from |src| to |dst| (the entry now at |where|):
 * refuses, with |res|, if any entry beneath it is denied for writing at
 * either place.  Returns 0 or -1.
 */
static int
check_tree(const struct tc_policy *pol, const struct target *src,
    const struct target *dst, const struct target *where,
    struct tc_result *res, const char *when)
{
	struct tc_diag d = { "", 0 };
	struct walk *wk;
	int fd, rc;

	if (!tc_deny_any(pol, TC_ACCESS_WRITE))
		return 0;
	if ((wk = calloc(1, sizeof(*wk))) == NULL)
		return tc_result_error(res, "'%s': out of memory", src->user),
		    -1;
	wk->pol = pol;
	wk->at[0] = src;
	wk->at[1] = dst;
	fd = tc_path_openat_in(where->dfd, where->name, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW, 0);
	if (fd < 0) {
		wk->why = "it cannot be read";
		rc = -1;
	} else
		rc = walk_dir(wk, fd, 0, 0);
	if (rc != 0 && wk->rule != NULL) {
		tc_path_denied(&d, wk->sub, wk->rule);
		tc_result_error(res, "'%s': %s, for what is beneath it: %s",
		    src->user, when, d.msg);
	} else if (rc != 0)
		tc_result_error(res, "'%s': a directory is moved only once "
		    "everything beneath it is checked against the deny rules, "
		    "and %s", src->user, wk->why);
	free(wk);
	return rc;
}

int
fs_move_file(const struct tc_call *call, struct tc_result *res)
{
	const struct tc_policy *pol = call->policy;
	const char *suser = tc_arg_str(call, "source");
	const char *duser = tc_arg_str(call, "destination");
	int overwrite = tc_arg_bool(call, "overwrite", 0), err, existed;
	struct target s, t;
	struct stat st, dt;
	cJSON *o;

	memset(&t, 0, sizeof(t));
	t.dfd = -1;
	if (target_open(call, suser, TC_ACCESS_WRITE, &s, res) != 0)
		return 0;
	if (target_stat(&s, &st) != 0) {
		if (errno == ENOENT)
			tc_result_error(res, "'%s': not found", suser);
		else
			open_error(res, &s, errno);
		goto out;
	}
	if (is_root(pol, &st)) {
		tc_result_error(res, "'%s': is an allowed directory itself, "
		    "which is never moved", suser);
		goto out;
	}
	if (target_open(call, duser, TC_ACCESS_WRITE, &t, res) != 0)
		goto out;
	existed = target_stat(&t, &dt) == 0;
	if (existed && is_root(pol, &dt)) {
		tc_result_error(res, "'%s': is an allowed directory itself, "
		    "which is never replaced", duser);
		goto out;
	}
	if (existed && !overwrite) {
		tc_result_error(res, "'%s': already exists; pass overwrite: "
		    "true to replace it", duser);
		goto out;
	}
	if (S_ISDIR(st.st_mode) && check_tree(pol, &s, &t, &s, res,
	    "not moved") != 0)
		goto out;
	if (rename2(s.dfd, s.name, t.dfd, t.name, overwrite ? 0 :
	    RENAME_NOREPLACE) != 0) {
		err = errno;
		switch (err) {
		case EEXIST:
			tc_result_error(res, "'%s': already exists; pass "
			    "overwrite: true to replace it", duser);
			break;
		case ENOTEMPTY:
			tc_result_error(res, "'%s': is a directory that is not "
			    "empty, which is never replaced", duser);
			break;
		case EISDIR:
			tc_result_error(res, "'%s': is a directory, and '%s' "
			    "is not", duser, suser);
			break;
		case ENOTDIR:
			tc_result_error(res, "'%s': is not a directory, and "
			    "'%s' is", duser, suser);
			break;
		case EXDEV:
			tc_result_error(res, "'%s' and '%s' are on different "
			    "filesystems; move_file does not copy (write the "
			    "file anew and delete the old one)", suser, duser);
			break;
		case EINVAL:
			tc_result_error(res, "'%s': cannot be moved into "
			    "itself or beneath itself", suser);
			break;
		case ENOENT:
			tc_result_error(res, "'%s': not found", suser);
			break;
		default:
			tc_result_error(res, "'%s': cannot be moved to '%s': "
			    "%s", suser, duser, write_errstr(err));
		}
		goto out;
	}
	/* Checked again where it is now: an entry made beneath it during
	 * the move is not let into a denied place; the move is undone. */
	if (S_ISDIR(st.st_mode) && check_tree(pol, &s, &t, &t, res,
	    "moved back") != 0) {
		if (rename2(t.dfd, t.name, s.dfd, s.name,
		    RENAME_NOREPLACE) != 0)
			tc_result_error(res, "'%s': moved to '%s' holds an "
			    "entry the deny rules refuse, and could not be "
			    "moved back: %s", suser, duser, strerror(errno));
		goto out;
	}
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "source", s.p.display);
	cJSON_AddStringToObject(o, "destination", t.p.display);
	cJSON_AddStringToObject(o, "type", type_name(st.st_mode));
	cJSON_AddBoolToObject(o, "replaced", existed);
	tc_result_printf(res, "Moved %s to %s%s\n", s.p.display, t.p.display,
	    existed ? " (replacing what was there)" : "");
out:
	target_release(&t);
	target_release(&s);
	return 0;
}

/* --- delete_file --- */

int
fs_delete_file(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	int rmdir_ok = tc_arg_bool(call, "directory", 0), err;
	struct target t;
	struct stat st;
	cJSON *o;

	if (target_open(call, user, TC_ACCESS_WRITE, &t, res) != 0)
		return 0;
	if (target_stat(&t, &st) != 0) {
		if (errno == ENOENT)
			tc_result_error(res, "'%s': not found", user);
		else
			open_error(res, &t, errno);
		goto out;
	}
	if (is_root(call->policy, &st)) {
		tc_result_error(res, "'%s': is an allowed directory itself, "
		    "which is never deleted", user);
		goto out;
	}
	if (S_ISDIR(st.st_mode) && !rmdir_ok) {
		tc_result_error(res, "'%s': is a directory; delete_file "
		    "removes files and symbolic links, and an empty directory "
		    "only with directory: true", user);
		goto out;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) &&
	    !S_ISLNK(st.st_mode)) {
		tc_result_error(res, "'%s': not a regular file or symbolic "
		    "link (it is a %s)", user, type_name(st.st_mode));
		goto out;
	}
	if (unlinkat(t.dfd, t.name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR :
	    0) != 0) {
		err = errno;
		if (err == ENOTEMPTY || err == EEXIST)
			tc_result_error(res, "'%s': directory not empty; "
			    "delete_file removes only empty directories",
			    user);
		else if (err == ENOENT)
			tc_result_error(res, "'%s': not found", user);
		else if (err == EISDIR || err == ENOTDIR)
			tc_result_error(res, "'%s': changed while it was "
			    "being deleted; nothing was deleted", user);
		else
			tc_result_error(res, "'%s': cannot delete: %s", user,
			    write_errstr(err));
		goto out;
	}
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", t.p.display);
	cJSON_AddStringToObject(o, "type", type_name(st.st_mode));
	tc_result_printf(res, "Deleted %s %s\n", S_ISDIR(st.st_mode) ?
	    "directory" : S_ISLNK(st.st_mode) ? "symbolic link" : "file",
	    t.p.display);
out:
	target_release(&t);
	return 0;
}
