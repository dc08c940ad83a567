/*
 * fd.c: closing fds, and handing two of them to another process (fd.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/fd.h"
#include "sandbox/sandbox.h"	/* TC_KEEP_MAX */

void
tc_fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int
tc_close_fds_except(const int *keep, size_t nkeep)
{
	int sorted[TC_KEEP_MAX];
	unsigned lo = STDERR_FILENO + 1;
	size_t i;

	if (nkeep > TC_KEEP_MAX)
		return -1;
	memcpy(sorted, keep, nkeep * sizeof(*keep));
	qsort(sorted, nkeep, sizeof(*sorted), cmp_int);
	for (i = 0; i < nkeep; i++) {
		if (sorted[i] <= STDERR_FILENO)
			return -1;
		if ((unsigned)sorted[i] > lo &&
		    close_range(lo, (unsigned)sorted[i] - 1, 0) != 0)
			return -1;
		lo = (unsigned)sorted[i] + 1;
	}
	return close_range(lo, ~0U, 0);
}

/* A control buffer that holds two fds, aligned for a cmsghdr. */
union two_fds {
	struct cmsghdr	hdr;
	char		buf[CMSG_SPACE(2 * sizeof(int))];
};

int
tc_fds_send(int sock, const void *p, size_t n, const int fds[2])
{
	union two_fds u;
	struct iovec iov = { (void *)(uintptr_t)p, n };
	struct msghdr msg;
	struct cmsghdr *c;
	ssize_t w;

	memset(&u, 0, sizeof(u));
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(c), fds, 2 * sizeof(int));
	do
		w = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -1;
	if ((size_t)w != n) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

int
tc_fds_recv(int sock, void *p, size_t n, int fds[2])
{
	union two_fds u;
	struct iovec iov = { p, n };
	struct msghdr msg;
	struct cmsghdr *c;
	size_t i, got = 0;
	int in[2] = { -1, -1 }, fd;
	ssize_t r;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	do
		r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r == 0 ? 0 : -1;
	/* Every fd that came is ours to close unless the message is the
	 * one expected. */
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (i = 0; CMSG_LEN((i + 1) * sizeof(int)) <= c->cmsg_len;
		    i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int),
			    sizeof(fd));
			if (got < 2)
				in[got] = fd;
			else
				close(fd);
			got++;
		}
	}
	if ((size_t)r != n || got != 2 || (msg.msg_flags &
	    (MSG_CTRUNC | MSG_TRUNC))) {
		for (i = 0; i < 2 && i < got; i++)
			close(in[i]);
		errno = EBADMSG;
		return -1;
	}
	fds[0] = in[0];
	fds[1] = in[1];
	return 1;
}
