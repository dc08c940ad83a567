/*
 * clock.h: the monotonic clock, in milliseconds, for deadlines and
 * durations everywhere (runs, hooks, consent, the audit log's timings).
 *
 * Returns (base/): a value; nothing here can fail.
 */
#ifndef TC_CLOCK_H
#define TC_CLOCK_H

#include <stdint.h>

/* Returns CLOCK_MONOTONIC in milliseconds: never goes back, and says
 * nothing of the time of day. */
int64_t	tc_now_ms(void);

#endif /* TC_CLOCK_H */
