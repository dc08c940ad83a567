/*
 * toolcell-sqlite: SQL over the SQLite databases its policy names, each
 * call in a child the kernel confines (sqlite_profile.c), on a connection
 * hardened against every known way out (sqlite_conn.h).  Statements are
 * classified in the server, before anything is forked, so that consent
 * and the audit log see the database and what the SQL would do; the
 * child's connection is opened for that and no more.  docs/sqlite.md
 * describes the design.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "policy/subject.h"
#include "sandbox/profile.h"
#include "serve/server.h"
#include "sqlite.h"

#define SQL_MAX		(1u << 20)	/* bytes of a call's SQL */
#define PARAMS_MAX	1000		/* values a call binds */
#define PARAM_MAX_LEN	(1u << 20)	/* bytes of one */
#define TABLE_MAX_LEN	1024

/* --- The tools --- */

#define DB_ARG								\
	{ .name = "database", .type = TC_ARG_STRING,			\
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY,			\
	  .max_len = SQ_NAME_MAX,					\
	  .description = "The database, by the name the policy gives "	\
	      "it (list_databases lists them)." }

#define PARAMS_ARG(what)						\
	{ .name = "params", .type = TC_ARG_SCALAR_ARRAY,		\
	  .max_len = PARAMS_MAX, .item_max_len = PARAM_MAX_LEN,		\
	  .description = "Values bound to the " what "'s parameters "	\
	      "(?, ?NNN, :name, @name, $name), in order: strings, "	\
	      "numbers, booleans (1 or 0) and null (NULL). An integer "	\
	      "beyond 2^53 goes as a string of its digits." }

static const struct tc_arg db_args[] = {
	DB_ARG,
	{ NULL }
};

static const struct tc_arg no_args[] = {
	{ NULL }
};

static const struct tc_arg describe_args[] = {
	DB_ARG,
	{ .name = "table", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY,
	  .max_len = TABLE_MAX_LEN,
	  .description = "The table or view, by its exact name (no quotes)." },
	{ NULL }
};

static const struct tc_arg query_args[] = {
	DB_ARG,
	{ .name = "sql", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY, .max_len = SQL_MAX,
	  .description = "One statement that only reads: SELECT, VALUES or "
	      "WITH ... SELECT. Give values as params, not in the text. "
	      "For pages that hold together, ORDER BY a key." },
	PARAMS_ARG("statement"),
	{ .name = "max_rows", .type = TC_ARG_INT, .min = 1,
	  .max = (long long)SQ_ROWS_MAX,
	  .description = "Return at most this many rows (at most, and by "
	      "default, the database's limit: list_databases says it)." },
	{ .name = "cursor", .type = TC_ARG_STRING,
	  .flags = TC_ARG_NONEMPTY | TC_ARG_NULLABLE,
	  .max_len = SQ_CURSOR_MAX,
	  .description = "The \"next\" of an earlier result of the same "
	      "database, sql and params: returns the rows after it." },
	{ NULL }
};

static const struct tc_arg execute_args[] = {
	DB_ARG,
	{ .name = "sql", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY, .max_len = SQL_MAX,
	  .description = "One or several statements separated by ';' "
	      "(INSERT, UPDATE, DELETE, CREATE, ALTER, DROP ...), run in "
	      "one transaction: all take effect or, if any fails, none. "
	      "Without BEGIN, COMMIT or ROLLBACK." },
	PARAMS_ARG("statements"),
	{ NULL }
};

static const struct tc_arg explain_args[] = {
	DB_ARG,
	{ .name = "sql", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY, .max_len = SQL_MAX,
	  .description = "One statement, without EXPLAIN: its plan is "
	      "returned, the statement is not run." },
	PARAMS_ARG("statement"),
	{ NULL }
};

