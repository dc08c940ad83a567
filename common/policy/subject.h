/*
 * subject.h: what a call acts on, typed, for the consent rules, the
 * consent hook, the question put to a person and the audit log.
 * Return convention: int functions return 0 or a negative TC_E* code;
 * predicates return 1 or 0; a pointer is NULL only when out of memory.
 *
 * The server works out a call's subjects before anything is forked for
 * it (serve/admission.c): each TC_ARG_PATH argument is a path, resolved
 * beneath the roots as ever; a tool with a subjects callback (tools.h)
 * adds what its arguments mean to it, which the argument table cannot
 * say: the program a call runs, its arguments, where it runs, the
 * environment it sets; the database a statement goes to and what kind
 * of statement it is.  Paths and working directories are resolved by
 * the server (deny rules, pins); the other kinds are the tool's word,
 * matched by consent rules and recorded as they are.
 */
#ifndef TC_SUBJECT_H
#define TC_SUBJECT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/err.h"

struct tc_policy;
struct tc_tool;

/* The kinds, each with the name policies, hooks and logs know it by.
 * The numbers are the bits of a tool's subject_kinds (tools.h). */
enum tc_subject_kind {
	TC_SUBJECT_PATH,	/* "path": a file or directory beneath a
				   root, its canonical absolute path */
	TC_SUBJECT_CWD,		/* "cwd": the directory a program runs in,
				   resolved as a path is */
	TC_SUBJECT_PROGRAM,	/* "program": the absolute path of the
				   program a call runs */
	TC_SUBJECT_ARG,		/* "arg": one of its arguments (argv[1]
				   on), one subject each, in order */
	TC_SUBJECT_ENV,		/* "env": the name of an environment
				   variable the call sets */
	TC_SUBJECT_DATABASE,	/* "database": a database, by the name
				   the policy gives it */
	TC_SUBJECT_STATEMENT,	/* "statement": what an SQL statement
				   does: "read", "write" or "schema" */
	TC_SUBJECT_NKINDS
};

/* What a call does to a subject; 0 when the kind says it all. */
enum tc_subject_access {
	TC_SUBJECT_READ		= 1 << 0,
	TC_SUBJECT_WRITE	= 1 << 1,
	TC_SUBJECT_EXEC		= 1 << 2,
};

struct tc_subject {
	enum tc_subject_kind	 kind;
	char			*value;		/* owned */
	unsigned		 access;	/* TC_SUBJECT_READ ... */
};

/* A call's subjects, in the order they were found.  Owns its values. */
struct tc_subjects {
	struct tc_subject	*v;
	size_t			 n;
	size_t			 cap;
};

/* What a tool's subjects callback is given (tools.h).  Borrowed. */
struct tc_subject_ctx {
	const struct tc_policy	*policy;	/* the server's, in force */
	const struct tc_tool	*tool;		/* the tool called */
};

void	tc_subjects_init(struct tc_subjects *s);

/* Frees every value; |s| is left empty, ready for reuse. */
void	tc_subjects_release(struct tc_subjects *s);

/*
 * Appends a subject of |kind| with a copy of |value| and |access|.
 * Returns 0; TC_EINVAL for a kind out of range, a NULL value, or a
 * statement that is not "read", "write" or "schema"; TC_ENOMEM.
 */
int	tc_subjects_add(struct tc_subjects *s, enum tc_subject_kind kind,
	    const char *value, unsigned access);

/*
 * As tc_subjects_add(), for a tool's .subjects callback: a failure is
 * also said in |d| ("cannot add the program subject").  Returns 0 or the
 * code.
 */
int	tc_subjects_put(struct tc_subjects *s, enum tc_subject_kind kind,
	    const char *value, unsigned access, struct tc_diag *d);

/* Returns how many subjects of |kind| |s| holds. */
size_t	tc_subjects_count(const struct tc_subjects *s,
	    enum tc_subject_kind kind);

/* Returns the name of |kind| ("program"), or NULL out of range. */
const char	*tc_subject_kind_name(enum tc_subject_kind kind);

/* Returns the kind named |name|, or -1 for none. */
int	tc_subject_kind_parse(const char *name);

/* Returns "read", "write", "read-write", "execute" (with read or write
 * too: "read-execute"...) for |access|, or NULL for 0. */
const char	*tc_subject_access_name(unsigned access);

/*
 * Returns 1 if |pattern| is a valid pattern of a consent rule for
 * |kind|, else 0 with the reason in |why| (|n| bytes): for program, an
 * absolute path pattern (glob.h) or a file name pattern without '/';
 * for arg, env and database, a string pattern (tc_glob_valid_string());
 * for statement, "read", "write" or "schema".  Path and cwd patterns are
 * path patterns, which the policy file checks as deny patterns.
 */
int	tc_subject_pattern_valid(enum tc_subject_kind kind,
	    const char *pattern, char *why, size_t n);

/*
 * Returns 1 if |pattern| (one tc_subject_pattern_valid() accepts)
 * matches a subject of |kind| whose value is |value|: a program by its
 * absolute path (tc_glob_match()) when the pattern has a '/', else by its
 * file name (tc_glob_match_string()); arg, env and database by
 * tc_glob_match_string(), '*' crossing '/'; a statement exactly.  Path
 * and cwd subjects are matched through the roots (tc_glob_match_path()),
 * not here: this returns 0 for them.
 */
int	tc_subject_match(enum tc_subject_kind kind, const char *pattern,
	    const char *value);

/*
 * Consent rules (struct tc_consent_rule, policy.h) by kind.
 *
 * tc_consent_rule_values() returns the patterns of |r| for |kind|, and
 * their number in *|n|: the path patterns for path, else its typed
 * values (none: *|n| 0).
 *
 * tc_consent_rule_match() returns 1 if one of those patterns matches a
 * subject of |kind| whose value is |value|: for path and cwd, a
 * canonical absolute path, with |rel| the path relative to the root it
 * was reached through (or NULL), matched as deny rules match paths,
 * through every root of |p| that holds it (tc_glob_match_path()); for the
 * others by tc_subject_match(), |p| and |rel| unused.
 *
 * tc_consent_rule_applies() returns 1 if |hits|, the bits (1u << kind)
 * of the kinds of |r| that some subject of a call matched, covers every
 * kind |r| names: the rule asks about the call (a rule naming no kind
 * asks about every call of its tool).
 */
struct tc_consent_rule;

char *const	*tc_consent_rule_values(const struct tc_consent_rule *r,
		    enum tc_subject_kind kind, size_t *n);
int	tc_consent_rule_match(const struct tc_policy *p,
	    const struct tc_consent_rule *r, enum tc_subject_kind kind,
	    const char *value, const char *rel);
int	tc_consent_rule_applies(const struct tc_consent_rule *r,
	    unsigned hits);

/*
 * Returns a new JSON array of |s|, for the hook and the log:
 * [{"kind":"program","value":"/usr/bin/git","access":"execute"}, ...],
 * "access" left out when it is 0; or NULL when out of memory.
 */
cJSON	*tc_subjects_json(const struct tc_subjects *s);

#endif /* TC_SUBJECT_H */
