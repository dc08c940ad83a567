/*
 * fd.h: closing fds, for the server and for the processes it forks before
 * they exec (a call's child, the spawner, the consent hook's keeper).
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

#endif /* TC_FD_H */
