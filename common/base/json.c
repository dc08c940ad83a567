/*
 * json.c: writing JSON into a buffer, scanning it without a tree, and
 * checking the text a client sends.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"

/* --- Writing --- */

int
tc_json_put_string(struct tc_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const char *end = s + n, *q;
	unsigned char c;
	char esc[6];
	size_t elen;
	int r;

	if ((r = tc_buf_reserve(b, n + 2)) != 0)
		return r;
	b->data[b->len++] = '"';
	for (;;) {
		q = tc_json_plain_end(s, end, 0);
		if ((r = tc_buf_append(b, s, (size_t)(q - s))) != 0)
			return r;
		if (q == end)
			break;
		c = (unsigned char)*q;
		esc[0] = '\\';
		elen = 2;
		switch (c) {
		case '"':	esc[1] = '"';	break;
		case '\\':	esc[1] = '\\';	break;
		case '\b':	esc[1] = 'b';	break;
		case '\f':	esc[1] = 'f';	break;
		case '\n':	esc[1] = 'n';	break;
		case '\r':	esc[1] = 'r';	break;
		case '\t':	esc[1] = 't';	break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			elen = 6;
			break;
		}
		if ((r = tc_buf_append(b, esc, elen)) != 0)
			return r;
		s = q + 1;
	}
	return tc_buf_append(b, "\"", 1);
}

size_t
tc_json_escape_len(unsigned char c)
{
	/* As tc_json_put_string() writes them. */
	switch (c) {
	case '"':
	case '\\':
	case '\b':
	case '\f':
	case '\n':
	case '\r':
	case '\t':
		return 2;
	default:
		return 6;
	}
}

size_t
tc_json_string_len(const char *s, size_t n)
{
	const char *end = s + n, *q;
	size_t len = 2;

	for (;;) {
		q = tc_json_plain_end(s, end, 0);
		len += (size_t)(q - s);
		if (q == end)
			return len;
		len += tc_json_escape_len((unsigned char)*q);
		s = q + 1;
	}
}

const char *
tc_json_number(char buf[TC_JSON_NUMBER_MAX], double d)
{
	int prec;

	if (!isfinite(d)) {
		memcpy(buf, "null", 5);
		return buf;
	}
	if (d == floor(d) && fabs(d) < 9007199254740992.0) {
		snprintf(buf, TC_JSON_NUMBER_MAX, "%.0f", d);
		return buf;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, TC_JSON_NUMBER_MAX, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return buf;
	}
	snprintf(buf, TC_JSON_NUMBER_MAX, "%.17g", d);
	return buf;
}

static int
put_number(struct tc_buf *b, double d)
{
	if (!isfinite(d))
		return tc_buf_append(b, "null", 4);
	/* Integers (sizes, counts, offsets) exactly; others round-trip. */
	if (d == floor(d) && fabs(d) < 9007199254740992.0)
		return tc_buf_printf(b, "%.0f", d);
	return tc_buf_printf(b, "%.17g", d);
}

int
tc_json_put(struct tc_buf *b, const cJSON *v)
{
	const cJSON *it;
	int r = 0;

	switch (v->type & 0xff) {
	case cJSON_False:
		return tc_buf_append(b, "false", 5);
	case cJSON_True:
		return tc_buf_append(b, "true", 4);
	case cJSON_NULL:
		return tc_buf_append(b, "null", 4);
	case cJSON_Number:
		return put_number(b, v->valuedouble);
	case cJSON_String:
		return tc_json_put_string(b, v->valuestring,
		    strlen(v->valuestring));
	case cJSON_Raw:
		return tc_buf_append_str(b, v->valuestring);
	case cJSON_Array:
	case cJSON_Object:
		if ((r = tc_buf_append(b, cJSON_IsArray(v) ? "[" : "{", 1)))
			return r;
		for (it = v->child; it != NULL && r == 0; it = it->next) {
			if (it != v->child && (r = tc_buf_append(b, ",", 1)))
				break;
			if (cJSON_IsObject(v) && ((r = tc_json_put_string(b,
			    it->string, strlen(it->string))) != 0 ||
			    (r = tc_buf_append(b, ":", 1)) != 0))
				break;
			r = tc_json_put(b, it);
		}
		if (r != 0)
			return r;
		return tc_buf_append(b, cJSON_IsArray(v) ? "]" : "}", 1);
	}
	return TC_EINVAL;
}

