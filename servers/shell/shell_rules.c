/*
 * shell_rules.c: an argv against the argument rules of the [shell]
 * section, the friendly first line.  Each refusal says which rule refused
 * what, and what is allowed instead.  The kernel is the guard
 * (shell_profile.c): what the rules let through still runs confined, and
 * can start only the programs the policy names.
 *
 * An argv is read the same way for every program (a program's own
 * parsing may differ, and the rules are written with that in mind:
 * toolcell-policy(5)):
 *
 *  - argv[0] names the program, by its policy name or its resolved path.
 *
 *  - Every later argument, wherever it is (after "--" too: find reads its
 *    expression there), is refused if a deny pattern matches:
 *	the whole argument;
 *	for "--name=value", its "--name";
 *	for a pattern that starts with "--", any "--n" or "--n=value" whose
 *	"--n" is the beginning of an option it matches: "--na" of "--name",
 *	"--upl" of "--upload-pack*" (everything, past a '*' right after the
 *	dashes), since getopt_long(3) takes an unambiguous abbreviation and
 *	cannot be asked which options are there (a pattern that does not
 *	start with "--" gets no such check, which would refuse every long
 *	option for "*upload-pack*"; shell_rules_warn() names those);
 *	for a pattern "-x" (a dash and one letter, without wildcards), a
 *	single-dash argument with that letter anywhere after the dash:
 *	"-vx" may be the cluster "-v -x", and "-xVALUE" is "-x VALUE".  A
 *	word that only looks so ("-Sfix" with "-x" denied) passes written
 *	apart: "-S" "fix".
 *
 *  - Before "--", an argument that starts with '-' (but "-" alone) is an
 *    option.  With an options list, each must match one of its patterns:
 *    whole, or by its "--name" before '=', or, for a cluster "-abc",
 *    each of "-a", "-b" and "-c".
 *
 *  - Every other argument is an operand.  With a subcommands list, the
 *    first must be one of them, and no option may come before it but a
 *    "--name=value": an option may take the next word as its value, and
 *    the program would then run the word after it ("git --namespace
 *    status clean" runs clean).  A call with options and no operand
 *    passes ("git --version").
 *
 *  - With no-dash-operands, no operand may start with '-': neither "-"
 *    alone nor anything after "--".
 *
 * The program then runs as its path, the forced prefix, and the
 * arguments as they were given.
 */
#include <stdlib.h>
#include <string.h>

#include "base/strv.h"
#include "base/text.h"
#include "policy/glob.h"
#include "shell.h"

/* How much of an argument a message shows, and of a list. */
#define SHOW_MAX	160
#define LIST_MAX	1024
/* The longest "--name" of a "--name=value" read without a copy on the
 * heap. */
#define NAME_MAX_INLINE	256

/* How a deny pattern refuses an argument. */
enum hit {
	HIT_NONE,
	HIT_WHOLE,	/* the whole argument */
	HIT_NAME,	/* the "--name" of "--name=value" */
	HIT_ABBREV,	/* "--na" may abbreviate an option of the pattern */
	HIT_CLUSTER,	/* "-vx" may hold the pattern's "-x" */
};

static const char *
show(char *buf, const char *s)
{
	return tc_text_show(buf, SHOW_MAX, s, 0);
}

/* Writes the words of |v| (NULL-terminated) as "a, b, c" into |buf| of
 * LIST_MAX bytes; returns |buf|. */
static const char *
list(char *buf, char *const *v)
{
	char one[SHOW_MAX];
	size_t o = 0;

	buf[0] = '\0';
	for (; v != NULL && *v != NULL && o + 1 < LIST_MAX; v++)
		o += tc_text_fmt(buf + o, LIST_MAX - o, "%s%s",
		    o > 0 ? ", " : "", show(one, *v));
	return buf;
}

static int
literal(const char *pat)
{
	return strpbrk(pat, "*?[\\") == NULL;
}

/* Returns how |pat| refuses |a|, whose "--name" before '=' is |name| (or
 * NULL: |a| is no "--name=value"). */
