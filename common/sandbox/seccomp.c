/*
 * seccomp.c: a default-deny system call allowlist per confinement profile,
 * compiled to BPF once at start; each child only loads its profile's
 * program, last of all its confinement steps.
 *
 * The list is the base every child needs (below) and what the profile
 * adds (its tables, profile.h); the servers define their profiles in their
 * own folders.  Anything not listed fails with EPERM.  Only the native
 * architecture is allowed: an i386 (int 0x80) or x32 system call kills the
 * process, which closes the classic bypass of a filter that checks numbers
 * alone.  The base list is short on purpose: io_uring, ptrace,
 * process_vm_*, the mount family, namespace creation, keyctl, bpf,
 * perf_event_open, userfaultfd, kexec and modules are not on it, and a
 * profile that adds one says so in its own file.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
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
 * The static clocks are not negative.  A negative id is ~pid << 3 (or
 * ~tid, ~fd) with a type in its low 3 bits: 0, 1, 2 a process's CPU
 * clocks (profiling, virtual, scheduler), the same with 4 added its
 * thread's, and 3 a clock read from the fd (a PTP device, say), 7
 * invalid.  Pid 0 is the caller: its own CPU clocks are 0xfffffff8 with
 * 0, 1, 2, 4, 5 or 6, which the two rules below admit and nothing else
 * (the first leaves bits 0 and 2 free with bit 1 clear: 0, 1, 4, 5; the
 * second bits 1 and 2 with bit 0 clear: 0, 2, 4, 6).
 */
#define CLOCK_STATIC(name)	TC_SYS_ARG(name, 0, 0x80000000ULL, 0)
#define CLOCK_OWN_CPU(name)	TC_SYS_ARG(name, 0, 0xfffffffaULL,	\
				    0xfffffff8ULL),			\
				TC_SYS_ARG(name, 0, 0xfffffff9ULL,	\
				    0xfffffff8ULL)
#define FCNTL(cmd)	TC_SYS_ARG(fcntl, 1, TC_SYS_LOW32, (cmd))

static const struct tc_syscall base_args[] = {
	/* Only its own limits: glibc's getrlimit() and setrlimit() pass
	 * pid 0, and another process's (the server's) are not its to
	 * lower. */
	TC_SYS_ARG(prlimit64, 0, TC_SYS_LOW32, 0),
	/* The static clocks and its own CPU clocks, not another
	 * process's: that reads or waits on its CPU time. */
	CLOCK_STATIC(clock_gettime),
	CLOCK_OWN_CPU(clock_gettime),
	CLOCK_STATIC(clock_nanosleep),
	CLOCK_OWN_CPU(clock_nanosleep),
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
	TC_SYS_ARG(openat, 2, TC_SYS_MAKES, 0),
	TC_SYS_ARG(openat, 3, TC_SYS_SETID, 0),
};

/*
 * Signals for a profile with TC_MAY_SIGNAL, where they cannot leave the
 * call: a PID namespace of its own shows no other process, and Landlock's
 * signal scope (ABI 6) refuses any outside its domain.  Without either,
 * only its own process group: the call's session, which no process of the
 * call can leave for a group of another session.
 */
static const int signal_calls[] = {
	SCMP_SYS(kill), SCMP_SYS(tgkill),
};

static const struct tc_syscall signal_own_group[] = {
	TC_SYS_ARG(kill, 0, TC_SYS_LOW32, 0),
};

#ifdef TC_SANITIZE
/* ASan and UBSan's runtime, in the sanitizer build only. */
static const int sanitizer_calls[] = {
	SCMP_SYS(sigaltstack), SCMP_SYS(getrlimit), SCMP_SYS(readlink),
	SCMP_SYS(readlinkat), SCMP_SYS(uname),
};

