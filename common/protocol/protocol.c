/*
 * protocol.c: stdio framing, JSON-RPC 2.0 envelopes and the MCP lifecycle.
 *
 * This is the only file that writes to the server's stdout.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/err.h"
#include "base/json.h"
#include "base/log.h"
#include "protocol/protocol.h"
#include "base/text.h"

const char *const tc_proto_versions[] = {
	"2025-11-25",
	"2025-06-18",
	"2025-03-26",
	"2024-11-05",
	NULL
};

/* Batches exist only in this revision (removed in 2025-06-18). */
#define BATCH_VERSION	"2025-03-26"

struct tc_batch {
	cJSON	*responses;
	int	 pending;	/* requests not yet answered, plus one while
				   the batch is being dispatched */
};

struct tc_outgoing {
	int64_t			 id;
	tc_response_fn		*fn;
	void			*ctx;
	struct tc_outgoing	*next;
};

/*
 * Returns 1 if the string token |tok| (|len| bytes, quotes included, as
 * accepted by tc_json_strict()) holds the escape \u0000.
 */
static int
token_has_nul(const char *tok, size_t len)
{
	size_t i;

	if (len == 0 || tok[0] != '"')
		return 0;
	for (i = 1; i + 1 < len; i++) {
		if (tok[i] != '\\')
			continue;
		if (tok[i + 1] == 'u' && i + 5 < len &&
		    memcmp(tok + i + 2, "0000", 4) == 0)
			return 1;
		i++;
	}
	return 0;
}

/* --- Output --- */

/*
 * Writes the |n| pieces of one message.  The message goes out whole: a
 * short write continues where it stopped, so lines never interleave.
 */
