/*
 * standin_conn.c: a minimal stand-in for sqlite_conn.c and sqlite_kind.c
 * until they land; removed then.  Not the guard.
 */
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "sqlite_conn.h"

const char *
sq_kind_name(enum sq_kind k)
{
	return k == SQ_KIND_SCHEMA ? "schema" : k == SQ_KIND_WRITE ? "write" :
	    "read";
}

static int
word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(p, w, n) == 0;
}

int
sq_kind_of(const char *sql, size_t len, enum sq_kind *kind, size_t *nstmts,
    struct tc_diag *d)
{
	const char *p = sql, *e = sql + len, *w;
	size_t n;
	int first = 1;
	enum sq_kind k = SQ_KIND_READ, cur = SQ_KIND_READ;

	*nstmts = 0;
	while (p < e) {
		if (*p == '-' && p + 1 < e && p[1] == '-') {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		if (*p == '/' && p + 1 < e && p[1] == '*') {
			for (p += 2; p + 1 < e && !(p[0] == '*' && p[1] == '/');
			    p++)
				;
			p += 2;
			continue;
		}
		if (*p == '\'' || *p == '"' || *p == '`' || *p == '[') {
			char q = *p == '[' ? ']' : *p;
			for (p++; p < e && *p != q; p++)
				;
			p++;
			continue;
		}
		if (*p == ';') {
			first = 1;
			if (cur > k)
				k = cur;
			p++;
			continue;
		}
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    *p == '_') {
			for (w = p; p < e && ((*p >= 'a' && *p <= 'z') ||
			    (*p >= 'A' && *p <= 'Z') || *p == '_' ||
			    (*p >= '0' && *p <= '9')); p++)
				;
			n = (size_t)(p - w);
			if (first) {
				(*nstmts)++;
				cur = SQ_KIND_READ;
				first = 0;
			}
			if (word_is(w, n, "attach") || word_is(w, n, "detach") ||
			    word_is(w, n, "vacuum") || word_is(w, n, "pragma") ||
			    word_is(w, n, "load_extension"))
				return tc_diag(d, TC_EINVAL, "'%.*s' is never run",
				    (int)n, w);
			if (word_is(w, n, "insert") || word_is(w, n, "update") ||
			    word_is(w, n, "delete") || word_is(w, n, "replace") ||
			    word_is(w, n, "begin") || word_is(w, n, "commit") ||
			    word_is(w, n, "rollback") || word_is(w, n, "analyze")) {
				if (cur < SQ_KIND_WRITE)
					cur = SQ_KIND_WRITE;
			} else if (word_is(w, n, "create") ||
			    word_is(w, n, "drop") || word_is(w, n, "alter"))
				cur = SQ_KIND_SCHEMA;
			continue;
		}
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' &&
		    first) {
			(*nstmts)++;
			first = 0;
			cur = SQ_KIND_READ;
		}
		p++;
	}
	if (cur > k)
		k = cur;
	if (*nstmts == 0)
		return tc_diag(d, TC_EINVAL, "the SQL holds no statement");
	*kind = k;
	return 0;
}

struct guard {
	long long	deadline;
	enum sq_kind	kind;
};

static struct guard guard;

static int
progress(void *arg)
{
	(void)arg;
	return tc_now_ms() > guard.deadline;
}

static int
authorize(void *arg, int op, const char *a, const char *b, const char *c,
    const char *t)
{
	(void)arg; (void)a; (void)b; (void)c; (void)t;
	switch (op) {
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
		return SQLITE_DENY;
	case SQLITE_PRAGMA:
		if (b == NULL && (strcmp(a, "table_info") == 0 ||
		    strcmp(a, "table_xinfo") == 0 ||
		    strcmp(a, "index_list") == 0 ||
		    strcmp(a, "index_info") == 0 ||
		    strcmp(a, "foreign_key_list") == 0))
			return SQLITE_OK;
		if (b != NULL && (strcmp(a, "table_info") == 0 ||
		    strcmp(a, "table_xinfo") == 0 ||
		    strcmp(a, "index_list") == 0 ||
		    strcmp(a, "index_info") == 0 ||
		    strcmp(a, "foreign_key_list") == 0))
			return SQLITE_OK;
		return SQLITE_DENY;
	default:
		return SQLITE_OK;
	}
}

int
sq_conn_open(const char *path, enum sq_kind kind, const struct sq_limits *lim,
    sqlite3 **db, struct tc_diag *d)
{
	int flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX |
	    (kind == SQ_KIND_READ ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE);

	guard.deadline = lim->deadline_ms;
	guard.kind = kind;
	if (sqlite3_open_v2(path, db, flags, NULL) != SQLITE_OK) {
		tc_diag(d, TC_ESYS, "cannot open: %s", sqlite3_errmsg(*db));
		sqlite3_close(*db);
		*db = NULL;
		return TC_ESYS;
	}
	sqlite3_limit(*db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_db_config(*db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_busy_timeout(*db, (int)lim->busy_ms);
	sqlite3_progress_handler(*db, 1000, progress, NULL);
	if (kind == SQ_KIND_READ)
		sqlite3_exec(*db, "PRAGMA query_only=1", NULL, NULL, NULL);
	sqlite3_set_authorizer(*db, authorize, NULL);
	return 0;
}

int
sq_conn_error(sqlite3 *db, int rc, struct tc_diag *d)
{
	if (rc == SQLITE_INTERRUPT)
		return tc_diag(d, TC_ETIMEOUT, "interrupted: the call's time "
		    "limit");
	return tc_diag(d, TC_EINVAL, "%s", sqlite3_errmsg(db));
}

void
sq_conn_close(sqlite3 *db)
{
	sqlite3_close_v2(db);
}
