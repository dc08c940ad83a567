/*
 * sqlite_tools.c: the tools that describe the databases, in the confined
 * child: list_databases, list_tables, describe_table, and the schema
 * resource's read_schema.  Every name the model gives is bound as a
 * parameter (pragma_table_xinfo(?1) and the like), never pasted into SQL;
 * the one name pasted, to count a table's rows, is one the database's own
 * schema gives, quoted as an identifier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"
#include "base/text.h"
#include "policy/section.h"
#include "sqlite.h"

/* A table's rows are counted up to this many when sqlite_stat1 does not
 * say: a bounded count, so that list_tables stays quick on big tables. */
#define COUNT_MAX	10000

/* Tables listed, at most. */
#define TABLES_MAX	10000

/* --- list_databases --- */

int
sqlite_list_databases(const struct tc_call *call, struct tc_result *res)
{
	const struct sqlite_policy *sp = sqlite_policy(call->policy);
	const struct sq_database *d;
	char size[32], rows[32], bytes[32];
	struct stat st;
	cJSON *o, *arr, *e;
	size_t i;

	if ((o = tc_result_obj(res)) == NULL ||
	    (arr = cJSON_AddArrayToObject(o, "databases")) == NULL)
		return TC_ENOMEM;
	for (i = 0; i < sp->ndbs; i++) {
		d = &sp->dbs[i];
		if ((e = cJSON_CreateObject()) == NULL)
			return TC_ENOMEM;
		cJSON_AddItemToArray(arr, e);
		cJSON_AddStringToObject(e, "name", d->name);
		cJSON_AddItemToObject(e, "path", sq_json_string(d->path));
		cJSON_AddStringToObject(e, "mode", d->readwrite ?
		    "read-write" : "read-only");
		if (stat(d->path, &st) == 0)
			cJSON_AddNumberToObject(e, "size", (double)st.st_size);
		else
			cJSON_AddNullToObject(e, "size");
		cJSON_AddNumberToObject(e, "max_rows", (double)d->rows);
		cJSON_AddNumberToObject(e, "max_bytes", (double)d->bytes);
		cJSON_AddNumberToObject(e, "time_ms", d->time_ms);
		tc_result_printf(res, "%s: ", d->name);
		tc_result_shown(res, d->path);
		tc_result_printf(res, " (%s, %s bytes; a call returns at most "
		    "%s rows and %s, and runs at most %d ms)\n",
		    d->readwrite ? "read-write" : "read-only",
		    stat(d->path, &st) == 0 ? tc_policy_value_str(
		    TC_POLICY_COUNT, (unsigned long long)st.st_size, size,
		    sizeof(size)) : "?", tc_policy_value_str(TC_POLICY_COUNT,
		    d->rows, rows, sizeof(rows)), tc_policy_value_str(
		    TC_POLICY_SIZE, d->bytes, bytes, sizeof(bytes)),
		    d->time_ms);
	}
	return res->failed;
}

/* --- Helpers --- */

/* Prepares |sql| (ours) on |db|; 0 or the SQLite code with |res| set. */
static int
prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st,
    struct tc_result *res)
{
	int rc;

	if ((rc = sqlite3_prepare_v3(db, sql, -1, 0, st, NULL)) != SQLITE_OK) {
		*st = NULL;
		sq_fail(db, rc, res);
	}
	return rc;
}

/* Returns column |i| of |st| as text, "" for NULL. */
static const char *
col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s != NULL ? s : "";
}

/* Adds column |i| of |st| to |o| as |key|: a number, a string or null. */
static void
add_col(cJSON *o, const char *key, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		cJSON_AddNumberToObject(o, key, sqlite3_column_double(st, i));
		break;
	case SQLITE_NULL:
		cJSON_AddNullToObject(o, key);
		break;
	default:
		cJSON_AddItemToObject(o, key, sq_json_string(col_text(st,
		    i)));
		break;
	}
}

/* Appends |name| quoted as an SQL identifier ("a""b"). */
static int
put_ident(struct tc_buf *b, const char *name)
{
	int rc = tc_buf_append(b, "\"", 1);

	for (; rc == 0 && *name != '\0'; name++)
		rc = *name == '"' ? tc_buf_append(b, "\"\"", 2) :
		    tc_buf_append(b, name, 1);
	return rc == 0 ? tc_buf_append(b, "\"", 1) : rc;
}

/* --- list_tables --- */

