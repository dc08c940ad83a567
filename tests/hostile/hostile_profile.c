/*
 * hostile_profile.c: the confinement profiles of toolcell-hostile's tools,
 * so that every containment test runs under a profile as a server would
 * define it (sandbox/profile.h).
 *
 * hostile-fs-read and hostile-fs-write are toolcell-fs's two profiles,
 * field for field (test-seccomp checks that they stay so), so that the
 * containment tests show what fs's children can do.  hostile-exec stands
 * for the profile of a server that runs programs, as toolcell-shell will
 * have (its own, in servers/shell), and hostile-sqlite for toolcell-
 * sqlite's; both are as the closed list of profiles had them before
 * servers defined their own, but for the SQLite one, which is made
 * coherent (see below).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "hostile.h"
#include "policy/policy.h"
#include "sandbox/profile.h"

/* --- toolcell-fs's profiles --- */

const struct tc_profile hostile_fs_read = {
	.name = "hostile-fs-read",
	.root_access = TC_LL_READ,
	.roots = TC_KEEP_ROOTS_ALL,
	.may = TC_MAY_OPENAT2,
};

static const struct tc_syscall fs_write_calls[] = {
	TC_SYS(unlinkat), TC_SYS(renameat2), TC_SYS(symlinkat),
	TC_SYS(ftruncate), TC_SYS(fallocate), TC_SYS(fsync),
	TC_SYS(fdatasync), TC_SYS(umask),
	TC_SYS_ARG(mkdirat, 2, TC_SYS_SETID, 0),
	TC_SYS_IS(linkat, 4, AT_SYMLINK_FOLLOW),
};

const struct tc_profile hostile_fs_write = {
	.name = "hostile-fs-write",
	.syscalls = { TC_SYSCALLS(fs_write_calls) },
	.root_access = TC_LL_READ,
	.write_access = TC_LL_FS_WRITE_FILE | TC_LL_FS_REMOVE_DIR |
	    TC_LL_FS_REMOVE_FILE | TC_LL_FS_MAKE_DIR | TC_LL_FS_MAKE_REG |
	    TC_LL_FS_MAKE_SYM | TC_LL_FS_REFER | TC_LL_FS_TRUNCATE,
	.roots = TC_KEEP_ROOTS_ALL,
};

/* --- A server that runs programs --- */

/*
 * Changing files (no linkat): the calls programs make.  Its Landlock
 * rights are read-only, but for /dev/null: toolcell-shell will grant
 * write rights beneath writable roots to match.
 */
static const struct tc_syscall exec_write_calls[] = {
	TC_SYS(unlinkat), TC_SYS(renameat2), TC_SYS(symlinkat),
	TC_SYS(ftruncate), TC_SYS(fallocate), TC_SYS(fsync),
	TC_SYS(fdatasync), TC_SYS(umask),
	TC_SYS_ARG(mkdirat, 2, TC_SYS_SETID, 0),
};

/* The fork flags a program may not use: new namespaces, and a child
 * given to the caller's parent (the server or the spawner). */
#define CLONE_DENIED	((uint64_t)(CLONE_NEWNS | CLONE_NEWUTS |	\
			 CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |	\
			 CLONE_NEWNET | CLONE_NEWCGROUP | CLONE_PARENT))

/*
 * Running programs: processes, pipes, waiting.  wait4, waitid and setpgid
 * reach only the caller's children by their nature; kill and tgkill come
 * with TC_MAY_SIGNAL.
 */
static const struct tc_syscall exec_calls[] = {
	TC_SYS(execve), TC_SYS(execveat), TC_SYS(vfork),
	TC_SYS(wait4), TC_SYS(waitid),
	TC_SYS(pipe2), TC_SYS(dup), TC_SYS(dup2), TC_SYS(dup3),
	TC_SYS(setpgid), TC_SYS(getpgrp),
	TC_SYS(setsid), TC_SYS(chdir), TC_SYS(fchdir),
	TC_SYS(getcwd), TC_SYS(access), TC_SYS(faccessat),
	TC_SYS(faccessat2), TC_SYS(readlink), TC_SYS(readlinkat),
	TC_SYS(poll), TC_SYS(ppoll), TC_SYS(select),
	TC_SYS(pselect6), TC_SYS(arch_prctl), TC_SYS(set_tid_address),
	TC_SYS(set_robust_list), TC_SYS(rseq), TC_SYS(sigaltstack),
	TC_SYS(rt_sigsuspend), TC_SYS(getrusage), TC_SYS(sysinfo),
	TC_SYS(uname), TC_SYS(getrlimit), TC_SYS(alarm),
	TC_SYS(setitimer), TC_SYS(pause),
	TC_SYS(stat), TC_SYS(lstat), TC_SYS(pipe),
	/* About itself only. */
	TC_SYS_ARG(getpgid, 0, TC_SYS_LOW32, 0),
	TC_SYS_ARG(getsid, 0, TC_SYS_LOW32, 0),
	TC_SYS_ARG(sched_getaffinity, 0, TC_SYS_LOW32, 0),
	TC_SYS_ARG(open, 1, TC_SYS_MAKES, 0),
	TC_SYS_ARG(open, 2, TC_SYS_SETID, 0),
	TC_SYS_ARG(clone, TC_CLONE_FLAGS_ARG, CLONE_DENIED, 0),
	/* Stream and seqpacket pairs: a datagram socket of a pair could
	 * send to any socket of the host by its path. */
	TC_SYS_ARGS2(socketpair, 0, TC_SYS_LOW32, AF_UNIX, 1, TC_SYS_SOCK_TYPE,
	    SOCK_STREAM),
	TC_SYS_ARGS2(socketpair, 0, TC_SYS_LOW32, AF_UNIX, 1, TC_SYS_SOCK_TYPE,
	    SOCK_SEQPACKET),
	/* clone3 hides its flags in memory, so it is refused and libc
	 * falls back to clone. */
	TC_SYS_FAIL(clone3, ENOSYS),
};

