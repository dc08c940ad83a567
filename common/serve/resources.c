/*
 * resources.c: resources/list, resources/templates/list and
 * resources/read, answered by the server's resource provider (server.h,
 * struct tc_resources): the lists are its, and a read becomes a call of
 * its tool on the arguments it makes of the URI.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/text.h"
#include "protocol/protocol.h"
#include "serve/server-int.h"
#include "serve/server.h"

/* Returns the provider's tool if resources can be read, else answers
 * |req| that there are none and returns NULL. */
static const struct tc_tool *
provider_tool(struct srv *s, struct tc_request *req)
{
	const struct tc_tool *t;

	if ((t = tc_srv_resource_tool(s)) == NULL)
		tc_proto_error(req, TC_RPC_METHOD_NOT_FOUND, "method not "
		    "found: this server's policy offers no resources");
	return t;
}

/* Answers |req| with the array |member| that |fill| makes (NULL: an
 * empty one). */
static void
list(struct srv *s, struct tc_request *req, const char *member,
    int (*fill)(const struct tc_policy *, cJSON *))
{
	cJSON *res, *arr;

	if (provider_tool(s, req) == NULL)
		return;
	if (cJSON_GetObjectItemCaseSensitive(req->params, "cursor") != NULL) {
		/* Every resource fits on one page: no cursor is ever given
		 * out, and none is valid. */
		tc_proto_error(req, TC_RPC_INVALID_PARAMS, "invalid cursor");
		return;
	}
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(res, member);
	if (arr == NULL || (fill != NULL && fill(&s->pol, arr) != 0)) {
		cJSON_Delete(res);
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	tc_proto_reply(req, res);
}

void
tc_srv_resources_list(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;

	list(s, req, "resources", s->def->resources != NULL ?
	    s->def->resources->list : NULL);
}

void
tc_srv_resources_templates_list(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;

	list(s, req, "resourceTemplates", s->def->resources != NULL ?
	    s->def->resources->templates : NULL);
}

/* Answers |req| "resource not found: |msg|", with the URI as data. */
static void
not_found(struct tc_request *req, const char *uri, const char *msg)
{
	cJSON *data = cJSON_CreateObject();
	char *m;

	cJSON_AddStringToObject(data, "uri", uri);
	m = tc_text_alloc("resource not found: %s", msg);
	tc_proto_error_data(req, TC_RPC_RESOURCE_NOT_FOUND, m != NULL ? m :
	    "resource not found", data);
	free(m);
}

/*
 * resources/read: the provider makes the URI the arguments of a call of
 * its tool, which goes through everything a tools/call does (deny
 * rules, consent, the audit log, a confined child); calls.c answers it
 * as a ReadResourceResult.
 */
void
tc_srv_resources_read(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;
	const struct tc_tool *t;
	const cJSON *uri;
	struct tc_diag d TC_UNINIT;
	cJSON *args = NULL;
	char *u;
	int rc;

	tc_diag_init(&d);
	if ((t = provider_tool(s, req)) == NULL)
		return;
	uri = cJSON_GetObjectItemCaseSensitive(req->params, "uri");
	if (!cJSON_IsString(uri)) {
		tc_proto_error(req, TC_RPC_INVALID_PARAMS,
		    "resources/read needs params.uri, a string");
		return;
	}
	rc = s->def->resources->read(&s->pol, uri->valuestring, &args, &d);
	if (rc == TC_ENOMEM || (rc == 0 && args == NULL)) {
		cJSON_Delete(args);
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	if (rc != 0) {
		not_found(req, uri->valuestring, d.msg);
		return;
	}
	if (tc_args_check(t->args, args, &d) != 0) {
		cJSON_Delete(args);
		not_found(req, uri->valuestring, d.msg);
		return;
	}
	if ((u = strdup(uri->valuestring)) == NULL) {
		cJSON_Delete(args);
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	tc_srv_new_call(s, req, t, args, u);
}
