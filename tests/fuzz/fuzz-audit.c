/*
 * fuzz-audit.c: the audit log's readers, toolcell-audit verify, tail and
 * summary (audit/verify.c, tail.c, summary.c), on logs whose chains the
 * harness fixes up, so that mutated records still reach the chain logic.
 *
 * The input's first byte says what to do, its second where, and the rest
 * is a log, one record a line:
 *
 *	byte 0, bits 0-2: 0 the log as it is; 1 fixed up; then, fixed up
 *		and broken: 2 a byte of a record altered, 3 a record removed,
 *		4 two records swapped, 5 a record copied after itself, 6 a
 *		record replaced by a forgery linked to the one before, 7 the
 *		log split in two files (a rotation);
 *	byte 0, bit 3: the chain is keyed (HMAC-SHA-256), not SHA-256;
 *	byte 1: the record broken, or where the log is split.
 *
 * To fix up a line, the harness keeps what comes before its ',"prev":"'
 * (or the whole line but a closing brace), sets its seq if it starts with
 * '{"seq":', and appends prev (the digest of the line before) and the
 * digest of it all, as the writer does.  Then:
 *
 *	- a fixed-up log whose lines are all records with the seq of their
 *	  place is intact, with that many records; else verify stops at the
 *	  first line that is not, with as many records before it;
 *	- each break is found where it was made, and named: altered,
 *	  removed, reordered, inserted, prev-mismatch; with the wrong key,
 *	  wrong-key; a keyed log checked without its key is "unverified";
 *	  a log split in two is intact across both files, in order;
 *	- tail prints every line of a log, the last N as they are, and
 *	  summary counts every record whose time it can read: on an intact
 *	  log, both agree with verify on the number of records;
 *	- whatever the log, what the commands print for a person holds no
 *	  control character but the newline, and what they print as JSON
 *	  is JSON.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "cli.h"
#include "base/log.h"

#include "fuzz.h"
#include "strictjson.h"

#define MAX_LINES	64
#define ZERO_HEX	"00000000000000000000000000000000" \
			"00000000000000000000000000000000"

enum mode { RAW, FIXED, ALTER, REMOVE, SWAP, COPY, FORGE, SPLIT };

static char scratch[64], key_path[96], wrong_key_path[96];
static struct tc_audit_key key;
static int log_fd[2] = { -1, -1 }, cap_fd = -1;
static char log_path[2][32];

/* A log as lines, each without its newline. */
struct log {
	char	*line[MAX_LINES + 1];
	size_t	 len[MAX_LINES + 1];
	size_t	 n;
	int	 partial;	/* the last line has no newline */
};

static void
log_free(struct log *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->line[i]);
	l->n = 0;
}

/* Splits |n| bytes at |s| into |l| (at most MAX_LINES lines). */
static void
log_split(const char *s, size_t n, struct log *l)
{
	const char *e = s + n, *nl;

	memset(l, 0, sizeof(*l));
	while (s < e && l->n < MAX_LINES) {
		if ((nl = memchr(s, '\n', (size_t)(e - s))) == NULL) {
			nl = e;
			l->partial = 1;
		}
		l->len[l->n] = (size_t)(nl - s);
		if ((l->line[l->n] = malloc(l->len[l->n] + 1)) == NULL)
			abort();
		memcpy(l->line[l->n], s, l->len[l->n]);
		l->line[l->n++][nl - s] = '\0';
		s = nl + 1;
	}
	if (s < e)
		l->partial = 0;		/* cut at MAX_LINES, after a newline */
}

/* Returns the length of line |i|'s own part: up to its last ',"prev":"',
 * or all of it but a closing brace. */
static size_t
own_part(const struct log *l, size_t i)
{
	const char *s = l->line[i], *e = s + l->len[i], *cut = NULL, *q;
	size_t body;

	/* memmem, not strstr: a line may hold NUL bytes. */
	for (q = s; (q = memmem(q, (size_t)(e - q), ",\"prev\":\"", 9)) !=
	    NULL; q++)
		cut = q;
	body = cut != NULL ? (size_t)(cut - s) : l->len[i];
	if (cut == NULL && body > 0 && s[body - 1] == '}')
		body--;
	return body;
}

/*
 * Rewrites line |i| of |l|, whose own part is its first |body| bytes, as
 * the writer would write it after a record with digest |prev|, with seq
 * |seq| if it has one; puts its digest in |digest|.
 */
