/*
 * test-glob.c: deny patterns (glob.h): a table of pattern, path and the
 * expected answer, which the slow reference matcher of globref.h (the one
 * the glob fuzz harness holds glob.c against) must give too; the patterns
 * tc_glob_valid() refuses, each with its reason; patterns built to make a
 * backtracking matcher go exponential; and tc_deny_match() on a policy
 * made by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/glob.h"
#include "globref.h"
#include "policy/policy.h"
#include "tap.h"

static const struct {
	const char	*pattern;
	const char	*path;
	int		 want;
} cases[] = {
	/* Literal components, anchored at the root. */
	{ ".env",		".env",			1 },
	{ ".env",		"a/.env",		0 },
	{ ".env",		".envrc",		0 },
	{ ".env",		".en",			0 },
	{ "a/b",		"a/b",			1 },
	{ "a/b",		"a",			0 },
	{ "a/b",		"b",			0 },
	{ ".git/hooks",		".git/hooks",		1 },
	{ ".git/hooks",		".git/hooks/pre-commit", 1 },
	{ ".git/hooks",		"a/.git/hooks",		0 },
	{ ".git/hooks",		".git",			0 },
	{ ".git/hooks",		".git/hooksx",		0 },
	{ ".git/hooks",		".git/config",		0 },

	/* A directory's pattern covers everything beneath it. */
	{ ".env",		".env/x/y",		1 },
	{ "**/.ssh",		".ssh",			1 },
	{ "**/.ssh",		".ssh/id_rsa",		1 },
	{ "**/.ssh",		"home/me/.ssh/id_rsa",	1 },
	{ "**/.ssh",		"home/me/.sshx/id_rsa",	0 },
	{ "**/.ssh",		"home/me/x.ssh",	0 },

	/* "**" at any depth, none included. */
	{ "**/.env",		".env",			1 },
	{ "**/.env",		"a/.env",		1 },
	{ "**/.env",		"a/b/c/d/.env",		1 },
	{ "**/.env",		"a/.envrc",		0 },
	{ "**/.env",		"a/x.env",		0 },
	{ "**/.env",		"a/.ENV",		0 },
	{ "**",			"a",			1 },
	{ "**",			"a/b/c",		1 },
	{ "a/**",		"a",			1 },
	{ "a/**",		"a/b",			1 },
	{ "a/**",		"b",			0 },
	{ "a/**/b",		"a/b",			1 },
	{ "a/**/b",		"a/x/y/b",		1 },
	{ "a/**/b",		"a/x/y/b/c",		1 },
	{ "a/**/b",		"a/x/y/c",		0 },
	{ "a/**/b",		"x/a/b",		0 },
	{ "**/a/**/b",		"x/a/y/b",		1 },
	{ "**/a/**/b",		"a/b",			1 },
	{ "**/a/**/b",		"x/a/y/c",		0 },
	{ "**/**/x",		"x",			1 },
	{ "**/*/x",		"a/b/x",		1 },
	{ "**/*/x",		"x",			0 },
	{ "**/b/c",		"a/b/b/c",		1 },
	{ "**/b/c",		"b/b/x/c",		0 },

	/* '*' and '?' stay within a component and match a leading '.'. */
	{ "*",			"anything",		1 },
	{ "*",			".env",			1 },
	{ "*",			"a/b",			1 },	/* "a" */
	{ "*.key",		"a.key",		1 },
	{ "*.key",		".key",			1 },
	{ "*.key",		"a.key.bak",		0 },
	{ "*.key",		"dir/a.key",		0 },
	{ "**/*.key",		"dir/a.key",		1 },
	{ "a*c",		"ab/c",			0 },
	{ "a*c",		"abbbc",		1 },
	{ "a*c",		"ac",			1 },
	{ "*a*b*c",		"xaybzc",		1 },
	{ "*a*b*c",		"xaybz",		0 },
	{ "*a*b*c",		"abcabc",		1 },
	{ "a**",		"ab",			1 },	/* invalid */
	{ "?",			"a",			1 },
	{ "?",			"ab",			0 },
	{ "a?c",		"abc",			1 },
	{ "a?c",		"a/c",			0 },
	{ "a?c",		"ac",			0 },

	/* Classes. */
	{ "[abc]",		"b",			1 },
	{ "[abc]",		"d",			0 },
	{ "[!abc]",		"d",			1 },
	{ "[!abc]",		"a",			0 },
	{ "[^abc]",		"d",			1 },
	{ "[^abc]",		"c",			0 },
	{ "[a-c]x",		"bx",			1 },
	{ "[a-c]x",		"dx",			0 },
	{ "[!a-c]x",		"dx",			1 },
	{ "[0-9][0-9]",		"42",			1 },
	{ "[0-9][0-9]",		"4x",			0 },
	{ "[]]",		"]",			1 },
	{ "[]a]",		"a",			1 },
	{ "[!]]",		"a",			1 },
	{ "[!]]",		"]",			0 },
	{ "[-a]",		"-",			1 },
	{ "[a-]",		"-",			1 },
	{ "[a-]",		"b",			0 },
	{ "[\\]]",		"]",			1 },
	{ "[\\!a]",		"!",			1 },
	{ "[.]env",		".env",			1 },
	{ "x[",			"x[",			1 },	/* invalid */

	/* Escapes. */
	{ "\\*",		"*",			1 },
	{ "\\*",		"a",			0 },
	{ "\\?",		"?",			1 },
	{ "\\?",		"a",			0 },
	{ "\\[x]",		"[x]",			1 },
	{ "\\[x]",		"x",			0 },
	{ "a\\\\b",		"a\\b",			1 },
	{ "\\a",		"a",			1 },

	/* Bytes, not characters; case-sensitive. */
	{ "?",			"\xc3\xa9",		0 },
	{ "??",			"\xc3\xa9",		1 },
	{ "caf\xc3\xa9",	"caf\xc3\xa9",		1 },
	{ "CAF*",		"caf\xc3\xa9",		0 },
	{ "[\x80-\xff]",	"\xc3",			1 },

	/* Absolute patterns match absolute paths only. */
	{ "/etc/shadow",	"/etc/shadow",		1 },
	{ "/etc/shadow",	"etc/shadow",		0 },
	{ "/etc/shadow",	"/etc/shadow.bak",	0 },
	{ "/etc/shadow",	"/etc",			0 },
	{ "/etc/shadow",	"/x/etc/shadow",	0 },
	{ "/srv/*/.aws",	"/srv/me/.aws/credentials", 1 },
	{ "/srv/*/.aws",	"/srv/me/x/.aws",	0 },
	{ "/**/id_rsa",		"/srv/me/.ssh/id_rsa",	1 },
	{ "/**/id_rsa",		"/id_rsa",		1 },
	{ ".env",		"/.env",		0 },
	{ "**",			"/a",			0 },
	{ "/**",		"/a",			1 },

	/* A root itself is never matched. */
	{ "**",			".",			0 },
	{ "**",			"",			0 },
	{ "*",			".",			0 },
	{ "/**",		"/",			0 },

	/* Empty and "." components of the path are ignored. */
	{ "a/b",		"a//b",			1 },
	{ "a/b",		"./a/./b",		1 },
	{ "a/b",		"a/b/",			1 },
	{ "/a/b",		"//a///b",		1 },
};

