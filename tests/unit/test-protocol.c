/*
 * test-protocol.c: the JSON-RPC envelope checks, the MCP lifecycle, batches,
 * cancellation and the stdio framing, driven through pipes.
 *
 * The lines sent are written with single quotes for readability; exchange()
 * turns every ' into " before the server sees the line.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/json.h"
#include "base/log.h"
#include "protocol/protocol.h"
#include "dq.h"
#include "tap.h"

struct ctx {
	struct tc_request *held[8];	/* requests kept by test/hold */
	int		 nheld;
	char		*cancelled;	/* the last key given to on_cancel */
	int		 ncancel;
	int		 has_nul;	/* req->has_nul seen by test/echo */
	int		 nresponse;	/* results for the server's requests */
	int		 nerror;	/* errors for them */
	int		 nended;	/* unanswered when the session ended */
	int		 nnote;		/* notifications/test handled */
	int		 nnote_id;	/* ... with an id */
	int		 nbare;		/* request handlers given no id */
};

static int out_rfd = -1;		/* read end of the server's output */

/* Counts a request handler's run without an id: the dispatch must never
 * let one happen (a handler keyed on the id would crash). */
static void
check_id(struct ctx *c, const struct tc_request *req)
{
	if (req->id == NULL || req->id_key == NULL)
		c->nbare++;
}

static void
m_tools_list(void *vctx, struct tc_request *req)
{
	check_id(vctx, req);
	tc_proto_reply(req, cJSON_Parse("{\"tools\":[]}"));
}

static void
m_echo(void *vctx, struct tc_request *req)
{
	struct ctx *c = vctx;
	cJSON *res = cJSON_CreateObject();

	check_id(c, req);
	c->has_nul = req->has_nul;
	cJSON_AddStringToObject(res, "method", req->method);
	if (req->params != NULL)
		cJSON_AddItemToObject(res, "params",
		    cJSON_Duplicate(req->params, 1));
	tc_proto_reply(req, res);
}

static void
m_hold(void *vctx, struct tc_request *req)
{
	struct ctx *c = vctx;

	check_id(c, req);
	if (c->nheld < (int)TC_NITEMS(c->held))
		c->held[c->nheld++] = req;
	else
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "too many held");
}

static void
on_cancel(void *vctx, const char *id_key)
{
	struct ctx *c = vctx;

	free(c->cancelled);
	c->cancelled = strdup(id_key);
	c->ncancel++;
}

static void
on_response(void *vctx, const cJSON *result, const cJSON *error)
{
	struct ctx *c = vctx;

	if (result != NULL && error == NULL)
		c->nresponse++;
	else if (result == NULL && error != NULL)
		c->nerror++;
	else if (result == NULL && error == NULL)
		c->nended++;
}

/* Answers with a string cut inside a UTF-8 character, as a bug would. */
static void
m_cut(void *vctx, struct tc_request *req)
{
	cJSON *res = cJSON_CreateObject();

	(void)vctx;
	cJSON_AddStringToObject(res, "s", "caf\xc3");
	tc_proto_reply(req, res);
}

static void
m_note(void *vctx, struct tc_request *req)
{
	struct ctx *c = vctx;

	c->nnote++;
	if (req->id != NULL)
		c->nnote_id++;
	tc_request_free(req);
}

static const struct tc_method methods[] = {
	{ "tools/list",	m_tools_list, TC_METHOD_REQUEST },
	{ "test/echo",	m_echo, TC_METHOD_REQUEST },
	{ "test/hold",	m_hold, TC_METHOD_REQUEST },
	{ "test/cut",	m_cut, TC_METHOD_REQUEST },
	{ "notifications/test", m_note, TC_METHOD_NOTIFICATION },
};

/* Sets up |p| writing to a fresh output pipe; |in_fd| may be -1. */
static void
setup(struct tc_proto *p, struct ctx *c, int in_fd, size_t max_frame)
{
	struct tc_proto_config cfg;
	int fds[2];

	memset(c, 0, sizeof(*c));
	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "toolcell-test";
	cfg.title = "toolcell test";
	cfg.version = "9.8.7";
	cfg.instructions = "touches nothing";
	cfg.capabilities = "{\"tools\":{}}";
	cfg.methods = methods;
	cfg.nmethods = TC_NITEMS(methods);
	cfg.on_cancel = on_cancel;
	cfg.ctx = c;
	cfg.max_frame = max_frame;
	cfg.in_fd = in_fd;
	if (pipe2(fds, O_CLOEXEC) != 0) {
		perror("pipe2");
		exit(2);
	}
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	out_rfd = fds[0];
	cfg.out_fd = fds[1];
	tc_proto_init(p, &cfg);
}

static void
teardown(struct tc_proto *p, struct ctx *c)
{
	int i;

	for (i = 0; i < c->nheld; i++)
		tc_request_free(c->held[i]);
	free(c->cancelled);
	close(p->cfg.out_fd);
	close(out_rfd);
	out_rfd = -1;
	tc_proto_release(p);
}

/* Returns everything the server wrote since the last call (caller frees). */
static char *
output(void)
{
	struct tc_buf b;
	char chunk[4096];
	ssize_t n;

	tc_buf_init(&b, 1u << 20);
	while ((n = read(out_rfd, chunk, sizeof(chunk))) > 0)
		tc_buf_append(&b, chunk, (size_t)n);
	return tc_buf_steal(&b);
}

/* Handles |line| (' made ") and returns what was written (caller frees). */
static char *
exchange(struct tc_proto *p, const char *line)
{
	char *copy = strdup(dq(line));

	tc_proto_handle_line(p, copy, strlen(copy));
	free(copy);
	return output();
}

/*
 * Checks that |out| is one response line with only the members a JSON-RPC
 * response may have, and returns it parsed (NULL on failure).
 */
static cJSON *
one_response(const char *out, const char *name)
{
	const char *nl = strchr(out, '\n');
	const cJSON *jv, *res, *err, *m;
	cJSON *r = NULL;
	int good;

	good = nl != NULL && nl[1] == '\0' &&
	    (r = cJSON_ParseWithLength(out, (size_t)(nl - out))) != NULL &&
	    cJSON_IsObject(r);
	if (good) {
		jv = cJSON_GetObjectItemCaseSensitive(r, "jsonrpc");
		res = cJSON_GetObjectItemCaseSensitive(r, "result");
		err = cJSON_GetObjectItemCaseSensitive(r, "error");
		good = cJSON_IsString(jv) && strcmp(jv->valuestring, "2.0") == 0
		    && (res == NULL) != (err == NULL) &&
		    (res == NULL || cJSON_IsObject(res));
		cJSON_ArrayForEach(m, r)
			if (strcmp(m->string, "jsonrpc") != 0 &&
			    strcmp(m->string, "id") != 0 &&
			    strcmp(m->string, "result") != 0 &&
			    strcmp(m->string, "error") != 0)
				good = 0;
		if (err != NULL && (!cJSON_IsNumber(cJSON_GetObjectItem(err,
		    "code")) || !cJSON_IsString(cJSON_GetObjectItem(err,
		    "message"))))
			good = 0;
	}
	if (!ok(good, "%s: one well-formed response", name)) {
		printf("#   output: '%s'\n", out);
		cJSON_Delete(r);
		return NULL;
	}
	return r;
}

/* Sends |line| and returns the single response (NULL if not one). */
static cJSON *
request(struct tc_proto *p, const char *line, const char *name)
{
	char *out = exchange(p, line);
	cJSON *r = one_response(out, name);

	free(out);
	return r;
}

static int
error_code(const cJSON *r)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");

	e = cJSON_GetObjectItemCaseSensitive(e, "code");
	return cJSON_IsNumber(e) ? e->valueint : 0;
}

/* What an error response must say about the request's id. */
#define NO_ID	0	/* no id member: it could not be read */
#define HAS_ID	1	/* the request's id */
#define ANY_ID	2	/* either: the envelope is bad, the id readable */

/* Returns 1 if the response |r| carries the id of |line| (' made "),
 * exactly as it was written there. */
static int
own_id(const cJSON *r, const char *line)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
	char want[256], *tok;
	int found;

	if (id == NULL || (tok = cJSON_PrintUnformatted(id)) == NULL)
		return 0;
	snprintf(want, sizeof(want), "\"id\":%s", tok);
	found = strstr(dq(line), want) != NULL;
	cJSON_free(tok);
	return found;
}

/* Sends |line| and checks for one error |code| and its |id| rule. */
static void
expect_error(struct tc_proto *p, const char *line, int code, int id,
    const char *name)
{
	cJSON *r = request(p, line, name);

	is_int(error_code(r), code, "%s: error %d", name, code);
	if (id == NO_ID)
		ok(r != NULL && !cJSON_HasObjectItem(r, "id"),
		    "%s: no id member", name);
	else if (id == HAS_ID)
		ok(own_id(r, line), "%s: has the request's id", name);
	else
		ok(r != NULL && (!cJSON_HasObjectItem(r, "id") ||
		    own_id(r, line)), "%s: the request's id or none", name);
	cJSON_Delete(r);
}

