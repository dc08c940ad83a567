/*
 * cmdline.c: the command line (the common options and the server's own,
 * from one table), --help made from that table, --print-config, and the
 * policy the command line loads.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/log.h"
#include "base/strv.h"
#include "base/text.h"
#include "policy/own.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/hostconfig.h"
#include "serve/server-int.h"
#include "serve/server.h"
#include "serve/usage.h"

/* --help's layout: the column its explanations start in, the width of
 * the usage lines and of the closing paragraph. */
#define HELP_COLUMN	27
#define USAGE_WIDTH	79
#define TEXT_WIDTH	76

/* At most this many options in all, common and the server's. */
#define OPTIONS_MAX	64

/* --- Setters --- */

int
tc_option_flag(const struct tc_option *o, const char *value,
    struct tc_diag *d)
{
	(void)value;
	(void)d;
	*(int *)o->to = 1;
	return 0;
}

int
tc_option_string(const struct tc_option *o, const char *value,
    struct tc_diag *d)
{
	(void)d;
	*(const char **)o->to = value;
	return 0;
}

/* Reads |s| as a decimal number from |min| to |max| into *|out|. */
static int
number(const char *s, long long min, long long max, long long *out,
    struct tc_diag *d)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return tc_diag(d, TC_EINVAL, "'%s' is not a number from %lld "
		    "to %lld", s, min, max);
	*out = v;
	return 0;
}

static int
set_policy(const struct tc_option *o, const char *value, struct tc_diag *d)
{
	if (*(const char **)o->to != NULL)
		return tc_diag(d, TC_EINVAL, "given twice; one policy file "
		    "says everything");
	*(const char **)o->to = value;
	return 0;
}

static int
set_host(const struct tc_option *o, const char *value, struct tc_diag *d)
{
	if (!tc_hostconfig_known(value))
		return tc_diag(d, TC_EINVAL, "unknown host '%s' (known: %s)",
		    value, tc_hostconfig_hosts());
	*(const char **)o->to = value;
	return 0;
}

static int
set_timeout(const struct tc_option *o, const char *value, struct tc_diag *d)
{
	long long v;

	if (number(value, 1, 3600 * 1000, &v, d) != 0)
		return TC_EINVAL;
	*(int *)o->to = (int)v;
	return 0;
}

static int
set_max_frame(const struct tc_option *o, const char *value,
    struct tc_diag *d)
{
	long long v;

	if (number(value, 64, 1LL << 30, &v, d) != 0)
		return TC_EINVAL;
	*(size_t *)o->to = (size_t)v;
	return 0;
}

static int
set_degraded(const struct tc_option *o, const char *value, struct tc_diag *d)
{
	if (strcmp(value, "landlock") == 0)
		*(unsigned *)o->to |= TC_DEGRADE_LANDLOCK;
	else if (strcmp(value, "seccomp") == 0)
		*(unsigned *)o->to |= TC_DEGRADE_SECCOMP;
	else
		return tc_diag(d, TC_EINVAL, "unknown layer '%s' (known: "
		    "landlock, seccomp)", value);
	return 0;
}

static int
set_level(const struct tc_option *o, const char *value, struct tc_diag *d)
{
	(void)value;
	(void)d;
	*(int *)o->to = o->letter == 'v' ? TC_LOG_DEBUG : TC_LOG_ERROR;
	return 0;
}

/* --- The table --- */

/*
 * The options every server takes, in --help's order: what is served
 * first, then the server's own options, then the rest.
 */
enum { NHEAD = 3, NTAIL = 8 };

