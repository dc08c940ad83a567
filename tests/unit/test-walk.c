/*
 * test-walk.c: tc_path_walk_beneath(), the resolution beneath a directory
 * that stands in for openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * where the seccomp filter refuses openat2, held to openat2's own answers
 * on the same tree, path by path and flag by flag: the same errno, or the
 * same file.  Then tc_path_openat_in() under a filter that refuses
 * openat2, and the walk against a symlink swapped under it.  T is the
 * scratch tree (tree.h's tree_root):
 *
 *	T/top/				the start of every walk
 *	    file, dir/inner, dir/sub/deep/f
 *	    abs -> T/outside/secret	absolute, out
 *	    abs-in -> T/top/file		absolute, pointing inside
 *	    up -> ../outside/secret	climbing out
 *	    up-dir -> ../outside
 *	    up-in -> ../top/file		climbing out and back in
 *	    via-dir -> dir/../../outside/secret
 *	    rel -> dir/inner, rel-dir -> dir, dir-slash -> dir/
 *	    dot -> ., dotdot -> ..
 *	    sub-up -> dir/sub/../../file
 *	    dir/sub/back -> ../../file	climbing, staying beneath
 *	    dir/sub/out -> ../../../outside/secret
 *	    chain1 -> chain2 -> dir/chain3 -> ../file
 *	    loop1 -> loop2 -> loop1, self -> self
 *	    dangling -> made, dangling-out -> ../outside/made
 *	    n0 -> n1 -> ... -> n40 -> file	41 links from n0, 40 from n1
 *	T/outside/secret
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/path.h"
#include "tap.h"
#include "tree.h"

/* A file that holds its own name. */
static void
put(const char *rel)
{
	put_file(rel, rel, 0644);
}

static void
ln(const char *target, const char *rel)
{
	must(symlink(target, at(rel)), at(rel));
}

static void
make_tree(void)
{
	char t[64], l[64];
	int i;

	tree_make("tc-walk");
	must(mkdir(at("top"), 0755), "top");
	must(mkdir(at("top/dir"), 0755), "dir");
	must(mkdir(at("top/dir/sub"), 0755), "sub");
	must(mkdir(at("top/dir/sub/deep"), 0755), "deep");
	must(mkdir(at("outside"), 0755), "outside");
	put("top/file");
	put("top/dir/inner");
	put("top/dir/sub/deep/f");
	put("outside/secret");
	ln(at("outside/secret"), "top/abs");
	ln(at("top/file"), "top/abs-in");
	ln("../outside/secret", "top/up");
	ln("../outside", "top/up-dir");
	ln("../top/file", "top/up-in");
	ln("dir/../../outside/secret", "top/via-dir");
	ln("dir/inner", "top/rel");
	ln("dir", "top/rel-dir");
	ln("dir/", "top/dir-slash");
	ln(".", "top/dot");
	ln("..", "top/dotdot");
	ln("dir/sub/../../file", "top/sub-up");
	ln("../../file", "top/dir/sub/back");
	ln("../../../outside/secret", "top/dir/sub/out");
	ln("chain2", "top/chain1");
	ln("dir/chain3", "top/chain2");
	ln("../file", "top/dir/chain3");
	ln("loop2", "top/loop1");
	ln("loop1", "top/loop2");
	ln("self", "top/self");
	ln("made", "top/dangling");
	ln("../outside/made", "top/dangling-out");
	for (i = 0; i < 40; i++) {
		snprintf(t, sizeof(t), "n%d", i + 1);
		snprintf(l, sizeof(l), "top/n%d", i);
		ln(t, l);
	}
	ln("file", "top/n40");
}

static int
openat2_beneath(int dirfd, const char *rel, int flags, unsigned mode)
{
	struct open_how how;
	int fd, tries;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)flags | O_CLOEXEC;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	for (tries = 0; tries < 8; tries++) {
		fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd;
}

/*
 * "fd" with its device and inode, or "errno N (text)"; "fd of the file
 * made at T/|made|" when it is that file (two creates make two inodes,
 * whose numbers need not be the same).
 */
static const char *
outcome(int fd, int err, const char *made, char *buf, size_t size)
{
	struct stat st, mst;

	if (fd < 0)
		snprintf(buf, size, "errno %d (%s)", err, strerror(err));
	else if (fstat(fd, &st) != 0)
		snprintf(buf, size, "fd, fstat: %s", strerror(errno));
	else if (made != NULL && lstat(at(made), &mst) == 0 &&
	    mst.st_dev == st.st_dev && mst.st_ino == st.st_ino)
		snprintf(buf, size, "fd of the file made at %s mode %o", made,
		    (unsigned)st.st_mode);
	else
		snprintf(buf, size, "fd of %llu:%llu mode %o",
		    (unsigned long long)st.st_dev,
		    (unsigned long long)st.st_ino, (unsigned)st.st_mode);
	return buf;
}

