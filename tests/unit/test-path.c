/*
 * test-path.c: mapping client paths to roots and opening them beneath a
 * root, against a scratch tree:
 *
 *	R/allowed/file.txt, sub/inner.txt	the root
 *	R/allowed/out-abs -> R/outside/secret	absolute symlink out
 *	R/allowed/out-rel -> ../allowed-evil/secret
 *	R/allowed/in-abs -> R/allowed/file.txt	absolute, pointing inside
 *	R/allowed/in-rel -> sub/inner.txt
 *	R/allowed/dangling -> nope
 *	R/allowed/plant -> R/outside/planted	dangling, pointing outside
 *	R/allowed-evil/secret			the root's prefix twin
 *	R/outside/secret
 *	R/link -> allowed			the root through a symlink
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "path.h"
#include "policy.h"
#include "tap.h"

static char R[PATH_MAX];		/* the scratch tree, canonical */
static char allowed[PATH_MAX];		/* R/allowed */

/* Returns R/|rel| in one of a few rotating buffers. */
static const char *
at(const char *rel)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];

	if (snprintf(b, PATH_MAX, "%s/%s", R, rel) >= PATH_MAX)
		abort();
	return b;
}

static void
put(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(at(rel));
		exit(2);
	}
}

static void
must(int rc, const char *what)
{
	if (rc != 0) {
		perror(what);
		exit(2);
	}
}

static void
make_tree(void)
{
	char tmpl[] = "/tmp/tc-path-XXXXXX";

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, R) == NULL) {
		perror("mkdtemp");
		exit(2);
	}
	if (snprintf(allowed, sizeof(allowed), "%s/allowed", R) >=
	    (int)sizeof(allowed))
		abort();
	must(mkdir(at("allowed"), 0755), "mkdir allowed");
	must(mkdir(at("allowed/sub"), 0755), "mkdir sub");
	must(mkdir(at("allowed-evil"), 0755), "mkdir allowed-evil");
	must(mkdir(at("outside"), 0755), "mkdir outside");
	put("allowed/file.txt", "hello");
	put("allowed/sub/inner.txt", "inner");
	put("allowed-evil/secret", "evil");
	put("outside/secret", "outside");
	must(symlink(at("outside/secret"), at("allowed/out-abs")), "out-abs");
	must(symlink("../allowed-evil/secret", at("allowed/out-rel")),
	    "out-rel");
	must(symlink(at("allowed/file.txt"), at("allowed/in-abs")), "in-abs");
	must(symlink("sub/inner.txt", at("allowed/in-rel")), "in-rel");
	must(symlink("nope", at("allowed/dangling")), "dangling");
	must(symlink(at("outside/planted"), at("allowed/plant")), "plant");
	must(symlink("allowed", at("link")), "link");
}

