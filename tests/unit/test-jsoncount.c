/*
 * test-jsoncount.c: the scan that steps over plain bytes sixteen or eight
 * at a time (json.h's tc_json_plain_end(), with and without stopping at
 * bytes from 0x80 up) and what is built on it, each against a
 * byte-by-byte reading of its own here: json.c's writing of a string
 * (tc_json_put_string(), tc_json_string_len()), and shell_run.c's count
 * of a stream's JSON size (plain_run(), fit(), and count_some() as output
 * comes in reads cut anywhere, the rest by whole_cost()).
 *
 * shell_run.c is included, not linked, for its static functions.  Every
 * input is copied into a block of exactly its size, at each alignment, so
 * that the sanitizer build sees a read past its end.
 */
#include <ctype.h>
#include <stdlib.h>

#include "shell_run.c"

#include "tap.h"

#define OFFSETS		41	/* a byte at each: two vectors, a word, one */
#define RANDOM_CASES	20000

/* A JSON string's text of |n| bytes at |s|, a byte at a time, as
 * tc_json_put_string() escapes: quote, backslash, control bytes. */
static void
ref_put(struct tc_buf *b, const unsigned char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char esc[7];
	size_t i;

	(void)tc_buf_append(b, "\"", 1);
	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '"':	(void)tc_buf_append(b, "\\\"", 2);	break;
		case '\\':	(void)tc_buf_append(b, "\\\\", 2);	break;
		case '\b':	(void)tc_buf_append(b, "\\b", 2);	break;
		case '\f':	(void)tc_buf_append(b, "\\f", 2);	break;
		case '\n':	(void)tc_buf_append(b, "\\n", 2);	break;
		case '\r':	(void)tc_buf_append(b, "\\r", 2);	break;
		case '\t':	(void)tc_buf_append(b, "\\t", 2);	break;
		default:
			if (s[i] < 0x20) {
				snprintf(esc, sizeof(esc), "\\u00%c%c",
				    hex[s[i] >> 4], hex[s[i] & 15]);
				(void)tc_buf_append(b, esc, 6);
			} else
				(void)tc_buf_append(b, (const char *)s + i,
				    1);
		}
	}
	(void)tc_buf_append(b, "\"", 1);
}

/* What the result holds of |n| bytes: each ill-formed part (and NUL) a
 * U+FFFD, as add_stream() writes them; its escaped size, quotes off. */
static size_t
ref_cost(const unsigned char *s, size_t n, int *clean)
{
	struct tc_buf t, j;
	size_t len;

	tc_buf_init(&t, (size_t)-1);
	tc_buf_init(&j, (size_t)-1);
	(void)tc_buf_append_utf8(&t, s, n);
	ref_put(&j, (const unsigned char *)(t.data != NULL ? t.data : ""),
	    t.len);
	len = j.len - 2;
	*clean = tc_utf8_valid(s, n);
	tc_buf_release(&t);
	tc_buf_release(&j);
	return len;
}

/* tc_json_plain_end() a byte at a time: the first byte a JSON string
 * cannot hold as it is, or with |high| the first from 0x80 up too. */
static size_t
ref_plain_end(const unsigned char *s, size_t n, int high)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] == '"' || s[i] == '\\' ||
		    (high && s[i] >= 0x80))
			break;
	return i;
}

/* plain_run() a byte at a time: plain ASCII, or a whole character of
 * more than one byte. */
static size_t
ref_plain_run(const unsigned char *s, size_t n)
{
	size_t i = 0, len, bad;
	uint32_t cp;

	while (i < n) {
		if (s[i] < 0x80) {
			if (s[i] < 0x20 || s[i] == '"' || s[i] == '\\')
				break;
			i++;
		} else if ((len = tc_utf8_decode(s + i, n - i, &cp,
		    &bad)) != 0)
			i += len;
		else
			break;
	}
	return i;
}

/* Where tc_json_scan() ends the JSON string at |p| (NULL: not one), a
 * byte at a time. */
static const unsigned char *
ref_scan(const unsigned char *p, const unsigned char *e)
{
	int i;

	if (p >= e || *p != '"')
		return NULL;
	for (p++; p < e; p++) {
		if (*p < 0x20)
			return NULL;
		if (*p == '"')
			return p + 1;
		if (*p != '\\')
			continue;
		if (++p >= e)
			return NULL;
		if (*p == 'u') {
			for (i = 0; i < 4; i++)
				if (++p >= e || !isxdigit(*p))
					return NULL;
		} else if (strchr("\"\\/bfnrt", *p) == NULL || *p == '\0')
			return NULL;
	}
	return NULL;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned
next(unsigned mod)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % mod);
}

