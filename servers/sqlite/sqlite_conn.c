/*
 * sqlite_conn.c: a connection to one database of the policy, opened with
 * every hardening SQLite offers, and the guard around its statements.
 *
 * The layers, each enough alone for what it holds:
 *
 *	open flags	SQLITE_OPEN_READONLY for reads (the pager refuses
 *			every write), never CREATE, never a URI,
 *			SQLITE_OPEN_NOFOLLOW
 *	db_config	extension loading off, DEFENSIVE (no writes to the
 *			schema or raw pages, no shadow tables), trusted_schema
 *			off (a view, trigger, default or index of the file
 *			calls no function with side effects), no double-
 *			quoted strings, triggers off for reads
 *	limits		no attached databases; lengths, depths and counts;
 *			a heap limit; a deadline checked every few thousand
 *			VM steps (the progress handler)
 *	authorizer	ATTACH, DETACH, VACUUM, PRAGMAs off the harmless list,
 *			functions that reach outside, and whatever is more
 *			than the connection's kind, at prepare, for the
 *			statement and for every trigger it fires
 *
 * Each connection's guard (its kind, its deadline, why it last refused)
 * is found by the connection's pointer in a short list: a child holds
 * one or two, and SQLite has no public way to hang data on a connection
 * in the versions we build on.  Not thread-safe: a child is one thread.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/err.h"

#include "sqlite_conn.h"

/* Defaults for a zero in struct sq_limits. */
#define DEF_DEADLINE_MS	30000		/* from the open */
#define DEF_BUSY_MS	5000
#define DEF_HEAP	(128LL << 20)
#define DEF_SQL_LEN	(1 << 20)
#define DEF_BLOB_LEN	(16 << 20)

/* VM steps between two looks at the clock: a few microseconds. */
#define PROGRESS_STEPS	1000

struct guard {
	struct guard	*next;
	sqlite3		*db;
	enum sq_kind	 kind;
	long long	 deadline_ms;
	long long	 limit_ms;	/* the deadline, from the open */
	long long	 busy_ms;
	long long	 heap_bytes;
	int		 blob_len;
	int		 timed_out;
	char		 reason[256];	/* why the authorizer last refused */
};

static struct guard *guards;

static struct guard *
guard_of(sqlite3 *db)
{
	struct guard *g;

	for (g = guards; g != NULL; g = g->next)
		if (g->db == db)
			return g;
	return NULL;
}

static int
refuse(struct guard *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Records why, for sq_conn_error(), and answers SQLITE_DENY.  SQLite goes
 * on asking after a refusal (the rest of the statement, the statements it
 * nests), so the first reason stands until sq_conn_error() takes it.
 */
static int
refuse(struct guard *g, const char *fmt, ...)
{
	va_list ap;

	if (g->reason[0] != '\0')
		return SQLITE_DENY;
	va_start(ap, fmt);
	vsnprintf(g->reason, sizeof(g->reason), fmt, ap);
	va_end(ap);
	return SQLITE_DENY;
}

static int
progress(void *arg)
{
	struct guard *g = arg;

	if (tc_now_ms() < g->deadline_ms)
		return 0;
	g->timed_out = 1;
	return 1;
}

/* What |action| needs, at least; -1 for what never runs. */
static int
needs(int action)
{
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
	case SQLITE_FUNCTION:
	case SQLITE_PRAGMA:
	/*
	 * A transaction or savepoint writes nothing by itself, and on a
	 * read-only connection nothing can be written inside one; the
	 * server may hold one snapshot across its own statements.
	 */
	case SQLITE_TRANSACTION:
	case SQLITE_SAVEPOINT:
		return SQ_KIND_READ;
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
	case SQLITE_REINDEX:
		return SQ_KIND_WRITE;
	case SQLITE_ANALYZE:		/* may create sqlite_stat1 */
	case SQLITE_CREATE_INDEX:
	case SQLITE_CREATE_TABLE:
	case SQLITE_CREATE_TEMP_INDEX:
	case SQLITE_CREATE_TEMP_TABLE:
	case SQLITE_CREATE_TEMP_TRIGGER:
	case SQLITE_CREATE_TEMP_VIEW:
	case SQLITE_CREATE_TRIGGER:
	case SQLITE_CREATE_VIEW:
	case SQLITE_DROP_INDEX:
	case SQLITE_DROP_TABLE:
	case SQLITE_DROP_TEMP_INDEX:
	case SQLITE_DROP_TEMP_TABLE:
	case SQLITE_DROP_TEMP_TRIGGER:
	case SQLITE_DROP_TEMP_VIEW:
	case SQLITE_DROP_TRIGGER:
	case SQLITE_DROP_VIEW:
	case SQLITE_ALTER_TABLE:
	case SQLITE_CREATE_VTABLE:
	case SQLITE_DROP_VTABLE:
		return SQ_KIND_SCHEMA;
	default:		/* ATTACH, DETACH, COPY, what is new */
		return -1;
	}
}

