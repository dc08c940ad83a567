/*
 * test-tools.c: argument checking against tc_arg tables, the JSON Schemas
 * derived from them, tool table validation, and the CallToolResult that a
 * handler builds and the parent re-checks.
 *
 * JSON in this file is written with single quotes; dq() makes them double.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "protocol/tools.h"
#include "sandbox/profile.h"
#include "dq.h"
#include "tap.h"


/* A profile of its own, for an alias that names another. */
static const struct tc_profile other_profile = { .name = "other" };

static const char *const modes[] = { "fast", "safe", "slow", "extra", NULL };

static const struct tc_arg file_items[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	    .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY,
	    .description = "a file", .max_len = 16 },
	{ .name = "size", .type = TC_ARG_INT, .description = "bytes",
	    .min = 0, .max = 100 },
	{ .name = NULL }
};

static const struct tc_arg args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	    .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY,
	    .description = "a path", .max_len = 8 },
	{ .name = "count", .type = TC_ARG_INT, .description = "how many",
	    .min = -5, .max = 10 },
	{ .name = "big", .type = TC_ARG_INT, .description = "a wide integer",
	    .min = LLONG_MIN, .max = LLONG_MAX },
	{ .name = "flag", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	    .description = "a switch", .def = 1 },
	{ .name = "mode", .type = TC_ARG_STRING, .description = "a mode",
	    .enums = modes },
	{ .name = "tags", .type = TC_ARG_STRING_ARRAY, .description = "tags",
	    .max_len = 3, .item_max_len = 4 },
	{ .name = "files", .type = TC_ARG_OBJECT_ARRAY,
	    .description = "files", .max_len = 2, .items = file_items },
	{ .name = NULL }
};

static const struct tc_arg no_args[] = {
	{ .name = NULL }
};

static int
fn_nothing(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	(void)res;
	return 0;
}

/* Checks |json| against |args|: the code and, if |msg|, the message. */
static void
check(const char *json, int want, const char *msg)
{
	struct tc_diag d;
	cJSON *o;

	memset(&d, 0, sizeof(d));
	o = cJSON_Parse(dq(json));
	if (!ok(o != NULL, "%s: is JSON", json))
		return;
	is_int(tc_args_check(args, o, &d), want, "check %s", json);
	if (msg != NULL)
		is_str(d.msg, msg, "check %s: message", json);
	cJSON_Delete(o);
}

static void
test_args_check(void)
{
	struct tc_diag d;
	cJSON *o;

	/* Strings. */
	check("{'path':'a'}", 0, NULL);
	check("{'path':'abcdefgh'}", 0, NULL);
	check("{}", TC_EINVAL, "argument 'path' is required");
	check("{'path':''}", TC_EINVAL, "argument 'path': must not be empty");
	check("{'path':'abcdefghi'}", TC_EINVAL,
	    "argument 'path': longer than 8 bytes");
	check("{'path':5}", TC_EINVAL,
	    "argument 'path': expected a string, got a number");
	check("{'path':null}", TC_EINVAL,
	    "argument 'path': expected a string, got null");

	/* Integers. */
	check("{'path':'a','count':-5}", 0, NULL);
	check("{'path':'a','count':10}", 0, NULL);
	check("{'path':'a','count':1e1}", 0, NULL);
	check("{'path':'a','count':1.5}", TC_EINVAL,
	    "argument 'count': expected an integer, got 1.5");
	check("{'path':'a','count':'3'}", TC_EINVAL,
	    "argument 'count': expected an integer, got a string");
	check("{'path':'a','count':11}", TC_EINVAL,
	    "argument 'count': must be between -5 and 10");
	check("{'path':'a','count':-6}", TC_EINVAL,
	    "argument 'count': must be between -5 and 10");
	check("{'path':'a','count':1e400}", TC_EINVAL, NULL);
	check("{'path':'a','big':-9007199254740992}", 0, NULL);
	check("{'path':'a','big':1e300}", TC_EINVAL, NULL);
	/* 2^63 is past LLONG_MAX, though (double)LLONG_MAX rounds to it. */
	check("{'path':'a','big':9223372036854775808}", TC_EINVAL, NULL);

	/* Booleans. */
	check("{'path':'a','flag':true}", 0, NULL);
	check("{'path':'a','flag':false}", 0, NULL);
	check("{'path':'a','flag':'yes'}", TC_EINVAL,
	    "argument 'flag': expected a boolean, got a string");
	check("{'path':'a','flag':1}", TC_EINVAL,
	    "argument 'flag': expected a boolean, got a number");

	/* Enums. */
	check("{'path':'a','mode':'fast'}", 0, NULL);
	check("{'path':'a','mode':'extra'}", 0, NULL);
	check("{'path':'a','mode':'Fast'}", TC_EINVAL, NULL);
	memset(&d, 0, sizeof(d));
	o = cJSON_Parse(dq("{'path':'a','mode':'nope'}"));
	is_int(tc_args_check(args, o, &d), TC_EINVAL, "enum: unknown value");
	is_str(d.msg, "argument 'mode': must be one of 'fast', 'safe', "
	    "'slow', 'extra'", "enum: the message lists every value");
	cJSON_Delete(o);

	/* String arrays. */
	check("{'path':'a','tags':[]}", 0, NULL);
	check("{'path':'a','tags':['a','bcde','']}", 0, NULL);
	check("{'path':'a','tags':['a','b','c','d']}", TC_EINVAL,
	    "argument 'tags': more than 3 items");
	check("{'path':'a','tags':['abcde']}", TC_EINVAL,
	    "argument 'tags'[0]: longer than 4 bytes");
	check("{'path':'a','tags':['a',1]}", TC_EINVAL,
	    "argument 'tags'[1]: expected a string, got a number");
	check("{'path':'a','tags':'a'}", TC_EINVAL,
	    "argument 'tags': expected an array, got a string");

	/* Object arrays. */
	check("{'path':'a','files':[{'path':'x','size':3},{'path':'y'}]}", 0,
	    NULL);
	check("{'path':'a','files':[{}]}", TC_EINVAL,
	    "argument 'files'[0].path is required");
	check("{'path':'a','files':[{'path':'x'},{'path':''}]}", TC_EINVAL,
	    "argument 'files'[1].path: must not be empty");
	check("{'path':'a','files':[{'path':'x','size':101}]}", TC_EINVAL,
	    "argument 'files'[0].size: must be between 0 and 100");
	check("{'path':'a','files':[{'path':'x','size':0.5}]}", TC_EINVAL,
	    "argument 'files'[0].size: expected an integer, got 0.5");
	check("{'path':'a','files':[{'path':'x','bad':1}]}", TC_EINVAL,
	    "argument 'files'[0]: unknown argument 'bad'; an item takes: "
	    "path, size");
	check("{'path':'a','files':[{'path':'x','sise':1}]}", TC_EINVAL,
	    "argument 'files'[0]: unknown argument 'sise' (did you mean "
	    "'size'?); an item takes: path, size");
	check("{'path':'a','files':[1]}", TC_EINVAL,
	    "argument 'files'[0]: expected an object, got a number");
	check("{'path':'a','files':[{'path':'x'},{'path':'y'},{'path':'z'}]}",
	    TC_EINVAL, "argument 'files': more than 2 items");

	/* Unknown and duplicate members, and what is not an object. */
	check("{'path':'a','zzz':1}", TC_EINVAL, "unknown argument 'zzz'; "
	    "the tool takes: path, count, big, flag, mode, tags, files");
	check("{'zzz':1}", TC_EINVAL, "unknown argument 'zzz'; the tool "
	    "takes: path, count, big, flag, mode, tags, files");
	check("{'path':'a','Count':1}", TC_EINVAL, "unknown argument 'Count' "
	    "(did you mean 'count'?); the tool takes: path, count, big, "
	    "flag, mode, tags, files");
	check("{'path':'a','tgas':[]}", TC_EINVAL, "unknown argument 'tgas' "
	    "(did you mean 'tags'?); the tool takes: path, count, big, "
	    "flag, mode, tags, files");
	check("{'path':'a','path':'b'}", TC_EINVAL,
	    "argument 'path' given twice");
	check("[]", TC_EINVAL, "arguments: expected an object, got an array");
	check("'x'", TC_EINVAL, "arguments: expected an object, got a string");
	check("null", TC_EINVAL, "arguments: expected an object, got null");

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "x", 1);
	memset(&d, 0, sizeof(d));
	is_int(tc_args_check(no_args, o, &d), TC_EINVAL,
	    "no arguments: x refused");
	is_str(d.msg, "unknown argument 'x'; the tool takes no arguments",
	    "no arguments: says so");
	cJSON_Delete(o);
	o = cJSON_CreateObject();
	is_int(tc_args_check(no_args, o, NULL), 0, "no arguments: {} passes");
	cJSON_AddNumberToObject(o, "x", 1);
	is_int(tc_args_check(no_args, o, NULL), TC_EINVAL,
	    "no arguments: a member fails (NULL diag is fine)");
	cJSON_Delete(o);
}

