/*
 * test-confine.c: what a child can see of its own confinement, read from
 * /proc/self/status inside a real run, and what the server process itself
 * gives away; the Landlock side of profiles (rules a server computes at
 * start, the root fds a child keeps).  The profiles are toolcell-fs's
 * fs-read and the hostile test server's exec profile (which stands for a
 * server that runs programs), as the servers define them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "sandbox/sandbox.h"
#include "runcall.h"
#include "tap.h"

/* servers/fs/fs_profile.c and tests/hostile/hostile_profile.c */
extern const struct tc_profile fs_read_profile, hostile_exec;

#define FS_READ		(&fs_read_profile)
#define EXEC		(&hostile_exec)

/* The set of the profiles above, for tc_sandbox_init(). */
static const struct tc_profiles *
both_profiles(void)
{
	static struct tc_profiles set;

	if (set.n == 0) {
		tc_profiles_add(&set, FS_READ);
		tc_profiles_add(&set, EXEC);
	}
	return &set;
}

static const struct tc_arg no_args[] = { { NULL } };

/* A test tool: no arguments, any object out. */
#define TOOL(n, f, p)	{ .name = (n), .description = (n), .args = no_args, \
			  .output_schema = "{\"type\":\"object\"}",	\
			  .fn = (f), .profile = (p) }

/* Returns the status lines whose names the test checks, one per line. */
static int
h_status(const struct tc_call *call, struct tc_result *res)
{
	static const char *const keys[] = { "CapInh:", "CapPrm:", "CapEff:",
	    "CapBnd:", "CapAmb:", "NoNewPrivs:", "Seccomp:", "NSpid:", "Uid:",
	    "Gid:", "Groups:", "SigIgn:", NULL };
	char line[256];
	FILE *f;
	size_t i;
	int sig = 0;

	(void)call;
	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return tc_result_error(res, "open: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL)
		for (i = 0; keys[i] != NULL; i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0)
				tc_result_printf(res, "%s", line);
	fclose(f);
	/* The first line of its user namespace's uid map. */
	if ((f = fopen("/proc/self/uid_map", "r")) != NULL) {
		if (fgets(line, sizeof(line), f) != NULL)
			tc_result_printf(res, "UidMap: %s", line);
		fclose(f);
	}
	if (prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0) == 0)
		tc_result_printf(res, "PdeathSig: %d\n", sig);
	return 0;
}

static const struct tc_tool status_tools[] = {
	TOOL("status", h_status, FS_READ),
	TOOL("status_exec", h_status, EXEC),
};

/*
 * What a child sees of the system: it runs /bin/true (the exit status, or
 * the fork or exec errno negated), and opens /etc/passwd, /etc/shadow and
 * /etc/hostname (0 or errno).
 */
