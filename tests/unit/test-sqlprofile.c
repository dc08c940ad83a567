/*
 * test-sqlprofile.c: toolcell-sqlite's confinement profile fails closed.
 * A [sqlite] section names a read-write database in one directory and a
 * read-only one in another; a probe runs in a child confined by
 * sqlite_profile and tries, with plain system calls and through SQL on a
 * raw connection (none of sqlite_conn.h's guards: the kernel alone), to
 * reach what the profile does not grant: another directory's files (its
 * secret, a database there by ATTACH, a copy made by VACUUM INTO), a write
 * beside the read-only database, /etc/passwd, a program, a process, a
 * socket.  What the databases need still works: a write with its journal
 * in the read-write one's directory, a read of the read-only one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/err.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "sandbox/profile.h"
#include "sandbox/sandbox.h"
#include "sqlite.h"
#include "tap.h"

#define GUARD_MS	10000

static char base[PATH_MAX / 2];	/* the test's directory */

/* A path beneath base, in a static buffer of its own per |slot|. */
static const char *
at(int slot, const char *rel)
{
	static char buf[4][PATH_MAX];

	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", base, rel);
	return buf[slot];
}

/* Runs |sql| on a raw connection to |db| opened with |flags|; returns
 * SQLite's code. */
static int
raw_sql(const char *db, int flags, const char *sql)
{
	sqlite3 *h = NULL;
	int rc;

	if ((rc = sqlite3_open_v2(db, &h, flags, NULL)) == SQLITE_OK)
		rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close_v2(h);
	return rc;
}

/* Appends "name=yes|no" to the result, yes when |cond|. */
static void
say(struct tc_result *res, const char *name, int cond)
{
	tc_result_printf(res, "%s=%s\n", name, cond ? "yes" : "no");
}

/* In the confined child: what it can and cannot do. */
static int
probe(const struct tc_call *call, struct tc_result *res)
{
	char q[PATH_MAX * 2];
	int fd;
	pid_t pid;

	(void)call;
	/* What it needs. */
	say(res, "rw_write", raw_sql(at(0, "rw/app.db"), SQLITE_OPEN_READWRITE,
	    "INSERT INTO t VALUES (2)") == SQLITE_OK);
	say(res, "ro_read", raw_sql(at(0, "ro/ro.db"), SQLITE_OPEN_READONLY,
	    "SELECT * FROM k") == SQLITE_OK);
	/* What it may not: files elsewhere, plainly. */
	fd = open(at(0, "out/secret.txt"), O_RDONLY | O_CLOEXEC);
	say(res, "read_outside", fd >= 0);
	fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	say(res, "read_passwd", fd >= 0);
	fd = open(at(0, "ro/new.txt"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	say(res, "make_beside_ro", fd >= 0);
	fd = open(at(0, "ro/ro.db"), O_WRONLY | O_CLOEXEC);
	say(res, "write_ro_db", fd >= 0);
	/* Through SQL, with no authorizer, no limit on attached databases. */
	snprintf(q, sizeof(q), "ATTACH '%s' AS o; SELECT * FROM o.x",
	    at(1, "out/other.db"));
	say(res, "attach_outside", raw_sql(at(0, "rw/app.db"),
	    SQLITE_OPEN_READWRITE, q) == SQLITE_OK);
	snprintf(q, sizeof(q), "ATTACH '%s' AS n; CREATE TABLE n.y(a)",
	    at(1, "out/new.db"));
	say(res, "attach_new", raw_sql(at(0, "rw/app.db"),
	    SQLITE_OPEN_READWRITE, q) == SQLITE_OK);
	snprintf(q, sizeof(q), "VACUUM INTO '%s'", at(1, "out/copy.db"));
	say(res, "vacuum_into", raw_sql(at(0, "rw/app.db"),
	    SQLITE_OPEN_READWRITE, q) == SQLITE_OK);
	say(res, "ro_db_write", raw_sql(at(0, "ro/ro.db"),
	    SQLITE_OPEN_READWRITE, "INSERT INTO k VALUES (9)") == SQLITE_OK);
	/* No program, no process, no socket. */
	say(res, "socket", socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) >= 0 ||
	    socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) >= 0);
	if ((pid = fork()) == 0)
		_exit(0);
	say(res, "fork", pid > 0);
	execl("/bin/true", "true", (char *)NULL);
	say(res, "exec", 0);
	return res->failed;
}