static const char *
type_of(const cJSON *schema, const char *prop)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(schema,
	    "properties");

	p = cJSON_GetObjectItemCaseSensitive(p, prop);
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p,
	    "type"));
}

static double
num_of(const cJSON *schema, const char *prop, const char *key)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(schema,
	    "properties");

	p = cJSON_GetObjectItemCaseSensitive(p, prop);
	p = cJSON_GetObjectItemCaseSensitive(p, key);
	return cJSON_IsNumber(p) ? p->valuedouble : -12345;
}

static void
test_args_schema(void)
{
	const cJSON *props, *v, *items;
	cJSON *s, *want;
	char *text;

	s = tc_args_schema(args);
	if (!ok(s != NULL, "schema built"))
		return;
	is_str(cJSON_GetStringValue(cJSON_GetObjectItem(s, "type")), "object",
	    "schema: type object");
	ok(cJSON_IsFalse(cJSON_GetObjectItem(s, "additionalProperties")),
	    "schema: additionalProperties false");
	text = cJSON_PrintUnformatted(cJSON_GetObjectItem(s, "required"));
	is_str(text, "[\"path\"]", "schema: required lists path only");
	cJSON_free(text);
	props = cJSON_GetObjectItem(s, "properties");
	is_int(cJSON_GetArraySize(props), 7, "schema: seven properties");
	cJSON_ArrayForEach(v, props)
		ok(cJSON_IsString(cJSON_GetObjectItem(v, "description")),
		    "schema: '%s' has a description", v->string);

	is_str(type_of(s, "path"), "string", "schema: path is a string");
	is_int(num_of(s, "path", "minLength"), 1, "schema: path minLength 1");
	is_int(num_of(s, "path", "maxLength"), 8,
	    "schema: path maxLength 8, as checked");
	is_str(type_of(s, "count"), "integer", "schema: count is an integer");
	is_int(num_of(s, "count", "minimum"), -5, "schema: count minimum");
	is_int(num_of(s, "count", "maximum"), 10, "schema: count maximum");
	is_str(type_of(s, "flag"), "boolean", "schema: flag is a boolean");
	ok(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(props, "flag"),
	    "default")), "schema: flag default true");
	text = cJSON_PrintUnformatted(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(props, "mode"), "enum"));
	is_str(text, "[\"fast\",\"safe\",\"slow\",\"extra\"]",
	    "schema: mode enum");
	cJSON_free(text);

	is_str(type_of(s, "tags"), "array", "schema: tags is an array");
	is_int(num_of(s, "tags", "maxItems"), 3, "schema: tags maxItems");
	items = cJSON_GetObjectItem(cJSON_GetObjectItem(props, "tags"),
	    "items");
	is_str(cJSON_GetStringValue(cJSON_GetObjectItem(items, "type")),
	    "string", "schema: tags items are strings");
	v = cJSON_GetObjectItem(items, "maxLength");
	is_int(cJSON_IsNumber(v) ? v->valueint : -1, 4,
	    "schema: tags items maxLength 4, as checked");

	is_str(type_of(s, "files"), "array", "schema: files is an array");
	is_int(num_of(s, "files", "maxItems"), 2, "schema: files maxItems");
	items = cJSON_GetObjectItem(cJSON_GetObjectItem(props, "files"),
	    "items");
	is_str(cJSON_GetStringValue(cJSON_GetObjectItem(items, "type")),
	    "object", "schema: files items are objects");
	ok(cJSON_IsFalse(cJSON_GetObjectItem(items, "additionalProperties")),
	    "schema: files items: additionalProperties false");
	text = cJSON_PrintUnformatted(cJSON_GetObjectItem(items, "required"));
	is_str(text, "[\"path\"]", "schema: files items require path");
	cJSON_free(text);
	is_str(type_of(items, "size"), "integer",
	    "schema: files items: size is an integer");
	cJSON_Delete(s);

	s = tc_args_schema(no_args);
	want = cJSON_Parse("{\"type\":\"object\",\"properties\":{},"
	    "\"additionalProperties\":false}");
	ok(cJSON_Compare(s, want, 1), "schema of no arguments");
	cJSON_Delete(want);
	cJSON_Delete(s);
}

static void
test_validate(void)
{
	static const struct tc_arg no_desc[] = {
		{ .name = "a", .type = TC_ARG_STRING },
		{ .name = NULL }
	};
	static const struct tc_arg no_items[] = {
		{ .name = "a", .type = TC_ARG_OBJECT_ARRAY,
		    .description = "a" },
		{ .name = NULL }
	};
	static const struct tc_arg bad_range[] = {
		{ .name = "a", .type = TC_ARG_INT, .description = "a",
		    .min = 2, .max = 1 },
		{ .name = NULL }
	};
	struct tc_tool t[2];
	struct tc_diag d;
	const cJSON *an;
	cJSON *desc;

	memset(t, 0, sizeof(t));
	t[0].name = "read_thing";
	t[0].title = "Read a thing";
	t[0].description = "Reads a thing.";
	t[0].args = args;
	t[0].output_schema = "{\"type\":\"object\"}";
	t[0].fn = fn_nothing;
	t[0].flags = TC_TOOL_READONLY;
	t[1] = t[0];
	t[1].name = "write_thing";
	t[1].flags = TC_TOOL_DESTRUCTIVE;
	memset(&d, 0, sizeof(d));
	is_int(tc_tools_validate(t, 2, &d), 0, "a good table validates");
	ok(tc_tool_find(t, 2, "write_thing") == &t[1], "tc_tool_find finds");
	ok(tc_tool_find(t, 2, "nope") == NULL, "tc_tool_find: NULL if absent");

	t[1].name = "Bad-Name";
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "bad name rejected");
	is_str(d.msg, "tool name 'Bad-Name' is not lowercase snake_case",
	    "bad name: message");
	t[1].name = "a234567890123456789012345678901234567890";
	is_int(tc_tools_validate(t, 2, &d), 0, "a 40-byte name is fine");
	t[1].name = "a2345678901234567890123456789012345678901";
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "41 bytes is too long");
	t[1].name = "9lives";
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL,
	    "a name starting with a digit");
	t[1].name = "";
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "an empty name");
	t[1].name = "read_thing";
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "duplicate name");
	is_str(d.msg, "tool 'read_thing' is declared twice",
	    "duplicate name: message");
	t[1].name = "write_thing";

	t[1].output_schema = "{\"type\":";
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL,
	    "unparsable output schema rejected");
	is_str(d.msg, "tool 'write_thing': output schema is not JSON",
	    "unparsable output schema: message");
	t[1].output_schema = "[]";
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL,
	    "output schema not an object");
	/* A tool may promise no structuredContent (read_media_file, whose
	 * images a host preferring that half would drop). */
	t[1].output_schema = NULL;
	is_int(tc_tools_validate(t, 2, &d), 0, "no output schema is fine");
	desc = tc_tool_describe(&t[1]);
	ok(desc != NULL && cJSON_GetObjectItem(desc, "outputSchema") == NULL &&
	    cJSON_GetObjectItem(desc, "inputSchema") != NULL,
	    "no output schema: tools/list shows none");
	cJSON_Delete(desc);
	t[1].output_schema = "{\"type\":\"object\"}";

	t[1].args = no_desc;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL,
	    "argument without a description");
	is_str(d.msg, "tool 'write_thing': argument 'a' has no description",
	    "argument without a description: message");
	t[1].args = no_items;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL,
	    "object array without items");
	t[1].args = bad_range;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "empty integer range");
	t[1].args = no_args;
	t[1].fn = NULL;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "no handler");
	t[1].fn = fn_nothing;

	/* An alias: the tool before it, under another name. */
	t[1].args = args;
	t[1].flags = TC_TOOL_READONLY | TC_TOOL_ALIAS;
	is_int(tc_tools_validate(t, 2, &d), 0, "an alias validates");
	is_str(tc_tool_alias_of(&t[1]), "read_thing", "an alias of the one "
	    "before");
	is_str(tc_tool_policy_name(&t[1]), "read_thing", "policy name: its "
	    "tool's");
	ok(tc_tool_alias_of(&t[0]) == NULL, "a tool of its own: no alias");
	is_str(tc_tool_policy_name(&t[0]), "read_thing", "policy name: its "
	    "own");
	t[1].flags = TC_TOOL_DESTRUCTIVE | TC_TOOL_ALIAS;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "an alias with other "
	    "flags");
	is_str(d.msg, "tool 'write_thing': an alias of 'read_thing' with "
	    "another handler, arguments, profile or flags", "other flags: "
	    "message");
	t[1].flags = TC_TOOL_READONLY | TC_TOOL_ALIAS;
	t[1].args = no_args;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "an alias with other "
	    "arguments");
	t[1].args = args;
	t[1].profile = &other_profile;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "an alias with another "
	    "profile");
	t[1].profile = t[0].profile;
	t[0].flags |= TC_TOOL_ALIAS;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "an alias first, or "
	    "of an alias");
	is_str(d.msg, "tool 'read_thing': an alias, but of no tool of its own",
	    "alias of nothing: message");
	t[0].flags = TC_TOOL_READONLY;
	t[1].flags = TC_TOOL_DESTRUCTIVE;

	desc = tc_tool_describe(&t[0]);
	is_str(cJSON_GetStringValue(cJSON_GetObjectItem(desc, "name")),
	    "read_thing", "describe: name");
	is_str(cJSON_GetStringValue(cJSON_GetObjectItem(desc, "title")),
	    "Read a thing", "describe: title");
	ok(cJSON_IsObject(cJSON_GetObjectItem(desc, "inputSchema")),
	    "describe: inputSchema");
	ok(cJSON_IsObject(cJSON_GetObjectItem(desc, "outputSchema")),
	    "describe: outputSchema");
	an = cJSON_GetObjectItem(desc, "annotations");
	ok(cJSON_IsTrue(cJSON_GetObjectItem(an, "readOnlyHint")),
	    "describe: readOnlyHint");
	cJSON_Delete(desc);
	desc = tc_tool_describe(&t[1]);
	an = cJSON_GetObjectItem(desc, "annotations");
	ok(cJSON_IsFalse(cJSON_GetObjectItem(an, "readOnlyHint")) &&
	    cJSON_IsTrue(cJSON_GetObjectItem(an, "destructiveHint")),
	    "describe: destructiveHint");
	cJSON_Delete(desc);
}

