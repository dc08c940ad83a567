/*
 * fs_tools.c: toolcell-fs's handlers.  They run in the confined child; every
 * path goes through tc_path_map() and tc_path_open(): an openat2() beneath
 * its root, with the policy's deny rules checked on the path as given and
 * on the file opened.  Listings leave denied entries out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "base/json.h"
#include "policy/glob.h"
#include "policy/own.h"
#include "policy/path.h"
#include "policy/policy.h"

#define CHUNK		(64u << 10)
#define COUNT_BUDGET	(64ull << 20)	/* bytes scanned just to count lines */

const char *
fs_mode_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:	return "file";
	case S_IFDIR:	return "directory";
	case S_IFLNK:	return "symlink";
	case S_IFIFO:	return "fifo";
	case S_IFSOCK:	return "socket";
	case S_IFCHR:	return "char-device";
	case S_IFBLK:	return "block-device";
	default:	return "other";
	}
}

/*
 * Opens the mapped path |p| with |flags| for reading, deny rules and all;
 * on failure makes |res| a tool error naming |user| and returns -1 with
 * errno kept.
 */
static int
open_mapped(const struct tc_call *call, const char *user, int flags,
    struct tc_path *p, struct tc_result *res)
{
	struct tc_diag d TC_UNINIT;
	int fd, saved;

	tc_diag_init(&d);
	if ((fd = tc_path_open(call->policy, p, flags, 0,
	    TC_ACCESS_READ)) < 0) {
		saved = errno;
		tc_path_open_error(&d, p, user, saved);
		tc_result_error(res, "%s", d.msg);
		errno = saved;
		return -1;
	}
	return fd;
}

/*
 * Maps and opens |user| with |flags| for reading; on failure makes |res| a
 * tool error and returns -1.  |p| is filled on success; the caller
 * releases it.
 */
static int
open_user_path(const struct tc_call *call, const char *user, int flags,
    struct tc_path *p, struct tc_result *res)
{
	struct tc_diag d TC_UNINIT;
	int fd, saved, rc;

	tc_diag_init(&d);
	if ((rc = tc_path_map(call->policy, user, p, &d)) != 0) {
		fs_map_error(call, rc, &d, res);
		return -1;
	}
	if ((fd = open_mapped(call, user, flags, p, res)) < 0) {
		saved = errno;
		tc_path_release(p);
		/* The caller may refine the message by the open's errno,
		 * unless a deny rule refused it. */
		errno = saved;
		return -1;
	}
	return fd;
}

/*
 * Opens a regular file for reading without ever blocking on a FIFO or
 * opening a device: the path is first opened O_PATH and checked, then
 * reopened, and the two must be the same file.
 */
static int
open_regular(const struct tc_call *call, const char *user, struct tc_path *p,
    struct stat *st, struct tc_result *res)
{
	struct stat st2;
	int pfd, fd;

	if ((pfd = open_user_path(call, user, O_PATH, p, res)) < 0)
		return -1;
	if (fstat(pfd, st) != 0) {
		tc_result_error(res, "'%s': %s", user, strerror(errno));
		goto fail;
	}
	close(pfd);
	pfd = -1;
	if (S_ISDIR(st->st_mode)) {
		tc_result_error(res, "'%s': is a directory; use "
		    "list_directory", user);
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		tc_result_error(res, "'%s': not a regular file (it is a %s)",
		    user, fs_mode_name(st->st_mode));
		goto fail;
	}
	/* Opened a second time, checked a second time: the path may have
	 * changed in between. */
	if ((fd = open_mapped(call, user, O_RDONLY | O_NONBLOCK | O_NOCTTY,
	    p, res)) < 0)
		goto fail;
	if (fstat(fd, &st2) != 0 || st2.st_dev != st->st_dev ||
	    st2.st_ino != st->st_ino || !S_ISREG(st2.st_mode)) {
		close(fd);
		tc_result_error(res, "'%s': changed while it was opened; try "
		    "again", user);
		goto fail;
	}
	*st = st2;
	return fd;
fail:
	if (pfd >= 0)
		close(pfd);
	tc_path_release(p);
	return -1;
}

const char *
fs_strerror(int rc)
{
	return rc == TC_EOUTSIDE ? "outside the allowed directories" :
	    tc_strerror(rc);
}

int
fs_map_error(const struct tc_call *call, int rc, const struct tc_diag *d,
    struct tc_result *res)
{
	char note[1024];

