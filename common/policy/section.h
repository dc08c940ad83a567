/*
 * section.h: a server's own settings in the policy file, toolcell-policy(5).
 * Return convention: 0 or a negative TC_E*; the value parsers a keyword's
 * parser calls return 0, or -1 after reporting the error as "file:line:
 * message" (the reading goes on, so that every error is reported).
 *
 * The grammar (lines, words, quoting, values, duplicates, errors) and the
 * settings every server shares (allow, deny, tools, limits, consent,
 * audit, ...) belong to policyfile.c.  A server adds the keywords of its
 * own section with a struct tc_policy_section: the section's name ("fs"
 * for the lines after "[fs]"), a table of keywords, and a slot, memory of
 * |size| bytes in struct tc_policy that those keywords fill and that the
 * server reads back, typed, with tc_policy_slot().
 *
 * Where a server's keywords are read:
 *	- before the first section header: with the shared settings, so
 *	  that a policy written before sections existed keeps working (a
 *	  file read by several servers should not: another server refuses a
 *	  keyword it does not know);
 *	- in the server's own section ("[fs]" for toolcell-fs): with the
 *	  shared settings, which then apply to this server only;
 *	- never in another server's section, which is skipped whole.
 * Each setting is given once, wherever it is written: a second one is an
 * error that names the line of the first.
 */
#ifndef TC_POLICY_SECTION_H
#define TC_POLICY_SECTION_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

struct tc_policy;

/* The reading of one policy file, for a keyword's parser (opaque). */
struct tc_policy_ctx;

/* What a keyword takes, and for a typed keyword what it stores at
 * |offset| in the slot. */
enum tc_policy_shape {
	TC_POLICY_LINE = 1,	/* its own parser reads the words */
	TC_POLICY_CHOICE,	/* one of |choices|: its index, an int */
	TC_POLICY_ON_OFF,	/* "on" or "off": 1 or 0, an int */
	TC_POLICY_DURATION,	/* 30s, 500ms, 2m, 1h: milliseconds, an int */
	TC_POLICY_SIZE,		/* 512, 4K, 64M: bytes, unsigned long long */
	TC_POLICY_COUNT,	/* a whole number, unsigned long long */
	TC_POLICY_PATH,		/* absolute or "~/": a char *, freed by
				   tc_policy_release() */
	TC_POLICY_WORD,		/* any one word: a char *, freed the same */
};

/* A word a CHOICE keyword accepts; |hint|, if any, follows it in the
 * error that lists them: "expected 'every' (HINT) or 'none'". */
struct tc_policy_choice {
	const char	*word;
	const char	*hint;
};

/*
 * A keyword's parser: |w| holds the |nw| words after the keyword (unquoted;
 * valid during the call only).  It stores what it parsed in the slot
 * (tc_policy_ctx_slot()), calls tc_policy_once() if the setting may be
 * given once, and reports each error with tc_policy_error().
 */
typedef void tc_policy_parse_fn(struct tc_policy_ctx *c, char **w, int nw);

struct tc_policy_keyword {
	const char		*name;		/* "write-sync" */
	enum tc_policy_shape	 shape;
	size_t			 offset;	/* typed: offsetof() its
						   field in the slot */
	unsigned long long	 min, max;	/* DURATION (ms), SIZE, COUNT */
	const struct tc_policy_choice *choices;	/* CHOICE; ends with
						   { NULL } */
	tc_policy_parse_fn	*parse;		/* LINE */
	const char		*value;		/* what the value is, for
						   "missing" errors ("the
						   log file"); PATH, WORD,
						   LINE */
	int			 max_words;	/* in its lines, the keyword
						   included; 0: the usual 8,
						   at most
						   TC_POLICY_WORDS_MAX */
};

/* Words in a line whose keyword allows more than the usual 8. */
#define TC_POLICY_WORDS_MAX	64

enum tc_policy_section_flags {
	/* The server serves without directories (its section names what it
	 * serves): a file without 'allow' lines is no error. */
	TC_POLICY_ROOTS_OPTIONAL = 1 << 0,
};

