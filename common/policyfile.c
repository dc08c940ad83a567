/*
 * policyfile.c: the policy file, toolcell-policy(5).  A line-oriented
 * language: one setting per line, words separated by blanks, a word may be
 * double-quoted (with \" and \\ as its only escapes), and '#' at the start
 * of a word comments out the rest of the line.
 *
 * Every error is reported as "file:line: message" and counted, and reading
 * goes on, so that a person sees all of them at once (httpd's parse.y).
 * Only what the servers enforce today is accepted: any other keyword is
 * refused, so that nothing in a policy is silently ignored.
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

#include "policy.h"

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
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (st->line > 0)
		snprintf(full, sizeof(full), "%s:%d: %s", st->file, st->line,
		    msg);
	else
		snprintf(full, sizeof(full), "%s: %s", st->file, msg);
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
set_once(struct state *st, enum tc_setting set, const char *what)
{
	int *at = &st->p->set_at[set];

	if (*at > 0) {
		error(st, "%s: already set at line %d", what, *at);
		return -1;
	}
	*at = st->line;
	return 0;
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
store(struct tc_policy *p, enum tc_setting set, unsigned long long v)
{
	struct tc_limits *l = &p->limits;

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

/* Parses and stores the value |arg| of |sc|, named |what| in errors. */
static void
scalar(struct state *st, const struct scalar *sc, const char *what,
    char **w, int nw)
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
		return;
	}
	if (extra(st, w, nw, 1, what) != 0)
		return;
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
		return;
	}
	if (rc == -1) {
		error(st, "%s: '%s' is not a %s: write %s", what, w[0],
		    nouns[sc->kind], forms[sc->kind]);
		return;
	}
	if (rc == -2 || v < sc->min || v > sc->max) {
		error(st, "%s: '%s' is out of range: %s to %s", what, w[0],
		    fmt_value(sc->kind, sc->min, lo, sizeof(lo)),
		    fmt_value(sc->kind, sc->max, hi, sizeof(hi)));
		return;
	}
	if (sc->kind == SECONDS && v % MS_SEC != 0) {
		error(st, "%s: '%s' is not a whole number of seconds", what,
		    w[0]);
		return;
	}
	if (set_once(st, sc->set, what) == 0)
		store(st->p, sc->set, v);
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

static void
kw_limit(struct state *st, char **w, int nw)
{
	const struct scalar *sc;
	char what[64];

	if (nw < 1) {
		error(st, "limit: missing what to limit (cpu, files, "
		    "filesize, memory, output or processes)");
		return;
	}
	sc = bsearch(w[0], limits, TC_NITEMS(limits), sizeof(limits[0]),
	    limit_cmp);
	if (sc == NULL) {
		error(st, "limit: unknown limit '%s' (known: cpu, files, "
		    "filesize, memory, output, processes)", w[0]);
		return;
	}
	snprintf(what, sizeof(what), "limit %s", sc->name);
	scalar(st, sc, what, w + 1, nw - 1);
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
	if (w[1][0] == '\0') {
		error(st, "%s: empty path", what);
		return;
	}
	if (strncmp(w[1], "~/", 2) == 0) {
		if ((path = expand_home(st, what, w[1])) == NULL)
			return;
	} else if (w[1][0] != '/') {
		error(st, "%s: '%s' is a relative path: write an absolute "
		    "path (or one starting with ~/)", what, w[1]);
		return;
	}
	if (tc_policy_add_root(p, path != NULL ? path : w[1], flags, &d) != 0) {
		error(st, "%s: %s", what, d.msg);
		free(path);
		return;
	}
	free(path);
	r = &p->roots[p->nroots - 1];
	r->line = st->line;
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

struct keyword {
	const char	*name;
	void		(*fn)(struct state *, char **, int);
};

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct keyword keywords[] = {
	{ "allow",		kw_allow },
	{ "allow-degraded",	kw_degraded },
	{ "limit",		kw_limit },
	{ "run-as",		kw_run_as },
	{ "timeout",		kw_timeout },
};

static int
keyword_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct keyword *)elem)->name);
}

static void
parse_line(struct state *st, char *line)
{
	const struct keyword *kw;
	char *w[MAX_WORDS];
	int nw;

	if ((nw = split(st, line, w)) <= 0)
		return;
	kw = bsearch(w[0], keywords, TC_NITEMS(keywords), sizeof(keywords[0]),
	    keyword_cmp);
	if (kw == NULL) {
		error(st, "unknown keyword '%s'", w[0]);
		return;
	}
	kw->fn(st, w + 1, nw - 1);
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
	struct state st;
	char *line = NULL;
	size_t cap = 0;
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

/* --- Printing --- */

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
		fprintf(f, "  %-10s  %s  (%s)\n", (r->flags & TC_ROOT_WRITE) ?
		    "read-write" : "read-only", r->path,
		    origin(r->line > 0 ? r->line : TC_SET_CMDLINE, at,
		    sizeof(at)));
	}
	fprintf(f, "limits per call:\n");
	for (i = 0; i < TC_NITEMS(rows); i++) {
		switch (rows[i].set) {
		case TC_SET_TIMEOUT:
			v = (unsigned long long)l->deadline_ms;
			break;
		case TC_SET_MEMORY:
			v = l->mem_bytes;
			break;
		case TC_SET_CPU:
			v = l->cpu_sec * MS_SEC;
			break;
		case TC_SET_OUTPUT:
			v = l->max_result;
			break;
		case TC_SET_FILES:
			v = l->nofile;
			break;
		case TC_SET_PROCESSES:
			v = l->nproc;
			break;
		case TC_SET_FILESIZE:
			v = l->fsize_bytes;
			break;
		default:
			break;
		}
		fprintf(f, "  %-10s  %-6s  (%s)\n", rows[i].name,
		    fmt_value(rows[i].kind, v, val, sizeof(val)),
		    origin(p->set_at[rows[i].set], at, sizeof(at)));
	}
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
