/*
 * calls.c: a tools/call from the moment it is admitted to its answer: the
 * lists of running, queued and held calls, starting a call's run,
 * cancellation, and the answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <pwd.h>
#include <unistd.h>

#include "policy/glob.h"
#include "serve/hostconfig.h"
#include "base/clock.h"
#include "base/log.h"
#include "policy/own.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/server.h"
#include "serve/server-int.h"
#include "base/text.h"
#include "serve/usage.h"

extern char **environ;

/* --- Methods --- */

/* Returns |t| if the policy leaves it on and the server offers it under
 * the policy as it stands, or NULL. */
static const struct tc_tool *
allowed_tool(const struct srv *s, const struct tc_tool *t)
{
	const struct tc_tool_policy *tp;

	if (t == NULL)
		return NULL;
	if ((tp = tc_policy_tool(&s->pol, t->name)) != NULL && !tp->enabled)
		return NULL;
	if (s->def->offered != NULL && !s->def->offered(&s->pol, t, NULL, 0))
		return NULL;
	return t;
}

/* Returns the tool named |name| if tools/list shows it, or NULL. */
const struct tc_tool *
tc_srv_visible_tool(const struct srv *s, const char *name)
{
	const struct tc_tool *t;

	t = tc_tool_find(s->def->tools, s->def->ntools, name);
	if (t == NULL || (t->flags & TC_TOOL_RESOURCE))
		return NULL;
	return allowed_tool(s, t);
}

/* Returns the tool of the server's resource provider if it has one and
 * the policy lets it run, or NULL: then there are no resources. */
const struct tc_tool *
tc_srv_resource_tool(const struct srv *s)
{
	const struct tc_tool *t;

	if (s->def->resources == NULL)
		return NULL;
	t = tc_tool_find(s->def->tools, s->def->ntools,
	    s->def->resources->tool);
	if (t == NULL)
		TC_BUG("%s: the resource provider's tool '%s' is not in its "
		    "table", s->def->name, s->def->resources->tool);
	return allowed_tool(s, t);
}

