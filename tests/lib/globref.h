/*
 * globref.h: a slow reference matcher for deny patterns, written from the
 * description in common/policy/glob.h alone, for test-glob.c and the glob fuzz
 * harness to hold tc_glob_match() against.
 *
 * It takes the plain road where glob.c takes the fast one: the path and
 * the pattern are split into components first, each component pattern
 * into tokens, and both levels are matched by dynamic programming over
 * every pair of positions (a table, not backtracking), so that its answer
 * is easy to check by eye and its time bounded on any input.  It answers
 * for valid patterns only (tc_glob_valid()); on others it gives some
 * answer.
 *
 * Everything is static: a file that includes it gets its own copy.
 */
#ifndef TC_GLOBREF_H
#define TC_GLOBREF_H

#include <stdlib.h>
#include <string.h>

#define GR_FN		static __attribute__((unused))

/* One token of a component pattern. */
struct gr_tok {
	enum { GR_BYTE, GR_ANY, GR_STAR, GR_CLASS } kind;
	unsigned char	 byte;		/* GR_BYTE */
	unsigned char	 set[32];	/* GR_CLASS: the bytes it matches */
};

/* A list of components: [start, start + len) each, in one string. */
struct gr_comps {
	const char	**start;
	size_t		 *len;
	size_t		  n;
};

#define GR_SET(set, c)	((set)[(c) >> 3] |= (unsigned char)(1u << ((c) & 7)))
#define GR_HAS(set, c)	((set)[(c) >> 3] & (1u << ((c) & 7)))

/*
 * Parses the class whose '[' is at |p| (component ends at |e|) into |t|.
 * Returns the byte after its ']', or NULL if it is not closed (then the
 * '[' is a literal).
 */
GR_FN const char *
gr_class(const char *p, const char *e, struct gr_tok *t)
{
	unsigned char lo, hi, set[32];
	int neg = 0, first = 1;
	unsigned c;

	memset(set, 0, sizeof(set));
	p++;
	if (p < e && (*p == '!' || *p == '^')) {
		neg = 1;
		p++;
	}
	for (;;) {
		if (p >= e)
			return NULL;
		/* A ']' ends the class, except as its first member. */
		if (*p == ']' && !first)
			break;
		first = 0;
		if (*p == '\\' && p + 1 < e)
			p++;
		lo = (unsigned char)*p++;
		hi = lo;
		/* "x-y" is a range when y is there before the end; a '-'
		 * first or last is a member. */
		if (p + 1 < e && *p == '-' && p[1] != ']') {
			p++;
			if (*p == '\\' && p + 1 < e)
				p++;
			hi = (unsigned char)*p++;
		}
		for (c = lo; c <= hi; c++)
			GR_SET(set, c);
	}
	t->kind = GR_CLASS;
	for (c = 0; c < 32; c++)
		t->set[c] = neg ? (unsigned char)~set[c] : set[c];
	return p + 1;
}

/* Splits the component pattern [p, e) into tokens; returns how many. */
GR_FN size_t
gr_tokens(const char *p, const char *e, struct gr_tok *t)
{
	const char *q;
	size_t n = 0;

	while (p < e) {
		memset(&t[n], 0, sizeof(t[n]));
		switch (*p) {
		case '*':
			/* A run of '*' is one: "**" inside a component is
			 * not valid, and means '*' if given. */
			while (p < e && *p == '*')
				p++;
			t[n++].kind = GR_STAR;
			continue;
		case '?':
			t[n++].kind = GR_ANY;
			p++;
			continue;
		case '[':
			if ((q = gr_class(p, e, &t[n])) != NULL) {
				p = q;
				n++;
				continue;
			}
			break;
		case '\\':
			if (p + 1 < e)
				p++;
			break;
		default:
			break;
		}
		t[n].kind = GR_BYTE;
		t[n++].byte = (unsigned char)*p++;
	}
	return n;
}

