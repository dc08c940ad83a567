/*
 * strictjson.h: a strict JSON parser for the tests and the fuzz harnesses,
 * written from RFC 8259 and RFC 3629 alone and sharing no code with the
 * servers', so that what they accept can be held against what JSON is.
 *
 * sj_parse() reads one JSON text into a tree of nodes, or says why it is
 * not one.  It is a plain recursive descent over the grammar of RFC 8259
 * section 2 to 7: values, objects, arrays, numbers
 * (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), strings of unescaped
 * bytes from 0x20 up (but '"' and '\') and the nine escapes, white space
 * of four bytes only (space, tab, LF, CR); and the text must be UTF-8
 * (RFC 8259 section 8.1): no overlong form, no surrogate, nothing past
 * U+10FFFF.
 *
 * What RFC 8259 leaves to an implementation is not refused but reported in
 * the document, for the caller to judge: a byte order mark before the text
 * (section 8.1: a parser MAY ignore it), an escape of an unpaired
 * surrogate (section 8.2: "unpredictable"), the deepest nesting and the
 * longest number (section 9: limits an implementation may set), two
 * members of one object with the same name (section 4: "unpredictable"),
 * a string holding U+0000, and white space outside strings.  Nesting
 * deeper than SJ_DEPTH_CAP is not followed: sj_parse() then answers
 * SJ_TOO_DEEP, neither valid nor invalid.
 *
 * Everything is static: a file that includes it gets its own copy.
 */
#ifndef TC_STRICTJSON_H
#define TC_STRICTJSON_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SJ_FN		static __attribute__((unused))

#define SJ_DEPTH_CAP	2048	/* deeper nesting is not followed */

#define SJ_VALID	1
#define SJ_INVALID	0
#define SJ_TOO_DEEP	(-1)

enum sj_type {
	SJ_NULL, SJ_FALSE, SJ_TRUE, SJ_NUMBER, SJ_STRING, SJ_ARRAY, SJ_OBJECT
};

struct sj_node {
	enum sj_type	 type;
	const char	*raw;		/* the value's text */
	size_t		 rawlen;
	char		*str;		/* strings: decoded, NUL-terminated */
	size_t		 len;		/* its bytes (U+0000 may be among them) */
	const char	*rawkey;	/* members: the name between its quotes */
	size_t		 rawkeylen;
	char		*key;		/* members: the name decoded */
	size_t		 keylen;
	int		 depth;		/* 0 for the text's value */
	int		 integer;	/* numbers: no fraction, no exponent */
	size_t		 n;		/* arrays, objects: how many items */
	struct sj_node	*child;		/* the first item */
	struct sj_node	*next;		/* the next item of the parent */
};

struct sj_doc {
	struct sj_node	*root;		/* NULL unless SJ_VALID */
	const char	*why;		/* unless SJ_VALID: what is wrong */
	size_t		 at;		/* and where (a byte offset) */
	int		 bom;		/* a byte order mark came first */
	int		 lone_surrogate;	/* \uD800 and the like, unpaired */
	int		 nul;		/* some string or name holds U+0000 */
	int		 ws;		/* white space outside strings */
	int		 dup;		/* some object repeats a member name */
	int		 max_depth;	/* of the deepest value */
	size_t		 longest_number;	/* bytes */
};

/* The parser's cursor. */
struct sj_in {
	const char	*s, *p, *e;
	struct sj_doc	*doc;
	int		 deep;		/* SJ_DEPTH_CAP was passed */
};

/* Returns 0 after recording |why| at the cursor (the first one wins). */
SJ_FN int
sj_fail(struct sj_in *in, const char *why)
{
	if (in->doc->why == NULL) {
		in->doc->why = why;
		in->doc->at = (size_t)(in->p - in->s);
	}
	return 0;
}

SJ_FN void
sj_skip_ws(struct sj_in *in)
{
	while (in->p < in->e && (*in->p == ' ' || *in->p == '\t' ||
	    *in->p == '\n' || *in->p == '\r')) {
		in->p++;
		in->doc->ws = 1;
	}
}

