/*
 * sqlite_tools_sql.c: the tools that run the model's SQL, in the confined
 * child: query (one statement that reads, its rows capped and paged),
 * execute (statements that change a read-write database, in one
 * transaction) and explain_query (the plan, as a tree).
 *
 * Each classifies its SQL again with sq_kind_of() (the server did before
 * consent; the same words give the same kind) and opens the database for
 * that kind and no more: the guard is the connection (sqlite_conn.h) and,
 * around it, the kernel (sqlite_profile.c).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/json.h"
#include "base/text.h"
#include "policy/policy.h"
#include "sandbox/stream.h"
#include "sqlite.h"

/* Statements one execute call runs, at most. */
#define EXEC_STMTS_MAX	1000

/* Nodes of a query plan, at most. */
#define PLAN_MAX	4096

/* Names a "no such table" error lists, at most; the bytes of each (a
 * name is the database's, of any length, and is cut) and of the hint. */
#define HINT_TABLES		20
#define HINT_TABLES_TEXT	"20"
#define HINT_NAME_MAX		96
#define HINT_MAX		(HINT_TABLES * (HINT_NAME_MAX + 4) + 256)

/* --- Opening --- */

/* Lists the databases' names into |res|'s error. */
static int
no_database(const struct tc_call *call, const char *name,
    struct tc_result *res)
{
	const struct sqlite_policy *sp = sqlite_policy(call->policy);
	char list[512], shown[SQ_NAME_MAX * 2 + 16];
	size_t i, at = 0;

	list[0] = '\0';
	for (i = 0; i < sp->ndbs && at < sizeof(list); i++)
		at += tc_text_fmt(list + at, sizeof(list) - at, "%s%s",
		    i > 0 ? ", " : "", sp->dbs[i].name);
	tc_text_show(shown, sizeof(shown), name != NULL ? name : "", 0);
	tc_result_error(res, "no database named '%s' (the databases are: %s)",
	    shown, list);
	return TC_EINVAL;
}

/*
 * Refuses |path| unless it is a regular file now: one swapped for a FIFO
 * or a device since start would hold SQLite's open() until the call's
 * deadline.  Opened without blocking and without following a link, as
 * the policy resolved it.  Returns 0, else TC_EINVAL with |res| the
 * error.
 */
