/*
 * sandbox-seccomp.c: a default-deny system call allowlist per confinement
 * profile, compiled to BPF once at start; each child only loads its
 * profile's program, last of all its confinement steps.
 *
 * Anything not listed fails with EPERM.  Only the native architecture is
 * allowed: an i386 (int 0x80) or x32 system call kills the process, which
 * closes the classic bypass of a filter that checks numbers alone.  The
 * lists are short on purpose: io_uring, ptrace, process_vm_*, the mount
 * family, namespace creation, keyctl, bpf, perf_event_open, userfaultfd,
 * kexec and modules are not on any of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/sandbox-int.h"

/*
 * What every handler needs: memory, its own fds, time, leaving, and
 * where its files are.  Nothing here takes a pid: the calls that do, or
 * that could be aimed at another process by some argument, are in
 * base_args below with that argument pinned to the caller.
 */
static const int base_calls[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
	SCMP_SYS(pread64), SCMP_SYS(lseek), SCMP_SYS(close),
	SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx),
	SCMP_SYS(fstatfs), SCMP_SYS(getdents64),
	/* Where an opened file really is, from /proc/self/fd, for the deny
	 * rules (path.c).  Landlock does not cover readlink: like stat, it
	 * can read a symlink's target anywhere, which names but opens
	 * nothing. */
	SCMP_SYS(readlinkat),
	SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap),
	SCMP_SYS(madvise),
	SCMP_SYS(futex), SCMP_SYS(getrandom),
	SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday),
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid),
	SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
	SCMP_SYS(getegid), SCMP_SYS(sched_yield),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigaction), SCMP_SYS(exit), SCMP_SYS(exit_group),
};

/*
 * A system call allowed when argument |arg|, masked with |mask|, equals
 * |value|.  Several rules for one call allow it when any of them holds.
 * A pid, a command or a mode is an int: only its low 32 bits are
 * compared, which is all the kernel reads of it.
 */
struct arg_rule {
	int		nr;
	unsigned	arg;
	uint64_t	mask;
	uint64_t	value;
};

#define LOW32		0xffffffffULL
#define SETID		((uint64_t)(S_ISUID | S_ISGID))
/* The open flags that make the kernel read the mode. */
#define MAKES		((uint64_t)(O_CREAT | __O_TMPFILE))
/*
 * The static clocks are not negative.  A negative id is ~pid << 3 (or
 * ~tid, ~fd) with a type in its low 3 bits: 0, 1, 2 a process's CPU
 * clocks (profiling, virtual, scheduler), the same with 4 added its
 * thread's, and 3 a clock read from the fd (a PTP device, say), 7
 * invalid.  Pid 0 is the caller: its own CPU clocks are 0xfffffff8 with
 * 0, 1, 2, 4, 5 or 6, which the two rules below admit and nothing else
 * (the first leaves bits 0 and 2 free with bit 1 clear: 0, 1, 4, 5; the
 * second bits 1 and 2 with bit 0 clear: 0, 2, 4, 6).
 */
#define CLOCK_STATIC(nr)	{ (nr), 0, 0x80000000ULL, 0 }
#define CLOCK_OWN_CPU(nr)	{ (nr), 0, 0xfffffffaULL, 0xfffffff8ULL }, \
				{ (nr), 0, 0xfffffff9ULL, 0xfffffff8ULL }
#define FCNTL(cmd)	{ SCMP_SYS(fcntl), 1, LOW32, (cmd) }

