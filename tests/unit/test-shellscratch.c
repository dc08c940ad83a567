/*
 * test-shellscratch.c: toolcell-shell's removal of a scratch tree
 * (shell_tree_remove(), shell_scratch.c), which the server runs at its
 * exit, unconfined and as root where it was started so, on directories
 * a call's programs wrote and may still be changing.
 *
 * A program may leave a directory without its search bit, which the
 * removal gives back (chmod) before it enters it.  A directory swapped
 * for a symbolic link between the removal's look and its chmod must not
 * have the chmod follow the link to the file it names.  The swap is made
 * at that moment exactly, with no race: unlinkat() is wrapped
 * (-Wl,--wrap=unlinkat), and the wrapper swaps the directory named
 * VICTIM for a link to D/target as it answers that VICTIM is a directory.
 *
 * A program may build a tree deeper than the removal holds directories
 * open (64 levels) or than fds allow: trees 300 deep, with files at the
 * bottom, levels without their bits, links out of them (what they name
 * stays as it was), a directory swapped for a link as it is about to be
 * moved up, and wide ones, are removed by each removal: shell_tree_remove()
 * itself, a call's emptying of its home (shell_scratch_done()), the
 * server's exit, and the next server's start where one was killed.
 *
 * The server's exit removes the base of the scratch directories, after
 * giving it back its bits; a policy that lets calls write where the base
 * is made (TMPDIR, here D) lets them swap the base itself for a link:
 * the exit must not chmod what the link names either.
 *
 * The calls' Landlock rules grant read and write beneath the base, and
 * are built again when the client's roots change, while calls run: a base
 * swapped for a link by then must not have the grant follow the link.
 *
 * A server killed with SIGKILL leaves its base; the next one to start
 * removes it, and only such: not a live server's, nor anything of a
 * base's name that is not a base (a link, a file, another mode, another
 * user's), nor one of another PID namespace or named otherwise.  A base
 * of another boot id (another machine's, on a TMPDIR they share, or this
 * one's before it booted) is removed only on a file system known to be
 * local, and only if it was changed before this boot.  fstatfs() and
 * clock_gettime() are wrapped (-Wl,--wrap) so that the server sees the
 * file system type a case names, and a boot that came after the base.
 *
 * The sweeper learns from inotify what arrives; where its queue
 * overflows (the sweeper stopped while more events come than
 * /proc/sys/fs/inotify/max_queued_events holds), the events after are
 * lost, and the sweeper must look again at the names it had noted: a
 * call's directory spent unseen, and a dot name renamed unseen, are
 * removed all the same; one still locked is not.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "base/err.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"

#include "procstat.h"
#include "tap.h"

#include "../../servers/shell/shell.h"

#define VICTIM	"victim"

int	__real_unlinkat(int, const char *, int);
int	__wrap_unlinkat(int, const char *, int);

int	__real_fstatfs(int, struct statfs *);
int	__wrap_fstatfs(int, struct statfs *);
int	__real_clock_gettime(clockid_t, struct timespec *);
int	__wrap_clock_gettime(clockid_t, struct timespec *);

static char	target[64];		/* what the link names */
static int	swaps;			/* swaps left to make */
static long	fs_type;		/* what fstatfs() says: 0 as it is,
					   -1 fails, else this f_type */
static int	booted_now;		/* CLOCK_BOOTTIME: booted just now */

/* unlinkat(), which swaps VICTIM for a link as it answers EISDIR. */
int
__wrap_unlinkat(int dfd, const char *name, int flags)
{
	int rc = __real_unlinkat(dfd, name, flags), err = errno;

	if (rc != 0 && err == EISDIR && flags == 0 && swaps > 0 &&
	    strcmp(name, VICTIM) == 0) {
		swaps--;
		if (renameat(dfd, VICTIM, dfd, "moved") != 0 ||
		    symlinkat(target, dfd, VICTIM) != 0)
			printf("# cannot swap %s: %s\n", VICTIM,
			    strerror(errno));
	}
	errno = err;
	return rc;
}

/* fstatfs(), with the f_type fs_type names. */
int
__wrap_fstatfs(int fd, struct statfs *sf)
{
	int rc;

	if (fs_type == -1) {
		errno = ENOSYS;
		return -1;
	}
	if ((rc = __real_fstatfs(fd, sf)) == 0 && fs_type != 0)
		sf->f_type = fs_type;
	return rc;
}

/* clock_gettime(), whose CLOCK_BOOTTIME says 0 with booted_now. */
int
__wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (booted_now && clk == CLOCK_BOOTTIME) {
		ts->tv_sec = 0;
		ts->tv_nsec = 0;
		return 0;
	}
	return __real_clock_gettime(clk, ts);
}

/* This machine's boot id, read apart from the code under test, as its
 * 32 hex digits into |out|.  Returns 0 or -1. */
