/*
 * run.c: the parent's side of one call (tc_run_*): it hands the call to
 * a child (spawn.c), reads its frames as they come, and turns what the
 * child did into the call's answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/json.h"
#include "base/text.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"

void
tc_run_init(struct tc_run *r)
{
	memset(r, 0, sizeof(*r));
	r->state = TC_RUN_IDLE;
	r->pid = -1;
	r->pidfd = -1;
	r->fd = -1;
	r->in_fd = -1;
	tc_buf_init(&r->in, 0);
	tc_buf_init(&r->input, TC_RUN_INPUT_MAX);
	tc_ring_init(&r->out, 0);
}

static void	fail(struct tc_run *r, enum tc_run_outcome why,
		    const char *msg);

/*
 * Returns the call's arguments as JSON text with every number exact
 * (cJSON prints 15 digits, and an SQL parameter 9007199254740991 would
 * reach the child as ...990), or NULL when out of memory.  The caller
 * frees it.
 */
static char *
args_text(const cJSON *args)
{
	struct tc_buf b;

	tc_buf_init(&b, UINT32_MAX);
	if ((args == NULL ? tc_buf_append_str(&b, "{}") :
	    tc_json_put(&b, args)) != 0) {
		tc_buf_release(&b);
		return NULL;
	}
	return tc_buf_steal(&b);
}

/* Sends |call| to the child on |fd|. */
static int
send_call(int fd, const struct tc_call *call)
{
	const size_t pre = TC_FRAME_HDR + sizeof(struct call_head);
	struct call_head head;
	struct pin_wire w;
	struct tc_buf ctx;
	char *args, *msg;
	size_t len, i;
	uint32_t k;
	int rc = 0;

	memset(&head, 0, sizeof(head));
	head.tool = call->tool;
	head.policy = call->policy;
	head.npins = (uint32_t)call->npins;
	head.nunconsented = (uint32_t)call->nunconsented;
	head.pinned = call->pinned;
	tc_buf_init(&ctx, UINT32_MAX / 2);
	for (i = 0; i < call->npins; i++) {
		memset(&w, 0, sizeof(w));
		w.dev = call->pins[i].dev;
		w.ino = call->pins[i].ino;
		w.edev = call->pins[i].edev;
		w.eino = call->pins[i].eino;
		w.root = (uint32_t)call->pins[i].root;
		w.kind = call->pins[i].kind;
		w.missing = call->pins[i].missing;
		w.entry = call->pins[i].entry != 0;
		w.rellen = (uint32_t)strlen(call->pins[i].rel);
		rc |= tc_buf_append(&ctx, &w, sizeof(w));
		rc |= tc_buf_append(&ctx, call->pins[i].rel, w.rellen);
	}
	for (i = 0; i < call->nunconsented; i++) {
		k = (uint32_t)call->unconsented[i];
		rc |= tc_buf_append(&ctx, &k, sizeof(k));
	}
	if (rc != 0) {
		tc_buf_release(&ctx);
		return TC_ENOMEM;
	}
	head.ctxlen = (uint32_t)ctx.len;
	if ((args = args_text(call->args)) == NULL) {
		tc_buf_release(&ctx);
		return TC_ENOMEM;
	}
	len = strlen(args) + ctx.len;
	if (len > UINT32_MAX - pre || (msg = malloc(pre + len)) == NULL) {
		free(args);
		tc_buf_release(&ctx);
		return len > UINT32_MAX - pre ? TC_ETOOBIG : TC_ENOMEM;
	}
	/* One write: each one wakes the waiting child. */
	tc_put_u32((unsigned char *)msg, TC_FRAME_CALL);
	tc_put_u32((unsigned char *)msg + 4, (uint32_t)(sizeof(head) + len));
	memcpy(msg + TC_FRAME_HDR, &head, sizeof(head));
	if (ctx.len > 0)
		memcpy(msg + pre, ctx.data, ctx.len);
	memcpy(msg + pre + ctx.len, args, len - ctx.len);
	free(args);
	tc_buf_release(&ctx);
	rc = tc_write_all(fd, msg, pre + len) != 0 ? TC_ESYS : 0;
	free(msg);
	return rc;
}

