/*
 * job.h: the children of tools/call requests, and jobs, owned by the
 * serving loop.
 *
 * Every running child is a job in one table.  A call's job ends with its
 * result: its request is answered then, as it always was.  A job proper is
 * the child of a tool flagged TC_TOOL_JOB: its request is answered at once
 * with the job's id, and the child runs on until it sends its result, is
 * stopped, or reaches its lifetime (the policy's "job-lifetime"); at most
 * "jobs" of them run at once.  Both are one run (sandbox.h): the same
 * start, frames, deadline and killing; a job is a run whose answer does
 * not wait for it.  Each job's child is killed with its whole process tree
 * (its keeper, or its PID namespace) on stop, at its lifetime, on
 * cancellation and when the server exits.
 *
 * While it runs, a call's child may send progress (passed on as MCP
 * notifications/progress when its request asked for them, at most
 * TC_PROGRESS_BURST at once and one every TC_PROGRESS_EVERY_MS after) and
 * output (the last of which a call's error result shows).  A job keeps
 * its last TC_JOB_OUTPUT bytes of output in a ring whose offsets count
 * from the job's start, and its latest progress.
 *
 * A model reaches jobs through tools the server answers itself, from this
 * table, never in a child: read a job's output from an offset (waiting a
 * little for more), write to its input, stop it, list them.  A server
 * puts them in its tool table with the TC_JOB_*_TOOL() entries below,
 * under names and descriptions of its choosing.  They go through
 * admission, consent and the audit log as any tool does.
 *
 * The serving loop drives the table as an event source: tc_jobs_pollfds(),
 * tc_jobs_step(), tc_jobs_next_deadline().  Returns: 0 or a negative
 * TC_E*, where a function returns int.  A call handed to the table is the
 * table's: a job tool's call is answered by it, and a call whose run ends
 * is handed back (tc_jobs_take_done()) for the serving side to answer.
 */
#ifndef TC_JOB_H
#define TC_JOB_H

#include <poll.h>
#include <stdint.h>

#include "base/ring.h"
#include "protocol/tools.h"
#include "sandbox/sandbox.h"

struct call;
struct srv;

#define TC_JOB_POLLFDS		TC_RUN_POLLFDS	/* per job, at most */
#define TC_JOB_OUTPUT		(1u << 20)	/* output a job keeps */
#define TC_JOB_READ_MAX		(256u << 10)	/* one read, at most */
#define TC_JOB_WAIT_MAX_MS	30000		/* a read's wait, at most */
#define TC_JOB_INPUT_MAX	(64u << 10)	/* one write, at most */
#define TC_JOBS_ENDED_KEPT	16		/* ended jobs still readable */
#define TC_PROGRESS_BURST	16		/* notifications at once */
#define TC_PROGRESS_EVERY_MS	100		/* then one per this */
/* A call's answer comes at least this long after its last progress
 * notification: see pass_progress() in job.c. */
#define TC_PROGRESS_QUIET_MS	20

/* A call's wait on a job: a read for more output, or a stop. */
struct tc_job_wait {
	struct call		*call;
	int			 stop;		/* else a read */
	uint64_t		 offset;
	size_t			 max;
	int			 binary;	/* its bytes in base64 too */
	int64_t			 deadline_ms;
	struct tc_job_wait	*next;
};

struct tc_job {
	unsigned long long	 id;		/* a job's; 0 for a call's */
	struct call		*call;		/* the run is call->run */
	int			 detached;	/* a job: answered at once */
	int			 ended;		/* its run is done */
	const char		*tool;		/* its tool's name */
	int64_t			 started_ms;
	int64_t			 ended_ms;
	const char		*state;		/* "running", "exited", ... */
	char			 detail[256];	/* how it ended, for people */
	char			*result;	/* its child's result (JSON) */
	struct tc_ring		 out;		/* an ended job's output */
	uint64_t		 out_bytes[2];	/* stdout's and stderr's */
	struct tc_progress	 progress;	/* the latest */
	int			 has_progress;
	int			 sent_progress;	/* its request was told some */
	int64_t			 told_ms;	/* when it was last told */
	int			 due;		/* its run is done; its answer
						   waits for the quiet */
	double			 tokens;	/* progress notifications */
	int64_t			 tokens_ms;
	int			 stopping;	/* stop_job asked */
	struct tc_job_wait	*waits;
	int			 pfd, npfd;	/* its pollfds this round */
	struct tc_job		*next;
};

struct tc_jobs {
	struct srv		*srv;
	struct tc_job		*head;
	unsigned		 n;		/* in the table */
	unsigned		 running;	/* jobs (detached) running */
	unsigned long long	 next_id;
	/* Calls whose runs ended, for the serving side to answer
	 * (tc_jobs_take_done()): the table never answers a call's run
	 * itself. */
	struct call		*done;
	struct call		**done_tail;
};

/* Makes an empty table for server |s|. */
void	tc_jobs_init(struct tc_jobs *j, struct srv *s);

/* --- The event source --- */

/*
 * Fills the pollfds of every running job (at most TC_JOB_POLLFDS * j->n)
 * and returns how many.  The loop polls them and hands the same slice to
 * tc_jobs_step().
 */
