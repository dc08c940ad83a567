/*
 * fs_grep.c: search_file_contents, a grep -rn over the bounded walk of
 * fs_walk.h.
 *
 * Only regular files are opened, from their directory's fd and without
 * following a symlink; FIFOs, sockets and devices never are.  A file with a
 * NUL byte in its first block is binary and skipped, as is one larger than
 * maxFileBytes.  Files are read in chunks; a line is searched in its first
 * LINE_SCAN_MAX bytes and shown in at most LINE_SHOW_MAX, round its match.
 * The pattern is a literal (memmem) or a PCRE2 regular expression compiled
 * once, without JIT (the child may not map executable memory).  A
 * backtracking match can take exponential time, so each line's match is
 * bounded in steps, depth, heap and time (GREP_RE_*); a line past a bound
 * is given up and counted as slow, and the clock is read after each line.
 * The answer is bounded by maxResults, by GREP_ANSWER_MAX bytes and by the
 * time budget; each says so, with an offset to go on from.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "fs.h"
#include "fs_walk.h"
#include "policy/own.h"
#include "policy/path.h"

#define READ_CHUNK	(64u << 10)	/* file reads */
#define LINE_SCAN_MAX	(64u << 10)	/* bytes of one line searched */
#define LINE_SHOW_MAX	500		/* bytes of one line returned */
#define LINE_SHOW_LEAD	100		/* shown before a match in a cut line */
#define GREP_ANSWER_MAX	(2u << 20)	/* bytes a content search answers,
					   text and structured content */

/*
 * What one pcre2_match() on one line may take.  Measured here (PCRE2
 * 10.42, no JIT) on 64 KiB lines, the worst patterns found cost 10 to 100
 * ns a step, so 200,000 steps is at most about 20 ms; (a?){5000}b, whose
 * every step is a deep frame, stops at the depth bound after 30 ms and
 * (a|aa)*c at it after 22 ms (at the heap bound alone it took 48 ms).
 */
#define GREP_RE_STEPS	200000		/* pcre2_set_match_limit */
#define GREP_RE_DEPTH	10000		/* pcre2_set_depth_limit */
#define GREP_RE_HEAP_KIB 4096		/* pcre2_set_heap_limit */
/*
 * Steps do not bound time: a counted repeat is one step however long, and
 * .*a.{30000}c took 1.7 s on a 64 KiB line within 200,000 steps.  So the
 * pattern is compiled with a callout before each item, which reads the
 * clock every GREP_RE_TICKS of them; between two, an item repeats at most
 * 65535 times (PCRE2's largest count).
 */
#define GREP_RE_LINE_MS	20		/* one line's match, at most */
#define GREP_RE_TICKS	64

/* One line kept for the answer: a match, or context around one. */
struct kept {
	uint64_t	 no;		/* 1-based */
	char		*text;		/* valid UTF-8, at most LINE_SHOW_MAX */
	size_t		 column;	/* matches: 1-based byte of the match */
	int		 match;
	int		 cut;		/* only part of the line is shown */
};

/* A line remembered for the context before a match. */
struct prev {
	uint64_t	 no;
	size_t		 len;
	int		 cut;
	char		 text[LINE_SHOW_MAX];
};

struct grep {
	/* What to find. */
	int		 regex, icase;
	pcre2_code	*re;
	pcre2_match_data *md;		/* the match's offsets only */
	pcre2_match_context *mctx;	/* the GREP_RE_* bounds */
	struct timespec	 line_end;	/* the line's match gives up then */
	unsigned	 re_ticks;
	char		*lit;		/* literal, lowercased for icase */
	size_t		 litlen;
	struct exact	 include;
	int		 has_include;
	int		 context;
	size_t		 offset, max, max_file;
	const char	*display;

	/* The walk's findings. */
	cJSON		*matches;
	size_t		 seen, found;
	size_t		 files_scanned, files_matched, skipped_binary,
			 skipped_large, skipped_unreadable, skipped_special,
			 skipped_symlinks, long_lines, slow_lines;
	int		 nomem;
	struct walk	*w;
	struct tc_result *res;

