/*
 * audit-args.c: a call's arguments made fit for the audit log,
 * tc_audit_args(), and the cutting of over-long values, tc_audit_cut().
 *
 * Each argument is taken by the role its tool's table gives it.  A path
 * is kept as given: the log exists to say which files a call named, and a
 * path shaped like a token ("sk-.../../deploy.sh") must not hide that.
 * Contents are what may hold a secret: there, what looks like one is
 * redacted, by the member's name or by the string's shape, and long
 * strings are replaced by their length and SHA-256, so the log says which
 * value was passed without holding it.  The rules for contents err
 * towards redacting: a log that says too little is a smaller harm than
 * one that leaks a credential.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/json.h"
#include "base/text.h"
#include "protocol/tools.h"

#define REDACTED	"[redacted]"
#define TOO_DEEP	"[too deep]"

/* Member names that hold secrets: matched anywhere in the name, in any
 * case, with '-' read as '_' ("X-Api-Key", "DB_PASSWORD", "authToken"). */
static const char *const secret_names[] = {
	"api_key", "apikey", "authorization", "cookie", "credential",
	"passwd", "password", "private_key", "secret", "token",
};

/* Token prefixes and the token characters at least needed after them. */
struct token_prefix {
	const char	*prefix;
	size_t		 min;
	int		 nocase;
};

static const struct token_prefix token_prefixes[] = {
	{ "ghp_",	 20, 0 },	/* GitHub: personal access token */
	{ "gho_",	 20, 0 },	/* OAuth */
	{ "ghu_",	 20, 0 },	/* user-to-server */
	{ "ghs_",	 20, 0 },	/* server-to-server */
	{ "ghr_",	 20, 0 },	/* refresh */
	{ "github_pat_", 20, 0 },	/* fine-grained */
	{ "glpat-",	 20, 0 },	/* GitLab */
	{ "sk-",	 20, 0 },	/* OpenAI, Anthropic, Stripe-like */
	{ "xox",	 12, 0 },	/* Slack: xoxb-, xoxp-, ... */
	{ "Bearer ",	  8, 1 },	/* an HTTP credential */
};

/* Folds |c| for name matching: ASCII lower case, '-' as '_'. */
static int
fold(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 'a';
	return c == '-' ? '_' : c;
}

/* Returns 1 if |name| contains a secret name, folded. */
static int
secret_name(const char *name)
{
	const char *s;
	size_t i, k;

	for (k = 0; k < TC_NITEMS(secret_names); k++)
		for (s = name; *s != '\0'; s++) {
			for (i = 0; secret_names[k][i] != '\0' &&
			    fold((unsigned char)s[i]) == secret_names[k][i];
			    i++)
				continue;
			if (secret_names[k][i] == '\0')
				return 1;
		}
	return 0;
}

static int
is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* Characters of API tokens and RFC 6750 bearer credentials. */
static int
is_token_char(int c)
{
	return is_alnum(c) || c == '_' || c == '-' || c == '.' || c == '~' ||
	    c == '+' || c == '/' || c == '=';
}

/* Returns 1 if |s|, at a word start, begins a token with prefix |t|. */
static int
token_at(const char *s, const struct token_prefix *t)
{
	size_t n = strlen(t->prefix), i;

	if ((t->nocase ? strncasecmp(s, t->prefix, n) :
	    strncmp(s, t->prefix, n)) != 0)
		return 0;
	for (i = 0; is_token_char((unsigned char)s[n + i]); i++)
		continue;
	return i >= t->min;
}

/* Returns 1 if |s| begins an AWS access key id: AKIA or ASIA and 16
 * upper-case letters or digits, not followed by another letter or digit. */
static int
aws_key_at(const char *s)
{
	size_t i;

	if (strncmp(s, "AKIA", 4) != 0 && strncmp(s, "ASIA", 4) != 0)
		return 0;
	for (i = 4; i < 20; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' &&
		    s[i] <= '9')))
			return 0;
	return !is_alnum((unsigned char)s[20]);
}

/*
 * Returns 1 if the string |s| looks like, or holds, a secret: a PEM
 * private key, or a token at the start of a word (so that "--token=ghp_..."
 * and "Authorization: Bearer ..." inside a command line count too).
 */
