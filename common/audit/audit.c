/*
 * audit.c: the audit log writer (open, append, rotate), the chain's
 * digests, key files, and the reading of one log line, which both the
 * writer (to continue a log) and toolcell-audit (to verify one) use.  The
 * format and what it shows are described in audit.h; the arguments of a
 * call are made fit for the log in audit-args.c.
 *
 * Several writers (servers) may share a log.  Each holds it open, and
 * takes its flock(2) for one record at a time: under the lock it follows
 * the log's name to the file it leads to (another writer may have rotated
 * it), reads the last record unless it is still the one it wrote or read
 * last, cuts off a line a killed writer left half written, writes, syncs,
 * and rotates.  Nothing changes the log's name, or writes to the file it
 * leads to, without holding that file's lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <nettle/version.h>

#include "audit/audit.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/text.h"

/* Nettle 4 dropped the length argument of the digest functions. */
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
#define ROTATED_MAX	100000		/* path.1 ... path.ROTATED_MAX */
#define MAX_SEQ		9007199254740992ULL	/* 2^53: exact in a double */

/*
 * A writer.  What it knows of the chain (seq, last, size) is what the log
 * held when it last had the lock; another writer may have appended since.
 */
struct tc_audit {
	int		 fd;		/* the log as last opened; -1: closed */
	char		*path;
	struct tc_audit_key key;	/* bytes NULL: a SHA-256 chain */
	int		 sync;		/* enum tc_audit_sync */
	unsigned long long rotate_bytes;
	unsigned	 keep;
	void		(*now)(struct timespec *);
	unsigned	 lock_wait_ms;
	long		 pid;		/* "writer" in every record */
	char		 start[TC_AUDIT_START_LEN + 1];
	unsigned long long seq;		/* of the last record; 0: none yet */
	char		 last[TC_AUDIT_HEX_LEN + 1];	/* its digest */
	off_t		 size;		/* the file's size then; -1: unknown */
	int		 make_dir;	/* tc_audit_opts's */
	int		 check;
};

/* --- Digests --- */

/* Writes |n| bytes at |b| as lowercase hex, NUL-terminated, into |out|. */
static void
tohex(const uint8_t *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 0xf];
	}
	out[2 * n] = '\0';
}

void
tc_audit_digest(const struct tc_audit_key *key, const void *p, size_t n,
    char hex[TC_AUDIT_HEX_LEN + 1])
{
	uint8_t md[SHA256_DIGEST_SIZE];
	struct hmac_sha256_ctx h;
	struct sha256_ctx s;

	if (key != NULL) {
		hmac_sha256_set_key(&h, key->len, key->bytes);
		hmac_sha256_update(&h, n, p);
		HMAC_DONE(&h, md);
		explicit_bzero(&h, sizeof(h));
	} else {
		sha256_init(&s);
		sha256_update(&s, n, p);
		SHA256_DONE(&s, md);
	}
	tohex(md, sizeof(md), hex);
}

int
tc_audit_line_ok(const char *line, const struct tc_audit_link *l,
    const struct tc_audit_key *key)
{
	char hex[TC_AUDIT_HEX_LEN + 1];

	tc_audit_digest(key, line, l->signed_len, hex);
	return memeql_sec(hex, l->digest, TC_AUDIT_HEX_LEN);
}

/* --- Key files --- */

/*
 * Refuses a key file that is not a regular file, is open to group or
 * others, or belongs to someone who could change it behind the server's
 * back (signify's check_file_secrecy()).
 */
static int
key_secrecy(const char *file, const struct stat *sb, struct tc_diag *d)
{
	if (!S_ISREG(sb->st_mode))
		return tc_diag(d, TC_EINVAL, "audit key '%s': not a regular "
		    "file", file);
	if (sb->st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH))
		return tc_diag(d, TC_EINVAL, "audit key '%s': readable or "
		    "writable by group or others (mode %04o): chmod 600 '%s'",
		    file, (unsigned)(sb->st_mode & 07777), file);
	if (sb->st_uid != 0 && sb->st_uid != geteuid())
		return tc_diag(d, TC_EINVAL, "audit key '%s': owned by uid %u, "
		    "neither root nor the user running this (uid %u)", file,
		    (unsigned)sb->st_uid, (unsigned)geteuid());
	if (sb->st_size > TC_AUDIT_KEY_MAX + 1)
		return tc_diag(d, TC_EINVAL, "audit key '%s': larger than %d "
		    "bytes: not a key file", file, TC_AUDIT_KEY_MAX);
	return 0;
}