static const struct {
	const char	*pattern;
	const char	*why;
} bad[] = {
	{ "",		"empty pattern" },
	{ "/",		"'/' alone would deny every path" },
	{ "a/",		"a trailing '/': a pattern that matches a directory "
			"already matches everything beneath it" },
	{ "/etc/",	"a trailing '/'" },
	{ "a//b",	"an empty component ('//')" },
	{ "//a",	"an empty component ('//')" },
	{ "a**b",	"'**' must be a whole component, as in 'a/**/b'" },
	{ "a**",	"'**' must be a whole component" },
	{ "**b",	"'**' must be a whole component" },
	{ "***",	"'**' must be a whole component" },
	{ "x/**.env",	"'**' must be a whole component" },
	{ "[abc",	"'[' without a matching ']' in the same component" },
	{ "[a/b]",	"'[' without a matching ']' in the same component" },
	{ "[]",		"'[' without a matching ']'" },
	{ "[!]",	"'[' without a matching ']'" },
	{ "a/[",	"'[' without a matching ']'" },
	{ "[z-a]",	"reversed range 'z-a' in a class" },
	{ "[[:alpha:]]", "character class names such as '[:alpha:]' are not "
			"supported" },
	{ "[:alpha:]",	"character class names" },
	{ "a\\",	"'\\' at the end of a component escapes nothing" },
	{ "a\\/b",	"'\\' at the end of a component escapes nothing" },
	{ "./a",	"'.' as a component never matches a canonical path" },
	{ "a/../b",	"'..' as a component never matches a canonical path" },
	{ "a/.",	"'.' as a component" },
};