static int
regular_file(const struct sq_database *d, struct tc_result *res)
{
	struct stat st;
	int fd, err;

	if ((fd = open(d->path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		err = errno;
		tc_result_error(res, "database '%s': %s: %s", d->name, d->path,
		    err == ELOOP ? "it is now a symbolic link" :
		    strerror(err));
		return TC_EINVAL;
	}
	err = fstat(fd, &st) != 0 ? errno : 0;
	close(fd);
	if (err != 0 || !S_ISREG(st.st_mode)) {
		tc_result_error(res, "database '%s': %s: %s", d->name,
		    d->path, err != 0 ? strerror(err) :
		    "it is not a regular file now");
		return TC_EINVAL;
	}
	return 0;
}

int
sq_open_for(const struct tc_call *call, enum sq_kind kind,
    const struct sq_database **dbp, sqlite3 **db, struct tc_result *res)
{
	const struct sq_database *d;
	struct tc_diag diag TC_UNINIT;
	struct sq_limits lim;
	struct tc_limits l;
	int ms, rc;

	*db = NULL;
	tc_diag_init(&diag);
	if ((d = sq_database_find(call->policy,
	    tc_arg_str(call, "database"))) == NULL)
		return no_database(call, tc_arg_str(call, "database"), res);
	*dbp = d;
	if (kind > SQ_KIND_READ && !d->readwrite) {
		tc_result_error(res, "database '%s' is read-only: its "
		    "statements may only read", d->name);
		return TC_EINVAL;
	}
	/* The database's time, within the call's: the handler stops the
	 * statement and answers before the server gives up on the child. */
	tc_policy_limits(call->policy, tc_tool_policy_name(call->tool), &l);
	ms = l.deadline_ms - (l.deadline_ms / 10 < 1000 ?
	    l.deadline_ms / 10 : 1000);
	if (ms > d->time_ms || ms < 1)
		ms = d->time_ms;
	memset(&lim, 0, sizeof(lim));
	lim.deadline_ms = tc_now_ms() + ms;
	lim.busy_ms = ms / 2;
	/* Opened before the call with these limits but the times
	   (sqlite_ahead.c), which arming sets. */
	if ((*db = sq_ahead_take(d->path, kind)) != NULL &&
	    sq_conn_arm(*db, kind, &lim) == 0)
		return 0;
	sq_conn_close(*db);
	*db = NULL;
	if (regular_file(d, res) != 0)
		return TC_EINVAL;
	if ((rc = sq_conn_open(d->path, kind, &lim, db, &diag)) != 0) {
		*db = NULL;
		if (rc == TC_ENOMEM)
			return rc;
		tc_result_error(res, "database '%s': %s", d->name, diag.msg);
		return TC_EINVAL;
	}
	return 0;
}

int
sq_deadline_ms(const struct tc_call *call, char *why, size_t n)
{
	const struct sq_database *d;
	long long ms;

	if ((d = sq_database_find(call->policy,
	    tc_arg_str(call, "database"))) == NULL || d->time_ms <= 0)
		return 0;
	tc_text_fmt(why, n, "database '%s' has a time limit of %d ms (its "
	    "time in the policy) and one step of the statement ran past "
	    "it", d->name, d->time_ms);
	ms = (long long)d->time_ms + d->time_ms / 10 + SQ_TIME_GRACE_MS;
	return ms < INT_MAX ? (int)ms : INT_MAX;
}

/*
 * Writes into |hint| what the model can do about SQLite's |msg| when it
 * is "no such table" or "no such column": the tool that tells, and for a
 * table the first HINT_TABLES tables and views of the database, read
 * from its schema unless a transaction is open (execute's, whose failure
 * rolls back the tables it made too, which the names would mislead
 * about); else "".
 */
static void
hint_of(sqlite3 *db, const char *msg, char *hint, size_t size)
{
	struct tc_diag scratch TC_UNINIT;
	sqlite3_stmt *st = NULL;
	const char *name;
	char shown[HINT_NAME_MAX];
	size_t at, n = 0;
	int rc;

	hint[0] = '\0';
	if (strncmp(msg, "no such column: ", 16) == 0) {
		/* With double-quoted strings off (sqlite_conn.c), a string
		 * in double quotes is a name; newer SQLite says so itself. */
		tc_text_fmt(hint, size, "; describe_table gives a table's "
		    "columns%s", strstr(msg, "single-quote") != NULL ? "" :
		    ", and \"text\" in double quotes is a name: a string "
		    "takes single quotes");
		return;
	}
	if (strncmp(msg, "no such table: ", 15) != 0)
		return;
	tc_text_fmt(hint, size, "; list_tables lists the tables and views, "
	    "describe_table gives a table's columns");
	if (db == NULL || !sqlite3_get_autocommit(db))
		return;
	if ((rc = sqlite3_prepare_v3(db, "SELECT name FROM sqlite_schema "
	    "WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' "
	    "ESCAPE '\\' ORDER BY name LIMIT " HINT_TABLES_TEXT " + 1", -1, 0,
	    &st, NULL)) != SQLITE_OK) {
		/* Takes the guard's reason, should it have refused. */
		tc_diag_init(&scratch);
		(void)sq_conn_error(db, rc, &scratch);
		return;
	}
	at = tc_text_fmt(hint, size, "; the tables and views are ");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < HINT_TABLES) {
		if ((name = (const char *)sqlite3_column_text(st, 0)) == NULL)
			name = "";
		/* The database's name, of any length: cut. */
		tc_text_fmt(shown, sizeof(shown), "%s", name);
		at += tc_text_fmt(hint + at, size - at, "%s'%s'",
		    n++ > 0 ? ", " : "", shown);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		tc_diag_init(&scratch);
		(void)sq_conn_error(db, rc, &scratch);
	}
	if (n == 0)
		tc_text_fmt(hint, size, "; the database has no tables or "
		    "views");
	else
		tc_text_fmt(hint + at, size - at, "%s (list_tables lists "
		    "them, describe_table gives a table's columns)",
		    rc == SQLITE_ROW ? " and more" : "");
	sqlite3_finalize(st);
}

int
sq_fail(sqlite3 *db, int rc, struct tc_result *res)
{
	struct tc_diag d TC_UNINIT;
	char hint[HINT_MAX];

	tc_diag_init(&d);
	(void)sq_conn_error(db, rc, &d);
	hint_of(db, d.msg, hint, sizeof(hint));
	return tc_result_error(res, "%s%s", d.msg, hint);
}

/*
 * Classifies the call's "sql": one statement unless |many|, and of a kind
 * that |readonly| allows.  Returns 0 with *|kind| set, else TC_EINVAL with
 * |res| the error.
 */
static int
classify(const struct tc_call *call, int many, int readonly,
    enum sq_kind *kind, size_t *nstmts, struct tc_result *res)
{
	const char *sql = tc_arg_str(call, "sql");
	struct tc_diag d TC_UNINIT;

	tc_diag_init(&d);
	if (sq_kind_of(sql, strlen(sql), kind, nstmts, &d) != 0) {
		tc_result_error(res, "%s", d.msg);
		return TC_EINVAL;
	}
	if (!many && *nstmts != 1) {
		tc_result_error(res, "%s runs one statement; this SQL holds "
		    "%zu", call->tool->name, *nstmts);
		return TC_EINVAL;
	}
	if (readonly && *kind != SQ_KIND_READ) {
		tc_result_error(res, "%s runs only statements that read; this "
		    "one would %s: use execute, on a read-write database",
		    call->tool->name, *kind == SQ_KIND_SCHEMA ?
		    "change the schema" : "change data");
		return TC_EINVAL;
	}
	return 0;
}

/* Returns 1 if only spaces, ';' and comments are left at |p|. */
static int
nothing_left(const char *p)
{
	for (;;) {
		p += strspn(p, " \t\n\r\f\v;");
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			if ((p = strstr(p + 2, "*/")) == NULL)
				return 1;	/* SQLite ends it there too */
			p += 2;
			continue;
		}
		return *p == '\0';
	}
}