static const struct tc_syscall sanitizer_args[] = {
	TC_SYS_ARG(sched_getaffinity, 0, TC_SYS_LOW32, 0),
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

/* Adds the rules |r|[0..n) of a table. */
static int
allow_args(scmp_filter_ctx ctx, const struct tc_syscall *r, size_t n)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		/* A second argument only narrows a TC_SYS_MASKED rule. */
		if (r[i].arg > 5 || (r[i].mask2 != 0 && (r[i].arg2 > 5 ||
		    r[i].kind != TC_SYS_MASKED)))
			return -1;
		switch (r[i].kind) {
		case TC_SYS_ALLOW:
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r[i].nr, 0);
			break;
		case TC_SYS_MASKED:
			if (r[i].mask2 != 0)
				rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
				    r[i].nr, 2, SCMP_CMP(r[i].arg,
				    SCMP_CMP_MASKED_EQ, r[i].mask, r[i].value),
				    SCMP_CMP(r[i].arg2, SCMP_CMP_MASKED_EQ,
				    r[i].mask2, r[i].value2));
			else
				rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
				    r[i].nr, 1, SCMP_CMP(r[i].arg,
				    SCMP_CMP_MASKED_EQ, r[i].mask, r[i].value));
			break;
		case TC_SYS_EQ:
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r[i].nr, 1,
			    SCMP_CMP(r[i].arg, SCMP_CMP_EQ, r[i].value));
			break;
		case TC_SYS_ERRNO:
			rc = seccomp_rule_add(ctx,
			    SCMP_ACT_ERRNO((uint32_t)r[i].value), r[i].nr, 0);
			break;
		default:
			rc = -1;	/* not a rule: fail closed */
			break;
		}
		if (rc != 0)
			return -1;
	}
	return 0;
}

/*
 * A network the policy grants a profile with TC_MAY_NETWORK.  socket()
 * makes only AF_INET and AF_INET6 sockets: never AF_UNIX, whose sockets
 * are files of the host (a container runtime's, a session bus) that no
 * network rule holds, nor netlink, packet or raw ones.  For "network
 * connect" only TCP (protocol 0 or IPPROTO_TCP: not SCTP or MPTCP, which
 * Landlock's TCP rules do not cover), which Landlock lets connect to the
 * policy's ports and bind none; neither bind() nor listen() is allowed
 * (listen() binds an unbound socket to a port of its own choosing).  And
 * no TCP Fast Open: sendto() or sendmsg() with MSG_FASTOPEN connects
 * without the connect() Landlock checks.  For "network on", UDP too, and
 * what a server does.
 */
static const int net_calls[] = {
	SCMP_SYS(connect), SCMP_SYS(getsockopt), SCMP_SYS(setsockopt),
	SCMP_SYS(getsockname), SCMP_SYS(getpeername), SCMP_SYS(recvfrom),
	SCMP_SYS(recvmsg), SCMP_SYS(shutdown),
};

static const struct tc_syscall net_send[] = {
	TC_SYS_ARG(sendto, 3, MSG_FASTOPEN, 0),
	TC_SYS_ARG(sendmsg, 2, MSG_FASTOPEN, 0),
};

static const int net_any_calls[] = {
	SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept),
	SCMP_SYS(accept4), SCMP_SYS(sendto), SCMP_SYS(sendmsg),
	SCMP_SYS(sendmmsg), SCMP_SYS(recvmmsg),
};

/*
 * socket() of |family| and |type|: of protocol 0 and IPPROTO_TCP only
 * with |tcp_only|, else any.
 */
static int
allow_socket(scmp_filter_ctx ctx, int family, int type, int tcp_only)
{
	if (!tcp_only)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket),
		    2, SCMP_A0(SCMP_CMP_MASKED_EQ, TC_SYS_LOW32,
		    (uint64_t)family), SCMP_A1(SCMP_CMP_MASKED_EQ,
		    TC_SYS_SOCK_TYPE, (uint64_t)type));
	if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 3,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, TC_SYS_LOW32, (uint64_t)family),
	    SCMP_A1(SCMP_CMP_MASKED_EQ, TC_SYS_SOCK_TYPE, (uint64_t)type),
	    SCMP_A2(SCMP_CMP_MASKED_EQ, TC_SYS_LOW32, 0)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 3,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, TC_SYS_LOW32, (uint64_t)family),
	    SCMP_A1(SCMP_CMP_MASKED_EQ, TC_SYS_SOCK_TYPE, (uint64_t)type),
	    SCMP_A2(SCMP_CMP_MASKED_EQ, TC_SYS_LOW32, IPPROTO_TCP)) != 0)
		return -1;
	return 0;
}