	/* A path refused for where it lies may be refused because of the
	 * client's roots: say what they were and what they left. */
	if (rc == TC_EOUTSIDE && *tc_policy_roots_note(call->policy, note,
	    sizeof(note)) != '\0')
		return tc_result_error(res, "%s. %s", d->msg, note);
	return tc_result_error(res, "%s", d->msg);
}

/* --- list_allowed_directories --- */

int
fs_list_allowed_directories(const struct tc_call *call, struct tc_result *res)
{
	static const char *const state[] = {
		[TC_ROOTS_OWN] = "policy",
		[TC_ROOTS_NARROWED] = "narrowed",
		[TC_ROOTS_KEPT] = "policy",
		[TC_ROOTS_EMPTY] = "none",
	};
	const struct tc_policy *pol = call->policy;
	cJSON *dirs, *o, *cr;
	char note[1024];
	size_t i;

	dirs = cJSON_AddArrayToObject(tc_result_obj(res), "directories");
	if (dirs == NULL)
		return TC_ENOMEM;
	tc_result_printf(res, pol->nroots > 0 ? "Allowed directories:\n" :
	    "Allowed directories: none\n");
	for (i = 0; i < pol->nroots; i++) {
		const struct tc_root *r = &pol->roots[i];
		const char *access = (r->flags & TC_ROOT_WRITE) ?
		    "read-write" : "read-only";

		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", r->path);
		cJSON_AddStringToObject(o, "access", access);
		cJSON_AddItemToArray(dirs, o);
		tc_result_shown(res, r->path);
		tc_result_printf(res, " (%s)\n", access);
	}
	/* Which directories are served is the client's doing as much as
	 * the policy's: say how, in both halves of the answer, since hosts
	 * pass on one or the other. */
	if (*tc_policy_roots_note(pol, note, sizeof(note)) == '\0')
		return 0;
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "served", state[pol->roots_state]);
	cr = cJSON_AddArrayToObject(o, "client_roots");
	for (i = 0; cr != NULL && i < pol->nclient_roots; i++)
		cJSON_AddItemToArray(cr,
		    cJSON_CreateString(pol->client_roots[i]));
	cJSON_AddStringToObject(o, "note", note);
	tc_result_printf(res, "%s\n", note);
	return 0;
}

/* --- read_text_file --- */

struct reader {
	int		 fd;
	char		*buf;
	size_t		 len, pos;
	uint64_t	 off;		/* file offset of buf[0] */
	int		 eof;
};

/* Makes sure buf[pos] is valid; returns 0 at end of file, 1, or -1. */
static int
fill(struct reader *r)
{
	ssize_t n;

	if (r->pos < r->len)
		return 1;
	if (r->eof)
		return 0;
	r->off += r->len;
	r->pos = r->len = 0;
	do
		n = read(r->fd, r->buf, CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n == 0) {
		r->eof = 1;
		return 0;
	}
	r->len = (size_t)n;
	return 1;
}

struct range {
	uint64_t	 start_line;	/* 0-based */
	uint64_t	 lines;
	uint64_t	 total_lines;
	int		 total_known;
	int		 truncated;	/* cut by max_bytes */
	int		 more;		/* lines remain after the range */
	int		 cut_line;	/* a single line was cut */
};

/* Counts the newlines left in |r|, up to a budget; returns 0 or -1. */
static int
count_rest(struct reader *r, struct range *g, int ended_mid_line)
{
	uint64_t scanned = 0;
	const char *p, *e;
	int k, mid = ended_mid_line;

	while ((k = fill(r)) > 0) {
		if (scanned > COUNT_BUDGET)
			return 0;
		p = r->buf + r->pos;
		e = r->buf + r->len;
		while (p < e && (p = memchr(p, '\n', (size_t)(e - p)))) {
			g->total_lines++;
			p++;
		}
		mid = r->buf[r->len - 1] != '\n';
		scanned += r->len - r->pos;
		r->pos = r->len;
	}
	if (k < 0)
		return -1;
	if (mid)
		g->total_lines++;
	g->total_known = 1;
	return 0;
}

static int
read_forward(int fd, uint64_t skip, uint64_t limit, size_t max_bytes,
    struct tc_buf *out, struct range *g)
{
	struct reader r = { fd, NULL, 0, 0, 0, 0 };
	const char *p, *nl;
	size_t n, avail, line_start = 0;
	int k, mid = 0, rc = 0;

