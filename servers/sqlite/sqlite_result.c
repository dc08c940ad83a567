/*
 * sqlite_result.c: a statement's rows as the model reads them, in the
 * child.  Rows go out as compact JSON arrays written straight into one
 * buffer (no cJSON item per cell), which becomes structuredContent.rows as
 * a raw item; beside them a text table for hosts that show only text,
 * cells cut short.  One byte cap holds the rows: a row that would pass it
 * is not added and the result says truncated, which is then exact (a row
 * was there).  Also the paging cursor and the binding of parameters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/base64.h>
#include <nettle/sha2.h>

#include "base/json.h"
#include "base/text.h"
#include "sqlite.h"

/* Bytes of a cell in the text table, at most. */
#define TEXT_CELL_MAX	60

/* Bytes a cut cell keeps at least, whatever the cap. */
#define CELL_MIN	64

/* Bytes of a number's text, at most. */
#define SQ_NUM_MAX	40

static int	put_text(struct tc_buf *, const char *, size_t);

int
sq_rows_init(struct sq_rows *r, sqlite3_stmt *st, size_t max_bytes)
{
	const char *name, *type;
	int i, n = sqlite3_column_count(st), rc;

	memset(r, 0, sizeof(*r));
	/* Room for the brackets and the text's share on top of the rows:
	 * the buffers' own caps only catch a bug. */
	tc_buf_init(&r->json, max_bytes + 64);
	tc_buf_init(&r->text, max_bytes + 64);
	tc_buf_init(&r->cols, TC_RESULT_TEXT_MAX);
	tc_buf_init(&r->head, TC_RESULT_TEXT_MAX);
	r->ncols = (size_t)n;
	r->max_bytes = max_bytes;
	r->cell_max = max_bytes;
	/* The columns, named now: the statement may be gone at the end. */
	rc = tc_buf_append(&r->cols, "[", 1);
	for (i = 0; rc == 0 && i < n; i++) {
		name = sqlite3_column_name(st, i);
		type = sqlite3_column_decltype(st, i);
		if (name == NULL)
			rc = TC_ENOMEM;
		else if ((rc = tc_buf_append_str(&r->cols, i > 0 ?
		    ",{\"name\":" : "{\"name\":")) == 0 &&
		    (rc = put_text(&r->cols, name, strlen(name))) == 0 &&
		    (rc = tc_buf_append_str(&r->cols, ",\"type\":")) == 0)
			rc = type != NULL ? put_text(&r->cols, type,
			    strlen(type)) : tc_buf_append_str(&r->cols, "null");
		if (rc == 0)
			rc = tc_buf_append(&r->cols, "}", 1);
		if (rc == 0 && i > 0)
			rc = tc_buf_append_str(&r->head, " | ");
		if (rc == 0)
			rc = tc_buf_append_shown(&r->head, name, strlen(name),
			    0);
	}
	if (rc == 0)
		rc = tc_buf_append(&r->cols, "]", 1);
	if (rc == 0 && n > 0)
		rc = tc_buf_append(&r->head, "\n", 1);
	if (rc == 0)
		rc = tc_buf_append(&r->json, "[", 1);
	return rc;
}

void
sq_rows_release(struct sq_rows *r)
{
	tc_buf_release(&r->json);
	tc_buf_release(&r->text);
	tc_buf_release(&r->cols);
	tc_buf_release(&r->head);
}

/* Appends |n| bytes of TEXT |s| as a JSON string, ill-formed UTF-8 made
 * U+FFFD so that the result stays valid. */
static int
put_text(struct tc_buf *b, const char *s, size_t n)
{
	struct tc_buf fixed;
	int rc;

	if (tc_utf8_valid(s, n))
		return tc_json_put_string(b, s, n);
	tc_buf_init(&fixed, n * 3 + 16);
	if ((rc = tc_buf_append_utf8(&fixed, s, n)) == 0)
		rc = tc_json_put_string(b, fixed.data, fixed.len);
	tc_buf_release(&fixed);
	return rc;
}

cJSON *
sq_json_string(const char *s)
{
	struct tc_buf fixed;
	cJSON *item;
	size_t n = strlen(s);

	if (tc_utf8_valid(s, n))
		return cJSON_CreateString(s);
	tc_buf_init(&fixed, n * 3 + 16);
	item = tc_buf_append_utf8(&fixed, s, n) == 0 ?
	    cJSON_CreateString(fixed.data) : NULL;
	tc_buf_release(&fixed);
	return item;
}

