/*
 * test-seccomp.c: what each profile's filter lets through of the system
 * calls that can reach another process or make a set-id file, for each
 * combination of the other layers it relies on (TC_SECCOMP_*).  Each
 * filter is loaded in a child of this process, whose parent is then the
 * "other process": the child reports every attempt's errno on a pipe.
 * The profiles are the servers' own: toolcell-fs's (servers/fs) and the
 * hostile test server's (tests/hostile), which stand for a server that
 * runs programs and one of SQLite databases; and a few of this file's, for
 * the forms a profile's table takes.
 *
 * The filter's builder is private to the sandbox module (sandbox-int.h),
 * which this test reads as the module's own files do.
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/capability.h>
#include <sys/mman.h>

#include "sandbox/sandbox-int.h"
#include "tap.h"

/* servers/fs/fs_profile.c and tests/hostile/hostile_profile.c */
extern const struct tc_profile fs_read_profile, fs_write_profile;
extern const struct tc_profile hostile_fs_read, hostile_fs_write;
extern const struct tc_profile hostile_exec, hostile_sqlite;

#define CPUCLOCK_OF(pid)	((clockid_t)(~(unsigned)(pid) << 3 | 2))

static char dir[64];		/* a scratch directory */

/* Returns 0 if |rc| is not negative, else errno. */
static int
e(long rc)
{
	return rc < 0 ? errno : 0;
}

static int
creat_mode(const char *name, int flags, unsigned mode)
{
	char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	(void)unlink(p);
	if ((fd = openat(AT_FDCWD, (flags & O_TMPFILE) == O_TMPFILE ? dir :
	    p, flags | O_CLOEXEC, mode)) < 0)
		return errno;
	close(fd);
	return 0;
}

static int
fchmod_mode(unsigned mode)
{
	char p[128];
	int fd, rc;

	snprintf(p, sizeof(p), "%s/f", dir);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1000;
	rc = e(fchmod(fd, mode));
	close(fd);
	return rc;
}

static int
mkdir_mode(unsigned mode)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/d", dir);
	return e(mkdirat(AT_FDCWD, p, mode));
}

static int
open2(void)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd >= 0)
		close((int)fd);
	return e(fd);
}

static int
clone_parent(void)
{
	long rc = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);

	if (rc == 0)
		_exit(0);
	return e(rc);
}

static int
fork_child(void)
{
	long rc = syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);

	if (rc == 0)
		_exit(0);
	if (rc > 0)
		waitpid((pid_t)rc, NULL, 0);
	return e(rc);
}

/* The attempts, by number; what each expects is in the tables below. */
enum {
	PRLIMIT_SELF0, GETRLIMIT, SETRLIMIT, PRLIMIT_PARENT, PRLIMIT_OWNPID,
	FCNTL_GETFL, FCNTL_DUPFD, FCNTL_SETLK, FCNTL_SETOWN, FCNTL_SETOWN_EX,
	FCNTL_SETSIG, FCNTL_GETOWN, FCNTL_SETLEASE, FCNTL_NOTIFY,
	CLOCK_MONO, CLOCK_OWN_CPU, CLOCK_OWN_CPU_ENCODED, CLOCK_OWN_THREAD,
	CLOCK_OWN_PROF, CLOCK_FD0, CLOCK_TYPE3_THREAD, CLOCK_PARENT_CPU,
	NSLEEP_PARENT_CPU, OPENAT2, CREATE_0644, CREATE_04755, CREATE_02755,
	TMPFILE_04755, FCHMOD_0644, FCHMOD_04755, FCHMOD_02755, FCHMODAT,
	UTIMENSAT, MKDIR_0755, MKDIR_06755, OPEN_04755, KILL_PARENT, KILL_GROUP,
	TGKILL_SELF, GETPGID_SELF, GETPGID_PARENT, GETSID_PARENT,
	AFFINITY_SELF, AFFINITY_PARENT, CLONE_PARENT_, FORK, NCHECKS
};

static const char *const names[NCHECKS] = {
	"prlimit64(0)", "getrlimit", "setrlimit", "prlimit64(parent)",
	"prlimit64(own pid)", "fcntl F_GETFL", "fcntl F_DUPFD_CLOEXEC",
	"fcntl F_SETLK", "fcntl F_SETOWN", "fcntl F_SETOWN_EX",
	"fcntl F_SETSIG", "fcntl F_GETOWN", "fcntl F_SETLEASE",
	"fcntl F_NOTIFY", "clock_gettime CLOCK_MONOTONIC",
	"clock_gettime CLOCK_PROCESS_CPUTIME_ID",
	"clock_gettime of its own CPU clock by pid 0",
	"clock_gettime of its own thread's CPU clock by tid 0",
	"clock_gettime of its own profiling clock by pid 0",
	"clock_gettime of a clock from fd 0 (0xfffffffb)",
	"clock_gettime of 0xffffffff",
	"clock_gettime of the parent's CPU clock",
	"clock_nanosleep on the parent's CPU clock", "openat2",
	"openat O_CREAT 0644", "openat O_CREAT 04755", "openat O_CREAT 02755",
	"openat O_TMPFILE 04755", "fchmod 0644", "fchmod 04755",
	"fchmod 02755", "fchmodat 0644", "utimensat", "mkdirat 0755",
	"mkdirat 06755", "open O_CREAT 04755", "kill(parent, 0)",
	"kill(0, 0)", "tgkill(self, 0)", "getpgid(0)", "getpgid(parent)",
	"getsid(parent)", "sched_getaffinity(0)", "sched_getaffinity(parent)",
	"clone CLONE_PARENT", "clone (fork)",
};