static const char *
flag_name(int flags)
{
	static char b[128];

	snprintf(b, sizeof(b), "%s%s%s%s%s%s%s%s",
	    (flags & O_PATH) ? "O_PATH" : (flags & O_ACCMODE) == O_WRONLY ?
	    "O_WRONLY" : (flags & O_ACCMODE) == O_RDWR ? "O_RDWR" :
	    "O_RDONLY",
	    (flags & O_TMPFILE) == O_TMPFILE ? "|O_TMPFILE" :
	    (flags & O_DIRECTORY) ? "|O_DIRECTORY" : "",
	    (flags & O_NOFOLLOW) ? "|O_NOFOLLOW" : "",
	    (flags & O_CREAT) ? "|O_CREAT" : "",
	    (flags & O_EXCL) ? "|O_EXCL" : "",
	    (flags & O_TRUNC) ? "|O_TRUNC" : "", "", "");
	return b;
}

/*
 * Opens |rel| beneath |dirfd| both ways and checks they agree: the same
 * errno, or fds of the same file.  |made|, relative to T, is what a
 * create makes, removed after each (so both ways start alike).
 */
static void
same(int dirfd, const char *rel, int flags, const char *made)
{
	char a[160], b[160];
	int fw, ew, f2, e2;

	errno = 0;
	fw = tc_path_walk_beneath(dirfd, rel, flags, 0644);
	ew = errno;
	outcome(fw, ew, made, a, sizeof(a));
	if (fw >= 0)
		close(fw);
	if (made != NULL) {
		(void)unlink(at(made));
	}
	errno = 0;
	f2 = openat2_beneath(dirfd, rel, flags, 0644);
	e2 = errno;
	outcome(f2, e2, made, b, sizeof(b));
	if (f2 >= 0)
		close(f2);
	if (made != NULL)
		(void)unlink(at(made));
	/* An O_TMPFILE file is new each time: only success is compared. */
	if ((flags & O_TMPFILE) == O_TMPFILE && fw >= 0 && f2 >= 0)
		ok(1, "'%s' %s: both make a file", rel, flag_name(flags));
	else
		is_str(a, b, "'%s' %s: as openat2", rel, flag_name(flags));
}

static void
test_paths(int top)
{
	static const char *const paths[] = {
		"file", "./file", "dir/inner", "dir//inner", "dir/./inner",
		"dir/../file", "dir/sub/../../file", "dir/sub/deep/f",
		"dir/sub/deep/../../../file", "dir/sub/deep/../../../..",
		"..", "../top/file", "dir/../..", ".", "./", "dir", "dir/",
		"dir/.", "dir/..", "dir/sub/..", "/etc/passwd", "/", "",
		"nope", "nope/", "dir/nope", "nope/x", "file/", "file/x",
		"file/.", "dir/inner/", "abs", "abs-in", "up", "up-dir",
		"up-dir/secret", "up-in", "via-dir", "rel", "rel/", "rel-dir",
		"rel-dir/", "rel-dir/inner", "rel-dir/../file",
		"rel-dir/sub/back", "rel-dir/sub/out", "dir/sub/back",
		"dir/sub/out", "dir-slash", "dir-slash/inner", "dot", "dot/",
		"dot/file", "dot/dot/dot/file", "dotdot", "dotdot/top/file",
		"sub-up", "chain1", "chain2", "dir/chain3", "loop1",
		"loop1/x", "self", "dangling", "dangling/", "dangling-out",
		"n0", "n1", "n40", "rel-dir/sub/deep/../../sub/deep/f",
		"dir/sub/deep/f/..",
	};
	static const int flags[] = {
		O_RDONLY, O_RDONLY | O_NOFOLLOW, O_PATH,
		O_PATH | O_NOFOLLOW, O_RDONLY | O_DIRECTORY,
		O_PATH | O_DIRECTORY, O_PATH | O_DIRECTORY | O_NOFOLLOW,
		O_WRONLY,
	};
	size_t i, j;

	for (i = 0; i < TC_NITEMS(paths); i++)
		for (j = 0; j < TC_NITEMS(flags); j++)
			same(top, paths[i], flags[j], NULL);
}

