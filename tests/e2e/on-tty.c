/*
 * on-tty.c: runs a command with its standard input on a new
 * pseudo-terminal, as when a person starts it by hand in a terminal, and
 * its standard output and error as on-tty's own; then ends that input as
 * Ctrl-D does, and exits with the command's status.  For the tests of what
 * a server says when started in a terminal.  Built with the tests, never
 * installed.
 *
 *	on-tty COMMAND [ARG...]
 *
 * The end of input is the terminal's VEOF character at the start of a
 * line, written before the command runs: the terminal keeps it until the
 * command reads, so what the command does first (say something on
 * standard error) and when it reads do not race with it.  Exits with the
 * command's status, 128 + N if signal N ended it, or 125 after saying why
 * it could not run it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define FAIL	125

static int
fail(const char *what)
{
	fprintf(stderr, "on-tty: %s: %s\n", what, strerror(errno));
	return FAIL;
}

int
main(int argc, char *argv[])
{
	struct termios t;
	char name[128];
	int master, slave, status;
	pid_t pid;
	char eof;

	if (argc < 2) {
		fprintf(stderr, "usage: on-tty COMMAND [ARG...]\n");
		return FAIL;
	}
	if ((master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return fail("posix_openpt");
	if (grantpt(master) != 0 || unlockpt(master) != 0 ||
	    ptsname_r(master, name, sizeof(name)) != 0)
		return fail("pseudo-terminal");
	if ((slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return fail(name);
	/* Line by line, as a shell leaves a terminal, without echo: nothing
	 * comes back on the master, which nobody reads. */
	if (tcgetattr(slave, &t) != 0)
		return fail("tcgetattr");
	t.c_lflag |= ICANON;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	if (tcsetattr(slave, TCSANOW, &t) != 0)
		return fail("tcsetattr");
	eof = (char)t.c_cc[VEOF];
	if (write(master, &eof, 1) != 1)
		return fail("write");
	if ((pid = fork()) < 0)
		return fail("fork");
	if (pid == 0) {
		/* The terminal becomes the command's controlling terminal,
		 * as in a login session. */
		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) != 0 ||
		    dup2(slave, STDIN_FILENO) < 0)
			_exit(fail("child"));
		execvp(argv[1], argv + 1);
		_exit(fail(argv[1]));
	}
	close(slave);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return fail("waitpid");
	close(master);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
