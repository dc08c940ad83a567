/*
 * subjects.c: two tools of toolcell-hostile whose calls have typed
 * subjects (policy/subject.h), as toolcell-shell's and toolcell-sqlite's
 * will, for the tests of consent rules, the consent hook and the audit
 * log (tests/e2e/sdk/subjects.test.mjs).  Their children only say hello:
 * what is tested happens in the server, before anything is forked.
 */
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "hostile.h"
#include "policy/subject.h"

const struct tc_arg hs_run_thing_args[] = {
	{ .name = "program", .type = TC_ARG_STRING, .flags = TC_ARG_REQUIRED |
	  TC_ARG_NONEMPTY, .max_len = PATH_MAX, .description = "The program "
	  "to run, by its absolute path." },
	{ .name = "argv", .type = TC_ARG_STRING_ARRAY, .max_len = 64,
	  .item_max_len = 4096, .description = "Its arguments." },
	{ .name = "cwd", .type = TC_ARG_STRING, .flags = TC_ARG_NONEMPTY,
	  .max_len = PATH_MAX, .description = "Where it runs, beneath an "
	  "allowed directory." },
	{ .name = "env", .type = TC_ARG_STRING_ARRAY, .max_len = 16,
	  .item_max_len = 256, .description = "Names of the variables it "
	  "sets." },
	{ .name = NULL }
};

const struct tc_arg hs_sql_thing_args[] = {
	{ .name = "database", .type = TC_ARG_STRING, .flags = TC_ARG_REQUIRED |
	  TC_ARG_NONEMPTY, .max_len = 64, .description = "The database, by "
	  "name." },
	{ .name = "sql", .type = TC_ARG_STRING, .flags = TC_ARG_REQUIRED |
	  TC_ARG_NONEMPTY, .max_len = 4096, .description = "One statement." },
	{ .name = NULL }
};

/* Adds a subject of |kind| for each string of the array |v|. */
static int
add_each(struct tc_subjects *out, enum tc_subject_kind kind, const cJSON *v,
    struct tc_diag *d)
{
	const cJSON *e;
	int rc;

	cJSON_ArrayForEach(e, v)
		if (cJSON_IsString(e) &&
		    (rc = tc_subjects_put(out, kind, e->valuestring, 0, d)) != 0)
			return rc;
	return 0;
}

/*
 * run_thing: the program (absolute, and never /forbidden, which the
 * "policy" refuses), its arguments one subject each, the working
 * directory, which the server resolves, and the variables' names.
 */
int
hs_run_subjects(const struct tc_subject_ctx *ctx, const cJSON *args,
    struct tc_subjects *out, struct tc_diag *d)
{
	const cJSON *prog = cJSON_GetObjectItemCaseSensitive(args, "program");
	const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(args, "cwd");
	int rc;

	(void)ctx;
	if (prog->valuestring[0] != '/')
		return tc_diag(d, TC_EINVAL, "'program' must be an absolute "
		    "path");
	if (strcmp(prog->valuestring, "/forbidden") == 0)
		return tc_diag(d, TC_EDENIED, "The call was not run: the "
		    "program '/forbidden' is not one the policy allows.");
	if ((rc = tc_subjects_put(out, TC_SUBJECT_PROGRAM, prog->valuestring,
	    TC_SUBJECT_EXEC, d)) != 0 ||
	    (rc = add_each(out, TC_SUBJECT_ARG,
	    cJSON_GetObjectItemCaseSensitive(args, "argv"), d)) != 0 ||
	    (cJSON_IsString(cwd) && (rc = tc_subjects_put(out, TC_SUBJECT_CWD,
	    cwd->valuestring, 0, d)) != 0) ||
	    (rc = add_each(out, TC_SUBJECT_ENV,
	    cJSON_GetObjectItemCaseSensitive(args, "env"), d)) != 0)
		return rc;
	return 0;
}

/*
 * sql_thing: the database by name, and what its statement does, by its
 * first word (a test's stand-in for asking SQLite): a read, a change to
 * the schema, or a write.
 */
int
hs_sql_subjects(const struct tc_subject_ctx *ctx, const cJSON *args,
    struct tc_subjects *out, struct tc_diag *d)
{
	static const char *const schema[] = { "create", "drop", "alter" };
	const char *db = cJSON_GetObjectItemCaseSensitive(args,
	    "database")->valuestring;
	const char *sql = cJSON_GetObjectItemCaseSensitive(args,
	    "sql")->valuestring;
	const char *kind = "write";
	size_t i;
	int rc;

	(void)ctx;
	sql += strspn(sql, " \t\n");
	if (strncasecmp(sql, "select", 6) == 0)
		kind = "read";
	for (i = 0; i < TC_NITEMS(schema); i++)
		if (strncasecmp(sql, schema[i], strlen(schema[i])) == 0)
			kind = "schema";
	if ((rc = tc_subjects_put(out, TC_SUBJECT_DATABASE, db,
	    strcmp(kind, "read") == 0 ? TC_SUBJECT_READ : TC_SUBJECT_WRITE,
	    d)) != 0 ||
	    (rc = tc_subjects_put(out, TC_SUBJECT_STATEMENT, kind, 0, d)) != 0)
		return rc;
	return 0;
}
