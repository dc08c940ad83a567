/*
 * roots.c: the client's MCP roots, asked for, answered and applied while no
 * call runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <pwd.h>
#include <unistd.h>

#include "policy/glob.h"
#include "serve/hostconfig.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/strv.h"
#include "policy/own.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/server.h"
#include "serve/server-int.h"
#include "base/text.h"
#include "serve/usage.h"

extern char **environ;

/* --- The client's roots --- */

char *
tc_uri_file_path(const char *uri)
{
	const char *p;
	char *out, *w;
	int hi, lo;

	if (strncmp(uri, "file://", 7) != 0)
		return NULL;
	p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/' || (out = malloc(strlen(p) + 1)) == NULL)
		return NULL;
	for (w = out; *p != '\0' && *p != '?' && *p != '#'; p++) {
		if (*p != '%') {
			*w++ = *p;
			continue;
		}
		if ((hi = tc_hex_digit((unsigned char)p[1])) < 0 ||
		    (lo = tc_hex_digit((unsigned char)p[2])) < 0 ||
		    (hi == 0 && lo == 0)) {
			free(out);	/* malformed, or a NUL */
			return NULL;
		}
		*w++ = (char)(hi << 4 | lo);
		p += 2;
	}
	*w = '\0';
	return out;
}

void
tc_srv_forget_new_roots(struct srv *s)
{
	tc_strv_free(s->roots_new);
	s->roots_new = NULL;
	s->nroots_new = 0;
}

/* Takes the client's answer to roots/list, to apply once no call runs. */
static void
on_roots(void *ctx, const cJSON *result, const cJSON *error)
{
	struct srv *s = ctx;
	const cJSON *roots, *r, *uri;
	char *path;
	size_t n = 0;

	s->roots_id = -1;
	if (result == NULL) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(error,
		    "message");

		tc_warn("roots/list failed (%s): serving the policy's "
		    "directories", cJSON_IsString(m) ? m->valuestring :
		    "no answer");
		return;
	}
	roots = cJSON_GetObjectItemCaseSensitive(result, "roots");
	if (!cJSON_IsArray(roots)) {
		tc_warn("roots/list answered without a roots array: serving "
		    "the policy's directories");
		return;
	}
	tc_srv_forget_new_roots(s);
	if ((s->roots_new = calloc((size_t)cJSON_GetArraySize(roots) + 1,
	    sizeof(char *))) == NULL) {
		tc_warn("out of memory: the client's roots are not applied");
		return;
	}
	cJSON_ArrayForEach(r, roots) {
		uri = cJSON_GetObjectItemCaseSensitive(r, "uri");
		if (!cJSON_IsString(uri))
			continue;
		if ((path = tc_uri_file_path(uri->valuestring)) == NULL) {
			tc_warn("client root '%s' is not a file:// URI: left "
			    "out", uri->valuestring);
			continue;
		}
		s->roots_new[n++] = path;
	}
	s->nroots_new = n;
	s->roots_apply = 1;
}

/* Returns 1 if the client's roots are asked for: it has them, and they
 * could narrow what the server serves. */
static int
wants_roots(const struct srv *s)
{
	return tc_proto_client_has(&s->proto, "roots") &&
	    s->pol.roots_mode != TC_ROOTS_IGNORE &&
	    !(s->pol.features & TC_POLICY_F_NO_ROOTS);
}

/* Asks the client for its roots, if it has them. */
static void
ask_roots(struct srv *s)
{
	if (!wants_roots(s))
		return;
	if (s->roots_id >= 0) {
		/* Asked again before an answer: the first deadline holds,
		 * so that a client repeating list_changed cannot keep
		 * calls waiting for ever. */
		tc_proto_forget(&s->proto, s->roots_id);
	} else
		s->roots_deadline_ms = tc_now_ms() + s->pol.roots_timeout_ms;
	s->roots_id = tc_proto_request(&s->proto, "roots/list", NULL,
	    on_roots, s);
}

/* Narrows the roots in force to the client's, once no call runs, waits
 * or is being asked about: every call is decided and run under one set
 * of roots. */
void
tc_srv_apply_roots(struct srv *s)
{
	struct tc_diag d = { "", 0 };
	char note[1024];
	size_t i;

	s->roots_apply = 0;
	if (tc_policy_narrow(&s->pol, s->roots_new, s->nroots_new, &d) != 0) {
		tc_warn("the client's roots are not applied: %s", d.msg);
		tc_srv_forget_new_roots(s);
		return;
	}
	if (tc_sandbox_reroot(&s->sb, &d) != 0) {
		tc_log(TC_LOG_ERROR, "cannot confine calls to the client's "
		    "roots (%s): refusing every call", d.msg);
		s->roots_broken = 1;
	} else
		s->roots_broken = 0;
	if (s->pol.roots_state == TC_ROOTS_KEPT ||
	    s->pol.roots_state == TC_ROOTS_EMPTY)
		tc_warn("%s", tc_policy_roots_note(&s->pol, note,
		    sizeof(note)));
	for (i = 0; i < s->pol.nroots; i++)
		tc_debug("root in force: %s (%s)", s->pol.roots[i].path,
		    (s->pol.roots[i].flags & TC_ROOT_WRITE) ? "read-write" :
		    "read-only");
	if (tc_record_roots(s, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	tc_srv_forget_new_roots(s);
	if (tc_srv_resource_tool(s) != NULL)
		tc_proto_notify(&s->proto,
		    "notifications/resources/list_changed", NULL);
}

/* The client's roots changed: ask again. */
void
tc_srv_on_roots_changed(void *ctx, struct tc_request *req)
{
	tc_request_free(req);
	ask_roots(ctx);
}

/*
 * Returns 1 while new calls must wait for the client's roots: when it has
 * them, from initialize until its answer is applied (or not given in
 * time), and again after each notifications/roots/list_changed.
 */
int
tc_srv_roots_pending(const struct srv *s)
{
	if (s->roots_id >= 0 || s->roots_apply)
		return 1;
	return !s->initialized && !s->roots_gave_up && !s->proto.eof &&
	    wants_roots(s);
}

/* The client is ready: it said who it is at initialize. */
void
tc_srv_on_initialized(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;
	struct tc_diag d = { "", 0 };

	tc_request_free(req);
	if (s->initialized)
		return;		/* said twice */
	s->initialized = 1;
	if (tc_record_client(s, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	ask_roots(s);
}