	/* Per file. */
	char		*buf;		/* READ_CHUNK */
	struct tc_buf	 line;		/* a line spanning chunks */
	char		*fold;		/* LINE_SCAN_MAX: a line folded */
	struct prev	*ring;		/* context before, |context| slots */
	size_t		 ring_n, ring_head;
	struct kept	*kept;
	size_t		 nkept, capkept;
	uint64_t	 last_kept;	/* line number of the last kept */
	int		 after_left;
	int		 done;		/* at the cap, context and all */
	size_t		 kept_bytes;	/* what the answer may take so far */
	size_t		 path_len;	/* of the file being searched */
	int		 printed;	/* a group of lines is in the text */
};

/*
 * Called by pcre2_match() before each item of the pattern: returns 0 to go
 * on, or a negative number, which pcre2_match() returns, once the line has
 * had its GREP_RE_LINE_MS.
 */
static int
grep_callout(pcre2_callout_block *cb, void *arg)
{
	struct grep *g = arg;
	struct timespec now;

	(void)cb;
	if ((++g->re_ticks % GREP_RE_TICKS) != 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > g->line_end.tv_sec || (now.tv_sec ==
	    g->line_end.tv_sec && now.tv_nsec >= g->line_end.tv_nsec))
		return PCRE2_ERROR_CALLOUT;
	return 0;
}

/*
 * Finds the pattern in |p| (|n| bytes).  Returns 1 with the match's start
 * in *|at|, 0 when there is none, and -1 when the regular expression gave
 * up on the line (a GREP_RE_* bound, or any other failure of the match).
 */
static int
grep_find(struct grep *g, const char *p, size_t n, size_t *at)
{
	const char *hit;
	size_t i;
	int rc;

	if (g->regex) {
		clock_gettime(CLOCK_MONOTONIC, &g->line_end);
		g->line_end.tv_nsec += GREP_RE_LINE_MS * 1000000L;
		if (g->line_end.tv_nsec >= 1000000000L) {
			g->line_end.tv_sec++;
			g->line_end.tv_nsec -= 1000000000L;
		}
		g->re_ticks = 0;
		rc = pcre2_match(g->re, (PCRE2_SPTR)p, n, 0, 0, g->md,
		    g->mctx);
		if (rc == PCRE2_ERROR_NOMATCH)
			return 0;
		if (rc < 0)
			return -1;
		/* rc 0 only says the one offset pair was too few for the
		 * groups; the whole match's pair is there. */
		*at = (size_t)pcre2_get_ovector_pointer(g->md)[0];
		return 1;
	}
	if (g->icase) {
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)p[i];

			g->fold[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		}
		p = g->fold;
	}
	if ((hit = memmem(p, n, g->lit, g->litlen)) == NULL)
		return 0;
	*at = (size_t)(hit - p);
	return 1;
}

/*
 * Returns a new string holding at most LINE_SHOW_MAX bytes of |p| (|n|
 * bytes) made valid UTF-8, starting near |at| when the line is longer (a
 * window round the match), with *|cut| set when not all of it is there.
 */
static char *
show_line(const char *p, size_t n, size_t at, int *cut)
{
	struct tc_buf b;
	size_t start = 0, len = n;
	char *s;

	*cut = 0;
	if (n > LINE_SHOW_MAX) {
		*cut = 1;
		if (at > LINE_SHOW_LEAD)
			start = at - LINE_SHOW_LEAD;
		if (start > n - LINE_SHOW_MAX)
			start = n - LINE_SHOW_MAX;
		/* Start and end on character boundaries. */
		while (start > 0 && start < n &&
		    ((unsigned char)p[start] & 0xc0) == 0x80)
			start--;
		len = tc_utf8_cut(p + start, n - start, LINE_SHOW_MAX);
	}
	/* Drop a carriage return ending the line. */
	if (!*cut && len > 0 && p[len - 1] == '\r')
		len--;
	tc_buf_init(&b, 4 * LINE_SHOW_MAX + 16);
	if (tc_buf_append_utf8(&b, p + start, len) != 0 ||
	    tc_buf_append(&b, "", 0) != 0) {
		tc_buf_release(&b);
		return NULL;
	}
	s = tc_buf_steal(&b);
	return s;
}

