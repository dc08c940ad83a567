/*
 * sqlite_policy.c: the [sqlite] section of toolcell-policy(5), the
 * databases toolcell-sqlite serves.
 *
 *	database NAME PATH [read-only|read-write] [rows N] [bytes SIZE]
 *	    [time DURATION]
 *
 * Each file is resolved once, when the policy is read: its directory made
 * canonical, the file found in it by its name alone, without following a
 * symbolic link, and it must be a regular file that exists (the server
 * makes no database).  The child opens that path, never a URI, with
 * SQLITE_OPEN_NOFOLLOW, and its Landlock rules reach that directory only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "sandbox/sandbox.h"
#include "sqlite.h"

/* The first 16 bytes of every SQLite database file, its NUL included. */
#define SQ_MAGIC	"SQLite format 3"

/* In the order of the database's "readwrite" value. */
static const struct tc_policy_choice modes[] = {
	{ "read-only", "the default" },
	{ "read-write", NULL },
	{ NULL, NULL }
};

static int
name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > SQ_NAME_MAX ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

static void
database_release(struct sq_database *db)
{
	free(db->name);
	free(db->path);
	free(db->dir);
	if (db->dir_fd >= 0)
		close(db->dir_fd);
	db->dir_fd = -1;
}

static void
sqlite_policy_release(void *slot)
{
	struct sqlite_policy *sp = slot;
	size_t i;

	for (i = 0; i < sp->ndbs; i++)
		database_release(&sp->dbs[i]);
	free(sp->dbs);
	memset(sp, 0, sizeof(*sp));
}

/*
 * Resolves |given| (absolute): its directory made canonical, the file
 * looked up in it by name without following a link, and read for
 * whether it is in WAL mode.  Returns 0 with *|dir| and *|path| new
 * strings, *|dir_fd| the directory (O_PATH, kept for the Landlock rules,
 * which a path opened again could lead elsewhere) and *|wal| set, or -1
 * with |why| set.
 */
