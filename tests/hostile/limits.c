/*
 * limits.c: hostile tools that try to exhaust what the machine has (memory,
 * CPU, time, file descriptors, the result channel and stdout), and one
 * that reports the child's own view of its confinement.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

/*
 * Allocates and touches |chunk_mib| at a time until malloc() fails or
 * |cap_mib| (a safety stop, should nothing else stop it) is reached.
 * Escaped: the cap was reached, or more than |limit_mib| was had.
 */
int
hs_memory_bomb(const struct tc_call *call, struct tc_result *res)
{
	long long chunk = tc_arg_int(call, "chunk_mib", 0) << 20;
	long long cap = tc_arg_int(call, "cap_mib", 0) << 20;
	long long limit = tc_arg_int(call, "limit_mib", 0) << 20;
	long long total = 0;
	struct rlimit rl;
	int err = 0;
	char *p;

#ifdef TC_SANITIZE
	/* The sanitizer build sets no RLIMIT_AS (ASan reserves terabytes
	 * of address space): there is no limit to hit. */
	hs_bool(res, "sanitizer_build", 1);
	return hs_outcome(res, 0, 0, "not run in the sanitizer build");
#endif
	hs_bool(res, "sanitizer_build", 0);
	if (getrlimit(RLIMIT_AS, &rl) != 0)
		rl.rlim_cur = RLIM_INFINITY;
	hs_int(res, "rlimit_as", rl.rlim_cur == RLIM_INFINITY ? -1 :
	    (long long)rl.rlim_cur);
	while (total < cap) {
		if ((p = malloc((size_t)chunk)) == NULL) {
			err = errno;
			break;
		}
		memset(p, 0xa5, (size_t)chunk);
		total += chunk;
	}
	hs_int(res, "allocated", total);
	hs_int(res, "allocated_mib", total >> 20);
	return hs_outcome(res, total >= cap || total > limit, err, "touched "
	    "%lld MiB before %s", total >> 20, total >= cap ?
	    "the safety cap stopped it" : err ? strerror(err) :
	    "malloc failed");
}

int
hs_cpu_spin(const struct tc_call *call, struct tc_result *res)
{
	volatile unsigned long n = 0;

	(void)call;
	for (;;)
		n++;
	/* NOTREACHED */
	return hs_outcome(res, 1, 0, "the spin ended after %lu turns", n);
}

int
hs_sleep_forever(const struct tc_call *call, struct tc_result *res)
{
	struct timespec ts = { 3600, 0 };
	unsigned long naps = 0;

	(void)call;
	for (;;) {
		nanosleep(&ts, NULL);
		naps++;
	}
	/* NOTREACHED */
	return hs_outcome(res, 1, 0, "woke %lu times", naps);
}

/*
 * Opens the first root's directory until open fails; escaped when the
 * failure is not the per-process EMFILE (the whole system's file table,
 * ENFILE), or when more were had than the soft limit allows.
 */
int
hs_fd_exhaust(const struct tc_call *call, struct tc_result *res)
{
	const long long cap = 1000000;
	int dirfd = hs_root_fd(call, 0), fd, err = 0, last = -1, *fds = NULL;
	int *more;
	long long n = 0, i, room = 0;
	struct rlimit rl;

	if (dirfd < 0)
		return tc_result_error(res, "no root");
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		rl.rlim_cur = RLIM_INFINITY;
	while (n < cap) {
		if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0) {
			err = errno;
			break;
		}
		/* Kept, to be closed one by one: they fill whatever holes
		 * the fd table had, between fds that are not ours. */
		if (n == room) {
			room = room ? room * 2 : 256;
			if ((more = realloc(fds, (size_t)room *
			    sizeof(*fds))) == NULL) {
				close(fd);
				err = ENOMEM;
				break;
			}
			fds = more;
		}
		fds[n++] = fd;
		if (fd > last)
			last = fd;
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	hs_int(res, "opened", n);
	hs_int(res, "highest_fd", last);
	hs_int(res, "rlimit_nofile", rl.rlim_cur == RLIM_INFINITY ? -1 :
	    (long long)rl.rlim_cur);
	return hs_outcome(res, err != EMFILE || (rl.rlim_cur != RLIM_INFINITY
	    && (unsigned long long)last >= rl.rlim_cur), err, "opened %lld "
	    "fds (highest %d) before %s", n, last, err ? strerror(err) :
	    "the safety cap");
}

/*
 * Floods the result ("text": grow the text until the result buffer refuses
 * more, past the parent's cap) or stdout ("stdout": lines that look like
 * MCP messages, which must never reach the client).
 */
