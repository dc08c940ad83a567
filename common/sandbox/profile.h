/*
 * profile.h: a confinement profile, what a call's child may do, as data
 * that a server defines in its own folder (servers/fs/fs_profile.c).
 * Returns (sandbox/): 0 or a negative TC_E* code, with a struct tc_diag
 * where a person must read why; a question 1 or 0; a count or a lookup
 * what it found (NULL: nothing); a step that a child or a keeper takes
 * against the kernel 0 or -1 with errno set.
 *
 * A profile adds to what every child has (common/sandbox/seccomp.c's base
 * list: memory, its own fds, time, leaving): the system calls its handlers
 * need, with their argument rules; the Landlock rights it has beneath the
 * read-only and the writable roots and on system paths; rules a server
 * computes from its policy at start; the namespaces it wants; whether it
 * may map executable memory, signal, or have the network the policy
 * grants; and which root fds its child keeps.  A zero field grants
 * nothing: an empty profile is the base list, no file rights, no root fd,
 * no network.
 *
 * Each tool names its profile (struct tc_tool.profile).  At start the
 * sandbox prepares, for each distinct profile of the server's tools
 * (struct tc_profiles), one Landlock ruleset and one compiled seccomp
 * filter, and keeps a pool of ready children (sandbox.h).  A profile lives
 * for the program's life and never changes.
 */
#ifndef TC_SANDBOX_PROFILE_H
#define TC_SANDBOX_PROFILE_H

#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <seccomp.h>

#include "base/err.h"

struct tc_policy;

/* --- System calls --- */

enum tc_sys_kind {
	TC_SYS_ALLOW,		/* allowed, whatever its arguments */
	TC_SYS_MASKED,		/* allowed when (arg & mask) == value */
	TC_SYS_EQ,		/* allowed when arg == value, all 64 bits */
	TC_SYS_ERRNO,		/* refused with errno |value|, not EPERM */
};

/*
 * One rule of a profile's system call list.  Several rules for one call
 * allow it when any of them holds.  A pid, a command or a mode is an int:
 * compare only its low 32 bits (mask 0xffffffff), which is all the kernel
 * reads of it.  A TC_SYS_MASKED rule with |mask2| set holds only when
 * (arg2 & mask2) == value2 as well (TC_SYS_ARGS2).
 */
struct tc_syscall {
	int			 nr;		/* SCMP_SYS(name) */
	enum tc_sys_kind	 kind;
	unsigned		 arg;		/* 0-5 */
	uint64_t		 mask;
	uint64_t		 value;		/* or the errno */
	unsigned		 arg2;		/* 0-5, with mask2 */
	uint64_t		 mask2;		/* 0: no second argument */
	uint64_t		 value2;
};

#define TC_SYS(name)							\
	{ .nr = SCMP_SYS(name), .kind = TC_SYS_ALLOW }
#define TC_SYS_ARG(name, a, m, v)					\
	{ .nr = SCMP_SYS(name), .kind = TC_SYS_MASKED, .arg = (a),	\
	  .mask = (m), .value = (v) }
#define TC_SYS_ARGS2(name, a, m, v, a2, m2, v2)				\
	{ .nr = SCMP_SYS(name), .kind = TC_SYS_MASKED, .arg = (a),	\
	  .mask = (m), .value = (v), .arg2 = (a2), .mask2 = (m2),	\
	  .value2 = (v2) }
#define TC_SYS_IS(name, a, v)						\
	{ .nr = SCMP_SYS(name), .kind = TC_SYS_EQ, .arg = (a), .value = (v) }
#define TC_SYS_FAIL(name, err)						\
	{ .nr = SCMP_SYS(name), .kind = TC_SYS_ERRNO, .value = (err) }

/*
 * Masks the profiles' rules share: an int's 32 bits (a pid, a command, a
 * mode: all the kernel reads of it); a mode's set-user-ID and
 * set-group-ID bits, which a file or directory made never has; the open
 * flags that make the kernel read the mode; a socket's type without
 * SOCK_NONBLOCK and SOCK_CLOEXEC.
 */
#define TC_SYS_LOW32		0xffffffffULL
#define TC_SYS_SETID		((uint64_t)(S_ISUID | S_ISGID))
#define TC_SYS_MAKES		((uint64_t)(O_CREAT | __O_TMPFILE))
#define TC_SYS_SOCK_TYPE	0xfULL

/*
 * Which argument of clone() holds its flags: the kernel takes them
 * second on s390 and s390x (CONFIG_CLONE_BACKWARDS2: the stack comes
 * first), first on every other architecture Linux supports (the other
 * orders, CLONE_BACKWARDS and CLONE_BACKWARDS3, move only the later
 * arguments).  A clone() rule names it, never a bare 0:
 * tc_seccomp_build() refuses a rule on any other argument of clone().
 */
