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
 * The server's exit removes the base of the scratch directories, after
 * giving it back its bits; a policy that lets calls write where the base
 * is made (TMPDIR, here D) lets them swap the base itself for a link:
 * the exit must not chmod what the link names either.
 *
 * The calls' Landlock rules grant read and write beneath the base, and
 * are built again when the client's roots change, while calls run: a base
 * swapped for a link by then must not have the grant follow the link.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"

#include "tap.h"

#include "../../servers/shell/shell.h"

#define VICTIM	"victim"

int	__real_unlinkat(int, const char *, int);
int	__wrap_unlinkat(int, const char *, int);

static char	target[64];		/* what the link names */
static int	swaps;			/* swaps left to make */

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
static int
rules_after_swap(const char *tmp, const char *other)
{
	struct tc_diag d = { "", 0 };
	struct tc_policy pol;
	char moved[PATH_MAX], file[PATH_MAX + 16];
	pid_t pid;
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
	if ((fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0 ||
	    close(fd) != 0 || chmod(target, 0644) != 0 ||
	    mkdir(tree, 0700) != 0) {
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

	/* Cleaned up as the test's own, no wrapper in the way. */
	swaps = 0;
	(void)shell_tree_remove(dir);
	return done_testing();
}
