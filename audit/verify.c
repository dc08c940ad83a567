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
 * ahead, and remembers the two records before.  Exit status: 0 intact,
 * 1 broken, 2 usage or I/O error, or a keyed log checked without its key
 * (its links are checked, but that is not a verification).
 */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "text.h"
#include "usage.h"

#define ZERO_HEX	"00000000000000000000000000000000" \
			"00000000000000000000000000000000"

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

/* Fills |r| from the line just read, checking its digest if it can. */
static void
take_line(struct verify *v, struct rec *r)
{
	struct tc_diag d TC_UNINIT;
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
	rc = tc_audit_parse_line(v->in.buf, v->in.len, &r->l, NULL, &d);
	if (rc != 0) {
		r->bad = 1 + (rc == TC_EINVAL ? K_FIELDS : K_NOTJSON);
		tc_text_fmt(r->why, sizeof(r->why), "%s", d.msg);
		return;
	}
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
		return EXIT_TROUBLE;
	}
	printf("intact: %llu record%s (seq %llu to %llu) in %d file%s, %s "
	    "chain\n", v->records, v->records == 1 ? "" : "s", v->first_seq,
	    v->last_seq, v->nfiles, v->nfiles == 1 ? "" : "s",
	    chain_name(v));
	return EXIT_INTACT;
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
		    cJSON_AddStringToObject(n, "file", v->notes[i].file) ==
		    NULL || (v->notes[i].line > 0 &&
		    cJSON_AddNumberToObject(n, "line", (double)v->notes[i].line)
		    == NULL) ||
		    cJSON_AddStringToObject(n, "message", v->notes[i].text) ==
		    NULL)
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
	    cJSON_AddStringToObject(p, "file", v->pfile) == NULL ||
	    cJSON_AddNumberToObject(p, "line", (double)v->pline) == NULL ||
	    (v->pseq > 0 ? cJSON_AddNumberToObject(p, "seq",
	    (double)v->pseq) : cJSON_AddNullToObject(p, "seq")) == NULL ||
	    cJSON_AddStringToObject(p, "kind", kind_names[v->kind]) == NULL ||
	    cJSON_AddStringToObject(p, "message", v->msg) == NULL)
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
	    NULL || add_notes(v, o) != 0 ||
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
	tc_audit_key_release(&key);
	return status;
usage:
	fputs("usage: toolcell-audit verify [--key FILE] [--json] FILE...\n",
	    stderr);
	return EXIT_TROUBLE;
}