int	tc_jobs_pollfds(struct tc_jobs *j, struct pollfd *pfd);

/*
 * Advances every job after poll(): reads what their children sent, passes
 * progress on, answers waiting reads, kills at deadlines, and ends the
 * jobs whose runs are done (a call's is handed back: tc_jobs_take_done()).
 * |now_ms| is the monotonic clock.
 */
void	tc_jobs_step(struct tc_jobs *j, const struct pollfd *pfd, int npfd,
	    int64_t now_ms);

/*
 * Takes the first call whose run ended (and that is no job: a job keeps
 * its result for read_output) off the table, for the caller to answer
 * (tc_srv_finish()); NULL when there is none.  After tc_jobs_step(),
 * tc_jobs_add() and tc_jobs_stop_all().
 */
struct call *tc_jobs_take_done(struct tc_jobs *j);

/* Returns the earliest time tc_jobs_step() must run, or -1 for none. */
int64_t	tc_jobs_next_deadline(const struct tc_jobs *j);

/* --- From the serving side --- */

/*
 * Takes |c|, whose run has just started, into the table.  For a
 * TC_TOOL_JOB tool, answers its request at once with the job's id and
 * gives the run the job's lifetime and output ring; the call itself stays
 * the job's until the job ends (its audit record's "result" is written
 * then).
 */
void	tc_jobs_add(struct tc_jobs *j, struct call *c);

/*
 * Returns NULL if a job may start now, else a new message saying why not
 * (the caller frees it; "" when out of memory).
 */
char	*tc_jobs_full(const struct tc_jobs *j);

/*
 * Answers |c|, a call of one of the job tools (TC_TOOL_SERVER_SIDE), from
 * the table: at once, or when what it waits for comes.  Takes |c|.
 */
void	tc_jobs_call(struct tc_jobs *j, struct call *c);

/*
 * The client cancelled request |id_key|: if it is a call waiting on a job,
 * it is dropped unanswered.  Returns 1 if it was one.
 */
int	tc_jobs_cancel(struct tc_jobs *j, const char *id_key);

/*
 * The server stops: kills every child with its tree and waits for them,
 * answers every call (a cancelled one stays unanswered), and empties the
 * table.
 */
void	tc_jobs_stop_all(struct tc_jobs *j);

/* --- The job tools, for a server's table --- */

extern const struct tc_arg tc_job_read_args[];
extern const struct tc_arg tc_job_write_args[];
extern const struct tc_arg tc_job_id_args[];
extern const struct tc_arg tc_job_no_args[];
extern const char tc_job_start_schema[];	/* a TC_TOOL_JOB tool's */
extern const char tc_job_read_schema[];
extern const char tc_job_write_schema[];
extern const char tc_job_stop_schema[];
extern const char tc_job_list_schema[];

/* The handler of the job tools: never runs (they are the server's). */
tc_tool_fn	tc_job_stub;

/* Descriptions a server may use as they are. */
#define TC_JOB_READ_DESC						\
	"Read a job's output (stdout and stderr as they came) from an "	\
	"offset: 0 at first, then the next_offset of the last read. "	\
	"With wait_ms, waits that long at most for output to come. "	\
	"With binary, also returns the bytes exactly, base64, in the "	\
	"structured content (the text replaces bytes that are not "	\
	"UTF-8). Says whether the job still runs, and whether output "	\
	"before the offset was dropped (a job keeps its last 1 MiB)."
#define TC_JOB_WRITE_DESC						\
	"Write text to a job's input; with close, end its input after "	\
	"it."
#define TC_JOB_STOP_DESC						\
	"Stop a job: it and every process it started are killed."
#define TC_JOB_LIST_DESC						\
	"List the jobs: those running and the last ones that ended."

/* Table entries for the job tools: name, title and description. */
#define TC_JOB_TOOL(n, t, d, a, s, f)					\
	{ .name = (n), .title = (t), .description = (d), .args = (a),	\
	  .output_schema = (s), .fn = tc_job_stub, .flags = (f) }
#define TC_JOB_READ_TOOL(n, t, d)					\
	TC_JOB_TOOL(n, t, d, tc_job_read_args, tc_job_read_schema,	\
	    TC_TOOL_JOB_READ | TC_TOOL_READONLY)
#define TC_JOB_WRITE_TOOL(n, t, d)					\
	TC_JOB_TOOL(n, t, d, tc_job_write_args, tc_job_write_schema,	\
	    TC_TOOL_JOB_WRITE)
#define TC_JOB_STOP_TOOL(n, t, d)					\
	TC_JOB_TOOL(n, t, d, tc_job_id_args, tc_job_stop_schema,	\
	    TC_TOOL_JOB_STOP | TC_TOOL_DESTRUCTIVE | TC_TOOL_IDEMPOTENT)
#define TC_JOB_LIST_TOOL(n, t, d)					\
	TC_JOB_TOOL(n, t, d, tc_job_no_args, tc_job_list_schema,	\
	    TC_TOOL_JOB_LIST | TC_TOOL_READONLY)

#endif /* TC_JOB_H */
