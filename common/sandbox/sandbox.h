/*
 * sandbox.h: the sandbox layer's public header: the fork-per-call
 * runner, the pool of ready children and the child's confinement.
 * Returns (sandbox/): 0 or a negative TC_E* code, with a struct tc_diag
 * where a person must read why; a question 1 or 0; a count or a lookup
 * what it found (NULL: nothing); a step that a child or a keeper takes
 * against the kernel 0 or -1 with errno set.
 * tc_sandbox_confine() returns a TC_CHILD_EXIT_* code, for _exit().
 *
 * tc_run_start() forks a child for one tool call.  The child confines itself
 * in tc_sandbox_confine(), the single place where that happens, before any
 * handler code runs; it then runs the handler and sends its result to the
 * parent as frames on a pipe.  The parent treats the child as hostile: it
 * reads at most limits.max_result bytes, kills the child's whole process
 * group at the deadline or on cancellation, always reaps, and turns a crash,
 * a signal, a timeout or an oversized or malformed result into a tool error.
 *
 * The pipes carry frames (an 8-byte header: type, then length, both
 * little-endian u32) so that a child may stream progress and output before
 * its result (sandbox/stream.h, the handler's side).  The parent takes
 * each as it comes, bounded: output into a ring of a set size (the oldest
 * bytes dropped, and counted), progress into a short queue that keeps
 * the latest of a flood; the serving side takes them from the run
 * (tc_run_take_progress, r->out).  A job (a tool with TC_TOOL_JOB) also
 * keeps its request pipe after the call: what the server writes there
 * (tc_run_input) is the child's input, and closing it is the child's end
 * of file.
 *
 * A child whose profile lets it fork has its whole tree die with it,
 * however its members detach: where it is pid 1 of a PID namespace of
 * its own, by the kernel, which kills the namespace when its pid 1 ends;
 * else, where no PID namespace can be made, through a keeper
 * (sandbox/keeper.h) between it and the server (sandbox-int.h,
 * tc_sandbox_keeper()): r->pid is then the keeper's, the keeper is told
 * to kill by the closing of the result pipe's read end, and it exits
 * with the child's own status.  Where a pids cgroup is in force, each
 * call has one of its own (pids.h), which the child is in before it
 * runs anything of its own: placed there by whoever cloned it, or born
 * there to a keeper that entered it first.
 *
 * What a child may do is its tool's profile (profile.h), which the server
 * defines; the sandbox prepares each distinct profile of the server's
 * tools once, at start.
 *
 * Forking and confining cost more than most calls (page faults dominate on
 * a paravirtualised machine), so the runner keeps a pool of ready children
 * per profile in use: forked and fully confined ahead of time by a small
 * spawner process, blocked reading their request pipes (spawn.c).  A call
 * hands its request to a ready child, and the pool is refilled after the
 * server has answered.  Each child still serves exactly one call and
 * exits; nothing passes from one call to the next.  A profile may have
 * its ready children forked from a confined process of its own, its
 * zygote, which took the confinement steps once (zygote.c).
 *
 * The files behind this header are listed, top down, at the top of
 * sandbox-int.h: run.c (tc_run_*), prepare.c (tc_sandbox_init, _reroot,
 * _reach, _release), spawn.c (the pool: tc_sandbox_prefork, _refill,
 * _stop, _pollfds, _step), confine.c (tc_sandbox_confine and the
 * lookups), frame.c (tc_frame_write, tc_stream_grow).
 */
#ifndef TC_SANDBOX_H
#define TC_SANDBOX_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <linux/filter.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/ring.h"
#include "policy/policy.h"
#include "protocol/tools.h"
#include "sandbox/pids.h"
#include "sandbox/profile.h"

struct tc_policy;

enum tc_frame_type {
	TC_FRAME_RESULT		= 1,	/* a CallToolResult; the last frame */
	TC_FRAME_PROGRESS	= 2,	/* progress and total (two doubles,
					   total < 0 for none), then the
					   message's bytes */
	TC_FRAME_CALL		= 3,	/* parent to child: the call to run */
	TC_FRAME_STDOUT		= 4,	/* output bytes, as they came */
	TC_FRAME_STDERR		= 5,
};