/* --- Scanning --- */

static const char *
scan_string(const char *p, const char *e)
{
	static const char hexdig[] = "0123456789abcdefABCDEF";
	int i;

	if (p >= e || *p != '"')
		return NULL;
	for (p++;; p++) {
		if ((p = tc_json_plain_end(p, e, 0)) >= e ||
		    (unsigned char)*p < 0x20)
			return NULL;
		if (*p == '"')
			return p + 1;
		/* A backslash. */
		if (++p >= e)
			return NULL;
		switch (*p) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n':
		case 'r': case 't':
			break;
		case 'u':
			for (i = 0; i < 4; i++)
				if (++p >= e || *p == '\0' ||
				    strchr(hexdig, *p) == NULL)
					return NULL;
			break;
		default:
			return NULL;
		}
	}
}

static const char *
digits(const char *p, const char *e)
{
	const char *s = p;

	while (p < e && *p >= '0' && *p <= '9')
		p++;
	return p == s ? NULL : p;
}

static const char *
scan_number(const char *p, const char *e)
{
	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if ((p = digits(p, e)) == NULL)
		return NULL;
	if (p < e && *p == '.' && (p = digits(p + 1, e)) == NULL)
		return NULL;
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if ((p = digits(p, e)) == NULL)
			return NULL;
	}
	return p;
}

static const char *
scan_word(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - p) >= n && memcmp(p, w, n) == 0 ? p + n : NULL;
}

/*
 * Steps to the next item of an object or array between |open| and |close|:
 * past the opening bracket (on the first call) or the comma before it.
 * Returns 1 with *|pp| at the item, 0 at the closing bracket (*|pp| past
 * it), or TC_EBADJSON.
 */
static int
next_item(const char **pp, const char *e, char open, char close)
{
	const char *p = *pp;

	if (p >= e)
		return TC_EBADJSON;
	if (*p == open) {
		if (++p < e && *p == close) {
			*pp = p + 1;
			return 0;
		}
	} else if (*p == ',')
		p++;
	else if (*p == close) {
		*pp = p + 1;
		return 0;
	} else
		return TC_EBADJSON;
	*pp = p;
	return 1;
}

int
tc_json_member_key(const char **pp, const char *e, struct tc_json_span *m)
{
	const char *p = *pp, *k;
	int r;

	if ((r = next_item(&p, e, '{', '}')) != 1) {
		if (r == 0)
			*pp = p;
		return r;
	}
	k = p;
	if ((p = scan_string(p, e)) == NULL || p >= e || *p != ':')
		return TC_EBADJSON;
	m->key = k + 1;
	m->keylen = (size_t)(p - k - 2);
	m->val = NULL;
	m->vallen = 0;
	*pp = p + 1;
	return 1;
}

int
tc_json_member(const char **pp, const char *e, int depth,
    struct tc_json_span *m)
{
	const char *p = *pp, *v;
	int r;

	if ((r = tc_json_member_key(&p, e, m)) != 1) {
		*pp = p;
		return r;
	}
	v = p;
	if ((p = tc_json_scan(p, e, depth + 1)) == NULL ||
	    p >= e || (*p != ',' && *p != '}'))
		return TC_EBADJSON;
	m->val = v;
	m->vallen = (size_t)(p - v);
	*pp = p;
	return 1;
}

int
tc_json_element(const char **pp, const char *e, int depth, const char **v,
    size_t *vlen)
{
	const char *p = *pp;
	int r;

	if ((r = next_item(&p, e, '[', ']')) != 1) {
		if (r == 0)
			*pp = p;
		return r;
	}
	*v = p;
	if ((p = tc_json_scan(p, e, depth + 1)) == NULL ||
	    p >= e || (*p != ',' && *p != ']'))
		return TC_EBADJSON;
	*vlen = (size_t)(p - *v);
	*pp = p;
	return 1;
}