#if defined(__s390__)
#define TC_CLONE_FLAGS_ARG	1U
#else
#define TC_CLONE_FLAGS_ARG	0U
#endif

/* A table of rules: TC_SYSCALLS(table) fills one from a static array. */
struct tc_syscalls {
	const struct tc_syscall	*v;
	size_t			 n;
};

#define TC_SYSCALLS(table)	{ (table), sizeof(table) / sizeof((table)[0]) }

/* The tables a profile adds to the base list; unused ones stay empty. */
#define TC_SYSCALL_TABLES	4

/* --- Landlock --- */

/*
 * Landlock's filesystem rights (the kernel's ABI: the values never
 * change).  Rights the running kernel lacks are dropped when a ruleset is
 * built; on a file that is not a directory only the file rights apply.
 */
#define TC_LL_FS_EXECUTE	(1ULL << 0)
#define TC_LL_FS_WRITE_FILE	(1ULL << 1)
#define TC_LL_FS_READ_FILE	(1ULL << 2)
#define TC_LL_FS_READ_DIR	(1ULL << 3)
#define TC_LL_FS_REMOVE_DIR	(1ULL << 4)
#define TC_LL_FS_REMOVE_FILE	(1ULL << 5)
#define TC_LL_FS_MAKE_CHAR	(1ULL << 6)
#define TC_LL_FS_MAKE_DIR	(1ULL << 7)
#define TC_LL_FS_MAKE_REG	(1ULL << 8)
#define TC_LL_FS_MAKE_SOCK	(1ULL << 9)
#define TC_LL_FS_MAKE_FIFO	(1ULL << 10)
#define TC_LL_FS_MAKE_BLOCK	(1ULL << 11)
#define TC_LL_FS_MAKE_SYM	(1ULL << 12)
#define TC_LL_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define TC_LL_FS_TRUNCATE	(1ULL << 14)	/* ABI 3 */
#define TC_LL_FS_IOCTL_DEV	(1ULL << 15)	/* ABI 5 */

/* Listing a directory and reading what is in it. */
#define TC_LL_READ		(TC_LL_FS_READ_FILE | TC_LL_FS_READ_DIR)

/* The rights that make something new in a directory. */
#define TC_LL_MAKES		(TC_LL_FS_MAKE_CHAR | TC_LL_FS_MAKE_DIR | \
				 TC_LL_FS_MAKE_REG | TC_LL_FS_MAKE_SOCK | \
				 TC_LL_FS_MAKE_FIFO | TC_LL_FS_MAKE_BLOCK | \
				 TC_LL_FS_MAKE_SYM)

/* Rights beneath a fixed path, granted when the path exists here. */
struct tc_landlock_path {
	const char	*path;
	uint64_t	 access;	/* TC_LL_FS_* */
};

/* A Landlock ruleset being built: see tc_ruleset_allow(). */
struct tc_ruleset;

/*
 * For a profile's rules function: grants |access| (TC_LL_FS_*) beneath
 * |path| in |rs|.  |access| must lie within the profile's rules_access.
 * Returns 0; TC_EINVAL for rights beyond rules_access; TC_ESYS when |path|
 * cannot be opened or the kernel refuses the rule; |d| says which.
 */
int	tc_ruleset_allow(struct tc_ruleset *rs, const char *path,
	    uint64_t access, struct tc_diag *d);

/*
 * As tc_ruleset_allow(), beneath the file open at |fd| (the caller's; an
 * O_PATH fd will do), named |name| in messages: for a directory that a
 * process other than the server may rename and replace by a link, which
 * a path, opened again each time the ruleset is built, would follow.
 */
int	tc_ruleset_allow_fd(struct tc_ruleset *rs, int fd, const char *name,
	    uint64_t access, struct tc_diag *d);

/*
 * A server's rules computed from its policy |pol| (the programs its
 * policy allows, say), added with tc_ruleset_allow() each time the
 * profile's ruleset is built: at start and when the roots change.  Returns
 * 0, or a TC_E* code with |d| set, which refuses the start (or the new
 * roots).
 */
typedef int tc_profile_rules_fn(struct tc_ruleset *rs,
	    const struct tc_policy *pol, struct tc_diag *d);

/* --- The profile --- */

/* Which of the policy's root fds a child keeps open. */
enum tc_keep_roots {
	TC_KEEP_ROOTS_NONE,		/* none: it names no root */
	TC_KEEP_ROOTS_READONLY,		/* the roots that are not writable */
	TC_KEEP_ROOTS_ALL,
};