static void
test_creates(int top)
{
	static const struct {
		const char	*path;
		int		 flags;
		const char	*made;
	} c[] = {
		{ "new", O_WRONLY | O_CREAT, "top/new" },
		{ "new", O_WRONLY | O_CREAT | O_EXCL, "top/new" },
		{ "dir/new", O_WRONLY | O_CREAT, "top/dir/new" },
		{ "rel-dir/new", O_WRONLY | O_CREAT, "top/dir/new" },
		{ "dir/sub/../new", O_WRONLY | O_CREAT, "top/dir/new" },
		{ "dangling", O_WRONLY | O_CREAT, "top/made" },
		{ "dangling", O_WRONLY | O_CREAT | O_NOFOLLOW, "top/made" },
		{ "dangling", O_WRONLY | O_CREAT | O_EXCL, "top/made" },
		{ "dangling-out", O_WRONLY | O_CREAT, "outside/made" },
		{ "up-dir/made", O_WRONLY | O_CREAT, "outside/made" },
		{ "../outside/made", O_WRONLY | O_CREAT, "outside/made" },
		{ "new/", O_WRONLY | O_CREAT, "top/new" },
		{ "dir/", O_WRONLY | O_CREAT, NULL },
		{ "dir", O_WRONLY | O_CREAT, NULL },
		{ ".", O_WRONLY | O_CREAT, NULL },
		{ "dir/..", O_WRONLY | O_CREAT, NULL },
		{ "file", O_WRONLY | O_CREAT | O_EXCL, NULL },
		{ "rel", O_WRONLY | O_CREAT | O_EXCL, NULL },
		{ "nope/new", O_WRONLY | O_CREAT, NULL },
		{ "file", O_WRONLY | O_CREAT | O_TRUNC, NULL },
		{ ".", O_TMPFILE | O_WRONLY, NULL },
		{ "dir", O_TMPFILE | O_WRONLY, NULL },
		{ "rel-dir", O_TMPFILE | O_WRONLY, NULL },
		{ "up-dir", O_TMPFILE | O_WRONLY, NULL },
		{ "file", O_TMPFILE | O_WRONLY, NULL },
		{ "nope", O_TMPFILE | O_WRONLY, NULL },
	};
	size_t i;

	for (i = 0; i < TC_NITEMS(c); i++)
		same(top, c[i].path, c[i].flags, c[i].made);
	/* Nothing was ever made outside. */
	ok(access(at("outside/made"), F_OK) != 0 && errno == ENOENT,
	    "nothing made outside");
}