/* Fills |o|'s "rows" from a bounded count of table |name|. */
static void
count_rows(sqlite3 *db, const char *name, cJSON *o)
{
	struct tc_buf q;
	sqlite3_stmt *st = NULL;
	long long n;

	tc_buf_init(&q, 1u << 16);
	if (tc_buf_printf(&q, "SELECT count(*) FROM (SELECT 1 FROM ") != 0 ||
	    put_ident(&q, name) != 0 ||
	    tc_buf_printf(&q, " LIMIT %d)", COUNT_MAX + 1) != 0 ||
	    sqlite3_prepare_v3(db, q.data, (int)q.len, 0, &st, NULL) !=
	    SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		cJSON_AddNullToObject(o, "rows");
		goto out;
	}
	n = sqlite3_column_int64(st, 0);
	cJSON_AddNumberToObject(o, "rows", (double)(n > COUNT_MAX ?
	    COUNT_MAX : n));
	cJSON_AddStringToObject(o, "rows_from", n > COUNT_MAX ?
	    "count, at least" : "count");
out:
	sqlite3_finalize(st);
	tc_buf_release(&q);
}

int
sqlite_list_tables(const struct tc_call *call, struct tc_result *res)
{
	const struct sq_database *d = NULL;
	sqlite3_stmt *st = NULL, *stat = NULL;
	sqlite3 *db = NULL;
	const char *name, *type;
	cJSON *o, *arr, *e;
	size_t n = 0;
	int rc, step, have_stat;

	if ((rc = sq_open_for(call, SQ_KIND_READ, &d, &db, res)) != 0)
		return rc == TC_ENOMEM ? rc : 0;
	if (prepare(db, "SELECT name, type FROM sqlite_schema WHERE type IN "
	    "('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
	    "ORDER BY name", &st, res) != SQLITE_OK)
		goto out;
	/* ANALYZE's statistics, where there are some: the first number of
	 * a stat is the table's rows.  Asked by preparing, not of
	 * sqlite3_table_column_metadata(), which trusts the schema SQLite
	 * last read: a connection opened ahead of the call (sq_ahead())
	 * may predate the table, and a prepare that finds no such name
	 * reads the schema again before it says so. */
	have_stat = sqlite3_prepare_v3(db, "SELECT max(CAST(stat AS "
	    "INTEGER)) FROM sqlite_stat1 WHERE tbl = ?1", -1, 0, &stat,
	    NULL) == SQLITE_OK;
	if ((o = tc_result_obj(res)) == NULL ||
	    (arr = cJSON_AddArrayToObject(o, "tables")) == NULL) {
		rc = TC_ENOMEM;
		goto out;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW && n < TABLES_MAX) {
		name = col_text(st, 0);
		type = col_text(st, 1);
		if ((e = cJSON_CreateObject()) == NULL) {
			rc = TC_ENOMEM;
			goto out;
		}
		cJSON_AddItemToArray(arr, e);
		cJSON_AddItemToObject(e, "name", sq_json_string(name));
		cJSON_AddItemToObject(e, "type", sq_json_string(type));
		if (strcmp(type, "view") == 0) {
			/* A view's rows cost what its query costs. */
			cJSON_AddNullToObject(e, "rows");
		} else if (have_stat && sqlite3_reset(stat) == SQLITE_OK &&
		    sqlite3_bind_text(stat, 1, name, -1, SQLITE_STATIC) ==
		    SQLITE_OK && sqlite3_step(stat) == SQLITE_ROW &&
		    sqlite3_column_type(stat, 0) != SQLITE_NULL) {
			cJSON_AddNumberToObject(e, "rows",
			    sqlite3_column_double(stat, 0));
			cJSON_AddStringToObject(e, "rows_from", "sqlite_stat1");
		} else
			count_rows(db, name, e);
		tc_result_printf(res, "%s ", type);
		tc_result_shown(res, name);
		if (cJSON_IsNumber(cJSON_GetObjectItem(e, "rows")))
			tc_result_printf(res, " (%s%.0f row%s)\n",
			    strcmp(cJSON_GetObjectItem(e, "rows_from")->
			    valuestring, "count, at least") == 0 ? ">= " :
			    strcmp(cJSON_GetObjectItem(e, "rows_from")->
			    valuestring, "sqlite_stat1") == 0 ? "about " : "",
			    cJSON_GetObjectItem(e, "rows")->valuedouble,
			    cJSON_GetObjectItem(e, "rows")->valuedouble == 1 ?
			    "" : "s");
		else
			tc_result_printf(res, "\n");
		n++;
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW) {
		rc = sq_fail(db, step, res);
		goto out;
	}
	if (n == 0)
		tc_result_printf(res, "no tables or views in '%s'\n", d->name);
	rc = res->failed;
out:
	sqlite3_finalize(stat);
	sqlite3_finalize(st);
	sq_conn_done(db);
	return rc;
}

