/*
 * fuzz-policy.c: the policy file parser (policyfile.c).
 *
 * The input is a policy file, with "$R" standing for a scratch directory
 * made at start (so that "allow" lines can name directories that exist):
 * $R/a, $R/b, $R/c/d, "$R/sp ace", a link $R/link to $R/a, a regular file
 * $R/f, an executable hook $R/hook and a group-writable one $R/ghook; HOME
 * is $R/home, which has a directory x.  It is loaded from a memfd twice:
 * for toolcell-fs's tools and its [fs] section, and for toolcell-shell's
 * and its [shell] section (programs resolved against the machine's, as
 * at a server's start).  Each time:
 *
 *	- it is accepted if and only if no error was reported, and then
 *	  tc_policy_load() returns 0; else it says "N errors", N the
 *	  number reported, each "FILE:LINE: message" with LINE in the
 *	  file, or "FILE: message";
 *	- tc_policy_print() writes it, accepted or not;
 *	- an accepted policy keeps every invariant the manual states: at
 *	  least one root (toolcell-shell may have none), each canonical,
 *	  absolute, held open as the directory it names, none twice; every
 *	  limit within its range; every pattern valid; a consent hook an
 *	  executable file that only its owner can change; the settings that
 *	  need "audit" only with it; each tool enabled exactly when the
 *	  "tools" and "tool ... off" lines say so; every line number within
 *	  the file; and for [shell], each program a canonical executable
 *	  file, with what the kernel also executes to run it canonical, its
 *	  argument rules of the kinds its "args" lines gave, options that
 *	  start with '-', no variable a call may set that is never passed;
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
#include "base/strv.h"
#include "policy/policy.h"

#include "../../servers/fs/fs_policy.h"
#include "../../servers/shell/shell.h"
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

static const char *const shell_tools[] = {
	"run_command", "start_command", "read_output", "write_input",
	"stop_command", "list_commands",
};

/* The servers a policy is loaded for, with their features as their
 * tables give them (serve/cmdline.c). */
struct server {
	const char			*name;
	const char *const		*tools;
	size_t				 ntools;
	unsigned			 features;
	const struct tc_policy_section	*section;
};

static const struct server servers[] = {
	{ "toolcell-fs", fs_tools, TC_NITEMS(fs_tools), TC_POLICY_F_WRITERS,
	  &fs_policy_section },
	{ "toolcell-shell", shell_tools, TC_NITEMS(shell_tools),
	  TC_POLICY_F_NETWORK | TC_POLICY_F_JOBS | TC_POLICY_F_DENY_NAMED |
	  TC_POLICY_F_JIT, &shell_policy_section },
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

/* Loads the memfd's text (|n| bytes at |s|, for counting) into |p| for
 * server |sv|; returns tc_policy_load()'s status, checking what it
 * reported. */
static int
load(struct tc_policy *p, const struct server *sv, const char *s, size_t n)
{
	struct tc_diag d = { "", 0 };
	struct reports r = { 0, count_lines(s, n) };
	char want[96];
	int rc;

	tc_policy_init(p);
	if (tc_policy_set_server(p, sv->name, sv->tools, sv->ntools,
	    sv->features) != 0 ||
	    tc_policy_set_section(p, sv->section, &d) != 0)
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
known_tool(const struct server *sv, const char *name)
{
	size_t i;

	for (i = 0; i < sv->ntools; i++)
		if (strcmp(name, sv->tools[i]) == 0)
			return 1;
	return 0;
}

/* Returns 1 if |path| is canonical and names what realpath(3) names it. */
static int
real(const char *path)
{
	char *r;
	int same;

	if (path == NULL || !canonical(path) || (r = realpath(path, NULL)) ==
	    NULL)
		return 0;
	same = strcmp(r, path) == 0;
	free(r);
	return same;
}

/* Returns 1 if |path| is a regular file the harness may execute. */
static int
exe_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 0111) != 0;
}

static void
report_verify(void *ctx, const char *msg)
{
	(void)ctx;
	FUZZ_CHECK(strncmp(msg, "program ", 8) == 0, "shell_policy_verify "
	    "reported '%s'", msg);
}

/*
 * Checks |q| alone, without arguments, against the rules: accepted, it
 * runs its path with its forced prefix; else refused in words.
 */