const char *
tc_json_scan(const char *p, const char *e, int depth)
{
	struct tc_json_span m;
	const char *v;
	size_t vlen;
	int r;

	if (p >= e || depth > TC_JSON_DEPTH)
		return NULL;
	switch (*p) {
	case '{':
		while ((r = tc_json_member(&p, e, depth, &m)) == 1)
			;
		return r == 0 ? p : NULL;
	case '[':
		while ((r = tc_json_element(&p, e, depth, &v, &vlen)) == 1)
			;
		return r == 0 ? p : NULL;
	case '"':
		return scan_string(p, e);
	case 't':
		return scan_word(p, e, "true");
	case 'f':
		return scan_word(p, e, "false");
	case 'n':
		return scan_word(p, e, "null");
	default:
		return scan_number(p, e);
	}
}

int
tc_json_key_is(const struct tc_json_span *m, const char *key)
{
	return m->keylen == strlen(key) && memcmp(m->key, key, m->keylen) == 0;
}

cJSON *
tc_json_raw_take(struct tc_buf *b)
{
	cJSON *it;

	if ((it = cJSON_CreateRaw("")) == NULL)
		return NULL;
	cJSON_free(it->valuestring);
	it->valuestring = tc_buf_steal(b);
	return it;
}

/* --- Text from outside: strict checking, raw members --- */

const char *
tc_json_skip_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	return s;
}

static const char *
skip_string(const char *s, const char *e)
{
	for (s++; s < e; s++) {
		if (*s == '\\')
			s++;
		else if (*s == '"')
			return s + 1;
	}
	return NULL;
}

const char *
tc_json_skip(const char *s, const char *e)
{
	char close;

	s = tc_json_skip_ws(s, e);
	if (s >= e)
		return NULL;
	switch (*s) {
	case '"':
		return skip_string(s, e);
	case '{':
	case '[':
		close = *s == '{' ? '}' : ']';
		s = tc_json_skip_ws(s + 1, e);
		if (s < e && *s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				s = tc_json_skip_ws(s, e);
				if (s >= e || *s != '"' ||
				    (s = skip_string(s, e)) == NULL)
					return NULL;
				s = tc_json_skip_ws(s, e);
				if (s >= e || *s != ':')
					return NULL;
				s++;
			}
			if ((s = tc_json_skip(s, e)) == NULL)
				return NULL;
			s = tc_json_skip_ws(s, e);
			if (s >= e)
				return NULL;
			if (*s == close)
				return s + 1;
			if (*s != ',')
				return NULL;
			s++;
		}
	default:
		while (s < e && strchr(",]} \t\r\n", *s) == NULL)
			s++;
		return s;
	}
}

/* Reads four hex digits at |s| (before |e|) into *|u|; returns 0 or -1. */
static int
hex4(const unsigned char *s, const unsigned char *e, unsigned *u)
{
	int i, v;

	if (e - s < 4)
		return -1;
	for (*u = 0, i = 0; i < 4; i++) {
		if ((v = tc_hex_digit((unsigned char)s[i])) < 0)
			return -1;
		*u = *u << 4 | (unsigned)v;
	}
	return 0;
}

/*
 * Decodes the escape after the backslash at |s| (in a string that
 * tc_json_strict() accepted) into UTF-8 at |out| (*|olen| bytes); returns
 * how many bytes after the backslash it took.
 */
static size_t
unescape(const unsigned char *s, const unsigned char *e, char out[4],
    size_t *olen)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *c;
	unsigned u, lo;
	size_t used = 5;

	if (*s != 'u') {
		c = strchr(from, *s);
		out[0] = c != NULL ? to[c - from] : (char)*s;
		*olen = 1;
		return 1;
	}
	if (hex4(s + 1, e, &u) != 0)
		u = 0xfffd;
	if (u >= 0xd800 && u <= 0xdbff && e - s >= 11 &&
	    hex4(s + 7, e, &lo) == 0) {
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		used = 11;
	}
	if (u < 0x80) {
		out[0] = (char)u;
		*olen = 1;
	} else if (u < 0x800) {
		out[0] = (char)(0xc0 | u >> 6);
		out[1] = (char)(0x80 | (u & 0x3f));
		*olen = 2;
	} else if (u < 0x10000) {
		out[0] = (char)(0xe0 | u >> 12);
		out[1] = (char)(0x80 | (u >> 6 & 0x3f));
		out[2] = (char)(0x80 | (u & 0x3f));
		*olen = 3;
	} else {
		out[0] = (char)(0xf0 | u >> 18);
		out[1] = (char)(0x80 | (u >> 12 & 0x3f));
		out[2] = (char)(0x80 | (u >> 6 & 0x3f));
		out[3] = (char)(0x80 | (u & 0x3f));
		*olen = 4;
	}
	return used;
}

