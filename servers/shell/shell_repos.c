/*
 * shell_repos.c: how toolcell-shell finds what of git it keeps read-only
 * beneath the writable directories (the profile's read_only_found;
 * sandbox/profile.h, sandbox/mounts.c; the names themselves, the
 * profile's read_only, are the policy's: shell_policy.c), so that no call
 * can change what git runs as the user, outside the sandbox, afterwards:
 *
 *	.git	at the top of each writable directory and one level down:
 *		a repository's hooks and configuration (core.fsmonitor,
 *		core.pager, aliases), or a worktree's or submodule's .git
 *		file, which says where they are;
 *	the .git of each submodule a kept repository's .git/modules names
 *		(its core.worktree there, read from a configuration already
 *		bound read-only): git status in the repository runs git in
 *		each submodule that has one, with that one's configuration;
 *		and each directory on the way to it, so that none is renamed
 *		aside and replaced;
 *	the user's own git configuration (~/.gitconfig, ~/.config/git or
 *		$XDG_CONFIG_HOME/git), where a writable directory holds it:
 *		it applies to every repository.
 *
 * Not kept: a .git deeper down that no kept repository names as a
 * submodule; a submodule not checked out (its .git is not there to bind);
 * a hooks directory in the work tree (core.hooksPath = .husky), which is
 * a tracked file like any other, whose changes git diff shows; and a .git
 * a program makes.  docs/shell.md, "Repositories", says more.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/glob.h"
#include "policy/policy.h"
#include "sandbox/profile.h"
#include "shell.h"

/* How deep submodules nest, and a module's name splits into directories,
 * at most. */
#define MODULES_DEPTH	32

/* A configuration file read for its core.worktree, at most. */
#define CONFIG_MAX	(64 << 10)

/* A walk of the submodules git knows of, for one writable root: the
 * child's mounts, the root's fd and its canonical path. */
struct walk {
	struct tc_keep	*k;
	int		 at;
	const char	*root;
};

/* Opens the absolute |path| through no link. */
static int
open_abs(const char *path, int flags)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_CLOEXEC | O_NOFOLLOW);
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/*
 * Reads the regular file |path| (CONFIG_MAX at most) into a string the
 * caller frees.  Returns it; NULL with errno ENOENT where there is none
 * (nothing, a link, not a regular file, not ours to read), EFBIG where it
 * is larger, another errno on a failure.
 */