	memset(g, 0, sizeof(*g));
	if ((r.buf = malloc(CHUNK)) == NULL)
		return TC_ENOMEM;
	g->start_line = skip;
	/* Skip whole lines. */
	while (g->total_lines < skip && (k = fill(&r)) > 0) {
		p = r.buf + r.pos;
		avail = r.len - r.pos;
		if ((nl = memchr(p, '\n', avail)) != NULL) {
			r.pos += (size_t)(nl - p) + 1;
			g->total_lines++;
			mid = 0;
		} else {
			r.pos = r.len;
			mid = 1;
		}
	}
	if (g->total_lines < skip) {
		/* Past the end: a last line without a newline counts. */
		if (mid)
			g->total_lines++;
		g->total_known = 1;
		goto out;
	}
	/* Take lines while they fit. */
	while (g->lines < limit && (k = fill(&r)) > 0) {
		p = r.buf + r.pos;
		avail = r.len - r.pos;
		nl = memchr(p, '\n', avail);
		n = nl ? (size_t)(nl - p) + 1 : avail;
		if (!mid)
			line_start = out->len;
		if (out->len + n > max_bytes) {
			if (g->lines > 0) {
				/* Whole lines only: drop the part of this
				 * line taken from an earlier chunk. */
				out->len = line_start;
				out->data[out->len] = '\0';
				mid = 0;
			} else {
				/* One line longer than the cap: cut it at a
				 * character boundary. */
				n = tc_utf8_cut(p, n, max_bytes - out->len);
				if ((rc = tc_buf_append(out, p, n)) != 0)
					goto out;
				r.pos += n;
				g->lines++;
				g->cut_line = 1;
				mid = 0;
				/* Skip the rest of the cut line. */
				while ((k = fill(&r)) > 0) {
					p = r.buf + r.pos;
					nl = memchr(p, '\n', r.len - r.pos);
					if (nl != NULL) {
						r.pos += (size_t)(nl - p) + 1;
						break;
					}
					r.pos = r.len;
				}
				g->total_lines++;
			}
			g->truncated = 1;
			break;
		}
		if ((rc = tc_buf_append(out, p, n)) != 0)
			goto out;
		r.pos += n;
		if (nl != NULL) {
			mid = 0;
			g->lines++;
			g->total_lines++;
		} else
			mid = 1;
	}
	if (mid) {
		/* The chunk ended inside a line: finish it, or it was the
		 * file's last line without a newline. */
		if (fill(&r) <= 0) {
			g->lines++;
			g->total_lines++;
			mid = 0;
		}
	}
	if (fill(&r) > 0)
		g->more = 1;
	if (count_rest(&r, g, 0) != 0)
		rc = TC_ESYS;
out:
	free(r.buf);
	return rc;
}

/*
 * Finds where the last |n| lines of |fd| (|size| bytes) start.  A newline
 * that ends the file does not start another line.
 */
static int
find_tail(int fd, uint64_t size, uint64_t n, uint64_t *start)
{
	char *buf;
	uint64_t pos = size, seen = 0;
	ssize_t got;
	size_t len, i;
	int first = 1;

	*start = 0;
	if (size == 0 || n == 0) {
		*start = size;
		return 0;
	}
	if ((buf = malloc(CHUNK)) == NULL)
		return TC_ENOMEM;
	while (pos > 0) {
		len = pos > CHUNK ? CHUNK : (size_t)pos;
		pos -= len;
		got = pread(fd, buf, len, (off_t)pos);
		if (got != (ssize_t)len) {
			free(buf);
			return TC_ESYS;
		}
		for (i = len; i-- > 0;) {
			if (buf[i] != '\n')
				continue;
			if (first && pos + i == size - 1) {
				first = 0;
				continue;
			}
			if (++seen == n) {
				*start = pos + i + 1;
				free(buf);
				return 0;
			}
		}
		first = 0;
	}
	free(buf);
	return 0;
}

static int
read_tail(int fd, uint64_t size, uint64_t n, size_t max_bytes,
    struct tc_buf *out, struct range *g)
{
	uint64_t start, len;
	const char *nl;
	char *buf, before;
	ssize_t got;
	size_t off = 0, i;
	int rc;