#define TC_FRAME_HDR	8u
/* The largest progress or output frame; a result's is limits.max_result. */
#define TC_STREAM_FRAME_MAX	(64u << 10)
/* The bytes of a progress message kept (cut on a character boundary). */
#define TC_PROGRESS_MSG_MAX	200
/* Progress updates queued in a run; past it the oldest queued goes. */
#define TC_PROGRESS_QUEUE	16
/* Output a call's run keeps by default (at most its result's limit). */
#define TC_RUN_OUTPUT_MAX	(1u << 20)
/* Input a run holds while its child does not read it. */
#define TC_RUN_INPUT_MAX	(1u << 20)
/* How long a keeper has to kill its tree before it is killed itself. */
#define TC_KEEPER_GRACE_MS	2000

/*
 * Exit codes of a child whose confinement failed before its handler ran,
 * like minijail's MINIJAIL_ERR_*.  Codes keep their meaning forever.
 */
#define TC_CHILD_EXITS(X)						\
	X(FDS,		 91, "could not close inherited file descriptors") \
	X(ENV,		 92, "could not scrub the environment")		\
	X(RLIMIT,	 93, "could not set resource limits")		\
	X(NS,		 94, "could not enter new namespaces")		\
	X(NNP,		 95, "could not set no_new_privs")		\
	X(CAPS,		 96, "could not drop capabilities")		\
	X(LANDLOCK,	 97, "could not apply the Landlock ruleset")	\
	X(SECCOMP,	 98, "could not load the seccomp filter")	\
	X(SESSION,	 99, "could not start a new session")		\
	X(RESULT,	100, "could not send the result")		\
	X(USER,		101, "could not switch to the run-as user")	\
	X(CALL,		102, "could not read its call")			\
	X(PROFILE,	103, "was started for a profile not prepared")	\
	X(PIDS,		104, "could not enter its pids cgroup")	\
	X(KEEPER,	105, "could not become its call's keeper")	\
	X(MOUNTS,	106, "could not make read-only what calls may "	\
	    "not change beneath the writable directories")

enum tc_child_exit {
#define TC_CHILD_EXIT_ENUM(name, num, text) TC_CHILD_EXIT_##name = (num),
	TC_CHILD_EXITS(TC_CHILD_EXIT_ENUM)
#undef TC_CHILD_EXIT_ENUM
};

/* Returns the description of a TC_CHILD_EXIT_* code, or NULL. */
const char	*tc_child_exit_str(int code);

/* A compiled seccomp program. */
struct tc_bpf {
	struct sock_filter	*insns;
	unsigned short		 len;
};

#define TC_DEAD_MAX	32

/* A child forked and confined ahead of its call, waiting for it. */
struct tc_standby {
	pid_t		 pid;		/* 0: none */
	int		 pending;	/* asked of the spawner, no pid yet */
	int		 pidfd;
	int		 req;		/* write end: the call goes here */
	int		 res;		/* read end: its frames come back */
	unsigned long	 seq;		/* when it was asked for */
	int		 head;		/* its pid names a call's pids cgroup:
					   a keeper, or a child placed
					   without one (tc_sandbox_head()) */
};

/* Ready children kept per profile, at most (the policy's "children"). */
#define TC_POOL_MAX	TC_CHILDREN_MAX

/* What the sandbox prepared for one profile of the server's tools. */
struct tc_sandbox_profile {
	const struct tc_profile *profile;
	int		 ruleset;	/* Landlock, or -1 */
	struct tc_bpf	 seccomp;
	unsigned long	 ns;		/* CLONE_NEW*: those in force */
	struct tc_standby pool[TC_POOL_MAX];	/* ready children */
	/* Its zygote's filter and its children's (zygote.c), when it has
	 * one: zygote_filter.insns is NULL where it has none. */
	struct tc_bpf	 zygote_filter;
	struct tc_bpf	 fork_filter;
	pid_t		 zygote;	/* the server's child; 0: none */
};

