/*
 * shell.h: toolcell-shell, what its parts share.
 * Returns (shell): 0 or a negative TC_E* code, with a struct tc_diag
 * saying why where a person or the model reads it; a question 1 or 0, a
 * lookup NULL for none, a check that reports a count.
 *
 * The server runs the programs its policy allows, by absolute path, with
 * arguments the policy's rules accept, in a child confined by its
 * profile: Landlock's execute right on those programs (and their
 * interpreters and the helpers the policy names) alone, read and write
 * rights on the policy's directories alone, namespaces, no network
 * unless the policy grants it.  The rules are the friendly first line,
 * which says why in words; the kernel is the guard.
 *
 *	main.c		the server: tools, instructions, subjects
 *	shell_policy.c	the [shell] section: programs, their rules, env
 *	shell_rules.c	an argv against the rules
 *	shell_run.c	running one program in the child: pipes, caps,
 *			timeout, progress, output frames
 *	shell_profile.c	the confinement profile
 *	shell_scratch.c	each call's scratch directory: HOME, TMPDIR
 */
#ifndef TC_SHELL_H
#define TC_SHELL_H

#include <stddef.h>

#include "base/err.h"
#include "policy/policy.h"
#include "protocol/tools.h"

struct tc_policy_section;

/* --- The policy (shell_policy.c) --- */

/* The PATH a bare program name is looked up in, once, at start; and the
 * PATH every program runs with. */
#define SHELL_PATH		"/usr/local/bin:/usr/bin:/bin"

/* The kinds of "args" lines, for where each was given (one of each kind
 * per program). */
enum shell_args_kind {
	SHELL_ARGS_SUBCOMMANDS,
	SHELL_ARGS_OPTIONS,
	SHELL_ARGS_DENY,
	SHELL_ARGS_NO_DASH_OPERANDS,
	SHELL_ARGS_PREFIX,
	SHELL_ARGS_HELPERS,
	SHELL_ARGS_NKINDS
};

/* A program the policy allows, with its argument rules. */
struct shell_program {
	char		*name;		/* as the policy names it: "git" */
	char		*path;		/* resolved at start: absolute and
					   canonical, a regular executable
					   file */
	int		 line;		/* of its "program" line */
	char		**subcommands;	/* the first operand must be one of
					   these; NULL: any */
	char		**deny;		/* arguments refused: patterns (glob
					   syntax over the whole argument, and
					   over a --flag's name before '=';
					   a literal "--name" refuses its
					   abbreviations, a literal "-x" a
					   single-dash argument holding 'x':
					   shell_rules.c) */
	int		 no_dash_operands; /* an operand may not start with
					   '-' (after "--" too) */
	char		**prefix;	/* arguments forced after argv[0] */
	char		**helpers;	/* further programs (files, or
					   directories of them) it may start */
	int		 interpreter;	/* a shell or an interpreter: what it
					   runs is held by the kernel only */
	int		 readonly;	/* the policy says it changes nothing */
	char		**options;	/* every option (an argument before
					   "--" that starts with '-') must
					   match one of these patterns; NULL:
					   any */
	char		**exec_also;	/* every other file the kernel
					   executes to run it or its helpers:
					   ELF interpreters, #! programs (and
					   the program a "#!/usr/bin/env NAME"
					   line finds), theirs in turn;
					   canonical, each once, the first
					   the program's own ELF interpreter
					   (PT_INTERP) or #! program
					   (NULL-terminated, or NULL) */
	int		 args_line[SHELL_ARGS_NKINDS]; /* where each kind of
					   "args" line is; 0: none */
};

/* The [shell] section, as loaded (the slot of shell_policy_section). */
struct shell_policy {
	struct shell_program *programs;
	size_t		 nprograms;
	char		**env_pass;	/* names a call may set (NULL-terminated,
					   or NULL) */
	char		**env_fixed;	/* "NAME=VALUE" set for every program */
	char		*home;		/* HOME; NULL: the call's own scratch
					   directory (shell_scratch_make()) */
	unsigned long long max_output;	/* bytes per stream, at most */
	int		 repositories;	/* SHELL_REPOS_*: "repositories" */
};

