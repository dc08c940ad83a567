/*
 * sqlite_kind.c: what a piece of SQL would do, read as tokens and never
 * run (sq_kind_of()), and the lists of harmless PRAGMAs and of functions
 * that reach outside, which the guard of sqlite_conn.c holds to as well.
 *
 * The tokenizer follows SQLite's own (tokenize.c) byte for byte where it
 * matters to where a statement ends: comments, '' strings, "" `` []
 * names, x'' blobs, numbers (so that "1e--" is a number and a comment),
 * TCL-style variables ($a(...) may hold a ';'), and a byte order mark
 * read as a space.  Statements end as in sqlite3_complete(): at a ';'
 * outside every token, but for CREATE TRIGGER, whose body's statements
 * end with ';' and which ends at "; END ;".  Keywords are only ASCII
 * letters, compared without the locale.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

#include "sqlite_conn.h"

enum tok_type {
	T_END,		/* the end of the text */
	T_SPACE,	/* blanks, comments, a byte order mark */
	T_SEMI,
	T_WORD,		/* a keyword or a bare name */
	T_QNAME,	/* "name", `name`, [name] */
	T_STRING,	/* 'text', x'blob' */
	T_LP,
	T_RP,
	T_DOT,
	T_EQ,		/* = or == */
	T_OTHER,	/* numbers, variables, operators, stray bytes */
	T_BAD,		/* an unterminated quote */
};

struct tok {
	enum tok_type	type;
	size_t		start, end;	/* bytes [start, end) of the SQL */
};

struct sql {
	const unsigned char	*z;
	size_t			 len;
};

static int
is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
is_xdigit(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* SQLite's IdChar(): letters, digits, '_', '$' and every byte >= 0x80. */
static int
is_idchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    is_digit(c) || c == '_' || c == '$' || c >= 0x80;
}

/* The byte at |i|, or 0 past the end (SQLite reads a NUL there). */
static unsigned char
at(const struct sql *q, size_t i)
{
	return i < q->len ? q->z[i] : 0;
}

/* A quoted token from |i| ending at |delim|, a doubled one escaped. */
static void
lex_quoted(const struct sql *q, size_t i, unsigned char delim, int dbl,
    struct tok *t)
{
	size_t j;

	for (j = i + 1; j < q->len; j++) {
		if (q->z[j] != delim)
			continue;
		if (dbl && at(q, j + 1) == delim) {
			j++;
			continue;
		}
		t->end = j + 1;
		return;
	}
	t->type = T_BAD;
	t->end = q->len;
}

/* A number from |i|, as tokenize.c's CC_DIGIT (3.40, no separators). */
static size_t
lex_number(const struct sql *q, size_t i)
{
	if (at(q, i) == '0' && (at(q, i + 1) == 'x' || at(q, i + 1) == 'X') &&
	    is_xdigit(at(q, i + 2))) {
		for (i += 3; is_xdigit(at(q, i)); i++)
			;
	} else {
		while (is_digit(at(q, i)))
			i++;
		if (at(q, i) == '.')
			for (i++; is_digit(at(q, i)); i++)
				;
		if ((at(q, i) == 'e' || at(q, i) == 'E') &&
		    (is_digit(at(q, i + 1)) ||
		    ((at(q, i + 1) == '+' || at(q, i + 1) == '-') &&
		    is_digit(at(q, i + 2)))))
			for (i += 2; is_digit(at(q, i)); i++)
				;
	}
	while (is_idchar(at(q, i)))
		i++;
	return i;
}

/* A variable from |i| ($ @ : #, then a name, TCL's "::" and "(...)"). */
static size_t
lex_variable(const struct sql *q, size_t i)
{
	size_t n = 0;
	unsigned char c;

	for (i++; (c = at(q, i)) != 0; i++) {
		if (is_idchar(c)) {
			n++;
		} else if (c == '(' && n > 0) {
			do
				i++;
			while ((c = at(q, i)) != 0 && !is_space(c) && c != ')');
			if (c == ')')
				i++;
			break;
		} else if (c == ':' && at(q, i + 1) == ':') {
			i++;
		} else {
			break;
		}
	}
	return i;
}

