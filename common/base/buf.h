/*
 * buf.h: byte buffers that refuse to grow past a cap set when they are made.
 *
 * Everything filled from outside (a stdin frame, a child's pipe, a file read)
 * gets its cap at tc_buf_init().  The data is always NUL-terminated, so a
 * buffer holding text can be used as a C string.
 *
 * Returns (base/): 0 or a negative TC_E* code (TC_ETOOBIG, TC_ENOMEM);
 * what measures or decodes returns what it found.
 */
#ifndef TC_BUF_H
#define TC_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Eight bytes at once, for scans that skip plain text (a word loaded with
 * memcpy): TC_HAS_ZERO(w) is non-zero if and only if a byte of |w| is 0,
 * TC_HAS_LESS(w, n) if and only if a byte is below |n| (n at most 128).
 * Only the lowest bit set is exact (a borrow can mark a byte after a true
 * hit, never one before): on a little-endian machine it finds the first.
 */
#define TC_BYTES(c)		(UINT64_C(0x0101010101010101) * (c))
#define TC_HAS_LESS(w, n)	(((w) - TC_BYTES(n)) & ~(w) & TC_BYTES(0x80))
#define TC_HAS_ZERO(w)		TC_HAS_LESS(w, 1)

struct tc_buf {
	char	*data;		/* NULL until the first append */
	size_t	 len;
	size_t	 alloc;
	size_t	 max;		/* appends past this fail with TC_ETOOBIG */
};

/* Makes an empty buffer that will hold at most |max| bytes. */
void	tc_buf_init(struct tc_buf *b, size_t max);

/* Frees the data and leaves an empty buffer with the same cap. */
void	tc_buf_release(struct tc_buf *b);

/* Forgets the contents, keeps the memory. */
void	tc_buf_reset(struct tc_buf *b);

/* Returns 0, TC_ETOOBIG (nothing appended) or TC_ENOMEM. */
int	tc_buf_append_grow(struct tc_buf *b, const void *p, size_t n);

/*
 * Appends |n| bytes.  Inline for the common case of a buffer with room:
 * listings append a few bytes at a time, thousands of times.  A buffer has
 * room only within its cap (alloc never passes max + 1).
 */
static inline int
tc_buf_append(struct tc_buf *b, const void *p, size_t n)
{
	if (b->alloc - b->len <= n || b->data == NULL)
		return tc_buf_append_grow(b, p, n);
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

static inline int
tc_buf_append_str(struct tc_buf *b, const char *s)
{
	return tc_buf_append(b, s, strlen(s));
}

int	tc_buf_printf(struct tc_buf *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * Appends |n| bytes of text, replacing each ill-formed UTF-8 sequence with
 * U+FFFD, so the result can always be sent as a JSON string.  NUL bytes are
 * replaced too.  Returns as tc_buf_append().
 */
int	tc_buf_append_utf8(struct tc_buf *b, const void *p, size_t n);

/* Makes room for |n| more bytes without changing the length.  Data of
 * 4 MiB or more is advised to use transparent huge pages (buf.c). */
int	tc_buf_reserve(struct tc_buf *b, size_t n);

/*
 * Returns the data and leaves |b| empty; the caller frees the result.
 * Never returns NULL: an empty buffer yields an empty string.
 */
char   *tc_buf_steal(struct tc_buf *b);

/*
 * Returns the length of the longest prefix of |p| (at most |n| bytes) that
 * is whole, well-formed UTF-8: a cut never splits a character.
 */
size_t	tc_utf8_prefix(const void *p, size_t n);

/* Returns 1 if |p| holds only well-formed UTF-8 without NUL, else 0. */
int	tc_utf8_valid(const void *p, size_t n);

/*
 * Decodes the character at |p| (at most |n| bytes, |n| at least 1).
 * Returns its length in bytes with *|cp| set, or 0 if the bytes there are
 * ill-formed (or NUL, or cut off by |n|); then *|bad|, if |bad| is not
 * NULL, is the length of the maximal ill-formed subpart, which stands for
 * one U+FFFD.
 */
size_t	tc_utf8_decode(const void *p, size_t n, uint32_t *cp, size_t *bad);

/* Returns the value of the hex digit |c| (either case), or -1. */
int	tc_hex_digit(int c);

#endif /* TC_BUF_H */
