/*
 * consent.c: asking a person before a call runs.
 *
 * A call that a consent rule covers waits, before anything is forked for
 * it, on the server's "asking" list while the policy's means are tried in
 * order: an MCP elicitation/create request when the client declared the
 * elicitation capability, the consent hook when the policy names one.  The
 * first means available asks; its answer settles the call, and only an
 * explicit yes admits it.  A means that is not available (no capability,
 * no hook, the client answering the request with an error) passes to the
 * next; when none is left, the call is denied.  The serving loop goes on
 * meanwhile: pings, cancellations and other calls are served.
 *
 * "Allow for this session" is remembered in memory, per tool and rule, for
 * the life of the process, and the audit log records it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "policy/glob.h"
#include "base/json.h"
#include "base/log.h"
#include "serve/server-int.h"
#include "base/text.h"

#define PATH_BIT	(1u << TC_SUBJECT_PATH)

const char *
tc_consent_rule_str(const struct tc_consent_rule *rule, char *buf,
    size_t len)
{
	size_t n, i, v;
	int g;

	n = tc_text_fmt(buf, len, "consent %s", rule->tool);
	for (i = 0; i < rule->npatterns && n < len; i++)
		n += tc_text_fmt(buf + n, len - n, " %s",
		    rule->patterns[i]);
	for (g = TC_SUBJECT_PATH + 1, v = 0; g < TC_SUBJECT_NKINDS; g++)
		for (i = 0; i < rule->nvalues[g] && n < len; i++, v++)
			n += tc_text_fmt(buf + n, len - n, "%s%s %s", i == 0 ?
			    " " : "", i == 0 ? tc_subject_kind_name(g) : "",
			    rule->values[v]);
	if (n < len)
		tc_text_fmt(buf + n, len - n, " (line %d)", rule->line);
	return buf;
}

const struct tc_consent_rule *
tc_consent_rule(const struct srv *s, const struct call *c)
{
	const struct tc_consent_rule *r;
	size_t i;

	for (i = 0; i < s->pol.nconsent; i++) {
		r = &s->pol.consent[i];
		if (strcmp(r->tool, "*") != 0 &&
		    strcmp(r->tool, tc_tool_policy_name(c->call.tool)) != 0)
			continue;
		/* The subjects were matched as they were collected, paths
		 * in every spelling (admission.c). */
		if (tc_consent_rule_applies(r, c->consent_hit != NULL ?
		    c->consent_hit[i] : 0))
			return r;
	}
	return NULL;
}

int
tc_consent_scope(struct srv *s, struct call *c)
{
	const struct tc_consent_rule *r;
	const char *tool = tc_tool_policy_name(c->call.tool);
	size_t i, n = 0;
	unsigned hit;

	/* Admitted with c->consent set: asked and allowed, or allowed for
	 * the session. */
	c->call.pinned = c->consent != NULL;
	c->call.pins = c->pins;
	c->call.npins = c->npins;
	if (s->pol.nconsent == 0)
		return 0;
	free(c->unconsented);
	if ((c->unconsented = calloc(s->pol.nconsent,
	    sizeof(*c->unconsented))) == NULL)
		return -1;
	for (i = 0; i < s->pol.nconsent; i++) {
		r = &s->pol.consent[i];
		hit = c->consent_hit != NULL ? c->consent_hit[i] : 0;
		if (r->npatterns == 0 || (strcmp(r->tool, "*") != 0 &&
		    strcmp(r->tool, tool) != 0))
			continue;
		/* A rule that matched a path of the call was asked about:
		 * the call would not be admitted otherwise.  One whose other
		 * kinds did not all match cannot apply to the call, whatever
		 * paths its child reaches. */
		if ((hit & PATH_BIT) || !tc_consent_rule_applies(r,
		    hit | PATH_BIT) || tc_consent_remembered(s, c, r))
			continue;
		c->unconsented[n++] = i;
	}
	c->call.unconsented = c->unconsented;
	c->call.nunconsented = n;
	return 0;
}

