/*
 * toolcell-hostile: a server for the containment tests only, never
 * installed.  It is built from common/ like toolcell-fs and takes the same
 * options and directories, but its tools are hostile: each one tries one
 * way out of the sandbox and reports what happened (see hostile.h).  The
 * tests in tests/e2e/sdk/containment.test.mjs drive it with the official
 * MCP client.
 */
#include <limits.h>
#include <stdint.h>

#include "hostile.h"
#include "hostile_policy.h"
#include "serve/dirs.h"
#include "serve/job.h"
#include "serve/server.h"

/* --- Arguments --- */

#define A_STR(n, d)	{ .name = (n), .type = TC_ARG_STRING,		\
			  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY,	\
			  .max_len = PATH_MAX, .description = (d) }
#define A_OPTSTR(n, d)	{ .name = (n), .type = TC_ARG_STRING,		\
			  .max_len = PATH_MAX, .description = (d) }
#define A_INT(n, lo, hi, dflt, d) { .name = (n), .type = TC_ARG_INT,	\
			  .flags = TC_ARG_DEFAULT, .min = (lo), .max = (hi), \
			  .def = (dflt), .description = (d) }
#define A_OPTINT(n, lo, hi, d) { .name = (n), .type = TC_ARG_INT,	\
			  .min = (lo), .max = (hi), .description = (d) }
#define A_ENUM(n, e, d)	{ .name = (n), .type = TC_ARG_STRING,		\
			  .flags = TC_ARG_REQUIRED, .enums = (e),	\
			  .description = (d) }

#define PID_ARG	A_OPTINT("pid", 1, INT_MAX, "The server's pid as the test "\
		    "sees it, for children whose getppid() is 0 (in a PID " \
		    "namespace of their own).")
#define ROOT_ARG A_OPTINT("root", 0, 63, "Open the path relative to this "\
		    "root's directory fd instead of the working directory.")
#define SECRET_ARG A_STR("secret", "The bytes whose return means the " \
		    "attempt worked.")

static const struct tc_arg no_args[] = {
	{ .name = NULL }
};

static const struct tc_arg pid_args[] = {
	PID_ARG,
	{ .name = NULL }
};

static const struct tc_arg read_path_args[] = {
	A_STR("path", "File to open and read with plain openat()."),
	SECRET_ARG,
	ROOT_ARG,
	{ .name = NULL }
};

static const struct tc_arg race_read_args[] = {
	A_STR("path", "The path whose last component the test flips."),
	SECRET_ARG,
	A_STR("inside", "The bytes of the inside file the link also names."),
	A_INT("iterations", 1, 1000000, 20000, "Opens to make."),
	A_INT("max_ms", 1, 60000, 10000, "Stop after this long."),
	ROOT_ARG,
	{ .name = NULL }
};

static const char *const write_modes[] = { "trunc", "append", NULL };

static const struct tc_arg write_path_args[] = {
	A_STR("path", "File to create or overwrite."),
	A_STR("data", "Bytes to write."),
	{ .name = "mode", .type = TC_ARG_STRING, .enums = write_modes,
	  .description = "O_TRUNC (default) or O_APPEND." },
	ROOT_ARG,
	{ .name = NULL }
};

static const struct tc_arg symlink_write_args[] = {
	A_STR("link", "Where to make the symlink."),
	A_STR("target", "What it points to."),
	A_STR("data", "Bytes to write through it."),
	{ .name = NULL }
};

static const char *const link_ops[] = { "link", "rename_in", "rename_out",
	NULL };

static const struct tc_arg link_out_args[] = {
	A_ENUM("op", link_ops, "link (hard link), rename_in or rename_out."),
	A_STR("from", "Existing path."),
	A_STR("to", "New path."),
	A_OPTSTR("secret", "For link: the bytes to look for through the "
	    "new link."),
	{ .name = NULL }
};

static const char *const proc_whats[] = { "environ", "fd", "root", "cwd",
	NULL };

