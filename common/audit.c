/*
 * audit.c: the audit log writer (open, append, rotate), the chain's
 * digests, key files, and the reading of one log line, which both the
 * writer (to continue a log) and toolcell-audit (to verify one) use.  The
 * format and what it shows are described in audit.h; the arguments of a
 * call are made fit for the log in audit-args.c.
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <nettle/version.h>

#include "audit.h"
#include "buf.h"
#include "text.h"

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

struct tc_audit {
	int		 fd;		/* the log, locked; -1 when closed */
	char		*path;
	struct tc_audit_key key;	/* bytes NULL: a SHA-256 chain */
	int		 sync;		/* enum tc_audit_sync */
	unsigned long long rotate_bytes;
	unsigned	 keep;
	void		(*now)(struct timespec *);
	unsigned long long seq;		/* of the last record; 0: none yet */
	char		 last[TC_AUDIT_HEX_LEN + 1];	/* its digest */
	off_t		 size;		/* of the file being written */
	int		 broken;	/* an undo failed: nothing more */
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
	    strcmp(name, "prev") == 0 || strcmp(name, "hash") == 0 ||
	    strcmp(name, "hmac") == 0;
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

/* --- Opening --- */

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
 * Opens and locks the log.  A rotation by another writer between our
 * open() and our flock() would leave us holding a file that is no longer
 * the log, so the name is checked to still lead to the file locked.
 * Checking, the log is opened only if it exists, and nothing is changed.
 */
static int
open_log(struct tc_audit *a, struct tc_diag *d)
{
	struct stat sb, lsb;
	int missing = 0, rc;

	if (a->make_dir && (rc = make_dirs(a, &missing, d)) != 0)
		return rc;
	if (missing)
		return 0;		/* checking: nothing there yet */
	/* O_NONBLOCK: a FIFO in the log's place must not block the open;
	 * it changes nothing for a regular file. */
	a->fd = open(a->path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY | O_NONBLOCK | (a->check ? 0 : O_CREAT), 0600);
	if (a->fd < 0 && a->check && errno == ENOENT)
		return can_create(a, d);
	if (a->fd < 0)
		return open_error(a, errno, d);
	if (fstat(a->fd, &sb) != 0)
		return tc_diag_errno(d, TC_ESYS, "audit log '%s'", a->path);
	if (!S_ISREG(sb.st_mode))
		return tc_diag(d, TC_EINVAL, "audit log '%s' is not a regular "
		    "file", a->path);
	if (flock(a->fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK)
			return tc_diag_errno(d, TC_ESYS, "cannot lock audit "
			    "log '%s'", a->path);
		tc_diag(d, TC_ESYS, "audit log '%s' is in use by another "
		    "process, which holds its lock: give each server a log "
		    "of its own", a->path);
		if (d != NULL)
			d->sys_errno = EWOULDBLOCK;
		return TC_ESYS;
	}
	if (lstat(a->path, &lsb) != 0 || lsb.st_dev != sb.st_dev ||
	    lsb.st_ino != sb.st_ino)
		return tc_diag(d, TC_EINVAL, "audit log '%s' was replaced "
		    "while it was being opened (rotated by another process?)",
		    a->path);
	a->size = sb.st_size;
	return a->check ? 0 : undo_half_rotation(a, &sb, d);
}

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
 * Reads the last line of the |size| bytes of |fd| (the file |file|) into
 * |buf|, which the caller frees, and sets |line| and |len| to it, without
 * its newline.
 */
static int
last_line(const struct tc_audit *a, int fd, off_t size, const char *file,
    char **buf, const char **line, size_t *len, struct tc_diag *d)
{
	size_t want, i;
	char *b;

	*buf = NULL;
	/* The longest line, its newline, and the newline before it. */
	want = (unsigned long long)size > TC_AUDIT_MAX_LINE + 2ULL ?
	    TC_AUDIT_MAX_LINE + 2 : (size_t)size;
	if ((b = malloc(want)) == NULL)
		return tc_diag(d, TC_ENOMEM, "out of memory");
	if (pread_all(fd, b, want, size - (off_t)want) != 0) {
		free(b);
		return tc_diag_errno(d, TC_ESYS, "cannot read audit log '%s'",
		    file);
	}
	if (b[want - 1] != '\n') {
		free(b);
		return tc_diag(d, TC_EINVAL, "audit log '%s' ends with a "
		    "partial record (no newline at its end); %s, then move the "
		    "log aside", file, verify_hint(a, file));
	}
	for (i = want - 1; i > 0 && b[i - 1] != '\n'; i--)
		continue;
	if (i == 0 && want < (size_t)size) {
		free(b);
		return tc_diag(d, TC_EINVAL, "audit log '%s': its last line "
		    "is longer than %u bytes, so not a record; %s", file,
		    TC_AUDIT_MAX_LINE, verify_hint(a, file));
	}
	*buf = b;
	*line = b + i;
	*len = want - 1 - i;
	return 0;
}

