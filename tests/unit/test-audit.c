/*
 * test-audit.c: the audit log writer (common/audit/audit.c) and the argument
 * redaction (common/audit/audit-args.c), in a scratch directory that is the
 * working directory, so that messages name "x.log".
 *
 * Chains are checked here with nettle directly, not with the code under
 * test: each line's digest over the bytes before ,"hash": (or ,"hmac":),
 * seq one more than the line before, prev the digest before.  Refusals
 * that need another process (the lock) or a resource limit (a write cut
 * by RLIMIT_FSIZE) run in a forked child that reports through a pipe.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <nettle/version.h>

#include "audit/audit.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "protocol/tools.h"
#include "tap.h"

#if NETTLE_VERSION_MAJOR >= 4
#define SHA256_DONE(c, md)	sha256_digest((c), (md))
#define HMAC_DONE(c, md)	hmac_sha256_digest((c), (md))
#else
#define SHA256_DONE(c, md)	sha256_digest((c), SHA256_DIGEST_SIZE, (md))
#define HMAC_DONE(c, md)	\
	hmac_sha256_digest((c), SHA256_DIGEST_SIZE, (md))
#endif

#define ZERO_HEX	"00000000000000000000000000000000" \
			"00000000000000000000000000000000"
#define KEY_TEXT	"0123456789abcdef0123456789abcdef"	/* 32 bytes */

static char D[PATH_MAX];		/* the scratch directory */
static struct timespec clock_now = { 1795428000, 123000000 };

/* The writer's clock in these tests: 2026-11-23T10:00:00.123Z, and one
 * second later at each record. */
static void
test_clock(struct timespec *ts)
{
	*ts = clock_now;
	clock_now.tv_sec++;
}

/* --- Helpers --- */

/* Reference digest: SHA-256, or HMAC-SHA-256 with |key|, as hex. */
static void
ref_digest(const char *key, const void *p, size_t n, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t md[SHA256_DIGEST_SIZE];
	struct hmac_sha256_ctx h;
	struct sha256_ctx s;
	size_t i;

	if (key != NULL) {
		hmac_sha256_set_key(&h, strlen(key), (const uint8_t *)key);
		hmac_sha256_update(&h, n, p);
		HMAC_DONE(&h, md);
	} else {
		sha256_init(&s);
		sha256_update(&s, n, p);
		SHA256_DONE(&s, md);
	}
	for (i = 0; i < sizeof(md); i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[64] = '\0';
}

/* Writes |text| into |name| with |mode|. */
static void
put(const char *name, const char *text, size_t len, mode_t mode)
{
	int fd;

	unlink(name);
	if ((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
	    write(fd, text, len) != (ssize_t)len || close(fd) != 0 ||
	    chmod(name, mode) != 0) {
		perror(name);
		exit(2);
	}
}

/* Returns the contents of |name| (empty if missing); the caller frees. */
static char *
slurp(const char *name)
{
	struct tc_buf b;
	char chunk[4096];
	ssize_t n;
	int fd;

	tc_buf_init(&b, 64u << 20);
	if ((fd = open(name, O_RDONLY)) >= 0) {
		while ((n = read(fd, chunk, sizeof(chunk))) > 0)
			tc_buf_append(&b, chunk, (size_t)n);
		close(fd);
	}
	return tc_buf_steal(&b);
}

static off_t
size_of(const char *name)
{
	struct stat sb;

	return stat(name, &sb) == 0 ? sb.st_size : -1;
}

static int
exists(const char *name)
{
	struct stat sb;

	return lstat(name, &sb) == 0;
}

/* The writer most tests write as, as its records name it. */
#define W_PID		4242
#define W_START		"0000000000004242"
#define W_JSON		"\"writer\":{\"pid\":4242," \
			"\"start\":\"0000000000004242\"}"

/* Opens |path| with |key_file|, |rotate| and |keep| as writer |pid| and
 * |start|, waiting |wait_ms| for the lock (0: the default); the test
 * clock. */
static int
open_as(struct tc_audit **a, const char *path, const char *key_file,
    unsigned long long rotate, unsigned keep, long pid, const char *start,
    unsigned wait_ms, struct tc_diag *d)
{
	struct tc_audit_opts o = {
		.path = path, .key_file = key_file,
		.sync = TC_AUDIT_SYNC_EVERY, .rotate_bytes = rotate,
		.keep = keep, .now = test_clock, .pid = pid,
		.start_id = start, .lock_wait_ms = wait_ms,
	};

	memset(d, 0, sizeof(*d));
	return tc_audit_open(a, &o, d);
}

/* Opens |path| with |key_file|, |rotate| and |keep| as W_PID. */
static int
open_log(struct tc_audit **a, const char *path, const char *key_file,
    unsigned long long rotate, unsigned keep, struct tc_diag *d)
{
	return open_as(a, path, key_file, rotate, keep, W_PID, W_START, 0, d);
}

/* Appends the record |json|; returns the writer's status. */
static int
append(struct tc_audit *a, const char *json, struct tc_diag *d)
{
	cJSON *rec = cJSON_Parse(json);
	int rc;

	if (rec == NULL) {
		fprintf(stderr, "bad test JSON: %s\n", json);
		exit(2);
	}
	memset(d, 0, sizeof(*d));
	rc = tc_audit_append(a, rec, d);
	cJSON_Delete(rec);
	return rc;
}

/* A chain as the reference check has followed it so far. */
struct chain {
	unsigned long long n;		/* records checked */
	unsigned long long first_seq, seq;
	char		 first_prev[65];
	char		 last[65];	/* the last digest */
	char		 why[256];	/* the first break, or "" */
};

/* Checks one line against the chain so far and extends it. */
static int
check_line(struct chain *c, const char *key, const char *line, size_t len)
{
	const char *field = key != NULL ? ",\"hmac\":\"" : ",\"hash\":\"";
	char want[65], got[65];
	const cJSON *seq, *prev;
	cJSON *o;
	int bad;

	if (len < 75 || strncmp(line + len - 75, field, 9) != 0 ||
	    line[len - 2] != '"' || line[len - 1] != '}')
		return snprintf(c->why, sizeof(c->why), "line %llu: no %s "
		    "at the end", c->n + 1, field), -1;
	memcpy(got, line + len - 66, 64);
	got[64] = '\0';
	ref_digest(key, line, len - 75, want);
	o = cJSON_ParseWithLength(line, len);
	seq = cJSON_GetObjectItemCaseSensitive(o, "seq");
	prev = cJSON_GetObjectItemCaseSensitive(o, "prev");
	bad = strcmp(got, want) != 0 || !cJSON_IsNumber(seq) ||
	    !cJSON_IsString(prev) || (c->n > 0 &&
	    ((unsigned long long)seq->valuedouble != c->seq + 1 ||
	    strcmp(prev->valuestring, c->last) != 0));
	if (bad)
		snprintf(c->why, sizeof(c->why), "record %llu: digest, seq or "
		    "prev wrong", c->n + 1);
	else {
		if (c->n++ == 0) {
			c->first_seq = (unsigned long long)seq->valuedouble;
			snprintf(c->first_prev, sizeof(c->first_prev), "%s",
			    prev->valuestring);
		}
		c->seq = (unsigned long long)seq->valuedouble;
		memcpy(c->last, got, sizeof(c->last));
	}
	cJSON_Delete(o);
	return bad ? -1 : 0;
}

/* Follows the chain through |file|; returns 0 if every line is good. */
static int
check_file(struct chain *c, const char *key, const char *file)
{
	char *text = slurp(file), *s, *nl;
	int rc = 0;

	for (s = text; rc == 0 && *s != '\0'; s = nl + 1) {
		if ((nl = strchr(s, '\n')) == NULL) {
			snprintf(c->why, sizeof(c->why), "%s: partial line",
			    file);
			rc = -1;
			break;
		}
		rc = check_line(c, key, s, (size_t)(nl - s));
	}
	free(text);
	return rc;
}

/* Returns the |n|th line (from 1) of |file|, without its newline. */
static char *
nth_line(const char *file, int n)
{
	char *text = slurp(file), *s = text, *nl, *line;

	while (--n > 0 && (nl = strchr(s, '\n')) != NULL)
		s = nl + 1;
	if ((nl = strchr(s, '\n')) != NULL)
		*nl = '\0';
	line = strdup(s);
	free(text);
	return line;
}

/* Returns the member |name| of line |n| of |file| as compact JSON (the
 * caller frees), or NULL. */
static char *
member_of(const char *file, int n, const char *name)
{
	char *line = nth_line(file, n), *out = NULL;
	cJSON *o = cJSON_Parse(line);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, name);

	if (m != NULL)
		out = cJSON_PrintUnformatted(m);
	cJSON_Delete(o);
	free(line);
	return out;
}

/* Returns 1 if an open fd of this process leads to |file|, and sets
 * |cloexec| to whether it has FD_CLOEXEC. */
static int
find_fd(const char *file, int *cloexec)
{
	char link[300], target[PATH_MAX], want[PATH_MAX + 64];
	struct dirent *e;
	DIR *dir;
	ssize_t n;
	int found = 0, fd;

	snprintf(want, sizeof(want), "%s/%s", D, file);
	if ((dir = opendir("/proc/self/fd")) == NULL)
		return 0;
	while (!found && (e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, want) == 0) {
			fd = (int)strtol(e->d_name, NULL, 10);
			*cloexec = (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0;
			found = 1;
		}
	}
	closedir(dir);
	return found;
}

/* --- The format --- */

static void
test_format(void)
{
	char want[1024], hex[65], *line;
	struct tc_audit *a;
	struct tc_diag d;
	struct stat sb;
	int cloexec = 0;

	clock_now.tv_sec = 1795428000;
	is_int(open_log(&a, "fmt.log", NULL, 0, 0, &d), 0, "open a new log");
	is_int(append(a, "{\"event\":\"start\",\"server\":\"toolcell-fs\","
	    "\"pid\":42}", &d), 0, "append the first record");
	line = nth_line("fmt.log", 1);
	snprintf(want, sizeof(want), "{\"seq\":1,\"time\":"
	    "\"2026-11-23T10:00:00.123Z\"," W_JSON ",\"event\":\"start\","
	    "\"server\":\"toolcell-fs\",\"pid\":42,\"prev\":\"%s\"",
	    ZERO_HEX);
	ref_digest(NULL, want, strlen(want), hex);
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
	    ",\"hash\":\"%s\"}", hex);
	is_str(line, want, "the line: seq, time, writer, members, prev, hash "
	    "over the bytes before ,\"hash\":");
	free(line);
	is_int(stat("fmt.log", &sb), 0, "the log exists");
	is_int(sb.st_mode & 07777, 0600, "created with mode 0600");
	ok(find_fd("fmt.log", &cloexec), "the writer holds the log open");
	ok(cloexec, "its fd is close-on-exec");
	tc_audit_close(a);
	ok(!find_fd("fmt.log", &cloexec), "closing closes it");
	tc_audit_close(NULL);
	ok(1, "closing NULL is a no-op");
}