static enum hit
deny_hit(const char *pat, const char *a, const char *name)
{
	const char *opt = name != NULL ? name : a;

	if (tc_glob_match_string(pat, a))
		return HIT_WHOLE;
	if (name != NULL && tc_glob_match_string(pat, name))
		return HIT_NAME;
	if (pat[0] == '-' && pat[1] == '-' && pat[2] != '\0' &&
	    opt[0] == '-' && opt[1] == '-' && opt[2] != '\0' &&
	    tc_glob_prefix_string(pat, opt))
		return HIT_ABBREV;
	if (!literal(pat))
		return HIT_NONE;
	if (pat[0] == '-' && pat[1] != '-' && pat[1] != '\0' &&
	    pat[2] == '\0' && a[0] == '-' && a[1] != '-' && a[1] != '\0' &&
	    a[2] != '\0' && strchr(a + 1, pat[1]) != NULL)
		return HIT_CLUSTER;
	return HIT_NONE;
}

/* Refuses |a| for the deny pattern |pat| and how it matched. */
static int
refuse_denied(const struct shell_program *p, const char *a,
    const char *name, const char *pat, enum hit hit, struct tc_diag *d)
{
	char sa[SHOW_MAX], sn[SHOW_MAX], sp[SHOW_MAX];

	show(sa, a);
	show(sp, pat);
	switch (hit) {
	case HIT_NAME:
		return tc_diag(d, TC_EDENIED, "%s: '%s' is refused: the policy "
		    "denies the option '%s' (pattern '%s')", p->name, sa,
		    show(sn, name), sp);
	case HIT_ABBREV:
		return tc_diag(d, TC_EDENIED, "%s: '%s' is refused: '%s' may "
		    "abbreviate %s'%s', which the policy denies", p->name, sa,
		    show(sn, name != NULL ? name : a), literal(pat) ? "" :
		    "an option matching ", sp);
	case HIT_CLUSTER:
		return tc_diag(d, TC_EDENIED, "%s: '%s' is refused: as a "
		    "cluster of short options or an option with its value "
		    "attached, it may hold '%s', which the policy denies "
		    "(write each option apart, and an option's value as an "
		    "argument of its own)", p->name, sa, sp);
	case HIT_WHOLE:
	case HIT_NONE:
		break;
	}
	return tc_diag(d, TC_EDENIED, "%s: '%s' is refused: the policy denies "
	    "arguments matching '%s'", p->name, sa, sp);
}

/* Returns 1 if |a|, an option whose "--name" is |name| (or NULL), is one
 * the options list of |p| allows. */
static int
option_ok(const struct shell_program *p, const char *a, const char *name)
{
	char one[3] = { '-', '\0', '\0' };
	char *const *v;
	const char *s;

	for (v = p->options; *v != NULL; v++)
		if (tc_glob_match_string(*v, a) ||
		    (name != NULL && tc_glob_match_string(*v, name)))
			return 1;
	if (a[1] == '-' || a[2] == '\0')
		return 0;
	/* A cluster: each of its letters must be an option of its own. */
	for (s = a + 1; *s != '\0'; s++) {
		one[1] = *s;
		for (v = p->options; *v != NULL; v++)
			if (tc_glob_match_string(*v, one))
				break;
		if (*v == NULL)
			return 0;
	}
	return 1;
}

/*
 * If |a| is a command line whose first word is a program of |sp| ("git
 * status -s"), writes it as the argv it should have been into |buf| of
 * |len| bytes (["git", "status", "-s"]) and returns 1; else 0.  Only
 * plain printable words: nothing a shell would read otherwise (quotes,
 * $, \, ...).
 */
static int
split_shown(char *buf, size_t len, const struct shell_policy *sp,
    const char *a)
{
	const char *w, *e;
	char *first;
	size_t o = 0;
	int known;

	for (w = a; *w != '\0'; w++)
		if ((*w < '!' || *w > '~') && *w != ' ' && *w != '\t')
			return 0;	/* printable words alone */
	if (strpbrk(a, "\"'`$\\|&;<>(){}*?[]~#") != NULL ||
	    strpbrk(a, " \t") == NULL)
		return 0;
	w = a + strspn(a, " \t");
	e = w + strcspn(w, " \t");
	if (e == w || (first = strndup(w, (size_t)(e - w))) == NULL)
		return 0;
	known = shell_program_find(sp, first) != NULL;
	free(first);
	if (!known)
		return 0;
	/* Each word while it and room for ", ...]" fit; then "...". */
	o += tc_text_fmt(buf + o, len - o, "[");
	for (; *w != '\0'; w = e + strspn(e, " \t")) {
		e = w + strcspn(w, " \t");
		if (o + (size_t)(e - w) + 4 + sizeof(", ...]") > len) {
			o += tc_text_fmt(buf + o, len - o, "%s...", o > 1 ?
			    ", " : "");
			break;
		}
		o += tc_text_fmt(buf + o, len - o, "%s\"%.*s\"", o > 1 ?
		    ", " : "", (int)(e - w), w);
	}
	tc_text_fmt(buf + o, len - o, "]");
	return 1;
}