void
tc_srv_tools_list(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;
	const cJSON *cursor;
	cJSON *res;

	cursor = cJSON_GetObjectItemCaseSensitive(req->params, "cursor");
	if (cursor != NULL) {
		/* Every tool fits on one page, so no cursor is ever given
		 * out and none is valid. */
		tc_proto_error(req, TC_RPC_INVALID_PARAMS, "invalid cursor");
		return;
	}
	if ((res = cJSON_CreateObject()) == NULL) {
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	cJSON_AddItemToObject(res, "tools", cJSON_Duplicate(s->tools, 1));
	tc_proto_reply(req, res);
}


struct call *
tc_srv_find_call(struct srv *s, const char *id_key)
{
	struct call *c;

	for (c = s->calls; c != NULL; c = c->next)
		if (!c->cancelled && strcmp(c->req->id_key, id_key) == 0)
			return c;
	for (c = s->queue; c != NULL; c = c->next)
		if (strcmp(c->req->id_key, id_key) == 0)
			return c;
	for (c = s->asking; c != NULL; c = c->next)
		if (strcmp(c->req->id_key, id_key) == 0)
			return c;
	for (c = s->held; c != NULL; c = c->next)
		if (strcmp(c->req->id_key, id_key) == 0)
			return c;
	return NULL;
}

/* Removes |c| from the list at |head| (tail |tail|) if it is there;
 * returns 1 if it was. */
int
tc_srv_unlink_call(struct call **head, struct call ***tail, struct call *c)
{
	struct call **cp;

	for (cp = head; *cp != NULL; cp = &(*cp)->next) {
		if (*cp == c) {
			*cp = c->next;
			if (*tail == &c->next)
				*tail = cp;
			c->next = NULL;
			return 1;
		}
	}
	return 0;
}

void
tc_srv_append_call(struct call ***tail, struct call *c)
{
	c->next = NULL;
	**tail = c;
	*tail = &c->next;
}


/* Answers a resources/read that could not be served. */
static void
resource_error(struct call *c, int code, const char *msg)
{
	cJSON *data = cJSON_CreateObject();

	cJSON_AddStringToObject(data, "uri", c->resource_uri);
	tc_proto_error_data(c->req, code, msg, data);
	c->req = NULL;
}

/*
 * Answers |c| with |msg| without running it, and frees it: a tool call
 * gets an isError result; a resources/read the JSON-RPC error |code|.
 */
static void
answer_unrun(struct call *c, int code, const char *msg)
{
	char *text;

	if (c->resource_uri != NULL)
		resource_error(c, code, msg);
	else if ((text = tc_result_error_text(msg)) == NULL)
		tc_proto_error(c->req, TC_RPC_INTERNAL_ERROR, "out of memory");
	else {
		tc_proto_reply_raw(c->req, text, strlen(text));
		free(text);
	}
	c->req = NULL;
	tc_srv_free_call(c);
}

/*
 * Returns a new string formatted from |fmt|, or NULL if out of memory: for
 * a message that may name long paths, which a fixed buffer would cut, on
 * a path taken only when something failed.  The caller frees it.
 */

void
tc_srv_refuse(struct srv *s, struct call *c, const char *msg)
{
	(void)s;
	answer_unrun(c, TC_RPC_RESOURCE_NOT_FOUND, msg);
}

/* Refuses |c| before it runs, recording who decided and why. */
void
tc_srv_deny(struct srv *s, struct call *c, const char *by, const char *rule,
    const char *msg)
{
	struct tc_diag d TC_UNINIT;

	tc_diag_init(&d);
	if (tc_record_call(s, c, "denied", by, rule, msg, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	tc_srv_refuse(s, c, msg);
}

void
tc_srv_fail(struct srv *s, struct call *c, const char *msg)
{
	(void)s;
	answer_unrun(c, TC_RPC_INTERNAL_ERROR, msg);
}

/*
 * Ends |c|, which was admitted ("run" is in the log) but never started,
 * with |outcome| in its result record; answers it with |msg| unless it
 * was cancelled.
 */
void
tc_srv_end_unstarted(struct srv *s, struct call *c, enum tc_run_outcome outcome,
    const char *msg)
{
	struct tc_diag d = { "", 0 };

	c->run.outcome = outcome;
	tc_text_fmt(c->run.why, sizeof(c->run.why), "%s", msg);
	if (tc_record_result(s, c, NULL, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	if (outcome == TC_OUT_CANCELLED) {
		tc_request_free(c->req);
		c->req = NULL;
		tc_srv_free_call(c);
	} else
		tc_srv_fail(s, c, msg);
}

/* Forks |c|'s child, or answers its request with the reason it cannot. */
static void
start_call(struct srv *s, struct call *c)
{
	struct tc_diag d TC_UNINIT;
	char *msg;

	tc_diag_init(&d);
	if (s->roots_broken) {
		tc_srv_end_unstarted(s, c, TC_OUT_SPAWN, "The call was not run: the "
		    "server could not confine calls to the client's roots; "
		    "see its log.");
		return;
	}
	if (tc_run_start(&c->run, &s->sb, &c->call, &d) != 0) {
		tc_log(TC_LOG_ERROR, "cannot start a call: %s", d.msg);
		msg = tc_text_alloc("the call could not be started: %s", d.msg);
		tc_srv_end_unstarted(s, c, TC_OUT_SPAWN, msg != NULL ? msg :
		    "the call could not be started: out of memory");
		free(msg);
		return;
	}
	tc_debug("call %s (pid %d)", c->call.tool->name, (int)c->run.pid);
	/* A job's request is answered at once: it takes no call's slot. */
	if (!(c->call.tool->flags & TC_TOOL_JOB)) {
		c->next = s->calls;
		s->calls = c;
		s->ncalls++;
	}
	tc_jobs_add(&s->jobs, c);
	tc_srv_finish_done(s);
}

/* Starts queued calls while there are free slots. */
void
tc_srv_start_queued(struct srv *s)
{
	struct call *c;

	while (s->queue != NULL && s->ncalls < s->pol.limits.max_inflight) {
		c = s->queue;
		tc_srv_unlink_call(&s->queue, &s->queue_tail, c);
		s->nqueued--;
		start_call(s, c);
	}
}

void
tc_srv_admit(struct srv *s, struct call *c)
{
	struct tc_diag d TC_UNINIT;
	char rule[256], *msg;
	const char *by = NULL;

	tc_diag_init(&d);
	if (s->roots_broken) {
		tc_srv_fail(s, c, "The call was not run: the server could "
		    "not confine calls to the client's roots; see its log.");
		return;
	}
	if (tc_consent_scope(s, c) != 0) {
		tc_srv_fail(s, c, "The call was not run: out of memory.");
		return;
	}
	if ((c->call.tool->flags & TC_TOOL_JOB) &&
	    (msg = tc_jobs_full(&s->jobs)) != NULL) {
		tc_srv_deny(s, c, "limit", NULL, msg[0] != '\0' ? msg :
		    "no job can start now");
		free(msg);
		return;
	}
	if (c->consent != NULL) {
		by = "consent";
		tc_consent_rule_str(c->consent->rule, rule, sizeof(rule));
	}
	if (tc_record_call(s, c, "run", by, by != NULL ? rule : NULL, NULL,
	    &d) != 0) {
		tc_log(TC_LOG_ERROR, "audit: %s: refusing calls until a "
		    "record can be written", d.msg);
		msg = tc_text_alloc("The call was not run: its record could not "
		    "be written to the audit log (%s), and nothing runs "
		    "unrecorded. Tell the user.", d.msg);
		tc_srv_fail(s, c, msg != NULL ? msg : "The call was not run: "
		    "its record could not be written to the audit log, and "
		    "nothing runs unrecorded. Tell the user.");
		free(msg);
		return;
	}
	s->ncalls_total++;
	/* The job tools read the server's own state: no child, no slot.
	 * A job takes no slot either, as its answer does not wait. */
	if (c->call.tool->flags & TC_TOOL_SERVER_SIDE) {
		tc_jobs_call(&s->jobs, c);
		return;
	}
	if (s->ncalls < s->pol.limits.max_inflight ||
	    (c->call.tool->flags & TC_TOOL_JOB)) {
		start_call(s, c);
		return;
	}
	/* Over the limit of running calls: wait in line.  The deadline
	 * starts when the call does. */
	tc_srv_append_call(&s->queue_tail, c);
	s->nqueued++;
}

void
tc_srv_on_cancel(void *ctx, const char *id_key)
{
	struct srv *s = ctx;
	struct call *c;

	/* A call whose consent was just settled is admitted (or refused)
	 * first, as if it had been at once. */
	tc_srv_settled(s);
	if (tc_jobs_cancel(&s->jobs, id_key))
		return;		/* it waited on a job */
	if ((c = tc_srv_find_call(s, id_key)) == NULL)
		return;		/* finished already, or never known */
	tc_debug("call %s cancelled", c->call.tool->name);
	if (c->consent != NULL && c->consent->answer == NULL) {
		tc_consent_abandon(s, c, "cancelled by the client while "
		    "consent was asked");
		tc_request_free(c->req);
		tc_srv_free_call(c);
		return;
	}
	if (tc_srv_unlink_call(&s->queue, &s->queue_tail, c)) {
		s->nqueued--;
		tc_srv_end_unstarted(s, c, TC_OUT_CANCELLED, "cancelled by the "
		    "client before it started");
		return;
	}
	if (tc_srv_unlink_call(&s->held, &s->held_tail, c)) {
		struct tc_diag d TC_UNINIT;

		tc_diag_init(&d);
		s->nheld--;
		if (tc_record_call(s, c, "cancelled", "client", NULL,
		    "cancelled by the client while the server waited for "
		    "its roots", &d) != 0)
			tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
		tc_request_free(c->req);
		tc_srv_free_call(c);
		return;
	}
	c->cancelled = 1;
	tc_run_kill(&c->run, TC_OUT_CANCELLED);
}

/*
 * Answers a resources/read with what its handler returned (|res|, a
 * CallToolResult, consumed): the body in content[0].text, as text or as
 * base64, and structuredContent's mimeType and encoding.  A tool error is
 * a resource not found (outside the roots, denied, missing, too large),
 * anything else that went wrong an internal error.
 */
static void
reply_resource(struct call *c, const struct tc_answer *a)
{
	const cJSON *sc, *mime, *enc, *text;
	cJSON *res, *out, *arr, *o, *item;

	/* The text was checked as a CallToolResult; a tree of it is
	 * needed here to move the body into a resource's contents. */
	res = cJSON_ParseWithLength(a->json, a->len);
	item = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res,
	    "content"), 0);
	text = cJSON_GetObjectItemCaseSensitive(item, "text");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "isError")) ||
	    !cJSON_IsString(text)) {
		resource_error(c, c->run.outcome == TC_OUT_OK ?
		    TC_RPC_RESOURCE_NOT_FOUND : TC_RPC_INTERNAL_ERROR,
		    cJSON_IsString(text) ? text->valuestring :
		    "the resource could not be read");
		cJSON_Delete(res);
		return;
	}
	sc = cJSON_GetObjectItemCaseSensitive(res, "structuredContent");
	mime = cJSON_GetObjectItemCaseSensitive(sc, "mimeType");
	enc = cJSON_GetObjectItemCaseSensitive(sc, "encoding");
	out = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(out, "contents");
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "uri", c->resource_uri);
	if (cJSON_IsString(mime))
		cJSON_AddStringToObject(o, "mimeType", mime->valuestring);
	/* The body moves, not copied: it may be megabytes. */
	cJSON_AddItemToObject(o, cJSON_IsString(enc) &&
	    strcmp(enc->valuestring, "base64") == 0 ? "blob" : "text",
	    cJSON_DetachItemFromObjectCaseSensitive(item, "text"));
	cJSON_AddItemToArray(arr, o);
	cJSON_Delete(res);
	if (arr == NULL || o == NULL) {
		cJSON_Delete(out);
		tc_proto_error(c->req, TC_RPC_INTERNAL_ERROR, "out of memory");
	} else
		tc_proto_reply(c->req, out);
	c->req = NULL;
}