/*
 * Takes the chain's state from the last record of |file|, open as |fd|
 * with |sb|: its seq and digest, once the record is found whole, chained,
 * keyed as this writer is, and matching its digest.
 */
static int
continue_from(struct tc_audit *a, int fd, const struct stat *sb,
    const char *file, struct tc_diag *d)
{
	const struct tc_audit_key *key = a->key.bytes ? &a->key : NULL;
	struct tc_audit_link l;
	struct tc_diag pd;
	const char *line;
	char *buf;
	size_t len;
	int rc;

	if (sb->st_size == 0)
		return 0;
	if ((rc = last_line(a, fd, sb->st_size, file, &buf, &line, &len,
	    d)) != 0)
		return rc;
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
 * Finds where the chain goes on: the log's own last record or, when the
 * log is empty (as it is just after a rotation), that of path.1.
 */
static int
resume(struct tc_audit *a, struct tc_diag *d)
{
	char file[PATH_MAX];
	struct stat sb, own;
	int fd, rc;

	memcpy(a->last, ZERO_HEX, sizeof(a->last));
	a->seq = 0;
	if (a->size > 0)
		snprintf(file, sizeof(file), "%s", a->path);
	else if (name_with(file, a->path, 1) != 0)
		return tc_diag(d, TC_EINVAL, "audit log '%s': name too long",
		    a->path);
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
	    O_NONBLOCK);
	if (fd < 0 && a->size == 0 && errno == ENOENT)
		return 0;			/* a new chain */
	if (fd < 0)
		return tc_diag_errno(d, TC_ESYS, "cannot read audit log '%s'",
		    file);
	if (fstat(fd, &sb) != 0 || (a->fd >= 0 && fstat(a->fd, &own) != 0)) {
		rc = tc_diag_errno(d, TC_ESYS, "audit log '%s'", file);
		close(fd);
		return rc;
	}
	if (!S_ISREG(sb.st_mode) || (a->size > 0 &&
	    (sb.st_dev != own.st_dev || sb.st_ino != own.st_ino)))
		rc = tc_diag(d, TC_EINVAL, "audit log '%s' was replaced while "
		    "it was being opened", file);
	else
		rc = continue_from(a, fd, &sb, file, d);
	close(fd);
	return rc;
}

int
tc_audit_open(struct tc_audit **out, const struct tc_audit_opts *o,
    struct tc_diag *d)
{
	struct tc_audit *a;
	int rc = 0;

	*out = NULL;
	if (o->path == NULL || o->path[0] == '\0')
		return tc_diag(d, TC_EINVAL, "no audit log given");
	if (o->sync != TC_AUDIT_SYNC_EVERY && o->sync != TC_AUDIT_SYNC_NONE)
		return tc_diag(d, TC_EINVAL, "audit sync %d is not one of "
		    "TC_AUDIT_SYNC_*", o->sync);
	if (strlen(o->path) + sizeof(".100000") > PATH_MAX)
		return tc_diag(d, TC_EINVAL, "audit log '%s': name too long",
		    o->path);
	if ((a = calloc(1, sizeof(*a))) == NULL ||
	    (a->path = strdup(o->path)) == NULL) {
		free(a);
		return tc_diag(d, TC_ENOMEM, "out of memory");
	}
	a->fd = -1;
	a->sync = o->sync;
	a->rotate_bytes = o->rotate_bytes;
	a->keep = o->keep;
	a->now = o->now;
	a->make_dir = o->make_dir;
	a->check = o->check;
	if ((o->key_file == NULL ||
	    (rc = tc_audit_key_load(&a->key, o->key_file, d)) == 0) &&
	    (rc = open_log(a, d)) == 0 && (rc = resume(a, d)) == 0 &&
	    !a->check) {
		*out = a;
		return 0;
	}
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
 * Moves path.N to path.N+1 for every rotated file, from the oldest, and
 * removes those that would pass |keep|, so that path.1 is free.  Rotated
 * files are numbered without gaps: the first missing N ends the list.
 */
static int
shift(const struct tc_audit *a, struct tc_diag *d)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct stat sb;
	unsigned n, i;

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
		} else if (rename(from, to) != 0)
			return tc_diag_errno(d, TC_ESYS, "cannot rotate "
			    "audit log: renaming '%s' to '%s'", from, to);
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
 * Rotates the log: a new file is made and locked as path.new, the rotated
 * files are shifted, the log is linked as path.1, and path.new renamed
 * over the log.  The log's name thus always leads to a file (another
 * server starting meanwhile finds it locked), and a failure at any step
 * leaves the log as it was.  The chain goes on in the new file.
 */
