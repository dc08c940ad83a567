/*
 * test-sqlkind.c: sq_kind_of() (servers/sqlite/sqlite_kind.c), what a
 * piece of SQL would do, read as tokens: a table of statements, each with
 * the kind, the number of statements and (when refused) the words of the
 * message; then each accepted one held against the real SQLite, which
 * prepares it statement by statement on a guarded connection of the kind
 * sq_kind_of() answered: the guard must never find more in it (a
 * "statements only" refusal), nor SQLite more statements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "tap.h"

#include "../../servers/sqlite/sqlite_conn.h"

#define R	SQ_KIND_READ
#define W	SQ_KIND_WRITE
#define S	SQ_KIND_SCHEMA
#define NO	(-1)		/* refused: TC_EINVAL */

static const struct kcase {
	const char	*sql;
	int		 kind;	/* R, W, S or NO */
	size_t		 n;	/* statements, when accepted */
	const char	*msg;	/* in the message, when refused */
} cases[] = {
	/* plain reads */
	{ "SELECT 1", R, 1, NULL },
	{ "select * from t where a = 'x'", R, 1, NULL },
	{ "VALUES (1), (2)", R, 1, NULL },
	{ "  SELECT 1 ;  ", R, 1, NULL },
	{ "SELECT 1; SELECT 2;", R, 2, NULL },
	{ "SELECT 1;;;SELECT 2", R, 2, NULL },
	{ "WITH x AS (SELECT 1) SELECT * FROM x", R, 1, NULL },
	{ "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c "
	    "LIMIT 5) SELECT n FROM c", R, 1, NULL },
	{ "EXPLAIN QUERY PLAN SELECT * FROM t", R, 1, NULL },
	{ "SELECT replace(b, 'x', 'y') FROM t", R, 1, NULL },
	{ "SELECT replace (b, 'x', 'y') FROM t", R, 1, NULL },
	{ "SELECT \"delete\", [update], `insert` FROM t", R, 1, NULL },
	{ "SELECT 'DELETE FROM t; DROP TABLE t' AS s", R, 1, NULL },
	{ "SELECT 1 -- ; DELETE FROM t\n", R, 1, NULL },
	{ "SELECT 1 /* ; DELETE FROM t */", R, 1, NULL },
	{ "SELECT x'00ff', 'it''s'", R, 1, NULL },
	{ "SELECT * FROM t WHERE a = ?1 OR b = :name OR b = @v OR b = $w",
	    R, 1, NULL },
	/* harmless PRAGMAs, the forms that read */
	{ "PRAGMA table_info(t)", R, 1, NULL },
	{ "PRAGMA main.table_info('t')", R, 1, NULL },
	{ "pragma \"TABLE_INFO\"(t)", R, 1, NULL },
	{ "PRAGMA user_version", R, 1, NULL },
	{ "PRAGMA integrity_check", R, 1, NULL },
	{ "PRAGMA index_list(t); PRAGMA foreign_key_list(t)", R, 2, NULL },
	/* writes */
	{ "INSERT INTO t VALUES (1, 2)", W, 1, NULL },
	{ "insert or replace into t values (1, 2)", W, 1, NULL },
	{ "REPLACE INTO t VALUES (1, 2)", W, 1, NULL },
	{ "UPDATE t SET a = 1", W, 1, NULL },
	{ "DELETE FROM t", W, 1, NULL },
	{ "INSERT INTO t VALUES (1, 2) RETURNING a", W, 1, NULL },
	{ "INSERT INTO t VALUES (1, 2) ON CONFLICT DO UPDATE SET b = 3", W, 1,
	    NULL },
	{ "BEGIN; INSERT INTO t VALUES (1, 2); COMMIT", W, 3, NULL },
	{ "SAVEPOINT a; RELEASE a", W, 2, NULL },
	{ "ANALYZE", S, 1, NULL },
	{ "REINDEX", W, 1, NULL },
	{ "EXPLAIN DELETE FROM t", W, 1, NULL },
	/* a read that is not one: DML after or inside a WITH, in a batch */
	{ "WITH x AS (SELECT 1) DELETE FROM t", W, 1, NULL },
	{ "WITH x AS (SELECT 1) INSERT INTO t SELECT 1, 2 FROM x", W, 1, NULL },
	{ "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", W, 1,
	    NULL },
	{ "WITH replace AS (SELECT 1) SELECT * FROM replace", W, 1, NULL },
	{ "SELECT 1; DELETE FROM t", W, 2, NULL },
	{ "SELECT 1;DELETE FROM t", W, 2, NULL },
	{ "SELECT 'a'';DELETE FROM t;--'", R, 1, NULL },
	{ "SELECT \"a\"\";DELETE FROM t;--\"", R, 1, NULL },
	{ "SELECT 1 /* unterminated ; DELETE FROM t", R, 1, NULL },
	{ "SELECT 1 /*/ ; DELETE FROM t */", R, 1, NULL },
	{ "SELECT 1 /**/; DELETE FROM t", W, 2, NULL },
	/* a TCL variable holds what looks like a quote: SQLite runs the
	   DELETE, so it counts */
	{ "SELECT $a('x) ; DELETE FROM t; --'", W, 2, NULL },
	/* and a ';': one statement, and no DELETE in it */
	{ "SELECT :a(;DELETE) FROM t", R, 1, NULL },
	{ "SELECT a$b FROM t; DELETE FROM t", W, 2, NULL },
	/* a number then a comment, not "1e-" and a minus */
	{ "SELECT 1e--'\n; DELETE FROM t", W, 2, NULL },
	/* a byte order mark is a blank */
	{ "SELECT 1;\xef\xbb\xbf" "DELETE FROM t", W, 2, NULL },
	/* schema */
	{ "CREATE TABLE x (a)", S, 1, NULL },
	{ "DROP TABLE t", S, 1, NULL },
	{ "ALTER TABLE t ADD COLUMN c", S, 1, NULL },
	{ "CREATE TEMP VIEW v AS SELECT 1", S, 1, NULL },
	{ "SELECT 1; CREATE INDEX i ON t(a)", S, 2, NULL },
	/* a trigger's body holds ';': one statement, up to "; END ;" */
	{ "CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM t; "
	    "UPDATE t SET a = CASE WHEN 1 THEN 2 END; END; SELECT 1", S, 2,
	    NULL },
	{ "CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END",
	    S, 1, NULL },
	{ "EXPLAIN CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END;"
	    "SELECT 2", S, 2, NULL },
	/* never run */
	{ "ATTACH '/etc/passwd' AS p", NO, 0, "ATTACH is never run here" },
	{ "attach database 'x.db' as x", NO, 0, "never run" },
	{ "SELECT 1; ATTACH 'x.db' AS x", NO, 0, "statement 2: ATTACH" },
	{ "DETACH x", NO, 0, "never run" },
	{ "VACUUM", NO, 0, "never run" },
	{ "VACUUM INTO '/tmp/copy.db'", NO, 0, "never run" },
	{ "EXPLAIN VACUUM", NO, 0, "never run" },
	{ "SELECT load_extension('/tmp/x.so')", NO, 0, "load_extension()" },
	{ "SELECT LOAD_EXTENSION ('/tmp/x.so')", NO, 0, "load_extension()" },
	{ "SELECT \"load_extension\"('/tmp/x.so')", NO, 0,
	    "load_extension()" },
	{ "SELECT [load_extension]('/tmp/x.so')", NO, 0, "load_extension()" },
	{ "SELECT load_extension/**/('/tmp/x.so')", NO, 0,
	    "load_extension()" },
	{ "SELECT writefile('/tmp/x', 'y')", NO, 0, "writefile()" },
	{ "SELECT readfile('/etc/passwd')", NO, 0, "readfile()" },
	{ "SELECT fts3_tokenizer('simple')", NO, 0, "fts3_tokenizer()" },
	{ "PRAGMA writable_schema = ON", NO, 0, "sets a value" },
	{ "PRAGMA writable_schema", NO, 0, "not one that runs here" },
	{ "PRAGMA journal_mode=OFF", NO, 0, "sets a value" },
	{ "PRAGMA journal_mode = OFF", NO, 0, "sets a value" },
	{ "PRAGMA journal_mode == OFF", NO, 0, "sets a value" },
	{ "PRAGMA journal_mode(OFF)", NO, 0, "only without an argument" },
	{ "PRAGMA query_only=OFF", NO, 0, "sets a value" },
	{ "SELECT 1; PRAGMA query_only=OFF; DELETE FROM t", NO, 0,
	    "statement 2: 'PRAGMA query_only" },
	{ "PRAGMA user_version = 5", NO, 0, "sets a value" },
	{ "PRAGMA table_info = t", NO, 0, "sets a value" },
	{ "PRAGMA table_info", NO, 0, "only with an argument" },
	{ "PRAGMA temp_store_directory = '/tmp'", NO, 0, "sets a value" },
	{ "PRAGMA mmap_size", NO, 0, "not one that runs here" },
	{ "PRAGMA main.writable_schema=1", NO, 0, "sets a value" },
	{ "PRAGMA \"writable_schema\"=1", NO, 0, "sets a value" },
	{ "PRAGMA table_info(t) x", NO, 0, "malformed" },
	/* nothing to run (DBHub #283: an empty statement is no read) */
	{ "", NO, 0, "empty" },
	{ "   ", NO, 0, "no statement" },
	{ ";", NO, 0, "no statement" },
	{ ";;  ; ", NO, 0, "no statement" },
	{ "-- just a comment", NO, 0, "no statement" },
	{ "/* a comment */", NO, 0, "no statement" },
	{ "/*!DELETE FROM t*/", NO, 0, "no statement" },
	{ "/* unterminated", NO, 0, "no statement" },
	/* what SQLite would not take */
	{ "SELECT 'unterminated", NO, 0, "not closed" },
	{ "SELECT \"unterminated", NO, 0, "not closed" },
	{ "SELECT [unterminated", NO, 0, "not closed" },
	{ "SELECT x'00", NO, 0, "not closed" },
	{ "SELECT 1; 'x", NO, 0, "not closed" },
	{ "FOO BAR", NO, 0, "'FOO' does not begin" },
	{ "(SELECT 1)", NO, 0, "does not begin" },
	{ "\"SELECT\" 1", NO, 0, "does not begin" },
	{ "SELECT 1; BOGUS", NO, 0, "statement 2: 'BOGUS'" },
};

