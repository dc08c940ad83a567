/*
 * cli.h: what the parts of toolcell-audit share: the exit statuses, the
 * reading of a log's lines under a length cap, the printing of text taken
 * from a log (which may hold anything), and its three commands.
 */
#ifndef TC_AUDIT_CLI_H
#define TC_AUDIT_CLI_H

#include <stdio.h>

#include "audit/audit.h"

#define EXIT_INTACT	0	/* verify: intact; other commands: done */
#define EXIT_BROKEN	1	/* verify: a record is wrong */
#define EXIT_TROUBLE	2	/* usage (TC_EXIT_USAGE), I/O, a log that
				   cannot be checked */

/* The lines of one file, read with a cap on their length. */
struct lines {
	FILE		*f;
	const char	*file;
	unsigned long	 line;		/* of the line last read, from 1 */
	char		*buf;		/* that line, NUL-terminated */
	size_t		 len;
	size_t		 cap;
	int		 partial;	/* it has no newline: the file's end */
	int		 toolong;	/* it was cut at TC_AUDIT_MAX_LINE */
};

/* Opens |file| for lines_next(); returns 0, or -1 after saying why. */
int	lines_open(struct lines *r, const char *file);

/*
 * Reads the next line into r->buf, without its newline.  Returns 1, 0 at
 * the end of the file, or -1 after saying why (read error, no memory).
 */
int	lines_next(struct lines *r);

/* Closes the file and frees the buffer. */
void	lines_close(struct lines *r);

/*
 * Writes |s| into |out| (|n| bytes, at least 1) shown as text.h shows
 * text for a terminal: controls, format characters (the marks that
 * reorder text, zero-width characters) and line separators escaped as
 * \uXXXX, bytes that are not UTF-8 as \xNN, cut to fit on a character
 * boundary and marked; returns |out|.  Text from a log goes through here
 * before it reaches a terminal.
 */
char	*clean(const char *s, char *out, size_t n);

/*
 * Returns a copy of |s| with each ill-formed UTF-8 sequence (and each NUL)
 * replaced by U+FFFD, or NULL if out of memory: a name taken from a log or
 * the command line may hold any bytes, and --json must print JSON.
 */
char	*utf8_dup(const char *s);

/* Returns the string member |name| of |o|, or NULL. */
const char *member_str(const cJSON *o, const char *name);

/* Sets |v| to the non-negative integer member |name|; returns 0 or -1. */
int	member_uint(const cJSON *o, const char *name, unsigned long long *v);

/*
 * Prints the tree |o| as one line of compact JSON on standard output and
 * deletes it; returns 0, or -1 after saying why.
 */
int	print_json(cJSON *o);

/* Prints the help on standard output; returns EXIT_INTACT. */
int	help(void);

/* The commands: each takes its own argv (argv[0] is its name) and returns
 * the exit status. */
int	cmd_verify(int argc, char *argv[]);
int	cmd_tail(int argc, char *argv[]);
int	cmd_summary(int argc, char *argv[]);

#endif /* TC_AUDIT_CLI_H */