/* Runs every attempt, under the filter now loaded; fills |got|. */
static void
attempt(int *got)
{
	struct f_owner_ex ex = { F_OWNER_PID, getppid() };
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET };
	struct rlimit rl;
	struct timespec ts = { 0, 0 };
	char p[128];
	cpu_set_t set;
	pid_t parent = getppid();
	int fd;

	got[PRLIMIT_SELF0] = e(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL,
	    &rl));
	got[GETRLIMIT] = e(getrlimit(RLIMIT_NOFILE, &rl));
	got[SETRLIMIT] = e(setrlimit(RLIMIT_NOFILE, &rl));
	got[PRLIMIT_PARENT] = e(syscall(SYS_prlimit64, parent, RLIMIT_NOFILE,
	    NULL, &rl));
	got[PRLIMIT_OWNPID] = e(syscall(SYS_prlimit64, getpid(),
	    RLIMIT_NOFILE, NULL, &rl));
	snprintf(p, sizeof(p), "%s/f", dir);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	got[FCNTL_GETFL] = e(fcntl(fd, F_GETFL));
	got[FCNTL_DUPFD] = e(fcntl(fd, F_DUPFD_CLOEXEC, 100));
	got[FCNTL_SETLK] = e(fcntl(fd, F_SETLK, &fl));
	got[FCNTL_SETOWN] = e(fcntl(fd, F_SETOWN, parent));
	got[FCNTL_SETOWN_EX] = e(fcntl(fd, F_SETOWN_EX, &ex));
	got[FCNTL_SETSIG] = e(fcntl(fd, F_SETSIG, SIGKILL));
	got[FCNTL_GETOWN] = e(fcntl(fd, F_GETOWN));
	got[FCNTL_SETLEASE] = e(fcntl(fd, F_SETLEASE, F_RDLCK));
	got[FCNTL_NOTIFY] = e(fcntl(fd, F_NOTIFY, DN_MODIFY));
	got[CLOCK_MONO] = e(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts));
	got[CLOCK_OWN_CPU] = e(syscall(SYS_clock_gettime,
	    CLOCK_PROCESS_CPUTIME_ID, &ts));
	got[CLOCK_OWN_CPU_ENCODED] = e(syscall(SYS_clock_gettime,
	    CPUCLOCK_OF(0), &ts));
	got[CLOCK_OWN_THREAD] = e(syscall(SYS_clock_gettime,
	    (clockid_t)(~0U << 3 | 4 | 2), &ts));
	got[CLOCK_OWN_PROF] = e(syscall(SYS_clock_gettime, (clockid_t)(~0U <<
	    3), &ts));
	got[CLOCK_FD0] = e(syscall(SYS_clock_gettime, (clockid_t)(~0U << 3 |
	    3), &ts));
	got[CLOCK_TYPE3_THREAD] = e(syscall(SYS_clock_gettime,
	    (clockid_t)0xffffffffU, &ts));
	got[CLOCK_PARENT_CPU] = e(syscall(SYS_clock_gettime,
	    CPUCLOCK_OF(parent), &ts));
	ts.tv_sec = ts.tv_nsec = 0;
	got[NSLEEP_PARENT_CPU] = e(syscall(SYS_clock_nanosleep,
	    CPUCLOCK_OF(parent), TIMER_ABSTIME, &ts, NULL));
	got[OPENAT2] = open2();
	got[CREATE_0644] = creat_mode("c", O_CREAT | O_WRONLY, 0644);
	got[CREATE_04755] = creat_mode("c", O_CREAT | O_WRONLY, 04755);
	got[CREATE_02755] = creat_mode("c", O_CREAT | O_WRONLY, 02755);
	got[TMPFILE_04755] = creat_mode("t", O_TMPFILE | O_WRONLY, 04755);
	got[FCHMOD_0644] = fchmod_mode(0644);
	got[FCHMOD_04755] = fchmod_mode(04755);
	got[FCHMOD_02755] = fchmod_mode(02755);
	got[FCHMODAT] = e(fchmodat(AT_FDCWD, p, 0644, 0));
	got[UTIMENSAT] = e(utimensat(AT_FDCWD, p, NULL, 0));
	/* The set-id one first: the other makes the directory. */
	got[MKDIR_06755] = mkdir_mode(06755);
	got[MKDIR_0755] = mkdir_mode(0755);
	snprintf(p, sizeof(p), "%s/o", dir);
	(void)unlink(p);
	fd = (int)syscall(SYS_open, p, O_CREAT | O_WRONLY | O_CLOEXEC, 04755);
	got[OPEN_04755] = e(fd);
	if (fd >= 0)
		close(fd);
	got[KILL_PARENT] = e(kill(parent, 0));
	got[KILL_GROUP] = e(kill(0, 0));
	got[TGKILL_SELF] = e(syscall(SYS_tgkill, getpid(), gettid(), 0));
	got[GETPGID_SELF] = e(syscall(SYS_getpgid, 0));
	got[GETPGID_PARENT] = e(syscall(SYS_getpgid, parent));
	got[GETSID_PARENT] = e(syscall(SYS_getsid, parent));
	got[AFFINITY_SELF] = e(syscall(SYS_sched_getaffinity, 0, sizeof(set),
	    &set));
	got[AFFINITY_PARENT] = e(syscall(SYS_sched_getaffinity, parent,
	    sizeof(set), &set));
	got[CLONE_PARENT_] = clone_parent();
	got[FORK] = fork_child();
}

/*
 * Loads |profile|'s filter for |opts| in a child, runs the attempts, and
 * checks each errno against |want| (a list of {check, errno}, the rest
 * EPERM).
 */
struct want {
	int	check;
	int	err;
};

static void
run(const struct tc_profile *profile, unsigned opts, const char *label,
    const struct want *want, size_t nwant)
{
	char scratch[128];
	struct tc_diag d;
	struct tc_bpf bpf;
	int p[2], got[NCHECKS], expect[NCHECKS], st, i;
	size_t k;
	pid_t pid;

	memset(&d, 0, sizeof(d));
	/* What an earlier run made, which the filter keeps this one from
	 * removing. */
	snprintf(scratch, sizeof(scratch), "%s/d", dir);
	(void)rmdir(scratch);
	if (!is_int(tc_seccomp_build(profile, opts, &bpf, &d), 0,
	    "%s: the filter builds", label))
		return;
	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    tc_seccomp_apply(&bpf) != 0)
			_exit(1);
		attempt(got);
		_exit(write(p[1], got, sizeof(got)) == sizeof(got) ? 0 : 2);
	}
	close(p[1]);
	memset(got, 0xff, sizeof(got));
	if (read(p[0], got, sizeof(got)) != sizeof(got))
		ok(0, "%s: the child reported", label);
	close(p[0]);
	waitpid(pid, &st, 0);
	tc_seccomp_release(&bpf);
	for (i = 0; i < NCHECKS; i++)
		expect[i] = EPERM;
	for (k = 0; k < nwant; k++)
		expect[want[k].check] = want[k].err;
#ifdef TC_SANITIZE
	/* The sanitizers' runtime asks how many CPUs it has. */
	expect[AFFINITY_SELF] = 0;
#endif
	for (i = 0; i < NCHECKS; i++)
		is_int(got[i], expect[i], "%s: %s", label, names[i]);
}

/* --- A zygote's filters --- */

/* What a zygote and its children take beyond a profile, by number. */
enum {
	Z_CLONE_PARENT, Z_CLONE_NEWUSER, Z_CLONE_FILES, Z_CLONE_SIGCHLD,
	Z_CLONE3, Z_SETSID, Z_PDEATHSIG, Z_SET_SECCOMP, Z_RESTRICT_SELF,
	Z_RECVMSG, Z_DUMPABLE, Z_NCHECKS
};

static const char *const z_names[Z_NCHECKS] = {
	"clone CLONE_PARENT alone", "clone CLONE_PARENT|CLONE_NEWUSER",
	"clone CLONE_PARENT|CLONE_FILES", "clone CLONE_PARENT|SIGCHLD",
	"clone3", "setsid", "prctl PR_SET_PDEATHSIG", "prctl PR_SET_SECCOMP",
	"landlock_restrict_self", "recvmsg", "prctl PR_SET_DUMPABLE",
};

static long	zf_clone(unsigned long flags);

static int
z_clone(unsigned long flags)
{
	return e(zf_clone(flags));
}

static void
z_attempt(int *got)
{
	struct msghdr msg;

	memset(&msg, 0, sizeof(msg));
	got[Z_CLONE_PARENT] = z_clone(CLONE_PARENT);
	got[Z_CLONE_NEWUSER] = z_clone(CLONE_PARENT | CLONE_NEWUSER);
	got[Z_CLONE_FILES] = z_clone(CLONE_PARENT | CLONE_FILES);
	got[Z_CLONE_SIGCHLD] = z_clone(CLONE_PARENT | SIGCHLD);
	got[Z_CLONE3] = e(syscall(SYS_clone3, NULL, 0));
	got[Z_SETSID] = e(setsid());
	got[Z_PDEATHSIG] = e(prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0));
	got[Z_SET_SECCOMP] = e(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
	    NULL, 0, 0));
	got[Z_RESTRICT_SELF] = e(syscall(SYS_landlock_restrict_self, -1, 0));
	got[Z_RECVMSG] = e(recvmsg(-1, &msg, 0));
	got[Z_DUMPABLE] = e(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
}

/*
 * Loads |a|, then |b| when it is not NULL, in a child; runs the profile
 * attempts into |got| and the zygote's into |zgot|.  Returns 1 when the
 * child reported.
 */