/* Sends |line| and checks that nothing at all is written back. */
static void
expect_silence(struct tc_proto *p, const char *line, const char *name)
{
	char *out = exchange(p, line);

	is_str(out, "", "%s: no answer", name);
	free(out);
}

/* Sends |line| and checks the exact output text (' made "). */
static void
expect_text(struct tc_proto *p, const char *line, const char *want,
    const char *name)
{
	char *out = exchange(p, line);

	is_str(out, dq(want), "%s", name);
	free(out);
}

/*
 * Sends |line|, which cJSON accepts although it is not strict JSON, and
 * checks that it is refused without its id being echoed: an echoed token
 * would make the response itself invalid JSON.
 */
static void
expect_refused(struct tc_proto *p, const char *line, const char *name)
{
	char *out = exchange(p, line);
	cJSON *r = one_response(out, name);
	int code = error_code(r);

	if (!ok(code == TC_RPC_PARSE_ERROR, "%s: refused with -32700", name))
		tap_show("output", out);
	ok(r != NULL && !cJSON_HasObjectItem(r, "id"), "%s: no id echoed",
	    name);
	cJSON_Delete(r);
	free(out);
}

static void
initialize(struct tc_proto *p, const char *version)
{
	char line[256];
	cJSON *r;

	snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':0,'method':"
	    "'initialize','params':{'protocolVersion':'%s','capabilities':"
	    "{'roots':{}},'clientInfo':{'name':'t','version':'1'}}}",
	    version);
	r = request(p, line, "initialize");
	cJSON_Delete(r);
	expect_silence(p, "{'jsonrpc':'2.0','method':'notifications/"
	    "initialized'}", "notifications/initialized");
}

static void
test_before_initialize(void)
{
	struct tc_proto p;
	struct ctx c;

	setup(&p, &c, -1, 0);
	expect_text(&p, "{'jsonrpc':'2.0','id':1,'method':'ping'}",
	    "{'jsonrpc':'2.0','id':1,'result':{}}\n",
	    "ping before initialize: {}");
	expect_error(&p, "{'jsonrpc':'2.0','id':2,'method':'server/discover'}",
	    TC_RPC_METHOD_NOT_FOUND, HAS_ID,
	    "server/discover before initialize");
	expect_error(&p, "{'jsonrpc':'2.0','id':3,'method':'tools/list'}",
	    TC_RPC_INVALID_REQUEST, HAS_ID, "tools/list before initialize");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'test/echo'}",
	    "notification before initialize");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "initialized'}", "notifications/initialized before initialize");
	teardown(&p, &c);
}

static void
test_initialize(void)
{
	static const char *const versions[] = { "2025-11-25", "2025-06-18",
	    "2025-03-26", "2024-11-05", "2099-01-01", "" };
	static const char *const want[] = { "2025-11-25", "2025-06-18",
	    "2025-03-26", "2024-11-05", "2025-11-25", "2025-11-25" };
	const cJSON *res, *si;
	struct tc_proto p;
	struct ctx c;
	char line[256], name[64];
	cJSON *r;
	size_t i;

	for (i = 0; i < TC_NITEMS(versions); i++) {
		snprintf(name, sizeof(name), "initialize '%s'", versions[i]);
		setup(&p, &c, -1, 0);
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':'i',"
		    "'method':'initialize','params':{'protocolVersion':'%s',"
		    "'capabilities':{},'clientInfo':{'name':'t',"
		    "'version':'1'}}}", versions[i]);
		r = request(&p, line, name);
		res = cJSON_GetObjectItemCaseSensitive(r, "result");
		si = cJSON_GetObjectItemCaseSensitive(res, "serverInfo");
		is_str(cJSON_GetStringValue(cJSON_GetObjectItem(res,
		    "protocolVersion")), want[i], "%s: answers %s", name,
		    want[i]);
		is_str(cJSON_GetStringValue(cJSON_GetObjectItem(si, "name")),
		    "toolcell-test", "%s: serverInfo.name", name);
		is_str(cJSON_GetStringValue(cJSON_GetObjectItem(si,
		    "version")), "9.8.7", "%s: serverInfo.version", name);
		is_str(cJSON_GetStringValue(cJSON_GetObjectItem(res,
		    "instructions")), "touches nothing", "%s: instructions",
		    name);
		ok(cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(res,
		    "capabilities"), "tools")), "%s: capabilities.tools", name);
		cJSON_Delete(r);
		if (i == 0) {
			is_int(tc_proto_client_has(&p, "roots"), 0,
			    "no roots capability declared");
			expect_error(&p, line, TC_RPC_INVALID_REQUEST, HAS_ID,
			    "second initialize");
			r = request(&p, "{'jsonrpc':'2.0','id':4,'method':"
			    "'tools/list'}", "tools/list after initialize");
			ok(cJSON_IsArray(cJSON_GetObjectItem(
			    cJSON_GetObjectItem(r, "result"), "tools")),
			    "tools/list dispatched to the method table");
			cJSON_Delete(r);
			expect_error(&p, "{'jsonrpc':'2.0','id':5,'method':"
			    "'no/such'}", TC_RPC_METHOD_NOT_FOUND, HAS_ID,
			    "unknown method after initialize");
			expect_text(&p, "{'jsonrpc':'2.0','id':6,'method':"
			    "'ping'}", "{'jsonrpc':'2.0','id':6,'result':{}}\n",
			    "ping after initialize");
		}
		teardown(&p, &c);
	}

	setup(&p, &c, -1, 0);
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'method':'initialize'}",
	    TC_RPC_INVALID_PARAMS, HAS_ID, "initialize without params");
	initialize(&p, "2025-06-18");
	is_str(p.version, "2025-06-18", "negotiated version recorded");
	is_int(tc_proto_client_has(&p, "roots"), 1,
	    "client capability 'roots' recorded");
	is_int(tc_proto_client_has(&p, "sampling"), 0,
	    "client capability 'sampling' absent");
	teardown(&p, &c);
}

