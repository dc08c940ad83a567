/* json.c: writing JSON into a buffer, and scanning it without a tree. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"

/* --- Writing --- */

/*
 * Returns the first byte in [p, e) that a JSON string cannot hold as it
 * is (a quote, a backslash, a control byte), or |e|: eight bytes at a
 * time, as most text has none.
 */
static const char *
plain_end(const char *p, const char *e)
{
	uint64_t w, hit;

	while (e - p >= 8) {
		memcpy(&w, p, 8);
		hit = TC_HAS_LESS(w, 0x20) | TC_HAS_ZERO(w ^ TC_BYTES('"')) |
		    TC_HAS_ZERO(w ^ TC_BYTES('\\'));
		if (hit != 0) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* The lowest bit set is exact: a false hit can only
			 * follow a true one. */
			return p + (__builtin_ctzll(hit) >> 3);
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < e && (unsigned char)*p >= 0x20 && *p != '"' && *p != '\\')
		p++;
	return p;
}

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
		q = plain_end(s, end);
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
tc_json_string_len(const char *s, size_t n)
{
	const char *end = s + n, *q;
	size_t len = 2;

	for (;;) {
		q = plain_end(s, end);
		len += (size_t)(q - s);
		if (q == end)
			return len;
		/* As tc_json_put_string() writes them. */
		switch (*q) {
		case '"':
		case '\\':
		case '\b':
		case '\f':
		case '\n':
		case '\r':
		case '\t':
			len += 2;
			break;
		default:
			len += 6;
			break;
		}
		s = q + 1;
	}
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
		if ((p = plain_end(p, e)) >= e || (unsigned char)*p < 0x20)
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
 * it), or -1.
 */
static int
next_item(const char **pp, const char *e, char open, char close)
{
	const char *p = *pp;

	if (p >= e)
		return -1;
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
		return -1;
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
		return -1;
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
		return -1;
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
		return -1;
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
