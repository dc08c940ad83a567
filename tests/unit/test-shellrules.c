/*
 * test-shellrules.c: toolcell-shell's [shell] section (shell_policy.c)
 * and its argument rules (shell_rules.c), without the server: policies
 * written into a scratch directory D (the working directory, so that
 * messages name "t.policy") and loaded as toolcell-shell loads them.
 *
 *	D/script.sh	#!/bin/sh, executable
 *	D/envscript	#!/usr/bin/env sh
 *	D/envopt	#!/usr/bin/env -S sh -e
 *	D/relscript	#!sh
 *	D/longline	a #! line longer than the kernel reads
 *	D/data		executable, but neither ELF nor #!
 *	D/noexec	a script without an execute bit
 *	D/git		a script to stand for git (names in messages are
 *			programs' as the policy writes them)
 *	D/helpers/	a script, a data file, a link to /bin/sh
 *	D/ex		$HOME for the shipped examples
 *
 * The programs named by name are coreutils' and findutils', which every
 * Debian system has.  In a policy's text and in expected messages, "@D@"
 * stands for D.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/strv.h"
#include "base/text.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "policyload.h"
#include "tap.h"

#include "../../servers/shell/shell.h"

/* 100 x's, a long word. */
#define X100	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" \
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

static char repo[PATH_MAX];		/* the working directory at start */

static const char *const shell_tools[] = { "run_command" };

/* The server whose policy is loaded: toolcell-shell, with its section. */
static int
pl_server(struct tc_policy *p, struct tc_diag *d)
{
	if (tc_policy_set_server(p, "toolcell-shell", shell_tools,
	    TC_NITEMS(shell_tools), TC_POLICY_F_JOBS) != 0 ||
	    tc_policy_set_section(p, &shell_policy_section, d) != 0)
		return -1;
	return 0;
}

/* The loaded [shell] section of |r|. */
#define SP(r)	shell_policy(&(r)->p)

/* A [shell] section valid but for its line 3, |line|, after |first|
 * (line 2): checks its one message. */
static void
bad_after(const char *first, const char *line, const char *msg)
{
	char text[2048], want[2048];

	snprintf(text, sizeof(text), "[shell]\n%s\n%s\n", first, line);
	snprintf(want, sizeof(want), "t.policy:3: %s\n", msg);
	invalid(text, want, line);
}

static void
bad_line(const char *line, const char *msg)
{
	bad_after("program cat", line, msg);
}

/* Returns the section's --check text for |r|; the caller frees it. */
static char *
printed(const struct result *r)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if ((f = open_memstream(&out, &len)) == NULL)
		abort();
	shell_policy_section.print(&r->p, SP(r), f);
	fclose(f);
	return out;
}