static int
boot_id(char out[33])
{
	char buf[64];
	size_t i, k = 0;
	FILE *f;

	if ((f = fopen("/proc/sys/kernel/random/boot_id", "r")) == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	for (i = 0; buf[i] != '\0' && buf[i] != '\n' && k < 32; i++)
		if (buf[i] != '-')
			out[k++] = buf[i];
	out[k] = '\0';
	return k == 32 ? 0 : -1;
}

/* The permission bits of |path|, or -1. */
static int
mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/*
 * In a child of its own, which exits as a server does: makes the scratch
 * base in |tmp|, swaps it for a link to |to|, exits.  Returns the child's
 * exit status, or -1.
 */
static int
exit_with_base_swapped(const char *tmp, const char *to)
{
	struct tc_diag d = { "", 0 };
	struct tc_policy pol;
	char moved[PATH_MAX];
	pid_t pid;
	int status;

	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		tc_policy_init(&pol);
		setenv("TMPDIR", tmp, 1);
		if (shell_scratch_init(&pol, &d) != 0) {
			printf("# shell_scratch_init: %s\n", d.msg);
			_exit(2);
		}
		snprintf(moved, sizeof(moved), "%s.moved", shell_scratch_base);
		if (rename(shell_scratch_base, moved) != 0 ||
		    symlink(to, shell_scratch_base) != 0)
			_exit(3);
		exit(0);	/* atexit: the base is removed */
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * In a child of its own: starts the scratch base in |tmp|, swaps it for
 * a link to the directory |other|, builds toolcell-shell's ruleset as a
 * change of roots does, enforces it, and tries to make a file in |other|
 * and one in the base's CALLS as it was made.  Returns 0 if only the
 * latter was made, 1 if a file was made in |other|, 3 without Landlock,
 * 2 if the test could not be set up.
 */
static pid_t	only_child(void);

static int
rules_after_swap(const char *tmp, const char *other)
{
	struct tc_diag d = { "", 0 };
	struct tc_policy pol;
	char moved[PATH_MAX], file[PATH_MAX + 16];
	pid_t pid, sweeper;
	int status, abi, fd, made_other, made_base;

	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		tc_policy_init(&pol);
		setenv("TMPDIR", tmp, 1);
		if ((abi = tc_landlock_abi()) <= 0)
			_exit(3);
		if (shell_scratch_init(&pol, &d) != 0)
			_exit(2);
		/* Its sweeper goes first: once this process is in a domain
		 * that scopes signals (Landlock ABI 6), neither a kill nor
		 * the parent-death signal reaches it any more, outside the
		 * domain, and it would outlive the test. */
		if ((sweeper = only_child()) <= 0 ||
		    kill(sweeper, SIGKILL) != 0 ||
		    waitpid(sweeper, NULL, 0) != sweeper)
			_exit(2);
		snprintf(moved, sizeof(moved), "%s.moved", shell_scratch_base);
		if (rename(shell_scratch_base, moved) != 0 ||
		    symlink(other, shell_scratch_base) != 0 ||
		    (fd = tc_landlock_build(&pol, &shell_profile, abi,
		    &d)) < 0 ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    tc_landlock_apply(fd) != 0) {
			printf("# setting up: %s %s\n", d.msg, strerror(errno));
			fflush(stdout);
			_exit(2);
		}
		snprintf(file, sizeof(file), "%s/made", other);
		made_other = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600) >=
		    0;
		snprintf(file, sizeof(file), "%s/calls/made", moved);
		made_base = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600) >= 0;
		_exit(made_other ? 1 : made_base ? 0 : 2);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The name of the one base in |tmp| other than |not| (NULL: any) into
 * |out|.  Returns 0, or -1 if there is none. */
static int
base_in(const char *tmp, const char *not, char *out, size_t len)
{
	struct dirent *e;
	DIR *d;
	int rc = -1;

	if ((d = opendir(tmp)) == NULL)
		return -1;
	while (rc != 0 && (e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "toolcell-shell.", 15) == 0 &&
		    (not == NULL || strcmp(e->d_name, not) != 0) &&
		    (size_t)snprintf(out, len, "%s", e->d_name) < len)
			rc = 0;
	closedir(d);
	return rc;
}

/*
 * In a child of its own: a server's start in |tmp| (which removes the
 * bases left there), then, by |how|: 'k' killed (SIGKILL: its base
 * stays), 'x' exits (its base goes with it), 'w' waits for a byte or
 * the end of pipe |hold| before it exits, having written one on
 * |ready|; 'K' and 'X' as 'k' and 'x', once fill_base() has filled the
 * base.
 * Returns the child's pid, or -1.
 */
static int	fill_base(void);

static pid_t
server(const char *tmp, int how, const int hold[2], int ready)
{
	struct tc_diag d = { "", 0 };
	struct tc_policy pol;
	pid_t pid;
	char c;

	fflush(stdout);
	if ((pid = fork()) != 0)
		return pid;
	tc_policy_init(&pol);
	setenv("TMPDIR", tmp, 1);
	if (shell_scratch_init(&pol, &d) != 0) {
		printf("# shell_scratch_init: %s\n", d.msg);
		fflush(stdout);
		_exit(2);
	}
	if ((how == 'K' || how == 'X') && fill_base() != 0) {
		printf("# cannot fill the base: %s\n", strerror(errno));
		fflush(stdout);
		_exit(2);
	}
	if (how == 'k' || how == 'K')
		kill(getpid(), SIGKILL);
	if (how == 'w') {
		close(hold[1]);
		(void)!write(ready, "r", 1);
		(void)!read(hold[0], &c, 1);
	}
	exit(0);	/* atexit: its base is removed */
}

/* Waits for |pid|; returns its wait status, or -1. */
static int
wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* Returns 1 if |name| in |tmp| is there (as a link, if one). */
static int
there(const char *tmp, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return lstat(path, &st) == 0;
}

/* Makes directory |name| in |tmp|, mode |mode|.  Returns 0 or -1. */
static int
made(const char *tmp, const char *name, mode_t mode)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return mkdir(path, 0700) == 0 && chmod(path, mode) == 0 ? 0 : -1;
}

#define DEEP		300	/* levels of a deep tree: past any fd limit's
				   share, and the removal's TREE_DEPTH (64) */
#define WIDE		2000	/* files in a wide tree's root */

