/*
 * loop.c: the serving loop.  The engine (loop.h) polls what its sources
 * wait on and steps them; the server's sources are its signals, the
 * sandbox's finished children, the running calls, the consent hooks, its
 * input and the wait for the client's roots, stepped in that order.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "policy/glob.h"
#include "serve/hostconfig.h"
#include "base/clock.h"
#include "base/log.h"
#include "policy/policy.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/loop.h"
#include "serve/server-int.h"

/* --- The engine --- */

void
tc_loop_init(struct tc_loop *l)
{
	memset(l, 0, sizeof(*l));
}

void
tc_loop_release(struct tc_loop *l)
{
	free(l->pfd);
	memset(l, 0, sizeof(*l));
}

int
tc_loop_add(struct tc_loop *l, const struct tc_source *src)
{
	if (l->nsrc == TC_LOOP_SOURCES)
		return TC_ETOOBIG;
	l->src[l->nsrc++] = *src;
	return 0;
}

/* Makes room for |want| pollfds in all; returns 0 or TC_ENOMEM. */
static int
room(struct tc_loop *l, size_t want)
{
	struct pollfd *p;
	size_t cap;

	if (want <= l->cap)
		return 0;
	cap = want + 16;
	if ((p = reallocarray(l->pfd, cap, sizeof(*p))) == NULL)
		return TC_ENOMEM;
	l->pfd = p;
	l->cap = cap;
	return 0;
}

/*
 * Lowers *|timeout| (in ms, -1 for none) to |left|, the time to a
 * deadline; one already past means now, not never.
 */
static void
sooner(int64_t *timeout, int64_t left)
{
	if (left < 0)
		left = 0;
	if (*timeout < 0 || left < *timeout)
		*timeout = left;
}

int
tc_loop_round(struct tc_loop *l, struct tc_diag *d)
{
	struct tc_source *src;
	size_t i, used = 0;
	int64_t now, timeout = -1, t;
	int n, k, ready;

	if (room(l, 16) != 0)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	for (i = 0; i < l->nsrc; i++) {
		src = &l->src[i];
		l->first[i] = (int)used;
		l->count[i] = 0;
		if (src->pollfds == NULL)
			continue;
		for (;;) {
			n = src->pollfds(src->ctx, l->pfd + used,
			    (int)(l->cap - used));
			if (n < 0)
				TC_BUG("source '%s': %d pollfds", src->name, n);
			if ((size_t)n <= l->cap - used)
				break;
			if (room(l, used + (size_t)n) != 0)
				return tc_diag(d, TC_ENOMEM, "out of memory");
		}
		for (k = 0; k < n; k++)
			l->pfd[used + (size_t)k].revents = 0;
		l->count[i] = n;
		used += (size_t)n;
	}
	now = tc_now_ms();
	for (i = 0; i < l->nsrc; i++) {
		src = &l->src[i];
		if (src->deadline != NULL && (t = src->deadline(src->ctx)) >= 0)
			sooner(&timeout, t - now);
	}
	if (timeout > INT_MAX)
		timeout = INT_MAX;
	ready = poll(l->pfd, (nfds_t)used, (int)timeout);
	if (ready < 0) {
		if (errno != EINTR)
			return tc_diag_errno(d, TC_ESYS, "poll: %s",
			    strerror(errno));
		/* What poll(2) left in revents is not to be trusted. */
		for (i = 0; i < used; i++)
			l->pfd[i].revents = 0;
		ready = 0;
	}
	for (i = 0; i < l->nsrc; i++) {
		src = &l->src[i];
		src->step(src->ctx, l->pfd + l->first[i], l->count[i],
		    tc_now_ms());
	}
	return ready;
}

/* --- The server's sources --- */

/* Signals (SIGTERM, SIGINT, SIGHUP) stop the server. */
static int
signals_pollfds(void *ctx, struct pollfd *pfd, int max)
{
	struct srv *s = ctx;

	if (max >= 1) {
		pfd[0].fd = s->sigfd;
		pfd[0].events = POLLIN;
	}
	return 1;
}

