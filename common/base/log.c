/* log.c: one line per message on stderr, written with a single write(2). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/log.h"
#include "base/text.h"

static const char *progname = "toolcell";
static enum tc_log_level maxlevel = TC_LOG_INFO;

void
tc_log_init(const char *name, enum tc_log_level level)
{
	progname = name;
	maxlevel = level;
}

const char *
tc_log_progname(void)
{
	return progname;
}

/* The longest line written: a message naming two paths, each shown with
 * every byte escaped. */
#define LINE_MAX_BYTES	(4 * TC_DIAG_MAX + 256)

/*
 * Writes "prog: <tag><message>\n".  The message often holds what a client
 * or a model sent (a client's name, a path): it is shown escaped
 * (text.h), so that no control character, terminal escape sequence or
 * reordering mark reaches the terminal as such, and one message is one
 * line.  A message naming long paths is written whole: only one longer
 * than LINE_MAX_BYTES once shown (or one that finds no memory) is cut on a
 * character boundary, marked.
 */
static void
vlog(const char *tag, const char *fmt, va_list ap)
{
	char small[2048], line[3072], *msg = small, *big = NULL;
	struct tc_buf b;
	va_list aq;
	size_t n;
	int saved = errno, len;

	va_copy(aq, ap);
	len = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (len >= (int)sizeof(small)) {
		va_copy(aq, ap);
		if (vasprintf(&big, fmt, aq) >= 0)
			msg = big;
		else {
			big = NULL;
			tc_text_vfmt(small, sizeof(small), fmt, ap);
		}
		va_end(aq);
	}
	tc_buf_init(&b, LINE_MAX_BYTES);
	if (tc_buf_printf(&b, "%s: %s", progname, tag) == 0 &&
	    tc_buf_append_shown(&b, msg, strlen(msg), TC_SHOW_BYTES) == 0 &&
	    tc_buf_append(&b, "\n", 1) == 0) {
		/* Best effort: a closed stderr must not stop the server. */
		if (write(STDERR_FILENO, b.data, b.len) < 0)
			errno = saved;
	} else {
		n = tc_text_fmt(line, sizeof(line) - 1, "%s: %s", progname,
		    tag);
		tc_text_show(line + n, sizeof(line) - 1 - n, msg,
		    TC_SHOW_BYTES);
		n += strlen(line + n);
		line[n++] = '\n';
		if (write(STDERR_FILENO, line, n) < 0)
			errno = saved;
	}
	tc_buf_release(&b);
	free(big);
	errno = saved;
}

void
tc_log(enum tc_log_level level, const char *fmt, ...)
{
	static const char *tags[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;

	if (level > maxlevel)
		return;
	va_start(ap, fmt);
	vlog(tags[level], fmt, ap);
	va_end(ap);
}

void
tc_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
	exit(1);
}

void
tc_bug(const char *file, int line, const char *fmt, ...)
{
	char where[256];
	va_list ap;

	snprintf(where, sizeof(where), "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vlog(where, fmt, ap);
	va_end(ap);
	abort();
}