/* The network of |opts| (TC_SECCOMP_NET_*), if any. */
static int
add_network(scmp_filter_ctx ctx, unsigned opts)
{
	static const int families[] = { AF_INET, AF_INET6 };
	int any = (opts & TC_SECCOMP_NET_ANY) != 0;
	size_t i;

	if (!(opts & TC_SECCOMP_NET_CONNECT))
		return 0;
	for (i = 0; i < TC_NITEMS(families); i++)
		if (allow_socket(ctx, families[i], SOCK_STREAM, !any) != 0 ||
		    (any && allow_socket(ctx, families[i], SOCK_DGRAM,
		    0) != 0))
			return -1;
	if (allow(ctx, net_calls, TC_NITEMS(net_calls)) != 0)
		return -1;
	if (any)
		return allow(ctx, net_any_calls, TC_NITEMS(net_any_calls));
	return allow_args(ctx, net_send, TC_NITEMS(net_send));
}

static const int prctl_ops[] = {
	PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP, PR_CAPBSET_READ, PR_GET_DUMPABLE,
	PR_GET_PDEATHSIG, PR_SET_NAME, PR_GET_NAME,
};

unsigned
tc_profile_rules(const struct tc_profile *p, int nr)
{
	unsigned kinds = 0;
	size_t i, k;

	for (i = 0; i < TC_SYSCALL_TABLES; i++)
		for (k = 0; k < p->syscalls[i].n; k++)
			if (p->syscalls[i].v[k].nr == nr)
				kinds |= 1u << p->syscalls[i].v[k].kind;
	return kinds;
}

/* Returns the name of a call of |p|'s tables that makes a process, or
 * NULL. */
static const char *
forks(const struct tc_profile *p)
{
	static const struct {
		int		 nr;
		const char	*name;
	} calls[] = {
		{ SCMP_SYS(clone), "clone" }, { SCMP_SYS(clone3), "clone3" },
		{ SCMP_SYS(fork), "fork" }, { SCMP_SYS(vfork), "vfork" },
	};
	size_t c;

	for (c = 0; c < TC_NITEMS(calls); c++)
		if (tc_profile_rules(p, calls[c].nr) & ~TC_RULE(TC_SYS_ERRNO))
			return calls[c].name;
	return NULL;
}

/*
 * Returns 1 if a rule of |p|'s tables allows clone() by an argument other
 * than its flags (TC_CLONE_FLAGS_ARG), which would let any flags through
 * on this architecture, with that argument in *|arg|; else 0.
 */
static int
clone_misread(const struct tc_profile *p, unsigned *arg)
{
	const struct tc_syscall *r;
	size_t i, k;

	for (i = 0; i < TC_SYSCALL_TABLES; i++)
		for (k = 0; k < p->syscalls[i].n; k++) {
			r = &p->syscalls[i].v[k];
			if (r->nr == SCMP_SYS(clone) &&
			    (r->kind == TC_SYS_MASKED || r->kind == TC_SYS_EQ) &&
			    r->arg != TC_CLONE_FLAGS_ARG) {
				*arg = r->arg;
				return 1;
			}
		}
	return 0;
}

/*
 * Returns the name of a call of |p|'s tables that may send with
 * MSG_FASTOPEN (a rule that allows it without masking the flag out of
 * its flags argument), or NULL.
 */
static const char *
fastopen(const struct tc_profile *p)
{
	static const struct {
		int		 nr;
		unsigned	 arg;	/* its flags */
		const char	*name;
	} calls[] = {
		{ SCMP_SYS(sendto), 3, "sendto" },
		{ SCMP_SYS(sendmsg), 2, "sendmsg" },
		{ SCMP_SYS(sendmmsg), 3, "sendmmsg" },
	};
	const struct tc_syscall *r;
	size_t i, k, c;

	for (i = 0; i < TC_SYSCALL_TABLES; i++)
		for (k = 0; k < p->syscalls[i].n; k++)
			for (c = 0; c < TC_NITEMS(calls); c++) {
				r = &p->syscalls[i].v[k];
				if (r->nr != calls[c].nr ||
				    r->kind == TC_SYS_ERRNO)
					continue;
				if (r->kind == TC_SYS_MASKED &&
				    r->arg == calls[c].arg &&
				    (r->mask & MSG_FASTOPEN) &&
				    !(r->value & MSG_FASTOPEN))
					continue;
				if (r->kind == TC_SYS_EQ &&
				    r->arg == calls[c].arg &&
				    !(r->value & MSG_FASTOPEN))
					continue;
				return calls[c].name;
			}
	return NULL;
}