static int
run_stacked(const struct tc_bpf *a, const struct tc_bpf *b, int *got,
    int *zgot)
{
	int p[2], all[NCHECKS + Z_NCHECKS], n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    tc_seccomp_apply(a) != 0 ||
		    (b != NULL && tc_seccomp_apply(b) != 0))
			_exit(1);
		attempt(all);
		z_attempt(all + NCHECKS);
		_exit(write(p[1], all, sizeof(all)) == sizeof(all) ? 0 : 2);
	}
	close(p[1]);
	n = (int)read(p[0], all, sizeof(all));
	close(p[0]);
	waitpid(pid, NULL, 0);
	/* The clones that were let through are children of ours
	 * (CLONE_PARENT). */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (n != (int)sizeof(all))
		return 0;
	memcpy(got, all, NCHECKS * sizeof(int));
	memcpy(zgot, all + NCHECKS, Z_NCHECKS * sizeof(int));
	return 1;
}

/*
 * A zygote's filter (TC_SECCOMP_ZYGOTE) lets it fork with CLONE_PARENT
 * and nothing else, receive a child's pipes, and lets the child take its
 * own steps; the filter of tc_seccomp_build_fork() on top of it takes
 * all that back: the two together answer every attempt as the profile's
 * own filter does.
 */
static void
test_zygote(void)
{
	const unsigned opts = TC_SECCOMP_LANDLOCK | TC_SECCOMP_SIGNALS;
	int got[NCHECKS], zgot[Z_NCHECKS], pgot[NCHECKS], pzgot[Z_NCHECKS];
	struct tc_bpf own, zygote, fork_filter;
	struct tc_diag d = { "", 0 };
	int want[Z_NCHECKS], i;

	if (!is_int(tc_seccomp_build(&hostile_sqlite, opts, &own, &d), 0,
	    "zygote: the profile's filter builds") ||
	    !is_int(tc_seccomp_build(&hostile_sqlite, opts |
	    TC_SECCOMP_ZYGOTE, &zygote, &d), 0, "zygote: its filter builds") ||
	    !is_int(tc_seccomp_build_fork(&hostile_sqlite, &fork_filter, &d),
	    0, "zygote: its children's filter builds"))
		return;
	ok(fork_filter.len < own.len / 4, "zygote: its children's filter is "
	    "short (%u instructions, the profile's %u)", fork_filter.len,
	    own.len);
	if (ok(run_stacked(&zygote, NULL, got, zgot), "zygote: its filter "
	    "alone ran")) {
		for (i = 0; i < Z_NCHECKS; i++)
			want[i] = EPERM;
		want[Z_CLONE_PARENT] = 0;
		want[Z_SETSID] = 0;
		want[Z_PDEATHSIG] = 0;
		want[Z_SET_SECCOMP] = EFAULT;
		want[Z_RESTRICT_SELF] = EBADF;
		want[Z_RECVMSG] = EBADF;
		for (i = 0; i < Z_NCHECKS; i++)
			is_int(zgot[i], want[i], "zygote filter: %s",
			    z_names[i]);
	}
	if (ok(run_stacked(&own, NULL, pgot, pzgot), "zygote: the profile's "
	    "filter ran") &&
	    ok(run_stacked(&zygote, &fork_filter, got, zgot), "zygote: both "
	    "filters ran")) {
		for (i = 0; i < NCHECKS; i++)
			is_int(got[i], pgot[i], "zygote child: %s as the "
			    "profile's filter answers", names[i]);
		for (i = 0; i < Z_NCHECKS; i++)
			is_int(zgot[i], pzgot[i], "zygote child: %s as the "
			    "profile's filter answers", z_names[i]);
		is_int(pzgot[Z_CLONE_PARENT], EPERM, "the profile's filter "
		    "refuses clone CLONE_PARENT");
	}
	tc_seccomp_release(&own);
	tc_seccomp_release(&zygote);
	tc_seccomp_release(&fork_filter);
}

/* The files the attempts make. */
static const char *const names_made[] = { "f", "c", "o", "t" };

/* What every profile allows of the attempts. */
#define BASE_OK								\
	{ PRLIMIT_SELF0, 0 }, { GETRLIMIT, 0 }, { SETRLIMIT, 0 },	\
	{ FCNTL_GETFL, 0 }, { FCNTL_DUPFD, 0 }, { FCNTL_SETLK, 0 },	\
	{ CLOCK_MONO, 0 }, { CLOCK_OWN_CPU, 0 },			\
	{ CLOCK_OWN_CPU_ENCODED, 0 }, { CLOCK_OWN_THREAD, 0 },	\
	{ CLOCK_OWN_PROF, 0 }, { CREATE_0644, 0 }

/* --- The forms of a profile's table --- */

/* The profile of tables: what each form of rule lets through. */
static const struct tc_syscall table_calls[] = {
	TC_SYS(getcwd),
	TC_SYS_ARG(umask, 0, 0777, 022),
	TC_SYS_IS(getpriority, 0, PRIO_PROCESS),
	/* Both arguments must match: its own process, by pid 0. */
	TC_SYS_ARGS2(setpriority, 0, 0xffffffffULL, PRIO_PROCESS, 1,
	    0xffffffffULL, 0),
};

static const struct tc_syscall table_more[] = {
	TC_SYS_FAIL(sysinfo, ENOSYS),
};

static const struct tc_profile tables = {
	.name = "tables",
	.syscalls = { TC_SYSCALLS(table_calls), TC_SYSCALLS(table_more) },
};

/* The base list alone. */
static const struct tc_profile bare = { .name = "bare" };

#define NTABLE	9

/* Runs the table attempts under |p|'s filter; |want| their errnos. */
static void
run_tables(const struct tc_profile *p, const int want[NTABLE])
{
	static const char *const what[NTABLE] = { "getcwd", "umask(022)",
	    "umask(077)", "getpriority(PRIO_PROCESS)", "getpriority(PRIO_PGRP)",
	    "sysinfo", "setpriority(PRIO_PROCESS, 0)",
	    "setpriority(PRIO_PROCESS, own pid)", "setpriority(PRIO_PGRP, 0)" };
	struct tc_diag d = { "", 0 };
	struct tc_bpf bpf;
	struct sysinfo si;
	int p2[2], got[NTABLE], st, i, nice;
	char cwd[256];
	pid_t pid;

	if (!is_int(tc_seccomp_build(p, TC_SECCOMP_LANDLOCK, &bpf, &d), 0,
	    "%s: the filter builds", p->name))
		return;
	if (pipe2(p2, O_CLOEXEC) != 0)
		abort();
	if ((pid = fork()) == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    tc_seccomp_apply(&bpf) != 0)
			_exit(1);
		got[0] = e(syscall(SYS_getcwd, cwd, sizeof(cwd)));
		got[1] = e(syscall(SYS_umask, 022));
		got[2] = e(syscall(SYS_umask, 077));
		got[3] = e(syscall(SYS_getpriority, PRIO_PROCESS, 0));
		got[4] = e(syscall(SYS_getpriority, PRIO_PGRP, 0));
		got[5] = e(syscall(SYS_sysinfo, &si));
		nice = getpriority(PRIO_PROCESS, 0);
		got[6] = e(syscall(SYS_setpriority, PRIO_PROCESS, 0, nice));
		got[7] = e(syscall(SYS_setpriority, PRIO_PROCESS, getpid(),
		    nice));
		got[8] = e(syscall(SYS_setpriority, PRIO_PGRP, 0, nice));
		_exit(write(p2[1], got, sizeof(got)) == sizeof(got) ? 0 : 2);
	}
	close(p2[1]);
	memset(got, 0xff, sizeof(got));
	if (read(p2[0], got, sizeof(got)) != sizeof(got))
		ok(0, "%s: the child reported", p->name);
	close(p2[0]);
	waitpid(pid, &st, 0);
	tc_seccomp_release(&bpf);
	for (i = 0; i < NTABLE; i++)
		is_int(got[i], want[i], "%s: %s", p->name, what[i]);
}

