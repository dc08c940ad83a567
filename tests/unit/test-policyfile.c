/*
 * test-policyfile.c: the policy file parser, tc_policy_load(), against
 * policies written into a scratch directory D (the working directory, so
 * that messages name "t.policy"):
 *
 *	D/proj, D/scratch, D/with space, D/q"uote, D/back\slash, D/hash#dir
 *	D/home/proj				for ~/ expansion
 *	D/file					a regular file, not a directory
 *
 * In a policy's text, "@D@" stands for D.  Every invalid case checks the
 * exact messages reported, one per line.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "policy.h"
#include "tap.h"

static char D[PATH_MAX];		/* the scratch directory, canonical */
static char repo[PATH_MAX];		/* the working directory at start */

/* Returns |text| with each "@D@" replaced by D; the caller frees it. */
static char *
subst(const char *text)
{
	struct tc_buf b;
	const char *s;

	tc_buf_init(&b, 1u << 20);
	while ((s = strstr(text, "@D@")) != NULL) {
		tc_buf_append(&b, text, (size_t)(s - text));
		tc_buf_append_str(&b, D);
		text = s + 3;
	}
	tc_buf_append_str(&b, text);
	return tc_buf_steal(&b);
}

/* Writes |text| (after subst()) into |name| with |mode|. */
static void
put(const char *name, const char *text, mode_t mode)
{
	char *t = subst(text);
	FILE *f;

	unlink(name);
	if ((f = fopen(name, "w")) == NULL || fputs(t, f) == EOF ||
	    fclose(f) != 0 || chmod(name, mode) != 0) {
		perror(name);
		exit(2);
	}
	free(t);
}

/* As subst(), into one of a few rotating static buffers. */
static const char *
S(const char *text)
{
	static char bufs[4][PATH_MAX * 2];
	static int next;
	char *b = bufs[next++ % 4], *t = subst(text);

	if (snprintf(b, sizeof(bufs[0]), "%s", t) >= (int)sizeof(bufs[0]))
		abort();
	free(t);
	return b;
}

static void
collect(void *ctx, const char *msg)
{
	struct tc_buf *b = ctx;

	tc_buf_printf(b, "%s\n", msg);
}

struct result {
	int		 rc;
	struct tc_diag	 d;
	struct tc_buf	 errs;		/* one message a line */
	struct tc_policy p;
};

/* Loads |text| written as t.policy with |mode| into |r|. */
static void
load_mode(struct result *r, const char *text, mode_t mode)
{
	memset(r, 0, sizeof(*r));
	tc_buf_init(&r->errs, 1u << 20);
	tc_policy_init(&r->p);
	put("t.policy", text, mode);
	r->rc = tc_policy_load(&r->p, "t.policy", collect, &r->errs, &r->d);
	if (r->errs.data == NULL)
		tc_buf_append_str(&r->errs, "");
}

static void
load(struct result *r, const char *text)
{
	load_mode(r, text, 0644);
}

static void
release(struct result *r)
{
	tc_policy_release(&r->p);
	tc_buf_release(&r->errs);
}

/* Checks that |text| loads without an error. */
static void
valid(struct result *r, const char *text, const char *what)
{
	load(r, text);
	is_int(r->rc, 0, "%s: loads", what);
	is_str(r->errs.data, "", "%s: no errors", what);
}

/* Checks that |text| fails with exactly the messages |want| (subst()). */
static void
invalid(const char *text, const char *want, const char *what)
{
	struct result r;
	char *w = subst(want);

	load(&r, text);
	is_int(r.rc, TC_EINVAL, "%s: refused", what);
	is_str(r.errs.data, w, "%s: messages", what);
	free(w);
	release(&r);
}

/* One line that is valid apart from |line|: checks its one message. */
static void
bad_line(const char *line, const char *msg)
{
	char text[1024], want[1024];

	snprintf(text, sizeof(text), "allow read @D@/proj\n%s\n", line);
	snprintf(want, sizeof(want), "t.policy:2: %s\n", msg);
	invalid(text, want, line);
}

