/*
 * summary.c: toolcell-audit summary [--since TIME] [--until TIME] [--json]
 * FILE...: over the records whose time is in [since, until), the calls per
 * tool (run, denied, and cancelled before they ran), the denials by what
 * denied them, the results by outcome other than "ok", the ten slowest
 * calls, the paths calls named (the ten most named, in the text; all,
 * with --json), and the servers that wrote the records (by pid and start
 * id: their records, calls, first and last time).  Nothing is verified
 * here (verify does that); lines that are not records are skipped with a
 * warning.
 */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"
#include "base/log.h"
#include "base/text.h"
#include "serve/usage.h"

#define SLOWEST		10
#define PATHS_SHOWN	10		/* paths listed in the text */
#define NAME_SHOWN	256		/* bytes of a name shown */

/* A name and its counts: for tools and paths calls, run, denied,
 * cancelled; for servers records, calls, and the times of the first and
 * last record; else n[0]. */
struct tally {
	char		*name;
	unsigned long long n[4];
	char		*first, *last;
	long long	 first_ms, last_ms;
};

/* Tallies sorted by name, for bsearch. */
struct tallies {
	struct tally	*t;
	size_t		 len;
	size_t		 cap;
};

struct slow {
	unsigned long long duration;
	unsigned long long seq;
	unsigned long long call;
	int		 has_call;
	char		*time;
	char		*tool;
	char		*outcome;
};

struct summary {
	long long	 since, until;	/* ms; LLONG_MIN, LLONG_MAX: open */
	unsigned long long records;
	char		*first, *last;	/* the earliest and latest time */
	long long	 first_ms, last_ms;
	struct tallies	 tools, denials, errors, paths, subjects, servers;
	struct slow	 slowest[SLOWEST];
	size_t		 nslow;
	int		 nomem;
};

/* --- Counting --- */

static int
tally_cmp(const void *key, const void *t)
{
	return strcmp(key, ((const struct tally *)t)->name);
}

/* Returns the tally of |name| in |ts|, added if new; NULL if out of
 * memory. */
static struct tally *
tally(struct tallies *ts, const char *name)
{
	struct tally *t, *grown;
	size_t lo = 0, hi = ts->len, mid;
	int c;

	if (ts->len > 0 && (t = bsearch(name, ts->t, ts->len, sizeof(*t),
	    tally_cmp)) != NULL)
		return t;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcmp(name, ts->t[mid].name);
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (ts->len == ts->cap) {
		grown = realloc(ts->t, (ts->cap * 2 + 8) * sizeof(*grown));
		if (grown == NULL)
			return NULL;
		ts->t = grown;
		ts->cap = ts->cap * 2 + 8;
	}
	memmove(&ts->t[lo + 1], &ts->t[lo], (ts->len - lo) * sizeof(*t));
	t = &ts->t[lo];
	memset(t, 0, sizeof(*t));
	if ((t->name = strdup(name)) == NULL) {
		memmove(&ts->t[lo], &ts->t[lo + 1], (ts->len - lo) *
		    sizeof(*t));
		return NULL;
	}
	ts->len++;
	return t;
}

static void
tallies_free(struct tallies *ts)
{
	size_t i;

	for (i = 0; i < ts->len; i++) {
		free(ts->t[i].name);
		free(ts->t[i].first);
		free(ts->t[i].last);
	}
	free(ts->t);
}

/* Adds 1 to count |i| of |name| in |ts|. */
static void
count(struct summary *s, struct tallies *ts, const char *name, int i)
{
	char *fixed = utf8_dup(name);
	struct tally *t = fixed != NULL ? tally(ts, fixed) : NULL;

	free(fixed);
	if (t == NULL)
		s->nomem = 1;
	else
		t->n[i]++;
}

static void
slow_free(struct slow *w)
{
	free(w->time);
	free(w->tool);
	free(w->outcome);
}

/* Keeps the result |o| among the slowest if it is one; ties keep the
 * earlier record first. */
