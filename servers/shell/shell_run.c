/*
 * shell_run.c: running one program in the confined child (shell.h):
 * pipes, caps, timeout, progress, output frames.
 *
 * The program is started from the handler (which its profile has confined;
 * the program inherits that) as posix_spawn() starts one, without copying
 * the handler's memory (spawn_program()), into a process group of its own, in the
 * directory x->cwd_fd, with x->envp, its standard input from x->stdin_data
 * (written through a pipe by the handler as the program reads it), else
 * from x->stdin_fd (a job's input), else from /dev/null; its stdout and
 * stderr to two pipes; every other fd closed; every signal at its default
 * and none blocked.  That it could not be started (exec failed, or a step
 * before it) comes back on a close-on-exec pipe as the step and the errno,
 * and is told as "cannot run '/usr/bin/x': No such file or directory".
 *
 * What does not depend on the call is opened before it comes, as the
 * ready child waits (shell_exec_ready()): the two output pipes, the status
 * pipe and /dev/null, which a run takes if it has no terminal (a run
 * that cannot have them opens its own).  A pipe keeps the kernel's
 * default size until one read takes FLOOD bytes or more (a pipe that
 * filled holds at least twice that, whatever the writes' sizes: a write
 * that does not fit in the last page takes a page of its own): then it
 * is made PIPE_SIZE (fewer wakeups; a hint the user's pipe quota may
 * refuse) and the kept bytes are read into in place.  A short output pays
 * for neither.
 *
 * The handler then pumps both pipes and stdin with poll(), so that a large
 * input and a large output cannot block each other: each stream is kept in
 * order up to x->max_output bytes, counted past it, and drained to the end
 * so that the program is never blocked by its output.  With x->stream
 * every chunk is also sent as it comes (tc_call_output()), past the cap
 * too: that is what a job's readers see, and then the result keeps none
 * of it (see The result).  After a second, and about once a
 * second, it reports progress: elapsed seconds, and "12.3 s, 48 KiB out".
 *
 * Ends:
 *  - The program exits and both pipes reach end of file: done.
 *  - x->timeout_ms passes: SIGTERM to its group, then SIGKILL to the group
 *    200 ms later if it has not exited by then; what it wrote is kept and
 *    the result says timed_out.
 *  - The program exits while something it started (`sleep 100 &`) holds
 *    its output open: once nothing has come for 100 ms after its exit (or
 *    1 s after it, whichever is first) the group is killed and the pipes
 *    are closed; the result is the program's own exit, and its text says
 *    that processes it left behind held its output and were killed (what
 *    they would have written after that is not in it).  Before it gives
 *    up on them, it reads what the pipes (or the terminal) hold once more
 *    (last_look()): the clock says only that the handler has not looked
 *    for a while, and a handler descheduled right after it noted the
 *    exit would otherwise leave unread the last bytes the program wrote
 *    before it exited.  Where that reaches the end of every stream,
 *    nothing held them, and the result does not say so.  On a terminal
 *    the 100 ms wait begins once the mark (below) has come back; a mark
 *    that has not by the second is given up on before that last look.
 * Whenever the program has exited, its group is killed before the result
 * is made: nothing of a call outlives it here, and what left the group
 * dies when the call ends, with the child's PID namespace or by its
 * keeper (sandbox-int.h, tc_sandbox_keeper()).  Where the
 * confinement lets the handler signal only its own group (no PID
 * namespace and no Landlock signal scope: seccomp.c), a timed-out program
 * cannot be killed from here: the result then says "still running after
 * N ms; timed out ...; it could not be signalled from here", with no exit
 * code and no signal, and the keeper kills it as the call ends; and the
 * text says of processes that held its output after its exit that they
 * are killed as the call ends, not that they were.
 *
 * Its stdin: x->stdin_data when it is set (an empty one is end of file at
 * once), else x->stdin_fd, else /dev/null (an empty pipe where Landlock
 * refuses /dev/null).
 *
 * On a terminal (x->tty, start_command's tty): the program is forked into
 * a session of its own (setsid(), so its group is the terminal's
 * foreground group) with x->tty_slave as its fds 0-2 and its controlling
 * terminal (TIOCSCTTY).  The handler keeps no copy of that slave, so
 * that the master reads EIO once every process holding it is gone; but
 * Linux may answer that EIO before the last bytes the program wrote can
 * be read (they can a few milliseconds later; seen in namespaces on a
 * loaded machine, rarely, with a plain C program as with this one:
 * docs/shell.md).  So the handler holds the slave once more, apart
 * (x->tty_mark, non-blocking): while it does, the master cannot read
 * EIO; once the program has exited, it writes there a mark, a random
 * word, which the terminal queues after everything the program wrote,
 * and reads the master until the mark comes back (mark_scan(): the mark
 * is not output).  Then it closes its slave, and goes on as with pipes:
 * to EIO, or the end of what it waits for output held after the exit.
 * What processes left behind write after the mark is not told apart
 * that way (see Ends).  Two corners: a terminal stopped (^S) takes no
 * mark, which is given up on at the second; and a mark the terminal
 * took only in part (its buffers full at the exit) is split by anything
 * written between its parts (a process left behind), and then comes out
 * as output, a second later.  The master is
 * read as stdout (stderr stays empty: the terminal joined them) and
 * written with x->stdin_data, then with what x->stdin_fd brings, then,
 * once that ends, the terminal's end-of-file character (VEOF).  The ends
 * and the cut above are the same; the result adds "tty": true, and its
 * text says that stdout holds both streams and the echoed input.
 *
 * The result.  Its text: a summary ("exit 0 in 12 ms", "killed by signal
 * 15 (SIGTERM) in 5003 ms; timed out after 5000 ms"), then each stream
 * under a label of its own ("--- stdout: 3 bytes ---", "--- stderr: 9000
 * bytes, the first 4096 kept ---").  Its structuredContent, an object
 * with these members, always present but for the two base64 ones:
 *
 *	exit_code	integer 0-255, the program's exit status; null when
 *			it did not exit by itself (killed by a signal, or
 *			left running: see above)
 *	signal		string, the name of the signal that killed it
 *			("SIGKILL", "SIGTERM", "SIGRTMIN+3"); null when it
 *			exited by itself or is left running
 *	stdout		string, the kept bytes of standard output as UTF-8
 *			text: each ill-formed sequence and each NUL byte
 *			replaced with U+FFFD; when cut, cut after a whole
 *			character (so up to 3 bytes fewer than kept); with
 *			x->binary and over TEXT_VIEW bytes, its view (the
 *			text's), since stdout_base64 has every byte
 *	stderr		string, the same for standard error
 *	stdout_bytes	integer, every byte the program wrote on stdout,
 *			kept or not
 *	stderr_bytes	integer, the same for stderr
 *	stdout_truncated boolean, true when stdout (and stdout_base64) holds
 *			fewer bytes than stdout_bytes: past max_output,
 *			past what the output limit leaves room for (see
 *			Sizes), or out of memory (the text says so)
 *	stderr_truncated boolean, the same for stderr
 *	duration_ms	integer, milliseconds from its start to the end of
 *			the run: its exit and the end of its output (or
 *			of the grace for output held after it, or the
 *			moment it was given up on)
 *	timed_out	boolean, x->timeout_ms passed and it was signalled
 *	note		string, only when there is one: what the summary
 *			says besides (its exit status unknown; it could not
 *			be signalled; processes it left held its output and
 *			were killed; out of memory; on a terminal, that
 *			stdout holds both streams; for a job, that its
 *			output is the job's), for hosts that pass their
 *			model the structured half alone
 *	stdout_base64	string (only with x->binary): the kept bytes of
 *			stdout exactly, base64 (RFC 4648, padded)
 *	stderr_base64	string (only with x->binary): the same for stderr
 *
 * A job's result (x->stream, every chunk sent as it came) keeps none of
 * its output: stdout and stderr are empty, truncated when the program
 * wrote anything, with the byte counts, and the text says the output is
 * the job's.  Its readers read the output by offset, and every read after
 * the end carries this result: with the output in it too, hosts that pass
 * their model the structured half got it again with each page (Claude
 * Code sets such a read aside in a file, Codex cuts it: docs/hosts.md).
 *
 * The members come in the order of MEMBERS: how it ended, the note and
 * the sizes first, then stderr, stdout and the base64 strings.  Hosts
 * that pass their model the structured half and cut a long one to its
 * head and tail (Codex CLI: docs/hosts.md) so keep what says how it ended,
 * the start of stderr (the first error) and the end of stdout.
 *
 * The text shows a stream of at most TEXT_VIEW (64 KiB) bytes whole, and a
 * longer one as a view: its first 16 KiB, a line saying how much is left
 * out and where it is, its last 48 KiB.  Hosts pass their models either
 * the text or the structured content; the structured string has every
 * kept byte, so a long output is in the result once, not twice.
 *
 * Sizes.  The pump keeps at most x->max_output bytes per stream, never
 * more.  The result must also fit the call's output limit (the policy's
 * `limit output`, at most TC_RESULT_TEXT_MAX), or the server refuses it
 * whole; while that limit is the default, also SHELL_RESULT_MAX (9 MiB),
 * since the official client drops the connection on a message over
 * 10 MiB.  A stream the text shows whole is in the result twice (each
 * escaped as JSON: up to 6 bytes for a control character, 3 for a
 * replaced byte), a longer one once and its view, and with x->binary its
 * base64 besides (and then its string is the view).  So the exact
 * serialized size of each stream is counted, character by character (as
 * the output comes, off the path of the answer: count_some()), and when
 * the two do not fit beside RESULT_OVERHEAD bytes of summary, labels and
 * members, each stream is cut further, on a character boundary: the
 * smaller keeps all it can of half the room, the larger the rest.  Such a
 * stream says truncated, with its byte count still exact.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/close_range.h>
#include <nettle/base64.h>

#include "shell.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/json.h"
#include "base/text.h"
#include "policy/policy.h"
#include "sandbox/stream.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD	0x00001000
#endif

#define CHUNK		(64u << 10)	/* one read; one output frame */
#define CHUNKS_PER_TURN	16		/* reads of one stream per wakeup */
#define PIPE_SIZE	(1 << 20)	/* fewer wakeups for a flood */
#define FLOOD		(CHUNK / 4)	/* one read this large: a flood */
#define TERM_GRACE_MS	200		/* SIGTERM, then SIGKILL */
#define HELD_IDLE_MS	100		/* output held after the exit */
#define HELD_MAX_MS	1000
/* last_look(): bytes read of a stream at most, past any a kernel buffers
 * for a pipe (PIPE_SIZE) or a terminal (its line discipline and the
 * flip buffers behind it, 640 KiB in Linux). */
