/*
 * loop.c: the serving loop: one poll(2) over stdin, a signalfd and every
 * waiter's fds, until the input ends or a signal stops it.
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

/* --- The loop --- */

void
tc_srv_stop_all(struct srv *s)
{
	struct call *c;

	while ((c = s->asking) != NULL)
		tc_consent_give_up(s, c, "server-stopped", "the server stopped "
		    "while consent was asked, which counts as no");
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

void
tc_srv_serve(struct srv *s)
{
	struct signalfd_siginfo si;
	struct pollfd *pfd = NULL;
	struct call *c, *next;
	size_t npfd, cap = 0;
	int64_t now, timeout, t;
	int n, dead, ndead, jpfd, njpfd;

	for (;;) {
		if (s->proto.dead || s->stop || (s->proto.eof &&
		    s->calls == NULL && s->queue == NULL && s->held == NULL))
			break;
		/* Nothing is running: prepare the standby children the calls
		 * used up.  Not while a call runs, which preparing a child
		 * (clone, confinement: CPU-bound) would slow down. */
		if (!s->proto.eof && s->calls == NULL)
			tc_sandbox_refill(&s->sb);
		if (cap < 2 + TC_JOB_POLLFDS * (size_t)s->jobs.n +
		    3 * (size_t)s->nasking + TC_DEAD_MAX) {
			cap = 2 + TC_JOB_POLLFDS * (size_t)s->jobs.n +
			    3 * (size_t)s->nasking + TC_DEAD_MAX + 16;
			free(pfd);
			if ((pfd = calloc(cap, sizeof(*pfd))) == NULL)
				tc_fatal("out of memory");
		}
		npfd = 0;
		pfd[npfd].fd = s->sigfd;
		pfd[npfd++].events = POLLIN;
		pfd[npfd].fd = s->proto.eof ? -1 : s->proto.cfg.in_fd;
		pfd[npfd++].events = POLLIN;
		now = tc_now_ms();
		timeout = -1;
		jpfd = (int)npfd;
		njpfd = tc_jobs_pollfds(&s->jobs, pfd + npfd);
		npfd += (size_t)njpfd;
		if ((t = tc_jobs_next_deadline(&s->jobs)) >= 0)
			sooner(&timeout, t - now);
		for (c = s->asking; c != NULL; c = c->next) {
			c->pfd = (int)npfd;
			c->npfd = tc_consent_pollfds(c, pfd + npfd);
			npfd += (size_t)c->npfd;
		}
		/* The children of answered calls, until they are reaped. */
		dead = (int)npfd;
		ndead = tc_sandbox_pollfds(&s->sb, pfd + npfd);
		npfd += (size_t)ndead;
		if ((t = tc_consent_next_deadline(s)) >= 0)
			sooner(&timeout, t - now);
		if (s->roots_id >= 0 || (s->held != NULL &&
		    tc_srv_roots_pending(s) && !s->roots_apply))
			sooner(&timeout, s->roots_deadline_ms - now);
		if (timeout > INT_MAX)
			timeout = INT_MAX;
		n = poll(pfd, (nfds_t)npfd, (int)timeout);
		if (n < 0 && errno != EINTR)
			tc_fatal("poll: %s", strerror(errno));
		if (n > 0 && pfd[0].revents) {
			while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
				tc_info("signal %u: stopping", si.ssi_signo);
				s->stop = 1;
				s->stop_reason = "signal";
			}
		}
		if (n > 0)
			tc_sandbox_step(&s->sb, pfd + dead, ndead);
		/* Calls first: a new call started by this round's input has
		 * no pollfds yet. */
		now = tc_now_ms();
		tc_jobs_step(&s->jobs, pfd + jpfd, njpfd, now);
		/* Settling consent unlinks the call (and may start it): walk
		 * a snapshot of the list. */
		for (c = s->asking; c != NULL; c = next) {
			next = c->next;
			if (c->pfd >= 0)
				tc_consent_step(s, c, c->npfd ? pfd + c->pfd :
				    NULL, c->npfd, now);
		}
		if (n > 0 && pfd[1].fd >= 0 && pfd[1].revents)
			tc_proto_read(&s->proto);
		/* Nobody is left to answer a question for consent: an
		 * elicitation's answer would come on the input. */
		while (s->proto.eof && (c = s->asking) != NULL)
			tc_consent_give_up(s, c, "input-closed", "the input "
			    "closed while consent was asked, which counts as "
			    "no");
		now = tc_now_ms();
		if (s->roots_id >= 0 && (now >= s->roots_deadline_ms ||
		    s->proto.eof)) {
			tc_warn("no answer to roots/list within %d ms: serving "
			    "the roots in force", s->pol.roots_timeout_ms);
			tc_proto_forget(&s->proto, s->roots_id);
			s->roots_id = -1;
		}
		if (s->held != NULL && !s->initialized && !s->roots_gave_up &&
		    now >= s->roots_deadline_ms) {
			tc_warn("tools/call before notifications/initialized, "
			    "which did not come within %d ms: serving the "
			    "policy's directories", s->pol.roots_timeout_ms);
			s->roots_gave_up = 1;
		}
		if (s->roots_apply && s->calls == NULL && s->queue == NULL &&
		    s->asking == NULL)
			tc_srv_apply_roots(s);
		tc_srv_release_held(s);
		tc_srv_start_queued(s);
	}
	free(pfd);
	tc_srv_stop_all(s);
}