static const char *const good[] = {
	"**", "/**", "**/.env", ".git/hooks", "/etc/shadow", "a/**/b", "*",
	"[]]", "[!a-z]", "[^a]", "\\*", "\\**", "[\\:]", "[a:]", "..x", ".a",
	"*.key", "a*b*c", "?", "[-]", "caf\xc3\xa9",
};

static void
test_table(void)
{
	size_t i, nref = 0, wrong = 0;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		is_int(tc_glob_match(cases[i].pattern, cases[i].path),
		    cases[i].want, "'%s' %s '%s'", cases[i].pattern,
		    cases[i].want ? "matches" : "does not match",
		    cases[i].path);
		/* The reference answers for valid patterns only. */
		if (!tc_glob_valid(cases[i].pattern, NULL, 0))
			continue;
		nref++;
		if (gr_match(cases[i].pattern, cases[i].path) !=
		    cases[i].want && wrong++ < 5)
			printf("# reference: '%s' against '%s': want %d\n",
			    cases[i].pattern, cases[i].path, cases[i].want);
	}
	is_int((int)wrong, 0, "the reference matcher agrees with the table "
	    "(%zu valid patterns)", nref);
}

/*
 * The beginnings of what a pattern matches, for a long option's
 * abbreviations: up to the first '*' token by token, anything after it.
 */
static void
test_prefix(void)
{
	static const struct {
		const char	*pattern, *s;
		int		 want;
	} pre[] = {
		{ "--upload-pack*", "--upl", 1 },
		{ "--upload-pack*", "--upload-pack", 1 },
		{ "--upload-pack*", "--upload-pack-x", 1 },
		{ "--upload-pack*", "--upload-pa", 1 },
		{ "--upload-pack*", "--uq", 0 },
		{ "--upload-pack*", "--upload-pax", 0 },
		{ "--output", "--out", 1 },
		{ "--output", "--output", 1 },
		{ "--output", "--outputs", 0 },
		{ "--exec-pat?", "--exec-path", 1 },
		{ "--exec-pat?", "--exec-pathx", 0 },
		{ "--[ab]x*", "--b", 1 },
		{ "--[ab]x*", "--c", 0 },
		{ "--[!a]x", "--bx", 1 },
		{ "--[!a]x", "--ax", 0 },
		{ "--\\*", "--*", 1 },
		{ "--\\*", "--*x", 0 },
		{ "--*-pack", "--anything", 1 },
		{ "x", "", 1 },
	};
	size_t i;

	for (i = 0; i < TC_NITEMS(pre); i++)
		is_int(tc_glob_prefix_string(pre[i].pattern, pre[i].s),
		    pre[i].want, "'%s' %s the beginning of what '%s' matches",
		    pre[i].s, pre[i].want ? "is" : "is not",
		    pre[i].pattern);
}