/* Appends |n| bytes as base64 in quotes. */
static int
put_base64(struct tc_buf *b, const unsigned char *p, size_t n)
{
	size_t len = BASE64_ENCODE_RAW_LENGTH(n);
	int rc;

	if ((rc = tc_buf_reserve(b, len + 2)) != 0)
		return rc;
	b->data[b->len++] = '"';
	base64_encode_raw((char *)b->data + b->len, n, p);
	b->len += len;
	b->data[b->len++] = '"';
	return 0;
}

/*
 * Writes |v| in decimal digits into |p| (at least 21 bytes), backwards
 * from its end; returns where the digits start.  printf's machinery is
 * most of a large result's cost otherwise.
 */
static char *
digits(char *end, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return end;
}

/* Writes integer |v| into |out| (SQ_NUM_MAX bytes); returns its length. */
static size_t
fmt_int(char out[SQ_NUM_MAX], long long v)
{
	char tmp[24], *p;
	size_t n;

	p = digits(tmp + sizeof(tmp), v < 0 ? 0ULL - (unsigned long long)v :
	    (unsigned long long)v);
	if (v < 0)
		*--p = '-';
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(out, p, n);
	return n;
}

/*
 * Writes REAL |d| (finite) into |out| as the shortest decimal with at
 * most 9 digits after the point that reads back as |d|, always with a
 * '.', else as tc_json_number() writes it (17 digits or an exponent, a
 * ".0" added to an integer).  Exact: m and 10^k are exact doubles, so
 * m / 10^k rounds as strtod() rounds the text of m with the point k
 * digits from its end; the text reads back as |d| when that quotient is
 * |d|.  Returns the length.
 */
static size_t
fmt_real(char out[SQ_NUM_MAX], double d)
{
	static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
	    1e7, 1e8, 1e9 };
	char tmp[32], *p;
	unsigned long long m;
	double a = fabs(d), x;
	size_t n, k, at = 0;

	if (signbit(d))
		out[at++] = '-';
	for (k = 0; k < TC_NITEMS(pow10); k++) {
		if ((x = a * pow10[k]) >= 9007199254740992.0)
			break;
		m = (unsigned long long)(x + 0.5);
		if ((double)m / pow10[k] != a)
			continue;
		p = digits(tmp + sizeof(tmp), m);
		/* At least k + 1 digits: 0.05 is m 5 with k 2, "005". */
		while ((size_t)(tmp + sizeof(tmp) - p) < k + 1)
			*--p = '0';
		n = (size_t)(tmp + sizeof(tmp) - p);
		memcpy(out + at, p, n - k);
		at += n - k;
		out[at++] = '.';
		if (k == 0)
			out[at++] = '0';
		else {
			memcpy(out + at, p + n - k, k);
			at += k;
		}
		return at;
	}
	tc_json_number(out, d);
	n = strlen(out);
	if (strpbrk(out, ".eE") == NULL) {
		memcpy(out + n, ".0", 3);
		n += 2;
	}
	return n;
}

/* Appends a REAL, as fmt_real() writes it; an infinite one as the string
 * "Infinity" or "-Infinity", NaN (which SQLite stores as NULL) as null. */
static int
put_real(struct tc_buf *b, double d)
{
	char num[SQ_NUM_MAX];

	if (isinf(d))
		return tc_buf_append_str(b, d > 0 ? "\"Infinity\"" :
		    "\"-Infinity\"");
	if (isnan(d))
		return tc_buf_append_str(b, "null");
	return tc_buf_append(b, num, fmt_real(num, d));
}

/* The longest prefix of |s| (|n| bytes) that is at most |max| bytes and
 * ends on a character's boundary. */