static const struct tc_arg no_args[] = { { NULL } };

static const struct tc_tool tools[] = {
	{ .name = "probe", .description = "probe", .args = no_args,
	  .fn = probe, .profile = &sqlite_profile },
};

/* Runs the probe as the server's loop would; returns its text (the
 * caller frees it) or NULL. */
static char *
run_probe(struct tc_sandbox *sb)
{
	struct tc_call call;
	struct tc_run r;
	struct pollfd pfd[TC_RUN_POLLFDS];
	struct tc_diag d;
	int64_t start = tc_now_ms(), ms;
	cJSON *args = cJSON_CreateObject(), *res;
	const char *text;
	char *copy = NULL;
	int n;

	memset(&call, 0, sizeof(call));
	memset(&d, 0, sizeof(d));
	call.tool = &tools[0];
	call.args = args;
	call.policy = sb->policy;
	tc_run_init(&r);
	n = tc_run_start(&r, sb, &call, &d);
	cJSON_Delete(args);
	if (!is_int(n, 0, "tc_run_start")) {
		printf("#   %s\n", d.msg);
		return NULL;
	}
	for (;;) {
		n = tc_run_pollfds(&r, pfd);
		ms = r.deadline_ms - tc_now_ms();
		poll(pfd, (nfds_t)n, ms < 0 ? 0 : ms > 100 ? 100 : (int)ms);
		if (tc_run_step(&r, pfd, n, tc_now_ms()))
			break;
		if (tc_now_ms() - start > GUARD_MS) {
			ok(0, "the probe still runs after %d ms", GUARD_MS);
			tc_run_kill(&r, TC_OUT_CANCELLED);
			tc_run_wait(&r);
			tc_run_release(&r);
			return NULL;
		}
	}
	res = tc_run_take_result(&r);
	text = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(res, "content"), 0), "text"));
	if (text != NULL)
		copy = strdup(text);
	cJSON_Delete(res);
	tc_run_release(&r);
	return copy;
}

/* Makes a database |path| with |sql|, unconfined. */
static int
make_db(const char *path, const char *sql)
{
	return raw_sql(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, sql);
}

static void
report(void *ctx, const char *msg)
{
	(void)ctx;
	printf("#   %s\n", msg);
}

/* The integer |sql| answers on |db|, or -1. */
static long long
one_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The integer |sql| answers on a raw connection to |path|, or -1. */
static long long
one_int_at(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	long long v = -1;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK)
		v = one_int(h, sql);
	sqlite3_close_v2(h);
	return v;
}

/*
 * The profile's ahead hook (sq_ahead(), here unconfined): the connection
 * it opened is handed over once, reads the file as it is when the call
 * comes (rows and tables added since), stays read-only, and is not handed
 * over once the path names another file; a read-write one serves a
 * change, held to the kind it is armed with.
 */
