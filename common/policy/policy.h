/*
 * policy.h: what a server may touch, loaded once at start and read-only
 * afterwards: the allowed roots (each opened as a directory fd that every
 * path is resolved beneath), whether each is writable, and the limits that
 * apply to every call.  They come from a policy file (policyfile.c, the
 * language of toolcell-policy(5)) and from the command line; a server's
 * own settings come from its section of the file (section.h).
 * Return convention: 0 or a negative TC_E*, with a struct tc_diag where a
 * person must read why; a question returns 1 or 0, a lookup NULL when
 * there is nothing.
 */
#ifndef TC_POLICY_H
#define TC_POLICY_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "policy/subject.h"

struct tc_pin;

enum tc_root_flags {
	TC_ROOT_WRITE	= 1 << 0,
};

/* The most "children" a policy may keep ready per profile. */
#define TC_CHILDREN_MAX	16

/* Each root's fd stays open in every call's child: a bound on them. */
#define TC_ROOTS_MAX	32

struct tc_root {
	char		*path;		/* canonical absolute path */
	char		*given;		/* as the user wrote it, made absolute */
	size_t		 pathlen;
	size_t		 givenlen;
	int		 fd;		/* O_PATH|O_DIRECTORY, held for life */
	unsigned	 flags;
	int		 line;		/* in the policy file; 0: command line */
	int		 cmdline;	/* given on the command line (as well,
					   with a line) */
	int		 write_line;	/* what made it writable: a line, or 0
					   the command line */
	char		*scope;		/* narrowed by the client's roots: where
					   it lies in its policy root ("a/b"),
					   else NULL */
};

struct tc_limits {
	int		 deadline_ms;	/* wall clock per call */
	size_t		 max_result;	/* bytes a child may send back */
	unsigned long	 cpu_sec;	/* RLIMIT_CPU */
	unsigned long	 mem_bytes;	/* RLIMIT_AS */
	unsigned long	 fsize_bytes;	/* RLIMIT_FSIZE */
	unsigned long	 nofile;	/* RLIMIT_NOFILE */
	unsigned long	 nproc;		/* RLIMIT_NPROC, where it counts */
	unsigned	 max_inflight;	/* calls running at once */
};

/*
 * What the "network" line grants a call, in a server with a tool that may
 * use a network (TC_POLICY_F_NETWORK); the sandbox gives it to the
 * children of a profile with TC_MAY_NETWORK (sandbox/profile.h).
 */
enum tc_network {
	TC_NETWORK_OFF,		/* none: no call reaches a network */
	TC_NETWORK_ON,		/* the host's network: any address and port */
	TC_NETWORK_CONNECT,	/* TCP connections to the ports of net_ports,
				   at any address; nothing else */
};

/* The most ports a "network connect" line names (all on one line). */
#define TC_NET_PORTS_MAX	62

/* Confinement layers the user agreed to run without (--allow-degraded). */
enum tc_degrade {
	TC_DEGRADE_LANDLOCK	= 1 << 0,
	TC_DEGRADE_NAMESPACES	= 1 << 1,	/* optional: never refused */
	TC_DEGRADE_SECCOMP	= 1 << 2,
};

/* The settings a policy file may give once each, to say where they came
 * from (and to name the earlier line of a duplicate). */
enum tc_setting {
	TC_SET_TIMEOUT,
	TC_SET_MEMORY,
	TC_SET_CPU,
	TC_SET_OUTPUT,
	TC_SET_FILES,
	TC_SET_PROCESSES,
	TC_SET_FILESIZE,
	TC_SET_RUN_AS,
	TC_SET_DEGRADE_LANDLOCK,
	TC_SET_DEGRADE_SECCOMP,
	TC_SET_DEFAULT_DENY,
	TC_SET_TOOLS,
	TC_SET_NETWORK,
	TC_SET_JIT,
	TC_SET_CONSENT_BY,
	TC_SET_CONSENT_HOOK,
	TC_SET_CONSENT_TIMEOUT,
	TC_SET_AUDIT,
	TC_SET_AUDIT_KEY,
	TC_SET_AUDIT_SYNC,
	TC_SET_AUDIT_ROTATE,
	TC_SET_ROOTS_TIMEOUT,
	TC_SET_ROOTS,
	TC_SET_CHILDREN,
	TC_SET_JOBS,
	TC_SET_JOB_LIFETIME,
	TC_SET_MAX
};