static void
test_reserved(void)
{
	static const char *const names[] = { "seq", "time", "writer", "prev",
	    "hash", "hmac" };
	char json[64], want[96];
	struct tc_audit *a;
	struct tc_diag d;
	off_t before;
	size_t i;

	is_int(open_log(&a, "res.log", NULL, 0, 0, &d), 0, "open");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "a first record");
	before = size_of("res.log");
	for (i = 0; i < TC_NITEMS(names); i++) {
		snprintf(json, sizeof(json), "{\"event\":\"x\",\"%s\":1}",
		    names[i]);
		snprintf(want, sizeof(want), "audit record has a member "
		    "\"%s\", which the chain adds itself", names[i]);
		is_int(append(a, json, &d), TC_EINVAL, "member %s refused",
		    names[i]);
		is_str(d.msg, want, "member %s: message", names[i]);
	}
	is_int(append(a, "[1,2]", &d), TC_EINVAL, "an array is refused");
	is_str(d.msg, "audit record is not a JSON object", "array: message");
	is_int(size_of("res.log"), before, "nothing was written");
	is_int(append(a, "{\"event\":\"next\"}", &d), 0, "the next record");
	tc_audit_close(a);
}

/* --- Chains --- */

static void
test_chain(void)
{
	char json[256], *line;
	struct tc_audit *a;
	struct chain c;
	struct tc_diag d;
	int i, fails = 0;

	is_int(open_log(&a, "chain.log", NULL, 0, 0, &d), 0, "open");
	for (i = 1; i <= 200; i++) {
		snprintf(json, sizeof(json), "{\"event\":\"call\",\"call\":%d,"
		    "\"tool\":\"read_text_file\",\"args\":{\"path\":\"f%d "
		    "\\\"q\\\" \\u00e9\"},\"decision\":\"run\"}", i, i);
		fails += append(a, json, &d) != 0;
	}
	is_int(fails, 0, "200 records appended");
	tc_audit_close(a);
	memset(&c, 0, sizeof(c));
	is_int(check_file(&c, NULL, "chain.log"), 0, "the chain holds: %s",
	    c.why);
	is_int(c.n, 200, "200 records");
	is_int(c.first_seq, 1, "seq from 1");
	is_str(c.first_prev, ZERO_HEX, "the first prev is 64 zeros");
	is_int(c.seq, 200, "to 200");

	/* Reopened, the chain goes on from the last record. */
	is_int(open_log(&a, "chain.log", NULL, 0, 0, &d), 0, "reopen");
	is_int(append(a, "{\"event\":\"stop\",\"reason\":\"eof\"}", &d), 0,
	    "append after reopening");
	tc_audit_close(a);
	line = nth_line("chain.log", 201);
	like(line, "{\"seq\":201,", "it continues at seq 201");
	free(line);
	memset(&c, 0, sizeof(c));
	is_int(check_file(&c, NULL, "chain.log"), 0, "still one chain: %s",
	    c.why);
	is_int(c.n, 201, "201 records");
}

/* --- Refusing to continue a log --- */

/* Checks that opening |file| with |key| fails with TC_EINVAL and |want|. */
static void
refused(const char *file, const char *key, const char *want,
    const char *what)
{
	struct tc_audit *a = (struct tc_audit *)1;
	struct tc_diag d;

	is_int(open_log(&a, file, key, 0, 0, &d), TC_EINVAL, "%s: refused",
	    what);
	is_str(d.msg, want, "%s: message", what);
	ok(a == NULL, "%s: no writer", what);
}

static void
test_refuse(void)
{
	char *good, *bad;
	struct tc_audit *a;
	struct tc_diag d;
	size_t n;

	is_int(open_log(&a, "good.log", NULL, 0, 0, &d), 0, "open");
	append(a, "{\"event\":\"start\"}", &d);
	append(a, "{\"event\":\"stop\"}", &d);
	tc_audit_close(a);
	good = slurp("good.log");
	n = strlen(good);

	bad = malloc(n + 64);
	snprintf(bad, n + 64, "%s{\"event\":\"x\"}\n", good);
	put("plain.log", bad, strlen(bad), 0600);
	refused("plain.log", NULL, "audit log 'plain.log': its last line is "
	    "not a chained record (missing chain fields: the first member "
	    "is not \"seq\"); run 'toolcell-audit verify plain.log'",
	    "a last line without chain fields");

	snprintf(bad, n + 64, "%snot json\n", good);
	put("junk.log", bad, strlen(bad), 0600);
	refused("junk.log", NULL, "audit log 'junk.log': its last line is not "
	    "a chained record (not JSON); run 'toolcell-audit verify "
	    "junk.log'", "a last line that is not JSON");

	memcpy(bad, good, n + 1);
	*strstr(strstr(bad, "\"stop\""), "stop") = 'S';
	put("alt.log", bad, n, 0600);
	refused("alt.log", NULL, "audit log 'alt.log': its last record (seq 2) "
	    "does not match its hash (altered); run 'toolcell-audit verify "
	    "alt.log'", "an altered last record");

	put("key", KEY_TEXT "\n", 33, 0600);
	refused("good.log", "key", "audit log 'good.log' is a plain SHA-256 "
	    "chain, but an audit key is set: start a new log for a keyed "
	    "chain", "a plain log opened with a key");
	is_int(size_of("good.log"), (off_t)n, "the refused log is untouched");

	if (symlink("good.log", "link.log") != 0)
		perror("symlink");
	refused("link.log", NULL, "audit log 'link.log' is a symbolic link: "
	    "name the file itself", "a symbolic link");
	mkdir("dir.log", 0700);
	is_int(open_log(&a, "dir.log", NULL, 0, 0, &d), TC_ESYS,
	    "a directory: refused");
	is_str(d.msg, "cannot open audit log 'dir.log': Is a directory",
	    "a directory: message");
	is_int(open_log(&a, "", NULL, 0, 0, &d), TC_EINVAL, "no path");
	is_str(d.msg, "no audit log given", "no path: message");
	free(bad);
	free(good);
}

/* --- Keys --- */

/* Checks that the key file |file| is refused with |code| and |want|. */
static void
bad_key(const char *file, int code, const char *want, const char *what)
{
	struct tc_audit *a;
	struct tc_diag d;

	unlink("k.log");
	is_int(open_log(&a, "k.log", file, 0, 0, &d), code, "%s: refused",
	    what);
	is_str(d.msg, want, "%s: message", what);
	ok(!exists("k.log"), "%s: no log created", what);
}

static void
test_keys(void)
{
	struct tc_audit_key k;
	struct tc_diag d;
	char big[5000];

	put("k1", KEY_TEXT, 32, 0640);
	bad_key("k1", TC_EINVAL, "audit key 'k1': readable or writable by "
	    "group or others (mode 0640): chmod 600 'k1'", "mode 0640");
	put("k1", KEY_TEXT, 32, 0602);
	bad_key("k1", TC_EINVAL, "audit key 'k1': readable or writable by "
	    "group or others (mode 0602): chmod 600 'k1'", "mode 0602");
	put("k1", "0123456789abcde", 15, 0600);
	bad_key("k1", TC_EINVAL, "audit key 'k1': 15 bytes, fewer than 16 "
	    "(make one with: head -c 32 /dev/urandom > 'k1')", "15 bytes");
	put("k1", "0123456789abcde\n", 16, 0600);
	bad_key("k1", TC_EINVAL, "audit key 'k1': 15 bytes, fewer than 16 "
	    "(make one with: head -c 32 /dev/urandom > 'k1')",
	    "15 bytes and a newline");
	memset(big, 'k', sizeof(big));
	put("k1", big, sizeof(big), 0600);
	bad_key("k1", TC_EINVAL, "audit key 'k1': larger than 4096 bytes: "
	    "not a key file", "5000 bytes");
	mkdir("kdir", 0700);
	bad_key("kdir", TC_EINVAL, "audit key 'kdir': not a regular file",
	    "a directory");
	bad_key("missing", TC_ESYS, "audit key 'missing': No such file or "
	    "directory", "a missing file");
	if (geteuid() == 0) {
		put("k1", KEY_TEXT, 32, 0600);
		if (chown("k1", 12345, 12345) != 0)
			perror("chown");
		bad_key("k1", TC_EINVAL, "audit key 'k1': owned by uid 12345, "
		    "neither root nor the user running this (uid 0)",
		    "owned by another user");
	} else
		skip("not root: cannot give a key file to another user");

	put("k1", "0123456789abcdef\n", 17, 0600);
	is_int(tc_audit_key_load(&k, "k1", &d), 0, "16 bytes and a newline");
	is_int(k.len, 16, "one trailing newline is not part of the key");
	tc_audit_key_release(&k);
	ok(k.bytes == NULL && k.len == 0, "released");
	put("k1", "0123456789abcdef\n\n", 18, 0600);
	is_int(tc_audit_key_load(&k, "k1", &d), 0, "two newlines");
	is_int(k.len, 17, "only one newline is removed");
	tc_audit_key_release(&k);
}

