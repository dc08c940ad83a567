/*
 * job.c: every running child of a call, and jobs: the table the serving
 * loop drives, and the job tools it answers from it (see job.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <nettle/base64.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/text.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/job.h"
#include "serve/server-int.h"

/* --- The job tools' arguments and results --- */

#define JOB_ARG								\
	{ .name = "job", .type = TC_ARG_INT, .flags = TC_ARG_REQUIRED,	\
	  .min = 1, .max = INT_MAX,					\
	  .description = "The job's id, as the tool that started it "	\
	  "said." }

const struct tc_arg tc_job_read_args[] = {
	JOB_ARG,
	{ .name = "offset", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .min = 0, .max = INT64_C(1) << 53, .def = 0,
	  .description = "Where to read from: 0 at first, then the "
	  "next_offset the last read gave." },
	{ .name = "max_bytes", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .min = 1, .max = TC_JOB_READ_MAX, .def = 64 << 10,
	  .description = "Bytes to read at most." },
	{ .name = "wait_ms", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .min = 0, .max = TC_JOB_WAIT_MAX_MS, .def = 0,
	  .description = "When nothing new is there yet, wait this long "
	  "at most for output, or for the job to end." },
	{ .name = "binary", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0,
	  .description = "Also return the bytes read exactly, base64, in "
	  "the structured content's data_base64 (the text replaces bytes "
	  "that are not UTF-8)." },
	{ .name = NULL }
};

const struct tc_arg tc_job_write_args[] = {
	JOB_ARG,
	{ .name = "data", .type = TC_ARG_STRING, .max_len = TC_JOB_INPUT_MAX,
	  .description = "The text to write (a newline is not added)." },
	{ .name = "close", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0, .description = "End the job's input after the text: "
	  "it reads end of file." },
	{ .name = NULL }
};

const struct tc_arg tc_job_id_args[] = {
	JOB_ARG,
	{ .name = NULL }
};

const struct tc_arg tc_job_no_args[] = {
	{ .name = NULL }
};

#define STATE_SCHEMA							\
	"\"state\":{\"type\":\"string\",\"enum\":[\"running\","	\
	"\"exited\",\"failed\",\"stopped\",\"expired\"],"		\
	"\"description\":\"running; exited (it answered: see result); "	\
	"failed (it ended without an answer: see detail); stopped; "	\
	"expired (it reached its lifetime)\"}"

const char tc_job_start_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"job\":{\"type\":\"integer\",\"description\":\"the job's id, for "
    "the job tools\"},"
    STATE_SCHEMA "},"
    "\"required\":[\"job\",\"state\"]}";

const char tc_job_read_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"job\":{\"type\":\"integer\"}," STATE_SCHEMA ","
    "\"output\":{\"type\":\"string\",\"description\":\"the bytes read, "
    "as text (bytes that are not UTF-8 become U+FFFD)\"},"
    "\"data_base64\":{\"type\":\"string\",\"description\":\"with "
    "binary: the same bytes exactly (offset to next_offset), base64\"},"
    "\"offset\":{\"type\":\"integer\",\"description\":\"where the "
    "output begins: the offset asked for, or later when the bytes "
    "before were dropped\"},"
    "\"next_offset\":{\"type\":\"integer\",\"description\":\"the "
    "offset to read from next\"},"
    "\"dropped\":{\"type\":\"boolean\",\"description\":\"bytes from "
    "the offset asked for were dropped before this read\"},"
    "\"end\":{\"type\":\"integer\",\"description\":\"bytes the job "
    "has written so far\"},"
    "\"eof\":{\"type\":\"boolean\",\"description\":\"the job has ended "
    "and everything it wrote was read\"},"
    "\"progress\":{\"type\":\"object\"},"
    "\"result\":{\"type\":\"object\",\"description\":\"its answer, "
    "once it has exited\"},"
    "\"detail\":{\"type\":\"string\"}},"
    "\"required\":[\"job\",\"state\",\"output\",\"offset\","
    "\"next_offset\",\"dropped\",\"end\",\"eof\"]}";

const char tc_job_write_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"job\":{\"type\":\"integer\"},"
    "\"written\":{\"type\":\"integer\"},"
    "\"closed\":{\"type\":\"boolean\"}},"
    "\"required\":[\"job\",\"written\",\"closed\"]}";

