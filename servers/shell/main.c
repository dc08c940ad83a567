/*
 * toolcell-shell: runs the programs its policy allows, by absolute path
 * and with an argv (never a shell string), each call in a child the kernel
 * confines (shell_profile.c).  The argument rules of the policy's [shell]
 * section are the first line, checked in the server before anything is
 * forked and again in the child; the kernel is the guard.  docs/shell.md
 * describes the design.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strv.h"
#include "base/text.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "policy/subject.h"
#include "sandbox/pids.h"
#include "sandbox/profile.h"
#include "sandbox/stream.h"
#include "serve/job.h"
#include "serve/server.h"
#include "shell.h"

#define ARGV_MAX	4096		/* arguments of one call */
#define ARG_MAX_LEN	(128u << 10)	/* bytes of one: the kernel's
					   MAX_ARG_STRLEN */
#define STDIN_MAX	(8u << 20)	/* half the default message cap */
#define ENV_MAX		64		/* variables a call sets */
#define ENV_NAME_MAX	128
#define ENV_VALUE_MAX	32768
/* HOME should a call have no scratch directory (a policy checked, not
 * served): one that does not exist. */
#define HOME_NONE	"/nonexistent"
/* Programs run with the C library's UTF-8 character set: LC_CTYPE names
 * its UTF-8 locale, by the name its locale directory has.  glibc tries a
 * name as given before its normal form, and since 2.35 (Debian 12) the
 * built-in one is "C.utf8", so "C.UTF-8" costs each program's
 * setlocale() a failed open before it finds it; where only "C.UTF-8" is
 * there (older Debian), that name.  Chosen once at start (shell_ready()).
 * LC_CTYPE rather than LANG: every other category of that locale holds
 * what the C locale's does (collation by code point, English messages,
 * "." as the decimal point) but for its label of the character set, and
 * the C locale's need no file, so a program's setlocale() loads one
 * category rather than twelve (a /bin/echo here: 0.58-0.60 ms of CPU
 * against 0.69-0.71; "C" alone 0.52-0.54).  Dropped where the policy or
 * the call sets LANG or LC_ALL (make_env()), as a LANG of ours would
 * have given way to theirs. */
#define SHELL_LANG	"C.UTF-8"
#define SHELL_LANG_GLIBC "C.utf8"
#define SHELL_LANG_DIR	"/usr/lib/locale/" SHELL_LANG_GLIBC
static const char *shell_lang = SHELL_LANG;
/* A job's terminal: what most terminals say they are, an entry every
 * terminfo database has (ncurses-base), beneath the system directories
 * a call reads.  Its size is the terminal's own, 80x24 (TIOCGWINSZ): no
 * COLUMNS or LINES, which would override a size the program sets. */
#define SHELL_TERM	"xterm-256color"

/* --- The tools --- */

/* run_command's arguments, and start_command's first. */
#define RUN_ARGS							\
	{ .name = "argv", .type = TC_ARG_STRING_ARRAY,			\
	  .flags = TC_ARG_REQUIRED, .max_len = ARGV_MAX,		\
	  .item_max_len = ARG_MAX_LEN,					\
	  .description = "The program and its arguments, one string each: " \
	      "argv[0] is a program the policy allows, by name (\"git\") or " \
	      "path. No shell reads them: pipes, redirections, globs, "	\
	      "quotes and $VARIABLES are passed as they are." },	\
	{ .name = "cwd", .type = TC_ARG_STRING,				\
	  .flags = TC_ARG_NONEMPTY | TC_ARG_NULLABLE, .max_len = PATH_MAX, \
	  .description = "The directory to run in: absolute within an "	\
	      "allowed directory, or relative to the first one; null or " \
	      "absent: the first allowed directory." },			\
	{ .name = "stdin", .type = TC_ARG_STRING, .max_len = STDIN_MAX,	\
	  .description = "Text given to the program as its standard input " \
	      "(absent: none, as if from /dev/null)." },		\
	{ .name = "env", .type = TC_ARG_STRING_MAP,			\
	  .flags = TC_ARG_NAME_KEYS, .max_len = ENV_MAX,		\
	  .key_max_len = ENV_NAME_MAX, .item_max_len = ENV_VALUE_MAX,	\
	  .description = "Environment variables to set, by name; only names " \
	      "the policy allows (the server's instructions list them)." }, \
	{ .name = "timeout_ms", .type = TC_ARG_INT, .min = 1, .max = INT_MAX, \
	  .description = "Stop the program (and all it started) after this " \
	      "many milliseconds; at most, and by default, the policy's " \
	      "timeout." },						\
	{ .name = "max_output_bytes", .type = TC_ARG_INT, .min = 0,	\
	  .max = LLONG_MAX,						\
	  .description = "Keep at most this many bytes of stdout and of " \
	      "stderr each (the rest is counted, not returned); at most, and " \
	      "by default, the policy's cap." },			\
	{ .name = "binary", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT, \
	  .def = 0,							\
	  .description = "Also return stdout and stderr exactly, base64, in " \
	      "the structured content (output that is not UTF-8 is otherwise " \
	      "shown with U+FFFD in its place)." }

static const struct tc_arg run_args[] = {
	RUN_ARGS,
	{ NULL }
};

