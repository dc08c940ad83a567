/*
 * policyfile.c: the policy file, toolcell-policy(5).  A line-oriented
 * language: one setting per line, words separated by blanks, a word may be
 * double-quoted (with \" and \\ as its only escapes), and '#' at the start
 * of a word comments out the rest of the line.
 *
 * Every error is reported as "file:line: message" and counted, and reading
 * goes on, so that a person sees all of them at once (httpd's parse.y).
 * Any keyword not listed here is refused, so that nothing in a policy is
 * silently ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/glob.h"
#include "policy/policy.h"
#include "base/text.h"

#define MAX_LINE	8192		/* bytes in one line */
#define MAX_WORDS	8		/* words in one line */
#define MAX_FILE	(1L << 20)	/* a policy is a short text */

#define MS_SEC		1000ULL
#define MS_MIN		(60 * MS_SEC)
#define MS_HOUR		(60 * MS_MIN)
#define KIB		1024ULL
#define MIB		(1024 * KIB)
#define GIB		(1024 * MIB)
#define TIB		(1024 * GIB)

struct state {
	struct tc_policy	*p;
	const char		*file;
	int			 line;
	int			 nerrors;
	int			 saw_allow;
	int			 foreign;	/* in another server's section */
	tc_policy_report_fn	*report;
	void			*ctx;
};

static void	error(struct state *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

/* Reports "file:line: message" (or "file: message" when line is 0). */
static void
error(struct state *st, const char *fmt, ...)
{
	char msg[512], full[1024];
	va_list ap;

	va_start(ap, fmt);
	tc_text_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (st->line > 0)
		tc_text_fmt(full, sizeof(full), "%s:%d: %s", st->file, st->line,
		    msg);
	else
		tc_text_fmt(full, sizeof(full), "%s: %s", st->file, msg);
	st->nerrors++;
	if (st->report != NULL)
		st->report(st->ctx, full);
}

/* --- Words --- */

/*
 * Splits |line| in place into at most MAX_WORDS words, unquoting quoted
 * ones.  Returns the number of words, or -1 after reporting an error.
 */
static int
split(struct state *st, char *line, char **w)
{
	char *r = line, *o;
	int n = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t')
			r++;
		if (*r == '\0' || *r == '#')
			return n;
		if (n == MAX_WORDS) {
			error(st, "too many words (at most %d in a line)",
			    MAX_WORDS);
			return -1;
		}
		if (*r != '"') {
			w[n++] = r;
			while (*r != '\0' && *r != ' ' && *r != '\t') {
				if (*r == '"') {
					error(st, "'\"' inside a word: quote "
					    "the whole word");
					return -1;
				}
				r++;
			}
			if (*r != '\0')
				*r++ = '\0';
			continue;
		}
		/* Unquoting only shrinks the word, so |o| never passes |r|. */
		w[n++] = o = r++;
		for (;;) {
			if (*r == '\0' || (*r == '\\' && r[1] == '\0')) {
				error(st, "unterminated quoted word");
				return -1;
			}
			if (*r == '"')
				break;
			if (*r == '\\') {
				if (r[1] != '"' && r[1] != '\\') {
					error(st, "unknown escape '\\%c' in a "
					    "quoted word (only \\\" and \\\\)",
					    r[1]);
					return -1;
				}
				r++;
			}
			*o++ = *r++;
		}
		r++;
		if (*r != '\0' && *r != ' ' && *r != '\t') {
			error(st, "a quoted word must be followed by a blank "
			    "or the end of the line");
			return -1;
		}
		*o = '\0';
	}
}

/* Reports words after the |n| expected ones; returns 0 if there are none. */
static int
extra(struct state *st, char **w, int nw, int n, const char *what)
{
	if (nw <= n)
		return 0;
	error(st, "%s: unexpected '%s' at the end of the line", what, w[n]);
	return -1;
}

/* Records that setting |set| is given at this line; returns -1 (after
 * reporting) if it was given before. */
static int
set_once_in(struct state *st, int *set_at, enum tc_setting set,
    const char *what)
{
	int *at = &set_at[set];

	if (*at > 0) {
		error(st, "%s: already set at line %d", what, *at);
		return -1;
	}
	*at = st->line;
	return 0;
}

static int
set_once(struct state *st, enum tc_setting set, const char *what)
{
	return set_once_in(st, st->p->set_at, set, what);
}

/* --- Values --- */

/*
 * Parses the decimal digits at |s| into |v| and points |end| past them.
 * Returns 0, -1 if there are none, or -2 on overflow.
 */
static int
digits(const char *s, const char **end, unsigned long long *v)
{
	unsigned long long n = 0;

	*end = s;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (ULLONG_MAX - (unsigned)(*s - '0')) / 10)
			return -2;
		n = n * 10 + (unsigned)(*s - '0');
	}
	*end = s;
	*v = n;
	return 0;
}

struct unit {
	const char		*name;
	unsigned long long	 mult;
};

static const struct unit duration_units[] = {
	{ "ms",	1 },
	{ "s",	MS_SEC },
	{ "m",	MS_MIN },
	{ "h",	MS_HOUR },
	{ NULL,	0 }
};

static const struct unit size_units[] = {
	{ "",	1 },
	{ "K",	KIB },
	{ "M",	MIB },
	{ "G",	GIB },
	{ "T",	TIB },
	{ NULL,	0 }
};

/* Parses a whole number followed by one of |units|.  Returns 0, -1 if |s|
 * is not of that form, or -2 if the value overflows. */
static int
with_unit(const char *s, const struct unit *units, unsigned long long *v)
{
	const char *end;
	unsigned long long n;
	int rc;

	if ((rc = digits(s, &end, &n)) != 0)
		return rc;
	for (; units->name != NULL; units++) {
		if (strcmp(end, units->name) != 0)
			continue;
		if (n > ULLONG_MAX / units->mult)
			return -2;
		*v = n * units->mult;
		return 0;
	}
	return -1;
}

/* Returns |ms| written with the largest unit that divides it. */
static const char *
fmt_duration(unsigned long long ms, char *buf, size_t len)
{
	if (ms != 0 && ms % MS_HOUR == 0)
		snprintf(buf, len, "%lluh", ms / MS_HOUR);
	else if (ms != 0 && ms % MS_MIN == 0)
		snprintf(buf, len, "%llum", ms / MS_MIN);
	else if (ms != 0 && ms % MS_SEC == 0)
		snprintf(buf, len, "%llus", ms / MS_SEC);
	else
		snprintf(buf, len, "%llums", ms);
	return buf;
}

/* Returns |n| bytes written with the largest unit that divides it. */
static const char *
fmt_size(unsigned long long n, char *buf, size_t len)
{
	static const char units[] = "TGMK";
	unsigned long long m = TIB;
	size_t i;

	for (i = 0; n != 0 && i < sizeof(units) - 1; i++, m /= 1024)
		if (n % m == 0) {
			snprintf(buf, len, "%llu%c", n / m, units[i]);
			return buf;
		}
	snprintf(buf, len, "%llu", n);
	return buf;
}

/* --- Keywords --- */

enum kind {
	DURATION,	/* milliseconds */
	SECONDS,	/* a duration in whole seconds */
	SIZE,		/* bytes */
	COUNT,
};

/* A setting that takes one value: its name, kind, bounds and slot. */
struct scalar {
	const char		*name;
	enum kind		 kind;
	unsigned long long	 min, max;	/* in ms, bytes or units */
	enum tc_setting		 set;
};

