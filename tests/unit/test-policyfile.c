/*
 * test-policyfile.c: the policy file parser, tc_policy_load(), against
 * policies written into a scratch directory D (the working directory, so
 * that messages name "t.policy"):
 *
 *	D/proj, D/scratch, D/with space, D/q"uote, D/back\slash, D/hash#dir
 *	D/fakehome/proj				for ~/ expansion
 *	D/file					a regular file, not a directory
 *	D/hook.sh, D/noexec			a consent hook, and one not
 *						executable
 *	D/ex					$HOME for the shipped examples
 *
 * In a policy's text, "@D@" stands for D, and HOME is D unless a test says
 * otherwise.  Policies are loaded for toolcell-fs, with its tools and
 * its [fs] section, as load_policy() in server.c does (test_section_table()
 * has a server of its own).  Every invalid case checks the exact messages
 * reported, one per line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "policyload.h"
#include "tap.h"

#include "../../servers/fs/fs_policy.h"

static char repo[PATH_MAX];		/* the working directory at start */

/* A server's tools, named as toolcell-fs's are; read_file, which is an
 * alias in toolcell-fs, is a tool of its own here (test_aliases() has an
 * alias). */
static const char *const fs_tools[] = {
	"list_allowed_directories", "read_text_file", "read_file",
	"list_directory", "get_file_info",
	"write_file", "edit_file", "create_directory", "move_file",
	"delete_file",
};
#define FS_TOOLS	"list_allowed_directories, read_text_file, " \
			"read_file, list_directory, get_file_info, " \
			"write_file, edit_file, create_directory, " \
			"move_file, delete_file"
static unsigned features = TC_POLICY_F_WRITERS; /* TC_POLICY_F_* of the
					   next load: toolcell-fs's */

/* The server whose policy is loaded: toolcell-fs's tools, with
 * |features| and fs's section. */
static int
pl_server(struct tc_policy *p, struct tc_diag *d)
{
	if (tc_policy_set_server(p, "toolcell-fs", fs_tools,
	    TC_NITEMS(fs_tools), features) != 0 ||
	    tc_policy_set_section(p, &fs_policy_section, d) != 0)
		return -1;
	return 0;
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

/* As bad_line(), with line |first| between the allow line and |line|,
 * which is line 3. */
static void
bad_after(const char *first, const char *line, const char *msg)
{
	char text[1024], want[1024];

	snprintf(text, sizeof(text), "allow read @D@/proj\n%s\n%s\n", first,
	    line);
	snprintf(want, sizeof(want), "t.policy:3: %s\n", msg);
	invalid(text, want, line);
}

/* Returns what tc_policy_print() writes for |p|; the caller frees it. */
static char *
printed(const struct tc_policy *p)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if ((f = open_memstream(&out, &len)) == NULL)
		abort();
	is_int(tc_policy_print(p, f), 0, "printed");
	fclose(f);
	return out;
}

/* Finishes |r|'s policy as the server does after loading it. */
static void
finish(struct result *r)
{
	is_int(tc_policy_finish(&r->p, &r->d), 0, "finished");
}

