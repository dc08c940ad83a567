/* log.c: one line per message on stderr, written with a single write(2). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

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

static void
vlog(const char *tag, const char *fmt, va_list ap)
{
	char line[1024];
	int n, m;
	int saved = errno;

	n = snprintf(line, sizeof(line), "%s: %s", progname, tag);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* Best effort: a closed stderr must not stop the server. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
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