enum tc_profile_may {
	/* mmap() may map executable memory (never writable and executable
	 * at once): programs' own code.  Without it nothing executable is
	 * ever mapped; mprotect() never adds PROT_EXEC, but where the
	 * policy says "jit on" (TC_SECCOMP_JIT), which only a profile with
	 * this flag takes: then both take any protection. */
	TC_MAY_EXEC_MEMORY	= 1 << 0,
	/* Signals within the call: kill() and tgkill() of any pid where a
	 * PID namespace or Landlock's signal scope keeps them in, else
	 * kill() of its own process group only. */
	TC_MAY_SIGNAL		= 1 << 1,
	/* openat2() where Landlock is in force.  The filter cannot see its
	 * mode, so only a profile that can make no file may have it: the
	 * sandbox refuses to prepare one with a TC_LL_MAKES right. */
	TC_MAY_OPENAT2		= 1 << 2,
	/* Processes of its own (clone, fork, vfork): the whole tree,
	 * grandchildren that left the process group included, is killed
	 * when the call ends: by the end of the child's PID namespace,
	 * where it has one of its own, else by a keeper
	 * (sandbox/keeper.h) between the child and the server, a
	 * subreaper.  Where a pids cgroup is in force, each call has one
	 * (sandbox/pids.h).  A profile whose tables allow one of these
	 * calls without it is refused. */
	TC_MAY_FORK		= 1 << 3,
	/*
	 * The network the policy's "network" line grants (policy.h:
	 * enum tc_network); without a grant, none, as for any profile.
	 * With one: no network namespace, whatever |ns| asks; socket() of
	 * AF_INET and AF_INET6 (never AF_UNIX: a host's Unix sockets are
	 * files no network rule holds) and the calls that use one; the
	 * profile's net_system paths readable.  "network connect PORT..."
	 * gives TCP sockets only, and Landlock's TCP rules let them
	 * connect to those ports and bind none (ABI 4: on an older kernel,
	 * or without Landlock, the start is refused); UDP, which no
	 * Landlock rule holds, is refused, and so is TCP Fast Open
	 * (MSG_FASTOPEN connects without the connect() that Landlock
	 * checks): a profile whose tables allow sendto(), sendmsg() or
	 * sendmmsg() without excluding it is refused.  "network on" gives
	 * TCP and UDP, bind and listen, any port.
	 */
	TC_MAY_NETWORK		= 1 << 4,
	/*
	 * A pseudo-terminal for its handler to give a program
	 * (stream.h: tc_call_tty()): the child opens a fresh pair from
	 * /dev/ptmx before it is confined, so that no Landlock right on
	 * /dev/ptmx or /dev/pts is ever granted: its programs can reach
	 * no other terminal by name, nor make new ones.  The ioctls a
	 * terminal needs are the profile's to allow (TIOCSCTTY,
	 * TCSETS*, ...); TIOCSTI and TIOCLINUX stay refused.  Each of the
	 * profile's children holds a pair from its start, used or not: a
	 * profile for the tools that offer one.
	 */
	TC_MAY_TTY		= 1 << 5,
};

/* The mounts a child makes to keep places read-only (sandbox/mounts.c). */
struct tc_keep;