/* Returns 1 if the component pattern [p, pe) matches all of [s, se). */
GR_FN int
gr_component(const char *p, const char *pe, const char *s, const char *se)
{
	size_t nt, ns = (size_t)(se - s), i, j, w;
	struct gr_tok *t;
	unsigned char *m;
	int r;

	/* At most one token per pattern byte. */
	if ((t = calloc((size_t)(pe - p) + 1, sizeof(*t))) == NULL)
		abort();
	nt = gr_tokens(p, pe, t);
	w = ns + 1;
	/* m[i * w + j]: tokens from i match the bytes from j to the end. */
	if ((m = calloc((nt + 1) * w, 1)) == NULL)
		abort();
	m[nt * w + ns] = 1;
	for (i = nt; i-- > 0;) {
		for (j = ns + 1; j-- > 0;) {
			unsigned char c = j < ns ? (unsigned char)s[j] : 0;

			switch (t[i].kind) {
			case GR_STAR:
				r = m[(i + 1) * w + j] ||
				    (j < ns && m[i * w + j + 1]);
				break;
			case GR_ANY:
				r = j < ns && m[(i + 1) * w + j + 1];
				break;
			case GR_CLASS:
				r = j < ns && GR_HAS(t[i].set, c) &&
				    m[(i + 1) * w + j + 1];
				break;
			default:
				r = j < ns && t[i].byte == c &&
				    m[(i + 1) * w + j + 1];
				break;
			}
			m[i * w + j] = (unsigned char)r;
		}
	}
	r = m[0];
	free(m);
	free(t);
	return r;
}

/*
 * Splits |s| at '/' into |c|, leaving out empty components and, when
 * |dots| is set, "." ones (as a path's are; a pattern keeps them).
 */
GR_FN void
gr_split(const char *s, int dots, struct gr_comps *c)
{
	size_t cap = strlen(s) / 2 + 2, len;
	const char *e;

	c->start = calloc(cap, sizeof(*c->start));
	c->len = calloc(cap, sizeof(*c->len));
	if (c->start == NULL || c->len == NULL)
		abort();
	c->n = 0;
	for (;;) {
		while (*s == '/')
			s++;
		if (*s == '\0')
			return;
		e = strchr(s, '/');
		len = e != NULL ? (size_t)(e - s) : strlen(s);
		if (!(dots && len == 1 && s[0] == '.')) {
			c->start[c->n] = s;
			c->len[c->n++] = len;
		}
		s += len;
	}
}

GR_FN void
gr_comps_free(struct gr_comps *c)
{
	free(c->start);
	free(c->len);
}

/*
 * Returns 1 if |pattern| matches |path| or one of its ancestors, as
 * tc_glob_match() documents it, else 0.
 */
GR_FN int
gr_match(const char *pattern, const char *path)
{
	struct gr_comps pc, sc;
	size_t i, j, w;
	unsigned char *m;
	int r, star;

	/* Absolute patterns for absolute paths, relative for relative. */
	if ((pattern[0] == '/') != (path[0] == '/'))
		return 0;
	gr_split(pattern, 0, &pc);
	gr_split(path, 1, &sc);
	/* A root itself ("", ".", "/") is never matched. */
	if (sc.n == 0) {
		gr_comps_free(&pc);
		gr_comps_free(&sc);
		return 0;
	}
	w = sc.n + 1;
	/* m[i * w + j]: pattern components from i match path components
	 * from j on, the rest of the path lying beneath the match. */
	if ((m = calloc((pc.n + 1) * w, 1)) == NULL)
		abort();
	for (j = 0; j <= sc.n; j++)
		m[pc.n * w + j] = 1;	/* beneath a match */
	for (i = pc.n; i-- > 0;) {
		star = pc.len[i] == 2 && memcmp(pc.start[i], "**", 2) == 0;
		for (j = sc.n + 1; j-- > 0;) {
			if (star)
				r = m[(i + 1) * w + j] ||
				    (j < sc.n && m[i * w + j + 1]);
			else
				r = j < sc.n && m[(i + 1) * w + j + 1] &&
				    gr_component(pc.start[i], pc.start[i] +
				    pc.len[i], sc.start[j], sc.start[j] +
				    sc.len[j]);
			m[i * w + j] = (unsigned char)r;
		}
	}
	r = m[0];
	free(m);
	gr_comps_free(&pc);
	gr_comps_free(&sc);
	return r;
}

#endif /* TC_GLOBREF_H */