/* What a deny rule refuses. */
enum tc_access {
	TC_ACCESS_READ	= 1 << 0,	/* reading, listing, naming in results */
	TC_ACCESS_WRITE	= 1 << 1,	/* creating, changing, removing */
	/* Not an access: marks a rule that, in a call's child only, stands
	 * for a pattern of a consent rule the call was not given (its
	 * line is the consent rule's; see tc_sandbox_consent_rules()). */
	TC_ACCESS_CONSENT = 1 << 2,
};

/*
 * A deny rule: paths matching |pattern| are refused for |access|, whatever
 * the allow lines say.  A pattern without a leading '/' is matched against
 * the path relative to each root; one with a leading '/' against the
 * canonical absolute path.  '*' and '?' stay within a component, "**" as a
 * whole component matches any number of them, and a pattern that matches a
 * directory matches everything beneath it (see glob.h).
 */
struct tc_deny {
	char		*pattern;	/* "~/" expanded */
	unsigned	 access;	/* TC_ACCESS_* */
	int		 line;		/* in the policy file; 0: built in */
	const char	*own;		/* a server's own file (own.h): what it
					   is, "audit key"; else NULL */
	int		 exact;		/* the path itself, not what is
					   beneath it */
};

/* A server's own file by identity (own.h): refused whatever its name. */
struct tc_own_id {
	dev_t		 dev;
	ino_t		 ino;
	struct tc_deny	 rule;		/* for the refusal's words */
};

/* Per-tool settings: "tool NAME ..." lines. */
struct tc_tool_policy {
	char		*name;
	int		 enabled;	/* named by "tools" (or there is none),
					   and not "tool NAME off" */
	int		 line;		/* the first line naming it */
	int		 named;	/* on a "tools" line */
	int		 off_line;	/* "tool NAME off", or 0 */
	struct tc_limits limits;	/* the server's, with the tool's own */
	int		 set_at[TC_SET_MAX];	/* the tool's own settings */
};

/* Another name of a tool (see tools.h): the policy knows it as |tool|. */
struct tc_tool_alias {
	char		*name;
	size_t		 tool;		/* index into policy->tools */
};

/* The PATH a consent hook runs with (sandbox/hook.c), which own.c
 * searches as env(1) would to find the program a hook names. */
#define TC_HOOK_PATH	"/usr/local/bin:/usr/bin:/bin"

/* How a person may be asked, in the order a policy names them. */
enum tc_consent_means {
	TC_CONSENT_ELICIT = 1,		/* MCP elicitation/create */
	TC_CONSENT_HOOK,		/* the consent-hook program */
};
#define TC_CONSENT_MEANS_MAX	2

/* A consent rule: calls of |tool| ("*": any) need a person's yes; with
 * patterns, only those whose path arguments match one. */
struct tc_consent_rule {
	char		*tool;
	char		**patterns;	/* as deny patterns; NULL-terminated */
	size_t		 npatterns;
	int		 line;
	/* Typed (policy/subject.h): the values of the other kinds the rule
	 * names, NULL-terminated, kind after kind in the order of enum
	 * tc_subject_kind, nvalues[k] of kind k.  |kinds| has a bit
	 * (1u << kind) for each kind named, path when |npatterns| > 0.  A
	 * call matches when every kind named has a subject of the call
	 * that one of its values matches; a rule naming none matches every
	 * call of its tool. */
	char		**values;
	size_t		 nvalues[TC_SUBJECT_NKINDS];
	unsigned	 kinds;
};

/* What the client's MCP roots do to the roots in force ("roots" lines). */
enum tc_roots_mode {
	TC_ROOTS_NARROW,	/* narrow to them; if that leaves nothing,
				   keep the policy's (the default) */
	TC_ROOTS_STRICT,	/* narrow to them, even to nothing */
	TC_ROOTS_IGNORE,	/* never ask for them */
};

