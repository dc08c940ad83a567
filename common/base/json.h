/*
 * json.h: JSON text without building a tree, of two kinds.
 *
 * What toolcell writes: a child writes its result straight into one
 * buffer (tc_json_put*), and the server checks the text it receives with
 * a strict scanner (tc_json_scan) and passes it on as it came, so that a
 * large answer is neither rebuilt object by object nor printed a second
 * time.  The scanner accepts the subset of JSON that the writer produces:
 * no whitespace between tokens (a newline there would split a stdio
 * message), strings without raw control characters, numbers in RFC 8259
 * form, nesting at most TC_JSON_DEPTH deep.  UTF-8 is checked separately
 * (tc_utf8_valid).
 *
 * What a client sends: any RFC 8259 text, checked whole by
 * tc_json_strict() before cJSON (which accepts more) parses it; then
 * tc_json_raw_member() finds a member's text as it was written (a request
 * id is echoed back exactly), and tc_json_skip() steps over values (the
 * elements of a batch).
 *
 * Returns (base/): 0 or a negative TC_E* code; iterators 1 (an item), 0
 * (the end) or TC_EBADJSON; yes/no questions 1 or 0; scanners a pointer
 * to where they stopped, NULL for text not in the accepted form.
 */
#ifndef TC_JSON_H
#define TC_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/buf.h"

#define TC_JSON_DEPTH	512

/* Appends |v| as compact JSON.  Returns 0, TC_ETOOBIG or TC_ENOMEM. */
int	tc_json_put(struct tc_buf *b, const cJSON *v);

/*
 * Writes |d| into |buf| as the shortest JSON number that reads back as
 * the same double (an integer below 2^53 in plain digits), and returns
 * |buf|; a non-finite |d|, which JSON cannot carry, gives "null".  cJSON
 * prints 15 digits and may lose the rest (9007199254740991 comes out as
 * 9.00719925474099e+15): where the exact value matters, write this text
 * as a raw item.
 */
#define TC_JSON_NUMBER_MAX	32
const char *tc_json_number(char buf[TC_JSON_NUMBER_MAX], double d);

/* Appends |n| bytes of |s| as a JSON string, quoted and escaped. */
int	tc_json_put_string(struct tc_buf *b, const char *s, size_t n);

/*
 * Returns the first byte in [p, e) that a JSON string cannot hold as it
 * is (a quote, a backslash, a control byte), and with |high| also the
 * first from 0x80 up (for a caller that checks UTF-8 itself); |e| if
 * there is none.  Sixteen bytes at a time where the compiler has vectors
 * (GCC and Clang, on any target), as most text has none, then eight,
 * then one.  tc_json_put_string(), tc_json_string_len(), tc_json_scan()
 * and toolcell-shell's count of an output's JSON size all scan with it:
 * a 5 MiB output of 64-byte lines took 1.16 ms eight bytes at a time,
 * 0.64 sixteen.  Inline, so that each caller's |high|, a constant, is
 * compiled into its copy.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
typedef unsigned char	tc_json_v16 __attribute__((__vector_size__(16)));
#define TC_JSON_VECTORS	1
#endif

static inline const char *
tc_json_plain_end(const char *p, const char *e, int high)
{
	uint64_t w, hit;
#ifdef TC_JSON_VECTORS
	uint64_t half[2];
	tc_json_v16 v, m;

	while (e - p >= 16) {
		memcpy(&v, p, 16);
		/* Each byte of m is 0xff where v's is not plain. */
		m = (tc_json_v16)(v < 0x20) | (tc_json_v16)(v == '"') |
		    (tc_json_v16)(v == '\\');
		if (high)
			m |= (tc_json_v16)(v >= 0x80);
		memcpy(half, &m, 16);
		if ((half[0] | half[1]) != 0)
			return p + (half[0] != 0 ?
			    (size_t)__builtin_ctzll(half[0]) >> 3 :
			    8 + ((size_t)__builtin_ctzll(half[1]) >> 3));
		p += 16;
	}
