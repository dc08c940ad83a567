/* buf.c: capped byte buffers and UTF-8 checks. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"

void
tc_buf_init(struct tc_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	b->max = max;
}

void
tc_buf_release(struct tc_buf *b)
{
	free(b->data);
	tc_buf_init(b, b->max);
}

void
tc_buf_reset(struct tc_buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

/*
 * A buffer of TC_BUF_HUGE bytes or more asks for transparent huge pages
 * (MADV_HUGEPAGE; where the system leaves them to madvise(), as Debian
 * does, none are used otherwise).  Nearly every process that fills one
 * is fresh (a call's child), so each page of it is a first touch: a 5 MiB
 * output cost 1,300 page faults in its child's pipe buffer and as many in
 * its result, more time than copying and escaping it.  With huge pages, a
 * fault per 2 MiB.  Only a block the C library mapped by itself is
 * advised, all of it (the whole pages its data lies on): advising part of
 * a mapping would split it, and the library could then no longer grow it
 * in place (mremap) but would copy it.  A block on the heap (below the
 * break: glibc places large blocks there once a freed one has raised its
 * threshold for mapping them) is left alone: advice there would reach the
 * heap's neighbouring memory too, and a long-lived server's heap would
 * grow in huge pages.  Only a hint: it may fail, and nothing depends on
 * it.
 */
#define TC_BUF_HUGE	((size_t)4 << 20)

static void
advise_huge(char *p, size_t n)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
	uintptr_t lo = (uintptr_t)p & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	void *brk_end = sbrk(0);

	if (brk_end != (void *)-1 && (uintptr_t)p < (uintptr_t)brk_end)
		return;
	(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

int
tc_buf_reserve(struct tc_buf *b, size_t n)
{
	size_t want, nalloc;
	char *p;

	/* len + n, and the NUL after them, must fit in a size_t. */
	if (n > b->max || b->len > b->max - n || b->len + n == SIZE_MAX)
		return TC_ETOOBIG;
	want = b->len + n + 1;
	if (want <= b->alloc)
		return 0;
	nalloc = b->alloc ? b->alloc : 256;
	while (nalloc < want)
		nalloc = nalloc > SIZE_MAX / 2 ? want : nalloc * 2;
	if (b->max < SIZE_MAX && nalloc > b->max + 1)
		nalloc = b->max + 1;
	if ((p = realloc(b->data, nalloc)) == NULL)
		return TC_ENOMEM;
	if (nalloc >= TC_BUF_HUGE)
		advise_huge(p, nalloc);
	b->data = p;
	b->alloc = nalloc;
	return 0;
}

int
tc_buf_append_grow(struct tc_buf *b, const void *p, size_t n)
{
	int r;

	if ((r = tc_buf_reserve(b, n)) != 0)
		return r;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
tc_buf_printf(struct tc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return TC_EINVAL;
	if ((r = tc_buf_reserve(b, (size_t)n)) != 0)
		return r;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *
tc_buf_steal(struct tc_buf *b)
{
	char *p = b->data;

	if (p == NULL)
		p = calloc(1, 1);
	tc_buf_init(b, b->max);
	return p;
}

/*
 * Returns the length of the well-formed UTF-8 sequence at |s| (at most |n|
 * bytes available), or 0 if it is ill-formed or cut off by the end of the
 * input; then *|bad| is the length of its maximal ill-formed subpart, which
 * is replaced by one U+FFFD (Unicode 15 §3.9, "U+FFFD Substitution of Maximal
 * Subparts").  No overlongs, no surrogates, nothing past U+10FFFF, no NUL.
 */
static int
utf8_seq(const unsigned char *s, size_t n, int *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int len, i;

	*bad = 1;
	if (c == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	for (i = 1; i < len; i++) {
		if ((size_t)i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

size_t
tc_utf8_prefix(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0;
	uint64_t w;
	int k, bad;

	while (i < n) {
		/* Eight bytes at a time while they are ASCII without NUL:
		 * most text is. */
		if (n - i >= 8) {
			memcpy(&w, s + i, 8);
			if (((w | TC_HAS_ZERO(w)) & TC_BYTES(0x80)) == 0) {
				i += 8;
				continue;
			}
		}
		if (s[i] < 0x80 && s[i] != 0) {
			i++;
			continue;
		}
		if ((k = utf8_seq(s + i, n - i, &bad)) == 0)
			break;
		i += (size_t)k;
	}
	return i;
}

size_t
tc_utf8_decode(const void *p, size_t n, uint32_t *cp, size_t *bad)
{
	const unsigned char *s = p;
	uint32_t v;
	int len, b, i;

	if ((len = utf8_seq(s, n, &b)) == 0) {
		if (bad != NULL)
			*bad = (size_t)b;
		return 0;
	}
	v = len == 1 ? s[0] : len == 2 ? s[0] & 0x1fu : len == 3 ?
	    s[0] & 0x0fu : s[0] & 0x07u;
	for (i = 1; i < len; i++)
		v = v << 6 | (s[i] & 0x3fu);
	*cp = v;
	return (size_t)len;
}

int
tc_utf8_valid(const void *p, size_t n)
{
	return tc_utf8_prefix(p, n) == n;
}

int
tc_buf_append_utf8(struct tc_buf *b, const void *p, size_t n)
{
	static const char repl[] = "\xef\xbf\xbd";
	const unsigned char *s = p;
	size_t i = 0, good, start = b->len;
	int bad, r = 0;

	while (i < n) {
		good = tc_utf8_prefix(s + i, n - i);
		if ((r = tc_buf_append(b, s + i, good)) != 0)
			break;
		i += good;
		if (i >= n)
			break;
		(void)utf8_seq(s + i, n - i, &bad);
		if ((r = tc_buf_append(b, repl, 3)) != 0)
			break;
		i += (size_t)bad;
	}
	if (r != 0 && b->data != NULL) {
		/* All or nothing, as tc_buf_append(). */
		b->len = start;
		b->data[start] = '\0';
	}
	return r;
}

int
tc_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
