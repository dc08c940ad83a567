/*
 * verify.c: toolcell-audit verify [--key FILE] [--json] FILE...
 *
 * Reads the records of the files in the order given (oldest first, as
 * path.2 path.1 path) as one chain and stops at the first record that is
 * wrong, saying where (file:line), which seq, and what is wrong with it:
 *
 *	partial		the last line has no newline (a write cut short)
 *	not-json	the line is not a JSON object
 *	chain-fields	seq, time, prev or the digest are missing or malformed
 *	altered		the digest does not match the record's bytes
 *	wrong-key	no record's MAC matches the key given
 *	not-keyed	a plain "hash" where --key says the log is keyed
 *	mixed		"hash" and "hmac" records in one chain, without --key
 *	removed		seq jumps forward (or the log starts past seq 1)
 *	reordered	seq goes back, or forward with the skipped one next
 *	inserted	a record the records around it do not link through
 *	prev-mismatch	seq follows on, but prev is not the digest before
 *	restart		a second chain (seq 1, prev zeros) starts in the files
 *
 * To tell reordering and insertion from removal it looks one record
 * ahead, and remembers the two records before.
 *
 * The chain is one through the records of every server that wrote the
 * log, in the order they are in the files.  Each record names its writer
 * (the "writer" member: pid and start id), inside the bytes its digest
 * covers.  When the records are of several writers, the verdict says, for
 * each, how many records it wrote, from which seq to which, and whether
 * its start and stop records are among them (no stop: it was killed, or
 * still runs); --json always does.
 *
 * Exit status: 0 intact, 1 broken, 2 usage or I/O error, or a keyed log
 * checked without its key (its links are checked, but that is not a
 * verification).
 */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/log.h"
#include "base/text.h"
#include "serve/usage.h"

#define ZERO_HEX	"00000000000000000000000000000000" \
			"00000000000000000000000000000000"
#define WRITERS_SHOWN	20		/* writers listed in the text */

enum kind {
	K_PARTIAL, K_NOTJSON, K_FIELDS, K_ALTERED, K_WRONGKEY, K_NOTKEYED,
	K_MIXED, K_REMOVED, K_REORDERED, K_INSERTED, K_PREV, K_RESTART,
};

static const char *const kind_names[] = {
	"partial", "not-json", "chain-fields", "altered", "wrong-key",
	"not-keyed", "mixed", "removed", "reordered", "inserted",
	"prev-mismatch", "restart",
};

/* One line as verify sees it. */
struct rec {
	const char	*file;
	unsigned long	 line;
	int		 bad;		/* not a record: 1 + enum kind, or 0 */
	char		 why[256];	/* then, what is wrong */
	struct tc_audit_link l;
	int		 mac;		/* 1 matches, 0 not, -1 unchecked */
	int		 event;		/* EV_* */
};

enum { EV_OTHER, EV_START, EV_STOP };

/* A server that wrote records, as the records name it (pid 0: records
 * that name none, from before writers were named). */
struct writer {
	long long	 pid;
	char		 start[TC_AUDIT_START_LEN + 1];
	unsigned long long records, first_seq, last_seq;
	int		 started, stopped;	/* its start, stop seen */
};

/* Where a record was, and its link, kept for the records after it. */
struct seen {
	const char	*file;
	unsigned long	 line;
	unsigned long long seq;
	char		 digest[TC_AUDIT_HEX_LEN + 1];
};

struct note {
	const char	*file;
	unsigned long	 line;
	char		 text[256];
};

struct verify {
	char		**files;
	int		 nfiles;
	int		 next_file;
	struct lines	 in;
	int		 reading;	/* |in| is open */
	const struct tc_audit_key *key;

	struct rec	 cur, ahead;
	int		 have_ahead;	/* 1 record, 0 end, -1 error */
	struct seen	 p, pp;		/* the record before, and before it */
	int		 np;

	int		 keyed;		/* -1 until the first record */
	int		 verified_any;	/* some MAC or hash matched */
	unsigned long long records, first_seq, last_seq;

	struct note	*notes;
	size_t		 nnotes;