static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Reads what |fd| holds (up to 63 bytes) and closes it. */
static const char *
slurp(int fd)
{
	static char buf[64];
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return "(not opened)";
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

/*
 * Maps and opens |user| with |flags| and mode 0600 (which open(2) ignores
 * without O_CREAT).  Returns the fd, or -1 with errno set; a mapping
 * failure returns -2 with *|code| set.
 */
static int
open_user(const struct tc_policy *pol, const char *user, int flags,
    int *code)
{
	struct tc_path p;
	struct tc_diag d;
	int fd, saved;

	memset(&d, 0, sizeof(d));
	if ((*code = tc_path_map(pol, user, &p, &d)) != 0)
		return -2;
	fd = tc_path_openat(pol, &p, flags, 0600);
	saved = errno;
	tc_path_release(&p);
	errno = saved;
	return fd;
}

/* Checks that |user| maps and opens, holding |want|. */
static void
opens(const struct tc_policy *pol, const char *user, const char *want,
    const char *name)
{
	int code;

	is_str(slurp(open_user(pol, user, O_RDONLY, &code)), want,
	    "%s: opens", name);
}

/* Checks that |user| maps but does not open, failing with |err|. */
static void
refused(const struct tc_policy *pol, const char *user, int flags, int err,
    const char *name)
{
	int code, fd;

	errno = 0;
	fd = open_user(pol, user, flags, &code);
	if (fd >= 0)
		close(fd);
	if (!is_int(fd, -1, "%s: does not open", name))
		printf("#   map code: %s\n", fd == -2 ? tc_errname(code) : "0");
	else
		is_int(errno, err, "%s: errno %s", name, strerror(err));
}

static void
test_map(struct tc_policy *pol)
{
	struct tc_path p;
	struct tc_diag d;

	memset(&d, 0, sizeof(d));
	is_int(tc_path_map(pol, "file.txt", &p, &d), 0, "relative path maps");
	is_int(p.root, 0, "relative path: first root");
	is_str(p.rel, "file.txt", "relative path: rel");
	is_str(p.display, at("allowed/file.txt"), "relative path: display");
	tc_path_release(&p);

	is_int(tc_path_map(pol, at("allowed/sub/inner.txt"), &p, &d), 0,
	    "absolute path inside maps");
	is_str(p.rel, "sub/inner.txt", "absolute path inside: rel");
	tc_path_release(&p);

	is_int(tc_path_map(pol, ".", &p, &d), 0, "'.' maps");
	is_str(p.rel, ".", "'.': rel");
	tc_path_release(&p);
	is_int(tc_path_map(pol, allowed, &p, &d), 0, "the root itself maps");
	is_str(p.rel, ".", "the root itself: rel '.'");
	is_str(p.display, allowed, "the root itself: display");
	tc_path_release(&p);
	is_int(tc_path_map(pol, at("allowed/"), &p, &d), 0,
	    "the root with a slash maps");
	is_str(p.rel, ".", "the root with a slash: rel '.'");
	tc_path_release(&p);

	is_int(tc_path_map(pol, at("allowed-evil/secret"), &p, &d),
	    TC_EOUTSIDE, "prefix twin R/allowed-evil/secret: outside");
	like(d.msg, "allowed-evil/secret': outside the allowed directories",
	    "prefix twin: message");
	tc_path_release(&p);
	is_int(tc_path_map(pol, at("allowed-evil"), &p, &d), TC_EOUTSIDE,
	    "prefix twin R/allowed-evil: outside");
	is_int(tc_path_map(pol, "/proc/self/root/etc/passwd", &p, &d),
	    TC_EOUTSIDE, "/proc/self/root/etc/passwd: outside");
	is_str(d.msg, "'/proc/self/root/etc/passwd': outside the allowed "
	    "directories", "outside: message");
	is_int(tc_path_map(pol, "/", &p, &d), TC_EOUTSIDE, "'/': outside");
	is_int(tc_path_map(pol, "", &p, &d), TC_EINVAL, "empty path: EINVAL");
	is_str(d.msg, "empty path", "empty path: message");
	ok(p.rel == NULL && p.display == NULL, "failed map leaves no strings");
}

static void
test_open(struct tc_policy *pol)
{
	char twice[PATH_MAX + 1];
	struct stat st;
	int code, fd;

	opens(pol, "file.txt", "hello", "relative path");
	opens(pol, at("allowed/file.txt"), "hello", "absolute path");
	opens(pol, "sub/inner.txt", "inner", "path in a subdirectory");
	opens(pol, "./sub//inner.txt", "inner", "path with . and //");
	opens(pol, "sub/../file.txt", "hello", "'..' that stays inside");
	opens(pol, "in-rel", "inner", "relative symlink inside");
	opens(pol, at("allowed/./sub//inner.txt"), "inner",
	    "absolute path with . and //");
	snprintf(twice, sizeof(twice), "/%s", at("allowed/file.txt"));
	opens(pol, twice, "hello", "absolute path starting with //");

	fd = open_user(pol, ".", O_RDONLY | O_DIRECTORY, &code);
	if (!ok(fd >= 0, "'.' opens with O_DIRECTORY (and a mode)"))
		printf("#   errno: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = open_user(pol, allowed, O_RDONLY | O_DIRECTORY, &code);
	if (!ok(fd >= 0, "the absolute root opens with O_DIRECTORY"))
		printf("#   errno: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);

	refused(pol, "..", O_RDONLY, EXDEV, "'..'");
	refused(pol, "../outside/secret", O_RDONLY, EXDEV,
	    "'../outside/secret'");
	refused(pol, "sub/../../allowed-evil/secret", O_RDONLY, EXDEV,
	    "'sub/../../allowed-evil/secret'");
	refused(pol, "out-abs", O_RDONLY, EXDEV, "absolute symlink out");
	refused(pol, "out-rel", O_RDONLY, EXDEV, "relative symlink out");
	refused(pol, "in-abs", O_RDONLY, EXDEV,
	    "absolute symlink, even pointing inside");
	refused(pol, "dangling", O_RDONLY, ENOENT, "dangling symlink");
	refused(pol, "missing", O_RDONLY, ENOENT, "missing file");
	refused(pol, "file.txt/x", O_RDONLY, ENOTDIR, "file as a directory");

	/* An absolute path that climbs back out after matching the root. */
	errno = 0;
	fd = open_user(pol, at("allowed/../allowed-evil/secret"), O_RDONLY,
	    &code);
	ok(fd == -2 ? code == TC_EOUTSIDE : fd == -1 && errno == EXDEV,
	    "R/allowed/../allowed-evil/secret: refused");
	if (fd >= 0)
		close(fd);

	/* Creating: inside works, through a link out creates nothing. */
	fd = open_user(pol, "new.txt", O_WRONLY | O_CREAT | O_EXCL, &code);
	ok(fd >= 0, "O_CREAT inside the root");
	if (fd >= 0)
		close(fd);
	ok(stat(at("allowed/new.txt"), &st) == 0 && (st.st_mode & 0777) ==
	    0600, "created file exists with the mode given");
	refused(pol, "plant", O_WRONLY | O_CREAT, EXDEV,
	    "O_CREAT through a dangling symlink out");
	ok(stat(at("outside/planted"), &st) != 0 && errno == ENOENT,
	    "nothing was planted outside");
	refused(pol, "../outside/new", O_WRONLY | O_CREAT, EXDEV,
	    "O_CREAT with '..'");
	ok(stat(at("outside/new"), &st) != 0, "nothing created outside");
}

static void
test_openat_in(struct tc_policy *pol)
{
	struct tc_path p;
	int dfd, fd;

	if (tc_path_map(pol, "sub", &p, NULL) != 0) {
		ok(0, "map 'sub'");
		return;
	}
	dfd = tc_path_openat(pol, &p, O_RDONLY | O_DIRECTORY, 0);
	tc_path_release(&p);
	ok(dfd >= 0, "open 'sub' beneath the root");
	is_str(slurp(tc_path_openat_in(dfd, "inner.txt", O_RDONLY, 0)),
	    "inner", "openat_in: a file in the directory");
	errno = 0;
	fd = tc_path_openat_in(dfd, "../file.txt", O_RDONLY, 0);
	ok(fd == -1 && errno == EXDEV, "openat_in: '..' leaves the directory");
	if (fd >= 0)
		close(fd);
	fd = tc_path_openat_in(dfd, "inner.txt", O_RDONLY, 0);
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	    "fds are opened close-on-exec");
	if (fd >= 0)
		close(fd);
	close(dfd);
}

static void
test_roots(void)
{
	struct tc_policy pol;
	struct tc_diag d;
	struct tc_path p;
	int code, i;

	/* A root given through a symlink: both forms are reachable. */
	tc_policy_init(&pol);
	memset(&d, 0, sizeof(d));
	is_int(tc_policy_add_root(&pol, at("link"), 0, &d), 0,
	    "root given through a symlink");
	is_str(pol.roots[0].path, allowed, "its canonical path");
	is_str(pol.roots[0].given, at("link"), "its given path");
	opens(&pol, at("link/file.txt"), "hello", "through the given form");
	opens(&pol, at("allowed/file.txt"), "hello",
	    "through the canonical form");
	is_int(tc_path_map(&pol, at("link-twin/file.txt"), &p, &d),
	    TC_EOUTSIDE, "a prefix twin of the given form is outside");
	tc_policy_release(&pol);

	/* Nested roots: the longest match wins. */
	tc_policy_init(&pol);
	tc_policy_add_root(&pol, allowed, 0, NULL);
	tc_policy_add_root(&pol, at("allowed/sub"), TC_ROOT_WRITE, NULL);
	is_int(tc_policy_writable(&pol), 1, "a writable root");
	is_int(tc_path_map(&pol, at("allowed/sub/inner.txt"), &p, &d), 0,
	    "path in a nested root maps");
	is_int(p.root, 1, "the nested root wins");
	is_str(p.rel, "inner.txt", "relative to the nested root");
	tc_path_release(&p);
	tc_policy_release(&pol);

	/* Bad roots. */
	tc_policy_init(&pol);
	is_int(tc_policy_writable(&pol), 0, "no roots: nothing writable");
	is_int(tc_path_map(&pol, "x", &p, &d), TC_EOUTSIDE,
	    "no roots: every path is outside");
	is_int(tc_policy_add_root(&pol, at("nope"), 0, &d), TC_ESYS,
	    "a missing root fails");
	like(d.msg, "nope", "the message names the directory");
	is_int(tc_policy_add_root(&pol, at("allowed/file.txt"), 0, &d),
	    TC_ESYS, "a file as a root fails");
	is_int(tc_policy_add_root(&pol, "", 0, &d), TC_EINVAL,
	    "an empty root fails");
	is_int(pol.nroots, 0, "no root was added");

	/* With / as a root, /proc magic links are still not followed. */
	is_int(tc_policy_add_root(&pol, "/", 0, &d), 0, "/ as a root");
	errno = 0;
	code = 0;
	is_int(open_user(&pol, "/proc/self/root/etc/passwd", O_RDONLY,
	    &code), -1, "/proc/self/root/etc/passwd under root /: refused");
	is_int(errno, ELOOP, "magic link: ELOOP");
	tc_policy_release(&pol);

	/* Every root's fd stays open in every child: a bound on them. */
	tc_policy_init(&pol);
	for (i = 0; i < TC_ROOTS_MAX; i++)
		if (tc_policy_add_root(&pol, "/", 0, &d) != 0)
			break;
	is_int((int)pol.nroots, TC_ROOTS_MAX, "%d roots are accepted",
	    TC_ROOTS_MAX);
	is_int(tc_policy_add_root(&pol, "/", 0, &d), TC_EINVAL,
	    "one more is refused");
	like(d.msg, "at most 32 directories", "and the message says why");
	is_int((int)pol.nroots, TC_ROOTS_MAX, "and it was not added");
	tc_policy_release(&pol);
}

static void
test_errors(void)
{
	struct tc_diag d;

	memset(&d, 0, sizeof(d));
	is_int(tc_path_error(&d, "x/y", EXDEV), TC_EOUTSIDE, "EXDEV code");
	is_str(d.msg, "'x/y': resolves outside the allowed directories",
	    "EXDEV message");
	is_int(tc_path_error(&d, "x/y", ENOENT), TC_ENOTFOUND, "ENOENT code");
	is_str(d.msg, "'x/y': not found", "ENOENT message");
	is_int(tc_path_error(&d, "x", ELOOP), TC_EOUTSIDE, "ELOOP code");
	is_int(tc_path_error(&d, "x", EACCES), TC_EDENIED, "EACCES code");
	is_int(tc_path_error(&d, "x", ENOTDIR), TC_ENOTFOUND, "ENOTDIR code");
	is_int(tc_path_error(&d, "x", EIO), TC_ESYS, "EIO code");
	like(d.msg, "'x': ", "EIO message names the path");
}

int
main(void)
{
	struct tc_policy pol;
	struct tc_diag d;
	int rc;

	make_tree();
	tc_policy_init(&pol);
	memset(&d, 0, sizeof(d));
	is_int(tc_policy_add_root(&pol, allowed, 0, &d), 0, "add R/allowed");
	is_int(pol.nroots, 1, "one root");
	test_map(&pol);
	test_open(&pol);
	test_openat_in(&pol);
	tc_policy_release(&pol);
	test_roots();
	test_errors();
	rc = done_testing();
	nftw(R, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}