	memset(g, 0, sizeof(*g));
	if ((rc = find_tail(fd, size, n, &start)) != 0)
		return rc;
	len = size - start;
	if (len > max_bytes) {
		/* Keep whole lines from the end where possible. */
		g->truncated = 1;
		start = size - max_bytes;
		len = max_bytes;
	}
	if ((buf = malloc(len + 1)) == NULL)
		return TC_ENOMEM;
	got = pread(fd, buf, len, (off_t)start);
	if (got != (ssize_t)len) {
		free(buf);
		return TC_ESYS;
	}
	/* Cut inside a line, unless the byte before the cut is a newline:
	 * then what was read is whole lines already. */
	if (g->truncated && (pread(fd, &before, 1, (off_t)start - 1) != 1 ||
	    before != '\n')) {
		nl = memchr(buf, '\n', len);
		if (nl != NULL && (size_t)(nl - buf) + 1 < len)
			off = (size_t)(nl - buf) + 1;
		else {
			while (off < len && off < 3 &&
			    ((unsigned char)buf[off] & 0xc0) == 0x80)
				off++;
			g->cut_line = 1;
		}
	}
	rc = tc_buf_append(out, buf + off, len - off);
	for (i = off; i < len; i++)
		if (buf[i] == '\n')
			g->lines++;
	if (len > off && buf[len - 1] != '\n')
		g->lines++;
	free(buf);
	if (rc != 0)
		return rc;
	/* The line numbers need a count of the whole file. */
	if (size <= COUNT_BUDGET) {
		struct range all;
		struct tc_buf none;

		tc_buf_init(&none, 0);
		if (lseek(fd, 0, SEEK_SET) == 0 &&
		    read_forward(fd, UINT64_MAX, 0, 0, &none, &all) == 0 &&
		    all.total_known) {
			g->total_known = 1;
			g->total_lines = all.total_lines;
			g->start_line = all.total_lines > g->lines ?
			    all.total_lines - g->lines : 0;
		}
	}
	return 0;
}

int
fs_read_text_file(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	int has_head = tc_arg_has(call, "head"), has_tail = tc_arg_has(call,
	    "tail"), has_off = tc_arg_has(call, "offset"), has_lim =
	    tc_arg_has(call, "limit");
	size_t max_bytes = (size_t)tc_arg_int(call, "max_bytes", 0), asked;
	size_t json;
	uint64_t skip, limit;
	struct tc_buf body;
	struct tc_path p;
	struct range g;
	struct stat st;
	cJSON *o;
	int fd, rc, bad, paged, pass = 0;

	if (has_head && has_tail)
		return tc_result_error(res, "give head or tail, not both");
	if (has_head && has_lim)
		return tc_result_error(res, "give head or limit, not both");
	if (has_tail && (has_off || has_lim))
		return tc_result_error(res, "tail cannot be combined with "
		    "offset or limit");
	if ((fd = open_regular(call, user, &p, &st, res)) < 0)
		return 0;
	asked = max_bytes;
	if (max_bytes > FS_READ_PAGE_BYTES)
		max_bytes = FS_READ_PAGE_BYTES;
	skip = (uint64_t)tc_arg_int(call, "offset", 0);
	limit = has_head ? (uint64_t)tc_arg_int(call, "head", 0) :
	    has_lim ? (uint64_t)tc_arg_int(call, "limit", 0) : UINT64_MAX;
	tc_buf_init(&body, max_bytes);
	for (;;) {
		if (has_tail)
			rc = read_tail(fd, (uint64_t)st.st_size,
			    (uint64_t)tc_arg_int(call, "tail", 0), max_bytes,
			    &body, &g);
		else
			rc = read_forward(fd, skip, limit, max_bytes, &body,
			    &g);
		if (rc != 0)
			break;
		bad = !tc_utf8_valid(body.data ? body.data : "", body.len);
		tc_result_text(res, body.data ? body.data : "", body.len);
		/* Text that escapes to more than a page (quotes, controls,
		 * bytes replaced by U+FFFD) is read again with a smaller cap:
		 * once scaled by how much it grew, then, if that is still too
		 * much, small enough for the worst case, six bytes written
		 * for each byte read. */
		json = tc_json_string_len(res->text.data ? res->text.data :
		    "", res->text.len);
		if (json <= FS_READ_PAGE_JSON)
			break;
		if (++pass < 2)
			max_bytes = (size_t)((unsigned long long)max_bytes *
			    (FS_READ_PAGE_JSON - FS_READ_PAGE_JSON / 8) / json);
		else
			max_bytes = (FS_READ_PAGE_JSON - 2) / 6;
		if (max_bytes == 0)
			max_bytes = 1;
		tc_buf_reset(&res->text);
		tc_buf_release(&body);
		tc_buf_init(&body, max_bytes);
		if (lseek(fd, 0, SEEK_SET) != 0) {
			rc = TC_ESYS;
			break;
		}
	}
	close(fd);
	if (rc != 0) {
		tc_result_error(res, "'%s': read failed: %s", user,
		    rc == TC_ESYS ? strerror(errno) : fs_strerror(rc));
		goto out;
	}
	paged = g.truncated && max_bytes < asked;
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", p.display);
	/* The body goes in both places, at every size, because hosts
	 * differ in which they pass on to the model (Claude Desktop the
	 * text; Claude Code and Codex the structured content, when there is
	 * one): a page bounds what that costs (FS_READ_PAGE_BYTES). */
	cJSON_AddStringToObject(o, "content", res->text.data ?
	    res->text.data : "");
	cJSON_AddNumberToObject(o, "size", (double)st.st_size);
	if (!has_tail || g.total_known)
		cJSON_AddNumberToObject(o, "start_line",
		    (double)g.start_line);
	cJSON_AddNumberToObject(o, "lines", (double)g.lines);
	if (g.total_known)
		cJSON_AddNumberToObject(o, "total_lines",
		    (double)g.total_lines);
	/* A read that stops before the end of the file, by max_bytes,
	 * head or limit, is truncated and says where to continue; a tail
	 * is truncated only when max_bytes cut lines off its start, and
	 * what is missing then lies before it. */
	cJSON_AddBoolToObject(o, "truncated", g.truncated ||
	    (!has_tail && g.more));
	if (!has_tail && (g.truncated || g.more))
		cJSON_AddNumberToObject(o, "next_offset",
		    (double)(g.start_line + g.lines));
	if (bad)
		cJSON_AddTrueToObject(o, "invalid_utf8");
	if (g.truncated) {
		char note[320], more[96], cap[96];

		if (has_tail)
			snprintf(more, sizeof(more), paged ? "read the lines "
			    "before them with offset and limit" :
			    "raise max_bytes for more");
		else
			tc_text_fmt(more, sizeof(more), "call read_text_file "
			    "again with offset=%llu to continue",
			    (unsigned long long)(g.start_line + g.lines));
		if (paged)
			tc_text_fmt(cap, sizeof(cap), "%zu bytes, the most one "
			    "call returns", max_bytes);
		else
			tc_text_fmt(cap, sizeof(cap), "max_bytes=%zu",
			    max_bytes);
		tc_text_fmt(note, sizeof(note), "[truncated at %s: "
		    "%llu line%s returned%s; %s]", cap,
		    (unsigned long long)g.lines, g.lines == 1 ? "" : "s",
		    g.cut_line ? ", a line longer than the cap was cut" : "",
		    more);
		res->content = cJSON_CreateArray();
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "text");
		cJSON_AddStringToObject(o, "text", note);
		cJSON_AddItemToArray(res->content, o);
	}