static void
send_iov(struct tc_proto *p, struct iovec *iov, int n)
{
	ssize_t w;

	while (n > 0 && !p->dead) {
		if ((w = writev(p->cfg.out_fd, iov, n)) < 0) {
			if (errno == EINTR)
				continue;
			tc_log(TC_LOG_ERROR, "cannot write to stdout: %s",
			    strerror(errno));
			p->dead = 1;
			break;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
}

static void
send_json(struct tc_proto *p, cJSON *msg)
{
	struct iovec iov[2];
	struct tc_buf fixed;
	char *s;

	if (p->dead)
		return;
	if ((s = cJSON_PrintUnformatted(msg)) == NULL) {
		tc_log(TC_LOG_ERROR, "out of memory printing a message");
		return;
	}
	iov[0].iov_base = s;
	iov[0].iov_len = strlen(s);
	/* The last guard of the rule that every line is JSON: a string
	 * cut inside a UTF-8 character somewhere would make this one not,
	 * so its bytes are replaced (U+FFFD) rather than sent. */
	tc_buf_init(&fixed, 0);
	if (!tc_utf8_valid(s, iov[0].iov_len)) {
		tc_log(TC_LOG_ERROR, "bug: a message held invalid UTF-8; "
		    "the bad bytes were replaced");
		tc_buf_init(&fixed, 3 * iov[0].iov_len);
		if (tc_buf_append_utf8(&fixed, s, iov[0].iov_len) != 0) {
			tc_log(TC_LOG_ERROR, "out of memory printing a "
			    "message");
			cJSON_free(s);
			return;
		}
		iov[0].iov_base = fixed.data;
		iov[0].iov_len = fixed.len;
	}
	iov[1].iov_base = (void *)(uintptr_t)"\n";
	iov[1].iov_len = 1;
	send_iov(p, iov, 2);
	tc_buf_release(&fixed);
	cJSON_free(s);
}

static cJSON *
envelope(const char *raw_id)
{
	cJSON *m;

	if ((m = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	if (raw_id != NULL)
		cJSON_AddItemToObject(m, "id", cJSON_CreateRaw(raw_id));
	return m;
}

static cJSON *
error_message(const char *raw_id, int code, const char *msg)
{
	char shown[1024];
	cJSON *m, *e;

	if ((m = envelope(raw_id)) == NULL)
		return NULL;
	e = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(e, "code", code);
	/* A message may echo what the client sent (a tool's name, a
	 * path): shown escaped, and cut on a character boundary. */
	cJSON_AddStringToObject(e, "message", tc_text_show(shown,
	    sizeof(shown), msg, 0));
	return m;
}

static void
batch_flush(struct tc_proto *p, struct tc_batch *b)
{
	if (cJSON_GetArraySize(b->responses) > 0)
		send_json(p, b->responses);
	cJSON_Delete(b->responses);
	free(b);
}

/* Sends |m| (owned) on its own or as part of |b|. */
static void
deliver(struct tc_proto *p, struct tc_batch *b, cJSON *m)
{
	if (m == NULL) {
		tc_log(TC_LOG_ERROR, "out of memory building a response");
		return;
	}
	if (b == NULL) {
		send_json(p, m);
		cJSON_Delete(m);
		return;
	}
	cJSON_AddItemToArray(b->responses, m);
}

/* An error that is not tied to a request (bad frame, bad envelope). */
static void
fault(struct tc_proto *p, struct tc_batch *b, int code, const char *msg)
{
	deliver(p, b, error_message(NULL, code, msg));
}

void
tc_request_free(struct tc_request *req)
{
	struct tc_batch *b;
	struct tc_proto *p;

	if (req == NULL)
		return;
	b = req->batch;
	p = req->proto;
	cJSON_Delete(req->root);
	free(req->id);
	free(req->id_key);
	free(req->progress_token);
	free(req);
	if (b != NULL && --b->pending == 0)
		batch_flush(p, b);
}

void
tc_proto_reply(struct tc_request *req, cJSON *result)
{
	cJSON *m;

	if (req->id != NULL) {
		if (result == NULL)
			result = cJSON_CreateObject();
		if ((m = envelope(req->id)) != NULL)
			cJSON_AddItemToObject(m, "result", result);
		else
			cJSON_Delete(result);
		deliver(req->proto, req->batch, m);
	} else
		cJSON_Delete(result);
	tc_request_free(req);
}

void
tc_proto_reply_raw(struct tc_request *req, const char *json, size_t len)
{
	static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
	static const char mid[] = ",\"result\":";
	struct iovec iov[5];
	cJSON *m;

	if (req->id != NULL && req->batch != NULL) {
		if ((m = envelope(req->id)) != NULL)
			cJSON_AddItemToObject(m, "result", cJSON_CreateRaw(json));
		deliver(req->proto, req->batch, m);
	} else if (req->id != NULL && !req->proto->dead) {
		/* Written around the text, which is not copied again. */
		iov[0] = (struct iovec){ (void *)(uintptr_t)head,
		    sizeof(head) - 1 };
		iov[1] = (struct iovec){ req->id, strlen(req->id) };
		iov[2] = (struct iovec){ (void *)(uintptr_t)mid,
		    sizeof(mid) - 1 };
		iov[3] = (struct iovec){ (void *)(uintptr_t)json, len };
		iov[4] = (struct iovec){ (void *)(uintptr_t)"}\n", 2 };
		send_iov(req->proto, iov, 5);
	}
	tc_request_free(req);
}

void
tc_proto_error(struct tc_request *req, int code, const char *msg)
{
	if (req->id != NULL)
		deliver(req->proto, req->batch,
		    error_message(req->id, code, msg));
	tc_request_free(req);
}

void
tc_proto_error_data(struct tc_request *req, int code, const char *msg,
    cJSON *data)
{
	cJSON *m;

	if (req->id != NULL && (m = error_message(req->id, code, msg)) !=
	    NULL) {
		if (data != NULL)
			cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(m,
			    "error"), "data", data);
		data = NULL;
		deliver(req->proto, req->batch, m);
	}
	cJSON_Delete(data);
	tc_request_free(req);
}

void
tc_proto_notify(struct tc_proto *p, const char *method, cJSON *params)
{
	cJSON *m;

	if ((m = envelope(NULL)) == NULL) {
		cJSON_Delete(params);
		return;
	}
	cJSON_AddStringToObject(m, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(m, "params", params);
	send_json(p, m);
	cJSON_Delete(m);
}

int
tc_proto_progress(struct tc_request *req, double progress, double total,
    const char *message)
{
	cJSON *params, *tok;

	if (req->progress_token == NULL || req->id == NULL)
		return 0;
	if ((params = cJSON_CreateObject()) == NULL ||
	    (tok = cJSON_CreateRaw(req->progress_token)) == NULL) {
		cJSON_Delete(params);
		return 0;
	}
	cJSON_AddItemToObject(params, "progressToken", tok);
	cJSON_AddNumberToObject(params, "progress", progress);
	if (total >= 0)
		cJSON_AddNumberToObject(params, "total", total);
	if (message != NULL && message[0] != '\0')
		cJSON_AddStringToObject(params, "message", message);
	tc_proto_notify(req->proto, "notifications/progress", params);
	return 1;
}

int64_t
tc_proto_request(struct tc_proto *p, const char *method, cJSON *params,
    tc_response_fn *fn, void *ctx)
{
	struct tc_outgoing *o;
	cJSON *m;
	char id[24];

	if ((o = calloc(1, sizeof(*o))) == NULL) {
		cJSON_Delete(params);
		return TC_ENOMEM;
	}
	o->id = p->next_out_id++;
	o->fn = fn;
	o->ctx = ctx;
	snprintf(id, sizeof(id), "%lld", (long long)o->id);
	if ((m = envelope(id)) == NULL) {
		free(o);
		cJSON_Delete(params);
		return TC_ENOMEM;
	}
	cJSON_AddStringToObject(m, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(m, "params", params);
	send_json(p, m);
	cJSON_Delete(m);
	o->next = p->out;
	p->out = o;
	return o->id;
}

void
tc_proto_forget(struct tc_proto *p, int64_t id)
{
	struct tc_outgoing **op, *o;

	for (op = &p->out; (o = *op) != NULL; op = &o->next) {
		if (o->id == id) {
			*op = o->next;
			free(o);
			return;
		}
	}
}

int
tc_proto_client_has(const struct tc_proto *p, const char *name)
{
	return p->client_caps != NULL &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(p->client_caps,
	    name));
}

/* --- Lifecycle --- */

static const struct tc_method *
find_method(const struct tc_proto *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->cfg.nmethods; i++)
		if (strcmp(p->cfg.methods[i].name, name) == 0)
			return &p->cfg.methods[i];
	return NULL;
}

static char *
xstrdup_or_null(const cJSON *s)
{
	return cJSON_IsString(s) ? strdup(s->valuestring) : NULL;
}

static void
do_initialize(struct tc_proto *p, struct tc_request *req)
{
	const cJSON *v, *info;
	const char *version = TC_PROTO_LATEST;
	cJSON *res, *si, *caps;
	size_t i;

	if (p->initialized) {
		tc_proto_error(req, TC_RPC_INVALID_REQUEST,
		    "the session is already initialized");
		return;
	}
	if (!cJSON_IsObject(req->params)) {
		tc_proto_error(req, TC_RPC_INVALID_PARAMS,
		    "initialize needs params with protocolVersion");
		return;
	}
	v = cJSON_GetObjectItemCaseSensitive(req->params, "protocolVersion");
	if (!cJSON_IsString(v)) {
		tc_proto_error(req, TC_RPC_INVALID_PARAMS,
		    "initialize needs a string protocolVersion");
		return;
	}
	for (i = 0; tc_proto_versions[i] != NULL; i++)
		if (strcmp(v->valuestring, tc_proto_versions[i]) == 0)
			version = tc_proto_versions[i];
	snprintf(p->version, sizeof(p->version), "%s", version);

	v = cJSON_GetObjectItemCaseSensitive(req->params, "capabilities");
	cJSON_Delete(p->client_caps);
	p->client_caps = cJSON_IsObject(v) ? cJSON_Duplicate(v, 1) : NULL;
	info = cJSON_GetObjectItemCaseSensitive(req->params, "clientInfo");
	free(p->client_name);
	free(p->client_version);
	p->client_name = xstrdup_or_null(
	    cJSON_GetObjectItemCaseSensitive(info, "name"));
	p->client_version = xstrdup_or_null(
	    cJSON_GetObjectItemCaseSensitive(info, "version"));

	if ((res = cJSON_CreateObject()) == NULL) {
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	cJSON_AddStringToObject(res, "protocolVersion", p->version);
	caps = cJSON_Parse(p->cfg.capabilities ? p->cfg.capabilities : "{}");
	if (caps == NULL)
		TC_BUG("capabilities are not a JSON object");
	cJSON_AddItemToObject(res, "capabilities", caps);
	si = cJSON_AddObjectToObject(res, "serverInfo");
	cJSON_AddStringToObject(si, "name", p->cfg.name);
	if (p->cfg.title != NULL && strcmp(p->version, "2025-06-18") >= 0)
		cJSON_AddStringToObject(si, "title", p->cfg.title);
	cJSON_AddStringToObject(si, "version", p->cfg.version);
	if (p->cfg.instructions != NULL)
		cJSON_AddStringToObject(res, "instructions",
		    p->cfg.instructions);
	p->initialized = 1;
	tc_info("client %s %s, protocol %s",
	    p->client_name ? p->client_name : "(unnamed)",
	    p->client_version ? p->client_version : "", p->version);
	tc_proto_reply(req, res);
}

/* Returns a new canonical id key: |prefix| then |n| bytes of |s|. */
static char *
make_key(const char *prefix, const char *s, size_t n)
{
	size_t pl = strlen(prefix);
	char *k;

	if ((k = malloc(pl + n + 1)) == NULL)
		return NULL;
	memcpy(k, prefix, pl);
	memcpy(k + pl, s, n);
	k[pl + n] = '\0';
	return k;
}

static void
do_cancelled(struct tc_proto *p, const cJSON *params, const char *text,
    size_t len)
{
	static const char *const path[] = { "params", "requestId" };
	const cJSON *rid;
	const char *raw;
	size_t rawlen;
	char *key;

	rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	if (p->cfg.on_cancel == NULL || rid == NULL)
		return;
	if (cJSON_IsString(rid))
		key = make_key("s:", rid->valuestring, strlen(rid->valuestring));
	else if (cJSON_IsNumber(rid) &&
	    tc_json_raw_member(text, len, path, 2, &raw, &rawlen) == 0)
		key = make_key("n:", raw, rawlen);
	else
		return;
	if (key == NULL)
		return;
	p->cfg.on_cancel(p->cfg.ctx, key);
	free(key);
}

/*
 * Hands a response to the callback of the request it answers.  One that
 * cannot be read as it was sent (|bad| says why: a U+0000, which cJSON
 * would cut a string at, a member given twice) is passed on as an error.
 */
static void
do_response(struct tc_proto *p, cJSON *msg, const char *bad)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	struct tc_outgoing **op, *o;
	cJSON *err;

	if (!cJSON_IsNumber(id))
		return;
	for (op = &p->out; (o = *op) != NULL; op = &o->next) {
		if ((double)o->id != id->valuedouble)
			continue;
		*op = o->next;
		if (bad != NULL) {
			err = error_message(NULL, TC_RPC_INVALID_REQUEST, bad);
			o->fn(o->ctx, NULL,
			    cJSON_GetObjectItemCaseSensitive(err, "error"));
			cJSON_Delete(err);
		} else
			o->fn(o->ctx,
			    cJSON_GetObjectItemCaseSensitive(msg, "result"),
			    cJSON_GetObjectItemCaseSensitive(msg, "error"));
		free(o);
		return;
	}
	tc_debug("response to an unknown request ignored");
}

/*
 * Makes the raw id token and its canonical key, for an id that valid_id()
 * accepted; returns 0 or -1.
 */
static int
take_id(const cJSON *id, const char *text, size_t len, char **raw,
    char **key)
{
	static const char *const path[] = { "id" };
	const char *r;
	size_t rl;

	*raw = *key = NULL;
	if (tc_json_raw_member(text, len, path, 1, &r, &rl) != 0 ||
	    (*raw = strndup(r, rl)) == NULL)
		return -1;
	if (cJSON_IsString(id))
		*key = make_key("s:", id->valuestring, strlen(id->valuestring));
	else
		*key = make_key("n:", *raw, strlen(*raw));
	if (*key == NULL) {
		free(*raw);
		*raw = NULL;
		return -1;
	}
	return 0;
}

/*
 * Returns a copy of the raw text of params._meta.progressToken in |text|
 * (|len| bytes, accepted by tc_json_strict()) if it is a string or an
 * integer, as MCP requires, else NULL: a request with none, or with
 * another kind, gets no progress.
 */
static char *
take_progress_token(const char *text, size_t len)
{
	static const char *const path[] = { "params", "_meta",
		"progressToken" };
	const char *r;
	size_t rl, i;

	if (tc_json_raw_member(text, len, path, TC_NITEMS(path), &r, &rl) != 0
	    || rl == 0)
		return NULL;
	if (r[0] != '"') {
		for (i = r[0] == '-' ? 1 : 0; i < rl; i++)
			if (r[i] < '0' || r[i] > '9')
				return NULL;
		if (rl == (r[0] == '-' ? 1u : 0u))
			return NULL;
	}
	return strndup(r, rl);
}

/*
 * Returns 1 if the token |r| (|rl| bytes, a string or a number accepted
 * by tc_json_strict()) is an id: a string without U+0000 (which would
 * cut its key short) or an integer (no fraction, no exponent).
 */
static int
id_token_ok(const char *r, size_t rl)
{
	size_t i;

	if (rl > 0 && r[0] == '"')
		return !token_has_nul(r, rl);
	for (i = 0; i < rl; i++)
		if (r[i] == '.' || r[i] == 'e' || r[i] == 'E')
			return 0;
	return rl > 0;
}

/* Returns 1 if |id| is an id by id_token_ok(), as written in |text|. */
static int
valid_id(const cJSON *id, const char *text, size_t len)
{
	static const char *const path[] = { "id" };
	const char *r;
	size_t rl;

	if (!cJSON_IsString(id) && !cJSON_IsNumber(id))
		return 0;
	if (tc_json_raw_member(text, len, path, 1, &r, &rl) != 0)
		return 0;
	return id_token_ok(r, rl);
}

/*
 * Refuses a message that was not parsed (over the size cap, or refused
 * by tc_json_strict()), or whose tree cannot be trusted to say which
 * member is its id, with |code| and |why| (on its own or as part of
 * |b|), from a skim of it (|k|, fed the whole message).  A request is
 * answered under its id when the skim could read one (its top level
 * followed to the end, one id that is a string or an integer in strict
 * JSON), so that the client is not left waiting for an answer that never
 * comes; else without one, as JSON-RPC has it for an id that cannot be
 * known.  A response to one of the
 * server's own requests fails that request; it is answered only if
 * |answer_responses| (a line that is not JSON is always answered).
 */
static void
refuse_unparsed(struct tc_proto *p, struct tc_batch *b,
    struct tc_json_skim *k, int code, const char *why, int answer_responses)
{
	const char *tok;
	size_t toklen;
	unsigned has;
	char *raw = NULL;
	cJSON *msg;

	has = tc_json_skim_end(k, &tok, &toklen);
	if (tok != NULL && !id_token_ok(tok, toklen))
		tok = NULL;
	if ((has & TC_JSON_SKIM_ID) && !(has & TC_JSON_SKIM_METHOD) &&
	    (has & (TC_JSON_SKIM_RESULT | TC_JSON_SKIM_ERROR))) {
		if (tok != NULL && (msg = cJSON_CreateObject()) != NULL) {
			cJSON_AddItemToObject(msg, "id",
			    cJSON_ParseWithLength(tok, toklen));
			do_response(p, msg, why);
			cJSON_Delete(msg);
		}
		if (!answer_responses)
			return;
		tok = NULL;
	}
	/* Without memory for the id, the error goes without it. */
	if (tok != NULL && (has & TC_JSON_SKIM_METHOD))
		raw = strndup(tok, toklen);
	deliver(p, b, error_message(raw, code, why));
	free(raw);
}

/*
 * Answers an invalid request -32600, with its id when the id itself is
 * readable (so the client is not left waiting), and frees |msg|.
 */
static void
invalid(struct tc_proto *p, struct tc_batch *b, cJSON *msg, const cJSON *id,
    const char *text, size_t len, const char *why)
{
	char *raw = NULL, *key = NULL;

	if (id != NULL && valid_id(id, text, len) &&
	    take_id(id, text, len, &raw, &key) == 0)
		deliver(p, b, error_message(raw, TC_RPC_INVALID_REQUEST, why));
	else
		fault(p, b, TC_RPC_INVALID_REQUEST, why);
	free(raw);
	free(key);
	cJSON_Delete(msg);
}

/* Returns |name| if it is a member of the envelope, else NULL: what a
 * message may quote of the names it was sent. */
static const char *
envelope_name(const char *name)
{
	static const char *const known[] = { "jsonrpc", "id", "method",
	    "params", "result", "error" };
	size_t i;

	for (i = 0; i < TC_NITEMS(known); i++)
		if (strcmp(name, known[i]) == 0)
			return known[i];
	return NULL;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Returns the name of a member that the object |obj| has twice (pointing
 * into |obj|), or NULL if none, or if |obj| is no object.  Sets *|nomem|
 * when it could not tell.
 */
static const char *
twice(const cJSON *obj, int *nomem)
{
	const char **names, *dup = NULL;
	const cJSON *it;
	size_t n = 0, i;

	if (!cJSON_IsObject(obj))
		return NULL;
	cJSON_ArrayForEach(it, obj)
		n++;
	if (n < 2)
		return NULL;
	/* Sorted, not compared pairwise: a message may have many. */
	if ((names = calloc(n, sizeof(*names))) == NULL) {
		*nomem = 1;
		return NULL;
	}
	n = 0;
	cJSON_ArrayForEach(it, obj)
		names[n++] = it->string;
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 1; i < n && dup == NULL; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			dup = names[i];
	free(names);
	return dup;
}

/* Handles one message (ownership of |msg| taken); |text| is its source. */
static void
handle_message(struct tc_proto *p, cJSON *msg, const char *text, size_t len,
    struct tc_batch *b, unsigned flags)
{
	const cJSON *jv, *id, *method, *it = NULL;
	const struct tc_method *m;
	struct tc_json_skim k;
	struct tc_request *req;
	const char *top, *dup = NULL;
	int response, nomem = 0;
	char why[96];

	jv = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	response = method == NULL && id != NULL &&
	    (cJSON_GetObjectItemCaseSensitive(msg, "result") != NULL ||
	    cJSON_GetObjectItemCaseSensitive(msg, "error") != NULL);

	/* cJSON keeps names and strings NUL-terminated, so that one with
	 * U+0000 reads as shorter than it was sent: "i\u0000d" as "id",
	 * "ping\u0000x" as "ping".  Where the protocol reads them, such
	 * strings are refused; deeper ones are the handlers' (has_nul). */
	if (flags & TC_JSON_NUL_NAME) {
		if (response) {
			do_response(p, msg, "the response holds U+0000");
			cJSON_Delete(msg);
			return;
		}
		/* The tree may take "i\u0000d" for the id: the id is read
		 * from the text, where names are compared as decoded. */
		cJSON_Delete(msg);
		tc_json_skim_init(&k);
		tc_json_skim_feed(&k, text, len);
		refuse_unparsed(p, b, &k, TC_RPC_INVALID_REQUEST, "invalid "
		    "request: a member name holds U+0000", 1);
		return;
	}

	/* A member given twice is read once here (the first) and may be
	 * read as the other by whatever else sees the line: refused, in
	 * the message and in the objects that are its members (params,
	 * result, error), which the protocol and dispatch read. */
	if ((top = twice(msg, &nomem)) == NULL && !nomem)
		cJSON_ArrayForEach(it, msg)
			if ((dup = twice(it, &nomem)) != NULL || nomem)
				break;
	if (nomem) {
		cJSON_Delete(msg);
		fault(p, b, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	if (top != NULL || dup != NULL) {
		if (top != NULL && envelope_name(top) != NULL)
			snprintf(why, sizeof(why), "invalid request: member "
			    "'%s' given twice", envelope_name(top));
		else if (top == NULL && envelope_name(it->string) != NULL)
			snprintf(why, sizeof(why), "invalid request: a member "
			    "of '%s' given twice", envelope_name(it->string));
		else
			snprintf(why, sizeof(why), "invalid request: a member "
			    "given twice");
		if (response) {
			do_response(p, msg, why);
			cJSON_Delete(msg);
		} else
			invalid(p, b, msg, top != NULL && strcmp(top, "id") ==
			    0 ? NULL : id, text, len, why);
		return;
	}
	if (!cJSON_IsString(jv) || strcmp(jv->valuestring, "2.0") != 0) {
		invalid(p, b, msg, id, text, len, "not a JSON-RPC 2.0 message "
		    "(\"jsonrpc\": \"2.0\" needed)");
		return;
	}
	if (response) {
		do_response(p, msg, flags & TC_JSON_NUL ?
		    "the response holds U+0000" : NULL);
		cJSON_Delete(msg);
		return;
	}
	if (flags & TC_JSON_NUL_SHALLOW) {
		invalid(p, b, msg, id, text, len, "invalid request: a string of "
		    "the envelope or of params' own members holds U+0000");
		return;
	}
	if (!cJSON_IsString(method) ||
	    (id != NULL && !valid_id(id, text, len))) {
		invalid(p, b, msg, id, text, len, method == NULL ?
		    "invalid request: no method" : !cJSON_IsString(method) ?
		    "invalid request: method must be a string" :
		    "invalid request: id must be a string or an integer");
		return;
	}
	if ((req = calloc(1, sizeof(*req))) == NULL) {
		cJSON_Delete(msg);
		fault(p, b, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	req->proto = p;
	req->root = msg;
	req->method = method->valuestring;
	req->params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	req->has_nul = (flags & TC_JSON_NUL) != 0;
	if (id != NULL && take_id(id, text, len, &req->id, &req->id_key)) {
		tc_request_free(req);
		fault(p, b, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	if (req->id != NULL && b != NULL) {
		req->batch = b;
		b->pending++;
	}
	/* Only a request can be told of its progress; without memory it
	 * simply is not. */
	if (req->id != NULL)
		req->progress_token = take_progress_token(text, len);
	if (req->params != NULL && !cJSON_IsObject(req->params) &&
	    !cJSON_IsArray(req->params)) {
		tc_proto_error(req, TC_RPC_INVALID_REQUEST,
		    "invalid request: params must be an object");
		return;
	}

	m = find_method(p, req->method);
	if (req->id == NULL) {			/* a notification */
		/* Never answered.  Only a method declared a notification
		 * reaches its handler: a request-only one (tools/call,
		 * resources/read, ping, ...) sent without an id has no one
		 * to answer and no key to match cancellations against, so
		 * it is dropped here, in one place, for every method. */
		if (strcmp(req->method, "notifications/cancelled") == 0)
			do_cancelled(p, req->params, text, len);
		else if (p->initialized && m != NULL &&
		    m->kind == TC_METHOD_NOTIFICATION) {
			m->fn(p->cfg.ctx, req);
			return;
		} else if (m != NULL)
			tc_debug("'%s' sent as a notification: dropped",
			    m->name);
		tc_request_free(req);
		return;
	}
	if (strcmp(req->method, "notifications/cancelled") == 0 ||
	    (m != NULL && m->kind == TC_METHOD_NOTIFICATION)) {
		/* A notification sent with an id: there is no request of
		 * that name, and a request must be answered. */
		tc_proto_error(req, TC_RPC_METHOD_NOT_FOUND, "method not "
		    "found: this method is a notification, sent without an "
		    "id");
		return;
	}
	if (strcmp(req->method, "ping") == 0) {
		tc_proto_reply(req, NULL);
		return;
	}
	if (strcmp(req->method, "initialize") == 0) {
		if (b != NULL)
			tc_proto_error(req, TC_RPC_INVALID_REQUEST,
			    "initialize must not be part of a batch");
		else
			do_initialize(p, req);
		return;
	}
	if (!p->initialized) {
		if (m != NULL)
			tc_proto_error(req, TC_RPC_INVALID_REQUEST,
			    "the session is not initialized: send "
			    "initialize first");
		else
			tc_proto_error(req, TC_RPC_METHOD_NOT_FOUND,
			    "method not found");
		return;
	}
	if (m == NULL) {
		tc_proto_error(req, TC_RPC_METHOD_NOT_FOUND,
		    "method not found");
		return;
	}
	m->fn(p->cfg.ctx, req);
}

static void
handle_batch(struct tc_proto *p, const char *text, size_t len)
{
	const char *s = text, *e = text + len, *v;
	struct tc_batch *b;
	unsigned flags;
	cJSON *msg;

	if (!p->initialized || strcmp(p->version, BATCH_VERSION) != 0) {
		fault(p, NULL, TC_RPC_INVALID_REQUEST, "JSON-RPC batches are "
		    "not supported in this protocol version");
		return;
	}
	s = tc_json_skip_ws(s, e) + 1;			/* past '[' */
	s = tc_json_skip_ws(s, e);
	if (s < e && *s == ']') {
		fault(p, NULL, TC_RPC_INVALID_REQUEST, "empty batch");
		return;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL ||
	    (b->responses = cJSON_CreateArray()) == NULL) {
		free(b);
		fault(p, NULL, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	b->pending = 1;
	while (s < e && (v = tc_json_skip(s, e)) != NULL) {
		s = tc_json_skip_ws(s, e);
		if ((msg = cJSON_ParseWithLength(s, (size_t)(v - s))) == NULL)
			fault(p, b, TC_RPC_INTERNAL_ERROR, "out of memory");
		else {
			/* Strict already (the whole batch was checked); this
			 * only finds where this element holds a U+0000. */
			(void)tc_json_strict(s, (size_t)(v - s), &flags);
			handle_message(p, msg, s, (size_t)(v - s), b, flags);
		}
		s = tc_json_skip_ws(v, e);
		if (s < e && *s == ',')
			s++;
		else
			break;
	}
	if (--b->pending == 0)
		batch_flush(p, b);
}

void
tc_proto_handle_line(struct tc_proto *p, char *line, size_t len)
{
	struct tc_json_skim k;
	const char *end = NULL;
	unsigned flags;
	cJSON *msg;
	size_t i;

	if (len > 0 && line[len - 1] == '\r')
		line[--len] = '\0';
	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			break;
	if (i == len)
		return;			/* blank lines are tolerated */
	/* cJSON accepts more than JSON (\u00zz, 1., -.5, +1, control
	 * bytes as white space, bytes that are not UTF-8) and decodes it as
	 * something else: only text that is JSON, in UTF-8, reaches it.
	 * The UTF-8 is checked there; here only to say which it was not. */
	if (tc_json_strict(line, len, &flags) != 0) {
		tc_json_skim_init(&k);
		tc_json_skim_feed(&k, line, len);
		/* RFC 8259's grammar allows "\ud800" and says what it
		 * decodes to is unpredictable: the text is JSON, but no
		 * request, as a string must be characters. */
		if (flags & TC_JSON_LONE_SURROGATE)
			refuse_unparsed(p, NULL, &k, TC_RPC_INVALID_REQUEST,
			    "invalid request: a string holds a lone UTF-16 "
			    "surrogate escape (\\ud800 to \\udfff, not in a "
			    "pair), which is not a character", 0);
		else if (!tc_utf8_valid(line, len))
			refuse_unparsed(p, NULL, &k, TC_RPC_PARSE_ERROR,
			    "parse error: the message is not valid UTF-8", 1);
		else
			refuse_unparsed(p, NULL, &k, TC_RPC_PARSE_ERROR,
			    "parse error: not JSON (RFC 8259)", 1);
		return;
	}
	/* The length includes the terminating NUL so that trailing junk
	 * after the value is an error, not ignored. */
	if ((msg = cJSON_ParseWithLengthOpts(line, len + 1, &end, 1)) ==
	    NULL) {
		tc_json_skim_init(&k);
		tc_json_skim_feed(&k, line, len);
		refuse_unparsed(p, NULL, &k, TC_RPC_PARSE_ERROR, "parse error: "
		    "the message could not be read", 1);
		return;
	}
	if (cJSON_IsArray(msg)) {
		cJSON_Delete(msg);
		handle_batch(p, line, len);
		return;
	}
	if (!cJSON_IsObject(msg)) {
		cJSON_Delete(msg);
		fault(p, NULL, TC_RPC_INVALID_REQUEST,
		    "invalid request: not an object");
		return;
	}
	handle_message(p, msg, line, len, NULL, flags);
}

/* --- Transport --- */

int
tc_proto_init(struct tc_proto *p, const struct tc_proto_config *cfg)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	if (p->cfg.max_frame == 0)
		p->cfg.max_frame = TC_MAX_FRAME;
	/* One more byte than the cap, for the \r of a \r\n ending. */
	tc_buf_init(&p->in, p->cfg.max_frame + 1);
	p->next_out_id = 1;
	return 0;
}

void
tc_proto_release(struct tc_proto *p)
{
	struct tc_outgoing *o;

	while ((o = p->out) != NULL) {
		p->out = o->next;
		o->fn(o->ctx, NULL, NULL);
		free(o);
	}
	tc_buf_release(&p->in);
	cJSON_Delete(p->client_caps);
	free(p->client_name);
	free(p->client_version);
	p->client_caps = NULL;
	p->client_name = p->client_version = NULL;
}

/* Answers the over-long line that p->skim was fed. */
static void
too_long(struct tc_proto *p)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "invalid request: the message exceeds "
	    "the %zu-byte limit", p->cfg.max_frame);
	refuse_unparsed(p, NULL, &p->skim, TC_RPC_INVALID_REQUEST, msg, 1);
}

/* Starts the skim of an over-long line with what is kept of it so far,
 * and |n| more bytes at |s|. */
static void
skim_start(struct tc_proto *p, const char *s, size_t n)
{
	tc_json_skim_init(&p->skim);
	if (p->in.len > 0)
		tc_json_skim_feed(&p->skim, p->in.data, p->in.len);
	tc_json_skim_feed(&p->skim, s, n);
}

/* Consumes |n| bytes of input: whole lines are handled as they complete. */
static void
feed(struct tc_proto *p, const char *s, size_t n)
{
	const char *nl;
	size_t seg;

	while (n > 0 && !p->dead) {
		nl = memchr(s, '\n', n);
		seg = nl ? (size_t)(nl - s) : n;
		if (p->draining) {
			/* Skimmed as it goes by, for its id. */
			tc_json_skim_feed(&p->skim, s, seg);
			if (nl) {
				p->draining = 0;
				too_long(p);
			}
		} else if (tc_buf_append(&p->in, s, seg) != 0) {
			/* Over the cap (or out of memory): drop what we
			 * have, skip to the end of the line, answer then. */
			skim_start(p, s, seg);
			tc_buf_release(&p->in);
			if (nl)
				too_long(p);
			else
				p->draining = 1;
		} else if (nl) {
			static char empty[1];

			if (p->in.len > p->cfg.max_frame &&
			    p->in.data[p->in.len - 1] != '\r') {
				skim_start(p, "", 0);
				too_long(p);
			} else
				tc_proto_handle_line(p, p->in.data ?
				    p->in.data : empty, p->in.len);
			tc_buf_reset(&p->in);
			/* Do not keep a huge buffer after a huge message. */
			if (p->in.alloc > (1u << 20))
				tc_buf_release(&p->in);
		}
		s += seg + (nl ? 1 : 0);
		n -= seg + (nl ? 1 : 0);
	}
}

int
tc_proto_read(struct tc_proto *p)
{
	static char chunk[1u << 16];
	ssize_t n;

	if (p->eof)
		return 1;
	n = read(p->cfg.in_fd, chunk, sizeof(chunk));
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return 0;
		tc_log(TC_LOG_ERROR, "cannot read stdin: %s", strerror(errno));
		n = 0;
	}
	if (n == 0) {
		/* A last line without its newline still counts, under the
		 * same cap as any other: the buffer holds one byte more,
		 * for a '\r' before a newline. */
		if (p->draining)
			too_long(p);
		else if (p->in.len > p->cfg.max_frame &&
		    p->in.data[p->in.len - 1] != '\r') {
			skim_start(p, "", 0);
			too_long(p);
		} else if (p->in.len > 0)
			tc_proto_handle_line(p, p->in.data, p->in.len);
		tc_buf_release(&p->in);
		p->draining = 0;
		p->eof = 1;
		return 1;
	}
	feed(p, chunk, (size_t)n);
	return 0;
}
