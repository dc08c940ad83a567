/*
 * test-shellrepos.c: how toolcell-shell reads core.worktree from a
 * submodule's git configuration (shell_config_worktree(), shell_repos.c)
 * to find the .git it keeps read-only: as git reads it, so that no quote,
 * escape or comment makes it keep the wrong place and miss the real one;
 * refusing what git would refuse, so that the child fails rather than
 * miss it; and never stuck on what it is given (every byte string of a
 * few lengths, and random ones, end).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "shell.h"

/* Reads |cfg|; returns what it found as a string: the value, "none" or
 * "refused". */
static const char *
worktree(const char *cfg)
{
	static char out[4096];

	switch (shell_config_worktree(cfg, strlen(cfg), out, sizeof(out))) {
	case 1:
		return out;
	case 0:
		return "none";
	}
	return "refused";
}

/* What git itself finds: "git config -f FILE --get core.worktree", its
 * value, "none" (status 1) or "refused" (anything else). */
static const char *
by_git(const char *git, const char *cfg)
{
	static char out[4096];
	char file[] = "/tmp/test-shellrepos.XXXXXX", cmd[256];
	size_t len;
	FILE *f;
	int fd, st;

	if ((fd = mkstemp(file)) < 0 || write(fd, cfg, strlen(cfg)) !=
	    (ssize_t)strlen(cfg))
		abort();
	close(fd);
	snprintf(cmd, sizeof(cmd), "GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent "
	    "%s config -f %s --get core.worktree 2>/dev/null", git, file);
	if ((f = popen(cmd, "r")) == NULL)
		abort();
	len = fread(out, 1, sizeof(out) - 1, f);
	out[len] = '\0';
	st = pclose(f);
	unlink(file);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
		return "none";
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return "refused";
	if (len > 0 && out[len - 1] == '\n')
		out[len - 1] = '\0';
	return out;
}

