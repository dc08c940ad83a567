/*
 * sqlite_ahead.c: what a ready child of toolcell-sqlite does before its
 * call arrives, once it is confined (the profile's ahead hook): it opens
 * and hardens a read-only connection to each of the first databases (and
 * a read-write one to each read-write database) and walks a statement
 * through SQLite once, on a database in memory (warm()), so that a call
 * only arms a connection with its kind and deadline (sq_conn_arm()) and
 * prepares its own.  It reads no database's contents.
 *
 * What the call reads is the file as it is then: the connection holds no
 * transaction (each statement takes its lock and reads the change
 * counter, and SQLite reloads its schema when the cookie moved), and a
 * file replaced since the open is not read through the old one
 * (sq_ahead_take() compares device and inode and opens afresh).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "policy/policy.h"
#include "sqlite.h"

/* Connections a ready child opens ahead of its call, at most. */
#define AHEAD_MAX	8

/*
 * A connection opened ahead of the call (sq_ahead()), and the
 * file it was opened on: its path and, stat()ed before and after the
 * open, its device and inode.
 */
struct ahead {
	char		*path;
	sqlite3		*db;
	int		 rw;		/* read-write, for changes */
	dev_t		 dev;
	ino_t		 ino;
};

static struct ahead aheads[AHEAD_MAX];

/* How many connections the last sq_ahead() meant to open, how many it
 * opened, and when (tc_now_ms()). */
static size_t	ahead_wanted, ahead_opened;
static int64_t	ahead_when;

/*
 * Walks, once, the path a call's statement takes through SQLite (parse,
 * plan, bind, step, columns) on |db|'s schema table: the page faults of
 * SQLite's first use of that code and memory in this process are paid
 * here rather than on the call's path.  Reads nothing the call could
 * not, and holds nothing once finalized.
 */
static void
walk(sqlite3 *db)
{
	sqlite3_stmt *st;
	int i;

	if (sqlite3_prepare_v3(db, "SELECT type, name, rootpage, sql FROM "
	    "sqlite_schema WHERE rowid = ?1 OR name = ?2 ORDER BY name "
	    "LIMIT 1", -1, 0, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, 1);
	sqlite3_bind_text(st, 2, "x", 1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (i = 0; i < sqlite3_column_count(st); i++)
			(void)sqlite3_column_type(st, i);
	sqlite3_finalize(st);
}

/*
 * walk() on a database in memory, whose schema is empty (a table made
 * there would write, and draw SQLite's randomness for the journal:
 * sq_ahead_take()).
 *
 * sq_ahead() walks no database file: it runs in a zygote (zygote.c),
 * which lives for many calls, receives the pipes of each, and may fork;
 * a database's contents are the calls' to write and untrusted (a crafted
 * schema or b-tree is the compromise docs/confinement.md expects of a
 * child), so they are read only in a call's child, confined as one
 * (sq_ahead_child()).  The connections opened ahead have read no more
 * than the header their open reads: none maps a WAL database's -shm file
 * or holds a lock, and a zygote's children, which inherit them, each
 * read the file themselves.
 */
static void
warm(void)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, NULL) == SQLITE_OK)
		walk(db);
	sqlite3_close(db);
}

void
sq_ahead_child(const struct tc_policy *pol)
{
	size_t i;

	(void)pol;
	/* The first connection opened ahead: the first database's schema
	 * read and parsed before the call, which finds it current unless
	 * its cookie moved meanwhile. */
	for (i = 0; i < AHEAD_MAX; i++)
		if (aheads[i].db != NULL) {
			walk(aheads[i].db);
			return;
		}
}

/*
 * The connection of |old| (AHEAD_MAX entries) for |path| and |rw| that
 * is still open on the file the path names, taken out of |old|; or one
 * with db NULL.
 */
static struct ahead
keep_open(struct ahead *old, const char *path, int rw)
{
	struct ahead kept = { .rw = rw };
	struct stat st;
	size_t i;

	for (i = 0; i < AHEAD_MAX; i++) {
		if (old[i].db == NULL || old[i].rw != rw ||
		    strcmp(old[i].path, path) != 0)
			continue;
		if (stat(path, &st) == 0 && st.st_dev == old[i].dev &&
		    st.st_ino == old[i].ino) {
			kept = old[i];
			memset(&old[i], 0, sizeof(old[i]));
		}
		break;
	}
	return kept;
}

