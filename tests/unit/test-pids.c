/*
 * test-pids.c: finding the server's cgroup in a pids hierarchy from the
 * text of /proc/self/cgroup and /proc/self/mountinfo, and, where this
 * process may write one (root, or a delegated cgroup), a call's cgroup
 * made, entered, filled to the pids.max the server sets and removed as a
 * keeper does; the server's directory named so that servers of other PID
 * namespaces, or given a dead one's pid, neither share nor sweep it; the
 * cgroup of a keeper the server killed removed once it is reaped and the
 * call's last process is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/pids.h"
#include "tap.h"

#define V1_MOUNT	"30 25 0:27 / /sys/fs/cgroup/pids rw,nosuid shared:9 " \
			"- cgroup cgroup rw,pids\n"
#define CPU_MOUNT	"28 25 0:25 / /sys/fs/cgroup/cpu,cpuacct rw shared:7 " \
			"- cgroup cgroup rw,cpu,cpuacct\n"
#define V2_MOUNT	"35 25 0:30 / /sys/fs/cgroup/unified rw - cgroup2 " \
			"cgroup2 rw,nsdelegate\n"

/* tc_pids_find() of |cg| and |mi| for |kind|: the directory, or "-". */
static const char *
found(const char *cg, const char *mi, enum tc_pids_kind kind)
{
	static char out[PATH_MAX];

	if (!tc_pids_find(cg, mi, kind, out, sizeof(out)))
		return "-";
	return out;
}

static void
test_find(void)
{
	const char *mi = CPU_MOUNT V1_MOUNT V2_MOUNT;
	char small[8];

	is_str(found("8:pids:/\n0::/\n", mi, TC_PIDS_V1), "/sys/fs/cgroup/pids",
	    "v1: the root cgroup is the mount point");
	is_str(found("2:cpu,cpuacct:/a\n8:pids:/user.slice/s-1.scope\n0::/\n",
	    mi, TC_PIDS_V1), "/sys/fs/cgroup/pids/user.slice/s-1.scope",
	    "v1: the line with pids among its controllers");
	is_str(found("8:pids:/x\n0::/system.slice/a.service\n", mi,
	    TC_PIDS_V2), "/sys/fs/cgroup/unified/system.slice/a.service",
	    "v2: the 0:: line under the cgroup2 mount");
	is_str(found("0::/\n", mi, TC_PIDS_V2), "/sys/fs/cgroup/unified",
	    "v2: the root cgroup");
	is_str(found("0::/\n", mi, TC_PIDS_V1), "-",
	    "v1: no line with pids");
	is_str(found("9:name=pidsx:/\n", mi, TC_PIDS_V1), "-",
	    "v1: a name that only contains pids is not pids");
	is_str(found("8:pids:/\n", CPU_MOUNT V2_MOUNT, TC_PIDS_V1), "-",
	    "v1: no mount with the pids controller");
	is_str(found("0::/\n", CPU_MOUNT V1_MOUNT, TC_PIDS_V2), "-",
	    "v2: no cgroup2 mount");
	is_str(found("0::/docker/abc/sub\n", "40 1 0:30 /docker/abc /sys/fs/"
	    "cgroup rw - cgroup2 cgroup2 rw\n", TC_PIDS_V2),
	    "/sys/fs/cgroup/sub", "a mount of part of the hierarchy: the "
	    "path below its root");
	is_str(found("0::/docker/abc\n", "40 1 0:30 /docker/abc /sys/fs/"
	    "cgroup rw - cgroup2 cgroup2 rw\n", TC_PIDS_V2), "/sys/fs/cgroup",
	    "a mount of our own cgroup: its mount point");
	is_str(found("0::/docker/abcd\n", "40 1 0:30 /docker/abc /sys/fs/"
	    "cgroup rw - cgroup2 cgroup2 rw\n", TC_PIDS_V2), "-",
	    "a cgroup outside the mounted part (a prefix that is not a "
	    "parent) is not found");
	is_str(found("0::/\n", "40 1 0:30 / /sys/fs/cgroup\\040x rw - cgroup2 "
	    "cgroup2 rw\n", TC_PIDS_V2), "-",
	    "a mount point with an escape is not taken");
	is_str(found("0::/\n", "40 1 0:30 / /cg rw - cgroup2 none rw\n",
	    TC_PIDS_V2), "/cg", "a mount without optional fields");
	is_str(found("0::relative\n", V2_MOUNT, TC_PIDS_V2), "-",
	    "a path that does not start with / is not taken");
	ok(!tc_pids_find("0::/a/long/path\n", V2_MOUNT, TC_PIDS_V2, small,
	    sizeof(small)) && small[0] == '\0',
	    "a directory that does not fit: not found, and the output empty");
	is_str(found("0::/\n", V2_MOUNT, TC_PIDS_NONE), "-",
	    "no hierarchy asked for: none");
	is_str(found("0::/../other.scope\n", "40 1 0:30 / /sys/fs/cgroup rw "
	    "- cgroup2 cgroup2 rw,nsdelegate\n", TC_PIDS_V2), "-",
	    "a cgroup outside our cgroup namespace's root (\"/..\") is not "
	    "found");
	is_str(found("0::/a/../b\n", V2_MOUNT, TC_PIDS_V2), "-",
	    "nor one with \"..\" anywhere");
	is_str(found("0::/a/..b\n", V2_MOUNT, TC_PIDS_V2),
	    "/sys/fs/cgroup/unified/a/..b", "a name that only starts with "
	    "\"..\" is a name");
}

