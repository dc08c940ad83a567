/*
 * fuzz-glob.c: deny patterns and deny rules (glob.c), held against the
 * slow reference matcher of tests/lib/globref.h.
 *
 * The input is lines, each a letter, a blank and its text:
 *
 *	p PATTERN	a deny rule (reads and writes)
 *	w PATTERN	a deny write rule
 *	r DIR		a root besides /r (used when canonical and absolute)
 *	c DIR		one of the policy's own roots, once narrowed
 *	d DIR		a directory, relative to /r
 *	n NAME		an entry of every directory
 *	a PATH		a path to match every pattern against
 *
 * and others are ignored.  The oracles:
 *
 *	- tc_glob_match() answers as the reference for every valid pattern
 *	  (tc_glob_valid()) and every path: the "a" paths, the directories
 *	  and their entries, relative and absolute; on an invalid pattern it
 *	  only has to return;
 *	- tc_deny_match() picks the rule the reference picks, given both
 *	  paths, the relative one or the absolute one alone;
 *	- tc_deny_dir_match() answers as tc_deny_match() for every entry of
 *	  every directory, and tc_deny_dir_maybe() never passes over an entry
 *	  that a rule refuses.
 */
#include <string.h>

#include "policy/glob.h"
#include "policy/policy.h"

#include "fuzz.h"
#include "globref.h"

#define MAX_ITEMS	8	/* of each kind */
#define MAX_TEXT	200	/* bytes of a pattern, path or name */

struct input {
	char	*pat[MAX_ITEMS];
	unsigned acc[MAX_ITEMS];
	size_t	 npat;
	char	*root[MAX_ITEMS];
	size_t	 nroot;
	char	*ceil[MAX_ITEMS];
	size_t	 nceil;
	char	*dir[MAX_ITEMS];
	size_t	 ndir;
	char	*name[MAX_ITEMS];
	size_t	 nname;
	char	*path[MAX_ITEMS];
	size_t	 npath;
};

/* Returns 1 if |s| is canonical: absolute or not as |abs| says, no empty,
 * "." or ".." component, no trailing '/' (but "/" itself). */