/* Returns 1 if the |klen| bytes of a member name at |k| (between its
 * quotes, escapes and all) decode to |want|. */
static int
key_is(const char *k, size_t klen, const char *want)
{
	const unsigned char *s = (const unsigned char *)k, *e = s + klen;
	size_t wl = strlen(want), i = 0, ul;
	char u[4];

	while (s < e) {
		if (*s != '\\') {
			if (i >= wl || want[i] != (char)*s)
				return 0;
			i++;
			s++;
			continue;
		}
		s += 1 + unescape(s + 1, e, u, &ul);
		if (ul > wl - i || memcmp(want + i, u, ul) != 0)
			return 0;
		i += ul;
	}
	return i == wl;
}

int
tc_json_raw_member(const char *text, size_t textlen, const char *const *path,
    size_t n, const char **start, size_t *len)
{
	const char *s = text, *e = text + textlen, *k, *v;
	size_t klen, i;

	*start = NULL;
	*len = 0;
	for (i = 0; i < n; i++) {
		s = tc_json_skip_ws(s, e);
		if (s >= e || *s != '{')
			return TC_ENOTFOUND;
		s = tc_json_skip_ws(s + 1, e);
		for (;;) {
			if (s >= e || *s != '"')
				return TC_ENOTFOUND;
			k = s + 1;
			if ((s = skip_string(s, e)) == NULL)
				return TC_ENOTFOUND;
			klen = (size_t)(s - 1 - k);
			s = tc_json_skip_ws(s, e);
			if (s >= e || *s != ':')
				return TC_ENOTFOUND;
			v = tc_json_skip_ws(s + 1, e);
			if (key_is(k, klen, path[i]))
				break;
			if ((s = tc_json_skip(v, e)) == NULL)
				return TC_ENOTFOUND;
			s = tc_json_skip_ws(s, e);
			if (s >= e || *s != ',')
				return TC_ENOTFOUND;
			s = tc_json_skip_ws(s + 1, e);
		}
		s = v;
	}
	if ((v = tc_json_skip(s, e)) == NULL)
		return TC_ENOTFOUND;
	*start = s;
	*len = (size_t)(v - s);
	return 0;
}

/* --- Strict validation (before cJSON sees the text) --- */

static const unsigned char *
ws(const unsigned char *s, const unsigned char *e)
{
	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	return s;
}

/*
 * Checks the string at |s| (its opening quote); returns the byte after
 * its closing quote, or NULL.  Adds TC_JSON_NUL to *|got| if it holds
 * \u0000, and TC_JSON_LONE_SURROGATE if it holds an escaped surrogate
 * that is not half of a pair: the grammar allows one, so the scan goes
 * on, for the caller to tell this apart from text that is not JSON.
 * Its bytes must be UTF-8: a byte from 0x80 up starts a character
 * checked here (only a string may hold one; the rest of the grammar is
 * ASCII).
 */
static const unsigned char *
strict_string(const unsigned char *s, const unsigned char *e, unsigned *got)
{
	unsigned u, lo;
	uint32_t cp;
	size_t k;

	*got = 0;
	for (s++; s < e; s++) {
		if (*s == '"')
			return s + 1;
		if (*s < 0x20)
			return NULL;
		if (*s >= 0x80) {
			if ((k = tc_utf8_decode(s, (size_t)(e - s), &cp,
			    NULL)) == 0)
				return NULL;
			s += k - 1;
			continue;
		}
		if (*s != '\\')
			continue;
		if (++s >= e)
			return NULL;
		switch (*s) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n':
		case 'r': case 't':
			break;
		case 'u':
			if (hex4(s + 1, e, &u) != 0)
				return NULL;
			s += 4;
			if (u == 0)
				*got |= TC_JSON_NUL;
			if (u >= 0xdc00 && u <= 0xdfff) {
				/* A low half alone. */
				*got |= TC_JSON_LONE_SURROGATE;
				break;
			}
			if (u < 0xd800 || u > 0xdbff)
				break;
			/* A high half: the low half must follow.  What
			 * follows instead is checked as it comes. */
			if (e - s < 7 || s[1] != '\\' || s[2] != 'u' ||
			    hex4(s + 3, e, &lo) != 0 || lo < 0xdc00 ||
			    lo > 0xdfff) {
				*got |= TC_JSON_LONE_SURROGATE;
				break;
			}
			s += 6;
			break;
		default:
			return NULL;
		}
	}
	return NULL;
}

