/*
 * test-pids.c: finding the server's cgroup in a pids hierarchy from the
 * text of /proc/self/cgroup and /proc/self/mountinfo, and, where this
 * process may write one (root, or a delegated cgroup), a call's cgroup
 * made, entered, filled to the pids.max the server sets and removed as a
 * keeper does; the server's directory named so that servers of other PID
 * namespaces, or given a dead one's pid, neither share nor sweep it; the
 * cgroup of a keeper the server killed removed once it is reaped and the
 * call's last process is gone; a cgroup.procs longer than the room the
 * server reads it into (TC_PIDS_LIST_MAX) refused, not taken as whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/pids.h"
#include "sandbox/sandbox-int.h"
#include "procstat.h"
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
	{ "a scope with Delegate=yes of the system manager (systemd-run "
	    "--scope -p Delegate=yes), marked", "run-r3b2.scope",
	    "domain\n", "cpu memory pids\n", "\n", "2250\n", "2250\n", 1,
	    1, 1, 1, { 2250 }, "pids", TC_PIDS_WAY_MOVE, NULL },
	{ "a scope with Delegate=yes under a user's manager (systemd-run "
	    "--user --scope -p Delegate=yes), which marks none: its user may "
	    "write it as every unit of its manager", "run-r3b2.scope",
	    "domain\n", "cpu memory pids\n", "\n", "2250\n", "2250\n", 1,
	    1, 1, 0, { 2250 }, "pids", TC_PIDS_WAY_NONE,
	    "a user manager's unit" },
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

/*
 * A leaf of the server's name is taken for another server's only where
 * its parent could have been delegated: not in a systemd unit's cgroup
 * left unmarked (a leaf of that name made by hand there).
 */
static void
test_way_parent(void)
{
	static const struct {
		const char	*parent;
		int		 marked;
		enum tc_pids_way want;
	} cases[] = {
		{ "session-3.scope", 0, TC_PIDS_WAY_NONE },
		{ "toolcell.service", 0, TC_PIDS_WAY_NONE },
		{ "toolcell.service", 1, TC_PIDS_WAY_BESIDE },
		{ "ci-job", 0, TC_PIDS_WAY_BESIDE },
		{ NULL, 0, TC_PIDS_WAY_BESIDE },
	};
	struct tc_cgroup_view v;
	long ours[4] = { 900 };
	char why[256];
	size_t i;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		memset(&v, 0, sizeof(v));
		v.name = TC_PIDS_LEAF;
		v.type = "domain\n";
		v.controllers = "cpu memory pids\n";
		v.subtree = "\n";
		v.procs = v.threads = "812\n900\n";
		v.writable = v.subtree_writable = v.parent_writable = 1;
		v.parent_name = cases[i].parent;
		v.parent_marked = cases[i].marked;
		is_int((int)tc_pids_way(&v, "pids", fake_ours, ours, why,
		    sizeof(why)), (int)cases[i].want, "a leaf in '%s'%s: way "
		    "%d", cases[i].parent != NULL ? cases[i].parent : "?",
		    cases[i].marked ? ", marked" : "", (int)cases[i].want);
		if (cases[i].want == TC_PIDS_WAY_NONE)
			like(why, "not marked delegated", "  and why: %s", why);
	}
}

/*
 * Forks sleepers until a fork fails, then kills and reaps them.  Returns
 * how many forks worked, or -1 if one failed otherwise than EAGAIN (the
 * limit).
 */
