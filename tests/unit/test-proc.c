/*
 * test-proc.c: who a process is, from /proc (base/proc.h): its start time
 * is field 22 of /proc/PID/stat, whatever its name holds; a name's
 * "NS-PID-START" parses; and a process is called gone only when it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "procstat.h"
#include "tap.h"

static void
test_start(void)
{
	unsigned long long start = 0, before;
	struct tc_proc_id me;
	int rc, err;
	char *big;

	is_int(tc_proc_start(0, &start), 0, "our start time is read");
	before = stat_field(getpid(), 22);
	ok(before != 0 && start == before, "it is field 22 of /proc/PID/stat "
	    "(%llu; read apart: %llu; field 23, the size, is %llu)", start,
	    before, stat_field(getpid(), 23));
	/* A name with blanks and parentheses shifts no field. */
	(void)prctl(PR_SET_NAME, "a) (b c) d", 0, 0, 0);
	is_int(tc_proc_start((long)getpid(), &start), 0, "read again by pid, "
	    "under a name with ') (' and blanks");
	ok(start == before, "the same start time: %llu", start);
	/* Growing changes the size, never the start. */
	big = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ok(big != MAP_FAILED, "64 MiB mapped");
	is_int(tc_proc_me(&me), 0, "who we are, read");
	ok(me.start == before && me.pid == (long)getpid() && me.ns != 0,
	    "pid %ld, start %llu, namespace %llu", me.pid, me.start, me.ns);
	if (big != MAP_FAILED)
		munmap(big, 64 << 20);
	(void)prctl(PR_SET_NAME, "test-proc", 0, 0, 0);
	errno = 0;
	rc = tc_proc_start(999999999, &start);
	err = errno;
	ok(rc == -1 && err == ENOENT, "a pid no process has: -1 with errno "
	    "set (%s)", strerror(err));
}

static void
test_parse(void)
{
	struct tc_proc_id id;
	const char *rest;

	rest = tc_proc_id_parse("4026531836-42-777.abc", '.', &id);
	ok(rest != NULL && strcmp(rest, "abc") == 0, "NS-PID-START.rest: "
	    "what follows the stop");
	ok(id.ns == 4026531836ULL && id.pid == 42 && id.start == 777,
	    "its three numbers");
	rest = tc_proc_id_parse("1-2-3", '\0', &id);
	ok(rest != NULL && *rest == '\0', "ended by the string's end");
	ok(tc_proc_id_parse("1-2-3x", '\0', &id) == NULL, "a tail is not one");
	ok(tc_proc_id_parse("1-0-3", '\0', &id) == NULL, "pid 0 is not one");
	ok(tc_proc_id_parse("1-2147483648-3", '\0', &id) == NULL,
	    "a pid above INT_MAX is not one");
	ok(tc_proc_id_parse("-1-2-3", '\0', &id) == NULL, "a sign is not one");
	ok(tc_proc_id_parse("1--2-3", '\0', &id) == NULL, "nor is an empty "
	    "field");
	ok(tc_proc_id_parse("99999999999999999999999-2-3", '\0', &id) ==
	    NULL, "nor a number too big");
	ok(tc_proc_id_parse("1-2", '\0', &id) == NULL, "two fields are not");
}

