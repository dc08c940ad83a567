/*
 * hostile.h: the hostile tools of toolcell-hostile, a test-only server
 * whose handlers each try one way out of the sandbox with plain libc and
 * raw system calls, and report what really happened.
 *
 * Every handler fills structuredContent with what it observed, computed
 * from the outcome of the attempt and never assumed: "escaped" is true
 * when the attempt achieved what it tried (the secret's bytes came back,
 * the bytes were written, the connection was made, the signal could be
 * delivered), with the errno and a sentence in "detail".  The tests aim
 * most tools outside the roots and expect false; aimed at an allowed
 * target, the same tool must say true, which is how the tests show that
 * the detector itself works.
 */
#ifndef TC_HOSTILE_H
#define TC_HOSTILE_H

#include <stddef.h>
#include <sys/types.h>

#include "policy/subject.h"
#include "protocol/tools.h"

/* --- Confinement profiles (hostile_profile.c) --- */

extern const struct tc_profile hostile_fs_read;
extern const struct tc_profile hostile_fs_write;
extern const struct tc_profile hostile_exec;
extern const struct tc_profile hostile_sqlite;

/* --- Reporting (util.c) --- */

/*
 * Sets "escaped", "errno" and "detail" in the structured result and
 * appends the same to the text.  Returns 0.
 */
int	hs_outcome(struct tc_result *res, int escaped, int err,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Adds an integer or a string member to the structured result. */
void	hs_int(struct tc_result *res, const char *name, long long v);
void	hs_str(struct tc_result *res, const char *name, const char *v);
void	hs_bool(struct tc_result *res, const char *name, int v);

/* --- Helpers (util.c) --- */

/*
 * Reads up to |cap| bytes from |fd| into |buf| (not terminated).  Returns
 * the count, or -1 with errno set if the first read failed.
 */
ssize_t	hs_read_some(int fd, char *buf, size_t cap);

/* Returns 1 if |needle| (a C string, not empty) occurs in |buf|[0..n). */
int	hs_contains(const char *buf, size_t n, const char *needle);

/*
 * Opens |path| read-only (relative to |dirfd|, AT_FDCWD for the working
 * directory), reads up to 64 KiB and checks for |secret|.  Returns 1 if
 * the secret came back, 0 if the open or read failed (errno in *|err|,
 * 0 for a read that worked but held no secret); *|nread| gets the bytes
 * read or -1.
 */
int	hs_read_secret(int dirfd, const char *path, const char *secret,
	    int *err, ssize_t *nread);

/*
 * Returns this process's pid as the init PID namespace sees it: the first
 * field of NSpid in /proc/self/status, or getpid() when /proc cannot be
 * read.  *|nested| is set to 1 when NSpid has more than one field.
 */
long	hs_outer_pid(int *nested);

/*
 * Returns the server's pid: getppid() when the server is our parent in
 * our PID namespace, else the "pid" argument (0 if none was given).
 */
long	hs_server_pid(const struct tc_call *call);

/* Returns root |i|'s path or directory fd, or NULL / -1. */
const char *hs_root_path(const struct tc_call *call, size_t i);
int	hs_root_fd(const struct tc_call *call, size_t i);

/* --- Handlers --- */

/* echo.c: the argument types, echoed back as the handler read them. */
tc_tool_fn	hs_echo_args;

/* files.c: paths, links, races, /proc and canaries. */
tc_tool_fn	hs_hello;
tc_tool_fn	hs_read_path;
tc_tool_fn	hs_race_read;
tc_tool_fn	hs_write_path;
tc_tool_fn	hs_symlink_write;
tc_tool_fn	hs_link_out;
tc_tool_fn	hs_server_proc;
tc_tool_fn	hs_fd_canary;
tc_tool_fn	hs_env_canary;

/* procs.c: processes, signals, tracing, exec. */
tc_tool_fn	hs_signal_server;
tc_tool_fn	hs_kill_all;
tc_tool_fn	hs_ptrace_server;
tc_tool_fn	hs_setuid_exec;
tc_tool_fn	hs_exec_capture;
tc_tool_fn	hs_fork_bomb;
tc_tool_fn	hs_orphan;

/* syscalls.c: forbidden system calls, other ABIs, ioctls, sockets. */
tc_tool_fn	hs_io_uring;
tc_tool_fn	hs_abi_x32;
tc_tool_fn	hs_abi_int80;
tc_tool_fn	hs_abi_probe;
tc_tool_fn	hs_tiocsti;
tc_tool_fn	hs_privileged;
tc_tool_fn	hs_net_connect;

/*
 * limits.c: resources, executable memory, and the child's own view of its
 * confinement.
 */
tc_tool_fn	hs_memory_bomb;
tc_tool_fn	hs_cpu_spin;
tc_tool_fn	hs_sleep_forever;
tc_tool_fn	hs_fd_exhaust;
tc_tool_fn	hs_output_flood;
tc_tool_fn	hs_status;
tc_tool_fn	hs_wx_memory;

/*
 * reach.c: every system call that takes a pid, aimed at another process,
 * and every way to give a file a set-user-ID or set-group-ID bit.
 */
tc_tool_fn	hs_reach_process;
tc_tool_fn	hs_setid;

/*
 * checks.c: Landlock's write rights, a result that is not UTF-8, and the
 * root fds a child keeps.
 */
tc_tool_fn	hs_write_every_way;
tc_tool_fn	hs_bad_utf8;
tc_tool_fn	hs_root_fds;

/*
 * subjects.c: tools whose calls have typed subjects (policy/subject.h):
 * run_thing (program, arguments, working directory, environment names)
 * and sql_thing (database, statement kind).  Their children say hello.
 */
extern const struct tc_arg hs_run_thing_args[];
extern const struct tc_arg hs_sql_thing_args[];
int	hs_run_subjects(const struct tc_subject_ctx *ctx, const cJSON *args,
	    struct tc_subjects *out, struct tc_diag *d);
int	hs_sql_subjects(const struct tc_subject_ctx *ctx, const cJSON *args,
	    struct tc_subjects *out, struct tc_diag *d);
#define HS_RUN_KINDS	(1u << TC_SUBJECT_PROGRAM | 1u << TC_SUBJECT_ARG | \
			 1u << TC_SUBJECT_CWD | 1u << TC_SUBJECT_ENV)
#define HS_SQL_KINDS	(1u << TC_SUBJECT_DATABASE | 1u << TC_SUBJECT_STATEMENT)

/* stream.c: progress, output, jobs, and the trees they must not leave. */
tc_tool_fn	hs_progress_steps;
tc_tool_fn	hs_tree_sleep;
tc_tool_fn	hs_job_echo;

#endif /* TC_HOSTILE_H */