/* Fills |s| with |n| bytes, mostly text: long plain runs, the bytes that
 * need escapes, characters of two to four bytes and their cut or wrong
 * forms, U+2028, NUL, and anything at all. */
static void
fill(unsigned char *s, size_t n)
{
	static const char *const pieces[] = {
		"\xc3\xa9", "\xe2\x80\xa6", "\xe2\x80\xa8", "\xe2\x80\xa9",
		"\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf",
		"\xed\xa0\x80", "\xe0\x80\xaf", "\xc0\xaf", "\xf4\x90\x80\x80",
		"\xe2\x82", "\xf0\x9f\x98", "\x80", "\xbf\xbf", "\xff",
		"\n", "\"", "\\", "\t", "\x01", "\x1f", "\x7f", "",
	};
	const char *p;
	size_t i = 0, k, len;

	while (i < n) {
		switch (next(6)) {
		case 0:
		case 1:
			/* A plain run, up to 3 vectors long. */
			for (k = next(48); k > 0 && i < n; k--)
				s[i++] = (unsigned char)('a' + next(26));
			break;
		case 2:
		case 3:
			p = pieces[next(TC_NITEMS(pieces))];
			len = *p != '\0' ? strlen(p) : 1;
			for (k = 0; k < len && i < n; k++)
				s[i++] = (unsigned char)p[k];
			break;
		default:
			s[i++] = (unsigned char)next(256);
			break;
		}
	}
}

static size_t wrong_end, wrong_put, wrong_len, wrong_run, wrong_fit, wrong_clean,
    wrong_scan, tried;

/* Checks json.c's and shell_run.c's scans of |n| bytes at |src|, copied
 * into a block of exactly |n| bytes, and that many again at each
 * alignment of a vector (|align| of them). */
static void
check(const unsigned char *src, size_t n, int align, const char *what)
{
	unsigned char *blk;
	struct tc_buf got, want;
	size_t run, cost, want_cost, end;
	int a, clean, want_clean, high;

	want_cost = ref_cost(src, n, &want_clean);
	tc_buf_init(&want, (size_t)-1);
	ref_put(&want, src, n);
	for (a = 0; a < align; a++) {
		/* The block's end is the input's: a read past it is the
		 * sanitizer's. */
		if ((blk = malloc((size_t)a + n > 0 ? (size_t)a + n : 1)) ==
		    NULL)
			abort();
		memcpy(blk + a, src, n);
		tried++;

		for (high = 0; high <= 1; high++) {
			end = (size_t)(tc_json_plain_end((const char *)blk +
			    a, (const char *)blk + a + n, high) -
			    ((const char *)blk + a));
			if (end != ref_plain_end(src, n, high) &&
			    wrong_end++ == 0)
				printf("# plain_end: first wrong: %s, high %d, "
				    "%zu for %zu\n", what, high, end,
				    ref_plain_end(src, n, high));
		}
		tc_buf_init(&got, (size_t)-1);
		if (tc_json_put_string(&got, (const char *)blk + a, n) != 0 ||
		    got.len != want.len ||
		    memcmp(got.data, want.data, want.len) != 0) {
			if (wrong_put++ == 0)
				printf("# put: first wrong: %s, %zu bytes at "
				    "%d\n", what, n, a);
		}
		tc_buf_release(&got);
		if (tc_json_string_len((const char *)blk + a, n) != want.len &&
		    wrong_len++ == 0)
			printf("# len: first wrong: %s\n", what);

		run = plain_run((const char *)blk + a, n);
		if (run != ref_plain_run(src, n) && wrong_run++ == 0)
			printf("# plain_run: first wrong: %s, %zu for %zu\n",
			    what, run, ref_plain_run(src, n));
		if (fit((const char *)blk + a, n, SIZE_MAX, 1, 0, &cost,
		    &clean) != n || cost != want_cost) {
			if (wrong_fit++ == 0)
				printf("# fit: first wrong: %s, %zu for %zu\n",
				    what, cost, want_cost);
		}
		if (clean != want_clean && wrong_clean++ == 0)
			printf("# clean: first wrong: %s\n", what);
		free(blk);

		/* Scanned: the string written, and the bytes between quotes
		 * as they are, each in a block of exactly its size. */
		if ((blk = malloc((size_t)a + want.len + 2)) == NULL)
			abort();
		memcpy(blk + a, want.data, want.len);
		if (tc_json_scan((const char *)blk + a, (const char *)blk + a +
		    want.len, 0) != (const char *)blk + a + want.len &&
		    wrong_scan++ == 0)
			printf("# scan of put: first wrong: %s\n", what);
		blk[a] = '"';
		memcpy(blk + a + 1, src, n);
		blk[a + 1 + n] = '"';
		if ((const unsigned char *)tc_json_scan((const char *)blk + a,
		    (const char *)blk + a + n + 2, 0) != ref_scan(blk + a,
		    blk + a + n + 2) && wrong_scan++ == 0)
			printf("# scan: first wrong: %s\n", what);
		free(blk);
	}
	tc_buf_release(&want);
}

