/*
 * fuzz-jsonrpc.c: the stdio framing and the JSON-RPC layer (protocol.c),
 * with the server's own methods (serve/) behind them, held against the
 * strict parser of tests/lib/strictjson.h.
 *
 * The input is what a client writes on the server's stdin.  The
 * server's real method table (tc_srv_methods) answers: tools/list,
 * tools/call, resources/read and the rest, with a tool table of its own
 * here.  No call ever runs: the server is left waiting for the client's
 * roots for ever, so that every call that passes validation is held
 * (after its id, arguments and tool were checked) and nothing is forked.
 *
 * The input is fed twice, to two fresh servers reading a memfd: once line
 * by line, so that what the server writes can be laid at one line's door,
 * and once in chunks of varying sizes; both must write the same bytes.
 * For each line:
 *
 *	- a line the strict parser refuses is answered once, -32700 with a
 *	  null id or the line's own, and by nothing else; a line it accepts
 *	  never gets -32700 (where RFC 8259 leaves a choice, either is
 *	  fine: a byte order mark, nesting or numbers past the limits an
 *	  implementation may set);
 *	- a line with an escaped unpaired surrogate, JSON but no request,
 *	  is refused once with -32600, under the request's id if it has one
 *	  the server can read (a response to the server is not answered);
 *	- a message with two members of one envelope name ("id", "method",
 *	  ...) is refused with -32600;
 *	- a request is answered once (a call may be held instead), under
 *	  the id it came with; a notification is not answered (or refused,
 *	  without an id); a method name holding U+0000 is no method the
 *	  server has;
 *	- the server never holds two calls with one id, and refuses a call
 *	  as "still in progress" only for an id it holds;
 *	- a batch, in the revision that has them, is answered with one
 *	  array holding an answer to each of its requests (or, while a call
 *	  of it is held, not yet), under ids of its own elements only;
 *	- an over-long line gets -32600, under the request's id if it is
 *	  JSON with one the server can read, a blank one nothing;
 *	- every line the server writes is JSON by the strict parser, a
 *	  JSON-RPC response, request or notification.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "serve/server-int.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "strictjson.h"

#define FRAME		2048	/* the line cap: small, so that it is reached */
#define MODEL_MAX	512	/* held calls the harness follows */
#define BATCHES		"2025-03-26"	/* the revision that has batches */
#define SJ_VALID_TAKEN	2	/* a choice RFC 8259 leaves, which the server
				   took */

static int	never_runs(const struct tc_call *, struct tc_result *);

static const struct tc_arg fz_path_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX, .description = "A path." },
	{ NULL }
};

static const struct tc_arg fz_read_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX, .description = "A path." },
	{ .name = "head", .type = TC_ARG_INT, .min = 1, .max = INT_MAX,
	  .description = "The first N lines." },
	{ .name = "tail", .type = TC_ARG_INT, .min = 1, .max = INT_MAX,
	  .description = "The last N lines." },
	{ NULL }
};

static const struct tc_arg fz_write_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX, .description = "A path." },
	{ .name = "content", .type = TC_ARG_STRING, .flags = TC_ARG_REQUIRED,
	  .max_len = 1u << 20, .description = "What to write." },
	{ NULL }
};

/* The argument types of the shell and SQLite servers, for their checks. */
static const struct tc_arg fz_query_args[] = {
	{ .name = "sql", .type = TC_ARG_STRING, .flags = TC_ARG_REQUIRED,
	  .max_len = 1024, .description = "A statement." },
	{ .name = "params", .type = TC_ARG_SCALAR_ARRAY, .max_len = 8,
	  .item_max_len = 64, .description = "Its parameters." },
	{ .name = "env", .type = TC_ARG_STRING_MAP,
	  .flags = TC_ARG_NAME_KEYS | TC_ARG_NULLABLE, .max_len = 4,
	  .key_max_len = 16, .item_max_len = 64,
	  .description = "Variables." },
	{ .name = "ratio", .type = TC_ARG_NUMBER, .flags = TC_ARG_NULLABLE,
	  .num_min = -1, .num_max = 1, .description = "A ratio." },
	{ NULL }
};
/* Profiles of the harness's own: its tools never run. */
static const struct tc_profile fz_read = { .name = "fuzz-read" };
static const struct tc_profile fz_write = { .name = "fuzz-write" };