int
tc_run_start(struct tc_run *r, struct tc_sandbox *sb,
    const struct tc_call *call, struct tc_diag *d)
{
	struct tc_limits lim, *l = &lim;
	struct tc_standby st;
	char msg[160];
	int rc, err, ms;

	tc_policy_limits(sb->policy, call->tool->name, &lim);
	tc_run_init(r);
	r->sb = sb;
	if ((rc = tc_standby_take(sb, call->tool->profile, &st, d)) != 0)
		return rc;
	r->pid = st.pid;
	r->pidfd = st.pidfd;
	r->fd = st.res;
	r->keeper = tc_sandbox_keeper(sb, tc_sandbox_find(sb,
	    call->tool->profile));
	r->head = st.head;
	r->max_result = l->max_result;
	/* Room for the largest frame the child may send. */
	tc_buf_init(&r->in, (l->max_result > TC_STREAM_FRAME_MAX ?
	    l->max_result : TC_STREAM_FRAME_MAX) + TC_FRAME_HDR);
	tc_ring_init(&r->out, l->max_result < TC_RUN_OUTPUT_MAX ?
	    l->max_result : TC_RUN_OUTPUT_MAX);
	r->start_ms = tc_now_ms();
	r->deadline_ms = r->start_ms + l->deadline_ms;
	/* A tool's own deadline for this call, when shorter. */
	if (call->tool->deadline_ms != NULL && (ms =
	    call->tool->deadline_ms(call, r->deadline_why,
	    sizeof(r->deadline_why))) > 0 && ms < l->deadline_ms)
		r->deadline_ms = r->start_ms + ms;
	else
		r->deadline_why[0] = '\0';
	r->state = TC_RUN_RUNNING;
	/* The child was made before its tool was known: its cgroup's
	 * pids.max becomes this tool's limit before it has the call.  A
	 * cgroup left to remove under its pid (its keeper's, or its own) is
	 * its own now. */
	if (r->head)
		tc_pids_retry(&sb->pids, st.pid);
	if (r->head && tc_pids_limit(&sb->pids, st.pid, lim.nproc,
	    r->keeper) != 0) {
		err = errno;
		close(st.req);
		tc_text_fmt(msg, sizeof(msg), "cannot set the call's "
		    "process limit (pids.max): %s", strerror(err));
		fail(r, TC_OUT_SPAWN, msg);
		return 0;
	}
	rc = send_call(st.req, call);
	err = errno;
	/* A job's request pipe becomes its input, written without
	 * blocking; any other call's child reads its end of file. */
	if (rc == 0 && (call->tool->flags & TC_TOOL_JOB) &&
	    fcntl(st.req, F_SETFL, O_NONBLOCK) == 0)
		r->in_fd = st.req;
	else
		close(st.req);
	/* A child that died before reading its call (its confinement
	 * failed, say) closed the pipe: its exit status tells why, once it
	 * is reaped.  Any other failure leaves a child waiting for a call
	 * that will not come. */
	if (rc != 0 && !(rc == TC_ESYS && err == EPIPE)) {
		fail(r, TC_OUT_SPAWN, rc == TC_ESYS ? strerror(err) :
		    tc_strerror(rc));
	}
	return 0;
}