static void
test_envelope(void)
{
	struct tc_proto p;
	struct ctx c;
	char nul[48], *out;
	cJSON *r;

	setup(&p, &c, -1, 0);
	initialize(&p, "2025-11-25");

	expect_error(&p, "{'jsonrpc':'2.0','id':1,", TC_RPC_PARSE_ERROR, NO_ID,
	    "truncated JSON");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'method':'ping'} x",
	    TC_RPC_PARSE_ERROR, NO_ID, "trailing junk");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'method':'ping'}{}",
	    TC_RPC_PARSE_ERROR, NO_ID, "two messages on one line");
	/* Not UTF-8, but the id is: answered under it. */
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'method':'ping','s':'\xff'}",
	    TC_RPC_PARSE_ERROR, HAS_ID, "invalid UTF-8 byte");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'method':'ping','s':'"
	    "\xed\xa0\x80'}", TC_RPC_PARSE_ERROR, HAS_ID, "UTF-8 surrogate");
	expect_error(&p, "{'jsonrpc':'2.0','id':'a\xff" "b','method':'ping'}",
	    TC_RPC_PARSE_ERROR, NO_ID, "invalid UTF-8 in the id itself");
	expect_error(&p, "{'jsonrpc':'2.0','\xff':1,'id':1,'method':'ping'}",
	    TC_RPC_PARSE_ERROR, HAS_ID, "invalid UTF-8 in another name");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'id':2,'method':'x\xff'}",
	    TC_RPC_PARSE_ERROR, NO_ID, "not UTF-8, and two ids");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'result':{},'x':'\xff'}",
	    TC_RPC_PARSE_ERROR, NO_ID, "not UTF-8, and no method: a "
	    "response is not answered under its id");
	expect_error(&p, "{'jsonrpc':'1.0','id':1,'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, ANY_ID, "jsonrpc 1.0");
	expect_error(&p, "{'id':1,'method':'ping'}", TC_RPC_INVALID_REQUEST,
	    ANY_ID, "no jsonrpc member");
	expect_error(&p, "{'jsonrpc':2.0,'id':1,'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, ANY_ID, "jsonrpc as a number");
	expect_error(&p, "{'jsonrpc':'2.0','id':null,'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, NO_ID, "id null");
	expect_error(&p, "{'jsonrpc':'2.0','id':1.5,'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, NO_ID, "id 1.5");
	expect_error(&p, "{'jsonrpc':'2.0','id':true,'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, NO_ID, "id true");
	expect_error(&p, "{'jsonrpc':'2.0','id':{'a':1},'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, NO_ID, "id an object");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'method':7}",
	    TC_RPC_INVALID_REQUEST, ANY_ID, "method not a string");
	expect_error(&p, "{'jsonrpc':'2.0','id':1}", TC_RPC_INVALID_REQUEST,
	    ANY_ID, "no method");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'method':'test/echo',"
	    "'params':'x'}", TC_RPC_INVALID_REQUEST, HAS_ID, "params a string");
	expect_error(&p, "42", TC_RPC_INVALID_REQUEST, NO_ID, "a bare number");
	expect_error(&p, "'ping'", TC_RPC_INVALID_REQUEST, NO_ID,
	    "a bare string");
	expect_error(&p, "null", TC_RPC_INVALID_REQUEST, NO_ID, "null");
	expect_silence(&p, "", "empty line");
	expect_silence(&p, " \t ", "blank line");
	memcpy(nul, dq("{'jsonrpc':'2.0','id':1,'method':'ping'}"), 41);
	nul[36] = '\0';		/* "pi\0g" */
	tc_proto_handle_line(&p, nul, 40);
	out = output();
	r = one_response(out, "raw NUL byte in a line");
	is_int(error_code(r), TC_RPC_PARSE_ERROR, "raw NUL byte: -32700");
	cJSON_Delete(r);
	free(out);

	/* cJSON is laxer than RFC 8259; what it lets through must not
	 * reach the output. */
	expect_refused(&p, "{'jsonrpc':'2.0','id':01,'method':'ping'}",
	    "id with a leading zero (01)");
	expect_refused(&p, "{'jsonrpc':'2.0','id':-01,'method':'ping'}",
	    "id with a leading zero (-01)");
	expect_refused(&p, "{'jsonrpc':'2.0','id':'a\tb','method':'ping'}",
	    "id with a raw tab");
	expect_refused(&p, "{'jsonrpc':'2.0','id':'a\x01" "b','method':'ping'}",
	    "id with a raw U+0001");
	/* cJSON skips every byte up to 0x20 as white space; JSON allows
	 * only space, tab, CR and LF. */
	expect_refused(&p, "{'jsonrpc':'2.0','id':\v5,'method':'ping'}",
	    "vertical tab before the id");
	expect_refused(&p, "{'jsonrpc':'2.0','id':5\f,'method':'ping'}",
	    "form feed after the id");
	expect_refused(&p, "{'jsonrpc':'2.0',\x01'id':7,'method':'ping'}",
	    "U+0001 between members");

	/* Ids come back as the very token they arrived as. */
	expect_text(&p, "{'jsonrpc':'2.0','id':123456789012345678901234567890,"
	    "'method':'ping'}", "{'jsonrpc':'2.0','id':"
	    "123456789012345678901234567890,'result':{}}\n",
	    "big integer id echoed exactly");
	expect_text(&p, "{'jsonrpc':'2.0','id':-7,'method':'ping'}",
	    "{'jsonrpc':'2.0','id':-7,'result':{}}\n",
	    "negative id echoed");
	expect_text(&p, "{'jsonrpc':'2.0','id':'a\\'b\\\\c\\u00e9\\n/\\/',"
	    "'method':'ping'}", "{'jsonrpc':'2.0','id':'a\\'b\\\\c\\u00e9"
	    "\\n/\\/','result':{}}\n", "string id with escapes echoed exactly");
	expect_text(&p, "  { 'method' : 'ping' , 'id' : 12 , "
	    "'jsonrpc' : '2.0' }  ", "{'jsonrpc':'2.0','id':12,'result':{}}\n",
	    "spaces around the id token");
	expect_text(&p, "{'jsonrpc':'2.0','id':'','method':'ping'}",
	    "{'jsonrpc':'2.0','id':'','result':{}}\n", "empty string id");
	expect_text(&p, "{'jsonrpc':'2.0','id':0,'method':'ping'}",
	    "{'jsonrpc':'2.0','id':0,'result':{}}\n", "id 0");
	expect_text(&p, "{'jsonrpc':'2.0','\\u0069d':5,'method':'ping'}",
	    "{'jsonrpc':'2.0','id':5,'result':{}}\n",
	    "member name 'id' written with an escape");

	/* Unknown top-level members are ignored, never echoed. */
	r = request(&p, "{'jsonrpc':'2.0','id':8,'method':'ping','extra':1,"
	    "'_meta':{'x':[1,2]}}", "extra top-level members");
	ok(r != NULL && cJSON_GetArraySize(r) == 3,
	    "extra members: the response has jsonrpc, id and result only");
	cJSON_Delete(r);

	/* Notifications are never answered, even unknown ones. */
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "nothing'}", "unknown notification");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'test/echo',"
	    "'params':{'a':1}}", "notification to a method");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'no/such'}",
	    "notification to an unknown method");

	/* An escaped NUL below params' own members is flagged for the
	 * handlers. */
	r = request(&p, "{'jsonrpc':'2.0','id':9,'method':'test/echo',"
	    "'params':{'a':{'s':'a\\u0000b'}}}", "escaped NUL");
	is_int(c.has_nul, 1, "\\u0000 sets has_nul");
	cJSON_Delete(r);
	r = request(&p, "{'jsonrpc':'2.0','id':10,'method':'test/echo',"
	    "'params':{'s':'a\\\\u0000b'}}", "escaped backslash");
	is_int(c.has_nul, 0, "\\\\u0000 (a backslash, then text) is no NUL");
	cJSON_Delete(r);
	r = request(&p, "{'jsonrpc':'2.0','id':11,'method':'test/echo',"
	    "'params':{'s':'\\u0001'}}", "escaped U+0001");
	is_int(c.has_nul, 0, "\\u0001 is no NUL");
	cJSON_Delete(r);

	teardown(&p, &c);
}

/*
 * Sends every method the server knows as a notification: each must be
 * dropped unanswered, and no request handler may run without an id.
 */
static void
notify_every_method(struct tc_proto *p, struct ctx *c, const char *when)
{
	static const char *const names[] = { "initialize", "ping",
	    "tools/list", "test/echo", "test/hold", "no/such",
	    "notifications/cancelled" };
	char line[256], name[128];
	size_t i;

	for (i = 0; i < TC_NITEMS(names); i++) {
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','method':'%s',"
		    "'params':{'requestId':42,'protocolVersion':'2025-11-25',"
		    "'capabilities':{},'clientInfo':{'name':'n','version':"
		    "'1'}}}", names[i]);
		snprintf(name, sizeof(name), "%s as a notification %s",
		    names[i], when);
		expect_silence(p, line, name);
	}
	is_int(c->nbare, 0, "%s: no request handler ran without an id",
	    when);
	snprintf(name, sizeof(name), "%s: ping answered after them", when);
	expect_text(p, "{'jsonrpc':'2.0','id':'p','method':'ping'}",
	    "{'jsonrpc':'2.0','id':'p','result':{}}\n", name);
}

static void
test_notification_kinds(void)
{
	struct tc_proto p;
	struct ctx c;
	cJSON *r;

	setup(&p, &c, -1, 0);
	notify_every_method(&p, &c, "before initialize");
	is_int(p.initialized, 0, "initialize as a notification initializes "
	    "nothing");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'method':'tools/list'}",
	    TC_RPC_INVALID_REQUEST, HAS_ID, "still not initialized");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/test'}",
	    "a notification before initialize");
	is_int(c.nnote, 0, "notifications before initialize are ignored");

	initialize(&p, "2025-11-25");
	c.ncancel = 0;
	notify_every_method(&p, &c, "after initialize");
	is_int(c.ncancel, 1, "notifications/cancelled still handled");

	/* While a request is in progress (held): the same. */
	expect_silence(&p, "{'jsonrpc':'2.0','id':42,'method':'test/hold'}",
	    "a request held in progress");
	notify_every_method(&p, &c, "while a request is in progress");
	is_int(c.nheld, 1, "only the request was held");
	tc_proto_reply(c.held[0], NULL);
	c.nheld = 0;
	free(output());

	/* In a batch too. */
	teardown(&p, &c);
	setup(&p, &c, -1, 0);
	initialize(&p, "2025-03-26");
	expect_text(&p, "[{'jsonrpc':'2.0','method':'test/echo'},{'jsonrpc':"
	    "'2.0','method':'tools/list'},{'jsonrpc':'2.0','id':1,'method':"
	    "'ping'}]", "[{'jsonrpc':'2.0','id':1,'result':{}}]\n",
	    "batch: request methods as notifications dropped");
	is_int(c.nbare, 0, "batch: no request handler ran without an id");

	/* A notification-only method: run as one, refused as a request. */
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/test'}",
	    "a declared notification");
	is_int(c.nnote, 1, "a declared notification reaches its handler");
	r = request(&p, "{'jsonrpc':'2.0','id':7,'method':'notifications/"
	    "test'}", "a notification sent with an id");
	is_int(error_code(r), TC_RPC_METHOD_NOT_FOUND,
	    "a notification sent with an id: -32601");
	ok(cJSON_IsNumber(cJSON_GetObjectItem(r, "id")),
	    "a notification sent with an id: answered with its id");
	cJSON_Delete(r);
	is_int(c.nnote_id, 0, "its handler never sees an id");
	expect_error(&p, "{'jsonrpc':'2.0','id':8,'method':'notifications/"
	    "cancelled','params':{'requestId':1}}", TC_RPC_METHOD_NOT_FOUND,
	    HAS_ID, "notifications/cancelled with an id");
	teardown(&p, &c);
}