static void
consider_slow(struct summary *s, const cJSON *o, const char *time)
{
	const char *tool = member_str(o, "tool");
	const char *outcome = member_str(o, "outcome");
	struct slow w;
	size_t at;

	memset(&w, 0, sizeof(w));
	if (member_uint(o, "duration_ms", &w.duration) != 0)
		return;
	for (at = s->nslow; at > 0 && s->slowest[at - 1].duration <
	    w.duration; at--)
		continue;
	if (at == SLOWEST)
		return;
	member_uint(o, "seq", &w.seq);
	w.has_call = member_uint(o, "call", &w.call) == 0;
	if ((w.time = utf8_dup(time)) == NULL ||
	    (w.tool = utf8_dup(tool != NULL ? tool : "?")) == NULL ||
	    (w.outcome = utf8_dup(outcome != NULL ? outcome : "?")) == NULL) {
		slow_free(&w);
		s->nomem = 1;
		return;
	}
	if (s->nslow == SLOWEST)
		slow_free(&s->slowest[--s->nslow]);
	memmove(&s->slowest[at + 1], &s->slowest[at], (s->nslow - at) *
	    sizeof(w));
	s->slowest[at] = w;
	s->nslow++;
}

/* Keeps |time| in |*first| or |*last| if it is the first or last. */
static void
span_of(struct summary *s, char **first, long long *first_ms, char **last,
    long long *last_ms, const char *time, long long ms)
{
	char *dup;

	if (*first == NULL || ms < *first_ms) {
		if ((dup = strdup(time)) == NULL) {
			s->nomem = 1;
			return;
		}
		free(*first);
		*first = dup;
		*first_ms = ms;
	}
	if (*last == NULL || ms >= *last_ms) {
		if ((dup = strdup(time)) == NULL) {
			s->nomem = 1;
			return;
		}
		free(*last);
		*last = dup;
		*last_ms = ms;
	}
}

/* Keeps |time| as the first or last time if it is. */
static void
span(struct summary *s, const char *time, long long ms)
{
	span_of(s, &s->first, &s->first_ms, &s->last, &s->last_ms, time, ms);
}

/* Counts the record |o| for the server its "writer" names, if any. */
static void
count_server(struct summary *s, const cJSON *o, const char *event,
    const char *time, long long ms)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "writer");
	const char *start = member_str(w, "start");
	unsigned long long pid;
	struct tally *t;
	char key[64];

	if (member_uint(w, "pid", &pid) != 0 || start == NULL)
		return;
	tc_text_fmt(key, sizeof(key), "%llu %s", pid, start);
	if ((t = tally(&s->servers, key)) == NULL) {
		s->nomem = 1;
		return;
	}
	t->n[0]++;
	if (event != NULL && strcmp(event, "call") == 0)
		t->n[1]++;
	span_of(s, &t->first, &t->first_ms, &t->last, &t->last_ms, time, ms);
}

/* Returns the count a call's |decision| adds to: 1 run, 2 denied, 3
 * cancelled; 0 for none of them. */
static int
decision_index(const char *decision)
{
	if (strcmp(decision, "run") == 0)
		return 1;
	if (strcmp(decision, "denied") == 0)
		return 2;
	if (strcmp(decision, "cancelled") == 0)
		return 3;
	return 0;
}

/* Counts the paths a call record |o| names (each "root" and "path"
 * joined), as a call, and as run, denied or cancelled by |decision|. */
static void
count_paths(struct summary *s, const cJSON *o, const char *decision)
{
	const cJSON *p;
	const char *root, *path;
	char *full;
	size_t n;
	int i;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(o, "paths")) {
		root = member_str(p, "root");
		if ((path = member_str(p, "path")) == NULL)
			continue;
		if (root != NULL && strcmp(path, ".") == 0)
			path = "";
		n = (root != NULL ? strlen(root) : 0) + strlen(path) + 2;
		if ((full = malloc(n)) == NULL) {
			s->nomem = 1;
			return;
		}
		if (root == NULL)
			memcpy(full, path, n - 1);
		else
			snprintf(full, n, "%s%s%s", root, *path != '\0' &&
			    strcmp(root, "/") != 0 ? "/" : "", path);
		count(s, &s->paths, full, 0);
		if (decision != NULL && (i = decision_index(decision)) > 0)
			count(s, &s->paths, full, i);
		free(full);
	}
}

