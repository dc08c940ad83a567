/*
 * policyfile.c: the policy file, toolcell-policy(5).  A line-oriented
 * language: one setting per line, words separated by blanks, a word may be
 * double-quoted (with \" and \\ as its only escapes), and '#' at the start
 * of a word comments out the rest of the line.  A line "[name]" starts a
 * section: the lines after it are for one server only.
 *
 * This file holds the grammar and the settings every server shares; a
 * server adds the keywords of its own section (section.h).  Every error is
 * reported as "file:line: message" and counted, and reading goes on, so
 * that a person sees all of them at once (httpd's parse.y).  Any keyword
 * neither listed here nor in the server's section is refused, so that
 * nothing in a policy is silently ignored; only another server's section
 * is skipped, whole, and --check names it.  What a loaded policy is
 * printed as, and warned about, is policy-print.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/glob.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "protocol/tools.h"
#include "base/log.h"
#include "base/text.h"

#define MAX_WORDS	8		/* words in one line, usually */
#define MAX_LINE	8192		/* bytes in one line */
#define MAX_FILE	(1L << 20)	/* a policy is a short text */

#define MS_SEC		1000ULL
#define MS_MIN		(60 * MS_SEC)
#define MS_HOUR		(60 * MS_MIN)
#define KIB		1024ULL
#define MIB		(1024 * KIB)
#define GIB		(1024 * MIB)
#define TIB		(1024 * GIB)

struct tc_policy_ctx {
	struct tc_policy	*p;
	const char		*file;
	int			 line;
	int			 nerrors;
	int			 saw_allow;
	int			 foreign;	/* in another server's
						   section */
	tc_policy_report_fn	*report;
	void			*ctx;
	/* The section keyword being read, for tc_policy_once(). */
	const struct tc_policy_keyword *kw;
	int			*at;
};