static const struct tc_tool fz_tools[] = {
	{ .name = "read_text_file", .title = "Read",
	  .description = "Reads a text file.", .args = fz_read_args,
	  .output_schema = "{\"type\":\"object\"}", .fn = never_runs,
	  .profile = &fz_read, .flags = TC_TOOL_READONLY },
	{ .name = "write_file", .title = "Write",
	  .description = "Writes a file.", .args = fz_write_args,
	  .output_schema = "{\"type\":\"object\"}", .fn = never_runs,
	  .profile = &fz_write, .flags = TC_TOOL_DESTRUCTIVE },
	{ .name = "query", .title = "Query",
	  .description = "Runs a statement.", .args = fz_query_args,
	  .output_schema = "{\"type\":\"object\"}", .fn = never_runs,
	  .profile = &fz_read, .flags = TC_TOOL_READONLY },
	{ .name = "read_resource", .title = "Resource",
	  .description = "Reads a resource.", .args = fz_path_args,
	  .output_schema = "{\"type\":\"object\"}", .fn = never_runs,
	  .profile = &fz_read, .flags = TC_TOOL_READONLY | TC_TOOL_RESOURCE },
};

/* resources/read: a file:// URI is read_resource's path. */
static int
fz_resource_args(const struct tc_policy *pol, const char *uri, cJSON **args,
    struct tc_diag *d)
{
	char *path;

	(void)pol;
	if ((path = tc_uri_file_path(uri)) == NULL)
		return tc_diag(d, TC_EINVAL, "only file:// URIs");
	*args = cJSON_CreateObject();
	cJSON_AddStringToObject(*args, "path", path);
	free(path);
	return 0;
}

static const struct tc_resources fz_resources = {
	.tool = "read_resource", .read = fz_resource_args,
};

/* The write tool is offered only with a writable root, as toolcell-fs's
 * are. */
static int
fz_offered(const struct tc_policy *pol, const struct tc_tool *t, char *why,
    size_t len)
{
	if ((t->flags & TC_TOOL_READONLY) || tc_policy_writable(pol))
		return 1;
	if (why != NULL)
		snprintf(why, len, "is not offered: nothing is writable");
	return 0;
}

static const struct tc_server fz_server = {
	.name = "toolcell-fuzz", .title = "toolcell fuzz",
	.version = TC_VERSION, .summary = "the fuzz harness's server",
	.tools = fz_tools, .ntools = TC_NITEMS(fz_tools),
	.offered = fz_offered, .resources = &fz_resources,
};

static struct tc_policy fz_pol;
static cJSON *fz_tools_json;
static struct tc_buf fz_instructions;
static int in_fd = -1, out_fd = -1;
static char fz_root[64];

/* No call is ever started: the roots never settle. */
static int
never_runs(const struct tc_call *c, struct tc_result *r)
{
	(void)c;
	(void)r;
	fuzz_fail(__FILE__, __LINE__, "never_runs", "a call ran");
}

/* --- One server --- */

struct session {
	struct srv	 s;
	off_t		 in_end;	/* bytes written to in_fd */
	off_t		 out_seen;	/* bytes of out_fd taken */
};

static void
session_start(struct session *ss)
{
	struct tc_proto_config pc;
	struct srv *s = &ss->s;

	if (ftruncate(in_fd, 0) != 0 || ftruncate(out_fd, 0) != 0 ||
	    lseek(in_fd, 0, SEEK_SET) != 0 || lseek(out_fd, 0, SEEK_SET) != 0)
		abort();
	memset(ss, 0, sizeof(*ss));
	s->def = &fz_server;
	s->pol = fz_pol;
	s->tools = fz_tools_json;
	s->queue_tail = &s->queue;
	s->held_tail = &s->held;
	s->settled_tail = &s->settled;
	s->roots_id = -1;
	s->sigfd = -1;
	tc_jobs_init(&s->jobs, s);
	/* Roots waiting to be applied, which only the serving loop (not
	 * run here) does: every call that passes validation is held. */
	s->roots_apply = 1;
	memset(&pc, 0, sizeof(pc));
	pc.name = fz_server.name;
	pc.title = fz_server.title;
	pc.version = fz_server.version;
	pc.instructions = fz_instructions.data;
	pc.capabilities = "{\"tools\":{},\"resources\":{\"listChanged\":true}}";
	pc.methods = tc_srv_methods;
	pc.nmethods = tc_srv_nmethods;
	pc.on_cancel = tc_srv_on_cancel;
	pc.ctx = s;
	pc.max_frame = FRAME;
	pc.in_fd = in_fd;
	pc.out_fd = out_fd;
	tc_proto_init(&s->proto, &pc);
}

/* Appends |n| bytes to the server's input and lets it read them all. */
static void
session_feed(struct session *ss, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = pwrite(in_fd, p, n, ss->in_end)) <= 0)
			abort();
		p += w;
		n -= (size_t)w;
		ss->in_end += w;
	}
	while (!ss->s.proto.dead && !ss->s.proto.eof &&
	    lseek(in_fd, 0, SEEK_CUR) < ss->in_end)
		tc_proto_read(&ss->s.proto);
}

/* The input ends: a last line without its newline is handled now. */
static void
session_eof(struct session *ss)
{
	if (!ss->s.proto.dead && !ss->s.proto.eof)
		tc_proto_read(&ss->s.proto);
}