/* Reads at most |max| bytes of |fd| into |buf|; returns the count or -1. */
static ssize_t
read_all(int fd, unsigned char *buf, size_t max)
{
	size_t len = 0;
	ssize_t n;

	while (len < max) {
		n = read(fd, buf + len, max - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return (ssize_t)len;
}

int
tc_audit_key_load(struct tc_audit_key *k, const char *file,
    struct tc_diag *d)
{
	unsigned char *buf = NULL;
	struct stat sb;
	ssize_t n;
	size_t len;
	int fd, rc;

	memset(k, 0, sizeof(*k));
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return tc_diag_errno(d, TC_ESYS, "audit key '%s'", file);
	if (fstat(fd, &sb) != 0) {
		rc = tc_diag_errno(d, TC_ESYS, "audit key '%s'", file);
		goto out;
	}
	if ((rc = key_secrecy(file, &sb, d)) != 0)
		goto out;
	if ((buf = malloc(TC_AUDIT_KEY_MAX + 2)) == NULL) {
		rc = tc_diag(d, TC_ENOMEM, "out of memory");
		goto out;
	}
	if ((n = read_all(fd, buf, TC_AUDIT_KEY_MAX + 2)) < 0) {
		rc = tc_diag_errno(d, TC_ESYS, "audit key '%s'", file);
		goto out;
	}
	len = (size_t)n;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len > TC_AUDIT_KEY_MAX) {
		rc = tc_diag(d, TC_EINVAL, "audit key '%s': larger than %d "
		    "bytes: not a key file", file, TC_AUDIT_KEY_MAX);
		goto out;
	}
	if (len < TC_AUDIT_KEY_MIN) {
		rc = tc_diag(d, TC_EINVAL, "audit key '%s': %zu bytes, fewer "
		    "than %d (make one with: head -c 32 /dev/urandom > '%s')",
		    file, len, TC_AUDIT_KEY_MIN, file);
		goto out;
	}
	k->bytes = buf;
	k->len = len;
	buf = NULL;
	rc = 0;
out:
	if (buf != NULL) {
		explicit_bzero(buf, TC_AUDIT_KEY_MAX + 2);
		free(buf);
	}
	close(fd);
	return rc;
}

void
tc_audit_key_release(struct tc_audit_key *k)
{
	if (k->bytes != NULL) {
		explicit_bzero(k->bytes, k->len);
		free(k->bytes);
	}
	k->bytes = NULL;
	k->len = 0;
}

/* --- Reading a line --- */

/* Returns 1 if |s| is 64 lowercase hex digits. */
static int
is_hex64(const char *s)
{
	size_t i;

	for (i = 0; i < TC_AUDIT_HEX_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

/* Returns 1 if |name| is one of the members the chain adds. */
static int
reserved(const char *name)
{
	return strcmp(name, "seq") == 0 || strcmp(name, "time") == 0 ||
	    strcmp(name, "writer") == 0 || strcmp(name, "prev") == 0 ||
	    strcmp(name, "hash") == 0 || strcmp(name, "hmac") == 0;
}

/* Checks that |c| is a member named |name| holding 64 hex digits. */
static int
hex_member(const cJSON *c, const char *name, struct tc_diag *d)
{
	if (c == NULL || strcmp(c->string, name) != 0)
		return tc_diag(d, TC_EINVAL, "missing chain fields: no \"%s\" "
		    "where the writer puts it", name);
	if (!cJSON_IsString(c) || !is_hex64(c->valuestring))
		return tc_diag(d, TC_EINVAL, "malformed chain fields: \"%s\" "
		    "is not 64 lowercase hex digits", name);
	return 0;
}

/* Returns 1 if |s| is TC_AUDIT_START_LEN lowercase hex digits. */
static int
is_start_id(const char *s)
{
	size_t i;

	for (i = 0; i < TC_AUDIT_START_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

/*
 * Checks that |c| is the writer member, {"pid":P,"start":"<hex>"} and
 * nothing else, and fills |l| from it.
 */
static int
writer_member(const cJSON *c, struct tc_audit_link *l, struct tc_diag *d)
{
	const cJSON *pid = c->child, *start = pid != NULL ? pid->next : NULL;
	double v;

	if (!cJSON_IsObject(c) || pid == NULL || start == NULL ||
	    start->next != NULL || strcmp(pid->string, "pid") != 0 ||
	    strcmp(start->string, "start") != 0 || !cJSON_IsNumber(pid) ||
	    !cJSON_IsString(start))
		return tc_diag(d, TC_EINVAL, "malformed chain fields: "
		    "\"writer\" is not {\"pid\":P,\"start\":\"<hex>\"}");
	v = pid->valuedouble;
	if (v < 1 || v > (double)INT_MAX || v != (double)(long long)v ||
	    !is_start_id(start->valuestring))
		return tc_diag(d, TC_EINVAL, "malformed chain fields: "
		    "\"writer\" has a pid that is not a process id, or a start "
		    "that is not %d lowercase hex digits", TC_AUDIT_START_LEN);
	l->writer_pid = (long long)v;
	memcpy(l->writer_start, start->valuestring, TC_AUDIT_START_LEN + 1);
	return 0;
}

/* Checks the chain members of the object |o| and fills |l| from them. */
static int
chain_fields(const cJSON *o, struct tc_audit_link *l, struct tc_diag *d)
{
	const cJSON *first = o->child, *last = NULL, *before = NULL, *c;
	double v;
	int rc;

	for (c = first; c != NULL; c = c->next) {
		before = last;
		last = c;
	}
	if (first == NULL || strcmp(first->string, "seq") != 0)
		return tc_diag(d, TC_EINVAL, "missing chain fields: the first "
		    "member is not \"seq\"");
	v = first->valuedouble;
	if (!cJSON_IsNumber(first) || v < 1 || v > (double)MAX_SEQ ||
	    v != (double)(unsigned long long)v)
		return tc_diag(d, TC_EINVAL, "malformed chain fields: \"seq\" "
		    "is not an integer from 1");
	l->seq = (unsigned long long)v;
	c = first->next;
	if (c == NULL || strcmp(c->string, "time") != 0 || !cJSON_IsString(c))
		return tc_diag(d, TC_EINVAL, "missing chain fields: no "
		    "\"time\" string after \"seq\"");
	if (c == before || c == last || before == NULL)
		return tc_diag(d, TC_EINVAL, "missing chain fields: no "
		    "\"prev\" and digest after \"time\"");
	if (c->next != before && strcmp(c->next->string, "writer") == 0) {
		c = c->next;
		if ((rc = writer_member(c, l, d)) != 0)
			return rc;
	}
	l->keyed = strcmp(last->string, "hmac") == 0;
	if ((rc = hex_member(last, l->keyed ? "hmac" : "hash", d)) != 0 ||
	    (rc = hex_member(before, "prev", d)) != 0)
		return rc;
	for (c = c->next; c != before; c = c->next)
		if (reserved(c->string))
			return tc_diag(d, TC_EINVAL, "malformed chain fields: "
			    "\"%s\" appears where the record's own members "
			    "are", c->string);
	memcpy(l->prev, before->valuestring, sizeof(l->prev));
	memcpy(l->digest, last->valuestring, sizeof(l->digest));
	return 0;
}

int
tc_audit_parse_line(const char *line, size_t len, struct tc_audit_link *l,
    cJSON **rec, struct tc_diag *d)
{
	char tail[TC_AUDIT_TAIL_LEN + 1];
	const char *end = NULL;
	cJSON *o;
	int rc;

	memset(l, 0, sizeof(*l));
	if (rec != NULL)
		*rec = NULL;
	if (len > TC_AUDIT_MAX_LINE)
		return tc_diag(d, TC_EBADJSON, "not a record: longer than %u "
		    "bytes", TC_AUDIT_MAX_LINE);
	o = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	if (o == NULL || end != line + len) {
		cJSON_Delete(o);
		return tc_diag(d, TC_EBADJSON, "not JSON");
	}
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return tc_diag(d, TC_EBADJSON, "not a JSON object");
	}
	if ((rc = chain_fields(o, l, d)) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	/* The digest covers the bytes before its member, so the line must
	 * end with that member exactly as the writer writes it. */
	snprintf(tail, sizeof(tail), ",\"%s\":\"%s\"}",
	    l->keyed ? "hmac" : "hash", l->digest);
	if (len < TC_AUDIT_TAIL_LEN ||
	    memcmp(line + len - TC_AUDIT_TAIL_LEN, tail,
	    TC_AUDIT_TAIL_LEN) != 0) {
		cJSON_Delete(o);
		return tc_diag(d, TC_EINVAL, "malformed chain fields: the line "
		    "does not end with %s as the writer writes it", tail);
	}
	l->signed_len = len - TC_AUDIT_TAIL_LEN;
	if (rec != NULL)
		*rec = o;
	else
		cJSON_Delete(o);
	return 0;
}

/* --- Times --- */

/* Reads exactly |n| digits at |*p| into |v| and advances; -1 if not. */
static int
fixed_digits(const char **p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return -1;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return 0;
}

/* Reads "HH:MM:SS[.frac]" into |tm| and |msec|, advancing |*p|. */
static int
clock_part(const char **p, struct tm *tm, int *msec)
{
	int scale;

	if (fixed_digits(p, 2, &tm->tm_hour) != 0 || *(*p)++ != ':' ||
	    fixed_digits(p, 2, &tm->tm_min) != 0 || *(*p)++ != ':' ||
	    fixed_digits(p, 2, &tm->tm_sec) != 0)
		return -1;
	if (tm->tm_hour > 23 || tm->tm_min > 59 || tm->tm_sec > 60)
		return -1;
	*msec = 0;
	if (**p != '.')
		return 0;
	(*p)++;
	if (**p < '0' || **p > '9')
		return -1;
	for (scale = 100; **p >= '0' && **p <= '9'; (*p)++, scale /= 10)
		*msec += (**p - '0') * scale;
	return 0;
}

/* Reads the zone, "Z" or "+HH:MM" or "-HH:MM", as seconds east of UTC. */
static int
zone_part(const char **p, long *east)
{
	int sign, h, m;

	if (**p == 'Z' || **p == 'z') {
		(*p)++;
		*east = 0;
		return 0;
	}
	if (**p != '+' && **p != '-')
		return -1;
	sign = *(*p)++ == '-' ? -1 : 1;
	if (fixed_digits(p, 2, &h) != 0 || *(*p)++ != ':' ||
	    fixed_digits(p, 2, &m) != 0 || h > 23 || m > 59)
		return -1;
	*east = sign * (h * 3600L + m * 60L);
	return 0;
}

int
tc_audit_parse_time(const char *s, long long *ms)
{
	struct tm tm, back;
	const char *p = s;
	long east = 0;
	int msec = 0;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (fixed_digits(&p, 4, &tm.tm_year) != 0 || *p++ != '-' ||
	    fixed_digits(&p, 2, &tm.tm_mon) != 0 || *p++ != '-' ||
	    fixed_digits(&p, 2, &tm.tm_mday) != 0)
		return TC_EINVAL;
	if (*p != '\0' && ((*p != 'T' && *p != 't' && *p != ' ') ||
	    (p++, clock_part(&p, &tm, &msec)) != 0 ||
	    zone_part(&p, &east) != 0 || *p != '\0'))
		return TC_EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	back = tm;
	t = timegm(&tm);
	/* timegm() normalises: a day past its month's end shows up here. */
	if (tm.tm_mday != back.tm_mday || tm.tm_mon != back.tm_mon)
		return TC_EINVAL;
	*ms = ((long long)t - east) * 1000 + msec;
	return 0;
}

/* --- The file and its lock --- */

/*
 * Formats the name of the rotated file |path|.|n| (or, when |n| is 0,
 * |path|.new) into |buf|; returns -1 if it is too long.
 */
static int
name_with(char buf[PATH_MAX], const char *path, unsigned n)
{
	int len;

	if (n == 0)
		len = snprintf(buf, PATH_MAX, "%s.new", path);
	else
		len = snprintf(buf, PATH_MAX, "%s.%u", path, n);
	return len < 0 || len >= PATH_MAX ? -1 : 0;
}

/* The hint every refusal to continue a log ends with. */
static const char *
verify_hint(const struct tc_audit *a, const char *file)
{
	static char hint[PATH_MAX + 64];

	tc_text_fmt(hint, sizeof(hint), "run 'toolcell-audit verify%s %s'",
	    a->key.bytes != NULL ? " --key KEY" : "", file);
	return hint;
}

static int	open_error(const struct tc_audit *, int, struct tc_diag *);

/*
 * Opens the log's name as the file to write (closing the one before, and
 * so releasing its lock), without following a symbolic link.  Nothing is
 * known of its contents yet.
 */
static int
open_file(struct tc_audit *a, struct tc_diag *d)
{
	struct stat sb;
	int fd;

	/* O_NONBLOCK: a FIFO in the log's place must not block the open;
	 * it changes nothing for a regular file.  O_RDWR: the last record
	 * is read through the same file that is locked. */
	fd = open(a->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
	if (fd < 0)
		return open_error(a, errno, d);
	if (fstat(fd, &sb) != 0) {
		tc_diag_errno(d, TC_ESYS, "audit log '%s'", a->path);
		close(fd);
		return TC_ESYS;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return tc_diag(d, TC_EINVAL, "audit log '%s' is not a regular "
		    "file", a->path);
	}
	if (a->fd >= 0)
		close(a->fd);
	a->fd = fd;
	a->size = -1;
	return 0;
}

/*
 * Takes the exclusive lock on the file, waiting for other writers to
 * release it until |*start| (set on the first wait; -1 before) plus
 * a->lock_wait_ms.  A writer holds it for one record (a write and an
 * fsync: milliseconds), so a longer wait means one is stuck (stopped, or
 * on a disk that does not answer), and failing the record, which refuses
 * its call, is better than hanging every server.  The lock is tried
 * again after a pause that grows to 2 ms: flock(2) has no timeout, and
 * its waiters are not served in order anyway.
 */
static int
lock_file(struct tc_audit *a, int64_t *start, struct tc_diag *d)
{
	struct timespec pause = { 0, 50000 };	/* 50 us, then doubled */

	for (;;) {
		if (flock(a->fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return tc_diag_errno(d, TC_ESYS, "cannot lock audit "
			    "log '%s'", a->path);
		if (*start < 0)
			*start = tc_now_ms();
		else if (tc_now_ms() - *start >= (int64_t)a->lock_wait_ms) {
			tc_diag(d, TC_ESYS, "audit log '%s' has been locked by "
			    "another process for %u ms, longer than a record "
			    "takes: a server writing it is stopped or stuck",
			    a->path, a->lock_wait_ms);
			if (d != NULL)
				d->sys_errno = EWOULDBLOCK;
			return TC_ESYS;
		}
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 2000000)
			pause.tv_nsec *= 2;
	}
}

static void
unlock_file(struct tc_audit *a)
{
	if (a->fd >= 0)
		flock(a->fd, LOCK_UN);
}

/*
 * A rotation cut short (by a crash) between its link() and its rename()
 * leaves the log also named path.1, with its records in both; removing
 * that name undoes the rotation, and the next one fills the gap it leaves.
 */
static int
undo_half_rotation(const struct tc_audit *a, const struct stat *sb,
    struct tc_diag *d)
{
	char one[PATH_MAX];
	struct stat osb;

	if (sb->st_nlink < 2 || name_with(one, a->path, 1) != 0 ||
	    lstat(one, &osb) != 0 || osb.st_dev != sb->st_dev ||
	    osb.st_ino != sb->st_ino)
		return 0;
	if (unlink(one) != 0)
		return tc_diag_errno(d, TC_ESYS, "audit log '%s' is also named "
		    "'%s' (a rotation was cut short), and removing that name "
		    "failed", a->path, one);
	return 0;
}

/* Writes the directory part of |path| into |dir|; returns -1 if it is
 * too long. */
static int
dir_of(const char *path, char dir[PATH_MAX])
{
	const char *slash = strrchr(path, '/');
	int len;

	if (slash == NULL)
		len = snprintf(dir, PATH_MAX, ".");
	else if (slash == path)
		len = snprintf(dir, PATH_MAX, "/");
	else
		len = snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path),
		    path);
	return len < 0 || len >= PATH_MAX ? -1 : 0;
}

/*
 * Words the failure, with |err|, to open the log (or, checking, to be
 * able to create it): a directory that does not exist is named, with how
 * to make it.
 */
static int
open_error(const struct tc_audit *a, int err, struct tc_diag *d)
{
	char dir[PATH_MAX];
	struct stat sb;

	if (err == ELOOP)
		return tc_diag(d, TC_EINVAL, "audit log '%s' is a symbolic "
		    "link: name the file itself", a->path);
	if (err == ENOENT && dir_of(a->path, dir) == 0 &&
	    stat(dir, &sb) != 0 && errno == ENOENT) {
		tc_diag(d, TC_ESYS, "cannot open audit log '%s': no directory "
		    "'%s' (make it with: mkdir -p -m 700 '%s')", a->path, dir,
		    dir);
		if (d != NULL)
			d->sys_errno = ENOENT;
		return TC_ESYS;
	}
	errno = err;
	return tc_diag_errno(d, TC_ESYS, "cannot open audit log '%s'",
	    a->path);
}

/*
 * Makes the log's directory and its missing parents, each mode 0700.
 * Checking, makes nothing, but fails as mkdir(2) would, and sets
 * |*missing| if something is to be made.
 */
static int
make_dirs(const struct tc_audit *a, int *missing, struct tc_diag *d)
{
	char dir[PATH_MAX], up[PATH_MAX], c;
	struct stat sb;
	size_t i;

	*missing = 0;
	if (dir_of(a->path, dir) != 0)
		return tc_diag(d, TC_EINVAL, "audit log '%s': name too long",
		    a->path);
	for (i = 1;; i++) {
		if (dir[i] != '/' && dir[i] != '\0')
			continue;
		c = dir[i];
		dir[i] = '\0';
		if (!a->check) {
			if (mkdir(dir, 0700) != 0 && errno != EEXIST)
				return tc_diag_errno(d, TC_ESYS, "cannot make "
				    "the audit log's directory '%s'", dir);
		} else if (stat(dir, &sb) != 0) {
			/* The first one to make: its parent must let us,
			 * and everything after it is made too. */
			if (errno == ENOENT && dir_of(dir, up) == 0 &&
			    faccessat(AT_FDCWD, up, W_OK | X_OK,
			    AT_EACCESS) == 0) {
				*missing = 1;
				return 0;
			}
			return tc_diag_errno(d, TC_ESYS, "cannot make the "
			    "audit log's directory '%s'", dir);
		}
		dir[i] = c;
		if (c == '\0')
			return 0;
	}
}

/*
 * Checking: the log does not exist; succeeds if the server could create
 * it, failing as open(2) would otherwise.
 */
static int
can_create(const struct tc_audit *a, struct tc_diag *d)
{
	char dir[PATH_MAX];

	if (dir_of(a->path, dir) != 0)
		return tc_diag(d, TC_EINVAL, "audit log '%s': name too long",
		    a->path);
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
		return open_error(a, errno, d);
	return 0;
}

/*
 * Locks the log, making sure that the file locked is the one its name
 * leads to: when another writer has rotated the log (or someone moved or
 * removed it), the name is followed to the new file, which is locked in
 * turn, all within one wait of a->lock_wait_ms.  Only a writer holding
 * the lock of the file the name leads to renames it (rotate()), so once
 * this returns, the name stays with the file until unlock_file().
 * Returns with the lock held, or an error with it released.
 */
static int
hold(struct tc_audit *a, struct tc_diag *d)
{
	struct stat sb, lsb;
	int64_t start = -1;
	int rc;

	for (;;) {
		if ((rc = lock_file(a, &start, d)) != 0)
			return rc;
		if (fstat(a->fd, &sb) != 0) {
			rc = tc_diag_errno(d, TC_ESYS, "audit log '%s'",
			    a->path);
			unlock_file(a);
			return rc;
		}
		if (lstat(a->path, &lsb) != 0) {
			if (errno != ENOENT) {
				rc = tc_diag_errno(d, TC_ESYS, "audit log "
				    "'%s'", a->path);
				unlock_file(a);
				return rc;
			}
		} else if (lsb.st_dev == sb.st_dev &&
		    lsb.st_ino == sb.st_ino) {
			if ((rc = undo_half_rotation(a, &sb, d)) != 0)
				unlock_file(a);
			return rc;
		}
		/* Renamed away or removed: the lock held is of a file no
		 * longer written; open_file() releases it. */
		if ((rc = open_file(a, d)) != 0) {
			unlock_file(a);
			return rc;
		}
		if (start < 0)
			start = tc_now_ms();
		else if (tc_now_ms() - start >= (int64_t)a->lock_wait_ms)
			return tc_diag(d, TC_EINVAL, "audit log '%s' kept "
			    "being replaced for %u ms while a record waited to "
			    "be written", a->path, a->lock_wait_ms);
	}
}

/* --- Where the chain goes on --- */

/* Reads |n| bytes of |fd| at |off| into |buf|; returns 0 or -1. */
static int
pread_all(int fd, char *buf, size_t n, off_t off)
{
	ssize_t r;

	while (n > 0) {
		r = pread(fd, buf, n, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;	/* the file shrank under us */
			return -1;
		}
		buf += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

/*
 * Reads the last |want| bytes of the |size| bytes of |fd| into |*buf|,
 * which the caller frees, and sets |*start| to the offset, within them, of
 * the last line's first byte: 0 when no newline comes before the last
 * byte.  Reads a page first, and the longest line (with the newline before
 * it) only when the last line is longer.
 */
static int
read_tail(int fd, off_t size, char **buf, size_t *want, size_t *start)
{
	size_t n, i, max = TC_AUDIT_MAX_LINE + 2;
	char *b;

	n = (unsigned long long)size > 4096 ? 4096 : (size_t)size;
	for (;;) {
		if ((b = malloc(n)) == NULL)
			return TC_ENOMEM;
		if (pread_all(fd, b, n, size - (off_t)n) != 0) {
			free(b);
			return TC_ESYS;
		}
		for (i = n - 1; i > 0 && b[i - 1] != '\n'; i--)
			continue;
		if (i > 0 || n == (size_t)size || n >= max)
			break;
		free(b);
		n = (unsigned long long)size > max ? max : (size_t)size;
	}
	*buf = b;
	*want = n;
	*start = i;
	return 0;
}

/*
 * Takes the chain's state from the last record of |file|, open as |fd|,
 * |size| bytes long: its seq and digest, once the record is found whole,
 * chained, keyed as this writer is, and matching its digest.
 */
static int
continue_from(struct tc_audit *a, int fd, off_t size, const char *file,
    struct tc_diag *d)
{
	const struct tc_audit_key *key = a->key.bytes ? &a->key : NULL;
	struct tc_audit_link l;
	struct tc_diag pd;
	const char *line;
	size_t want, i, len;
	char *buf;
	int rc;

	memcpy(a->last, ZERO_HEX, sizeof(a->last));
	a->seq = 0;
	if (size == 0)
		return 0;
	if ((rc = read_tail(fd, size, &buf, &want, &i)) == TC_ENOMEM)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	if (rc != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot read audit log '%s'",
		    file);
	if (buf[want - 1] != '\n') {
		free(buf);
		return tc_diag(d, TC_EINVAL, "audit log '%s' ends with a "
		    "partial record (no newline at its end); %s, then move the "
		    "log aside", file, verify_hint(a, file));
	}
	if (i == 0 && want < (size_t)size) {
		free(buf);
		return tc_diag(d, TC_EINVAL, "audit log '%s': its last line "
		    "is longer than %u bytes, so not a record; %s", file,
		    TC_AUDIT_MAX_LINE, verify_hint(a, file));
	}
	line = buf + i;
	len = want - 1 - i;
	if (tc_audit_parse_line(line, len, &l, NULL, &pd) != 0)
		rc = tc_diag(d, TC_EINVAL, "audit log '%s': its last line is "
		    "not a chained record (%s); %s", file, pd.msg,
		    verify_hint(a, file));
	else if (l.keyed && key == NULL)
		rc = tc_diag(d, TC_EINVAL, "audit log '%s' is keyed (its "
		    "records carry \"hmac\"), but no audit key is set", file);
	else if (!l.keyed && key != NULL)
		rc = tc_diag(d, TC_EINVAL, "audit log '%s' is a plain SHA-256 "
		    "chain, but an audit key is set: start a new log for a "
		    "keyed chain", file);
	else if (!tc_audit_line_ok(line, &l, key))
		rc = tc_diag(d, TC_EINVAL, "audit log '%s': its last record "
		    "(seq %llu) does not match its %s; %s", file, l.seq,
		    key != NULL ? "MAC with this key (altered, or another "
		    "key)" : "hash (altered)", verify_hint(a, file));
	else {
		a->seq = l.seq;
		memcpy(a->last, l.digest, sizeof(a->last));
	}
	free(buf);
	return rc;
}

/*
 * Takes the chain's state from path.1, for a log that is empty: just
 * rotated, or new (no path.1: a new chain).
 */
static int
continue_rotated(struct tc_audit *a, struct tc_diag *d)
{
	char file[PATH_MAX];
	struct stat sb;
	int fd, rc;

	memcpy(a->last, ZERO_HEX, sizeof(a->last));
	a->seq = 0;
	if (name_with(file, a->path, 1) != 0)
		return tc_diag(d, TC_EINVAL, "audit log '%s': name too long",
		    a->path);
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
	    O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 0;			/* a new chain */
	if (fd < 0)
		return tc_diag_errno(d, TC_ESYS, "cannot read audit log '%s'",
		    file);
	if (fstat(fd, &sb) != 0)
		rc = tc_diag_errno(d, TC_ESYS, "audit log '%s'", file);
	else if (!S_ISREG(sb.st_mode))
		rc = tc_diag(d, TC_EINVAL, "audit log '%s' is not a regular "
		    "file", file);
	else
		rc = continue_from(a, fd, sb.st_size, file, d);
	close(fd);
	return rc;
}

/*
 * Returns 1 if the last record of the log, |size| bytes, is still the one
 * this writer knows as the last (its own, or one it read): the size it
 * left, and the digest at the end.
 */
static int
still_last(const struct tc_audit *a, off_t size)
{
	char want[TC_AUDIT_TAIL_LEN + 2], got[TC_AUDIT_TAIL_LEN + 1];

	if (a->size < 0 || size != a->size)
		return 0;
	if (size == 0)
		return 1;
	if (size < TC_AUDIT_TAIL_LEN + 1 || pread_all(a->fd, got,
	    sizeof(got), size - (off_t)sizeof(got)) != 0)
		return 0;
	snprintf(want, sizeof(want), ",\"%s\":\"%s\"}\n",
	    a->key.bytes != NULL ? "hmac" : "hash", a->last);
	return memcmp(got, want, sizeof(got)) == 0;
}

/*
 * Reads the partial line at the end of the log (|size| bytes, the last not
 * a newline), which a writer killed in its write(2) left, or one whose
 * undo failed: under the lock no writer is in the middle of a line, so it
 * will never be finished.  Sets |*at| to where it starts, and |*torn| to
 * the "torn" record that says what it was (its length, SHA-256, and first
 * bytes as text), to be appended once it is cut off.
 */
static int
torn_line(struct tc_audit *a, off_t size, off_t *at, cJSON **torn,
    struct tc_diag *d)
{
	char hex[TC_AUDIT_HEX_LEN + 1];
	size_t want, i, n;
	struct tc_buf text;
	char *buf;
	int rc;

	*torn = NULL;
	if ((rc = read_tail(a->fd, size, &buf, &want, &i)) == TC_ENOMEM)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	if (rc != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot read audit log '%s'",
		    a->path);
	if (i == 0 && want < (size_t)size) {
		free(buf);
		return tc_diag(d, TC_EINVAL, "audit log '%s' ends with more "
		    "than %u bytes without a newline: not a record cut short; "
		    "%s", a->path, TC_AUDIT_MAX_LINE, verify_hint(a, a->path));
	}
	n = want - i;
	*at = size - (off_t)n;
	tc_audit_digest(NULL, buf + i, n, hex);
	tc_buf_init(&text, 8 * TC_AUDIT_TORN_TEXT);
	rc = tc_buf_append_shown(&text, buf + i,
	    tc_utf8_cut(buf + i, n, TC_AUDIT_TORN_TEXT), 0);
	free(buf);
	if (rc != 0 || (*torn = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(*torn, "event", "torn") == NULL ||
	    cJSON_AddNumberToObject(*torn, "bytes", (double)n) == NULL ||
	    cJSON_AddStringToObject(*torn, "sha256", hex) == NULL ||
	    cJSON_AddStringToObject(*torn, "text", text.data != NULL ?
	    text.data : "") == NULL) {
		tc_buf_release(&text);
		cJSON_Delete(*torn);
		*torn = NULL;
		return tc_diag(d, TC_ENOMEM, "out of memory");
	}
	tc_buf_release(&text);
	return 0;
}

static int	put_record(struct tc_audit *, const cJSON *, struct tc_diag *);

/*
 * With the lock held, brings the writer's state up to the log: the seq
 * and digest of its last record, read again unless it is still the one
 * this writer knows.  A partial last line is cut off once the record
 * before it is found good, and the record saying so appended.
 */
static int
catch_up(struct tc_audit *a, struct tc_diag *d)
{
	cJSON *torn = NULL;
	struct stat sb;
	off_t size, at;
	char last;
	int rc;

	if (fstat(a->fd, &sb) != 0)
		return tc_diag_errno(d, TC_ESYS, "audit log '%s'", a->path);
	size = sb.st_size;
	if (still_last(a, size))
		return 0;
	a->size = -1;
	at = size;
	if (size > 0) {
		if (pread_all(a->fd, &last, 1, size - 1) != 0)
			return tc_diag_errno(d, TC_ESYS, "cannot read audit "
			    "log '%s'", a->path);
		if (last != '\n' &&
		    (rc = torn_line(a, size, &at, &torn, d)) != 0)
			return rc;
	}
	if (at > 0)
		rc = continue_from(a, a->fd, at, a->path, d);
	else
		rc = continue_rotated(a, d);
	if (rc == 0 && at < size && ftruncate(a->fd, at) != 0)
		rc = tc_diag_errno(d, TC_ESYS, "audit log '%s' ends with a "
		    "partial record (%lld bytes without a newline, left by a "
		    "writer that stopped in its write), and cutting it off "
		    "failed; %s, then move the log aside", a->path,
		    (long long)(size - at), verify_hint(a, a->path));
	if (rc == 0)
		a->size = at;
	if (rc == 0 && torn != NULL)
		rc = put_record(a, torn, d);
	cJSON_Delete(torn);
	return rc;
}

/*
 * --check: what tc_audit_open() checks, changing nothing.  The log's
 * directory would be made (with o->make_dir) or must exist; a log that
 * does not exist must be one the server could create; one that does must
 * be a regular file it can open to read and write, whose last whole
 * record checks out (with the key, if any) as catch_up() would find it.
 * A partial last line is not an error, since a start cuts it off and
 * records it; nor is the lock another server holds, since servers share
 * the log.
 */
static int
check_log(struct tc_audit *a, struct tc_diag *d)
{
	struct stat sb;
	off_t size, at;
	cJSON *torn = NULL;
	int missing = 0, rc;
	char last;

	if (a->make_dir && (rc = make_dirs(a, &missing, d)) != 0)
		return rc;
	if (missing)
		return 0;		/* nothing there yet */
	/* As open_file() opens it, without O_CREAT: the same refusals. */
	a->fd = open(a->path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY | O_NONBLOCK);
	if (a->fd < 0 && errno == ENOENT)
		return can_create(a, d);
	if (a->fd < 0)
		return open_error(a, errno, d);
	if (fstat(a->fd, &sb) != 0)
		return tc_diag_errno(d, TC_ESYS, "audit log '%s'", a->path);
	if (!S_ISREG(sb.st_mode))
		return tc_diag(d, TC_EINVAL, "audit log '%s' is not a regular "
		    "file", a->path);
	size = at = sb.st_size;
	if (size > 0) {
		if (pread_all(a->fd, &last, 1, size - 1) != 0)
			return tc_diag_errno(d, TC_ESYS, "cannot read audit "
			    "log '%s'", a->path);
		if (last != '\n') {
			if ((rc = torn_line(a, size, &at, &torn, d)) != 0)
				return rc;
			cJSON_Delete(torn);
		}
	}
	if (at > 0)
		return continue_from(a, a->fd, at, a->path, d);
	return continue_rotated(a, d);
}

/* --- Opening --- */

/* Draws the writer's start id: random, or failing that, from the clock. */
static void
draw_start_id(char out[TC_AUDIT_START_LEN + 1])
{
	unsigned char b[TC_AUDIT_START_LEN / 2];
	char hex[TC_AUDIT_HEX_LEN + 1];
	struct {
		struct timespec	 real, mono;
		pid_t		 pid;
	} seed;

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) == (ssize_t)sizeof(b)) {
		tohex(b, sizeof(b), out);
		return;
	}
	/* Early at boot: unique is what it must be, not secret. */
	memset(&seed, 0, sizeof(seed));
	clock_gettime(CLOCK_REALTIME, &seed.real);
	clock_gettime(CLOCK_MONOTONIC, &seed.mono);
	seed.pid = getpid();
	tc_audit_digest(NULL, &seed, sizeof(seed), hex);
	memcpy(out, hex, TC_AUDIT_START_LEN);
	out[TC_AUDIT_START_LEN] = '\0';
}

int
tc_audit_open(struct tc_audit **out, const struct tc_audit_opts *o,
    struct tc_diag *d)
{
	struct tc_audit *a;
	int missing = 0, rc = 0;

	*out = NULL;
	if (o->path == NULL || o->path[0] == '\0')
		return tc_diag(d, TC_EINVAL, "no audit log given");
	if (o->sync != TC_AUDIT_SYNC_EVERY && o->sync != TC_AUDIT_SYNC_NONE)
		return tc_diag(d, TC_EINVAL, "audit sync %d is not one of "
		    "TC_AUDIT_SYNC_*", o->sync);
	if (strlen(o->path) + sizeof(".100000") > PATH_MAX)
		return tc_diag(d, TC_EINVAL, "audit log '%s': name too long",
		    o->path);
	if (o->pid < 0 || o->pid > INT_MAX ||
	    (o->start_id != NULL && !is_start_id(o->start_id)))
		return tc_diag(d, TC_EINVAL, "audit writer: a pid from 1 and a "
		    "start id of %d lowercase hex digits", TC_AUDIT_START_LEN);
	if ((a = calloc(1, sizeof(*a))) == NULL ||
	    (a->path = strdup(o->path)) == NULL) {
		free(a);
		return tc_diag(d, TC_ENOMEM, "out of memory");
	}
	a->fd = -1;
	a->size = -1;
	a->sync = o->sync;
	a->rotate_bytes = o->rotate_bytes;
	a->keep = o->keep;
	a->now = o->now;
	a->lock_wait_ms = o->lock_wait_ms > 0 ? o->lock_wait_ms :
	    TC_AUDIT_LOCK_WAIT_MS;
	a->pid = o->pid > 0 ? o->pid : (long)getpid();
	if (o->start_id != NULL)
		memcpy(a->start, o->start_id, sizeof(a->start));
	else
		draw_start_id(a->start);
	a->make_dir = o->make_dir;
	a->check = o->check;
	if (o->key_file != NULL &&
	    (rc = tc_audit_key_load(&a->key, o->key_file, d)) != 0)
		goto out;
	if (a->check) {
		rc = check_log(a, d);
		goto out;
	}
	if ((!a->make_dir || (rc = make_dirs(a, &missing, d)) == 0) &&
	    (rc = open_file(a, d)) == 0 && (rc = hold(a, d)) == 0) {
		rc = catch_up(a, d);
		unlock_file(a);
	}
	if (rc == 0) {
		*out = a;
		return 0;
	}
out:
	tc_audit_close(a);
	return rc;
}

void
tc_audit_close(struct tc_audit *a)
{
	if (a == NULL)
		return;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	tc_audit_key_release(&a->key);
	free(a->path);
	free(a);
}

/* --- Rotation --- */

/*
 * Moves path.N+1 back to path.N for N from |lo| to |hi|, undoing a shift()
 * that moved those: lowest first, as path.|lo| is free.  Stops at the
 * first that fails (going on would leave a gap lower down).
 */
static void
unshift(const struct tc_audit *a, unsigned lo, unsigned hi)
{
	char from[PATH_MAX], to[PATH_MAX];
	unsigned i;

	for (i = lo; i >= 1 && i <= hi; i++) {
		name_with(from, a->path, i + 1);
		name_with(to, a->path, i);
		if (rename(from, to) != 0) {
			tc_warn("audit log '%s': cannot undo a rotation cut "
			    "short: renaming '%s' back to '%s': %s", a->path,
			    from, to, strerror(errno));
			return;
		}
	}
}

/*
 * Moves path.N to path.N+1 for every rotated file, from the oldest, and
 * removes those that would pass |keep|, so that path.1 is free.  Rotated
 * files are numbered without gaps: the first missing N ends the list.
 * Sets *|lo| and *|hi| to the lowest and highest N moved (0 and 0 if
 * none), for unshift().  A failure undoes what it moved (what it removed
 * stays removed: the oldest, which would be gone after the rotation).
 */
static int
shift(const struct tc_audit *a, unsigned *lo, unsigned *hi,
    struct tc_diag *d)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct stat sb;
	unsigned n, i;
	int rc;

	*lo = *hi = 0;
	for (n = 0; n < ROTATED_MAX; n++) {
		name_with(from, a->path, n + 1);
		if (lstat(from, &sb) != 0 && errno == ENOENT)
			break;
	}
	if (n == ROTATED_MAX && (a->keep == 0 || a->keep >= ROTATED_MAX))
		return tc_diag(d, TC_EINVAL, "audit log '%s': %u rotated "
		    "files already: remove old ones, or keep fewer", a->path,
		    ROTATED_MAX);
	for (i = n; i >= 1; i--) {
		name_with(from, a->path, i);
		name_with(to, a->path, i + 1);
		if (a->keep > 0 && i >= a->keep) {
			if (unlink(from) != 0 && errno != ENOENT)
				return tc_diag_errno(d, TC_ESYS, "cannot "
				    "rotate audit log: removing '%s'", from);
		} else if (rename(from, to) != 0) {
			rc = tc_diag_errno(d, TC_ESYS, "cannot rotate audit "
			    "log: renaming '%s' to '%s'", from, to);
			unshift(a, *lo, *hi);
			*lo = *hi = 0;
			return rc;
		} else {
			if (*hi == 0)
				*hi = i;
			*lo = i;
		}
	}
	return 0;
}

/* Syncs the directory holding the log, so that renames in it last. */
static int
sync_dir(const struct tc_audit *a, struct tc_diag *d)
{
	char dir[PATH_MAX], *slash;
	int fd, rc = 0;

	snprintf(dir, sizeof(dir), "%s", a->path);
	if ((slash = strrchr(dir, '/')) == NULL)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0)
		rc = tc_diag_errno(d, TC_ESYS, "cannot sync directory '%s' "
		    "after rotating the audit log", dir);
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * Rotates the log, holding its lock: a new file is made and locked as
 * path.new, the rotated files are shifted, the log is linked as path.1,
 * and path.new renamed over the log.  The log's name thus always leads to
 * a file, and that file is locked until this writer is done: another
 * writer waiting for the old file's lock finds, once it has it, that the
 * name leads elsewhere, and follows it (hold()).  A failure at any step
 * leaves the log as it was, its rotated files moved back (unshift()), so
 * that no gap hides the older ones from the readers.  The chain goes on in
 * the new file.
 */
static int
rotate(struct tc_audit *a, struct tc_diag *d)
{
	char tmp[PATH_MAX], one[PATH_MAX];
	unsigned lo, hi;
	int fd, rc;

	name_with(tmp, a->path, 0);
	name_with(one, a->path, 1);
	/* A path.new left by a rotation cut short holds no record: records
	 * are only ever written to the log itself. */
	if (unlink(tmp) != 0 && errno != ENOENT)
		return tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "removing '%s'", tmp);
	fd = open(tmp, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0)
		return tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "creating '%s'", tmp);
	if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		rc = tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "locking '%s'", tmp);
	else if ((rc = shift(a, &lo, &hi, d)) != 0)
		;
	else if (link(a->path, one) != 0) {
		rc = tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "linking '%s' as '%s'", a->path, one);
		unshift(a, lo, hi);
	} else if (rename(tmp, a->path) != 0) {
		rc = tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "renaming '%s' to '%s'", tmp, a->path);
		unlink(one);
		unshift(a, lo, hi);
	}
	if (rc != 0) {
		unlink(tmp);
		close(fd);
		return rc;
	}
	/* Releases the old file's lock: its waiters follow the name. */
	close(a->fd);
	a->fd = fd;
	a->size = 0;
	return a->sync == TC_AUDIT_SYNC_EVERY ? sync_dir(a, d) : 0;
}

