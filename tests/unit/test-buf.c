/*
 * test-buf.c: capped buffers, and UTF-8 checking and repair (each maximal
 * ill-formed subpart becomes one U+FFFD, Unicode §3.9).
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "tap.h"

#define R	"\xef\xbf\xbd"		/* U+FFFD */

struct utf8_case {
	const char	*name;
	const char	*in;
	size_t		 len;		/* 0: strlen(in) */
	const char	*out;		/* after tc_buf_append_utf8() */
	size_t		 prefix;	/* tc_utf8_prefix() */
};

static const struct utf8_case utf8_cases[] = {
	{ "empty", "", 0, "", 0 },
	{ "ASCII", "plain text", 0, "plain text", 10 },
	{ "2, 3 and 4-byte characters",
	    "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0,
	    "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 12 },
	{ "boundaries U+0080 U+07FF U+0800 U+D7FF",
	    "\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf", 0,
	    "\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf", 10 },
	{ "boundaries U+E000 U+FFFF U+10000 U+10FFFF",
	    "\xee\x80\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 0,
	    "\xee\x80\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 14 },
	{ "overlong C0 80", "\xc0\x80", 0, R R, 0 },
	{ "overlong C1 BF", "a\xc1\xbf", 0, "a" R R, 1 },
	{ "overlong E0 80 80", "\xe0\x80\x80", 0, R R R, 0 },
	{ "overlong E0 9F BF", "\xe0\x9f\xbf", 0, R R R, 0 },
	{ "overlong F0 8F BF BF", "\xf0\x8f\xbf\xbf", 0, R R R R, 0 },
	{ "surrogate ED A0 80", "x\xed\xa0\x80y", 0, "x" R R R "y", 1 },
	{ "surrogate ED BF BF", "\xed\xbf\xbf", 0, R R R, 0 },
	{ "past U+10FFFF: F4 90 80 80", "\xf4\x90\x80\x80", 0, R R R R, 0 },
	{ "F5 lead", "\xf5\x80\x80\x80", 0, R R R R, 0 },
	{ "FE and FF", "\xfe\xff", 0, R R, 0 },
	{ "truncated 2-byte at the end", "ab\xc3", 0, "ab" R, 2 },
	{ "truncated 3-byte at the end", "ab\xe2\x82", 0, "ab" R, 2 },
	{ "truncated 4-byte at the end", "ab\xf0\x9f\x98", 0, "ab" R, 2 },
	{ "truncated 3-byte before ASCII", "\xe2\x82x", 0, R "x", 0 },
	{ "truncated 4-byte before ASCII", "\xf0\x9f\x98x", 0, R "x", 0 },
	{ "NUL byte", "a\0b", 3, "a" R "b", 1 },
	{ "lone NUL", "\0", 1, R, 0 },
	{ "lone continuation byte", "\x80", 0, R, 0 },
	{ "two continuation bytes", "a\x80\xbf" "b", 0, "a" R R "b", 1 },
	{ "Unicode table 3-8", "\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80"
	    "\xbf\x64", 0, "a" R R R "b" R "c" R R "d", 1 },
	{ "Unicode table 3-9 (overlongs)", "\xc0\xaf\xe0\x80\xbf\xf0\x81\x82"
	    "\x41", 0, R R R R R R R R "A", 0 },
	{ "Unicode table 3-10 (surrogates)", "\xed\xa0\x80\xed\xbf\xbf\xed"
	    "\xaf\x41", 0, R R R R R R R R "A", 0 },
	{ "Unicode table 3-11 (past U+10FFFF)", "\xf4\x91\x92\x93\xff\x41"
	    "\x80\xbf\x42", 0, R R R R R "A" R R "B", 0 },
	{ "Unicode table 3-12 (truncations)", "\xe1\x80\xe2\xf0\x91\x92\xf1"
	    "\xbf\x41", 0, R R R R "A", 0 },
};

static void
test_caps(void)
{
	struct tc_buf b;
	char *s;

	tc_buf_init(&b, 8);
	ok(b.data == NULL && b.len == 0 && b.max == 8, "init: empty");
	is_int(tc_buf_append(&b, "abcde", 5), 0, "append within the cap");
	is_int(tc_buf_append(&b, "fghi", 4), TC_ETOOBIG, "append past the cap");
	is_int(b.len, 5, "nothing appended past the cap");
	is_str(b.data, "abcde", "contents unchanged past the cap");
	is_int(tc_buf_append(&b, "fgh", 3), 0, "append up to the cap exactly");
	is_str(b.data, "abcdefgh", "the buffer is full");
	is_int(tc_buf_append(&b, "", 0), 0, "empty append to a full buffer");
	is_int(tc_buf_append(&b, "x", 1), TC_ETOOBIG, "one byte too many");
	is_int(tc_buf_reserve(&b, 1), TC_ETOOBIG, "reserve past the cap");
	is_int(tc_buf_reserve(&b, (size_t)-1), TC_ETOOBIG,
	    "reserve of SIZE_MAX");
	is_int(b.len, 8, "length kept");

	tc_buf_reset(&b);
	ok(b.len == 0 && b.data != NULL && b.data[0] == '\0',
	    "reset: empty string, memory kept");
	is_int(tc_buf_append_str(&b, "hi"), 0, "append_str");
	is_str(b.data, "hi", "append_str contents");
	tc_buf_release(&b);
	ok(b.data == NULL && b.len == 0 && b.max == 8,
	    "release: empty, same cap");

	tc_buf_init(&b, 0);
	is_int(tc_buf_append(&b, "", 0), 0, "zero cap: empty append");
	is_int(tc_buf_append(&b, "a", 1), TC_ETOOBIG, "zero cap: one byte");
	s = tc_buf_steal(&b);
	is_str(s, "", "zero cap: steal gives an empty string");
	free(s);

	/* No cap at all: SIZE_MAX, whose "max + 1" is 0. */
	tc_buf_init(&b, SIZE_MAX);
	for (size_t i = 0; i < 1000; i++)
		if (tc_buf_append(&b, "0123456789", 10) != 0)
			break;
	is_int(b.len, 10000, "SIZE_MAX cap: 10,000 bytes appended");
	ok(b.alloc > b.len && b.data[9990] == '0' && b.data[9999] == '9' &&
	    b.data[10000] == '\0', "SIZE_MAX cap: grown, contents kept");
	b.len = SIZE_MAX - 3;	/* only the arithmetic is looked at */
	is_int(tc_buf_reserve(&b, 3), TC_ETOOBIG,
	    "SIZE_MAX cap: no room for the NUL after SIZE_MAX bytes");
	b.len = 10000;
	tc_buf_release(&b);
}

static void
test_printf(void)
{
	struct tc_buf b;

	tc_buf_init(&b, 16);
	is_int(tc_buf_printf(&b, "%d-%s", 42, "x"), 0, "printf");
	is_str(b.data, "42-x", "printf contents");
	is_int(tc_buf_printf(&b, "[%zu]", (size_t)7), 0, "printf appends");
	is_str(b.data, "42-x[7]", "printf appended");
	is_int(tc_buf_printf(&b, "%s", "0123456789"), TC_ETOOBIG,
	    "printf past the cap");
	is_str(b.data, "42-x[7]", "printf past the cap appends nothing");
	is_int(b.len, 7, "printf past the cap keeps the length");
	is_int(tc_buf_printf(&b, "%09d", 0), 0, "printf up to the cap");
	is_int(b.len, 16, "printf filled the buffer");
	tc_buf_release(&b);
}

static void
test_steal(void)
{
	struct tc_buf b;
	char *s;

	tc_buf_init(&b, 100);
	tc_buf_append_str(&b, "owned");
	s = tc_buf_steal(&b);
	is_str(s, "owned", "steal returns the data");
	ok(b.data == NULL && b.len == 0 && b.alloc == 0,
	    "steal leaves the buffer empty");
	is_int(b.max, 100, "steal keeps the cap");
	free(s);
	s = tc_buf_steal(&b);
	ok(s != NULL, "steal of an empty buffer is not NULL");
	is_str(s, "", "steal of an empty buffer gives \"\"");
	free(s);
	is_int(tc_buf_append_str(&b, "again"), 0, "usable after steal");
	tc_buf_release(&b);
}

static void
test_utf8_case(const struct utf8_case *c)
{
	size_t n = c->len ? c->len : strlen(c->in);
	int valid = strcmp(c->in, c->out) == 0 && c->len == 0;
	struct tc_buf b;

	is_int(tc_utf8_valid(c->in, n), valid, "%s: valid is %d", c->name,
	    valid);
	is_int(tc_utf8_prefix(c->in, n), c->prefix, "%s: prefix", c->name);
	tc_buf_init(&b, 1024);
	is_int(tc_buf_append_utf8(&b, c->in, n), 0, "%s: append", c->name);
	is_str(b.data ? b.data : "", c->out, "%s: repaired", c->name);
	is_int(tc_utf8_valid(b.data, b.len), 1, "%s: repaired is valid",
	    c->name);
	tc_buf_release(&b);
}

static void
test_utf8(void)
{
	static const char euro[] = "ab\xe2\x82\xac";
	struct tc_buf b;
	size_t i;

	for (i = 0; i < TC_NITEMS(utf8_cases); i++)
		test_utf8_case(&utf8_cases[i]);

	/* A prefix never splits a character. */
	is_int(tc_utf8_prefix(euro, 3), 2, "prefix cut inside U+20AC");
	is_int(tc_utf8_prefix(euro, 4), 2, "prefix cut inside U+20AC (2)");
	is_int(tc_utf8_prefix(euro, 5), 5, "prefix with all of U+20AC");
	is_int(tc_utf8_valid(euro, 4), 0, "cut character is not valid");

	/* The repair respects the cap like any append. */
	tc_buf_init(&b, 5);
	is_int(tc_buf_append_utf8(&b, "abc\xff", 4), TC_ETOOBIG,
	    "utf8 append that grows past the cap");
	is_int(b.len, 0, "utf8 append past the cap appends nothing");
	tc_buf_release(&b);
	tc_buf_init(&b, 6);
	is_int(tc_buf_append_utf8(&b, "abc\xff", 4), 0,
	    "utf8 append up to the cap");
	is_str(b.data, "abc" R, "utf8 append up to the cap: contents");
	tc_buf_release(&b);
}

/*
 * Every case again at each offset of a longer ASCII text, so that the scan
 * that takes eight bytes at a time meets it on and across every word edge.
 */
static void
test_utf8_offsets(void)
{
	char in[64], want[128];
	size_t i, k, n, wrong = 0, tried = 0;
	const struct utf8_case *c;
	struct tc_buf b;
	int valid;

	for (i = 0; i < TC_NITEMS(utf8_cases); i++) {
		c = &utf8_cases[i];
		n = c->len ? c->len : strlen(c->in);
		valid = strcmp(c->in, c->out) == 0 && c->len == 0;
		for (k = 0; k < 16; k++) {
			memset(in, 'x', k);
			memcpy(in + k, c->in, n);
			memset(in + k + n, 'y', 13);
			snprintf(want, sizeof(want), "%.*s%s%.13s", (int)k,
			    in, c->out, "yyyyyyyyyyyyy");
			tc_buf_init(&b, 1024);
			tried++;
			if (tc_utf8_prefix(in, k + n + 13) !=
			    (valid ? k + n + 13 : k + c->prefix) ||
			    tc_utf8_valid(in, k + n + 13) != valid ||
			    tc_buf_append_utf8(&b, in, k + n + 13) != 0 ||
			    strcmp(b.data, want) != 0) {
				if (wrong++ == 0)
					printf("# first wrong: %s at offset "
					    "%zu\n", c->name, k);
			}
			tc_buf_release(&b);
		}
	}
	is_int(wrong, 0, "every UTF-8 case at 16 offsets in a longer "
	    "text (%zu)", tried);
}

/* tc_hex_digit() against strchr() on every byte value. */
static void
test_hex_digit(void)
{
	static const char lower[] = "0123456789abcdef";
	static const char upper[] = "0123456789ABCDEF";
	const char *at;
	int c, want, bad = 0;

	for (c = 0; c < 256; c++) {
		want = -1;
		if (c != 0 && (at = strchr(lower, c)) != NULL)
			want = (int)(at - lower);
		else if (c != 0 && (at = strchr(upper, c)) != NULL)
			want = (int)(at - upper);
		if (tc_hex_digit(c) != want)
			bad++;
	}
	is_int(bad, 0, "tc_hex_digit: every byte value, 22 of them digits");
}

/*
 * The VmFlags of the mapping that holds |p|, from /proc/self/smaps, into
 * |flags|; 0 if found.
 */
static int
vm_flags(const void *p, char *flags, size_t size)
{
	unsigned long lo, hi, at = (unsigned long)(uintptr_t)p;
	char line[512];
	int in = 0, found = -1;
	FILE *f;

	if ((f = fopen("/proc/self/smaps", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* A mapping's first line; its fields' names are not hex
		 * digits and a dash. */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = at >= lo && at < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(flags, size, "%.*s", (int)(size - 1),
			    line + 8);
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * A buffer grown to 4 MiB or more asks for transparent huge pages on the
 * whole mapping its data lies on ("hg" in VmFlags), and a smaller one
 * does not; the data stays whole through the growth.
 */
static void
test_huge(void)
{
	static char page[4096];
	struct tc_buf b;
	char flags[512];
	size_t i, bad = 0;

	tc_buf_init(&b, SIZE_MAX);
	ok(tc_buf_reserve(&b, 1u << 20) == 0, "reserve 1 MiB");
	if (vm_flags(b.data, flags, sizeof(flags)) != 0) {
		skip("no /proc/self/smaps");
		tc_buf_release(&b);
		return;
	}
	ok(strstr(flags, " hg") == NULL, "1 MiB: no huge page advice (%s)",
	    flags);
	for (i = 0; i < (9u << 20) / 4096; i++) {
		page[0] = (char)(i & 0xff);
		if (tc_buf_append(&b, page, sizeof(page)) != 0)
			break;
	}
	ok(b.len == 9u << 20, "9 MiB appended");
	for (i = 0; i < b.len; i += 4096)
		bad += (unsigned char)b.data[i] != (i / 4096 & 0xff);
	is_int((int)bad, 0, "the data is whole after each growth");
	ok(vm_flags(b.data, flags, sizeof(flags)) == 0 &&
	    strstr(flags, " hg") != NULL, "9 MiB: huge pages advised (%s)",
	    flags);
	ok(vm_flags(b.data + b.len - 1, flags, sizeof(flags)) == 0 &&
	    strstr(flags, " hg") != NULL, "its last byte's mapping too");
	tc_buf_release(&b);
}

/*
 * Once a freed mapped block has raised glibc's threshold for mapping
 * large blocks, a buffer of 5 MiB lies on the heap: no advice there,
 * which would reach the heap's other memory too.
 */
static void
test_huge_heap(void)
{
	struct tc_buf b;
	char flags[512];
	void *big;

	if ((big = malloc(24u << 20)) == NULL) {
		ok(0, "24 MiB for the threshold");
		return;
	}
	memset(big, 1, 4096);
	free(big);
	tc_buf_init(&b, SIZE_MAX);
	ok(tc_buf_reserve(&b, 5u << 20) == 0, "reserve 5 MiB");
	if ((uintptr_t)b.data >= (uintptr_t)sbrk(0)) {
		skip("the C library mapped 5 MiB by itself here: no block on "
		    "the heap to check");
		tc_buf_release(&b);
		return;
	}
	ok(vm_flags(b.data, flags, sizeof(flags)) == 0 &&
	    strstr(flags, " hg") == NULL, "5 MiB on the heap: no huge page "
	    "advice on the heap (%s)", flags);
	tc_buf_release(&b);
}

int
main(void)
{
	test_caps();
	test_printf();
	test_steal();
	test_utf8();
	test_utf8_offsets();
	test_hex_digit();
	test_huge();
	test_huge_heap();
	return done_testing();
}