static void
test_hmac(void)
{
	struct tc_audit *a;
	struct chain c;
	struct tc_diag d;
	char *line;
	int i, fails = 0;

	put("hkey", KEY_TEXT "\n", 33, 0600);
	is_int(open_log(&a, "hmac.log", "hkey", 0, 0, &d), 0,
	    "open with a key");
	for (i = 0; i < 5; i++)
		fails += append(a, "{\"event\":\"call\",\"tool\":\"t\"}", &d);
	is_int(fails, 0, "5 records");
	tc_audit_close(a);
	line = nth_line("hmac.log", 5);
	like(line, ",\"hmac\":\"", "records carry \"hmac\"");
	ok(strstr(line, "\"hash\"") == NULL, "and no \"hash\"");
	free(line);
	memset(&c, 0, sizeof(c));
	is_int(check_file(&c, KEY_TEXT, "hmac.log"), 0, "HMAC-SHA-256 with "
	    "the key, its newline removed: %s", c.why);
	is_int(c.n, 5, "5 records checked");
	memset(&c, 0, sizeof(c));
	c.why[0] = '\0';
	ok(check_file(&c, KEY_TEXT "x", "hmac.log") != 0,
	    "another key does not match");

	is_int(open_log(&a, "hmac.log", "hkey", 0, 0, &d), 0, "reopen keyed");
	is_int(append(a, "{\"event\":\"stop\"}", &d), 0, "append");
	tc_audit_close(a);
	memset(&c, 0, sizeof(c));
	is_int(check_file(&c, KEY_TEXT, "hmac.log"), 0, "one chain: %s",
	    c.why);
	is_int(c.seq, 6, "continued at seq 6");
	refused("hmac.log", NULL, "audit log 'hmac.log' is keyed (its records "
	    "carry \"hmac\"), but no audit key is set", "keyed log, no key");
	put("hkey2", "another key, 16+ bytes", 22, 0600);
	refused("hmac.log", "hkey2", "audit log 'hmac.log': its last record "
	    "(seq 6) does not match its MAC with this key (altered, or "
	    "another key); run 'toolcell-audit verify --key KEY hmac.log'",
	    "keyed log, another key");
}

/* --- Rotation --- */

/* Follows the chain through |n| files, oldest first. */
static int
check_files(struct chain *c, const char *const *files, int n)
{
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++)
		if (check_file(c, NULL, files[i]) != 0)
			return -1;
	return 0;
}

static void
test_rotation(void)
{
	static const char *const kept[] = { "rot.log.2", "rot.log.1",
	    "rot.log" };
	static const char *const all[] = { "rot0.log.3", "rot0.log.2",
	    "rot0.log.1", "rot0.log" };
	struct tc_audit *a;
	struct chain c;
	struct tc_diag d;
	int i, fails = 0;

	/* Each record is about 265 bytes: three to a file of 700. */
	is_int(open_log(&a, "rot.log", NULL, 700, 2, &d), 0, "open, keep 2");
	for (i = 0; i < 20; i++)
		fails += append(a, "{\"event\":\"call\",\"tool\":\"x\"}", &d);
	is_int(fails, 0, "20 records");
	tc_audit_close(a);
	ok(exists("rot.log.1") && exists("rot.log.2"), "rot.log.1 and .2");
	ok(!exists("rot.log.3"), "no rot.log.3: keep 2");
	ok(!exists("rot.log.new"), "no rot.log.new left");
	is_int(check_files(&c, kept, 3), 0, "one chain across .2 .1 and the "
	    "log: %s", c.why);
	is_int(c.seq, 20, "ending at seq 20");
	ok(c.first_seq > 1, "the oldest kept file starts past seq 1");
	ok(strcmp(c.first_prev, ZERO_HEX) != 0, "with a prev: it continues "
	    "a removed file");
	ok(size_of("rot.log.1") >= 700, "a rotated file reached the size");

	/* keep 0: every file is kept; the whole chain is there.  Five
	 * records fill a file of 1200 bytes. */
	is_int(open_log(&a, "rot0.log", NULL, 1200, 0, &d), 0, "open, keep 0");
	for (fails = i = 0; i < 18; i++)
		fails += append(a, "{\"event\":\"call\",\"tool\":\"x\"}", &d);
	is_int(fails, 0, "18 records");
	tc_audit_close(a);
	ok(exists("rot0.log.3") && !exists("rot0.log.4"), "3 rotated files");
	is_int(check_files(&c, all, 4), 0, "one chain over all: %s", c.why);
	is_int(c.n, 18, "all 18 records");
	is_int(c.first_seq, 1, "from seq 1");
}

static void
test_rotation_reopen(void)
{
	static const char *const files[] = { "r1.log.2", "r1.log.1",
	    "r1.log" };
	struct tc_audit *a;
	struct chain c;
	struct tc_diag d;

	/* Every record fills the file: the log is empty after each. */
	is_int(open_log(&a, "r1.log", NULL, 1, 0, &d), 0, "open, rotate 1");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "append");
	tc_audit_close(a);
	is_int(size_of("r1.log"), 0, "the log is empty after rotating");
	is_int(open_log(&a, "r1.log", NULL, 1, 0, &d), 0, "reopen");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "append");
	tc_audit_close(a);
	is_int(open_log(&a, "r1.log", NULL, 0, 0, &d), 0,
	    "reopen without rotation");
	is_int(append(a, "{\"event\":\"stop\"}", &d), 0, "append");
	tc_audit_close(a);
	is_int(check_files(&c, files, 3), 0, "the chain continued from "
	    "r1.log.1 each time: %s", c.why);
	is_int(c.n, 3, "3 records");
	is_int(c.seq, 3, "seq 1 to 3");
}

static void
test_rotation_failure(void)
{
	static const char *const files[] = { "rf.log.2", "rf.log.1",
	    "rf.log" };
	struct tc_audit *a;
	struct chain c;
	struct tc_diag d;
	off_t before;

	mkdir("rf.log.new", 0700);
	is_int(open_log(&a, "rf.log", NULL, 1, 0, &d), 0, "open, rotate 1");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "a record stands "
	    "when the rotation after it fails");
	ok(!exists("rf.log.1"), "no rotation");
	before = size_of("rf.log");
	is_int(append(a, "{\"event\":\"call\"}", &d), TC_ESYS, "the next "
	    "record fails if the rotation fails again");
	is_str(d.msg, "cannot rotate audit log: removing 'rf.log.new': Is a "
	    "directory", "and says why");
	is_int(size_of("rf.log"), before, "nothing was written");
	rmdir("rf.log.new");
	is_int(append(a, "{\"event\":\"call\"}", &d), 0, "once it can "
	    "rotate, records go on");
	tc_audit_close(a);
	is_int(check_files(&c, files, 3), 0, "one chain, rotated before and "
	    "after the record: %s", c.why);
	is_int(c.n, 2, "two records");
	is_int(size_of("rf.log"), 0, "the log is empty after rotating");

	/* A crash between link() and rename() left the log also named
	 * path.1: opening undoes that.  rf.log.1 holds seq 2. */
	if (link("rf.log.1", "half.log") != 0 ||
	    link("half.log", "half.log.1") != 0)
		perror("link");
	is_int(open_log(&a, "half.log", NULL, 0, 0, &d), 0, "open a log left "
	    "half rotated");
	ok(!exists("half.log.1"), "its second name is removed");
	is_int(append(a, "{\"event\":\"stop\"}", &d), 0, "append");
	tc_audit_close(a);
	memset(&c, 0, sizeof(c));
	is_int(check_file(&c, NULL, "half.log"), 0, "one chain: %s", c.why);
	is_int(c.seq, 3, "continued at seq 3");
}

/*
 * A rotation that fails after it shifted rotated files: |bound|
 * bind-mounted over itself (root, in a mount namespace of a child).  The
 * log: link(log, log.1) fails with EXDEV, after the shift; ru.log.1: its
 * rename to ru.log.2 fails with EBUSY, after ru.log.2 moved to ru.log.3.
 * Returns the RU_* seen after, or -1 if it could not be set up.
 */
#define RU_1	1	/* ru.log.1 */
#define RU_2	2	/* ru.log.2 */
#define RU_3	4	/* ru.log.3 */
#define RU_OK	8	/* the record stood */
static int
rotation_cut(const char *bound)
{
	struct tc_audit *a;
	struct tc_diag d;
	pid_t pid;
	int st, bits = 0;

	if ((pid = fork()) < 0)
		abort();
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", NULL,
		    MS_REC | MS_PRIVATE, NULL) != 0)
			_exit(255);
		/* Two records, each rotated: ru.log.2, ru.log.1, ru.log. */
		if (open_log(&a, "ru.log", NULL, 1, 0, &d) != 0 ||
		    append(a, "{\"event\":\"start\"}", &d) != 0 ||
		    append(a, "{\"event\":\"call\"}", &d) != 0 ||
		    !exists("ru.log.2") ||
		    mount(bound, bound, NULL, MS_BIND, NULL) != 0)
			_exit(255);
		bits |= append(a, "{\"event\":\"stop\"}", &d) == 0 ? RU_OK : 0;
		tc_audit_close(a);
		bits |= exists("ru.log.1") ? RU_1 : 0;
		bits |= exists("ru.log.2") ? RU_2 : 0;
		bits |= exists("ru.log.3") ? RU_3 : 0;
		_exit(bits);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) == 255)
		return -1;
	return WEXITSTATUS(st);
}

static void
test_rotation_undo(void)
{
	int bits;

	if (geteuid() != 0) {
		skip("a rotation cut after the shift: needs root (a bind "
		    "mount in a mount namespace)");
		skip("a rotation cut within the shift: needs root");
		return;
	}
	if ((bits = rotation_cut("ru.log")) < 0) {
		skip("a rotation cut after the shift: no bind mount here");
		skip("a rotation cut within the shift: no bind mount here");
		return;
	}
	is_int(bits, RU_OK | RU_1 | RU_2, "a rotation that fails after the "
	    "shift moves the rotated files back: ru.log.1 and .2, no .3, "
	    "the record stands (1: .1, 2: .2, 4: .3, 8: record)");
	unlink("ru.log.1");
	unlink("ru.log.2");
	unlink("ru.log.3");
	unlink("ru.log");
	bits = rotation_cut("ru.log.1");
	is_int(bits, RU_OK | RU_1 | RU_2, "one that fails within the shift "
	    "too (1: .1, 2: .2, 4: .3, 8: record)");
}

/* --- Several writers on one log --- */