static const struct tc_arg start_args[] = {
	RUN_ARGS,
	{ .name = "tty", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0,
	  .description = "Run the program on a pseudo-terminal of its own "
	      "(80 columns by 24 rows), for programs that need one: it is "
	      "their controlling terminal and stdin, stdout and stderr. Its "
	      "output, stdout and stderr together, comes as stdout, with the "
	      "terminal's ways: line ends as \\r\\n, and what write_input "
	      "sends echoed unless the program turns echo off. write_input "
	      "types into it; closing the input sends end-of-file (^D). "
	      "TERM is xterm-256color unless the policy sets another." },
	{ NULL }
};

/* What run_command's refusals point to: its arguments that only
 * start_command takes.  A model that wants a terminal reaches for the
 * tool it knows. */
static const struct tc_arg_elsewhere run_elsewhere[] = {
	{ "tty", "start_command", "run_command has no terminal" },
	{ NULL }
};

/* The result (shell_run.c): a member that may be null is an anyOf of
 * typed schemas, never a list of types. */
static const char run_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"exit_code\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"null\"}],"
    "\"description\":\"the program's exit status; null when it did not exit by itself\"},"
    "\"signal\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}],"
    "\"description\":\"the signal that killed it (SIGKILL); null when it exited\"},"
    "\"stdout\":{\"type\":\"string\",\"description\":\"what was kept, as text (U+FFFD for bytes that are not UTF-8)\"},"
    "\"stderr\":{\"type\":\"string\"},"
    "\"stdout_bytes\":{\"type\":\"integer\",\"description\":\"every byte written, kept or not\"},"
    "\"stderr_bytes\":{\"type\":\"integer\"},"
    "\"stdout_truncated\":{\"type\":\"boolean\"},"
    "\"stderr_truncated\":{\"type\":\"boolean\"},"
    "\"stdout_base64\":{\"type\":\"string\",\"description\":\"with binary: the kept bytes exactly\"},"
    "\"stderr_base64\":{\"type\":\"string\"},"
    "\"duration_ms\":{\"type\":\"integer\"},"
    "\"timed_out\":{\"type\":\"boolean\"},"
    "\"note\":{\"type\":\"string\",\"description\":\"only when there is one: "
    "what else the summary says (processes left behind held the output and were killed, ...)\"}},"
    "\"required\":[\"exit_code\",\"signal\",\"stdout\",\"stderr\",\"stdout_bytes\","
    "\"stderr_bytes\",\"stdout_truncated\",\"stderr_truncated\",\"duration_ms\","
    "\"timed_out\"]}";

/* What a call acts on: the program, its arguments, where it runs, the
 * variables it sets. */
#define SHELL_KINDS	((1u << TC_SUBJECT_PROGRAM) | (1u << TC_SUBJECT_ARG) | \
			 (1u << TC_SUBJECT_CWD) | (1u << TC_SUBJECT_ENV))

static int	shell_run_command(const struct tc_call *, struct tc_result *);
static int	shell_subjects(const struct tc_subject_ctx *, const cJSON *,
		    struct tc_subjects *, struct tc_diag *);

/*
 * Not read-only, ever: a program may change what the roots let it.
 * Destructive unless the policy marks every program read-only, which
 * shell_ready() decides before the tools are described: the only write
 * to this table, before the serving code reads it.
 */
static struct tc_tool shell_tools[] = {
	{ .name = "run_command", .title = "Run a command",
	  .description = "Run a program the policy allows and wait for it: "
	      "argv is an array (argv[0] the program, by name or path), never "
	      "a shell string. Returns its exit code (or the signal that "
	      "ended it), stdout and stderr apart, each capped at "
	      "max_output_bytes with the total counted, the duration, and "
	      "whether it timed out. It runs confined: it reads and writes "
	      "only the allowed directories and can start only the programs "
	      "the policy lists. For work longer than the timeout use "
	      "start_command.",
	  .args = run_args, .elsewhere = run_elsewhere,
	  .output_schema = run_out,
	  .fn = shell_run_command, .profile = &shell_profile,
	  .flags = TC_TOOL_DESTRUCTIVE,
	  .subjects = shell_subjects, .subject_kinds = SHELL_KINDS },
	{ .name = "start_command", .title = "Start a command",
	  .description = "Start a program as run_command does, but answer "
	      "at once with a job id while it runs on (until it exits, is "
	      "stopped, or reaches the policy's job lifetime). Read its "
	      "output with read_output, write to its standard input with "
	      "write_input, stop it with stop_command, list the jobs with "
	      "list_commands. With tty, it runs on a pseudo-terminal of its "
	      "own, for programs that need one (an interactive prompt, a "
	      "pager): its output then comes as one stream.",
	  .args = start_args, .output_schema = tc_job_start_schema,
	  .fn = shell_run_command, .profile = &shell_job_profile,
	  .flags = TC_TOOL_DESTRUCTIVE | TC_TOOL_JOB,
	  .subjects = shell_subjects, .subject_kinds = SHELL_KINDS },
	TC_JOB_READ_TOOL("read_output", "Read a command's output",
	    TC_JOB_READ_DESC),
	TC_JOB_WRITE_TOOL("write_input", "Write to a command's input",
	    TC_JOB_WRITE_DESC),
	TC_JOB_STOP_TOOL("stop_command", "Stop a command",
	    "Stop a job of start_command: the program and every process it "
	    "started are killed."),
	TC_JOB_LIST_TOOL("list_commands", "List the commands",
	    "List the jobs of start_command: those running and the last ones "
	    "that ended, with their state."),
};

/* --- What a call asks for, in the server and again in the child --- */

/*
 * Points |*argv| at a new array of the |*argc| strings of the JSON array
 * |v| (borrowed from it; the caller frees the array).  Returns 0, TC_EINVAL
 * with |d| set when there is no program, or TC_ENOMEM.
 */