/*
 * Values that RFC 8259 does not allow and cJSON 1.7 took: each, put where
 * a request's params member goes, must be a parse error with no id, and
 * never reach a handler.
 */
static const char *const bad_values[] = {
	/* Escapes: \u needs exactly four hex digits. */
	"'\\u00zz'", "'a.txt\\u00zz/../nothing'", "'\\u'", "'\\u1'",
	"'\\u12'", "'\\u123'", "'\\u123g'", "'\\uzzzz'", "'\\u 123'",
	"'\\u+123'", "'\\u-123'", "'\\u0x12'", "'\\U0041'", "'\\x41'",
	"'\\a'", "'\\0'", "'\\v'", "'\\e'", "'\\u00'", "'x\\'",
	/* A surrogate, then a string cut short. */
	"'\\ud800\\'",
	/* Numbers. */
	"1.", "-.5", ".5", "8.", "01", "-01", "00", "+1", "1e", "1e+",
	"1E-", "--1", "-", "1.e5", "0x10", "Infinity", "-Infinity", "NaN",
	"1..2", "1.2.3", "1e5.5", "- 1", "1 2", "0.e1", "1ee5",
	/* Literals and structure. */
	"True", "NULL", "nul", "tru", "truex", "[1,]", "{'a':1,}", "{,}",
	"{'a'}", "{'a':}", "{'a' 1}", "{1:2}", "['a' 'b']", "[", "{",
	"[1 2]", "}", "]",
};

/* Surrogates that are not a pair: JSON by RFC 8259's grammar, but no
 * UTF-8 for them, so no request. */
static const char *const lone_values[] = {
	"'\\ud800'", "'\\udbff'", "'\\udc00'", "'\\udfff'", "'\\ud800\\u0041'",
	"'\\ud800x'", "'\\udc00\\ud800'", "'\\ud800\\ud800'",
	"'\\uDBFF\\uDBFF'", "'\\ud83d\\ude00\\ude00'", "'caf\\uD83D'",
};

/* The same place, values that are JSON: each is answered. */
static const char *const good_values[] = {
	"0", "-0", "1e5", "1E+5", "1e-5", "-1.5e-3", "0.0", "10", "-10",
	"123456789012345678901234567890123456789012345678901234567890"
	"123456789012345678901234567890",
	"'\\u0041\\u00e9\\u20AC'", "'\\ud83d\\ude00'", "'\\uD83D\\uDE00'",
	"'\\'\\\\\\/\\b\\f\\n\\r\\t'", "'\x7f'", "'\xc3\xa9\xe2\x82\xac'",
	"true", "false", "null", "[]", "{}", "[1,[2,[3]]]", "{'a':{'b':[]}}",
	" [ 1 , 2 ] ",
};

