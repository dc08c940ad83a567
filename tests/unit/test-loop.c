/*
 * test-loop.c: the serving loop's engine (serve/loop.h) with sources made
 * here: pipes that become readable, a source that needs more pollfds
 * than the loop has room for, deadlines (past, future, none), a source
 * without fds, the order of the steps, and the limit on sources.
 */
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "sandbox/sandbox.h"
#include "serve/loop.h"
#include "tap.h"

#define NPIPES	40	/* more than the loop starts with room for */
#define GUARD_MS 5000	/* a round that should end at once ends by then */

/* A source waiting on the read ends of some pipes. */
struct pipes {
	int	 rd[NPIPES], wr[NPIPES];
	int	 n;
	int	 asked;		/* pollfds calls */
	int	 steps;
	int	 ready[NPIPES];	/* revents of the last step, per pipe */
	int	 got_n;		/* n of the last step */
	int	 fds_ok;	/* the last step saw its own fds, in order */
	int64_t	 deadline;
	int64_t	 now;		/* now_ms of the last step */
	int	 order;		/* when it stepped, of all steps */
};

static int step_count;

static int
pipes_pollfds(void *ctx, struct pollfd *pfd, int max)
{
	struct pipes *p = ctx;
	int i;

	p->asked++;
	for (i = 0; i < p->n && i < max; i++) {
		pfd[i].fd = p->rd[i];
		pfd[i].events = POLLIN;
	}
	return p->n;
}

static void
pipes_step(void *ctx, struct pollfd *pfd, int n, int64_t now_ms)
{
	struct pipes *p = ctx;
	int i;

	p->steps++;
	p->order = ++step_count;
	p->got_n = n;
	p->now = now_ms;
	p->fds_ok = n == p->n;
	for (i = 0; i < n && i < NPIPES; i++) {
		p->ready[i] = pfd[i].revents;
		if (pfd[i].fd != p->rd[i])
			p->fds_ok = 0;
	}
}

static int64_t
pipes_deadline(void *ctx)
{
	return ((struct pipes *)ctx)->deadline;
}

static void
pipes_open(struct pipes *p, int n)
{
	int fd[2], i;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->deadline = -1;
	for (i = 0; i < n; i++) {
		if (pipe(fd) != 0)
			abort();
		p->rd[i] = fd[0];
		p->wr[i] = fd[1];
	}
}

static void
pipes_close(struct pipes *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		close(p->rd[i]);
		close(p->wr[i]);
	}
}

static struct tc_source
pipes_source(const char *name, struct pipes *p)
{
	struct tc_source s = { name, pipes_pollfds, pipes_step,
	    pipes_deadline, p };

	return s;
}

