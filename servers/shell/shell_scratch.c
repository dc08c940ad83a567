/*
 * shell_scratch.c: each call's scratch directory, its HOME and TMPDIR when
 * the policy names no home (shell.h).
 *
 * A call's child can write only beneath the writable roots (Landlock), and
 * programs want a home and a temporary directory (git reads ~/.gitconfig,
 * a compiler writes its temporary files in $TMPDIR): so at start the
 * server makes one directory in the system's temporary directory (the
 * base), which the profile lets every call write beneath, with two in it:
 * CALLS, where each call makes its own directory, named by 128 random
 * bits, and SPENT, where it moves it once emptied.  CALLS and SPENT are
 * mode 0300 (their owner, the calls' user, may make and enter entries but
 * not list them), and the calls run without capabilities, so that no call
 * can find another's directory, in use or spent.  The base itself is mode
 * 0111: a call may pass through it and nothing more, so that no call can
 * move CALLS or SPENT away and put a directory of its own, which it could
 * list, in their place.  What a killed call leaves is removed with the
 * base when the server exits.
 *
 * Removing a directory costs a journalled file system such as ext4 far
 * more than making one (milliseconds against microseconds on a busy
 * machine: its block is freed, and the removal waits on the journal),
 * and a call's child would pay it before sending its result.  So a call
 * empties its directory and moves it, by rename, into SPENT, and the
 * sweeper, a small process the server forks at start, removes what
 * arrives there, off every call's path.  The sweeper learns the names
 * from inotify (it cannot list SPENT either), runs as the calls' user
 * without capabilities or new privileges, removes only empty directories
 * directly in SPENT (rmdir, which follows no link and fails on anything
 * else), and dies with the server.  A directory that is not empty when it
 * arrives (processes the call left behind wrote in it until the call
 * ended) stays, unlisted, until the server exits.  Without inotify, or
 * where the move fails (a kernel whose Landlock cannot rename across
 * directories), the call removes its directory itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/capability.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/text.h"
#include "policy/policy.h"
#include "shell.h"

#define TREE_DEPTH	64
#define CALLS		"calls"
#define SPENT		"spent"

const char *shell_scratch_base;

static char	*base;		/* shell_scratch_base, owned */
static char	*calls;		/* base/CALLS */
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
	/* The server may not be root: let it list what it removes (the
	 * removal gives CALLS and SPENT back their bits). */
	if (chmod(base, S_IRWXU) != 0 || shell_tree_remove(base) != 0)
		return;		/* at exit: nobody to tell */
}

/* Removes each directory whose arrival in SPENT (held at |spent|) the
 * |n| bytes of inotify events in |buf| tell. */
static void
sweep(int spent, const char *buf, size_t n)
{
	const struct inotify_event *e;
	size_t at;

	for (at = 0; at + sizeof(*e) <= n; at += sizeof(*e) + e->len) {
		e = (const struct inotify_event *)(const void *)(buf + at);
		if (at + sizeof(*e) + e->len > n)
			break;
		if ((e->mask & IN_MOVED_TO) && e->len > 0 &&
		    memchr(e->name, '\0', e->len) != NULL)
			(void)unlinkat(spent, e->name, AT_REMOVEDIR);
	}
}

/*
 * The sweeper's life: the calls' user, no capability, no new privileges,
 * nothing of the server's open but SPENT and the inotify watch on it; it
 * removes each directory moved into SPENT as inotify names it, until the
 * server dies.
 */