static void
test_shared(void)
{
	struct tc_audit *a, *b, *c;
	struct chain ch;
	struct tc_diag d;
	char *l, *prev;

	is_int(open_log(&a, "shared.log", NULL, 0, 0, &d), 0, "A opens");
	is_int(append(a, "{\"event\":\"start\",\"n\":\"A\"}", &d), 0,
	    "A appends");
	is_int(open_log(&b, "shared.log", NULL, 0, 0, &d), 0, "B opens the "
	    "log A has open: %s", d.msg);
	if (b == NULL) {
		tc_audit_close(a);
		return;
	}
	is_int(append(b, "{\"event\":\"start\",\"n\":\"B\"}", &d), 0,
	    "B appends after A's record");
	is_int(append(a, "{\"event\":\"call\",\"n\":\"A\"}", &d), 0,
	    "A appends, finding B's record at the end");
	is_int(append(b, "{\"event\":\"call\",\"n\":\"B\"}", &d), 0,
	    "B appends, finding A's record at the end");
	is_int(append(b, "{\"event\":\"stop\",\"n\":\"B\"}", &d), 0,
	    "B appends after its own record");
	memset(&ch, 0, sizeof(ch));
	is_int(check_file(&ch, NULL, "shared.log"), 0, "one chain through "
	    "both writers' records: %s", ch.why);
	is_int(ch.n, 5, "5 records");
	is_int(ch.seq, 5, "seq 1 to 5");
	l = nth_line("shared.log", 3);
	prev = member_of("shared.log", 2, "hash");
	like(l, prev != NULL ? prev : "?", "A's second record names B's "
	    "record as prev");
	like(l, "\"n\":\"A\"", "and is A's");
	free(prev);
	free(l);

	/* A closes; B goes on; a third writer continues the chain. */
	tc_audit_close(a);
	is_int(append(b, "{\"event\":\"call\",\"n\":\"B\"}", &d), 0,
	    "B appends once A has closed");
	is_int(open_log(&c, "shared.log", NULL, 0, 0, &d), 0, "C opens");
	is_int(append(c, "{\"event\":\"start\",\"n\":\"C\"}", &d), 0,
	    "C appends");
	tc_audit_close(c);
	tc_audit_close(b);
	memset(&ch, 0, sizeof(ch));
	is_int(check_file(&ch, NULL, "shared.log"), 0, "still one chain: %s",
	    ch.why);
	is_int(ch.seq, 7, "seq 1 to 7");
}

/* An altered record at the end, written by another writer, stops the
 * next append: the writer never extends a log it cannot continue. */
static void
test_shared_altered(void)
{
	struct tc_audit *a, *b;
	struct tc_diag d;
	char *text;
	off_t before;

	is_int(open_log(&a, "salt.log", NULL, 0, 0, &d), 0, "A opens");
	is_int(open_log(&b, "salt.log", NULL, 0, 0, &d), 0, "B opens: %s",
	    d.msg);
	if (b == NULL) {
		tc_audit_close(a);
		return;
	}
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "A appends");
	is_int(append(b, "{\"event\":\"call\",\"tool\":\"read\"}", &d), 0,
	    "B appends");
	text = slurp("salt.log");
	strstr(text, "\"read\"")[1] = 'R';
	/* Changed in place, so that the writers' file is the one altered. */
	before = size_of("salt.log");
	{
		int fd = open("salt.log", O_WRONLY);

		if (fd < 0 || pwrite(fd, text, strlen(text), 0) !=
		    (ssize_t)strlen(text))
			perror("salt.log");
		if (fd >= 0)
			close(fd);
	}
	free(text);
	is_int(append(a, "{\"event\":\"stop\"}", &d), TC_EINVAL, "A refuses "
	    "to chain on B's altered record");
	is_str(d.msg, "audit log 'salt.log': its last record (seq 2) does not "
	    "match its hash (altered); run 'toolcell-audit verify salt.log'",
	    "and says why");
	is_int(size_of("salt.log"), before, "nothing was written");
	tc_audit_close(a);
	tc_audit_close(b);
}

/* Another writer's key: refused at open, on the last record's MAC. */
static void
test_shared_keys(void)
{
	struct tc_audit *a, *b = NULL;
	struct tc_diag d;

	put("sk1", KEY_TEXT "\n", 33, 0600);
	put("sk2", "fedcba9876543210fedcba9876543210", 32, 0600);
	is_int(open_log(&a, "skey.log", "sk1", 0, 0, &d), 0, "A opens keyed");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "A appends");
	is_int(open_log(&b, "skey.log", "sk2", 0, 0, &d), TC_EINVAL, "B with "
	    "another key is refused");
	is_str(d.msg, "audit log 'skey.log': its last record (seq 1) does not "
	    "match its MAC with this key (altered, or another key); run "
	    "'toolcell-audit verify --key KEY skey.log'", "on the MAC");
	tc_audit_close(b);
	is_int(open_log(&b, "skey.log", "sk1", 0, 0, &d), 0, "B with the "
	    "same key opens: %s", d.msg);
	if (b != NULL)
		is_int(append(b, "{\"event\":\"start\"}", &d), 0,
		    "and appends");
	tc_audit_close(b);
	tc_audit_close(a);
}

/* A line cut short (a writer killed in its write(2)) is cut off, and a
 * "torn" record saying what was cut goes in its place. */
static void
test_torn(void)
{
	static const char torn[] = "{\"seq\":3,\"time\":\"2026-11-23T10:00:"
	    "09.000Z\",\"event\":\"call\",\"tool\":\"wri";
	char *good, *text, hex[65], want[256], *m;
	struct tc_audit *a;
	struct chain ch;
	struct tc_diag d;
	size_t n;

	is_int(open_log(&a, "torn.log", NULL, 0, 0, &d), 0, "open");
	append(a, "{\"event\":\"start\"}", &d);
	append(a, "{\"event\":\"call\"}", &d);
	tc_audit_close(a);
	good = slurp("torn.log");
	n = strlen(good);
	text = malloc(n + sizeof(torn));
	memcpy(text, good, n);
	memcpy(text + n, torn, sizeof(torn));
	put("torn.log", text, n + sizeof(torn) - 1, 0600);

	is_int(open_log(&a, "torn.log", NULL, 0, 0, &d), 0, "a log ending "
	    "with a partial line opens: %s", d.msg);
	if (a == NULL)
		goto out;
	is_int(append(a, "{\"event\":\"stop\"}", &d), 0, "and takes records");
	tc_audit_close(a);
	memset(&ch, 0, sizeof(ch));
	is_int(check_file(&ch, NULL, "torn.log"), 0, "one chain: %s", ch.why);
	is_int(ch.n, 4, "the two records, the torn one, the new one");
	m = member_of("torn.log", 3, "event");
	is_str(m, "\"torn\"", "record 3 says a line was torn");
	free(m);
	m = member_of("torn.log", 3, "bytes");
	snprintf(want, sizeof(want), "%zu", sizeof(torn) - 1);
	is_str(m, want, "how many bytes were cut");
	free(m);
	ref_digest(NULL, torn, sizeof(torn) - 1, hex);
	snprintf(want, sizeof(want), "\"%s\"", hex);
	m = member_of("torn.log", 3, "sha256");
	is_str(m, want, "their SHA-256");
	free(m);
	m = member_of("torn.log", 3, "text");
	ok(m != NULL && strstr(m, "\\\"tool\\\":\\\"wri") != NULL,
	    "and what they said: %s", m != NULL ? m : "(none)");
	free(m);
	m = member_of("torn.log", 4, "event");
	is_str(m, "\"stop\"", "record 4 is the one appended");
	free(m);
	m = slurp("torn.log");
	ok(strncmp(m, good, n) == 0, "the whole records before are "
	    "untouched");
	free(m);
out:
	free(text);
	free(good);
}

/* --- In another process --- */

/* Runs |fn| in a child that writes its report into a pipe; returns the
 * report (the caller frees it). */