static int
fork_until_full(void)
{
	pid_t kids[64];
	int n, i, full;

	for (n = 0; n < 64; n++) {
		if ((kids[n] = fork()) == 0) {
			pause();
			_exit(0);
		}
		if (kids[n] < 0)
			break;
	}
	full = n == 64 || errno == EAGAIN;
	for (i = 0; i < n; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	return full ? n : -1;
}

/* In a forked process standing for a keeper: enters |p|'s cgroup, says
 * where it is on |cgfd|, waits for a byte on |go| (the server has set
 * pids.max by then), forks sleepers until a fork fails, kills them,
 * leaves; exits with how many forks worked (or 200 + a step that
 * failed). */
static void __attribute__((__noreturn__))
keeper(const struct tc_pids *p, int cgfd, int go)
{
	char line[PATH_MAX], c;
	int n;
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
	if ((n = fork_until_full()) < 0)
		_exit(204);
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
		rc = tc_pids_limit(p, pid, nproc, 1);
		(void)!write(go[1], "g", 1);
	}
	r = read(where[0], cg, len - 1);
	cg[r > 0 ? r : 0] = '\0';
	if (!first)
		rc = tc_pids_limit(p, pid, nproc, 1);
	(void)!write(go[1], "g", 1);
	close(where[0]);
	close(go[1]);
	waitpid(pid, &status, 0);
	if (rc != 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Removes the spare cgroups in |p|'s directory (cgroup v1: "0-N"), as
 * one removing it by hand must first.  Returns 0, or -1 if one stays. */
static int
rm_spares(const struct tc_pids *p)
{
	char spare[PATH_MAX + 32];
	int i, rc = 0;

	for (i = 0; i < 8; i++) {
		snprintf(spare, sizeof(spare), "%s/0-%d", p->dir, i);
		if (rmdir(spare) != 0 && errno != ENOENT)
			rc = -1;
	}
	return rc;
}

static void
test_live(void)
{
	struct tc_diag d = { "", 0 };
	char buf[PATH_MAX + 64], call[PATH_MAX + 128], cg[PATH_MAX];
	char dir[PATH_MAX + 64], other[PATH_MAX + 64], reused[PATH_MAX + 64];
	char live[PATH_MAX + 64];
	struct tc_pids p, copy;
	struct stat st;
	int n;
	pid_t pid, alive;

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
	/* One of a live server: a child of ours, named with its start
	 * time as /proc/PID/stat's field 22 says, read here by hand. */
	if ((alive = fork()) == 0) {
		pause();
		_exit(0);
	}
	snprintf(live, sizeof(live), "%s/toolcell-%llu-%ld-%llu", p.home,
	    pid_ns(), (long)alive, stat_field(alive, 22));
	ok(alive > 0 && mkdir(live, 0755) == 0, "a live server's, %s", live);
	p.kept = 1;		/* calls with keepers: pids.max counts them */
	if (!is_int(tc_pids_open(&p, 4, &d), 0, "the server's directory is "
	    "made: %s", d.msg))
		return;
	ok(stat(live, &st) == 0, "the live server's is left alone");
	(void)rmdir(live);
	if (alive > 0) {
		kill(alive, SIGKILL);
		waitpid(alive, NULL, 0);
	}
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
	ok(rm_spares(&p) == 0 && rmdir(p.dir) == 0, "the server's directory "
	    "removed from under it");
	n = one_call(&p, 3, 0, cg, sizeof(cg), &pid);
	is_int(n, 3, "made again by the next call's keeper: limit 3 holds");
	ok(rm_spares(&p) == 0 && rmdir(p.dir) == 0, "removed again");
	n = one_call(&p, 2, 1, cg, sizeof(cg), &pid);
	is_int(n, 2, "made again by the server setting the limit: 2 forks");
	copy = p;
	copy.dir[0] = '\0';
	is_int(tc_pids_limit(&copy, getpid(), 3, 1), 0, "no directory: "
	    "nothing to set");
	if (snprintf(copy.dir, sizeof(copy.dir) - 16, "%s", p.dir) > 0)
		strcat(copy.dir, "/no-such/dir");
	ok(tc_pids_limit(&copy, getpid(), 3, 1) != 0, "a cgroup that cannot be "
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

/* Writes |text| to |dir|/|name|.  Returns 0 or -1. */
static int
write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The text of |dir|/|name| (static; "?" if unreadable). */
static const char *
read_text(const char *dir, const char *name)
{
	static char text[4096];
	char path[PATH_MAX + 64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return "?";
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

/* Returns 1 if the first line of |text| lists |word|. */
static int
lists(const char *text, const char *word)
{
	size_t w = strlen(word);
	const char *c = text;

	while ((c = strstr(c, word)) != NULL) {
		if ((c == text || c[-1] == ' ') && (c[w] == ' ' ||
		    c[w] == '\n' || c[w] == '\0'))
			return 1;
		c += w;
	}
	return 0;
}

/* The cgroup v2 path of process |pid| ("/a/b"; static; "?"). */
static const char *
v2_of(pid_t pid)
{
	static char path[PATH_MAX];
	char proc[64], *line;
	const char *text;

	snprintf(proc, sizeof(proc), "/proc/%ld", (long)pid);
	text = read_text(proc, "cgroup");
	if ((line = strstr(text, "0::")) == NULL ||
	    (line != text && line[-1] != '\n'))
		return "?";
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(line + 3, "\n"),
	    line + 3);
	return path;
}

/* A thread that waits for its tid to be read, then for the word to go. */
static void *
waiter(void *arg)
{
	int *fds = arg;
	pid_t tid = gettid();
	char c;

	if (write(fds[1], &tid, sizeof(tid)) != sizeof(tid) ||
	    read(fds[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

/* tc_pids_own(): who is the server's own, by /proc. */
static void
test_own(void)
{
	int tofork[2], up[2], fds[2];
	pid_t kid, grand = -1, tid = -1;
	pthread_t th;
	char c = 'x';

	ok(tc_pids_own((long)getpid(), NULL), "the process itself is its own");
	ok(!tc_pids_own((long)getppid(), NULL), "its parent is not");
	ok(!tc_pids_own(0, NULL) && !tc_pids_own(-1, NULL), "nor 0 (a process "
	    "of another PID namespace) or -1");
	if (pipe(tofork) != 0 || pipe(up) != 0)
		return;
	/* A child, which forks a grandchild and says its pid. */
	if ((kid = fork()) == 0) {
		pid_t g = fork();

		if (g == 0) {
			pause();
			_exit(0);
		}
		(void)!write(up[1], &g, sizeof(g));
		(void)!read(tofork[0], &c, 1);
		kill(g, SIGKILL);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	(void)!read(up[0], &grand, sizeof(grand));
	ok(tc_pids_own((long)kid, NULL), "a child is its own");
	ok(grand > 0 && !tc_pids_own((long)grand, NULL), "a grandchild is "
	    "not: it may not be moved with the server");
	(void)!write(tofork[1], &c, 1);
	waitpid(kid, NULL, 0);
	/* One of its own threads, by its tid. */
	fds[0] = tofork[0];
	fds[1] = up[1];
	if (pthread_create(&th, NULL, waiter, fds) == 0) {
		(void)!read(up[0], &tid, sizeof(tid));
		ok(tid > 0 && tid != getpid() && tc_pids_own((long)tid, NULL),
		    "a thread of its own, by its tid (%ld)", (long)tid);
		(void)!write(tofork[1], &c, 1);
		pthread_join(th, NULL);
	} else
		ok(0, "a thread");
	close(tofork[0]);
	close(tofork[1]);
	close(up[0]);
	close(up[1]);
}

/*
 * The layout of a delegated cgroup, with real limits: the server in a
 * leaf, its directory and the calls' cgroups beside the leaf, keepers
 * back to the leaf.  Laid out by hand on the v1 pids hierarchy, which
 * has no rule against processes beside controllers; pids.max holds.
 */
static void
test_beside(void)
{
	char base[PATH_MAX + 64], leaf[PATH_MAX + 128], cg[PATH_MAX];
	char buf[PATH_MAX * 2], want[PATH_MAX * 2], self[32];
	struct tc_diag d = { "", 0 };
	struct tc_pids p, q;
	struct stat st;
	pid_t kpid;
	int n;

	if (geteuid() != 0 || !tc_pids_probe(&p) || p.kind != TC_PIDS_V1) {
		skip("calls' cgroups beside the server's leaf: needs root and "
		    "a cgroup v1 pids hierarchy to lay the leaf out by hand");
		return;
	}
	snprintf(base, sizeof(base), "%s/toolcell-test-beside-%ld", p.home,
	    (long)getpid());
	snprintf(leaf, sizeof(leaf), "%s/%s", base, TC_PIDS_LEAF);
	snprintf(self, sizeof(self), "%ld", (long)getpid());
	if (mkdir(base, 0755) != 0 || mkdir(leaf, 0755) != 0 ||
	    write_file(leaf, "cgroup.procs", self) != 0) {
		ok(0, "a leaf %s with this process in it", leaf);
		goto out;
	}
	q = p;
	if (snprintf(q.base, sizeof(q.base), "%s", base) >=
	    (int)sizeof(q.base) || snprintf(q.home, sizeof(q.home), "%s",
	    leaf) >= (int)sizeof(q.home)) {
		ok(0, "paths that fit");
		goto out;
	}
	snprintf(want, sizeof(want), "pids cgroup v1 at %s", base);
	is_str(tc_pids_str(&q, buf, sizeof(buf)), want, "said as before, "
	    "where the calls' cgroups are made");
	if (!is_int(tc_pids_open(&q, 4, &d), 0, "opened: %s", d.msg))
		goto out;
	snprintf(buf, sizeof(buf), "%s/toolcell-", base);
	ok(strncmp(q.dir, buf, strlen(buf)) == 0 && strchr(q.dir +
	    strlen(base) + 1, '/') == NULL, "its directory is beside the "
	    "leaf: %s", q.dir);
	n = one_call(&q, 3, 0, cg, sizeof(cg), &kpid);
	is_int(n, 3, "a call's limit of 3 holds there");
	like(cg, q.dir + strlen(p.home), "the keeper was in the directory "
	    "beside the leaf");
	snprintf(buf, sizeof(buf), "%s/%ld", q.dir, (long)kpid);
	ok(stat(buf, &st) != 0 && errno == ENOENT, "the keeper left (to the "
	    "leaf) and removed its cgroup");
	snprintf(buf, sizeof(buf), "%s", q.dir);
	tc_pids_close(&q);
	ok(stat(buf, &st) != 0 && stat(leaf, &st) == 0, "closed: the "
	    "directory is gone; the leaf, which this server did not make, "
	    "stays");
out:
	(void)write_file(p.home, "cgroup.procs", self);
	(void)rmdir(leaf);
	ok(rmdir(base) == 0, "this process back, the leaf and its parent "
	    "removed");
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
 * In a forked process standing for a keeper that leaves its call's cgroup
 * while a process of the call is still in it: enters, forks one that
 * waits (or, with |zombie|, exits at once and is left unreaped), leaves,
 * sends that process's pid on |out|, and waits for a byte on |in| before
 * it kills and reaps it.  Returns the keeper's pid, or -1.
 */
static pid_t
busy_keeper(const struct tc_pids *p, int zombie, int out, int in)
{
	siginfo_t si;
	pid_t pid, g;
	char c;

	if ((pid = fork()) != 0)
		return pid;
	if (tc_pids_enter(p) != 0)
		_exit(201);
	if ((g = fork()) == 0) {
		if (!zombie)
			pause();
		_exit(0);
	}
	if (g < 0)
		_exit(202);
	if (zombie && waitid(P_PID, (id_t)g, &si, WEXITED | WNOWAIT) != 0)
		_exit(203);
	tc_pids_leave(p);
	if (write(out, &g, sizeof(g)) != (ssize_t)sizeof(g) ||
	    read(in, &c, 1) != 1)
		_exit(204);
	kill(g, SIGKILL);
	waitpid(g, NULL, 0);
	_exit(0);
}

/*
 * In a forked process standing for a keeper that clones its child before
 * the server has set its call's limit, as every ready child's does:
 * enters, forks one that exits, leaves.  Returns 0 if the fork worked,
 * 1 if it did not, -1 if the run failed.
 */
static int
early_fork(const struct tc_pids *p)
{
	int status;
	pid_t pid, g;

	if ((pid = fork()) == 0) {
		if (tc_pids_enter(p) != 0)
			_exit(201);
		if ((g = fork()) == 0)
			_exit(0);
		if (g > 0)
			waitpid(g, NULL, 0);
		tc_pids_leave(p);
		_exit(g > 0 ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) <= 1 ? WEXITSTATUS(status) : -1;
}

/* The inode of |dir|, or 0 if it is not there. */
static ino_t
ino_of(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 ? st.st_ino : 0;
}

/*
 * On cgroup v1, a call's cgroup that its keeper left empty is kept, as a
 * spare, for the next keeper to take (renamed, not removed and made
 * again); one that a process of its call (a zombie too) is still in is
 * not; the next call's limit is its own, and a spare lets the next keeper
 * and its child in whatever limit it had.
 */
static void
test_spare(void)
{
	struct tc_diag d = { "", 0 };
	char spare0[PATH_MAX + 32], spare1[PATH_MAX + 32], call[PATH_MAX + 32];
	char cg[PATH_MAX], dir[PATH_MAX], c = 'g';
	int out[2], in[2], n, zombie, status;
	struct tc_pids p;
	pid_t kpid, g;
	ino_t ino = 0;

	if (!tc_pids_probe(&p)) {
		skip("no pids cgroup this process may write here (not root, "
		    "and none delegated)");
		return;
	}
	if (p.kind != TC_PIDS_V1) {
		skip("spare cgroups are cgroup v1's (v2 renames none)");
		return;
	}
	if (!is_int(tc_pids_open(&p, 4, &d), 0, "opened: %s", d.msg))
		return;
	snprintf(dir, sizeof(dir), "%s", p.dir);
	snprintf(spare0, sizeof(spare0), "%s/0-0", p.dir);
	snprintf(spare1, sizeof(spare1), "%s/0-1", p.dir);

	n = one_call(&p, 1, 0, cg, sizeof(cg), &kpid);
	is_int(n, 1, "a call with limit 1: 1 fork");
	snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)kpid);
	ok(!exists(call) && (ino = ino_of(spare0)) != 0, "its cgroup, left "
	    "empty, is the spare 0-0 now, under no keeper's pid");
	n = one_call(&p, 5, 0, cg, sizeof(cg), &kpid);
	is_int(n, 5, "the next call's own limit holds in it (5), not the "
	    "last one's");
	ok(ino != 0 && ino_of(spare0) == ino && !exists(spare1), "the next "
	    "keeper took that cgroup and gave it back: one spare, the same "
	    "one");

	/* A process of the call left in it, running, then a zombie. */
	for (zombie = 0; zombie < 2; zombie++) {
		if (pipe(out) != 0 || pipe(in) != 0 ||
		    (kpid = busy_keeper(&p, zombie, out[1], in[0])) < 0) {
			ok(0, "a keeper that leaves a process behind");
			continue;
		}
		close(out[1]);
		close(in[0]);
		g = 0;
		(void)!read(out[0], &g, sizeof(g));
		snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)kpid);
		/* A zombie holds no v1 cgroup (it may be removed), but
		 * counts in its pids.current until reaped. */
		ok(g > 0 && (zombie || exists(call)) && !exists(spare0) &&
		    !exists(spare1), "a keeper gone from the cgroup it took "
		    "while %s is still in it: no spare made of it%s",
		    zombie ? "a zombie of its call" : "a process of its call",
		    zombie ? "" : ", nor removed");
		(void)!write(in[1], &c, 1);
		close(out[0]);
		close(in[1]);
		waitpid(kpid, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		    (rmdir(call) == 0 || (zombie && errno == ENOENT)),
		    "  removed once that one is gone");
	}

	/* A spare whose limit was the lowest a call can have. */
	is_int((int)tc_pids_max(0, 1), 2, "no call's pids.max is below 2: its "
	    "keeper and its child");
	is_int((int)tc_pids_max(0, 0), 1, "without a keeper, not below 1: "
	    "the child");
	is_int((int)tc_pids_max(5, 1), 6, "with a keeper, the limit and one");
	is_int((int)tc_pids_max(5, 0), 5, "without one, the limit: the child "
	    "counted as RLIMIT_NPROC counts it");
	n = one_call(&p, 0, 0, cg, sizeof(cg), &kpid);
	is_int(n, 1, "a call with limit 0 (beside its keeper, one: the "
	    "child already there)");
	ok(exists(spare0), "its cgroup the spare");
	is_int(early_fork(&p), 0, "the next keeper, in it, clones its child "
	    "before the server sets the limit");
	tc_pids_close(&p);
	ok(!exists(dir), "closed: the server's directory is gone, spares "
	    "and all");
}

/*
 * One child without a keeper, cloned with |p| (tc_clone_child()): it
 * writes its /proc/self/cgroup, the first thing it does, to |cgfd|, waits
 * for a byte on |go|, then forks sleepers until a fork fails, and exits
 * with how many worked.  Returns its pid, with |err| from the clone.
 */
static pid_t
placed_child(const struct tc_pids *p, int cgfd, int go, int *err)
{
	char line[PATH_MAX], c;
	ssize_t r;
	pid_t pid;
	int n, fd;

	if ((pid = tc_clone_child(0, 0, getuid(), getgid(), p, err)) != 0)
		return pid;
	if ((fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC)) < 0)
		_exit(202);
	r = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (r <= 0 || write(cgfd, line, (size_t)r) != r)
		_exit(203);
	if (read(go, &c, 1) != 1)
		_exit(205);
	if ((n = fork_until_full()) < 0)
		_exit(204);
	_exit(n);
}

/* 1 if |text| (/proc/PID/cgroup) has a line whose path ends in the
 * call's cgroup |pid| of |p|'s directory. */
static int
in_call(const char *text, const struct tc_pids *p, pid_t pid)
{
	char want[PATH_MAX + 64];
	const char *base = strrchr(p->dir, '/');

	snprintf(want, sizeof(want), "%s/%ld\n", base != NULL ? base : "",
	    (long)pid);
	return strstr(text, want) != NULL;
}

/*
 * A call's child without a keeper (pid 1 of its own PID namespace, where
 * a pids cgroup is in force) is placed in its cgroup by whoever clones
 * it, before it runs anything of its own; its limit counts itself; once
 * it is reaped its cgroup is kept as a spare (v1) or removed
 * (tc_pids_done()), and the next child's takes the spare; a child that
 * cannot be placed never runs.
 */
static void
test_place(void)
{
	struct tc_diag d = { "", 0 };
	char line[PATH_MAX], call[PATH_MAX + 32], spare0[PATH_MAX + 32];
	int where[2], go[2], err, status = 0, round;
	struct tc_pids p, copy;
	ino_t ino = 0;
	ssize_t r;
	pid_t pid;

	if (!tc_pids_probe(&p)) {
		skip("no pids cgroup this process may write here (not root, "
		    "and none delegated)");
		return;
	}
	if (!is_int(tc_pids_open(&p, 4, &d), 0, "opened: %s", d.msg))
		return;
	is_int((int)p.max, 4, "pids.max at the server's limit, its calls "
	    "without keepers: the limit itself");
	snprintf(spare0, sizeof(spare0), "%s/0-0", p.dir);
	for (round = 0; round < 2; round++) {
		if (pipe(where) != 0 || pipe(go) != 0) {
			ok(0, "pipes");
			break;
		}
		pid = placed_child(&p, where[1], go[0], &err);
		close(where[1]);
		close(go[0]);
		ok(pid > 0 && err == 0, "round %d: a child cloned and placed "
		    "(%s)", round, strerror(err));
		r = read(where[0], line, sizeof(line) - 1);
		line[r > 0 ? r : 0] = '\0';
		if (!ok(in_call(line, &p, pid), "  in its call's cgroup, "
		    "named by its pid, from its first instruction"))
			printf("# its /proc/self/cgroup:\n%s", line);
		snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)pid);
		if (round == 1 && p.kind == TC_PIDS_V1)
			ok(ino != 0 && ino_of(call) == ino && !exists(spare0),
			    "  the spare the last child's left, taken and "
			    "renamed");
		is_int(tc_pids_limit(&p, pid, 3 + round, 0), 0, "  its limit "
		    "set");
		is_str(read_text(call, "pids.max"), round ? "4\n" : "3\n",
		    "  pids.max is the limit itself: no keeper to count");
		(void)!write(go[1], "g", 1);
		close(go[1]);
		close(where[0]);
		/* Round 0 as the server does it: kept or removed while the
		 * child's zombie holds its pid; round 1 once reaped. */
		if (round == 0) {
			siginfo_t si;

			memset(&si, 0, sizeof(si));
			(void)waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
			tc_pids_done(&p, pid, 1);
			ok(si.si_pid == pid && kill(pid, 0) == 0, "  ended, "
			    "its zombie not yet reaped");
		}
		waitpid(pid, &status, 0);
		is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		    2 + round, "  it forked %d: the limit counts the child "
		    "itself, as RLIMIT_NPROC does", 2 + round);
		if (round == 1)
			tc_pids_done(&p, pid, 1);
		if (p.kind == TC_PIDS_V1) {
			ok(!exists(call) && (ino = ino_of(spare0)) != 0,
			    "  %s: its cgroup is the spare 0-0 now", round ?
			    "reaped" : "its zombie alone in it");
		} else
			ok(!exists(call), "  its cgroup removed");
	}

	/* A cgroup with a live process beside the ended head's zombie is
	 * neither a spare nor removed: kept to try again. */
	if (pipe(where) == 0 && pipe(go) == 0) {
		pid_t live;
		siginfo_t si;

		pid = placed_child(&p, where[1], go[0], &err);
		close(where[1]);
		close(go[0]);
		r = read(where[0], line, sizeof(line) - 1);
		close(where[0]);
		snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)pid);
		close(go[1]);
		kill(pid, SIGKILL);	/* the head ends */
		/* A process moved in beside it, as only root outside could. */
		if ((live = fork()) == 0) {
			pause();
			_exit(0);
		}
		snprintf(line, sizeof(line), "%ld", (long)live);
		ok(write_file(call, "cgroup.procs", line) == 0, "a process "
		    "beside a placed child in its cgroup");
		memset(&si, 0, sizeof(si));
		(void)waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
		tc_pids_done(&p, pid, 1);
		ok(exists(call) && !exists(spare0) && p.nleft == 1 &&
		    p.left[0] == pid, "  the head ended: its cgroup, busy, "
		    "is kept to try again, not made a spare");
		waitpid(pid, &status, 0);
		errno = 0;
		ok(tc_pids_place(&p, pid) != 0 && errno == EBUSY &&
		    exists(call) && strstr(read_text(call, "cgroup.procs"),
		    line) != NULL, "  a child given that pid next is not "
		    "placed in it (EBUSY): it is an earlier call's, busy still");
		kill(live, SIGKILL);
		waitpid(live, NULL, 0);
		tc_pids_retry(&p, 0);
		ok(!exists(call) && p.nleft == 0, "  removed on the next try "
		    "once that one is gone");
	}

	/* A keeper's cgroup with one process left in it when the keeper
	 * ended (it moves out before it ends; killed, it may leave one of
	 * its call's alive): not a spare, whatever a child's would be. */
	{
		pid_t k, live;
		siginfo_t si;

		if ((k = fork()) == 0)
			_exit(0);
		if ((live = fork()) == 0) {
			pause();
			_exit(0);
		}
		snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)k);
		snprintf(line, sizeof(line), "%ld", (long)live);
		ok(k > 0 && live > 0 && mkdir(call, 0755) == 0 &&
		    write_file(call, "cgroup.procs", line) == 0, "a keeper's "
		    "cgroup, the keeper gone, one process of its call in it");
		memset(&si, 0, sizeof(si));
		(void)waitid(P_PID, (id_t)k, &si, WEXITED | WNOWAIT);
		tc_pids_done(&p, k, 0);
		ok(exists(call) && strstr(read_text(call, "cgroup.procs"),
		    line) != NULL, "  as the keeper is reaped: its count of 1 "
		    "is that process, not the keeper: neither a spare nor "
		    "removed");
		waitpid(k, NULL, 0);
		kill(live, SIGKILL);
		waitpid(live, NULL, 0);
		tc_pids_retry(&p, 0);
		ok(!exists(call), "  removed once that one is gone");
	}

	/* A cgroup that cannot be made: the child never runs. */
	copy = p;
	if (snprintf(copy.dir, sizeof(copy.dir) - 16, "%s", p.dir) > 0)
		strcat(copy.dir, "/no-such/dir");
	if (pipe(where) == 0 && pipe(go) == 0) {
		pid = placed_child(&copy, where[1], go[0], &err);
		close(where[1]);
		close(go[0]);
		close(go[1]);
		r = read(where[0], line, sizeof(line) - 1);
		close(where[0]);
		waitpid(pid, &status, 0);
		ok(pid > 0 && err != 0 && r == 0, "a child that cannot be "
		    "placed: the cloner is told (%s), and the child ran "
		    "nothing", strerror(err));
		ok(WIFEXITED(status) && WEXITSTATUS(status) ==
		    TC_CHILD_EXIT_NS, "  it exited at the gate");
	}
	/* The server writes a placed child's limit only in its cgroup, and
	 * makes none for it: a child not there must not get its call. */
	snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)getpid());
	ok(tc_pids_limit(&p, getpid(), 3, 0) != 0 && !exists(call),
	    "no cgroup of a placed child's pid: its limit is not written, "
	    "nor the cgroup made (the call is not sent)");
	ok(tc_pids_limit(&p, getpid(), 3, 1) == 0 && exists(call),
	    "  a keeper's is made first by the server, as before");
	(void)rmdir(call);

	/* Nothing named: nothing done. */
	tc_pids_done(&p, 1, 1);
	ok(exists(p.dir), "done with a pid that has no cgroup: nothing "
	    "removed");
	snprintf(line, sizeof(line), "%s", p.dir);
	tc_pids_close(&p);
	ok(!exists(line) && !exists(spare0), "closed: the server's "
	    "directory is gone, spares and all");
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