int
hs_output_flood(const struct tc_call *call, struct tc_result *res)
{
	const char *mode = tc_arg_str(call, "mode");
	const char *token = tc_arg_str(call, "token");
	long long want = tc_arg_int(call, "mib", 0) << 20, done = 0;
	static char chunk[64 << 10];
	char line[512];
	struct stat st;
	int devnull, len;
	ssize_t n;

	if (strcmp(mode, "text") == 0) {
		memset(chunk, 'A', sizeof(chunk));
		while (done < want && tc_result_text(res, chunk,
		    sizeof(chunk)) == 0)
			done += (long long)sizeof(chunk);
		hs_int(res, "text_bytes", done);
		(void)hs_outcome(res, 0, 0, "grew the text to %lld bytes",
		    done);
		/* Sent as it is, however much would not fit: the library
		 * would make it an error, but the server's own cap on what
		 * a child sends is what this tests. */
		res->failed = 0;
		return 0;
	}
	len = snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/message\",\"params\":{\"level\":\"error\","
	    "\"data\":\"%s\"}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
	    "{\"injected\":\"%s\"}}\n", token, token);
	devnull = fstat(STDOUT_FILENO, &st) == 0 && S_ISCHR(st.st_mode) &&
	    major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
	while (done < want) {
		if ((n = write(STDOUT_FILENO, line, (size_t)len)) <= 0)
			break;
		done += n;
	}
	hs_int(res, "stdout_bytes", done);
	hs_bool(res, "stdout_is_devnull", devnull);
	return hs_outcome(res, done > 0 && !devnull, 0, "wrote %lld bytes "
	    "of MCP-looking lines to stdout, which is %s", done, devnull ?
	    "/dev/null" : "not /dev/null");
}

/*
 * Copies the value after |key| on its line in |text| to |out|, each run of
 * blanks made one space and none at either end.
 */
static void
field(const char *text, const char *key, char *out, size_t n)
{
	const char *p = strstr(text, key);
	size_t k = 0;
	int blank = 0;

	out[0] = '\0';
	if (p == NULL || n == 0)
		return;
	for (p += strlen(key); *p != '\0' && *p != '\n' && k + 2 < n; p++) {
		if (*p == ' ' || *p == '\t') {
			blank = 1;
			continue;
		}
		if (blank && k > 0)
			out[k++] = ' ';
		blank = 0;
		out[k++] = *p;
	}
	out[k] = '\0';
}

static int
nonzero(const char *hex)
{
	return hex[0] == '\0' || strspn(hex, "0") != strlen(hex);
}

/*
 * The confinement seen from inside: capabilities, no_new_privs, seccomp
 * and PID namespaces from /proc/self/status (/proc must be a root).
 */
int
hs_status(const struct tc_call *call, struct tc_result *res)
{
	static const char *const keys[] = { "CapInh", "CapPrm", "CapEff",
	    "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "NSpid", "Uid" };
	char text[8192], key[32], v[TC_NITEMS(keys)][128];
	int fd, err, bad;
	ssize_t n;
	size_t i;

	(void)call;
	if ((fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)) < 0) {
		err = errno;
		return tc_result_error(res, "open /proc/self/status: %s",
		    strerror(err));
	}
	n = hs_read_some(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	for (i = 0; i < TC_NITEMS(keys); i++) {
		snprintf(key, sizeof(key), "\n%s:", keys[i]);
		field(text, key, v[i], sizeof(v[i]));
		hs_str(res, keys[i], v[i]);
	}
	/* Root with a bounding set could get capabilities back through a
	 * file's; anyone with capabilities in force has them. */
	bad = nonzero(v[0]) || nonzero(v[1]) || nonzero(v[2]) ||
	    nonzero(v[4]) || strcmp(v[5], "1") != 0 || strcmp(v[6], "2") != 0
	    || (geteuid() == 0 && nonzero(v[3]));
	hs_int(res, "euid", (long long)geteuid());
	return hs_outcome(res, bad, 0, "CapInh %s CapPrm %s CapEff %s CapBnd "
	    "%s CapAmb %s NoNewPrivs %s Seccomp %s NSpid %s", v[0], v[1],
	    v[2], v[3], v[4], v[5], v[6], v[7]);
}

/* Calls the code at |p| as a function that returns an int. */
static int
run_code(void *p)
{
	int (*fn)(void);

	memcpy(&fn, &p, sizeof(fn));
	return fn();
}

/*
 * Tries to make memory that is both written and run: mprotect() adding
 * PROT_EXEC to a written page, and an anonymous mmap() that is writable
 * and executable from the start.  Escaped when code written at run time
 * ran (x86-64: "mov eax, 42; ret").
 */
int
hs_wx_memory(const struct tc_call *call, struct tc_result *res)
{
	static const unsigned char code[] = { 0xb8, 0x2a, 0, 0, 0, 0xc3 };
	int perr = 0, merr = 0, ran_p = 0, ran_m = 0;
	unsigned char *rw, *rwx;

	(void)call;
	rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (rw == MAP_FAILED)
		return tc_result_error(res, "mmap: %s", strerror(errno));
	memcpy(rw, code, sizeof(code));
	if (mprotect(rw, 4096, PROT_READ | PROT_EXEC) != 0)
		perr = errno;
#if defined(__x86_64__)
	else
		ran_p = run_code(rw) == 42;
#endif
	rwx = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rwx == MAP_FAILED)
		merr = errno;
	else {
		memcpy(rwx, code, sizeof(code));
#if defined(__x86_64__)
		ran_m = run_code(rwx) == 42;
#endif
	}
	hs_int(res, "mprotect_errno", perr);
	hs_bool(res, "mprotect_ran", ran_p);
	hs_int(res, "mmap_errno", merr);
	hs_bool(res, "mmap_ran", ran_m);
	return hs_outcome(res, ran_p || ran_m, perr ? perr : merr,
	    "mprotect(PROT_EXEC) of written memory: %s; anonymous "
	    "mmap(PROT_WRITE | PROT_EXEC): %s", perr ? strerror(perr) :
	    ran_p ? "its code ran" : "allowed", merr ? strerror(merr) :
	    ran_m ? "its code ran" : "allowed");
}
