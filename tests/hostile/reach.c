/*
 * reach.c: hostile tools that aim every system call taking a pid, a tid,
 * a process group or a process fd at another process (the server, or one
 * the test started), every way there is to give a file the set-user-ID
 * or set-group-ID bit, and the ways to change a file's mode.
 *
 * Each attempt is reported on its own ("probes": call, rc, errno, and
 * whether it reached its target), so that a test sees which one got
 * through.  The attempts are made in earnest: prlimit64 lowers the
 * target's RLIMIT_NOFILE to 3, as a model would, and the test checks the
 * target afterwards.  A system call that cannot reach the target here
 * (refused by the filter, by the kernel's permission checks, or because
 * a PID namespace hides the target) says so with its errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <linux/perf_event.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2	452
#endif
#ifndef P_PIDFD
#define P_PIDFD		3
#endif
#ifndef MADV_COLD
#define MADV_COLD	20
#endif

/* The kernel's encoding of another process's CPU clock. */
#define PROCESS_CPUCLOCK(pid)	((clockid_t)(~(unsigned)(pid) << 3 | 2))

#define IOPRIO_WHO_PROCESS	1
#define IOPRIO_BE_4		((2 << 13) | 4)

/* sched_setattr()'s argument, as the kernel defines it (version 0). */
struct sched_attr0 {
	uint32_t	size;
	uint32_t	sched_policy;
	uint64_t	sched_flags;
	int32_t		sched_nice;
	uint32_t	sched_priority;
	uint64_t	sched_runtime;
	uint64_t	sched_deadline;
	uint64_t	sched_period;
};

/* Adds one attempt to res's "probes": reached when rc says it worked. */
static int
probe(struct tc_result *res, const char *name, long rc, int err,
    int reached)
{
	cJSON *o = tc_result_obj(res), *arr, *p;

	if (o == NULL)
		return reached;
	if ((arr = cJSON_GetObjectItemCaseSensitive(o, "probes")) == NULL)
		arr = cJSON_AddArrayToObject(o, "probes");
	if (arr == NULL || (p = cJSON_CreateObject()) == NULL)
		return reached;
	cJSON_AddStringToObject(p, "call", name);
	cJSON_AddNumberToObject(p, "rc", (double)rc);
	cJSON_AddNumberToObject(p, "errno", reached ? 0 : err);
	cJSON_AddBoolToObject(p, "reached", reached);
	cJSON_AddItemToArray(arr, p);
	if (reached)
		tc_result_printf(res, "REACHED: %s (rc %ld)\n", name, rc);
	return reached;
}

/* A system call's return: reached when it did not fail. */
#define TRY(res, name, call) do {					\
	long rc_;							\
	errno = 0;							\
	rc_ = (long)(call);						\
	n += probe((res), (name), rc_, errno, rc_ >= 0);		\
} while (0)

/* --- Other processes --- */

static int
reach_signals(struct tc_result *res, pid_t pid)
{
	siginfo_t si;
	int n = 0;

	/* Signal 0: the permission check, and nothing delivered. */
	TRY(res, "kill", kill(pid, 0));
	TRY(res, "tkill", syscall(SYS_tkill, pid, 0));
	TRY(res, "tgkill", syscall(SYS_tgkill, pid, pid, 0));
	memset(&si, 0, sizeof(si));
	si.si_signo = 0;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	TRY(res, "rt_sigqueueinfo", syscall(SYS_rt_sigqueueinfo, pid, 0,
	    &si));
	TRY(res, "rt_tgsigqueueinfo", syscall(SYS_rt_tgsigqueueinfo, pid,
	    pid, 0, &si));
	return n;
}

/*
 * F_SETOWN and its kin on a file of our own: with O_ASYNC, the kernel
 * then sends SIGIO (or F_SETSIG's signal) to the owner, whoever it is.
 */
