/* text.c: cutting text on character boundaries, and showing it safely. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/text.h"

/* Inclusive ranges of the characters shown escaped, in order: Cc, Cf, Zl
 * and Zp (Unicode 15.1). */
static const struct {
	uint32_t	lo, hi;
} hidden[] = {
	{ 0x0000, 0x001f },	/* C0 controls */
	{ 0x007f, 0x009f },	/* DEL, C1 controls */
	{ 0x00ad, 0x00ad },	/* soft hyphen */
	{ 0x0600, 0x0605 },	/* Arabic number signs */
	{ 0x061c, 0x061c },	/* Arabic letter mark */
	{ 0x06dd, 0x06dd },
	{ 0x070f, 0x070f },
	{ 0x0890, 0x0891 },
	{ 0x08e2, 0x08e2 },
	{ 0x180e, 0x180e },	/* Mongolian vowel separator */
	{ 0x200b, 0x200f },	/* zero width space, ZWNJ, ZWJ, LRM, RLM */
	{ 0x2028, 0x202e },	/* line, paragraph separators; LRE..RLO */
	{ 0x2060, 0x2064 },	/* word joiner, invisible operators */
	{ 0x2066, 0x206f },	/* LRI..PDI, deprecated format characters */
	{ 0xfeff, 0xfeff },	/* BOM, zero width no-break space */
	{ 0xfff9, 0xfffb },	/* interlinear annotation */
	{ 0x110bd, 0x110bd },
	{ 0x110cd, 0x110cd },
	{ 0x13430, 0x1343f },	/* Egyptian hieroglyph format controls */
	{ 0x1bca0, 0x1bca3 },	/* shorthand format controls */
	{ 0x1d173, 0x1d17a },	/* musical symbol format controls */
	{ 0xe0001, 0xe0001 },	/* language tag */
	{ 0xe0020, 0xe007f },	/* tags */
};

int
tc_text_hidden(uint32_t cp)
{
	size_t i;

	if (cp >= 0x20 && cp < 0x7f)
		return 0;
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]) &&
	    hidden[i].lo <= cp; i++)
		if (cp <= hidden[i].hi)
			return 1;
	return 0;
}

size_t
tc_utf8_cut(const void *p, size_t n, size_t max)
{
	const unsigned char *s = p;
	size_t k, len;

	if (n <= max)
		return n;
	/* s[max] is the first byte left out.  When it continues a
	 * character whose lead byte is at most three bytes before, that
	 * character is left out whole.  Whether its last bytes are there
	 * (a chunk of a file may end inside it) does not matter. */
	for (k = max; k > 0 && max - k < 3 && (s[k] & 0xc0) == 0x80; k--)
		continue;
	if (k == max || s[k] < 0xc2 || s[k] > 0xf4)
		return max;
	len = s[k] < 0xe0 ? 2 : s[k] < 0xf0 ? 3 : 4;
	return len > max - k ? k : max;
}

size_t
tc_utf8_whole(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t k, len;

	/* s[k - 1] is the last byte that is not a continuation byte. */
	for (k = n; k > 0 && n - k < 3 && (s[k - 1] & 0xc0) == 0x80; k--)
		continue;
	if (k == 0 || s[k - 1] < 0xc2 || s[k - 1] > 0xf4)
		return n;
	len = s[k - 1] < 0xe0 ? 2 : s[k - 1] < 0xf0 ? 3 : 4;
	return len > n - (k - 1) ? k - 1 : n;
}

#define UNIT_MAX	13	/* "\uD800\uDC00" and a NUL */

/*
 * Writes into |u| how the text at |s| (|n| bytes, at least 1) begins when
 * shown: one character, one escape, or U+FFFD for one ill-formed subpart
 * (\xNN for one byte, with TC_SHOW_BYTES).  Returns its length and sets
 * *|used| to the bytes of |s| it stands for.
 */