static void
test_strict(void)
{
	struct tc_proto p;
	struct ctx c;
	char line[512], name[600], *out;
	size_t i;
	int ch;
	cJSON *r;

	setup(&p, &c, -1, 0);
	initialize(&p, "2025-11-25");
	for (i = 0; i < TC_NITEMS(bad_values); i++) {
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':%zu,"
		    "'method':'test/echo','params':{'v':%s}}", i + 100,
		    bad_values[i]);
		snprintf(name, sizeof(name), "value %s", bad_values[i]);
		expect_error(&p, line, TC_RPC_PARSE_ERROR, ANY_ID, name);
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':%s,"
		    "'method':'ping'}", bad_values[i]);
		snprintf(name, sizeof(name), "id %s", bad_values[i]);
		expect_error(&p, line, TC_RPC_PARSE_ERROR, NO_ID, name);
	}
	/* A lone surrogate: -32600, under the id unless it is the id. */
	for (i = 0; i < TC_NITEMS(lone_values); i++) {
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':%zu,"
		    "'method':'test/echo','params':{'v':%s}}", i + 100,
		    lone_values[i]);
		snprintf(name, sizeof(name), "value %s", lone_values[i]);
		expect_error(&p, line, TC_RPC_INVALID_REQUEST, HAS_ID, name);
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':%s,"
		    "'method':'ping'}", lone_values[i]);
		snprintf(name, sizeof(name), "id %s", lone_values[i]);
		expect_error(&p, line, TC_RPC_INVALID_REQUEST, NO_ID, name);
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':1,"
		    "'method':'ping','x':%s,'y':1.}", lone_values[i]);
		snprintf(name, sizeof(name), "%s and 1.", lone_values[i]);
		expect_error(&p, line, TC_RPC_PARSE_ERROR, HAS_ID, name);
	}
	expect_text(&p, "{'jsonrpc':'2.0','id':5,'method':'tools/call',"
	    "'params':{'name':'run_command','arguments':{'argv':['/bin/sh',"
	    "'-c','echo $FOO'],'env':{'FOO':'\\ud800'}}}}",
	    "{'jsonrpc':'2.0','id':5,'error':{'code':-32600,'message':"
	    "'invalid request: a string holds a lone UTF-16 surrogate escape "
	    "(\\\\ud800 to \\\\udfff, not in a pair), which is not a "
	    "character'}}\n", "the issue's call: -32600 under its id");
	expect_text(&p, "{'method':'test/echo','params':{'v':'caf\\ud83d'},"
	    "'jsonrpc':'2.0','id':'x-7'}", "{'jsonrpc':'2.0','id':'x-7',"
	    "'error':{'code':-32600,'message':'invalid request: a string holds "
	    "a lone UTF-16 surrogate escape (\\\\ud800 to \\\\udfff, not in "
	    "a pair), which is not a character'}}\n",
	    "the id after params, as the official SDK writes it");
	/* As any message that cannot be taken: refused without an id. */
	expect_error(&p, "{'jsonrpc':'2.0','method':'notifications/test',"
	    "'params':{'v':'\\udc00'}}", TC_RPC_INVALID_REQUEST, NO_ID,
	    "a notification with a lone surrogate");
	for (i = 0; i < TC_NITEMS(good_values); i++) {
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':%zu,"
		    "'method':'test/echo','params':{'v':%s}}", i + 100,
		    good_values[i]);
		snprintf(name, sizeof(name), "value %s", good_values[i]);
		r = request(&p, line, name);
		ok(cJSON_IsObject(cJSON_GetObjectItem(r, "result")),
		    "%s: answered", name);
		cJSON_Delete(r);
	}
	/* Each raw control character, in a string and between tokens. */
	for (ch = 1; ch < 0x20; ch++) {
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':1,"
		    "'method':'ping','s':'a%cb'}", ch);
		snprintf(name, sizeof(name), "raw U+%04X in a string", ch);
		expect_error(&p, line, TC_RPC_PARSE_ERROR, HAS_ID, name);
		if (ch == '\t' || ch == '\n' || ch == '\r')
			continue;	/* white space */
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':1,"
		    "'method':'ping',%c's':1}", ch);
		snprintf(name, sizeof(name), "raw U+%04X between tokens", ch);
		expect_error(&p, line, TC_RPC_PARSE_ERROR, NO_ID, name);
	}
	/* The cases, whole. */
	expect_error(&p, "8.", TC_RPC_PARSE_ERROR, NO_ID, "8. is not JSON");
	expect_error(&p, "{'jsonrpc':'2.0','id':3,'method':'ping\\u00zzXYZ'}",
	    TC_RPC_PARSE_ERROR, HAS_ID, "method ping\\u00zzXYZ");
	expect_error(&p, "{'jsonrpc':'2.0','id':'a\\u00zz','method':'ping'}",
	    TC_RPC_PARSE_ERROR, NO_ID, "id 'a\\u00zz' is not echoed");
	expect_error(&p, "{'jsonrpc':'2.0','id':4,'method':'tools/call',"
	    "'params':{'name':'read_text_file\\u00qq-anything'}}",
	    TC_RPC_PARSE_ERROR, HAS_ID, "tool name with \\u00qq");
	expect_error(&p, "{'jsonrpc':'2.0','id':5,'method':'test/echo',"
	    "'params':{'head':1.}}", TC_RPC_PARSE_ERROR, HAS_ID, "head: 1.");

	/* U+0000 where the protocol reads a string (envelope, params'
	 * own members) would cut it: refused, the id echoed only if it is
	 * clean. */
	expect_error(&p, "{'jsonrpc':'2.0','id':6,'method':'ping\\u0000x'}",
	    TC_RPC_INVALID_REQUEST, HAS_ID, "method with U+0000");
	expect_error(&p, "{'jsonrpc':'2.0\\u0000','id':7,'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, ANY_ID, "jsonrpc with U+0000");
	expect_error(&p, "{'jsonrpc':'2.0','id':'a\\u0000x','method':'ping'}",
	    TC_RPC_INVALID_REQUEST, NO_ID, "id with U+0000 is not echoed");
	expect_error(&p, "{'jsonrpc':'2.0','id':8,'method':'test/echo',"
	    "'params':{'name':'x\\u0000y'}}", TC_RPC_INVALID_REQUEST, HAS_ID,
	    "params member with U+0000");
	expect_error(&p, "{'jsonrpc':'2.0','id':9,'method':'test/echo',"
	    "'params':{'a\\u0000b':1}}", TC_RPC_INVALID_REQUEST, HAS_ID,
	    "member name with U+0000");
	expect_error(&p, "{'jsonrpc':'2.0','i\\u0000d':9,'id':10,'method':"
	    "'ping'}", TC_RPC_INVALID_REQUEST, HAS_ID, "'i\\u0000d' and 'id': "
	    "the id's");
	expect_error(&p, "{'jsonrpc':'2.0','i\\u0000d':10,'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, NO_ID, "'i\\u0000d' is no id");
	c.has_nul = 0;
	r = request(&p, "{'jsonrpc':'2.0','id':11,'method':'test/echo',"
	    "'params':{'arguments':{'path':'a\\u0000b'}}}", "deeper U+0000");
	ok(cJSON_IsObject(cJSON_GetObjectItem(r, "result")),
	    "U+0000 in arguments reaches the handler");
	is_int(c.has_nul, 1, "... flagged has_nul");
	cJSON_Delete(r);

	/* Ids that differ only after a U+0000 cannot collide. */
	expect_silence(&p, "{'jsonrpc':'2.0','id':'a','method':'test/hold'}",
	    "held request with id 'a'");
	c.ncancel = 0;
	out = exchange(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "cancelled','params':{'requestId':'a\\u0000zzz'}}");
	is_int(c.ncancel, 0, "a requestId 'a\\u0000zzz' cancels nothing");
	free(out);
	expect_error(&p, "{'jsonrpc':'2.0','id':'a\\u0000b','method':"
	    "'test/hold'}", TC_RPC_INVALID_REQUEST, NO_ID,
	    "a request with id 'a\\u0000b' is refused");
	is_int(c.nheld, 1, "only 'a' is held");

	/* Whatever a handler answers, the line is UTF-8. */
	expect_text(&p, "{'jsonrpc':'2.0','id':12,'method':'test/cut'}",
	    "{'jsonrpc':'2.0','id':12,'result':{'s':'caf\xef\xbf\xbd'}}\n",
	    "a string cut in a UTF-8 character goes out as U+FFFD");
	teardown(&p, &c);
}

/* tc_json_strict() itself. */
static void
test_strict_direct(void)
{
	unsigned flags;

	ok(tc_json_strict("{}", 2, &flags) == 0 && flags == 0, "{} is JSON");
	is_int(tc_json_strict("", 0, &flags), TC_EBADJSON,
	    "nothing is not JSON: TC_EBADJSON, not a bare -1");
	ok(tc_json_strict(" ", 1, &flags) != 0, "a space is not JSON");
	ok(tc_json_strict("1 ", 2, &flags) == 0, "1 and a space is JSON");
	ok(tc_json_strict("1", 1, &flags) == 0, "1 is JSON");
	ok(tc_json_strict("12", 1, &flags) == 0, "the length is obeyed");
	ok(tc_json_strict("\"a\\u0000\"", 9, &flags) == 0 &&
	    flags == (TC_JSON_NUL | TC_JSON_NUL_SHALLOW),
	    "a top-level string with U+0000: flagged shallow");
	ok(tc_json_strict(dq("[[['\\u0000']]]"), 14, &flags) == 0 &&
	    flags == TC_JSON_NUL, "U+0000 three deep: not shallow");
	ok(tc_json_strict(dq("{'\\u0000':1}"), 12, &flags) == 0 &&
	    flags == TC_JSON_NUL_NAME, "U+0000 in a name");
	ok(tc_json_strict(dq("{'a':'\\\\u0000'}"), 15, &flags) == 0 &&
	    flags == 0, "\\\\u0000 is a backslash and text");
	ok(tc_json_strict("\"\\u", 3, &flags) != 0, "\\u cut short");
	ok(tc_json_strict("\"\\ud83d\\ude0", 12, &flags) != 0,
	    "a surrogate pair cut short");
	/* A lone surrogate is told apart, but only when it is all that is
	 * wrong. */
	ok(tc_json_strict("\"\\ud800\"", 8, &flags) == TC_EBADJSON &&
	    flags == TC_JSON_LONE_SURROGATE, "a lone high surrogate: refused, "
	    "flagged");
	ok(tc_json_strict(dq("{'\\udc00':'\\u0000'}"), 19, &flags) ==
	    TC_EBADJSON && flags == (TC_JSON_LONE_SURROGATE | TC_JSON_NUL |
	    TC_JSON_NUL_SHALLOW), "a lone low surrogate in a name: flagged");
	ok(tc_json_strict(dq("['\\ud800',1.]"), 14, &flags) ==
	    TC_EBADJSON && flags == 0, "a lone surrogate and a bad number: "
	    "not flagged");
	ok(tc_json_strict(dq("['\\ud800\\u00zz']"), 17, &flags) ==
	    TC_EBADJSON && flags == 0, "a lone surrogate and a bad escape: "
	    "not flagged");
	ok(tc_json_strict("-", 1, &flags) != 0, "- alone");
	ok(tc_json_strict("1e", 2, &flags) != 0, "1e cut short");
	ok(tc_json_strict("tru", 3, &flags) != 0, "tru cut short");
	ok(tc_json_strict("{\"a\":1", 6, &flags) != 0, "an object cut short");
	/* Not UTF-8: refused by the check itself, not by its callers. */
	ok(tc_json_strict("\"\xc3\xa9\xf0\x9f\x98\x80\"", 8, &flags) == 0,
	    "a string in UTF-8 is JSON");
	ok(tc_json_strict("\"a\xff\"", 4, &flags) != 0, "a string with "
	    "0xff is not");
	ok(tc_json_strict("\"\xc0\xaf\"", 4, &flags) != 0, "nor an overlong "
	    "'/'");
	ok(tc_json_strict("\"\xed\xa0\x80\"", 5, &flags) != 0, "nor an "
	    "encoded surrogate");
	ok(tc_json_strict("\"\xe2\x82\"", 4, &flags) != 0, "nor a character "
	    "cut short by the closing quote");
	ok(tc_json_strict("{\"\x80\":1}", 7, &flags) != 0, "nor a member "
	    "name with a lone continuation byte");
	{
		static char deep[2 * 1100 + 1];
		size_t n;

		for (n = 0; n < 999; n++) {
			deep[n] = '[';
			deep[999 + n] = ']';
		}
		ok(tc_json_strict(deep, 2 * 999, &flags) == 0,
		    "999 levels of nesting");
		for (n = 0; n < 1100; n++) {
			deep[n] = '[';
			deep[1100 + n] = ']';
		}
		ok(tc_json_strict(deep, 2 * 1100, &flags) != 0,
		    "1100 levels of nesting are refused");
	}
}

/* Sends the formatted line, a response from the client: no answer. */
static __attribute__((format(printf, 3, 4))) void
respond(struct tc_proto *p, const char *name, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	expect_silence(p, line, name);
}

static void
test_server_requests(void)
{
	struct tc_proto p;
	struct ctx c;
	int64_t id, id2;
	char *out;

	setup(&p, &c, -1, 0);
	initialize(&p, "2025-11-25");
	tc_proto_notify(&p, "notifications/message", NULL);
	out = output();
	is_str(out, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/message\"}\n", "tc_proto_notify writes one line");
	free(out);

	id = tc_proto_request(&p, "roots/list", NULL, on_response, &c);
	out = output();
	ok(id >= 0, "tc_proto_request gives an id");
	is_str(out, dq("{'jsonrpc':'2.0','id':1,'method':'roots/list'}\n"),
	    "the request is written");
	free(out);
	expect_silence(&p, "{'jsonrpc':'2.0','id':999,'result':{}}",
	    "a response to an unknown request");
	is_int(c.nresponse, 0, "no callback for an unknown id");
	respond(&p, "a response to our request",
	    "{'jsonrpc':'2.0','id':%lld,'result':{'roots':[]}}", (long long)id);
	is_int(c.nresponse, 1, "the response callback ran once");
	respond(&p, "a second response to the same request",
	    "{'jsonrpc':'2.0','id':%lld,'result':{'roots':[]}}", (long long)id);
	is_int(c.nresponse, 1, "the callback does not run twice");

	id2 = tc_proto_request(&p, "roots/list", NULL, on_response, &c);
	free(output());
	ok(id2 != id, "ids are not reused");
	respond(&p, "an error response to our request", "{'jsonrpc':'2.0',"
	    "'id':%lld,'error':{'code':-32601,'message':'no'}}",
	    (long long)id2);
	is_int(c.nerror, 1, "the callback got the error");

	id = tc_proto_request(&p, "roots/list", NULL, on_response, &c);
	free(output());
	tc_proto_forget(&p, id);
	respond(&p, "a response to a forgotten request",
	    "{'jsonrpc':'2.0','id':%lld,'result':{}}", (long long)id);
	is_int(c.nresponse + c.nerror, 2, "no callback for a forgotten id");

	/* A response that cannot be parsed fails the request it answers,
	 * rather than leaving it waiting. */
	id = tc_proto_request(&p, "roots/list", NULL, on_response, &c);
	free(output());
	respond(&p, "a response with a lone surrogate", "{'jsonrpc':'2.0',"
	    "'id':%lld,'result':{'roots':[{'uri':'file:///\\ud800'}]}}",
	    (long long)id);
	is_int(c.nerror, 2, "... reaches its callback as an error");
	id = tc_proto_request(&p, "roots/list", NULL, on_response, &c);
	free(output());
	{
		char line[128];
		cJSON *r;

		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','result':"
		    "{'roots':[{'uri':'file:///\xff'}]},'id':%lld}",
		    (long long)id);
		r = request(&p, line, "a response that is not UTF-8");
		is_int(error_code(r), TC_RPC_PARSE_ERROR, "... is -32700");
		ok(r != NULL && !cJSON_HasObjectItem(r, "id"), "... without "
		    "its id, which is the server's own");
		cJSON_Delete(r);
	}
	is_int(c.nerror, 3, "... and reaches its callback as an error");

	(void)tc_proto_request(&p, "roots/list", NULL, on_response, &c);
	free(output());
	teardown(&p, &c);
	is_int(c.nended, 1, "an unanswered request is ended at release");
}

