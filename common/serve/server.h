/*
 * server.h: what a server is to the serving code.  A server's main()
 * fills a struct tc_server (its tools, its command line, what it tells
 * the model, its resources, which of its tools a policy offers) and calls
 * tc_server_main(), which parses the command line, loads the policy and
 * serves MCP on stdio.  A server never edits common/: everything that is
 * its own comes through this struct.  docs/new-server.md walks through
 * adding one.
 *
 * Return convention: int functions and hooks return 0 or a negative TC_E*
 * code, with a struct tc_diag saying why when a person must read it; a
 * function returning a pointer returns NULL only when out of memory,
 * unless its comment says otherwise.
 */
#ifndef TC_SERVER_H
#define TC_SERVER_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/err.h"
#include "policy/policy.h"
#include "protocol/tools.h"

#define TC_VERSION	"0.1.0"

struct tc_policy_section;
/* --- The command line --- */

struct tc_option;

/*
 * Takes option |o| as it is read, with its value |value| (NULL for an
 * option that takes none), into where the server keeps it (o->to).  It
 * runs before the policy is loaded: what an option changes in the policy
 * is applied by the server's configure hook.  Returns 0, or TC_EINVAL
 * with |d| saying what is wrong with the value, without naming the
 * option ("'x' is not a number"): a usage error, said as "--NAME: MSG".
 */
typedef int tc_option_fn(const struct tc_option *o, const char *value,
	    struct tc_diag *d);

/*
 * An option of a server's own, beside the common ones (--policy, --check,
 * --timeout and the rest, which every server takes).  --help lists it
 * after the options that say what is served (--policy, --check,
 * --print-config) and before the rest; its usage line names it.  No two
 * options may share a name or a letter (tc_server_main() checks).
 */
struct tc_option {
	const char	*name;		/* the long name: "write" for --write */
	int		 letter;	/* the short one: 'w' for -w; 0: none */
	const char	*arg;		/* the value's name in --help ("FILE");
					   NULL: the option takes no value */
	const char	*help;		/* for --help: lines of at most 50
					   columns, '\n' between them */
	tc_option_fn	*set;
	void		*to;		/* where |set| keeps what it takes */
	unsigned	 flags;		/* TC_OPTION_* */
};

enum tc_option_flags {
	/* --print-config passes it on to the host, as it was given: it
	 * changes what is served, not how this one run behaves. */
	TC_OPTION_CARRY	= 1 << 0,
};

/* Setters for the usual cases: sets the int at o->to to 1. */
tc_option_fn	tc_option_flag;
/* Keeps |value| (which lives as long as argv) in the const char * at
 * o->to; given twice, the last one wins. */
tc_option_fn	tc_option_string;

/*
 * The command line once it is read, for a server's hooks (borrowed; it
 * lives until tc_server_main() returns).
 */
struct tc_cmdline {
	const char	*policy;	/* --policy FILE, or NULL */
	const char	*host;		/* --print-config HOST, or NULL: a
					   start, or --check */
	int		 check;		/* --check */
	char *const	*operands;	/* the positional arguments */
	int		 noperands;
	/* The other common options, as given (0 or NULL: not given). */
	int		 timeout_ms;
	const char	*run_as;
	unsigned	 degraded;	/* TC_DEGRADE_* of --allow-degraded */
	size_t		 max_frame;
	int		 level;		/* enum tc_log_level */
	int		 help, version;
};

/*
 * The positional arguments a server takes, if any (toolcell-fs: the
 * directories to serve).  A server that takes none refuses one with a
 * usage error that says what it takes instead (tc_server.no_operands).
 */
struct tc_operands {
	const char	*name;		/* "DIR": "[DIR...]" in --help */
	const char	*help;		/* a sentence on them, which opens
					   --help's closing paragraph */
	/*
	 * For --print-config: returns a new NULL-terminated array of new
	 * strings (the caller frees it with tc_strv_free()), the operands
	 * as the host is to pass them (it starts the server from a
	 * directory of its own: a path is made absolute), or NULL with |d|
	 * saying why (the server exits 1).  NULL: passed as given.
	 */
	char	**(*carry)(const struct tc_cmdline *cl, struct tc_diag *d);
};

/* --- Resources --- */

/*
 * A server's resources (MCP resources/list, resources/templates/list and
 * resources/read).  Reading one is a call of the provider's tool |tool|:
 * |read| turns the URI into that tool's arguments, and the call goes
 * through everything a tools/call goes through (argument checks, deny
 * rules, consent, the audit log, a confined child).  The tool's result
 * becomes the resource's contents: content[0].text is the body, and its
 * structuredContent may say "mimeType" and "encoding": "base64" (a blob);
 * a result with isError is "resource not found" (-32002) with its text.
 * The server declares the resources capability only when it has a
 * provider whose tool the policy offers ("tool NAME off" takes the
 * resources away); the client is told the list changed whenever its
 * roots are applied.
 */
struct tc_resources {
	const char	*tool;		/* usually a TC_TOOL_RESOURCE tool */
	/*
	 * Appends the resources there are under |pol| (its roots in force)
	 * to |arr|, as Resource objects.  Returns 0 or TC_ENOMEM.
	 */
	int	(*list)(const struct tc_policy *pol, cJSON *arr);
	/* The same for ResourceTemplate objects; NULL: none. */
	int	(*templates)(const struct tc_policy *pol, cJSON *arr);
	/*
	 * Makes the arguments of the call that reads |uri|: returns 0 with
	 * *|args| a new object (the caller's), or TC_EINVAL with |d| saying
	 * why no resource of the server has that URI, for the client
	 * ("only file:// URIs of local paths are served"), or TC_ENOMEM.
	 */
	int	(*read)(const struct tc_policy *pol, const char *uri,
		    cJSON **args, struct tc_diag *d);
};