static size_t
cut_at(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* Appends cell |i| of |st|'s row to the JSON, TEXT and BLOB cut at
 * |cap| bytes. */
static int
put_cell(struct tc_buf *b, sqlite3_stmt *st, int i, size_t cap)
{
	const unsigned char *p;
	sqlite3_int64 v;
	char num[SQ_NUM_MAX + 2];
	size_t n, keep;
	int rc;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		v = sqlite3_column_int64(st, i);
		n = fmt_int(num + 1, (long long)v);
		if (v <= SQ_EXACT_MAX && v >= -SQ_EXACT_MAX)
			return tc_buf_append(b, num + 1, n);
		num[0] = num[n + 1] = '"';
		return tc_buf_append(b, num, n + 2);
	case SQLITE_FLOAT:
		return put_real(b, sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		p = sqlite3_column_text(st, i);
		n = (size_t)sqlite3_column_bytes(st, i);
		if (p == NULL)
			return TC_ENOMEM;
		if (n <= cap)
			return put_text(b, (const char *)p, n);
		keep = cut_at((const char *)p, n, cap);
		if ((rc = tc_buf_append_str(b, "{\"text\":")) != 0 ||
		    (rc = put_text(b, (const char *)p, keep)) != 0)
			return rc;
		return tc_buf_printf(b, ",\"bytes\":%zu,\"cut\":true}", n);
	case SQLITE_BLOB:
		p = sqlite3_column_blob(st, i);
		n = (size_t)sqlite3_column_bytes(st, i);
		/* base64 is 4/3 of the bytes it keeps. */
		keep = n <= cap / 4 * 3 ? n : cap / 4 * 3;
		if ((rc = tc_buf_append_str(b, "{\"blob\":")) != 0 ||
		    (rc = put_base64(b, p, keep)) != 0)
			return rc;
		return tc_buf_printf(b, ",\"bytes\":%zu%s}", n, keep < n ?
		    ",\"cut\":true" : "");
	default:
		return tc_buf_append_str(b, "null");
	}
}

/* Appends cell |i| to the text table: NULL as NULL, the text "NULL" as
 * 'NULL', a BLOB as its size, other text escaped and cut short. */
static int
text_cell(struct tc_buf *b, sqlite3_stmt *st, int i)
{
	const char *s;
	char c, num[SQ_NUM_MAX];
	size_t n, keep, k;
	int rc;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return tc_buf_append_str(b, "NULL");
	case SQLITE_BLOB:
		return tc_buf_printf(b, "<blob %d bytes>",
		    sqlite3_column_bytes(st, i));
	case SQLITE_INTEGER:
		return tc_buf_append(b, num, fmt_int(num,
		    (long long)sqlite3_column_int64(st, i)));
	case SQLITE_FLOAT:
		return put_real(b, sqlite3_column_double(st, i));
	default:
		break;
	}
	s = (const char *)sqlite3_column_text(st, i);
	n = (size_t)sqlite3_column_bytes(st, i);
	if (s == NULL)
		return TC_ENOMEM;
	if (n == 4 && memcmp(s, "NULL", 4) == 0)
		return tc_buf_append_str(b, "'NULL'");
	keep = cut_at(s, n, TEXT_CELL_MAX);
	for (k = 0; k < keep; k++) {
		c = s[k];
		if ((unsigned char)c >= 0x20 && c != 0x7f && c != '|')
			continue;
		/* A line break or a bar would break the table. */
		if ((rc = tc_buf_append_utf8(b, s, k)) != 0 ||
		    (rc = tc_buf_printf(b, c == '\n' ? "\\n" : c == '|' ?
		    "\\|" : "\\x%02x", (unsigned char)c)) != 0)
			return rc;
		s += k + 1;
		keep -= k + 1;
		n -= k + 1;
		k = (size_t)-1;
	}
	if ((rc = tc_buf_append_utf8(b, s, keep)) != 0)
		return rc;
	return keep < n ? tc_buf_append_str(b, "...") : 0;
}

/* Appends the current row to the JSON, its TEXT and BLOB cells cut at
 * |cap| bytes.  Returns 0; 1 if the row passes the byte cap (the buffer's
 * own limit met counts the same); TC_ENOMEM.  On 1 the caller rolls the
 * buffer back. */
static int
json_row(struct sq_rows *r, sqlite3_stmt *st, size_t cap)
{
	int i, n = (int)r->ncols, rc;

	if (r->nrows > 0)
		rc = tc_buf_append(&r->json, ",", 1);
	else
		rc = 0;
	if (rc == 0)
		rc = tc_buf_append(&r->json, "[", 1);
	for (i = 0; rc == 0 && i < n; i++) {
		if (i > 0 && (rc = tc_buf_append(&r->json, ",", 1)) != 0)
			break;
		if ((rc = put_cell(&r->json, st, i, cap)) != 0)
			break;
		if (r->json.len - 1 > r->max_bytes)
			return 1;
	}
	if (rc == 0)
		rc = tc_buf_append(&r->json, "]", 1);
	if (rc == TC_ETOOBIG || (rc == 0 && r->json.len - 1 > r->max_bytes))
		return 1;
	return rc;
}