static const struct tc_arg server_proc_args[] = {
	A_ENUM("what", proc_whats, "Which file of /proc/<server>/."),
	A_OPTINT("fd", 0, 1 << 20, "For fd: the descriptor number."),
	A_OPTSTR("rel", "For root and cwd: the path below them."),
	SECRET_ARG,
	PID_ARG,
	{ .name = NULL }
};

static const struct tc_arg fd_canary_args[] = {
	SECRET_ARG,
	A_OPTSTR("open_first", "A file to open before the scan (the "
	    "control)."),
	{ .name = NULL }
};

static const struct tc_arg env_canary_args[] = {
	A_STR("name", "The variable the test set in the server's "
	    "environment."),
	SECRET_ARG,
	{ .name = NULL }
};

static const struct tc_arg kill_all_args[] = {
	PID_ARG,
	A_OPTINT("sentinel", 1, INT_MAX, "A process of the test's, which "
	    "must not be reachable."),
	A_OPTINT("sentinel_uid", 0, UINT32_MAX - 1, "The sentinel's uid."),
	{ .name = NULL }
};

static const struct tc_arg setuid_exec_args[] = {
	A_STR("path", "The setuid binary."),
	{ .name = "args", .type = TC_ARG_STRING_ARRAY, .max_len = 14,
	  .item_max_len = 256, .description = "Its arguments." },
	A_INT("watch_ms", 0, 10000, 300, "How long to watch its euid."),
	{ .name = NULL }
};

static const struct tc_arg exec_capture_args[] = {
	A_STR("path", "The program."),
	{ .name = "args", .type = TC_ARG_STRING_ARRAY, .max_len = 14,
	  .item_max_len = PATH_MAX, .description = "Its arguments." },
	SECRET_ARG,
	{ .name = NULL }
};

static const struct tc_arg fork_bomb_args[] = {
	A_INT("max", 1, 10000, 10000, "Children to fork at most."),
	A_INT("max_ms", 1, 60000, 10000, "Stop forking after this long, "
	    "so that the tool reports before its deadline even where forks "
	    "are slow (sanitizer builds)."),
	{ .name = "tag", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY, .max_len = 15,
	  .description = "The name the children give themselves." },
	{ .name = NULL }
};

static const struct tc_arg orphan_args[] = {
	{ .name = "tag", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY, .max_len = 15,
	  .description = "The name the grandchild gives itself." },
	A_INT("seconds", 1, 3600, 100, "How long it sleeps."),
	{ .name = NULL }
};

static const struct tc_arg io_uring_args[] = {
	A_STR("path", "File to open through the ring."),
	SECRET_ARG,
	{ .name = NULL }
};

static const char *const priv_ops[] = { "mount", "umount2", "unshare_user",
	"unshare_mount", "clone_newuser", "keyctl", "add_key", "bpf",
	"perf_event_open", "userfaultfd", NULL };

static const struct tc_arg privileged_args[] = {
	A_ENUM("op", priv_ops, "The privileged operation."),
	A_OPTSTR("target", "For mount and umount2: a directory of the "
	    "test's."),
	{ .name = NULL }
};

static const char *const net_kinds[] = { "tcp", "udp", "unix", "abstract",
	NULL };

static const struct tc_arg net_connect_args[] = {
	A_ENUM("kind", net_kinds, "tcp, udp, unix (pathname) or abstract."),
	A_OPTSTR("host", "IPv4 address (default 127.0.0.1)."),
	A_OPTINT("port", 1, 65535, "TCP or UDP port."),
	A_OPTSTR("path", "Pathname of the unix socket."),
	A_OPTSTR("name", "Abstract socket name, without the leading NUL."),
	A_STR("token", "Bytes to send once connected."),
	{ .name = NULL }
};

static const struct tc_arg memory_bomb_args[] = {
	A_INT("chunk_mib", 1, 1024, 16, "Allocate this much at a time."),
	A_INT("cap_mib", 1, 1 << 16, 4096, "Stop here whatever happens."),
	A_INT("limit_mib", 1, 1 << 16, 1024, "More than this is an escape."),
	{ .name = NULL }
};