static int
argv_of(const cJSON *v, const char ***argv, size_t *argc, struct tc_diag *d)
{
	const cJSON *e;
	size_t n = 0;

	*argv = NULL;
	*argc = 0;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1)
		return tc_diag(d, TC_EINVAL, "'argv' must hold at least the "
		    "program to run");
	if ((*argv = calloc((size_t)cJSON_GetArraySize(v) + 1,
	    sizeof(**argv))) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	cJSON_ArrayForEach(e, v)
		(*argv)[n++] = e->valuestring;	/* checked: strings */
	*argc = n;
	return 0;
}

/* Refuses the variable |name| in |d|, saying which the policy allows (the
 * patterns of its "env" line).  Returns TC_EDENIED. */
static int
env_refused(const struct shell_policy *sp, const char *name,
    struct tc_diag *d)
{
	char list[1024], shown[256];
	size_t i, at = 0;

	list[0] = '\0';
	for (i = 0; sp->env_pass != NULL && sp->env_pass[i] != NULL &&
	    at < sizeof(list) - 1; i++)
		at += tc_text_fmt(list + at, sizeof(list) - at, "%s%s",
		    i > 0 ? ", " : "", sp->env_pass[i]);
	tc_text_show(shown, sizeof(shown), name, 0);
	if (at == 0)
		return tc_diag(d, TC_EDENIED, "'%s' is not a variable a call "
		    "may set (the policy lets a call set none: leave 'env' "
		    "out)", shown);
	return tc_diag(d, TC_EDENIED, "'%s' is not a variable a call may set "
	    "(it may set: %s; never LD_*, BASH_ENV, GIT_CONFIG* and the like, "
	    "nor what the policy fixes)", shown, list);
}

/*
 * A call's subjects, found in the server before anything is forked: the
 * program as the policy resolved it (execute); one argument each, after
 * the prefix the policy forces, so that consent and the log see what runs;
 * the working directory, which the server resolves beneath a root as a
 * path that may be changed (the program may write there); the name of each
 * variable it sets (names only: values may be secrets).  A program or an
 * argument the rules refuse, or a variable the policy does not let a call
 * set, refuses the call here, in the rules' words.
 */
static int
shell_subjects(const struct tc_subject_ctx *ctx, const cJSON *args,
    struct tc_subjects *out, struct tc_diag *d)
{
	const struct shell_policy *sp = shell_policy(ctx->policy);
	const struct shell_program *prog;
	const cJSON *cwd, *env, *e;
	const char **argv;
	char **run = NULL;
	size_t argc, i;
	int rc;

	if ((rc = argv_of(cJSON_GetObjectItemCaseSensitive(args, "argv"),
	    &argv, &argc, d)) != 0)
		return rc;
	if ((rc = shell_rules_check(sp, argv, argc, &prog, &run, d)) != 0 ||
	    (rc = tc_subjects_put(out, TC_SUBJECT_PROGRAM, prog->path,
	    TC_SUBJECT_EXEC, d)) != 0)
		goto out;
	for (i = 1; run[i] != NULL; i++)
		if ((rc = tc_subjects_put(out, TC_SUBJECT_ARG, run[i], 0,
		    d)) != 0)
			goto out;
	/* Without one, a call runs in the first root ("."), which consent
	 * rules and the log see as they would a cwd given; with no roots,
	 * in "/", which is none of the policy's directories. */
	cwd = cJSON_GetObjectItemCaseSensitive(args, "cwd");
	if ((cJSON_IsString(cwd) || ctx->policy->nroots > 0) &&
	    (rc = tc_subjects_put(out, TC_SUBJECT_CWD, cJSON_IsString(cwd) ?
	    cwd->valuestring : ".", TC_SUBJECT_WRITE, d)) != 0)
		goto out;
	env = cJSON_GetObjectItemCaseSensitive(args, "env");
	cJSON_ArrayForEach(e, env) {
		if (!shell_env_allowed(sp, e->string)) {
			rc = env_refused(sp, e->string, d);
			goto out;
		}
		if ((rc = tc_subjects_put(out, TC_SUBJECT_ENV, e->string, 0,
		    d)) != 0)
			goto out;
	}
out:
	tc_strv_free(run);
	free(argv);
	return rc;
}

/* --- The handler, in the confined child --- */

/* Returns 1 if |pol| grants TCP connections to |port| alone ("network
 * connect"), else 0. */
static int
port_granted(const struct tc_policy *pol, unsigned port)
{
	size_t i;

	for (i = 0; pol->network == TC_NETWORK_CONNECT &&
	    i < pol->nnet_ports; i++)
		if (pol->net_ports[i] == port)
			return 1;
	return 0;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* An environment being built: "NAME=VALUE" strings, owned. */
struct env {
	char	**v;
	size_t	  n, cap;
};

/* Sets |name| to |value| in |e|, replacing an earlier value.  Returns 0
 * or TC_ENOMEM. */
static int
env_set(struct env *e, const char *name, size_t len, const char *value)
{
	char *s;
	size_t i;

	if ((s = tc_text_alloc("%.*s=%s", (int)len, name, value)) == NULL)
		return TC_ENOMEM;
	for (i = 0; i < e->n; i++)
		if (strncmp(e->v[i], s, len + 1) == 0) {
			free(e->v[i]);
			e->v[i] = s;
			return 0;
		}
	if (e->n + 1 >= e->cap) {
		free(s);
		return TC_ENOMEM;	/* sized for all: a bug */
	}
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
	return 0;
}

/* 1 if |e| has |name| (a NUL-terminated name). */
static int
env_has(const struct env *e, const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, len) == 0 && e->v[i][len] == '=')
			return 1;
	return 0;
}