out:
	tc_buf_release(&body);
	tc_path_release(&p);
	return 0;
}

/* --- list_directory --- */

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct fs_entry *)a)->name,
	    ((const struct fs_entry *)b)->name);
}

const char *
fs_dtype_name(int t)
{
	switch (t) {
	case DT_REG:	return "file";
	case DT_DIR:	return "directory";
	case DT_LNK:	return "symlink";
	default:	return "other";
	}
}

static const char *
dt_tag(int t)
{
	switch (t) {
	case DT_REG:	return "[FILE]";
	case DT_DIR:	return "[DIR]";
	case DT_LNK:	return "[LINK]";
	default:	return "[OTHER]";
	}
}

const char *
fs_line_name(const char *name, char *buf, size_t len)
{
	const unsigned char *p;

	/* Most names need nothing: returned as they are. */
	for (p = (const unsigned char *)name; *p >= 0x20 && *p < 0x7f; p++)
		continue;
	if (*p == '\0' || len == 0)
		return name;
	return tc_text_show(buf, len, name, 0);
}

int
fs_entries_json(struct tc_buf *b, const struct fs_entry *v, size_t from,
    size_t to, int bare)
{
	size_t i;
	int rc;

	/* Written as JSON text straight away, sized once: thousands of
	 * entries as cJSON items, or a buffer grown by copies, would cost
	 * more than reading the directory. */
	if ((rc = tc_buf_reserve(b, (to > from ? to - from : 0) * 64 + 2)) ||
	    (rc = tc_buf_append(b, "[", 1)) != 0)
		return rc;
	for (i = from; i < to && rc == 0; i++) {
		if (bare && v[i].type == DT_REG && !v[i].has_size) {
			if (i == from || (rc = tc_buf_append(b, ",", 1)) == 0)
				rc = tc_json_put_string(b, v[i].name,
				    strlen(v[i].name));
			continue;
		}
		if ((rc = tc_buf_append_str(b, i > from ? ",{\"name\":" :
		    "{\"name\":")) == 0 &&
		    (rc = tc_json_put_string(b, v[i].name,
		    strlen(v[i].name))) == 0 &&
		    (rc = tc_buf_append_str(b, ",\"type\":\"")) == 0 &&
		    (rc = tc_buf_append_str(b, fs_dtype_name(v[i].type))) == 0)
			rc = tc_buf_append(b, "\"", 1);
		if (rc == 0 && v[i].has_size)
			rc = tc_buf_printf(b, ",\"size\":%llu", v[i].size);
		if (rc == 0)
			rc = tc_buf_append(b, "}", 1);
	}
	return rc != 0 ? rc : tc_buf_append(b, "]", 1);
}

