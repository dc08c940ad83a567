/*
 * tail.c: toolcell-audit tail [-n N] [--json] FILE: the last N records
 * (10 unless told), one line each for a person (time, seq, the pid of the
 * server that wrote it, event, and the event's call, request id, tool,
 * the paths it named, decision or outcome, duration), or with --json the
 * lines as they are in the log.  Nothing is verified here: verify does
 * that, and tail shows a line that is not a record for what it is.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"
#include "base/log.h"
#include "base/text.h"
#include "serve/usage.h"

#define TAIL_DEFAULT	10
#define TAIL_MAX	1000000
#define SHOWN_MAX	4096		/* bytes of one line shown */
#define FIELD_SHOWN	512		/* bytes of one member or path */

/* A line kept for the end. */
struct kept {
	char		*text;
	size_t		 len;
	unsigned long	 line;
};

/* Appends " <member>" to |b| if |o| has the string member |name|, cut
 * (on a character boundary, marked) to leave room for the rest. */
static void
add_str(struct tc_buf *b, const cJSON *o, const char *name)
{
	const char *s = member_str(o, name);
	char v[FIELD_SHOWN];

	if (s != NULL) {
		tc_text_fmt(v, sizeof(v), "%s", s);
		tc_buf_printf(b, " %s", v);
	}
}

/* Appends " <member>" to |b| if |o| has the integer member |name|. */
static void
add_uint(struct tc_buf *b, const cJSON *o, const char *name,
    const char *unit)
{
	unsigned long long v;

	if (member_uint(o, name, &v) == 0)
		tc_buf_printf(b, " %llu%s", v, unit);
}

/* Appends " on ROOT/PATH, ROOT/PATH2" for the "paths" of |o|, the files
 * a call named, resolved (each a "root" and a "path" relative to it). */
static void
add_paths(struct tc_buf *b, const cJSON *o)
{
	const cJSON *p;
	const char *root, *path;
	char v[FIELD_SHOWN];
	int n = 0;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(o, "paths")) {
		root = member_str(p, "root");
		if ((path = member_str(p, "path")) == NULL)
			continue;
		if (root == NULL)
			tc_text_fmt(v, sizeof(v), "%s", path);
		else if (strcmp(path, ".") == 0)
			tc_text_fmt(v, sizeof(v), "%s", root);
		else
			tc_text_fmt(v, sizeof(v), "%s%s%s", root,
			    strcmp(root, "/") != 0 ? "/" : "", path);
		tc_buf_printf(b, "%s%s", n++ > 0 ? ", " : " on ", v);
	}
}

/* Appends " [program /usr/bin/git, arg status, cwd /srv/p]" for the
 * "subjects" of |o| other than paths (which add_paths() shows), if any. */
static void
add_subjects(struct tc_buf *b, const cJSON *o)
{
	const cJSON *p;
	const char *kind, *value;
	char v[FIELD_SHOWN];
	int n = 0;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(o,
	    "subjects")) {
		kind = member_str(p, "kind");
		value = member_str(p, "value");
		if (kind == NULL || value == NULL || strcmp(kind, "path") == 0)
			continue;
		tc_text_fmt(v, sizeof(v), "%s %s", kind, value);
		tc_buf_printf(b, "%s%s", n++ > 0 ? ", " : " [", v);
	}
	if (n > 0)
		tc_buf_append_str(b, "]");
}

/* " call 3 request 7 write_file on /srv/p/x denied by consent (hook:
 * deny): why" */
static void
describe_call(struct tc_buf *b, const cJSON *o)
{
	const cJSON *consent = cJSON_GetObjectItemCaseSensitive(o, "consent");
	const char *by = member_str(o, "by"), *text;

	add_uint(b, o, "call", "");
	if (member_str(o, "request_id") != NULL)
		tc_buf_append_str(b, " request");
	add_str(b, o, "request_id");
	add_str(b, o, "tool");
	add_paths(b, o);
	add_subjects(b, o);
	add_str(b, o, "decision");
	if (by != NULL)
		tc_buf_printf(b, " by %s", by);
	if (cJSON_IsObject(consent) && member_str(consent, "means") != NULL &&
	    member_str(consent, "answer") != NULL)
		tc_buf_printf(b, " (%s: %s)", member_str(consent, "means"),
		    member_str(consent, "answer"));
	if ((text = member_str(o, "rule")) != NULL ||
	    (text = member_str(o, "reason")) != NULL)
		tc_buf_printf(b, ": %s", text);
}

/* " result 3 read_text_file on /srv/p/x ok 12 ms exit 1 signal SIGKILL
 * truncated" */
static void
describe_result(struct tc_buf *b, const cJSON *o)
{
	unsigned long long code;

	add_uint(b, o, "call", "");
	add_str(b, o, "tool");
	add_paths(b, o);
	add_subjects(b, o);
	add_str(b, o, "outcome");
	add_uint(b, o, "duration_ms", " ms");
	if (member_uint(o, "exit", &code) == 0 && code != 0)
		tc_buf_printf(b, " exit %llu", code);
	if (member_str(o, "signal") != NULL)
		tc_buf_printf(b, " signal %s", member_str(o, "signal"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "truncated")))
		tc_buf_append_str(b, " truncated");
}