/* What the client's roots last did, for the texts that say so. */
enum tc_roots_state {
	TC_ROOTS_OWN,		/* none applied: the policy's directories */
	TC_ROOTS_NARROWED,	/* narrowed to where they meet the policy's */
	TC_ROOTS_KEPT,		/* they meet none of the policy's
				   directories, which are kept (narrow) */
	TC_ROOTS_EMPTY,		/* they meet none, and nothing is served
				   (strict) */
};

enum tc_audit_sync {
	TC_AUDIT_SYNC_EVERY,		/* fsync after every record (default) */
	TC_AUDIT_SYNC_NONE,		/* leave it to the kernel */
};

/* Another server's section in the policy file: its first header. */
struct tc_policy_skipped {
	const char	*name;		/* "shell": static */
	int		 line;
};

/* A setting's origin in set_at[]: 0 is the default, a positive number the
 * line of the policy file, and this the command line. */
#define TC_SET_CMDLINE	(-1)

struct tc_policy {
	struct tc_root	*roots;		/* in force */
	size_t		 nroots;
	struct tc_root	*ceiling;	/* the policy's, once narrowed */
	size_t		 nceiling;
	struct tc_limits limits;
	unsigned	 allow_degraded;	/* TC_DEGRADE_* */
	int		 run_as;	/* switch children to run_uid/gid */
	uid_t		 run_uid;
	gid_t		 run_gid;
	char		*run_as_spec;	/* "USER[:GROUP]" as written, or NULL */
	char		*file;		/* the policy file as given, or NULL */
	int		 set_at[TC_SET_MAX];

	struct tc_deny	*deny;		/* built-in ones first */
	size_t		 ndeny;
	struct tc_tool_policy *tools;	/* one per tool of the server */
	size_t		 ntools;
	struct tc_tool_alias *aliases;	/* names that are not on their own */
	size_t		 naliases;
	enum tc_network	 network;
	uint16_t	 net_ports[TC_NET_PORTS_MAX];	/* TC_NETWORK_CONNECT:
					   ascending, each once */
	size_t		 nnet_ports;
	int		 jit;		/* "jit on": programs may make memory
					   writable and executable */
	struct tc_consent_rule *consent;
	size_t		 nconsent;
	enum tc_consent_means consent_by[TC_CONSENT_MEANS_MAX];
	size_t		 nconsent_by;	/* then: deny */
	char		**consent_hook;	/* argv, NULL-terminated, or NULL */
	int		 consent_timeout_ms;
	int		 roots_timeout_ms;	/* for roots/list */
	enum tc_roots_mode roots_mode;
	enum tc_roots_state roots_state;
	char		**client_roots;	/* the paths the client last gave,
					   NULL-terminated, or NULL */
	size_t		 nclient_roots;
	/* Jobs (serve/job.h): how many run at once, and for how long. */
	unsigned long long max_jobs;	/* "jobs N"; 0: none */
	int		 job_lifetime_ms;	/* "job-lifetime DURATION" */
	char		*audit_file;	/* JSON Lines log, or NULL */
	char		*audit_key_file;	/* HMAC key, or NULL: SHA-256 */
	enum tc_audit_sync audit_sync;
	unsigned long long audit_rotate_bytes;	/* 0: never */
	unsigned	 audit_keep;	/* rotated files kept; 0: all */
	int		 default_deny;	/* add the built-in deny rules */
	/* Call children kept forked and confined ahead of calls, per
	 * confinement profile ("children"); 0: each call's own, on the
	 * call. */
	unsigned long long children;
	int		 default_added;	/* built-in rules come first in deny */

	/* The server's own files (own.h): their identities, and the consent
	 * hook as opened and checked at start. */
	struct tc_own_id *own;
	size_t		 nown;
	int		 consent_hook_fd;	/* O_PATH, or -1 */
	int		 consent_hook_script;	/* it starts with "#!" */

	/* The server the policy is for, set before loading. */
	const char	*server;	/* "toolcell-fs" */
	unsigned	 features;	/* TC_POLICY_F_* */

	/* The server's own section (section.h): its table, the slot its
	 * keywords fill, where each was set (by its index in the table),
	 * and the other servers' sections the file has, skipped. */
	const struct tc_policy_section *section;
	void		*slot;
	int		*slot_at;
	struct tc_policy_skipped *skipped;
	size_t		 nskipped;