static void	error(struct tc_policy_ctx *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

/* Reports "file:line: message" (or "file: message" when line is 0). */
static void
verror(struct tc_policy_ctx *st, const char *fmt, va_list ap)
{
	char msg[512], full[1024];

	tc_text_vfmt(msg, sizeof(msg), fmt, ap);
	if (st->line > 0)
		tc_text_fmt(full, sizeof(full), "%s:%d: %s", st->file, st->line,
		    msg);
	else
		tc_text_fmt(full, sizeof(full), "%s: %s", st->file, msg);
	st->nerrors++;
	if (st->report != NULL)
		st->report(st->ctx, full);
}

static void
error(struct tc_policy_ctx *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(st, fmt, ap);
	va_end(ap);
}

void
tc_policy_error(struct tc_policy_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(c, fmt, ap);
	va_end(ap);
}

/* The file's checks, which the consent hook takes too (The file). */
static int	trusted_owner(uid_t uid);
static int	check_dirs(struct tc_policy_ctx *st, const char *path,
		    const struct stat *sb, const char *what);

/* --- Words --- */

/*
 * Splits |line| in place into at most TC_POLICY_WORDS_MAX words, unquoting
 * quoted ones (how many a keyword takes is its own limit).  Returns the
 * number of words, or -1 after reporting an error.
 */
static int
split(struct tc_policy_ctx *st, char *line, char **w)
{
	char *r = line, *o;
	int n = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t')
			r++;
		if (*r == '\0' || *r == '#')
			return n;
		if (n == TC_POLICY_WORDS_MAX) {
			error(st, "too many words (at most %d in a line)",
			    TC_POLICY_WORDS_MAX);
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
extra(struct tc_policy_ctx *st, char **w, int nw, int n, const char *what)
{
	if (nw <= n)
		return 0;
	error(st, "%s: unexpected '%s' at the end of the line", what, w[n]);
	return -1;
}

/* Records in |*at| that setting |what| is given at this line; returns -1
 * (after reporting) if it was given before. */
static int
once_at(struct tc_policy_ctx *st, int *at, const char *what)
{
	if (*at > 0) {
		error(st, "%s: already set at line %d", what, *at);
		return -1;
	}
	*at = st->line;
	return 0;
}

static int
set_once_in(struct tc_policy_ctx *st, int *set_at, enum tc_setting set,
    const char *what)
{
	return once_at(st, &set_at[set], what);
}

static int
set_once(struct tc_policy_ctx *st, enum tc_setting set, const char *what)
{
	return set_once_in(st, st->p->set_at, set, what);
}

int
tc_policy_once(struct tc_policy_ctx *c)
{
	return c->at != NULL ? once_at(c, c->at, c->kw->name) : 0;
}

void *
tc_policy_ctx_slot(struct tc_policy_ctx *c)
{
	return c->p->slot;
}

int
tc_policy_ctx_line(const struct tc_policy_ctx *c)
{
	return c->line;
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

/* How a value of each kind is written, for the errors. */
static const char *const forms[] = {
	[DURATION] = "a whole number and a unit, ms, s, m or h (like 30s)",
	[SECONDS] = "a whole number and a unit, s, m or h (like 30s)",
	[SIZE] = "a whole number of bytes, or one followed by K, M, G or T "
	    "(like 512M)",
	[COUNT] = "a whole number",
};
static const char *const nouns[] = {
	[DURATION] = "duration", [SECONDS] = "duration",
	[SIZE] = "size", [COUNT] = "number",
};

/* Parses |word|, a value of |sc| named |what| in errors, into |v|.
 * Returns 0, or -1 after reporting why not. */
static int
scalar_word(struct tc_policy_ctx *st, const struct scalar *sc,
    const char *what, const char *word, unsigned long long *vp)
{
	char lo[32], hi[32];
	unsigned long long v = 0;
	const char *end;
	int rc = -1;

	switch (sc->kind) {
	case DURATION:
	case SECONDS:
		rc = with_unit(word, duration_units, &v);
		break;
	case SIZE:
		rc = with_unit(word, size_units, &v);
		break;
	case COUNT:
		if ((rc = digits(word, &end, &v)) == 0 && *end != '\0')
			rc = -1;
		break;
	}
	if (rc == -1 && sc->kind == COUNT) {
		error(st, "%s: '%s' is not a whole number", what, word);
		return -1;
	}
	if (rc == -1) {
		error(st, "%s: '%s' is not a %s: write %s", what, word,
		    nouns[sc->kind], forms[sc->kind]);
		return -1;
	}
	if (rc == -2 || v < sc->min || v > sc->max) {
		error(st, "%s: '%s' is out of range: %s to %s", what, word,
		    fmt_value(sc->kind, sc->min, lo, sizeof(lo)),
		    fmt_value(sc->kind, sc->max, hi, sizeof(hi)));
		return -1;
	}
	if (sc->kind == SECONDS && v % MS_SEC != 0) {
		error(st, "%s: '%s' is not a whole number of seconds", what,
		    word);
		return -1;
	}
	*vp = v;
	return 0;
}

/* Parses the one word |w| of |sc|, named |what| in errors, into |v|.
 * Returns 0, or -1 after reporting why not. */
static int
scalar_value(struct tc_policy_ctx *st, const struct scalar *sc,
    const char *what, char **w, int nw, unsigned long long *vp)
{
	if (nw < 1) {
		error(st, "%s: missing %s: write %s", what, nouns[sc->kind],
		    forms[sc->kind]);
		return -1;
	}
	if (extra(st, w, nw, 1, what) != 0)
		return -1;
	return scalar_word(st, sc, what, w[0], vp);
}

/* Returns the kind of the values of |shape|, or -1 for none. */
static int
shape_kind(enum tc_policy_shape shape)
{
	switch (shape) {
	case TC_POLICY_DURATION:
		return DURATION;
	case TC_POLICY_SIZE:
		return SIZE;
	case TC_POLICY_COUNT:
		return COUNT;
	default:
		return -1;
	}
}

int
tc_policy_value(struct tc_policy_ctx *c, const char *what,
    enum tc_policy_shape shape, const char *word, unsigned long long min,
    unsigned long long max, unsigned long long *v)
{
	struct scalar sc = { what, DURATION, min, max, TC_SET_MAX };
	int kind;

	if ((kind = shape_kind(shape)) < 0)
		TC_BUG("%s: shape %d has no value", what, (int)shape);
	sc.kind = (enum kind)kind;
	return scalar_word(c, &sc, what, word, v);
}

const char *
tc_policy_value_str(enum tc_policy_shape shape, unsigned long long v,
    char *buf, size_t len)
{
	int kind = shape_kind(shape);

	return fmt_value(kind < 0 ? COUNT : (enum kind)kind, v, buf, len);
}

/* The words of an ON_OFF setting: "on" is index 0. */
static const struct tc_policy_choice on_off[] = {
	{ "on", NULL }, { "off", NULL }, { NULL, NULL }
};

/* Writes "'a' (hint), 'b' or 'c'" for |choices| into |buf|, with the
 * hints if |hints|; returns |buf|. */
static const char *
choice_list(const struct tc_policy_choice *choices, int hints, char *buf,
    size_t len)
{
	size_t i, n = 0, o = 0;

	while (choices[n].word != NULL)
		n++;
	buf[0] = '\0';
	for (i = 0; i < n && o < len; i++)
		o += tc_text_fmt(buf + o, len - o, "%s'%s'%s%s%s",
		    i == 0 ? "" : i + 1 == n ? " or " : ", ", choices[i].word,
		    hints && choices[i].hint != NULL ? " (" : "",
		    hints && choices[i].hint != NULL ? choices[i].hint : "",
		    hints && choices[i].hint != NULL ? ")" : "");
	return buf;
}

int
tc_policy_choose(struct tc_policy_ctx *c, const char *what,
    const struct tc_policy_choice *choices, const char *word)
{
	char list[512];
	int i;

	for (i = 0; choices[i].word != NULL; i++)
		if (strcmp(word, choices[i].word) == 0)
			return i;
	error(c, "%s: expected %s, not '%s'", what,
	    choice_list(choices, 1, list, sizeof(list)), word);
	return -1;
}

/* Parses the one word |w| of |what|, one of |choices|; returns its index,
 * or -1 after reporting. */
static int
choice_value(struct tc_policy_ctx *st, const char *what,
    const struct tc_policy_choice *choices, char **w, int nw)
{
	char list[512];

	if (nw < 1) {
		error(st, "%s: missing %s", what,
		    choice_list(choices, 0, list, sizeof(list)));
		return -1;
	}
	if (extra(st, w, nw, 1, what) != 0)
		return -1;
	return tc_policy_choose(st, what, choices, w[0]);
}

/* Parses |sc| and stores it in |l|, recording its line in |set_at|. */
static void
scalar_in(struct tc_policy_ctx *st, const struct scalar *sc, const char *what,
    char **w, int nw, struct tc_limits *l, int *set_at)
{
	unsigned long long v;

	if (scalar_value(st, sc, what, w, nw, &v) == 0 &&
	    set_once_in(st, set_at, sc->set, what) == 0)
		store(l, sc->set, v);
}

static void
scalar(struct tc_policy_ctx *st, const struct scalar *sc, const char *what,
    char **w, int nw)
{
	scalar_in(st, sc, what, w, nw, &st->p->limits, st->p->set_at);
}

static void
kw_timeout(struct tc_policy_ctx *st, char **w, int nw)
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
limit_in(struct tc_policy_ctx *st, const char *prefix, char **w, int nw,
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
kw_limit(struct tc_policy_ctx *st, char **w, int nw)
{
	limit_in(st, "limit", w, nw, &st->p->limits, st->p->set_at);
}

/* Returns |path| with a leading "~/" replaced by the home directory of the
 * user running the server, or NULL after reporting why it cannot be.  The
 * caller frees the result. */
static char *
expand_home(struct tc_policy_ctx *st, const char *what, const char *path)
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
absolute_word(struct tc_policy_ctx *st, const char *what, const char *word)
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

char *
tc_policy_path(struct tc_policy_ctx *c, const char *what, const char *word)
{
	return absolute_word(c, what, word);
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
kw_allow(struct tc_policy_ctx *st, char **w, int nw)
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
kw_run_as(struct tc_policy_ctx *st, char **w, int nw)
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
kw_degraded(struct tc_policy_ctx *st, char **w, int nw)
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
pattern_word(struct tc_policy_ctx *st, const char *what, const char *word)
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
kw_deny(struct tc_policy_ctx *st, char **w, int nw)
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


/* Returns the tool named |name|, or NULL after reporting it unknown. */
static struct tc_tool_policy *
known_tool(struct tc_policy_ctx *st, const char *what, const char *name)
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
kw_tools(struct tc_policy_ctx *st, char **w, int nw)
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

static void
kw_tool(struct tc_policy_ctx *st, char **w, int nw)
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

/* The "network" line's first word, in the order of enum tc_network. */
static const struct tc_policy_choice network_modes[] = {
	{ "off", NULL }, { "on", "any address and port" },
	{ "connect", "and the TCP ports" }, { NULL, NULL }
};

_Static_assert(TC_NET_PORTS_MAX + 2 == TC_POLICY_WORDS_MAX,
    "a network connect line holds every port it may name");

/*
 * Parses the ports of "network connect" (|w|, |nw| of them) into |out|,
 * ascending; returns how many, or -1 after reporting each error.
 */
static int
net_ports(struct tc_policy_ctx *st, char **w, int nw, uint16_t *out)
{
	unsigned long v;
	char *end;
	int i, k, n = 0, bad = 0;

	if (nw < 1) {
		error(st, "network connect: missing the ports (numbers from 1 "
		    "to 65535)");
		return -1;
	}
	for (i = 0; i < nw && n < TC_NET_PORTS_MAX; i++) {
		errno = 0;
		v = w[i][0] >= '0' && w[i][0] <= '9' ?
		    strtoul(w[i], &end, 10) : 0;
		if (v < 1 || v > 65535 || errno != 0 || *end != '\0') {
			error(st, "network connect: '%s' is not a port (a "
			    "number from 1 to 65535)", w[i]);
			bad = 1;
			continue;
		}
		for (k = 0; k < n && out[k] != v; k++)
			;
		if (k < n) {
			error(st, "network connect: port %lu is given twice",
			    v);
			bad = 1;
			continue;
		}
		for (k = n; k > 0 && out[k - 1] > v; k--)
			out[k] = out[k - 1];
		out[k] = (uint16_t)v;
		n++;
	}
	return bad ? -1 : n;
}

/* "network off", "network on", "network connect PORT...". */
static void
kw_network(struct tc_policy_ctx *st, char **w, int nw)
{
	uint16_t ports[TC_NET_PORTS_MAX];
	char list[512];
	int mode, n = 0;

	if (nw < 1) {
		error(st, "network: missing %s", choice_list(network_modes, 1,
		    list, sizeof(list)));
		return;
	}
	if ((mode = tc_policy_choose(st, "network", network_modes,
	    w[0])) < 0 ||
	    (mode != TC_NETWORK_CONNECT && extra(st, w, nw, 1, "network")) ||
	    (mode == TC_NETWORK_CONNECT &&
	    (n = net_ports(st, w + 1, nw - 1, ports)) < 0) ||
	    set_once(st, TC_SET_NETWORK, "network") != 0)
		return;
	if (mode != TC_NETWORK_OFF &&
	    !(st->p->features & TC_POLICY_F_NETWORK)) {
		error(st, "network %s: %s has no tool that uses a network; "
		    "its calls never reach one", w[0],
		    st->p->server != NULL ? st->p->server : "this server");
		return;
	}
	st->p->network = (enum tc_network)mode;
	memcpy(st->p->net_ports, ports, (size_t)n * sizeof(ports[0]));
	st->p->nnet_ports = (size_t)n;
}

/*
 * "jit on" or "jit off": whether the programs a call runs may make their
 * memory writable and executable (a JIT compiler's code: node's V8,
 * Java's HotSpot), for a server whose tools run programs.
 */
static void
kw_jit(struct tc_policy_ctx *st, char **w, int nw)
{
	int mode;

	if (nw < 1) {
		error(st, "jit: missing 'on' or 'off'");
		return;
	}
	if ((mode = tc_policy_choose(st, "jit", on_off, w[0])) < 0 ||
	    extra(st, w, nw, 1, "jit") || set_once(st, TC_SET_JIT, "jit") != 0)
		return;
	if (mode == 0 && !(st->p->features & TC_POLICY_F_JIT)) {
		error(st, "jit on: %s runs no programs; it has nothing to "
		    "compile", st->p->server != NULL ? st->p->server :
		    "this server");
		return;
	}
	st->p->jit = mode == 0;	/* on_off: "on" first */
}

/* --- Consent --- */

/*
 * consent TOOL [PATTERN...] [KIND VALUE...]...: the words after the tool
 * up to the first kind name are path patterns, as ever; each kind name
 * (program, arg, cwd, env, database, statement: not path) starts the
 * values of that kind.  A value that is a kind name is written with its
 * first byte escaped ("\\env").
 */
static void
kw_consent(struct tc_policy_ctx *st, char **w, int nw)
{
	struct tc_policy *p = st->p;
	struct tc_consent_rule *nr, *r;
	unsigned char group[MAX_WORDS];
	int named[TC_SUBJECT_NKINDS] = { 0 };
	char why[160], *v;
	const char *name;
	size_t nv = 0;
	int k, kind = TC_SUBJECT_PATH, g;

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
	    (r->patterns = calloc((size_t)nw, sizeof(char *))) == NULL ||
	    (r->values = calloc((size_t)nw, sizeof(char *))) == NULL) {
		free(r->tool);
		free(r->patterns);
		error(st, "out of memory");
		return;
	}
	p->nconsent++;
	for (k = 1; k < nw; k++) {
		g = tc_subject_kind_parse(w[k]);
		if (g <= TC_SUBJECT_PATH) {
			group[k] = (unsigned char)kind;
			continue;
		}
		group[k] = TC_SUBJECT_NKINDS;	/* the kind's name */
		if (named[g])
			error(st, "consent: '%s' named twice: list its values "
			    "after one '%s'", w[k], w[k]);
		else if (k + 1 == nw || tc_subject_kind_parse(w[k + 1]) >
		    TC_SUBJECT_PATH)
			error(st, "consent: '%s' without a value: name what "
			    "to ask about after it", w[k]);
		named[g] = k;
		kind = g;
	}
	for (g = 0; g < TC_SUBJECT_NKINDS; g++) {
		name = tc_subject_kind_name((enum tc_subject_kind)g);
		for (k = 1; k < nw; k++) {
			if (group[k] != g)
				continue;
			if (g == TC_SUBJECT_PATH || g == TC_SUBJECT_CWD)
				v = pattern_word(st, g == TC_SUBJECT_PATH ?
				    "consent" : "consent: cwd", w[k]);
			else if (g == TC_SUBJECT_PROGRAM &&
			    strncmp(w[k], "~/", 2) == 0)
				v = expand_home(st, "consent: program", w[k]);
			else if ((v = strdup(w[k])) == NULL)
				error(st, "out of memory");
			if (v != NULL && g != TC_SUBJECT_PATH &&
			    !tc_subject_pattern_valid((enum tc_subject_kind)g,
			    v, why, sizeof(why))) {
				error(st, "consent: %s: '%s': %s", name, w[k],
				    why);
				free(v);
				v = NULL;
			}
			if (v == NULL)
				continue;
			if (g == TC_SUBJECT_PATH)
				r->patterns[r->npatterns++] = v;
			else {
				r->values[nv++] = v;
				r->nvalues[g]++;
			}
			r->kinds |= 1u << g;
		}
	}
}

static void
kw_consent_by(struct tc_policy_ctx *st, char **w, int nw)
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
kw_consent_hook(struct tc_policy_ctx *st, char **w, int nw)
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
	/* The hook decides consent: whoever may change it, or put another
	 * file in its place, may say yes. */
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		error(st, "consent-hook: '%s': writable by group or others; "
		    "chmod go-w %s", prog, prog);
		free(prog);
		return;
	}
	if (!trusted_owner(sb.st_uid)) {
		error(st, "consent-hook: '%s': owned by uid %u, neither root "
		    "nor the user running the server (uid %u): that user "
		    "could change what it answers", prog, (unsigned)sb.st_uid,
		    (unsigned)geteuid());
		free(prog);
		return;
	}
	if (check_dirs(st, prog, &sb, "the consent hook") != 0) {
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

/* --- Audit --- */

static const struct scalar rotate_setting =
	{ "audit-rotate", SIZE, 64 * KIB, TIB, TC_SET_AUDIT_ROTATE };
static const struct scalar keep_setting =
	{ "audit-rotate keep", COUNT, 1, 10000, TC_SET_AUDIT_ROTATE };

static void
kw_audit_rotate(struct tc_policy_ctx *st, char **w, int nw)
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

/* --- The keywords --- */

static const struct tc_policy_choice audit_syncs[] = {
	{ "every", "fsync each record" }, { "none", NULL }, { NULL, NULL }
};
/* In the order of enum tc_roots_mode. */
static const struct tc_policy_choice roots_modes[] = {
	{ "narrow", "the client's roots narrow the directories, unless that "
	    "leaves none" },
	{ "strict", "even to none" },
	{ "ignore", NULL },
	{ NULL, NULL }
};

/* A shared setting: its keyword, typed ones stored in struct tc_policy. */
struct keyword {
	struct tc_policy_keyword kw;	/* first: keyword_cmp() */
	enum tc_setting		 set;	/* where its line is kept; TC_SET_MAX:
					   nowhere, or in several */
};

#define LINE(name, fn, set)						\
	{ { name, TC_POLICY_LINE, .parse = fn }, set }
#define TYPED(name, shape, field, set, ...)				\
	{ { name, shape, offsetof(struct tc_policy, field), __VA_ARGS__ },\
	  set }

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct keyword keywords[] = {
	LINE("allow",		kw_allow,	TC_SET_MAX),
	LINE("allow-degraded",	kw_degraded,	TC_SET_MAX),
	TYPED("audit", TC_POLICY_PATH, audit_file, TC_SET_AUDIT,
	    .value = "the log file"),
	TYPED("audit-key", TC_POLICY_PATH, audit_key_file, TC_SET_AUDIT_KEY,
	    .value = "the key file"),
	LINE("audit-rotate",	kw_audit_rotate, TC_SET_AUDIT_ROTATE),
	TYPED("audit-sync", TC_POLICY_CHOICE, audit_sync, TC_SET_AUDIT_SYNC,
	    .choices = audit_syncs),
	TYPED("children", TC_POLICY_COUNT, children, TC_SET_CHILDREN,
	    .min = 0, .max = TC_CHILDREN_MAX),
	LINE("consent",		kw_consent,	TC_SET_MAX),
	LINE("consent-by",	kw_consent_by,	TC_SET_CONSENT_BY),
	LINE("consent-hook",	kw_consent_hook, TC_SET_CONSENT_HOOK),
	TYPED("consent-timeout", TC_POLICY_DURATION, consent_timeout_ms,
	    TC_SET_CONSENT_TIMEOUT, .min = MS_SEC, .max = 10 * MS_MIN),
	TYPED("default-deny", TC_POLICY_ON_OFF, default_deny,
	    TC_SET_DEFAULT_DENY, .choices = on_off),
	LINE("deny",		kw_deny,	TC_SET_MAX),
	LINE("jit",		kw_jit,		TC_SET_JIT),
	TYPED("job-lifetime", TC_POLICY_DURATION, job_lifetime_ms,
	    TC_SET_JOB_LIFETIME, .min = MS_SEC, .max = 24 * MS_HOUR),
	TYPED("jobs", TC_POLICY_COUNT, max_jobs, TC_SET_JOBS,
	    .min = 0, .max = 64),
	LINE("limit",		kw_limit,	TC_SET_MAX),
	{ { "network", TC_POLICY_LINE, .parse = kw_network,
	    .max_words = TC_POLICY_WORDS_MAX }, TC_SET_NETWORK },
	TYPED("roots", TC_POLICY_CHOICE, roots_mode, TC_SET_ROOTS,
	    .choices = roots_modes),
	TYPED("roots-timeout", TC_POLICY_DURATION, roots_timeout_ms,
	    TC_SET_ROOTS_TIMEOUT, .min = 100, .max = MS_MIN),
	LINE("run-as",		kw_run_as,	TC_SET_RUN_AS),
	LINE("timeout",		kw_timeout,	TC_SET_TIMEOUT),
	LINE("tool",		kw_tool,	TC_SET_MAX),
	LINE("tools",		kw_tools,	TC_SET_TOOLS),
};

#undef LINE
#undef TYPED

/* A typed CHOICE or ON_OFF setting is kept in an int; so are these. */
_Static_assert(sizeof(enum tc_audit_sync) == sizeof(int), "an int");
_Static_assert(sizeof(enum tc_roots_mode) == sizeof(int), "an int");

static int
keyword_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct tc_policy_keyword *)elem)->name);
}

static const struct keyword *
shared_keyword(const char *name)
{
	return bsearch(name, keywords, TC_NITEMS(keywords),
	    sizeof(keywords[0]), keyword_cmp);
}

/* Returns keyword |name| of the server's section, or NULL. */
static const struct tc_policy_keyword *
own_keyword(const struct tc_policy *p, const char *name)
{
	if (p->section == NULL)
		return NULL;
	return bsearch(name, p->section->keywords, p->section->nkeywords,
	    sizeof(p->section->keywords[0]), keyword_cmp);
}

/*
 * Parses the line of typed keyword |k| (words |w|) into |slot|, its line
 * kept in |*at|.  A value counts as given once it parses; a path or word
 * as soon as it is there, so that a line that needs it (audit-key needs
 * audit) is not refused as well when the path is wrong.
 */
static void
typed(struct tc_policy_ctx *st, const struct tc_policy_keyword *k,
    void *slot, int *at, char **w, int nw)
{
	struct scalar sc = { k->name, DURATION, k->min, k->max, TC_SET_MAX };
	void *dst = (char *)slot + k->offset;
	unsigned long long v = 0;
	char *str = NULL;
	int i;

	switch (k->shape) {
	case TC_POLICY_CHOICE:
	case TC_POLICY_ON_OFF:
		if ((i = choice_value(st, k->name, k->shape ==
		    TC_POLICY_ON_OFF ? on_off : k->choices, w, nw)) < 0 ||
		    once_at(st, at, k->name) != 0)
			return;
		*(int *)dst = k->shape == TC_POLICY_ON_OFF ? i == 0 : i;
		return;
	case TC_POLICY_DURATION:
	case TC_POLICY_SIZE:
	case TC_POLICY_COUNT:
		sc.kind = (enum kind)shape_kind(k->shape);
		if (scalar_value(st, &sc, k->name, w, nw, &v) != 0 ||
		    once_at(st, at, k->name) != 0)
			return;
		if (k->shape == TC_POLICY_DURATION)
			*(int *)dst = (int)v;
		else
			*(unsigned long long *)dst = v;
		return;
	case TC_POLICY_PATH:
	case TC_POLICY_WORD:
		if (nw < 1) {
			error(st, "%s: missing %s", k->name, k->value != NULL ?
			    k->value : "its value");
			return;
		}
		if (extra(st, w, nw, 1, k->name) != 0 ||
		    once_at(st, at, k->name) != 0)
			return;
		if (k->shape == TC_POLICY_PATH)
			str = absolute_word(st, k->name, w[0]);
		else if ((str = strdup(w[0])) == NULL)
			error(st, "out of memory");
		if (str != NULL)
			*(char **)dst = str;
		return;
	case TC_POLICY_LINE:
		break;
	}
	TC_BUG("keyword '%s': shape %d", k->name, (int)k->shape);
}

/* Reports keyword |name| unknown, with the likeliest one it misspells. */
static void
unknown_keyword(struct tc_policy_ctx *st, const char *name)
{
	const struct tc_policy_section *sec = st->p->section;
	const char *best = NULL;
	size_t i, d, bestd = SIZE_MAX;

	for (i = 0; i < TC_NITEMS(keywords); i++)
		if ((d = tc_name_distance(name, keywords[i].kw.name)) < bestd) {
			bestd = d;
			best = keywords[i].kw.name;
		}
	for (i = 0; sec != NULL && i < sec->nkeywords; i++)
		if ((d = tc_name_distance(name, sec->keywords[i].name)) <
		    bestd) {
			bestd = d;
			best = sec->keywords[i].name;
		}
	if (best != NULL)
		error(st, "unknown keyword '%s' (did you mean '%s'?)", name,
		    best);
	else
		error(st, "unknown keyword '%s'", name);
}

/* --- Sections --- */

/*
 * The sections of the servers of the suite, so that one file can serve
 * them all: another server's section is skipped.  A name that is neither
 * one of these nor the server's own is refused, since a misspelt header
 * would otherwise drop the lines below it without a word.
 */
static const char *const suite[] = { "fs", "shell", "sqlite" };

/* Returns the name of the server's own section: its section's, else its
 * name without "toolcell-"; or NULL. */
static const char *
own_section(const struct tc_policy *p)
{
	if (p->section != NULL)
		return p->section->name;
	if (p->server != NULL && strncmp(p->server, "toolcell-", 9) == 0)
		return p->server + 9;
	return p->server;
}

/* Records that the file has a section for another server, |name|, first
 * at this line. */
static void
skip_section(struct tc_policy_ctx *st, const char *name)
{
	struct tc_policy *p = st->p;
	struct tc_policy_skipped *ns;
	size_t i;

	for (i = 0; i < p->nskipped; i++)
		if (strcmp(p->skipped[i].name, name) == 0)
			return;
	if ((ns = reallocarray(p->skipped, p->nskipped + 1,
	    sizeof(*ns))) == NULL) {
		error(st, "out of memory");
		return;
	}
	p->skipped = ns;
	ns[p->nskipped].name = name;
	ns[p->nskipped++].line = st->line;
}

/*
 * A section header, "[fs]", "[shell]" or "[sqlite]": the lines below it,
 * up to the next one, are for that server.  The server reads its own, and
 * skips another's whole.
 */
static void
section(struct tc_policy_ctx *st, char **w, int nw)
{
	const char *own = own_section(st->p), *name = w[0] + 1;
	char list[128];
	size_t i, n, len = strlen(w[0]);

	if (nw > 1 || len < 3 || w[0][len - 1] != ']') {
		error(st, "a section header is one word in brackets, like "
		    "[%s]", own != NULL ? own : "fs");
		st->foreign = 1;
		return;
	}
	w[0][len - 1] = '\0';
	if (own != NULL && strcmp(name, own) == 0) {
		st->foreign = 0;
		return;
	}
	st->foreign = 1;
	for (i = 0; i < TC_NITEMS(suite); i++)
		if (strcmp(name, suite[i]) == 0) {
			skip_section(st, suite[i]);
			return;
		}
	for (i = n = 0; i < TC_NITEMS(suite) && n < sizeof(list); i++)
		n += tc_text_fmt(list + n, sizeof(list) - n, "%s[%s]",
		    i > 0 ? ", " : "", suite[i]);
	for (i = 0; i < TC_NITEMS(suite); i++)
		if (own == NULL || strcmp(own, suite[i]) == 0)
			break;
	if (i == TC_NITEMS(suite) && n < sizeof(list))
		tc_text_fmt(list + n, sizeof(list) - n, ", [%s]", own);
	error(st, "unknown section [%s] (known: %s)", name, list);
}

static void
parse_line(struct tc_policy_ctx *st, char *line)
{
	const struct tc_policy_keyword *kw;
	const struct keyword *shared;
	char *w[TC_POLICY_WORDS_MAX];
	int nw, max;

	if ((nw = split(st, line, w)) <= 0)
		return;
	if (w[0][0] == '[') {
		section(st, w, nw);
		return;
	}
	if (st->foreign)
		return;		/* another server's, or a bad header */
	if ((shared = shared_keyword(w[0])) != NULL)
		kw = &shared->kw;
	else
		kw = own_keyword(st->p, w[0]);
	max = kw != NULL && kw->max_words > 0 ? kw->max_words : MAX_WORDS;
	if (nw > max) {
		error(st, "too many words (at most %d in a line)", max);
		return;
	}
	if (kw == NULL) {
		unknown_keyword(st, w[0]);
		return;
	}
	if (shared != NULL && kw->shape == TC_POLICY_LINE)
		kw->parse(st, w + 1, nw - 1);
	else if (shared != NULL)
		typed(st, kw, st->p, &st->p->set_at[shared->set], w + 1,
		    nw - 1);
	else if (kw->shape == TC_POLICY_LINE) {
		st->kw = kw;
		st->at = &st->p->slot_at[kw - st->p->section->keywords];
		kw->parse(st, w + 1, nw - 1);
		st->kw = NULL;
		st->at = NULL;
	} else
		typed(st, kw, st->p->slot,
		    &st->p->slot_at[kw - st->p->section->keywords], w + 1,
		    nw - 1);
}

/* Checks what only the whole file can tell: settings that need another. */
static void
after_all(struct tc_policy_ctx *st)
{
	struct tc_policy *p = st->p;
	struct stat sb;
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
	/* The key keeps the log's chain from being forged: whoever may
	 * put another file in its place knows the key the server chains
	 * with.  Its own mode and owner the audit's start checks (and
	 * says how to make one that is missing). */
	if (p->audit_key_file != NULL && stat(p->audit_key_file, &sb) == 0) {
		st->line = p->set_at[TC_SET_AUDIT_KEY];
		(void)check_dirs(st, p->audit_key_file, &sb, "the audit key");
		st->line = 0;
	}
}

/* --- A server's section --- */

/* Checks keyword |k| of section |sec|; returns 0, or TC_EINVAL with |d|
 * saying why. */
static int
check_keyword(const struct tc_policy_section *sec,
    const struct tc_policy_keyword *k, struct tc_diag *d)
{
	size_t need = 0;

	if (k->name == NULL || k->name[0] == '\0' || k->name[0] == '[' ||
	    k->name[0] == '#')
		return tc_diag(d, TC_EINVAL, "section [%s]: a keyword without "
		    "a name", sec->name);
	if (shared_keyword(k->name) != NULL)
		return tc_diag(d, TC_EINVAL, "section [%s]: '%s' is a shared "
		    "setting", sec->name, k->name);
	if (k->max_words < 0 || k->max_words > TC_POLICY_WORDS_MAX)
		return tc_diag(d, TC_EINVAL, "section [%s]: '%s': max_words "
		    "%d", sec->name, k->name, k->max_words);
	switch (k->shape) {
	case TC_POLICY_LINE:
		if (k->parse == NULL)
			return tc_diag(d, TC_EINVAL, "section [%s]: '%s' has "
			    "no parser", sec->name, k->name);
		return 0;
	case TC_POLICY_CHOICE:
		if (k->choices == NULL || k->choices[0].word == NULL)
			return tc_diag(d, TC_EINVAL, "section [%s]: '%s' has "
			    "no choices", sec->name, k->name);
		/* FALLTHROUGH */
	case TC_POLICY_ON_OFF:
		need = sizeof(int);
		break;
	case TC_POLICY_DURATION:
		if (k->max > INT_MAX)
			return tc_diag(d, TC_EINVAL, "section [%s]: '%s': "
			    "more milliseconds than an int holds", sec->name,
			    k->name);
		need = sizeof(int);
		break;
	case TC_POLICY_SIZE:
	case TC_POLICY_COUNT:
		need = sizeof(unsigned long long);
		break;
	case TC_POLICY_PATH:
	case TC_POLICY_WORD:
		need = sizeof(char *);
		break;
	default:
		return tc_diag(d, TC_EINVAL, "section [%s]: '%s': unknown "
		    "shape %d", sec->name, k->name, (int)k->shape);
	}
	if (k->offset > sec->size || sec->size - k->offset < need)
		return tc_diag(d, TC_EINVAL, "section [%s]: '%s': its value "
		    "lies outside the slot", sec->name, k->name);
	if (k->min > k->max)
		return tc_diag(d, TC_EINVAL, "section [%s]: '%s': min above "
		    "max", sec->name, k->name);
	return 0;
}

int
tc_policy_set_section(struct tc_policy *p,
    const struct tc_policy_section *sec, struct tc_diag *d)
{
	const char *c;
	size_t i;

	if (p->section != NULL)
		return tc_diag(d, TC_EINVAL, "section [%s]: the policy has a "
		    "section already, [%s]", sec->name, p->section->name);
	for (c = sec->name; c != NULL && *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		    *c == '-'))
			break;
	if (sec->name == NULL || sec->name[0] == '\0' || *c != '\0')
		return tc_diag(d, TC_EINVAL, "a section's name is lowercase "
		    "letters, digits and '-'");
	for (i = 0; i < sec->nkeywords; i++) {
		if (check_keyword(sec, &sec->keywords[i], d) != 0)
			return TC_EINVAL;
		if (i > 0 && strcmp(sec->keywords[i - 1].name,
		    sec->keywords[i].name) >= 0)
			return tc_diag(d, TC_EINVAL, "section [%s]: keywords "
			    "not sorted, or given twice: '%s' after '%s'",
			    sec->name, sec->keywords[i].name,
			    sec->keywords[i - 1].name);
	}
	if ((p->slot = calloc(1, sec->size ? sec->size : 1)) == NULL ||
	    (p->slot_at = calloc(sec->nkeywords ? sec->nkeywords : 1,
	    sizeof(*p->slot_at))) == NULL) {
		free(p->slot);
		p->slot = NULL;
		return tc_diag(d, TC_ENOMEM, "out of memory");
	}
	p->section = sec;
	if (sec->init != NULL)
		sec->init(p->slot);
	return 0;
}