/* Counts the subjects other than paths a call record |o| names, each as
 * "KIND VALUE", as count_paths() counts paths (which "paths" names). */
static void
count_subjects(struct summary *s, const cJSON *o, const char *decision)
{
	const cJSON *p;
	const char *kind, *value;
	char *full;
	int i;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(o,
	    "subjects")) {
		kind = member_str(p, "kind");
		value = member_str(p, "value");
		if (kind == NULL || value == NULL || strcmp(kind, "path") == 0)
			continue;
		if (asprintf(&full, "%s %s", kind, value) < 0) {
			s->nomem = 1;
			return;
		}
		count(s, &s->subjects, full, 0);
		if (decision != NULL && (i = decision_index(decision)) > 0)
			count(s, &s->subjects, full, i);
		free(full);
	}
}

/* Counts the record |o| if its time is in the range. */
static void
take(struct summary *s, const cJSON *o, const char *where)
{
	const char *time = member_str(o, "time"), *event, *tool, *name;
	long long ms;
	int i;

	if (time == NULL || tc_audit_parse_time(time, &ms) != 0) {
		tc_warn("%s: no valid \"time\": skipped", where);
		return;
	}
	if (ms < s->since || ms >= s->until)
		return;
	s->records++;
	span(s, time, ms);
	event = member_str(o, "event");
	count_server(s, o, event, time, ms);
	if (event == NULL)
		return;
	tool = member_str(o, "tool") != NULL ? member_str(o, "tool") : "?";
	if (strcmp(event, "call") == 0) {
		count(s, &s->tools, tool, 0);
		name = member_str(o, "decision");
		count_paths(s, o, name);
		count_subjects(s, o, name);
		if (name != NULL && (i = decision_index(name)) > 0)
			count(s, &s->tools, tool, i);
		if (name != NULL && strcmp(name, "denied") == 0) {
			name = member_str(o, "by");
			count(s, &s->denials, name != NULL ? name : "?", 0);
		}
	} else if (strcmp(event, "result") == 0) {
		name = member_str(o, "outcome");
		if (name == NULL || strcmp(name, "ok") != 0)
			count(s, &s->errors, name != NULL ? name : "?", 0);
		consider_slow(s, o, time);
	}
}

/* Reads every record of |file|; returns 0, or -1 after saying why. */
static int
read_file(struct summary *s, const char *file)
{
	char where[PATH_MAX + 32], name[PATH_MAX];
	struct lines in;
	cJSON *o;
	int rc;

	if (lines_open(&in, file) != 0)
		return -1;
	while ((rc = lines_next(&in)) > 0 && !s->nomem) {
		tc_text_fmt(where, sizeof(where), "%s:%lu", clean(file, name,
		    sizeof(name)), in.line);
		o = in.toolong ? NULL : cJSON_ParseWithLength(in.buf, in.len);
		if (cJSON_IsObject(o))
			take(s, o, where);
		else
			tc_warn("%s: not a JSON record: skipped", where);
		cJSON_Delete(o);
	}
	lines_close(&in);
	if (s->nomem) {
		tc_log(TC_LOG_ERROR, "out of memory");
		return -1;
	}
	return rc < 0 ? -1 : 0;
}

/* --- Printing --- */

/* Prints one section of tallies with their first count. */
static void
print_tallies(const char *title, const struct tallies *ts)
{
	char name[NAME_SHOWN];
	size_t i;

	printf("%s:\n", title);
	if (ts->len == 0)
		printf("  (none)\n");
	for (i = 0; i < ts->len; i++)
		printf("  %-24s %6llu\n", clean(ts->t[i].name, name,
		    sizeof(name)), ts->t[i].n[0]);
}

