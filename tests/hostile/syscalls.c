/*
 * syscalls.c: hostile tools that make the system calls no tool should be
 * able to make: io_uring (whose operations seccomp never sees), calls of
 * another ABI (x32, i386 int 0x80), TIOCSTI with and without high bits,
 * the mount family, namespaces, keyrings, bpf, and sockets of every kind.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile.h"

/* --- io_uring --- */

/*
 * Submits one IORING_OP_OPENAT of |path| on |ring| and returns its result
 * (an fd or -errno), or -errno of the step that failed.
 */
static int
uring_openat(int ring, const struct io_uring_params *p, const char *path)
{
	size_t sq_sz, cq_sz, sqe_sz;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned *tail, *array, *chead, *ctail, mask, t, idx;
	char *sq, *cq;
	int single, rc;

	sq_sz = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	cq_sz = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	sqe_sz = p->sq_entries * sizeof(struct io_uring_sqe);
	if ((single = (p->features & IORING_FEAT_SINGLE_MMAP) != 0) &&
	    cq_sz > sq_sz)
		sq_sz = cq_sz;
	sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	cq = single ? sq : mmap(NULL, cq_sz, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	if (cq == MAP_FAILED)
		return -errno;
	sqes = mmap(NULL, sqe_sz, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sqes == MAP_FAILED)
		return -errno;
	tail = (unsigned *)(void *)(sq + p->sq_off.tail);
	array = (unsigned *)(void *)(sq + p->sq_off.array);
	mask = *(unsigned *)(void *)(sq + p->sq_off.ring_mask);
	t = *tail;
	idx = t & mask;
	memset(&sqes[idx], 0, sizeof(sqes[idx]));
	sqes[idx].opcode = IORING_OP_OPENAT;
	sqes[idx].fd = AT_FDCWD;
	sqes[idx].addr = (uint64_t)(uintptr_t)path;
	sqes[idx].open_flags = O_RDONLY | O_CLOEXEC;
	array[idx] = idx;
	__atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
	rc = (int)syscall(SYS_io_uring_enter, ring, 1, 1,
	    IORING_ENTER_GETEVENTS, NULL, 0);
	if (rc < 0)
		return -errno;
	chead = (unsigned *)(void *)(cq + p->cq_off.head);
	ctail = (unsigned *)(void *)(cq + p->cq_off.tail);
	cqes = (struct io_uring_cqe *)(void *)(cq + p->cq_off.cqes);
	if (__atomic_load_n(ctail, __ATOMIC_ACQUIRE) == *chead)
		return -EAGAIN;
	return cqes[*chead & *(unsigned *)(void *)(cq +
	    p->cq_off.ring_mask)].res;
}

/*
 * io_uring_setup(), and should it be allowed, an openat of |path| through
 * the ring, which no seccomp filter sees.
 */
int
hs_io_uring(const struct tc_call *call, struct tc_result *res)
{
	const char *path = tc_arg_str(call, "path");
	const char *secret = tc_arg_str(call, "secret");
	struct io_uring_params p;
	char buf[4096];
	int ring, fd, err, found = 0;
	ssize_t n;

	memset(&p, 0, sizeof(p));
	ring = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (ring < 0) {
		err = errno;
		hs_int(res, "openat_result", 0);
		return hs_outcome(res, 0, err, "io_uring_setup: %s",
		    strerror(err));
	}
	fd = uring_openat(ring, &p, path);
	hs_int(res, "openat_result", fd);
	if (fd >= 0) {
		n = hs_read_some(fd, buf, sizeof(buf));
		found = n > 0 && hs_contains(buf, (size_t)n, secret);
		close(fd);
	}
	hs_bool(res, "read_secret", found);
	close(ring);
	return hs_outcome(res, 1, fd < 0 ? -fd : 0, "io_uring_setup "
	    "succeeded; IORING_OP_OPENAT '%s': %s%s", path, fd >= 0 ?
	    "opened" : strerror(-fd), found ? ", and the secret was read" :
	    "");
}

/* --- Other ABIs --- */

/* socket(AF_INET, SOCK_STREAM) as an x32 system call. */
int
hs_abi_x32(const struct tc_call *call, struct tc_result *res)
{
	long r;
	int err;

	(void)call;
	r = syscall(0x40000000L | SYS_socket, AF_INET, SOCK_STREAM, 0);
	err = r < 0 ? errno : 0;
	hs_int(res, "result", r);
	return hs_outcome(res, r >= 0, err, "survived an x32 socket(): %s",
	    r >= 0 ? "it returned an fd" : strerror(err));
}

/* socket(AF_INET, SOCK_STREAM) as an i386 system call (number 359). */
int
hs_abi_int80(const struct tc_call *call, struct tc_result *res)
{
	long r = 359;

	(void)call;
#if defined(__x86_64__)
	__asm__ volatile("int $0x80" : "+a"(r) : "b"(2L), "c"(1L), "d"(0L)
	    : "memory");
#else
	return tc_result_error(res, "int 0x80 exists on x86-64 only");
#endif
	hs_int(res, "result", r);
	return hs_outcome(res, r >= 0, r < 0 ? (int)-r : 0, "survived an "
	    "i386 socket(): %s", r >= 0 ? "it returned an fd" :
	    strerror((int)-r));
}

/*
 * Whether the kernel runs i386 system calls at all, and what the filter
 * does to one: a grandchild makes an int 0x80 getpid.  Killed by SIGSYS:
 * the kernel took it as a system call and seccomp killed it.  SIGSEGV:
 * the kernel has no ia32 emulation.  Exited: the call ran.
 */
int
hs_abi_probe(const struct tc_call *call, struct tc_result *res)
{
	int st;
	pid_t pid;

	(void)call;
	if ((pid = fork()) < 0)
		return tc_result_error(res, "fork: %s", strerror(errno));
	if (pid == 0) {
#if defined(__x86_64__)
		long r = 20;

		signal(SIGSEGV, SIG_DFL);
		__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
		_exit(r > 0 ? 0 : 1);
#else
		_exit(2);
#endif
	}
	if (waitpid(pid, &st, 0) != pid)
		return tc_result_error(res, "waitpid: %s", strerror(errno));
	if (WIFSIGNALED(st)) {
		hs_str(res, "ia32", WTERMSIG(st) == SIGSEGV ? "absent" :
		    WTERMSIG(st) == SIGSYS ? "present" : "unknown");
		hs_int(res, "signal", WTERMSIG(st));
		return hs_outcome(res, 0, 0, "the int 0x80 grandchild died of "
		    "signal %d", WTERMSIG(st));
	}
	hs_str(res, "ia32", WEXITSTATUS(st) == 2 ? "unknown" : "present");
	hs_int(res, "signal", 0);
	return hs_outcome(res, WEXITSTATUS(st) == 0, 0, "the int 0x80 "
	    "grandchild exited with status %d", WEXITSTATUS(st));
}

/* --- TIOCSTI --- */

/*
 * Pushes a character into the input of fds 0, 1, 2 and /dev/tty with
 * TIOCSTI, and again with the high 32 bits of the request set, which a
 * filter comparing 64 bits would miss and the kernel would ignore.
 */
int
hs_tiocsti(const struct tc_call *call, struct tc_result *res)
{
	static const char *const names[] = { "fd0", "fd1", "fd2", "tty" };
	const unsigned long high = 0xffffffff00000000UL | TIOCSTI;
	cJSON *list, *it;
	int fds[4] = { 0, 1, 2, -1 }, i, rc, hrc, err, herr, any = 0;
	int tty_err;
	char c = '#';

	(void)call;
	fds[3] = open("/dev/tty", O_RDWR | O_CLOEXEC);
	tty_err = fds[3] < 0 ? errno : 0;
	hs_int(res, "tty_errno", tty_err);
	if ((list = cJSON_AddArrayToObject(tc_result_obj(res), "targets")) ==
	    NULL)
		return TC_ENOMEM;
	for (i = 0; i < 4; i++) {
		if (fds[i] < 0)
			continue;
		rc = ioctl(fds[i], TIOCSTI, &c);
		err = rc != 0 ? errno : 0;
		hrc = (int)syscall(SYS_ioctl, fds[i], high, &c);
		herr = hrc != 0 ? errno : 0;
		any |= rc == 0 || hrc == 0;
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "target", names[i]);
		cJSON_AddNumberToObject(it, "errno", err);
		cJSON_AddNumberToObject(it, "high_errno", herr);
		cJSON_AddItemToArray(list, it);
	}
	if (fds[3] >= 0)
		close(fds[3]);
	return hs_outcome(res, any, 0, "TIOCSTI on fds 0-2%s: %s", tty_err ?
	    " (/dev/tty would not open)" : " and /dev/tty", any ?
	    "a character was pushed" : "every attempt was refused");
}