static void
test_valid(void)
{
	char why[256], *big;
	size_t i;

	for (i = 0; i < TC_NITEMS(bad); i++) {
		snprintf(why, sizeof(why), "(unset)");
		is_int(tc_glob_valid(bad[i].pattern, why, sizeof(why)), 0,
		    "'%s' is refused", bad[i].pattern);
		like(why, bad[i].why, "'%s': reason", bad[i].pattern);
	}
	for (i = 0; i < TC_NITEMS(good); i++) {
		snprintf(why, sizeof(why), "(unset)");
		is_int(tc_glob_valid(good[i], why, sizeof(why)), 1,
		    "'%s' is valid", good[i]);
		is_str(why, "", "'%s': no reason", good[i]);
	}
	is_int(tc_glob_valid(NULL, why, sizeof(why)), 0, "NULL is refused");
	is_int(tc_glob_valid("a//b", NULL, 0), 0, "no buffer for the reason");
	is_int(tc_glob_valid("a**b", why, 8), 0, "a short buffer");
	is_str(why, "'**'\xe2\x80\xa6", "the reason is cut to the buffer, "
	    "marked (U+2026)");

	if ((big = malloc(TC_GLOB_MAX + 2)) == NULL)
		abort();
	memset(big, 'a', TC_GLOB_MAX);
	big[TC_GLOB_MAX] = '\0';
	for (i = 100; i < TC_GLOB_MAX; i += 100)
		big[i] = '/';
	is_int(tc_glob_valid(big, why, sizeof(why)), 1,
	    "a pattern of %d bytes is valid", TC_GLOB_MAX);
	big[TC_GLOB_MAX] = 'a';
	big[TC_GLOB_MAX + 1] = '\0';
	is_int(tc_glob_valid(big, why, sizeof(why)), 0, "one more is refused");
	is_str(why, "pattern longer than 4096 bytes", "and why");
	free(big);
}

/* Returns |n| copies of |unit| followed by |tail|; the caller frees it. */
static char *
repeat(const char *unit, size_t n, const char *tail)
{
	size_t ul = strlen(unit), tl = strlen(tail), i;
	char *s, *w;

	if ((s = malloc(ul * n + tl + 1)) == NULL)
		abort();
	for (w = s, i = 0; i < n; i++, w += ul)
		memcpy(w, unit, ul);
	memcpy(w, tail, tl + 1);
	return s;
}

/*
 * Patterns that take a naive backtracking matcher exponential time: they
 * must finish, with the right answer.  (No timing is asserted; a matcher
 * that went exponential would not finish in any run's lifetime.)
 */
static void
test_pathological(void)
{
	char *pat, *path;

	pat = repeat("**/", 40, "a/b");
	path = repeat("x/", 3000, "a/x");
	is_int(tc_glob_match(pat, path), 0,
	    "40 '**' against 3000 components, no match");
	free(path);
	path = repeat("x/", 3000, "a/b/c");
	is_int(tc_glob_match(pat, path), 1,
	    "40 '**' against 3000 components, a match");
	free(path);
	free(pat);

	pat = repeat("*a", 60, "b");
	path = repeat("a", 4000, "");
	is_int(tc_glob_match(pat, path), 0,
	    "'*a' 60 times then 'b' against 4000 a's, no match");
	free(path);
	path = repeat("a", 4000, "b");
	is_int(tc_glob_match(pat, path), 1,
	    "'*a' 60 times then 'b' against 4000 a's and a b, a match");
	free(path);
	free(pat);

	/* Both levels at once. */
	pat = repeat("**/*a*a*a*a*a*a*a*a/", 20, "c");
	path = repeat("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/", 500, "b");
	is_int(tc_glob_match(pat, path), 0,
	    "nested wildcards at both levels, no match");
	free(path);
	free(pat);
}

/* A policy by hand: no fds, only what tc_deny_match() reads. */
static char rootA[] = "/r", rootB[] = "/r/sub", rootC[] = "/";
static char p_env[] = "**/.env", p_secrets[] = "secrets",
    p_shadow[] = "/etc/shadow", p_hooks[] = ".git/hooks", p_all[] = "**",
    p_abs_r[] = "/r/private", p_ssh[] = "**/.ssh";