static const char *
action_name(int action)
{
	switch (action) {
	case SQLITE_INSERT:		return "INSERT";
	case SQLITE_UPDATE:		return "UPDATE";
	case SQLITE_DELETE:		return "DELETE";
	case SQLITE_ANALYZE:		return "ANALYZE";
	case SQLITE_REINDEX:		return "REINDEX";
	case SQLITE_ATTACH:		return "ATTACH";
	case SQLITE_DETACH:		return "DETACH";
	case SQLITE_ALTER_TABLE:	return "ALTER TABLE";
	case SQLITE_CREATE_VTABLE:	return "CREATE VIRTUAL TABLE";
	case SQLITE_DROP_VTABLE:	return "DROP VIRTUAL TABLE";
	case SQLITE_CREATE_INDEX:
	case SQLITE_CREATE_TEMP_INDEX:	return "CREATE INDEX";
	case SQLITE_CREATE_TABLE:
	case SQLITE_CREATE_TEMP_TABLE:	return "CREATE TABLE";
	case SQLITE_CREATE_TRIGGER:
	case SQLITE_CREATE_TEMP_TRIGGER: return "CREATE TRIGGER";
	case SQLITE_CREATE_VIEW:
	case SQLITE_CREATE_TEMP_VIEW:	return "CREATE VIEW";
	case SQLITE_DROP_INDEX:
	case SQLITE_DROP_TEMP_INDEX:	return "DROP INDEX";
	case SQLITE_DROP_TABLE:
	case SQLITE_DROP_TEMP_TABLE:	return "DROP TABLE";
	case SQLITE_DROP_TRIGGER:
	case SQLITE_DROP_TEMP_TRIGGER:	return "DROP TRIGGER";
	case SQLITE_DROP_VIEW:
	case SQLITE_DROP_TEMP_VIEW:	return "DROP VIEW";
	default:			return "this statement";
	}
}

/* Tables (virtual, eponymous) that reach outside, if a build has them. */
static int
table_refused(const char *name)
{
	return name != NULL && (sqlite3_stricmp(name, "fsdir") == 0 ||
	    sqlite3_stricmp(name, "zipfile") == 0 ||
	    sqlite3_stricmp(name, "lsdir") == 0);
}

/*
 * The authorizer.  |a1|, |a2| as SQLite documents per action; |trig|
 * names the trigger whose body is being prepared, or is NULL.
 */
