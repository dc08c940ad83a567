/*
 * fs_read.c: toolcell-fs's read_media_file, read_multiple_files and
 * list_directory_with_sizes.  Like fs_tools.c they run in the confined
 * child and open every path through fs_open_regular() or tc_path_open(),
 * so the deny rules, the root and the refusal of FIFOs and devices are
 * those of read_text_file.  Every result is bounded: a media file by a
 * size cap (refused past it, since part of an image is not an image), a
 * batch of files by a cap per file and one for the whole call, a listing
 * by a page size.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/base64.h>

#include "fs.h"
#include "base/json.h"
#include "policy/glob.h"
#include "policy/path.h"
#include "policy/policy.h"

/* --- read_media_file --- */

enum media_kind {
	MEDIA_IMAGE,
	MEDIA_AUDIO,
	MEDIA_OTHER,		/* sent as an embedded resource */
};

struct media_type {
	const char	*ext;		/* lower case, without the dot */
	const char	*mime;
	enum media_kind	 kind;
};

/*
 * What a name's extension claims.  Every image and audio type here has a
 * signature that sniff() or confirms() checks, so that bytes which are not
 * what their name says are never labelled an image: a host that hands a
 * broken "image/png" to a model may fail the whole conversation.
 */
static const struct media_type media_types[] = {
	{ "png",	"image/png",		MEDIA_IMAGE },
	{ "jpg",	"image/jpeg",		MEDIA_IMAGE },
	{ "jpeg",	"image/jpeg",		MEDIA_IMAGE },
	{ "jpe",	"image/jpeg",		MEDIA_IMAGE },
	{ "gif",	"image/gif",		MEDIA_IMAGE },
	{ "webp",	"image/webp",		MEDIA_IMAGE },
	{ "bmp",	"image/bmp",		MEDIA_IMAGE },
	{ "svg",	"image/svg+xml",	MEDIA_IMAGE },
	{ "ico",	"image/x-icon",		MEDIA_IMAGE },
	{ "tif",	"image/tiff",		MEDIA_IMAGE },
	{ "tiff",	"image/tiff",		MEDIA_IMAGE },
	{ "avif",	"image/avif",		MEDIA_IMAGE },
	{ "mp3",	"audio/mpeg",		MEDIA_AUDIO },
	{ "wav",	"audio/wav",		MEDIA_AUDIO },
	{ "ogg",	"audio/ogg",		MEDIA_AUDIO },
	{ "oga",	"audio/ogg",		MEDIA_AUDIO },
	{ "opus",	"audio/ogg",		MEDIA_AUDIO },
	{ "flac",	"audio/flac",		MEDIA_AUDIO },
	{ "m4a",	"audio/mp4",		MEDIA_AUDIO },
	{ "aac",	"audio/aac",		MEDIA_AUDIO },
	{ "mid",	"audio/midi",		MEDIA_AUDIO },
	{ "midi",	"audio/midi",		MEDIA_AUDIO },
	{ "pdf",	"application/pdf",	MEDIA_OTHER },
	{ "zip",	"application/zip",	MEDIA_OTHER },
	{ "gz",		"application/gzip",	MEDIA_OTHER },
	{ "mp4",	"video/mp4",		MEDIA_OTHER },
	{ "webm",	"video/webm",		MEDIA_OTHER },
};

#define OCTET_STREAM	"application/octet-stream"

static enum media_kind
kind_of(const char *mime)
{
	if (strncmp(mime, "image/", 6) == 0)
		return MEDIA_IMAGE;
	if (strncmp(mime, "audio/", 6) == 0)
		return MEDIA_AUDIO;
	return MEDIA_OTHER;
}

