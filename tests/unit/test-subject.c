/*
 * test-subject.c: typed subjects (policy/subject.h): the list, kind and
 * access names, the patterns of each kind and how they match, string
 * patterns (glob.h), consent rules by kind as the policy file writes
 * them (typed "consent" lines loaded from a scratch file), and the shared
 * error text that names no directories.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "policy/glob.h"
#include "policy/policy.h"
#include "policy/subject.h"
#include "tap.h"

static char dir[] = "/tmp/test-subject-XXXXXX";	/* the scratch directory */

static void
test_list(void)
{
	struct tc_subjects s;
	cJSON *j;
	char *text;

	tc_subjects_init(&s);
	is_int(tc_subjects_add(&s, TC_SUBJECT_PROGRAM, "/usr/bin/git",
	    TC_SUBJECT_EXEC), 0, "add a program");
	is_int(tc_subjects_add(&s, TC_SUBJECT_ARG, "status", 0), 0, "an arg");
	is_int(tc_subjects_add(&s, TC_SUBJECT_ARG, "a\"b", 0), 0, "another");
	is_int(tc_subjects_add(&s, TC_SUBJECT_STATEMENT, "delete", 0),
	    TC_EINVAL, "a statement kind that is not one");
	is_int(tc_subjects_add(&s, TC_SUBJECT_NKINDS, "x", 0), TC_EINVAL,
	    "a kind out of range");
	is_int(tc_subjects_add(&s, TC_SUBJECT_ARG, NULL, 0), TC_EINVAL,
	    "no value");
	is_int(tc_subjects_add(&s, TC_SUBJECT_ARG, "x", 8), TC_EINVAL,
	    "an access out of range");
	is_int(tc_subjects_add(&s, TC_SUBJECT_STATEMENT, "schema",
	    TC_SUBJECT_WRITE), 0, "a schema statement");
	{
		struct tc_diag d = { "", 0 };

		is_int(tc_subjects_put(&s, TC_SUBJECT_STATEMENT, "drop", 0,
		    &d), TC_EINVAL, "put: what add refuses");
		is_str(d.msg, "cannot add the statement subject",
		    "put: says which subject");
	}
	is_int((long long)s.n, 4, "four kept");
	is_int((long long)tc_subjects_count(&s, TC_SUBJECT_ARG), 2, "two args");
	is_int((long long)tc_subjects_count(&s, TC_SUBJECT_CWD), 0, "no cwd");
	j = tc_subjects_json(&s);
	text = j != NULL ? cJSON_PrintUnformatted(j) : NULL;
	is_str(text, "[{\"kind\":\"program\",\"value\":\"/usr/bin/git\","
	    "\"access\":\"execute\"},{\"kind\":\"arg\",\"value\":\"status\"},"
	    "{\"kind\":\"arg\",\"value\":\"a\\\"b\"},{\"kind\":\"statement\","
	    "\"value\":\"schema\",\"access\":\"write\"}]", "as JSON");
	cJSON_free(text);
	cJSON_Delete(j);
	tc_subjects_release(&s);
	is_int((long long)s.n, 0, "released");
	j = tc_subjects_json(&s);
	text = j != NULL ? cJSON_PrintUnformatted(j) : NULL;
	is_str(text, "[]", "none as JSON");
	cJSON_free(text);
	cJSON_Delete(j);
}

static void
test_names(void)
{
	int k;

	for (k = 0; k < TC_SUBJECT_NKINDS; k++)
		is_int(tc_subject_kind_parse(tc_subject_kind_name(k)), k,
		    "kind %d round-trips", k);
	is_str(tc_subject_kind_name(TC_SUBJECT_STATEMENT), "statement",
	    "statement");
	ok(tc_subject_kind_name(TC_SUBJECT_NKINDS) == NULL, "out of range");
	is_int(tc_subject_kind_parse("Program"), -1, "names are lowercase");
	is_int(tc_subject_kind_parse("argv"), -1, "no argv kind");
	ok(tc_subject_access_name(0) == NULL, "no access");
	is_str(tc_subject_access_name(TC_SUBJECT_READ | TC_SUBJECT_WRITE),
	    "read-write", "read-write");
	is_str(tc_subject_access_name(TC_SUBJECT_EXEC), "execute", "execute");
	ok(tc_subject_access_name(8) == NULL, "access out of range");
}

