/*
 * test-ns.c: when a root server's children share one empty network
 * namespace (ns.c: tc_netns_share()), and when each has its own.
 *
 * Sharing one is safe only while no child in it can give a socket a name
 * or reach one by name: seccomp refuses socket(), bind() and connect() to
 * every profile that has a network namespace.  Where the filter is not in
 * force (a kernel without seccomp filters, run with --allow-degraded
 * seccomp), or a profile's own tables allow one of those calls (or
 * io_uring, which makes and connects sockets without them), an
 * abstract Unix socket bound by one call could be reached by the next:
 * there each child has a namespace of its own, as before the sharing.
 * Each case runs two calls in ready children and compares the inodes of
 * their network namespaces.  Root shares one with every child; another
 * user, whose shared namespace is owned by a user namespace of its own,
 * with those a process that may enter that user namespace for good
 * clones: a keeper (a process of one call), or the spawner where every
 * profile of the server has a network namespace and no keeper (as
 * toolcell-shell's, whose children are pid 1 of PID namespaces of their
 * own), and nothing else it clones
 * would be made inside it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "sandbox/sandbox.h"
#include "sandbox/profile.h"
#include "runcall.h"
#include "tap.h"

static const struct tc_arg no_args[] = { { NULL } };

/* The calls that name a socket or reach one by its name. */
static const struct tc_syscall socket_calls[] = {
	TC_SYS(socket), TC_SYS(bind), TC_SYS(connect),
};

/* io_uring makes and connects sockets without the system calls
 * (IORING_OP_SOCKET, IORING_OP_CONNECT), where no filter sees them. */
static const struct tc_syscall uring_calls[] = {
	TC_SYS(io_uring_setup), TC_SYS(io_uring_enter),
};

/* A profile in namespaces of its own, network included, reading /proc
 * (a root of the test's policy): nothing else. */
static const struct tc_profile plain = {
	.name = "ns-plain",
	.root_access = TC_LL_READ,
	.ns = TC_NS_ALL,
	.roots = TC_KEEP_ROOTS_NONE,
};

/* A profile that may fork, in namespaces of its own but no PID
 * namespace: only a keeper holds its tree, so it has one, root or not,
 * and the keeper enters the shared network namespace for good (a server
 * that is not root) before it clones the child. */
static const struct tc_profile kept = {
	.name = "ns-kept",
	.may = TC_MAY_FORK,
	.root_access = TC_LL_READ,
	.ns = TC_NS_ALL & ~(unsigned long)CLONE_NEWPID,
	.roots = TC_KEEP_ROOTS_NONE,
};

/* A profile without namespaces, reading /proc. */
static const struct tc_profile bare = {
	.name = "ns-bare",
	.root_access = TC_LL_READ,
	.roots = TC_KEEP_ROOTS_NONE,
};

/* The same as plain, but a profile that may fork: in a PID namespace of
 * its own it has no keeper, a pids cgroup or not, and is cloned by the
 * spawner as plain is (placed in its call's cgroup where one is in
 * force). */
static const struct tc_profile forks = {
	.name = "ns-forks",
	.may = TC_MAY_FORK,
	.root_access = TC_LL_READ,
	.ns = TC_NS_ALL,
	.roots = TC_KEEP_ROOTS_NONE,
};

/* The same, whose own tables allow sockets (without the network a
 * policy grants, TC_MAY_NETWORK, which would drop the namespace). */
static const struct tc_profile sockets = {
	.name = "ns-sockets",
	.syscalls = { TC_SYSCALLS(socket_calls) },
	.root_access = TC_LL_READ,
	.ns = TC_NS_ALL,
	.roots = TC_KEEP_ROOTS_NONE,
};

/* The same, whose own tables allow io_uring. */
static const struct tc_profile uring = {
	.name = "ns-uring",
	.syscalls = { TC_SYSCALLS(uring_calls) },
	.root_access = TC_LL_READ,
	.ns = TC_NS_ALL,
	.roots = TC_KEEP_ROOTS_NONE,
};

/* socketpair() of Unix stream sockets only, as toolcell-shell allows
 * it, and of any type: a datagram socket is given an abstract name
 * without bind() (autobind, as it sends with SO_PASSCRED) and sends to
 * a name, another call's. */
