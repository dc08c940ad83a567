/*
 * shell_repos.c: what of git's toolcell-shell keeps read-only beneath the
 * writable directories (the profile's read_only and read_only_found;
 * sandbox/profile.h, sandbox/mounts.c), so that no call can change what
 * git runs as the user, outside the sandbox, afterwards:
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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/policy.h"
#include "sandbox/profile.h"
#include "shell.h"

/* How deep submodules nest, and a module's name splits into directories,
 * at most. */
#define MODULES_DEPTH	8

/* A configuration file read for its core.worktree, at most. */
#define CONFIG_MAX	(64 << 10)

/* ".git", and the user's own git configuration, absolute. */
static char	 config_paths[3][PATH_MAX];
static const char *names[5] = { ".git" };

/* Adds |a|/|b| to names[] at *|n|, unless it does not fit or is there. */
static void
add_config(size_t *n, const char *a, const char *b)
{
	char *p = config_paths[*n - 1];
	size_t i;

	if (snprintf(p, PATH_MAX, "%s/%s", a, b) >= PATH_MAX)
		return;
	for (i = 1; i < *n; i++)
		if (strcmp(names[i], p) == 0)
			return;
	names[(*n)++] = p;
}

/*
 * The names each child keeps (profile.h, read_only): NULL with
 * "repositories writable".  The user's configuration is where git looks
 * for it: $HOME/.gitconfig, and $XDG_CONFIG_HOME/git or, without it,
 * $HOME/.config/git; HOME from the password database where the
 * environment has none.  Found once, in the server, which reads its
 * environment before it scrubs it.
 */
const char *const *
shell_read_only(const struct tc_policy *pol)
{
	static int found;
	const char *home, *xdg;
	struct passwd *pw;
	size_t n = 1;

	if (shell_policy(pol)->repositories != SHELL_REPOS_READ_ONLY)
		return NULL;
	if (!found) {
		found = 1;
		home = getenv("HOME");
		if ((home == NULL || home[0] != '/') &&
		    (pw = getpwuid(geteuid())) != NULL)
			home = pw->pw_dir;
		if (home != NULL && home[0] == '/' && home[1] != '\0') {
			add_config(&n, home, ".gitconfig");
			if ((xdg = getenv("XDG_CONFIG_HOME")) == NULL ||
			    xdg[0] != '/')
				add_config(&n, home, ".config/git");
		}
		if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && xdg[0] == '/')
			add_config(&n, xdg, "git");
		names[n] = NULL;
	}
	return names;
}

static int
open_beneath(int at, const char *path, int flags)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_CLOEXEC | O_NOFOLLOW);
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, at, path, &how, sizeof(how));
}

/*
 * Reads core.worktree from the git configuration |file| (beneath |at|)
 * into |out|: the plain value (quotes around it taken off; one with an
 * escape is not read).  Returns 1 if found, else 0.
 */