#endif
	while (e - p >= 8) {
		memcpy(&w, p, 8);
		hit = TC_HAS_LESS(w, 0x20) | TC_HAS_ZERO(w ^ TC_BYTES('"')) |
		    TC_HAS_ZERO(w ^ TC_BYTES('\\'));
		if (high)
			hit |= w & TC_BYTES(0x80);
		if (hit != 0) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* The lowest bit set is exact: a false hit (a borrow)
			 * can only follow a true one. */
			return p + (__builtin_ctzll(hit) >> 3);
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < e && (unsigned char)*p >= 0x20 && *p != '"' &&
	    *p != '\\' && (!high || (unsigned char)*p < 0x80))
		p++;
	return p;
}

/* Returns how many bytes tc_json_put_string() writes for the byte |c| that
 * needs escaping (a quote, a backslash or a control character): 2 or 6. */
size_t	tc_json_escape_len(unsigned char c);

/* Returns how many bytes tc_json_put_string() writes for |n| bytes of |s|,
 * quotes included. */
size_t	tc_json_string_len(const char *s, size_t n);

/*
 * Returns a raw item that takes the text in |b| (one JSON value, written
 * with tc_json_put*) and leaves |b| empty, or NULL on ENOMEM.  A handler
 * writes a large part of its structuredContent this way rather than as
 * one cJSON item per value.
 */
cJSON	*tc_json_raw_take(struct tc_buf *b);

/*
 * Returns the end of the JSON value that starts at |p| (before |e|), or
 * NULL if there is none there in the accepted form.  |depth| is the
 * nesting level of the value (0 at the top).
 */
const char *tc_json_scan(const char *p, const char *e, int depth);

/*
 * A member of an object, as found by tc_json_member(): the key's bytes
 * between the quotes (still escaped), and the value's bytes.
 */
struct tc_json_span {
	const char	*key;
	size_t		 keylen;
	const char	*val;
	size_t		 vallen;
};

/*
 * Iterates the members of the object at |*pp|, which must start with '{'
 * on the first call (*|pp| set to the '{').  Returns 1 with |m| filled and
 * *|pp| moved past the member, 0 at the closing '}' (*|pp| past it), or
 * TC_EBADJSON if the text is not an object in the accepted form.
 */
int	tc_json_member(const char **pp, const char *e, int depth,
	    struct tc_json_span *m);

/*
 * The first half of tc_json_member(): the member's key only, leaving
 * *|pp| at its value, for a caller that reads the value itself and then
 * must find ',' or '}' after it.  m->val is NULL.
 */
int	tc_json_member_key(const char **pp, const char *e,
	    struct tc_json_span *m);

/*
 * Iterates the elements of the array at |*pp| in the same way: returns 1
 * with the element's bytes in |v|/|vlen|, 0 at the closing ']',
 * TC_EBADJSON on malformed text.
 */
int	tc_json_element(const char **pp, const char *e, int depth,
	    const char **v, size_t *vlen);

/* Returns 1 if |m|'s key is exactly |key| (written without escapes). */
int	tc_json_key_is(const struct tc_json_span *m, const char *key);

/* What tc_json_strict() reports besides validity. */
#define TC_JSON_NUL		0x1u	/* a string value holds U+0000 */
#define TC_JSON_NUL_NAME	0x2u	/* a member name holds U+0000 */
#define TC_JSON_NUL_SHALLOW	0x4u	/* so does a string value at most
					   two levels deep (the envelope's,
					   or params' own members') */
#define TC_JSON_LONE_SURROGATE	0x8u	/* refused only for an escaped
					   surrogate that is not half of a
					   pair: the text is RFC 8259 JSON */

/* The deepest nesting accepted: cJSON's own limit. */
#define TC_JSON_NEST		CJSON_NESTING_LIMIT