static int
h_system(const struct tc_call *call, struct tc_result *res)
{
	static const char *const files[] = { "/etc/passwd", "/etc/shadow",
	    "/etc/hostname" };
	static char name[] = "true";
	char *const argv[] = { name, NULL };
	char *const envp[] = { NULL };
	int st, fd, rc;
	size_t i;
	pid_t pid;

	(void)call;
	if ((pid = fork()) == 0) {
		execve("/bin/true", argv, envp);
		_exit(100 + errno);
	}
	if (pid < 0)
		rc = -errno;
	else if (waitpid(pid, &st, 0) != pid)
		rc = -1000;
	else
		rc = WIFEXITED(st) && WEXITSTATUS(st) >= 100 ?
		    -(WEXITSTATUS(st) - 100) : WIFEXITED(st) ?
		    WEXITSTATUS(st) : 1000 + WTERMSIG(st);
	tc_result_printf(res, "true=%d", rc);
	for (i = 0; i < TC_NITEMS(files); i++) {
		fd = open(files[i], O_RDONLY);
		tc_result_printf(res, " %s=%d", files[i] + 5, fd < 0 ? errno : 0);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

static const struct tc_tool system_tools[] = {
	TOOL("system", h_system, FS_READ),
	TOOL("system_exec", h_system, EXEC),
};

static char top[64];		/* the temporary tree, set before forking */

/* Returns 0 if |rc| succeeded, else errno. */
static int
err_of(int rc)
{
	return rc < 0 ? errno : 0;
}

static int
try_open(const char *rel, int flags)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	if ((fd = open(path, flags | O_CLOEXEC, 0600)) < 0)
		return errno;
	close(fd);
	return 0;
}

/* Tries each way out with plain system calls (no openat2): only the
 * kernel's Landlock rules stand in the way. */
static int
h_escape(const struct tc_call *call, struct tc_result *res)
{
	struct sockaddr_in sin;
	char path[256];
	int s;

	(void)call;
	tc_result_printf(res, "inside=%d ", try_open("allowed/f", O_RDONLY));
	tc_result_printf(res, "outside=%d ", try_open("outside/secret",
	    O_RDONLY));
	tc_result_printf(res, "twin=%d ", try_open("allowed-evil/secret",
	    O_RDONLY));
	tc_result_printf(res, "link=%d ", try_open("allowed/out", O_RDONLY));
	tc_result_printf(res, "dotdot=%d ", try_open(
	    "allowed/../outside/secret", O_RDONLY));
	tc_result_printf(res, "write=%d ", try_open("allowed/f", O_WRONLY));
	tc_result_printf(res, "create=%d ", try_open("allowed/new",
	    O_WRONLY | O_CREAT | O_EXCL));
	snprintf(path, sizeof(path), "%s/allowed/fifo", top);
	tc_result_printf(res, "mkfifo=%d ", err_of(mkfifo(path, 0600)));
	snprintf(path, sizeof(path), "/proc/self/root%s/outside/secret", top);
	tc_result_printf(res, "procroot=%d ", err_of(open(path, O_RDONLY)));
	tc_result_printf(res, "environ=%d ", err_of(open("/proc/1/environ",
	    O_RDONLY)));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(9);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	tc_result_printf(res, "connect=%d ", s < 0 ? errno :
	    err_of(connect(s, (struct sockaddr *)&sin, sizeof(sin))));
	tc_result_printf(res, "kill=%d", err_of(kill(getppid(), 0)));
	return 0;
}

static const struct tc_tool escape_tool =
    TOOL("escape", h_escape, FS_READ);

/* System calls no file tool needs, each of which has been an escape. */
static int
h_syscalls(const struct tc_call *call, struct tc_result *res)
{
	struct iovec liov = { NULL, 0 }, riov = { NULL, 0 };
	long high = (long)(0x123UL << 32) | TIOCSTI;
	int sv[2], p;
	char c = 'x';
	void *m;

	(void)call;
	tc_result_printf(res, "socket_unix=%d ", err_of(socket(AF_UNIX,
	    SOCK_STREAM, 0)));
	tc_result_printf(res, "socketpair=%d ", err_of(socketpair(AF_UNIX,
	    SOCK_STREAM, 0, sv)));
	tc_result_printf(res, "ptrace=%d ", err_of((int)syscall(SYS_ptrace,
	    PTRACE_ATTACH, getppid(), 0, 0)));
	tc_result_printf(res, "process_vm=%d ", err_of((int)syscall(
	    SYS_process_vm_readv, getppid(), &liov, 1, &riov, 1, 0)));
	tc_result_printf(res, "io_uring=%d ", err_of((int)syscall(
	    SYS_io_uring_setup, 1, NULL)));
	tc_result_printf(res, "unshare=%d ", err_of(unshare(CLONE_NEWUSER)));
	tc_result_printf(res, "clone_newuser=%d ", err_of((int)syscall(
	    SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)));
	tc_result_printf(res, "mount=%d ", err_of(mount("none", top, "tmpfs",
	    0, NULL)));
	tc_result_printf(res, "keyctl=%d ", err_of((int)syscall(SYS_keyctl,
	    0, 0, 0, 0, 0)));
	tc_result_printf(res, "bpf=%d ", err_of((int)syscall(SYS_bpf, 0,
	    NULL, 0)));
	tc_result_printf(res, "perf=%d ", err_of((int)syscall(
	    SYS_perf_event_open, NULL, 0, -1, -1, 0)));
	tc_result_printf(res, "userfaultfd=%d ", err_of((int)syscall(
	    SYS_userfaultfd, 0)));
	tc_result_printf(res, "personality=%d ", err_of((int)syscall(
	    SYS_personality, 0xffffffff)));
	tc_result_printf(res, "tiocsti=%d ", err_of(ioctl(0, TIOCSTI, &c)));
	tc_result_printf(res, "tiocsti_high=%d ", err_of((int)syscall(
	    SYS_ioctl, 0, high, &c)));
	tc_result_printf(res, "execve=%d ", err_of(execl("/bin/true", "true",
	    (char *)NULL)));
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	p = m == MAP_FAILED ? -1 : mprotect(m, 4096, PROT_READ | PROT_EXEC);
	tc_result_printf(res, "mprotect_exec=%d", m == MAP_FAILED ? -1 :
	    err_of(p));
	return 0;
}

/* A system call of another ABI: the filter kills the process. */
static int
h_int80(const struct tc_call *call, struct tc_result *res)
{
	long r = 20;		/* i386 getpid */

	(void)call;
	__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
	return tc_result_printf(res, "survived: %ld", r);
}

static int
h_x32(const struct tc_call *call, struct tc_result *res)
{
	long r = syscall(0x40000000L | SYS_getpid);

	(void)call;
	return tc_result_printf(res, "survived: %ld errno %d", r, errno);
}

static const struct tc_tool syscalls_tool =
    TOOL("syscalls", h_syscalls, FS_READ);
static const struct tc_tool int80_tool =
    TOOL("int80", h_int80, FS_READ);
static const struct tc_tool x32_tool =
    TOOL("x32", h_x32, FS_READ);

static int	run_text(struct tc_sandbox *sb, const struct tc_tool *t,
		    char *out, size_t n);

/*
 * A system call of a foreign ABI kills the child (SIGSYS); a kernel built
 * without that ABI answers ENOSYS, which is as closed.  Either way it never
 * runs as the native call it would alias.
 */
/* Returns 1 if this kernel runs i386 system calls at all. */
static int
has_ia32(void)
{
	long r = 20;
	pid_t pid;
	int st;

	if ((pid = fork()) == 0) {
		/* Die of the fault, not of a sanitizer's handler for it. */
		signal(SIGSEGV, SIG_DFL);
		__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0;
}

static void
test_arch(struct tc_sandbox *sb, const char *which, const char *name)
{
	char out[256];

	if (strcmp(which, "int80") == 0 && !has_ia32()) {
		skip("i386 system calls: this kernel has no ia32 emulation");
		return;
	}

	run_text(sb, strcmp(which, "int80") == 0 ? &int80_tool : &x32_tool,
	    out, sizeof(out));
	if (strstr(out, "signal 31") != NULL)
		ok(1, "%s: killed by SIGSYS", name);
	else
		ok(strstr(out, "survived: -1 errno 38") != NULL ||
		    strstr(out, "survived: -38") != NULL,
		    "%s: killed, or ENOSYS (got '%s')", name, out);
}

static int
run_text(struct tc_sandbox *sb, const struct tc_tool *t, char *out, size_t n)
{
	struct tc_diag d = { "", 0 };
	const cJSON *text;
	struct tc_call call;
	struct tc_run r;
	cJSON *args, *res;

	out[0] = '\0';
	args = cJSON_CreateObject();
	memset(&call, 0, sizeof(call));
	call.tool = t;
	call.args = args;
	call.policy = sb->policy;
	if (tc_run_start(&r, sb, &call, &d) != 0) {
		cJSON_Delete(args);
		return -1;
	}
	tc_run_wait(&r);
	res = tc_run_take_result(&r);
	text = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(res, "content"), 0), "text");
	if (cJSON_IsString(text))
		snprintf(out, n, "%s", text->valuestring);
	cJSON_Delete(res);
	cJSON_Delete(args);
	tc_run_release(&r);
	return 0;
}

/* --- Profiles: rules computed at start, root fds kept --- */

/* What a child of the rules profile can open. */
static int
h_reads(const struct tc_call *call, struct tc_result *res)
{
	(void)call;
	tc_result_printf(res, "secret=%d twin=%d inside=%d",
	    try_open("outside/secret", O_RDONLY),
	    try_open("allowed-evil/secret", O_RDONLY),
	    try_open("allowed/f", O_RDONLY));
	return 0;
}