/* For tc_tool_args_check(): only the tool named in |ctx| is offered. */
static int
offered_only(const void *ctx, const char *tool)
{
	return strcmp(ctx, tool) == 0;
}

/* Checks |json| against |t|'s arguments, with offered_only(|offered|) or,
 * if |offered| is NULL, every tool offered: the code and the message. */
static void
check_tool(const struct tc_tool *t, const char *offered, const char *json,
    int want, const char *msg)
{
	struct tc_diag d;
	cJSON *o;

	memset(&d, 0, sizeof(d));
	o = cJSON_Parse(dq(json));
	if (!ok(o != NULL, "%s: is JSON", json))
		return;
	is_int(tc_tool_args_check(t, o, offered != NULL ? offered_only : NULL,
	    offered, &d), want, "%s %s", t->name, json);
	if (msg != NULL)
		is_str(d.msg, msg, "%s %s: message", t->name, json);
	cJSON_Delete(o);
}

/*
 * An argument another tool takes (run_command's tty, start_command's):
 * refused with why and the tool that takes it, when that tool is offered;
 * the table is checked as the tools are.
 */
static void
test_elsewhere(void)
{
	static const struct tc_arg run[] = {
		{ .name = "argv", .type = TC_ARG_STRING,
		    .description = "a program" },
		{ .name = NULL }
	};
	static const struct tc_arg start[] = {
		{ .name = "argv", .type = TC_ARG_STRING,
		    .description = "a program" },
		{ .name = "tty", .type = TC_ARG_BOOL,
		    .description = "a terminal" },
		{ .name = NULL }
	};
	static const struct tc_arg_elsewhere good[] = {
		{ "tty", "start_thing", "run_thing has no terminal" },
		{ NULL }
	};
	static const struct tc_arg_elsewhere own[] = {
		{ "argv", "start_thing", "it is its own" },
		{ NULL }
	};
	static const struct tc_arg_elsewhere nobody[] = {
		{ "tty", "no_thing", "no tool" },
		{ NULL }
	};
	static const struct tc_arg_elsewhere untaken[] = {
		{ "pty", "start_thing", "start_thing takes tty" },
		{ NULL }
	};
	static const struct tc_arg_elsewhere unsaid[] = {
		{ "tty", "start_thing", NULL },
		{ NULL }
	};
	struct tc_tool t[3];
	struct tc_diag d;

	memset(t, 0, sizeof(t));
	memset(&d, 0, sizeof(d));
	t[0].name = "run_thing";
	t[0].description = "Runs a thing.";
	t[0].args = run;
	t[0].fn = fn_nothing;
	t[0].elsewhere = good;
	t[1] = t[0];
	t[1].name = "start_thing";
	t[1].args = start;
	t[1].elsewhere = NULL;
	is_int(tc_tools_validate(t, 2, &d), 0, "elsewhere: validates");

	check_tool(&t[0], NULL, "{'argv':'x','tty':true}", TC_EINVAL,
	    "unknown argument 'tty' (run_thing has no terminal; start_thing "
	    "takes 'tty'); the tool takes: argv");
	check_tool(&t[0], "start_thing", "{'tty':true}", TC_EINVAL,
	    "unknown argument 'tty' (run_thing has no terminal; start_thing "
	    "takes 'tty'); the tool takes: argv");
	/* A tool the policy leaves out is not one to send the model to. */
	check_tool(&t[0], "run_thing", "{'argv':'x','tty':true}", TC_EINVAL,
	    "unknown argument 'tty'; the tool takes: argv");
	/* Only the name itself: a misspelling of it is guessed as ever. */
	check_tool(&t[0], NULL, "{'argvv':'x'}", TC_EINVAL,
	    "unknown argument 'argvv' (did you mean 'argv'?); the tool "
	    "takes: argv");
	check_tool(&t[0], NULL, "{'argv':'x'}", 0, NULL);
	check_tool(&t[1], NULL, "{'argv':'x','tty':true}", 0, NULL);
	check_tool(&t[0], NULL, "[]", TC_EINVAL,
	    "arguments: expected an object, got an array");

	t[0].elsewhere = own;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "elsewhere: its own");
	is_str(d.msg, "tool 'run_thing': argument 'argv' is its own, not "
	    "another tool's", "elsewhere: its own: message");
	t[0].elsewhere = nobody;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "elsewhere: no tool");
	is_str(d.msg, "tool 'run_thing': argument 'tty' is not one tool "
	    "'no_thing' takes", "elsewhere: no tool: message");
	t[0].elsewhere = untaken;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL,
	    "elsewhere: the tool does not take it");
	t[0].elsewhere = unsaid;
	is_int(tc_tools_validate(t, 2, &d), TC_EINVAL, "elsewhere: no reason");
	/* An alias is its tool under another name: the same refusals. */
	t[0].elsewhere = good;
	t[2] = t[1];
	t[1] = t[0];
	t[1].name = "run_alias";
	t[1].flags = TC_TOOL_ALIAS;
	is_int(tc_tools_validate(t, 3, &d), 0, "elsewhere: an alias");
	t[1].elsewhere = NULL;
	is_int(tc_tools_validate(t, 3, &d), TC_EINVAL,
	    "elsewhere: an alias with other refusals");
	is_str(d.msg, "tool 'run_alias': an alias of 'run_thing' with another "
	    "handler, arguments, profile or flags", "elsewhere: an alias with "
	    "other refusals: message");
}

