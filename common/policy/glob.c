/*
 * glob.c: matching deny patterns against paths, component by component,
 * and finding the rule of a policy that refuses a path.
 *
 * Both levels use the same iterative matcher: a wildcard ('*' within a
 * component, "**" over components) remembers where it started, every other
 * token consumes exactly one unit (a byte, a component), and on a mismatch
 * the last wildcard takes one more unit and matching resumes after it.
 * Because the other tokens have a fixed width, going back to the last
 * wildcard only is enough, and no pattern can make it exponential: the
 * work is bounded by the product of the lengths (Kirk Krauss's wildcard
 * matcher, twice).  The rule "a directory's pattern covers what is beneath
 * it" is an implicit "**" at the end of every pattern: once the pattern
 * is used up, the rest of the path matches.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/glob.h"
#include "policy/policy.h"
#include "base/text.h"

/* Formats a reason into |why| (if any) and returns 0, for invalid(). */
static int __attribute__((format(printf, 3, 4)))
invalid(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL && n > 0) {
		va_start(ap, fmt);
		tc_text_vfmt(why, n, fmt, ap);
		va_end(ap);
	}
	return 0;
}

/*
 * Returns the ']' that closes the class opening at |p| ('['), or NULL if
 * none does before |end|.  A ']' right after "[", "[!" or "[^" is a member,
 * and so is a byte escaped with '\'.
 */
static const char *
class_end(const char *p, const char *end)
{
	p++;
	if (p < end && (*p == '!' || *p == '^'))
		p++;
	if (p < end && *p == ']')
		p++;
	while (p < end && *p != ']') {
		if (*p == '\\' && p + 1 < end)
			p++;
		p++;
	}
	return p < end ? p : NULL;
}

/* Reads one class member byte at *|pp| (before |close|), escape and all. */
static unsigned char
class_byte(const char **pp, const char *close)
{
	const char *p = *pp;

	if (*p == '\\' && p + 1 < close)
		p++;
	*pp = p + 1;
	return (unsigned char)*p;
}

/* Returns 1 if byte |c| is in the class from |p| ('[') to |close| (']'). */
static int
class_match(const char *p, const char *close, unsigned char c)
{
	unsigned char lo, hi;
	int neg = 0, hit = 0;

	p++;
	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	while (p < close) {
		lo = hi = class_byte(&p, close);
		if (p + 1 < close && *p == '-') {
			p++;
			hi = class_byte(&p, close);
		}
		if (lo <= c && c <= hi)
			hit = 1;
	}
	return hit != neg;
}

/*
 * Matches the single-byte token at *|pp| (before |pe|: a literal, an
 * escaped byte, '?' or a class) against |c|.  Returns 1 and moves *|pp|
 * past the token if it matches, else 0.
 */
static int
token_match(const char **pp, const char *pe, unsigned char c)
{
	const char *p = *pp, *close;
	int hit;

	switch (*p) {
	case '?':
		hit = 1;
		p++;
		break;
	case '[':
		if ((close = class_end(p, pe)) != NULL) {
			hit = class_match(p, close, c);
			p = close + 1;
			break;
		}
		/* An unterminated class is a literal '['. */
		hit = c == '[';
		p++;
		break;
	case '\\':
		if (p + 1 < pe)
			p++;
		/* FALLTHROUGH */
	default:
		hit = (unsigned char)*p == c;
		p++;
		break;
	}
	if (hit)
		*pp = p;
	return hit;
}

