/*
 * test-own.c: the server's own files (own.h), against a scratch tree T
 * (tree.h's tree_root):
 *
 *	T/w/			a writable root
 *	T/w/ro/			a read-only root nested in it
 *	T/r/			a read-only root
 *	T/r/conf/p.policy	the policy file
 *	T/r/hooks/ask		the hook: "#!T/r/bin/interp" ...
 *	T/r/bin/interp		... itself a script: "#!/bin/sh"
 *	T/r/hooks/ask.conf	an argument of the hook
 *	T/r/keys/k		the audit key
 *	T/r/logs/fs.log, fs.log.1, other	the log, a rotated one, another
 *	T/out/			outside every root
 *	T/w/hl			a hard link to the key
 *	T/w/link -> T/out/hook	a hook reached through a writable root
 *
 * and the checks the child makes with them: tc_path_open() by identity,
 * O_TRUNC refused before it empties anything, tc_own_entry() on listings.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/glob.h"
#include "policy/own.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "tap.h"
#include "tree.h"

static void
make_tree(void)
{
	char text[PATH_MAX + 64];
	static const char *const dirs[] = { "w", "w/ro", "r", "r/conf",
	    "r/hooks", "r/bin", "r/keys", "r/logs", "out" };
	size_t i;

	tree_make("tc-own");
	for (i = 0; i < TC_NITEMS(dirs); i++)
		must(mkdir(at(dirs[i]), 0755), dirs[i]);
	put_file("r/conf/p.policy", "allow read x\n", 0644);
	snprintf(text, sizeof(text), "#!%s -e\nexit 0\n", at("r/bin/interp"));
	put_file("r/hooks/ask", text, 0755);
	put_file("r/bin/interp", "#! /bin/sh\nexec /bin/sh \"$@\"\n", 0755);
	put_file("r/hooks/ask.conf", "ask: yes\n", 0644);
	put_file("r/keys/k", "0123456789abcdef0123456789abcdef\n", 0600);
	put_file("r/logs/fs.log", "log\n", 0600);
	put_file("r/logs/fs.log.1", "old log\n", 0600);
	put_file("r/logs/other", "not the log's\n", 0644);
	put_file("out/hook", "#!/bin/sh\nexit 0\n", 0755);
	must(link(at("r/keys/k"), at("w/hl")), "hl");
	must(symlink(at("out/hook"), at("w/link")), "link");
}

/* What tc_own_collect() reported, one line after another. */
static char reported[8192];
static int nreported;

static void
report(void *ctx, const char *msg)
{
	size_t n = strlen(reported);

	(void)ctx;
	snprintf(reported + n, sizeof(reported) - n, "%s\n", msg);
	nreported++;
}

/*
 * Makes |p| a policy with roots T/w (writable) and T/r (read-only), or
 * T/r alone, naming the own files of the tree.
 */
static void
policy(struct tc_policy *p, int writable, const char *hook)
{
	struct tc_diag d;
	char **argv;

	tc_policy_init(p);
	if (writable)
		must(tc_policy_add_root(p, at("w"), TC_ROOT_WRITE, &d), d.msg);
	must(tc_policy_add_root(p, at("r"), 0, &d), d.msg);
	argv = calloc(4, sizeof(*argv));
	if (argv == NULL || (argv[0] = strdup(hook)) == NULL ||
	    (argv[1] = strdup("--conf")) == NULL ||
	    (argv[2] = strdup(at("r/hooks/ask.conf"))) == NULL ||
	    (p->audit_file = strdup(at("r/logs/fs.log"))) == NULL ||
	    (p->audit_key_file = strdup(at("r/keys/k"))) == NULL)
		abort();
	p->consent_hook = argv;
	must(tc_policy_finish(p, &d), d.msg);
	reported[0] = '\0';
	nreported = 0;
}

/* Returns the rule refusing the file at T/|rel| by identity, or NULL. */
static const struct tc_deny *
by_id(const struct tc_policy *p, const char *rel)
{
	struct stat st;

	if (lstat(at(rel), &st) != 0)
		return NULL;
	return tc_own_stat(p, &st);
}