static int
authorize(void *arg, int action, const char *a1, const char *a2,
    const char *dbname, const char *trig)
{
	struct guard *g = arg;
	char in[160] = "";
	int need;

	(void)dbname;
	if (trig != NULL)
		snprintf(in, sizeof(in), " (in trigger %s)", trig);
	switch (action) {
	case SQLITE_ATTACH:
		return refuse(g, "ATTACH is never run here, nor VACUUM, which "
		    "attaches a database: a connection reaches its own "
		    "database file only");
	case SQLITE_DETACH:
		return refuse(g, "DETACH is never run here: a connection "
		    "reaches its own database file only");
	case SQLITE_PRAGMA:
		if (a1 == NULL || !sq_pragma_harmless(a1, strlen(a1),
		    a2 != NULL))
			return refuse(g, "PRAGMA %s%s%s is not run here: only "
			    "PRAGMAs that read run, and none that sets a "
			    "value", a1 == NULL ? "?" : a1, a2 == NULL ? "" :
			    " with an argument", in);
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		if (a2 != NULL && sq_function_refused(a2, strlen(a2)))
			return refuse(g, "%s() is never run here: it reaches "
			    "outside the database%s", a2, in);
		return SQLITE_OK;
	case SQLITE_READ:
	case SQLITE_SELECT:
		if (table_refused(a1))
			return refuse(g, "the table %s is never read here: it "
			    "reaches outside the database%s", a1, in);
		return SQLITE_OK;
	case SQLITE_CREATE_VTABLE:
	case SQLITE_DROP_VTABLE:
		if (table_refused(a2))
			return refuse(g, "the module %s is never used here%s",
			    a2, in);
		break;
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
		/*
		 * SQLite asks about writes to the schema's own table when it
		 * merely readies a virtual table (json_each, pragma_*) for a
		 * read, and as a part of CREATE, DROP and ALTER, which are
		 * asked about by their own codes.  A statement that writes
		 * it directly is stopped by writable_schema being off and
		 * DEFENSIVE ("may not be modified"), and by the read-only
		 * open for reads.
		 */
		if (a1 != NULL && (sqlite3_stricmp(a1, "sqlite_master") == 0 ||
		    sqlite3_stricmp(a1, "sqlite_temp_master") == 0))
			return SQLITE_OK;
		break;
	default:
		break;
	}
	/* VACUUM needs no authorization of its own: it comes as ATTACH
	   (VACUUM INTO) or not at all, and sq_kind_of() refuses it. */
	need = needs(action);
	if (need < 0)
		return refuse(g, "%s is never run here%s", action_name(action),
		    in);
	if (need > (int)g->kind)
		return refuse(g, "%s%s%s is a %s statement, and this call "
		    "runs %s statements only", action_name(action),
		    a1 != NULL && action != SQLITE_ALTER_TABLE ? " " : "",
		    a1 != NULL && action != SQLITE_ALTER_TABLE ? a1 : "",
		    sq_kind_name((enum sq_kind)need), sq_kind_name(g->kind));
	return SQLITE_OK;
}

/* sqlite3_db_config(db, op, on, &got), and checks it took. */
static int
config(sqlite3 *db, int op, int on, const char *what, struct tc_diag *d)
{
	int got = -1;

	if (sqlite3_db_config(db, op, on, &got) != SQLITE_OK || got != on)
		return tc_diag(d, TC_ENOTSUP, "cannot turn %s %s in this "
		    "SQLite (%s)", what, on ? "on" : "off",
		    sqlite3_libversion());
	return 0;
}

