/*
 * shell_scratch.c: each call's scratch directory, its HOME and TMPDIR when
 * the policy names no home (shell.h).
 *
 * A call's child can write only beneath the writable roots (Landlock), and
 * programs want a home and a temporary directory (git reads ~/.gitconfig,
 * a compiler writes its temporary files in $TMPDIR): so at start the
 * server makes one directory in the system's temporary directory, which
 * the profile lets every call write beneath, and each call makes its own
 * directory in it, named by 128 random bits, and removes it when its
 * program has ended.  The base is mode 0300 (its owner, the calls' user,
 * may make and enter entries but not list them), and the calls run without
 * capabilities, so that no call can find another's directory.  What a
 * killed call leaves is removed with the base when the server exits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/text.h"
#include "policy/policy.h"
#include "shell.h"

#define TREE_DEPTH	64

const char *shell_scratch_base;

static char	*base;		/* shell_scratch_base, owned */
static pid_t	 base_owner;	/* the server, which removes it */

/* Removes what directory |fd| holds (and closes it), |depth| levels at
 * most; a directory it cannot enter is made enterable first. */
static int
empty_dir(int fd, int depth)
{
	struct dirent *e;
	DIR *d;
	int sub, rc = 0;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR || depth <= 0) {
			rc = -1;
			continue;
		}
		/* A program may have left a directory without the write or
		 * search bit: where chmod is allowed (the server), give them
		 * back; else the open or the removal below fails.  It is a
		 * directory, not a link: unlinkat() removed those. */
		if (fchmodat(dirfd(d), e->d_name, S_IRWXU, 0) != 0 &&
		    errno == ENOENT)
			continue;
		if ((sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0 || empty_dir(sub, depth - 1) != 0 ||
		    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int
shell_tree_remove(const char *path)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (empty_dir(fd, TREE_DEPTH) != 0)
		return -1;
	return rmdir(path);
}

/* At the server's exit (not a child's: the spawner and the children share
 * this handler, and leave by _exit() anyway). */
static void
remove_base(void)
{
	if (base == NULL || getpid() != base_owner)
		return;
	/* The server may not be root: let it list what it removes. */
	if (chmod(base, S_IRWXU) != 0 || shell_tree_remove(base) != 0)
		return;		/* at exit: nobody to tell */
}

int
shell_scratch_init(const struct tc_policy *pol, struct tc_diag *d)
{
	const char *tmp = getenv("TMPDIR");

	if (base != NULL)
		return 0;
	if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > PATH_MAX / 2)
		tmp = "/tmp";
	if ((base = tc_text_alloc("%s/toolcell-shell.XXXXXX", tmp)) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	if (mkdtemp(base) == NULL) {
		tc_diag_errno(d, TC_ESYS, "cannot make the calls' scratch "
		    "directory in '%s' (give the [shell] section a 'home "
		    "DIR')", tmp);
		free(base);
		base = NULL;
		return TC_ESYS;
	}
	/* Its owner is the calls' user: make entries, enter them, list
	 * none. */
	if ((pol->run_as && chown(base, pol->run_uid, pol->run_gid) != 0) ||
	    chmod(base, S_IWUSR | S_IXUSR) != 0) {
		tc_diag_errno(d, TC_ESYS, "cannot give '%s' to the calls' "
		    "user", base);
		(void)rmdir(base);
		free(base);
		base = NULL;
		return TC_ESYS;
	}
	base_owner = getpid();
	if (atexit(remove_base) != 0) {
		(void)rmdir(base);
		free(base);
		base = NULL;
		return tc_diag(d, TC_ENOMEM, "out of memory");
	}
	shell_scratch_base = base;
	return 0;
}

char *
shell_scratch_make(void)
{
	unsigned char r[16];
	char *path;
	size_t i;
	char name[2 * sizeof(r) + 1];

	if (shell_scratch_base == NULL) {
		errno = ENOENT;
		return NULL;
	}
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return NULL;
	for (i = 0; i < sizeof(r); i++)
		snprintf(name + 2 * i, 3, "%02x", r[i]);
	if ((path = tc_text_alloc("%s/%s", shell_scratch_base, name)) == NULL)
		return NULL;
	if (mkdir(path, S_IRWXU) != 0) {
		free(path);
		return NULL;
	}
	return path;
}