static char dbpath[] = "/tmp/test-sqlkind.XXXXXX";

/* Makes a database with the tables the statements above name. */
static int
make_db(void)
{
	sqlite3 *db;
	int fd = mkstemp(dbpath), rc;

	if (fd < 0)
		return -1;
	close(fd);
	if (sqlite3_open(dbpath, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT);"
	    "CREATE TABLE u (x);", NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

/*
 * Prepares |sql| statement by statement on a guarded connection of kind
 * |kind|, until the end or the first that fails; returns how many
 * prepared, and in |why| the guard's message if one failed for want of
 * a larger kind.
 */
static size_t
prepared(const char *sql, enum sq_kind kind, char *why, size_t size)
{
	struct tc_diag d = { "", 0 };
	sqlite3 *db;
	sqlite3_stmt *st;
	const char *tail = sql;
	size_t n = 0;
	int rc;

	why[0] = '\0';
	if (sq_conn_open(dbpath, kind, NULL, &db, &d) != 0) {
		snprintf(why, size, "open: %s", d.msg);
		return 0;
	}
	while (*tail != '\0') {
		rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
		if (rc != SQLITE_OK) {
			sq_conn_error(db, rc, &d);
			if (strstr(d.msg, "statements only") != NULL)
				snprintf(why, size, "%s", d.msg);
			break;
		}
		if (st == NULL)
			continue;	/* blanks, or a comment */
		n++;
		sqlite3_finalize(st);
	}
	sq_conn_close(db);
	return n;
}

int
main(void)
{
	struct tc_diag d = { "", 0 };
	enum sq_kind kind;
	char why[512];
	size_t i, n, got;
	int rc;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		const struct kcase *c = &cases[i];

		rc = sq_kind_of(c->sql, strlen(c->sql), &kind, &n, &d);
		if (c->kind == NO) {
			is_int(rc, TC_EINVAL, "refused: %s", c->sql);
			like(d.msg, c->msg, "  says why");
			is_int(kind, SQ_KIND_SCHEMA, "  and answers the most");
			continue;
		}
		if (!is_int(rc, 0, "%s: %s", sq_kind_name(
		    (enum sq_kind)c->kind), c->sql))
			printf("# %s\n", d.msg);
		is_str(sq_kind_name(kind), sq_kind_name((enum sq_kind)c->kind),
		    "  kind");
		is_int(n, c->n, "  statements");
	}

	/* Not NUL-terminated, and a NUL inside. */
	rc = sq_kind_of("SELECT 1; DELETE", 8, &kind, &n, &d);
	ok(rc == 0 && kind == SQ_KIND_READ && n == 1,
	    "reads |len| bytes only");
	rc = sq_kind_of("SELECT 1\0; DELETE FROM t", 24, &kind, &n, &d);
	is_int(rc, TC_EINVAL, "a NUL byte is refused");
	like(d.msg, "NUL", "  and said");
	rc = sq_kind_of(NULL, 0, &kind, &n, &d);
	is_int(rc, TC_EINVAL, "NULL is empty");

	/* A leading EXPLAIN [QUERY PLAN], which explain_query takes off:
	 * its length, through blanks and comments, in any case; one only,
	 * and never a word that only begins so. */
	{
		static const struct {
			const char	*sql;
			size_t		 len;	/* of the EXPLAIN taken off */
		} ex[] = {
			{ "EXPLAIN QUERY PLAN SELECT 1", 18 },
			{ "explain query plan select 1", 18 },
			{ "EXPLAIN SELECT 1", 7 },
			{ " \n\tExplain SELECT 1", 10 },
			{ "/* a */ EXPLAIN -- b\n QUERY /**/ PLAN SELECT 1", 37 },
			{ "\xef\xbb\xbf" "EXPLAIN SELECT 1", 10 },
			{ "EXPLAIN EXPLAIN SELECT 1", 7 },
			{ "EXPLAIN QUERY SELECT 1", 7 },
			{ "EXPLAIN", 7 },
			{ "EXPLAIN QUERY PLAN", 18 },
			{ "SELECT 1", 0 },
			{ "EXPLAINX SELECT 1", 0 },
			{ "\"EXPLAIN\" SELECT 1", 0 },
			{ "SELECT 'EXPLAIN QUERY PLAN'", 0 },
			{ "-- EXPLAIN\nSELECT 1", 0 },
			{ "", 0 },
		};

		for (i = 0; i < TC_NITEMS(ex); i++)
			is_int((int)sq_explain_len(ex[i].sql,
			    strlen(ex[i].sql)), (int)ex[i].len,
			    "explain: case %zu", i);
		is_int((int)sq_explain_len("EXPLAIN QUERY PLAN", 13), 7,
		    "explain: reads |len| bytes only");
	}

	/* The names of the kinds, and the lists. */
	is_str(sq_kind_name(SQ_KIND_READ), "read", "read");
	is_str(sq_kind_name(SQ_KIND_WRITE), "write", "write");
	is_str(sq_kind_name(SQ_KIND_SCHEMA), "schema", "schema");
	ok(sq_pragma_harmless("TABLE_INFO", 10, 1), "table_info(x) reads");
	ok(!sq_pragma_harmless("table_info", 10, 0), "bare table_info not");
	ok(!sq_pragma_harmless("user_version", 12, 1),
	    "user_version with an argument sets");
	ok(!sq_pragma_harmless("table_info_", 11, 1), "no prefix match");
	ok(!sq_pragma_harmless("", 0, 0), "no empty name");
	ok(sq_function_refused("Load_Extension", 14), "load_extension");
	ok(!sq_function_refused("load_extensio", 13), "no prefix match");

	/* Against the real SQLite. */
	if (make_db() != 0) {
		ok(0, "cannot make a database in /tmp");
		return done_testing();
	}
	for (i = 0; i < TC_NITEMS(cases); i++) {
		const struct kcase *c = &cases[i];

		if (c->kind == NO)
			continue;
		got = prepared(c->sql, (enum sq_kind)c->kind, why, sizeof(why));
		if (!ok(why[0] == '\0', "SQLite finds no more than %s in: %s",
		    sq_kind_name((enum sq_kind)c->kind), c->sql))
			printf("# %s\n", why);
		ok(got <= c->n, "  nor more than %zu statements (%zu)", c->n,
		    got);
	}
	unlink(dbpath);
	return done_testing();
}