/* Returns 1 if the log has grown to its rotation size. */
static int
rotation_due(const struct tc_audit *a)
{
	return a->rotate_bytes > 0 && a->size >= 0 &&
	    (unsigned long long)a->size >= a->rotate_bytes;
}

/* --- Appending --- */

/* Writes the current time as RFC 3339 UTC with milliseconds. */
static void
timestamp(const struct tc_audit *a, char out[32])
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	if (a->now != NULL)
		a->now(&ts);
	else
		clock_gettime(CLOCK_REALTIME, &ts);
	memset(&tm, 0, sizeof(tm));
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%03ldZ", (long)(ts.tv_nsec / 1000000));
}

/*
 * Makes the object {"seq":..,"time":..,"writer":..,<members of rec>,
 * "prev":..} into |o|, which the caller deletes.
 */
static int
chained_object(const struct tc_audit *a, const cJSON *rec, cJSON **o,
    struct tc_diag *d)
{
	cJSON *copy, *c, *w;
	char t[32];

	if (!cJSON_IsObject(rec))
		return tc_diag(d, TC_EINVAL, "audit record is not a JSON "
		    "object");
	for (c = rec->child; c != NULL; c = c->next)
		if (reserved(c->string))
			return tc_diag(d, TC_EINVAL, "audit record has a "
			    "member \"%s\", which the chain adds itself",
			    c->string);
	if (a->seq >= MAX_SEQ)
		return tc_diag(d, TC_EINVAL, "audit log '%s': seq %llu is the "
		    "last one a record can have", a->path, a->seq);
	timestamp(a, t);
	*o = cJSON_CreateObject();
	copy = cJSON_Duplicate(rec, 1);
	if (*o == NULL || copy == NULL ||
	    cJSON_AddNumberToObject(*o, "seq", (double)(a->seq + 1)) == NULL ||
	    cJSON_AddStringToObject(*o, "time", t) == NULL ||
	    (w = cJSON_AddObjectToObject(*o, "writer")) == NULL ||
	    cJSON_AddNumberToObject(w, "pid", (double)a->pid) == NULL ||
	    cJSON_AddStringToObject(w, "start", a->start) == NULL)
		goto nomem;
	while ((c = copy->child) != NULL) {
		cJSON_DetachItemViaPointer(copy, c);
		if (!cJSON_AddItemToObject(*o, c->string, c)) {
			cJSON_Delete(c);
			goto nomem;
		}
	}
	cJSON_Delete(copy);
	if (cJSON_AddStringToObject(*o, "prev", a->last) == NULL)
		goto nomem;
	return 0;
nomem:
	cJSON_Delete(copy);
	cJSON_Delete(*o);
	*o = NULL;
	return tc_diag(d, TC_ENOMEM, "out of memory");
}