/* Returns 1 if |p| grants a Landlock right that makes a file. */
static int
makes_files(const struct tc_profile *p)
{
	uint64_t all = p->root_access | p->write_access | p->rules_access;
	size_t i;

	for (i = 0; i < p->nsystem; i++)
		all |= p->system[i].access;
	return (all & TC_LL_MAKES) != 0;
}

/*
 * What a zygote (zygote.c) needs beyond its profile, to fork a child and
 * for that child to make itself a call of its own: the fds of each child
 * to come (recvmsg), the child as the server's (clone() with CLONE_PARENT
 * and nothing else: no namespace, no shared memory, no thread), and in
 * the child a session, the parent-death signal, a Landlock domain and
 * the filter of tc_seccomp_build_fork(), which takes these back.
 */
static const int zygote_calls[] = {
	SCMP_SYS(recvmsg), SCMP_SYS(setsid), SCMP_SYS(landlock_restrict_self),
};

static const int zygote_prctl_ops[] = {
	PR_SET_PDEATHSIG, PR_SET_SECCOMP,
};

/*
 * What a zygote's child may not do that its profile's filter allows:
 * every fd it has of the zygote's (a database connection's) is one open
 * file description with the zygote's and every later child's, and what
 * is set on the description outlives the call, held by the zygote: a
 * lock by the description (F_OFD_*), in the way of every later call and
 * of every other program, and the status flags (F_SETFL: O_APPEND turns
 * each later pwrite() into an append, O_DIRECT fails each later read).
 * A lock by the process (F_SETLK, SQLite's) ends with the child.
 */
static const int shared_fcntl[] = {
	F_OFD_SETLK, F_OFD_SETLKW, F_SETFL,
};

static int
add_zygote(scmp_filter_ctx ctx)
{
	size_t i;

	if (allow(ctx, zygote_calls, TC_NITEMS(zygote_calls)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
	    SCMP_CMP(TC_CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, TC_SYS_LOW32,
	    (scmp_datum_t)CLONE_PARENT)) != 0)
		return -1;
	for (i = 0; i < TC_NITEMS(zygote_prctl_ops); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
		    SCMP_A0(SCMP_CMP_EQ, zygote_prctl_ops[i])) != 0)
			return -1;
	return 0;
}

/*
 * Returns 1 if a rule of |p|'s tables names the call |nr|, 2 if one
 * allows it whatever its arguments (TC_SYS_ALLOW); else 0.
 */
static int
names(const struct tc_profile *p, int nr)
{
	unsigned kinds = tc_profile_rules(p, nr);

	return (kinds & TC_RULE(TC_SYS_ALLOW)) ? 2 : kinds != 0;
}

/* Allows system call |nr| where its third argument (a protection)
 * masked by |mask| is |value|.  Returns 0 or -1. */
static int
allow_prot(scmp_filter_ctx ctx, int nr, unsigned mask, unsigned value)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, mask, value)) != 0 ? -1 : 0;
}

/*
 * mmap() and mprotect(), by what memory may become.  Never executable by
 * default: no code injected at run time, whatever a handler is tricked
 * into.  mprotect() never adds PROT_EXEC.  mmap() never maps anything
 * executable (a server's code is all loaded before confinement), but in a
 * profile that runs programs (TC_MAY_EXEC_MEMORY): they need their own
 * code mapped, so there mmap() may map executable memory, but never
 * writable and executable at once.  (A JIT that needs both is refused.)
 * Where the policy says "jit on" (TC_SECCOMP_JIT), such a profile's
 * mmap() and mprotect() take any protection, writable and executable at
 * once included, which node's V8 wants without memory protection keys
 * (pkey_alloc() is refused in every filter), and Java's HotSpot always:
 * the policy lets programs compile code at run time, which gives them no
 * system call they did not have.  The handler shares the filter, so it
 * loses that line of defence too.  A profile without TC_MAY_EXEC_MEMORY
 * ignores TC_SECCOMP_JIT.  Returns 0 or -1.
 */