static int
rotate(struct tc_audit *a, struct tc_diag *d)
{
	char tmp[PATH_MAX], one[PATH_MAX];
	int fd, rc;

	name_with(tmp, a->path, 0);
	name_with(one, a->path, 1);
	/* A path.new left by a rotation cut short holds no record: records
	 * are only ever written to the log itself. */
	if (unlink(tmp) != 0 && errno != ENOENT)
		return tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "removing '%s'", tmp);
	fd = open(tmp, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0)
		return tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "creating '%s'", tmp);
	if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		rc = tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "locking '%s'", tmp);
	else if ((rc = shift(a, d)) != 0)
		;
	else if (link(a->path, one) != 0)
		rc = tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "linking '%s' as '%s'", a->path, one);
	else if (rename(tmp, a->path) != 0) {
		rc = tc_diag_errno(d, TC_ESYS, "cannot rotate audit log: "
		    "renaming '%s' to '%s'", tmp, a->path);
		unlink(one);
	}
	if (rc != 0) {
		unlink(tmp);
		close(fd);
		return rc;
	}
	close(a->fd);
	a->fd = fd;
	a->size = 0;
	return a->sync == TC_AUDIT_SYNC_EVERY ? sync_dir(a, d) : 0;
}

/* Returns 1 if the log has grown to its rotation size. */
static int
rotation_due(const struct tc_audit *a)
{
	return a->rotate_bytes > 0 &&
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
 * Makes the object {"seq":..,"time":..,<members of rec>,"prev":..} into
 * |o|, which the caller deletes.
 */
static int
chained_object(const struct tc_audit *a, const cJSON *rec, cJSON **o,
    struct tc_diag *d)
{
	cJSON *copy, *c;
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
	    cJSON_AddStringToObject(*o, "time", t) == NULL)
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
 * |size| bytes, its size before, and reports what happened.
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
	if (ftruncate(a->fd, size) != 0) {
		a->broken = 1;
		return tc_diag_errno(d, TC_ESYS, "audit log '%s': %s, and "
		    "cutting it back to %lld bytes failed, so it ends with a "
		    "partial record", a->path, what, (long long)size);
	}
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

int
tc_audit_append(struct tc_audit *a, const cJSON *rec, struct tc_diag *d)
{
	char digest[TC_AUDIT_HEX_LEN + 1];
	struct tc_buf line;
	int rc;

	if (a->broken)
		return tc_diag(d, TC_EINVAL, "audit log '%s' ends with a "
		    "partial record that could not be removed: nothing more is "
		    "written to it", a->path);
	/* A rotation that failed after the last record is retried first. */
	if (rotation_due(a) && (rc = rotate(a, d)) != 0)
		return rc;
	tc_buf_init(&line, TC_AUDIT_MAX_LINE + 1);
	if ((rc = format_line(a, rec, &line, digest, d)) == 0 &&
	    (rc = write_line(a, line.data, line.len, d)) == 0) {
		a->seq++;
		memcpy(a->last, digest, sizeof(a->last));
		/* The record stands whether or not this works; see audit.h. */
		if (rotation_due(a))
			(void)rotate(a, NULL);
	}
	tc_buf_release(&line);
	return rc;
}