static char	outside[64];	/* a directory outside every tree */
static char	canary[80];	/* a file in it */

/* A level of a deep tree that is left without its bits (mode 0): around
 * the levels a removal moves up from, whichever its root. */
static int
closed_level(int i)
{
	return i == 1 || i % 64 == 63 || i % 64 == 0 || i % 64 == 1;
}

/* A level of a deep tree that holds links out of it. */
static int
linked_level(int i)
{
	return i % 16 == 0 || i % 64 == 1 || i % 64 == 2;
}

/*
 * Makes beneath the directory |path| a chain of |depth| directories "d",
 * with three files at the bottom, links to |outside| and to |canary| at
 * the levels linked_level() names (with |links|), a directory VICTIM at
 * level |victim| (0: none), |width| directories with a file each at the
 * bottom, and each level closed_level() names left mode 0.  Built by
 * fd: the path of its bottom is longer than PATH_MAX.  Returns 0 or -1.
 */
static int
deep_tree(const char *path, int depth, int links, int victim, int width)
{
	char name[32], data[4096];
	int *fd, i, f, rc = -1;

	if ((fd = calloc((size_t)depth + 1, sizeof(*fd))) == NULL)
		return -1;
	for (i = 1; i <= depth; i++)
		fd[i] = -1;
	memset(data, 'x', sizeof(data));
	if ((fd[0] = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		goto out;
	for (i = 1; i <= depth; i++) {
		if (mkdirat(fd[i - 1], "d", 0700) != 0 || (fd[i] =
		    openat(fd[i - 1], "d", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0)
			goto out;
		if (links && linked_level(i) && (symlinkat(outside, fd[i],
		    "link") != 0 || symlinkat(canary, fd[i], "flink") != 0))
			goto out;
		if (i == victim && (mkdirat(fd[i], VICTIM, 0700) != 0 ||
		    (f = openat(fd[i], VICTIM "/file", O_WRONLY | O_CREAT |
		    O_CLOEXEC, 0600)) < 0 || close(f) != 0))
			goto out;
	}
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "file%d", i);
		if ((f = openat(fd[depth], name, O_WRONLY | O_CREAT |
		    O_CLOEXEC, 0600)) < 0 || write(f, data, sizeof(data)) !=
		    (ssize_t)sizeof(data) || close(f) != 0)
			goto out;
	}
	for (i = 0; i < width; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		if (mkdirat(fd[depth], name, 0700) != 0)
			goto out;
		snprintf(name, sizeof(name), "w%d/file", i);
		if ((f = openat(fd[depth], name, O_WRONLY | O_CREAT |
		    O_CLOEXEC, 0600)) < 0 || close(f) != 0)
			goto out;
	}
	/* From the bottom up: a level closed cannot be built beneath. */
	for (i = depth; i >= 1; i--)
		if (closed_level(i) && fchmodat(fd[i - 1], "d", 0, 0) != 0)
			goto out;
	rc = 0;
out:
	for (i = 0; i <= depth; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(fd);
	return rc;
}

/* Returns 1 if |outside| and |canary| are as main() made them. */
static int
outside_intact(void)
{
	char buf[16];
	ssize_t n;
	int fd;

	if (mode_of(outside) != 0755 || mode_of(canary) != 0644 ||
	    (fd = open(canary, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == 7 && memcmp(buf, "canary\n", 7) == 0;
}

/*
 * In a server (shell_scratch_init() done): what calls may leave in its
 * base, DEEP levels deep: a tree in a call's home, made and not spent
 * (a call killed), and one a program made in CALLS itself.  Returns 0 or
 * -1.
 */
static int
fill_base(void)
{
	char path[PATH_MAX];
	char *home;
	int rc;

	if ((home = shell_scratch_make()) == NULL)
		return -1;
	rc = deep_tree(home, DEEP, 1, 0, 0);
	free(home);
	snprintf(path, sizeof(path), "%s/calls/junk", shell_scratch_base);
	if (rc != 0 || mkdir(path, 0700) != 0 ||
	    deep_tree(path, DEEP, 1, 0, 0) != 0)
		return -1;
	return 0;
}

/*
 * The bases that servers killed before their exit left: the next server
 * removes them, and nothing else.
 */
static void
test_left_bases(const char *dir)
{
	/* Not local, or not known to be: a base of another boot id there
	 * is left. */
	static const struct {
		long		 type;
		const char	*name;
	} shared[] = {
		{ NFS_SUPER_MAGIC, "NFS" },
		{ SMB2_SUPER_MAGIC, "SMB2" },
		{ CIFS_SUPER_MAGIC, "CIFS" },
		{ V9FS_MAGIC, "9p" },
		{ FUSE_SUPER_MAGIC, "FUSE" },
		{ AFS_SUPER_MAGIC, "AFS" },
		{ AFS_FS_MAGIC, "kAFS" },
		{ CEPH_SUPER_MAGIC, "Ceph" },
		{ 0x01161970, "GFS2" },
		{ OCFS2_SUPER_MAGIC, "OCFS2" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs" },
		{ 0x12345678, "a type unknown" },
		{ -1, "fstatfs failing" },
	};
	char tmp[PATH_MAX], killed[256], live[256], path[PATH_MAX + 300];
	char dead[160], name[200], other[160], boot[33], elsewhere[33];
	char old[128], theirs[160], theirs_dead[160], want[256];
	unsigned long long ns = pid_ns(), start, mine = stat_field(getpid(),
	    22);
	int hold[2], ready[2], status, fd, all;
	pid_t gone, w;
	regex_t re;
	size_t i;
	char c;

	snprintf(tmp, sizeof(tmp), "%s/left", dir);
	if (ns == 0 || boot_id(boot) != 0 || mkdir(tmp, 0700) != 0 ||
	    pipe(hold) != 0 || pipe(ready) != 0) {
		ok(0, "left bases: set up: %s", strerror(errno));
		return;
	}
	/* Another machine's boot id, or this one's before it booted. */
	snprintf(elsewhere, sizeof(elsewhere), "%s", boot);
	elsewhere[0] = elsewhere[0] == '0' ? '1' : '0';

	/* A server killed: its base stays, named for it. */
	status = wait_for(server(tmp, 'k', NULL, -1));
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "left bases: a server killed with SIGKILL");
	ok(base_in(tmp, NULL, killed, sizeof(killed)) == 0,
	    "left bases: its base stays");
	ok(regcomp(&re, "^toolcell-shell\\.[0-9]+-[0-9]+-[0-9]+\\."
	    "[0-9a-f]{32}\\.[A-Za-z0-9]{6}$", REG_EXTENDED | REG_NOSUB) == 0 &&
	    regexec(&re, killed, 0, NULL, 0) == 0, "left bases: named for "
	    "its PID namespace, pid, start and boot id: %s", killed);
	regfree(&re);
	snprintf(want, sizeof(want), ".%s.", boot);
	ok(strstr(killed, want) != NULL, "left bases: the boot id is this "
	    "machine's (%s)", boot);

	/* A live server, waiting. */
	w = server(tmp, 'w', hold, ready[1]);
	ok(w > 0 && read(ready[0], &c, 1) == 1, "left bases: a live server");
	ok(base_in(tmp, killed, live, sizeof(live)) == 0,
	    "left bases: its base is there");

	/* A pid no process has now, with its start time. */
	if ((gone = fork()) == 0)
		_exit(0);
	start = stat_field(gone, 22);	/* a zombie's, until it is reaped */
	wait_for(gone);
	snprintf(dead, sizeof(dead), "toolcell-shell.%llu-%d-%llu.%s", ns,
	    (int)gone, start, boot);
	snprintf(old, sizeof(old), "toolcell-shell.%llu-%d-%llu", ns,
	    (int)gone, start);
	/* Of another boot: a live process's ids, another namespace's. */
	snprintf(theirs, sizeof(theirs), "toolcell-shell.%llu-%d-%llu.%s.pppppp",
	    ns, (int)getpid(), mine, elsewhere);
	snprintf(theirs_dead, sizeof(theirs_dead),
	    "toolcell-shell.%llu-%d-%llu.%s.qqqqqq", ns + 1, (int)gone, start,
	    elsewhere);

	/* Of a base's name, each of a shape a base has not. */
	snprintf(name, sizeof(name), "%s.aaaaaa", dead);
	ok(made(tmp, name, 0111) == 0, "left bases: a gone server's, 0111");
	snprintf(name, sizeof(name), "%s.bbbbbb", dead);
	ok(made(tmp, name, 0700) == 0, "left bases: one 0700 (being made)");
	snprintf(name, sizeof(name), "%s.cccccc.dddddd", dead);
	ok(made(tmp, name, 0111) == 0, "left bases: one moved aside at "
	    "its exit");
	snprintf(name, sizeof(name), "%s.eeeeee", dead);
	ok(made(tmp, name, 0755) == 0, "left bases: one of another mode");
	snprintf(name, sizeof(name), "%s.ffffff", dead);
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	ok((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0100)) >= 0 &&
	    close(fd) == 0 && chmod(path, 0100) == 0,
	    "left bases: a file (mode 0100)");
	snprintf(other, sizeof(other), "%s/linked", dir);
	snprintf(name, sizeof(name), "%s.gggggg", dead);
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	ok(mkdir(other, 0700) == 0 && chmod(other, 0111) == 0 &&
	    symlink(other, path) == 0, "left bases: a link to a directory "
	    "of mode 0111");
	snprintf(name, sizeof(name), "%s.hhhhhh", dead);
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/%s", tmp, name);
		ok(made(tmp, name, 0111) == 0 && chown(path, 65534, 65534) ==
		    0, "left bases: another user's");
	}
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.%s.iiiiii",
	    ns + 1, (int)gone, start, boot);
	ok(made(tmp, name, 0111) == 0, "left bases: another namespace's");
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.%s.jjjjjj",
	    ns, (int)getpid(), mine, boot);
	ok(made(tmp, name, 0111) == 0, "left bases: a live process's");
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.%s.kkkkkk",
	    ns, (int)getpid(), mine + 1, boot);
	ok(made(tmp, name, 0111) == 0, "left bases: a pid a process that "
	    "started later has");
	ok(made(tmp, "toolcell-shell.llllll", 0111) == 0,
	    "left bases: one named as before");
	snprintf(name, sizeof(name), "%s.mmmmm", dead);
	ok(made(tmp, name, 0111) == 0, "left bases: a name cut short");
	snprintf(name, sizeof(name), "%s.nnnnnn", old);
	ok(made(tmp, name, 0111) == 0, "left bases: a gone server's of the "
	    "previous form (no boot id)");
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.oooooo", ns,
	    (int)getpid(), mine);
	ok(made(tmp, name, 0111) == 0, "left bases: a live process's of the "
	    "previous form");
	ok(made(tmp, theirs, 0111) == 0 && made(tmp, theirs_dead, 0111) == 0,
	    "left bases: two of another boot id");
	snprintf(name, sizeof(name), "%s.%.31s.rrrrrr", old, elsewhere);
	ok(made(tmp, name, 0111) == 0, "left bases: a boot id cut short");
	snprintf(name, sizeof(name), "%s.%s.ssssss", old, elsewhere);
	name[strlen(old) + 1] = 'A';
	ok(made(tmp, name, 0111) == 0, "left bases: a boot id in capitals");

	/* The next server, on a local file system (as ext4 says). */
	fs_type = EXT4_SUPER_MAGIC;
	status = wait_for(server(tmp, 'x', NULL, -1));
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "left bases: the next server started and exited");
	ok(!there(tmp, killed), "left bases: the killed server's base "
	    "was removed");
	ok(there(tmp, live), "left bases: the live server's was not");
	snprintf(name, sizeof(name), "%s.aaaaaa", dead);
	ok(!there(tmp, name), "left bases: a gone server's was removed");
	snprintf(name, sizeof(name), "%s.bbbbbb", dead);
	ok(!there(tmp, name), "left bases: and one being made");
	snprintf(name, sizeof(name), "%s.cccccc.dddddd", dead);
	ok(!there(tmp, name), "left bases: and one moved aside");
	snprintf(name, sizeof(name), "%s.eeeeee", dead);
	ok(there(tmp, name), "left bases: another mode: left");
	snprintf(name, sizeof(name), "%s.ffffff", dead);
	ok(there(tmp, name), "left bases: a file: left");
	snprintf(name, sizeof(name), "%s.gggggg", dead);
	ok(there(tmp, name) && there(dir, "linked"), "left bases: a link: "
	    "left, and what it names");
	if (geteuid() == 0) {
		snprintf(name, sizeof(name), "%s.hhhhhh", dead);
		ok(there(tmp, name), "left bases: another user's: left");
	} else
		skip("another user's base: only root can make one");
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.%s.iiiiii",
	    ns + 1, (int)gone, start, boot);
	ok(there(tmp, name), "left bases: another namespace's: left");
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.%s.jjjjjj",
	    ns, (int)getpid(), mine, boot);
	ok(there(tmp, name), "left bases: a live process's: left");
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.%s.kkkkkk",
	    ns, (int)getpid(), mine + 1, boot);
	ok(!there(tmp, name), "left bases: a pid reused: removed");
	ok(there(tmp, "toolcell-shell.llllll"), "left bases: named as "
	    "before: left");
	snprintf(name, sizeof(name), "%s.mmmmm", dead);
	ok(there(tmp, name), "left bases: a name cut short: left");
	snprintf(name, sizeof(name), "%s.nnnnnn", old);
	ok(there(tmp, name), "left bases: a gone server's of the previous "
	    "form, which may be another machine's: left");
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.oooooo", ns,
	    (int)getpid(), mine);
	ok(there(tmp, name), "left bases: a live process's of the previous "
	    "form: left");
	ok(there(tmp, theirs) && there(tmp, theirs_dead), "left bases: of "
	    "another boot id, made since this boot, on a local file system: "
	    "left");

	/* Servers that see a boot after those bases were made, on file
	 * systems shared or not known to be local: left. */
	booted_now = 1;
	all = 1;
	for (i = 0; i < TC_NITEMS(shared); i++) {
		fs_type = shared[i].type;
		status = wait_for(server(tmp, 'x', NULL, -1));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		    !there(tmp, theirs) || !there(tmp, theirs_dead)) {
			printf("# removed on %s\n", shared[i].name);
			all = 0;
		}
	}
	ok(all, "left bases: of another boot id, changed before this boot, "
	    "on NFS, SMB, 9p, FUSE, AFS, Ceph, GFS2, OCFS2, overlayfs, a "
	    "type unknown, or where fstatfs fails: left");

	/* On a local one: its server ran in an earlier boot. */
	fs_type = EXT4_SUPER_MAGIC;
	status = wait_for(server(tmp, 'x', NULL, -1));
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    !there(tmp, theirs) && !there(tmp, theirs_dead), "left bases: of "
	    "another boot id, changed before this boot, on a local file "
	    "system: removed, whatever its ids");
	snprintf(name, sizeof(name), "toolcell-shell.%llu-%d-%llu.%s.jjjjjj",
	    ns, (int)getpid(), mine, boot);
	ok(there(tmp, name) && there(tmp, live), "left bases: of this boot "
	    "id, a live server's and a live process's: still left");
	snprintf(name, sizeof(name), "%s.%.31s.rrrrrr", old, elsewhere);
	ok(there(tmp, name), "left bases: a boot id cut short: left");
	snprintf(name, sizeof(name), "%s.%s.ssssss", old, elsewhere);
	name[strlen(old) + 1] = 'A';
	ok(there(tmp, name), "left bases: a boot id in capitals: left");
	booted_now = 0;
	fs_type = 0;

	/* The live server exits: its base goes with it. */
	close(hold[1]);
	status = wait_for(w);
	ok(WIFEXITED(status) && !there(tmp, live), "left bases: the live "
	    "server's goes as it exits");
	close(hold[0]);
	close(ready[0]);
	close(ready[1]);
}

