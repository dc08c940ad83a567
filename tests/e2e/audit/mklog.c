/*
 * mklog.c: writes audit logs for tests/e2e/audit/run.sh with the real
 * writer (common/audit/audit.c), so that toolcell-audit is tested on what the
 * servers write.  Each line of standard input is one record, a JSON
 * object; its "time" member, if any, is taken out and becomes the
 * record's time through the writer's clock, so that a log's content is
 * known in advance.  Its "writer" member, {"pid":P,"start":"<16 hex>"},
 * if any, is taken out too, and names the writer that appends it: each
 * writer named is a writer of its own, all of them open on the log at
 * once, as several servers are; the others are appended by writer 4242,
 * start 0000000000004242.  Built with the tests, never installed.
 *
 *	audit-mklog [-k KEYFILE] [-r ROTATE_BYTES] [-n KEEP] LOG < records
 *
 * Exits 0, or 1 after a message naming the input line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"

#define WRITERS_MAX	16

static struct timespec record_time;	/* the clock the writer reads */

/* The writers open on the log, by pid and start id. */
static struct {
	long		 pid;
	char		 start[TC_AUDIT_START_LEN + 1];
	struct tc_audit	*a;
} writers[WRITERS_MAX];
static int nwriters;

/* The writer's clock: the time of the record being appended. */
static void
fixed_now(struct timespec *ts)
{
	*ts = record_time;
}

/* Reads a number option |arg| of |opt| into |v|, or exits. */
static unsigned long long
number(int opt, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || errno != 0) {
		fprintf(stderr, "audit-mklog: -%c %s: not a number\n", opt,
		    arg);
		exit(1);
	}
	return v;
}

/* Takes "time" out of |rec| into record_time (or the real time). */
static int
take_time(cJSON *rec, unsigned long n)
{
	cJSON *t = cJSON_DetachItemFromObjectCaseSensitive(rec, "time");
	long long ms;
	int rc = 0;

	if (t == NULL)
		clock_gettime(CLOCK_REALTIME, &record_time);
	else if (!cJSON_IsString(t) ||
	    tc_audit_parse_time(t->valuestring, &ms) != 0) {
		fprintf(stderr, "audit-mklog: line %lu: \"time\" is not an "
		    "RFC 3339 time\n", n);
		rc = -1;
	} else {
		record_time.tv_sec = (time_t)(ms / 1000);
		record_time.tv_nsec = (long)(ms % 1000) * 1000000;
	}
	cJSON_Delete(t);
	return rc;
}

/*
 * Takes "writer" out of |rec| and sets |*a| to that writer, opened with
 * |o| if it is new.
 */
static int
take_writer(cJSON *rec, unsigned long n, struct tc_audit_opts *o,
    struct tc_audit **a)
{
	cJSON *w = cJSON_DetachItemFromObjectCaseSensitive(rec, "writer");
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(w, "pid");
	const cJSON *start = cJSON_GetObjectItemCaseSensitive(w, "start");
	struct tc_diag d;
	int i, rc = 0;

	o->pid = 4242;
	o->start_id = "0000000000004242";
	if (w != NULL && (!cJSON_IsNumber(pid) || !cJSON_IsString(start))) {
		fprintf(stderr, "audit-mklog: line %lu: \"writer\" is not "
		    "{\"pid\":P,\"start\":\"<hex>\"}\n", n);
		cJSON_Delete(w);
		return -1;
	}
	if (w != NULL) {
		o->pid = (long)pid->valuedouble;
		o->start_id = start->valuestring;
	}
	for (i = 0; i < nwriters; i++)
		if (writers[i].pid == o->pid &&
		    strcmp(writers[i].start, o->start_id) == 0)
			break;
	if (i == nwriters && nwriters == WRITERS_MAX) {
		fprintf(stderr, "audit-mklog: line %lu: more than %d writers\n",
		    n, WRITERS_MAX);
		rc = -1;
	} else if (i == nwriters) {
		if (tc_audit_open(&writers[i].a, o, &d) != 0) {
			fprintf(stderr, "audit-mklog: line %lu: %s\n", n,
			    d.msg);
			rc = -1;
		} else {
			writers[i].pid = o->pid;
			snprintf(writers[i].start, sizeof(writers[i].start),
			    "%s", o->start_id);
			nwriters++;
		}
	}
	if (rc == 0)
		*a = writers[i].a;
	cJSON_Delete(w);
	return rc;
}

/* Appends every line of standard input, each by its writer. */
static int
append_all(struct tc_audit_opts *o)
{
	struct tc_audit *a;
	struct tc_diag d;
	unsigned long n = 0;
	size_t cap = 0;
	ssize_t len;
	char *line = NULL;
	cJSON *rec;
	int rc = 0;

	while (rc == 0 && (len = getline(&line, &cap, stdin)) >= 0) {
		n++;
		if ((rec = cJSON_ParseWithLength(line, (size_t)len)) == NULL) {
			fprintf(stderr, "audit-mklog: line %lu: not JSON\n", n);
			rc = -1;
		} else if ((rc = take_time(rec, n)) == 0 &&
		    (rc = take_writer(rec, n, o, &a)) == 0 &&
		    (rc = tc_audit_append(a, rec, &d)) != 0)
			fprintf(stderr, "audit-mklog: line %lu: %s\n", n,
			    d.msg);
		cJSON_Delete(rec);
	}
	free(line);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct tc_audit_opts o = { .sync = TC_AUDIT_SYNC_NONE,
	    .now = fixed_now };
	int c, i, rc;

	while ((c = getopt(argc, argv, "k:n:r:")) != -1) {
		if (c == 'k')
			o.key_file = optarg;
		else if (c == 'n')
			o.keep = (unsigned)number(c, optarg);
		else if (c == 'r')
			o.rotate_bytes = number(c, optarg);
		else
			goto usage;
	}
	if (argc - optind != 1)
		goto usage;
	o.path = argv[optind];
	rc = append_all(&o);
	for (i = 0; i < nwriters; i++)
		tc_audit_close(writers[i].a);
	return rc == 0 ? 0 : 1;
usage:
	fputs("usage: audit-mklog [-k KEYFILE] [-r ROTATE_BYTES] [-n KEEP] "
	    "LOG < records\n", stderr);
	return 1;
}
