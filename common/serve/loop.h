/*
 * loop.h: the serving loop's event sources.  Everything the server waits
 * on (its input, signals, the running calls, the consent hooks, the
 * sandbox's finished children, the wait for the client's roots) is a
 * source with one interface: the fds it waits on now, what it does after
 * each poll, and its next deadline.  One round of the loop asks every
 * source for its pollfds, makes one poll(2) that ends when an fd is ready
 * or at the earliest deadline, then steps every source in the order the
 * sources were added.  A new kind of waiter (jobs, say) is one more
 * source, added with tc_loop_add(); the loop itself does not change.
 *
 * Return convention: int functions return 0 or a negative TC_E* code,
 * except where a comment says they return a count.
 */
#ifndef TC_LOOP_H
#define TC_LOOP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct tc_source {
	const char	*name;		/* for messages: "input", "calls" */
	/*
	 * Fills up to |max| pollfds at |pfd| with what the source waits on
	 * now, and returns how many it needs.  If that is more than |max|,
	 * the loop makes room and asks again; what was filled meanwhile is
	 * not used.  An fd of -1 is allowed (poll(2) ignores it).  NULL:
	 * the source waits on no fd (a deadline only).
	 */
	int	(*pollfds)(void *ctx, struct pollfd *pfd, int max);
	/*
	 * Runs after every poll, whatever ended it: |pfd| holds the
	 * source's own |n| pollfds of this round, revents set (all 0 when
	 * poll(2) was interrupted or timed out), and |now_ms| is the
	 * monotonic time (tc_now_ms()) just before the call.  It handles
	 * what is ready and every deadline of its own that has passed.
	 */
	void	(*step)(void *ctx, struct pollfd *pfd, int n, int64_t now_ms);
	/*
	 * Returns the monotonic time (ms) by which the source's step must
	 * run again even if none of its fds is ready, or -1 for none; a
	 * time already past means at once.  NULL: none.
	 */
	int64_t	(*deadline)(void *ctx);
	void	*ctx;			/* passed to each; not owned */
};

/* Sources a loop holds, at most. */
#define TC_LOOP_SOURCES	16

struct tc_loop {
	struct tc_source src[TC_LOOP_SOURCES];
	int		 first[TC_LOOP_SOURCES];	/* this round's */
	int		 count[TC_LOOP_SOURCES];
	size_t		 nsrc;
	struct pollfd	*pfd;
	size_t		 cap;
};

/* Makes |l| an empty loop; tc_loop_release() frees what it holds. */
void	tc_loop_init(struct tc_loop *l);
void	tc_loop_release(struct tc_loop *l);

/*
 * Adds a copy of |src| after the sources added before it (its step runs
 * after theirs).  Returns 0, or TC_ETOOBIG when the loop holds
 * TC_LOOP_SOURCES already.
 */
int	tc_loop_add(struct tc_loop *l, const struct tc_source *src);

/*
 * Runs one round: every source's pollfds, one poll(2) until an fd is
 * ready or the earliest deadline comes (no deadline: until an fd is
 * ready), then every source's step.  Returns how many pollfds poll(2)
 * found ready (0 at a deadline or when a signal interrupted it), or
 * TC_ENOMEM or TC_ESYS (poll(2) failed otherwise) with |d| set; the
 * sources are not stepped then.
 */
int	tc_loop_round(struct tc_loop *l, struct tc_diag *d);

#endif /* TC_LOOP_H */
