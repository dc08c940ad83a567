/*
 * glob.h: the path patterns of deny rules (toolcell-policy(5)), and which
 * rule of a policy refuses a path.
 * Return convention: 1 or 0 for a question, a pointer or NULL for a lookup;
 * only tc_deny_dir_init() can fail: 0, or -1 when out of memory.
 *
 * A pattern is a '/'-separated list of components, matched byte for byte
 * (case-sensitive, no locale, no brace expansion) against a path's
 * components:
 *
 *	*	any run of bytes within one component, empty too; it matches
 *		a leading '.', so "*.key" matches ".key" and "*" ".env"
 *	?	any one byte within a component
 *	[...]	one byte of the class: single bytes and ranges "a-z"; "[!...]"
 *		or "[^...]" negates it; a ']' first ("[]x]") and a '-' first
 *		or last are literal
 *	**	as a whole component: any number of components, none too
 *	\c	the byte c itself ("\*", "\[", "\\")
 *
 * A pattern that matches a directory matches everything beneath it:
 * "**" "/.ssh" matches ".ssh", "a/.ssh" and "a/.ssh/id_rsa".  A pattern with
 * a leading '/' is matched against a canonical absolute path; one without,
 * against a path relative to a root ("**" "/.env": ".env" at any depth;
 * ".git/hooks": only at a root's top).
 *
 * (In these comments a pattern with "**" next to a '/' is written as
 * adjacent C strings, "**" "/.ssh", since the pair would end or open a
 * comment.)
 *
 * tc_glob_valid() refuses, with a reason:
 *	- the empty pattern, and one longer than TC_GLOB_MAX bytes;
 *	- "/" alone, a trailing '/' and an empty component ("a//b"): a
 *	  directory's pattern already covers what is beneath it;
 *	- "." or ".." as a component, which a canonical path never has;
 *	- "**" that is not a whole component ("a**", "**b", "***");
 *	- a '[' without its ']' in the same component ('/' cannot be in a
 *	  class), a range whose ends are reversed ("[z-a]"), and "[:", which
 *	  would start a class name ("[:alpha:]") that is not supported: write
 *	  "[\:]" for a literal ':' after '[';
 *	- a '\' that ends a component, with nothing to escape.
 */
#ifndef TC_GLOB_H
#define TC_GLOB_H

#include <stddef.h>

struct tc_policy;
struct tc_deny;

/* Patterns longer than this are refused (as paths are, by PATH_MAX). */
#define TC_GLOB_MAX	4096

/*
 * Returns 1 if |pattern| is a valid pattern, else 0 with the reason in
 * |why| (|n| bytes, if |why| is not NULL): "'**' must be a whole
 * component, as in 'a/' '**' '/b'" (as one string).
 */
int	tc_glob_valid(const char *pattern, char *why, size_t n);

/*
 * Returns 1 if |pattern| matches |path| or one of its ancestors, else 0.
 * An absolute pattern only matches an absolute path, a relative one only a
 * relative path.  Empty and "." components of |path| are ignored; a path
 * with no components left ("", ".", "/": a root itself) is never matched.
 * Time is at most proportional to the product of the two lengths, whatever
 * the pattern (a chain of "**" components included); nothing is allocated.
 * A pattern tc_glob_valid() refuses gives some answer without harm: an
 * unterminated '[' is a literal, "**" within a component is a '*'.
 */
int	tc_glob_match(const char *pattern, const char *path);

/*
 * Returns what follows |root| (canonical) in |path| when |path| is |root|
 * or lies beneath it, compared component by component ("/a" holds "/a/b"
 * but not "/ab"): "" for |root| itself, "b/c" for "/a/b/c" beneath "/a";
 * else NULL.  The one test of "is this path inside that directory" on
 * names, for every layer (what is really inside is for the kernel).  It
 * lives here, beneath path.c, which uses the deny rules of this file.
 */
const char *tc_path_beneath(const char *path, const char *root);

