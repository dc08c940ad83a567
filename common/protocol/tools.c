/*
 * tools.c: tool tables, the JSON Schemas derived from them, argument
 * checking before any fork, and the results handlers build and the parent
 * checks.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/log.h"
#include "base/text.h"
#include "protocol/tools.h"

/* --- Tables and schemas --- */

static int
valid_tool_name(const char *s)
{
	size_t i;

	if (s == NULL || !(s[0] >= 'a' && s[0] <= 'z'))
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return i <= 40;
}

/* The largest integer a double holds exactly, with every integer below
 * it: 2^53 - 1.  A larger one may have been rounded on its way in. */
#define EXACT_MAX	9007199254740991.0
#define EXACT_MAX_TEXT	"9007199254740991"

/* What TC_ARG_NAME_KEYS takes, as valid_name() checks it. */
#define NAME_PATTERN	"^[A-Za-z_][A-Za-z0-9_]*$"

/* Which flags each type takes; the rest would be ignored, or mean
 * nothing, and so mark a mistake in the table. */
static unsigned
flags_allowed(enum tc_arg_type t)
{
	unsigned all = TC_ARG_REQUIRED | TC_ARG_NULLABLE;

	switch (t) {
	case TC_ARG_STRING:
	case TC_ARG_STRING_ARRAY:
		return all | TC_ARG_NONEMPTY | TC_ARG_PATH;
	case TC_ARG_INT:
	case TC_ARG_BOOL:
	case TC_ARG_NUMBER:
		return all | TC_ARG_DEFAULT;
	case TC_ARG_OBJECT_ARRAY:
		return all;
	case TC_ARG_SCALAR_ARRAY:
		return all | TC_ARG_NONEMPTY;
	case TC_ARG_STRING_MAP:
		return all | TC_ARG_NONEMPTY | TC_ARG_NAME_KEYS;
	}
	return 0;
}

/* Checks the fields of the types added for numbers, scalar arrays and
 * maps: each is used only by its type, and has its caps. */
static int
validate_new_fields(const char *tool, const struct tc_arg *a,
    struct tc_diag *d)
{
	if (a->type != TC_ARG_NUMBER && (a->num_min != 0 || a->num_max != 0 ||
	    a->num_def != 0))
		return tc_diag(d, TC_EINVAL, "tool '%s': argument '%s' has a "
		    "number range but is not a number", tool, a->name);
	if (a->type != TC_ARG_STRING_MAP && a->key_max_len != 0)
		return tc_diag(d, TC_EINVAL, "tool '%s': argument '%s' has a "
		    "key cap but is not a map", tool, a->name);
	switch (a->type) {
	case TC_ARG_NUMBER:
		if (isnan(a->num_min) || isnan(a->num_max) ||
		    a->num_min > a->num_max)
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has an empty range", tool, a->name);
		if ((a->flags & TC_ARG_DEFAULT) && (!isfinite(a->num_def) ||
		    a->num_def < a->num_min || a->num_def > a->num_max))
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has a default outside its range", tool,
			    a->name);
		break;
	case TC_ARG_SCALAR_ARRAY:
	case TC_ARG_STRING_MAP:
		/* Every value from outside has a cap (STYLE 3.4): and a
		 * map's keys are checked for repeats, each against all. */
		if (a->max_len == 0)
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has no cap on its %s", tool, a->name,
			    a->type == TC_ARG_STRING_MAP ? "entries" :
			    "items");
		break;
	case TC_ARG_STRING:
	case TC_ARG_INT:
	case TC_ARG_BOOL:
	case TC_ARG_STRING_ARRAY:
	case TC_ARG_OBJECT_ARRAY:
		break;
	}
	return 0;
}

static int
validate_args(const char *tool, const struct tc_arg *a, struct tc_diag *d)
{
	for (; a->name != NULL; a++) {
		if (a->description == NULL)
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has no description", tool, a->name);
		if (flags_allowed(a->type) == 0)
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has an unknown type", tool, a->name);
		if (a->flags & ~flags_allowed(a->type))
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has a flag its type does not take", tool,
			    a->name);
		if (a->enums != NULL && a->type != TC_ARG_STRING &&
		    a->type != TC_ARG_STRING_ARRAY)
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has enums but holds no strings to pick",
			    tool, a->name);
		if ((a->items != NULL) != (a->type == TC_ARG_OBJECT_ARRAY))
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has %s", tool, a->name, a->items == NULL ?
			    "no items" : "items but is no object array");
		if (a->type == TC_ARG_OBJECT_ARRAY &&
		    validate_args(tool, a->items, d) != 0)
			return TC_EINVAL;
		if (a->type == TC_ARG_INT && a->min > a->max)
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' has an empty range", tool, a->name);
		if (validate_new_fields(tool, a, d) != 0)
			return TC_EINVAL;
	}
	return 0;
}

/* Whether the table |args| has an argument named |name|. */
static int
has_arg(const struct tc_arg *args, const char *name)
{
	for (; args->name != NULL; args++)
		if (strcmp(args->name, name) == 0)
			return 1;
	return 0;
}

/* Checks that what |t|'s refusals point to holds: each argument is one
 * |t| lacks and the tool named takes, so that the model sent there is
 * not refused again. */
static int
validate_elsewhere(const struct tc_tool *tools, size_t n,
    const struct tc_tool *t, struct tc_diag *d)
{
	const struct tc_arg_elsewhere *e;
	const struct tc_tool *o;

	for (e = t->elsewhere; e != NULL && e->name != NULL; e++) {
		if (e->tool == NULL || e->why == NULL)
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' elsewhere lacks a tool or a reason",
			    t->name, e->name);
		if (has_arg(t->args, e->name))
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' is its own, not another tool's", t->name,
			    e->name);
		if ((o = tc_tool_find(tools, n, e->tool)) == NULL ||
		    o == t || !has_arg(o->args, e->name))
			return tc_diag(d, TC_EINVAL, "tool '%s': argument "
			    "'%s' is not one tool '%s' takes", t->name,
			    e->name, e->tool);
	}
	return 0;
}