int
tc_consent_remembered(const struct srv *s, const struct call *c,
    const struct tc_consent_rule *rule)
{
	const struct allowance *a;

	for (a = s->allowed; a != NULL; a = a->next)
		if (a->rule == rule && strcmp(a->tool,
		    tc_tool_policy_name(c->call.tool)) == 0)
			return 1;
	return 0;
}

/* Remembers a session-long yes for |c|'s tool under its rule. */
static void
remember(struct srv *s, const struct call *c)
{
	struct allowance *a;

	if (tc_consent_remembered(s, c, c->consent->rule))
		return;
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		tc_warn("out of memory: 'allow for this session' is not "
		    "remembered");
		return;
	}
	/* Static: the tool table's; an alias's yes is its tool's. */
	a->tool = tc_tool_policy_name(c->call.tool);
	a->rule = c->consent->rule;
	a->next = s->allowed;
	s->allowed = a;
}

/* Takes |c| off the asking list. */
static void
unlist(struct srv *s, struct call *c)
{
	struct call **cp;

	for (cp = &s->asking; *cp != NULL; cp = &(*cp)->next)
		if (*cp == c) {
			*cp = c->next;
			c->next = NULL;
			s->nasking--;
			return;
		}
}

/* Takes |c| off the asking list, its hook killed if it runs. */
static void
stop_asking(struct srv *s, struct call *c)
{
	struct consent *k = c->consent;

	unlist(s, c);
	if (k->hook_running) {
		tc_hook_kill(&k->hook);
		k->hook_running = 0;
	}
	tc_hook_release(&k->hook);
}

/* Ends the asking: puts |c| on s->settled, allowed, or to be refused with
 * |why| (its record written). */
static void
settle(struct srv *s, struct call *c, int allowed, const char *why)
{
	struct consent *k = c->consent;
	struct tc_diag d = { "", 0 };
	char rule[256];

	stop_asking(s, c);
	if (k->elicit_id >= 0) {
		tc_proto_forget(&s->proto, k->elicit_id);
		k->elicit_id = -1;
	}
	tc_debug("call %s: consent %s by %s%s%s", c->call.tool->name,
	    k->answer, k->means, k->detail[0] ? ": " : "", k->detail);
	k->refusal[0] = '\0';
	if (allowed) {
		if (strcmp(k->answer, "allow-session") == 0)
			remember(s, c);
	} else {
		tc_consent_rule_str(k->rule, rule, sizeof(rule));
		if (tc_record_call(s, c, "denied", "consent", rule, why,
		    &d) != 0)
			tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
		tc_text_fmt(k->refusal, sizeof(k->refusal), "The call was not "
		    "run: %s. (Policy rule '%s' asks a person before this "
		    "call.)", why, rule);
	}
	c->next = NULL;
	*s->settled_tail = c;
	s->settled_tail = &c->next;
}

struct call *
tc_consent_take(struct srv *s, const char **refusal)
{
	struct call *c;

	if ((c = s->settled) == NULL)
		return NULL;
	if ((s->settled = c->next) == NULL)
		s->settled_tail = &s->settled;
	c->next = NULL;
	*refusal = c->consent->refusal[0] != '\0' ? c->consent->refusal :
	    NULL;
	return c;
}

static void	ask_next(struct srv *s, struct call *c);

/* Takes the elicitation request for |c| down, if one is out: the client
 * is told to close its question, and its answer will be ignored. */
static void
withdraw(struct srv *s, struct consent *k, const char *why)
{
	cJSON *p;

	if (k->elicit_id < 0)
		return;
	if ((p = cJSON_CreateObject()) != NULL) {
		cJSON_AddNumberToObject(p, "requestId", (double)k->elicit_id);
		cJSON_AddStringToObject(p, "reason", why);
		tc_proto_notify(&s->proto, "notifications/cancelled", p);
	}
	tc_proto_forget(&s->proto, k->elicit_id);
	k->elicit_id = -1;
}