static char *
read_small(const char *path, size_t *lenp)
{
	struct stat st;
	size_t len = 0;
	ssize_t n;
	char *buf;
	int fd, e;

	if ((fd = open_abs(path, O_RDONLY | O_NONBLOCK)) < 0) {
		if (errno == ENOTDIR || errno == ELOOP || errno == EACCES)
			errno = ENOENT;
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > CONFIG_MAX) {
		e = fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? EFBIG :
		    ENOENT;
		close(fd);
		errno = e;
		return NULL;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return NULL;
	}
	while (len < (size_t)st.st_size && (n = read(fd, buf + len,
	    (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	close(fd);
	/* All of it, or a later core.worktree could be missed. */
	if (len != (size_t)st.st_size) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

/*
 * Reads one git configuration value at *|pp| (before |end|) into |out|
 * (NULL: read past it), as git does: whitespace around it dropped, and
 * within it outside quotes each blank one space; '"' quotes, where ';'
 * and '#' do not begin a comment; \\, \", \n, \t, \b and a newline after
 * '\' (the line goes on).  *|pp| is left after the line.  Returns 0, or
 * -1 for one git would refuse, or too long for |out|.
 */
static int
config_value(const char **pp, const char *end, char *out, size_t size)
{
	const char *p = *pp;
	size_t len = 0, space = 0;
	int quote = 0, comment = 0, c;

	for (; p < end; p++) {
		c = (unsigned char)*p;
		if (c == '\n') {
			p++;
			break;
		}
		if (comment)
			continue;
		if ((c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
		    c == '\v') && !quote) {
			if (len > 0)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = 1;
			continue;
		}
		for (; space > 0; space--) {
			if (out != NULL && len + 1 >= size)
				return -1;
			if (out != NULL)
				out[len] = ' ';
			len++;
		}
		if (c == '\\') {
			if (++p >= end)
				return -1;
			switch (*p) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				c = (unsigned char)*p;
				break;
			default:
				return -1;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		if (out != NULL && len + 1 >= size)
			return -1;
		if (out != NULL)
			out[len] = (char)c;
		len++;
	}
	*pp = p;
	if (out != NULL)
		out[len] = '\0';
	return quote ? -1 : 0;
}

static const char *
skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static const char *
skip_line(const char *p, const char *end)
{
	while (p < end && *p != '\n')
		p++;
	return p;
}

/* A name's characters: a section's letters, digits, '-' and '.', a
 * key's without '.'. */
static const char *
skip_name(const char *p, const char *end, int dot)
{
	while (p < end && (isalnum((unsigned char)*p) || *p == '-' ||
	    (dot && *p == '.')))
		p++;
	return p;
}

int
shell_config_worktree(const char *buf, size_t len, char *out, size_t size)
{
	const char *p = buf, *end = buf + len, *name;
	int core = 0, found = 0, want;
	size_t n;

	/* A byte order mark git skips. */
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while ((p = skip_blank(p, end)) < end) {
		if (*p == '\n') {
			p++;
			continue;
		}
		if (*p == '#' || *p == ';') {
			p = skip_line(p, end);
			continue;
		}
		if (*p == '[') {
			/* [core], any case; [section "sub"] is not it; a key
			 * may follow on the line. */
			name = ++p;
			p = skip_name(p, end, 1);
			n = (size_t)(p - name);
			core = n == 4 && strncasecmp(name, "core", 4) == 0;
			p = skip_blank(p, end);
			if (p < end && *p == '"') {
				core = 0;
				for (p++; p < end && *p != '"' && *p != '\n';
				    p++)
					if (*p == '\\' && p + 1 < end &&
					    p[1] != '\n')
						p++;
				if (p >= end || *p != '"')
					goto bad;
				p = skip_blank(p + 1, end);
			}
			if (p >= end || *p != ']')
				goto bad;
			p++;
			continue;
		}
		name = p;
		p = skip_name(p, end, 0);
		n = (size_t)(p - name);
		if (n == 0 || !isalpha((unsigned char)*name))
			goto bad;
		p = skip_blank(p, end);
		if (p >= end || *p == '\n' || *p == '#' || *p == ';') {
			/* A key without a value: true. */
			p = skip_line(p, end);
			continue;
		}
		if (*p++ != '=')
			goto bad;
		want = core && n == 8 && strncasecmp(name, "worktree", 8) == 0;
		if (config_value(&p, end, want ? out : NULL, size) != 0)
			goto bad;
		found |= want;
	}
	return found;
bad:
	errno = EBADMSG;
	return -1;
}

/*
 * Joins |path| to the directory |base| (both absolute, or |path|
 * relative to |base|) into |out| with "." and ".." taken out by their
 * names: what they name is opened later through no link.  Returns 0, or
 * -1 where it does not fit.
 */
static int
join(const char *base, const char *path, char *out, size_t size)
{
	char tmp[2 * PATH_MAX], *c, *save = NULL;
	size_t len = 0, n;

	if (snprintf(tmp, sizeof(tmp), "%s/%s", path[0] == '/' ? "" : base,
	    path) >= (int)sizeof(tmp))
		return -1;
	for (c = strtok_r(tmp, "/", &save); c != NULL;
	    c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			continue;
		}
		n = strlen(c);
		if (len + 1 + n >= size)
			return -1;
		out[len++] = '/';
		memcpy(out + len, c, n);
		len += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return 0;
}

/*
 * Keeps the absolute |path| read-only if it lies beneath the walk's root,
 * the directories from |top| (absolute; above the root: from the root's
 * top) down to it bound over themselves.  Returns 0, or -1 with errno.
 */
static int
keep_abs(struct walk *w, const char *top, const char *path)
{
	const char *rel, *trel;

	if ((rel = tc_path_beneath(path, w->root)) == NULL || *rel == '\0')
		return 0;
	/* Pinned from the root's top where |path| is not beneath |top| (a
	 * submodule whose work tree lies outside its superproject's). */
	if ((trel = tc_path_beneath(top, w->root)) == NULL ||
	    (*trel != '\0' && (strncmp(rel, trel, strlen(trel)) != 0 ||
	    rel[strlen(trel)] != '/')))
		trel = "";
	return tc_keep_beneath(w->k, w->at, trel, rel) < 0 ? -1 : 0;
}

static int	module_dir(struct walk *w, const char *mdir,
		    const char *worktree, int depth);

/* The modules of git directory |gitdir|, whose work tree is |worktree|. */
static int
modules_of(struct walk *w, const char *gitdir, const char *worktree,
    int depth)
{
	char mdir[PATH_MAX];

	if (snprintf(mdir, sizeof(mdir), "%s/modules", gitdir) >=
	    (int)sizeof(mdir))
		return 0;
	return module_dir(w, mdir, worktree, depth);
}

/*
 * Each module of |mdir| (a git directory's modules, or a part of it where
 * a module's name has a '/'), whose work tree lies beneath |worktree|:
 * its .git kept, with the directories on the way, then its own modules.
 * Returns 0, or -1 with errno (ELOOP: nested too deep to follow; EBADMSG:
 * a configuration git would not read; EFBIG: one too large to).
 */
static int
module_dir(struct walk *w, const char *mdir, const char *worktree, int depth)
{
	char sub[PATH_MAX], cfg[PATH_MAX], wt[PATH_MAX], target[PATH_MAX];
	char dotgit[PATH_MAX];
	struct dirent *e;
	struct stat st;
	size_t len;
	char *buf;
	DIR *dir;
	int fd, rc = 0, found, err;

	if (depth > MODULES_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	if ((fd = open_abs(mdir, O_RDONLY | O_DIRECTORY)) < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ||
		    errno == ELOOP ? 0 : -1;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	for (errno = 0; rc == 0 && (e = readdir(dir)) != NULL; errno = 0) {
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    fstatat(dirfd(dir), e->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", mdir, e->d_name) >=
		    (int)sizeof(sub) || snprintf(cfg, sizeof(cfg),
		    "%s/config", sub) >= (int)sizeof(cfg)) {
			errno = ENAMETOOLONG;
			rc = -1;
			break;
		}
		if ((buf = read_small(cfg, &len)) == NULL) {
			/* No module here: a part of a module's name. */
			if ((rc = errno == ENOENT ? module_dir(w, sub,
			    worktree, depth + 1) : -1) != 0)
				break;
			continue;
		}
		found = shell_config_worktree(buf, len, wt, sizeof(wt));
		free(buf);
		if (found < 0) {
			rc = -1;
			break;
		}
		/* Relative to the module's git directory. */
		if (found == 0 || join(sub, wt, target, sizeof(target)) != 0 ||
		    snprintf(dotgit, sizeof(dotgit), "%s/.git", target) >=
		    (int)sizeof(dotgit))
			continue;
		if (keep_abs(w, worktree, dotgit) != 0 ||
		    modules_of(w, sub, target, depth + 1) != 0) {
			rc = -1;
			break;
		}
	}
	/* Every failure breaks out with its errno, which the loop's step
	 * would clear; a directory not read to its end leaves a module
	 * unkept. */
	if (rc == 0 && e == NULL && errno != 0)
		rc = -1;
	err = errno;
	closedir(dir);
	errno = err;
	return rc;
}

/* 1 if |dir| looks like a git directory, as git asks (a HEAD in it):
 * a .git file a call wrote ("gitdir: ..") names no directory to keep. */
static int
is_gitdir(const char *dir)
{
	char head[PATH_MAX];
	struct stat st;

	return snprintf(head, sizeof(head), "%s/HEAD", dir) <
	    (int)sizeof(head) && lstat(head, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Reads the git directory a .git file |file| names ("gitdir: PATH",
 * relative to the file's directory |worktree|) into |out|, canonical.
 * Returns 1, or 0 where there is none to read.
 */
static int
gitfile(const char *worktree, const char *file, char *out)
{
	char path[PATH_MAX], *buf, *v;
	size_t len;

	if ((buf = read_small(file, &len)) == NULL)
		return 0;
	v = buf;
	if (strncmp(v, "gitdir:", 7) != 0) {
		free(buf);
		return 0;
	}
	v += 7 + strspn(v + 7, " \t");
	v[strcspn(v, "\r\n")] = '\0';
	if (*v == '\0' || join(worktree, v, path, sizeof(path)) != 0 ||
	    realpath(path, out) == NULL || !is_gitdir(out)) {
		free(buf);
		return 0;
	}
	free(buf);
	return 1;
}

static int	path_file(const char *base, const char *file, char *out);

/*
 * For the repository whose .git is |dotgit| and work tree |worktree|
 * (absolute): the .git of each submodule its git directory knows, and,
 * for a .git file, the git directory it names and that one's common
 * directory (a linked worktree's), where they lie beneath the root.
 */
static int
repository(struct walk *w, const char *worktree, const char *dotgit)
{
	char gd[PATH_MAX], cd[PATH_MAX], file[PATH_MAX];
	struct stat st;

	if (lstat(dotgit, &st) != 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		return modules_of(w, dotgit, worktree, 0);
	if (!S_ISREG(st.st_mode) || !gitfile(worktree, dotgit, gd))
		return 0;
	if (keep_abs(w, w->root, gd) != 0)
		return -1;
	if (snprintf(file, sizeof(file), "%s/commondir", gd) <
	    (int)sizeof(file) && path_file(gd, file, cd) &&
	    keep_abs(w, w->root, cd) != 0)
		return -1;
	return modules_of(w, gd, worktree, 0);
}

/*
 * Reads the path a file holds alone (a linked worktree's commondir),
 * relative to |base|, into |out|, canonical.  Returns 1, or 0.
 */
static int
path_file(const char *base, const char *file, char *out)
{
	char path[PATH_MAX], *buf;
	size_t len;
	int ok;

	if ((buf = read_small(file, &len)) == NULL)
		return 0;
	buf[strcspn(buf, "\r\n")] = '\0';
	ok = buf[0] != '\0' && join(base, buf, path, sizeof(path)) == 0 &&
	    realpath(path, out) != NULL;
	free(buf);
	return ok;
}

/*
 * The profile's read_only_found.  For a kept .git |place| in |dir| (both
 * beneath the root's fd |at|): the repository's submodules, and a .git
 * file's git directory.  For the root itself (|place| NULL): the
 * repository the root lies in, if not at its top, whose .git is beyond
 * the calls' reach but whose submodules beneath the root are theirs to
 * change, and git status in it runs git in each.
 */
int
shell_repo_found(struct tc_keep *k, int at, const char *dir,
    const char *place)
{
	struct walk w = { k, at, tc_keep_root(k) };
	char wt[PATH_MAX], dotgit[PATH_MAX];
	struct stat st;
	char *slash;

	if (place != NULL) {
		if (join(w.root, dir, wt, sizeof(wt)) != 0 ||
		    join(w.root, place, dotgit, sizeof(dotgit)) != 0)
			return 0;
		return repository(&w, wt, dotgit);
	}
	if (snprintf(wt, sizeof(wt), "%s", w.root) >= (int)sizeof(wt))
		return 0;
	for (;;) {
		if (snprintf(dotgit, sizeof(dotgit), "%s/.git",
		    strcmp(wt, "/") == 0 ? "" : wt) >= (int)sizeof(dotgit))
			return 0;
		if (lstat(dotgit, &st) == 0 && (S_ISDIR(st.st_mode) ||
		    S_ISREG(st.st_mode)))
			/* At the root's top it is a place of its own. */
			return strcmp(wt, w.root) == 0 ? 0 :
			    repository(&w, wt, dotgit);
		if (strcmp(wt, "/") == 0 || (slash = strrchr(wt, '/')) == NULL)
			return 0;
		if (slash == wt)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}
