/*
 * tools.h: the tool registry, argument checking, and result building.
 *
 * A server declares its tools in a static table.  Each tool's input schema is
 * a table of tc_arg entries, from which both the JSON Schema sent in
 * tools/list and the checks run before any fork are derived, so the two can
 * never disagree.  Handlers run in the confined child, know nothing of
 * JSON-RPC, read their checked arguments through tc_arg_*() and fill a
 * tc_result; the parent re-checks what the child sends back.
 *
 * Returns (protocol/): 0 or a negative TC_E* code, with a message in a
 * struct tc_diag where a person or the model must read why; lookups NULL
 * for what is absent; constructors NULL only when memory ran out.  A
 * handler's failure that the model can act on is a result
 * (tc_result_error()), not a code.
 */
#ifndef TC_TOOLS_H
#define TC_TOOLS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/err.h"

struct tc_policy;

/*
 * What an argument is.  Each type's caps are fields of struct tc_arg;
 * tc_args_schema() declares them and tc_args_check() enforces them, so
 * that the schema a client sees and the check never disagree.
 */
enum tc_arg_type {
	TC_ARG_STRING,
	TC_ARG_INT,
	TC_ARG_BOOL,
	TC_ARG_STRING_ARRAY,	/* array of strings */
	TC_ARG_OBJECT_ARRAY,	/* array of objects described by .items */
	/* A JSON number, read as a double: 2 and 2.5 alike, within
	 * [.num_min, .num_max]. */
	TC_ARG_NUMBER,
	/* An array whose items are each a string, a number or a boolean or
	 * null (SQL parameters): at most .max_len items, string items at
	 * most .item_max_len bytes.  An integer past 2^53 is refused, since
	 * a double cannot hold it exactly: the model is told to send it as a
	 * string.  Read with tc_arg_scalars(). */
	TC_ARG_SCALAR_ARRAY,
	/* An object whose values are strings (an environment): at most
	 * .max_len entries, keys at most .key_max_len bytes (and names, with
	 * TC_ARG_NAME_KEYS), values at most .item_max_len bytes.  Read with
	 * tc_arg_map() and tc_arg_map_get(). */
	TC_ARG_STRING_MAP,
};

enum tc_arg_flags {
	TC_ARG_REQUIRED	= 1 << 0,
	TC_ARG_DEFAULT	= 1 << 1,	/* .def (int, bool) or .num_def
					   (number) is the default */
	TC_ARG_NONEMPTY	= 1 << 2,	/* strings, and the string items and
					   values of arrays and maps: at
					   least one byte */
	TC_ARG_PATH	= 1 << 3,	/* a path (string or string array):
					   deny and consent rules look at it */
	/* The member may be JSON null as well as its type: "unset this",
	 * or "no value", told apart from absent by tc_arg_is_null().  A
	 * flag rather than a type of its own, since null alone says
	 * nothing: a table line reads "a string, or null". */
	TC_ARG_NULLABLE	= 1 << 4,
	/* String maps: each key is a name, ^[A-Za-z_][A-Za-z0-9_]*$, as
	 * environment variables are. */
	TC_ARG_NAME_KEYS = 1 << 5,
};

struct tc_arg {
	const char		*name;
	enum tc_arg_type	 type;
	unsigned		 flags;
	const char		*description;
	size_t			 max_len;	/* strings: bytes; arrays:
						   items; maps: entries */
	size_t			 item_max_len;	/* string and scalar arrays:
						   bytes per string item;
						   maps: bytes per value */
	long long		 min, max;	/* integers: inclusive range */
	long long		 def;		/* with TC_ARG_DEFAULT */
	const char *const	*enums;		/* strings: NULL-terminated */
	const struct tc_arg	*items;		/* object arrays: members */
	/* Numbers: an inclusive range (-HUGE_VAL or HUGE_VAL for no bound
	 * on that side) and, with TC_ARG_DEFAULT, the default. */
	double			 num_min, num_max;
	double			 num_def;
	size_t			 key_max_len;	/* maps: bytes per key */
};

/*
 * An argument a tool does not take that another tool of the same server
 * does, so that a model may well give it to the wrong one (run_command's
 * "tty", which only start_command takes): its refusal then says |why|
 * and names the tool that takes it, where a plain "unknown argument"
 * would leave the model to guess.  tc_tools_validate() checks that the
 * tool lacks the argument and that |tool| is in the table and takes it.
 */
