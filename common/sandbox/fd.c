/*
 * fd.c: closing fds (fd.h).
 */
#include <stdlib.h>
#include <string.h>
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