/* A profile that runs programs, and so may map code (no tables). */
static const struct tc_profile execmem = { .name = "execmem",
    .may = TC_MAY_EXEC_MEMORY };

#define NMEM	5

/* An anonymous mapping of 4 KiB with |prot|: 0, or mmap()'s errno. */
static int
map_anon(int prot)
{
	void *m = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return errno;
	munmap(m, 4096);
	return 0;
}

/* Runs the memory attempts under |p|'s filter built with |opts|; |want|
 * their errnos. */
static void
run_memory(const struct tc_profile *p, unsigned opts, const int want[NMEM])
{
	static const char *const what[NMEM] = { "mmap(RW)",
	    "mmap(RX)", "mmap(RWX)", "mprotect(RW to RX)",
	    "pkey_mprotect(RX)" };
	struct tc_diag d = { "", 0 };
	struct tc_bpf bpf;
	int p2[2], got[NMEM], st, i;
	const char *jit = (opts & TC_SECCOMP_JIT) ? "jit" : "no jit";
	void *m;
	pid_t pid;

	if (!is_int(tc_seccomp_build(p, opts, &bpf, &d), 0, "%s, %s: the "
	    "filter builds", p->name, jit))
		return;
	if (pipe2(p2, O_CLOEXEC) != 0)
		abort();
	if ((pid = fork()) == 0) {
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    tc_seccomp_apply(&bpf) != 0)
			_exit(1);
		got[0] = map_anon(PROT_READ | PROT_WRITE);
		got[1] = map_anon(PROT_READ | PROT_EXEC);
		got[2] = map_anon(PROT_READ | PROT_WRITE | PROT_EXEC);
		got[3] = e(mprotect(m, 4096, PROT_READ | PROT_EXEC));
		got[4] = e(syscall(SYS_pkey_mprotect, m, 4096,
		    PROT_READ | PROT_EXEC, -1));
		_exit(write(p2[1], got, sizeof(got)) == sizeof(got) ? 0 : 2);
	}
	close(p2[1]);
	memset(got, 0xff, sizeof(got));
	if (read(p2[0], got, sizeof(got)) != sizeof(got))
		ok(0, "%s, %s: the child reported", p->name, jit);
	close(p2[0]);
	waitpid(pid, &st, 0);
	tc_seccomp_release(&bpf);
	for (i = 0; i < NMEM; i++)
		is_int(got[i], want[i], "%s, %s: %s", p->name, jit, what[i]);
}

/*
 * Memory and code: a profile that runs no programs maps nothing
 * executable; one that does maps code, never writable and executable at
 * once, and mprotect() adds execute to nothing; with the policy's "jit
 * on" (TC_SECCOMP_JIT) that profile takes any protection, and the other
 * is as it was.  pkey_mprotect() is refused to all.
 */
static void
test_memory(void)
{
	static const int none[NMEM] = { 0, EPERM, EPERM, EPERM, EPERM };
	static const int code[NMEM] = { 0, 0, EPERM, EPERM, EPERM };
	static const int jit[NMEM] = { 0, 0, 0, 0, EPERM };

	run_memory(&bare, TC_SECCOMP_LANDLOCK, none);
	run_memory(&bare, TC_SECCOMP_LANDLOCK | TC_SECCOMP_JIT, none);
	run_memory(&execmem, TC_SECCOMP_LANDLOCK, code);
	run_memory(&execmem, TC_SECCOMP_LANDLOCK | TC_SECCOMP_JIT, jit);
}

/*
 * A profile's filter lets through what its tables list, each rule as its
 * form says, and nothing of it is in another profile's.
 */
static void
test_tables(void)
{
	static const int own[NTABLE] = { 0, 0, EPERM, 0, EPERM, ENOSYS, 0,
	    EPERM, EPERM };
	static const int other[NTABLE] = { EPERM, EPERM, EPERM, EPERM, EPERM,
	    EPERM, EPERM, EPERM, EPERM };

	run_tables(&tables, own);
	run_tables(&bare, other);
	run_tables(&fs_read_profile, other);
}

/* A profile at odds with itself is refused, with its name. */
static void
test_refused(void)
{
	static const struct tc_syscall bad_kind[] = {
		{ .nr = SCMP_SYS(getcwd), .kind = (enum tc_sys_kind)42 },
	};
	static const struct tc_syscall bad_arg[] = {
		TC_SYS_IS(getpriority, 6, 0),
	};
	static const struct tc_syscall bad_arg2[] = {
		TC_SYS_ARGS2(getpriority, 0, 1, 0, 6, 1, 0),
	};
	static const struct tc_syscall second_on_eq[] = {
		{ .nr = SCMP_SYS(getpriority), .kind = TC_SYS_EQ,
		  .mask2 = 1 },
	};
	const struct tc_profile openat2_makes = {
		.name = "openat2-makes", .may = TC_MAY_OPENAT2,
		.write_access = TC_LL_FS_MAKE_REG,
	};
	const struct tc_profile openat2_rules = {
		.name = "openat2-rules", .may = TC_MAY_OPENAT2,
		.rules_access = TC_LL_FS_MAKE_DIR,
	};
	const struct tc_profile kind = {
		.name = "kind", .syscalls = { TC_SYSCALLS(bad_kind) },
	};
	const struct tc_profile arg = {
		.name = "arg", .syscalls = { TC_SYSCALLS(bad_arg) },
	};
	const struct tc_profile arg2 = {
		.name = "arg2", .syscalls = { TC_SYSCALLS(bad_arg2) },
	};
	const struct tc_profile eq2 = {
		.name = "eq2", .syscalls = { TC_SYSCALLS(second_on_eq) },
	};
	struct tc_diag d = { "", 0 };
	struct tc_bpf bpf;

	is_int(tc_seccomp_build(&openat2_makes, TC_SECCOMP_LANDLOCK, &bpf, &d),
	    TC_EINVAL, "openat2() with a right to make files: refused");
	ok(strstr(d.msg, "'openat2-makes'") != NULL, "the message names the "
	    "profile (%s)", d.msg);
	ok(bpf.insns == NULL, "no filter left behind");
	is_int(tc_seccomp_build(&openat2_rules, TC_SECCOMP_LANDLOCK, &bpf, &d),
	    TC_EINVAL, "openat2() with rules that may make files: refused");
	is_int(tc_seccomp_build(&kind, 0, &bpf, &d), TC_ESYS,
	    "a rule of no known kind: refused");
	is_int(tc_seccomp_build(&arg, 0, &bpf, &d), TC_ESYS,
	    "a rule on argument 6: refused");
	is_int(tc_seccomp_build(&arg2, 0, &bpf, &d), TC_ESYS,
	    "a second comparison on argument 6: refused");
	is_int(tc_seccomp_build(&eq2, 0, &bpf, &d), TC_ESYS,
	    "a second comparison on a rule not TC_SYS_MASKED: refused");
}

/*
 * clone()'s flags are its first argument but on s390, where they are its
 * second: a rule on any other argument would let every flag through, and
 * is refused.
 */