static int
add_memory(scmp_filter_ctx ctx, const struct tc_profile *p, unsigned opts)
{
	const unsigned wx = PROT_WRITE | PROT_EXEC;

	if (!(p->may & TC_MAY_EXEC_MEMORY))
		return allow_prot(ctx, SCMP_SYS(mprotect), PROT_EXEC, 0) ||
		    allow_prot(ctx, SCMP_SYS(mmap), PROT_EXEC, 0) ? -1 : 0;
	if (opts & TC_SECCOMP_JIT)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
		    SCMP_SYS(mprotect), 0) != 0 || seccomp_rule_add(ctx,
		    SCMP_ACT_ALLOW, SCMP_SYS(mmap), 0) != 0 ? -1 : 0;
	return allow_prot(ctx, SCMP_SYS(mprotect), PROT_EXEC, 0) ||
	    allow_prot(ctx, SCMP_SYS(mmap), wx, 0) ||
	    allow_prot(ctx, SCMP_SYS(mmap), wx, PROT_WRITE) ||
	    allow_prot(ctx, SCMP_SYS(mmap), wx, PROT_EXEC) ? -1 : 0;
}

/*
 * Returns the name of a call that |p|'s tables name and its zygote's
 * filter adds, where the fork filter could not take back exactly what
 * the zygote's added (a rule by arguments or an errno of the profile's
 * own, which the zygote's rule would widen or overrule); else NULL.
 * Such a profile has no zygote.
 */
static const char *
zygote_conflict(const struct tc_profile *p)
{
	static const char *const call_names[] = {
		"recvmsg", "setsid", "landlock_restrict_self",
	};
	size_t i;

	for (i = 0; i < TC_NITEMS(zygote_calls); i++)
		if (names(p, zygote_calls[i]) == 1)
			return call_names[i];
	if (names(p, SCMP_SYS(clone)) != 0)
		return "clone";
	if (names(p, SCMP_SYS(prctl)) != 0)
		return "prctl";
	return NULL;
}

static int
add_rules(scmp_filter_ctx ctx, const struct tc_profile *p, unsigned opts)
{
	size_t i;

	if (allow(ctx, base_calls, TC_NITEMS(base_calls)) != 0 ||
	    allow_args(ctx, base_args, TC_NITEMS(base_args)) != 0)
		return -1;
	/* openat2() hides its mode in memory, where the filter cannot see
	 * it: refused (ENOSYS, so that path.c walks with openat() instead)
	 * wherever a file could be made with it, that is, everywhere but a
	 * profile that asks for it under Landlock and has no right to make
	 * anything (tc_seccomp_build() checks). */
	if ((p->may & TC_MAY_OPENAT2) && (opts & TC_SECCOMP_LANDLOCK)) {
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat2),
		    0) != 0)
			return -1;
	} else if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(openat2), 0) != 0)
		return -1;
	if (add_memory(ctx, p, opts) != 0)
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
	/* What the profile adds. */
	for (i = 0; i < TC_SYSCALL_TABLES; i++)
		if (allow_args(ctx, p->syscalls[i].v, p->syscalls[i].n) != 0)
			return -1;
	if ((p->may & TC_MAY_SIGNAL) && ((opts & TC_SECCOMP_SIGNALS) ?
	    allow(ctx, signal_calls, TC_NITEMS(signal_calls)) != 0 :
	    allow_args(ctx, signal_own_group,
	    TC_NITEMS(signal_own_group)) != 0))
		return -1;
	if ((p->may & TC_MAY_NETWORK) && add_network(ctx, opts) != 0)
		return -1;
	if ((opts & TC_SECCOMP_ZYGOTE) && add_zygote(ctx) != 0)
		return -1;
	return 0;
}

/*
 * Exports the filter built in |ctx| for |profile| into |out|.  Returns 0,
 * or TC_EINVAL (longer than the kernel loads) or TC_ESYS with |d| set.
 */
static int
export(scmp_filter_ctx ctx, const struct tc_profile *profile,
    struct tc_bpf *out, struct tc_diag *d)
{
	struct stat st;
	int fd = -1, rc = TC_ESYS;
	ssize_t n;