static void
setup(void)
{
	static const char *const dirs[] = {
		"proj", "scratch", "with space", "q\"uote", "back\\slash",
		"hash#dir", "fakehome", "fakehome/proj", "sub", "ex", "ex/src",
		"ex/src/project", "ex/src/project scratch", "ex/.config",
		"ex/.config/toolcell", "ex/.config/toolcell/hooks",
	};
	size_t i;

	policy_scratch("test-policyfile");
	for (i = 0; i < TC_NITEMS(dirs); i++)
		if (mkdir(dirs[i], 0755) != 0) {
			perror(dirs[i]);
			exit(2);
		}
	put("file", "not a directory\n", 0644);
	put("hook.sh", "#!/bin/sh\nexit 1\n", 0755);
	put("noexec", "#!/bin/sh\nexit 1\n", 0644);
	put("ex/.config/toolcell/hooks/desktop", "#!/bin/sh\nexit 1\n",
	    0755);
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

	home = subst("@D@/fakehome");
	setenv("HOME", home, 1);
	valid(&r, "allow read ~/proj\nallow write \"~/\"\n", "~/ expanded");
	is_int(r.p.nroots, 2, "two roots");
	if (r.p.nroots == 2) {
		is_str(r.p.roots[0].path, S("@D@/fakehome/proj"),
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

/* The built-in deny rules, as --check prints them. */
#define BUILT_IN_DENY							\
	"  read-write  **/.env  (built in)\n"				\
	"  read-write  **/.env.*  (built in)\n"				\
	"  read-write  **/.ssh  (built in)\n"				\
	"  read-write  **/.gnupg  (built in)\n"				\
	"  read-write  **/.aws  (built in)\n"				\
	"  read-write  **/.netrc  (built in)\n"				\
	"  read-write  **/.git-credentials  (built in)\n"		\
	"  read-write  **/*.pem  (built in)\n"				\
	"  read-write  **/*.key  (built in)\n"				\
	"  read-write  **/id_rsa  (built in)\n"				\
	"  read-write  **/id_ecdsa  (built in)\n"			\
	"  read-write  **/id_ed25519  (built in)\n"			\
	"  write       **/.git/hooks  (built in)\n"			\
	"  write       **/.git/config  (built in)\n"			\
	"  write       **/.git  (built in)\n"

static void
test_print(void)
{
	struct result r;
	char *out, *want;

	valid(&r,
	    "allow read @D@/proj\n"
	    "allow write \"@D@/with space/\"\n"
	    "limit memory 512M\n"
	    "limit cpu 90s\n"
	    "allow-degraded seccomp\n", "for printing");
	tc_policy_add_root(&r.p, "sub", 0, &r.d);
	r.p.limits.deadline_ms = 1500;
	r.p.set_at[TC_SET_TIMEOUT] = TC_SET_CMDLINE;
	finish(&r);
	out = printed(&r.p);
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
	    "deny (wins over allow):\n"
	    BUILT_IN_DENY
	    "tools:\n"
	    "  list_allowed_directories    on\n"
	    "  read_text_file              on\n"
	    "  read_file                   on\n"
	    "  list_directory              on\n"
	    "  get_file_info               on\n"
	    "  write_file                  on\n"
	    "  edit_file                   on\n"
	    "  create_directory            on\n"
	    "  move_file                   on\n"
	    "  delete_file                 on\n"
	    "  (a tool that changes files is listed only when a directory is "
	    "writable)\n"
	    "consent:\n"
	    "  no call needs it\n"
	    "  asked by: elicitation (when the client supports it), else "
	    "denied  (default)\n"
	    "  timeout: 30s  (default)\n"
	    "network: off  (default)\n"
	    "write-sync: every (fsync each file written before answering)  "
	    "(default)\n"
	    "audit: off\n"
	    "roots-timeout: 5s  (default)\n"
	    "roots: narrow  (default)\n"
	    "children: 8 ready per profile  (default)\n"
	    "run-as: none (calls run as the server's user)\n"
	    "allow-degraded: seccomp (line 5)\n");
	is_str(out, want, "the effective policy");
	free(out);
	free(want);
	release(&r);

	valid(&r, "allow read @D@/proj\ndefault-deny off\n",
	    "default-deny off, printed");
	finish(&r);
	out = printed(&r.p);
	like(out, "\ndeny (wins over allow):\n  nothing (default-deny off)\n"
	    "tools:\n", "default-deny off: no deny rule");
	free(out);
	release(&r);
}

/* Every keyword at once, and the whole of what --check prints for it. */
static void
test_print_everything(void)
{
	struct result r;
	char *out, *want;

	valid(&r,
	    "# Everything a policy can say.\n"
	    "[fs]\n"
	    "allow read @D@/proj\n"
	    "allow write \"@D@/with space\"\n"
	    "timeout 20s\n"
	    "limit memory 512M\n"
	    "limit output 8M\n"
	    "default-deny on\n"
	    "deny **/secrets\n"
	    "deny write ~/proj/locked\n"
	    "tools read_text_file read_file list_directory get_file_info\n"
	    "tool read_file off\n"
	    "tool read_text_file timeout 5s\n"
	    "tool read_text_file limit memory 64M\n"
	    "tool list_directory limit output 1M\n"
	    "network off\n"
	    "consent * ~/proj/private **/*.sql\n"
	    "consent get_file_info\n"
	    "consent-by hook elicitation\n"
	    "consent-hook ~/hook.sh --ask \"two words\"\n"
	    "consent-timeout 2m\n"
	    "roots-timeout 1500ms\n"
	    "audit ~/audit.jsonl\n"
	    "audit-key \"@D@/audit key\"\n"
	    "audit-sync none\n"
	    "audit-rotate 10M keep 5\n"
	    "allow-degraded seccomp\n"
	    "write-sync none\n"
	    "roots strict\n", "everything");
	finish(&r);
	out = printed(&r.p);
	want = subst(
	    "policy: t.policy\n"
	    "directories:\n"
	    "  read-only   @D@/proj  (line 3)\n"
	    "  read-write  @D@/with space  (line 4)\n"
	    "limits per call:\n"
	    "  timeout     20s     (line 5)\n"
	    "  memory      512M    (line 6)\n"
	    "  cpu         30s     (default)\n"
	    "  output      8M      (line 7)\n"
	    "  files       256     (default)\n"
	    "  processes   64      (default)\n"
	    "  filesize    1G      (default)\n"
	    "deny (wins over allow):\n"
	    BUILT_IN_DENY
	    "  read-write  **/secrets  (line 9)\n"
	    "  write       @D@/proj/locked  (line 10)\n"
	    "tools:\n"
	    "  list_allowed_directories    off  (not on the 'tools' line, "
	    "line 11)\n"
	    "  read_text_file              on   timeout 5s (line 13), "
	    "memory 64M (line 14)\n"
	    "  read_file                   off  (tool read_file off, line "
	    "12)\n"
	    "  list_directory              on   output 1M (line 15)\n"
	    "  get_file_info               on\n"
	    "  write_file                  off  (not on the 'tools' line, "
	    "line 11)\n"
	    "  edit_file                   off  (not on the 'tools' line, "
	    "line 11)\n"
	    "  create_directory            off  (not on the 'tools' line, "
	    "line 11)\n"
	    "  move_file                   off  (not on the 'tools' line, "
	    "line 11)\n"
	    "  delete_file                 off  (not on the 'tools' line, "
	    "line 11)\n"
	    "  (a tool that changes files is listed only when a directory is "
	    "writable)\n"
	    "consent:\n"
	    "  every tool on paths matching @D@/proj/private, **/*.sql  "
	    "(line 17)\n"
	    "  get_file_info  (line 18)\n"
	    "  asked by: hook, elicitation (when the client supports it), "
	    "else denied  (line 19)\n"
	    "  hook: @D@/hook.sh --ask two words  (line 20)\n"
	    "  timeout: 2m  (line 21)\n"
	    "network: off  (line 16)\n"
	    "write-sync: none (left to the kernel)  (line 28)\n"
	    "audit: @D@/audit.jsonl  (line 23)\n"
	    "  chain: HMAC-SHA-256, key in\n"
	    "    @D@/audit key\n"
	    "  sync: none (left to the kernel)\n"
	    "  rotate: at 10M, keeping 5 files\n"
	    "roots-timeout: 1500ms  (line 22)\n"
	    "roots: strict  (line 29)\n"
	    "children: 8 ready per profile  (default)\n"
	    "run-as: none (calls run as the server's user)\n"
	    "allow-degraded: seccomp (line 27)\n");
	is_str(out, want, "everything: the effective policy");
	free(out);
	free(want);
	release(&r);

	/* The other forms of the audit and consent lines. */
	valid(&r,
	    "allow read @D@/proj\n"
	    "audit @D@/a.jsonl\n"
	    "audit-rotate 64K\n"
	    "consent-hook @D@/hook.sh\n", "audit without a key");
	finish(&r);
	out = printed(&r.p);
	want = subst(
	    "consent:\n"
	    "  no call needs it\n"
	    "  asked by: elicitation (when the client supports it), hook, "
	    "else denied  (default)\n"
	    "  hook: @D@/hook.sh  (line 4)\n"
	    "  timeout: 30s  (default)\n"
	    "network: off  (default)\n"
	    "write-sync: every (fsync each file written before answering)  "
	    "(default)\n"
	    "audit: @D@/a.jsonl  (line 2)\n"
	    "  chain: SHA-256\n"
	    "  sync: fsync after every record\n"
	    "  rotate: at 64K, keeping every file\n");
	like(out, want, "audit without a key: printed");
	free(want);
	free(out);
	release(&r);

	valid(&r, "allow read @D@/proj\naudit @D@/a.jsonl\n",
	    "audit without rotation");
	out = printed(&r.p);
	like(out, "  rotate: never\n", "audit without rotation: printed");
	free(out);
	release(&r);
}

/* --- Invalid policies --- */

static void
test_unknown_keywords(void)
{
	bad_line("alow read /x", "unknown keyword 'alow' (did you mean "
	    "'allow'?)");
	bad_line("Allow read /x", "unknown keyword 'Allow' (did you mean "
	    "'allow'?)");
	bad_line("DENY **/.env", "unknown keyword 'DENY' (did you mean "
	    "'deny'?)");
	bad_line("tool-off read_file", "unknown keyword 'tool-off'");
	bad_line("consent-hooks /bin/true", "unknown keyword "
	    "'consent-hooks' (did you mean 'consent-hook'?)");
	bad_line("write-snyc none", "unknown keyword 'write-snyc' (did you "
	    "mean 'write-sync'?)");
	bad_line("audit-file /x.jsonl", "unknown keyword 'audit-file'");
	bad_line("allow-network on", "unknown keyword 'allow-network'");
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
	bad_line("roots", "roots: missing 'narrow', 'strict' or 'ignore'");
	bad_line("roots Narrow", "roots: expected 'narrow' (the client's "
	    "roots narrow the directories, unless that leaves none), 'strict' "
	    "(even to none) or 'ignore', not 'Narrow'");
	bad_line("roots strict now", "roots: unexpected 'now' at the end of "
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
	invalid("allow read @D@/proj\nroots strict\nroots strict\n",
	    "t.policy:3: roots: already set at line 2\n",
	    "two roots lines");
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
	    "deny ../.env\n"
	    "allow read relative\n"
	    "timeout 5s\n"
	    "limit memory lots\n"
	    "allow write @D@/scratch\n"
	    "timeout 6s\n");
	want = subst(
	    "t.policy:3: deny: '../.env': a pattern cannot contain '..'\n"
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

/* Loads the file |name| of D into |r|, as it is. */
static void
dir_load(struct result *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	tc_buf_init(&r->errs, 4096);
	tc_policy_init(&r->p);
	if (pl_server(&r->p, &r->d) != 0)
		abort();
	r->rc = tc_policy_load(&r->p, name, collect, &r->errs, &r->d);
	if (r->errs.data == NULL)
		tc_buf_append_str(&r->errs, "");
}

/* Loads |name| of D and checks that it is refused for its directory
 * D/|dir|, which group or others may write. */
static void
refused_for(const char *name, const char *dir, const char *what)
{
	struct result r;
	char text[512], *want;

	snprintf(text, sizeof(text), "%s: the directory @D@/%s is writable "
	    "by group or others, who could replace the policy; chmod go-w "
	    "@D@/%s\n", name, dir, dir);
	want = subst(text);
	dir_load(&r, name);
	is_int(r.rc, TC_EINVAL, "%s: refused", what);
	is_str(r.errs.data, want, "%s: says which directory", what);
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

	/* Its directories: whoever may write one may put another file in
	 * its place.  The sticky bit keeps others from that. */
	if (mkdir("open", 0700) != 0 || chmod("open", 0777) != 0)
		abort();
	put("open/t.policy", "allow read @D@/proj\n", 0600);
	refused_for("open/t.policy", "open", "in a directory others may "
	    "write");
	if (chmod("open", 01777) != 0)
		abort();
	dir_load(&r, "open/t.policy");
	is_int(r.rc, 0, "in a sticky directory others may write: loads");
	release(&r);
	/* A link there, to a file in a directory only we may write: the
	 * link's directory could make it lead elsewhere. */
	if (chmod("open", 0770) != 0)
		abort();
	load_mode(&r, "allow read @D@/proj\n", 0600);
	release(&r);
	unlink("open/link.policy");
	if (symlink("../t.policy", "open/link.policy") != 0)
		abort();
	refused_for("open/link.policy", "open", "a link in a directory "
	    "others may write");
	if (chmod("open", 0755) != 0)
		abort();
	dir_load(&r, "open/link.policy");
	is_int(r.rc, 0, "a link, each directory ours: loads");
	release(&r);
	/* A link to a directory, in a directory others may write, earlier
	 * in the path: they could make it lead to another directory. */
	if (mkdir("good", 0755) != 0 || mkdir("open2", 0700) != 0 ||
	    chmod("open2", 0777) != 0 || symlink("../good", "open2/sub") != 0)
		abort();
	put("good/p.policy", "allow read @D@/proj\n", 0600);
	refused_for("open2/sub/p.policy", "open2", "a link to a directory, "
	    "earlier in the path, in a directory others may write");
	/* A chain of links, the middle one in such a directory. */
	if (symlink("open2/l2", "l1") != 0 ||
	    symlink("../good/p.policy", "open2/l2") != 0)
		abort();
	refused_for("l1", "open2", "the middle link of a chain, in a "
	    "directory others may write");
	dir_load(&r, "good/p.policy");
	is_int(r.rc, 0, "the same file by a path of our directories: loads");
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

/* --- Deny rules --- */

static void
test_deny(void)
{
	struct result r;
	size_t i;

	valid(&r,
	    "allow read @D@/proj\n"
	    "deny **/.env.local\n"
	    "deny write /etc/**\n"
	    "deny \"notes/my secrets\"\n"
	    "deny ~/private\n"
	    "deny a..b/..c/d..\n", "deny lines");
	is_int(r.p.ndeny, 5, "deny: five rules, none built in yet");
	if (r.p.ndeny == 5) {
		is_str(r.p.deny[0].pattern, "**/.env.local", "deny: pattern");
		is_int(r.p.deny[0].access, TC_ACCESS_READ | TC_ACCESS_WRITE,
		    "deny: reading and writing");
		is_int(r.p.deny[0].line, 2, "deny: its line");
		is_str(r.p.deny[1].pattern, "/etc/**", "deny write: pattern");
		is_int(r.p.deny[1].access, TC_ACCESS_WRITE,
		    "deny write: writing only");
		is_str(r.p.deny[2].pattern, "notes/my secrets",
		    "deny: a quoted pattern");
		is_str(r.p.deny[3].pattern, S("@D@/private"),
		    "deny: ~/ expanded");
		is_str(r.p.deny[4].pattern, "a..b/..c/d..",
		    "deny: '..' inside a component is not '..'");
	}
	is_int(r.p.default_deny, 1, "default-deny: on by default");

	/* tc_policy_finish() puts the built-in rules first, once. */
	finish(&r);
	is_int(r.p.ndeny, 20, "finished: 15 built-in rules, then the file's");
	if (r.p.ndeny == 20) {
		is_str(r.p.deny[0].pattern, "**/.env", "built in: first");
		is_int(r.p.deny[0].line, 0, "built in: line 0");
		is_int(r.p.deny[0].access, TC_ACCESS_READ | TC_ACCESS_WRITE,
		    "built in: .env for reading and writing");
		is_str(r.p.deny[12].pattern, "**/.git/hooks",
		    "built in: git hooks");
		is_int(r.p.deny[12].access, TC_ACCESS_WRITE,
		    "built in: git hooks for writing only");
		is_str(r.p.deny[13].pattern, "**/.git/config",
		    "built in: git config");
		is_int(r.p.deny[13].access, TC_ACCESS_WRITE,
		    "built in: git config for writing only");
		is_str(r.p.deny[14].pattern, "**/.git",
		    "built in: the rest of .git, last");
		is_int(r.p.deny[14].access, TC_ACCESS_WRITE,
		    "built in: .git for writing only");
		is_str(r.p.deny[15].pattern, "**/.env.local",
		    "the file's rules follow, in order");
		is_int(r.p.deny[15].line, 2, "with their lines");
		is_str(r.p.deny[19].pattern, "a..b/..c/d..", "the last one");
		for (i = 0; i < 14 && r.p.deny[i].line == 0; i++)
			;
		is_int(i, 14, "every built-in rule has line 0");
	}
	is_int(r.p.default_added, 1, "default_added");
	finish(&r);
	is_int(r.p.ndeny, 20, "finishing again adds nothing");
	release(&r);

	valid(&r, "allow read @D@/proj\ndefault-deny off\ndeny **/x\n",
	    "default-deny off");
	is_int(r.p.default_deny, 0, "default-deny off: stored");
	is_int(r.p.set_at[TC_SET_DEFAULT_DENY], 2, "default-deny: line 2");
	finish(&r);
	is_int(r.p.ndeny, 1, "default-deny off: no built-in rule");
	is_int(r.p.default_added, 0, "default-deny off: none added");
	release(&r);

	valid(&r, "allow read @D@/proj\ndefault-deny on\n", "default-deny on");
	is_int(r.p.set_at[TC_SET_DEFAULT_DENY], 2, "default-deny on: line 2");
	finish(&r);
	is_int(r.p.ndeny, 15, "default-deny on: the built-in rules");
	release(&r);

	bad_line("deny", "deny: missing the pattern (like **/.env)");
	bad_line("deny write", "deny write: missing the pattern (like "
	    "**/.env)");
	bad_line("deny a b", "deny: unexpected 'b' after the pattern (one "
	    "pattern per line; a pattern with blanks goes in double quotes)");
	bad_line("deny write a b", "deny write: unexpected 'b' after the "
	    "pattern (one pattern per line; a pattern with blanks goes in "
	    "double quotes)");
	bad_line("deny \"\"", "deny: empty pattern");
	bad_line("deny write \"\"", "deny write: empty pattern");
	bad_line("deny ..", "deny: '..': a pattern cannot contain '..'");
	bad_line("deny ../x", "deny: '../x': a pattern cannot contain '..'");
	bad_line("deny a/../b", "deny: 'a/../b': a pattern cannot contain "
	    "'..'");
	bad_line("deny write /a/..", "deny write: '/a/..': a pattern cannot "
	    "contain '..'");
	bad_line("deny ~/../x", "deny: '~/../x': a pattern cannot contain "
	    "'..'");
	bad_line("deny ./x", "deny: './x': write it without './' (a pattern "
	    "without a leading '/' is relative to each directory served)");
	bad_line("deny write ./.env", "deny write: './.env': write it "
	    "without './' (a pattern without a leading '/' is relative to "
	    "each directory served)");
	bad_line("default-deny", "default-deny: missing 'on' or 'off'");
	bad_line("default-deny yes", "default-deny: expected 'on' or 'off', "
	    "not 'yes'");
	bad_line("default-deny off on", "default-deny: unexpected 'on' at "
	    "the end of the line");
}

/* --- Tools --- */

static void
test_tools(void)
{
	const struct tc_tool_policy *t;
	struct result r;
	size_t i;

	valid(&r, "allow read @D@/proj\n", "no tools line");
	is_int(r.p.ntools, 10, "one entry per tool of the server");
	for (i = 0; i < r.p.ntools && r.p.tools[i].enabled; i++)
		;
	is_int(i, 10, "without a tools line, every tool is on");
	is_int(r.p.set_at[TC_SET_TOOLS], 0, "tools: default");
	ok(tc_policy_tool(&r.p, "copy_file") == NULL,
	    "tc_policy_tool: NULL for a tool the server has not");
	release(&r);

	valid(&r,
	    "allow read @D@/proj\n"
	    "tools read_text_file list_directory\n"
	    "tools get_file_info read_text_file\n", "two tools lines");
	is_int(r.p.set_at[TC_SET_TOOLS], 2, "tools: the first line");
	t = tc_policy_tool(&r.p, "read_text_file");
	ok(t != NULL && t->enabled && t->named && t->line == 2,
	    "read_text_file: named at line 2, on");
	t = tc_policy_tool(&r.p, "get_file_info");
	ok(t != NULL && t->enabled && t->line == 3,
	    "get_file_info: named at line 3, on");
	t = tc_policy_tool(&r.p, "list_directory");
	ok(t != NULL && t->enabled, "list_directory: on");
	t = tc_policy_tool(&r.p, "read_file");
	ok(t != NULL && !t->enabled && !t->named && t->line == 0,
	    "read_file: not named, off");
	t = tc_policy_tool(&r.p, "list_allowed_directories");
	ok(t != NULL && !t->enabled, "list_allowed_directories: off");
	release(&r);

	/* "enabled" is computed at the end of the file: the order of the
	 * lines does not matter. */
	valid(&r,
	    "allow read @D@/proj\n"
	    "tool read_file off\n"
	    "tools read_file read_text_file\n", "tool off, then tools");
	t = tc_policy_tool(&r.p, "read_file");
	ok(t != NULL && !t->enabled && t->named && t->off_line == 2 &&
	    t->line == 2, "read_file: named, but off at line 2");
	t = tc_policy_tool(&r.p, "read_text_file");
	ok(t != NULL && t->enabled, "read_text_file: on");
	t = tc_policy_tool(&r.p, "list_directory");
	ok(t != NULL && !t->enabled, "list_directory: not named, off");
	release(&r);

	valid(&r, "allow read @D@/proj\ntool get_file_info off\n",
	    "tool off without tools");
	for (i = 0; i < r.p.ntools; i++)
		if (r.p.tools[i].enabled != (strcmp(r.p.tools[i].name,
		    "get_file_info") != 0))
			break;
	is_int(i, 10, "only get_file_info is off");
	release(&r);

	bad_line("tools", "tools: missing the names of the tools to enable");
	bad_line("tools copy_file", "tools: toolcell-fs has no tool "
	    "'copy_file' (it has: " FS_TOOLS ")");
	bad_line("tools read_file Read_text_file list_directory", "tools: "
	    "toolcell-fs has no tool 'Read_text_file' (it has: " FS_TOOLS ")");
	invalid("allow read @D@/proj\ntools nope read_file nix\n",
	    "t.policy:2: tools: toolcell-fs has no tool 'nope' (it has: "
	    FS_TOOLS ")\n"
	    "t.policy:2: tools: toolcell-fs has no tool 'nix' (it has: "
	    FS_TOOLS ")\n", "two unknown tools: both reported");
	bad_line("tool", "tool: missing the tool's name");
	bad_line("tool nope off", "tool: toolcell-fs has no tool 'nope' (it "
	    "has: " FS_TOOLS ")");
	bad_line("tool read_file", "tool read_file: missing 'off', 'timeout' "
	    "or 'limit'");
	bad_line("tool read_file on", "tool read_file: expected 'off', "
	    "'timeout' or 'limit', not 'on'");
	bad_line("tool read_file off now", "tool read_file: unexpected 'now' "
	    "at the end of the line");
	bad_line("tool read_file timeout", "tool read_file timeout: missing "
	    "duration: write a whole number and a unit, ms, s, m or h (like "
	    "30s)");
	bad_line("tool read_file timeout 2h", "tool read_file timeout: '2h' "
	    "is out of range: 1ms to 1h");
	bad_line("tool read_file timeout 5", "tool read_file timeout: '5' is "
	    "not a duration: write a whole number and a unit, ms, s, m or h "
	    "(like 30s)");
	bad_line("tool read_file timeout 1s 2s", "tool read_file timeout: "
	    "unexpected '2s' at the end of the line");
	bad_line("tool read_file limit", "tool read_file limit: missing what "
	    "to limit (cpu, files, filesize, memory, output or processes)");
	bad_line("tool read_file limit threads 2", "tool read_file limit: "
	    "unknown limit 'threads' (known: cpu, files, filesize, memory, "
	    "output, processes)");
	bad_line("tool read_file limit memory 1M", "tool read_file limit "
	    "memory: '1M' is out of range: 16M to 1T");
	bad_line("tool read_file limit cpu 1500ms", "tool read_file limit "
	    "cpu: '1500ms' is not a whole number of seconds");
	bad_line("tool read_file limit files", "tool read_file limit files: "
	    "missing number: write a whole number");
}

/* Loads |text| for a server whose read_file is an alias of
 * read_text_file, as toolcell-fs's is. */
static void
load_aliased(struct result *r, const char *text)
{
	static const char *const tools[] = {
		"read_text_file", "list_directory",
	};

	memset(r, 0, sizeof(*r));
	tc_buf_init(&r->errs, 1u << 20);
	tc_policy_init(&r->p);
	if (tc_policy_set_server(&r->p, "toolcell-fs", tools,
	    TC_NITEMS(tools), 0) != 0)
		abort();
	is_int(tc_policy_add_alias(&r->p, "read_file", "read_text_file"), 0,
	    "alias added");
	is_int(tc_policy_add_alias(&r->p, "cat", "no_such_tool"), TC_EINVAL,
	    "an alias of no tool: refused");
	put("t.policy", text, 0644);
	r->rc = tc_policy_load(&r->p, "t.policy", collect, &r->errs, &r->d);
	if (r->errs.data == NULL)
		tc_buf_append_str(&r->errs, "");
}

/* An alias is its tool for the policy, and the policy names it once. */
static void
test_aliases(void)
{
	const struct tc_tool_policy *t;
	struct tc_limits l;
	struct result r;
	char *out, *want;

	load_aliased(&r, "allow read @D@/proj\n"
	    "tool read_text_file off\n"
	    "tool read_text_file timeout 2s\n");
	is_int(r.rc, 0, "aliased: loads");
	is_int(r.p.ntools, 2, "aliased: the alias has no entry of its own");
	t = tc_policy_tool(&r.p, "read_file");
	ok(t != NULL && t == tc_policy_tool(&r.p, "read_text_file"),
	    "tc_policy_tool: an alias gives its tool's settings");
	ok(t != NULL && !t->enabled, "aliased: off with its tool");
	tc_policy_limits(&r.p, "read_file", &l);
	is_int(l.deadline_ms, 2000, "tc_policy_limits: an alias has its "
	    "tool's");
	is_str(tc_policy_alias_of(&r.p, "read_file"), "read_text_file",
	    "tc_policy_alias_of: the tool");
	ok(tc_policy_alias_of(&r.p, "read_text_file") == NULL,
	    "tc_policy_alias_of: NULL for a tool of its own");
	finish(&r);
	out = printed(&r.p);
	want = subst("tools:\n"
	    "  read_text_file              off  (tool read_text_file off, "
	    "line 2)  timeout 2s (line 3)\n"
	    "  read_file                   off  (an alias of read_text_file, "
	    "which it follows)\n"
	    "  list_directory              on\n");
	like(out, want, "printed: the alias under its tool");
	free(out);
	free(want);
	release(&r);

	load_aliased(&r, "allow read @D@/proj\n"
	    "tools read_file list_directory\n"
	    "tool read_file off\n"
	    "tool read_file limit output 1K\n"
	    "consent read_file\n"
	    "consent * secret\n");
	is_int(r.rc, TC_EINVAL, "an alias named: refused");
	want = subst(
	    "t.policy:2: tools: 'read_file' is an alias of 'read_text_file', "
	    "and the same tool: write 'read_text_file', which covers both\n"
	    "t.policy:3: tool: 'read_file' is an alias of 'read_text_file', "
	    "and the same tool: write 'read_text_file', which covers both\n"
	    "t.policy:4: tool: 'read_file' is an alias of 'read_text_file', "
	    "and the same tool: write 'read_text_file', which covers both\n"
	    "t.policy:5: consent: 'read_file' is an alias of "
	    "'read_text_file', and the same tool: write 'read_text_file', "
	    "which covers both\n");
	is_str(r.errs.data, want, "an alias named: one error a line");
	free(want);
	release(&r);
}

static void
test_tool_limits(void)
{
	const struct tc_tool_policy *t;
	struct tc_limits l;
	struct result r;

	valid(&r,
	    "allow read @D@/proj\n"
	    "limit memory 256M\n"
	    "timeout 10s\n"
	    "tool read_text_file timeout 5s\n"
	    "tool read_text_file limit memory 64M\n"
	    "tool read_text_file limit cpu 2s\n"
	    "tool list_directory limit output 2M\n"
	    "tool list_directory limit files 32\n"
	    "tool list_directory limit processes 2\n"
	    "tool list_directory limit filesize 0\n"
	    "limit cpu 20s\n", "per-tool limits");
	t = tc_policy_tool(&r.p, "read_text_file");
	ok(t != NULL && t->set_at[TC_SET_TIMEOUT] == 4 &&
	    t->set_at[TC_SET_MEMORY] == 5 && t->set_at[TC_SET_CPU] == 6 &&
	    t->set_at[TC_SET_OUTPUT] == 0 && t->line == 4,
	    "read_text_file: the lines of its own settings");
	ok(t != NULL && t->enabled, "a tool with limits stays on");

	tc_policy_limits(&r.p, "read_text_file", &l);
	is_int(l.deadline_ms, 5000, "read_text_file: its own timeout");
	is_int(l.mem_bytes, 64ull << 20, "read_text_file: its own memory");
	is_int(l.cpu_sec, 2, "read_text_file: its own cpu");
	is_int(l.max_result, 64ull << 20, "read_text_file: the server's "
	    "output (the default)");
	is_int(l.nofile, 256, "read_text_file: the server's files");

	tc_policy_limits(&r.p, "list_directory", &l);
	is_int(l.deadline_ms, 10000, "list_directory: the server's timeout");
	is_int(l.mem_bytes, 256ull << 20, "list_directory: the server's "
	    "memory");
	is_int(l.cpu_sec, 20, "list_directory: the server's cpu, set after");
	is_int(l.max_result, 2ull << 20, "list_directory: its own output");
	is_int(l.nofile, 32, "list_directory: its own files");
	is_int(l.nproc, 2, "list_directory: its own processes");
	is_int(l.fsize_bytes, 0, "list_directory: its own filesize 0");

	tc_policy_limits(&r.p, "get_file_info", &l);
	ok(memcmp(&l, &r.p.limits, sizeof(l)) == 0,
	    "get_file_info: the server's limits");
	tc_policy_limits(&r.p, "copy_file", &l);
	ok(memcmp(&l, &r.p.limits, sizeof(l)) == 0,
	    "a tool the server has not: the server's limits");
	is_int(r.p.limits.mem_bytes, 256ull << 20,
	    "the server's limits are not changed by a tool's");
	release(&r);

	/* A tool's setting and the server's of the same kind are two
	 * settings; two of a tool's are a duplicate. */
	valid(&r, "allow read @D@/proj\ntimeout 1s\ntool read_file timeout "
	    "1s\ntool read_text_file timeout 1s\n", "a timeout each");
	release(&r);
	invalid("allow read @D@/proj\ntool read_file timeout 1s\n"
	    "tool read_file timeout 2s\n",
	    "t.policy:3: tool read_file timeout: already set at line 2\n",
	    "a tool's timeout twice");
	invalid("allow read @D@/proj\ntool read_file limit cpu 1s\n"
	    "tool read_file off\ntool read_file limit cpu 2s\n",
	    "t.policy:4: tool read_file limit cpu: already set at line 2\n",
	    "a tool's limit twice");
}

/* --- Warnings --- */

/* The tools of fs_tools[] that change files. */
static const char *const fs_writers[] = {
	"write_file", "edit_file", "create_directory", "move_file",
	"delete_file", NULL,
};

/* Loads and finishes |text|, which must be valid, and checks that
 * tc_policy_warn() reports exactly |want| (subst()), |n| lines. */
static void
warns(const char *text, int n, const char *want, const char *what)
{
	struct result r;
	struct tc_buf got;
	char *w = subst(want);

	valid(&r, text, what);
	finish(&r);
	tc_buf_init(&got, 1u << 20);
	tc_buf_append_str(&got, "");
	is_int(tc_policy_warn(&r.p, fs_writers, collect, &got), n,
	    "%s: %d warning%s", what, n, n == 1 ? "" : "s");
	is_str(got.data, w, "%s: what they say", what);
	tc_buf_release(&got);
	free(w);
	release(&r);
}

static void
test_warnings(void)
{
	warns("allow read @D@/proj\n"
	    "allow write @D@/scratch\n"
	    "tools read_text_file list_directory write_file\n"
	    "tool write_file off\n"
	    "tool edit_file timeout 1s\n"
	    "consent delete_file\n"
	    "consent read_text_file\n"
	    "consent *\n"
	    "tool list_directory limit output 1M\n"
	    "tool edit_file limit memory 64M\n", 4,
	    "t.policy:6: 'consent delete_file' never applies: delete_file is "
	    "on no 'tools' line (the first is line 3)\n"
	    "t.policy:5: 'tool edit_file timeout' has no effect: edit_file is "
	    "on no 'tools' line (the first is line 3)\n"
	    "t.policy:10: 'tool edit_file limit memory' has no effect: "
	    "edit_file is on no 'tools' line (the first is line 3)\n"
	    "t.policy:2: '@D@/scratch' is read-write, but every tool that "
	    "changes files is off (write_file, ...): name them on a 'tools' "
	    "line, or serve it with 'allow read'\n",
	    "rules for tools that are off, and writing without a tool");
	warns("allow read @D@/proj\n"
	    "consent write_file\n"
	    "tool move_file limit filesize 1M\n"
	    "consent list_directory\n"
	    "tool list_directory off\n", 3,
	    "t.policy:2: 'consent write_file' never applies: write_file is "
	    "offered only when a directory is writable, and none is\n"
	    "t.policy:4: 'consent list_directory' never applies: "
	    "list_directory is switched off at line 5\n"
	    "t.policy:3: 'tool move_file limit filesize' has no effect: "
	    "move_file is offered only when a directory is writable, and "
	    "none is\n",
	    "a write tool without a writable directory; a tool switched off");
	warns("allow read @D@/proj\n"
	    "allow write @D@/scratch\n"
	    "tools read_text_file edit_file\n"
	    "consent edit_file @D@/scratch\n"
	    "tool edit_file timeout 5s\n"
	    "consent * **/*.sql\n", 0, "",
	    "a policy whose every line has an effect");
	warns("allow read @D@/proj\n"
	    "tools list_directory\n"
	    "tool delete_file off\n", 0, "",
	    "read-only, with the write tools off: nothing to say");
}

/* --- Network --- */

static void
test_network(void)
{
	struct result r;
	char *out;

	valid(&r, "allow read @D@/proj\n", "network: default");
	is_int(r.p.network, 0, "network: off by default");
	release(&r);
	valid(&r, "allow read @D@/proj\nnetwork off\n", "network off");
	is_int(r.p.network, 0, "network off: stored");
	is_int(r.p.set_at[TC_SET_NETWORK], 2, "network off: line 2");
	release(&r);

	bad_line("network on", "network on: toolcell-fs has no tool that "
	    "uses a network; its calls never reach one");
	bad_line("network connect 443", "network connect: toolcell-fs has no "
	    "tool that uses a network; its calls never reach one");
	bad_line("network", "network: missing 'off', 'on' (any address and "
	    "port) or 'connect' (and the TCP ports)");
	bad_line("network maybe", "network: expected 'off', 'on' (any address "
	    "and port) or 'connect' (and the TCP ports), not 'maybe'");
	bad_line("network off please", "network: unexpected 'please' at the "
	    "end of the line");
	bad_line("network on 443", "network: unexpected '443' at the end of "
	    "the line");

	/* A server with a tool that may use a network accepts "on" and
	 * "connect". */
	features = TC_POLICY_F_WRITERS | TC_POLICY_F_NETWORK;
	valid(&r, "allow read @D@/proj\nnetwork on\n",
	    "network on, for a server with a network");
	is_int(r.p.network, TC_NETWORK_ON, "network on: stored");
	is_int((int)r.p.nnet_ports, 0, "network on: no ports");
	release(&r);
	valid(&r, "allow read @D@/proj\nnetwork connect 8080 443 22\n",
	    "network connect");
	is_int(r.p.network, TC_NETWORK_CONNECT, "network connect: stored");
	ok(r.p.nnet_ports == 3 && r.p.net_ports[0] == 22 &&
	    r.p.net_ports[1] == 443 && r.p.net_ports[2] == 8080,
	    "network connect: the ports, ascending");
	is_int(r.p.set_at[TC_SET_NETWORK], 2, "network connect: line 2");
	out = printed(&r.p);
	ok(strstr(out, "\nnetwork: connect 22 443 8080  (line 2)\n") != NULL,
	    "network connect: --check prints the ports");
	free(out);
	release(&r);
	valid(&r, "allow read @D@/proj\nnetwork connect 1 65535\n",
	    "network connect: the first and the last port");
	ok(r.p.nnet_ports == 2 && r.p.net_ports[0] == 1 &&
	    r.p.net_ports[1] == 65535, "network connect: 1 and 65535");
	release(&r);
	bad_line("network connect", "network connect: missing the ports "
	    "(numbers from 1 to 65535)");
	bad_line("network connect 0", "network connect: '0' is not a port (a "
	    "number from 1 to 65535)");
	bad_line("network connect 65536", "network connect: '65536' is not a "
	    "port (a number from 1 to 65535)");
	bad_line("network connect https", "network connect: 'https' is not a "
	    "port (a number from 1 to 65535)");
	bad_line("network connect -1", "network connect: '-1' is not a port "
	    "(a number from 1 to 65535)");
	bad_line("network connect +80", "network connect: '+80' is not a port "
	    "(a number from 1 to 65535)");
	bad_line("network connect 99999999999999999999", "network connect: "
	    "'99999999999999999999' is not a port (a number from 1 to "
	    "65535)");
	bad_line("network connect example.com:443", "network connect: "
	    "'example.com:443' is not a port (a number from 1 to 65535)");
	bad_line("network connect 443 80 443", "network connect: port 443 is "
	    "given twice");
	invalid("allow read @D@/proj\nnetwork connect 80 x 80\n",
	    "t.policy:2: network connect: 'x' is not a port (a number from 1 "
	    "to 65535)\nt.policy:2: network connect: port 80 is given twice\n",
	    "network connect: every bad port is reported");
	invalid("allow read @D@/proj\nnetwork on\nnetwork connect 80\n",
	    "t.policy:3: network: already set at line 2\n",
	    "network: given once");
	features = TC_POLICY_F_WRITERS;
}

/* "jit": off by default, "on" only for a server whose tools run
 * programs, --check says which. */
static void
test_jit(void)
{
	struct result r;
	char *out;

	valid(&r, "allow read @D@/proj\n", "jit: default");
	is_int(r.p.jit, 0, "jit: off by default");
	release(&r);
	bad_line("jit on", "jit on: toolcell-fs runs no programs; it has "
	    "nothing to compile");
	valid(&r, "allow read @D@/proj\njit off\n", "jit off, any server");
	is_int(r.p.jit, 0, "jit off: stored");
	is_int(r.p.set_at[TC_SET_JIT], 2, "jit off: line 2");
	release(&r);
	bad_line("jit", "jit: missing 'on' or 'off'");
	bad_line("jit maybe", "jit: expected 'on' or 'off', not 'maybe'");
	bad_line("jit on now", "jit: unexpected 'now' at the end of the line");

	features = TC_POLICY_F_WRITERS | TC_POLICY_F_JIT;
	valid(&r, "allow read @D@/proj\njit on\n",
	    "jit on, for a server that runs programs");
	is_int(r.p.jit, 1, "jit on: stored");
	out = printed(&r.p);
	ok(strstr(out, "\njit: on: programs may make memory writable and "
	    "executable  (line 2)\n") != NULL, "jit on: --check says so");
	free(out);
	release(&r);
	valid(&r, "allow read @D@/proj\n", "jit: default, for a server "
	    "that runs programs");
	out = printed(&r.p);
	ok(strstr(out, "\njit: off  (default)\n") != NULL,
	    "jit: --check says off");
	free(out);
	release(&r);
	invalid("allow read @D@/proj\njit on\njit off\n",
	    "t.policy:3: jit: already set at line 2\n", "jit: given once");
	features = TC_POLICY_F_WRITERS;
}

/* --- Consent --- */

static void
test_consent(void)
{
	struct result r;

	valid(&r, "allow read @D@/proj\n", "consent: defaults");
	is_int(r.p.nconsent, 0, "no consent rule");
	is_int(r.p.nconsent_by, 0, "consent-by: none before finishing");
	ok(r.p.consent_hook == NULL, "no hook");
	is_int(r.p.consent_timeout_ms, 30000, "consent-timeout: 30s");
	finish(&r);
	is_int(r.p.nconsent_by, 1, "finished: asked by one means");
	is_int(r.p.consent_by[0], TC_CONSENT_ELICIT,
	    "finished: elicitation, without a hook");
	finish(&r);
	is_int(r.p.nconsent_by, 1, "finishing again adds nothing");
	release(&r);

	valid(&r,
	    "allow read @D@/proj\n"
	    "consent read_text_file\n"
	    "consent * ~/proj/private \"**/my notes\" /srv/**\n"
	    "consent list_directory a..b\n"
	    "consent read_text_file **/*.sql\n"
	    "consent-timeout 1500ms\n", "consent lines");
	is_int(r.p.nconsent, 4, "four rules");
	if (r.p.nconsent == 4) {
		is_str(r.p.consent[0].tool, "read_text_file", "rule 1: tool");
		is_int(r.p.consent[0].npatterns, 0, "rule 1: any path");
		ok(r.p.consent[0].patterns != NULL &&
		    r.p.consent[0].patterns[0] == NULL,
		    "rule 1: an empty, NULL-terminated list");
		is_int(r.p.consent[0].line, 2, "rule 1: line 2");
		is_str(r.p.consent[1].tool, "*", "rule 2: every tool");
		is_int(r.p.consent[1].npatterns, 3, "rule 2: three patterns");
		if (r.p.consent[1].npatterns == 3) {
			is_str(r.p.consent[1].patterns[0],
			    S("@D@/proj/private"), "rule 2: ~/ expanded");
			is_str(r.p.consent[1].patterns[1], "**/my notes",
			    "rule 2: a quoted pattern");
			is_str(r.p.consent[1].patterns[2], "/srv/**",
			    "rule 2: an absolute pattern");
			ok(r.p.consent[1].patterns[3] == NULL,
			    "rule 2: NULL-terminated");
		}
		is_str(r.p.consent[3].tool, "read_text_file",
		    "a tool may have several rules");
	}
	is_int(r.p.consent_timeout_ms, 1500, "consent-timeout 1500ms");
	is_int(r.p.set_at[TC_SET_CONSENT_TIMEOUT], 6, "consent-timeout: line");
	release(&r);

	valid(&r, "allow read @D@/proj\nconsent-timeout 1s\n",
	    "consent-timeout 1s");
	is_int(r.p.consent_timeout_ms, 1000, "consent-timeout: 1s, the least");
	release(&r);
	valid(&r, "allow read @D@/proj\nconsent-timeout 10m\n",
	    "consent-timeout 10m");
	is_int(r.p.consent_timeout_ms, 600000, "consent-timeout: 10m, the "
	    "most");
	release(&r);

	bad_line("consent", "consent: missing the tool ('*' for every tool)");
	bad_line("consent copy_file", "consent: toolcell-fs has no tool "
	    "'copy_file' (it has: " FS_TOOLS ")");
	bad_line("consent ** x", "consent: toolcell-fs has no tool '**' (it "
	    "has: " FS_TOOLS ")");
	bad_line("consent * ../x", "consent: '../x': a pattern cannot "
	    "contain '..'");
	bad_line("consent read_file ./x", "consent: './x': write it without "
	    "'./' (a pattern without a leading '/' is relative to each "
	    "directory served)");
	bad_line("consent * \"\"", "consent: empty pattern");
	invalid("allow read @D@/proj\nconsent * ok ../a b/.. fine\n",
	    "t.policy:2: consent: '../a': a pattern cannot contain '..'\n"
	    "t.policy:2: consent: 'b/..': a pattern cannot contain '..'\n",
	    "consent: each bad pattern reported");
	bad_line("consent-timeout", "consent-timeout: missing duration: write "
	    "a whole number and a unit, ms, s, m or h (like 30s)");
	bad_line("consent-timeout 999ms", "consent-timeout: '999ms' is out of "
	    "range: 1s to 10m");
	bad_line("consent-timeout 11m", "consent-timeout: '11m' is out of "
	    "range: 1s to 10m");
	bad_line("consent-timeout 30", "consent-timeout: '30' is not a "
	    "duration: write a whole number and a unit, ms, s, m or h (like "
	    "30s)");
}

static void
test_consent_hook(void)
{
	struct result r;

	valid(&r, "allow read @D@/proj\n"
	    "consent-hook @D@/hook.sh --ask \"two words\" ~/not-expanded\n",
	    "consent-hook with arguments");
	ok(r.p.consent_hook != NULL, "the hook is stored");
	if (r.p.consent_hook != NULL) {
		is_str(r.p.consent_hook[0], S("@D@/hook.sh"), "argv[0]");
		is_str(r.p.consent_hook[1], "--ask", "argv[1]");
		is_str(r.p.consent_hook[2], "two words", "argv[2], quoted");
		is_str(r.p.consent_hook[3], "~/not-expanded",
		    "argv[3]: only the program is expanded");
		ok(r.p.consent_hook[4] == NULL, "NULL-terminated");
	}
	is_int(r.p.set_at[TC_SET_CONSENT_HOOK], 2, "consent-hook: line 2");
	finish(&r);
	is_int(r.p.nconsent_by, 2, "finished: two means");
	is_int(r.p.consent_by[0], TC_CONSENT_ELICIT,
	    "finished: elicitation first");
	is_int(r.p.consent_by[1], TC_CONSENT_HOOK, "finished: then the hook");
	release(&r);

	valid(&r, "allow read @D@/proj\nconsent-hook ~/hook.sh\n",
	    "consent-hook ~/");
	if (r.p.consent_hook != NULL) {
		is_str(r.p.consent_hook[0], S("@D@/hook.sh"), "~/ expanded");
		ok(r.p.consent_hook[1] == NULL, "no arguments");
	} else
		ok(0, "the hook is stored");
	release(&r);

	bad_line("consent-hook", "consent-hook: missing the program");
	bad_line("consent-hook @D@/noexec", "consent-hook: '@D@/noexec': not "
	    "an executable file");
	bad_line("consent-hook @D@", "consent-hook: '@D@': not an "
	    "executable file");
	put("groupw", "#!/bin/sh\nexit 0\n", 0775);
	bad_line("consent-hook @D@/groupw", "consent-hook: '@D@/groupw': "
	    "writable by group or others; chmod go-w @D@/groupw");
	/* In a directory others may write, another hook could be put in
	 * its place; as a link from one, it could be pointed elsewhere. */
	if (mkdir("hooks-open", 0700) != 0 || chmod("hooks-open", 0777) != 0 ||
	    symlink("../hook.sh", "hooks-open/link") != 0)
		abort();
	put("hooks-open/h", "#!/bin/sh\nexit 0\n", 0755);
	bad_line("consent-hook @D@/hooks-open/h", "the directory "
	    "@D@/hooks-open is writable by group or others, who could "
	    "replace the consent hook; chmod go-w @D@/hooks-open");
	bad_line("consent-hook @D@/hooks-open/link", "the directory "
	    "@D@/hooks-open is writable by group or others, who could "
	    "replace the consent hook; chmod go-w @D@/hooks-open");
	/* A hook another user owns: that user decides consent. */
	if (geteuid() == 0) {
		put("theirs", "#!/bin/sh\nexit 0\n", 0755);
		if (chown("theirs", 12345, 12345) != 0)
			abort();
		bad_line("consent-hook @D@/theirs", "consent-hook: "
		    "'@D@/theirs': owned by uid 12345, neither root nor the "
		    "user running the server (uid 0): that user could change "
		    "what it answers");
	} else
		skip("a hook of another user's needs root to be made");
	if (chmod("hooks-open", 01777) != 0)
		abort();
	valid(&r, S("allow read @D@/proj\nconsent-hook @D@/hooks-open/h\n"),
	    "a hook in a sticky directory");
	release(&r);
	bad_line("consent-hook @D@/missing --x", "consent-hook: "
	    "'@D@/missing': No such file or directory");
	bad_line("consent-hook ~/missing", "consent-hook: '@D@/missing': No "
	    "such file or directory");
	bad_line("consent-hook @D@/file/x", "consent-hook: '@D@/file/x': Not "
	    "a directory");
	bad_line("consent-hook hook.sh", "consent-hook: 'hook.sh' is a "
	    "relative path: write an absolute path (or one starting with ~/)");
	bad_line("consent-hook \"\"", "consent-hook: empty path");
}

static void
test_consent_by(void)
{
	struct result r;

	valid(&r, "allow read @D@/proj\nconsent-by hook elicitation\n"
	    "consent-hook @D@/hook.sh\n", "consent-by hook elicitation");
	is_int(r.p.nconsent_by, 2, "two means");
	is_int(r.p.consent_by[0], TC_CONSENT_HOOK, "the hook first");
	is_int(r.p.consent_by[1], TC_CONSENT_ELICIT, "then elicitation");
	is_int(r.p.set_at[TC_SET_CONSENT_BY], 2, "consent-by: line 2");
	finish(&r);
	is_int(r.p.nconsent_by, 2, "finishing keeps them");
	is_int(r.p.consent_by[0], TC_CONSENT_HOOK, "in their order");
	release(&r);

	valid(&r, "allow read @D@/proj\nconsent-by elicitation\n"
	    "consent-hook @D@/hook.sh\n", "consent-by elicitation, a hook");
	finish(&r);
	is_int(r.p.nconsent_by, 1, "only elicitation, though a hook is set");
	is_int(r.p.consent_by[0], TC_CONSENT_ELICIT, "elicitation");
	release(&r);

	bad_line("consent-by", "consent-by: missing the means, in order: "
	    "elicitation, hook, or both");
	bad_line("consent-by tty", "consent-by: unknown means 'tty' (known: "
	    "elicitation, hook; a call no means answers is denied)");
	bad_line("consent-by elicitation elicitation", "consent-by: "
	    "'elicitation' named twice");
	invalid("allow read @D@/proj\nconsent-by elicitation hook\n",
	    "t.policy: consent-by hook (line 2): no 'consent-hook PROGRAM' "
	    "line names the hook\n", "consent-by hook without a hook");
}

/* --- Audit --- */

static void
test_audit(void)
{
	struct result r;

	valid(&r, "allow read @D@/proj\n", "audit: defaults");
	ok(r.p.audit_file == NULL, "no audit log");
	ok(r.p.audit_key_file == NULL, "no key");
	is_int(r.p.audit_sync, TC_AUDIT_SYNC_EVERY, "fsync every record");
	is_int(r.p.audit_rotate_bytes, 0, "never rotated");
	is_int(r.p.audit_keep, 0, "keep: 0");
	release(&r);

	valid(&r,
	    "allow read @D@/proj\n"
	    "audit ~/audit.jsonl\n"
	    "audit-key \"@D@/audit key\"\n"
	    "audit-sync none\n"
	    "audit-rotate 10M keep 5\n", "every audit setting");
	is_str(r.p.audit_file, S("@D@/audit.jsonl"), "audit: ~/ expanded");
	is_str(r.p.audit_key_file, S("@D@/audit key"), "audit-key: quoted");
	is_int(r.p.audit_sync, TC_AUDIT_SYNC_NONE, "audit-sync none");
	is_int(r.p.audit_rotate_bytes, 10ull << 20, "audit-rotate 10M");
	is_int(r.p.audit_keep, 5, "keep 5");
	is_int(r.p.set_at[TC_SET_AUDIT], 2, "audit: line 2");
	is_int(r.p.set_at[TC_SET_AUDIT_KEY], 3, "audit-key: line 3");
	is_int(r.p.set_at[TC_SET_AUDIT_SYNC], 4, "audit-sync: line 4");
	is_int(r.p.set_at[TC_SET_AUDIT_ROTATE], 5, "audit-rotate: line 5");
	release(&r);

	valid(&r, "audit-key ~/k\nallow read @D@/proj\naudit-sync every\n"
	    "audit-rotate 64K\naudit /var/log/tc.jsonl\n",
	    "audit after the others, and the bounds");
	is_str(r.p.audit_key_file, S("@D@/k"), "audit-key: ~/ expanded");
	is_int(r.p.audit_sync, TC_AUDIT_SYNC_EVERY, "audit-sync every");
	is_int(r.p.audit_rotate_bytes, 64 << 10, "audit-rotate 64K, the "
	    "least");
	is_int(r.p.audit_keep, 0, "without keep: 0, every file");
	release(&r);
	valid(&r, "allow read @D@/proj\naudit /a.jsonl\n"
	    "audit-rotate 1T keep 10000\n", "audit-rotate: the most");
	is_int(r.p.audit_rotate_bytes, 1ull << 40, "audit-rotate 1T");
	is_int(r.p.audit_keep, 10000, "keep 10000");
	release(&r);

	bad_line("audit", "audit: missing the log file");
	bad_line("audit /a b", "audit: unexpected 'b' at the end of the line");
	bad_line("audit log.jsonl", "audit: 'log.jsonl' is a relative path: "
	    "write an absolute path (or one starting with ~/)");
	bad_line("audit \"\"", "audit: empty path");

#define AUDIT	"audit /a.jsonl"
	bad_after(AUDIT, "audit-key", "audit-key: missing the key file");
	bad_after(AUDIT, "audit-key /k x", "audit-key: unexpected 'x' at the "
	    "end of the line");
	bad_after(AUDIT, "audit-key k", "audit-key: 'k' is a relative path: "
	    "write an absolute path (or one starting with ~/)");
	/* In a directory others may write, another key could be put in its
	 * place, and the chain forged with it; as a link from one, it could
	 * be pointed elsewhere.  Its own mode the audit's start checks. */
	if (mkdir("keys-open", 0700) != 0 || chmod("keys-open", 0777) != 0 ||
	    symlink("../keys-ok/k", "keys-open/link") != 0 ||
	    mkdir("keys-ok", 0700) != 0)
		abort();
	put("keys-open/k", "0123456789abcdef0123456789abcdef\n", 0600);
	put("keys-ok/k", "0123456789abcdef0123456789abcdef\n", 0600);
	bad_after(AUDIT, "audit-key @D@/keys-open/k", "the directory "
	    "@D@/keys-open is writable by group or others, who could "
	    "replace the audit key; chmod go-w @D@/keys-open");
	bad_after(AUDIT, "audit-key @D@/keys-open/link", "the directory "
	    "@D@/keys-open is writable by group or others, who could "
	    "replace the audit key; chmod go-w @D@/keys-open");
	valid(&r, S("allow read @D@/proj\naudit /a.jsonl\n"
	    "audit-key @D@/keys-ok/k\n"), "a key in a directory of its own");
	release(&r);
	/* One not made yet is the audit's to report, with how to make it. */
	valid(&r, S("allow read @D@/proj\naudit /a.jsonl\n"
	    "audit-key @D@/keys-open/none\n"), "a key not made yet");
	release(&r);
	bad_after(AUDIT, "audit-sync", "audit-sync: missing 'every' or "
	    "'none'");
	bad_after(AUDIT, "audit-sync always", "audit-sync: expected 'every' "
	    "(fsync each record) or 'none', not 'always'");
	bad_after(AUDIT, "audit-sync none now", "audit-sync: unexpected "
	    "'now' at the end of the line");
	bad_after(AUDIT, "audit-rotate", "audit-rotate: missing size: write "
	    "a whole number of bytes, or one followed by K, M, G or T (like "
	    "512M)");
	bad_after(AUDIT, "audit-rotate 63K", "audit-rotate: '63K' is out of "
	    "range: 64K to 1T");
	bad_after(AUDIT, "audit-rotate 2T", "audit-rotate: '2T' is out of "
	    "range: 64K to 1T");
	bad_after(AUDIT, "audit-rotate 10MB", "audit-rotate: '10MB' is not a "
	    "size: write a whole number of bytes, or one followed by K, M, G "
	    "or T (like 512M)");
	bad_after(AUDIT, "audit-rotate 1M keep", "audit-rotate keep: missing "
	    "number");
	bad_after(AUDIT, "audit-rotate 1M keep 0", "audit-rotate keep: '0' "
	    "is out of range: 1 to 10000");
	bad_after(AUDIT, "audit-rotate 1M keep 10001", "audit-rotate keep: "
	    "'10001' is out of range: 1 to 10000");
	bad_after(AUDIT, "audit-rotate 1M keep many", "audit-rotate keep: "
	    "'many' is not a whole number");
	bad_after(AUDIT, "audit-rotate 1M keep 3 4", "audit-rotate keep: "
	    "unexpected '4' at the end of the line");
	bad_after(AUDIT, "audit-rotate 1M retain 3", "audit-rotate: expected "
	    "'keep N' after the size, not 'retain'");
	bad_after(AUDIT, "audit-rotate 1M 3", "audit-rotate: expected 'keep "
	    "N' after the size, not '3'");
#undef AUDIT

	/* The other audit settings need the log. */
	invalid("allow read @D@/proj\naudit-key /k\naudit-sync none\n"
	    "audit-rotate 1M\n",
	    "t.policy: audit-key (line 2): no 'audit FILE' line names the "
	    "log\n"
	    "t.policy: audit-sync (line 3): no 'audit FILE' line names the "
	    "log\n"
	    "t.policy: audit-rotate (line 4): no 'audit FILE' line names the "
	    "log\n", "audit-* without audit");
	invalid("allow read @D@/proj\naudit-sync every\n",
	    "t.policy: audit-sync (line 2): no 'audit FILE' line names the "
	    "log\n", "audit-sync every (the default) without audit");
}

/*
 * "roots": what the client's roots do (tc_policy_narrow()), and the note
 * every refusal and list_allowed_directories carry.
 */
static void
test_roots_mode(void)
{
	struct result r;
	char note[1024], small[64], *want, *dirs[2];
	static char many[40][PATH_MAX + 256], d0[PATH_MAX], d1[PATH_MAX];
	char *mv[40];
	size_t i;

	dirs[0] = d0;
	dirs[1] = d1;

	valid(&r, "allow read @D@/proj\nallow write @D@/scratch\n",
	    "roots: default");
	is_int(r.p.roots_mode, TC_ROOTS_NARROW, "roots: narrow by default");
	is_int(r.p.roots_state, TC_ROOTS_OWN, "no client roots yet");
	is_str(tc_policy_roots_note(&r.p, note, sizeof(note)), "",
	    "no note before the client's roots");
	/* Outside both: the policy's stay. */
	snprintf(d0, sizeof(d0), "%s", S("@D@/sub"));
	snprintf(d1, sizeof(d1), "%s", S("@D@/nonexistent"));
	is_int(tc_policy_narrow(&r.p, dirs, 2, &r.d), 0, "narrow: outside");
	is_int(r.p.roots_state, TC_ROOTS_KEPT, "outside: the policy's kept");
	is_int(r.p.nroots, 2, "outside: both policy roots in force");
	ok(r.p.nroots == 2 && r.p.roots[0].fd >= 0 &&
	    strcmp(r.p.roots[1].path, S("@D@/scratch")) == 0 &&
	    r.p.roots[1].flags == TC_ROOT_WRITE, "outside: as they were");
	want = subst("The client's roots: @D@/sub, @D@/nonexistent. None of "
	    "them is in or above a directory the policy allows, so the "
	    "policy's directories are served ('roots narrow'): @D@/proj "
	    "(read-only), @D@/scratch (read-write).");
	is_str(tc_policy_roots_note(&r.p, note, sizeof(note)), want,
	    "outside: the note");
	free(want);
	/* Inside one: narrowed, from the policy's and not the kept ones. */
	snprintf(d0, sizeof(d0), "%s", S("@D@/scratch"));
	is_int(tc_policy_narrow(&r.p, dirs, 1, &r.d), 0, "narrow: inside");
	is_int(r.p.roots_state, TC_ROOTS_NARROWED, "inside: narrowed");
	ok(r.p.nroots == 1 && strcmp(r.p.roots[0].path, S("@D@/scratch")) ==
	    0, "inside: only scratch");
	want = subst("The client's roots: @D@/scratch. They narrow the "
	    "policy's directories (@D@/proj, @D@/scratch) to those served: "
	    "@D@/scratch (read-write).");
	is_str(tc_policy_roots_note(&r.p, note, sizeof(note)), want,
	    "inside: the note");
	free(want);
	/* Inside a .git of the writable one: read-only, since the built-in
	 * rules on .git, relative to the policy's directory, could not see
	 * a path relative to the client's root. */
	if (mkdir("scratch/r", 0755) != 0 || mkdir("scratch/r/.git", 0755) !=
	    0 || mkdir("scratch/r/.git/hooks", 0755) != 0)
		abort();
	snprintf(d0, sizeof(d0), "%s", S("@D@/scratch/r/.git/hooks"));
	snprintf(d1, sizeof(d1), "%s", S("@D@/scratch/r"));
	finish(&r);
	is_int(tc_policy_narrow(&r.p, dirs, 2, &r.d), 0, "narrow: in .git");
	ok(r.p.nroots == 2 && strcmp(r.p.roots[0].path,
	    S("@D@/scratch/r/.git/hooks")) == 0 && r.p.roots[0].flags == 0,
	    "in .git: read-only");
	ok(r.p.nroots == 2 && r.p.roots[1].flags == TC_ROOT_WRITE,
	    "beside it: writable, the rules relative to the policy's");
	/* No roots at all: the policy's again. */
	is_int(tc_policy_narrow(&r.p, NULL, 0, &r.d), 0, "narrow: none");
	is_int(r.p.roots_state, TC_ROOTS_KEPT, "none: the policy's kept");
	is_int(r.p.nroots, 2, "none: both again");
	ok(r.p.ceiling == NULL, "none: nothing narrowed is left");
	is_str(tc_policy_roots_note(&r.p, small, sizeof(small)),
	    "The client's roots: none. None of them is in or above a dire"
	    "\xe2\x80\xa6",
	    "a note too long for its buffer is cut, and says so");
	/* Many long roots: the note still fits, cut. */
	for (i = 0; i < TC_NITEMS(many); i++) {
		snprintf(many[i], sizeof(many[i]), "%s/%0200zu", D, i);
		mv[i] = many[i];
	}
	is_int(tc_policy_narrow(&r.p, mv, TC_NITEMS(mv), &r.d), 0,
	    "narrow: many");
	is_int(r.p.nclient_roots, TC_NITEMS(mv), "many: all kept for the "
	    "answer");
	tc_policy_roots_note(&r.p, note, sizeof(note));
	ok(strlen(note) < sizeof(note) && strlen(note) > sizeof(note) - 8 &&
	    strcmp(note + strlen(note) - 3, "\xe2\x80\xa6") == 0,
	    "many: the note is cut to its buffer");
	release(&r);

	valid(&r, "allow read @D@/proj\nroots strict\n", "roots strict");
	is_int(r.p.roots_mode, TC_ROOTS_STRICT, "roots strict");
	is_int(r.p.set_at[TC_SET_ROOTS], 2, "roots: line 2");
	snprintf(d0, sizeof(d0), "%s", S("@D@/sub"));
	is_int(tc_policy_narrow(&r.p, dirs, 1, &r.d), 0, "strict: outside");
	is_int(r.p.roots_state, TC_ROOTS_EMPTY, "strict: nothing served");
	is_int(r.p.nroots, 0, "strict: no root in force");
	want = subst("The client's roots: @D@/sub. None of them is in or "
	    "above a directory the policy allows (@D@/proj), and with 'roots "
	    "strict' nothing is served then: start the client in or under "
	    "one of those directories, or set 'roots narrow' in the policy.");
	is_str(tc_policy_roots_note(&r.p, note, sizeof(note)), want,
	    "strict: the note");
	free(want);
	snprintf(d0, sizeof(d0), "%s", D);
	is_int(tc_policy_narrow(&r.p, dirs, 1, &r.d), 0, "strict: above");
	is_int(r.p.roots_state, TC_ROOTS_NARROWED, "strict: above narrows");
	is_int(r.p.nroots, 1, "strict: proj again");
	release(&r);

	valid(&r, "allow read @D@/proj\nroots ignore\n", "roots ignore");
	is_int(r.p.roots_mode, TC_ROOTS_IGNORE, "roots ignore");
	release(&r);
	is_str(tc_roots_mode_name(TC_ROOTS_NARROW), "narrow", "narrow");
	is_str(tc_roots_mode_name(TC_ROOTS_STRICT), "strict", "strict");
	is_str(tc_roots_mode_name(TC_ROOTS_IGNORE), "ignore", "ignore");
}

static void
test_write_sync(void)
{
	struct result r;

	valid(&r, "allow read @D@/proj\n", "write-sync: default");
	is_int(fs_policy(&r.p)->write_sync, FS_WRITE_SYNC_EVERY,
	    "write-sync: every by default");
	is_int(tc_policy_setting_at(&r.p, "write-sync"), 0,
	    "write-sync: the default");
	release(&r);
	/* At the top, where policies have always had it. */
	valid(&r, "allow read @D@/proj\nwrite-sync none\n", "write-sync none");
	is_int(fs_policy(&r.p)->write_sync, FS_WRITE_SYNC_NONE,
	    "write-sync none: off");
	is_int(tc_policy_setting_at(&r.p, "write-sync"), 2,
	    "write-sync: line 2");
	release(&r);
	valid(&r, "allow read @D@/proj\nwrite-sync every\n",
	    "write-sync every");
	is_int(fs_policy(&r.p)->write_sync, FS_WRITE_SYNC_EVERY,
	    "write-sync every: on");
	release(&r);
	/* And in [fs]. */
	valid(&r, "allow read @D@/proj\n[fs]\nwrite-sync none\n",
	    "write-sync none in [fs]");
	is_int(fs_policy(&r.p)->write_sync, FS_WRITE_SYNC_NONE,
	    "write-sync none in [fs]: off");
	is_int(tc_policy_setting_at(&r.p, "write-sync"), 3,
	    "write-sync in [fs]: line 3");
	release(&r);
	bad_line("write-sync", "write-sync: missing 'every' or 'none'");
	bad_line("write-sync sometimes", "write-sync: expected 'every' (fsync "
	    "each file written before answering) or 'none', not 'sometimes'");
	bad_line("write-sync none now", "write-sync: unexpected 'now' at the "
	    "end of the line");
	invalid("allow read @D@/proj\n[fs]\nwrite-sync none\n[shell]\n"
	    "write-sync every\n[fs]\nwrite-sync every\n",
	    "t.policy:7: write-sync: already set at line 3\n",
	    "write-sync twice in [fs], once in [shell]");

	/* Without its section, a server knows no write-sync. */
	memset(&r, 0, sizeof(r));
	tc_buf_init(&r.errs, 4096);
	tc_policy_init(&r.p);
	if (tc_policy_set_server(&r.p, "toolcell-fs", fs_tools,
	    TC_NITEMS(fs_tools), 0) != 0)
		abort();
	put("t.policy", "allow read @D@/proj\nwrite-sync none\n", 0644);
	r.rc = tc_policy_load(&r.p, "t.policy", collect, &r.errs, &r.d);
	is_str(r.errs.data, "t.policy:2: unknown keyword 'write-sync'\n",
	    "no [fs] section: write-sync unknown");
	is_int(fs_policy(&r.p)->write_sync, FS_WRITE_SYNC_EVERY,
	    "no [fs] section: fs_policy() gives the defaults");
	release(&r);
}

/* children N: the ready children kept per confinement profile. */
static void
test_children(void)
{
	struct result r;

	valid(&r, "allow read @D@/proj\n", "children: default");
	is_int((int)r.p.children, 8, "children: 8 by default");
	release(&r);
	valid(&r, "allow read @D@/proj\nchildren 0\n", "children 0");
	is_int((int)r.p.children, 0, "children 0: each call's own");
	is_int(r.p.set_at[TC_SET_CHILDREN], 2, "children: line 2");
	release(&r);
	valid(&r, "allow read @D@/proj\nchildren 16\n", "children 16");
	is_int((int)r.p.children, 16, "children 16");
	release(&r);
	bad_line("children", "children: missing number: write a whole number");
	bad_line("children 17", "children: '17' is out of range: 0 to 16");
	bad_line("children few", "children: 'few' is not a whole number");
	bad_after("children 2", "children 3", "children: already set at line 2");
}

static void
test_roots_timeout(void)
{
	struct result r;

	valid(&r, "allow read @D@/proj\n", "roots-timeout: default");
	is_int(r.p.roots_timeout_ms, 5000, "roots-timeout: 5s");
	release(&r);
	valid(&r, "allow read @D@/proj\nroots-timeout 100ms\n",
	    "roots-timeout 100ms");
	is_int(r.p.roots_timeout_ms, 100, "roots-timeout: 100ms, the least");
	is_int(r.p.set_at[TC_SET_ROOTS_TIMEOUT], 2, "roots-timeout: line 2");
	release(&r);
	valid(&r, "allow read @D@/proj\nroots-timeout 1m\n",
	    "roots-timeout 1m");
	is_int(r.p.roots_timeout_ms, 60000, "roots-timeout: 1m, the most");
	release(&r);

	bad_line("roots-timeout 99ms", "roots-timeout: '99ms' is out of "
	    "range: 100ms to 1m");
	bad_line("roots-timeout 61s", "roots-timeout: '61s' is out of range: "
	    "100ms to 1m");
	bad_line("roots-timeout", "roots-timeout: missing duration: write a "
	    "whole number and a unit, ms, s, m or h (like 30s)");
	bad_line("roots-timeout 1s 2s", "roots-timeout: unexpected '2s' at "
	    "the end of the line");
}

/* Jobs: how many run at once, and for how long. */
static void
test_jobs(void)
{
	struct result r;

	valid(&r, "allow read @D@/proj\n", "jobs: default");
	is_int(r.p.max_jobs, 4, "jobs: 4 by default");
	is_int(r.p.job_lifetime_ms, 3600000, "job-lifetime: 1h by default");
	release(&r);
	valid(&r, "allow read @D@/proj\njobs 0\njob-lifetime 90s\n",
	    "jobs 0, job-lifetime 90s");
	is_int(r.p.max_jobs, 0, "jobs 0: none");
	is_int(r.p.set_at[TC_SET_JOBS], 2, "jobs: line 2");
	is_int(r.p.job_lifetime_ms, 90000, "job-lifetime: 90s");
	is_int(r.p.set_at[TC_SET_JOB_LIFETIME], 3, "job-lifetime: line 3");
	release(&r);
	bad_line("jobs 65", "jobs: '65' is out of range: 0 to 64");
	bad_line("jobs many", "jobs: 'many' is not a whole number");
	bad_line("job-lifetime 500ms", "job-lifetime: '500ms' is out of "
	    "range: 1s to 24h");
	bad_line("job-lifetime", "job-lifetime: missing duration: write a "
	    "whole number and a unit, ms, s, m or h (like 30s)");
	bad_after("jobs 2", "jobs 3", "jobs: already set at line 2");
}

/* --- Sections --- */

static void
test_sections(void)
{
	struct result r;
	char *out;

	valid(&r, "[fs]\nallow read @D@/proj\n", "[fs] for toolcell-fs");
	is_int(r.p.nroots, 1, "[fs]: its lines are read");
	release(&r);

	valid(&r, "allow read @D@/proj\n[fs]\ntimeout 2s\n  [fs]  # again\n"
	    "limit cpu 3s\n", "lines before [fs], and [fs] twice");
	is_int(r.p.limits.deadline_ms, 2000, "[fs]: timeout read");
	is_int(r.p.limits.cpu_sec, 3, "[fs] again: limit read");
	release(&r);

	/* Another server's section is skipped whole, even wrong lines and
	 * keywords toolcell-fs does not know, and reading goes on at the
	 * next header: one file serves all the servers. */
	valid(&r,
	    "allow read @D@/proj\n"
	    "[shell]\n"
	    "allow read relative\n"
	    "program /usr/bin/git -c core.pager=cat\n"
	    "timeout 1s\n"
	    "[fs]\n"
	    "timeout 2s\n"
	    "[sqlite]\n"
	    "timeout 3s\n"
	    "database notes ~/notes.db read-only\n"
	    "[shell]\n"
	    "write-sync none\n", "other servers' sections");
	is_int(r.p.limits.deadline_ms, 2000, "other sections: skipped, "
	    "[fs] read");
	is_int(r.p.set_at[TC_SET_TIMEOUT], 7, "other sections: the timeout "
	    "of [fs]");
	is_int(fs_policy(&r.p)->write_sync, FS_WRITE_SYNC_EVERY,
	    "other sections: [shell]'s write-sync is not fs's");
	is_int((long long)r.p.nskipped, 2, "other sections: two recorded");
	finish(&r);
	out = printed(&r.p);
	like(out, "policy: t.policy\n  skipped, for other servers: [shell] "
	    "(line 2), [sqlite] (line 8)\ndirectories:\n",
	    "other sections: --check names them, each once");
	free(out);
	release(&r);

	/* Words are still words there: the grammar is the file's. */
	invalid("allow read @D@/proj\n[shell]\nprogram \"unterminated\n",
	    "t.policy:3: unterminated quoted word\n",
	    "another server's section: its words are read");

	invalid("[shell]\nallow read @D@/proj\n",
	    "t.policy: no 'allow' line: write 'allow read /path/to/dir' (or "
	    "'allow write ...') for each directory to serve\n",
	    "an allow line in another server's section does not count");

	/* An unknown keyword in the server's own section, with its line. */
	invalid("allow read @D@/proj\n[shell]\nbogus\n[fs]\nwrite-sync none\n"
	    "write-sinc none\nbogus\n",
	    "t.policy:6: unknown keyword 'write-sinc' (did you mean "
	    "'write-sync'?)\n"
	    "t.policy:7: unknown keyword 'bogus'\n",
	    "unknown keywords in [fs], none in [shell]");

	bad_line("[fs", "a section header is one word in brackets, like "
	    "[fs]");
	bad_line("[fs] x", "a section header is one word in brackets, like "
	    "[fs]");
	bad_line("[ fs ]", "a section header is one word in brackets, like "
	    "[fs]");
	bad_line("[]", "a section header is one word in brackets, like [fs]");
	bad_line("[fs]x", "a section header is one word in brackets, like "
	    "[fs]");
	/* A name of no server of the suite is a misspelling, not another
	 * server's section: refused, so that its lines are not dropped in
	 * silence. */
	bad_line("[audit]", "unknown section [audit] (known: [fs], [shell], "
	    "[sqlite])");
	bad_line("[FS]", "unknown section [FS] (known: [fs], [shell], "
	    "[sqlite])");
	bad_line("[fss]", "unknown section [fss] (known: [fs], [shell], "
	    "[sqlite])");
	invalid("allow read @D@/proj\n[fs\nbogus\n[nope]\nbogus\n[fs]\n"
	    "bogus\n",
	    "t.policy:2: a section header is one word in brackets, like "
	    "[fs]\n"
	    "t.policy:4: unknown section [nope] (known: [fs], [shell], "
	    "[sqlite])\n"
	    "t.policy:7: unknown keyword 'bogus'\n",
	    "after a bad header, lines are skipped up to the next one");
}

/*
 * A server of its own, toolcell-demo, with a section [demo] that has a
 * keyword of every shape: what a server's table gets from the grammar.
 */
struct demo {
	unsigned long long cache;	/* SIZE */
	char		*home;		/* PATH */
	char		*label;		/* WORD */
	int		 mode;		/* CHOICE */
	int		 pace_ms;	/* DURATION */
	unsigned long long rows;	/* COUNT */
	char		*rules[4];	/* LINE, repeated, words joined */
	int		 rule_line[4];
	int		 nrules;
	int		 verbose;	/* ON_OFF */
	int		 window[2];	/* LINE, once: two durations */
	int		 checked;	/* check() ran */
};

static int demo_released;

static const struct tc_policy_choice demo_modes[] = {
	{ "fast", "no checks" }, { "safe", NULL }, { NULL, NULL }
};

/* "rule PROGRAM [ARG...]": any number of them, up to 12 words. */
static void
demo_rule(struct tc_policy_ctx *c, char **w, int nw)
{
	struct demo *s = tc_policy_ctx_slot(c);
	char buf[512], *prog;
	size_t n;
	int k;

	if (nw < 1) {
		tc_policy_error(c, "rule: missing the program");
		return;
	}
	if (s->nrules == 4) {
		tc_policy_error(c, "rule: at most 4");
		return;
	}
	if ((prog = tc_policy_path(c, "rule", w[0])) == NULL)
		return;
	n = (size_t)snprintf(buf, sizeof(buf), "%s", prog);
	free(prog);
	for (k = 1; k < nw; k++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %s", w[k]);
	s->rule_line[s->nrules] = tc_policy_ctx_line(c);
	if ((s->rules[s->nrules++] = strdup(buf)) == NULL)
		abort();
}

/* "window FROM TO": once. */
static void
demo_window(struct tc_policy_ctx *c, char **w, int nw)
{
	struct demo *s = tc_policy_ctx_slot(c);
	unsigned long long a, b;

	if (nw != 2) {
		tc_policy_error(c, "window: write 'window FROM TO'");
		return;
	}
	if (tc_policy_value(c, "window", TC_POLICY_DURATION, w[0], 0,
	    60000, &a) != 0 || tc_policy_value(c, "window",
	    TC_POLICY_DURATION, w[1], 0, 60000, &b) != 0 ||
	    tc_policy_once(c) != 0)
		return;
	s->window[0] = (int)a;
	s->window[1] = (int)b;
}

static void
demo_init(void *slot)
{
	struct demo *s = slot;

	s->mode = 1;		/* safe */
	s->pace_ms = 100;
	s->rows = 10;
	s->verbose = 1;
}

static void
demo_release(void *slot)
{
	struct demo *s = slot;
	int i;

	for (i = 0; i < s->nrules; i++)
		free(s->rules[i]);
	demo_released++;
}

/* A rule needs mode safe: what only the whole file can tell. */
static void
demo_check(struct tc_policy_ctx *c)
{
	struct demo *s = tc_policy_ctx_slot(c);

	s->checked = tc_policy_ctx_line(c) == 0 ? 1 : -1;
	if (s->nrules > 0 && s->mode != 1)
		tc_policy_error(c, "rule (line %d): rules need 'mode safe'",
		    s->rule_line[0]);
}

#define DEMO(f)	offsetof(struct demo, f)

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct tc_policy_keyword demo_keywords[] = {
	{ "cache", TC_POLICY_SIZE, DEMO(cache), .min = 1024,
	  .max = 1ull << 30 },
	{ "home", TC_POLICY_PATH, DEMO(home), .value = "the directory" },
	{ "label", TC_POLICY_WORD, DEMO(label), .value = "the label" },
	{ "mode", TC_POLICY_CHOICE, DEMO(mode), .choices = demo_modes },
	{ "pace", TC_POLICY_DURATION, DEMO(pace_ms), .min = 10,
	  .max = 60000 },
	{ "rows", TC_POLICY_COUNT, DEMO(rows), .min = 1, .max = 1000 },
	{ "rule", TC_POLICY_LINE, .parse = demo_rule, .max_words = 12 },
	{ "verbose", TC_POLICY_ON_OFF, .offset = DEMO(verbose) },
	{ "window", TC_POLICY_LINE, .parse = demo_window },
};

static const struct tc_policy_section demo_section = {
	.name = "demo",
	.keywords = demo_keywords,
	.nkeywords = TC_NITEMS(demo_keywords),
	.size = sizeof(struct demo),
	.init = demo_init,
	.release = demo_release,
	.check = demo_check,
	.flags = TC_POLICY_ROOTS_OPTIONAL,
};

/* Loads |text| for toolcell-demo, which has one tool. */
static void
load_demo(struct result *r, const char *text)
{
	static const char *const tools[] = { "run" };

	memset(r, 0, sizeof(*r));
	tc_buf_init(&r->errs, 1u << 20);
	tc_policy_init(&r->p);
	if (tc_policy_set_server(&r->p, "toolcell-demo", tools,
	    TC_NITEMS(tools), 0) != 0)
		abort();
	is_int(tc_policy_set_section(&r->p, &demo_section, &r->d), 0,
	    "[demo] registered");
	put("t.policy", text, 0644);
	r->rc = tc_policy_load(&r->p, "t.policy", collect, &r->errs, &r->d);
	if (r->errs.data == NULL)
		tc_buf_append_str(&r->errs, "");
}

/* |text| for toolcell-demo fails with exactly |want| (subst()). */
static void
demo_invalid(const char *text, const char *want, const char *what)
{
	struct result r;
	char *w = subst(want);

	load_demo(&r, text);
	is_int(r.rc, TC_EINVAL, "%s: refused", what);
	is_str(r.errs.data, w, "%s: messages", what);
	free(w);
	release(&r);
}

static void
test_section_table(void)
{
	struct result r;
	const struct demo *s;
	char *out, *want;

	/* Defaults, and no 'allow' line needed (TC_POLICY_ROOTS_OPTIONAL). */
	load_demo(&r, "# nothing\n");
	is_int(r.rc, 0, "demo: an empty file loads");
	is_str(r.errs.data, "", "demo: no errors");
	s = tc_policy_slot(&r.p, &demo_section);
	ok(s != NULL, "demo: the slot is there");
	ok(tc_policy_slot(&r.p, &fs_policy_section) == NULL,
	    "demo: no [fs] slot");
	if (s != NULL) {
		is_int(s->mode, 1, "demo: init ran");
		is_int(s->checked, 1, "demo: check ran, at line 0");
	}
	release(&r);
	is_int(demo_released, 1, "demo: release ran");

	/* Every shape, at the top and in [demo]; the shared settings too. */
	load_demo(&r,
	    "cache 4M\n"
	    "[fs]\n"
	    "write-sync none\n"
	    "rows 99999\n"
	    "[demo]\n"
	    "home ~/proj\n"
	    "label \"two words\"\n"
	    "mode safe\n"
	    "pace 250ms\n"
	    "rows 100\n"
	    "rule ~/git -c core.pager=cat -c core.hooksPath=/dev/null log\n"
	    "rule /bin/ls\n"
	    "verbose off\n"
	    "window 1s 2s\n"
	    "timeout 5s\n"
	    "[shell]\n"
	    "rows 7\n");
	is_int(r.rc, 0, "demo: every shape loads");
	is_str(r.errs.data, "", "demo: every shape, no errors");
	s = tc_policy_slot(&r.p, &demo_section);
	if (s == NULL)
		abort();
	is_int(s->cache, 4u << 20, "SIZE: 4M");
	is_str(s->home, S("@D@/proj"), "PATH: ~/ expanded");
	is_str(s->label, "two words", "WORD: unquoted");
	is_int(s->mode, 1, "CHOICE: its index");
	is_int(s->pace_ms, 250, "DURATION: milliseconds");
	is_int(s->rows, 100, "COUNT: [fs] and [shell] skipped");
	is_int(s->nrules, 2, "LINE: two rules");
	is_str(s->rules[0], S("@D@/git -c core.pager=cat -c "
	    "core.hooksPath=/dev/null log"), "LINE: ten words, its own limit, "
	    "a path expanded");
	is_int(s->rule_line[1], 12, "LINE: the parser knows its line");
	is_int(s->verbose, 0, "ON_OFF: off");
	is_int(s->window[1], 2000, "LINE with values: parsed");
	is_int(r.p.limits.deadline_ms, 5000, "a shared setting in [demo]");
	is_int(tc_policy_setting_at(&r.p, "cache"), 1, "cache: line 1");
	is_int(tc_policy_setting_at(&r.p, "rows"), 10, "rows: line 10");
	is_int(tc_policy_setting_at(&r.p, "window"), 14, "window: line 14");
	is_int(tc_policy_setting_at(&r.p, "timeout"), 15, "timeout: line 15");
	is_int(tc_policy_setting_at(&r.p, "label"), 7, "label: line 7");
	is_int(tc_policy_setting_at(&r.p, "nothing"), 0, "no such keyword");
	finish(&r);
	out = printed(&r.p);
	want = subst(
	    "network: off  (default)\n"
	    "cache: 4M  (line 1)\n"
	    "home: @D@/proj  (line 6)\n"
	    "label: two words  (line 7)\n"
	    "mode: safe  (line 8)\n"
	    "pace: 250ms  (line 9)\n"
	    "rows: 100  (line 10)\n"
	    "verbose: off  (line 13)\n"
	    "audit: off\n");
	like(out, want, "demo: typed settings printed, with their origins");
	like(out, "  skipped, for other servers: [fs] (line 2), [shell] "
	    "(line 16)\n", "demo: [fs] and [shell] skipped");
	free(want);
	free(out);
	release(&r);

	/* Every value error, with its line, all in one reading. */
	demo_invalid(
	    "[demo]\n"
	    "cache 1\n"
	    "home relative\n"
	    "label\n"
	    "mode slow\n"
	    "pace 5\n"
	    "rows 1001\n"
	    "verbose maybe\n"
	    "window 1s\n"
	    "verbsoe on\n"
	    "rule\n"
	    "rule /a b c d e f g h i j k l\n"
	    "rule git\n"
	    "tools run run run run run run run run\n",
	    "t.policy:2: cache: '1' is out of range: 1K to 1G\n"
	    "t.policy:3: home: 'relative' is a relative path: write an "
	    "absolute path (or one starting with ~/)\n"
	    "t.policy:4: label: missing the label\n"
	    "t.policy:5: mode: expected 'fast' (no checks) or 'safe', not "
	    "'slow'\n"
	    "t.policy:6: pace: '5' is not a duration: write a whole number "
	    "and a unit, ms, s, m or h (like 30s)\n"
	    "t.policy:7: rows: '1001' is out of range: 1 to 1000\n"
	    "t.policy:8: verbose: expected 'on' or 'off', not 'maybe'\n"
	    "t.policy:9: window: write 'window FROM TO'\n"
	    "t.policy:10: unknown keyword 'verbsoe' (did you mean "
	    "'verbose'?)\n"
	    "t.policy:11: rule: missing the program\n"
	    "t.policy:12: too many words (at most 12 in a line)\n"
	    "t.policy:13: rule: 'git' is a relative path: write an absolute "
	    "path (or one starting with ~/)\n"
	    "t.policy:14: too many words (at most 8 in a line)\n",
	    "demo: bad values");

	/* Each setting once, wherever it is written; a repeated LINE
	 * keyword may come back, a once one may not. */
	demo_invalid(
	    "rows 5\n"
	    "pace 1s\n"
	    "[demo]\n"
	    "rows 6\n"
	    "window 1s 2s\n"
	    "rule /bin/ls\n"
	    "rule /bin/cat\n"
	    "window 3s 4s\n"
	    "home /a\n"
	    "home /b\n",
	    "t.policy:4: rows: already set at line 1\n"
	    "t.policy:8: window: already set at line 5\n"
	    "t.policy:10: home: already set at line 9\n",
	    "demo: duplicates name the earlier line");

	/* The section's own check, at the end. */
	demo_invalid("mode fast\nrule /bin/ls\n",
	    "t.policy: rule (line 2): rules need 'mode safe'\n",
	    "demo: check");

	/* The demo server's own name is a section of the suite for it. */
	demo_invalid("[nope]\n",
	    "t.policy:1: unknown section [nope] (known: [fs], [shell], "
	    "[sqlite], [demo])\n", "demo: unknown section");
	demo_invalid("[demo\n",
	    "t.policy:1: a section header is one word in brackets, like "
	    "[demo]\n", "demo: a bad header");

	/* toolcell-fs knows none of them, nor [demo]. */
	invalid("allow read @D@/proj\nrows 5\n[demo]\nrows 5\n",
	    "t.policy:2: unknown keyword 'rows'\n"
	    "t.policy:3: unknown section [demo] (known: [fs], [shell], "
	    "[sqlite])\n", "fs: demo's keywords are unknown");
}

/* A section table that is wrong is refused when it is registered. */
static void
test_section_checks(void)
{
	static const struct tc_policy_keyword unsorted[] = {
		{ "rows", TC_POLICY_COUNT, DEMO(rows), .max = 9 },
		{ "cache", TC_POLICY_SIZE, DEMO(cache), .max = 9 },
	};
	static const struct tc_policy_keyword twice[] = {
		{ "rows", TC_POLICY_COUNT, DEMO(rows), .max = 9 },
		{ "rows", TC_POLICY_COUNT, DEMO(rows), .max = 9 },
	};
	static const struct tc_policy_keyword shared[] = {
		{ "timeout", TC_POLICY_DURATION, DEMO(pace_ms), .max = 9 },
	};
	static const struct tc_policy_keyword outside[] = {
		{ "rows", TC_POLICY_COUNT, sizeof(struct demo) - 4, .max = 9 },
	};
	static const struct tc_policy_keyword long_ms[] = {
		{ "pace", TC_POLICY_DURATION, DEMO(pace_ms),
		  .max = 1ull << 40 },
	};
	static const struct tc_policy_keyword no_parser[] = {
		{ "rule", TC_POLICY_LINE, .parse = NULL },
	};
	static const struct {
		const char			*name;
		const struct tc_policy_keyword	*kw;
		const char			*want;
	} cases[] = {
		{ "demo", unsorted, "section [demo]: keywords not sorted, or "
		  "given twice: 'cache' after 'rows'" },
		{ "demo", twice, "section [demo]: keywords not sorted, or "
		  "given twice: 'rows' after 'rows'" },
		{ "demo", shared, "section [demo]: 'timeout' is a shared "
		  "setting" },
		{ "demo", outside, "section [demo]: 'rows': its value lies "
		  "outside the slot" },
		{ "demo", long_ms, "section [demo]: 'pace': more milliseconds "
		  "than an int holds" },
		{ "demo", no_parser, "section [demo]: 'rule' has no parser" },
		{ "Demo", NULL, "a section's name is lowercase letters, "
		  "digits and '-'" },
	};
	struct tc_policy_section sec;
	struct tc_policy p;
	struct tc_diag d;
	size_t i;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		memset(&sec, 0, sizeof(sec));
		sec.name = cases[i].name;
		sec.keywords = cases[i].kw;
		sec.nkeywords = cases[i].kw == NULL ? 0 :
		    cases[i].kw == unsorted || cases[i].kw == twice ? 2 : 1;
		sec.size = sizeof(struct demo);
		memset(&d, 0, sizeof(d));
		tc_policy_init(&p);
		is_int(tc_policy_set_section(&p, &sec, &d), TC_EINVAL,
		    "%s: refused", cases[i].want);
		is_str(d.msg, cases[i].want, "%s: message", cases[i].want);
		ok(p.slot == NULL, "%s: no slot", cases[i].want);
		tc_policy_release(&p);
	}
	tc_policy_init(&p);
	is_int(tc_policy_set_section(&p, &demo_section, &d), 0, "once: fine");
	is_int(tc_policy_set_section(&p, &fs_policy_section, &d), TC_EINVAL,
	    "twice: refused");
	is_str(d.msg, "section [fs]: the policy has a section already, [demo]",
	    "twice: message");
	tc_policy_release(&p);
}

/* --- ~/ in the new keywords, and duplicates --- */

static void
test_home_patterns(void)
{
	struct result r;

	setenv("HOME", S("@D@/fakehome"), 1);
	valid(&r,
	    "allow read ~/proj\n"
	    "deny ~/proj/.private\n"
	    "deny write \"~/proj/read only\"\n"
	    "consent * ~/proj/ask/**\n"
	    "consent-hook ~/../hook.sh\n"
	    "audit ~/log/audit.jsonl\n"
	    "audit-key ~/.config/key\n", "~/ in every path and pattern");
	if (r.p.ndeny == 2) {
		is_str(r.p.deny[0].pattern, S("@D@/fakehome/proj/.private"),
		    "deny ~/");
		is_str(r.p.deny[1].pattern, S("@D@/fakehome/proj/read only"),
		    "deny write ~/, quoted");
	} else
		ok(0, "two deny rules");
	if (r.p.nconsent == 1 && r.p.consent[0].npatterns == 1)
		is_str(r.p.consent[0].patterns[0], S("@D@/fakehome/proj/ask/**"),
		    "consent ~/");
	else
		ok(0, "one consent rule with one pattern");
	if (r.p.consent_hook != NULL)
		is_str(r.p.consent_hook[0], S("@D@/fakehome/../hook.sh"),
		    "consent-hook ~/, not canonicalised");
	else
		ok(0, "a hook");
	is_str(r.p.audit_file, S("@D@/fakehome/log/audit.jsonl"), "audit ~/");
	is_str(r.p.audit_key_file, S("@D@/fakehome/.config/key"), "audit-key ~/");
	release(&r);

	/* Only "~/" is expanded: "~user/" and "~" alone are not. */
	valid(&r, "allow read @D@/proj\ndeny ~root/x\ndeny ~\n",
	    "deny ~root/x and ~");
	if (r.p.ndeny == 2) {
		is_str(r.p.deny[0].pattern, "~root/x", "~root/x as written");
		is_str(r.p.deny[1].pattern, "~", "~ as written");
	} else
		ok(0, "two deny rules");
	release(&r);
	bad_line("audit ~root/a.jsonl", "audit: '~root/a.jsonl' is a relative "
	    "path: write an absolute path (or one starting with ~/)");
	setenv("HOME", D, 1);
}

static void
test_new_duplicates(void)
{
	static const struct {
		const char	*line;
		const char	*what;
	} cases[] = {
		{ "default-deny off",		"default-deny" },
		{ "network off",		"network" },
		{ "consent-by elicitation",	"consent-by" },
		{ "consent-hook @D@/hook.sh",	"consent-hook" },
		{ "consent-timeout 5s",		"consent-timeout" },
		{ "roots-timeout 5s",		"roots-timeout" },
		{ "audit /a.jsonl",		"audit" },
		{ "audit-key /k",		"audit-key" },
		{ "audit-sync every",		"audit-sync" },
		{ "audit-rotate 1M",		"audit-rotate" },
		{ "tool read_file timeout 1s",	"tool read_file timeout" },
		{ "tool read_file limit memory 1G",
		    "tool read_file limit memory" },
	};
	char text[512], want[256];
	size_t i;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		/* The audit-* lines need an audit line (line 2); the two
		 * lines under test are 3 and 5. */
		snprintf(text, sizeof(text), "allow read @D@/proj\n%s\n%s\n"
		    "# between\n%s\n", strncmp(cases[i].line, "audit-", 6) ?
		    "# no audit" : "audit /log.jsonl", cases[i].line,
		    cases[i].line);
		snprintf(want, sizeof(want), "t.policy:5: %s: already set at "
		    "line 3\n", cases[i].what);
		invalid(text, want, cases[i].line);
	}
	/* Lines that may repeat. */
	{
		struct result r;

		valid(&r, "allow read @D@/proj\ndeny **/x\ndeny **/x\n"
		    "consent read_file\nconsent read_file\n"
		    "tools read_file\ntools read_file\n",
		    "deny, consent and tools may repeat");
		is_int(r.p.ndeny, 2, "two deny rules");
		is_int(r.p.nconsent, 2, "two consent rules");
		release(&r);
	}
}

/* The shipped examples load for toolcell-fs, with a home that has their
 * directories and hook (copied, since a checkout's modes depend on the
 * umask).  A new example is added to |names|. */
static void
test_examples(void)
{
	static const char *const names[] = {
		"audited.policy", "read-only-project.policy",
		"read-only-secrets.policy", "scratch-consent.policy",
		"scratch-dir.policy",
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
		is_int(tc_policy_finish(&r.p, &r.d), 0, "%s: finished",
		    names[i]);
		is_int(tc_policy_warn(&r.p, fs_writers, NULL, NULL), 0,
		    "%s: no warnings", names[i]);
		release(&r);
		tc_buf_release(&text);
	}
	setenv("HOME", D, 1);
}

/*
 * Random policies built from the language's own words, fragments of them
 * and stray bytes: whatever the text, loading returns 0 or TC_EINVAL, every
 * message is "t.policy: ..." or "t.policy:LINE: ...", and nothing crashes
 * (the sanitizer build checks the memory).  The seed is fixed, so a failure
 * repeats; TOOLCELL_FUZZ_ROUNDS raises the count.
 */
static void
test_fuzz(void)
{
	static const char *const words[] = {
		"allow", "read", "write", "deny", "default-deny", "on", "off",
		"tools", "tool", "read_text_file", "list_directory", "timeout",
		"limit", "memory", "cpu", "output", "files", "processes",
		"filesize", "network", "consent", "consent-by", "elicitation",
		"hook", "consent-hook", "consent-timeout", "roots-timeout",
		"audit", "audit-key", "audit-sync", "every", "none",
		"audit-rotate", "keep", "run-as", "nobody", "allow-degraded",
		"landlock", "seccomp", "[fs]", "[shell]", "[x", "*", "**",
		"**/.env", "a/**/b", "[a-", "\\", "..", ".", "./x", "~/",
		"@D@/proj", "@D@/hook.sh", "@D@/log", "/", "10s", "0", "1K",
		"99999999999999999999", "\"q w\"", "\"unterminated", "#", "\"\"",
		"-1", "5m", "64M", "1T", "keep 0", "x\ty",
	};
	struct tc_buf text;
	struct result r;
	unsigned long seed = 20261123, rounds = 400, n, k, bad = 0;
	const char *env, *e, *line;
	int i, nl, nw;

	if ((env = getenv("TOOLCELL_FUZZ_ROUNDS")) != NULL)
		rounds = strtoul(env, NULL, 10);
	for (n = 0; n < rounds; n++) {
		tc_buf_init(&text, 1u << 20);
		nl = 1 + (int)((seed = seed * 6364136223846793005ULL + 1) >> 33)
		    % 12;
		for (i = 0; i < nl; i++) {
			nw = (int)((seed = seed * 6364136223846793005ULL + 1) >>
			    33) % 6;
			for (k = 0; k < (unsigned long)nw; k++) {
				seed = seed * 6364136223846793005ULL + 1;
				if ((seed >> 40) % 17 == 0) {
					char c = (char)(1 + (seed >> 20) % 255);

					tc_buf_append(&text, &c, 1);
				} else
					tc_buf_append_str(&text,
					    words[(seed >> 33) %
					    TC_NITEMS(words)]);
				tc_buf_append_str(&text, " ");
			}
			tc_buf_append_str(&text, "\n");
		}
		load(&r, text.data != NULL ? text.data : "");
		if (r.rc != 0 && r.rc != TC_EINVAL)
			bad++;
		for (line = r.errs.data; line != NULL && *line != '\0';
		    line = e + 1) {
			if (strncmp(line, "t.policy:", 9) != 0)
				bad++;
			if ((e = strchr(line, '\n')) == NULL)
				break;
		}
		if (tc_policy_finish(&r.p, &r.d) != 0)
			bad++;
		release(&r);
		tc_buf_release(&text);
	}
	is_int((long long)bad, 0, "%lu random policies: each loads or is "
	    "refused with file:line messages", rounds);
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
	test_print_everything();
	test_unknown_keywords();
	test_bad_paths();
	test_bad_values();
	test_bad_words();
	test_duplicates();
	test_many_errors();
	test_file_checks();
	test_long_and_nul();
	test_run_as();
	test_deny();
	test_tools();
	test_aliases();
	test_tool_limits();
	test_warnings();
	test_network();
	test_jit();
	test_consent();
	test_consent_hook();
	test_consent_by();
	test_audit();
	test_roots_timeout();
	test_jobs();
	test_roots_mode();
	test_write_sync();
	test_sections();
	test_section_table();
	test_section_checks();
	test_home_patterns();
	test_new_duplicates();
	test_examples();
	test_fuzz();
	test_children();
	if (chdir("/") == 0)
		tree_remove();
	return done_testing();
}