/* What the kernel offers and what is in force, probed once at start. */
struct tc_sandbox {
	const struct tc_policy *policy;
	int		 devnull;	/* /dev/null, for the child's stdio */
	pid_t		 server_pid;	/* the parent every child checks for */
	uid_t		 uid;		/* the server's effective ids */
	gid_t		 gid;
	int		 landlock_abi;	/* 0: none */
	unsigned	 degraded;	/* TC_DEGRADE_* layers not in force */
	struct tc_limits rlim;		/* a child's before it knows its call */
	int		 tool_rlimits;	/* some tool has limits of its own */
	struct tc_pids	 pids;		/* each call's pids cgroup, if any */
	unsigned long	 ns_flags;	/* CLONE_NEW*: in force for a profile */
	struct tc_sandbox_profile prof[TC_PROFILES_MAX];
	size_t		 nprof;
	int		 pooling;	/* tc_sandbox_prefork() in force */
	unsigned	 pool;		/* ready children kept per profile */
	unsigned long	 seq;		/* standbys asked for so far */
	pid_t		 spawner;	/* 0: none; see spawn.c */
	int		 spawner_fd;
	/* Killed children whose calls are answered, not yet reaped. */
	struct tc_standby dead[TC_DEAD_MAX];
	size_t		 ndead;
	/* The watch on what ready children keep read-only (watch.c):
	 * inotify, or -1; the watches on the writable roots' tops, by the
	 * root's fd; whether a failed watch was reported. */
	int		 watch_fd;
	struct {
		int	 wd;
		int	 root;
	}		 watch_top[TC_ROOTS_MAX];
	size_t		 nwatch_top;
	int		 watch_warned;
};

#ifdef TC_BENCH
/*
 * Layers bench/ can switch off to measure what each costs: only in the
 * bench runner's build (-DTC_BENCH), so that no server carries a switch
 * that turns a layer off.  Inherited by the spawner and the children
 * forked after it is set.
 */
enum tc_layer {
	TC_LAYER_RLIMITS	= 1 << 0,
	TC_LAYER_CAPS		= 1 << 1,
	TC_LAYER_LANDLOCK	= 1 << 2,
	TC_LAYER_SECCOMP	= 1 << 3,
};

extern unsigned	tc_bench_off;	/* TC_LAYER_* */
#endif

/*
 * The namespaces a child of |profile| gets: those it wants that the kernel
 * allows, 0 for a profile not prepared.
 */
unsigned long	tc_sandbox_ns(const struct tc_sandbox *sb,
		    const struct tc_profile *profile);

/*
 * Probes the kernel and prepares each profile of |profiles| (the distinct
 * profiles of the server's tools): its namespaces, seccomp filter and
 * Landlock ruleset.  A call whose tool has another profile is refused
 * (tc_run_start()), never run unconfined.  Fails closed: without Landlock
 * it returns TC_ENOTSUP with |d| naming the option that accepts the weaker
 * mode, unless the policy allows it, in which case sb->degraded says so.
 * Does not keep |profiles|, only the profiles it names.  Returns 0 or a
 * TC_E* code.
 */
int	tc_sandbox_init(struct tc_sandbox *sb, const struct tc_policy *pol,
	    const struct tc_profiles *profiles, struct tc_diag *d);
void	tc_sandbox_release(struct tc_sandbox *sb);

/* Returns what |sb| prepared for |profile|, or NULL. */
const struct tc_sandbox_profile *tc_sandbox_find(const struct tc_sandbox *sb,
	    const struct tc_profile *profile);

/* Returns how many children of |profile| are ready (forked), for tests. */
unsigned	tc_sandbox_ready(const struct tc_sandbox *sb,
		    const struct tc_profile *profile);

/* What tc_sandbox_reach() finds that calls cannot do in a root. */
enum tc_reach {
	TC_REACH_NOREAD		= 1 << 0,	/* list it, read what is in it */
	TC_REACH_NOWRITE	= 1 << 1,	/* change what is in it */
};