#define LAST_LOOK_MAX	(2u << 20)
/* A terminal's mark: its first byte, then MARK_LEN - 1 random ones from
 * MARK_CHARS, none of which is the first, so that a false start of the
 * mark never hides a true one inside it.  Bytes a terminal's output
 * processing passes as they are, whatever the program set (OLCUC turns
 * only lowercase letters). */
#define MARK_LEN	16
#define MARK_FIRST	'#'
#define MARK_CHARS	"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#define TICK_MS		50		/* without a pidfd: look for the exit */
#define PROGRESS_MS	1000
#define RESULT_OVERHEAD	1024		/* the result but for the streams */
/* A stream's text view: a stream of at most this many bytes is shown whole
 * in the text, a longer one by its head and tail. */
#define TEXT_VIEW	(64u << 10)
#define TEXT_HEAD	(16u << 10)
/* A result's size when the policy's output limit is its default: what the
 * official client takes, with room for the envelope. */
#define SHELL_RESULT_MAX	((size_t)9 << 20)

/* The steps of the program's start, as its status pipe reports them. */
enum start_step {
	STEP_GROUP = 1,
	STEP_CWD,
	STEP_FDS,
	STEP_TTY,
	STEP_EXEC,
};

struct start_error {
	int	step;
	int	err;
};

struct stream {
	int			 fd;	/* read end; -1 at end of file */
	int			 flood;	/* a read took FLOOD bytes: the pipe
					   is PIPE_SIZE now, and reads go in
					   place */
	enum tc_stream		 which;
	const char		*name;
	struct tc_buf		 kept;	/* at most x->max_output bytes */
	unsigned long long	 total;
	int			 lost;	/* memory ran out: kept is short */
	size_t			 json;	/* kept's cost as one JSON string's
					   characters, once counted */
	int			 counted;
	int			 clean;	/* counted: well-formed, no NUL */
	/* Counted as it came (count_some()): the first |count_at| kept
	 * bytes cost |json|, and |ill| if a part of them is not UTF-8. */
	size_t			 count_at;
	int			 ill;
};

enum kill_stage {
	KILL_NONE,
	KILL_TERM,
	KILL_KILL,
};

struct run {
	const struct tc_call	*call;
	const struct shell_exec	*x;
	sigset_t		 wake;		/* the pump's mask in ppoll() */
	struct stream		 out[2];
	int			 in_fd;		/* stdin's write end, or -1 */
	size_t			 in_off;
	/* On a terminal: in_fd is the master's (a copy), written with
	 * x->stdin_data, then with what comes from src_fd (the job's
	 * input) through ibuf, then with the end-of-file character. */
	int			 tty;
	int			 slave;		/* until the program has it */
	/* On a terminal, the handler's own slave until the mark it wrote
	 * there after the program's exit has come back from the master:
	 * |mark_len| bytes of |mark_text|, |mark_sent| of them written so
	 * far; |mark_seen| of them read and held back, which the next bytes
	 * tell to be the mark or output. */
	int			 mark;
	char			 mark_text[MARK_LEN];
	size_t			 mark_len, mark_sent, mark_seen;
	int			 src_fd;	/* -1: read to its end */
	char			 ibuf[4096];
	size_t			 ilen, ioff;
	int			 eof_queued;
	pid_t			 pid;
	int			 pidfd;		/* -1: tick and look */
	int			 exited;
	int			 status;
	int			 status_lost;	/* exited, status unknown */
	enum kill_stage		 stage;
	int			 timed_out;
	int			 held;		/* output held after the exit */
	int			 unkillable;	/* left running: not ours to
						   signal here */
	int			 group_left;	/* what it left could not be
						   signalled either */
	int			 streaming;
	int			 progressing;
	int64_t			 start, exit_at, last_data, term_at;
	int64_t			 next_progress;
	int64_t			 end;
};

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* --- The program's side, between fork and exec --- */

/* The signals the handler ignored before the call (shell_exec_ready()),
 * which the program gets back at their default. */
static sigset_t	ignored;
static int	ignored_known;

/* What a run without a terminal opens, opened before the call
 * (shell_exec_ready()): its stdout and stderr pipes (their read ends
 * nonblocking), its status pipe and /dev/null; -1 where they could not
 * be, or once a run has them. */
static int	ahead_out[2][2] = { { -1, -1 }, { -1, -1 } };
static int	ahead_status[2] = { -1, -1 };
static int	ahead_null = -1;

/* Closes what shell_exec_ready() opened and no run took. */
static void
ahead_close(void)
{
	int i, k;

	for (i = 0; i < 2; i++)
		for (k = 0; k < 2; k++)
			close_fd(&ahead_out[i][k]);
	for (k = 0; k < 2; k++)
		close_fd(&ahead_status[k]);
	close_fd(&ahead_null);
}

/* Opens the ahead fds, all or none. */
static void
ahead_open(void)
{
	int i;

	for (i = 0; i < 2; i++)
		if (pipe2(ahead_out[i], O_CLOEXEC) != 0 ||
		    fcntl(ahead_out[i][0], F_SETFL, O_NONBLOCK) != 0)
			goto fail;
	if (pipe2(ahead_status, O_CLOEXEC) != 0)
		goto fail;
	/* Landlock may not grant it: the run then makes an empty pipe. */
	ahead_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return;
fail:
	ahead_close();
}

void
shell_exec_ready(void)
{
	struct sigaction now;
	int sig;

	if (ahead_status[0] < 0)
		ahead_open();

	sigemptyset(&ignored);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP &&
		    sigaction(sig, NULL, &now) == 0 &&
		    now.sa_handler == SIG_IGN)
			sigaddset(&ignored, sig);
	ignored_known = 1;
}

/* What the program's side needs, in the handler's memory (which it
 * shares until exec). */
struct spawn {
	const struct shell_exec	*x;
	const int		*std;
	int			 status;
	int			 maxfd;
};

/*
 * Runs in the program, on its own stack in the handler's memory (clone
 * with CLONE_VM, the handler waiting until exec): only system calls, no
 * allocation, nothing written but its own stack and errno.  Never
 * returns.
 */
