/*
 * fuzz-sqlkind.c: sq_kind_of() (servers/sqlite/sqlite_kind.c), held
 * against the real SQLite.  The input is SQL.  The oracles:
 *
 *	- sq_kind_of() answers 0 with a kind and at least one statement,
 *	  or TC_EINVAL with the most kind (schema) and a message;
 *	- what it accepts, SQLite prepares statement by statement on a
 *	  guarded connection (sq_conn_open()) of the kind it answered, on a
 *	  database with a table, an index, a view and a trigger, until the
 *	  end or the first statement that fails: the authorizer refuses
 *	  nothing of it for being more than that kind, nor as ATTACH,
 *	  DETACH, a PRAGMA off the list or a function that reaches outside
 *	  (sq_kind_of() refuses all those first); and SQLite finds no more
 *	  statements than sq_kind_of() counted.
 *
 * Statements are only prepared, never run: the authorizer is asked at
 * prepare time, and nothing a statement would do happens.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"

#include "fuzz.h"

#include "../../servers/sqlite/sqlite_conn.h"

static char dbpath[] = "/tmp/fuzz-sqlkind.XXXXXX";

static void
remove_db(void)
{
	unlink(dbpath);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	sqlite3 *db;
	int fd;

	(void)argc;
	(void)argv;
	if ((fd = mkstemp(dbpath)) < 0)
		abort();
	close(fd);
	atexit(remove_db);
	if (sqlite3_open(dbpath, &db) != SQLITE_OK ||
	    sqlite3_exec(db, "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT);"
	    "CREATE TABLE u (x, y);"
	    "CREATE INDEX ub ON u (y);"
	    "CREATE VIEW v AS SELECT a, b FROM t;"
	    "CREATE TRIGGER tr AFTER INSERT ON t BEGIN "
	    "  INSERT INTO u VALUES (new.a, new.b); END;",
	    NULL, NULL, NULL) != SQLITE_OK)
		abort();
	sqlite3_close(db);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tc_diag d = { "", 0 };
	enum sq_kind kind;
	sqlite3 *db;
	sqlite3_stmt *st;
	const char *tail;
	size_t n, seen = 0;
	char *sql;
	int rc;

	rc = sq_kind_of((const char *)data, size, &kind, &n, &d);
	if (rc != 0) {
		FUZZ_CHECK(rc == TC_EINVAL, "code %d", rc);
		FUZZ_CHECK(kind == SQ_KIND_SCHEMA, "kind %d on refusal", kind);
		FUZZ_CHECK(d.msg[0] != '\0', "a refusal without a message");
		return 0;
	}
	FUZZ_CHECK(n >= 1, "accepted with %zu statements", n);
	FUZZ_CHECK(kind == SQ_KIND_READ || kind == SQ_KIND_WRITE ||
	    kind == SQ_KIND_SCHEMA, "kind %d", kind);

	/* No NUL inside (else refused above): a C string for SQLite. */
	if ((sql = malloc(size + 1)) == NULL)
		abort();
	memcpy(sql, data, size);
	sql[size] = '\0';
	if (sq_conn_open(dbpath, kind, NULL, &db, &d) != 0)
		FUZZ_CHECK(0, "open: %s", d.msg);
	for (tail = sql; *tail != '\0';) {
		rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
		if (rc != SQLITE_OK) {
			if (sq_conn_error(db, rc, &d) == TC_EDENIED)
				FUZZ_CHECK(strncmp(d.msg, "the table ", 10) == 0 ||
				    strncmp(d.msg, "the module ", 11) == 0,
				    "sq_kind_of said %s (%zu statements), the "
				    "guard: %s", sq_kind_name(kind), n, d.msg);
			break;
		}
		if (st == NULL)
			continue;
		seen++;
		sqlite3_finalize(st);
	}
	FUZZ_CHECK(seen <= n, "SQLite prepared %zu statements, sq_kind_of "
	    "counted %zu", seen, n);
	sq_conn_close(db);
	free(sql);
	return 0;
}