static int
rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void
setup(void)
{
	static const char *const dirs[] = {
		"proj", "scratch", "with space", "q\"uote", "back\\slash",
		"hash#dir", "home", "home/proj", "sub", "ex", "ex/src",
		"ex/src/project", "ex/src/project scratch",
	};
	char tmpl[PATH_MAX];
	const char *tmp;
	size_t i;

	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	snprintf(tmpl, sizeof(tmpl), "%s/test-policyfile.XXXXXX", tmp);
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, D) == NULL ||
	    chdir(D) != 0) {
		perror(tmpl);
		exit(2);
	}
	for (i = 0; i < TC_NITEMS(dirs); i++)
		if (mkdir(dirs[i], 0755) != 0) {
			perror(dirs[i]);
			exit(2);
		}
	put("file", "not a directory\n", 0644);
}

/* --- Valid policies --- */

static void
test_every_setting(void)
{
	struct result r;

	valid(&r,
	    "# Every setting, once.\n"
	    "allow read @D@/proj\n"
	    "allow write @D@/scratch\n"
	    "timeout 500ms\n"
	    "limit memory 512M\n"
	    "limit cpu 2m\n"
	    "limit output 1K\n"
	    "limit files 1024\n"
	    "limit processes 8\n"
	    "limit filesize 3G\n"
	    "run-as nobody:nogroup\n"
	    "allow-degraded landlock\n"
	    "allow-degraded seccomp\n", "every setting");
	is_int(r.p.nroots, 2, "two roots");
	if (r.p.nroots == 2) {
		is_str(r.p.roots[0].path, S("@D@/proj"), "root 1 path");
		is_int(r.p.roots[0].flags, 0, "allow read: read-only");
		is_int(r.p.roots[0].line, 2, "root 1 line");
		ok(r.p.roots[0].fd >= 0, "root 1 opened");
		is_int(r.p.roots[1].flags, TC_ROOT_WRITE,
		    "allow write: read-write");
		is_int(r.p.roots[1].line, 3, "root 2 line");
		ok(tc_policy_writable(&r.p), "the policy is writable");
	}
	is_int(r.p.limits.deadline_ms, 500, "timeout 500ms");
	is_int(r.p.limits.mem_bytes, 512ull << 20, "limit memory 512M");
	is_int(r.p.limits.cpu_sec, 120, "limit cpu 2m");
	is_int(r.p.limits.max_result, 1024, "limit output 1K");
	is_int(r.p.limits.nofile, 1024, "limit files 1024");
	is_int(r.p.limits.nproc, 8, "limit processes 8");
	is_int(r.p.limits.fsize_bytes, 3ull << 30, "limit filesize 3G");
	is_int(r.p.limits.max_inflight, 16, "max_inflight untouched");
	is_str(r.p.run_as_spec, "nobody:nogroup", "run-as stored as text");
	is_int(r.p.run_as, 0, "run-as not resolved by the parser");
	is_int(r.p.allow_degraded, TC_DEGRADE_LANDLOCK | TC_DEGRADE_SECCOMP,
	    "allow-degraded landlock and seccomp");
	is_int(r.p.set_at[TC_SET_TIMEOUT], 4, "timeout: line 4");
	is_int(r.p.set_at[TC_SET_FILESIZE], 10, "filesize: line 10");
	is_int(r.p.set_at[TC_SET_RUN_AS], 11, "run-as: line 11");
	is_int(r.p.set_at[TC_SET_DEGRADE_SECCOMP], 13, "seccomp: line 13");
	is_str(r.p.file, "t.policy", "the file is recorded");
	release(&r);
}