	struct writer	*writers;	/* in the order first seen */
	size_t		*by_id;		/* indexes, sorted by pid, start */
	size_t		 nwriters, last_writer;
	int		 named;		/* some record names its writer */
	int		 nomem;

	int		 broken;
	enum kind	 kind;
	const char	*pfile;
	unsigned long	 pline;
	unsigned long long pseq;	/* 0: unknown */
	char		 msg[640];
};

static int	problem(struct verify *, const struct rec *, enum kind,
		    const char *, ...) __attribute__((format(printf, 4, 5)));
static void	note(struct verify *, const char *, unsigned long,
		    const char *, ...) __attribute__((format(printf, 4, 5)));

/* --- Reading records --- */

/* Adds a note, a fact worth saying that is not a break. */
static void
note(struct verify *v, const char *file, unsigned long line,
    const char *fmt, ...)
{
	struct note *n;
	va_list ap;

	n = realloc(v->notes, (v->nnotes + 1) * sizeof(*n));
	if (n == NULL) {
		tc_log(TC_LOG_ERROR, "out of memory: a note was dropped");
		return;
	}
	v->notes = n;
	n += v->nnotes++;
	n->file = file;
	n->line = line;
	va_start(ap, fmt);
	tc_text_vfmt(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

/* Returns the EV_* of the record |o|. */
static int
event_of(const cJSON *o)
{
	const char *e = member_str(o, "event");

	if (e != NULL && strcmp(e, "start") == 0)
		return EV_START;
	if (e != NULL && strcmp(e, "stop") == 0)
		return EV_STOP;
	return EV_OTHER;
}

/* Fills |r| from the line just read, checking its digest if it can. */
static void
take_line(struct verify *v, struct rec *r)
{
	struct tc_diag d TC_UNINIT;
	cJSON *o;
	int rc;

	tc_diag_init(&d);
	memset(r, 0, sizeof(*r));
	r->file = v->in.file;
	r->line = v->in.line;
	r->mac = -1;
	if (v->in.toolong) {
		r->bad = 1 + K_NOTJSON;
		tc_text_fmt(r->why, sizeof(r->why), "longer than %u bytes: not "
		    "a record", TC_AUDIT_MAX_LINE);
		return;
	}
	if (v->in.partial) {
		r->bad = 1 + K_PARTIAL;
		tc_text_fmt(r->why, sizeof(r->why), "the last line has no "
		    "newline: a write was cut short, or the file was cut");
		return;
	}
	rc = tc_audit_parse_line(v->in.buf, v->in.len, &r->l, &o, &d);
	if (rc != 0) {
		r->bad = 1 + (rc == TC_EINVAL ? K_FIELDS : K_NOTJSON);
		tc_text_fmt(r->why, sizeof(r->why), "%s", d.msg);
		return;
	}
	r->event = event_of(o);
	cJSON_Delete(o);
	if (v->key != NULL ? r->l.keyed : !r->l.keyed)
		r->mac = tc_audit_line_ok(v->in.buf, &r->l, v->key);
}

/* Reads the next record into |r|: returns 1, 0 at the end, -1 on error. */
static int
read_rec(struct verify *v, struct rec *r)
{
	int rc;

	for (;;) {
		if (!v->reading) {
			if (v->next_file == v->nfiles)
				return 0;
			if (lines_open(&v->in, v->files[v->next_file++]) != 0)
				return -1;
			v->reading = 1;
		}
		if ((rc = lines_next(&v->in)) < 0)
			return -1;
		if (rc > 0) {
			take_line(v, r);
			return 1;
		}
		if (v->in.line == 0)
			note(v, v->in.file, 0, "empty file");
		lines_close(&v->in);
		v->reading = 0;
	}
}

/* Moves the next record into v->cur. */
static int
next(struct verify *v)
{
	if (v->have_ahead != 0) {
		v->cur = v->ahead;
		v->have_ahead = 0;
		return 1;
	}
	return read_rec(v, &v->cur);
}

/* Returns the record after v->cur if there is one and it parsed. */
static const struct rec *
peek(struct verify *v)
{
	if (v->have_ahead == 0)
		v->have_ahead = read_rec(v, &v->ahead);
	if (v->have_ahead < 0)
		v->have_ahead = 0;	/* the error shows again at next() */
	return v->have_ahead > 0 && v->ahead.bad == 0 ? &v->ahead : NULL;
}

/* --- Judging records --- */

/* Records the problem at |r| (or, if NULL, at v->p) and returns 1. */
static int
problem(struct verify *v, const struct rec *r, enum kind k,
    const char *fmt, ...)
{
	va_list ap;

	v->broken = 1;
	v->kind = k;
	v->pfile = r != NULL ? r->file : v->p.file;
	v->pline = r != NULL ? r->line : v->p.line;
	v->pseq = r == NULL ? v->p.seq : r->bad ? 0 : r->l.seq;
	va_start(ap, fmt);
	tc_text_vfmt(v->msg, sizeof(v->msg), fmt, ap);
	va_end(ap);
	return 1;
}

/*
 * A MAC mismatch before any record matched is either an altered record or
 * the wrong key: the rest of the files tell, since with the right key some
 * later record matches.
 */
static int
altered_or_wrong_key(struct verify *v)
{
	struct rec r;
	int rc;

	problem(v, &v->cur, K_ALTERED, "its MAC does not match its "
	    "contents: the record was altered");
	while ((rc = read_rec(v, &r)) > 0)
		if (r.bad == 0 && r.mac == 1)
			return 1;
	if (rc == 0)
		problem(v, &v->cur, K_WRONGKEY, "no record's MAC matches this "
		    "key: it is not the log's key (or every record was "
		    "altered)");
	return rc < 0 ? -1 : 1;
}

/* Checks the first record of all: it starts the log, or continues an
 * earlier file that was not given. */
static int
check_first(struct verify *v)
{
	const struct rec *c = &v->cur;

	if (strcmp(c->l.prev, ZERO_HEX) == 0) {
		if (c->l.seq == 1)
			return 0;
		return problem(v, c, K_REMOVED, "the log starts at seq %llu "
		    "with no record before it: records 1 to %llu are missing",
		    c->l.seq, c->l.seq - 1);
	}
	if (c->l.seq == 1)
		return problem(v, c, K_PREV, "seq 1 has a prev, but nothing "
		    "comes before it");
	note(v, c->file, c->line, "starts at seq %llu: it continues an "
	    "earlier file that was not given, whose records are not checked",
	    c->l.seq);
	return 0;
}

/* Checks a record whose seq is not more than the one before: a copy, an
 * insertion (before it, or of it), a second chain, or disorder. */
static int
check_backwards(struct verify *v)
{
	const struct rec *c = &v->cur, *n;
	unsigned long long s = c->l.seq, ps = v->p.seq;

	if (strcmp(c->l.digest, v->p.digest) == 0)
		return problem(v, c, K_INSERTED, "this record is a copy of the "
		    "one before it (%s:%lu)", v->p.file, v->p.line);
	/* The record before is the odd one: this one follows the one
	 * before it. */
	if (v->np == 2 && s == ps && strcmp(c->l.prev, v->pp.digest) == 0)
		return problem(v, NULL, K_INSERTED, "this record (seq %llu) "
		    "is not part of the chain: the record after it (%s:%lu) "
		    "follows the one before it", ps, c->file, c->line);
	n = peek(v);
	if (n != NULL && n->l.seq == ps + 1 &&
	    strcmp(n->l.prev, v->p.digest) == 0)
		return problem(v, c, K_INSERTED, "this record (seq %llu) does "
		    "not belong here: the record after it continues from seq "
		    "%llu", s, ps);
	if (s == 1 && strcmp(c->l.prev, ZERO_HEX) == 0)
		return problem(v, c, K_RESTART, "a new chain starts here (seq "
		    "1): the log was started again, or the files are of "
		    "different logs");
	return problem(v, c, K_REORDERED, "seq %llu comes after seq %llu: "
	    "records are out of order", s, ps);
}

/* Checks that v->cur follows the record before it. */
static int
check_link(struct verify *v)
{
	const struct rec *c = &v->cur, *n;
	unsigned long long s = c->l.seq, ps = v->p.seq;

	if (v->np == 0)
		return check_first(v);
	if (s == ps + 1 && strcmp(c->l.prev, v->p.digest) == 0)
		return 0;
	if (s <= ps)
		return check_backwards(v);
	if (s > ps + 1) {
		n = peek(v);
		if (n != NULL && n->l.seq == ps + 1 &&
		    strcmp(n->l.prev, v->p.digest) == 0)
			return problem(v, c, K_REORDERED, "seq %llu comes "
			    "before seq %llu: records were reordered", s,
			    ps + 1);
		return problem(v, c, K_REMOVED, "seq jumps from %llu to %llu: "
		    "%llu record%s removed", ps, s, s - ps - 1,
		    s - ps - 1 == 1 ? " was" : "s were");
	}
	return problem(v, c, K_PREV, "its prev is not the digest of the "
	    "record before it (%s:%lu, seq %llu): that record was replaced, "
	    "or records were removed or inserted there", v->p.file,
	    v->p.line, ps);
}

/* Checks v->cur; returns 0 if it is good, 1 if broken, -1 on error. */
static int
check(struct verify *v)
{
	const struct rec *c = &v->cur;

	if (c->bad)
		return problem(v, c, c->bad - 1, "%s", c->why);
	if (v->keyed < 0)
		v->keyed = v->key != NULL || c->l.keyed;
	if (v->key != NULL && !c->l.keyed)
		return problem(v, c, K_NOTKEYED, "it carries a plain \"hash\" "
		    "where a record written with the key carries \"hmac\" "
		    "(forged, or a plain log checked with --key)");
	if (v->key == NULL && c->l.keyed != v->keyed)
		return problem(v, c, K_MIXED, "it carries \"%s\" where the "
		    "records before carry \"%s\"", c->l.keyed ? "hmac" :
		    "hash", c->l.keyed ? "hash" : "hmac");
	if (c->mac == 0 && v->key != NULL && !v->verified_any)
		return altered_or_wrong_key(v);
	if (c->mac == 0)
		return problem(v, c, K_ALTERED, "its %s does not match its "
		    "contents: the record was altered", v->key != NULL ?
		    "MAC" : "hash");
	if (c->mac == 1)
		v->verified_any = 1;
	return check_link(v);
}

/* Orders writers by pid, then start id. */
static int
writer_cmp(const struct writer *w, long long pid, const char *start)
{
	if (w->pid != pid)
		return w->pid < pid ? -1 : 1;
	return strcmp(w->start, start);
}

/* Returns the writer of |l|, added if new; NULL if out of memory. */
static struct writer *
writer_of(struct verify *v, const struct tc_audit_link *l)
{
	size_t lo = 0, hi = v->nwriters, mid, *ix;
	struct writer *w;
	int c;

	if (v->nwriters > 0 && writer_cmp(&v->writers[v->last_writer],
	    l->writer_pid, l->writer_start) == 0)
		return &v->writers[v->last_writer];
	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = writer_cmp(&v->writers[v->by_id[mid]], l->writer_pid,
		    l->writer_start);
		if (c == 0) {
			v->last_writer = v->by_id[mid];
			return &v->writers[v->last_writer];
		}
		if (c > 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if ((w = reallocarray(v->writers, v->nwriters + 1,
	    sizeof(*w))) == NULL)
		return NULL;
	v->writers = w;
	if ((ix = reallocarray(v->by_id, v->nwriters + 1,
	    sizeof(*ix))) == NULL)
		return NULL;
	v->by_id = ix;
	memmove(&ix[lo + 1], &ix[lo], (v->nwriters - lo) * sizeof(*ix));
	ix[lo] = v->nwriters;
	w = &v->writers[v->nwriters];
	memset(w, 0, sizeof(*w));
	w->pid = l->writer_pid;
	memcpy(w->start, l->writer_start, sizeof(w->start));
	v->last_writer = v->nwriters++;
	return w;
}

/* Counts v->cur for its writer. */
static void
count_writer(struct verify *v)
{
	const struct rec *c = &v->cur;
	struct writer *w;

	if (c->l.writer_pid > 0)
		v->named = 1;
	if ((w = writer_of(v, &c->l)) == NULL) {
		v->nomem = 1;
		return;
	}
	if (w->records++ == 0)
		w->first_seq = c->l.seq;
	w->last_seq = c->l.seq;
	if (c->event == EV_START)
		w->started = 1;
	if (c->event == EV_STOP)
		w->stopped = 1;
}

/* Remembers v->cur as the record before the next one. */
static void
advance(struct verify *v)
{
	v->pp = v->p;
	v->p.file = v->cur.file;
	v->p.line = v->cur.line;
	v->p.seq = v->cur.l.seq;
	memcpy(v->p.digest, v->cur.l.digest, sizeof(v->p.digest));
	if (v->np < 2)
		v->np++;
	if (v->records++ == 0)
		v->first_seq = v->cur.l.seq;
	v->last_seq = v->cur.l.seq;
	count_writer(v);
}

/* Adds, when the problem is at the start of a later file, a hint that
 * the files may be out of order. */
static void
order_hint(struct verify *v)
{
	size_t n = strlen(v->msg);

	if (v->pline == 1 && v->pfile != v->files[0] && v->kind != K_PARTIAL &&
	    v->kind != K_NOTJSON && v->kind != K_FIELDS)
		tc_text_fmt(v->msg + n, sizeof(v->msg) - n, " (at the start of "
		    "%s: are the files given oldest first?)", v->pfile);
}

/* --- Reporting --- */

static const char *
chain_name(const struct verify *v)
{
	return v->keyed > 0 ? "HMAC-SHA-256" : "SHA-256";
}

/*
 * Prints, when the records name more than one writer, who wrote how many:
 * for a log one server wrote, the verdict stays one line.
 */
static void
writers_text(const struct verify *v)
{
	const struct writer *w;
	size_t i, n = 0;

	if (!v->named || v->nwriters < 2)
		return;
	for (i = 0; i < v->nwriters; i++)
		n += v->writers[i].pid > 0;
	printf("written by %zu server%s:\n", n, n == 1 ? "" : "s");
	for (i = 0; i < v->nwriters && i < WRITERS_SHOWN; i++) {
		w = &v->writers[i];
		if (w->pid > 0)
			printf("  pid %lld start %s: ", w->pid, w->start);
		else
			printf("  no writer named: ");
		printf("%llu record%s (seq %llu to %llu), %s, %s\n",
		    w->records, w->records == 1 ? "" : "s", w->first_seq,
		    w->last_seq, w->started ? "its start" : "no start",
		    w->stopped ? "its stop" : "no stop");
	}
	if (v->nwriters > WRITERS_SHOWN)
		printf("  and %zu more (--json lists them all)\n",
		    v->nwriters - WRITERS_SHOWN);
}

/* Prints the verdict for a person; returns the exit status. */
static int
report_text(const struct verify *v)
{
	char a[PATH_MAX + 8], b[1024];
	size_t i;

	for (i = 0; i < v->nnotes; i++) {
		if (v->notes[i].line > 0)
			printf("note: %s:%lu: %s\n", clean(v->notes[i].file, a,
			    sizeof(a)), v->notes[i].line, v->notes[i].text);
		else
			printf("note: %s: %s\n", clean(v->notes[i].file, a,
			    sizeof(a)), v->notes[i].text);
	}
	if (v->broken) {
		printf("broken: %s:%lu: ", clean(v->pfile, a, sizeof(a)),
		    v->pline);
		if (v->pseq > 0)
			printf("seq %llu: ", v->pseq);
		printf("%s: %s\n", kind_names[v->kind],
		    clean(v->msg, b, sizeof(b)));
		return EXIT_BROKEN;
	}
	if (v->records == 0) {
		printf("intact: no records in %d file%s\n", v->nfiles,
		    v->nfiles == 1 ? "" : "s");
		return EXIT_INTACT;
	}
	if (v->keyed > 0 && v->key == NULL) {
		printf("unverified: %llu record%s (seq %llu to %llu) in %d "
		    "file%s link up, but the log is keyed (HMAC-SHA-256) and "
		    "its MACs cannot be checked without --key FILE\n",
		    v->records, v->records == 1 ? "" : "s", v->first_seq,
		    v->last_seq, v->nfiles, v->nfiles == 1 ? "" : "s");
		writers_text(v);
		return EXIT_TROUBLE;
	}
	printf("intact: %llu record%s (seq %llu to %llu) in %d file%s, %s "
	    "chain\n", v->records, v->records == 1 ? "" : "s", v->first_seq,
	    v->last_seq, v->nfiles, v->nfiles == 1 ? "" : "s",
	    chain_name(v));
	writers_text(v);
	return EXIT_INTACT;
}

/* Adds the string member |name| to |o|, made valid UTF-8 (a file name
 * may hold any bytes); returns 0 or -1. */
static int
add_text(cJSON *o, const char *name, const char *s)
{
	char *fixed;
	int rc;

	if ((fixed = utf8_dup(s)) == NULL)
		return -1;
	rc = cJSON_AddStringToObject(o, name, fixed) == NULL ? -1 : 0;
	free(fixed);
	return rc;
}

/* Adds the notes to |o| as an array of {file, line, message}. */
static int
add_notes(const struct verify *v, cJSON *o)
{
	cJSON *arr, *n;
	size_t i;

	if ((arr = cJSON_AddArrayToObject(o, "notes")) == NULL)
		return -1;
	for (i = 0; i < v->nnotes; i++) {
		if ((n = cJSON_CreateObject()) == NULL ||
		    !cJSON_AddItemToArray(arr, n) ||
		    add_text(n, "file", v->notes[i].file) != 0 ||
		    (v->notes[i].line > 0 &&
		    cJSON_AddNumberToObject(n, "line", (double)v->notes[i].line)
		    == NULL) ||
		    add_text(n, "message", v->notes[i].text) != 0)
			return -1;
	}
	return 0;
}

/* Adds the writers to |o| as an array of {pid, start, records,
 * first_seq, last_seq, start_record, stop_record}. */
static int
add_writers(const struct verify *v, cJSON *o)
{
	const struct writer *w;
	cJSON *arr, *n;
	size_t i;

	if ((arr = cJSON_AddArrayToObject(o, "writers")) == NULL)
		return -1;
	for (i = 0; i < v->nwriters; i++) {
		w = &v->writers[i];
		if ((n = cJSON_CreateObject()) == NULL ||
		    !cJSON_AddItemToArray(arr, n) ||
		    (w->pid > 0 ? cJSON_AddNumberToObject(n, "pid",
		    (double)w->pid) : cJSON_AddNullToObject(n, "pid")) ==
		    NULL || (w->pid > 0 ? cJSON_AddStringToObject(n, "start",
		    w->start) : cJSON_AddNullToObject(n, "start")) == NULL ||
		    cJSON_AddNumberToObject(n, "records",
		    (double)w->records) == NULL ||
		    cJSON_AddNumberToObject(n, "first_seq",
		    (double)w->first_seq) == NULL ||
		    cJSON_AddNumberToObject(n, "last_seq",
		    (double)w->last_seq) == NULL ||
		    cJSON_AddBoolToObject(n, "start_record", w->started) ==
		    NULL ||
		    cJSON_AddBoolToObject(n, "stop_record", w->stopped) == NULL)
			return -1;
	}
	return 0;
}

/* Adds the problem to |o| as {file, line, seq, kind, message}. */
static int
add_problem(const struct verify *v, cJSON *o)
{
	cJSON *p;

	if ((p = cJSON_AddObjectToObject(o, "problem")) == NULL ||
	    add_text(p, "file", v->pfile) != 0 ||
	    cJSON_AddNumberToObject(p, "line", (double)v->pline) == NULL ||
	    (v->pseq > 0 ? cJSON_AddNumberToObject(p, "seq",
	    (double)v->pseq) : cJSON_AddNullToObject(p, "seq")) == NULL ||
	    cJSON_AddStringToObject(p, "kind", kind_names[v->kind]) == NULL ||
	    add_text(p, "message", v->msg) != 0)
		return -1;
	return 0;
}

/* Prints the verdict as one JSON object; returns the exit status. */
static int
report_json(const struct verify *v)
{
	const char *result;
	int status;
	cJSON *o;

	if (v->broken) {
		result = "broken";
		status = EXIT_BROKEN;
	} else if (v->records > 0 && v->keyed > 0 && v->key == NULL) {
		result = "unverified";
		status = EXIT_TROUBLE;
	} else {
		result = "intact";
		status = EXIT_INTACT;
	}
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "result", result) == NULL ||
	    (v->keyed < 0 ? cJSON_AddNullToObject(o, "chain") :
	    cJSON_AddStringToObject(o, "chain", v->keyed ? "hmac-sha256" :
	    "sha256")) == NULL ||
	    cJSON_AddNumberToObject(o, "files", v->nfiles) == NULL ||
	    cJSON_AddNumberToObject(o, "records", (double)v->records) == NULL ||
	    (v->records > 0 ? cJSON_AddNumberToObject(o, "first_seq",
	    (double)v->first_seq) : cJSON_AddNullToObject(o, "first_seq")) ==
	    NULL || (v->records > 0 ? cJSON_AddNumberToObject(o, "last_seq",
	    (double)v->last_seq) : cJSON_AddNullToObject(o, "last_seq")) ==
	    NULL || add_notes(v, o) != 0 || add_writers(v, o) != 0 ||
	    (v->broken && add_problem(v, o) != 0)) {
		cJSON_Delete(o);
		tc_log(TC_LOG_ERROR, "out of memory");
		return EXIT_TROUBLE;
	}
	return print_json(o) == 0 ? status : EXIT_TROUBLE;
}

/* --- The command --- */

/* Runs the check over every record; returns 0, or -1 on an I/O error. */
static int
run(struct verify *v)
{
	int rc;

	while ((rc = next(v)) > 0) {
		if ((rc = check(v)) != 0)
			break;
		advance(v);
	}
	if (v->reading)
		lines_close(&v->in);
	if (v->nomem) {
		tc_log(TC_LOG_ERROR, "out of memory");
		return -1;
	}
	if (rc < 0)
		return -1;
	if (v->broken)
		order_hint(v);
	return 0;
}

int
cmd_verify(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "key",	required_argument,	NULL,	'k' },
		{ "json",	no_argument,		NULL,	'j' },
		{ "help",	no_argument,		NULL,	'h' },
		{ NULL,		0,			NULL,	0 }
	};
	struct tc_audit_key key = { NULL, 0 };
	struct verify v;
	struct tc_diag d;
	const char *keyfile = NULL;
	int c, json = 0, status;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:jh", opts, NULL)) != -1) {
		if (c == 'k')
			keyfile = optarg;
		else if (c == 'j')
			json = 1;
		else if (c == 'h')
			return help();
		else {
			tc_usage_bad_option("verify", c, argv, opts);
			return EXIT_TROUBLE;
		}
	}
	if (optind == argc)
		goto usage;
	if (keyfile != NULL && tc_audit_key_load(&key, keyfile, &d) != 0) {
		tc_log(TC_LOG_ERROR, "%s", d.msg);
		return EXIT_TROUBLE;
	}
	memset(&v, 0, sizeof(v));
	v.files = argv + optind;
	v.nfiles = argc - optind;
	v.key = keyfile != NULL ? &key : NULL;
	v.keyed = -1;
	if (run(&v) != 0)
		status = EXIT_TROUBLE;
	else
		status = json ? report_json(&v) : report_text(&v);
	free(v.notes);
	free(v.writers);
	free(v.by_id);
	tc_audit_key_release(&key);
	return status;
usage:
	fputs("usage: toolcell-audit verify [--key FILE] [--json] FILE...\n",
	    stderr);
	return EXIT_TROUBLE;
}
