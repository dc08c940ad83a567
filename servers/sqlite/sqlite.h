/*
 * sqlite.h: toolcell-sqlite, what its parts share.
 * Returns (sqlite): 0 or a negative TC_E* code, with a struct tc_diag or
 * a tool error saying why where a person or the model reads it; a lookup
 * NULL for none.
 *
 * The server serves the SQLite databases its policy names, each by a path
 * resolved at start, read-only unless the policy says read-write.  Every
 * call runs in a child confined by its profile (Landlock rights on the
 * databases' directories only, no exec, no network, no fork), which opens
 * the database with every hardening SQLite has (sqlite_conn.h) for the
 * kind of statement the server classified and consent saw.
 *
 *	main.c			the server: tools, subjects, instructions,
 *				resources
 *	sqlite_policy.c		the [sqlite] section: databases, their
 *				files, modes and limits
 *	sqlite_profile.c	the confinement profile
 *	sqlite_tools.c		list_databases, list_tables, describe_table,
 *				the schema resource
 *	sqlite_tools_sql.c	query, execute, explain_query
 *	sqlite_result.c		rows as compact JSON and a text table; the
 *				paging cursor
 *	sqlite_conn.c,		the guarded connection and the statement
 *	sqlite_kind.c		kinds (sqlite_conn.h)
 */
#ifndef TC_SQLITE_H
#define TC_SQLITE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "base/buf.h"
#include "base/err.h"
#include "policy/policy.h"
#include "protocol/tools.h"
#include "sqlite_conn.h"

struct tc_policy_section;
struct tc_profile;

/* --- The policy (sqlite_policy.c) --- */

/* A database's defaults and bounds, per call. */
#define SQ_ROWS_DEFAULT		1000
#define SQ_ROWS_MAX		1000000ULL
#define SQ_BYTES_DEFAULT	(1ULL << 20)
#define SQ_BYTES_MIN		(1ULL << 10)
#define SQ_BYTES_MAX		(64ULL << 20)
#define SQ_TIME_DEFAULT		10000		/* ms */
#define SQ_TIME_MIN		10
#define SQ_TIME_MAX		600000

/* A name: a letter, then letters, digits, '_' or '-'. */
#define SQ_NAME_MAX		32

/* A database the policy names. */
struct sq_database {
	char			*name;		/* "main" */
	char			*path;		/* canonical, absolute: its
						   directory resolved, the
						   file in it (never a
						   symbolic link) */
	char			*dir;		/* that directory */
	int			 dir_fd;	/* it, open (O_PATH) as it was
						   resolved: the Landlock rules'
						   (-1: none) */
	int			 readwrite;
	int			 wal;		/* in WAL mode at start: its
						   readers write its -shm */
	unsigned long long	 rows;		/* per call, at most */
	unsigned long long	 bytes;		/* of rows per call */
	int			 time_ms;	/* per call */
	int			 line;		/* of its "database" line */
};

/* The [sqlite] section's slot. */
struct sqlite_policy {
	struct sq_database	*dbs;
	size_t			 ndbs;
};

extern const struct tc_policy_section sqlite_policy_section;

/* Returns the settings of |pol| (none: an empty list). */
const struct sqlite_policy *sqlite_policy(const struct tc_policy *pol);

/* Returns the database named |name| in |pol|, or NULL. */
const struct sq_database *sq_database_find(const struct tc_policy *pol,
	    const char *name);

/* Returns 1 if some database of |pol| is read-write. */
int	sq_any_readwrite(const struct tc_policy *pol);

/* Returns 1 if the kernel must let a call write SQLite's files in the
 * directory of |db|: it is read-write, or in WAL mode (whose readers
 * write its -shm, and make it and the -wal when they are not there). */
int	sq_dir_writable(const struct sq_database *db);