static char *
in_child(void (*fn)(int))
{
	struct tc_buf b;
	char chunk[512];
	ssize_t n;
	pid_t pid;
	int p[2], status;

	if (pipe(p) != 0 || (pid = fork()) < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		close(p[0]);
		fn(p[1]);
		_exit(0);
	}
	close(p[1]);
	tc_buf_init(&b, 1u << 16);
	while ((n = read(p[0], chunk, sizeof(chunk))) > 0)
		tc_buf_append(&b, chunk, (size_t)n);
	close(p[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		tc_buf_append_str(&b, "child died\n");
	return tc_buf_steal(&b);
}

/* Writes "rc msg" on a line into |fd|. */
static void
report(int fd, int rc, const struct tc_diag *d)
{
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "%d %s\n", rc, rc != 0 ? d->msg :
	    "");
	if (write(fd, line, (size_t)n) != n)
		_exit(3);
}

/* In a child: opens lock.log, which the parent has open, and appends. */
static void
second_open(int fd)
{
	struct tc_audit *a;
	struct tc_diag d;
	int rc;

	rc = open_as(&a, "lock.log", NULL, 0, 0, 5151, "0000000000005151", 0,
	    &d);
	report(fd, rc, &d);
	if (rc == 0)
		report(fd, append(a, "{\"event\":\"start\"}", &d), &d);
	tc_audit_close(a);
}

/*
 * Forks a child that takes the lock of |file| and holds it until |*go| is
 * closed, as a writer stopped in the middle of a record would; returns
 * once it holds it.
 */
static pid_t
hold_lock(const char *file, int *go)
{
	int ready[2], wait_go[2], fd;
	pid_t pid;
	char c;

	if (pipe(ready) != 0 || pipe(wait_go) != 0 || (pid = fork()) < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		close(ready[0]);
		close(wait_go[1]);
		if ((fd = open(file, O_RDWR)) < 0 || flock(fd, LOCK_EX) != 0)
			_exit(3);
		if (write(ready[1], "x", 1) != 1)
			_exit(3);
		while (read(wait_go[0], &c, 1) > 0)
			continue;
		_exit(0);
	}
	close(ready[1]);
	close(wait_go[0]);
	if (read(ready[0], &c, 1) != 1) {
		fprintf(stderr, "the child could not lock %s\n", file);
		exit(2);
	}
	close(ready[0]);
	*go = wait_go[1];
	return pid;
}

static void
test_lock(void)
{
	struct tc_audit *a, *b, *c;
	struct tc_diag d;
	struct chain ch;
	char *r, *m, want[256];
	int go, status;
	off_t before;
	pid_t pid;

	is_int(open_log(&a, "lock.log", NULL, 0, 0, &d), 0, "open");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "append");
	r = in_child(second_open);
	is_str(r, "0 \n0 \n", "another process opens the log while it is "
	    "open, and appends");
	free(r);
	is_int(append(a, "{\"event\":\"stop\"}", &d), 0, "the first goes "
	    "on after it");
	memset(&ch, 0, sizeof(ch));
	is_int(check_file(&ch, NULL, "lock.log"), 0, "one chain: %s", ch.why);
	is_int(ch.n, 3, "3 records");
	m = member_of("lock.log", 2, "writer");
	is_str(m, "{\"pid\":5151,\"start\":\"0000000000005151\"}", "the "
	    "second record names the other process as its writer");
	free(m);
	m = member_of("lock.log", 3, "writer");
	is_str(m, "{\"pid\":4242,\"start\":\"0000000000004242\"}", "the "
	    "third, the first writer");
	free(m);

	/* A process holding the lock and not letting go: a record waits
	 * for it as long as the writer is told to, then fails. */
	is_int(open_as(&c, "lock.log", NULL, 0, 0, 77, "0000000000000077", 50,
	    &d), 0, "a writer that waits 50 ms for the lock");
	pid = hold_lock("lock.log", &go);
	before = size_of("lock.log");
	is_int(append(c, "{\"event\":\"call\"}", &d), TC_ESYS, "the "
	    "record fails while another process holds the lock");
	snprintf(want, sizeof(want), "audit log 'lock.log' has been locked by "
	    "another process for 50 ms, longer than a record takes: a server "
	    "writing it is stopped or stuck");
	is_str(d.msg, want, "and says why");
	is_int(size_of("lock.log"), before, "nothing was written");
	is_int(open_as(&b, "lock.log", NULL, 0, 0, 78, "0000000000000078", 50,
	    &d), TC_ESYS, "opening waits for the lock too");
	is_str(d.msg, want, "and says why");
	close(go);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the holder let go");
	is_int(append(c, "{\"event\":\"call\"}", &d), 0, "then the record "
	    "is written");
	tc_audit_close(c);
	tc_audit_close(a);
	memset(&ch, 0, sizeof(ch));
	is_int(check_file(&ch, NULL, "lock.log"), 0, "one chain: %s", ch.why);
	is_int(ch.n, 4, "4 records");
}

/* Appends |n| bytes of |text| to |file|, as another writer would. */
static void
add_bytes(const char *file, const char *text, size_t n)
{
	int fd;

	if ((fd = open(file, O_WRONLY | O_APPEND)) < 0 ||
	    write(fd, text, n) != (ssize_t)n || close(fd) != 0) {
		perror(file);
		exit(2);
	}
}

/* Torn lines found in other places: while a writer runs, alone in a
 * file, too long to be a record, after a line that is not a record. */
static void
test_torn_more(void)
{
	static const char torn[] = "{\"seq\":9,\"time\":\"2026-11-23T1";
	struct tc_audit *a, *b;
	struct chain ch;
	struct tc_diag d;
	char *m, *big, *before;
	off_t size;

	/* Another writer killed in its write, while this one runs. */
	is_int(open_log(&a, "torn2.log", NULL, 0, 0, &d), 0, "open");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "append");
	add_bytes("torn2.log", torn, sizeof(torn) - 1);
	is_int(append(a, "{\"event\":\"call\"}", &d), 0, "the next record, "
	    "after another writer's partial line: %s", d.msg);
	tc_audit_close(a);
	memset(&ch, 0, sizeof(ch));
	is_int(check_file(&ch, NULL, "torn2.log"), 0, "one chain: %s",
	    ch.why);
	is_int(ch.n, 3, "start, torn, call");
	m = member_of("torn2.log", 2, "event");
	is_str(m, "\"torn\"", "the torn record comes first");
	free(m);
	m = member_of("torn2.log", 2, "writer");
	is_str(m, "{\"pid\":4242,\"start\":\"0000000000004242\"}", "written "
	    "by the writer that found it");
	free(m);

	/* A file that is one partial line: cut to nothing, a new chain. */
	put("torn3.log", torn, sizeof(torn) - 1, 0600);
	is_int(open_log(&a, "torn3.log", NULL, 0, 0, &d), 0, "a log that is "
	    "a partial line opens: %s", d.msg);
	if (a != NULL) {
		is_int(append(a, "{\"event\":\"start\"}", &d), 0, "append");
		tc_audit_close(a);
	}
	memset(&ch, 0, sizeof(ch));
	is_int(check_file(&ch, NULL, "torn3.log"), 0, "one chain: %s",
	    ch.why);
	is_int(ch.first_seq, 1, "from seq 1");
	is_int(ch.n, 2, "the torn record and the new one");

	/* More bytes without a newline than a record can have: not a write
	 * cut short, so refused, and left as it is. */
	big = malloc(TC_AUDIT_MAX_LINE + 10);
	memset(big, 'x', TC_AUDIT_MAX_LINE + 10);
	put("long.log", big, TC_AUDIT_MAX_LINE + 10, 0600);
	free(big);
	refused("long.log", NULL, "audit log 'long.log' ends with more than "
	    "1048576 bytes without a newline: not a record cut short; run "
	    "'toolcell-audit verify long.log'", "a partial line too long");
	is_int(size_of("long.log"), TC_AUDIT_MAX_LINE + 10, "left as it is");

	/* A partial line after one that is not a record: refused, and the
	 * partial line is not cut either. */
	is_int(open_log(&b, "junk2.log", NULL, 0, 0, &d), 0, "open");
	append(b, "{\"event\":\"start\"}", &d);
	tc_audit_close(b);
	add_bytes("junk2.log", "not a record\n", 13);
	add_bytes("junk2.log", torn, sizeof(torn) - 1);
	before = slurp("junk2.log");
	size = size_of("junk2.log");
	refused("junk2.log", NULL, "audit log 'junk2.log': its last line is "
	    "not a chained record (not JSON); run 'toolcell-audit verify "
	    "junk2.log'", "a partial line after one that is not a record");
	is_int(size_of("junk2.log"), size, "nothing was cut");
	free(before);
}

/* One writer rotates; another follows the log's name to the new file. */
static void
test_shared_rotation(void)
{
	static const char *const files[] = { "sr.log.2", "sr.log.1",
	    "sr.log" };
	struct tc_audit *a, *b;
	struct chain ch;
	struct tc_diag d;
	char *m;

	is_int(open_log(&a, "sr.log", NULL, 0, 0, &d), 0, "A opens, never "
	    "rotating");
	/* A record is about 265 bytes: B rotates the log at two. */
	is_int(open_as(&b, "sr.log", NULL, 400, 0, 5, "0000000000000005", 0,
	    &d), 0, "B opens, rotating at 400 bytes");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "A appends");
	is_int(append(b, "{\"event\":\"start\"}", &d), 0, "B appends, and "
	    "rotates");
	ok(exists("sr.log.1") && size_of("sr.log") == 0, "sr.log.1 holds "
	    "both records, sr.log is new");
	is_int(append(a, "{\"event\":\"call\"}", &d), 0, "A appends to the "
	    "new file");
	m = member_of("sr.log", 1, "seq");
	is_str(m, "3", "continuing the chain of sr.log.1");
	free(m);
	is_int(append(b, "{\"event\":\"call\"}", &d), 0, "B appends after "
	    "A's record, and rotates again");
	is_int(size_of("sr.log"), 0, "sr.log is new again");
	is_int(append(a, "{\"event\":\"stop\"}", &d), 0, "A follows again");
	tc_audit_close(a);
	tc_audit_close(b);
	ok(exists("sr.log.2") && !exists("sr.log.3") &&
	    !exists("sr.log.new"), "two rotations, nothing left over");
	memset(&ch, 0, sizeof(ch));
	is_int(check_files(&ch, files, 3), 0, "one chain over the three "
	    "files: %s", ch.why);
	is_int(ch.n, 5, "5 records");
}

/* In a child: |WRITERS| writers at once, each appending RECORDS records
 * in its own process, rotating at 4000 bytes. */
#define WRITERS	3
#define RECORDS	150
static int writer_no;

static void
busy_writer(int fd)
{
	char start[17], json[128];
	struct tc_audit *a;
	struct tc_diag d;
	int i, rc;

	snprintf(start, sizeof(start), "%016d", writer_no);
	rc = open_as(&a, "busy.log", NULL, 4000, 0, 100 + writer_no, start, 0,
	    &d);
	for (i = 0; rc == 0 && i < RECORDS; i++) {
		snprintf(json, sizeof(json), "{\"event\":\"call\",\"call\":%d}",
		    i + 1);
		rc = append(a, json, &d);
	}
	report(fd, rc, &d);
	tc_audit_close(a);
}