struct tc_arg_elsewhere {
	const char	*name;		/* the argument */
	const char	*tool;		/* the tool that takes it */
	const char	*why;		/* "run_command has no terminal" */
};

/* A confinement profile: what a handler's child may do, defined by the
 * server (sandbox/profile.h). */
struct tc_profile;

enum tc_tool_flags {
	TC_TOOL_READONLY	= 1 << 0,	/* readOnlyHint; without it,
						   the tool may change what
						   it names: "deny write"
						   rules see its paths */
	TC_TOOL_DESTRUCTIVE	= 1 << 1,	/* destructiveHint */
	TC_TOOL_IDEMPOTENT	= 1 << 2,	/* idempotentHint */
	TC_TOOL_OPEN_WORLD	= 1 << 3,	/* openWorldHint */
	/* 1 << 4 is not used: which tools a policy offers is the
	 * server's to say (struct tc_server's offered hook). */
	TC_TOOL_RESOURCE	= 1 << 5,	/* not in tools/list: run by
						   resources/read only, as a
						   resource provider's tool */
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
struct tc_subject_ctx;
struct tc_subjects;

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
	const struct tc_profile	*profile;	/* the server's own */
	unsigned		 flags;
	/* Subjects (policy/subject.h): what a call of the tool acts on,
	 * for consent rules, the consent hook and the audit log.  Every
	 * TC_ARG_PATH argument is a path subject, resolved by the server;
	 * |subjects|, when set, adds the others, in the server, from the
	 * checked arguments, before anything is forked: it appends to
	 * |out| and returns 0, or refuses the call with a TC_E* code and
	 * |d| saying why to the model (TC_EDENIED: the policy; TC_EINVAL:
	 * the arguments).  Cwd subjects it adds are values as given,
	 * which the server resolves beneath the roots as paths.
	 * |subject_kinds| has a bit (1u << kind) for each kind it can add,
	 * which consent rules are checked against at start. */
	int			(*subjects)(const struct tc_subject_ctx *ctx,
				    const cJSON *args,
				    struct tc_subjects *out,
				    struct tc_diag *d);
	unsigned		 subject_kinds;
	/* The call's own deadline, when shorter than the policy's: called
	 * in the server as the call's child is given it, returns
	 * milliseconds from then (0: the policy's alone) and may write
	 * into |why| (|n| bytes, UTF-8) what the model is told if the call
	 * is stopped at it.  NULL: the policy's deadline. */
	int			(*deadline_ms)(const struct tc_call *call,
				    char *why, size_t n);
	/* Arguments of other tools that its refusals point to; ends with
	 * { NULL }.  NULL: none. */
	const struct tc_arg_elsewhere *elsewhere;
};

struct tc_pin;
struct tc_call_io;

