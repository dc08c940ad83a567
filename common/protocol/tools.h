/*
 * tools.h: the tool registry, argument checking, and result building.
 *
 * A server declares its tools in a static table.  Each tool's input schema is
 * a table of tc_arg entries, from which both the JSON Schema sent in
 * tools/list and the checks run before any fork are derived, so the two can
 * never disagree.  Handlers run in the confined child, know nothing of
 * JSON-RPC, read their checked arguments through tc_arg_*() and fill a
 * tc_result; the parent re-checks what the child sends back.
 */
#ifndef TC_TOOLS_H
#define TC_TOOLS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/err.h"

struct tc_policy;

enum tc_arg_type {
	TC_ARG_STRING,
	TC_ARG_INT,
	TC_ARG_BOOL,
	TC_ARG_STRING_ARRAY,	/* array of strings */
	TC_ARG_OBJECT_ARRAY,	/* array of objects described by .items */
};

enum tc_arg_flags {
	TC_ARG_REQUIRED	= 1 << 0,
	TC_ARG_DEFAULT	= 1 << 1,	/* .def is the default (int, bool) */
	TC_ARG_NONEMPTY	= 1 << 2,	/* strings: at least one byte */
	TC_ARG_PATH	= 1 << 3,	/* a path (string or string array):
					   deny and consent rules look at it */
};

struct tc_arg {
	const char		*name;
	enum tc_arg_type	 type;
	unsigned		 flags;
	const char		*description;
	size_t			 max_len;	/* strings: bytes; arrays: items */
	size_t			 item_max_len;	/* string arrays: bytes per item */
	long long		 min, max;	/* integers: inclusive range */
	long long		 def;		/* with TC_ARG_DEFAULT */
	const char *const	*enums;		/* strings: NULL-terminated */
	const struct tc_arg	*items;		/* object arrays: members */
};

/* Confinement profiles: what a handler's child may do (see sandbox.h). */
enum tc_profile {
	TC_PROFILE_FS_READ,
	TC_PROFILE_FS_WRITE,
	TC_PROFILE_SQLITE,
	TC_PROFILE_SHELL_EXEC,
	TC_PROFILE_COUNT
};

enum tc_tool_flags {
	TC_TOOL_READONLY	= 1 << 0,	/* readOnlyHint */
	TC_TOOL_DESTRUCTIVE	= 1 << 1,	/* destructiveHint */
	TC_TOOL_IDEMPOTENT	= 1 << 2,	/* idempotentHint */
	TC_TOOL_OPEN_WORLD	= 1 << 3,	/* openWorldHint */
	TC_TOOL_NEEDS_WRITE	= 1 << 4,	/* hidden without a writable root */
	TC_TOOL_RESOURCE	= 1 << 5,	/* reads resources; not a tool */
	/* Another name of the tool just before it in the table, with the
	 * same handler, arguments, profile and flags: for the policy
	 * (tools, tool, consent) and the audit log it is that tool. */
	TC_TOOL_ALIAS		= 1 << 6,
	/* Jobs (serve/job.h).  A call of a TC_TOOL_JOB tool is answered at
	 * once with a job id while its child runs on; the TC_TOOL_JOB_*
	 * tools are answered by the server itself, from its own state,
	 * and never run in a child (their handler is a stub). */
	TC_TOOL_JOB		= 1 << 7,
	TC_TOOL_JOB_READ	= 1 << 8,	/* read a job's output */
	TC_TOOL_JOB_WRITE	= 1 << 9,	/* write to a job's input */
	TC_TOOL_JOB_STOP	= 1 << 10,	/* stop a job */
	TC_TOOL_JOB_LIST	= 1 << 11,	/* list the jobs */
};

/* The tools the server answers itself (no child, no profile). */
#define TC_TOOL_SERVER_SIDE	(TC_TOOL_JOB_READ | TC_TOOL_JOB_WRITE | \
				 TC_TOOL_JOB_STOP | TC_TOOL_JOB_LIST)

struct tc_call;
struct tc_result;

/* Runs in the confined child.  Returns 0, or a TC_E* code. */
typedef int tc_tool_fn(const struct tc_call *call, struct tc_result *res);

struct tc_tool {
	const char		*name;		/* ^[a-z][a-z0-9_]{0,39}$ */
	const char		*title;
	const char		*description;
	const struct tc_arg	*args;		/* ends with { NULL } */
	const char		*output_schema;	/* JSON Schema text, or NULL:
						   no structuredContent is
						   promised */
	tc_tool_fn		*fn;
	enum tc_profile		 profile;
	unsigned		 flags;
};

struct tc_pin;
struct tc_call_io;

/* What a handler is given.  Everything here is borrowed. */
struct tc_call {
	const struct tc_tool	*tool;
	const cJSON		*args;		/* checked against tool->args */
	const struct tc_policy	*policy;
	/* What the server decided the call on, carried to its child
	 * (sandbox.c), which puts it in its own copy of the policy: for a
	 * call consent was given for (|pinned|), what each path was then
	 * (path.h); and the consent rules it was not given (indices into
	 * policy->consent), whose patterns the child treats as deny rules,
	 * so that it reaches nothing they cover. */
	const struct tc_pin	*pins;
	size_t			 npins;
	int			 pinned;
	const size_t		*unconsented;
	size_t			 nunconsented;
	/* In the child: its channels to the server, for progress, output
	 * and a job's input (sandbox/stream.h); NULL elsewhere. */
	struct tc_call_io	*io;
};