static int
reach_fowner(struct tc_result *res, const struct tc_call *call, pid_t pid)
{
	struct f_owner_ex ex = { F_OWNER_PID, pid };
	int n = 0, fd, rootfd = hs_root_fd(call, 0), own = 0;

	fd = rootfd >= 0 ? openat(rootfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC) : -1;
	if (fd < 0)
		fd = STDIN_FILENO;
	else
		own = 1;
	TRY(res, "fcntl F_SETOWN", fcntl(fd, F_SETOWN, pid));
	TRY(res, "fcntl F_SETOWN (process group)", fcntl(fd, F_SETOWN, -pid));
	TRY(res, "fcntl F_SETOWN_EX", fcntl(fd, F_SETOWN_EX, &ex));
	TRY(res, "fcntl F_SETSIG", fcntl(fd, F_SETSIG, SIGKILL));
	TRY(res, "ioctl FIOSETOWN", ioctl(fd, FIOSETOWN, &pid));
	/* Ours again, should any of it have worked. */
	(void)fcntl(fd, F_SETOWN, 0);
	(void)fcntl(fd, F_SETSIG, 0);
	if (own)
		close(fd);
	return n;
}

static int
reach_sched(struct tc_result *res, pid_t pid)
{
	struct sched_attr0 attr;
	struct sched_param sp;
	struct timespec ts;
	cpu_set_t set;
	int n = 0, prio;

	CPU_ZERO(&set);
	if (sched_getaffinity(pid, sizeof(set), &set) != 0 &&
	    sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_SET(0, &set);
	TRY(res, "sched_getaffinity", syscall(SYS_sched_getaffinity, pid,
	    sizeof(set), &set));
	TRY(res, "sched_setaffinity", syscall(SYS_sched_setaffinity, pid,
	    sizeof(set), &set));
	TRY(res, "sched_getscheduler", syscall(SYS_sched_getscheduler, pid));
	memset(&sp, 0, sizeof(sp));
	TRY(res, "sched_getparam", syscall(SYS_sched_getparam, pid, &sp));
	TRY(res, "sched_setscheduler", syscall(SYS_sched_setscheduler, pid,
	    SCHED_OTHER, &sp));
	TRY(res, "sched_setparam", syscall(SYS_sched_setparam, pid, &sp));
	memset(&attr, 0, sizeof(attr));
	TRY(res, "sched_getattr", syscall(SYS_sched_getattr, pid, &attr,
	    sizeof(attr), 0));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sched_policy = SCHED_OTHER;
	TRY(res, "sched_setattr", syscall(SYS_sched_setattr, pid, &attr, 0));
	TRY(res, "sched_rr_get_interval", syscall(SYS_sched_rr_get_interval,
	    pid, &ts));
	/* The raw call returns 20 - nice, never negative. */
	errno = 0;
	prio = (int)syscall(SYS_getpriority, PRIO_PROCESS, pid);
	n += probe(res, "getpriority", prio, errno, prio >= 0 && errno == 0);
	TRY(res, "setpriority", syscall(SYS_setpriority, PRIO_PROCESS, pid,
	    prio > 0 ? 20 - prio : 0));
	TRY(res, "setpriority (the user's processes)",
	    syscall(SYS_setpriority, PRIO_USER, geteuid(), 0));
	TRY(res, "ioprio_get", syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS,
	    pid));
	TRY(res, "ioprio_set", syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS,
	    pid, IOPRIO_BE_4));
	return n;
}

/* Something at the same address in the target when it is the server. */
static char probe_byte = 'x';

static int
reach_memory(struct tc_result *res, pid_t pid)
{
	struct iovec local, remote;
	unsigned long nodes = 1;
	void *pages[1] = { &probe_byte };
	int status[1] = { 0 }, n = 0;
	char buf = 0;
	void *head;
	size_t len;
	long rc;

	local.iov_base = &buf;
	local.iov_len = 1;
	remote.iov_base = &probe_byte;
	remote.iov_len = 1;
	TRY(res, "process_vm_readv", syscall(SYS_process_vm_readv, pid,
	    &local, 1, &remote, 1, 0));
	local.iov_len = remote.iov_len = 0;
	TRY(res, "process_vm_writev", syscall(SYS_process_vm_writev, pid,
	    &local, 1, &remote, 1, 0));
	TRY(res, "get_robust_list", syscall(SYS_get_robust_list, pid, &head,
	    &len));
	TRY(res, "kcmp", syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0));
	TRY(res, "migrate_pages", syscall(SYS_migrate_pages, pid,
	    8 * sizeof(nodes), &nodes, &nodes));
	/* Where the target's page is: nodes NULL asks without moving. */
	TRY(res, "move_pages", syscall(SYS_move_pages, pid, 1, pages, NULL,
	    status, 0));
	errno = 0;
	rc = syscall(SYS_ptrace, PTRACE_SEIZE, pid, NULL, NULL);
	if (probe(res, "ptrace PTRACE_SEIZE", rc, errno, rc == 0)) {
		syscall(SYS_ptrace, PTRACE_DETACH, pid, NULL, NULL);
		n++;
	}
	return n;
}

