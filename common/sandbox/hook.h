/*
 * hook.h: the consent hook runner.
 * Returns (sandbox/): 0 or a negative TC_E* code, with a struct tc_diag
 * where a person must read why; a question 1 or 0; a count or a lookup
 * what it found (NULL: nothing); a step that a child or a keeper takes
 * against the kernel 0 or -1 with errno set.
 * The hook's own answer is in struct tc_hook, never a return value.
 *
 * A policy may name a consent hook: a program (an argv) that decides
 * whether a risky tool call may run, usually by asking a person.  Before
 * such a call is forked, the server starts the hook with tc_hook_start(),
 * hands it the call as one JSON document on its stdin, and drives it from
 * its single-threaded poll loop with tc_hook_pollfds() and tc_hook_step(),
 * serving pings and other calls meanwhile.  Nothing here blocks, except
 * tc_hook_kill() and tc_hook_release() on a hook still running, and those
 * only for a bounded time.
 *
 * The hook's answer is its exit status: 0 allows, anything else denies.
 * Its first line on stdout (at most TC_HOOK_REASON_MAX bytes are kept) is
 * its reason, shown to the model on a denial and recorded on an allow; a
 * first word "session" with exit status 0 allows the call and asks that
 * the server not ask again for the rest of the session.  Everything that
 * keeps an answer from being given denies, each with its own reason: the
 * deadline (the policy's consent timeout, 30 s by default), a crash, a
 * missing or non-executable program, too much output.
 *
 * What the hook gets:
 *  - argv as the policy gives it; argv[0] must be an absolute path, and is
 *    executed as is (no PATH search); or, with tc_hook_start_fd(), the
 *    file the server opened at start, which argv[0] must still name (a
 *    script's interpreter then reads it from /dev/fd/N, its $0, which
 *    stays open).
 *  - stdin: a pipe carrying the JSON document, then end-of-file.  It is
 *    written without blocking, so a hook that never reads does not hold up
 *    the server; a hook that exits before reading it all is no error.  The
 *    document, built by the caller, is one object:
 *
 *	{"server":"toolcell-fs","tool":"write_file",
 *	 "arguments":{"path":"notes.txt","content":"..."},
 *	 "annotations":{"readOnlyHint":false,"destructiveHint":true,...},
 *	 "rule":"consent write_file (line 12)",
 *	 "client":{"name":"claude-ai","version":"0.1"},
 *	 "paths":["/srv/me/project/notes.txt"]}
 *
 *    "server" and "tool" are names; "arguments" the call's arguments as
 *    the client sent them (validated against the tool's schema);
 *    "annotations" the tool's MCP annotations; "rule" the policy line that
 *    asked for consent; "client" the clientInfo of initialize (absent if
 *    the client gave none); "paths" the canonical absolute paths the call
 *    names (empty if it names none).  Only "server" and "tool" are
 *    required here: a document without them is refused (TC_EINVAL).
 *  - stdout: a pipe.  The first line is the reason; the rest is read and
 *    discarded, up to TC_HOOK_MAX_OUTPUT bytes in all, past which the hook
 *    is killed and the call denied.
 *  - stderr: the server's, which is its log (useful when writing a hook),
 *    unless that is the server's stdout (it carries MCP messages only) or
 *    closed: then /dev/null.
 *  - no other fd; every signal at its default disposition and none
 *    blocked; the working directory "/"; the server's uid, gid, rlimits and
 *    umask.  The hook is the user's own program and is not confined.
 *  - a clean environment: PATH=/usr/local/bin:/usr/bin:/bin; those of
 *    HOME, USER, LOGNAME, LANG, LC_ALL, LC_MESSAGES, TERM, DISPLAY,
 *    WAYLAND_DISPLAY, XAUTHORITY, XDG_RUNTIME_DIR and
 *    DBUS_SESSION_BUS_ADDRESS that were set when the server called
 *    tc_hook_env_capture(); TOOLCELL_SERVER and TOOLCELL_TOOL (the
 *    document's "server" and "tool", for hooks that need not parse JSON);
 *    TOOLCELL_TIMEOUT_MS, the hook's deadline, so a dialog can close itself
 *    first.  Nothing else of the server's environment passes.
 *
 * Process groups, and why the hook has a keeper.  At its deadline the hook
 * is killed with everything it started (a dialog, a `sleep &`).  The usual
 * way, a process group of its own killed with kill(-pgid), does not suit
 * a hook that asks on the terminal: a process group that is not the
 * terminal's foreground group gets SIGTTIN when it reads /dev/tty (or EIO),
 * and making it the foreground group would take the terminal from the
 * user's shell or client.  Nor would a group catch a descendant that calls
 * setsid() or setpgid().  So the hook stays in the server's process group
 * and session, and is tracked by descent instead: tc_hook_start() forks a
 * keeper, a small child of the server that makes itself a child subreaper
 * (PR_SET_CHILD_SUBREAPER), blocks every signal, closes every fd it does
 * not need, and forks and executes the hook.  Whatever the hook leaves
 * behind, however it detaches, becomes the keeper's child when its parent
 * dies.  When the hook exits, or when the server asks (by closing the
 * keeper's control pipe: at the deadline, or because the server itself
 * exited, however it died), the keeper kills its children with SIGKILL,
 * reaps them, looks again for the orphans that their deaths handed it
 * (/proc/thread-self/children, or a scan of /proc), and repeats until it
 * has none; it then reports the hook's wait status and exits.  So the
 * terminal hook reads /dev/tty as the server could (it is in the
 * foreground group exactly when the server is), and no descendant of a
 * hook outlives its answer.  Without /proc, leftovers cannot be found:
 * the keeper then waits for them to exit, and at the deadline the call is
 * denied, the keeper killed TC_HOOK_GRACE_MS later, and they may linger.
 * The keeper is a fork of the server: the copy-on-write faults that costs
 * the server are nothing beside a person's answer, and the keeper, not
 * dumpable (as the server), does not show its copy to the hook.
 *
 * A hook's failure to run is reported by the child that would have become
 * it, through the keeper's close-on-exec report pipe: ENOENT, EACCES and
 * ENOEXEC each get their own reason.
 *
 * The caller ignores SIGPIPE (the servers do): writing to a hook that exited
 * early must fail with EPIPE rather than kill the server.
 */