struct dirent64 *
fs_dents_next(struct fs_dents *d)
{
	struct dirent64 *de;

	for (;;) {
		if (d->off >= d->got) {
			d->off = 0;
			if ((d->got = getdents64(d->fd, d->buf, FS_DENTS)) <= 0) {
				d->err = d->got < 0 ? errno : 0;
				d->got = 0;
				return NULL;
			}
		}
		de = (struct dirent64 *)(void *)(d->buf + d->off);
		d->off += de->d_reclen;
		if (de->d_name[0] != '.' || (de->d_name[1] != '\0' &&
		    (de->d_name[1] != '.' || de->d_name[2] != '\0')))
			return de;
	}
}

void
fs_dir_release(struct fs_dir *d)
{
	free(d->v);
	free(d->names);
	d->v = NULL;
	d->names = NULL;
	d->n = 0;
	tc_path_release(&d->path);
}

/*
 * Reads the entries of directory |user|.  Entries a deny rule refuses for
 * reading are left out before anything else is done with them (not even
 * stat'ed): they are not named, not counted, and take no place in any
 * order built on the result, so that it reveals nothing about them.  The
 * scan cap (FS_LIST_SCAN_MAX) counts the entries kept, for the same
 * reason.  With |sizes|, regular files are stat'ed (never following a
 * link: a link's target could be outside the root or denied).
 */
int
fs_read_dir(const struct tc_call *call, const char *user, int sizes,
    struct fs_dir *out, struct tc_result *res)
{
	struct tc_where where = { NULL, NULL };
	const struct tc_deny *rule;
	struct tc_deny_dir dd;
	struct fs_entry *v = NULL, *nv, *e;
	struct fs_dents it = { -1, NULL, 0, 0, 0 };
	struct dirent64 *de;
	struct tc_buf names;
	struct stat st;
	size_t cap = 0, i;
	const char *why;
	int fd, deny, byino;