static const struct scalar timeout_setting =
	{ "timeout", DURATION, 1, MS_HOUR, TC_SET_TIMEOUT };

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct scalar limits[] = {
	{ "cpu",	SECONDS,	MS_SEC, MS_HOUR,	TC_SET_CPU },
	{ "files",	COUNT,		16, 65536,		TC_SET_FILES },
	{ "filesize",	SIZE,		0, TIB,			TC_SET_FILESIZE },
	{ "memory",	SIZE,		16 * MIB, TIB,		TC_SET_MEMORY },
	{ "output",	SIZE,		KIB, GIB,		TC_SET_OUTPUT },
	{ "processes",	COUNT,		1, 4096,		TC_SET_PROCESSES },
};

static void
store(struct tc_limits *l, enum tc_setting set, unsigned long long v)
{
	switch (set) {
	case TC_SET_TIMEOUT:
		l->deadline_ms = (int)v;
		break;
	case TC_SET_MEMORY:
		l->mem_bytes = (unsigned long)v;
		break;
	case TC_SET_CPU:
		l->cpu_sec = (unsigned long)(v / MS_SEC);
		break;
	case TC_SET_OUTPUT:
		l->max_result = (size_t)v;
		break;
	case TC_SET_FILES:
		l->nofile = (unsigned long)v;
		break;
	case TC_SET_PROCESSES:
		l->nproc = (unsigned long)v;
		break;
	case TC_SET_FILESIZE:
		l->fsize_bytes = (unsigned long)v;
		break;
	default:
		break;		/* not a number */
	}
}

/* Returns |v| (in the kind's unit) as a setting of that kind is written. */
static const char *
fmt_value(enum kind kind, unsigned long long v, char *buf, size_t len)
{
	switch (kind) {
	case DURATION:
	case SECONDS:
		return fmt_duration(v, buf, len);
	case SIZE:
		return fmt_size(v, buf, len);
	case COUNT:
		break;
	}
	snprintf(buf, len, "%llu", v);
	return buf;
}

/* Parses the value |w[0]| of |sc|, named |what| in errors, into |v|.
 * Returns 0, or -1 after reporting why not. */
static int
scalar_value(struct state *st, const struct scalar *sc, const char *what,
    char **w, int nw, unsigned long long *vp)
{
	static const char *const forms[] = {
		[DURATION] = "a whole number and a unit, ms, s, m or h "
		    "(like 30s)",
		[SECONDS] = "a whole number and a unit, s, m or h (like 30s)",
		[SIZE] = "a whole number of bytes, or one followed by K, M, "
		    "G or T (like 512M)",
		[COUNT] = "a whole number",
	};
	static const char *const nouns[] = {
		[DURATION] = "duration", [SECONDS] = "duration",
		[SIZE] = "size", [COUNT] = "number",
	};
	char lo[32], hi[32];
	unsigned long long v = 0;
	const char *end;
	int rc = -1;

	if (nw < 1) {
		error(st, "%s: missing %s: write %s", what, nouns[sc->kind],
		    forms[sc->kind]);
		return -1;
	}
	if (extra(st, w, nw, 1, what) != 0)
		return -1;
	switch (sc->kind) {
	case DURATION:
	case SECONDS:
		rc = with_unit(w[0], duration_units, &v);
		break;
	case SIZE:
		rc = with_unit(w[0], size_units, &v);
		break;
	case COUNT:
		if ((rc = digits(w[0], &end, &v)) == 0 && *end != '\0')
			rc = -1;
		break;
	}
	if (rc == -1 && sc->kind == COUNT) {
		error(st, "%s: '%s' is not a whole number", what, w[0]);
		return -1;
	}
	if (rc == -1) {
		error(st, "%s: '%s' is not a %s: write %s", what, w[0],
		    nouns[sc->kind], forms[sc->kind]);
		return -1;
	}
	if (rc == -2 || v < sc->min || v > sc->max) {
		error(st, "%s: '%s' is out of range: %s to %s", what, w[0],
		    fmt_value(sc->kind, sc->min, lo, sizeof(lo)),
		    fmt_value(sc->kind, sc->max, hi, sizeof(hi)));
		return -1;
	}
	if (sc->kind == SECONDS && v % MS_SEC != 0) {
		error(st, "%s: '%s' is not a whole number of seconds", what,
		    w[0]);
		return -1;
	}
	*vp = v;
	return 0;
}

/* Parses |sc| and stores it in |l|, recording its line in |set_at|. */
static void
scalar_in(struct state *st, const struct scalar *sc, const char *what,
    char **w, int nw, struct tc_limits *l, int *set_at)
{
	unsigned long long v;

	if (scalar_value(st, sc, what, w, nw, &v) == 0 &&
	    set_once_in(st, set_at, sc->set, what) == 0)
		store(l, sc->set, v);
}

static void
scalar(struct state *st, const struct scalar *sc, const char *what,
    char **w, int nw)
{
	scalar_in(st, sc, what, w, nw, &st->p->limits, st->p->set_at);
}

static void
kw_timeout(struct state *st, char **w, int nw)
{
	scalar(st, &timeout_setting, "timeout", w, nw);
}

static int
limit_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct scalar *)elem)->name);
}

/* Parses "KIND VALUE" of a limit into |l| and |set_at|; |prefix| names
 * the line's start in errors ("limit", "tool x limit"). */
static void
limit_in(struct state *st, const char *prefix, char **w, int nw,
    struct tc_limits *l, int *set_at)
{
	const struct scalar *sc;
	char what[96];

	if (nw < 1) {
		error(st, "%s: missing what to limit (cpu, files, "
		    "filesize, memory, output or processes)", prefix);
		return;
	}
	sc = bsearch(w[0], limits, TC_NITEMS(limits), sizeof(limits[0]),
	    limit_cmp);
	if (sc == NULL) {
		error(st, "%s: unknown limit '%s' (known: cpu, files, "
		    "filesize, memory, output, processes)", prefix, w[0]);
		return;
	}
	tc_text_fmt(what, sizeof(what), "%s %s", prefix, sc->name);
	scalar_in(st, sc, what, w + 1, nw - 1, l, set_at);
}

static void
kw_limit(struct state *st, char **w, int nw)
{
	limit_in(st, "limit", w, nw, &st->p->limits, st->p->set_at);
}

/* Returns |path| with a leading "~/" replaced by the home directory of the
 * user running the server, or NULL after reporting why it cannot be.  The
 * caller frees the result. */
static char *
expand_home(struct state *st, const char *what, const char *path)
{
	const struct passwd *pw;
	const char *home;
	char *out;

	if ((home = getenv("HOME")) == NULL || *home == '\0') {
		if ((pw = getpwuid(getuid())) == NULL) {
			error(st, "%s: cannot expand '%s': HOME is not set and "
			    "uid %u has no home directory", what, path,
			    (unsigned)getuid());
			return NULL;
		}
		home = pw->pw_dir;
	}
	if (home[0] != '/') {
		error(st, "%s: cannot expand '%s': the home directory '%s' is "
		    "not an absolute path", what, path, home);
		return NULL;
	}
	if (asprintf(&out, "%s/%s", home, path + 2) < 0) {
		error(st, "out of memory");
		return NULL;
	}
	return out;
}

/* Returns a copy of path |word| (absolute, or "~/" expanded), or NULL
 * after reporting why it is not one.  The caller frees the result. */
static char *
absolute_word(struct state *st, const char *what, const char *word)
{
	char *path;

	if (word[0] == '\0') {
		error(st, "%s: empty path", what);
		return NULL;
	}
	if (strncmp(word, "~/", 2) == 0)
		return expand_home(st, what, word);
	if (word[0] != '/') {
		error(st, "%s: '%s' is a relative path: write an absolute "
		    "path (or one starting with ~/)", what, word);
		return NULL;
	}
	if ((path = strdup(word)) == NULL)
		error(st, "out of memory");
	return path;
}