	/* In a call's child only, for a call consent was given for: what
	 * the server found at each path when it decided the call, which is
	 * what the child must find when it opens them (path.h). */
	const struct tc_pin *pins;
	size_t		 npins;
	int		 pinned;
};

/* What a server can do, for the keywords that only make sense there. */
enum tc_policy_features {
	TC_POLICY_F_NETWORK	= 1 << 0,	/* some tool may use a network */
	TC_POLICY_F_JOBS	= 1 << 1,	/* some tool starts jobs: "jobs"
						   and "job-lifetime" apply */
	TC_POLICY_F_WRITERS	= 1 << 2,	/* its tools that change files
						   are offered only while a
						   directory is writable */
	TC_POLICY_F_DENY_NAMED	= 1 << 3,	/* deny rules hold the paths a
						   call names only: the
						   programs it runs open
						   files themselves */
	TC_POLICY_F_JIT		= 1 << 4,	/* its tools run programs:
						   "jit" applies */
	TC_POLICY_F_NO_ROOTS	= 1 << 5,	/* it serves no directory and
						   its calls name no path (its
						   section names what it
						   serves): the client's roots
						   are not asked for, and
						   --check leaves out the
						   directories, deny rules,
						   network and roots */
};

/* Fills |p| with no roots and the default limits. */
void	tc_policy_init(struct tc_policy *p);

/* Closes the root fds and frees everything. */
void	tc_policy_release(struct tc_policy *p);

/*
 * Names the server the policy is for and its tools (|names|, |n| of them),
 * before tc_policy_load(): "tools" and "tool" lines name them, and every
 * tool gets its entry in p->tools.  Returns 0 or TC_ENOMEM.
 */
int	tc_policy_set_server(struct tc_policy *p, const char *server,
	    const char *const *names, size_t n, unsigned features);

/*
 * Makes |alias| another name of the tool |tool|, after
 * tc_policy_set_server(): tc_policy_tool() and tc_policy_limits() answer
 * for it as for |tool|, and the policy file may not name it (the lines on
 * |tool| cover both).  Returns 0, TC_EINVAL if |tool| is not one of the
 * server's, or TC_ENOMEM.
 */
int	tc_policy_add_alias(struct tc_policy *p, const char *alias,
	    const char *tool);

/* Returns the tool |name| is an alias of, or NULL if it is none. */
const char *tc_policy_alias_of(const struct tc_policy *p, const char *name);

/*
 * Completes a policy once the file and the command line are read: adds the
 * built-in deny rules (unless "default-deny off") ahead of the file's.
 * Returns 0 or TC_ENOMEM.
 */
int	tc_policy_finish(struct tc_policy *p, struct tc_diag *d);

/*
 * Narrows the roots in force to their intersection with |dirs| (|n|
 * absolute paths, the client's MCP roots): a dir inside a policy root
 * becomes a root with that root's access, a policy root inside a dir stays
 * whole, and anything else is dropped, so nothing is ever widened.  The
 * policy's own roots are kept in p->ceiling and narrowing always starts
 * from them.  When the intersection is empty, p->roots_mode decides: the
 * policy's own roots stay in force (TC_ROOTS_NARROW) or none do
 * (TC_ROOTS_STRICT).  A copy of |dirs| is kept in p->client_roots and the
 * outcome in p->roots_state, for tc_policy_roots_note().  Returns 0, or
 * TC_ENOMEM with |d| set (the roots unchanged).
 */
int	tc_policy_narrow(struct tc_policy *p, char *const *dirs, size_t n,
	    struct tc_diag *d);

/*
 * Writes into |buf| (|len| bytes, NUL-terminated, cut if need be) what
 * the client's roots did to the directories served, as sentences a model
 * can pass on to a person: which roots the client gave, and why these
 * directories (or none) are served.  Writes "" when no roots of a client
 * were applied.  Paths are shown as text.h shows untrusted text.  Returns
 * |buf|.
 */
const char *tc_policy_roots_note(const struct tc_policy *p, char *buf,
	    size_t len);

/* Returns the name of the roots mode |m|: "narrow", "strict", "ignore". */
const char *tc_roots_mode_name(enum tc_roots_mode m);

/* Describes deny rule |r| as "'deny PATTERN' (line N)" into |buf|. */
const char *tc_deny_str(const struct tc_deny *r, char *buf, size_t len);

