/*
 * shell_profile.c: the confinement profile of toolcell-shell's children
 * (sandbox/profile.h), which run the programs the policy allows.
 *
 * The kernel is the guard, whatever the arguments say:
 *
 *	execute	Landlock's execute right on the allowed programs, the
 *		interpreters the kernel runs them with (an ELF's PT_INTERP,
 *		a script's #! program) and the helpers the policy names, and
 *		on nothing else: the system directories are readable, never
 *		executable, so "find -exec sh", a git alias, hook or pager
 *		cannot start a program the policy does not list.
 *	files	read beneath every root, and change beneath the writable
 *		ones; the system calls that change files are allowed so that
 *		programs can write there, and Landlock decides where (unlike
 *		the test server's exec profile, whose write calls met a
 *		read-only ruleset).  Of the system, only what programs and
 *		the C library read, read-only; no /proc, no /etc/shadow.
 *	network	none, unless the policy grants one: a network namespace
 *		(no interface but a loopback that is down; one the calls
 *		share, made once: ns.c, tc_netns_share()),
 *		socket() refused (so no Unix socket of the host, which a
 *		namespace would not hide, is reached), and Landlock's TCP
 *		rules refuse every bind and connect.  "network connect
 *		PORT..." (TC_MAY_NETWORK) drops the namespace: TCP sockets
 *		that Landlock lets connect to those ports, at any address
 *		(the host's own loopback included), and nothing else, no
 *		UDP; "network on" the host's network, any port.  AF_UNIX
 *		sockets stay refused either way, and name resolution and
 *		certificates become readable.
 *	processes	user, PID, IPC and UTS namespaces; the whole tree
 *		killed when the call or job ends (TC_MAY_FORK): the end
 *		of the child, pid 1 of its PID namespace, or a keeper
 *		where there is no PID namespace (sandbox-int.h,
 *		tc_sandbox_keeper()); a pids cgroup of the call's own
 *		where the server may make one (sandbox/pids.h);
 *		RLIMIT_NPROC in the call's user namespace
 *		(the policy's "limit processes"), which never holds for
 *		uid 0, so a server run as root without run-as warns
 *		(main.c); no_new_privs, so a set-id program gains
 *		nothing.
 *
 * What the kernel does not hold: the dynamic loader must be executable
 * for any dynamically linked program to start, and it maps any file the
 * call may read as a program when it is run with that file as its
 * argument.  An allowed program that runs another with arguments of the
 * model's choosing (find -exec, xargs, env, make) can so run an ELF file
 * it can read: one written into a writable root, or one of the system's
 * libraries' directories.  The program directories (/usr/bin, /bin,
 * /usr/sbin, ...) are left unreadable for that reason: no shell or
 * interpreter of the system can be started that way.  Whatever runs is
 * still held by everything else here; docs/shell.md says more.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "policy/policy.h"
#include "sandbox/profile.h"
#include "shell.h"

/*
 * Changing files, where Landlock lets them (beneath writable roots).  Not
 * the chmod and chown families, nor utimensat() on a path: Landlock does
 * not govern a file's mode, owner or times, so a path would reach any file
 * of the caller's uid anywhere.  utimensat() on an fd (a NULL path, which
 * futimens() and touch use) changes only a file the program could open,
 * which Landlock decided.  Not truncate() by path, which Landlock governs
 * only from its ABI 3; ftruncate() needs an fd opened for writing.  Not
 * link() and linkat(): without Landlock's REFER right (ABI 2) a hard link
 * into a writable root would make a read-only file writable; git falls
 * back to rename().  Not mknod(): no devices, FIFOs or sockets are made.
 */
static const struct tc_syscall shell_write_calls[] = {
	TC_SYS(unlinkat), TC_SYS(unlink), TC_SYS(rmdir),
	TC_SYS(renameat2), TC_SYS(renameat), TC_SYS(rename),
	TC_SYS(symlinkat), TC_SYS(symlink),
	TC_SYS(ftruncate), TC_SYS(fallocate), TC_SYS(fsync),
	TC_SYS(fdatasync), TC_SYS(umask), TC_SYS(pwrite64),
	TC_SYS(pwritev), TC_SYS(pwritev2),
	TC_SYS_ARG(mkdirat, 2, TC_SYS_SETID, 0),
	TC_SYS_ARG(mkdir, 1, TC_SYS_SETID, 0),
	TC_SYS_ARG(open, 1, TC_SYS_MAKES, 0),
	TC_SYS_ARG(open, 2, TC_SYS_SETID, 0),
	TC_SYS_ARG(creat, 1, TC_SYS_SETID, 0),
	TC_SYS_IS(utimensat, 1, 0),
};

