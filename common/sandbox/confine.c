/*
 * confine.c: the child's confinement steps, in the order that
 * tc_sandbox_confine() takes them, one STEP a line; the exit codes that
 * say which one failed; and the lookups of what the sandbox prepared for
 * a profile, which a child needs before it runs.  It calls only the
 * kernel layers (landlock.c, seccomp.c).
 */
#include <errno.h>
#include <grp.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "policy/policy.h"
#include "sandbox/sandbox-int.h"
#include "sandbox/sig.h"

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
	struct sigaction now;
	sigset_t none;
	int sig;

	/* The server blocks the signals it reads from a signalfd and ignores
	 * SIGPIPE, and may have been started with others ignored; a child
	 * ignores none (an ignored signal would stay ignored across exec,
	 * in the programs a child may run, which count on this).  Handlers
	 * (a sanitizer's) stay: exec resets them.  glibc's own two, which
	 * its sigaction() cannot read, are set to the default. */
	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP ||
		    (sigaction(sig, NULL, &now) == 0 &&
		    now.sa_handler != SIG_IGN))
			continue;
		if (tc_signal_default(sig) != 0)
			return -1;
	}
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
tc_lock_privileges(int stays_root)
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
		return stays_root && geteuid() == 0 ? -1 : 0;
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
int
tc_switch_user(uid_t uid, gid_t gid, pid_t parent)
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
int
tc_clear_capabilities(void)
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

static int
set_no_new_privs(void)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

#define STEP(call, code)	do { if ((call) != 0) return (code); } while (0)

int
tc_sandbox_as_calls(const struct tc_policy *pol, pid_t parent)
{
	if (pol->run_as && tc_switch_user(pol->run_uid, pol->run_gid,
	    parent) != 0)
		return -1;
	return tc_clear_capabilities();
}

/* tc_sandbox_confine(), with |zygote| the zygote's filter in place of
 * the profile's. */
static int
confine(const struct tc_sandbox *sb, const struct tc_profile *profile,
    const int *keep, size_t nkeep, int zygote)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, profile);
	struct tc_limits lim = sb->tool_rlimits ? sb->rlim :
	    sb->policy->limits;

	/* A zygote lives for many calls, and its forks are its CPU: no
	 * CPU limit on it; each of its children sets the call's. */
	if (zygote)
		lim.cpu_sec = RLIM_INFINITY;
	/* The order matters: each step relies on the ones before it, and
	 * the later steps remove what the earlier ones need.  Namespaces are
	 * not a step here: a PID namespace can only be entered by a new
	 * process, so the child is created in its namespaces (clone3() in
	 * ns.c) and its user namespace's maps are written before this
	 * runs.  A profile the sandbox did not prepare has no filter and no
	 * ruleset to confine it: nothing runs. */
	STEP(sp == NULL, TC_CHILD_EXIT_PROFILE);
	STEP(new_session(sb->server_pid), TC_CHILD_EXIT_SESSION);
	STEP(reset_signals(), TC_CHILD_EXIT_SESSION);
	STEP(set_stdio(sb->devnull), TC_CHILD_EXIT_FDS);
	STEP(close_fds(sb, sp, keep, nkeep), TC_CHILD_EXIT_FDS);
	STEP(scrub_environment(), TC_CHILD_EXIT_ENV);
	if (TC_LAYER_ON(TC_LAYER_RLIMITS))
		STEP(tc_set_rlimits(&lim, sp->ns & CLONE_NEWUSER),
		    TC_CHILD_EXIT_RLIMIT);
	/* The bounding set and securebits need CAP_SETPCAP, and the user
	 * switch CAP_SETUID and CAP_SETGID: both before the capabilities
	 * go (securebits keep the switch from clearing them). */
	if (TC_LAYER_ON(TC_LAYER_CAPS))
		STEP(tc_lock_privileges(!sb->policy->run_as),
		    TC_CHILD_EXIT_CAPS);
	if (sb->policy->run_as)
		STEP(tc_switch_user(sb->policy->run_uid, sb->policy->run_gid,
		    sb->server_pid), TC_CHILD_EXIT_USER);
	if (TC_LAYER_ON(TC_LAYER_CAPS))
		STEP(tc_clear_capabilities(), TC_CHILD_EXIT_CAPS);
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
		STEP(tc_seccomp_apply(zygote ? &sp->zygote_filter :
		    &sp->seccomp), TC_CHILD_EXIT_SECCOMP);
	return 0;
}

int
tc_sandbox_confine(const struct tc_sandbox *sb,
    const struct tc_profile *profile, const int *keep, size_t nkeep)
{
	return confine(sb, profile, keep, nkeep, 0);
}

int
tc_sandbox_confine_zygote(const struct tc_sandbox *sb,
    const struct tc_sandbox_profile *sp, const int *keep, size_t nkeep)
{
	/* Without its filter a zygote would be confined as a child is,
	 * and could fork no child: refused, never half made. */
	if (!tc_sandbox_zygote(sp))
		return TC_CHILD_EXIT_SECCOMP;
	return confine(sb, sp->profile, keep, nkeep, 1);
}

int
tc_arm_pdeathsig(pid_t parent)
{
	return arm_pdeathsig(parent);
}