static int
canonical(const char *s, int abs)
{
	const char *c, *e;

	if ((s[0] == '/') != abs)
		return 0;
	if (abs && s[1] == '\0')
		return 1;
	for (c = abs ? s + 1 : s;; c = e + 1) {
		e = c + strcspn(c, "/");
		if (e == c || (e - c == 1 && c[0] == '.') ||
		    (e - c == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (*e == '\0')
			return 1;
	}
}

/* Splits |data| into the items of |in|, each a new string. */
static void
parse(const uint8_t *data, size_t size, struct input *in)
{
	const char *p = (const char *)data, *e = p + size, *nl;
	size_t len;
	char *s, **slot;

	memset(in, 0, sizeof(*in));
	for (; p < e; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL)
			nl = e;
		len = (size_t)(nl - p);
		if (len < 2 || p[1] != ' ' || len - 2 > MAX_TEXT ||
		    memchr(p, '\0', len) != NULL)
			continue;
		slot = NULL;
		switch (p[0]) {
		case 'p':
		case 'w':
			if (in->npat < MAX_ITEMS) {
				in->acc[in->npat] = p[0] == 'w' ?
				    TC_ACCESS_WRITE :
				    TC_ACCESS_READ | TC_ACCESS_WRITE;
				slot = &in->pat[in->npat++];
			}
			break;
		case 'r':
			if (in->nroot < MAX_ITEMS)
				slot = &in->root[in->nroot++];
			break;
		case 'c':
			if (in->nceil < MAX_ITEMS)
				slot = &in->ceil[in->nceil++];
			break;
		case 'd':
			if (in->ndir < MAX_ITEMS)
				slot = &in->dir[in->ndir++];
			break;
		case 'n':
			if (in->nname < MAX_ITEMS)
				slot = &in->name[in->nname++];
			break;
		case 'a':
			if (in->npath < MAX_ITEMS)
				slot = &in->path[in->npath++];
			break;
		default:
			break;
		}
		if (slot == NULL)
			continue;
		if ((s = strndup(p + 2, len - 2)) == NULL)
			abort();
		*slot = s;
	}
}

static void
input_free(struct input *in)
{
	size_t i;

	for (i = 0; i < MAX_ITEMS; i++) {
		free(in->pat[i]);
		free(in->root[i]);
		free(in->ceil[i]);
		free(in->dir[i]);
		free(in->name[i]);
		free(in->path[i]);
	}
}

/* Checks every pattern of |in| against |path|. */
static void
match_all(const struct input *in, const char *path)
{
	size_t i;
	int got;

	for (i = 0; i < in->npat; i++) {
		got = tc_glob_match(in->pat[i], path);
		FUZZ_CHECK(got == 0 || got == 1, "tc_glob_match gave %d", got);
		if (!tc_glob_valid(in->pat[i], NULL, 0))
			continue;
		FUZZ_CHECK(got == gr_match(in->pat[i], path),
		    "pattern '%s', path '%s': tc_glob_match says %d, the "
		    "reference %d", in->pat[i], path, got, !got);
	}
}

/* The reference's tc_deny_match(), from glob.h's description. */
static const struct tc_deny *
ref_deny(const struct tc_policy *p, const char *abs, const char *rel,
    unsigned access)
{
	const struct tc_deny *r;
	const char *rest;
	size_t i, k, len;
	const struct tc_root *set;
	size_t nset;
	int s;

	/* A root itself: rel with no component left, abs a root's path. */
	if (rel != NULL) {
		for (k = 0; rel[k] == '/' || (rel[k] == '.' && (rel[k + 1] ==
		    '/' || rel[k + 1] == '\0')); k++)
			continue;
		if (rel[k] == '\0')
			return NULL;
	}
	for (k = 0; abs != NULL && k < p->nroots; k++)
		if (strcmp(abs, p->roots[k].path) == 0)
			return NULL;
	for (i = 0; i < p->ndeny; i++) {
		r = &p->deny[i];
		if ((r->access & access) == 0)
			continue;
		if (r->pattern[0] == '/') {
			if (abs != NULL && gr_match(r->pattern, abs))
				return r;
			continue;
		}
		if (rel != NULL && gr_match(r->pattern, rel))
			return r;
		/* abs, relative to every root (and policy root) holding it. */
		for (s = 0; abs != NULL && s < 2; s++) {
			set = s == 0 ? p->roots : p->ceiling;
			nset = s == 0 ? p->nroots : p->nceiling;
			for (k = 0; k < nset; k++) {
				len = strlen(set[k].path);
				if (len == 1)
					rest = abs + 1;
				else if (strncmp(abs, set[k].path, len) == 0 &&
				    (abs[len] == '/' || abs[len] == '\0'))
					rest = abs + len + (abs[len] == '/');
				else
					continue;
				if (gr_match(r->pattern, rest))
					return r;
			}
		}
	}
	return NULL;
}

static const char *
rule_name(const struct tc_deny *r)
{
	return r != NULL ? r->pattern : "(none)";
}

/* Checks the deny rules on directory |rel| (relative to /r) and its
 * entries. */
static void
check_dir(const struct input *in, const struct tc_policy *p, const char *rel)
{
	static const unsigned access[] = { TC_ACCESS_READ, TC_ACCESS_WRITE };
	const struct tc_deny *want, *ref, *got;
	char abs[2 * MAX_TEXT + 8], eabs[3 * MAX_TEXT + 8];
	char erel[2 * MAX_TEXT + 8];
	struct tc_deny_dir dd;
	size_t a, j;

	if (strcmp(rel, ".") == 0)
		snprintf(abs, sizeof(abs), "/r");
	else
		snprintf(abs, sizeof(abs), "/r/%s", rel);
	match_all(in, rel);
	match_all(in, abs);
	for (a = 0; a < TC_NITEMS(access); a++) {
		want = tc_deny_match(p, abs, rel, access[a]);
		ref = ref_deny(p, abs, rel, access[a]);
		FUZZ_CHECK(want == ref, "%s (%s): tc_deny_match picks %s, the "
		    "reference %s", abs, rel, rule_name(want), rule_name(ref));
		if (tc_deny_dir_init(&dd, p, abs, rel, access[a]) != 0)
			abort();
		for (j = 0; j < in->nname; j++) {
			const char *name = in->name[j];

			if (!canonical(name, 0) || strchr(name, '/') != NULL)
				continue;
			snprintf(eabs, sizeof(eabs), "%s/%s", abs, name);
			if (strcmp(rel, ".") == 0)
				snprintf(erel, sizeof(erel), "%s", name);
			else
				snprintf(erel, sizeof(erel), "%s/%s", rel,
				    name);
			if (a == 0)
				match_all(in, erel);
			want = tc_deny_match(p, eabs, erel, access[a]);
			ref = ref_deny(p, eabs, erel, access[a]);
			FUZZ_CHECK(want == ref, "%s (%s): tc_deny_match picks "
			    "%s, the reference %s", eabs, erel,
			    rule_name(want), rule_name(ref));
			FUZZ_CHECK(tc_deny_match(p, eabs, NULL, access[a]) ==
			    ref_deny(p, eabs, NULL, access[a]), "%s alone: "
			    "tc_deny_match and the reference differ", eabs);
			FUZZ_CHECK(tc_deny_match(p, NULL, erel, access[a]) ==
			    ref_deny(p, NULL, erel, access[a]), "%s alone: "
			    "tc_deny_match and the reference differ", erel);
			got = tc_deny_dir_match(&dd, name, eabs, erel);
			FUZZ_CHECK(got == want, "%s in %s: tc_deny_dir_match "
			    "picks %s, tc_deny_match %s", name, abs,
			    rule_name(got), rule_name(want));
			FUZZ_CHECK(want == NULL ||
			    tc_deny_dir_maybe(&dd, name), "%s in %s: refused "
			    "by %s, but tc_deny_dir_maybe passes over it",
			    name, abs, rule_name(want));
		}
		tc_deny_dir_release(&dd);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tc_root roots[MAX_ITEMS + 1], ceil[MAX_ITEMS];
	struct tc_deny rules[MAX_ITEMS];
	struct tc_policy p;
	struct input in;
	static char r0[] = "/r";
	size_t i;

	parse(data, size, &in);
	memset(&p, 0, sizeof(p));
	memset(rules, 0, sizeof(rules));	/* exact, own: none */
	memset(roots, 0, sizeof(roots));
	memset(ceil, 0, sizeof(ceil));
	roots[0].path = r0;
	roots[0].pathlen = 2;
	p.roots = roots;
	p.nroots = 1;
	for (i = 0; i < in.nroot; i++)
		if (canonical(in.root[i], 1)) {
			roots[p.nroots].path = in.root[i];
			roots[p.nroots++].pathlen = strlen(in.root[i]);
		}
	p.ceiling = ceil;
	for (i = 0; i < in.nceil; i++)
		if (canonical(in.ceil[i], 1)) {
			ceil[p.nceiling].path = in.ceil[i];
			ceil[p.nceiling++].pathlen = strlen(in.ceil[i]);
		}
	/* A policy holds valid patterns only: the loader refuses others. */
	p.deny = rules;
	for (i = 0; i < in.npat; i++)
		if (tc_glob_valid(in.pat[i], NULL, 0)) {
			rules[p.ndeny].pattern = in.pat[i];
			rules[p.ndeny].access = in.acc[i];
			rules[p.ndeny++].line = (int)i + 1;
		}
	for (i = 0; i < in.npath; i++)
		match_all(&in, in.path[i]);
	check_dir(&in, &p, ".");
	for (i = 0; i < in.ndir; i++)
		if (canonical(in.dir[i], 0))
			check_dir(&in, &p, in.dir[i]);
	input_free(&in);
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}