static int
exec_program(void *arg)
{
	static char *const no_env[] = { NULL };
	const struct spawn *sp = arg;
	const struct shell_exec *x = sp->x;
	char *argv0[2] = { (char *)(uintptr_t)x->path, NULL };
	struct start_error e = { STEP_GROUP, 0 };
	struct sigaction dfl;
	sigset_t none;
	int fd[3], i;

	/* On a terminal, a session of its own, which the terminal's can
	 * be: its group is the terminal's foreground group. */
	if (x->tty ? setsid() < 0 : setpgid(0, 0) != 0)
		goto fail;
	/* Signals: those the handler ignores, which would stay ignored
	 * across exec: SIGPIPE (shell_exec_run()) and any it found
	 * ignored before (shell_exec_ready(), usually none: a child's
	 * confinement leaves none), one system call each rather than one
	 * per signal; and SIGCHLD, whose handler (the handler's, which
	 * exec would reset) must not run here, on the handler's memory.
	 * Then none blocked (the handler blocked all around the clone). */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 1; i < NSIG; i++)
		if (i == SIGPIPE || i == SIGCHLD ||
		    sigismember(&ignored, i) == 1)
			(void)sigaction(i, &dfl, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	e.step = STEP_CWD;
	if (x->cwd_fd >= 0 && fchdir(x->cwd_fd) != 0)
		goto fail;
	e.step = STEP_FDS;
	/* Each source out of 0-2 first, so that placing one cannot close
	 * another's source (the handler may have none of 0-2 open); one
	 * above them already is (the usual case: the handler's 0-2 are
	 * taken, and its pipes come after). */
	for (i = 0; i < 3; i++)
		if ((fd[i] = sp->std[i]) < 3 &&
		    (fd[i] = fcntl(sp->std[i], F_DUPFD_CLOEXEC, 3)) < 0)
			goto fail;
	for (i = 0; i < 3; i++)
		if (dup2(fd[i], i) < 0)
			goto fail;
	e.step = STEP_TTY;
	if (x->tty && ioctl(STDIN_FILENO, TIOCSCTTY, 0) != 0)
		goto fail;
	/* Everything else goes at exec: the result pipe and the roots
	 * above all.  Marked rather than closed, so that the status pipe
	 * stays until exec; one fcntl a fd where close_range() is refused
	 * or missing. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
		for (i = 3; i < sp->maxfd; i++)
			(void)fcntl(i, F_SETFD, FD_CLOEXEC);
	e.step = STEP_EXEC;
	execve(x->path, x->argv != NULL ? x->argv : argv0,
	    x->envp != NULL ? x->envp : no_env);
fail:
	e.err = errno;
	(void)!write(sp->status, &e, sizeof(e));
	_exit(127);
}

/*
 * Starts the program as the C library's posix_spawn() does: a clone that
 * shares the handler's memory (CLONE_VM) and holds the handler until the
 * program has run exec or exited (CLONE_VFORK), so that nothing of the
 * handler's address space is copied (a fork copies its page tables and
 * then faults on every page either side writes), with a pidfd where the
 * kernel gives one (CLONE_PIDFD).  Every signal is blocked around it: no
 * handler may run on the shared memory before exec.  Returns its pid
 * (with *|pidfd| set, or -1), or -1 with errno set.
 */
static pid_t
spawn_program(struct spawn *sp, int *pidfd)
{
	static char stack[32 << 10] __attribute__((aligned(16)));
	sigset_t all, old;
	pid_t pid;
	int fd = -1, err;

	*pidfd = -1;
	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, &old) != 0)
		return -1;
	pid = clone(exec_program, stack + sizeof(stack), CLONE_VM |
	    CLONE_VFORK | CLONE_PIDFD | SIGCHLD, sp, &fd);
	if (pid < 0)
		/* A kernel without CLONE_PIDFD, or a profile that refuses
		 * it: a tick looks for its exit. */
		pid = clone(exec_program, stack + sizeof(stack), CLONE_VM |
		    CLONE_VFORK | SIGCHLD, sp);
	else
		*pidfd = fd;
	err = errno;
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return pid;
}

/* --- The handler's side --- */

/* Signals the program's group.  Returns 0, or -1 with errno set. */
static int
signal_group(struct run *r, int sig)
{
	if (kill(-r->pid, sig) == 0 || errno == ESRCH)
		return 0;
	return -1;
}

/* The program has ended (its status in r->status, or lost). */
static void
ended(struct run *r)
{
	r->exited = 1;
	r->exit_at = tc_now_ms();
	close_fd(&r->pidfd);
	/* A program that did not read all it was given: the rest goes
	 * nowhere. */
	close_fd(&r->in_fd);
	close_fd(&r->src_fd);
}

/* Reaps the program alone (the pump reaps with reap_orphans(); this
 * waits for it, |options| 0, once it has been killed). */
static void
reap(struct run *r, int options)
{
	pid_t p;

	if (r->exited)
		return;
	do
		p = waitpid(r->pid, &r->status, options);
	while (p < 0 && errno == EINTR);
	/* ECHILD: reaped by no one else while SIGCHLD is handled, not
	 * ignored (shell_exec_run() sees to that), and reap_orphans()
	 * records it; never loop on it. */
	if (p < 0 && errno == ECHILD)
		r->status_lost = 1;
	if (p == r->pid || r->status_lost)
		ended(r);
}

/*
 * Reaps every child of the handler that has ended: the program, and
 * what it left.  The handler is pid 1 of the call's PID namespace, so a
 * process whose parent ends becomes its child, and stays a zombie, still
 * counted against the call's process limit (pids.max, RLIMIT_NPROC),
 * until it is reaped: a long run that leaves many short-lived processes
 * behind (a script's `cmd &` in a subshell) would run out of processes
 * with hardly any alive.  SIGCHLD wakes the pump for it (on_child()):
 * it is blocked but in the pump's ppoll(), which unblocks it only while
 * it waits, so that one that comes just after the pump's last look still
 * ends the wait.
 */
static void
reap_orphans(struct run *r)
{
	int st;
	pid_t p;

	for (;;) {
		p = waitpid(-1, &st, WNOHANG);
		if (p < 0 && errno == EINTR)
			continue;
		/* ECHILD, the program not seen: reaped by no one else while
		 * SIGCHLD is handled, not ignored; never wait for it. */
		if (p < 0 && errno == ECHILD && !r->exited) {
			r->status_lost = 1;
			ended(r);
		}
		if (p <= 0)
			return;
		if (p == r->pid && !r->exited) {
			r->status = st;
			ended(r);
		}
	}
}

/* SIGCHLD during a run, delivered only in the pump's ppoll(): nothing
 * but the wakeup (ppoll() ends with EINTR, and the pump reaps). */
static void
on_child(int sig)
{
	(void)sig;
}

static void	count_some(const struct run *, struct stream *);

/*
 * Takes |n| bytes the program wrote on |s|, at |p|: kept up to the cap
 * (already in place at the end of the kept bytes when |in_place|), and
 * sent on as they come when streaming.
 */
static void
take(struct run *r, struct stream *s, const char *p, size_t n, int in_place)
{
	size_t room = s->kept.max - s->kept.len;

	s->total += n;
	r->last_data = tc_now_ms();
	if (in_place) {
		s->kept.len += n;
		s->kept.data[s->kept.len] = '\0';
	} else if (room > 0 && !s->lost &&
	    tc_buf_append(&s->kept, p, n < room ? n : room) != 0)
		s->lost = 1;
	/* Past the cap too: the server keeps the last of it, for a job's
	 * readers.  It refuses only when there is no channel (not in a
	 * child) or the server is gone: then no more. */
	if (r->streaming && tc_call_output(r->call, s->which, p, n) != 0)
		r->streaming = 0;
}

/* Takes |n| bytes of output at |p| (not in place). */
static void
pass(struct run *r, struct stream *s, const char *p, size_t n)
{
	if (n == 0)
		return;
	take(r, s, p, n, 0);
	count_some(r, s);
}

/* Returns 1 while a mark written is awaited: written, or being, and
 * the handler's slave still held. */
static int
marking(const struct run *r)
{
	return r->mark >= 0 && r->mark_len > 0;
}

/* The mark has come back, or will not: the handler's slave goes, and
 * the master reads EIO once the processes left behind have closed
 * theirs. */
static void
mark_end(struct run *r)
{
	close_fd(&r->mark);
}

/* Gives up waiting for the mark: what was held back as its start was
 * output. */
static void
mark_give_up(struct run *r)
{
	if (!marking(r))
		return;
	pass(r, &r->out[0], r->mark_text, r->mark_seen);
	r->mark_seen = 0;
	mark_end(r);
}

/* Writes what the terminal takes of the mark. */
static void
mark_feed(struct run *r)
{
	ssize_t n;

	while (marking(r) && r->mark_sent < r->mark_len) {
		n = write(r->mark, r->mark_text + r->mark_sent,
		    r->mark_len - r->mark_sent);
		if (n > 0)
			r->mark_sent += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else if (n < 0 && errno == EAGAIN)
			return;		/* once the master is read */
		else if (r->mark_sent > 0) {
			/* What went is the mark to wait for, perhaps read
			 * already. */
			r->mark_len = r->mark_sent;
			if (r->mark_seen == r->mark_len) {
				r->mark_seen = 0;
				mark_end(r);
			}
		} else {
			mark_end(r);
			return;
		}
	}
}

/*
 * The program has exited: everything it wrote is queued in the terminal
 * by now, and a mark written now comes after it.  One mark a run: once
 * started, it is not started again, back or given up on.  Without
 * randomness, none: the master's EIO ends the output, as it did before
 * marks.
 */
static void
mark_start(struct run *r)
{
	static const char chars[] = MARK_CHARS;
	unsigned char rnd[MARK_LEN];
	size_t i;

	if (r->mark < 0 || r->mark_len > 0)
		return;
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(rnd)) {
		close_fd(&r->mark);
		return;
	}
	r->mark_text[0] = MARK_FIRST;
	for (i = 1; i < MARK_LEN; i++)
		r->mark_text[i] = chars[rnd[i] % (sizeof(chars) - 1)];
	r->mark_len = MARK_LEN;
	mark_feed(r);
}