/* The token that starts at |i| (< q->len). */
static void
lex(const struct sql *q, size_t i, struct tok *t)
{
	unsigned char c = q->z[i];

	t->start = i;
	t->end = i + 1;
	t->type = T_OTHER;
	switch (c) {
	case ' ': case '\t': case '\n': case '\v': case '\f': case '\r':
		for (i++; is_space(at(q, i)); i++)
			;
		t->type = T_SPACE;
		t->end = i;
		return;
	case '-':
		if (at(q, i + 1) == '-') {
			for (i += 2; i < q->len && q->z[i] != '\n'; i++)
				;
			t->type = T_SPACE;
			t->end = i;
		}
		return;
	case '/':
		if (at(q, i + 1) != '*' || i + 2 >= q->len)
			return;
		for (i += 3; i < q->len &&
		    !(q->z[i - 1] == '*' && q->z[i] == '/'); i++)
			;
		t->type = T_SPACE;
		t->end = i < q->len ? i + 1 : q->len;
		return;
	case ';':
		t->type = T_SEMI;
		return;
	case '(':
		t->type = T_LP;
		return;
	case ')':
		t->type = T_RP;
		return;
	case '=':
		t->type = T_EQ;
		t->end = i + 1 + (at(q, i + 1) == '=');
		return;
	case '\'':
		t->type = T_STRING;
		lex_quoted(q, i, c, 1, t);
		return;
	case '"': case '`':
		t->type = T_QNAME;
		lex_quoted(q, i, c, 1, t);
		return;
	case '[':
		t->type = T_QNAME;
		lex_quoted(q, i, ']', 0, t);
		return;
	case '?':
		for (i++; is_digit(at(q, i)); i++)
			;
		t->end = i;
		return;
	case '$': case '@': case ':': case '#':
		t->end = lex_variable(q, i);
		return;
	case '.':
		if (!is_digit(at(q, i + 1))) {
			t->type = T_DOT;
			return;
		}
		t->end = lex_number(q, i);
		return;
	case 'x': case 'X':
		if (at(q, i + 1) == '\'') {
			/* A blob ends at the next quote; no escapes. */
			t->type = T_STRING;
			lex_quoted(q, i + 1, '\'', 0, t);
			t->start = i;
			return;
		}
		break;
	case 0xef:
		if (at(q, i + 1) == 0xbb && at(q, i + 2) == 0xbf) {
			t->type = T_SPACE;
			t->end = i + 3;
			return;
		}
		break;
	default:
		if (is_digit(c)) {
			t->end = lex_number(q, i);
			return;
		}
		if (!is_idchar(c))
			return;
		break;
	}
	/* A word: letters, '_' or a byte >= 0x80, then IdChar()s. */
	for (i++; is_idchar(at(q, i)); i++)
		;
	t->type = T_WORD;
	t->end = i;
}

/* The next token at or after |*pos| that is not T_SPACE; moves |*pos|. */
static void
next(const struct sql *q, size_t *pos, size_t end, struct tok *t)
{
	while (*pos < end) {
		lex(q, *pos, t);
		if (t->end > end)
			t->end = end;
		*pos = t->end;
		if (t->type != T_SPACE)
			return;
	}
	t->type = T_END;
	t->start = t->end = end;
}

/* 1 if |t| is the word |kw| (lowercase ASCII), in any case. */
static int
is_kw(const struct sql *q, const struct tok *t, const char *kw)
{
	size_t n = strlen(kw), i;

	if (t->type != T_WORD || t->end - t->start != n)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = q->z[t->start + i];

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c != (unsigned char)kw[i])
			return 0;
	}
	return 1;
}

/*
 * Copies the name |t| (a word, or a quoted name without its quotes and
 * escapes) into |buf|, lowercase ASCII; returns its length, or 0 if it
 * is no name or does not fit (no name on a list is that long).
 */