static const struct arg_rule base_args[] = {
	/* Only its own limits: glibc's getrlimit() and setrlimit() pass
	 * pid 0, and another process's (the server's) are not its to
	 * lower. */
	{ SCMP_SYS(prlimit64), 0, LOW32, 0 },
	/* The static clocks and its own CPU clocks, not another
	 * process's: that reads or waits on its CPU time. */
	CLOCK_STATIC(SCMP_SYS(clock_gettime)),
	CLOCK_OWN_CPU(SCMP_SYS(clock_gettime)),
	CLOCK_STATIC(SCMP_SYS(clock_nanosleep)),
	CLOCK_OWN_CPU(SCMP_SYS(clock_nanosleep)),
	/* fcntl's ordinary commands.  Not F_SETOWN, F_SETOWN_EX and
	 * F_SETSIG, which direct a signal at any process (a root owner's
	 * at every process, its own capabilities gone or not), nor
	 * F_SETLEASE and F_NOTIFY, which make it an owner of its own. */
	FCNTL(F_DUPFD), FCNTL(F_DUPFD_CLOEXEC), FCNTL(F_GETFD),
	FCNTL(F_SETFD), FCNTL(F_GETFL), FCNTL(F_SETFL), FCNTL(F_GETLK),
	FCNTL(F_SETLK), FCNTL(F_SETLKW), FCNTL(F_OFD_GETLK),
	FCNTL(F_OFD_SETLK), FCNTL(F_OFD_SETLKW), FCNTL(F_GETPIPE_SZ),
	FCNTL(F_SETPIPE_SZ),
	/* Landlock decides where a file may be opened or made; a file
	 * made is never set-user-ID or set-group-ID (the mode is read
	 * only with O_CREAT or O_TMPFILE). */
	{ SCMP_SYS(openat), 2, MAKES, 0 },
	{ SCMP_SYS(openat), 3, SETID, 0 },
};

/*
 * Changing files beneath writable roots.  Not the chmod family nor
 * utimensat(): Landlock does not govern a file's mode or times, so a path
 * would reach any file of the caller's uid (every file root owns, for a
 * call that runs as root), and fchmod() any file it can open, read-only
 * roots included.  write_file gives a new file its mode as it makes it.
 */
static const int write_calls[] = {
	SCMP_SYS(unlinkat), SCMP_SYS(renameat2), SCMP_SYS(symlinkat),
	SCMP_SYS(ftruncate), SCMP_SYS(fallocate), SCMP_SYS(fsync),
	SCMP_SYS(fdatasync), SCMP_SYS(umask),
};

static const struct arg_rule write_args[] = {
	{ SCMP_SYS(mkdirat), 2, SETID, 0 },
};

/*
 * Running programs: processes, pipes, waiting, signals in its domain.
 * wait4, waitid and setpgid reach only the caller's children by their
 * nature; kill and tgkill are in signal_args.
 */
static const int exec_calls[] = {
	SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(vfork),
	SCMP_SYS(wait4), SCMP_SYS(waitid),
	SCMP_SYS(pipe2), SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3),
	SCMP_SYS(setpgid), SCMP_SYS(getpgrp),
	SCMP_SYS(setsid), SCMP_SYS(chdir), SCMP_SYS(fchdir),
	SCMP_SYS(getcwd), SCMP_SYS(access), SCMP_SYS(faccessat),
	SCMP_SYS(faccessat2), SCMP_SYS(readlink), SCMP_SYS(readlinkat),
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select),
	SCMP_SYS(pselect6), SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address),
	SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(sigaltstack),
	SCMP_SYS(rt_sigsuspend), SCMP_SYS(getrusage), SCMP_SYS(sysinfo),
	SCMP_SYS(uname), SCMP_SYS(getrlimit), SCMP_SYS(alarm),
	SCMP_SYS(setitimer), SCMP_SYS(pause),
	SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(pipe),
};

/* The fork flags a program may not use: new namespaces, and a child
 * given to the caller's parent (the server or the spawner). */
#define CLONE_DENIED	((uint64_t)(CLONE_NEWNS | CLONE_NEWUTS |	\
			 CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |	\
			 CLONE_NEWNET | CLONE_NEWCGROUP | CLONE_PARENT))