/* Returns what the server wrote since the last call (*|n| bytes, in a
 * new NUL-terminated buffer). */
static char *
session_output(struct session *ss, size_t *n)
{
	struct stat sb;
	size_t len;
	char *buf;

	if (fstat(out_fd, &sb) != 0)
		abort();
	len = (size_t)(sb.st_size - ss->out_seen);
	if ((buf = malloc(len + 1)) == NULL)
		abort();
	if (len > 0 && pread(out_fd, buf, len, ss->out_seen) != (ssize_t)len)
		abort();
	buf[len] = '\0';
	ss->out_seen = sb.st_size;
	*n = len;
	return buf;
}

static void
session_end(struct session *ss)
{
	struct srv *s = &ss->s;

	tc_srv_stop_all(s);
	tc_proto_release(&s->proto);
	tc_srv_forget_new_roots(s);
	while (s->allowed != NULL) {
		struct allowance *a = s->allowed;

		s->allowed = a->next;
		free(a);
	}
}

/* --- What the server wrote --- */

struct out {
	struct sj_doc	 doc;
	int		 response;	/* a response (or a batch of them) */
	int		 code;		/* error.code of an error response */
	const char	*message;	/* its error.message */
	const struct sj_node *id;	/* of a response */
};

struct outs {
	struct out	*o;
	size_t		 n;
};

/* Writes |s| (|n| bytes) into |buf| with control bytes escaped, cut. */
static const char *
excerpt(const char *s, size_t n, char *buf, size_t len)
{
	size_t o = 0, i;

	for (i = 0; i < n && o + 8 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	if (i < n && o + 4 < len)
		o += (size_t)snprintf(buf + o, len - o, "...");
	buf[o] = '\0';
	return buf;
}

/*
 * Checks that |v| is one JSON-RPC response: an id and a result, or an
 * error, whose id the server leaves out when it has none (a line that is
 * not JSON): JSON-RPC 2.0 would have it null, MCP's schema a string or a
 * number, so neither is sent.
 */
static int
is_response(const struct sj_node *v, int *code, const char **message)
{
	const struct sj_node *e, *c, *m;

	*code = 0;
	*message = NULL;
	if (v->type != SJ_OBJECT || !sj_is_str(sj_get(v, "jsonrpc"), "2.0") ||
	    (sj_get(v, "result") != NULL) == (sj_get(v, "error") != NULL))
		return 0;
	if ((e = sj_get(v, "error")) == NULL)
		return sj_get(v, "id") != NULL;
	c = sj_get(e, "code");
	m = sj_get(e, "message");
	if (c == NULL || c->type != SJ_NUMBER || !c->integer ||
	    m == NULL || m->type != SJ_STRING)
		return 0;
	*code = (int)strtol(c->raw, NULL, 10);
	*message = m->str;
	return 1;
}

/*
 * Splits |buf| into the lines the server wrote and checks each: strict
 * JSON, and a response, a request or a notification.
 */
static void
parse_outs(const char *buf, size_t n, struct outs *outs, const char *line,
    size_t linelen)
{
	const char *p = buf, *nl;
	const struct sj_node *v, *it, *method;
	char a[256], b[512];
	struct out *o;
	int r, code;
	const char *msg;

	outs->o = NULL;
	outs->n = 0;
	if (n == 0)
		return;
	FUZZ_CHECK(buf[n - 1] == '\n', "the server's output does not end "
	    "with a newline: '%s'", excerpt(buf, n, b, sizeof(b)));
	while (p < buf + n) {
		nl = memchr(p, '\n', (size_t)(buf + n - p));
		outs->o = realloc(outs->o, (outs->n + 1) * sizeof(*outs->o));
		if (outs->o == NULL)
			abort();
		o = &outs->o[outs->n++];
		memset(o, 0, sizeof(*o));
		r = sj_parse(&o->doc, p, (size_t)(nl - p));
		FUZZ_CHECK(r == SJ_VALID && !o->doc.bom &&
		    !o->doc.lone_surrogate, "the server wrote a line that is "
		    "not JSON (%s at byte %zu): '%s'\nfuzz: after the line '%s'",
		    o->doc.why ? o->doc.why : "unpaired surrogate or BOM",
		    o->doc.at, excerpt(p, (size_t)(nl - p), b, sizeof(b)),
		    excerpt(line, linelen, a, sizeof(a)));
		v = o->doc.root;
		if (v->type == SJ_ARRAY) {
			FUZZ_CHECK(v->n > 0, "an empty batch response");
			for (it = v->child; it != NULL; it = it->next)
				FUZZ_CHECK(is_response(it, &code, &msg),
				    "a batch holds what is not a response: "
				    "'%s'", excerpt(p, (size_t)(nl - p), b,
				    sizeof(b)));
			o->response = 1;
		} else if (is_response(v, &o->code, &o->message)) {
			o->response = 1;
			o->id = sj_get(v, "id");
		} else {
			method = sj_get(v, "method");
			FUZZ_CHECK(v->type == SJ_OBJECT && method != NULL &&
			    method->type == SJ_STRING &&
			    sj_is_str(sj_get(v, "jsonrpc"), "2.0"),
			    "the server wrote neither a response nor a "
			    "request: '%s'", excerpt(p, (size_t)(nl - p), b,
			    sizeof(b)));
		}
		p = nl + 1;
	}
}

static void
outs_free(struct outs *outs)
{
	size_t i;

	for (i = 0; i < outs->n; i++)
		sj_free(&outs->o[i].doc);
	free(outs->o);
}

/*
 * Returns how many single responses |outs| has; |first| gets the first.
 * A batch's array of responses is not counted: it is written when the
 * batch's last request is answered, which a later line may bring about
 * (a call of it cancelled).
 */
static size_t
responses(const struct outs *outs, const struct out **first)
{
	size_t i, k = 0;

	*first = NULL;
	for (i = 0; i < outs->n; i++)
		if (outs->o[i].response &&
		    outs->o[i].doc.root->type == SJ_OBJECT && k++ == 0)
			*first = &outs->o[i];
	return k;
}

/* --- The calls the server holds, as the harness follows them --- */

struct held_id {
	enum sj_type	 type;
	char		*bytes;		/* strings decoded; numbers as written */
	size_t		 len;
	int		 maybe;		/* perhaps cancelled */
};

struct model {
	struct held_id	 h[MODEL_MAX];
	size_t		 n;
	int		 lost;		/* a batch made it unknowable */
	int		 batch_waits;	/* a batch may wait for a held call */
};

static int
id_bytes(const struct sj_node *id, const char **b, size_t *len)
{
	if (id->type == SJ_STRING) {
		*b = id->str;
		*len = id->len;
		return 1;
	}
	if (id->type == SJ_NUMBER) {
		*b = id->raw;
		*len = id->rawlen;
		return 1;
	}
	return 0;
}

/* Returns the held call with id |id|, or NULL. */
static struct held_id *
model_find(struct model *m, const struct sj_node *id)
{
	const char *b;
	size_t len, i;

	if (!id_bytes(id, &b, &len))
		return NULL;
	for (i = 0; i < m->n; i++)
		if (m->h[i].type == id->type && m->h[i].len == len &&
		    memcmp(m->h[i].bytes, b, len) == 0)
			return &m->h[i];
	return NULL;
}

static void
model_add(struct model *m, const struct sj_node *id)
{
	struct held_id *h;
	const char *b;
	size_t len;

	if ((h = model_find(m, id)) != NULL) {
		h->maybe = 0;
		return;
	}
	if (m->n == MODEL_MAX || !id_bytes(id, &b, &len)) {
		m->lost = 1;
		return;
	}
	h = &m->h[m->n++];
	h->type = id->type;
	h->len = len;
	h->maybe = 0;
	if ((h->bytes = malloc(len + 1)) == NULL)
		abort();
	memcpy(h->bytes, b, len);
}

static void
model_free(struct model *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->h[i].bytes);
	m->n = 0;
}