/* Removes the last root, which duplicates an earlier one. */
static void
drop_last_root(struct tc_policy *p)
{
	struct tc_root *r = &p->roots[--p->nroots];

	close(r->fd);
	free(r->path);
	free(r->given);
}

static void
kw_allow(struct state *st, char **w, int nw)
{
	struct tc_diag d = { "", 0 };
	struct tc_policy *p = st->p;
	struct tc_root *r;
	const char *what;
	char *path = NULL;
	unsigned flags;
	size_t i;

	st->saw_allow = 1;
	if (nw < 1) {
		error(st, "allow: missing 'read' or 'write' and a directory");
		return;
	}
	if (strcmp(w[0], "read") == 0) {
		what = "allow read";
		flags = 0;
	} else if (strcmp(w[0], "write") == 0) {
		what = "allow write";
		flags = TC_ROOT_WRITE;
	} else {
		error(st, "allow: expected 'read' or 'write', not '%s'", w[0]);
		return;
	}
	if (nw < 2) {
		error(st, "%s: missing the directory", what);
		return;
	}
	if (nw > 2) {
		error(st, "%s: unexpected '%s' after the directory (a path "
		    "with blanks must be in double quotes)", what, w[2]);
		return;
	}
	if ((path = absolute_word(st, what, w[1])) == NULL)
		return;
	if (tc_policy_add_root(p, path, flags, &d) != 0) {
		error(st, "%s: %s", what, d.msg);
		free(path);
		return;
	}
	free(path);
	r = &p->roots[p->nroots - 1];
	r->line = r->write_line = st->line;
	for (i = 0; i + 1 < p->nroots; i++) {
		if (strcmp(p->roots[i].path, r->path) == 0) {
			error(st, "%s: '%s' is already allowed at line %d",
			    what, r->path, p->roots[i].line);
			drop_last_root(p);
			return;
		}
	}
}

static void
kw_run_as(struct state *st, char **w, int nw)
{
	if (nw < 1) {
		error(st, "run-as: missing USER or USER:GROUP");
		return;
	}
	if (extra(st, w, nw, 1, "run-as") != 0)
		return;
	if (w[0][0] == '\0' || w[0][0] == ':') {
		error(st, "run-as: missing the user before ':'");
		return;
	}
	if (set_once(st, TC_SET_RUN_AS, "run-as") != 0)
		return;
	if ((st->p->run_as_spec = strdup(w[0])) == NULL)
		error(st, "out of memory");
}

static void
kw_degraded(struct state *st, char **w, int nw)
{
	if (nw < 1) {
		error(st, "allow-degraded: missing the layer (landlock or "
		    "seccomp)");
		return;
	}
	if (extra(st, w, nw, 1, "allow-degraded") != 0)
		return;
	if (strcmp(w[0], "landlock") == 0) {
		if (set_once(st, TC_SET_DEGRADE_LANDLOCK,
		    "allow-degraded landlock") == 0)
			st->p->allow_degraded |= TC_DEGRADE_LANDLOCK;
	} else if (strcmp(w[0], "seccomp") == 0) {
		if (set_once(st, TC_SET_DEGRADE_SECCOMP,
		    "allow-degraded seccomp") == 0)
			st->p->allow_degraded |= TC_DEGRADE_SECCOMP;
	} else
		error(st, "allow-degraded: unknown layer '%s' (known: "
		    "landlock, seccomp)", w[0]);
}

/* --- Deny, tools, network --- */

/*
 * Returns a copy of pattern |word| for |what| ("~/" expanded), or NULL
 * after reporting why it is not a pattern.
 */
static char *
pattern_word(struct state *st, const char *what, const char *word)
{
	char why[160], *pat;
	const char *c;

	if (word[0] == '\0') {
		error(st, "%s: empty pattern", what);
		return NULL;
	}
	for (c = word; (c = strstr(c, "..")) != NULL; c += 2) {
		if ((c == word || c[-1] == '/') && (c[2] == '\0' ||
		    c[2] == '/')) {
			error(st, "%s: '%s': a pattern cannot contain '..'",
			    what, word);
			return NULL;
		}
	}
	/* Paths are matched in canonical form: a "." never matches. */
	for (c = word; (c = strchr(c, '.')) != NULL; c++) {
		if ((c == word || c[-1] == '/') && (c[1] == '\0' ||
		    c[1] == '/') && strncmp(word, "./", 2) != 0) {
			error(st, "%s: '%s': a pattern cannot contain '.' as "
			    "a component", what, word);
			return NULL;
		}
	}
	if (strncmp(word, "./", 2) == 0) {
		error(st, "%s: '%s': write it without './' (a pattern without "
		    "a leading '/' is relative to each directory served)",
		    what, word);
		return NULL;
	}
	if (strncmp(word, "~/", 2) == 0)
		pat = expand_home(st, what, word);
	else if ((pat = strdup(word)) == NULL)
		error(st, "out of memory");
	if (pat != NULL && !tc_glob_valid(pat, why, sizeof(why))) {
		error(st, "%s: '%s': %s", what, word, why);
		free(pat);
		return NULL;
	}
	return pat;
}

static void
kw_deny(struct state *st, char **w, int nw)
{
	struct tc_policy *p = st->p;
	struct tc_deny *nd;
	unsigned access = TC_ACCESS_READ | TC_ACCESS_WRITE;
	const char *what = "deny";
	char *pat;

	if (nw >= 1 && strcmp(w[0], "write") == 0) {
		access = TC_ACCESS_WRITE;
		what = "deny write";
		w++, nw--;
	} else if (nw == 2 && strcmp(w[0], "read") == 0) {
		error(st, "deny read: write 'deny PATTERN' (a denied path can "
		    "be neither read nor written) or 'deny write PATTERN'");
		return;
	}
	if (nw < 1) {
		error(st, "%s: missing the pattern (like **/.env)", what);
		return;
	}
	if (nw > 1) {
		error(st, "%s: unexpected '%s' after the pattern (one pattern "
		    "per line; a pattern with blanks goes in double quotes)",
		    what, w[1]);
		return;
	}
	if ((pat = pattern_word(st, what, w[0])) == NULL)
		return;
	if ((nd = reallocarray(p->deny, p->ndeny + 1, sizeof(*nd))) == NULL) {
		error(st, "out of memory");
		free(pat);
		return;
	}
	p->deny = nd;
	memset(&nd[p->ndeny], 0, sizeof(*nd));
	nd[p->ndeny].pattern = pat;
	nd[p->ndeny].access = access;
	nd[p->ndeny].line = st->line;
	p->ndeny++;
}

/* Parses "on" or "off" for |what| into |v|; returns 0 or -1. */
static int
on_off(struct state *st, const char *what, char **w, int nw, int *v)
{
	if (nw < 1) {
		error(st, "%s: missing 'on' or 'off'", what);
		return -1;
	}
	if (extra(st, w, nw, 1, what) != 0)
		return -1;
	if (strcmp(w[0], "on") == 0)
		*v = 1;
	else if (strcmp(w[0], "off") == 0)
		*v = 0;
	else {
		error(st, "%s: expected 'on' or 'off', not '%s'", what, w[0]);
		return -1;
	}
	return 0;
}

static void
kw_default_deny(struct state *st, char **w, int nw)
{
	int v;

	if (on_off(st, "default-deny", w, nw, &v) == 0 &&
	    set_once(st, TC_SET_DEFAULT_DENY, "default-deny") == 0)
		st->p->default_deny = v;
}