/* --- query --- */

/* Rows between two reports of progress: a power of two. */
#define PROGRESS_ROWS	65536

/* Says how many rows a long query has stepped through, to a client that
 * asked (progressToken); the count only grows. */
static void
said(const struct tc_call *call, unsigned long long n, const char *how)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "%llu rows %s", n, how);
	(void)tc_call_progress(call, (double)n, -1, msg);
}

int
sqlite_query(const struct tc_call *call, struct tc_result *res)
{
	const char *sql = tc_arg_str(call, "sql");
	const char *cursor = tc_arg_str(call, "cursor");
	const struct sq_database *d = NULL;
	char next[SQ_CURSOR_MAX];
	struct sq_rows rows;
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	const char *tail = NULL;
	enum sq_kind kind;
	size_t nstmts, at = 0;
	long long offset = 0, max_rows, k;
	int rc, truncated = 0, have_rows = 0;

	if ((rc = classify(call, 0, 1, &kind, &nstmts, res)) != 0)
		return 0;
	if (cursor != NULL && (offset = sq_cursor_read(call, cursor)) < 0)
		return tc_result_error(res, "this cursor is not one of this "
		    "query's: a cursor serves only the database, sql and "
		    "params of the call that returned it");
	if ((rc = sq_open_for(call, SQ_KIND_READ, &d, &db, res)) != 0)
		return rc == TC_ENOMEM ? rc : 0;
	max_rows = tc_arg_int(call, "max_rows", (long long)d->rows);
	if (max_rows > (long long)d->rows)
		max_rows = (long long)d->rows;
	if ((rc = sqlite3_prepare_v3(db, sql, -1, 0, &st, &tail)) !=
	    SQLITE_OK) {
		rc = sq_fail(db, rc, res);
		goto out;
	}
	if (st == NULL) {
		rc = tc_result_error(res, "the SQL holds no statement");
		goto out;
	}
	if ((tail != NULL && !nothing_left(tail)) ||
	    !sqlite3_stmt_readonly(st)) {
		rc = tc_result_error(res, "query runs one statement that "
		    "only reads");
		goto out;
	}
	if (sq_bind(call, st, &at, res) != 0) {
		rc = 0;
		goto out;
	}
	if (at < tc_arg_count(call, "params")) {
		rc = tc_result_error(res, "params holds %zu value%s; the "
		    "statement has %zu parameter%s", tc_arg_count(call,
		    "params"), tc_arg_count(call, "params") == 1 ? "" : "s",
		    at, at == 1 ? "" : "s");
		goto out;
	}
	have_rows = 1;
	if ((rc = sq_rows_init(&rows, st, (size_t)d->bytes)) != 0)
		goto out;
	/* The rows before the cursor's page are read and passed over: the
	 * pages hold together as long as the SQL orders its rows and the
	 * data stays as it was. */
	for (k = 0; k < offset; k++) {
		if ((rc = sqlite3_step(st)) != SQLITE_ROW)
			break;
		if (((k + 1) & (PROGRESS_ROWS - 1)) == 0)
			said(call, (unsigned long long)k + 1, "passed over");
	}
	if (k < offset && rc != SQLITE_DONE) {
		rc = sq_fail(db, rc, res);
		goto out;
	}
	rc = k < offset ? SQLITE_DONE : SQLITE_OK;
	while (rc != SQLITE_DONE && (long long)rows.nrows < max_rows) {
		if ((rc = sqlite3_step(st)) == SQLITE_DONE)
			break;
		if (rc != SQLITE_ROW) {
			rc = sq_fail(db, rc, res);
			goto out;
		}
		if ((rc = sq_rows_add(&rows, st)) == 1) {
			truncated = 1;
			break;
		}
		if (rc != 0)
			goto out;
		if ((rows.nrows & (PROGRESS_ROWS - 1)) == 0)
			said(call, (unsigned long long)offset + rows.nrows,
			    "read");
	}
	/* Exact: one row more is read to say whether more follow. */
	if (!truncated && rc != SQLITE_DONE) {
		if ((rc = sqlite3_step(st)) == SQLITE_ROW)
			truncated = 1;
		else if (rc != SQLITE_DONE) {
			rc = sq_fail(db, rc, res);
			goto out;
		}
	}
	if (truncated && rows.nrows == 0) {
		rc = tc_result_error(res, "one row alone is larger than the "
		    "database's byte cap of %llu bytes: select fewer or "
		    "shorter columns (substr(), length())", d->bytes);
		goto out;
	}
	if (truncated)
		sq_cursor_make(call, (uint64_t)offset + rows.nrows, next);
	rc = sq_rows_finish(&rows, truncated, 1, truncated ? next : NULL,
	    NULL, res);
out:
	if (have_rows)
		sq_rows_release(&rows);
	sqlite3_finalize(st);
	sq_conn_done(db);
	return rc;
}