/* Appends the current row to the text table.  Returns 0; 1 if the table
 * passes the byte cap; TC_ENOMEM. */
static int
text_row(struct sq_rows *r, sqlite3_stmt *st)
{
	int i, n = (int)r->ncols, rc = 0;

	for (i = 0; rc == 0 && i < n; i++) {
		if (i > 0 && (rc = tc_buf_append_str(&r->text, " | ")) != 0)
			break;
		rc = text_cell(&r->text, st, i);
	}
	if (rc == 0)
		rc = tc_buf_append(&r->text, "\n", 1);
	if (rc == TC_ETOOBIG || (rc == 0 && r->text.len > r->max_bytes))
		return 1;
	return rc;
}

/* Cuts |b| back to |len| bytes. */
static void
roll_back(struct tc_buf *b, size_t len)
{
	b->len = len;
	if (b->data != NULL)
		b->data[len] = '\0';
}

int
sq_rows_add(struct sq_rows *r, sqlite3_stmt *st)
{
	size_t json_at = r->json.len, text_at = r->text.len, cap = r->cell_max;
	size_t shared;
	int rc;

	while ((rc = json_row(r, st, cap)) == 1) {
		roll_back(&r->json, json_at);
		if (r->nrows > 0 || cap <= CELL_MIN)
			return 1;
		/* A first row alone too big: its cells cut to share the
		 * cap, so that the model sees what the row holds.  Each try
		 * cuts harder (escaping can make a cell six times its
		 * bytes), down to CELL_MIN. */
		shared = r->max_bytes / (r->ncols + 1) / 2;
		cap = shared < cap ? shared : cap / 2;
		if (cap < CELL_MIN)
			cap = CELL_MIN;
	}
	if (rc != 0) {
		roll_back(&r->json, json_at);
		return rc;
	}
	if ((rc = text_row(r, st)) != 0) {
		roll_back(&r->text, text_at);
		if (rc != 1 || r->nrows > 0) {
			roll_back(&r->json, json_at);
			return rc;
		}
		/* A first row too wide for the table: its JSON stands. */
		if ((rc = tc_buf_append_str(&r->text, "(a row too wide for "
		    "this table: read structuredContent.rows)\n")) != 0) {
			roll_back(&r->json, json_at);
			return rc;
		}
	}
	r->nrows++;
	return 0;
}

int
sq_rows_finish(struct sq_rows *r, int truncated, int paged, const char *next,
    const char *head, struct tc_result *res)
{
	cJSON *o, *rows, *cols;
	int rc;

	if ((rc = tc_buf_append(&r->json, "]", 1)) != 0)
		return rc;
	if ((o = tc_result_obj(res)) == NULL ||
	    (cols = tc_json_raw_take(&r->cols)) == NULL)
		return TC_ENOMEM;
	cJSON_AddItemToObject(o, "columns", cols);
	if ((rows = tc_json_raw_take(&r->json)) == NULL)
		return TC_ENOMEM;
	cJSON_AddItemToObject(o, "rows", rows);
	cJSON_AddBoolToObject(o, "truncated", truncated);
	if (next != NULL)
		cJSON_AddStringToObject(o, "next", next);
	else if (paged)
		cJSON_AddNullToObject(o, "next");

	/* The text: the head, the columns, the rows, how many. */
	if (head != NULL)
		tc_result_printf(res, "%s\n", head);
	tc_result_text(res, r->head.data, r->head.len);
	tc_result_text(res, r->text.data, r->text.len);
	/* The cursor is in the text too: a host that gives its model only
	 * the text (Claude Desktop) would otherwise leave it no way to the
	 * next page. */
	if (truncated && next != NULL)
		tc_result_printf(res, "(%zu row%s; more rows follow: call "
		    "again with the same sql and params and cursor \"%s\" "
		    "to read them)", r->nrows, r->nrows == 1 ? "" : "s", next);
	else if (truncated)
		tc_result_printf(res, "(%zu row%s; more rows follow)",
		    r->nrows, r->nrows == 1 ? "" : "s");
	else
		tc_result_printf(res, "(%zu row%s)", r->nrows,
		    r->nrows == 1 ? "" : "s");
	return res->failed;
}