/*
 * Finds, for each root in force of |pol|, whether calls can read it and,
 * for a writable one, write in it, as calls run: a child takes their
 * identity (the run-as user, or the server's own, with no supplementary
 * group then, as calls; and no capability, so that a server run as root
 * is told of a directory of mode 000 too) and asks faccessat(2) with
 * AT_EACCESS, which counts ACLs and read-only mounts.  Sets |out|[i] to
 * the TC_REACH_* bits of root i (|out| holds TC_ROOTS_MAX).  Returns 0, or
 * TC_ESYS with |d| saying why it could not tell.
 */
int	tc_sandbox_reach(const struct tc_policy *pol, unsigned char *out,
	    struct tc_diag *d);

/*
 * Rebuilds what depends on the policy's roots after they changed (the
 * client's roots narrowed them): the Landlock rulesets, and the spawner
 * and every ready child, forked again so that they hold the new root fds.
 * Only while no call runs.  Returns 0, or TC_ESYS with |d| set: then calls
 * must not run, since the old rulesets allow more than the roots now do.
 */
int	tc_sandbox_reroot(struct tc_sandbox *sb, struct tc_diag *d);

/*
 * Starts the spawner afresh (retiring every ready child) and from now on
 * keeps |n| (at most TC_POOL_MAX) ready children of each prepared
 * profile; with |n| 0 none, and each call's child is asked of the spawner
 * when the call comes.  tc_sandbox_refill() replaces those that calls
 * have used up: a server calls it when it has answered what it could (not
 * while calls run, which preparing children would slow down); it also
 * reaps the children of answered calls.  A child that cannot be forked is
 * not an error here: the call that needs it forks its own and reports
 * what went wrong.
 *
 * tc_sandbox_stop() retires every ready child, stops the spawner and reaps
 * every child left: from then on each call's child is forked by the
 * calling process itself (as before the first tc_sandbox_prefork()).
 */
void	tc_sandbox_prefork(struct tc_sandbox *sb, unsigned n);
void	tc_sandbox_refill(struct tc_sandbox *sb);
void	tc_sandbox_stop(struct tc_sandbox *sb);

/*
 * The children of answered calls are killed once their result is in, and
 * reaped when they have died, which may be after the answer went out.  A
 * server polls the pollfds tc_sandbox_pollfds() fills (at most
 * TC_SANDBOX_POLLFDS; returns how many) with the rest and hands them back
 * to tc_sandbox_step(), which reaps those that have exited: no child
 * stays a zombie while the server waits for its next request.  The same
 * pollfds carry the watch on what ready children keep read-only
 * (watch.c), which the step reads.
 */
int	tc_sandbox_pollfds(const struct tc_sandbox *sb, struct pollfd *pfd);
/* The most pollfds tc_sandbox_pollfds() fills: the dead, and the watch
 * on the places ready children keep read-only. */
#define TC_SANDBOX_POLLFDS	(TC_DEAD_MAX + 1)
void	tc_sandbox_step(struct tc_sandbox *sb, const struct pollfd *pfd,
	    int npfd);

/*
 * Confines the calling process (a freshly forked child) for |profile|.
 * The fds in |keep| (at most TC_KEEP_MAX), the profile's ruleset and the
 * root fds the profile keeps stay open; every other fd above 2 is closed,
 * and 0, 1 and 2 become /dev/null (2 stays in sanitizer builds, for their
 * reports).  Returns 0, or a TC_CHILD_EXIT_* code for _exit().
 */
#define TC_KEEP_MAX	64
int	tc_sandbox_confine(const struct tc_sandbox *sb,
	    const struct tc_profile *profile, const int *keep, size_t nkeep);

/*
 * Gives the calling process (a helper forked by the server, not a call)
 * the identity |pol|'s calls run with, for good: the run-as user's ids
 * and no supplementary group where the policy names one, and no
 * capability either way (a root server's calls are root without one),
 * with its parent-death signal armed again for |parent|.  What it may
 * then open is what a call may.  Returns 0 or -1.
 */