/*
 * Passes on |n| bytes the terminal gave while the mark is awaited: all
 * but the mark, which ends the wait.  Bytes that may be its start are
 * held back (as r->mark_seen) until the next ones tell; since its first
 * byte is nowhere else in it, a false start can only restart at the byte
 * that ended it.  What follows the mark (written by processes left
 * behind) is output as usual.
 */
static void
mark_scan(struct run *r, struct stream *s, const char *p, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i < n; i++) {
		if (r->mark_seen < r->mark_len &&
		    p[i] == r->mark_text[r->mark_seen]) {
			if (r->mark_seen == 0)
				pass(r, s, p + from, i - from);
			from = i + 1;
			if (++r->mark_seen == r->mark_len) {
				r->mark_seen = 0;
				mark_end(r);
				pass(r, s, p + from, n - from);
				return;
			}
			continue;
		}
		if (r->mark_seen > 0) {
			pass(r, s, r->mark_text, r->mark_seen);
			r->mark_seen = 0;
			if (p[i] == r->mark_text[0]) {
				r->mark_seen = 1;
				from = i + 1;
			}
		}
	}
	pass(r, s, p + from, n - from);
}

/*
 * Reads what |s|'s pipe holds, a few reads a turn.  Once something is
 * kept, each read goes straight to the end of the kept bytes, as much as
 * the pipe holds and the cap leaves room for: a long output is not
 * copied again, and takes a read per pipe's worth rather than per CHUNK.
 * Returns the reads it made that were not told to wait: CHUNKS_PER_TURN
 * when it stopped for its turn, with more to read perhaps.
 */
static int
drain(struct run *r, struct stream *s)
{
	static char buf[CHUNK];
	size_t room, want;
	ssize_t n;
	char *to;
	int i;

	for (i = 0; i < CHUNKS_PER_TURN && s->fd >= 0; i++) {
		to = buf;
		want = sizeof(buf);
		room = s->kept.max - s->kept.len;
		if (s->flood && s->kept.len > 0 && room > 0 && !s->lost &&
		    !marking(r)) {
			want = room < PIPE_SIZE ? room : PIPE_SIZE;
			if (tc_buf_reserve(&s->kept, want) == 0)
				to = s->kept.data + s->kept.len;
			else {
				s->lost = 1;
				want = sizeof(buf);
			}
		}
		n = read(s->fd, to, want);
		if (n > 0 && !s->flood && (size_t)n >= FLOOD) {
			/* A flood: fewer wakeups through a larger pipe (a
			 * hint: the user's pipe quota may refuse it), and
			 * the reads go straight to the kept bytes. */
			s->flood = 1;
			if (!r->tty)
				(void)fcntl(s->fd, F_SETPIPE_SZ, PIPE_SIZE);
		}
		if (n > 0 && marking(r))
			mark_scan(r, s, to, (size_t)n);
		else if (n > 0) {
			take(r, s, to, (size_t)n, to != buf);
			count_some(r, s);
		} else if (n < 0 && errno == EINTR)
			continue;
		else if (n < 0 && errno == EAGAIN)
			return i;
		else {
			/* The end (a hangup, while the mark is held): what
			 * was held back as the mark's start was output. */
			mark_give_up(r);
			close_fd(&s->fd);
		}
	}
	return i;
}

static void
feed(struct run *r)
{
	const struct shell_exec *x = r->x;
	size_t left = x->stdin_len - r->in_off;
	ssize_t n;

	while (r->in_fd >= 0 && left > 0) {
		n = write(r->in_fd, x->stdin_data + r->in_off,
		    left < CHUNK ? left : CHUNK);
		if (n > 0) {
			r->in_off += (size_t)n;
			left -= (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			return;
		} else {
			/* EPIPE: it stopped reading. */
			break;
		}
	}
	close_fd(&r->in_fd);
}

/* Returns 1 if there are bytes to write to the terminal now, else 0. */
static int
tty_pending(const struct run *r)
{
	return r->in_off < r->x->stdin_len || r->ioff < r->ilen ||
	    (r->src_fd < 0 && !r->eof_queued);
}

/*
 * Writes to the terminal what there is to write: the call's stdin text,
 * then what came from the job's input, then, once that has ended, the
 * terminal's end-of-file character (^D unless the program changed it),
 * which a program reading lines takes for the end of its input.
 */
static void
feed_tty(struct run *r)
{
	const struct shell_exec *x = r->x;
	struct termios t;
	const char *p;
	size_t len;
	ssize_t n;

	while (r->in_fd >= 0) {
		if (r->in_off < x->stdin_len) {
			p = x->stdin_data + r->in_off;
			len = x->stdin_len - r->in_off;
		} else if (r->ioff < r->ilen) {
			p = r->ibuf + r->ioff;
			len = r->ilen - r->ioff;
		} else if (r->src_fd >= 0) {
			return;		/* until more comes */
		} else if (!r->eof_queued) {
			r->ibuf[0] = '\004';
			if (tcgetattr(r->in_fd, &t) == 0 &&
			    t.c_cc[VEOF] != _POSIX_VDISABLE)
				r->ibuf[0] = (char)t.c_cc[VEOF];
			r->ilen = 1;
			r->ioff = 0;
			r->eof_queued = 1;
			continue;
		} else {
			close_fd(&r->in_fd);
			return;
		}
		n = write(r->in_fd, p, len < CHUNK ? len : CHUNK);
		if (n > 0) {
			if (r->in_off < x->stdin_len)
				r->in_off += (size_t)n;
			else
				r->ioff += (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			return;
		} else {
			/* EIO: the terminal is hung up. */
			close_fd(&r->in_fd);
			close_fd(&r->src_fd);
		}
	}
}

/* Reads what the job's input has for the terminal, once the last of it
 * is written. */
static void
read_src(struct run *r)
{
	ssize_t n;

	if (r->ioff < r->ilen)
		return;
	do
		n = read(r->src_fd, r->ibuf, sizeof(r->ibuf));
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		r->ilen = (size_t)n;
		r->ioff = 0;
	} else if (n == 0 || errno != EAGAIN)
		close_fd(&r->src_fd);
	feed_tty(r);
}

static void
format_size(char *buf, size_t size, unsigned long long n)
{
	if (n < 1024)
		snprintf(buf, size, "%llu B", n);
	else if (n < (1ull << 20))
		snprintf(buf, size, "%llu KiB", n >> 10);
	else if (n < (1ull << 30))
		snprintf(buf, size, "%.1f MiB", (double)n / (1 << 20));
	else
		snprintf(buf, size, "%.1f GiB", (double)n / (1 << 30));
}

static void
progress(struct run *r, int64_t now)
{
	char msg[64], size[24];
	double secs;

	if (!r->progressing || now < r->next_progress)
		return;
	secs = (double)(now - r->start) / 1000;
	format_size(size, sizeof(size), r->out[0].total + r->out[1].total);
	snprintf(msg, sizeof(msg), "%.1f s, %s out", secs, size);
	/* TC_ESYS: the server is gone; no more. */
	if (tc_call_progress(r->call, secs, -1, msg) == TC_ESYS)
		r->progressing = 0;
	r->next_progress = now + PROGRESS_MS;
}

static int64_t
earliest(int64_t a, int64_t b)
{
	return a < 0 || (b >= 0 && b < a) ? b : a;
}

/*
 * Acts on the clock: the timeout, the grace after SIGTERM, output held
 * after the exit.  Returns the next time it must look again (-1: none)
 * or 0 when the run is over.
 */
static int64_t
deadlines(struct run *r, int64_t now)
{
	const struct shell_exec *x = r->x;
	int64_t next = -1, idle, held_end;

	if (!r->exited && x->timeout_ms > 0) {
		if (r->stage == KILL_NONE && now - r->start >= x->timeout_ms) {
			r->timed_out = 1;
			r->stage = KILL_TERM;
			r->term_at = now;
			if (signal_group(r, SIGTERM) != 0) {
				r->unkillable = 1;
				return 0;
			}
		}
		if (r->stage == KILL_TERM && now - r->term_at >= TERM_GRACE_MS) {
			r->stage = KILL_KILL;
			if (signal_group(r, SIGKILL) != 0) {
				r->unkillable = 1;
				return 0;
			}
		}
		if (r->stage == KILL_NONE)
			next = r->start + x->timeout_ms;
		else if (r->stage == KILL_TERM)
			next = r->term_at + TERM_GRACE_MS;
	}
	if (r->exited) {
		idle = (r->last_data > r->exit_at ? r->last_data : r->exit_at) +
		    HELD_IDLE_MS;
		/* A terminal's mark is on its way: no idle wait. */
		held_end = marking(r) ? r->exit_at + HELD_MAX_MS :
		    earliest(idle, r->exit_at + HELD_MAX_MS);
		if (now >= held_end) {
			r->held = 1;
			return 0;
		}
		next = earliest(next, held_end);
	}
	if (r->progressing)
		next = earliest(next, r->next_progress);
	if (!r->exited && r->pidfd < 0)
		next = earliest(next, now + TICK_MS);
	return next < 0 ? -1 : (next > now ? next : now + 1);
}

/*
 * Reads what each open stream holds, until it would block or ends, or
 * LAST_LOOK_MAX bytes of it: once the program has exited, every byte it
 * wrote is in its pipe by now, and nothing of it is left once that much
 * more has been read.  (On a terminal, its last bytes may not be
 * readable yet: the mark, read up to first, is what tells; a terminal
 * looked at here without it, given up on or never written, may lose
 * them.)  Returns 1 if every stream reached its end.
 */
static int
last_look(struct run *r)
{
	unsigned long long from;
	struct stream *s;
	int i;

	for (i = 0; i < 2; i++) {
		s = &r->out[i];
		from = s->total;
		while (s->fd >= 0 && s->total - from < LAST_LOOK_MAX &&
		    drain(r, s) == CHUNKS_PER_TURN)
			;
	}
	return r->out[0].fd < 0 && r->out[1].fd < 0;
}

static void
pump(struct run *r)
{
	struct pollfd pfd[6];
	struct timespec ts;
	int64_t now, next;
	int n, i, wait_ms;

	for (;;) {
		/* The program too, once its pidfd said so, or at every turn
		 * without one (TICK_MS). */
		reap_orphans(r);
		if (r->exited)
			mark_start(r);
		if (r->exited && r->out[0].fd < 0 && r->out[1].fd < 0)
			return;
		now = tc_now_ms();
		progress(r, now);
		if ((next = deadlines(r, now)) == 0) {
			/* Held, or so the clock says: one more look first,
			 * without the mark if it has not come back (a
			 * stopped terminal takes none), so that the master
			 * can read its end. */
			mark_give_up(r);
			if (r->held && last_look(r))
				r->held = 0;
			return;
		}
		n = 0;
		for (i = 0; i < 2; i++)
			if (r->out[i].fd >= 0)
				pfd[n++] = (struct pollfd){ r->out[i].fd,
				    POLLIN, 0 };
		if (r->in_fd >= 0 && (!r->tty || tty_pending(r)))
			pfd[n++] = (struct pollfd){ r->in_fd, POLLOUT, 0 };
		if (r->src_fd >= 0 && !(r->ioff < r->ilen))
			pfd[n++] = (struct pollfd){ r->src_fd, POLLIN, 0 };
		if (r->pidfd >= 0)
			pfd[n++] = (struct pollfd){ r->pidfd, POLLIN, 0 };
		if (marking(r) && r->mark_sent < r->mark_len)
			pfd[n++] = (struct pollfd){ r->mark, POLLOUT, 0 };
		wait_ms = next < 0 ? -1 : (next - now > INT32_MAX ? INT32_MAX :
		    (int)(next - now));
		ts.tv_sec = wait_ms / 1000;
		ts.tv_nsec = (long)(wait_ms % 1000) * 1000000;
		if (ppoll(pfd, (nfds_t)n, wait_ms < 0 ? NULL : &ts,
		    &r->wake) < 0) {
			if (errno == EINTR)
				continue;
			/* No memory to wait on six fds: stop it, and take
			 * what it wrote. */
			if (signal_group(r, SIGKILL) != 0)
				r->unkillable = 1;
			else
				reap(r, 0);
			(void)last_look(r);
			return;
		}
		for (i = 0; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == r->out[0].fd)
				drain(r, &r->out[0]);
			else if (pfd[i].fd == r->out[1].fd)
				drain(r, &r->out[1]);
			else if (pfd[i].fd == r->in_fd && r->tty)
				feed_tty(r);
			else if (pfd[i].fd == r->in_fd)
				feed(r);
			else if (pfd[i].fd == r->src_fd)
				read_src(r);
			else if (pfd[i].fd == r->mark)
				mark_feed(r);
			/* The pidfd: reaped at the next turn's start. */
		}
	}
}