static size_t
name_of(const struct sql *q, const struct tok *t, char *buf, size_t size)
{
	size_t i = t->start, e = t->end, n = 0;

	if (t->type == T_QNAME) {
		i++;
		e--;
	} else if (t->type != T_WORD) {
		return 0;
	}
	for (; i < e; i++) {
		unsigned char c = q->z[i];

		if (t->type == T_QNAME && q->z[t->start] != '[' &&
		    c == q->z[t->start])
			i++;	/* "" or `` stands for one */
		if (n + 1 >= size)
			return 0;
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return n;
}

/*
 * The PRAGMAs that run here, sorted (bsearch), each with the forms that
 * only read: bare ("PRAGMA user_version") and with an argument that
 * names what to read ("PRAGMA table_info(t)").  The form that sets a
 * value ("PRAGMA x = v") is never one of them; the guard cannot tell
 * "x = v" from "x(v)", so a PRAGMA whose argument sets has BARE only.
 */
enum { BARE = 1, ARG = 2 };

static const struct pragma {
	const char	*name;
	int		 forms;
} pragmas[] = {
	/* this has to be sorted always */
	{ "application_id",	BARE },
	{ "collation_list",	BARE },
	{ "compile_options",	BARE },
	{ "data_version",	BARE },
	{ "database_list",	BARE },
	{ "encoding",		BARE },
	{ "foreign_key_check",	BARE | ARG },
	{ "foreign_key_list",	ARG },
	{ "foreign_keys",	BARE },
	{ "freelist_count",	BARE },
	{ "function_list",	BARE },
	{ "index_info",		ARG },
	{ "index_list",		ARG },
	{ "index_xinfo",	ARG },
	{ "integrity_check",	BARE | ARG },
	{ "journal_mode",	BARE },
	{ "module_list",	BARE },
	{ "page_count",		BARE },
	{ "page_size",		BARE },
	{ "pragma_list",	BARE },
	{ "quick_check",	BARE | ARG },
	{ "schema_version",	BARE },
	{ "table_info",		ARG },
	{ "table_list",		BARE | ARG },
	{ "table_xinfo",	ARG },
	{ "temp_store",		BARE },
	{ "user_version",	BARE },
};

/*
 * Functions that reach outside the database, or change how it is read:
 * never run, wherever they appear (sorted).  Most exist only in the
 * sqlite3 shell or in extensions; they are here in case a build has
 * them.
 */
static const char *const refused_functions[] = {
	/* this has to be sorted always */
	"edit",
	"fts3_tokenizer",
	"load_extension",
	"lsdir",
	"readfile",
	"writefile",
	"zipfile",
};

static int
cmp_pragma(const void *key, const void *elt)
{
	return strcmp(key, ((const struct pragma *)elt)->name);
}

static int
cmp_str(const void *key, const void *elt)
{
	return strcmp(key, *(const char *const *)elt);
}

/* Lowercases |name| into |buf|; 0 if it does not fit. */
static int
lower(const char *name, size_t len, char *buf, size_t size)
{
	size_t i;

	if (len == 0 || len >= size)
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		buf[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	buf[len] = '\0';
	return 1;
}

int
sq_pragma_harmless(const char *name, size_t len, int has_arg)
{
	char buf[32];
	const struct pragma *p;

	if (!lower(name, len, buf, sizeof(buf)))
		return 0;
	p = bsearch(buf, pragmas, TC_NITEMS(pragmas), sizeof(pragmas[0]),
	    cmp_pragma);
	return p != NULL && (p->forms & (has_arg ? ARG : BARE)) != 0;
}

int
sq_function_refused(const char *name, size_t len)
{
	char buf[32];

	if (!lower(name, len, buf, sizeof(buf)))
		return 0;
	return bsearch(buf, refused_functions, TC_NITEMS(refused_functions),
	    sizeof(refused_functions[0]), cmp_str) != NULL;
}

/* The harmless PRAGMAs, for messages: "application_id, ...". */
static const char *
pragma_names(void)
{
	static char list[512];
	size_t i, n = 0;

	if (list[0] != '\0')
		return list;
	for (i = 0; i < TC_NITEMS(pragmas); i++) {
		size_t l = strlen(pragmas[i].name);

		if (n + l + 3 >= sizeof(list))
			break;
		if (i > 0) {
			memcpy(list + n, ", ", 2);
			n += 2;
		}
		memcpy(list + n, pragmas[i].name, l);
		n += l;
	}
	list[n] = '\0';
	return list;
}

/*
 * Where the statement that starts at |pos| ends: past its ';', or at the
 * end of the text.  sqlite3_complete()'s states, on our tokens: a ';'
 * ends a statement, but for CREATE [TEMP] TRIGGER, which ends at the
 * ';' that follows "; END".  Sets |*bad| on an unterminated quote.
 */
static size_t
stmt_end(const struct sql *q, size_t pos, int *bad)
{
	enum { START, NORMAL, EXPLAIN, CREATE, TRIGGER, SEMI, END } st = START;
	struct tok t;

	*bad = 0;
	while (pos < q->len) {
		lex(q, pos, &t);
		pos = t.end;
		if (t.type == T_SPACE)
			continue;
		if (t.type == T_BAD) {
			*bad = 1;
			return q->len;
		}
		if (t.type == T_SEMI) {
			if (st == TRIGGER || st == SEMI) {
				st = SEMI;
				continue;
			}
			return pos;
		}
		switch (st) {
		case START:
			st = is_kw(q, &t, "explain") ? EXPLAIN :
			    is_kw(q, &t, "create") ? CREATE : NORMAL;
			break;
		case EXPLAIN:
			if (is_kw(q, &t, "create"))
				st = CREATE;
			else if (is_kw(q, &t, "explain") ||
			    is_kw(q, &t, "temp") || is_kw(q, &t, "temporary") ||
			    is_kw(q, &t, "trigger") || is_kw(q, &t, "end"))
				st = NORMAL;
			break;
		case CREATE:
			if (is_kw(q, &t, "trigger"))
				st = TRIGGER;
			else if (!is_kw(q, &t, "temp") &&
			    !is_kw(q, &t, "temporary"))
				st = NORMAL;
			break;
		case SEMI:
			st = is_kw(q, &t, "end") ? END : TRIGGER;
			break;
		case END:
			st = TRIGGER;
			break;
		case NORMAL:
		case TRIGGER:
			break;
		}
	}
	return q->len;
}

/* The words that begin a statement, and the kind of each. */
static const struct lead {
	const char	*word;
	int		 kind;	/* an sq_kind, or one of the below */
} leads[] = {
	{ "alter",	SQ_KIND_SCHEMA },
	{ "analyze",	SQ_KIND_SCHEMA },	/* may create sqlite_stat1 */
	{ "attach",	-1 },
	{ "begin",	SQ_KIND_WRITE },
	{ "commit",	SQ_KIND_WRITE },
	{ "create",	SQ_KIND_SCHEMA },
	{ "delete",	SQ_KIND_WRITE },
	{ "detach",	-1 },
	{ "drop",	SQ_KIND_SCHEMA },
	{ "end",	SQ_KIND_WRITE },
	{ "insert",	SQ_KIND_WRITE },
	{ "pragma",	-2 },
	{ "reindex",	SQ_KIND_WRITE },
	{ "release",	SQ_KIND_WRITE },
	{ "replace",	SQ_KIND_WRITE },
	{ "rollback",	SQ_KIND_WRITE },
	{ "savepoint",	SQ_KIND_WRITE },
	{ "select",	SQ_KIND_READ },
	{ "update",	SQ_KIND_WRITE },
	{ "vacuum",	-1 },
	{ "values",	SQ_KIND_READ },
	{ "with",	SQ_KIND_READ },
};

/* |word| in capitals, in |buf|. */
static const char *
upper(const char *word, char *buf, size_t size)
{
	size_t i;

	for (i = 0; word[i] != '\0' && i + 1 < size; i++)
		buf[i] = word[i] >= 'a' && word[i] <= 'z' ?
		    (char)(word[i] - 'a' + 'A') : word[i];
	buf[i] = '\0';
	return buf;
}

/* Formats "statement N: " into |buf| when N > 1. */
static const char *
where(size_t idx, char *buf, size_t size)
{
	buf[0] = '\0';
	if (idx > 1)
		snprintf(buf, size, "statement %zu: ", idx);
	return buf;
}

/* The kind of a PRAGMA whose name is the next token after |pos|. */
static int
pragma_kind(const struct sql *q, size_t pos, size_t end, const char *w,
    struct tc_diag *d)
{
	struct tok t, n;
	char name[64];
	size_t len;
	int has_arg = 0;

	next(q, &pos, end, &t);
	next(q, &pos, end, &n);
	if (n.type == T_DOT) {	/* schema.name */
		next(q, &pos, end, &t);
		next(q, &pos, end, &n);
	}
	len = name_of(q, &t, name, sizeof(name));
	if (len == 0)
		return tc_diag(d, TC_EINVAL, "%sPRAGMA without a name", w);
	if (n.type == T_EQ)
		return tc_diag(d, TC_EINVAL, "%s'PRAGMA %s = ...' sets a "
		    "value, and no PRAGMA that sets one runs here", w, name);
	if (n.type == T_LP) {
		has_arg = 1;
		do
			next(q, &pos, end, &n);
		while (n.type != T_RP && n.type != T_END);
		if (n.type == T_RP)
			next(q, &pos, end, &n);
	}
	if (n.type != T_END && n.type != T_SEMI)
		return tc_diag(d, TC_EINVAL, "%smalformed PRAGMA %s", w, name);
	if (sq_pragma_harmless(name, len, has_arg))
		return SQ_KIND_READ;
	if (sq_pragma_harmless(name, len, !has_arg))
		return tc_diag(d, TC_EINVAL, "%sPRAGMA %s runs here only %s",
		    w, name, has_arg ? "without an argument" :
		    "with an argument, as in PRAGMA table_info(name)");
	return tc_diag(d, TC_EINVAL, "%sPRAGMA %s is not one that runs "
	    "here; those that do only read: %s", w, name, pragma_names());
}

/* The kind of the statement in [pos, end), the |idx|th; or TC_EINVAL. */
static int
stmt_kind(const struct sql *q, size_t pos, size_t end, size_t idx,
    struct tc_diag *d)
{
	struct tok t, n;
	char w[48], name[64];
	const struct lead *l = NULL;
	size_t i, p, len;
	int kind;

	where(idx, w, sizeof(w));
	next(q, &pos, end, &t);
	if (is_kw(q, &t, "explain")) {
		next(q, &pos, end, &t);
		if (is_kw(q, &t, "query")) {
			next(q, &pos, end, &t);	/* PLAN */
			next(q, &pos, end, &t);
		}
	}
	for (i = 0; i < TC_NITEMS(leads) && l == NULL; i++)
		if (is_kw(q, &t, leads[i].word))
			l = &leads[i];
	if (l == NULL) {
		len = t.end - t.start > 40 ? 40 : t.end - t.start;
		return tc_diag(d, TC_EINVAL, "%s'%.*s' does not begin an SQL "
		    "statement", w, (int)len, (const char *)q->z + t.start);
	}
	if (l->kind == -1)
		return tc_diag(d, TC_EINVAL, "%s%s is never run here: a "
		    "connection reaches its own database file only", w,
		    upper(l->word, name, sizeof(name)));
	if (l->kind == -2)
		return pragma_kind(q, pos, end, w, d);

	/*
	 * Then every token: DML anywhere (inside a WITH's tables too) makes
	 * it a write, DDL a schema change; a function that reaches outside
	 * refuses it.  REPLACE is a write unless it calls replace().
	 */
	kind = l->kind;
	for (p = pos; t.type != T_END; t = n) {
		next(q, &p, end, &n);
		if (is_kw(q, &t, "insert") || is_kw(q, &t, "update") ||
		    is_kw(q, &t, "delete") ||
		    (is_kw(q, &t, "replace") && n.type != T_LP)) {
			if (kind < SQ_KIND_WRITE)
				kind = SQ_KIND_WRITE;
		} else if (is_kw(q, &t, "create") || is_kw(q, &t, "drop") ||
		    is_kw(q, &t, "alter")) {
			kind = SQ_KIND_SCHEMA;
		} else if (n.type == T_LP &&
		    (len = name_of(q, &t, name, sizeof(name))) > 0 &&
		    sq_function_refused(name, len)) {
			return tc_diag(d, TC_EINVAL, "%s%s() is never run "
			    "here: it reaches outside the database", w, name);
		}
	}
	return kind;
}

size_t
sq_explain_len(const char *sql, size_t len)
{
	struct sql q = { (const unsigned char *)sql, len };
	struct tok t;
	size_t pos = 0, past;

	next(&q, &pos, len, &t);
	if (!is_kw(&q, &t, "explain"))
		return 0;
	past = pos;
	next(&q, &pos, len, &t);
	if (!is_kw(&q, &t, "query"))
		return past;
	next(&q, &pos, len, &t);
	/* "EXPLAIN QUERY" without PLAN explains a statement that begins
	 * with "query": none does, and SQLite says so. */
	return is_kw(&q, &t, "plan") ? pos : past;
}

const char *
sq_kind_name(enum sq_kind k)
{
	switch (k) {
	case SQ_KIND_READ:
		return "read";
	case SQ_KIND_WRITE:
		return "write";
	case SQ_KIND_SCHEMA:
		return "schema";
	}
	return "schema";
}

int
sq_kind_of(const char *sql, size_t len, enum sq_kind *kind, size_t *nstmts,
    struct tc_diag *d)
{
	struct sql q = { (const unsigned char *)sql, len };
	struct tok t;
	size_t pos = 0, end, n = 0;
	int k, most = SQ_KIND_READ, bad;

	*kind = SQ_KIND_SCHEMA;	/* the most, should a caller look */
	*nstmts = 0;
	if (sql == NULL || len == 0)
		return tc_diag(d, TC_EINVAL, "the SQL is empty");
	if (memchr(sql, '\0', len) != NULL)
		return tc_diag(d, TC_EINVAL, "the SQL holds a NUL byte");
	while (pos < len) {
		end = stmt_end(&q, pos, &bad);
		if (bad)
			return tc_diag(d, TC_EINVAL, "the SQL ends inside a "
			    "quoted string or name: a quote is not closed");
		{
			size_t p = pos;

			next(&q, &p, end, &t);
		}
		if (t.type != T_END && t.type != T_SEMI) {
			n++;
			if ((k = stmt_kind(&q, pos, end, n, d)) < 0)
				return k;
			if (k > most)
				most = k;
		}
		pos = end;
	}
	if (n == 0)
		return tc_diag(d, TC_EINVAL, "the SQL holds no statement, "
		    "only blanks, comments or ';'");
	*kind = (enum sq_kind)most;
	*nstmts = n;
	return 0;
}
