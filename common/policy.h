/*
 * policy.h: what a server may touch, loaded once at start and read-only
 * afterwards: the allowed roots (each opened as a directory fd that every
 * path is resolved beneath), whether each is writable, and the limits that
 * apply to every call.
 */
#ifndef TC_POLICY_H
#define TC_POLICY_H

#include <sys/types.h>

#include <stddef.h>

#include "err.h"

enum tc_root_flags {
	TC_ROOT_WRITE	= 1 << 0,
};

/* Each root's fd stays open in every call's child: a bound on them. */
#define TC_ROOTS_MAX	32

struct tc_root {
	char		*path;		/* canonical absolute path */
	char		*given;		/* as the user wrote it, made absolute */
	size_t		 pathlen;
	size_t		 givenlen;
	int		 fd;		/* O_PATH|O_DIRECTORY, held for life */
	unsigned	 flags;
};

struct tc_limits {
	int		 deadline_ms;	/* wall clock per call */
	size_t		 max_result;	/* bytes a child may send back */
	unsigned long	 cpu_sec;	/* RLIMIT_CPU */
	unsigned long	 mem_bytes;	/* RLIMIT_AS */
	unsigned long	 fsize_bytes;	/* RLIMIT_FSIZE */
	unsigned long	 nofile;	/* RLIMIT_NOFILE */
	unsigned long	 nproc;		/* RLIMIT_NPROC, where it counts */
	unsigned	 max_inflight;	/* calls running at once */
};

/* Confinement layers the user agreed to run without (--allow-degraded). */
enum tc_degrade {
	TC_DEGRADE_LANDLOCK	= 1 << 0,
	TC_DEGRADE_NAMESPACES	= 1 << 1,	/* optional: never refused */
	TC_DEGRADE_SECCOMP	= 1 << 2,
};

struct tc_policy {
	struct tc_root	*roots;
	size_t		 nroots;
	struct tc_limits limits;
	unsigned	 allow_degraded;	/* TC_DEGRADE_* */
	int		 run_as;	/* switch children to run_uid/gid */
	uid_t		 run_uid;
	gid_t		 run_gid;
};

/* Fills |p| with no roots and the default limits. */
void	tc_policy_init(struct tc_policy *p);

/* Closes the root fds and frees everything. */
void	tc_policy_release(struct tc_policy *p);

/*
 * Adds directory |dir| as a root (writable if |flags| has TC_ROOT_WRITE):
 * made absolute, canonicalised, opened O_PATH|O_DIRECTORY.  Returns 0, or
 * TC_EINVAL/TC_ESYS with |d| naming the directory and the reason.
 */
int	tc_policy_add_root(struct tc_policy *p, const char *dir,
	    unsigned flags, struct tc_diag *d);

/* Returns 1 if some root is writable. */
int	tc_policy_writable(const struct tc_policy *p);

#endif /* TC_POLICY_H */
