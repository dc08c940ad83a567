/*
 * resources.c: resources/list, resources/templates/list and resources/read.
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
#include "base/log.h"
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

/* --- Resources: files beneath the roots, read by the resource tool --- */

/* Appends |path| to |b| as the path of a file:// URI, percent-encoded. */
static void
put_uri_path(struct tc_buf *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	char esc[3];

	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p) != NULL) {
			tc_buf_append(b, p, 1);
			continue;
		}
		esc[0] = '%';
		esc[1] = hex[*p >> 4];
		esc[2] = hex[*p & 15];
		tc_buf_append(b, esc, 3);
	}
}

/* Returns "file://ROOT/" + |suffix| for root |i|, or NULL. */
static char *
root_uri(const struct srv *s, size_t i, const char *suffix)
{
	const char *path = s->pol.roots[i].path;
	struct tc_buf b;

	tc_buf_init(&b, 4 * PATH_MAX + 64);
	tc_buf_append_str(&b, "file://");
	put_uri_path(&b, path);
	if (strcmp(path, "/") != 0)
		tc_buf_append_str(&b, "/");
	if (tc_buf_append_str(&b, suffix) != 0) {
		tc_buf_release(&b);
		return NULL;
	}
	return tc_buf_steal(&b);
}

/* Answers |req| with a list built by |item| for each root in force. */
static void
list_roots(struct srv *s, struct tc_request *req, const char *member,
    cJSON *(*item)(const struct srv *, size_t))
{
	cJSON *res, *arr;
	size_t i;

	if (tc_srv_resource_tool(s) == NULL) {
		tc_proto_error(req, TC_RPC_METHOD_NOT_FOUND, "method not "
		    "found: this server's policy offers no resources");
		return;
	}
	if (cJSON_GetObjectItemCaseSensitive(req->params, "cursor") != NULL) {
		tc_proto_error(req, TC_RPC_INVALID_PARAMS, "invalid cursor");
		return;
	}
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(res, member);
	for (i = 0; i < s->pol.nroots; i++)
		cJSON_AddItemToArray(arr, item(s, i));
	if (arr == NULL) {
		cJSON_Delete(res);
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	tc_proto_reply(req, res);
}

static const char *
access_name(const struct tc_root *r)
{
	return (r->flags & TC_ROOT_WRITE) ? "read-write" : "read-only";
}

/*
 * Adds the string member |key| to |o|: |head|, the root's |path| shown as
 * text.h shows it (a root can come from the client's roots, and these
 * texts are shown to people), then |tail|.
 */
static void
add_root_text(cJSON *o, const char *key, const char *head, const char *path,
    const char *tail)
{
	struct tc_buf b;

	tc_buf_init(&b, 8 * PATH_MAX + 256);
	if (tc_buf_append_str(&b, head) == 0 &&
	    tc_buf_append_shown(&b, path, strlen(path), 0) == 0 &&
	    tc_buf_append_str(&b, tail) == 0)
		cJSON_AddStringToObject(o, key, b.data);
	tc_buf_release(&b);
}

/* A root as a Resource: the directory itself. */
static cJSON *
root_resource(const struct srv *s, size_t i)
{
	const struct tc_root *r = &s->pol.roots[i];
	char *uri, tail[64];
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL ||
	    (uri = root_uri(s, i, "")) == NULL)
		return o;
	cJSON_AddStringToObject(o, "uri", uri);
	add_root_text(o, "name", "", r->path, "");
	tc_text_fmt(tail, sizeof(tail), " (%s): reading it lists its entries",
	    access_name(r));
	add_root_text(o, "description", "Allowed directory ", r->path, tail);
	cJSON_AddStringToObject(o, "mimeType", "inode/directory");
	free(uri);
	return o;
}

/* A root as a ResourceTemplate: any file beneath it. */
static cJSON *
root_template(const struct srv *s, size_t i)
{
	const struct tc_root *r = &s->pol.roots[i];
	char *uri, tail[96];
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL ||
	    (uri = root_uri(s, i, "{+path}")) == NULL)
		return o;
	cJSON_AddStringToObject(o, "uriTemplate", uri);
	add_root_text(o, "name", "files in ", r->path, "");
	tc_text_fmt(tail, sizeof(tail), " (%s), under the same rules as the "
	    "tools", access_name(r));
	add_root_text(o, "description", "A file or directory beneath ",
	    r->path, tail);
	free(uri);
	return o;
}

void
tc_srv_resources_list(void *ctx, struct tc_request *req)
{
	list_roots(ctx, req, "resources", root_resource);
}

void
tc_srv_resources_templates_list(void *ctx, struct tc_request *req)
{
	list_roots(ctx, req, "resourceTemplates", root_template);
}

/*
 * resources/read: the file:// URI becomes a call of the resource tool on
 * its path, taken through everything a tools/call is (deny rules,
 * consent, the audit log, a confined child).
 */
void
tc_srv_resources_read(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;
	const struct tc_tool *t;
	const cJSON *uri;
	struct tc_diag d TC_UNINIT;
	char *path, *u, *msg;
	size_t n;
	cJSON *args, *data;

	tc_diag_init(&d);
	if ((t = tc_srv_resource_tool(s)) == NULL) {
		tc_proto_error(req, TC_RPC_METHOD_NOT_FOUND, "method not "
		    "found: this server's policy offers no resources");
		return;
	}
	uri = cJSON_GetObjectItemCaseSensitive(req->params, "uri");
	if (!cJSON_IsString(uri)) {
		tc_proto_error(req, TC_RPC_INVALID_PARAMS,
		    "resources/read needs params.uri, a string");
		return;
	}
	if ((path = tc_srv_uri_path(uri->valuestring)) == NULL) {
		data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "uri", uri->valuestring);
		tc_proto_error_data(req, TC_RPC_RESOURCE_NOT_FOUND, "resource "
		    "not found: only file:// URIs of local paths are served",
		    data);
		return;
	}
	/* "file:///srv/p/" names the directory /srv/p. */
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "path", path);
	free(path);
	if (tc_args_check(t->args, args, &d) != 0) {
		msg = tc_srv_msg_new("resource not found: %s", d.msg);
		cJSON_Delete(args);
		data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "uri", uri->valuestring);
		tc_proto_error_data(req, TC_RPC_RESOURCE_NOT_FOUND,
		    msg != NULL ? msg : "resource not found", data);
		free(msg);
		return;
	}
	if ((u = strdup(uri->valuestring)) == NULL) {
		cJSON_Delete(args);
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	tc_srv_new_call(s, req, t, args, u);
}