static void
test_deny_match(void)
{
	struct tc_root roots[2];
	struct tc_deny rules[] = {
		{ .pattern = p_env, .access = TC_ACCESS_READ | TC_ACCESS_WRITE,
		    .line = 4 },
		{ .pattern = p_secrets, .access = TC_ACCESS_WRITE,
		    .line = 5 },
		{ .pattern = p_shadow, .access = TC_ACCESS_READ | TC_ACCESS_WRITE,
		    .line = 0 },
		{ .pattern = p_hooks, .access = TC_ACCESS_READ | TC_ACCESS_WRITE,
		    .line = 7 },
		{ .pattern = p_abs_r, .access = TC_ACCESS_READ | TC_ACCESS_WRITE,
		    .line = 8 },
		{ .pattern = p_ssh, .access = TC_ACCESS_READ,
		    .line = 9 },
		{ .pattern = p_ssh, .access = TC_ACCESS_READ | TC_ACCESS_WRITE,
		    .line = 10 },
	};
	struct tc_deny all = { .pattern = p_all,
	    .access = TC_ACCESS_READ | TC_ACCESS_WRITE, .line = 1 };
	struct tc_policy p;
	const struct tc_deny *r;

	memset(&p, 0, sizeof(p));
	memset(roots, 0, sizeof(roots));
	roots[0].path = rootA;
	roots[0].pathlen = strlen(rootA);
	roots[1].path = rootB;
	roots[1].pathlen = strlen(rootB);
	p.roots = roots;
	p.nroots = 1;
	p.deny = rules;
	p.ndeny = TC_NITEMS(rules);

	is_int(tc_deny_any(&p, TC_ACCESS_READ), 1, "rules for reads");
	is_int(tc_deny_any(&p, TC_ACCESS_WRITE), 1, "rules for writes");
	ok(tc_deny_match(&p, "/r/a/.env", "a/.env", TC_ACCESS_READ) ==
	    &rules[0], "a/.env: read refused by '**/.env'");
	ok(tc_deny_match(&p, "/r/a/.env", "a/.env", TC_ACCESS_WRITE) ==
	    &rules[0], "a/.env: write refused by '**/.env'");
	ok(tc_deny_match(&p, "/r/a/.env.example", "a/.env.example",
	    TC_ACCESS_READ) == NULL, "a/.env.example: allowed");
	ok(tc_deny_match(&p, "/r/secrets/x", "secrets/x", TC_ACCESS_WRITE) ==
	    &rules[1], "secrets/x: write refused by 'deny write secrets'");
	ok(tc_deny_match(&p, "/r/secrets/x", "secrets/x", TC_ACCESS_READ) ==
	    NULL, "secrets/x: a write-only rule does not refuse reads");
	ok(tc_deny_match(&p, "/etc/shadow", "etc/shadow", TC_ACCESS_READ) ==
	    &rules[2], "/etc/shadow: refused by the absolute rule");
	ok(tc_deny_match(&p, NULL, "etc/shadow", TC_ACCESS_READ) == NULL,
	    "without abs, absolute rules are not tried");
	ok(tc_deny_match(&p, "/r/private/k", NULL, TC_ACCESS_READ) ==
	    &rules[4], "/r/private/k: an absolute rule within a root");
	ok(tc_deny_match(&p, "/r/x/.ssh/id", "x/.ssh/id", TC_ACCESS_READ) ==
	    &rules[5], "the first rule that applies wins");
	ok(tc_deny_match(&p, "/r/x/.ssh/id", "x/.ssh/id", TC_ACCESS_WRITE) ==
	    &rules[6], "a read-only rule is passed over for writes");
	ok(tc_deny_match(&p, "/r/a/.env", "a/.env", 0) == NULL,
	    "no access asked: nothing refused");

	/* Relative rules against every root that holds the path. */
	ok(tc_deny_match(&p, "/r/sub/.git/hooks/x", "sub/.git/hooks/x",
	    TC_ACCESS_READ) == NULL, "one root: sub/.git/hooks is allowed");
	p.nroots = 2;
	ok(tc_deny_match(&p, "/r/sub/.git/hooks/x", "sub/.git/hooks/x",
	    TC_ACCESS_READ) == &rules[3],
	    "with /r/sub a root too: refused through either");
	ok(tc_deny_match(&p, "/r/sub/.git/hooks/x", NULL, TC_ACCESS_READ) ==
	    &rules[3], "without rel: the roots give it");
	/* A pattern alone (consent rules), matched the same way. */
	ok(tc_glob_match_path(&p, ".git/hooks", "/r/sub/.git/hooks/x",
	    "sub/.git/hooks/x"), "match_path: through the nested root");
	ok(tc_glob_match_path(&p, ".git/hooks", NULL, ".git/hooks/x"),
	    "match_path: relative, by rel alone");
	ok(!tc_glob_match_path(&p, ".git/hooks", "/r/x/.git/hooks",
	    "x/.git/hooks"), "match_path: not below a root's top");
	ok(tc_glob_match_path(&p, "/r/private", "/r/private/k", "private/k"),
	    "match_path: absolute, on abs");
	ok(!tc_glob_match_path(&p, "/r/private", NULL, "private/k"),
	    "match_path: absolute, without abs: no match");

	/* A root itself is never refused. */
	p.deny = &all;
	p.ndeny = 1;
	ok(tc_deny_match(&p, "/r/a", "a", TC_ACCESS_READ) == &all,
	    "'deny **' refuses what is in a root");
	ok(tc_deny_match(&p, "/r", ".", TC_ACCESS_READ) == NULL,
	    "but not the root itself (rel '.')");
	ok(tc_deny_match(&p, NULL, "", TC_ACCESS_READ) == NULL,
	    "nor rel ''");
	ok(tc_deny_match(&p, "/r/sub", "sub", TC_ACCESS_READ) == NULL,
	    "nor a nested root, reached through the outer one");
	roots[0].path = rootC;
	roots[0].pathlen = 1;
	p.nroots = 1;
	ok(tc_deny_match(&p, "/x", "x", TC_ACCESS_READ) == &all,
	    "root '/': '/x' is refused");
	ok(tc_deny_match(&p, "/", ".", TC_ACCESS_READ) == NULL,
	    "root '/': '/' itself is not");

	p.ndeny = 0;
	is_int(tc_deny_any(&p, TC_ACCESS_READ), 0, "no rules: none apply");
	r = tc_deny_match(&p, "/x", "x", TC_ACCESS_READ);
	ok(r == NULL, "no rules: nothing refused");
}