/* --- Elicitation --- */

/* Handles the client's answer to the elicitation request for a call. */
static void
on_elicit(void *ctx, const cJSON *result, const cJSON *error)
{
	struct call *c = ctx;
	struct srv *s = c->srv;
	struct consent *k = c->consent;
	const cJSON *action, *content, *allow, *remember_it, *msg;
	char why[320];

	k->elicit_id = -1;		/* answered: nothing to forget */
	k->means = "elicitation";
	if (result == NULL) {
		/* An error answer: the client could not ask.  Try the next
		 * means, as if it had none. */
		msg = cJSON_GetObjectItemCaseSensitive(error, "message");
		tc_text_fmt(k->detail, sizeof(k->detail),
		    "the client could not "
		    "ask: %s", cJSON_IsString(msg) ? msg->valuestring :
		    "an error");
		tc_debug("call %s: %s", c->call.tool->name, k->detail);
		ask_next(s, c);
		return;
	}
	action = cJSON_GetObjectItemCaseSensitive(result, "action");
	content = cJSON_GetObjectItemCaseSensitive(result, "content");
	allow = cJSON_GetObjectItemCaseSensitive(content, "allow");
	remember_it = cJSON_GetObjectItemCaseSensitive(content, "session");
	if (cJSON_IsString(action) &&
	    strcmp(action->valuestring, "accept") == 0 && cJSON_IsTrue(allow)) {
		k->answer = cJSON_IsTrue(remember_it) ? "allow-session" :
		    "allow";
		settle(s, c, 1, NULL);
		return;
	}
	if (cJSON_IsString(action) &&
	    strcmp(action->valuestring, "accept") == 0) {
		k->answer = "deny";
		snprintf(why, sizeof(why), "the user answered no");
	} else if (cJSON_IsString(action) &&
	    strcmp(action->valuestring, "decline") == 0) {
		k->answer = "decline";
		snprintf(why, sizeof(why), "the user declined it");
	} else if (cJSON_IsString(action) &&
	    strcmp(action->valuestring, "cancel") == 0) {
		k->answer = "cancel";
		snprintf(why, sizeof(why), "the user dismissed the request "
		    "for consent, which counts as no");
	} else {
		k->answer = "error";
		snprintf(why, sizeof(why), "the client's answer to the request "
		    "for consent was not understood, which counts as no");
	}
	settle(s, c, 0, why);
}

/* The most paths a question names, and the most bytes of each. */
#define ASK_PATHS	4
#define ASK_PATH_BYTES	160

/*
 * Returns the code point of the UTF-8 sequence at |p| (|n| bytes left) and
 * its length in *|len|, or -1 with *|len| 1 for a byte that starts no
 * valid sequence.
 */
