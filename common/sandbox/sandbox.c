/*
 * sandbox.c: what the kernel offers, probed once, each profile of the
 * server's tools prepared once, and the child's confinement sequence
 * (tc_sandbox_confine()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"
#include "base/text.h"

extern char **environ;

#ifdef TC_BENCH
unsigned tc_bench_off;
#endif

const char *
tc_child_exit_str(int code)
{
	switch (code) {
#define TC_CHILD_EXIT_STR(name, num, text) case (num): return text;
	TC_CHILD_EXITS(TC_CHILD_EXIT_STR)
#undef TC_CHILD_EXIT_STR
	}
	return NULL;
}

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

const struct tc_sandbox_profile *
tc_sandbox_find(const struct tc_sandbox *sb, const struct tc_profile *profile)
{
	size_t i;

	for (i = 0; i < sb->nprof; i++)
		if (sb->prof[i].profile == profile)
			return &sb->prof[i];
	return NULL;
}

unsigned long
tc_sandbox_ns(const struct tc_sandbox *sb, const struct tc_profile *profile)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, profile);

	return sp != NULL ? sp->ns : 0;
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
		if ((want = sp->profile->ns & TC_NS_ALL) == 0)
			continue;
		for (k = 0; k < i; k++)
			if ((sb->prof[k].profile->ns & TC_NS_ALL) == want)
				break;
		sp->ns = k < i ? sb->prof[k].ns : tc_ns_probe(want);
		if (sp->ns != want)
			sb->degraded |= TC_DEGRADE_NAMESPACES;
		sb->ns_flags |= sp->ns;
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

unsigned
tc_sandbox_ready(const struct tc_sandbox *sb, const struct tc_profile *profile)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, profile);
	unsigned n = 0;
	size_t k;

	for (k = 0; sp != NULL && k < TC_POOL_MAX; k++)
		n += sp->pool[k].pid > 0;
	return n;
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
	if (sb->devnull >= 0)
		close(sb->devnull);
	sb->devnull = -1;
	for (i = 0; i < sb->nprof; i++) {
		if (sb->prof[i].ruleset >= 0)
			close(sb->prof[i].ruleset);
		sb->prof[i].ruleset = -1;
		tc_seccomp_release(&sb->prof[i].seccomp);
	}
}

/* --- The child's confinement steps --- */

/*
 * Dies with the parent: SIGKILL when it exits.  The parent may have died
 * before the signal was armed, so check it is still there.  In a new PID
 * namespace (we are its pid 1) the parent is outside it and getppid()
 * says 0; there the request pipe tells: it reads EOF when the parent is
 * gone.
 */
static int
arm_pdeathsig(pid_t parent)
{
	pid_t ppid;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
		return -1;
	ppid = getppid();
	if (ppid != parent && !(ppid == 0 && getpid() == 1))
		return -1;
	return 0;
}

static int
new_session(pid_t parent)
{
	/* A new session has no controlling terminal, so TIOCSTI cannot
	 * reach the user's; it also makes this child a process group that
	 * the parent kills as a whole. */
	if (setsid() < 0)
		return -1;
	return arm_pdeathsig(parent);
}

static int
reset_signals(void)
{
	sigset_t none;

	/* The server blocks the signals it reads from a signalfd and ignores
	 * SIGPIPE, and changes no other disposition; a child starts with the
	 * defaults (an ignored signal would stay ignored across exec). */
	if (signal(SIGPIPE, SIG_DFL) == SIG_ERR)
		return -1;
	sigemptyset(&none);
	return sigprocmask(SIG_SETMASK, &none, NULL);
}