/* Which of the policy's root fds are open in the child, and how many
 * fds above 2 are directories. */
static int
h_rootfds(const struct tc_call *call, struct tc_result *res)
{
	struct stat st;
	size_t i;
	int fd, dirs = 0;

	for (i = 0; i < call->policy->nroots; i++)
		tc_result_printf(res, "%s=%s ", (call->policy->roots[i].flags &
		    TC_ROOT_WRITE) ? "rw" : "ro",
		    fcntl(call->policy->roots[i].fd, F_GETFD) >= 0 ? "open" :
		    "closed");
	for (fd = 3; fd < 1024; fd++)
		dirs += fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	tc_result_printf(res, "dirs=%d", dirs);
	return 0;
}

/* A server's rules from its policy: one file outside every root. */
static int
outside_rules(struct tc_ruleset *rs, const struct tc_policy *pol,
    struct tc_diag *d)
{
	char path[256];

	(void)pol;
	snprintf(path, sizeof(path), "%s/outside/secret", top);
	return tc_ruleset_allow(rs, path, TC_LL_FS_READ_FILE, d);
}

/* The same, granting more than its profile lets its rules grant. */
static int
greedy_rules(struct tc_ruleset *rs, const struct tc_policy *pol,
    struct tc_diag *d)
{
	char path[256];

	(void)pol;
	snprintf(path, sizeof(path), "%s/outside/secret", top);
	return tc_ruleset_allow(rs, path, TC_LL_FS_READ_FILE |
	    TC_LL_FS_WRITE_FILE, d);
}

static const struct tc_profile rules_profile = {
	.name = "rules", .root_access = TC_LL_READ, .rules = outside_rules,
	.rules_access = TC_LL_FS_READ_FILE, .roots = TC_KEEP_ROOTS_ALL,
};
static const struct tc_profile greedy_profile = {
	.name = "greedy", .root_access = TC_LL_READ, .rules = greedy_rules,
	.rules_access = TC_LL_FS_READ_FILE,
};
static const struct tc_profile keep_none = {
	.name = "keep-none", .root_access = TC_LL_READ,
	.roots = TC_KEEP_ROOTS_NONE,
};
static const struct tc_profile keep_ro = {
	.name = "keep-ro", .root_access = TC_LL_READ,
	.roots = TC_KEEP_ROOTS_READONLY,
};
static const struct tc_profile keep_all = {
	.name = "keep-all", .root_access = TC_LL_READ,
	.roots = TC_KEEP_ROOTS_ALL,
};
/* Not given to tc_sandbox_init(). */
static const struct tc_profile unprepared = {
	.name = "unprepared", .root_access = TC_LL_READ,
};

static const struct tc_tool reads_tool = TOOL("reads", h_reads,
    &rules_profile);
static const struct tc_tool rootfds_tools[] = {
	TOOL("rootfds_none", h_rootfds, &keep_none),
	TOOL("rootfds_ro", h_rootfds, &keep_ro),
	TOOL("rootfds_all", h_rootfds, &keep_all),
};
static const struct tc_tool unprepared_tool = TOOL("unprepared", h_rootfds,
    &unprepared);

/*
 * Rules a profile computes at start are in its child's ruleset, and
 * nothing more; rules beyond what the profile lets them grant refuse the
 * start.  A child keeps the root fds its profile says, and a call of a
 * profile the sandbox did not prepare is refused.  |pol| has the tree's
 * "allowed" as its read-only root.
 */
static void
test_profiles(struct tc_policy *pol)
{
	struct tc_profiles set = { { NULL }, 0 };
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	struct tc_call call;
	struct tc_run r;
	char path[256], out[512], want[256];
	size_t i;

	tc_profiles_add(&set, &rules_profile);
	tc_profiles_add(&set, &rules_profile);
	is_int((int)set.n, 1, "a profile is added to a set once");
	if (!is_int(tc_sandbox_init(&sb, pol, &set, &d), 0, "init with a "
	    "profile's own rules")) {
		printf("#   %s\n", d.msg);
		return;
	}
	run_text(&sb, &reads_tool, out, sizeof(out));
	snprintf(want, sizeof(want), "secret=0 twin=%d inside=0", EACCES);
	is_str(out, want, "the rules' file is readable, its twin is not");
	tc_sandbox_release(&sb);

	set.n = 0;
	tc_profiles_add(&set, &greedy_profile);
	is_int(tc_sandbox_init(&sb, pol, &set, &d), TC_ESYS, "rules beyond "
	    "the profile's rules_access: refused");
	ok(strstr(d.msg, "'greedy'") != NULL && strstr(d.msg,
	    "outside/secret") != NULL, "the message names the profile and "
	    "the path (%s)", d.msg);

	/* A writable root beside the read-only one. */
	snprintf(path, sizeof(path), "%s/outside", top);
	if (!is_int(tc_policy_add_root(pol, path, TC_ROOT_WRITE, &d), 0,
	    "a writable root"))
		printf("#   %s\n", d.msg);
	set.n = 0;
	for (i = 0; i < TC_NITEMS(rootfds_tools); i++)
		tc_profiles_add(&set, rootfds_tools[i].profile);
	if (!is_int(tc_sandbox_init(&sb, pol, &set, &d), 0, "init with the "
	    "root-fd profiles")) {
		printf("#   %s\n", d.msg);
		return;
	}
	run_text(&sb, &rootfds_tools[0], out, sizeof(out));
	is_str(out, "ro=closed rw=closed dirs=0", "keep no roots: no root fd, "
	    "no directory fd");
	run_text(&sb, &rootfds_tools[1], out, sizeof(out));
	is_str(out, "ro=open rw=closed dirs=1", "keep the read-only roots: "
	    "the writable one is closed");
	run_text(&sb, &rootfds_tools[2], out, sizeof(out));
	is_str(out, "ro=open rw=open dirs=2", "keep every root");
	/* The same from the spawner's ready children. */
	tc_sandbox_prefork(&sb, 1);
	for (i = 0; i < 400 && tc_sandbox_ready(&sb, &keep_none) == 0; i++) {
		usleep(5000);
		tc_sandbox_refill(&sb);
	}
	run_text(&sb, &rootfds_tools[0], out, sizeof(out));
	is_str(out, "ro=closed rw=closed dirs=0", "keep no roots, from a "
	    "ready child");

	memset(&call, 0, sizeof(call));
	call.tool = &unprepared_tool;
	call.policy = pol;
	is_int(tc_run_start(&r, &sb, &call, &d), TC_ESYS, "a profile not "
	    "prepared: refused");
	ok(strstr(d.msg, "'unprepared'") != NULL, "the message names it (%s)",
	    d.msg);
	tc_sandbox_release(&sb);
}

