/*
 * hostile_policy.h: toolcell-hostile's own policy settings, the [hostile]
 * section of its policy file: a server outside the suite adding keywords
 * of its own without a line of common/ (policy/section.h).
 * Return convention: hostile_policy() always returns settings, the
 * defaults when the policy has no [hostile] slot; hs_greet() returns 0.
 */
#ifndef TC_HOSTILE_POLICY_H
#define TC_HOSTILE_POLICY_H

#include "policy/policy.h"
#include "policy/section.h"
#include "protocol/tools.h"

/* The most "padding" may ask for. */
#define HOSTILE_PADDING_MAX	(64u << 10)

/* The slot of the [hostile] section. */
struct hostile_policy {
	char			*greeting;	/* "greeting WORD", or NULL */
	unsigned long long	 padding;	/* "padding SIZE": bytes */
};

/* The [hostile] section, for the server's definition (struct tc_server). */
extern const struct tc_policy_section hostile_policy_section;

/* Returns the [hostile] settings of |p| (borrowed: valid as long as |p|),
 * or the defaults if |p| has none. */
const struct hostile_policy *hostile_policy(const struct tc_policy *p);

/*
 * What the hello tool adds to its result as the policy says (in the
 * child): the greeting, in the text and as "greeting", and "padding", that
 * many dots.  Adds nothing under the defaults.  Returns 0 (a tool error
 * if the padding cannot be allocated).
 */
int	hs_greet(const struct tc_call *call, struct tc_result *res);

#endif /* TC_HOSTILE_POLICY_H */