/* The one child of the calling process, found in /proc, or -1. */
static pid_t
only_child(void)
{
	struct dirent *e;
	pid_t pid = -1, p;
	char *end;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		p = (pid_t)strtol(e->d_name, &end, 10);
		if (*end == '\0' && p > 0 &&
		    stat_field(p, 4) == (unsigned long long)getpid())
			pid = pid == -1 ? p : -2;
	}
	closedir(d);
	return pid >= 0 ? pid : -1;
}

/* Returns 1 once |path| is gone, within about 20 s; else 0. */
static int
goes(const char *path)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	struct stat st;
	int i;

	for (i = 0; i < 2000; i++) {
		if (lstat(path, &st) != 0 && errno == ENOENT)
			return 1;
		(void)nanosleep(&pause, NULL);
	}
	return 0;
}

#define OVER_SPENT	1
#define OVER_DOT	2
#define OVER_LOCKED	4
#define OVER_SETUP	64
#define OVER_NONE	65

#define HEX_A	"0123456789abcdef0123456789abcdef"
#define HEX_B	"fedcba9876543210fedcba9876543210"

/*
 * In a child of its own, a server whose sweeper it stops: a call's
 * directory made (noted by the sweeper once it reads), and two dot names
 * made in CALLS, one of them locked here; then |events| renames, which
 * fill inotify's queue; then the call's directory spent, and the dot
 * names renamed, all unseen.  The sweeper let go, the child waits for
 * the spent directory and the unlocked one to go.  Exits 0 if they went
 * and the locked one stayed, else with OVER_SPENT, OVER_DOT, OVER_LOCKED
 * for each that did not do as said; OVER_SETUP if it could not be set
 * up, OVER_NONE if it found no sweeper.
 */