static void
test_patterns(void)
{
	char why[160];

	ok(tc_subject_pattern_valid(TC_SUBJECT_PROGRAM, "/usr/bin/*", why,
	    sizeof(why)), "a program by path");
	ok(tc_subject_pattern_valid(TC_SUBJECT_PROGRAM, "git", why,
	    sizeof(why)), "a program by name");
	ok(!tc_subject_pattern_valid(TC_SUBJECT_PROGRAM, "bin/git", why,
	    sizeof(why)), "a relative path is not a program pattern");
	like(why, "absolute path, or by its file name alone", "says why");
	ok(!tc_subject_pattern_valid(TC_SUBJECT_PROGRAM, "/usr/bin/", why,
	    sizeof(why)), "a trailing '/'");
	ok(tc_subject_pattern_valid(TC_SUBJECT_ARG, "--output=**", why,
	    sizeof(why)), "'**' in a string pattern is two stars");
	ok(tc_subject_pattern_valid(TC_SUBJECT_ARG, ".", why, sizeof(why)),
	    "'.' is an argument like another");
	ok(!tc_subject_pattern_valid(TC_SUBJECT_ENV, "[A", why, sizeof(why)),
	    "an open class");
	like(why, "'[' without a matching ']'", "says why");
	ok(!tc_subject_pattern_valid(TC_SUBJECT_DATABASE, "", why,
	    sizeof(why)), "empty");
	ok(!tc_subject_pattern_valid(TC_SUBJECT_ARG, "x\\", why, sizeof(why)),
	    "a trailing backslash");
	ok(tc_subject_pattern_valid(TC_SUBJECT_STATEMENT, "schema", why,
	    sizeof(why)), "schema");
	ok(!tc_subject_pattern_valid(TC_SUBJECT_STATEMENT, "w*", why,
	    sizeof(why)), "no patterns for statements");
	is_str(why, "a statement is 'read', 'write' or 'schema'", "says why");
}

static void
test_match(void)
{
	ok(tc_subject_match(TC_SUBJECT_PROGRAM, "/usr/bin/git",
	    "/usr/bin/git"), "program by path");
	ok(!tc_subject_match(TC_SUBJECT_PROGRAM, "/usr/bin/git",
	    "/usr/local/bin/git"), "not another path");
	ok(tc_subject_match(TC_SUBJECT_PROGRAM, "/usr/local/**",
	    "/usr/local/bin/git"), "beneath a directory");
	ok(tc_subject_match(TC_SUBJECT_PROGRAM, "git", "/usr/local/bin/git"),
	    "by file name anywhere");
	ok(tc_subject_match(TC_SUBJECT_PROGRAM, "python3*",
	    "/usr/bin/python3.11"), "a file name pattern");
	ok(!tc_subject_match(TC_SUBJECT_PROGRAM, "git", "/usr/bin/git-shell"),
	    "a whole file name");
	ok(tc_subject_match(TC_SUBJECT_ARG, "--output=*",
	    "--output=/etc/passwd"), "'*' crosses '/' in an argument");
	ok(!tc_subject_match(TC_SUBJECT_ARG, "push", "push/x"),
	    "an argument is matched whole, not as a directory");
	ok(tc_subject_match(TC_SUBJECT_ARG, "-[fF]", "-F"), "a class");
	ok(tc_subject_match(TC_SUBJECT_ARG, "\\*", "*"), "an escape");
	ok(!tc_subject_match(TC_SUBJECT_ARG, "\\*", "x"), "only the byte");
	ok(tc_subject_match(TC_SUBJECT_ENV, "AWS_*", "AWS_SECRET"), "env");
	ok(tc_subject_match(TC_SUBJECT_DATABASE, "prod*", "production"),
	    "database");
	ok(tc_subject_match(TC_SUBJECT_STATEMENT, "write", "write"),
	    "statement");
	ok(!tc_subject_match(TC_SUBJECT_STATEMENT, "write", "read"),
	    "another statement");
	ok(!tc_subject_match(TC_SUBJECT_PATH, "**", "/a"),
	    "paths are not matched here");
	ok(tc_glob_match_string("\\env", "env"), "an escaped kind name");
	ok(tc_glob_match_string("a*b*c*d*e", "a-bb-cc/dd-e"), "many stars");
	ok(!tc_glob_match_string("a*b*c*d*f", "abababababababababababab"
	    "abababababababababababababababababababababababababcde"),
	    "many stars, no match");
}

static void
collect(void *ctx, const char *msg)
{
	tc_buf_printf(ctx, "%s\n", msg);
}

/* Loads a policy for a server with tools run and query from |text|;
 * returns its errors, one a line (the caller frees them). */
static char *
load(struct tc_policy *p, const char *text)
{
	static const char *const tools[] = { "run", "query", "read" };
	struct tc_diag d = { "", 0 };
	struct tc_buf errs;
	FILE *f;

	tc_buf_init(&errs, 1u << 16);
	tc_policy_init(p);
	if (tc_policy_set_server(p, "toolcell-test", tools, TC_NITEMS(tools),
	    0) != 0 || (f = fopen("t.policy", "w")) == NULL ||
	    fprintf(f, "allow read %s\n%s", dir, text) < 0 || fclose(f) != 0)
		abort();
	tc_policy_load(p, "t.policy", collect, &errs, &d);
	tc_buf_append_str(&errs, "");
	return tc_buf_steal(&errs);
}

