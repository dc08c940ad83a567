/*
 * fs_resource.c: resources/read for toolcell-fs.  A file:// URI beneath an
 * allowed directory is read here, in a confined child, by the same path
 * resolution and deny rules as the tools; the serving loop turns the result
 * into a ReadResourceResult.  A file comes whole (up to a cap), as text when
 * it is UTF-8 and as base64 otherwise; a directory as its listing.
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
#include "fs.h"
#include "policy/path.h"
#include "policy/policy.h"

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