/*
 * Builds the program's environment: nothing of the server's, but a fixed
 * PATH, HOME (the policy's, else the call's |scratch| directory, which is
 * its TMPDIR too), LC_CTYPE (shell_lang, unless the policy or the call
 * names a locale), TERM on a terminal (|tty|), RES_OPTIONS=use-vc
 * where "network connect" grants port 53 (UDP, which Landlock cannot
 * limit to ports, is refused: the C library's resolver then asks over
 * TCP), then the policy's fixed variables, then those the call sets (only
 * names the policy lets it): each of these replaces one before it.
 * Returns 0; TC_EDENIED with |res| the refusal; TC_ENOMEM.
 */
static int
make_env(const struct tc_call *call, const struct shell_policy *sp,
    const char *scratch, int tty, struct env *e, struct tc_result *res)
{
	struct tc_diag d TC_UNINIT;
	struct tc_arg_iter it;
	const char *k, *v, *eq;
	size_t i, nfixed = 0;
	int rc;

	tc_diag_init(&d);
	while (sp->env_fixed != NULL && sp->env_fixed[nfixed] != NULL)
		nfixed++;
	e->n = 0;
	e->cap = 6 + nfixed + tc_arg_count(call, "env") + 1;
	if ((e->v = calloc(e->cap, sizeof(*e->v))) == NULL)
		return TC_ENOMEM;
	if ((rc = env_set(e, "PATH", 4, SHELL_PATH)) != 0 ||
	    (rc = env_set(e, "HOME", 4, sp->home != NULL ? sp->home :
	    scratch != NULL ? scratch : HOME_NONE)) != 0 ||
	    (scratch != NULL && (rc = env_set(e, "TMPDIR", 6, scratch)) != 0) ||
	    (tty && (rc = env_set(e, "TERM", 4, SHELL_TERM)) != 0) ||
	    (port_granted(call->policy, 53) &&
	    (rc = env_set(e, "RES_OPTIONS", 11, "use-vc")) != 0))
		return rc;
	for (i = 0; i < nfixed; i++) {
		if ((eq = strchr(sp->env_fixed[i], '=')) == NULL)
			continue;	/* the policy keeps NAME=VALUE */
		if ((rc = env_set(e, sp->env_fixed[i],
		    (size_t)(eq - sp->env_fixed[i]), eq + 1)) != 0)
			return rc;
	}
	tc_arg_map(call, "env", &it);
	while (tc_arg_map_next(&it, &k, &v)) {
		/* The server refused it already; the child's own copy of
		 * the policy says the same. */
		if (!shell_env_allowed(sp, k)) {
			env_refused(sp, k, &d);
			tc_result_error(res, "%s", d.msg);
			return TC_EDENIED;
		}
		if ((rc = env_set(e, k, strlen(k), v)) != 0)
			return rc;
	}
	/* Last, where neither the policy nor the call named a locale:
	 * their LANG decides the character set too, as it would have over
	 * a LANG of ours, and their LC_ALL or LC_CTYPE overrides it. */
	if (!env_has(e, "LC_CTYPE") && !env_has(e, "LANG") &&
	    !env_has(e, "LC_ALL") &&
	    (rc = env_set(e, "LC_CTYPE", 8, shell_lang)) != 0)
		return rc;
	return 0;
}

/*
 * Opens the call's working directory beneath its root (O_PATH: fchdir()
 * needs no more), with the deny rules and any pin checked on what is
 * opened: the "cwd" argument, else the first root, else, with no root, the
 * file system's root, where the program can read nothing.  Returns the fd,
 * or -1 with |res| the error.
 */
static int
open_cwd(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "cwd");
	struct tc_diag d TC_UNINIT;
	char note[1024];
	struct tc_path p;
	int fd, rc;

	tc_diag_init(&d);
	if (user == NULL && call->policy->nroots == 0) {
		if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			tc_result_error(res, "cannot open '/': %s",
			    strerror(errno));
		return fd;
	}
	if ((rc = tc_path_map(call->policy, user != NULL ? user : ".", &p,
	    &d)) != 0) {
		if (rc == TC_EOUTSIDE && *tc_policy_roots_note(call->policy,
		    note, sizeof(note)) != '\0')
			tc_result_error(res, "cwd %s. %s", d.msg, note);
		else
			tc_result_error(res, "cwd %s", d.msg);
		return -1;
	}
	if ((fd = tc_path_open(call->policy, &p, O_PATH | O_DIRECTORY |
	    O_CLOEXEC, 0, TC_ACCESS_WRITE)) < 0) {
		tc_path_open_error(&d, &p, user != NULL ? user : ".", errno);
		tc_result_error(res, "cwd %s", d.msg);
	}
	tc_path_release(&p);
	return fd;
}

/*
 * The longest a program may run in a run of |deadline_ms|: that less a
 * margin (a tenth, at most a second), so that the handler stops the
 * program and answers with what it printed before the server gives up on
 * the child.
 */
static int
program_limit(int deadline_ms)
{
	int limit = deadline_ms;

	limit -= limit / 10 < 1000 ? limit / 10 : 1000;
	return limit < 1 ? 1 : limit;
}

/* How long the program may run: the call's timeout_ms, at most
 * program_limit() of the run's deadline (the policy's timeout for a call,
 * its job lifetime for a job). */