static void
test_concurrent(void)
{
	char name[64], *text, *s, *nl, want[64];
	int p[WRITERS][2], i, n, count[WRITERS], last[WRITERS], bad = 0;
	unsigned long long total = 0;
	struct chain ch;
	const cJSON *w, *call;
	pid_t pid[WRITERS];
	cJSON *o;

	/* All writers start together: each waits for the pipe to close. */
	for (i = 0; i < WRITERS; i++) {
		if (pipe(p[i]) != 0 || (pid[i] = fork()) < 0) {
			perror("fork");
			exit(2);
		}
		if (pid[i] == 0) {
			close(p[i][0]);
			writer_no = i;
			busy_writer(p[i][1]);
			_exit(0);
		}
		close(p[i][1]);
	}
	for (i = 0; i < WRITERS; i++) {
		n = (int)read(p[i][0], want, sizeof(want) - 1);
		want[n > 0 ? n : 0] = '\0';
		is_str(want, "0 \n", "writer %d appended %d records", i,
		    RECORDS);
		close(p[i][0]);
		waitpid(pid[i], NULL, 0);
	}
	for (n = 1; exists((snprintf(name, sizeof(name), "busy.log.%d", n),
	    name)); n++)
		continue;
	ok(n > 2, "the log was rotated (%d files)", n);
	ok(!exists("busy.log.new"), "no busy.log.new left");
	memset(&ch, 0, sizeof(ch));
	memset(count, 0, sizeof(count));
	memset(last, 0, sizeof(last));
	for (i = n - 1; i >= 0; i--) {
		if (i > 0)
			snprintf(name, sizeof(name), "busy.log.%d", i);
		else
			snprintf(name, sizeof(name), "busy.log");
		if (check_file(&ch, NULL, name) != 0)
			break;
		text = slurp(name);
		for (s = text; (nl = strchr(s, '\n')) != NULL; s = nl + 1) {
			o = cJSON_ParseWithLength(s, (size_t)(nl - s));
			w = cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(o, "writer"),
			    "pid");
			call = cJSON_GetObjectItemCaseSensitive(o, "call");
			n = cJSON_IsNumber(w) ? w->valueint - 100 : -1;
			if (n < 0 || n >= WRITERS || !cJSON_IsNumber(call) ||
			    call->valueint != last[n] + 1)
				bad++;
			else
				last[n] = call->valueint;
			if (n >= 0 && n < WRITERS)
				count[n]++;
			total++;
			cJSON_Delete(o);
		}
		free(text);
	}
	is_str(ch.why, "", "one chain through every file");
	is_int(ch.first_seq, 1, "from seq 1");
	is_int(ch.seq, WRITERS * RECORDS, "to seq %d", WRITERS * RECORDS);
	is_int(total, WRITERS * RECORDS, "every record is there once");
	for (i = 0; i < WRITERS; i++)
		is_int(count[i], RECORDS, "writer %d: %d records", i, RECORDS);
	is_int(bad, 0, "each writer's records in the order it wrote them");
}

/* In a child: reports whether follow.old can be locked at once. */
static void
try_lock_old(int fd)
{
	int f = open("follow.old", O_RDWR);
	const char *r = f >= 0 && flock(f, LOCK_EX | LOCK_NB) == 0 ?
	    "free\n" : "locked\n";

	if (write(fd, r, strlen(r)) != (ssize_t)strlen(r))
		_exit(3);
}

/* The log's name replaced by something that cannot be a log: the record
 * fails, and the writer holds no lock on the file it had. */
static void
test_follow_fails(void)
{
	struct tc_audit *a;
	struct tc_diag d;
	char *r;

	is_int(open_log(&a, "follow.log", NULL, 0, 0, &d), 0, "open");
	is_int(append(a, "{\"event\":\"start\"}", &d), 0, "append");
	if (rename("follow.log", "follow.old") != 0 ||
	    symlink("follow.old", "follow.log") != 0)
		perror("follow.log");
	is_int(append(a, "{\"event\":\"call\"}", &d), TC_EINVAL, "a log "
	    "replaced by a symbolic link: the record fails");
	is_str(d.msg, "audit log 'follow.log' is a symbolic link: name the "
	    "file itself", "and says why");
	r = in_child(try_lock_old);
	is_str(r, "free\n", "the old file's lock was released");
	free(r);
	tc_audit_close(a);
}

/* Sets the soft RLIMIT_FSIZE to |bytes|. */
static void
fsize(rlim_t bytes)
{
	struct rlimit rl;

	getrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = bytes;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		_exit(4);
}

/* In a child: appends under file size limits, reporting each result
 * and the log's size after it. */
static void
limited_writes(int fd)
{
	static const char big[] = "{\"event\":\"call\",\"tool\":\"write_file\","
	    "\"args\":{\"path\":\"a rather long argument for this record\"}}";
	struct tc_audit *a;
	struct tc_diag d;
	char line[64];
	off_t s1;
	int n;

	signal(SIGXFSZ, SIG_IGN);
	unlink("fsize.log");
	report(fd, open_log(&a, "fsize.log", NULL, 0, 0, &d), &d);
	report(fd, append(a, "{\"event\":\"start\"}", &d), &d);
	s1 = size_of("fsize.log");
	fsize((rlim_t)s1 + 20);
	report(fd, append(a, big, &d), &d);
	n = snprintf(line, sizeof(line), "size %s\n", size_of("fsize.log") ==
	    s1 ? "unchanged" : "changed");
	if (write(fd, line, (size_t)n) != n)
		_exit(3);
	fsize((rlim_t)s1);
	report(fd, append(a, big, &d), &d);
	n = snprintf(line, sizeof(line), "size %s\n", size_of("fsize.log") ==
	    s1 ? "unchanged" : "changed");
	if (write(fd, line, (size_t)n) != n)
		_exit(3);
	fsize(RLIM_INFINITY);
	report(fd, append(a, big, &d), &d);
	tc_audit_close(a);
}

static void
test_write_failure(void)
{
	struct tc_buf want;
	struct chain c;
	char *r, *line;

	r = in_child(limited_writes);
	tc_buf_init(&want, 4096);
	tc_buf_printf(&want, "0 \n0 \n%d audit log 'fsize.log': short write "
	    "(20 of 333 bytes); the record was undone\nsize unchanged\n"
	    "%d audit log 'fsize.log': write failed: File too large; the "
	    "record was undone\nsize unchanged\n0 \n", TC_ESYS, TC_ESYS);
	is_str(r, want.data, "RLIMIT_FSIZE: a short write and a failed one "
	    "are undone and reported; the next write succeeds");
	tc_buf_release(&want);
	free(r);
	memset(&c, 0, sizeof(c));
	is_int(check_file(&c, NULL, "fsize.log"), 0, "no partial record "
	    "left: %s", c.why);
	is_int(c.n, 2, "two records");
	line = nth_line("fsize.log", 2);
	like(line, "{\"seq\":2,", "the failed records did not use up a seq");
	free(line);
}

/* --- Lines --- */

static void
test_parse_line(void)
{
	static const struct {
		const char	*line;
		int		 rc;
		const char	*msg;
	} cases[] = {
		{ "not json", TC_EBADJSON, "not JSON" },
		{ "[1]", TC_EBADJSON, "not a JSON object" },
		{ "{\"seq\":1} x", TC_EBADJSON, "not JSON" },
		{ "{}", TC_EINVAL, "missing chain fields: the first member is "
		    "not \"seq\"" },
		{ "{\"seq\":0,\"time\":\"t\"}", TC_EINVAL, "malformed chain "
		    "fields: \"seq\" is not an integer from 1" },
		{ "{\"seq\":1.5,\"time\":\"t\"}", TC_EINVAL, "malformed chain "
		    "fields: \"seq\" is not an integer from 1" },
		{ "{\"seq\":1,\"event\":\"t\"}", TC_EINVAL, "missing chain "
		    "fields: no \"time\" string after \"seq\"" },
		{ "{\"seq\":1,\"time\":\"t\",\"prev\":\"" ZERO_HEX "\"}",
		    TC_EINVAL, "missing chain fields: no \"prev\" and digest "
		    "after \"time\"" },
		{ "{\"seq\":1,\"time\":\"t\",\"prev\":\"" ZERO_HEX "\","
		    "\"sum\":\"" ZERO_HEX "\"}", TC_EINVAL, "missing chain "
		    "fields: no \"hash\" where the writer puts it" },
		{ "{\"seq\":1,\"time\":\"t\",\"prev\":\"x\",\"hash\":\""
		    ZERO_HEX "\"}", TC_EINVAL, "malformed chain fields: "
		    "\"prev\" is not 64 lowercase hex digits" },
		{ "{\"seq\":1,\"time\":\"t\",\"prev\":\"" ZERO_HEX "\","
		    "\"hash\":\"" "ABCDEF0000000000000000000000000000000000"
		    "000000000000000000000000" "\"}", TC_EINVAL, "malformed "
		    "chain fields: \"hash\" is not 64 lowercase hex digits" },
		{ "{\"seq\":1,\"time\":\"t\",\"seq\":2,\"prev\":\"" ZERO_HEX
		    "\",\"hash\":\"" ZERO_HEX "\"}", TC_EINVAL, "malformed "
		    "chain fields: \"seq\" appears where the record's own "
		    "members are" },
		{ "{\"seq\":1, \"time\":\"t\",\"prev\":\"" ZERO_HEX "\","
		    "\"hash\":\"" ZERO_HEX "\" }", TC_EINVAL, "malformed chain "
		    "fields: the line does not end with ,\"hash\":\"" ZERO_HEX
		    "\"} as the writer writes it" },
		{ "{\"seq\":7,\"time\":\"t\",\"e\":1,\"prev\":\"" ZERO_HEX
		    "\",\"hmac\":\"" ZERO_HEX "\"}", 0, "" },
	};
	struct tc_audit_link l;
	struct tc_diag d;
	size_t i;
	int rc;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		memset(&d, 0, sizeof(d));
		rc = tc_audit_parse_line(cases[i].line, strlen(cases[i].line),
		    &l, NULL, &d);
		is_int(rc, cases[i].rc, "parse %zu: status", i);
		is_str(d.msg, cases[i].msg, "parse %zu: message", i);
	}
	is_int(l.seq, 7, "seq read");
	ok(l.keyed, "an hmac line is keyed");
	is_int(l.signed_len, strlen(cases[i - 1].line) - 75,
	    "everything before ,\"hmac\": is signed");
}

static void
test_times(void)
{
	static const struct {
		const char	*text;
		long long	 ms;		/* -1: invalid */
	} cases[] = {
		{ "2026-11-23", 1795392000000LL },
		{ "2026-11-23T10:00:00Z", 1795428000000LL },
		{ "2026-11-23T10:00:00.123Z", 1795428000123LL },
		{ "2026-11-23t10:00:00.1234567z", 1795428000123LL },
		{ "2026-11-23 10:00:00.5+01:00", 1795424400500LL },
		{ "2026-11-23T10:00:00-02:30", 1795437000000LL },
		{ "2026-02-30", -1 },
		{ "2026-11-23T24:00:00Z", -1 },
		{ "2026-11-23T10:00:00", -1 },
		{ "2026-11-23T10:00Z", -1 },
		{ "2026-11-23T10:00:00.Z", -1 },
		{ "26-11-23", -1 },
		{ "2026-11-23x", -1 },
		{ "", -1 },
	};
	long long ms;
	size_t i;
	int rc;

	for (i = 0; i < TC_NITEMS(cases); i++) {
		ms = -1;
		rc = tc_audit_parse_time(cases[i].text, &ms);
		if (cases[i].ms < 0)
			is_int(rc, TC_EINVAL, "time '%s' refused",
			    cases[i].text);
		else
			is_int(ms, cases[i].ms, "time '%s'", cases[i].text);
	}
}

