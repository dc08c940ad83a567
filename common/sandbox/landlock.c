/*
 * landlock.c: the kernel-enforced path whitelist, and the TCP ports a
 * granted network may reach.  A ruleset per confinement profile is built
 * once at start (and again when the roots change) from the profile's
 * rights (profile.h) and the policy's network; each child only calls
 * landlock_restrict_self() on it, which is cheap.
 *
 * Debian 12's kernel headers predate Landlock ABI 4, so the newer rights
 * and the larger ruleset attribute are spelt out here and in profile.h;
 * the values are the kernel's ABI and never change.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/err.h"
#include "policy/policy.h"
#include "sandbox/sandbox-int.h"

#define LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)	/* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)	/* ABI 6 */
#define LL_RULE_PATH_BENEATH	1
#define LL_RULE_NET_PORT	2	/* ABI 4 */

struct ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;
	uint64_t	scoped;
};

struct ll_path_beneath {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

struct ll_net_port {
	uint64_t	allowed_access;
	uint64_t	port;
} __attribute__((packed));

/* A ruleset being built for |profile|, which handles the filesystem
 * rights |all| and the network rights |net|. */
struct tc_ruleset {
	int			 fd;
	uint64_t		 all;
	uint64_t		 net;
	const struct tc_profile	*profile;
};

int
tc_landlock_abi(void)
{
	long v;

	v = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

/* Every filesystem right the kernel of |abi| knows. */
static uint64_t
fs_rights(int abi)
{
	uint64_t r = (TC_LL_FS_MAKE_SYM << 1) - 1;	/* ABI 1 */

	if (abi >= 2)
		r |= TC_LL_FS_REFER;
	if (abi >= 3)
		r |= TC_LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= TC_LL_FS_IOCTL_DEV;
	return r;
}

/* The rights Landlock accepts on a file that is not a directory. */
#define LL_FS_FILE_RIGHTS	(TC_LL_FS_EXECUTE | TC_LL_FS_WRITE_FILE | \
				 TC_LL_FS_READ_FILE | TC_LL_FS_TRUNCATE | \
				 TC_LL_FS_IOCTL_DEV)

/*
 * Grants |access| beneath the file or directory |fd| (named |path| in
 * messages): what this kernel knows of it, and only the file rights on a
 * file.  Nothing left to grant is no rule.  Returns 0, or TC_ESYS with |d|
 * set.
 */
static int
add_rule(const struct tc_ruleset *rs, int fd, const char *path,
    uint64_t access, struct tc_diag *d)
{
	struct ll_path_beneath pb;
	struct stat st;

	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	pb.allowed_access = access & rs->all;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		pb.allowed_access &= LL_FS_FILE_RIGHTS;
	if (pb.allowed_access == 0)
		return 0;
	if (syscall(SYS_landlock_add_rule, rs->fd, LL_RULE_PATH_BENEATH, &pb,
	    0) != 0)
		return tc_diag_errno(d, TC_ESYS, "landlock_add_rule '%s'",
		    path);
	return 0;
}

/* Grants the rights of each of the |n| system paths |v| that exist
 * here. */
static int
add_system(const struct tc_ruleset *rs, const struct tc_landlock_path *v,
    size_t n, struct tc_diag *d)
{
	const struct tc_landlock_path *sp;
	size_t i;
	int fd, rc;

	for (i = 0; i < n; i++) {
		sp = &v[i];
		fd = open(sp->path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue;	/* not on this system */
		rc = add_rule(rs, fd, sp->path, sp->access, d);
		close(fd);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
tc_ruleset_allow(struct tc_ruleset *rs, const char *path, uint64_t access,
    struct tc_diag *d)
{
	int fd, rc;

	if ((access & ~rs->profile->rules_access) != 0)
		return tc_diag(d, TC_EINVAL, "profile '%s': rights 0x%llx on "
		    "'%s' beyond those its rules may grant", rs->profile->name,
		    (unsigned long long)(access & ~rs->profile->rules_access),
		    path);
	if ((fd = open(path, O_PATH | O_CLOEXEC)) < 0)
		return tc_diag_errno(d, TC_ESYS, "cannot open '%s'", path);
	rc = add_rule(rs, fd, path, access, d);
	close(fd);
	return rc;
}

int
tc_ruleset_allow_fd(struct tc_ruleset *rs, int fd, const char *name,
    uint64_t access, struct tc_diag *d)
{
	if ((access & ~rs->profile->rules_access) != 0)
		return tc_diag(d, TC_EINVAL, "profile '%s': rights 0x%llx on "
		    "'%s' beyond those its rules may grant", rs->profile->name,
		    (unsigned long long)(access & ~rs->profile->rules_access),
		    name);
	if (fd < 0)
		return tc_diag(d, TC_EINVAL, "profile '%s': no fd for '%s'",
		    rs->profile->name, name);
	return add_rule(rs, fd, name, access, d);
}

/*
 * Lets TCP sockets connect to |port|: "network connect" names it.  The
 * ruleset must handle TCP connect (ABI 4), or the port could not be told
 * from any other.  Returns 0, or TC_ENOTSUP or TC_ESYS with |d| set.
 */
static int
allow_port(const struct tc_ruleset *rs, unsigned port, struct tc_diag *d)
{
	struct ll_net_port np;

	if (!(rs->net & LL_NET_CONNECT_TCP))
		return tc_diag(d, TC_ENOTSUP, "profile '%s': port %u: this "
		    "kernel's Landlock cannot limit connections to ports",
		    rs->profile->name, port);
	memset(&np, 0, sizeof(np));
	np.allowed_access = LL_NET_CONNECT_TCP;
	np.port = port;
	if (syscall(SYS_landlock_add_rule, rs->fd, LL_RULE_NET_PORT, &np,
	    0) != 0)
		return tc_diag_errno(d, TC_ESYS, "landlock_add_rule: port %u",
		    port);
	return 0;
}

/*
 * Gives the ruleset the network the policy grants the profile: nothing
 * without a grant; its net_system paths with one, and for "network
 * connect" each port the line names.
 */
static int
add_network(const struct tc_ruleset *rs, const struct tc_policy *pol,
    struct tc_diag *d)
{
	enum tc_network net = tc_profile_network(pol, rs->profile);
	size_t i;
	int rc;

	if (net == TC_NETWORK_OFF)
		return 0;
	if ((rc = add_system(rs, rs->profile->net_system,
	    rs->profile->nnet_system, d)) != 0)
		return rc;
	for (i = 0; net == TC_NETWORK_CONNECT && i < pol->nnet_ports; i++)
		if ((rc = allow_port(rs, pol->net_ports[i], d)) != 0)
			return rc;
	return 0;
}

int
tc_landlock_build(const struct tc_policy *pol,
    const struct tc_profile *profile, int abi, struct tc_diag *d)
{
	struct ll_ruleset_attr attr;
	struct tc_ruleset rs;
	size_t attr_size, i;
	uint64_t all = fs_rights(abi), access;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = all;
	attr_size = sizeof(attr.handled_access_fs);
	/* TCP bind and connect are refused but where a rule allows them;
	 * "network on" grants every port, so they are not handled. */
	if (abi >= 4) {
		if (tc_profile_network(pol, profile) != TC_NETWORK_ON)
			attr.handled_access_net = LL_NET_BIND_TCP |
			    LL_NET_CONNECT_TCP;
		attr_size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (fd < 0) {
		tc_diag_errno(d, TC_ESYS, "landlock_create_ruleset");
		return -1;
	}
	rs.fd = fd;
	rs.all = all;
	rs.net = attr.handled_access_net;
	rs.profile = profile;
	for (i = 0; i < pol->nroots; i++) {
		const struct tc_root *r = &pol->roots[i];

		access = profile->root_access;
		if (r->flags & TC_ROOT_WRITE)
			access |= profile->write_access;
		if (add_rule(&rs, r->fd, r->path, access, d) != 0)
			goto fail;
	}
	if (add_system(&rs, profile->system, profile->nsystem, d) != 0 ||
	    add_network(&rs, pol, d) != 0 ||
	    (profile->rules != NULL && profile->rules(&rs, pol, d) != 0))
		goto fail;
	/* The fd is kept for the server's life and inherited by each
	 * child, which enforces it and closes its copy. */
	return fd;
fail:
	close(fd);
	return -1;
}

int
tc_landlock_scope(void)
{
	struct ll_ruleset_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
	return (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr),
	    0);
}

int
tc_landlock_apply(int fd)
{
	int rc;

	rc = (int)syscall(SYS_landlock_restrict_self, fd, 0);
	close(fd);
	return rc;
}
