/*
 * stream.c: a handler's progress, output and input, in its child (see
 * stream.h).  The frames are read by run.c.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "base/text.h"
#include "sandbox/sandbox.h"
#include "sandbox/stream.h"

int
tc_call_progress(const struct tc_call *call, double progress, double total,
    const char *message)
{
	struct tc_call_io *io = call->io;
	char frame[2 * sizeof(double) + TC_PROGRESS_MSG_MAX];
	size_t n = 0;

	if (io == NULL || io->out_fd < 0 || !isfinite(progress) ||
	    progress < 0 || (io->sent && progress <= io->last))
		return TC_EINVAL;
	if (!isfinite(total) || total < 0)
		total = -1;
	/* Parent and child are one program: the same byte order. */
	memcpy(frame, &progress, sizeof(double));
	memcpy(frame + sizeof(double), &total, sizeof(double));
	if (message != NULL) {
		n = tc_utf8_cut(message, strlen(message), TC_PROGRESS_MSG_MAX);
		memcpy(frame + 2 * sizeof(double), message, n);
	}
	if (tc_frame_write(io->out_fd, TC_FRAME_PROGRESS, frame,
	    2 * sizeof(double) + n) != 0)
		return TC_ESYS;
	io->last = progress;
	io->sent = 1;
	return 0;
}

int
tc_call_output(const struct tc_call *call, enum tc_stream stream,
    const void *p, size_t n)
{
	struct tc_call_io *io = call->io;
	const char *s = p;
	size_t k;

	if (io == NULL || io->out_fd < 0 || (stream != TC_STREAM_STDOUT &&
	    stream != TC_STREAM_STDERR))
		return TC_EINVAL;
	while (n > 0) {
		k = n < TC_STREAM_FRAME_MAX ? n : TC_STREAM_FRAME_MAX;
		if (tc_frame_write(io->out_fd, stream == TC_STREAM_STDOUT ?
		    TC_FRAME_STDOUT : TC_FRAME_STDERR, s, k) != 0)
			return TC_ESYS;
		s += k;
		n -= k;
	}
	return 0;
}

int
tc_call_input_fd(const struct tc_call *call)
{
	return call->io != NULL ? call->io->in_fd : -1;
}

int
tc_call_tty(const struct tc_call *call, int *master, int *slave, int *mark)
{
	struct tc_call_io *io = call->io;

	*master = *slave = *mark = -1;
	if (io == NULL || !io->tty) {
		errno = io != NULL && io->tty_err != 0 ? io->tty_err : ENODEV;
		return -1;
	}
	*master = io->tty_master;
	*slave = io->tty_slave;
	*mark = io->tty_mark;
	io->tty = 0;
	io->tty_master = io->tty_slave = io->tty_mark = -1;
	io->tty_err = 0;
	return 0;
}

ssize_t
tc_call_input(const struct tc_call *call, void *buf, size_t cap)
{
	int fd = tc_call_input_fd(call);
	ssize_t n;

	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	do
		n = read(fd, buf, cap);
	while (n < 0 && errno == EINTR);
	return n;
}