static int
keep(struct grep *g, uint64_t no, const char *p, size_t n, size_t at,
    int match, int long_line)
{
	struct kept *nk;
	struct kept *k;

	if (g->nkept == g->capkept) {
		g->capkept = g->capkept ? g->capkept * 2 : 16;
		if ((nk = reallocarray(g->kept, g->capkept,
		    sizeof(*nk))) == NULL)
			return -1;
		g->kept = nk;
	}
	k = &g->kept[g->nkept];
	if ((k->text = show_line(p, n, at, &k->cut)) == NULL)
		return -1;
	k->cut |= long_line;
	k->no = no;
	k->match = match;
	k->column = at + 1;
	/* A line is in the text once and in structuredContent up to
	 * 1 + 2 * context times (as a match, and as context of the matches
	 * round it); count it as if it were in every place it may be. */
	g->kept_bytes += (strlen(k->text) + g->path_len + 24) *
	    (2 + 2 * (size_t)g->context);
	g->nkept++;
	g->last_kept = no;
	return 0;
}

/* Handles one whole line (at most LINE_SCAN_MAX bytes of it). */
static int
grep_line(struct grep *g, uint64_t no, const char *p, size_t n,
    int long_line)
{
	struct prev *pv;
	size_t at = 0, i, k;
	int hit, full;

	/* A line ends at its newline; a CR before it is not searched. */
	if (n > 0 && p[n - 1] == '\r' && !long_line)
		n--;
	/* Once the answer is as large as it may be, no match is taken:
	 * only the context after the last one. */
	full = g->kept_bytes >= GREP_ANSWER_MAX;
	if ((hit = grep_find(g, p, n, &at)) < 0) {
		g->slow_lines++;
		hit = 0;
	}
	if (hit && !full && g->seen++ >= g->offset && g->found < g->max) {
		/* The context before: remembered lines not yet kept. */
		for (i = 0; i < g->ring_n; i++) {
			k = (g->ring_head + g->context - g->ring_n + i) %
			    (size_t)g->context;
			pv = &g->ring[k];
			if (g->nkept > 0 && pv->no <= g->last_kept)
				continue;
			if (keep(g, pv->no, pv->text, pv->len, 0, 0,
			    pv->cut) != 0)
				return -1;
		}
		if (keep(g, no, p, n, at, 1, long_line) != 0)
			return -1;
		if (long_line)
			g->long_lines++;
		g->found++;
		g->after_left = g->context;
	} else if (g->after_left > 0) {
		if (keep(g, no, p, n, 0, 0, long_line) != 0)
			return -1;
		g->after_left--;
	}
	/* At the cap, and the last match's context is in: stop.  Whether
	 * more matches follow is not looked for (that could take the whole
	 * budget), so "truncated" then means there may be more. */
	if (full && hit && g->after_left == 0)
		g->w->cut |= CUT_OUTPUT;
	if ((g->found == g->max || (g->w->cut & CUT_OUTPUT)) &&
	    g->after_left == 0)
		g->done = 1;
	if (g->context > 0) {
		pv = &g->ring[g->ring_head];
		pv->no = no;
		pv->len = tc_utf8_cut(p, n, LINE_SHOW_MAX);
		memcpy(pv->text, p, pv->len);
		pv->cut = n > LINE_SHOW_MAX || long_line;
		g->ring_head = (g->ring_head + 1) % (size_t)g->context;
		if (g->ring_n < (size_t)g->context)
			g->ring_n++;
	}
	return 0;
}

/* Adds kept lines [from, to) as an array of {line, text} to |o|. */
static void
add_context(cJSON *o, const char *key, const struct kept *v, size_t from,
    size_t to)
{
	cJSON *a = cJSON_AddArrayToObject(o, key), *e;
	size_t i;

	for (i = from; a != NULL && i < to; i++) {
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "line", (double)v[i].no);
		cJSON_AddStringToObject(e, "text", v[i].text);
		if (v[i].cut)
			cJSON_AddTrueToObject(e, "cut");
		cJSON_AddItemToArray(a, e);
	}
}

/*
 * Turns the lines kept from the file |rel| into match objects and text
 * lines ("path:12:text" for a match, "path-11-text" for context, "--"
 * between groups that do not touch, as grep prints them).
 */
