/* log.c: one line per message on stderr, written with a single write(2). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "text.h"

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

/*
 * Writes "prog: <tag><message>\n".  The message often holds what a client
 * or a model sent (a client's name, a path): it is shown escaped
 * (text.h), so that no control character, terminal escape sequence or
 * reordering mark reaches the terminal as such, and one message is one
 * line.  Too long a message is cut on a character boundary, marked.
 */
static void
vlog(const char *tag, const char *fmt, va_list ap)
{
	char msg[2048], line[3072];
	size_t n;
	int saved = errno;

	tc_text_vfmt(msg, sizeof(msg), fmt, ap);
	n = tc_text_fmt(line, sizeof(line) - 1, "%s: %s", progname, tag);
	tc_text_show(line + n, sizeof(line) - 1 - n, msg, TC_SHOW_BYTES);
	n += strlen(line + n);
	line[n++] = '\n';
	/* Best effort: a closed stderr must not stop the server. */
	if (write(STDERR_FILENO, line, n) < 0)
		errno = saved;
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