static const struct tc_syscall stream_pair_calls[] = {
	TC_SYS_ARGS2(socketpair, 0, 0xffffffffULL, AF_UNIX, 1,
	    TC_SYS_SOCK_TYPE, SOCK_STREAM),
};
static const struct tc_syscall any_pair_calls[] = {
	TC_SYS_IS(socketpair, 0, AF_UNIX),
};
static const struct tc_profile stream_pairs = {
	.name = "ns-stream-pairs",
	.syscalls = { TC_SYSCALLS(stream_pair_calls) },
	.root_access = TC_LL_READ,
	.ns = TC_NS_ALL,
	.roots = TC_KEEP_ROOTS_NONE,
};
static const struct tc_profile dgram_pairs = {
	.name = "ns-dgram-pairs",
	.syscalls = { TC_SYSCALLS(any_pair_calls) },
	.root_access = TC_LL_READ,
	.ns = TC_NS_ALL,
	.roots = TC_KEEP_ROOTS_NONE,
};

/* The inode of the network namespace the call's child is in. */
static int
h_net(const struct tc_call *call, struct tc_result *res)
{
	struct stat st;

	(void)call;
	if (stat("/proc/self/ns/net", &st) != 0)
		return tc_result_error(res, "stat: %s", strerror(errno));
	tc_result_printf(res, "%llu", (unsigned long long)st.st_ino);
	return 0;
}

#define TOOL(n, p)	{ .name = (n), .description = (n), .args = no_args, \
			  .output_schema = "{\"type\":\"object\"}",	\
			  .fn = h_net, .profile = (p) }

/* Runs |t| in a ready child of |sb|; its namespace's inode in *|net|.
 * Returns 1 if it ran. */
static int
run_net(struct tc_sandbox *sb, const struct tc_tool *t,
    unsigned long long *net)
{
	char text[64];

	pool_wait(sb, t->profile, 1);
	return call_text(sb, t, NULL, text, sizeof(text)) &&
	    sscanf(text, "%llu", net) == 1;
}

/*
 * Two calls of |profile| in ready children of a sandbox whose degraded
 * layers are |degrade| on top of what the kernel lacks: 1 if they share a
 * network namespace, 0 if each has its own, -1 if that could not be
 * learnt (|what| says where).
 */
static int
shared_with(struct tc_policy *pol, const struct tc_profile *profile,
    const struct tc_profile *beside, unsigned degrade, const char *what)
{
	const struct tc_tool tool = TOOL("net", profile);
	struct tc_diag d = { "", 0 };
	struct tc_profiles set = { .n = 0 };
	unsigned long long net[2];
	struct tc_sandbox sb;
	struct stat own;
	int rc = -1;

	tc_profiles_add(&set, profile);
	if (beside != NULL)
		tc_profiles_add(&set, beside);
	if (!is_int(tc_sandbox_init(&sb, pol, &set, &d), 0,
	    "%s: tc_sandbox_init", what)) {
		printf("#   %s\n", d.msg);
		return -1;
	}
	if (!(sb.ns_flags & CLONE_NEWNET) ||
	    stat("/proc/self/ns/net", &own) != 0) {
		printf("#   %s\n", what);
		skip("this kernel denies new network namespaces");
		tc_sandbox_release(&sb);
		return -1;
	}
	/* As a kernel without that layer would leave it, before the
	 * spawner starts. */
	sb.degraded |= degrade;
	tc_sandbox_prefork(&sb, 2);
	if (ok(run_net(&sb, &tool, &net[0]) && run_net(&sb, &tool, &net[1]),
	    "%s: two calls ran", what)) {
		ok(net[0] != own.st_ino && net[1] != own.st_ino,
		    "%s: neither call is in the server's network namespace",
		    what);
		rc = net[0] == net[1];
	}
	tc_sandbox_release(&sb);
	return rc;
}

/* The same, for a sandbox of |profile| alone. */
static int
shared(struct tc_policy *pol, const struct tc_profile *profile,
    unsigned degrade, const char *what)
{
	return shared_with(pol, profile, NULL, degrade, what);
}