const void *
tc_policy_slot(const struct tc_policy *p, const struct tc_policy_section *sec)
{
	return p->section == sec && sec != NULL ? p->slot : NULL;
}

int
tc_policy_setting_at(const struct tc_policy *p, const char *keyword)
{
	const struct tc_policy_keyword *k;
	const struct keyword *shared;

	if ((shared = shared_keyword(keyword)) != NULL)
		return shared->set < TC_SET_MAX ? p->set_at[shared->set] : 0;
	if ((k = own_keyword(p, keyword)) != NULL && p->slot_at != NULL)
		return p->slot_at[k - p->section->keywords];
	return 0;
}

/* --- The file --- */

/* Symbolic links a walk of the policy's path follows, at most. */
#define WALK_LINKS	40

/*
 * 1 if a directory owned by |uid| is as good as ours: root's, the
 * server's user's, or, in a user namespace (where the ids of everyone
 * outside it show as the overflow id), one no process here can be.
 */
static int
trusted_owner(uid_t uid)
{
	static int inner = -1;
	static uid_t overflow = 65534;
	char line[64], *p;
	unsigned long a, b, c;
	FILE *f;

	if (uid == 0 || uid == geteuid())
		return 1;
	if (inner < 0) {
		inner = 0;
		/* The initial namespace maps "0 0 4294967295". */
		if ((f = fopen("/proc/self/uid_map", "re")) != NULL) {
			if (fgets(line, sizeof(line), f) == NULL)
				inner = 1;
			else {
				a = strtoul(line, &p, 10);
				b = strtoul(p, &p, 10);
				c = strtoul(p, &p, 10);
				inner = a != 0 || b != 0 || c != 4294967295UL;
			}
			fclose(f);
		}
		if ((f = fopen("/proc/sys/kernel/overflowuid", "re")) != NULL) {
			if (fgets(line, sizeof(line), f) != NULL)
				overflow = (uid_t)strtoul(line, NULL, 10);
			fclose(f);
		}
	}
	return inner && uid == overflow;
}