int
tc_tools_validate(const struct tc_tool *tools, size_t n, struct tc_diag *d)
{
	cJSON *s;
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct tc_tool *t = &tools[i];

		if (!valid_tool_name(t->name))
			return tc_diag(d, TC_EINVAL, "tool name '%s' is not "
			    "lowercase snake_case", t->name ? t->name : "");
		for (j = 0; j < i; j++)
			if (strcmp(tools[j].name, t->name) == 0)
				return tc_diag(d, TC_EINVAL, "tool '%s' is "
				    "declared twice", t->name);
		if (t->description == NULL || t->fn == NULL || t->args == NULL)
			return tc_diag(d, TC_EINVAL, "tool '%s' lacks a "
			    "description, handler or argument table", t->name);
		/* No schema: the tool promises no structuredContent. */
		if (t->output_schema != NULL) {
			if ((s = cJSON_Parse(t->output_schema)) == NULL)
				return tc_diag(d, TC_EINVAL, "tool '%s': "
				    "output schema is not JSON", t->name);
			j = cJSON_IsObject(s);
			cJSON_Delete(s);
			if (!j)
				return tc_diag(d, TC_EINVAL, "tool '%s': "
				    "output schema is not an object", t->name);
		}
		if (validate_args(t->name, t->args, d) != 0)
			return TC_EINVAL;
		if (validate_elsewhere(tools, n, t, d) != 0)
			return TC_EINVAL;
	}
	/* An alias is the same tool under another name: what runs, and
	 * with what, must be the same, or a rule on one name would not
	 * hold for the other. */
	for (i = 0; i < n; i++) {
		const struct tc_tool *t = &tools[i], *c;

		if (!(t->flags & TC_TOOL_ALIAS))
			continue;
		if (i == 0 || ((c = &tools[i - 1])->flags & TC_TOOL_ALIAS))
			return tc_diag(d, TC_EINVAL, "tool '%s': an alias, but "
			    "of no tool of its own", t->name);
		if (c->fn != t->fn || c->args != t->args ||
		    c->elsewhere != t->elsewhere ||
		    c->profile != t->profile ||
		    c->flags != (t->flags & ~(unsigned)TC_TOOL_ALIAS))
			return tc_diag(d, TC_EINVAL, "tool '%s': an alias of "
			    "'%s' with another handler, arguments, profile "
			    "or flags", t->name, c->name);
	}
	return 0;
}

