/*
 * no-landlock.c: runs a command on which the kernel answers Landlock's
 * system calls with ENOSYS, as a kernel built without Landlock does, for
 * the tests of --allow-degraded landlock.  Built with the tests, never
 * installed.
 *
 *	no-landlock COMMAND [ARG...]
 *
 * A seccomp filter, inherited across execve() and by every child, does
 * it; no_new_privs is set first, as a filter needs without privilege.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	static const char *const calls[] = {
		"landlock_create_ruleset", "landlock_add_rule",
		"landlock_restrict_self",
	};
	scmp_filter_ctx ctx;
	size_t i;
	int nr;

	if (argc < 2) {
		fprintf(stderr, "usage: no-landlock COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    (ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		perror("no-landlock");
		return 1;
	}
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if ((nr = seccomp_syscall_resolve_name(calls[i])) ==
		    __NR_SCMP_ERROR ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0) {
			fprintf(stderr, "no-landlock: cannot filter %s\n",
			    calls[i]);
			return 1;
		}
	}
	if (seccomp_load(ctx) != 0) {
		fprintf(stderr, "no-landlock: cannot load the filter\n");
		return 1;
	}
	seccomp_release(ctx);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "no-landlock: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