/* --- execute --- */

/* |sql| past spaces and comments. */
static const char *
skip_space(const char *sql)
{
	for (;;) {
		sql += strspn(sql, " \t\n\r\f\v");
		if (sql[0] == '-' && sql[1] == '-')
			sql += strcspn(sql, "\n");
		else if (sql[0] == '/' && sql[1] == '*') {
			if ((sql = strstr(sql + 2, "*/")) == NULL)
				return "";
			sql += 2;
		} else
			return sql;
	}
}

/* If |sql| starts with keyword |w| (any case), what follows it past
 * spaces and comments; else NULL. */
static const char *
keyword(const char *sql, const char *w)
{
	size_t n = strlen(w);

	if (strncasecmp(sql, w, n) != 0 || (sql[n] >= 'a' && sql[n] <= 'z') ||
	    (sql[n] >= 'A' && sql[n] <= 'Z') || sql[n] == '_' ||
	    (sql[n] >= '0' && sql[n] <= '9'))
		return NULL;
	return skip_space(sql + n);
}

/* Returns 1 if statement |sql| starts or ends a transaction (it would end
 * the call's own), skipping spaces and comments.  ROLLBACK TO a savepoint
 * does not: it undoes only what followed the savepoint. */
static int
ends_transaction(const char *sql)
{
	static const char *const words[] = { "begin", "commit", "end" };
	const char *p;
	size_t i;

	sql = skip_space(sql);
	for (i = 0; i < TC_NITEMS(words); i++)
		if (keyword(sql, words[i]) != NULL)
			return 1;
	if ((p = keyword(sql, "rollback")) == NULL)
		return 0;
	if (keyword(p, "transaction") != NULL)
		p = keyword(p, "transaction");
	return keyword(p, "to") == NULL;
}