/*
 * --- Live, on the unified hierarchy ---
 *
 * The delegation's steps on this machine's real cgroup v2 hierarchy,
 * where it can: as root, a fresh cgroup under the hierarchy's root stands
 * for the delegated one.  The pids controller may not be on v2 (it is on
 * v1 where the tests were written), so hugetlb, where v2 has it, stands
 * for pids: tc_pids_way(), tc_pids_delegate() and tc_pids_undelegate()
 * take the controller's name, and run here as the probe runs them for
 * pids.  The hierarchy's root is locked (flock) while a test's cgroups
 * are there, and hugetlb is enabled below it only for that time.
 */

/* An agent: a forked process that does what it is told, line by line. */
struct agent {
	pid_t	pid;
	FILE	*to, *from;
};

/* The agent's own cgroup v2 directory, into |out|.  Returns 0 or -1. */
static int
own_v2(char *out, size_t len)
{
	char cg[4096], mi[65536];
	FILE *f;
	size_t n;

	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return -1;
	n = fread(cg, 1, sizeof(cg) - 1, f);
	fclose(f);
	cg[n] = '\0';
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return -1;
	n = fread(mi, 1, sizeof(mi) - 1, f);
	fclose(f);
	mi[n] = '\0';
	return tc_pids_find(cg, mi, TC_PIDS_V2, out, len) ? 0 : -1;
}