static void
fix_line(struct log *l, size_t i, size_t body, unsigned long long seq,
    const char *prev, const struct tc_audit_key *k,
    char digest[TC_AUDIT_HEX_LEN + 1])
{
	const char *s = l->line[i], *q;
	char num[24], *out;
	size_t n, cap;

	n = (size_t)snprintf(num, sizeof(num), "%llu", seq);
	cap = body + n + 200;
	if ((out = malloc(cap)) == NULL)
		abort();
	if (body >= 7 && memcmp(s, "{\"seq\":", 7) == 0) {
		/* The seq of its place, in place of whatever number was
		 * there. */
		for (q = s + 7; q < s + body && strchr("0123456789.eE+-", *q);
		    q++)
			continue;
		memcpy(out, s, 7);
		memcpy(out + 7, num, n);
		memcpy(out + 7 + n, q, (size_t)(s + body - q));
		body = 7 + n + (size_t)(s + body - q);
	} else
		memcpy(out, s, body);
	body += (size_t)snprintf(out + body, cap - body, ",\"prev\":\"%s\"",
	    prev);
	tc_audit_digest(k, out, body, digest);
	body += (size_t)snprintf(out + body, cap - body, ",\"%s\":\"%s\"}",
	    k != NULL ? "hmac" : "hash", digest);
	free(l->line[i]);
	l->line[i] = out;
	l->len[i] = body;
}

/* Fixes up every line of |l|; |digest| gets each line's digest. */
static void
fix_all(struct log *l, const struct tc_audit_key *k,
    char digest[][TC_AUDIT_HEX_LEN + 1])
{
	size_t i;

	for (i = 0; i < l->n; i++)
		fix_line(l, i, own_part(l, i), i + 1, i == 0 ? ZERO_HEX :
		    digest[i - 1], k, digest[i]);
	l->partial = 0;
}

/*
 * Returns how many lines of |l| from the first are records with the seq
 * of their place and the prev of the line before.
 */
static size_t
good_prefix(const struct log *l, char digest[][TC_AUDIT_HEX_LEN + 1])
{
	struct tc_audit_link link;
	struct tc_diag d;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (tc_audit_parse_line(l->line[i], l->len[i], &link, NULL,
		    &d) != 0 || link.seq != i + 1 ||
		    strcmp(link.prev, i == 0 ? ZERO_HEX : digest[i - 1]) != 0 ||
		    strcmp(link.digest, digest[i]) != 0)
			break;
	}
	return i;
}

/* Writes lines [from, to) of |l| into log file |f|. */
static void
put_log(int f, const struct log *l, size_t from, size_t to)
{
	off_t off = 0;
	size_t i;

	if (ftruncate(log_fd[f], 0) != 0)
		abort();
	for (i = from; i < to; i++) {
		if (pwrite(log_fd[f], l->line[i], l->len[i], off) !=
		    (ssize_t)l->len[i])
			abort();
		off += (off_t)l->len[i];
		if (i + 1 == l->n && l->partial)
			break;
		if (pwrite(log_fd[f], "\n", 1, off) != 1)
			abort();
		off++;
	}
}

/* --- Running the commands --- */

struct run {
	int	 status;
	char	*out;		/* what it printed, NUL-terminated */
	size_t	 len;
};

/* Runs command |fn| with the |argc| words of |argv|, capturing stdout. */
static void
run(int (*fn)(int, char **), int argc, const char *const *argv,
    struct run *r)
{
	char *args[8];
	struct stat sb;
	int saved, i;

	for (i = 0; i < argc; i++)
		if ((args[i] = strdup(argv[i])) == NULL)
			abort();
	args[argc] = NULL;
	fflush(stdout);
	if (ftruncate(cap_fd, 0) != 0 || lseek(cap_fd, 0, SEEK_SET) != 0 ||
	    (saved = dup(STDOUT_FILENO)) < 0 ||
	    dup2(cap_fd, STDOUT_FILENO) < 0)
		abort();
	r->status = fn(argc, args);
	fflush(stdout);
	if (dup2(saved, STDOUT_FILENO) < 0 || close(saved) != 0 ||
	    fstat(cap_fd, &sb) != 0)
		abort();
	r->len = (size_t)sb.st_size;
	if ((r->out = malloc(r->len + 1)) == NULL)
		abort();
	if (r->len > 0 && pread(cap_fd, r->out, r->len, 0) != (ssize_t)r->len)
		abort();
	r->out[r->len] = '\0';
	for (i = 0; i < argc; i++)
		free(args[i]);
}

