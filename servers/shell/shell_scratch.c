/*
 * shell_scratch.c: each call's scratch directory, its HOME and TMPDIR when
 * the policy names no home (shell.h).
 *
 * A call's child can write only beneath the writable roots (Landlock), and
 * programs want a home and a temporary directory (git reads ~/.gitconfig,
 * a compiler writes its temporary files in $TMPDIR): so at start the
 * server makes one directory in the system's temporary directory, which
 * the profile lets every call write beneath, and each call makes its own
 * directory in it, named by 128 random bits, and empties it when its
 * program has ended.  The base is mode 0300 (its owner, the calls' user,
 * may make and enter entries but not list them), and the calls run without
 * capabilities, so that no call can find another's directory.  What a
 * killed call leaves is removed with the base when the server exits.
 *
 * Removing a directory costs a journalled file system such as ext4 far
 * more than making one (milliseconds against microseconds on a busy
 * machine: its block is freed, and the removal waits on the journal),
 * and a call's child would pay it before sending its result.  So a call
 * empties its directory and moves it, by rename, into the base's "spent"
 * directory (SPENT), and the sweeper, a small process the server forks
 * at start, removes what arrives there, off every call's path.  The
 * sweeper runs as the calls' user, removes only empty directories in
 * SPENT (rmdir, which follows no link and fails on anything else), and
 * dies with the server.  Where the move fails (a kernel whose Landlock
 * cannot rename across directories), the call removes its directory
 * itself, as before.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/text.h"
#include "policy/policy.h"
#include "shell.h"

#define TREE_DEPTH	64
#define SPENT		"spent"
#define SWEEP_MS	1000	/* without inotify: how often it looks */

const char *shell_scratch_base;

static char	*base;		/* shell_scratch_base, owned */
static pid_t	 base_owner;	/* the server, which removes it */
static int	 spent_ok;	/* SPENT and its sweeper are there */
static char	*ready_dir;	/* a ready child's: shell_scratch_ready() */

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

/* Removes every empty directory in the directory |spent|. */
static void
sweep(int spent)
{
	struct dirent *e;
	DIR *d;
	int fd;

	if ((fd = dup(spent)) < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	rewinddir(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			(void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	closedir(d);
}

/*
 * The sweeper's life: the calls' user, no new privileges, nothing of the
 * server's open but SPENT; it sweeps SPENT whenever something is moved
 * there (inotify), or every SWEEP_MS without inotify, until the server
 * dies.
 */
static void __attribute__((__noreturn__))
sweeper_main(const struct tc_policy *pol, pid_t server, int spent)
{
	char path[PATH_MAX], buf[4096];
	struct pollfd pfd = { -1, POLLIN, 0 };
	int null, hi, ino = -1;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server)
		_exit(1);
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(null, STDERR_FILENO) < 0)
		_exit(1);
	snprintf(path, sizeof(path), "%s/%s", base, SPENT);
	if ((pfd.fd = inotify_init1(IN_CLOEXEC)) >= 0 &&
	    inotify_add_watch(pfd.fd, path, IN_MOVED_TO | IN_ONLYDIR |
	    IN_DONT_FOLLOW) < 0) {
		close(pfd.fd);
		pfd.fd = -1;
	}
	/* SPENT at 3, inotify's fd at 4, nothing else open. */
	if ((hi = fcntl(spent, F_DUPFD_CLOEXEC, 100)) < 0 ||
	    (pfd.fd >= 0 && (ino = fcntl(pfd.fd, F_DUPFD_CLOEXEC, 100)) < 0) ||
	    dup3(hi, 3, O_CLOEXEC) < 0 ||
	    (ino >= 0 && dup3(ino, 4, O_CLOEXEC) < 0))
		_exit(1);
	spent = 3;
	pfd.fd = ino >= 0 ? 4 : -1;
	if (close_range(ino >= 0 ? 5 : 4, ~0U, 0) != 0)
		_exit(1);
	/* Only what the calls' user may do. */
	if (pol->run_as && (setgroups(0, NULL) != 0 ||
	    setresgid(pol->run_gid, pol->run_gid, pol->run_gid) != 0 ||
	    setresuid(pol->run_uid, pol->run_uid, pol->run_uid) != 0))
		_exit(1);
	/* Armed again: a change of ids disarms it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server)
		_exit(1);
	for (;;) {
		sweep(spent);
		if (poll(&pfd, pfd.fd >= 0 ? 1 : 0, pfd.fd >= 0 ? -1 :
		    SWEEP_MS) > 0 && read(pfd.fd, buf, sizeof(buf)) < 0)
			_exit(1);
	}
}

/*
 * Makes SPENT in the base, owned as the base, and forks the sweeper.
 * Returns 0 or -1: without them, calls remove their directories
 * themselves.
 */
static int
spent_init(const struct tc_policy *pol)
{
	char path[PATH_MAX];
	pid_t pid, server = getpid();
	int fd;

	snprintf(path, sizeof(path), "%s/%s", base, SPENT);
	if (mkdir(path, S_IRWXU) != 0 ||
	    (pol->run_as && chown(path, pol->run_uid, pol->run_gid) != 0) ||
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -1;
	if ((pid = fork()) == 0)
		sweeper_main(pol, server, fd);
	close(fd);
	return pid < 0 ? -1 : 0;
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
	spent_ok = spent_init(pol) == 0;
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

void
shell_scratch_done(const char *path)
{
	const char *name = strrchr(path, '/');
	char to[PATH_MAX];
	int fd;

	/* Emptied here, as the call's user and confined: the sweeper only
	 * ever removes an empty directory. */
	if (spent_ok && name != NULL && snprintf(to, sizeof(to), "%s/%s%s",
	    shell_scratch_base, SPENT, name) < (int)sizeof(to) &&
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0 && empty_dir(fd, TREE_DEPTH) == 0 &&
	    rename(path, to) == 0)
		return;
	(void)shell_tree_remove(path);
}

void
shell_scratch_ready(const struct tc_policy *pol)
{
	if (shell_policy(pol)->home == NULL && ready_dir == NULL)
		ready_dir = shell_scratch_make();
}

char *
shell_scratch_take(void)
{
	char *path = ready_dir;

	ready_dir = NULL;
	return path != NULL ? path : shell_scratch_make();
}