/* Returns 1 if |id| says there is none (absent or null). */
static int
no_id(const struct sj_node *id)
{
	return id == NULL || id->type == SJ_NULL;
}

/* Returns 1 if ids |a| and |b| are the same id. */
static int
same_id(const struct sj_node *a, const struct sj_node *b)
{
	const char *ab, *bb;
	size_t al, bl;

	if (a == NULL || b == NULL || a->type != b->type)
		return 0;
	if (a->type == SJ_NULL)
		return 1;
	return id_bytes(a, &ab, &al) && id_bytes(b, &bb, &bl) && al == bl &&
	    memcmp(ab, bb, al) == 0;
}

/*
 * Returns the id a server must give an error for the line |doc| that it
 * did not parse (over the cap, or refused), or NULL if it must give none:
 * a request's one id, a string without U+0000 or an integer, whose
 * token is at most TC_JSON_SKIM_IDMAX bytes of strict JSON.
 */
static const struct sj_node *
readable_id(const struct sj_doc *doc)
{
	const struct sj_node *id;
	unsigned flags;

	if (doc->root == NULL || doc->root->type != SJ_OBJECT ||
	    sj_get(doc->root, "method") == NULL ||
	    sj_count(doc->root, "id") != 1)
		return NULL;
	id = sj_get(doc->root, "id");
	if ((id->type != SJ_STRING && id->type != SJ_NUMBER) ||
	    id->rawlen > TC_JSON_SKIM_IDMAX ||
	    tc_json_strict(id->raw, id->rawlen, &flags) != 0)
		return NULL;
	if (id->type == SJ_STRING)
		return id->len == strlen(id->str) ? id : NULL;
	return id->integer ? id : NULL;
}

