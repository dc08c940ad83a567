/*
 * policy-print.c: what a loaded policy says, for a person: --check's
 * effective policy (tc_policy_print()), each setting with its origin, and
 * the warnings about settings that can have no effect (tc_policy_warn()).
 * It reads a finished struct tc_policy only; the file's grammar is
 * policyfile.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/section.h"
#include "base/text.h"

#define MS_SEC		1000ULL

/* Values are written as a policy writes them, by the grammar's own
 * formatter (policyfile.c). */
static const char *
fmt_duration(unsigned long long ms, char *buf, size_t len)
{
	return tc_policy_value_str(TC_POLICY_DURATION, ms, buf, len);
}

static const char *
fmt_size(unsigned long long n, char *buf, size_t len)
{
	return tc_policy_value_str(TC_POLICY_SIZE, n, buf, len);
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
	/* Jobs settings of a server that starts none. */
	if (!(p->features & TC_POLICY_F_JOBS)) {
		if (p->set_at[TC_SET_JOBS] > 0)
			warn_at(&w, p->set_at[TC_SET_JOBS], "'jobs' has no "
			    "effect: %s starts no jobs", p->server);
		if (p->set_at[TC_SET_JOB_LIFETIME] > 0)
			warn_at(&w, p->set_at[TC_SET_JOB_LIFETIME],
			    "'job-lifetime' has no effect: %s starts no jobs",
			    p->server);
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

/* Returns the value of limit |set| in |l|, in its shape's unit (cpu in
 * milliseconds). */
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
	else if (p->features & TC_POLICY_F_DENY_NAMED)
		fprintf(f, "  (checked on a call's working directory alone, "
		    "never on the files its programs open, which may read "
		    "and write anything beneath the directories, .env and "
		    ".git too: keep what these protect out of them)\n");
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

/* The limits of a call, as --check shows them. */
static const struct {
	const char	*name;
	enum tc_policy_shape shape;
	enum tc_setting	 set;
} limit_rows[] = {
	{ "timeout",	TC_POLICY_DURATION,	TC_SET_TIMEOUT },
	{ "memory",	TC_POLICY_SIZE,		TC_SET_MEMORY },
	{ "cpu",	TC_POLICY_DURATION,	TC_SET_CPU },	/* ms */
	{ "output",	TC_POLICY_SIZE,		TC_SET_OUTPUT },
	{ "files",	TC_POLICY_COUNT,	TC_SET_FILES },
	{ "processes",	TC_POLICY_COUNT,	TC_SET_PROCESSES },
	{ "filesize",	TC_POLICY_SIZE,		TC_SET_FILESIZE },
};

/* Writes the limits where tool |t| differs from the server's. */
static void
print_tool_limits(const struct tc_tool_policy *t, FILE *f)
{
	const struct tc_limits *l = &t->limits;
	unsigned long long v;
	const char *sep = "  ";
	char val[32];
	size_t i;

	for (i = 0; i < TC_NITEMS(limit_rows); i++) {
		if (!t->set_at[limit_rows[i].set])
			continue;
		v = limit_value(l, limit_rows[i].set);
		fprintf(f, "%s%s %s (line %d)", sep, limit_rows[i].name,
		    tc_policy_value_str(limit_rows[i].shape, v, val, sizeof(val)),
		    t->set_at[limit_rows[i].set]);
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
	if (p->features & TC_POLICY_F_WRITERS)
		fprintf(f, "  (a tool that changes files is listed only when "
		    "a directory is writable)\n");
}

static void
print_consent(const struct tc_policy *p, FILE *f)
{
	const struct tc_consent_rule *r;
	char at[32], val[32];
	size_t i, k, n;
	int g;

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
		for (g = 0, n = 0; g < TC_SUBJECT_NKINDS; g++)
			for (k = 0; k < r->nvalues[g]; k++, n++)
				fprintf(f, "%s%s%s%s", k > 0 ? ", " : n > 0 ?
				    " and its " : " when its ", k > 0 ? "" :
				    tc_subject_kind_name(g), k > 0 ? "" :
				    " matches ", r->values[n]);
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

const char *
tc_policy_origin(int at, char *buf, size_t len)
{
	return origin(at, buf, len);
}

/* Returns 1 if |p|'s server has a setting of its own named |name|. */
static int
own_setting(const struct tc_policy *p, const char *name)
{
	size_t i;

	for (i = 0; p->section != NULL && i < p->section->nkeywords; i++)
		if (strcmp(p->section->keywords[i].name, name) == 0)
			return 1;
	return 0;
}

/* Writes the server's own settings: by its section's print function, else
 * each typed one as "name: value  (origin)". */
static void
print_section(const struct tc_policy *p, FILE *f)
{
	const struct tc_policy_section *sec = p->section;
	const struct tc_policy_keyword *k;
	const char *dst, *str;
	char val[32], at[32];
	size_t i;
	int v;

	if (sec == NULL)
		return;
	if (sec->print != NULL) {
		sec->print(p, p->slot, f);
		return;
	}
	for (i = 0; i < sec->nkeywords; i++) {
		k = &sec->keywords[i];
		dst = (const char *)p->slot + k->offset;
		switch (k->shape) {
		case TC_POLICY_CHOICE:
			v = *(const int *)(const void *)dst;
			str = k->choices[v].word;
			break;
		case TC_POLICY_ON_OFF:
			str = *(const int *)(const void *)dst ? "on" : "off";
			break;
		case TC_POLICY_DURATION:
			v = *(const int *)(const void *)dst;
			str = tc_policy_value_str(k->shape,
			    (unsigned long long)v, val, sizeof(val));
			break;
		case TC_POLICY_SIZE:
		case TC_POLICY_COUNT:
			str = tc_policy_value_str(k->shape,
			    *(const unsigned long long *)(const void *)dst,
			    val, sizeof(val));
			break;
		case TC_POLICY_PATH:
		case TC_POLICY_WORD:
			str = *(char *const *)(const void *)dst;
			if (str == NULL)
				str = "none";
			break;
		case TC_POLICY_LINE:
		default:
			continue;	/* only its section knows */
		}
		fprintf(f, "%s: %s  (%s)\n", k->name, str,
		    origin(p->slot_at[i], at, sizeof(at)));
	}
}

void
tc_policy_print_roots(const struct tc_policy *p, FILE *f)
{
	const struct tc_root *r;
	char at[32];
	size_t i;

	fprintf(f, "directories:\n");
	if (p->nroots == 0)
		fprintf(f, "  none (no 'allow' line)\n");
	for (i = 0; i < p->nroots; i++) {
		r = &p->roots[i];
		fprintf(f, "  %-10s  %s  (%s%s)\n", (r->flags & TC_ROOT_WRITE) ?
		    "read-write" : "read-only", r->path,
		    origin(r->line > 0 ? r->line : TC_SET_CMDLINE, at,
		    sizeof(at)), r->line > 0 && r->cmdline ?
		    " and the command line" : "");
	}
}

int
tc_policy_print(const struct tc_policy *p, FILE *f)
{
	const struct tc_limits *l = &p->limits;
	/* A server that serves no directory shows none of what is about
	 * them: the lines, shared with other servers, give it nothing. */
	const int dirs = !(p->features & TC_POLICY_F_NO_ROOTS);
	unsigned long long v = 0;
	char val[32], at[32], at2[32];
	size_t i;

	fprintf(f, "policy: %s\n", p->file != NULL ? p->file :
	    "none (command line only)");
	for (i = 0; i < p->nskipped; i++)
		fprintf(f, "%s[%s] (line %d)%s", i == 0 ? "  skipped, for "
		    "other servers: " : ", ", p->skipped[i].name,
		    p->skipped[i].line, i + 1 == p->nskipped ? "\n" : "");
	if (dirs)
		tc_policy_print_roots(p, f);
	fprintf(f, "limits per call:\n");
	for (i = 0; i < TC_NITEMS(limit_rows); i++) {
		v = limit_value(l, limit_rows[i].set);
		fprintf(f, "  %-10s  %-6s  (%s%s)\n", limit_rows[i].name,
		    tc_policy_value_str(limit_rows[i].shape, v, val, sizeof(val)),
		    origin(p->set_at[limit_rows[i].set], at, sizeof(at)),
		    /* Not the server's own "output", printed below. */
		    limit_rows[i].set == TC_SET_OUTPUT &&
		    own_setting(p, "output") ? "; 'limit output': a call's "
		    "whole result" : "");
	}
	if (dirs)
		print_deny(p, f);
	print_tools(p, f);
	print_consent(p, f);
	if (dirs) {
		fprintf(f, "network: %s", p->network == TC_NETWORK_ON ? "on" :
		    p->network == TC_NETWORK_CONNECT ? "connect" : "off");
		for (i = 0; p->network == TC_NETWORK_CONNECT &&
		    i < p->nnet_ports; i++)
			fprintf(f, " %u", (unsigned)p->net_ports[i]);
		fprintf(f, "  (%s)\n", origin(p->set_at[TC_SET_NETWORK], at,
		    sizeof(at)));
	}
	if (p->features & TC_POLICY_F_JIT)
		fprintf(f, "jit: %s  (%s)\n", p->jit ? "on: programs may "
		    "make memory writable and executable" : "off",
		    origin(p->set_at[TC_SET_JIT], at, sizeof(at)));
	print_section(p, f);
	print_audit(p, f);
	if (dirs) {
		fprintf(f, "roots-timeout: %s  (%s)\n",
		    fmt_duration((unsigned long long)p->roots_timeout_ms, val,
		    sizeof(val)), origin(p->set_at[TC_SET_ROOTS_TIMEOUT], at,
		    sizeof(at)));
		fprintf(f, "roots: %s  (%s)\n",
		    tc_roots_mode_name(p->roots_mode),
		    origin(p->set_at[TC_SET_ROOTS], at, sizeof(at)));
	}
	fprintf(f, "children: %llu ready per profile  (%s)\n", p->children,
	    origin(p->set_at[TC_SET_CHILDREN], at, sizeof(at)));
	if (p->features & TC_POLICY_F_JOBS) {
		fprintf(f, "jobs: %llu at once  (%s)\n", p->max_jobs,
		    origin(p->set_at[TC_SET_JOBS], at, sizeof(at)));
		fprintf(f, "job-lifetime: %s  (%s)\n",
		    fmt_duration((unsigned long long)p->job_lifetime_ms, val,
		    sizeof(val)), origin(p->set_at[TC_SET_JOB_LIFETIME], at,
		    sizeof(at)));
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