static const unsigned char *
strict_digits(const unsigned char *s, const unsigned char *e)
{
	if (s >= e || *s < '0' || *s > '9')
		return NULL;
	while (s < e && *s >= '0' && *s <= '9')
		s++;
	return s;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static const unsigned char *
strict_number(const unsigned char *s, const unsigned char *e)
{
	if (s < e && *s == '-')
		s++;
	if (s < e && *s == '0')
		s++;
	else if (s >= e || *s < '1' || *s > '9' ||
	    (s = strict_digits(s, e)) == NULL)
		return NULL;
	if (s < e && *s == '.' && (s = strict_digits(s + 1, e)) == NULL)
		return NULL;
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < e && (*s == '+' || *s == '-'))
			s++;
		if ((s = strict_digits(s, e)) == NULL)
			return NULL;
	}
	return s;
}

/* Checks a member's name, the colon and white space; returns the start
 * of its value, or NULL. */
static const unsigned char *
strict_name(const unsigned char *s, const unsigned char *e, unsigned *flags)
{
	unsigned got;

	if (s >= e || *s != '"' || (s = strict_string(s, e, &got)) == NULL)
		return NULL;
	if (got & TC_JSON_NUL)
		*flags |= TC_JSON_NUL_NAME;
	*flags |= got & TC_JSON_LONE_SURROGATE;
	s = ws(s, e);
	if (s >= e || *s != ':')
		return NULL;
	return ws(s + 1, e);
}

/* tc_json_strict() but for a lone surrogate, which only sets its flag. */
static int
strict_scan(const char *text, size_t n, unsigned *flags)
{
	const unsigned char *s = (const unsigned char *)text, *e = s + n;
	static const char *const words[] = { "true", "false", "null" };
	char nest[TC_JSON_NEST];	/* '{' or '[' for each level */
	size_t depth = 0, i, wl;
	unsigned got;
	char end;

	/* Iterative, so that nesting costs no stack beyond |nest|. */
	*flags = 0;
	s = ws(s, e);
	for (;;) {
		/* A value starts here. */
		if (s >= e)
			return TC_EBADJSON;
		switch (*s) {
		case '{':
		case '[':
			if (depth == TC_JSON_NEST)
				return TC_EBADJSON;
			nest[depth++] = (char)*s;
			end = *s == '{' ? '}' : ']';
			s = ws(s + 1, e);
			if (s < e && *s == end) {
				s++;
				depth--;
				break;
			}
			if (end == '}' && (s = strict_name(s, e, flags)) ==
			    NULL)
				return TC_EBADJSON;
			continue;
		case '"':
			if ((s = strict_string(s, e, &got)) == NULL)
				return TC_EBADJSON;
			if (got & TC_JSON_NUL)
				*flags |= TC_JSON_NUL | (depth <= 2 ?
				    TC_JSON_NUL_SHALLOW : 0);
			*flags |= got & TC_JSON_LONE_SURROGATE;
			break;
		case 't':
		case 'f':
		case 'n':
			for (i = 0; words[i][0] != (char)*s; i++)
				;
			wl = strlen(words[i]);
			if ((size_t)(e - s) < wl || memcmp(s, words[i], wl))
				return TC_EBADJSON;
			s += wl;
			break;
		default:
			if ((s = strict_number(s, e)) == NULL)
				return TC_EBADJSON;
			break;
		}
		/* After a value: close what ends here, then a comma or the
		 * end of the text. */
		for (;;) {
			s = ws(s, e);
			if (depth == 0)
				return s == e ? 0 : TC_EBADJSON;
			if (s >= e)
				return TC_EBADJSON;
			end = nest[depth - 1] == '{' ? '}' : ']';
			if (*s == end) {
				s++;
				depth--;
				continue;
			}
			if (*s != ',')
				return TC_EBADJSON;
			s = ws(s + 1, e);
			if (end == '}' && (s = strict_name(s, e, flags)) ==
			    NULL)
				return TC_EBADJSON;
			break;
		}
	}
}