int	tc_sandbox_as_calls(const struct tc_policy *pol, pid_t parent);

enum tc_run_state {
	TC_RUN_IDLE,
	TC_RUN_RUNNING,
	TC_RUN_DONE,
};

enum tc_run_outcome {
	TC_OUT_OK,		/* the child sent a well-formed result */
	TC_OUT_TIMEOUT,		/* killed at the deadline */
	TC_OUT_CANCELLED,	/* killed on the client's request */
	TC_OUT_TOOBIG,		/* killed for sending too much */
	TC_OUT_BADFRAME,	/* sent something that is not a result */
	TC_OUT_CRASHED,		/* died by a signal before its result */
	TC_OUT_NORESULT,	/* exited without a result */
	TC_OUT_CONFINE,		/* confinement failed; handler never ran */
	TC_OUT_SPAWN,		/* could not be started */
};

/* One progress update from a child, checked. */
struct tc_progress {
	double		 progress;	/* increases from one to the next */
	double		 total;		/* < 0: not given */
	char		 message[TC_PROGRESS_MSG_MAX + 1];	/* UTF-8 */
};

struct tc_run {
	struct tc_sandbox	*sb;
	enum tc_run_state	 state;
	enum tc_run_outcome	 outcome;
	pid_t			 pid;
	int			 pidfd;		/* -1 once reaped */
	int			 fd;		/* pipe read end; -1 at EOF */
	int			 status;	/* wait status, once reaped */
	int			 killed;	/* SIGKILL sent */
	int64_t			 start_ms;
	int64_t			 deadline_ms;	/* monotonic */
	size_t			 max_result;
	struct tc_buf		 in;		/* frames read, not yet handled */
	int			 answered;	/* a checked result is in */
	struct tc_buf		 answer;	/* the frame that holds it */
	size_t			 answer_off;	/* where its JSON starts */
	size_t			 result_bytes;	/* its length as sent */
	struct tc_result_info	 info;
	char			 why[256];	/* for non-OK outcomes */
	char			 deadline_why[160];	/* the tool's, or "" */

	/* Streaming, jobs and the keeper (see the top of this file). */
	int			 keeper;	/* pid is the child's keeper */
	int			 head;		/* pid names the call's pids
						   cgroup: the keeper's, or the
						   child's, placed in it
						   (tc_sandbox_head()) */
	int			 keeper_killed;	/* it did not finish in time */
	int64_t			 grace_ms;	/* killed: when it is given up */
	int			 in_fd;		/* the child's input, or -1 */
	struct tc_buf		 input;		/* written, not yet taken */
	int			 input_close;	/* close in_fd once it is */
	struct tc_ring		 out;		/* output kept, as it came */
	uint64_t		 out_bytes[2];	/* stdout's and stderr's */
	struct tc_progress	*progress;	/* the queue, made at the first */
	unsigned		 nprogress;	/* queued, oldest first */
	uint64_t		 progress_frames;	/* received, all told */
	double			 progress_last;	/* the last accepted */
};

void	tc_run_init(struct tc_run *r);

/*
 * Hands |call| to a ready child of its tool's profile, or forks a confined
 * child for it when there is none.  Returns 0 with the run in
 * TC_RUN_RUNNING, or TC_ESYS with |d| set (nothing left running).  The
 * caller ignores SIGPIPE: a child that died before its call closed the
 * pipe the call is written to.
 */
int	tc_run_start(struct tc_run *r, struct tc_sandbox *sb,
	    const struct tc_call *call, struct tc_diag *d);

/*
 * Fills up to TC_RUN_POLLFDS pollfds for the run; returns how many.  The
 * caller polls them and passes their revents back to tc_run_step().
 */
#define TC_RUN_POLLFDS	3
int	tc_run_pollfds(const struct tc_run *r, struct pollfd *pfd);