/* Returns the tool named |name|, or NULL after reporting it unknown. */
static struct tc_tool_policy *
known_tool(struct state *st, const char *what, const char *name)
{
	struct tc_policy *p = st->p;
	const char *canon;
	char list[512];
	size_t i, n = 0;

	for (i = 0; i < p->ntools; i++)
		if (strcmp(p->tools[i].name, name) == 0)
			return &p->tools[i];
	/* One name per tool: a line on the alias would read as a switch of
	 * its own, which it is not. */
	if ((canon = tc_policy_alias_of(p, name)) != NULL) {
		error(st, "%s: '%s' is an alias of '%s', and the same tool: "
		    "write '%s', which covers both", what, name, canon, canon);
		return NULL;
	}
	list[0] = '\0';
	for (i = 0; i < p->ntools && n < sizeof(list); i++)
		n += tc_text_fmt(list + n, sizeof(list) - n, "%s%s",
		    i ? ", " : "", p->tools[i].name);
	error(st, "%s: %s has no tool '%s' (it has: %s)", what,
	    p->server != NULL ? p->server : "this server", name, list);
	return NULL;
}

static void
kw_tools(struct state *st, char **w, int nw)
{
	struct tc_policy *p = st->p;
	struct tc_tool_policy *t;
	int k;

	if (nw < 1) {
		error(st, "tools: missing the names of the tools to enable");
		return;
	}
	if (p->set_at[TC_SET_TOOLS] == 0) {
		/* From the first "tools" line on, a tool not named is off. */
		p->set_at[TC_SET_TOOLS] = st->line;
	}
	for (k = 0; k < nw; k++) {
		if ((t = known_tool(st, "tools", w[k])) == NULL)
			continue;
		t->named = 1;
		if (t->line == 0)
			t->line = st->line;
	}
}

static const struct scalar consent_timeout_setting =
	{ "consent-timeout", DURATION, MS_SEC, 10 * MS_MIN,
	  TC_SET_CONSENT_TIMEOUT };
static const struct scalar roots_timeout_setting =
	{ "roots-timeout", DURATION, 100, MS_MIN, TC_SET_ROOTS_TIMEOUT };

static void
kw_tool(struct state *st, char **w, int nw)
{
	struct tc_tool_policy *t;
	char what[96];

	if (nw < 1) {
		error(st, "tool: missing the tool's name");
		return;
	}
	if ((t = known_tool(st, "tool", w[0])) == NULL)
		return;
	if (t->line == 0)
		t->line = st->line;
	tc_text_fmt(what, sizeof(what), "tool %s", t->name);
	if (nw < 2) {
		error(st, "%s: missing 'off', 'timeout' or 'limit'", what);
		return;
	}
	if (strcmp(w[1], "off") == 0) {
		if (extra(st, w, nw, 2, what) != 0)
			return;
		if (t->off_line)
			error(st, "%s off: already set at line %d", what,
			    t->off_line);
		else
			t->off_line = st->line;
	} else if (strcmp(w[1], "timeout") == 0) {
		tc_text_fmt(what, sizeof(what), "tool %s timeout", t->name);
		scalar_in(st, &timeout_setting, what, w + 2, nw - 2,
		    &t->limits, t->set_at);
	} else if (strcmp(w[1], "limit") == 0) {
		tc_text_fmt(what, sizeof(what), "tool %s limit", t->name);
		limit_in(st, what, w + 2, nw - 2, &t->limits, t->set_at);
	} else
		error(st, "%s: expected 'off', 'timeout' or 'limit', not '%s'",
		    what, w[1]);
}

static void
kw_network(struct state *st, char **w, int nw)
{
	int v;

	if (on_off(st, "network", w, nw, &v) != 0 ||
	    set_once(st, TC_SET_NETWORK, "network") != 0)
		return;
	if (v && !(st->p->features & TC_POLICY_F_NETWORK)) {
		error(st, "network on: %s has no tool that uses a network; "
		    "its calls never reach one",
		    st->p->server != NULL ? st->p->server : "this server");
		return;
	}
	st->p->network = v;
}

/* --- Consent --- */

static void
kw_consent(struct state *st, char **w, int nw)
{
	struct tc_policy *p = st->p;
	struct tc_consent_rule *nr, *r;
	int k;

	if (nw < 1) {
		error(st, "consent: missing the tool ('*' for every tool)");
		return;
	}
	if (strcmp(w[0], "*") != 0 && known_tool(st, "consent", w[0]) == NULL)
		return;
	if ((nr = reallocarray(p->consent, p->nconsent + 1,
	    sizeof(*nr))) == NULL) {
		error(st, "out of memory");
		return;
	}
	p->consent = nr;
	r = &nr[p->nconsent];
	memset(r, 0, sizeof(*r));
	r->line = st->line;
	if ((r->tool = strdup(w[0])) == NULL ||
	    (r->patterns = calloc((size_t)nw, sizeof(char *))) == NULL) {
		free(r->tool);
		error(st, "out of memory");
		return;
	}
	p->nconsent++;
	for (k = 1; k < nw; k++) {
		char *pat = pattern_word(st, "consent", w[k]);

		if (pat != NULL)
			r->patterns[r->npatterns++] = pat;
	}
}

static void
kw_consent_by(struct state *st, char **w, int nw)
{
	struct tc_policy *p = st->p;
	enum tc_consent_means m;
	size_t i;
	int k;

	if (nw < 1) {
		error(st, "consent-by: missing the means, in order: "
		    "elicitation, hook, or both");
		return;
	}
	if (set_once(st, TC_SET_CONSENT_BY, "consent-by") != 0)
		return;
	for (k = 0; k < nw; k++) {
		if (strcmp(w[k], "elicitation") == 0)
			m = TC_CONSENT_ELICIT;
		else if (strcmp(w[k], "hook") == 0)
			m = TC_CONSENT_HOOK;
		else {
			error(st, "consent-by: unknown means '%s' (known: "
			    "elicitation, hook; a call no means answers is "
			    "denied)", w[k]);
			continue;
		}
		for (i = 0; i < p->nconsent_by; i++)
			if (p->consent_by[i] == m)
				break;
		if (i < p->nconsent_by) {
			error(st, "consent-by: '%s' named twice", w[k]);
			continue;
		}
		p->consent_by[p->nconsent_by++] = m;
	}
}

static void
kw_consent_hook(struct state *st, char **w, int nw)
{
	struct tc_policy *p = st->p;
	struct stat sb;
	char *prog;
	int k;

	if (nw < 1) {
		error(st, "consent-hook: missing the program");
		return;
	}
	if (set_once(st, TC_SET_CONSENT_HOOK, "consent-hook") != 0)
		return;
	if ((prog = absolute_word(st, "consent-hook", w[0])) == NULL)
		return;
	if (stat(prog, &sb) != 0) {
		error(st, "consent-hook: '%s': %s", prog, strerror(errno));
		free(prog);
		return;
	}
	if (!S_ISREG(sb.st_mode) || access(prog, X_OK) != 0) {
		error(st, "consent-hook: '%s': not an executable file", prog);
		free(prog);
		return;
	}
	/* The hook decides consent: whoever may change it may say yes. */
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		error(st, "consent-hook: '%s': writable by group or others; "
		    "chmod go-w %s", prog, prog);
		free(prog);
		return;
	}
	if ((p->consent_hook = calloc((size_t)nw + 1, sizeof(char *))) ==
	    NULL) {
		free(prog);
		error(st, "out of memory");
		return;
	}
	p->consent_hook[0] = prog;
	for (k = 1; k < nw; k++)
		if ((p->consent_hook[k] = strdup(w[k])) == NULL) {
			error(st, "out of memory");
			return;
		}
}

