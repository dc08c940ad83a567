/*
 * files.c: hostile tools that try to reach files outside the roots: by
 * "..", absolute paths, prefix twins, symlinks and a symlink swapped under
 * a reader, hard links and renames, the server's /proc files, file
 * descriptors left open and the environment.  Plain open(), openat() and
 * read(): only the sandbox stands in the way.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"
#include "hostile_policy.h"
#include "sandbox/sandbox.h"

extern char **environ;

int
hs_hello(const struct tc_call *call, struct tc_result *res)
{
	hs_bool(res, "ok", 1);
	hs_int(res, "pid", (long long)getpid());
	tc_result_printf(res, "hello from pid %d\n", (int)getpid());
	return hs_greet(call, res);	/* what [hostile] asks for */
}

/* The directory fd a path is opened from: a root's, or the cwd. */
static int
dir_of(const struct tc_call *call, struct tc_result *res, int *dirfd)
{
	long long i;

	*dirfd = AT_FDCWD;
	if (!tc_arg_has(call, "root"))
		return 0;
	i = tc_arg_int(call, "root", 0);
	if ((*dirfd = hs_root_fd(call, (size_t)i)) < 0) {
		tc_result_error(res, "there is no root %lld", i);
		return -1;
	}
	return 0;
}

int
hs_read_path(const struct tc_call *call, struct tc_result *res)
{
	const char *path = tc_arg_str(call, "path");
	const char *secret = tc_arg_str(call, "secret");
	ssize_t n;
	int dirfd, err, found;

	if (dir_of(call, res, &dirfd) != 0)
		return 0;
	found = hs_read_secret(dirfd, path, secret, &err, &n);
	hs_int(res, "bytes", n);
	if (found)
		return hs_outcome(res, 1, 0, "read the secret through '%s' "
		    "(%zd bytes)", path, n);
	if (n < 0)
		return hs_outcome(res, 0, err, "open or read '%s': %s", path,
		    strerror(err));
	return hs_outcome(res, 0, 0, "read %zd bytes of '%s', none of them "
	    "the secret", n, path);
}

static long long
elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)(t.tv_sec - t0->tv_sec) * 1000 +
	    (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Opens and reads |path| again and again while the test flips a symlink on
 * it between an inside file and the outside secret: every open is a race
 * between the kernel's resolution and the flip.
 */
int
hs_race_read(const struct tc_call *call, struct tc_result *res)
{
	const char *path = tc_arg_str(call, "path");
	const char *secret = tc_arg_str(call, "secret");
	const char *inside = tc_arg_str(call, "inside");
	long long iters = tc_arg_int(call, "iterations", 0);
	long long max_ms = tc_arg_int(call, "max_ms", 0);
	long long i, leaks = 0, insides = 0, denied = 0, missing = 0;
	long long other = 0, empty = 0;
	int dirfd, fd, other_errno = 0;
	struct timespec t0;
	char buf[4096];
	ssize_t n;

	if (dir_of(call, res, &dirfd) != 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < iters; i++) {
		if ((i & 1023) == 0 && elapsed_ms(&t0) > max_ms)
			break;
		if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0) {
			if (errno == EACCES || errno == EPERM ||
			    errno == EXDEV || errno == ELOOP)
				denied++;
			else if (errno == ENOENT)
				missing++;
			else if (other++ == 0)
				other_errno = errno;
			continue;
		}
		n = hs_read_some(fd, buf, sizeof(buf));
		close(fd);
		if (n > 0 && hs_contains(buf, (size_t)n, secret))
			leaks++;
		else if (n > 0 && hs_contains(buf, (size_t)n, inside))
			insides++;
		else
			empty++;
	}
	hs_int(res, "iterations", i);
	hs_int(res, "secret_reads", leaks);
	hs_int(res, "inside_reads", insides);
	hs_int(res, "denied", denied);
	hs_int(res, "enoent", missing);
	hs_int(res, "other_reads", empty);
	hs_int(res, "other_errors", other);
	hs_int(res, "ms", elapsed_ms(&t0));
	return hs_outcome(res, leaks > 0, other_errno, "%lld opens of '%s': "
	    "%lld returned the secret, %lld the inside file, %lld were "
	    "refused, %lld found nothing, %lld failed otherwise", i, path,
	    leaks, insides, denied, missing, other);
}

static int
write_flags(const char *mode)
{
	if (strcmp(mode, "append") == 0)
		return O_WRONLY | O_CREAT | O_APPEND;
	return O_WRONLY | O_CREAT | O_TRUNC;
}

/* Writes |data| to |path| opened with |flags|; returns bytes or -errno. */
static ssize_t
write_to(int dirfd, const char *path, int flags, const char *data)
{
	size_t len = strlen(data);
	ssize_t n;
	int fd, err;

	if ((fd = openat(dirfd, path, flags | O_CLOEXEC | O_NOCTTY,
	    0666)) < 0)
		return -errno;
	n = write(fd, data, len);
	err = errno;
	close(fd);
	return n < 0 ? -err : n;
}