static int
call_timeout(const struct tc_call *call)
{
	struct tc_limits l;
	long long want;
	int limit;

	tc_policy_limits(call->policy, tc_tool_policy_name(call->tool), &l);
	limit = program_limit((call->tool->flags & TC_TOOL_JOB) ?
	    call->policy->job_lifetime_ms : l.deadline_ms);
	want = tc_arg_int(call, "timeout_ms", limit);
	return want < limit ? (int)want : limit;
}

/*
 * How many bytes of each stream are kept: the call's max_output_bytes, at
 * most the policy's cap (without one, the call's output limit).  The
 * runner cuts further what would not fit in a result the server takes.
 */
static size_t
output_cap(const struct tc_call *call, const struct shell_policy *sp)
{
	unsigned long long want, cap = sp->max_output;
	struct tc_limits l;

	if (cap == 0) {
		tc_policy_limits(call->policy,
		    tc_tool_policy_name(call->tool), &l);
		cap = l.max_result;
	}
	want = (unsigned long long)tc_arg_int(call, "max_output_bytes",
	    (long long)cap);
	return (size_t)(want < cap ? want : cap);
}

/*
 * run_command and start_command: the rules again (the child has its own
 * copy of the policy), a scratch directory, the environment, the working
 * directory, then the program (shell_run.c), whose result is the call's.  A job's program
 * reads the job's input once the call's stdin text is written.
 */
static int
shell_run_command(const struct tc_call *call, struct tc_result *res)
{
	const struct shell_policy *sp = shell_policy(call->policy);
	const struct shell_program *prog;
	const char *in = tc_arg_str(call, "stdin");
	struct tc_diag d TC_UNINIT;
	struct env env = { NULL, 0, 0 };
	struct shell_exec x;
	const char **argv = NULL;
	char **run = NULL, *scratch = NULL;
	size_t argc;
	int cwd_fd = -1, master = -1, slave = -1, mark = -1, err, rc;
	/* start_command's alone (run_command has no such argument). */
	int tty = (call->tool->flags & TC_TOOL_JOB) &&
	    tc_arg_bool(call, "tty", 0);

	tc_diag_init(&d);
	/* The terminal its child opened, for start_command: taken whether
	 * asked for or not, so that a call that does not want it holds it
	 * no longer. */
	if (tc_call_tty(call, &master, &slave, &mark) != 0) {
		err = errno;
		if (tty) {
			rc = tc_result_error(res, "no pseudo-terminal could be "
			    "opened for this job: %s", strerror(err));
			goto out;
		}
	}
	if (!tty) {
		close_fd(&master);
		close_fd(&slave);
		close_fd(&mark);
	}
	if ((rc = argv_of(tc_arg_json(call, "argv"), &argv, &argc,
	    &d)) != 0 ||
	    (rc = shell_rules_check(sp, argv, argc, &prog, &run, &d)) != 0) {
		if (rc != TC_ENOMEM)
			rc = tc_result_error(res, "%s", d.msg);
		goto out;
	}
	if (sp->home == NULL && shell_scratch_base != NULL &&
	    (scratch = shell_scratch_take()) == NULL) {
		rc = tc_result_error(res, "cannot make the call's scratch "
		    "directory: %s", strerror(errno));
		goto out;
	}
	if ((rc = make_env(call, sp, scratch, tty, &env, res)) != 0) {
		if (rc == TC_EDENIED)
			rc = 0;		/* |res| says why */
		goto out;
	}
	if ((cwd_fd = open_cwd(call, res)) < 0)
		goto out;
	memset(&x, 0, sizeof(x));
	x.path = prog->path;
	x.argv = run;
	x.envp = env.v;
	x.cwd_fd = cwd_fd;
	x.stdin_data = in;
	x.stdin_len = in != NULL ? strlen(in) : 0;
	x.stdin_fd = tc_call_input_fd(call);
	x.timeout_ms = call_timeout(call);
	x.binary = tc_arg_bool(call, "binary", 0);
	x.max_output = output_cap(call, sp);
	x.stream = (call->tool->flags & TC_TOOL_JOB) != 0;
	x.tty = master >= 0;
	x.tty_master = master;
	x.tty_slave = slave;
	x.tty_mark = mark;
	slave = mark = -1;	/* the runner's now */
	rc = shell_exec_run(call, &x, res);
	if (rc != 0 && res->is_error)
		rc = 0;		/* |res| says why it could not start */
out:
	close_fd(&master);
	close_fd(&slave);
	close_fd(&mark);
	if (cwd_fd >= 0)
		close(cwd_fd);
	/* What the program left there goes with it (what it cannot remove,
	 * the server does as it exits). */
	if (scratch != NULL)
		shell_scratch_done(scratch);
	free(scratch);
	tc_strv_free(env.v);
	tc_strv_free(run);
	free(argv);
	return rc;
}

/* --- The server --- */

/* Appends |s| to |b| as text.h shows an untrusted name. */
static int
shown(struct tc_buf *b, const char *s)
{
	return tc_buf_append_shown(b, s, strlen(s), 0);
}

/* Appends the list |v| (NULL-terminated), "a, b, c". */
static void
list(struct tc_buf *b, char *const *v)
{
	size_t i;

	for (i = 0; v[i] != NULL; i++) {
		if (i > 0)
			tc_buf_append_str(b, ", ");
		shown(b, v[i]);
	}
}