#ifndef TC_HOOK_H
#define TC_HOOK_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "policy/policy.h"	/* TC_HOOK_PATH */

#define TC_HOOK_TIMEOUT_MS	30000	/* the default deadline */
#define TC_HOOK_REASON_MAX	200	/* bytes of the first line kept */
#define TC_HOOK_MAX_OUTPUT	65536	/* all of stdout, before a kill */
#define TC_HOOK_GRACE_MS	2000	/* for the keeper to clean up */
#define TC_HOOK_POLLFDS		3	/* at most, from tc_hook_pollfds() */

enum tc_hook_answer {
	TC_HOOK_ALLOW,		/* exit status 0 */
	TC_HOOK_ALLOW_SESSION,	/* exit status 0, first word "session" */
	TC_HOOK_DENY,		/* any other exit status */
	TC_HOOK_FAILED,		/* no answer (see failure): counts as deny */
};

/* Why a hook gave no answer (TC_HOOK_FAILED). */
enum tc_hook_failure {
	TC_HOOK_FAIL_NONE,
	TC_HOOK_FAIL_START,	/* could not be started (pipe, fork, ...) */
	TC_HOOK_FAIL_NOTFOUND,	/* no such file, or no such interpreter */
	TC_HOOK_FAIL_NOEXEC,	/* not executable, or not a program */
	TC_HOOK_FAIL_TIMEOUT,	/* killed at the deadline */
	TC_HOOK_FAIL_CRASHED,	/* died by a signal */
	TC_HOOK_FAIL_OUTPUT,	/* wrote more than TC_HOOK_MAX_OUTPUT bytes */
	TC_HOOK_FAIL_ABANDONED,	/* killed by tc_hook_kill() */
	TC_HOOK_FAIL_CHANGED,	/* its path names another file than its fd */
};

struct tc_hook {
	pid_t		 pid;		/* the keeper; -1 once reaped */
	int		 pidfd;		/* the keeper's; -1 once reaped */
	int		 in_fd;		/* to the hook's stdin; -1 when sent */
	int		 out_fd;	/* from its stdout; -1 at EOF */
	int		 rep_fd;	/* the keeper's reports; read at exit */
	int		 ctl_fd;	/* closing it has the keeper kill all */
	int64_t		 deadline_ms;	/* monotonic; poll no later */
	int		 timeout_ms;
	int		 done;		/* the answer is final */
	enum tc_hook_answer answer;
	enum tc_hook_failure failure;
	int		 status;	/* the hook's wait status */
	int		 exited;	/* status is valid */
	char		 why[256];	/* one line, for model and log */
	char		 reason[TC_HOOK_REASON_MAX + 1]; /* its own words */

	/* Private to hook.c. */
	char		*path;		/* argv[0], for messages */
	int		 by_fd;		/* run from an fd, not argv[0] */
	char		*json;		/* what is left to send */
	size_t		 json_len;
	size_t		 json_off;
	size_t		 out_total;	/* bytes read from stdout */
	size_t		 line_len;	/* bytes of the first line kept */
	int		 line_done;	/* its newline was seen */
	char		 line[TC_HOOK_REASON_MAX];
	int		 killing;	/* the keeper was told to kill all */
	int		 keeper_killed;	/* the keeper itself was killed */
};

