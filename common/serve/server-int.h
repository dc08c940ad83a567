/*
 * server-int.h: the serving loop's state, shared by the files of serve/:
 * server.c (the start, the method table), cmdline.c (the command line and
 * the policy it loads), loop.c (the poll loop's sources, loop.h),
 * admission.c (whether a tools/call may run), calls.c (a call from
 * admission to its answer), roots.c (the client's roots), resources.c
 * (the server's resource provider behind the resources/ methods),
 * start.c (the checks of a start and --check), consent.c (asking a
 * person before a call runs) and record.c (the audit log's records).
 * Nothing outside serve/ includes it but the JSON-RPC fuzz harness, which
 * drives the real method table.
 *
 * Return convention: as server.h, 0 or a negative TC_E* code (-1 where a
 * comment says so); the method handlers answer their request themselves.
 */
#ifndef TC_SERVER_INT_H
#define TC_SERVER_INT_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "audit/audit.h"
#include "sandbox/hook.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/job.h"
#include "serve/server.h"

/* How a call's consent was settled, for its answer and its record. */
struct consent {
	const struct tc_consent_rule *rule;	/* the rule that asked */
	size_t		 next;		/* index into consent_by to try */
	const char	*means;		/* "elicitation", "hook", "session" */
	const char	*answer;	/* "allow", "allow-session", "deny",
					   "decline", "cancel", "timeout",
					   "error" */
	char		 detail[256];	/* the hook's reason, an error */
	int64_t		 elicit_id;	/* outgoing request, or -1 */
	int64_t		 deadline_ms;	/* monotonic */
	struct tc_hook	 hook;
	int		 hook_running;
	/* Once settled (on s->settled): the refusal to answer with, or ""
	 * when the call is allowed. */
	char		 refusal[768];
};

struct call {
	struct srv		*srv;
	struct tc_request	*req;
	const char		*name;		/* as asked, for an unknown tool */
	struct tc_call		 call;
	struct tc_run		 run;
	uint64_t		 seq;		/* the call's number in the log */
	int64_t			 received_ms;
	int			 cancelled;
	int			 pfd;		/* first pollfd, or -1 */
	int			 npfd;
	/* The paths the call names, each as it resolves (the deepest part
	 * that exists, and the names the call would create below it): for
	 * deny and consent, the question and the log.  As many as the call
	 * names: none is passed over. */
	char			**abs;		/* canonical root + rel */
	char			**rel;
	size_t			 npaths;
	size_t			 paths_cap;
	/* Per consent rule of the policy: the bits (1u << kind) of the
	 * kinds of subject for which some subject of the call matches one
	 * of the rule's patterns (a path or cwd in any spelling: as given,
	 * as resolved, where a change is made). */
	unsigned		*consent_hit;
	/* The call's subjects (policy/subject.h), for consent, the hook
	 * and the log: the paths resolved (as c->abs), then what the
	 * tool's subjects callback adds, a cwd resolved as a path. */
	struct tc_subjects	 subjects;
	/* What each path was when the call was decided (path.h), which the
	 * child holds a call consent was given for to; and the consent
	 * rules the call was not given, which the child treats as deny
	 * rules.  Lent to call.pins and call.unconsented. */
	struct tc_pin		*pins;
	size_t			 npins;
	size_t			 pins_cap;
	size_t			*unconsented;
	struct consent		*consent;	/* while asking, or after */
	/* A resources/read: the URI asked for, and the arguments made of
	 * it for the resource tool (both owned).  Its answer is a
	 * ReadResourceResult or a JSON-RPC error, not a CallToolResult. */
	char			*resource_uri;
	cJSON			*own_args;
	struct call		*next;
};

/* A session-long yes: calls of |tool| under |rule| are not asked again. */
struct allowance {
	const char			*tool;
	const struct tc_consent_rule	*rule;
	struct allowance		*next;
};