static void
grep_flush(struct grep *g, struct tc_result *res, const char *rel)
{
	struct tc_buf path;
	const struct kept *v = g->kept;
	size_t i, j, lo, hi;
	cJSON *m;

	if (g->nkept == 0)
		return;
	tc_buf_init(&path, 4 * PATH_MAX + 16);
	if (fs_walk_full_path(&path, g->display, rel) != 0 ||
	    tc_buf_append(&path, "", 0) != 0) {
		g->nomem = 1;
		goto out;
	}
	g->files_matched++;
	for (i = 0; i < g->nkept; i++) {
		if (!v[i].match)
			continue;
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "file", path.data);
		cJSON_AddNumberToObject(m, "line", (double)v[i].no);
		cJSON_AddNumberToObject(m, "column", (double)v[i].column);
		cJSON_AddStringToObject(m, "text", v[i].text);
		if (v[i].cut)
			cJSON_AddTrueToObject(m, "cut");
		if (g->context > 0) {
			for (lo = i; lo > 0 && v[lo - 1].no + (uint64_t)
			    g->context >= v[i].no && v[lo - 1].no + (i - lo + 1)
			    == v[i].no; lo--)
				;
			for (hi = i + 1; hi < g->nkept && v[hi].no <= v[i].no +
			    (uint64_t)g->context && v[hi].no == v[i].no +
			    (hi - i); hi++)
				;
			add_context(m, "before", v, lo, i);
			add_context(m, "after", v, i + 1, hi);
		}
		cJSON_AddItemToArray(g->matches, m);
	}
	for (i = 0; i < g->nkept; i++) {
		if (g->context > 0 && g->printed && (i == 0 ||
		    v[i].no != v[i - 1].no + 1))
			tc_buf_append(&res->text, "--\n", 3);
		g->printed = 1;
		fs_walk_text(&res->text, path.data, path.len, 0);
		tc_buf_printf(&res->text, "%c%llu%c", v[i].match ? ':' : '-',
		    (unsigned long long)v[i].no, v[i].match ? ':' : '-');
		fs_walk_text(&res->text, v[i].text, strlen(v[i].text), 1);
		tc_buf_append_str(&res->text, v[i].cut ? " [line cut]\n" :
		    "\n");
	}
out:
	tc_buf_release(&path);
	for (j = 0; j < g->nkept; j++)
		free(g->kept[j].text);
	g->nkept = 0;
}

/*
 * Searches the regular file |it|.  Returns 0, or -1 when out of memory.
 * Skips, and counts, what it does not search.
 */
static int
grep_file(struct walk *w, struct grep *g, const struct walk_item *it)
{
	struct stat st;
	uint64_t no = 0;
	const char *p, *e, *nl;
	uint64_t total = 0;
	ssize_t n;
	size_t take;
	int fd, first = 1, long_line = 0, rc = 0;

	/* O_NONBLOCK: a FIFO swapped in since readdir does not block the
	 * open; fstat() then refuses anything but a regular file. */
	if ((fd = fs_walk_open(w, it->dirfd, it->name, O_RDONLY |
	    O_NONBLOCK)) < 0) {
		g->skipped_unreadable++;
		return 0;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		g->skipped_special++;
		close(fd);
		return 0;
	}
	/* Swapped for one of the server's own files since it was listed:
	 * left out, as it was then. */
	if (tc_own_stat(w->pol, &st) != NULL) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > g->max_file) {
		g->skipped_large++;
		close(fd);
		return 0;
	}
	g->ring_n = g->ring_head = 0;
	g->after_left = 0;
	g->last_kept = 0;
	tc_buf_reset(&g->line);
	for (;;) {
		if (fs_walk_out_of_time(w))
			break;
		do
			n = read(fd, g->buf, READ_CHUNK);
		while (n < 0 && errno == EINTR);
		if (n < 0 && first) {
			g->skipped_unreadable++;
			close(fd);
			return 0;
		}
		if (n <= 0)
			break;
		/* A file that grew past the cap since fstat() is read only
		 * up to it. */
		if (total + (uint64_t)n > g->max_file)
			n = (ssize_t)(g->max_file - total);
		total += (uint64_t)n;
		if (n == 0)
			break;
		/* Binary: a NUL in the first block, as grep decides. */
		if (first && memchr(g->buf, '\0', (size_t)n) != NULL) {
			g->skipped_binary++;
			close(fd);
			return 0;
		}
		first = 0;
		p = g->buf;
		e = g->buf + n;
		while (p < e && !g->done && rc == 0) {
			nl = memchr(p, '\n', (size_t)(e - p));
			take = (size_t)((nl != NULL ? nl : e) - p);
			if (nl != NULL && g->line.len == 0 && !long_line) {
				/* The whole line is in this chunk. */
				if (take > LINE_SCAN_MAX) {
					take = LINE_SCAN_MAX;
					long_line = 1;
				}
				rc = grep_line(g, ++no, p, take, long_line);
				long_line = 0;
				p = nl + 1;
				/* A line may cost a regular expression tens
				 * of ms, and a chunk hold thousands. */
				if (g->regex && fs_walk_out_of_time(w))
					break;
				continue;
			}
			if (g->line.len + take > LINE_SCAN_MAX) {
				take = LINE_SCAN_MAX - g->line.len;
				long_line = 1;
			}
			if (tc_buf_append(&g->line, p, take) != 0) {
				rc = -1;
				break;
			}
			if (nl == NULL) {
				p = e;
				continue;
			}
			rc = grep_line(g, ++no, g->line.data != NULL ?
			    g->line.data : "", g->line.len, long_line);
			tc_buf_reset(&g->line);
			long_line = 0;
			p = nl + 1;
			if (g->regex && fs_walk_out_of_time(w))
				break;
		}
		if (rc != 0 || g->done)
			break;
		if ((++w->ticks & 15) == 0 && fs_walk_out_of_time(w))
			break;
	}
	/* A last line without a newline. */
	if (rc == 0 && !g->done && !(w->cut & CUT_TIME) &&
	    (g->line.len > 0 || long_line))
		rc = grep_line(g, ++no, g->line.data != NULL ? g->line.data :
		    "", g->line.len, long_line);
	g->files_scanned++;
	close(fd);
	return rc;
}

