/*
 * audit.h: the audit log, a tamper-evident record of what a server did.
 *
 * The log is JSON Lines: one object a line, each written by a single
 * write(2) to a file opened O_APPEND.  Several servers may write one log:
 * each takes an exclusive flock(2) on it for the time of one record, and
 * under it chains the record to the last one in the file, whoever wrote
 * that.  The writer adds the chain fields around each record's own
 * members:
 *
 *	{"seq":N,"time":"2026-11-23T10:00:00.123Z",
 *	 "writer":{"pid":P,"start":"<16 hex>"},<members>,
 *	 "prev":"<64 hex>","hash":"<64 hex>"}
 *
 * seq counts records from 1 and never restarts (not across rotation
 * either); time is UTC with milliseconds; writer names the server that
 * wrote the record, by its process id and an id it drew at random when it
 * opened the log (pids are reused; the pair is not); prev is the digest of
 * the record before (64 zeros for the first record of a log); hash is
 * SHA-256 of the exact bytes of the line before ',"hash":', so prev, seq
 * and writer are covered.  With a key, the last member is "hmac",
 * HMAC-SHA-256 with the key over the same bytes.  The line ends with that
 * member and '}' (no blanks), then '\n': the last TC_AUDIT_TAIL_LEN bytes
 * of a line are its digest.  Logs written before "writer" existed have
 * none, and are read as they are.
 *
 * What verification (toolcell-audit verify) detects from the files alone:
 * an altered record (its digest no longer matches), a removed one (a seq
 * gap, or a prev that is not the digest before it), reordered and inserted
 * ones (seq not one more than the record before, or a prev that skips a
 * record), a partial last line.  It cannot detect a cut tail of whole
 * records, nor, without a key, a log rewritten from some record on with
 * freshly computed digests: a plain SHA-256 chain shows accidents and
 * careless edits, an HMAC chain shows forgery by anyone without the key.
 *
 * Returns (audit/): 0 or a negative TC_E* code, with a struct tc_diag
 * saying why where a person reads it; a check returns 1 or 0.
 */
#ifndef TC_AUDIT_H
#define TC_AUDIT_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "policy/policy.h"		/* enum tc_audit_sync */

#define TC_AUDIT_DIGEST_LEN	32		/* SHA-256, HMAC-SHA-256 */
#define TC_AUDIT_HEX_LEN	64
#define TC_AUDIT_TAIL_LEN	75		/* ,"hash":"<64 hex>"} */
#define TC_AUDIT_KEY_MIN	16		/* bytes of key, at least */
#define TC_AUDIT_KEY_MAX	4096		/* and at most */
#define TC_AUDIT_MAX_LINE	(1u << 20)	/* bytes in a line, less '\n' */
#define TC_AUDIT_ARGS_MAX	(256u << 10)	/* tc_audit_args() result */
#define TC_AUDIT_STRING_MAX	256		/* longer contents: digested */
#define TC_AUDIT_DEPTH_MAX	16		/* nesting kept in arguments */
#define TC_AUDIT_VALUE_MAX	4096		/* bytes of a string kept */
#define TC_AUDIT_VALUE_MIN	256		/* ... when the line is full */
#define TC_AUDIT_ITEMS_MIN	64		/* items of an array, then */
#define TC_AUDIT_START_LEN	16		/* hex digits of a start id */
#define TC_AUDIT_LOCK_WAIT_MS	10000		/* for another writer, most */
#define TC_AUDIT_TORN_TEXT	256		/* bytes of a torn line kept */

struct tc_audit;
struct tc_arg;

struct tc_audit_opts {
	const char	*path;		/* the log, JSON Lines */
	const char	*key_file;	/* NULL: SHA-256 chain; else HMAC */
	int		 sync;		/* enum tc_audit_sync */
	unsigned long long rotate_bytes;	/* 0: never rotate */
	unsigned	 keep;		/* rotated files kept; 0: all */
	/* Where the time of a record comes from; NULL: CLOCK_REALTIME.
	 * Tests set it to write logs with known times. */
	void		(*now)(struct timespec *ts);
	/* Who the records say wrote them; 0 and NULL: this process's pid
	 * and a start id drawn at random.  Tests set them. */
	long		 pid;
	const char	*start_id;	/* TC_AUDIT_START_LEN lowercase hex */
	/* How long an append waits for another writer's lock; 0:
	 * TC_AUDIT_LOCK_WAIT_MS. */
	unsigned	 lock_wait_ms;
	/* Make the log's directory, and its missing parents, mode 0700,
	 * when it does not exist (the server sets it for a log at the XDG
	 * place); otherwise a missing directory is an error naming it. */
	int		 make_dir;
	/* Check only (--check): everything an open checks, but create,
	 * write and remove nothing, and keep no lock. */
	int		 check;
};

/* An HMAC key, as read from a key file. */
struct tc_audit_key {
	unsigned char	*bytes;
	size_t		 len;
};