/* Returns the number of own path rules of |p|, and the last in *|last|. */
static size_t
own_rules(const struct tc_policy *p, const struct tc_deny **last)
{
	size_t i, n = 0;

	*last = NULL;
	for (i = 0; i < p->ndeny; i++)
		if (p->deny[i].own != NULL) {
			n++;
			*last = &p->deny[i];
		}
	return n;
}

static void
test_read_only(void)
{
	const struct tc_deny *r, *last;
	struct tc_policy p;
	char want[PATH_MAX];
	int n;

	policy(&p, 0, at("r/hooks/ask"));
	n = tc_own_collect(&p, at("r/conf/p.policy"), report, NULL);
	is_int(n, 0, "read-only: nothing to refuse");
	is_str(reported, "", "read-only: nothing reported");
	ok(p.consent_hook_fd > STDERR_FILENO, "the hook is opened, above "
	    "stdio");
	is_int(p.consent_hook_script, 1, "and known for a script");
	/* policy, hook, its interpreter, its argument, key, log dir, log,
	 * LOG.*: in that order. */
	is_int(own_rules(&p, &last), 8, "a rule for each, the log's three");
	ok(last != NULL && last->exact == 0, "LOG.* is a pattern");
	snprintf(want, sizeof(want), "%s.*", at("r/logs/fs.log"));
	is_str(last != NULL ? last->pattern : NULL, want, "LOG.*");
	ok((r = tc_deny_match(&p, at("r/conf/p.policy"), "conf/p.policy",
	    TC_ACCESS_READ)) != NULL && strcmp(r->own, TC_OWN_POLICY) == 0,
	    "the policy refused by name");
	ok((r = tc_deny_match(&p, at("r/bin/interp"), "bin/interp",
	    TC_ACCESS_READ)) != NULL && strcmp(r->own, TC_OWN_INTERPRETER) ==
	    0, "the interpreter of its interpreter line refused by name");
	ok((r = tc_deny_match(&p, at("r/hooks/ask.conf"), "hooks/ask.conf",
	    TC_ACCESS_READ)) != NULL && strcmp(r->own, TC_OWN_HOOK_FILE) ==
	    0, "a file the hook is given refused by name");
	ok((r = tc_deny_match(&p, at("r/logs"), "logs",
	    TC_ACCESS_READ)) != NULL && strcmp(r->own, TC_OWN_LOG_DIR) == 0,
	    "the log's directory refused by name");
	ok(tc_deny_match(&p, at("r/logs/fs.log.7"), "logs/fs.log.7",
	    TC_ACCESS_READ) != NULL, "a rotated file not there yet too");
	ok(tc_deny_match(&p, at("r/logs/other"), "logs/other",
	    TC_ACCESS_READ) == NULL, "not another file beside them");
	ok(tc_deny_match(&p, at("r/logs/fs.logx"), "logs/fs.logx",
	    TC_ACCESS_READ) == NULL, "nor one whose name only starts so");

	ok((r = by_id(&p, "w/hl")) != NULL && strcmp(r->own, TC_OWN_KEY) == 0,
	    "a hard link to the key: the key, by identity");
	ok(by_id(&p, "r/logs/fs.log.1") != NULL && by_id(&p, "r/logs") !=
	    NULL && by_id(&p, "r/hooks/ask") != NULL && by_id(&p,
	    "r/conf/p.policy") != NULL, "every one by identity");
	ok(by_id(&p, "r/logs/other") == NULL && by_id(&p, "r/hooks") ==
	    NULL, "and nothing else");

	/* A log made after start: by name at once; by identity once
	 * refreshed. */
	put_file("r/logs/fs.log.new", "new\n", 0600);
	ok(by_id(&p, "r/logs/fs.log.new") == NULL, "a new log file: not "
	    "known by identity");
	is_int(tc_own_refresh(&p), 0, "refresh");
	ok(by_id(&p, "r/logs/fs.log.new") != NULL, "known once refreshed");
	tc_policy_release(&p);
	ok(p.consent_hook_fd == -1, "released: the hook's fd closed");
}