const struct tc_tool *
tc_tool_find(const struct tc_tool *tools, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/*
 * The optimal string alignment distance, row by row: d[i][j] is the
 * distance between the first i bytes of |a| and the first j of |b|; only
 * the last three rows are kept.
 */
size_t
tc_name_distance(const char *given, const char *name)
{
	size_t rows[3][TC_NAME_GUESS_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
	size_t n = strlen(given), m = strlen(name), i, j, v, cost, limit;

	if (n == 0 || n > TC_NAME_GUESS_MAX || m > TC_NAME_GUESS_MAX)
		return SIZE_MAX;
	limit = n / 4 < 3 ? n / 4 : 3;
	for (j = 0; j <= m; j++)
		prev[j] = j;
	for (i = 1; i <= n; i++) {
		cur[0] = i;
		for (j = 1; j <= m; j++) {
			cost = lower((unsigned char)given[i - 1]) !=
			    lower((unsigned char)name[j - 1]);
			v = prev[j - 1] + cost;
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && cost &&
			    lower((unsigned char)given[i - 1]) ==
			    lower((unsigned char)name[j - 2]) &&
			    lower((unsigned char)given[i - 2]) ==
			    lower((unsigned char)name[j - 1]) &&
			    prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m] <= limit ? prev[m] : SIZE_MAX;
}

const char *
tc_tool_alias_of(const struct tc_tool *t)
{
	/* The entry before it: tc_tools_validate() saw that there is one,
	 * and that it is a tool of its own. */
	return (t->flags & TC_TOOL_ALIAS) ? t[-1].name : NULL;
}

const char *
tc_tool_policy_name(const struct tc_tool *t)
{
	return (t->flags & TC_TOOL_ALIAS) ? t[-1].name : t->name;
}

/* Adds "enum" with |a|'s values to |s|. */
static void
add_enums(cJSON *s, const struct tc_arg *a)
{
	cJSON *e;
	size_t i;

	if (a->enums == NULL || (e = cJSON_AddArrayToObject(s, "enum")) ==
	    NULL)
		return;
	for (i = 0; a->enums[i] != NULL; i++)
		cJSON_AddItemToArray(e, cJSON_CreateString(a->enums[i]));
}

/* Returns {"type":"string"} with |a|'s length caps, |max| bytes at most
 * (0: none), as check_string() applies them. */
static cJSON *
string_schema(const struct tc_arg *a, size_t max)
{
	cJSON *s;

	if ((s = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(s, "type", "string");
	if (a->flags & TC_ARG_NONEMPTY)
		cJSON_AddNumberToObject(s, "minLength", 1);
	/* maxLength counts characters, the check counts bytes; a byte
	 * limit is the tighter, so it is what is declared. */
	if (max > 0)
		cJSON_AddNumberToObject(s, "maxLength", (double)max);
	add_enums(s, a);
	return s;
}

/* Returns a new {"type":|type|}, or NULL. */
static cJSON *
typed(const char *type)
{
	cJSON *s = cJSON_CreateObject();

	if (s != NULL)
		cJSON_AddStringToObject(s, "type", type);
	return s;
}

/* The items of a scalar array: an "anyOf" of one typed branch per kind,
 * alone in its object (see tools.h for why this form). */
static cJSON *
scalar_items(const struct tc_arg *a)
{
	cJSON *s, *any, *num;

	if ((s = cJSON_CreateObject()) == NULL)
		return NULL;
	any = cJSON_AddArrayToObject(s, "anyOf");
	cJSON_AddItemToArray(any, string_schema(a, a->item_max_len));
	/* As text: cJSON prints a double of 16 digits with 15. */
	if ((num = typed("number")) != NULL) {
		cJSON_AddRawToObject(num, "minimum", "-" EXACT_MAX_TEXT);
		cJSON_AddRawToObject(num, "maximum", EXACT_MAX_TEXT);
	}
	cJSON_AddItemToArray(any, num);
	cJSON_AddItemToArray(any, typed("boolean"));
	cJSON_AddItemToArray(any, typed("null"));
	return s;
}

/* The keys of a string map, as check_map() takes them. */
static cJSON *
key_schema(const struct tc_arg *a)
{
	cJSON *s;

	if ((s = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddNumberToObject(s, "minLength", 1);
	if (a->key_max_len > 0)
		cJSON_AddNumberToObject(s, "maxLength", (double)a->key_max_len);
	if (a->flags & TC_ARG_NAME_KEYS)
		cJSON_AddStringToObject(s, "pattern", NAME_PATTERN);
	return s;
}

static cJSON *
arg_schema(const struct tc_arg *a)
{
	cJSON *s, *it;

	s = a->type == TC_ARG_STRING ? string_schema(a, a->max_len) :
	    cJSON_CreateObject();
	if (s == NULL)
		return NULL;
	switch (a->type) {
	case TC_ARG_STRING:
		break;
	case TC_ARG_INT:
		cJSON_AddStringToObject(s, "type", "integer");
		cJSON_AddNumberToObject(s, "minimum", (double)a->min);
		if (a->max < (1LL << 53))
			cJSON_AddNumberToObject(s, "maximum", (double)a->max);
		if (a->flags & TC_ARG_DEFAULT)
			cJSON_AddNumberToObject(s, "default", (double)a->def);
		break;
	case TC_ARG_BOOL:
		cJSON_AddStringToObject(s, "type", "boolean");
		if (a->flags & TC_ARG_DEFAULT)
			cJSON_AddBoolToObject(s, "default", a->def != 0);
		break;
	case TC_ARG_STRING_ARRAY:
	case TC_ARG_OBJECT_ARRAY:
		cJSON_AddStringToObject(s, "type", "array");
		/* A string array's items declare their cap alone, as
		 * toolcell-fs's tools/list has always shown them. */
		it = a->type == TC_ARG_OBJECT_ARRAY ? tc_args_schema(a->items) :
		    typed("string");
		if (a->type == TC_ARG_STRING_ARRAY && it != NULL &&
		    a->item_max_len > 0)
			cJSON_AddNumberToObject(it, "maxLength",
			    (double)a->item_max_len);
		cJSON_AddItemToObject(s, "items", it);
		if (a->max_len > 0)
			cJSON_AddNumberToObject(s, "maxItems",
			    (double)a->max_len);
		break;
	case TC_ARG_NUMBER:
		cJSON_AddStringToObject(s, "type", "number");
		if (isfinite(a->num_min))
			cJSON_AddNumberToObject(s, "minimum", a->num_min);
		if (isfinite(a->num_max))
			cJSON_AddNumberToObject(s, "maximum", a->num_max);
		if (a->flags & TC_ARG_DEFAULT)
			cJSON_AddNumberToObject(s, "default", a->num_def);
		break;
	case TC_ARG_SCALAR_ARRAY:
		cJSON_AddStringToObject(s, "type", "array");
		cJSON_AddItemToObject(s, "items", scalar_items(a));
		cJSON_AddNumberToObject(s, "maxItems", (double)a->max_len);
		break;
	case TC_ARG_STRING_MAP:
		cJSON_AddStringToObject(s, "type", "object");
		cJSON_AddNumberToObject(s, "maxProperties", (double)a->max_len);
		cJSON_AddItemToObject(s, "propertyNames", key_schema(a));
		cJSON_AddItemToObject(s, "additionalProperties",
		    string_schema(a, a->item_max_len));
		break;
	}
	if (a->flags & TC_ARG_NULLABLE)
		cJSON_AddTrueToObject(s, "nullable");
	cJSON_AddStringToObject(s, "description", a->description);
	return s;
}

cJSON *
tc_args_schema(const struct tc_arg *args)
{
	cJSON *s, *props, *req;
	const struct tc_arg *a;

	if ((s = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	req = cJSON_CreateArray();
	for (a = args; a->name != NULL; a++) {
		cJSON_AddItemToObject(props, a->name, arg_schema(a));
		if (a->flags & TC_ARG_REQUIRED)
			cJSON_AddItemToArray(req, cJSON_CreateString(a->name));
	}
	if (cJSON_GetArraySize(req) > 0)
		cJSON_AddItemToObject(s, "required", req);
	else
		cJSON_Delete(req);
	cJSON_AddFalseToObject(s, "additionalProperties");
	return s;
}

cJSON *
tc_tool_describe(const struct tc_tool *t)
{
	cJSON *o, *an;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "name", t->name);
	if (t->title != NULL)
		cJSON_AddStringToObject(o, "title", t->title);
	cJSON_AddStringToObject(o, "description", t->description);
	cJSON_AddItemToObject(o, "inputSchema", tc_args_schema(t->args));
	if (t->output_schema != NULL)
		cJSON_AddItemToObject(o, "outputSchema",
		    cJSON_Parse(t->output_schema));
	an = cJSON_AddObjectToObject(o, "annotations");
	if (t->title != NULL)
		cJSON_AddStringToObject(an, "title", t->title);
	cJSON_AddBoolToObject(an, "readOnlyHint",
	    (t->flags & TC_TOOL_READONLY) != 0);
	if (!(t->flags & TC_TOOL_READONLY)) {
		cJSON_AddBoolToObject(an, "destructiveHint",
		    (t->flags & TC_TOOL_DESTRUCTIVE) != 0);
		cJSON_AddBoolToObject(an, "idempotentHint",
		    (t->flags & TC_TOOL_IDEMPOTENT) != 0);
	} else
		cJSON_AddBoolToObject(an, "idempotentHint", 1);
	cJSON_AddBoolToObject(an, "openWorldHint",
	    (t->flags & TC_TOOL_OPEN_WORLD) != 0);
	return o;
}

/* --- Argument checking --- */

static const char *
json_type(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "an unknown value";
}

static int
check_string(const char *where, const struct tc_arg *a, const char *s,
    size_t max, struct tc_diag *d)
{
	size_t n = strlen(s), i;

	if (max > 0 && n > max)
		return tc_diag(d, TC_EINVAL, "%s: longer than %zu bytes",
		    where, max);
	if ((a->flags & TC_ARG_NONEMPTY) && n == 0)
		return tc_diag(d, TC_EINVAL, "%s: must not be empty", where);
	if (a->enums != NULL) {
		char list[160];
		size_t used = 0;

		for (i = 0; a->enums[i] != NULL; i++)
			if (strcmp(a->enums[i], s) == 0)
				return 0;
		list[0] = '\0';
		for (i = 0; a->enums[i] != NULL && used < sizeof(list) - 1;
		    i++)
			used += tc_text_fmt(list + used, sizeof(list) - used,
			    "%s'%s'", i ? ", " : "", a->enums[i]);
		return tc_diag(d, TC_EINVAL, "%s: must be one of %s", where,
		    list);
	}
	return 0;
}

/* Where the refusal of an unknown argument of a tool (not of an item of
 * one) may point the model: tc_tool_args_check()'s arguments. */
struct elsewhere {
	const struct tc_arg_elsewhere *list;
	int	(*offered)(const void *, const char *);
	const void *ctx;
};

static int	check_object(const char *where, const struct tc_arg *args,
		    const struct elsewhere *ew, const cJSON *obj,
		    struct tc_diag *d);

/* Returns 1 if |s| matches NAME_PATTERN. */
static int
valid_name(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= 'a' && s[i] <= 'z') || s[i] == '_' ||
		    (i > 0 && s[i] >= '0' && s[i] <= '9')))
			return 0;
	return i > 0;
}

static int
check_number(const char *where, const struct tc_arg *a, const cJSON *v,
    struct tc_diag *d)
{
	char lo[TC_JSON_NUMBER_MAX], hi[TC_JSON_NUMBER_MAX];
	double x;

	if (!cJSON_IsNumber(v))
		return tc_diag(d, TC_EINVAL, "%s: expected a number, got %s",
		    where, json_type(v));
	/* JSON has no infinity, but 1e400 reads as one. */
	if (!isfinite(x = v->valuedouble))
		return tc_diag(d, TC_EINVAL, "%s: expected a finite number",
		    where);
	if (x >= a->num_min && x <= a->num_max)
		return 0;
	tc_json_number(lo, a->num_min);
	tc_json_number(hi, a->num_max);
	if (!isfinite(a->num_max))
		return tc_diag(d, TC_EINVAL, "%s: must be at least %s", where,
		    lo);
	if (!isfinite(a->num_min))
		return tc_diag(d, TC_EINVAL, "%s: must be at most %s", where,
		    hi);
	return tc_diag(d, TC_EINVAL, "%s: must be between %s and %s", where,
	    lo, hi);
}

/* An item of a scalar array: a string, a number held exactly, a boolean
 * or null. */
static int
check_scalar(const char *where, const struct tc_arg *a, const cJSON *v,
    struct tc_diag *d)
{
	char num[TC_JSON_NUMBER_MAX];

	if (cJSON_IsString(v))
		return check_string(where, a, v->valuestring, a->item_max_len,
		    d);
	if (cJSON_IsBool(v) || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v))
		return tc_diag(d, TC_EINVAL, "%s: expected a string, number, "
		    "boolean or null, got %s", where, json_type(v));
	if (!isfinite(v->valuedouble))
		return tc_diag(d, TC_EINVAL, "%s: expected a finite number",
		    where);
	/* Past 2^53 - 1 a double skips integers: 9007199254740993 arrives
	 * as ...992, and a query would run with another value than the
	 * model wrote.  Refused, so that it is sent as a string. */
	if (fabs(v->valuedouble) > EXACT_MAX)
		return tc_diag(d, TC_EINVAL, "%s: %s is too large to be held "
		    "exactly (more than 2^53 - 1); send it as a string",
		    where, tc_json_number(num, v->valuedouble));
	return 0;
}

static int
check_map(const char *where, const struct tc_arg *a, const cJSON *v,
    struct tc_diag *d)
{
	const cJSON *e;
	char key[48], sub[160];
	size_t n;

	if (!cJSON_IsObject(v))
		return tc_diag(d, TC_EINVAL, "%s: expected an object, got %s",
		    where, json_type(v));
	if ((size_t)cJSON_GetArraySize(v) > a->max_len)
		return tc_diag(d, TC_EINVAL, "%s: more than %zu entries",
		    where, a->max_len);
	cJSON_ArrayForEach(e, v) {
		/* The key is the client's: cut, on a character boundary. */
		tc_text_fmt(key, sizeof(key), "%s", e->string);
		n = strlen(e->string);
		if (n == 0)
			return tc_diag(d, TC_EINVAL, "%s: a key must not be "
			    "empty", where);
		if (a->key_max_len > 0 && n > a->key_max_len)
			return tc_diag(d, TC_EINVAL, "%s: key '%s': longer "
			    "than %zu bytes", where, key, a->key_max_len);
		if ((a->flags & TC_ARG_NAME_KEYS) && !valid_name(e->string))
			return tc_diag(d, TC_EINVAL, "%s: key '%s': not a name "
			    "(letters, digits and '_', not starting with a "
			    "digit)", where, key);
		/* A repeated key would be read once by the handler and
		 * another time by a later reader: refuse it. */
		if (cJSON_GetObjectItemCaseSensitive(v, e->string) != e)
			return tc_diag(d, TC_EINVAL, "%s: key '%s' given twice",
			    where, key);
		tc_text_fmt(sub, sizeof(sub), "%s: value of '%s'", where, key);
		if (!cJSON_IsString(e))
			return tc_diag(d, TC_EINVAL, "%s: expected a string, "
			    "got %s", sub, json_type(e));
		if (check_string(sub, a, e->valuestring, a->item_max_len,
		    d) != 0)
			return TC_EINVAL;
	}
	return 0;
}

static int
check_value(const char *where, const struct tc_arg *a, const cJSON *v,
    struct tc_diag *d)
{
	char sub[160];
	const cJSON *it;
	double x;
	int i = 0;

	if (cJSON_IsNull(v) && (a->flags & TC_ARG_NULLABLE))
		return 0;
	switch (a->type) {
	case TC_ARG_STRING:
		if (!cJSON_IsString(v))
			return tc_diag(d, TC_EINVAL, "%s: expected a string, "
			    "got %s", where, json_type(v));
		return check_string(where, a, v->valuestring, a->max_len, d);
	case TC_ARG_INT:
		if (!cJSON_IsNumber(v))
			return tc_diag(d, TC_EINVAL, "%s: expected an integer, "
			    "got %s", where, json_type(v));
		x = v->valuedouble;
		if (!isfinite(x) || x != floor(x))
			return tc_diag(d, TC_EINVAL, "%s: expected an integer, "
			    "got %g", where, x);
		/* (double)LLONG_MAX rounds up to 2^63, which no long long
		 * holds: compare against the powers of two themselves. */
		if (x >= 0x1p63 || x < -0x1p63 ||
		    x < (double)a->min || x > (double)a->max)
			return tc_diag(d, TC_EINVAL, "%s: must be between "
			    "%lld and %lld", where, a->min, a->max);
		return 0;
	case TC_ARG_BOOL:
		if (!cJSON_IsBool(v))
			return tc_diag(d, TC_EINVAL, "%s: expected a boolean, "
			    "got %s", where, json_type(v));
		return 0;
	case TC_ARG_STRING_ARRAY:
	case TC_ARG_OBJECT_ARRAY:
		if (!cJSON_IsArray(v))
			return tc_diag(d, TC_EINVAL, "%s: expected an array, "
			    "got %s", where, json_type(v));
		if (a->max_len > 0 &&
		    (size_t)cJSON_GetArraySize(v) > a->max_len)
			return tc_diag(d, TC_EINVAL, "%s: more than %zu items",
			    where, a->max_len);
		cJSON_ArrayForEach(it, v) {
			tc_text_fmt(sub, sizeof(sub), "%s[%d]", where, i++);
			if (a->type == TC_ARG_OBJECT_ARRAY) {
				if (check_object(sub, a->items, NULL, it,
				    d) != 0)
					return TC_EINVAL;
			} else if (!cJSON_IsString(it)) {
				return tc_diag(d, TC_EINVAL, "%s: expected a "
				    "string, got %s", sub, json_type(it));
			} else if (check_string(sub, a, it->valuestring,
			    a->item_max_len, d) != 0)
				return TC_EINVAL;
		}
		return 0;
	case TC_ARG_NUMBER:
		return check_number(where, a, v, d);
	case TC_ARG_SCALAR_ARRAY:
		if (!cJSON_IsArray(v))
			return tc_diag(d, TC_EINVAL, "%s: expected an array, "
			    "got %s", where, json_type(v));
		if ((size_t)cJSON_GetArraySize(v) > a->max_len)
			return tc_diag(d, TC_EINVAL, "%s: more than %zu items",
			    where, a->max_len);
		cJSON_ArrayForEach(it, v) {
			tc_text_fmt(sub, sizeof(sub), "%s[%d]", where, i++);
			if (check_scalar(sub, a, it, d) != 0)
				return TC_EINVAL;
		}
		return 0;
	case TC_ARG_STRING_MAP:
		return check_map(where, a, v, d);
	}
	return tc_diag(d, TC_EINVAL, "%s: unknown type", where);
}

/* Returns the first entry of |ew| for the argument |given| whose tool is
 * offered, or NULL. */
static const struct tc_arg_elsewhere *
find_elsewhere(const struct elsewhere *ew, const char *given)
{
	const struct tc_arg_elsewhere *e;

	if (ew == NULL || ew->list == NULL)
		return NULL;
	for (e = ew->list; e->name != NULL; e++)
		if (strcmp(e->name, given) == 0 && (ew->offered == NULL ||
		    ew->offered(ew->ctx, e->tool)))
			return e;
	return NULL;
}

/*
 * Refuses the argument |given|, which |args| lacks, naming those it has
 * and either the tool that takes it, when |ew| names one, or the one
 * meant if |given| looks like a misspelling of it.
 */
static int
unknown_arg(const char *where, const struct tc_arg *args,
    const struct elsewhere *ew, const char *given, struct tc_diag *d)
{
	const struct tc_arg *a, *best = NULL;
	const struct tc_arg_elsewhere *e;
	const char *who = *where ? "an item" : "the tool";
	char name[44], known[200], note[200] = "";
	size_t n = 0, dist, bestd = SIZE_MAX;

	for (a = args; a->name != NULL; a++) {
		if (n < sizeof(known))
			n += (size_t)snprintf(known + n, sizeof(known) - n,
			    "%s%s", n > 0 ? ", " : "", a->name);
		if ((dist = tc_name_distance(given, a->name)) < bestd) {
			bestd = dist;
			best = a;
		}
	}
	/* The name is the client's: cut, on a character boundary. */
	tc_text_fmt(name, sizeof(name), "%s", given);
	/* A name another tool takes is no misspelling: say whose it is. */
	if ((e = find_elsewhere(ew, given)) != NULL)
		tc_text_fmt(note, sizeof(note), " (%s; %s takes '%s')",
		    e->why, e->tool, e->name);
	else if (best != NULL)
		tc_text_fmt(note, sizeof(note), " (did you mean '%s'?)",
		    best->name);
	if (args->name == NULL)
		return tc_diag(d, TC_EINVAL, "%s%sunknown argument '%s'%s; %s "
		    "takes no arguments", where, *where ? ": " : "", name,
		    note, who);
	return tc_diag(d, TC_EINVAL, "%s%sunknown argument '%s'%s; %s "
	    "takes: %s", where, *where ? ": " : "", name, note, who, known);
}

static int
check_object(const char *where, const struct tc_arg *args,
    const struct elsewhere *ew, const cJSON *obj, struct tc_diag *d)
{
	const struct tc_arg *a;
	const cJSON *v;
	char sub[160];

	if (!cJSON_IsObject(obj))
		return tc_diag(d, TC_EINVAL, "%s: expected an object, got %s",
		    where, json_type(obj));
	cJSON_ArrayForEach(v, obj) {
		for (a = args; a->name != NULL; a++)
			if (strcmp(a->name, v->string) == 0)
				break;
		if (a->name == NULL)
			return unknown_arg(where, args, ew, v->string, d);
		/* A duplicate member would be seen twice by a later reader
		 * and once here: refuse it. */
		if (cJSON_GetObjectItemCaseSensitive(obj, v->string) != v)
			return tc_diag(d, TC_EINVAL, "%s%sargument '%s' given "
			    "twice", where, *where ? ": " : "", a->name);
	}
	for (a = args; a->name != NULL; a++) {
		if (*where == '\0')
			tc_text_fmt(sub, sizeof(sub), "argument '%s'",
			    a->name);
		else
			tc_text_fmt(sub, sizeof(sub), "%s.%s", where,
			    a->name);
		v = cJSON_GetObjectItemCaseSensitive(obj, a->name);
		if (v == NULL) {
			if (a->flags & TC_ARG_REQUIRED)
				return tc_diag(d, TC_EINVAL, "%s is required",
				    sub);
			continue;
		}
		if (check_value(sub, a, v, d) != 0)
			return TC_EINVAL;
	}
	return 0;
}

int
tc_args_check(const struct tc_arg *args, const cJSON *obj, struct tc_diag *d)
{
	if (!cJSON_IsObject(obj))
		return tc_diag(d, TC_EINVAL, "arguments: expected an object, "
		    "got %s", json_type(obj));
	return check_object("", args, NULL, obj, d);
}

int
tc_tool_args_check(const struct tc_tool *t, const cJSON *obj,
    int (*offered)(const void *ctx, const char *tool), const void *ctx,
    struct tc_diag *d)
{
	struct elsewhere ew = { t->elsewhere, offered, ctx };

	if (!cJSON_IsObject(obj))
		return tc_diag(d, TC_EINVAL, "arguments: expected an object, "
		    "got %s", json_type(obj));
	return check_object("", t->args, &ew, obj, d);
}

const cJSON *
tc_arg_json(const struct tc_call *c, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(c->args, name);
}

int
tc_arg_has(const struct tc_call *c, const char *name)
{
	return tc_arg_json(c, name) != NULL;
}

const char *
tc_arg_str(const struct tc_call *c, const char *name)
{
	const cJSON *v = tc_arg_json(c, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const struct tc_arg *
find_arg(const struct tc_call *c, const char *name)
{
	const struct tc_arg *a;

	for (a = c->tool->args; a->name != NULL; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	TC_BUG("tool '%s' has no argument '%s'", c->tool->name, name);
}

long long
tc_arg_int(const struct tc_call *c, const char *name, long long def)
{
	const cJSON *v = tc_arg_json(c, name);
	const struct tc_arg *a = find_arg(c, name);

	if (cJSON_IsNumber(v))
		return (long long)v->valuedouble;
	return (a->flags & TC_ARG_DEFAULT) ? a->def : def;
}

int
tc_arg_bool(const struct tc_call *c, const char *name, int def)
{
	const cJSON *v = tc_arg_json(c, name);
	const struct tc_arg *a = find_arg(c, name);

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	return (a->flags & TC_ARG_DEFAULT) ? a->def != 0 : def;
}

/* Returns the entry of |name|, which must be of |type|. */
static const struct tc_arg *
typed_arg(const struct tc_call *c, const char *name, enum tc_arg_type type)
{
	const struct tc_arg *a = find_arg(c, name);

	if (a->type != type)
		TC_BUG("tool '%s': argument '%s' read as another type",
		    c->tool->name, name);
	return a;
}

int
tc_arg_is_null(const struct tc_call *c, const char *name)
{
	(void)find_arg(c, name);
	return cJSON_IsNull(tc_arg_json(c, name));
}

double
tc_arg_num(const struct tc_call *c, const char *name, double def)
{
	const cJSON *v = tc_arg_json(c, name);
	const struct tc_arg *a = typed_arg(c, name, TC_ARG_NUMBER);

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	return (a->flags & TC_ARG_DEFAULT) ? a->num_def : def;
}

size_t
tc_arg_count(const struct tc_call *c, const char *name)
{
	const cJSON *v = tc_arg_json(c, name);

	(void)find_arg(c, name);
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return 0;
	return (size_t)cJSON_GetArraySize(v);
}

void
tc_arg_scalars(const struct tc_call *c, const char *name,
    struct tc_arg_iter *it)
{
	const cJSON *v = tc_arg_json(c, name);

	(void)typed_arg(c, name, TC_ARG_SCALAR_ARRAY);
	it->next = cJSON_IsArray(v) ? v->child : NULL;
}

int
tc_arg_scalar_next(struct tc_arg_iter *it, struct tc_scalar *v)
{
	const cJSON *e = it->next;

	memset(v, 0, sizeof(*v));
	if (e == NULL)
		return 0;
	it->next = e->next;
	if (cJSON_IsString(e)) {
		v->kind = TC_SCALAR_STRING;
		v->s = e->valuestring;
		v->len = strlen(e->valuestring);
	} else if (cJSON_IsBool(e)) {
		v->kind = TC_SCALAR_BOOL;
		v->i = cJSON_IsTrue(e);
	} else if (cJSON_IsNumber(e)) {
		/* Checked: finite, and an integer here is exact. */
		v->d = e->valuedouble;
		v->kind = v->d == floor(v->d) ? TC_SCALAR_INT : TC_SCALAR_REAL;
		if (v->kind == TC_SCALAR_INT)
			v->i = (long long)v->d;
	} else
		v->kind = TC_SCALAR_NULL;
	return 1;
}

void
tc_arg_map(const struct tc_call *c, const char *name, struct tc_arg_iter *it)
{
	const cJSON *v = tc_arg_json(c, name);

	(void)typed_arg(c, name, TC_ARG_STRING_MAP);
	it->next = cJSON_IsObject(v) ? v->child : NULL;
}

int
tc_arg_map_next(struct tc_arg_iter *it, const char **key, const char **value)
{
	const cJSON *e = it->next;

	*key = *value = NULL;
	if (e == NULL)
		return 0;
	it->next = e->next;
	*key = e->string;
	*value = e->valuestring;
	return 1;
}

const char *
tc_arg_map_get(const struct tc_call *c, const char *name, const char *key)
{
	const cJSON *v = tc_arg_json(c, name);

	(void)typed_arg(c, name, TC_ARG_STRING_MAP);
	v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, key) :
	    NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* --- Results --- */

void
tc_result_init(struct tc_result *r)
{
	tc_buf_init(&r->text, TC_RESULT_TEXT_MAX);
	r->structured = NULL;
	r->content = NULL;
	r->is_error = 0;
	r->failed = 0;
}

void
tc_result_release(struct tc_result *r)
{
	tc_buf_release(&r->text);
	cJSON_Delete(r->structured);
	cJSON_Delete(r->content);
	tc_result_init(r);
}

int
tc_result_printf(struct tc_result *r, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return r->failed = TC_EINVAL;
	if ((size_t)n >= sizeof(small)) {
		if ((big = malloc((size_t)n + 1)) == NULL)
			return r->failed = TC_ENOMEM;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	rc = tc_buf_append_utf8(&r->text, big ? big : small, (size_t)n);
	free(big);
	if (rc != 0)
		r->failed = rc;
	return rc;
}

int
tc_result_text(struct tc_result *r, const void *p, size_t n)
{
	int rc;

	if ((rc = tc_buf_append_utf8(&r->text, p, n)) != 0)
		r->failed = rc;
	return rc;
}

int
tc_result_shown(struct tc_result *r, const char *s)
{
	int rc;

	if ((rc = tc_buf_append_shown(&r->text, s, strlen(s), 0)) != 0)
		r->failed = rc;
	return rc;
}

int
tc_result_error(struct tc_result *r, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	tc_text_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tc_buf_reset(&r->text);
	cJSON_Delete(r->structured);
	r->structured = NULL;
	r->is_error = 1;
	r->failed = 0;
	/* An error names what the model gave (a path, a pattern): shown
	 * escaped, so that it cannot pose as more lines or read backwards.
	 * The text's cap is far above msg's size, escaped six times over. */
	(void)tc_buf_append_shown(&r->text, msg, strlen(msg), 0);
	return 0;
}

cJSON *
tc_result_obj(struct tc_result *r)
{
	if (r->structured == NULL)
		r->structured = cJSON_CreateObject();
	return r->structured;
}

/* About how many bytes |v| takes as JSON: enough to size a buffer once. */
static size_t
json_size(const cJSON *v)
{
	const cJSON *it;
	size_t n = 8;

	if (cJSON_IsRaw(v) || cJSON_IsString(v))
		n += strlen(v->valuestring);
	else if (cJSON_IsNumber(v))
		n += 16;
	for (it = v->child; it != NULL; it = it->next)
		n += json_size(it) + (it->string ? strlen(it->string) : 0);
	return n;
}

int
tc_result_serialize(const struct tc_result *r, struct tc_buf *b)
{
	const cJSON *it;
	const char *text = r->text.data != NULL ? r->text.data : "";
	size_t want = r->text.len + r->text.len / 8 + 64;
	int rc;

	/* One pass into one buffer, sized once: the text is escaped
	 * straight from the handler's buffer, and nothing is copied into a
	 * tree first. */
	if (r->content != NULL)
		want += json_size(r->content);
	if (r->structured != NULL && !r->is_error)
		want += json_size(r->structured);
	if ((rc = tc_buf_reserve(b, want)) ||
	    (rc = tc_buf_append_str(b, "{\"content\":[{\"type\":\"text\","
	    "\"text\":")) != 0 ||
	    (rc = tc_json_put_string(b, text, r->text.len)) != 0 ||
	    (rc = tc_buf_append(b, "}", 1)) != 0)
		return rc;
	if (r->content != NULL)
		cJSON_ArrayForEach(it, r->content)
			if ((rc = tc_buf_append(b, ",", 1)) != 0 ||
			    (rc = tc_json_put(b, it)) != 0)
				return rc;
	if ((rc = tc_buf_append(b, "]", 1)) != 0)
		return rc;
	if (!r->is_error && r->structured != NULL &&
	    ((rc = tc_buf_append_str(b, ",\"structuredContent\":")) != 0 ||
	    (rc = tc_json_put(b, r->structured)) != 0))
		return rc;
	if (r->is_error && (rc = tc_buf_append_str(b, ",\"isError\":true")))
		return rc;
	return tc_buf_append(b, "}", 1);
}

char *
tc_result_error_text(const char *msg)
{
	struct tc_result r;
	struct tc_buf b;

	tc_result_init(&r);
	tc_result_error(&r, "%s", msg);
	tc_buf_init(&b, TC_RESULT_TEXT_MAX);
	if (tc_result_serialize(&r, &b) != 0)
		tc_buf_release(&b);
	tc_result_release(&r);
	return b.data;
}

/* --- Checking what a child sent --- */

/*
 * The members of one object, each allowed once: |keys| names them, and
 * their values land in |v| by position.  Returns the end of the object,
 * or NULL (with *|bad| set to TC_EBADJSON for text that is not JSON, or
 * TC_EINVAL for an unknown or repeated member).
 */
static const char *
members(const char *p, const char *e, int depth, const char *const *keys,
    struct tc_json_span *v, int *bad)
{
	struct tc_json_span m;
	size_t i;
	int r;

	for (i = 0; keys[i] != NULL; i++)
		v[i].val = NULL;
	*bad = TC_EBADJSON;
	if (p >= e || *p != '{')
		return *bad = TC_EINVAL, NULL;
	while ((r = tc_json_member(&p, e, depth, &m)) == 1) {
		for (i = 0; keys[i] != NULL; i++)
			if (tc_json_key_is(&m, keys[i]))
				break;
		if (keys[i] == NULL || v[i].val != NULL)
			return *bad = TC_EINVAL, NULL;
		v[i] = m;
	}
	return r == 0 ? p : NULL;
}

static int
is_string(const struct tc_json_span *v)
{
	return v->val != NULL && v->val[0] == '"';
}

static int
string_is(const struct tc_json_span *v, const char *s)
{
	size_t n = strlen(s);

	return is_string(v) && v->vallen == n + 2 &&
	    memcmp(v->val + 1, s, n) == 0;
}

/* A string of base64, which JSON never needs to escape. */
static int
is_base64(const struct tc_json_span *v)
{
	size_t n, i;

	if (!is_string(v))
		return 0;
	n = v->vallen - 2;
	if (n % 4 != 0)
		return 0;
	for (i = 0; i < n; i++) {
		char c = v->val[1 + i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '+' || c == '/' ||
		    (c == '=' && i >= n - 2)))
			return 0;
	}
	return 1;
}

/* Checks the content item at |p|; returns its end, or NULL (*|bad|). */
static const char *
check_item(const char *p, const char *e, int *bad, struct tc_diag *d)
{
	enum { TYPE, TEXT, DATA, MIME, RES };
	static const char *const keys[] = { "type", "text", "data",
	    "mimeType", "resource", NULL };
	enum { URI, RMIME, BLOB, RTEXT };
	static const char *const body_keys[] = { "uri", "mimeType", "blob",
	    "text", NULL };
	struct tc_json_span v[5], b[4];
	const char *end;

	if ((end = members(p, e, 2, keys, v, bad)) == NULL) {
		tc_diag(d, *bad, *bad == TC_EINVAL ? "malformed content "
		    "item" : "result is not JSON");
		return NULL;
	}
	*bad = TC_EINVAL;
	if (!is_string(&v[TYPE]))
		return tc_diag(d, TC_EINVAL, "content item without a type"),
		    NULL;
	if (string_is(&v[TYPE], "text")) {
		if (!is_string(&v[TEXT]) || v[DATA].val || v[MIME].val ||
		    v[RES].val)
			return tc_diag(d, TC_EINVAL, "malformed text item"),
			    NULL;
		return end;
	}
	if (string_is(&v[TYPE], "image") || string_is(&v[TYPE], "audio")) {
		if (!is_base64(&v[DATA]) || !is_string(&v[MIME]) ||
		    v[TEXT].val || v[RES].val)
			return tc_diag(d, TC_EINVAL, "malformed %.*s item",
			    (int)v[TYPE].vallen - 2, v[TYPE].val + 1), NULL;
		return end;
	}
	/* An embedded resource (read_media_file's other files): a blob or
	 * a text, under a URI. */
	if (string_is(&v[TYPE], "resource")) {
		if (v[TEXT].val || v[DATA].val || v[MIME].val ||
		    v[RES].val == NULL || members(v[RES].val, v[RES].val +
		    v[RES].vallen, 3, body_keys, b, bad) == NULL ||
		    !is_string(&b[URI]) ||
		    (b[RMIME].val != NULL && !is_string(&b[RMIME])) ||
		    (b[BLOB].val != NULL) == (b[RTEXT].val != NULL) ||
		    (b[BLOB].val != NULL && !is_base64(&b[BLOB])) ||
		    (b[RTEXT].val != NULL && !is_string(&b[RTEXT]))) {
			*bad = TC_EINVAL;
			return tc_diag(d, TC_EINVAL, "malformed resource "
			    "item"), NULL;
		}
		return end;
	}
	return tc_diag(d, TC_EINVAL, "content item of unknown type"), NULL;
}

/*
 * For a member whose value at |p| does not start as it must: a value of
 * the wrong kind (TC_EINVAL, |msg|), or not JSON at all.  Returns NULL.
 */
static const char *
wrong_value(const char *p, const char *e, int *bad, struct tc_diag *d,
    const char *msg)
{
	const char *q = tc_json_scan(p, e, 1);

	*bad = q != NULL && q < e && (*q == ',' || *q == '}') ? TC_EINVAL :
	    TC_EBADJSON;
	tc_diag(d, *bad, "%s", *bad == TC_EINVAL ? msg : "result is not JSON");
	return NULL;
}

/*
 * Checks the content array at |p|; returns its end, or NULL with *|bad| and
 * |d| set.  Each item is read once, by check_item().
 */
static const char *
check_content(const char *p, const char *e, int *bad, struct tc_diag *d)
{
	int n = 0;

	if (p >= e || *p != '[')
		return wrong_value(p, e, bad, d, "result has no content");
	*bad = TC_EINVAL;
	if (++p < e && *p != ']') {
		for (;;) {
			if ((p = check_item(p, e, bad, d)) == NULL)
				return NULL;
			n++;
			if (p < e && *p == ',') {
				p++;
				continue;
			}
			if (p < e && *p == ']')
				break;
			*bad = TC_EBADJSON;
			return tc_diag(d, TC_EBADJSON, "result is not JSON"),
			    NULL;
		}
	}
	if (p >= e) {
		*bad = TC_EBADJSON;
		return tc_diag(d, TC_EBADJSON, "result is not JSON"), NULL;
	}
	if (n == 0)
		return tc_diag(d, TC_EINVAL, "result has no content"), NULL;
	return p + 1;
}

/*
 * Checks structuredContent at |p|, noting in |info| whether it says the
 * answer was truncated (the audit log records that); returns its end, or
 * NULL with *|bad| and |d| set.
 */
static const char *
check_structured(const char *p, const char *e, struct tc_result_info *info,
    int *bad, struct tc_diag *d)
{
	struct tc_json_span m;
	int r;

	if (p >= e || *p != '{')
		return wrong_value(p, e, bad, d, "structuredContent is not an "
		    "object");
	while ((r = tc_json_member(&p, e, 1, &m)) == 1)
		if (tc_json_key_is(&m, "truncated") && m.vallen == 4 &&
		    memcmp(m.val, "true", 4) == 0)
			info->truncated = 1;
	if (r != 0) {
		*bad = TC_EBADJSON;
		return tc_diag(d, TC_EBADJSON, "result is not JSON"), NULL;
	}
	return p;
}

/*
 * Reads the result once, front to back: each member's value is checked by
 * what knows its shape, which also finds whether it is JSON at all, so a
 * large answer is scanned one time.
 */
int
tc_result_check(const char *text, size_t len, struct tc_result_info *info,
    struct tc_diag *d)
{
	enum { CONTENT, STRUCT, ISERR };
	static const char *const keys[] = { "content", "structuredContent",
	    "isError", NULL };
	const char *e = text + len, *p = text, *q;
	struct tc_json_span m;
	int seen[3] = { 0, 0, 0 }, bad, r;
	size_t i;

	memset(info, 0, sizeof(*info));
	if (!tc_utf8_valid(text, len))
		return tc_diag(d, TC_EBADJSON, "result is not valid UTF-8");
	if (len == 0 || text[0] != '{') {
		bad = tc_json_scan(text, e, 0) == e ? TC_EINVAL : TC_EBADJSON;
		return tc_diag(d, bad, bad == TC_EBADJSON ?
		    "result is not JSON" : "result is not a CallToolResult");
	}
	while ((r = tc_json_member_key(&p, e, &m)) == 1) {
		for (i = 0; keys[i] != NULL; i++)
			if (tc_json_key_is(&m, keys[i]))
				break;
		if (keys[i] == NULL || seen[i]++)
			return tc_diag(d, TC_EINVAL, "result is not a "
			    "CallToolResult");
		switch (i) {
		case CONTENT:
			q = check_content(p, e, &bad, d);
			break;
		case STRUCT:
			q = check_structured(p, e, info, &bad, d);
			break;
		default:
			if ((q = tc_json_scan(p, e, 1)) == NULL)
				break;
			if (q - p == 4 && memcmp(p, "true", 4) == 0)
				info->is_error = 1;
			else if (q - p != 5 || memcmp(p, "false", 5) != 0)
				return tc_diag(d, TC_EINVAL, "isError is not "
				    "a boolean");
			break;
		}
		if (q == NULL && i == ISERR)
			return tc_diag(d, TC_EBADJSON, "result is not JSON");
		if (q == NULL)
			return bad;
		if (q >= e || (*q != ',' && *q != '}'))
			return tc_diag(d, TC_EBADJSON, "result is not JSON");
		p = q;
	}
	if (r != 0)
		return tc_diag(d, TC_EBADJSON, "result is not JSON");
	if (p != e)
		return tc_diag(d, TC_EBADJSON, "result has trailing data");
	if (!seen[CONTENT])
		return tc_diag(d, TC_EINVAL, "result has no content");
	return 0;
}
