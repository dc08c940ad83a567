/*
 * test-pids.c: finding the server's cgroup in a pids hierarchy from the
 * text of /proc/self/cgroup and /proc/self/mountinfo, and, where this
 * process may write one (root, or a delegated cgroup), a call's cgroup
 * made, entered, filled to its pids.max and removed as a keeper does.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/pids.h"
#include "tap.h"

#define V1_MOUNT	"30 25 0:27 / /sys/fs/cgroup/pids rw,nosuid shared:9 " \
			"- cgroup cgroup rw,pids\n"
#define CPU_MOUNT	"28 25 0:25 / /sys/fs/cgroup/cpu,cpuacct rw shared:7 " \
			"- cgroup cgroup rw,cpu,cpuacct\n"
#define V2_MOUNT	"35 25 0:30 / /sys/fs/cgroup/unified rw - cgroup2 " \
			"cgroup2 rw,nsdelegate\n"

/* tc_pids_find() of |cg| and |mi| for |kind|: the directory, or "-". */
static const char *
found(const char *cg, const char *mi, enum tc_pids_kind kind)
{
	static char out[PATH_MAX];

	if (!tc_pids_find(cg, mi, kind, out, sizeof(out)))
		return "-";
	return out;
}

static void
test_find(void)
{
	const char *mi = CPU_MOUNT V1_MOUNT V2_MOUNT;
	char small[8];

	is_str(found("8:pids:/\n0::/\n", mi, TC_PIDS_V1), "/sys/fs/cgroup/pids",
	    "v1: the root cgroup is the mount point");
	is_str(found("2:cpu,cpuacct:/a\n8:pids:/user.slice/s-1.scope\n0::/\n",
	    mi, TC_PIDS_V1), "/sys/fs/cgroup/pids/user.slice/s-1.scope",
	    "v1: the line with pids among its controllers");
	is_str(found("8:pids:/x\n0::/system.slice/a.service\n", mi,
	    TC_PIDS_V2), "/sys/fs/cgroup/unified/system.slice/a.service",
	    "v2: the 0:: line under the cgroup2 mount");
	is_str(found("0::/\n", mi, TC_PIDS_V2), "/sys/fs/cgroup/unified",
	    "v2: the root cgroup");
	is_str(found("0::/\n", mi, TC_PIDS_V1), "-",
	    "v1: no line with pids");
	is_str(found("9:name=pidsx:/\n", mi, TC_PIDS_V1), "-",
	    "v1: a name that only contains pids is not pids");
	is_str(found("8:pids:/\n", CPU_MOUNT V2_MOUNT, TC_PIDS_V1), "-",
	    "v1: no mount with the pids controller");
	is_str(found("0::/\n", CPU_MOUNT V1_MOUNT, TC_PIDS_V2), "-",
	    "v2: no cgroup2 mount");
	is_str(found("0::/docker/abc/sub\n", "40 1 0:30 /docker/abc /sys/fs/"
	    "cgroup rw - cgroup2 cgroup2 rw\n", TC_PIDS_V2),
	    "/sys/fs/cgroup/sub", "a mount of part of the hierarchy: the "
	    "path below its root");
	is_str(found("0::/docker/abc\n", "40 1 0:30 /docker/abc /sys/fs/"
	    "cgroup rw - cgroup2 cgroup2 rw\n", TC_PIDS_V2), "/sys/fs/cgroup",
	    "a mount of our own cgroup: its mount point");
	is_str(found("0::/docker/abcd\n", "40 1 0:30 /docker/abc /sys/fs/"
	    "cgroup rw - cgroup2 cgroup2 rw\n", TC_PIDS_V2), "-",
	    "a cgroup outside the mounted part (a prefix that is not a "
	    "parent) is not found");
	is_str(found("0::/\n", "40 1 0:30 / /sys/fs/cgroup\\040x rw - cgroup2 "
	    "cgroup2 rw\n", TC_PIDS_V2), "-",
	    "a mount point with an escape is not taken");
	is_str(found("0::/\n", "40 1 0:30 / /cg rw - cgroup2 none rw\n",
	    TC_PIDS_V2), "/cg", "a mount without optional fields");
	is_str(found("0::relative\n", V2_MOUNT, TC_PIDS_V2), "-",
	    "a path that does not start with / is not taken");
	ok(!tc_pids_find("0::/a/long/path\n", V2_MOUNT, TC_PIDS_V2, small,
	    sizeof(small)) && small[0] == '\0',
	    "a directory that does not fit: not found, and the output empty");
	is_str(found("0::/\n", V2_MOUNT, TC_PIDS_NONE), "-",
	    "no hierarchy asked for: none");
}

