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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox-int.h"

/* What every handler needs: memory, its own fds, time, leaving, and
 * where its files are. */
static const int base_calls[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
	SCMP_SYS(pread64), SCMP_SYS(lseek), SCMP_SYS(close),
	SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx),
	SCMP_SYS(fcntl), SCMP_SYS(getdents64),
	SCMP_SYS(openat), SCMP_SYS(openat2),	/* Landlock decides where */
	/* Where an opened file really is, from /proc/self/fd, for the deny
	 * rules (path.c).  Landlock does not cover readlink: like stat, it
	 * can read a symlink's target anywhere, which names but opens
	 * nothing. */
	SCMP_SYS(readlinkat),
	SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap),
	SCMP_SYS(madvise),
	SCMP_SYS(futex), SCMP_SYS(getrandom),
	SCMP_SYS(clock_gettime), SCMP_SYS(clock_nanosleep),
	SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday),
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid),
	SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
	SCMP_SYS(getegid), SCMP_SYS(prlimit64), SCMP_SYS(sched_yield),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigaction), SCMP_SYS(exit), SCMP_SYS(exit_group),
};

/* Changing files beneath writable roots. */
static const int write_calls[] = {
	SCMP_SYS(mkdirat), SCMP_SYS(unlinkat), SCMP_SYS(renameat2),
	SCMP_SYS(symlinkat), SCMP_SYS(fchmod), SCMP_SYS(fchmodat),
	SCMP_SYS(ftruncate), SCMP_SYS(fallocate), SCMP_SYS(fsync),
	SCMP_SYS(fdatasync), SCMP_SYS(utimensat), SCMP_SYS(umask),
};

/* Running programs: processes, pipes, waiting, signals in its domain. */
static const int exec_calls[] = {
	SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(vfork),
	SCMP_SYS(wait4), SCMP_SYS(waitid), SCMP_SYS(kill), SCMP_SYS(tgkill),
	SCMP_SYS(pipe2), SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3),
	SCMP_SYS(setpgid), SCMP_SYS(getpgid), SCMP_SYS(getpgrp),
	SCMP_SYS(getsid),
	SCMP_SYS(setsid), SCMP_SYS(chdir), SCMP_SYS(fchdir),
	SCMP_SYS(getcwd), SCMP_SYS(access), SCMP_SYS(faccessat),
	SCMP_SYS(faccessat2), SCMP_SYS(readlink), SCMP_SYS(readlinkat),
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select),
	SCMP_SYS(pselect6), SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address),
	SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(sigaltstack),
	SCMP_SYS(rt_sigsuspend), SCMP_SYS(getrusage), SCMP_SYS(sysinfo),
	SCMP_SYS(uname), SCMP_SYS(getrlimit), SCMP_SYS(alarm),
	SCMP_SYS(setitimer), SCMP_SYS(pause), SCMP_SYS(sched_getaffinity),
	SCMP_SYS(open), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(pipe),
};

#ifdef TC_SANITIZE
/* ASan and UBSan's runtime, in the sanitizer build only. */
static const int sanitizer_calls[] = {
	SCMP_SYS(sigaltstack), SCMP_SYS(getrlimit), SCMP_SYS(readlink),
	SCMP_SYS(readlinkat), SCMP_SYS(sched_getaffinity),
	SCMP_SYS(tgkill), SCMP_SYS(uname),
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

static const int prctl_ops[] = {
	PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP, PR_CAPBSET_READ, PR_GET_DUMPABLE,
	PR_GET_PDEATHSIG, PR_SET_NAME, PR_GET_NAME,
};

static int
add_rules(scmp_filter_ctx ctx, enum tc_profile profile)
{
	size_t i;

	if (allow(ctx, base_calls, TC_NITEMS(base_calls)) != 0)
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
	if (allow(ctx, sanitizer_calls, TC_NITEMS(sanitizer_calls)) != 0)
		return -1;
#endif
	if (profile == TC_PROFILE_FS_WRITE || profile == TC_PROFILE_SQLITE ||
	    profile == TC_PROFILE_SHELL_EXEC)
		if (allow(ctx, write_calls, TC_NITEMS(write_calls)) != 0)
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
		if (allow(ctx, exec_calls, TC_NITEMS(exec_calls)) != 0)
			return -1;
		/* fork, but never into new namespaces; clone3 hides its
		 * flags in memory, so it is refused and libc falls back. */
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
		    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWNS | CLONE_NEWUTS |
		    CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
		    CLONE_NEWNET | CLONE_NEWCGROUP, 0)) != 0 ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    SCMP_SYS(clone3), 0) != 0 ||
		    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair),
		    1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX)) != 0)
			return -1;
	}
	return 0;
}

int
tc_seccomp_build(enum tc_profile profile, struct tc_bpf *out,
    struct tc_diag *d)
{
	scmp_filter_ctx ctx;
	struct stat st;
	int fd = -1, rc = -1;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL)
		return tc_diag(d, -1, "seccomp_init failed");
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
	    /* A binary tree of syscall numbers rather than a list: the
	     * kernel runs the filter once per syscall number to build its
	     * cache when it is loaded, so a shorter path is a cheaper load
	     * (ANCHORS-SANDBOX measures about half). */
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) != 0 ||
	    add_rules(ctx, profile) != 0) {
		tc_diag(d, -1, "cannot build the seccomp filter");
		goto out;
	}
	/* libseccomp 2.5 exports only to an fd; a memfd keeps it off disk. */
	if ((fd = memfd_create("tc-seccomp", MFD_CLOEXEC)) < 0 ||
	    seccomp_export_bpf(ctx, fd) != 0 || fstat(fd, &st) != 0 ||
	    st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0) {
		tc_diag_errno(d, -1, "cannot export the seccomp filter");
		goto out;
	}
	if ((out->insns = malloc((size_t)st.st_size)) == NULL ||
	    (n = pread(fd, out->insns, (size_t)st.st_size, 0)) !=
	    st.st_size) {
		free(out->insns);
		out->insns = NULL;
		tc_diag(d, -1, "cannot read the seccomp filter");
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