/* Results: a member that may be null is an anyOf of typed schemas. */
static const char query_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"type\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}],"
    "\"description\":\"the declared type; null for an expression\"}}}},"
    "\"rows\":{\"type\":\"array\",\"items\":{\"type\":\"array\","
    "\"description\":\"one row, its cells in the order of columns: null "
    "for NULL; a number for an INTEGER within +-2^53 or a REAL; a string "
    "for TEXT, and for an INTEGER beyond +-2^53 (its exact digits) or an "
    "infinite REAL (Infinity, -Infinity); an object for a BLOB, "
    "{blob: base64, bytes: its size, cut: true if only its first bytes "
    "are given}, and for TEXT cut at the byte cap, {text, bytes, cut}\"}},"
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"true when more "
    "rows follow than were returned (by max_rows or the byte cap)\"},"
    "\"next\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}],"
    "\"description\":\"the cursor of the next page: pass it as the "
    "cursor argument of the same call; null on the last\"}},"
    "\"required\":[\"columns\",\"rows\",\"truncated\",\"next\"]}";

static const char execute_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"statements\":{\"type\":\"integer\"},"
    "\"changes\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"},"
    "\"description\":\"rows each statement changed\"},"
    "\"total_changes\":{\"type\":\"integer\"},"
    "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"object\"},"
    "\"description\":\"with rows: those of the last statement that "
    "returns any (RETURNING, SELECT), as query gives them\"},"
    "\"rows\":{\"type\":\"array\",\"items\":{\"type\":\"array\"}},"
    "\"truncated\":{\"type\":\"boolean\"},"
    "\"last_insert_rowid\":{\"anyOf\":[{\"type\":\"integer\"},"
    "{\"type\":\"string\"}],\"description\":\"a string of its digits "
    "beyond +-2^53\"}},"
    "\"required\":[\"statements\",\"changes\",\"total_changes\","
    "\"last_insert_rowid\"]}";

static const char explain_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"plan\":{\"type\":\"array\",\"description\":\"the plan's steps as a "
    "tree: each {detail, children}\",\"items\":{\"type\":\"object\"}}},"
    "\"required\":[\"plan\"]}";

static const char databases_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"databases\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"path\":{\"type\":\"string\"},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"read-only\",\"read-write\"]},"
    "\"size\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"null\"}]},"
    "\"max_rows\":{\"type\":\"integer\"},"
    "\"max_bytes\":{\"type\":\"integer\"},"
    "\"time_ms\":{\"type\":\"integer\"}}}}},"
    "\"required\":[\"databases\"]}";

static const char tables_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"tables\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"table\",\"view\"]},"
    "\"rows\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"null\"}],"
    "\"description\":\"an estimate: null for a view\"},"
    "\"rows_from\":{\"type\":\"string\",\"description\":\"sqlite_stat1, "
    "count, or 'count, at least' where the count stopped\"}}}}},"
    "\"required\":[\"tables\"]}";

static const char describe_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},\"type\":{\"type\":\"string\"},"
    "\"sql\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]},"
    "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
    "\"indexes\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
    "\"foreign_keys\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
    "\"triggers\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}}},"
    "\"required\":[\"name\",\"type\",\"columns\",\"indexes\","
    "\"foreign_keys\",\"triggers\"]}";

static const char schema_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"mimeType\":{\"type\":\"string\"}}}";

#define DB_KINDS	(1u << TC_SUBJECT_DATABASE)
#define SQL_KINDS	((1u << TC_SUBJECT_DATABASE) | \
			 (1u << TC_SUBJECT_STATEMENT))
#define RO		(TC_TOOL_READONLY | TC_TOOL_IDEMPOTENT)

static int	sq_subjects(const struct tc_subject_ctx *, const cJSON *,
		    struct tc_subjects *, struct tc_diag *);