/* What calls may do to the .git of the repositories beneath the
 * writable directories ("repositories"). */
enum shell_repos {
	SHELL_REPOS_READ_ONLY,	/* bound read-only in each child */
	SHELL_REPOS_WRITABLE,	/* as writable as the rest */
};

extern const struct tc_policy_section shell_policy_section;

/* --- What calls may not change beneath the writable roots: the names
 * (shell_policy.c), and how git's are found (shell_repos.c) --- */

struct tc_keep;

/* The profile's read_only: ".git", and the user's own git configuration
 * (absolute, links resolved); NULL with "repositories writable". */
const char *const *shell_read_only(const struct tc_policy *pol);

/* The user's home, canonical, as git finds it (HOME, at start); "" where
 * there is none. */
const char *shell_home(void);

/*
 * Finds core.worktree in the git configuration |buf| (|len| bytes, read
 * with bounds alone: a NUL in it is a byte like any other) into |out| as git reads it (quotes, escapes, comments,
 * lines continued, the last one winning).  Returns 1 if found, 0 if not,
 * -1 (errno EBADMSG) where git would not read a value of it.
 */
int	shell_config_worktree(const char *buf, size_t len, char *out,
	    size_t size);

/* The profile's read_only_found: a kept repository's submodules. */
int	shell_repo_found(struct tc_keep *k, int at, const char *dir,
	    const char *place);

/* How many repositories a listing names ("and 3 more" after them). */
#define SHELL_REPOS_SHOWN	8

/*
 * Lists into |list| (|size| bytes) the git metadata writable root |r|
 * holds, as each call's child finds it: a ".git" (a directory, or the
 * file of a worktree or submodule; never a link) at its top or in a
 * directory one level down: ".git, a/.git, b/.git and 3 more", the top's
 * first, then by name, SHELL_REPOS_SHOWN at most.  Returns |list|, "" if
 * there is none.
 */
const char	*shell_repos_list(const struct tc_root *r, char *list,
		    size_t size);

/* Returns the [shell] settings of |pol| (an empty policy's if it has
 * none). */
const struct shell_policy *shell_policy(const struct tc_policy *pol);

/* Writes the "programs:" part of --check's [shell] report to |f|: each
 * program's path, what else it executes and its argument rules. */
void	shell_policy_print_programs(const struct tc_policy *pol, FILE *f);

/* Returns the program |name| names, or NULL: a policy name, a resolved
 * path, or another absolute path to the same file (device and inode,
 * symbolic links followed) whose last name is that of the resolved path
 * or of the policy name (/bin/echo for "program echo" found as
 * /usr/bin/echo).  The program's resolved path is what runs. */
const struct shell_program *shell_program_find(const struct shell_policy *sp,
	    const char *name);

/* Returns 1 if the last component of |path| names a shell or an
 * interpreter (sh, bash, python3.11, perl, awk, ...): a program that runs
 * what its arguments or input say, held by the kernel only; else 0.  By
 * name: a copy under another name is not recognised. */
int	shell_is_interpreter(const char *path);

/* Returns 1 if what |p| runs changes nothing: the policy says so, and it
 * is no shell or interpreter, starts no programs of its own choosing
 * (find, xargs, env, make, ...), has no helpers, and is not a script of
 * an interpreter; else 0. */
int	shell_program_readonly(const struct shell_program *p);

/* Returns 1 if a call may set the environment variable |name|: it
 * matches a pattern of sp->env_pass, env-set does not fix it, and it is
 * none of the names never passed (LD_*, BASH_ENV, ENV, GIT_CONFIG*, PATH,
 * HOME, ...: toolcell-policy(5)); else 0. */
int	shell_env_allowed(const struct shell_policy *sp, const char *name);