static void
test_writable(void)
{
	struct tc_policy p;
	char want[4096];
	int n;

	/* The key's hard link is in w: by path nothing is, so the start
	 * goes on (and the key is refused by identity). */
	policy(&p, 1, at("r/hooks/ask"));
	n = tc_own_collect(&p, at("r/conf/p.policy"), report, NULL);
	is_int(n, 0, "a hard link in a writable root: no refusal at start");
	tc_policy_release(&p);

	/* The hook through a link in w. */
	policy(&p, 1, at("w/link"));
	n = tc_own_collect(&p, NULL, report, NULL);
	is_int(n, 1, "a hook through a link in a writable root: refused");
	snprintf(want, sizeof(want), "consent hook '%s': the symbolic link "
	    "'%s' on the way to it lies beneath the writable directory '%s' "
	    "(command line): a call could change or replace it, or rename a "
	    "directory above it and put another file in its place; keep it "
	    "outside every writable directory\n", at("w/link"), at("w/link"),
	    at("w"));
	is_str(reported, want, "the message names the link and the root");
	tc_policy_release(&p);

	/* Beneath a read-only root nested in a writable one. */
	must(rename(at("r/keys/k"), at("w/ro/k")), "move key");
	policy(&p, 1, at("r/hooks/ask"));
	free(p.audit_key_file);
	if ((p.audit_key_file = strdup(at("w/ro/k"))) == NULL)
		abort();
	must(tc_policy_add_root(&p, at("w/ro"), 0, &(struct tc_diag){ "",
	    0 }), "add ro");
	n = tc_own_collect(&p, "p.policy", report, NULL);
	is_int(n, 1, "a key in a read-only root nested in a writable one: "
	    "refused");
	snprintf(want, sizeof(want), "audit key '%s': it lies beneath the "
	    "writable directory '%s' (command line)", at("w/ro/k"), at("w"));
	like(reported, want, "the message names the writable root");
	tc_policy_release(&p);
	must(rename(at("w/ro/k"), at("r/keys/k")), "move key back");
}

static void
test_relative_policy(void)
{
	struct tc_policy p;
	char cwd[PATH_MAX], want[4096];
	int n;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		abort();
	put_file("w/rel.policy", "allow read x\n", 0644);
	must(chdir(at("w")), "chdir");
	policy(&p, 1, at("r/hooks/ask"));
	n = tc_own_collect(&p, "./sub/../rel.policy", report, NULL);
	must(chdir(cwd), "chdir back");
	is_int(n, 1, "a relative policy file, in a writable root: refused");
	snprintf(want, sizeof(want), "policy file '%s/./sub/../rel.policy': "
	    "it lies beneath the writable directory '%s'", at("w"), at("w"));
	like(reported, want, "named as the server opened it");
	tc_policy_release(&p);

	/* A working directory that is gone: where the policy lies cannot
	 * be told, and is not guessed. */
	must(mkdir(at("gone"), 0755), "gone");
	must(chdir(at("gone")), "chdir gone");
	must(rmdir(at("gone")), "rmdir gone");
	policy(&p, 0, at("r/hooks/ask"));
	n = tc_own_collect(&p, "rel.policy", report, NULL);
	must(chdir(cwd), "chdir back");
	is_int(n, 1, "a relative policy file, the working directory gone: "
	    "refused");
	like(reported, "policy file 'rel.policy': where it lies cannot be "
	    "told: the working directory: ", "saying why");
	tc_policy_release(&p);
}

/* Makes |p| a policy serving T/r read-only, with the hook |hook| given
 * the one argument |arg| (or none). */