/* A fake server's own ids, for tc_pids_way(): a list ending in 0. */
static int
fake_ours(long id, void *ctx)
{
	const long *ids = ctx;

	for (; *ids != 0; ids++)
		if (*ids == id)
			return 1;
	return 0;
}

/*
 * The shapes of cgroup v2 directories as systemd machines and container
 * runtimes leave them, and the way each leads to.  The texts are the
 * files' whole contents (an empty cgroup.subtree_control reads "\n").
 */
static const struct way_case {
	const char	*what;
	const char	*name, *type, *controllers, *subtree, *procs;
	const char	*threads;
	int		 writable, subtree_writable, parent_writable, marked;
	long		 ours[4];
	const char	*controller;
	enum tc_pids_way want;
	const char	*why;	/* a part of why, for TC_PIDS_WAY_NONE */
} way_cases[] = {
	{ "a service with Delegate=yes, the server alone",
	    "toolcell.service", "domain\n", "cpuset cpu io memory pids\n",
	    "\n", "812\n", "812\n", 1, 1, 1, 1, { 812 }, "pids",
	    TC_PIDS_WAY_MOVE, NULL },
	{ "the same, with the server's child (the scratch sweeper) and "
	    "its threads", "toolcell.service", "domain\n",
	    "cpuset cpu io memory pids\n", "\n", "812\n815\n",
	    "812\n813\n815\n", 1, 1, 1, 1, { 812, 813, 815 }, "pids",
	    TC_PIDS_WAY_MOVE, NULL },
	{ "the same, a wrapper shell in it too", "toolcell.service",
	    "domain\n", "cpuset cpu io memory pids\n", "\n", "790\n812\n",
	    "790\n812\n", 1, 1, 1, 1, { 812 }, "pids", TC_PIDS_WAY_NONE,
	    "other processes (pid 790)" },
	{ "the same, a process of another PID namespace in it (shown as 0)",
	    "toolcell.service", "domain\n", "pids\n", "\n", "0\n812\n",
	    "812\n", 1, 1, 1, 1, { 812 }, "pids", TC_PIDS_WAY_NONE,
	    "of another PID namespace" },
	{ "the same, a thread that is not the server's",
	    "toolcell.service", "domain\n", "pids\n", "\n", "812\n",
	    "812\n901\n", 1, 1, 1, 1, { 812 }, "pids", TC_PIDS_WAY_NONE,
	    "other threads (tid 901)" },
	{ "the same, its processes unread (a list too long)",
	    "toolcell.service", "domain\n", "pids\n", "\n", NULL, "812\n",
	    1, 1, 1, 1, { 812 }, "pids", TC_PIDS_WAY_NONE,
	    "could not be read in full" },
	{ "a service without Delegate=yes, the server alone, as root "
	    "(everything writable)", "toolcell.service", "domain\n",
	    "cpuset cpu io memory pids\n", "\n", "812\n", "812\n", 1, 1, 1,
	    0, { 812 }, "pids", TC_PIDS_WAY_NONE, "no Delegate=yes" },
	{ "a user's login scope, as that user: not delegated, shared",
	    "session-3.scope", "domain\n", "cpu memory pids\n", "\n",
	    "1402\n1530\n2001\n", "1402\n1530\n2001\n", 0, 0, 0, 0,
	    { 2001 }, "pids", TC_PIDS_WAY_NONE, "no Delegate=yes" },
	{ "the same scope, as root", "session-3.scope", "domain\n",
	    "cpu memory pids\n", "\n", "1402\n1530\n2001\n",
	    "1402\n1530\n2001\n", 1, 1, 1, 0, { 2001 }, "pids",
	    TC_PIDS_WAY_NONE, "no Delegate=yes" },
	{ "a scope with Delegate=yes under the user's manager "
	    "(systemd-run --user --scope -p Delegate=yes)", "run-r3b2.scope",
	    "domain\n", "cpu memory pids\n", "\n", "2250\n", "2250\n", 1,
	    1, 1, 1, { 2250 }, "pids", TC_PIDS_WAY_MOVE, NULL },
	{ "the same, marked but its cgroup.subtree_control not handed "
	    "over", "run-r3b2.scope", "domain\n", "cpu memory pids\n",
	    "\n", "2250\n", "2250\n", 1, 0, 1, 1, { 2250 }, "pids",
	    TC_PIDS_WAY_NONE, "not delegated to this server" },
	{ "delegated without pids (Delegate=cpu memory)", "run-r3b2.scope",
	    "domain\n", "cpu memory\n", "\n", "2250\n", "2250\n", 1, 1, 1,
	    1, { 2250 }, "pids", TC_PIDS_WAY_NONE,
	    "pids is not among its controllers" },
	{ "a container's own cgroup namespace (nsdelegate), the server its "
	    "pid 1", "cgroup", "domain\n",
	    "cpuset cpu io memory hugetlb pids rdma misc\n", "\n", "1\n",
	    "1\n", 1, 1, 1, 0, { 1 }, "pids", TC_PIDS_WAY_MOVE, NULL },
	{ "the same container, a shell in it too", "cgroup", "domain\n",
	    "cpuset cpu io memory hugetlb pids rdma misc\n", "\n",
	    "1\n37\n", "1\n37\n", 1, 1, 1, 0, { 1 }, "pids",
	    TC_PIDS_WAY_NONE, "other processes (pid 37)" },
	{ "a container whose cgroup file system is read-only",
	    "cgroup", "domain\n", "cpu memory pids\n", "\n", "1\n", "1\n",
	    0, 0, 0, 0, { 1 }, "pids", TC_PIDS_WAY_NONE,
	    "not delegated to this server" },
	{ "a cgroup made and shared by hand, as root", "ci-job",
	    "domain\n", "pids\n", "\n", "1402\n2001\n", "1402\n2001\n",
	    1, 1, 1, 0, { 2001 }, "pids", TC_PIDS_WAY_NONE,
	    "other processes (pid 1402)" },
	{ "the root cgroup with pids enabled below it", "unified", NULL,
	    "cpuset cpu io memory pids\n", "cpu io memory pids\n", NULL, NULL,
	    1, 1, 0, 0, { 1 }, "pids", TC_PIDS_WAY_HERE, NULL },
	{ "the same, not writable (a normal user)", "unified", NULL,
	    "cpuset cpu io memory pids\n", "cpu io memory pids\n", NULL, NULL,
	    0, 0, 0, 0, { 1 }, "pids", TC_PIDS_WAY_NONE,
	    "may not make cgroups in it" },
	{ "the root cgroup offering pids, not enabling it", "unified", NULL,
	    "cpu io memory pids\n", "\n", NULL, NULL, 1, 1, 0, 0, { 1 },
	    "pids", TC_PIDS_WAY_NONE, "the root cgroup" },
	{ "a threaded cgroup", "toolcell.service", "threaded\n",
	    "pids\n", "\n", "812\n", "812\n", 1, 1, 1, 1, { 812 }, "pids",
	    TC_PIDS_WAY_NONE, "type 'threaded'" },
	{ "the root of threaded cgroups", "toolcell.service",
	    "domain threaded\n", "pids\n", "\n", "812\n", "812\n", 1, 1, 1,
	    1, { 812 }, "pids", TC_PIDS_WAY_NONE, "type 'domain threaded'" },
	{ "an invalid domain", "toolcell.service", "domain invalid\n",
	    "pids\n", "\n", "812\n", "812\n", 1, 1, 1, 1, { 812 }, "pids",
	    TC_PIDS_WAY_NONE, "type 'domain invalid'" },
	{ "a second server in a server's leaf, its parent writable",
	    TC_PIDS_LEAF, "domain\n", "cpu memory pids\n", "\n",
	    "812\n900\n", "812\n900\n", 1, 1, 1, 0, { 900 }, "pids",
	    TC_PIDS_WAY_BESIDE, NULL },
	{ "the same, its parent not writable", TC_PIDS_LEAF, "domain\n",
	    "cpu memory pids\n", "\n", "812\n900\n", "812\n900\n", 1, 1,
	    0, 0, { 900 }, "pids", TC_PIDS_WAY_NONE, "beside its leaf" },
	{ "another controller asked for (hugetlb, as the live tests do): a "
	    "cgroup offering it", "ci-job", "domain\n", "hugetlb\n", "\n",
	    "2001\n", "2001\n", 1, 1, 1, 0, { 2001 }, "hugetlb",
	    TC_PIDS_WAY_MOVE, NULL },
	{ "the same cgroup, pids asked for", "ci-job", "domain\n",
	    "hugetlb\n", "\n", "2001\n", "2001\n", 1, 1, 1, 0, { 2001 },
	    "pids", TC_PIDS_WAY_NONE, "pids is not among its controllers" },
};