static void
common_options(struct tc_cmdline *cl, struct tc_option *head,
    struct tc_option *tail)
{
	const struct tc_option h[NHEAD] = {
		{ "policy", 'p', "FILE", "the directories and limits of "
		  "policy FILE;\nsee toolcell-policy(5)", set_policy,
		  &cl->policy, TC_OPTION_CARRY },
		{ "check", 0, NULL, "print the effective policy on stdout, "
		  "or its\nerrors on stderr, and exit", tc_option_flag,
		  &cl->check, 0 },
		{ "print-config", 0, "HOST", "print what starts this server "
		  "from an MCP host\n(claude-code, cursor, vscode, ...), and "
		  "exit", set_host, &cl->host, 0 },
	};
	const struct tc_option t[NTAIL] = {
		{ "timeout", 't', "MS", "per-call deadline in milliseconds "
		  "(default 30000)", set_timeout, &cl->timeout_ms,
		  TC_OPTION_CARRY },
		{ "run-as", 'u', "USER[:GROUP]", "as root: run each call as "
		  "USER (and GROUP)", tc_option_string, &cl->run_as,
		  TC_OPTION_CARRY },
		{ "max-message-bytes", 0, "N", "longest input message "
		  "accepted (default 16 MiB)", set_max_frame, &cl->max_frame,
		  0 },
		{ "allow-degraded", 0, "LAYER", "run even if the kernel "
		  "lacks LAYER:\nlandlock or seccomp", set_degraded,
		  &cl->degraded, TC_OPTION_CARRY },
		{ "verbose", 'v', NULL, "log each call on stderr", set_level,
		  &cl->level, 0 },
		{ "quiet", 'q', NULL, "log only errors", set_level,
		  &cl->level, 0 },
		{ "version", 'V', NULL, "print the version and exit",
		  tc_option_flag, &cl->version, 0 },
		{ "help", 'h', NULL, "print this help and exit",
		  tc_option_flag, &cl->help, 0 },
	};

	memcpy(head, h, sizeof(h));
	memcpy(tail, t, sizeof(t));
}

/* Every option, in --help's order. */
struct table {
	struct tc_option	 o[OPTIONS_MAX];
	size_t			 n;
	size_t			 first_own;	/* the server's: from here */
	size_t			 end_own;	/* to here */
};

/*
 * Makes |tb| of the common options (kept in |cl|) and |def|'s own; a
 * server option that clashes with another is the server's bug.
 */
static void
make_table(const struct tc_server *def, struct tc_cmdline *cl,
    struct table *tb)
{
	struct tc_option head[NHEAD], tail[NTAIL];
	const struct tc_option *o;
	size_t i, j;

	common_options(cl, head, tail);
	if (def->policy_help != NULL)
		head[0].help = def->policy_help;
	if (def->noptions > OPTIONS_MAX - NHEAD - NTAIL)
		TC_BUG("%s: %zu options, at most %d", def->name,
		    def->noptions, OPTIONS_MAX - NHEAD - NTAIL);
	memcpy(tb->o, head, sizeof(head));
	tb->first_own = NHEAD;
	for (i = 0; i < def->noptions; i++)
		tb->o[NHEAD + i] = def->options[i];
	tb->end_own = NHEAD + def->noptions;
	memcpy(tb->o + tb->end_own, tail, sizeof(tail));
	tb->n = tb->end_own + NTAIL;
	for (i = 0; i < tb->n; i++) {
		o = &tb->o[i];
		if (o->name == NULL || o->name[0] == '\0' || o->set == NULL ||
		    o->help == NULL || (o->letter != 0 &&
		    !isalnum(o->letter)))
			TC_BUG("%s: option %zu: a name, a setter, a help text "
			    "and a letter or digit (or none) are needed",
			    def->name, i);
		for (j = 0; j < i; j++)
			if (strcmp(tb->o[j].name, o->name) == 0 ||
			    (o->letter != 0 && tb->o[j].letter == o->letter))
				TC_BUG("%s: option '--%s' clashes with '--%s'",
				    def->name, o->name, tb->o[j].name);
	}
}

/* The getopt_long() value of option |i| of the table. */
static int
option_val(const struct table *tb, size_t i)
{
	return tb->o[i].letter != 0 ? tb->o[i].letter : 256 + (int)i;
}

/* --- Help --- */

/* Orders option letters as a usage line shows them: by letter, the
 * capital first ("hqVvw"). */
static int
letter_cmp(const void *a, const void *b)
{
	int x = *(const char *)a, y = *(const char *)b;

	if (tolower(x) != tolower(y))
		return tolower(x) - tolower(y);
	return isupper(y) - isupper(x);
}