static void
test_clone_flags(void)
{
	static const struct tc_syscall on_flags[] = {
		TC_SYS_ARG(clone, TC_CLONE_FLAGS_ARG, CLONE_NEWUSER, 0),
	};
	static const struct tc_syscall on_other[] = {
		TC_SYS_ARG(clone, TC_CLONE_FLAGS_ARG == 0 ? 1 : 0,
		    CLONE_NEWUSER, 0),
	};
	const struct tc_profile flags = {
		.name = "clone-flags", .may = TC_MAY_FORK,
		.syscalls = { TC_SYSCALLS(on_flags) },
	};
	const struct tc_profile other = {
		.name = "clone-other", .may = TC_MAY_FORK,
		.syscalls = { TC_SYSCALLS(on_other) },
	};
	struct tc_diag d = { "", 0 };
	struct tc_bpf bpf;

	if (is_int(tc_seccomp_build(&flags, 0, &bpf, &d), 0,
	    "a clone() rule on its flags: built"))
		tc_seccomp_release(&bpf);
	is_int(tc_seccomp_build(&other, 0, &bpf, &d), TC_EINVAL,
	    "a clone() rule on another argument: refused");
	like(d.msg, "profile 'clone-other': a clone() rule on its argument",
	    "the message names the profile and the rule");
	ok(bpf.insns == NULL, "no filter left behind");
}

/*
 * A filter longer than the kernel loads (BPF_MAXINSNS instructions) is
 * refused when it is built, with a message, never cut to fit.
 */
static void
test_too_long(void)
{
	struct tc_syscall *many;
	struct tc_profile big = { .name = "too-long" };
	struct tc_diag d = { "", 0 };
	struct tc_bpf bpf;
	size_t i, n = 3 * BPF_MAXINSNS;

	if ((many = calloc(n, sizeof(*many))) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		many[i].nr = SCMP_SYS(getpriority);
		many[i].kind = TC_SYS_EQ;
		many[i].value = i;
	}
	big.syscalls[0].v = many;
	big.syscalls[0].n = n;
	is_int(tc_seccomp_build(&big, 0, &bpf, &d), TC_EINVAL,
	    "a filter of more than BPF_MAXINSNS instructions: refused");
	like(d.msg, "profile 'too-long': its seccomp filter has ",
	    "the message names the profile (%s)", d.msg);
	ok(bpf.insns == NULL && bpf.len == 0, "no filter left behind");
	free(many);
}

/* --- A network the policy grants --- */

/* A profile that may have one, with no tables of its own. */
static const struct tc_profile net = {
	.name = "net", .may = TC_MAY_NETWORK,
};

enum {
	NET_TCP4, NET_TCP6_FLAGS, NET_TCP_PROTO, NET_SCTP, NET_UDP, NET_UNIX,
	NET_NETLINK, NET_RAW, NET_CONNECT, NET_FASTOPEN, NET_SEND, NET_BIND,
	NET_LISTEN, NET_NCHECKS
};

static const char *const net_names[NET_NCHECKS] = {
	"socket(AF_INET, SOCK_STREAM, 0)",
	"socket(AF_INET6, SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC, 0)",
	"socket(AF_INET, SOCK_STREAM, IPPROTO_TCP)",
	"socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)",
	"socket(AF_INET, SOCK_DGRAM, 0)", "socket(AF_UNIX, SOCK_STREAM, 0)",
	"socket(AF_NETLINK, SOCK_RAW, 0)",
	"socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)", "connect",
	"sendto MSG_FASTOPEN", "sendto", "bind", "listen",
};

/* What a check may answer when the filter lets it through: anything but
 * EPERM (the kernel may lack SCTP, or the port be closed). */
#define PASSES	(-1)

/*
 * Loads |net|'s filter for |opts| in a child, tries each socket call, and
 * checks each against |want| (0 or PASSES: let through; else the errno).
 */
static void
run_net(unsigned opts, const char *label, const int want[NET_NCHECKS])
{
	struct sockaddr_in sin;
	struct tc_diag d = { "", 0 };
	struct tc_bpf bpf;
	int p[2], got[NET_NCHECKS], st, i, tcp[3], lsn;
	socklen_t len = sizeof(sin);
	pid_t pid;

	if (!is_int(tc_seccomp_build(&net, opts, &bpf, &d), 0,
	    "%s: the filter builds", label))
		return;
	/* A listener to connect to, and sockets made before the filter. */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((lsn = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(lsn, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(lsn, 8) != 0 ||
	    getsockname(lsn, (struct sockaddr *)&sin, &len) != 0)
		abort();
	for (i = 0; i < 3; i++)
		if ((tcp[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC,
		    0)) < 0)
			abort();
	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    tc_seccomp_apply(&bpf) != 0)
			_exit(1);
#define SOCK(k, f, t, pr)	do { int s_ = socket((f), (t), (pr));	\
				got[k] = e(s_); if (s_ >= 0) close(s_); } while (0)
		SOCK(NET_TCP4, AF_INET, SOCK_STREAM, 0);
		SOCK(NET_TCP6_FLAGS, AF_INET6, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		SOCK(NET_TCP_PROTO, AF_INET, SOCK_STREAM, IPPROTO_TCP);
		SOCK(NET_SCTP, AF_INET, SOCK_STREAM, IPPROTO_SCTP);
		SOCK(NET_UDP, AF_INET, SOCK_DGRAM, 0);
		SOCK(NET_UNIX, AF_UNIX, SOCK_STREAM, 0);
		SOCK(NET_NETLINK, AF_NETLINK, SOCK_RAW, 0);
		SOCK(NET_RAW, AF_INET, SOCK_RAW, IPPROTO_ICMP);
#undef SOCK
		got[NET_CONNECT] = e(connect(tcp[0], (struct sockaddr *)&sin,
		    sizeof(sin)));
		got[NET_FASTOPEN] = e(sendto(tcp[1], "x", 1, MSG_FASTOPEN,
		    (struct sockaddr *)&sin, sizeof(sin)));
		got[NET_SEND] = e(sendto(tcp[0], "x", 1, 0, NULL, 0));
		sin.sin_port = 0;
		got[NET_BIND] = e(bind(tcp[2], (struct sockaddr *)&sin,
		    sizeof(sin)));
		got[NET_LISTEN] = e(listen(tcp[2], 1));
		_exit(write(p[1], got, sizeof(got)) == sizeof(got) ? 0 : 2);
	}
	close(p[1]);
	for (i = 0; i < 3; i++)
		close(tcp[i]);
	memset(got, 0xff, sizeof(got));
	if (read(p[0], got, sizeof(got)) != sizeof(got))
		ok(0, "%s: the child reported", label);
	close(p[0]);
	waitpid(pid, &st, 0);
	close(lsn);
	tc_seccomp_release(&bpf);
	for (i = 0; i < NET_NCHECKS; i++)
		if (want[i] == PASSES)
			ok(got[i] != EPERM, "%s: %s let through (%d)", label,
			    net_names[i], got[i]);
		else
			is_int(got[i], want[i], "%s: %s", label, net_names[i]);
}

/*
 * Without a grant a profile with TC_MAY_NETWORK has no socket; "network
 * connect" gives TCP sockets that may connect and send, never with
 * MSG_FASTOPEN, never bind or listen, and nothing else; "network on" UDP
 * and what servers do too.  Never AF_UNIX, netlink or raw sockets.  A
 * profile with TC_MAY_NETWORK whose own tables allow a send that may
 * carry MSG_FASTOPEN is refused.
 */