/* Serializes |r|, checks the text and parses it back; returns 1 if what
 * comes back is what |r| holds. */
static int
round_trip(const struct tc_result *r, const char *name)
{
	struct tc_result_info info;
	struct tc_diag d;
	struct tc_buf b;
	const cJSON *content, *it, *want;
	cJSON *back;
	int rc, same;

	memset(&d, 0, sizeof(d));
	tc_buf_init(&b, 1u << 20);
	is_int(tc_result_serialize(r, &b), 0, "%s: serialized", name);
	rc = tc_result_check(b.data, b.len, &info, &d);
	is_int(rc, 0, "%s: tc_result_check accepts it%s%s", name,
	    rc ? ": " : "", d.msg);
	is_int(info.is_error, r->is_error, "%s: isError seen", name);
	back = cJSON_Parse(b.data);
	content = cJSON_GetObjectItemCaseSensitive(back, "content");
	it = cJSON_GetArrayItem(content, 0);
	same = back != NULL && strcmp(cJSON_GetStringValue(
	    cJSON_GetObjectItem(it, "text")), r->text.data ? r->text.data :
	    "") == 0;
	want = r->content != NULL ? r->content->child : NULL;
	for (it = it != NULL ? it->next : NULL; it != NULL; it = it->next) {
		same = same && want != NULL && cJSON_Compare(it, want, 1);
		want = want != NULL ? want->next : NULL;
	}
	same = same && want == NULL;
	it = cJSON_GetObjectItemCaseSensitive(back, "structuredContent");
	same = same && (r->is_error || r->structured == NULL ? it == NULL :
	    cJSON_Compare(it, r->structured, 1));
	same = same && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(back,
	    "isError")) == r->is_error;
	ok(same, "%s: round trip", name);
	cJSON_Delete(back);
	tc_buf_release(&b);
	return same;
}

/* Serializes |r| and compares the text with |want|. */
static void
serializes_to(const struct tc_result *r, const char *want, const char *name)
{
	struct tc_buf b;

	tc_buf_init(&b, 1u << 20);
	is_int(tc_result_serialize(r, &b), 0, "%s: serialized", name);
	is_str(b.data, want, "%s: text", name);
	tc_buf_release(&b);
}

static void
test_results(void)
{
	struct tc_result r;
	char *text;

	tc_result_init(&r);
	is_int(tc_result_printf(&r, "hello %d", 5), 0, "result printf");
	cJSON_AddNumberToObject(tc_result_obj(&r), "n", 5);
	cJSON_AddNumberToObject(tc_result_obj(&r), "half", 0.5);
	cJSON_AddNumberToObject(tc_result_obj(&r), "big", 9007199254740991.0);
	cJSON_AddStringToObject(tc_result_obj(&r), "s", "q\"\\\n\t\x01/\xc3\xa9");
	cJSON_AddItemToObject(tc_result_obj(&r), "a", cJSON_Parse(
	    "[true,false,null,{},[]]"));
	serializes_to(&r, "{\"content\":[{\"type\":\"text\",\"text\":"
	    "\"hello 5\"}],\"structuredContent\":{\"n\":5,\"half\":0.5,"
	    "\"big\":9007199254740991,\"s\":\"q\\\"\\\\\\n\\t\\u0001/"
	    "\xc3\xa9\",\"a\":[true,false,null,{},[]]}}", "result to JSON");
	round_trip(&r, "text and structured");

	is_int(tc_result_text(&r, " \xff\x00!", 4), 0, "result text");
	is_str(r.text.data, "hello 5 \xef\xbf\xbd\xef\xbf\xbd!",
	    "result text: bad bytes and NUL replaced");
	round_trip(&r, "repaired text");

	is_int(tc_result_error(&r, "'%s': not found", "x"), 0,
	    "tc_result_error returns 0");
	ok(r.is_error && r.structured == NULL, "error: flag set, no struct");
	is_str(r.text.data, "'x': not found", "error: text replaced");
	serializes_to(&r, "{\"content\":[{\"type\":\"text\",\"text\":\"'x': "
	    "not found\"}],\"isError\":true}", "error to JSON");
	round_trip(&r, "error");
	tc_result_release(&r);

	tc_result_init(&r);
	round_trip(&r, "empty result");
	r.content = cJSON_Parse("[{\"type\":\"image\",\"data\":\"aGk=\","
	    "\"mimeType\":\"image/png\"}]");
	round_trip(&r, "text and image");
	tc_result_release(&r);

	text = tc_result_error_text("boom");
	is_str(text, "{\"content\":[{\"type\":\"text\",\"text\":\"boom\"}],"
	    "\"isError\":true}", "tc_result_error_text");
	free(text);
}

/* Checks that tc_result_check refuses |json| with |code| (and |msg|). */
static void
refuse(const char *json, size_t len, int code, const char *msg,
    const char *name)
{
	struct tc_result_info info;
	struct tc_diag d;

	memset(&d, 0, sizeof(d));
	if (len == 0)
		json = dq(json);
	is_int(tc_result_check(json, len ? len : strlen(json), &info, &d),
	    code, "result check refuses %s", name);
	ok(d.msg[0] != '\0', "%s: says why", name);
	if (msg != NULL)
		is_str(d.msg, msg, "%s: message", name);
}