static int
grep_visit(struct walk *w, const struct walk_item *it)
{
	struct grep *g = w->arg;

	if (it->type == DT_DIR)
		return WALK_NEXT;
	if (it->type == DT_LNK) {
		/* Not followed: its target may be anywhere, or a loop. */
		g->skipped_symlinks++;
		return WALK_NEXT;
	}
	if (it->type != DT_REG) {
		/* FIFOs, sockets, devices: never opened. */
		g->skipped_special++;
		return WALK_NEXT;
	}
	if (g->has_include && !fs_exact_match(&g->include, it->rel))
		return WALK_NEXT;
	g->path_len = strlen(g->display) + strlen(it->rel) + 1;
	if (grep_file(w, g, it) != 0) {
		g->nomem = 1;
		return WALK_STOP;
	}
	grep_flush(g, g->res, it->rel);
	if (g->nomem)
		return WALK_STOP;
	if (g->done) {
		if (!(w->cut & CUT_OUTPUT))
			w->cut |= CUT_CAP;
		return WALK_STOP;
	}
	return w->cut & CUT_TIME ? WALK_STOP : WALK_NEXT;
}

/*
 * Compiles |pat| into |g| with its match bounds; returns 0, or -1 with
 * |res| an error.  What compiles is bounded too: the pattern's length here
 * and in the argument's schema, the nesting of its parentheses and the
 * size of the compiled code by PCRE2 (measured: (a?){5000} compiles in
 * under 1 ms, and a pattern whose repetitions make it too large, such as
 * ((a{1,100}){1,100}){1,100}, is refused at once).
 */
static int
grep_compile(struct grep *g, const char *pat, struct tc_result *res)
{
	pcre2_compile_context *cctx;
	PCRE2_UCHAR why[256];
	PCRE2_SIZE off;
	int ec;

	if ((cctx = pcre2_compile_context_create(NULL)) == NULL)
		goto nomem;
	pcre2_set_max_pattern_length(cctx, FS_WALK_PATTERN_MAX);
	/* Lines may hold any bytes: what is not UTF-8 is matched by
	 * nothing but itself not being there, rather than refused. */
	g->re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
	    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_AUTO_CALLOUT |
	    (g->icase ? PCRE2_CASELESS : 0), &ec, &off, cctx);
	pcre2_compile_context_free(cctx);
	if (g->re == NULL) {
		if (pcre2_get_error_message(ec, why, sizeof(why)) < 0)
			snprintf((char *)why, sizeof(why), "error %d", ec);
		tc_result_error(res, "pattern '%s': not a valid regular "
		    "expression (PCRE2 syntax): %s at offset %zu", pat,
		    (const char *)why, (size_t)off);
		return -1;
	}
	/* One offset pair: where the match starts is all that is used. */
	if ((g->md = pcre2_match_data_create(1, NULL)) == NULL ||
	    (g->mctx = pcre2_match_context_create(NULL)) == NULL)
		goto nomem;
	pcre2_set_match_limit(g->mctx, GREP_RE_STEPS);
	pcre2_set_depth_limit(g->mctx, GREP_RE_DEPTH);
	pcre2_set_heap_limit(g->mctx, GREP_RE_HEAP_KIB);
	pcre2_set_callout(g->mctx, grep_callout, g);
	return 0;