/*
 * The agent's loop.  Commands: "way C" (tc_pids_way() of its own cgroup
 * for controller C: "WAY why"), "give DIR C" and "take DIR C"
 * (tc_pids_delegate() and tc_pids_undelegate(): "RC message"), "fork"
 * (a child that waits: its pid), "where" (its own cgroup v2 path, as
 * /proc/self/cgroup says), "probe" and "probe C" (tc_pids_probe(), or
 * tc_pids_probe_controller() of C, kept: "RET KIND MOVED HOME|BASE|NOTE"),
 * "open" (tc_pids_open() of what it keeps, limit 4: "RC DIR"), "close"
 * (tc_pids_close(): "0"), "forkclose" (the same in a forked copy: "0"),
 * "nobody" (become uid and gid 65534: "0"), "exit" (exit(1), as a start
 * refused once the sandbox is prepared: no answer, no tc_pids_close()),
 * "quit".
 */
/*
 * The agent's "place [ns|inns]": clones a child with |p| as the spawner
 * does (tc_clone_child()), in a user and a PID namespace of its own with
 * "ns", and with "inns" from a user namespace the agent enters first (as
 * a spawner that is not root enters the one that owns the shared network
 * namespace).  The child sends its cgroup v2 path as the first thing it
 * does and exits; the agent keeps or removes its cgroup while the
 * child's zombie holds its pid (tc_pids_done()), then reaps it.  Answers
 * "ERR IN GONE": the clone's errno, 1 if the child was in its call's
 * cgroup (p->dir/PID), 1 if that cgroup is gone after.
 */
static const char *
agent_place(struct tc_pids *p, const char *how)
{
	static char answer[64];
	unsigned long ns = 0;
	uid_t uid = getuid();
	gid_t gid = getgid();
	char got[PATH_MAX], want[PATH_MAX + 32], *line;
	int fds[2], err = 0, in = 0, gone;
	struct stat st;
	siginfo_t si;
	ssize_t r;
	pid_t c;

	if (strstr(how, "ns") != NULL)
		ns = CLONE_NEWUSER | CLONE_NEWPID;
	if (strstr(how, "inns") != NULL && (unshare(CLONE_NEWUSER) != 0 ||
	    tc_child_maps(uid, gid) != 0)) {
		snprintf(answer, sizeof(answer), "%d 0 0", errno);
		return answer;
	}
	if (pipe(fds) != 0)
		return "-1 0 0";
	if ((c = tc_clone_child(ns, 0, uid, gid, p, &err)) == 0) {
		int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);

		r = fd < 0 ? -1 : read(fd, got, sizeof(got) - 1);
		got[r > 0 ? r : 0] = '\0';
		(void)!write(fds[1], got, strlen(got));
		_exit(0);
	}
	close(fds[1]);
	r = c > 0 ? read(fds[0], got, sizeof(got) - 1) : -1;
	got[r > 0 ? r : 0] = '\0';
	close(fds[0]);
	snprintf(want, sizeof(want), "%s/%ld", strrchr(p->dir, '/') != NULL ?
	    strrchr(p->dir, '/') : "", (long)c);
	if ((line = strstr(got, "0::")) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		in = strlen(line) >= strlen(want) && strcmp(line +
		    strlen(line) - strlen(want), want) == 0;
	}
	if (c > 0) {
		memset(&si, 0, sizeof(si));
		(void)waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT);
		tc_pids_done(p, c, 1);
		while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
			;
	}
	snprintf(want, sizeof(want), "%s/%ld", p->dir, (long)c);
	gone = stat(want, &st) != 0 && errno == ENOENT;
	snprintf(answer, sizeof(answer), "%d %d %d", err, in, gone);
	return answer;
}