/* Returns 1 if the component pattern [p, pe) matches all of [s, se). */
static int
match_component(const char *p, const char *pe, const char *s, const char *se)
{
	const char *star_p = NULL, *star_s = NULL;

	while (s < se) {
		if (p < pe && *p == '*') {
			while (p < pe && *p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (p < pe && token_match(&p, pe, (unsigned char)*s)) {
			s++;
			continue;
		}
		if (star_p == NULL)
			return 0;
		/* The last '*' takes one more byte. */
		p = star_p;
		s = ++star_s;
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

/*
 * Moves *|s| to the start of the next component of a path, skipping
 * slashes and empty or "." components, and returns its end (*|s| itself
 * at the end of the string).
 */
static const char *
path_next(const char **s)
{
	const char *p = *s, *e;

	for (;;) {
		while (*p == '/')
			p++;
		e = p + strcspn(p, "/");
		if (e - p == 1 && *p == '.') {
			p = e;
			continue;
		}
		*s = p;
		return e;
	}
}

/* As path_next(), for a pattern: only slashes are skipped. */
static const char *
pat_next(const char **p)
{
	while (**p == '/')
		(*p)++;
	return *p + strcspn(*p, "/");
}

int
tc_glob_match(const char *pattern, const char *path)
{
	const char *p, *pe, *s, *se, *star_p = NULL, *star_s = NULL;

	if ((pattern[0] == '/') != (path[0] == '/'))
		return 0;
	p = pattern;
	s = path;
	path_next(&s);
	if (*s == '\0')
		return 0;	/* a root itself */
	for (;;) {
		pe = pat_next(&p);
		se = path_next(&s);
		if (p == pe)
			return 1;	/* the rest lies beneath a match */
		if (s == se) {
			/* The path is used up: only "**" may be left. */
			while (pe - p == 2 && p[0] == '*' && p[1] == '*') {
				p = pe;
				pe = pat_next(&p);
			}
			return p == pe;
		}
		if (pe - p == 2 && p[0] == '*' && p[1] == '*') {
			star_p = p = pe;
			star_s = s;
			continue;
		}
		if (match_component(p, pe, s, se)) {
			p = pe;
			s = se;
			continue;
		}
		if (star_p == NULL)
			return 0;
		/* The last "**" takes one more component. */
		p = star_p;
		s = star_s;
		star_s = path_next(&s);
		s = star_s;
	}
}

/*
 * Checks the component [b, e) of a pattern: no "**" but as the whole of
 * it, classes closed within it, escapes with something to escape.  For a
 * |string| pattern (tc_glob_valid_string()), "**" and "." are bytes like
 * others.  Returns 1, or 0 with the reason in |why|.
 */
static int
component_valid(const char *b, const char *e, int string, char *why,
    size_t n)
{
	const char *p, *close, *q;
	unsigned char lo, hi;

	if (e - b == 2 && b[0] == '*' && b[1] == '*')
		return 1;
	if (!string && ((e - b == 1 && b[0] == '.') ||
	    (e - b == 2 && b[0] == '.' && b[1] == '.')))
		return invalid(why, n, "'%.*s' as a component never matches "
		    "a canonical path", (int)(e - b), b);
	for (p = b; p < e; p++) {
		switch (*p) {
		case '\\':
			if (p + 1 == e)
				return invalid(why, n, "'\\' at the end of a "
				    "component escapes nothing");
			p++;
			break;
		case '*':
			if (!string && p + 1 < e && p[1] == '*')
				return invalid(why, n, "'**' must be a whole "
				    "component, as in 'a/**/b'");
			break;
		case '[':
			if ((close = class_end(p, e)) == NULL)
				return invalid(why, n, "'[' without a matching "
				    "']' in the same component");
			q = p + 1;
			if (*q == '!' || *q == '^')
				q++;
			if (*q == ':' || memmem(q, (size_t)(close - q), "[:",
			    2) != NULL)
				return invalid(why, n, "character class names "
				    "such as '[:alpha:]' are not supported; "
				    "escape the ':' as '\\:' to match it");
			while (q < close) {
				lo = hi = class_byte(&q, close);
				if (q + 1 < close && *q == '-') {
					q++;
					hi = class_byte(&q, close);
				}
				if (lo > hi)
					return invalid(why, n, "reversed range "
					    "'%c-%c' in a class", lo, hi);
			}
			p = close;
			break;
		default:
			break;
		}
	}
	return 1;
}

/* Returns 1 if |pattern| is neither empty nor too long, else 0 with |why|
 * said; clears |why| first. */
static int
sized(const char *pattern, char *why, size_t n)
{
	if (why != NULL && n > 0)
		why[0] = '\0';
	if (pattern == NULL || pattern[0] == '\0')
		return invalid(why, n, "empty pattern");
	if (strlen(pattern) > TC_GLOB_MAX)
		return invalid(why, n, "pattern longer than %d bytes",
		    TC_GLOB_MAX);
	return 1;
}

int
tc_glob_valid(const char *pattern, char *why, size_t n)
{
	const char *b, *e;

	if (!sized(pattern, why, n))
		return 0;
	if (strcmp(pattern, "/") == 0)
		return invalid(why, n, "'/' alone would deny every path");
	b = pattern[0] == '/' ? pattern + 1 : pattern;
	for (;;) {
		e = b + strcspn(b, "/");
		if (e == b)
			return invalid(why, n, *e == '\0' ? "a trailing '/': "
			    "a pattern that matches a directory already "
			    "matches everything beneath it" :
			    "an empty component ('//')");
		if (!component_valid(b, e, 0, why, n))
			return 0;
		if (*e == '\0')
			return 1;
		b = e + 1;
	}
}

int
tc_glob_valid_string(const char *pattern, char *why, size_t n)
{
	if (!sized(pattern, why, n))
		return 0;
	return component_valid(pattern, pattern + strlen(pattern), 1, why, n);
}

int
tc_glob_match_string(const char *pattern, const char *s)
{
	return match_component(pattern, pattern + strlen(pattern), s,
	    s + strlen(s));
}

int
tc_glob_prefix_string(const char *pattern, const char *s)
{
	const char *p = pattern, *pe = pattern + strlen(pattern);

	/* Up to the first '*', byte by byte; after it, anything follows. */
	for (; *s != '\0'; s++) {
		if (p < pe && *p == '*')
			return 1;
		if (p == pe || !token_match(&p, pe, (unsigned char)*s))
			return 0;
	}
	return 1;
}

const char *
tc_path_beneath(const char *path, const char *root)
{
	size_t rootlen = strlen(root);

	if (rootlen == 1 && root[0] == '/')
		return path + 1;
	if (strncmp(path, root, rootlen) != 0)
		return NULL;
	if (path[rootlen] == '\0')
		return path + rootlen;
	if (path[rootlen] == '/')
		return path + rootlen + 1;
	return NULL;
}

/* Returns 1 if |rel| names a root itself. */
static int
is_root_rel(const char *rel)
{
	const char *s = rel;

	path_next(&s);
	return *s == '\0';
}

int
tc_deny_any(const struct tc_policy *p, unsigned access)
{
	size_t i;

	for (i = 0; i < p->ndeny; i++)
		if (p->deny[i].access & access)
			return 1;
	return 0;
}

/* Returns 1 if relative |pattern| matches |abs| relative to some root. */
static int
match_any_root(const struct tc_policy *p, const char *pattern,
    const char *abs)
{
	const char *rest;
	size_t i;

	for (i = 0; i < p->nroots; i++) {
		rest = tc_path_beneath(abs, p->roots[i].path);
		if (rest != NULL && tc_glob_match(pattern, rest))
			return 1;
	}
	/* Narrowed by the client's roots: a pattern is still relative to
	 * the policy's own directories. */
	for (i = 0; i < p->nceiling; i++) {
		rest = tc_path_beneath(abs, p->ceiling[i].path);
		if (rest != NULL && tc_glob_match(pattern, rest))
			return 1;
	}
	return 0;
}

int
tc_glob_match_path(const struct tc_policy *p, const char *pattern,
    const char *abs, const char *rel)
{
	if (pattern[0] == '/')
		return abs != NULL && tc_glob_match(pattern, abs);
	return (rel != NULL && tc_glob_match(pattern, rel)) ||
	    (abs != NULL && match_any_root(p, pattern, abs));
}

/* Returns the number of components of path |s|, as path_next() sees them. */
static size_t
components(const char *s)
{
	size_t n = 0;

	for (;;) {
		const char *e = path_next(&s);

		if (e == s)
			return n;
		n++;
		s = e;
	}
}

int
tc_deny_rule_match(const struct tc_deny *r, const char *path)
{
	if (!tc_glob_match(r->pattern, path))
		return 0;
	/* The pattern matched the path or an ancestor: the same number of
	 * components tells which (an exact rule's pattern is literal, and
	 * has no "**"). */
	return !r->exact || components(r->pattern) == components(path);
}

/* Returns 1 if rule |r| matches the path (|abs|, |rel|), roots or not. */
static int
rule_match(const struct tc_policy *p, const struct tc_deny *r,
    const char *abs, const char *rel)
{
	if (r->pattern[0] == '/')
		return abs != NULL && tc_deny_rule_match(r, abs);
	return (rel != NULL && tc_glob_match(r->pattern, rel)) ||
	    (abs != NULL && match_any_root(p, r->pattern, abs));
}

/* Returns 1 if (|abs|, |rel|) names a root, which no rule refuses. */
static int
is_root(const struct tc_policy *p, const char *abs, const char *rel)
{
	size_t i;

	if (rel != NULL && is_root_rel(rel))
		return 1;
	if (abs != NULL)
		for (i = 0; i < p->nroots; i++)
			if (strcmp(abs, p->roots[i].path) == 0)
				return 1;
	return 0;
}

const struct tc_deny *
tc_deny_match(const struct tc_policy *p, const char *abs, const char *rel,
    unsigned access)
{
	const struct tc_deny *r;
	size_t i;

	if (is_root(p, abs, rel))
		return NULL;
	for (i = 0; i < p->ndeny; i++) {
		r = &p->deny[i];
		if ((r->access & access) != 0 && r->pattern != NULL &&
		    rule_match(p, r, abs, rel))
			return r;
	}
	return NULL;
}

/*
 * The rules for the entries of one directory D.  A pattern whose last
 * component L is not "**" matches D/name in one of two ways only: L
 * matches name (the pattern ends with the path), or the pattern matches
 * D or above it (everything beneath a match is matched).  The second is
 * the same for every entry, so it is decided once; then an entry whose
 * name L does not match is passed over without matching the whole path,
 * which in a large directory is nearly all of them.
 */
enum { DD_SKIP, DD_ALL, DD_NAME, DD_FULL };

#define BIT_SET(set, c)		((set)[(c) >> 3] |= 1u << ((c) & 7))
#define BIT_ISSET(set, c)	((set)[(c) >> 3] & 1u << ((c) & 7))

/*
 * A rule as the entries of one directory see it.  For DD_NAME, the last
 * component L, and what any name it matches must have: L's literal bytes
 * before its first special character as a prefix, those after its last
 * as a suffix (a name can be passed over on those alone, which is most
 * names and rules: "leaf-3.txt" against "*.pem" fails on its last byte
 * rather than after a backtracking match at every offset); L itself
 * when it has no special character at all.
 */
struct tc_deny_dir_rule {
	unsigned char	 mode;
	unsigned char	 literal;	/* L has no special character */
	const char	*last;
	size_t		 lastlen, headlen, taillen;
};

static int
glob_special(char c)
{
	return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\';
}

static void
dir_rule_init(struct tc_deny_dir_rule *dr, const char *last)
{
	size_t n = strlen(last), h = 0, t = 0;

	while (h < n && !glob_special(last[h]))
		h++;
	while (t < n && !glob_special(last[n - 1 - t]))
		t++;
	dr->last = last;
	dr->lastlen = n;
	dr->literal = h == n;
	dr->headlen = h;
	dr->taillen = t;
}

/* Returns 1 if |name| (|len| bytes) matches the last component of |dr|. */
static int
dir_rule_name(const struct tc_deny_dir_rule *dr, const char *name,
    size_t len)
{
	if (dr->literal)
		return len == dr->lastlen && memcmp(name, dr->last, len) == 0;
	/* The head and the tail are different bytes of L, each matching
	 * one byte of the name. */
	if (len < dr->headlen + dr->taillen ||
	    memcmp(name, dr->last, dr->headlen) != 0 ||
	    memcmp(name + len - dr->taillen,
	    dr->last + dr->lastlen - dr->taillen, dr->taillen) != 0)
		return 0;
	return match_component(dr->last, dr->last + dr->lastlen, name,
	    name + len);
}

int
tc_deny_dir_init(struct tc_deny_dir *dd, const struct tc_policy *p,
    const char *abs, const char *rel, unsigned access)
{
	struct tc_deny_dir_rule *dr;
	const struct tc_deny *r;
	const char *last;
	size_t i;

	memset(dd, 0, sizeof(*dd));
	dd->pol = p;
	dd->access = access;
	if ((dd->rule = calloc(p->ndeny + 1, sizeof(*dd->rule))) == NULL)
		return -1;
	for (i = 0; i < p->ndeny; i++) {
		r = &p->deny[i];
		dr = &dd->rule[i];
		if ((r->access & access) == 0 || r->pattern == NULL) {
			dr->mode = DD_SKIP;
			continue;
		}
		last = strrchr(r->pattern, '/');
		last = last != NULL ? last + 1 : r->pattern;
		/* An exact rule refuses no entry for matching their
		 * directory: only the one path it names. */
		if (!r->exact && rule_match(p, r, abs, rel))
			dr->mode = DD_ALL;
		else if (strcmp(last, "**") == 0)
			dr->mode = DD_FULL;
		else {
			dr->mode = DD_NAME;
			dir_rule_init(dr, last);
		}
		/* The names a rule can refuse start with its head's first
		 * byte, or else end with its tail's last: one look at
		 * each end of a name passes over most of them. */
		if (dr->mode != DD_NAME)
			dd->always = 1;
		else if (dr->headlen > 0)
			BIT_SET(dd->first, (unsigned char)last[0]);
		else if (dr->taillen > 0)
			BIT_SET(dd->last,
			    (unsigned char)last[dr->lastlen - 1]);
		else
			dd->always = 1;
	}
	return 0;
}

int
tc_deny_dir_maybe(const struct tc_deny_dir *dd, const char *name)
{
	size_t i, len = strlen(name);

	if (!dd->always && (len == 0 ||
	    (!BIT_ISSET(dd->first, (unsigned char)name[0]) &&
	    !BIT_ISSET(dd->last, (unsigned char)name[len - 1]))))
		return 0;
	for (i = 0; i < dd->pol->ndeny; i++) {
		switch (dd->rule[i].mode) {
		case DD_SKIP:
			continue;
		case DD_NAME:
			if (!dir_rule_name(&dd->rule[i], name, len))
				continue;
			return 1;
		default:
			return 1;
		}
	}
	return 0;
}

const struct tc_deny *
tc_deny_dir_match(const struct tc_deny_dir *dd, const char *name,
    const char *abs, const char *rel)
{
	const struct tc_policy *p = dd->pol;
	const struct tc_deny *r;
	size_t i, len = strlen(name);

	if (is_root(p, abs, rel))
		return NULL;
	for (i = 0; i < p->ndeny; i++) {
		r = &p->deny[i];
		switch (dd->rule[i].mode) {
		case DD_SKIP:
			continue;
		case DD_ALL:
			return r;
		case DD_NAME:
			if (!dir_rule_name(&dd->rule[i], name, len))
				continue;
			/* FALLTHROUGH */
		default:
			if (rule_match(p, r, abs, rel))
				return r;
		}
	}
	return NULL;
}

void
tc_deny_dir_release(struct tc_deny_dir *dd)
{
	free(dd->rule);
	dd->rule = NULL;
}