/* In a forked process standing for a keeper: enters |p|'s cgroup, forks
 * sleepers until a fork fails, kills them, leaves; exits with how many
 * forks worked (or 200 + a step that failed). */
static void __attribute__((__noreturn__))
keeper(const struct tc_pids *p, int cgfd)
{
	pid_t kids[64];
	int n = 0, i;
	char line[PATH_MAX];
	ssize_t r;

	FILE *f;

	if (tc_pids_enter(p) != 0)
		_exit(201);
	/* Where the kernel says we are now, for the parent to compare. */
	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		_exit(202);
	r = (ssize_t)fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	if (r <= 0 || write(cgfd, line, (size_t)r) != r)
		_exit(203);
	close(cgfd);
	for (n = 0; n < 64; n++) {
		if ((kids[n] = fork()) == 0) {
			pause();
			_exit(0);
		}
		if (kids[n] < 0)
			break;
	}
	if (n < 64 && errno != EAGAIN)
		_exit(204);
	for (i = 0; i < n; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	tc_pids_leave(p);
	_exit(n);
}

static void
test_live(void)
{
	struct tc_diag d = { "", 0 };
	char buf[PATH_MAX + 64], call[PATH_MAX + 128], cg[PATH_MAX];
	char dir[PATH_MAX + 64];
	struct tc_pids p, copy;
	struct stat st;
	int fds[2], status = 0;
	ssize_t r;
	pid_t pid;

	if (!tc_pids_probe(&p)) {
		skip("no pids cgroup this process may write here (not root, "
		    "and none delegated)");
		return;
	}
	like(tc_pids_str(&p, buf, sizeof(buf)), "pids cgroup v",
	    "what the probe found is said: %s", buf);
	ok(tc_pids_current() == NULL, "nothing is in force before open");
	/* What a server killed by SIGKILL leaves: its directory, named for
	 * a pid no process has now (a child reaped), with a call's in it. */
	if ((pid = fork()) == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(dir, sizeof(dir), "%s/toolcell-%ld", p.home, (long)pid);
	snprintf(call, sizeof(call), "%s/77", dir);
	ok(mkdir(dir, 0755) == 0 && mkdir(call, 0755) == 0, "a dead "
	    "server's directory, %s, with a call's in it", dir);
	if (!is_int(tc_pids_open(&p, 4, &d), 0, "the server's directory is "
	    "made: %s", d.msg))
		return;
	ok(stat(p.dir, &st) == 0 && S_ISDIR(st.st_mode), "%s exists", p.dir);
	ok(stat(dir, &st) != 0 && errno == ENOENT, "the dead server's "
	    "directory is swept away at open");
	ok(tc_pids_current() == &p, "it is in force");
	is_int((int)p.max, 5, "pids.max is the limit and the keeper");

	if (pipe(fds) != 0)
		return;
	if ((pid = fork()) == 0) {
		close(fds[0]);
		keeper(&p, fds[1]);
	}
	close(fds[1]);
	r = read(fds[0], cg, sizeof(cg) - 1);
	close(fds[0]);
	cg[r > 0 ? r : 0] = '\0';
	waitpid(pid, &status, 0);
	snprintf(call, sizeof(call), "/toolcell-%ld/%ld", (long)getpid(),
	    (long)pid);
	like(cg, call, "the keeper was in the call's cgroup, named by its pid");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 4, "4 forks worked "
	    "beside the keeper, the 5th failed with EAGAIN (status %d)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	snprintf(call, sizeof(call), "%s/%ld", p.dir, (long)pid);
	ok(stat(call, &st) != 0 && errno == ENOENT, "the call's cgroup is "
	    "gone once the keeper left");

	/* A process forked from the server that releases its copy leaves
	 * the server's directory alone. */
	copy = p;
	if ((pid = fork()) == 0) {
		tc_pids_close(&copy);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	ok(stat(p.dir, &st) == 0, "a forked process's close removes nothing");

	snprintf(dir, sizeof(dir), "%s", p.dir);
	tc_pids_close(&p);
	ok(stat(dir, &st) != 0 && errno == ENOENT, "closed: the server's directory is gone");
	ok(tc_pids_current() == NULL && p.dir[0] == '\0', "nothing in force");
	tc_pids_close(&p);
	ok(1, "closing again is harmless");
}

int
main(void)
{
	test_find();
	test_live();
	return done_testing();
}