static void
test_defaults(void)
{
	struct result r;
	struct tc_policy def;

	tc_policy_init(&def);
	valid(&r, "allow read @D@/proj\n", "only an allow line");
	ok(memcmp(&r.p.limits, &def.limits, sizeof(def.limits)) == 0,
	    "every limit keeps its default");
	is_int(r.p.set_at[TC_SET_MEMORY], 0, "memory: default");
	is_int(r.p.allow_degraded, 0, "nothing degraded");
	ok(r.p.run_as_spec == NULL, "no run-as");
	release(&r);
}

static void
test_syntax(void)
{
	struct result r;

	valid(&r,
	    "\n"
	    "   # An indented comment.\n"
	    "\t\n"
	    "allow read \"@D@/with space\"   # a comment after a line\n"
	    "allow\tread\t\"@D@/q\\\"uote\"\n"
	    "allow read \"@D@/back\\\\slash\"\t# a tab before the comment\n"
	    "allow read @D@/hash#dir\n"
	    "allow read @D@/proj/\r\n"
	    "allow read \"@D@/sub\"\n"
	    "timeout \"2m\"\n", "quoting, comments, blanks, CRLF");
	is_int(r.p.nroots, 6, "six roots");
	if (r.p.nroots == 6) {
		is_str(r.p.roots[0].path, S("@D@/with space"),
		    "a quoted path with a blank");
		is_str(r.p.roots[1].path, S("@D@/q\"uote"),
		    "\\\" in a quoted word");
		is_str(r.p.roots[2].path, S("@D@/back\\slash"),
		    "\\\\ in a quoted word");
		is_str(r.p.roots[3].path, S("@D@/hash#dir"),
		    "'#' inside a word is part of it");
		is_str(r.p.roots[4].path, S("@D@/proj"),
		    "a trailing slash and \\r are dropped");
		is_int(r.p.roots[5].line, 9, "line numbers count every line");
	}
	is_int(r.p.limits.deadline_ms, 120000, "a quoted value");
	release(&r);
}

static void
test_home(void)
{
	const struct passwd *pw;
	struct result r;
	char *home, want[PATH_MAX];

	home = subst("@D@/home");
	setenv("HOME", home, 1);
	valid(&r, "allow read ~/proj\nallow write \"~/\"\n", "~/ expanded");
	is_int(r.p.nroots, 2, "two roots");
	if (r.p.nroots == 2) {
		is_str(r.p.roots[0].path, S("@D@/home/proj"),
		    "~/proj is $HOME/proj");
		is_str(r.p.roots[1].path, home, "~/ is $HOME");
	}
	release(&r);
	free(home);

	/* Without HOME, the home directory of the user running the test. */
	unsetenv("HOME");
	if ((pw = getpwuid(getuid())) == NULL || pw->pw_dir[0] != '/' ||
	    realpath(pw->pw_dir, want) == NULL) {
		skip("the user running the tests has no home directory");
		setenv("HOME", D, 1);
		return;
	}
	valid(&r, "allow read ~/\n", "~/ without HOME");
	if (r.p.nroots == 1)
		is_str(r.p.roots[0].path, want, "~/ is the passwd home");
	else
		ok(0, "one root");
	release(&r);
	setenv("HOME", D, 1);
}