static void
test_rules(void)
{
	const struct tc_consent_rule *r;
	struct tc_policy p;
	char *const *v;
	size_t n;
	char *errs;

	errs = load(&p, "consent run program /usr/bin/git rm arg push "
	    "--force\n"
	    "consent query statement write schema\n"
	    "consent * /srv/** cwd sub/** database \\program\n"
	    "consent read\n");
	is_str(errs, "", "typed rules load");
	free(errs);
	is_int((long long)p.nconsent, 4, "four rules");
	if (p.nconsent != 4)
		goto out;
	r = &p.consent[0];
	is_int((long long)r->npatterns, 0, "rule 1: no path patterns");
	ok(r->patterns != NULL && r->patterns[0] == NULL, "NULL-terminated");
	is_int(r->kinds, 1u << TC_SUBJECT_PROGRAM | 1u << TC_SUBJECT_ARG,
	    "rule 1: program and arg");
	v = tc_consent_rule_values(r, TC_SUBJECT_PROGRAM, &n);
	is_int((long long)n, 2, "two programs");
	if (n == 2) {
		is_str(v[0], "/usr/bin/git", "the first");
		is_str(v[1], "rm", "the second");
	}
	v = tc_consent_rule_values(r, TC_SUBJECT_ARG, &n);
	is_int((long long)n, 2, "two args");
	if (n == 2)
		is_str(v[1], "--force", "the second arg");
	ok(r->values[4] == NULL, "values NULL-terminated");
	v = tc_consent_rule_values(r, TC_SUBJECT_ENV, &n);
	is_int((long long)n, 0, "no env");

	ok(tc_consent_rule_match(&p, r, TC_SUBJECT_PROGRAM, "/bin/rm", NULL),
	    "rm by name");
	ok(!tc_consent_rule_match(&p, r, TC_SUBJECT_PROGRAM, "/bin/ls",
	    NULL), "not ls");
	ok(!tc_consent_rule_applies(r, 1u << TC_SUBJECT_PROGRAM),
	    "program alone does not apply");
	ok(tc_consent_rule_applies(r, 1u << TC_SUBJECT_PROGRAM |
	    1u << TC_SUBJECT_ARG | 1u << TC_SUBJECT_CWD),
	    "program and arg apply, whatever else matched");

	r = &p.consent[1];
	is_int(r->kinds, 1u << TC_SUBJECT_STATEMENT, "rule 2: statement");
	ok(tc_consent_rule_match(&p, r, TC_SUBJECT_STATEMENT, "schema", NULL),
	    "schema");
	ok(!tc_consent_rule_match(&p, r, TC_SUBJECT_STATEMENT, "read", NULL),
	    "not read");

	r = &p.consent[2];
	is_int((long long)r->npatterns, 1, "rule 3: a path pattern");
	is_int(r->kinds, 1u << TC_SUBJECT_PATH | 1u << TC_SUBJECT_CWD |
	    1u << TC_SUBJECT_DATABASE, "rule 3: path, cwd, database");
	ok(tc_consent_rule_match(&p, r, TC_SUBJECT_PATH, "/srv/a/b", NULL),
	    "a path");
	ok(!tc_consent_rule_match(&p, r, TC_SUBJECT_CWD, "/srv/a/b", NULL),
	    "a cwd is matched by cwd patterns");
	ok(tc_consent_rule_match(&p, r, TC_SUBJECT_CWD, "/x/sub/y", "sub/y"),
	    "a relative cwd pattern, by the path relative to its root");
	ok(tc_consent_rule_match(&p, r, TC_SUBJECT_DATABASE, "program",
	    NULL), "an escaped kind name is a value");
	ok(!tc_consent_rule_applies(r, 1u << TC_SUBJECT_PATH |
	    1u << TC_SUBJECT_CWD), "not without its database");

	r = &p.consent[3];
	is_int(r->kinds, 0, "rule 4: names no kind");
	ok(tc_consent_rule_applies(r, 0), "applies to every call");
out:
	tc_policy_release(&p);

	errs = load(&p, "consent run program\n"
	    "consent run arg a arg b\n"
	    "consent query statement delete\n"
	    "consent run program bin/git\n"
	    "consent run env [A cwd ../x\n"
	    "consent run program arg x\n");
	is_str(errs,
	    "t.policy:2: consent: 'program' without a value: name what to "
	    "ask about after it\n"
	    "t.policy:3: consent: 'arg' named twice: list its values after "
	    "one 'arg'\n"
	    "t.policy:4: consent: statement: 'delete': a statement is "
	    "'read', 'write' or 'schema'\n"
	    "t.policy:5: consent: program: 'bin/git': a program is matched "
	    "by its absolute path, or by its file name alone: write "
	    "'/usr/bin/git' or 'git'\n"
	    "t.policy:6: consent: cwd: '../x': a pattern cannot contain "
	    "'..'\n"
	    "t.policy:6: consent: env: '[A': '[' without a matching ']' in "
	    "the same component\n"
	    "t.policy:7: consent: 'program' without a value: name what to "
	    "ask about after it\n", "each mistake, with its line");
	free(errs);
	tc_policy_release(&p);
}

static void
test_errors(void)
{
	is_str(tc_strerror(TC_EOUTSIDE), "outside what the policy allows",
	    "TC_EOUTSIDE's shared text names no directories");
}

int
main(void)
{
	if (mkdtemp(dir) == NULL || chdir(dir) != 0)
		return 2;
	test_list();
	test_names();
	test_patterns();
	test_match();
	test_rules();
	test_errors();
	unlink("t.policy");
	if (chdir("/") == 0)
		rmdir(dir);
	return done_testing();
}
