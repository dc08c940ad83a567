/*
 * protocol.h: MCP over stdio, for servers that know nothing of sandboxes.
 *
 * The transport reads newline-delimited JSON-RPC 2.0 messages of up to a
 * capped length from one fd and writes each outgoing message as one compact
 * line with a single write sequence.  The JSON-RPC layer checks envelopes,
 * keeps each request id as the raw token it arrived as (so it is echoed back
 * exactly), and answers protocol faults itself.  The lifecycle layer answers
 * initialize (with version negotiation) and ping, refuses other requests
 * before initialize, and hands every other method to the server's table.
 *
 * A method handler takes ownership of its request and answers it with
 * tc_proto_reply() or tc_proto_error(), at once or later: the server keeps
 * reading while a request is pending, so pings, cancellations and answers
 * to the server's own requests get through.
 *
 * Returns (protocol/): 0 or a negative TC_E* code; a request's id (from
 * 1), or TC_ENOMEM; tc_proto_read() 1 at the end of the input.  What
 * goes to the client is never a return value: it is sent, through
 * tc_proto_reply() or tc_proto_error() with a TC_RPC_* code.
 */
#ifndef TC_PROTOCOL_H
#define TC_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"

#define TC_MAX_FRAME		(16u << 20)	/* default input line cap */

/* JSON-RPC 2.0 error codes. */
#define TC_RPC_PARSE_ERROR	-32700
#define TC_RPC_INVALID_REQUEST	-32600
#define TC_RPC_METHOD_NOT_FOUND	-32601
#define TC_RPC_INVALID_PARAMS	-32602
#define TC_RPC_INTERNAL_ERROR	-32603
#define TC_RPC_RESOURCE_NOT_FOUND	-32002	/* MCP, up to 2025-11-25 */

/* The protocol revisions spoken, newest first. */
#define TC_PROTO_LATEST		"2025-11-25"
extern const char *const tc_proto_versions[];	/* NULL-terminated */

struct tc_proto;
struct tc_batch;

struct tc_request {
	struct tc_proto	*proto;
	char		*id;		/* raw id token; NULL for a notification */
	char		*id_key;	/* id in canonical form, for matching */
	const char	*method;	/* points into |root| */
	cJSON		*params;	/* points into |root|; may be NULL */
	cJSON		*root;		/* the whole message; owned */
	struct tc_batch	*batch;		/* the batch it arrived in, if any */
	char		*progress_token; /* params._meta.progressToken, raw
					   (a string or an integer), or NULL */
	unsigned	 has_nul:1;	/* some string held an escaped U+0000
					   (never the envelope, params' own
					   members or a member name) */
};

/*
 * A method handler.  It owns |req| and must pass it to tc_proto_reply() or
 * tc_proto_error() exactly once (for a notification: tc_request_free()).
 * A TC_METHOD_REQUEST handler always gets a request (req->id and
 * req->id_key set), a TC_METHOD_NOTIFICATION handler always a
 * notification (both NULL): the dispatch sees to it.
 */
typedef void tc_method_fn(void *ctx, struct tc_request *req);

/* Called for a response to one of the server's own requests. */
typedef void tc_response_fn(void *ctx, const cJSON *result,
    const cJSON *error);

/* Called when a client cancels request |id_key| still in progress. */
typedef void tc_cancel_fn(void *ctx, const char *id_key);

/*
 * What a method is.  A request-only method sent as a notification (no id)
 * is dropped unanswered, as JSON-RPC wants, before any handler sees it; a
 * notification-only method sent as a request gets -32601, since no
 * request of that name exists and a request must be answered.
 */
enum tc_method_kind {
	TC_METHOD_REQUEST = 0,		/* answered: needs an id */
	TC_METHOD_NOTIFICATION,		/* never answered: has no id */
};

struct tc_method {
	const char		*name;
	tc_method_fn		*fn;
	enum tc_method_kind	 kind;
};

