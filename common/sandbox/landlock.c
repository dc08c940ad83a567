/*
 * sandbox-landlock.c: the kernel-enforced path whitelist.  A ruleset per
 * confinement profile is built once at start; each child only calls
 * landlock_restrict_self() on it, which is cheap.
 *
 * Debian 12's kernel headers predate Landlock ABI 4, so the newer rights
 * and the larger ruleset attribute are spelt out here; the values are the
 * kernel's ABI and never change.
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

#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_WRITE_FILE	(1ULL << 1)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_REMOVE_DIR	(1ULL << 4)
#define LL_FS_REMOVE_FILE	(1ULL << 5)
#define LL_FS_MAKE_CHAR		(1ULL << 6)
#define LL_FS_MAKE_DIR		(1ULL << 7)
#define LL_FS_MAKE_REG		(1ULL << 8)
#define LL_FS_MAKE_SOCK		(1ULL << 9)
#define LL_FS_MAKE_FIFO		(1ULL << 10)
#define LL_FS_MAKE_BLOCK	(1ULL << 11)
#define LL_FS_MAKE_SYM		(1ULL << 12)
#define LL_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#define LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)	/* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)	/* ABI 6 */
#define LL_RULE_PATH_BENEATH	1

struct ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;
	uint64_t	scoped;
};

struct ll_path_beneath {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

static const uint64_t fs_read = LL_FS_READ_FILE | LL_FS_READ_DIR;
static const uint64_t fs_write = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR |
    LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SYM |
    LL_FS_REFER | LL_FS_TRUNCATE;

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
	uint64_t r = (LL_FS_MAKE_SYM << 1) - 1;		/* ABI 1 */

	if (abi >= 2)
		r |= LL_FS_REFER;
	if (abi >= 3)
		r |= LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= LL_FS_IOCTL_DEV;
	return r;
}

/*
 * What a child that runs programs needs of the system, read-only: the
 * programs and their libraries, and the few files of /etc and /dev that
 * the C library and ordinary tools read.  Nothing else of /etc (no
 * /etc/shadow for a call that keeps uid 0), and no /proc.
 */
static const struct {
	const char	*path;
	uint64_t	 access;
} exec_system[] = {
	{ "/usr",			LL_FS_EXECUTE | LL_FS_READ_FILE |
					LL_FS_READ_DIR },
	{ "/bin",			LL_FS_EXECUTE | LL_FS_READ_FILE |
					LL_FS_READ_DIR },
	{ "/sbin",			LL_FS_EXECUTE | LL_FS_READ_FILE |
					LL_FS_READ_DIR },
	{ "/lib",			LL_FS_EXECUTE | LL_FS_READ_FILE |
					LL_FS_READ_DIR },
	{ "/lib32",			LL_FS_EXECUTE | LL_FS_READ_FILE |
					LL_FS_READ_DIR },
	{ "/lib64",			LL_FS_EXECUTE | LL_FS_READ_FILE |
					LL_FS_READ_DIR },
	{ "/etc/ld.so.cache",		LL_FS_READ_FILE },
	{ "/etc/ld.so.conf",		LL_FS_READ_FILE },
	{ "/etc/ld.so.conf.d",		LL_FS_READ_FILE | LL_FS_READ_DIR },
	{ "/etc/localtime",		LL_FS_READ_FILE },
	{ "/etc/nsswitch.conf",		LL_FS_READ_FILE },
	{ "/etc/passwd",		LL_FS_READ_FILE },
	{ "/etc/group",			LL_FS_READ_FILE },
	{ "/dev/null",			LL_FS_READ_FILE | LL_FS_WRITE_FILE },
	{ "/dev/zero",			LL_FS_READ_FILE },
	{ "/dev/urandom",		LL_FS_READ_FILE },
};

/* The rights Landlock accepts on a file that is not a directory. */
#define LL_FS_FILE_RIGHTS	(LL_FS_EXECUTE | LL_FS_WRITE_FILE |	\
				 LL_FS_READ_FILE | LL_FS_TRUNCATE |	\
				 LL_FS_IOCTL_DEV)

/* Adds read access beneath the system paths that exist here. */
static int
add_exec_system(int ruleset, uint64_t all, struct tc_diag *d)
{
	struct ll_path_beneath pb;
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < TC_NITEMS(exec_system); i++) {
		fd = open(exec_system[i].path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue;	/* not on this system */
		memset(&pb, 0, sizeof(pb));
		pb.parent_fd = fd;
		pb.allowed_access = exec_system[i].access & all;
		if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
			pb.allowed_access &= LL_FS_FILE_RIGHTS;
		if (syscall(SYS_landlock_add_rule, ruleset,
		    LL_RULE_PATH_BENEATH, &pb, 0) != 0) {
			tc_diag_errno(d, TC_ESYS, "landlock_add_rule '%s'",
			    exec_system[i].path);
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

int
tc_landlock_build(const struct tc_policy *pol, enum tc_profile profile,
    int abi, struct tc_diag *d)
{
	struct ll_ruleset_attr attr;
	struct ll_path_beneath pb;
	size_t attr_size, i;
	uint64_t all = fs_rights(abi);
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = all;
	attr_size = sizeof(attr.handled_access_fs);
	if (abi >= 4) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		attr_size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (fd < 0)
		return tc_diag_errno(d, TC_ESYS, "landlock_create_ruleset");
	for (i = 0; i < pol->nroots; i++) {
		const struct tc_root *r = &pol->roots[i];

		memset(&pb, 0, sizeof(pb));
		pb.parent_fd = r->fd;
		pb.allowed_access = fs_read;
		if (profile == TC_PROFILE_FS_WRITE && (r->flags & TC_ROOT_WRITE))
			pb.allowed_access |= fs_write;
		pb.allowed_access &= all;
		if (syscall(SYS_landlock_add_rule, fd, LL_RULE_PATH_BENEATH,
		    &pb, 0) != 0) {
			tc_diag_errno(d, TC_ESYS, "landlock_add_rule '%s'",
			    r->path);
			close(fd);
			return TC_ESYS;
		}
	}
	if (profile == TC_PROFILE_SHELL_EXEC &&
	    add_exec_system(fd, all, d) != 0) {
		close(fd);
		return TC_ESYS;
	}
	/* The fd is kept for the server's life and inherited by each
	 * child, which enforces it and closes its copy. */
	return fd;
}

int
tc_landlock_apply(int fd)
{
	int rc;

	rc = (int)syscall(SYS_landlock_restrict_self, fd, 0);
	close(fd);
	return rc;
}