/*
 * Checks the directory open at |dfd|, shown as |shown|, on the path of
 * |what| ("the policy"): reports it if someone other than root and the
 * user running the server could change it, since whoever may write a
 * directory may put another file in the place of what it holds.  One
 * writable by group or others passes with the sticky bit (as /tmp),
 * which keeps them from renaming or removing what is not theirs.
 * Returns 0, or -1 after reporting.
 */
static int
check_dir(struct tc_policy_ctx *st, int dfd, const char *shown,
    const char *what)
{
	struct stat sb;

	if (fstat(dfd, &sb) != 0) {
		error(st, "%s: %s", shown, strerror(errno));
		return -1;
	}
	if (!trusted_owner(sb.st_uid)) {
		error(st, "the directory %s is owned by uid %u, neither root "
		    "nor the user running the server (uid %u): that user "
		    "could replace %s", shown, (unsigned)sb.st_uid,
		    (unsigned)geteuid(), what);
		return -1;
	}
	if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX)) {
		error(st, "the directory %s is writable by group or others, "
		    "who could replace %s; chmod go-w %s", shown, what,
		    shown);
		return -1;
	}
	return 0;
}

/*
 * Checks every directory |path| (of |what|, for check_dir()) goes
 * through, as the kernel would walk it: from / (a relative path from the
 * working directory, found with getcwd()), one name at a time and never
 * through a link, each symbolic link (anywhere in it) read and its
 * target walked in turn, from the directory that holds it (checked) or
 * from /.  Then the name found must be the file opened or looked at
 * (|sb|), or someone changed the path meanwhile.  A file no directory
 * names (a memfd, one removed) has no directory to check once a link
 * leads to it.  Returns 0, or -1 after reporting.
 */