static void
test_bounds(void)
{
	static const struct {
		const char	*line;
		enum tc_setting	 set;
		unsigned long long want;
	} cases[] = {
		{ "timeout 1ms",		TC_SET_TIMEOUT, 1 },
		{ "timeout 1h",			TC_SET_TIMEOUT, 3600000 },
		{ "timeout 60m",		TC_SET_TIMEOUT, 3600000 },
		{ "timeout 30s",		TC_SET_TIMEOUT, 30000 },
		{ "limit cpu 1s",		TC_SET_CPU, 1 },
		{ "limit cpu 1h",		TC_SET_CPU, 3600 },
		{ "limit cpu 2000ms",		TC_SET_CPU, 2 },
		{ "limit memory 16M",		TC_SET_MEMORY, 16ull << 20 },
		{ "limit memory 16384K",	TC_SET_MEMORY, 16ull << 20 },
		{ "limit memory 1T",		TC_SET_MEMORY, 1ull << 40 },
		{ "limit output 1024",		TC_SET_OUTPUT, 1024 },
		{ "limit output 1G",		TC_SET_OUTPUT, 1ull << 30 },
		{ "limit files 16",		TC_SET_FILES, 16 },
		{ "limit files 65536",		TC_SET_FILES, 65536 },
		{ "limit processes 1",		TC_SET_PROCESSES, 1 },
		{ "limit processes 4096",	TC_SET_PROCESSES, 4096 },
		{ "limit filesize 0",		TC_SET_FILESIZE, 0 },
		{ "limit filesize 007K",	TC_SET_FILESIZE, 7168 },
	};
	struct result r;
	char text[256];
	unsigned long long got = 0;
	size_t i;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		snprintf(text, sizeof(text), "allow read @D@/proj\n%s\n",
		    cases[i].line);
		valid(&r, text, cases[i].line);
		switch (cases[i].set) {
		case TC_SET_TIMEOUT:
			got = (unsigned long long)r.p.limits.deadline_ms;
			break;
		case TC_SET_CPU:
			got = r.p.limits.cpu_sec;
			break;
		case TC_SET_MEMORY:
			got = r.p.limits.mem_bytes;
			break;
		case TC_SET_OUTPUT:
			got = r.p.limits.max_result;
			break;
		case TC_SET_FILES:
			got = r.p.limits.nofile;
			break;
		case TC_SET_PROCESSES:
			got = r.p.limits.nproc;
			break;
		case TC_SET_FILESIZE:
			got = r.p.limits.fsize_bytes;
			break;
		default:
			abort();
		}
		is_int(got, cases[i].want, "%s: the value", cases[i].line);
		is_int(r.p.set_at[cases[i].set], 2, "%s: line 2",
		    cases[i].line);
		release(&r);
	}
}

static void
test_print(void)
{
	struct result r;
	char *out = NULL, *want;
	size_t len = 0;
	FILE *f;

	valid(&r,
	    "allow read @D@/proj\n"
	    "allow write \"@D@/with space/\"\n"
	    "limit memory 512M\n"
	    "limit cpu 90s\n"
	    "allow-degraded seccomp\n", "for printing");
	tc_policy_add_root(&r.p, "sub", 0, &r.d);
	r.p.limits.deadline_ms = 1500;
	r.p.set_at[TC_SET_TIMEOUT] = TC_SET_CMDLINE;
	if ((f = open_memstream(&out, &len)) == NULL)
		abort();
	is_int(tc_policy_print(&r.p, f), 0, "printed");
	fclose(f);
	want = subst(
	    "policy: t.policy\n"
	    "directories:\n"
	    "  read-only   @D@/proj  (line 1)\n"
	    "  read-write  @D@/with space  (line 2)\n"
	    "  read-only   @D@/sub  (command line)\n"
	    "limits per call:\n"
	    "  timeout     1500ms  (command line)\n"
	    "  memory      512M    (line 3)\n"
	    "  cpu         90s     (line 4)\n"
	    "  output      64M     (default)\n"
	    "  files       256     (default)\n"
	    "  processes   64      (default)\n"
	    "  filesize    1G      (default)\n"
	    "run-as: none (calls run as the server's user)\n"
	    "allow-degraded: seccomp (line 5)\n");
	is_str(out, want, "the effective policy");
	free(out);
	free(want);
	release(&r);
}

/* --- Invalid policies --- */

static void
test_unknown_keywords(void)
{
	bad_line("deny **/.env", "unknown keyword 'deny'");
	bad_line("alow read /x", "unknown keyword 'alow'");
	bad_line("tools read_text_file", "unknown keyword 'tools'");
	bad_line("consent write_file elicitation", "unknown keyword 'consent'");
	bad_line("audit /var/log/toolcell.jsonl", "unknown keyword 'audit'");
	bad_line("network off", "unknown keyword 'network'");
	bad_line("Allow read /x", "unknown keyword 'Allow'");
	bad_line("\"allow\" read", "allow read: missing the directory");
	bad_line("include other.policy", "unknown keyword 'include'");
	bad_line("limit threads 4", "limit: unknown limit 'threads' (known: "
	    "cpu, files, filesize, memory, output, processes)");
	bad_line("allow-degraded namespaces", "allow-degraded: unknown layer "
	    "'namespaces' (known: landlock, seccomp)");
	bad_line("allow execute /bin", "allow: expected 'read' or 'write', "
	    "not 'execute'");
}