const char tc_job_stop_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"job\":{\"type\":\"integer\"}," STATE_SCHEMA "},"
    "\"required\":[\"job\",\"state\"]}";

const char tc_job_list_schema[] =
    "{\"type\":\"object\",\"properties\":{\"jobs\":{\"type\":\"array\","
    "\"items\":{\"type\":\"object\",\"properties\":{"
    "\"job\":{\"type\":\"integer\"},\"tool\":{\"type\":\"string\"},"
    STATE_SCHEMA ","
    "\"seconds\":{\"type\":\"number\",\"description\":\"how long it ran, "
    "or runs so far\"},"
    "\"end\":{\"type\":\"integer\",\"description\":\"bytes of output "
    "written\"},"
    "\"dropped\":{\"type\":\"integer\",\"description\":\"of which no "
    "longer kept\"},"
    "\"stderr\":{\"type\":\"integer\",\"description\":\"of which came "
    "from stderr\"},"
    "\"progress\":{\"type\":\"object\"},"
    "\"detail\":{\"type\":\"string\"}},"
    "\"required\":[\"job\",\"tool\",\"state\",\"seconds\",\"end\","
    "\"dropped\"]}}},\"required\":[\"jobs\"]}";

int
tc_job_stub(const struct tc_call *call, struct tc_result *res)
{
	return tc_result_error(res, "%s is answered by the server, not in a "
	    "child", call->tool->name);
}

/* --- Answers --- */

/*
 * Answers |c|'s request with |res| (released here).  Returns the result's
 * info for the audit record.
 */
static struct tc_result_info
reply(struct call *c, struct tc_result *res)
{
	struct tc_result_info info = { 0, 0 };
	struct tc_buf b;
	char *text;

	tc_buf_init(&b, TC_RESULT_TEXT_MAX);
	if (tc_result_serialize(res, &b) == 0) {
		info.is_error = res->is_error;
		c->run.result_bytes = b.len;
		tc_proto_reply_raw(c->req, b.data, b.len);
	} else if ((text = tc_result_error_text("the answer could not be "
	    "built: out of memory")) != NULL) {
		info.is_error = 1;
		tc_proto_reply_raw(c->req, text, strlen(text));
		free(text);
	} else
		tc_proto_error(c->req, TC_RPC_INTERNAL_ERROR, "out of memory");
	c->req = NULL;
	tc_buf_release(&b);
	tc_result_release(res);
	return info;
}