static void __attribute__((__noreturn__))
overflowed(const char *tmp, long events)
{
	char spent[PATH_MAX], a[PATH_MAX], b[PATH_MAX], from[PATH_MAX];
	char to[PATH_MAX];
	struct tc_diag d = { "", 0 };
	struct tc_policy pol;
	const char *calls_of;
	char *home;
	pid_t sweeper;
	int status, fd, rc = 0;
	long i;

	tc_policy_init(&pol);
	setenv("TMPDIR", tmp, 1);
	if (shell_scratch_init(&pol, &d) != 0)
		_exit(OVER_SETUP);
	if ((sweeper = only_child()) < 0)
		_exit(OVER_NONE);
	if (kill(sweeper, SIGSTOP) != 0 ||
	    waitpid(sweeper, &status, WUNTRACED) != sweeper ||
	    !WIFSTOPPED(status))
		_exit(OVER_SETUP);
	if ((home = shell_scratch_make()) == NULL)
		_exit(OVER_SETUP);
	calls_of = home;
	snprintf(spent, sizeof(spent), "%s/spent/%s", shell_scratch_base,
	    strrchr(calls_of, '/') + 1);
	snprintf(a, sizeof(a), "%s/calls/." HEX_A, shell_scratch_base);
	snprintf(b, sizeof(b), "%s/calls/." HEX_B, shell_scratch_base);
	snprintf(from, sizeof(from), "%s/calls/junk-a", shell_scratch_base);
	snprintf(to, sizeof(to), "%s/calls/junk-b", shell_scratch_base);
	if (mkdir(a, 0700) != 0 || mkdir(b, 0700) != 0 ||
	    (fd = open(b, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    flock(fd, LOCK_EX | LOCK_NB) != 0 || mkdir(from, 0700) != 0)
		_exit(OVER_SETUP);
	/* The queue filled: what follows is lost. */
	for (i = 0; i <= events; i++)
		if (rename(i % 2 == 0 ? from : to, i % 2 == 0 ? to : from) !=
		    0)
			_exit(OVER_SETUP);
	shell_scratch_done(home);
	if (lstat(spent, &(struct stat){ 0 }) != 0)
		_exit(OVER_SETUP);	/* not spent: the test means nothing */
	snprintf(from, sizeof(from), "%s/calls/" HEX_A, shell_scratch_base);
	snprintf(to, sizeof(to), "%s/calls/" HEX_B, shell_scratch_base);
	if (rename(a, from) != 0 || rename(b, to) != 0)
		_exit(OVER_SETUP);
	if (kill(sweeper, SIGCONT) != 0)
		_exit(OVER_SETUP);
	if (!goes(spent))
		rc |= OVER_SPENT;
	if (!goes(from))
		rc |= OVER_DOT;
	if (lstat(to, &(struct stat){ 0 }) != 0)
		rc |= OVER_LOCKED;
	free(home);
	close(fd);
	exit(rc);	/* atexit: the base is removed */
}

#define DONE_LEFT	1	/* a home still in CALLS */
#define DONE_KEPT	2	/* a home not removed within goes()'s while */
#define DONE_SETUP	64

/*
 * In a child of its own, a server: three calls' homes made and spent
 * (shell_scratch_done()) one after the other, the first left empty, the
 * second with what a program leaves (files, a directory with a file, one
 * without its bits), the third with a tree DEEP levels deep (deep_tree(),
 * links out of it among it).  Exits 0 when
 * all left CALLS and went (by the sweeper, or by the call itself where
 * there is none), else with DONE_LEFT, DONE_KEPT; DONE_SETUP if it could
 * not be set up.
 */
static void __attribute__((__noreturn__))
spend_three(const char *tmp)
{
	struct tc_diag d = { "", 0 };
	struct tc_policy pol;
	char spent[PATH_MAX], path[PATH_MAX + 32];
	char *home;
	int i, fd, rc = 0;

	tc_policy_init(&pol);
	setenv("TMPDIR", tmp, 1);
	if (shell_scratch_init(&pol, &d) != 0)
		_exit(DONE_SETUP);
	/* One after the other, each spent while its maker holds its lock
	 * (a process holds the last one it made): the sweeper cannot take
	 * it for one left before it is spent. */
	for (i = 0; i < 3; i++) {
		if ((home = shell_scratch_make()) == NULL)
			_exit(DONE_SETUP);
		if (i == 2 && deep_tree(home, DEEP, 1, 0, 0) != 0)
			_exit(DONE_SETUP);
		snprintf(spent, sizeof(spent), "%s/spent/%s",
		    shell_scratch_base, strrchr(home, '/') + 1);
		if (i == 1) {
			snprintf(path, sizeof(path), "%s/file", home);
			if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) < 0 ||
			    write(fd, "x", 1) != 1 || close(fd) != 0)
				_exit(DONE_SETUP);
			snprintf(path, sizeof(path), "%s/dir", home);
			if (mkdir(path, 0700) != 0)
				_exit(DONE_SETUP);
			snprintf(path, sizeof(path), "%s/dir/inner", home);
			if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) < 0 ||
			    close(fd) != 0)
				_exit(DONE_SETUP);
			snprintf(path, sizeof(path), "%s/closed", home);
			if (mkdir(path, 0700) != 0 || chmod(path, 0) != 0)
				_exit(DONE_SETUP);
		}
		shell_scratch_done(home);
		if (lstat(home, &(struct stat){ 0 }) == 0)
			rc |= DONE_LEFT;
		if (!goes(spent))
			rc |= DONE_KEPT;
		free(home);
	}
	exit(rc);	/* atexit: the base is removed */
}

