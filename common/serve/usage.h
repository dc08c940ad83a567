/*
 * usage.h: command-line errors, said the same way by every toolcell
 * program.  A usage error is one line on stderr, naming what is wrong and
 * ending with a hint to run --help, and the program exits TC_EXIT_USAGE;
 * help and the version, when asked for, go to stdout.
 *
 * Returns (serve/): these report and exit, or return nothing; what a
 * caller must act on is said by its exit status.
 */
#ifndef TC_USAGE_H
#define TC_USAGE_H

#include <getopt.h>
#include <stdarg.h>

#define TC_EXIT_USAGE	2	/* the exit status of a usage error */

/*
 * Prints "prog: error: <message>; try 'prog --help'" on stderr, prog
 * being the name given to tc_log_init().
 */
void	tc_usage_error(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));
void	tc_usage_verror(const char *fmt, va_list ap)
	    __attribute__((format(printf, 1, 0)));

/*
 * Prints, as tc_usage_error() does, what is wrong with the option that
 * getopt_long() has just refused, |ch| being what it returned ('?', or
 * ':' for a missing value when the option string starts with ':') and
 * |opts| its long options: an unknown option, an ambiguous abbreviation
 * (with the options it could be), a missing value or one given to an
 * option that takes none.  |cmd|, if not NULL, names the command whose
 * options these are.  Call it with opterr set to 0, so that getopt_long()
 * says nothing itself.
 */
void	tc_usage_bad_option(const char *cmd, int ch, char *const argv[],
	    const struct option *opts);

#endif /* TC_USAGE_H */