/* Returns the type the last component of |user| claims, or NULL. */
static const struct media_type *
by_extension(const char *user)
{
	const char *base, *dot;
	char ext[8];
	size_t i, n;

	base = strrchr(user, '/');
	base = base ? base + 1 : user;
	if ((dot = strrchr(base, '.')) == NULL || dot == base)
		return NULL;
	n = strlen(dot + 1);
	if (n == 0 || n >= sizeof(ext))
		return NULL;
	for (i = 0; i < n; i++) {
		char c = dot[1 + i];

		ext[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	ext[n] = '\0';
	for (i = 0; i < TC_NITEMS(media_types); i++)
		if (strcmp(media_types[i].ext, ext) == 0)
			return &media_types[i];
	return NULL;
}

static int
starts(const unsigned char *b, size_t n, size_t at, const char *sig,
    size_t len)
{
	return n >= at + len && memcmp(b + at, sig, len) == 0;
}

/*
 * Returns the type a signature long enough not to occur by chance names,
 * or NULL.  Signatures of two bytes ("BM") or of a frame sync are only
 * good enough to confirm what a name claims (confirms()).
 */
static const char *
sniff(const unsigned char *b, size_t n)
{
	if (starts(b, n, 0, "\x89PNG\r\n\x1a\n", 8))
		return "image/png";
	if (starts(b, n, 0, "\xff\xd8\xff", 3))
		return "image/jpeg";
	if (starts(b, n, 0, "GIF87a", 6) || starts(b, n, 0, "GIF89a", 6))
		return "image/gif";
	if (starts(b, n, 0, "RIFF", 4) && starts(b, n, 8, "WEBP", 4))
		return "image/webp";
	if (starts(b, n, 0, "RIFF", 4) && starts(b, n, 8, "WAVE", 4))
		return "audio/wav";
	if (starts(b, n, 0, "II*\0", 4) || starts(b, n, 0, "MM\0*", 4))
		return "image/tiff";
	if (starts(b, n, 4, "ftyp", 4)) {
		/* ISO media: the major brand says what it holds. */
		if (starts(b, n, 8, "avif", 4) || starts(b, n, 8, "avis", 4))
			return "image/avif";
		if (starts(b, n, 8, "M4A ", 4) || starts(b, n, 8, "M4B ", 4))
			return "audio/mp4";
		return "video/mp4";
	}
	if (starts(b, n, 0, "OggS", 4))
		return "audio/ogg";
	if (starts(b, n, 0, "fLaC", 4))
		return "audio/flac";
	if (starts(b, n, 0, "MThd", 4))
		return "audio/midi";
	if (starts(b, n, 0, "ID3", 3))
		return "audio/mpeg";
	if (starts(b, n, 0, "%PDF-", 5))
		return "application/pdf";
	if (starts(b, n, 0, "PK\3\4", 4))
		return "application/zip";
	if (starts(b, n, 0, "\x1f\x8b", 2))
		return "application/gzip";
	if (starts(b, n, 0, "\x1a\x45\xdf\xa3", 4))
		return "video/webm";
	return NULL;
}

/* An SVG is text: it starts with '<' (after a BOM and blanks) and opens
 * an <svg element early on. */
static int
looks_svg(const unsigned char *b, size_t n)
{
	size_t i = 0, scan = n < 4096 ? n : 4096;

	if (memchr(b, '\0', scan) != NULL)
		return 0;
	if (starts(b, n, 0, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < scan && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' ||
	    b[i] == '\n'))
		i++;
	return i < scan && b[i] == '<' &&
	    memmem(b + i, scan - i, "<svg", 4) != NULL;
}

/* Returns 1 if |b| bears the weak signature of |mime|. */
static int
confirms(const char *mime, const unsigned char *b, size_t n)
{
	if (strcmp(mime, "image/bmp") == 0)
		return starts(b, n, 0, "BM", 2);
	if (strcmp(mime, "image/x-icon") == 0)
		return starts(b, n, 0, "\0\0\1\0", 4);
	if (strcmp(mime, "image/svg+xml") == 0)
		return looks_svg(b, n);
	/* MPEG audio frame sync: 11 bits set, then a layer other than 0. */
	if (strcmp(mime, "audio/mpeg") == 0)
		return n >= 2 && b[0] == 0xff && (b[1] & 0xe0) == 0xe0 &&
		    (b[1] & 0x06) != 0;
	/* ADTS: 12 bits set, layer 0. */
	if (strcmp(mime, "audio/aac") == 0)
		return n >= 2 && b[0] == 0xff && (b[1] & 0xf6) == 0xf0;
	return 0;
}

/*
 * Decides the type of |b| named |user|: a strong signature wins over the
 * name; a name is believed for an image or audio type only if the bytes
 * confirm it, and for other types as it is.  *|how| says which:
 * "content", "extension" or "none".
 */
static const char *
media_type(const char *user, const unsigned char *b, size_t n,
    const char **how, const char **claimed)
{
	const struct media_type *e = by_extension(user);
	const char *s = sniff(b, n);

	*claimed = e ? e->mime : NULL;
	if (s != NULL) {
		*how = "content";
		/* An .m4a is often branded as plain ISO media. */
		if (e != NULL && strcmp(s, "video/mp4") == 0 &&
		    strcmp(e->mime, "audio/mp4") == 0)
			return e->mime;
		return s;
	}
	if (e != NULL && e->kind == MEDIA_OTHER) {
		*how = "extension";
		return e->mime;
	}
	if (e != NULL && confirms(e->mime, b, n)) {
		*how = "content";
		return e->mime;
	}
	*how = "none";
	return OCTET_STREAM;
}

/* Returns a new file: URI for the absolute path |abs|. */
static char *
file_uri(const char *abs)
{
	static const char hex[] = "0123456789ABCDEF";
	struct tc_buf b;
	const unsigned char *s;
	char esc[3];

	tc_buf_init(&b, 3 * strlen(abs) + 8);
	if (tc_buf_append_str(&b, "file://") != 0)
		return NULL;
	for (s = (const unsigned char *)abs; *s != '\0'; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("/-._~", *s) != NULL) {
			if (tc_buf_append(&b, s, 1) != 0)
				goto fail;
			continue;
		}
		esc[0] = '%';
		esc[1] = hex[*s >> 4];
		esc[2] = hex[*s & 15];
		if (tc_buf_append(&b, esc, 3) != 0)
			goto fail;
	}
	return tc_buf_steal(&b);
fail:
	tc_buf_release(&b);
	return NULL;
}

int
fs_read_media_file(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	size_t cap = (size_t)tc_arg_int(call, "max_bytes", 0);
	const char *mime, *how, *claimed, *kind;
	unsigned char *data = NULL;
	char *b64 = NULL, *uri = NULL;
	size_t len = 0, b64len;
	struct tc_path p;
	struct stat st;
	cJSON *o, *it, *r;
	int fd, rc;

	if ((fd = fs_open_regular(call, user, &p, &st, res)) < 0)
		return 0;
	if ((unsigned long long)st.st_size > cap) {
		close(fd);
		tc_result_error(res, "'%s': too large: %lld bytes, over the "
		    "cap of %zu bytes%s", user, (long long)st.st_size, cap,
		    cap < FS_MEDIA_MAX_BYTES && (unsigned long long)st.st_size
		    <= FS_MEDIA_MAX_BYTES ? "; raise max_bytes to read it" :
		    "; read_media_file reads at most 33554432 bytes");
		goto out;
	}
	rc = fs_read_all(fd, (size_t)st.st_size, cap, (char **)&data, &len);
	close(fd);
	if (rc == TC_ETOOBIG) {
		tc_result_error(res, "'%s': too large: it grew past the cap "
		    "of %zu bytes while it was read", user, cap);
		goto out;
	}
	if (rc != 0) {
		tc_result_error(res, "'%s': read failed: %s", user,
		    rc == TC_ESYS ? strerror(errno) : fs_strerror(rc));
		goto out;
	}
	mime = media_type(user, data, len, &how, &claimed);
	b64len = BASE64_ENCODE_RAW_LENGTH(len);
	if ((b64 = malloc(b64len + 1)) == NULL) {
		tc_result_error(res, "'%s': out of memory", user);
		goto out;
	}
	base64_encode_raw(b64, len, data);
	b64[b64len] = '\0';
	free(data);
	data = NULL;

	/* The body goes once, in its content item; the text and
	 * structuredContent carry only what describes it. */
	if ((res->content = cJSON_CreateArray()) == NULL ||
	    (it = cJSON_CreateObject()) == NULL)
		goto nomem;
	cJSON_AddItemToArray(res->content, it);
	switch (kind_of(mime)) {
	case MEDIA_IMAGE:
	case MEDIA_AUDIO:
		kind = kind_of(mime) == MEDIA_IMAGE ? "image" : "audio";
		cJSON_AddStringToObject(it, "type", kind);
		if (cJSON_AddStringToObject(it, "data", b64) == NULL)
			goto nomem;
		cJSON_AddStringToObject(it, "mimeType", mime);
		break;
	case MEDIA_OTHER:
		kind = "resource";
		if ((uri = file_uri(p.display)) == NULL)
			goto nomem;
		cJSON_AddStringToObject(it, "type", "resource");
		r = cJSON_AddObjectToObject(it, "resource");
		cJSON_AddStringToObject(r, "uri", uri);
		cJSON_AddStringToObject(r, "mimeType", mime);
		if (cJSON_AddStringToObject(r, "blob", b64) == NULL)
			goto nomem;
		break;
	}
	free(b64);
	b64 = NULL;

	/* An image comes without structuredContent: a host that passes on
	 * only the structured half when there is one (Codex) would give
	 * its model the description and not the image.  The text says all
	 * the structured half would (an image's type is always taken from
	 * its content).  Audio and other files keep it: for them such a
	 * host would pass on the base64 itself, as text. */
	o = strcmp(kind, "image") == 0 ? NULL : tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", p.display);
	cJSON_AddStringToObject(o, "mimeType", mime);
	cJSON_AddNumberToObject(o, "size", (double)len);
	cJSON_AddStringToObject(o, "type", kind);
	cJSON_AddStringToObject(o, "detected", how);
	tc_result_shown(res, p.display);
	tc_result_printf(res, ": %s, %zu bytes; %s follows as base64",
	    mime, len, strcmp(kind, "resource") == 0 ?
	    "an embedded resource" : strcmp(kind, "image") == 0 ?
	    "the image" : "the audio");
	if (claimed != NULL && strcmp(claimed, mime) != 0) {
		cJSON_AddStringToObject(o, "extension_type", claimed);
		tc_result_printf(res, " (its name suggests %s, but the "
		    "content %s)", claimed, strcmp(how, "none") == 0 ?
		    "does not match it" : "says otherwise");
	}
	tc_result_printf(res, "\n");
	goto out;
nomem:
	tc_result_error(res, "'%s': out of memory", user);
	cJSON_Delete(res->content);
	res->content = NULL;
out:
	free(uri);
	free(b64);
	free(data);
	tc_path_release(&p);
	return 0;
}

/* --- read_multiple_files --- */

/*
 * Reads one file of a batch into |files| and the text of |res|, as
 * read_text_file would with max_bytes |max_bytes|, taking what it returns
 * from |*left|.  A failure is that file's entry, never the call's.
 * Returns 1 if the file's content was truncated, else 0.
 */
static int
read_one(const struct tc_call *call, const char *user, size_t max_bytes,
    size_t max_total, size_t *left, cJSON *files, struct tc_result *res)
{
	struct tc_result scratch;
	struct tc_buf raw, text;
	struct fs_lines g;
	struct tc_path p;
	struct stat st;
	size_t budget;
	cJSON *o;
	int fd, rc, bad;

	if ((o = cJSON_CreateObject()) == NULL)
		return 0;
	cJSON_AddItemToArray(files, o);
	cJSON_AddStringToObject(o, "path", user);

	/* fs_open_regular() words its refusal as a tool error; here it is
	 * only this file's. */
	tc_result_init(&scratch);
	fd = fs_open_regular(call, user, &p, &st, &scratch);
	if (fd < 0) {
		const char *msg = scratch.text.data ? scratch.text.data :
		    "cannot be read";

		cJSON_AddStringToObject(o, "error", msg);
		cJSON_AddFalseToObject(o, "truncated");
		tc_result_shown(res, user);
		tc_result_printf(res, ": Error - %s", msg);
		tc_result_release(&scratch);
		return 0;
	}
	tc_result_release(&scratch);

	budget = max_bytes < *left ? max_bytes : *left;
	tc_buf_init(&raw, budget);
	tc_buf_init(&text, 0);
	memset(&g, 0, sizeof(g));
	if (budget > 0)
		rc = fs_read_lines(fd, budget, &raw, &g);
	else {
		/* The batch's cap is spent: nothing of this file is read,
		 * and it continues from its first line. */
		rc = 0;
		g.truncated = st.st_size > 0;
	}
	close(fd);
	if (rc != 0) {
		char msg[512];

		tc_text_fmt(msg, sizeof(msg), "'%s': read failed: %s", user,
		    rc == TC_ESYS ? strerror(errno) : fs_strerror(rc));
		cJSON_AddStringToObject(o, "error", msg);
		cJSON_AddFalseToObject(o, "truncated");
		tc_result_shown(res, user);
		tc_result_printf(res, ": Error - ");
		tc_result_shown(res, msg);
		goto out;
	}
	*left -= raw.len;
	bad = !tc_utf8_valid(raw.data ? raw.data : "", raw.len);
	/* Each bad byte becomes three: the cap allows for it. */
	tc_buf_init(&text, 3 * raw.len + 1);
	if (tc_buf_append_utf8(&text, raw.data ? raw.data : "",
	    raw.len) != 0) {
		cJSON_AddStringToObject(o, "error", "out of memory");
		cJSON_AddFalseToObject(o, "truncated");
		tc_result_shown(res, user);
		tc_result_printf(res, ": Error - out of memory");
		goto out;
	}
	cJSON_AddStringToObject(o, "resolved", p.display);
	cJSON_AddStringToObject(o, "content", text.data ? text.data : "");
	cJSON_AddNumberToObject(o, "size", (double)st.st_size);
	cJSON_AddNumberToObject(o, "lines", (double)g.lines);
	/* As read_text_file: truncated exactly when it has a next_offset. */
	cJSON_AddBoolToObject(o, "truncated", g.truncated || g.more);
	if (g.truncated || g.more)
		cJSON_AddNumberToObject(o, "next_offset", (double)g.lines);
	if (bad)
		cJSON_AddTrueToObject(o, "invalid_utf8");

	tc_result_shown(res, user);
	tc_result_printf(res, ":\n");
	tc_result_text(res, text.data ? text.data : "", text.len);
	tc_result_printf(res, "\n");
	if (g.truncated) {
		if (budget < max_bytes)
			tc_result_printf(res, "[truncated: the batch's cap "
			    "max_total_bytes=%zu was reached", max_total);
		else
			tc_result_printf(res, "[truncated at max_bytes=%zu",
			    max_bytes);
		tc_result_printf(res, "; %llu line%s returned%s; call "
		    "read_text_file with offset=%llu to continue]\n", g.lines,
		    g.lines == 1 ? "" : "s", g.cut_line ? ", a line longer "
		    "than the cap was cut" : "", g.lines);
	}
	if (bad)
		tc_result_printf(res, "[bytes that are not UTF-8 were "
		    "replaced by U+FFFD; read_media_file returns the exact "
		    "bytes]\n");
out:
	tc_buf_release(&text);
	tc_buf_release(&raw);
	tc_path_release(&p);
	return g.truncated;
}

int
fs_read_multiple_files(const struct tc_call *call, struct tc_result *res)
{
	const cJSON *paths = tc_arg_json(call, "paths"), *it;
	size_t max_bytes = (size_t)tc_arg_int(call, "max_bytes", 0);
	size_t max_total = (size_t)tc_arg_int(call, "max_total_bytes", 0);
	size_t left = max_total, nerr = 0, n = 0;
	int truncated = 0;
	cJSON *o, *files, *f;

	if (cJSON_GetArraySize(paths) == 0)
		return tc_result_error(res, "argument 'paths': give at least "
		    "one path");
	o = tc_result_obj(res);
	if ((files = cJSON_AddArrayToObject(o, "files")) == NULL)
		return TC_ENOMEM;
	cJSON_ArrayForEach(it, paths) {
		if (n++ > 0)
			tc_result_printf(res, "\n---\n");
		truncated |= read_one(call, it->valuestring, max_bytes,
		    max_total, &left, files, res);
	}
	cJSON_ArrayForEach(f, files)
		if (cJSON_GetObjectItemCaseSensitive(f, "error") != NULL)
			nerr++;
	cJSON_AddBoolToObject(o, "truncated", truncated);
	cJSON_AddNumberToObject(o, "bytes", (double)(max_total - left));
	cJSON_AddNumberToObject(o, "errors", (double)nerr);
	return 0;
}

/* --- list_directory_with_sizes --- */

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct fs_entry *)a)->name,
	    ((const struct fs_entry *)b)->name);
}