static int
config_worktree(int at, const char *file, char *out, size_t size)
{
	char *buf, *line, *next, *p, *v;
	int fd, core = 0, found = 0;
	ssize_t n;
	size_t len = 0;

	if ((fd = open_beneath(at, file, O_RDONLY)) < 0)
		return 0;
	if ((buf = malloc(CONFIG_MAX + 1)) == NULL) {
		close(fd);
		return 0;
	}
	while (len < CONFIG_MAX && (n = read(fd, buf + len,
	    CONFIG_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	for (line = buf; line != NULL && !found; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		p = line + strspn(line, " \t");
		if (*p == '[') {
			/* [core], any case, nothing after the name. */
			core = strncasecmp(p + 1, "core", 4) == 0 &&
			    p[5 + strspn(p + 5, " \t")] == ']';
			continue;
		}
		if (!core || strncasecmp(p, "worktree", 8) != 0)
			continue;
		v = p + 8 + strspn(p + 8, " \t");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t");
		len = strcspn(v, "\r;#");
		while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
			len--;
		if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
			v++;
			len -= 2;
		}
		if (len == 0 || len >= size || memchr(v, '\\', len) != NULL ||
		    memchr(v, '"', len) != NULL)
			break;
		memcpy(out, v, len);
		out[len] = '\0';
		found = 1;
	}
	free(buf);
	return found;
}

/*
 * Joins |base| and the relative path |rel| into |out| with "." and ".."
 * taken out by their names (what they name is opened later through no
 * link).  Returns 0, or -1 where it would climb above |base|'s start or
 * does not fit.
 */
static int
join(const char *base, const char *rel, char *out, size_t size)
{
	char tmp[PATH_MAX], *c, *save = NULL;
	size_t len = 0, n;

	if (snprintf(tmp, sizeof(tmp), "%s/%s", base, rel) >=
	    (int)sizeof(tmp))
		return -1;
	out[0] = '\0';
	for (c = strtok_r(tmp, "/", &save); c != NULL;
	    c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			if (len == 0)
				return -1;
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
			continue;
		}
		n = strlen(c);
		if (len + (len > 0) + n >= size)
			return -1;
		if (len > 0)
			out[len++] = '/';
		memcpy(out + len, c, n + 1);
		len += n;
	}
	return 0;
}

static int	modules(struct tc_keep *k, int at, const char *worktree,
		    const char *gitdir, int depth);

/*
 * Each module of |mdir| (a .git/modules directory, or a part of it where
 * a module's name has a '/'), whose work tree lies beneath |worktree|:
 * its .git kept, then its own modules.  Returns 0, or -1 with errno.
 */
static int
module_dir(struct tc_keep *k, int at, const char *worktree, const char *mdir,
    int depth)
{
	char sub[PATH_MAX], cfg[PATH_MAX], wt[PATH_MAX], target[PATH_MAX];
	char dotgit[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *dir;
	int fd, rc = 0;

	if (depth > MODULES_DEPTH ||
	    (fd = open_beneath(at, mdir, O_RDONLY | O_DIRECTORY)) < 0)
		return 0;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (rc == 0 && (e = readdir(dir)) != NULL) {
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", mdir, e->d_name) >=
		    (int)sizeof(sub) || snprintf(cfg, sizeof(cfg), "%s/config",
		    sub) >= (int)sizeof(cfg))
			continue;
		if (fstatat(dirfd(dir), e->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!config_worktree(at, cfg, wt, sizeof(wt))) {
			/* No module here: a part of a module's name. */
			rc = module_dir(k, at, worktree, sub, depth + 1);
			continue;
		}
		/* Relative to the module's git directory; one elsewhere (an
		 * absolute path, or above the repository) is not kept. */
		if (wt[0] == '/' || join(sub, wt, target, sizeof(target)) != 0 ||
		    (*worktree != '\0' && (strncmp(target, worktree,
		    strlen(worktree)) != 0 || target[strlen(worktree)] != '/')) ||
		    snprintf(dotgit, sizeof(dotgit), "%s/.git", target) >=
		    (int)sizeof(dotgit))
			continue;
		if (tc_keep_beneath(k, at, worktree, dotgit) < 0 ||
		    modules(k, at, target, sub, depth + 1) != 0)
			rc = -1;
	}
	closedir(dir);
	return rc;
}

/* The modules of git directory |gitdir|, whose work tree is |worktree|. */
static int
modules(struct tc_keep *k, int at, const char *worktree, const char *gitdir,
    int depth)
{
	char mdir[PATH_MAX];

	if (snprintf(mdir, sizeof(mdir), "%s/modules", gitdir) >=
	    (int)sizeof(mdir))
		return 0;
	return module_dir(k, at, worktree, mdir, depth);
}

/*
 * The profile's read_only_found: for a repository's .git (a directory),
 * the .git of each of its submodules.  A .git file (a worktree's, a
 * submodule's) names a directory elsewhere, kept where it is found.
 */
int
shell_repo_found(struct tc_keep *k, int at, const char *dir,
    const char *place)
{
	struct stat st;

	if (fstatat(at, place, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISDIR(st.st_mode))
		return 0;
	return modules(k, at, dir, place, 0);
}