static void
mkfile(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	if ((f = fopen(path, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* Landlock: every way out of a read-only root fails in the kernel. */
static void
test_landlock(void)
{
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	struct tc_policy pol;
	char path[256], dir[256], out[1024], want[512];
	int abi;

	snprintf(top, sizeof(top), "/tmp/tc-confine-XXXXXX");
	if (mkdtemp(top) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	chmod(top, 0755);
	snprintf(dir, sizeof(dir), "%s/allowed", top);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/outside", top);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/allowed-evil", top);
	mkdir(path, 0755);
	mkfile("allowed/f", "inside\n");
	mkfile("outside/secret", "secret\n");
	mkfile("allowed-evil/secret", "secret\n");
	snprintf(path, sizeof(path), "%s/allowed/out", top);
	if (symlink("../outside/secret", path) != 0)
		ok(0, "symlink");

	tc_policy_init(&pol);
	if (!is_int(tc_policy_add_root(&pol, dir, 0, &d), 0, "root added"))
		printf("#   %s\n", d.msg);
	if (!is_int(tc_sandbox_init(&sb, &pol, both_profiles(), &d), 0,
	    "sandbox with Landlock")) {
		printf("#   %s\n", d.msg);
		tc_policy_release(&pol);
		return;
	}
	abi = sb.landlock_abi;
	ok(abi >= 1, "Landlock ABI %d is in force", abi);
	run_text(&sb, &escape_tool, out, sizeof(out));
	/* mkfifo and socket are refused by seccomp before Landlock sees
	 * them (EPERM); each is also refused by Landlock alone. */
	snprintf(want, sizeof(want), "inside=0 outside=%d twin=%d link=%d "
	    "dotdot=%d write=%d create=%d mkfifo=%d procroot=%d environ=%d "
	    "connect=%d kill=%d", EACCES, EACCES, EACCES, EACCES, EACCES,
	    EACCES, EPERM, EACCES, EACCES, EPERM, EPERM);
	is_str(out, want, "each way out is refused by the kernel");
	run_text(&sb, &syscalls_tool, out, sizeof(out));
	is_str(out, "socket_unix=1 socketpair=1 ptrace=1 process_vm=1 "
	    "io_uring=1 unshare=1 clone_newuser=1 mount=1 keyctl=1 bpf=1 "
	    "perf=1 userfaultfd=1 personality=1 tiocsti=1 tiocsti_high=1 "
	    "execve=1 mprotect_exec=1", "seccomp refuses every listed call "
	    "with EPERM");
	test_arch(&sb, "int80", "i386 system call (int 0x80)");
	test_arch(&sb, "x32", "x32 system call");
	/* The file profiles see nothing of the system; the exec profile
	 * runs programs and reads what the C library needs, and no more. */
	run_text(&sb, &system_tools[0], out, sizeof(out));
	snprintf(want, sizeof(want), "true=%d passwd=%d shadow=%d "
	    "hostname=%d", -EPERM, EACCES, EACCES, EACCES);
	is_str(out, want, "file profile: no fork, no /etc");
	run_text(&sb, &system_tools[1], out, sizeof(out));
	snprintf(want, sizeof(want), "true=0 passwd=0 shadow=%d hostname=%d",
	    EACCES, EACCES);
	is_str(out, want, "exec profile: runs /bin/true, reads /etc/passwd, "
	    "not /etc/shadow nor the rest of /etc");
	tc_sandbox_release(&sb);
	test_profiles(&pol);
	tc_policy_release(&pol);

	/* Without Landlock a policy must say so: here it is only checked
	 * that asking for the weaker mode is what makes it optional. */
	tc_policy_init(&pol);
	pol.allow_degraded = TC_DEGRADE_LANDLOCK;
	is_int(tc_sandbox_init(&sb, &pol, both_profiles(), &d), 0, "init with "
	    "the weaker mode allowed");
	ok((sb.degraded & TC_DEGRADE_LANDLOCK) == 0 || abi == 0,
	    "Landlock stays in force where the kernel has it");
	tc_sandbox_release(&sb);
	tc_policy_release(&pol);

	snprintf(out, sizeof(out), "rm -rf '%s'", top);
	if (strncmp(top, "/tmp/tc-confine-", 16) == 0 && system(out) != 0)
		printf("# could not remove %s\n", top);
}

/* --- A network the policy grants --- */

/* Two listeners on 127.0.0.1, set before forking: the policy names the
 * first. */
static unsigned short port_named, port_other;

/* Returns 0 if a TCP connection to 127.0.0.1:|port| opens, else errno. */
static int
try_connect(unsigned short port)
{
	struct sockaddr_in sin;
	int s, rc;

	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return errno;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = err_of(connect(s, (struct sockaddr *)&sin, sizeof(sin)));
	close(s);
	return rc;
}

/* The port it names, the other one, a bind, a UDP socket, a Unix
 * socket, and whether /etc/hosts is readable. */
static int
h_network(const struct tc_call *call, struct tc_result *res)
{
	struct sockaddr_in sin;
	int s, fd;

	(void)call;
	tc_result_printf(res, "named=%d other=%d ", try_connect(port_named),
	    try_connect(port_other));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	tc_result_printf(res, "bind=%d ", s < 0 ? errno :
	    err_of(bind(s, (struct sockaddr *)&sin, sizeof(sin))));
	if (s >= 0)
		close(s);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	tc_result_printf(res, "udp=%d ", err_of(s));
	if (s >= 0)
		close(s);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	tc_result_printf(res, "unix=%d ", err_of(s));
	if (s >= 0)
		close(s);
	fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC);
	tc_result_printf(res, "hosts=%d", err_of(fd));
	if (fd >= 0)
		close(fd);
	return 0;
}

static const struct tc_landlock_path net_files[] = {
	{ "/etc/hosts",	TC_LL_FS_READ_FILE },
};

/* A profile that may have the network the policy grants, and asks for
 * every namespace. */
static const struct tc_profile net_profile = {
	.name = "net", .root_access = TC_LL_READ, .ns = TC_NS_ALL,
	.net_system = net_files, .nnet_system = TC_NITEMS(net_files),
	.may = TC_MAY_NETWORK,
};
/* The same without TC_MAY_NETWORK: a grant is not its. */
static const struct tc_profile unnet_profile = {
	.name = "unnet", .root_access = TC_LL_READ, .ns = TC_NS_ALL,
	.net_system = net_files, .nnet_system = TC_NITEMS(net_files),
};

static const struct tc_tool net_tools[] = {
	TOOL("network", h_network, &net_profile),
	TOOL("unnet", h_network, &unnet_profile),
};

/* The running kernel's Landlock ABI, 0 without it. */
static int
landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, 1UL);

	return v < 0 ? 0 : (int)v;
}

/* Opens a listener on 127.0.0.1 (an ephemeral port); returns its fd and
 * sets *|port|, or returns -1. */
static int
listener(unsigned short *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(s, 16) != 0 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) != 0) {
		close(s);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return s;
}