/* --- Arguments --- */

/* An argument table with the roles of a write tool's arguments: paths
 * (a string, an array of them), contents, and an object array whose
 * items hold a path too. */
static const struct tc_arg item_table[] = {
	{ .name = "file", .type = TC_ARG_STRING, .flags = TC_ARG_PATH },
	{ .name = "text", .type = TC_ARG_STRING },
	{ NULL }
};

static const struct tc_arg table[] = {
	{ .name = "path", .type = TC_ARG_STRING, .flags = TC_ARG_PATH },
	{ .name = "paths", .type = TC_ARG_STRING_ARRAY, .flags = TC_ARG_PATH },
	{ .name = "token_file", .type = TC_ARG_STRING, .flags = TC_ARG_PATH },
	{ .name = "content", .type = TC_ARG_STRING },
	{ .name = "edits", .type = TC_ARG_OBJECT_ARRAY, .items = item_table },
	{ NULL }
};

/* Checks that tc_audit_args() makes |in| into |want| (compact JSON),
 * with argument table |t|. */
static void
args_case_with(const struct tc_arg *t, const char *in, const char *want,
    const char *what)
{
	cJSON *i = cJSON_Parse(in), *o;
	char *s;

	if (i == NULL) {
		fprintf(stderr, "bad test JSON: %s\n", in);
		exit(2);
	}
	o = tc_audit_args(i, t);
	s = o != NULL ? cJSON_PrintUnformatted(o) : NULL;
	is_str(s, want, "args: %s", what);
	cJSON_free(s);
	cJSON_Delete(o);
	cJSON_Delete(i);
}

/* The same without a table: every member is contents. */
static void
args_case(const char *in, const char *want, const char *what)
{
	args_case_with(NULL, in, want, what);
}

/* Checks that the string |value| is redacted (or kept, if !secret). */
static void
value_case(const char *value, int secret)
{
	char in[512], want[512];

	snprintf(in, sizeof(in), "{\"v\":\"%s\"}", value);
	snprintf(want, sizeof(want), "{\"v\":\"%s\"}", secret ? "[redacted]" :
	    value);
	args_case(in, want, value);
}

static void
test_args_names(void)
{
	args_case("{\"path\":\"a.txt\",\"password\":\"hunter2\"}",
	    "{\"path\":\"a.txt\",\"password\":\"[redacted]\"}", "password");
	args_case("{\"DB_PASSWORD\":\"x\",\"Api-Key\":\"y\",\"apiKey\":\"z\","
	    "\"x_auth_token\":\"t\",\"Authorization\":\"Basic eA==\","
	    "\"Cookie\":\"c\",\"private-key\":\"k\",\"aws_secret_access_key\":"
	    "\"s\",\"credentials\":{\"u\":\"p\"},\"passwd\":1,\"SECRET\":[1]}",
	    "{\"DB_PASSWORD\":\"[redacted]\",\"Api-Key\":\"[redacted]\","
	    "\"apiKey\":\"[redacted]\",\"x_auth_token\":\"[redacted]\","
	    "\"Authorization\":\"[redacted]\",\"Cookie\":\"[redacted]\","
	    "\"private-key\":\"[redacted]\",\"aws_secret_access_key\":"
	    "\"[redacted]\",\"credentials\":\"[redacted]\",\"passwd\":"
	    "\"[redacted]\",\"SECRET\":\"[redacted]\"}",
	    "secret names, any case, any value");
	args_case("{\"path\":\"p\",\"head\":3,\"ok\":true,\"none\":null,"
	    "\"f\":1.5,\"keys\":[\"a\"]}", "{\"path\":\"p\",\"head\":3,\"ok\":"
	    "true,\"none\":null,\"f\":1.5,\"keys\":[\"a\"]}",
	    "other names and values kept");
}

static void
test_args_values(void)
{
	value_case("-----BEGIN OPENSSH PRIVATE KEY-----\\nb3Blbn\\n-----END "
	    "OPENSSH PRIVATE KEY-----", 1);
	value_case("x -----BEGIN RSA PRIVATE KEY----- y", 1);
	value_case("ghp_0123456789abcdefghijABCDEFGHIJ012345", 1);
	value_case("github_pat_11ABCDEFG0123456789_abcdefghij", 1);
	value_case("gho_0123456789abcdefghijAB", 1);
	value_case("glpat-0123456789abcdefghij", 1);
	value_case("sk-proj-abcdefghijklmnopqrstuv", 1);
	value_case("sk-ant-api03-abcdefghijklmnopqrst", 1);
	value_case("xoxb-1234567890-abcdefghij", 1);
	value_case("AKIAIOSFODNN7EXAMPLE", 1);
	value_case("aws ASIAIOSFODNN7EXAMPLE key", 1);
	value_case("Bearer eyJhbGciOi.J9.x", 1);
	value_case("curl -H 'Authorization: bearer abcdefgh12345' url", 1);
	value_case("git push --token=ghp_0123456789abcdefghijABCD", 1);
	value_case("GITHUB_TOKEN=ghp_0123456789abcdefghijABCD make", 1);

	value_case("sk-short", 0);
	value_case("task-0123456789abcdefghijklmnop", 0);
	value_case("ghp_short", 0);
	value_case("xghp_0123456789abcdefghijABCD", 0);
	value_case("AKIA123", 0);
	value_case("AKIAIOSFODNN7EXAMPLEX", 0);
	value_case("akiaiosfodnn7example", 0);
	value_case("Bearer", 0);
	value_case("Bearer short", 0);
	value_case("-----BEGIN CERTIFICATE-----", 0);
	value_case("hello world", 0);
}

static void
test_args_shape(void)
{
	char in[1024], text[1024], want[1024], hex[65], *big, *s;
	struct tc_buf b;
	cJSON *i, *o;
	int k;

	memset(in, 'a', 257);
	in[257] = '\0';
	ref_digest(NULL, in, 257, hex);
	snprintf(want, sizeof(want), "{\"v\":{\"length\":257,\"sha256\":"
	    "\"%s\"}}", hex);
	snprintf(text, sizeof(text), "{\"v\":\"%.257s\"}", in);
	args_case(text, want, "257 bytes: length and SHA-256");
	snprintf(text, sizeof(text), "{\"v\":\"%.256s\"}", in);
	args_case(text, text, "256 bytes: kept");

	args_case("{\"list\":[\"x\",{\"token\":\"t\"},[\"ghp_0123456789abcdef"
	    "ghijABCD\"]],\"o\":{\"p\":{\"cookie\":1}}}", "{\"list\":[\"x\","
	    "{\"token\":\"[redacted]\"},[\"[redacted]\"]],\"o\":{\"p\":{"
	    "\"cookie\":\"[redacted]\"}}}", "nested arrays and objects");

	/* 20 arrays deep: the 16th holds "[too deep]". */
	tc_buf_init(&b, 1024);
	for (k = 0; k < 20; k++)
		tc_buf_append_str(&b, "[");
	tc_buf_append_str(&b, "1");
	for (k = 0; k < 20; k++)
		tc_buf_append_str(&b, "]");
	s = tc_buf_steal(&b);
	tc_buf_init(&b, 1024);
	for (k = 0; k < 16; k++)
		tc_buf_append_str(&b, "[");
	tc_buf_append_str(&b, "\"[too deep]\"");
	for (k = 0; k < 16; k++)
		tc_buf_append_str(&b, "]");
	args_case(s, b.data, "nesting past 16 levels");
	free(s);
	tc_buf_release(&b);

	memset(in, 'k', 300);
	in[300] = '\0';
	ref_digest(NULL, in, 300, hex);
	snprintf(text, sizeof(text), "{\"%.300s\":1}", in);
	snprintf(want, sizeof(want), "{\"sha256:%s\":1}", hex);
	args_case(text, want, "a 300-byte name becomes its SHA-256");

	o = tc_audit_args(NULL, NULL);
	s = cJSON_PrintUnformatted(o);
	is_str(s, "{}", "args: NULL is {}");
	cJSON_free(s);
	cJSON_Delete(o);

	/* 20000 short strings: past 256 KiB, the whole is digested. */
	i = cJSON_CreateArray();
	for (k = 0; k < 20000; k++)
		cJSON_AddItemToArray(i, cJSON_CreateString("abcdefghijklmnop"));
	big = cJSON_PrintUnformatted(i);
	ref_digest(NULL, big, strlen(big), hex);
	snprintf(want, sizeof(want), "{\"length\":%zu,\"sha256\":\"%s\"}",
	    strlen(big), hex);
	o = tc_audit_args(i, NULL);
	s = cJSON_PrintUnformatted(o);
	is_str(s, want, "args: over 256 KiB in all, length and SHA-256");
	cJSON_free(s);
	cJSON_free(big);
	cJSON_Delete(o);
	cJSON_Delete(i);
}

