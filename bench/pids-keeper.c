/*
 * pids-keeper: what a call's pids cgroup costs a root server, with the
 * sandbox's own steps (sandbox/pids.h) and nothing else.
 *
 *   pids-keeper [N]          (as root, or in a delegated cgroup)
 *
 * Opens the server's directory as a server does, then N times forks a
 * pair of processes, one after the other, standing for calls' keepers:
 * each enters its call's cgroup (tc_pids_enter()), forks a child and
 * reaps it (the call's tree), and leaves (tc_pids_leave()); the first of
 * each pair has no directory (no cgroup: as for a server of another
 * user), the floor.  Prints the keepers' CPU per call of each kind
 * (wait4's rusage of each: their cgroup steps, their fork, their exit),
 * their wall time, and the whole machine's busy time per pair from
 * /proc/stat, which also counts the kernel workers that release and free
 * a removed cgroup after its keeper is gone (on a shared machine, others'
 * work too: compare within a run, and repeat).  N is 3000 by default.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/pids.h"


/* The machine's busy time so far (all CPUs, /proc/stat), in µs; 0 if it
 * cannot be read. */
static double
busy_us(void)
{
	unsigned long long v[8];
	FILE *f;
	int n;

	if ((f = fopen("/proc/stat", "re")) == NULL)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
	    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return 0;
	/* All but idle and iowait, in clock ticks. */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * 1e6 /
	    (double)sysconf(_SC_CLK_TCK);
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* One keeper's life, as far as its cgroup goes.  Exits 0, or 1 if it
 * could not enter. */
static void __attribute__((__noreturn__))
keeper(const struct tc_pids *p)
{
	pid_t child;

	if (tc_pids_enter(p) != 0)
		_exit(1);
	if ((child = fork()) == 0)
		_exit(0);
	if (child > 0)
		waitpid(child, NULL, 0);
	tc_pids_leave(p);
	_exit(0);
}

/* CPU of a reaped process's |ru|, in µs. */
static double
ru_us(const struct rusage *ru)
{
	return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e6 +
	    (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

/*
 * Runs |n| pairs of keepers one after another, one of |none| (no cgroup)
 * and one of |p| in each pair, in turn, so that both see the same load,
 * and prints what they cost.  Returns 0, or -1 if one failed.
 */
static int
pairs(const struct tc_pids *none, const struct tc_pids *p, int n)
{
	const struct tc_pids *which[2] = { none, p };
	double cpu[2] = { 0, 0 }, wall[2] = { 0, 0 }, t, b0, b1;
	struct rusage ru;
	int i, k, st;
	pid_t pid;

	b0 = busy_us();
	for (i = 0; i < n; i++) {
		for (k = 0; k < 2; k++) {
			t = now_us();
			if ((pid = fork()) == 0)
				keeper(which[k]);
			if (pid < 0 || wait4(pid, &st, 0, &ru) != pid ||
			    !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				fprintf(stderr, "pids-keeper: keeper %d "
				    "failed\n", i);
				return -1;
			}
			wall[k] += now_us() - t;
			cpu[k] += ru_us(&ru);
		}
	}
	/* The kernel workers' share comes after the keepers are gone. */
	usleep(300 * 1000);
	b1 = busy_us();
	printf("keepers' CPU per call: %.1f us without a cgroup, %.1f us "
	    "with (+%.1f); wall %.1f and %.1f us; the machine busy %.1f us "
	    "per pair\n", cpu[0] / n, cpu[1] / n, (cpu[1] - cpu[0]) / n,
	    wall[0] / n, wall[1] / n, (b1 - b0) / n);
	return 0;
}

int
main(int argc, char **argv)
{
	struct tc_diag d = { "", 0 };
	struct tc_pids p, none;
	char buf[PATH_MAX + 64];
	int n = argc > 1 ? atoi(argv[1]) : 3000, rc;

	if (n <= 0) {
		fprintf(stderr, "usage: pids-keeper [N]\n");
		return 2;
	}
	memset(&p, 0, sizeof(p));
	if (!tc_pids_probe(&p) || tc_pids_open(&p, 8, &d) != 0) {
		fprintf(stderr, "pids-keeper: no pids cgroup this process "
		    "may write%s%s\n", d.msg[0] ? ": " : "", d.msg);
		return 1;
	}
	printf("%s, %d calls\n", tc_pids_str(&p, buf, sizeof(buf)), n);
	none = p;
	none.dir[0] = '\0';
	rc = pairs(&none, &p, n) != 0;
	tc_pids_close(&p);
	return rc;
}