static int
set_stdio(int devnull)
{
	if (dup2(devnull, STDIN_FILENO) < 0 || dup2(devnull, STDOUT_FILENO) < 0)
		return -1;
#ifndef TC_SANITIZE
	/* Not the server's stderr either, which is the client's log: a
	 * child has nothing to say there that its result does not carry.
	 * (Sanitizer builds keep it, for their reports.) */
	if (dup2(devnull, STDERR_FILENO) < 0)
		return -1;
#endif
	return 0;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int
tc_close_fds_except(const int *keep, size_t nkeep)
{
	int sorted[TC_KEEP_MAX];
	unsigned lo = 3;
	size_t i;

	if (nkeep > TC_KEEP_MAX)
		return -1;
	memcpy(sorted, keep, nkeep * sizeof(*keep));
	qsort(sorted, nkeep, sizeof(*sorted), cmp_int);
	for (i = 0; i < nkeep; i++) {
		if (sorted[i] < 3)
			return -1;
		if ((unsigned)sorted[i] > lo &&
		    close_range(lo, (unsigned)sorted[i] - 1, 0) != 0)
			return -1;
		lo = (unsigned)sorted[i] + 1;
	}
	return close_range(lo, ~0U, 0);
}

/*
 * Closes every fd above 2 but those in |keep|, |sp|'s ruleset and the
 * root fds its profile keeps.  Returns 0 or -1.
 */
static int
close_fds(const struct tc_sandbox *sb, const struct tc_sandbox_profile *sp,
    const int *keep, size_t nkeep)
{
	const struct tc_policy *pol = sb->policy;
	enum tc_keep_roots roots = sp->profile->roots;
	int all[TC_KEEP_MAX];
	size_t n, i;

	if (nkeep > TC_KEEP_MAX - 1)
		return -1;
	memcpy(all, keep, nkeep * sizeof(*keep));
	n = nkeep;
	if (sp->ruleset >= 0)
		all[n++] = sp->ruleset;
	for (i = 0; i < pol->nroots && roots != TC_KEEP_ROOTS_NONE; i++) {
		if (roots == TC_KEEP_ROOTS_READONLY &&
		    (pol->roots[i].flags & TC_ROOT_WRITE))
			continue;
		if (n == TC_KEEP_MAX)
			return -1;
		all[n++] = pol->roots[i].fd;
	}
	return tc_close_fds_except(all, n);
}

static int
scrub_environment(void)
{
	/* Nothing of the server's environment passes through: no
	 * LD_PRELOAD, no secrets. */
	if (clearenv() != 0)
		return -1;
	if (setenv("PATH", "/usr/bin:/bin", 1) != 0 ||
	    setenv("LC_ALL", "C.UTF-8", 1) != 0)
		return -1;
	return 0;
}

static int
limit(int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard };

	return setrlimit(resource, &rl);
}

/*
 * Sets the call's resource limits.  RLIMIT_NPROC counts a real uid's
 * processes everywhere, so it is set only in a user namespace of the
 * call's own, where it counts that call's processes (uid 0 is exempt from
 * it even there: see docs/confinement.md's threat model).
 */
int
tc_set_rlimits(const struct tc_limits *l, int own_userns)
{
	/* The hard limit one second later turns SIGXCPU into SIGKILL. */
	if (limit(RLIMIT_CPU, l->cpu_sec, l->cpu_sec == RLIM_INFINITY ?
	    RLIM_INFINITY : l->cpu_sec + 1) != 0 ||
	    limit(RLIMIT_FSIZE, l->fsize_bytes, l->fsize_bytes) != 0 ||
	    limit(RLIMIT_NOFILE, l->nofile, l->nofile) != 0 ||
	    limit(RLIMIT_CORE, 0, 0) != 0)
		return -1;
	if (own_userns && limit(RLIMIT_NPROC, l->nproc, l->nproc) != 0)
		return -1;
#ifndef TC_SANITIZE
	/* ASan reserves terabytes of address space up front. */
	if (limit(RLIMIT_AS, l->mem_bytes, l->mem_bytes) != 0)
		return -1;
#endif
	return 0;
}

#define TC_SECUREBITS	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |		\
			 SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED | \
			 SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | \
			 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

int
tc_lock_privileges(void)
{
	static int locked;
	cap_flag_value_t v;
	cap_value_t c;
	cap_t now;
	int have_setpcap = 0;

	/* Done already, here or in the spawner this child was forked from
	 * (the flag is inherited with its memory).  A new user namespace
	 * starts with the securebits and the bounding set reset, so its
	 * child does it again. */
	if (locked && prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) == TC_SECUREBITS)
		return 0;
	if ((now = cap_get_proc()) == NULL)
		return -1;
	if (cap_get_flag(now, CAP_SETPCAP, CAP_EFFECTIVE, &v) == 0)
		have_setpcap = v == CAP_SET;
	cap_free(now);
	if (!have_setpcap)
		return 0;
	if (prctl(PR_SET_SECUREBITS, TC_SECUREBITS) != 0)
		return -1;
	for (c = 0; c < (cap_value_t)cap_max_bits(); c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL)
			return -1;
	locked = 1;
	return 0;
}

/*
 * Becomes |uid|:|gid| with no supplementary groups, for good: real,
 * effective and saved ids, then checks them.
 */