int
main(void)
{
	struct tc_diag d = { "", 0 };
	struct tc_policy pol;
	int rc;

	signal(SIGPIPE, SIG_IGN);	/* as the servers do */
	tc_policy_init(&pol);
	pol.limits.deadline_ms = 5000;
	/* The handler reads /proc/self/ns/net, which Landlock hides unless
	 * /proc is an allowed root. */
	if (!is_int(tc_policy_add_root(&pol, "/proc", 0, &d), 0,
	    "/proc as a root"))
		printf("#   %s\n", d.msg);

	/* The control: sharing happens here at all. */
	rc = shared(&pol, &plain, 0, "seccomp in force");
	if (rc >= 0 && geteuid() == 0)
		is_int(rc, 1, "root, seccomp in force, no socket calls: the "
		    "children share one network namespace");
	else if (rc >= 0)
		is_int(rc, 1, "not root, no keeper, every profile in a network "
		    "namespace: the spawner enters the shared one for good, "
		    "and its children share it");

	/* Beside a profile without namespaces, which a spawner in the
	 * shared user namespace would clone there too. */
	rc = shared_with(&pol, &plain, &bare, 0, "beside a profile without "
	    "namespaces");
	if (rc >= 0)
		is_int(rc, geteuid() == 0, "%s", geteuid() == 0 ? "root, beside "
		    "a profile without namespaces: the children share one "
		    "network namespace" : "not root, no keeper, beside a "
		    "profile without namespaces: the spawner stays, each child "
		    "has a network namespace of its own");

	rc = shared(&pol, &forks, 0, "a profile that may fork");
	if (rc >= 0)
		is_int(rc, 1, "%s, a profile that may fork: the children "
		    "share one network namespace", geteuid() == 0 ? "root" :
		    "not root");

	rc = shared(&pol, &kept, 0, "a profile with a keeper");
	if (rc >= 0)
		is_int(rc, 1, "%s, a profile with a keeper (no PID namespace): "
		    "each keeper enters the shared network namespace, and the "
		    "children share it", geteuid() == 0 ? "root" : "not root");

	/* Beside it, one without a keeper: the spawner stays, so that
	 * one's children each get their own where the server is not
	 * root, and the keepers' share as before. */
	rc = shared_with(&pol, &plain, &kept, 0, "no keeper, beside a "
	    "profile with one");
	if (rc >= 0)
		is_int(rc, geteuid() == 0, "%s", geteuid() == 0 ? "root, no "
		    "keeper beside a profile with one: the children share one "
		    "network namespace" : "not root, no keeper beside a "
		    "profile with one: each child has a network namespace of "
		    "its own");

	rc = shared(&pol, &forks, TC_DEGRADE_SECCOMP,
	    "a profile that may fork, without seccomp");
	if (rc >= 0)
		is_int(rc, 0, "a profile that may fork, without seccomp: each "
		    "child has a network namespace of its own");

	rc = shared(&pol, &plain, TC_DEGRADE_SECCOMP, "without seccomp");
	if (rc >= 0)
		is_int(rc, 0, "without seccomp (which would refuse socket() "
		    "and bind()): each child has a network namespace of its "
		    "own");

	rc = shared(&pol, &sockets, 0, "a profile that allows sockets");
	if (rc >= 0)
		is_int(rc, 0, "a profile whose tables allow socket(), bind() "
		    "or connect(): each child has a network namespace of its "
		    "own");

	rc = shared(&pol, &uring, 0, "a profile that allows io_uring");
	if (rc >= 0)
		is_int(rc, 0, "a profile whose tables allow io_uring, which "
		    "makes and connects sockets where no filter looks: each "
		    "child has a network namespace of its own");

	rc = shared(&pol, &stream_pairs, 0, "a profile that allows stream "
	    "socketpairs");
	if (rc >= 0)
		is_int(rc, 1, "a profile whose tables allow socketpair() of "
		    "Unix stream sockets only: the children share one network "
		    "namespace");

	rc = shared(&pol, &dgram_pairs, 0, "a profile that allows datagram "
	    "socketpairs");
	if (rc >= 0)
		is_int(rc, 0, "a profile whose tables allow socketpair() of "
		    "Unix datagram sockets, which autobind to an abstract "
		    "name: each child has a network namespace of its own");

	tc_policy_release(&pol);
	return done_testing();
}