/* Answers a finished call and frees it. */
void
tc_srv_finish(struct srv *s, struct call *c)
{
	struct tc_diag d TC_UNINIT;
	struct tc_answer a;
	int rc;

	tc_diag_init(&d);
	rc = tc_run_take_answer(&c->run, &a);
	tc_debug("call %s done in %lld ms", c->call.tool->name,
	    (long long)(tc_now_ms() - c->run.start_ms));
	if (tc_record_result(s, c, rc == 0 ? &a.info : NULL, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	if (c->cancelled)	/* a cancelled request gets no response */
		tc_request_free(c->req);
	else if (rc != 0)
		tc_proto_error(c->req, TC_RPC_INTERNAL_ERROR, "out of memory");
	else if (c->resource_uri != NULL)
		reply_resource(c, &a);
	else
		tc_proto_reply_raw(c->req, a.json, a.len);
	tc_answer_release(&a);
	tc_run_release(&c->run);
	tc_srv_free_call(c);
	s->ncalls--;
}

void
tc_srv_settled(struct srv *s)
{
	const char *refusal;
	struct call *c;

	while ((c = tc_consent_take(s, &refusal)) != NULL) {
		if (refusal == NULL)
			tc_srv_admit(s, c);
		else
			tc_srv_refuse(s, c, refusal);
	}
}

void
tc_srv_finish_done(struct srv *s)
{
	struct call *c;

	while ((c = tc_jobs_take_done(&s->jobs)) != NULL)
		tc_srv_finish(s, c);
}
