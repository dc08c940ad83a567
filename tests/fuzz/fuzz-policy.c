/*
 * fuzz-policy.c: the policy file parser (policyfile.c).
 *
 * The input is a policy file, with "$R" standing for a scratch directory
 * made at start (so that "allow" lines can name directories that exist):
 * $R/a, $R/b, $R/c/d, "$R/sp ace", a link $R/link to $R/a, a regular file
 * $R/f, an executable hook $R/hook and a group-writable one $R/ghook; HOME
 * is $R/home, which has a directory x.  It is loaded from a memfd, for
 * toolcell-fs's tools and its [fs] section, and then:
 *
 *	- it is accepted if and only if no error was reported, and then
 *	  tc_policy_load() returns 0; else it says "N errors", N the
 *	  number reported, each "FILE:LINE: message" with LINE in the
 *	  file, or "FILE: message";
 *	- tc_policy_print() writes it, accepted or not;
 *	- an accepted policy keeps every invariant the manual states: at
 *	  least one root, each canonical, absolute, held open as the
 *	  directory it names, none twice; every limit within its range;
 *	  every pattern valid; a consent hook an executable file that only
 *	  its owner can change; the settings that need "audit" only with it;
 *	  each tool enabled exactly when the "tools" and "tool ... off" lines
 *	  say so; every line number within the file;
 *	- and it survives a round trip: written back as a policy file by
 *	  the harness's own writer and loaded again, it is the same policy,
 *	  field by field and as tc_policy_print() shows it (line numbers
 *	  aside).
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/glob.h"
#include "base/log.h"
#include "policy/policy.h"

#include "../../servers/fs/fs_policy.h"
#include "fuzz.h"

#define KIB		1024ULL
#define MIB		(1024 * KIB)
#define GIB		(1024 * MIB)
#define TIB		(1024 * GIB)

static const char *const fs_tools[] = {
	"list_allowed_directories", "read_text_file", "read_file",
	"list_directory", "get_file_info", "read_media_file",
	"read_multiple_files", "list_directory_with_sizes", "directory_tree",
	"search_files", "search_file_contents", "write_file", "edit_file",
	"create_directory", "move_file", "delete_file", "read_resource",
};

static char scratch[64];
static char path_fd[32];		/* the memfd, as a path */
static int policy_fd = -1;

/* What the report callback saw. */
struct reports {
	int	 n;
	int	 nlines;
};