struct srv {
	const struct tc_server	*def;
	struct tc_policy	 pol;
	struct tc_sandbox	 sb;
	struct tc_proto		 proto;
	cJSON			*tools;		/* the tools/list array */
	struct tc_buf		 instructions;
	struct call		*calls;		/* running */
	unsigned		 ncalls;
	struct tc_jobs		 jobs;		/* every child: calls', jobs */
	struct call		*queue;		/* waiting for a free slot */
	struct call		**queue_tail;
	unsigned		 nqueued;
	struct call		*asking;	/* waiting for consent */
	unsigned		 nasking;
	/* Consent settled, the call not yet admitted or refused: consent.c
	 * decides, and the serving code acts on it (tc_srv_settled()). */
	struct call		*settled;
	struct call		**settled_tail;
	struct call		*held;		/* waiting for the roots */
	struct call		**held_tail;
	unsigned		 nheld;
	struct allowance	*allowed;	/* "allow for this session" */
	struct tc_audit		*audit;		/* NULL: no log */
	uint64_t		 next_seq;	/* numbers tools/call requests */
	uint64_t		 ncalls_total;
	/* The client's roots (MCP roots), which narrow the policy's.  A
	 * call that arrives while they are unsettled is held, undecided,
	 * until they are applied: its paths, deny rules and consent are
	 * decided once, against the roots it will run under. */
	int			 initialized;	/* notifications/initialized */
	int			 roots_gave_up;	/* no initialized in time */
	int64_t			 roots_id;	/* roots/list asked, or -1 */
	int64_t			 roots_deadline_ms;	/* of the wait */
	char			**roots_new;	/* answered, to apply when idle */
	size_t			 nroots_new;
	int			 roots_apply;
	int			 roots_broken;	/* re-rooting failed: refuse */
	int			 sigfd;
	int			 stop;
	const char		*stop_reason;
	struct tc_profiles	 profiles;	/* of the visible tools */
};

/* Calls waiting for a free slot, at most. */
#define MAX_QUEUED	256

/* --- call.c --- */

/* Frees |c| and everything it owns (not its request, nor its run). */
void	tc_srv_free_call(struct call *c);

/* --- calls.c --- */
void	tc_srv_append_call(struct call ***tail, struct call *c);
int	tc_srv_unlink_call(struct call **head, struct call ***tail, struct call *c);
struct call *	tc_srv_find_call(struct srv *s, const char *id_key);
void	tc_srv_end_unstarted(struct srv *s, struct call *c, enum tc_run_outcome outcome, const char *msg);
void	tc_srv_finish(struct srv *s, struct call *c);
void	tc_srv_start_queued(struct srv *s);
void	tc_srv_on_cancel(void *ctx, const char *id_key);
void	tc_srv_tools_list(void *ctx, struct tc_request *req);
const struct tc_tool *	tc_srv_visible_tool(const struct srv *s, const char *name);
const struct tc_tool *	tc_srv_resource_tool(const struct srv *s);

/* --- admission.c --- */
void	tc_srv_decide(struct srv *s, struct call *c);
void	tc_srv_new_call(struct srv *s, struct tc_request *req, const struct tc_tool *t, cJSON *args, char *uri);
void	tc_srv_tools_call(void *ctx, struct tc_request *req);
/* Decides the calls held for the client's roots, in the order they came,
 * once the roots are settled. */
void	tc_srv_release_held(struct srv *s);

/* --- roots.c --- */
void	tc_srv_apply_roots(struct srv *s);
void	tc_srv_on_initialized(void *ctx, struct tc_request *req);
void	tc_srv_on_roots_changed(void *ctx, struct tc_request *req);
int	tc_srv_roots_pending(const struct srv *s);
void	tc_srv_forget_new_roots(struct srv *s);

/* --- resources.c --- */
void	tc_srv_resources_list(void *ctx, struct tc_request *req);
void	tc_srv_resources_read(void *ctx, struct tc_request *req);
void	tc_srv_resources_templates_list(void *ctx, struct tc_request *req);

/* --- cmdline.c --- */

/*
 * Reads the command line into |cl|: each option through its setter (the
 * common ones and the server's, one table), then the server's cmdline
 * hook; --help, --version and --print-config are done here.  Returns -1
 * when the server is to go on (a start, or --check), else the status to
 * exit with.  A usage error exits here, with TC_EXIT_USAGE.
 */
