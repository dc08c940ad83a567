/*
 * echo.c: echo_args, the one benign tool of toolcell-hostile that takes
 * an argument of each type the shell and SQLite servers need (a number,
 * a nullable string, a scalar array, a string map) and returns what the
 * accessors of tools.h gave it, so that a test can see a call go through
 * the official client, the check and the child unchanged.
 */
#include <math.h>

#include "hostile.h"

static const char *const kinds[] = {
	[TC_SCALAR_NULL] = "null",
	[TC_SCALAR_BOOL] = "boolean",
	[TC_SCALAR_INT] = "integer",
	[TC_SCALAR_REAL] = "real",
	[TC_SCALAR_STRING] = "string",
};

/* Returns {"kind":K,"value":V} for |v|, or NULL. */
static cJSON *
scalar_json(const struct tc_scalar *v)
{
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "kind", kinds[v->kind]);
	switch (v->kind) {
	case TC_SCALAR_NULL:
		cJSON_AddNullToObject(o, "value");
		break;
	case TC_SCALAR_BOOL:
		cJSON_AddBoolToObject(o, "value", v->i != 0);
		break;
	case TC_SCALAR_INT:
		cJSON_AddNumberToObject(o, "value", (double)v->i);
		break;
	case TC_SCALAR_REAL:
		cJSON_AddNumberToObject(o, "value", v->d);
		break;
	case TC_SCALAR_STRING:
		cJSON_AddStringToObject(o, "value", v->s);
		cJSON_AddNumberToObject(o, "bytes", (double)v->len);
		break;
	}
	return o;
}

int
hs_echo_args(const struct tc_call *call, struct tc_result *res)
{
	struct tc_arg_iter it;
	struct tc_scalar v;
	const char *key, *value;
	cJSON *o, *params, *env, *pair;

	if ((o = tc_result_obj(res)) == NULL)
		return TC_ENOMEM;
	cJSON_AddNumberToObject(o, "ratio", tc_arg_num(call, "ratio", NAN));
	if (tc_arg_is_null(call, "cwd"))
		cJSON_AddNullToObject(o, "cwd");
	else if (tc_arg_str(call, "cwd") != NULL)
		cJSON_AddStringToObject(o, "cwd", tc_arg_str(call, "cwd"));
	cJSON_AddNumberToObject(o, "nparams",
	    (double)tc_arg_count(call, "params"));
	params = cJSON_AddArrayToObject(o, "params");
	tc_arg_scalars(call, "params", &it);
	while (tc_arg_scalar_next(&it, &v))
		cJSON_AddItemToArray(params, scalar_json(&v));
	/* Pairs, not an object: the order the client sent is kept. */
	env = cJSON_AddArrayToObject(o, "env");
	tc_arg_map(call, "env", &it);
	while (tc_arg_map_next(&it, &key, &value)) {
		pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair, cJSON_CreateString(key));
		cJSON_AddItemToArray(pair, cJSON_CreateString(value));
		cJSON_AddItemToArray(env, pair);
	}
	if (tc_arg_map_get(call, "env", "HOME") != NULL)
		cJSON_AddStringToObject(o, "home",
		    tc_arg_map_get(call, "env", "HOME"));
	tc_result_printf(res, "%zu parameters, %zu variables\n",
	    tc_arg_count(call, "params"), tc_arg_count(call, "env"));
	return 0;
}
