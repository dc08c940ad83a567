/*
 * toolcell-audit: reads the audit log a toolcell server writes (see
 * audit.h for its format).  "verify" checks its chain across files,
 * "tail" shows the last records, "summary" counts calls, denials, errors
 * and the slowest calls.  This file holds main() and what the commands
 * share: reading lines, printing text from a log, members of a record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"
#include "base/log.h"
#include "serve/server.h"
#include "base/text.h"
#include "serve/usage.h"

#define LINE_CHUNK	4096		/* a line buffer grows by this much */

static const char help_text[] =
    "usage: toolcell-audit verify [--key FILE] [--json] FILE...\n"
    "       toolcell-audit tail [-n N] [--json] FILE\n"
    "       toolcell-audit summary [--since TIME] [--until TIME] [--json] FILE...\n"
    "       toolcell-audit --help | --version\n"
    "Read the audit log a toolcell server writes (see toolcell-policy(5)).\n"
    "\n"
    "Commands:\n"
    "  verify    check the chain of records through the FILEs, oldest first\n"
    "            (log.2 log.1 log): exit 0 intact, 1 broken, 2 not verified\n"
    "  tail      show the last records of FILE, one line each\n"
    "  summary   count the calls per tool, the denials, the errors, the\n"
    "            slowest calls and the paths named, over the FILEs\n"
    "\n"
    "Options:\n"
    "  -k, --key FILE     verify: the audit key, for a keyed (HMAC) log\n"
    "  -n, --lines N      tail: show the last N records (default 10)\n"
    "  -s, --since TIME   summary: from TIME (RFC 3339, or a date: its\n"
    "                     midnight UTC), included\n"
    "  -u, --until TIME   summary: up to TIME, excluded\n"
    "  -j, --json         verify: the verdict as one JSON object; tail: the\n"
    "                     records as logged; summary: the counts as JSON\n"
    "  -h, --help         print this help and exit\n"
    "  -V, --version      print the version and exit\n"
    "\n"
    "Nothing is written to a log.  A usage error, or a file that cannot be\n"
    "read, exits 2.  See toolcell-audit(1).\n";

int
lines_open(struct lines *r, const char *file)
{
	memset(r, 0, sizeof(*r));
	r->file = file;
	if ((r->f = fopen(file, "re")) == NULL) {
		tc_log(TC_LOG_ERROR, "%s: %s", file, strerror(errno));
		return -1;
	}
	return 0;
}

/* Makes room for one more byte and the NUL in r->buf. */
static int
grow(struct lines *r)
{
	size_t cap = r->cap + LINE_CHUNK;
	char *b;

	if (cap > TC_AUDIT_MAX_LINE + 1)
		cap = TC_AUDIT_MAX_LINE + 1;
	if ((b = realloc(r->buf, cap)) == NULL) {
		tc_log(TC_LOG_ERROR, "%s: out of memory", r->file);
		return -1;
	}
	r->buf = b;
	r->cap = cap;
	return 0;
}

int
lines_next(struct lines *r)
{
	int c;

	r->len = 0;
	r->partial = r->toolong = 0;
	while ((c = getc_unlocked(r->f)) != EOF && c != '\n') {
		/* Past the cap, the rest of the line is read and dropped. */
		if (r->len == TC_AUDIT_MAX_LINE) {
			r->toolong = 1;
			continue;
		}
		if (r->len + 1 >= r->cap && grow(r) != 0)
			return -1;
		r->buf[r->len++] = (char)c;
	}
	if (ferror(r->f)) {
		tc_log(TC_LOG_ERROR, "%s: %s", r->file, strerror(errno));
		return -1;
	}
	if (c == EOF && r->len == 0 && !r->toolong)
		return 0;
	if (r->buf == NULL && grow(r) != 0)
		return -1;
	r->buf[r->len] = '\0';
	r->partial = c == EOF;
	r->line++;
	return 1;
}

void
lines_close(struct lines *r)
{
	if (r->f != NULL)
		fclose(r->f);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

char *
clean(const char *s, char *out, size_t n)
{
	return tc_text_show(out, n, s, TC_SHOW_BYTES);
}

char *
utf8_dup(const char *s)
{
	struct tc_buf b;
	size_t n = strlen(s);

	tc_buf_init(&b, 3 * n + 1);
	if (tc_buf_append_utf8(&b, s, n) != 0) {
		tc_buf_release(&b);
		return NULL;
	}
	return tc_buf_steal(&b);
}

const char *
member_str(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int
member_uint(const cJSON *o, const char *name, unsigned long long *v)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, name);

	if (!cJSON_IsNumber(n) || n->valuedouble < 0 ||
	    n->valuedouble >= 18446744073709551616.0)
		return -1;
	*v = (unsigned long long)n->valuedouble;
	return 0;
}

int
print_json(cJSON *o)
{
	char *s = o != NULL ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	if (s == NULL) {
		tc_log(TC_LOG_ERROR, "out of memory");
		return -1;
	}
	puts(s);
	cJSON_free(s);
	return 0;
}

int
help(void)
{
	fputs(help_text, stdout);
	return EXIT_INTACT;
}

int
main(int argc, char *argv[])
{
	static const struct {
		const char	*name;
		int		(*fn)(int, char **);
	} cmds[] = {
		{ "summary",	cmd_summary },
		{ "tail",	cmd_tail },
		{ "verify",	cmd_verify },
	};
	size_t i;
	int rc;

	tc_log_init("toolcell-audit", TC_LOG_INFO);
	if (argc < 2) {
		tc_usage_error("give a command: verify, tail or summary");
		return EXIT_TROUBLE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0)
		rc = help();
	else if (strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "--version") == 0)
		rc = printf("toolcell-audit %s\n", TC_VERSION) < 0 ?
		    EXIT_TROUBLE : EXIT_INTACT;
	else if (argv[1][0] == '-' && argv[1][1] != '\0') {
		tc_usage_error("unknown option '%.*s'",
		    (int)strcspn(argv[1], "="), argv[1]);
		return EXIT_TROUBLE;
	} else {
		for (i = 0; i < TC_NITEMS(cmds); i++)
			if (strcmp(argv[1], cmds[i].name) == 0)
				break;
		if (i == TC_NITEMS(cmds)) {
			tc_usage_error("unknown command '%s'", argv[1]);
			return EXIT_TROUBLE;
		}
		rc = cmds[i].fn(argc - 1, argv + 1);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tc_log(TC_LOG_ERROR, "cannot write to standard output: %s",
		    strerror(errno));
		return EXIT_TROUBLE;
	}
	return rc;
}