static void
test_way(void)
{
	const struct way_case *c;
	struct tc_cgroup_view v;
	enum tc_pids_way way;
	long ours[4];
	char why[256];
	size_t i;

	for (i = 0; i < TC_NITEMS(way_cases); i++) {
		c = &way_cases[i];
		memcpy(ours, c->ours, sizeof(ours));
		memset(&v, 0, sizeof(v));
		v.name = c->name;
		v.type = c->type;
		v.controllers = c->controllers;
		v.subtree = c->subtree;
		v.procs = c->procs;
		v.threads = c->threads;
		v.writable = c->writable;
		v.subtree_writable = c->subtree_writable;
		v.parent_writable = c->parent_writable;
		v.marked = c->marked;
		way = tc_pids_way(&v, c->controller, fake_ours, ours, why,
		    sizeof(why));
		is_int((int)way, (int)c->want, "%s: way %d", c->what,
		    (int)c->want);
		if (c->want == TC_PIDS_WAY_NONE)
			like(why, c->why, "  and why: %s", why);
		else
			is_str(why, "", "  and no why");
	}
}

/* In a forked process standing for a keeper: enters |p|'s cgroup, says
 * where it is on |cgfd|, waits for a byte on |go| (the server has set
 * pids.max by then), forks sleepers until a fork fails, kills them,
 * leaves; exits with how many forks worked (or 200 + a step that
 * failed). */