int	tc_srv_cmdline(const struct tc_server *def, int argc, char *argv[],
	    struct tc_cmdline *cl);

/*
 * Fills |pol| from the policy file, the server's configure hook (its
 * options and operands) and the common options, in that order, so that
 * the command line wins.  Every error is printed and counted; returns the
 * count.
 */
int	tc_srv_load_policy(const struct tc_server *def, struct tc_policy *pol,
	    const struct tc_cmdline *cl);

/*
 * Runs the server's ready hook on |pol|, if it has one; if it refuses,
 * logs why.  Returns -1 to go on, else the status to exit with:
 * TC_EXIT_USAGE for nothing to serve (TC_EINVAL), 1 for anything else it
 * could not make.  A start, --check and --print-config all exit so.
 */
int	tc_srv_ready(const struct tc_server *def, const struct tc_policy *pol);

/* A tc_policy_report_fn that prints an error and counts it in the int
 * at |ctx|. */
void	tc_srv_report_error(void *ctx, const char *msg);

/*
 * Warns about what in the policy can have no effect (the server's warn
 * hook, else tc_policy_warn()), on --check as at start, so that a policy
 * that checks clean does what it says.
 */
void	tc_srv_warn_policy(const struct tc_server *def,
	    const struct tc_policy *pol);

/* --- loop.c --- */

struct tc_loop;

/* Adds the server's sources to |l| (loop.h), in the order they are
 * stepped: signals, sandbox, calls, consent, input, roots. */
void	tc_srv_add_sources(struct srv *s, struct tc_loop *l);

/* Serves until the input ends or a signal stops the server. */
void	tc_srv_serve(struct srv *s);
/* Stops every call, answering each, and the sandbox's children. */
void	tc_srv_stop_all(struct srv *s);

/* --- server.c --- */

/* The methods a server answers, for tc_proto_init(). */
extern const struct tc_method tc_srv_methods[];
extern const size_t tc_srv_nmethods;

/* The tools/list array of the tools the policy offers, and the profiles
 * they need (s->profiles). */
void	tc_srv_build_tools(struct srv *s);

/* The initialize result's instructions for the model. */
void	tc_srv_build_instructions(struct srv *s);


/* Runs |c| now or queues it, after its "call" record is written; or
 * refuses it when the record cannot be (the log fails closed). */
void	tc_srv_admit(struct srv *s, struct call *c);

/* Answers |c| with an isError result saying |msg| and frees it. */
void	tc_srv_refuse(struct srv *s, struct call *c, const char *msg);

/* The same, after writing its "call" record: "denied" by |by| ("policy",
 * "limit", ...) under |rule|, because |msg|. */
void	tc_srv_deny(struct srv *s, struct call *c, const char *by,
	    const char *rule, const char *msg);

/*
 * The same for a call that could not be run for a reason of the server's
 * own (a fork that failed, an audit log that cannot be written): a
 * resources/read gets -32603, not -32002.
 */
void	tc_srv_fail(struct srv *s, struct call *c, const char *msg);

/*
 * Admits or refuses each call whose consent is settled, in the order they
 * were settled.  Runs after anything that can settle consent (the loop's
 * consent source, a call decided at once) and before anything whose
 * outcome depends on it (a cancellation, a new call).
 */
void	tc_srv_settled(struct srv *s);

/* Answers each call whose run the job table says has ended
 * (tc_jobs_take_done()). */
void	tc_srv_finish_done(struct srv *s);


/* --- start.c --- */

/* What tc_srv_prepare() is run for. */
enum tc_prep {
	TC_PREP_START,		/* a start: the log is opened */
	TC_PREP_CHECK,		/* --check: nothing is made or written */
	TC_PREP_REFUSED,	/* a start already refused: checked as
				   --check, without its notes */
};

/*
 * Checks everything a start checks once the policy is loaded and the
 * tools are built (s->profiles): the kernel's confinement layers (into
 * s->sb), whether calls can reach the directories served (a warning for
 * each one they cannot read or write in), and the audit log with its key
 * (opened into s->audit for TC_PREP_START; for the others, checked and
 * left as it was, s->audit NULL).  Each error is passed to |report| (with
 * |ctx|), every one that can be found, not only the first; warnings and
 * notes go to the log.  A start and --check call it alike, so that --check
 * says no whenever a start would.
 */