static const struct tc_arg many_paths_args[] = {
	{ .name = "paths", .type = TC_ARG_STRING_ARRAY,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = 64, .item_max_len = PATH_MAX,
	  .description = "Paths the policy's rules look at (up to 64)." },
	{ .name = NULL }
};

static const char *const flood_modes[] = { "text", "stdout", NULL };

static const struct tc_arg output_flood_args[] = {
	A_ENUM("mode", flood_modes, "Flood the result text or stdout."),
	A_INT("mib", 1, 1024, 80, "How much to write."),
	A_STR("token", "Marks the lines written to stdout."),
	{ .name = NULL }
};

static const struct tc_arg reach_args[] = {
	{ .name = "pid", .type = TC_ARG_INT, .flags = TC_ARG_REQUIRED,
	  .min = 1, .max = INT_MAX, .description = "The process to reach, "
	  "as the test sees it." },
	A_OPTSTR("what", "What the process is, for the report."),
	{ .name = NULL }
};

static const struct tc_arg setid_args[] = {
	A_STR("dir", "Where to make new files and directories."),
	{ .name = "tag", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY, .max_len = 64,
	  .description = "Begins the name of each file made." },
	A_OPTSTR("file", "An existing file without set-id bits, to chmod."),
	A_OPTSTR("setid_file", "An existing set-id file, to link into dir."),
	{ .name = NULL }
};

static const struct tc_arg write_every_way_args[] = {
	A_STR("dir", "The directory to change, holding the names the tool "
	    "works on."),
	A_STR("other", "A directory where changes are allowed, for renames "
	    "and links across."),
	{ .name = NULL }
};

static const char *const utf8_wheres[] = { "text", "structured", "key",
	"none", NULL };

static const struct tc_arg bad_utf8_args[] = {
	A_ENUM("where", utf8_wheres, "Where the bad bytes go: the text, a "
	    "structured value or a structured key; none for the marker "
	    "alone (the control)."),
	A_STR("marker", "Bytes put just before them, to look for."),
	{ .name = NULL }
};

static const struct tc_arg echo_args[] = {
	{ .name = "ratio", .type = TC_ARG_NUMBER, .flags = TC_ARG_DEFAULT,
	  .num_min = 0, .num_max = 1, .num_def = 0.5,
	  .description = "A number from 0 to 1." },
	{ .name = "cwd", .type = TC_ARG_STRING, .flags = TC_ARG_NULLABLE,
	  .max_len = PATH_MAX,
	  .description = "A directory, or null for none." },
	{ .name = "params", .type = TC_ARG_SCALAR_ARRAY, .max_len = 16,
	  .item_max_len = 64,
	  .description = "Parameters: strings, numbers, booleans, nulls." },
	{ .name = "env", .type = TC_ARG_STRING_MAP, .flags = TC_ARG_NAME_KEYS,
	  .max_len = 8, .key_max_len = 64, .item_max_len = 256,
	  .description = "Environment variables: names and values." },
	{ .name = NULL }
};

/* Streaming and jobs (stream.c). */
static const struct tc_arg progress_steps_args[] = {
	A_INT("steps", 1, 1000000, 5, "Progress updates to send."),
	{ .name = "quiet", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0, .description = "Send them without a message." },
	A_OPTSTR("go", "A name in the first root to wait for before "
	    "answering."),
	{ .name = NULL }
};

static const struct tc_arg job_echo_args[] = {
	{ .name = "tree", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0, .description = "Leave a setsid grandchild and a "
	  "double-forked one running, and write their pids first." },
	A_INT("lines", 0, 100000, 0, "Lines to write, stdout and stderr "
	    "in turn."),
	A_INT("flood_kib", 0, 1 << 20, 0, "KiB of 'x' to write after "
	    "them."),
	{ .name = "bytes", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0, .description = "Then write a line of bytes that are "
	  "not UTF-8 (a NUL among them)." },
	{ .name = NULL }
};

static const char sent_schema[] =
    "{\"type\":\"object\",\"properties\":{\"sent\":"
    "{\"type\":\"integer\"}}}";

/* --- Output --- */