/* Returns the settings of tool |name| (the tool it is an alias of, for an
 * alias), or NULL if the server has none. */
const struct tc_tool_policy *tc_policy_tool(const struct tc_policy *p,
	    const char *name);

/* Fills |out| with the limits a call of |name| runs under: the server's,
 * with those the policy sets for that tool. */
void	tc_policy_limits(const struct tc_policy *p, const char *name,
	    struct tc_limits *out);

/*
 * Adds directory |dir| as a root (writable if |flags| has TC_ROOT_WRITE):
 * made absolute, canonicalised, opened O_PATH|O_DIRECTORY.  Returns 0, or
 * TC_EINVAL/TC_ESYS with |d| naming the directory and the reason.
 */
int	tc_policy_add_root(struct tc_policy *p, const char *dir,
	    unsigned flags, struct tc_diag *d);

/*
 * As tc_policy_add_root(), for a directory given on the command line
 * (marked so, r->cmdline): one that is already a root (the same canonical
 * path, however spelt) is served once, not twice.  That root stays, given
 * on the command line as well, and becomes writable if |flags| asks for
 * it (each "allow" and --write grants access; deny rules take it away).
 * Returns 0 and sets |*same| to that root's index and |*before| to its
 * flags as they were, or |*same| to SIZE_MAX if the directory is new;
 * else as tc_policy_add_root().
 */
int	tc_policy_add_root_once(struct tc_policy *p, const char *dir,
	    unsigned flags, size_t *same, unsigned *before, struct tc_diag *d);

/* Returns 1 if some root is writable. */
int	tc_policy_writable(const struct tc_policy *p);

/*
 * Resolves |spec|, "USER[:GROUP]" with names or numbers, into p->run_uid
 * and p->run_gid and sets p->run_as.  Only a root server can switch its
 * children's ids, and switching to uid or gid 0 is refused, since calls run
 * as root without it.  Returns 0, or TC_EINVAL/TC_EDENIED/TC_ENOMEM with |d|
 * saying why (without naming the option or file, which the caller adds).
 */
int	tc_policy_run_as(struct tc_policy *p, const char *spec,
	    struct tc_diag *d);

/* Receives one error, "file:line: message" or "file: message". */
typedef void tc_policy_report_fn(void *ctx, const char *msg);

/*
 * Reads the policy file |file| (toolcell-policy(5)) into |p|, which
 * tc_policy_init() prepared: its roots are added with tc_policy_add_root()
 * and its settings replace the defaults, each recorded in p->set_at[].
 * Every error is passed to |report| (with |ctx|) as it is found, and
 * reading goes on to the end, so that all of them are reported.  "run-as"
 * is only stored in p->run_as_spec: the caller resolves it with
 * tc_policy_run_as().  Returns 0, or TC_EINVAL when an error was reported,
 * with |d| saying how many; |p| then holds what was valid, for
 * tc_policy_release().
 */
int	tc_policy_load(struct tc_policy *p, const char *file,
	    tc_policy_report_fn *report, void *ctx, struct tc_diag *d);

/*
 * Writes the effective policy |p| to |f| for a person to read: each root's
 * canonical path and access, every limit with its value and origin
 * (default, policy line, command line), run-as and the degraded modes
 * accepted.  Returns 0, or TC_ESYS if writing failed.
 */
int	tc_policy_print(const struct tc_policy *p, FILE *f);

/* Writes the "directories:" part of tc_policy_print() alone: each root's
 * access, canonical path and origin. */
void	tc_policy_print_roots(const struct tc_policy *p, FILE *f);

/*
 * Reports through |report| each thing in the finished policy |p| that can
 * have no effect, as "file:line: message": a 'consent TOOL' rule or a
 * 'tool TOOL timeout|limit' setting for a tool that is not offered
 * (switched off, left off the 'tools' lines, or a tool that changes files
 * while no directory is writable), and a read-write directory while every
 * tool that changes files is off.  |writers| names those tools (NULL-
 * terminated).  A warning never stops a server.  Returns how many were
 * reported.
 */
int	tc_policy_warn(const struct tc_policy *p, const char *const *writers,
	    tc_policy_report_fn *report, void *ctx);

#endif /* TC_POLICY_H */