static int
refuse_program(const struct shell_policy *sp, const char *a,
    struct tc_diag *d)
{
	char sa[SHOW_MAX], names[LIST_MAX], one[SHOW_MAX], words[SHOW_MAX];
	size_t i, o = 0;

	names[0] = '\0';
	for (i = 0; sp != NULL && i < sp->nprograms && o + 1 < sizeof(names);
	    i++)
		if (sp->programs[i].path != NULL)
			o += tc_text_fmt(names + o, sizeof(names) - o, "%s%s",
			    o > 0 ? ", " : "", show(one,
			    sp->programs[i].name));
	if (o == 0)
		return tc_diag(d, TC_EDENIED, "'%s' is not a program this "
		    "server runs: its policy allows none", show(sa, a));
	/* "git status" as one string: a command line, not a program. */
	if (split_shown(words, sizeof(words), sp, a))
		return tc_diag(d, TC_EDENIED, "'%s' is not a program this "
		    "server runs (it runs: %s): argv holds one string per "
		    "argument, as %s, and no shell splits them", show(sa, a),
		    names, words);
	return tc_diag(d, TC_EDENIED, "'%s' is not a program this server runs "
	    "(it runs: %s)", show(sa, a), names);
}

/* Returns the argv to run: |p|'s path, its prefix, then argv[1...]. */
static char **
build(const struct shell_program *p, const char *const *argv, size_t argc)
{
	size_t n = 0, i;
	char *const *v;
	char **run;

	for (v = p->prefix; v != NULL && *v != NULL; v++)
		n++;
	if ((run = calloc(1 + n + argc, sizeof(*run))) == NULL)
		return NULL;
	n = 0;
	if ((run[n++] = strdup(p->path)) == NULL)
		goto fail;
	for (v = p->prefix; v != NULL && *v != NULL; v++)
		if ((run[n++] = strdup(*v)) == NULL)
			goto fail;
	for (i = 1; i < argc; i++)
		if ((run[n++] = strdup(argv[i])) == NULL)
			goto fail;
	return run;
fail:
	tc_strv_free(run);
	return NULL;
}

int
shell_rules_check(const struct shell_policy *sp, const char *const *argv,
    size_t argc, const struct shell_program **prog, char ***run,
    struct tc_diag *d)
{
	const struct shell_program *p;
	char sa[SHOW_MAX], ls[LIST_MAX], nbuf[NAME_MAX_INLINE], *heap = NULL;
	char sb[SHOW_MAX];
	const char *a, *eq, *name, *before = NULL;
	size_t len;
	char *const *v;
	enum hit hit = HIT_NONE;
	int dashdash = 0, operands = 0, rc = 0;
	size_t i;