	/* libseccomp 2.5 exports only to an fd; a memfd keeps it off disk. */
	if ((fd = memfd_create("tc-seccomp", MFD_CLOEXEC)) < 0 ||
	    seccomp_export_bpf(ctx, fd) != 0 || fstat(fd, &st) != 0 ||
	    st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0) {
		tc_diag_errno(d, TC_ESYS, "cannot export the seccomp filter");
		goto out;
	}
	/* The kernel loads at most BPF_MAXINSNS instructions, and the
	 * length it is given is 16 bits: a longer filter is refused here,
	 * never cut to fit. */
	if ((size_t)st.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		tc_diag(d, TC_EINVAL, "profile '%s': its seccomp filter has "
		    "%zu instructions, more than the kernel's limit of %d "
		    "(BPF_MAXINSNS): the profile allows too many calls by "
		    "their arguments", profile->name, (size_t)st.st_size /
		    sizeof(struct sock_filter), BPF_MAXINSNS);
		rc = TC_EINVAL;
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
	return rc;
}

int
tc_seccomp_build(const struct tc_profile *profile, unsigned opts,
    struct tc_bpf *out, struct tc_diag *d)
{
	scmp_filter_ctx ctx;
	int rc = TC_ESYS;
	unsigned arg;

	memset(out, 0, sizeof(*out));
	if ((profile->may & TC_MAY_OPENAT2) && makes_files(profile))
		return tc_diag(d, TC_EINVAL, "profile '%s': openat2() with a "
		    "Landlock right to make files, whose mode the filter "
		    "could not check", profile->name);
	if (!(profile->may & TC_MAY_FORK) && forks(profile) != NULL)
		return tc_diag(d, TC_EINVAL, "profile '%s': %s() without "
		    "TC_MAY_FORK, which ends what a call leaves",
		    profile->name, forks(profile));
	if (clone_misread(profile, &arg))
		return tc_diag(d, TC_EINVAL, "profile '%s': a clone() rule on "
		    "its argument %u, where this architecture passes the "
		    "flags in argument %u (TC_CLONE_FLAGS_ARG)", profile->name,
		    arg, TC_CLONE_FLAGS_ARG);
	if ((profile->may & TC_MAY_NETWORK) && fastopen(profile) != NULL)
		return tc_diag(d, TC_EINVAL, "profile '%s': %s() that may "
		    "carry MSG_FASTOPEN, which connects where Landlock does "
		    "not look, with TC_MAY_NETWORK", profile->name,
		    fastopen(profile));
	if ((opts & TC_SECCOMP_ZYGOTE) && zygote_conflict(profile) != NULL)
		return tc_diag(d, TC_EINVAL, "profile '%s': its own rule for "
		    "%s(), which its zygote's filter adds", profile->name,
		    zygote_conflict(profile));
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
		tc_diag(d, TC_ESYS, "cannot build the seccomp filter of "
		    "profile '%s'", profile->name);
		goto out;
	}
	rc = export(ctx, profile, out, d);
out:
	seccomp_release(ctx);
	return rc;
}

int
tc_seccomp_build_fork(const struct tc_profile *profile, struct tc_bpf *out,
    struct tc_diag *d)
{
	scmp_filter_ctx ctx;
	int rc = TC_ESYS;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (zygote_conflict(profile) != NULL)
		return tc_diag(d, TC_EINVAL, "profile '%s': its own rule for "
		    "%s(), which its zygote's filter adds", profile->name,
		    zygote_conflict(profile));
	/* Everything else stays as the zygote's filter has it: the two
	 * filters' strictest answer is the one that counts. */
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return tc_diag(d, TC_ESYS, "seccomp_init failed");
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0)
		goto fail;
	/* What the profile's own tables allow whatever the arguments,
	 * they allow; a profile with any other rule of its own for these
	 * has no zygote (zygote_conflict()). */
	for (i = 0; i < TC_NITEMS(zygote_calls); i++)
		if (names(profile, zygote_calls[i]) == 0 &&
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    zygote_calls[i], 0) != 0)
			goto fail;
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone),
	    0) != 0)
		goto fail;
	for (i = 0; i < TC_NITEMS(zygote_prctl_ops); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ,
		    zygote_prctl_ops[i])) != 0)
			goto fail;
	for (i = 0; i < TC_NITEMS(shared_fcntl); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
		    TC_SYS_LOW32, (scmp_datum_t)shared_fcntl[i])) != 0)
			goto fail;
	rc = export(ctx, profile, out, d);
	seccomp_release(ctx);
	return rc;
fail:
	seccomp_release(ctx);
	return tc_diag(d, TC_ESYS, "cannot build the filter of profile "
	    "'%s''s zygote children", profile->name);
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