/* Runs one of our own statements (before the authorizer is set). */
static int
run(sqlite3 *db, const char *sql, struct tc_diag *d)
{
	char *msg = NULL;
	int rc;

	rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		rc = tc_diag(d, (rc & 0xff) == SQLITE_CORRUPT ||
		    (rc & 0xff) == SQLITE_NOTADB ? TC_EINVAL : TC_ESYS,
		    "cannot prepare the connection (%s): %s", sql,
		    msg != NULL ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

/* 1 if PRAGMA |name| reads as |want|. */
static int
pragma_is(sqlite3 *db, const char *sql, long long want)
{
	sqlite3_stmt *st;
	int ok = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		ok = sqlite3_column_int64(st, 0) == want;
	sqlite3_finalize(st);
	return ok;
}

/* Applies the hardening of the header's list, in order; 0 or TC_E*. */
static int
harden(sqlite3 *db, struct guard *g, const struct sq_limits *lim,
    struct tc_diag *d)
{
	static const struct {
		int	id, val;
	} limits[] = {
		{ SQLITE_LIMIT_ATTACHED,		0 },
		{ SQLITE_LIMIT_EXPR_DEPTH,		500 },
		{ SQLITE_LIMIT_COMPOUND_SELECT,		100 },
		{ SQLITE_LIMIT_LIKE_PATTERN_LENGTH,	1000 },
		{ SQLITE_LIMIT_VARIABLE_NUMBER,		1000 },
		{ SQLITE_LIMIT_TRIGGER_DEPTH,		10 },
		{ SQLITE_LIMIT_FUNCTION_ARG,		100 },
		{ SQLITE_LIMIT_VDBE_OP,			1000000 },
		{ SQLITE_LIMIT_WORKER_THREADS,		0 },	/* no fork */
	};
	size_t i;
	int rc, sql_len = lim != NULL && lim->sql_len > 0 ? lim->sql_len :
	    DEF_SQL_LEN;

	sqlite3_extended_result_codes(db, 1);
	for (i = 0; i < TC_NITEMS(limits); i++) {
		sqlite3_limit(db, limits[i].id, limits[i].val);
		if (sqlite3_limit(db, limits[i].id, -1) > limits[i].val)
			return tc_diag(d, TC_ENOTSUP, "cannot set limit %d of "
			    "SQLite to %d", limits[i].id, limits[i].val);
	}
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, sql_len);
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, g->blob_len);
	if (sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1) > g->blob_len ||
	    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, -1) > sql_len)
		return tc_diag(d, TC_ENOTSUP, "cannot limit SQLite's lengths");

	if ((rc = config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0,
	    "extension loading", d)) != 0 ||
	    (rc = config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive mode",
	    d)) != 0 ||
	    (rc = config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0,
	    "trusted_schema", d)) != 0 ||
	    (rc = config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, 0,
	    "writable_schema", d)) != 0 ||
	    (rc = config(db, SQLITE_DBCONFIG_DQS_DML, 0,
	    "double-quoted strings in DML", d)) != 0 ||
	    (rc = config(db, SQLITE_DBCONFIG_DQS_DDL, 0,
	    "double-quoted strings in DDL", d)) != 0 ||
	    (rc = config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0,
	    "fts3_tokenizer", d)) != 0 ||
	    /* A read fires no trigger; should one be reached, none runs.
	       Writes keep the database's triggers: they are its rules. */
	    (rc = config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER,
	    g->kind != SQ_KIND_READ, "triggers", d)) != 0 ||
	    (rc = config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 1, "views", d)) != 0)
		return rc;
	if (sqlite3_enable_load_extension(db, 0) != SQLITE_OK)
		return tc_diag(d, TC_ENOTSUP, "cannot turn extension loading "
		    "off");

	/*
	 * Temporary tables, indexes and sorts in memory (under the heap
	 * limit), never in a file outside the database's directory.  A
	 * build with SQLITE_TEMP_STORE=0 ignores the PRAGMA: refuse it.
	 */
	if (sqlite3_compileoption_used("TEMP_STORE=0"))
		return tc_diag(d, TC_ENOTSUP, "this SQLite keeps temporary "
		    "tables in files whatever PRAGMA temp_store says "
		    "(built with SQLITE_TEMP_STORE=0)");
	if ((rc = run(db, "PRAGMA temp_store=MEMORY", d)) != 0 ||
	    (rc = run(db, "PRAGMA trusted_schema=OFF", d)) != 0 ||
	    (rc = run(db, "PRAGMA mmap_size=0", d)) != 0 ||
	    (rc = run(db, "PRAGMA cell_size_check=ON", d)) != 0)
		return rc;
	if (!pragma_is(db, "PRAGMA temp_store", 2) ||
	    !pragma_is(db, "PRAGMA trusted_schema", 0))
		return tc_diag(d, TC_ENOTSUP, "SQLite did not take "
		    "temp_store=MEMORY or trusted_schema=OFF");
	if (g->kind == SQ_KIND_READ) {
		if ((rc = run(db, "PRAGMA query_only=ON", d)) != 0)
			return rc;
		if (!pragma_is(db, "PRAGMA query_only", 1) ||
		    !sqlite3_db_readonly(db, "main"))
			return tc_diag(d, TC_ENOTSUP, "SQLite did not open "
			    "the database read-only");
	}

	sqlite3_busy_timeout(db, (int)g->busy_ms);
	sqlite3_progress_handler(db, PROGRESS_STEPS, progress, g);
	if (sqlite3_set_authorizer(db, authorize, g) != SQLITE_OK)
		return tc_diag(d, TC_ENOTSUP, "cannot set SQLite's "
		    "authorizer");
	return 0;
}