/*
 * Appends to |b| the usage items of the options |o[0..n)| for which
 * |pick| holds: the letters of those without a value in one cluster
 * ("[-hqVvw]"), then those without a value or a letter ("[--check]"),
 * then those with a value and a letter ("[-p FILE]"), then with a value
 * only ("[--max-message-bytes N]"), each item ending in '\n'.
 */
static void
usage_items(struct tc_buf *b, const struct tc_option *o, size_t n,
    int (*pick)(const struct tc_option *))
{
	char letters[OPTIONS_MAX + 1];
	size_t i, k = 0;
	int pass;

	for (i = 0; i < n; i++)
		if (pick(&o[i]) && o[i].arg == NULL && o[i].letter != 0)
			letters[k++] = (char)o[i].letter;
	letters[k] = '\0';
	qsort(letters, k, 1, letter_cmp);
	if (k > 0)
		tc_buf_printf(b, "[-%s]\n", letters);
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < n; i++) {
			if (!pick(&o[i]))
				continue;
			if (pass == 0 && o[i].arg == NULL && o[i].letter == 0)
				tc_buf_printf(b, "[--%s]\n", o[i].name);
			else if (pass == 1 && o[i].arg != NULL &&
			    o[i].letter != 0)
				tc_buf_printf(b, "[-%c %s]\n", o[i].letter,
				    o[i].arg);
			else if (pass == 2 && o[i].arg != NULL &&
			    o[i].letter == 0)
				tc_buf_printf(b, "[--%s %s]\n", o[i].name,
				    o[i].arg);
		}
	}
}

/*
 * Writes |items| (each ending in '\n') after |lead| to |f|, blank
 * separated, breaking the line before an item that would pass
 * USAGE_WIDTH and indenting the next by |indent| columns.
 */
static void
usage_line(FILE *f, const char *lead, const char *items, int indent)
{
	const char *p, *nl;
	size_t col = strlen(lead), len;

	fputs(lead, f);
	for (p = items; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		len = (size_t)(nl - p);
		if (col + 1 + len > USAGE_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = (size_t)indent;
		}
		fprintf(f, " %.*s", (int)len, p);
		col += 1 + len;
	}
	fputc('\n', f);
}

/*
 * Writes |text| to |f| filled to TEXT_WIDTH columns: words move between
 * lines, and the blanks between two words on one line stay as they were
 * (two after a full stop).
 */
static void
fill(FILE *f, const char *text)
{
	const char *p = text, *w;
	size_t col = 0, gap = 0, len;

	while (*p != '\0') {
		w = p;
		while (*p != '\0' && *p != ' ')
			p++;
		len = (size_t)(p - w);
		if (col > 0 && col + gap + len > TEXT_WIDTH) {
			fputc('\n', f);
			col = 0;
		}
		if (col > 0)
			fprintf(f, "%*s", (int)gap, "");
		fprintf(f, "%.*s", (int)len, w);
		col += (col > 0 ? gap : 0) + len;
		for (gap = 0; *p == ' '; p++)
			gap++;
	}
	fputc('\n', f);
}

/* Writes one option's entry: its names, then its help, each line of it
 * from HELP_COLUMN on. */
static void
help_entry(FILE *f, const struct tc_option *o)
{
	const char *p, *nl;
	int n;

	if (o->letter != 0)
		n = fprintf(f, "  -%c, --%s", o->letter, o->name);
	else
		n = fprintf(f, "      --%s", o->name);
	if (o->arg != NULL)
		n += fprintf(f, " %s", o->arg);
	fprintf(f, "%*s", n + 2 <= HELP_COLUMN ? HELP_COLUMN - n : 2, "");
	for (p = o->help; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - p), p, HELP_COLUMN, "");
	fprintf(f, "%s\n", p);
}

static int
pick_start(const struct tc_option *o)
{
	return strcmp(o->name, "print-config") != 0;
}

static int
pick_all(const struct tc_option *o)
{
	(void)o;
	return 1;
}

/*
 * Prints the help, asked for with --help: on stderr, like everything but
 * MCP messages and the report of --check.  Made from the table: the
 * usage lines (a start; --print-config with the server's options it
 * passes on and --policy), the summary, each option, and a closing
 * paragraph that opens with what the operands are.
 */
