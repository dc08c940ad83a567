/*
 * frame.c: the frames on a child's pipes, written whole (tc_frame_write(),
 * tc_write_all()), and pipes made wide enough for a large one
 * (tc_stream_grow()).  Both sides write them: the parent its call
 * (run.c), the child its result (child.c) and what a handler streams
 * (stream.c); run.c reads them.  It calls nothing else of the sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sandbox/sandbox-int.h"

int
tc_write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, s, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

void
tc_stream_grow(int fd, int bytes)
{
	/* Node's child_process gives its children sockets, not pipes. */
	if (fcntl(fd, F_SETPIPE_SZ, bytes) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes,
		    sizeof(bytes));
}

int
tc_frame_write(int fd, enum tc_frame_type type, const char *p, size_t n)
{
	unsigned char hdr[TC_FRAME_HDR];
	struct iovec iov[2];
	size_t off = 0, total = TC_FRAME_HDR + n;
	ssize_t w;

	if (n > UINT32_MAX)
		return TC_ETOOBIG;
	tc_put_u32(hdr, (uint32_t)type);
	tc_put_u32(hdr + 4, (uint32_t)n);
	/* Header and body in one write where the pipe takes it: the
	 * server wakes once for the frame, not once for each part. */
	while (off < total) {
		int nv = 0;

		if (off < TC_FRAME_HDR) {
			iov[nv].iov_base = hdr + off;
			iov[nv++].iov_len = TC_FRAME_HDR - off;
		}
		iov[nv].iov_base = (void *)(uintptr_t)(p + (off <
		    TC_FRAME_HDR ? 0 : off - TC_FRAME_HDR));
		iov[nv++].iov_len = off < TC_FRAME_HDR ? n :
		    total - off;
		if ((w = writev(fd, iov, nv)) < 0) {
			if (errno == EINTR)
				continue;
			return TC_ESYS;
		}
		off += (size_t)w;
	}
	return 0;
}