static int
secret_value(const char *s)
{
	const char *p, *begin;
	size_t k;

	if ((begin = strstr(s, "-----BEGIN ")) != NULL &&
	    strstr(begin, "PRIVATE KEY") != NULL)
		return 1;
	for (p = s; *p != '\0'; p++) {
		if (p > s && (is_alnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		if (aws_key_at(p))
			return 1;
		for (k = 0; k < TC_NITEMS(token_prefixes); k++)
			if (token_at(p, &token_prefixes[k]))
				return 1;
	}
	return 0;
}

/* Returns {"length":N,"sha256":"<hex>"} for the |n| bytes at |p|. */
static cJSON *
digest_object(const char *p, size_t n)
{
	char hex[TC_AUDIT_HEX_LEN + 1];
	cJSON *o;

	tc_audit_digest(NULL, p, n, hex);
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddNumberToObject(o, "length", (double)n) == NULL ||
	    cJSON_AddStringToObject(o, "sha256", hex) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Returns the string |s| as it goes into the log. */
static cJSON *
copy_string(const char *s)
{
	size_t n = strlen(s);

	if (secret_value(s))
		return cJSON_CreateString(REDACTED);
	if (n > TC_AUDIT_STRING_MAX)
		return digest_object(s, n);
	return cJSON_CreateString(s);
}

/* How a value is copied: its depth, and the role its table gives it. */
struct role {
	int			 depth;
	int			 path;	/* a path, or an array of paths */
	int			 map;	/* a string map: its keys are data */
	const struct tc_arg	*table;	/* an object's members, if known */
};

static cJSON	*copy_value(const cJSON *, struct role);

/* Returns the entry of |table| for member |name|, or NULL. */
static const struct tc_arg *
find_arg(const struct tc_arg *table, const char *name)
{
	for (; table != NULL && table->name != NULL; table++)
		if (strcmp(table->name, name) == 0)
			return table;
	return NULL;
}

/* Adds the member |c| of an object, as it goes into the log, to |out|;
 * |r| is the object's own role. */
static int
add_member(cJSON *out, const cJSON *c, struct role r)
{
	char name[TC_AUDIT_HEX_LEN + 8];
	const struct tc_arg *a = r.map ? NULL : find_arg(r.table, c->string);
	struct role mr = { r.depth + 1, 0, 0, NULL };
	const char *key = c->string;
	cJSON *v;

	if (a != NULL) {
		mr.path = (a->flags & TC_ARG_PATH) != 0;
		mr.map = a->type == TC_ARG_STRING_MAP;
		mr.table = a->items;
	}
	/* A path is never redacted, whatever its member is called. */
	v = !mr.path && secret_name(key) ? cJSON_CreateString(REDACTED) :
	    copy_value(c, mr);
	if (v == NULL)
		return -1;
	/* A name is only kept whole up to the length of a kept string; a
	 * map's keys are the client's data (an environment's names), and
	 * one shaped like a secret is not kept either. */
	if (strlen(key) > TC_AUDIT_STRING_MAX ||
	    (r.map && secret_value(key))) {
		memcpy(name, "sha256:", 7);
		tc_audit_digest(NULL, key, strlen(key), name + 7);
		key = name;
	}
	if (!cJSON_AddItemToObject(out, key, v)) {
		cJSON_Delete(v);
		return -1;
	}
	return 0;
}

/* Returns the array or object |v| as it goes into the log.  The items of
 * an array take the array's role (paths, or objects of its table). */
static cJSON *
copy_container(const cJSON *v, struct role r)
{
	struct role ir = { r.depth + 1, r.path, 0, r.table };
	const cJSON *c;
	cJSON *out, *item;

	out = cJSON_IsArray(v) ? cJSON_CreateArray() : cJSON_CreateObject();
	if (out == NULL)
		return NULL;
	cJSON_ArrayForEach(c, v) {
		if (cJSON_IsObject(v)) {
			if (add_member(out, c, r) != 0)
				goto fail;
			continue;
		}
		if ((item = copy_value(c, ir)) == NULL)
			goto fail;
		if (!cJSON_AddItemToArray(out, item)) {
			cJSON_Delete(item);
			goto fail;
		}
	}
	return out;
fail:
	cJSON_Delete(out);
	return NULL;
}

/* Returns the value |v| as it goes into the log. */
static cJSON *
copy_value(const cJSON *v, struct role r)
{
	char num[TC_JSON_NUMBER_MAX];

	if (r.depth > TC_AUDIT_DEPTH_MAX)
		return cJSON_CreateString(TOO_DEEP);
	if (cJSON_IsString(v))
		return r.path ? cJSON_CreateString(v->valuestring) :
		    copy_string(v->valuestring);
	if (cJSON_IsObject(v) && r.path)
		r.path = 0;	/* not a path, whatever the table says */
	if (cJSON_IsArray(v) || cJSON_IsObject(v))
		return copy_container(v, r);
	/* A number as the call carried it: cJSON would print 15 digits
	 * (an SQL parameter 9007199254740991 as 9.00719925474099e+15). */
	if (cJSON_IsNumber(v))
		return cJSON_CreateRaw(tc_json_number(num, v->valuedouble));
	return cJSON_Duplicate(v, 0);
}

cJSON *
tc_audit_args(const cJSON *args, const struct tc_arg *table)
{
	struct role r = { 1, 0, 0, table };
	cJSON *copy, *o;
	char *s;

	if (args == NULL)
		return cJSON_CreateObject();
	if ((copy = copy_value(args, r)) == NULL)
		return NULL;
	if ((s = cJSON_PrintUnformatted(copy)) == NULL) {
		cJSON_Delete(copy);
		return NULL;
	}
	/* Digested after redaction, so no secret goes into the digest. */
	if (strlen(s) > TC_AUDIT_ARGS_MAX) {
		o = digest_object(s, strlen(s));
		cJSON_Delete(copy);
		copy = o;
	}
	cJSON_free(s);
	return copy;
}

/* --- Cutting over-long values --- */

struct cutter {
	cJSON		*cut;		/* the record's "cut" member */
	cJSON		*rec;
	size_t		 max_string, max_items;
	char		 ptr[1024];	/* JSON Pointer to the value */
	int		 nomem;
};

/* Notes that the value at c->ptr was |len| long, unless an earlier cut
 * noted it already (its length before any cut). */
static void
note_cut(struct cutter *c, size_t len)
{
	if (c->cut == NULL &&
	    (c->cut = cJSON_GetObjectItemCaseSensitive(c->rec, "cut")) ==
	    NULL && (c->cut = cJSON_AddObjectToObject(c->rec, "cut")) ==
	    NULL) {
		c->nomem = 1;
		return;
	}
	if (cJSON_GetObjectItemCaseSensitive(c->cut, c->ptr) == NULL &&
	    cJSON_AddNumberToObject(c->cut, c->ptr, (double)len) == NULL)
		c->nomem = 1;
}

/* Appends "/" and |token| (escaped: '~' as "~0", '/' as "~1") to c->ptr;
 * returns its length before, to restore it.  A pointer too long for the
 * buffer is cut, on a character boundary. */
static size_t
ptr_push(struct cutter *c, const char *token)
{
	size_t n = strlen(c->ptr), o = n;
	const char *t;

	if (o + 1 < sizeof(c->ptr))
		c->ptr[o++] = '/';
	for (t = token; *t != '\0' && o + 2 < sizeof(c->ptr); t++) {
		if (*t == '~' || *t == '/') {
			c->ptr[o++] = '~';
			c->ptr[o++] = *t == '~' ? '0' : '1';
		} else
			c->ptr[o++] = *t;
	}
	o = n + tc_utf8_cut(c->ptr + n, o - n, o - n);
	c->ptr[o] = '\0';
	return n;
}

static void
cut_value(struct cutter *c, cJSON *v)
{
	size_t len, keep, n, i;
	cJSON *it, *next;
	char idx[24];
	char *s;

	if (cJSON_IsString(v) && (len = strlen(v->valuestring)) >
	    c->max_string) {
		keep = tc_utf8_cut(v->valuestring, len, c->max_string);
		if ((s = malloc(keep + TC_TEXT_CUT_LEN + 1)) == NULL) {
			c->nomem = 1;
			return;
		}
		memcpy(s, v->valuestring, keep);
		memcpy(s + keep, TC_TEXT_CUT, TC_TEXT_CUT_LEN + 1);
		/* Cut again by a later, harder pass, it keeps the length
		 * it had before the first (note_cut()). */
		note_cut(c, len);
		if (cJSON_SetValuestring(v, s) == NULL)
			c->nomem = 1;
		free(s);
		return;
	}
	if (cJSON_IsArray(v) && (n = (size_t)cJSON_GetArraySize(v)) >
	    c->max_items) {
		note_cut(c, n);
		it = cJSON_GetArrayItem(v, (int)c->max_items);
		for (; it != NULL; it = next) {
			next = it->next;
			cJSON_Delete(cJSON_DetachItemViaPointer(v, it));
		}
	}
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return;
	i = 0;
	cJSON_ArrayForEach(it, v) {
		if (c->nomem)
			return;
		if (cJSON_IsObject(v) && v == c->rec && it == c->cut)
			continue;
		if (cJSON_IsObject(v))
			n = ptr_push(c, it->string);
		else {
			snprintf(idx, sizeof(idx), "%zu", i++);
			n = ptr_push(c, idx);
		}
		cut_value(c, it);
		c->ptr[n] = '\0';
	}
}

int
tc_audit_cut(cJSON *rec, size_t max_string, size_t max_items)
{
	struct cutter c;

	if (!cJSON_IsObject(rec))
		return TC_EINVAL;
	memset(&c, 0, sizeof(c));
	c.rec = rec;
	c.cut = cJSON_GetObjectItemCaseSensitive(rec, "cut");
	c.max_string = max_string;
	c.max_items = max_items;
	cut_value(&c, rec);
	return c.nomem ? TC_ENOMEM : 0;
}