#define LL_RX	(TC_LL_FS_EXECUTE | TC_LL_READ)

/*
 * What a child that runs programs needs of the system, read-only: the
 * programs and their libraries, and the few files of /etc and /dev that
 * the C library and ordinary tools read.  Nothing else of /etc (no
 * /etc/shadow for a call that keeps uid 0), and no /proc.
 */
static const struct tc_landlock_path exec_system[] = {
	{ "/usr",		LL_RX },
	{ "/bin",		LL_RX },
	{ "/sbin",		LL_RX },
	{ "/lib",		LL_RX },
	{ "/lib32",		LL_RX },
	{ "/lib64",		LL_RX },
	{ "/etc/ld.so.cache",	TC_LL_FS_READ_FILE },
	{ "/etc/ld.so.conf",	TC_LL_FS_READ_FILE },
	{ "/etc/ld.so.conf.d",	TC_LL_READ },
	{ "/etc/localtime",	TC_LL_FS_READ_FILE },
	{ "/etc/nsswitch.conf",	TC_LL_FS_READ_FILE },
	{ "/etc/passwd",	TC_LL_FS_READ_FILE },
	{ "/etc/group",		TC_LL_FS_READ_FILE },
	{ "/dev/null",		TC_LL_FS_READ_FILE | TC_LL_FS_WRITE_FILE },
	{ "/dev/zero",		TC_LL_FS_READ_FILE },
	{ "/dev/urandom",	TC_LL_FS_READ_FILE },
};

const struct tc_profile hostile_exec = {
	.name = "hostile-exec",
	.syscalls = { TC_SYSCALLS(exec_write_calls), TC_SYSCALLS(exec_calls) },
	.root_access = TC_LL_READ,
	.system = exec_system,
	.nsystem = sizeof(exec_system) / sizeof(exec_system[0]),
	.ns = TC_NS_ALL,
	.roots = TC_KEEP_ROOTS_ALL,
	.may = TC_MAY_EXEC_MEMORY | TC_MAY_SIGNAL | TC_MAY_FORK,
};

/* --- A server of SQLite databases --- */

/*
 * What SQLite does to a database's directory: makes, writes, truncates,
 * syncs and removes its journal and WAL files; nothing else.  The closed
 * list had the write tools' system calls here (mkdirat, renameat2,
 * symlinkat, umask) under a read-only ruleset, which let the calls through
 * to no use; now the calls and the Landlock rights say the same thing.
 */
static const struct tc_syscall sqlite_calls[] = {
	TC_SYS(unlinkat), TC_SYS(ftruncate), TC_SYS(fallocate),
	TC_SYS(fsync), TC_SYS(fdatasync),
};

#define SQLITE_WRITE	(TC_LL_FS_WRITE_FILE | TC_LL_FS_REMOVE_FILE |	\
			 TC_LL_FS_MAKE_REG | TC_LL_FS_TRUNCATE)

/*
 * Its Landlock rules, computed from the policy at start as toolcell-
 * sqlite will compute them from its databases' directories: here the
 * roots stand for them, read beneath each and SQLite's files written
 * beneath the writable ones.
 */
static int
sqlite_rules(struct tc_ruleset *rs, const struct tc_policy *pol,
    struct tc_diag *d)
{
	size_t i;
	int rc;

	for (i = 0; i < pol->nroots; i++)
		if ((rc = tc_ruleset_allow(rs, pol->roots[i].path, TC_LL_READ |
		    ((pol->roots[i].flags & TC_ROOT_WRITE) ? SQLITE_WRITE :
		    0), d)) != 0)
			return rc;
	return 0;
}

/* It opens its databases by the paths its policy names, through no root:
 * its child keeps no root fd. */
const struct tc_profile hostile_sqlite = {
	.name = "hostile-sqlite",
	.syscalls = { TC_SYSCALLS(sqlite_calls) },
	.rules = sqlite_rules,
	.rules_access = TC_LL_READ | SQLITE_WRITE,
	.roots = TC_KEEP_ROOTS_NONE,
};