/* Runs the network probe of |profile| under |pol| into |out|. */
static int
net_probe(struct tc_policy *pol, const struct tc_tool *t, char *out,
    size_t n, unsigned long *ns)
{
	struct tc_profiles set = { { NULL }, 0 };
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;

	tc_profiles_add(&set, t->profile);
	if (tc_sandbox_init(&sb, pol, &set, &d) != 0) {
		snprintf(out, n, "init: %s", d.msg);
		return -1;
	}
	*ns = tc_sandbox_ns(&sb, t->profile);
	run_text(&sb, t, out, n);
	tc_sandbox_release(&sb);
	return 0;
}

/*
 * The network a policy grants a profile with TC_MAY_NETWORK: none
 * without a grant (a network namespace, socket() refused); with "network
 * connect PORT" no namespace, and Landlock lets TCP reach that port and
 * no other, binds nothing, and seccomp refuses UDP and Unix sockets; with
 * "network on" every port, bind and UDP.  A profile without
 * TC_MAY_NETWORK has none whatever the policy grants.
 */
static void
test_network(void)
{
	struct tc_policy pol;
	char out[512], want[512];
	unsigned long ns;
	int a, b, abi = landlock_abi();

	if ((a = listener(&port_named)) < 0 ||
	    (b = listener(&port_other)) < 0) {
		ok(0, "two listeners on 127.0.0.1: %s", strerror(errno));
		return;
	}
	tc_policy_init(&pol);
	pol.limits.deadline_ms = 5000;

	net_probe(&pol, &net_tools[0], out, sizeof(out), &ns);
	snprintf(want, sizeof(want), "named=%d other=%d bind=%d udp=%d "
	    "unix=%d hosts=%d", EPERM, EPERM, EPERM, EPERM, EPERM, EACCES);
	is_str(out, want, "no grant: no socket, no /etc/hosts");
	if (ns != 0)
		ok(ns & CLONE_NEWNET, "no grant: a network namespace");
	else
		skip("network namespace: this kernel denies new namespaces");

	pol.network = TC_NETWORK_CONNECT;
	pol.net_ports[0] = port_named;
	pol.nnet_ports = 1;
	if (abi < 4) {
		is_int(net_probe(&pol, &net_tools[0], out, sizeof(out), &ns),
		    -1, "network connect below Landlock ABI 4: refused");
		ok(strstr(out, "'network on' grants every port") != NULL,
		    "the message says what would grant more (%s)", out);
	} else {
		net_probe(&pol, &net_tools[0], out, sizeof(out), &ns);
		snprintf(want, sizeof(want), "named=0 other=%d bind=%d "
		    "udp=%d unix=%d hosts=0", EACCES, EPERM, EPERM, EPERM);
		is_str(out, want, "network connect: the port named, no other, "
		    "no bind, no UDP, no Unix socket; /etc/hosts readable");
		ok(!(ns & CLONE_NEWNET), "network connect: no network "
		    "namespace");
	}
	net_probe(&pol, &net_tools[1], out, sizeof(out), &ns);
	snprintf(want, sizeof(want), "named=%d other=%d bind=%d udp=%d "
	    "unix=%d hosts=%d", EPERM, EPERM, EPERM, EPERM, EPERM, EACCES);
	is_str(out, want, "network connect: nothing for a profile without "
	    "TC_MAY_NETWORK");

	pol.network = TC_NETWORK_ON;
	pol.nnet_ports = 0;
	net_probe(&pol, &net_tools[0], out, sizeof(out), &ns);
	snprintf(want, sizeof(want), "named=0 other=0 bind=0 udp=0 unix=%d "
	    "hosts=0", EPERM);
	is_str(out, want, "network on: every port, bind and UDP; still no "
	    "Unix socket");
	ok(!(ns & CLONE_NEWNET), "network on: no network namespace");

	tc_policy_release(&pol);
	close(a);
	close(b);
}

/* Returns the value after |key| in |text| with blanks removed, or "". */
static const char *
field(const char *text, const char *key, char *out, size_t n)
{
	const char *p = strstr(text, key);
	size_t k = 0;

	out[0] = '\0';
	if (p == NULL)
		return out;
	for (p += strlen(key); *p != '\0' && *p != '\n' && k + 1 < n; p++)
		if (*p != ' ' && *p != '\t')
			out[k++] = *p;
	out[k] = '\0';
	return out;
}