static void __attribute__((__noreturn__))
agent_main(FILE *in, FILE *out)
{
	char line[PATH_MAX + 64], dir[PATH_MAX], arg[64], why[256];
	struct tc_diag d = { "", 0 };
	struct tc_cgroup_text *t = malloc(sizeof(*t));
	struct tc_cgroup_view v;
	struct tc_pids p;
	pid_t kid, kids[8];
	size_t nkids = 0, i;
	int rc;

	while (fgets(line, sizeof(line), in) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		d.msg[0] = '\0';
		if (strncmp(line, "way ", 4) == 0) {
			rc = t == NULL || own_v2(dir, sizeof(dir)) != 0 ||
			    tc_pids_read(dir, t, &v) != 0 ? -1 :
			    (int)tc_pids_way(&v, line + 4, tc_pids_own, NULL,
			    why, sizeof(why));
			fprintf(out, "%d %s\n", rc, rc < 0 ? "unread" : why);
		} else if (strncmp(line, "give ", 5) == 0 ||
		    strncmp(line, "take ", 5) == 0) {
			char *sp = strrchr(line, ' ');

			snprintf(arg, sizeof(arg), "%s", sp + 1);
			*sp = '\0';
			rc = line[0] == 'g' ? tc_pids_delegate(line + 5, arg,
			    tc_pids_own, NULL, &d) : tc_pids_undelegate(
			    line + 5, arg, tc_pids_own, NULL, &d);
			fprintf(out, "%d %s\n", rc, d.msg);
		} else if (strcmp(line, "fork") == 0) {
			if ((kid = fork()) == 0) {
				fclose(in);
				fclose(out);
				pause();
				_exit(0);
			}
			if (kid > 0 && nkids < TC_NITEMS(kids))
				kids[nkids++] = kid;
			fprintf(out, "%ld\n", (long)kid);
		} else if (strcmp(line, "where") == 0) {
			fprintf(out, "%s\n", v2_of(getpid()));
		} else if (strncmp(line, "probe", 5) == 0) {
			rc = line[5] == ' ' ? tc_pids_probe_controller(&p,
			    line + 6) : tc_pids_probe(&p);
			fprintf(out, "%d %d %d %s|%s|%s\n", rc, (int)p.kind,
			    p.moved != 0, p.home, p.base, p.note);
		} else if (strcmp(line, "open") == 0) {
			rc = tc_pids_open(&p, 4, &d);
			fprintf(out, "%d %s\n", rc, rc == 0 ? p.dir : d.msg);
		} else if (strcmp(line, "close") == 0) {
			tc_pids_close(&p);
			fprintf(out, "0\n");
		} else if (strcmp(line, "forkclose") == 0) {
			/* A process forked from it releases its copy. */
			if ((kid = fork()) == 0) {
				tc_pids_close(&p);
				_exit(0);
			}
			while (waitpid(kid, NULL, 0) < 0 && errno == EINTR)
				;
			fprintf(out, "0\n");
		} else if (strncmp(line, "place", 5) == 0) {
			fprintf(out, "%s\n", agent_place(&p, line + 5));
		} else if (strcmp(line, "exit") == 0) {
			exit(1);
		} else if (strcmp(line, "nobody") == 0) {
			fprintf(out, "%d\n", setgroups(0, NULL) == 0 &&
			    setgid(65534) == 0 && setuid(65534) == 0 ? 0 : -1);
		} else
			break;
		fflush(out);
	}
	/* Its children go with it, reaped: out of their cgroup before the
	 * test goes on (a process killed may still be in it a while). */
	for (i = 0; i < nkids; i++) {
		if (kill(kids[i], SIGKILL) != 0)
			continue;	/* not to wait for forever */
		while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
			;
	}
	_exit(0);
}

/* Starts an agent in cgroup |dir|, in its own process group.  Returns 0
 * or -1. */
static int
agent_start(struct agent *a, const char *dir)
{
	int to[2], from[2];
	char pid[32];

	if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
		return -1;
	if ((a->pid = fork()) == 0) {
		FILE *in = fdopen(to[0], "r"), *out = fdopen(from[1], "w");

		close(to[1]);
		close(from[0]);
		setpgid(0, 0);
		if (in == NULL || out == NULL)
			_exit(1);
		agent_main(in, out);
	}
	close(to[0]);
	close(from[1]);
	a->to = fdopen(to[1], "w");
	a->from = fdopen(from[0], "r");
	if (a->pid < 0 || a->to == NULL || a->from == NULL)
		return -1;
	snprintf(pid, sizeof(pid), "%ld", (long)a->pid);
	return write_file(dir, "cgroup.procs", pid);
}

/* Tells agent |a| |cmd| and returns its answer (static). */
static const char *
agent_ask(struct agent *a, const char *cmd)
{
	static char answer[PATH_MAX * 3 + 64];

	fprintf(a->to, "%s\n", cmd);
	fflush(a->to);
	if (fgets(answer, sizeof(answer), a->from) == NULL)
		return "(no answer)";
	answer[strcspn(answer, "\n")] = '\0';
	return answer;
}

/* Stops agent |a| and its children, and reaps it. */
static void
agent_stop(struct agent *a)
{
	if (a->pid <= 0)
		return;
	/* At the end of its input it kills and reaps its children, then
	 * exits: once it is reaped, none of them is left. */
	fclose(a->to);
	fclose(a->from);
	while (waitpid(a->pid, NULL, 0) < 0 && errno == EINTR)
		;
	a->pid = 0;
}

/* Kills process |pid|, which is not ours to reap, and waits until it has
 * left cgroup |dir| (a process killed may still be in it a while). */
static void
kill_out_of(const char *dir, pid_t pid)
{
	char want[32];
	const char *procs;
	int i;

	if (pid <= 0 || kill(pid, SIGKILL) != 0)
		return;
	/* "\nPID\n", its line; the first line is matched without the
	 * newline before it. */
	snprintf(want, sizeof(want), "\n%ld\n", (long)pid);
	for (i = 0; i < 500; i++) {
		procs = read_text(dir, "cgroup.procs");
		if (strncmp(procs, want + 1, strlen(want + 1)) != 0 &&
		    strstr(procs, want) == NULL)
			return;
		usleep(10000);
	}
}

/* Removes cgroup |dir| once the processes killed in it are gone. */
static int
remove_cgroup(const char *dir)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		usleep(10000);
	}
	return -1;
}

/* Removes a test's cgroup |dir| (none: ""), with what a test that failed
 * half-way may have left in it. */
static int
remove_test_cgroup(const char *dir)
{
	char sub[PATH_MAX + 64];

	if (dir[0] == '\0')
		return 0;
	snprintf(sub, sizeof(sub), "%s/%s", dir, TC_PIDS_LEAF);
	(void)remove_cgroup(sub);
	snprintf(sub, sizeof(sub), "%s/call", dir);
	(void)rmdir(sub);
	return remove_cgroup(dir);
}

/* Returns 1 if |answer| starts with the number |n| and a blank. */
static int
answer_is(const char *answer, int n)
{
	char want[16];

	snprintf(want, sizeof(want), "%d ", n);
	return strncmp(answer, want, strlen(want)) == 0;
}

/* A cgroup under |root| named for this test and |tag|, made, into
 * |out|.  Returns 0 or -1. */
static int
test_cgroup(const char *root, const char *tag, char *out, size_t len)
{
	snprintf(out, len, "%s/toolcell-test-pids-%ld%s", root,
	    (long)getpid(), tag);
	return mkdir(out, 0755);
}

/* Hands |dir| to uid and gid 65534 as systemd's Delegate=yes hands a
 * unit's cgroup to its User=: the directory and the files the kernel
 * lists as delegatable. */
static int
hand_over(const char *dir)
{
	static const char *files[] = { "", "/cgroup.procs",
	    "/cgroup.subtree_control", "/cgroup.threads" };
	char path[PATH_MAX + 64];
	size_t i;

	for (i = 0; i < TC_NITEMS(files); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, files[i]);
		if (chown(path, 65534, 65534) != 0)
			return -1;
	}
	return 0;
}

/* What a live test leaves of its cgroup |t| once its agents are gone:
 * the leaf |leaf| removed, the controller off again. */
static void
live_undo(const char *t, const char *leaf)
{
	(void)remove_cgroup(leaf);
	(void)write_file(t, "cgroup.subtree_control", "-hugetlb");
}

/* The delegation's steps, as root, in cgroup |t| (relative path |rel|),
 * with hugetlb for pids. */