/*
 * Reports through |report| (with |ctx|), once the roots are known, each
 * program, helper or file in a program's exec_also that lies beneath a
 * writable directory of |p| (compared on canonical paths): a call could
 * replace what the policy allows to run.  Returns the number reported.
 */
int	shell_policy_verify(const struct tc_policy *p,
	    tc_policy_report_fn *report, void *ctx);

/*
 * Reports through |report|, as "FILE:LINE: message" (|file| the policy's
 * name), unless |pol| says "jit on": each program whose file is node
 * (by its resolved path's name: node, nodejs) without --jitless in its
 * forced prefix, and each that runs node (a script of node's), since the
 * seccomp filter refuses the memory node's JIT compiler needs and node
 * stops at its start; each with the fix.  Returns the number reported.
 */
int	shell_policy_jit_warn(const struct tc_policy *pol, const char *file,
	    tc_policy_report_fn *report, void *ctx);

/* --- Argument rules (shell_rules.c) --- */

/*
 * Checks |argv| (|argc| strings; argv[0] a program's policy name or
 * path) against |sp|'s rules.  Returns 0 with *|prog| the program and
 * *|run| a new NULL-terminated argv to execute (its path, the forced
 * prefix, the arguments; the caller frees it with tc_strv_free()), or
 * TC_EDENIED with |d| saying, for the model, which rule refused what and
 * what is allowed instead, TC_EINVAL if |argc| is 0, or TC_ENOMEM.
 */
int	shell_rules_check(const struct shell_policy *sp,
	    const char *const *argv, size_t argc,
	    const struct shell_program **prog, char ***run, struct tc_diag *d);

/*
 * Reports through |report|, as "FILE:LINE: message" (|file| the policy's
 * name), each deny pattern of |sp| that matches long options ("--name")
 * but refuses none of their abbreviations, since it does not start with
 * "--" ("*upload-pack*" lets "--upl=X" through): a pattern written
 * "--name*" would refuse them.  One that matches every long option is
 * not reported.  Returns the number reported.
 */
int	shell_rules_warn(const struct shell_policy *sp, const char *file,
	    tc_policy_report_fn *report, void *ctx);

/* --- Running one program, in the confined child (shell_run.c) --- */

struct shell_exec {
	const char	*path;		/* absolute */
	char *const	*argv;
	char *const	*envp;
	int		 cwd_fd;	/* the directory it runs in */
	const char	*stdin_data;	/* what it reads, or NULL: nothing */
	size_t		 stdin_len;
	int		 stdin_fd;	/* a job's input (tc_call_input_fd()),
					   or -1 */
	int		 timeout_ms;	/* 0: none (the run's deadline) */
	size_t		 max_output;	/* bytes kept per stream */
	int		 binary;	/* exact bytes, base64, in the
					   structured content too */
	int		 stream;	/* send output as it comes
					   (tc_call_output()) */
	int		 tty;		/* on a terminal (0: pipes): */
	int		 tty_master;	/* its master, which the runner reads
					   and writes (the handler's), */
	int		 tty_slave;	/* its slave, the program's fds 0-2
					   and controlling terminal (the
					   runner's: it closes it) */
	int		 tty_mark;	/* the slave once more, non-blocking
					   (tc_call_tty()): the runner's
					   own, which it closes; -1: none */
};

/*
 * Runs |x| in its own process group, pumping its stdout and stderr, each
 * kept in order up to x->max_output bytes and counted past it, telling
 * the client how it goes (tc_call_progress()) about once a second, until
 * it exits or x->timeout_ms passes (then the group is killed).  Fills
 * |res|: the exit code or signal, stdout and stderr apart, whether each
 * was cut, their total sizes, the duration, whether it timed out.
 * With x->tty, the program runs instead in a session of its own whose
 * controlling terminal is x->tty_slave, on its fds 0-2: what it writes
 * comes from x->tty_master as stdout (stderr is empty), and its input
 * (x->stdin_data, then x->stdin_fd, whose end of file is sent as the
 * terminal's end-of-file character) goes to the master.  The result says
 * "tty": true.  Takes x->tty_slave (closed once the program has it, or on
 * a failure to start) and x->tty_mark (closed once the mark written there
 * after the program's exit is back or given up on, and in any case by
 * its return); x->tty_master stays the caller's.
 * Returns 0, or a TC_E* code when it could not be started (|res| says
 * why).
 */
