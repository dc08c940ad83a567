/*
 * hostile_policy.c: the [hostile] section of toolcell-hostile's policy
 * file.  It proves that a server outside the suite extends the policy
 * language from its own folder: two keywords of different shapes, a slot
 * its tools read back typed, and --check printing them with their origins
 * by the grammar's own printer (the section has no print function).
 *
 *	greeting WORD	the hello tool says WORD (default: nothing)
 *	padding SIZE	the hello tool returns that many bytes more, 0 to
 *			64K (default 0)
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"
#include "hostile_policy.h"

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct tc_policy_keyword hostile_keywords[] = {
	{ "greeting", TC_POLICY_WORD,
	  offsetof(struct hostile_policy, greeting),
	  .value = "the word the hello tool says" },
	{ "padding", TC_POLICY_SIZE,
	  offsetof(struct hostile_policy, padding),
	  .min = 0, .max = HOSTILE_PADDING_MAX },
};

/* The slot starts zeroed, which is every default: no greeting, no
 * padding.  The greeting, a WORD, is freed by tc_policy_release(). */
const struct tc_policy_section hostile_policy_section = {
	.name = "hostile",
	.keywords = hostile_keywords,
	.nkeywords = TC_NITEMS(hostile_keywords),
	.size = sizeof(struct hostile_policy),
};

const struct hostile_policy *
hostile_policy(const struct tc_policy *p)
{
	static const struct hostile_policy defaults;
	const struct hostile_policy *s;

	s = p != NULL ? tc_policy_slot(p, &hostile_policy_section) : NULL;
	return s != NULL ? s : &defaults;
}

int
hs_greet(const struct tc_call *call, struct tc_result *res)
{
	const struct hostile_policy *s = hostile_policy(call->policy);
	char *pad;

	if (s->greeting != NULL) {
		hs_str(res, "greeting", s->greeting);
		tc_result_printf(res, "greeting: %s\n", s->greeting);
	}
	if (s->padding == 0)
		return 0;
	if ((pad = malloc(s->padding + 1)) == NULL)
		return tc_result_error(res, "padding: out of memory");
	memset(pad, '.', s->padding);
	pad[s->padding] = '\0';
	hs_str(res, "padding", pad);
	free(pad);
	return 0;
}
