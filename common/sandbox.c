/*
 * sandbox.c: the fork-per-call runner (parent side) and the child's
 * confinement sequence.
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

#include "log.h"
#include "path.h"
#include "policy.h"
#include "sandbox-int.h"
#include "text.h"

extern char **environ;

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


int64_t
tc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
 * What the other layers confine for |profile|'s children, which its
 * seccomp filter relies on (TC_SECCOMP_*).
 */
static unsigned
seccomp_opts(const struct tc_sandbox *sb, enum tc_profile profile)
{
	unsigned opts = 0;
	int landlock = !(sb->degraded & TC_DEGRADE_LANDLOCK);

	if (landlock)
		opts |= TC_SECCOMP_LANDLOCK;
	/* Landlock ABI 6 scopes signals to the sandbox's own domain. */
	if ((tc_sandbox_ns(sb, profile) & CLONE_NEWPID) ||
	    (landlock && sb->landlock_abi >= 6))
		opts |= TC_SECCOMP_SIGNALS;
	return opts;
}

int
tc_sandbox_init(struct tc_sandbox *sb, const struct tc_policy *pol,
    struct tc_diag *d)
{
	return tc_sandbox_init_profiles(sb, pol, (1u << TC_PROFILE_COUNT) - 1,
	    d);
}

int
tc_sandbox_init_profiles(struct tc_sandbox *sb, const struct tc_policy *pol,
    unsigned profiles, struct tc_diag *d)
{
	int i;

	memset(sb, 0, sizeof(*sb));
	for (i = 0; i < TC_PROFILE_COUNT; i++) {
		sb->ruleset[i] = -1;
		tc_standby_clear(&sb->standby[i]);
	}
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

	/* Only programs run in namespaces of their own, and the probe
	 * (a clone and its id maps) is the slowest step of a start. */
	if ((profiles & 1u << TC_PROFILE_SHELL_EXEC) &&
	    (sb->ns_flags = tc_ns_probe()) != TC_NS_ALL)
		sb->degraded |= TC_DEGRADE_NAMESPACES;
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
	/* Filters and rulesets for the profiles the server's tools use; a
	 * call of any other profile fails to confine itself (an empty
	 * filter and no ruleset are refused), never runs unconfined. */
	for (i = 0; i < TC_PROFILE_COUNT; i++) {
		if (!(profiles & 1u << i))
			continue;
		if (tc_seccomp_build((enum tc_profile)i, seccomp_opts(sb,
		    (enum tc_profile)i), &sb->seccomp[i], d) != 0) {
			tc_sandbox_release(sb);
			return TC_ENOTSUP;
		}
	}
	if (sb->degraded & TC_DEGRADE_LANDLOCK)
		return 0;
	for (i = 0; i < TC_PROFILE_COUNT; i++) {
		if (!(profiles & 1u << i))
			continue;
		sb->ruleset[i] = tc_landlock_build(pol, (enum tc_profile)i,
		    sb->landlock_abi, d);
		if (sb->ruleset[i] < 0) {
			tc_sandbox_release(sb);
			return TC_ESYS;
		}
	}
	return 0;
}

int
tc_sandbox_reroot(struct tc_sandbox *sb, struct tc_diag *d)
{
	int fresh[TC_PROFILE_COUNT];
	unsigned warm = sb->warm;
	int i, rc = 0;

	/* The spawner and the standby children hold the old roots. */
	tc_sandbox_stop(sb);
	/* All new rulesets or none: a half-replaced set would confine some
	 * profiles to the old roots and some to the new. */
	for (i = 0; i < TC_PROFILE_COUNT; i++)
		fresh[i] = -1;
	for (i = 0; i < TC_PROFILE_COUNT && rc == 0; i++) {
		if (sb->ruleset[i] < 0)
			continue;
		fresh[i] = tc_landlock_build(sb->policy, (enum tc_profile)i,
		    sb->landlock_abi, d);
		if (fresh[i] < 0)
			rc = TC_ESYS;
	}
	for (i = 0; i < TC_PROFILE_COUNT; i++) {
		if (fresh[i] < 0)
			continue;
		if (rc == 0) {
			close(sb->ruleset[i]);
			sb->ruleset[i] = fresh[i];
		} else
			close(fresh[i]);
	}
	if (rc == 0)
		tc_sandbox_prefork(sb, warm);
	return rc;
}