static int
resolve(const char *given, char **dir, char **path, int *dir_fd, int *wal,
    char *why, size_t len)
{
	unsigned char head[20];
	char *copy, *slash, *base, real[PATH_MAX];
	struct stat st;
	int dfd = -1, fd = -1, rc = -1;

	*dir = *path = NULL;
	if ((copy = strdup(given)) == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	/* "/a/b/" or "/a/." names a directory, not a file. */
	slash = strrchr(copy, '/');
	base = slash + 1;
	if (*base == '\0' || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0) {
		snprintf(why, len, "names a directory, not a database file");
		goto out;
	}
	*slash = '\0';
	if (realpath(copy[0] != '\0' ? copy : "/", real) == NULL) {
		snprintf(why, len, "its directory: %s", strerror(errno));
		goto out;
	}
	if ((dfd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(why, len, "its directory %s: %s", real,
		    strerror(errno));
		goto out;
	}
	/* One name in that directory: no '/', so nothing but the file
	 * itself is looked up, and O_NOFOLLOW refuses a link (ELOOP);
	 * O_NONBLOCK, so that a FIFO does not hold the start. */
	if ((fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) < 0 || fstat(fd, &st) != 0) {
		if (errno == ENOENT)
			snprintf(why, len, "no such file: the server makes no "
			    "database; create it first (sqlite3 FILE "
			    "'VACUUM')");
		else if (errno == ELOOP)
			snprintf(why, len, "is a symbolic link: name the file "
			    "it leads to");
		else
			snprintf(why, len, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "is not a regular file");
		goto out;
	}
	/* An empty file is an empty database, in rollback mode; any other
	 * begins with the 16 bytes of SQLite's header string, or every call
	 * would fail with "file is not a database". */
	if (st.st_size > 0 && (pread(fd, head, sizeof(head), 0) !=
	    (ssize_t)sizeof(head) || memcmp(head, SQ_MAGIC, 16) != 0)) {
		snprintf(why, len, "is not an SQLite database (it does not "
		    "begin with \"SQLite format 3\"): name a database file, "
		    "or an empty file for a new one");
		goto out;
	}
	/* WAL mode: the header's write and read versions are 2. */
	*wal = st.st_size > 0 && head[18] == 2 && head[19] == 2;
	if ((*dir = strdup(real)) == NULL ||
	    asprintf(path, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/",
	    base) < 0) {
		*path = NULL;
		free(*dir);
		*dir = NULL;
		snprintf(why, len, "out of memory");
		goto out;
	}
	*dir_fd = dfd;
	dfd = -1;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(copy);
	return rc;
}

/* database NAME PATH [read-only|read-write] [rows N] [bytes SIZE]
 * [time DURATION] */
static void
kw_database(struct tc_policy_ctx *c, char **w, int nw)
{
	struct sqlite_policy *sp = tc_policy_ctx_slot(c);
	struct sq_database db, *nv;
	unsigned long long v;
	char why[PATH_MAX + 128], *given = NULL;
	int i, m, seen_mode = 0, seen_rows = 0, seen_bytes = 0, seen_time = 0;
	size_t k;

	memset(&db, 0, sizeof(db));
	db.dir_fd = -1;
	db.rows = SQ_ROWS_DEFAULT;
	db.bytes = SQ_BYTES_DEFAULT;
	db.time_ms = SQ_TIME_DEFAULT;
	db.line = tc_policy_ctx_line(c);
	if (nw < 2) {
		tc_policy_error(c, "database: expected a name and the "
		    "database file's absolute path: database NAME PATH "
		    "[read-only|read-write] [rows N] [bytes SIZE] "
		    "[time DURATION]");
		return;
	}
	if (!name_ok(w[0])) {
		tc_policy_error(c, "database %s: a name is a letter, then "
		    "letters, digits, '_' or '-', at most %d in all", w[0],
		    SQ_NAME_MAX);
		return;
	}
	for (k = 0; k < sp->ndbs; k++)
		if (strcmp(sp->dbs[k].name, w[0]) == 0) {
			tc_policy_error(c, "database %s: already named at "
			    "line %d", w[0], sp->dbs[k].line);
			return;
		}
	for (i = 2; i < nw; i++) {
		if (strcmp(w[i], "read-only") == 0 ||
		    strcmp(w[i], "read-write") == 0) {
			if (seen_mode++) {
				tc_policy_error(c, "database %s: '%s': the "
				    "mode is given twice", w[0], w[i]);
				return;
			}
			if ((m = tc_policy_choose(c, "database mode", modes,
			    w[i])) < 0)
				return;
			db.readwrite = m;
			continue;
		}
		if (i + 1 >= nw && (strcmp(w[i], "rows") == 0 ||
		    strcmp(w[i], "bytes") == 0 || strcmp(w[i], "time") == 0)) {
			tc_policy_error(c, "database %s: '%s' needs a value",
			    w[0], w[i]);
			return;
		}
		if (strcmp(w[i], "rows") == 0 && !seen_rows++) {
			if (tc_policy_value(c, "database rows", TC_POLICY_COUNT,
			    w[++i], 1, SQ_ROWS_MAX, &v) != 0)
				return;
			db.rows = v;
		} else if (strcmp(w[i], "bytes") == 0 && !seen_bytes++) {
			if (tc_policy_value(c, "database bytes", TC_POLICY_SIZE,
			    w[++i], SQ_BYTES_MIN, SQ_BYTES_MAX, &v) != 0)
				return;
			db.bytes = v;
		} else if (strcmp(w[i], "time") == 0 && !seen_time++) {
			if (tc_policy_value(c, "database time",
			    TC_POLICY_DURATION, w[++i], SQ_TIME_MIN,
			    SQ_TIME_MAX, &v) != 0)
				return;
			db.time_ms = (int)v;
		} else {
			tc_policy_error(c, "database %s: unexpected '%s' "
			    "(after the path: read-only or read-write, rows N, "
			    "bytes SIZE, time DURATION, each once)", w[0],
			    w[i]);
			return;
		}
	}
	if ((given = tc_policy_path(c, "database", w[1])) == NULL)
		return;
	if (resolve(given, &db.dir, &db.path, &db.dir_fd, &db.wal, why,
	    sizeof(why)) != 0) {
		tc_policy_error(c, "database %s: %s: %s", w[0], given, why);
		free(given);
		return;
	}
	free(given);
	for (k = 0; k < sp->ndbs; k++)
		if (strcmp(sp->dbs[k].path, db.path) == 0) {
			tc_policy_error(c, "database %s: %s is already "
			    "database '%s' (line %d)", w[0], db.path,
			    sp->dbs[k].name, sp->dbs[k].line);
			goto fail;
		}
	if ((db.name = strdup(w[0])) == NULL ||
	    (nv = reallocarray(sp->dbs, sp->ndbs + 1, sizeof(*nv))) == NULL) {
		tc_policy_error(c, "out of memory");
		goto fail;
	}
	sp->dbs = nv;
	sp->dbs[sp->ndbs++] = db;
	return;
fail:
	database_release(&db);
}

/* --- Whether calls can write the read-write databases, and read the
 * read-only ones in WAL mode --- */

/* 1 if the calls may read |db|'s -wal and -shm files, which are both
 * there (|base|: the database's name in its directory): where the
 * directory is not theirs to write, SQLite's readers need both, and read
 * through a -shm they may not write (since SQLite 3.22) as through one
 * they may. */
static int
wal_files_writable(const struct sq_database *db, const char *base)
{
	static const char *const ext[] = { "-wal", "-shm" };
	char name[NAME_MAX + 8];
	size_t i;
	int n;

	for (i = 0; i < TC_NITEMS(ext); i++) {
		n = snprintf(name, sizeof(name), "%s%s", base, ext[i]);
		if (n < 0 || (size_t)n >= sizeof(name) ||
		    faccessat(db->dir_fd, name, R_OK, AT_EACCESS) != 0)
			return 0;
	}
	return 1;
}

/*
 * In sq_check_writable()'s child, once it has the calls' identity: for
 * each database, the errno of faccessat(2) for writing its directory and
 * its file (0: calls may, or it is read-only), two ints each, on |fd|.
 */
static void
writable_child(const struct sqlite_policy *sp, int fd)
{
	const struct sq_database *db;
	const char *base;
	int err[2];
	size_t i;

	for (i = 0; i < sp->ndbs; i++) {
		db = &sp->dbs[i];
		err[0] = err[1] = 0;
		base = strrchr(db->path, '/') + 1;
		/* AT_EACCESS asks for the effective ids, the calls', and
		 * counts ACLs and read-only mounts as the kernel will.  The
		 * directory needs write and search: SQLite makes the journal
		 * (and a WAL database's -wal and -shm) beside the file. */
		if (db->readwrite && faccessat(db->dir_fd, ".", W_OK | X_OK,
		    AT_EACCESS) != 0)
			err[0] = errno;
		if (db->readwrite && faccessat(db->dir_fd, base, W_OK,
		    AT_EACCESS) != 0)
			err[1] = errno;
		/* A read-only database in WAL mode: its readers make the
		 * -wal and -shm files beside it where they are not there. */
		if (!db->readwrite && db->wal && !wal_files_writable(db, base) &&
		    faccessat(db->dir_fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
			err[0] = errno;
		if (write(fd, err, sizeof(err)) != (ssize_t)sizeof(err))
			_exit(1);
	}
	_exit(0);
}

int
sq_check_writable(const struct tc_policy *pol, struct tc_diag *d)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	const char *file = pol->file != NULL ? pol->file : "command line";
	const struct sq_database *db;
	unsigned uid;
	int p[2], err[2], status = 0, rc = 0;
	size_t i, got;
	ssize_t k;
	pid_t pid;

	for (i = 0; i < sp->ndbs; i++)
		if (sp->dbs[i].readwrite || sp->dbs[i].wal)
			break;
	if (i == sp->ndbs)
		return 0;
	uid = pol->run_as ? (unsigned)pol->run_uid : (unsigned)geteuid();
	if (pipe2(p, O_CLOEXEC) != 0) {
		tc_warn("cannot tell whether calls can write beside the "
		    "databases: pipe: %s", strerror(errno));
		return 0;
	}
	if ((pid = fork()) < 0) {
		tc_warn("cannot tell whether calls can write beside the "
		    "databases: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return 0;
	}
	if (pid == 0) {
		close(p[0]);
		if (tc_sandbox_as_calls(pol, getppid()) != 0)
			_exit(1);
		writable_child(sp, p[1]);
	}
	close(p[1]);
	for (i = 0; i < sp->ndbs; i++) {
		/* EOF (the child gone) ends it; errno says nothing then. */
		for (got = 0; got < sizeof(err); got += (size_t)k)
			if ((k = read(p[0], (char *)err + got,
			    sizeof(err) - got)) == 0 ||
			    (k < 0 && errno != EINTR))
				break;
			else if (k < 0)
				k = 0;
		if (got < sizeof(err))
			break;
		if (err[0] == 0 && err[1] == 0)
			continue;
		/* Each one logged; the last is the ready hook's error. */
		if (rc != 0)
			tc_log(TC_LOG_ERROR, "%s", d->msg);
		db = &sp->dbs[i];
		if (!db->readwrite)
			rc = tc_diag(d, TC_EDENIED, "%s:%d: database %s: %s: "
			    "in WAL mode, whose readers make its -wal and -shm "
			    "files beside it where they are not there, but "
			    "calls, which run as uid %u without privileges, can "
			    "write neither its directory %s (%s) nor read both "
			    "files there: make the directory "
			    "writable for that user, or take the database out "
			    "of WAL mode (sqlite3 %s 'PRAGMA journal_mode="
			    "DELETE')", file, db->line, db->name, db->path,
			    uid, db->dir, strerror(err[0]), db->path);
		else if (err[0] != 0)
			rc = tc_diag(d, TC_EDENIED, "%s:%d: database %s: %s: "
			    "read-write, but calls, which run as uid %u "
			    "without privileges, cannot write in its "
			    "directory %s (%s), where SQLite makes the "
			    "database's journal and WAL files: make the "
			    "directory writable for that user, or mark the "
			    "database read-only", file, db->line, db->name,
			    db->path, uid, db->dir, strerror(err[0]));
		else
			rc = tc_diag(d, TC_EDENIED, "%s:%d: database %s: %s: "
			    "read-write, but calls, which run as uid %u "
			    "without privileges, cannot write the file (%s): "
			    "make it writable for that user, or mark the "
			    "database read-only", file, db->line, db->name,
			    db->path, uid, strerror(err[1]));
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (i < sp->ndbs)
		tc_warn("cannot tell whether calls can write beside the "
		    "databases: the child that asks failed");
	return rc;
}

/* --- --check --- */

static void
sqlite_policy_print(const struct tc_policy *p, const void *slot, FILE *f)
{
	const struct sqlite_policy *sp = slot;
	const struct sq_database *db;
	char at[32], rows[32], bytes[32], time[32];
	size_t i;

	(void)p;
	fprintf(f, "databases:%s\n", sp->ndbs == 0 ? " none" : "");
	for (i = 0; i < sp->ndbs; i++) {
		db = &sp->dbs[i];
		fprintf(f, "  %s  %s  %s%s  rows %s  bytes %s  time %s  (%s)\n",
		    db->name, db->path, db->readwrite ? "read-write" :
		    "read-only", db->wal ? " (WAL)" : "",
		    tc_policy_value_str(TC_POLICY_COUNT, db->rows, rows,
		    sizeof(rows)), tc_policy_value_str(TC_POLICY_SIZE,
		    db->bytes, bytes, sizeof(bytes)),
		    tc_policy_value_str(TC_POLICY_DURATION,
		    (unsigned long long)db->time_ms, time, sizeof(time)),
		    tc_policy_origin(db->line, at, sizeof(at)));
	}
}

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct tc_policy_keyword sqlite_keywords[] = {
	{ "database", TC_POLICY_LINE, .parse = kw_database,
	  .value = "the database's name and file", .max_words = 12 },
};

const struct tc_policy_section sqlite_policy_section = {
	.name = "sqlite",
	.keywords = sqlite_keywords,
	.nkeywords = TC_NITEMS(sqlite_keywords),
	.size = sizeof(struct sqlite_policy),
	.release = sqlite_policy_release,
	.print = sqlite_policy_print,
	/* The databases are what it serves: directories are optional. */
	.flags = TC_POLICY_ROOTS_OPTIONAL,
};

const struct sqlite_policy *
sqlite_policy(const struct tc_policy *pol)
{
	static const struct sqlite_policy none;
	const struct sqlite_policy *sp;

	sp = pol != NULL ? tc_policy_slot(pol, &sqlite_policy_section) : NULL;
	return sp != NULL ? sp : &none;
}

const struct sq_database *
sq_database_find(const struct tc_policy *pol, const char *name)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	size_t i;

	for (i = 0; name != NULL && i < sp->ndbs; i++)
		if (strcmp(sp->dbs[i].name, name) == 0)
			return &sp->dbs[i];
	return NULL;
}

int
sq_any_readwrite(const struct tc_policy *pol)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	size_t i;

	for (i = 0; i < sp->ndbs; i++)
		if (sp->dbs[i].readwrite)
			return 1;
	return 0;
}

int
sq_dir_writable(const struct sq_database *db)
{
	return db->readwrite || db->wal;
}