/* Orders tallies by their first count, most first, then by name. */
static int
most_first(const void *a, const void *b)
{
	const struct tally *x = *(const struct tally *const *)a;
	const struct tally *y = *(const struct tally *const *)b;

	if (x->n[0] != y->n[0])
		return x->n[0] > y->n[0] ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Prints under |title| the PATHS_SHOWN paths (or subjects) most named,
 * with their counts. */
static int
print_named(const char *title, const struct tallies *ts)
{
	char name[NAME_SHOWN];
	const struct tally **v;
	size_t i;

	printf("%s most named:\n", title);
	if (ts->len == 0) {
		printf("  (none)\n");
		return 0;
	}
	if ((v = calloc(ts->len, sizeof(*v))) == NULL)
		return -1;
	for (i = 0; i < ts->len; i++)
		v[i] = &ts->t[i];
	qsort(v, ts->len, sizeof(*v), most_first);
	for (i = 0; i < ts->len && i < PATHS_SHOWN; i++)
		printf("  %-24s %6llu  (%llu run, %llu denied, %llu "
		    "cancelled)\n", clean(v[i]->name, name, sizeof(name)),
		    v[i]->n[0], v[i]->n[1], v[i]->n[2], v[i]->n[3]);
	if (ts->len > PATHS_SHOWN)
		printf("  (%zu more)\n", ts->len - PATHS_SHOWN);
	free(v);
	return 0;
}

/* Orders servers by their first record's time, then by pid and start. */
static int
earliest_first(const void *a, const void *b)
{
	const struct tally *x = *(const struct tally *const *)a;
	const struct tally *y = *(const struct tally *const *)b;

	if (x->first_ms != y->first_ms)
		return x->first_ms < y->first_ms ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Returns the servers of |ts| sorted by earliest_first(), or NULL if out
 * of memory (or none); the caller frees the array. */
static const struct tally **
servers_sorted(const struct tallies *ts)
{
	const struct tally **v;
	size_t i;

	if (ts->len == 0 || (v = calloc(ts->len, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < ts->len; i++)
		v[i] = &ts->t[i];
	qsort(v, ts->len, sizeof(*v), earliest_first);
	return v;
}

/* Prints the servers that wrote the records, earliest first. */
static int
print_servers(const struct tallies *ts)
{
	char a[NAME_SHOWN], b[NAME_SHOWN], c[NAME_SHOWN];
	const struct tally **v;
	const char *start;
	size_t i;

	printf("servers:\n");
	if (ts->len == 0) {
		printf("  (no record names its writer)\n");
		return 0;
	}
	if ((v = servers_sorted(ts)) == NULL)
		return -1;
	for (i = 0; i < ts->len; i++) {
		/* The name is "<pid> <start>", as count_server() made it. */
		start = strchr(v[i]->name, ' ');
		printf("  pid %.*s start %s: %llu record%s, %llu call%s, %s to "
		    "%s\n", (int)(start - v[i]->name), v[i]->name,
		    clean(start + 1, a, sizeof(a)), v[i]->n[0],
		    v[i]->n[0] == 1 ? "" : "s", v[i]->n[1],
		    v[i]->n[1] == 1 ? "" : "s",
		    clean(v[i]->first, b, sizeof(b)),
		    clean(v[i]->last, c, sizeof(c)));
	}
	free(v);
	return 0;
}

static int
print_text(const struct summary *s)
{
	char a[NAME_SHOWN], b[NAME_SHOWN], c[NAME_SHOWN];
	const struct slow *w;
	size_t i;

	printf("records: %llu", s->records);
	if (s->records > 0)
		printf(" (%s to %s)", clean(s->first, a, sizeof(a)),
		    clean(s->last, b, sizeof(b)));
	printf("\ncalls by tool:\n");
	if (s->tools.len == 0)
		printf("  (none)\n");
	for (i = 0; i < s->tools.len; i++)
		printf("  %-24s %6llu  (%llu run, %llu denied, %llu "
		    "cancelled)\n", clean(s->tools.t[i].name, a, sizeof(a)),
		    s->tools.t[i].n[0], s->tools.t[i].n[1],
		    s->tools.t[i].n[2], s->tools.t[i].n[3]);
	print_tallies("denials", &s->denials);
	print_tallies("errors by outcome", &s->errors);
	printf("slowest calls:\n");
	if (s->nslow == 0)
		printf("  (none)\n");
	for (i = 0; i < s->nslow; i++) {
		w = &s->slowest[i];
		printf("  %8llu ms  %s  #%llu  call ", w->duration,
		    clean(w->time, a, sizeof(a)), w->seq);
		if (w->has_call)
			printf("%llu", w->call);
		else
			printf("?");
		printf("  %s  %s\n", clean(w->tool, b, sizeof(b)),
		    clean(w->outcome, c, sizeof(c)));
	}
	/* Subjects other than paths, when the log has any: servers that
	 * only touch files never do. */
	if (print_named("paths", &s->paths) != 0 || (s->subjects.len > 0 &&
	    print_named("subjects", &s->subjects) != 0) ||
	    print_servers(&s->servers) != 0) {
		tc_log(TC_LOG_ERROR, "out of memory");
		return -1;
	}
	return 0;
}

/* Adds |ts| to |o| as {"name": count, ...} under |key|. */
static int
add_counts(cJSON *o, const char *key, const struct tallies *ts)
{
	cJSON *m;
	size_t i;

	if ((m = cJSON_AddObjectToObject(o, key)) == NULL)
		return -1;
	for (i = 0; i < ts->len; i++)
		if (cJSON_AddNumberToObject(m, ts->t[i].name,
		    (double)ts->t[i].n[0]) == NULL)
			return -1;
	return 0;
}

/* Adds the tools (or paths) as {"tool": {"calls":N,"run":N,"denied":N,
 * "cancelled":N}, ...} under |key|. */
static int
add_tools(cJSON *o, const char *key, const struct tallies *ts)
{
	cJSON *m, *t;
	size_t i;

	if ((m = cJSON_AddObjectToObject(o, key)) == NULL)
		return -1;
	for (i = 0; i < ts->len; i++)
		if ((t = cJSON_AddObjectToObject(m, ts->t[i].name)) == NULL ||
		    !cJSON_AddNumberToObject(t, "calls",
		    (double)ts->t[i].n[0]) ||
		    !cJSON_AddNumberToObject(t, "run", (double)ts->t[i].n[1]) ||
		    !cJSON_AddNumberToObject(t, "denied",
		    (double)ts->t[i].n[2]) ||
		    !cJSON_AddNumberToObject(t, "cancelled",
		    (double)ts->t[i].n[3]))
			return -1;
	return 0;
}

/* Adds the servers as an array of {pid, start, records, calls, first,
 * last}, earliest first. */
static int
add_servers(cJSON *o, const struct tallies *ts)
{
	const struct tally **v = NULL;
	unsigned long long pid;
	const char *sp;
	cJSON *arr, *e;
	size_t i;
	int rc = -1;

	if ((arr = cJSON_AddArrayToObject(o, "servers")) == NULL ||
	    (ts->len > 0 && (v = servers_sorted(ts)) == NULL))
		return -1;
	for (i = 0; i < ts->len; i++) {
		/* The name is "<pid> <start>", as count_server() made it. */
		pid = strtoull(v[i]->name, NULL, 10);
		sp = strchr(v[i]->name, ' ');
		if ((e = cJSON_CreateObject()) == NULL ||
		    !cJSON_AddItemToArray(arr, e) ||
		    !cJSON_AddNumberToObject(e, "pid", (double)pid) ||
		    !cJSON_AddStringToObject(e, "start", sp != NULL ? sp + 1 :
		    "") ||
		    !cJSON_AddNumberToObject(e, "records",
		    (double)v[i]->n[0]) ||
		    !cJSON_AddNumberToObject(e, "calls", (double)v[i]->n[1]) ||
		    !cJSON_AddStringToObject(e, "first", v[i]->first) ||
		    !cJSON_AddStringToObject(e, "last", v[i]->last))
			goto out;
	}
	rc = 0;
out:
	free(v);
	return rc;
}

/* Adds the slowest calls as an array of objects. */
static int
add_slowest(cJSON *o, const struct summary *s)
{
	const struct slow *w;
	cJSON *arr, *e;
	size_t i;

	if ((arr = cJSON_AddArrayToObject(o, "slowest")) == NULL)
		return -1;
	for (i = 0; i < s->nslow; i++) {
		w = &s->slowest[i];
		if ((e = cJSON_CreateObject()) == NULL ||
		    !cJSON_AddItemToArray(arr, e) ||
		    !cJSON_AddStringToObject(e, "time", w->time) ||
		    !cJSON_AddNumberToObject(e, "seq", (double)w->seq) ||
		    !(w->has_call ? cJSON_AddNumberToObject(e, "call",
		    (double)w->call) : cJSON_AddNullToObject(e, "call")) ||
		    !cJSON_AddStringToObject(e, "tool", w->tool) ||
		    !cJSON_AddStringToObject(e, "outcome", w->outcome) ||
		    !cJSON_AddNumberToObject(e, "duration_ms",
		    (double)w->duration))
			return -1;
	}
	return 0;
}

static int
print_summary_json(const struct summary *s)
{
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddNumberToObject(o, "records", (double)s->records) ||
	    !(s->first != NULL ? cJSON_AddStringToObject(o, "first",
	    s->first) : cJSON_AddNullToObject(o, "first")) ||
	    !(s->last != NULL ? cJSON_AddStringToObject(o, "last", s->last) :
	    cJSON_AddNullToObject(o, "last")) ||
	    add_tools(o, "tools", &s->tools) != 0 ||
	    add_counts(o, "denials", &s->denials) != 0 ||
	    add_counts(o, "errors", &s->errors) != 0 ||
	    add_slowest(o, s) != 0 ||
	    add_tools(o, "paths", &s->paths) != 0 ||
	    add_tools(o, "subjects", &s->subjects) != 0 ||
	    add_servers(o, &s->servers) != 0) {
		cJSON_Delete(o);
		tc_log(TC_LOG_ERROR, "out of memory");
		return -1;
	}
	return print_json(o);
}

/* --- The command --- */

/* Reads the TIME of --since or --until into |ms|. */
static int
range_arg(const char *opt, const char *arg, long long *ms)
{
	if (tc_audit_parse_time(arg, ms) == 0)
		return 0;
	tc_usage_error("summary: --%s '%s': not a time (RFC 3339, as "
	    "2026-11-23T10:00:00Z, or a date, as 2026-11-23)", opt, arg);
	return -1;
}

static void
summary_free(struct summary *s)
{
	size_t i;

	for (i = 0; i < s->nslow; i++)
		slow_free(&s->slowest[i]);
	tallies_free(&s->tools);
	tallies_free(&s->denials);
	tallies_free(&s->errors);
	tallies_free(&s->paths);
	tallies_free(&s->subjects);
	tallies_free(&s->servers);
	free(s->first);
	free(s->last);
}

int
cmd_summary(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json",	no_argument,		NULL,	'j' },
		{ "since",	required_argument,	NULL,	's' },
		{ "until",	required_argument,	NULL,	'u' },
		{ "help",	no_argument,		NULL,	'h' },
		{ NULL,		0,			NULL,	0 }
	};
	struct summary s;
	int c, i, json = 0, rc = 0;

	memset(&s, 0, sizeof(s));
	s.since = LLONG_MIN;
	s.until = LLONG_MAX;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":js:u:h", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 's' || c == 'u') {
			if (range_arg(c == 's' ? "since" : "until", optarg,
			    c == 's' ? &s.since : &s.until) != 0)
				return EXIT_TROUBLE;
		} else if (c == 'h')
			return help();
		else {
			tc_usage_bad_option("summary", c, argv, opts);
			return EXIT_TROUBLE;
		}
	}
	if (optind == argc)
		goto usage;
	for (i = optind; i < argc && rc == 0; i++)
		rc = read_file(&s, argv[i]);
	if (rc == 0 && json)
		rc = print_summary_json(&s);
	else if (rc == 0)
		rc = print_text(&s);
	summary_free(&s);
	return rc == 0 ? EXIT_INTACT : EXIT_TROUBLE;
usage:
	fputs("usage: toolcell-audit summary [--since TIME] [--until TIME] "
	    "[--json] FILE...\n", stderr);
	return EXIT_TROUBLE;
}