/* --- The cursor --- */

/* The digest of the call's database, SQL and parameters, as hex. */
static void
digest(const struct tc_call *call, char hex[25])
{
	static const char digits[] = "0123456789abcdef";
	const char *db = tc_arg_str(call, "database");
	const char *sql = tc_arg_str(call, "sql");
	struct sha256_ctx h;
	struct tc_arg_iter it;
	struct tc_scalar v;
	uint8_t out[SHA256_DIGEST_SIZE], k;
	int i;

	sha256_init(&h);
	sha256_update(&h, strlen(db) + 1, (const uint8_t *)db);
	sha256_update(&h, strlen(sql) + 1, (const uint8_t *)sql);
	tc_arg_scalars(call, "params", &it);
	while (tc_arg_scalar_next(&it, &v)) {
		k = (uint8_t)v.kind;
		sha256_update(&h, 1, &k);
		switch (v.kind) {
		case TC_SCALAR_BOOL:
		case TC_SCALAR_INT:
			sha256_update(&h, sizeof(v.i), (const uint8_t *)&v.i);
			break;
		case TC_SCALAR_REAL:
			sha256_update(&h, sizeof(v.d), (const uint8_t *)&v.d);
			break;
		case TC_SCALAR_STRING:
			sha256_update(&h, sizeof(v.len),
			    (const uint8_t *)&v.len);
			sha256_update(&h, v.len, (const uint8_t *)v.s);
			break;
		default:
			break;
		}
	}
	sha256_digest(&h, sizeof(out), out);
	for (i = 0; i < 12; i++) {
		hex[2 * i] = digits[out[i] >> 4];
		hex[2 * i + 1] = digits[out[i] & 15];
	}
	hex[24] = '\0';
}

void
sq_cursor_make(const struct tc_call *call, uint64_t offset,
    char out[SQ_CURSOR_MAX])
{
	char hex[25];

	digest(call, hex);
	snprintf(out, SQ_CURSOR_MAX, "%llu.%s", (unsigned long long)offset,
	    hex);
}

long long
sq_cursor_read(const struct tc_call *call, const char *cursor)
{
	unsigned long long off = 0;
	const char *p = cursor;
	char hex[25];

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (off > (unsigned long long)LLONG_MAX / 10 - 1)
			return -1;
		off = off * 10 + (unsigned long long)(*p - '0');
	}
	if (*p++ != '.')
		return -1;
	digest(call, hex);
	return strcmp(p, hex) == 0 ? (long long)off : -1;
}

/* --- Parameters --- */

int
sq_bind(const struct tc_call *call, sqlite3_stmt *st, size_t *at,
    struct tc_result *res)
{
	int want = sqlite3_bind_parameter_count(st), i, rc = SQLITE_OK;
	struct tc_arg_iter it;
	struct tc_scalar v;
	size_t k;

	if (want == 0)
		return 0;
	tc_arg_scalars(call, "params", &it);
	for (k = 0; k < *at; k++)
		if (!tc_arg_scalar_next(&it, &v))
			break;
	for (i = 1; i <= want; i++) {
		if (!tc_arg_scalar_next(&it, &v)) {
			tc_result_error(res, "the statement has %d parameter%s "
			    "but params holds %zu value%s for it: give one "
			    "value for each ?, ?NNN, :name, @name or $name, "
			    "in order", want, want == 1 ? "" : "s",
			    (size_t)(i - 1), i == 2 ? "" : "s");
			return TC_EINVAL;
		}
		switch (v.kind) {
		case TC_SCALAR_NULL:
			rc = sqlite3_bind_null(st, i);
			break;
		case TC_SCALAR_BOOL:
		case TC_SCALAR_INT:
			rc = sqlite3_bind_int64(st, i, v.i);
			break;
		case TC_SCALAR_REAL:
			rc = sqlite3_bind_double(st, i, v.d);
			break;
		case TC_SCALAR_STRING:
			rc = sqlite3_bind_text64(st, i, v.s, v.len,
			    SQLITE_STATIC, SQLITE_UTF8);
			break;
		}
		if (rc != SQLITE_OK) {
			tc_result_error(res, "parameter %d: %s", i,
			    sqlite3_errstr(rc));
			return TC_EINVAL;
		}
	}
	*at += (size_t)want;
	return 0;
}
