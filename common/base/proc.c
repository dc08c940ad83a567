/* proc.c: who a process is, from /proc (see proc.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/proc.h"

ssize_t
tc_read_small(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;
	int fd, err;

	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (got < len - 1 && (r = read(fd, buf + got, len - 1 - got)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			close(fd);
			errno = err;
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

int
tc_proc_start(long pid, unsigned long long *start)
{
	char path[64], buf[1024], *p, *end;
	ssize_t n;
	int i;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/stat");
	else
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((n = tc_read_small(path, buf, sizeof(buf))) <= 0) {
		if (n == 0)
			errno = EIO;
		return -1;
	}
	/* "PID (COMM) STATE PPID ...": the name may hold anything, so
	 * count from its last ')', which the blank before field 3 (the
	 * state) follows; each step goes on to the blank before the next
	 * field, up to the one before field 22. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ') {
		errno = EIO;
		return -1;
	}
	for (p++, i = 3; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL) {
		errno = EIO;
		return -1;
	}
	errno = 0;
	*start = strtoull(p + 1, &end, 10);
	if (errno != 0 || end == p + 1 || *end != ' ') {
		errno = errno != 0 ? errno : EIO;
		return -1;
	}
	return 0;
}

int
tc_proc_me(struct tc_proc_id *id)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) != 0 ||
	    tc_proc_start(0, &id->start) != 0)
		return -1;
	id->ns = (unsigned long long)st.st_ino;
	id->pid = (long)getpid();
	return 0;
}

/* Reads the decimal number at |s|, which |stop| must end, into *|v|.
 * Returns what follows |stop|, or NULL. */
static const char *
number(const char *s, char stop, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || *end != stop)
		return NULL;
	return stop == '\0' ? end : end + 1;
}

const char *
tc_proc_id_parse(const char *s, char stop, struct tc_proc_id *id)
{
	unsigned long long pid;

	if ((s = number(s, '-', &id->ns)) == NULL ||
	    (s = number(s, '-', &pid)) == NULL ||
	    (s = number(s, stop, &id->start)) == NULL ||
	    pid == 0 || pid > INT_MAX)
		return NULL;
	id->pid = (long)pid;
	return s;
}

int
tc_proc_is_ours(void)
{
	char link[32];
	ssize_t n;

	if ((n = readlink("/proc/self", link, sizeof(link) - 1)) <= 0)
		return 0;
	link[n] = '\0';
	return strtol(link, NULL, 10) == (long)getpid();
}

/*
 * Returns 1 if process |pid| is in the caller's time namespace, where
 * both read a start time as the same number: /proc gives it to each
 * reader in its own namespace's boot time.  A kernel without time
 * namespaces has one.  0 where it cannot tell (not allowed to look).
 */
static int
same_time_ns(long pid)
{
	char path[64];
	struct stat ours, its;

	if (stat("/proc/self/ns/time", &ours) != 0)
		return errno == ENOENT;
	snprintf(path, sizeof(path), "/proc/%ld/ns/time", pid);
	return stat(path, &its) == 0 && its.st_dev == ours.st_dev &&
	    its.st_ino == ours.st_ino;
}

int
tc_proc_gone(const struct tc_proc_id *id, const struct tc_proc_id *me)
{
	unsigned long long start;

	if (id->ns != me->ns)
		return 0;
	if (id->pid == me->pid)
		return id->start != me->start;
	if (kill((pid_t)id->pid, 0) != 0 && errno == ESRCH)
		return 1;
	/* Alive, or another user's: the same process unless it started
	 * at another time, as read in one time namespace. */
	return tc_proc_is_ours() && tc_proc_start(id->pid, &start) == 0 &&
	    start != id->start && same_time_ns(id->pid);
}