static int
reach_pidfd(struct tc_result *res, pid_t pid)
{
	struct iovec iov = { &probe_byte, 1 };
	siginfo_t si;
	int n = 0, pfd, fd;

	errno = 0;
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	n += probe(res, "pidfd_open", pfd, errno, pfd >= 0);
	/* Without a pidfd the rest still go to the kernel, with a bad fd:
	 * EBADF says a call got past the filter, EPERM that it did not. */
	TRY(res, "pidfd_send_signal", syscall(SYS_pidfd_send_signal, pfd, 0,
	    NULL, 0));
	errno = 0;
	fd = (int)syscall(SYS_pidfd_getfd, pfd, 0, 0);
	n += probe(res, "pidfd_getfd", fd, errno, fd >= 0);
	if (fd >= 0)
		close(fd);
	TRY(res, "process_madvise", syscall(SYS_process_madvise, pfd, &iov, 1,
	    MADV_COLD, 0));
	TRY(res, "process_mrelease", syscall(SYS_process_mrelease, pfd, 0));
	memset(&si, 0, sizeof(si));
	TRY(res, "waitid P_PIDFD", waitid(P_PIDFD, (id_t)pfd, &si,
	    WEXITED | WNOHANG));
	if (pfd >= 0)
		close(pfd);
	return n;
}

static int
reach_misc(struct tc_result *res, pid_t pid)
{
	struct __user_cap_header_struct { uint32_t version; int pid; } hdr;
	struct { uint32_t e, p, i; } caps[2];
	struct rlimit64 { uint64_t cur, max; } rl, three = { 3, 3 };
	struct perf_event_attr pe;
	struct sigevent sev;
	struct timespec ts;
	siginfo_t si;
	timer_t timer;
	int n = 0, st;
	long rc;

	TRY(res, "prlimit64 (read)", syscall(SYS_prlimit64, pid,
	    RLIMIT_NOFILE, NULL, &rl));
	TRY(res, "prlimit64 (RLIMIT_NOFILE to 3)", syscall(SYS_prlimit64,
	    pid, RLIMIT_NOFILE, &three, NULL));
	TRY(res, "getpgid", syscall(SYS_getpgid, pid));
	TRY(res, "getsid", syscall(SYS_getsid, pid));
	TRY(res, "setpgid", syscall(SYS_setpgid, pid, pid));
	TRY(res, "wait4", syscall(SYS_wait4, pid, &st, WNOHANG, NULL));
	memset(&si, 0, sizeof(si));
	TRY(res, "waitid P_PID", syscall(SYS_waitid, P_PID, pid, &si,
	    WEXITED | WNOHANG, NULL));
	hdr.version = 0x20080522;	/* _LINUX_CAPABILITY_VERSION_3 */
	hdr.pid = pid;
	TRY(res, "capget", syscall(SYS_capget, &hdr, caps));
	TRY(res, "prctl PR_SET_PTRACER", prctl(PR_SET_PTRACER, pid, 0, 0, 0));
	TRY(res, "clock_gettime (its CPU clock)", syscall(SYS_clock_gettime,
	    PROCESS_CPUCLOCK(pid), &ts));
	/* Until a time long past, so as never to wait for a process that
	 * uses no CPU. */
	ts.tv_sec = 0;
	ts.tv_nsec = 0;
	TRY(res, "clock_nanosleep (its CPU clock)",
	    syscall(SYS_clock_nanosleep, PROCESS_CPUCLOCK(pid), TIMER_ABSTIME,
	    &ts, NULL));
	TRY(res, "clock_getres (its CPU clock)", syscall(SYS_clock_getres,
	    PROCESS_CPUCLOCK(pid), &ts));
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_NONE;
	errno = 0;
	rc = syscall(SYS_timer_create, PROCESS_CPUCLOCK(pid), &sev, &timer);
	if (probe(res, "timer_create (its CPU clock)", rc, errno, rc == 0)) {
		syscall(SYS_timer_delete, timer);
		n++;
	}
	memset(&pe, 0, sizeof(pe));
	pe.type = PERF_TYPE_SOFTWARE;
	pe.size = sizeof(pe);
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.exclude_kernel = 1;
	pe.exclude_hv = 1;
	errno = 0;
	rc = syscall(SYS_perf_event_open, &pe, pid, -1, -1, 0);
	if (probe(res, "perf_event_open", rc, errno, rc >= 0)) {
		close((int)rc);
		n++;
	}
	/* The server as the parent of a process of ours: a child it never
	 * forked, out of the call's reach.  It exits at once. */
	errno = 0;
	rc = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
	if (rc == 0)
		_exit(0);
	n += probe(res, "clone CLONE_PARENT", rc, errno, rc > 0);
	return n;
}

