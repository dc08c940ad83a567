/*
 * fs_edit.c: toolcell-fs's edit_file: exact text replacements in one file,
 * applied in order, written back whole and atomically, and shown as a
 * unified diff (also with dryRun, which writes nothing).  It runs in the
 * confined child of the fs-write profile.
 *
 * The file is opened, checked and replaced with fs_write.c's machinery
 * (fs_write.h), as write_file does: beneath its root, the deny rules for
 * reading as well as writing applied where it really is, a symlink or a
 * file with other hard links refused, and the new content renamed over it
 * only if the file is still the one that was read.  An edit whose oldText
 * is missing or, without replaceAll, occurs more than once changes
 * nothing, and the error says why: where it occurs, or how the closest
 * text in the file differs (line endings, blanks, the first byte apart).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "fs_write.h"
#include "policy/path.h"
#include "policy/policy.h"

#define DIFF_CONTEXT	3
#define DIFF_MAX_D	2000	/* edit distance the diff works out exactly */
#define DIFF_BUDGET	50000000 /* line comparisons before giving up on it */
#define EXCERPT_LINES	12	/* of a closest candidate, in an error */
#define EXCERPT_BYTES	160	/* per line of it */
#define WHERE_LIST	10	/* line numbers named for repeated matches */

/* --- edit_file: the diff --- */

struct line {
	const char	*p;
	size_t		 n;		/* with its '\n', if it has one */
};

/* Splits |buf| into lines; returns the count, or -1 on ENOMEM. */
static long
split_lines(const char *buf, size_t len, struct line **out)
{
	struct line *v = NULL, *nv;
	size_t n = 0, cap = 0, i = 0;
	const char *nl;

	*out = NULL;
	while (i < len) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL) {
				free(v);
				return -1;
			}
			v = nv;
		}
		nl = memchr(buf + i, '\n', len - i);
		v[n].p = buf + i;
		v[n].n = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;
		i += v[n].n;
		n++;
	}
	*out = v;
	return (long)n;
}