/* The fork flags a program may not use: new namespaces, and a child
 * given to the caller's parent (outside the call's PID namespace, or
 * its keeper). */
#define CLONE_DENIED	((uint64_t)(CLONE_NEWNS | CLONE_NEWUTS |	\
			 CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |	\
			 CLONE_NEWNET | CLONE_NEWCGROUP | CLONE_PARENT))

/*
 * Running programs: processes, pipes, waiting, what programs ask of
 * themselves and of the files they may read.  wait4, waitid and setpgid
 * reach only the caller's children by their nature; kill and tgkill come
 * with TC_MAY_SIGNAL.
 */
static const struct tc_syscall shell_calls[] = {
	TC_SYS(execve), TC_SYS(execveat), TC_SYS(vfork), TC_SYS(fork),
	TC_SYS(wait4), TC_SYS(waitid),
	TC_SYS(pipe), TC_SYS(pipe2), TC_SYS(dup), TC_SYS(dup2), TC_SYS(dup3),
	TC_SYS(close_range),
	TC_SYS(setpgid), TC_SYS(getpgrp), TC_SYS(setsid),
	TC_SYS(chdir), TC_SYS(fchdir), TC_SYS(getcwd),
	TC_SYS(stat), TC_SYS(lstat), TC_SYS(statfs),
	TC_SYS(access), TC_SYS(faccessat), TC_SYS(faccessat2),
	TC_SYS(readlink), TC_SYS(readlinkat),
	TC_SYS(preadv), TC_SYS(preadv2),
	TC_SYS(copy_file_range), TC_SYS(sendfile), TC_SYS(splice),
	TC_SYS(tee), TC_SYS(fadvise64), TC_SYS(flock), TC_SYS(msync),
	TC_SYS(poll), TC_SYS(ppoll), TC_SYS(select), TC_SYS(pselect6),
	TC_SYS(epoll_create1), TC_SYS(epoll_ctl), TC_SYS(epoll_wait),
	TC_SYS(epoll_pwait), TC_SYS(epoll_pwait2), TC_SYS(eventfd2),
	TC_SYS(timerfd_create), TC_SYS(timerfd_settime),
	TC_SYS(timerfd_gettime),
	TC_SYS(arch_prctl), TC_SYS(set_tid_address),
	TC_SYS(set_robust_list), TC_SYS(rseq), TC_SYS(sigaltstack),
	TC_SYS(rt_sigsuspend), TC_SYS(rt_sigtimedwait),
	TC_SYS(rt_sigpending), TC_SYS(restart_syscall),
	TC_SYS(getrusage), TC_SYS(times), TC_SYS(sysinfo), TC_SYS(uname),
	TC_SYS(getrlimit), TC_SYS(alarm), TC_SYS(setitimer),
	TC_SYS(getitimer), TC_SYS(pause), TC_SYS(getcpu),
	TC_SYS(clock_getres), TC_SYS(time), TC_SYS(membarrier),
	TC_SYS(getresuid), TC_SYS(getresgid), TC_SYS(getgroups),
	/* Setting its ids to those it has (make does, before it runs a
	 * recipe): without CAP_SETUID and CAP_SETGID, which no call has,
	 * the kernel refuses any other. */
	TC_SYS(setuid), TC_SYS(setgid), TC_SYS(setreuid), TC_SYS(setregid),
	TC_SYS(setresuid), TC_SYS(setresgid),
	/* Sockets of socketpair(), the only ones a call can have but with
	 * a network the policy grants (whose calls the sandbox adds).
	 * Never with MSG_FASTOPEN, which would connect a TCP socket where
	 * Landlock does not look (the sandbox refuses a profile with
	 * TC_MAY_NETWORK that allows it). */
	TC_SYS_ARG(sendmsg, 2, MSG_FASTOPEN, 0),
	TC_SYS_ARG(sendto, 3, MSG_FASTOPEN, 0),
	TC_SYS(recvmsg), TC_SYS(recvfrom), TC_SYS(shutdown),
	/* Asked of an fd to learn what it is, and answered by the kernel:
	 * ENOTSOCK for a pipe, a file or a terminal, a nameless AF_UNIX
	 * address for a pair's socket.  Not refused: bash reads its
	 * startup files (/etc/bash.bashrc, ~/.bashrc) for "bash -c" when
	 * getpeername() on its stdin fails with anything but ENOTSOCK or
	 * EINVAL (it takes the fd for a network connection, as under
	 * sshd), and Python's socket objects take ENOTSOCK from
	 * getsockname() for "not a socket", so that socket.socketpair()
	 * fails if it is answered for its sockets. */
	TC_SYS(getpeername), TC_SYS(getsockname),
	/* About itself only. */
	TC_SYS_ARG(getpgid, 0, TC_SYS_LOW32, 0),
	TC_SYS_ARG(getsid, 0, TC_SYS_LOW32, 0),
	TC_SYS_ARG(sched_getaffinity, 0, TC_SYS_LOW32, 0),
	TC_SYS_ARG(clone, TC_CLONE_FLAGS_ARG, CLONE_DENIED, 0),
	/* Pipes between its own processes; socket() of AF_UNIX is refused,
	 * which keeps the host's Unix sockets (a container runtime's, a
	 * session bus) out of reach, since a network namespace does not hide
	 * them.  Stream and seqpacket pairs only: a datagram socket of a
	 * pair may still send to any socket of the host by its path
	 * (sendto() with an address, which the filter cannot see), or be
	 * connected to one. */
	TC_SYS_ARGS2(socketpair, 0, TC_SYS_LOW32, AF_UNIX, 1, TC_SYS_SOCK_TYPE,
	    SOCK_STREAM),
	TC_SYS_ARGS2(socketpair, 0, TC_SYS_LOW32, AF_UNIX, 1, TC_SYS_SOCK_TYPE,
	    SOCK_SEQPACKET),
	/* What a program asks of a terminal or a pipe, which answer ENOTTY
	 * where there is no terminal: a call's programs have none, and no
	 * controlling terminal either (the child is in a session of its
	 * own).  Every other ioctl is refused, TIOCSTI (typing into a
	 * terminal) and TIOCLINUX (the console's selection) among them. */
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TCGETS),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TIOCGWINSZ),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TIOCGPGRP),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, FIONREAD),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, FIONBIO),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, FIOCLEX),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, FIONCLEX),
	/* Extended attributes are not Landlock's: a path would read them
	 * anywhere.  Programs take "not supported" as "none" (ls -l asks
	 * for ACLs and security labels). */
	TC_SYS_FAIL(getxattr, ENOTSUP), TC_SYS_FAIL(lgetxattr, ENOTSUP),
	TC_SYS_FAIL(fgetxattr, ENOTSUP), TC_SYS_FAIL(listxattr, ENOTSUP),
	TC_SYS_FAIL(llistxattr, ENOTSUP), TC_SYS_FAIL(flistxattr, ENOTSUP),
	/* clone3 hides its flags in memory, so it is refused and libc
	 * falls back to clone. */
	TC_SYS_FAIL(clone3, ENOSYS),
};