static void
test_result_check(void)
{
	static const char bad_utf8[] = "{\"content\":[{\"type\":\"text\","
	    "\"text\":\"\xc0\x80\"}]}";
	static const char nul[] = "{\"content\":[{\"type\":\"text\","
	    "\"text\":\"a\"}]}\0";

	refuse("[]", 0, TC_EINVAL, "result is not a CallToolResult",
	    "an array");
	refuse("42", 0, TC_EINVAL, NULL, "a number");
	refuse("{'content':", 0, TC_EBADJSON, "result is not JSON",
	    "truncated JSON");
	refuse("{'content':[{'type':'text','text':'a'}]} junk", 0,
	    TC_EBADJSON, NULL, "trailing junk");
	refuse("{'content':[{'type':'text','text':'a'}],'extra':1}", 0,
	    TC_EINVAL, "result is not a CallToolResult", "an unknown key");
	refuse("{'content':[{'type':'video','data':'aGk='}]}", 0, TC_EINVAL,
	    "content item of unknown type", "an unknown content type");
	refuse("{'content':[{'text':'a'}]}", 0, TC_EINVAL, NULL,
	    "a content item without a type");
	refuse("{'content':[{'type':'text','text':5}]}", 0, TC_EINVAL,
	    "malformed text item", "text not a string");
	refuse("{'content':[{'type':'text','text':'a','x':1}]}", 0,
	    TC_EINVAL, "malformed content item", "an item with an unknown "
	    "key");
	refuse("{'content':[{'type':'text','text':'a','data':'aGk='}]}", 0,
	    TC_EINVAL, "malformed text item", "a text item with data");
	refuse("{'content':[{'type':'image','data':'not base64!',"
	    "'mimeType':'image/png'}]}", 0, TC_EINVAL, "malformed image item",
	    "an image that is not base64");
	refuse("{'content':[{'type':'text','text':'a'}],"
	    "'structuredContent':[1]}", 0, TC_EINVAL,
	    "structuredContent is not an object", "structuredContent array");
	refuse("{'content':[{'type':'text','text':'a'}],"
	    "'structuredContent':'x'}", 0, TC_EINVAL, NULL,
	    "structuredContent string");
	refuse("{'content':[{'type':'text','text':'a'}],'isError':'yes'}", 0,
	    TC_EINVAL, "isError is not a boolean", "isError a string");
	refuse("{'content':'a'}", 0, TC_EINVAL, NULL, "content a string");
	refuse("{'isError':true}", 0, TC_EINVAL, NULL, "no content");
	refuse(bad_utf8, sizeof(bad_utf8) - 1, TC_EBADJSON,
	    "result is not valid UTF-8", "invalid UTF-8");
	refuse(nul, sizeof(nul) - 1, TC_EBADJSON, NULL, "a trailing NUL byte");

	/* The text is sent on as it came: only the compact form is let
	 * through, and nothing a client could read two ways. */
	refuse("{'content':[{'type':'text','text':'a'}]}\n", 0, TC_EBADJSON,
	    NULL, "a trailing newline");
	refuse("{'content':\n[{'type':'text','text':'a'}]}", 0, TC_EBADJSON,
	    NULL, "a newline between tokens");
	refuse("{'content': [{'type':'text','text':'a'}]}", 0, TC_EBADJSON,
	    NULL, "a space between tokens");
	refuse("{'content':[{'type':'text','text':'a\nb'}]}", 0, TC_EBADJSON,
	    NULL, "a raw newline in a string");
	refuse("{'content':[{'type':'text','text':'a\\x'}]}", 0,
	    TC_EBADJSON, NULL, "an unknown escape");
	refuse("{'content':[{'type':'text','text':'\\u00g0'}]}", 0,
	    TC_EBADJSON, NULL, "a short \\u escape");
	refuse("{'content':[{'type':'text','text':'a'}],'structuredContent':"
	    "{'n':01}}", 0, TC_EBADJSON, NULL, "a number with a leading zero");
	refuse("{'content':[{'type':'text','text':'a'}],'structuredContent':"
	    "{'n':1.}}", 0, TC_EBADJSON, NULL, "a number ending in a dot");
	refuse("{'content':[{'type':'text','text':'a'}],'structuredContent':"
	    "{'n':-}}", 0, TC_EBADJSON, NULL, "a lone minus");
	refuse("{'content':[{'type':'text','text':'a'}],'structuredContent':"
	    "{'n':tru}}", 0, TC_EBADJSON, NULL, "a cut literal");
	refuse("{'content':[{'type':'text','text':'a'}],'structuredContent':"
	    "{'n':[1,]}}", 0, TC_EBADJSON, NULL, "a trailing comma");
	refuse("{'content':[{'type':'text','text':'a'}],'structuredContent':"
	    "{'n' 1}}", 0, TC_EBADJSON, NULL, "a member without a colon");
	refuse("{'content':[{'type':'text','text':'a'}],'content':[{'type':"
	    "'text','text':'b'}]}", 0, TC_EINVAL,
	    "result is not a CallToolResult", "content twice");
	refuse("{'content':[{'type':'text','text':'a','text':'b'}]}", 0,
	    TC_EINVAL, "malformed content item", "an item's text twice");
	refuse("{'content':[{'type':'image','type':'text','text':'a'}]}", 0,
	    TC_EINVAL, "malformed content item", "an item's type twice");
	refuse("{'content':[]}", 0, TC_EINVAL, "result has no content",
	    "empty content");
	refuse("{'content':[1]}", 0, TC_EINVAL, "malformed content item",
	    "a content item that is a number");
	refuse("{'content':[{'type':'resource','resource':{'uri':'u',"
	    "'text':'a','blob':'aGk='}}]}", 0, TC_EINVAL,
	    "malformed resource item", "a resource with text and blob");
	refuse("{'content':[{'type':'image','data':'aGk\\u003d',"
	    "'mimeType':'image/png'}]}", 0, TC_EINVAL, "malformed image item",
	    "base64 written with an escape");
}

/* Nesting: TC_JSON_DEPTH levels are let through, deeper ones are not. */
static void
test_result_depth(void)
{
	static const char head[] = "{\"content\":[{\"type\":\"text\","
	    "\"text\":\"a\"}],\"structuredContent\":{\"d\":";
	struct tc_result_info info;
	struct tc_diag d;
	struct tc_buf b;
	int depth, i, rc;

	for (depth = TC_JSON_DEPTH - 2; depth <= TC_JSON_DEPTH; depth++) {
		tc_buf_init(&b, 1u << 20);
		tc_buf_append_str(&b, head);
		for (i = 0; i < depth; i++)
			tc_buf_append(&b, "[", 1);
		for (i = 0; i < depth; i++)
			tc_buf_append(&b, "]", 1);
		tc_buf_append(&b, "}}", 2);
		memset(&d, 0, sizeof(d));
		rc = tc_result_check(b.data, b.len, &info, &d);
		/* The array's own level: 2 under the result and the
		 * structuredContent member. */
		is_int(rc, depth + 1 <= TC_JSON_DEPTH ? 0 : TC_EBADJSON,
		    "arrays nested %d deep in structuredContent", depth);
		tc_buf_release(&b);
	}
}

/* What the audit log is told: isError and a truncated answer. */
static void
test_result_info(void)
{
	struct tc_result_info info;
	struct tc_diag d;
	const char *t;

	t = dq("{'content':[{'type':'text','text':'a'}],'structuredContent':"
	    "{'x':{'truncated':true},'truncated':true},'isError':false}");
	is_int(tc_result_check(t, strlen(t), &info, &d), 0, "info: accepted");
	ok(info.truncated && !info.is_error, "info: truncated, not an error");
	t = dq("{'content':[{'type':'text','text':'a'}],'structuredContent':"
	    "{'x':{'truncated':true}},'isError':true}");
	is_int(tc_result_check(t, strlen(t), &info, &d), 0, "info: accepted");
	ok(!info.truncated && info.is_error,
	    "info: a nested truncated is not the answer's; isError seen");
}

/*
 * Writing and scanning JSON strings, which look at sixteen bytes at a
 * time, then eight, then one: every byte value at every offset of a
 * string of two vectors and a word (each half of a vector, the word and
 * a byte past it), each compared with what a byte-by-byte reading says
 * (and with cJSON's parser for what tc_json_put_string() writes).
 */
static void
test_json_strings(void)
{
	char s[48], raw[56];
	size_t pos, wrong_put = 0, wrong_scan = 0, wrong_len = 0, tried = 0;
	struct tc_buf b;
	cJSON *back;
	const char *end;
	int c, plain;

	for (c = 1; c < 0x80; c++)
	for (pos = 0; pos < 41; pos++) {
		memset(s, 'a', 41);
		s[41] = '\0';
		s[pos] = (char)c;
		tried++;

		tc_buf_init(&b, 1024);
		back = tc_json_put_string(&b, s, 41) == 0 ?
		    cJSON_ParseWithLength(b.data, b.len) : NULL;
		if (back == NULL || !cJSON_IsString(back) ||
		    strcmp(back->valuestring, s) != 0 ||
		    strpbrk(b.data, "\n\r\t") != NULL) {
			if (wrong_put++ == 0)
				printf("# put: first wrong: byte %d at %zu\n",
				    c, pos);
		}
		cJSON_Delete(back);
		if (tc_json_string_len(s, 41) != b.len && wrong_len++ == 0)
			printf("# len: first wrong: byte %d at %zu\n", c, pos);
		if (b.data != NULL && tc_json_scan(b.data, b.data + b.len, 0) !=
		    b.data + b.len && wrong_scan++ == 0)
			printf("# scan of put: first wrong: byte %d at %zu\n",
			    c, pos);
		tc_buf_release(&b);

		/* The same bytes between quotes as they are: a string only
		 * if the byte needs no escape. */
		raw[0] = '"';
		memcpy(raw + 1, s, 41);
		raw[42] = '"';
		plain = c >= 0x20 && c != '"' && c != '\\';
		end = tc_json_scan(raw, raw + 43, 0);
		if ((end == raw + 43) != plain && wrong_scan++ == 0)
			printf("# scan: first wrong: byte %d at %zu\n", c,
			    pos);
	}
	is_int(wrong_put, 0, "tc_json_put_string: every ASCII byte at every "
	    "offset reads back (%zu)", tried);
	is_int(wrong_len, 0, "tc_json_string_len: what tc_json_put_string "
	    "writes, for every ASCII byte at every offset");
	is_int(tc_json_string_len("", 0), 2, "tc_json_string_len: \"\"");
	is_int(tc_json_string_len("\xe2\x80\xa6\x01", 4), 11,
	    "tc_json_string_len: UTF-8 as it is, a control as \\u0001");
	is_int(wrong_scan, 0, "tc_json_scan: a string with every ASCII byte "
	    "at every offset, raw and escaped (%zu)", tried);
}