static void
kw_consent_timeout(struct state *st, char **w, int nw)
{
	unsigned long long v;

	if (scalar_value(st, &consent_timeout_setting, "consent-timeout", w,
	    nw, &v) == 0 && set_once(st, TC_SET_CONSENT_TIMEOUT,
	    "consent-timeout") == 0)
		st->p->consent_timeout_ms = (int)v;
}

static void
kw_roots_timeout(struct state *st, char **w, int nw)
{
	unsigned long long v;

	if (scalar_value(st, &roots_timeout_setting, "roots-timeout", w, nw,
	    &v) == 0 && set_once(st, TC_SET_ROOTS_TIMEOUT,
	    "roots-timeout") == 0)
		st->p->roots_timeout_ms = (int)v;
}

static void
kw_roots(struct state *st, char **w, int nw)
{
	static const enum tc_roots_mode modes[] = {
		TC_ROOTS_NARROW, TC_ROOTS_STRICT, TC_ROOTS_IGNORE,
	};
	size_t i;

	if (nw < 1) {
		error(st, "roots: missing 'narrow', 'strict' or 'ignore'");
		return;
	}
	if (extra(st, w, nw, 1, "roots") != 0)
		return;
	for (i = 0; i < TC_NITEMS(modes); i++)
		if (strcmp(w[0], tc_roots_mode_name(modes[i])) == 0)
			break;
	if (i == TC_NITEMS(modes)) {
		error(st, "roots: expected 'narrow' (the client's roots narrow "
		    "the directories, unless that leaves none), 'strict' "
		    "(even to none) or 'ignore', not '%s'", w[0]);
		return;
	}
	if (set_once(st, TC_SET_ROOTS, "roots") == 0)
		st->p->roots_mode = modes[i];
}

/* --- Audit --- */

static void
kw_audit(struct state *st, char **w, int nw)
{
	char *path;

	if (nw < 1) {
		error(st, "audit: missing the log file");
		return;
	}
	if (extra(st, w, nw, 1, "audit") != 0 ||
	    set_once(st, TC_SET_AUDIT, "audit") != 0)
		return;
	if ((path = absolute_word(st, "audit", w[0])) != NULL)
		st->p->audit_file = path;
}

static void
kw_audit_key(struct state *st, char **w, int nw)
{
	char *path;

	if (nw < 1) {
		error(st, "audit-key: missing the key file");
		return;
	}
	if (extra(st, w, nw, 1, "audit-key") != 0 ||
	    set_once(st, TC_SET_AUDIT_KEY, "audit-key") != 0)
		return;
	if ((path = absolute_word(st, "audit-key", w[0])) != NULL)
		st->p->audit_key_file = path;
}

static void
kw_audit_sync(struct state *st, char **w, int nw)
{
	if (nw < 1) {
		error(st, "audit-sync: missing 'every' or 'none'");
		return;
	}
	if (extra(st, w, nw, 1, "audit-sync") != 0)
		return;
	if (strcmp(w[0], "every") != 0 && strcmp(w[0], "none") != 0) {
		error(st, "audit-sync: expected 'every' (fsync each record) "
		    "or 'none', not '%s'", w[0]);
		return;
	}
	if (set_once(st, TC_SET_AUDIT_SYNC, "audit-sync") == 0)
		st->p->audit_sync = strcmp(w[0], "every") == 0 ?
		    TC_AUDIT_SYNC_EVERY : TC_AUDIT_SYNC_NONE;
}

static void
kw_write_sync(struct state *st, char **w, int nw)
{
	if (nw < 1) {
		error(st, "write-sync: missing 'every' or 'none'");
		return;
	}
	if (extra(st, w, nw, 1, "write-sync") != 0)
		return;
	if (strcmp(w[0], "every") != 0 && strcmp(w[0], "none") != 0) {
		error(st, "write-sync: expected 'every' (fsync each file "
		    "written before answering) or 'none', not '%s'", w[0]);
		return;
	}
	if (set_once(st, TC_SET_WRITE_SYNC, "write-sync") == 0)
		st->p->write_sync = strcmp(w[0], "every") == 0;
}

static const struct scalar rotate_setting =
	{ "audit-rotate", SIZE, 64 * KIB, TIB, TC_SET_AUDIT_ROTATE };
static const struct scalar keep_setting =
	{ "audit-rotate keep", COUNT, 1, 10000, TC_SET_AUDIT_ROTATE };

static void
kw_audit_rotate(struct state *st, char **w, int nw)
{
	unsigned long long size, keep = 0;

	if (nw > 1 && strcmp(w[1], "keep") != 0) {
		error(st, "audit-rotate: expected 'keep N' after the size, "
		    "not '%s'", w[1]);
		return;
	}
	if (nw == 2) {
		error(st, "audit-rotate keep: missing number");
		return;
	}
	if (scalar_value(st, &rotate_setting, "audit-rotate", w,
	    nw > 1 ? 1 : nw, &size) != 0)
		return;
	if (nw > 2 && scalar_value(st, &keep_setting, "audit-rotate keep",
	    w + 2, nw - 2, &keep) != 0)
		return;
	if (set_once(st, TC_SET_AUDIT_ROTATE, "audit-rotate") != 0)
		return;
	st->p->audit_rotate_bytes = size;
	st->p->audit_keep = (unsigned)keep;
}

/* Jobs (serve/job.h): "jobs N" and "job-lifetime DURATION". */
static const struct scalar jobs_setting =
	{ "jobs", COUNT, 0, 64, TC_SET_JOBS };
static const struct scalar job_lifetime_setting =
	{ "job-lifetime", DURATION, MS_SEC, 24 * MS_HOUR, TC_SET_JOB_LIFETIME };

static void
kw_jobs(struct state *st, char **w, int nw)
{
	unsigned long long v;

	if (scalar_value(st, &jobs_setting, "jobs", w, nw, &v) == 0 &&
	    set_once(st, TC_SET_JOBS, "jobs") == 0)
		st->p->max_jobs = (unsigned)v;
}

static void
kw_job_lifetime(struct state *st, char **w, int nw)
{
	unsigned long long v;

	if (scalar_value(st, &job_lifetime_setting, "job-lifetime", w, nw,
	    &v) == 0 && set_once(st, TC_SET_JOB_LIFETIME, "job-lifetime") == 0)
		st->p->job_lifetime_ms = (int)v;
}

struct keyword {
	const char	*name;
	void		(*fn)(struct state *, char **, int);
};

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct keyword keywords[] = {
	{ "allow",		kw_allow },
	{ "allow-degraded",	kw_degraded },
	{ "audit",		kw_audit },
	{ "audit-key",		kw_audit_key },
	{ "audit-rotate",	kw_audit_rotate },
	{ "audit-sync",		kw_audit_sync },
	{ "consent",		kw_consent },
	{ "consent-by",		kw_consent_by },
	{ "consent-hook",	kw_consent_hook },
	{ "consent-timeout",	kw_consent_timeout },
	{ "default-deny",	kw_default_deny },
	{ "deny",		kw_deny },
	{ "job-lifetime",	kw_job_lifetime },
	{ "jobs",		kw_jobs },
	{ "limit",		kw_limit },
	{ "network",		kw_network },
	{ "roots",		kw_roots },
	{ "roots-timeout",	kw_roots_timeout },
	{ "run-as",		kw_run_as },
	{ "timeout",		kw_timeout },
	{ "tool",		kw_tool },
	{ "tools",		kw_tools },
	{ "write-sync",		kw_write_sync },
};