static const cJSON *
by_id(const cJSON *arr, const char *raw_id)
{
	const cJSON *it;
	char *s;
	int same;

	cJSON_ArrayForEach(it, arr) {
		s = cJSON_PrintUnformatted(cJSON_GetObjectItem(it, "id"));
		same = s != NULL && strcmp(s, raw_id) == 0;
		cJSON_free(s);
		if (same)
			return it;
	}
	return NULL;
}

static void
test_batch(void)
{
	struct tc_proto p;
	struct ctx c;
	cJSON *r;
	char *out;

	setup(&p, &c, -1, 0);
	initialize(&p, "2025-03-26");
	out = exchange(&p, "[{'jsonrpc':'2.0','id':1,'method':'ping'},"
	    "{'jsonrpc':'2.0','method':'notifications/x'},"
	    "{'jsonrpc':'2.0','id':'b','method':'nope'},"
	    "{'jsonrpc':'2.0','id':3,'method':'test/echo','params':{'k':3}}]");
	r = cJSON_Parse(out);
	ok(r != NULL && cJSON_IsArray(r) && cJSON_GetArraySize(r) == 3,
	    "batch: an array of three responses");
	ok(strchr(out, '\n') == out + strlen(out) - 1,
	    "batch: answered on one line");
	ok(cJSON_IsObject(cJSON_GetObjectItem(by_id(r, "1"), "result")),
	    "batch: ping answered");
	is_int(error_code(by_id(r, "\"b\"")), TC_RPC_METHOD_NOT_FOUND,
	    "batch: unknown method answered -32601");
	ok(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    by_id(r, "3"), "result"), "params"), "k") != NULL,
	    "batch: registered method dispatched");
	cJSON_Delete(r);
	free(out);

	expect_silence(&p, "[{'jsonrpc':'2.0','method':'notifications/x'},"
	    "{'jsonrpc':'2.0','method':'notifications/y'}]",
	    "all-notification batch");
	expect_error(&p, "[]", TC_RPC_INVALID_REQUEST, NO_ID, "empty batch");
	expect_error(&p, "[ ]", TC_RPC_INVALID_REQUEST, NO_ID,
	    "empty batch with a space");

	out = exchange(&p, "[1,{'jsonrpc':'2.0','id':2,'method':'ping'}]");
	r = cJSON_Parse(out);
	ok(cJSON_IsArray(r) && cJSON_GetArraySize(r) == 2,
	    "batch [1, ping]: two responses");
	is_int(error_code(cJSON_GetArrayItem(r, 0)), TC_RPC_INVALID_REQUEST,
	    "batch [1, ping]: 1 is an invalid request");
	cJSON_Delete(r);
	free(out);

	/* has_nul belongs to the request whose string holds the NUL. */
	out = exchange(&p, "[{'jsonrpc':'2.0','id':1,'method':'test/echo',"
	    "'params':{'a':['\\u0000']}},{'jsonrpc':'2.0','id':2,'method':"
	    "'test/echo','params':{'s':'plain'}}]");
	is_int(c.has_nul, 0, "batch: has_nul not set on a request without "
	    "NUL");
	free(out);
	teardown(&p, &c);

	setup(&p, &c, -1, 0);
	initialize(&p, "2025-11-25");
	expect_error(&p, "[{'jsonrpc':'2.0','id':1,'method':'ping'}]",
	    TC_RPC_INVALID_REQUEST, NO_ID, "batch under 2025-11-25");
	expect_error(&p, "[]", TC_RPC_INVALID_REQUEST, NO_ID,
	    "empty batch under 2025-11-25");
	teardown(&p, &c);
}

/* A member given twice where the protocol reads members: -32600. */
static void
test_duplicates(void)
{
	struct tc_proto p;
	struct ctx c;
	int64_t id;
	cJSON *r;
	char *out;

	setup(&p, &c, -1, 0);
	initialize(&p, "2025-03-26");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'id':2,'method':'ping'}",
	    TC_RPC_INVALID_REQUEST, NO_ID, "two ids");
	expect_error(&p, "{'jsonrpc':'2.0','id':1,'\\u0069d':1,'method':"
	    "'ping'}", TC_RPC_INVALID_REQUEST, NO_ID, "two ids, one escaped");
	expect_error(&p, "{'jsonrpc':'2.0','id':3,'method':'ping','method':"
	    "'tools/list'}", TC_RPC_INVALID_REQUEST, HAS_ID, "two methods");
	expect_error(&p, "{'jsonrpc':'2.0','jsonrpc':'2.0','id':4,'method':"
	    "'ping'}", TC_RPC_INVALID_REQUEST, HAS_ID, "two jsonrpc");
	expect_error(&p, "{'jsonrpc':'2.0','id':5,'method':'test/echo',"
	    "'params':{},'params':{'a':1}}", TC_RPC_INVALID_REQUEST, HAS_ID,
	    "two params");
	expect_error(&p, "{'jsonrpc':'2.0','id':6,'method':'ping','x':1,"
	    "'x':2}", TC_RPC_INVALID_REQUEST, HAS_ID,
	    "an unknown member twice");
	expect_error(&p, "{'jsonrpc':'2.0','id':7,'method':'test/echo',"
	    "'params':{'name':'a','name':'b'}}", TC_RPC_INVALID_REQUEST,
	    HAS_ID, "a member of params twice");
	expect_error(&p, "{'jsonrpc':'2.0','method':'test/echo','method':"
	    "'ping'}", TC_RPC_INVALID_REQUEST, NO_ID,
	    "a notification with two methods");
	r = request(&p, "{'jsonrpc':'2.0','id':8,'method':'test/echo',"
	    "'params':{'a':{'b':1,'b':2}}}", "deeper: the handler's");
	ok(cJSON_IsObject(cJSON_GetObjectItem(r, "result")),
	    "a member twice below params' own reaches the handler");
	cJSON_Delete(r);
	is_int(c.nbare, 0, "no handler ran for a refused message");

	out = exchange(&p, "[{'jsonrpc':'2.0','id':1,'id':2,'method':'ping'},"
	    "{'jsonrpc':'2.0','id':3,'method':'ping'}]");
	r = cJSON_Parse(out);
	ok(cJSON_GetArraySize(r) == 2 && error_code(cJSON_GetArrayItem(r,
	    0)) == TC_RPC_INVALID_REQUEST && cJSON_IsObject(
	    cJSON_GetObjectItem(by_id(r, "3"), "result")),
	    "batch: the element with two ids refused, the other answered");
	cJSON_Delete(r);
	free(out);

	/* A response to the server's request: its callback gets an
	 * error, and nothing is written back. */
	id = tc_proto_request(&p, "roots/list", NULL, on_response, &c);
	free(output());
	respond(&p, "a response with two results", "{'jsonrpc':'2.0','id':"
	    "%lld,'result':{'roots':[]},'result':{}}", (long long)id);
	ok(c.nresponse == 0 && c.nerror == 1,
	    "a response with two results reaches its callback as an error");
	teardown(&p, &c);
}