/* tc_name_distance(): the edits, and only when close enough to guess. */
static void
test_name_distance(void)
{
	char longer[TC_NAME_GUESS_MAX + 2];

	is_int((long long)tc_name_distance("read_file", "read_file"), 0,
	    "distance: the same name");
	is_int((long long)tc_name_distance("Read_File", "read_file"), 0,
	    "distance: ASCII letters in either case");
	is_int((long long)tc_name_distance("read_fiel", "read_file"), 1,
	    "distance: two neighbours swapped is one edit");
	is_int((long long)tc_name_distance("read-file", "read_file"), 1,
	    "distance: one replaced");
	is_int((long long)tc_name_distance("search_file", "search_files"), 1,
	    "distance: one missing");
	is_int((long long)tc_name_distance("get_fileinfo", "get_file_info"),
	    1, "distance: one inserted");
	is_int((long long)tc_name_distance("directry_tre", "directory_tree"),
	    2, "distance: two, for 12 bytes (a quarter is 3)");
	ok(tc_name_distance("list_dir", "list_directory") == SIZE_MAX,
	    "distance: six edits is not close");
	ok(tc_name_distance("rdfile", "read_file") == SIZE_MAX,
	    "distance: three edits for 6 bytes is not close");
	ok(tc_name_distance("hed", "head") == SIZE_MAX,
	    "distance: under 4 bytes, only a difference of case");
	is_int((long long)tc_name_distance("HEAD", "head"), 0,
	    "distance: 4 bytes, case only");
	is_int((long long)tc_name_distance("heda", "head"), 1,
	    "distance: 4 bytes, one swap");
	ok(tc_name_distance("", "head") == SIZE_MAX,
	    "distance: an empty name is not guessed at");
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	ok(tc_name_distance(longer, longer) == SIZE_MAX,
	    "distance: a name past TC_NAME_GUESS_MAX is not guessed at");
	longer[TC_NAME_GUESS_MAX] = '\0';
	is_int((long long)tc_name_distance(longer, longer), 0,
	    "distance: one of TC_NAME_GUESS_MAX bytes is");
}

/* --- Numbers, null, scalar arrays and string maps --- */

static const struct tc_arg typed_args[] = {
	{ .name = "ratio", .type = TC_ARG_NUMBER, .flags = TC_ARG_DEFAULT,
	    .description = "a ratio", .num_min = 0, .num_max = 1,
	    .num_def = 0.5 },
	{ .name = "temp", .type = TC_ARG_NUMBER, .description = "degrees",
	    .num_min = -273.15, .num_max = HUGE_VAL },
	{ .name = "depth", .type = TC_ARG_NUMBER, .description = "metres",
	    .num_min = -HUGE_VAL, .num_max = 0 },
	{ .name = "cwd", .type = TC_ARG_STRING, .flags = TC_ARG_NULLABLE,
	    .description = "a directory, or null for none", .max_len = 4 },
	{ .name = "params", .type = TC_ARG_SCALAR_ARRAY,
	    .description = "SQL parameters", .max_len = 8,
	    .item_max_len = 4 },
	{ .name = "env", .type = TC_ARG_STRING_MAP,
	    .flags = TC_ARG_NAME_KEYS | TC_ARG_NULLABLE,
	    .description = "environment", .max_len = 2, .key_max_len = 8,
	    .item_max_len = 4 },
	{ .name = "labels", .type = TC_ARG_STRING_MAP,
	    .flags = TC_ARG_NONEMPTY, .description = "any keys",
	    .max_len = 2 },
	{ .name = NULL }
};

/* Checks |json| against |table|: the code and, if |msg|, the message. */
static void
check_in(const struct tc_arg *table, const char *json, int want,
    const char *msg)
{
	struct tc_diag d;
	cJSON *o;

	memset(&d, 0, sizeof(d));
	o = cJSON_Parse(dq(json));
	if (!ok(o != NULL, "%s: is JSON", json))
		return;
	is_int(tc_args_check(table, o, &d), want, "check %s", json);
	if (msg != NULL)
		is_str(d.msg, msg, "check %s: message", json);
	cJSON_Delete(o);
}

#define tcheck(json, want, msg)	check_in(typed_args, json, want, msg)

static void
test_typed_check(void)
{
	static const struct tc_arg required_null[] = {
		{ .name = "value", .type = TC_ARG_INT,
		    .flags = TC_ARG_REQUIRED | TC_ARG_NULLABLE,
		    .description = "a value, or null to unset it",
		    .min = 0, .max = 9 },
		{ .name = NULL }
	};

	/* Numbers: integers are numbers too; both bounds are in. */
	tcheck("{}", 0, NULL);
	tcheck("{'ratio':0}", 0, NULL);
	tcheck("{'ratio':1}", 0, NULL);
	tcheck("{'ratio':0.25}", 0, NULL);
	tcheck("{'ratio':1e-300}", 0, NULL);
	tcheck("{'ratio':1.0000000000000002}", TC_EINVAL,
	    "argument 'ratio': must be between 0 and 1");
	tcheck("{'ratio':-5e-324}", TC_EINVAL,
	    "argument 'ratio': must be between 0 and 1");
	tcheck("{'ratio':'0.5'}", TC_EINVAL,
	    "argument 'ratio': expected a number, got a string");
	tcheck("{'ratio':true}", TC_EINVAL,
	    "argument 'ratio': expected a number, got a boolean");
	tcheck("{'ratio':null}", TC_EINVAL,
	    "argument 'ratio': expected a number, got null");
	tcheck("{'ratio':[0.5]}", TC_EINVAL,
	    "argument 'ratio': expected a number, got an array");
	tcheck("{'temp':1e400}", TC_EINVAL,
	    "argument 'temp': expected a finite number");
	tcheck("{'temp':-1e400}", TC_EINVAL,
	    "argument 'temp': expected a finite number");
	tcheck("{'temp':-273.15}", 0, NULL);
	tcheck("{'temp':1e308}", 0, NULL);
	tcheck("{'temp':-273.16}", TC_EINVAL,
	    "argument 'temp': must be at least -273.15");
	tcheck("{'depth':-1e308}", 0, NULL);
	tcheck("{'depth':0}", 0, NULL);
	tcheck("{'depth':0.001}", TC_EINVAL,
	    "argument 'depth': must be at most 0");

	/* Null, where the table allows it, and only there. */
	tcheck("{'cwd':null}", 0, NULL);
	tcheck("{'cwd':'abcd'}", 0, NULL);
	tcheck("{'cwd':'abcde'}", TC_EINVAL,
	    "argument 'cwd': longer than 4 bytes");
	tcheck("{'cwd':5}", TC_EINVAL,
	    "argument 'cwd': expected a string, got a number");
	tcheck("{'env':null}", 0, NULL);
	tcheck("{'labels':null}", TC_EINVAL,
	    "argument 'labels': expected an object, got null");
	check_in(required_null, "{'value':null}", 0, NULL);
	check_in(required_null, "{'value':9}", 0, NULL);
	check_in(required_null, "{}", TC_EINVAL,
	    "argument 'value' is required");
	check_in(required_null, "{'value':10}", TC_EINVAL,
	    "argument 'value': must be between 0 and 9");

	/* Scalar arrays. */
	tcheck("{'params':[]}", 0, NULL);
	tcheck("{'params':['abcd',-1,2.5]}", 0, NULL);
	tcheck("{'params':['',true,null]}", 0, NULL);
	tcheck("{'params':[false,0,'x']}", 0, NULL);
	tcheck("{'params':[1,2,3,4,5,6,7,8]}", 0, NULL);
	tcheck("{'params':[1,2,3,4,5,6,7,8,9]}", TC_EINVAL,
	    "argument 'params': more than 8 items");
	tcheck("{'params':['abcde']}", TC_EINVAL,
	    "argument 'params'[0]: longer than 4 bytes");
	tcheck("{'params':[1,[1]]}", TC_EINVAL,
	    "argument 'params'[1]: expected a string, number, boolean or "
	    "null, got an array");
	tcheck("{'params':[{}]}", TC_EINVAL,
	    "argument 'params'[0]: expected a string, number, boolean or "
	    "null, got an object");
	tcheck("{'params':[9007199254740991,-9007199254740991]}", 0, NULL);
	tcheck("{'params':[9007199254740992]}", TC_EINVAL,
	    "argument 'params'[0]: 9007199254740992 is too large to be held "
	    "exactly (more than 2^53 - 1); send it as a string");
	/* ...993 arrives as ...992: refused all the same. */
	tcheck("{'params':[9007199254740993]}", TC_EINVAL, NULL);
	tcheck("{'params':[-9007199254740992]}", TC_EINVAL, NULL);
	tcheck("{'params':[1e300]}", TC_EINVAL, NULL);
	tcheck("{'params':[1e400]}", TC_EINVAL,
	    "argument 'params'[0]: expected a finite number");
	tcheck("{'params':'1'}", TC_EINVAL,
	    "argument 'params': expected an array, got a string");
	tcheck("{'params':null}", TC_EINVAL,
	    "argument 'params': expected an array, got null");

	/* String maps. */
	tcheck("{'env':{}}", 0, NULL);
	tcheck("{'env':{'A':'','_b9':'abcd'}}", 0, NULL);
	tcheck("{'env':{'ABCDEFGH':'x'}}", 0, NULL);
	tcheck("{'env':{'A':'x','B':'y','C':'z'}}", TC_EINVAL,
	    "argument 'env': more than 2 entries");
	tcheck("{'env':{'ABCDEFGHI':'x'}}", TC_EINVAL,
	    "argument 'env': key 'ABCDEFGHI': longer than 8 bytes");
	tcheck("{'env':{'9A':'x'}}", TC_EINVAL,
	    "argument 'env': key '9A': not a name (letters, digits and '_', "
	    "not starting with a digit)");
	tcheck("{'env':{'A-B':'x'}}", TC_EINVAL, NULL);
	tcheck("{'env':{'A=B':'x'}}", TC_EINVAL, NULL);
	tcheck("{'env':{'':'x'}}", TC_EINVAL,
	    "argument 'env': a key must not be empty");
	tcheck("{'env':{'A':'abcde'}}", TC_EINVAL,
	    "argument 'env': value of 'A': longer than 4 bytes");
	tcheck("{'env':{'A':1}}", TC_EINVAL,
	    "argument 'env': value of 'A': expected a string, got a number");
	tcheck("{'env':{'A':null}}", TC_EINVAL,
	    "argument 'env': value of 'A': expected a string, got null");
	tcheck("{'env':{'A':'x','A':'y'}}", TC_EINVAL,
	    "argument 'env': key 'A' given twice");
	tcheck("{'env':['A']}", TC_EINVAL,
	    "argument 'env': expected an object, got an array");
	tcheck("{'labels':{'a b':'x','':'y'}}", TC_EINVAL,
	    "argument 'labels': a key must not be empty");
	tcheck("{'labels':{'a b':'x','9':'y'}}", 0, NULL);
	tcheck("{'labels':{'a b':''}}", TC_EINVAL,
	    "argument 'labels': value of 'a b': must not be empty");
}