static void
usage(const struct tc_server *def, const struct table *tb)
{
	struct tc_option carried[OPTIONS_MAX];
	struct tc_buf items, lead, text;
	size_t i, n = 0;
	int indent = (int)strlen("usage: ") + (int)strlen(def->name);

	tc_buf_init(&items, 1u << 16);
	tc_buf_init(&lead, 1u << 12);
	tc_buf_init(&text, 1u << 12);
	usage_items(&items, tb->o, tb->n, pick_start);
	if (def->operands != NULL)
		tc_buf_printf(&items, "[%s...]\n", def->operands->name);
	tc_buf_printf(&lead, "usage: %s", def->name);
	usage_line(stderr, lead.data, items.data != NULL ? items.data : "",
	    indent);
	/* The policy, and the server's own options that --print-config
	 * passes on; the common ones it passes on are left out, as they
	 * change how calls run, not what is served. */
	carried[n++] = tb->o[0];
	for (i = tb->first_own; i < tb->end_own; i++)
		if (tb->o[i].flags & TC_OPTION_CARRY)
			carried[n++] = tb->o[i];
	tc_buf_reset(&items);
	usage_items(&items, carried, n, pick_all);
	if (def->operands != NULL)
		tc_buf_printf(&items, "[%s...]\n", def->operands->name);
	tc_buf_reset(&lead);
	tc_buf_printf(&lead, "%*s%s --print-config HOST", (int)strlen(
	    "usage: "), "", def->name);
	usage_line(stderr, lead.data, items.data != NULL ? items.data : "",
	    indent);
	fprintf(stderr, "%s.\n\n", def->summary);
	for (i = 0; i < tb->n; i++)
		help_entry(stderr, &tb->o[i]);
	fputc('\n', stderr);
	if (def->operands != NULL && def->operands->help != NULL)
		tc_buf_printf(&text, "%s  ", def->operands->help);
	tc_buf_printf(&text, "Options given here override the policy's "
	    "settings.  It speaks MCP on stdin and stdout, for an MCP client "
	    "(a host such as an editor or a chat application) that starts "
	    "it; see %s(1).  A usage error exits 2.", def->name);
	fill(stderr, text.data != NULL ? text.data : "");
	tc_buf_release(&items);
	tc_buf_release(&lead);
	tc_buf_release(&text);
}

/* Says what is wrong with the command line and exits TC_EXIT_USAGE. */
static noreturn void
usage_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static noreturn void
usage_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_usage_verror(fmt, ap);
	va_end(ap);
	exit(TC_EXIT_USAGE);
}

/* --- --print-config --- */

/* A server option as given, for --print-config to pass on. */
struct given {
	const struct tc_option	*o;
	const char		*value;
};

int
tc_srv_ready(const struct tc_server *def, const struct tc_policy *pol)
{
	struct tc_diag d = { "", 0 };
	int rc;

	if (def->ready == NULL || (rc = def->ready(def, pol, &d)) == 0)
		return -1;
	tc_log(TC_LOG_ERROR, "%s", d.msg);
	/* Nothing to serve is a usage error; anything else that failed (a
	 * directory it could not make) a start that could not be. */
	return rc == TC_EINVAL ? TC_EXIT_USAGE : 1;
}

/*
 * For a server whose entry names only its policy (tc_server.served): loads
 * |pol| and checks it as a start does, so that no entry is printed for a
 * policy the server would refuse: one with errors exits 1 here, once they
 * are printed; a ready hook that refuses gives tc_srv_ready()'s status,
 * once that is said.  Returns -1 to go on.  The checks that need the
 * sandbox probed (the kernel's layers, the process limit) and the
 * warnings that follow from them are --check's.
 */
static int
load_served(const struct tc_server *def, const struct tc_cmdline *cl,
    struct tc_policy *pol)
{
	int nerrors;

	tc_policy_init(pol);
	if ((nerrors = tc_srv_load_policy(def, pol, cl)) > 0)
		tc_fatal("%d error%s: no entry printed", nerrors,
		    nerrors == 1 ? "" : "s");
	return tc_srv_ready(def, pol);
}