static const struct arg_rule exec_args[] = {
	/* About itself only. */
	{ SCMP_SYS(getpgid), 0, LOW32, 0 },
	{ SCMP_SYS(getsid), 0, LOW32, 0 },
	{ SCMP_SYS(sched_getaffinity), 0, LOW32, 0 },
	{ SCMP_SYS(open), 1, MAKES, 0 },
	{ SCMP_SYS(open), 2, SETID, 0 },
	{ SCMP_SYS(clone), 0, CLONE_DENIED, 0 },
	{ SCMP_SYS(socketpair), 0, LOW32, AF_UNIX },
};

/*
 * Signals, where they cannot leave the call: a PID namespace of its own
 * shows no other process, and Landlock's signal scope (ABI 6) refuses any
 * outside its domain.  Without either, only its own process group: the
 * call's session, which no process of the call can leave for a group of
 * another session.
 */
static const int signal_calls[] = {
	SCMP_SYS(kill), SCMP_SYS(tgkill),
};

static const struct arg_rule signal_own_group[] = {
	{ SCMP_SYS(kill), 0, LOW32, 0 },
};

#ifdef TC_SANITIZE
/* ASan and UBSan's runtime, in the sanitizer build only. */
static const int sanitizer_calls[] = {
	SCMP_SYS(sigaltstack), SCMP_SYS(getrlimit), SCMP_SYS(readlink),
	SCMP_SYS(readlinkat), SCMP_SYS(uname),
};

static const struct arg_rule sanitizer_args[] = {
	{ SCMP_SYS(sched_getaffinity), 0, LOW32, 0 },
};
#endif

static int
allow(scmp_filter_ctx ctx, const int *calls, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 0) != 0)
			return -1;
	return 0;
}

static int
allow_args(scmp_filter_ctx ctx, const struct arg_rule *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r[i].nr, 1,
		    SCMP_CMP(r[i].arg, SCMP_CMP_MASKED_EQ, r[i].mask,
		    r[i].value)) != 0)
			return -1;
	return 0;
}

static const int prctl_ops[] = {
	PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP, PR_CAPBSET_READ, PR_GET_DUMPABLE,
	PR_GET_PDEATHSIG, PR_SET_NAME, PR_GET_NAME,
};

static int
add_rules(scmp_filter_ctx ctx, enum tc_profile profile, unsigned opts)
{
	size_t i;

	if (allow(ctx, base_calls, TC_NITEMS(base_calls)) != 0 ||
	    allow_args(ctx, base_args, TC_NITEMS(base_args)) != 0)
		return -1;
	/* openat2() hides its mode in memory, where the filter cannot see
	 * it: refused (ENOSYS, so that path.c walks with openat() instead)
	 * wherever a file could be made with it, that is, everywhere but
	 * the read-only profile under Landlock, which grants no right to
	 * make anything. */
	if (profile == TC_PROFILE_FS_READ && (opts & TC_SECCOMP_LANDLOCK)) {
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat2),
		    0) != 0)
			return -1;
	} else if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(openat2), 0) != 0)
		return -1;
	/* Memory may never become executable: no code injected at run
	 * time, whatever a handler is tricked into.  mprotect() never adds
	 * PROT_EXEC.  A file profile's mmap() never maps anything
	 * executable (its code is all loaded before confinement); the exec
	 * profile's programs need their own code mapped, so there mmap() may
	 * map executable memory, but never writable and executable at once.
	 * (A JIT that needs both is refused.) */
	if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) != 0)
		return -1;
	if (profile != TC_PROFILE_SHELL_EXEC) {
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) != 0)
			return -1;
	} else if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_WRITE | PROT_EXEC, 0)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_WRITE | PROT_EXEC,
	    PROT_WRITE)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_WRITE | PROT_EXEC,
	    PROT_EXEC)) != 0)
		return -1;
	/* prctl only to read what the confinement left, or to name a
	 * thread. */
	for (i = 0; i < TC_NITEMS(prctl_ops); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
		    SCMP_A0(SCMP_CMP_EQ, prctl_ops[i])) != 0)
			return -1;
