/*
 * sqlite_conn.h: toolcell-sqlite's connections, statements and the guard
 * around them.
 * Returns (sqlite): 0 or a negative TC_E* code, with a struct tc_diag
 * saying why in words the model can act on; a question 1 or 0.
 *
 * Two halves.  sq_kind_of() runs in the server, before any fork: it reads
 * SQL as tokens (never executes it) and says what a statement would do,
 * for the consent rules, the audit record and a friendly early refusal.
 * Everything else runs in the confined child: sq_conn_open() opens one
 * database of the policy with every hardening SQLite offers, and its
 * authorizer holds the statements to the kind the server announced, so
 * what consent saw is what runs.  Keywords are never the guard: a
 * read-only connection is opened SQLITE_OPEN_READONLY with query_only on,
 * and the authorizer refuses what a kind does not include.
 */
#ifndef TC_SQLITE_CONN_H
#define TC_SQLITE_CONN_H

#include <stddef.h>
#include <sqlite3.h>

#include "base/err.h"

/*
 * What a statement (or a batch) does, least to most.  A batch is the
 * most of its statements.  sq_kind_of() never answers less than the
 * truth: where the tokens leave doubt it answers more.
 */
enum sq_kind {
	SQ_KIND_READ = 0,	/* SELECT, VALUES, WITH ... SELECT,
				   harmless PRAGMA reads (EXPLAIN X has
				   X's kind) */
	SQ_KIND_WRITE,		/* INSERT, UPDATE, DELETE, REPLACE, UPSERT,
				   transactions, savepoints, REINDEX */
	SQ_KIND_SCHEMA,		/* CREATE, DROP, ALTER (tables, views,
				   indexes, triggers), ANALYZE (it may
				   create sqlite_stat1) */
};

/* "read", "write", "schema": the subject's value and the audit word. */
const char	*sq_kind_name(enum sq_kind k);

/*
 * The kind of |sql| (|len| bytes, not necessarily NUL-terminated).  0, or
 * TC_EINVAL when the SQL is empty, holds no statement, or holds one
 * SQLite never runs here (ATTACH, DETACH, VACUUM, a PRAGMA that writes
 * or is not on the list of harmless ones, load_extension()); |d| says
 * which word and why.  |nstmts| receives the number of statements.
 *
 * Statements are split as SQLite's own tokenizer reads them (comments,
 * quoted strings and names, blobs, TCL-style variables, the bodies of
 * CREATE TRIGGER); where SQLite would stop at a syntax error, the text
 * after it still counts, so a caller that runs statements one by one
 * and stops at the first that fails to prepare runs no more than this
 * saw.  A NUL byte or an unterminated quote is TC_EINVAL.
 */
int	sq_kind_of(const char *sql, size_t len, enum sq_kind *kind,
	    size_t *nstmts, struct tc_diag *d);

/*
 * Returns the length of the EXPLAIN or EXPLAIN QUERY PLAN (any case, after
 * blanks and comments) that |sql| (|len| bytes) begins with, or 0 if it
 * begins with neither: explain_query asks for the plan itself, and takes
 * a statement given with its own.  Only one is taken off.
 */
size_t	sq_explain_len(const char *sql, size_t len);

/*
 * The lists both halves hold statements to (sqlite_kind.c).  1 if
 * PRAGMA |name| (|len| bytes, any case) is on the harmless list in its
 * bare form (|has_arg| 0), or with an argument (|has_arg| 1: one it
 * reads, such as a table's name, never a value it sets); 0 otherwise.
 */
int	sq_pragma_harmless(const char *name, size_t len, int has_arg);

/* 1 if SQL function |name| (|len| bytes, any case) reaches outside the
 * database (load_extension, readfile, writefile, ...) and never runs. */
int	sq_function_refused(const char *name, size_t len);

/* The limits a connection runs under; 0 takes the default: 30 s from
 * the open, 5 s, 128 MiB, 1 MiB and 16 MiB. */