static const struct tc_tool sqlite_tools[] = {
	{ .name = "list_databases", .title = "List the databases",
	  .description = "List the databases this server serves: name, file, "
	      "read-only or read-write, size, and the limits of a call.",
	  .args = no_args, .output_schema = databases_out,
	  .fn = sqlite_list_databases, .profile = &sqlite_profile,
	  .flags = RO },
	{ .name = "list_tables", .title = "List the tables",
	  .description = "List a database's tables and views, with an "
	      "estimate of each table's rows (from sqlite_stat1, or a count "
	      "that stops at 10000).",
	  .args = db_args, .output_schema = tables_out,
	  .fn = sqlite_list_tables, .profile = &sqlite_profile,
	  .deadline_ms = sq_deadline_ms,
	  .flags = RO, .subjects = sq_subjects, .subject_kinds = DB_KINDS },
	{ .name = "describe_table", .title = "Describe a table",
	  .description = "Describe a table or view: its columns (type, "
	      "NOT NULL, default, primary key), indexes, foreign keys, "
	      "triggers and the SQL that made it.",
	  .args = describe_args, .output_schema = describe_out,
	  .fn = sqlite_describe_table, .profile = &sqlite_profile,
	  .deadline_ms = sq_deadline_ms,
	  .flags = RO, .subjects = sq_subjects, .subject_kinds = DB_KINDS },
	{ .name = "query", .title = "Query a database",
	  .description = "Run one statement that only reads (SELECT, VALUES, "
	      "WITH ... SELECT), with bound params, and return its rows as "
	      "arrays in the order of columns, at most max_rows and the "
	      "database's byte cap. truncated says whether more rows follow; "
	      "next is the cursor of the next page: pass it as cursor, with "
	      "the same database, sql and params. Any database, read-only "
	      "or read-write: nothing is changed.",
	  .args = query_args, .output_schema = query_out,
	  .fn = sqlite_query, .profile = &sqlite_profile,
	  .deadline_ms = sq_deadline_ms,
	  .flags = RO, .subjects = sq_subjects, .subject_kinds = SQL_KINDS },
	{ .name = "execute", .title = "Change a database",
	  .description = "Run statements that change a read-write database "
	      "(INSERT, UPDATE, DELETE, CREATE, ALTER, DROP ...), one or "
	      "several in one transaction: if any fails, nothing is changed. "
	      "Returns the rows each changed and the last inserted row id, "
	      "and the rows of the last statement that returns any "
	      "(INSERT ... RETURNING id). "
	      "ATTACH, VACUUM, load_extension and PRAGMAs that change "
	      "settings are never run.",
	  .args = execute_args, .output_schema = execute_out,
	  .fn = sqlite_execute, .profile = &sqlite_profile,
	  .deadline_ms = sq_deadline_ms,
	  .flags = TC_TOOL_DESTRUCTIVE, .subjects = sq_subjects,
	  .subject_kinds = SQL_KINDS },
	{ .name = "explain_query", .title = "Explain a query",
	  .description = "Show how SQLite would run one statement (EXPLAIN "
	      "QUERY PLAN), as a tree: which indexes it uses, where it "
	      "scans. The statement itself is not run. Give the statement "
	      "alone; an EXPLAIN or EXPLAIN QUERY PLAN before it is taken "
	      "off.",
	  .args = explain_args, .output_schema = explain_out,
	  .fn = sqlite_explain_query, .profile = &sqlite_profile,
	  .deadline_ms = sq_deadline_ms,
	  .flags = RO, .subjects = sq_subjects, .subject_kinds = SQL_KINDS },
	{ .name = "read_schema", .title = "Read a database's schema",
	  .description = "A database's schema as SQL, for resources/read.",
	  .args = db_args, .output_schema = schema_out,
	  .fn = sqlite_read_schema, .profile = &sqlite_profile,
	  .deadline_ms = sq_deadline_ms,
	  .flags = RO | TC_TOOL_RESOURCE, .subjects = sq_subjects,
	  .subject_kinds = DB_KINDS },
};

/* --- What a call acts on, in the server --- */

/*
 * A call's subjects, before anything is forked: the database, by its
 * policy name (read, or write for execute), and for the tools that take
 * SQL the kind of what it would do (read, write or schema: the most of
 * its statements), classified from its tokens.  Refused here, in words:
 * a database the policy does not name, SQL that is no statement or holds
 * one never run (ATTACH, VACUUM, a PRAGMA that writes ...), query with a
 * statement that changes something, one statement expected and more
 * given, execute on a read-only database.
 */