/* Returns 1 if |v| holds |s|. */
static int
has(char *const *v, const char *s)
{
	for (; v != NULL && *v != NULL; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

/* Writes where SHELL_PATH finds |name|, canonical, into |out|: the
 * specification, independent of shell_policy.c's own search. */
static int
expect_found(const char *name, char *out)
{
	static const char *const dirs[] = {
		"/usr/local/bin", "/usr/bin", "/bin"
	};
	char path[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; i < TC_NITEMS(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(path, X_OK) == 0)
			return realpath(path, out) != NULL ? 0 : -1;
	}
	return -1;
}

/* The ELF interpreter this test runs with, from the program headers the
 * dynamic linker loaded (not from a file). */
static int
own_interp(struct dl_phdr_info *info, size_t size, void *data)
{
	char *out = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP) {
			if (realpath((const char *)(info->dlpi_addr +
			    info->dlpi_phdr[i].p_vaddr), out) == NULL)
				out[0] = '\0';
			return 1;
		}
	return 1;		/* the first object is the program */
}

/* --- Loading --- */

static void
test_programs(void)
{
	char ls[PATH_MAX], sh[PATH_MAX], ld[PATH_MAX] = "";
	const struct shell_program *p;
	struct result r;

	valid(&r, "[shell]\n"
	    "program ls\n"
	    "program /usr/bin/cat read-only\n"
	    "program @D@/script.sh\n", "three programs");
	is_int(SP(&r)->nprograms, 3, "three programs");
	if (expect_found("ls", ls) != 0)
		abort();
	p = &SP(&r)->programs[0];
	is_str(p->name, "ls", "a bare name is kept");
	is_str(p->path, ls, "and resolved in SHELL_PATH, canonical");
	is_int(p->line, 2, "its line");
	is_int(p->readonly, 0, "not read-only");
	is_int(p->interpreter, 0, "not an interpreter");
	dl_iterate_phdr(own_interp, ld);
	if (ld[0] == '\0')
		skip("this test is linked statically: no PT_INTERP to "
		    "compare /bin/ls's with");
	else
		is_str(p->exec_also != NULL ? p->exec_also[0] : NULL, ld,
		    "ls: exec_also has its ELF interpreter (PT_INTERP)");
	ok(p->exec_also != NULL && p->exec_also[0] != NULL &&
	    p->exec_also[1] == NULL, "ls: exec_also is its interpreter alone");
	p = &SP(&r)->programs[1];
	is_str(p->name, "/usr/bin/cat", "a path is kept as written");
	is_int(p->readonly, 1, "read-only");
	ok(shell_program_find(SP(&r), "/usr/bin/cat") == p, "found by name");
	ok(shell_program_find(SP(&r), p->path) == p, "found by its path");
	ok(shell_program_find(SP(&r), "cat") == NULL, "not by a base name");
	ok(shell_program_find(SP(&r), "ls") == &SP(&r)->programs[0],
	    "ls found");
	ok(shell_program_find(SP(&r), ls) == &SP(&r)->programs[0],
	    "ls found by its path");
	ok(shell_program_find(SP(&r), "sh") == NULL, "sh is not allowed");
	p = &SP(&r)->programs[2];
	if (realpath("/bin/sh", sh) == NULL)
		abort();
	is_str(p->path, S("@D@/script.sh"), "a script");
	is_str(p->exec_also != NULL ? p->exec_also[0] : NULL, sh,
	    "a script's interpreter, first in exec_also, is its #! program");
	ok(has(p->exec_also, sh) && (ld[0] == '\0' || has(p->exec_also, ld)),
	    "exec_also: the shell and the shell's ELF interpreter");
	is_int(p->interpreter, 0, "a script is not an interpreter itself");
	release(&r);
}

/*
 * Another absolute path to a program's file, under its name, finds it:
 * /bin/ls for the /usr/bin/ls that "program ls" found (where /bin leads to
 * /usr/bin), a link to it named ls; not a link under another name, nor
 * another file named ls, nor a relative path.
 */
static void
test_same_file(void)
{
	char ls[PATH_MAX], cat[PATH_MAX], bin[PATH_MAX];
	const struct shell_program *p;
	struct result r;

	valid(&r, "[shell]\nprogram ls\nprogram cat\n", "ls and cat");
	if (expect_found("ls", ls) != 0 || expect_found("cat", cat) != 0)
		abort();
	p = &SP(&r)->programs[0];
	if (mkdir("same", 0755) != 0 || mkdir("same/a", 0755) != 0 ||
	    mkdir("same/b", 0755) != 0 || mkdir("same/ls", 0755) != 0 ||
	    symlink(ls, "same/a/ls") != 0 || symlink(ls, "same/a/dir") != 0 ||
	    symlink(cat, "same/b/ls") != 0) {
		perror("same");
		exit(2);
	}
	ok(shell_program_find(SP(&r), S("@D@/same/a/ls")) == p,
	    "a link named ls to its file");
	ok(shell_program_find(SP(&r), S("@D@/same/a/dir")) == NULL,
	    "not under another name");
	ok(shell_program_find(SP(&r), S("@D@/same/b/ls")) == NULL,
	    "not another file named ls (cat)");
	ok(shell_program_find(SP(&r), S("@D@/same/ls")) == NULL,
	    "not a directory named ls");
	ok(shell_program_find(SP(&r), "same/a/ls") == NULL,
	    "not a relative path");
	ok(shell_program_find(SP(&r), S("@D@/same/none/ls")) == NULL,
	    "not a path to nothing");
	ok(shell_program_find(SP(&r), "/") == NULL, "not /");
	if (realpath("/bin/ls", bin) != NULL && strcmp(bin, ls) == 0 &&
	    strcmp(ls, "/bin/ls") != 0)
		ok(shell_program_find(SP(&r), "/bin/ls") == p,
		    "/bin/ls, which leads to %s", ls);
	else
		skip("/bin/ls is not another path to ls's file here");
	release(&r);
}

/* A program under ~/ is named by its path, expanded. */
static void
test_home_program(void)
{
	struct result r;

	valid(&r, "[shell]\nprogram ~/script.sh\nargs ~/script.sh deny -x\n",
	    "a program under ~/");
	is_str(SP(&r)->programs[0].name, S("@D@/script.sh"), "named expanded");
	ok(SP(&r)->programs[0].deny != NULL, "its args line found it");
	ok(shell_program_find(SP(&r), S("@D@/script.sh")) != NULL,
	    "a call names it by that path");
	release(&r);
}

static void
test_env_script(void)
{
	char env[PATH_MAX], sh[PATH_MAX];
	const struct shell_program *p;
	struct result r;

	valid(&r, "program @D@/envscript\n", "#!/usr/bin/env sh");
	if (realpath("/usr/bin/env", env) == NULL ||
	    expect_found("sh", sh) != 0)
		abort();
	p = &SP(&r)->programs[0];
	is_str(p->exec_also != NULL ? p->exec_also[0] : NULL, env,
	    "its interpreter is env");
	ok(has(p->exec_also, env) && has(p->exec_also, sh),
	    "and env runs sh, found in SHELL_PATH: both in exec_also");
	release(&r);
}

static void
test_interpreters(void)
{
	struct result r;
	char *out;

	valid(&r, "[shell]\nprogram sh\nprogram awk\nprogram env\n",
	    "interpreters");
	is_int(SP(&r)->programs[0].interpreter, 1, "sh is a shell");
	is_int(SP(&r)->programs[1].interpreter, 1,
	    "awk is an interpreter (its system function)");
	is_int(SP(&r)->programs[2].interpreter, 0, "env is not");
	out = printed(&r);
	like(out, "  sh  ", "--check names sh");
	like(out, "    a shell or an interpreter: only the kernel sandbox "
	    "limits what it runs\n", "and says that only the kernel holds it");
	like(out, "    it starts other programs: the argument rules of what "
	    "it starts do not apply, only the kernel's list of what may "
	    "run\n", "env starts other programs");
	free(out);
	release(&r);
	ok(shell_is_interpreter("/usr/bin/python3.11"), "python3.11");
	ok(shell_is_interpreter("perl"), "perl");
	ok(shell_is_interpreter("/usr/bin/mawk"), "mawk");
	ok(!shell_is_interpreter("/usr/bin/git"), "not git");
	ok(!shell_is_interpreter("shred"), "not shred");
	ok(!shell_is_interpreter(NULL), "not NULL");
}

static void
test_program_errors(void)
{
	char ls[PATH_MAX], want[PATH_MAX * 3], line[PATH_MAX + 16];

	bad_line("program no-such-program-here",
	    "program no-such-program-here: not found in "
	    "/usr/local/bin:/usr/bin:/bin (or not executable): install it, "
	    "or write its absolute path");
	bad_line("program @D@/missing",
	    "program @D@/missing: No such file or directory");
	bad_line("program @D@/noexec", "program @D@/noexec: not executable");
	bad_line("program @D@", "program @D@: not a regular file");
	bad_line("program @D@/data", "program @D@/data: @D@/data: neither "
	    "an ELF executable nor a script starting with #!");
	bad_line("program @D@/relscript", "program @D@/relscript: "
	    "@D@/relscript: its interpreter 'sh' is not an absolute path");
	bad_line("program @D@/envopt", "program @D@/envopt: @D@/envopt: its "
	    "#! line runs env with '-S sh -e', which cannot be followed: "
	    "name the interpreter by its path");
	bad_line("program @D@/longline", "program @D@/longline: "
	    "@D@/longline: its #! line is longer than the 256 bytes the "
	    "kernel reads");
	bad_line("program ls write", "program ls: unexpected 'write' (only "
	    "'read-only' may follow the program)");
	bad_line("program", "program: missing the program: write a name "
	    "found in /usr/local/bin:/usr/bin:/bin, or an absolute path");
	bad_line("program ..", "program: '..' is not a program's name");
	bad_line("program bin/ls", "program: 'bin/ls' is a relative path: "
	    "write an absolute path (or one starting with ~/)");
	bad_after("program ls", "program ls", "program ls: already allowed "
	    "at line 2");
	if (expect_found("ls", ls) != 0)
		abort();
	tc_text_fmt(want, sizeof(want), "program %s: %s is already allowed as "
	    "'ls' at line 2", ls, ls);
	snprintf(line, sizeof(line), "program %s", ls);
	bad_after("program ls", line, want);
	/* A failed program's args lines are no errors of their own. */
	invalid("[shell]\nprogram @D@/missing\nargs @D@/missing deny -x\n",
	    "t.policy:2: program @D@/missing: No such file or directory\n",
	    "a missing program's args");
}

static void
test_args_errors(void)
{
	bad_line("args ls deny -x", "args ls: no 'program ls' line above "
	    "this one");
	bad_line("args cat", "args: write 'args PROGRAM KIND ...', KIND one "
	    "of subcommands, options, deny, no-dash-operands, prefix, "
	    "helpers");
	bad_line("args cat refuse -x", "args cat refuse: expected "
	    "'subcommands' (the first operand must be one of the words), "
	    "'options' (every option must match one of the patterns), "
	    "'deny' (no argument may match one of the patterns), "
	    "'no-dash-operands' (no operand after '--' may start with '-'), "
	    "'prefix' (arguments put first, after the program) or 'helpers' "
	    "(other programs, or directories of them, it may start), not "
	    "'refuse'");
	invalid("[shell]\nprogram cat\nargs cat deny -x\nargs cat deny -y\n",
	    "t.policy:4: args cat deny: already given at line 3 (one line of "
	    "each kind per program)\n", "an args kind twice");
	bad_line("args cat deny", "args cat deny: missing its patterns");
	bad_line("args cat subcommands", "args cat subcommands: missing its "
	    "words");
	bad_line("args cat subcommands a -b", "args cat subcommands: '-b' is "
	    "no subcommand: the subcommand is the first argument that does "
	    "not start with '-'");
	bad_line("args cat subcommands a a", "args cat subcommands: 'a' is "
	    "listed twice");
	bad_line("args cat options -n x", "args cat options: 'x' does not "
	    "start with '-': it would match no option");
	bad_line("args cat deny -[z-a]", "args cat deny: '-[z-a]': reversed "
	    "range 'z-a' in a class");
	bad_line("args cat no-dash-operands yes", "args cat no-dash-operands: "
	    "unexpected 'yes' at the end of the line");
	bad_line("args cat helpers @D@/missing", "args cat helpers: "
	    "@D@/missing: No such file or directory");
	bad_line("args cat helpers @D@/noexec", "args cat helpers: "
	    "@D@/noexec: not executable (a helper is an executable file or a "
	    "directory)");
	bad_line("args cat helpers rel", "args cat helpers: 'rel' is a "
	    "relative path: write an absolute path (or one starting with ~/)");
}

static void
test_helpers(void)
{
	char sh[PATH_MAX];
	const struct shell_program *p;
	struct result r;
	char *out;

	if (realpath("/bin/sh", sh) == NULL)
		abort();
	valid(&r, "[shell]\nprogram cat\nargs cat helpers @D@/helpers "
	    "@D@/script.sh\n", "helpers");
	p = &SP(&r)->programs[0];
	ok(has(p->helpers, S("@D@/helpers")) &&
	    has(p->helpers, S("@D@/script.sh")), "helpers kept, canonical");
	ok(has(p->exec_also, sh), "a helper script's shell joins exec_also");
	ok(p->exec_also != NULL && p->exec_also[0] != NULL &&
	    strcmp(p->exec_also[0], sh) != 0,
	    "but is not the program's interpreter");
	is_int(p->args_line[SHELL_ARGS_HELPERS], 3, "its line");
	out = printed(&r);
	like(out, S("    helpers @D@/helpers @D@/script.sh  (line 3)\n"),
	    "--check shows the helpers");
	like(out, sh, "and what they run with");
	like(out, " is a shell or an interpreter that every program here may "
	    "start: only the kernel sandbox limits what it runs\n",
	    "and says the shell may be started by every program");
	free(out);
	release(&r);
}

/* --- The environment --- */

static void
test_env(void)
{
	struct result r;
	char *out;

	valid(&r, "[shell]\nenv LANG LC_* TERM GIT_AUTHOR_NAME\n"
	    "env-set TZ=UTC \"GREETING=a b\" LC_ALL=C.UTF-8\n", "env");
	ok(shell_env_allowed(SP(&r), "LANG"), "LANG may be set");
	ok(shell_env_allowed(SP(&r), "LC_TIME"), "LC_TIME, by LC_*");
	ok(!shell_env_allowed(SP(&r), "LC_ALL"), "but not LC_ALL, which "
	    "env-set fixes");
	ok(shell_env_allowed(SP(&r), "GIT_AUTHOR_NAME"), "GIT_AUTHOR_NAME");
	ok(!shell_env_allowed(SP(&r), "LANGUAGE"), "not LANGUAGE");
	ok(!shell_env_allowed(SP(&r), "TZ"), "not TZ, which env-set fixes");
	ok(!shell_env_allowed(SP(&r), "LD_PRELOAD"), "not LD_PRELOAD");
	ok(!shell_env_allowed(SP(&r), "LC_ALL=x"), "not a malformed name");
	ok(!shell_env_allowed(SP(&r), ""), "not an empty name");
	ok(has(SP(&r)->env_fixed, "GREETING=a b"), "a quoted value");
	out = printed(&r);
	like(out, "  a call may set: LANG LC_* TERM GIT_AUTHOR_NAME  (line 2)\n",
	    "--check shows env");
	like(out, "  set for every program: TZ=UTC \"GREETING=a b\" "
	    "LC_ALL=C.UTF-8  (line 3)\n",
	    "and env-set");
	like(out, "  HOME  a new scratch directory for each call  (default)\n",
	    "and HOME");
	like(out, "  PATH  /usr/local/bin:/usr/bin:/bin  (fixed)\n", "and PATH");
	free(out);
	release(&r);

	valid(&r, "[shell]\n", "no env");
	ok(!shell_env_allowed(SP(&r), "LANG"), "nothing may be set");
	release(&r);
	ok(!shell_env_allowed(NULL, "LANG"), "nor without a policy");

	bad_line("env LD_PRELOAD", "env: 'LD_PRELOAD' is one of 'LD_*', names "
	    "that are never passed (see toolcell-policy(5)); name the "
	    "variables, or start the pattern with more of their name");
	bad_line("env BASH_ENV", "env: 'BASH_ENV' is never passed: a program "
	    "it reaches would load code or configuration from where it says, "
	    "or run a command");
	bad_line("env ENV", "env: 'ENV' is never passed: a program it reaches "
	    "would load code or configuration from where it says, or run a "
	    "command");
	bad_line("env GIT_CONFIG_PARAMETERS", "env: 'GIT_CONFIG_PARAMETERS' "
	    "is one of 'GIT_*', names that are never passed (see "
	    "toolcell-policy(5)); name the variables, or start the pattern "
	    "with more of their name");
	bad_line("env L*", "env: 'L*' could match 'LD_*', names that are "
	    "never passed (see toolcell-policy(5)); name the variables, or "
	    "start the pattern with more of their name");
	bad_line("env *", "env: '*' could match PATH, which the server sets "
	    "(PATH to /usr/local/bin:/usr/bin:/bin, HOME by 'home')");
	bad_line("env GIT_AUTHOR_*", "env: 'GIT_AUTHOR_*' could match 'GIT_*', "
	    "names that are never passed (see toolcell-policy(5)); name the "
	    "variables, or start the pattern with more of their name");
	bad_line("env TAR_OPTIONS", "env: 'TAR_OPTIONS' is never passed: a "
	    "program it reaches would load code or configuration from where "
	    "it says, or run a command");
	bad_line("env OPENSSL_CONF", "env: 'OPENSSL_CONF' is never passed: a "
	    "program it reaches would load code or configuration from where "
	    "it says, or run a command");
	bad_line("env PATH", "env: 'PATH' is PATH, which the server sets "
	    "(PATH to /usr/local/bin:/usr/bin:/bin, HOME by 'home')");
	bad_line("env 1X", "env: '1X' is not a variable's name (letters, "
	    "digits and '_', not first a digit)");
	bad_line("env", "env: missing the names a call may set (patterns "
	    "allowed: LC_*)");
	bad_after("env A", "env B", "env: already set at line 2");
	bad_line("env-set LD_LIBRARY_PATH=/opt", "env-set: LD_LIBRARY_PATH is "
	    "never passed (it is one of 'LD_*'): a program it reaches would "
	    "load code or configuration from where it says, or run a "
	    "command");
	bad_line("env-set HOME=/x", "env-set: HOME is the server's to set "
	    "(PATH to /usr/local/bin:/usr/bin:/bin, HOME by 'home')");
	bad_line("env-set TZ", "env-set: 'TZ' is not NAME=VALUE (NAME "
	    "letters, digits and '_', not first a digit)");
	bad_line("env-set A=1 A=2", "env-set: A is set twice");
	invalid("[shell]\nenv TZ\nenv-set TZ=UTC\n",
	    "t.policy: env TZ: env-set fixes it: a call cannot change it\n",
	    "env and env-set name one variable");
}

static void
test_home_output(void)
{
	struct result r;
	char *out;

	valid(&r, "[shell]\nhome @D@/helpers\noutput 1M\n", "home, output");
	is_str(SP(&r)->home, S("@D@/helpers"), "home");
	is_int(SP(&r)->max_output, 1 << 20, "output");
	out = printed(&r);
	like(out, S("  HOME  @D@/helpers  (line 2)\n"), "--check: home");
	like(out, "output: 1M per stream, stdout and stderr each  (line 3)\n",
	    "--check: output");
	free(out);
	release(&r);
	valid(&r, "[shell]\nhome scratch\n", "home scratch");
	ok(SP(&r)->home == NULL, "scratch: no home of the policy's");
	is_int(SP(&r)->max_output, 8 << 20, "output: 8M by default");
	release(&r);
	ok(shell_policy(NULL)->max_output == 8 << 20 &&
	    shell_policy(NULL)->nprograms == 0, "no policy: the defaults");
	bad_line("home @D@/script.sh", "home: @D@/script.sh: not a directory");
	bad_line("home @D@/missing", "home: @D@/missing: No such file or "
	    "directory");
	bad_line("home rel", "home: 'rel' is a relative path: write an "
	    "absolute path (or one starting with ~/)");
	bad_line("home", "home: missing a directory, or 'scratch' (a new one "
	    "for each call)");
	bad_line("output 512", "output: '512' is out of range: 1K to 256M");
}

/* --- Argument rules --- */

/* The rules' policy: D/git stands for git, so its name is its path. */
static const char rules_policy[] =
	"[shell]\n"
	"program @D@/git\n"
	"args @D@/git subcommands status log diff\n"
	"args @D@/git deny -c --config-env --exec-path* --upload-pack "
	"--output\n"
	"args @D@/git prefix -c core.fsmonitor= -c core.hooksPath=/dev/null "
	"--no-pager\n"
	"program find\n"
	"args find deny -exec -execdir -ok -okdir -delete -fprint* -fls\n"
	"program ls\n"
	"args ls options -l -a -h --color\n"
	"program cat\n"
	"args cat no-dash-operands\n"
	"program sort\n"
	"args sort deny --compress-program\n";

/* Runs the rules on |argv| (NULL-terminated): checks the return code
 * and, for a refusal, the message (subst()), else the argv to run. */
static void
check(const struct shell_policy *sp, const char *const *argv, int want_rc,
    const char *want, const char *what)
{
	const struct shell_program *prog = (void *)1;
	struct tc_diag d = { "", 0 };
	struct tc_buf got;
	char **run = (void *)1, *w = subst(want), *args[16];
	size_t argc = 0, i;
	int rc;

	for (; argv[argc] != NULL; argc++)
		if (argc == TC_NITEMS(args) - 1 ||
		    (args[argc] = subst(argv[argc])) == NULL)
			abort();
	args[argc] = NULL;
	rc = shell_rules_check(sp, (const char *const *)args, argc, &prog,
	    &run, &d);
	is_int(rc, want_rc, "%s: returns %s", what, tc_errname(want_rc));
	if (want_rc != 0) {
		is_str(d.msg, w, "%s: says why", what);
		ok(prog == NULL && run == NULL, "%s: outputs cleared", what);
	} else {
		tc_buf_init(&got, 1u << 16);
		for (i = 0; run != NULL && run[i] != NULL; i++)
			tc_buf_printf(&got, "%s%s", i > 0 ? " " : "", run[i]);
		is_str(got.data, w, "%s: runs", what);
		ok(prog != NULL && prog == shell_program_find(sp, args[0]),
		    "%s: the program", what);
		tc_buf_release(&got);
		tc_strv_free(run);
	}
	for (i = 0; i < argc; i++)
		free(args[i]);
	free(w);
}

#define ARGV(...)	((const char *const[]){ __VA_ARGS__, NULL })
#define DENIED		TC_EDENIED

static void
test_rules(void)
{
	char find[PATH_MAX], ls[PATH_MAX], cat[PATH_MAX], want[PATH_MAX * 4];
	const struct shell_program *prog;
	struct tc_diag d = { "", 0 };
	const struct shell_policy *sp;
	struct result r;
	char **run;

	valid(&r, rules_policy, "the rules' policy");
	sp = SP(&r);
	if (expect_found("find", find) != 0 || expect_found("ls", ls) != 0 ||
	    expect_found("cat", cat) != 0)
		abort();

	/* The program. */
	is_int(shell_rules_check(sp, ARGV("ls"), 0, &prog, &run, &d),
	    TC_EINVAL, "an empty argv");
	is_str(d.msg, "argv is empty: its first string names the program to "
	    "run", "says so");
	is_int(shell_rules_check(NULL, ARGV("ls"), 1, &prog, &run, &d),
	    TC_EDENIED, "no policy: nothing runs");
	is_str(d.msg, "'ls' is not a program this server runs: its policy "
	    "allows none", "says so");
	check(sp, ARGV("bash", "-c", "id"), DENIED, "'bash' is not a program "
	    "this server runs (it runs: @D@/git, find, ls, cat, sort)",
	    "a program the policy does not name");
	check(sp, ARGV("/usr/bin/../bin/ls"), 0, ls, "another path to the "
	    "same file runs the resolved one");
	check(sp, ARGV("/usr/bin/../bin/rm"), DENIED, "'/usr/bin/../bin/rm' "
	    "is not a program this server runs (it runs: @D@/git, find, ls, "
	    "cat, sort)", "a path to a file that is none of them");
	check(sp, ARGV("ev\x1b[1mil"), DENIED, "'ev\\u001B[1mil' is not a "
	    "program this server runs (it runs: @D@/git, find, ls, cat, "
	    "sort)", "what the model wrote is shown escaped");
	check(sp, ARGV("ls -l  sub"), DENIED, "'ls -l  sub' is not a program "
	    "this server runs (it runs: @D@/git, find, ls, cat, sort): argv "
	    "holds one string per argument, as [\"ls\", \"-l\", \"sub\"], "
	    "and no shell splits them", "a command line as argv[0]: its "
	    "argv shown");
	check(sp, ARGV("ls " X100 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx tail1 tail2"),
	    DENIED, "'ls " X100 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx tail1 tail2' "
	    "is not a program this server runs (it runs: @D@/git, find, ls, "
	    "cat, sort): argv holds one string per argument, as [\"ls\", "
	    "\"" X100 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", \"tail1\", ...], "
	    "and no shell splits them", "a long command line: cut, and "
	    "marked so");
	check(sp, ARGV("ls *.c"), DENIED, "'ls *.c' is not a program this "
	    "server runs (it runs: @D@/git, find, ls, cat, sort)",
	    "not when a shell would read it otherwise");
	check(sp, ARGV("rm -rf x"), DENIED, "'rm -rf x' is not a program this "
	    "server runs (it runs: @D@/git, find, ls, cat, sort)",
	    "not when its first word is no program of the policy");
	snprintf(want, sizeof(want), "%s -l", ls);
	check(sp, ARGV(ls, "-l"), 0, want, "named by its resolved path");

	/* deny: whole arguments, wherever they are. */
	check(sp, ARGV("find", ".", "-exec", "sh", ";"), DENIED, "find: "
	    "'-exec' is refused: the policy denies arguments matching "
	    "'-exec'", "find -exec");
	check(sp, ARGV("find", ".", "-execdir", "sh", ";"), DENIED, "find: "
	    "'-execdir' is refused: the policy denies arguments matching "
	    "'-execdir'", "find -execdir, listed apart");
	check(sp, ARGV("find", ".", "-fprintf", "x", "%p"), DENIED, "find: "
	    "'-fprintf' is refused: the policy denies arguments matching "
	    "'-fprint*'", "a pattern");
	check(sp, ARGV("find", "--", ".", "-delete"), DENIED, "find: "
	    "'-delete' is refused: the policy denies arguments matching "
	    "'-delete'", "after '--' too");
	snprintf(want, sizeof(want), "%s . -name *.c -print", find);
	check(sp, ARGV("find", ".", "-name", "*.c", "-print"), 0, want,
	    "find without them");

	/* deny: --name=value, abbreviations, clusters. */
	check(sp, ARGV("@D@/git", "--upload-pack=touch x", "status"),
	    DENIED, "@D@/git: '--upload-pack=touch x' is refused: the policy "
	    "denies the option '--upload-pack' (pattern '--upload-pack')",
	    "--name=value");
	check(sp, ARGV("@D@/git", "--exec-path=/tmp", "status"), DENIED,
	    "@D@/git: '--exec-path=/tmp' is refused: the policy denies "
	    "arguments matching '--exec-path*'", "a pattern over the whole");
	check(sp, ARGV("@D@/git", "--config-env=core.pager=X", "log"),
	    DENIED, "@D@/git: '--config-env=core.pager=X' is refused: the "
	    "policy denies the option '--config-env' (pattern "
	    "'--config-env')", "--config-env=");
	check(sp, ARGV("@D@/git", "--upload=x", "status"), DENIED,
	    "@D@/git: '--upload=x' is refused: '--upload' may abbreviate "
	    "'--upload-pack', which the policy denies", "an abbreviation");
	check(sp, ARGV("sort", "--compress-prog=sh", "f"), DENIED, "sort: "
	    "'--compress-prog=sh' is refused: '--compress-prog' may "
	    "abbreviate '--compress-program', which the policy denies",
	    "sort --compress-prog=");
	check(sp, ARGV("@D@/git", "log", "--out"), DENIED, "@D@/git: '--out' "
	    "is refused: '--out' may abbreviate '--output', which the policy "
	    "denies", "an abbreviation without a value");
	check(sp, ARGV("@D@/git", "--exec-pa=/tmp", "status"), DENIED,
	    "@D@/git: '--exec-pa=/tmp' is refused: '--exec-pa' may "
	    "abbreviate an option matching '--exec-path*', which the policy "
	    "denies", "an abbreviation of a pattern's option, with a value");
	check(sp, ARGV("@D@/git", "--exe", "status"), DENIED,
	    "@D@/git: '--exe' is refused: '--exe' may abbreviate an option "
	    "matching '--exec-path*', which the policy denies",
	    "an abbreviation of a pattern's option, alone");
	/* A "--name" longer than what is read on the stack: the same. */
	memset(want, 'z', 400);
	memcpy(want, "--", 2);
	memcpy(want + 398, "=x", 3);
	if (is_int(shell_rules_check(sp, ARGV("sort", want), 2, &prog, &run,
	    &d), 0, "a long --name=value that no pattern refuses: runs")) {
		is_str(run[1], want, "as it was given");
		tc_strv_free(run);
	}
	check(sp, ARGV("@D@/git", "log", "--exit-code"), 0,
	    "@D@/git -c core.fsmonitor= -c core.hooksPath=/dev/null "
	    "--no-pager log --exit-code", "an option that abbreviates none "
	    "of them passes");
	check(sp, ARGV("@D@/git", "-c", "alias.x=!sh", "x"), DENIED,
	    "@D@/git: '-c' is refused: the policy denies arguments matching "
	    "'-c'", "git -c");
	check(sp, ARGV("@D@/git", "-pc", "x=y", "status"), DENIED, "@D@/git: "
	    "'-pc' is refused: as a cluster of short options or an option "
	    "with its value attached, it may hold '-c', which the policy "
	    "denies (write each option apart, and an option's value as an "
	    "argument of its own)", "a cluster holding -c");
	check(sp, ARGV("@D@/git", "-calias.x=!sh", "x"), DENIED, "@D@/git: "
	    "'-calias.x=!sh' is refused: as a cluster of short options or an "
	    "option with its value attached, it may hold '-c', which the "
	    "policy denies (write each option apart, and an option's value as "
	    "an argument of its own)", "-c with its value attached");
	check(sp, ARGV("@D@/git", "log", "-Scache"), DENIED, "@D@/git: "
	    "'-Scache' is refused: as a cluster of short options or an option "
	    "with its value attached, it may hold '-c', which the policy "
	    "denies (write each option apart, and an option's value as an "
	    "argument of its own)", "a value holding the letter");
	check(sp, ARGV("@D@/git", "log", "-S", "cache"), 0,
	    "@D@/git -c core.fsmonitor= -c core.hooksPath=/dev/null "
	    "--no-pager log -S cache", "passes written apart, with the prefix");
	check(sp, ARGV("@D@/git", "log", "--oneline", "--", "-c"), DENIED,
	    "@D@/git: '-c' is refused: the policy denies arguments matching "
	    "'-c'", "denied after '--' as well");

	/* subcommands. */
	check(sp, ARGV("@D@/git", "push"), DENIED, "@D@/git: 'push' is not an "
	    "allowed subcommand (allowed: status, log, diff)", "git push");
	check(sp, ARGV("@D@/git", "--no-pager", "push", "origin"), DENIED,
	    "@D@/git: 'push' is not an allowed subcommand (allowed: status, "
	    "log, diff)", "after an option");
	check(sp, ARGV("@D@/git", "--", "push"), DENIED, "@D@/git: 'push' is "
	    "not an allowed subcommand (allowed: status, log, diff)",
	    "after '--'");
	check(sp, ARGV("@D@/git", "-C", "/", "status"), DENIED, "@D@/git: '/' "
	    "is not an allowed subcommand (allowed: status, log, diff)",
	    "an option's value apart is taken for the subcommand");
	check(sp, ARGV("@D@/git", "--namespace", "status", "clean", "-fdx"),
	    DENIED, "@D@/git: the option '--namespace' comes before the "
	    "subcommand 'status', where it may take the next word as its "
	    "value and make another word the subcommand; write options "
	    "after the subcommand (or as --name=value)",
	    "an option before an allowed subcommand: its value may be it");
	check(sp, ARGV("@D@/git", "--no-pager", "log"), DENIED, "@D@/git: the "
	    "option '--no-pager' comes before the subcommand 'log', where it "
	    "may take the next word as its value and make another word the "
	    "subcommand; write options after the subcommand (or as "
	    "--name=value)", "any option without its value attached");
	check(sp, ARGV("@D@/git", "-p", "--namespace", "--", "status", "clean"),
	    DENIED, "@D@/git: the option '-p' comes before the subcommand "
	    "'status', where it may take the next word as its value and make "
	    "another word the subcommand; write options after the subcommand "
	    "(or as --name=value)", "the first option is named, after '--' "
	    "too");
	check(sp, ARGV("@D@/git", "--git-dir=/x", "--work-tree=/y", "status"),
	    0, "@D@/git -c core.fsmonitor= -c core.hooksPath=/dev/null "
	    "--no-pager --git-dir=/x --work-tree=/y status",
	    "--name=value before the subcommand passes");
	check(sp, ARGV("@D@/git", "log", "--no-pager", "-p", "status"), 0,
	    "@D@/git -c core.fsmonitor= -c core.hooksPath=/dev/null "
	    "--no-pager log --no-pager -p status",
	    "options after the subcommand pass");
	check(sp, ARGV("@D@/git", "diff", "push"), 0, "@D@/git -c "
	    "core.fsmonitor= -c core.hooksPath=/dev/null --no-pager diff "
	    "push", "only the first operand is the subcommand");
	check(sp, ARGV("@D@/git", "--version"), 0, "@D@/git -c "
	    "core.fsmonitor= -c core.hooksPath=/dev/null --no-pager "
	    "--version", "no subcommand at all");

	/* options. */
	snprintf(want, sizeof(want), "%s -la --color=auto -h -- -R", ls);
	check(sp, ARGV("ls", "-la", "--color=auto", "-h", "--", "-R"), 0,
	    want, "allowed options, a cluster of them, --name=value");
	check(sp, ARGV("ls", "-R", "/"), DENIED, "ls: '-R' is not an allowed "
	    "option (allowed: -l, -a, -h, --color)", "an option not listed");
	check(sp, ARGV("ls", "-lR"), DENIED, "ls: '-lR' is not an allowed "
	    "option (allowed: -l, -a, -h, --color; a cluster passes if each "
	    "letter is an allowed option of its own)", "a cluster with one");
	check(sp, ARGV("ls", "--colour"), DENIED, "ls: '--colour' is not an "
	    "allowed option (allowed: -l, -a, -h, --color)",
	    "no abbreviation or spelling of an allowed one");

	/* no-dash-operands. */
	check(sp, ARGV("cat", "--", "-n"), DENIED, "cat: the operand '-n' is "
	    "refused: the policy lets no operand of cat start with '-' (after "
	    "'--' too)", "after '--'");
	check(sp, ARGV("cat", "--", "--"), DENIED, "cat: the operand '--' is "
	    "refused: the policy lets no operand of cat start with '-' (after "
	    "'--' too)", "a second '--' is an operand");
	check(sp, ARGV("cat", "-"), DENIED, "cat: the operand '-' is refused: "
	    "the policy lets no operand of cat start with '-'", "'-' alone");
	snprintf(want, sizeof(want), "%s -n -- a", cat);
	check(sp, ARGV("cat", "-n", "--", "a"), 0, want,
	    "options before '--' are options");
	release(&r);
}

/* --- --check --- */

static void
test_print(void)
{
	struct result r;
	char *out;

	valid(&r, rules_policy, "the rules' policy");
	out = printed(&r);
	like(out, "programs:\n", "a heading");
	like(out, S("  @D@/git  @D@/git  (line 2)\n"), "a program, its "
	    "path and line");
	like(out, "    subcommands status log diff  (line 3)\n",
	    "its subcommands");
	like(out, "    deny -c --config-env --exec-path* --upload-pack "
	    "--output  (line 4)\n", "what it denies");
	like(out, "    prefix -c core.fsmonitor= -c core.hooksPath=/dev/null "
	    "--no-pager  (line 5)\n", "its prefix");
	like(out, "    options -l -a -h --color  (line 9)\n", "options");
	like(out, "    no-dash-operands  (line 11)\n", "no-dash-operands");
	like(out, "    also executes: ", "what it runs with");
	like(out, "  note: an ELF interpreter (ld.so) is executable as well; "
	    "run directly, \"ld.so FILE\", it runs any ELF file a call can "
	    "read", "and what that means");
	like(out, "  find  ", "find");
	like(out, "    it starts other programs", "find starts programs");
	free(out);
	release(&r);

	valid(&r, "[shell]\n", "no programs");
	out = printed(&r);
	like(out, "programs: none\n", "none");
	free(out);
	release(&r);
}

/* --- Once the roots are known --- */

static void
test_verify(void)
{
	struct result r;
	struct tc_buf msgs;

	tc_buf_init(&msgs, 1u << 16);
	valid(&r, "allow write @D@/helpers\nallow read @D@\n[shell]\n"
	    "program cat\nprogram @D@/script.sh\n"
	    "args @D@/script.sh helpers @D@/helpers/run\n", "programs and "
	    "roots");
	is_int(shell_policy_verify(&r.p, collect, &msgs), 1, "one reported");
	is_str(msgs.data, S("program @D@/script.sh (line 5): its helper "
	    "@D@/helpers/run lies beneath the writable directory @D@/helpers "
	    "(line 1): a call could replace what it runs\n"), "the helper "
	    "in a writable directory");
	release(&r);
	tc_buf_release(&msgs);
	valid(&r, "allow read @D@\n[shell]\nprogram @D@/script.sh\n",
	    "read-only");
	is_int(shell_policy_verify(&r.p, NULL, NULL), 0, "none beneath a "
	    "read-only directory");
	release(&r);

	/* A helpers directory is executable with all beneath it: a
	 * writable directory there, or the calls' scratch directories,
	 * would let a call run what it wrote. */
	{
		char *build = subst("@D@/helpers/build");
		char *tmp = subst("@D@/helpers/tmp");
		const char *old_tmp = getenv("TMPDIR");
		char *saved = old_tmp != NULL ? strdup(old_tmp) : NULL;

		(void)mkdir(build, 0755);
		(void)mkdir(tmp, 0755);
		tc_buf_reset(&msgs);
		valid(&r, "allow write @D@/helpers/build\nallow read @D@\n"
		    "[shell]\nprogram @D@/script.sh\n"
		    "args @D@/script.sh helpers @D@/helpers\n",
		    "a helpers directory above a writable one");
		is_int(shell_policy_verify(&r.p, collect, &msgs), 1,
		    "a writable directory beneath a helpers directory: "
		    "reported");
		is_str(msgs.data, S("program @D@/script.sh (line 4): its "
		    "helper @D@/helpers holds the writable directory "
		    "@D@/helpers/build (line 1): a call could run what it "
		    "wrote there\n"), "it says which");
		release(&r);
		setenv("TMPDIR", tmp, 1);
		valid(&r, "allow read @D@\n[shell]\nprogram @D@/script.sh\n"
		    "args @D@/script.sh helpers @D@/helpers\n",
		    "a helpers directory above the scratch directories");
		is_int(shell_policy_verify(&r.p, NULL, NULL), 1, "the scratch "
		    "directories beneath a helpers directory: reported");
		release(&r);
		/* The same directory, named by TMPDIR through a link: the
		 * scratch directories are made where the link leads. */
		{
			char *link = subst("@D@/tmplink");

			(void)unlink(link);
			ok(symlink(tmp, link) == 0, "a link to it");
			setenv("TMPDIR", link, 1);
			valid(&r, "allow read @D@\n[shell]\nprogram "
			    "@D@/script.sh\nargs @D@/script.sh helpers "
			    "@D@/helpers\n", "TMPDIR a link into a helpers "
			    "directory");
			is_int(shell_policy_verify(&r.p, NULL, NULL), 1,
			    "the scratch directories beneath a helpers "
			    "directory, TMPDIR a link there: reported");
			release(&r);
			(void)unlink(link);
			free(link);
		}
		if (saved != NULL)
			setenv("TMPDIR", saved, 1);
		else
			unsetenv("TMPDIR");
		free(saved);
		free(build);
		free(tmp);
	}
	tc_buf_release(&msgs);
}

/* --- Deny patterns that let abbreviations through --- */

static void
test_warn(void)
{
	struct result r;
	struct tc_buf msgs;

	tc_buf_init(&msgs, 1u << 16);
	valid(&r, "[shell]\nprogram @D@/git\n"
	    "args @D@/git deny -c *upload-pack* --exec* -x ?x * -* *--* "
	    "*receive-pack\n", "deny patterns of every shape");
	is_int(shell_rules_warn(SP(&r), "t.policy", collect, &msgs), 2,
	    "two reported");
	is_str(msgs.data, S("t.policy:3: args @D@/git deny '*upload-pack*' "
	    "matches long options but refuses none of their abbreviations, "
	    "which getopt_long(3) takes ('--upl' for '--upload-pack'): only "
	    "a pattern that starts with '--' refuses them; write the option "
	    "so, such as '--upload-pack*'\n"
	    "t.policy:3: args @D@/git deny '*receive-pack' matches long "
	    "options but refuses none of their abbreviations, which "
	    "getopt_long(3) takes ('--upl' for '--upload-pack'): only a "
	    "pattern that starts with '--' refuses them; write the option "
	    "so, such as '--receive-pack'\n"), "a pattern that does not "
	    "start with '--' but matches long options; not one that does, "
	    "nor one that matches no long option ('-c', '-x', '?x'), nor "
	    "one that matches every one ('*', '-*', '*--*')");
	release(&r);
	/* What the warning is about: the rules let the abbreviation
	 * through, and refuse it written as the warning says. */
	valid(&r, "[shell]\nprogram @D@/git\n"
	    "args @D@/git deny *upload-pack*\n", "the pattern alone");
	check(SP(&r), ARGV("@D@/git", "ls-remote", "--upl=x", "."), 0,
	    "@D@/git ls-remote --upl=x .", "'--upl=x' passes '*upload-pack*'");
	release(&r);
	valid(&r, "[shell]\nprogram @D@/git\n"
	    "args @D@/git deny --upload-pack*\n", "written as suggested");
	is_int(shell_rules_warn(SP(&r), "t.policy", NULL, NULL), 0,
	    "nothing reported");
	check(SP(&r), ARGV("@D@/git", "ls-remote", "--upl=x", "."), DENIED,
	    "@D@/git: '--upl=x' is refused: '--upl' may abbreviate an option "
	    "matching '--upload-pack*', which the policy denies",
	    "'--upl=x' is refused by '--upload-pack*'");
	release(&r);
	tc_buf_release(&msgs);
}

/* --- The shipped examples --- */

static void
test_examples(void)
{
	static const char *const names[] = {
		"shell-readonly.policy", "shell-build.policy",
	};
	struct tc_buf text;
	struct result r;
	char path[PATH_MAX * 2], buf[4096], *line, *next;
	size_t i, n;
	int missing;
	FILE *f;

	setenv("HOME", S("@D@/ex"), 1);
	for (i = 0; i < TC_NITEMS(names); i++) {
		snprintf(path, sizeof(path), "%s/policy/examples/%s", repo,
		    names[i]);
		if ((f = fopen(path, "r")) == NULL) {
			skip("run from the top of the tree to check the "
			    "examples");
			continue;
		}
		tc_buf_init(&text, 1u << 20);
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			tc_buf_append(&text, buf, n);
		fclose(f);
		load(&r, text.data);
		/* A program the machine lacks is its error to report, not
		 * the example's. */
		missing = r.rc != 0;
		for (line = r.errs.data; missing && *line != '\0';
		    line = next) {
			next = strchr(line, '\n');
			next = next != NULL ? next + 1 : line + strlen(line);
			if (strstr(line, ": not found in ") == NULL ||
			    strncmp(strstr(line, ": ") + 2, "program ", 8) != 0)
				missing = 0;
		}
		if (missing) {
			printf("# %s", r.errs.data);
			skip("a program the example names is not installed");
		} else {
			is_int(r.rc, 0, "%s: loads", names[i]);
			is_str(r.errs.data, "", "%s: no errors", names[i]);
			is_int(shell_rules_warn(SP(&r), names[i], NULL, NULL),
			    0, "%s: every deny pattern of a long option "
			    "refuses its abbreviations", names[i]);
			ok(SP(&r)->nprograms > 0, "%s: names programs",
			    names[i]);
		}
		release(&r);
		tc_buf_release(&text);
	}
	setenv("HOME", D, 1);
}

/* --- The scratch directory --- */

static void
setup(void)
{
	char line[400];

	policy_scratch("test-shellrules");
	must(mkdir("helpers", 0755) != 0 || mkdir("ex", 0755) != 0 ||
	    mkdir("ex/src", 0755) != 0 || mkdir("ex/src/project", 0755) != 0,
	    "mkdir");
	put("script.sh", "#!/bin/sh\necho hi\n", 0755);
	put("git", "#!/bin/sh\necho git\n", 0755);
	put("envscript", "#!/usr/bin/env sh\necho hi\n", 0755);
	put("envopt", "#!/usr/bin/env -S sh -e\necho hi\n", 0755);
	put("relscript", "#!sh\necho hi\n", 0755);
	memset(line, 'a', sizeof(line));
	memcpy(line, "#!/", 3);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	put("longline", line, 0755);
	put("data", "hello\n", 0755);
	put("noexec", "#!/bin/sh\n", 0644);
	put("helpers/run", "#!/bin/sh\necho run\n", 0755);
	put("helpers/notes", "not a program\n", 0755);
	if (symlink("/bin/sh", "helpers/sh") != 0) {
		perror("symlink");
		exit(2);
	}
}

int
main(void)
{
	if (getcwd(repo, sizeof(repo)) == NULL)
		repo[0] = '\0';
	setup();
	setenv("HOME", D, 1);
	test_programs();
	test_same_file();
	test_home_program();
	test_env_script();
	test_interpreters();
	test_program_errors();
	test_args_errors();
	test_helpers();
	test_env();
	test_home_output();
	test_rules();
	test_print();
	test_verify();
	test_warn();
	test_examples();
	if (chdir("/") == 0)
		tree_remove();
	return done_testing();
}
