/*
 * fork-floor: what a process per call costs on this machine at the
 * least, beside a call served in the process that reads it.
 *
 * It makes the database of bench/sqlite-vs-anchors.mjs (100,000 rows of
 * items (id, name, qty, price, note)) in a scratch directory, opens it,
 * reads the point lookup once, and then times N rounds of each way of
 * answering the same lookup, SELECT ... WHERE id = ?:
 *
 *   in-process	the statement run by the process that holds the
 *		connection, as the anchors run theirs
 *   fork	a child forked from that process runs it on the connection
 *		it inherited and exits; the parent waits for it.  No
 *		confinement, no pipe, no protocol: nothing toolcell adds
 *
 * For each: the wall time per round (p50 and p99) and the CPU per round
 * of the process and its children together (getrusage).  What the fork
 * row costs is a floor under any server that runs each call in a process
 * of its own, however it is confined.
 *
 *   fork-floor [N]		(default 5000)
 *
 * Prints markdown on stdout.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROWS	100000
#define KEY	4242

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double
cpu_us(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec +
	    kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) * 1e6 +
	    (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec +
	    kids.ru_utime.tv_usec + kids.ru_stime.tv_usec);
}

static void
die(const char *what, sqlite3 *db)
{
	fprintf(stderr, "fork-floor: %s: %s\n", what,
	    db != NULL ? sqlite3_errmsg(db) : strerror(errno));
	exit(1);
}

static void
make_db(const char *path)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	char name[32], note[32];
	int i;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		die("open", db);
	if (sqlite3_exec(db, "CREATE TABLE items (id INTEGER PRIMARY KEY, "
	    "name TEXT NOT NULL, qty INTEGER NOT NULL, price REAL NOT NULL, "
	    "note TEXT); BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO items VALUES (?, ?, ?, ?, ?)",
	    -1, &st, NULL) != SQLITE_OK)
		die("create", db);
	for (i = 1; i <= ROWS; i++) {
		snprintf(name, sizeof(name), "item-%d", i);
		snprintf(note, sizeof(note), "n%x", i);
		sqlite3_bind_int(st, 1, i);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 3, i % 100);
		sqlite3_bind_double(st, 4, i * 0.25);
		if (i % 10 == 0)
			sqlite3_bind_null(st, 5);
		else
			sqlite3_bind_text(st, 5, note, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			die("insert", db);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		die("commit", db);
	sqlite3_close(db);
}

/* The lookup; returns 1 when it found its row. */
static int
lookup(sqlite3 *db)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db, "SELECT id, name, qty, price, note FROM "
	    "items WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int(st, 1, KEY);
	while (sqlite3_step(st) == SQLITE_ROW)
		n += sqlite3_column_int(st, 0) == KEY &&
		    sqlite3_column_text(st, 1) != NULL;
	sqlite3_finalize(st);
	return n == 1;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
row(const char *name, double *t, int n, double cpu)
{
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("| %s | %d | %.3f / %.3f | %.3f |\n", name, n,
	    t[n / 2] / 1e3, t[n * 99 / 100] / 1e3, cpu / n / 1e3);
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/fork-floor-XXXXXX", path[64];
	int n = argc > 1 ? atoi(argv[1]) : 5000, i, st;
	double *t, c0, t0;
	sqlite3 *db;
	pid_t pid;

	if (n < 100 || (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 2;
	if (mkdtemp(dir) == NULL)
		die("mkdtemp", NULL);
	snprintf(path, sizeof(path), "%s/bench.db", dir);
	make_db(path);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK || !lookup(db))
		die("lookup", db);
	printf("| way | N | p50 / p99 ms | CPU per call ms |\n");
	printf("| --- | ---: | ---: | ---: |\n");

	c0 = cpu_us();
	for (i = 0; i < n; i++) {
		t0 = now_us();
		if (!lookup(db))
			die("lookup", db);
		t[i] = now_us() - t0;
	}
	row("in-process", t, n, cpu_us() - c0);

	c0 = cpu_us();
	for (i = 0; i < n; i++) {
		t0 = now_us();
		if ((pid = fork()) == 0)
			_exit(lookup(db) ? 0 : 1);
		if (pid < 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			die("fork", NULL);
		t[i] = now_us() - t0;
	}
	row("fork", t, n, cpu_us() - c0);

	sqlite3_close(db);
	unlink(path);
	rmdir(dir);
	free(t);
	return 0;
}