/* A call's home spent: emptied, moved aside, removed. */
static void
test_done(const char *dir)
{
	char tmp[PATH_MAX];
	int status, rc;
	pid_t pid;

	snprintf(tmp, sizeof(tmp), "%s/done", dir);
	if (mkdir(tmp, 0700) != 0) {
		ok(0, "done: set up: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	if ((pid = fork()) == 0)
		spend_three(tmp);
	status = wait_for(pid);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : DONE_SETUP;
	if (!ok(rc < DONE_SETUP, "done: three homes made, one filled, one "
	    "with a tree %d deep", DEEP))
		return;
	ok(!(rc & DONE_LEFT), "done: all three left CALLS");
	ok(!(rc & DONE_KEPT), "done: all three went, the empty one, the one "
	    "a program filled and the deep one");
	ok(outside_intact(), "done: what the deep one's links name is "
	    "untouched");
}

/*
 * Bases that hold trees deeper than a removal holds open (fill_base()):
 * removed at the server's exit; where servers were killed, by the next
 * one to start, whether left as made or as an exit that could not remove
 * it leaves it (moved aside, mode 0700).
 */
static void
test_deep_bases(const char *dir)
{
	char tmp[PATH_MAX], name[256], aside[256];
	char from[PATH_MAX + 300], to[PATH_MAX + 310];
	int status;

	snprintf(tmp, sizeof(tmp), "%s/deep", dir);
	if (mkdir(tmp, 0700) != 0) {
		ok(0, "deep bases: set up: %s", strerror(errno));
		return;
	}
	status = wait_for(server(tmp, 'X', NULL, -1));
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "deep bases: a "
	    "server whose calls left trees %d deep exited", DEEP);
	ok(base_in(tmp, NULL, name, sizeof(name)) != 0, "deep bases: its "
	    "base went with it");
	ok(outside_intact(), "deep bases: what their links name is "
	    "untouched");

	status = wait_for(server(tmp, 'K', NULL, -1));
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
	    base_in(tmp, NULL, name, sizeof(name)) == 0, "deep bases: a "
	    "server killed with trees %d deep in its base left it", DEEP);
	status = wait_for(server(tmp, 'K', NULL, -1));
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
	    base_in(tmp, name, aside, sizeof(aside)) == 0, "deep bases: "
	    "another left its own");
	snprintf(from, sizeof(from), "%s/%s", tmp, aside);
	snprintf(to, sizeof(to), "%s.zzzzzz", from);
	ok(rename(from, to) == 0 && chmod(to, 0700) == 0, "deep bases: "
	    "that one moved aside, mode 0700, as an exit that could not "
	    "remove it leaves it");
	status = wait_for(server(tmp, 'x', NULL, -1));
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "deep bases: the next server started and exited");
	ok(base_in(tmp, NULL, name, sizeof(name)) != 0, "deep bases: both "
	    "left bases were removed at its start");
	ok(outside_intact(), "deep bases: what their links name is "
	    "untouched");
}

