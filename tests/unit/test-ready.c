/*
 * test-ready.c: how a server exits when its ready hook refuses
 * (serve/server.h, tc_server.ready): TC_EINVAL (nothing to serve) exits 2,
 * as a usage error; any other code (something it could not make) exits
 * 1, as a start refused; either says why on stderr and writes nothing on
 * stdout.  The same for a start, for --check, and for --print-config of a
 * server whose entry names only its policy (tc_server.served), which
 * runs the hook before it prints an entry.
 *
 * Each case runs tc_server_main() in a child of its own, its stdout and
 * stderr read back: the hook refuses before the sandbox or the serving
 * loop is set up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "serve/server.h"
#include "serve/usage.h"

#include "tap.h"

static int	ready_rc;	/* what the hook returns */
static int	ready_runs;	/* in the child: how often it ran */

static int
test_ready(const struct tc_server *srv, const struct tc_policy *pol,
    struct tc_diag *d)
{
	(void)srv;
	(void)pol;
	ready_runs++;
	if (ready_rc == 0)
		return 0;
	return tc_diag(d, ready_rc, "the ready hook refused with %s",
	    tc_errname(ready_rc));
}

static void
test_served(const struct tc_policy *pol, FILE *f)
{
	(void)pol;
	fprintf(f, "nothing at all\n");
}

static const struct tc_server test_server = {
	.name = "toolcell-test",
	.title = "toolcell test",
	.version = TC_VERSION,
	.summary = "test the ready hook's exits",
	.no_operands = "nothing",
	.ready = test_ready,
	.served = test_served,
};

/* Reads all of |fd| into |buf| (|len| bytes, NUL-terminated), and closes
 * it. */
static void
slurp(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(fd);
}

/*
 * Runs tc_server_main() with the arguments |args| (NULL-terminated,
 * after the name), the hook returning |rc|, in a child of its own.
 * Returns its exit status (what tc_server_main() returned, or tc_fatal's
 * 1), or -1; its stdout and stderr in |out| and |err|.
 */
static int
run_main(int rc, const char *const *args, char *out, size_t outlen,
    char *err, size_t errlen)
{
	char *argv[16];
	int o[2], e[2], status, n = 0;
	pid_t pid;

	if (pipe(o) != 0 || pipe(e) != 0)
		return -1;
	fflush(stdout);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		/* The child's own copies: tc_server_main() may permute
		 * them, as getopt does. */
		if ((argv[n++] = strdup("toolcell-test")) == NULL)
			_exit(99);
		while (*args != NULL && n < 15)
			if ((argv[n++] = strdup(*args++)) == NULL)
				_exit(99);
		argv[n] = NULL;
		if (dup2(o[1], STDOUT_FILENO) < 0 ||
		    dup2(e[1], STDERR_FILENO) < 0)
			_exit(99);
		close(o[0]);
		close(e[0]);
		close(o[1]);
		close(e[1]);
		ready_rc = rc;
		n = tc_server_main(&test_server, n, argv);
		fflush(stdout);
		/* The hook ran once, or the status says it did not. */
		_exit(ready_runs == 1 ? n : 98);
	}
	close(o[1]);
	close(e[1]);
	slurp(o[0], out, outlen);
	slurp(e[0], err, errlen);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
main(void)
{
	static const struct {
		const char	*what;
		const char	*args[4];
	} ways[] = {
		{ "a start", { NULL } },
		{ "--check", { "--check", NULL } },
		{ "--print-config", { "--print-config", "cursor", NULL } },
	};
	char out[8192], err[8192];
	size_t i;
	int st;

	for (i = 0; i < TC_NITEMS(ways); i++) {
		st = run_main(TC_ESYS, ways[i].args, out, sizeof(out), err,
		    sizeof(err));
		is_int(st, 1, "%s: a ready hook that could not make what it "
		    "serves with (TC_ESYS): exit 1", ways[i].what);
		ok(strstr(err, "the ready hook refused with TC_ESYS") != NULL,
		    "%s: and says why on stderr", ways[i].what);
		is_str(out, "", "%s: and writes nothing on stdout",
		    ways[i].what);

		st = run_main(TC_EINVAL, ways[i].args, out, sizeof(out), err,
		    sizeof(err));
		is_int(st, TC_EXIT_USAGE, "%s: nothing to serve (TC_EINVAL): "
		    "exit %d, as a usage error", ways[i].what, TC_EXIT_USAGE);
		ok(strstr(err, "the ready hook refused with TC_EINVAL") != NULL,
		    "%s: and says why on stderr", ways[i].what);
		is_str(out, "", "%s: and writes nothing on stdout",
		    ways[i].what);
	}

	/* Ready: --print-config prints its entry, and exits 0. */
	st = run_main(0, ways[2].args, out, sizeof(out), err, sizeof(err));
	is_int(st, 0, "--print-config: a ready hook that says yes: exit 0");
	ok(strstr(out, "toolcell-test") != NULL, "--print-config: and the "
	    "entry is printed");
	return done_testing();
}