static void __attribute__((__noreturn__))
keeper(const struct tc_pids *p, int cgfd, int go)
{
	pid_t kids[64];
	int n = 0, i;
	char line[PATH_MAX], c;
	ssize_t r;

	FILE *f;

	if (tc_pids_enter(p) != 0)
		_exit(201);
	/* Where the kernel says we are now, for the parent to compare. */
	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		_exit(202);
	r = (ssize_t)fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	if (r <= 0 || write(cgfd, line, (size_t)r) != r)
		_exit(203);
	close(cgfd);
	if (read(go, &c, 1) != 1)
		_exit(205);
	close(go);
	for (n = 0; n < 64; n++) {
		if ((kids[n] = fork()) == 0) {
			pause();
			_exit(0);
		}
		if (kids[n] < 0)
			break;
	}
	if (n < 64 && errno != EAGAIN)
		_exit(204);
	for (i = 0; i < n; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	tc_pids_leave(p);
	_exit(n);
}

/*
 * Runs a keeper of |p| for a call whose tool's limit is |nproc|, the
 * server setting it before the keeper enters (|first|) or after, as a
 * server handing a call to a ready child does.  Returns how many forks
 * worked (-1: the run failed); the keeper's cgroup line goes to |cg|.
 */
static int
one_call(const struct tc_pids *p, unsigned long nproc, int first, char *cg,
    size_t len, pid_t *kpid)
{
	int where[2], go[2], status = 0, rc;
	ssize_t r;
	pid_t pid;

	if (pipe(where) != 0 || pipe(go) != 0)
		return -1;
	if ((pid = fork()) == 0) {
		close(where[0]);
		close(go[1]);
		if (first) {
			/* Wait for the server's word before entering. */
			char c;

			if (read(go[0], &c, 1) != 1)
				_exit(206);
		}
		keeper(p, where[1], go[0]);
	}
	*kpid = pid;
	close(where[1]);
	close(go[0]);
	rc = 0;
	if (first) {
		rc = tc_pids_limit(p, pid, nproc);
		(void)!write(go[1], "g", 1);
	}
	r = read(where[0], cg, len - 1);
	cg[r > 0 ? r : 0] = '\0';
	if (!first)
		rc = tc_pids_limit(p, pid, nproc);
	(void)!write(go[1], "g", 1);
	close(where[0]);
	close(go[1]);
	waitpid(pid, &status, 0);
	if (rc != 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* This process's PID namespace (the inode of /proc/self/ns/pid). */
static unsigned long long
pid_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ?
	    (unsigned long long)st.st_ino : 0;
}

static void
test_live(void)
{
	struct tc_diag d = { "", 0 };
	char buf[PATH_MAX + 64], call[PATH_MAX + 128], cg[PATH_MAX];
	char dir[PATH_MAX + 64], other[PATH_MAX + 64], reused[PATH_MAX + 64];
	struct tc_pids p, copy;
	struct stat st;
	int n;
	pid_t pid;

	if (!tc_pids_probe(&p)) {
		skip("no pids cgroup this process may write here (not root, "
		    "and none delegated)");
		return;
	}
	like(tc_pids_str(&p, buf, sizeof(buf)), "pids cgroup v",
	    "what the probe found is said: %s", buf);
	ok(tc_pids_current() == NULL, "nothing is in force before open");
	/* What a server killed by SIGKILL leaves: its directory, named for
	 * a pid no process has now (a child reaped), with a call's in it. */
	if ((pid = fork()) == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(dir, sizeof(dir), "%s/toolcell-%llu-%ld-1", p.home,
	    pid_ns(), (long)pid);
	snprintf(call, sizeof(call), "%s/77", dir);
	ok(mkdir(dir, 0755) == 0 && mkdir(call, 0755) == 0, "a dead "
	    "server's directory, %s, with a call's in it", dir);
	/* One of another PID namespace, whose pids mean nothing here. */
	snprintf(other, sizeof(other), "%s/toolcell-%llu-%ld-1", p.home,
	    pid_ns() + 1, (long)pid);
	ok(mkdir(other, 0755) == 0, "another namespace's, %s", other);
	/* One of this namespace for a live pid (ours) started at another
	 * time: a dead server whose pid was given again. */
	snprintf(reused, sizeof(reused), "%s/toolcell-%llu-%ld-1", p.home,
	    pid_ns(), (long)getppid());
	ok(mkdir(reused, 0755) == 0, "a reused pid's, %s", reused);
	if (!is_int(tc_pids_open(&p, 4, &d), 0, "the server's directory is "
	    "made: %s", d.msg))
		return;
	ok(stat(p.dir, &st) == 0 && S_ISDIR(st.st_mode), "%s exists", p.dir);
	snprintf(buf, sizeof(buf), "/toolcell-%llu-%ld-", pid_ns(),
	    (long)getpid());
	like(p.dir, buf, "named for the PID namespace, the pid and the start");
	ok(stat(dir, &st) != 0 && errno == ENOENT, "the dead server's "
	    "directory is swept away at open");
	ok(stat(other, &st) == 0, "another namespace's is left alone");
	ok(stat(reused, &st) != 0 && errno == ENOENT, "the reused pid's is "
	    "swept away");
	(void)rmdir(other);
	ok(tc_pids_current() == &p, "it is in force");
	is_int((int)p.max, 5, "pids.max at the server's limit: the limit "
	    "and the keeper");

	/* The server sets a call's pids.max as it hands the call over:
	 * the keeper may have entered already, or not yet. */
	n = one_call(&p, 4, 0, cg, sizeof(cg), &pid);
	snprintf(call, sizeof(call), "/toolcell-%llu-%ld-", pid_ns(),
	    (long)getpid());
	like(cg, call, "the keeper was in the server's directory");
	snprintf(call, sizeof(call), "/%ld\n", (long)pid);
	like(cg, call, "in the call's cgroup, named by its pid");
	is_int(n, 4, "limit 4 set after the keeper entered: 4 forks worked "
	    "beside the keeper, the 5th failed with EAGAIN");
	snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)pid);
	ok(stat(call, &st) != 0 && errno == ENOENT, "the call's cgroup is "
	    "gone once the keeper left");
	n = one_call(&p, 2, 1, cg, sizeof(cg), &pid);
	is_int(n, 2, "limit 2 set before the keeper entered (the server "
	    "made the cgroup): 2 forks worked");
	n = one_call(&p, 9, 0, cg, sizeof(cg), &pid);
	is_int(n, 9, "a tool's limit above the server's (9): 9 forks");
	/* The server's directory removed from under it (by hand, or by
	 * another program's clean-up): its calls go on with their limit. */
	ok(rmdir(p.dir) == 0, "the server's directory removed from under it");
	n = one_call(&p, 3, 0, cg, sizeof(cg), &pid);
	is_int(n, 3, "made again by the next call's keeper: limit 3 holds");
	ok(rmdir(p.dir) == 0, "removed again");
	n = one_call(&p, 2, 1, cg, sizeof(cg), &pid);
	is_int(n, 2, "made again by the server setting the limit: 2 forks");
	copy = p;
	copy.dir[0] = '\0';
	is_int(tc_pids_limit(&copy, getpid(), 3), 0, "no directory: "
	    "nothing to set");
	if (snprintf(copy.dir, sizeof(copy.dir) - 16, "%s", p.dir) > 0)
		strcat(copy.dir, "/no-such/dir");
	ok(tc_pids_limit(&copy, getpid(), 3) != 0, "a cgroup that cannot be "
	    "made: the server is told (and sends no call)");

	/* A process forked from the server that releases its copy leaves
	 * the server's directory alone. */
	copy = p;
	if ((pid = fork()) == 0) {
		tc_pids_close(&copy);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	ok(stat(p.dir, &st) == 0, "a forked process's close removes nothing");

	/* A directory of the server's own name is no one's now: opened
	 * again, the server starts from a fresh one. */
	snprintf(dir, sizeof(dir), "%s", p.dir);
	snprintf(call, sizeof(call), "%s/78", p.dir);
	ok(mkdir(call, 0755) == 0, "a call's cgroup left in it");
	copy = p;
	is_int(tc_pids_open(&copy, 4, &d), 0, "opened again: %s", d.msg);
	ok(stat(copy.dir, &st) == 0 && stat(call, &st) != 0 &&
	    errno == ENOENT, "the same name, emptied: nothing of the old "
	    "one is used");

	tc_pids_close(&copy);
	tc_pids_close(&p);
	ok(stat(dir, &st) != 0 && errno == ENOENT, "closed: the server's directory is gone");
	ok(tc_pids_current() == NULL && p.dir[0] == '\0', "nothing in force");
	tc_pids_close(&p);
	ok(1, "closing again is harmless");
}

/*
 * A keeper of |p| stuck before it could leave: a forked process that
 * enters its cgroup, with |busy| forks a process of the call that stays
 * in it (and outlives the keeper: no parent-death signal), says so, and
 * waits to be killed.  Returns the keeper's pid (-1 on failure), with
 * that process's in *|gpid| (0 if none).
 */
static pid_t
stuck_keeper(const struct tc_pids *p, int busy, pid_t *gpid)
{
	pid_t pid, g = 0;
	int fds[2];

	*gpid = 0;
	if (pipe(fds) != 0)
		return -1;
	if ((pid = fork()) == 0) {
		close(fds[0]);
		if (tc_pids_enter(p) != 0)
			_exit(1);
		if (busy && (g = fork()) == 0) {
			pause();
			_exit(0);
		}
		if (g < 0 || write(fds[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &g, sizeof(g)) != sizeof(g)) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	*gpid = g;
	return pid;
}

/* Kills |pid|, a child of ours, and reaps it. */
static void
kill_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Returns 1 if directory |dir| exists. */
static int
exists(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0;
}

static void
test_reaped(void)
{
	struct tc_diag d = { "", 0 };
	char call[PATH_MAX + 32], dir[PATH_MAX];
	struct tc_pids p;
	pid_t kpid, gpid;

	if (!tc_pids_probe(&p)) {
		skip("no pids cgroup this process may write here (not root, "
		    "and none delegated)");
		return;
	}
	if (!is_int(tc_pids_open(&p, 8, &d), 0, "opened: %s", d.msg))
		return;
	snprintf(dir, sizeof(dir), "%s", p.dir);
	/* The processes of a call outlive its keeper here: they come back
	 * to us, to be reaped. */
	ok(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0, "a subreaper");

	/* Killed with nothing else of its call left: removed when reaped. */
	if ((kpid = stuck_keeper(&p, 0, &gpid)) < 0) {
		ok(0, "a stuck keeper");
		goto out;
	}
	snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)kpid);
	ok(exists(call), "a stuck keeper in its call's cgroup");
	kill_reap(kpid);
	ok(exists(call), "killed and reaped, it did not remove it");
	tc_pids_reaped(&p, kpid);
	ok(!exists(call), "the server removes it as it reaps the keeper");
	is_int((int)p.nleft, 0, "nothing kept for later");

	/* A process of the call still in it: removed on a later retry once
	 * that one is gone. */
	if ((kpid = stuck_keeper(&p, 1, &gpid)) < 0 || gpid <= 0) {
		ok(0, "a stuck keeper with a process of its call");
		goto out;
	}
	snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)kpid);
	kill_reap(kpid);
	tc_pids_reaped(&p, kpid);
	ok(exists(call), "busy when the keeper is reaped: it stays");
	is_int((int)p.nleft, 1, "its keeper's pid kept for a retry");
	tc_pids_retry(&p, 0);
	ok(exists(call), "still busy: it stays");
	kill_reap(gpid);
	tc_pids_retry(&p, 0);
	ok(!exists(call), "the call's last process gone: removed on the "
	    "next retry, not at the server's end");
	is_int((int)p.nleft, 0, "and forgotten");

	/* A kept pid that a new keeper has now is forgotten, its cgroup
	 * left alone: the server may have set its limit before it
	 * entered. */
	if ((kpid = stuck_keeper(&p, 1, &gpid)) < 0 || gpid <= 0) {
		ok(0, "a third stuck keeper");
		goto out;
	}
	snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)kpid);
	kill_reap(kpid);
	tc_pids_reaped(&p, kpid);
	kill_reap(gpid);
	tc_pids_retry(&p, kpid);
	ok(exists(call), "a retry for a call to keeper %ld leaves its cgroup "
	    "alone", (long)kpid);
	is_int((int)p.nleft, 0, "and forgets the pid");
	tc_pids_retry(&p, 0);
	ok(exists(call), "for good");