/* --- Privileged calls --- */

static int
sys_result(long rc, int *err)
{
	*err = rc < 0 ? errno : 0;
	return rc >= 0;
}

/*
 * One privileged operation.  The mount family is aimed at |target|, a
 * directory of the test's: a mount that works there is undone at once,
 * and umount2 of a directory that is no mount point fails with EINVAL
 * only after the permission check has passed, which counts.
 */
int
hs_privileged(const struct tc_call *call, struct tc_result *res)
{
	const char *op = tc_arg_str(call, "op");
	const char *target = tc_arg_str(call, "target");
	struct perf_event_attr pe;
	union bpf_attr ba;
	int ok = 0, err = 0, st;
	long rc;

	if (strcmp(op, "mount") == 0) {
		rc = mount("none", target ? target : "/", "tmpfs", 0,
		    "size=64k");
		if ((ok = sys_result(rc, &err)))
			umount2(target ? target : "/", MNT_DETACH);
	} else if (strcmp(op, "umount2") == 0) {
		rc = umount2(target ? target : "/", 0);
		ok = sys_result(rc, &err) || err == EINVAL;
	} else if (strcmp(op, "unshare_user") == 0) {
		ok = sys_result(unshare(CLONE_NEWUSER), &err);
	} else if (strcmp(op, "unshare_mount") == 0) {
		ok = sys_result(unshare(CLONE_NEWNS), &err);
	} else if (strcmp(op, "clone_newuser") == 0) {
		rc = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
		if (rc == 0)
			_exit(0);
		if ((ok = sys_result(rc, &err)))
			waitpid((pid_t)rc, &st, 0);
	} else if (strcmp(op, "keyctl") == 0) {
		ok = sys_result(syscall(SYS_keyctl,
		    KEYCTL_JOIN_SESSION_KEYRING, NULL), &err);
	} else if (strcmp(op, "add_key") == 0) {
		ok = sys_result(syscall(SYS_add_key, "user",
		    "toolcell-hostile", "x", 1, KEY_SPEC_PROCESS_KEYRING),
		    &err);
	} else if (strcmp(op, "bpf") == 0) {
		memset(&ba, 0, sizeof(ba));
		ba.map_type = BPF_MAP_TYPE_ARRAY;
		ba.key_size = 4;
		ba.value_size = 4;
		ba.max_entries = 1;
		ok = sys_result(syscall(SYS_bpf, BPF_MAP_CREATE, &ba,
		    sizeof(ba)), &err);
	} else if (strcmp(op, "perf_event_open") == 0) {
		memset(&pe, 0, sizeof(pe));
		pe.type = PERF_TYPE_SOFTWARE;
		pe.size = sizeof(pe);
		pe.config = PERF_COUNT_SW_CPU_CLOCK;
		pe.exclude_kernel = 1;
		pe.exclude_hv = 1;
		ok = sys_result(syscall(SYS_perf_event_open, &pe, 0, -1, -1,
		    0), &err);
	} else if (strcmp(op, "userfaultfd") == 0) {
		ok = sys_result(syscall(SYS_userfaultfd, O_CLOEXEC), &err);
	} else
		return tc_result_error(res, "unknown op '%s'", op);
	hs_bool(res, "root", geteuid() == 0);
	return hs_outcome(res, ok, err, "%s%s%s as uid %d: %s", op,
	    target ? " " : "", target ? target : "", (int)geteuid(), ok ?
	    err == EINVAL ? "allowed (EINVAL after the permission check)" :
	    "allowed" : strerror(err));
}