int
hs_reach_process(const struct tc_call *call, struct tc_result *res)
{
	long pid = tc_arg_int(call, "pid", 0);
	const char *what = tc_arg_str(call, "what");
	int n = 0;

	hs_int(res, "target", pid);
	hs_int(res, "self", (long long)getpid());
	/* The calls that change the target come after those that only
	 * read it, and prlimit64's RLIMIT_NOFILE of 3 last but one. */
	n += reach_signals(res, (pid_t)pid);
	n += reach_fowner(res, call, (pid_t)pid);
	n += reach_sched(res, (pid_t)pid);
	n += reach_memory(res, (pid_t)pid);
	n += reach_pidfd(res, (pid_t)pid);
	n += reach_misc(res, (pid_t)pid);
	hs_int(res, "reached", n);
	return hs_outcome(res, n > 0, 0, "%d system calls reached %s (pid "
	    "%ld)", n, what != NULL ? what : "the target", pid);
}

/* --- Set-user-ID and set-group-ID bits --- */

/* Returns |path|'s mode without following a link, or -1. */
static long
mode_of(const char *path)
{
	struct stat st;

	return fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
	    (long)st.st_mode : -1;
}

/*
 * Records one attempt on |path|: its return, and the mode the file has
 * now.  |before| is the mode it had (-1: none): reached when a set-id bit
 * is there now and was not before.
 */
static int
setid_probe(struct tc_result *res, const char *name, const char *path,
    long rc, int err, long before)
{
	long now = mode_of(path);
	int reached = now >= 0 && (now & (S_ISUID | S_ISGID)) != 0 &&
	    (before < 0 || (before & (S_ISUID | S_ISGID)) == 0);
	cJSON *o = tc_result_obj(res), *arr, *p;

	if (o != NULL &&
	    ((arr = cJSON_GetObjectItemCaseSensitive(o, "probes")) != NULL ||
	    (arr = cJSON_AddArrayToObject(o, "probes")) != NULL) &&
	    (p = cJSON_CreateObject()) != NULL) {
		cJSON_AddStringToObject(p, "call", name);
		cJSON_AddNumberToObject(p, "rc", (double)rc);
		cJSON_AddNumberToObject(p, "errno", rc < 0 ? err : 0);
		cJSON_AddNumberToObject(p, "mode", (double)now);
		cJSON_AddBoolToObject(p, "reached", reached);
		cJSON_AddItemToArray(arr, p);
	}
	if (reached)
		tc_result_printf(res, "SET-ID: %s left %s mode %lo\n", name,
		    path, (unsigned long)now);
	return reached;
}

/*
 * Records an attempt to change |path|'s permission bits: reached when its
 * mode is no longer |before|, which is then put back.
 */
static int
mode_probe(struct tc_result *res, const char *name, const char *path,
    long rc, int err, long before)
{
	long now = mode_of(path);
	int reached = before >= 0 && now != before;
	cJSON *o = tc_result_obj(res), *arr, *p;

	if (o != NULL &&
	    ((arr = cJSON_GetObjectItemCaseSensitive(o, "probes")) != NULL ||
	    (arr = cJSON_AddArrayToObject(o, "probes")) != NULL) &&
	    (p = cJSON_CreateObject()) != NULL) {
		cJSON_AddStringToObject(p, "call", name);
		cJSON_AddNumberToObject(p, "rc", (double)rc);
		cJSON_AddNumberToObject(p, "errno", rc < 0 ? err : 0);
		cJSON_AddNumberToObject(p, "mode", (double)now);
		cJSON_AddBoolToObject(p, "reached", reached);
		cJSON_AddItemToArray(arr, p);
	}
	if (reached) {
		tc_result_printf(res, "MODE: %s left %s mode %lo\n", name,
		    path, (unsigned long)now);
		(void)chmod(path, (mode_t)before & 07777);
	}
	return reached;
}