static long
utf8_next(const unsigned char *p, size_t n, size_t *len)
{
	static const long min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t k, i;
	long cp;

	*len = 1;
	if (p[0] < 0x80)
		return p[0];
	k = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 && p[0] < 0xf0 ?
	    3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
	if (k == 0 || k > n)
		return -1;
	cp = p[0] & (0x7f >> k);
	for (i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = k;
	return cp;
}

/*
 * Appends |str| to |b| in quotes, at most |max| bytes of it.  The
 * characters text.h shows escaped (controls, format characters such as
 * the marks that reorder text, line and paragraph separators) and bytes
 * that are not UTF-8 are shown as '?', and a quote as \",
 * so that a file name the model chose cannot pass for the server's words.
 */
static void
put_quoted(struct tc_buf *b, const char *str, size_t max)
{
	const unsigned char *p = (const unsigned char *)str;
	size_t n = strlen(str), used = 0, len;
	long cp;

	tc_buf_append_str(b, "\"");
	while (n > 0) {
		cp = utf8_next(p, n, &len);
		if (used + len > max) {
			tc_buf_append_str(b, "...");
			break;
		}
		if (cp < 0 || tc_text_hidden((uint32_t)cp))
			tc_buf_append_str(b, "?");
		else if (cp == '"' || cp == '\\') {
			tc_buf_append_str(b, "\\");
			tc_buf_append(b, p, 1);
		} else
			tc_buf_append(b, p, len);
		used += len;
		p += len;
		n -= len;
	}
	tc_buf_append_str(b, "\"");
}

/* The most arguments, variables and databases a question names. */
#define ASK_ARGS	8
#define ASK_NAMES	4

/*
 * Appends the values of |c|'s subjects of |kind|, each quoted and bounded,
 * after |first|, separated by |sep|, at most |max| of them, then "and N
 * more |more|".  Returns how many there are.
 */
static size_t
put_values(struct tc_buf *b, const struct call *c, enum tc_subject_kind kind,
    const char *first, const char *sep, size_t max, const char *more)
{
	const struct tc_subjects *sj = &c->subjects;
	size_t i, n = 0;

	for (i = 0; i < sj->n; i++) {
		if (sj->v[i].kind != kind)
			continue;
		if (n < max) {
			tc_buf_append_str(b, n == 0 ? first : sep);
			put_quoted(b, sj->v[i].value, ASK_PATH_BYTES);
		}
		n++;
	}
	if (n > max)
		tc_buf_printf(b, " and %zu more %s", n - max, more);
	return n;
}

/* Appends what the statements of |c| do, in words: "read and change
 * data"; returns 0 if it has none. */
static int
put_statements(struct tc_buf *b, const struct call *c)
{
	static const char *const kinds[][2] = {
		{ "read", "read data" },
		{ "write", "change data" },
		{ "schema", "change the schema" },
	};
	const struct tc_subjects *sj = &c->subjects;
	size_t i, k;
	int n = 0;

	for (k = 0; k < TC_NITEMS(kinds); k++)
		for (i = 0; i < sj->n; i++)
			if (sj->v[i].kind == TC_SUBJECT_STATEMENT &&
			    strcmp(sj->v[i].value, kinds[k][0]) == 0) {
				tc_buf_printf(b, "%s%s", n++ ? " and " : "",
				    kinds[k][1]);
				break;
			}
	return n;
}

/*
 * Describes the call for a person, into |b|: who asks, for which tool, on
 * which paths, and what else it acts on: the program it runs with its
 * arguments, where, and the variables it sets; what its statements do,
 * in which database (each value quoted and bounded: the model chose
 * them); and the server that asks.
 */
static void
describe(const struct srv *s, const struct call *c, struct tc_buf *b)
{
	const struct tc_subjects *sj = &c->subjects;
	const char *sep = ": ";
	size_t i;

	if (s->proto.client_name != NULL) {
		tc_buf_append_str(b, "The client ");
		put_quoted(b, s->proto.client_name, 64);
	} else
		tc_buf_append_str(b, "The client");
	tc_buf_printf(b, " wants to run the tool '%s'", c->call.tool->name);
	for (i = 0; i < c->npaths && i < ASK_PATHS; i++) {
		tc_buf_append_str(b, i ? ", " : " on ");
		put_quoted(b, c->abs[i], ASK_PATH_BYTES);
	}
	if (c->npaths > ASK_PATHS)
		tc_buf_printf(b, " and %zu more paths", c->npaths - ASK_PATHS);
	for (i = 0; i < sj->n; i++)
		if (sj->v[i].kind == TC_SUBJECT_PROGRAM) {
			tc_buf_printf(b, "%srun ", sep);
			put_quoted(b, sj->v[i].value, ASK_PATH_BYTES);
			sep = ", ";
		}
	put_values(b, c, TC_SUBJECT_ARG, " with arguments ", " ", ASK_ARGS,
	    "arguments");
	put_values(b, c, TC_SUBJECT_CWD, " in ", ", ", ASK_NAMES,
	    "directories");
	put_values(b, c, TC_SUBJECT_ENV, ", setting ", ", ", ASK_NAMES,
	    "variables");
	if (tc_subjects_count(sj, TC_SUBJECT_STATEMENT) > 0) {
		tc_buf_append_str(b, sep);
		put_statements(b, c);
		put_values(b, c, TC_SUBJECT_DATABASE, " in the database ",
		    ", ", ASK_NAMES, "databases");
	} else
		put_values(b, c, TC_SUBJECT_DATABASE, strcmp(sep, ": ") == 0 ?
		    ": use the database " : ", using the database ", ", ",
		    ASK_NAMES, "databases");
	tc_buf_printf(b, ". Allow it? (asked by %s)", s->def->name);
}

/* Sends the elicitation request; returns 0, or -1 if it could not. */
static int
elicit(struct srv *s, struct call *c)
{
	struct consent *k = c->consent;
	cJSON *params, *schema, *props, *p, *req;
	struct tc_buf msg;

	tc_buf_init(&msg, 4096);
	describe(s, c, &msg);
	if (msg.data == NULL || (params = cJSON_CreateObject()) == NULL) {
		tc_buf_release(&msg);
		return -1;
	}
	cJSON_AddStringToObject(params, "message", msg.data);
	tc_buf_release(&msg);
	schema = cJSON_AddObjectToObject(params, "requestedSchema");
	cJSON_AddStringToObject(schema, "type", "object");
	props = cJSON_AddObjectToObject(schema, "properties");
	p = cJSON_AddObjectToObject(props, "allow");
	cJSON_AddStringToObject(p, "type", "boolean");
	cJSON_AddStringToObject(p, "title", "Allow this call");
	cJSON_AddBoolToObject(p, "default", 0);
	p = cJSON_AddObjectToObject(props, "session");
	cJSON_AddStringToObject(p, "type", "boolean");
	cJSON_AddStringToObject(p, "title", "Also allow such calls for the "
	    "rest of this session");
	cJSON_AddBoolToObject(p, "default", 0);
	req = cJSON_AddArrayToObject(schema, "required");
	cJSON_AddItemToArray(req, cJSON_CreateString("allow"));
	if (p == NULL || req == NULL) {
		cJSON_Delete(params);
		return -1;
	}
	k->elicit_id = tc_proto_request(&s->proto, "elicitation/create",
	    params, on_elicit, c);
	return k->elicit_id < 0 ? -1 : 0;
}

/* --- The hook --- */

/* Returns the text of |o|, which it deletes, or NULL. */
static char *
print_free(cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);

	cJSON_Delete(o);
	return text;
}