/* /proc's magic links, with /proc as the start. */
static void
test_proc(void)
{
	static const char *const paths[] = {
		"self", "self/status", "thread-self/status", "mounts",
		"self/fd/0", "self/fd/0/", "self/cwd", "self/cwd/x",
		"self/root", "self/root/etc/passwd", "self/exe",
		"self/ns/mnt", "self/fd", "self/task",
	};
	static const int flags[] = {
		O_RDONLY, O_PATH, O_PATH | O_NOFOLLOW, O_RDONLY | O_NOFOLLOW,
		O_PATH | O_DIRECTORY,
	};
	size_t i, j;
	int proc;

	if ((proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		skip("no /proc");
		return;
	}
	for (i = 0; i < TC_NITEMS(paths); i++)
		for (j = 0; j < TC_NITEMS(flags); j++)
			same(proc, paths[i], flags[j], NULL);
	close(proc);
}

/* The walk from a start that is itself a symlink's target: the start is
 * never left, though its own ".." is a real directory. */
static void
test_start_below(void)
{
	int dir = open(at("top/dir"), O_PATH | O_DIRECTORY | O_CLOEXEC);

	must(dir < 0, "top/dir");
	same(dir, "..", O_RDONLY, NULL);
	same(dir, "sub/back", O_RDONLY, NULL);
	same(dir, "chain3", O_RDONLY, NULL);
	same(dir, "sub/../inner", O_RDONLY, NULL);
	same(dir, "sub/deep/../../inner", O_RDONLY, NULL);
	close(dir);
}

/*
 * tc_path_openat_in() where a seccomp filter refuses openat2 with ENOSYS,
 * as the profiles that can make files do: it walks instead, and answers
 * as openat2 would.  Run in a child, which the filter stays with.
 */
static void
test_fallback(int top)
{
	int st, fd, rc;
	pid_t pid;

	if ((pid = fork()) == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		struct stat a, b;

		if (ctx == NULL || seccomp_rule_add(ctx,
		    SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0) != 0 ||
		    seccomp_load(ctx) != 0)
			_exit(10);
		seccomp_release(ctx);
		/* openat2 itself is refused now. */
		if (openat2_beneath(top, "file", O_RDONLY, 0) >= 0 ||
		    errno != ENOSYS)
			_exit(11);
		if ((fd = tc_path_openat_in(top, "rel-dir/sub/back", O_RDONLY,
		    0)) < 0)
			_exit(12);
		if (fstat(fd, &a) != 0 || stat(at("top/file"), &b) != 0 ||
		    a.st_ino != b.st_ino || a.st_dev != b.st_dev)
			_exit(13);
		close(fd);
		if (tc_path_openat_in(top, "up", O_RDONLY, 0) >= 0 ||
		    errno != EXDEV)
			_exit(14);
		if (tc_path_openat_in(top, "abs-in", O_RDONLY, 0) >= 0 ||
		    errno != EXDEV)
			_exit(15);
		if (tc_path_openat_in(top, "n0", O_RDONLY, 0) >= 0 ||
		    errno != ELOOP)
			_exit(16);
		if ((fd = tc_path_openat_in(top, "dangling", O_WRONLY |
		    O_CREAT | O_EXCL, 0600)) >= 0 || errno != EEXIST)
			_exit(17);
		if ((fd = tc_path_openat_in(top, "dir/made-here", O_WRONLY |
		    O_CREAT | O_EXCL, 0600)) < 0)
			_exit(18);
		close(fd);
		_exit(0);
	}
	rc = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ?
	    WEXITSTATUS(st) : -1;
	is_int(rc, 0, "tc_path_openat_in() walks where openat2 is refused "
	    "(exit code names the step that failed)");
	ok(access(at("top/dir/made-here"), F_OK) == 0,
	    "and creates beneath the start");
	(void)unlink(at("top/dir/made-here"));
}

#define RACE_MIN	20000	/* walks in a race, at least */
#define RACE_MAX	2000000	/* and at most, if an outcome is not seen */

/* A race's child: |flip| over and over, once before it says so on the
 * pipe the parent waits on. */
static pid_t
flipper(void (*flip)(void))
{
	char c = 0;
	int p[2];
	pid_t pid;

	must(pipe(p), "pipe");
	must((pid = fork()) < 0, "fork");
	if (pid == 0) {
		close(p[0]);
		flip();
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		close(p[1]);
		for (;;)
			flip();
	}
	close(p[1]);
	must(read(p[0], &c, 1) != 1, "the flipper did not start");
	close(p[0]);
	return pid;
}

/*
 * Walks |path| from |top| while |flip| runs in a child, until both
 * outcomes were seen (the inside file |inside|, and a refusal) and at
 * least RACE_MIN times, or RACE_MAX times; then checks that no walk gave
 * another file and that the race was run: both outcomes seen.  Counted in
 * attempts, not in time.
 */
static void
race(int top, const char *path, const char *inside, void (*flip)(void),
    const char *what)
{
	char buf[PATH_MAX];
	int fd, i, in = 0, failed = 0, outside = 0;
	ssize_t n;
	pid_t pid;

	pid = flipper(flip);
	for (i = 0; i < RACE_MAX && (i < RACE_MIN || in == 0 || failed == 0);
	    i++) {
		fd = tc_path_walk_beneath(top, path, O_RDONLY, 0);
		if (fd < 0) {
			failed++;
			continue;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		if (strcmp(buf, inside) == 0)
			in++;
		else
			outside++;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	is_int(outside, 0, "%s: none of %d walks of %s reached outside (%d "
	    "inside, %d refused)", what, i, path, in, failed);
	ok(in > 0 && failed > 0, "%s: the race was run, both outcomes seen "
	    "(%d inside, %d refused, of at most %d walks)", what, in, failed,
	    RACE_MAX);
}

/* top/flip: a real directory, then a symlink out, and again. */
static void
flip_link(void)
{
	(void)renameat2(AT_FDCWD, at("top/flip-out"), AT_FDCWD,
	    at("top/flip"), RENAME_EXCHANGE);
}

/* top/mv: moved out of the start, beside the outside file, and back. */
static void
flip_move(void)
{
	(void)rename(at("top/mv"), at("outside/mv"));
	(void)rename(at("outside/mv"), at("top/mv"));
}

/*
 * A directory on the way swapped between a real one and a symlink out,
 * as fast as a child can, while the walk opens through it: every open
 * gives the inside file or fails, never the outside one.  Then ".." from
 * a directory moved out of the start meanwhile: the walk goes up by name
 * from the start (walk_up()), never to the directory's real parent,
 * which is then outside, beside another "upx".
 */
static void
test_race(int top)
{
	must(mkdir(at("top/flip"), 0755), "flip");
	put("top/flip/secret");
	must(symlink("../outside", at("top/flip-out")), "flip-out");
	race(top, "flip/secret", "top/flip/secret", flip_link,
	    "a directory swapped with a symlink out");

	must(mkdir(at("top/mv"), 0755), "mv");
	must(mkdir(at("top/mv/sub"), 0755), "mv/sub");
	put("top/upx");
	put("outside/upx");
	race(top, "mv/sub/../../upx", "top/upx", flip_move,
	    "a directory moved out and back");
}

int
main(void)
{
	int top;

	make_tree();
	must((top = open(at("top"), O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0,
	    "top");
	test_paths(top);
	test_creates(top);
	test_proc();
	test_start_below();
	test_fallback(top);
	test_race(top);
	close(top);
	tree_remove();
	return done_testing();
}