/* What a line's chain fields say. */
struct tc_audit_link {
	unsigned long long seq;
	int		 keyed;		/* carries "hmac", not "hash" */
	char		 prev[TC_AUDIT_HEX_LEN + 1];
	char		 digest[TC_AUDIT_HEX_LEN + 1];	/* as written */
	size_t		 signed_len;	/* the bytes the digest covers */
	long long	 writer_pid;	/* "writer": its pid; 0: no writer */
	char		 writer_start[TC_AUDIT_START_LEN + 1];	/* or "" */
};

/*
 * Opens the log o->path for appending, creating it (mode 0600) if need be:
 * O_RDWR|O_APPEND|O_CREAT|O_CLOEXEC|O_NOFOLLOW.  Other processes may have
 * it open and write to it meanwhile (see tc_audit_append()).  Under the
 * log's lock, it checks where the chain goes on: the last record of the
 * log (when the log is empty and o->path.1 exists, that file's last
 * record, as after a rotation).  A last line that is not a chained record,
 * or does not match its digest (or is keyed differently), is refused, with
 * a message saying to run toolcell-audit verify: the writer never extends
 * a log it cannot continue.  A last line without its newline, the part of
 * a record that a writer killed in its write(2) left, is cut off, and a
 * "torn" record says what was cut (its length, SHA-256 and first bytes);
 * one longer than a record can be is refused.  Only the last record is
 * checked, not the whole log.
 *
 * With o->key_file, the key is its bytes with one trailing newline removed,
 * at least TC_AUDIT_KEY_MIN of them; the file must be a regular file owned
 * by root or the effective user, neither readable nor writable by group or
 * others.  Every writer of a log must use the same key (or none): another
 * key does not match the last record's MAC, and is refused.
 *
 * A log whose directory does not exist is refused with a message naming
 * the directory, unless o->make_dir asks to make it.  With o->check, the
 * same checks are made, in the same order and with the same messages, and
 * nothing is changed: a missing log is not created (its directory must let
 * the effective user create it, or be missing with o->make_dir), no
 * directory is made, a rotation cut short is not undone, and the lock is
 * taken and let go at once (a log in use is refused as at start).
 *
 * Returns 0 and sets |out| to a writer for tc_audit_close() (NULL with
 * o->check); or TC_EINVAL (bad options, insecure key, log that cannot be
 * continued), TC_ESYS (open, lock, read; |d| has errno) or TC_ENOMEM, with
 * |d| saying why and |out| NULL.  Does not keep |o| or its strings.
 */
int	tc_audit_open(struct tc_audit **out, const struct tc_audit_opts *o,
	    struct tc_diag *d);

/*
 * Appends |rec|, an object with the event's own members (none of them
 * named seq, time, writer, prev, hash or hmac), as one line with one
 * write(2), and fsync(2)s it under TC_AUDIT_SYNC_EVERY.  All of it is done
 * holding an exclusive flock(2) on the log, waited for at most
 * o->lock_wait_ms: the writer first follows the log's name to a new file
 * if another writer has rotated it, then chains to the last record in the
 * file, reading it again (and checking it as tc_audit_open() does, torn
 * lines included) when another writer has appended since.  The fsync
 * happens under the lock, so that the log on disk is always a whole
 * chain, never a record whose predecessor is not there yet.
 *
 * A short or failed write, or a failed fsync, is undone with ftruncate(2)
 * to the size before, so the log never keeps half a record, and the
 * record's seq is not used up.  Whoever lowers RLIMIT_FSIZE in the calling
 * process must ignore SIGXFSZ, so that an oversized write fails instead of
 * killing it.
 *
 * When the log has reached o->rotate_bytes after the record, it is rotated,
 * still under the lock: path.N becomes path.N+1 (beyond o->keep, removed),
 * path becomes path.1, and a new path continues the same chain.  If that
 * fails, the record stands and 0 is returned; the rotation is tried again
 * before the next record (whichever writer writes it), which fails if it
 * fails again.
 *
 * Returns 0; TC_EINVAL (|rec| not an object, a reserved member, a log that
 * cannot be continued), TC_ETOOBIG (line over TC_AUDIT_MAX_LINE), TC_ESYS
 * (including the lock not taken in time) or TC_ENOMEM, with |d| saying
 * why.  The caller refuses the action the record describes when this
 * fails (fail closed).  Does not take ownership of |rec|.
 */
int	tc_audit_append(struct tc_audit *a, const cJSON *rec,
	    struct tc_diag *d);

/* Closes the log (releasing its lock) and frees |a|; NULL is a no-op. */
void	tc_audit_close(struct tc_audit *a);