/*
 * Returns 1 if the id of |r|, an error for |line| that the server did
 * not parse, is one it may give: where the strict parser read the line
 * (|res|), the line's readable_id() if |must|, or none or that one if
 * not; where it could not, none, or a token that is in the line.
 */
static int
unparsed_id_ok(const struct out *r, const struct sj_doc *doc, int res,
    int must, const char *line, size_t len)
{
	const struct sj_node *want;

	if (res == SJ_VALID) {
		want = readable_id(doc);
		if (want == NULL)
			return no_id(r->id);
		return same_id(r->id, want) || (!must && no_id(r->id));
	}
	return no_id(r->id) || (r->id->rawlen > 0 &&
	    memmem(line, len, r->id->raw, r->id->rawlen) != NULL);
}

/* --- Each line --- */

/* Returns 1 if RFC 8259 lets a parser take |doc| or refuse it. */
static int
either(const struct sj_doc *doc, int r)
{
	/* cJSON's limits: nesting (CJSON_NESTING_LIMIT, 1000), and a
	 * number read into a buffer of 64 bytes. */
	return r == SJ_TOO_DEEP || (r == SJ_VALID && (doc->bom ||
	    doc->lone_surrogate || doc->max_depth >= 999 ||
	    doc->longest_number > 63));
}

/* Checks a message object |v| that the strict parser accepts. */
static void
check_message(struct session *ss, struct model *m, const struct sj_node *v,
    const struct outs *outs, const char *ex)
{
	static const char *const envelope[] = { "jsonrpc", "id", "method",
	    "params", "result", "error" };
	const struct sj_node *jv, *id, *method, *params, *rid;
	const struct out *r;
	struct held_id *h;
	size_t nr, i;
	int call, id_key_plain;

	(void)ss;
	nr = responses(outs, &r);
	for (i = 0; i < TC_NITEMS(envelope); i++) {
		if (sj_count(v, envelope[i]) < 2)
			continue;
		/* A response (to the server's own request) is never
		 * answered: one that is malformed reaches its callback as
		 * an error, and may also be refused -32600. */
		if (sj_get(v, "method") == NULL && (sj_get(v, "result") !=
		    NULL || sj_get(v, "error") != NULL) && nr == 0)
			return;
		FUZZ_CHECK(nr == 1 && r->code == TC_RPC_INVALID_REQUEST,
		    "a message with two members named '%s' was not refused "
		    "with -32600 (%zu responses, code %d): '%s'", envelope[i],
		    nr, nr ? r->code : 0, ex);
		return;
	}
	jv = sj_get(v, "jsonrpc");
	id = sj_get(v, "id");
	method = sj_get(v, "method");
	params = sj_get(v, "params");
	if (!sj_is_str(jv, "2.0")) {
		FUZZ_CHECK(nr == 1 && r->code == TC_RPC_INVALID_REQUEST,
		    "a message without \"jsonrpc\":\"2.0\" was not refused "
		    "with -32600 (%zu responses, code %d): '%s'", nr,
		    nr ? r->code : 0, ex);
		return;
	}
	if (method == NULL && id != NULL && (sj_get(v, "result") != NULL ||
	    sj_get(v, "error") != NULL)) {
		FUZZ_CHECK(nr == 0, "a response from the client was answered: "
		    "'%s'", ex);
		return;
	}
	/* An id written as "\u0069d" is found by cJSON, not by the raw
	 * member search: the server then judges it by value. */
	id_key_plain = id == NULL || (id->rawkeylen == 2 &&
	    memcmp(id->rawkey, "id", 2) == 0);
	if (method == NULL || method->type != SJ_STRING ||
	    (id != NULL && id->type != SJ_STRING && !(id->type == SJ_NUMBER &&
	    (id->integer || !id_key_plain)))) {
		FUZZ_CHECK(nr == 1 && r->code == TC_RPC_INVALID_REQUEST,
		    "an invalid request was not refused with -32600 (%zu "
		    "responses, code %d): '%s'", nr, nr ? r->code : 0, ex);
		return;
	}
	call = sj_is_str(method, "tools/call") ||
	    sj_is_str(method, "resources/read");
	if (id == NULL) {
		/* Not answered; or refused as an invalid message, with no
		 * id (JSON-RPC 2.0: the server must not reply to a
		 * notification, but a message it cannot take gets -32600). */
		FUZZ_CHECK(nr == 0 || (nr == 1 && r->code != 0 &&
		    no_id(r->id)), "a notification was answered: '%s'", ex);
		rid = sj_get(params, "requestId");
		if (sj_is_str(method, "notifications/cancelled") &&
		    rid != NULL && (h = model_find(m, rid)) != NULL)
			h->maybe = 1;
		return;
	}
	if (call)
		FUZZ_CHECK(nr <= 1, "a call was answered %zu times: '%s'", nr,
		    ex);
	else
		FUZZ_CHECK(nr == 1, "a request was answered %zu times: '%s'",
		    nr, ex);
	/* Under the request's id; an error may come without one (an id
	 * the server could not read), but never under another. */
	for (i = 0; i < outs->n; i++) {
		if (!outs->o[i].response)
			continue;
		FUZZ_CHECK(same_id(outs->o[i].id, id) ||
		    (outs->o[i].code != 0 && no_id(outs->o[i].id)) ||
		    (!id_key_plain && id->type == SJ_NUMBER),
		    "a response does not carry the request's id: '%s'", ex);
	}
	if (nr == 1 && method->len != strlen(method->str))
		FUZZ_CHECK(r->code != 0, "a method whose name holds U+0000 "
		    "was answered as if it were another: '%s'", ex);
	if (!call || m->lost || (params != NULL && params->type != SJ_OBJECT &&
	    params->type != SJ_ARRAY))
		return;
	if (nr == 0) {
		h = model_find(m, id);
		FUZZ_CHECK(h == NULL || h->maybe, "a second call with an id "
		    "that is held already was held: '%s'", ex);
		model_add(m, id);
	} else if (r->code == TC_RPC_INVALID_REQUEST && r->message != NULL &&
	    strstr(r->message, "still in progress") != NULL)
		FUZZ_CHECK(model_find(m, id) != NULL, "a call was refused as "
		    "still in progress, but no call with its id is held: '%s'",
		    ex);
}

