/*
 * test-sqlconn.c: sq_conn_open() and its guard (servers/sqlite/
 * sqlite_conn.c) against the real SQLite, on database files in a scratch
 * directory D:
 *
 *	D/main.db	t(id, name) with 1000 rows, log(msg), a trigger
 *			that logs each insert into t, a view tv
 *	D/hostile.db	views and triggers that call a function with side
 *			effects, load_extension() and writefile()
 *	D/badschema.db	a sqlite_schema row whose SQL does not parse
 *	D/corrupt.db	main.db with its pages after the first overwritten
 *	D/notadb	a text file
 *	D/link.db	a symbolic link to main.db
 *	D/dirlink	a symbolic link to D
 *	D/file:x.db	a database whose name looks like a URI
 *	D/jdir/j.db	a database whose journal is a link to D/victim
 *
 * Each known bypass is a row of a table: the SQL, the kind sq_kind_of()
 * gives it (or its refusal), and what the guarded connection of a given
 * kind answers, the layer that stops it named in the test's title.  Some
 * rows run a second time with the authorizer peeled off, to show the
 * layer under it (open flags, limits, DEFENSIVE, trusted_schema) holds
 * alone.  side_effect() and writefile() are the test's own functions
 * (as a build or extension might have), each counting its calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "tap.h"

#include "../../servers/sqlite/sqlite_conn.h"

static char D[PATH_MAX];
static int side_effects;	/* calls of side_effect() and writefile() */

static void
fn_side_effect(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	side_effects++;
	sqlite3_result_int(ctx, side_effects);
}

/* Registers the test's functions with side effects on |db| (neither
 * SQLITE_INNOCUOUS, as such a function must not be). */
static void
add_functions(sqlite3 *db)
{
	sqlite3_create_function(db, "side_effect", -1, SQLITE_UTF8, NULL,
	    fn_side_effect, NULL, NULL);
	sqlite3_create_function(db, "writefile", -1, SQLITE_UTF8, NULL,
	    fn_side_effect, NULL, NULL);
	sqlite3_create_function(db, "readfile", -1, SQLITE_UTF8, NULL,
	    fn_side_effect, NULL, NULL);
}

static char *
path(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", D, name);
	return buf[i];
}