/* The guard's deadline, its limit and busy timeout, from |lim| and now. */
static void
set_times(struct guard *g, const struct sq_limits *lim)
{
	long long now = tc_now_ms(), left;

	g->deadline_ms = lim != NULL && lim->deadline_ms > 0 ?
	    lim->deadline_ms : now + DEF_DEADLINE_MS;
	g->limit_ms = g->deadline_ms - now;
	g->busy_ms = lim != NULL && lim->busy_ms > 0 ? lim->busy_ms :
	    DEF_BUSY_MS;
	/* The busy handler sleeps without VM steps: not past the deadline. */
	left = g->deadline_ms - now;
	if (g->busy_ms > left)
		g->busy_ms = left > 0 ? left : 0;
	if (g->busy_ms > 0x7fffffff)
		g->busy_ms = 0x7fffffff;
}

int
sq_conn_arm(sqlite3 *db, enum sq_kind kind, const struct sq_limits *lim)
{
	struct guard *g = guard_of(db);

	if (db == NULL || g == NULL)
		return TC_EINVAL;
	/* Read-only stays read-only; read-write never serves a read. */
	if ((g->kind == SQ_KIND_READ) != (kind == SQ_KIND_READ) ||
	    (kind != SQ_KIND_READ && kind != SQ_KIND_WRITE &&
	    kind != SQ_KIND_SCHEMA))
		return TC_EINVAL;
	g->kind = kind;
	set_times(g, lim);
	g->timed_out = 0;
	g->reason[0] = '\0';
	sqlite3_busy_timeout(db, (int)g->busy_ms);
	return 0;
}