int
tc_run_pollfds(const struct tc_run *r, struct pollfd *pfd)
{
	int n = 0;

	if (r->state != TC_RUN_RUNNING)
		return 0;
	if (r->fd >= 0) {
		pfd[n].fd = r->fd;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	if (r->pidfd >= 0) {
		pfd[n].fd = r->pidfd;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	if (r->in_fd >= 0 && r->input.len > 0) {
		pfd[n].fd = r->in_fd;
		pfd[n].events = POLLOUT;
		pfd[n++].revents = 0;
	}
	return n;
}

static void
fail(struct tc_run *r, enum tc_run_outcome why, const char *msg)
{
	if (r->outcome == TC_OUT_OK && !r->answered) {
		r->outcome = why;
		tc_text_fmt(r->why, sizeof(r->why), "%s", msg);
	}
	tc_run_kill(r, why);
}

/*
 * Takes a progress frame (|p|, |n| bytes): two doubles and a message.
 * Returns 0, or -1 if it is malformed.  One whose progress does not
 * increase is dropped: MCP requires that it does.  When the queue is
 * full, the oldest queued goes, so that a flood costs the server a
 * bounded queue and the client a bounded number of notifications, each
 * as recent as can be.
 */
static int
take_progress(struct tc_run *r, const char *p, size_t n)
{
	struct tc_progress *q;
	double progress, total;
	size_t len;

	if (n < 2 * sizeof(double) ||
	    n > 2 * sizeof(double) + TC_PROGRESS_MSG_MAX)
		return -1;
	memcpy(&progress, p, sizeof(double));
	memcpy(&total, p + sizeof(double), sizeof(double));
	p += 2 * sizeof(double);
	n -= 2 * sizeof(double);
	r->progress_frames++;
	if (!isfinite(progress) || progress < 0 ||
	    (r->progress_frames > 1 && progress <= r->progress_last))
		return 0;
	if (r->progress == NULL && (r->progress = calloc(TC_PROGRESS_QUEUE,
	    sizeof(*r->progress))) == NULL)
		return 0;		/* progress is a courtesy */
	r->progress_last = progress;
	if (r->nprogress == TC_PROGRESS_QUEUE)
		memmove(r->progress, r->progress + 1, --r->nprogress *
		    sizeof(*r->progress));
	q = &r->progress[r->nprogress++];
	q->progress = progress;
	q->total = isfinite(total) && total >= 0 ? total : -1;
	/* UTF-8 only: what is not goes, from the first bad byte. */
	len = tc_utf8_prefix(p, n);
	memcpy(q->message, p, len);
	q->message[len] = '\0';
	return 0;
}

/* Keeps |n| bytes of output from |type|'s stream. */
static void
take_output(struct tc_run *r, uint32_t type, const char *p, size_t n)
{
	r->out_bytes[type == TC_FRAME_STDERR] += n;
	/* Out of memory: the bytes count as dropped. */
	if (tc_ring_append(&r->out, p, n) != 0) {
		r->out.end += n;
		r->out.start = r->out.end;
	}
}

/* Ends the child's input: it reads end of file. */
static void
close_input(struct tc_run *r)
{
	tc_fd_close(&r->in_fd);
	tc_buf_release(&r->input);
	r->input_close = 1;
}

/* Writes what the pipe takes of the input; closes it when asked to. */
static void
write_input(struct tc_run *r)
{
	size_t off = 0;
	ssize_t w;

	while (r->in_fd >= 0 && off < r->input.len) {
		w = write(r->in_fd, r->input.data + off, r->input.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w < 0) {
			/* EPIPE: the child closed its end; what it did not
			 * read is lost, and so is all that would follow. */
			close_input(r);
			return;
		}
		off += (size_t)w;
	}
	if (off > 0) {
		memmove(r->input.data, r->input.data + off, r->input.len - off);
		r->input.len -= off;
	}
	if (r->input.len == 0 && r->input_close)
		close_input(r);
}

/* Handles every whole frame in the input buffer. */
static void
parse_frames(struct tc_run *r)
{
	const unsigned char *h;
	struct tc_diag d TC_UNINIT;
	uint32_t type, len;
	size_t used = 0;

	tc_diag_init(&d);
	while (r->fd >= 0 && r->in.len - used >= TC_FRAME_HDR) {
		h = (const unsigned char *)r->in.data + used;
		type = tc_get_u32(h);
		len = tc_get_u32(h + 4);
		if (type == TC_FRAME_RESULT && len > r->max_result) {
			fail(r, TC_OUT_TOOBIG, "");
			return;
		}
		if (type == TC_FRAME_RESULT && r->answered) {
			fail(r, TC_OUT_BADFRAME, "a second result");
			return;
		}
		if (type != TC_FRAME_RESULT && type != TC_FRAME_PROGRESS &&
		    type != TC_FRAME_STDOUT && type != TC_FRAME_STDERR) {
			fail(r, TC_OUT_BADFRAME, "a frame of unknown type");
			return;
		}
		if (type != TC_FRAME_RESULT && len > TC_STREAM_FRAME_MAX) {
			fail(r, TC_OUT_BADFRAME, "a progress or output frame "
			    "over its size limit");
			return;
		}
		if (r->in.len - used - TC_FRAME_HDR < len) {
			/* Room for the whole frame at once, rather than
			 * doubling up to twice its size. */
			(void)tc_buf_reserve(&r->in, TC_FRAME_HDR + len -
			    (r->in.len - used));
			break;
		}
		if (type == TC_FRAME_RESULT) {
			if (tc_result_check((const char *)h + TC_FRAME_HDR,
			    len, &r->info, &d) != 0) {
				fail(r, TC_OUT_BADFRAME, d.msg);
				return;
			}
			/* The result stays where it was read, to be sent on
			 * as it is; anything after it is not looked at (the
			 * child is killed once its result is in). */
			r->answered = 1;
			r->result_bytes = len;
			r->answer = r->in;
			r->answer_off = used + TC_FRAME_HDR;
			r->answer.data[r->answer_off + len] = '\0';
			tc_buf_init(&r->in, 0);
			return;
		} else if (type == TC_FRAME_PROGRESS) {
			if (take_progress(r, (const char *)h + TC_FRAME_HDR,
			    len) != 0) {
				fail(r, TC_OUT_BADFRAME, "a malformed progress "
				    "frame");
				return;
			}
		} else
			take_output(r, type, (const char *)h + TC_FRAME_HDR,
			    len);
		used += TC_FRAME_HDR + len;
	}
	if (used > 0) {
		memmove(r->in.data, r->in.data + used, r->in.len - used);
		r->in.len -= used;
	}
}

/*
 * Reads what the child sent; at EOF closes the pipe.  At most a few
 * megabytes a turn, so that a child streaming without pause cannot keep
 * the server from the others: poll says when there is more.
 */
static void
read_child(struct tc_run *r)
{
	size_t room, budget = 4u << 20;
	ssize_t n;

	while (r->fd >= 0 && !r->answered && budget > 0) {
		/* Straight into the frame buffer, which parse_frames() sizes
		 * for a whole frame once its header is in. */
		if (r->in.alloc - r->in.len <= 1) {
			room = r->in.max - r->in.len;
			if (room == 0 || tc_buf_reserve(&r->in, room <
			    (1u << 16) ? room : (1u << 16)) != 0) {
				fail(r, TC_OUT_TOOBIG, "");
				return;
			}
		}
		room = r->in.alloc - r->in.len - 1;
		n = read(r->fd, r->in.data + r->in.len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				tc_fd_close(&r->fd);
			return;
		}
		if (n == 0) {
			tc_fd_close(&r->fd);
			return;
		}
		r->in.len += (size_t)n;
		r->in.data[r->in.len] = '\0';
		budget -= (size_t)n < budget ? (size_t)n : budget;
		parse_frames(r);
	}
}

static void
reap(struct tc_run *r)
{
	pid_t w;

	/* The child is a zombie now, so its pid (and process group id) is
	 * still ours: kill whatever it left in its group before reaping.
	 * (A keeper has killed everything before it exits.) */
	if (!r->keeper)
		kill(-r->pid, SIGKILL);
	/* A keeper killed past its grace left its call's cgroup behind; a
	 * child without a keeper always does, empty but for its zombie
	 * (its PID namespace's other processes were reaped before it
	 * ended): kept or removed before the pid that names it is free. */
	w = tc_sandbox_waitpid(r->sb, r->head, r->pid, &r->status, WNOHANG);
	if (w == 0)
		return;			/* not yet: poll again */
	tc_fd_close(&r->pidfd);
	/* And those of earlier ones may be empty by now. */
	if (r->head && r->sb != NULL)
		tc_pids_retry(&r->sb->pids, 0);
	/* Whatever it wrote before exiting is in the pipe now. */
	read_child(r);
	tc_fd_close(&r->fd);
}

/* Decides the outcome of a run that ended without being stopped. */
static void
classify(struct tc_run *r)
{
	if (r->outcome != TC_OUT_OK || r->answered)
		return;
	if (WIFSIGNALED(r->status))
		r->outcome = TC_OUT_CRASHED;
	else if (tc_child_exit_str(WEXITSTATUS(r->status)) != NULL)
		r->outcome = TC_OUT_CONFINE;
	else
		r->outcome = TC_OUT_NORESULT;
}

int
tc_run_step(struct tc_run *r, const struct pollfd *pfd, int npfd,
    int64_t now_ms)
{
	int i;

	if (r->state != TC_RUN_RUNNING)
		return r->state == TC_RUN_DONE;
	for (i = 0; i < npfd; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (pfd[i].fd == r->fd && r->fd >= 0)
			read_child(r);
		else if (pfd[i].fd == r->pidfd && r->pidfd >= 0)
			reap(r);
		else if (pfd[i].fd == r->in_fd && r->in_fd >= 0)
			write_input(r);
	}
	/* A keeper that has not killed its tree in time: it is stuck
	 * (no /proc to find its orphans with); its child, whose
	 * parent-death signal follows it, dies with it. */
	if (r->keeper && r->killed && !r->keeper_killed && r->pidfd >= 0 &&
	    now_ms >= r->grace_ms) {
		pidfd_send_signal(r->pidfd, SIGKILL, NULL, 0);
		r->keeper_killed = 1;
	}
	/* Answered: kill what is left of the call now; the reaping can
	 * wait. */
	if (r->answered && !r->killed)
		tc_run_kill(r, TC_OUT_OK);
	if (r->pidfd >= 0 && !r->killed && now_ms >= r->deadline_ms)
		fail(r, TC_OUT_TIMEOUT, "");
	/* Killed, without a keeper, and not ended when its grace is over:
	 * what holds it is the kernel's (pid 1 of a PID namespace ends
	 * only once every process in it has, and one in uninterruptible
	 * sleep, on a hung network file system, waits for it).  The run is
	 * done; the reaping is left for later (tc_run_release()), as a
	 * keeper's grace left a stuck tree to its parent-death signal. */
	if ((r->pidfd < 0 || r->answered || (r->killed && !r->keeper &&
	    now_ms >= r->grace_ms)) && r->fd < 0) {
		r->state = TC_RUN_DONE;
		classify(r);
	}
	return r->state == TC_RUN_DONE;
}

void
tc_run_kill(struct tc_run *r, enum tc_run_outcome why)
{
	if (r->state != TC_RUN_RUNNING)
		return;
	if (r->outcome == TC_OUT_OK && !r->answered)
		r->outcome = why;
	/* Once: a later word (a deadline, a cancellation after a stop)
	 * neither kills again nor moves the grace. */
	if (r->pidfd >= 0 && !r->killed) {
		/* With a keeper, its word is the result pipe's end, closed
		 * below: it kills the child and all it started.  Without,
		 * the group first (the child may have forked), then the
		 * child itself through its pidfd, which cannot hit a reused
		 * pid. */
		if (!r->keeper) {
			kill(-r->pid, SIGKILL);
			pidfd_send_signal(r->pidfd, SIGKILL, NULL, 0);
		}
		r->grace_ms = tc_now_ms() + TC_KEEPER_GRACE_MS;
		r->killed = 1;
	}
	/* Nothing it sends from now on matters, nor what it would read. */
	tc_fd_close(&r->fd);
	close_input(r);
}

int64_t
tc_run_next_deadline(const struct tc_run *r)
{
	if (r->state != TC_RUN_RUNNING || r->pidfd < 0)
		return -1;
	if (!r->killed)
		return r->deadline_ms;
	if (!r->keeper || !r->keeper_killed)
		return r->grace_ms;
	return -1;
}

int
tc_run_take_progress(struct tc_run *r, struct tc_progress *p)
{
	if (r->nprogress == 0)
		return 0;
	*p = r->progress[0];
	memmove(r->progress, r->progress + 1, --r->nprogress *
	    sizeof(*r->progress));
	return 1;
}

void
tc_run_keep_output(struct tc_run *r, size_t bytes)
{
	if (r->out.end == 0)
		tc_ring_init(&r->out, bytes);
}

int
tc_run_input(struct tc_run *r, const void *p, size_t n, int close)
{
	if (r->in_fd < 0 || r->input_close)
		return TC_EINVAL;
	if (n > r->input.max - r->input.len)
		return TC_ETOOBIG;
	if (tc_buf_append(&r->input, p, n) != 0)
		return TC_ENOMEM;
	r->input_close = close;
	write_input(r);
	/* Closed by the child's end, not as asked: what it did not read is
	 * lost. */
	return r->in_fd < 0 && !close ? TC_ESYS : 0;
}

int
tc_run_wait(struct tc_run *r)
{
	struct pollfd pfd[TC_RUN_POLLFDS];
	int64_t deadline, timeout;
	int n;

	while (r->state == TC_RUN_RUNNING) {
		n = tc_run_pollfds(r, pfd);
		deadline = tc_run_next_deadline(r);
		timeout = deadline < 0 ? -1 : deadline - tc_now_ms();
		if (deadline >= 0 && timeout < 0)
			timeout = 0;
		if (timeout > INT_MAX)
			timeout = INT_MAX;
		if (poll(pfd, (nfds_t)n, (int)timeout) < 0 && errno != EINTR)
			tc_run_kill(r, TC_OUT_SPAWN);
		tc_run_step(r, pfd, n, tc_now_ms());
	}
	return 0;
}

/* The output a call's error result shows at most: its last bytes. */
#define ERROR_OUTPUT_MAX	(64u << 10)

/*
 * Returns the text of an error result saying |msg|, followed by the last
 * of the output the child sent before it ended: what a command printed
 * before its deadline is often why it ran out of time.  NULL when out of
 * memory.
 */
static char *
error_with_output(const struct tc_run *r, const char *msg)
{
	struct tc_result res;
	struct tc_buf b;
	uint64_t off, from;
	size_t n;
	char *tail;

	off = r->out.end > ERROR_OUTPUT_MAX ? r->out.end - ERROR_OUTPUT_MAX :
	    0;
	if ((tail = malloc(ERROR_OUTPUT_MAX)) == NULL)
		return NULL;
	n = tc_ring_read(&r->out, off, tail, ERROR_OUTPUT_MAX, &from);
	tc_result_init(&res);
	tc_result_error(&res, "%s", msg);
	tc_result_printf(&res, "\n\nIts output before it ended");
	if (from > 0)
		tc_result_printf(&res, " (the last %zu bytes of %llu)", n,
		    (unsigned long long)r->out.end);
	tc_result_printf(&res, ":\n");
	tc_result_text(&res, tail, n);
	free(tail);
	tc_buf_init(&b, TC_RESULT_TEXT_MAX);
	if (tc_result_serialize(&res, &b) != 0)
		tc_buf_release(&b);
	tc_result_release(&res);
	return b.data;
}

int
tc_run_take_answer(struct tc_run *r, struct tc_answer *a)
{
	char msg[512];
	const char *what;
	int sig;

	memset(a, 0, sizeof(*a));
	if (r->answered && (r->outcome == TC_OUT_OK ||
	    r->outcome == TC_OUT_TIMEOUT)) {
		/* A result that arrived whole counts, even if the child
		 * lingered afterwards. */
		a->mem = r->answer.data;
		a->json = a->mem + r->answer_off;
		a->len = r->result_bytes;
		a->info = r->info;
		tc_buf_init(&r->answer, 0);
		return 0;
	}
	switch (r->outcome) {
	case TC_OUT_TIMEOUT:
		tc_text_fmt(msg, sizeof(msg), "the call was stopped at its "
		    "deadline of %lld ms%s%s", (long long)(r->deadline_ms -
		    r->start_ms), r->deadline_why[0] ? ": " : "",
		    r->deadline_why);
		break;
	case TC_OUT_CANCELLED:
		snprintf(msg, sizeof(msg), "the call was cancelled");
		break;
	case TC_OUT_TOOBIG:
		tc_text_fmt(msg, sizeof(msg),
		    "the result exceeded the %zu-byte "
		    "limit and was discarded; ask for less at a time", 
		    r->max_result);
		break;
	case TC_OUT_BADFRAME:
		tc_text_fmt(msg, sizeof(msg), "the sandboxed handler sent a "
		    "malformed result (%s)", r->why);
		break;
	case TC_OUT_SPAWN:
		tc_text_fmt(msg, sizeof(msg), "the call could not be run: %s",
		    r->why[0] ? r->why : "internal error");
		break;
	case TC_OUT_CRASHED:
		sig = WTERMSIG(r->status);
		tc_text_fmt(msg, sizeof(msg),
		    "the sandboxed handler was killed "
		    "by signal %d (%s)%s", sig, strsignal(sig), sig == SIGSYS ?
		    ": it made a system call its seccomp filter forbids" :
		    sig == SIGXCPU ? ": it used up its CPU time" : "");
		break;
	case TC_OUT_CONFINE:
		what = tc_child_exit_str(WEXITSTATUS(r->status));
		tc_text_fmt(msg, sizeof(msg),
		    "the call was not run: its sandbox "
		    "could not be set up (%s)", what ? what : "unknown step");
		break;
	case TC_OUT_OK:
	case TC_OUT_NORESULT:
	default:
		tc_text_fmt(msg, sizeof(msg),
		    "the sandboxed handler exited with "
		    "status %d without a result", WEXITSTATUS(r->status));
		break;
	}
	if (r->out.end > 0)
		a->mem = error_with_output(r, msg);
	else
		a->mem = tc_result_error_text(msg);
	if (a->mem == NULL)
		return TC_ENOMEM;
	a->json = a->mem;
	a->len = strlen(a->mem);
	a->info.is_error = 1;
	return 0;
}

void
tc_answer_release(struct tc_answer *a)
{
	free(a->mem);
	memset(a, 0, sizeof(*a));
}

cJSON *
tc_run_take_result(struct tc_run *r)
{
	struct tc_answer a;
	cJSON *res;

	if (tc_run_take_answer(r, &a) != 0)
		return NULL;
	res = cJSON_ParseWithLength(a.json, a.len);
	tc_answer_release(&a);
	return res;
}

void
tc_run_release(struct tc_run *r)
{
	int given_up;

	if (r->state == TC_RUN_RUNNING) {
		tc_run_kill(r, TC_OUT_CANCELLED);
		tc_run_wait(r);
	}
	tc_fd_close(&r->fd);
	close_input(r);
	if (r->pidfd >= 0 && r->killed && r->sb != NULL &&
	    (r->sb->ndead < TC_DEAD_MAX ||
	    tc_sandbox_reap(r->sb, 0) < TC_DEAD_MAX)) {
		/* Killed: it cannot run again; reap it later. */
		r->sb->dead[r->sb->ndead].pid = r->pid;
		r->sb->dead[r->sb->ndead].head = r->head;
		r->sb->dead[r->sb->ndead++].pidfd = r->pidfd;
		r->pidfd = -1;
	}
	/* The dead list full: reaped now, but a child given up (killed,
	 * without a keeper, not ended in its grace) is not waited for,
	 * which could hold the server as long as the kernel holds it. */
	if (r->pidfd >= 0) {
		given_up = r->killed && !r->keeper && tc_now_ms() >= r->grace_ms;
		tc_fd_close(&r->pidfd);
		(void)tc_sandbox_waitpid(r->sb, r->head, r->pid, &r->status,
		    given_up ? WNOHANG : 0);
	}
	tc_buf_release(&r->in);
	tc_buf_release(&r->answer);
	tc_ring_release(&r->out);
	free(r->progress);
	r->progress = NULL;
	r->nprogress = 0;
	r->answered = 0;
	r->state = TC_RUN_IDLE;
}