/* Runs |sql| on a plain connection (no guard), creating |name|. */
static int
setup(const char *name, const char *sql)
{
	sqlite3 *db;
	char *err = NULL;
	int rc;

	if (sqlite3_open(path(name), &db) != SQLITE_OK)
		return -1;
	add_functions(db);
	rc = sqlite3_exec(db, sql, NULL, NULL, &err);
	if (rc != SQLITE_OK)
		printf("# setup %s: %s\n", name, err);
	sqlite3_free(err);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

static int
make_dbs(void)
{
	char buf[4096];
	int fd, ok = 1;

	ok &= setup("main.db",
	    "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);"
	    "CREATE TABLE log (msg TEXT);"
	    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c "
	    "  LIMIT 1000) INSERT INTO t SELECT n, 'row ' || n FROM c;"
	    "CREATE TRIGGER t_log AFTER INSERT ON t BEGIN "
	    "  INSERT INTO log VALUES ('inserted ' || new.id); END;"
	    "CREATE VIEW tv AS SELECT * FROM t;") == 0;
	ok &= setup("file:x.db", "CREATE TABLE lit (a); "
	    "INSERT INTO lit VALUES (42);") == 0;
	ok &= setup("hostile.db",
	    "CREATE TABLE h (a); CREATE TABLE h2 (a); CREATE TABLE h3 (a);"
	    "CREATE VIEW fv AS SELECT side_effect(1) AS s;"
	    "CREATE VIEW lv AS SELECT load_extension('/nonexistent.so');"
	    "CREATE TRIGGER h_fx AFTER INSERT ON h BEGIN "
	    "  SELECT side_effect(2); END;"
	    "CREATE TRIGGER h2_wf AFTER INSERT ON h2 BEGIN "
	    "  SELECT writefile('/tmp/toolcell-pwned', 'x'); END;"
	    "CREATE TRIGGER h3_rd AFTER INSERT ON h3 BEGIN "
	    "  SELECT readfile('/etc/passwd'); END;") == 0;
	ok &= setup("badschema.db",
	    "CREATE TABLE ok (a);"
	    "PRAGMA writable_schema = ON;"
	    "INSERT INTO sqlite_schema VALUES ('table', 'x', 'x', 0, "
	    "  'CREATE TABLE x (a');"
	    "PRAGMA writable_schema = OFF;") == 0;
	ok &= setup("corrupt.db",
	    "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);"
	    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c "
	    "  LIMIT 1000) INSERT INTO t SELECT n, 'row ' || n FROM c;") == 0;
	/* Every page but the first (the schema) overwritten. */
	memset(buf, 0x5a, sizeof(buf));
	if ((fd = open(path("corrupt.db"), O_WRONLY)) < 0 ||
	    pwrite(fd, buf, sizeof(buf), 4096) != (ssize_t)sizeof(buf) ||
	    pwrite(fd, buf, sizeof(buf), 8192) != (ssize_t)sizeof(buf))
		ok = 0;
	if (fd >= 0)
		close(fd);
	if ((fd = open(path("notadb"), O_WRONLY | O_CREAT, 0644)) < 0 ||
	    write(fd, "root:x:0:0:root:/root:/bin/sh\n", 30) != 30)
		ok = 0;
	if (fd >= 0)
		close(fd);
	/* A journal that is a link to a file outside. */
	if (mkdir(path("jdir"), 0755) != 0 || setup("jdir/j.db",
	    "CREATE TABLE j (a);") != 0 ||
	    (fd = open(path("victim"), O_WRONLY | O_CREAT, 0644)) < 0 ||
	    write(fd, "victim\n", 7) != 7 || close(fd) != 0 ||
	    symlink(path("victim"), path("jdir/j.db-journal")) != 0)
		ok = 0;
	if (symlink("main.db", path("link.db")) != 0 ||
	    symlink(".", path("dirlink")) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

static int
count(const char *db, const char *table)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	char sql[128];
	int n = -1;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	if (sqlite3_open_v2(path(db), &h, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK && sqlite3_prepare_v2(h, sql, -1, &st, NULL) ==
	    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return n;
}

/*
 * Runs |sql| statement by statement, stepping each to its end, as the
 * server does; returns 0, or sq_conn_error()'s code with |d| filled.
 */
static int
run_all(sqlite3 *db, const char *sql, struct tc_diag *d)
{
	sqlite3_stmt *st;
	const char *tail = sql;
	int rc;

	d->msg[0] = '\0';
	while (*tail != '\0') {
		rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
		if (rc != SQLITE_OK)
			return sq_conn_error(db, rc, d);
		if (st == NULL)
			continue;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		if (rc != SQLITE_DONE) {
			rc = sq_conn_error(db, rc, d);
			sqlite3_finalize(st);
			return rc;
		}
		sqlite3_finalize(st);
	}
	return 0;
}

#define R	SQ_KIND_READ
#define W	SQ_KIND_WRITE
#define S	SQ_KIND_SCHEMA
#define NO	(-1)		/* sq_kind_of() refuses it */

/* What to look at after a row ran: nothing changed. */
enum after {
	NOTHING,
	T_SAME,		/* main.db's t still has 1000 rows */
	LOG_SAME,	/* main.db's log is empty */
	NO_FILE,	/* D/new.db and /tmp/toolcell-copy.db do not exist */
	NO_EFFECT,	/* side_effect() and writefile() were never called */
	VICTIM_SAME,	/* D/victim still holds "victim\n" */
};

static const struct attack {
	const char	*what;
	const char	*layer;		/* the first that stops it */
	const char	*db;
	int		 conn;		/* the connection's kind */
	const char	*sql;
	int		 kind;		/* sq_kind_of(): R, W, S or NO */
	int		 rc;		/* the guarded connection's */
	const char	*msg;
	enum after	 after;
	/* the same with the authorizer peeled off; rc 1 to skip */
	int		 prc;
	const char	*pmsg;
	const char	*player;	/* the layer that stops it then */
} attacks[] = {
	/* ANCHORS-SANDBOX 34: ATTACH */
	{ "ATTACH a new file", "authorizer", "main.db", W,
	    "ATTACH '@D@/new.db' AS n", NO, TC_EDENIED,
	    "ATTACH is never run here", NO_FILE,
	    TC_EINVAL, "too many attached databases",
	    "limit (SQLITE_LIMIT_ATTACHED 0)" },
	{ "ATTACH /etc/passwd", "authorizer", "main.db", R,
	    "ATTACH '/etc/passwd' AS p", NO, TC_EDENIED,
	    "ATTACH is never run here", NOTHING,
	    TC_EINVAL, "too many attached databases",
	    "limit (SQLITE_LIMIT_ATTACHED 0)" },
	{ "ATTACH with a URI", "authorizer", "main.db", W,
	    "ATTACH 'file:@D@/new.db?mode=rwc' AS n", NO, TC_EDENIED,
	    "ATTACH is never run here", NO_FILE,
	    TC_EINVAL, "too many attached databases",
	    "limit (SQLITE_LIMIT_ATTACHED 0)" },
	{ "ATTACH inside a batch of reads", "authorizer", "main.db", R,
	    "SELECT 1; ATTACH '@D@/new.db' AS n; SELECT 2", NO, TC_EDENIED,
	    "ATTACH is never run here", NO_FILE, 1, NULL, NULL },
	{ "DETACH", "authorizer", "main.db", W, "DETACH main", NO,
	    TC_EDENIED, "DETACH is never run here", NOTHING, 1, NULL, NULL },
	/* 35: VACUUM INTO from a read connection */
	{ "VACUUM INTO from a read", "authorizer", "main.db", R,
	    "VACUUM INTO '/tmp/toolcell-copy.db'", NO, TC_EDENIED,
	    "ATTACH is never run here", NO_FILE,
	    TC_EINVAL, "too many attached databases",
	    "limit (SQLITE_LIMIT_ATTACHED 0)" },
	{ "VACUUM INTO from a write", "authorizer", "main.db", W,
	    "VACUUM INTO '@D@/new.db'", NO, TC_EDENIED,
	    "ATTACH is never run here", NO_FILE,
	    TC_EINVAL, "too many attached databases",
	    "limit (SQLITE_LIMIT_ATTACHED 0)" },
	{ "VACUUM", "authorizer", "main.db", W, "VACUUM", NO, TC_EDENIED,
	    "ATTACH is never run here", NOTHING, 1, NULL, NULL },
	/* 36: load_extension() */
	{ "load_extension()", "authorizer", "main.db", R,
	    "SELECT load_extension('/tmp/x.so')", NO, TC_EDENIED,
	    "load_extension() is never run here", NOTHING,
	    TC_EINVAL, "not authorized",
	    "extension loading off" },
	{ "load_extension() by a quoted name", "authorizer", "main.db", R,
	    "SELECT \"load_extension\"('/tmp/x.so', 'init')", NO,
	    TC_EDENIED, "load_extension() is never run here", NOTHING,
	    TC_EINVAL, "not authorized",
	    "extension loading off" },
	{ "fts3_tokenizer() (DBHub #377's kind)", "authorizer", "main.db",
	    R, "SELECT fts3_tokenizer('simple')", NO, TC_EDENIED,
	    "fts3_tokenizer() is never run here", NOTHING, 1, NULL, NULL },
	{ "writefile() where a build has it", "authorizer", "main.db", W,
	    "SELECT writefile('/tmp/toolcell-pwned', 'x')", NO, TC_EDENIED,
	    "writefile() is never run here", NO_EFFECT, 1, NULL, NULL },
	/* 37: PRAGMA and schema tricks */
	{ "PRAGMA writable_schema=ON", "authorizer", "main.db", W,
	    "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = "
	    "'CREATE TABLE t (x)' WHERE name = 't'", NO, TC_EDENIED,
	    "PRAGMA writable_schema with an argument is not run here",
	    T_SAME, TC_EINVAL, "may not be modified",
	    "DEFENSIVE and writable_schema off" },
	{ "PRAGMA journal_mode=OFF", "authorizer", "main.db", W,
	    "PRAGMA journal_mode=OFF", NO, TC_EDENIED,
	    "PRAGMA journal_mode with an argument is not run here", NOTHING,
	    1, NULL, NULL },
	{ "PRAGMA query_only=OFF inside a batch", "authorizer", "main.db",
	    R, "SELECT 1; PRAGMA query_only=OFF; DELETE FROM t", NO,
	    TC_EDENIED, "PRAGMA query_only with an argument is not run here",
	    T_SAME, TC_EDENIED, "readonly database",
	    "read-only open" },
	{ "PRAGMA temp_store_directory", "authorizer", "main.db", W,
	    "PRAGMA temp_store_directory = '/tmp'", NO, TC_EDENIED,
	    "PRAGMA temp_store_directory", NOTHING, 1, NULL, NULL },
	{ "PRAGMA mmap_size", "authorizer", "main.db", R,
	    "PRAGMA mmap_size = 1000000", NO, TC_EDENIED,
	    "PRAGMA mmap_size", NOTHING, 1, NULL, NULL },
	{ "PRAGMA recursive_triggers", "authorizer", "main.db", W,
	    "PRAGMA recursive_triggers = ON", NO, TC_EDENIED,
	    "PRAGMA recursive_triggers", NOTHING, 1, NULL, NULL },
	{ "PRAGMA schema_version=N", "authorizer", "main.db", W,
	    "PRAGMA schema_version = 1", NO, TC_EDENIED,
	    "PRAGMA schema_version with an argument", NOTHING, 1, NULL, NULL },
	{ "PRAGMA user_version=N from a read", "authorizer", "main.db", R,
	    "PRAGMA user_version = 7", NO, TC_EDENIED,
	    "PRAGMA user_version with an argument", NOTHING,
	    TC_EDENIED, "readonly database",
	    "read-only open" },
	{ "a pragma table that sets", "SQLite", "main.db", R,
	    "SELECT * FROM pragma_user_version(7)", R, TC_EINVAL,
	    "too many arguments", NOTHING, 1, NULL, NULL },
	/* a read that is not one */
	{ "INSERT from a read", "authorizer", "main.db", R,
	    "INSERT INTO t (name) VALUES ('x')", W, TC_EDENIED,
	    "INSERT t is a write statement, and this call runs read",
	    T_SAME, TC_EDENIED, "readonly database",
	    "read-only open" },
	{ "INSERT ... RETURNING from a read", "authorizer", "main.db", R,
	    "INSERT INTO t (name) VALUES ('x') RETURNING id", W, TC_EDENIED,
	    "INSERT t is a write statement", T_SAME,
	    TC_EDENIED, "readonly database",
	    "read-only open" },
	{ "UPSERT from a read", "authorizer", "main.db", R,
	    "INSERT INTO t VALUES (1, 'x') ON CONFLICT DO UPDATE SET "
	    "name = 'y'", W, TC_EDENIED, "is a write statement", T_SAME,
	    TC_EDENIED, "readonly database",
	    "read-only open" },
	{ "REPLACE from a read", "authorizer", "main.db", R,
	    "REPLACE INTO t VALUES (1, 'x')", W, TC_EDENIED,
	    "is a write statement", T_SAME, 1, NULL, NULL },
	{ "WITH x AS (...) DELETE (DBHub #271)", "authorizer", "main.db", R,
	    "WITH x AS (SELECT 1) DELETE FROM t", W, TC_EDENIED,
	    "DELETE t is a write statement", T_SAME,
	    TC_EDENIED, "readonly database",
	    "read-only open" },
	{ "a read then a write in a batch", "authorizer", "main.db", R,
	    "SELECT * FROM t; DELETE FROM t", W, TC_EDENIED,
	    "DELETE t is a write statement", T_SAME, 1, NULL, NULL },
	{ "DROP TABLE from a read", "authorizer", "main.db", R,
	    "DROP TABLE t", S, TC_EDENIED, "DROP TABLE t is a schema "
	    "statement", T_SAME, TC_EDENIED, "readonly database",
	    "read-only open" },
	{ "CREATE TEMP TABLE from a read", "authorizer", "main.db", R,
	    "CREATE TEMP TABLE x (a)", S, TC_EDENIED,
	    "CREATE TABLE x is a schema statement", NOTHING, 1, NULL, NULL },
	{ "CREATE TABLE from a write", "authorizer", "main.db", W,
	    "CREATE TABLE x (a)", S, TC_EDENIED,
	    "CREATE TABLE x is a schema statement, and this call runs write",
	    NOTHING, 1, NULL, NULL },
	{ "ALTER TABLE from a write", "authorizer", "main.db", W,
	    "ALTER TABLE t RENAME TO u", S, TC_EDENIED,
	    "ALTER TABLE is a schema statement", T_SAME, 1, NULL, NULL },
	{ "ANALYZE from a write", "authorizer", "main.db", W, "ANALYZE", S,
	    TC_EDENIED, "is a schema statement", NOTHING, 1, NULL, NULL },
	{ "an empty statement (DBHub #283)", "kind", "main.db", R,
	    "/*!DELETE FROM t*/", NO, 0, NULL, T_SAME, 1, NULL, NULL },
	/* hostile schema: views and triggers of the file */
	{ "a view calling a function with side effects", "trusted_schema",
	    "hostile.db", R, "SELECT * FROM fv", R, TC_EINVAL,
	    "unsafe use of side_effect()", NO_EFFECT,
	    TC_EINVAL, "unsafe use of side_effect()",
	    "trusted_schema off" },
	{ "a view calling load_extension()", "trusted_schema", "hostile.db",
	    R, "SELECT * FROM lv", R, TC_EINVAL,
	    "unsafe use of load_extension()", NOTHING,
	    TC_EINVAL, "unsafe use of load_extension()",
	    "trusted_schema off" },
	{ "a trigger calling a function with side effects",
	    "trusted_schema", "hostile.db", W, "INSERT INTO h VALUES (1)", W,
	    TC_EINVAL, "unsafe use of side_effect()", NO_EFFECT,
	    TC_EINVAL, "unsafe use of side_effect()",
	    "trusted_schema off" },
	{ "a trigger calling writefile()", "authorizer", "hostile.db", W,
	    "INSERT INTO h2 VALUES (1)", W, TC_EDENIED,
	    "writefile() is never run here: it reaches outside the database "
	    "(in trigger h2_wf)", NO_EFFECT,
	    TC_EINVAL, "unsafe use of writefile()",
	    "trusted_schema off" },
	{ "a trigger calling readfile()", "authorizer", "hostile.db", W,
	    "INSERT INTO h3 VALUES (1)", W, TC_EDENIED,
	    "readfile() is never run here", NO_EFFECT, 1, NULL, NULL },
	{ "a malformed sqlite_schema row", "SQLite", "badschema.db", R,
	    "SELECT * FROM ok", R, TC_EINVAL, "malformed database schema",
	    NOTHING, 1, NULL, NULL },
	{ "a corrupt database file", "SQLite", "corrupt.db", R,
	    "SELECT count(*), max(length(name)) FROM t", R, TC_EINVAL,
	    "damaged", NOTHING, 1, NULL, NULL },
	{ "a journal that is a link outside", "SQLite (O_NOFOLLOW)",
	    "jdir/j.db", W, "INSERT INTO j VALUES (1)", W, TC_ESYS,
	    "unable to open", VICTIM_SAME, 1, NULL, NULL },
	{ "a file that is no database", "SQLite", "notadb", R,
	    "SELECT * FROM sqlite_schema", R, TC_EINVAL,
	    "file is not a database", NOTHING, 1, NULL, NULL },
	/* 39: blow-ups, by the limits */
	{ "zeroblob(1e9)", "limits", "main.db", R,
	    "SELECT zeroblob(1000000000)", R, TC_ETOOBIG,
	    "limited to 16777216 bytes", NOTHING, 1, NULL, NULL },
	{ "randomblob(1e8)", "limits", "main.db", R,
	    "SELECT length(randomblob(100000000))", R, TC_ETOOBIG,
	    "string or blob too big", NOTHING, 1, NULL, NULL },
	{ "a long string by concatenation", "limits", "main.db", R,
	    "WITH RECURSIVE c(s) AS (SELECT 'xxxxxxxxxxxxxxxx' UNION ALL "
	    "SELECT s || s FROM c) SELECT length(s) FROM c", R, TC_ETOOBIG,
	    "string or blob too big", NOTHING, 1, NULL, NULL },
	{ "a LIKE pattern too long", "limits", "main.db", R,
	    "SELECT 'a' LIKE printf('%.2000c', '%')", R, TC_EINVAL,
	    "LIKE or GLOB pattern too complex", NOTHING, 1, NULL, NULL },
	{ "a compound SELECT too long", "limits", "main.db", R,
	    "@COMPOUND@", R, TC_EINVAL, "too many terms in compound SELECT",
	    NOTHING, 1, NULL, NULL },
	{ "an expression too deep", "limits", "main.db", R, "@DEEP@", R,
	    TC_EINVAL, "Expression tree is too large", NOTHING, 1, NULL, NULL },
	/* what a kind allows runs */
	{ "a read", "none", "main.db", R,
	    "SELECT count(*) FROM t; SELECT * FROM tv WHERE id = 3", R, 0,
	    NULL, T_SAME, 1, NULL, NULL },
	{ "harmless PRAGMAs", "none", "main.db", R,
	    "PRAGMA table_info(t); PRAGMA index_list(t); PRAGMA user_version;"
	    " PRAGMA temp_store; SELECT * FROM pragma_table_info('t')", R, 0,
	    NULL, NOTHING, 1, NULL, NULL },
	{ "a recursive CTE with a LIMIT", "none", "main.db", R,
	    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c "
	    "LIMIT 100000) SELECT count(*) FROM c", R, 0, NULL, NOTHING, 1,
	    NULL, NULL },
	{ "a write in a transaction", "none", "main.db", W,
	    "BEGIN; UPDATE t SET name = 'x' WHERE id = 1; ROLLBACK", W, 0,
	    NULL, LOG_SAME, 1, NULL, NULL },
	{ "the literal file 'file:x.db'", "none", "file:x.db", R,
	    "SELECT a FROM lit", R, 0, NULL, NOTHING, 1, NULL, NULL },
};

/* |s| with "@D@" as D and the long generated statements. */
static char *
expand(const char *s)
{
	size_t cap = 64 * 1024, n = 0, i;
	char *out = malloc(cap);

	if (out == NULL)
		abort();
	if (strcmp(s, "@COMPOUND@") == 0) {
		for (i = 0; i < 200; i++)
			n += (size_t)snprintf(out + n, cap - n, "%sSELECT %zu",
			    i > 0 ? " UNION ALL " : "", i);
		return out;
	}
	if (strcmp(s, "@DEEP@") == 0) {
		n = (size_t)snprintf(out, cap, "SELECT 1");
		for (i = 0; i < 1000; i++)
			n += (size_t)snprintf(out + n, cap - n, " + 1");
		return out;
	}
	for (; *s != '\0' && n + PATH_MAX + 1 < cap; s++) {
		if (strncmp(s, "@D@", 3) == 0) {
			n += (size_t)snprintf(out + n, cap - n, "%s", D);
			s += 2;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	return out;
}

static void
check_after(enum after a, const char *what)
{
	switch (a) {
	case NOTHING:
		break;
	case T_SAME:
		is_int(count("main.db", "t"), 1000, "  %s: t unchanged", what);
		break;
	case LOG_SAME:
		is_int(count("main.db", "log"), 0, "  %s: log unchanged", what);
		break;
	case NO_FILE:
		ok(access(path("new.db"), F_OK) != 0 &&
		    access("/tmp/toolcell-copy.db", F_OK) != 0,
		    "  %s: no file made", what);
		break;
	case NO_EFFECT:
		is_int(side_effects, 0, "  %s: no side effect", what);
		break;
	case VICTIM_SAME: {
		char buf[16] = "";
		int fd = open(path("victim"), O_RDONLY);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf) - 1) < 0)
				buf[0] = '\0';
			close(fd);
		}
		is_str(buf, "victim\n", "  %s: the file outside unchanged",
		    what);
		break;
	}
	}
}

static void
attacks_run(void)
{
	struct tc_diag d = { "", 0 };
	enum sq_kind kind;
	sqlite3 *db;
	size_t i, n;
	int rc;

	for (i = 0; i < TC_NITEMS(attacks); i++) {
		const struct attack *a = &attacks[i];
		char *sql = expand(a->sql);

		side_effects = 0;
		rc = sq_kind_of(sql, strlen(sql), &kind, &n, &d);
		if (a->kind == NO)
			is_int(rc, TC_EINVAL, "%s: sq_kind_of refuses it (%s)",
			    a->what, d.msg);
		else
			ok(rc == 0 && (int)kind == a->kind, "%s: sq_kind_of "
			    "says %s", a->what, sq_kind_name(
			    (enum sq_kind)a->kind));

		rc = sq_conn_open(path(a->db), (enum sq_kind)a->conn, NULL,
		    &db, &d);
		if (!is_int(rc, 0, "  %s: open %s for %s", a->what, a->db,
		    sq_kind_name((enum sq_kind)a->conn))) {
			printf("# %s\n", d.msg);
			free(sql);
			continue;
		}
		add_functions(db);
		rc = run_all(db, sql, &d);
		if (a->msg == NULL) {
			if (!is_int(rc, 0, "  %s: runs", a->what))
				printf("# %s\n", d.msg);
		} else {
			is_int(rc, a->rc, "  %s: stopped by the %s (%s)",
			    a->what, a->layer, tc_errname(a->rc));
			like(d.msg, a->msg, "  %s: says why", a->what);
		}
		sq_conn_close(db);
		check_after(a->after, a->what);

		if (a->prc == 1) {
			free(sql);
			continue;
		}
		/* The layer under the authorizer, alone. */
		side_effects = 0;
		if (sq_conn_open(path(a->db), (enum sq_kind)a->conn, NULL, &db,
		    &d) != 0) {
			ok(0, "  %s: reopen: %s", a->what, d.msg);
			free(sql);
			continue;
		}
		add_functions(db);
		sqlite3_set_authorizer(db, NULL, NULL);
		rc = run_all(db, sql, &d);
		is_int(rc, a->prc, "  %s, without the authorizer: stopped "
		    "by the %s", a->what, a->player);
		like(d.msg, a->pmsg, "  %s, without the authorizer: says why",
		    a->what);
		sq_conn_close(db);
		check_after(a->after, a->what);
		free(sql);
	}
}

/* The opening: paths, flags, never creating. */
static void
open_checks(void)
{
	struct tc_diag d = { "", 0 };
	sqlite3 *db;
	int rc;

	rc = sq_conn_open("main.db", SQ_KIND_READ, NULL, &db, &d);
	ok(rc == TC_EINVAL && db == NULL, "a relative path is refused");
	like(d.msg, "not absolute", "  and said");
	rc = sq_conn_open("file:main.db?mode=rwc", SQ_KIND_WRITE, NULL, &db,
	    &d);
	ok(rc == TC_EINVAL && db == NULL, "a URI is refused");
	ok(access("main.db?mode=rwc", F_OK) != 0, "  and makes no file");

	rc = sq_conn_open(path("missing.db"), SQ_KIND_WRITE, NULL, &db, &d);
	ok(rc == TC_ENOTFOUND && db == NULL, "a missing database: "
	    "TC_ENOTFOUND (%s)", d.msg);
	ok(access(path("missing.db"), F_OK) != 0, "  never created");
	rc = sq_conn_open(path("missing.db?mode=rwc"), SQ_KIND_SCHEMA, NULL,
	    &db, &d);
	ok(rc != 0 && access(path("missing.db?mode=rwc"), F_OK) != 0 &&
	    access(path("missing.db"), F_OK) != 0,
	    "a name with URI parameters is a name, and not created");

	rc = sq_conn_open(path("link.db"), SQ_KIND_READ, NULL, &db, &d);
	ok(rc == TC_EDENIED && db == NULL, "a symbolic link is refused "
	    "(SQLITE_OPEN_NOFOLLOW)");
	like(d.msg, "symbolic link", "  and said");
	rc = sq_conn_open(path("dirlink/main.db"), SQ_KIND_READ, NULL, &db,
	    &d);
	ok(rc == TC_EDENIED && db == NULL, "so is a link to a directory on "
	    "the way");

	rc = sq_conn_open(path("main.db"), SQ_KIND_READ, NULL, &db, &d);
	if (is_int(rc, 0, "open for reading")) {
		ok(sqlite3_db_readonly(db, "main") == 1,
		    "  read-only (SQLITE_OPEN_READONLY)");
		is_int(sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, -1), 0,
		    "  SQLITE_LIMIT_ATTACHED 0");
		is_int(sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, -1), 0,
		    "  no worker threads");
		{
			int on = -1;

			sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, -1,
			    &on);
			is_int(on, 1, "  DEFENSIVE");
			sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA,
			    -1, &on);
			is_int(on, 0, "  trusted_schema off");
			sqlite3_db_config(db,
			    SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, -1, &on);
			is_int(on, 0, "  extension loading off");
			sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, -1, &on);
			is_int(on, 0, "  no double-quoted strings");
			sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER,
			    -1, &on);
			is_int(on, 0, "  triggers off for reads");
		}
		sqlite3_set_authorizer(db, NULL, NULL);
		rc = run_all(db, "SELECT \"no such column\" FROM t", &d);
		is_int(rc, TC_EINVAL, "  a double-quoted string is a name");
		like(d.msg, "no such column", "  and said");
		sq_conn_close(db);
	}
	sq_conn_close(NULL);
	ok(1, "sq_conn_close(NULL)");
}