static void
test_network(void)
{
	static const int none[NET_NCHECKS] = {
		EPERM, EPERM, EPERM, EPERM, EPERM, EPERM, EPERM, EPERM, EPERM,
		EPERM, EPERM, EPERM, EPERM,
	};
	static const int connect_only[NET_NCHECKS] = {
		0, 0, 0, EPERM, EPERM, EPERM, EPERM, EPERM, 0, EPERM, 0,
		EPERM, EPERM,
	};
	static const int any[NET_NCHECKS] = {
		0, 0, 0, PASSES, 0, EPERM, EPERM, EPERM, 0, PASSES, 0, 0, 0,
	};
	static const struct tc_syscall send_any[] = { TC_SYS(sendto) };
	static const struct tc_syscall send_eq[] = { TC_SYS_IS(sendmsg, 2,
	    MSG_FASTOPEN) };
	static const struct tc_syscall send_masked[] = {
		TC_SYS_ARG(sendto, 3, MSG_FASTOPEN, 0),
		TC_SYS_ARG(sendmsg, 2, MSG_FASTOPEN, 0),
		TC_SYS_FAIL(sendmmsg, ENOSYS),
	};
	const struct tc_profile fastopen = {
		.name = "fastopen", .may = TC_MAY_NETWORK,
		.syscalls = { TC_SYSCALLS(send_any) },
	};
	const struct tc_profile fastopen_eq = {
		.name = "fastopen-eq", .may = TC_MAY_NETWORK,
		.syscalls = { TC_SYSCALLS(send_eq) },
	};
	const struct tc_profile masked = {
		.name = "masked", .may = TC_MAY_NETWORK,
		.syscalls = { TC_SYSCALLS(send_masked) },
	};
	const struct tc_profile unnet = {
		.name = "unnet", .syscalls = { TC_SYSCALLS(send_any) },
	};
	struct tc_diag d = { "", 0 };
	struct tc_bpf bpf;

	run_net(TC_SECCOMP_LANDLOCK, "no network", none);
	run_net(TC_SECCOMP_LANDLOCK | TC_SECCOMP_NET_CONNECT,
	    "network connect", connect_only);
	run_net(TC_SECCOMP_LANDLOCK | TC_SECCOMP_NET_CONNECT |
	    TC_SECCOMP_NET_ANY, "network on", any);

	is_int(tc_seccomp_build(&fastopen, TC_SECCOMP_NET_CONNECT, &bpf, &d),
	    TC_EINVAL, "TC_MAY_NETWORK with sendto() of any flags: refused");
	ok(strstr(d.msg, "'fastopen'") != NULL && strstr(d.msg, "sendto()") !=
	    NULL && strstr(d.msg, "MSG_FASTOPEN") != NULL, "the message names "
	    "the profile, the call and the flag (%s)", d.msg);
	is_int(tc_seccomp_build(&fastopen_eq, 0, &bpf, &d), TC_EINVAL,
	    "TC_MAY_NETWORK with sendmsg() of MSG_FASTOPEN exactly: refused");
	if (is_int(tc_seccomp_build(&masked, TC_SECCOMP_NET_CONNECT, &bpf, &d),
	    0, "TC_MAY_NETWORK with sends that exclude MSG_FASTOPEN: built"))
		tc_seccomp_release(&bpf);
	if (is_int(tc_seccomp_build(&unnet, 0, &bpf, &d), 0, "sendto() of "
	    "any flags without TC_MAY_NETWORK: built"))
		tc_seccomp_release(&bpf);
}

/* Returns 1 if tables |a| and |b| hold the same rules. */
static int
same_tables(const struct tc_syscalls *a, const struct tc_syscalls *b)
{
	size_t i, k;

	for (i = 0; i < TC_SYSCALL_TABLES; i++) {
		if (a[i].n != b[i].n)
			return 0;
		for (k = 0; k < a[i].n; k++)
			if (a[i].v[k].nr != b[i].v[k].nr ||
			    a[i].v[k].kind != b[i].v[k].kind ||
			    a[i].v[k].arg != b[i].v[k].arg ||
			    a[i].v[k].mask != b[i].v[k].mask ||
			    a[i].v[k].value != b[i].v[k].value ||
			    a[i].v[k].arg2 != b[i].v[k].arg2 ||
			    a[i].v[k].mask2 != b[i].v[k].mask2 ||
			    a[i].v[k].value2 != b[i].v[k].value2)
				return 0;
	}
	return 1;
}

/* Returns 1 if |a| and |b| are the same profile but for their names. */
static int
same_profile(const struct tc_profile *a, const struct tc_profile *b)
{
	return same_tables(a->syscalls, b->syscalls) &&
	    a->root_access == b->root_access &&
	    a->write_access == b->write_access && a->nsystem == b->nsystem &&
	    a->rules == b->rules && a->rules_access == b->rules_access &&
	    a->ns == b->ns && a->roots == b->roots && a->may == b->may;
}

/* The hostile server's copies of fs's profiles are fs's, field for
 * field: the containment tests show what fs's children can do. */
static void
test_copies(void)
{
	ok(same_profile(&fs_read_profile, &hostile_fs_read),
	    "hostile-fs-read is fs-read");
	ok(same_profile(&fs_write_profile, &hostile_fs_write),
	    "hostile-fs-write is fs-write");
	ok(!same_profile(&fs_read_profile, &fs_write_profile),
	    "(and the comparison tells two profiles apart)");
}

/*
 * A root without CAP_SETPCAP (its bounding set cut, no user namespace)
 * cannot set the securebits that keep an exec from giving it capabilities
 * back: tc_lock_privileges() fails for a child that stays root, and lets
 * one through that will switch to another user.
 */
static void
test_lock_without_setpcap(void)
{
	const cap_value_t setpcap = CAP_SETPCAP;
	pid_t pid;
	int st;

	if (geteuid() != 0) {
		skip("not root: only root's children are locked");
		skip("not root: only root's children are locked");
		return;
	}
	if ((pid = fork()) == 0) {
		cap_t c = cap_get_proc();

		if (c == NULL || cap_set_flag(c, CAP_EFFECTIVE, 1, &setpcap,
		    CAP_CLEAR) != 0 || cap_set_flag(c, CAP_PERMITTED, 1,
		    &setpcap, CAP_CLEAR) != 0 || cap_set_proc(c) != 0)
			_exit(9);
		_exit((tc_lock_privileges(1) == -1 ? 0 : 1) |
		    (tc_lock_privileges(0) == 0 ? 0 : 2));
	}
	st = -1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ok(WIFEXITED(st) && (WEXITSTATUS(st) & 1) == 0 &&
	    WEXITSTATUS(st) != 9, "root without CAP_SETPCAP that stays root: "
	    "the lock fails");
	ok(WIFEXITED(st) && (WEXITSTATUS(st) & 2) == 0 &&
	    WEXITSTATUS(st) != 9, "root without CAP_SETPCAP that switches "
	    "users: let through");
}

/* --- A zygote's two filters (zygote.c) --- */

/*
 * The calls a zygote's filter adds, and their neighbours by argument:
 * each is made in a process of its own, so that a kill is seen.  The
 * result is the errno (0: it went through), or 1000 + the signal that
 * killed the process.
 */
enum {
	ZF_CLONE_PARENT, ZF_CLONE_PARENT_HIGH, ZF_CLONE_PARENT_SIGCHLD, ZF_FORK,
	ZF_CLONE3, ZF_SYS_FORK, ZF_RECVMSG, ZF_RECVMSG_OOB, ZF_RECVMMSG,
	ZF_SENDMSG, ZF_SETSID, ZF_LL_RESTRICT, ZF_LL_CREATE, ZF_PDEATHSIG,
	ZF_PDEATHSIG_HIGH, ZF_SET_SECCOMP, ZF_SET_SECCOMP_STRICT_HIGH,
	ZF_GET_DUMPABLE, ZF_SET_DUMPABLE, ZF_SECCOMP, ZF_UNSHARE, ZF_X32_GETPID,
	ZF_GETPID,
	/* From here, what a zygote's child may not do that its profile
	 * allows: state set on a description it shares (shared_fcntl). */
	ZF_SAME, ZF_OFD_SETLK = ZF_SAME, ZF_OFD_SETLKW, ZF_SETFL, ZF_SETFL_HIGH,
	ZF_SETLK, ZF_GETFL, ZF_NCHECKS
};

