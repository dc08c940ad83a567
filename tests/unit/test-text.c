/*
 * test-text.c: cutting text on UTF-8 character boundaries, with a marker,
 * and showing it with controls and format characters escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "tap.h"

#define CUT	TC_TEXT_CUT
#define EURO	"\xe2\x82\xac"		/* U+20AC, 3 bytes */
#define SMILE	"\xf0\x9f\x98\x80"	/* U+1F600, 4 bytes */
#define RLO	"\xe2\x80\xae"		/* U+202E RIGHT-TO-LEFT OVERRIDE */
#define R	"\xef\xbf\xbd"		/* U+FFFD */

static void
test_hidden(void)
{
	static const uint32_t yes[] = {
		0x00, 0x0a, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f, 0xad,
		0x61c, 0x200b, 0x200d, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a,
		0x202e, 0x2060, 0x2066, 0x2069, 0xfeff, 0xfff9, 0x13430,
		0x1343f, 0xe0001, 0xe0041, 0xe007f,
	};
	static const uint32_t no[] = {
		0x20, 0x41, 0x7e, 0xa0, 0xe9, 0x5d0, 0x627, 0x200a, 0x2010,
		0x202f, 0x2165, 0x20ac, 0xfffd, 0x1f600, 0xe0000,
		0xe0080, 0x10ffff,
	};
	size_t i;

	for (i = 0; i < TC_NITEMS(yes); i++)
		ok(tc_text_hidden(yes[i]), "U+%04X is shown escaped",
		    (unsigned)yes[i]);
	for (i = 0; i < TC_NITEMS(no); i++)
		ok(!tc_text_hidden(no[i]), "U+%04X is shown as it is",
		    (unsigned)no[i]);
}

static void
test_cut(void)
{
	const char *s = "ab" EURO "cd" SMILE;	/* 2 + 3 + 2 + 4 = 11 */
	size_t n = strlen(s);

	is_int(tc_utf8_cut(s, n, 20), n, "all of it fits");
	is_int(tc_utf8_cut(s, n, n), n, "exactly fits");
	is_int(tc_utf8_cut(s, n, 2), 2, "before a character");
	is_int(tc_utf8_cut(s, n, 3), 2, "inside a 3-byte one: before it");
	is_int(tc_utf8_cut(s, n, 4), 2, "inside it, later: before it");
	is_int(tc_utf8_cut(s, n, 5), 5, "after it");
	is_int(tc_utf8_cut(s, n, 8), 7, "inside a 4-byte one: before it");
	is_int(tc_utf8_cut(s, n, 10), 7, "at its last byte: before it");
	is_int(tc_utf8_cut(s, n, 0), 0, "nothing");
	/* Ill-formed bytes are characters of their own. */
	is_int(tc_utf8_cut("a\x80\x80\x80\x80z", 6, 3), 3,
	    "stray continuation bytes: cut where asked");
	is_int(tc_utf8_cut("ab\xe2\x82", 4, 3), 2,
	    "a character whose last byte is past n: left out whole");
	is_int(tc_utf8_cut("a\xe2\x82z", 4, 2), 1,
	    "a sequence cut short in the text: left out whole too");
	is_int(tc_utf8_cut("a\xc0\x80z", 4, 2), 2,
	    "after a byte that cannot begin a character: cut where asked");
}

static void
test_whole(void)
{
	is_int(tc_utf8_whole("ab", 2), 2, "whole: ASCII");
	is_int(tc_utf8_whole("ab" EURO, 5), 5, "whole: ends with a character");
	is_int(tc_utf8_whole("ab" EURO, 4), 2, "whole: ends inside one");
	is_int(tc_utf8_whole("ab" EURO, 3), 2, "whole: ends after its lead");
	is_int(tc_utf8_whole("a" SMILE, 4), 1, "whole: 3 of 4 bytes");
	is_int(tc_utf8_whole("a\x80\x80", 3), 3,
	    "whole: stray continuation bytes are kept");
	is_int(tc_utf8_whole("", 0), 0, "whole: empty");
}