/*
 * Counts |n| bytes at |src| as drain() does: kept in reads of the sizes
 * |cuts| gives (each at least 1; the last read takes the rest), each
 * counted by count_some(), the rest by whole_cost().  Returns 1 if the
 * count and clean are what the whole says.
 */
static int
count_in_reads(const unsigned char *src, size_t n, const size_t *cuts,
    size_t ncuts, size_t cap)
{
	struct shell_exec x;
	struct run r;
	struct stream *s = &r.out[0];
	size_t at = 0, k, i, keep, want_cost;
	int want_clean, good;

	memset(&x, 0, sizeof(x));
	memset(&r, 0, sizeof(r));
	r.x = &x;
	tc_buf_init(&s->kept, cap);
	tc_buf_init(&r.out[1].kept, cap);
	for (i = 0; at < n; i++) {
		k = i < ncuts && cuts[i] < n - at ? cuts[i] : n - at;
		keep = s->kept.max - s->kept.len;
		if (keep > k)
			keep = k;
		if (keep > 0 && tc_buf_append(&s->kept, src + at, keep) != 0)
			abort();
		s->total += k;
		count_some(&r, s);
		at += k;
	}
	keep = s->kept.len;
	want_cost = ref_cost(src, keep, &want_clean);
	good = whole_cost(&r, 0, 1) == want_cost &&
	    s->clean == want_clean;
	tc_buf_release(&s->kept);
	tc_buf_release(&r.out[1].kept);
	return good;
}

/* Every byte value at every offset of strings of 16 to 48 bytes: each
 * half of a vector, a word, the tail after them. */
static void
test_every_byte(void)
{
	unsigned char s[64];
	char what[64];
	size_t n, pos;
	int c;

	wrong_put = wrong_len = wrong_run = wrong_fit = wrong_clean = 0;
	wrong_scan = wrong_end = 0;
	tried = 0;
	for (n = 16; n <= 48; n += 8)
	for (c = 0; c < 256; c++)
	for (pos = 0; pos < n && pos < OFFSETS; pos++) {
		memset(s, 'a', n);
		s[pos] = (unsigned char)c;
		snprintf(what, sizeof(what), "byte %d at %zu of %zu", c, pos,
		    n);
		check(s, n, n == 48 ? 16 : 1, what);
	}
	is_int(wrong_end, 0, "tc_json_plain_end: every byte at every offset, "
	    "with and without high bytes (%zu)", tried);
	is_int(wrong_put, 0, "tc_json_put_string: every byte at every offset "
	    "as a byte-by-byte escape (%zu)", tried);
	is_int(wrong_len, 0, "tc_json_string_len: every byte at every offset");
	is_int(wrong_run, 0, "plain_run: every byte at every offset");
	is_int(wrong_fit, 0, "fit: every byte at every offset costs what its "
	    "text escaped does");
	is_int(wrong_clean, 0, "fit: clean where the bytes are well-formed");
	is_int(wrong_scan, 0, "tc_json_scan: every byte at every offset, "
	    "escaped and as it is");
}

/* A character of 2 to 4 bytes, and a NUL, at each offset of 48 bytes
 * (split across each vector and word boundary), every tail length. */