/*
 * Checks, as calls run (the run-as user, or the server's own user, and no
 * capability), that each read-write database of |pol| can be written: the
 * file, and its directory, where SQLite makes the journal and the WAL;
 * and that the readers of each read-only database in WAL mode can read
 * its -wal and -shm files (both there) or make them (the directory).
 * Logs each one that cannot, as "FILE:LINE: database NAME: PATH: why", and
 * returns TC_EDENIED with |d| the last of them; 0 when all can, or when it
 * could not tell (a warning says so).
 */
int	sq_check_writable(const struct tc_policy *pol, struct tc_diag *d);

/* --- The profile (sqlite_profile.c) --- */

extern const struct tc_profile sqlite_profile;

/* --- The handlers, in the child (sqlite_tools*.c) --- */

int	sqlite_list_databases(const struct tc_call *, struct tc_result *);
int	sqlite_list_tables(const struct tc_call *, struct tc_result *);
int	sqlite_describe_table(const struct tc_call *, struct tc_result *);
int	sqlite_read_schema(const struct tc_call *, struct tc_result *);
int	sqlite_query(const struct tc_call *, struct tc_result *);
int	sqlite_execute(const struct tc_call *, struct tc_result *);
int	sqlite_explain_query(const struct tc_call *, struct tc_result *);

/*
 * The tools' deadline_ms (protocol/tools.h), in the server: the call's
 * database's time, a tenth more and SQ_TIME_GRACE_MS, so that a single
 * SQL function (which SQLite's progress handler cannot stop) is killed
 * near the database's time, not at the policy's deadline.  Writes into
 * |why| the database's time limit; returns 0 if the call names none.
 */
#define SQ_TIME_GRACE_MS	1000
int	sq_deadline_ms(const struct tc_call *call, char *why, size_t n);

/*
 * Opens the database the call's "database" argument names, for
 * statements of at most |kind|, with its limits and the call's deadline.
 * Returns 0 with *|db| and *|dbp| set; else fills |res| with the error
 * the model reads and returns TC_EINVAL (or TC_ENOMEM), *|db| NULL.
 */
int	sq_open_for(const struct tc_call *call, enum sq_kind kind,
	    const struct sq_database **dbp, sqlite3 **db,
	    struct tc_result *res);

/*
 * The profile's ahead hook, in each ready child once it is confined:
 * opens and hardens connections (sq_conn_open()) to |pol|'s first
 * databases, a read-only one to each and a read-write one to each
 * read-write database, which sq_open_for() then hands a call after arming
 * it (sq_conn_arm()) with the call's kind and deadline.  Holds no
 * transaction: each statement reads the file as it is then.  Whatever
 * fails here is left for the call, which opens as it would have.
 */
void	sq_ahead(const struct tc_policy *pol);

/*
 * The profile's stale hook, in its zygote before each child is forked:
 * 1 when a file sq_ahead() opened no longer is the one its path names
 * (replaced, or removed), or when a database it could not open ahead
 * was last tried more than a second ago; else 0.
 */
int	sq_ahead_stale(const struct tc_policy *pol);

/*
 * The profile's ahead_child hook, in each ready child (never in a
 * zygote): walks a statement through the first database's schema on the
 * connection sq_ahead() opened, so that the schema is read and parsed
 * before the call comes, off its path.
 */
void	sq_ahead_child(const struct tc_policy *pol);

/*
 * The connection sq_ahead() opened on |path| (a database's resolved path)
 * for |kind|: the read-only one for SQ_KIND_READ, the read-write one for
 * the others; taken: the caller arms it (sq_conn_arm()) and closes it
 * (sq_conn_close()).  NULL when there is none, or when |path| no longer
 * names the file it was opened on (its device and inode, stat()ed before
 * and after the open): that one is closed, and the caller opens the file
 * as it is now.  Each is taken once.  Its schema is the one SQLite last
 * read: a statement prepared on it sees the file's (SQLite reads the
 * schema again where a name is not found, and when the cookie moved at
 * the first step); C calls that read the schema without a statement
 * (sqlite3_table_column_metadata()) may not.
 */
sqlite3	*sq_ahead_take(const char *path, enum sq_kind kind);