/* Appends the network |pol| grants the programs, for the model. */
static void
network_said(struct tc_buf *b, const struct tc_policy *pol)
{
	size_t i;

	switch (pol->network) {
	case TC_NETWORK_OFF:
		tc_buf_append_str(b, "Programs have no network. ");
		break;
	case TC_NETWORK_ON:
		tc_buf_append_str(b, "Programs share this machine's network: "
		    "any address and port, TCP and UDP. ");
		break;
	case TC_NETWORK_CONNECT:
		tc_buf_append_str(b, "Programs may open TCP connections to "
		    "these ports only, at any address (this machine's own "
		    "included): ");
		for (i = 0; i < pol->nnet_ports; i++)
			tc_buf_printf(b, "%s%u", i > 0 ? ", " : "",
			    (unsigned)pol->net_ports[i]);
		tc_buf_append_str(b, ". Nothing else of the network: no "
		    "other port, no UDP, no listening; ");
		tc_buf_append_str(b, port_granted(pol, 53) ? "names resolve "
		    "from /etc/hosts, or by DNS over TCP. " : "names resolve "
		    "from /etc/hosts only (no DNS). ");
		break;
	}
}

/*
 * Returns 1 if no process limit holds for calls: they run as root (a
 * server started as root without run-as) and the sandbox made no pids
 * cgroup for them (none it may write: sandbox/pids.h).  The kernel
 * exempts uid 0 from RLIMIT_NPROC (INIT_USER, in a user namespace of its
 * own too), so such a call's fork bomb is bounded in time (its PID
 * namespace, and its keeper where it has one, end with the call), not
 * in size.
 */
static int
calls_as_root(const struct tc_policy *pol)
{
	return !pol->run_as && getuid() == 0 && tc_pids_current() == NULL;
}

#define ROOT_NPROC	"calls run as root: no process limit holds for root " \
			"(the kernel exempts uid 0 from RLIMIT_NPROC, in a " \
			"user namespace too, and no pids cgroup may be made " \
			"here, so 'limit processes' does not hold); name " \
			"'run-as USER' in the policy, or --run-as USER"

/*
 * Tells the model which programs it may run and how they are held: each
 * by name and path, with its subcommands if the policy lists them; a shell
 * or interpreter plainly as one that only the kernel sandbox limits; the
 * directories; the variables a call may set; the network; the timeout.
 */
static int
shell_instructions(const struct tc_server *srv, const struct tc_policy *pol,
    struct tc_buf *b)
{
	const struct shell_policy *sp = shell_policy(pol);
	const struct shell_program *p;
	struct tc_limits l;
	size_t i, ninterp = 0;
	int ms, subs = 0;

	tc_buf_printf(b, "%s runs only these programs, named by argv[0] "
	    "(argv is an array; no shell reads it, so pipes, redirections, "
	    "globs and $VARIABLES are not interpreted): ", srv->name);
	for (i = 0; i < sp->nprograms; i++) {
		p = &sp->programs[i];
		tc_buf_append_str(b, i > 0 ? "; " : "");
		shown(b, p->name);
		tc_buf_append_str(b, " (");
		shown(b, p->path);
		if (p->subcommands != NULL) {
			tc_buf_append_str(b, "; subcommands: ");
			list(b, p->subcommands);
			subs = 1;
		}
		if (p->readonly)
			tc_buf_append_str(b, "; changes nothing");
		if (p->interpreter) {
			tc_buf_append_str(b, "; a shell or interpreter");
			ninterp++;
		}
		tc_buf_append_str(b, ")");
	}
	tc_buf_append_str(b, ". ");
	if (subs)
		tc_buf_append_str(b, "A subcommand comes right after its "
		    "program, options after it (git log --oneline, not git "
		    "--no-pager log). ");
	if (ninterp > 0)
		tc_buf_append_str(b, "A shell or interpreter runs whatever code it is "
		    "given: no argument rule limits it, only the kernel "
		    "sandbox, which lets it read and write what the other "
		    "programs may and start only the programs listed. ");
	if (pol->nroots == 0)
		tc_buf_append_str(b, "No directory is allowed: programs can read "
		    "and write no file. ");
	else {
		tc_buf_append_str(b, "Programs read and write only beneath: ");
		for (i = 0; i < pol->nroots; i++) {
			tc_buf_append_str(b, i > 0 ? "; " : "");
			shown(b, pol->roots[i].path);
			tc_buf_append_str(b, (pol->roots[i].flags & TC_ROOT_WRITE) ?
			    " (read-write)" : " (read-only)");
		}
		tc_buf_append_str(b, "; they run in the first unless cwd says "
		    "otherwise. ");
		if (tc_policy_writable(pol) && sp->repositories ==
		    SHELL_REPOS_READ_ONLY)
			tc_buf_append_str(b, "The .git of a repository at the "
			    "top of a read-write directory or one level down "
			    "is read-only to programs: git reads it (status, "
			    "log, diff) but cannot commit, fetch or change its "
			    "configuration there (Read-only file system); ask "
			    "the user to do that. ");
	}
	if (sp->env_pass != NULL && sp->env_pass[0] != NULL) {
		tc_buf_append_str(b, "A call may set only these environment "
		    "variables: ");
		list(b, sp->env_pass);
		tc_buf_append_str(b, ". ");
	} else
		tc_buf_append_str(b, "A call may set no environment variable. ");
	if (calls_as_root(pol))
		tc_buf_append_str(b, "Programs run as root, where no limit "
		    "holds on how many processes they start: start no more "
		    "than the task needs. ");
	network_said(b, pol);
	tc_policy_limits(pol, "run_command", &l);
	/* What a program gets: the call's deadline less the answer's
	 * margin (call_timeout()). */
	ms = program_limit(l.deadline_ms);
	return tc_buf_printf(b, "run_command stops a program after %d %s "
	    "(timeout_ms for less); for longer work use start_command, then "
	    "read_output, write_input and stop_command; start_command with "
	    "tty runs a program that needs a terminal (a prompt, a pager) on "
	    "one of its own.", ms % 1000 == 0 ? ms / 1000 : ms,
	    ms % 1000 == 0 ? "s" : "ms");
}