/* What follows the event's name, for the events the servers write. */
static void
describe_event(struct tc_buf *b, const char *event, const cJSON *o)
{
	const cJSON *client;

	if (strcmp(event, "call") == 0)
		describe_call(b, o);
	else if (strcmp(event, "result") == 0)
		describe_result(b, o);
	else if (strcmp(event, "start") == 0) {
		add_str(b, o, "server");
		add_str(b, o, "version");
		if (cJSON_GetObjectItemCaseSensitive(o, "pid") != NULL)
			tc_buf_append_str(b, " pid");
		add_uint(b, o, "pid", "");
	} else if (strcmp(event, "client") == 0) {
		client = cJSON_GetObjectItemCaseSensitive(o, "client");
		add_str(b, client, "name");
		add_str(b, client, "version");
		if (member_str(o, "protocol") != NULL)
			tc_buf_printf(b, " protocol %s",
			    member_str(o, "protocol"));
	} else if (strcmp(event, "stop") == 0) {
		add_str(b, o, "reason");
		add_uint(b, o, "calls", " calls");
	} else if (strcmp(event, "torn") == 0) {
		add_uint(b, o, "bytes", " bytes cut off:");
		add_str(b, o, "text");
	}
}

/* Prints the kept line |k| of |file| for a person. */
static void
show(const char *file, const struct kept *k)
{
	char out[SHOWN_MAX], name[PATH_MAX];
	unsigned long long seq, pid;
	const char *event;
	struct tc_buf b;
	cJSON *o;

	o = cJSON_ParseWithLength(k->text, k->len);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		printf("%s:%lu: not a JSON record\n", clean(file, name,
		    sizeof(name)), k->line);
		return;
	}
	tc_buf_init(&b, SHOWN_MAX);
	tc_buf_append_str(&b, member_str(o, "time") != NULL ?
	    member_str(o, "time") : "-");
	if (member_uint(o, "seq", &seq) == 0)
		tc_buf_printf(&b, " #%llu", seq);
	if (member_uint(cJSON_GetObjectItemCaseSensitive(o, "writer"), "pid",
	    &pid) == 0)
		tc_buf_printf(&b, " [%llu]", pid);
	event = member_str(o, "event");
	tc_buf_printf(&b, " %s", event != NULL ? event : "?");
	if (event != NULL)
		describe_event(&b, event, o);
	/* b.data is NULL only if nothing fitted, which cannot be: the time
	 * or "-" always does. */
	printf("%s\n", clean(b.data != NULL ? b.data : "", out, sizeof(out)));
	tc_buf_release(&b);
	cJSON_Delete(o);
}

/* Reads |file| keeping its last |n| lines in |ring|; returns the number of
 * lines read, or -1 after saying why. */
static long
keep_last(const char *file, struct kept *ring, unsigned long n)
{
	struct lines in;
	struct kept *k;
	unsigned long lines;
	int rc;

	if (lines_open(&in, file) != 0)
		return -1;
	while ((rc = lines_next(&in)) > 0) {
		if (n == 0)
			continue;
		k = &ring[(in.line - 1) % n];
		free(k->text);
		if ((k->text = malloc(in.len + 1)) == NULL) {
			tc_log(TC_LOG_ERROR, "out of memory");
			rc = -1;
			break;
		}
		memcpy(k->text, in.buf, in.len + 1);
		k->len = in.len;
		k->line = in.line;
	}
	lines = in.line;
	lines_close(&in);
	return rc < 0 ? -1 : (long)lines;
}

int
cmd_tail(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json",	no_argument,		NULL,	'j' },
		{ "lines",	required_argument,	NULL,	'n' },
		{ "help",	no_argument,		NULL,	'h' },
		{ NULL,		0,			NULL,	0 }
	};
	unsigned long n = TAIL_DEFAULT, i, first;
	struct kept *ring;
	char *end;
	int c, json = 0;
	long total;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jn:h", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'n') {
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (optarg[0] < '0' || optarg[0] > '9' ||
			    *end != '\0' || errno != 0 || n > TAIL_MAX) {
				tc_usage_error("tail: -n %s: not a number of "
				    "records from 0 to %d", optarg, TAIL_MAX);
				return EXIT_TROUBLE;
			}
		} else if (c == 'h')
			return help();
		else {
			tc_usage_bad_option("tail", c, argv, opts);
			return EXIT_TROUBLE;
		}
	}
	if (argc - optind != 1)
		goto usage;
	if ((ring = calloc(n > 0 ? n : 1, sizeof(*ring))) == NULL) {
		tc_log(TC_LOG_ERROR, "out of memory");
		return EXIT_TROUBLE;
	}
	total = keep_last(argv[optind], ring, n);
	first = total > (long)n ? (unsigned long)total - n : 0;
	for (i = first; total > 0 && i < (unsigned long)total; i++) {
		if (json) {
			fwrite(ring[i % n].text, 1, ring[i % n].len, stdout);
			putchar('\n');
		} else
			show(argv[optind], &ring[i % n]);
	}
	for (i = 0; i < n; i++)
		free(ring[i].text);
	free(ring);
	return total < 0 ? EXIT_TROUBLE : EXIT_INTACT;
usage:
	fputs("usage: toolcell-audit tail [-n N] [--json] FILE\n", stderr);
	return EXIT_TROUBLE;
}