static void
test_cancel(void)
{
	struct tc_proto p;
	struct ctx c;
	char *out;

	setup(&p, &c, -1, 0);
	initialize(&p, "2025-11-25");

	expect_silence(&p, "{'jsonrpc':'2.0','id':42,'method':'test/hold'}",
	    "held request is not answered yet");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "cancelled','params':{'requestId':42,'reason':'x'}}",
	    "cancel of an integer id");
	is_int(c.ncancel, 1, "on_cancel ran");
	ok(c.nheld == 1 && c.cancelled != NULL &&
	    strcmp(c.cancelled, c.held[0]->id_key) == 0,
	    "integer id: the cancel key is the request's key");

	expect_silence(&p, "{'jsonrpc':'2.0','id':'a\\u0062c','method':"
	    "'test/hold'}", "held request with a string id");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "cancelled','params':{'requestId':'abc'}}",
	    "cancel of a string id");
	ok(c.nheld == 2 && c.cancelled != NULL &&
	    strcmp(c.cancelled, c.held[1]->id_key) == 0,
	    "string id: the key is canonical ('a\\u0062c' matches 'abc')");
	ok(strcmp(c.held[0]->id_key, c.held[1]->id_key) != 0,
	    "different requests have different keys");

	expect_silence(&p, "{'jsonrpc':'2.0','id':'42','method':'test/hold'}",
	    "held request with id '42'");
	ok(c.nheld == 3 && strcmp(c.held[0]->id_key, c.held[2]->id_key) != 0,
	    "the string '42' and the integer 42 have different keys");

	expect_silence(&p, "{'jsonrpc':'2.0','id':"
	    "123456789012345678901234567890,'method':'test/hold'}",
	    "held request with a big integer id");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "cancelled','params':{'requestId':123456789012345678901234567891}}",
	    "cancel of a big integer id one above");
	ok(c.nheld == 4 && c.cancelled != NULL &&
	    strcmp(c.cancelled, c.held[3]->id_key) != 0,
	    "big integer id: a key one above does not match");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "cancelled','params':{'requestId':123456789012345678901234567890}}",
	    "cancel of a big integer id");
	ok(c.nheld == 4 && c.cancelled != NULL &&
	    strcmp(c.cancelled, c.held[3]->id_key) == 0,
	    "big integer id: the cancel key is the request's key");

	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "cancelled'}", "cancel without params");
	expect_silence(&p, "{'jsonrpc':'2.0','method':'notifications/"
	    "cancelled','params':{'requestId':null}}",
	    "cancel with a null requestId");

	/* A held request is answered later, with its own id. */
	tc_proto_reply(c.held[1], NULL);
	c.held[1] = c.held[--c.nheld];
	out = output();
	is_str(out, "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0062c\","
	    "\"result\":{}}\n", "a late reply echoes the raw id");
	free(out);
	teardown(&p, &c);
}

/* Returns the raw text of |path| in |text|, or "" if it is not found. */
static const char *
raw_member(const char *text, const char *const *path, size_t n)
{
	static char got[128];
	const char *s;
	size_t len;

	got[0] = '\0';
	if (tc_json_raw_member(text, strlen(text), path, n, &s, &len) == 0)
		snprintf(got, sizeof(got), "%.*s", (int)len, s);
	return got;
}

static void
test_raw_member(void)
{
	static const char *const p_id[] = { "id" };
	static const char *const p_be[] = { "b", "e" };
	static const char *const p_bc[] = { "b", "c" };
	static const char *const p_b[] = { "b" };
	static const char *const p_pid[] = { "p", "id" };
	static const char *const p_zz[] = { "zz" };
	static const char *const p_ax[] = { "a", "x" };
	static const char *const p_d[] = { "d" };
	static const char *const p_emoji[] = { "/\n\xf0\x9f\x98\x80" };
	const char *s;
	char text[256];
	size_t n;
	cJSON *j;

	/* Strings holding braces, brackets, quotes and "id":, a nested
	 * "id", and the top-level id after them all. */
	snprintf(text, sizeof(text), "%s", dq("{'a':'{\\'}[','b':{'c':[1,"
	    "{'d':2}],'e':'x\\\\'},'s':'\\'id\\':1','p':{'id':3}, "
	    "'id' :  -12 , 'a\\'b':true}"));
	j = cJSON_Parse(text);
	ok(j != NULL, "the sample is JSON");
	cJSON_Delete(j);
	is_str(raw_member(text, p_id, 1), "-12", "raw member id");
	is_str(raw_member(text, p_be, 2), "\"x\\\\\"", "raw member b.e");
	is_str(raw_member(text, p_bc, 2), "[1,{\"d\":2}]", "raw member b.c");
	is_str(raw_member(text, p_b, 1), "{\"c\":[1,{\"d\":2}],\"e\":"
	    "\"x\\\\\"}", "raw member b");
	is_str(raw_member(text, p_pid, 2), "3", "raw member p.id");
	is_str(raw_member(text, p_d, 1), "", "d is not at the top level");
	is_int(tc_json_raw_member(text, strlen(text), p_zz, 1, &s, &n),
	    TC_ENOTFOUND, "absent member: TC_ENOTFOUND");
	is_int(tc_json_raw_member(text, strlen(text), p_ax, 2, &s, &n),
	    TC_ENOTFOUND, "member of a string: TC_ENOTFOUND");
	is_int(tc_json_raw_member("{}", 2, p_id, 1, &s, &n), TC_ENOTFOUND,
	    "empty object: TC_ENOTFOUND");
	is_int(tc_json_raw_member("[1]", 3, p_id, 1, &s, &n), TC_ENOTFOUND,
	    "an array: TC_ENOTFOUND");

	/* Names are compared as decoded. */
	is_str(raw_member(dq("{'i\\u0064':7}"), p_id, 1), "7",
	    "raw member id written i\\u0064");
	is_str(raw_member(dq("{'\\u0069\\u0044':1,'\\u0069\\u0064':8}"),
	    p_id, 1), "8", "iD is not id");
	is_str(raw_member(dq("{'\\u0070':{'\\u0069d':9}}"), p_pid, 2),
	    "9", "p.id, both escaped");
	is_str(raw_member(dq("{'id\\u0000':1,'id':2}"), p_id, 1), "2",
	    "'id\\u0000' is not id");
	is_str(raw_member(dq("{'\\/\\n\\ud83d\\ude00':3}"), p_emoji,
	    1), "3", "escapes and a surrogate pair decoded");
}

/* Writes |s| (' made ") to |fd| and lets the server read it once. */
static char *
feed(struct tc_proto *p, int fd, const char *s)
{
	const char *t = dq(s);

	if (write(fd, t, strlen(t)) != (ssize_t)strlen(t))
		perror("write");
	tc_proto_read(p);
	return output();
}

