/*
 * stream.h: what a handler may send the server before its result, and
 * what it may read after its call: progress, output and a job's input.
 * Returns (sandbox/): 0 or a negative TC_E* code, with a struct tc_diag
 * where a person must read why; a question 1 or 0; a count or a lookup
 * what it found (NULL: nothing); a step that a child or a keeper takes
 * against the kernel 0 or -1 with errno set.
 * tc_call_input() answers as read(2) does.
 *
 * A handler runs in its confined child and answers once, with its result.
 * While it works it may also say how far it has got (tc_call_progress(),
 * which the server passes on as MCP notifications/progress when the
 * request asked for them) and send output as it comes
 * (tc_call_output(): the server keeps the last of it, for a job's readers
 * and for the error result of a call that ends without its own).  A job's
 * handler (a tool with TC_TOOL_JOB) also has an input: the bytes a client
 * writes to the job, until it closes it or the job is stopped.
 *
 * Each call writes one or more frames on the child's result pipe and
 * blocks while the pipe is full: a handler that sends faster than the
 * server reads is slowed down, never allowed to make the server hold more
 * than its caps.  The server treats every frame as hostile (run.c) and
 * drops what breaks its rules (a progress that does not increase) or
 * ends the call (a malformed frame).
 */
#ifndef TC_STREAM_H
#define TC_STREAM_H

#include <stddef.h>
#include <sys/types.h>

#include "protocol/tools.h"

/* The child's channels (child.c fills them in before the handler runs). */
struct tc_call_io {
	int	 in_fd;		/* a job's input, or -1 */
	int	 out_fd;	/* the result pipe: frames to the server */
	double	 last;		/* the last progress sent */
	int	 sent;		/* some progress was sent */
	/* A profile with TC_MAY_TTY: the pseudo-terminal the child opened
	 * before it was confined (tc_call_tty()).  All 0: none. */
	int	 tty;		/* tty_master, tty_slave, tty_mark set */
	int	 tty_master;
	int	 tty_slave;
	int	 tty_mark;
	int	 tty_err;	/* why there is none: an errno, or 0 */
};

enum tc_stream {
	TC_STREAM_STDOUT = 1,
	TC_STREAM_STDERR = 2,
};

/*
 * Reports progress: |progress| so far, out of |total| (< 0 when not
 * known), with |message| (NULL or UTF-8; cut to TC_PROGRESS_MSG_MAX bytes
 * on a character boundary).  |progress| must be finite, not negative, and
 * greater than the last one sent: MCP requires each notification's
 * progress to increase.  Returns 0, TC_EINVAL (out of order, or no
 * channel: not in a child), or TC_ESYS (the server is gone).
 */
int	tc_call_progress(const struct tc_call *call, double progress,
	    double total, const char *message);

/*
 * Sends |n| bytes of output from |stream|, in frames of at most
 * TC_STREAM_FRAME_MAX bytes.  Bytes need not be text.  Returns 0,
 * TC_EINVAL or TC_ESYS as tc_call_progress() does.
 */
int	tc_call_output(const struct tc_call *call, enum tc_stream stream,
	    const void *p, size_t n);

/*
 * Returns the fd of a job's input (raw bytes, end of file once the client
 * closes it or the job is stopped), which a handler may read or give a
 * program as its stdin; or -1 when the call has none (a tool without
 * TC_TOOL_JOB).  The fd is the handler's: it may close it.
 */
int	tc_call_input_fd(const struct tc_call *call);

/*
 * Takes the pseudo-terminal the child opened before it was confined, for
 * a profile with TC_MAY_TTY (profile.h): a fresh pair, its master in
 * *|master| and its slave in *|slave|, both O_CLOEXEC, unlocked, with no
 * controlling terminal made of it, 80 columns by 24 rows; and in *|mark|
 * the slave once more, opened apart and non-blocking (O_CLOEXEC |
 * O_NONBLOCK), for the caller's own writes.  A master's read may answer
 * EIO, every slave closed, before the last bytes written to the slave
 * can be read (a few milliseconds later they can; seen in namespaces on
 * a loaded machine, rarely: docs/shell.md): what is written
 * to |mark| after a program has exited comes after all it wrote, so
 * that reading up to it reads everything.  They are the caller's from
 * then on (it closes them); a second call finds none.  Returns 0; or -1
 * with errno set and all three -1: ENODEV for a profile without
 * TC_MAY_TTY or when taken already, else why the child could not open
 * one (ENOENT: no /dev/ptmx, ENOSPC: the system's ptys are used up).
 */
int	tc_call_tty(const struct tc_call *call, int *master, int *slave,
	    int *mark);

/*
 * Reads up to |cap| bytes of a job's input into |buf|, blocking until
 * some come.  Returns the count, 0 at end of file, or -1 with errno set
 * (EBADF: no input).
 */
ssize_t	tc_call_input(const struct tc_call *call, void *buf, size_t cap);

#endif /* TC_STREAM_H */