static int
sq_subjects(const struct tc_subject_ctx *ctx, const cJSON *args,
    struct tc_subjects *out, struct tc_diag *d)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(args, "database");
	const cJSON *sql = cJSON_GetObjectItemCaseSensitive(args, "sql");
	const struct tc_tool *t = ctx->tool;
	const struct sq_database *db;
	char shown[SQ_NAME_MAX * 2 + 16];
	enum sq_kind kind = SQ_KIND_READ;
	size_t nstmts = 0;
	int rc, writes = t->fn == sqlite_execute;

	if (!cJSON_IsString(name) ||
	    (db = sq_database_find(ctx->policy, name->valuestring)) == NULL) {
		tc_text_show(shown, sizeof(shown), cJSON_IsString(name) ?
		    name->valuestring : "", 0);
		return tc_diag(d, TC_EINVAL, "no database named '%s' "
		    "(list_databases lists them)", shown);
	}
	if (cJSON_IsString(sql)) {
		if ((rc = sq_kind_of(sql->valuestring,
		    strlen(sql->valuestring), &kind, &nstmts, d)) != 0)
			return rc;
		if (!writes && nstmts != 1)
			return tc_diag(d, TC_EINVAL, "%s runs one statement; "
			    "this SQL holds %zu", t->name, nstmts);
		if (t->fn == sqlite_query && kind != SQ_KIND_READ)
			return tc_diag(d, TC_EINVAL, "query runs only "
			    "statements that read; this one would %s: use "
			    "execute, on a read-write database",
			    kind == SQ_KIND_SCHEMA ? "change the schema" :
			    "change data");
	}
	if ((writes || kind > SQ_KIND_READ) && !db->readwrite)
		return tc_diag(d, TC_EDENIED, "database '%s' is read-only: "
		    "the policy lets no call change it", db->name);
	if ((rc = tc_subjects_put(out, TC_SUBJECT_DATABASE, db->name,
	    writes && kind > SQ_KIND_READ ? TC_SUBJECT_WRITE : TC_SUBJECT_READ,
	    d)) != 0)
		return rc;
	if (cJSON_IsString(sql) && (rc = tc_subjects_put(out,
	    TC_SUBJECT_STATEMENT, sq_kind_name(kind), 0, d)) != 0)
		return rc;
	return 0;
}

/* --- The server --- */

static int
shown(struct tc_buf *b, const char *s)
{
	return tc_buf_append_shown(b, s, strlen(s), 0);
}

/* Tells the model which databases it may use, how, and within what. */
static int
sqlite_instructions(const struct tc_server *srv, const struct tc_policy *pol,
    struct tc_buf *b)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	const struct sq_database *d;
	char bytes[32];
	size_t i;

	tc_buf_printf(b, "%s serves these SQLite databases, by name: ",
	    srv->name);
	for (i = 0; i < sp->ndbs; i++) {
		d = &sp->dbs[i];
		tc_buf_append_str(b, i > 0 ? "; " : "");
		shown(b, d->name);
		tc_buf_printf(b, " (%s; at most %llu rows and %s per call, "
		    "%d ms)", d->readwrite ? "read-write" : "read-only",
		    d->rows, tc_policy_value_str(TC_POLICY_SIZE, d->bytes,
		    bytes, sizeof(bytes)), d->time_ms);
	}
	tc_buf_append_str(b, ". query runs one statement that reads, with its "
	    "values in params; rows come as arrays in the order of columns, "
	    "and next pages them. ");
	if (sq_any_readwrite(pol))
		tc_buf_append_str(b, "execute changes a read-write database, "
		    "its statements in one transaction. ");
	return tc_buf_append_str(b, "ATTACH, VACUUM, load_extension and "
	    "PRAGMAs that change settings are never run; each call reaches "
	    "only its database's directory.");
}

/* execute only while some database is read-write. */
static int
sqlite_offered(const struct tc_policy *pol, const struct tc_tool *t,
    char *why, size_t len)
{
	if (t->fn != sqlite_execute || sq_any_readwrite(pol))
		return 1;
	if (why != NULL)
		snprintf(why, len, "is not offered: every database is "
		    "read-only (mark one read-write in the policy's [sqlite] "
		    "section)");
	return 0;
}