/* Checks text for a person: no control character but the newline. */
static void
check_clean(const char *what, const struct run *r)
{
	size_t i;

	for (i = 0; i < r->len; i++) {
		unsigned char c = (unsigned char)r->out[i];

		FUZZ_CHECK((c >= 0x20 && c != 0x7f) || c == '\n', "%s printed "
		    "the control byte 0x%02x for a person, at byte %zu of: %s",
		    what, c, i, r->out);
	}
}

/* What verify --json said. */
struct verdict {
	char		 result[16];	/* intact, broken, unverified */
	char		 kind[16];	/* of a problem */
	unsigned long	 records;
	unsigned long	 line;		/* of a problem */
	int		 file;		/* of a problem: 0 or 1 */
	int		 status;
};

static unsigned long
number(const struct sj_node *v)
{
	return v != NULL && v->type == SJ_NUMBER ? strtoul(v->raw, NULL, 10) :
	    0;
}

/* Runs verify on |nfiles| log files, newest first if |reversed|, with
 * |keyfile| if it is not NULL; checks its text and its JSON agree. */
static void
verify(int nfiles, int reversed, const char *keyfile, struct verdict *v)
{
	const char *argv[8];
	const struct sj_node *pr, *f;
	struct sj_doc doc;
	struct run r;
	int argc, json, i;

	memset(v, 0, sizeof(*v));
	for (json = 1; json >= 0; json--) {
		argc = 0;
		argv[argc++] = "verify";
		if (json)
			argv[argc++] = "--json";
		if (keyfile != NULL) {
			argv[argc++] = "--key";
			argv[argc++] = keyfile;
		}
		for (i = 0; i < nfiles; i++)
			argv[argc++] = log_path[reversed ? nfiles - 1 - i : i];
		run(cmd_verify, argc, argv, &r);
		if (!json) {
			check_clean("verify", &r);
			FUZZ_CHECK(r.status == v->status, "verify exits %d, "
			    "and %d with --json", r.status, v->status);
			free(r.out);
			break;
		}
		v->status = r.status;
		FUZZ_CHECK(r.len > 0 && r.out[r.len - 1] == '\n' &&
		    sj_parse(&doc, r.out, r.len - 1) == SJ_VALID &&
		    doc.root->type == SJ_OBJECT, "verify --json printed what "
		    "is not one JSON object: %s", r.out);
		f = sj_get(doc.root, "result");
		snprintf(v->result, sizeof(v->result), "%s",
		    f != NULL && f->type == SJ_STRING ? f->str : "");
		v->records = number(sj_get(doc.root, "records"));
		if ((pr = sj_get(doc.root, "problem")) != NULL) {
			f = sj_get(pr, "kind");
			snprintf(v->kind, sizeof(v->kind), "%s",
			    f != NULL && f->type == SJ_STRING ? f->str : "");
			v->line = number(sj_get(pr, "line"));
			f = sj_get(pr, "file");
			v->file = f != NULL && f->type == SJ_STRING &&
			    strcmp(f->str, log_path[1]) == 0;
		}
		FUZZ_CHECK((strcmp(v->result, "broken") == 0) ==
		    (pr != NULL) && (v->status == EXIT_BROKEN) == (pr != NULL),
		    "verify --json: result, problem and status disagree: %s",
		    r.out);
		sj_free(&doc);
		free(r.out);
	}
}

/* Runs tail on log file |f|: returns how many lines it printed with
 * --json, having checked they are the file's last |want| lines. */
static size_t
tail(int f, const struct log *l, size_t from, size_t to, size_t want)
{
	const char *argv[5];
	char n[24], *exp, *w;
	size_t lines = 0, i, total = to - from, first;
	struct run r;

	snprintf(n, sizeof(n), "%zu", want);
	argv[0] = "tail";
	argv[1] = "--json";
	argv[2] = "-n";
	argv[3] = n;
	argv[4] = log_path[f];
	run(cmd_tail, 5, argv, &r);
	FUZZ_CHECK(r.status == EXIT_INTACT, "tail exits %d", r.status);
	first = total > want ? to - want : from;
	if ((exp = malloc(r.len + 1 + 65536)) == NULL)
		abort();
	for (w = exp, i = first; i < to; i++) {
		if ((size_t)(w - exp) + l->len[i] + 1 > r.len + 65536)
			break;
		memcpy(w, l->line[i], l->len[i]);
		w += l->len[i];
		*w++ = '\n';
		lines++;
	}
	FUZZ_CHECK((size_t)(w - exp) == r.len && memcmp(exp, r.out, r.len) ==
	    0, "tail -n %zu --json did not print the last %zu lines as they "
	    "are: %s", want, lines, r.out);
	free(exp);
	free(r.out);
	/* And for a person. */
	argv[1] = "-n";
	argv[2] = n;
	argv[3] = log_path[f];
	run(cmd_tail, 4, argv, &r);
	check_clean("tail", &r);
	free(r.out);
	return lines;
}

