/*
 * fs_write.c: toolcell-fs's tools that change files: write_file,
 * create_directory, move_file and delete_file, and the target machinery
 * they share with edit_file (fs_edit.c, through fs_write.h).  They run in
 * the confined child of the fs-write profile.
 *
 * Every change is made relative to a directory fd: the parent directory of
 * the path is opened beneath its root with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS), where it really is is checked (deny rules for
 * writing, a read-only directory nested in a writable one), and only then
 * is the last component created, renamed or removed with an *at() call on
 * that fd, which never follows it.  A file is written whole into a new
 * file in the target's directory, synced, and renamed over it, so a
 * reader, a crash or a concurrent writer sees the old file or a new one,
 * never a mixture; a symlink there is refused rather than followed, and so
 * is a file with more than one hard link.  The new file is unnamed
 * (O_TMPFILE) until it is whole, where the filesystem allows it, so that
 * a call killed meanwhile leaves nothing behind.
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
#include "fs_policy.h"
#include "fs_write.h"
#include "policy/glob.h"
#include "policy/own.h"
#include "policy/path.h"
#include "policy/policy.h"

#define WALK_MAX	10000	/* entries of a moved directory checked */
#define WALK_DEPTH	64

/* renameat2(): glibc turns flags 0 into renameat(2), which no profile
 * lists, so the system call is made directly. */
static int
rename2(int ofd, const char *oname, int nfd, const char *nname,
    unsigned flags)
{
	return (int)syscall(SYS_renameat2, ofd, oname, nfd, nname, flags);
}

/*
 * Returns the innermost root holding directory |dfd|: the first allowed
 * directory met going up through ".." from it, compared by device and
 * inode; or -1 if there is none (it was moved out of every root).  It is
 * decided on the directory itself, not on paths read from /proc at
 * different moments, so that moving directories about while a call runs
 * cannot make a read-only directory nested in a writable one look like a
 * part of the writable one.
 */