struct sq_limits {
	long long	deadline_ms;	/* tc_now_ms() after which every
					   running statement is interrupted
					   (progress handler) */
	long long	busy_ms;	/* busy_timeout */
	long long	heap_bytes;	/* sqlite3_hard_heap_limit64 */
	int		sql_len;	/* SQLITE_LIMIT_SQL_LENGTH */
	int		blob_len;	/* SQLITE_LIMIT_LENGTH */
};

/*
 * Opens the database file |path| (absolute, resolved at start; never a
 * URI, never through a symbolic link: SQLITE_OPEN_NOFOLLOW) for
 * statements of at most |kind|: SQ_KIND_READ opens SQLITE_OPEN_READONLY
 * with PRAGMA query_only; the others read-write, never creating the file.
 * Sets, before any statement runs: SQLITE_LIMIT_ATTACHED 0, extension
 * loading off, SQLITE_DBCONFIG_DEFENSIVE on, trusted_schema off, no
 * double-quoted string literals, temp_store in memory, the limits above,
 * and the authorizer that refuses ATTACH, DETACH, VACUUM, any PRAGMA not
 * on the harmless list, functions that reach outside, and anything more
 * than |kind|.  On failure *db is NULL, and the code says why:
 * TC_EINVAL (a path not absolute), TC_ENOTFOUND (no such file),
 * TC_EDENIED (a symbolic link on the path), TC_ENOTSUP (this SQLite did
 * not take a setting), TC_ESYS.  The heap limit is SQLite's,
 * for the whole process: call this in the child, not in the server.
 * One thread: a connection and its guard are not for sharing.
 */
int	sq_conn_open(const char *path, enum sq_kind kind,
	    const struct sq_limits *lim, sqlite3 **db, struct tc_diag *d);

/*
 * Arms |db| (from sq_conn_open()) for one call of statements of at most
 * |kind|: the authorizer's kind, the deadline, busy timeout and the time
 * limit sq_conn_error() reports, from |lim| as sq_conn_open() takes them
 * (0: the defaults), measured from now; clears what the last call left (a
 * refusal's reason, a timeout).  The kind may move only within what the
 * open made the connection: one opened for SQ_KIND_READ (read-only, with
 * query_only) stays SQ_KIND_READ; one opened read-write serves
 * SQ_KIND_WRITE or SQ_KIND_SCHEMA, never SQ_KIND_READ, which needs a
 * read-only connection.  For a connection opened ahead of its call (off
 * the call's path), so that the call sets only what is its own.  0, or
 * TC_EINVAL for a kind the connection cannot take (it is left as it was)
 * or a connection not opened by sq_conn_open().
 */
int	sq_conn_arm(sqlite3 *db, enum sq_kind kind,
	    const struct sq_limits *lim);

/*
 * After a statement failed: fills |d| with what the model should read
 * (the authorizer's reason where it refused, "interrupted: the call's
 * time limit of N ms" at the deadline, SQLite's message otherwise) and
 * returns the TC_E* code it maps to (TC_EDENIED, TC_ETIMEOUT, TC_EINVAL,
 * TC_ETOOBIG for a string, blob or heap over its limit, TC_ESYS).
 * Call it after each failure: it also clears the authorizer's reason.
 */
int	sq_conn_error(sqlite3 *db, int rc, struct tc_diag *d);

/* Closes |db| (NULL is fine). */
void	sq_conn_close(sqlite3 *db);

/*
 * A call is done with |db| (NULL is fine), its statements finalized:
 * a transaction still open is rolled back, and the connection is left
 * open, for the exit of the call's child to close.  A call child serves one call and exits (sandbox/child.c), and
 * the exit gives back the connection's memory, fds and locks at once,
 * where sqlite3_close() would free its every page and schema object,
 * each free a write to a page the child shares copy-on-write with the
 * process it was forked from, all before the answer could leave.
 * Only for a call's handler, in its child.
 */
void	sq_conn_done(sqlite3 *db);

#endif /* TC_SQLITE_CONN_H */