void	tc_srv_prepare(struct srv *s, enum tc_prep mode,
	    tc_policy_report_fn *report, void *ctx);

/* --- consent.c --- */

/* Returns the first consent rule that applies to |c|, or NULL. */
const struct tc_consent_rule *tc_consent_rule(const struct srv *s,
	    const struct call *c);

/*
 * Fills what |c|'s child is to hold the call to, once it is admitted:
 * its pins if consent was given for it, and the consent rules that apply
 * to its tool and that it was not given (neither asked about, nor allowed
 * for the session).  Returns 0, or -1 when out of memory.
 */
int	tc_consent_scope(struct srv *s, struct call *c);

/* Returns 1 if a session-long yes covers |c| under |rule|. */
int	tc_consent_remembered(const struct srv *s, const struct call *c,
	    const struct tc_consent_rule *rule);

/*
 * Starts asking for consent to |c| under |rule| by the policy's means in
 * order; the call waits on s->asking until it is settled, and then on
 * s->settled, where tc_consent_take() hands it back.  Consent never
 * admits or refuses a call itself: it says what was decided.  Returns 0,
 * or -1 when out of memory (|c| untouched, for the caller to fail).
 */
int	tc_consent_ask(struct srv *s, struct call *c,
	    const struct tc_consent_rule *rule);

/*
 * Takes the first call whose consent is settled off s->settled; sets
 * *|refusal| to NULL if it is allowed (its answer and record are the
 * caller's, by admitting it), else to the text to refuse it with (its
 * "denied" record is written).  Returns NULL when none is settled.
 */
struct call *tc_consent_take(struct srv *s, const char **refusal);

/* Up to 3 pollfds for |c|'s hook; returns how many. */
int	tc_consent_pollfds(const struct call *c, struct pollfd *pfd);

/* Advances |c|'s consent after poll(); settles it at its deadline. */
void	tc_consent_step(struct srv *s, struct call *c,
	    const struct pollfd *pfd, int npfd, int64_t now_ms);

/* The earliest consent deadline, or -1 if none is waiting. */
int64_t	tc_consent_next_deadline(const struct srv *s);

/* Stops asking about |c|, which the client cancelled. */
void	tc_consent_abandon(struct srv *s, struct call *c, const char *why);

/*
 * Stops asking about |c| when nobody is left to answer (the input closed,
 * or the server is stopping), and denies it: its answer goes out, and its
 * record says the consent answer |answer| ("input-closed",
 * "server-stopped") and |why|.
 */
void	tc_consent_give_up(struct srv *s, struct call *c, const char *answer,
	    const char *why);

/*
 * Reports through |report| (with |ctx|), as "file:line: message", each
 * consent rule that names a kind of subject (policy/subject.h) that no
 * tool it covers has (tools.h: path for a path argument, and the
 * tool's subject_kinds), which would never ask: a start refuses it.
 */
void	tc_consent_check(const struct srv *s, tc_policy_report_fn *report,
	    void *ctx);

/* --- record.c --- */

/* The records of the audit log; each returns 0, or -1 with |d| set when
 * the record could not be written. */
int	tc_record_start(struct srv *s, struct tc_diag *d);
int	tc_record_client(struct srv *s, struct tc_diag *d);
int	tc_record_call(struct srv *s, const struct call *c,
	    const char *decision, const char *by, const char *rule,
	    const char *reason, struct tc_diag *d);
int	tc_record_result(struct srv *s, const struct call *c,
	    const struct tc_result_info *info, struct tc_diag *d);
int	tc_record_stop(struct srv *s, struct tc_diag *d);
int	tc_record_roots(struct srv *s, struct tc_diag *d);

/* Describes |rule| as "consent write_file (line 12)" into |buf|. */
const char *tc_consent_rule_str(const struct tc_consent_rule *rule,
	    char *buf, size_t len);

#endif /* TC_SERVER_INT_H */