/* Whether the server will serve (not --check or --print-config): only
 * then is anything made at start. */
static int serving;

/*
 * Once the policy is read: a program, a helper or what they run with that
 * lies beneath a writable directory refuses the start (each is reported
 * as an error), since a call could replace what the policy allows to run.
 */
static void
shell_configure(struct tc_policy *pol, const struct tc_cmdline *cl,
    tc_policy_report_fn *report, void *ctx)
{
	serving = !cl->check && cl->host == NULL;
	(void)shell_policy_verify(pol, report, ctx);
}

/*
 * Refuses to start without a program to run; makes the directory of the
 * calls' scratch directories, unless the policy names a home; decides the
 * tools' destructive hint: off only when the policy marks every program
 * read-only.
 */
static int
shell_ready(const struct tc_server *srv, const struct tc_policy *pol,
    struct tc_diag *d)
{
	const struct shell_policy *sp = shell_policy(pol);
	size_t i, k, readonly = 0;
	struct stat st;
	int rc;

	if (sp->nprograms == 0)
		return tc_diag(d, TC_EINVAL, "no programs to run: name them "
		    "in a policy file (--policy FILE), one 'program' line "
		    "each in its [shell] section; see %s(1)", srv->name);
	if (serving && sp->home == NULL &&
	    (rc = shell_scratch_init(pol, d)) != 0)
		return rc;
	/* --check makes nothing, but must fail where the start would. */
	if (!serving && sp->home == NULL && faccessat(AT_FDCWD,
	    shell_scratch_tmpdir(), W_OK | X_OK, AT_EACCESS) != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot make the calls' "
		    "scratch directory in '%s' (give the [shell] section a "
		    "'home DIR', or set TMPDIR)", shell_scratch_tmpdir());
	if (stat(SHELL_LANG_DIR "/LC_CTYPE", &st) == 0 && S_ISREG(st.st_mode))
		shell_lang = SHELL_LANG_GLIBC;
	for (i = 0; i < sp->nprograms; i++)
		if (shell_program_readonly(&sp->programs[i]))
			readonly++;
	if (readonly == sp->nprograms)
		for (k = 0; k < TC_NITEMS(shell_tools); k++)
			if (shell_tools[k].fn == shell_run_command)
				shell_tools[k].flags &= ~TC_TOOL_DESTRUCTIVE;
	return 0;
}

/*
 * For --print-config, whose entry names only the policy: the directories
 * and the programs, in the lines --check shows them.
 */
static void
shell_served(const struct tc_policy *pol, FILE *f)
{
	tc_policy_print_roots(pol, f);
	shell_policy_print_programs(pol, f);
}

/* For a start in a terminal: the programs, by name. */
static int
shell_serving(const struct tc_policy *pol, struct tc_buf *b)
{
	const struct shell_policy *sp = shell_policy(pol);
	size_t i, n = 0;
	int rc = 0;

	for (i = 0; i < sp->nprograms && rc == 0; i++)
		if (sp->programs[i].path != NULL)
			rc = tc_buf_printf(b, "%s%s", n++ ? ", " : "programs: ",
			    sp->programs[i].name);
	if (n == 0 && rc == 0)
		rc = tc_buf_printf(b, "programs: none (the policy's [shell] "
		    "section names none)");
	return rc;
}

/*
 * What a network grant means beyond its words: no network namespace, so
 * this machine's own services on the ports (its loopback) are reached
 * too, since Landlock holds ports and not addresses.
 */
static void
network_warn(const struct tc_policy *pol, const char *file,
    tc_policy_report_fn *report, void *ctx)
{
	char msg[1024], ports[512];
	size_t i, at = 0;

	ports[0] = '\0';
	for (i = 0; i < pol->nnet_ports && at < sizeof(ports); i++)
		at += tc_text_fmt(ports + at, sizeof(ports) - at, "%s%u",
		    i > 0 ? ", " : "", (unsigned)pol->net_ports[i]);
	if (pol->network == TC_NETWORK_ON)
		tc_text_fmt(msg, sizeof(msg), "%s:%d: network on: programs "
		    "share this machine's network, every address and port "
		    "(its own services included), TCP and UDP", file,
		    pol->set_at[TC_SET_NETWORK]);
	else if (pol->network == TC_NETWORK_CONNECT)
		tc_text_fmt(msg, sizeof(msg), "%s:%d: network connect: "
		    "programs may connect to TCP port%s %s at any address, "
		    "this machine's own services on %s included (the kernel "
		    "limits ports, not addresses); no UDP, so %s", file,
		    pol->set_at[TC_SET_NETWORK], pol->nnet_ports > 1 ? "s" :
		    "", ports, pol->nnet_ports > 1 ? "them" : "it",
		    port_granted(pol, 53) ? "DNS goes over TCP (RES_OPTIONS="
		    "use-vc)" : "no DNS: names resolve from /etc/hosts only");
	else
		return;
	if (report != NULL)
		report(ctx, msg);
}