int
sqlite_execute(const struct tc_call *call, struct tc_result *res)
{
	const char *sql = tc_arg_str(call, "sql"), *p, *tail;
	const struct sq_database *d = NULL;
	struct tc_buf changes, head;
	struct sq_rows rows;
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	enum sq_kind kind;
	size_t nstmts, at = 0, n = 0;
	long long total = 0, rowid;
	char num[32];
	int rc, in_tx = 0, step, have_rows = 0, truncated = 0, full = 0;
	cJSON *o, *c;

	tc_buf_init(&changes, 1u << 20);
	tc_buf_init(&head, 4096);
	if ((rc = classify(call, 1, 0, &kind, &nstmts, res)) != 0)
		return 0;
	if ((rc = sq_open_for(call, kind, &d, &db, res)) != 0) {
		rc = rc == TC_ENOMEM ? rc : 0;
		goto out;
	}
	/* Statements that change something run in one transaction of the
	 * call's, which any failure rolls back whole. */
	if (kind > SQ_KIND_READ) {
		if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL,
		    NULL)) != SQLITE_OK) {
			rc = sq_fail(db, rc, res);
			goto out;
		}
		in_tx = 1;
	}
	tc_buf_append(&changes, "[", 1);
	for (p = sql; *p != '\0'; p = tail) {
		n++;
		if ((rc = sqlite3_prepare_v3(db, p, -1, 0, &st, &tail)) !=
		    SQLITE_OK) {
			sq_fail(db, rc, res);
			goto failed;
		}
		if (st == NULL) {
			n--;
			break;	/* only spaces and comments left */
		}
		if (n > EXEC_STMTS_MAX) {
			tc_result_error(res, "more than %d statements",
			    EXEC_STMTS_MAX);
			goto failed;
		}
		if (ends_transaction(sqlite3_sql(st))) {
			tc_result_error(res, "execute runs its statements in "
			    "one transaction of its own: leave out BEGIN, "
			    "COMMIT, END and ROLLBACK (SAVEPOINT, RELEASE and "
			    "ROLLBACK TO may be used)");
			goto failed;
		}
		if (sq_bind(call, st, &at, res) != 0)
			goto failed;
		/* The rows of the last statement that returns any (RETURNING,
		 * a SELECT), within the database's caps; each statement is
		 * stepped to its end all the same. */
		if (sqlite3_column_count(st) > 0) {
			if (have_rows)
				sq_rows_release(&rows);
			have_rows = 1;
			truncated = full = 0;
			if ((rc = sq_rows_init(&rows, st, (size_t)d->bytes)) !=
			    0)
				goto out;
		}
		while ((step = sqlite3_step(st)) == SQLITE_ROW) {
			if (sqlite3_column_count(st) == 0 || full)
				continue;
			if (rows.nrows >= d->rows ||
			    (rc = sq_rows_add(&rows, st)) == 1) {
				truncated = full = 1;
				continue;
			}
			if (rc != 0)
				goto out;
		}
		if (step != SQLITE_DONE) {
			sq_fail(db, step, res);
			goto failed;
		}
		if (in_tx && sqlite3_get_autocommit(db)) {
			tc_result_error(res, "the transaction ended early");
			goto failed;
		}
		tc_buf_printf(&changes, "%s%lld", n > 1 ? "," : "",
		    (long long)(sqlite3_stmt_readonly(st) ? 0 :
		    sqlite3_changes64(db)));
		total += sqlite3_stmt_readonly(st) ? 0 : sqlite3_changes64(db);
		sqlite3_finalize(st);
		st = NULL;
	}
	if (at < tc_arg_count(call, "params")) {
		tc_result_error(res, "params holds %zu value%s; the statements "
		    "have %zu parameter%s", tc_arg_count(call, "params"),
		    tc_arg_count(call, "params") == 1 ? "" : "s", at,
		    at == 1 ? "" : "s");
		goto failed;
	}
	if (in_tx && (rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) !=
	    SQLITE_OK) {
		sq_fail(db, rc, res);
		goto failed;
	}
	in_tx = 0;
	if ((rc = tc_buf_append(&changes, "]", 1)) != 0 ||
	    (o = tc_result_obj(res)) == NULL ||
	    (c = tc_json_raw_take(&changes)) == NULL) {
		rc = TC_ENOMEM;
		goto out;
	}
	cJSON_AddNumberToObject(o, "statements", (double)n);
	cJSON_AddItemToObject(o, "changes", c);
	cJSON_AddNumberToObject(o, "total_changes", (double)total);
	/* Exact: beyond 2^53 as a string of its digits, as in rows. */
	rowid = (long long)sqlite3_last_insert_rowid(db);
	snprintf(num, sizeof(num), rowid > SQ_EXACT_MAX ||
	    rowid < -SQ_EXACT_MAX ? "\"%lld\"" : "%lld", rowid);
	cJSON_AddRawToObject(o, "last_insert_rowid", num);
	rc = tc_buf_printf(&head, "%zu statement%s run %son '%s': %lld row%s "
	    "changed; last inserted row id %lld", n, n == 1 ? "" : "s",
	    kind > SQ_KIND_READ ? "in one transaction " : "", d->name, total,
	    total == 1 ? "" : "s", rowid);
	if (rc == 0 && have_rows)
		rc = sq_rows_finish(&rows, truncated, 0, NULL, head.data, res);
	else if (rc == 0)
		rc = tc_result_text(res, head.data, head.len);
	goto out;
