/*
 * prepare.c: the sandbox made ready, once at start: what the kernel
 * offers, probed; each profile of the server's tools prepared (its
 * namespaces, seccomp filter and Landlock ruleset); whether calls can
 * reach the roots; and all of it rebuilt when the roots change and
 * released at the end.  The top of the sandbox's making: it starts and
 * stops the pool (spawn.c), and calls what lies below it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"

/*
 * Sets |out| to the highest of each resource limit over the server's and
 * every tool's own (*|per_tool| to 1 if a tool has one): a child is
 * confined before it knows its call, under these, and lowers them to its
 * tool's once the call arrives.
 */
static void
ceiling(const struct tc_policy *pol, struct tc_limits *out, int *per_tool)
{
	struct tc_limits l;
	size_t i;

	*out = pol->limits;
	*per_tool = 0;
	for (i = 0; i < pol->ntools; i++) {
		if (!pol->tools[i].enabled)
			continue;	/* nobody can call it */
		tc_policy_limits(pol, pol->tools[i].name, &l);
		if (l.cpu_sec == pol->limits.cpu_sec &&
		    l.mem_bytes == pol->limits.mem_bytes &&
		    l.fsize_bytes == pol->limits.fsize_bytes &&
		    l.nofile == pol->limits.nofile &&
		    l.nproc == pol->limits.nproc)
			continue;
		*per_tool = 1;
#define MAX(a, b)	((a) > (b) ? (a) : (b))
		out->cpu_sec = MAX(out->cpu_sec, l.cpu_sec);
		out->mem_bytes = MAX(out->mem_bytes, l.mem_bytes);
		out->fsize_bytes = MAX(out->fsize_bytes, l.fsize_bytes);
		out->nofile = MAX(out->nofile, l.nofile);
		out->nproc = MAX(out->nproc, l.nproc);
#undef MAX
	}
}

/*
 * What the other layers confine for |sp|'s children, which its seccomp
 * filter relies on (TC_SECCOMP_*).
 */
static unsigned
seccomp_opts(const struct tc_sandbox *sb, const struct tc_sandbox_profile *sp)
{
	unsigned opts = 0;
	int landlock = !(sb->degraded & TC_DEGRADE_LANDLOCK);

	if (landlock)
		opts |= TC_SECCOMP_LANDLOCK;
	switch (tc_profile_network(sb->policy, sp->profile)) {
	case TC_NETWORK_ON:
		opts |= TC_SECCOMP_NET_CONNECT | TC_SECCOMP_NET_ANY;
		break;
	case TC_NETWORK_CONNECT:
		opts |= TC_SECCOMP_NET_CONNECT;
		break;
	case TC_NETWORK_OFF:
		break;
	}
	/* Taken only by a profile with TC_MAY_EXEC_MEMORY (seccomp.c). */
	if (sb->policy->jit)
		opts |= TC_SECCOMP_JIT;
	/* Landlock ABI 6 scopes signals to the sandbox's own domain. */
	if ((sp->ns & CLONE_NEWPID) || (landlock && sb->landlock_abi >= 6))
		opts |= TC_SECCOMP_SIGNALS;
	return opts;
}

void
tc_profiles_add(struct tc_profiles *set, const struct tc_profile *p)
{
	size_t i;

	if (p == NULL)
		TC_BUG("a tool without a confinement profile");
	for (i = 0; i < set->n; i++)
		if (set->v[i] == p)
			return;
	if (set->n == TC_PROFILES_MAX)
		TC_BUG("more than %d confinement profiles", TC_PROFILES_MAX);
	set->v[set->n++] = p;
}

/*
 * The namespaces the children of |profile| ask for: its own, but a
 * network namespace where the policy grants it a network.
 */
static unsigned long
wanted_ns(const struct tc_sandbox *sb, const struct tc_profile *profile)
{
	unsigned long want = profile->ns & TC_NS_ALL;

	if (tc_profile_network(sb->policy, profile) != TC_NETWORK_OFF)
		want &= ~(unsigned long)CLONE_NEWNET;
	if (tc_mounts_wanted(sb->policy, profile))
		want |= CLONE_NEWNS;
	return want;
}