/*
 * A job's terminal (shell_job_profile): what a program does with the
 * pseudo-terminal its child opened before it was confined
 * (TC_MAY_TTY), on its fds 0-2: make it its controlling terminal, set its
 * modes (raw or cooked, echo), its window size, and which of its process
 * groups is in the foreground.  Reading them is in shell_calls.  Nothing
 * else: TIOCSTI (typing into a terminal) and TIOCLINUX stay refused, and
 * so does every ioctl that would reach another terminal (TIOCGPTPEER, on
 * a master, which the program never has).
 */
static const struct tc_syscall shell_tty_calls[] = {
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TIOCSCTTY),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TCSETS),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TCSETSW),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TCSETSF),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TIOCSWINSZ),
	TC_SYS_ARG(ioctl, 1, TC_SYS_LOW32, TIOCSPGRP),
};

#define LL_WRITE	(TC_LL_FS_WRITE_FILE | TC_LL_FS_REMOVE_DIR |	\
			 TC_LL_FS_REMOVE_FILE | TC_LL_FS_MAKE_DIR |	\
			 TC_LL_FS_MAKE_REG | TC_LL_FS_MAKE_SYM |	\
			 TC_LL_FS_REFER | TC_LL_FS_TRUNCATE)

/*
 * What programs need of the system, read-only and never executable: the
 * libraries and their data, and the few files of /etc and /dev that the
 * C library and ordinary tools read (git's system configuration among
 * them: git stops when it exists and cannot be read).  Not the program
 * directories (/bin,
 * /sbin, /usr/bin, /usr/sbin, /usr/local/bin, /usr/libexec, /opt): an
 * allowed program and its helpers are granted one by one (shell_rules()),
 * and a program the policy does not list cannot even be read, so that the
 * dynamic loader cannot be made to run it.  Nothing else of /etc (no
 * /etc/shadow for a call that keeps uid 0), and no /proc.
 */