nomem:
	tc_result_error(res, "out of memory");
	return -1;
}

/* Prepares what |g| looks for; returns 0, or -1 with |res| an error. */
static int
grep_prepare(const struct tc_call *call, struct grep *g,
    struct tc_result *res)
{
	const char *pat = tc_arg_str(call, "pattern");
	const char *inc = tc_arg_str(call, "include");
	char why[256], *ipat;
	size_t i;
	int rc;

	g->regex = tc_arg_bool(call, "regex", 0);
	g->icase = tc_arg_bool(call, "ignoreCase", 0);
	g->context = (int)tc_arg_int(call, "contextLines", 0);
	g->offset = (size_t)tc_arg_int(call, "offset", 0);
	g->max = (size_t)tc_arg_int(call, "maxResults",
	    FS_GREP_DEFAULT_RESULTS);
	g->max_file = (size_t)tc_arg_int(call, "maxFileBytes",
	    FS_GREP_DEFAULT_FILE_BYTES);
	tc_buf_init(&g->line, LINE_SCAN_MAX);
	if (g->regex) {
		/* Each line is matched on its own, without its newline, so
		 * "^" and "$" are its start and end. */
		if (grep_compile(g, pat, res) != 0)
			return -1;
	} else {
		if ((g->lit = strdup(pat)) == NULL)
			goto nomem;
		g->litlen = strlen(pat);
		/* ASCII case folding only: a literal is matched byte for
		 * byte. */
		for (i = 0; g->icase && i < g->litlen; i++)
			if (g->lit[i] >= 'A' && g->lit[i] <= 'Z')
				g->lit[i] = (char)(g->lit[i] + 32);
	}
	/* A line's copy, folded for a literal ignoring case. */
	if (!g->regex && g->icase && (g->fold = malloc(LINE_SCAN_MAX)) ==
	    NULL)
		goto nomem;
	if (inc != NULL) {
		if ((ipat = fs_walk_pattern(inc, why, sizeof(why))) == NULL) {
			tc_result_error(res, "include '%s': %s", inc, why);
			return -1;
		}
		rc = fs_exact_init(&g->include, ipat);
		free(ipat);
		if (rc != 0)
			goto nomem;
		g->has_include = 1;
	}
	if ((g->buf = malloc(READ_CHUNK)) == NULL)
		goto nomem;
	if (g->context > 0 && (g->ring = calloc((size_t)g->context,
	    sizeof(*g->ring))) == NULL)
		goto nomem;
	return 0;
nomem:
	tc_result_error(res, "out of memory");
	return -1;
}

static void
grep_release(struct grep *g)
{
	size_t i;

	pcre2_match_context_free(g->mctx);
	pcre2_match_data_free(g->md);
	pcre2_code_free(g->re);
	free(g->lit);
	free(g->fold);
	free(g->buf);
	free(g->ring);
	for (i = 0; i < g->nkept; i++)
		free(g->kept[i].text);
	free(g->kept);
	tc_buf_release(&g->line);
	fs_exact_release(&g->include);
}