static void
test_values(void)
{
	static const struct {
		const char	*cfg, *want, *what;
	} cases[] = {
		{ "[core]\n\tworktree = ../../../lib\n", "../../../lib",
		  "as git writes it" },
		{ "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
		  "\tworktree = ../x\n[remote \"origin\"]\n\turl = y\n",
		  "../x", "among other keys and sections" },
		{ "[core]\n\tworktree = \"../../lib/a#b\"\n", "../../lib/a#b",
		  "'#' quoted is no comment" },
		{ "[core]\n\tworktree = \"../c;d\" ; a comment\n", "../c;d",
		  "';' quoted, then a comment" },
		{ "[core]\n\tworktree = ../g\\\"h\n", "../g\"h",
		  "an escaped quote" },
		{ "[core]\n\tworktree = ../e\\\\f\n", "../e\\f",
		  "an escaped backslash" },
		{ "[core]\n\tworktree = ../t\\tx\n", "../t\tx", "\\t" },
		{ "[core]\n\tworktree = ../a\\\nb\n", "../ab",
		  "a line continued" },
		{ "[core]\n\tworktree = ../a # comment\n", "../a",
		  "a comment after it" },
		{ "[core]\n\tworktree =   ../a b  c  \n", "../a b  c",
		  "blanks inside kept, around dropped" },
		{ "[core]\r\n\tworktree = ../crlf\r\n", "../crlf", "CRLF" },
		{ "[core]\n\tworktree = ../one\n\tworktree = ../two\n",
		  "../two", "the last one wins" },
		{ "[core] worktree = ../same-line\n", "../same-line",
		  "a key on the section's line" },
		{ "[CORE]\n\tWorkTree = ../case\n", "../case",
		  "names in any case" },
		{ "\xef\xbb\xbf[core]\n\tworktree = ../bom\n", "../bom",
		  "a byte order mark" },
		{ "[core]\n\tworktree = ../nl", "../nl", "no newline at the end" },
		{ "[submodule \"x\"]\n\tworktree = ../no\n", "none",
		  "another section's worktree" },
		{ "[core \"sub\"]\n\tworktree = ../no\n", "none",
		  "a subsection of core" },
		{ "[submodule \"a]b\"]\n\tworktree = ../no\n[core]\n"
		  "\tworktree = ../yes\n", "../yes",
		  "']' inside a subsection's quotes" },
		{ "[core]\n\tbare\n\tworktree = ../after-a-boolean\n",
		  "../after-a-boolean", "a key without a value" },
		{ "[core]\n# worktree = ../no\n; worktree = ../no\n", "none",
		  "commented out" },
		{ "", "none", "empty" },
		{ "\n\n\n", "none", "blank lines" },
		{ "[core]\n\tworktree = \"../open\n", "refused",
		  "a quote not closed" },
		{ "[core]\n\tworktree = ../bad\\q\n", "refused",
		  "an escape git does not know" },
		{ "[core\n\tworktree = ../x\n", "refused", "a section not closed" },
		{ "[core]\n\t=x\n", "refused", "no key" },
		{ "[core]\n\t9key = x\n", "refused", "a key starting with a digit" },
		{ "[core]\n\tworktree ../x\n", "refused", "no '='" },
		{ "[core]\n\turl = \"open\n\tworktree = ../x\n", "refused",
		  "another key's quote not closed" },
	};
	const char *git;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(worktree(cases[i].cfg), cases[i].want, "%s",
		    cases[i].what);
	/* And as git itself reads each: the same. */
	git = access("/usr/bin/git", X_OK) == 0 ? "/usr/bin/git" :
	    access("/bin/git", X_OK) == 0 ? "/bin/git" : NULL;
	if (git == NULL) {
		skip("git is not installed: not compared with it");
		return;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(by_git(git, cases[i].cfg), cases[i].want,
		    "git reads it the same: %s", cases[i].what);
}

/* A value longer than the room for it is refused, not cut. */
static void
test_long(void)
{
	char cfg[9000], out[64];

	snprintf(cfg, sizeof(cfg), "%s", "[core]\n\tworktree = ");
	memset(cfg + strlen(cfg), 'a', 8000);
	cfg[8019] = '\0';
	is_int(shell_config_worktree(cfg, strlen(cfg), out, sizeof(out)), -1,
	    "a value longer than its room: refused");
}

/* Every string of up to 4 bytes of the characters that matter, and random
 * ones: each ends, and a value found fits its room. */
static void
test_ends(void)
{
	static const char alphabet[] = "[]\"\\\n\r\t #;=core worktree.\0";
	char buf[512], out[32];
	size_t n, i, k, len, alen = sizeof(alphabet) - 1;
	unsigned seed = 1;
	int bad = 0, rc;

	alarm(60);
	for (len = 0; len <= 4; len++) {
		for (n = 1, i = 0; i < len; i++)
			n *= alen;
		for (k = 0; k < n; k++) {
			size_t v = k;

			for (i = 0; i < len; i++, v /= alen)
				buf[i] = alphabet[v % alen];
			rc = shell_config_worktree(buf, len, out, sizeof(out));
			if (rc == 1 && strlen(out) >= sizeof(out))
				bad++;
		}
	}
	for (k = 0; k < 200000; k++) {
		len = (size_t)(rand_r(&seed) % sizeof(buf));
		for (i = 0; i < len; i++)
			buf[i] = rand_r(&seed) % 4 == 0 ? alphabet[rand_r(&seed)
			    % alen] : (char)rand_r(&seed);
		rc = shell_config_worktree(buf, len, out, sizeof(out));
		if (rc == 1 && strlen(out) >= sizeof(out))
			bad++;
	}
	alarm(0);
	is_int(bad, 0, "every input ends, and what is found fits");
}

int
main(void)
{
	test_values();
	test_long();
	test_ends();
	return done_testing();
}