/*
 * tc_deny_dir_match() must answer as tc_deny_match() does, for every
 * entry of every directory: compared over rules of every shape.
 */
static void
test_deny_dir(void)
{
	static char pats[][32] = { "**/.env", "**/.env.*", "**/.ssh",
	    "**/*.pem", "**/.git/hooks", "**/.git", "secrets", "/etc/shadow",
	    ".git/hooks", "/r/private", "src/**/gen", "a/*/c", "*.log",
	    "**/[ab]?.txt", "**/x\\*y", "/r/sub/**/z", "docs/**",
	    "**/deep/**", "/r/*/k*", "**/ab*ba", "**/pre*mid*.tmp",
	    "**/\\[lit]", "**/q?", "**/*-x.*",
	    /* From here on, exact rules (the server's own files). */
	    "/r/a/c", "/r/sub", "/r/docs/q", "/r/x\\*y", "/r/deep/shadow" };
	static const size_t exact_from = 24;
	static const char *const dirs[][2] = {
		{ "/r", "." }, { "/r/a", "a" }, { "/r/a/b", "a/b" },
		{ "/r/sub", "sub" }, { "/r/sub/q", "sub/q" },
		{ "/r/src/x/y", "src/x/y" }, { "/r/.git", ".git" },
		{ "/r/docs", "docs" }, { "/r/docs/q", "docs/q" },
		{ "/r/deep", "deep" }, { "/r/m/deep/n", "m/deep/n" },
		{ "/r/private", "private" }, { "/r/k", "k" },
	};
	static const char *const names[] = { ".env", ".env.local", "a.log",
	    "ab.txt", "zz.txt", "x*y", "xy", "gen", "c", "hooks", "z",
	    "sub", "id.pem", "plain", ".ssh", "private", "k1", "secrets",
	    ".git", "deep", "shadow", "aba", "abba", "ab-ba", "pre.tmp",
	    "premid.tmp", "pre-mid-x.tmp", "[lit]", "lit", "q", "qq" };
	static const unsigned access[] = { TC_ACCESS_READ, TC_ACCESS_WRITE };
	struct tc_deny rules[TC_NITEMS(pats)], some[TC_NITEMS(pats)];
	size_t nsome = 0, shortcut = 0, set;
	struct tc_root roots[2];
	struct tc_deny_dir dd;
	struct tc_policy p;
	char abs[256];
	const char *rel;
	size_t i, j, a, wrong = 0, n = 0, hits = 0;
	const struct tc_deny *want, *got;

	memset(&p, 0, sizeof(p));
	memset(roots, 0, sizeof(roots));
	for (i = 0; i < TC_NITEMS(pats); i++) {
		rules[i].pattern = pats[i];
		rules[i].access = i % 3 == 1 ? TC_ACCESS_WRITE :
		    TC_ACCESS_READ | TC_ACCESS_WRITE;
		rules[i].line = (int)i + 1;
		rules[i].exact = i >= exact_from;
	}
	roots[0].path = rootA;
	roots[0].pathlen = strlen(rootA);
	roots[1].path = rootB;
	roots[1].pathlen = strlen(rootB);
	p.roots = roots;
	/* Again with only the rules whose last component has a literal
	 * first or last byte: then a directory can take the shortcut on
	 * a name's two ends (not with a "**" or "*x*" rule among them). */
	for (i = 0; i < TC_NITEMS(pats); i++) {
		const char *last = strrchr(pats[i], '/');
		size_t len;

		last = last != NULL ? last + 1 : pats[i];
		len = strlen(last);
		if (strcmp(last, "**") != 0 && (strchr("*?[]\\", last[0]) ==
		    NULL || strchr("*?[]\\", last[len - 1]) == NULL))
			some[nsome++] = rules[i];
	}
	for (set = 0; set < 2; set++)
	for (p.nroots = 1; p.nroots <= 2; p.nroots++)
	for (i = 0; i < TC_NITEMS(dirs); i++)
	for (a = 0; a < TC_NITEMS(access); a++) {
		p.deny = set == 0 ? rules : some;
		p.ndeny = set == 0 ? TC_NITEMS(rules) : nsome;
		if (tc_deny_dir_init(&dd, &p, dirs[i][0], dirs[i][1],
		    access[a]) != 0) {
			ok(0, "tc_deny_dir_init");
			return;
		}
		shortcut += !dd.always;
		for (j = 0; j < TC_NITEMS(names); j++) {
			snprintf(abs, sizeof(abs), "%s/%s", dirs[i][0],
			    names[j]);
			rel = abs + 3;	/* after "/r/": relative to /r */
			want = tc_deny_match(&p, abs, rel, access[a]);
			got = tc_deny_dir_match(&dd, names[j], abs, rel);
			/* The shortcut may only ever skip what is allowed. */
			if (want != NULL && !tc_deny_dir_maybe(&dd, names[j]))
				got = NULL;
			n++;
			hits += want != NULL;
			if (want != got && wrong++ < 5) {
				printf("# %s (%s): want %s, got %s\n",
				    abs, access[a] == TC_ACCESS_READ ? "read" :
				    "write", want ? want->pattern : "none",
				    got ? got->pattern : "none");
			}
		}
		tc_deny_dir_release(&dd);
	}
	is_int((int)wrong, 0, "per-directory rules agree with tc_deny_match "
	    "on %zu entries (%zu refused)", n, hits);
	ok(hits > n / 10 && hits < n, "the comparison has both answers");
	ok(shortcut > 0 && nsome > 5, "the shortcut on a name's ends was "
	    "taken (%zu directories, %zu rules)", shortcut, nsome);
}

