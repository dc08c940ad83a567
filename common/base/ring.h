/*
 * ring.h: a byte ring that keeps the last |cap| bytes of a stream, each
 * byte known by its offset from the start of the stream.
 *
 * A job's output is such a stream: the server keeps what fits and drops
 * the oldest bytes, and a reader asks from an offset it got from the last
 * read.  Offsets never wrap (64 bits), so a reader can always tell whether
 * the bytes it asks for were dropped.  Returns: 0 or a negative TC_E*.
 */
#ifndef TC_RING_H
#define TC_RING_H

#include <stddef.h>
#include <stdint.h>

struct tc_ring {
	char		*data;		/* NULL until the first append */
	size_t		 cap;		/* bytes kept at most */
	uint64_t	 start;		/* offset of the oldest byte kept */
	uint64_t	 end;		/* offset just past the newest */
};

/* Makes an empty ring that keeps at most |cap| bytes; allocates nothing. */
void	tc_ring_init(struct tc_ring *r, size_t cap);

/* Frees the memory; the offsets stay, the ring keeps nothing. */
void	tc_ring_release(struct tc_ring *r);

/*
 * Appends |n| bytes, dropping the oldest as needed: if |n| is more than
 * the ring holds, only the last |cap| bytes are kept (the rest count as
 * written and dropped).  Returns 0, or TC_ENOMEM (the first append
 * allocates; nothing is appended then).
 */
int	tc_ring_append(struct tc_ring *r, const void *p, size_t n);

/*
 * Copies up to |max| bytes from offset |off| into |buf|.  Bytes before
 * r->start are gone: the read starts at r->start instead, and *|from|
 * says so (it is then more than |off|).  An offset past r->end reads
 * nothing from r->end.  Returns the count copied; the next offset to ask
 * for is *|from| plus that count.
 */
size_t	tc_ring_read(const struct tc_ring *r, uint64_t off, void *buf,
	    size_t max, uint64_t *from);

/* Bytes dropped so far (written but no longer kept). */
static inline uint64_t
tc_ring_dropped(const struct tc_ring *r)
{
	return r->start;
}

#endif /* TC_RING_H */
