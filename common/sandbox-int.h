/*
 * sandbox-int.h: the sandbox module's private parts, shared by sandbox.c
 * and sandbox-landlock.c.  Nothing outside common/sandbox*.c includes it.
 */
#ifndef TC_SANDBOX_INT_H
#define TC_SANDBOX_INT_H

#include "sandbox.h"

/*
 * Returns the running kernel's Landlock ABI version, or 0 when Landlock is
 * missing or disabled.
 */
int	tc_landlock_abi(void);

/*
 * Builds the ruleset for |profile| from |pol|'s roots: read access beneath
 * every root, and write access beneath the writable ones for profiles that
 * write.  Every filesystem right of |abi| is handled, so anything not
 * granted is denied; so are TCP bind and connect (ABI 4) and, with ABI 6,
 * abstract unix sockets and signals outside the sandbox.  Returns the
 * ruleset fd, or -1 with |d| set.
 */
int	tc_landlock_build(const struct tc_policy *pol, enum tc_profile profile,
	    int abi, struct tc_diag *d);

/* In the child: enforces ruleset |fd| on the calling process. */
int	tc_landlock_apply(int fd);

/*
 * Compiles the default-deny allowlist of |profile| (native architecture
 * only) into |out|.  Returns 0, or -1 with |d| set.
 */
int	tc_seccomp_build(enum tc_profile profile, struct tc_bpf *out,
	    struct tc_diag *d);
void	tc_seccomp_release(struct tc_bpf *b);

/* In the child, last: loads |b|.  no_new_privs must be set. */
int	tc_seccomp_apply(const struct tc_bpf *b);

#endif /* TC_SANDBOX_INT_H */