/*
 * Exact rules: the path itself, not what is beneath it (own.h: the audit
 * log's directory is refused, not every file beside the log).
 */
static void
test_exact(void)
{
	char p_dir[] = "/r/logs", p_odd[] = "/r/a\\*b\\[c]";
	struct tc_deny rules[] = {
		{ .pattern = p_dir, .access = TC_ACCESS_READ, .exact = 1 },
		{ .pattern = p_odd, .access = TC_ACCESS_READ, .exact = 1 },
	};
	struct tc_deny whole = { .pattern = p_dir, .access = TC_ACCESS_READ };
	struct tc_root roots[1];
	struct tc_deny_dir dd;
	struct tc_policy p;

	ok(tc_deny_rule_match(&rules[0], "/r/logs"), "exact: the path");
	ok(!tc_deny_rule_match(&rules[0], "/r/logs/fs.log"),
	    "exact: not what is beneath it");
	ok(!tc_deny_rule_match(&rules[0], "/r"), "exact: not its parent");
	ok(!tc_deny_rule_match(&rules[0], "/r/logsx"), "exact: nor a "
	    "longer name");
	ok(tc_deny_rule_match(&rules[0], "/r//./logs"), "exact: empty and "
	    "'.' components do not count");
	ok(tc_deny_rule_match(&whole, "/r/logs/fs.log"), "not exact: what "
	    "is beneath it too");
	ok(tc_deny_rule_match(&rules[1], "/r/a*b[c]"), "exact, escaped: "
	    "the name with its special bytes");
	ok(!tc_deny_rule_match(&rules[1], "/r/axb[c]") &&
	    !tc_deny_rule_match(&rules[1], "/r/a*bc"), "escaped: no "
	    "wildcard, no class");

	memset(&p, 0, sizeof(p));
	memset(roots, 0, sizeof(roots));
	roots[0].path = rootA;
	roots[0].pathlen = strlen(rootA);
	p.roots = roots;
	p.nroots = 1;
	p.deny = rules;
	p.ndeny = TC_NITEMS(rules);
	ok(tc_deny_match(&p, "/r/logs", "logs", TC_ACCESS_READ) == &rules[0],
	    "tc_deny_match: the directory refused");
	ok(tc_deny_match(&p, "/r/logs/x", "logs/x", TC_ACCESS_READ) == NULL,
	    "tc_deny_match: a file beside the log is not");
	if (tc_deny_dir_init(&dd, &p, "/r/logs", "logs", TC_ACCESS_READ) !=
	    0) {
		ok(0, "tc_deny_dir_init");
		return;
	}
	ok(tc_deny_dir_match(&dd, "x", "/r/logs/x", "logs/x") == NULL &&
	    tc_deny_dir_match(&dd, "logs", "/r/logs/logs", "logs/logs") ==
	    NULL, "per directory: its entries are not refused with it");
	tc_deny_dir_release(&dd);
	if (tc_deny_dir_init(&dd, &p, "/r", ".", TC_ACCESS_READ) != 0) {
		ok(0, "tc_deny_dir_init");
		return;
	}
	ok(tc_deny_dir_maybe(&dd, "logs") && tc_deny_dir_match(&dd, "logs",
	    "/r/logs", "logs") == &rules[0], "per directory: the entry "
	    "itself is refused");
	tc_deny_dir_release(&dd);
}