/*
 * Checks that the |n| bytes at |s| are exactly one JSON text as RFC 8259
 * defines it (white space around it allowed), before cJSON, which accepts
 * more, sees them: every escape (\u with four hex digits), number and
 * literal as the grammar says, no raw control character in a string, no
 * white space but space, tab, LF and CR.  Beyond RFC 8259 it refuses an
 * escaped surrogate that is not half of a pair, since the text must
 * decode to valid UTF-8, and nesting deeper than TC_JSON_NEST.  The bytes
 * themselves must be UTF-8, as RFC 8259 section 8.1 says: a string that
 * is not (an invalid, overlong, surrogate or cut sequence) is refused
 * here, whatever the caller checked before.  Sets *|flags| to the
 * TC_JSON_NUL* that apply, and to TC_JSON_LONE_SURROGATE when a lone
 * surrogate escape is all that is wrong.  Returns 0, or TC_EBADJSON if
 * the text is refused.
 */
int	tc_json_strict(const char *s, size_t n, unsigned *flags);

/*
 * Finds the raw text of the member at |path| (|n| keys from the top-level
 * object down) in JSON text that tc_json_strict() has accepted.  Member
 * names are compared as decoded, so "\u0069d" is "id".  Returns 0 and
 * sets *|start| and *|len|, or TC_ENOTFOUND.
 */
int	tc_json_raw_member(const char *text, size_t textlen,
	    const char *const *path, size_t n, const char **start, size_t *len);

/*
 * In text that tc_json_strict() has accepted: tc_json_skip_ws() returns
 * the first byte at or after |s| (before |e|) that is not white space;
 * tc_json_skip() the end of the value that starts there, after any white
 * space, or NULL if the text ends first.
 */
const char *tc_json_skip_ws(const char *s, const char *e);
const char *tc_json_skip(const char *s, const char *e);

/*
 * A skim of the top level of one JSON object, for a message that is not
 * parsed (over the size cap, or refused by tc_json_strict()), to find
 * its id and what kind of message it is.  It is fed the text in pieces
 * of any size, keeps nothing but the id's token (at most
 * TC_JSON_SKIM_IDMAX bytes) and a bit per level of nesting, and follows
 * the structure only: strings and brackets are tracked at every level,
 * but only the top level's names, colons and commas are checked; what
 * the values below hold is not.
 */
#define TC_JSON_SKIM_IDMAX	128	/* the longest id token kept */
#define TC_JSON_SKIM_KEYMAX	64	/* a name looked for fits, quotes
					   and all, with every character
					   escaped ("\u006d...") */

/* The top-level names tc_json_skim_end() reports. */
#define TC_JSON_SKIM_OBJECT	0x1u	/* the text was one object */
#define TC_JSON_SKIM_METHOD	0x2u	/* "method" */
#define TC_JSON_SKIM_RESULT	0x4u	/* "result" */
#define TC_JSON_SKIM_ERROR	0x8u	/* "error" */
#define TC_JSON_SKIM_ID		0x10u	/* "id", whatever its value */

struct tc_json_skim {
	int		 state;
	unsigned	 has;		/* TC_JSON_SKIM_* seen so far */
	size_t		 depth;		/* 1 inside the top-level object */
	unsigned char	 open[TC_JSON_NEST / 8 + 1];	/* '[' (1) or '{'
							   at each level */
	char		 key[TC_JSON_SKIM_KEYMAX];	/* the name being
							   read */
	size_t		 keylen;	/* beyond sizeof(key): too long */
	int		 in_id;		/* the value being read is the id */
	int		 nid;		/* members named "id" */
	char		 id[TC_JSON_SKIM_IDMAX];	/* the id's token */
	size_t		 idlen;		/* beyond sizeof(id): none usable */
};

void	tc_json_skim_init(struct tc_json_skim *k);
void	tc_json_skim_feed(struct tc_json_skim *k, const char *s, size_t n);

/*
 * Ends the skim: returns the TC_JSON_SKIM_* bits, or 0 if the text was
 * not one object (with white space around it) whose top level could be
 * followed to its end.  Sets *|id| and *|idlen| to the token of its id
 * (pointing into |k|) if it had one member named "id" (names decoded),
 * whose value is a string or a number as tc_json_strict() has them and
 * no longer than TC_JSON_SKIM_IDMAX bytes; else NULL and 0.
 */
unsigned tc_json_skim_end(struct tc_json_skim *k, const char **id,
	    size_t *idlen);

#endif /* TC_JSON_H */