out:
	(void)prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	tc_pids_close(&p);
	ok(!exists(dir), "closed: the server's directory is gone");
}

/*
 * A server in a PID namespace of its own, with pid |want| there: in a
 * process forked here, a new PID namespace whose first process asks for
 * |want| (ns_last_pid) and forks the server, which opens its directory,
 * writes it to |out|, waits for a byte on |in|, closes, and exits.
 * Returns the forked process, or -1.
 */
static pid_t
inner_server(pid_t want, int out, int in)
{
	char last[32];
	pid_t pid, srv;
	int fd, status;

	if ((pid = fork()) != 0)
		return pid;
	if (unshare(CLONE_NEWPID) != 0)
		_exit(210);
	if ((pid = fork()) < 0)
		_exit(211);
	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 212);
	}
	/* Pid 1 of the new namespace: the next pid there is |want|. */
	snprintf(last, sizeof(last), "%ld", (long)want - 1);
	if ((fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)) < 0 ||
	    write(fd, last, strlen(last)) != (ssize_t)strlen(last))
		_exit(213);
	close(fd);
	if ((srv = fork()) < 0)
		_exit(214);
	if (srv == 0) {
		struct tc_diag d = { "", 0 };
		struct tc_pids p;
		char c;

		if (getpid() != want)
			_exit(215);
		if (!tc_pids_probe(&p) || tc_pids_open(&p, 4, &d) != 0)
			_exit(216);
		if (write(out, p.dir, strlen(p.dir) + 1) < 0 ||
		    read(in, &c, 1) != 1)
			_exit(217);
		tc_pids_close(&p);
		_exit(0);
	}
	while (waitpid(srv, &status, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 218);
}