/* Checks what a child of |t|'s profile said of its own status. */
static void
check_status(const struct tc_sandbox *sb, const struct tc_tool *t,
    const char *status)
{
	static const char zero[] = "0000000000000000";
	int ns = tc_sandbox_ns(sb, t->profile) != 0;
	char want[64];
	const char *nspid;
	char v[64];

	is_str(field(status, "CapInh:", v, sizeof(v)), zero,
	    "%s: CapInh is empty", t->name);
	is_str(field(status, "CapPrm:", v, sizeof(v)), zero,
	    "%s: CapPrm is empty", t->name);
	is_str(field(status, "CapEff:", v, sizeof(v)), zero,
	    "%s: CapEff is empty", t->name);
	is_str(field(status, "CapAmb:", v, sizeof(v)), zero,
	    "%s: CapAmb is empty", t->name);
	is_str(field(status, "NoNewPrivs:", v, sizeof(v)), "1",
	    "%s: NoNewPrivs is set", t->name);
	is_str(field(status, "SigIgn:", v, sizeof(v)), zero,
	    "%s: no signal ignored, glibc's own two (32, 33) included",
	    t->name);
	is_str(field(status, "Seccomp:", v, sizeof(v)), "2",
	    "%s: a seccomp filter is in force", t->name);
	/* Dropping the bounding set needs CAP_SETPCAP: only a privileged
	 * process has it, or one in a user namespace of its own. */
	if (geteuid() == 0 || (sb->ns_flags & CLONE_NEWUSER && ns))
		is_str(field(status, "CapBnd:", v, sizeof(v)), zero,
		    "%s: CapBnd is empty", t->name);
	else
		skip("CapBnd: not root, the bounding set stays");
	is_str(field(status, "PdeathSig:", v, sizeof(v)), "9",
	    "%s: dies (SIGKILL) with the server", t->name);
	if (sb->policy->run_as) {
		snprintf(want, sizeof(want), "%u%u%u%u",
		    (unsigned)sb->policy->run_uid, (unsigned)sb->policy->run_uid,
		    (unsigned)sb->policy->run_uid,
		    (unsigned)sb->policy->run_uid);
		is_str(field(status, "Uid:", v, sizeof(v)), want,
		    "%s: runs as the run-as user", t->name);
		is_str(field(status, "Groups:", v, sizeof(v)), "",
		    "%s: with no supplementary groups", t->name);
	}
	if (ns && (sb->ns_flags & CLONE_NEWUSER)) {
		/* Root maps every id it has to itself; anyone else only
		 * their own. */
		if (geteuid() == 0)
			snprintf(want, sizeof(want), "004294967295");
		else
			snprintf(want, sizeof(want), "%u%u1",
			    (unsigned)geteuid(), (unsigned)geteuid());
		is_str(field(status, "UidMap:", v, sizeof(v)), want,
		    "%s: its user namespace maps the ids it should", t->name);
	}
	nspid = strstr(status, "NSpid:");
	if (!ns)
		ok(nspid != NULL && strchr(nspid + 7, '\t') > strchr(nspid,
		    '\n'), "%s: in the server's PID namespace", t->name);
	else if (sb->ns_flags & CLONE_NEWPID)
		ok(nspid != NULL && strncmp(strchr(nspid, '\n') - 2, "\t1",
		    2) == 0, "%s: pid 1 of a PID namespace of its own",
		    t->name);
	else
		skip("PID namespace: this kernel denies new namespaces");
}

/* The ready child of |profile| a call takes next (asked for first). */
static pid_t
next_ready(const struct tc_sandbox *sb, const struct tc_profile *profile)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, profile);
	const struct tc_standby *best = NULL;
	size_t k;

	for (k = 0; sp != NULL && k < TC_POOL_MAX; k++)
		if (sp->pool[k].pid > 0 && (best == NULL ||
		    sp->pool[k].seq < best->seq))
			best = &sp->pool[k];
	return best != NULL ? best->pid : 0;
}

/*
 * Runs status tool |t| and checks what it reports.  With |standby|, the
 * call goes to a standby the spawner made, and the test checks it did.
 * Returns 1 if the probe ran.
 */
static int
run_status(struct tc_sandbox *sb, const struct tc_tool *t, int standby,
    int quiet)
{
	struct tc_diag d = { "", 0 };
	struct tc_call call;
	struct tc_run r;
	const cJSON *content, *text;
	cJSON *res, *args;
	pid_t want = 0;
	int i, ran;

	if (standby) {
		for (i = 0; i < 400 && tc_sandbox_ready(sb, t->profile) == 0;
		    i++) {
			usleep(5000);
			tc_sandbox_refill(sb);
		}
		want = next_ready(sb, t->profile);
	}
	args = cJSON_CreateObject();
	memset(&call, 0, sizeof(call));
	call.tool = t;
	call.args = args;
	call.policy = sb->policy;
	if (tc_run_start(&r, sb, &call, &d) != 0) {
		ok(0, "%s: tc_run_start: %s", t->name, d.msg);
		cJSON_Delete(args);
		return 0;
	}
	tc_run_wait(&r);
	res = tc_run_take_result(&r);
	content = cJSON_GetObjectItemCaseSensitive(res, "content");
	text = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(content, 0),
	    "text");
	ran = r.outcome == TC_OUT_OK && cJSON_IsString(text);
	if (!quiet || !ran) {
		if (!ok(ran, "%s: the probe ran%s", t->name, standby ?
		    " in a standby" : ""))
			printf("#   %s\n", cJSON_IsString(text) ?
			    text->valuestring : "(no text)");
		if (standby)
			ok(want > 0 && r.pid == want, "%s: the spawner's "
			    "standby ran it", t->name);
		if (ran && !quiet)
			check_status(sb, t, text->valuestring);
	}
	cJSON_Delete(res);
	tc_run_release(&r);
	cJSON_Delete(args);
	return ran;
}

/* --- A profile's ahead hook; the shared network namespace --- */

/* Set by the ahead hook, in the ready child that runs it. */
static int readied;

static void
mark_ready(const struct tc_policy *pol)
{
	(void)pol;
	readied++;
}

/* Says whether the ahead hook ran in this child before its call, and the
 * inode of the network namespace it is in. */
static int
h_ready(const struct tc_call *call, struct tc_result *res)
{
	struct stat st;

	(void)call;
	if (stat("/proc/self/ns/net", &st) != 0)
		return tc_result_error(res, "stat: %s", strerror(errno));
	tc_result_printf(res, "%d %llu", readied,
	    (unsigned long long)st.st_ino);
	return 0;
}

/* Runs |t| in a ready child of |sb| and reads its answer into
 * |ready| and |net|.  Returns 1 if it ran. */
static int
run_ready(struct tc_sandbox *sb, const struct tc_tool *t, int *ready,
    unsigned long long *net)
{
	char text[128];

	pool_wait(sb, t->profile, 1);
	return call_text(sb, t, NULL, text, sizeof(text)) &&
	    sscanf(text, "%d %llu", ready, net) == 2;
}