	*prog = NULL;
	*run = NULL;
	if (argc == 0 || argv[0] == NULL)
		return tc_diag(d, TC_EINVAL, "argv is empty: its first string "
		    "names the program to run");
	if ((p = shell_program_find(sp, argv[0])) == NULL)
		return refuse_program(sp, argv[0], d);
	for (i = 1; i < argc && rc == 0; i++) {
		a = argv[i];
		hit = HIT_NONE;
		name = NULL;
		if (a[0] == '-' && a[1] == '-' && a[2] != '\0' &&
		    (eq = strchr(a, '=')) != NULL) {
			/* The "--name" of "--name=value": on the stack; only
			 * a name longer than any option is copied to the
			 * heap. */
			len = (size_t)(eq - a);
			if (len < sizeof(nbuf)) {
				memcpy(nbuf, a, len);
				nbuf[len] = '\0';
				name = nbuf;
			} else {
				free(heap);
				if ((heap = strndup(a, len)) == NULL)
					return tc_diag(d, TC_ENOMEM,
					    "out of memory");
				name = heap;
			}
		}
		for (v = p->deny; v != NULL && *v != NULL; v++)
			if ((hit = deny_hit(*v, a, name)) != HIT_NONE)
				break;
		if (hit != HIT_NONE) {
			rc = refuse_denied(p, a, name, *v, hit, d);
			break;
		}
		if (!dashdash && strcmp(a, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && a[0] == '-' && a[1] != '\0') {
			/* Before the subcommand, only a value attached. */
			if (operands == 0 && before == NULL && name == NULL)
				before = a;
			if (p->options != NULL && !option_ok(p, a, name))
				rc = tc_diag(d, TC_EDENIED, "%s: '%s' is not an "
				    "allowed option (allowed: %s%s)", p->name,
				    show(sa, a), list(ls, p->options),
				    a[1] != '-' && a[2] != '\0' ? "; a "
				    "cluster passes if each letter is an "
				    "allowed option of its own" : "");
			continue;
		}
		if (p->no_dash_operands && a[0] == '-') {
			rc = tc_diag(d, TC_EDENIED, "%s: the operand '%s' is "
			    "refused: the policy lets no operand of %s "
			    "start with '-'%s", p->name, show(sa, a), p->name,
			    dashdash ? " (after '--' too)" : "");
			break;
		}
		if (operands++ > 0 || p->subcommands == NULL)
			continue;
		for (v = p->subcommands; *v != NULL; v++)
			if (strcmp(*v, a) == 0)
				break;
		if (*v == NULL)
			rc = tc_diag(d, TC_EDENIED, "%s: '%s' is not an allowed "
			    "subcommand (allowed: %s)", p->name, show(sa, a),
			    list(ls, p->subcommands));
		else if (before != NULL)
			rc = tc_diag(d, TC_EDENIED, "%s: the option '%s' comes "
			    "before the subcommand '%s', where it may take the "
			    "next word as its value and make another word the "
			    "subcommand; write options after the subcommand "
			    "(or as --name=value)", p->name, show(sa, before),
			    show(sb, a));
	}
	free(heap);
	if (rc != 0)
		return rc;
	if ((*run = build(p, argv, argc)) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	*prog = p;
	return 0;
}

/*
 * Returns 1 if deny pattern |pat| matches some long option but gets no
 * abbreviation check (deny_hit()): it does not start with "--", yet some
 * string it matches does, and not every one that does (as "*", "-*" or
 * "*--*", made of dashes and stars and ending in one, match them all).
 */
static int
unabbreviated(const char *pat)
{
	if (pat[0] == '-' && pat[1] == '-')
		return 0;
	if (!tc_glob_prefix_string(pat, "--"))
		return 0;
	if (pat[strspn(pat, "-*")] == '\0' && pat[strlen(pat) - 1] == '*')
		return 0;
	return 1;
}

int
shell_rules_warn(const struct shell_policy *sp, const char *file,
    tc_policy_report_fn *report, void *ctx)
{
	char msg[1024], spat[SHOW_MAX], sname[SHOW_MAX], name[SHOW_MAX];
	char sugg[SHOW_MAX];
	const struct shell_program *p;
	char *const *v;
	const char *w;
	int n = 0;
	size_t i;

	for (i = 0; sp != NULL && i < sp->nprograms; i++) {
		p = &sp->programs[i];
		for (v = p->deny; v != NULL && *v != NULL; v++) {
			if (!unabbreviated(*v))
				continue;
			/* What to write instead: its words after the
			 * leading stars and dashes, as a long option. */
			w = *v + strspn(*v, "*-");
			tc_text_fmt(name, sizeof(name), "--%s", *w != '\0' ?
			    w : "name*");
			tc_text_fmt(msg, sizeof(msg), "%s:%d: args %s deny "
			    "'%s' matches long options but refuses none of "
			    "their abbreviations, which getopt_long(3) takes "
			    "('--upl' for '--upload-pack'): only a pattern "
			    "that starts with '--' refuses them; write the "
			    "option so, such as '%s'", file,
			    p->args_line[SHELL_ARGS_DENY], show(sname, p->name),
			    show(spat, *v), show(sugg, name));
			n++;
			if (report != NULL)
				report(ctx, msg);
		}
	}
	return n;
}