static void
test_framing(void)
{
	static const char pong1[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"result\":{}}\n";
	static const char pong2[] = "{\"jsonrpc\":\"2.0\",\"id\":2,"
	    "\"result\":{}}\n";
	struct tc_proto p;
	struct ctx c;
	char *out, big[300];
	cJSON *r;
	int in[2];

	if (pipe2(in, O_CLOEXEC | O_NONBLOCK) != 0) {
		perror("pipe2");
		exit(2);
	}
	setup(&p, &c, in[0], 64);

	out = feed(&p, in[1], "{'jsonrpc':'2.0','id':1,'method':'ping'}\n"
	    "{'jsonrpc':'2.0','id':2,'method':'ping'}\n");
	ok(strncmp(out, pong1, strlen(pong1)) == 0 &&
	    strcmp(out + strlen(pong1), pong2) == 0,
	    "two lines in one write: two answers in order");
	free(out);

	out = feed(&p, in[1], "{'jsonrpc':'2.0','id':1,");
	is_str(out, "", "half a line: no answer yet");
	free(out);
	out = feed(&p, in[1], "'method':'ping'}\n");
	is_str(out, pong1, "the rest of the line: answered");
	free(out);

	out = feed(&p, in[1], "{'jsonrpc':'2.0','id':1,'method':'ping'}\r\n");
	is_str(out, pong1, "CRLF line ending");
	free(out);

	out = feed(&p, in[1], "\n\n \r\n\t\n");
	is_str(out, "", "blank lines are ignored");
	free(out);

	/* Over-long, in one write, then a normal line. */
	memset(big, 'x', sizeof(big));
	memcpy(big, "{'jsonrpc':'2.0','id':7,'method':'ping','pad':'", 47);
	memcpy(big + 200, "'}\n{'jsonrpc':'2.0','id':2,'method':'ping'}\n",
	    45);
	out = feed(&p, in[1], big);
	ok(strlen(out) > strlen(pong2) &&
	    strcmp(out + strlen(out) - strlen(pong2), pong2) == 0,
	    "over-long line: the next line is still served");
	out[strlen(out) - strlen(pong2)] = '\0';
	r = one_response(out, "over-long line");
	is_int(error_code(r), TC_RPC_INVALID_REQUEST, "over-long line: -32600");
	ok(own_id(r, big), "over-long line: under its id, 7");
	cJSON_Delete(r);
	free(out);

	/* Over-long across writes: drained until its newline. */
	big[150] = '\0';
	out = feed(&p, in[1], big);
	is_str(out, "", "over-long line, first part: no answer yet");
	free(out);
	out = feed(&p, in[1], "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	is_str(out, "", "over-long line, middle part: still draining");
	free(out);
	out = feed(&p, in[1], "xxx'}\n{'jsonrpc':'2.0','id':1,'method':'ping'}"
	    "\n");
	ok(strlen(out) > strlen(pong1) &&
	    strcmp(out + strlen(out) - strlen(pong1), pong1) == 0,
	    "over-long line over several reads: the next line is served");
	out[strlen(out) - strlen(pong1)] = '\0';
	r = one_response(out, "over-long line over several reads");
	is_int(error_code(r), TC_RPC_INVALID_REQUEST,
	    "over-long line over several reads: one -32600");
	ok(own_id(r, "'id':7"), "over-long line over several reads: under "
	    "its id, 7");
	cJSON_Delete(r);
	free(out);

	/* The official SDK writes the id last, after params. */
	out = feed(&p, in[1], "{'method':'tools/call','params':{'arguments':"
	    "{'id':1,'s':'x\\\\\\'}yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'}},");
	is_str(out, "", "over-long line with its id last: no answer yet");
	free(out);
	out = feed(&p, in[1], "'jsonrpc':'2.0','id':'q-12'}\n");
	is_str(out, dq("{'jsonrpc':'2.0','id':'q-12','error':{'code':-32600,"
	    "'message':'invalid request: the message exceeds the 64-byte "
	    "limit'}}\n"), "over-long line with its id last: under it, "
	    "past what is nested and what is escaped");
	free(out);

	/* Where the id cannot be known, or is not a request's: none. */
	{
		static const char *const no_id[] = {
			"{'jsonrpc':'2.0','id':1,'id':2,'method':'ping',"
			    "'pad':'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}",
			"{'jsonrpc':'2.0','params':{'id':1},'method':'ping',"
			    "'pad':'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}",
			"{'jsonrpc':'2.0','id':1.5,'method':'ping',"
			    "'pad':'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}",
			"{'jsonrpc':'2.0','id':[1],'method':'ping',"
			    "'pad':'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}",
			"{'jsonrpc':'2.0','id':'a\\u0000','method':'ping',"
			    "'pad':'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}",
			"{'jsonrpc':'2.0','id':1,'method':'ping',"
			    "'pad':'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx'",
			"{'jsonrpc':'2.0','id':1,'method':'ping',"
			    "'pad':['xxxxxxxxxxxxxxxxxxxxxxxxxxxx'}}",
			"{'jsonrpc':'2.0','id':1,'method':'ping',"
			    "'pad':'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx'} {}",
			"{'jsonrpc':'2.0','id':1,'result':{'pad':"
			    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}}",
			"[{'jsonrpc':'2.0','id':1,'method':'ping','pad':"
			    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}]",
		};
		size_t i;
		char line[256];

		for (i = 0; i < TC_NITEMS(no_id); i++) {
			snprintf(line, sizeof(line), "%s\n", no_id[i]);
			out = feed(&p, in[1], line);
			r = one_response(out, no_id[i]);
			is_int(error_code(r), TC_RPC_INVALID_REQUEST,
			    "over-long %s: -32600", no_id[i]);
			ok(r != NULL && !cJSON_HasObjectItem(r, "id"),
			    "over-long %s: no id member", no_id[i]);
			cJSON_Delete(r);
			free(out);
		}
	}

	/* A line of exactly max_frame bytes is fine. */
	memset(big, ' ', 64);
	memcpy(big, "{'jsonrpc':'2.0','id':2,'method':'ping'}", 40);
	memcpy(big + 64, "\n", 2);
	out = feed(&p, in[1], big);
	is_str(out, pong2, "a line of exactly max_frame bytes is served");
	free(out);
	memcpy(big + 64, "\r\n", 3);
	out = feed(&p, in[1], big);
	is_str(out, pong2, "max_frame bytes, then CRLF: served");
	free(out);
	memcpy(big + 64, " \n", 3);
	out = feed(&p, in[1], big);
	r = one_response(out, "a line of max_frame + 1 bytes");
	is_int(error_code(r), TC_RPC_INVALID_REQUEST,
	    "a line of max_frame + 1 bytes: -32600");
	ok(own_id(r, "'id':2"), "a line of max_frame + 1 bytes: under its id");
	cJSON_Delete(r);
	free(out);

	/* The last line needs no newline; then end of file. */
	out = feed(&p, in[1], "{'jsonrpc':'2.0','id':1,'method':'ping'}");
	is_str(out, "", "unterminated line: waits for more");
	free(out);
	close(in[1]);
	is_int(tc_proto_read(&p), 1, "end of file: tc_proto_read returns 1");
	out = output();
	is_str(out, pong1, "unterminated last line answered at end of file");
	free(out);
	is_int(tc_proto_read(&p), 1, "after end of file: still 1");

	close(in[0]);
	teardown(&p, &c);
}

/*
 * Progress: a request that asked for it (params._meta.progressToken, a
 * string or an integer) is told of it with its own token, as sent; one
 * that did not, or gave a token of another kind, is told nothing.
 */
static void
test_progress(void)
{
	static const struct {
		const char	*meta;
		const char	*want;	/* the notification, or "" */
	} cases[] = {
		{ "{'progressToken':'abc'}",
		  "{'jsonrpc':'2.0','method':'notifications/progress','params':"
		  "{'progressToken':'abc','progress':2,'total':10,'message':"
		  "'half \xc3\xa9'}}\n" },
		{ "{'progressToken':-12345678901234567}",
		  "{'jsonrpc':'2.0','method':'notifications/progress','params':"
		  "{'progressToken':-12345678901234567,'progress':2,'total':10,"
		  "'message':'half \xc3\xa9'}}\n" },
		{ "{'progressToken':'a\\u0041'}",
		  "{'jsonrpc':'2.0','method':'notifications/progress','params':"
		  "{'progressToken':'a\\u0041','progress':2,'total':10,"
		  "'message':'half \xc3\xa9'}}\n" },
		{ "{'progressToken':1.5}", "" },
		{ "{'progressToken':{'a':1}}", "" },
		{ "{'progressToken':null}", "" },
		{ "{'other':1}", "" },
	};
	struct tc_proto p;
	struct ctx c;
	char line[512], *out;
	size_t i;

	setup(&p, &c, -1, 0);
	initialize(&p, TC_PROTO_LATEST);
	for (i = 0; i < TC_NITEMS(cases); i++) {
		snprintf(line, sizeof(line), "{'jsonrpc':'2.0','id':%zu,"
		    "'method':'test/hold','params':{'_meta':%s}}", 10 + i,
		    cases[i].meta);
		expect_silence(&p, line, "progress: held");
		if (!ok(c.nheld == 1, "progress: case %zu held", i))
			break;
		is_int(tc_proto_progress(c.held[0], 2, 10, "half \xc3\xa9"),
		    cases[i].want[0] != '\0', "progress: case %zu sent or "
		    "not", i);
		out = output();
		is_str(out, dq(cases[i].want), "progress: case %zu", i);
		free(out);
		tc_proto_reply(c.held[0], NULL);
		c.nheld = 0;
		free(output());
	}
	/* No total, no message. */
	expect_silence(&p, "{'jsonrpc':'2.0','id':99,'method':'test/hold',"
	    "'params':{'_meta':{'progressToken':7}}}", "progress: held");
	if (c.nheld == 1) {
		tc_proto_progress(c.held[0], 0.5, -1, NULL);
		out = output();
		is_str(out, dq("{'jsonrpc':'2.0','method':'notifications/"
		    "progress','params':{'progressToken':7,'progress':0.5}}\n"),
		    "progress: no total, no message");
		free(out);
		tc_proto_reply(c.held[0], NULL);
		c.nheld = 0;
		free(output());
	}
	teardown(&p, &c);
}

int
main(void)
{
	tc_log_init("test-protocol", TC_LOG_WARN);
	test_before_initialize();
	test_initialize();
	test_envelope();
	test_server_requests();
	test_notification_kinds();
	test_strict();
	test_strict_direct();
	test_duplicates();
	test_batch();
	test_cancel();
	test_raw_member();
	test_framing();
	test_progress();
	return done_testing();
}
