/*
 * ring.c: a byte ring keeping the last bytes of a stream (see ring.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ring.h"

void
tc_ring_init(struct tc_ring *r, size_t cap)
{
	memset(r, 0, sizeof(*r));
	r->cap = cap;
}

void
tc_ring_release(struct tc_ring *r)
{
	free(r->data);
	r->data = NULL;
	r->start = r->end;
}

int
tc_ring_append(struct tc_ring *r, const void *p, size_t n)
{
	const char *s = p;
	size_t at, first;

	if (n == 0)
		return 0;
	if (r->cap == 0) {
		r->end += n;
		r->start = r->end;
		return 0;
	}
	if (r->data == NULL && (r->data = malloc(r->cap)) == NULL)
		return TC_ENOMEM;
	if (n > r->cap) {
		/* Only the tail can be kept. */
		r->end += n - r->cap;
		s += n - r->cap;
		n = r->cap;
	}
	at = (size_t)(r->end % r->cap);
	first = r->cap - at < n ? r->cap - at : n;
	memcpy(r->data + at, s, first);
	memcpy(r->data, s + first, n - first);
	r->end += n;
	if (r->end - r->start > r->cap)
		r->start = r->end - r->cap;
	return 0;
}

size_t
tc_ring_read(const struct tc_ring *r, uint64_t off, void *buf, size_t max,
    uint64_t *from)
{
	size_t n, at, first;
	char *d = buf;

	if (off < r->start)
		off = r->start;
	if (off > r->end)
		off = r->end;
	*from = off;
	n = r->end - off < max ? (size_t)(r->end - off) : max;
	if (n == 0 || r->data == NULL)
		return 0;
	at = (size_t)(off % r->cap);
	first = r->cap - at < n ? r->cap - at : n;
	memcpy(d, r->data + at, first);
	memcpy(d + first, r->data, n - first);
	return n;
}