/* Returns the text of the first column of |sql|'s first row, or "". */
static const char *
first(sqlite3 *db, const char *sql)
{
	static char buf[64];
	sqlite3_stmt *st;

	buf[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return buf;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_text(st, 0) != NULL)
		snprintf(buf, sizeof(buf), "%s",
		    (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

/*
 * DEFENSIVE alone, the authorizer peeled off: the PRAGMAs it names are
 * ignored, and writes to the schema table refused.
 */
static void
defensive_checks(void)
{
	struct tc_diag d = { "", 0 };
	sqlite3 *db;
	char before[64];

	if (sq_conn_open(path("main.db"), SQ_KIND_SCHEMA, NULL, &db, &d) != 0) {
		ok(0, "open: %s", d.msg);
		return;
	}
	sqlite3_set_authorizer(db, NULL, NULL);
	snprintf(before, sizeof(before), "%s", first(db,
	    "PRAGMA schema_version"));
	run_all(db, "PRAGMA journal_mode=OFF", &d);
	is_str(first(db, "PRAGMA journal_mode"), "delete",
	    "without the authorizer, journal_mode=OFF is ignored (DEFENSIVE)");
	run_all(db, "PRAGMA schema_version=12345", &d);
	is_str(first(db, "PRAGMA schema_version"), before,
	    "  and schema_version=N (DEFENSIVE)");
	run_all(db, "PRAGMA writable_schema=ON", &d);
	is_int(run_all(db, "DELETE FROM sqlite_schema WHERE name = 'tv'", &d),
	    TC_EINVAL, "  and a write to sqlite_schema refused");
	like(d.msg, "may not be modified", "  and said");
	sq_conn_close(db);
	is_int(count("main.db", "t"), 1000, "  t unchanged");
}

/* The deadline, inside SQLite: statements that would never end. */
static void
deadline_checks(void)
{
	static const char *const forever[] = {
		"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 "
		"FROM c) SELECT count(*) FROM c",
		"SELECT count(*) FROM t a, t b, t c, t d, t e",
	};
	struct tc_diag d = { "", 0 };
	struct sq_limits lim = { 0, 0, 0, 0, 0 };
	enum sq_kind kind;
	sqlite3 *db;
	size_t i, n;
	int rc;

	for (i = 0; i < TC_NITEMS(forever); i++) {
		ok(sq_kind_of(forever[i], strlen(forever[i]), &kind, &n,
		    &d) == 0 && kind == SQ_KIND_READ, "a read: %s",
		    forever[i]);
		lim.deadline_ms = tc_now_ms() + 300;
		if (sq_conn_open(path("main.db"), SQ_KIND_READ, &lim, &db,
		    &d) != 0) {
			ok(0, "open: %s", d.msg);
			continue;
		}
		rc = run_all(db, forever[i], &d);
		is_int(rc, TC_ETIMEOUT, "  stopped by the deadline "
		    "(progress handler)");
		like(d.msg, "interrupted: the call's time limit of", "  "
		    "and said");
		/* Once past, every statement stops at once. */
		rc = run_all(db, "SELECT count(*) FROM t a, t b", &d);
		is_int(rc, TC_ETIMEOUT, "  and the next one too");
		sq_conn_close(db);
	}
}

/*
 * sq_conn_arm(): a connection opened ahead of its call gets the call's
 * deadline.  One whose deadline has passed runs again once armed; armed
 * with a short one, a statement that would never end stops there, and
 * the message gives the armed limit.
 */
static void
arm_checks(void)
{
	struct tc_diag d = { "", 0 };
	struct sq_limits lim = { 0, 0, 0, 0, 0 };
	sqlite3 *db;
	int rc;

	is_int(sq_conn_arm(NULL, SQ_KIND_READ, &lim), TC_EINVAL, "arm: no connection");
	lim.deadline_ms = tc_now_ms() + 50;
	if (sq_conn_open(path("main.db"), SQ_KIND_READ, &lim, &db, &d) != 0) {
		ok(0, "arm: open: %s", d.msg);
		return;
	}
	rc = run_all(db, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT "
	    "n + 1 FROM c) SELECT count(*) FROM c", &d);
	is_int(rc, TC_ETIMEOUT, "arm: past the open's deadline, stopped");
	lim.deadline_ms = tc_now_ms() + 10000;
	is_int(sq_conn_arm(db, SQ_KIND_READ, &lim), 0, "arm: armed with a new deadline");
	is_int(run_all(db, "SELECT count(*) FROM t", &d), 0, "  a statement "
	    "runs again");
	lim.deadline_ms = tc_now_ms() + 321;
	is_int(sq_conn_arm(db, SQ_KIND_READ, &lim), 0, "arm: armed with a short one");
	rc = run_all(db, "SELECT count(*) FROM t a, t b, t c, t d, t e", &d);
	is_int(rc, TC_ETIMEOUT, "  a statement that would never end stops");
	like(d.msg, "time limit of 32", "  and says the armed limit");
	/* A read-only connection stays one. */
	lim.deadline_ms = tc_now_ms() + 10000;
	is_int(sq_conn_arm(db, SQ_KIND_WRITE, &lim), TC_EINVAL, "arm: a "
	    "read connection is not armed for writes");
	is_int(sq_conn_arm(db, SQ_KIND_SCHEMA, &lim), TC_EINVAL, "  nor "
	    "for schema changes");
	rc = run_all(db, "DELETE FROM t", &d);
	ok(rc != 0, "  and still refuses a write");
	sq_conn_close(db);
	is_int(count("main.db", "t"), 1000, "  t unchanged");

	/* A read-write one moves between write and schema, never read. */
	if (sq_conn_open(path("main.db"), SQ_KIND_SCHEMA, &lim, &db,
	    &d) != 0) {
		ok(0, "arm: open read-write: %s", d.msg);
		return;
	}
	is_int(sq_conn_arm(db, SQ_KIND_READ, &lim), TC_EINVAL, "arm: a "
	    "read-write connection is not armed for reads");
	is_int(sq_conn_arm(db, SQ_KIND_WRITE, &lim), 0, "arm: read-write, "
	    "armed for writes");
	rc = run_all(db, "CREATE TABLE armed(a)", &d);
	is_int(rc, TC_EDENIED, "  refuses a schema change");
	like(d.msg, "runs write statements only", "  and says so");
	is_int(sq_conn_arm(db, SQ_KIND_SCHEMA, &lim), 0, "arm: armed for "
	    "schema changes");
	is_int(run_all(db, "CREATE TABLE armed(a); DROP TABLE armed", &d), 0,
	    "  makes and drops a table");
	sq_conn_close(db);
}

/* The heap limit, and the lengths of struct sq_limits. */
static void
limit_checks(void)
{
	struct tc_diag d = { "", 0 };
	struct sq_limits lim = { 0, 0, 0, 0, 0 };
	sqlite3 *db;
	char sql[4096];
	int rc;

	lim.heap_bytes = 8 << 20;
	lim.blob_len = 64 << 20;
	if (sq_conn_open(path("main.db"), SQ_KIND_READ, &lim, &db, &d) == 0) {
		rc = run_all(db, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL "
		    "SELECT n + 1 FROM c LIMIT 40000) SELECT length("
		    "group_concat(hex(randomblob(500)))) FROM c", &d);
		is_int(rc, TC_ETOOBIG, "a query that needs more heap than "
		    "the limit: stopped (sqlite3_hard_heap_limit64)");
		like(d.msg, "limit of 8388608 bytes", "  and said");
		sq_conn_close(db);
	} else {
		ok(0, "open: %s", d.msg);
	}

	lim.heap_bytes = 0;
	lim.blob_len = 0;
	lim.sql_len = 1000;
	memset(sql, ' ', sizeof(sql));
	memcpy(sql, "SELECT 1", 8);
	sql[sizeof(sql) - 1] = '\0';
	if (sq_conn_open(path("main.db"), SQ_KIND_READ, &lim, &db, &d) == 0) {
		rc = run_all(db, sql, &d);
		is_int(rc, TC_ETOOBIG, "SQL longer than sql_len: refused "
		    "(SQLITE_LIMIT_SQL_LENGTH)");
		sq_conn_close(db);
	} else {
		ok(0, "open: %s", d.msg);
	}
	lim.sql_len = 0;
	lim.blob_len = 1000;
	if (sq_conn_open(path("main.db"), SQ_KIND_READ, &lim, &db, &d) == 0) {
		rc = run_all(db, "SELECT zeroblob(1001)", &d);
		is_int(rc, TC_ETOOBIG, "a blob longer than blob_len: refused");
		like(d.msg, "limited to 1000 bytes", "  and said");
		sq_conn_close(db);
	} else {
		ok(0, "open: %s", d.msg);
	}
}

/* Two connections: a lock held past busy_ms is a clear error. */
static void
busy_checks(void)
{
	struct tc_diag d = { "", 0 };
	struct sq_limits lim = { 0, 0, 0, 0, 0 };
	sqlite3 *holder, *db;
	int rc;

	if (sqlite3_open(path("main.db"), &holder) != SQLITE_OK ||
	    sqlite3_exec(holder, "BEGIN EXCLUSIVE", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		ok(0, "cannot take the lock");
		sqlite3_close(holder);
		return;
	}
	lim.busy_ms = 50;
	if (sq_conn_open(path("main.db"), SQ_KIND_WRITE, &lim, &db, &d) == 0) {
		rc = run_all(db, "UPDATE t SET name = 'y' WHERE id = 2", &d);
		is_int(rc, TC_ETIMEOUT, "a lock held past busy_timeout: "
		    "TC_ETIMEOUT");
		like(d.msg, "database is locked", "  and said");
		sq_conn_close(db);
	} else {
		ok(0, "open: %s", d.msg);
	}
	sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(holder);
}

/*
 * ANCHORS-SANDBOX 38: temporary files.  A VFS over the default one
 * counts the opens of temporary files; a big sort and a temporary table
 * on a guarded connection open none, while a plain connection, for
 * contrast, does.
 */
static sqlite3_vfs *base_vfs;
static sqlite3_vfs counting_vfs;
static int temp_opens;

static int
counting_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f,
    int flags, int *out)
{
	(void)vfs;
	if (flags & (SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TEMP_JOURNAL |
	    SQLITE_OPEN_TRANSIENT_DB | SQLITE_OPEN_SUBJOURNAL))
		temp_opens++;
	return base_vfs->xOpen(base_vfs, name, f, flags, out);
}

static void
temp_checks(void)
{
	static const char big_sort[] =
	    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c "
	    "LIMIT 60000) SELECT n, randomblob(200) AS b FROM c ORDER BY b";
	struct tc_diag d = { "", 0 };
	sqlite3 *db;
	int rc;

	base_vfs = sqlite3_vfs_find(NULL);
	counting_vfs = *base_vfs;
	counting_vfs.zName = "counting";
	counting_vfs.xOpen = counting_open;
	sqlite3_vfs_register(&counting_vfs, 1);

	temp_opens = 0;
	if (sqlite3_open_v2(path("main.db"), &db, SQLITE_OPEN_READONLY,
	    NULL) == SQLITE_OK) {
		sqlite3_exec(db, "PRAGMA temp_store = FILE; PRAGMA "
		    "cache_size = 10", NULL, NULL, NULL);
		run_all(db, big_sort, &d);
	}
	sqlite3_close(db);
	ok(temp_opens > 0, "a plain connection sorts in a temporary file "
	    "(the contrast: %d)", temp_opens);

	temp_opens = 0;
	if (sq_conn_open(path("main.db"), SQ_KIND_READ, NULL, &db, &d) == 0) {
		rc = run_all(db, big_sort, &d);
		is_int(rc, 0, "a big sort on a guarded connection runs");
		sq_conn_close(db);
	}
	if (sq_conn_open(path("main.db"), SQ_KIND_SCHEMA, NULL, &db, &d) ==
	    0) {
		rc = run_all(db, "CREATE TEMP TABLE x AS SELECT * FROM t; "
		    "BEGIN; UPDATE t SET name = name || '!'; ROLLBACK", &d);
		is_int(rc, 0, "a temporary table and a statement journal run");
		sq_conn_close(db);
	}
	is_int(temp_opens, 0, "  and open no temporary file "
	    "(temp_store=MEMORY)");
	sqlite3_vfs_unregister(&counting_vfs);
}

static int
rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int
main(void)
{
	snprintf(D, sizeof(D), "%s/test-sqlconn.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(D) == NULL || make_dbs() != 0) {
		ok(0, "cannot make the scratch databases: %s", strerror(errno));
		return done_testing();
	}
	unlink("/tmp/toolcell-copy.db");
	printf("# SQLite %s\n", sqlite3_libversion());
	open_checks();
	attacks_run();
	defensive_checks();
	deadline_checks();
	arm_checks();
	limit_checks();
	busy_checks();
	temp_checks();
	nftw(D, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