/*
 * Returns the text of the objects |head| and |tail| joined into one, with
 * the call's arguments |args| between them, written with tc_json_put():
 * cJSON prints 15 digits, and a hook would read 9007199254740991 as
 * ...990.  Frees |head| and |tail|.  NULL when out of memory.
 */
static char *
join_arguments(char *head, const cJSON *args, char *tail)
{
	struct tc_buf b;
	size_t nh = head != NULL ? strlen(head) : 0;
	size_t nt = tail != NULL ? strlen(tail) : 0;
	int rc;

	tc_buf_init(&b, UINT32_MAX);
	rc = nh < 2 || nt < 2 || head[nh - 1] != '}' || tail[0] != '{' ||
	    tc_buf_append(&b, head, nh - 1) != 0 ||
	    tc_buf_append_str(&b, nh > 2 ? ",\"arguments\":" :
	    "\"arguments\":") != 0 ||
	    (args == NULL ? tc_buf_append_str(&b, "{}") :
	    tc_json_put(&b, args)) != 0 ||
	    (nt > 2 && tc_buf_append_str(&b, ",") != 0) ||
	    tc_buf_append(&b, tail + 1, nt - 1) != 0;
	free(head);
	free(tail);
	if (rc) {
		tc_buf_release(&b);
		return NULL;
	}
	return tc_buf_steal(&b);
}