/* A ready child, before its call: what the call would do first. */
static void
shell_child_ready(const struct tc_policy *pol)
{
	shell_scratch_ready(pol);
	shell_exec_ready();
}

static const struct tc_landlock_path shell_system[] = {
	{ "/usr/lib",		TC_LL_READ },
	{ "/usr/lib32",		TC_LL_READ },
	{ "/usr/lib64",		TC_LL_READ },
	{ "/usr/libx32",	TC_LL_READ },
	{ "/usr/local/lib",	TC_LL_READ },
	{ "/usr/share",		TC_LL_READ },
	{ "/usr/local/share",	TC_LL_READ },
	{ "/usr/include",	TC_LL_READ },
	{ "/lib",		TC_LL_READ },
	{ "/lib32",		TC_LL_READ },
	{ "/lib64",		TC_LL_READ },
	{ "/etc/ld.so.cache",	TC_LL_FS_READ_FILE },
	{ "/etc/ld.so.conf",	TC_LL_FS_READ_FILE },
	{ "/etc/ld.so.conf.d",	TC_LL_READ },
	{ "/etc/localtime",	TC_LL_FS_READ_FILE },
	{ "/etc/nsswitch.conf",	TC_LL_FS_READ_FILE },
	{ "/etc/passwd",	TC_LL_FS_READ_FILE },
	{ "/etc/group",		TC_LL_FS_READ_FILE },
	/* git stops on a system configuration it cannot read. */
	{ "/etc/gitconfig",	TC_LL_FS_READ_FILE },
	/* What /usr/share/locale/locale.alias links to, and file(1)'s
	 * local magic. */
	{ "/etc/locale.alias",	TC_LL_FS_READ_FILE },
	{ "/etc/magic",		TC_LL_FS_READ_FILE },
	{ "/etc/magic.mime",	TC_LL_FS_READ_FILE },
	/* The local terminfo entries, which ncurses reads before those of
	 * /usr/share and /lib (all of them, on Alpine): a job's terminal
	 * names one (TERM). */
	{ "/etc/terminfo",	TC_LL_READ },
	/* OpenSSL's configuration, network or not: a program built on
	 * OpenSSL 3 reads it as it starts, and node stops there on one it
	 * may not read (EACCES; one that is not there it goes without). */
	{ "/etc/ssl/openssl.cnf", TC_LL_FS_READ_FILE },
	{ "/etc/pki/tls/openssl.cnf", TC_LL_FS_READ_FILE },
	{ "/dev/null",		TC_LL_FS_READ_FILE | TC_LL_FS_WRITE_FILE },
	{ "/dev/zero",		TC_LL_FS_READ_FILE },
	{ "/dev/random",	TC_LL_FS_READ_FILE },
	{ "/dev/urandom",	TC_LL_FS_READ_FILE },
};

/*
 * With a network the policy grants, what programs read to use it: name
 * resolution (where /etc/resolv.conf is a link, the rule is on the file
 * it names) and the certificates TLS trusts (OpenSSL's configuration,
 * which finds them, is readable anyway: shell_system).  Not /etc/ssl
 * itself, nor /etc/pki, whose private directories hold keys.
 */
static const struct tc_landlock_path shell_net_system[] = {
	{ "/etc/resolv.conf",	TC_LL_FS_READ_FILE },
	{ "/etc/hosts",		TC_LL_FS_READ_FILE },
	{ "/etc/host.conf",	TC_LL_FS_READ_FILE },
	{ "/etc/gai.conf",	TC_LL_FS_READ_FILE },
	{ "/etc/services",	TC_LL_FS_READ_FILE },
	{ "/etc/protocols",	TC_LL_FS_READ_FILE },
	{ "/etc/ssl/certs",	TC_LL_READ },
	{ "/etc/ca-certificates", TC_LL_READ },
	{ "/etc/pki/tls/certs",	TC_LL_READ },
	{ "/etc/pki/ca-trust",	TC_LL_READ },
};

/* A program, its interpreter and its helpers: read and execute; a
 * directory of helpers: listed too. */
#define LL_RUN		(TC_LL_FS_EXECUTE | TC_LL_READ)