static void
test_bad_paths(void)
{
	bad_line("allow read proj", "allow read: 'proj' is a relative path: "
	    "write an absolute path (or one starting with ~/)");
	bad_line("allow write ./proj", "allow write: './proj' is a relative "
	    "path: write an absolute path (or one starting with ~/)");
	bad_line("allow read ~root/x", "allow read: '~root/x' is a relative "
	    "path: write an absolute path (or one starting with ~/)");
	bad_line("allow read \"\"", "allow read: empty path");
	bad_line("allow read @D@/nonexistent", "allow read: "
	    "'@D@/nonexistent': No such file or directory");
	bad_line("allow read ~/nonexistent", "allow read: "
	    "'@D@/nonexistent': No such file or directory");
	bad_line("allow read @D@/file", "allow read: '@D@/file': Not a "
	    "directory");
	bad_line("allow read @D@/with space", "allow read: unexpected "
	    "'space' after the directory (a path with blanks must be in "
	    "double quotes)");
	bad_line("allow read", "allow read: missing the directory");
	bad_line("allow", "allow: missing 'read' or 'write' and a directory");
	bad_line("allow write @D@/proj/.", "allow write: '@D@/proj' is "
	    "already allowed at line 1");
}

static void
test_bad_values(void)
{
	bad_line("timeout 30", "timeout: '30' is not a duration: write a "
	    "whole number and a unit, ms, s, m or h (like 30s)");
	bad_line("timeout 1.5s", "timeout: '1.5s' is not a duration: write a "
	    "whole number and a unit, ms, s, m or h (like 30s)");
	bad_line("timeout -1s", "timeout: '-1s' is not a duration: write a "
	    "whole number and a unit, ms, s, m or h (like 30s)");
	bad_line("timeout 30S", "timeout: '30S' is not a duration: write a "
	    "whole number and a unit, ms, s, m or h (like 30s)");
	bad_line("timeout 0ms", "timeout: '0ms' is out of range: 1ms to 1h");
	bad_line("timeout 61m", "timeout: '61m' is out of range: 1ms to 1h");
	bad_line("timeout 18446744073709551616ms", "timeout: "
	    "'18446744073709551616ms' is out of range: 1ms to 1h");
	bad_line("timeout 18446744073709551615h", "timeout: "
	    "'18446744073709551615h' is out of range: 1ms to 1h");
	bad_line("timeout", "timeout: missing duration: write a whole number "
	    "and a unit, ms, s, m or h (like 30s)");
	bad_line("timeout 1s 2s", "timeout: unexpected '2s' at the end of "
	    "the line");
	bad_line("limit cpu 1500ms", "limit cpu: '1500ms' is not a whole "
	    "number of seconds");
	bad_line("limit cpu 0s", "limit cpu: '0s' is out of range: 1s to 1h");
	bad_line("limit cpu 30", "limit cpu: '30' is not a duration: write a "
	    "whole number and a unit, s, m or h (like 30s)");
	bad_line("limit memory 15M", "limit memory: '15M' is out of range: "
	    "16M to 1T");
	bad_line("limit memory 512m", "limit memory: '512m' is not a size: "
	    "write a whole number of bytes, or one followed by K, M, G or T "
	    "(like 512M)");
	bad_line("limit memory 1Gx", "limit memory: '1Gx' is not a size: "
	    "write a whole number of bytes, or one followed by K, M, G or T "
	    "(like 512M)");
	bad_line("limit memory +1G", "limit memory: '+1G' is not a size: "
	    "write a whole number of bytes, or one followed by K, M, G or T "
	    "(like 512M)");
	bad_line("limit memory 1 G", "limit memory: unexpected 'G' at the end "
	    "of the line");
	bad_line("limit output 1023", "limit output: '1023' is out of range: "
	    "1K to 1G");
	bad_line("limit output 2G", "limit output: '2G' is out of range: 1K "
	    "to 1G");
	bad_line("limit output 99999999999999999999G", "limit output: "
	    "'99999999999999999999G' is out of range: 1K to 1G");
	bad_line("limit files 15", "limit files: '15' is out of range: 16 to "
	    "65536");
	bad_line("limit files 65537", "limit files: '65537' is out of range: "
	    "16 to 65536");
	bad_line("limit files 16x", "limit files: '16x' is not a whole "
	    "number");
	bad_line("limit files 1K", "limit files: '1K' is not a whole number");
	bad_line("limit processes 0", "limit processes: '0' is out of range: "
	    "1 to 4096");
	bad_line("limit processes 4097", "limit processes: '4097' is out of "
	    "range: 1 to 4096");
	bad_line("limit filesize 2T", "limit filesize: '2T' is out of range: "
	    "0 to 1T");
	bad_line("limit memory", "limit memory: missing size: write a whole "
	    "number of bytes, or one followed by K, M, G or T (like 512M)");
	bad_line("limit", "limit: missing what to limit (cpu, files, "
	    "filesize, memory, output or processes)");
	bad_line("run-as", "run-as: missing USER or USER:GROUP");
	bad_line("run-as :staff", "run-as: missing the user before ':'");
	bad_line("run-as nobody extra", "run-as: unexpected 'extra' at the "
	    "end of the line");
	bad_line("allow-degraded", "allow-degraded: missing the layer "
	    "(landlock or seccomp)");
}

