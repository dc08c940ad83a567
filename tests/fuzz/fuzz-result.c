/*
 * fuzz-result.c: the check of what a confined child sends back
 * (tc_result_check() in tools.c, over the scanner of json.c), held
 * against a reference made of the strict parser of tests/lib/strictjson.h
 * and the rules tools.h and json.h state, written out here on its tree:
 *
 *	- the text is UTF-8 and one JSON value in compact form (no white
 *	  space outside strings), nested at most TC_JSON_DEPTH deep;
 *	- it is an object whose members are content, structuredContent and
 *	  isError only, each at most once, content required;
 *	- content is a non-empty array of items: {type "text", text},
 *	  {type "image" or "audio", data (base64), mimeType}, or {type
 *	  "resource", resource {uri, mimeType?, blob (base64) or text}},
 *	  each member at most once and no other;
 *	- structuredContent is an object; isError is a boolean;
 *	- names and type values are compared as written: the writer never
 *	  escapes a letter, so "con\u0074ent" is no member it knows.
 *
 * The input is the child's text.  The check must accept exactly what the
 * reference accepts, and report what it says about isError and
 * structuredContent.truncated; what the reference refuses as valid JSON
 * breaking a rule, the check must refuse as TC_EINVAL (text that is not
 * JSON may be either).  An escape of an unpaired surrogate, which RFC 8259
 * leaves open, may go either way.  And where the strict parser accepts,
 * cJSON must too.
 */
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "protocol/tools.h"

#include "fuzz.h"
#include "strictjson.h"

/* Returns 1 if member |m|'s name is |name|, written without escapes. */
static int
named(const struct sj_node *m, const char *name)
{
	size_t n = strlen(name);

	return m->rawkeylen == n && memcmp(m->rawkey, name, n) == 0;
}

/*
 * Sets |v| (one slot per name of |names|) to the members of object |o|;
 * returns 0 if one is not among |names| or comes twice.
 */
static int
members(const struct sj_node *o, const char *const *names,
    const struct sj_node **v)
{
	const struct sj_node *m;
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		v[i] = NULL;
	if (o == NULL || o->type != SJ_OBJECT)
		return 0;
	for (m = o->child; m != NULL; m = m->next) {
		for (i = 0; names[i] != NULL; i++)
			if (named(m, names[i]))
				break;
		if (names[i] == NULL || v[i] != NULL)
			return 0;
		v[i] = m;
	}
	return 1;
}

/* Returns 1 if |v| is a string whose text, as written, is |s|. */
static int
written(const struct sj_node *v, const char *s)
{
	size_t n = strlen(s);

	return v != NULL && v->type == SJ_STRING && v->rawlen == n + 2 &&
	    memcmp(v->raw + 1, s, n) == 0;
}

static int
is_string(const struct sj_node *v)
{
	return v != NULL && v->type == SJ_STRING;
}

/* Returns 1 if |v| is a string of base64, as written. */
static int
base64(const struct sj_node *v)
{
	size_t n, i;
	char c;

	if (!is_string(v))
		return 0;
	n = v->rawlen - 2;
	if (n % 4 != 0)
		return 0;
	for (i = 0; i < n; i++) {
		c = v->raw[1 + i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '+' || c == '/' ||
		    (c == '=' && i >= n - 2)))
			return 0;
	}
	return 1;
}

static int
item_ok(const struct sj_node *it)
{
	static const char *const keys[] = { "type", "text", "data",
	    "mimeType", "resource", NULL };
	static const char *const body_keys[] = { "uri", "mimeType", "blob",
	    "text", NULL };
	const struct sj_node *v[5], *b[4];

	if (!members(it, keys, v) || !is_string(v[0]))
		return 0;
	if (written(v[0], "text"))
		return is_string(v[1]) && !v[2] && !v[3] && !v[4];
	if (written(v[0], "image") || written(v[0], "audio"))
		return base64(v[2]) && is_string(v[3]) && !v[1] && !v[4];
	if (written(v[0], "resource"))
		return !v[1] && !v[2] && !v[3] && members(v[4], body_keys, b) &&
		    is_string(b[0]) && (b[1] == NULL || is_string(b[1])) &&
		    (b[2] != NULL) != (b[3] != NULL) &&
		    (b[2] == NULL || base64(b[2])) &&
		    (b[3] == NULL || is_string(b[3]));
	return 0;
}

/* The reference: 0, TC_EINVAL or TC_EBADJSON, with |info| filled. */
static int
reference(const struct sj_doc *doc, int r, struct tc_result_info *info)
{
	static const char *const keys[] = { "content", "structuredContent",
	    "isError", NULL };
	const struct sj_node *v[3], *it, *m;

	memset(info, 0, sizeof(*info));
	if (r != SJ_VALID || doc->bom || doc->ws ||
	    doc->max_depth > TC_JSON_DEPTH)
		return TC_EBADJSON;
	if (!members(doc->root, keys, v) || v[0] == NULL ||
	    v[0]->type != SJ_ARRAY || v[0]->n == 0 ||
	    (v[1] != NULL && v[1]->type != SJ_OBJECT) ||
	    (v[2] != NULL && v[2]->type != SJ_TRUE &&
	    v[2]->type != SJ_FALSE))
		return TC_EINVAL;
	for (it = v[0]->child; it != NULL; it = it->next)
		if (!item_ok(it))
			return TC_EINVAL;
	info->is_error = v[2] != NULL && v[2]->type == SJ_TRUE;
	for (m = v[1] != NULL ? v[1]->child : NULL; m != NULL; m = m->next)
		if (named(m, "truncated") && m->type == SJ_TRUE)
			info->truncated = 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *end = NULL;
	struct tc_result_info got, want;
	struct tc_diag d = { "", 0 };
	struct sj_doc doc;
	cJSON *c;
	int r, rc, ref;

	r = sj_parse(&doc, text, size);
	rc = tc_result_check(text, size, &got, &d);
	ref = reference(&doc, r, &want);
	if (r == SJ_VALID && !doc.lone_surrogate && !doc.bom &&
	    doc.max_depth < 999 && doc.longest_number < 64) {
		/* cJSON takes all that the strict parser takes. */
		c = cJSON_ParseWithLengthOpts(text, size, &end, 0);
		while (end != NULL && end < text + size && (*end == ' ' ||
		    *end == '\t' || *end == '\n' || *end == '\r'))
			end++;
		FUZZ_CHECK(c != NULL && end == text + size, "cJSON refuses "
		    "JSON that the strict parser takes: '%.*s'", (int)size,
		    text);
		cJSON_Delete(c);
	}
	if (!(r == SJ_VALID && doc.lone_surrogate)) {
		FUZZ_CHECK((rc == 0) == (ref == 0), "tc_result_check says %d "
		    "(%s), the reference %d (%s at byte %zu): '%.*s'", rc,
		    rc ? d.msg : "", ref, doc.why ? doc.why : "a rule",
		    doc.at, (int)size, text);
		FUZZ_CHECK(ref != TC_EINVAL || rc == TC_EINVAL, "JSON that "
		    "breaks a rule was refused as %d (%s): '%.*s'", rc, d.msg,
		    (int)size, text);
		FUZZ_CHECK(rc != 0 || (got.is_error == want.is_error &&
		    got.truncated == want.truncated), "isError %d and "
		    "truncated %d, the reference %d and %d: '%.*s'",
		    got.is_error, got.truncated, want.is_error, want.truncated,
		    (int)size, text);
	}
	FUZZ_CHECK(rc == 0 || rc == TC_EINVAL || rc == TC_EBADJSON,
	    "tc_result_check returned %d", rc);
	sj_free(&doc);
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}