/*
 * Refuses to start without a database to serve, or with a read-write one
 * that calls cannot write (every execute would fail, and only its error
 * would say why).  Initializes SQLite here, in the server, before any
 * child is forked: each call's child then finds its allocator, mutexes
 * and VFS ready instead of setting them up.
 */
static int
sqlite_ready(const struct tc_server *srv, const struct tc_policy *pol,
    struct tc_diag *d)
{
	int rc;

	if (sqlite_policy(pol)->ndbs == 0)
		return tc_diag(d, TC_EINVAL, "no databases to serve: name "
		    "them in a policy file (--policy FILE), one 'database NAME "
		    "PATH [read-write]' line each in its [sqlite] section; see "
		    "%s(1)", srv->name);
	if ((rc = sq_check_writable(pol, d)) != 0)
		return rc;
	if ((rc = sqlite3_initialize()) != SQLITE_OK)
		return tc_diag(d, TC_ESYS, "cannot initialize SQLite: %s",
		    sqlite3_errstr(rc));
	return 0;
}

/*
 * The shared warnings; that allow lines give it nothing (it serves
 * files, not directories), in a file without other servers' sections;
 * that a read-only database is kept read-only
 * by its connection alone where the kernel lets calls write its
 * directory: it is in WAL mode, or shares the directory with a database
 * that calls may write beside.
 */
static void
sqlite_warn(const struct tc_policy *pol, tc_policy_report_fn *report,
    void *ctx)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	const char *file = pol->file != NULL ? pol->file : "command line";
	char msg[1024];
	size_t i, k;

	/* No tool of its is a writer of files to the shared warnings:
	 * execute is offered by its databases' modes (sqlite_offered()). */
	tc_policy_warn(pol, NULL, report, ctx);
	if (report == NULL)
		return;
	/* In a file with other servers' sections, the allow lines above
	 * the first header are theirs (the README's one file for all
	 * three): only a file of its own says it meant them for this one. */
	for (i = 0; pol->nskipped == 0 && i < pol->nroots; i++) {
		tc_text_fmt(msg, sizeof(msg), "%s:%d: allow %s: toolcell-"
		    "sqlite reaches only the directories of its databases "
		    "([sqlite] database lines); allow lines give it nothing",
		    file,
		    pol->roots[i].line, pol->roots[i].path);
		report(ctx, msg);
	}
	for (i = 0; i < sp->ndbs; i++) {
		if (sp->dbs[i].readwrite)
			continue;
		if (sp->dbs[i].wal) {
			tc_text_fmt(msg, sizeof(msg), "%s:%d: database %s is "
			    "in WAL mode, whose readers write its -shm file: "
			    "the kernel lets calls write its directory, and "
			    "only its connection, opened read-only, keeps %s "
			    "read-only",
			    file, sp->dbs[i].line, sp->dbs[i].name,
			    sp->dbs[i].name);
			report(ctx, msg);
			continue;
		}
		for (k = 0; k < sp->ndbs; k++)
			if (sq_dir_writable(&sp->dbs[k]) &&
			    strcmp(sp->dbs[k].dir, sp->dbs[i].dir) == 0)
				break;
		if (k == sp->ndbs)
			continue;
		tc_text_fmt(msg, sizeof(msg), "%s:%d: database %s: its "
		    "directory holds the database %s, which calls may write "
		    "beside, so the kernel lets them write there; only its "
		    "connection keeps %s read-only: give each read-write "
		    "database a directory of its own", file, sp->dbs[i].line,
		    sp->dbs[i].name,
		    sp->dbs[k].name, sp->dbs[i].name);
		report(ctx, msg);
	}
}

/*
 * For --print-config, whose entry names only the policy: its databases,
 * in the lines --check shows them.
 */
static void
sqlite_served(const struct tc_policy *pol, FILE *f)
{
	sqlite_policy_section.print(pol, sqlite_policy(pol), f);
}