static void
test_bad_words(void)
{
	bad_line("allow read \"@D@/proj", "unterminated quoted word");
	bad_line("allow read \"@D@/proj\\", "unterminated quoted word");
	bad_line("allow read \"@D@/p\\roj\"", "unknown escape '\\r' in a "
	    "quoted word (only \\\" and \\\\)");
	bad_line("allow read \"@D@\"/proj", "a quoted word must be followed "
	    "by a blank or the end of the line");
	bad_line("allow read @D@/\"proj\"", "'\"' inside a word: quote the "
	    "whole word");
	bad_line("a b c d e f g h i", "too many words (at most 8 in a line)");
}

static void
test_duplicates(void)
{
	invalid("allow read @D@/proj\ntimeout 1s\n\ntimeout 2s\n",
	    "t.policy:4: timeout: already set at line 2\n",
	    "two timeout lines");
	invalid("allow read @D@/proj\nlimit memory 1G\nlimit memory 1G\n",
	    "t.policy:3: limit memory: already set at line 2\n",
	    "two limit memory lines");
	invalid("allow read @D@/proj\nrun-as nobody\nrun-as daemon\n",
	    "t.policy:3: run-as: already set at line 2\n",
	    "two run-as lines");
	invalid("allow-degraded seccomp\nallow read @D@/proj\n"
	    "allow-degraded seccomp\n",
	    "t.policy:3: allow-degraded seccomp: already set at line 1\n",
	    "allow-degraded twice");
	invalid("allow read @D@/proj\nallow write @D@/proj\n",
	    "t.policy:2: allow write: '@D@/proj' is already allowed at line "
	    "1\n", "the same directory twice");
}