static void
check_bare(const struct shell_policy *sp, const struct shell_program *q)
{
	const struct shell_program *got = NULL;
	const char *argv[1] = { q->name };
	struct tc_diag d = { "", 0 };
	char **run = NULL;
	size_t i;
	int rc;

	rc = shell_rules_check(sp, argv, 1, &got, &run, &d);
	FUZZ_CHECK(rc == 0 || (rc == TC_EDENIED && d.msg[0] != '\0'),
	    "program %s alone: %d, '%s'", q->name, rc, d.msg);
	if (rc != 0)
		return;
	FUZZ_CHECK(got == q && run != NULL && strcmp(run[0], q->path) == 0,
	    "program %s alone runs '%s'", q->name, run ? run[0] : "");
	for (i = 0; q->prefix != NULL && q->prefix[i] != NULL; i++)
		FUZZ_CHECK(run[i + 1] != NULL && strcmp(run[i + 1],
		    q->prefix[i]) == 0, "program %s alone: its prefix is not "
		    "forced", q->name);
	FUZZ_CHECK(run[i + 1] == NULL, "program %s alone: arguments it was "
	    "not given", q->name);
	tc_strv_free(run);
}

/* The [shell] section of an accepted policy. */
static void
check_shell(const struct tc_policy *p, int nlines)
{
	const struct shell_policy *sp = shell_policy(p);
	const struct shell_program *q;
	char *const *v;
	size_t i, j, n;
	int k;

	FUZZ_CHECK(sp->max_output >= KIB && sp->max_output <= 256 * MIB,
	    "output %llu", sp->max_output);
	FUZZ_CHECK(sp->home == NULL || real(sp->home), "home '%s' is not "
	    "canonical", sp->home);
	for (i = 0; i < sp->nprograms; i++) {
		q = &sp->programs[i];
		FUZZ_CHECK(q->name != NULL && q->name[0] != '\0' &&
		    q->line >= 1 && q->line <= nlines, "program %zu: '%s' at "
		    "line %d", i, q->name ? q->name : "", q->line);
		FUZZ_CHECK(q->path != NULL && real(q->path) &&
		    exe_file(q->path), "program %s: path '%s' is not a "
		    "canonical executable file", q->name, q->path ? q->path :
		    "");
		FUZZ_CHECK(shell_program_find(sp, q->name) == q &&
		    shell_program_find(sp, q->path) == q, "program %s: not "
		    "found by its name or path", q->name);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(sp->programs[j].name, q->name) != 0 &&
			    strcmp(sp->programs[j].path, q->path) != 0,
			    "program %s twice", q->name);
		for (v = q->exec_also; v != NULL && *v != NULL; v++)
			FUZZ_CHECK(real(*v) && exe_file(*v), "program %s: it "
			    "also executes '%s', not a canonical executable "
			    "file", q->name, *v);
		for (k = 0; k < SHELL_ARGS_NKINDS; k++)
			FUZZ_CHECK(q->args_line[k] == 0 ||
			    (q->args_line[k] > q->line &&
			    q->args_line[k] <= nlines), "program %s: args "
			    "kind %d at line %d", q->name, k, q->args_line[k]);
		FUZZ_CHECK((q->args_line[SHELL_ARGS_SUBCOMMANDS] != 0) ==
		    (q->subcommands != NULL) &&
		    (q->args_line[SHELL_ARGS_OPTIONS] != 0) ==
		    (q->options != NULL) &&
		    (q->args_line[SHELL_ARGS_DENY] != 0) == (q->deny != NULL) &&
		    (q->args_line[SHELL_ARGS_PREFIX] != 0) ==
		    (q->prefix != NULL) &&
		    (q->args_line[SHELL_ARGS_HELPERS] != 0) ==
		    (q->helpers != NULL) &&
		    (q->args_line[SHELL_ARGS_NO_DASH_OPERANDS] != 0) ==
		    (q->no_dash_operands != 0), "program %s: its rules are "
		    "not those of its args lines", q->name);
		for (v = q->subcommands; v != NULL && *v != NULL; v++)
			FUZZ_CHECK((*v)[0] != '-' && (*v)[0] != '\0',
			    "program %s: subcommand '%s'", q->name, *v);
		for (v = q->options; v != NULL && *v != NULL; v++)
			FUZZ_CHECK((*v)[0] == '-' && tc_glob_valid_string(*v,
			    NULL, 0), "program %s: option '%s'", q->name, *v);
		for (v = q->deny; v != NULL && *v != NULL; v++)
			FUZZ_CHECK(tc_glob_valid_string(*v, NULL, 0),
			    "program %s: deny '%s'", q->name, *v);
		for (v = q->helpers; v != NULL && *v != NULL; v++)
			FUZZ_CHECK(real(*v), "program %s: helper '%s' is not "
			    "canonical", q->name, *v);
		check_bare(sp, q);
	}
	for (v = sp->env_fixed, n = 0; v != NULL && *v != NULL; v++, n++) {
		FUZZ_CHECK(strchr(*v, '=') != NULL && **v != '=', "env-set "
		    "'%s'", *v);
		for (j = 0; j < n; j++)
			FUZZ_CHECK(strncmp(sp->env_fixed[j], *v,
			    strcspn(*v, "=") + 1) != 0, "env-set '%s' twice",
			    *v);
	}
	for (v = sp->env_pass; v != NULL && *v != NULL; v++) {
		FUZZ_CHECK(tc_glob_valid_string(*v, NULL, 0), "env '%s'", *v);
		/* A name without a wildcard is one a call may set. */
		if (strpbrk(*v, "*?[\\") == NULL)
			FUZZ_CHECK(shell_env_allowed(sp, *v), "env %s: a call "
			    "may not set it", *v);
	}
	FUZZ_CHECK(!shell_env_allowed(sp, "LD_PRELOAD") &&
	    !shell_env_allowed(sp, "PATH") && !shell_env_allowed(sp, "HOME") &&
	    !shell_env_allowed(sp, "BASH_ENV"), "a call may set a variable "
	    "that is never passed");
	FUZZ_CHECK(shell_policy_verify(p, report_verify, NULL) >= 0,
	    "shell_policy_verify failed");
}

