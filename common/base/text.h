/*
 * text.h: text that a person or a model reads, cut to fit and made safe
 * to show.
 *
 * Cutting: every text the servers cut (answers, errors, logs, audit
 * records) is cut by tc_utf8_cut(), never inside a UTF-8 character, and,
 * where a person or a model reads it, ends with TC_TEXT_CUT so that a cut
 * text does not pass for a whole one.  tc_text_fmt() is snprintf(3) with
 * that rule.
 *
 * Showing: characters that draw nothing, or that change how the text
 * around them is drawn, are shown escaped, so that "evil<U+202E>txt.exe"
 * cannot read as "evilexe.txt", a name holding a newline cannot pose as
 * two lines, and a client's name cannot send a terminal escape sequence.
 * The set is a principled one, not a list of known tricks: Unicode's
 * general categories Cc (C0 controls, DEL, C1 controls), Cf (format
 * characters: the bidirectional embeddings, overrides and isolates, the
 * marks LRM, RLM and ALM, zero-width spaces and joiners, word joiner and
 * invisible operators, BOM, interlinear annotation, tags, and the rest,
 * as of Unicode 15.1), Zl and Zp (U+2028, U+2029).  Such a character is
 * written as a JSON string escape, \uXXXX with upper-case hex (a surrogate
 * pair past U+FFFF), so that a model that copies the name into a JSON
 * argument names the real file.  What the set leaves as it is: letters
 * that look alike (homoglyphs), combining marks, variation selectors,
 * the Hangul fillers and other spaces; a literal backslash (a name
 * holding "\u202E" as six characters reads as the escape would:
 * structuredContent, which keeps every name as it is, tells them apart).
 *
 * Returns (base/): 0 or a negative TC_E* code (TC_ETOOBIG, TC_ENOMEM);
 * what cuts or formats returns a length or its output buffer.
 */
#ifndef TC_TEXT_H
#define TC_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* What ends a text that was cut: U+2026 HORIZONTAL ELLIPSIS. */
#define TC_TEXT_CUT	"\xe2\x80\xa6"
#define TC_TEXT_CUT_LEN	3

enum tc_show_flags {
	TC_SHOW_TAB	= 1 << 0,	/* tabs as they are */
	TC_SHOW_BYTES	= 1 << 1,	/* ill-formed bytes as \xNN, not
					   U+FFFD (for a terminal) */
};

/* Returns 1 if code point |cp| is one that is shown escaped, else 0. */
int	tc_text_hidden(uint32_t cp);

/*
 * Returns the length of the longest prefix of the |n| bytes at |p| that
 * is at most |max| bytes and does not end inside a UTF-8 character: |n|
 * itself if it is not more than |max|.  A character is its lead byte and
 * the continuation bytes after it, as many as the lead byte says (those
 * past |n| need not be there: |p| may be a chunk of a longer text).  Other
 * bytes count as characters of their own.
 */
size_t	tc_utf8_cut(const void *p, size_t n, size_t max);

/*
 * Returns |n|, less the bytes of a UTF-8 character that the |n| bytes at
 * |p| end inside of: for text read up to a byte limit, whose next bytes
 * are not known.
 */
size_t	tc_utf8_whole(const void *p, size_t n);

/*
 * Appends the |n| bytes at |p| to |b| as text to show: well-formed UTF-8
 * as it is, each character tc_text_hidden() names escaped (tabs kept with
 * TC_SHOW_TAB), each ill-formed subpart and NUL as U+FFFD (as \xNN with
 * TC_SHOW_BYTES).  All or nothing: returns 0, TC_ETOOBIG or TC_ENOMEM, and
 * |b| is unchanged on failure.
 */
int	tc_buf_append_shown(struct tc_buf *b, const void *p, size_t n,
	    unsigned flags);

/*
 * Writes the NUL-terminated text |s| shown as tc_buf_append_shown() shows
 * it into |out| (|size| bytes, at least 1), always NUL-terminated; what
 * does not fit is cut after a whole character or escape and marked with
 * TC_TEXT_CUT.  Returns |out|.
 */
char	*tc_text_show(char *out, size_t size, const char *s, unsigned flags);

/*
 * As snprintf(3), except that a text that does not fit is cut on a
 * character boundary and ends with TC_TEXT_CUT (if |size| leaves room for
 * it).  Returns the length written, never more than |size| - 1; |size|
 * must be at least 1.
 */
size_t	tc_text_fmt(char *buf, size_t size, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
size_t	tc_text_vfmt(char *buf, size_t size, const char *fmt, va_list ap)
	    __attribute__((format(printf, 3, 0)));

/* Returns a new string formatted as printf(3) does (the caller frees
 * it), or NULL when out of memory. */
char	*tc_text_alloc(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));

#endif /* TC_TEXT_H */