/* Makes |res| the error of statement result |rc| on |db|.  Returns 0. */
int	sq_fail(sqlite3 *db, int rc, struct tc_result *res);

/* --- Results (sqlite_result.c) --- */

/* 2^53: integers within it are exact as JSON numbers (doubles); beyond,
 * a result gives them as strings of their digits. */
#define SQ_EXACT_MAX	9007199254740992LL

/*
 * Rows being written: the compact JSON array of arrays, which the byte
 * cap counts, and the text table beside it, of the same order (its cells
 * are cut at 60 bytes; a row of one-digit numbers is about twice its
 * JSON, a blob much less).  A cell is null, a number (an integer
 * within +-2^53 in digits; beyond, a string of its digits; a REAL always
 * with a '.' or an exponent; an infinite one as the string "Infinity" or
 * "-Infinity"), a string (TEXT), or an object: {"blob":BASE64,
 * "bytes":N} for a BLOB, {"text":PREFIX,"bytes":N,"cut":true} for TEXT
 * cut at the cell cap (a BLOB over it has "cut":true as well and its
 * first bytes).
 */
struct sq_rows {
	struct tc_buf	 json;		/* "[[...],[...]]" */
	struct tc_buf	 text;		/* the text table's rows */
	struct tc_buf	 cols;		/* "[{name,type}...]" */
	struct tc_buf	 head;		/* the text table's first line */
	size_t		 ncols;
	size_t		 nrows;
	size_t		 max_bytes;
	size_t		 cell_max;	/* bytes of one TEXT or BLOB */
};

/* A new JSON string of SQLite text |s| (a name, a type, a plan's line),
 * ill-formed UTF-8 made U+FFFD as in rows; NULL on no memory. */
cJSON	*sq_json_string(const char *s);

/* Starts the rows of |st|, its columns named now (the statement may be
 * finalized before sq_rows_finish()).  Returns 0 or TC_ENOMEM; release
 * |r| either way. */
int	sq_rows_init(struct sq_rows *r, sqlite3_stmt *st, size_t max_bytes);
void	sq_rows_release(struct sq_rows *r);

/*
 * Adds the current row of |st|.  Returns 0; 1 if its JSON or its line of
 * the text table would pass the byte cap (nothing added, unless no row is
 * in yet: a first row is added with its cells cut, harder on each try, to
 * fit, and 1 only if cells of 64 bytes still do not; its line of the
 * table too wide is named instead); TC_ENOMEM.
 */
int	sq_rows_add(struct sq_rows *r, sqlite3_stmt *st);

/*
 * Adds |r| to the result: structuredContent's columns, rows and
 * truncated, and next (|next|, else null when |paged|, else left out);
 * the text |head| (a line, or NULL), then the table and how many rows it
 * holds.  Returns 0 or TC_ENOMEM.
 */
int	sq_rows_finish(struct sq_rows *r, int truncated, int paged,
	    const char *next, const char *head, struct tc_result *res);

/*
 * The cursor of a page: the rows skipped, and a digest of the database,
 * the SQL and the parameters, so that it serves only the same query.
 * sq_cursor_make() writes "N.DIGEST" into |out| (SQ_CURSOR_MAX bytes);
 * sq_cursor_read() returns the offset, or -1 for a cursor that is not one
 * of this query's.
 */
#define SQ_CURSOR_MAX	64
void	sq_cursor_make(const struct tc_call *call, uint64_t offset,
	    char out[SQ_CURSOR_MAX]);
long long sq_cursor_read(const struct tc_call *call, const char *cursor);

/*
 * Binds the call's "params" to |st|, from item *|at| on, as many as |st|
 * has parameters (?NNN, :name and the like by their index); advances
 * *|at|.  Returns 0, or TC_EINVAL with |res| the error (too few).
 */
int	sq_bind(const struct tc_call *call, sqlite3_stmt *st, size_t *at,
	    struct tc_result *res);

#endif /* TC_SQLITE_H */
