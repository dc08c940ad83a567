/*
 * ns.c: namespaces, and the cloning of a child into them: which of the
 * namespaces a profile wants the kernel allows (tc_ns_probe(), once at
 * start), and a child cloned in them with its user namespace's id maps
 * written and, without a keeper, placed in its call's pids cgroup
 * (tc_clone_child()), for the spawner, a server without one, and a
 * keeper; and the one empty network namespace the children may share
 * (tc_netns_share(), tc_netns_join()).  It calls nothing of the sandbox
 * but fd.c's passing of fds and pids.c's placing of a child.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/fd.h"
#include "sandbox/sandbox-int.h"

/* tc_netns_share(): the shared empty network namespace; as root, the one
 * to come back to after a clone in it; as anyone else, the user namespace
 * that owns the shared one, which a keeper joins for good
 * (tc_netns_join()).  -1 when there is none. */
static int	netns_shared = -1;
static int	netns_home = -1;
static int	netns_user = -1;
/* 1 in a keeper that has joined them: its clones are born in the shared
 * network namespace. */
static int	netns_joined;

/*
 * Returns 1 if |sb|'s children may share one network namespace: some
 * profile wants one, and in each that does, seccomp refuses the calls
 * that give a socket a name or reach one by its name, so that nothing
 * one call does there can be found by another.  Not without the filter
 * (a kernel without seccomp filters, or the bench runner's switch), nor
 * where a profile's own tables allow one of those calls, or io_uring,
 * or datagram socketpairs (dgram_pairs()): there an abstract Unix socket
 * bound by one call would be reached by the next (Landlock's scope, ABI
 * 6, holds it only on newer kernels).
 */
/*
 * 1 if a rule of |p|'s own tables allows socketpair() of Unix datagram
 * sockets (of any flags): such a socket is given an abstract name without
 * bind() (autobind, as it sends with SO_PASSCRED) and sends to a name
 * without connect(), so that two calls in one network namespace could
 * reach each other.  Stream and seqpacket pairs are connected to each
 * other alone.
 */
static int
dgram_pairs(const struct tc_profile *p)
{
	static const uint64_t types[] = {
		SOCK_DGRAM, SOCK_DGRAM | SOCK_CLOEXEC,
		SOCK_DGRAM | SOCK_NONBLOCK,
		SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	};
	const struct tc_syscall *r;
	uint64_t a[6] = { AF_UNIX, 0, 0, 0, 0, 0 };
	size_t i, k, t;

	for (i = 0; i < TC_SYSCALL_TABLES; i++)
		for (k = 0; k < p->syscalls[i].n; k++) {
			r = &p->syscalls[i].v[k];
			if (r->nr != SCMP_SYS(socketpair))
				continue;
			/* Any argument: allowed; one not understood: taken
			 * as allowed. */
			if (r->kind == TC_SYS_ALLOW || r->arg > 5 ||
			    (r->mask2 != 0 && r->arg2 > 5))
				return 1;
			for (t = 0; t < TC_NITEMS(types); t++) {
				a[1] = types[t];
				if (r->kind == TC_SYS_EQ &&
				    a[r->arg] == r->value)
					return 1;
				if (r->kind == TC_SYS_MASKED &&
				    (a[r->arg] & r->mask) == r->value &&
				    (r->mask2 == 0 ||
				    (a[r->arg2] & r->mask2) == r->value2))
					return 1;
			}
		}
	return 0;
}

static int
netns_shareable(const struct tc_sandbox *sb)
{
	/* And io_uring, which does what they do where no filter looks
	 * (IORING_OP_SOCKET, IORING_OP_CONNECT). */
	static const int named[] = {
		SCMP_SYS(socket), SCMP_SYS(bind), SCMP_SYS(connect),
		SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter),
	};
	size_t i, k;
	int want = 0;

	if ((sb->degraded & TC_DEGRADE_SECCOMP) ||
	    !TC_LAYER_ON(TC_LAYER_SECCOMP))
		return 0;
	for (i = 0; i < sb->nprof; i++) {
		if (!(sb->prof[i].ns & CLONE_NEWNET))
			continue;
		want = 1;
		for (k = 0; k < TC_NITEMS(named); k++)
			if (tc_profile_rules(sb->prof[i].profile, named[k]) &
			    ~TC_RULE(TC_SYS_ERRNO))
				return 0;
		if (dgram_pairs(sb->prof[i].profile))
			return 0;
	}
	return want;
}

