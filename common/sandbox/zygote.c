/*
 * zygote.c: a profile's zygote, the confined process its ready children
 * are forked from (profile.h: zygote).
 *
 * A child confined from the start pays, for each call, every step of
 * confine.c (the filter loaded and compiled by the kernel, the ruleset
 * enforced, capabilities and limits set) and its profile's ahead work (a
 * database opened and its schema read), and the page faults of all of it
 * in a fresh copy of the spawner.  A zygote takes those steps once: it is
 * confined for the profile as any child is, with a filter that allows in
 * addition only what forking a child takes (clone() with CLONE_PARENT
 * alone, the child's pipes received over its socket) and what the child
 * then does to itself; it runs the ahead work; then it forks a child for
 * each request of the spawner's.  Such a child:
 *
 *  - is a new process, the server's child (CLONE_PARENT), serving one call
 *    and exiting, as every call child does;
 *  - holds a copy of the zygote's memory, which has seen no call: the
 *    zygote never reads one;
 *  - makes itself a session of its own, arms its parent-death signal (the
 *    server), enforces a Landlock domain of its own inside the zygote's
 *    (signals and abstract sockets then reach none of its siblings, with
 *    Landlock ABI 6), and loads the filter of tc_seccomp_build_fork(),
 *    which refuses what the zygote's filter added, so that the two allow
 *    exactly what the profile's own filter allows;
 *  - does all that before it reads its call.
 *
 * The zygote runs nothing a call gives it: its socket carries a byte and
 * two fds from the spawner, and its answer is a pid.  It dies with the
 * server (its parent-death signal) and at the end of its socket (the
 * spawner's end), and the server reaps it (spawn.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/policy.h"
#include "sandbox/sandbox-int.h"


/*
 * Forks the server's child: clone() with CLONE_PARENT and no other flag,
 * which is all the zygote's filter lets through.  Its exit signal is the
 * zygote's own (SIGCHLD).  Returns what fork() would.
 */
static pid_t
fork_child(void)
{
#if TC_CLONE_FLAGS_ARG == 1
	return (pid_t)syscall(SYS_clone, 0UL, (unsigned long)CLONE_PARENT,
	    NULL, NULL, 0UL);
#else
	return (pid_t)syscall(SYS_clone, (unsigned long)CLONE_PARENT, 0UL,
	    NULL, NULL, 0UL);
#endif
}

/*
 * The child, just forked: a call child of its own before it reads its
 * call on |rfd|.  |scope| is the Landlock ruleset of tc_landlock_scope(),
 * or -1 below ABI 6.
 */
static void __attribute__((__noreturn__))
child_main(const struct tc_sandbox *sb, const struct tc_sandbox_profile *sp,
    int scope, int rfd, int wfd)
{
	/* Its own session and process group, as a child confined from
	 * the start has (confine.c: new_session()); the parent-death
	 * signal, which a fork clears, armed for its parent, the
	 * server. */
	if (setsid() < 0 || tc_arm_pdeathsig(sb->server_pid) != 0)
		_exit(TC_CHILD_EXIT_SESSION);
	if (scope >= 0 && tc_landlock_apply(scope) != 0)
		_exit(TC_CHILD_EXIT_LANDLOCK);
	/* The limits a child confined from the start has, its CPU time
	 * among them, which its zygote has none of. */
	if (TC_LAYER_ON(TC_LAYER_RLIMITS) && tc_set_rlimits(sb->tool_rlimits ?
	    &sb->rlim : &sb->policy->limits, 0) != 0)
		_exit(TC_CHILD_EXIT_RLIMIT);
	/* Last: it takes back setsid(), prctl()'s two, landlock's and
	 * clone(). */
	if (tc_seccomp_apply(&sp->fork_filter) != 0)
		_exit(TC_CHILD_EXIT_SECCOMP);
	tc_child_prefault();
	if (sp->profile->ahead_child != NULL)
		sp->profile->ahead_child(sb->policy);
	tc_child_serve(sb, sp->profile, rfd, wfd);
}

void
tc_zygote_main(const struct tc_sandbox *sb,
    const struct tc_sandbox_profile *sp, int sock)
{
	const struct tc_profile *profile = sp->profile;
	int keep[2], fds[2], scope = -1, rc;
	size_t nkeep = 0;
	int32_t answer;
	char byte;
	pid_t pid;

	keep[nkeep++] = sock;
	/* Made here, enforced by each child: the zygote's filter has no
	 * landlock_create_ruleset(). */
	if (sb->landlock_abi >= 6) {
		if ((scope = tc_landlock_scope()) < 0)
			_exit(TC_CHILD_EXIT_LANDLOCK);
		keep[nkeep++] = scope;
	}
	if ((rc = tc_sandbox_confine_zygote(sb, sp, keep, nkeep)) != 0)
		_exit(rc);
	tc_child_ready(sb, profile);
	for (;;) {
		if ((rc = tc_fds_recv(sock, &byte, 1, fds)) <= 0)
			_exit(rc == 0 ? 0 : TC_CHILD_EXIT_FDS);
		if (profile->stale != NULL && profile->ahead != NULL &&
		    profile->stale(sb->policy))
			profile->ahead(sb->policy);
		if ((pid = fork_child()) == 0) {
			close(sock);
			child_main(sb, sp, scope, fds[0], fds[1]);
		}
		answer = pid > 0 ? (int32_t)pid : -(int32_t)errno;
		close(fds[0]);
		close(fds[1]);
		if (write(sock, &answer, sizeof(answer)) != sizeof(answer))
			_exit(0);
	}
}