static void
hook_policy(struct tc_policy *p, const char *hook, const char *arg)
{
	struct tc_diag d;
	char **argv;

	tc_policy_init(p);
	must(tc_policy_add_root(p, at("r"), 0, &d), d.msg);
	if ((argv = calloc(3, sizeof(*argv))) == NULL ||
	    (argv[0] = strdup(hook)) == NULL ||
	    (arg != NULL && (argv[1] = strdup(arg)) == NULL))
		abort();
	p->consent_hook = argv;
	must(tc_policy_finish(p, &d), d.msg);
	reported[0] = '\0';
	nreported = 0;
}

/* Returns the kind of own file |path| is by identity (followed), or "". */
static const char *
kind_of(const struct tc_policy *p, const char *path)
{
	const struct tc_deny *r;
	struct stat st;

	if (stat(path, &st) != 0 || (r = tc_own_stat(p, &st)) == NULL)
		return "";
	return r->own;
}

/* What the hook's "#!" lines and arguments name, as the kernel, env(1)
 * and the hook, run from "/", would take them. */
static void
test_hook_lines(void)
{
	static const char *const path[] = { "/usr/local/bin/sh",
	    "/usr/bin/sh", "/bin/sh" };
	struct tc_policy p;
	char text[PATH_MAX + 64], want[4096];
	const char *sh = NULL;
	size_t i;

	/* The argument of a "#!" line is a file the interpreter reads. */
	put_file("r/hooks/body", "exit 0\n", 0644);
	snprintf(text, sizeof(text), "#!/bin/sh  %s \n", at("r/hooks/body"));
	put_file("r/hooks/sharg", text, 0755);
	hook_policy(&p, at("r/hooks/sharg"), NULL);
	is_int(tc_own_collect(&p, NULL, report, NULL), 0, "#! with an "
	    "argument: collected");
	is_str(kind_of(&p, at("r/hooks/body")), TC_OWN_HOOK_FILE, "the file "
	    "a \"#!\" line gives its interpreter is an own file");
	ok(tc_deny_match(&p, at("r/hooks/body"), "hooks/body",
	    TC_ACCESS_READ) != NULL, "and refused by name");
	tc_policy_release(&p);

	/* A relative argument of the hook names a file from "/". */
	hook_policy(&p, at("r/hooks/ask"), at("r/hooks/ask.conf") + 1);
	is_int(tc_own_collect(&p, NULL, report, NULL), 0, "a relative "
	    "argument: collected");
	is_str(kind_of(&p, at("r/hooks/ask.conf")), TC_OWN_HOOK_FILE,
	    "a relative argument of the hook, taken from /, is an own file");
	tc_policy_release(&p);

	/* env(1) runs what it finds through the hook's PATH. */
	for (i = 0; i < TC_NITEMS(path) && sh == NULL; i++)
		if (access(path[i], X_OK) == 0)
			sh = path[i];
	put_file("r/hooks/env", "#!/usr/bin/env sh\nexit 0\n", 0755);
	hook_policy(&p, at("r/hooks/env"), NULL);
	is_int(tc_own_collect(&p, NULL, report, NULL), 0, "#!/usr/bin/env "
	    "sh: collected");
	is_str(kind_of(&p, "/usr/bin/env"), TC_OWN_INTERPRETER, "env is an "
	    "interpreter");
	if (sh == NULL)
		skip("no sh in the hook's PATH");
	else
		is_str(kind_of(&p, sh), TC_OWN_INTERPRETER, "and so is the sh "
		    "it finds through the hook's PATH (%s)", sh);
	tc_policy_release(&p);

	/* Options to env: refused, not guessed. */
	put_file("r/hooks/envs", "#!/usr/bin/env -S sh -e\nexit 0\n", 0755);
	hook_policy(&p, at("r/hooks/envs"), NULL);
	is_int(tc_own_collect(&p, NULL, report, NULL), 1, "#!/usr/bin/env "
	    "-S ...: refused");
	snprintf(want, sizeof(want), "consent hook '%s': its \"#!\" line "
	    "runs env with '-S sh -e', which the server cannot follow to the "
	    "program it runs; name the interpreter by its absolute path\n",
	    at("r/hooks/envs"));
	is_str(reported, want, "saying why");
	tc_policy_release(&p);
}