/*
 * A profile's ahead hook runs in each ready child, once, before its call.
 * And the children a spawner makes in a network namespace share one,
 * which is not the server's: root's all; another server's those of a
 * profile that may fork, as this one, the only one here (its keeper
 * enters it, or, with no keeper, the spawner; test-ns has the cases).
 */
static void
test_ready(struct tc_policy *pol)
{
	static struct tc_profile exec_ready;
	static struct tc_profiles set;
	static struct tc_tool tool = TOOL("ready", h_ready, &exec_ready);
	struct tc_diag d = { "", 0 };
	unsigned long long net[2];
	struct tc_sandbox sb;
	struct stat own;
	int ready[2], ran;

	exec_ready = hostile_exec;
	exec_ready.name = "exec-ready";
	exec_ready.ahead = mark_ready;
	tc_profiles_add(&set, &exec_ready);
	if (!is_int(tc_sandbox_init(&sb, pol, &set, &d), 0,
	    "tc_sandbox_init, a profile with an ahead hook")) {
		printf("#   %s\n", d.msg);
		return;
	}
	tc_sandbox_prefork(&sb, 2);
	ran = run_ready(&sb, &tool, &ready[0], &net[0]);
	ran &= run_ready(&sb, &tool, &ready[1], &net[1]);
	if (ok(ran, "ahead hook: two calls ran in ready children")) {
		ok(ready[0] == 1 && ready[1] == 1, "ahead hook: ran once in "
		    "each ready child, before its call (%d, %d)", ready[0],
		    ready[1]);
		if (!(sb.ns_flags & CLONE_NEWNET) ||
		    stat("/proc/self/ns/net", &own) != 0)
			skip("shared network namespace: this kernel denies "
			    "new namespaces");
		else
			ok(net[0] == net[1] && net[0] != own.st_ino,
			    "%s: the children share one network namespace, "
			    "not the server's", geteuid() == 0 ? "root" :
			    "not root");
	}
	tc_sandbox_release(&sb);
}

/* --- A profile's zygote --- */

/* The file whose presence makes the zygote's ahead work stale. */
static char stale_path[64];

static int
stale_if_there(const struct tc_policy *pol)
{
	struct stat st;

	(void)pol;
	return stat(stale_path, &st) == 0;
}

/* The session of this process, from /proc/self/stat (getsid() is not
 * on the filter's list), or -1. */
static int
own_session(void)
{
	char buf[512], *p;
	int fd, sid = -1;
	ssize_t n;

	if ((fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* pid (comm) state ppid pgrp session */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %*d %*d %d", &sid) != 1)
		return -1;
	return sid;
}

/* What a zygote's child says of itself: how often the ahead hook ran
 * in the memory it was forked from, its pid, parent, session, the errno
 * of kill(SIBLING, 0) and how many seccomp filters it runs under. */
static int
h_zygote(const struct tc_call *call, struct tc_result *res)
{
	struct rlimit cpu;
	char buf[4096], *f;
	ssize_t n;
	int fd, filters = -1, err;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = '\0';
		if ((f = strstr(buf, "Seccomp_filters:")) != NULL)
			filters = atoi(f + 16);
	}
	err = kill((pid_t)tc_arg_int(call, "sibling", 0), 0) == 0 ? 0 : errno;
	getrlimit(RLIMIT_CPU, &cpu);
	tc_result_printf(res, "%d %d %d %d %d %d %lld", readied, (int)getpid(),
	    (int)getppid(), own_session(), err, filters,
	    cpu.rlim_cur == RLIM_INFINITY ? -1LL : (long long)cpu.rlim_cur);
	return 0;
}

static const struct tc_arg sibling_args[] = {
	{ .name = "sibling", .type = TC_ARG_INT, .description = "a pid",
	    .min = 0, .max = 1 << 30 },
	{ NULL },
};

/* The soft CPU limit of process |pid| as its /proc limits file says it,
 * into |out|. */
static void
cpu_limit_of(pid_t pid, char *out, size_t size)
{
	char path[64], line[256];
	FILE *f;

	snprintf(out, size, "(unread)");
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Max cpu time", 12) == 0) {
			snprintf(out, size, "%.*s", 20, line + 26);
			break;
		}
	fclose(f);
}

/* A ready child of |profile| other than the one a call takes next. */
static pid_t
other_ready(const struct tc_sandbox *sb, const struct tc_profile *profile);

/* Runs |t| in the next ready child of |sb|, with another ready child's
 * pid in its arguments (in *|sibling|); fills |v| with its six numbers.
 * Returns the child's pid, or 0. */
static pid_t
run_zygote(struct tc_sandbox *sb, const struct tc_tool *t, pid_t *sibling,
    long long v[7])
{
	char text[256];
	cJSON *args;
	pid_t want;
	int ran;

	pool_wait(sb, t->profile, 2);
	want = next_ready(sb, t->profile);
	*sibling = other_ready(sb, t->profile);
	args = cJSON_CreateObject();
	cJSON_AddNumberToObject(args, "sibling", *sibling);
	ran = call_text(sb, t, args, text, sizeof(text)) &&
	    sscanf(text, "%lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
	    &v[2], &v[3], &v[4], &v[5], &v[6]) == 7;
	cJSON_Delete(args);
	return ran && v[1] == (long long)want ? want : 0;
}

static pid_t
other_ready(const struct tc_sandbox *sb, const struct tc_profile *profile)
{
	const struct tc_sandbox_profile *sp = tc_sandbox_find(sb, profile);
	pid_t next = next_ready(sb, profile);
	size_t k;

	for (k = 0; sp != NULL && k < TC_POOL_MAX; k++)
		if (sp->pool[k].pid > 0 && sp->pool[k].pid != next)
			return sp->pool[k].pid;
	return 0;
}

/*
 * A profile with a zygote: its ready children are forked from it, each a
 * new process and the server's child, in a session of its own, under two
 * filters (the zygote's and the one that takes its extras back), in a
 * Landlock domain of its own whose signals do not reach a sibling; the
 * ahead hook ran once, in the zygote, and again when its stale hook says
 * so.  The zygote is the server's child, and gone once the sandbox is
 * stopped.
 */