/*
 * Advances the run after poll(): reads what the child sent, reaps it when
 * it exits, kills it at the deadline (|now_ms|).  Once a whole result has
 * arrived, the child's process group is killed and the run is done at
 * once: the answer does not wait for the reaping, which the sandbox does
 * later (tc_sandbox_refill(), tc_sandbox_release()).  Returns 1 once the run
 * is TC_RUN_DONE, else 0.
 */
int	tc_run_step(struct tc_run *r, const struct pollfd *pfd, int npfd,
	    int64_t now_ms);

/*
 * Kills the child's process group now, recording |why| as the outcome; a
 * child with a keeper is killed by it, with all it started, and the
 * keeper itself TC_KEEPER_GRACE_MS later if it has not exited by then.
 * A child without a keeper not ended TC_KEEPER_GRACE_MS later (one of
 * its PID namespace in uninterruptible sleep) is given up: the run is
 * done, and the child reaped later (tc_run_release()), its pids cgroup
 * kept or removed once it is (tc_pids_done()).
 */
void	tc_run_kill(struct tc_run *r, enum tc_run_outcome why);

/*
 * Returns when tc_run_step() must next run whatever the fds say (the
 * deadline, or a keeper's grace), or -1 for never.
 */
int64_t	tc_run_next_deadline(const struct tc_run *r);

/*
 * Takes the oldest progress update queued into |p|.  Returns 1, or 0 if
 * none is queued.  Each one's progress is greater than the one before.
 */
int	tc_run_take_progress(struct tc_run *r, struct tc_progress *p);

/*
 * Sets how many bytes of output the run keeps (r->out), before the child
 * has sent any; the default is TC_RUN_OUTPUT_MAX, or the result's limit
 * if lower.
 */
void	tc_run_keep_output(struct tc_run *r, size_t bytes);

/*
 * Writes |n| bytes of |p| to the child's input (a job's; other calls have
 * none), and with |close| ends it once they are written.  What the pipe
 * does not take at once waits in the run, at most TC_RUN_INPUT_MAX bytes,
 * and goes as the child reads.  Returns 0 with all |n| taken, TC_ETOOBIG
 * with none taken (too much waits already), TC_EINVAL when the input is
 * closed, or TC_ESYS when the child turned out to have closed its end
 * (what it did not read is lost, and the input is closed).
 */
int	tc_run_input(struct tc_run *r, const void *p, size_t n, int close);

/*
 * Blocks until the run is done (after tc_run_kill(), or for tests).
 * Returns 0.
 */
int	tc_run_wait(struct tc_run *r);

/* A finished call's CallToolResult, as JSON text. */
struct tc_answer {
	char			*mem;	/* what to free */
	const char		*json;	/* NUL-terminated, inside mem */
	size_t			 len;
	struct tc_result_info	 info;
};

/*
 * Moves the run's CallToolResult into |a|: the child's own text, checked
 * and unchanged, for TC_OUT_OK, else an isError result that says what
 * happened.  Returns 0, or TC_ENOMEM with |a| empty.
 */
int	tc_run_take_answer(struct tc_run *r, struct tc_answer *a);
void	tc_answer_release(struct tc_answer *a);

/* The same, parsed (for tests and the benchmark); NULL on failure. */
cJSON	*tc_run_take_result(struct tc_run *r);

/* Kills and reaps anything still running and frees everything. */
void	tc_run_release(struct tc_run *r);

/*
 * Lets the pipe or socket |fd| hold |bytes| on its way (at most the
 * system's pipe-max-size or wmem_max), so that a large answer crosses it
 * in one write rather than in 64 KiB turns of writer and reader, each a
 * wake-up on both sides.  Best effort: a refusal (the user's pipe quota,
 * a file) leaves it as it was.
 */
void	tc_stream_grow(int fd, int bytes);

#define TC_PIPE_BYTES	(1 << 20)

/* In the child: sends one frame on |fd|.  Returns 0, TC_ETOOBIG or
 * TC_ESYS. */
int	tc_frame_write(int fd, enum tc_frame_type type, const char *p,
	    size_t n);

#endif /* TC_SANDBOX_H */