/*
 * A server's section.  |keywords| is sorted by name (it is searched with
 * bsearch(3)), and no name is one of the shared settings'.  The slot is
 * |size| bytes, zeroed, then given its defaults by |init| (if any); what a
 * LINE parser allocated in it is freed by |release| (if any), and the
 * strings of PATH and WORD keywords by tc_policy_release() itself.
 * |check|, if any, runs once the whole file is read (at line 0), for what
 * needs more than one line.  |print| writes the section's settings for
 * --check, with their origins (tc_policy_setting_at(),
 * tc_policy_origin()); without it, each typed keyword is printed as
 * "name: value  (origin)".
 */
struct tc_policy_section {
	const char			*name;		/* "fs": "[fs]" */
	const struct tc_policy_keyword	*keywords;
	size_t				 nkeywords;
	size_t				 size;		/* of the slot */
	void		(*init)(void *slot);
	void		(*release)(void *slot);
	void		(*check)(struct tc_policy_ctx *c);
	void		(*print)(const struct tc_policy *p, const void *slot,
			    FILE *f);
	unsigned			 flags;	/* TC_POLICY_ROOTS_OPTIONAL */
};

/*
 * Gives |p| the section |sec| of the server it is for, after
 * tc_policy_set_server() and before tc_policy_load(): allocates and
 * initialises its slot.  |sec| is borrowed and must outlive |p| (a static
 * table).  Returns 0, TC_ENOMEM, or TC_EINVAL with |d| saying what is
 * wrong with the table (a bug in the server: unsorted, a name given twice
 * or one of the shared settings', an offset outside the slot, bounds a
 * DURATION cannot hold).
 */
int	tc_policy_set_section(struct tc_policy *p,
	    const struct tc_policy_section *sec, struct tc_diag *d);

/* Returns |p|'s slot if |sec| is its section, else NULL (no section, or
 * another's). */
const void *tc_policy_slot(const struct tc_policy *p,
	    const struct tc_policy_section *sec);

/*
 * Returns where setting |keyword| of |p| comes from: 0 for the default, a
 * line of the policy file, or TC_SET_CMDLINE (policy.h); 0 as well for a
 * keyword that is neither a shared typed setting nor one of the section's.
 */
int	tc_policy_setting_at(const struct tc_policy *p, const char *keyword);

/* Writes origin |at| into |buf|: "default", "line 12", "command line".
 * Returns |buf| or a constant. */
const char *tc_policy_origin(int at, char *buf, size_t len);

/* Writes |v| of a DURATION (ms), SIZE or COUNT as a policy writes it,
 * "90s", "512M", "16", into |buf|; returns |buf|. */
const char *tc_policy_value_str(enum tc_policy_shape shape,
	    unsigned long long v, char *buf, size_t len);

/* --- For a LINE keyword's parser --- */

/* Returns the slot of the section being read. */
void	*tc_policy_ctx_slot(struct tc_policy_ctx *c);

/* Returns the line being read (0 in |check|). */
int	tc_policy_ctx_line(const struct tc_policy_ctx *c);

/* Reports "file:line: message" (or "file: message" at line 0) and counts
 * it: the load fails once the whole file is read. */
void	tc_policy_error(struct tc_policy_ctx *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Records that the keyword being read is set at this line.  Returns 0, or
 * -1 after reporting "NAME: already set at line N". */
int	tc_policy_once(struct tc_policy_ctx *c);

/*
 * Parses |word|, a value of |shape| (DURATION, SIZE or COUNT) between
 * |min| and |max| (ms, bytes, units), into |v|; |what| starts the error
 * ("program git timeout").  Returns 0, or -1 after reporting.
 */
int	tc_policy_value(struct tc_policy_ctx *c, const char *what,
	    enum tc_policy_shape shape, const char *word,
	    unsigned long long min, unsigned long long max,
	    unsigned long long *v);

/* Returns the index in |choices| of |word|, or -1 after reporting
 * "WHAT: expected 'a' (hint) or 'b', not 'WORD'". */
int	tc_policy_choose(struct tc_policy_ctx *c, const char *what,
	    const struct tc_policy_choice *choices, const char *word);

/* Returns a copy of path |word|, absolute or "~/" expanded (the caller
 * frees it), or NULL after reporting why it is not one. */
char	*tc_policy_path(struct tc_policy_ctx *c, const char *what,
	    const char *word);

#endif /* TC_POLICY_SECTION_H */