/* Largest files first; entries without a size after them, by name. */
static int
cmp_size(const void *a, const void *b)
{
	const struct fs_entry *x = a, *y = b;

	if (x->has_size != y->has_size)
		return x->has_size ? -1 : 1;
	if (x->has_size && x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const char *
sized_tag(int t)
{
	switch (t) {
	case DT_REG:	return "[FILE]";
	case DT_DIR:	return "[DIR] ";
	case DT_LNK:	return "[LINK]";
	default:	return "[OTHER]";
	}
}

/* Formats |n| bytes for people: "512 B", "1.2 KB" (units of 1024). */
static void
human_size(unsigned long long n, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KB", "MB", "GB", "TB",
	    "PB", "EB" };
	double v = (double)n;
	size_t i = 0;

	if (n < 1024) {
		snprintf(buf, len, "%llu B", n);
		return;
	}
	while (v >= 1024 && i + 1 < TC_NITEMS(unit)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[i]);
}

/*
 * Lists a directory with the size of each regular file, as
 * list_directory does: denied entries are left out before they are even
 * stat'ed, are not counted in the totals, and take no place in the order
 * offset pages through.  Entries are stat'ed without following symbolic
 * links, so a link has no size here: following it could name a file
 * outside the root or one the deny rules refuse.  The totals cover the
 * whole directory, not only the page.
 */
int
fs_list_directory_with_sizes(const struct tc_call *call,
    struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	const char *sort_by = tc_arg_str(call, "sortBy");
	size_t offset = (size_t)tc_arg_int(call, "offset", 0);
	size_t limit = (size_t)tc_arg_int(call, "limit", 0);
	size_t n, i, end, nfiles = 0, ndirs = 0, nother = 0;
	unsigned long long total_size = 0;
	struct fs_entry *v;
	struct fs_dir d;
	struct tc_buf arr;
	cJSON *o;
	char hs[32], line[FS_LINE_NAME_MAX];
	int by_size, rc;

	by_size = sort_by != NULL && strcmp(sort_by, "size") == 0;
	if (fs_read_dir(call, user, 1, &d, res) != 0)
		return 0;
	v = d.v;
	n = d.n;
	for (i = 0; i < n; i++) {
		switch (v[i].type) {
		case DT_REG:
			nfiles++;
			total_size += v[i].size;
			break;
		case DT_DIR:
			ndirs++;
			break;
		default:
			nother++;
			break;
		}
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), by_size ? cmp_size : cmp_name);
	end = offset >= n ? n : (n - offset > limit ? offset + limit : n);
	tc_buf_init(&arr, TC_RESULT_TEXT_MAX);
	rc = fs_entries_json(&arr, v, offset, end, 0);
	for (i = offset; i < end && rc == 0; i++) {
		if (v[i].has_size) {
			human_size(v[i].size, hs, sizeof(hs));
			rc = tc_result_printf(res, "%s %-30s %10s\n",
			    sized_tag(v[i].type), fs_line_name(v[i].name,
			    line, sizeof(line)), hs);
		} else
			rc = tc_result_printf(res, "%s %s\n",
			    sized_tag(v[i].type), fs_line_name(v[i].name,
			    line, sizeof(line)));
	}
	if (rc != 0) {
		tc_result_error(res, "'%s': too many entries to list; use a "
		    "lower limit", user);
		goto out;
	}
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", d.path.display);
	cJSON_AddStringToObject(o, "sortBy", by_size ? "size" : "name");
	cJSON_AddItemToObject(o, "entries", tc_json_raw_take(&arr));
	cJSON_AddNumberToObject(o, "total", (double)n);
	cJSON_AddNumberToObject(o, "files", (double)nfiles);
	cJSON_AddNumberToObject(o, "directories", (double)ndirs);
	cJSON_AddNumberToObject(o, "others", (double)nother);
	cJSON_AddNumberToObject(o, "total_size", (double)total_size);
	cJSON_AddBoolToObject(o, "truncated", end < n || !d.complete);
	if (end < n)
		cJSON_AddNumberToObject(o, "next_offset", (double)end);
	if (n == 0)
		tc_result_printf(res, "(no entries)\n");
	human_size(total_size, hs, sizeof(hs));
	tc_result_printf(res, "\nTotal: %zu file%s, %zu director%s", nfiles,
	    nfiles == 1 ? "" : "s", ndirs, ndirs == 1 ? "y" : "ies");
	if (nother > 0)
		tc_result_printf(res, ", %zu other%s", nother,
		    nother == 1 ? "" : "s");
	tc_result_printf(res, "\nCombined size: %s (%llu bytes)\n", hs,
	    total_size);
	if (end < n)
		tc_result_printf(res, "[entries %zu-%zu of %zu shown; call "
		    "list_directory_with_sizes again with offset=%zu and "
		    "sortBy=%s to continue]\n", offset + 1, end, n, end,
		    by_size ? "size" : "name");
	if (!d.complete)
		tc_result_printf(res, "[the directory has more than %u "
		    "entries; only the first %u read were sorted and "
		    "counted]\n", FS_LIST_SCAN_MAX, FS_LIST_SCAN_MAX);
out:
	tc_buf_release(&arr);	/* empty once the entries were taken */
	fs_dir_release(&d);
	return 0;
}
