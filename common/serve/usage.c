/* usage.c: what is wrong with a command line, in one line with a hint. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/text.h"
#include "serve/usage.h"

void
tc_usage_verror(const char *fmt, va_list ap)
{
	char msg[1024];

	tc_text_vfmt(msg, sizeof(msg), fmt, ap);
	tc_log(TC_LOG_ERROR, "%s; try '%s --help'", msg, tc_log_progname());
}

void
tc_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_usage_verror(fmt, ap);
	va_end(ap);
}

/*
 * Writes into |out| the long options of |opts| whose names start with
 * |name| (|len| bytes), as "--a, --b"; returns how many there are.
 */
static int
matches(const struct option *opts, const char *name, size_t len, char *out,
    size_t size)
{
	const struct option *o;
	size_t n = 0;
	int count = 0;

	out[0] = '\0';
	for (o = opts; o->name != NULL; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (n < size)
			n += (size_t)snprintf(out + n, size - n, "%s--%s",
			    count > 0 ? ", " : "", o->name);
		count++;
	}
	return count;
}

/* Returns the long option of |opts| named by the |len| bytes at |name|. */
static const struct option *
long_option(const struct option *opts, const char *name, size_t len)
{
	const struct option *o;

	for (o = opts; o->name != NULL; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

void
tc_usage_bad_option(const char *cmd, int ch, char *const argv[],
    const struct option *opts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const char *pre = cmd != NULL ? cmd : "", *sep = cmd != NULL ?
	    ": " : "";
	const struct option *o = NULL;
	char which[256];
	size_t len = 0;
	int islong;

	/*
	 * A long option is the whole argument just taken, so argv[optind -
	 * 1] names it; a short one may sit in a cluster ("-wx") that
	 * getopt_long() has not finished with, so optopt names it.  An
	 * unknown long option leaves optopt 0; one given a value it does
	 * not take leaves its val there.
	 */
	islong = strncmp(arg, "--", 2) == 0;
	if (islong) {
		arg += 2;
		len = strcspn(arg, "=");
		o = long_option(opts, arg, len);
	}
	if (ch == ':' && islong)
		tc_usage_error("%s%soption '--%.*s' needs a value", pre, sep,
		    (int)len, arg);
	else if (ch == ':')
		tc_usage_error("%s%soption '-%c' needs a value", pre, sep,
		    optopt);
	else if (optopt != 0 && o != NULL && o->val == optopt &&
	    o->has_arg == no_argument && arg[len] == '=')
		tc_usage_error("%s%soption '--%.*s' takes no value", pre, sep,
		    (int)len, arg);
	else if (optopt != 0)
		tc_usage_error("%s%sunknown option '-%c'", pre, sep, optopt);
	else if (islong && matches(opts, arg, len, which, sizeof(which)) > 1)
		tc_usage_error("%s%sambiguous option '--%.*s' (%s)", pre, sep,
		    (int)len, arg, which);
	else
		tc_usage_error("%s%sunknown option '--%.*s'", pre, sep,
		    (int)len, arg);
}