	memset(out, 0, sizeof(*out));
	out->complete = 1;
	if ((fd = open_user_path(call, user, O_RDONLY | O_DIRECTORY,
	    &out->path, res)) < 0) {
		if (errno == ENOTDIR)
			tc_result_error(res, "'%s': not a directory", user);
		return -1;
	}
	/* Where the directory really is, to name its entries for the deny
	 * rules. */
	if ((deny = tc_deny_any(call->policy, TC_ACCESS_READ)) &&
	    tc_path_where(call->policy, out->path.root, fd, &where,
	    &why) != 0) {
		close(fd);
		tc_path_release(&out->path);
		if (errno == ENOMEM)
			return tc_result_error(res, "'%s': out of memory",
			    user), -1;
		return tc_result_error(res, "'%s': cannot be checked against "
		    "the deny rules: %s", user, why), -1;
	}
	it.fd = fd;
	if ((it.buf = malloc(FS_DENTS)) == NULL || (deny &&
	    tc_deny_dir_init(&dd, call->policy, where.abs, where.rel,
	    TC_ACCESS_READ) != 0)) {
		free(it.buf);
		close(fd);
		tc_where_release(&where);
		tc_path_release(&out->path);
		return tc_result_error(res, "'%s': out of memory", user), -1;
	}
	/* The names go into one block: a strdup() per entry cost more than
	 * the rest of a large listing's work. */
	tc_buf_init(&names, SIZE_MAX / 2);
	byino = call->policy->nown > 0 && tc_own_dir_exact(fd);
	while ((de = fs_dents_next(&it)) != NULL) {
		if (deny && tc_path_dir_entry_denied(&dd, &where, de->d_name,
		    &rule))
			continue;
		/* The server's own files, by identity (own.h). */
		if (call->policy->nown > 0 && tc_own_entry(call->policy, fd,
		    de->d_name, byino ? de->d_ino : 0) != NULL)
			continue;
		if (out->n == FS_LIST_SCAN_MAX) {
			out->complete = 0;
			break;
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				goto nomem;
			v = nv;
		}
		e = &v[out->n];
		memset(e, 0, sizeof(*e));
		e->type = de->d_type;
		if ((de->d_type == DT_UNKNOWN || (sizes &&
		    de->d_type == DT_REG)) && fstatat(fd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0) {
			e->type = IFTODT(st.st_mode);
			if (sizes && S_ISREG(st.st_mode)) {
				e->has_size = 1;
				e->size = (unsigned long long)st.st_size;
			}
		}
		e->off = names.len;
		if (tc_buf_append_utf8(&names, de->d_name,
		    strlen(de->d_name)) != 0 ||
		    tc_buf_append(&names, "", 1) != 0)
			goto nomem;
		out->n++;
	}
	if (it.err != 0) {
		tc_result_error(res, "'%s': cannot be read: %s", user,
		    strerror(it.err));
		goto fail;
	}
	/* The block holds them all now: offsets become pointers. */
	for (i = 0; i < out->n; i++)
		v[i].name = names.data + v[i].off;
	free(it.buf);
	close(fd);
	if (deny)
		tc_deny_dir_release(&dd);
	tc_where_release(&where);
	out->v = v;
	out->names = names.data;
	return 0;
nomem:
	tc_result_error(res, "'%s': too many entries to list", user);
fail:
	free(v);
	out->n = 0;
	tc_buf_release(&names);
	free(it.buf);
	close(fd);
	if (deny)
		tc_deny_dir_release(&dd);
	tc_where_release(&where);
	tc_path_release(&out->path);
	return -1;
}

/*
 * Lists a directory in name order (see fs_read_dir() for what is left
 * out).  offset and next_offset page through the listing of a directory
 * without its denied entries; one whose entries are all denied lists as
 * "(no entries)".
 */
int
fs_list_directory(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	size_t offset = (size_t)tc_arg_int(call, "offset", 0);
	size_t limit = (size_t)tc_arg_int(call, "limit", 0);
	struct fs_dir d;
	struct tc_buf arr;
	size_t i, end, n, shown;
	cJSON *o;
	char line[FS_LINE_NAME_MAX];
	int rc = 0;

	if (fs_read_dir(call, user, 0, &d, res) != 0)
		return 0;
	n = d.n;
	/* With nothing kept v is NULL, which qsort() may not be given. */
	if (n > 0)
		qsort(d.v, n, sizeof(*d.v), cmp_entry);
	tc_buf_init(&arr, TC_RESULT_TEXT_MAX);
	end = offset >= n ? n : (n - offset > limit ? offset + limit : n);
	shown = end > offset ? end - offset : 0;
	rc = fs_entries_json(&arr, d.v, offset, end, 1);
	if (rc == 0)
		rc = tc_buf_reserve(&res->text, shown * 32 + 256);
	/* The names are valid UTF-8 already: appended as they are, shown
	 * as fs_line_name() shows them. */
	for (i = offset; i < end && rc == 0; i++) {
		if ((rc = tc_buf_append_str(&res->text,
		    dt_tag(d.v[i].type))) == 0 &&
		    (rc = tc_buf_append(&res->text, " ", 1)) == 0 &&
		    (rc = tc_buf_append_str(&res->text, fs_line_name(
		    d.v[i].name, line, sizeof(line)))) == 0)
			rc = tc_buf_append(&res->text, "\n", 1);
	}
	if (rc != 0) {
		tc_result_error(res, "'%s': too many entries to list; use a "
		    "lower limit", user);
		goto out;
	}
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", d.path.display);
	cJSON_AddItemToObject(o, "entries", tc_json_raw_take(&arr));
	cJSON_AddNumberToObject(o, "total", (double)n);
	cJSON_AddBoolToObject(o, "truncated", end < n || !d.complete);
	if (end < n)
		cJSON_AddNumberToObject(o, "next_offset", (double)end);
	if (n == 0)
		tc_result_printf(res, "(no entries)\n");
	if (end < n)
		tc_result_printf(res, "[entries %zu-%zu of %zu shown; call "
		    "list_directory again with offset=%zu to continue]\n",
		    offset + 1, end, n, end);
	if (!d.complete)
		tc_result_printf(res, "[the directory has more than %u "
		    "entries; only the first %u read were sorted]\n",
		    FS_LIST_SCAN_MAX, FS_LIST_SCAN_MAX);
out:
	tc_buf_release(&arr);	/* empty once the entries were taken */
	fs_dir_release(&d);
	return 0;
}

/* --- get_file_info --- */

static void
add_time(cJSON *o, struct tc_result *res, const char *key,
    const struct statx_timestamp *t)
{
	char buf[40];
	struct tm tm;
	time_t s = (time_t)t->tv_sec;

	gmtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddStringToObject(o, key, buf);
	tc_result_printf(res, "%s: %s\n", key, buf);
}

int
fs_get_file_info(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	struct tc_path p;
	struct statx sx;
	char perm[8];
	cJSON *o;
	int fd;

	if ((fd = open_user_path(call, user, O_PATH, &p, res)) < 0)
		return 0;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME,
	    &sx) != 0) {
		close(fd);
		tc_result_error(res, "'%s': %s", user, strerror(errno));
		tc_path_release(&p);
		return 0;
	}
	close(fd);
	snprintf(perm, sizeof(perm), "%04o", sx.stx_mode & 07777);
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", p.display);
	cJSON_AddStringToObject(o, "type", fs_mode_name(sx.stx_mode));
	cJSON_AddNumberToObject(o, "size", (double)sx.stx_size);
	cJSON_AddStringToObject(o, "permissions", perm);
	cJSON_AddNumberToObject(o, "uid", sx.stx_uid);
	cJSON_AddNumberToObject(o, "gid", sx.stx_gid);
	cJSON_AddNumberToObject(o, "links", sx.stx_nlink);
	tc_result_printf(res, "path: ");
	tc_result_shown(res, p.display);
	tc_result_printf(res, "\ntype: %s\nsize: %llu\n"
	    "permissions: %s\nuid: %u\ngid: %u\nlinks: %u\n",
	    fs_mode_name(sx.stx_mode), (unsigned long long)sx.stx_size, perm,
	    sx.stx_uid, sx.stx_gid, sx.stx_nlink);
	add_time(o, res, "modified", &sx.stx_mtime);
	add_time(o, res, "accessed", &sx.stx_atime);
	add_time(o, res, "changed", &sx.stx_ctime);
	if (sx.stx_mask & STATX_BTIME)
		add_time(o, res, "created", &sx.stx_btime);
	tc_path_release(&p);
	return 0;
}