static void
signals_step(void *ctx, struct pollfd *pfd, int n, int64_t now_ms)
{
	struct signalfd_siginfo si;
	struct srv *s = ctx;

	(void)now_ms;
	if (n < 1 || pfd[0].revents == 0)
		return;
	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		tc_info("signal %u: stopping", si.ssi_signo);
		s->stop = 1;
		s->stop_reason = "signal";
	}
}

/* The children of answered calls, until they are reaped. */
static int
sandbox_pollfds(void *ctx, struct pollfd *pfd, int max)
{
	struct srv *s = ctx;

	if (max < TC_SANDBOX_POLLFDS)
		return TC_SANDBOX_POLLFDS;
	return tc_sandbox_pollfds(&s->sb, pfd);
}

static void
sandbox_step(void *ctx, struct pollfd *pfd, int n, int64_t now_ms)
{
	struct srv *s = ctx;

	(void)now_ms;
	tc_sandbox_step(&s->sb, pfd, n);
}

/* The running calls, each a job (job.h): at most TC_JOB_POLLFDS each. */
static int
jobs_pollfds(void *ctx, struct pollfd *pfd, int max)
{
	struct srv *s = ctx;

	if ((size_t)max < TC_JOB_POLLFDS * (size_t)s->jobs.n)
		return TC_JOB_POLLFDS * (int)s->jobs.n;
	return tc_jobs_pollfds(&s->jobs, pfd);
}

static void
jobs_step(void *ctx, struct pollfd *pfd, int n, int64_t now_ms)
{
	struct srv *s = ctx;

	tc_jobs_step(&s->jobs, pfd, n, now_ms);
	tc_srv_finish_done(s);
}

static int64_t
jobs_deadline(void *ctx)
{
	const struct srv *s = ctx;

	return tc_jobs_next_deadline(&s->jobs);
}

/* The calls waiting for consent: each one's hook, at most 3 pollfds. */
static int
consent_pollfds(void *ctx, struct pollfd *pfd, int max)
{
	struct srv *s = ctx;
	struct call *c;
	int n = 0;

	if ((size_t)max < 3 * (size_t)s->nasking)
		return 3 * (int)s->nasking;
	for (c = s->asking; c != NULL; c = c->next) {
		c->pfd = n;
		c->npfd = tc_consent_pollfds(c, pfd + n);
		n += c->npfd;
	}
	return n;
}

static void
consent_step(void *ctx, struct pollfd *pfd, int n, int64_t now_ms)
{
	struct srv *s = ctx;
	struct call *c, *next;

	(void)n;
	/* Settling consent unlinks the call (and may start it): walk a
	 * snapshot of the list.  A call that came to ask since this
	 * round's pollfds has none (pfd -1) and waits for the next. */
	for (c = s->asking; c != NULL; c = next) {
		next = c->next;
		if (c->pfd >= 0)
			tc_consent_step(s, c, c->npfd ? pfd + c->pfd : NULL,
			    c->npfd, now_ms);
	}
	tc_srv_settled(s);
}

static int64_t
consent_deadline(void *ctx)
{
	const struct srv *s = ctx;

	/* Settled by an answer on the input: acted on without waiting. */
	if (s->settled != NULL)
		return 0;
	return tc_consent_next_deadline(s);
}

/* The client's messages on stdin, until it closes. */
static int
input_pollfds(void *ctx, struct pollfd *pfd, int max)
{
	struct srv *s = ctx;

	if (s->proto.eof)
		return 0;
	if (max >= 1) {
		pfd[0].fd = s->proto.cfg.in_fd;
		pfd[0].events = POLLIN;
	}
	return 1;
}

static void
input_step(void *ctx, struct pollfd *pfd, int n, int64_t now_ms)
{
	struct srv *s = ctx;
	struct call *c;

	(void)now_ms;
	if (n > 0 && pfd[0].revents)
		tc_proto_read(&s->proto);
	/* Nobody is left to answer a question for consent: an
	 * elicitation's answer would come on the input. */
	while (s->proto.eof && (c = s->asking) != NULL)
		tc_consent_give_up(s, c, "input-closed", "the input closed "
		    "while consent was asked, which counts as no");
	tc_srv_settled(s);
}

/* The wait for the client's roots: for its answer to roots/list, and for
 * notifications/initialized when a call came before it. */