/* Joins |dir|, |tag| and |what| into |buf|. */
static const char *
name_in(char *buf, size_t size, const char *dir, const char *tag,
    const char *what)
{
	snprintf(buf, size, "%s/%s-%s", dir, tag, what);
	return buf;
}

/* openat2() of |path| with |flags| and |mode|, nothing beneath. */
static long
open2(const char *path, int flags, unsigned mode)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.mode = mode;
	return syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/* Names the unnamed file |fd| |path| (linkat of /proc/self/fd/N). */
static long
link_fd(int fd, const char *path)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

#define CLOSE_RC(rc)	do { if ((rc) >= 0) close((int)(rc)); } while (0)

/* New files and directories in |dir|, each made with a set-id mode. */
static int
setid_create(struct tc_result *res, const char *dir, const char *tag)
{
	char p[4096];
	long rc;
	int n = 0, err;

#define CREATE(what, call) do {						\
	name_in(p, sizeof(p), dir, tag, (what));			\
	errno = 0;							\
	rc = (long)(call);						\
	err = errno;							\
	n += setid_probe(res, (what), p, rc, err, -1);			\
	CLOSE_RC(rc);							\
} while (0)

	CREATE("openat O_CREAT 04755", openat(AT_FDCWD, p, O_CREAT |
	    O_WRONLY | O_CLOEXEC, 04755));
	CREATE("openat O_CREAT 02755", openat(AT_FDCWD, p, O_CREAT |
	    O_WRONLY | O_CLOEXEC, 02755));
	CREATE("open O_CREAT 06755", syscall(SYS_open, p, O_CREAT | O_WRONLY |
	    O_CLOEXEC, 06755));
	CREATE("creat 04755", syscall(SYS_creat, p, 04755));
	CREATE("openat2 O_CREAT 04755", open2(p, O_CREAT | O_WRONLY, 04755));
	CREATE("openat2 O_CREAT 02755", open2(p, O_CREAT | O_WRONLY, 02755));
	CREATE("mknodat S_IFREG|04755", mknodat(AT_FDCWD, p, S_IFREG | 04755,
	    0));
	CREATE("mknod S_IFREG|06755", syscall(SYS_mknod, p, S_IFREG | 06755,
	    0));
	CREATE("mkdirat 06755", mkdirat(AT_FDCWD, p, 06755));
	CREATE("mkdir 06755", syscall(SYS_mkdir, p, 06755));
#undef CREATE

	/* Unnamed files made with the mode, then named. */
	name_in(p, sizeof(p), dir, tag, "openat O_TMPFILE 04755");
	errno = 0;
	if ((rc = openat(AT_FDCWD, dir, O_TMPFILE | O_WRONLY | O_CLOEXEC,
	    04755)) >= 0) {
		long lrc = link_fd((int)rc, p);

		err = errno;
		close((int)rc);
		rc = lrc;
	} else
		err = errno;
	n += setid_probe(res, "openat O_TMPFILE 04755, then linkat", p, rc,
	    err, -1);
	name_in(p, sizeof(p), dir, tag, "openat2 O_TMPFILE 04755");
	errno = 0;
	if ((rc = open2(dir, O_TMPFILE | O_WRONLY, 04755)) >= 0) {
		long lrc = link_fd((int)rc, p);

		err = errno;
		close((int)rc);
		rc = lrc;
	} else
		err = errno;
	n += setid_probe(res, "openat2 O_TMPFILE 04755, then linkat", p, rc,
	    err, -1);
	return n;
}

/*
 * The chmod family, and the chown family that may keep the bits, on
 * |file|, which has none; then the chmod family with permission bits
 * only.  After each, the file's mode is put back.
 */