/* Runs summary on |nfiles| log files; returns its record count. */
static unsigned long
summary(int nfiles)
{
	const char *argv[4];
	struct sj_doc doc;
	struct run r;
	unsigned long records;
	int argc, i;

	argc = 0;
	argv[argc++] = "summary";
	argv[argc++] = "--json";
	for (i = 0; i < nfiles; i++)
		argv[argc++] = log_path[i];
	run(cmd_summary, argc, argv, &r);
	FUZZ_CHECK(r.status == EXIT_INTACT && r.len > 0 &&
	    r.out[r.len - 1] == '\n' &&
	    sj_parse(&doc, r.out, r.len - 1) == SJ_VALID &&
	    doc.root->type == SJ_OBJECT, "summary --json exits %d and "
	    "prints what is not one JSON object: %s", r.status, r.out);
	records = number(sj_get(doc.root, "records"));
	sj_free(&doc);
	free(r.out);
	/* And for a person. */
	argv[1] = argv[2];
	argv[2] = argv[3];
	run(cmd_summary, argc - 1, argv, &r);
	check_clean("summary", &r);
	FUZZ_CHECK(r.status == EXIT_INTACT, "summary exits %d", r.status);
	free(r.out);
	return records;
}

/* Returns how many of lines [from, to) summary cannot take the time of. */
static unsigned long
bad_times(const struct log *l, size_t from, size_t to)
{
	const cJSON *t;
	unsigned long n = 0;
	long long ms;
	cJSON *o;
	size_t i;

	for (i = from; i < to; i++) {
		o = cJSON_ParseWithLength(l->line[i], l->len[i]);
		t = cJSON_GetObjectItemCaseSensitive(o, "time");
		if (!cJSON_IsObject(o) || !cJSON_IsString(t) ||
		    tc_audit_parse_time(t->valuestring, &ms) != 0)
			n++;
		cJSON_Delete(o);
	}
	return n;
}