static void
test_characters(void)
{
	static const char *const chars[] = {
		"\xc3\xa9", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "\xe2\x82",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "\x00",
	};
	unsigned char s[64];
	char what[64];
	size_t n, pos, i, len;

	wrong_put = wrong_len = wrong_run = wrong_fit = wrong_clean = 0;
	wrong_scan = wrong_end = 0;
	tried = 0;
	for (i = 0; i < TC_NITEMS(chars); i++)
	for (n = 1; n <= 48; n++)
	for (pos = 0; pos < n; pos++) {
		len = chars[i][0] != '\0' ? strlen(chars[i]) : 1;
		memset(s, 'b', n);
		memcpy(s + pos, chars[i], pos + len <= n ? len : n - pos);
		snprintf(what, sizeof(what), "char %zu at %zu of %zu", i, pos,
		    n);
		check(s, n, 1, what);
	}
	ok(wrong_end + wrong_put + wrong_len + wrong_run + wrong_fit +
	    wrong_clean + wrong_scan == 0,
	    "every scan: characters, cut ones and NUL at every offset of "
	    "every length to 48 (%zu)", tried);
}

/* Random text, mostly plain, of up to 300 bytes at every alignment. */
static void
test_random(void)
{
	unsigned char s[300];
	char what[64];
	size_t n, i;

	wrong_put = wrong_len = wrong_run = wrong_fit = wrong_clean = 0;
	wrong_scan = wrong_end = 0;
	tried = 0;
	for (i = 0; i < RANDOM_CASES; i++) {
		n = next(sizeof(s) + 1);
		fill(s, n);
		snprintf(what, sizeof(what), "random case %zu", i);
		check(s, n, i % 16 == 0 ? 16 : 1, what);
	}
	is_int(wrong_end + wrong_put + wrong_len + wrong_scan, 0, "json.c: "
	    "random text as a byte-by-byte escape (%zu)", tried);
	is_int(wrong_run + wrong_fit + wrong_clean, 0, "shell_run.c: random "
	    "text counted as its text escaped");
}

/*
 * count_some(): the count of a stream made as it comes, in reads cut at
 * every place (a character split by each), and at random, and under a
 * cap that stops the kept bytes anywhere: the sum is the whole's count.
 */
static void
test_count_reads(void)
{
	static const char text[] = "a\xc3\xa9" "b\xe2\x80\xa8" "c"
	    "\xf0\x9f\x98\x80\n\xe2\x82" "d\x80\x80\xbf" "e\"\\\x00" "f"
	    "\xf0\x9f\x98" "g\xed\xa0\x80" "hh";
	unsigned char s[2000];
	size_t cuts[64], n = sizeof(text) - 1, i, j, k, m, cap, wrong = 0;
	size_t runs = 0;

	/* Two reads, cut at each byte; three, at each pair. */
	for (i = 1; i < n; i++)
	for (j = 0; j < n - i; j++) {
		cuts[0] = i;
		cuts[1] = j > 0 ? j : n;
		runs++;
		if (!count_in_reads((const unsigned char *)text, n, cuts, 2,
		    (size_t)-1) && wrong++ == 0)
			printf("# first wrong: reads of %zu, %zu\n", i, j);
	}
	is_int(wrong, 0, "count_some: a text of every kind of character, in "
	    "reads cut at every place (%zu)", runs);

	/* A byte at a time, and under every cap. */
	for (i = 0; i < 64; i++)
		cuts[i] = 1;
	wrong = 0;
	for (cap = 0; cap <= n; cap++) {
		if (!count_in_reads((const unsigned char *)text, n, cuts, 64,
		    cap) && wrong++ == 0)
			printf("# first wrong: cap %zu\n", cap);
	}
	is_int(wrong, 0, "count_some: a byte a read, and a cap at every "
	    "place");

	wrong = 0;
	for (i = 0; i < 3000; i++) {
		m = next(sizeof(s) + 1);
		fill(s, m);
		for (k = 0; k < TC_NITEMS(cuts); k++)
			cuts[k] = 1 + (next(4) == 0 ? next(200) : next(5));
		cap = next(3) == 0 ? next((unsigned)m + 1) : (size_t)-1;
		if (!count_in_reads(s, m, cuts, TC_NITEMS(cuts), cap) &&
		    wrong++ == 0)
			printf("# first wrong: random case %zu\n", i);
	}
	is_int(wrong, 0, "count_some: random text in random reads, with "
	    "random caps");
}

int
main(void)
{
	test_every_byte();
	test_characters();
	test_random();
	test_count_reads();
	return done_testing();
}