/*
 * With "repositories writable", warns of the git repositories a writable
 * root holds, at its top or one level down: the programs may change their
 * hooks and configuration, and git runs those outside the sandbox, as
 * the user, when the user next works in the repository.  Read-only, the
 * default, each call's child binds them read-only, and --check lists them
 * (shell_policy_print()).
 */
static void
git_warn(const struct tc_policy *pol, const char *file,
    tc_policy_report_fn *report, void *ctx)
{
	char list[SHELL_REPOS_SHOWN * (NAME_MAX + 8) + 64], msg[4096];
	const struct tc_root *r;
	size_t i;

	if (shell_policy(pol)->repositories != SHELL_REPOS_WRITABLE)
		return;
	for (i = 0; i < pol->nroots && report != NULL; i++) {
		r = &pol->roots[i];
		if (!(r->flags & TC_ROOT_WRITE) ||
		    *shell_repos_list(r, list, sizeof(list)) == '\0')
			continue;
		tc_text_fmt(msg, sizeof(msg), "%s:%d: %s is writable, and "
		    "'repositories writable' lets the programs change the "
		    "hooks and configuration of the git repositories in it "
		    "(%s): git runs them outside the sandbox, as you, the "
		    "next time you use the repository (a commit runs "
		    ".git/hooks/pre-commit); look at .git/hooks and .git/config "
		    "before you use git there, or leave the setting out", file,
		    r->write_line, r->path, list);
		report(ctx, msg);
	}
}

/*
 * Warns where the user's home lies beneath a writable root: the calls
 * may change what the user's shell and programs read as they start
 * (~/.bashrc, ~/.profile, ~/.ssh/config), and a git configuration where
 * none is yet; only one already there is kept read-only.
 */
static void
home_warn(const struct tc_policy *pol, const char *file,
    tc_policy_report_fn *report, void *ctx)
{
	const char *home = shell_home();
	char msg[2048];
	size_t i;

	for (i = 0; i < pol->nroots && report != NULL && *home != '\0'; i++) {
		if (!(pol->roots[i].flags & TC_ROOT_WRITE) ||
		    tc_path_beneath(home, pol->roots[i].path) == NULL)
			continue;
		tc_text_fmt(msg, sizeof(msg), "%s:%d: your home %s lies in %s, "
		    "which is writable: the programs may change what your "
		    "shell and programs read as they start (~/.bashrc, "
		    "~/.profile, ~/.ssh/config), and make a git configuration "
		    "where there is none yet (one already there is kept "
		    "read-only); give write access to a directory beneath it "
		    "instead", file, pol->roots[i].write_line, home,
		    pol->roots[i].path);
		report(ctx, msg);
		return;
	}
}

/*
 * The shared warnings; that no process limit holds for a call run as
 * root; what a network grant reaches; an argument deny pattern that lets
 * long options' abbreviations through; node without --jitless where
 * programs may not compile; and one for each deny rule of the
 * file: a rule holds the working directory the server resolves, not the
 * files the programs open, which the kernel lets them reach beneath the
 * roots whatever their names.  Every tool is offered with or without a
 * writable directory, so none is a "writer" to tc_policy_warn().
 */
static void
shell_warn(const struct tc_policy *pol, tc_policy_report_fn *report,
    void *ctx)
{
	const char *file = pol->file != NULL ? pol->file : "command line";
	char msg[1024], rule[512];
	size_t i;

	tc_policy_warn(pol, NULL, report, ctx);
	if (calls_as_root(pol) && report != NULL)
		report(ctx, ROOT_NPROC);
	network_warn(pol, file, report, ctx);
	git_warn(pol, file, report, ctx);
	home_warn(pol, file, report, ctx);
	shell_rules_warn(shell_policy(pol), file, report, ctx);
	shell_policy_jit_warn(pol, file, report, ctx);
	for (i = 0; i < pol->ndeny; i++) {
		if (pol->deny[i].line <= 0 || pol->deny[i].own != NULL)
			continue;
		tc_deny_str(&pol->deny[i], rule, sizeof(rule));
		tc_text_fmt(msg, sizeof(msg), "%s:%d: %s holds only a call's "
		    "working directory: the programs read and write beneath "
		    "the allowed directories whatever the names; keep what it "
		    "protects out of them", file, pol->deny[i].line, rule);
		if (report != NULL)
			report(ctx, msg);
	}
}

int
main(int argc, char *argv[])
{
	static const struct tc_server shell = {
		.name = "toolcell-shell",
		.title = "toolcell shell",
		.version = TC_VERSION,
		.summary = "run the programs a policy allows, confined, over "
		    "MCP",
		.tools = shell_tools,
		.ntools = TC_NITEMS(shell_tools),
		.policy_section = &shell_policy_section,
		/* The programs may use the network the policy grants; they
		 * open files themselves, where deny rules do not reach. */
		.policy_features = TC_POLICY_F_NETWORK | TC_POLICY_F_DENY_NAMED |
		    TC_POLICY_F_JIT,
		.no_operands = "name the programs to run and the directories "
		    "they may use in a policy file (--policy FILE: 'program' "
		    "lines in its [shell] section, and 'allow' lines)",
		.configure = shell_configure,
		.ready = shell_ready,
		/* Nothing but Landlock holds the programs to the programs
		 * and directories the policy names. */
		.without_landlock = "the programs may read, write and "
		    "execute anything the server's user can, whatever the "
		    "policy lists",
		.instructions = shell_instructions,
		.warn = shell_warn,
		.served = shell_served,
		.serving = shell_serving,
	};

	return tc_server_main(&shell, argc, argv);
}