/* Returns 1 if |e| is a request with an id the server can answer. */
static int
batch_request(const struct sj_node *e, int *call)
{
	static const char *const envelope[] = { "jsonrpc", "id", "method",
	    "params", "result", "error" };
	const struct sj_node *id = sj_get(e, "id"), *method;
	size_t i;

	*call = 0;
	if (e->type != SJ_OBJECT || id == NULL ||
	    !sj_is_str(sj_get(e, "jsonrpc"), "2.0"))
		return 0;
	for (i = 0; i < TC_NITEMS(envelope); i++)
		if (sj_count(e, envelope[i]) > 1)
			return 0;
	method = sj_get(e, "method");
	if (method == NULL || method->type != SJ_STRING ||
	    !(id->type == SJ_STRING || (id->type == SJ_NUMBER &&
	    id->integer)) || id->rawkeylen != 2)
		return 0;
	*call = sj_is_str(method, "tools/call") ||
	    sj_is_str(method, "resources/read");
	return 1;
}

/*
 * Checks the answer to the batch |arr| in a session that takes batches:
 * an array of responses, under ids of its own elements only, at least
 * one for each request it holds; while a call of it is held, nothing
 * yet.  A batch that waited for a call may be answered on this line too,
 * when an element cancels it: then the ids are not checked.
 */
static void
check_batch(struct model *m, const struct sj_node *arr,
    const struct outs *outs, const char *ex)
{
	const struct sj_node *e, *x, *xid;
	const struct out *r;
	size_t i, k, narr = 0;
	int call, held = 0, known;

	m->lost = 1;
	FUZZ_CHECK(responses(outs, &r) == 0, "a batch of %zu was answered "
	    "with a single response, not an array: '%s'", arr->n, ex);
	for (i = 0; i < outs->n; i++)
		narr += outs->o[i].doc.root->type == SJ_ARRAY;
	for (e = arr->child; e != NULL; e = e->next)
		if (batch_request(e, &call))
			held |= call;
	if (narr == 1 && !m->batch_waits) {
		for (i = 0; i < outs->n; i++) {
			if (outs->o[i].doc.root->type != SJ_ARRAY)
				continue;
			for (x = outs->o[i].doc.root->child; x != NULL;
			    x = x->next) {
				xid = sj_get(x, "id");
				known = no_id(xid);
				for (e = arr->child; e != NULL && !known;
				    e = e->next)
					known = same_id(xid, sj_get(e, "id"));
				FUZZ_CHECK(known, "a batch's response carries "
				    "an id no element of it had: '%s'", ex);
			}
		}
	}
	if (held) {
		m->batch_waits = 1;
		return;
	}
	/* No call held: every request of it is answered now. */
	for (e = arr->child; e != NULL; e = e->next) {
		if (!batch_request(e, &call))
			continue;
		for (k = 0, i = 0; i < outs->n; i++) {
			if (outs->o[i].doc.root->type != SJ_ARRAY)
				continue;
			for (x = outs->o[i].doc.root->child; x != NULL;
			    x = x->next)
				k += same_id(sj_get(x, "id"), sj_get(e, "id"));
		}
		FUZZ_CHECK(k >= 1, "a request in a batch was not answered: "
		    "'%s'", ex);
	}
}