static int
setid_change(struct tc_result *res, const char *file)
{
	long before = mode_of(file), rc;
	int n = 0, err, fd;

#define CHANGE(what, call) do {						\
	errno = 0;							\
	rc = (long)(call);						\
	err = errno;							\
	if (setid_probe(res, (what), file, rc, err, before)) {		\
		n++;							\
		(void)chmod(file, (mode_t)before & 0777);		\
	}								\
} while (0)

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	CHANGE("fchmod 04755", fchmod(fd, 04755));
	CHANGE("fchmod 02755", fchmod(fd, 02755));
	CHANGE("fchmodat 04755", fchmodat(AT_FDCWD, file, 04755, 0));
	CHANGE("fchmodat2 06755", syscall(SYS_fchmodat2, AT_FDCWD, file,
	    06755, 0));
	CHANGE("chmod 06755", syscall(SYS_chmod, file, 06755));
	CHANGE("fchown (ids kept)", fchown(fd, geteuid(), getegid()));
	CHANGE("fchownat (ids kept)", fchownat(AT_FDCWD, file, geteuid(),
	    getegid(), 0));
	CHANGE("chown (ids kept)", syscall(SYS_chown, file, geteuid(),
	    getegid()));
	CHANGE("lchown (ids kept)", syscall(SYS_lchown, file, geteuid(),
	    getegid()));
#undef CHANGE
	/* Nor may it change a file's permission bits: Landlock does not
	 * govern them, so a file the call can open, or any path, would be
	 * within reach (a read-only root's, made writable by all). */
	errno = 0;
	rc = fchmod(fd, 0777);
	err = errno;
	n += mode_probe(res, "fchmod 0777", file, rc, err, before);
	errno = 0;
	rc = fchmodat(AT_FDCWD, file, 0777, 0);
	err = errno;
	n += mode_probe(res, "fchmodat 0777", file, rc, err, before);
	if (fd >= 0)
		close(fd);
	return n;
}

/* A new name in |dir| for |src|, a set-id file made by someone else. */
static int
setid_link(struct tc_result *res, const char *dir, const char *tag,
    const char *src)
{
	char p[4096], self[64];
	long rc;
	int n = 0, err, fd;

#define LINK(what, call) do {						\
	name_in(p, sizeof(p), dir, tag, (what));			\
	errno = 0;							\
	rc = (long)(call);						\
	err = errno;							\
	n += setid_probe(res, (what), p, rc, err, -1);			\
} while (0)

	LINK("linkat", linkat(AT_FDCWD, src, AT_FDCWD, p, 0));
	LINK("linkat AT_SYMLINK_FOLLOW", linkat(AT_FDCWD, src, AT_FDCWD, p,
	    AT_SYMLINK_FOLLOW));
	fd = open(src, O_PATH | O_CLOEXEC);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	LINK("linkat of its /proc/self/fd link", linkat(AT_FDCWD, self,
	    AT_FDCWD, p, AT_SYMLINK_FOLLOW));
	if (fd >= 0)
		close(fd);
	LINK("renameat2 into the directory", syscall(SYS_renameat2,
	    AT_FDCWD, src, AT_FDCWD, p, 0));
#undef LINK
	return n;
}

int
hs_setid(const struct tc_call *call, struct tc_result *res)
{
	const char *dir = tc_arg_str(call, "dir");
	const char *tag = tc_arg_str(call, "tag");
	const char *file = tc_arg_str(call, "file");
	const char *src = tc_arg_str(call, "setid_file");
	char p[4096];
	int n = 0, fd;

	/* Controls: a file made without set-id bits is made (the
	 * directory takes new files), and the mode read of a set-id file
	 * shows its bits. */
	name_in(p, sizeof(p), dir, tag, "plain");
	if ((fd = openat(AT_FDCWD, p, O_CREAT | O_WRONLY | O_CLOEXEC,
	    0755)) >= 0)
		close(fd);
	hs_int(res, "plain_mode", mode_of(p));
	if (src != NULL)
		hs_int(res, "source_mode", mode_of(src));
	n += setid_create(res, dir, tag);
	if (file != NULL)
		n += setid_change(res, file);
	if (src != NULL)
		n += setid_link(res, dir, tag, src);
	hs_int(res, "reached", n);
	hs_int(res, "euid", (long long)geteuid());
	return hs_outcome(res, n > 0, 0, "%d of the attempts left a set-id "
	    "bit or changed a mode, as uid %d", n, (int)geteuid());
}