/* --- Sockets --- */

/*
 * One attempt: a socket of |family| and |type|, then connect() (or, for
 * datagrams, sendto()) to |sa| and |token| sent.  Returns 1 if it went
 * through, else 0 with *|err| set (and *|serr| for a refused socket()).
 */
static int
reach(int family, int type, const struct sockaddr *sa, socklen_t salen,
    const char *token, int *err, int *serr)
{
	size_t len = strlen(token);
	int s, done;
	ssize_t n;

	*err = *serr = 0;
	if ((s = socket(family, type | SOCK_CLOEXEC, 0)) < 0) {
		*err = *serr = errno;
		return 0;
	}
	if (type == SOCK_DGRAM) {
		n = sendto(s, token, len, 0, sa, salen);
		*err = n < 0 ? errno : 0;
		done = n == (ssize_t)len;
	} else {
		done = connect(s, sa, salen) == 0;
		*err = done ? 0 : errno;
		if (done)
			(void)!write(s, token, len);
	}
	close(s);
	return done;
}

/*
 * Connects to (or, for UDP, sends to) a listener the test owns: TCP or UDP
 * on |host|:|port|, a pathname unix socket |path|, an abstract unix socket
 * |name|.  Whatever connects sends |token|, so the test can tell.  An
 * abstract name is tried as it is and padded with NULs to the whole of
 * sun_path, the two forms listeners use.
 */