int
hs_write_path(const struct tc_call *call, struct tc_result *res)
{
	const char *path = tc_arg_str(call, "path");
	const char *data = tc_arg_str(call, "data");
	const char *mode = tc_arg_str(call, "mode");
	int dirfd;
	ssize_t n;

	if (dir_of(call, res, &dirfd) != 0)
		return 0;
	n = write_to(dirfd, path, write_flags(mode ? mode : "trunc"), data);
	hs_int(res, "bytes", n < 0 ? -1 : n);
	if (n < 0)
		return hs_outcome(res, 0, (int)-n, "open or write '%s': %s",
		    path, strerror((int)-n));
	return hs_outcome(res, n == (ssize_t)strlen(data), 0, "wrote %zd "
	    "of %zu bytes to '%s'", n, strlen(data), path);
}

/*
 * Makes a symlink |link| -> |target| (where symlinks may be made: beneath
 * a writable root), then creates and writes the file through it.
 */
int
hs_symlink_write(const struct tc_call *call, struct tc_result *res)
{
	const char *link = tc_arg_str(call, "link");
	const char *target = tc_arg_str(call, "target");
	const char *data = tc_arg_str(call, "data");
	int serr = 0;
	ssize_t n;

	if (symlinkat(target, AT_FDCWD, link) != 0)
		serr = errno;
	hs_int(res, "symlink_errno", serr);
	n = write_to(AT_FDCWD, link, O_WRONLY | O_CREAT | O_TRUNC, data);
	hs_int(res, "bytes", n < 0 ? -1 : n);
	if (n < 0)
		return hs_outcome(res, 0, (int)-n, "symlink '%s' -> '%s': %s; "
		    "write through it: %s", link, target, serr ?
		    strerror(serr) : "made", strerror((int)-n));
	return hs_outcome(res, n == (ssize_t)strlen(data), 0, "symlink '%s' "
	    "-> '%s': %s; wrote %zd bytes through it", link, target, serr ?
	    strerror(serr) : "made", n);
}

/*
 * Hard links and renames across the root's edge: a link from inside to an
 * outside file (after which the outside file would be "inside content"),
 * an outside file renamed in, an inside file renamed out.
 */
int
hs_link_out(const struct tc_call *call, struct tc_result *res)
{
	const char *op = tc_arg_str(call, "op");
	const char *from = tc_arg_str(call, "from");
	const char *to = tc_arg_str(call, "to");
	const char *secret = tc_arg_str(call, "secret");
	int rc, err = 0, err2 = 0, found = 0, rerr;
	ssize_t n;

	if (strcmp(op, "link") == 0) {
		/* linkat() and, should that be refused, the older link(). */
		if ((rc = linkat(AT_FDCWD, from, AT_FDCWD, to, 0)) != 0) {
			err = errno;
			if ((rc = (int)syscall(SYS_link, from, to)) != 0)
				err2 = errno;
		}
		hs_int(res, "link_errno", err2);
		if (rc == 0 && secret != NULL)
			found = hs_read_secret(AT_FDCWD, to, secret, &rerr,
			    &n);
		hs_bool(res, "read_secret", found);
		return hs_outcome(res, rc == 0, err, "link '%s' -> '%s': "
		    "linkat: %s, link: %s%s", from, to, err ? strerror(err) :
		    "made", rc == 0 && err == 0 ? "not tried" : err2 ?
		    strerror(err2) : "made", found ? "; read the secret "
		    "through it" : "");
	}
	/* rename_in and rename_out differ only in the paths given. */
	rc = renameat2(AT_FDCWD, from, AT_FDCWD, to, 0);
	err = rc != 0 ? errno : 0;
	return hs_outcome(res, rc == 0, err, "%s '%s' -> '%s': %s", op, from,
	    to, rc == 0 ? "renamed" : strerror(err));
}

/* /proc/<server>/...: its environment, open files, root and cwd. */
int
hs_server_proc(const struct tc_call *call, struct tc_result *res)
{
	const char *what = tc_arg_str(call, "what");
	const char *rel = tc_arg_str(call, "rel");
	const char *secret = tc_arg_str(call, "secret");
	long pid = hs_server_pid(call);
	char path[PATH_MAX];
	int err, found;
	ssize_t n;

	if (pid <= 0)
		return tc_result_error(res, "the server's pid is unknown: "
		    "pass it as 'pid'");
	if (strcmp(what, "fd") == 0)
		snprintf(path, sizeof(path), "/proc/%ld/fd/%lld", pid,
		    tc_arg_int(call, "fd", 0));
	else if (strcmp(what, "environ") == 0)
		snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	else
		snprintf(path, sizeof(path), "/proc/%ld/%s/%s", pid, what,
		    rel != NULL ? rel : "");
	hs_int(res, "server_pid", pid);
	hs_str(res, "path", path);
	found = hs_read_secret(AT_FDCWD, path, secret, &err, &n);
	hs_int(res, "bytes", n);
	if (found)
		return hs_outcome(res, 1, 0, "read the secret from %s", path);
	if (n < 0)
		return hs_outcome(res, 0, err, "open or read %s: %s", path,
		    strerror(err));
	return hs_outcome(res, 0, 0, "read %zd bytes of %s, none of them the "
	    "secret", n, path);
}