static int
check_dirs(struct tc_policy_ctx *st, const char *path, const struct stat *sb,
    const char *what)
{
	char *todo = NULL, *name, *rest, *shown = NULL, *t, target[PATH_MAX];
	struct stat fs;
	int dfd = -1, next, links = 0, rc = -1, last;
	ssize_t n;

	if (path[0] == '/')
		todo = strdup(path);
	else if (getcwd(target, sizeof(target)) != NULL)
		todo = tc_text_alloc("%s/%s", target, path);
	if (todo == NULL) {
		error(st, "%s", strerror(errno != 0 ? errno : ENOMEM));
		return -1;
	}
	rest = todo;
	for (;;) {
		/* From /: a new walk (the first, or an absolute link). */
		if (*rest == '/') {
			if (dfd >= 0)
				close(dfd);
			free(shown);
			if ((shown = strdup("/")) == NULL ||
			    (dfd = open("/", O_PATH | O_DIRECTORY |
			    O_CLOEXEC)) < 0 || check_dir(st, dfd, "/", what) != 0)
				goto out;
			rest += strspn(rest, "/");
		}
		name = rest;
		rest += strcspn(rest, "/");
		last = rest[strspn(rest, "/")] == '\0';
		if (*rest != '\0')
			*rest++ = '\0';
		rest += strspn(rest, "/");
		if (*name == '\0' || strcmp(name, ".") == 0) {
			if (last)
				break;
			continue;
		}
		if ((next = openat(dfd, name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || fstat(next, &fs) != 0) {
			if (links > 0 && sb->st_nlink == 0)
				rc = 0;	/* a link to a file no one names */
			else
				error(st, "%s%s%s: %s", shown, strcmp(shown,
				    "/") == 0 ? "" : "/", name, strerror(errno));
			if (next >= 0)
				close(next);
			goto out;
		}
		if (S_ISLNK(fs.st_mode)) {
			close(next);
			n = readlinkat(dfd, name, target, sizeof(target) - 1);
			if (n <= 0 || ++links > WALK_LINKS) {
				error(st, "%s/%s: %s", shown, name, n <= 0 ?
				    strerror(errno) : "too many symbolic links");
				goto out;
			}
			target[n] = '\0';
			/* Its target, then what was left after it. */
			if ((t = tc_text_alloc("%s%s%s", target, *rest ? "/" :
			    "", rest)) == NULL) {
				error(st, "out of memory");
				goto out;
			}
			free(todo);
			rest = todo = t;
			continue;
		}
		if (last) {
			close(next);
			if (fs.st_dev != sb->st_dev || fs.st_ino != sb->st_ino) {
				error(st, "changed while it was opened");
				goto out;
			}
			rc = 0;
			break;
		}
		t = tc_text_alloc("%s%s%s", shown, strcmp(shown, "/") == 0 ?
		    "" : "/", name);
		close(dfd);
		dfd = next;
		free(shown);
		if ((shown = t) == NULL) {
			error(st, "out of memory");
			goto out;
		}
		if (!S_ISDIR(fs.st_mode)) {
			error(st, "%s: %s", shown, strerror(ENOTDIR));
			goto out;
		}
		if (check_dir(st, dfd, shown, what) != 0)
			goto out;
	}
out:
	if (dfd >= 0)
		close(dfd);
	free(shown);
	free(todo);
	return rc;
}

/*
 * Opens |file| for reading if it is a regular file that only its owner can
 * change, and that owner is root or the user running the server, in
 * directories that only they can change; returns a stream, or NULL after
 * reporting why not.
 */
static FILE *
open_policy(struct tc_policy_ctx *st)
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
	if (check_dirs(st, st->file, &sb, "the policy") != 0) {
		free(real);
		close(fd);
		return NULL;
	}
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
	struct tc_policy_ctx st;
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
	if (p->section != NULL && p->section->check != NULL)
		p->section->check(&st);
	if (!st.saw_allow && (p->section == NULL ||
	    !(p->section->flags & TC_POLICY_ROOTS_OPTIONAL)))
		error(&st, "no 'allow' line: write 'allow read /path/to/dir' "
		    "(or 'allow write ...') for each directory to serve");
	if (st.nerrors > 0)
		return tc_diag(d, TC_EINVAL, "%s: %d error%s", file,
		    st.nerrors, st.nerrors == 1 ? "" : "s");
	return 0;
}