/* 1 if every profile of |sb| wants a network namespace and has no
 * keeper: the spawner clones every child of |sb| in it. */
static int
spawner_clones_all(const struct tc_sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->nprof; i++)
		if (!(sb->prof[i].ns & CLONE_NEWNET) ||
		    tc_sandbox_keeper(sb, &sb->prof[i]))
			return 0;
	return sb->nprof > 0;
}

/* 1 if |fd| is a namespace of type |type| (CLONE_NEWUSER, CLONE_NEWNET). */
static int
ns_is(int fd, int type)
{
	return ioctl(fd, NS_GET_NSTYPE) == type;
}

/*
 * Not root: a user namespace of our own (our uid and gid mapped to
 * themselves, as a call's) that owns a new, empty network namespace,
 * made by a child that hands both to us and exits.  Whoever clones the
 * calls' children enters them for good (tc_netns_join()), since a
 * process cannot come back from a user namespace it entered: a keeper,
 * or, where no child has one, the spawner, below.
 */
static void
share_unprivileged(const struct tc_sandbox *sb)
{
	struct clone_args ca;
	int sv[2], fds[2], st = -1, rc;
	char one = 1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWUSER | CLONE_NEWNET;
	ca.exit_signal = SIGCHLD;
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0) {
		close(sv[0]);
		if (tc_child_maps(sb->uid, sb->gid) != 0 ||
		    (fds[0] = open("/proc/self/ns/user", O_RDONLY |
		    O_CLOEXEC)) < 0 ||
		    (fds[1] = open("/proc/self/ns/net", O_RDONLY |
		    O_CLOEXEC)) < 0 ||
		    tc_fds_send(sv[1], &one, 1, fds) != 0)
			_exit(1);
		_exit(0);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return;
	}
	rc = tc_fds_recv(sv[0], &one, 1, fds);
	close(sv[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (rc != 1)
		return;
	/* Ours, or nothing is shared. */
	if (st != 0 || !ns_is(fds[0], CLONE_NEWUSER) ||
	    !ns_is(fds[1], CLONE_NEWNET)) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	netns_user = fds[0];
	netns_shared = fds[1];
	/* Where every child is cloned by the spawner itself in a network
	 * namespace (no keeper), the spawner enters them for good: the
	 * children it clones are then made there, and nothing else it
	 * clones sees the server's files through a user namespace that
	 * maps only the server's ids. */
	if (spawner_clones_all(sb))
		tc_netns_join();
}

void
tc_netns_share(const struct tc_sandbox *sb)
{
	int home, shared;

	if (netns_shared >= 0 || !netns_shareable(sb))
		return;
	if (geteuid() != 0) {
		share_unprivileged(sb);
		return;
	}
	if ((home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (unshare(CLONE_NEWNET) != 0) {
		close(home);
		return;
	}
	shared = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (setns(home, CLONE_NEWNET) != 0) {
		/* Stuck in the empty one: the spawner needs no network. */
		if (shared >= 0)
			close(shared);
		close(home);
		return;
	}
	if (shared < 0) {
		close(home);
		return;
	}
	netns_home = home;
	netns_shared = shared;
}

void
tc_netns_join(void)
{
	if (netns_user < 0)
		return;
	/* Having entered the user namespace, a failure leaves the network
	 * namespace ours: the clone then makes the child one of its own. */
	if (setns(netns_user, CLONE_NEWUSER) == 0 &&
	    setns(netns_shared, CLONE_NEWNET) == 0)
		netns_joined = 1;
	close(netns_user);
	close(netns_shared);
	netns_user = netns_shared = -1;
}

unsigned long
tc_ns_probe(unsigned long want)
{
	/* Without a user namespace, only root may have the others; a
	 * mount namespace may be what is denied (it is asked for alone
	 * where a profile keeps places read-only: prepare.c refuses to go
	 * on without it). */
	const unsigned long tries[] = {
		want, want & ~(unsigned long)CLONE_NEWUSER,
		want & ~(unsigned long)CLONE_NEWNS,
		want & ~(unsigned long)(CLONE_NEWUSER | CLONE_NEWNS),
	};
	size_t i, k;
	pid_t pid;
	int st, err;

	/* A child made as call children are, maps and all, that exits at
	 * once: what works for it works for them. */
	for (i = 0; i < TC_NITEMS(tries); i++) {
		for (k = 0; k < i && tries[k] != tries[i]; k++)
			;
		if (tries[i] == 0 || k < i)
			continue;
		pid = tc_clone_child(tries[i], 0, geteuid(), getegid(), NULL,
		    &err);
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			continue;
		st = -1;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (err == 0 && st == 0)
			return tries[i];
	}
	return 0;
}

/* Writes |n| bytes of |text| to |dir|/|name|.  Returns 0, or -1 with errno. */
static int
write_file(const char *dir, const char *name, const char *text, size_t n)
{
	char path[64];
	ssize_t w;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	w = write(fd, text, n);
	close(fd);
	if (w != (ssize_t)n) {
		if (w >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * Makes the map for a child's user namespace from ours (|file| is
 * "uid_map" or "gid_map"): every id we have maps to itself, so the child
 * keeps our view of file owners.  Where we are in the initial namespace
 * that is "0 0 4294967295"; in a container, its own ranges.  Returns the
 * length written to |out|, or -1.
 */
static ssize_t
identity_map(const char *file, char *out, size_t cap)
{
	char path[64], line[128], *end;
	unsigned long first, lower, count;
	size_t len = 0;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* "first lower count": ids from first, the parent's from
		 * lower; only first and count matter here. */
		errno = 0;
		first = strtoul(line, &end, 10);
		lower = strtoul(end, &end, 10);
		count = strtoul(end, &end, 10);
		if (errno != 0 || count == 0 || (*end != '\n' && *end != '\0'))
			continue;
		(void)lower;
		n = snprintf(out + len, cap - len, "%lu %lu %lu\n", first,
		    first, count);
		if (n < 0 || (size_t)n >= cap - len) {
			fclose(f);
			return -1;
		}
		len += (size_t)n;
	}
	fclose(f);
	return len > 0 ? (ssize_t)len : -1;
}

/*
 * Our identity maps, made once: a process's own maps never change once
 * written, and every process that writes a child's maps here (the server
 * at its probe and for a child it clones itself, the spawner forked
 * after it, and the keepers the spawner clones) is in the server's user
 * namespace and inherits them.  Reading them again for each child took
 * two opens of /proc and a stdio stream each.  A child cloned into a new
 * user namespace forgets them (tc_clone_child()): its own maps are not
 * ours.  A stale map could not widen anything either: the kernel
 * refuses a map that the writer's namespace does not cover.
 */
static struct {
	int	known;
	size_t	uid_len, gid_len;
	char	uid[4096], gid[4096];
} maps;

/* As root: writes the maps of |pid|'s new user namespace. */
static int
write_maps(pid_t pid)
{
	char path[64];
	ssize_t n;

	if (!maps.known) {
		if ((n = identity_map("uid_map", maps.uid,
		    sizeof(maps.uid))) < 0)
			return -1;
		maps.uid_len = (size_t)n;
		if ((n = identity_map("gid_map", maps.gid,
		    sizeof(maps.gid))) < 0)
			return -1;
		maps.gid_len = (size_t)n;
		maps.known = 1;
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (write_file(path, "uid_map", maps.uid, maps.uid_len) != 0 ||
	    write_file(path, "gid_map", maps.gid, maps.gid_len) != 0)
		return -1;
	return 0;
}

int
tc_child_maps(uid_t uid, gid_t gid)
{
	char map[64];
	int n, rc;

	/*
	 * Anyone but root may map only their own ids, and only the process
	 * itself can: its parent could, but the server and the spawner are
	 * not dumpable, which puts their children's /proc files out of
	 * their reach.  Dumpable just long enough to write them.
	 */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		return -1;
	rc = write_file("/proc/self", "setgroups", "deny", 4);
	n = snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid,
	    (unsigned)uid);
	if (rc == 0)
		rc = write_file("/proc/self", "uid_map", map, (size_t)n);
	n = snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid,
	    (unsigned)gid);
	if (rc == 0)
		rc = write_file("/proc/self", "gid_map", map, (size_t)n);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		rc = -1;
	return rc;
}

/*
 * Clones a child in |ns| namespaces, as our own child or, with |parent|,
 * as our parent's.  Returns what fork() would, or -1 with errno set.
 *
 * In a new user namespace the child has no ids until its maps are
 * written.  Root writes them here while the child waits on a pipe, the
 * gate; anyone else's child writes its own (tc_child_maps(), with |uid|
 * and |gid|) before it returns.  With |pids|, the child waits at the gate
 * too, whoever we are, until it is in its call's pids cgroup
 * (tc_pids_place()): nothing it runs, and nothing it starts, is ever
 * outside it.  When the maps cannot be written or the child cannot be
 * placed, the gate closes without a word, the child exits with
 * TC_CHILD_EXIT_NS, and *|err| is set: its parent must still reap it.
 */
pid_t
tc_clone_child(unsigned long ns, int parent, uid_t uid, gid_t gid,
    const struct tc_pids *pids, int *err)
{
	struct clone_args ca;
	int gate[2] = { -1, -1 }, rootmaps, gated, shared = 0;
	char go = 0;
	pid_t pid;

	*err = 0;
	rootmaps = (ns & CLONE_NEWUSER) && geteuid() == 0;
	if (pids != NULL && pids->dir[0] == '\0')
		pids = NULL;
	gated = rootmaps || pids != NULL;
	if (gated && pipe2(gate, O_CLOEXEC) != 0)
		return -1;
	/* In the shared network namespace for the clone, rather than a new
	 * one: the child is born in it.  A keeper that joined it is there;
	 * root goes there for the clone, and comes back. */
	if ((ns & CLONE_NEWNET) && netns_joined)
		ns &= ~(unsigned long)CLONE_NEWNET;
	else if ((ns & CLONE_NEWNET) && netns_home >= 0 &&
	    setns(netns_shared, CLONE_NEWNET) == 0) {
		ns &= ~(unsigned long)CLONE_NEWNET;
		shared = 1;
	}
	memset(&ca, 0, sizeof(ca));
	ca.flags = ns;
	if (parent)
		/* Its exit signal is then ours (SIGCHLD, as fork() made
		 * us); clone3() refuses any other. */
		ca.flags |= CLONE_PARENT;
	else
		ca.exit_signal = SIGCHLD;
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	/* Back home, or nothing this process clones or runs is where it
	 * should be; if that cannot be, it must not go on. */
	if (pid != 0 && shared && setns(netns_home, CLONE_NEWNET) != 0) {
		if (pid > 0)
			kill(pid, SIGKILL);
		*err = errno;
		_exit(TC_CHILD_EXIT_NS);
	}
	if (pid == 0) {
		if (ns & CLONE_NEWUSER)
			maps.known = 0;	/* another namespace's */
		if (gated) {
			close(gate[1]);
			/* One byte when the maps are in and the child is in
			 * its cgroup; EOF if not. */
			if (read(gate[0], &go, 1) != 1)
				_exit(TC_CHILD_EXIT_NS);
			close(gate[0]);
		}
		if (!rootmaps && (ns & CLONE_NEWUSER) &&
		    tc_child_maps(uid, gid) != 0)
			_exit(TC_CHILD_EXIT_NS);
		return 0;
	}
	if (gated) {
		close(gate[0]);
		if (pid > 0) {
			if (rootmaps && write_maps(pid) != 0)
				*err = errno;
			else if (pids != NULL && tc_pids_place(pids, pid) != 0)
				*err = errno != 0 ? errno : EIO;
			else if (write(gate[1], "g", 1) != 1)
				*err = errno;
		}
		close(gate[1]);
		/* Closed without a byte, the child exits by itself. */
	}
	return pid;
}