int
main(void)
{
	struct tc_diag d = { "", 0 };
	struct tc_source src;
	struct pipes a, b, c;
	struct tc_loop l;
	int64_t before;
	int i, rc;

	/* One pipe made readable: its step sees POLLIN there alone. */
	tc_loop_init(&l);
	pipes_open(&a, 2);
	pipes_open(&b, 1);
	src = pipes_source("a", &a);
	is_int(tc_loop_add(&l, &src), 0, "a source is added");
	src = pipes_source("b", &b);
	is_int(tc_loop_add(&l, &src), 0, "a second one");
	if (write(a.wr[1], "x", 1) != 1)
		abort();
	rc = tc_loop_round(&l, &d);
	is_int(rc, 1, "one pollfd was ready");
	ok(a.fds_ok && b.fds_ok, "each step is given its own pollfds");
	ok(!(a.ready[0] & POLLIN) && (a.ready[1] & POLLIN),
	    "the ready pipe is the one written to");
	is_int(b.ready[0], 0, "the other source's pipe is not ready");
	ok(a.order < b.order, "steps run in the order the sources were "
	    "added");

	/* Every step runs after every poll, ready or not. */
	before = tc_now_ms();
	b.deadline = before - 5;
	rc = tc_loop_round(&l, &d);
	is_int(rc, 1, "the unread pipe is still ready");
	is_int(b.steps, 2, "a source whose fds are not ready is stepped too");
	ok(b.now >= before, "with the time of the step");
	tc_loop_release(&l);
	pipes_close(&a);
	pipes_close(&b);

	/* A deadline already past ends the poll at once, and one in the
	 * future is waited for: without it, these rounds would block. */
	tc_loop_init(&l);
	pipes_open(&a, 1);
	a.deadline = tc_now_ms() - 1000;
	src = pipes_source("late", &a);
	tc_loop_add(&l, &src);
	is_int(tc_loop_round(&l, &d), 0, "a past deadline: no fd ready, "
	    "and the round ends");
	is_int(a.steps, 1, "the source was stepped at its deadline");
	a.deadline = tc_now_ms() + 20;
	is_int(tc_loop_round(&l, &d), 0, "a deadline in 20 ms ends the "
	    "round");
	ok(a.now >= a.deadline, "not before the deadline");
	tc_loop_release(&l);
	pipes_close(&a);

	/* A source with no pollfds callback: a deadline only; the earliest
	 * of all deadlines wins. */
	tc_loop_init(&l);
	pipes_open(&a, 1);
	pipes_open(&b, 0);
	a.deadline = tc_now_ms() + 3600 * 1000;
	b.deadline = tc_now_ms() - 1;
	src = pipes_source("far", &a);
	tc_loop_add(&l, &src);
	src = pipes_source("timer", &b);
	src.pollfds = NULL;
	tc_loop_add(&l, &src);
	is_int(tc_loop_round(&l, &d), 0, "the earliest deadline ends the "
	    "round, not the latest");
	is_int(b.got_n, 0, "a source without fds is stepped with none");
	is_int(a.steps, 1, "and so is the other");
	tc_loop_release(&l);
	pipes_close(&a);

	/* More pollfds than the loop has room for: it asks again with
	 * more, and each source still gets its own slice. */
	tc_loop_init(&l);
	pipes_open(&a, 3);
	pipes_open(&b, NPIPES);
	pipes_open(&c, 2);
	src = pipes_source("small", &a);
	tc_loop_add(&l, &src);
	src = pipes_source("big", &b);
	tc_loop_add(&l, &src);
	src = pipes_source("after", &c);
	tc_loop_add(&l, &src);
	if (write(b.wr[NPIPES - 1], "x", 1) != 1 ||
	    write(c.wr[1], "x", 1) != 1)
		abort();
	/* Should the ready pipes go unpolled, the round still ends. */
	a.deadline = tc_now_ms() + GUARD_MS;
	rc = tc_loop_round(&l, &d);
	is_int(rc, 2, "two pollfds ready among %d", 3 + NPIPES + 2);
	ok(b.asked == 2, "the big source was asked again once there was "
	    "room (asked %d times)", b.asked);
	ok(a.fds_ok && b.fds_ok && c.fds_ok, "every source got its own "
	    "pollfds");
	ok((b.ready[NPIPES - 1] & POLLIN) && (c.ready[1] & POLLIN) &&
	    !(c.ready[0] & POLLIN), "the ready ones are where they belong");
	rc = tc_loop_round(&l, &d);
	is_int(b.asked, 3, "room once made is kept: asked once more");
	tc_loop_release(&l);
	pipes_close(&a);
	pipes_close(&b);
	pipes_close(&c);

	/* A closed fd: poll(2) marks it, and the loop goes on. */
	tc_loop_init(&l);
	pipes_open(&a, 1);
	a.deadline = tc_now_ms() + GUARD_MS;
	src = pipes_source("closed", &a);
	tc_loop_add(&l, &src);
	close(a.wr[0]);
	a.wr[0] = -1;
	rc = tc_loop_round(&l, &d);
	ok(rc == 1 && (a.ready[0] & POLLHUP), "a pipe whose writer closed "
	    "is reported with POLLHUP");
	tc_loop_release(&l);
	pipes_close(&a);

	/* At most TC_LOOP_SOURCES. */
	tc_loop_init(&l);
	pipes_open(&a, 0);
	src = pipes_source("many", &a);
	for (i = 0; i < TC_LOOP_SOURCES; i++)
		if (tc_loop_add(&l, &src) != 0)
			break;
	is_int(i, TC_LOOP_SOURCES, "%d sources are added", TC_LOOP_SOURCES);
	is_int(tc_loop_add(&l, &src), TC_ETOOBIG, "one more is refused");
	tc_loop_release(&l);
	return done_testing();
}
