/*
 * fs_resource.c: toolcell-fs's resources.  The provider (fs_resources,
 * run in the server) lists each allowed directory as a resource and as a
 * template for the files beneath it, and makes a file:// URI the "path"
 * of a read_resource call.  That call's handler, fs_read_resource(), runs
 * in a confined child and reads the file by the same path resolution and
 * deny rules as the tools; the serving loop turns its result into a
 * ReadResourceResult.  A file comes whole (up to a cap), as text when it
 * is UTF-8 and as base64 otherwise; a directory as its listing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/base64.h>

#include "base/buf.h"
#include "base/text.h"
#include "fs.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "serve/server.h"

/* MIME types by extension; text types are sent as text when UTF-8. */
static const struct {
	const char	*ext;
	const char	*mime;
} mime_types[] = {
	{ "c",		"text/x-c" },
	{ "css",	"text/css" },
	{ "csv",	"text/csv" },
	{ "gif",	"image/gif" },
	{ "go",		"text/x-go" },
	{ "h",		"text/x-c" },
	{ "htm",	"text/html" },
	{ "html",	"text/html" },
	{ "ico",	"image/x-icon" },
	{ "jpeg",	"image/jpeg" },
	{ "jpg",	"image/jpeg" },
	{ "js",		"text/javascript" },
	{ "json",	"application/json" },
	{ "md",		"text/markdown" },
	{ "mp3",	"audio/mpeg" },
	{ "ogg",	"audio/ogg" },
	{ "pdf",	"application/pdf" },
	{ "png",	"image/png" },
	{ "py",		"text/x-python" },
	{ "rs",		"text/x-rust" },
	{ "sh",		"text/x-shellscript" },
	{ "svg",	"image/svg+xml" },
	{ "toml",	"application/toml" },
	{ "ts",		"text/x-typescript" },
	{ "txt",	"text/plain" },
	{ "wav",	"audio/wav" },
	{ "webp",	"image/webp" },
	{ "xml",	"application/xml" },
	{ "yaml",	"application/yaml" },
	{ "yml",	"application/yaml" },
	{ "zip",	"application/zip" },
};

/* Returns the MIME type of file |name| by its extension, or NULL. */
static const char *
mime_of(const char *name)
{
	const char *dot = strrchr(name, '.');
	size_t i;

	if (dot == NULL || strchr(dot, '/') != NULL)
		return NULL;
	for (i = 0; i < sizeof(mime_types) / sizeof(mime_types[0]); i++)
		if (strcasecmp(dot + 1, mime_types[i].ext) == 0)
			return mime_types[i].mime;
	return NULL;
}

/* Lists directory |user| through list_directory, as one page of all. */
static int
read_directory(const struct tc_call *call, struct tc_result *res)
{
	struct tc_call sub = *call;
	cJSON *args, *o;
	int rc;

	if ((args = cJSON_Duplicate(call->args, 1)) == NULL ||
	    cJSON_AddNumberToObject(args, "limit", FS_LIST_MAX_ENTRIES) ==
	    NULL) {
		cJSON_Delete(args);
		return tc_result_error(res, "out of memory");
	}
	sub.args = args;
	rc = fs_list_directory(&sub, res);
	cJSON_Delete(args);
	if (rc == 0 && !res->is_error && (o = tc_result_obj(res)) != NULL) {
		cJSON_AddStringToObject(o, "mimeType", "inode/directory");
		cJSON_AddStringToObject(o, "encoding", "text");
	}
	return rc;
}

