/*
 * tiocsti.c: tries to put characters into a terminal's input, for the
 * adversarial tests of toolcell-shell (tests/e2e/sdk/shell-attacks.test.mjs).
 * Built with the tests, never installed.
 *
 *	tiocsti [PATH...]
 *		On fds 0, 1 and 2, on /dev/tty and on each PATH (opened
 *		read-write, without becoming its controlling terminal):
 *		TIOCSTI with one character, and TIOCLINUX asking to paste the
 *		console's selection, each as is and again with the high 32
 *		bits of the request set (which the kernel ignores and a
 *		filter comparing 64 bits would miss).  One line per attempt,
 *
 *			TARGET REQUEST ERRNO HIGH_ERRNO
 *
 *		(0: it worked; "open ERRNO" for a target that would not
 *		open), then "pushed N", the attempts that worked.  Exits 0.
 *
 *	tiocsti --ctty COMMAND [ARG...]
 *		Runs COMMAND in a session of its own whose controlling
 *		terminal is a new pseudo-terminal, whose name it says first
 *		on stderr ("tiocsti: terminal /dev/pts/N"), its fds 0-2 left
 *		as they are (so a server keeps its pipes), and passes SIGTERM,
 *		SIGINT and SIGHUP on to it.  What anyone pushes into that
 *		terminal's input comes back on its master (the terminal
 *		echoes): when COMMAND has ended, if any came, says "tiocsti:
 *		the terminal received N bytes" on stderr.  Exits with
 *		COMMAND's status (128 + N for signal N).
 *
 *	tiocsti --self
 *		Pushes a character into its own controlling terminal, and
 *		says "pushed N" as above: a control, run under --ctty, that
 *		shows the detection works.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define HIGH	0xffffffff00000000UL
#define FAIL	125

/* TIOCLINUX subcode 3, TIOCL_PASTESEL: paste the selection into the
 * console's input. */
#define PASTESEL 3

static volatile sig_atomic_t child_pid;

static int
err_of(long rc)
{
	return rc == 0 ? 0 : errno;
}

/* Tries both requests on |fd|; returns how many worked. */
static int
attempt(const char *name, int fd)
{
	static const struct {
		const char	*name;
		unsigned long	 req;
		char		 arg;
	} reqs[] = {
		{ "TIOCSTI", TIOCSTI, '#' },
		{ "TIOCLINUX", TIOCLINUX, PASTESEL },
	};
	size_t i;
	int e, h, n = 0;
	char c;

	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		c = reqs[i].arg;
		e = err_of(syscall(SYS_ioctl, fd, reqs[i].req, &c));
		c = reqs[i].arg;
		h = err_of(syscall(SYS_ioctl, fd, HIGH | reqs[i].req, &c));
		printf("%s %s %d %d\n", name, reqs[i].name, e, h);
		n += (e == 0) + (h == 0);
	}
	return n;
}

static int
try_path(const char *path)
{
	int fd, n;

	if ((fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		printf("%s open %d\n", path, errno);
		return 0;
	}
	n = attempt(path, fd);
	close(fd);
	return n;
}

static int
inject(int argc, char *argv[])
{
	int i, n = 0;

	n += attempt("fd0", 0);
	n += attempt("fd1", 1);
	n += attempt("fd2", 2);
	n += try_path("/dev/tty");
	for (i = 1; i < argc; i++)
		n += try_path(argv[i]);
	printf("pushed %d\n", n);
	return fflush(stdout) == 0 ? 0 : FAIL;
}

static int
self(void)
{
	int fd, e;
	char c = '#';

	if ((fd = open("/dev/tty", O_RDWR | O_CLOEXEC)) < 0) {
		printf("/dev/tty open %d\npushed 0\n", errno);
		return 0;
	}
	e = err_of(ioctl(fd, TIOCSTI, &c));
	printf("/dev/tty TIOCSTI %d\npushed %d\n", e, e == 0);
	return 0;
}

static void
pass_on(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int
fail(const char *what)
{
	fprintf(stderr, "tiocsti: %s: %s\n", what, strerror(errno));
	return FAIL;
}

static int
ctty(char *argv[])
{
	struct sigaction sa;
	struct pollfd p;
	char name[128], buf[512];
	long got = 0;
	ssize_t r;
	int master, slave, status, done = 0;
	pid_t pid;

	if ((master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return fail("posix_openpt");
	if (grantpt(master) != 0 || unlockpt(master) != 0 ||
	    ptsname_r(master, name, sizeof(name)) != 0)
		return fail("pseudo-terminal");
	fprintf(stderr, "tiocsti: terminal %s\n", name);
	fflush(stderr);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pass_on;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGTERM, &sa, NULL) != 0 ||
	    sigaction(SIGINT, &sa, NULL) != 0 ||
	    sigaction(SIGHUP, &sa, NULL) != 0)
		return fail("sigaction");
	if ((pid = fork()) < 0)
		return fail("fork");
	if (pid == 0) {
		if (setsid() < 0)
			_exit(fail("setsid"));
		/* Opened without O_NOCTTY by a session leader with no
		 * terminal: it becomes the controlling terminal. */
		if ((slave = open(name, O_RDWR | O_CLOEXEC)) < 0)
			_exit(fail(name));
		execvp(argv[0], argv);
		_exit(fail(argv[0]));
	}
	child_pid = pid;
	p.fd = master;
	p.events = POLLIN;
	/* Reads what the terminal echoes until the command has ended. */
	while (!done) {
		if (poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
			if ((r = read(master, buf, sizeof(buf))) > 0)
				got += r;
		}
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			done = 1;
		else if (r < 0 && errno != EINTR)
			return fail("waitpid");
	}
	while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN) &&
	    (r = read(master, buf, sizeof(buf))) > 0)
		got += r;
	if (got > 0)
		fprintf(stderr, "tiocsti: the terminal received %ld bytes\n",
		    got);
	close(master);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int
main(int argc, char *argv[])
{
	if (argc >= 2 && strcmp(argv[1], "--ctty") == 0) {
		if (argc < 3) {
			fprintf(stderr, "usage: tiocsti --ctty COMMAND "
			    "[ARG...]\n");
			return FAIL;
		}
		return ctty(argv + 2);
	}
	if (argc == 2 && strcmp(argv[1], "--self") == 0)
		return self();
	return inject(argc, argv);
}