void
tc_sandbox_release(struct tc_sandbox *sb)
{
	int i;

	tc_sandbox_stop(sb);
	if (sb->devnull >= 0)
		close(sb->devnull);
	sb->devnull = -1;
	for (i = 0; i < TC_PROFILE_COUNT; i++) {
		if (sb->ruleset[i] >= 0)
			close(sb->ruleset[i]);
		sb->ruleset[i] = -1;
		tc_seccomp_release(&sb->seccomp[i]);
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
static int
set_rlimits(const struct tc_limits *l, int own_userns)
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
tc_sandbox_confine(const struct tc_sandbox *sb, enum tc_profile profile,
    const int *keep, size_t nkeep)
{
	/* The order matters: each step relies on the ones before it, and
	 * the later steps remove what the earlier ones need.  Namespaces are
	 * not a step here: a PID namespace can only be entered by a new
	 * process, so the child is created in its namespaces (clone3() in
	 * sandbox-spawn.c) and its user namespace's maps are written before
	 * this runs. */
	STEP(new_session(sb->server_pid), TC_CHILD_EXIT_SESSION);
	STEP(reset_signals(), TC_CHILD_EXIT_SESSION);
	STEP(set_stdio(sb->devnull), TC_CHILD_EXIT_FDS);
	STEP(tc_close_fds_except(keep, nkeep), TC_CHILD_EXIT_FDS);
	STEP(scrub_environment(), TC_CHILD_EXIT_ENV);
	if (!(sb->bench_off & TC_LAYER_RLIMITS))
		STEP(set_rlimits(sb->tool_rlimits ? &sb->rlim :
		    &sb->policy->limits, tc_sandbox_ns(sb,
		    profile) & CLONE_NEWUSER), TC_CHILD_EXIT_RLIMIT);
	/* The bounding set and securebits need CAP_SETPCAP, and the user
	 * switch CAP_SETUID and CAP_SETGID: both before the capabilities
	 * go (securebits keep the switch from clearing them). */
	if (!(sb->bench_off & TC_LAYER_CAPS))
		STEP(tc_lock_privileges(), TC_CHILD_EXIT_CAPS);
	if (sb->policy->run_as)
		STEP(switch_user(sb->policy->run_uid, sb->policy->run_gid,
		    sb->server_pid), TC_CHILD_EXIT_USER);
	if (!(sb->bench_off & TC_LAYER_CAPS))
		STEP(clear_capabilities(), TC_CHILD_EXIT_CAPS);
	/* no_new_privs before Landlock and seccomp, which both need it. */
	STEP(set_no_new_privs(), TC_CHILD_EXIT_NNP);
	/* The kernel's path whitelist, behind every openat2() the handler
	 * makes.  Skipped only when the user accepted running without it. */
	if (!(sb->degraded & TC_DEGRADE_LANDLOCK) &&
	    !(sb->bench_off & TC_LAYER_LANDLOCK))
		STEP(tc_landlock_apply(sb->ruleset[profile]),
		    TC_CHILD_EXIT_LANDLOCK);
	/* seccomp last: it removes the system calls the steps above use. */
	if (!(sb->degraded & TC_DEGRADE_SECCOMP) &&
	    !(sb->bench_off & TC_LAYER_SECCOMP))
		STEP(tc_seccomp_apply(&sb->seccomp[profile]),
		    TC_CHILD_EXIT_SECCOMP);
	return 0;
}

/* --- Frames --- */

static void
put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t
get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static int
write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, s, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

void
tc_stream_grow(int fd, int bytes)
{
	/* Node's child_process gives its children sockets, not pipes. */
	if (fcntl(fd, F_SETPIPE_SZ, bytes) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes,
		    sizeof(bytes));
}

int
tc_frame_write(int fd, enum tc_frame_type type, const char *p, size_t n)
{
	unsigned char hdr[TC_FRAME_HDR];
	struct iovec iov[2];
	size_t off = 0, total = TC_FRAME_HDR + n;
	ssize_t w;

	if (n > UINT32_MAX)
		return TC_ETOOBIG;
	put_u32(hdr, (uint32_t)type);
	put_u32(hdr + 4, (uint32_t)n);
	/* Header and body in one write where the pipe takes it: the
	 * server wakes once for the frame, not once for each part. */
	while (off < total) {
		int nv = 0;

		if (off < TC_FRAME_HDR) {
			iov[nv].iov_base = hdr + off;
			iov[nv++].iov_len = TC_FRAME_HDR - off;
		}
		iov[nv].iov_base = (void *)(uintptr_t)(p + (off <
		    TC_FRAME_HDR ? 0 : off - TC_FRAME_HDR));
		iov[nv++].iov_len = off < TC_FRAME_HDR ? n :
		    total - off;
		if ((w = writev(fd, iov, nv)) < 0) {
			if (errno == EINTR)
				continue;
			return TC_ESYS;
		}
		off += (size_t)w;
	}
	return 0;
}

/* --- The child --- */

static int
read_all(int fd, void *p, size_t n)
{
	char *s = p;
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, s, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			return s == p ? 0 : -1;	/* EOF: clean only at 0 */
		s += r;
		n -= (size_t)r;
	}
	return 1;
}

/*
 * What the parent sends: the tool and the policy as addresses, then the
 * arguments as JSON text.  The child is a fork of the parent made after
 * every tool table and the policy existed, and neither ever moves, so an
 * address means the same thing on both sides of the pipe.
 */
/*
 * A call as the parent sends it: this head, then the pins (each a
 * struct pin_wire and its rel), then the unconsented rules (each a
 * uint32_t), |ctxlen| bytes in all, then the arguments as JSON.  Parent
 * and child are one program, forked: the pointers and the layout are
 * the same on both sides.
 */
struct call_head {
	const struct tc_tool	*tool;
	const struct tc_policy	*policy;
	uint32_t		 npins;
	uint32_t		 nunconsented;
	uint32_t		 ctxlen;
	int32_t			 pinned;
};

struct pin_wire {
	uint64_t		 dev, ino, edev, eino;
	uint32_t		 root, kind, missing, entry, rellen;
};

/*
 * Walks the path every call takes once, before the call: the stack and the
 * allocator's arena, parsing arguments, building and printing a result.
 * The page faults that costs (copy-on-write for data, first use for code)
 * are paid while the child waits rather than on the call's path.
 */
static void
prefault(void)
{
	volatile char stack[32 << 10];
	struct tc_result res;
	struct tc_buf out;
	char *heap;
	size_t i;

	for (i = 0; i < sizeof(stack); i += 4096)
		stack[i] = 0;
	if ((heap = malloc(64 << 10)) != NULL) {
		memset(heap, 0, 64 << 10);
		free(heap);
	}
	cJSON_Delete(cJSON_Parse("{\"path\":\"a\",\"n\":[1,true,null]}"));
	tc_result_init(&res);
	tc_result_printf(&res, "%s %d", "warm", 1);
	tc_buf_init(&out, 1u << 20);
	(void)tc_result_serialize(&res, &out);
	tc_buf_release(&out);
	tc_result_release(&res);
}

/*
 * Reads the pins and the unconsented rules of |head| from |p| (|len|
 * bytes) into |call|.  Returns 0, or -1 if they do not fit.
 */
static int
read_context(const struct call_head *head, const char *p, size_t len,
    struct tc_call *call)
{
	struct tc_pin *pins = NULL;
	size_t *un = NULL;
	struct pin_wire w;
	uint32_t i, k;

	if (head->npins > 0 && (pins = calloc(head->npins,
	    sizeof(*pins))) == NULL)
		return -1;
	for (i = 0; i < head->npins; i++) {
		if (len < sizeof(w))
			return -1;
		memcpy(&w, p, sizeof(w));
		p += sizeof(w);
		len -= sizeof(w);
		if (len < w.rellen || (pins[i].rel = strndup(p,
		    w.rellen)) == NULL)
			return -1;
		p += w.rellen;
		len -= w.rellen;
		pins[i].root = w.root;
		pins[i].kind = w.kind;
		pins[i].missing = w.missing;
		pins[i].dev = w.dev;
		pins[i].ino = w.ino;
		pins[i].entry = (int)w.entry;
		pins[i].edev = w.edev;
		pins[i].eino = w.eino;
	}
	if (head->nunconsented > 0 && (un = calloc(head->nunconsented,
	    sizeof(*un))) == NULL)
		return -1;
	for (i = 0; i < head->nunconsented; i++) {
		if (len < sizeof(k))
			return -1;
		memcpy(&k, p, sizeof(k));
		p += sizeof(k);
		len -= sizeof(k);
		if (k >= head->policy->nconsent)
			return -1;
		un[i] = k;
	}
	if (len != 0)
		return -1;
	call->pins = pins;
	call->npins = head->npins;
	call->pinned = head->pinned != 0;
	call->unconsented = un;
	call->nunconsented = head->nunconsented;
	return 0;
}

/*
 * Reads the call from |rfd| into |call| (arguments parsed into |*args|).
 * Exits quietly when the parent closes the pipe without sending one: the
 * standby is being retired.
 */
static void
read_call(int rfd, enum tc_profile profile, struct tc_call *call,
    cJSON **args)
{
	unsigned char hdr[TC_FRAME_HDR];
	struct call_head head;
	uint32_t len;
	char *text;
	int rc;

	if ((rc = read_all(rfd, hdr, sizeof(hdr))) == 0)
		_exit(0);
	if (rc < 0 || get_u32(hdr) != TC_FRAME_CALL ||
	    (len = get_u32(hdr + 4)) < sizeof(head) ||
	    read_all(rfd, &head, sizeof(head)) != 1)
		_exit(TC_CHILD_EXIT_CALL);
	len -= (uint32_t)sizeof(head);
	if (head.ctxlen > len || head.tool == NULL || head.policy == NULL)
		_exit(TC_CHILD_EXIT_CALL);
	if ((text = malloc((size_t)len + 1)) == NULL ||
	    (len > 0 && read_all(rfd, text, len) != 1))
		_exit(TC_CHILD_EXIT_CALL);
	text[len] = '\0';
	close(rfd);
	if (head.tool->profile != profile ||
	    read_context(&head, text, head.ctxlen, call) != 0 ||
	    (*args = cJSON_ParseWithLength(text + head.ctxlen,
	    len - head.ctxlen)) == NULL)
		_exit(TC_CHILD_EXIT_CALL);
	free(text);
	call->tool = head.tool;
	call->policy = head.policy;
	call->args = *args;
}

/*
 * Makes |own| the policy a call's child runs under: |pol|, with the
 * call's pins, and with a deny rule for each pattern of each consent rule
 * the call was not given (marked TC_ACCESS_CONSENT), so that it neither
 * lists, nor walks into, nor opens, nor changes what those cover.
 * Returns 0, or -1 when out of memory.
 */
static int
child_policy(const struct tc_policy *pol, const struct tc_call *call,
    struct tc_policy *own)
{
	const struct tc_consent_rule *r;
	struct tc_deny *deny;
	size_t i, k, n = pol->ndeny;

	*own = *pol;
	own->pins = call->pins;
	own->npins = call->npins;
	own->pinned = call->pinned;
	if (call->nunconsented == 0)
		return 0;
	for (i = 0; i < call->nunconsented; i++)
		n += pol->consent[call->unconsented[i]].npatterns;
	if ((deny = calloc(n, sizeof(*deny))) == NULL)
		return -1;
	if (pol->ndeny > 0)
		memcpy(deny, pol->deny, pol->ndeny * sizeof(*deny));
	n = pol->ndeny;
	for (i = 0; i < call->nunconsented; i++) {
		r = &pol->consent[call->unconsented[i]];
		for (k = 0; k < r->npatterns; k++) {
			deny[n].pattern = r->patterns[k];
			deny[n].access = TC_ACCESS_READ | TC_ACCESS_WRITE |
			    TC_ACCESS_CONSENT;
			deny[n++].line = r->line;
		}
	}
	own->deny = deny;
	own->ndeny = n;
	return 0;
}

/*
 * A child's life: confine itself for |profile|, wait for its one call on
 * |rfd|, run the handler, send the result on |wfd|, exit.
 */
void
tc_child_main(const struct tc_sandbox *sb, enum tc_profile profile, int rfd,
    int wfd)
{
	const struct tc_policy *pol = sb->policy;
	int keep[TC_KEEP_MAX];
	struct tc_result res;
	struct tc_policy own;
	struct tc_call call;
	struct tc_buf out;
	size_t nkeep = 0, i;
	cJSON *args = NULL;
	int rc;

	keep[nkeep++] = rfd;
	keep[nkeep++] = wfd;
	if (sb->ruleset[profile] >= 0)
		keep[nkeep++] = sb->ruleset[profile];
	for (i = 0; i < pol->nroots && nkeep < TC_KEEP_MAX; i++)
		keep[nkeep++] = pol->roots[i].fd;
	if ((rc = tc_sandbox_confine(sb, profile, keep, nkeep)))
		_exit(rc);
	prefault();

	memset(&call, 0, sizeof(call));
	read_call(rfd, profile, &call, &args);
	if (child_policy(call.policy, &call, &own) != 0)
		_exit(TC_CHILD_EXIT_CALL);
	call.policy = &own;
	/* Confined under the highest limits of any tool: down to this
	 * one's (lowering needs no privilege). */
	if (sb->tool_rlimits && !(sb->bench_off & TC_LAYER_RLIMITS)) {
		struct tc_limits l;

		tc_policy_limits(pol, call.tool->name, &l);
		if (set_rlimits(&l, tc_sandbox_ns(sb, profile) &
		    CLONE_NEWUSER) != 0)
			_exit(TC_CHILD_EXIT_RLIMIT);
	}
	tc_result_init(&res);
	rc = call.tool->fn(&call, &res);
	if (rc != 0 && !res.is_error)
		tc_result_error(&res, "%s failed: %s", call.tool->name,
		    tc_strerror(rc));
	else if (res.failed != 0 && !res.is_error)
		tc_result_error(&res, "%s: the answer could not be built "
		    "whole (%s); ask for less at a time", call.tool->name,
		    tc_strerror(res.failed));
	/* The server's own cap on results refuses what is too large; this
	 * one only keeps a runaway buffer in bounds. */
	tc_buf_init(&out, (size_t)UINT32_MAX);
	if (tc_result_serialize(&res, &out) != 0 ||
	    tc_frame_write(wfd, TC_FRAME_RESULT, out.data, out.len) != 0)
		_exit(TC_CHILD_EXIT_RESULT);
	/* _exit: no atexit handlers, no stdio flushing of the parent's
	 * buffers, no sanitizer leak report for memory the exit frees. */
	_exit(0);
}

/* --- The parent --- */

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
tc_run_init(struct tc_run *r)
{
	memset(r, 0, sizeof(*r));
	r->state = TC_RUN_IDLE;
	r->pid = -1;
	r->pidfd = -1;
	r->fd = -1;
	tc_buf_init(&r->in, 0);
}

static void	fail(struct tc_run *r, enum tc_run_outcome why,
		    const char *msg);

/* Sends |call| to the child on |fd|. */
static int
send_call(int fd, const struct tc_call *call)
{
	const size_t pre = TC_FRAME_HDR + sizeof(struct call_head);
	struct call_head head;
	struct pin_wire w;
	struct tc_buf ctx;
	char *args, *msg;
	size_t len, i;
	uint32_t k;
	int rc = 0;

	memset(&head, 0, sizeof(head));
	head.tool = call->tool;
	head.policy = call->policy;
	head.npins = (uint32_t)call->npins;
	head.nunconsented = (uint32_t)call->nunconsented;
	head.pinned = call->pinned;
	tc_buf_init(&ctx, UINT32_MAX / 2);
	for (i = 0; i < call->npins; i++) {
		memset(&w, 0, sizeof(w));
		w.dev = call->pins[i].dev;
		w.ino = call->pins[i].ino;
		w.edev = call->pins[i].edev;
		w.eino = call->pins[i].eino;
		w.root = (uint32_t)call->pins[i].root;
		w.kind = call->pins[i].kind;
		w.missing = call->pins[i].missing;
		w.entry = call->pins[i].entry != 0;
		w.rellen = (uint32_t)strlen(call->pins[i].rel);
		rc |= tc_buf_append(&ctx, &w, sizeof(w));
		rc |= tc_buf_append(&ctx, call->pins[i].rel, w.rellen);
	}
	for (i = 0; i < call->nunconsented; i++) {
		k = (uint32_t)call->unconsented[i];
		rc |= tc_buf_append(&ctx, &k, sizeof(k));
	}
	if (rc != 0) {
		tc_buf_release(&ctx);
		return TC_ENOMEM;
	}
	head.ctxlen = (uint32_t)ctx.len;
	args = call->args != NULL ? cJSON_PrintUnformatted(call->args) :
	    strdup("{}");
	if (args == NULL) {
		tc_buf_release(&ctx);
		return TC_ENOMEM;
	}
	len = strlen(args) + ctx.len;
	if (len > UINT32_MAX - pre || (msg = malloc(pre + len)) == NULL) {
		free(args);
		tc_buf_release(&ctx);
		return len > UINT32_MAX - pre ? TC_ETOOBIG : TC_ENOMEM;
	}
	/* One write: each one wakes the waiting child. */
	put_u32((unsigned char *)msg, TC_FRAME_CALL);
	put_u32((unsigned char *)msg + 4, (uint32_t)(sizeof(head) + len));
	memcpy(msg + TC_FRAME_HDR, &head, sizeof(head));
	if (ctx.len > 0)
		memcpy(msg + pre, ctx.data, ctx.len);
	memcpy(msg + pre + ctx.len, args, len - ctx.len);
	free(args);
	tc_buf_release(&ctx);
	rc = write_all(fd, msg, pre + len) != 0 ? TC_ESYS : 0;
	free(msg);
	return rc;
}

int
tc_run_start(struct tc_run *r, struct tc_sandbox *sb,
    const struct tc_call *call, struct tc_diag *d)
{
	struct tc_limits lim, *l = &lim;
	struct tc_standby st;
	int rc, err;

	tc_policy_limits(sb->policy, call->tool->name, &lim);
	tc_run_init(r);
	r->sb = sb;
	if ((rc = tc_standby_take(sb, call->tool->profile, &st, d)) != 0)
		return rc;
	r->pid = st.pid;
	r->pidfd = st.pidfd;
	r->fd = st.res;
	r->max_result = l->max_result;
	tc_buf_init(&r->in, l->max_result + TC_FRAME_HDR);
	r->start_ms = tc_now_ms();
	r->deadline_ms = r->start_ms + l->deadline_ms;
	r->state = TC_RUN_RUNNING;
	rc = send_call(st.req, call);
	err = errno;
	close(st.req);
	/* A child that died before reading its call (its confinement
	 * failed, say) closed the pipe: its exit status tells why, once it
	 * is reaped.  Any other failure leaves a child waiting for a call
	 * that will not come. */
	if (rc != 0 && !(rc == TC_ESYS && err == EPIPE)) {
		fail(r, TC_OUT_SPAWN, rc == TC_ESYS ? strerror(err) :
		    tc_strerror(rc));
	}
	return 0;
}

int
tc_run_pollfds(const struct tc_run *r, struct pollfd *pfd)
{
	int n = 0;

	if (r->state != TC_RUN_RUNNING)
		return 0;
	if (r->fd >= 0) {
		pfd[n].fd = r->fd;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	if (r->pidfd >= 0) {
		pfd[n].fd = r->pidfd;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	return n;
}

static void
fail(struct tc_run *r, enum tc_run_outcome why, const char *msg)
{
	if (r->outcome == TC_OUT_OK && !r->answered) {
		r->outcome = why;
		tc_text_fmt(r->why, sizeof(r->why), "%s", msg);
	}
	tc_run_kill(r, why);
}

/* Handles every whole frame in the input buffer. */
static void
parse_frames(struct tc_run *r)
{
	const unsigned char *h;
	struct tc_diag d TC_UNINIT;
	uint32_t type, len;
	size_t used = 0;

	tc_diag_init(&d);
	while (r->fd >= 0 && r->in.len - used >= TC_FRAME_HDR) {
		h = (const unsigned char *)r->in.data + used;
		type = get_u32(h);
		len = get_u32(h + 4);
		if (len > r->max_result) {
			fail(r, TC_OUT_TOOBIG, "");
			return;
		}
		if (r->in.len - used - TC_FRAME_HDR < len) {
			/* Room for the whole frame at once, rather than
			 * doubling up to twice its size. */
			(void)tc_buf_reserve(&r->in, TC_FRAME_HDR + len -
			    (r->in.len - used));
			break;
		}
		if (type == TC_FRAME_RESULT && !r->answered) {
			if (tc_result_check((const char *)h + TC_FRAME_HDR,
			    len, &r->info, &d) != 0) {
				fail(r, TC_OUT_BADFRAME, d.msg);
				return;
			}
			/* The result stays where it was read, to be sent on
			 * as it is; anything after it is not looked at (the
			 * child is killed once its result is in). */
			r->answered = 1;
			r->result_bytes = len;
			r->answer = r->in;
			r->answer_off = used + TC_FRAME_HDR;
			r->answer.data[r->answer_off + len] = '\0';
			tc_buf_init(&r->in, 0);
			return;
		} else if (type != TC_FRAME_PROGRESS) {
			fail(r, TC_OUT_BADFRAME, type == TC_FRAME_RESULT ?
			    "a second result" : "a frame of unknown type");
			return;
		}
		used += TC_FRAME_HDR + len;
	}
	if (used > 0) {
		memmove(r->in.data, r->in.data + used, r->in.len - used);
		r->in.len -= used;
	}
}

/* Reads what the child sent; at EOF closes the pipe. */
static void
read_child(struct tc_run *r)
{
	size_t room;
	ssize_t n;

	while (r->fd >= 0 && !r->answered) {
		/* Straight into the frame buffer, which parse_frames() sizes
		 * for a whole frame once its header is in. */
		if (r->in.alloc - r->in.len <= 1) {
			room = r->in.max - r->in.len;
			if (room == 0 || tc_buf_reserve(&r->in, room <
			    (1u << 16) ? room : (1u << 16)) != 0) {
				fail(r, TC_OUT_TOOBIG, "");
				return;
			}
		}
		room = r->in.alloc - r->in.len - 1;
		n = read(r->fd, r->in.data + r->in.len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				close_fd(&r->fd);
			return;
		}
		if (n == 0) {
			close_fd(&r->fd);
			return;
		}
		r->in.len += (size_t)n;
		r->in.data[r->in.len] = '\0';
		parse_frames(r);
	}
}

static void
reap(struct tc_run *r)
{
	pid_t w;

	/* The child is a zombie now, so its pid (and process group id) is
	 * still ours: kill whatever it left in its group before reaping. */
	kill(-r->pid, SIGKILL);
	do
		w = waitpid(r->pid, &r->status, WNOHANG);
	while (w < 0 && errno == EINTR);
	if (w == 0)
		return;			/* not yet: poll again */
	close_fd(&r->pidfd);
	/* Whatever it wrote before exiting is in the pipe now. */
	read_child(r);
	close_fd(&r->fd);
}

/* Decides the outcome of a run that ended without being stopped. */
static void
classify(struct tc_run *r)
{
	if (r->outcome != TC_OUT_OK || r->answered)
		return;
	if (WIFSIGNALED(r->status))
		r->outcome = TC_OUT_CRASHED;
	else if (tc_child_exit_str(WEXITSTATUS(r->status)) != NULL)
		r->outcome = TC_OUT_CONFINE;
	else
		r->outcome = TC_OUT_NORESULT;
}

int
tc_run_step(struct tc_run *r, const struct pollfd *pfd, int npfd,
    int64_t now_ms)
{
	int i;

	if (r->state != TC_RUN_RUNNING)
		return r->state == TC_RUN_DONE;
	for (i = 0; i < npfd; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (pfd[i].fd == r->fd && r->fd >= 0)
			read_child(r);
		else if (pfd[i].fd == r->pidfd && r->pidfd >= 0)
			reap(r);
	}
	/* Answered: kill what is left of the call now; the reaping can
	 * wait. */
	if (r->answered && !r->killed)
		tc_run_kill(r, TC_OUT_OK);
	if (r->pidfd >= 0 && !r->killed && now_ms >= r->deadline_ms)
		fail(r, TC_OUT_TIMEOUT, "");
	if ((r->pidfd < 0 || r->answered) && r->fd < 0) {
		r->state = TC_RUN_DONE;
		classify(r);
	}
	return r->state == TC_RUN_DONE;
}

void
tc_run_kill(struct tc_run *r, enum tc_run_outcome why)
{
	if (r->state != TC_RUN_RUNNING)
		return;
	if (r->outcome == TC_OUT_OK && !r->answered)
		r->outcome = why;
	if (r->pidfd >= 0) {
		/* The group first (the child may have forked), then the child
		 * itself through its pidfd, which cannot hit a reused pid. */
		kill(-r->pid, SIGKILL);
		pidfd_send_signal(r->pidfd, SIGKILL, NULL, 0);
		r->killed = 1;
	}
	/* Nothing it sends from now on matters. */
	close_fd(&r->fd);
}

int
tc_run_wait(struct tc_run *r)
{
	struct pollfd pfd[2];
	int n, timeout;

	while (r->state == TC_RUN_RUNNING) {
		n = tc_run_pollfds(r, pfd);
		timeout = (int)(r->deadline_ms - tc_now_ms());
		if (r->killed)
			timeout = -1;	/* wait for the pidfd */
		else if (timeout < 0)
			timeout = 0;
		if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR)
			tc_run_kill(r, TC_OUT_SPAWN);
		tc_run_step(r, pfd, n, tc_now_ms());
	}
	return 0;
}

int
tc_run_take_answer(struct tc_run *r, struct tc_answer *a)
{
	char msg[512];
	const char *what;
	int sig;

	memset(a, 0, sizeof(*a));
	if (r->answered && (r->outcome == TC_OUT_OK ||
	    r->outcome == TC_OUT_TIMEOUT)) {
		/* A result that arrived whole counts, even if the child
		 * lingered afterwards. */
		a->mem = r->answer.data;
		a->json = a->mem + r->answer_off;
		a->len = r->result_bytes;
		a->info = r->info;
		tc_buf_init(&r->answer, 0);
		return 0;
	}
	switch (r->outcome) {
	case TC_OUT_TIMEOUT:
		tc_text_fmt(msg, sizeof(msg), "the call was stopped at its "
		    "deadline of %lld ms", (long long)(r->deadline_ms -
		    r->start_ms));
		break;
	case TC_OUT_CANCELLED:
		snprintf(msg, sizeof(msg), "the call was cancelled");
		break;
	case TC_OUT_TOOBIG:
		tc_text_fmt(msg, sizeof(msg),
		    "the result exceeded the %zu-byte "
		    "limit and was discarded; ask for less at a time", 
		    r->max_result);
		break;
	case TC_OUT_BADFRAME:
		tc_text_fmt(msg, sizeof(msg), "the sandboxed handler sent a "
		    "malformed result (%s)", r->why);
		break;
	case TC_OUT_SPAWN:
		tc_text_fmt(msg, sizeof(msg), "the call could not be run: %s",
		    r->why[0] ? r->why : "internal error");
		break;
	case TC_OUT_CRASHED:
		sig = WTERMSIG(r->status);
		tc_text_fmt(msg, sizeof(msg),
		    "the sandboxed handler was killed "
		    "by signal %d (%s)%s", sig, strsignal(sig), sig == SIGSYS ?
		    ": it made a system call its seccomp filter forbids" :
		    sig == SIGXCPU ? ": it used up its CPU time" : "");
		break;
	case TC_OUT_CONFINE:
		what = tc_child_exit_str(WEXITSTATUS(r->status));
		tc_text_fmt(msg, sizeof(msg),
		    "the call was not run: its sandbox "
		    "could not be set up (%s)", what ? what : "unknown step");
		break;
	case TC_OUT_OK:
	case TC_OUT_NORESULT:
	default:
		tc_text_fmt(msg, sizeof(msg),
		    "the sandboxed handler exited with "
		    "status %d without a result", WEXITSTATUS(r->status));
		break;
	}
	if ((a->mem = tc_result_error_text(msg)) == NULL)
		return TC_ENOMEM;
	a->json = a->mem;
	a->len = strlen(a->mem);
	a->info.is_error = 1;
	return 0;
}

void
tc_answer_release(struct tc_answer *a)
{
	free(a->mem);
	memset(a, 0, sizeof(*a));
}

cJSON *
tc_run_take_result(struct tc_run *r)
{
	struct tc_answer a;
	cJSON *res;

	if (tc_run_take_answer(r, &a) != 0)
		return NULL;
	res = cJSON_ParseWithLength(a.json, a.len);
	tc_answer_release(&a);
	return res;
}

void
tc_run_release(struct tc_run *r)
{
	if (r->state == TC_RUN_RUNNING) {
		tc_run_kill(r, TC_OUT_CANCELLED);
		tc_run_wait(r);
	}
	close_fd(&r->fd);
	if (r->pidfd >= 0 && r->killed && r->sb != NULL &&
	    (r->sb->ndead < TC_DEAD_MAX ||
	    tc_sandbox_reap(r->sb, 0) < TC_DEAD_MAX)) {
		/* Killed: it cannot run again; reap it later. */
		r->sb->dead[r->sb->ndead].pid = r->pid;
		r->sb->dead[r->sb->ndead++].pidfd = r->pidfd;
		r->pidfd = -1;
	}
	if (r->pidfd >= 0) {
		close_fd(&r->pidfd);
		while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
			;
	}
	tc_buf_release(&r->in);
	tc_buf_release(&r->answer);
	r->answered = 0;
	r->state = TC_RUN_IDLE;
}