/*
 * Checks the answer to a line that is JSON but holds an escaped unpaired
 * surrogate: no request, refused with -32600 (-32700 is allowed where
 * the nesting may have been past the server's limit).
 */
static void
lone_surrogate(const struct sj_doc *doc, const struct outs *outs,
    int parse_error, const char *line, size_t len, const char *ex,
    const char *ob)
{
	const struct sj_node *v = doc->root;
	const struct out *r;
	size_t nr;

	nr = responses(outs, &r);
	if (parse_error && doc->max_depth >= 999)
		return;
	if (v->type == SJ_OBJECT && sj_get(v, "method") == NULL &&
	    sj_get(v, "id") != NULL && (sj_get(v, "result") != NULL ||
	    sj_get(v, "error") != NULL)) {
		FUZZ_CHECK(outs->n == 0 || (nr == 1 && outs->n == 1 &&
		    r->code == TC_RPC_INVALID_REQUEST && no_id(r->id)),
		    "a response with a lone surrogate was answered: '%s'\n"
		    "fuzz: the server wrote '%s'", ex, ob);
		return;
	}
	FUZZ_CHECK(outs->n == 1 && nr == 1 &&
	    r->code == TC_RPC_INVALID_REQUEST &&
	    unparsed_id_ok(r, doc, SJ_VALID, doc->max_depth < 999, line, len),
	    "a line with a lone surrogate was not refused with one -32600, "
	    "under its id if it has one: '%s'\nfuzz: the server wrote '%s'",
	    ex, ob);
}

/*
 * Checks what the server wrote (|out|, |outlen| bytes) after reading
 * |line| (|len| bytes, without its newline).
 */
static void
check_line(struct session *ss, struct model *m, const char *line,
    size_t len, const char *out, size_t outlen)
{
	const struct out *r;
	struct outs outs;
	struct sj_doc doc;
	char ex[512], ob[512];
	size_t i, nr;
	int res, parse_error;

	parse_outs(out, outlen, &outs, line, len);
	nr = responses(&outs, &r);
	excerpt(line, len, ex, sizeof(ex));
	excerpt(out, outlen, ob, sizeof(ob));
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len > FRAME) {
		res = sj_parse(&doc, line, len);
		FUZZ_CHECK(outs.n == 1 && nr == 1 &&
		    r->code == TC_RPC_INVALID_REQUEST &&
		    unparsed_id_ok(r, &doc, res, !doc.bom &&
		    doc.max_depth < 999, line, len), "a line of %zu bytes "
		    "(the cap is %d) was not refused with -32600 once, under "
		    "its id if it has one: '%s'", len, FRAME, ob);
		sj_free(&doc);
		outs_free(&outs);
		return;
	}
	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			break;
	if (i == len) {
		FUZZ_CHECK(outs.n == 0, "a blank line was answered: '%s'", ob);
		outs_free(&outs);
		return;
	}
	res = sj_parse(&doc, line, len);
	parse_error = outs.n == 1 && nr == 1 &&
	    r->code == TC_RPC_PARSE_ERROR &&
	    unparsed_id_ok(r, &doc, res, 0, line, len);
	if (res == SJ_VALID && doc.lone_surrogate && !doc.bom) {
		lone_surrogate(&doc, &outs, parse_error, line, len, ex, ob);
		sj_free(&doc);
		outs_free(&outs);
		return;
	}
	if (either(&doc, res)) {
		/* Refused, or taken: then it is a message as any other,
		 * if the strict parser could follow it. */
		if (parse_error)
			;
		else if (res != SJ_VALID)
			m->lost = 1;
		else
			res = SJ_VALID_TAKEN;
	}
	if (res == SJ_INVALID) {
		FUZZ_CHECK(parse_error, "a line that is not JSON (%s at byte "
		    "%zu) was not answered with one -32700: '%s'\nfuzz: the "
		    "server wrote '%s'", doc.why, doc.at, ex, ob);
	} else if (res == SJ_VALID_TAKEN || (res == SJ_VALID &&
	    !either(&doc, res))) {
		for (i = 0; i < outs.n; i++)
			FUZZ_CHECK(outs.o[i].code != TC_RPC_PARSE_ERROR,
			    "a JSON line was answered -32700: '%s'", ex);
		if (doc.root->type == SJ_OBJECT)
			check_message(ss, m, doc.root, &outs, ex);
		else if (doc.root->type != SJ_ARRAY ||
		    strcmp(ss->s.proto.version, BATCHES) != 0 ||
		    doc.root->n == 0)
			FUZZ_CHECK(nr == 1 && r->code ==
			    TC_RPC_INVALID_REQUEST && outs.n == nr,
			    "a line that is no message (or a batch the "
			    "session does not take) was not refused with one "
			    "-32600: '%s'\nfuzz: the server wrote '%s'", ex,
			    ob);
		else
			check_batch(m, doc.root, &outs, ex);
	}
	sj_free(&doc);
	outs_free(&outs);
}