static int
line_eq(const struct line *a, const struct line *b)
{
	return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

enum { OP_EQ, OP_DEL, OP_ADD };

struct op {
	int	type;
	long	a, b;		/* line indices in the old and the new file */
};

/*
 * Myers' O(ND) difference of a[0..n) and b[0..m): fills |ops| (room for
 * n + m) with the edit script in order, and returns its length; or -1
 * when the distance is over DIFF_MAX_D, the comparisons over DIFF_BUDGET,
 * or memory runs out, for the caller to fall back on replacing the whole
 * range.
 */
static long
myers(const struct line *a, long n, const struct line *b, long m,
    long a0, long b0, struct op *ops)
{
	long max = n + m, off, d, k, x, y, D = -1, nops = 0, i;
	long *v, *trace = NULL, *nt, used = 0, cap = 0, pk, px, py;
	long budget = DIFF_BUDGET;
	struct op *tmp;

	if (max == 0)
		return 0;
	off = max + 1;
	if ((v = calloc((size_t)(2 * max + 3), sizeof(*v))) == NULL)
		return -1;
	for (d = 0; d <= max && d <= DIFF_MAX_D; d++) {
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] <
			    v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m && line_eq(&a[x], &b[y])) {
				x++;
				y++;
				budget--;
			}
			if (--budget < 0)
				goto fail;
			v[off + k] = x;
			if (x >= n && y >= m)
				D = d;
		}
		/* Keep v[-d..d] of this step for the way back. */
		if (used + 2 * d + 1 > cap) {
			cap = (cap + 2 * d + 1) * 2;
			if ((nt = reallocarray(trace, (size_t)cap,
			    sizeof(*trace))) == NULL)
				goto fail;
			trace = nt;
		}
		memcpy(trace + used, v + off - d, (size_t)(2 * d + 1) *
		    sizeof(*v));
		used += 2 * d + 1;
		if (D >= 0)
			break;
	}
	if (D < 0)
		goto fail;
	if ((tmp = calloc((size_t)(n + m), sizeof(*tmp))) == NULL)
		goto fail;
	/* Backwards from the end; step d's slice starts at d * d. */
	x = n;
	y = m;
	for (d = D; d > 0; d--) {
		const long *pv = trace + (d - 1) * (d - 1) + (d - 1);

		k = x - y;
		if (k == -d || (k != d && pv[k - 1] < pv[k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = pv[pk];
		py = px - pk;
		while (x > px + (pk == k - 1) && y > py + (pk == k + 1)) {
			x--;
			y--;
			tmp[nops++] = (struct op){ OP_EQ, a0 + x, b0 + y };
		}
		if (pk == k + 1) {
			y--;
			tmp[nops++] = (struct op){ OP_ADD, a0 + x, b0 + y };
		} else {
			x--;
			tmp[nops++] = (struct op){ OP_DEL, a0 + x, b0 + y };
		}
	}
	while (x > 0 && y > 0) {
		x--;
		y--;
		tmp[nops++] = (struct op){ OP_EQ, a0 + x, b0 + y };
	}
	for (i = 0; i < nops; i++)
		ops[i] = tmp[nops - 1 - i];
	free(tmp);
	free(trace);
	free(v);
	return nops;
fail:
	free(trace);
	free(v);
	return -1;
}

/* Appends "-a,b" style range of a hunk. */
static void
hunk_range(struct tc_buf *out, long start, long count)
{
	if (count == 1)
		tc_buf_printf(out, "%ld", start + 1);
	else
		tc_buf_printf(out, "%ld,%ld", count == 0 ? start : start + 1,
		    count);
}

static void
diff_line(struct tc_buf *out, char tag, const struct line *l)
{
	tc_buf_append(out, &tag, 1);
	tc_buf_append(out, l->p, l->n);
	if (l->n == 0 || l->p[l->n - 1] != '\n')
		tc_buf_append_str(out, "\n\\ No newline at end of file\n");
}

/*
 * Appends to |out| the unified diff (3 lines of context) that turns |old|
 * into |new|, with "--- a/NAME" and "+++ b/NAME" headers; nothing when
 * they are equal.  Returns 0, or TC_ENOMEM.
 */
static int
unified_diff(const char *old, size_t oldlen, const char *new, size_t newlen,
    const char *name, struct tc_buf *out)
{
	struct line *a = NULL, *b = NULL;
	struct op *ops = NULL;
	long na, nb, pre = 0, suf = 0, nops = 0, mid, i, j, h0, h1;
	long as, ac, bs, bc, last;
	int rc = TC_ENOMEM;

	if ((na = split_lines(old, oldlen, &a)) < 0 ||
	    (nb = split_lines(new, newlen, &b)) < 0)
		goto out;
	while (pre < na && pre < nb && line_eq(&a[pre], &b[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	    line_eq(&a[na - 1 - suf], &b[nb - 1 - suf]))
		suf++;
	if (pre == na && pre == nb) {
		rc = 0;
		goto out;
	}
	if ((ops = calloc((size_t)(na + nb + 1), sizeof(*ops))) == NULL)
		goto out;
	for (i = 0; i < pre; i++)
		ops[nops++] = (struct op){ OP_EQ, i, i };
	mid = myers(a + pre, na - pre - suf, b + pre, nb - pre - suf, pre,
	    pre, ops + nops);
	if (mid < 0) {
		/* Too different to work out: the whole middle is replaced. */
		mid = 0;
		for (i = pre; i < na - suf; i++)
			ops[nops + mid++] = (struct op){ OP_DEL, i, pre };
		for (j = pre; j < nb - suf; j++)
			ops[nops + mid++] = (struct op){ OP_ADD, na - suf, j };
	}
	nops += mid;
	for (i = 0; i < suf; i++)
		ops[nops++] = (struct op){ OP_EQ, na - suf + i, nb - suf + i };
	tc_buf_printf(out, "--- a/%s\n+++ b/%s\n", name, name);
	for (i = 0; i < nops;) {
		if (ops[i].type == OP_EQ) {
			i++;
			continue;
		}
		/* A hunk: from this change, taking in every change less than
		 * two contexts after the last one. */
		h0 = i > DIFF_CONTEXT ? i - DIFF_CONTEXT : 0;
		last = i;
		for (j = i + 1; j < nops; j++) {
			if (ops[j].type != OP_EQ)
				last = j;
			else if (j - last > 2 * DIFF_CONTEXT)
				break;
		}
		h1 = last + DIFF_CONTEXT + 1 < nops ? last + DIFF_CONTEXT + 1 :
		    nops;
		as = ops[h0].a;
		bs = ops[h0].b;
		ac = bc = 0;
		for (j = h0; j < h1; j++) {
			ac += ops[j].type != OP_ADD;
			bc += ops[j].type != OP_DEL;
		}
		tc_buf_append_str(out, "@@ -");
		hunk_range(out, as, ac);
		tc_buf_append_str(out, " +");
		hunk_range(out, bs, bc);
		tc_buf_append_str(out, " @@\n");
		for (j = h0; j < h1; j++)
			diff_line(out, ops[j].type == OP_EQ ? ' ' :
			    ops[j].type == OP_DEL ? '-' : '+',
			    ops[j].type == OP_ADD ? &b[ops[j].b] :
			    &a[ops[j].a]);
		i = h1;
	}
	rc = 0;
out:
	free(a);
	free(b);
	free(ops);
	return rc;
}

/* --- edit_file: matching --- */

/* 1-based line of byte |off| of |buf|. */
static long
line_of(const char *buf, size_t off)
{
	long n = 1;
	const char *p = buf, *e = buf + off;

	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

static const char *
find(const char *hay, size_t hlen, size_t from, const char *needle,
    size_t nlen)
{
	if (from > hlen)
		return NULL;
	return memmem(hay + from, hlen - from, needle, nlen);
}

/* Counts non-overlapping matches of |needle| in |hay|. */
static size_t
count_matches(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
	const char *p;
	size_t n = 0, from = 0;

	while ((p = find(hay, hlen, from, needle, nlen)) != NULL) {
		n++;
		from = (size_t)(p - hay) + nlen;
	}
	return n;
}

/*
 * Copies |s| (|n| bytes) with runs of blanks (space, tab) made one space,
 * blanks before a line end or the end dropped, and CR before LF dropped;
 * |map| (if not NULL) gets, for each byte out, the offset of the byte in.
 * Returns the new length.  |out| has room for |n| + 1 bytes.
 */
static size_t
squash_blanks(const char *s, size_t n, char *out, size_t *map)
{
	size_t i, o = 0, run = 0, at = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == ' ' || c == '\t' || (c == '\r' && i + 1 < n &&
		    s[i + 1] == '\n')) {
			if (run++ == 0)
				at = i;
			continue;
		}
		if (run > 0 && c != '\n' && c != '\r') {
			if (map != NULL)
				map[o] = at;
			out[o++] = ' ';
		}
		run = 0;
		if (map != NULL)
			map[o] = i;
		out[o++] = c;
	}
	out[o] = '\0';
	return o;
}

/* Shows |n| bytes of |s| in quotes, with \t, \r, \n spelt out. */
static void
show_bytes(struct tc_buf *m, const char *s, size_t n)
{
	size_t i;

	tc_buf_append_str(m, "\"");
	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '\t':
			tc_buf_append_str(m, "\\t");
			break;
		case '\r':
			tc_buf_append_str(m, "\\r");
			break;
		case '\n':
			tc_buf_append_str(m, "\\n");
			break;
		case '"':
			tc_buf_append_str(m, "\\\"");
			break;
		default:
			tc_buf_append(m, s + i, 1);
		}
	}
	tc_buf_append_str(m, "\"");
}

/* Appends lines |first|..|last| (1-based) of |buf|, numbered. */
static void
show_lines(struct tc_buf *m, const char *buf, size_t len, long first,
    long last)
{
	const char *p = buf, *e = buf + len, *nl;
	long ln = 1;
	size_t n;

	if (last - first >= EXCERPT_LINES)
		last = first + EXCERPT_LINES - 1;
	while (p < e && ln <= last) {
		nl = memchr(p, '\n', (size_t)(e - p));
		n = nl ? (size_t)(nl - p) : (size_t)(e - p);
		if (ln >= first) {
			if (n > 0 && p[n - 1] == '\r')
				n--;
			tc_buf_printf(m, "%6ld| ", ln);
			tc_buf_append(m, p, n > EXCERPT_BYTES ? EXCERPT_BYTES :
			    n);
			tc_buf_append_str(m, n > EXCERPT_BYTES ? "...\n" :
			    "\n");
		}
		p = nl ? nl + 1 : e;
		ln++;
	}
}

/* Returns 1 if |c| is a blank or a line end. */
static int
is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Explains why |old| was not found in |buf|, into |m|: a line-ending
 * difference (CRLF against LF), a match once blanks are ignored, and the
 * closest candidate: the longest start of |old| that occurs in the file,
 * where it is and what differs right after it.
 */
static void
explain_miss(const char *buf, size_t len, const char *old, size_t oldlen,
    struct tc_buf *m)
{
	size_t lo = 0, hi = oldlen, mid, sb, so, *map = NULL, i, k;
	const char *p, *at = NULL;
	char *sbuf = NULL, *sold = NULL, *conv = NULL;
	int file_crlf = memmem(buf, len, "\r\n", 2) != NULL;
	int old_crlf = memmem(old, oldlen, "\r\n", 2) != NULL;
	long l0, l1;

	/* Line endings: the same text with the file's own. */
	if (file_crlf != old_crlf && memchr(old, '\n', oldlen) != NULL &&
	    (conv = malloc(oldlen * 2 + 1)) != NULL) {
		for (i = k = 0; i < oldlen; i++) {
			if (file_crlf && old[i] == '\n' &&
			    (i == 0 || old[i - 1] != '\r'))
				conv[k++] = '\r';
			if (!file_crlf && old[i] == '\r' && i + 1 < oldlen &&
			    old[i + 1] == '\n')
				continue;
			conv[k++] = old[i];
		}
		if ((p = memmem(buf, len, conv, k)) != NULL) {
			l0 = line_of(buf, (size_t)(p - buf));
			tc_buf_printf(m, "Line endings differ: the file "
			    "uses %s, oldText uses %s; with the file's line "
			    "endings it matches at line %ld.\n", file_crlf ?
			    "CRLF (\\r\\n)" : "LF (\\n)", file_crlf ?
			    "LF (\\n)" : "CRLF (\\r\\n)", l0);
			free(conv);
			return;
		}
		free(conv);
	}
	/* Blanks: a match once runs of blanks count as one. */
	if ((sbuf = malloc(len + 1)) != NULL &&
	    (sold = malloc(oldlen + 1)) != NULL &&
	    (map = calloc(len + 1, sizeof(*map))) != NULL) {
		sb = squash_blanks(buf, len, sbuf, map);
		so = squash_blanks(old, oldlen, sold, NULL);
		/* Leading blanks of oldText count as indentation, which
		 * may be absent in the squashed file's line starts. */
		if (so > 0 && (p = memmem(sbuf, sb, sold, so)) != NULL) {
			k = (size_t)(p - sbuf);
			l0 = line_of(buf, map[k]);
			l1 = line_of(buf, map[k + so - 1]);
			tc_buf_printf(m, "It matches lines %ld-%ld if blanks "
			    "are ignored: compare indentation (tabs, "
			    "spaces), blanks between words and at line ends"
			    "%s.\n", l0, l1, file_crlf != old_crlf ?
			    ", and line endings (CRLF, LF)" : "");
			tc_buf_append_str(m, "The file there:\n");
			show_lines(m, buf, len, l0, l1);
			goto out;
		}
	}
	/* The longest start of oldText found anywhere: a binary search,
	 * since every start of a start that occurs occurs too. */
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (memmem(buf, len, old, mid) != NULL)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (lo == 0 || (at = memmem(buf, len, old, lo)) == NULL) {
		tc_buf_append_str(m, "No part of it occurs in the file.\n");
		goto out;
	}
	l0 = line_of(buf, (size_t)(at - buf));
	l1 = line_of(old, lo);
	tc_buf_printf(m, "Closest: its first %zu of %zu bytes match the file "
	    "at line %ld; they part at line %ld of the file, where the file "
	    "has ", lo, oldlen, l0, l0 + l1 - 1);
	k = (size_t)(at - buf) + lo;
	show_bytes(m, buf + k, len - k < 24 ? len - k : 24);
	tc_buf_append_str(m, " and oldText has ");
	show_bytes(m, old + lo, oldlen - lo < 24 ? oldlen - lo : 24);
	tc_buf_append_str(m, ".\n");
	if (k < len && (buf[k] == '\r' || old[lo] == '\r'))
		tc_buf_append_str(m, "Hint: line endings differ (CRLF, "
		    "LF).\n");
	else if (k < len && is_ws(buf[k]) && is_ws(old[lo]))
		tc_buf_append_str(m, "Hint: blanks differ there (tabs, "
		    "spaces, or a line break).\n");
	else if (k < len && (is_ws(buf[k]) || is_ws(old[lo])))
		tc_buf_append_str(m, "Hint: one has a blank or a line break "
		    "where the other has text.\n");
	tc_buf_append_str(m, "The file there:\n");
	/* As many lines as oldText has, a last newline ending one. */
	show_lines(m, buf, len, l0, l0 + line_of(old, oldlen -
	    (old[oldlen - 1] == '\n')) - 1);
out:
	free(sbuf);
	free(sold);
	free(map);
}

struct edit {
	const char	*old, *new;
	size_t		 oldlen, newlen;
	int		 all;
	size_t		 count;		/* replacements made */
};

/*
 * Applies |e| to |*buf| (|*len| bytes, owned), replacing it.  Returns 0;
 * or -1 with the reason in |m|; or -2 on ENOMEM.
 */
static int
apply_edit(char **buf, size_t *len, struct edit *e, size_t index,
    const char *user, struct tc_buf *m)
{
	const char *p;
	size_t n, from = 0, i, out, cap;
	char *nb;

	n = count_matches(*buf, *len, e->old, e->oldlen);
	if (n == 0) {
		tc_buf_printf(m, "'%s': edit %zu: oldText not found; nothing "
		    "was changed.\n", user, index + 1);
		explain_miss(*buf, *len, e->old, e->oldlen, m);
		return -1;
	}
	if (n > 1 && !e->all) {
		tc_buf_printf(m, "'%s': edit %zu: oldText occurs %zu times, "
		    "at line%s ", user, index + 1, n, n > 1 ? "s" : "");
		for (i = 0; i < n && i < WHERE_LIST; i++) {
			p = find(*buf, *len, from, e->old, e->oldlen);
			tc_buf_printf(m, "%s%ld", i ? ", " : "",
			    line_of(*buf, (size_t)(p - *buf)));
			from = (size_t)(p - *buf) + e->oldlen;
		}
		tc_buf_printf(m, "%s; nothing was changed.  Add lines around "
		    "it to make it unique, or set replaceAll to replace "
		    "every one.\n", n > WHERE_LIST ? ", ..." : "");
		return -1;
	}
	/* The new size, checked before anything is allocated (and before
	 * it could overflow: n and the growth are both bounded by it). */
	if (e->newlen > e->oldlen && (e->newlen - e->oldlen) >
	    (FS_EDIT_MAX_BYTES - (*len < FS_EDIT_MAX_BYTES ? *len :
	    FS_EDIT_MAX_BYTES)) / n) {
		tc_buf_printf(m, "'%s': edit %zu: the file would grow past "
		    "the %u bytes that edit_file handles; nothing was "
		    "changed.\n", user, index + 1, FS_EDIT_MAX_BYTES);
		return -1;
	}
	if (e->newlen >= e->oldlen)
		cap = *len + n * (e->newlen - e->oldlen);
	else
		cap = *len - n * (e->oldlen - e->newlen);
	if ((nb = malloc(cap + 1)) == NULL)
		return -2;
	out = 0;
	from = 0;
	while ((p = find(*buf, *len, from, e->old, e->oldlen)) != NULL) {
		i = (size_t)(p - *buf);
		memcpy(nb + out, *buf + from, i - from);
		out += i - from;
		memcpy(nb + out, e->new, e->newlen);
		out += e->newlen;
		from = i + e->oldlen;
	}
	memcpy(nb + out, *buf + from, *len - from);
	out += *len - from;
	nb[out] = '\0';
	free(*buf);
	*buf = nb;
	*len = out;
	e->count = n;
	return 0;
}

/* Makes |res| a tool error with |text| (any length, made valid UTF-8). */
static int
long_error(struct tc_result *res, const struct tc_buf *text)
{
	tc_buf_reset(&res->text);
	cJSON_Delete(res->structured);
	res->structured = NULL;
	res->is_error = 1;
	(void)tc_buf_append_utf8(&res->text, text->data ? text->data : "",
	    text->len);
	return 0;
}

int
fs_edit_file(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	const cJSON *edits = tc_arg_json(call, "edits"), *it, *v;
	int dry = tc_arg_bool(call, "dryRun", 0);
	struct edit *ev = NULL;
	struct tc_buf msg, diff, shown;
	char *buf = NULL, *orig = NULL;
	size_t len = 0, origlen = 0, ne, i, total = 0;
	struct stat st, st2;
	struct target t;
	cJSON *o, *arr, *e;
	int fd, rc, changed;

	signal(SIGXFSZ, SIG_IGN);
	tc_buf_init(&msg, 1u << 20);
	/* Every line of both files, and a tag and a note for each. */
	tc_buf_init(&diff, (size_t)FS_EDIT_MAX_BYTES * 4 + (1u << 20));
	/* Each bad byte may become a 3-byte U+FFFD. */
	tc_buf_init(&shown, (size_t)FS_DIFF_MAX_BYTES * 3 + 16);
	ne = (size_t)cJSON_GetArraySize(edits);
	if (ne == 0) {
		tc_result_error(res, "'%s': edits is empty; give at least one "
		    "{oldText, newText}", user);
		goto out;
	}
	if ((ev = calloc(ne, sizeof(*ev))) == NULL)
		goto nomem;
	i = 0;
	cJSON_ArrayForEach(it, edits) {
		v = cJSON_GetObjectItemCaseSensitive(it, "oldText");
		ev[i].old = v->valuestring;
		ev[i].oldlen = strlen(v->valuestring);
		v = cJSON_GetObjectItemCaseSensitive(it, "newText");
		ev[i].new = v->valuestring;
		ev[i].newlen = strlen(v->valuestring);
		v = cJSON_GetObjectItemCaseSensitive(it, "replaceAll");
		ev[i].all = cJSON_IsTrue(v);
		i++;
	}
	/* Reading counts too: a rule that refuses reading refuses an edit,
	 * whose diff shows the file. */
	if (fs_target_open(call, user, TC_ACCESS_WRITE | TC_ACCESS_READ, &t,
	    res) != 0)
		goto out;
	if (fs_target_stat(&t, &st) != 0) {
		if (errno == ENOENT)
			tc_result_error(res, "'%s': not found (write_file "
			    "creates a file)", user);
		else
			fs_open_error(res, &t, errno);
		goto done;
	}
	if (fs_replaceable(&t, &st, "edit_file", res) != 0)
		goto done;
	if ((uintmax_t)st.st_size > FS_EDIT_MAX_BYTES) {
		tc_result_error(res, "'%s': too large to edit (%jd bytes; "
		    "edit_file handles at most %u)", user,
		    (intmax_t)st.st_size, FS_EDIT_MAX_BYTES);
		goto done;
	}
	fd = tc_path_openat_in(t.dfd, t.name, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0) {
		fs_open_error(res, &t, errno);
		goto done;
	}
	if (fstat(fd, &st2) != 0 || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino || !S_ISREG(st2.st_mode) ||
	    st2.st_size > (off_t)FS_EDIT_MAX_BYTES) {
		close(fd);
		tc_result_error(res, "'%s': changed while it was opened; try "
		    "again", user);
		goto done;
	}
	rc = fs_read_all(fd, (size_t)st2.st_size, FS_EDIT_MAX_BYTES, &orig,
	    &origlen);
	close(fd);
	if (rc != 0) {
		tc_result_error(res, "'%s': cannot read: %s", user,
		    rc == TC_ETOOBIG ? "it grew past the size edit_file takes" :
		    rc == TC_ESYS ? strerror(errno) : fs_strerror(rc));
		goto done;
	}
	st = st2;
	if ((buf = malloc(origlen + 1)) == NULL)
		goto nomem_t;
	memcpy(buf, orig, origlen + 1);
	len = origlen;
	for (i = 0; i < ne; i++) {
		rc = apply_edit(&buf, &len, &ev[i], i, user, &msg);
		if (rc == -2)
			goto nomem_t;
		if (rc != 0) {
			long_error(res, &msg);
			goto done;
		}
		total += ev[i].count;
	}
	if (unified_diff(orig, origlen, buf, len, t.p.rel, &diff) != 0)
		goto nomem_t;
	/* The diff as sent: valid UTF-8, and bounded. */
	tc_buf_append_utf8(&shown, diff.data ? diff.data : "",
	    diff.data != NULL ? tc_utf8_cut(diff.data, diff.len,
	    FS_DIFF_MAX_BYTES) : 0);
	changed = len != origlen || memcmp(buf, orig, len) != 0;
	if (!dry && changed && fs_replace_file(&t, buf, len, st.st_mode, 1,
	    &st, "edit_file", res) != 0)
		goto done;
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", t.p.display);
	cJSON_AddBoolToObject(o, "dryRun", dry);
	cJSON_AddBoolToObject(o, "changed", changed);
	cJSON_AddNumberToObject(o, "replacements", (double)total);
	arr = cJSON_AddArrayToObject(o, "edits");
	for (i = 0; i < ne; i++) {
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "replacements",
		    (double)ev[i].count);
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_AddNumberToObject(o, "size", (double)len);
	cJSON_AddStringToObject(o, "diff", shown.data ? shown.data : "");
	if (diff.len > FS_DIFF_MAX_BYTES)
		cJSON_AddTrueToObject(o, "diff_truncated");
	tc_result_printf(res, "%s ", dry ? "Dry run, nothing written:" :
	    "Edited");
	tc_result_shown(res, t.p.display);
	tc_result_printf(res, ": %zu edit%s, %zu replacement%s%s.\n", ne,
	    ne == 1 ? "" : "s", total, total == 1 ? "" : "s",
	    changed ? "" : "; the file is unchanged");
	if (shown.len > 0)
		tc_result_text(res, shown.data, shown.len);
	if (diff.len > FS_DIFF_MAX_BYTES)
		tc_result_printf(res, "[diff cut at %u bytes]\n",
		    FS_DIFF_MAX_BYTES);
	goto done;
nomem_t:
	tc_result_error(res, "'%s': out of memory", user);
done:
	fs_target_release(&t);
	goto out;
nomem:
	tc_result_error(res, "'%s': out of memory", user);
out:
	free(buf);
	free(orig);
	free(ev);
	tc_buf_release(&msg);
	tc_buf_release(&diff);
	tc_buf_release(&shown);
	return 0;
}