static void
test_many_errors(void)
{
	struct result r;
	char *want;

	load(&r,
	    "# Four errors, and valid lines between them.\n"
	    "allow read @D@/proj\n"
	    "deny **/.env\n"
	    "allow read relative\n"
	    "timeout 5s\n"
	    "limit memory lots\n"
	    "allow write @D@/scratch\n"
	    "timeout 6s\n");
	want = subst(
	    "t.policy:3: unknown keyword 'deny'\n"
	    "t.policy:4: allow read: 'relative' is a relative path: write an "
	    "absolute path (or one starting with ~/)\n"
	    "t.policy:6: limit memory: 'lots' is not a size: write a whole "
	    "number of bytes, or one followed by K, M, G or T (like 512M)\n"
	    "t.policy:8: timeout: already set at line 5\n");
	is_int(r.rc, TC_EINVAL, "several errors: refused");
	is_str(r.errs.data, want, "several errors: each one reported");
	is_str(r.d.msg, "t.policy: 4 errors", "several errors: counted");
	free(want);
	release(&r);
}

static void
test_file_checks(void)
{
	struct result r;

	load_mode(&r, "allow read @D@/proj\n", 0664);
	is_int(r.rc, TC_EINVAL, "group-writable: refused");
	is_str(r.errs.data, "t.policy: writable by group or others; chmod "
	    "go-w t.policy\n", "group-writable: message");
	is_int(r.p.nroots, 0, "group-writable: nothing read");
	release(&r);

	load_mode(&r, "allow read @D@/proj\n", 0646);
	is_str(r.errs.data, "t.policy: writable by group or others; chmod "
	    "go-w t.policy\n", "other-writable: message");
	release(&r);

	load_mode(&r, "allow read @D@/proj\n", 0600);
	is_int(r.rc, 0, "mode 0600: loads");
	release(&r);

	load_mode(&r, "allow read @D@/proj\n", 0444);
	is_int(r.rc, 0, "mode 0444: loads");
	release(&r);

	/* A link is named with the file it resolves to. */
	load_mode(&r, "allow read @D@/proj\n", 0666);
	release(&r);
	unlink("link.policy");
	if (symlink("t.policy", "link.policy") != 0)
		abort();
	tc_buf_init(&r.errs, 4096);
	tc_policy_init(&r.p);
	r.rc = tc_policy_load(&r.p, "link.policy", collect, &r.errs, &r.d);
	{
		char *want = subst("link.policy: writable by group or others "
		    "(a link to @D@/t.policy); chmod go-w @D@/t.policy\n");

		is_str(r.errs.data, want, "a link: the file it points to");
		free(want);
	}
	release(&r);

	invalid("", "t.policy: no 'allow' line: write 'allow read "
	    "/path/to/dir' (or 'allow write ...') for each directory to "
	    "serve\n", "an empty file");
	invalid("# Only a comment.\ntimeout 1s\n", "t.policy: no 'allow' "
	    "line: write 'allow read /path/to/dir' (or 'allow write ...') "
	    "for each directory to serve\n", "no allow line");

	tc_buf_init(&r.errs, 4096);
	tc_policy_init(&r.p);
	r.rc = tc_policy_load(&r.p, "sub", collect, &r.errs, &r.d);
	is_int(r.rc, TC_EINVAL, "a directory: refused");
	is_str(r.errs.data, "sub: not a regular file\n",
	    "a directory: message");
	release(&r);

	tc_buf_init(&r.errs, 4096);
	tc_policy_init(&r.p);
	r.rc = tc_policy_load(&r.p, "missing.policy", collect, &r.errs, &r.d);
	is_int(r.rc, TC_EINVAL, "a missing file: refused");
	is_str(r.errs.data, "missing.policy: No such file or directory\n",
	    "a missing file: message");
	release(&r);
}

static void
test_long_and_nul(void)
{
	struct result r;
	char *text;
	int fd;

	if ((text = malloc(9000)) == NULL)
		abort();
	memset(text, 'x', 8999);
	text[8999] = '\0';
	memcpy(text, "# ", 2);
	{
		char *full;

		if (asprintf(&full, "allow read @D@/proj\n%s\n", text) < 0)
			abort();
		invalid(full, "t.policy:2: line longer than 8192 bytes\n",
		    "an over-long line");
		free(full);
	}
	free(text);

	load(&r, "allow read @D@/proj\n");
	release(&r);
	if ((fd = open("t.policy", O_WRONLY | O_APPEND)) < 0 ||
	    write(fd, "timeout 1s\0x\n", 13) != 13 || close(fd) != 0)
		abort();
	tc_buf_init(&r.errs, 4096);
	tc_policy_init(&r.p);
	r.rc = tc_policy_load(&r.p, "t.policy", collect, &r.errs, &r.d);
	is_str(r.errs.data, "t.policy:2: a NUL byte in the line\n",
	    "a NUL byte");
	release(&r);
}