/* Beneath the calls' scratch directories: what beneath a writable
 * root. */
#define LL_SCRATCH	(TC_LL_READ | LL_WRITE)

/* Grants |access| on each path of |v| (NULL-terminated, or NULL). */
static int
allow_each(struct tc_ruleset *rs, char *const *v, uint64_t access,
    struct tc_diag *d)
{
	int rc;

	for (; v != NULL && *v != NULL; v++)
		if ((rc = tc_ruleset_allow(rs, *v, access, d)) != 0)
			return rc;
	return 0;
}

/*
 * The execute right, from the [shell] section: on each allowed program,
 * what the kernel also executes to run it or its helpers (ELF
 * interpreters, #! programs, theirs in turn: exec_also), and each helper
 * the policy names (a file, or a directory of them).  Nothing else is
 * executable.  And the calls' scratch directories, where they may write.
 */
static int
shell_rules(struct tc_ruleset *rs, const struct tc_policy *pol,
    struct tc_diag *d)
{
	const struct shell_policy *sp = shell_policy(pol);
	const struct shell_program *p;
	size_t i;
	int rc;

	for (i = 0; i < sp->nprograms; i++) {
		p = &sp->programs[i];
		if (p->path == NULL)
			continue;	/* its line failed: never run */
		if ((rc = tc_ruleset_allow(rs, p->path, LL_RUN, d)) != 0 ||
		    (rc = allow_each(rs, p->exec_also, LL_RUN, d)) != 0 ||
		    (rc = allow_each(rs, p->helpers, LL_RUN, d)) != 0)
			return rc;
	}
	/* The base by the fd it was made with: the ruleset is built again
	 * when the roots change, and by then whoever may rename the base
	 * (a call of uid 0 that may write TMPDIR) may have put a link in
	 * its place. */
	if (shell_scratch_base != NULL &&
	    (rc = tc_ruleset_allow_fd(rs, shell_scratch_base_fd(),
	    shell_scratch_base, LL_SCRATCH, d)) != 0)
		return rc;
	return 0;
}

/*
 * What run_command's and start_command's profiles share: every field but
 * the name, the terminal's ioctls and flag, and how many ready children.
 * The network namespace goes where the policy grants a network
 * (TC_MAY_NETWORK); the child opens a call's working directory beneath
 * its root; the call's scratch directory is made, and the signals its
 * program must get back noted, before the call comes (ahead).
 */
#define SHELL_PROFILE_COMMON						\
	.root_access = TC_LL_READ,					\
	.write_access = LL_WRITE,					\
	.system = shell_system,						\
	.nsystem = TC_NITEMS(shell_system),				\
	.net_system = shell_net_system,					\
	.nnet_system = TC_NITEMS(shell_net_system),			\
	.rules = shell_rules,						\
	.rules_access = LL_RUN | LL_SCRATCH,				\
	.ns = TC_NS_ALL,						\
	.roots = TC_KEEP_ROOTS_ALL,					\
	.ahead = shell_child_ready,					\
	.read_only = shell_read_only,					\
	.read_only_found = shell_repo_found,				\
	.read_only_off = "'repositories writable' in the policy's "	\
	    "[shell] section runs without it, and lets calls change what "\
	    "git runs as you"

#define SHELL_MAY	(TC_MAY_EXEC_MEMORY | TC_MAY_SIGNAL | TC_MAY_FORK | \
			 TC_MAY_NETWORK)

const struct tc_profile shell_profile = {
	SHELL_PROFILE_COMMON,
	.name = "shell",
	.syscalls = { TC_SYSCALLS(shell_write_calls),
	    TC_SYSCALLS(shell_calls) },
	.may = SHELL_MAY,
};

/*
 * start_command's: the same, and a pseudo-terminal in each child for a
 * job that asks for one (TC_MAY_TTY), with the ioctls a terminal needs.
 * A profile of its own, so that run_command's children hold no terminal.
 */
const struct tc_profile shell_job_profile = {
	SHELL_PROFILE_COMMON,
	.name = "shell-job",
	.syscalls = { TC_SYSCALLS(shell_write_calls),
	    TC_SYSCALLS(shell_calls), TC_SYSCALLS(shell_tty_calls) },
	.may = SHELL_MAY | TC_MAY_TTY,
	/* Jobs are few (the policy's "jobs", 4 by default) and long: two
	 * ready children, each holding a terminal, not "children" of
	 * them.  More are made as they are asked for. */
	.ready = 2,
};