/*
 * Returns the length of the UTF-8 sequence at |p| (RFC 3629 section 4),
 * or 0 if it is not one.  Only bytes from 0x80 come here.
 */
SJ_FN size_t
sj_utf8_len(const unsigned char *p, const unsigned char *e)
{
	unsigned long cp;
	size_t n, i;

	if (p[0] >= 0xc0 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf7) {
		n = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if ((size_t)(e - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* The shortest form only, and a scalar value. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Appends code point |cp| to |out| (room for 4 bytes) as UTF-8. */
SJ_FN size_t
sj_put_utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Reads the 4 hex digits after "\u"; returns 1 with |cp| set, or 0. */
SJ_FN int
sj_hex4(struct sj_in *in, unsigned long *cp)
{
	int i, c;

	*cp = 0;
	for (i = 0; i < 4; i++) {
		if (in->p >= in->e)
			return 0;
		c = (unsigned char)*in->p;
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return 0;
		*cp = *cp << 4 | (unsigned long)c;
		in->p++;
	}
	return 1;
}

/*
 * Reads the string at the cursor (on its '"') and decodes it into a new
 * buffer, *|out| of *|outlen| bytes.  Returns 1, or 0 (nothing allocated).
 */
SJ_FN int
sj_string(struct sj_in *in, char **out, size_t *outlen)
{
	const char *start;
	unsigned long cp, lo;
	unsigned char c;
	size_t n = 0, k;
	char *buf;

	start = ++in->p;
	/* Decoding never makes a string longer than its text. */
	if ((buf = malloc((size_t)(in->e - start) + 4)) == NULL)
		return sj_fail(in, "out of memory");
	for (;;) {
		if (in->p >= in->e) {
			free(buf);
			return sj_fail(in, "unterminated string");
		}
		c = (unsigned char)*in->p;
		if (c == '"') {
			in->p++;
			break;
		}
		if (c < 0x20) {
			free(buf);
			return sj_fail(in, "control character in a string");
		}
		if (c >= 0x80) {
			if ((k = sj_utf8_len((const unsigned char *)in->p,
			    (const unsigned char *)in->e)) == 0) {
				free(buf);
				return sj_fail(in, "not UTF-8");
			}
			memcpy(buf + n, in->p, k);
			n += k;
			in->p += k;
			continue;
		}
		if (c != '\\') {
			buf[n++] = (char)c;
			in->p++;
			continue;
		}
		if (++in->p >= in->e) {
			free(buf);
			return sj_fail(in, "unterminated escape");
		}
		switch (*in->p++) {
		case '"':	buf[n++] = '"';		break;
		case '\\':	buf[n++] = '\\';	break;
		case '/':	buf[n++] = '/';		break;
		case 'b':	buf[n++] = '\b';	break;
		case 'f':	buf[n++] = '\f';	break;
		case 'n':	buf[n++] = '\n';	break;
		case 'r':	buf[n++] = '\r';	break;
		case 't':	buf[n++] = '\t';	break;
		case 'u':
			if (!sj_hex4(in, &cp)) {
				free(buf);
				return sj_fail(in, "\\u without 4 hex digits");
			}
			if (cp >= 0xd800 && cp <= 0xdbff && in->e - in->p >= 6 &&
			    in->p[0] == '\\' && in->p[1] == 'u') {
				const char *save = in->p;

				in->p += 2;
				if (!sj_hex4(in, &lo)) {
					free(buf);
					return sj_fail(in, "\\u without 4 hex "
					    "digits");
				}
				if (lo >= 0xdc00 && lo <= 0xdfff)
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					    (lo - 0xdc00);
				else
					in->p = save;	/* read it next */
			}
			if (cp >= 0xd800 && cp <= 0xdfff) {
				in->doc->lone_surrogate = 1;
				cp = 0xfffd;
			}
			if (cp == 0)
				in->doc->nul = 1;
			n += sj_put_utf8(buf + n, cp);
			break;
		default:
			in->p--;
			free(buf);
			return sj_fail(in, "unknown escape");
		}
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	return 1;
}

/* Reads the number at the cursor into |v|; returns 1 or 0. */
SJ_FN int
sj_number(struct sj_in *in, struct sj_node *v)
{
	const char *start = in->p;
	size_t len;

	v->integer = 1;
	if (in->p < in->e && *in->p == '-')
		in->p++;
	if (in->p < in->e && *in->p == '0')
		in->p++;
	else if (in->p < in->e && *in->p >= '1' && *in->p <= '9') {
		while (in->p < in->e && *in->p >= '0' && *in->p <= '9')
			in->p++;
	} else
		return sj_fail(in, "not a value");
	if (in->p < in->e && *in->p == '.') {
		v->integer = 0;
		in->p++;
		if (in->p >= in->e || *in->p < '0' || *in->p > '9')
			return sj_fail(in, "no digit after '.'");
		while (in->p < in->e && *in->p >= '0' && *in->p <= '9')
			in->p++;
	}
	if (in->p < in->e && (*in->p == 'e' || *in->p == 'E')) {
		v->integer = 0;
		in->p++;
		if (in->p < in->e && (*in->p == '+' || *in->p == '-'))
			in->p++;
		if (in->p >= in->e || *in->p < '0' || *in->p > '9')
			return sj_fail(in, "no digit in the exponent");
		while (in->p < in->e && *in->p >= '0' && *in->p <= '9')
			in->p++;
	}
	len = (size_t)(in->p - start);
	if (len > in->doc->longest_number)
		in->doc->longest_number = len;
	return 1;
}

SJ_FN void
sj_node_free(struct sj_node *v)
{
	struct sj_node *c, *next;

	if (v == NULL)
		return;
	for (c = v->child; c != NULL; c = next) {
		next = c->next;
		sj_node_free(c);
	}
	free(v->str);
	free(v->key);
	free(v);
}

static struct sj_node *sj_value(struct sj_in *, int);

/* Reads the items of the array or object at the cursor into |v|. */
SJ_FN int
sj_items(struct sj_in *in, struct sj_node *v, int depth)
{
	int object = *in->p == '{';
	char close = object ? '}' : ']';
	struct sj_node **tail = &v->child, *item, *o;
	char *key = NULL;
	const char *rawkey = NULL;
	size_t keylen = 0, rawkeylen = 0;

	in->p++;
	sj_skip_ws(in);
	if (in->p < in->e && *in->p == close) {
		in->p++;
		return 1;
	}
	for (;;) {
		if (object) {
			sj_skip_ws(in);
			if (in->p >= in->e || *in->p != '"')
				return sj_fail(in, "a member needs a name");
			rawkey = in->p + 1;
			if (!sj_string(in, &key, &keylen))
				return 0;
			rawkeylen = (size_t)(in->p - 1 - rawkey);
			sj_skip_ws(in);
			if (in->p >= in->e || *in->p != ':') {
				free(key);
				return sj_fail(in, "':' expected after a "
				    "member's name");
			}
			in->p++;
		}
		if ((item = sj_value(in, depth + 1)) == NULL) {
			free(key);
			return 0;
		}
		if (object) {
			for (o = v->child; o != NULL; o = o->next)
				if (o->keylen == keylen &&
				    memcmp(o->key, key, keylen) == 0)
					in->doc->dup = 1;
			item->key = key;
			item->keylen = keylen;
			item->rawkey = rawkey;
			item->rawkeylen = rawkeylen;
			key = NULL;
		}
		*tail = item;
		tail = &item->next;
		v->n++;
		sj_skip_ws(in);
		if (in->p < in->e && *in->p == close) {
			in->p++;
			return 1;
		}
		if (in->p >= in->e || *in->p != ',')
			return sj_fail(in, object ? "',' or '}' expected" :
			    "',' or ']' expected");
		in->p++;
		sj_skip_ws(in);
	}
}

/* Reads the value at the cursor (after white space); NULL if there is
 * none, with the reason recorded. */
static struct sj_node *
sj_value(struct sj_in *in, int depth)
{
	struct sj_node *v;
	const char *start;
	int ok;

	sj_skip_ws(in);
	if (in->p >= in->e) {
		sj_fail(in, "a value expected");
		return NULL;
	}
	if (depth > SJ_DEPTH_CAP) {
		in->deep = 1;
		sj_fail(in, "nested too deep to follow");
		return NULL;
	}
	if ((v = calloc(1, sizeof(*v))) == NULL) {
		sj_fail(in, "out of memory");
		return NULL;
	}
	if (depth > in->doc->max_depth)
		in->doc->max_depth = depth;
	v->depth = depth;
	start = in->p;
	switch (*in->p) {
	case '{':
	case '[':
		v->type = *in->p == '{' ? SJ_OBJECT : SJ_ARRAY;
		ok = sj_items(in, v, depth);
		break;
	case '"':
		v->type = SJ_STRING;
		ok = sj_string(in, &v->str, &v->len);
		break;
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = { "null", "false", "true" };
		const char *w = words[*in->p == 'n' ? 0 : *in->p == 'f' ?
		    1 : 2];
		size_t wl = strlen(w);

		v->type = *in->p == 'n' ? SJ_NULL : *in->p == 'f' ?
		    SJ_FALSE : SJ_TRUE;
		ok = (size_t)(in->e - in->p) >= wl &&
		    memcmp(in->p, w, wl) == 0;
		if (ok)
			in->p += wl;
		else
			sj_fail(in, "not a value");
		break;
	}
	default:
		v->type = SJ_NUMBER;
		ok = sj_number(in, v);
		break;
	}
	if (!ok) {
		sj_node_free(v);
		return NULL;
	}
	v->raw = start;
	v->rawlen = (size_t)(in->p - start);
	return v;
}

/*
 * Parses the |n| bytes at |s| as one JSON text into |doc|.  Returns
 * SJ_VALID (doc->root is the tree, for sj_free()), SJ_INVALID (doc->why
 * says why), or SJ_TOO_DEEP.
 */
SJ_FN int
sj_parse(struct sj_doc *doc, const char *s, size_t n)
{
	struct sj_in in;

	memset(doc, 0, sizeof(*doc));
	in.s = in.p = s;
	in.e = s + n;
	in.doc = doc;
	in.deep = 0;
	if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		doc->bom = 1;
		in.p += 3;
	}
	doc->root = sj_value(&in, 0);
	if (doc->root != NULL) {
		sj_skip_ws(&in);
		if (in.p != in.e) {
			sj_fail(&in, "more after the value");
			sj_node_free(doc->root);
			doc->root = NULL;
		}
	}
	if (doc->root != NULL)
		return SJ_VALID;
	return in.deep ? SJ_TOO_DEEP : SJ_INVALID;
}

SJ_FN void
sj_free(struct sj_doc *doc)
{
	sj_node_free(doc->root);
	doc->root = NULL;
}

/* Returns the first member of object |o| whose decoded name is |key|. */
SJ_FN const struct sj_node *
sj_get(const struct sj_node *o, const char *key)
{
	const struct sj_node *c;
	size_t n = strlen(key);

	if (o == NULL || o->type != SJ_OBJECT)
		return NULL;
	for (c = o->child; c != NULL; c = c->next)
		if (c->keylen == n && memcmp(c->key, key, n) == 0)
			return c;
	return NULL;
}

/* Returns how many members of object |o| have the decoded name |key|. */
SJ_FN size_t
sj_count(const struct sj_node *o, const char *key)
{
	const struct sj_node *c;
	size_t n = strlen(key), k = 0;

	if (o == NULL || o->type != SJ_OBJECT)
		return 0;
	for (c = o->child; c != NULL; c = c->next)
		if (c->keylen == n && memcmp(c->key, key, n) == 0)
			k++;
	return k;
}

/* Returns 1 if |v| is the string |s| (decoded, no U+0000 in |s|). */
SJ_FN int
sj_is_str(const struct sj_node *v, const char *s)
{
	return v != NULL && v->type == SJ_STRING && v->len == strlen(s) &&
	    memcmp(v->str, s, v->len) == 0;
}

#endif /* TC_STRICTJSON_H */
