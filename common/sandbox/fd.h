/*
 * fd.h: closing fds, for the server and for the processes it forks before
 * they exec (a call's child, the spawner, the consent hook's keeper); and
 * handing a child's two pipe ends from one process to another (the server
 * to the spawner, the spawner to a zygote).
 * Returns (sandbox/): a step that a child or a keeper takes against the
 * kernel 0 or -1 with errno set.
 */
#ifndef TC_FD_H
#define TC_FD_H

#include <stddef.h>

/* Closes |*fd| if it is open (not negative) and makes it -1. */
void	tc_fd_close(int *fd);

/*
 * Closes every fd above 2 but those in |keep|: at most TC_KEEP_MAX
 * (sandbox.h), each above 2, in any order, repeats allowed.  Returns 0,
 * or -1 for a list it refuses (too long, or naming stdio) or when
 * close_range(2) fails.
 */
int	tc_close_fds_except(const int *keep, size_t nkeep);

/*
 * Sends the |n| bytes of |p| on the socket |sock| (SOCK_SEQPACKET) with
 * the two fds |fds| attached (SCM_RIGHTS), whole or not at all.  Returns
 * 0, or -1 with errno set (EMSGSIZE for a short send).
 */
int	tc_fds_send(int sock, const void *p, size_t n, const int fds[2]);

/*
 * Receives a message of exactly |n| bytes into |p| with exactly two fds,
 * put in |fds| (close-on-exec).  Returns 1; 0 at the end of the socket;
 * or -1 with errno set (EBADMSG for another size or another number of
 * fds, any received closed).
 */
int	tc_fds_recv(int sock, void *p, size_t n, int fds[2]);

#endif /* TC_FD_H */