/*
 * Formats |rec| as the next line of the log into |line|, and its digest
 * into |digest|.
 */
static int
format_line(const struct tc_audit *a, const cJSON *rec, struct tc_buf *line,
    char digest[TC_AUDIT_HEX_LEN + 1], struct tc_diag *d)
{
	cJSON *o;
	char *s;
	size_t n;
	int rc;

	if ((rc = chained_object(a, rec, &o, d)) != 0)
		return rc;
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (s == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	/* Everything before the closing brace is signed. */
	n = strlen(s) - 1;
	tc_audit_digest(a->key.bytes ? &a->key : NULL, s, n, digest);
	if (n + TC_AUDIT_TAIL_LEN > TC_AUDIT_MAX_LINE)
		rc = tc_diag(d, TC_ETOOBIG, "audit record of %zu bytes is "
		    "longer than a log line may be (%u)",
		    n + TC_AUDIT_TAIL_LEN, TC_AUDIT_MAX_LINE);
	else if ((rc = tc_buf_append(line, s, n)) == 0)
		rc = tc_buf_printf(line, ",\"%s\":\"%s\"}\n",
		    a->key.bytes ? "hmac" : "hash", digest);
	if (rc == TC_ENOMEM || rc == TC_ETOOBIG)
		tc_diag(d, rc, "%s", rc == TC_ENOMEM ? "out of memory" :
		    "audit record too long");
	cJSON_free(s);
	return rc;
}

/*
 * After a failed or short write, or a failed fsync, cuts the log back to
 * |size| bytes, its size before, and reports what happened.  If that
 * fails too, the partial record stays until the next append, by any
 * writer, cuts it off as a torn line (catch_up()).
 */
static int
undo(struct tc_audit *a, off_t size, ssize_t w, size_t n, int err,
    struct tc_diag *d)
{
	char what[128];

	if (w < 0)
		tc_text_fmt(what, sizeof(what), "write failed: %s",
		    strerror(err));
	else if ((size_t)w < n)
		tc_text_fmt(what, sizeof(what),
		    "short write (%zd of %zu bytes)",
		    w, n);
	else
		tc_text_fmt(what, sizeof(what), "fsync failed: %s",
		    strerror(err));
	a->size = -1;
	if (ftruncate(a->fd, size) != 0)
		return tc_diag_errno(d, TC_ESYS, "audit log '%s': %s, and "
		    "cutting it back to %lld bytes failed, so it ends with a "
		    "partial record", a->path, what, (long long)size);
	tc_diag(d, TC_ESYS, "audit log '%s': %s; the record was undone",
	    a->path, what);
	if (d != NULL)
		d->sys_errno = err;
	return TC_ESYS;
}

/* Writes the line |p| of |n| bytes with one write(2), and syncs it. */
static int
write_line(struct tc_audit *a, const char *p, size_t n, struct tc_diag *d)
{
	struct stat sb;
	ssize_t w;

	if (fstat(a->fd, &sb) != 0)
		return tc_diag_errno(d, TC_ESYS, "audit log '%s'", a->path);
	errno = 0;
	do
		w = write(a->fd, p, n);
	while (w < 0 && errno == EINTR);
	if (w == (ssize_t)n &&
	    (a->sync != TC_AUDIT_SYNC_EVERY || fsync(a->fd) == 0)) {
		a->size = sb.st_size + (off_t)n;
		return 0;
	}
	return undo(a, sb.st_size, w, n, errno, d);
}

/* Appends |rec| after the last record, the lock held and caught up. */
static int
put_record(struct tc_audit *a, const cJSON *rec, struct tc_diag *d)
{
	char digest[TC_AUDIT_HEX_LEN + 1];
	struct tc_buf line;
	int rc;

	tc_buf_init(&line, TC_AUDIT_MAX_LINE + 1);
	if ((rc = format_line(a, rec, &line, digest, d)) == 0 &&
	    (rc = write_line(a, line.data, line.len, d)) == 0) {
		a->seq++;
		memcpy(a->last, digest, sizeof(a->last));
	}
	tc_buf_release(&line);
	return rc;
}

int
tc_audit_append(struct tc_audit *a, const cJSON *rec, struct tc_diag *d)
{
	int rc;

	if (a->fd < 0)
		return tc_diag(d, TC_EINVAL, "audit log '%s' is not open",
		    a->path);
	if ((rc = hold(a, d)) != 0)
		return rc;
	/* A rotation that failed after the last record is retried first. */
	if ((rc = catch_up(a, d)) == 0 &&
	    (!rotation_due(a) || (rc = rotate(a, d)) == 0) &&
	    (rc = put_record(a, rec, d)) == 0 && rotation_due(a))
		(void)rotate(a, NULL);	/* the record stands: see audit.h */
	unlock_file(a);
	return rc;
}