/* Returns the JSON document the hook reads, or NULL. */
static char *
hook_input(const struct srv *s, const struct call *c)
{
	const struct tc_tool *t = c->call.tool;
	cJSON *h, *o, *a, *cl, *paths, *subjects;
	char rule[256], *head;
	size_t i;

	/* What comes before the arguments, and what after. */
	if ((h = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(h, "server", s->def->name);
	cJSON_AddStringToObject(h, "tool", t->name);
	if (tc_tool_alias_of(t) != NULL)
		cJSON_AddStringToObject(h, "alias_of", tc_tool_alias_of(t));
	head = cJSON_PrintUnformatted(h);
	cJSON_Delete(h);
	if (head == NULL || (o = cJSON_CreateObject()) == NULL) {
		free(head);
		return NULL;
	}
	a = cJSON_AddObjectToObject(o, "annotations");
	cJSON_AddBoolToObject(a, "readOnlyHint", !!(t->flags &
	    TC_TOOL_READONLY));
	cJSON_AddBoolToObject(a, "destructiveHint", !!(t->flags &
	    TC_TOOL_DESTRUCTIVE));
	cJSON_AddBoolToObject(a, "idempotentHint", !!(t->flags &
	    TC_TOOL_IDEMPOTENT));
	cJSON_AddBoolToObject(a, "openWorldHint", !!(t->flags &
	    TC_TOOL_OPEN_WORLD));
	cJSON_AddStringToObject(o, "rule",
	    tc_consent_rule_str(c->consent->rule, rule, sizeof(rule)));
	cl = cJSON_AddObjectToObject(o, "client");
	if (s->proto.client_name != NULL)
		cJSON_AddStringToObject(cl, "name", s->proto.client_name);
	if (s->proto.client_version != NULL)
		cJSON_AddStringToObject(cl, "version",
		    s->proto.client_version);
	paths = cJSON_AddArrayToObject(o, "paths");
	for (i = 0; i < c->npaths; i++)
		cJSON_AddItemToArray(paths, cJSON_CreateString(c->abs[i]));
	if ((subjects = tc_subjects_json(&c->subjects)) == NULL ||
	    !cJSON_AddItemToObject(o, "subjects", subjects)) {
		cJSON_Delete(subjects);
		cJSON_Delete(o);
		free(head);
		return NULL;
	}
	return join_arguments(head, c->call.args, print_free(o));
}

/* Starts the hook; returns 0, or -1 after settling the call (a hook that
 * cannot be started denies, like one that fails). */
static int
run_hook(struct srv *s, struct call *c)
{
	struct consent *k = c->consent;
	struct tc_diag d = { "", 0 };
	char *in, why[400];

	k->means = "hook";
	if ((in = hook_input(s, c)) == NULL) {
		k->answer = "error";
		settle(s, c, 0, "out of memory while asking for consent");
		return -1;
	}
	/* Run from the file opened and checked at start (own.h). */
	if (tc_hook_start_fd(&k->hook, s->pol.consent_hook_fd,
	    s->pol.consent_hook_script, s->pol.consent_hook, in, strlen(in),
	    s->pol.consent_timeout_ms, &d) != 0) {
		free(in);
		k->answer = "error";
		tc_text_fmt(k->detail, sizeof(k->detail), "%s", d.msg);
		tc_text_fmt(why, sizeof(why),
		    "the consent hook could not be run "
		    "(%s), which counts as no", d.msg);
		settle(s, c, 0, why);
		return -1;
	}
	free(in);
	k->hook_running = 1;
	return 0;
}

/* Settles |c| with its hook's answer. */
static void
hook_done(struct srv *s, struct call *c)
{
	struct consent *k = c->consent;
	struct tc_hook *h = &k->hook;
	char why[400];

	k->hook_running = 0;
	tc_text_fmt(k->detail, sizeof(k->detail), "%s", h->reason[0] ?
	    h->reason : h->why);
	switch (h->answer) {
	case TC_HOOK_ALLOW:
		k->answer = "allow";
		settle(s, c, 1, NULL);
		return;
	case TC_HOOK_ALLOW_SESSION:
		k->answer = "allow-session";
		settle(s, c, 1, NULL);
		return;
	case TC_HOOK_DENY:
		k->answer = "deny";
		break;
	case TC_HOOK_FAILED:
		k->answer = h->failure == TC_HOOK_FAIL_TIMEOUT ? "timeout" :
		    "error";
		tc_text_fmt(k->detail, sizeof(k->detail), "%s", h->why);
		break;
	}
	/* h->why is a whole sentence: who decided, how, and the reason. */
	tc_text_fmt(why, sizeof(why), "%s%s", h->why,
	    h->answer == TC_HOOK_FAILED ? ", which counts as no" : "");
	settle(s, c, 0, why);
}

/* --- Asking --- */

/* Tries the policy's means from k->next on; denies when none is left. */
static void
ask_next(struct srv *s, struct call *c)
{
	struct consent *k = c->consent;
	enum tc_consent_means m;
	char why[512];

	while (k->next < s->pol.nconsent_by) {
		m = s->pol.consent_by[k->next++];
		if (m == TC_CONSENT_ELICIT) {
			if (!tc_proto_client_has(&s->proto, "elicitation"))
				continue;
			if (elicit(s, c) == 0) {
				k->means = "elicitation";
				k->deadline_ms = tc_now_ms() +
				    s->pol.consent_timeout_ms;
				return;
			}
			tc_text_fmt(k->detail, sizeof(k->detail), "the "
			    "elicitation request could not be sent");
			continue;
		}
		if (m == TC_CONSENT_HOOK && s->pol.consent_hook != NULL) {
			k->deadline_ms = -1;	/* the hook has its own */
			run_hook(s, c);
			return;
		}
	}
	k->means = "none";
	k->answer = "deny";
	if (k->detail[0] != '\0')
		tc_text_fmt(why, sizeof(why),
		    "nobody could be asked for consent "
		    "(%s), so it is denied", k->detail);
	else
		tc_text_fmt(why, sizeof(why),
		    "nobody could be asked for consent "
		    "(the client does not support elicitation%s), so it is "
		    "denied", s->pol.consent_hook == NULL ? " and the policy "
		    "names no consent-hook" : "");
	settle(s, c, 0, why);
}

int
tc_consent_ask(struct srv *s, struct call *c,
    const struct tc_consent_rule *rule)
{
	struct consent *k;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		return -1;
	k->rule = rule;
	k->elicit_id = -1;
	k->deadline_ms = -1;
	tc_hook_init(&k->hook);
	c->consent = k;
	c->next = s->asking;
	s->asking = c;
	s->nasking++;
	ask_next(s, c);
	return 0;
}

int
tc_consent_pollfds(const struct call *c, struct pollfd *pfd)
{
	if (c->consent == NULL || !c->consent->hook_running)
		return 0;
	return tc_hook_pollfds(&c->consent->hook, pfd);
}

void
tc_consent_step(struct srv *s, struct call *c, const struct pollfd *pfd,
    int npfd, int64_t now_ms)
{
	struct consent *k = c->consent;
	char why[160];

	if (k->hook_running) {
		if (tc_hook_step(&k->hook, pfd, npfd, now_ms))
			hook_done(s, c);
		return;
	}
	if (k->elicit_id >= 0 && k->deadline_ms >= 0 &&
	    now_ms >= k->deadline_ms) {
		withdraw(s, k, "no answer in time");
		k->answer = "timeout";
		tc_text_fmt(why, sizeof(why), "no answer to the request for "
		    "consent within %d s, which counts as no",
		    s->pol.consent_timeout_ms / 1000);
		settle(s, c, 0, why);
	}
}

int64_t
tc_consent_next_deadline(const struct srv *s)
{
	const struct call *c;
	int64_t t, best = -1;

	for (c = s->asking; c != NULL; c = c->next) {
		if (c->consent->hook_running)
			t = c->consent->hook.deadline_ms;
		else
			t = c->consent->deadline_ms;
		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

void
tc_consent_give_up(struct srv *s, struct call *c, const char *answer,
    const char *why)
{
	struct consent *k = c->consent;

	withdraw(s, k, why);
	k->answer = answer;
	settle(s, c, 0, why);
}

void
tc_consent_abandon(struct srv *s, struct call *c, const char *why)
{
	struct consent *k = c->consent;
	struct tc_diag d = { "", 0 };
	char rule[256];

	stop_asking(s, c);
	withdraw(s, k, why);
	k->answer = "cancel";
	tc_consent_rule_str(k->rule, rule, sizeof(rule));
	if (tc_record_call(s, c, "cancelled", "client", rule, why, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
}

/* The kinds of subject a call of |t| can have: path if it takes a path
 * argument, and those its subjects callback declares. */
static unsigned
tool_kinds(const struct tc_tool *t)
{
	const struct tc_arg *a;
	unsigned k = t->subjects != NULL ? t->subject_kinds : 0;

	for (a = t->args; a != NULL && a->name != NULL; a++)
		if (a->flags & TC_ARG_PATH)
			k |= PATH_BIT;
	return k;
}

void
tc_consent_check(const struct srv *s, tc_policy_report_fn *report,
    void *ctx)
{
	const struct tc_consent_rule *r;
	const struct tc_tool *t;
	const char *file = s->pol.file != NULL ? s->pol.file : "policy";
	const char *name;
	char msg[768], has[160];
	unsigned want, kinds;
	size_t i, k, n;
	int g, ok;

	for (i = 0; i < s->pol.nconsent; i++) {
		r = &s->pol.consent[i];
		if ((want = r->kinds & ~PATH_BIT) == 0)
			continue;
		ok = 0;
		kinds = 0;
		for (k = 0; k < s->def->ntools && !ok; k++) {
			t = &s->def->tools[k];
			if (strcmp(r->tool, "*") != 0 && strcmp(r->tool,
			    tc_tool_policy_name(t)) != 0)
				continue;
			kinds |= tool_kinds(t);
			ok = (want & ~tool_kinds(t)) == 0;
		}
		if (ok)
			continue;
		has[0] = '\0';
		for (k = 0, n = 0; k < TC_SUBJECT_NKINDS; k++)
			if (kinds & 1u << k)
				n += tc_text_fmt(has + n, sizeof(has) - n, "%s%s",
				    n ? ", " : "", tc_subject_kind_name(k));
		if ((want & ~kinds) == 0) {
			tc_text_fmt(msg, sizeof(msg), "%s:%d: consent: no tool "
			    "of %s has subjects of every kind the rule names, "
			    "so it would never ask", file, r->line,
			    s->def->name);
			report(ctx, msg);
			continue;
		}
		for (g = 0; !(want & ~kinds & 1u << g); g++)
			;
		name = tc_subject_kind_name(g);
		if (strcmp(r->tool, "*") == 0)
			tc_text_fmt(msg, sizeof(msg), "%s:%d: consent: no tool "
			    "of %s has '%s' subjects (%s%s)", file, r->line,
			    s->def->name, name, n ? "they have: " :
			    "they have none", has);
		else
			tc_text_fmt(msg, sizeof(msg), "%s:%d: consent: %s has "
			    "no '%s' subjects (%s%s)", file, r->line, r->tool,
			    name, n ? "it has: " : "it has none", has);
		n = strlen(msg);
		tc_text_fmt(msg + n, sizeof(msg) - n, ", so the rule would "
		    "never ask; a path pattern that is the word '%s' is "
		    "written '\\%s'", name, name);
		report(ctx, msg);
	}
}
