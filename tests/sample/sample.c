/*
 * toolcell-sample: a server for the tests only, never installed, that
 * takes each extension point of struct tc_server (serve/server.h) its own
 * way, where toolcell-fs takes them for files: options of its own (-g,
 * --greeting TEXT, passed on by --print-config; --loud, which is not),
 * no operands, its own instructions, a tool offered only under a
 * condition of its own (shout, with --loud), and resources that are not
 * files (sample://greeting, read through a tool).  Its tools do no more
 * than greet.  tests/e2e/sdk/extend.test.mjs drives it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/profile.h"
#include "serve/server.h"

#define GREETING_MAX	64

/* --- Its options: set before the spawner forks, so children see them --- */

static const char *greeting = "hello";
static int loud;

/* -g, --greeting TEXT: one word of letters, at most GREETING_MAX. */
static int
set_greeting(const struct tc_option *o, const char *value, struct tc_diag *d)
{
	const char *p;

	if (value[0] == '\0' || strlen(value) > GREETING_MAX)
		return tc_diag(d, TC_EINVAL, "a greeting is 1 to %d letters",
		    GREETING_MAX);
	for (p = value; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return tc_diag(d, TC_EINVAL, "'%s' is not one word of "
			    "letters", value);
	*(const char **)o->to = value;
	return 0;
}

static const struct tc_option sample_options[] = {
	{ "greeting", 'g', "TEXT", "greet with TEXT, one word (default "
	  "hello)", set_greeting, &greeting, TC_OPTION_CARRY },
	{ "loud", 0, NULL, "offer the shout tool as well", tc_option_flag,
	  &loud, 0 },
};

/* --- Its tools, run in the confined child --- */

static const struct tc_arg name_args[] = {
	{ .name = "name", .type = TC_ARG_STRING, .flags = TC_ARG_NONEMPTY,
	  .max_len = 64, .description = "Whom to greet (default: world)." },
	{ .name = NULL }
};

static const char greeting_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"mimeType\":{\"type\":\"string\"}}}";

static int
greet(const struct tc_call *call, struct tc_result *res)
{
	const char *name = tc_arg_str(call, "name");

	return tc_result_printf(res, "%s, %s!", greeting,
	    name != NULL ? name : "world");
}

static int
shout(const struct tc_call *call, struct tc_result *res)
{
	const char *name = tc_arg_str(call, "name");

	return tc_result_printf(res, "%s, %s!!!", greeting,
	    name != NULL ? name : "world");
}

/* resources/read's tool: the greeting as a text/plain resource. */
static int
read_greeting(const struct tc_call *call, struct tc_result *res)
{
	cJSON *o;

	if (greet(call, res) != 0)
		return TC_ENOMEM;
	if ((o = tc_result_obj(res)) == NULL ||
	    cJSON_AddStringToObject(o, "mimeType", "text/plain") == NULL)
		return TC_ENOMEM;
	return 0;
}

#define RO	(TC_TOOL_READONLY | TC_TOOL_IDEMPOTENT)

/* Its tools only build text: the base list, no file rights, no root fd. */
static const struct tc_profile sample_profile = { .name = "sample" };

static const struct tc_tool sample_tools[] = {
	{ .name = "greet", .title = "Greet",
	  .description = "Greet someone with the server's greeting.",
	  .args = name_args, .output_schema = NULL, .fn = greet,
	  .profile = &sample_profile, .flags = RO },
	{ .name = "shout", .title = "Shout",
	  .description = "Greet someone loudly (offered with --loud).",
	  .args = name_args, .output_schema = NULL, .fn = shout,
	  .profile = &sample_profile, .flags = RO },
	{ .name = "read_greeting", .title = "Read greeting",
	  .description = "The greeting, for resources/read.",
	  .args = name_args, .output_schema = greeting_out,
	  .fn = read_greeting, .profile = &sample_profile,
	  .flags = RO | TC_TOOL_RESOURCE },
};

/* --- Its hooks, in the server --- */

static int
sample_instructions(const struct tc_server *srv, const struct tc_policy *pol,
    struct tc_buf *b)
{
	(void)pol;
	return tc_buf_printf(b, "%s greets with '%s'.", srv->name, greeting);
}

static int
sample_offered(const struct tc_policy *pol, const struct tc_tool *t,
    char *why, size_t len)
{
	(void)pol;
	if (strcmp(t->name, "shout") != 0 || loud)
		return 1;
	if (why != NULL)
		snprintf(why, len, "is not offered: start the server with "
		    "--loud");
	return 0;
}

/* sample://greeting, and sample://greeting/NAME for a name. */
#define URI	"sample://greeting"

static int
list_resources(const struct tc_policy *pol, cJSON *arr)
{
	cJSON *o;

	(void)pol;
	if ((o = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToArray(arr, o) ||
	    cJSON_AddStringToObject(o, "uri", URI) == NULL ||
	    cJSON_AddStringToObject(o, "name", "greeting") == NULL ||
	    cJSON_AddStringToObject(o, "mimeType", "text/plain") == NULL)
		return TC_ENOMEM;
	return 0;
}

static int
list_templates(const struct tc_policy *pol, cJSON *arr)
{
	cJSON *o;

	(void)pol;
	if ((o = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToArray(arr, o) ||
	    cJSON_AddStringToObject(o, "uriTemplate", URI "/{name}") == NULL ||
	    cJSON_AddStringToObject(o, "name", "greeting for a name") == NULL)
		return TC_ENOMEM;
	return 0;
}

static int
read_args(const struct tc_policy *pol, const char *uri, cJSON **args,
    struct tc_diag *d)
{
	(void)pol;
	*args = NULL;
	if (strncmp(uri, URI, strlen(URI)) != 0 ||
	    (uri[strlen(URI)] != '\0' && uri[strlen(URI)] != '/'))
		return tc_diag(d, TC_EINVAL, "only " URI " URIs are served");
	if ((*args = cJSON_CreateObject()) == NULL)
		return TC_ENOMEM;
	/* The name is checked as the tool's argument: an empty one is
	 * refused there, as resource not found. */
	if (uri[strlen(URI)] == '/' && cJSON_AddStringToObject(*args, "name",
	    uri + strlen(URI) + 1) == NULL)
		return TC_ENOMEM;
	return 0;
}

static const struct tc_resources sample_resources = {
	.tool = "read_greeting",
	.list = list_resources,
	.templates = list_templates,
	.read = read_args,
};

int
main(int argc, char *argv[])
{
	static const struct tc_server sample = {
		.name = "toolcell-sample",
		.title = "toolcell sample (tests only)",
		.version = TC_VERSION,
		.summary = "greet over MCP, to test how a server extends "
		    "toolcell",
		.tools = sample_tools,
		.ntools = TC_NITEMS(sample_tools),
		.options = sample_options,
		.noptions = TC_NITEMS(sample_options),
		.no_operands = "say whom to greet in the call, and how with "
		    "--greeting TEXT",
		.instructions = sample_instructions,
		.offered = sample_offered,
		.resources = &sample_resources,
	};

	return tc_server_main(&sample, argc, argv);
}