static const char *const zf_names[ZF_NCHECKS] = {
	"clone(CLONE_PARENT)", "clone(CLONE_PARENT | 1 << 32)",
	"clone(CLONE_PARENT | SIGCHLD)", "clone(SIGCHLD)", "clone3",
	"fork", "recvmsg", "recvmsg MSG_OOB", "recvmmsg", "sendmsg",
	"setsid", "landlock_restrict_self", "landlock_create_ruleset",
	"prctl PR_SET_PDEATHSIG", "prctl PR_SET_PDEATHSIG | 1 << 32",
	"prctl PR_SET_SECCOMP (bad mode)",
	"prctl PR_SET_SECCOMP | 1 << 32 (bad mode)",
	"prctl PR_GET_DUMPABLE", "prctl PR_SET_DUMPABLE", "seccomp",
	"unshare(0)", "x32 getpid", "getpid",
	"fcntl F_OFD_SETLK", "fcntl F_OFD_SETLKW", "fcntl F_SETFL",
	"fcntl F_SETFL | 1 << 32", "fcntl F_SETLK", "fcntl F_GETFL",
};

/* A fork that returns in the child: it leaves at once. */
static long
zf_clone(unsigned long flags)
{
	long rc;

#if TC_CLONE_FLAGS_ARG == 1
	rc = syscall(SYS_clone, 0UL, flags, NULL, NULL, 0UL);
#else
	rc = syscall(SYS_clone, flags, 0UL, NULL, NULL, 0UL);
#endif
	if (rc == 0)
		_exit(0);
	return rc;
}

/* fcntl |cmd| on a file of the scratch directory: a read lock on its
 * first byte, or O_NONBLOCK for F_SETFL. */
static long
zf_fcntl(unsigned long cmd)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET,
	    .l_start = 0, .l_len = 1 };
	char p[128];
	long rc;
	int fd;

	snprintf(p, sizeof(p), "%s/f", dir);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if ((unsigned)cmd == F_SETFL)
		rc = syscall(SYS_fcntl, fd, cmd, (unsigned long)O_NONBLOCK);
	else
		rc = syscall(SYS_fcntl, fd, cmd, &fl);
	close(fd);
	return rc < 0 ? rc : 0;
}