int
tc_json_strict(const char *text, size_t n, unsigned *flags)
{
	if (strict_scan(text, n, flags) != 0) {
		*flags &= ~TC_JSON_LONE_SURROGATE;
		return TC_EBADJSON;
	}
	return *flags & TC_JSON_LONE_SURROGATE ? TC_EBADJSON : 0;
}

/* --- Skimming a message that is not parsed --- */

enum {
	SK_START,	/* before the object */
	SK_FIRST,	/* after '{': a name or '}' */
	SK_NAME,	/* after ',': a name */
	SK_IN_NAME,
	SK_NAME_ESC,	/* after a backslash in a name */
	SK_COLON,
	SK_VALUE,
	SK_IN_STR,	/* a string value of the top level */
	SK_STR_ESC,
	SK_SCALAR,	/* a number or literal of the top level */
	SK_AFTER,	/* after a value: ',' or '}' */
	SK_DEEP,	/* inside a value of the top level */
	SK_IN_DEEP_STR,
	SK_DEEP_ESC,
	SK_DONE,	/* after the object: white space only */
	SK_BAD		/* not an object this skim can follow */
};

void
tc_json_skim_init(struct tc_json_skim *k)
{
	memset(k, 0, sizeof(*k));
	k->state = SK_START;
}

static int
skim_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Keeps byte |c| of the id's value, if that is what is being read. */
static void
skim_keep_id(struct tc_json_skim *k, unsigned char c)
{
	if (!k->in_id)
		return;
	if (k->idlen < sizeof(k->id))
		k->id[k->idlen] = (char)c;
	if (k->idlen <= sizeof(k->id))
		k->idlen++;
}

/* A name of the top level has been read whole (quotes included). */
static void
skim_name(struct tc_json_skim *k)
{
	static const struct {
		const char	*name;
		unsigned	 bit;
	} known[] = {
		{ "method", TC_JSON_SKIM_METHOD },
		{ "result", TC_JSON_SKIM_RESULT },
		{ "error", TC_JSON_SKIM_ERROR },
	};
	unsigned flags;
	size_t i;

	k->in_id = 0;
	/* Compared as decoded, as cJSON and tc_json_raw_member() do, so
	 * only a name that is itself strict JSON is decoded. */
	if (k->keylen > sizeof(k->key) ||
	    tc_json_strict(k->key, k->keylen, &flags) != 0)
		return;
	if (key_is(k->key + 1, k->keylen - 2, "id")) {
		k->has |= TC_JSON_SKIM_ID;
		k->nid++;
		k->in_id = 1;
		k->idlen = 0;
		return;
	}
	for (i = 0; i < TC_NITEMS(known); i++)
		if (key_is(k->key + 1, k->keylen - 2, known[i].name))
			k->has |= known[i].bit;
}

/* Opens (|c| '{' or '[') or closes a level below the top one; returns 0
 * or -1 (too deep, or a bracket that does not match). */
static int
skim_nest(struct tc_json_skim *k, unsigned char c)
{
	unsigned bit;

	if (c == '{' || c == '[') {
		if (k->depth >= TC_JSON_NEST)
			return -1;
		bit = 1u << (k->depth % 8);
		if (c == '[')
			k->open[k->depth / 8] |= (unsigned char)bit;
		else
			k->open[k->depth / 8] &= (unsigned char)~bit;
		k->depth++;
		return 0;
	}
	k->depth--;
	bit = (k->open[k->depth / 8] >> (k->depth % 8)) & 1u;
	return bit == (c == ']' ? 1u : 0u) ? 0 : -1;
}