static const char echo_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"ratio\":{\"type\":\"number\"},"
    "\"cwd\":{\"type\":[\"string\",\"null\"]},"
    "\"nparams\":{\"type\":\"integer\"},"
    "\"params\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"required\":[\"kind\",\"value\"]}},"
    "\"env\":{\"type\":\"array\",\"items\":{\"type\":\"array\","
    "\"items\":{\"type\":\"string\"}}},"
    "\"home\":{\"type\":\"string\"}},"
    "\"required\":[\"ratio\",\"nparams\",\"params\",\"env\"]}";

static const char out_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"escaped\":{\"type\":\"boolean\",\"description\":\"the attempt "
    "achieved what it tried\"},"
    "\"errno\":{\"type\":\"integer\"},"
    "\"detail\":{\"type\":\"string\"}}}";

/* --- Tools --- */

#define HOSTILE	(TC_TOOL_DESTRUCTIVE | TC_TOOL_OPEN_WORLD)

#define TOOL(n, f, a, prof, what)					\
	{ .name = (n), .description = (what), .args = (a),		\
	  .output_schema = out_schema, .fn = (f), .profile = (prof),	\
	  .flags = HOSTILE }
#define FS	(&hostile_fs_read)
#define WR	(&hostile_fs_write)
#define EX	(&hostile_exec)
#define SQ	(&hostile_sqlite)