static void
test_fmt(void)
{
	char buf[64];
	size_t n;

	n = tc_text_fmt(buf, sizeof(buf), "tool '%s'", "x");
	is_str(buf, "tool 'x'", "a text that fits is as snprintf makes it");
	is_int(n, 8, "and its length is returned");

	/* 8 bytes: 7 of text.  "abcd" EURO would be cut inside EURO by
	 * snprintf; the cut goes before the marker's room, on a
	 * boundary. */
	n = tc_text_fmt(buf, 8, "%s", "abcd" EURO "fgh");
	is_str(buf, "abcd" CUT, "cut before the marker, on a boundary");
	is_int(n, 7, "the length written");
	n = tc_text_fmt(buf, 8, "%s", "abc" EURO "fgh");
	is_str(buf, "abc" CUT, "a 3-byte character across the cut is left "
	    "out whole");
	n = tc_text_fmt(buf, 9, "%s", "ab" SMILE "cdefg");
	is_str(buf, "ab" CUT, "a 4-byte character across the cut is left "
	    "out whole");
	ok(tc_utf8_valid(buf, n), "what is left is valid UTF-8");
	n = tc_text_fmt(buf, 10, "%s", "ab" SMILE "cdefg");
	is_str(buf, "ab" SMILE CUT, "the character kept when it fits");
	n = tc_text_fmt(buf, 3, "%s", EURO EURO);
	is_str(buf, "", "no room for the marker: only whole characters");
	n = tc_text_fmt(buf, 5, "%s", "a" EURO);
	is_str(buf, "a" EURO, "exactly fits: no marker");
	n = tc_text_fmt(buf, 5, "%s", "a" EURO "b");
	is_str(buf, "a" CUT, "one byte too many: cut, with the marker");
	is_int(n, 4, "its length");
}

static void
test_shown(void)
{
	struct tc_buf b;
	char out[64];

	tc_buf_init(&b, 4096);
	ok(tc_buf_append_shown(&b, "evil" RLO "txt.exe", 14, 0) == 0 &&
	    strcmp(b.data, "evil\\u202Etxt.exe") == 0,
	    "a right-to-left override is escaped: %s", b.data);
	tc_buf_reset(&b);
	tc_buf_append_shown(&b, "a\nb\tc\x1b]0;t\x07\r", 12, 0);
	is_str(b.data, "a\\u000Ab\\u0009c\\u001B]0;t\\u0007\\u000D",
	    "newline, tab, ESC, BEL and CR escaped");
	tc_buf_reset(&b);
	tc_buf_append_shown(&b, "a\tb", 3, TC_SHOW_TAB);
	is_str(b.data, "a\tb", "a tab kept with TC_SHOW_TAB");
	tc_buf_reset(&b);
	tc_buf_append_shown(&b, "\xc2\x85\xc2\x9b|\xe2\x80\x8b|\xe2\x81\xa6|"
	    "\xef\xbb\xbf|\xe2\x80\xa8", 20, 0);
	is_str(b.data, "\\u0085\\u009B|\\u200B|\\u2066|\\uFEFF|\\u2028",
	    "C1 controls, ZWSP, LRI, BOM, LS escaped");
	tc_buf_reset(&b);
	tc_buf_append_shown(&b, "\xf3\xa0\x80\x81x", 5, 0);
	is_str(b.data, "\\uDB40\\uDC01x", "U+E0001 as a surrogate pair");
	tc_buf_reset(&b);
	tc_buf_append_shown(&b, "caf\xc3\xa9 " EURO " \xd7\x90", 12, 0);
	is_str(b.data, "caf\xc3\xa9 " EURO " \xd7\x90",
	    "letters of any script are shown as they are");
	tc_buf_reset(&b);
	tc_buf_append_shown(&b, "a\xff" "b\0c", 5, 0);
	is_str(b.data, "a" R "b" R "c", "ill-formed bytes and NUL: U+FFFD");
	tc_buf_reset(&b);
	tc_buf_append_shown(&b, "a\xff" "b\xe2\x82", 5, TC_SHOW_BYTES);
	is_str(b.data, "a\\xFFb\\xE2\\x82", "with TC_SHOW_BYTES: \\xNN");
	tc_buf_release(&b);

	tc_buf_init(&b, 8);
	tc_buf_append_str(&b, "ab");
	is_int(tc_buf_append_shown(&b, "\x1b\x1b", 2, 0), TC_ETOOBIG,
	    "over the cap: TC_ETOOBIG");
	is_str(b.data, "ab", "and nothing appended");
	tc_buf_release(&b);

	is_str(tc_text_show(out, sizeof(out), "x" RLO "y", 0), "x\\u202Ey",
	    "tc_text_show escapes");
	/* 12 bytes: 11 of text; "abcd\u001B" would not fit with the
	 * marker, and an escape is never cut. */
	is_str(tc_text_show(out, 12, "abcd\x1b" "efgh", 0), "abcd" CUT,
	    "an escape is kept whole or left out");
	is_str(tc_text_show(out, 12, "abcdefg" EURO "hi", 0), "abcdefg" CUT,
	    "cut on a character boundary, with the marker");
	is_str(tc_text_show(out, 12, "abcdefgh" EURO, 0), "abcdefgh" EURO,
	    "exactly fits: no marker");
	is_str(tc_text_show(out, 1, "abc", 0), "", "no room at all");
}

int
main(void)
{
	test_hidden();
	test_cut();
	test_whole();
	test_fmt();
	test_shown();
	return done_testing();
}