int	shell_exec_run(const struct tc_call *call, const struct shell_exec *x,
	    struct tc_result *res);

/*
 * Notes which signals this process ignores, for shell_exec_run() to give
 * the program back at their default (an ignored signal stays ignored
 * across exec), and opens what a run without a terminal takes: its
 * output and status pipes and /dev/null.  A ready child does it before
 * its call (shell_profile's ahead hook: this child's own, as its scratch
 * directory is, which is why no shell profile may have a zygote);
 * shell_exec_run() does it itself if it was not done.
 */
void	shell_exec_ready(void);

/* --- The profile (shell_profile.c) --- */

extern const struct tc_profile shell_profile;
/* start_command's: shell_profile, and a pseudo-terminal (TC_MAY_TTY). */
extern const struct tc_profile shell_job_profile;

/* --- Scratch directories (shell_scratch.c) --- */

/*
 * The directory beneath which each call makes its scratch directory (its
 * HOME and TMPDIR when the policy names no home), or NULL before
 * shell_scratch_init() or without it.  The profile lets calls write
 * beneath it; its mode (0111) lets them change nothing in it, and that of
 * the two directories in it (0300: the calls' directories, and those
 * spent) lets them list nothing there.
 */
extern const char *shell_scratch_base;

/* The directory shell_scratch_init() makes the base in: $TMPDIR if it is
 * absolute and no longer than PATH_MAX / 2, else /tmp.  Not owned. */
const char *shell_scratch_tmpdir(void);

/* The base, open (O_PATH, O_CLOEXEC) as shell_scratch_init() made it,
 * for the calls' Landlock rules; -1 before or without it. */
int	shell_scratch_base_fd(void);

/*
 * In the server, at start (not for --check): makes shell_scratch_base in
 * $TMPDIR or /tmp, and the two directories in it, owned by |pol|'s run-as
 * user if it has one, to be removed with all it holds when the server
 * exits; forks the sweeper of spent directories.  Returns 0, or TC_ESYS
 * or TC_ENOMEM with |d| saying why.
 */
int	shell_scratch_init(const struct tc_policy *pol, struct tc_diag *d);

/*
 * In a call's child: makes a new directory (0700, named by 128 random
 * bits) beneath shell_scratch_base, and holds a lock on it (flock, by a
 * close-on-exec fd) until shell_scratch_done(): the sweeper removes a
 * directory whose lock it can take.  Returns its path (the caller frees
 * it, and is done with the directory by shell_scratch_done()), or NULL
 * with errno set.
 */
char	*shell_scratch_make(void);

/*
 * In a ready child (shell_profile's ahead hook), before its call: makes
 * the call's scratch directory with shell_scratch_make() where the policy
 * names no home, for shell_scratch_take().  Failing, it leaves that to
 * the call.  A ready child retired without a call leaves its directory,
 * empty and no longer locked, for the sweeper to remove.
 */
void	shell_scratch_ready(const struct tc_policy *pol);

/*
 * In a call's child: the directory shell_scratch_ready() made, or a new
 * one (shell_scratch_make()).  Returns its path (the caller frees it),
 * or NULL with errno set.
 */
char	*shell_scratch_take(void);

/*
 * In a call's child, once its program has ended: empties the scratch
 * directory |path| and moves it out of the way, for the server's sweeper
 * to remove off the call's path; removes it itself (shell_tree_remove())
 * where that cannot be done.
 */
void	shell_scratch_done(const char *path);

/* Removes the directory |path| and all beneath it, at any depth, never
 * following a symbolic link.  Returns 0 (also if there is no |path|), or -1 with
 * errno set. */
int	shell_tree_remove(const char *path);

#endif /* TC_SHELL_H */