static long
innermost_root(const struct tc_policy *pol, int dfd)
{
	struct stat st, up, rs;
	long found = -1;
	int cur, next, depth;
	size_t i;

	if ((cur = openat(dfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	for (depth = 0; depth < PATH_MAX / 2 && found < 0; depth++) {
		if (fstat(cur, &st) != 0)
			break;
		for (i = 0; i < pol->nroots && found < 0; i++)
			if (fstat(pol->roots[i].fd, &rs) == 0 &&
			    rs.st_dev == st.st_dev && rs.st_ino == st.st_ino)
				found = (long)i;
		if (found >= 0)
			break;
		next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (next < 0)
			break;
		if (fstat(next, &up) != 0 || (up.st_dev == st.st_dev &&
		    up.st_ino == st.st_ino)) {
			close(next);	/* "/": nowhere further up */
			break;
		}
		close(cur);
		cur = next;
	}
	close(cur);
	return found;
}

/*
 * Returns the first root that lies beneath the directory |dir| (found by
 * going up through ".." from each root), or -1.  Moving such a directory
 * would move a root, and with it what is read-only inside a writable one.
 */
static long
root_beneath(const struct tc_policy *pol, const struct stat *dir)
{
	struct stat st, up;
	int cur, next, depth;
	size_t i;

	for (i = 0; i < pol->nroots; i++) {
		if ((cur = openat(pol->roots[i].fd, "..", O_PATH |
		    O_DIRECTORY | O_CLOEXEC)) < 0)
			return (long)i;		/* cannot tell: refuse */
		for (depth = 0; depth < PATH_MAX / 2; depth++) {
			if (fstat(cur, &st) != 0)
				break;
			if (st.st_dev == dir->st_dev &&
			    st.st_ino == dir->st_ino) {
				close(cur);
				return (long)i;
			}
			next = openat(cur, "..", O_PATH | O_DIRECTORY |
			    O_CLOEXEC);
			if (next < 0 || fstat(next, &up) != 0 ||
			    (up.st_dev == st.st_dev &&
			    up.st_ino == st.st_ino)) {
				if (next >= 0)
					close(next);
				break;
			}
			close(cur);
			cur = next;
		}
		close(cur);
	}
	return -1;
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

/*
 * Returns the rule refusing the directory |dfd| or its entry |name| as
 * one of the server's own files, or NULL with errno 0, or NULL with errno
 * set when |dfd| cannot be checked.
 */
static const struct tc_deny *
own_at(const struct tc_policy *pol, int dfd, const char *name)
{
	const struct tc_deny *rule;
	struct stat st;

	errno = 0;
	if (pol->nown == 0)
		return NULL;
	if (tc_own_fd(pol, dfd, &rule) != 0)
		return NULL;
	if (rule == NULL && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		rule = tc_own_stat(pol, &st);
	errno = 0;
	return rule;
}

/* --- the target of a change, lent to fs_edit.c (fs_write.h) --- */

void
fs_target_release(struct target *t)
{
	if (t->dfd >= 0)
		close(t->dfd);
	t->dfd = -1;
	free(t->name);
	free(t->abs);
	t->name = t->abs = NULL;
	tc_path_release(&t->p);
}

int
fs_open_error(struct tc_result *res, struct target *t, int err)
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

int
fs_target_open(const struct tc_call *call, const char *user, unsigned access,
    struct target *t, struct tc_result *res)
{
	const struct tc_policy *pol = call->policy;
	const struct tc_deny *rule;
	struct tc_diag d TC_UNINIT;
	struct tc_where w;
	const char *why, *slash, *rootp;
	char *rel = NULL, *parent = NULL;
	size_t n;
	long r;

	tc_diag_init(&d);
	memset(t, 0, sizeof(*t));
	t->dfd = -1;
	t->user = user;
	t->pol = pol;
	if ((r = tc_path_map(pol, user, &t->p, &d)) != 0)
		return fs_map_error(call, (int)r, &d, res), -1;
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
	/* For a call consent was given for: the directory and the entry
	 * that were asked about, not what a swapped link leads to now. */
	if (t->dfd < 0 || tc_path_pin_check_entry(pol, &t->p, t->dfd,
	    t->name) != 0) {
		fs_open_error(res, t, errno);
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
	if (rule == NULL && ((r = innermost_root(pol, t->dfd)) < 0 ||
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
	/* The server's own files, by identity (own.h): a hard link to one,
	 * or its directory mounted here, is refused as the file itself. */
	if (rule == NULL && (rule = own_at(pol, t->dfd, t->name)) == NULL &&
	    errno != 0) {
		tc_result_error(res, "'%s': cannot be checked against the "
		    "server's own files: %s", user, strerror(errno));
		goto fail;
	}
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
	fs_target_release(t);
	return -1;
}

int
fs_target_stat(const struct target *t, struct stat *st)
{
	return fstatat(t->dfd, t->name, st, AT_SYMLINK_NOFOLLOW);
}

int
fs_replaceable(const struct target *t, const struct stat *st, const char *tool,
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
		    "a %s)", t->user, fs_mode_name(st->st_mode)), -1;
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
 * Makes, in |tmp|, a name for the new file beside the target: the
 * target's name with ".tc-" and random hex after it, so that a listing
 * shows what it belongs to; or ".tc-" and the hex alone where that name
 * would be denied (".env.tc-..." matches the built-in rule for ".env.*"
 * files), since a file a killed call left under it would be hidden from
 * every tool, which could then neither show nor delete it.  Returns 0,
 * or -1 with errno set.
 */
static int
tmp_name(const struct target *t, char *tmp, size_t size)
{
	unsigned char rnd[8];
	char stem[200], hex[2 * sizeof(rnd) + 1], *abs;
	size_t i, dir;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -1;
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(hex + 2 * i, sizeof(hex) - 2 * i, "%02x", rnd[i]);
	/* The stem stays well under NAME_MAX, cut on a character. */
	i = tc_utf8_cut(t->name, strlen(t->name), sizeof(stem) - 1);
	memcpy(stem, t->name, i);
	stem[i] = '\0';
	snprintf(tmp, size, ".%s.tc-%s", stem, hex);
	/* Decided where the name would be: the entry's place, with the
	 * temporary name in place of its own. */
	dir = strlen(t->abs) - strlen(t->name);
	if ((abs = malloc(dir + strlen(tmp) + 1)) == NULL)
		return -1;
	memcpy(abs, t->abs, dir);
	memcpy(abs + dir, tmp, strlen(tmp) + 1);
	if (denied_at(t->pol, abs, t->reloff, TC_ACCESS_READ |
	    TC_ACCESS_WRITE) != NULL)
		snprintf(tmp, size, ".tc-%s", hex);
	free(abs);
	return 0;
}

/*
 * Opens the new file for the target, in its directory: unnamed
 * (O_TMPFILE) where the filesystem allows it, so that a call killed
 * before the end (its deadline, a cancellation) leaves nothing behind;
 * else created under a temporary name, O_EXCL.  *|tmp| is then that name,
 * or "" while the file has none.  Returns the fd, or -1 with errno set.
 */
static int
open_new(const struct target *t, mode_t mode, char *tmp, size_t size)
{
	int fd, tries;

	tmp[0] = '\0';
	fd = tc_path_openat_in(t->dfd, ".", O_TMPFILE | O_WRONLY | O_NOCTTY,
	    mode);
	/* EOPNOTSUPP: a filesystem without it; EISDIR: a kernel older
	 * than O_TMPFILE, which sees only its O_DIRECTORY bit. */
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	for (tries = 0; tries < 16; tries++) {
		if (tmp_name(t, tmp, size) != 0)
			break;
		fd = tc_path_openat_in(t->dfd, tmp, O_WRONLY | O_CREAT |
		    O_EXCL | O_NOFOLLOW | O_NOCTTY, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		tmp[0] = '\0';		/* nothing of ours to remove */
	return fd;
}

/*
 * Gives the unnamed file |fd| a temporary name in the target's directory,
 * in |tmp|, just before it is renamed over the target: linkat() of its
 * /proc/self/fd link (linkat's AT_EMPTY_PATH form wants
 * CAP_DAC_READ_SEARCH, which a child never has).  /proc is there:
 * fs_target_open() could not have decided where the directory is without
 * it.  Returns 0, or -1 with errno set and *|tmp| "".
 */
static int
name_new(const struct target *t, int fd, char *tmp, size_t size)
{
	char self[64];
	int tries;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	for (tries = 0; tries < 16; tries++) {
		if (tmp_name(t, tmp, size) != 0)
			break;
		if (linkat(AT_FDCWD, self, t->dfd, tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	tmp[0] = '\0';
	return -1;
}

int
fs_replace_file(const struct target *t, const char *data, size_t n,
    mode_t mode, int keep_mode, const struct stat *expect, const char *tool,
    struct tc_result *res)
{
	char tmp[NAME_MAX + 1];
	struct stat st;
	mode_t mask = 0;
	int fd, err;

	/* The target's mode is given as the file is made, exactly (no
	 * umask), and only its permission bits: set-user-ID and
	 * set-group-ID never pass to content the model wrote.  No fchmod()
	 * afterwards: the profile has none, since Landlock does not govern
	 * modes and it would reach any file the call can open. */
	if (keep_mode)
		mask = umask(0);
	fd = open_new(t, keep_mode ? mode & 0777 : 0644, tmp, sizeof(tmp));
	err = errno;
	if (keep_mode)
		(void)umask(mask);
	if (fd < 0)
		return tc_result_error(res, "'%s': cannot create a file in "
		    "its directory: %s", t->user, write_errstr(err)), -1;
	if (write_all(fd, data, n) != 0) {
		err = errno;
		tc_result_error(res, "'%s': cannot write: %s", t->user,
		    write_errstr(err));
		goto fail;
	}
	/* Durable before it takes the target's place, unless the policy
	 * says write-sync none. */
	if (fs_policy(t->pol)->write_sync == FS_WRITE_SYNC_EVERY &&
	    fsync(fd) != 0) {
		tc_result_error(res, "'%s': cannot write: %s", t->user,
		    write_errstr(errno));
		goto fail;
	}
	/* Checked once more as late as possible; a swap after this still
	 * only replaces the name in this directory, never a file a link
	 * leads to. */
	if (fs_target_stat(t, &st) == 0) {
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
		if (fs_replaceable(t, &st, tool, res) != 0)
			goto fail;
	} else if (expect != NULL) {
		tc_result_error(res, "'%s': removed while it was being "
		    "edited; nothing was written", t->user);
		goto fail;
	}
	/* The file gets a name only now, whole and synced: from here to
	 * the rename is the only time a killed call leaves one behind. */
	if (tmp[0] == '\0' && name_new(t, fd, tmp, sizeof(tmp)) != 0) {
		tc_result_error(res, "'%s': cannot create a file in its "
		    "directory: %s", t->user, write_errstr(errno));
		goto fail;
	}
	err = close(fd);
	fd = -1;
	if (err != 0) {
		tc_result_error(res, "'%s': cannot write: %s", t->user,
		    write_errstr(errno));
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
	if (tmp[0] != '\0')
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
	if (fs_target_open(call, user, TC_ACCESS_WRITE, &t, res) != 0)
		goto out;
	if (user[strlen(user) - 1] == '/') {
		tc_result_error(res, "'%s': ends with '/'; name a file", user);
		goto done;
	}
	if (fs_target_stat(&t, &st) == 0) {
		if (is_root(call->policy, &st)) {
			tc_result_error(res, "'%s': is an allowed directory "
			    "itself", user);
			goto done;
		}
		if (fs_replaceable(&t, &st, "write_file", res) != 0)
			goto done;
		exists = 1;
	} else if (errno != ENOENT) {
		fs_open_error(res, &t, errno);
		goto done;
	}
	if (fs_replace_file(&t, data, len, st.st_mode, exists, NULL,
	    "write_file", res) != 0)
		goto done;
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", t.p.display);
	cJSON_AddNumberToObject(o, "size", (double)len);
	cJSON_AddBoolToObject(o, "created", !exists);
	cJSON_AddStringToObject(o, "encoding", b64 ? "base64" : "utf8");
	tc_result_printf(res, "Wrote %zu byte%s to ", len,
	    len == 1 ? "" : "s");
	tc_result_shown(res, t.p.display);
	tc_result_printf(res, " (%s)\n", exists ? "replaced" : "created");
done:
	fs_target_release(&t);
out:
	free(decoded);
	return 0;
}

/* --- create_directory --- */

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
	struct tc_diag d TC_UNINIT;
	struct tc_path p;
	struct tc_where w = { NULL, NULL };
	char *rel = NULL, **v = NULL, *abs = NULL;
	const char *why;
	size_t n, i, have, alen, acap, reloff;
	int fd = -1, nfd, err;
	long r;
	cJSON *o;

	tc_diag_init(&d);
	if ((err = tc_path_map(pol, user, &p, &d)) != 0)
		return fs_map_error(call, err, &d, res);
	if (tc_path_check(pol, &p, TC_ACCESS_WRITE) != 0) {
		tc_path_open_error(&d, &p, user, errno);
		tc_result_error(res, "%s", d.msg);
		goto out;
	}
	n = strlen(p.rel);
	if ((rel = strdup(p.rel)) == NULL ||
	    (v = calloc(n / 2 + 2, sizeof(*v))) == NULL)
		goto nomem;
	n = tc_path_split(rel, v, n / 2 + 2);
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
	if (tc_path_pin_check_prefix(pol, &p, fd, n - have) != 0) {
		tc_path_error(&d, user, errno);
		tc_result_error(res, "%s", d.msg);
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
		if ((r = innermost_root(pol, fd)) < 0) {
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
		/* Not in one of the server's own directories, by identity
		 * (own.h): mounted here, it has another name. */
		if ((rule = own_at(pol, fd, ".")) != NULL || errno != 0) {
			if (rule != NULL)
				tc_path_denied(&d, user, rule);
			else
				tc_diag(&d, TC_EDENIED, "'%s': cannot be "
				    "checked against the server's own files: "
				    "%s", user, strerror(errno));
			tc_result_error(res, "%s", d.msg);
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
	tc_result_printf(res, have < n ? "Created directory " :
	    "Directory ");
	tc_result_shown(res, p.display);
	tc_result_printf(res, have < n ? "\n" : " already exists\n");
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
	int type, cfd, rc = 0, k, byino;

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
	byino = wk->pol->nown > 0 && tc_own_dir_exact(dirfd(dir));
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
		if (wk->pol->nown > 0 && (wk->rule = tc_own_entry(wk->pol,
		    dirfd(dir), de->d_name, byino ? de->d_ino : 0)) != NULL) {
			rc = -1;
			break;
		}
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
		/* One of the server's own, mounted here (own.h). */
		if ((wk->rule = own_at(wk->pol, cfd, ".")) != NULL ||
		    errno != 0) {
			if (wk->rule == NULL)
				wk->why = "a directory beneath it cannot be "
				    "checked";
			close(cfd);
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
 * checks every entry beneath it against the deny rules for writing at
 * both places.  Returns 0; or -1 with |why| saying what refused it, and
 * *|denied| set if a rule did (else not everything could be checked).
 */
static int
check_tree(const struct tc_policy *pol, const struct target *src,
    const struct target *dst, const struct target *where, char *why,
    size_t len, int *denied)
{
	struct tc_diag d TC_UNINIT;
	struct walk *wk;
	int fd, rc;

	tc_diag_init(&d);
	*denied = 0;
	if (!tc_deny_any(pol, TC_ACCESS_WRITE) && pol->nown == 0)
		return 0;
	if ((wk = calloc(1, sizeof(*wk))) == NULL) {
		snprintf(why, len, "there was no memory to do so");
		return -1;
	}
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
		tc_text_fmt(why, len, "%s", d.msg);
		*denied = 1;
	} else if (rc != 0)
		tc_text_fmt(why, len, "%s", wk->why);
	free(wk);
	return rc;
}

/*
 * Makes, in |alt|, a name beside the source |s| for a directory moved back
 * when something else took its old name meanwhile: the old name with
 * ".tc-moved-" and random hex after it.  Returns where that is, a new
 * string, or NULL if it cannot be made or the deny rules refuse it there.
 */
static char *
moved_back_name(const struct tc_policy *pol, const struct target *s,
    char *alt, size_t size)
{
	unsigned char rnd[4];
	char stem[200], *abs;
	size_t dir, n;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return NULL;
	n = tc_utf8_cut(s->name, strlen(s->name), sizeof(stem) - 1);
	memcpy(stem, s->name, n);
	stem[n] = '\0';
	snprintf(alt, size, "%s.tc-moved-%02x%02x%02x%02x", stem, rnd[0],
	    rnd[1], rnd[2], rnd[3]);
	dir = strlen(s->abs) - strlen(s->name);
	n = dir + strlen(alt) + 1;
	if ((abs = malloc(n)) == NULL)
		return NULL;
	snprintf(abs, n, "%.*s%s", (int)dir, s->abs, alt);
	if (denied_at(pol, abs, s->reloff, TC_ACCESS_WRITE) != NULL) {
		free(abs);
		return NULL;
	}
	return abs;
}

/*
 * Undoes the move of the directory |s| to |t| after check_tree() refused
 * it where it landed (|why|, |denied|), and makes |res| the error, which
 * says where the directory is now.  It goes back under its old name only
 * if that is still free (RENAME_NOREPLACE: never over what took the name
 * meanwhile), else beside it under a new one: what the deny rules refuse
 * is not left in the destination.  Only if both fail does it stay there,
 * and the error names both places.
 */
static void
undo_move(const struct tc_policy *pol, const struct target *s,
    const struct target *t, const char *why, int denied,
    struct tc_result *res)
{
	char alt[NAME_MAX + 1], cause[640], *abs;
	int err;

	if (denied)
		tc_text_fmt(cause, sizeof(cause),
		    "for what appeared beneath it "
		    "during the move: %s", why);
	else
		tc_text_fmt(cause, sizeof(cause), "since a directory is moved "
		    "only once everything beneath it is checked against the "
		    "deny rules, and %s", why);
	if (rename2(t->dfd, t->name, s->dfd, s->name, RENAME_NOREPLACE) == 0) {
		tc_result_error(res, "'%s': moved back from '%s', %s",
		    s->user, t->user, cause);
		return;
	}
	err = errno;
	/* EEXIST, or ENOTEMPTY from a filesystem that says so: the old
	 * name was taken meanwhile. */
	if ((err == EEXIST || err == ENOTEMPTY) &&
	    (abs = moved_back_name(pol, s, alt, sizeof(alt))) != NULL) {
		if (rename2(t->dfd, t->name, s->dfd, alt,
		    RENAME_NOREPLACE) == 0) {
			tc_result_error(res, "'%s': moved back from '%s' as "
			    "'%s', since its old name was taken meanwhile, %s",
			    s->user, t->user, abs, cause);
			free(abs);
			return;
		}
		free(abs);
	}
	tc_result_error(res, "'%s': moved to '%s', and still there: it could "
	    "not be moved back (%s), %s", s->user, t->user,
	    err == EEXIST || err == ENOTEMPTY ? "its old name was taken "
	    "meanwhile" : strerror(err), cause);
}

int
fs_move_file(const struct tc_call *call, struct tc_result *res)
{
	const struct tc_policy *pol = call->policy;
	const char *suser = tc_arg_str(call, "source");
	const char *duser = tc_arg_str(call, "destination");
	int overwrite = tc_arg_bool(call, "overwrite", 0), err, existed;
	int denied;
	struct target s, t;
	struct stat st, dt;
	char why[512];
	long r;
	cJSON *o;

	memset(&t, 0, sizeof(t));
	t.dfd = -1;
	if (fs_target_open(call, suser, TC_ACCESS_WRITE, &s, res) != 0)
		return 0;
	if (fs_target_stat(&s, &st) != 0) {
		if (errno == ENOENT)
			tc_result_error(res, "'%s': not found", suser);
		else
			fs_open_error(res, &s, errno);
		goto out;
	}
	if (is_root(pol, &st)) {
		tc_result_error(res, "'%s': is an allowed directory itself, "
		    "which is never moved", suser);
		goto out;
	}
	if (S_ISDIR(st.st_mode) && (r = root_beneath(pol, &st)) >= 0) {
		tc_result_error(res, "'%s': holds the allowed directory %s, "
		    "which is never moved", suser, pol->roots[r].path);
		goto out;
	}
	if (fs_target_open(call, duser, TC_ACCESS_WRITE, &t, res) != 0)
		goto out;
	existed = fs_target_stat(&t, &dt) == 0;
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
	if (S_ISDIR(st.st_mode) && check_tree(pol, &s, &t, &s, why,
	    sizeof(why), &denied) != 0) {
		if (denied)
			tc_result_error(res, "'%s': not moved, for what is "
			    "beneath it: %s", suser, why);
		else
			tc_result_error(res, "'%s': a directory is moved only "
			    "once everything beneath it is checked against the "
			    "deny rules, and %s", suser, why);
		goto out;
	}
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
	if (S_ISDIR(st.st_mode) && check_tree(pol, &s, &t, &t, why,
	    sizeof(why), &denied) != 0) {
		undo_move(pol, &s, &t, why, denied, res);
		goto out;
	}
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "source", s.p.display);
	cJSON_AddStringToObject(o, "destination", t.p.display);
	cJSON_AddStringToObject(o, "type", fs_mode_name(st.st_mode));
	cJSON_AddBoolToObject(o, "replaced", existed);
	tc_result_printf(res, "Moved ");
	tc_result_shown(res, s.p.display);
	tc_result_printf(res, " to ");
	tc_result_shown(res, t.p.display);
	tc_result_printf(res, "%s\n", existed ? " (replacing what was there)" :
	    "");
out:
	fs_target_release(&t);
	fs_target_release(&s);
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

	if (fs_target_open(call, user, TC_ACCESS_WRITE, &t, res) != 0)
		return 0;
	if (fs_target_stat(&t, &st) != 0) {
		if (errno == ENOENT)
			tc_result_error(res, "'%s': not found", user);
		else
			fs_open_error(res, &t, errno);
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
		    "link (it is a %s)", user, fs_mode_name(st.st_mode));
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
	cJSON_AddStringToObject(o, "type", fs_mode_name(st.st_mode));
	tc_result_printf(res, "Deleted %s ", S_ISDIR(st.st_mode) ?
	    "directory" : S_ISLNK(st.st_mode) ? "symbolic link" : "file");
	tc_result_shown(res, t.p.display);
	tc_result_printf(res, "\n");
out:
	fs_target_release(&t);
	return 0;
}