static const char *
ftype(mode_t m)
{
	if (S_ISREG(m))
		return "file";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m))
		return "char-device";
	if (S_ISLNK(m))
		return "symlink";
	return "other";
}

/*
 * Looks for a file the server left open: every fd from 3 to 1023, read
 * from the start when it is a regular file (re-opened through
 * /proc/self/fd when it was opened O_PATH).  With "open_first", that file
 * is opened (and left open) before the scan: the control.
 */
int
hs_fd_canary(const struct tc_call *call, struct tc_result *res)
{
	const char *secret = tc_arg_str(call, "secret");
	const char *first = tc_arg_str(call, "open_first");
	static char buf[64 << 10];
	char proc[64];
	cJSON *list, *it;
	struct stat st;
	int fd, fl, rfd, found = 0, nfds = 0;
	ssize_t n;

	/* Left open on purpose, without O_CLOEXEC, like a leaked fd. */
	if (first != NULL && open(first, O_RDONLY) < 0)
		return tc_result_error(res, "open_first '%s': %s", first,
		    strerror(errno));
	if ((list = cJSON_AddArrayToObject(tc_result_obj(res), "fds")) ==
	    NULL)
		return TC_ENOMEM;
	for (fd = 3; fd < 1024; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		nfds++;
		fl = fcntl(fd, F_GETFL);
		it = cJSON_CreateObject();
		cJSON_AddNumberToObject(it, "fd", fd);
		if (fstat(fd, &st) != 0) {
			cJSON_AddStringToObject(it, "type", "unknown");
			cJSON_AddItemToArray(list, it);
			continue;
		}
		cJSON_AddStringToObject(it, "type", ftype(st.st_mode));
		cJSON_AddBoolToObject(it, "o_path", fl >= 0 &&
		    (fl & O_PATH) != 0);
		cJSON_AddItemToArray(list, it);
		if (!S_ISREG(st.st_mode))
			continue;
		n = pread(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
			if ((rfd = open(proc, O_RDONLY | O_CLOEXEC)) >= 0) {
				n = hs_read_some(rfd, buf, sizeof(buf));
				close(rfd);
			}
		}
		if (n > 0 && hs_contains(buf, (size_t)n, secret)) {
			cJSON_AddTrueToObject(it, "secret");
			found++;
		}
	}
	hs_int(res, "open_fds", nfds);
	hs_int(res, "secret_fds", found);
	return hs_outcome(res, found > 0, 0, "%d fds open above 2, %d of "
	    "them holding the secret", nfds, found);
}

/*
 * Looks for the server's environment: getenv(), environ, the kernel's copy
 * in /proc/self/environ, and the strings themselves, which the kernel put
 * on the initial stack above argv and which a fork inherits whatever
 * clearenv() did to the environ array.
 */
int
hs_env_canary(const struct tc_call *call, struct tc_result *res)
{
	const char *name = tc_arg_str(call, "name");
	const char *secret = tc_arg_str(call, "secret");
	const char *lo, *hi;
	char **e;
	int in_getenv, in_environ = 0, in_proc, in_memory = 0, err;
	long nenv = 0;
	ssize_t n;

	in_getenv = getenv(name) != NULL;
	for (e = environ; e != NULL && *e != NULL; e++) {
		nenv++;
		if (strstr(*e, secret) != NULL)
			in_environ = 1;
	}
	in_proc = hs_read_secret(AT_FDCWD, "/proc/self/environ", secret,
	    &err, &n);
	hs_int(res, "proc_environ_errno", err);
	/* argv[0] is the lowest of the strings the kernel copied; the file
	 * name it put last (AT_EXECFN) the highest. */
	lo = program_invocation_name;
	hi = (const char *)getauxval(AT_EXECFN);
	if (lo != NULL && hi != NULL && hi > lo && hi - lo < (1 << 20))
		in_memory = hs_contains(lo, (size_t)(hi - lo), secret);
	hs_int(res, "environ_entries", nenv);
	hs_bool(res, "in_getenv", in_getenv);
	hs_bool(res, "in_environ", in_environ);
	hs_bool(res, "in_proc_environ", in_proc);
	hs_bool(res, "in_memory", in_memory);
	hs_int(res, "memory_scanned", lo != NULL && hi > lo ?
	    (long long)(hi - lo) : 0);
	return hs_outcome(res, in_getenv || in_environ || in_proc ||
	    in_memory, err, "%s: getenv %s; environ (%ld entries) %s; "
	    "/proc/self/environ %s; the initial stack %s", name,
	    in_getenv ? "has it" : "has not", nenv, in_environ ?
	    "has the secret" : "has not", in_proc ? "has the secret" :
	    err ? strerror(err) : "has not", in_memory ? "has the secret" :
	    "has not");
}