/*
 * Returns a copy of the tool arguments |args| fit for the log, each
 * member by the role the tool's argument table |table| gives it (NULL: no
 * table, as for a tool that does not exist, where every member is
 * contents).
 *
 * A path (TC_ARG_PATH: a string, or an array of strings) is kept as it
 * was given, whatever it looks like and whatever its member's name: the
 * log must say which file a call named.  (One longer than
 * TC_AUDIT_VALUE_MAX is cut by tc_audit_cut(), like any value.)
 *
 * Everything else is contents, and redacted: members whose names look
 * like secrets (password, passwd, secret, token, api_key, apikey,
 * authorization, cookie, private_key, credential; any case, '-' as '_',
 * anywhere in the name) and strings that look like secrets (a PEM private
 * key, GitHub, OpenAI, Slack, GitLab or AWS tokens, "Bearer ..."
 * credentials) become "[redacted]"; strings longer than
 * TC_AUDIT_STRING_MAX bytes become {"length":N,"sha256":"<hex>"}.  The
 * members of objects in an object array (TC_ARG_OBJECT_ARRAY) take their
 * roles from its items' table.
 *
 * Member names longer than TC_AUDIT_STRING_MAX become "sha256:<hex>", as
 * do the keys of a string map (TC_ARG_STRING_MAP: an environment's
 * names, data of the client's) that look like secrets; numbers are
 * written exactly (tc_json_number()), not in cJSON's 15 digits;
 * nesting deeper than TC_AUDIT_DEPTH_MAX becomes "[too deep]"; and a copy
 * whose compact JSON exceeds TC_AUDIT_ARGS_MAX becomes
 * {"length":N,"sha256":...} of it.  NULL |args| gives {}.  Returns a new
 * tree the caller deletes, or NULL if out of memory.
 */
cJSON  *tc_audit_args(const cJSON *args, const struct tc_arg *table);

/*
 * Cuts, in the record |rec| (an object), every string value longer than
 * |max_string| bytes to at most that many, on a UTF-8 character boundary,
 * followed by U+2026 (...); and every array longer than |max_items| to
 * its first |max_items| items.  Each value cut is named in the record's
 * member "cut", an object whose members are JSON Pointers (RFC 6901) to
 * the values cut and whose values are their lengths before any cut (bytes
 * of a string, items of an array): {"cut":{"/tool":4194304}}.  "cut"
 * itself is never cut.  Returns 0, or TC_ENOMEM (|rec| may then be cut in
 * part).
 */
int	tc_audit_cut(cJSON *rec, size_t max_string, size_t max_items);

/*
 * Reads the key file |file| into |k| with the checks of tc_audit_open().
 * Returns 0, or TC_EINVAL/TC_ESYS/TC_ENOMEM with |d| saying why.
 */
int	tc_audit_key_load(struct tc_audit_key *k, const char *file,
	    struct tc_diag *d);

/* Wipes and frees the key; |k| is left empty. */
void	tc_audit_key_release(struct tc_audit_key *k);

/*
 * Parses one line of a log, |len| bytes at |line| without the newline,
 * into |l|: a JSON object whose first members are seq (an integer from 1)
 * and time (a string), then, if there is one, writer (an object of pid,
 * an integer from 1, and start, TC_AUDIT_START_LEN lowercase hex digits),
 * whose last are prev and hash or hmac (64 lowercase hex digits each), no
 * other member having those names, ending exactly as the writer ends it.
 * If |rec| is not NULL, it receives the parsed object, which the caller
 * deletes.  Returns 0; TC_EBADJSON if the line is not a
 * JSON object; TC_EINVAL if its chain fields are missing or malformed;
 * TC_ENOMEM; with |d| saying why.
 */
int	tc_audit_parse_line(const char *line, size_t len,
	    struct tc_audit_link *l, cJSON **rec, struct tc_diag *d);

/*
 * Writes into |hex| the lowercase hex digest of |n| bytes at |p|:
 * HMAC-SHA-256 with |key|, or SHA-256 when |key| is NULL.
 */
void	tc_audit_digest(const struct tc_audit_key *key, const void *p,
	    size_t n, char hex[TC_AUDIT_HEX_LEN + 1]);

/*
 * Returns 1 if the digest written in |line| (parsed into |l|) is the one
 * of its signed bytes, computed with |key| (NULL: SHA-256), else 0.  The
 * comparison takes the same time wherever the digests differ.
 */
int	tc_audit_line_ok(const char *line, const struct tc_audit_link *l,
	    const struct tc_audit_key *key);

/*
 * Parses a time as RFC 3339 gives it ("2026-11-23T10:00:00.123Z", with
 * 't' or ' ' for 'T', any number of fraction digits, and 'Z' or an offset
 * "+01:00"), or a date alone ("2026-11-23": its midnight UTC), into
 * milliseconds since the epoch (fractions cut, not rounded).  Returns 0,
 * or TC_EINVAL if |s| is neither.
 */
int	tc_audit_parse_time(const char *s, long long *ms);

#endif /* TC_AUDIT_H */