/* --- describe_table --- */

/* Runs |sql| with |name| bound as ?1 and adds an object per row to the
 * array |key| of |o|, its members named by the columns.  Returns 0, or
 * -1 with |res| the error. */
static int
rows_of(sqlite3 *db, const char *sql, const char *name, cJSON *o,
    const char *key, struct tc_result *res)
{
	sqlite3_stmt *st = NULL;
	cJSON *arr, *e;
	int i, step, rc = -1;

	if (prepare(db, sql, &st, res) != SQLITE_OK)
		return -1;
	if ((arr = cJSON_AddArrayToObject(o, key)) == NULL ||
	    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) != SQLITE_OK)
		goto out;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if ((e = cJSON_CreateObject()) == NULL)
			goto out;
		cJSON_AddItemToArray(arr, e);
		for (i = 0; i < sqlite3_column_count(st); i++)
			add_col(e, sqlite3_column_name(st, i), st, i);
	}
	if (step != SQLITE_DONE) {
		sq_fail(db, step, res);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* Adds each index's columns, from pragma_index_info, to its object. */
static int
index_columns(sqlite3 *db, cJSON *indexes, struct tc_result *res)
{
	sqlite3_stmt *st = NULL;
	cJSON *ix, *cols, *name;
	int step, rc = -1;

	if (prepare(db, "SELECT name FROM pragma_index_info(?1) ORDER BY "
	    "seqno", &st, res) != SQLITE_OK)
		return -1;
	cJSON_ArrayForEach(ix, indexes) {
		name = cJSON_GetObjectItem(ix, "name");
		if (!cJSON_IsString(name) ||
		    (cols = cJSON_AddArrayToObject(ix, "columns")) == NULL)
			goto out;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, name->valuestring, -1, SQLITE_STATIC);
		while ((step = sqlite3_step(st)) == SQLITE_ROW)
			cJSON_AddItemToArray(cols, sqlite3_column_type(st, 0) ==
			    SQLITE_NULL ? cJSON_CreateString("<expression>") :
			    sq_json_string(col_text(st, 0)));
		if (step != SQLITE_DONE) {
			sq_fail(db, step, res);
			goto out;
		}
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* Writes |o|'s description as text. */
static void
describe_text(const cJSON *o, struct tc_result *res)
{
	const cJSON *e, *v;
	const char *s;

	tc_result_printf(res, "%s ", cJSON_GetObjectItem(o, "type")->
	    valuestring);
	tc_result_shown(res, cJSON_GetObjectItem(o, "name")->valuestring);
	tc_result_printf(res, "\ncolumns:\n");
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "columns")) {
		tc_result_printf(res, "  ");
		tc_result_shown(res, cJSON_GetObjectItem(e, "name")->
		    valuestring);
		s = cJSON_GetStringValue(cJSON_GetObjectItem(e, "type"));
		if (s != NULL && *s != '\0') {
			tc_result_printf(res, " ");
			tc_result_shown(res, s);
		}
		if ((v = cJSON_GetObjectItem(e, "pk")) != NULL &&
		    v->valuedouble > 0)
			tc_result_printf(res, " PRIMARY KEY");
		if ((v = cJSON_GetObjectItem(e, "notnull")) != NULL &&
		    v->valuedouble > 0)
			tc_result_printf(res, " NOT NULL");
		if ((s = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "dflt_value"))) != NULL) {
			tc_result_printf(res, " DEFAULT ");
			tc_result_shown(res, s);
		}
		tc_result_printf(res, "\n");
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "indexes")) {
		tc_result_printf(res, "index ");
		tc_result_shown(res, cJSON_GetObjectItem(e, "name")->
		    valuestring);
		tc_result_printf(res, "%s (", (v = cJSON_GetObjectItem(e,
		    "unique")) != NULL && v->valuedouble > 0 ? " UNIQUE" : "");
		cJSON_ArrayForEach(v, cJSON_GetObjectItem(e, "columns")) {
			tc_result_shown(res, v->valuestring);
			if (v->next != NULL)
				tc_result_printf(res, ", ");
		}
		tc_result_printf(res, ")\n");
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "foreign_keys")) {
		tc_result_printf(res, "foreign key ");
		s = cJSON_GetStringValue(cJSON_GetObjectItem(e, "from"));
		tc_result_shown(res, s != NULL ? s : "");
		tc_result_printf(res, " -> ");
		s = cJSON_GetStringValue(cJSON_GetObjectItem(e, "table"));
		tc_result_shown(res, s != NULL ? s : "");
		if ((s = cJSON_GetStringValue(cJSON_GetObjectItem(e, "to"))) !=
		    NULL) {
			tc_result_printf(res, "(");
			tc_result_shown(res, s);
			tc_result_printf(res, ")");
		}
		tc_result_printf(res, "\n");
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "triggers")) {
		tc_result_printf(res, "trigger ");
		tc_result_shown(res, cJSON_GetObjectItem(e, "name")->
		    valuestring);
		tc_result_printf(res, "\n");
	}
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItem(o, "sql"))) !=
	    NULL) {
		tc_result_printf(res, "sql:\n");
		tc_result_text(res, s, strlen(s));
		tc_result_printf(res, "\n");
	}
}