/* A pid below |max| that no process of this namespace has now, or -1. */
static pid_t
unused_pid(int max)
{
	pid_t pid;

	for (pid = (pid_t)max - 2; pid > 1000; pid -= 97)
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return pid;
	return -1;
}

/*
 * Servers in other PID namespaces: one whose pid there no process has
 * here keeps its live directory when a server here opens (and sweeps);
 * one with our own pid there has a directory of its own, which its close
 * removes, leaving ours.
 */
static void
test_namespaces(void)
{
	struct tc_diag d = { "", 0 };
	char inner[PATH_MAX + 64];
	struct tc_pids p;
	struct stat st;
	int out[2], in[2], status = 0, i, max = 32768;
	pid_t pid, want;
	ssize_t r;
	FILE *f;

	if (geteuid() != 0 || !tc_pids_probe(&p)) {
		skip("servers in PID namespaces of their own: needs root "
		    "(a new PID namespace, ns_last_pid) and a pids cgroup");
		return;
	}
	if ((f = fopen("/proc/sys/kernel/pid_max", "re")) != NULL) {
		if (fscanf(f, "%d", &max) != 1)
			max = 32768;
		fclose(f);
	}
	for (i = 0; i < 2; i++) {
		/* First a pid unused here (in range for the namespace),
		 * then our own. */
		want = i == 0 ? unused_pid(max) : getpid();
		if (want < 0 || want >= max) {
			skip("no unused pid below pid_max to give the inner "
			    "server");
			continue;
		}
		if (pipe(out) != 0 || pipe(in) != 0)
			return;
		pid = inner_server(want, out[1], in[0]);
		close(out[1]);
		close(in[0]);
		r = read(out[0], inner, sizeof(inner) - 1);
		inner[r > 0 ? r : 0] = '\0';
		if (r <= 0) {
			waitpid(pid, &status, 0);
			if (WIFEXITED(status) && WEXITSTATUS(status) == 210) {
				skip("unshare(CLONE_NEWPID) is refused here");
				close(out[0]);
				close(in[1]);
				return;
			}
			ok(0, "the inner server opened its directory (status "
			    "%d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			close(out[0]);
			close(in[1]);
			continue;
		}
		ok(stat(inner, &st) == 0, "a server with pid %ld in another "
		    "PID namespace: %s", (long)want, inner);
		if (!is_int(tc_pids_open(&p, 4, &d), 0, "ours opens: %s",
		    d.msg))
			return;
		ok(strcmp(p.dir, inner) != 0, "ours, %s, is not the inner's",
		    p.dir);
		ok(stat(inner, &st) == 0, "the inner server's live directory "
		    "is not swept by ours");
		(void)!write(in[1], "x", 1);
		close(in[1]);
		close(out[0]);
		waitpid(pid, &status, 0);
		is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
		    "the inner server closed and exited");
		ok(stat(p.dir, &st) == 0, "its close left ours in place");
		ok(stat(inner, &st) != 0 && errno == ENOENT, "and removed "
		    "its own");
		tc_pids_close(&p);
	}
}

int
main(void)
{
	test_find();
	test_way();
	test_live();
	test_reaped();
	test_namespaces();
	return done_testing();
}