/*
 * Finds the namespaces each profile that wants some can have.  The probe
 * (a clone and its id maps) is the slowest step of a start: once per
 * distinct wish, and not at all for a server whose profiles want none.
 */
static void
probe_namespaces(struct tc_sandbox *sb)
{
	struct tc_sandbox_profile *sp;
	unsigned long want;
	size_t i, k;

	for (i = 0; i < sb->nprof; i++) {
		sp = &sb->prof[i];
		if ((want = wanted_ns(sb, sp->profile)) == 0)
			continue;
		for (k = 0; k < i; k++)
			if (wanted_ns(sb, sb->prof[k].profile) == want)
				break;
		sp->ns = k < i ? sb->prof[k].ns : tc_ns_probe(want);
		if (sp->ns != want)
			sb->degraded |= TC_DEGRADE_NAMESPACES;
		sb->ns_flags |= sp->ns;
	}
}

/*
 * Fails closed where a profile keeps places read-only beneath the
 * writable roots and the kernel denies its children the mount namespace
 * that does it.  Returns 0, or TC_ENOTSUP with |d| saying what to do.
 */
static int
mounts_kept(const struct tc_sandbox *sb, struct tc_diag *d)
{
	const struct tc_sandbox_profile *sp;
	const char *name, *off;
	int st, err = 0;
	size_t i;
	pid_t pid;

	for (i = 0; i < sb->nprof; i++) {
		sp = &sb->prof[i];
		if (!(wanted_ns(sb, sp->profile) & CLONE_NEWNS))
			continue;
		name = sp->profile->read_only(sb->policy)[0];
		off = sp->profile->read_only_off;
		if (!(sp->ns & CLONE_NEWNS))
			return tc_diag(d, TC_ENOTSUP, "the kernel denies calls "
			    "a mount namespace of their own, where %s is kept "
			    "read-only beneath the writable directories (a "
			    "user namespace is needed unless the server runs "
			    "as root)%s%s", name, off != NULL ? "; " : "",
			    off != NULL ? off : "");
		/* What each child will do, once now: the mount calls may be
		 * missing (Linux 5.12) or refused in a user namespace (a
		 * security module's rule), and a writable directory may
		 * hold more than a child binds.  Every call would fail. */
		if ((pid = tc_clone_child(sp->ns, 0, sb->uid, sb->gid, NULL,
		    &err)) == 0)
			_exit(tc_mounts_protect(sb, sp) == 0 ? 0 :
			    errno > 0 && errno < 256 ? errno : EIO);
		if (pid < 0)
			return tc_diag_errno(d, TC_ESYS, "cannot create a "
			    "child in its own namespaces");
		st = -1;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (err == 0 && st == 0)
			continue;
		err = err != 0 ? err : WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
		return tc_diag(d, TC_ENOTSUP, "cannot keep %s read-only "
		    "beneath the writable directories, as each call's child "
		    "would: %s%s%s", name, tc_mounts_strerror(err),
		    off != NULL ? "; " : "", off != NULL ? off : "");
	}
	return 0;
}

/*
 * Fails closed where a profile's children would be granted "network
 * connect" and the kernel cannot hold them to its ports: Landlock's
 * network rules (ABI 4) are missing, or Landlock is not in force.
 * Returns 0, or TC_ENOTSUP with |d| saying what would grant more.
 */