static void
live_root(const char *t, const char *rel)
{
	char leaf[PATH_MAX + 32], sub[PATH_MAX + 32], cmd[PATH_MAX + 32];
	char in_leaf[PATH_MAX + 32], pid[32];
	struct agent a = { 0, NULL, NULL }, b = { 0, NULL, NULL };
	const char *ans;
	struct stat st;
	pid_t kid;

	snprintf(leaf, sizeof(leaf), "%s/%s", t, TC_PIDS_LEAF);
	snprintf(in_leaf, sizeof(in_leaf), "%s/%s", rel, TC_PIDS_LEAF);
	if (agent_start(&a, t) != 0) {
		ok(0, "an agent in %s", t);
		agent_stop(&a);
		return;
	}
	kid = (pid_t)strtol(agent_ask(&a, "fork"), NULL, 10);
	ok(kid > 0 && strcmp(v2_of(a.pid), rel) == 0 &&
	    strcmp(v2_of(kid), rel) == 0, "a process alone in %s, with a "
	    "child of its own (as the server's scratch sweeper)", rel);

	ans = agent_ask(&a, "way hugetlb");
	ok(answer_is(ans, TC_PIDS_WAY_MOVE), "its real files: delegated, "
	    "move (%s)", ans);
	snprintf(cmd, sizeof(cmd), "give %s hugetlb", t);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, 0), "tc_pids_delegate() with hugetlb: %s", ans);
	is_str(v2_of(a.pid), in_leaf, "it is in the leaf");
	is_str(v2_of(kid), in_leaf, "and so is its child");
	ok(lists(read_text(t, "cgroup.subtree_control"), "hugetlb"),
	    "hugetlb is enabled for the cgroup's children");
	is_str(read_text(t, "cgroup.procs"), "", "no process is left in it");
	snprintf(sub, sizeof(sub), "%s/call", t);
	ok(mkdir(sub, 0755) == 0 && lists(read_text(sub,
	    "cgroup.controllers"), "hugetlb"), "a call's cgroup beside the "
	    "leaf has the controller");
	(void)rmdir(sub);
	snprintf(pid, sizeof(pid), "%ld", (long)kid);
	ok(write_file(t, "cgroup.procs", pid) != 0 && errno == EBUSY,
	    "while delegated, the cgroup itself takes no process (EBUSY): "
	    "what a manager placing one there meets");

	snprintf(cmd, sizeof(cmd), "take %s hugetlb", t);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, 0), "tc_pids_undelegate(): %s", ans);
	is_str(v2_of(a.pid), rel, "it is back");
	is_str(v2_of(kid), rel, "and so is its child");
	ok(stat(leaf, &st) != 0 && errno == ENOENT, "the leaf is gone");
	ok(!lists(read_text(t, "cgroup.subtree_control"), "hugetlb"),
	    "hugetlb is no longer enabled: the cgroup is as it was");

	/* Another process, not the agent's own, in the cgroup. */
	if (agent_start(&b, t) != 0) {
		ok(0, "a second agent in %s", t);
		goto out;
	}
	ans = agent_ask(&a, "way hugetlb");
	snprintf(cmd, sizeof(cmd), "(pid %ld)", (long)b.pid);
	ok(answer_is(ans, TC_PIDS_WAY_NONE) && strstr(ans, cmd) != NULL,
	    "another process in it: not delegated (%s)", ans);
	snprintf(cmd, sizeof(cmd), "give %s hugetlb", t);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, TC_ESYS) && strstr(ans, "cannot enable the "
	    "hugetlb controller") != NULL, "tc_pids_delegate() regardless: "
	    "the kernel refuses the controller while the other is there "
	    "(%s)", ans);
	ok(strcmp(v2_of(a.pid), rel) == 0 && strcmp(v2_of(kid), rel) == 0,
	    "and it undid the move: both back in %s", rel);
	ok(stat(leaf, &st) != 0 && errno == ENOENT && !lists(read_text(t,
	    "cgroup.subtree_control"), "hugetlb"), "the leaf it made is "
	    "gone, no controller enabled");
	agent_stop(&b);

	/* A second server started in the leaf: beside it; the first one's
	 * undo leaves them both as they are. */
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, 0), "delegated again, alone: %s", ans);
	if (agent_start(&b, leaf) != 0) {
		ok(0, "an agent in the leaf");
		goto out;
	}
	ans = agent_ask(&b, "way hugetlb");
	ok(answer_is(ans, TC_PIDS_WAY_BESIDE), "a second process in the "
	    "leaf: its calls' cgroups go beside it (%s)", ans);
	snprintf(cmd, sizeof(cmd), "take %s hugetlb", t);
	ans = agent_ask(&a, cmd);
	snprintf(pid, sizeof(pid), "(pid %ld)", (long)b.pid);
	ok(answer_is(ans, TC_ESYS) && strstr(ans, pid) != NULL,
	    "the first one's undo refuses while the other is in the leaf "
	    "(%s)", ans);
	ok(strcmp(v2_of(a.pid), in_leaf) == 0 && lists(read_text(t,
	    "cgroup.subtree_control"), "hugetlb"), "and leaves everything "
	    "as it was");
	agent_stop(&b);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, 0) && strcmp(v2_of(a.pid), rel) == 0,
	    "once the other is gone, the undo is done: %s", ans);

	/* A leaf of that name already there (left, or made by another),
	 * holding a process that is not its own: not to be shared. */
	if (mkdir(leaf, 0755) != 0 || agent_start(&b, leaf) != 0) {
		ok(0, "an agent in a leaf made by hand");
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "give %s hugetlb", t);
	ans = agent_ask(&a, cmd);
	snprintf(pid, sizeof(pid), "(pid %ld)", (long)b.pid);
	ok(answer_is(ans, TC_ESYS) && strstr(ans, pid) != NULL,
	    "a leaf already there holding another process: refused (%s)",
	    ans);
	ok(strcmp(v2_of(a.pid), rel) == 0 && strcmp(v2_of(kid), rel) == 0 &&
	    !lists(read_text(t, "cgroup.subtree_control"), "hugetlb") &&
	    stat(leaf, &st) == 0, "nothing moved, no controller enabled, the "
	    "leaf it did not make left");
	agent_stop(&b);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, 0) && strcmp(v2_of(a.pid), in_leaf) == 0,
	    "the same leaf, empty: taken (%s)", ans);
	snprintf(cmd, sizeof(cmd), "take %s hugetlb", t);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, 0) && strcmp(v2_of(a.pid), rel) == 0,
	    "and given back (%s)", ans);
out:
	agent_stop(&b);
	agent_stop(&a);
	live_undo(t, leaf);
}

/* The probe of a process alone in cgroup |t| (relative |rel|), which
 * does not offer pids here: the v1 hierarchy, as before, and no move.
 * Where pids is on v2 and enabled below the root, the probe delegates
 * for real (not run where these tests were written). */
static void
live_probe(const char *t, const char *rel)
{
	struct agent a = { 0, NULL, NULL };
	char want[PATH_MAX * 2 + 16], leaf[PATH_MAX + 32];
	char got[PATH_MAX * 3 + 64];
	struct tc_pids mine;
	const char *ans;
	struct stat st;
	int v1;

	snprintf(leaf, sizeof(leaf), "%s/%s", t, TC_PIDS_LEAF);
	if (agent_start(&a, t) != 0) {
		ok(0, "an agent in %s", t);
		agent_stop(&a);
		return;
	}
	v1 = !lists(read_text(t, "cgroup.controllers"), "pids");
	snprintf(got, sizeof(got), "%s", agent_ask(&a, "probe"));
	ans = got;
	(void)agent_ask(&a, "close");
	if (v1) {
		/* What this process, in the hierarchy's root, finds: the
		 * same, found the same way as before. */
		if (tc_pids_probe(&mine) && mine.kind == TC_PIDS_V1)
			snprintf(want, sizeof(want), "1 1 0 %s|%s|", mine.home,
			    mine.home);
		else
			snprintf(want, sizeof(want), "0 0 0 ||");
		is_str(ans, want, "alone in %s, which does not offer pids: "
		    "the probe takes what it took before, and says nothing of "
		    "v2", rel);
		ok(stat(leaf, &st) != 0 && errno == ENOENT, "no leaf made");
	} else {
		ok(strncmp(ans, "1 2 1 ", 6) == 0, "alone in %s, which offers "
		    "pids: the probe delegates (%s)", rel, ans);
		ok(stat(leaf, &st) != 0 && errno == ENOENT, "its close undid "
		    "it: no leaf");
	}
	is_str(agent_ask(&a, "where"), rel, "it is where it was");
	agent_stop(&a);
}

/* Returns 1 if |answer| ("RC DIR") names a directory of |base|'s
 * children whose cgroup.subtree_control enables hugetlb. */
static int
dir_beside(const char *answer, const char *base)
{
	const char *dir = strchr(answer, ' ');
	size_t n = strlen(base);

	return answer_is(answer, 0) && dir != NULL &&
	    strncmp(dir + 1, base, n) == 0 && strncmp(dir + 1 + n,
	    "/toolcell-", 10) == 0 && strchr(dir + 1 + n + 1, '/') == NULL &&
	    lists(read_text(dir + 1, "cgroup.subtree_control"), "hugetlb");
}