int
sq_conn_open(const char *path, enum sq_kind kind,
    const struct sq_limits *lim, sqlite3 **db, struct tc_diag *d)
{
	struct guard *g;
	int flags, rc;

	*db = NULL;
	/* Never a URI: only a name beginning "file:" could be one. */
	if (path == NULL || path[0] != '/')
		return tc_diag(d, TC_EINVAL, "database path '%s' is not "
		    "absolute", path == NULL ? "" : path);
	if (kind != SQ_KIND_READ && kind != SQ_KIND_WRITE &&
	    kind != SQ_KIND_SCHEMA)
		return tc_diag(d, TC_EINVAL, "unknown statement kind %d",
		    (int)kind);
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	g->kind = kind;
	set_times(g, lim);
	g->heap_bytes = lim != NULL && lim->heap_bytes > 0 ? lim->heap_bytes :
	    DEF_HEAP;
	g->blob_len = lim != NULL && lim->blob_len > 0 ? lim->blob_len :
	    DEF_BLOB_LEN;

	/* For the whole process (the child's); set before SQLite allocates. */
	sqlite3_hard_heap_limit64(g->heap_bytes);
	if (sqlite3_hard_heap_limit64(-1) != g->heap_bytes) {
		free(g);
		return tc_diag(d, TC_ENOTSUP, "cannot limit SQLite's heap");
	}

	flags = (kind == SQ_KIND_READ ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOFOLLOW |
	    SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOMUTEX |
	    SQLITE_OPEN_PRIVATECACHE;
	rc = sqlite3_open_v2(path, db, flags, NULL);
	if (rc != SQLITE_OK) {
		if (*db != NULL)
			rc = sqlite3_extended_errcode(*db);
		if (rc == SQLITE_CANTOPEN_SYMLINK)
			rc = tc_diag(d, TC_EDENIED, "cannot open database "
			    "'%s': it is a symbolic link", path);
		else
			rc = tc_diag(d, (rc & 0xff) == SQLITE_CANTOPEN ?
			    TC_ENOTFOUND : TC_ESYS, "cannot open database "
			    "'%s': %s", path, *db != NULL ?
			    sqlite3_errmsg(*db) : sqlite3_errstr(rc));
		sqlite3_close_v2(*db);
		*db = NULL;
		free(g);
		return rc;
	}
	g->db = *db;
	g->next = guards;
	guards = g;
	if ((rc = harden(*db, g, lim, d)) != 0) {
		sq_conn_close(*db);
		*db = NULL;
		return rc;
	}
	return 0;
}

/*
 * Why a write was refused as SQLite's "readonly database": the file, or
 * its directory (SQLITE_READONLY_DIRECTORY: the journal could not be made
 * there), cannot be written by the calls' user.  Both are the policy
 * owner's to fix, and the message says which, with the path.  Any other
 * cause (the file moved under the connection, a lock it could not take)
 * keeps SQLite's own words.
 */
static int
readonly(sqlite3 *db, const char *msg, struct tc_diag *d)
{
	const char *path = db != NULL ? sqlite3_db_filename(db, "main") : NULL;
	const char *slash;
	int dirlen;
	int ext = db != NULL ? sqlite3_extended_errcode(db) : SQLITE_READONLY;

	/* Moved, unlocked, recovering...: SQLite's own words say it. */
	if (ext != SQLITE_READONLY && ext != SQLITE_READONLY_DIRECTORY)
		return tc_diag(d, TC_EDENIED, "%s", msg);
	if (path == NULL || path[0] != '/')
		return tc_diag(d, TC_EDENIED, "%s: the file cannot be "
		    "written", msg);
	if (ext == SQLITE_READONLY)
		return tc_diag(d, TC_EDENIED, "%s: the file '%s' cannot be "
		    "written by the user calls run as: its owner must make it "
		    "writable, or mark the database read-only", msg, path);
	slash = strrchr(path, '/');
	dirlen = slash == path ? 1 : (int)(slash - path);
	return tc_diag(d, TC_EDENIED, "%s: its directory '%.*s' cannot be "
	    "written by the user calls run as, and SQLite makes the "
	    "database's journal there: its owner must make the directory "
	    "writable, or mark the database read-only", msg, dirlen, path);
}

int
sq_conn_error(sqlite3 *db, int rc, struct tc_diag *d)
{
	struct guard *g = guard_of(db);
	const char *msg = db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
	int code;

	/*
	 * A refusal comes back as SQLITE_AUTH, or as SQLITE_ERROR "not
	 * authorized to use function: ..." for a function.
	 */
	if (g != NULL && g->reason[0] != '\0') {
		code = (rc & 0xff) == SQLITE_AUTH ||
		    strstr(msg, "not authorized") != NULL ?
		    tc_diag(d, TC_EDENIED, "%s", g->reason) : 0;
		g->reason[0] = '\0';
		if (code != 0)
			return code;
	}
	switch (rc & 0xff) {
	case SQLITE_AUTH:
		return tc_diag(d, TC_EDENIED, "refused: %s", msg);
	case SQLITE_INTERRUPT:
		if (g != NULL && g->timed_out)
			return tc_diag(d, TC_ETIMEOUT, "interrupted: the "
			    "call's time limit of %lld ms", g->limit_ms);
		return tc_diag(d, TC_ETIMEOUT, "interrupted: %s", msg);
	case SQLITE_READONLY:
		if (g != NULL && g->kind == SQ_KIND_READ)
			return tc_diag(d, TC_EDENIED, "%s: this call only "
			    "reads", msg);
		return readonly(db, msg, d);
	case SQLITE_TOOBIG:
		return tc_diag(d, TC_ETOOBIG, "%s: a string or blob is "
		    "limited to %d bytes here", msg,
		    g != NULL ? g->blob_len : DEF_BLOB_LEN);
	case SQLITE_NOMEM:
		return tc_diag(d, TC_ETOOBIG, "out of memory: the statement "
		    "needs more than the limit of %lld bytes here",
		    g != NULL ? g->heap_bytes : DEF_HEAP);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return tc_diag(d, TC_ETIMEOUT, "%s: another connection held "
		    "it past the wait of %lld ms", msg,
		    g != NULL ? g->busy_ms : DEF_BUSY_MS);
	case SQLITE_ERROR:
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_SCHEMA:
		return tc_diag(d, TC_EINVAL, "%s", msg);
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return tc_diag(d, TC_EINVAL, "%s: the database file is "
		    "damaged or not a database", msg);
	default:
		return tc_diag(d, TC_ESYS, "%s", msg);
	}
}

void
sq_conn_done(sqlite3 *db)
{
	/* A transaction that a failure left open ends here, before the
	 * answer says what changed: rolled back, as the next connection
	 * would roll back the journal the exit left. */
	if (db != NULL && !sqlite3_get_autocommit(db))
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

void
sq_conn_close(sqlite3 *db)
{
	struct guard **gp, *g;

	if (db == NULL)
		return;
	sqlite3_close_v2(db);
	for (gp = &guards; (g = *gp) != NULL; gp = &g->next) {
		if (g->db == db) {
			*gp = g->next;
			free(g);
			return;
		}
	}
}