/* --- The input --- */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char digest[MAX_LINES + 1][TC_AUDIT_HEX_LEN + 1];
	const struct tc_audit_key *k;
	struct verdict v;
	struct log l;
	enum mode mode;
	size_t n, g, at, i, lines;
	unsigned long sum;
	char *t;

	if (size < 2)
		return 0;
	mode = (enum mode)(data[0] & 7);
	k = (data[0] & 8) ? &key : NULL;
	log_split((const char *)data + 2, size - 2, &l);
	n = l.n;
	if (mode != RAW)
		fix_all(&l, k, digest);
	g = mode == RAW ? 0 : good_prefix(&l, digest);
	at = n > 0 ? data[1] % n : 0;

	if (mode == RAW || mode == FIXED || g < n || n < 3) {
		/* As it is (or fixed up): verify, tail and summary. */
		put_log(0, &l, 0, n);
		put_log(1, &l, 0, 0);
		verify(1, 0, k != NULL ? key_path : NULL, &v);
		lines = tail(0, &l, 0, n, MAX_LINES);
		FUZZ_CHECK(lines == n, "tail printed %zu of %zu lines", lines,
		    n);
		tail(0, &l, 0, n, at);
		sum = summary(1);
		FUZZ_CHECK(v.records <= n && sum <= n, "verify counts %lu "
		    "records, summary %lu, in %zu lines", v.records, sum, n);
		if (mode == RAW)
			goto out;
		if (g == n) {
			FUZZ_CHECK(strcmp(v.result, "intact") == 0 &&
			    v.records == n, "a fixed-up chain of %zu records "
			    "is %s with %lu records (%s)", n, v.result,
			    v.records, v.kind);
			FUZZ_CHECK(sum == n - bad_times(&l, 0, n), "verify "
			    "counts %zu records, summary %lu", n, sum);
		} else
			FUZZ_CHECK(strcmp(v.result, "broken") == 0 &&
			    v.line == g + 1 && v.records == g, "the first "
			    "line that is not a record is line %zu; verify "
			    "says %s at line %lu after %lu records (%s)", g + 1,
			    v.result, v.line, v.records, v.kind);
		if (k != NULL && g == n && n > 0) {
			verify(1, 0, NULL, &v);
			FUZZ_CHECK(strcmp(v.result, "unverified") == 0 &&
			    v.status == EXIT_TROUBLE, "a keyed log checked "
			    "without its key is %s", v.result);
			verify(1, 0, wrong_key_path, &v);
			FUZZ_CHECK(strcmp(v.result, "broken") == 0 &&
			    strcmp(v.kind, "wrong-key") == 0 && v.line == 1,
			    "a keyed log checked with another key is %s (%s "
			    "at line %lu)", v.result, v.kind, v.line);
		}
		goto out;
	}

	/* A good chain of at least 3 records, broken one way. */
	switch (mode) {
	case ALTER:
		/* A byte of the signed part, which the digest covers. */
		i = (size_t)data[1] % (l.len[at] - TC_AUDIT_TAIL_LEN);
		l.line[at][i] ^= (char)(1 + (data[1] >> 4));
		if (l.line[at][i] == '\n' || l.line[at][i] == '\0')
			l.line[at][i] = 'X';
		put_log(0, &l, 0, n);
		verify(1, 0, k != NULL ? key_path : NULL, &v);
		FUZZ_CHECK(strcmp(v.result, "broken") == 0 &&
		    v.line == at + 1 && v.records == at &&
		    (strcmp(v.kind, "altered") == 0 ||
		    strcmp(v.kind, "not-json") == 0 ||
		    strcmp(v.kind, "chain-fields") == 0), "a byte of line %zu "
		    "altered: verify says %s, %s at line %lu", at + 1, v.result,
		    v.kind, v.line);
		break;
	case REMOVE:
		/* Not the first, which only starts a log that continues an
		 * earlier file, nor the last, a cut tail (both undetectable
		 * by design): those are checked as intact. */
		t = l.line[at];
		memmove(&l.line[at], &l.line[at + 1], (n - at - 1) *
		    sizeof(l.line[0]));
		memmove(&l.len[at], &l.len[at + 1], (n - at - 1) *
		    sizeof(l.len[0]));
		l.line[n - 1] = t;
		l.n = n - 1;
		put_log(0, &l, 0, n - 1);
		l.n = n;
		verify(1, 0, k != NULL ? key_path : NULL, &v);
		if (at == n - 1)
			FUZZ_CHECK(strcmp(v.result, "intact") == 0 &&
			    v.records == n - 1, "a log cut after a whole "
			    "record is %s", v.result);
		else if (at == 0)
			FUZZ_CHECK(strcmp(v.result, "intact") == 0 &&
			    v.records == n - 1, "a log starting at seq 2 with "
			    "its prev is %s (%s)", v.result, v.kind);
		else
			FUZZ_CHECK(strcmp(v.result, "broken") == 0 &&
			    strcmp(v.kind, "removed") == 0 &&
			    v.line == at + 1 && v.records == at,
			    "record %zu removed: verify says %s, %s at line "
			    "%lu", at + 1, v.result, v.kind, v.line);
		break;
	case SWAP:
		if (at == n - 1)
			at--;
		t = l.line[at];
		l.line[at] = l.line[at + 1];
		l.line[at + 1] = t;
		i = l.len[at];
		l.len[at] = l.len[at + 1];
		l.len[at + 1] = i;
		put_log(0, &l, 0, n);
		verify(1, 0, k != NULL ? key_path : NULL, &v);
		FUZZ_CHECK(strcmp(v.result, "broken") == 0 &&
		    (at == 0 || (strcmp(v.kind, "reordered") == 0 &&
		    v.line == at + 1 && v.records == at)), "records %zu and "
		    "%zu swapped: verify says %s, %s at line %lu", at + 1,
		    at + 2, v.result, v.kind, v.line);
		break;
	case COPY:
		memmove(&l.line[at + 2], &l.line[at + 1], (n - at - 1) *
		    sizeof(l.line[0]));
		memmove(&l.len[at + 2], &l.len[at + 1], (n - at - 1) *
		    sizeof(l.len[0]));
		if ((l.line[at + 1] = malloc(l.len[at] + 1)) == NULL)
			abort();
		memcpy(l.line[at + 1], l.line[at], l.len[at] + 1);
		l.len[at + 1] = l.len[at];
		l.n = n + 1;
		put_log(0, &l, 0, n + 1);
		verify(1, 0, k != NULL ? key_path : NULL, &v);
		FUZZ_CHECK(strcmp(v.result, "broken") == 0 &&
		    strcmp(v.kind, "inserted") == 0 && v.line == at + 2 &&
		    v.records == at + 1, "record %zu copied after itself: "
		    "verify says %s, %s at line %lu", at + 1, v.result, v.kind,
		    v.line);
		break;
	case FORGE:
		/* A record of its own in place of a middle one, linked to
		 * the one before with a digest of its own: the next record's
		 * prev no longer matches. */
		if (at == 0)
			at = 1;
		if (at == n - 1)
			at--;
		i = own_part(&l, at);
		if ((t = malloc(i + 32)) == NULL)
			abort();
		memcpy(t, l.line[at], i);
		i += (size_t)snprintf(t + i, 32, ",\"forged\":true");
		free(l.line[at]);
		l.line[at] = t;
		l.len[at] = i;
		fix_line(&l, at, i, at + 1, digest[at - 1], k, digest[at]);
		put_log(0, &l, 0, n);
		verify(1, 0, k != NULL ? key_path : NULL, &v);
		FUZZ_CHECK(strcmp(v.result, "broken") == 0 &&
		    strcmp(v.kind, "prev-mismatch") == 0 &&
		    v.line == at + 2 && v.records == at + 1, "record %zu "
		    "forged with its own digest: verify says %s, %s at line "
		    "%lu", at + 1, v.result, v.kind, v.line);
		break;
	case SPLIT:
		/* path.1 holds the older records, path the newer. */
		at = at == 0 ? 1 : at;
		put_log(0, &l, 0, at);
		put_log(1, &l, at, n);
		verify(2, 0, k != NULL ? key_path : NULL, &v);
		FUZZ_CHECK(strcmp(v.result, "intact") == 0 && v.records == n,
		    "a log split after record %zu is %s across its files "
		    "(%s at line %lu)", at, v.result, v.kind, v.line);
		sum = summary(2);
		FUZZ_CHECK(sum == n - bad_times(&l, 0, n), "verify counts %zu "
		    "records, summary %lu", n, sum);
		lines = tail(0, &l, 0, at, MAX_LINES) +
		    tail(1, &l, at, n, MAX_LINES);
		FUZZ_CHECK(lines == n, "tail printed %zu of %zu lines", lines,
		    n);
		verify(2, 1, k != NULL ? key_path : NULL, &v);
		FUZZ_CHECK(strcmp(v.result, "broken") == 0 && v.file == 0 &&
		    v.line == 1, "files given newest first: verify says %s "
		    "(%s at line %lu of file %d)", v.result, v.kind, v.line,
		    v.file);
		break;
	default:
		break;
	}