static void
ahead_checks(const struct tc_policy *pol)
{
	struct sq_limits lim = { 0, 0, 0, 0, 0 };
	const char *app = sqlite_policy(pol)->dbs[0].path;
	sqlite3 *db, *rw;

	sq_ahead(pol);
	ok(sq_ahead_take("/nowhere.db", SQ_KIND_READ) == NULL, "ahead: none for a path "
	    "it did not open");
	ok(raw_sql(at(0, "rw/app.db"), SQLITE_OPEN_READWRITE, "INSERT INTO "
	    "t VALUES (42); CREATE TABLE u(b); INSERT INTO u VALUES (5)") ==
	    SQLITE_OK, "ahead: a row and a table added after it opened");
	db = sq_ahead_take(app, SQ_KIND_READ);
	ok(db != NULL, "ahead: the connection is handed over");
	if (db != NULL) {
		lim.deadline_ms = tc_now_ms() + GUARD_MS;
		is_int(sq_conn_arm(db, SQ_KIND_READ, &lim), 0, "  and armed");
		is_int(one_int(db, "SELECT count(*) FROM t WHERE a = 42"), 1, "  reads the "
		    "row added since");
		is_int(one_int(db, "SELECT b FROM u"), 5, "  and the table");
		ok(sqlite3_exec(db, "INSERT INTO t VALUES (3)", NULL, NULL,
		    NULL) != SQLITE_OK, "  and cannot write");
		sq_conn_close(db);
	}
	ok(sq_ahead_take(app, SQ_KIND_READ) == NULL, "ahead: handed over "
	    "once");
	db = sq_ahead_take(app, SQ_KIND_WRITE);
	ok(db != NULL, "ahead: a read-write connection for a change");
	if (db != NULL) {
		lim.deadline_ms = tc_now_ms() + GUARD_MS;
		is_int(sq_conn_arm(db, SQ_KIND_WRITE, &lim), 0, "  armed for "
		    "a write");
		ok(sqlite3_exec(db, "INSERT INTO u VALUES (6)", NULL, NULL,
		    NULL) == SQLITE_OK, "  writes");
		ok(sqlite3_exec(db, "DROP TABLE u", NULL, NULL, NULL) !=
		    SQLITE_OK, "  and no more than a write");
		sq_conn_close(db);
	}
	is_int(one_int_at(at(0, "rw/app.db"), "SELECT count(*) FROM u"), 2,
	    "  the row is there");

	sq_ahead(pol);
	ok(make_db(at(0, "rw/new.db"), "CREATE TABLE t(a); INSERT INTO t "
	    "VALUES (7)") == SQLITE_OK && rename(at(0, "rw/new.db"),
	    at(1, "rw/app.db")) == 0, "ahead: the file replaced after it "
	    "opened");
	ok(sq_ahead_take(app, SQ_KIND_READ) == NULL, "  the old file's "
	    "connection is not handed over");

	/* A zygote's: run again when stale, it opens the file as it is now
	 * and keeps what is still open on its file. */
	sq_ahead(pol);
	is_int(sq_ahead_stale(pol), 0, "ahead: not stale right after");
	ok(make_db(at(0, "rw/new.db"), "CREATE TABLE t(a); INSERT INTO t "
	    "VALUES (8)") == SQLITE_OK && rename(at(0, "rw/new.db"),
	    at(1, "rw/app.db")) == 0, "ahead: the file replaced again");
	is_int(sq_ahead_stale(pol), 1, "  stale then");
	sq_ahead(pol);
	is_int(sq_ahead_stale(pol), 0, "  not once run again");
	db = sq_ahead_take(app, SQ_KIND_READ);
	ok(db != NULL, "  a connection to the new file");
	if (db != NULL) {
		lim.deadline_ms = tc_now_ms() + GUARD_MS;
		is_int(sq_conn_arm(db, SQ_KIND_READ, &lim), 0, "  armed");
		is_int(one_int(db, "SELECT a FROM t"), 8, "  reading it");
		sq_conn_close(db);
	}
	sq_ahead(pol);
	db = sq_ahead_take(app, SQ_KIND_READ);
	rw = sq_ahead_take(app, SQ_KIND_WRITE);
	ok(db != NULL && rw != NULL, "ahead: run again, both connections "
	    "there");
	sq_conn_close(db);
	sq_conn_close(rw);
}