/*
 * The server's own steps, with hugetlb for pids: tc_pids_probe_controller()
 * delegating, tc_pids_open() making its directory beside the leaf,
 * tc_pids_close() undoing it all; then a second server started in the
 * leaf, beside which it makes its own, and the first one's close leaving
 * them both as they are.
 */
static void
live_server(const char *t, const char *rel)
{
	struct agent a = { 0, NULL, NULL }, b = { 0, NULL, NULL };
	char leaf[PATH_MAX + 32], in_leaf[PATH_MAX + 32];
	char want[PATH_MAX * 2 + 64], adir[PATH_MAX + 64];
	const char *ans;
	struct stat st;

	snprintf(leaf, sizeof(leaf), "%s/%s", t, TC_PIDS_LEAF);
	snprintf(in_leaf, sizeof(in_leaf), "%s/%s", rel, TC_PIDS_LEAF);
	if (agent_start(&a, t) != 0) {
		ok(0, "an agent in %s", t);
		goto out;
	}
	ans = agent_ask(&a, "probe hugetlb");
	snprintf(want, sizeof(want), "1 2 1 %s|%s|the cgroup v2 '%s' is "
	    "delegated to this server", leaf, t, t);
	ok(strncmp(ans, want, strlen(want)) == 0, "the probe, alone in a "
	    "cgroup offering hugetlb: v2, moved, said (%s)", ans);
	is_str(agent_ask(&a, "where"), in_leaf, "it is in its leaf");
	ans = agent_ask(&a, "open");
	ok(dir_beside(ans, t), "opened: its directory beside the leaf, "
	    "giving the controller to the calls' cgroups (%s)", ans);
	snprintf(adir, sizeof(adir), "%s", ans + 2);
	is_str(agent_ask(&a, "place"), "0 1 1", "a call's child placed from "
	    "the leaf in its cgroup beside it, from its first instruction; "
	    "removed once it ended");
	is_str(agent_ask(&a, "place ns"), "0 1 1", "  the same in a user and "
	    "a PID namespace of its own");
	(void)agent_ask(&a, "forkclose");
	ok(strcmp(agent_ask(&a, "where"), in_leaf) == 0 &&
	    stat(adir, &st) == 0, "a forked copy's close undoes nothing");
	(void)agent_ask(&a, "close");
	ok(stat(adir, &st) != 0 && errno == ENOENT, "closed: its directory "
	    "is gone");
	is_str(agent_ask(&a, "where"), rel, "it moved back");
	ok(stat(leaf, &st) != 0 && errno == ENOENT && !lists(read_text(t,
	    "cgroup.subtree_control"), "hugetlb"), "the leaf is gone and "
	    "the controller off: the cgroup as it was found");

	/* Two servers. */
	ans = agent_ask(&a, "probe hugetlb");
	ok(strncmp(ans, "1 2 1 ", 6) == 0, "the first delegates again (%s)",
	    ans);
	ans = agent_ask(&a, "open");
	snprintf(adir, sizeof(adir), "%s", ans + 2);
	if (!dir_beside(ans, t) || agent_start(&b, leaf) != 0) {
		ok(0, "a second server in the leaf (%s)", ans);
		goto out;
	}
	ans = agent_ask(&b, "probe hugetlb");
	snprintf(want, sizeof(want), "1 2 0 %s|%s|this server started in "
	    "the leaf", leaf, t);
	ok(strncmp(ans, want, strlen(want)) == 0, "a second server started "
	    "in the leaf: v2, beside it, not moved (%s)", ans);
	ans = agent_ask(&b, "open");
	ok(dir_beside(ans, t), "its directory beside the leaf too (%s)", ans);
	(void)agent_ask(&a, "close");
	ok(stat(adir, &st) != 0 && strcmp(agent_ask(&a, "where"), in_leaf) ==
	    0 && lists(read_text(t, "cgroup.subtree_control"), "hugetlb"),
	    "the first one's close removes its directory and leaves the "
	    "rest: the second is in the leaf");
	(void)agent_ask(&b, "close");
out:
	agent_stop(&b);
	agent_stop(&a);
	live_undo(t, leaf);
}

/*
 * A server that exits without tc_pids_close() (tc_fatal(): a start refused
 * once the sandbox is prepared, --check with an error) leaves the cgroup
 * as it found it all the same: its directory gone, it and its child
 * back, the leaf removed, the controller off.
 */
static void
live_exit(const char *t, const char *rel)
{
	struct agent a = { 0, NULL, NULL };
	char leaf[PATH_MAX + 32], adir[PATH_MAX + 64] = "";
	const char *ans;
	struct stat st;
	pid_t kid = -1;

	snprintf(leaf, sizeof(leaf), "%s/%s", t, TC_PIDS_LEAF);
	if (agent_start(&a, t) != 0) {
		ok(0, "an agent in %s", t);
		goto out;
	}
	kid = (pid_t)strtol(agent_ask(&a, "fork"), NULL, 10);
	ans = agent_ask(&a, "probe hugetlb");
	ok(strncmp(ans, "1 2 1 ", 6) == 0, "a server with a child delegates "
	    "(%s)", ans);
	ans = agent_ask(&a, "open");
	snprintf(adir, sizeof(adir), "%s", ans + 2);
	ok(dir_beside(ans, t), "and opens (%s)", ans);
	(void)agent_ask(&a, "exit");
	while (waitpid(a.pid, NULL, 0) < 0 && errno == EINTR)
		;
	ok(stat(adir, &st) != 0 && errno == ENOENT, "exited without its "
	    "close: its directory is gone all the same");
	ok(kid > 0 && strcmp(v2_of(kid), rel) == 0, "its child is back in "
	    "%s (%s)", rel, v2_of(kid));
	ok(stat(leaf, &st) != 0 && errno == ENOENT && !lists(read_text(t,
	    "cgroup.subtree_control"), "hugetlb"), "the leaf is gone and the "
	    "controller off: the cgroup as it was found");
out:
	agent_stop(&a);
	/* The child, which outlived it, is no longer its to reap. */
	kill_out_of(t, kid);
	if (adir[0] == '/')
		(void)rmdir(adir);
	live_undo(t, leaf);
}

/* As a normal user, in a cgroup handed over to it (|t|) and in one that
 * was not (|u|). */
static void
live_user(const char *t, const char *trel, const char *u,
    const char *urel)
{
	struct agent a = { 0, NULL, NULL };
	char cmd[PATH_MAX + 32], leaf[PATH_MAX + 32];
	const char *ans;
	struct stat st;

	snprintf(leaf, sizeof(leaf), "%s/%s", t, TC_PIDS_LEAF);
	if (hand_over(t) != 0 || agent_start(&a, t) != 0 ||
	    strcmp(agent_ask(&a, "nobody"), "0") != 0) {
		ok(0, "an agent as nobody in %s, handed over", t);
		agent_stop(&a);
		return;
	}
	ans = agent_ask(&a, "way hugetlb");
	ok(answer_is(ans, TC_PIDS_WAY_MOVE), "as nobody, in a cgroup "
	    "handed over to it: delegated (%s)", ans);
	snprintf(cmd, sizeof(cmd), "give %s hugetlb", t);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, 0), "moved in: %s", ans);
	snprintf(cmd, sizeof(cmd), "%s/%s", trel, TC_PIDS_LEAF);
	is_str(agent_ask(&a, "where"), cmd, "into its leaf");
	ok(stat(leaf, &st) == 0 && st.st_uid == 65534, "which it owns");
	snprintf(cmd, sizeof(cmd), "take %s hugetlb", t);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, 0), "and out: %s", ans);
	is_str(agent_ask(&a, "where"), trel, "back where it was");
	agent_stop(&a);

	/* A server that is not root, its cgroup delegated: its spawner
	 * places each call's child, from the server's user namespace and
	 * from one it entered (the shared network namespace's owner). */
	if (agent_start(&a, t) != 0 ||
	    strcmp(agent_ask(&a, "nobody"), "0") != 0) {
		ok(0, "an agent as nobody in %s", t);
		agent_stop(&a);
		return;
	}
	ans = agent_ask(&a, "probe hugetlb");
	ok(strncmp(ans, "1 2 1 ", 6) == 0, "as nobody: delegated, moved "
	    "(%s)", ans);
	ans = agent_ask(&a, "open");
	ok(dir_beside(ans, t), "as nobody: its directory beside the leaf "
	    "(%s)", ans);
	is_str(agent_ask(&a, "place ns"), "0 1 1", "as nobody: a call's "
	    "child in its own user and PID namespaces, placed in its "
	    "cgroup; removed once it ended");
	is_str(agent_ask(&a, "place inns"), "0 1 1", "as nobody, from a user "
	    "namespace of the server's: placed all the same");
	(void)agent_ask(&a, "close");
	agent_stop(&a);
	live_undo(t, leaf);

	snprintf(leaf, sizeof(leaf), "%s/%s", u, TC_PIDS_LEAF);
	if (agent_start(&a, u) != 0 ||
	    strcmp(agent_ask(&a, "nobody"), "0") != 0) {
		ok(0, "an agent as nobody in %s", u);
		agent_stop(&a);
		return;
	}
	ans = agent_ask(&a, "way hugetlb");
	ok(answer_is(ans, TC_PIDS_WAY_NONE) && strstr(ans, "not delegated "
	    "to this server") != NULL, "as nobody, in root's cgroup: not "
	    "delegated (%s)", ans);
	snprintf(cmd, sizeof(cmd), "give %s hugetlb", u);
	ans = agent_ask(&a, cmd);
	ok(answer_is(ans, TC_ESYS) && strstr(ans, "cannot make the leaf"),
	    "tc_pids_delegate() regardless fails at its first step (%s)",
	    ans);
	ok(strcmp(agent_ask(&a, "where"), urel) == 0 && stat(leaf, &st) != 0,
	    "and changed nothing");
	agent_stop(&a);
}