/*
 * Keeps copies of the variables a hook may need (the list above), from the
 * environment as it is now.  The server calls it once at start, before it
 * scrubs its own environment; a second call replaces the copies.  Without
 * a call, hooks get PATH and the TOOLCELL_* variables only.
 */
void	tc_hook_env_capture(void);

/*
 * Makes |h| an idle hook: nothing running, every fd -1, done.  Needed only
 * for a struct that may be released without having been started.
 */
void	tc_hook_init(struct tc_hook *h);

/*
 * Starts the hook |argv| (NULL-terminated; argv[0] an absolute path) with
 * the |len| bytes of |json| (copied) on its stdin and a deadline of
 * |timeout_ms| (<= 0: TC_HOOK_TIMEOUT_MS) from now.  Returns 0 with the
 * hook running: a program that cannot be executed is reported later, as
 * an answer.  Returns TC_EINVAL (a relative argv[0], a document that is
 * not an object naming server and tool), TC_ENOMEM or TC_ESYS with |d|
 * set; |h| is then done, with answer TC_HOOK_FAILED, failure
 * TC_HOOK_FAIL_START and why a copy of d->msg, and nothing is left
 * running.  Either way, the caller releases |h| with tc_hook_release().
 * Does not take ownership of |argv| or |json|.
 */
int	tc_hook_start(struct tc_hook *h, char *const argv[], const char *json,
	    size_t len, int timeout_ms, struct tc_diag *d);

/*
 * The same, but runs the program open as |fd| (O_PATH will do; not one of
 * stdio), with execveat(2)'s AT_EMPTY_PATH, rather than whatever is at
 * argv[0]'s path by then: the caller opened and checked it earlier, and
 * the program that runs is that one.  Just before, argv[0] must still
 * name that file (same device and inode): a hook removed meanwhile is
 * TC_HOOK_FAIL_NOTFOUND, one replaced (or a directory above it renamed)
 * TC_HOOK_FAIL_CHANGED, and neither runs.  argv[0] is still what the
 * program is given as its argv[0] and what messages name.  With |script|
 * (the file starts with "#!"), the hook keeps |fd| open across exec: its
 * interpreter reads the script from /dev/fd/N, the name the kernel gives
 * it for the script (so the script's $0), which a close-on-exec fd would
 * no longer be.  Does not take ownership of |fd|; -1 is tc_hook_start().
 */
int	tc_hook_start_fd(struct tc_hook *h, int fd, int script,
	    char *const argv[], const char *json, size_t len, int timeout_ms,
	    struct tc_diag *d);

/*
 * Fills up to TC_HOOK_POLLFDS pollfds for the hook (its stdin while the
 * document is being sent, its stdout, the keeper's pidfd) and returns how
 * many; 0 once done.  The caller polls them, with a timeout that does not
 * pass h->deadline_ms, and passes their revents to tc_hook_step().
 */
int	tc_hook_pollfds(const struct tc_hook *h, struct pollfd *pfd);

/*
 * Advances the hook after poll(): sends more of the document, reads its
 * stdout, reaps the keeper once it has exited, and at h->deadline_ms
 * (compared with |now_ms|, from the monotonic clock) has the keeper kill
 * everything; the deadline then moves TC_HOOK_GRACE_MS on, after which
 * the keeper itself is killed.  pfd entries not the hook's are ignored.
 * Returns 1 once done (answer, failure, why, reason and status final, the
 * keeper reaped, every fd closed), else 0.
 */
int	tc_hook_step(struct tc_hook *h, const struct pollfd *pfd, int npfd,
	    int64_t now_ms);

/*
 * Abandons a running hook (a cancelled call, a server shutting down): has
 * the keeper kill everything, waits for it up to TC_HOOK_GRACE_MS, kills
 * it if it has not exited, and reaps it.  Unless it was done already, the
 * hook is done with answer TC_HOOK_FAILED and failure
 * TC_HOOK_FAIL_ABANDONED (or the failure already recorded, such as
 * TC_HOOK_FAIL_TIMEOUT while its tree is being killed).
 * Blocks for as long as the killing takes (milliseconds as a rule).
 */
void	tc_hook_kill(struct tc_hook *h);

/*
 * Kills a running hook as tc_hook_kill() does, then closes and frees what
 * |h| holds.  answer, failure, status, why and reason stay readable.
 */
void	tc_hook_release(struct tc_hook *h);

/* Returns the static name of |a| ("allow", "session", "deny", "failed"). */
const char	*tc_hook_answer_str(enum tc_hook_answer a);

#endif /* TC_HOOK_H */