static void __attribute__((__noreturn__))
sweeper_main(const struct tc_policy *pol, pid_t server, int spent, int ino)
{
	char buf[8192] __attribute__((aligned(__alignof__(
	    struct inotify_event))));
	int null, hi, hino;
	cap_t none;
	ssize_t n;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server)
		_exit(1);
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(null, STDERR_FILENO) < 0)
		_exit(1);
	/* SPENT at 3, inotify's fd at 4, nothing else open. */
	if ((hi = fcntl(spent, F_DUPFD_CLOEXEC, 100)) < 0 ||
	    (hino = fcntl(ino, F_DUPFD_CLOEXEC, 100)) < 0 ||
	    dup3(hi, 3, O_CLOEXEC) < 0 || dup3(hino, 4, O_CLOEXEC) < 0 ||
	    close_range(5, ~0U, 0) != 0)
		_exit(1);
	spent = 3;
	ino = 4;
	/* Only what the calls' user may do, and no capability (a root
	 * server's calls are root without one). */
	if (pol->run_as && (setgroups(0, NULL) != 0 ||
	    setresgid(pol->run_gid, pol->run_gid, pol->run_gid) != 0 ||
	    setresuid(pol->run_uid, pol->run_uid, pol->run_uid) != 0))
		_exit(1);
	if ((none = cap_init()) == NULL || cap_set_proc(none) != 0)
		_exit(1);
	cap_free(none);
	/* Armed again: a change of ids disarms it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server)
		_exit(1);
	for (;;) {
		if ((n = read(ino, buf, sizeof(buf))) > 0)
			sweep(spent, buf, (size_t)n);
		else if (n == 0 || errno != EINTR)
			_exit(1);
	}
}

/*
 * Makes a directory |name| in the base, owned by the calls' user, mode
 * 0700 until the base is ready (shell_scratch_init() makes it 0300).
 * Returns its path (owned), or NULL with errno set.
 */
static char *
make_inner(const struct tc_policy *pol, const char *name)
{
	char *path;

	if ((path = tc_text_alloc("%s/%s", base, name)) == NULL)
		return NULL;
	if (mkdir(path, S_IRWXU) != 0 ||
	    (pol->run_as && chown(path, pol->run_uid, pol->run_gid) != 0)) {
		free(path);
		return NULL;
	}
	return path;
}

/*
 * Watches SPENT at |path| (not yet 0300: a watch needs the read bit),
 * and forks the sweeper.  Returns 0 or -1: without them, calls remove
 * their directories themselves.
 */
static int
spent_init(const struct tc_policy *pol, const char *path)
{
	pid_t pid, server = getpid();
	int fd = -1, ino = -1;

	/* O_PATH: a directory the sweeper's removals are relative to, which
	 * it will have no right to read. */
	if ((fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || (ino = inotify_init1(IN_CLOEXEC)) < 0 ||
	    inotify_add_watch(ino, path, IN_MOVED_TO | IN_ONLYDIR |
	    IN_DONT_FOLLOW) < 0) {
		pid = -1;
		goto out;
	}
	if ((pid = fork()) == 0)
		sweeper_main(pol, server, fd, ino);
out:
	if (fd >= 0)
		close(fd);
	if (ino >= 0)
		close(ino);
	return pid < 0 ? -1 : 0;
}

int
shell_scratch_init(const struct tc_policy *pol, struct tc_diag *d)
{
	const char *tmp = getenv("TMPDIR");
	char *spent = NULL;

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
	base_owner = getpid();
	if (atexit(remove_base) != 0) {
		(void)rmdir(base);
		free(base);
		base = NULL;
		return tc_diag(d, TC_ENOMEM, "out of memory");
	}
	/* CALLS, its owner the calls' user: make entries, enter them, list
	 * none; SPENT the same, where they go once spent; then the base:
	 * passed through, never changed, by anyone but the server. */
	if ((calls = make_inner(pol, CALLS)) == NULL ||
	    (spent = make_inner(pol, SPENT)) == NULL) {
		tc_diag_errno(d, TC_ESYS, "cannot make the calls' scratch "
		    "directories in '%s'", base);
		goto fail;
	}
	spent_ok = spent_init(pol, spent) == 0;
	if (chmod(calls, S_IWUSR | S_IXUSR) != 0 ||
	    chmod(spent, S_IWUSR | S_IXUSR) != 0 ||
	    chmod(base, S_IXUSR | S_IXGRP | S_IXOTH) != 0) {
		tc_diag_errno(d, TC_ESYS, "cannot close '%s' to the calls",
		    base);
		goto fail;
	}
	free(spent);
	shell_scratch_base = base;
	return 0;
fail:
	remove_base();
	free(spent);
	free(calls);
	calls = NULL;
	free(base);
	base = NULL;
	return TC_ESYS;
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
	if ((path = tc_text_alloc("%s/%s", calls, name)) == NULL)
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