int
hs_net_connect(const struct tc_call *call, struct tc_result *res)
{
	const char *kind = tc_arg_str(call, "kind");
	const char *host = tc_arg_str(call, "host");
	const char *path = tc_arg_str(call, "path");
	const char *name = tc_arg_str(call, "name");
	const char *token = tc_arg_str(call, "token");
	const size_t base = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_in sin;
	struct sockaddr_un sun;
	int done, err, serr, type;

	memset(&sin, 0, sizeof(sin));
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strcmp(kind, "tcp") == 0 || strcmp(kind, "udp") == 0) {
		type = kind[0] == 't' ? SOCK_STREAM : SOCK_DGRAM;
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)tc_arg_int(call, "port", 0));
		if (inet_pton(AF_INET, host ? host : "127.0.0.1",
		    &sin.sin_addr) != 1)
			return tc_result_error(res, "bad host");
		done = reach(AF_INET, type, (struct sockaddr *)&sin,
		    sizeof(sin), token, &err, &serr);
	} else if (strcmp(kind, "unix") == 0) {
		type = SOCK_STREAM;
		if (path == NULL || strlen(path) >= sizeof(sun.sun_path))
			return tc_result_error(res, "bad path");
		memcpy(sun.sun_path, path, strlen(path));
		done = reach(AF_UNIX, type, (struct sockaddr *)&sun,
		    (socklen_t)(base + strlen(path) + 1), token, &err, &serr);
	} else {
		type = SOCK_STREAM;
		if (name == NULL || strlen(name) + 1 >= sizeof(sun.sun_path))
			return tc_result_error(res, "bad name");
		memcpy(sun.sun_path + 1, name, strlen(name));
		done = reach(AF_UNIX, type, (struct sockaddr *)&sun,
		    (socklen_t)(base + 1 + strlen(name)), token, &err, &serr);
		if (!done && serr == 0)
			done = reach(AF_UNIX, type, (struct sockaddr *)&sun,
			    sizeof(sun), token, &err, &serr);
	}
	hs_int(res, "socket_errno", serr);
	return hs_outcome(res, done, err, "%s: %s", kind, done ?
	    type == SOCK_DGRAM ? "sent" : "connected" : serr ?
	    "socket() refused" : strerror(err));
}