struct tc_proto_config {
	const char	*name;		/* serverInfo.name */
	const char	*title;		/* serverInfo.title, optional */
	const char	*version;	/* serverInfo.version */
	const char	*instructions;	/* what the server may touch */
	const char	*capabilities;	/* JSON object text: what is implemented */
	const struct tc_method *methods;
	size_t		 nmethods;
	tc_cancel_fn	*on_cancel;
	void		*ctx;		/* passed to every callback */
	size_t		 max_frame;	/* 0: TC_MAX_FRAME */
	int		 in_fd;
	int		 out_fd;
};

struct tc_proto {
	struct tc_proto_config cfg;
	struct tc_buf	 in;		/* bytes read, not yet a whole line */
	size_t		 scan;		/* where the newline search resumes */
	int		 draining;	/* discarding the rest of an over-long line */
	struct tc_json_skim skim;	/* ... read for its id as it goes by */
	int		 eof;
	int		 dead;		/* stdout is gone; stop serving */
	int		 initialized;	/* initialize answered */
	char		 version[16];	/* negotiated protocol version */
	cJSON		*client_caps;	/* the client's capabilities; owned */
	char		*client_name;
	char		*client_version;
	int64_t		 next_out_id;
	struct tc_outgoing *out;	/* the server's requests awaiting answers */
	struct tc_batch	*batch;		/* the batch being dispatched */
};

/* Sets up |p| from |cfg| (copied; strings borrowed for |p|'s life).
 * Returns 0. */
int	tc_proto_init(struct tc_proto *p, const struct tc_proto_config *cfg);
void	tc_proto_release(struct tc_proto *p);

/*
 * Reads what is available on the input fd and handles every whole line.
 * Returns 0, or 1 once the input reached end of file.
 */
int	tc_proto_read(struct tc_proto *p);

/* Handles one line (without its newline): the transport's unit of work. */
void	tc_proto_handle_line(struct tc_proto *p, char *line, size_t len);

/*
 * Answers |req| with |result| (ownership taken; NULL means {}) and frees
 * |req|.  A notification is freed without an answer.
 */
void	tc_proto_reply(struct tc_request *req, cJSON *result);

/*
 * Answers |req| with |json| (|len| bytes, NUL-terminated) as its result,
 * sent as it is: the caller has checked that it is one JSON value in
 * compact form (no newline outside strings).
 */
void	tc_proto_reply_raw(struct tc_request *req, const char *json,
	    size_t len);

/* Answers |req| with a JSON-RPC error and frees |req|. */
void	tc_proto_error(struct tc_request *req, int code, const char *msg);

/* As tc_proto_error(), with |data| (consumed, may be NULL) as error.data. */
void	tc_proto_error_data(struct tc_request *req, int code, const char *msg,
	    cJSON *data);

/* Frees |req| without answering (a cancelled request gets no answer). */
void	tc_request_free(struct tc_request *req);

/*
 * Sends notifications/progress for the request |req| still in progress,
 * if it asked for progress (params._meta.progressToken): |progress| so
 * far, of |total| (< 0: not given), with |message| (NULL: none).  The
 * caller sees to MCP's rules: progress that increases, at a bounded rate,
 * and none once the request is answered.  Returns 1 if it was sent, 0 if
 * the request asked for none.
 */
int	tc_proto_progress(struct tc_request *req, double progress,
	    double total, const char *message);

/* Sends a notification; takes ownership of |params| (may be NULL). */
void	tc_proto_notify(struct tc_proto *p, const char *method, cJSON *params);

/*
 * Sends a request to the client; |fn| is called once with its answer, or
 * with a NULL result and an error when the session ends first.  Takes
 * ownership of |params|.  Returns the request's id, or TC_ENOMEM.
 */
int64_t	tc_proto_request(struct tc_proto *p, const char *method, cJSON *params,
	    tc_response_fn *fn, void *ctx);

/* Forgets an outgoing request (its callback will not run). */
void	tc_proto_forget(struct tc_proto *p, int64_t id);

/* Returns 1 if the client declared capability |name| at initialize. */
int	tc_proto_client_has(const struct tc_proto *p, const char *name);

#endif /* TC_PROTOCOL_H */