static const struct tc_tool hostile_tools[] = {
	{ .name = "hello", .title = "Hello",
	  .description = "A benign call: proves the server still serves.",
	  .args = no_args, .output_schema = out_schema, .fn = hs_hello,
	  .profile = FS, .flags = TC_TOOL_READONLY },
	{ .name = "echo_args", .title = "Echo arguments",
	  .description = "Returns a number, a nullable string, scalar "
	      "parameters and an environment as the handler read them.",
	  .args = echo_args, .output_schema = echo_schema, .fn = hs_echo_args,
	  .profile = FS, .flags = TC_TOOL_READONLY },
	{ .name = "many_paths", .title = "Many paths",
	  .description = "hello, with more paths than one call of toolcell-fs "
	      "can name, for the policy's rules to check.",
	  .args = many_paths_args, .output_schema = out_schema, .fn = hs_hello,
	  .profile = FS, .flags = TC_TOOL_READONLY },
	TOOL("status", hs_status, no_args, FS,
	    "Report CapEff, NoNewPrivs, Seccomp, NSpid and more."),
	TOOL("status_exec", hs_status, no_args, EX,
	    "status, in the shell-exec profile."),

	/* Files. */
	TOOL("read_path", hs_read_path, read_path_args, FS,
	    "open() and read a path; escaped if the secret came back."),
	TOOL("race_read", hs_race_read, race_read_args, FS,
	    "Read a path the test flips between inside and outside, "
	    "again and again."),
	TOOL("write_path", hs_write_path, write_path_args, WR,
	    "open(O_CREAT) and write a path."),
	TOOL("symlink_write", hs_symlink_write, symlink_write_args, WR,
	    "Make a symlink, then create and write through it."),
	TOOL("link_out", hs_link_out, link_out_args, WR,
	    "Hard link or rename across the root's edge."),
	TOOL("server_proc", hs_server_proc, server_proc_args, FS,
	    "Read the server's /proc files: environ, fd/N, root/, cwd/."),
	TOOL("server_proc_exec", hs_server_proc, server_proc_args, EX,
	    "server_proc, in the shell-exec profile."),
	TOOL("fd_canary", hs_fd_canary, fd_canary_args, FS,
	    "Scan fds 3-1023 and read every regular file among them."),
	TOOL("fd_canary_exec", hs_fd_canary, fd_canary_args, EX,
	    "fd_canary, in the shell-exec profile."),
	TOOL("env_canary", hs_env_canary, env_canary_args, FS,
	    "Look for the server's environment in ours."),
	TOOL("env_canary_exec", hs_env_canary, env_canary_args, EX,
	    "env_canary, in the shell-exec profile."),

	/* Processes. */
	TOOL("signal_server", hs_signal_server, pid_args, FS,
	    "kill(server, SIGTERM)."),
	TOOL("signal_server_exec", hs_signal_server, pid_args, EX,
	    "signal_server, in the shell-exec profile."),
	TOOL("kill_all", hs_kill_all, kill_all_args, EX,
	    "kill(-1, SIGKILL), where that cannot reach past the call."),
	TOOL("ptrace_server", hs_ptrace_server, pid_args, FS,
	    "ptrace(PTRACE_ATTACH) and process_vm_readv the server."),
	TOOL("ptrace_server_exec", hs_ptrace_server, pid_args, EX,
	    "ptrace_server, in the shell-exec profile."),
	TOOL("setuid_exec", hs_setuid_exec, setuid_exec_args, EX,
	    "Run a setuid binary; escaped if its euid differed."),
	TOOL("exec_capture", hs_exec_capture, exec_capture_args, EX,
	    "Run a program; escaped if the secret is in its output."),
	TOOL("fork_bomb", hs_fork_bomb, fork_bomb_args, EX,
	    "Fork up to max children that leave the process group."),
	TOOL("orphan", hs_orphan, orphan_args, EX,
	    "Leave a grandchild behind, out of the process group."),

	/* System calls. */
	TOOL("io_uring", hs_io_uring, io_uring_args, FS,
	    "io_uring_setup, then IORING_OP_OPENAT if it worked."),
	TOOL("io_uring_exec", hs_io_uring, io_uring_args, EX,
	    "io_uring, in the shell-exec profile."),
	TOOL("abi_x32", hs_abi_x32, no_args, FS,
	    "socket() as an x32 system call."),
	TOOL("abi_int80", hs_abi_int80, no_args, FS,
	    "socket() as an i386 system call (int 0x80)."),
	TOOL("abi_probe", hs_abi_probe, no_args, EX,
	    "Whether i386 system calls exist, from a grandchild."),
	TOOL("tiocsti", hs_tiocsti, no_args, FS,
	    "TIOCSTI on fds 0-2 and /dev/tty, also with high bits set."),
	TOOL("tiocsti_exec", hs_tiocsti, no_args, EX,
	    "tiocsti, in the shell-exec profile."),
	TOOL("privileged", hs_privileged, privileged_args, FS,
	    "mount, umount2, unshare, clone, keyctl, bpf and more."),
	TOOL("privileged_exec", hs_privileged, privileged_args, EX,
	    "privileged, in the shell-exec profile."),
	TOOL("net_connect", hs_net_connect, net_connect_args, EX,
	    "Connect to a TCP, UDP, unix or abstract listener."),
	TOOL("net_connect_fs", hs_net_connect, net_connect_args, FS,
	    "net_connect, in the fs-read profile."),

	/* Resources. */
	TOOL("memory_bomb", hs_memory_bomb, memory_bomb_args, FS,
	    "malloc and touch until malloc fails."),
	TOOL("cpu_spin", hs_cpu_spin, no_args, FS, "Spin forever."),
	TOOL("sleep_forever", hs_sleep_forever, no_args, FS,
	    "Sleep forever."),
	TOOL("fd_exhaust", hs_fd_exhaust, no_args, FS,
	    "Open until EMFILE."),
	TOOL("output_flood", hs_output_flood, output_flood_args, FS,
	    "Flood the result or stdout."),
	TOOL("wx_memory", hs_wx_memory, no_args, FS,
	    "Make written memory executable, and run it."),
	TOOL("wx_memory_exec", hs_wx_memory, no_args, EX,
	    "wx_memory, in the shell-exec profile."),

	/* Other processes and set-id bits, in every profile. */
	TOOL("reach_process", hs_reach_process, reach_args, FS,
	    "Every system call that takes a pid, aimed at another process."),
	TOOL("reach_process_write", hs_reach_process, reach_args, WR,
	    "reach_process, in the fs-write profile."),
	TOOL("reach_process_sqlite", hs_reach_process, reach_args, SQ,
	    "reach_process, in the sqlite profile."),
	TOOL("reach_process_exec", hs_reach_process, reach_args, EX,
	    "reach_process, in the shell-exec profile."),
	TOOL("setid", hs_setid, setid_args, WR,
	    "Every way to make or change a file so that it is set-id, "
	    "and to change a file's mode."),
	TOOL("setid_fs", hs_setid, setid_args, FS,
	    "setid, in the fs-read profile."),
	TOOL("setid_sqlite", hs_setid, setid_args, SQ,
	    "setid, in the sqlite profile."),
	TOOL("setid_exec", hs_setid, setid_args, EX,
	    "setid, in the shell-exec profile."),

	/* Checks a deliberate bug could turn off. */
	TOOL("write_every_way", hs_write_every_way, write_every_way_args, WR,
	    "Change a directory by every call the fs-write profile has."),
	TOOL("bad_utf8", hs_bad_utf8, bad_utf8_args, FS,
	    "Return bytes that are not UTF-8 in the result."),

	/* Typed subjects (subjects.c), for consent and the audit log. */
	{ .name = "run_thing", .title = NULL,
	  .description = "Say hello; the call's subjects are a program, its "
	      "arguments, where it runs and the variables it sets.",
	  .args = hs_run_thing_args, .output_schema = out_schema,
	  .fn = hs_hello, .profile = FS, .flags = HOSTILE,
	  .subjects = hs_run_subjects, .subject_kinds = HS_RUN_KINDS },
	{ .name = "sql_thing", .title = NULL,
	  .description = "Say hello; the call's subjects are a database and "
	      "what its statement does.",
	  .args = hs_sql_thing_args, .output_schema = out_schema,
	  .fn = hs_hello, .profile = FS, .flags = HOSTILE,
	  .subjects = hs_sql_subjects, .subject_kinds = HS_SQL_KINDS },
	TOOL("root_fds", hs_root_fds, no_args, FS,
	    "Count the root fds and directory fds open in the child."),
	TOOL("root_fds_sqlite", hs_root_fds, no_args, SQ,
	    "root_fds, in the sqlite profile, which keeps no root fd."),
	/* Streaming and jobs (stream.c, serve/job.h). */
	{ .name = "progress_steps", .title = NULL,
	  .description = "Send progress updates, then answer.",
	  .args = progress_steps_args, .output_schema = sent_schema,
	  .fn = hs_progress_steps, .profile = FS, .flags = TC_TOOL_READONLY },
	{ .name = "tree_sleep", .title = NULL,
	  .description = "Leave a setsid grandchild and a double-forked one, "
	      "say their pids in a progress message, and wait to be cancelled.",
	  .args = no_args, .output_schema = NULL, .fn = hs_tree_sleep,
	  .profile = EX, .flags = HOSTILE },
	{ .name = "job_echo", .title = NULL,
	  .description = "A job: write lines, then echo the input until it "
	      "ends.",
	  .args = job_echo_args, .output_schema = tc_job_start_schema,
	  .fn = hs_job_echo, .profile = EX, .flags = HOSTILE | TC_TOOL_JOB },
	TC_JOB_READ_TOOL("read_output", "Read a job's output",
	    TC_JOB_READ_DESC),
	TC_JOB_WRITE_TOOL("write_input", "Write to a job's input",
	    TC_JOB_WRITE_DESC),
	TC_JOB_STOP_TOOL("stop_job", "Stop a job", TC_JOB_STOP_DESC),
	TC_JOB_LIST_TOOL("list_jobs", "List the jobs", TC_JOB_LIST_DESC),
};

int
main(int argc, char *argv[])
{
	static const struct tc_server hostile = {
		.name = "toolcell-hostile",
		.title = "toolcell hostile tools (tests only)",
		.version = TC_VERSION,
		.summary = "hostile tools that try to leave the sandbox, for "
		    "the containment tests",
		.tools = hostile_tools,
		.ntools = TC_NITEMS(hostile_tools),
		.policy_section = &hostile_policy_section,
		/* The directories and --write, as toolcell-fs takes them. */
		TC_DIRS_CMDLINE,
	};

	return tc_server_main(&hostile, argc, argv);
}