int
fs_read_resource(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	const char *mime;
	struct tc_diag d TC_UNINIT;
	struct tc_path p;
	struct stat st;
	char *b64;
	char *data = NULL;
	size_t len;
	int fd, rc, is_text;
	cJSON *o;

	tc_diag_init(&d);
	if ((rc = tc_path_map(call->policy, user, &p, &d)) != 0)
		return fs_map_error(call, rc, &d, res);
	fd = tc_path_open(call->policy, &p, O_PATH, 0, TC_ACCESS_READ);
	if (fd < 0) {
		tc_path_open_error(&d, &p, user, errno);
		tc_path_release(&p);
		return tc_result_error(res, "%s", d.msg);
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		tc_path_release(&p);
		return tc_result_error(res, "'%s': %s", user, strerror(errno));
	}
	close(fd);
	if (S_ISDIR(st.st_mode)) {
		tc_path_release(&p);
		return read_directory(call, res);
	}
	if (!S_ISREG(st.st_mode)) {
		tc_path_release(&p);
		return tc_result_error(res, "'%s': not a regular file", user);
	}
	if (st.st_size > FS_RESOURCE_MAX_BYTES) {
		tc_path_release(&p);
		return tc_result_error(res, "'%s': %lld bytes, more than a "
		    "resource read returns (%u); use read_text_file with "
		    "offset and limit", user, (long long)st.st_size,
		    FS_RESOURCE_MAX_BYTES);
	}
	/* Opened again for reading, and checked to be the file stat'ed:
	 * never a FIFO swapped in to block the read. */
	fd = tc_path_open(call->policy, &p, O_RDONLY | O_NONBLOCK, 0,
	    TC_ACCESS_READ);
	tc_path_release(&p);
	if (fd < 0)
		return tc_result_error(res, "'%s': %s", user, strerror(errno));
	{
		struct stat st2;

		if (fstat(fd, &st2) != 0 || st2.st_dev != st.st_dev ||
		    st2.st_ino != st.st_ino) {
			close(fd);
			return tc_result_error(res, "'%s': changed while it "
			    "was opened", user);
		}
	}
	rc = fs_read_all(fd, (size_t)st.st_size, FS_RESOURCE_MAX_BYTES, &data,
	    &len);
	close(fd);
	if (rc == TC_ETOOBIG)
		return tc_result_error(res, "'%s': grew past %u bytes while it "
		    "was read", user, FS_RESOURCE_MAX_BYTES);
	if (rc != 0)
		return tc_result_error(res, "'%s': %s", user, rc == TC_ESYS ?
		    strerror(errno) : tc_strerror(rc));
	mime = mime_of(user);
	is_text = (mime == NULL || strncmp(mime, "text/", 5) == 0 ||
	    strstr(mime, "json") != NULL || strstr(mime, "xml") != NULL ||
	    strstr(mime, "yaml") != NULL || strstr(mime, "toml") != NULL) &&
	    memchr(data, '\0', len) == NULL &&
	    tc_utf8_valid(data, len);
	if ((o = tc_result_obj(res)) == NULL) {
		free(data);
		return tc_result_error(res, "out of memory");
	}
	if (is_text) {
		tc_result_text(res, data, len);
		cJSON_AddStringToObject(o, "mimeType", mime != NULL ? mime :
		    "text/plain");
		cJSON_AddStringToObject(o, "encoding", "text");
	} else {
		if ((b64 = malloc(BASE64_ENCODE_RAW_LENGTH(len) + 1)) ==
		    NULL) {
			free(data);
			return tc_result_error(res, "out of memory");
		}
		base64_encode_raw(b64, len, (const uint8_t *)data);
		b64[BASE64_ENCODE_RAW_LENGTH(len)] = '\0';
		tc_result_text(res, b64, BASE64_ENCODE_RAW_LENGTH(len));
		free(b64);
		cJSON_AddStringToObject(o, "mimeType", mime != NULL ? mime :
		    "application/octet-stream");
		cJSON_AddStringToObject(o, "encoding", "base64");
	}
	cJSON_AddNumberToObject(o, "size", (double)len);
	free(data);
	return 0;
}

/* --- The provider, in the server --- */

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

/* Returns "file://ROOT/" + |suffix| for root |r|, or NULL. */
static char *
root_uri(const struct tc_root *r, const char *suffix)
{
	struct tc_buf b;

	tc_buf_init(&b, 4 * PATH_MAX + 64);
	tc_buf_append_str(&b, "file://");
	put_uri_path(&b, r->path);
	if (strcmp(r->path, "/") != 0)
		tc_buf_append_str(&b, "/");
	if (tc_buf_append_str(&b, suffix) != 0) {
		tc_buf_release(&b);
		return NULL;
	}
	return tc_buf_steal(&b);
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
root_resource(const struct tc_root *r)
{
	char *uri, tail[64];
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL ||
	    (uri = root_uri(r, "")) == NULL)
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
root_template(const struct tc_root *r)
{
	char *uri, tail[96];
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL ||
	    (uri = root_uri(r, "{+path}")) == NULL)
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

/* Each root in force, made an item by |item|. */
static int
each_root(const struct tc_policy *pol, cJSON *arr,
    cJSON *(*item)(const struct tc_root *))
{
	size_t i;

	for (i = 0; i < pol->nroots; i++)
		cJSON_AddItemToArray(arr, item(&pol->roots[i]));
	return 0;
}

static int
list_resources(const struct tc_policy *pol, cJSON *arr)
{
	return each_root(pol, arr, root_resource);
}

static int
list_templates(const struct tc_policy *pol, cJSON *arr)
{
	return each_root(pol, arr, root_template);
}

/* A file:// URI becomes read_resource's "path"; whether it lies beneath
 * a root is the call's to find out, as for any path a tool is given. */
static int
read_args(const struct tc_policy *pol, const char *uri, cJSON **args,
    struct tc_diag *d)
{
	char *path;
	size_t n;

	(void)pol;
	*args = NULL;
	if ((path = tc_uri_file_path(uri)) == NULL)
		return tc_diag(d, TC_EINVAL, "only file:// URIs of local "
		    "paths are served");
	/* "file:///srv/p/" names the directory /srv/p. */
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	if ((*args = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(*args, "path", path) == NULL) {
		free(path);
		cJSON_Delete(*args);
		*args = NULL;
		return TC_ENOMEM;
	}
	free(path);
	return 0;
}

const struct tc_resources fs_resources = {
	.tool = "read_resource",
	.list = list_resources,
	.templates = list_templates,
	.read = read_args,
};