struct tc_profile {
	const char		*name;		/* "fs-read": messages, audit */
	/* System calls added to the base list. */
	struct tc_syscalls	 syscalls[TC_SYSCALL_TABLES];
	/* Landlock: beneath every root, and in addition beneath the
	 * writable ones. */
	uint64_t		 root_access;
	uint64_t		 write_access;
	/* Landlock: system paths (what programs and the C library read). */
	const struct tc_landlock_path *system;
	size_t			 nsystem;
	/* Landlock: system paths granted only with a network
	 * (TC_MAY_NETWORK, and the policy grants one): name resolution,
	 * certificates. */
	const struct tc_landlock_path *net_system;
	size_t			 nnet_system;
	/* Landlock: rules from the policy, or NULL, and the most they may
	 * grant (tc_ruleset_allow() refuses more). */
	tc_profile_rules_fn	*rules;
	uint64_t		 rules_access;
	unsigned long		 ns;		/* CLONE_NEW*, of TC_NS_ALL */
	enum tc_keep_roots	 roots;
	unsigned		 may;		/* TC_MAY_* */
	/* Ready children kept for it, at most (the policy's "children" is
	 * the most for every profile); 0: as many as that.  For a profile
	 * of rare tools, or whose children each hold something scarce (a
	 * terminal, TC_MAY_TTY). */
	unsigned		 ready;
	/* Or NULL: run in each ready child once it is confined, before it
	 * waits for its call, with the policy it will run under: what every
	 * call of the profile needs and can have ready ahead of it, off
	 * the call's path (toolcell-shell's scratch directory).  It reports
	 * nothing: the handler does the work itself when it finds it
	 * undone. */
	void			(*ahead)(const struct tc_policy *pol);
	/*
	 * Nonzero: its ready children are forked from one confined process
	 * of the profile, its zygote (spawn.c, zygote.c), which has taken
	 * every confinement step and run |ahead| once, instead of each being
	 * confined from the start; each child then takes only the steps that
	 * make it a call of its own (a session, a Landlock domain, a filter
	 * that takes back what the zygote needed to fork it).  For a profile
	 * whose children have no namespaces, no keeper, no terminal and no
	 * network (the sandbox uses no zygote for one that does, nor where a
	 * layer is not in force), and whose |ahead| work may be inherited
	 * through fork().
	 */
	unsigned		 zygote;
	/*
	 * Or NULL: in a zygote, before each child is forked, whether what
	 * |ahead| made is out of date (a database replaced since it was
	 * opened): nonzero runs |ahead| again first.
	 */
	int			(*stale)(const struct tc_policy *pol);
	/*
	 * Or NULL: run in each ready child once it is a call of its own
	 * (after |ahead| in a child confined from the start; in a zygote's
	 * child, after its fork filter), before it waits for its call: the
	 * ahead work that reads what calls write and so is untrusted (a
	 * database's schema), which a zygote must never do (it lives for
	 * many calls, holds the pipes of each, and may fork).  It reports
	 * nothing, as |ahead|.
	 */
	void			(*ahead_child)(const struct tc_policy *pol);
	/*
	 * Or NULL: the names a call may read but never change at the top
	 * of each writable root and in each directory one level down, as
	 * |pol| has them (NULL: none, the policy lets calls change them):
	 * toolcell-shell's ".git", whose hooks and configuration git runs
	 * outside the sandbox, as the user.  Landlock cannot take a right
	 * back beneath a directory it grants; a mount can.  Each child is
	 * then cloned in a mount namespace of its own, where each place
	 * is found afresh and bound read-only over itself before the child
	 * is confined (mounts.c); a directory one level down that holds
	 * one is bound over itself too, so that it cannot be renamed.  The
	 * sandbox refuses to start where the kernel denies the namespace.
	 */
	const char *const	*(*read_only)(const struct tc_policy *pol);
	/* With |read_only|: what a policy says to let calls change them,
	 * for the refusal where the kernel cannot keep them. */
	const char		*read_only_off;
	/*
	 * Or NULL: with |read_only|, run in the child for each place it has
	 * bound, |place| in directory |dir| (both beneath |at|, a writable
	 * root's fd in the child's namespace, whose canonical path
	 * tc_keep_root() gives; |dir| "" at the root's top), and once for
	 * the root itself (|place| NULL): what else must be kept, each bound
	 * with tc_keep_beneath() (toolcell-shell: the .git of each
	 * submodule a repository's git directory knows, the root's own
	 * repository's too when the root lies inside one).  It reads what it is given
	 * before the child is confined, with the child's capabilities:
	 * files of a place already bound read-only, never followed through
	 * a link.  Returns 0, or -1 with errno (the child fails).
	 */
	int			(*read_only_found)(struct tc_keep *k, int at,
				    const char *dir, const char *place);
};

/*
 * In a read_only_found hook: binds |path| (beneath |at|) read-only, each
 * directory between |top| (a directory |path| lies beneath, "" for |at|
 * itself; not included) and it bound over itself first, writable, so
 * that none can be renamed aside and replaced.  Never through a link.
 * Returns 1 when bound, 0 where nothing is there to keep, -1 with errno
 * (E2BIG: past the mounts a child makes).
 */
int	tc_keep_beneath(struct tc_keep *k, int at, const char *top,
	    const char *path);

/* In a read_only_found hook: the canonical path of the writable root
 * whose fd it was given. */
const char *tc_keep_root(const struct tc_keep *k);

/* The namespaces a profile may ask for; it gets those the kernel allows. */
#define TC_NS_ALL	(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID |	\
			 CLONE_NEWIPC | CLONE_NEWUTS)

/* The distinct profiles of a server's tools, which the sandbox prepares. */
#define TC_PROFILES_MAX	8

struct tc_profiles {
	const struct tc_profile	*v[TC_PROFILES_MAX];
	size_t			 n;
};

/*
 * Adds |p| to |set| unless it is there already.  A NULL profile or a
 * ninth distinct one is a bug in the server's table (TC_BUG()).
 */
void	tc_profiles_add(struct tc_profiles *set, const struct tc_profile *p);

#endif /* TC_SANDBOX_PROFILE_H */