#ifdef TC_SANITIZE
	if (allow(ctx, sanitizer_calls, TC_NITEMS(sanitizer_calls)) != 0 ||
	    allow_args(ctx, sanitizer_args, TC_NITEMS(sanitizer_args)) != 0)
		return -1;
#endif
	if (profile == TC_PROFILE_FS_WRITE || profile == TC_PROFILE_SQLITE ||
	    profile == TC_PROFILE_SHELL_EXEC)
		if (allow(ctx, write_calls, TC_NITEMS(write_calls)) != 0 ||
		    allow_args(ctx, write_args, TC_NITEMS(write_args)) != 0)
			return -1;
	/* write_file names the unnamed (O_TMPFILE) file it wrote with
	 * linkat() of its /proc/self/fd link, and needs no other form.
	 * Landlock still decides where a link may be made (MAKE_REG, and
	 * REFER across directories). */
	if (profile == TC_PROFILE_FS_WRITE &&
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(linkat), 1,
	    SCMP_A4(SCMP_CMP_EQ, AT_SYMLINK_FOLLOW)) != 0)
		return -1;
	if (profile == TC_PROFILE_SHELL_EXEC) {
		if (allow(ctx, exec_calls, TC_NITEMS(exec_calls)) != 0 ||
		    allow_args(ctx, exec_args, TC_NITEMS(exec_args)) != 0)
			return -1;
		if ((opts & TC_SECCOMP_SIGNALS) ? allow(ctx, signal_calls,
		    TC_NITEMS(signal_calls)) != 0 : allow_args(ctx,
		    signal_own_group, TC_NITEMS(signal_own_group)) != 0)
			return -1;
		/* clone3 hides its flags in memory, so it is refused and
		 * libc falls back to clone. */
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    SCMP_SYS(clone3), 0) != 0)
			return -1;
	}
	return 0;
}

int
tc_seccomp_build(enum tc_profile profile, unsigned opts, struct tc_bpf *out,
    struct tc_diag *d)
{
	scmp_filter_ctx ctx;
	struct stat st;
	int fd = -1, rc = TC_ESYS;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL)
		return tc_diag(d, TC_ESYS, "seccomp_init failed");
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
	    /* A binary tree of syscall numbers rather than a list: the
	     * kernel runs the filter once per syscall number to build its
	     * cache when it is loaded, so a shorter path is a cheaper load
	     * (ANCHORS-SANDBOX measures about half). */
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) != 0 ||
	    add_rules(ctx, profile, opts) != 0) {
		tc_diag(d, TC_ESYS, "cannot build the seccomp filter");
		goto out;
	}
	/* libseccomp 2.5 exports only to an fd; a memfd keeps it off disk. */
	if ((fd = memfd_create("tc-seccomp", MFD_CLOEXEC)) < 0 ||
	    seccomp_export_bpf(ctx, fd) != 0 || fstat(fd, &st) != 0 ||
	    st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0) {
		tc_diag_errno(d, TC_ESYS, "cannot export the seccomp filter");
		goto out;
	}
	if ((out->insns = malloc((size_t)st.st_size)) == NULL ||
	    (n = pread(fd, out->insns, (size_t)st.st_size, 0)) !=
	    st.st_size) {
		free(out->insns);
		out->insns = NULL;
		tc_diag(d, TC_ESYS, "cannot read the seccomp filter");
		goto out;
	}
	out->len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return rc;
}

void
tc_seccomp_release(struct tc_bpf *b)
{
	free(b->insns);
	memset(b, 0, sizeof(*b));
}

int
tc_seccomp_apply(const struct tc_bpf *b)
{
	struct sock_fprog prog;

	if (b->insns == NULL) {
		errno = EINVAL;
		return -1;
	}
	prog.len = b->len;
	prog.filter = b->insns;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