int
sqlite_describe_table(const struct tc_call *call, struct tc_result *res)
{
	const char *name = tc_arg_str(call, "table");
	const struct sq_database *d = NULL;
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	char shown[256];
	cJSON *o;
	int rc, step;

	if ((rc = sq_open_for(call, SQ_KIND_READ, &d, &db, res)) != 0)
		return rc == TC_ENOMEM ? rc : 0;
	rc = 0;
	if (prepare(db, "SELECT type, sql FROM sqlite_schema WHERE name = ?1 "
	    "AND type IN ('table', 'view')", &st, res) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(st)) != SQLITE_ROW) {
		if (step != SQLITE_DONE)
			sq_fail(db, step, res);
		else {
			tc_text_show(shown, sizeof(shown), name, 0);
			tc_result_error(res, "no table or view named '%s' in "
			    "database '%s' (list_tables lists them; names are "
			    "matched exactly)", shown, d->name);
		}
		goto out;
	}
	if ((o = tc_result_obj(res)) == NULL) {
		rc = TC_ENOMEM;
		goto out;
	}
	cJSON_AddItemToObject(o, "name", sq_json_string(name));
	cJSON_AddItemToObject(o, "type", sq_json_string(col_text(st, 0)));
	add_col(o, "sql", st, 1);
	/* Each through a pragma's table-valued function, the name bound. */
	if (rows_of(db, "SELECT cid, name, type, \"notnull\", dflt_value, pk, "
	    "hidden FROM pragma_table_xinfo(?1) ORDER BY cid", name, o,
	    "columns", res) != 0 ||
	    rows_of(db, "SELECT name, \"unique\", origin, partial FROM "
	    "pragma_index_list(?1) ORDER BY name", name, o, "indexes",
	    res) != 0 ||
	    index_columns(db, cJSON_GetObjectItem(o, "indexes"), res) != 0 ||
	    rows_of(db, "SELECT id, seq, \"table\", \"from\", \"to\", "
	    "on_update, on_delete FROM pragma_foreign_key_list(?1) ORDER BY "
	    "id, seq", name, o, "foreign_keys", res) != 0 ||
	    rows_of(db, "SELECT name, sql FROM sqlite_schema WHERE type = "
	    "'trigger' AND tbl_name = ?1 ORDER BY name", name, o, "triggers",
	    res) != 0) {
		if (!res->is_error)
			tc_result_error(res, "out of memory");
		goto out;
	}
	describe_text(o, res);
	rc = res->failed;
out:
	sqlite3_finalize(st);
	sq_conn_done(db);
	return rc;
}

/* --- The schema resource --- */

int
sqlite_read_schema(const struct tc_call *call, struct tc_result *res)
{
	const struct sq_database *d = NULL;
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	const char *sql;
	size_t bytes = 0;
	cJSON *o;
	int rc, step;

	if ((rc = sq_open_for(call, SQ_KIND_READ, &d, &db, res)) != 0)
		return rc == TC_ENOMEM ? rc : 0;
	if (prepare(db, "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL "
	    "ORDER BY type = 'table' DESC, tbl_name, type, name", &st, res) !=
	    SQLITE_OK) {
		rc = 0;
		goto out;
	}
	tc_result_printf(res, "-- the schema of database '%s'\n", d->name);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		sql = col_text(st, 0);
		bytes += strlen(sql);
		if (bytes > d->bytes) {
			tc_result_printf(res, "-- cut at %llu bytes\n",
			    d->bytes);
			break;
		}
		tc_result_text(res, sql, strlen(sql));
		tc_result_printf(res, ";\n\n");
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW) {
		rc = sq_fail(db, step, res);
		goto out;
	}
	if ((o = tc_result_obj(res)) == NULL ||
	    cJSON_AddStringToObject(o, "mimeType", "application/sql") ==
	    NULL) {
		rc = TC_ENOMEM;
		goto out;
	}
	rc = res->failed;
out:
	sqlite3_finalize(st);
	sq_conn_done(db);
	return rc;
}
