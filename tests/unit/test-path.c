/*
 * test-path.c: mapping client paths to roots and opening them beneath a
 * root, against a scratch tree R (tree.h's tree_root):
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
 *
 * and, for the deny rules:
 *
 *	R/allowed/.env, sub/.env, .ssh/id_rsa, secrets/s.txt,
 *	    private/p.txt, .git/hooks/pre-commit, sub/.git/hooks/h
 *	R/allowed/notes -> .env			a symlink to a denied file
 *	R/allowed/cfg -> .ssh			a symlink to a denied directory
 *	R/allowed/sub/up -> ../.env		relative, climbing to one
 *	R/allowed/pl -> private			to a directory an absolute
 *						pattern denies
 *	R/allowed/wlink -> secrets/s.txt	for writes through a symlink
 *	R/allowed/dl -> .ssh/new_key		dangling, into a denied one
 *	R/allowed/hl				a hard link to .env
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "policy/glob.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "tap.h"
#include "tree.h"

static char allowed[PATH_MAX];		/* R/allowed */

static void
put(const char *rel, const char *text)
{
	put_file(rel, text, 0644);
}

static void
make_tree(void)
{
	tree_make("tc-path");
	if (snprintf(allowed, sizeof(allowed), "%s/allowed", tree_root) >=
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

	must(mkdir(at("allowed/.ssh"), 0700), "mkdir .ssh");
	must(mkdir(at("allowed/secrets"), 0755), "mkdir secrets");
	must(mkdir(at("allowed/private"), 0755), "mkdir private");
	must(mkdir(at("allowed/.git"), 0755), "mkdir .git");
	must(mkdir(at("allowed/.git/hooks"), 0755), "mkdir .git/hooks");
	must(mkdir(at("allowed/sub/.git"), 0755), "mkdir sub/.git");
	must(mkdir(at("allowed/sub/.git/hooks"), 0755), "mkdir sub hooks");
	put("allowed/.env", "ENV");
	put("allowed/sub/.env", "SUBENV");
	put("allowed/.ssh/id_rsa", "KEY");
	put("allowed/secrets/s.txt", "secret");
	put("allowed/private/p.txt", "private");
	put("allowed/.git/hooks/pre-commit", "hook");
	put("allowed/sub/.git/hooks/h", "subhook");
	must(symlink(".env", at("allowed/notes")), "notes");
	must(symlink(".ssh", at("allowed/cfg")), "cfg");
	must(symlink("../.env", at("allowed/sub/up")), "up");
	must(symlink("private", at("allowed/pl")), "pl");
	must(symlink("secrets/s.txt", at("allowed/wlink")), "wlink");
	must(symlink(".ssh/new_key", at("allowed/dl")), "dl");
	must(link(at("allowed/.env"), at("allowed/hl")), "hl");
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

/* Adds a deny rule to |pol|; released by drop_rules(). */
static void
add_rule(struct tc_policy *pol, const char *pattern, unsigned access,
    int line)
{
	struct tc_deny *v;

	v = reallocarray(pol->deny, pol->ndeny + 1, sizeof(*v));
	if (v == NULL)
		abort();
	memset(&v[pol->ndeny], 0, sizeof(*v));
	if ((v[pol->ndeny].pattern = strdup(pattern)) == NULL)
		abort();
	v[pol->ndeny].access = access;
	v[pol->ndeny].line = line;
	pol->deny = v;
	pol->ndeny++;
}

/* Frees the rules add_rule() made, before tc_policy_release(). */
static void
drop_rules(struct tc_policy *pol)
{
	size_t i;

	for (i = 0; i < pol->ndeny; i++)
		free(pol->deny[i].pattern);
	free(pol->deny);
	pol->deny = NULL;
	pol->ndeny = 0;
}

/*
 * Maps |user| and opens it with tc_path_open(|flags|, 0600, |access|).
 * Returns the fd, or -1 with errno set and the message in |d|; a mapping
 * failure returns -2.
 */
static int
open_checked(const struct tc_policy *pol, const char *user, int flags,
    unsigned access, struct tc_diag *d)
{
	struct tc_path p;
	int fd, saved;

	memset(d, 0, sizeof(*d));
	if (tc_path_map(pol, user, &p, d) != 0)
		return -2;
	if ((fd = tc_path_open(pol, &p, flags, 0600, access)) < 0) {
		saved = errno;
		tc_path_open_error(d, &p, user, saved);
		errno = saved;
	}
	tc_path_release(&p);
	return fd;
}

/* Checks that |user| opens for reading despite the rules, holding |want|. */
static void
allowed_read(const struct tc_policy *pol, const char *user, const char *want,
    const char *name)
{
	struct tc_diag d;
	int fd;

	fd = open_checked(pol, user, O_RDONLY, TC_ACCESS_READ, &d);
	if (fd < 0)
		printf("#   %s\n", d.msg);
	is_str(slurp(fd), want, "%s: opens", name);
}

/*
 * Checks that |user| is refused for |access| with |flags|: errno EACCES
 * and the message |msg|.
 */
static void
denied(const struct tc_policy *pol, const char *user, int flags,
    unsigned access, const char *msg, const char *name)
{
	struct tc_diag d;
	int fd;

	errno = 0;
	fd = open_checked(pol, user, flags, access, &d);
	if (fd >= 0)
		close(fd);
	if (is_int(fd, -1, "%s: refused", name))
		is_int(errno, EACCES, "%s: errno EACCES", name);
	is_str(d.msg, msg, "%s: message", name);
}

/* Checks what tc_path_check() says of |user| alone, touching no file. */
static void
lexical(const struct tc_policy *pol, const char *user,
    const struct tc_deny *want, const char *name)
{
	struct tc_path p;
	int rc;

	if (tc_path_map(pol, user, &p, NULL) != 0) {
		ok(0, "%s: maps", name);
		return;
	}
	errno = 0;
	rc = tc_path_check(pol, &p, TC_ACCESS_READ);
	if (want == NULL)
		ok(rc == 0 && p.denied_by == NULL, "%s: passes the check "
		    "as given", name);
	else
		ok(rc == -1 && errno == EACCES && p.denied_by == want,
		    "%s: refused as given, by rule '%s'", name, want->pattern);
	tc_path_release(&p);
}

static void
test_deny(void)
{
	char private[PATH_MAX + 16], msg[PATH_MAX + 256];
	struct tc_policy pol;
	struct tc_where w;
	struct tc_path p;
	struct tc_diag d;
	const struct tc_deny *rule;
	const char *why;
	struct stat st;
	int fd;

	tc_policy_init(&pol);
	if (tc_policy_add_root(&pol, allowed, 0, &d) != 0)
		abort();

	/* No rules: tc_path_open() is tc_path_openat(). */
	allowed_read(&pol, ".env", "ENV", "no rules: .env");

	if (snprintf(private, sizeof(private), "%s/private", allowed) >=
	    (int)sizeof(private))
		abort();
	add_rule(&pol, "**/.env", TC_ACCESS_READ | TC_ACCESS_WRITE, 4);
	add_rule(&pol, "**/.ssh", TC_ACCESS_READ | TC_ACCESS_WRITE, 0);
	add_rule(&pol, "secrets", TC_ACCESS_WRITE, 6);
	add_rule(&pol, private, TC_ACCESS_READ | TC_ACCESS_WRITE, 7);
	add_rule(&pol, ".git/hooks", TC_ACCESS_READ | TC_ACCESS_WRITE, 8);

	/* As given: refused before anything is opened. */
	lexical(&pol, ".env", &pol.deny[0], "'.env'");
	lexical(&pol, "sub/.env", &pol.deny[0], "'sub/.env'");
	lexical(&pol, "./sub//.env", &pol.deny[0], "'./sub//.env'");
	lexical(&pol, at("allowed/sub/.env"), &pol.deny[0],
	    "absolute R/allowed/sub/.env");
	lexical(&pol, "missing/.env", &pol.deny[0],
	    "'missing/.env', which does not exist");
	lexical(&pol, ".ssh/id_rsa", &pol.deny[1], "'.ssh/id_rsa'");
	lexical(&pol, ".ssh/../file.txt", &pol.deny[1],
	    "'.ssh/../file.txt' (named through a denied directory)");
	lexical(&pol, "private/p.txt", &pol.deny[3], "'private/p.txt'");
	lexical(&pol, "notes", NULL, "'notes' (a symlink to .env)");
	lexical(&pol, "sub/../.env", NULL, "'sub/../.env' (after '..')");
	lexical(&pol, ".", NULL, "the root");

	denied(&pol, ".env", O_RDONLY, TC_ACCESS_READ,
	    "'.env': denied by policy rule 'deny **/.env' (line 4)",
	    "'.env'");
	denied(&pol, "sub/.env", O_RDONLY, TC_ACCESS_READ,
	    "'sub/.env': denied by policy rule 'deny **/.env' (line 4)",
	    "'sub/.env'");
	denied(&pol, ".ssh/id_rsa", O_RDONLY, TC_ACCESS_READ,
	    "'.ssh/id_rsa': denied by policy rule 'deny **/.ssh' (built in)",
	    "'.ssh/id_rsa', a built-in rule");
	denied(&pol, ".ssh", O_RDONLY | O_DIRECTORY, TC_ACCESS_READ,
	    "'.ssh': denied by policy rule 'deny **/.ssh' (built in)",
	    "the denied directory itself");

	/* As opened: symlinks to denied files and directories. */
	denied(&pol, "notes", O_RDONLY, TC_ACCESS_READ,
	    "'notes': denied by policy rule 'deny **/.env' (line 4)",
	    "'notes' -> .env");
	denied(&pol, "notes", O_PATH, TC_ACCESS_READ,
	    "'notes': denied by policy rule 'deny **/.env' (line 4)",
	    "'notes' -> .env, O_PATH (as get_file_info opens)");
	denied(&pol, "cfg/id_rsa", O_RDONLY, TC_ACCESS_READ,
	    "'cfg/id_rsa': denied by policy rule 'deny **/.ssh' (built in)",
	    "'cfg/id_rsa', cfg -> .ssh");
	denied(&pol, "cfg", O_RDONLY | O_DIRECTORY, TC_ACCESS_READ,
	    "'cfg': denied by policy rule 'deny **/.ssh' (built in)",
	    "listing 'cfg' -> .ssh");
	denied(&pol, "sub/up", O_RDONLY, TC_ACCESS_READ,
	    "'sub/up': denied by policy rule 'deny **/.env' (line 4)",
	    "'sub/up' -> ../.env");
	snprintf(msg, sizeof(msg), "'pl/p.txt': denied by policy rule "
	    "'deny %s' (line 7)", private);
	denied(&pol, "pl/p.txt", O_RDONLY, TC_ACCESS_READ, msg, "'pl/p.txt', "
	    "pl -> private, which an absolute pattern denies");

	/* ".." forms. */
	denied(&pol, "sub/../.env", O_RDONLY, TC_ACCESS_READ,
	    "'sub/../.env': denied by policy rule 'deny **/.env' (line 4)",
	    "'sub/../.env'");
	snprintf(msg, sizeof(msg), "'%s': denied by policy rule "
	    "'deny **/.env' (line 4)", at("allowed/sub/../.env"));
	denied(&pol, at("allowed/sub/../.env"), O_RDONLY, TC_ACCESS_READ,
	    msg, "absolute R/allowed/sub/../.env");
	denied(&pol, "sub/../cfg/../.ssh/id_rsa", O_RDONLY, TC_ACCESS_READ,
	    "'sub/../cfg/../.ssh/id_rsa': denied by policy rule "
	    "'deny **/.ssh' (built in)", "'sub/../cfg/../.ssh/id_rsa'");
	errno = 0;
	fd = open_checked(&pol, "sub/../../allowed/.env", O_RDONLY,
	    TC_ACCESS_READ, &d);
	ok(fd == -1 && errno == EXDEV, "'sub/../../allowed/.env' leaves the "
	    "root on the way: EXDEV, before any deny rule");
	if (fd >= 0)
		close(fd);

	/* What is allowed stays allowed. */
	allowed_read(&pol, "file.txt", "hello", "'file.txt'");
	allowed_read(&pol, "sub/../file.txt", "hello", "'sub/../file.txt'");
	allowed_read(&pol, "in-rel", "inner", "'in-rel' -> sub/inner.txt");
	allowed_read(&pol, "secrets/s.txt", "secret",
	    "'secrets/s.txt': a write-only rule does not refuse reads");
	allowed_read(&pol, "wlink", "secret",
	    "'wlink' -> secrets/s.txt, read");
	allowed_read(&pol, "sub/.git/hooks/h", "subhook",
	    "'sub/.git/hooks/h': '.git/hooks' is anchored at the root");
	denied(&pol, ".git/hooks/pre-commit", O_RDONLY, TC_ACCESS_READ,
	    "'.git/hooks/pre-commit': denied by policy rule "
	    "'deny .git/hooks' (line 8)", "'.git/hooks/pre-commit'");
	fd = open_checked(&pol, ".", O_RDONLY | O_DIRECTORY, TC_ACCESS_READ,
	    &d);
	ok(fd >= 0, "the root opens");
	if (fd >= 0)
		close(fd);

	/* The documented limit: a hard link is allowed by its own name. */
	allowed_read(&pol, "hl", "ENV", "'hl', a hard link to .env (a "
	    "documented limit)");

	/* Writes: only rules for writes count. */
	denied(&pol, "secrets/s.txt", O_WRONLY, TC_ACCESS_WRITE,
	    "'secrets/s.txt': denied by policy rule 'deny write secrets' "
	    "(line 6)", "'secrets/s.txt' for writing");
	denied(&pol, "secrets/new", O_WRONLY | O_CREAT | O_EXCL,
	    TC_ACCESS_WRITE, "'secrets/new': denied by policy rule "
	    "'deny write secrets' (line 6)", "creating 'secrets/new'");
	ok(stat(at("allowed/secrets/new"), &st) != 0 && errno == ENOENT,
	    "and it was not created");
	denied(&pol, "wlink", O_WRONLY, TC_ACCESS_WRITE,
	    "'wlink': denied by policy rule 'deny write secrets' (line 6)",
	    "'wlink' -> secrets/s.txt, for writing");
	errno = 0;
	fd = open_checked(&pol, "wlink", O_WRONLY | O_TRUNC, TC_ACCESS_WRITE,
	    &d);
	ok(fd == -1 && errno == ELOOP, "truncating through a symlink: ELOOP");
	if (fd >= 0)
		close(fd);
	ok(stat(at("allowed/secrets/s.txt"), &st) == 0 && st.st_size == 6,
	    "and secrets/s.txt was not truncated");
	errno = 0;
	fd = open_checked(&pol, "dl", O_WRONLY | O_CREAT, TC_ACCESS_WRITE,
	    &d);
	ok(fd == -1 && errno == ELOOP,
	    "creating through a dangling symlink into .ssh: ELOOP");
	if (fd >= 0)
		close(fd);
	ok(stat(at("allowed/.ssh/new_key"), &st) != 0,
	    "and nothing was created in .ssh");
	denied(&pol, "sub/../.ssh/new_key", O_WRONLY | O_CREAT,
	    TC_ACCESS_WRITE, "'sub/../.ssh/new_key': denied by policy rule "
	    "'deny **/.ssh' (built in)", "creating '.ssh/new_key' after '..'");
	ok(stat(at("allowed/.ssh/new_key"), &st) != 0,
	    "and nothing was created in .ssh");
	denied(&pol, "cfg/new_key", O_WRONLY | O_CREAT, TC_ACCESS_WRITE,
	    "'cfg/new_key': denied by policy rule 'deny **/.ssh' "
	    "(built in)", "creating in cfg -> .ssh");
	fd = open_checked(&pol, "sub/made.txt", O_WRONLY | O_CREAT | O_EXCL,
	    TC_ACCESS_WRITE, &d);
	ok(fd >= 0, "creating an allowed file works");
	if (fd >= 0)
		close(fd);
	ok(stat(at("allowed/sub/made.txt"), &st) == 0 && (st.st_mode &
	    0777) == 0600, "with the mode given");
	fd = open_checked(&pol, "made.txt", O_WRONLY | O_CREAT | O_TRUNC,
	    TC_ACCESS_WRITE, &d);
	ok(fd >= 0, "creating one in the root itself works");
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = open_checked(&pol, "sub/", O_WRONLY | O_CREAT, TC_ACCESS_WRITE,
	    &d);
	ok(fd == -1 && errno == EISDIR, "creating 'sub/': EISDIR");

	/* Where an fd is, and entries of a directory. */
	if (tc_path_map(&pol, "sub", &p, NULL) != 0)
		abort();
	fd = tc_path_openat(&pol, &p, O_RDONLY | O_DIRECTORY, 0);
	tc_path_release(&p);
	is_int(tc_path_where(&pol, 0, fd, &w, &why), 0, "where 'sub' is");
	is_str(w.abs, at("allowed/sub"), "its absolute path");
	is_str(w.rel, "sub", "its path in the root");
	is_int(tc_path_entry_denied(&pol, &w, ".env", TC_ACCESS_READ, &rule),
	    1, "entry sub/.env is denied");
	ok(rule == &pol.deny[0], "by '**/.env'");
	is_int(tc_path_entry_denied(&pol, &w, "inner.txt", TC_ACCESS_READ,
	    &rule), 0, "entry sub/inner.txt is not");
	ok(rule == NULL, "and no rule is given");
	is_int(tc_path_entry_denied(&pol, &w, ".git", TC_ACCESS_READ, &rule),
	    0, "entry sub/.git is not");
	tc_where_release(&w);
	close(fd);
	is_int(tc_path_where(&pol, 0, pol.roots[0].fd, &w, &why), 0,
	    "where the root is");
	is_str(w.rel, ".", "the root's rel is '.'");
	is_int(tc_path_entry_denied(&pol, &w, ".ssh", TC_ACCESS_READ, &rule),
	    1, "entry .ssh is denied");
	is_int(tc_path_entry_denied(&pol, &w, ".git", TC_ACCESS_READ, &rule),
	    0, "entry .git is not");
	is_int(tc_path_entry_denied(&pol, &w, "secrets", TC_ACCESS_READ,
	    &rule), 0, "entry secrets is not, for reading");
	is_int(tc_path_entry_denied(&pol, &w, "secrets", TC_ACCESS_WRITE,
	    &rule), 1, "but is for writing");
	tc_where_release(&w);

	/* The root itself, told by identity: one reading of /proc. */
	is_int(tc_path_where_root(&pol, 0, pol.roots[0].fd, &w), 0,
	    "where the root is, as the root");
	is_str(w.abs, at("allowed"), "its absolute path");
	is_str(w.rel, ".", "its rel '.'");
	tc_where_release(&w);
	if (tc_path_map(&pol, "sub", &p, NULL) != 0)
		abort();
	fd = tc_path_openat(&pol, &p, O_RDONLY | O_DIRECTORY, 0);
	tc_path_release(&p);
	is_int(tc_path_where_root(&pol, 0, fd, &w), -1,
	    "a directory beneath it is not the root");
	ok(w.abs == NULL, "and nothing to release");
	close(fd);
	is_int(tc_path_where_root(&pol, 1, pol.roots[0].fd, &w), -1,
	    "an index past the roots: -1");
	/* Moved: where it is now, as tc_path_where() says. */
	must(rename(at("allowed"), at("allowed-moved")), "rename the root");
	is_int(tc_path_where_root(&pol, 0, pol.roots[0].fd, &w), 0,
	    "where the moved root is");
	is_str(w.abs, at("allowed-moved"), "its path now");
	tc_where_release(&w);
	must(rename(at("allowed-moved"), at("allowed")), "rename it back");

	/* A file moved out of its root after it was opened. */
	if (tc_path_map(&pol, "sub/inner.txt", &p, NULL) != 0)
		abort();
	fd = tc_path_openat(&pol, &p, O_RDONLY, 0);
	must(rename(at("allowed/sub/inner.txt"), at("outside/inner.txt")),
	    "rename");
	errno = 0;
	is_int(tc_path_where(&pol, 0, fd, &w, &why), -1,
	    "where a file moved out of its root is: unknown");
	is_int(errno, EACCES, "errno EACCES");
	is_str(why, "it is no longer beneath its allowed directory",
	    "and why");
	ok(w.abs == NULL, "nothing to release");
	p.unchecked = why;
	tc_path_open_error(&d, &p, "sub/inner.txt", EACCES);
	is_str(d.msg, "'sub/inner.txt': cannot be checked against the deny "
	    "rules: it is no longer beneath its allowed directory",
	    "the message");
	must(rename(at("outside/inner.txt"), at("allowed/sub/inner.txt")),
	    "rename back");
	tc_path_release(&p);
	close(fd);

	drop_rules(&pol);

	/* A rule covering everything still leaves the root itself. */
	add_rule(&pol, "**", TC_ACCESS_READ | TC_ACCESS_WRITE, 1);
	fd = open_checked(&pol, ".", O_RDONLY | O_DIRECTORY, TC_ACCESS_READ,
	    &d);
	ok(fd >= 0, "'deny **': the root still opens");
	if (fd >= 0)
		close(fd);
	fd = open_checked(&pol, allowed, O_PATH, TC_ACCESS_READ, &d);
	ok(fd >= 0, "'deny **': the root, named absolutely, too");
	if (fd >= 0)
		close(fd);
	denied(&pol, "file.txt", O_RDONLY, TC_ACCESS_READ,
	    "'file.txt': denied by policy rule 'deny **' (line 1)",
	    "'deny **': what is in it does not");
	drop_rules(&pol);
	tc_policy_release(&pol);
}

static void
test_denied_message(void)
{
	char pat[] = "**/.env";
	struct tc_deny r = { .pattern = pat,
	    .access = TC_ACCESS_READ | TC_ACCESS_WRITE, .line = 4 };
	struct tc_path p;
	struct tc_diag d;

	memset(&d, 0, sizeof(d));
	is_int(tc_path_denied(&d, "x/.env", &r), TC_EDENIED, "TC_EDENIED");
	is_str(d.msg, "'x/.env': denied by policy rule 'deny **/.env' "
	    "(line 4)", "a rule of a line");
	r.line = 0;
	tc_path_denied(&d, "x/.env", &r);
	is_str(d.msg, "'x/.env': denied by policy rule 'deny **/.env' "
	    "(built in)", "a built-in rule");
	r.access = TC_ACCESS_WRITE;
	r.line = 12;
	tc_path_denied(&d, "x/.env", &r);
	is_str(d.msg, "'x/.env': denied by policy rule 'deny write **/.env' "
	    "(line 12)", "a rule on writes");
	memset(&p, 0, sizeof(p));
	p.denied_by = &r;
	is_int(tc_path_open_error(&d, &p, "y", EACCES), TC_EDENIED,
	    "open error with a rule: TC_EDENIED");
	like(d.msg, "'y': denied by policy rule", "and names it");
	p.denied_by = NULL;
	is_int(tc_path_open_error(&d, &p, "y", EACCES), TC_EDENIED,
	    "EACCES without a rule: TC_EDENIED");
	is_str(d.msg, "'y': permission denied", "as tc_path_error() says");
	is_int(tc_path_open_error(&d, &p, "y", ENOENT), TC_ENOTFOUND,
	    "ENOENT: as tc_path_error()");
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

/* Checks tc_path_given() on |rel| beneath root |root| of |pol|. */
static void
given(const struct tc_policy *pol, size_t root, const char *rel,
    const char *want_abs, const char *want_rel)
{
	struct tc_path p;
	const char *r;
	char *abs;

	memset(&p, 0, sizeof(p));
	p.root = root;
	p.rel = (char *)(uintptr_t)rel;
	abs = tc_path_given(pol, &p, &r);
	if (!ok(abs != NULL, "given '%s': made", rel))
		return;
	is_str(abs, want_abs, "given '%s': absolute", rel);
	is_str(r, want_rel, "given '%s': relative", rel);
	free(abs);
}

/* The path as given, which deny and consent rules see before the files. */
static void
test_given(void)
{
	static char r0[] = "/r", r1[] = "/";
	struct tc_root roots[2];
	struct tc_policy pol;
	struct tc_path p;
	const char *r;

	memset(&pol, 0, sizeof(pol));
	memset(roots, 0, sizeof(roots));
	roots[0].path = r0;
	roots[0].pathlen = strlen(r0);
	roots[1].path = r1;
	roots[1].pathlen = 1;
	pol.roots = roots;
	pol.nroots = 2;
	given(&pol, 0, "a/b", "/r/a/b", "a/b");
	given(&pol, 0, ".//a/./b/", "/r/a/b", "a/b");
	given(&pol, 0, "a/../b", "/r/a", "a");
	given(&pol, 0, "../x", "/r", "");
	given(&pol, 0, ".", "/r", "");
	given(&pol, 1, "etc/x", "/etc/x", "etc/x");
	given(&pol, 1, ".", "/", "");
	memset(&p, 0, sizeof(p));
	p.root = 2;
	p.rel = r1;
	errno = 0;
	ok(tc_path_given(&pol, &p, &r) == NULL && errno == EINVAL,
	    "given: a root that is not there, EINVAL");
}

/* Fills |pin| for |rel| beneath root 0 with what |file| (R-relative) is. */
static void
pin_to(struct tc_pin *pin, char *rel, unsigned kind, const char *file,
    unsigned missing)
{
	struct stat st;

	memset(pin, 0, sizeof(*pin));
	must(lstat(at(file), &st), file);
	pin->rel = rel;
	pin->kind = kind;
	pin->missing = missing;
	pin->dev = (unsigned long long)st.st_dev;
	pin->ino = (unsigned long long)st.st_ino;
}

/* Opens |user| beneath |pol| for reading; returns the fd or -1, errno. */
static int
open_pinned(const struct tc_policy *pol, const char *user)
{
	struct tc_path p;
	int fd, saved;

	if (tc_path_map(pol, user, &p, NULL) != 0)
		return -1;
	fd = tc_path_open(pol, &p, O_RDONLY, 0, TC_ACCESS_READ);
	saved = errno;
	tc_path_release(&p);
	errno = saved;
	return fd;
}

/* In a call's child, the paths hold to what consent was given for. */
static void
test_pins(void)
{
	static char rel_file[] = "file.txt", rel_in[] = "in-rel",
	    rel_sub[] = "sub/new", rel_deep[] = "sub/a/b";
	struct tc_pin pins[4];
	struct tc_policy pol;
	struct tc_diag d;
	struct tc_path p;
	struct stat st;
	int fd, dfd;

	tc_policy_init(&pol);
	memset(&d, 0, sizeof(d));
	is_int(tc_policy_add_root(&pol, allowed, 0, &d), 0, "pins: a root");
	fd = open_pinned(&pol, "in-rel");
	ok(fd >= 0, "not pinned: in-rel opens");
	if (fd >= 0)
		close(fd);

	pin_to(&pins[0], rel_file, TC_PIN_PATH, "allowed/file.txt", 0);
	pin_to(&pins[1], rel_in, TC_PIN_PATH, "allowed/sub/inner.txt", 0);
	pin_to(&pins[2], rel_sub, TC_PIN_ENTRY, "allowed/sub", 0);
	pin_to(&pins[3], rel_deep, TC_PIN_PATH, "allowed/sub", 2);
	pol.pins = pins;
	pol.npins = 4;
	pol.pinned = 1;
	fd = open_pinned(&pol, "file.txt");
	ok(fd >= 0, "pinned: file.txt is what it was");
	if (fd >= 0)
		close(fd);
	fd = open_pinned(&pol, "in-rel");
	ok(fd >= 0, "pinned: in-rel leads where it led");
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = open_pinned(&pol, "sub/inner.txt");
	ok(fd < 0 && errno == ESTALE, "pinned: a path without a pin, ESTALE");
	/* The link now leads elsewhere. */
	pins[1].ino++;
	errno = 0;
	fd = open_pinned(&pol, "in-rel");
	ok(fd < 0 && errno == ESTALE, "pinned: another file, ESTALE");
	pins[1].ino--;
	pins[0].missing = 1;
	errno = 0;
	fd = open_pinned(&pol, "file.txt");
	ok(fd < 0 && errno == ESTALE, "pinned: a file that was not there, "
	    "ESTALE");
	pins[0].missing = 0;
	tc_path_error(&d, "in-rel", ESTALE);
	is_str(d.msg, "'in-rel': changed after the call was checked (consent "
	    "was given for what it was then), so nothing was done; call "
	    "again to be asked about what it is now", "ESTALE: message");

	/* A change: the directory, and the entry not followed. */
	memset(&p, 0, sizeof(p));
	p.rel = rel_sub;
	dfd = open(at("allowed/sub"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	is_int(tc_path_pin_check_entry(&pol, &p, dfd, "new"), 0,
	    "entry: the directory, no entry then nor now");
	errno = 0;
	ok(tc_path_pin_check_entry(&pol, &p, dfd, "inner.txt") == -1 &&
	    errno == ESTALE, "entry: one there now that was not");
	must(lstat(at("allowed/sub/inner.txt"), &st), "inner");
	pins[2].entry = 1;
	pins[2].edev = (unsigned long long)st.st_dev;
	pins[2].eino = (unsigned long long)st.st_ino;
	is_int(tc_path_pin_check_entry(&pol, &p, dfd, "inner.txt"), 0,
	    "entry: the same entry");
	errno = 0;
	ok(tc_path_pin_check_entry(&pol, &p, dfd, "new") == -1 &&
	    errno == ESTALE, "entry: gone since");
	pins[2].dev++;
	errno = 0;
	ok(tc_path_pin_check_entry(&pol, &p, dfd, "inner.txt") == -1 &&
	    errno == ESTALE, "entry: another directory");
	pins[2].dev--;

	/* create_directory: the deepest that exists, and how much is
	 * missing below it. */
	p.rel = rel_deep;
	is_int(tc_path_pin_check_prefix(&pol, &p, dfd, 2), 0,
	    "prefix: as it was");
	errno = 0;
	ok(tc_path_pin_check_prefix(&pol, &p, dfd, 1) == -1 &&
	    errno == ESTALE, "prefix: more of it exists now");
	close(dfd);
	pol.pins = NULL;
	pol.npins = 0;
	pol.pinned = 0;
	tc_policy_release(&pol);
}

/* tc_path_split(): the names a path to be created is made of. */
static void
test_split(void)
{
	static const struct {
		const char *in, *want;	/* components joined by '|' */
		size_t max;
	} cases[] = {
		{ "a/b/c", "a|b|c", 8 },
		{ "//a//./b/", "a|b", 8 },
		{ "./a/../b", "a|..|b", 8 },
		{ ".", "", 8 },
		{ "", "", 8 },
		{ "a/b/c/d", "a|b", 2 },
	};
	char buf[64], got[64], *v[8];
	size_t i, j, n;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		n = tc_path_split(buf, v, cases[i].max);
		got[0] = '\0';
		for (j = 0; j < n; j++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
			    "%s%s", j > 0 ? "|" : "", v[j]);
		is_str(got, cases[i].want, "tc_path_split '%s' (at most %zu)",
		    cases[i].in, cases[i].max);
	}
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
	test_deny();
	test_denied_message();
	test_given();
	test_pins();
	test_split();
	rc = done_testing();
	tree_remove();
	return rc;
}
