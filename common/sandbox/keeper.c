/*
 * keeper.c: kills a process and every descendant it left, however they
 * detached (see keeper.h).  Runs in a keeper process, never in the server.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/keeper.h"

int
tc_keeper_become(void)
{
	sigset_t all;

	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, NULL) != 0)
		return -1;
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Sends SIGKILL to the process |pid| read from /proc; counts it. */
static void
kill_one(long pid, int *count)
{
	if (pid > 0 && pid != getpid() && kill((pid_t)pid, SIGKILL) == 0)
		(*count)++;
}

/*
 * The fallback for kernels without /proc/PID/task/TID/children: every
 * process whose parent is the keeper, from /proc/PID/stat.  Returns how
 * many were sent SIGKILL, or -1 if /proc cannot be read.
 */
static int
kill_children_scan(void)
{
	char path[sizeof("/proc//stat") + NAME_MAX], buf[512], *p, *end;
	struct dirent *de;
	int fd, count = 0;
	pid_t self = getpid();
	ssize_t n;
	DIR *dir;
	long ppid;

	if ((dir = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "pid (comm) S ppid ...": comm may hold anything, so the
		 * last ')' ends it. */
		if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' ||
		    p[2] == '\0' || p[3] != ' ')
			continue;
		ppid = strtol(p + 4, &end, 10);
		if (end != p + 4 && ppid == self)
			kill_one(strtol(de->d_name, NULL, 10), &count);
	}
	closedir(dir);
	return count;
}

/*
 * Sends SIGKILL to every child of the keeper (single-threaded, so its one
 * thread has them all).  A child cannot be reaped by anyone else, so its
 * pid cannot have been reused between the read and the kill.  Returns
 * how many, or -1 if they cannot be listed.
 */
static int
kill_children(void)
{
	char buf[4096];
	long pid = -1;
	int fd, count = 0;
	ssize_t n, i;

	if ((fd = open("/proc/thread-self/children", O_RDONLY |
	    O_CLOEXEC)) < 0)
		return kill_children_scan();
	/* Pids separated by blanks, perhaps across reads. */
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (isdigit((unsigned char)buf[i])) {
				pid = (pid < 0 ? 0 : pid * 10) + (buf[i] - '0');
				continue;
			}
			kill_one(pid, &count);
			pid = -1;
		}
	}
	kill_one(pid, &count);
	close(fd);
	return count;
}

/*
 * A killed process hands its children to the keeper (a subreaper) before
 * it can be reaped, so after each reaping the list is read again, until
 * there are no children.
 */
void
tc_keeper_kill_tree(pid_t child, int *status, int *have_status)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int n, st, reaped;
	pid_t w;

	for (;;) {
		n = kill_children();
		reaped = 0;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
			reaped++;
			if (w == child) {
				*status = st;
				*have_status = 1;
			}
		}
		if (w < 0 && errno == ECHILD)
			return;
		/* A reaped process may have handed its children over:
		 * look again at once. */
		if (reaped > 0)
			continue;
		/* Else those just killed are all still dying: wait for one
		 * (then look again).  When none could be found (no /proc,
		 * or a moment when the list missed one), look again
		 * shortly. */
		if (n > 0) {
			if ((w = waitpid(-1, &st, 0)) == child) {
				*status = st;
				*have_status = 1;
			}
		} else
			nanosleep(&pause, NULL);
	}
}

/*
 * Reaps the keeper's children that have ended, but |child|, which is
 * left for its pidfd to tell: orphans of the call that its deaths handed
 * over, each a zombie counted against the call's process limit until it
 * is reaped.  Drains |sfd| (SIGCHLD's signalfd) first.
 */
static void
reap_adopted(pid_t child, int sfd)
{
	struct signalfd_siginfo si[8];
	siginfo_t w;

	while (read(sfd, si, sizeof(si)) > 0)
		;
	for (;;) {
		/* Looked at, not reaped, so that the child is left alone. */
		memset(&w, 0, sizeof(w));
		if (waitid(P_ALL, 0, &w, WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    w.si_pid == 0 || w.si_pid == child)
			return;
		(void)waitpid(w.si_pid, NULL, WNOHANG);
	}
}

void
tc_keeper_watch(pid_t child, int child_fd, int ctl, int *status,
    int *have_status)
{
	struct pollfd pfd[3];
	sigset_t chld;
	int n = 2;

	pfd[0].fd = ctl;
	pfd[0].events = POLLIN;
	pfd[1].fd = child_fd;
	pfd[1].events = POLLIN;
	/* SIGCHLD, blocked with every other signal, as an fd: the orphans
	 * the keeper adopts are reaped as they end, not at the call's end.
	 * Without it, they wait for that. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pfd[2].fd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
	pfd[2].events = POLLIN;
	if (pfd[2].fd >= 0)
		n = 3;
	for (;;) {
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents != 0) {
			while (waitpid(child, status, 0) < 0 && errno == EINTR)
				;
			*have_status = 1;
			break;
		}
		if (pfd[0].revents != 0)
			break;		/* the server's word, or its end */
		if (n == 3 && pfd[2].revents != 0)
			reap_adopted(child, pfd[2].fd);
	}
	if (n == 3)
		close(pfd[2].fd);
	if (!*have_status)
		kill(child, SIGKILL);	/* not reaped: still its pid */
	tc_keeper_kill_tree(child, status, have_status);
}