int
fs_search_file_contents(const struct tc_call *call, struct tc_result *res)
{
	const char *user = tc_arg_str(call, "path");
	struct grep g;
	struct walk w;
	struct tc_path p;
	struct tc_buf note;
	long budget;
	cJSON *o, *sk;
	int fd, how;

	memset(&g, 0, sizeof(g));
	memset(&w, 0, sizeof(w));
	if (grep_prepare(call, &g, res) != 0) {
		grep_release(&g);
		return 0;
	}
	budget = fs_walk_budget_ms(call, (long)tc_arg_int(call, "timeBudget",
	    FS_GREP_DEFAULT_BUDGET_MS));
	if ((fd = fs_walk_start(call, &w, &p, res)) < 0) {
		fs_walk_release(&w);
		grep_release(&g);
		return 0;
	}
	g.display = p.display;
	g.res = res;
	g.w = &w;
	w.visit = grep_visit;
	w.arg = &g;
	fs_walk_budget(&w, budget);
	o = tc_result_obj(res);
	cJSON_AddStringToObject(o, "path", p.display);
	g.matches = cJSON_AddArrayToObject(o, "matches");
	how = g.matches == NULL ? -ENOMEM : fs_walk_run(&w, fd);
	if (fs_walk_failed(how, g.nomem, user, "maxResults or contextLines",
	    res))
		goto out;
	fs_walk_cut(o, w.cut, "maxResults");
	if (w.cut & (CUT_CAP | CUT_TIME | CUT_OUTPUT))
		cJSON_AddNumberToObject(o, "next_offset",
		    (double)(g.offset + g.found));
	cJSON_AddNumberToObject(o, "files_scanned", (double)g.files_scanned);
	cJSON_AddNumberToObject(o, "files_matched", (double)g.files_matched);
	if ((sk = cJSON_AddObjectToObject(o, "files_skipped")) != NULL) {
		cJSON_AddNumberToObject(sk, "binary", (double)g.skipped_binary);
		cJSON_AddNumberToObject(sk, "too_large",
		    (double)g.skipped_large);
		cJSON_AddNumberToObject(sk, "unreadable",
		    (double)g.skipped_unreadable);
		cJSON_AddNumberToObject(sk, "symlinks",
		    (double)g.skipped_symlinks);
		cJSON_AddNumberToObject(sk, "special",
		    (double)g.skipped_special);
	}
	if (g.long_lines > 0)
		cJSON_AddNumberToObject(o, "long_lines", (double)g.long_lines);
	if (g.slow_lines > 0)
		cJSON_AddNumberToObject(o, "slow_lines", (double)g.slow_lines);
	if (g.found == 0)
		tc_result_printf(res, "No matches found\n");
	tc_buf_init(&note, 4096);
	tc_buf_printf(&note, "[%zu match%s in %zu file%s; %zu file%s "
	    "searched; skipped: %zu binary, %zu larger than maxFileBytes, "
	    "%zu unreadable, %zu symlink%s (not followed), %zu special",
	    g.found, g.found == 1 ? "" : "es", g.files_matched,
	    g.files_matched == 1 ? "" : "s", g.files_scanned,
	    g.files_scanned == 1 ? "" : "s", g.skipped_binary,
	    g.skipped_large, g.skipped_unreadable, g.skipped_symlinks,
	    g.skipped_symlinks == 1 ? "" : "s", g.skipped_special);
	if (g.long_lines > 0)
		tc_buf_printf(&note, "; %zu matching line%s longer than %u "
		    "bytes, searched in their first %u bytes only",
		    g.long_lines, g.long_lines == 1 ? "" : "s", LINE_SCAN_MAX,
		    LINE_SCAN_MAX);
	if (g.slow_lines > 0)
		tc_buf_printf(&note, "; %zu line%s given up: the regular "
		    "expression took too long on %s (it may match there; a "
		    "simpler pattern, or a literal one, searches %s)",
		    g.slow_lines, g.slow_lines == 1 ? "" : "s",
		    g.slow_lines == 1 ? "it" : "them",
		    g.slow_lines == 1 ? "it" : "them");
	if (w.cut != 0) {
		tc_buf_printf(&note, "; truncated");
		if (w.cut & CUT_CAP)
			tc_buf_printf(&note, ": maxResults=%zu reached, there "
			    "may be more", g.max);
		if (w.cut & CUT_OUTPUT)
			tc_buf_printf(&note, ": the answer reached its cap of "
			    "about %u bytes", GREP_ANSWER_MAX);
		fs_walk_note_cuts(&note, &w, budget);
		if (w.cut & (CUT_CAP | CUT_TIME | CUT_OUTPUT))
			tc_buf_printf(&note, "; call search_file_contents "
			    "again with offset=%zu to continue (the search "
			    "starts over and skips the matches already "
			    "shown), or narrow path, include or "
			    "excludePatterns", g.offset + g.found);
	}
	tc_buf_printf(&note, "]");
	fs_walk_note(res, note.data != NULL ? note.data : "[]");
	tc_buf_release(&note);
out:
	tc_path_release(&p);
	fs_walk_release(&w);
	grep_release(&g);
	return 0;
}
