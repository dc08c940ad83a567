/*
 * fs_policy.c: the [fs] section of toolcell-policy(5), the settings only
 * toolcell-fs has.  For compatibility they are read before the first
 * section header as well (write-sync was a top-level keyword first).
 */
#include <stddef.h>
#include <stdio.h>

#include "fs_policy.h"

/* In the order of enum fs_write_sync. */
static const struct tc_policy_choice write_syncs[] = {
	{ "every", "fsync each file written before answering" },
	{ "none", NULL },
	{ NULL, NULL }
};

/* A CHOICE is stored as an int. */
_Static_assert(sizeof(enum fs_write_sync) == sizeof(int), "an int");

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct tc_policy_keyword fs_keywords[] = {
	{ "write-sync", TC_POLICY_CHOICE,
	  offsetof(struct fs_policy, write_sync), .choices = write_syncs },
};

static void
fs_policy_init(void *slot)
{
	struct fs_policy *s = slot;

	s->write_sync = FS_WRITE_SYNC_EVERY;
}

static void
fs_policy_print(const struct tc_policy *p, const void *slot, FILE *f)
{
	const struct fs_policy *s = slot;
	char at[32];

	fprintf(f, "write-sync: %s  (%s)\n",
	    s->write_sync == FS_WRITE_SYNC_EVERY ?
	    "every (fsync each file written before answering)" :
	    "none (left to the kernel)",
	    tc_policy_origin(tc_policy_setting_at(p, "write-sync"), at,
	    sizeof(at)));
}

const struct tc_policy_section fs_policy_section = {
	.name = "fs",
	.keywords = fs_keywords,
	.nkeywords = TC_NITEMS(fs_keywords),
	.size = sizeof(struct fs_policy),
	.init = fs_policy_init,
	.print = fs_policy_print,
};

const struct fs_policy *
fs_policy(const struct tc_policy *p)
{
	static const struct fs_policy defaults = {
		.write_sync = FS_WRITE_SYNC_EVERY,
	};
	const struct fs_policy *s = tc_policy_slot(p, &fs_policy_section);

	return s != NULL ? s : &defaults;
}