out:
	log_free(&l);
	return 0;
}

/* --- Set-up --- */

static void
cleanup(void)
{
	unlink(key_path);
	unlink(wrong_key_path);
	rmdir(scratch);
	tc_audit_key_release(&key);
}

/* Writes a key file of 32 bytes, |fill|, readable by its owner only. */
static void
make_key(const char *path, int fill)
{
	char bytes[32];
	int fd;

	memset(bytes, fill, sizeof(bytes));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) <
	    0 || write(fd, bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes) ||
	    close(fd) != 0)
		tc_fatal("%s: %s", path, strerror(errno));
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	struct tc_diag d;
	int i;

	(void)argc;
	(void)argv;
	tc_log_init("fuzz-audit", TC_LOG_ERROR);
	snprintf(scratch, sizeof(scratch), "%s/toolcell-fuzz.XXXXXX",
	    tmp != NULL && strlen(tmp) < 32 ? tmp : "/tmp");
	if (mkdtemp(scratch) == NULL)
		tc_fatal("mkdtemp: %s", strerror(errno));
	snprintf(key_path, sizeof(key_path), "%s/key", scratch);
	snprintf(wrong_key_path, sizeof(wrong_key_path), "%s/other", scratch);
	make_key(key_path, 'k');
	make_key(wrong_key_path, 'w');
	atexit(cleanup);
	if (tc_audit_key_load(&key, key_path, &d) != 0)
		tc_fatal("%s", d.msg);
	for (i = 0; i < 2; i++) {
		if ((log_fd[i] = memfd_create("fuzz-log", MFD_CLOEXEC)) < 0)
			tc_fatal("memfd_create: %s", strerror(errno));
		snprintf(log_path[i], sizeof(log_path[i]), "/proc/self/fd/%d",
		    log_fd[i]);
	}
	if ((cap_fd = memfd_create("fuzz-stdout", MFD_CLOEXEC)) < 0)
		tc_fatal("memfd_create: %s", strerror(errno));
	return 0;
}