/* --- Starting it --- */

/*
 * On a terminal: the master, twice (read as stdout, written as the
 * input), and the job's input, each a copy of the runner's own.  The
 * copies share one open file, made non-blocking here for both: the
 * pump's reads (drain(), last_look()) must never wait on a terminal that
 * something left behind holds.  Returns 0 or -1.
 */
static int
open_terminal(struct run *r)
{
	const struct shell_exec *x = r->x;
	int fl;

	if ((r->out[0].fd = fcntl(x->tty_master, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (r->in_fd = fcntl(x->tty_master, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (fl = fcntl(r->in_fd, F_GETFL)) < 0 ||
	    fcntl(r->in_fd, F_SETFL, fl | O_NONBLOCK) != 0)
		return -1;
	if (x->stdin_fd >= 0 &&
	    (r->src_fd = fcntl(x->stdin_fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -1;
	return 0;
}

/* Opens the pipes and the program's stdin.  Returns 0 or -1. */
static int
open_pipes(struct run *r, int std[3])
{
	const struct shell_exec *x = r->x;
	int p[2], i;

	if (r->tty) {
		for (i = 0; i < 3; i++)
			std[i] = -1;
		return open_terminal(r);
	}

	for (i = 0; i < 2; i++) {
		if (ahead_out[i][0] >= 0) {
			r->out[i].fd = ahead_out[i][0];
			std[i + 1] = ahead_out[i][1];
			ahead_out[i][0] = ahead_out[i][1] = -1;
			continue;
		}
		if (pipe2(p, O_CLOEXEC) != 0)
			return -1;
		r->out[i].fd = p[0];
		std[i + 1] = p[1];
		if (fcntl(p[0], F_SETFL, O_NONBLOCK) != 0)
			return -1;
	}
	if (x->stdin_data != NULL) {
		if (pipe2(p, O_CLOEXEC) != 0)
			return -1;
		std[0] = p[0];
		r->in_fd = p[1];
		if (fcntl(p[1], F_SETFL, O_NONBLOCK) != 0)
			return -1;
		if (x->stdin_len == 0)
			close_fd(&r->in_fd);
	} else if (x->stdin_fd >= 0) {
		if ((std[0] = fcntl(x->stdin_fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return -1;
	} else if (ahead_null >= 0) {
		std[0] = ahead_null;
		ahead_null = -1;
	} else if ((std[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		/* Landlock may not grant it: an empty pipe reads the same
		 * to most programs. */
		if (pipe2(p, O_CLOEXEC) != 0)
			return -1;
		std[0] = p[0];
		close(p[1]);
	}
	return 0;
}

/* The status pipe: the one opened ahead, else a new one.  Returns 0, or
 * -1 with errno set. */
static int
status_pipe(int st[2])
{
	if (ahead_status[0] < 0)
		return pipe2(st, O_CLOEXEC);
	st[0] = ahead_status[0];
	st[1] = ahead_status[1];
	ahead_status[0] = ahead_status[1] = -1;
	return 0;
}

/* Makes |res| the error of a start that failed at |e|. */
static void
start_failed(struct tc_result *res, const char *path,
    const struct start_error *e)
{
	const char *why = strerror(e->err);

	switch (e->step) {
	case STEP_GROUP:
		tc_result_error(res, "cannot start '%s' in a process group of "
		    "its own: %s", path, why);
		break;
	case STEP_TTY:
		tc_result_error(res, "cannot give '%s' its terminal: %s", path,
		    why);
		break;
	case STEP_CWD:
		tc_result_error(res, "cannot run '%s' in its working "
		    "directory: %s", path, why);
		break;
	case STEP_FDS:
		tc_result_error(res, "cannot give '%s' its standard input and "
		    "output: %s", path, why);
		break;
	default:
		tc_result_error(res, "cannot run '%s': %s", path, why);
		break;
	}
}

/*
 * Starts the program.  Returns 0, or a TC_E* code with |res| made the
 * error.
 */
static int
start(struct run *r, struct tc_result *res)
{
	struct start_error e;
	struct spawn sp;
	struct rlimit rl;
	int std[3] = { -1, -1, -1 }, st[2] = { -1, -1 }, maxfd = 1024;
	int tty[3] = { r->slave, r->slave, r->slave };
	int err, rc = 0, i;
	ssize_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		maxfd = rl.rlim_cur > INT32_MAX ? INT32_MAX : (int)rl.rlim_cur;
	if (status_pipe(st) != 0 || open_pipes(r, std) != 0) {
		err = errno;
		tc_result_error(res, "cannot make the pipes to run '%s': %s",
		    r->x->path, strerror(err));
		rc = TC_ESYS;
		goto out;
	}
	r->start = tc_now_ms();
	sp.x = r->x;
	sp.std = r->tty ? tty : std;
	sp.status = st[1];
	sp.maxfd = maxfd;
	/* Back here once it has run exec or given up: its group (or, on a
	 * terminal, its session) exists. */
	if ((r->pid = spawn_program(&sp, &r->pidfd)) < 0) {
		err = errno;
		tc_result_error(res, "cannot start '%s': %s", r->x->path,
		    strerror(err));
		rc = TC_ESYS;
		goto out;
	}
	/* The terminal is the program's: no copy of its slave stays here,
	 * only the mark, apart, until the program's output has been read to
	 * its end (mark_start()). */
	close_fd(&r->slave);
	close_fd(&st[1]);
	do
		n = read(st[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(e)) {
		reap(r, 0);
		start_failed(res, r->x->path, &e);
		rc = TC_ESYS;
	}
out:
	/* What it did not take (a terminal's run, or one with input). */
	ahead_close();
	for (i = 0; i < 3; i++)
		close_fd(&std[i]);
	close_fd(&r->slave);
	close_fd(&st[0]);
	close_fd(&st[1]);
	return rc;
}

/* --- The result --- */

/* The JSON bytes character |cp| (|len| bytes of UTF-8) costs in a string
 * (json.c's escapes). */
static size_t
char_cost(uint32_t cp, size_t len)
{
	return cp < 0x20 || cp == '"' || cp == '\\' ?
	    tc_json_escape_len((unsigned char)cp) : len;
}

static size_t
b64_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

/*
 * Returns the length of the run at |p| (at most |n| bytes) that a JSON
 * string holds as it is, each byte costing one: well-formed UTF-8 without
 * control bytes, quotes or backslashes.  tc_json_plain_end() steps over
 * plain ASCII sixteen bytes at a time, as most output is; on a byte from
 * 0x80 up, a character is decoded and the scan goes on after it (a
 * line's end is not looked at again and again).  Counting 5 MiB of
 * 64-byte lines took 2.7 ms stepping a byte at a time past each word that
 * held a newline, 1.7-1.9 ms eight at a time, 1.2 sixteen.
 */
static size_t
plain_run(const char *p, size_t n)
{
	const char *q = p, *e = p + n;
	size_t len, bad;
	uint32_t cp;

	while ((q = tc_json_plain_end(q, e, 1)) < e &&
	    (unsigned char)*q >= 0x80 &&
	    (len = tc_utf8_decode(q, (size_t)(e - q), &cp, &bad)) != 0)
		q += len;
	return (size_t)(q - p);
}

/* The cost of |k| bytes of a plain run that starts at byte |at|. */
static size_t
run_cost(size_t at, size_t k, int copies, int binary)
{
	return (size_t)copies * k + (binary ? b64_len(at + k) - b64_len(at) :
	    0);
}

/*
 * Returns the longest prefix of the |n| bytes at |p| that ends on a
 * character and whose cost in the result, |copies| times as JSON text and
 * with |binary| once as base64, is at most |room|; its cost in *|cost|.
 * A plain run (plain_run()) is taken whole, or cut where the room ends
 * (its cost grows with its length), without looking at each character:
 * a long output costs a few scans, not a decode a byte.
 */
static size_t
fit(const char *p, size_t n, size_t room, int copies, int binary,
    size_t *cost, int *clean)
{
	size_t i = 0, c = 0, len, bad, next, run, lo, hi, mid;
	uint32_t cp;
	int ill = 0;

	while (i < n) {
		if ((run = plain_run(p + i, n - i)) > 0) {
			if (run_cost(i, run, copies, binary) <= room - c) {
				c += run_cost(i, run, copies, binary);
				i += run;
				continue;
			}
			/* The most of it that fits: lo fits, hi does not. */
			for (lo = 0, hi = run; hi - lo > 1;) {
				mid = lo + (hi - lo) / 2;
				if (run_cost(i, mid, copies, binary) <= room - c)
					lo = mid;
				else
					hi = mid;
			}
			/* On a character: back off a cut one. */
			while (lo > 0 && ((unsigned char)p[i + lo] & 0xc0) ==
			    0x80)
				lo--;
			c += run_cost(i, lo, copies, binary);
			i += lo;
			break;
		}
		if ((len = tc_utf8_decode(p + i, n - i, &cp, &bad)) != 0)
			next = (size_t)copies * char_cost(cp, len);
		else {
			/* Each ill-formed part (and NUL) is one U+FFFD. */
			len = bad > 0 ? bad : 1;
			next = (size_t)copies * 3;
			ill = 1;
		}
		if (binary)
			next += b64_len(i + len) - b64_len(i);
		if (next > room - c)
			break;
		c += next;
		i += len;
	}
	*cost = c;
	if (clean != NULL)
		*clean = !ill;
	return i;
}

/*
 * Counts the cost of what |s| has kept since the last count, as the
 * output comes (drain()), so that a long output is counted while the
 * program still writes it rather than after it ends: 5 MiB took 1.7 ms
 * to count, on the path of the answer.  It counts up to the last byte
 * that starts a character (one of the last four bytes; else it waits for
 * more): a character's cost does not depend on the bytes after it, and
 * the end of the input stops a sequence as the next character's first
 * byte does (tc_utf8_decode()), so the counts of the parts add up to the
 * count of the whole.  A job's output is not kept: nothing to count.
 */
static void
count_some(const struct run *r, struct stream *s)
{
	const unsigned char *p = (const unsigned char *)s->kept.data;
	size_t end = s->kept.len, cost;
	int clean;

	if (r->streaming || s->counted)
		return;
	while (end > s->count_at && s->kept.len - end < 4 &&
	    (p[end - 1] & 0xc0) == 0x80)
		end--;
	/* p[end - 1] starts a character: count what is before it. */
	if (end <= s->count_at + 1 || (p[end - 1] & 0xc0) == 0x80)
		return;
	end--;
	(void)fit(s->kept.data + s->count_at, end - s->count_at, SIZE_MAX, 1,
	    0, &cost, &clean);
	s->json += cost;
	s->ill |= !clean;
	s->count_at = end;
}

/*
 * Returns what stream |i|'s kept bytes cost whole, |copies| times as JSON
 * text and with x->binary once as base64: the bytes are counted once (one
 * copy's cost), and every question after that is arithmetic.
 */
static size_t
whole_cost(struct run *r, int i, int copies)
{
	struct stream *s = &r->out[i];
	size_t rest;

	if (!s->counted) {
		/* What came after the last count_some(). */
		(void)fit(s->kept.data != NULL ? s->kept.data + s->count_at :
		    "", s->kept.len - s->count_at, SIZE_MAX, 1, 0, &rest,
		    &s->clean);
		s->json += rest;
		s->clean &= !s->ill;
		s->counted = 1;
	}
	return (size_t)copies * s->json + (r->x->binary ?
	    b64_len(s->kept.len) : 0);
}

/*
 * Whether every stream's kept bytes fit |room| whole, |copies| times
 * each as JSON text and once as base64 with x->binary.
 */
static int
fits_whole(struct run *r, size_t room, const int copies[2])
{
	size_t cost[2], most = 0;
	int i;

	for (i = 0; i < 2; i++)
		/* At most 6 bytes a byte, in each copy, and base64. */
		most += 6 * (size_t)copies[i] * r->out[i].kept.len +
		    (r->x->binary ? b64_len(r->out[i].kept.len) : 0);
	if (most <= room)
		return 1;
	for (i = 0; i < 2; i++)
		cost[i] = whole_cost(r, i, copies[i]);
	return cost[0] <= room && cost[1] <= room - cost[0];
}

/*
 * Cuts |keep| (each stream's kept bytes, |cut| if fewer than it wrote) so
 * that the streams, |copies| times each as JSON text and once as base64
 * with x->binary, fit |room|: the smaller keeps all it can of half the
 * room, the larger the rest.
 */
static void
fit_room(struct run *r, size_t room, const int copies[2], size_t keep[2],
    int cut[2])
{
	size_t cost[2], share, k;
	int i, big;

	for (i = 0; i < 2; i++) {
		keep[i] = r->out[i].kept.len;
		cut[i] = r->out[i].total > keep[i];
	}
	if (fits_whole(r, room, copies))
		return;
	for (i = 0; i < 2; i++)
		cost[i] = whole_cost(r, i, copies[i]);
	big = cost[1] > cost[0];
	share = room / 2;
	if (cost[!big] > share) {
		keep[!big] = fit(r->out[!big].kept.data, keep[!big], share,
		    copies[!big], r->x->binary, &k, NULL);
		cut[!big] = 1;
		cost[!big] = k;
	}
	keep[big] = fit(r->out[big].kept.data, keep[big], room - cost[!big],
	    copies[big], r->x->binary, &k, NULL);
	cut[big] = 1;
}

/*
 * Cuts the streams' kept bytes so that the result fits |budget|.  A stream
 * the text shows whole is in the result twice (the text and the structured
 * string); one over TEXT_VIEW bytes is there once whole (structured) and
 * once as a view of at most TEXT_VIEW bytes (make_view()), which keeps a
 * long output in one copy where the budget allows it.  Of the two ways,
 * the one that keeps more; the first when they keep as much.
 */
static void
fit_budget(struct run *r, size_t budget, size_t keep[2], int cut[2])
{
	size_t room = budget > RESULT_OVERHEAD ? budget - RESULT_OVERHEAD : 0;
	size_t views = 0, keep1[2];
	int twice[2] = { 2, 2 }, once[2], cut1[2], i, whole;

	/* Every stream whole in both: always fits what it keeps. */
	if (fits_whole(r, room, twice)) {
		fit_room(r, room, twice, keep, cut);
		return;
	}
	for (i = 0; i < 2; i++) {
		if (r->out[i].kept.len <= TEXT_VIEW) {
			once[i] = 2;
			continue;
		}
		/* The text's view; with base64, the string's too. */
		once[i] = r->x->binary ? 0 : 1;
		views += (r->x->binary ? 2 : 1) *
		    (6 * (size_t)TEXT_VIEW + 256);
	}
	if (views == 0 || views >= room) {
		fit_room(r, room, twice, keep, cut);
		return;
	}
	fit_room(r, room - views, once, keep1, cut1);
	/* Kept in fewer copies only where the text shows a view of it. */
	for (i = 0, whole = 1; i < 2; i++) {
		if (once[i] < 2 && keep1[i] <= TEXT_VIEW) {
			fit_room(r, room, twice, keep, cut);
			return;
		}
		whole &= keep1[i] == r->out[i].kept.len;
	}
	/* Both whole this way: twice, which does not fit whole, keeps
	 * less (no need to cut it to know). */
	if (whole) {
		memcpy(keep, keep1, sizeof(keep1));
		memcpy(cut, cut1, sizeof(cut1));
		return;
	}
	fit_room(r, room, twice, keep, cut);
	if (keep1[0] + keep1[1] > keep[0] + keep[1]) {
		memcpy(keep, keep1, sizeof(keep1));
		memcpy(cut, cut1, sizeof(cut1));
	}
}

/* Appends |n| bytes of |p| as a JSON string of their base64. */
static int
put_base64(struct tc_buf *b, const unsigned char *p, size_t n)
{
	int rc;

	if ((rc = tc_buf_reserve(b, b64_len(n) + 2)) != 0 ||
	    (rc = tc_buf_append(b, "\"", 1)) != 0)
		return rc;
	base64_encode_raw(b->data + b->len, n, p);
	b->len += b64_len(n);
	b->data[b->len] = '\0';
	return tc_buf_append(b, "\"", 1);
}

/* Adds |b|'s JSON text (taken) as member |name|.  Returns 0 or a TC_E*
 * code. */
static int
add_raw(cJSON *obj, const char *name, struct tc_buf *b)
{
	cJSON *item;

	if ((item = tc_json_raw_take(b)) == NULL)
		return TC_ENOMEM;
	if (!cJSON_AddItemToObject(obj, name, item)) {
		cJSON_Delete(item);
		return TC_ENOMEM;
	}
	return 0;
}

/* Adds |b|'s text (taken; well-formed UTF-8, NUL-terminated) as string
 * member |name|.  Returns 0 or a TC_E* code. */
static int
add_string_take(cJSON *obj, const char *name, struct tc_buf *b)
{
	cJSON *item;

	if ((item = cJSON_CreateString("")) == NULL)
		return TC_ENOMEM;
	cJSON_free(item->valuestring);
	item->valuestring = tc_buf_steal(b);
	if (!cJSON_AddItemToObject(obj, name, item)) {
		cJSON_Delete(item);
		return TC_ENOMEM;
	}
	return 0;
}

/*
 * Writes into |v| the view of a stream whose |t| (its kept bytes as
 * UTF-8) is longer than TEXT_VIEW: its first TEXT_HEAD bytes and its last
 * TEXT_VIEW - TEXT_HEAD, each cut on a character, and between them what
 * is left out and where it all is.  Hosts that pass a model the text get
 * a readable digest of a long output; structuredContent has every byte.
 */
static int
make_view(struct tc_buf *v, const char *name, const struct tc_buf *t,
    int binary)
{
	size_t head = tc_utf8_whole(t->data, TEXT_HEAD);
	size_t tail = t->len - (TEXT_VIEW - TEXT_HEAD);
	int rc;

	/* The tail starts on a character: past any continuation bytes. */
	while (tail < t->len && ((unsigned char)t->data[tail] & 0xc0) == 0x80)
		tail++;
	if ((rc = tc_buf_append(v, t->data, head)) != 0 ||
	    (rc = tc_buf_printf(v, "\n[... %zu bytes left out here: %s in "
	    "full is in structuredContent.%s ...]\n", tail - head, name,
	    binary ? (strcmp(name, "stdout") == 0 ? "stdout_base64" :
	    "stderr_base64") : name)) != 0)
		return rc;
	return tc_buf_append(v, t->data + tail, t->len - tail);
}

/*
 * Adds stream |s| (its first |keep| bytes, |cut| or not) to the text and
 * to |obj|.  Returns 0 or a TC_E* code.
 */
static int
add_stream(struct run *r, struct stream *s, size_t keep, int cut,
    cJSON *obj, struct tc_result *res)
{
	struct tc_buf text, view, json, same;
	const struct tc_buf *shown, *whole, *valid = &text;
	char name[32];
	size_t n = cut ? tc_utf8_whole(s->kept.data, keep) : keep;
	int rc;

	tc_buf_init(&text, (size_t)-1);
	tc_buf_init(&view, (size_t)-1);
	tc_buf_init(&json, (size_t)-1);
	if (cut && keep == 0 && r->streaming)
		tc_result_printf(res, "--- %s: %llu bytes, in the job's output "
		    "---\n", s->name, s->total);
	else if (cut)
		tc_result_printf(res, "--- %s: %llu bytes, the first %zu kept "
		    "---\n", s->name, s->total, keep);
	else
		tc_result_printf(res, "--- %s: %llu bytes ---\n", s->name,
		    s->total);
	/* Well-formed, as most output is: the kept bytes themselves, not a
	 * copy.  (Counted whole already, it is known.) */
	if (n > 0 && (s->counted && n == s->kept.len ? s->clean :
	    tc_utf8_valid(s->kept.data, n))) {
		same = s->kept;
		same.len = n;
		valid = &same;
	} else if ((rc = tc_buf_append_utf8(&text, s->kept.data != NULL ?
	    s->kept.data : "", n)) != 0)
		goto out;
	if (valid->len > TEXT_VIEW &&
	    (rc = make_view(&view, s->name, valid, r->x->binary)) != 0)
		goto out;
	shown = valid->len > TEXT_VIEW ? &view : valid;
	if ((rc = tc_result_text(res, shown->data != NULL ? shown->data : "",
	    shown->len)) != 0)
		goto out;
	if (shown->len > 0 && shown->data[shown->len - 1] != '\n')
		tc_result_printf(res, "\n");
	/* With its exact bytes in base64, a long stream's string is its
	 * view: the bytes are there once. */
	whole = r->x->binary ? shown : valid;
	if (whole == &same && !r->x->binary) {
		/* The kept bytes themselves become the string, escaped once
		 * as the result is written: a long output is not copied
		 * into a JSON string of its own first.  Nothing reads them
		 * after this (base64 is only with x->binary). */
		s->kept.data[n] = '\0';
		if ((rc = add_string_take(obj, s->name, &s->kept)) != 0)
			goto out;
	} else if ((rc = tc_json_put_string(&json, whole->data != NULL ?
	    whole->data : "", whole->len)) != 0 ||
	    (rc = add_raw(obj, s->name, &json)) != 0)
		goto out;
	tc_buf_release(&text);
	tc_buf_release(&view);
	snprintf(name, sizeof(name), "%s_bytes", s->name);
	if (cJSON_AddNumberToObject(obj, name, (double)s->total) == NULL)
		goto nomem;
	snprintf(name, sizeof(name), "%s_truncated", s->name);
	if (cJSON_AddBoolToObject(obj, name, cut) == NULL)
		goto nomem;
	if (r->x->binary) {
		snprintf(name, sizeof(name), "%s_base64", s->name);
		if ((rc = put_base64(&json, (const unsigned char *)
		    (s->kept.data != NULL ? s->kept.data : ""), keep)) != 0 ||
		    (rc = add_raw(obj, name, &json)) != 0)
			goto out;
	}
	goto out;
nomem:
	rc = TC_ENOMEM;
out:
	tc_buf_release(&text);
	tc_buf_release(&view);
	tc_buf_release(&json);
	return rc;
}

static const char *
signal_name(int sig, char *buf, size_t size)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev != NULL)
		snprintf(buf, size, "SIG%s", abbrev);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, size, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, size, "SIG%d", sig);
	return buf;
}

/*
 * The most a result may hold: the call's output limit, and, unless the
 * policy sets that limit itself, SHELL_RESULT_MAX, which the official
 * client takes (it drops the connection on a message over 10 MiB).
 */
static size_t
result_budget(const struct tc_call *call)
{
	const struct tc_tool_policy *tp;
	struct tc_limits l;
	size_t max;

	if (call->policy == NULL || call->tool == NULL)
		return SHELL_RESULT_MAX;
	tc_policy_limits(call->policy, call->tool->name, &l);
	max = l.max_result < TC_RESULT_TEXT_MAX ? l.max_result :
	    TC_RESULT_TEXT_MAX;
	tp = tc_policy_tool(call->policy, call->tool->name);
	if (call->policy->set_at[TC_SET_OUTPUT] == 0 &&
	    (tp == NULL || tp->set_at[TC_SET_OUTPUT] == 0) &&
	    max > SHELL_RESULT_MAX)
		max = SHELL_RESULT_MAX;
	return max;
}

/* The order of the structured result's members (see the top). */
static const char *const MEMBERS[] = {
	"exit_code", "signal", "timed_out", "duration_ms", "tty", "note",
	"stdout_bytes", "stdout_truncated", "stderr_bytes", "stderr_truncated",
	"stderr", "stdout", "stdout_base64", "stderr_base64",
};

/* Puts the members of |obj| in the order of MEMBERS: each is taken out and
 * put back at the end, with its name, so nothing is allocated. */
static void
order_members(cJSON *obj)
{
	cJSON *item;
	size_t i;

	for (i = 0; i < TC_NITEMS(MEMBERS); i++)
		if ((item = cJSON_DetachItemFromObjectCaseSensitive(obj,
		    MEMBERS[i])) != NULL)
			cJSON_AddItemToArray(obj, item);
}

/* What goes before another part of the note: "; " if there is one. */
#define NOTE_SEP(b)	((b)->len > 0 ? "; " : "")

static int
build(struct run *r, struct tc_result *res)
{
	const struct shell_exec *x = r->x;
	long long ms = r->end - r->start;
	struct tc_buf note;
	size_t keep[2], extras;
	int cut[2], rc = 0, i, code = -1, sig = 0;
	char sname[32];
	cJSON *obj;

	if (r->exited && !r->status_lost && WIFEXITED(r->status))
		code = WEXITSTATUS(r->status);
	else if (r->exited && !r->status_lost && WIFSIGNALED(r->status))
		sig = WTERMSIG(r->status);
	if (r->status_lost)
		tc_result_printf(res, "ended in %lld ms, its exit status "
		    "unknown", ms);
	else if (code >= 0)
		tc_result_printf(res, "exit %d in %lld ms", code, ms);
	else if (sig != 0)
		tc_result_printf(res, "killed by signal %d (%s) in %lld ms",
		    sig, signal_name(sig, sname, sizeof(sname)), ms);
	else
		tc_result_printf(res, "still running after %lld ms", ms);
	if (r->timed_out)
		tc_result_printf(res, "; timed out after %d ms", x->timeout_ms);
	/* The note: what the summary says besides the members. */
	tc_buf_init(&note, (size_t)-1);
	if (r->status_lost)
		rc |= tc_buf_printf(&note, "its exit status is unknown");
	/* A job's output went to the job, not here: said per stream in
	 * the text, and here for the structured half, whose empty stdout
	 * with stdout_truncated would read as output lost. */
	if (r->streaming && (r->out[0].total > 0 || r->out[1].total > 0))
		rc |= tc_buf_printf(&note, "%sits output is in the job's "
		    "output, which read_output returns: stdout and stderr "
		    "here hold none of it", NOTE_SEP(&note));
	extras = note.len;
	if (r->unkillable)
		rc |= tc_buf_printf(&note, "%sit could not be signalled from "
		    "here: its processes are killed as the call ends",
		    NOTE_SEP(&note));
	if (r->held)
		rc |= tc_buf_printf(&note, "%sprocesses it left behind held "
		    "its output open after it exited: %s, and what they wrote "
		    "after that is not here", NOTE_SEP(&note), r->group_left ?
		    "they could not be signalled from here and are killed as "
		    "the call ends" : "they were killed");
	if (r->out[0].lost || r->out[1].lost)
		rc |= tc_buf_printf(&note, "%sout of memory: less output was "
		    "kept than asked", NOTE_SEP(&note));
	if (r->tty)
		rc |= tc_buf_printf(&note, "%sit ran on a terminal, whose "
		    "output (its stdout and stderr together, and the input "
		    "echoed) is all in stdout", NOTE_SEP(&note));
	if (note.len > extras)
		tc_result_printf(res, "; %s", note.data + extras +
		    (extras > 0 ? 2 : 0));
	tc_result_printf(res, "\n");

	if (rc != 0 || (obj = tc_result_obj(res)) == NULL ||
	    (note.len > 0 && cJSON_AddStringToObject(obj, "note",
	    note.data) == NULL)) {
		tc_buf_release(&note);
		return TC_ENOMEM;
	}
	tc_buf_release(&note);
	if ((code >= 0 ? cJSON_AddNumberToObject(obj, "exit_code", code) :
	    cJSON_AddNullToObject(obj, "exit_code")) == NULL ||
	    (sig != 0 ? cJSON_AddStringToObject(obj, "signal",
	    signal_name(sig, sname, sizeof(sname))) :
	    cJSON_AddNullToObject(obj, "signal")) == NULL)
		return TC_ENOMEM;
	if (r->streaming) {
		/* A job's: its output is the job's (see the top). */
		for (i = 0; i < 2; i++) {
			keep[i] = 0;
			cut[i] = r->out[i].total > 0;
		}
	} else
		fit_budget(r, result_budget(r->call), keep, cut);
	for (i = 0; i < 2; i++)
		if ((rc = add_stream(r, &r->out[i], keep[i], cut[i], obj,
		    res)) != 0)
			return rc;
	if (cJSON_AddNumberToObject(obj, "duration_ms", (double)ms) == NULL ||
	    cJSON_AddBoolToObject(obj, "timed_out", r->timed_out) == NULL ||
	    (r->tty && cJSON_AddBoolToObject(obj, "tty", 1) == NULL))
		return TC_ENOMEM;
	order_members(obj);
	return res->failed;
}

int
shell_exec_run(const struct tc_call *call, const struct shell_exec *x,
    struct tc_result *res)
{
	struct sigaction ign, chld, old_pipe, old_chld;
	sigset_t one, old_mask;
	struct run r;
	int i, rc, err;

	if (!ignored_known)
		shell_exec_ready();
	memset(&r, 0, sizeof(r));
	r.call = call;
	r.x = x;
	r.in_fd = r.pidfd = r.src_fd = -1;
	r.pid = -1;
	/* The slave is the runner's from here (shell.h). */
	r.tty = x->tty;
	r.slave = x->tty ? x->tty_slave : -1;
	r.mark = x->tty ? x->tty_mark : -1;
	for (i = 0; i < 2; i++) {
		r.out[i].fd = -1;
		tc_buf_init(&r.out[i].kept, x->max_output);
	}
	r.out[0].which = TC_STREAM_STDOUT;
	r.out[0].name = "stdout";
	r.out[1].which = TC_STREAM_STDERR;
	r.out[1].name = "stderr";
	r.streaming = x->stream && call->io != NULL;
	r.progressing = call->io != NULL;

	/* A program that exits without reading all its input must not
	 * take the handler with it.  (The one signal the handler ignores:
	 * exec_program() sets it back for the program.) */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	/* And its exit must wait to be reaped here: an ignored SIGCHLD
	 * would reap it unseen.  Handled, and blocked but in the pump's
	 * ppoll(), it wakes the pump to reap what the program leaves
	 * (reap_orphans()). */
	memset(&chld, 0, sizeof(chld));
	chld.sa_handler = on_child;
	chld.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	if (sigaction(SIGPIPE, &ign, &old_pipe) != 0) {
		tc_result_error(res, "cannot ignore SIGPIPE: %s",
		    strerror(errno));
		close_fd(&r.slave);
		close_fd(&r.mark);
		return TC_ESYS;
	}
	sigemptyset(&one);
	sigaddset(&one, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &one, &old_mask) != 0 ||
	    sigaction(SIGCHLD, &chld, &old_chld) != 0) {
		err = errno;
		(void)sigprocmask(SIG_SETMASK, &old_mask, NULL);
		(void)sigaction(SIGPIPE, &old_pipe, NULL);
		tc_result_error(res, "cannot wait for a program: %s",
		    strerror(err));
		close_fd(&r.slave);
		close_fd(&r.mark);
		return TC_ESYS;
	}
	r.wake = old_mask;
	sigdelset(&r.wake, SIGCHLD);

	if ((rc = start(&r, res)) != 0)
		goto out;
	r.next_progress = r.start + PROGRESS_MS;
	pump(&r);
	/* Whatever is left of its group goes with it. */
	if (r.exited && signal_group(&r, SIGKILL) != 0)
		r.group_left = 1;
	r.end = tc_now_ms();
	for (i = 0; i < 2; i++)
		close_fd(&r.out[i].fd);
	close_fd(&r.in_fd);
	rc = build(&r, res);
out:
	for (i = 0; i < 2; i++) {
		close_fd(&r.out[i].fd);
		tc_buf_release(&r.out[i].kept);
	}
	close_fd(&r.in_fd);
	close_fd(&r.src_fd);
	close_fd(&r.slave);
	close_fd(&r.mark);
	close_fd(&r.pidfd);
	(void)sigaction(SIGCHLD, &old_chld, NULL);
	(void)sigprocmask(SIG_SETMASK, &old_mask, NULL);
	(void)sigaction(SIGPIPE, &old_pipe, NULL);
	return rc;
}
