/*
 * fs_profile.c: the confinement profiles of toolcell-fs's tools, as data
 * (sandbox/profile.h): what each tool's child may do on top of the base
 * list every child has (common/sandbox/seccomp.c).
 *
 * Neither profile wants a namespace: their seccomp filters allow neither
 * socket() nor fork(), so a network or PID namespace would add nothing,
 * and a user namespace would hide the owners of files (uids outside its
 * map read as 65534) from the tools that report them.  Both keep every
 * root fd: paths are resolved beneath them (policy/path.c).
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "fs.h"
#include "sandbox/profile.h"

/*
 * The read tools: read beneath every root, nothing else.  openat2() is
 * theirs alone (path.c resolves with it where it may): they can make no
 * file, so the mode it hides from the filter does not matter.
 */
const struct tc_profile fs_read_profile = {
	.name = "fs-read",
	.root_access = TC_LL_READ,
	.roots = TC_KEEP_ROOTS_ALL,
	.may = TC_MAY_OPENAT2,
};

/*
 * Changing files beneath writable roots.  Not the chmod family nor
 * utimensat(): Landlock does not govern a file's mode or times, so a path
 * would reach any file of the caller's uid (every file root owns, for a
 * call that runs as root), and fchmod() any file it can open, read-only
 * roots included.  write_file gives a new file its mode as it makes it.
 */
static const struct tc_syscall fs_write_calls[] = {
	TC_SYS(unlinkat), TC_SYS(renameat2), TC_SYS(symlinkat),
	TC_SYS(ftruncate), TC_SYS(fallocate), TC_SYS(fsync),
	TC_SYS(fdatasync), TC_SYS(umask),
	TC_SYS_ARG(mkdirat, 2, TC_SYS_SETID, 0),
	/* write_file names the unnamed (O_TMPFILE) file it wrote with
	 * linkat() of its /proc/self/fd link, and needs no other form.
	 * Landlock still decides where a link may be made (MAKE_REG, and
	 * REFER across directories). */
	TC_SYS_IS(linkat, 4, AT_SYMLINK_FOLLOW),
};

/* The write tools: the read tools' rights, and changes beneath the
 * writable roots. */
const struct tc_profile fs_write_profile = {
	.name = "fs-write",
	.syscalls = { TC_SYSCALLS(fs_write_calls) },
	.root_access = TC_LL_READ,
	.write_access = TC_LL_FS_WRITE_FILE | TC_LL_FS_REMOVE_DIR |
	    TC_LL_FS_REMOVE_FILE | TC_LL_FS_MAKE_DIR | TC_LL_FS_MAKE_REG |
	    TC_LL_FS_MAKE_SYM | TC_LL_FS_REFER | TC_LL_FS_TRUNCATE,
	.roots = TC_KEEP_ROOTS_ALL,
};