/* Paths are kept whatever they look like; contents are redacted. */
static void
test_args_roles(void)
{
	char in[2048], want[2048], hex[65], path[700];

	args_case_with(table, "{\"path\":\"sk-abcdefghijklmnopqrstuvwx/../"
	    "important_deploy.sh\",\"content\":\"sk-abcdefghijklmnopqrstuvwx"
	    "\"}", "{\"path\":\"sk-abcdefghijklmnopqrstuvwx/../important_"
	    "deploy.sh\",\"content\":\"[redacted]\"}",
	    "a token-shaped path is kept, token-shaped contents redacted");
	args_case("{\"path\":\"sk-abcdefghijklmnopqrstuvwx/../x.sh\"}",
	    "{\"path\":\"[redacted]\"}",
	    "without a table, the same path is contents, and redacted");
	args_case_with(table, "{\"paths\":[\"ghp_0123456789abcdefghijABCD\","
	    "\"Bearer abcdefgh12345\",\"a.txt\"]}", "{\"paths\":[\"ghp_"
	    "0123456789abcdefghijABCD\",\"Bearer abcdefgh12345\",\"a.txt\"]}",
	    "an array of paths: each kept");
	args_case_with(table, "{\"token_file\":\"keys/api.txt\"}",
	    "{\"token_file\":\"keys/api.txt\"}",
	    "a path is kept whatever its member is called");
	args_case_with(table, "{\"edits\":[{\"file\":\"xoxb-1234567890-abcd"
	    "efghij\",\"text\":\"xoxb-1234567890-abcdefghij\",\"password\":"
	    "\"p\"}]}", "{\"edits\":[{\"file\":\"xoxb-1234567890-abcdefghij\","
	    "\"text\":\"[redacted]\",\"password\":\"[redacted]\"}]}",
	    "object array items take their roles from the items' table");
	args_case_with(table, "{\"path\":{\"token\":\"t\"},\"paths\":"
	    "[{\"cookie\":1}]}", "{\"path\":{\"token\":\"[redacted]\"},"
	    "\"paths\":[{\"cookie\":\"[redacted]\"}]}",
	    "an object where a path should be is contents");

	/* 600 bytes: a path is kept whole; contents are digested. */
	memset(path, 'p', 600);
	path[600] = '\0';
	ref_digest(NULL, path, 600, hex);
	snprintf(in, sizeof(in), "{\"path\":\"%s\",\"content\":\"%s\"}",
	    path, path);
	snprintf(want, sizeof(want), "{\"path\":\"%s\",\"content\":{"
	    "\"length\":600,\"sha256\":\"%s\"}}", path, hex);
	args_case_with(table, in, want, "a long path kept, long contents "
	    "digested");
}

/* The argument types of the shell and SQLite servers: numbers, null,
 * scalar arrays (SQL parameters), string maps (environments). */
static void
test_args_typed(void)
{
	static const struct tc_arg typed[] = {
		{ .name = "ratio", .type = TC_ARG_NUMBER },
		{ .name = "cwd", .type = TC_ARG_STRING, .flags = TC_ARG_PATH |
		    TC_ARG_NULLABLE },
		{ .name = "params", .type = TC_ARG_SCALAR_ARRAY },
		{ .name = "env", .type = TC_ARG_STRING_MAP },
		{ NULL }
	};
	char want[512], hex[65];
	const char *key = "sk-abcdefghijklmnopqrstuvwx";

	args_case_with(typed, "{\"ratio\":1.0000000000000002,\"cwd\":null,"
	    "\"params\":[9007199254740991,-0.1,0,true,null,\"ok\","
	    "\"ghp_0123456789abcdefghijABCD\"]}", "{\"ratio\":"
	    "1.0000000000000002,\"cwd\":null,\"params\":[9007199254740991,"
	    "-0.1,0,true,null,\"ok\",\"[redacted]\"]}", "numbers exact, null "
	    "kept, parameters as contents");
	args_case_with(typed, "{\"env\":{\"LANG\":\"C.UTF-8\",\"GITHUB_TOKEN\":"
	    "\"plain\",\"HOOK\":\"Bearer abcdefgh12345\",\"path\":\"sk-abcd"
	    "efghijklmnopqrstuvwx\"}}", "{\"env\":{\"LANG\":\"C.UTF-8\","
	    "\"GITHUB_TOKEN\":\"[redacted]\",\"HOOK\":\"[redacted]\",\"path\":"
	    "\"[redacted]\"}}", "a map: names kept, secret values redacted by "
	    "name or shape, a key that names a path in the table too");
	ref_digest(NULL, key, strlen(key), hex);
	snprintf(want, sizeof(want), "{\"env\":{\"sha256:%s\":\"v\"}}", hex);
	args_case_with(typed, "{\"env\":{\"sk-abcdefghijklmnopqrstuvwx\":"
	    "\"v\"}}", want, "a map key shaped like a secret is digested");
	args_case_with(table, "{\"content\":{\"sk-abcdefghijklmnopqrstuvwx\":"
	    "1}}", "{\"content\":{\"sk-abcdefghijklmnopqrstuvwx\":1}}",
	    "the names of an object that is not a map are kept as before");
}

/* Runs tc_audit_cut() on |in| and checks the result against |want|. */
static void
cut_case(const char *in, size_t max_string, size_t max_items,
    const char *want, const char *what)
{
	cJSON *o = cJSON_Parse(in);
	char *s = NULL;

	if (o == NULL) {
		fprintf(stderr, "bad test JSON: %s\n", in);
		exit(2);
	}
	if (tc_audit_cut(o, max_string, max_items) == 0)
		s = cJSON_PrintUnformatted(o);
	is_str(s, want, "cut: %s", what);
	cJSON_free(s);
	cJSON_Delete(o);
}

static void
test_cut(void)
{
	char big[6000], in[7000], want[7000];
	cJSON *o, *v;
	char *s;
	int k;

	cut_case("{\"tool\":\"abcdefgh\",\"n\":1}", 8, 8,
	    "{\"tool\":\"abcdefgh\",\"n\":1}", "nothing too long: unchanged");
	cut_case("{\"tool\":\"abcdefghi\",\"n\":1}", 8, 8,
	    "{\"tool\":\"abcdefgh" TC_TEXT_CUT "\",\"n\":1,\"cut\":{"
	    "\"/tool\":9}}", "a string: cut, marked, its length noted");
	/* "\xc3\xa9" (U+00E9) takes bytes 7 and 8: left out whole. */
	cut_case("{\"t\":\"abcdef\xc3\xa9gh\"}", 7, 8,
	    "{\"t\":\"abcdef" TC_TEXT_CUT "\",\"cut\":{\"/t\":10}}",
	    "a two-byte character across the cut is left out whole");
	cut_case("{\"t\":\"abcde\xf0\x9f\x98\x80z\"}", 7, 8,
	    "{\"t\":\"abcde" TC_TEXT_CUT "\",\"cut\":{\"/t\":10}}",
	    "a four-byte character across the cut is left out whole");
	cut_case("{\"args\":{\"paths\":[\"ok\",\"0123456789\"],\"a/b~c\":"
	    "\"0123456789\"}}", 8, 8, "{\"args\":{\"paths\":[\"ok\",\"01234567"
	    TC_TEXT_CUT "\"],\"a/b~c\":\"01234567" TC_TEXT_CUT "\"},\"cut\":{"
	    "\"/args/paths/1\":10,\"/args/a~1b~0c\":10}}",
	    "nested values: named by JSON Pointer, '/' and '~' escaped");
	cut_case("{\"list\":[1,2,3,4,5],\"s\":\"x\"}", 8, 3,
	    "{\"list\":[1,2,3],\"s\":\"x\",\"cut\":{\"/list\":5}}",
	    "an array: its first items kept, its length noted");
	cut_case("{\"cut\":{\"/x\":99},\"y\":\"0123456789\"}", 4, 8,
	    "{\"cut\":{\"/x\":99,\"/y\":10},\"y\":\"0123" TC_TEXT_CUT "\"}",
	    "an existing \"cut\" is added to, and never cut itself");

	/* A 5000-byte tool name, cut at 4096, then harder at 256: the
	 * length noted is the one before any cut. */
	memset(big, 'n', 5000);
	big[5000] = '\0';
	snprintf(in, sizeof(in), "{\"tool\":\"%s\"}", big);
	o = cJSON_Parse(in);
	is_int(tc_audit_cut(o, TC_AUDIT_VALUE_MAX, SIZE_MAX), 0,
	    "cut at TC_AUDIT_VALUE_MAX");
	v = cJSON_GetObjectItemCaseSensitive(o, "tool");
	is_int(strlen(v->valuestring), TC_AUDIT_VALUE_MAX + TC_TEXT_CUT_LEN,
	    "4096 bytes and the marker");
	is_int(tc_audit_cut(o, TC_AUDIT_VALUE_MIN, TC_AUDIT_ITEMS_MIN), 0,
	    "then at TC_AUDIT_VALUE_MIN");
	memcpy(want, big, 256);
	memcpy(want + 256, TC_TEXT_CUT, TC_TEXT_CUT_LEN);
	want[256 + TC_TEXT_CUT_LEN] = '\0';
	v = cJSON_GetObjectItemCaseSensitive(o, "tool");
	is_str(v->valuestring, want, "256 bytes and the marker");
	s = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(o, "cut"));
	is_str(s, "{\"/tool\":5000}", "its length before any cut");
	cJSON_free(s);
	cJSON_Delete(o);

	/* Every cut leaves valid UTF-8, wherever the cut falls in a text
	 * of two-, three- and four-byte characters. */
	for (k = 0; k < 1200; k += 10)
		memcpy(big + k, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 10);
	big[1200] = '\0';
	ok(tc_utf8_valid(big, 1200), "the test text is valid UTF-8");
	for (k = 1; k < 40; k++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "v", big);
		tc_audit_cut(o, (size_t)k * 29, 8);
		v = cJSON_GetObjectItemCaseSensitive(o, "v");
		if (!ok(tc_utf8_valid(v->valuestring, strlen(v->valuestring)),
		    "a cut at %d bytes leaves valid UTF-8", k * 29))
			break;
		cJSON_Delete(o);
	}
	cJSON_Delete(k < 40 ? o : NULL);
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
	char tmpl[PATH_MAX];
	const char *tmp;

	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	snprintf(tmpl, sizeof(tmpl), "%s/test-audit.XXXXXX", tmp);
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, D) == NULL ||
	    chdir(D) != 0) {
		perror(tmpl);
		exit(2);
	}
	umask(022);
}

int
main(void)
{
	setup();
	test_format();
	test_reserved();
	test_chain();
	test_refuse();
	test_keys();
	test_hmac();
	test_rotation();
	test_rotation_reopen();
	test_rotation_failure();
	test_rotation_undo();
	test_lock();
	test_shared();
	test_shared_altered();
	test_shared_keys();
	test_torn();
	test_torn_more();
	test_shared_rotation();
	test_concurrent();
	test_follow_fails();
	test_write_failure();
	test_parse_line();
	test_times();
	test_args_names();
	test_args_values();
	test_args_shape();
	test_args_roles();
	test_args_typed();
	test_cut();
	if (chdir("/") == 0)
		nftw(D, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