/* What a handler fills in (in the child). */
struct tc_result {
	struct tc_buf	 text;		/* content[0].text, complete on its own */
	cJSON		*structured;	/* structuredContent; NULL for errors */
	cJSON		*content;	/* further content items (images...) */
	int		 is_error;
	int		 failed;	/* a TC_E* code: text could not be added */
};

#define TC_RESULT_TEXT_MAX	(64u << 20)

/*
 * Checks that every tool in |tools| is well formed (names, schemas that
 * parse, argument tables).  Returns 0, or TC_EINVAL with |d| set.
 */
int	tc_tools_validate(const struct tc_tool *tools, size_t n,
	    struct tc_diag *d);

/* Returns the tool named |name|, or NULL. */
const struct tc_tool *tc_tool_find(const struct tc_tool *tools, size_t n,
	    const char *name);

/*
 * For a "did you mean": returns how many edits of one character
 * (inserting, deleting or replacing one, or swapping two neighbours),
 * ASCII letters compared in either case, turn |given| into |name|, if
 * that few makes |given| a likely misspelling of |name|: a quarter of
 * its length at most, and 3; else SIZE_MAX.  A name longer than
 * TC_NAME_GUESS_MAX bytes is never guessed at.
 */
#define TC_NAME_GUESS_MAX	64
size_t	tc_name_distance(const char *given, const char *name);

/*
 * Returns the name of the tool |t| (an entry of a table that
 * tc_tools_validate() accepted) is an alias of, or NULL for a tool of its
 * own.
 */
const char	*tc_tool_alias_of(const struct tc_tool *t);

/* Returns the name the policy knows |t| by: the tool it is an alias of,
 * else its own. */
const char	*tc_tool_policy_name(const struct tc_tool *t);

/*
 * Returns a new tools/list entry for |t| (name, title, description,
 * inputSchema, outputSchema, annotations), or NULL on allocation failure.
 * |readonly_policy| clears the write hints a read-only policy makes false.
 */
cJSON	*tc_tool_describe(const struct tc_tool *t);

/* Returns a new JSON Schema object for an argument table. */
cJSON	*tc_args_schema(const struct tc_arg *args);

/*
 * Checks |args| (a JSON object) against |t|'s argument table: types,
 * required members, no unknown members, string lengths, integer ranges,
 * enums, array items.  Returns 0, or TC_EINVAL with a message for the model
 * in |d| ("argument 'head': expected an integer").
 */
int	tc_args_check(const struct tc_arg *args, const cJSON *obj,
	    struct tc_diag *d);

/* Accessors for checked arguments; absent ones give NULL or the default. */
const char	*tc_arg_str(const struct tc_call *c, const char *name);
int		 tc_arg_has(const struct tc_call *c, const char *name);
long long	 tc_arg_int(const struct tc_call *c, const char *name,
		    long long def);
int		 tc_arg_bool(const struct tc_call *c, const char *name, int def);
const cJSON	*tc_arg_json(const struct tc_call *c, const char *name);

void	tc_result_init(struct tc_result *r);
void	tc_result_release(struct tc_result *r);

/*
 * Appends to the text block.  Returns 0 or a TC_E* code, which also stays
 * in r->failed: a result whose text could not be built whole is sent as
 * an error, never as a shorter answer that looks complete.
 */
int	tc_result_printf(struct tc_result *r, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Appends |n| bytes of text, replacing ill-formed UTF-8 with U+FFFD. */
int	tc_result_text(struct tc_result *r, const void *p, size_t n);

/*
 * Appends the name or path |s| to the text as text.h shows it: controls,
 * format characters (the marks that reorder text) and line separators
 * escaped as \uXXXX, so that a name cannot pose as another line or read
 * as another name.  structuredContent keeps names as they are.  Returns
 * as tc_result_text().
 */
int	tc_result_shown(struct tc_result *r, const char *s);

/*
 * Makes |r| a tool error whose text is the formatted message (replacing any
 * text so far) and drops the structured content.  The message is cut to
 * 4 KiB on a character boundary (marked) and shown escaped (text.h): a
 * path it names cannot break the line or reorder the text.  Returns 0, so
 * a handler can end with: return tc_result_error(res, "'%s': not found",
 * path);
 */
int	tc_result_error(struct tc_result *r, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Returns the structuredContent object, creating it; NULL on ENOMEM. */
cJSON	*tc_result_obj(struct tc_result *r);

/*
 * Appends the result to |b| as the JSON text of a CallToolResult, written
 * in one pass without building a tree.  Returns 0, TC_ETOOBIG or
 * TC_ENOMEM.
 */
int	tc_result_serialize(const struct tc_result *r, struct tc_buf *b);

/* What the server needs to know of a child's result besides its text. */
struct tc_result_info {
	int	is_error;	/* isError: true */
	int	truncated;	/* structuredContent.truncated: true */
};

/*
 * Checks a CallToolResult received from a child (text of |len| bytes)
 * without building a tree, so that the text can be sent on as it came:
 * valid UTF-8 and JSON in the compact form tc_result_serialize() writes
 * (see json.h), an object with only content (text, image, audio or
 * embedded resource items), structuredContent (an object) and isError,
 * each member at most once.  Returns 0 with |info| filled, or
 * TC_EBADJSON/TC_EINVAL with |d| set.
 */
int	tc_result_check(const char *text, size_t len,
	    struct tc_result_info *info, struct tc_diag *d);

/*
 * Returns the text of a CallToolResult with isError set and |msg| as its
 * text, made as tc_result_error() makes it (the caller frees it), or NULL
 * on allocation failure.
 */
char	*tc_result_error_text(const char *msg);

#endif /* TC_TOOLS_H */