static int
switch_user(uid_t uid, gid_t gid, pid_t parent)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 ||
	    setresuid(uid, uid, uid) != 0)
		return -1;
	if (getresuid(&r, &e, &s) != 0 || r != uid || e != uid || s != uid ||
	    getresgid(&rg, &eg, &sg) != 0 || rg != gid || eg != gid ||
	    sg != gid || getgroups(0, NULL) != 0)
		return -1;
	/* The kernel disarms the parent-death signal when the ids change:
	 * arm it again, and check the parent did not die meanwhile. */
	return arm_pdeathsig(parent);
}

/*
 * Clears the ambient, inheritable, permitted and effective sets, reads
 * them back, and fails unless all are empty.
 */
static int
clear_capabilities(void)
{
	cap_t none, now;
	int rc;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 &&
	    errno != EINVAL)
		return -1;
	if ((none = cap_init()) == NULL)
		return -1;
	rc = cap_set_proc(none);
	if (rc == 0 && (now = cap_get_proc()) != NULL) {
		rc = cap_compare(now, none) == 0 ? 0 : -1;
		cap_free(now);
	} else
		rc = -1;
	cap_free(none);
	return rc;
}

/* In tc_sandbox_reach()'s child: what calls cannot do in each root,
 * one byte a root, on |fd|. */
static void
reach_child(const struct tc_policy *pol, int fd, pid_t parent)
{
	unsigned char what[TC_ROOTS_MAX];
	const struct tc_root *r;
	size_t i;

	if ((pol->run_as && switch_user(pol->run_uid, pol->run_gid,
	    parent) != 0) || clear_capabilities() != 0)
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

static int
set_no_new_privs(void)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

#define STEP(call, code)	do { if ((call) != 0) return (code); } while (0)

int
tc_sandbox_confine(const struct tc_sandbox *sb,
    const struct tc_profile *profile, const int *keep, size_t nkeep)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, profile);

	/* The order matters: each step relies on the ones before it, and
	 * the later steps remove what the earlier ones need.  Namespaces are
	 * not a step here: a PID namespace can only be entered by a new
	 * process, so the child is created in its namespaces (clone3() in
	 * spawn.c) and its user namespace's maps are written before this
	 * runs.  A profile the sandbox did not prepare has no filter and no
	 * ruleset to confine it: nothing runs. */
	STEP(sp == NULL, TC_CHILD_EXIT_PROFILE);
	STEP(new_session(sb->server_pid), TC_CHILD_EXIT_SESSION);
	STEP(reset_signals(), TC_CHILD_EXIT_SESSION);
	STEP(set_stdio(sb->devnull), TC_CHILD_EXIT_FDS);
	STEP(close_fds(sb, sp, keep, nkeep), TC_CHILD_EXIT_FDS);
	STEP(scrub_environment(), TC_CHILD_EXIT_ENV);
	if (TC_LAYER_ON(TC_LAYER_RLIMITS))
		STEP(tc_set_rlimits(sb->tool_rlimits ? &sb->rlim :
		    &sb->policy->limits, sp->ns & CLONE_NEWUSER),
		    TC_CHILD_EXIT_RLIMIT);
	/* The bounding set and securebits need CAP_SETPCAP, and the user
	 * switch CAP_SETUID and CAP_SETGID: both before the capabilities
	 * go (securebits keep the switch from clearing them). */
	if (TC_LAYER_ON(TC_LAYER_CAPS))
		STEP(tc_lock_privileges(), TC_CHILD_EXIT_CAPS);
	if (sb->policy->run_as)
		STEP(switch_user(sb->policy->run_uid, sb->policy->run_gid,
		    sb->server_pid), TC_CHILD_EXIT_USER);
	if (TC_LAYER_ON(TC_LAYER_CAPS))
		STEP(clear_capabilities(), TC_CHILD_EXIT_CAPS);
	/* no_new_privs before Landlock and seccomp, which both need it. */
	STEP(set_no_new_privs(), TC_CHILD_EXIT_NNP);
	/* The kernel's path whitelist, behind every openat2() the handler
	 * makes.  Skipped only when the user accepted running without it. */
	if (!(sb->degraded & TC_DEGRADE_LANDLOCK) &&
	    TC_LAYER_ON(TC_LAYER_LANDLOCK))
		STEP(tc_landlock_apply(sp->ruleset), TC_CHILD_EXIT_LANDLOCK);
	/* seccomp last: it removes the system calls the steps above use. */
	if (!(sb->degraded & TC_DEGRADE_SECCOMP) &&
	    TC_LAYER_ON(TC_LAYER_SECCOMP))
		STEP(tc_seccomp_apply(&sp->seccomp), TC_CHILD_EXIT_SECCOMP);
	return 0;
}