failed:
	rc = 0;
	if (in_tx) {
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		tc_result_printf(res, " (statement %zu of the SQL; nothing was "
		    "changed: the transaction was rolled back)", n);
	}
out:
	if (have_rows)
		sq_rows_release(&rows);
	sqlite3_finalize(st);
	sq_conn_done(db);
	tc_buf_release(&changes);
	tc_buf_release(&head);
	return rc;
}

/* --- explain_query --- */

struct plan_node {
	int	 id, parent;
	char	*detail;
	cJSON	*children;
};

/* Appends node |i|'s subtree as text, indented by |depth|. */
static void
plan_text(const struct plan_node *v, size_t n, size_t i, int depth,
    struct tc_result *res)
{
	size_t k;

	tc_result_printf(res, "%*s", depth * 2, "");
	tc_result_text(res, v[i].detail, strlen(v[i].detail));
	tc_result_printf(res, "\n");
	for (k = i + 1; k < n; k++)
		if (v[k].parent == v[i].id)
			plan_text(v, n, k, depth + 1, res);
}

/* Returns node |i|'s subtree as JSON {detail, children}. */
static cJSON *
plan_json(const struct plan_node *v, size_t n, size_t i)
{
	cJSON *o, *kids, *kid;
	size_t k;

	if ((o = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToObject(o, "detail", sq_json_string(v[i].detail)) ||
	    (kids = cJSON_AddArrayToObject(o, "children")) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	for (k = i + 1; k < n; k++)
		if (v[k].parent == v[i].id) {
			if ((kid = plan_json(v, n, k)) == NULL) {
				cJSON_Delete(o);
				return NULL;
			}
			cJSON_AddItemToArray(kids, kid);
		}
	return o;
}

int
sqlite_explain_query(const struct tc_call *call, struct tc_result *res)
{
	const char *sql = tc_arg_str(call, "sql");
	const struct sq_database *d = NULL;
	struct plan_node *v = NULL;
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	const char *tail = NULL, *detail;
	enum sq_kind kind;
	size_t nstmts, n = 0, i, at = 0;
	char *text = NULL;
	cJSON *o, *plan, *node;
	int rc, step;

	if ((rc = classify(call, 0, 0, &kind, &nstmts, res)) != 0)
		return 0;
	if ((rc = sq_open_for(call, kind, &d, &db, res)) != 0)
		return rc == TC_ENOMEM ? rc : 0;
	/* A statement given with its own EXPLAIN [QUERY PLAN] (the kind
	 * above is its statement's, as for any EXPLAIN): ours is put in
	 * its place, and what follows is checked as ever. */
	sql += sq_explain_len(sql, strlen(sql));
	if (asprintf(&text, "EXPLAIN QUERY PLAN %s", sql) < 0) {
		text = NULL;
		rc = TC_ENOMEM;
		goto out;
	}
	if ((rc = sqlite3_prepare_v3(db, text, -1, 0, &st, &tail)) !=
	    SQLITE_OK) {
		rc = sq_fail(db, rc, res);
		goto out;
	}
	/* Nothing but the plan is ever run. */
	if (st == NULL || sqlite3_stmt_isexplain(st) != 2 ||
	    (tail != NULL && !nothing_left(tail))) {
		rc = tc_result_error(res, "explain_query explains one "
		    "statement");
		goto out;
	}
	/* Parameters may be left unbound (null) for a plan. */
	if (tc_arg_count(call, "params") > 0 && sq_bind(call, st, &at,
	    res) != 0) {
		rc = 0;
		goto out;
	}
	if ((v = calloc(PLAN_MAX, sizeof(*v))) == NULL) {
		rc = TC_ENOMEM;
		goto out;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW && n < PLAN_MAX) {
		detail = (const char *)sqlite3_column_text(st, 3);
		v[n].id = sqlite3_column_int(st, 0);
		v[n].parent = sqlite3_column_int(st, 1);
		if ((v[n].detail = strdup(detail != NULL ? detail : "")) ==
		    NULL) {
			rc = TC_ENOMEM;
			goto out;
		}
		n++;
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW) {
		rc = sq_fail(db, step, res);
		goto out;
	}
	if ((o = tc_result_obj(res)) == NULL ||
	    (plan = cJSON_AddArrayToObject(o, "plan")) == NULL) {
		rc = TC_ENOMEM;
		goto out;
	}
	tc_result_printf(res, "QUERY PLAN\n");
	for (i = 0; i < n; i++) {
		/* A root: its parent is no node of the plan. */
		for (at = 0; at < i; at++)
			if (v[at].id == v[i].parent)
				break;
		if (at < i)
			continue;
		if ((node = plan_json(v, n, i)) == NULL) {
			rc = TC_ENOMEM;
			goto out;
		}
		cJSON_AddItemToArray(plan, node);
		plan_text(v, n, i, 1, res);
	}
	rc = res->failed;
out:
	for (i = 0; v != NULL && i < n; i++)
		free(v[i].detail);
	free(v);
	free(text);
	sqlite3_finalize(st);
	sq_conn_done(db);
	return rc;
}