/*
 * Trees deeper than a removal holds open, with links out of them, a
 * directory swapped for a link as it is to be moved up, and wide ones:
 * removed, and nothing outside them touched.
 */
static void
test_deep(const char *dir)
{
	char tree[PATH_MAX], path[PATH_MAX + 16];
	int i, fd, all;

	snprintf(tree, sizeof(tree), "%s/deep-tree", dir);
	ok(mkdir(tree, 0700) == 0 && deep_tree(tree, DEEP, 0, 0, 0) == 0,
	    "a tree %d deep, files at the bottom, levels without their bits",
	    DEEP);
	is_int(shell_tree_remove(tree), 0, "the deep tree is removed");
	ok(access(tree, F_OK) != 0 && errno == ENOENT, "and is gone");

	ok(mkdir(tree, 0700) == 0 && deep_tree(tree, DEEP, 1, 0, 0) == 0,
	    "a tree %d deep with links out of it (every 16th level, and "
	    "around each 64th)", DEEP);
	is_int(shell_tree_remove(tree), 0, "the tree with links is removed");
	ok(access(tree, F_OK) != 0 && errno == ENOENT, "and is gone");
	ok(outside_intact(), "the directory and the file its links name "
	    "are untouched");

	/* VICTIM at level 65: the first a removal moves up, swapped for a
	 * link to |target| as it is about to be. */
	ok(mkdir(tree, 0700) == 0 && deep_tree(tree, DEEP, 0, 64, 0) == 0,
	    "a tree %d deep with a directory to swap at level 65", DEEP);
	swaps = 1;
	is_int(shell_tree_remove(tree), 0, "the tree is removed, the "
	    "directory swapped for a link as it was to be moved up");
	is_int(swaps, 0, "the directory was swapped for a link");
	ok(mode_of(target) == 0644 && access(target, F_OK) == 0, "the file "
	    "the link names is there and keeps its mode");
	swaps = 0;

	/* Wide at the top, and wide below the levels held open: each of
	 * those is moved up. */
	ok(mkdir(tree, 0700) == 0 && deep_tree(tree, 70, 0, 0, 300) == 0,
	    "a tree 70 deep, 300 directories at the bottom");
	for (i = 0, all = 1; i < WIDE && all; i++) {
		snprintf(path, sizeof(path), "%s/f%d", tree, i);
		all = (fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >=
		    0 && close(fd) == 0;
	}
	ok(all, "and %d files at the top", WIDE);
	is_int(shell_tree_remove(tree), 0, "the wide tree is removed");
	ok(access(tree, F_OK) != 0 && errno == ENOENT, "and is gone");
}

/* The sweeper after inotify's queue overflowed. */
static void
test_overflow(const char *dir)
{
	char tmp[PATH_MAX], buf[32];
	long events = 0;
	int status, rc;
	pid_t pid;
	FILE *f;

	if ((f = fopen("/proc/sys/fs/inotify/max_queued_events", "r")) !=
	    NULL) {
		if (fgets(buf, sizeof(buf), f) != NULL)
			events = strtol(buf, NULL, 10);
		fclose(f);
	}
	if (events <= 0 || events > 1000000) {
		snprintf(buf, sizeof(buf), "%ld", events);
		printf("# max_queued_events: %s\n", buf);
		skip("inotify's queue: max_queued_events is too large to "
		    "fill here");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s/overflow", dir);
	if (mkdir(tmp, 0700) != 0) {
		ok(0, "overflow: set up: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	if ((pid = fork()) == 0)
		overflowed(tmp, events);
	status = wait_for(pid);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : OVER_SETUP;
	if (rc == OVER_NONE) {
		skip("inotify's queue: no sweeper (no inotify here)");
		return;
	}
	if (!ok(rc < OVER_SETUP, "overflow: the sweeper stopped while %ld "
	    "events came", events + 1))
		return;
	ok(!(rc & OVER_SPENT), "overflow: a call's directory spent unseen "
	    "is removed");
	ok(!(rc & OVER_DOT), "overflow: a dot name renamed unseen is "
	    "removed");
	ok(!(rc & OVER_LOCKED), "overflow: one locked is not");
}

int
main(void)
{
	char dir[] = "/tmp/test-shellscratch.XXXXXX", tree[64];
	char sub[128];
	int fd;

	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	snprintf(outside, sizeof(outside), "%s/outside", dir);
	snprintf(canary, sizeof(canary), "%s/canary", outside);
	if ((fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0 ||
	    close(fd) != 0 || chmod(target, 0644) != 0 ||
	    mkdir(tree, 0700) != 0 || mkdir(outside, 0755) != 0 ||
	    chmod(outside, 0755) != 0 || (fd = open(canary, O_WRONLY |
	    O_CREAT | O_EXCL, 0644)) < 0 || write(fd, "canary\n", 7) != 7 ||
	    close(fd) != 0 || chmod(canary, 0644) != 0) {
		printf("Bail out! cannot make the tree: %s\n",
		    strerror(errno));
		return 1;
	}

	/* A plain tree, a directory without its bits among it: removed. */
	snprintf(sub, sizeof(sub), "%s/closed", tree);
	ok(mkdir(sub, 0700) == 0 && chmod(sub, 0) == 0,
	    "a directory without its bits");
	is_int(shell_tree_remove(tree), 0, "a tree with a closed directory "
	    "is removed");
	ok(access(tree, F_OK) != 0 && errno == ENOENT, "and is gone");

	/* The directory swapped for a link at the chmod. */
	snprintf(sub, sizeof(sub), "%s/%s", tree, VICTIM);
	ok(mkdir(tree, 0700) == 0 && mkdir(sub, 0700) == 0,
	    "a tree with a directory to swap");
	swaps = 1;
	(void)shell_tree_remove(tree);
	is_int(swaps, 0, "the directory was swapped for a link");
	is_int(mode_of(target), 0644, "the file the link names keeps its "
	    "mode: the chmod did not follow the link");

	/* The base itself swapped for a link, as the server exits. */
	is_int(exit_with_base_swapped(dir, target), 0, "a server's base "
	    "swapped for a link before its exit");
	is_int(mode_of(target), 0644, "the file the link names keeps its "
	    "mode: the exit's chmod did not follow the link");

	/* The rules built again, the base swapped for a link meanwhile. */
	{
		char other[128];
		int rc;

		snprintf(other, sizeof(other), "%s/other", dir);
		ok(mkdir(other, 0777) == 0 && chmod(other, 0777) == 0,
		    "a directory outside the base");
		if ((rc = rules_after_swap(dir, other)) == 3)
			skip("no Landlock here");
		else
			is_int(rc, 0, "the calls' rules grant the base as it "
			    "was made, not where a link in its place leads");
	}

	test_deep(dir);
	test_left_bases(dir);
	test_deep_bases(dir);
	test_done(dir);
	test_overflow(dir);

	/* Cleaned up as the test's own, no wrapper in the way. */
	swaps = 0;
	(void)shell_tree_remove(dir);
	return done_testing();
}