static int
keyword_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct keyword *)elem)->name);
}

/*
 * A section header, "[fs]", "[shell]" or "[sqlite]": the settings below it
 * are for that server.  Each server has a policy of its own, so a section
 * for another server is refused (once, at its header) and skipped.
 */
static void
section(struct state *st, char **w, int nw)
{
	static const char *const known[] = { "fs", "shell", "sqlite" };
	const char *own, *name = w[0] + 1;
	size_t i, len = strlen(w[0]);

	if (nw > 1 || len < 3 || w[0][len - 1] != ']') {
		error(st, "a section header is one word in brackets, like "
		    "[fs]");
		st->foreign = 1;
		return;
	}
	w[0][len - 1] = '\0';
	for (i = 0; i < TC_NITEMS(known); i++)
		if (strcmp(name, known[i]) == 0)
			break;
	if (i == TC_NITEMS(known)) {
		error(st, "unknown section [%s] (known: [fs], [shell], "
		    "[sqlite])", name);
		st->foreign = 1;
		return;
	}
	own = st->p->server;
	if (own != NULL && strncmp(own, "toolcell-", 9) == 0)
		own += 9;
	st->foreign = own == NULL || strcmp(own, name) != 0;
	if (st->foreign)
		error(st, "section [%s] is for toolcell-%s; each server reads "
		    "a policy file of its own", name, name);
}

static void
parse_line(struct state *st, char *line)
{
	const struct keyword *kw;
	char *w[MAX_WORDS];
	int nw;

	if ((nw = split(st, line, w)) <= 0)
		return;
	if (w[0][0] == '[') {
		section(st, w, nw);
		return;
	}
	if (st->foreign)
		return;		/* reported at the section's header */
	kw = bsearch(w[0], keywords, TC_NITEMS(keywords), sizeof(keywords[0]),
	    keyword_cmp);
	if (kw == NULL) {
		error(st, "unknown keyword '%s'", w[0]);
		return;
	}
	kw->fn(st, w + 1, nw - 1);
}

/* Checks what only the whole file can tell: settings that need another. */
static void
after_all(struct state *st)
{
	struct tc_policy *p = st->p;
	size_t i;

	for (i = 0; i < p->nconsent_by; i++)
		if (p->consent_by[i] == TC_CONSENT_HOOK &&
		    p->set_at[TC_SET_CONSENT_HOOK] == 0)
			error(st, "consent-by hook (line %d): no 'consent-hook "
			    "PROGRAM' line names the hook",
			    p->set_at[TC_SET_CONSENT_BY]);
	if (p->set_at[TC_SET_AUDIT] == 0) {
		static const struct {
			enum tc_setting	 set;
			const char	*name;
		} needs[] = {
			{ TC_SET_AUDIT_KEY,	"audit-key" },
			{ TC_SET_AUDIT_SYNC,	"audit-sync" },
			{ TC_SET_AUDIT_ROTATE,	"audit-rotate" },
		};

		for (i = 0; i < TC_NITEMS(needs); i++)
			if (p->set_at[needs[i].set] > 0)
				error(st, "%s (line %d): no 'audit FILE' line "
				    "names the log", needs[i].name,
				    p->set_at[needs[i].set]);
	}
}

/* --- The file --- */

/*
 * Opens |file| for reading if it is a regular file that only its owner can
 * change, and that owner is root or the user running the server; returns a
 * stream, or NULL after reporting why not.
 */