/*
 * --print-config HOST: writes the entry that starts this server from HOST
 * with the options given here that change what is served (the common
 * ones, then the server's own marked TC_OPTION_CARRY, in the order given)
 * and the operands as the server's carry hook makes them, the policy made
 * absolute and the binary found through /proc/self/exe, so that the host,
 * which starts servers from an unknown directory, finds them.  A server
 * with a served hook has its policy checked first, and what it serves
 * shown under the entry, on stderr.  Returns the exit status.
 */
static int
print_config(const struct tc_server *def, const struct tc_cmdline *cl,
    const struct given *given, size_t ngiven)
{
	struct tc_hostconfig hc;
	struct tc_diag d = { "", 0 };
	struct tc_policy pol;
	struct passwd *pw;
	struct utsname u;
	const char **args;
	char exe[PATH_MAX], timeout[32], target[512], *policy = NULL;
	char **ops = NULL, **made;
	const char *distro;
	ssize_t n;
	size_t i, j, k = 0, nops = 0, nmade = 0;
	int rc = 0;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
		tc_fatal("--print-config: cannot find this binary: "
		    "/proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	/* The policy first. */
	if (cl->policy != NULL && (policy = realpath(cl->policy, NULL)) ==
	    NULL)
		tc_fatal("--print-config: cannot find policy '%s': %s",
		    cl->policy, strerror(errno));
	if (def->served != NULL) {
		if ((rc = load_served(def, cl, &pol)) >= 0) {
			tc_policy_release(&pol);
			free(policy);
			return rc;
		}
		rc = 0;
	}
	if (def->operands != NULL && def->operands->carry != NULL &&
	    (ops = def->operands->carry(cl, &d)) == NULL)
		tc_fatal("--print-config: %s", d.msg);
	if (ops != NULL)
		while (ops[nops] != NULL)
			nops++;
	else
		nops = (size_t)cl->noperands;
	args = calloc(16 + 2 * ngiven + nops + 1, sizeof(*args));
	made = calloc(ngiven + 1, sizeof(*made));
	if (args == NULL || made == NULL)
		tc_fatal("out of memory");
	if (policy != NULL) {
		args[k++] = "--policy";
		args[k++] = policy;
	}
	if (cl->timeout_ms != 0) {
		snprintf(timeout, sizeof(timeout), "%d", cl->timeout_ms);
		args[k++] = "--timeout";
		args[k++] = timeout;
	}
	if (cl->run_as != NULL) {
		args[k++] = "--run-as";
		args[k++] = cl->run_as;
	}
	if (cl->degraded & TC_DEGRADE_LANDLOCK) {
		args[k++] = "--allow-degraded";
		args[k++] = "landlock";
	}
	if (cl->degraded & TC_DEGRADE_SECCOMP) {
		args[k++] = "--allow-degraded";
		args[k++] = "seccomp";
	}
	for (i = 0; i < ngiven; i++) {
		if (!(given[i].o->flags & TC_OPTION_CARRY))
			continue;
		/* An option without a value says it once. */
		for (j = 0; given[i].value == NULL && j < i; j++)
			if (given[j].o == given[i].o)
				break;
		if (given[i].value == NULL && j < i)
			continue;
		if (asprintf(&made[nmade], "--%s", given[i].o->name) < 0)
			tc_fatal("out of memory");
		args[k++] = made[nmade++];
		if (given[i].value != NULL)
			args[k++] = given[i].value;
	}
	for (i = 0; i < nops; i++)
		args[k++] = ops != NULL ? ops[i] : cl->operands[i];
	/* For ssh: this user on this machine, as a starting point. */
	pw = getpwuid(getuid());
	if (uname(&u) != 0)
		snprintf(u.nodename, sizeof(u.nodename), "localhost");
	snprintf(target, sizeof(target), "%s@%s",
	    pw != NULL ? pw->pw_name : "user", u.nodename);
	distro = getenv("WSL_DISTRO_NAME");
	memset(&hc, 0, sizeof(hc));
	hc.name = def->name;
	hc.command = exe;
	hc.args = args;
	hc.wsl_distro = distro != NULL && *distro != '\0' ? distro : NULL;
	hc.ssh_target = target;
	/* The snippet is the one thing this run writes to stdout. */
	if (tc_hostconfig_print(stdout, cl->host, &hc, &d) != 0) {
		tc_log(TC_LOG_ERROR, "--print-config: %s", d.msg);
		rc = 1;
	} else if (def->served != NULL && cl->level >= TC_LOG_INFO) {
		tc_log(TC_LOG_INFO, "the entry serves what %s names:",
		    policy != NULL ? policy : "the command line");
		def->served(&pol, stderr);
	}
	if (def->served != NULL)
		tc_policy_release(&pol);
	tc_strv_free(ops);
	tc_strv_free(made);
	free(policy);
	free(args);
	return rc;
}

/* --- Reading it --- */

int
tc_srv_cmdline(const struct tc_server *def, int argc, char *argv[],
    struct tc_cmdline *cl)
{
	struct option opts[OPTIONS_MAX + 1];
	struct tc_diag d = { "", 0 };
	struct tc_buf optstring;
	struct table tb;
	struct given *given;
	size_t i, ngiven = 0;
	int ch, rc;

	memset(cl, 0, sizeof(*cl));
	cl->level = TC_LOG_INFO;
	cl->max_frame = TC_MAX_FRAME;
	make_table(def, cl, &tb);
	memset(opts, 0, sizeof(opts));
	for (i = 0; i < tb.n; i++) {
		opts[i].name = tb.o[i].name;
		opts[i].has_arg = tb.o[i].arg != NULL ? required_argument :
		    no_argument;
		opts[i].val = option_val(&tb, i);
	}
	/* ":" first: a missing value is told apart from an unknown
	 * option. */
	tc_buf_init(&optstring, 4 * OPTIONS_MAX);
	if (tc_buf_append_str(&optstring, ":") != 0)
		tc_fatal("out of memory");
	for (i = 0; i < tb.n; i++)
		if (tb.o[i].letter != 0 && tc_buf_printf(&optstring, "%c%s",
		    tb.o[i].letter, tb.o[i].arg != NULL ? ":" : "") != 0)
			tc_fatal("out of memory");
	if ((given = calloc((size_t)argc + 1, sizeof(*given))) == NULL)
		tc_fatal("out of memory");
	opterr = 0;
	rc = -1;
	while (rc < 0 && (ch = getopt_long(argc, argv, optstring.data, opts,
	    NULL)) != -1) {
		for (i = 0; i < tb.n && option_val(&tb, i) != ch; i++)
			;
		if (i == tb.n) {
			tc_usage_bad_option(NULL, ch, argv, opts);
			rc = TC_EXIT_USAGE;
			break;
		}
		tc_diag_init(&d);
		if (tb.o[i].set(&tb.o[i], optarg, &d) != 0) {
			tc_buf_release(&optstring);
			free(given);
			usage_fail("--%s: %s", tb.o[i].name, d.msg);
		}
		if (i >= tb.first_own && i < tb.end_own) {
			given[ngiven].o = &def->options[i - tb.first_own];
			given[ngiven++].value = optarg;
		}
		/* At once, whatever follows. */
		if (cl->version) {
			fprintf(stderr, "%s %s\n", def->name, def->version);
			rc = 0;
		} else if (cl->help) {
			usage(def, &tb);
			rc = 0;
		}
	}
	tc_buf_release(&optstring);
	if (rc >= 0) {
		free(given);
		return rc;
	}
	cl->operands = argv + optind;
	cl->noperands = argc - optind;
	if (def->operands == NULL && cl->noperands > 0) {
		free(given);
		usage_fail("unexpected argument '%s': %s takes options only%s%s",
		    cl->operands[0], def->name, def->no_operands != NULL ?
		    "; " : "", def->no_operands != NULL ? def->no_operands :
		    "");
	}
	tc_log_init(def->name, (enum tc_log_level)cl->level);
	if (def->cmdline != NULL && def->cmdline(cl, &d) != 0) {
		free(given);
		usage_fail("%s", d.msg);
	}
	if (cl->host != NULL)
		rc = print_config(def, cl, given, ngiven);
	free(given);
	return rc;
}

/* --- The policy --- */

/* Prints one error of the policy file on stderr, and counts it. */
void
tc_srv_report_error(void *ctx, const char *msg)
{
	int *nerrors = ctx;

	tc_log(TC_LOG_ERROR, "%s", msg);
	(*nerrors)++;
}

/* Prints one warning about the policy on stderr. */
static void
report_warning(void *ctx, const char *msg)
{
	(void)ctx;
	tc_warn("%s", msg);
}

void
tc_srv_warn_policy(const struct tc_server *def, const struct tc_policy *pol)
{
	if (def->warn != NULL)
		def->warn(pol, report_warning, NULL);
	else
		tc_policy_warn(pol, NULL, report_warning, NULL);
}

int
tc_srv_load_policy(const struct tc_server *def, struct tc_policy *pol,
    const struct tc_cmdline *cl)
{
	struct tc_diag d = { "", 0 };
	const char **names;
	unsigned features = def->policy_features;
	size_t k, n = 0;
	int i, nerrors = 0, line;

	/* Before anything reads the table (an alias, the entry before it). */
	if (tc_tools_validate(def->tools, def->ntools, &d) != 0)
		TC_BUG("%s", d.msg);
	if ((names = calloc(def->ntools + 1, sizeof(*names))) == NULL)
		tc_fatal("out of memory");
	for (k = 0; k < def->ntools; k++) {
		if (tc_tool_alias_of(&def->tools[k]) == NULL)
			names[n++] = def->tools[k].name;
		if (def->tools[k].flags & TC_TOOL_JOB)
			features |= TC_POLICY_F_JOBS;
	}
	if (tc_policy_set_server(pol, def->name, names, n, features) != 0)
		tc_fatal("out of memory");
	if (def->policy_section != NULL &&
	    tc_policy_set_section(pol, def->policy_section, &d) != 0)
		tc_fatal("%s", d.msg);
	free(names);
	for (k = 0; k < def->ntools; k++) {
		if (tc_tool_alias_of(&def->tools[k]) == NULL)
			continue;
		i = tc_policy_add_alias(pol, def->tools[k].name,
		    tc_tool_alias_of(&def->tools[k]));
		if (i == TC_ENOMEM)
			tc_fatal("out of memory");
		if (i != 0)
			TC_BUG("tool '%s': an alias of no tool",
			    def->tools[k].name);
	}
	if (cl->policy != NULL)
		tc_policy_load(pol, cl->policy, tc_srv_report_error, &nerrors,
		    &d);
	if (def->configure != NULL)
		def->configure(pol, cl, tc_srv_report_error, &nerrors);
	if (cl->timeout_ms != 0) {
		pol->limits.deadline_ms = cl->timeout_ms;
		pol->set_at[TC_SET_TIMEOUT] = TC_SET_CMDLINE;
	}
	if (cl->degraded & TC_DEGRADE_LANDLOCK)
		pol->set_at[TC_SET_DEGRADE_LANDLOCK] = TC_SET_CMDLINE;
	if (cl->degraded & TC_DEGRADE_SECCOMP)
		pol->set_at[TC_SET_DEGRADE_SECCOMP] = TC_SET_CMDLINE;
	pol->allow_degraded |= cl->degraded;
	/* One resolver, and so the same checks and messages, for the
	 * option and the policy's run-as. */
	if (cl->run_as != NULL) {
		free(pol->run_as_spec);
		if ((pol->run_as_spec = strdup(cl->run_as)) == NULL)
			tc_fatal("out of memory");
		pol->set_at[TC_SET_RUN_AS] = TC_SET_CMDLINE;
		if (tc_policy_run_as(pol, cl->run_as, &d) != 0) {
			tc_log(TC_LOG_ERROR, "--run-as: %s", d.msg);
			nerrors++;
		}
	} else if (pol->run_as_spec != NULL) {
		line = pol->set_at[TC_SET_RUN_AS];
		if (tc_policy_run_as(pol, pol->run_as_spec, &d) != 0) {
			tc_log(TC_LOG_ERROR, "%s:%d: run-as: %s", cl->policy,
			    line, d.msg);
			nerrors++;
		}
	}
	if (tc_policy_finish(pol, &d) != 0)
		tc_fatal("%s", d.msg);
	/* The files the server trusts, out of every call's reach; one that
	 * a call could replace refuses the start. */
	tc_own_collect(pol, cl->policy, tc_srv_report_error, &nerrors);
	return nerrors;
}
