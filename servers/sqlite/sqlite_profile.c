/*
 * sqlite_profile.c: the confinement profile of toolcell-sqlite's tools, as
 * data (sandbox/profile.h): what a call's child may do on top of the base
 * list every child has (common/sandbox/seccomp.c: reading, pread64,
 * fstat, fcntl's locks F_GETLK/F_SETLK/F_OFD_*, openat without set-id
 * modes, mmap never executable).
 *
 * One profile for every tool: a read on a database in WAL mode writes its
 * -shm file (the readers' locks live there), so a read-only tool needs
 * the same rights on a read-write database's directory as execute does;
 * what holds a read-only tool to reading is its connection (opened
 * SQLITE_OPEN_READONLY, query_only, the authorizer: sqlite_conn.h), not
 * the kernel.  The kernel holds the whole child to the databases'
 * directories: it reads nothing else, writes beneath no directory of a
 * read-only database, and writes only regular files (the journal, the
 * WAL and its -shm) beneath a read-write one's.  No exec, no fork, no
 * socket: none of those calls is on its list.  No namespace: with no
 * fork, no socket and no signal a PID, network or IPC namespace would
 * add nothing.  It keeps no root fd: it opens databases by the paths the
 * policy resolved, never through a root.
 */
#include "policy/policy.h"
#include "sandbox/profile.h"
#include "sqlite.h"

/*
 * What SQLite does to a read-write database and its journal files:
 * pwrite64 into them, sync them, truncate and remove the journal (SQLite
 * calls unlink(), which libc does not turn into unlinkat()), grow the WAL
 * and -shm.  Not fchown and fchmod, which SQLite tries on a
 * journal it makes as root, to give it the database's owner and mode:
 * the filter refuses them with EPERM, its answer to every call not on a
 * list, which SQLite ignores.  Landlock does not govern owners and modes,
 * so neither may reach a file.
 */
static const struct tc_syscall sqlite_calls[] = {
	TC_SYS(pwrite64), TC_SYS(fsync), TC_SYS(fdatasync),
	TC_SYS(ftruncate), TC_SYS(fallocate), TC_SYS(unlink),
	TC_SYS(unlinkat),
};

#define SQ_WRITE	(TC_LL_FS_WRITE_FILE | TC_LL_FS_REMOVE_FILE |	\
			 TC_LL_FS_MAKE_REG | TC_LL_FS_TRUNCATE)

/*
 * Its Landlock rules, from the [sqlite] section each time the ruleset is
 * built: read beneath the directory of every database, and SQLite's own
 * files made, written, truncated and removed beneath the directory of
 * each read-write one, and of each read-only one in WAL mode, whose
 * readers write its -shm (and make it and the -wal when they are not
 * there): its connection, opened read-only, keeps it so.  A directory
 * that holds a read-only and a read-write database gets both.  Nothing
 * of the roots: toolcell-sqlite serves files, not directories
 * (docs/design.md "toolcell-sqlite").
 */
static int
sqlite_rules(struct tc_ruleset *rs, const struct tc_policy *pol,
    struct tc_diag *d)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	size_t i;
	int rc;

	/* Each directory by the fd the policy resolved it with: the rules
	 * are built again when the roots change, and by then a process
	 * that may write the directory above (another server's call) may
	 * have put a link in its place. */
	for (i = 0; i < sp->ndbs; i++)
		if ((rc = tc_ruleset_allow_fd(rs, sp->dbs[i].dir_fd,
		    sp->dbs[i].dir, TC_LL_READ | (sq_dir_writable(&sp->dbs[i]) ?
		    SQ_WRITE : 0), d)) != 0)
			return rc;
	return 0;
}

/* SQLite's randomness (temporary names, random()) reads /dev/urandom
 * where getrandom() is not used. */
static const struct tc_landlock_path sqlite_system[] = {
	{ "/dev/urandom",	TC_LL_FS_READ_FILE },
};

const struct tc_profile sqlite_profile = {
	.name = "sqlite",
	.syscalls = { TC_SYSCALLS(sqlite_calls) },
	.system = sqlite_system,
	.nsystem = TC_NITEMS(sqlite_system),
	.rules = sqlite_rules,
	.rules_access = TC_LL_READ | SQ_WRITE,
	.roots = TC_KEEP_ROOTS_NONE,
	.ahead = sq_ahead,
	.zygote = 1,
	.stale = sq_ahead_stale,
	.ahead_child = sq_ahead_child,
};