/* --- The two runs --- */

/* Feeds |data| line by line, checking what each line makes the server
 * write; returns all it wrote (*|n| bytes), for run_chunks() to match. */
static char *
run_lines(const char *data, size_t size, size_t *n)
{
	struct session ss;
	struct model m;
	const char *p = data, *e = data + size, *nl;
	char *all = NULL, *out;
	size_t total = 0, len;

	memset(&m, 0, sizeof(m));
	session_start(&ss);
	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		session_feed(&ss, p, nl ? (size_t)(nl - p) + 1 :
		    (size_t)(e - p));
		if (nl == NULL)
			session_eof(&ss);
		out = session_output(&ss, &len);
		check_line(&ss, &m, p, nl ? (size_t)(nl - p) :
		    (size_t)(e - p), out, len);
		if ((all = realloc(all, total + len + 1)) == NULL)
			abort();
		memcpy(all + total, out, len);
		total += len;
		free(out);
		p = nl ? nl + 1 : e;
	}
	session_eof(&ss);
	out = session_output(&ss, &len);
	FUZZ_CHECK(len == 0, "the end of the input was answered");
	free(out);
	session_end(&ss);
	model_free(&m);
	*n = total;
	return all;
}

/* Feeds |data| in chunks of 1 to 97 bytes; returns all the server wrote. */
static char *
run_chunks(const char *data, size_t size, size_t *n)
{
	struct session ss;
	uint32_t h = 2166136261u;
	size_t i, k;
	char *out;

	for (i = 0; i < size; i++)
		h = (h ^ (uint8_t)data[i]) * 16777619u;
	session_start(&ss);
	for (i = 0; i < size; i += k) {
		h = h * 1103515245u + 12345u;
		k = 1 + (h >> 16) % 97;
		if (k > size - i)
			k = size - i;
		session_feed(&ss, data + i, k);
	}
	session_eof(&ss);
	out = session_output(&ss, n);
	session_end(&ss);
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a, *b, ea[512], eb[512];
	size_t na, nb, i;

	a = run_lines((const char *)data, size, &na);
	b = run_chunks((const char *)data, size, &nb);
	for (i = 0; i < na && i < nb && a[i] == b[i]; i++)
		continue;
	FUZZ_CHECK(na == nb && i == na, "fed in chunks, the server wrote "
	    "other bytes than fed line by line, from byte %zu: '%s' and '%s'",
	    i, excerpt(a + i, na - i, ea, sizeof(ea)),
	    excerpt(b + i, nb - i, eb, sizeof(eb)));
	free(a);
	free(b);
	return 0;
}

/* --- Set-up --- */

static void
cleanup(void)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/a.txt", fz_root);
	unlink(path);
	rmdir(fz_root);
	cJSON_Delete(fz_tools_json);
	tc_buf_release(&fz_instructions);
	tc_policy_release(&fz_pol);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const names[] = { "read_text_file", "write_file",
	    "read_resource" };
	struct tc_diag d = { "", 0 };
	const char *tmp = getenv("TMPDIR");
	struct srv s;
	char path[96];
	int fd;

	(void)argc;
	(void)argv;
	tc_log_init("fuzz-jsonrpc", TC_LOG_ERROR);
	snprintf(fz_root, sizeof(fz_root), "%s/toolcell-fuzz.XXXXXX",
	    tmp != NULL && strlen(tmp) < 32 ? tmp : "/tmp");
	if (mkdtemp(fz_root) == NULL)
		tc_fatal("mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/a.txt", fz_root);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0 ||
	    write(fd, "a\n", 2) != 2 || close(fd) != 0)
		tc_fatal("%s: %s", path, strerror(errno));
	tc_policy_init(&fz_pol);
	if (tc_policy_set_server(&fz_pol, fz_server.name, names,
	    TC_NITEMS(names), 0) != 0 ||
	    tc_policy_add_root(&fz_pol, fz_root, TC_ROOT_WRITE, &d) != 0 ||
	    tc_policy_finish(&fz_pol, &d) != 0)
		tc_fatal("policy: %s", d.msg);
	memset(&s, 0, sizeof(s));
	s.def = &fz_server;
	s.pol = fz_pol;
	tc_srv_build_tools(&s);
	tc_srv_build_instructions(&s);
	fz_tools_json = s.tools;
	fz_instructions = s.instructions;
	if ((in_fd = memfd_create("fuzz-in", MFD_CLOEXEC)) < 0 ||
	    (out_fd = memfd_create("fuzz-out", MFD_CLOEXEC)) < 0)
		tc_fatal("memfd_create: %s", strerror(errno));
	atexit(cleanup);
	return 0;
}