/* --- The server --- */

struct tc_server {
	const char		*name;		/* "toolcell-fs" */
	const char		*title;		/* "toolcell files" */
	const char		*version;
	const char		*summary;	/* one line for --help */
	const struct tc_tool	*tools;
	size_t			 ntools;
	unsigned		 policy_features;	/* TC_POLICY_F_* */
	const struct tc_policy_section *policy_section;	/* its own
						   keywords (section.h), or
						   NULL */

	/* Its command line, read by tc_server_main() in this order:
	 * the options (each through its setter), then cmdline(), then
	 * --print-config or the policy file, configure(), the common
	 * options over both, and ready(). */
	const struct tc_option	*options;	/* its own options */
	size_t			 noptions;
	const struct tc_operands *operands;	/* NULL: it takes none */
	const char		*no_operands;	/* without operands: what it
						   takes instead, for the
						   usage error */
	const char		*policy_help;	/* --help's words for
						   --policy FILE, lines of at
						   most 50 columns; NULL:
						   "the directories and limits
						   of policy FILE" */
	/*
	 * Checks the server's options and operands together, once the
	 * whole command line is read and before anything is loaded.
	 * Returns 0, or TC_EINVAL with |d| saying what is wrong: a usage
	 * error (exit 2).  NULL: nothing to check.
	 */
	int	(*cmdline)(const struct tc_cmdline *cl, struct tc_diag *d);
	/*
	 * Applies the server's options and operands to |pol|, once the
	 * policy file (if any) is loaded into it and before the common
	 * options are, so that the command line wins over the file.
	 * Reports each error through |report| (with |ctx|), which counts
	 * it: any refuses the start.  NULL: nothing to apply.
	 */
	void	(*configure)(struct tc_policy *pol, const struct tc_cmdline *cl,
		    tc_policy_report_fn *report, void *ctx);
	/*
	 * Says whether the loaded policy gives the server something to
	 * serve, before anything else is checked.  Returns 0, or TC_EINVAL
	 * with |d| saying what is missing and how to give it: the server
	 * exits 2, as for a usage error; another TC_E* code with |d| set
	 * when what it makes for serving cannot be made: the server exits
	 * 1, as for a start refused.  It runs for --check too, and for
	 * --print-config when |served| is set: what it makes only for
	 * serving waits for a start (tc_cmdline's check and host unset,
	 * as the configure hook sees).  NULL: any policy will do.
	 */
	int	(*ready)(const struct tc_server *srv,
		    const struct tc_policy *pol, struct tc_diag *d);

	/*
	 * Appends to |b| what the server gives access to under |pol|, for
	 * the initialize result's instructions to the model; the serving
	 * code adds how calls run (confined, the user they run as, any
	 * layer the kernel lacks).  Returns 0 or a TC_E* code (the buffer's
	 * cap).  NULL: only that.
	 */
	int	(*instructions)(const struct tc_server *srv,
		    const struct tc_policy *pol, struct tc_buf *b);
	/*
	 * Says whether tool |t|, which the policy leaves on, is offered
	 * under |pol| as it stands (the client's roots applied): shown in
	 * tools/list and callable.  Returns 1 if it is; else 0, and, if
	 * |why| is not NULL, writes there (|len| bytes) the rest of the
	 * sentence that refuses a call of it, after "tool 'NAME' " ("is
	 * not offered: no directory is writable (...)").  NULL: every tool
	 * the policy leaves on is offered.
	 */
	int	(*offered)(const struct tc_policy *pol, const struct tc_tool *t,
		    char *why, size_t len);
	/*
	 * Reports, on --check and at start, what in the policy can have no
	 * effect for this server, through |report| (with |ctx|).  NULL:
	 * tc_policy_warn() with no tools that change files.
	 */
	void	(*warn)(const struct tc_policy *pol, tc_policy_report_fn *report,
		    void *ctx);
	/*
	 * For a server whose host entry names only its policy file (what
	 * it serves is written there, not on its command line): writes to
	 * |f| what the loaded policy |pol| gives it to serve, as --check
	 * shows it (toolcell-sqlite: its databases).  With it,
	 * --print-config loads and checks the policy as a start does and
	 * prints no entry for one the server would refuse; the entry goes
	 * to standard output, this under it to standard error.  NULL: the
	 * policy's path is passed on unread.
	 */
	void	(*served)(const struct tc_policy *pol, FILE *f);
	/*
	 * Or NULL: appends to |b| one line of what the loaded policy gives
	 * it to serve beyond its directories ("programs: git, ls";
	 * "databases: app (read-only)"), for the message of a start in a
	 * terminal, under the directories.  Returns 0, or nonzero where
	 * it stopped at |b|'s cap (the line is marked cut).
	 */
	int	(*serving)(const struct tc_policy *pol, struct tc_buf *b);
	const struct tc_resources *resources;	/* NULL: no resources */
	/* What a call may reach without Landlock (--allow-degraded
	 * landlock), for the start's warning and the instructions: "the
	 * programs may ...".  NULL: the allowed directories are then held
	 * by the tools' path resolution only. */
	const char		*without_landlock;
};

/* Parses the command line, loads the policy, serves stdio; returns status. */
int	tc_server_main(const struct tc_server *srv, int argc, char *argv[]);

/*
 * Returns the local path of "file://" URI |uri| (or "file://localhost/"),
 * percent-decoded, as a new string; NULL if it is no such URI (another
 * scheme, a remote host, a malformed escape or an encoded NUL) or out of
 * memory.
 */
char	*tc_uri_file_path(const char *uri);

#endif /* TC_SERVER_H */