static void
test_run_as(void)
{
	struct tc_policy p;
	struct tc_diag d = { "", 0 };

	tc_policy_init(&p);
	if (geteuid() != 0) {
		is_int(tc_policy_run_as(&p, "nobody", &d), TC_EDENIED,
		    "run-as refused when not root");
		is_str(d.msg, "only a server started as root can run its "
		    "calls as another user", "the reason");
		return;
	}
	if (getpwnam("nobody") == NULL) {
		skip("no user nobody");
		return;
	}
	is_int(tc_policy_run_as(&p, "nobody", &d), 0, "run-as nobody");
	is_int(p.run_as, 1, "run_as set");
	is_int(p.run_uid, getpwnam("nobody")->pw_uid, "nobody's uid");
	tc_policy_init(&p);
	is_int(tc_policy_run_as(&p, "4242:4343", &d), 0, "numeric ids");
	is_int(p.run_uid, 4242, "uid 4242");
	is_int(p.run_gid, 4343, "gid 4343");
	is_int(tc_policy_run_as(&p, "no-such-user-tc", &d), TC_EINVAL,
	    "unknown user");
	is_str(d.msg, "no user 'no-such-user-tc'", "unknown user: message");
	is_int(tc_policy_run_as(&p, "nobody:no-such-group-tc", &d), TC_EINVAL,
	    "unknown group");
	is_str(d.msg, "no group 'no-such-group-tc'", "unknown group: message");
	is_int(tc_policy_run_as(&p, "nobody:0", &d), TC_EINVAL, "gid 0");
	is_str(d.msg, "calls already run as root without it; name an "
	    "unprivileged user and group", "gid 0: message");
	is_int(tc_policy_run_as(&p, "4294967295", &d), TC_EINVAL, "uid -1");
}

/* The shipped examples load, with a home that has their directories
 * (copied, since a checkout's modes depend on the umask). */
static void
test_examples(void)
{
	static const char *const names[] = {
		"read-only-project.policy", "scratch-dir.policy",
	};
	struct result r;
	struct tc_buf text;
	char path[PATH_MAX * 2], buf[4096];
	size_t i, n;
	FILE *f;

	setenv("HOME", S("@D@/ex"), 1);
	for (i = 0; i < TC_NITEMS(names); i++) {
		snprintf(path, sizeof(path), "%s/policy/examples/%s", repo,
		    names[i]);
		if ((f = fopen(path, "r")) == NULL) {
			skip("run from the top of the tree to check the "
			    "examples");
			continue;
		}
		tc_buf_init(&text, 1u << 20);
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			tc_buf_append(&text, buf, n);
		fclose(f);
		valid(&r, text.data, names[i]);
		ok(r.p.nroots > 0, "%s: serves a directory", names[i]);
		release(&r);
		tc_buf_release(&text);
	}
	setenv("HOME", D, 1);
}

int
main(void)
{
	if (getcwd(repo, sizeof(repo)) == NULL)
		repo[0] = '\0';
	setup();
	setenv("HOME", D, 1);
	test_every_setting();
	test_defaults();
	test_syntax();
	test_home();
	test_bounds();
	test_print();
	test_unknown_keywords();
	test_bad_paths();
	test_bad_values();
	test_bad_words();
	test_duplicates();
	test_many_errors();
	test_file_checks();
	test_long_and_nul();
	test_run_as();
	test_examples();
	if (chdir("/") == 0)
		nftw(D, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