void
sq_ahead(const struct tc_policy *pol)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	struct ahead old[AHEAD_MAX];
	struct tc_diag d TC_UNINIT;
	struct sq_limits lim;
	struct stat before, after;
	size_t i, n = 0, opened = 0;

	tc_diag_init(&d);
	/* Run again (a zygote's, when sq_ahead_stale() says so): the
	 * connections still open on their files are kept, and only the
	 * others opened. */
	memcpy(old, aheads, sizeof(old));
	memset(aheads, 0, sizeof(aheads));
	ahead_wanted = 0;
	for (i = 0; i < sp->ndbs * 2 && n < AHEAD_MAX; i++) {
		const struct sq_database *db = &sp->dbs[i % sp->ndbs];
		struct ahead *a = &aheads[n];

		/* The read-only connections first, then the read-write. */
		if (i >= sp->ndbs && !db->readwrite)
			continue;
		ahead_wanted++;
		if ((*a = keep_open(old, db->path, i >= sp->ndbs)).db != NULL) {
			n++;
			continue;
		}
		/* A short wait: a busy database is opened by the call.  The
		   limits but time are sq_open_for()'s (the defaults): what
		   it sets beyond the deadline and busy wait, set here too. */
		memset(&lim, 0, sizeof(lim));
		lim.deadline_ms = tc_now_ms() + 1000;
		lim.busy_ms = 100;
		/* Only a regular file: SQLite's open of a FIFO put in its
		   place would wait for a writer, and this child with it,
		   before its call could even be read.  The call opens and
		   says why (sq_open_for()). */
		if (lstat(db->path, &before) != 0 || !S_ISREG(before.st_mode))
			continue;
		if (sq_conn_open(db->path, a->rw ? SQ_KIND_SCHEMA :
		    SQ_KIND_READ, &lim, &a->db, &d) != 0)
			continue;
		if (stat(db->path, &after) != 0 ||
		    before.st_dev != after.st_dev ||
		    before.st_ino != after.st_ino ||
		    (a->path = strdup(db->path)) == NULL) {
			sq_conn_close(a->db);
			a->db = NULL;
			continue;
		}
		a->dev = after.st_dev;
		a->ino = after.st_ino;
		n++;
		opened++;
	}
	for (i = 0; i < AHEAD_MAX; i++) {
		sq_conn_close(old[i].db);
		free(old[i].path);
	}
	if (opened > 0)
		warm();
	ahead_opened = n;
	ahead_when = tc_now_ms();
}

int
sq_ahead_stale(const struct tc_policy *pol)
{
	struct stat st;
	size_t i;

	(void)pol;
	for (i = 0; i < AHEAD_MAX; i++)
		if (aheads[i].db != NULL && (stat(aheads[i].path, &st) != 0 ||
		    st.st_dev != aheads[i].dev || st.st_ino != aheads[i].ino))
			return 1;
	return ahead_opened < ahead_wanted &&
	    tc_now_ms() - ahead_when > 1000;
}

sqlite3 *
sq_ahead_take(const char *path, enum sq_kind kind)
{
	struct stat st;
	sqlite3 *db;
	size_t i;

	/* SQLite's randomness (random(), randomblob(), a journal's nonce,
	 * a temporary file's name) is a generator in this process's
	 * memory, which a zygote's children copy: were it seeded there,
	 * every call would draw the same numbers.  It starts again from
	 * the kernel's randomness in each call (SQLite's own reset, which
	 * it does itself only when a file opened tells it of a fork). */
	sqlite3_randomness(0, NULL);
	for (i = 0; i < AHEAD_MAX; i++) {
		struct ahead *a = &aheads[i];

		if (a->db == NULL || a->rw != (kind != SQ_KIND_READ) ||
		    strcmp(a->path, path) != 0)
			continue;
		db = a->db;
		a->db = NULL;
		if (stat(path, &st) == 0 && st.st_dev == a->dev &&
		    st.st_ino == a->ino)
			return db;
		sq_conn_close(db);
		return NULL;
	}
	return NULL;
}