static int
ports_enforced(const struct tc_sandbox *sb, struct tc_diag *d)
{
	size_t i;

	for (i = 0; i < sb->nprof; i++) {
		if (tc_profile_network(sb->policy, sb->prof[i].profile) !=
		    TC_NETWORK_CONNECT)
			continue;
		if (sb->degraded & TC_DEGRADE_LANDLOCK)
			return tc_diag(d, TC_ENOTSUP, "'network connect' "
			    "limits calls to the ports it names, which only "
			    "Landlock does, and it is not in force; "
			    "'network on' grants every port");
		if (sb->landlock_abi < 4)
			return tc_diag(d, TC_ENOTSUP, "'network connect' "
			    "limits calls to the ports it names, which needs "
			    "Landlock's network rules (ABI 4, Linux 6.7); "
			    "this kernel's Landlock is ABI %d; 'network on' "
			    "grants every port", sb->landlock_abi);
	}
	return 0;
}

/*
 * Where a profile's children may fork, finds a pids cgroup the server may
 * write and makes its directory there, for each call's own (pids.h).
 * Each call's pids.max is its tool's limit, which the server writes as it
 * hands the call over (run.c).
 * None is not an error: RLIMIT_NPROC holds where it can (confine.c), and
 * a server says what holds.  Nor is one that cannot be made, which is
 * said here; a call whose keeper cannot enter its cgroup, or whose child
 * cannot be placed in it, fails.
 */
static void
pids_cgroup(struct tc_sandbox *sb)
{
	struct tc_diag d = { "", 0 };
	size_t i;
	int found;

	for (i = 0; i < sb->nprof; i++)
		if (tc_sandbox_may_keep(sb->prof[i].profile))
			break;
	if (i == sb->nprof)
		return;
	/* Where cgroup v2 offered pids, the note says whether it is used
	 * (the server moved), or why not: said once it holds, since an
	 * open that fails undoes the move. */
	found = tc_pids_probe(&sb->pids);
	/* Whether pids.max counts a keeper: the namespaces are known. */
	for (i = 0; i < sb->nprof; i++)
		if (tc_sandbox_keeper(sb, &sb->prof[i]))
			sb->pids.kept = 1;
	if (found && tc_pids_open(&sb->pids, sb->policy->limits.nproc,
	    &d) != 0) {
		tc_warn("%s: the process limit holds as without a pids "
		    "cgroup", d.msg);
		memset(&sb->pids, 0, sizeof(sb->pids));
		return;
	}
	if (sb->pids.note[0] != '\0')
		tc_info("%s", sb->pids.note);
}

/*
 * Builds the two filters of |sp|'s zygote (zygote.c) where its profile
 * asks for one and may have one: its children have no namespace, keeper,
 * terminal or network, and seccomp and Landlock are both in force (a
 * zygote's children share its Landlock domain and add one of their own,
 * and a filter takes back what the zygote's allowed it).  Anything less
 * and it has none: its children are confined each from the start, as
 * every other profile's.
 */
static void
prepare_zygote(struct tc_sandbox *sb, struct tc_sandbox_profile *sp)
{
	const struct tc_profile *p = sp->profile;
	struct tc_diag d = { "", 0 };

	if (!p->zygote || sp->ns != 0 || (p->may & (TC_MAY_FORK |
	    TC_MAY_TTY | TC_MAY_NETWORK)) ||
	    (sb->degraded & (TC_DEGRADE_SECCOMP | TC_DEGRADE_LANDLOCK)))
		return;
	if (tc_seccomp_build(p, seccomp_opts(sb, sp) | TC_SECCOMP_ZYGOTE,
	    &sp->zygote_filter, &d) != 0 ||
	    tc_seccomp_build_fork(p, &sp->fork_filter, &d) != 0) {
		tc_debug("no zygote for profile '%s': %s", p->name, d.msg);
		tc_seccomp_release(&sp->zygote_filter);
		tc_seccomp_release(&sp->fork_filter);
	}
}