/*
 * In a child: in a mount namespace of its own when it mounts anything,
 * binds |bind| (a path of T, or NULL) at T/bw and mounts a proc
 * filesystem at T/w/kp when |proc|; then serves |dir| (writable if
 * |writable|; calls as |run_uid| unless it is -1) and collects |policy|
 * (or none).  Returns the number of problems, with what was reported in
 * |msg|; -1 if the child could not set it up.
 */
static int
collect_in(const char *bind, int proc, const char *dir, int writable,
    long run_uid, const char *policy, char *msg, size_t size)
{
	struct tc_policy p;
	struct tc_diag d;
	ssize_t n;
	pid_t pid;
	int fds[2], status, got;

	if (pipe(fds) != 0)
		abort();
	if ((pid = fork()) < 0)
		abort();
	if (pid == 0) {
		close(fds[0]);
		if ((bind != NULL || proc) && (unshare(CLONE_NEWNS) != 0 ||
		    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    (bind != NULL && mount(at(bind), at("bw"), NULL, MS_BIND,
		    NULL) != 0) || (proc && mount("proc", at("w/kp"), "proc",
		    0, NULL) != 0))) {
			perror("mount");
			_exit(255);
		}
		tc_policy_init(&p);
		if (tc_policy_add_root(&p, dir, writable ? TC_ROOT_WRITE : 0,
		    &d) != 0 || tc_policy_finish(&p, &d) != 0)
			_exit(255);
		if (run_uid >= 0) {
			p.run_as = 1;
			p.run_uid = (uid_t)run_uid;
			p.run_gid = (gid_t)run_uid;
		}
		reported[0] = '\0';
		got = tc_own_collect(&p, policy, report, NULL);
		if (write(fds[1], reported, strlen(reported)) < 0)
			_exit(255);
		_exit(got);
	}
	close(fds[1]);
	n = read(fds[0], msg, size - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

/* Serves T/bw, a bind mount of T/|src| (writable if |writable|), and
 * collects the policy file T/r/conf/p.policy. */
static int
collect_bound(const char *src, int writable, char *msg, size_t size)
{
	return collect_in(src, 0, at("bw"), writable, -1,
	    at("r/conf/p.policy"), msg, size);
}

/* A writable root that is a bind mount of a directory above an own
 * file: the paths differ, the directories are one. */
static void
test_bind_mount(void)
{
	char msg[4096], want[4096];
	int i;

	if (geteuid() != 0) {
		for (i = 0; i < 4; i++)
			skip("bind mounts need root (a mount namespace)");
		return;
	}
	must(mkdir(at("bw"), 0755), "bw");
	is_int(collect_bound("r/conf", 1, msg, sizeof(msg)), 1, "a writable "
	    "root bound from the policy's directory: refused");
	snprintf(want, sizeof(want), "policy file '%s': the directory '%s' "
	    "on its way is, by identity (a bind mount), the writable "
	    "directory '%s' (command line): a call could change or replace "
	    "it", at("r/conf/p.policy"), at("r/conf"), at("bw"));
	like(msg, want, "the message names the directory and the root");
	is_int(collect_bound("r", 1, msg, sizeof(msg)), 1, "bound from a "
	    "directory further up: refused");
	is_int(collect_bound("r/conf", 0, msg, sizeof(msg)), 0, "the same, "
	    "read-only: served");
	must(rmdir(at("bw")), "rmdir bw");
}

/*
 * In a child, in a mount namespace of its own: T/ovm, an overlay of T/r
 * (lower) and a tmpfs (upper), layers on two filesystems without xino,
 * served read-only with its log in T/ovm/logs; lists T/ovm.  Returns the
 * OV_* bits seen, or -1 if it could not be set up.
 */
#define OV_DINO_DIFFERS	1	/* "logs": d_ino is not its st_ino */
#define OV_BY_DINO	2	/* tc_own_entry() with d_ino finds it */
#define OV_DECIDED	4	/* as the tools now call it, finds it */
#define OV_NOT_EXACT	8	/* tc_own_dir_exact() says no */
static int
overlay_listing(void)
{
	struct tc_policy p;
	struct tc_diag d;
	struct dirent *de;
	struct stat st;
	char opts[PATH_MAX * 3 + 64];
	pid_t pid;
	DIR *dir;
	int status, bits = 0, exact;

	if ((pid = fork()) < 0)
		abort();
	if (pid == 0) {
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,"
		    "workdir=%s,xino=off", at("r"), at("ovup/u"),
		    at("ovup/w"));
		if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", NULL,
		    MS_REC | MS_PRIVATE, NULL) != 0 || mount("none",
		    at("ovup"), "tmpfs", 0, NULL) != 0 ||
		    mkdir(at("ovup/u"), 0755) != 0 ||
		    mkdir(at("ovup/w"), 0755) != 0 || mount("overlay",
		    at("ovm"), "overlay", 0, opts) != 0)
			_exit(255);
		tc_policy_init(&p);
		if (tc_policy_add_root(&p, at("ovm"), 0, &d) != 0 ||
		    (p.audit_file = strdup(at("ovm/logs/fs.log"))) == NULL ||
		    tc_policy_finish(&p, &d) != 0 ||
		    tc_own_collect(&p, NULL, report, NULL) != 0 ||
		    (dir = opendir(at("ovm"))) == NULL)
			_exit(255);
		exact = tc_own_dir_exact(dirfd(dir));
		bits |= exact ? 0 : OV_NOT_EXACT;
		while ((de = readdir(dir)) != NULL) {
			if (strcmp(de->d_name, "logs") != 0)
				continue;
			if (fstatat(dirfd(dir), "logs", &st, 0) == 0 &&
			    st.st_ino != de->d_ino)
				bits |= OV_DINO_DIFFERS;
			if (tc_own_entry(&p, dirfd(dir), de->d_name,
			    de->d_ino) != NULL)
				bits |= OV_BY_DINO;
			if (tc_own_entry(&p, dirfd(dir), de->d_name,
			    exact ? de->d_ino : 0) != NULL)
				bits |= OV_DECIDED;
		}
		_exit(bits);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

/* Listings on filesystems whose d_ino is not st_ino. */
static void
test_dino(void)
{
	struct tc_policy p;
	int bits, i;

	ok(!tc_own_fstype_exact(0x794c7630), "overlayfs: d_ino not trusted");
	ok(!tc_own_fstype_exact(0x65735546), "FUSE: d_ino not trusted");
	ok(tc_own_fstype_exact(0xef53) && tc_own_fstype_exact(0x01021994) &&
	    tc_own_fstype_exact(0x58465342) && tc_own_fstype_exact(0x9123683e),
	    "ext4, tmpfs, xfs, btrfs: trusted");
	ok(!tc_own_dir_exact(-1), "a directory that cannot be told: not "
	    "trusted");

	/* Without d_ino, each entry is stat'ed. */
	policy(&p, 1, at("r/hooks/ask"));
	is_int(tc_own_collect(&p, NULL, report, NULL), 0, "collect");
	ok(tc_own_entry(&p, AT_FDCWD, at("w/hl"), 0) != NULL, "no d_ino: a "
	    "hard link to the key is found by stat");
	ok(tc_own_entry(&p, AT_FDCWD, at("w/link"), 0) == NULL, "an entry "
	    "that is none is not");
	ok(tc_own_entry(&p, AT_FDCWD, at("w/gone"), 0) == NULL, "one gone "
	    "is not");
	tc_policy_release(&p);

	if (geteuid() != 0) {
		for (i = 0; i < 3; i++)
			skip("overlayfs needs root (a mount namespace)");
		return;
	}
	must(mkdir(at("ovup"), 0755), "ovup");
	must(mkdir(at("ovm"), 0755), "ovm");
	bits = overlay_listing();
	if (bits < 0) {
		for (i = 0; i < 3; i++)
			skip("overlayfs could not be mounted here");
	} else {
		ok(bits & OV_NOT_EXACT, "an overlay: d_ino not trusted");
		if (bits & OV_DINO_DIFFERS)
			ok(!(bits & OV_BY_DINO), "the log's directory, by "
			    "d_ino: missed (what the listings did)");
		else
			skip("this kernel's overlay gave d_ino == st_ino");
		ok(bits & OV_DECIDED, "the log's directory, as the listings "
		    "now decide: found");
	}
	rmdir(at("ovup"));
	rmdir(at("ovm"));
}

/* Maps and opens |user| for |access|; -1 with the message in |d|. */
static int
open_it(const struct tc_policy *p, const char *user, int flags,
    unsigned access, struct tc_diag *d)
{
	struct tc_path tp;
	int fd, saved;

	memset(d, 0, sizeof(*d));
	if (tc_path_map(p, user, &tp, d) != 0)
		return -2;
	if ((fd = tc_path_open(p, &tp, flags, 0600, access)) < 0) {
		saved = errno;
		tc_path_open_error(d, &tp, user, saved);
		errno = saved;
	}
	tc_path_release(&tp);
	return fd;
}

static void
test_open(void)
{
	struct tc_policy p;
	struct tc_diag d;
	struct stat st;
	size_t i;
	int fd;

	policy(&p, 1, at("r/hooks/ask"));
	is_int(tc_own_collect(&p, NULL, report, NULL), 0, "collect");
	fd = open_it(&p, at("w/hl"), O_RDONLY, TC_ACCESS_READ, &d);
	ok(fd == -1 && errno == EACCES, "a hard link to the key: refused");
	like(d.msg, "': denied: it is the server's own audit key, which no "
	    "call may read, list or change", "the message says what it is");
	fd = open_it(&p, at("w/hl"), O_WRONLY | O_TRUNC, TC_ACCESS_WRITE, &d);
	ok(fd == -1 && errno == EACCES, "opened to be emptied: refused");
	ok(stat(at("r/keys/k"), &st) == 0 && st.st_size == 33, "and the key "
	    "was not emptied first");
	fd = open_it(&p, at("r/logs/fs.log.1"), O_RDONLY, TC_ACCESS_READ, &d);
	ok(fd == -1 && errno == EACCES, "a rotated log by name: refused");
	fd = open_it(&p, at("r/logs/other"), O_RDONLY, TC_ACCESS_READ, &d);
	ok(fd >= 0, "a file beside it: read");
	if (fd >= 0)
		close(fd);
	fd = open_it(&p, at("r/logs"), O_RDONLY | O_DIRECTORY,
	    TC_ACCESS_READ, &d);
	ok(fd == -1 && errno == EACCES, "the log's directory: refused");

	/* Without a single deny rule, identities are still checked. */
	for (i = 0; i < p.ndeny; i++)
		free(p.deny[i].pattern);
	free(p.deny);
	p.deny = NULL;
	p.ndeny = 0;
	ok(!tc_deny_any(&p, TC_ACCESS_READ), "no rule left");
	fd = open_it(&p, at("r/keys/k"), O_RDONLY, TC_ACCESS_READ, &d);
	ok(fd == -1 && errno == EACCES, "no rule: the key still refused");
	fd = open_it(&p, at("w/hl"), O_WRONLY | O_TRUNC, TC_ACCESS_WRITE, &d);
	ok(fd == -1 && errno == EACCES, "no rule: nor emptied by a link");
	ok(stat(at("r/keys/k"), &st) == 0 && st.st_size == 33, "the key "
	    "is whole");
	tc_policy_release(&p);
}

static void
test_entries(void)
{
	struct tc_policy p;
	struct dirent *de;
	struct stat st;
	int found = 0, others = 0, wrong = 0;
	DIR *d;

	policy(&p, 1, at("r/hooks/ask"));
	is_int(tc_own_collect(&p, NULL, report, NULL), 0, "collect");
	if ((d = opendir(at("w"))) == NULL)
		abort();
	while ((de = readdir(d)) != NULL) {
		const struct tc_deny *r = tc_own_entry(&p, dirfd(d),
		    de->d_name, de->d_ino);

		if (strcmp(de->d_name, "hl") == 0)
			found += r != NULL;
		else if (r != NULL)
			wrong++;
		else
			others++;
	}
	closedir(d);
	is_int(found, 1, "listing w: the hard link is an own file");
	is_int(wrong, 0, "and nothing else is");
	ok(others >= 4, "the others are not (%d)", others);
	if (lstat(at("r/keys/k"), &st) != 0)
		abort();
	ok(tc_own_entry(&p, AT_FDCWD, at("w/gone"), st.st_ino + 1000003) ==
	    NULL, "an inode no own file has: not own, not even stat'ed");
	ok(tc_own_entry(&p, AT_FDCWD, at("w/gone"), st.st_ino) != NULL,
	    "an own file's inode that cannot be stat'ed: left out");
	tc_policy_release(&p);
}

/* Serves |dir| (writable if |writable|; calls as |run_uid| unless -1)
 * after mounting a proc filesystem at T/w/kp when |mount_proc|, and
 * collects nothing but the checks every start makes. */
static int
collect_kernel(const char *dir, int writable, long run_uid, int mount_proc,
    char *msg, size_t size)
{
	return collect_in(NULL, mount_proc, dir, writable, run_uid, NULL, msg,
	    size);
}

/*
 * Calls of uid 0 write the kernel's settings and devices without any
 * capability: a writable root that is, or holds, one of the kernel's own
 * filesystems refuses the start when calls would run as uid 0, and only
 * then.
 */
static void
test_kernel_fs(void)
{
	char msg[4096], want[PATH_MAX + 128];
	int i;

	if (geteuid() != 0) {
		is_int(collect_kernel("/proc", 1, -1, 0, msg, sizeof(msg)), 0,
		    "not root: /proc writable is the files' modes' to hold");
		for (i = 0; i < 7; i++)
			skip("calls of uid 0 need a root server");
		return;
	}
	must(mkdir(at("w/kp"), 0755), "w/kp");
	is_int(collect_kernel("/proc", 1, -1, 0, msg, sizeof(msg)), 1,
	    "calls of uid 0: /proc writable refuses the start");
	like(msg, "the writable directory '/proc' (command line) lies in the "
	    "kernel's proc filesystem at '/proc'", "the message names it");
	like(msg, "give calls another user (run-as)", "and what to do");
	is_int(collect_kernel(at("w"), 1, -1, 1, msg, sizeof(msg)), 1,
	    "calls of uid 0: a writable root that holds a proc mount "
	    "refuses the start");
	snprintf(want, sizeof(want), "the writable directory '%s' (command "
	    "line) holds the kernel's proc filesystem at '%s'", at("w"),
	    at("w/kp"));
	like(msg, want, "the message names the root and the mount");
	is_int(collect_kernel(at("w"), 1, 65534, 1, msg, sizeof(msg)), 0,
	    "the same with calls run as another user: served");
	is_int(collect_kernel(at("w"), 0, -1, 1, msg, sizeof(msg)), 0,
	    "the same read-only: served");
	is_int(collect_kernel(at("w"), 1, -1, 0, msg, sizeof(msg)), 0,
	    "a writable root with no such mount: served");
	must(rmdir(at("w/kp")), "rmdir w/kp");
}

int
main(void)
{
	make_tree();
	test_read_only();
	test_writable();
	test_relative_policy();
	test_bind_mount();
	test_kernel_fs();
	test_hook_lines();
	test_dino();
	test_open();
	test_entries();
	tree_remove();
	return done_testing();
}