static void
test_live_v2(void)
{
	char root[PATH_MAX], t[PATH_MAX + 64] = "", u[PATH_MAX + 64] = "";
	char w[PATH_MAX + 64] = "", mi[65536];
	int lock = -1, enabled = 0;
	size_t n;
	FILE *f;

	if (geteuid() != 0) {
		skip("the delegation's steps on the live cgroup v2 hierarchy: "
		    "need root (a cgroup made under its root stands for the "
		    "delegated one)");
		return;
	}
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return;
	n = fread(mi, 1, sizeof(mi) - 1, f);
	fclose(f);
	mi[n] = '\0';
	if (!tc_pids_find("0::/\n", mi, TC_PIDS_V2, root, sizeof(root)) ||
	    strcmp(read_text(root, "cgroup.type"), "?") != 0) {
		skip("no whole cgroup v2 hierarchy mounted here");
		return;
	}
	if (!lists(read_text(root, "cgroup.controllers"), "hugetlb")) {
		skip("hugetlb, which stands for pids in these tests, is not on "
		    "the cgroup v2 hierarchy here");
		return;
	}
	/* One test at a time below the root, whose controllers are the
	 * machine's: only for this while, and put back. */
	if ((lock = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    flock(lock, LOCK_EX) != 0) {
		ok(0, "the lock on %s", root);
		goto out;
	}
	if (!lists(read_text(root, "cgroup.subtree_control"), "hugetlb")) {
		if (write_file(root, "cgroup.subtree_control", "+hugetlb") !=
		    0) {
			skip("hugetlb cannot be enabled below the cgroup v2 "
			    "hierarchy's root");
			goto out;
		}
		enabled = 1;
	}
	if (test_cgroup(root, "", t, sizeof(t)) != 0 ||
	    test_cgroup(root, "-user", u, sizeof(u)) != 0 ||
	    test_cgroup(root, "-none", w, sizeof(w)) != 0) {
		ok(0, "test cgroups under %s", root);
		goto out;
	}
	ok(lists(read_text(t, "cgroup.controllers"), "hugetlb"), "%s, fresh, "
	    "offers hugetlb", t);
	live_root(t, t + strlen(root));
	live_server(t, t + strlen(root));
	live_exit(t, t + strlen(root));
	live_probe(t, t + strlen(root));
	live_user(u, u + strlen(root), w, w + strlen(root));
out:
	ok(remove_test_cgroup(t) == 0 && remove_test_cgroup(u) == 0 &&
	    remove_test_cgroup(w) == 0, "the test cgroups removed");
	if (enabled && write_file(root, "cgroup.subtree_control",
	    "-hugetlb") != 0) {
		printf("# hugetlb left enabled below %s: %s\n", root,
		    strerror(errno));
		fflush(stdout);
	}
	if (lock >= 0)
		close(lock);
}

/* --- A cgroup.procs longer than its room --- */

/* Every process is ours: what decides is the list's length. */
static int
all_ours_fn(long id, void *ctx)
{
	(void)id;
	(void)ctx;
	return 1;
}

/*
 * Writes |dir|/|name| anew: exactly |n| bytes of lines that each name
 * this process (the last padded with zeros to fill |n|).  Returns 0 or
 * -1.
 */
static int
write_list(const char *dir, const char *name, size_t n)
{
	char path[PATH_MAX + 64], line[32], *text;
	size_t len, at = 0;
	ssize_t w;
	int fd;

	len = (size_t)snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (n < len || (text = malloc(n)) == NULL)
		return -1;
	while (n - at >= 2 * len) {
		memcpy(text + at, line, len);
		at += len;
	}
	/* The rest, one line: zeros, then the pid. */
	memset(text + at, '0', n - at);
	memcpy(text + n - len, line, len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) <
	    0) {
		free(text);
		return -1;
	}
	w = write(fd, text, n);
	close(fd);
	free(text);
	return w == (ssize_t)n ? 0 : -1;
}

/*
 * A cgroup.procs that fills its room, or is longer, must not be taken for
 * the whole list: pids.c reads it into TC_PIDS_LIST_MAX bytes
 * (read_procs()), and the rest could name processes not the server's.
 * On plain files in a directory of the test's own: a leaf of another
 * server's (tc_pids_undelegate(), only_ours()), and the cgroup whose
 * processes the server moves into its leaf (tc_pids_delegate(),
 * move_ours()).
 */
static void
test_long_list(void)
{
	static const size_t sizes[] = { TC_PIDS_LIST_MAX - 2,
	    TC_PIDS_LIST_MAX - 1, TC_PIDS_LIST_MAX, 3 * TC_PIDS_LIST_MAX };
	char dir[] = "/tmp/test-pids-list.XXXXXX", leaf[PATH_MAX];
	char what[64], path[PATH_MAX + 32];
	struct tc_diag d = { "", 0 };
	size_t i;
	int rc, fits;

	if (mkdtemp(dir) == NULL) {
		ok(0, "long lists: set up: %s", strerror(errno));
		return;
	}
	snprintf(leaf, sizeof(leaf), "%s/%s", dir, TC_PIDS_LEAF);
	if (mkdir(leaf, 0755) != 0 ||
	    write_list(dir, "cgroup.subtree_control", 16) != 0) {
		ok(0, "long lists: set up: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < TC_NITEMS(sizes); i++) {
		fits = sizes[i] < TC_PIDS_LIST_MAX - 1;
		snprintf(what, sizeof(what), "%zu bytes", sizes[i]);

		/* The leaf's list, as undelegating reads it first. */
		if (write_list(leaf, "cgroup.procs", sizes[i]) != 0 ||
		    write_list(dir, "cgroup.procs", 16) != 0) {
			ok(0, "long lists: %s: set up", what);
			continue;
		}
		d.msg[0] = '\0';
		rc = tc_pids_undelegate(dir, "pids", all_ours_fn, NULL, &d);
		if (fits)
			ok(strstr(d.msg, "could not be read in full") == NULL,
			    "long lists: a leaf's cgroup.procs of %s, our own "
			    "pid each line, is read whole: %s", what, d.msg);
		else
			ok(rc == TC_ESYS && strstr(d.msg, "is left as it is: "
			    "its processes could not be read in full") !=
			    NULL, "long lists: a leaf's cgroup.procs of %s "
			    "is refused: %s", what, d.msg);

		/* The cgroup's list, as delegating moves what it names. */
		if (write_list(leaf, "cgroup.procs", 16) != 0 ||
		    write_list(dir, "cgroup.procs", sizes[i]) != 0) {
			ok(0, "long lists: %s: set up", what);
			continue;
		}
		d.msg[0] = '\0';
		rc = tc_pids_delegate(dir, "pids", all_ours_fn, NULL, &d);
		if (fits)
			is_int(rc, 0, "long lists: a cgroup.procs of %s to "
			    "move from is read whole: %s", what, d.msg);
		else
			ok(rc == TC_ESYS && strstr(d.msg, "cannot move pid") !=
			    NULL && strstr(d.msg, strerror(EFBIG)) != NULL,
			    "long lists: a cgroup.procs of %s to move from is "
			    "refused, as too large: %s", what, d.msg);
	}
out:
	/* What the test made, and nothing else. */
	snprintf(path, sizeof(path), "%s/cgroup.procs", leaf);
	(void)unlink(path);
	(void)rmdir(leaf);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	(void)unlink(path);
	if (rmdir(dir) != 0)
		printf("# cannot remove %s: %s\n", dir, strerror(errno));
}

int
main(void)
{
	test_find();
	test_way();
	test_way_parent();
	test_own();
	test_live();
	test_beside();
	test_reaped();
	test_spare();
	test_place();
	test_namespaces();
	test_live_v2();
	test_long_list();
	return done_testing();
}
