/*
 * test-confine.c: what a child can see of its own confinement, read from
 * /proc/self/status inside a real run, and what the server process itself
 * gives away.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "policy.h"
#include "sandbox.h"
#include "tap.h"

static const struct tc_arg no_args[] = { { NULL } };

/* Returns the status lines whose names the test checks, one per line. */
static int
h_status(const struct tc_call *call, struct tc_result *res)
{
	static const char *const keys[] = { "CapInh:", "CapPrm:", "CapEff:",
	    "CapBnd:", "CapAmb:", "NoNewPrivs:", NULL };
	char line[256];
	FILE *f;
	size_t i;

	(void)call;
	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return tc_result_error(res, "open: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL)
		for (i = 0; keys[i] != NULL; i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0)
				tc_result_printf(res, "%s", line);
	fclose(f);
	return 0;
}

static const struct tc_tool status_tool = {
	.name = "status", .description = "status", .args = no_args,
	.output_schema = "{\"type\":\"object\"}", .fn = h_status,
	.profile = TC_PROFILE_FS_READ,
};

/* Returns the value after |key| in |text| with blanks removed, or "". */
static const char *
field(const char *text, const char *key, char *out, size_t n)
{
	const char *p = strstr(text, key);
	size_t k = 0;

	out[0] = '\0';
	if (p == NULL)
		return out;
	for (p += strlen(key); *p != '\0' && *p != '\n' && k + 1 < n; p++)
		if (*p != ' ' && *p != '\t')
			out[k++] = *p;
	out[k] = '\0';
	return out;
}

int
main(void)
{
	static const char zero[] = "0000000000000000";
	struct tc_diag d = { "", 0 };
	struct tc_sandbox sb;
	struct tc_policy pol;
	struct tc_call call;
	struct tc_run r;
	const cJSON *content, *text;
	char v[64];
	cJSON *res, *args;

	tc_policy_init(&pol);
	pol.limits.deadline_ms = 5000;
	if (!is_int(tc_sandbox_init(&sb, &pol, &d), 0, "tc_sandbox_init"))
		printf("#   %s\n", d.msg);
	is_int(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0,
	    "the server process is not dumpable");

	args = cJSON_CreateObject();
	memset(&call, 0, sizeof(call));
	call.tool = &status_tool;
	call.args = args;
	call.policy = &pol;
	if (!is_int(tc_run_start(&r, &sb, &call, &d), 0, "tc_run_start"))
		printf("#   %s\n", d.msg);
	tc_run_wait(&r);
	is_int(r.outcome, TC_OUT_OK, "the probe ran");
	res = tc_run_take_result(&r);
	content = cJSON_GetObjectItemCaseSensitive(res, "content");
	text = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(content, 0),
	    "text");
	if (ok(cJSON_IsString(text), "the probe reported its status")) {
		is_str(field(text->valuestring, "CapInh:", v, sizeof(v)), zero,
		    "CapInh is empty");
		is_str(field(text->valuestring, "CapPrm:", v, sizeof(v)), zero,
		    "CapPrm is empty");
		is_str(field(text->valuestring, "CapEff:", v, sizeof(v)), zero,
		    "CapEff is empty");
		is_str(field(text->valuestring, "CapAmb:", v, sizeof(v)), zero,
		    "CapAmb is empty");
		is_str(field(text->valuestring, "NoNewPrivs:", v, sizeof(v)),
		    "1", "NoNewPrivs is set");
		/* Dropping the bounding set needs CAP_SETPCAP: only a
		 * privileged server can, and only there does it matter. */
		if (geteuid() == 0)
			is_str(field(text->valuestring, "CapBnd:", v,
			    sizeof(v)), zero, "CapBnd is empty (as root)");
		else
			skip("CapBnd: not root, the bounding set stays");
	}
	cJSON_Delete(res);
	cJSON_Delete(args);
	tc_run_release(&r);
	tc_sandbox_release(&sb);
	tc_policy_release(&pol);
	return done_testing();
}