static FILE *
open_policy(struct state *st)
{
	char *real;
	const char *shown;
	struct stat sb, lsb;
	FILE *f;
	int fd;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(st->file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		error(st, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) != 0) {
		error(st, "%s", strerror(errno));
		close(fd);
		return NULL;
	}
	/* The checks are made on the file opened; a symbolic link is named
	 * with what it resolves to, since that is the file to fix. */
	real = NULL;
	if (lstat(st->file, &lsb) == 0 && S_ISLNK(lsb.st_mode))
		real = realpath(st->file, NULL);
	shown = real != NULL ? real : st->file;
	if (!S_ISREG(sb.st_mode))
		error(st, "not a regular file");
	else if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		if (real != NULL)
			error(st, "writable by group or others (a link to "
			    "%s); chmod go-w %s", shown, shown);
		else
			error(st, "writable by group or others; chmod go-w %s",
			    shown);
	} else if (sb.st_uid != 0 && sb.st_uid != geteuid())
		error(st, "owned by uid %u, neither root nor the user running "
		    "the server (uid %u): that user could change the policy",
		    (unsigned)sb.st_uid, (unsigned)geteuid());
	else if (sb.st_size > MAX_FILE)
		error(st, "larger than %ld bytes: not a policy", MAX_FILE);
	free(real);
	if (st->nerrors > 0 || (f = fdopen(fd, "r")) == NULL) {
		if (st->nerrors == 0)
			error(st, "%s", strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

int
tc_policy_load(struct tc_policy *p, const char *file,
    tc_policy_report_fn *report, void *ctx, struct tc_diag *d)
{
	struct tc_tool_policy *t;
	struct state st;
	char *line = NULL;
	size_t cap = 0, i;
	ssize_t len;
	FILE *f;

	memset(&st, 0, sizeof(st));
	st.p = p;
	st.file = file;
	st.report = report;
	st.ctx = ctx;
	free(p->file);
	if ((p->file = strdup(file)) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	if ((f = open_policy(&st)) == NULL)
		return tc_diag(d, TC_EINVAL, "%s: cannot be used", file);
	while ((len = getline(&line, &cap, f)) >= 0) {
		st.line++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len > MAX_LINE)
			error(&st, "line longer than %d bytes", MAX_LINE);
		else if (strlen(line) != (size_t)len)
			error(&st, "a NUL byte in the line");
		else
			parse_line(&st, line);
	}
	if (ferror(f)) {
		st.line = 0;
		error(&st, "%s", strerror(errno));
	}
	free(line);
	fclose(f);
	for (i = 0; i < p->ntools; i++) {
		t = &p->tools[i];
		t->enabled = (p->set_at[TC_SET_TOOLS] == 0 || t->named) &&
		    t->off_line == 0;
	}
	st.line = 0;
	after_all(&st);
	if (!st.saw_allow) {
		st.line = 0;
		error(&st, "no 'allow' line: write 'allow read /path/to/dir' "
		    "(or 'allow write ...') for each directory to serve");
	}
	if (st.nerrors > 0)
		return tc_diag(d, TC_EINVAL, "%s: %d error%s", file,
		    st.nerrors, st.nerrors == 1 ? "" : "s");
	return 0;
}

/* --- Warnings --- */

struct warner {
	const struct tc_policy	*p;
	const char *const	*writers;
	tc_policy_report_fn	*report;
	void			*ctx;
	int			 n;
};

static void	warn_at(struct warner *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

/* Reports "file:line: message", or "file: message" for line 0. */
static void
warn_at(struct warner *w, int line, const char *fmt, ...)
{
	char msg[512], full[1024];
	const char *file = w->p->file != NULL ? w->p->file : "command line";
	va_list ap;

	va_start(ap, fmt);
	tc_text_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		tc_text_fmt(full, sizeof(full), "%s:%d: %s", file, line, msg);
	else
		tc_text_fmt(full, sizeof(full), "%s: %s", file, msg);
	w->n++;
	if (w->report != NULL)
		w->report(w->ctx, full);
}

static int
is_writer(const struct warner *w, const char *name)
{
	size_t i;

	for (i = 0; w->writers != NULL && w->writers[i] != NULL; i++)
		if (strcmp(w->writers[i], name) == 0)
			return 1;
	return 0;
}

/* Returns why tool |t| is not offered ("switched off at line 4"), or NULL
 * when it is. */
static const char *
why_off(const struct warner *w, const struct tc_tool_policy *t, char *buf,
    size_t len)
{
	if (t->off_line > 0)
		tc_text_fmt(buf, len, "switched off at line %d", t->off_line);
	else if (!t->enabled)
		tc_text_fmt(buf, len, "on no 'tools' line (the first is line "
		    "%d)", w->p->set_at[TC_SET_TOOLS]);
	else if (is_writer(w, t->name) && !tc_policy_writable(w->p))
		tc_text_fmt(buf, len, "offered only when a directory is "
		    "writable, and none is");
	else
		return NULL;
	return buf;
}

/* Returns what a tool's setting |set| is called on a 'tool' line. */
static const char *
tool_setting(int set)
{
	switch (set) {
	case TC_SET_TIMEOUT:
		return "timeout";
	case TC_SET_MEMORY:
		return "limit memory";
	case TC_SET_CPU:
		return "limit cpu";
	case TC_SET_OUTPUT:
		return "limit output";
	case TC_SET_FILES:
		return "limit files";
	case TC_SET_PROCESSES:
		return "limit processes";
	case TC_SET_FILESIZE:
		return "limit filesize";
	default:
		return "setting";
	}
}

int
tc_policy_warn(const struct tc_policy *p, const char *const *writers,
    tc_policy_report_fn *report, void *ctx)
{
	struct warner w = { p, writers, report, ctx, 0 };
	const struct tc_tool_policy *t;
	const struct tc_root *r = NULL;
	const char *why;
	char buf[128];
	size_t i;
	int k, on = 0;

	for (i = 0; i < p->nconsent; i++) {
		if (strcmp(p->consent[i].tool, "*") == 0 ||
		    (t = tc_policy_tool(p, p->consent[i].tool)) == NULL ||
		    (why = why_off(&w, t, buf, sizeof(buf))) == NULL)
			continue;
		warn_at(&w, p->consent[i].line, "'consent %s' never applies: "
		    "%s is %s", t->name, t->name, why);
	}
	for (i = 0; i < p->ntools; i++) {
		t = &p->tools[i];
		if ((why = why_off(&w, t, buf, sizeof(buf))) == NULL)
			continue;
		for (k = 0; k < TC_SET_MAX; k++)
			if (t->set_at[k] > 0)
				warn_at(&w, t->set_at[k], "'tool %s %s' has no "
				    "effect: %s is %s", t->name,
				    tool_setting(k), t->name, why);
	}
	for (i = 0; i < p->nroots && r == NULL; i++)
		if (p->roots[i].flags & TC_ROOT_WRITE)
			r = &p->roots[i];
	if (r == NULL || writers == NULL || writers[0] == NULL)
		return w.n;
	for (i = 0; writers[i] != NULL; i++)
		if ((t = tc_policy_tool(p, writers[i])) != NULL && t->enabled)
			on = 1;
	if (!on)
		warn_at(&w, r->line, "'%s'%s is read-write, but every tool "
		    "that changes files is off (%s, ...): name them on a "
		    "'tools' line, or serve it with 'allow read'",
		    r->given != NULL ? r->given : r->path,
		    r->line > 0 ? "" : " (--write)", writers[0]);
	return w.n;
}

/* --- Printing --- */

static const char	*origin(int, char *, size_t);

/* Returns the value of limit |set| in |l|, in its kind's unit. */
static unsigned long long
limit_value(const struct tc_limits *l, enum tc_setting set)
{
	switch (set) {
	case TC_SET_TIMEOUT:
		return (unsigned long long)l->deadline_ms;
	case TC_SET_MEMORY:
		return l->mem_bytes;
	case TC_SET_CPU:
		return l->cpu_sec * MS_SEC;
	case TC_SET_OUTPUT:
		return l->max_result;
	case TC_SET_FILES:
		return l->nofile;
	case TC_SET_PROCESSES:
		return l->nproc;
	case TC_SET_FILESIZE:
		return l->fsize_bytes;
	default:
		return 0;
	}
}

static void
print_deny(const struct tc_policy *p, FILE *f)
{
	const struct tc_deny *r;
	char at[32];
	size_t i;

	fprintf(f, "deny (wins over allow):\n");
	if (p->ndeny == 0)
		fprintf(f, "  nothing%s\n", p->set_at[TC_SET_DEFAULT_DENY] ?
		    " (default-deny off)" : "");
	for (i = 0; i < p->ndeny; i++) {
		r = &p->deny[i];
		if (r->own != NULL) {
			fprintf(f, "  %-10s  %s  (built in: the server's own "
			    "%s)\n", "read-write", r->pattern, r->own);
			continue;
		}
		fprintf(f, "  %-10s  %s  (%s)\n",
		    r->access == TC_ACCESS_WRITE ? "write" : "read-write",
		    r->pattern, r->line > 0 ? origin(r->line, at, sizeof(at)) :
		    "built in");
	}
}

/* Writes the limits where tool |t| differs from the server's. */
static void
print_tool_limits(const struct tc_tool_policy *t, FILE *f)
{
	static const struct {
		const char	*name;
		enum kind	 kind;
		enum tc_setting	 set;
	} rows[] = {
		{ "timeout",	DURATION,	TC_SET_TIMEOUT },
		{ "memory",	SIZE,		TC_SET_MEMORY },
		{ "cpu",	SECONDS,	TC_SET_CPU },
		{ "output",	SIZE,		TC_SET_OUTPUT },
		{ "files",	COUNT,		TC_SET_FILES },
		{ "processes",	COUNT,		TC_SET_PROCESSES },
		{ "filesize",	SIZE,		TC_SET_FILESIZE },
	};
	const struct tc_limits *l = &t->limits;
	unsigned long long v;
	const char *sep = "  ";
	char val[32];
	size_t i;

	for (i = 0; i < TC_NITEMS(rows); i++) {
		if (!t->set_at[rows[i].set])
			continue;
		v = limit_value(l, rows[i].set);
		fprintf(f, "%s%s %s (line %d)", sep, rows[i].name,
		    fmt_value(rows[i].kind, v, val, sizeof(val)),
		    t->set_at[rows[i].set]);
		sep = ", ";
	}
}

static void
print_tools(const struct tc_policy *p, FILE *f)
{
	const struct tc_tool_policy *t;
	char at[32];
	size_t i, j;
	int k, more;

	if (p->ntools == 0)
		return;
	fprintf(f, "tools:\n");
	for (i = 0; i < p->ntools; i++) {
		t = &p->tools[i];
		for (k = 0, more = !t->enabled; k < TC_SET_MAX; k++)
			more |= t->set_at[k] != 0;
		fprintf(f, more ? "  %-26s  %-3s" : "  %-26s  %s", t->name,
		    t->enabled ? "on" : "off");
		if (t->off_line)
			fprintf(f, "  (tool %s off, line %d)", t->name,
			    t->off_line);
		else if (!t->enabled)
			fprintf(f, "  (not on the 'tools' line, %s)",
			    origin(p->set_at[TC_SET_TOOLS], at, sizeof(at)));
		print_tool_limits(t, f);
		fprintf(f, "\n");
		for (j = 0; j < p->naliases; j++)
			if (p->aliases[j].tool == i)
				fprintf(f, "  %-26s  %-3s  (an alias of %s, "
				    "which it follows)\n", p->aliases[j].name,
				    t->enabled ? "on" : "off", t->name);
	}
	fprintf(f, "  (a tool that changes files is listed only when a "
	    "directory is writable)\n");
}

static void
print_consent(const struct tc_policy *p, FILE *f)
{
	const struct tc_consent_rule *r;
	char at[32], val[32];
	size_t i, k;

	fprintf(f, "consent:\n");
	if (p->nconsent == 0)
		fprintf(f, "  no call needs it\n");
	for (i = 0; i < p->nconsent; i++) {
		r = &p->consent[i];
		fprintf(f, "  %s", strcmp(r->tool, "*") == 0 ? "every tool" :
		    r->tool);
		for (k = 0; k < r->npatterns; k++)
			fprintf(f, "%s%s", k ? ", " : " on paths matching ",
			    r->patterns[k]);
		fprintf(f, "  (line %d)\n", r->line);
	}
	fprintf(f, "  asked by:");
	for (i = 0; i < p->nconsent_by; i++)
		fprintf(f, " %s,", p->consent_by[i] == TC_CONSENT_ELICIT ?
		    "elicitation (when the client supports it)" : "hook");
	fprintf(f, " else denied  (%s)\n",
	    origin(p->set_at[TC_SET_CONSENT_BY], at, sizeof(at)));
	if (p->consent_hook != NULL) {
		fprintf(f, "  hook:");
		for (k = 0; p->consent_hook[k] != NULL; k++)
			fprintf(f, " %s", p->consent_hook[k]);
		fprintf(f, "  (line %d)\n", p->set_at[TC_SET_CONSENT_HOOK]);
	}
	fprintf(f, "  timeout: %s  (%s)\n",
	    fmt_duration((unsigned long long)p->consent_timeout_ms, val,
	    sizeof(val)), origin(p->set_at[TC_SET_CONSENT_TIMEOUT], at,
	    sizeof(at)));
}

static void
print_audit(const struct tc_policy *p, FILE *f)
{
	char at[32], val[32];

	if (p->audit_file == NULL) {
		fprintf(f, "audit: off\n");
		return;
	}
	fprintf(f, "audit: %s  (%s)\n", p->audit_file,
	    origin(p->set_at[TC_SET_AUDIT], at, sizeof(at)));
	fprintf(f, "  chain: %s\n", p->audit_key_file != NULL ?
	    "HMAC-SHA-256, key in" : "SHA-256");
	if (p->audit_key_file != NULL)
		fprintf(f, "    %s\n", p->audit_key_file);
	fprintf(f, "  sync: %s\n", p->audit_sync == TC_AUDIT_SYNC_EVERY ?
	    "fsync after every record" : "none (left to the kernel)");
	if (p->audit_rotate_bytes == 0)
		fprintf(f, "  rotate: never\n");
	else if (p->audit_keep == 0)
		fprintf(f, "  rotate: at %s, keeping every file\n",
		    fmt_size(p->audit_rotate_bytes, val, sizeof(val)));
	else
		fprintf(f, "  rotate: at %s, keeping %u files\n",
		    fmt_size(p->audit_rotate_bytes, val, sizeof(val)),
		    p->audit_keep);
}

static const char *
origin(int at, char *buf, size_t len)
{
	if (at == 0)
		return "default";
	if (at == TC_SET_CMDLINE)
		return "command line";
	snprintf(buf, len, "line %d", at);
	return buf;
}

int
tc_policy_print(const struct tc_policy *p, FILE *f)
{
	static const struct {
		const char	*name;
		enum kind	 kind;
		enum tc_setting	 set;
	} rows[] = {
		{ "timeout",	DURATION,	TC_SET_TIMEOUT },
		{ "memory",	SIZE,		TC_SET_MEMORY },
		{ "cpu",	SECONDS,	TC_SET_CPU },
		{ "output",	SIZE,		TC_SET_OUTPUT },
		{ "files",	COUNT,		TC_SET_FILES },
		{ "processes",	COUNT,		TC_SET_PROCESSES },
		{ "filesize",	SIZE,		TC_SET_FILESIZE },
	};
	const struct tc_limits *l = &p->limits;
	const struct tc_root *r;
	unsigned long long v = 0;
	char val[32], at[32], at2[32];
	size_t i;

	fprintf(f, "policy: %s\n", p->file != NULL ? p->file :
	    "none (command line only)");
	fprintf(f, "directories:\n");
	for (i = 0; i < p->nroots; i++) {
		r = &p->roots[i];
		fprintf(f, "  %-10s  %s  (%s%s)\n", (r->flags & TC_ROOT_WRITE) ?
		    "read-write" : "read-only", r->path,
		    origin(r->line > 0 ? r->line : TC_SET_CMDLINE, at,
		    sizeof(at)), r->line > 0 && r->cmdline ?
		    " and the command line" : "");
	}
	fprintf(f, "limits per call:\n");
	for (i = 0; i < TC_NITEMS(rows); i++) {
		v = limit_value(l, rows[i].set);
		fprintf(f, "  %-10s  %-6s  (%s)\n", rows[i].name,
		    fmt_value(rows[i].kind, v, val, sizeof(val)),
		    origin(p->set_at[rows[i].set], at, sizeof(at)));
	}
	print_deny(p, f);
	print_tools(p, f);
	print_consent(p, f);
	fprintf(f, "network: %s  (%s)\n", p->network ? "on" : "off",
	    origin(p->set_at[TC_SET_NETWORK], at, sizeof(at)));
	fprintf(f, "write-sync: %s  (%s)\n", p->write_sync ?
	    "every (fsync each file written before answering)" :
	    "none (left to the kernel)",
	    origin(p->set_at[TC_SET_WRITE_SYNC], at, sizeof(at)));
	print_audit(p, f);
	fprintf(f, "roots-timeout: %s  (%s)\n",
	    fmt_duration((unsigned long long)p->roots_timeout_ms, val,
	    sizeof(val)), origin(p->set_at[TC_SET_ROOTS_TIMEOUT], at,
	    sizeof(at)));
	fprintf(f, "roots: %s  (%s)\n", tc_roots_mode_name(p->roots_mode),
	    origin(p->set_at[TC_SET_ROOTS], at, sizeof(at)));
	if (p->run_as)
		fprintf(f, "run-as: %s, uid %u, gid %u  (%s)\n",
		    p->run_as_spec != NULL ? p->run_as_spec : "?",
		    (unsigned)p->run_uid, (unsigned)p->run_gid,
		    origin(p->set_at[TC_SET_RUN_AS], at, sizeof(at)));
	else
		fprintf(f, "run-as: none (calls run as the server's user)\n");
	if ((p->allow_degraded & (TC_DEGRADE_LANDLOCK | TC_DEGRADE_SECCOMP)) ==
	    0)
		fprintf(f, "allow-degraded: none (refused without Landlock "
		    "or seccomp)\n");
	else if ((p->allow_degraded & TC_DEGRADE_LANDLOCK) &&
	    (p->allow_degraded & TC_DEGRADE_SECCOMP))
		fprintf(f, "allow-degraded: landlock (%s), seccomp (%s)\n",
		    origin(p->set_at[TC_SET_DEGRADE_LANDLOCK], at, sizeof(at)),
		    origin(p->set_at[TC_SET_DEGRADE_SECCOMP], at2,
		    sizeof(at2)));
	else if (p->allow_degraded & TC_DEGRADE_LANDLOCK)
		fprintf(f, "allow-degraded: landlock (%s)\n",
		    origin(p->set_at[TC_SET_DEGRADE_LANDLOCK], at, sizeof(at)));
	else
		fprintf(f, "allow-degraded: seccomp (%s)\n",
		    origin(p->set_at[TC_SET_DEGRADE_SECCOMP], at, sizeof(at)));
	fflush(f);
	return ferror(f) ? TC_ESYS : 0;
}