/* For a start in a terminal: the databases, by name, and how. */
static int
sqlite_serving(const struct tc_policy *pol, struct tc_buf *b)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	size_t i;
	int rc = 0;

	for (i = 0; i < sp->ndbs && rc == 0; i++)
		rc = tc_buf_printf(b, "%s%s (%s, %s)", i ? ", " :
		    "databases: ", sp->dbs[i].name, sp->dbs[i].path,
		    sp->dbs[i].readwrite ? "read-write" : "read-only");
	return rc;
}

/* --- Resources: sqlite://NAME/schema --- */

#define URI_PREFIX	"sqlite://"
#define URI_SUFFIX	"/schema"

static int
list_resources(const struct tc_policy *pol, cJSON *arr)
{
	const struct sqlite_policy *sp = sqlite_policy(pol);
	char uri[SQ_NAME_MAX + 32], name[SQ_NAME_MAX + 16];
	cJSON *o;
	size_t i;

	for (i = 0; i < sp->ndbs; i++) {
		snprintf(uri, sizeof(uri), URI_PREFIX "%s" URI_SUFFIX,
		    sp->dbs[i].name);
		snprintf(name, sizeof(name), "%s schema", sp->dbs[i].name);
		if ((o = cJSON_CreateObject()) == NULL ||
		    !cJSON_AddItemToArray(arr, o) ||
		    cJSON_AddStringToObject(o, "uri", uri) == NULL ||
		    cJSON_AddStringToObject(o, "name", name) == NULL ||
		    cJSON_AddStringToObject(o, "description", "The tables, "
		    "views, indexes and triggers of the database, as the SQL "
		    "that makes them.") == NULL ||
		    cJSON_AddStringToObject(o, "mimeType", "application/sql") ==
		    NULL)
			return TC_ENOMEM;
	}
	return 0;
}

static int
read_args(const struct tc_policy *pol, const char *uri, cJSON **args,
    struct tc_diag *d)
{
	size_t n = strlen(uri), pre = strlen(URI_PREFIX),
	    suf = strlen(URI_SUFFIX);
	char name[SQ_NAME_MAX + 1];

	*args = NULL;
	if (n <= pre + suf || strncmp(uri, URI_PREFIX, pre) != 0 ||
	    strcmp(uri + n - suf, URI_SUFFIX) != 0 ||
	    n - pre - suf > SQ_NAME_MAX)
		return tc_diag(d, TC_EINVAL, "only " URI_PREFIX "NAME"
		    URI_SUFFIX " URIs are served");
	memcpy(name, uri + pre, n - pre - suf);
	name[n - pre - suf] = '\0';
	if (sq_database_find(pol, name) == NULL)
		return tc_diag(d, TC_EINVAL, "no database named '%s'", name);
	if ((*args = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(*args, "database", name) == NULL) {
		cJSON_Delete(*args);
		*args = NULL;
		return TC_ENOMEM;
	}
	return 0;
}

static const struct tc_resources sqlite_resources = {
	.tool = "read_schema",
	.list = list_resources,
	.read = read_args,
};

int
main(int argc, char *argv[])
{
	static const struct tc_server sqlite = {
		.name = "toolcell-sqlite",
		.title = "toolcell sqlite",
		.version = TC_VERSION,
		.summary = "SQL over the SQLite databases a policy names, "
		    "confined, over MCP",
		.tools = sqlite_tools,
		.ntools = TC_NITEMS(sqlite_tools),
		.policy_section = &sqlite_policy_section,
		/* Its databases are files its section names: the client's
		 * roots, directories, could narrow nothing. */
		.policy_features = TC_POLICY_F_NO_ROOTS,
		.policy_help = "the databases and limits of policy FILE;\n"
		    "see toolcell-policy(5)",
		.no_operands = "name the databases in a policy file (--policy "
		    "FILE: 'database NAME PATH [read-write]' lines in its "
		    "[sqlite] section)",
		.ready = sqlite_ready,
		.instructions = sqlite_instructions,
		.offered = sqlite_offered,
		.warn = sqlite_warn,
		.served = sqlite_served,
		.serving = sqlite_serving,
		.resources = &sqlite_resources,
	};

	return tc_server_main(&sqlite, argc, argv);
}