static void
test_gone(void)
{
	struct tc_proc_id me, w;
	int fds[2];
	pid_t pid;
	char c;

	if (tc_proc_me(&me) != 0 || pipe(fds) != 0) {
		ok(0, "who we are, and a pipe");
		return;
	}
	ok(!tc_proc_gone(&me, &me), "we are not gone");
	w = me;
	w.start++;
	ok(tc_proc_gone(&w, &me), "our pid, another start: gone");
	/* A live child, which then grows (its size, field 23, changes). */
	if ((pid = fork()) == 0) {
		char *m = mmap(NULL, 32 << 20, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		close(fds[0]);
		if (m == MAP_FAILED || write(fds[1], "g", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	ok(read(fds[0], &c, 1) == 1, "the child grew by 32 MiB");
	close(fds[0]);
	w.ns = me.ns;
	w.pid = (long)pid;
	w.start = stat_field(pid, 22);
	ok(!tc_proc_gone(&w, &me), "a live child named by its start time "
	    "(%llu) is not gone", w.start);
	w.start++;
	ok(tc_proc_gone(&w, &me) == tc_proc_is_ours(), "named by another "
	    "start: gone where /proc shows our namespace");
	w.start--;
	w.ns++;
	ok(!tc_proc_gone(&w, &me), "of another namespace: never called gone");
	w.ns--;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ok(tc_proc_gone(&w, &me), "killed and reaped: gone");
	ok(tc_proc_is_ours(), "/proc shows our namespace here");
}

/* Writes |text| to /proc/self/|name|.  Returns 0 or -1. */
static int
put(const char *name, const char *text)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * A process of our PID namespace but another time namespace, whose boot
 * time is 1000 s later: /proc gives each reader the start time in its
 * own, so the two name each other by other numbers, alive as both are.
 * Neither may call the other gone.  Byte 'S' on |out|: no time namespace
 * could be made here.
 */
static void
time_child(const struct tc_proc_id *parent, int out, int hold)
{
	struct tc_proc_id me;
	char map[64], c;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	pid_t pid;
	int st;

	if (unshare(CLONE_NEWTIME) != 0) {
		/* Not root: in a user namespace of our own. */
		if (unshare(CLONE_NEWUSER | CLONE_NEWTIME) != 0 ||
		    put("setgroups", "deny") != 0 ||
		    (snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid,
		    (unsigned)uid), put("uid_map", map)) != 0 ||
		    (snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid,
		    (unsigned)gid), put("gid_map", map)) != 0) {
			_exit(write(out, "S", 1) == 1 ? 0 : 1);
		}
	}
	if (put("timens_offsets", "boottime 1000 0") != 0)
		_exit(write(out, "S", 1) == 1 ? 0 : 1);
	/* Its child is the one in the new time namespace. */
	if ((pid = fork()) == 0) {
		if (tc_proc_me(&me) != 0)
			_exit(1);
		c = tc_proc_gone(parent, &me) ? 'G' : 'L';
		if (write(out, &c, 1) != 1 ||
		    write(out, &me, sizeof(me)) != (ssize_t)sizeof(me))
			_exit(1);
		/* Alive until the test has looked. */
		_exit(read(hold, &c, 1) >= 0 ? 0 : 1);
	}
	st = -1;
	if (pid > 0)
		waitpid(pid, &st, 0);
	_exit(st == 0 ? 0 : 1);
}

static void
test_time_ns(void)
{
	struct tc_proc_id me, w;
	int out[2], hold[2];
	pid_t pid;
	char c = 0;

	if (tc_proc_me(&me) != 0 || pipe(out) != 0 || pipe(hold) != 0) {
		ok(0, "who we are, and two pipes");
		return;
	}
	if ((pid = fork()) == 0) {
		close(out[0]);
		close(hold[1]);
		time_child(&me, out[1], hold[0]);
	}
	close(out[1]);
	close(hold[0]);
	if (read(out[0], &c, 1) != 1 || c == 'S') {
		close(hold[1]);
		waitpid(pid, NULL, 0);
		close(out[0]);
		skip("no time namespace can be made here");
		return;
	}
	ok(c == 'L', "a process of another time namespace does not call us "
	    "gone (%c)", c);
	if (read(out[0], &w, sizeof(w)) == (ssize_t)sizeof(w))
		ok(w.ns == me.ns && !tc_proc_gone(&w, &me), "nor do we call "
		    "it gone, alive, named by the start time it reads (%llu)",
		    w.start);
	else
		ok(0, "its name");
	close(hold[1]);
	waitpid(pid, NULL, 0);
	close(out[0]);
}

/* tc_read_small(): whole, cut to its room, missing, no room at all. */
static void
test_read_small(void)
{
	char path[] = "/tmp/toolcell-test-proc.XXXXXX", buf[8];
	int fd;

	if (!ok((fd = mkstemp(path)) >= 0 && write(fd, "0123456789", 10) == 10,
	    "read_small: a file of 10 bytes"))
		return;
	close(fd);
	is_int((int)tc_read_small(path, buf, sizeof(buf)), 7, "read_small: "
	    "cut to its room, 7 bytes and the NUL");
	is_str(buf, "0123456", "read_small: the first 7");
	is_int((int)tc_read_small("/proc/self/stat", buf, 2), 1, "read_small: "
	    "one byte in a room of two");
	unlink(path);
	errno = 0;
	ok(tc_read_small(path, buf, sizeof(buf)) == -1 && errno == ENOENT,
	    "read_small: a missing file is -1, ENOENT");
	errno = 0;
	ok(tc_read_small("/proc/self/stat", buf, 0) == -1 && errno == EINVAL,
	    "read_small: no room at all is -1, EINVAL");
}

int
main(void)
{
	test_read_small();
	test_start();
	test_parse();
	test_gone();
	test_time_ns();
	return done_testing();
}