/* What a handler is given.  Everything here is borrowed. */
struct tc_call {
	const struct tc_tool	*tool;
	const cJSON		*args;		/* checked against tool->args */
	const struct tc_policy	*policy;
	/* What the server decided the call on, carried to its child
	 * (child.c), which puts it in its own copy of the policy: for a
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

/*
 * Returns a new JSON Schema object for an argument table, or NULL on
 * allocation failure.  Every caps the check enforces is declared (byte
 * caps as maxLength, which counts characters: the byte cap is the
 * tighter).  The forms are those that hosts' model back ends accept, so
 * no "type" is ever a list (Gemini's declarations hold one type, and a
 * list fails the whole request) and every value has a "type" or an
 * "anyOf" of typed branches (Gemini CLI drops a tool with an untyped
 * one):
 *
 *	number		{"type":"number","minimum":..,"maximum":..}
 *	nullable	its type's schema and "nullable":true (the OpenAPI
 *			keyword Gemini reads; JSON Schema validators pass
 *			over it), the description saying what null means
 *	scalar array	{"type":"array","maxItems":N,"items":{"anyOf":[
 *			{"type":"string",..},{"type":"number",..},
 *			{"type":"boolean"},{"type":"null"}]}}: "anyOf"
 *			alone in "items" (Vertex refuses siblings beside
 *			it); a host that cannot show anyOf (Codex reads
 *			it as a string) still makes calls the check takes
 *	string map	{"type":"object","maxProperties":N,
 *			"propertyNames":{..},"additionalProperties":
 *			{"type":"string",..}}
 */
cJSON	*tc_args_schema(const struct tc_arg *args);

/*
 * Checks |args| (a JSON object) against |t|'s argument table: types,
 * required members, no unknown members, string lengths, integer and
 * number ranges, enums, array items, map keys and values, null where
 * TC_ARG_NULLABLE allows it.  Returns 0, or TC_EINVAL with a message for
 * the model in |d| ("argument 'head': expected an integer").
 */
int	tc_args_check(const struct tc_arg *args, const cJSON *obj,
	    struct tc_diag *d);

/*
 * tc_args_check() for a call of |t|: an unknown argument that
 * t->elsewhere names is refused with the entry's |why| and the tool that
 * takes it, when |offered| says that tool is offered (1, or 0 for one the
 * policy leaves out, which the refusal must not send the model to); a
 * NULL |offered| counts every tool as offered.  |ctx| is passed to it.
 */
int	tc_tool_args_check(const struct tc_tool *t, const cJSON *obj,
	    int (*offered)(const void *ctx, const char *tool), const void *ctx,
	    struct tc_diag *d);

/*
 * Accessors for checked arguments; absent ones give NULL or the default.
 * A null member (TC_ARG_NULLABLE) reads as absent through these, since
 * it has no string, number or truth value; tc_arg_has() is 1 for it, and
 * tc_arg_is_null() tells it apart.  Naming an argument the tool's table
 * lacks, or reading one as another type, is a bug (TC_BUG).
 * Everything returned is borrowed from the call.
 */
const char	*tc_arg_str(const struct tc_call *c, const char *name);
int		 tc_arg_has(const struct tc_call *c, const char *name);
int		 tc_arg_is_null(const struct tc_call *c, const char *name);
long long	 tc_arg_int(const struct tc_call *c, const char *name,
		    long long def);
double		 tc_arg_num(const struct tc_call *c, const char *name,
		    double def);
int		 tc_arg_bool(const struct tc_call *c, const char *name, int def);
const cJSON	*tc_arg_json(const struct tc_call *c, const char *name);

/* The items of an array, or the entries of a map; 0 when absent or
 * null. */
size_t		 tc_arg_count(const struct tc_call *c, const char *name);

/* Walks the items of a scalar array or the entries of a string map. */
struct tc_arg_iter {
	const cJSON	*next;
};

/* One item of a scalar array, as a handler binds it. */
enum tc_scalar_kind {
	TC_SCALAR_NULL,
	TC_SCALAR_BOOL,
	TC_SCALAR_INT,		/* a number without a fraction: JSON does
				   not tell 3 from 3.0 */
	TC_SCALAR_REAL,
	TC_SCALAR_STRING,
};

struct tc_scalar {
	enum tc_scalar_kind	 kind;
	long long		 i;	/* INT: the value; BOOL: 1 or 0 */
	double			 d;	/* INT and REAL: the value */
	const char		*s;	/* STRING: borrowed from the call */
	size_t			 len;	/* STRING: its length in bytes */
};

/*
 * Starts |it| on the scalar array |name| (TC_ARG_SCALAR_ARRAY); absent or
 * null, it has no items.  tc_arg_scalar_next() then returns 1 with |v|
 * filled, item after item, and 0 after the last.
 */
void	tc_arg_scalars(const struct tc_call *c, const char *name,
	    struct tc_arg_iter *it);
int	tc_arg_scalar_next(struct tc_arg_iter *it, struct tc_scalar *v);

/*
 * Starts |it| on the string map |name| (TC_ARG_STRING_MAP); absent or
 * null, it has no entries.  tc_arg_map_next() then returns 1 with *|key|
 * and *|value| set, entry after entry in the order the client sent them,
 * and 0 after the last.  tc_arg_map_get() returns the value of |key|, or
 * NULL.  A key is never given twice (the check refuses that).
 */
void	tc_arg_map(const struct tc_call *c, const char *name,
	    struct tc_arg_iter *it);
int	tc_arg_map_next(struct tc_arg_iter *it, const char **key,
	    const char **value);
const char *tc_arg_map_get(const struct tc_call *c, const char *name,
	    const char *key);

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