int
tc_sandbox_init(struct tc_sandbox *sb, const struct tc_policy *pol,
    const struct tc_profiles *profiles, struct tc_diag *d)
{
	size_t i, k;
	int rc;

	memset(sb, 0, sizeof(*sb));
	for (i = 0; i < profiles->n && i < TC_PROFILES_MAX; i++) {
		sb->prof[i].profile = profiles->v[i];
		sb->prof[i].ruleset = -1;
		for (k = 0; k < TC_POOL_MAX; k++)
			tc_standby_clear(&sb->prof[i].pool[k]);
	}
	sb->nprof = i;
	sb->spawner_fd = -1;
	sb->watch_fd = -1;
	sb->policy = pol;
	ceiling(pol, &sb->rlim, &sb->tool_rlimits);
	sb->server_pid = getpid();
	sb->uid = geteuid();
	sb->gid = getegid();
	/* Non-dumpable: no core dumps of the server, and its /proc files
	 * (environ, mem, fd) belong to root rather than to its uid, so a
	 * child of the same uid cannot read them. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return tc_diag_errno(d, TC_ESYS, "PR_SET_DUMPABLE");
	if ((sb->devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		return tc_diag_errno(d, TC_ESYS, "cannot open /dev/null");

	probe_namespaces(sb);
	if ((rc = mounts_kept(sb, d)) != 0) {
		tc_sandbox_release(sb);
		return rc;
	}
	pids_cgroup(sb);
	/* A filter at a bad address: EFAULT where seccomp filters exist,
	 * EINVAL where the kernel has none. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) == 0 ||
	    errno != EFAULT) {
		if (!(pol->allow_degraded & TC_DEGRADE_SECCOMP)) {
			tc_sandbox_release(sb);
			return tc_diag(d, TC_ENOTSUP, "the kernel offers no "
			    "seccomp filters (CONFIG_SECCOMP_FILTER), which "
			    "limit the system calls a call may make; "
			    "'--allow-degraded seccomp' runs without them");
		}
		sb->degraded |= TC_DEGRADE_SECCOMP;
	}
	/* Landlock before the filters: what they allow depends on it. */
	if ((sb->landlock_abi = tc_landlock_abi()) < 1) {
		if (!(pol->allow_degraded & TC_DEGRADE_LANDLOCK)) {
			tc_sandbox_release(sb);
			return tc_diag(d, TC_ENOTSUP, "the kernel offers no "
			    "Landlock (Linux 5.13 or later with "
			    "CONFIG_SECURITY_LANDLOCK and 'landlock' in the "
			    "lsm= boot list), which enforces the allowed "
			    "directories; '--allow-degraded landlock' runs "
			    "without it");
		}
		sb->degraded |= TC_DEGRADE_LANDLOCK;
	}
	if ((rc = ports_enforced(sb, d)) != 0) {
		tc_sandbox_release(sb);
		return rc;
	}
	/* A filter and a ruleset for each profile of the server's tools; a
	 * call of any other profile is refused before a child is made. */
	for (i = 0; i < sb->nprof; i++) {
		if ((rc = tc_seccomp_build(sb->prof[i].profile,
		    seccomp_opts(sb, &sb->prof[i]), &sb->prof[i].seccomp,
		    d)) != 0) {
			tc_sandbox_release(sb);
			return rc == TC_EINVAL ? TC_EINVAL : TC_ENOTSUP;
		}
	}
	for (i = 0; i < sb->nprof; i++)
		prepare_zygote(sb, &sb->prof[i]);
	if (sb->degraded & TC_DEGRADE_LANDLOCK)
		return 0;
	for (i = 0; i < sb->nprof; i++) {
		sb->prof[i].ruleset = tc_landlock_build(pol,
		    sb->prof[i].profile, sb->landlock_abi, d);
		if (sb->prof[i].ruleset < 0) {
			tc_sandbox_release(sb);
			return TC_ESYS;
		}
	}
	return 0;
}

