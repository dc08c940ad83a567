/*
 * protocol.c: stdio framing, JSON-RPC 2.0 envelopes and the MCP lifecycle.
 *
 * This is the only file that writes to the server's stdout.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "err.h"
#include "log.h"
#include "protocol.h"
#include "text.h"

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

/* --- Raw JSON scanning (on text cJSON has already accepted) --- */

static const char *
skip_ws(const char *s, const char *e)
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

static const char *
skip_value(const char *s, const char *e)
{
	char close;

	s = skip_ws(s, e);
	if (s >= e)
		return NULL;
	switch (*s) {
	case '"':
		return skip_string(s, e);
	case '{':
	case '[':
		close = *s == '{' ? '}' : ']';
		s = skip_ws(s + 1, e);
		if (s < e && *s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				s = skip_ws(s, e);
				if (s >= e || *s != '"' ||
				    (s = skip_string(s, e)) == NULL)
					return NULL;
				s = skip_ws(s, e);
				if (s >= e || *s != ':')
					return NULL;
				s++;
			}
			if ((s = skip_value(s, e)) == NULL)
				return NULL;
			s = skip_ws(s, e);
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

int
tc_json_raw_member(const char *text, size_t textlen, const char *const *path,
    size_t n, const char **start, size_t *len)
{
	const char *s = text, *e = text + textlen, *k, *v;
	size_t klen, i;

	*start = NULL;
	*len = 0;
	for (i = 0; i < n; i++) {
		s = skip_ws(s, e);
		if (s >= e || *s != '{')
			return TC_ENOTFOUND;
		s = skip_ws(s + 1, e);
		for (;;) {
			if (s >= e || *s != '"')
				return TC_ENOTFOUND;
			k = s + 1;
			if ((s = skip_string(s, e)) == NULL)
				return TC_ENOTFOUND;
			klen = (size_t)(s - 1 - k);
			s = skip_ws(s, e);
			if (s >= e || *s != ':')
				return TC_ENOTFOUND;
			v = skip_ws(s + 1, e);
			if (klen == strlen(path[i]) &&
			    memcmp(k, path[i], klen) == 0)
				break;
			if ((s = skip_value(v, e)) == NULL)
				return TC_ENOTFOUND;
			s = skip_ws(s, e);
			if (s >= e || *s != ',')
				return TC_ENOTFOUND;
			s = skip_ws(s + 1, e);
		}
		s = v;
	}
	if ((v = skip_value(s, e)) == NULL)
		return TC_ENOTFOUND;
	*start = s;
	*len = (size_t)(v - s);
	return 0;
}

/*
 * Checks what cJSON lets through but JSON forbids: raw control characters
 * in strings and numbers with leading zeros.  Sets *|has_nul| if a string
 * holds the escape \u0000.  Returns 0, or -1 if |s| is not strict JSON.
 */
static int
json_strict(const char *s, size_t n, int *has_nul)
{
	int in_str = 0;
	size_t i, j;

	*has_nul = 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (in_str) {
			if (c == '\\') {
				if (i + 5 < n && s[i + 1] == 'u' &&
				    memcmp(s + i + 2, "0000", 4) == 0)
					*has_nul = 1;
				i++;
			} else if (c == '"')
				in_str = 0;
			else if (c < 0x20)
				return -1;
			continue;
		}
		if (c == '"') {
			in_str = 1;
			continue;
		}
		/* cJSON skips every byte up to ' ' as white space; JSON
		 * allows only these four. */
		if (c < 0x20 && c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return -1;
		if (c != '0' || i + 1 >= n || s[i + 1] < '0' || s[i + 1] > '9')
			continue;
		/* A 0 followed by a digit: fine inside a fraction or an
		 * exponent, a leading zero at the start of an integer. */
		j = i;
		if (j > 0 && s[j - 1] == '-')
			j--;
		if (j == 0 || !strchr("0123456789.eE+-", s[j - 1]))
			return -1;
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
	char *s;

	if (p->dead)
		return;
	if ((s = cJSON_PrintUnformatted(msg)) == NULL) {
		tc_log(TC_LOG_ERROR, "out of memory printing a message");
		return;
	}
	iov[0].iov_base = s;
	iov[0].iov_len = strlen(s);
	iov[1].iov_base = (void *)(uintptr_t)"\n";
	iov[1].iov_len = 1;
	send_iov(p, iov, 2);
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

int64_t
tc_proto_request(struct tc_proto *p, const char *method, cJSON *params,
    tc_response_fn *fn, void *ctx)
{
	struct tc_outgoing *o;
	cJSON *m;
	char id[24];

	if ((o = calloc(1, sizeof(*o))) == NULL) {
		cJSON_Delete(params);
		return -1;
	}
	o->id = p->next_out_id++;
	o->fn = fn;
	o->ctx = ctx;
	snprintf(id, sizeof(id), "%lld", (long long)o->id);
	if ((m = envelope(id)) == NULL) {
		free(o);
		cJSON_Delete(params);
		return -1;
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

static void
do_response(struct tc_proto *p, cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	struct tc_outgoing **op, *o;

	if (!cJSON_IsNumber(id))
		return;
	for (op = &p->out; (o = *op) != NULL; op = &o->next) {
		if ((double)o->id == id->valuedouble) {
			*op = o->next;
			o->fn(o->ctx,
			    cJSON_GetObjectItemCaseSensitive(msg, "result"),
			    cJSON_GetObjectItemCaseSensitive(msg, "error"));
			free(o);
			return;
		}
	}
	tc_debug("response to an unknown request ignored");
}

/* Makes the raw id token and its canonical key; returns 0 or -1. */
static int
take_id(const cJSON *id, const char *text, size_t len, char **raw,
    char **key)
{
	static const char *const path[] = { "id" };
	const char *r;
	size_t rl;

	*raw = *key = NULL;
	if (tc_json_raw_member(text, len, path, 1, &r, &rl) == 0)
		*raw = strndup(r, rl);
	else
		*raw = cJSON_PrintUnformatted(id);
	if (*raw == NULL)
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

/* Returns 1 if |id| is a string or an integer (no fraction, exponent). */
static int
valid_id(const cJSON *id, const char *text, size_t len)
{
	static const char *const path[] = { "id" };
	const char *r;
	size_t rl, i;

	if (cJSON_IsString(id))
		return 1;
	if (!cJSON_IsNumber(id))
		return 0;
	if (tc_json_raw_member(text, len, path, 1, &r, &rl) != 0)
		/* The member's name was written with escapes. */
		return id->valuedouble == floor(id->valuedouble);
	for (i = 0; i < rl; i++)
		if (r[i] == '.' || r[i] == 'e' || r[i] == 'E')
			return 0;
	return 1;
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

/* Handles one message (ownership of |msg| taken); |text| is its source. */
static void
handle_message(struct tc_proto *p, cJSON *msg, const char *text, size_t len,
    struct tc_batch *b, int has_nul)
{
	const cJSON *jv, *id, *method;
	const struct tc_method *m;
	struct tc_request *req;

	jv = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	if (!cJSON_IsString(jv) || strcmp(jv->valuestring, "2.0") != 0) {
		invalid(p, b, msg, id, text, len, "not a JSON-RPC 2.0 message "
		    "(\"jsonrpc\": \"2.0\" needed)");
		return;
	}
	if (method == NULL && id != NULL &&
	    (cJSON_GetObjectItemCaseSensitive(msg, "result") != NULL ||
	    cJSON_GetObjectItemCaseSensitive(msg, "error") != NULL)) {
		do_response(p, msg);
		cJSON_Delete(msg);
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
	req->has_nul = has_nul != 0;
	if (id != NULL && take_id(id, text, len, &req->id, &req->id_key)) {
		tc_request_free(req);
		fault(p, b, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	if (req->id != NULL && b != NULL) {
		req->batch = b;
		b->pending++;
	}
	if (req->params != NULL && !cJSON_IsObject(req->params) &&
	    !cJSON_IsArray(req->params)) {
		tc_proto_error(req, TC_RPC_INVALID_REQUEST,
		    "invalid request: params must be an object");
		return;
	}

	if (req->id == NULL) {			/* a notification */
		if (strcmp(req->method, "notifications/cancelled") == 0)
			do_cancelled(p, req->params, text, len);
		else if (p->initialized &&
		    (m = find_method(p, req->method)) != NULL) {
			m->fn(p->cfg.ctx, req);
			return;
		}
		tc_request_free(req);
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
	m = find_method(p, req->method);
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
	int has_nul;
	cJSON *msg;

	if (!p->initialized || strcmp(p->version, BATCH_VERSION) != 0) {
		fault(p, NULL, TC_RPC_INVALID_REQUEST, "JSON-RPC batches are "
		    "not supported in this protocol version");
		return;
	}
	s = skip_ws(s, e) + 1;			/* past '[' */
	s = skip_ws(s, e);
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
	while (s < e && (v = skip_value(s, e)) != NULL) {
		s = skip_ws(s, e);
		if ((msg = cJSON_ParseWithLength(s, (size_t)(v - s))) == NULL)
			fault(p, b, TC_RPC_INTERNAL_ERROR, "out of memory");
		else {
			/* Strict already (the whole batch was checked); this
			 * only finds which element holds a U+0000. */
			(void)json_strict(s, (size_t)(v - s), &has_nul);
			handle_message(p, msg, s, (size_t)(v - s), b,
			    has_nul);
		}
		s = skip_ws(v, e);
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
	const char *end = NULL;
	int has_nul = 0;
	cJSON *msg;
	size_t i;

	if (len > 0 && line[len - 1] == '\r')
		line[--len] = '\0';
	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			break;
	if (i == len)
		return;			/* blank lines are tolerated */
	if (!tc_utf8_valid(line, len)) {
		fault(p, NULL, TC_RPC_PARSE_ERROR,
		    "parse error: the message is not valid UTF-8");
		return;
	}
	/* The length includes the terminating NUL so that trailing junk
	 * after the value is an error, not ignored. */
	msg = cJSON_ParseWithLengthOpts(line, len + 1, &end, 1);
	if (msg != NULL && json_strict(line, len, &has_nul) != 0) {
		cJSON_Delete(msg);
		msg = NULL;
	}
	if (msg == NULL) {
		fault(p, NULL, TC_RPC_PARSE_ERROR, "parse error: not JSON");
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
	handle_message(p, msg, line, len, NULL, has_nul);
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

static void
too_long(struct tc_proto *p)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "invalid request: the message exceeds "
	    "the %zu-byte limit", p->cfg.max_frame);
	fault(p, NULL, TC_RPC_INVALID_REQUEST, msg);
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
			if (nl) {
				p->draining = 0;
				too_long(p);
			}
		} else if (tc_buf_append(&p->in, s, seg) != 0) {
			/* Over the cap (or out of memory): drop what we
			 * have, skip to the end of the line, answer then. */
			tc_buf_release(&p->in);
			if (nl)
				too_long(p);
			else
				p->draining = 1;
		} else if (nl) {
			static char empty[1];

			if (p->in.len > p->cfg.max_frame &&
			    p->in.data[p->in.len - 1] != '\r')
				too_long(p);
			else
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
		/* A last line without its newline still counts. */
		if (p->draining)
			too_long(p);
		else if (p->in.len > 0)
			tc_proto_handle_line(p, p->in.data, p->in.len);
		tc_buf_release(&p->in);
		p->draining = 0;
		p->eof = 1;
		return 1;
	}
	feed(p, chunk, (size_t)n);
	return 0;
}