void
tc_json_skim_feed(struct tc_json_skim *k, const char *s, size_t n)
{
	const char *e = s + n;
	unsigned char c;

	while (s < e && k->state != SK_BAD) {
		if (k->state == SK_IN_DEEP_STR) {
			/* The bulk of a long message: skipped in strides. */
			if ((s = tc_json_plain_end(s, e, 0)) == e)
				break;
		}
		c = (unsigned char)*s++;
		switch (k->state) {
		case SK_START:
			if (c == '{') {
				k->depth = 1;
				k->state = SK_FIRST;
			} else if (!skim_ws(c))
				k->state = SK_BAD;
			break;
		case SK_FIRST:
		case SK_NAME:
			if (c == '"') {
				k->key[0] = '"';
				k->keylen = 1;
				k->state = SK_IN_NAME;
			} else if (c == '}' && k->state == SK_FIRST) {
				k->depth = 0;
				k->state = SK_DONE;
			} else if (!skim_ws(c))
				k->state = SK_BAD;
			break;
		case SK_IN_NAME:
		case SK_NAME_ESC:
			if (k->keylen < sizeof(k->key))
				k->key[k->keylen] = (char)c;
			if (k->keylen <= sizeof(k->key))
				k->keylen++;
			if (k->state == SK_NAME_ESC)
				k->state = SK_IN_NAME;
			else if (c == '\\')
				k->state = SK_NAME_ESC;
			else if (c == '"') {
				skim_name(k);
				k->state = SK_COLON;
			}
			break;
		case SK_COLON:
			if (c == ':')
				k->state = SK_VALUE;
			else if (!skim_ws(c))
				k->state = SK_BAD;
			break;
		case SK_VALUE:
			if (skim_ws(c))
				break;
			if (c == '"') {
				skim_keep_id(k, c);
				k->state = SK_IN_STR;
			} else if (c == '{' || c == '[') {
				/* An id of this kind is no id to echo. */
				if (k->in_id)
					k->idlen = sizeof(k->id) + 1;
				k->state = skim_nest(k, c) == 0 ? SK_DEEP :
				    SK_BAD;
			} else if (c == ',' || c == '}' || c == ']' ||
			    c == ':')
				k->state = SK_BAD;
			else {
				skim_keep_id(k, c);
				k->state = SK_SCALAR;
			}
			break;
		case SK_IN_STR:
		case SK_STR_ESC:
			skim_keep_id(k, c);
			if (k->state == SK_STR_ESC)
				k->state = SK_IN_STR;
			else if (c == '\\')
				k->state = SK_STR_ESC;
			else if (c == '"')
				k->state = SK_AFTER;
			break;
		case SK_SCALAR:
			if (!skim_ws(c) && c != ',' && c != '}') {
				skim_keep_id(k, c);
				break;
			}
			k->state = SK_AFTER;
			s--;			/* read again, as SK_AFTER */
			break;
		case SK_AFTER:
			k->in_id = 0;
			if (c == ',')
				k->state = SK_NAME;
			else if (c == '}') {
				k->depth = 0;
				k->state = SK_DONE;
			} else if (!skim_ws(c))
				k->state = SK_BAD;
			break;
		case SK_DEEP:
			if (c == '"')
				k->state = SK_IN_DEEP_STR;
			else if (c == '{' || c == '[' || c == '}' || c == ']') {
				if (skim_nest(k, c) != 0)
					k->state = SK_BAD;
				else if (k->depth == 1)
					k->state = SK_AFTER;
			}
			break;
		case SK_IN_DEEP_STR:
			if (c == '\\')
				k->state = SK_DEEP_ESC;
			else if (c == '"')
				k->state = SK_DEEP;
			break;
		case SK_DEEP_ESC:
			k->state = SK_IN_DEEP_STR;
			break;
		case SK_DONE:
			if (!skim_ws(c))
				k->state = SK_BAD;
			break;
		}
	}
}

unsigned
tc_json_skim_end(struct tc_json_skim *k, const char **id, size_t *idlen)
{
	unsigned flags;

	*id = NULL;
	*idlen = 0;
	if (k->state != SK_DONE)
		return 0;
	if (k->nid == 1 && k->idlen > 0 && k->idlen <= sizeof(k->id) &&
	    (k->id[0] == '"' || k->id[0] == '-' ||
	    (k->id[0] >= '0' && k->id[0] <= '9')) &&
	    tc_json_strict(k->id, k->idlen, &flags) == 0) {
		*id = k->id;
		*idlen = k->idlen;
	}
	return k->has | TC_JSON_SKIM_OBJECT;
}