static long
zf_attempt(int k)
{
	switch (k) {
	case ZF_OFD_SETLK:
		return zf_fcntl(F_OFD_SETLK);
	case ZF_OFD_SETLKW:
		return zf_fcntl(F_OFD_SETLKW);
	case ZF_SETFL:
		return zf_fcntl(F_SETFL);
	case ZF_SETFL_HIGH:
		return zf_fcntl(F_SETFL | (1UL << 32));
	case ZF_SETLK:
		return zf_fcntl(F_SETLK);
	case ZF_GETFL:
		return zf_fcntl(F_GETFL);
	case ZF_CLONE_PARENT:
		return zf_clone(CLONE_PARENT);
	case ZF_CLONE_PARENT_HIGH:
		return zf_clone(CLONE_PARENT | (1UL << 32));
	case ZF_CLONE_PARENT_SIGCHLD:
		return zf_clone(CLONE_PARENT | SIGCHLD);
	case ZF_FORK:
		return zf_clone(SIGCHLD);
	case ZF_CLONE3:
		return syscall(SYS_clone3, NULL, 0UL);
#ifdef SYS_fork
	case ZF_SYS_FORK: {
		long rc = syscall(SYS_fork);

		if (rc == 0)
			_exit(0);
		return rc;
	}
#endif
	case ZF_RECVMSG:
		return syscall(SYS_recvmsg, -1, NULL, 0);
	case ZF_RECVMSG_OOB:
		return syscall(SYS_recvmsg, -1, NULL, MSG_OOB);
	case ZF_RECVMMSG:
		return syscall(SYS_recvmmsg, -1, NULL, 0, 0, NULL);
	case ZF_SENDMSG:
		return syscall(SYS_sendmsg, -1, NULL, 0);
	case ZF_SETSID:
		return syscall(SYS_setsid);
	case ZF_LL_RESTRICT:
		return syscall(SYS_landlock_restrict_self, -1, 0);
	case ZF_LL_CREATE:
		return syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	case ZF_PDEATHSIG:
		return syscall(SYS_prctl, PR_SET_PDEATHSIG, 0UL, 0UL, 0UL, 0UL);
	case ZF_PDEATHSIG_HIGH:
		return syscall(SYS_prctl, PR_SET_PDEATHSIG | (1UL << 32), 0UL,
		    0UL, 0UL, 0UL);
	case ZF_SET_SECCOMP:
		return syscall(SYS_prctl, PR_SET_SECCOMP, 77UL, 0UL, 0UL, 0UL);
	case ZF_SET_SECCOMP_STRICT_HIGH:
		return syscall(SYS_prctl, PR_SET_SECCOMP | (1UL << 32), 77UL,
		    0UL, 0UL, 0UL);
	case ZF_GET_DUMPABLE:
		return syscall(SYS_prctl, PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
	case ZF_SET_DUMPABLE:
		return syscall(SYS_prctl, PR_SET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
	case ZF_SECCOMP:
		return syscall(SYS_seccomp, 77U, 0U, NULL);
	case ZF_UNSHARE:
		return syscall(SYS_unshare, 0UL);
#if defined(__x86_64__)
	case ZF_X32_GETPID:
		return syscall(0x40000000 | SYS_getpid);
#endif
	case ZF_GETPID:
		return syscall(SYS_getpid);
	}
	errno = ENOSYS;
	return -1;
}

/*
 * Makes attempt |k| in a new process under |a| then |b| (b NULL: |a|
 * alone).  Returns its errno, 0, or 1000 + the signal that killed it.
 */
static int
zf_run(const struct tc_bpf *a, const struct tc_bpf *b, int k)
{
	int p[2], err = -1, st;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	if ((pid = fork()) == 0) {
		long rc;

		close(p[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    tc_seccomp_apply(a) != 0 ||
		    (b != NULL && tc_seccomp_apply(b) != 0))
			_exit(1);
		rc = zf_attempt(k);
		err = rc < 0 ? errno : 0;
		_exit(write(p[1], &err, sizeof(err)) == sizeof(err) ? 0 : 2);
	}
	close(p[1]);
	if (read(p[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	close(p[0]);
	/* Children made with CLONE_PARENT are ours: reaped too. */
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (WIFSIGNALED(st))
		return 1000 + WTERMSIG(st);
	return err;
}

/*
 * The zygote's filter and its children's, one loaded on the other as a
 * child of a zygote has them, answer every call as |p|'s own filter
 * does: each of the zygote's additions and its neighbours, and a
 * control.
 */
static void
zf_same(const struct tc_profile *p, unsigned opts, const char *label)
{
	struct tc_bpf own, zyg, frk;
	struct tc_diag d = { "", 0 };
	int k, a, b;

	if (!is_int(tc_seccomp_build(p, opts, &own, &d), 0,
	    "%s: its filter builds", label))
		return;
	if (tc_seccomp_build(p, opts | TC_SECCOMP_ZYGOTE, &zyg, &d) != 0 ||
	    tc_seccomp_build_fork(p, &frk, &d) != 0) {
		/* No zygote for it: its children are confined from the
		 * start, which is the same filter. */
		ok(1, "%s: no zygote (%s)", label, d.msg);
		tc_seccomp_release(&own);
		return;
	}
	/* Not a test of nothing: the zygote's filter alone lets through
	 * what a zygote and its child do, and no more of clone(). */
	is_int(zf_run(&zyg, NULL, ZF_CLONE_PARENT), 0,
	    "%s: the zygote's filter alone allows clone(CLONE_PARENT)", label);
	is_int(zf_run(&zyg, NULL, ZF_CLONE_PARENT_SIGCHLD), EPERM,
	    "%s: and no other clone()", label);
	is_int(zf_run(&zyg, NULL, ZF_RECVMSG), EBADF,
	    "%s: and recvmsg()", label);
	is_int(zf_run(&zyg, NULL, ZF_LL_RESTRICT), EBADF,
	    "%s: and landlock_restrict_self()", label);
	is_int(zf_run(&zyg, NULL, ZF_SET_SECCOMP), EINVAL,
	    "%s: and prctl(PR_SET_SECCOMP)", label);
	for (k = 0; k < ZF_SAME; k++) {
		a = zf_run(&own, NULL, k);
		b = zf_run(&zyg, &frk, k);
		is_int(b, a, "%s: %s under the zygote's and the fork filter "
		    "as under the profile's", label, zf_names[k]);
	}
	/* fcntl() on what a child shares with its zygote: the profile
	 * allows it all (the base list), a zygote's child not what would
	 * outlive the call. */
	for (; k < ZF_NCHECKS; k++) {
		int refused = k != ZF_SETLK && k != ZF_GETFL;

		is_int(zf_run(&own, NULL, k), 0, "%s: %s under the profile's",
		    label, zf_names[k]);
		is_int(zf_run(&zyg, &frk, k), refused ? EPERM : 0, "%s: %s "
		    "%s in a zygote's child", label, zf_names[k], refused ?
		    "refused" : "allowed");
	}
	tc_seccomp_release(&own);
	tc_seccomp_release(&zyg);
	tc_seccomp_release(&frk);
}

static void
test_zygote_exact(void)
{
	/* Profiles that name what a zygote's filter adds. */
	static const struct tc_syscall names_recvmsg[] = {
		TC_SYS_ARG(recvmsg, 2, MSG_OOB, 0),
	};
	static const struct tc_syscall fails_clone[] = {
		TC_SYS_FAIL(clone, ENOSYS),
	};
	static const struct tc_syscall fails_setsid[] = {
		TC_SYS_FAIL(setsid, ENOSYS),
	};
	static const struct tc_syscall allows_setsid[] = {
		TC_SYS(setsid),
	};
	static const struct tc_syscall allows_pdeathsig[] = {
		TC_SYS_IS(prctl, 0, PR_SET_PDEATHSIG),
	};
	const struct tc_profile p_recvmsg = {
		.name = "recvmsg-by-flags",
		.syscalls = { TC_SYSCALLS(names_recvmsg) },
	};
	const struct tc_profile p_clone = {
		.name = "clone-fails",
		.syscalls = { TC_SYSCALLS(fails_clone) },
	};
	const struct tc_profile p_setsid = {
		.name = "setsid-fails",
		.syscalls = { TC_SYSCALLS(fails_setsid) },
	};
	const struct tc_profile p_setsid_ok = {
		.name = "setsid-allowed",
		.syscalls = { TC_SYSCALLS(allows_setsid) },
	};
	const struct tc_profile p_pdeathsig = {
		.name = "pdeathsig",
		.syscalls = { TC_SYSCALLS(allows_pdeathsig) },
	};
	unsigned opts = TC_SECCOMP_LANDLOCK | TC_SECCOMP_SIGNALS;

	zf_same(&hostile_sqlite, opts, "sqlite's zygote");
	zf_same(&fs_read_profile, opts, "fs-read's zygote");
	zf_same(&p_recvmsg, opts, "a profile's recvmsg() by its flags");
	zf_same(&p_clone, opts, "a profile's clone() refused ENOSYS");
	zf_same(&p_setsid, opts, "a profile's setsid() refused ENOSYS");
	zf_same(&p_pdeathsig, opts, "a profile's PR_SET_PDEATHSIG");
	/* Allowed whatever its arguments: its own filter keeps it so. */
	zf_same(&p_setsid_ok, opts, "a profile's setsid() allowed");
}

int
main(void)
{
	static const struct want fs_read[] = {
		BASE_OK, { OPENAT2, 0 },
	};
	static const struct want fs_read_nolandlock[] = {
		BASE_OK, { OPENAT2, ENOSYS },
	};
	static const struct want fs_write[] = {
		BASE_OK, { OPENAT2, ENOSYS }, { MKDIR_0755, 0 },
	};
	static const struct want sqlite[] = {
		BASE_OK, { OPENAT2, ENOSYS },
	};
	static const struct want exec_signals[] = {
		BASE_OK, { OPENAT2, ENOSYS }, { MKDIR_0755, 0 },
		{ KILL_PARENT, 0 }, { KILL_GROUP, 0 }, { TGKILL_SELF, 0 },
		{ GETPGID_SELF, 0 }, { AFFINITY_SELF, 0 }, { FORK, 0 },
	};
	static const struct want exec_unscoped[] = {
		BASE_OK, { OPENAT2, ENOSYS }, { MKDIR_0755, 0 },
		{ KILL_GROUP, 0 }, { GETPGID_SELF, 0 }, { AFFINITY_SELF, 0 },
		{ FORK, 0 },
	};
	char p[128];
	int fd, rc;

	snprintf(dir, sizeof(dir), "%s/tc-seccomp-XXXXXX", "/tmp");
	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(p, sizeof(p), "%s/f", dir);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
		abort();
	close(fd);
	run(&fs_read_profile, TC_SECCOMP_LANDLOCK | TC_SECCOMP_SIGNALS,
	    "fs-read", fs_read, TC_NITEMS(fs_read));
	run(&fs_read_profile, TC_SECCOMP_SIGNALS,
	    "fs-read without Landlock", fs_read_nolandlock,
	    TC_NITEMS(fs_read_nolandlock));
	run(&fs_write_profile, TC_SECCOMP_LANDLOCK | TC_SECCOMP_SIGNALS,
	    "fs-write", fs_write, TC_NITEMS(fs_write));
	/* The hostile server's copies of fs's profiles, which the
	 * containment tests run: the same filters. */
	run(&hostile_fs_read, TC_SECCOMP_LANDLOCK | TC_SECCOMP_SIGNALS,
	    "hostile fs-read", fs_read, TC_NITEMS(fs_read));
	run(&hostile_fs_write, TC_SECCOMP_LANDLOCK | TC_SECCOMP_SIGNALS,
	    "hostile fs-write", fs_write, TC_NITEMS(fs_write));
	/* SQLite's files are made and removed, never directories: no
	 * mkdirat (its closed-list profile had the write tools' calls). */
	run(&hostile_sqlite, TC_SECCOMP_LANDLOCK | TC_SECCOMP_SIGNALS,
	    "sqlite", sqlite, TC_NITEMS(sqlite));
	run(&hostile_exec, TC_SECCOMP_LANDLOCK | TC_SECCOMP_SIGNALS,
	    "shell-exec, signals confined", exec_signals,
	    TC_NITEMS(exec_signals));
	run(&hostile_exec, TC_SECCOMP_LANDLOCK,
	    "shell-exec, signals unconfined", exec_unscoped,
	    TC_NITEMS(exec_unscoped));
	test_tables();
	test_memory();
	test_refused();
	test_clone_flags();
	test_too_long();
	test_zygote();
	test_network();
	test_copies();
	test_lock_without_setpcap();
	test_zygote_exact();
	rc = done_testing();
	for (fd = 0; fd < 4; fd++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names_made[fd]);
		(void)unlink(p);
	}
	snprintf(p, sizeof(p), "%s/d", dir);
	(void)rmdir(p);
	(void)rmdir(dir);
	return rc;
}
