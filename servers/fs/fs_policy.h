/*
 * fs_policy.h: toolcell-fs's own policy settings, the [fs] section of
 * toolcell-policy(5) (see policy/section.h for where they may be written).
 * Return convention: fs_policy() always returns settings, the defaults
 * when the policy has no [fs] slot.
 */
#ifndef TC_FS_POLICY_H
#define TC_FS_POLICY_H

#include "policy/policy.h"
#include "policy/section.h"

/* In the order of the words of "write-sync". */
enum fs_write_sync {
	FS_WRITE_SYNC_EVERY,	/* fsync each file written (default) */
	FS_WRITE_SYNC_NONE,	/* leave it to the kernel */
};

/* The slot of the [fs] section. */
struct fs_policy {
	enum fs_write_sync	 write_sync;
};

/* The [fs] section, for the server's definition (struct tc_server). */
extern const struct tc_policy_section fs_policy_section;

/* Returns the [fs] settings of |p| (borrowed: valid as long as |p|), or
 * the defaults if |p| has none. */
const struct fs_policy *fs_policy(const struct tc_policy *p);

#endif /* TC_FS_POLICY_H */