static size_t
unit(const unsigned char *s, size_t n, unsigned flags, char *u, size_t *used)
{
	uint32_t cp;
	size_t len, bad;

	if ((len = tc_utf8_decode(s, n, &cp, &bad)) == 0) {
		if (flags & TC_SHOW_BYTES) {
			*used = 1;
			return (size_t)snprintf(u, UNIT_MAX, "\\x%02X", s[0]);
		}
		*used = bad;
		memcpy(u, "\xef\xbf\xbd", 3);
		return 3;
	}
	*used = len;
	if (!tc_text_hidden(cp) || (cp == '\t' && (flags & TC_SHOW_TAB))) {
		memcpy(u, s, len);
		return len;
	}
	if (cp <= 0xffff)
		return (size_t)snprintf(u, UNIT_MAX, "\\u%04X", (unsigned)cp);
	cp -= 0x10000;
	return (size_t)snprintf(u, UNIT_MAX, "\\u%04X\\u%04X",
	    (unsigned)(0xd800 + (cp >> 10)), (unsigned)(0xdc00 + (cp & 0x3ff)));
}

/* Returns the length of the run at |s| (at most |n| bytes) of printable
 * ASCII, which is shown as it is. */
static size_t
plain_run(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i] >= 0x20 && s[i] < 0x7f; i++)
		continue;
	return i;
}

int
tc_buf_append_shown(struct tc_buf *b, const void *p, size_t n,
    unsigned flags)
{
	const unsigned char *s = p;
	char u[UNIT_MAX];
	size_t i = 0, start = b->len, k, used;
	int rc = 0;

	while (i < n && rc == 0) {
		if ((k = plain_run(s + i, n - i)) > 0) {
			rc = tc_buf_append(b, s + i, k);
			i += k;
			continue;
		}
		k = unit(s + i, n - i, flags, u, &used);
		rc = tc_buf_append(b, u, k);
		i += used;
	}
	if (rc != 0 && b->data != NULL) {
		b->len = start;
		b->data[start] = '\0';
	}
	return rc;
}

char *
tc_text_show(char *out, size_t size, const char *s, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0, mark = 0, k, used;
	char u[UNIT_MAX];

	while (i < n) {
		k = unit(p + i, n - i, flags, u, &used);
		if (o + k > size - 1) {
			/* Cut after the last unit that leaves room for the
			 * marker. */
			o = mark;
			if (o + TC_TEXT_CUT_LEN <= size - 1) {
				memcpy(out + o, TC_TEXT_CUT, TC_TEXT_CUT_LEN);
				o += TC_TEXT_CUT_LEN;
			}
			break;
		}
		memcpy(out + o, u, k);
		o += k;
		i += used;
		if (o + TC_TEXT_CUT_LEN <= size - 1)
			mark = o;
	}
	out[o] = '\0';
	return out;
}

size_t
tc_text_vfmt(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t m, k;
	int n;

	if ((n = vsnprintf(buf, size, fmt, ap)) < 0) {
		buf[0] = '\0';
		return 0;
	}
	if ((size_t)n < size)
		return (size_t)n;
	/* vsnprintf() wrote the first size - 1 bytes, maybe ending inside
	 * a character: cut before the room the marker needs, on a
	 * character boundary. */
	m = size - 1;
	if (m < TC_TEXT_CUT_LEN) {
		k = tc_utf8_whole(buf, m);
		buf[k] = '\0';
		return k;
	}
	k = tc_utf8_cut(buf, m, m - TC_TEXT_CUT_LEN);
	memcpy(buf + k, TC_TEXT_CUT, TC_TEXT_CUT_LEN);
	buf[k + TC_TEXT_CUT_LEN] = '\0';
	return k + TC_TEXT_CUT_LEN;
}

size_t
tc_text_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = tc_text_vfmt(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

char *
tc_text_alloc(const char *fmt, ...)
{
	va_list ap;
	char *m;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&m, fmt, ap);
	va_end(ap);
	return rc < 0 ? NULL : m;
}