/* --- lent to fs_read.c (fs.h) --- */

int
fs_open_regular(const struct tc_call *call, const char *user,
    struct tc_path *p, struct stat *st, struct tc_result *res)
{
	return open_regular(call, user, p, st, res);
}

int
fs_read_all(int fd, size_t size, size_t cap, char **out, size_t *len)
{
	char *b, *nb;
	size_t alloc, n = 0;
	ssize_t r;

	*out = NULL;
	*len = 0;
	alloc = (size < cap ? size : cap) + 1;
	if ((b = malloc(alloc)) == NULL)
		return TC_ENOMEM;
	for (;;) {
		if (n == alloc) {
			/* Larger than fstat said: room up to one past the
			 * cap, to tell a file that grew past it. */
			if (alloc > cap) {
				free(b);
				return TC_ETOOBIG;
			}
			alloc = cap + 1;
			if ((nb = realloc(b, alloc)) == NULL) {
				free(b);
				return TC_ENOMEM;
			}
			b = nb;
		}
		r = read(fd, b + n, alloc - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;

			free(b);
			errno = saved;
			return TC_ESYS;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > cap) {
		free(b);
		return TC_ETOOBIG;
	}
	b[n] = '\0';		/* fits: n <= cap < alloc */
	*out = b;
	*len = n;
	return 0;
}

int
fs_read_lines(int fd, size_t max_bytes, struct tc_buf *out,
    struct fs_lines *g)
{
	struct range r;
	int rc;

	rc = read_forward(fd, 0, UINT64_MAX, max_bytes, out, &r);
	g->lines = r.lines;
	g->total_lines = r.total_lines;
	g->total_known = r.total_known;
	g->truncated = r.truncated;
	g->more = r.more;
	g->cut_line = r.cut_line;
	return rc;
}