int
main(void)
{
	static const char *const names[] = { "probe" };
	static const struct {
		const char	*name;
		int		 want;
	} expect[] = {
		{ "rw_write", 1 }, { "ro_read", 1 },
		{ "read_outside", 0 }, { "read_passwd", 0 },
		{ "make_beside_ro", 0 }, { "write_ro_db", 0 },
		{ "attach_outside", 0 }, { "attach_new", 0 },
		{ "vacuum_into", 0 }, { "ro_db_write", 0 },
		{ "socket", 0 }, { "fork", 0 }, { "exec", 0 },
	};
	struct tc_profiles profiles = { { NULL }, 0 };
	struct tc_sandbox sb;
	struct tc_policy pol;
	struct tc_diag d;
	struct stat st;
	char tmpl[] = "/tmp/test-sqlprofile-XXXXXX", want[64], *text;
	char real[PATH_MAX];
	FILE *f;
	size_t i;

	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL ||
	    strlen(real) >= sizeof(base)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return done_testing();
	}
	memcpy(base, real, strlen(real) + 1);
	mkdir(at(0, "rw"), 0755);
	mkdir(at(0, "ro"), 0755);
	mkdir(at(0, "out"), 0755);
	f = fopen(at(0, "out/secret.txt"), "w");
	if (f != NULL) {
		fputs("secret\n", f);
		fclose(f);
	}
	ok(make_db(at(0, "rw/app.db"), "CREATE TABLE t(a); INSERT INTO t "
	    "VALUES (1)") == SQLITE_OK && make_db(at(0, "ro/ro.db"),
	    "CREATE TABLE k(a); INSERT INTO k VALUES (1)") == SQLITE_OK &&
	    make_db(at(0, "out/other.db"), "CREATE TABLE x(a)") == SQLITE_OK,
	    "the databases are made");
	f = fopen(at(0, "t.policy"), "w");
	if (f == NULL) {
		ok(0, "policy: %s", strerror(errno));
		return done_testing();
	}
	fprintf(f, "[sqlite]\ndatabase app %s read-write\ndatabase ro %s\n",
	    at(0, "rw/app.db"), at(1, "ro/ro.db"));
	fclose(f);

	tc_policy_init(&pol);
	pol.limits.deadline_ms = 5000;
	pol.limits.max_result = 1u << 20;
	memset(&d, 0, sizeof(d));
	if (!is_int(tc_policy_set_server(&pol, "toolcell-sqlite", names, 1, 0),
	    0, "set_server") ||
	    !is_int(tc_policy_set_section(&pol, &sqlite_policy_section, &d), 0,
	    "set_section") ||
	    !is_int(tc_policy_load(&pol, at(0, "t.policy"), report, NULL, &d),
	    0, "the policy loads")) {
		printf("#   %s\n", d.msg);
		return done_testing();
	}
	is_int((long long)sqlite_policy(&pol)->ndbs, 2, "two databases");
	tc_profiles_add(&profiles, &sqlite_profile);
	if (!is_int(tc_sandbox_init(&sb, &pol, &profiles, &d), 0,
	    "tc_sandbox_init")) {
		printf("#   %s\n", d.msg);
		return done_testing();
	}
	text = run_probe(&sb);
	ok(text != NULL, "the probe answered");
	for (i = 0; text != NULL && i < TC_NITEMS(expect); i++) {
		snprintf(want, sizeof(want), "%s=%s\n", expect[i].name,
		    expect[i].want ? "yes" : "no");
		ok(strstr(text, want) != NULL, "%s: %s", expect[i].name,
		    expect[i].want ? "works" : "refused");
	}
	if (text != NULL)
		printf("# %s", text);
	free(text);
	ok(stat(at(0, "out/new.db"), &st) != 0, "ATTACH made no file outside");
	ok(stat(at(0, "out/copy.db"), &st) != 0, "VACUUM INTO made no file");
	ok(stat(at(0, "ro/new.txt"), &st) != 0, "nothing was made beside the "
	    "read-only database");
	ahead_checks(&pol);

	/*
	 * The rules are built again when the client's roots change, while
	 * another server (toolcell-fs, toolcell-shell) may let the model
	 * rename the read-write database's directory and put a link to
	 * another in its place: the new rules must still be the
	 * directory's the policy resolved, not the link's.
	 */
	ok(rename(at(0, "rw"), at(1, "rw.moved")) == 0 &&
	    symlink(at(0, "out"), at(1, "rw")) == 0,
	    "the read-write database's directory swapped for a link");
	if (!is_int(tc_sandbox_reroot(&sb, &d), 0, "the rules built again"))
		printf("#   %s\n", d.msg);
	text = run_probe(&sb);
	ok(text != NULL && strstr(text, "read_outside=no\n") != NULL,
	    "read_outside: refused, the rules built again after the swap");
	if (text != NULL)
		printf("# %s", text);
	free(text);
	(void)unlink(at(0, "rw"));
	(void)rename(at(0, "rw.moved"), at(1, "rw"));
	tc_sandbox_release(&sb);
	tc_policy_release(&pol);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	unlink(at(0, "rw/app.db"));
	unlink(at(0, "ro/ro.db"));
	unlink(at(0, "out/other.db"));
	unlink(at(0, "out/secret.txt"));
	unlink(at(0, "t.policy"));
	rmdir(at(0, "rw"));
	rmdir(at(0, "ro"));
	rmdir(at(0, "out"));
	rmdir(base);
	return done_testing();
}