static void
test_zygote(struct tc_policy *pol)
{
	static struct tc_profile zy;
	static struct tc_profiles set;
	static struct tc_tool tool = { .name = "zygote", .description = "z",
	    .args = sibling_args, .output_schema = "{\"type\":\"object\"}",
	    .fn = h_zygote, .profile = &zy };
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	long long v[7], w[7];
	char lim[64];
	int i, fd, again = 0;
	pid_t a, b, zygote, sibling = 0;

	zy = fs_read_profile;
	zy.name = "fs-read-zygote";
	zy.may |= TC_MAY_SIGNAL;
	zy.ahead = mark_ready;
	zy.zygote = 1;
	zy.stale = stale_if_there;
	snprintf(stale_path, sizeof(stale_path), "/tmp/tc-zygote-%d",
	    (int)getpid());
	tc_profiles_add(&set, &zy);
	if (!is_int(tc_sandbox_init(&sb, pol, &set, &d), 0,
	    "tc_sandbox_init, a profile with a zygote")) {
		printf("#   %s\n", d.msg);
		return;
	}
	tc_sandbox_prefork(&sb, 2);
	a = run_zygote(&sb, &tool, &sibling, v);
	if (!ok(a > 0, "zygote: a call ran in the ready child it took"))
		goto out;
	zygote = sb.prof[0].zygote;
	ok(zygote > 0 && zygote != a && kill(zygote, 0) == 0, "zygote: the "
	    "server knows its zygote, alive, not the call's child");
	is_int(v[2], (int)getpid(), "zygote: the call's child is the "
	    "server's child");
	is_int(v[3], v[1], "zygote: the call's child leads a session of its "
	    "own");
	is_int(v[0], 1, "zygote: the ahead hook ran once, before the fork");
	is_int(v[5], 2, "zygote: the child runs under two seccomp filters");
	ok(v[6] == (long long)pol->limits.cpu_sec, "zygote: the child has "
	    "the call's CPU limit (%lld s)", v[6]);
	cpu_limit_of(zygote, lim, sizeof(lim));
	like(lim, "unlimited", "zygote: the zygote itself has none");
	ok(sibling > 0, "zygote: a ready sibling to signal (%d)",
	    (int)sibling);
	if (sb.landlock_abi >= 6)
		is_int(v[4], EPERM, "zygote: its signals do not reach a ready "
		    "sibling (a Landlock domain of its own)");
	else
		skip("sibling signals: this kernel's Landlock has no signal "
		    "scope (ABI 6)");
	b = run_zygote(&sb, &tool, &sibling, w);
	ok(b > 0 && b != a, "zygote: a second call, a new process");
	is_int(w[0], 1, "zygote: the ahead hook did not run again");
	/* Stale: the zygote runs its ahead work before its next fork. */
	if ((fd = open(stale_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		close(fd);
	for (i = 0; i < 4 && !again; i++)
		again = run_zygote(&sb, &tool, &sibling, w) > 0 &&
		    w[0] >= 2;
	ok(again, "zygote: its ahead work ran again once stale");
	(void)unlink(stale_path);
	tc_sandbox_stop(&sb);
	ok(kill(zygote, 0) != 0 && errno == ESRCH, "zygote: reaped when "
	    "the sandbox stops");
out:
	tc_sandbox_release(&sb);
}

/*
 * Ignores the two signals glibc keeps for itself (32 and 33), as GNU
 * make leaves them to what it runs: a child must not pass them on so.
 * glibc's sigaction() refuses them; the kernel's struct, on the
 * architectures whose handler comes first, is set directly.
 */
static void
ignore_reserved(void)
{
#if !defined(__mips__) && !defined(__alpha__) && !defined(__sparc__)
	unsigned long ksa[8];
	int sig;

	memset(ksa, 0, sizeof(ksa));
	ksa[0] = (unsigned long)(uintptr_t)SIG_IGN;
	for (sig = 32; sig <= 33; sig++)
		(void)syscall(SYS_rt_sigaction, sig, ksa, NULL,
		    (size_t)(NSIG - 1) / 8);
#endif
}

int
main(void)
{
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	struct tc_policy pol;
	size_t i;
	int n;

	signal(SIGPIPE, SIG_IGN);	/* as the servers do */
	ignore_reserved();
	tc_policy_init(&pol);
	pol.limits.deadline_ms = 5000;
	/* The probe reads its own /proc/self/status, which Landlock hides
	 * unless /proc is an allowed root: it is one here, in the test. */
	if (!is_int(tc_policy_add_root(&pol, "/proc", 0, &d), 0,
	    "/proc as a root, for the probe"))
		printf("#   %s\n", d.msg);
	if (!is_int(tc_sandbox_init(&sb, &pol, both_profiles(), &d), 0,
	    "tc_sandbox_init"))
		printf("#   %s\n", d.msg);
	is_int(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0,
	    "the server process is not dumpable");

	/* Each profile forked on the call, then handed to a standby that
	 * the spawner forked and confined beforehand. */
	for (i = 0; i < TC_NITEMS(status_tools); i++)
		run_status(&sb, &status_tools[i], 0, 0);
	tc_sandbox_prefork(&sb, 1);
	for (i = 0; i < TC_NITEMS(status_tools); i++)
		run_status(&sb, &status_tools[i], 1, 0);

	/* As root, the same as an unprivileged user (--run-as), and the
	 * exec profile many times over: the user switch must never race
	 * the writing of its namespace's maps. */
	if (geteuid() == 0) {
		tc_sandbox_stop(&sb);
		pol.run_as = 1;
		pol.run_uid = pol.run_gid = 65534;
		for (i = 0; i < TC_NITEMS(status_tools); i++)
			run_status(&sb, &status_tools[i], 0, 0);
		tc_sandbox_prefork(&sb, 1);
		for (i = 0; i < TC_NITEMS(status_tools); i++)
			run_status(&sb, &status_tools[i], 1, 0);
		for (n = 0, i = 0; i < 100; i++)
			n += run_status(&sb, &status_tools[i % 2], i % 4 < 2, 1);
		is_int(n, 100, "run-as: 100 calls in a row, all confined");
		pol.run_as = 0;
	} else {
		skip("run-as: only root can switch users");
	}
	tc_sandbox_release(&sb);
	test_ready(&pol);
	test_zygote(&pol);
	tc_policy_release(&pol);
	test_landlock();
	test_network();
	return done_testing();
}