static void
check_accepted(const struct tc_policy *p, const struct server *sv,
    int nlines)
{
	const struct tc_tool_policy *t;
	const struct tc_root *r;
	struct stat a, b;
	size_t i, j, k, n, nfile = 0;
	int g, hook = 0;

	FUZZ_CHECK((p->nroots >= 1 || (sv->section->flags &
	    TC_POLICY_ROOTS_OPTIONAL)) && p->nroots <= TC_ROOTS_MAX, "%zu "
	    "roots", p->nroots);
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
	FUZZ_CHECK(p->network == TC_NETWORK_OFF ||
	    ((sv->features & TC_POLICY_F_NETWORK) &&
	    (p->network == TC_NETWORK_ON || p->network == TC_NETWORK_CONNECT)),
	    "network %d, for %s", (int)p->network, sv->name);
	FUZZ_CHECK(!p->jit || (sv->features & TC_POLICY_F_JIT),
	    "jit on, for %s", sv->name);
	FUZZ_CHECK((p->network == TC_NETWORK_CONNECT) == (p->nnet_ports > 0) &&
	    p->nnet_ports <= TC_NET_PORTS_MAX, "network %d with %zu ports",
	    (int)p->network, p->nnet_ports);
	for (i = 0; i < p->nnet_ports; i++)
		FUZZ_CHECK(p->net_ports[i] >= 1 && (i == 0 ||
		    p->net_ports[i] > p->net_ports[i - 1]), "network connect: "
		    "port %u at %zu, not in order or given twice",
		    (unsigned)p->net_ports[i], i);
	FUZZ_CHECK(p->children <= TC_CHILDREN_MAX, "children %llu",
	    p->children);
	FUZZ_CHECK(p->max_jobs <= 64, "jobs %llu", p->max_jobs);
	FUZZ_CHECK(p->job_lifetime_ms >= 1000 &&
	    p->job_lifetime_ms <= 24 * 3600000, "job-lifetime %d",
	    p->job_lifetime_ms);
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

		FUZZ_CHECK(strcmp(c->tool, "*") == 0 ||
		    known_tool(sv, c->tool),
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
	FUZZ_CHECK(p->ntools == sv->ntools, "%zu tools", p->ntools);
	if (sv->section == &shell_policy_section)
		check_shell(p, nlines);
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

/* Writes the strings of |v| as quoted words. */
static void
quoted_all(FILE *f, char *const *v)
{
	for (; v != NULL && *v != NULL; v++)
		quoted(f, *v);
}

/* Writes |p|'s [shell] settings (before any header: they are read with
 * the shared settings there). */
static void
write_shell(FILE *f, const struct tc_policy *p)
{
	static const char *const kinds[] = {
		[SHELL_ARGS_SUBCOMMANDS] = "subcommands",
		[SHELL_ARGS_OPTIONS] = "options",
		[SHELL_ARGS_DENY] = "deny",
		[SHELL_ARGS_NO_DASH_OPERANDS] = "no-dash-operands",
		[SHELL_ARGS_PREFIX] = "prefix",
		[SHELL_ARGS_HELPERS] = "helpers",
	};
	const struct shell_policy *sp = shell_policy(p);
	const struct shell_program *q;
	char *const *lists[SHELL_ARGS_NKINDS];
	size_t i;
	int k;

	/* Every program first: an "args" line names one above it. */
	for (i = 0; i < sp->nprograms; i++) {
		fprintf(f, "program");
		quoted(f, sp->programs[i].name);
		fprintf(f, "%s\n", sp->programs[i].readonly ? " read-only" :
		    "");
	}
	for (i = 0; i < sp->nprograms; i++) {
		q = &sp->programs[i];
		lists[SHELL_ARGS_SUBCOMMANDS] = q->subcommands;
		lists[SHELL_ARGS_OPTIONS] = q->options;
		lists[SHELL_ARGS_DENY] = q->deny;
		lists[SHELL_ARGS_NO_DASH_OPERANDS] = NULL;
		lists[SHELL_ARGS_PREFIX] = q->prefix;
		lists[SHELL_ARGS_HELPERS] = q->helpers;
		for (k = 0; k < SHELL_ARGS_NKINDS; k++) {
			if (q->args_line[k] == 0)
				continue;
			fprintf(f, "args");
			quoted(f, q->name);
			fprintf(f, " %s", kinds[k]);
			quoted_all(f, lists[k]);
			fputc('\n', f);
		}
	}
	if (sp->env_pass != NULL) {
		fprintf(f, "env");
		quoted_all(f, sp->env_pass);
		fputc('\n', f);
	}
	if (sp->env_fixed != NULL) {
		fprintf(f, "env-set");
		quoted_all(f, sp->env_fixed);
		fputc('\n', f);
	}
	if (sp->home != NULL) {
		fprintf(f, "home");
		quoted(f, sp->home);
		fputc('\n', f);
	} else if (tc_policy_setting_at(p, "home"))
		fprintf(f, "home scratch\n");
	if (tc_policy_setting_at(p, "output"))
		fprintf(f, "output %llu\n", sp->max_output);
}

/* Returns |p|, loaded for |sv|, written as a policy file, in a new
 * string. */
static char *
write_policy(const struct tc_policy *p, const struct server *sv,
    size_t *len)
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
	if (p->set_at[TC_SET_JIT])
		fprintf(f, "jit %s\n", p->jit ? "on" : "off");
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
	if (p->set_at[TC_SET_ROOTS])
		fprintf(f, "roots %s\n", tc_roots_mode_name(p->roots_mode));
	if (p->set_at[TC_SET_CHILDREN])
		fprintf(f, "children %llu\n", p->children);
	if (p->set_at[TC_SET_JOBS])
		fprintf(f, "jobs %llu\n", p->max_jobs);
	if (p->set_at[TC_SET_JOB_LIFETIME])
		fprintf(f, "job-lifetime %dms\n", p->job_lifetime_ms);
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
	if (sv->section == &fs_policy_section &&
	    tc_policy_setting_at(p, "write-sync"))
		fprintf(f, "write-sync %s\n", fs_policy(p)->write_sync ==
		    FS_WRITE_SYNC_EVERY ? "every" : "none");
	if (sv->section == &shell_policy_section)
		write_shell(f, p);
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

/* Returns 1 if |a| and |b| (NULL-terminated, or NULL) hold the same
 * strings in the same order. */
static int
same_strv(char *const *a, char *const *b)
{
	size_t i;

	if ((a == NULL) != (b == NULL))
		return 0;
	for (i = 0; a != NULL && (a[i] != NULL || b[i] != NULL); i++)
		if (!same_str(a[i], b[i]))
			return 0;
	return 1;
}

/* Checks that |q|'s [shell] section is |p|'s. */
static void
check_same_shell(const struct tc_policy *p, const struct tc_policy *q,
    const char *text)
{
	const struct shell_policy *a = shell_policy(p), *b = shell_policy(q);
	const struct shell_program *x, *y;
	size_t i;
	int k;

	FUZZ_CHECK(a->nprograms == b->nprograms && same_strv(a->env_pass,
	    b->env_pass) && same_strv(a->env_fixed, b->env_fixed) &&
	    same_str(a->home, b->home) && a->max_output == b->max_output &&
	    (tc_policy_setting_at(p, "home") != 0) ==
	    (tc_policy_setting_at(q, "home") != 0) &&
	    (tc_policy_setting_at(p, "output") != 0) ==
	    (tc_policy_setting_at(q, "output") != 0),
	    "the [shell] settings differ after the round trip:\n%s", text);
	for (i = 0; i < a->nprograms; i++) {
		x = &a->programs[i];
		y = &b->programs[i];
		FUZZ_CHECK(same_str(x->name, y->name) &&
		    same_str(x->path, y->path) &&
		    x->readonly == y->readonly &&
		    x->interpreter == y->interpreter &&
		    x->no_dash_operands == y->no_dash_operands &&
		    same_strv(x->subcommands, y->subcommands) &&
		    same_strv(x->options, y->options) &&
		    same_strv(x->deny, y->deny) &&
		    same_strv(x->prefix, y->prefix) &&
		    same_strv(x->helpers, y->helpers) &&
		    same_strv(x->exec_also, y->exec_also), "program %s "
		    "differs after the round trip:\n%s", x->name, text);
		for (k = 0; k < SHELL_ARGS_NKINDS; k++)
			FUZZ_CHECK((x->args_line[k] != 0) ==
			    (y->args_line[k] != 0), "program %s's args lines "
			    "differ after the round trip:\n%s", x->name, text);
	}
}

/* Checks that |q|, loaded from what |p| was written as, is |p|. */
static void
check_same(const struct tc_policy *p, const struct tc_policy *q,
    const struct server *sv, const char *text)
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
	    p->jit == q->jit &&
	    p->nnet_ports == q->nnet_ports && memcmp(p->net_ports,
	    q->net_ports, p->nnet_ports * sizeof(p->net_ports[0])) == 0 &&
	    p->default_deny == q->default_deny &&
	    p->allow_degraded == q->allow_degraded &&
	    p->consent_timeout_ms == q->consent_timeout_ms &&
	    p->roots_timeout_ms == q->roots_timeout_ms &&
	    p->roots_mode == q->roots_mode && p->children == q->children &&
	    p->max_jobs == q->max_jobs &&
	    p->job_lifetime_ms == q->job_lifetime_ms &&
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
	if (sv->section == &shell_policy_section)
		check_same_shell(p, q, text);
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

/* Runs |text| (|len| bytes) through the loading for |sv|. */
static void
one(const struct server *sv, const char *text, size_t len)
{
	struct tc_policy p, q;
	char *again, *a, *b;
	size_t alen;
	int rc;

	put_file(text, len);
	rc = load(&p, sv, text, len);
	a = printed(&p);
	if (getenv("FUZZ_VERBOSE") != NULL)
		fprintf(stderr, "fuzz-policy: %s %s\n%s", sv->name, rc == 0 ?
		    "accepted" : "refused", a);
	if (rc == 0) {
		check_accepted(&p, sv, count_lines(text, len));
		again = write_policy(&p, sv, &alen);
		put_file(again, alen);
		rc = load(&q, sv, again, alen);
		FUZZ_CHECK(rc == 0, "the policy, written back, is refused:\n%s",
		    again);
		b = printed(&q);
		FUZZ_CHECK(strcmp(a, b) == 0, "the policy, written back and "
		    "read again, prints otherwise:\n%s\nfuzz: was:\n%s\nfuzz: "
		    "is:\n%s", again, a, b);
		check_same(&p, &q, sv, again);
		free(b);
		free(again);
		tc_policy_release(&q);
	}
	free(a);
	tc_policy_release(&p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	size_t len, i;

	text = expand(data, size, &len);
	for (i = 0; i < TC_NITEMS(servers); i++)
		one(&servers[i], text, len);
	free(text);
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
