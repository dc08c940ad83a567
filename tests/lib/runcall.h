/*
 * runcall.h: one tool call through a sandbox's pool, for the unit tests
 * of the runner: pool_wait() waits until a profile has ready children,
 * and call_text() runs a call in the next one and copies the text of its
 * answer.  Everything is static, for the one test file that includes it.
 */
#ifndef TC_TEST_RUNCALL_H
#define TC_TEST_RUNCALL_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sandbox/sandbox.h"

/* Waits up to 2 s, refilling the pool, until |sb| has |n| ready children
 * of |profile|.  Returns how many it has. */
static unsigned
pool_wait(struct tc_sandbox *sb, const struct tc_profile *profile, unsigned n)
{
	int i;

	for (i = 0; i < 400 && tc_sandbox_ready(sb, profile) < n; i++) {
		usleep(5000);
		tc_sandbox_refill(sb);
	}
	return tc_sandbox_ready(sb, profile);
}

/*
 * Runs |t| with |args| (an object, or NULL for none) in the next ready
 * child of |sb|, or one made for it, and copies the text of its answer's
 * first content item into |text| (|size| bytes).  Returns 1 when the call
 * ended well with a text; else 0, and prints what came instead.
 */
static int
call_text(struct tc_sandbox *sb, const struct tc_tool *t, const cJSON *args,
    char *text, size_t size)
{
	struct tc_diag d = { "", 0 };
	struct tc_call call;
	struct tc_run r;
	const cJSON *item;
	cJSON *res, *none = NULL;
	int ran;

	if (args == NULL)
		args = none = cJSON_CreateObject();
	memset(&call, 0, sizeof(call));
	call.tool = t;
	call.args = args;
	call.policy = sb->policy;
	if (tc_run_start(&r, sb, &call, &d) != 0) {
		printf("#   %s\n", d.msg);
		cJSON_Delete(none);
		return 0;
	}
	tc_run_wait(&r);
	res = tc_run_take_result(&r);
	item = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(res, "content"), 0), "text");
	ran = r.outcome == TC_OUT_OK && cJSON_IsString(item);
	if (ran)
		snprintf(text, size, "%s", item->valuestring);
	else
		printf("#   %s\n", cJSON_IsString(item) ? item->valuestring :
		    "(no text)");
	cJSON_Delete(res);
	tc_run_release(&r);
	cJSON_Delete(none);
	return ran;
}

#endif /* TC_TEST_RUNCALL_H */
