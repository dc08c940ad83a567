/*
 * json.h: JSON text without building a tree.
 *
 * A child writes its result straight into one buffer (tc_json_put*), and
 * the server checks the text it receives with a strict scanner
 * (tc_json_scan) and passes it on as it came, so that a large answer is
 * neither rebuilt object by object nor printed a second time.  The scanner
 * accepts the subset of JSON that the writer produces: no whitespace
 * between tokens (a newline there would split a stdio message), strings
 * without raw control characters, numbers in RFC 8259 form, nesting at
 * most TC_JSON_DEPTH deep.  UTF-8 is checked separately (tc_utf8_valid).
 */
#ifndef TC_JSON_H
#define TC_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"

#define TC_JSON_DEPTH	512

/* Appends |v| as compact JSON.  Returns 0, TC_ETOOBIG or TC_ENOMEM. */
int	tc_json_put(struct tc_buf *b, const cJSON *v);

/* Appends |n| bytes of |s| as a JSON string, quoted and escaped. */
int	tc_json_put_string(struct tc_buf *b, const char *s, size_t n);

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
 * *|pp| moved past the member, 0 at the closing '}' (*|pp| past it), or -1
 * if the text is not an object in the accepted form.
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
 * with the element's bytes in |v|/|vlen|, 0 at the closing ']', -1 on
 * malformed text.
 */
int	tc_json_element(const char **pp, const char *e, int depth,
	    const char **v, size_t *vlen);

/* Returns 1 if |m|'s key is exactly |key| (written without escapes). */
int	tc_json_key_is(const struct tc_json_span *m, const char *key);

#endif /* TC_JSON_H */