/* Returns 1 if |s| is a canonical absolute path. */
static int
canonical(const char *s)
{
	const char *c, *e;

	if (s[0] != '/')
		return 0;
	if (s[1] == '\0')
		return 1;
	for (c = s + 1;; c = e + 1) {
		e = c + strcspn(c, "/");
		if (e == c || (e - c == 1 && c[0] == '.') ||
		    (e - c == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (*e == '\0')
			return 1;
	}
}

static void
report(void *ctx, const char *msg)
{
	struct reports *r = ctx;
	size_t fl = strlen(path_fd);
	const char *p;
	char *end;
	long line;

	r->n++;
	FUZZ_CHECK(strncmp(msg, path_fd, fl) == 0 && msg[fl] == ':',
	    "an error that does not start with the file: '%s'", msg);
	p = msg + fl + 1;
	if (*p >= '0' && *p <= '9') {
		line = strtol(p, &end, 10);
		FUZZ_CHECK(line >= 1 && line <= r->nlines && *end == ':',
		    "an error names line %ld of a file of %d: '%s'", line,
		    r->nlines, msg);
	} else
		FUZZ_CHECK(*p == ' ', "a malformed error: '%s'", msg);
}

/* Replaces the text of the memfd with |n| bytes of |s|. */
static void
put_file(const char *s, size_t n)
{
	if (ftruncate(policy_fd, 0) != 0 || pwrite(policy_fd, s, n, 0) !=
	    (ssize_t)n)
		abort();
}

/* Returns the number of lines getline() sees in |s|. */
static int
count_lines(const char *s, size_t n)
{
	int k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += s[i] == '\n';
	return k + (n > 0 && s[n - 1] != '\n');
}

/* Loads the memfd's text (|n| bytes at |s|, for counting) into |p|;
 * returns tc_policy_load()'s status, checking what it reported. */
static int
load(struct tc_policy *p, const char *s, size_t n)
{
	struct tc_diag d = { "", 0 };
	struct reports r = { 0, count_lines(s, n) };
	char want[96];
	int rc;

	tc_policy_init(p);
	if (tc_policy_set_server(p, "toolcell-fs", fs_tools,
	    TC_NITEMS(fs_tools), 0) != 0 ||
	    tc_policy_set_section(p, &fs_policy_section, &d) != 0)
		abort();
	rc = tc_policy_load(p, path_fd, report, &r, &d);
	FUZZ_CHECK((rc == 0) == (r.n == 0), "tc_policy_load returned %d "
	    "after %d errors", rc, r.n);
	if (rc != 0) {
		FUZZ_CHECK(rc == TC_EINVAL, "tc_policy_load returned %d", rc);
		snprintf(want, sizeof(want), "%s: %d error%s", path_fd, r.n,
		    r.n == 1 ? "" : "s");
		FUZZ_CHECK(strcmp(d.msg, want) == 0, "it says '%s' after %d "
		    "errors", d.msg, r.n);
		return rc;
	}
	if (tc_policy_finish(p, &d) != 0)
		abort();
	return 0;
}

/* Returns what tc_policy_print() writes for |p|, line numbers masked. */
static char *
printed(const struct tc_policy *p)
{
	char *buf = NULL, *r, *w;
	size_t len = 0;
	FILE *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		abort();
	FUZZ_CHECK(tc_policy_print(p, f) == 0, "tc_policy_print failed");
	fclose(f);
	/* "line 12" becomes "line #". */
	for (r = w = buf; *r != '\0';) {
		if (strncmp(r, "line ", 5) == 0 && r[5] >= '0' &&
		    r[5] <= '9') {
			/* Past the digits first: |w| may be |r|. */
			for (r += 5; *r >= '0' && *r <= '9'; r++)
				continue;
			memcpy(w, "line #", 6);
			w += 6;
		} else
			*w++ = *r++;
	}
	*w = '\0';
	return buf;
}

/* --- Invariants of an accepted policy --- */

static void
check_limits(const struct tc_limits *l, const int *set_at, int all)
{
	if (all || set_at[TC_SET_TIMEOUT])
		FUZZ_CHECK(l->deadline_ms >= 1 && l->deadline_ms <= 3600000,
		    "timeout %d ms", l->deadline_ms);
	if (all || set_at[TC_SET_CPU])
		FUZZ_CHECK(l->cpu_sec >= 1 && l->cpu_sec <= 3600,
		    "cpu %lu s", l->cpu_sec);
	if (all || set_at[TC_SET_FILES])
		FUZZ_CHECK(l->nofile >= 16 && l->nofile <= 65536, "files %lu",
		    l->nofile);
	if (all || set_at[TC_SET_FILESIZE])
		FUZZ_CHECK(l->fsize_bytes <= TIB, "filesize %lu",
		    l->fsize_bytes);
	if (all || set_at[TC_SET_MEMORY])
		FUZZ_CHECK(l->mem_bytes >= 16 * MIB && l->mem_bytes <= TIB,
		    "memory %lu", l->mem_bytes);
	if (all || set_at[TC_SET_OUTPUT])
		FUZZ_CHECK(l->max_result >= KIB && l->max_result <= GIB,
		    "output %zu", l->max_result);
	if (all || set_at[TC_SET_PROCESSES])
		FUZZ_CHECK(l->nproc >= 1 && l->nproc <= 4096,
		    "processes %lu", l->nproc);
}

static void
check_lines(const int *set_at, int nlines)
{
	int k;

	for (k = 0; k < TC_SET_MAX; k++)
		FUZZ_CHECK(set_at[k] >= 0 && set_at[k] <= nlines, "setting "
		    "%d at line %d of %d", k, set_at[k], nlines);
}

static int
known_tool(const char *name)
{
	size_t i;

	for (i = 0; i < TC_NITEMS(fs_tools); i++)
		if (strcmp(name, fs_tools[i]) == 0)
			return 1;
	return 0;
}

static void
check_accepted(const struct tc_policy *p, int nlines)
{
	const struct tc_tool_policy *t;
	const struct tc_root *r;
	struct stat a, b;
	size_t i, j, k, n, nfile = 0;
	int g, hook = 0;

	FUZZ_CHECK(p->nroots >= 1 && p->nroots <= TC_ROOTS_MAX, "%zu roots",
	    p->nroots);
	for (i = 0; i < p->nroots; i++) {
		r = &p->roots[i];
		FUZZ_CHECK(canonical(r->path) && r->pathlen == strlen(r->path),
		    "root '%s' is not canonical", r->path);
		FUZZ_CHECK(r->given != NULL && r->given[0] == '/', "root '%s' "
		    "given as '%s'", r->path, r->given ? r->given : "");
		FUZZ_CHECK(r->fd >= 0 && fstat(r->fd, &a) == 0 &&
		    S_ISDIR(a.st_mode) && stat(r->path, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino,
		    "root '%s' is not held open as the directory it names",
		    r->path);
		FUZZ_CHECK(r->line >= 1 && r->line <= nlines &&
		    (r->flags & ~(unsigned)TC_ROOT_WRITE) == 0, "root '%s': "
		    "line %d, flags %u", r->path, r->line, r->flags);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(p->roots[j].path, r->path) != 0,
			    "root '%s' twice", r->path);
	}
	check_limits(&p->limits, p->set_at, 1);
	check_lines(p->set_at, nlines);
	FUZZ_CHECK(p->consent_timeout_ms >= 1000 &&
	    p->consent_timeout_ms <= 600000, "consent-timeout %d",
	    p->consent_timeout_ms);
	FUZZ_CHECK(p->roots_timeout_ms >= 100 && p->roots_timeout_ms <= 60000,
	    "roots-timeout %d", p->roots_timeout_ms);
	FUZZ_CHECK(p->audit_rotate_bytes == 0 ||
	    (p->audit_rotate_bytes >= 64 * KIB && p->audit_rotate_bytes <= TIB),
	    "audit-rotate %llu", p->audit_rotate_bytes);
	FUZZ_CHECK(p->audit_keep <= 10000 && (p->audit_keep == 0 ||
	    p->audit_rotate_bytes > 0), "audit-rotate keep %u", p->audit_keep);
	FUZZ_CHECK(p->network == 0, "network on, for a server without one");
	for (i = 0; i < p->ndeny; i++) {
		const struct tc_deny *d = &p->deny[i];

		FUZZ_CHECK(tc_glob_valid(d->pattern, NULL, 0), "deny '%s' is "
		    "not a valid pattern", d->pattern);
		FUZZ_CHECK(d->access == TC_ACCESS_WRITE ||
		    d->access == (TC_ACCESS_READ | TC_ACCESS_WRITE),
		    "deny '%s': access %u", d->pattern, d->access);
		FUZZ_CHECK(d->line >= 0 && d->line <= nlines, "deny '%s' at "
		    "line %d", d->pattern, d->line);
		/* The built-in rules come first, the file's after them. */
		if (d->line > 0)
			nfile++;
		else
			FUZZ_CHECK(nfile == 0 && p->default_deny, "a built-in "
			    "rule '%s' among the file's", d->pattern);
	}
	for (i = 0; i < p->nconsent; i++) {
		const struct tc_consent_rule *c = &p->consent[i];

		FUZZ_CHECK(strcmp(c->tool, "*") == 0 || known_tool(c->tool),
		    "consent for an unknown tool '%s'", c->tool);
		FUZZ_CHECK(c->line >= 1 && c->line <= nlines, "consent at line "
		    "%d", c->line);
		for (k = 0; k < c->npatterns; k++)
			FUZZ_CHECK(tc_glob_valid(c->patterns[k], NULL, 0),
			    "consent pattern '%s' is not valid",
			    c->patterns[k]);
		FUZZ_CHECK(c->patterns[c->npatterns] == NULL, "consent "
		    "patterns are not NULL-terminated");
		for (g = 0, n = 0; g < TC_SUBJECT_NKINDS; g++) {
			FUZZ_CHECK(g != TC_SUBJECT_PATH || c->nvalues[g] == 0,
			    "consent path patterns among the typed values");
			FUZZ_CHECK(((c->kinds & 1u << g) == 0) == (g == TC_SUBJECT_PATH
			    ? c->npatterns == 0 : c->nvalues[g] == 0),
			    "consent kinds do not say which kinds have values");
			for (k = 0; k < c->nvalues[g]; k++, n++)
				FUZZ_CHECK(tc_subject_pattern_valid(g,
				    c->values[n], NULL, 0), "consent %s value "
				    "'%s' is not valid",
				    tc_subject_kind_name(g), c->values[n]);
		}
		FUZZ_CHECK(c->values == NULL || c->values[n] == NULL,
		    "consent values are not NULL-terminated");
	}
	for (i = 0; i < p->nconsent_by; i++) {
		FUZZ_CHECK(p->consent_by[i] == TC_CONSENT_ELICIT ||
		    p->consent_by[i] == TC_CONSENT_HOOK, "consent-by %d",
		    p->consent_by[i]);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(p->consent_by[j] != p->consent_by[i],
			    "consent-by names a means twice");
		hook |= p->consent_by[i] == TC_CONSENT_HOOK;
	}
	FUZZ_CHECK(!hook || p->consent_hook != NULL, "consent-by hook "
	    "without a hook");
	if (p->consent_hook != NULL)
		FUZZ_CHECK(p->consent_hook[0][0] == '/' &&
		    stat(p->consent_hook[0], &a) == 0 && S_ISREG(a.st_mode) &&
		    access(p->consent_hook[0], X_OK) == 0 &&
		    (a.st_mode & (S_IWGRP | S_IWOTH)) == 0, "consent-hook "
		    "'%s' is not an executable file only its owner can change",
		    p->consent_hook[0]);
	FUZZ_CHECK(p->audit_file == NULL ? p->audit_key_file == NULL &&
	    !p->set_at[TC_SET_AUDIT_SYNC] && !p->set_at[TC_SET_AUDIT_ROTATE] :
	    p->audit_file[0] == '/', "audit settings without a log, or a "
	    "relative log");
	FUZZ_CHECK(p->audit_key_file == NULL || p->audit_key_file[0] == '/',
	    "a relative audit-key");
	FUZZ_CHECK(p->run_as_spec == NULL || (p->run_as_spec[0] != '\0' &&
	    p->run_as_spec[0] != ':'), "run-as '%s'", p->run_as_spec);
	FUZZ_CHECK(p->ntools == TC_NITEMS(fs_tools), "%zu tools", p->ntools);
	for (i = 0; i < p->ntools; i++) {
		t = &p->tools[i];
		FUZZ_CHECK(t->enabled == ((p->set_at[TC_SET_TOOLS] == 0 ||
		    t->named) && t->off_line == 0), "tool %s: enabled %d, "
		    "named %d, off at line %d", t->name, t->enabled, t->named,
		    t->off_line);
		FUZZ_CHECK(t->line >= 0 && t->line <= nlines &&
		    t->off_line >= 0 && t->off_line <= nlines,
		    "tool %s at line %d", t->name, t->line);
		check_limits(&t->limits, t->set_at, 0);
		check_lines(t->set_at, nlines);
	}
}

/* --- Writing a policy back --- */

/* Appends |s| to |f| as a quoted word. */
static void
quoted(FILE *f, const char *s)
{
	fputc(' ', f);
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Writes the timeout and the limits set in |set_at|, for |tool| if it is
 * not NULL. */
static void
write_limits(FILE *f, const char *tool, const struct tc_limits *l,
    const int *set_at)
{
	char pre[64] = "";

	if (tool != NULL)
		snprintf(pre, sizeof(pre), "tool %s ", tool);
	if (set_at[TC_SET_TIMEOUT])
		fprintf(f, "%stimeout %dms\n", pre, l->deadline_ms);
	if (set_at[TC_SET_CPU])
		fprintf(f, "%slimit cpu %lus\n", pre, l->cpu_sec);
	if (set_at[TC_SET_MEMORY])
		fprintf(f, "%slimit memory %lu\n", pre, l->mem_bytes);
	if (set_at[TC_SET_OUTPUT])
		fprintf(f, "%slimit output %zu\n", pre, l->max_result);
	if (set_at[TC_SET_FILES])
		fprintf(f, "%slimit files %lu\n", pre, l->nofile);
	if (set_at[TC_SET_PROCESSES])
		fprintf(f, "%slimit processes %lu\n", pre, l->nproc);
	if (set_at[TC_SET_FILESIZE])
		fprintf(f, "%slimit filesize %lu\n", pre, l->fsize_bytes);
}

/* Returns |p| written as a policy file, in a new string. */
static char *
write_policy(const struct tc_policy *p, size_t *len)
{
	const struct tc_tool_policy *t;
	char *buf = NULL;
	size_t i, k, n;
	int g;
	FILE *f;

	if ((f = open_memstream(&buf, len)) == NULL)
		abort();
	for (i = 0; i < p->nroots; i++) {
		fprintf(f, "allow %s", (p->roots[i].flags & TC_ROOT_WRITE) ?
		    "write" : "read");
		quoted(f, p->roots[i].path);
		fputc('\n', f);
	}
	write_limits(f, NULL, &p->limits, p->set_at);
	for (i = 0; i < p->ndeny; i++) {
		if (p->deny[i].line == 0)
			continue;	/* built in */
		fprintf(f, "deny%s", p->deny[i].access == TC_ACCESS_WRITE ?
		    " write" : "");
		quoted(f, p->deny[i].pattern);
		fputc('\n', f);
	}
	if (p->set_at[TC_SET_DEFAULT_DENY])
		fprintf(f, "default-deny %s\n", p->default_deny ? "on" : "off");
	if (p->set_at[TC_SET_TOOLS]) {
		/* At most 7 names a line. */
		for (i = 0, n = 0; i < p->ntools; i++) {
			if (!p->tools[i].named)
				continue;
			if (n % 7 == 0)
				fprintf(f, "%stools", n ? "\n" : "");
			quoted(f, p->tools[i].name);
			n++;
		}
		fputc('\n', f);
	}
	for (i = 0; i < p->ntools; i++) {
		t = &p->tools[i];
		if (t->off_line)
			fprintf(f, "tool %s off\n", t->name);
		write_limits(f, t->name, &t->limits, t->set_at);
	}
	if (p->set_at[TC_SET_NETWORK]) {
		fprintf(f, "network %s", p->network == TC_NETWORK_ON ? "on" :
		    p->network == TC_NETWORK_CONNECT ? "connect" : "off");
		for (i = 0; p->network == TC_NETWORK_CONNECT &&
		    i < p->nnet_ports; i++)
			fprintf(f, " %u", (unsigned)p->net_ports[i]);
		fputc('\n', f);
	}
	for (i = 0; i < p->nconsent; i++) {
		fprintf(f, "consent");
		quoted(f, p->consent[i].tool);
		for (k = 0; k < p->consent[i].npatterns; k++)
			quoted(f, p->consent[i].patterns[k]);
		for (g = 0, n = 0; g < TC_SUBJECT_NKINDS; g++)
			for (k = 0; k < p->consent[i].nvalues[g]; k++, n++) {
				if (k == 0)
					fprintf(f, " %s", tc_subject_kind_name(g));
				quoted(f, p->consent[i].values[n]);
			}
		fputc('\n', f);
	}
	if (p->set_at[TC_SET_CONSENT_BY]) {
		fprintf(f, "consent-by");
		for (i = 0; i < p->nconsent_by; i++)
			fprintf(f, " %s", p->consent_by[i] == TC_CONSENT_HOOK ?
			    "hook" : "elicitation");
		fputc('\n', f);
	}
	if (p->consent_hook != NULL) {
		fprintf(f, "consent-hook");
		for (k = 0; p->consent_hook[k] != NULL; k++)
			quoted(f, p->consent_hook[k]);
		fputc('\n', f);
	}
	if (p->set_at[TC_SET_CONSENT_TIMEOUT])
		fprintf(f, "consent-timeout %dms\n", p->consent_timeout_ms);
	if (p->set_at[TC_SET_ROOTS_TIMEOUT])
		fprintf(f, "roots-timeout %dms\n", p->roots_timeout_ms);
	if (p->audit_file != NULL) {
		fprintf(f, "audit");
		quoted(f, p->audit_file);
		fputc('\n', f);
	}
	if (p->audit_key_file != NULL) {
		fprintf(f, "audit-key");
		quoted(f, p->audit_key_file);
		fputc('\n', f);
	}
	if (p->set_at[TC_SET_AUDIT_SYNC])
		fprintf(f, "audit-sync %s\n", p->audit_sync ==
		    TC_AUDIT_SYNC_EVERY ? "every" : "none");
	if (p->set_at[TC_SET_AUDIT_ROTATE]) {
		fprintf(f, "audit-rotate %llu", p->audit_rotate_bytes);
		if (p->audit_keep > 0)
			fprintf(f, " keep %u", p->audit_keep);
		fputc('\n', f);
	}
	if (tc_policy_setting_at(p, "write-sync"))
		fprintf(f, "write-sync %s\n", fs_policy(p)->write_sync ==
		    FS_WRITE_SYNC_EVERY ? "every" : "none");
	if (p->run_as_spec != NULL) {
		fprintf(f, "run-as");
		quoted(f, p->run_as_spec);
		fputc('\n', f);
	}
	if (p->set_at[TC_SET_DEGRADE_LANDLOCK])
		fprintf(f, "allow-degraded landlock\n");
	if (p->set_at[TC_SET_DEGRADE_SECCOMP])
		fprintf(f, "allow-degraded seccomp\n");
	/* Last, since what follows a header is that server's. */
	for (i = 0; i < p->nskipped; i++)
		fprintf(f, "[%s]\n", p->skipped[i].name);
	fclose(f);
	return buf;
}

static int
same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Checks that |q|, loaded from what |p| was written as, is |p|. */
static void
check_same(const struct tc_policy *p, const struct tc_policy *q,
    const char *text)
{
	const struct tc_tool_policy *a, *b;
	size_t i, k;
	int s;

	for (s = 0; s < TC_SET_MAX; s++)
		FUZZ_CHECK((p->set_at[s] != 0) == (q->set_at[s] != 0),
		    "setting %d is %sset after the round trip; the policy "
		    "was written as:\n%s", s, q->set_at[s] ? "" : "not ", text);
	FUZZ_CHECK(p->nskipped == q->nskipped, "other servers' sections "
	    "differ after the round trip:\n%s", text);
	for (i = 0; i < p->nskipped; i++)
		FUZZ_CHECK(strcmp(p->skipped[i].name, q->skipped[i].name) == 0,
		    "other servers' sections differ after the round trip:\n%s",
		    text);
	FUZZ_CHECK(p->nroots == q->nroots && p->ndeny == q->ndeny &&
	    p->nconsent == q->nconsent && p->nconsent_by == q->nconsent_by,
	    "roots, rules or consent differ after the round trip:\n%s", text);
	for (i = 0; i < p->nroots; i++)
		FUZZ_CHECK(strcmp(p->roots[i].path, q->roots[i].path) == 0 &&
		    p->roots[i].flags == q->roots[i].flags, "root %zu differs "
		    "after the round trip:\n%s", i, text);
	for (i = 0; i < p->ndeny; i++)
		FUZZ_CHECK(strcmp(p->deny[i].pattern, q->deny[i].pattern) ==
		    0 && p->deny[i].access == q->deny[i].access, "deny rule "
		    "%zu differs after the round trip:\n%s", i, text);
	for (i = 0; i < p->nconsent; i++) {
		FUZZ_CHECK(strcmp(p->consent[i].tool, q->consent[i].tool) ==
		    0 && p->consent[i].npatterns == q->consent[i].npatterns,
		    "consent rule %zu differs after the round trip:\n%s", i,
		    text);
		for (k = 0; k < p->consent[i].npatterns; k++)
			FUZZ_CHECK(strcmp(p->consent[i].patterns[k],
			    q->consent[i].patterns[k]) == 0, "consent rule "
			    "%zu differs after the round trip:\n%s", i, text);
		FUZZ_CHECK(p->consent[i].kinds == q->consent[i].kinds &&
		    memcmp(p->consent[i].nvalues, q->consent[i].nvalues,
		    sizeof(p->consent[i].nvalues)) == 0, "consent rule %zu's "
		    "kinds differ after the round trip:\n%s", i, text);
		for (k = 0; p->consent[i].values != NULL &&
		    p->consent[i].values[k] != NULL; k++)
			FUZZ_CHECK(strcmp(p->consent[i].values[k],
			    q->consent[i].values[k]) == 0, "consent rule "
			    "%zu differs after the round trip:\n%s", i, text);
	}
	for (i = 0; i < p->nconsent_by; i++)
		FUZZ_CHECK(p->consent_by[i] == q->consent_by[i], "consent-by "
		    "differs after the round trip:\n%s", text);
	FUZZ_CHECK((p->consent_hook == NULL) == (q->consent_hook == NULL),
	    "consent-hook differs after the round trip:\n%s", text);
	for (k = 0; p->consent_hook != NULL && (p->consent_hook[k] != NULL ||
	    q->consent_hook[k] != NULL); k++)
		FUZZ_CHECK(same_str(p->consent_hook[k], q->consent_hook[k]),
		    "consent-hook differs after the round trip:\n%s", text);
	FUZZ_CHECK(same_str(p->audit_file, q->audit_file) &&
	    same_str(p->audit_key_file, q->audit_key_file) &&
	    same_str(p->run_as_spec, q->run_as_spec) &&
	    p->audit_sync == q->audit_sync &&
	    fs_policy(p)->write_sync == fs_policy(q)->write_sync &&
	    (tc_policy_setting_at(p, "write-sync") != 0) ==
	    (tc_policy_setting_at(q, "write-sync") != 0) &&
	    p->audit_rotate_bytes == q->audit_rotate_bytes &&
	    p->audit_keep == q->audit_keep && p->network == q->network &&
	    p->default_deny == q->default_deny &&
	    p->allow_degraded == q->allow_degraded &&
	    p->consent_timeout_ms == q->consent_timeout_ms &&
	    p->roots_timeout_ms == q->roots_timeout_ms &&
	    memcmp(&p->limits, &q->limits, sizeof(p->limits)) == 0,
	    "settings differ after the round trip:\n%s", text);
	for (i = 0; i < p->ntools; i++) {
		a = &p->tools[i];
		b = &q->tools[i];
		FUZZ_CHECK(a->enabled == b->enabled && a->named == b->named &&
		    (a->off_line != 0) == (b->off_line != 0), "tool %s "
		    "differs after the round trip:\n%s", a->name, text);
		for (s = 0; s < TC_SET_MAX; s++)
			FUZZ_CHECK((a->set_at[s] != 0) == (b->set_at[s] != 0),
			    "tool %s differs after the round trip:\n%s",
			    a->name, text);
		FUZZ_CHECK(memcmp(&a->limits, &b->limits, sizeof(a->limits)) ==
		    0, "tool %s's limits differ after the round trip:\n%s",
		    a->name, text);
	}
}

/* --- The input --- */

/* Returns |data| with every "$R" replaced by the scratch directory. */
static char *
expand(const uint8_t *data, size_t size, size_t *len)
{
	size_t rl = strlen(scratch), i, n = 0;
	char *out;

	if ((out = malloc(size * rl + 1)) == NULL)
		abort();
	for (i = 0; i < size; i++) {
		if (data[i] == '$' && i + 1 < size && data[i + 1] == 'R') {
			memcpy(out + n, scratch, rl);
			n += rl;
			i++;
		} else
			out[n++] = (char)data[i];
	}
	out[n] = '\0';
	*len = n;
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tc_policy p, q;
	char *text, *again, *a, *b;
	size_t len, alen;
	int rc;

	text = expand(data, size, &len);
	put_file(text, len);
	rc = load(&p, text, len);
	a = printed(&p);
	if (getenv("FUZZ_VERBOSE") != NULL)
		fprintf(stderr, "fuzz-policy: %s\n%s", rc == 0 ? "accepted" :
		    "refused", a);
	if (rc == 0) {
		check_accepted(&p, count_lines(text, len));
		again = write_policy(&p, &alen);
		put_file(again, alen);
		rc = load(&q, again, alen);
		FUZZ_CHECK(rc == 0, "the policy, written back, is refused:\n%s",
		    again);
		b = printed(&q);
		FUZZ_CHECK(strcmp(a, b) == 0, "the policy, written back and "
		    "read again, prints otherwise:\n%s\nfuzz: was:\n%s\nfuzz: "
		    "is:\n%s", again, a, b);
		check_same(&p, &q, again);
		free(b);
		free(again);
		tc_policy_release(&q);
	}
	free(a);
	free(text);
	tc_policy_release(&p);
	return 0;
}

/* --- Set-up --- */

static void
make(const char *name, int dir, mode_t mode, const char *body)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	if (dir) {
		if (mkdir(path, mode) != 0)
			tc_fatal("%s: %s", path, strerror(errno));
		return;
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) <
	    0 || write(fd, body, strlen(body)) != (ssize_t)strlen(body) ||
	    fchmod(fd, mode) != 0 || close(fd) != 0)
		tc_fatal("%s: %s", path, strerror(errno));
}

static void
cleanup(void)
{
	static const char *const names[] = { "a", "b", "c/d", "c", "sp ace",
	    "home/x", "home" };
	static const char *const files[] = { "link", "f", "hook", "ghook" };
	char path[128];
	size_t i;

	for (i = 0; i < TC_NITEMS(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", scratch, files[i]);
		unlink(path);
	}
	for (i = 0; i < TC_NITEMS(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", scratch, names[i]);
		rmdir(path);
	}
	rmdir(scratch);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char path[128], home[128];

	(void)argc;
	(void)argv;
	tc_log_init("fuzz-policy", TC_LOG_ERROR);
	snprintf(scratch, sizeof(scratch), "%s/toolcell-fuzz.XXXXXX",
	    tmp != NULL && strlen(tmp) < 32 ? tmp : "/tmp");
	if (mkdtemp(scratch) == NULL)
		tc_fatal("mkdtemp: %s", strerror(errno));
	make("a", 1, 0755, NULL);
	make("b", 1, 0755, NULL);
	make("c", 1, 0755, NULL);
	make("c/d", 1, 0755, NULL);
	make("sp ace", 1, 0755, NULL);
	make("home", 1, 0755, NULL);
	make("home/x", 1, 0755, NULL);
	make("f", 0, 0644, "not a directory\n");
	make("hook", 0, 0755, "#!/bin/sh\nexit 1\n");
	make("ghook", 0, 0775, "#!/bin/sh\nexit 1\n");
	snprintf(path, sizeof(path), "%s/link", scratch);
	if (symlink("a", path) != 0)
		tc_fatal("%s: %s", path, strerror(errno));
	snprintf(home, sizeof(home), "%s/home", scratch);
	if (setenv("HOME", home, 1) != 0)
		tc_fatal("setenv: %s", strerror(errno));
	if ((policy_fd = memfd_create("fuzz-policy", MFD_CLOEXEC)) < 0 ||
	    fchmod(policy_fd, 0600) != 0)
		tc_fatal("memfd_create: %s", strerror(errno));
	snprintf(path_fd, sizeof(path_fd), "/proc/self/fd/%d", policy_fd);
	atexit(cleanup);
	return 0;
}