static void
roots_step(void *ctx, struct pollfd *pfd, int n, int64_t now_ms)
{
	struct srv *s = ctx;

	(void)pfd;
	(void)n;
	if (s->roots_id >= 0 && (now_ms >= s->roots_deadline_ms ||
	    s->proto.eof)) {
		tc_warn("no answer to roots/list within %d ms: serving the "
		    "roots in force", s->pol.roots_timeout_ms);
		tc_proto_forget(&s->proto, s->roots_id);
		s->roots_id = -1;
	}
	if (s->held != NULL && !s->initialized && !s->roots_gave_up &&
	    now_ms >= s->roots_deadline_ms) {
		tc_warn("tools/call before notifications/initialized, which "
		    "did not come within %d ms: serving the policy's "
		    "directories", s->pol.roots_timeout_ms);
		s->roots_gave_up = 1;
	}
}

static int64_t
roots_deadline(void *ctx)
{
	struct srv *s = ctx;

	if (s->roots_id >= 0 || (s->held != NULL && tc_srv_roots_pending(s) &&
	    !s->roots_apply))
		return s->roots_deadline_ms;
	return -1;
}

/* --- The loop --- */

void
tc_srv_stop_all(struct srv *s)
{
	struct call *c;

	while ((c = s->asking) != NULL)
		tc_consent_give_up(s, c, "server-stopped", "the server stopped "
		    "while consent was asked, which counts as no");
	tc_srv_settled(s);
	while ((c = s->held) != NULL) {
		struct tc_diag d = { "", 0 };

		tc_srv_unlink_call(&s->held, &s->held_tail, c);
		s->nheld--;
		if (tc_record_call(s, c, "cancelled", "server", NULL, "the "
		    "server stopped while it waited for the client's roots",
		    &d) != 0)
			tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
		tc_request_free(c->req);
		tc_srv_free_call(c);
	}
	while ((c = s->queue) != NULL) {
		tc_srv_unlink_call(&s->queue, &s->queue_tail, c);
		s->nqueued--;
		tc_srv_end_unstarted(s, c, TC_OUT_CANCELLED, "the server stopped "
		    "before the call started");
	}
	tc_jobs_stop_all(&s->jobs);
	tc_srv_finish_done(s);
}

void
tc_srv_add_sources(struct srv *s, struct tc_loop *l)
{
	/* In the order they are stepped: the calls before the input, so
	 * that a call the input starts is stepped only once it has
	 * pollfds; the roots' deadlines after the input, which may have
	 * brought their answer. */
	const struct tc_source sources[] = {
		{ "signals", signals_pollfds, signals_step, NULL, s },
		{ "sandbox", sandbox_pollfds, sandbox_step, NULL, s },
		{ "jobs", jobs_pollfds, jobs_step, jobs_deadline, s },
		{ "consent", consent_pollfds, consent_step, consent_deadline,
		  s },
		{ "input", input_pollfds, input_step, NULL, s },
		{ "roots", NULL, roots_step, roots_deadline, s },
	};
	size_t i;

	for (i = 0; i < TC_NITEMS(sources); i++)
		if (tc_loop_add(l, &sources[i]) != 0)
			TC_BUG("too many sources");
}

void
tc_srv_serve(struct srv *s)
{
	struct tc_diag d = { "", 0 };
	struct tc_loop l;

	tc_loop_init(&l);
	tc_srv_add_sources(s, &l);
	for (;;) {
		if (s->proto.dead || s->stop || (s->proto.eof &&
		    s->calls == NULL && s->queue == NULL && s->held == NULL))
			break;
		/* Nothing is running: prepare the standby children the calls
		 * used up.  Not while a call runs, which preparing a child
		 * (clone, confinement: CPU-bound) would slow down. */
		if (!s->proto.eof && s->calls == NULL)
			tc_sandbox_refill(&s->sb);
		if (tc_loop_round(&l, &d) < 0)
			tc_fatal("%s", d.msg);
		/* Between rounds, once every source has had its say. */
		if (s->roots_apply && s->calls == NULL && s->queue == NULL &&
		    s->asking == NULL)
			tc_srv_apply_roots(s);
		tc_srv_release_held(s);
		tc_srv_start_queued(s);
	}
	tc_loop_release(&l);
	tc_srv_stop_all(s);
}
