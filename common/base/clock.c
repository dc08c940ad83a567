/* clock.c: the monotonic clock in milliseconds. */
#include <time.h>

#include "base/clock.h"

int64_t
tc_now_ms(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail with a valid clock and pointer. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