/*
 * Patterns for values that are not paths (an argument, a name): the
 * syntax above applied to the whole string as to one component, with '/'
 * a byte like any other, so '*' matches any run of bytes, '/' too, and
 * "**" is the same as '*'.  tc_glob_valid_string() refuses, with a
 * reason, the empty pattern, one longer than TC_GLOB_MAX, and the class
 * and escape mistakes above; tc_glob_match_string() returns 1 if
 * |pattern| matches the whole of |s|, in time at most proportional to
 * the product of the lengths.
 */
int	tc_glob_valid_string(const char *pattern, char *why, size_t n);
int	tc_glob_match_string(const char *pattern, const char *s);

/*
 * Returns 1 if |s| is the beginning of a string that |pattern| (as for
 * tc_glob_match_string()) matches, the whole of one too: "--upl" of
 * "--upload-pack*", anything that gets as far as a '*'.  A class is taken
 * to match some byte, as every class tc_glob_valid_string() lets through
 * does.  Time at most proportional to the length of |s|.
 */
int	tc_glob_prefix_string(const char *pattern, const char *s);

/*
 * Returns 1 if |pattern| matches the path given as |abs| (canonical and
 * absolute) and |rel| (relative to the root it was reached through), as a
 * deny rule's pattern is matched (tc_deny_match()): an absolute pattern
 * against |abs|; a relative one against |rel| and against |abs| made
 * relative to every root of |p| that holds it.  Either path may be NULL.
 * Consent rules use it, so that they see a path as deny rules do.
 */
int	tc_glob_match_path(const struct tc_policy *p, const char *pattern,
	    const char *abs, const char *rel);

/*
 * Returns 1 if the pattern of rule |r| matches |path| as tc_glob_match()
 * does; for an exact rule (r->exact), only |path| itself, not what lies
 * beneath it.
 */
int	tc_deny_rule_match(const struct tc_deny *r, const char *path);

/*
 * Returns 1 if some rule of |p| applies to |access| (TC_ACCESS_* bits),
 * else 0: without one, nothing need be checked.
 */
int	tc_deny_any(const struct tc_policy *p, unsigned access);

/*
 * Returns the first deny rule of |p| that refuses |access| (any of the
 * TC_ACCESS_* bits given) on a path, or NULL.  The path is given as |abs|,
 * canonical and absolute, and as |rel|, relative to the root it was reached
 * through; either may be NULL, and then rules of that kind are not tried.
 * A relative pattern is tried against |rel| and against |abs| made
 * relative to every other root that holds it, so that the answer does not
 * depend on the root a path was named through.  A root itself (|rel| "."
 * or "", or |abs| equal to a root's canonical path) is never refused: the
 * policy allows it by name, and a rule covering it leaves it listed but
 * with nothing in it.  Returns a pointer into p->deny.
 */
const struct tc_deny *tc_deny_match(const struct tc_policy *p,
	    const char *abs, const char *rel, unsigned access);

/*
 * The deny rules for |access| as they apply to the entries of one
 * directory, whose own path is (|abs|, |rel|): what the directory's path
 * decides is worked out once, so that checking each entry costs little
 * more than matching its name against the rules' last components.
 * tc_deny_dir_match() answers as tc_deny_match() would for the entry
 * |name| whose full path is (|abs|, |rel|).  Init returns 0, or -1 when
 * out of memory.
 */
struct tc_deny_dir_rule;

struct tc_deny_dir {
	const struct tc_policy	*pol;
	unsigned		 access;
	struct tc_deny_dir_rule	*rule;		/* one per deny rule */
	int			 always;	/* no shortcut: ask every rule */
	unsigned char		 first[32];	/* bytes a refused name can */
	unsigned char		 last[32];	/* start or end with */
};

int	tc_deny_dir_init(struct tc_deny_dir *dd, const struct tc_policy *p,
	    const char *abs, const char *rel, unsigned access);
const struct tc_deny *tc_deny_dir_match(const struct tc_deny_dir *dd,
	    const char *name, const char *abs, const char *rel);

/*
 * Returns 0 if no rule can refuse the entry |name| (then its path need
 * not even be built), 1 if tc_deny_dir_match() must decide.
 */
int	tc_deny_dir_maybe(const struct tc_deny_dir *dd, const char *name);
void	tc_deny_dir_release(struct tc_deny_dir *dd);

#endif /* TC_GLOB_H */
