/*
 * test-ring.c: the byte ring that keeps a job's output: offsets, wrapping,
 * and reads from offsets whose bytes were dropped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ring.h"
#include "tap.h"

/* Reads up to |max| bytes from |off| as a string, with where it began. */
static const char *
rd(const struct tc_ring *r, uint64_t off, size_t max, uint64_t *from)
{
	static char buf[256];
	size_t n;

	n = tc_ring_read(r, off, buf, max < sizeof(buf) ? max :
	    sizeof(buf) - 1, from);
	buf[n] = '\0';
	return buf;
}

static void
test_empty(void)
{
	struct tc_ring r;
	uint64_t from = 99;

	tc_ring_init(&r, 8);
	is_str(rd(&r, 0, 10, &from), "", "empty: reads nothing");
	is_int(from, 0, "empty: from 0");
	is_int(tc_ring_dropped(&r), 0, "empty: nothing dropped");
	is_str(rd(&r, 5, 10, &from), "", "empty: past the end");
	is_int(from, 0, "empty: past the end reads from the end");
	tc_ring_release(&r);
}

static void
test_offsets(void)
{
	struct tc_ring r;
	uint64_t from;

	tc_ring_init(&r, 8);
	is_int(tc_ring_append(&r, "abc", 3), 0, "append abc");
	is_int(tc_ring_append(&r, "de", 2), 0, "append de");
	is_int(r.end, 5, "end is 5");
	is_str(rd(&r, 0, 100, &from), "abcde", "all from 0");
	is_int(from, 0, "from 0");
	is_str(rd(&r, 2, 2, &from), "cd", "2 bytes from 2");
	is_int(from, 2, "from 2");
	is_str(rd(&r, 4, 100, &from), "e", "the rest from 4");
	is_str(rd(&r, 5, 100, &from), "", "nothing new at the end");
	is_int(from, 5, "from the end");
	is_str(rd(&r, 7, 100, &from), "", "nothing past the end");
	is_int(from, 5, "past the end reads from the end");
	tc_ring_release(&r);
}

static void
test_wrap(void)
{
	struct tc_ring r;
	uint64_t from;

	tc_ring_init(&r, 8);
	tc_ring_append(&r, "0123456", 7);
	tc_ring_append(&r, "789", 3);		/* wraps: 2 dropped */
	is_int(r.start, 2, "wrap: oldest kept is offset 2");
	is_int(r.end, 10, "wrap: end is 10");
	is_int(tc_ring_dropped(&r), 2, "wrap: 2 dropped");
	is_str(rd(&r, 2, 100, &from), "23456789", "wrap: read across the edge");
	is_int(from, 2, "wrap: from 2");
	is_str(rd(&r, 6, 3, &from), "678", "wrap: 3 bytes across the edge");
	is_str(rd(&r, 0, 100, &from), "23456789", "dropped: read from 0 "
	    "starts at the oldest kept");
	is_int(from, 2, "dropped: from says where the read began");
	ok(from > 0, "dropped: the reader can tell bytes were lost");
	/* Many more wraps. */
	for (int i = 0; i < 100; i++)
		tc_ring_append(&r, "xyz", 3);
	tc_ring_append(&r, "ABCDEFGH", 8);
	is_int(r.end, 318, "many: end");
	is_int(r.start, 310, "many: start");
	is_str(rd(&r, 310, 100, &from), "ABCDEFGH", "many: exactly the last "
	    "append");
	tc_ring_release(&r);
}

static void
test_big_append(void)
{
	struct tc_ring r;
	uint64_t from;

	tc_ring_init(&r, 4);
	tc_ring_append(&r, "ab", 2);
	tc_ring_append(&r, "0123456789", 10);	/* more than the ring */
	is_int(r.end, 12, "big: every byte counts");
	is_int(r.start, 8, "big: only the last 4 kept");
	is_str(rd(&r, 0, 100, &from), "6789", "big: the tail");
	is_int(from, 8, "big: from 8");
	tc_ring_append(&r, "Z", 1);
	is_str(rd(&r, 9, 100, &from), "789Z", "big: then wraps as usual");
	tc_ring_release(&r);
	is_str(rd(&r, 0, 100, &from), "", "released: keeps nothing");
	is_int(from, 13, "released: offsets stay");
}

static void
test_zero_cap(void)
{
	struct tc_ring r;
	uint64_t from;

	tc_ring_init(&r, 0);
	is_int(tc_ring_append(&r, "abc", 3), 0, "zero: append counts");
	is_int(r.end, 3, "zero: end");
	is_int(tc_ring_dropped(&r), 3, "zero: all dropped");
	is_str(rd(&r, 0, 10, &from), "", "zero: nothing to read");
	is_int(from, 3, "zero: from the end");
	tc_ring_release(&r);
}

int
main(void)
{
	test_empty();
	test_offsets();
	test_wrap();
	test_big_append();
	test_zero_cap();
	return done_testing();
}