/* tc_path_beneath(): the one "is this path inside that directory" on
 * names, component by component. */
static void
test_beneath(void)
{
	static const struct {
		const char	*path, *root, *rest;	/* NULL: not beneath */
	} pairs[] = {
		{ "/a/b/c",	"/a",		"b/c" },
		{ "/a",		"/a",		"" },
		{ "/a/",	"/a",		"" },
		{ "/ab",	"/a",		NULL },
		{ "/a",		"/a/b",		NULL },
		{ "/b/a",	"/a",		NULL },
		{ "/x/y",	"/",		"x/y" },
		{ "/",		"/",		"" },
		{ "/srv/data/x", "/srv/data",	"x" },
		{ "/srv/database", "/srv/data",	NULL },
	};
	const char *got;
	size_t i;

	for (i = 0; i < TC_NITEMS(pairs); i++) {
		got = tc_path_beneath(pairs[i].path, pairs[i].root);
		if (pairs[i].rest == NULL)
			ok(got == NULL, "'%s' is not beneath '%s'",
			    pairs[i].path, pairs[i].root);
		else
			is_str(got, pairs[i].rest, "'%s' beneath '%s'",
			    pairs[i].path, pairs[i].root);
	}
}

int
main(void)
{
	test_table();
	test_valid();
	test_prefix();
	test_pathological();
	test_deny_match();
	test_deny_dir();
	test_exact();
	test_beneath();
	return done_testing();
}