static void
test_typed_schema(void)
{
	static const struct {
		const char	*name, *want;
	} props[] = {
		{ "ratio", "{'type':'number','minimum':0,'maximum':1,"
		    "'default':0.5,'description':'a ratio'}" },
		{ "temp", "{'type':'number','minimum':-273.15,"
		    "'description':'degrees'}" },
		{ "depth", "{'type':'number','maximum':0,"
		    "'description':'metres'}" },
		{ "cwd", "{'type':'string','maxLength':4,'nullable':true,"
		    "'description':'a directory, or null for none'}" },
		{ "params", "{'type':'array','items':{'anyOf':["
		    "{'type':'string','maxLength':4},"
		    "{'type':'number','minimum':-9007199254740991,"
		    "'maximum':9007199254740991},"
		    "{'type':'boolean'},{'type':'null'}]},'maxItems':8,"
		    "'description':'SQL parameters'}" },
		{ "env", "{'type':'object','maxProperties':2,"
		    "'propertyNames':{'minLength':1,'maxLength':8,"
		    "'pattern':'^[A-Za-z_][A-Za-z0-9_]*$'},"
		    "'additionalProperties':{'type':'string','maxLength':4},"
		    "'nullable':true,'description':'environment'}" },
		{ "labels", "{'type':'object','maxProperties':2,"
		    "'propertyNames':{'minLength':1},"
		    "'additionalProperties':{'type':'string','minLength':1},"
		    "'description':'any keys'}" },
	};
	const cJSON *p;
	cJSON *s;
	char *text;
	size_t i;

	s = tc_args_schema(typed_args);
	if (!ok(s != NULL, "typed schema built"))
		return;
	p = cJSON_GetObjectItem(s, "properties");
	is_int(cJSON_GetArraySize(p), (long long)TC_NITEMS(props),
	    "typed schema: one property each");
	for (i = 0; i < TC_NITEMS(props); i++) {
		text = cJSON_PrintUnformatted(cJSON_GetObjectItem(p,
		    props[i].name));
		is_str(text, dq(props[i].want), "schema of '%s'",
		    props[i].name);
		cJSON_free(text);
	}
	/* No "type" is ever a list: Gemini refuses the whole request. */
	text = cJSON_PrintUnformatted(s);
	ok(text != NULL && strstr(text, "\"type\":[") == NULL,
	    "typed schema: no type is a list");
	cJSON_free(text);
	cJSON_Delete(s);
}