/* Answers a job tool's call |c| with |res|, records it, and frees it. */
static void
finish(struct tc_jobs *j, struct call *c, struct tc_result *res)
{
	struct tc_diag d TC_UNINIT;
	struct tc_result_info info;

	tc_diag_init(&d);
	info = reply(c, res);
	if (tc_record_result(j->srv, c, &info, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	tc_srv_free_call(c);
}

/* Answers |c| with an error saying |fmt|, and frees it. */
static void __attribute__((format(printf, 3, 4)))
finish_error(struct tc_jobs *j, struct call *c, const char *fmt, ...)
{
	struct tc_result res;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	tc_text_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tc_result_init(&res);
	tc_result_error(&res, "%s", msg);
	finish(j, c, &res);
}

/* The name the server gave the tool with |flag|, for messages. */
static const char *
tool_named(const struct tc_jobs *j, unsigned flag, const char *dflt)
{
	const struct tc_server *def = j->srv->def;
	size_t i;

	for (i = 0; i < def->ntools; i++)
		if (def->tools[i].flags & flag)
			return def->tools[i].name;
	return dflt;
}

/* --- The table --- */

void
tc_jobs_init(struct tc_jobs *j, struct srv *s)
{
	memset(j, 0, sizeof(*j));
	j->srv = s;
	j->next_id = 1;
	j->done_tail = &j->done;
}

static struct tc_job *
find(struct tc_jobs *j, long long id)
{
	struct tc_job *job;

	for (job = j->head; job != NULL; job = job->next)
		if (job->detached && (long long)job->id == id)
			return job;
	return NULL;
}

static struct tc_ring *
output_of(struct tc_job *job)
{
	return job->ended ? &job->out : &job->call->run.out;
}

static void
free_job(struct tc_job *job)
{
	tc_ring_release(&job->out);
	free(job->result);
	free(job);
}

/* Takes |c| off the server's list of running calls. */
static void
unlink_call(struct srv *s, struct call *c)
{
	struct call **cp;

	for (cp = &s->calls; *cp != NULL; cp = &(*cp)->next)
		if (*cp == c) {
			*cp = c->next;
			return;
		}
}

/* Hands |c|, whose run ended, to the serving side to answer. */
static void
done(struct tc_jobs *j, struct call *c)
{
	c->next = NULL;
	*j->done_tail = c;
	j->done_tail = &c->next;
}

struct call *
tc_jobs_take_done(struct tc_jobs *j)
{
	struct call *c;

	if ((c = j->done) == NULL)
		return NULL;
	if ((j->done = c->next) == NULL)
		j->done_tail = &j->done;
	c->next = NULL;
	return c;
}

void
tc_jobs_add(struct tc_jobs *j, struct call *c)
{
	struct tc_result res;
	struct tc_job *job;
	cJSON *sc;

	if ((job = calloc(1, sizeof(*job))) == NULL) {
		/* No entry to drive it: the run ends here, and the call is
		 * answered as one that could not run. */
		tc_text_fmt(c->run.why, sizeof(c->run.why), "out of memory");
		tc_run_kill(&c->run, TC_OUT_SPAWN);
		tc_run_wait(&c->run);
		if (c->call.tool->flags & TC_TOOL_JOB)
			j->srv->ncalls++;	/* tc_srv_finish() counts it */
		else
			unlink_call(j->srv, c);
		done(j, c);
		return;
	}
	job->call = c;
	job->tool = c->call.tool->name;
	job->started_ms = c->run.start_ms;
	job->state = "running";
	job->pfd = -1;
	job->tokens = TC_PROGRESS_BURST;
	job->tokens_ms = tc_now_ms();
	job->next = j->head;
	j->head = job;
	j->n++;
	if (!(c->call.tool->flags & TC_TOOL_JOB))
		return;
	job->detached = 1;
	job->id = j->next_id++;
	j->running++;
	c->run.deadline_ms = c->run.start_ms +
	    j->srv->pol.job_lifetime_ms;
	tc_run_keep_output(&c->run, TC_JOB_OUTPUT);
	tc_result_init(&res);
	tc_result_printf(&res, "Started job %llu. Read its output with %s "
	    "(job %llu, offset 0)", job->id, tool_named(j, TC_TOOL_JOB_READ,
	    "the job tools"), job->id);
	if (tool_named(j, TC_TOOL_JOB_WRITE, NULL) != NULL)
		tc_result_printf(&res, ", write to its input with %s",
		    tool_named(j, TC_TOOL_JOB_WRITE, NULL));
	if (tool_named(j, TC_TOOL_JOB_STOP, NULL) != NULL)
		tc_result_printf(&res, ", stop it with %s",
		    tool_named(j, TC_TOOL_JOB_STOP, NULL));
	tc_result_printf(&res, ".");
	if ((sc = tc_result_obj(&res)) != NULL) {
		cJSON_AddNumberToObject(sc, "job", (double)job->id);
		cJSON_AddStringToObject(sc, "state", "running");
	}
	(void)reply(c, &res);
	tc_debug("job %llu: %s (pid %d)", job->id, job->tool,
	    (int)c->run.pid);
}

char *
tc_jobs_full(const struct tc_jobs *j)
{
	const struct tc_policy *pol = &j->srv->pol;
	char *m;

	if (j->running < pol->max_jobs)
		return NULL;
	if (pol->max_jobs == 0)
		m = tc_text_alloc("the policy allows no jobs ('jobs 0')");
	else
		m = tc_text_alloc("%u jobs are running, as many as the policy "
		    "allows at once; stop one with %s, or wait for one to "
		    "end (%s shows them)", j->running, tool_named(j,
		    TC_TOOL_JOB_STOP, "the job tools"), tool_named(j,
		    TC_TOOL_JOB_LIST, "the job tools"));
	return m != NULL ? m : strdup("");
}

/* --- Progress --- */

/* Adds |p| to |o| as a progress object. */
static void
add_progress(cJSON *o, const struct tc_progress *p)
{
	cJSON *po = cJSON_AddObjectToObject(o, "progress");

	cJSON_AddNumberToObject(po, "progress", p->progress);
	if (p->total >= 0)
		cJSON_AddNumberToObject(po, "total", p->total);
	if (p->message[0] != '\0')
		cJSON_AddStringToObject(po, "message", p->message);
}

/*
 * Takes |job|'s queued progress: a call whose request asked for it is
 * told, at a bounded rate; a job keeps the latest.  With |ended| (the
 * run is done, its answer goes next) nothing more is told: the official
 * TypeScript client handles a notification after the response that
 * follows it in the same read, and then reports the notification's token
 * as unknown, a protocol error (modelcontextprotocol/typescript-sdk
 * issue 2580).  The answer says the rest.  For the same reason the answer
 * of a call that was told some waits until TC_PROGRESS_QUIET_MS after the
 * last notification (tc_jobs_step()), so that the two do not reach the
 * client in one read.
 */
static void
pass_progress(struct tc_job *job, int64_t now, int ended)
{
	struct call *c = job->call;
	struct tc_progress p;
	int tell;

	tell = !job->detached && !ended && !c->cancelled && c->req != NULL &&
	    c->req->progress_token != NULL;
	if (tell) {
		job->tokens += (double)(now - job->tokens_ms) /
		    TC_PROGRESS_EVERY_MS;
		if (job->tokens > TC_PROGRESS_BURST)
			job->tokens = TC_PROGRESS_BURST;
		job->tokens_ms = now;
	}
	while ((!tell || job->tokens >= 1) &&
	    tc_run_take_progress(&c->run, &p)) {
		job->progress = p;
		job->has_progress = 1;
		if (!tell)
			continue;
		tc_proto_progress(c->req, p.progress, p.total, p.message[0] ?
		    p.message : NULL);
		job->sent_progress = 1;
		job->told_ms = now;
		job->tokens -= 1;
	}
}

/* --- Reads and stops --- */

/* Fills |sc| with what every answer about |job| says. */
static void
describe(const struct tc_job *job, cJSON *sc)
{
	cJSON_AddNumberToObject(sc, "job", (double)job->id);
	cJSON_AddStringToObject(sc, "state", job->state);
	if (job->has_progress)
		add_progress(sc, &job->progress);
	if (job->ended && job->detail[0] != '\0')
		cJSON_AddStringToObject(sc, "detail", job->detail);
}

/* Answers the read |w| of |job| with what is there now. */
static void
answer_read(struct tc_jobs *j, struct tc_job *job, struct tc_job_wait *w)
{
	const struct tc_ring *out = output_of(job);
	struct tc_result res;
	struct tc_buf text;
	uint64_t from, next;
	cJSON *sc, *result;
	char *buf, *b64 = NULL;
	size_t n;

	if ((buf = malloc(w->max)) == NULL) {
		finish_error(j, w->call, "out of memory");
		return;
	}
	n = tc_ring_read(out, w->offset, buf, w->max, &from);
	/* A character cut at the end waits for the next read, while the
	 * job may still write the rest of it. */
	if (!job->ended && n > 0 && tc_utf8_whole(buf, n) > 0)
		n = tc_utf8_whole(buf, n);
	next = from + n;
	tc_buf_init(&text, 3 * (size_t)n + 1);
	tc_result_init(&res);
	if (tc_buf_append_utf8(&text, buf, n) != 0)
		res.failed = TC_ENOMEM;
	/* The same bytes exactly, for a reader of bytes. */
	if (w->binary) {
		if ((b64 = malloc(BASE64_ENCODE_RAW_LENGTH(n) + 1)) != NULL) {
			base64_encode_raw(b64, n, (const uint8_t *)buf);
			b64[BASE64_ENCODE_RAW_LENGTH(n)] = '\0';
		} else
			res.failed = TC_ENOMEM;
	}
	free(buf);
	if (from > w->offset)
		tc_result_printf(&res, "[%" PRIu64 " bytes from offset %" PRIu64
		    " were dropped: a job keeps its last %u bytes]\n", from -
		    w->offset, w->offset, TC_JOB_OUTPUT);
	tc_result_text(&res, text.data != NULL ? text.data : "", text.len);
	if (n > 0 && text.data[text.len - 1] != '\n')
		tc_result_printf(&res, "\n");
	tc_result_printf(&res, "[job %llu: %s; next offset %" PRIu64 "%s]",
	    job->id, job->state, next, job->ended && next == out->end ?
	    "; all of its output was read" : "");
	if (job->ended && job->detail[0] != '\0')
		tc_result_printf(&res, "\n%s", job->detail);
	if ((sc = tc_result_obj(&res)) != NULL) {
		describe(job, sc);
		cJSON_AddStringToObject(sc, "output", text.data != NULL ?
		    text.data : "");
		if (b64 != NULL)
			cJSON_AddStringToObject(sc, "data_base64", b64);
		cJSON_AddNumberToObject(sc, "offset", (double)from);
		cJSON_AddNumberToObject(sc, "next_offset", (double)next);
		cJSON_AddBoolToObject(sc, "dropped", from > w->offset);
		cJSON_AddNumberToObject(sc, "end", (double)out->end);
		cJSON_AddBoolToObject(sc, "eof", job->ended &&
		    next == out->end);
		if (job->result != NULL && (result =
		    cJSON_Parse(job->result)) != NULL)
			cJSON_AddItemToObject(sc, "result", result);
	}
	tc_buf_release(&text);
	free(b64);
	finish(j, w->call, &res);
}

/* Answers the stop |w| of |job|, which has ended. */
static void
answer_stop(struct tc_jobs *j, struct tc_job *job, struct tc_job_wait *w)
{
	struct tc_result res;
	cJSON *sc;

	tc_result_init(&res);
	tc_result_printf(&res, "Job %llu %s: %s.", job->id,
	    strcmp(job->state, "stopped") == 0 ? "is stopped" : "had ended",
	    job->detail);
	if ((sc = tc_result_obj(&res)) != NULL)
		describe(job, sc);
	finish(j, w->call, &res);
}

/*
 * Answers the waits on |job| that can be answered now: reads with
 * output past their offset (or whose job ended, or whose wait is over),
 * stops of an ended job.
 */
static void
answer_waits(struct tc_jobs *j, struct tc_job *job, int64_t now)
{
	struct tc_job_wait **wp, *w;

	for (wp = &job->waits; (w = *wp) != NULL;) {
		if (w->stop ? !job->ended : !job->ended &&
		    output_of(job)->end <= w->offset && now < w->deadline_ms) {
			wp = &w->next;
			continue;
		}
		*wp = w->next;
		if (w->stop)
			answer_stop(j, job, w);
		else
			answer_read(j, job, w);
		free(w);
	}
}

/* Adds a wait of |c| on |job|; answers |c| with an error if it cannot. */
static void
add_wait(struct tc_jobs *j, struct tc_job *job, struct call *c, int stop,
    int64_t deadline)
{
	struct tc_job_wait *w;

	if ((w = calloc(1, sizeof(*w))) == NULL) {
		finish_error(j, c, "out of memory");
		return;
	}
	w->call = c;
	w->stop = stop;
	if (!stop) {
		w->offset = (uint64_t)tc_arg_int(&c->call, "offset", 0);
		w->max = (size_t)tc_arg_int(&c->call, "max_bytes", 64 << 10);
		w->binary = tc_arg_bool(&c->call, "binary", 0);
	}
	w->deadline_ms = deadline;
	w->next = job->waits;
	job->waits = w;
	answer_waits(j, job, tc_now_ms());
}

/* --- The end of a job --- */

/* The state an ended run leaves its job in, and why. */
static void
settle(struct tc_job *job)
{
	const struct tc_run *r = &job->call->run;

	switch (r->outcome) {
	case TC_OUT_OK:
		job->state = r->answered ? "exited" : "failed";
		break;
	case TC_OUT_TIMEOUT:
		job->state = r->answered ? "exited" : "expired";
		break;
	case TC_OUT_CANCELLED:
		job->state = "stopped";
		break;
	case TC_OUT_TOOBIG:
	case TC_OUT_BADFRAME:
	case TC_OUT_CRASHED:
	case TC_OUT_NORESULT:
	case TC_OUT_CONFINE:
	case TC_OUT_SPAWN:
	default:
		job->state = "failed";
		break;
	}
}

/* Removes the oldest ended jobs past TC_JOBS_ENDED_KEPT (none waited on). */
static void
prune(struct tc_jobs *j)
{
	struct tc_job **jp, *job, **oldest;
	unsigned ended = 0;

	for (job = j->head; job != NULL; job = job->next)
		ended += job->ended;
	while (ended > TC_JOBS_ENDED_KEPT) {
		oldest = NULL;
		for (jp = &j->head; (job = *jp) != NULL; jp = &job->next)
			if (job->ended && job->waits == NULL && (oldest ==
			    NULL || job->ended_ms <= (*oldest)->ended_ms))
				oldest = jp;
		if (oldest == NULL)
			return;
		job = *oldest;
		*oldest = job->next;
		free_job(job);
		j->n--;
		ended--;
	}
}

/*
 * Ends |job|, whose run is done.  A call's is answered and freed, with
 * its table entry.  A job keeps its output, its child's answer and its
 * state for its readers; its call, recorded, is freed.
 */
static void
end_job(struct tc_jobs *j, struct tc_job *job, struct tc_job **jp)
{
	struct call *c = job->call;
	struct tc_diag d TC_UNINIT;
	struct tc_answer a;
	int64_t now = tc_now_ms();

	tc_diag_init(&d);
	pass_progress(job, now, 1);
	if (!job->detached) {
		*jp = job->next;
		j->n--;
		unlink_call(j->srv, c);
		free_job(job);
		done(j, c);
		return;
	}
	settle(job);
	job->ended = 1;
	job->ended_ms = now;
	j->running--;
	job->out = c->run.out;
	tc_ring_init(&c->run.out, 0);
	job->out_bytes[0] = c->run.out_bytes[0];
	job->out_bytes[1] = c->run.out_bytes[1];
	/* Its answer, or the error that says why it has none. */
	if (tc_run_take_answer(&c->run, &a) == 0) {
		job->result = strndup(a.json, a.len);
		if (tc_record_result(j->srv, c, &a.info, &d) != 0)
			tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
		tc_answer_release(&a);
	} else if (tc_record_result(j->srv, c, NULL, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	if (strcmp(job->state, "exited") == 0)
		tc_text_fmt(job->detail, sizeof(job->detail), "it answered "
		    "after %.1f s", (double)(now - job->started_ms) / 1000);
	else if (strcmp(job->state, "expired") == 0)
		tc_text_fmt(job->detail, sizeof(job->detail), "it reached its "
		    "lifetime of %d s and was killed, with every process it "
		    "started", j->srv->pol.job_lifetime_ms / 1000);
	else if (strcmp(job->state, "stopped") == 0)
		tc_text_fmt(job->detail, sizeof(job->detail), "it was stopped, "
		    "with every process it started");
	else
		tc_text_fmt(job->detail, sizeof(job->detail), "it ended "
		    "without an answer (its result says why)");
	tc_debug("job %llu: %s", job->id, job->state);
	job->call = NULL;
	tc_run_release(&c->run);
	tc_srv_free_call(c);
	answer_waits(j, job, now);
}

/* --- The event source --- */

int
tc_jobs_pollfds(struct tc_jobs *j, struct pollfd *pfd)
{
	struct tc_job *job;
	int n = 0;

	for (job = j->head; job != NULL; job = job->next) {
		job->pfd = n;
		job->npfd = job->ended || job->due ? 0 :
		    tc_run_pollfds(&job->call->run, pfd + n);
		n += job->npfd;
	}
	return n;
}

void
tc_jobs_step(struct tc_jobs *j, const struct pollfd *pfd, int npfd,
    int64_t now)
{
	struct tc_job **jp, *job;
	int done;

	for (jp = &j->head; (job = *jp) != NULL;) {
		if (job->ended) {
			answer_waits(j, job, now);
			jp = &job->next;
			continue;
		}
		if (job->due) {
			if (now >= job->told_ms + TC_PROGRESS_QUIET_MS) {
				end_job(j, job, jp);
				continue;
			}
			jp = &job->next;
			continue;
		}
		/* A job added this round has no pollfds yet. */
		done = tc_run_step(&job->call->run, job->pfd >= 0 &&
		    job->pfd + job->npfd <= npfd && job->npfd > 0 ?
		    pfd + job->pfd : NULL, job->pfd >= 0 ? job->npfd : 0, now);
		pass_progress(job, now, done);
		if (done && !job->detached && job->sent_progress &&
		    now < job->told_ms + TC_PROGRESS_QUIET_MS) {
			job->due = 1;
			jp = &job->next;
			continue;
		}
		if (done && !job->detached) {
			end_job(j, job, jp);	/* the entry goes */
			continue;
		}
		if (done)
			end_job(j, job, jp);	/* a job's stays */
		else
			answer_waits(j, job, now);
		jp = &job->next;
	}
	prune(j);
}

static void
sooner(int64_t *t, int64_t when)
{
	if (when >= 0 && (*t < 0 || when < *t))
		*t = when;
}

int64_t
tc_jobs_next_deadline(const struct tc_jobs *j)
{
	const struct tc_job *job;
	const struct tc_job_wait *w;
	int64_t t = -1;

	for (job = j->head; job != NULL; job = job->next) {
		for (w = job->waits; w != NULL; w = w->next)
			if (!w->stop)
				sooner(&t, w->deadline_ms);
		if (job->ended)
			continue;
		if (job->due) {
			sooner(&t, job->told_ms + TC_PROGRESS_QUIET_MS);
			continue;
		}
		sooner(&t, tc_run_next_deadline(&job->call->run));
		/* Progress waits for its rate. */
		if (job->call->run.nprogress > 0 && !job->detached)
			sooner(&t, job->tokens_ms + TC_PROGRESS_EVERY_MS);
	}
	return t;
}

/* --- The job tools --- */

static void
read_output(struct tc_jobs *j, struct tc_job *job, struct call *c)
{
	long long wait = tc_arg_int(&c->call, "wait_ms", 0);

	add_wait(j, job, c, 0, tc_now_ms() + wait);
}

static void
write_input(struct tc_jobs *j, struct tc_job *job, struct call *c)
{
	const char *data = tc_arg_str(&c->call, "data");
	int close = tc_arg_bool(&c->call, "close", 0), rc;
	size_t n = data != NULL ? strlen(data) : 0;
	struct tc_result res;
	cJSON *sc;

	if (job->ended) {
		finish_error(j, c, "job %llu has ended (%s): it reads no more "
		    "input", job->id, job->state);
		return;
	}
	rc = tc_run_input(&job->call->run, data != NULL ? data : "", n,
	    close);
	if (rc == TC_ETOOBIG) {
		finish_error(j, c, "job %llu has not read the input written "
		    "before (%zu bytes wait): try again when it has",
		    job->id, job->call->run.input.len);
		return;
	}
	if (rc != 0) {
		finish_error(j, c, "job %llu reads no more input: %s",
		    job->id, rc == TC_EINVAL ? "its input was closed" :
		    rc == TC_ESYS ? "it closed its end" : tc_strerror(rc));
		return;
	}
	tc_result_init(&res);
	tc_result_printf(&res, "Wrote %zu bytes to job %llu%s.", n, job->id,
	    close ? ", and closed its input" : "");
	if ((sc = tc_result_obj(&res)) != NULL) {
		cJSON_AddNumberToObject(sc, "job", (double)job->id);
		cJSON_AddNumberToObject(sc, "written", (double)n);
		cJSON_AddBoolToObject(sc, "closed", close);
	}
	finish(j, c, &res);
}

static void
stop_job(struct tc_jobs *j, struct tc_job *job, struct call *c)
{
	if (!job->ended && !job->stopping) {
		job->stopping = 1;
		tc_run_kill(&job->call->run, TC_OUT_CANCELLED);
	}
	/* Answered once the job has ended: its tree is dead by then. */
	add_wait(j, job, c, 1, -1);
}

static void
list_jobs(struct tc_jobs *j, struct call *c)
{
	const struct tc_job *job;
	const struct tc_ring *out;
	struct tc_result res;
	cJSON *sc, *arr, *o;
	int64_t now = tc_now_ms();
	unsigned n = 0;

	tc_result_init(&res);
	sc = tc_result_obj(&res);
	arr = cJSON_AddArrayToObject(sc, "jobs");
	for (job = j->head; job != NULL; job = job->next) {
		if (!job->detached)
			continue;
		out = job->ended ? &job->out : &job->call->run.out;
		o = cJSON_CreateObject();
		describe(job, o);
		cJSON_AddStringToObject(o, "tool", job->tool);
		cJSON_AddNumberToObject(o, "seconds", (double)((job->ended ?
		    job->ended_ms : now) - job->started_ms) / 1000);
		cJSON_AddNumberToObject(o, "end", (double)out->end);
		cJSON_AddNumberToObject(o, "dropped",
		    (double)tc_ring_dropped(out));
		cJSON_AddNumberToObject(o, "stderr", (double)(job->ended ?
		    job->out_bytes[1] : job->call->run.out_bytes[1]));
		cJSON_AddItemToArray(arr, o);
		tc_result_printf(&res, "%sjob %llu: %s, %s, %" PRIu64 " bytes "
		    "of output", n++ ? "\n" : "", job->id, job->tool,
		    job->state, out->end);
	}
	if (n == 0)
		tc_result_printf(&res, "No jobs.");
	finish(j, c, &res);
}

void
tc_jobs_call(struct tc_jobs *j, struct call *c)
{
	unsigned flags = c->call.tool->flags;
	struct tc_job *job = NULL;
	long long id;

	if (flags & TC_TOOL_JOB_LIST) {
		list_jobs(j, c);
		return;
	}
	id = tc_arg_int(&c->call, "job", 0);
	if ((job = find(j, id)) == NULL) {
		finish_error(j, c, "no job %lld: %s lists the jobs (the last "
		    "%d that ended stay)", id, tool_named(j, TC_TOOL_JOB_LIST,
		    "the list"), TC_JOBS_ENDED_KEPT);
		return;
	}
	if (flags & TC_TOOL_JOB_READ)
		read_output(j, job, c);
	else if (flags & TC_TOOL_JOB_WRITE)
		write_input(j, job, c);
	else if (flags & TC_TOOL_JOB_STOP)
		stop_job(j, job, c);
	else
		finish_error(j, c, "%s is no job tool", c->call.tool->name);
}

int
tc_jobs_cancel(struct tc_jobs *j, const char *id_key)
{
	struct tc_diag d TC_UNINIT;
	struct tc_job_wait **wp, *w;
	struct tc_job *job;

	tc_diag_init(&d);
	for (job = j->head; job != NULL; job = job->next) {
		for (wp = &job->waits; (w = *wp) != NULL; wp = &w->next) {
			if (w->call->req == NULL ||
			    strcmp(w->call->req->id_key, id_key) != 0)
				continue;
			*wp = w->next;
			tc_request_free(w->call->req);
			w->call->req = NULL;
			w->call->run.outcome = TC_OUT_CANCELLED;
			if (tc_record_result(j->srv, w->call, NULL, &d) != 0)
				tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
			tc_srv_free_call(w->call);
			free(w);
			return 1;
		}
	}
	return 0;
}

void
tc_jobs_stop_all(struct tc_jobs *j)
{
	struct tc_job *job;

	for (job = j->head; job != NULL; job = job->next) {
		if (job->ended)
			continue;
		if (!job->detached)
			job->call->cancelled = 1;
		tc_run_kill(&job->call->run, TC_OUT_CANCELLED);
	}
	for (job = j->head; job != NULL; job = job->next)
		if (!job->ended)
			tc_run_wait(&job->call->run);
	/* Every run is done: one step ends them all and answers every
	 * wait (a read's deadline is now), without waiting for the quiet
	 * after progress. */
	for (job = j->head; job != NULL; job = job->next) {
		struct tc_job_wait *w;

		for (w = job->waits; w != NULL; w = w->next)
			w->deadline_ms = 0;
		job->told_ms = 0;
	}
	tc_jobs_step(j, NULL, 0, tc_now_ms());
	while ((job = j->head) != NULL) {
		j->head = job->next;
		free_job(job);
	}
	j->n = 0;
}