int
tc_sandbox_reroot(struct tc_sandbox *sb, struct tc_diag *d)
{
	int fresh[TC_PROFILES_MAX], rc = 0, pooling = sb->pooling;
	unsigned pool = sb->pool;
	size_t i;

	/* The spawner and the ready children hold the old roots. */
	tc_sandbox_stop(sb);
	/* All new rulesets or none: a half-replaced set would confine some
	 * profiles to the old roots and some to the new. */
	for (i = 0; i < sb->nprof; i++)
		fresh[i] = -1;
	for (i = 0; i < sb->nprof && rc == 0; i++) {
		if (sb->prof[i].ruleset < 0)
			continue;
		fresh[i] = tc_landlock_build(sb->policy, sb->prof[i].profile,
		    sb->landlock_abi, d);
		if (fresh[i] < 0)
			rc = TC_ESYS;
	}
	for (i = 0; i < sb->nprof; i++) {
		if (fresh[i] < 0)
			continue;
		if (rc == 0) {
			close(sb->prof[i].ruleset);
			sb->prof[i].ruleset = fresh[i];
		} else
			close(fresh[i]);
	}
	if (rc == 0 && pooling)
		tc_sandbox_prefork(sb, pool);
	return rc;
}

void
tc_sandbox_release(struct tc_sandbox *sb)
{
	size_t i;

	tc_sandbox_stop(sb);
	tc_pids_close(&sb->pids);
	if (sb->devnull >= 0)
		close(sb->devnull);
	sb->devnull = -1;
	for (i = 0; i < sb->nprof; i++) {
		if (sb->prof[i].ruleset >= 0)
			close(sb->prof[i].ruleset);
		sb->prof[i].ruleset = -1;
		tc_seccomp_release(&sb->prof[i].seccomp);
		tc_seccomp_release(&sb->prof[i].zygote_filter);
		tc_seccomp_release(&sb->prof[i].fork_filter);
	}
}

/* In tc_sandbox_reach()'s child: what calls cannot do in each root,
 * one byte a root, on |fd|. */
static void
reach_child(const struct tc_policy *pol, int fd, pid_t parent)
{
	unsigned char what[TC_ROOTS_MAX];
	const struct tc_root *r;
	size_t i;

	if ((pol->run_as && tc_switch_user(pol->run_uid, pol->run_gid,
	    parent) != 0) || tc_clear_capabilities() != 0)
		_exit(TC_CHILD_EXIT_USER);
	for (i = 0; i < pol->nroots && i < TC_ROOTS_MAX; i++) {
		r = &pol->roots[i];
		what[i] = 0;
		if (faccessat(r->fd, ".", R_OK | X_OK, AT_EACCESS) != 0)
			what[i] |= TC_REACH_NOREAD;
		if ((r->flags & TC_ROOT_WRITE) &&
		    faccessat(r->fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
			what[i] |= TC_REACH_NOWRITE;
	}
	_exit(write(fd, what, i) == (ssize_t)i ? 0 : TC_CHILD_EXIT_RESULT);
}

int
tc_sandbox_reach(const struct tc_policy *pol, unsigned char *out,
    struct tc_diag *d)
{
	unsigned char what[TC_ROOTS_MAX];
	size_t n = pol->nroots, got = 0;
	pid_t parent = getpid(), pid;
	int p[2], status = 0, err;
	const char *why;
	ssize_t k;

	memset(out, 0, TC_ROOTS_MAX);
	if (n == 0)
		return 0;
	if (n > TC_ROOTS_MAX)
		n = TC_ROOTS_MAX;
	if (pipe2(p, O_CLOEXEC) != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot tell whether calls "
		    "can read the directories served: pipe");
	if ((pid = fork()) < 0) {
		err = errno;
		close(p[0]);
		close(p[1]);
		errno = err;
		return tc_diag_errno(d, TC_ESYS, "cannot tell whether calls "
		    "can read the directories served: fork");
	}
	if (pid == 0) {
		close(p[0]);
		reach_child(pol, p[1], parent);
	}
	close(p[1]);
	while (got < n) {
		k = read(p[0], what + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	if (got != n) {
		why = WIFEXITED(status) ?
		    tc_child_exit_str(WEXITSTATUS(status)) : NULL;
		return tc_diag(d, TC_ESYS, "cannot tell whether calls can read "
		    "the directories served: the child that tries %s",
		    why != NULL ? why : "failed");
	}
	memcpy(out, what, n);
	return 0;
}