static void
test_typed_validate(void)
{
	static const struct {
		const char	*what;
		struct tc_arg	 arg;
		const char	*msg;	/* NULL: the table is good */
	} cases[] = {
		{ "a number", { .name = "a", .type = TC_ARG_NUMBER,
		    .description = "a", .num_min = -1, .num_max = 1 }, NULL },
		{ "a one-point range", { .name = "a", .type = TC_ARG_NUMBER,
		    .description = "a", .num_min = 2, .num_max = 2 }, NULL },
		{ "an empty number range", { .name = "a",
		    .type = TC_ARG_NUMBER, .description = "a", .num_min = 2,
		    .num_max = 1 }, "tool 't': argument 'a' has an empty "
		    "range" },
		{ "a NaN bound", { .name = "a", .type = TC_ARG_NUMBER,
		    .description = "a", .num_min = NAN, .num_max = 1 },
		    "tool 't': argument 'a' has an empty range" },
		{ "a default at the bound", { .name = "a",
		    .type = TC_ARG_NUMBER, .flags = TC_ARG_DEFAULT,
		    .description = "a", .num_min = 0, .num_max = 1,
		    .num_def = 1 }, NULL },
		{ "a default outside", { .name = "a", .type = TC_ARG_NUMBER,
		    .flags = TC_ARG_DEFAULT, .description = "a", .num_min = 0,
		    .num_max = 1, .num_def = 1.5 }, "tool 't': argument 'a' "
		    "has a default outside its range" },
		{ "an infinite default", { .name = "a", .type = TC_ARG_NUMBER,
		    .flags = TC_ARG_DEFAULT, .description = "a",
		    .num_min = -HUGE_VAL, .num_max = HUGE_VAL,
		    .num_def = HUGE_VAL }, "tool 't': argument 'a' has a "
		    "default outside its range" },
		{ "a number range on an integer", { .name = "a",
		    .type = TC_ARG_INT, .description = "a", .max = 5,
		    .num_max = 5 }, "tool 't': argument 'a' has a number "
		    "range but is not a number" },
		{ "a scalar array", { .name = "a",
		    .type = TC_ARG_SCALAR_ARRAY, .description = "a",
		    .max_len = 1 }, NULL },
		{ "a scalar array without a cap", { .name = "a",
		    .type = TC_ARG_SCALAR_ARRAY, .description = "a" },
		    "tool 't': argument 'a' has no cap on its items" },
		{ "a map", { .name = "a", .type = TC_ARG_STRING_MAP,
		    .flags = TC_ARG_NAME_KEYS | TC_ARG_NONEMPTY,
		    .description = "a", .max_len = 1 }, NULL },
		{ "a map without a cap", { .name = "a",
		    .type = TC_ARG_STRING_MAP, .description = "a" },
		    "tool 't': argument 'a' has no cap on its entries" },
		{ "a key cap on a string", { .name = "a",
		    .type = TC_ARG_STRING, .description = "a",
		    .key_max_len = 8 }, "tool 't': argument 'a' has a key "
		    "cap but is not a map" },
		{ "name keys on a string", { .name = "a",
		    .type = TC_ARG_STRING, .flags = TC_ARG_NAME_KEYS,
		    .description = "a" }, "tool 't': argument 'a' has a flag "
		    "its type does not take" },
		{ "a path map", { .name = "a", .type = TC_ARG_STRING_MAP,
		    .flags = TC_ARG_PATH, .description = "a", .max_len = 1 },
		    "tool 't': argument 'a' has a flag its type does not "
		    "take" },
		{ "a default on a map", { .name = "a",
		    .type = TC_ARG_STRING_MAP, .flags = TC_ARG_DEFAULT,
		    .description = "a", .max_len = 1 }, "tool 't': argument "
		    "'a' has a flag its type does not take" },
		{ "enums on a scalar array", { .name = "a",
		    .type = TC_ARG_SCALAR_ARRAY, .description = "a",
		    .max_len = 1, .enums = modes }, "tool 't': argument 'a' "
		    "has enums but holds no strings to pick" },
		{ "items on a map", { .name = "a", .type = TC_ARG_STRING_MAP,
		    .description = "a", .max_len = 1, .items = file_items },
		    "tool 't': argument 'a' has items but is no object "
		    "array" },
		{ "a nullable anything", { .name = "a", .type = TC_ARG_BOOL,
		    .flags = TC_ARG_NULLABLE | TC_ARG_DEFAULT,
		    .description = "a" }, NULL },
		{ "an unknown type", { .name = "a",
		    .type = (enum tc_arg_type)99, .description = "a" },
		    "tool 't': argument 'a' has an unknown type" },
	};
	struct tc_arg table[2];
	struct tc_tool t;
	struct tc_diag d;
	size_t i;

	memset(&t, 0, sizeof(t));
	t.name = "t";
	t.description = "a tool";
	t.fn = fn_nothing;
	t.args = table;
	for (i = 0; i < TC_NITEMS(cases); i++) {
		memset(table, 0, sizeof(table));
		table[0] = cases[i].arg;
		memset(&d, 0, sizeof(d));
		is_int(tc_tools_validate(&t, 1, &d), cases[i].msg ? TC_EINVAL :
		    0, "validate: %s", cases[i].what);
		if (cases[i].msg != NULL)
			is_str(d.msg, cases[i].msg, "validate: %s: message",
			    cases[i].what);
	}
	t.args = typed_args;
	is_int(tc_tools_validate(&t, 1, &d), 0, "validate: the typed table");
}

static void
test_typed_accessors(void)
{
	struct tc_tool t;
	struct tc_call c;
	struct tc_arg_iter it;
	struct tc_scalar v;
	const char *k, *val;
	cJSON *o;
	int n;

	memset(&t, 0, sizeof(t));
	t.name = "t";
	t.description = "a tool";
	t.fn = fn_nothing;
	t.args = typed_args;
	memset(&c, 0, sizeof(c));
	c.tool = &t;
	o = cJSON_Parse(dq("{'temp':-3.5,'cwd':null,'env':{'B':'2','A':'1'},"
	    "'params':['s',7,-7.25,true,null,false,-0]}"));
	if (!ok(o != NULL && tc_args_check(typed_args, o, NULL) == 0,
	    "accessors: the arguments check"))
		return;
	c.args = o;

	/* Numbers, and the default of one absent. */
	ok(tc_arg_num(&c, "temp", 99) == -3.5, "tc_arg_num: the value");
	ok(tc_arg_num(&c, "ratio", 99) == 0.5, "tc_arg_num: the table's "
	    "default");
	ok(tc_arg_num(&c, "depth", -2) == -2, "tc_arg_num: the caller's "
	    "default");

	/* Null: present, and read as absent. */
	ok(tc_arg_has(&c, "cwd"), "null: tc_arg_has");
	ok(tc_arg_is_null(&c, "cwd"), "null: tc_arg_is_null");
	ok(tc_arg_str(&c, "cwd") == NULL, "null: no string");
	ok(!tc_arg_is_null(&c, "temp"), "tc_arg_is_null: a number is not");
	ok(!tc_arg_is_null(&c, "labels"), "tc_arg_is_null: absent is not");

	/* Scalar arrays, item by item. */
	is_int((long long)tc_arg_count(&c, "params"), 7, "tc_arg_count: "
	    "params");
	tc_arg_scalars(&c, "params", &it);
	ok(tc_arg_scalar_next(&it, &v) && v.kind == TC_SCALAR_STRING &&
	    strcmp(v.s, "s") == 0 && v.len == 1, "scalar 0: a string");
	ok(tc_arg_scalar_next(&it, &v) && v.kind == TC_SCALAR_INT &&
	    v.i == 7 && v.d == 7, "scalar 1: an integer");
	ok(tc_arg_scalar_next(&it, &v) && v.kind == TC_SCALAR_REAL &&
	    v.d == -7.25, "scalar 2: a real");
	ok(tc_arg_scalar_next(&it, &v) && v.kind == TC_SCALAR_BOOL &&
	    v.i == 1, "scalar 3: true");
	ok(tc_arg_scalar_next(&it, &v) && v.kind == TC_SCALAR_NULL,
	    "scalar 4: null");
	ok(tc_arg_scalar_next(&it, &v) && v.kind == TC_SCALAR_BOOL &&
	    v.i == 0, "scalar 5: false");
	ok(tc_arg_scalar_next(&it, &v) && v.kind == TC_SCALAR_INT &&
	    v.i == 0, "scalar 6: -0 is the integer 0");
	ok(!tc_arg_scalar_next(&it, &v), "scalars: the end");
	ok(!tc_arg_scalar_next(&it, &v), "scalars: still the end");

	/* String maps, in the client's order. */
	is_int((long long)tc_arg_count(&c, "env"), 2, "tc_arg_count: env");
	tc_arg_map(&c, "env", &it);
	ok(tc_arg_map_next(&it, &k, &val) && strcmp(k, "B") == 0 &&
	    strcmp(val, "2") == 0, "map: B first, as sent");
	ok(tc_arg_map_next(&it, &k, &val) && strcmp(k, "A") == 0 &&
	    strcmp(val, "1") == 0, "map: then A");
	ok(!tc_arg_map_next(&it, &k, &val) && k == NULL && val == NULL,
	    "map: the end");
	is_str(tc_arg_map_get(&c, "env", "A"), "1", "tc_arg_map_get: A");
	ok(tc_arg_map_get(&c, "env", "C") == NULL, "tc_arg_map_get: absent");
	ok(tc_arg_map_get(&c, "env", "a") == NULL, "tc_arg_map_get: keys are "
	    "case-sensitive");

	/* Absent arrays and maps have nothing to walk. */
	is_int((long long)tc_arg_count(&c, "labels"), 0, "tc_arg_count: "
	    "absent");
	tc_arg_map(&c, "labels", &it);
	ok(!tc_arg_map_next(&it, &k, &val), "map: absent, no entries");
	cJSON_Delete(o);
	o = cJSON_Parse(dq("{'env':null}"));
	c.args = o;
	tc_arg_map(&c, "env", &it);
	for (n = 0; tc_arg_map_next(&it, &k, &val); n++)
		;
	is_int(n, 0, "map: null, no entries");
	ok(tc_arg_is_null(&c, "env"), "map: null is null");
	tc_arg_scalars(&c, "params", &it);
	ok(!tc_arg_scalar_next(&it, &v), "scalars: absent, no items");
	cJSON_Delete(o);
}

int
main(void)
{
	test_json_strings();
	test_args_check();
	test_args_schema();
	test_validate();
	test_elsewhere();
	test_results();
	test_result_check();
	test_result_depth();
	test_result_info();
	test_name_distance();
	test_typed_check();
	test_typed_schema();
	test_typed_validate();
	test_typed_accessors();
	return done_testing();
}
