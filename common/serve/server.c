/*
 * server.c: the serving loop.  This is the one file that sees protocol,
 * policy and sandbox together: it parses the command line, loads the
 * policy, answers tools/list, and turns each tools/call into a checked,
 * confined run whose result becomes the response.
 *
 * One thread, one poll(2) loop over stdin, a signalfd and every running
 * call's pipe and pidfd, so that pings, cancellations and new calls are
 * served while other calls run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <pwd.h>
#include <unistd.h>

#include "policy/glob.h"
#include "serve/hostconfig.h"
#include "base/log.h"
#include "policy/own.h"
#include "policy/path.h"
#include "policy/policy.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/server.h"
#include "serve/server-int.h"
#include "base/text.h"
#include "serve/usage.h"

extern char **environ;

/* --- Methods --- */

/* Returns |t| if the policy lets it run, or NULL. */
static const struct tc_tool *
allowed_tool(const struct srv *s, const struct tc_tool *t)
{
	const struct tc_tool_policy *tp;

	if (t == NULL)
		return NULL;
	if ((t->flags & TC_TOOL_NEEDS_WRITE) && !tc_policy_writable(&s->pol))
		return NULL;
	if ((tp = tc_policy_tool(&s->pol, t->name)) != NULL && !tp->enabled)
		return NULL;
	return t;
}

/* Returns the tool named |name| if tools/list shows it, or NULL. */
static const struct tc_tool *
visible_tool(const struct srv *s, const char *name)
{
	const struct tc_tool *t;

	t = tc_tool_find(s->def->tools, s->def->ntools, name);
	if (t == NULL || (t->flags & TC_TOOL_RESOURCE))
		return NULL;
	return allowed_tool(s, t);
}

/* Returns the handler of resources/read if the server has one and the
 * policy lets it run, or NULL: then there are no resources. */
static const struct tc_tool *
resource_tool(const struct srv *s)
{
	size_t i;

	for (i = 0; i < s->def->ntools; i++)
		if (s->def->tools[i].flags & TC_TOOL_RESOURCE)
			return allowed_tool(s, &s->def->tools[i]);
	return NULL;
}

static void
tools_list(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;
	const cJSON *cursor;
	cJSON *res;

	cursor = cJSON_GetObjectItemCaseSensitive(req->params, "cursor");
	if (cursor != NULL) {
		/* Every tool fits on one page, so no cursor is ever given
		 * out and none is valid. */
		tc_proto_error(req, TC_RPC_INVALID_PARAMS, "invalid cursor");
		return;
	}
	if ((res = cJSON_CreateObject()) == NULL) {
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	cJSON_AddItemToObject(res, "tools", cJSON_Duplicate(s->tools, 1));
	tc_proto_reply(req, res);
}

#define MAX_QUEUED	256

static int	roots_pending(const struct srv *);

static struct call *
find_call(struct srv *s, const char *id_key)
{
	struct call *c;

	for (c = s->calls; c != NULL; c = c->next)
		if (!c->cancelled && strcmp(c->req->id_key, id_key) == 0)
			return c;
	for (c = s->queue; c != NULL; c = c->next)
		if (strcmp(c->req->id_key, id_key) == 0)
			return c;
	for (c = s->asking; c != NULL; c = c->next)
		if (strcmp(c->req->id_key, id_key) == 0)
			return c;
	for (c = s->held; c != NULL; c = c->next)
		if (strcmp(c->req->id_key, id_key) == 0)
			return c;
	return NULL;
}

/* Removes |c| from the list at |head| (tail |tail|) if it is there;
 * returns 1 if it was. */
static int
unlink_call(struct call **head, struct call ***tail, struct call *c)
{
	struct call **cp;

	for (cp = head; *cp != NULL; cp = &(*cp)->next) {
		if (*cp == c) {
			*cp = c->next;
			if (*tail == &c->next)
				*tail = cp;
			c->next = NULL;
			return 1;
		}
	}
	return 0;
}

static void
append_call(struct call ***tail, struct call *c)
{
	c->next = NULL;
	**tail = c;
	*tail = &c->next;
}


void
tc_srv_free_call(struct call *c)
{
	size_t i;

	for (i = 0; i < c->npaths; i++) {
		free(c->abs[i]);
		free(c->rel[i]);
	}
	free(c->abs);
	free(c->rel);
	free(c->consent_hit);
	for (i = 0; i < c->npins; i++)
		free(c->pins[i].rel);
	free(c->pins);
	free(c->unconsented);
	free(c->consent);
	free(c->resource_uri);
	cJSON_Delete(c->own_args);
	free(c);
}

/* Answers a resources/read that could not be served. */
static void
resource_error(struct call *c, int code, const char *msg)
{
	cJSON *data = cJSON_CreateObject();

	cJSON_AddStringToObject(data, "uri", c->resource_uri);
	tc_proto_error_data(c->req, code, msg, data);
	c->req = NULL;
}

/*
 * Answers |c| with |msg| without running it, and frees it: a tool call
 * gets an isError result; a resources/read the JSON-RPC error |code|.
 */
static void
answer_unrun(struct call *c, int code, const char *msg)
{
	char *text;

	if (c->resource_uri != NULL)
		resource_error(c, code, msg);
	else if ((text = tc_result_error_text(msg)) == NULL)
		tc_proto_error(c->req, TC_RPC_INTERNAL_ERROR, "out of memory");
	else {
		tc_proto_reply_raw(c->req, text, strlen(text));
		free(text);
	}
	c->req = NULL;
	tc_srv_free_call(c);
}

/*
 * Returns a new string formatted from |fmt|, or NULL if out of memory: for
 * a message that may name long paths, which a fixed buffer would cut, on
 * a path taken only when something failed.  The caller frees it.
 */
static char	*msg_new(const char *, ...)
		    __attribute__((format(printf, 1, 2)));

static char *
msg_new(const char *fmt, ...)
{
	va_list ap;
	char *m;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&m, fmt, ap);
	va_end(ap);
	return rc < 0 ? NULL : m;
}

void
tc_srv_refuse(struct srv *s, struct call *c, const char *msg)
{
	(void)s;
	answer_unrun(c, TC_RPC_RESOURCE_NOT_FOUND, msg);
}

void
tc_srv_fail(struct srv *s, struct call *c, const char *msg)
{
	(void)s;
	answer_unrun(c, TC_RPC_INTERNAL_ERROR, msg);
}

/*
 * Ends |c|, which was admitted ("run" is in the log) but never started,
 * with |outcome| in its result record; answers it with |msg| unless it
 * was cancelled.
 */
static void
end_unstarted(struct srv *s, struct call *c, enum tc_run_outcome outcome,
    const char *msg)
{
	struct tc_diag d = { "", 0 };

	c->run.outcome = outcome;
	tc_text_fmt(c->run.why, sizeof(c->run.why), "%s", msg);
	if (tc_record_result(s, c, NULL, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	if (outcome == TC_OUT_CANCELLED) {
		tc_request_free(c->req);
		c->req = NULL;
		tc_srv_free_call(c);
	} else
		tc_srv_fail(s, c, msg);
}

/* Forks |c|'s child, or answers its request with the reason it cannot. */
static void
start_call(struct srv *s, struct call *c)
{
	struct tc_diag d TC_UNINIT;
	char *msg;

	tc_diag_init(&d);
	if (s->roots_broken) {
		end_unstarted(s, c, TC_OUT_SPAWN, "The call was not run: the "
		    "server could not confine calls to the client's roots; "
		    "see its log.");
		return;
	}
	if (tc_run_start(&c->run, &s->sb, &c->call, &d) != 0) {
		tc_log(TC_LOG_ERROR, "cannot start a call: %s", d.msg);
		msg = msg_new("the call could not be started: %s", d.msg);
		end_unstarted(s, c, TC_OUT_SPAWN, msg != NULL ? msg :
		    "the call could not be started: out of memory");
		free(msg);
		return;
	}
	tc_debug("call %s (pid %d)", c->call.tool->name, (int)c->run.pid);
	c->next = s->calls;
	s->calls = c;
	s->ncalls++;
}

/* Starts queued calls while there are free slots. */
static void
start_queued(struct srv *s)
{
	struct call *c;

	while (s->queue != NULL && s->ncalls < s->pol.limits.max_inflight) {
		c = s->queue;
		unlink_call(&s->queue, &s->queue_tail, c);
		s->nqueued--;
		start_call(s, c);
	}
}

void
tc_srv_admit(struct srv *s, struct call *c)
{
	struct tc_diag d TC_UNINIT;
	char rule[256], *msg;
	const char *by = NULL;

	tc_diag_init(&d);
	if (s->roots_broken) {
		tc_srv_fail(s, c, "The call was not run: the server could "
		    "not confine calls to the client's roots; see its log.");
		return;
	}
	if (tc_consent_scope(s, c) != 0) {
		tc_srv_fail(s, c, "The call was not run: out of memory.");
		return;
	}
	if (c->consent != NULL) {
		by = "consent";
		tc_consent_rule_str(c->consent->rule, rule, sizeof(rule));
	}
	if (tc_record_call(s, c, "run", by, by != NULL ? rule : NULL, NULL,
	    &d) != 0) {
		tc_log(TC_LOG_ERROR, "audit: %s: refusing calls until a "
		    "record can be written", d.msg);
		msg = msg_new("The call was not run: its record could not "
		    "be written to the audit log (%s), and nothing runs "
		    "unrecorded. Tell the user.", d.msg);
		tc_srv_fail(s, c, msg != NULL ? msg : "The call was not run: "
		    "its record could not be written to the audit log, and "
		    "nothing runs unrecorded. Tell the user.");
		free(msg);
		return;
	}
	s->ncalls_total++;
	if (s->ncalls < s->pol.limits.max_inflight) {
		start_call(s, c);
		return;
	}
	/* Over the limit of running calls: wait in line.  The deadline
	 * starts when the call does. */
	append_call(&s->queue_tail, c);
	s->nqueued++;
}

/* Refuses |c| before it runs, recording who decided and why. */
static void
deny(struct srv *s, struct call *c, const char *by, const char *rule,
    const char *msg)
{
	struct tc_diag d TC_UNINIT;

	tc_diag_init(&d);
	if (tc_record_call(s, c, "denied", by, rule, msg, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	tc_srv_refuse(s, c, msg);
}

/*
 * Opens the first |n| components of |v| beneath root |root|, O_PATH,
 * following symbolic links within the root (a directory unless |n| is
 * all of them and |last| says a file may do).  Returns an fd, or -1.
 */
static int
open_prefix(struct srv *s, size_t root, char **v, size_t n, int last)
{
	struct tc_path tp;
	struct tc_buf b;
	size_t i;
	int fd, saved, err;

	tc_buf_init(&b, PATH_MAX + 1);
	err = tc_buf_append_str(&b, ".");
	for (i = 0; i < n && err == 0; i++) {
		err = tc_buf_append_str(&b, "/");
		if (err == 0)
			err = tc_buf_append_str(&b, v[i]);
	}
	if (err != 0) {
		tc_buf_release(&b);
		errno = err == TC_ENOMEM ? ENOMEM : ENAMETOOLONG;
		return -1;
	}
	memset(&tp, 0, sizeof(tp));
	tp.root = root;
	tp.rel = b.data;
	fd = tc_path_openat(&s->pol, &tp, O_PATH | O_CLOEXEC |
	    (last ? 0 : O_DIRECTORY), 0);
	saved = errno;
	tc_buf_release(&b);
	errno = saved;
	return fd;
}

/*
 * Finds how many of the |n| components |v| exist, as directories, when
 * the whole path does not: the most |have| below |n| whose prefix opens.
 * A prefix opens only if every shorter one does, so it is searched by
 * halves: a path of thousands of names that do not exist costs the
 * server a dozen opens, not thousands.  Returns the fd of that prefix,
 * with *|have| set, or -1 (an error other than ENOENT on the way).
 */
static int
deepest(struct srv *s, size_t root, char **v, size_t n, size_t *have)
{
	size_t lo = 0, hi = n - 1, mid;
	int fd;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if ((fd = open_prefix(s, root, v, mid, 0)) >= 0) {
			close(fd);
			lo = mid;
		} else if (errno == ENOENT)
			hi = mid - 1;
		else
			return -1;
	}
	*have = lo;
	return open_prefix(s, root, v, lo, 0);
}

/* Where a path resolves: the deepest part that exists, and the rest. */
struct resolved {
	char		*abs;		/* canonical, and the names below */
	char		*rel;		/* the same, relative to its root */
	struct tc_pin	 pin;		/* what it was (no root, rel, kind) */
};

static void
resolved_release(struct resolved *r)
{
	free(r->abs);
	free(r->rel);
	r->abs = r->rel = NULL;
}

/*
 * Resolves the |n| components |v| beneath root |root| to where they
 * really lead: the file itself (symbolic links and ".." followed, by the
 * kernel, within the root; a directory if |dir|), or for a path that does
 * not exist yet, the deepest directory on its way that does and the names
 * below it, which a call would create (however many: create_directory
 * makes them all).  Fills |out| and returns 0, or returns -1 when it
 * cannot (a ".." below a missing directory, a path that leaves the root:
 * the child reports why).
 */
static int
resolve(struct srv *s, size_t root, char **v, size_t n, int dir,
    const char *entry, struct resolved *out)
{
	struct tc_where w;
	struct tc_buf a, r;
	struct stat st;
	const char *why;
	size_t have, i;
	int fd = -1, rc = -1, err = 0;

	memset(out, 0, sizeof(*out));
	if ((fd = open_prefix(s, root, v, n, !dir)) >= 0)
		have = n;
	else if (errno != ENOENT || n == 0)
		return -1;
	else if ((fd = deepest(s, root, v, n, &have)) < 0)
		return -1;
	for (i = have; i < n; i++)
		if (strcmp(v[i], "..") == 0)
			goto out;
	/* What it is, for a call consent will be given for; with |entry|,
	 * also that name in it, not followed. */
	if (fstat(fd, &st) != 0)
		goto out;
	out->pin.dev = (unsigned long long)st.st_dev;
	out->pin.ino = (unsigned long long)st.st_ino;
	out->pin.missing = (unsigned)(n - have);
	if (entry != NULL && have == n) {
		if (fstatat(fd, entry, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			out->pin.entry = 1;
			out->pin.edev = (unsigned long long)st.st_dev;
			out->pin.eino = (unsigned long long)st.st_ino;
		} else if (errno != ENOENT)
			goto out;
	}
	if (tc_path_where(&s->pol, root, fd, &w, &why) != 0)
		goto out;
	tc_buf_init(&a, 2 * PATH_MAX);
	tc_buf_init(&r, 2 * PATH_MAX);
	err |= tc_buf_append_str(&a, w.abs);
	if (strcmp(w.rel, ".") != 0)
		err |= tc_buf_append_str(&r, w.rel);
	for (i = have; i < n; i++) {
		if (strcmp(w.abs, "/") != 0 || i > have)
			err |= tc_buf_append_str(&a, "/");
		err |= tc_buf_append_str(&a, v[i]);
		if (r.len > 0)
			err |= tc_buf_append_str(&r, "/");
		err |= tc_buf_append_str(&r, v[i]);
	}
	if (r.len == 0)
		err |= tc_buf_append_str(&r, ".");
	tc_where_release(&w);
	if (err == 0) {
		out->abs = tc_buf_steal(&a);
		out->rel = tc_buf_steal(&r);
		rc = 0;
	}
	tc_buf_release(&a);
	tc_buf_release(&r);
out:
	close(fd);
	return rc;
}

/*
 * Marks in c->consent_hit the consent rules for |c|'s tool that one of
 * their patterns matches the path (|abs|, |rel|), as deny rules match it:
 * through every root that holds it.
 */
static void
consent_mark(struct srv *s, struct call *c, const char *abs, const char *rel)
{
	const struct tc_consent_rule *r;
	const char *tool = tc_tool_policy_name(c->call.tool);
	size_t i, k;

	if (c->consent_hit == NULL)
		return;
	for (i = 0; i < s->pol.nconsent; i++) {
		r = &s->pol.consent[i];
		if (c->consent_hit[i] || (strcmp(r->tool, "*") != 0 &&
		    strcmp(r->tool, tool) != 0))
			continue;
		for (k = 0; k < r->npatterns; k++)
			if (tc_glob_match_path(&s->pol, r->patterns[k], abs,
			    rel)) {
				c->consent_hit[i] = 1;
				break;
			}
	}
}

/* Adds (|abs|, |rel|) to c's resolved paths, taking them.  Returns 0, or
 * -1 (out of memory, both freed). */
static int
keep_path(struct call *c, struct resolved *r)
{
	size_t cap;
	char **na, **nr;

	if (c->npaths == c->paths_cap) {
		cap = c->paths_cap ? 2 * c->paths_cap : 4;
		if ((na = reallocarray(c->abs, cap, sizeof(*na))) == NULL) {
			resolved_release(r);
			return -1;
		}
		c->abs = na;
		if ((nr = reallocarray(c->rel, cap, sizeof(*nr))) == NULL) {
			resolved_release(r);
			return -1;
		}
		c->rel = nr;
		c->paths_cap = cap;
	}
	c->abs[c->npaths] = r->abs;
	c->rel[c->npaths++] = r->rel;
	r->abs = r->rel = NULL;
	return 0;
}

/* Adds the pin of kind |kind| for the mapped path |tp| from |r|.  Returns
 * 0, or -1 when out of memory. */
static int
keep_pin(struct call *c, const struct tc_path *tp, unsigned kind,
    const struct resolved *r)
{
	struct tc_pin *np;
	size_t cap;

	if (c->npins == c->pins_cap) {
		cap = c->pins_cap ? 2 * c->pins_cap : 4;
		if ((np = reallocarray(c->pins, cap, sizeof(*np))) == NULL)
			return -1;
		c->pins = np;
		c->pins_cap = cap;
	}
	np = &c->pins[c->npins];
	*np = r->pin;
	np->root = tp->root;
	np->kind = kind;
	if ((np->rel = strdup(tp->rel)) == NULL)
		return -1;
	c->npins++;
	return 0;
}

/* A deny rule in words: "'deny PATTERN' (line N)", a pattern as long as
 * glob.h allows. */
#define RULE_MAX	(TC_GLOB_MAX + 64)

/*
 * Adds the path |user| names to |c|'s paths, resolved to where it really
 * leads, and checks it against the deny rules, as given and as resolved
 * (the child checks again on what it opens); for a tool that changes
 * files, also where the change is made: the last name in the directory
 * it really is in, which a change never follows.  Each of these spellings
 * is matched against the consent rules.  Returns 0, or -1 after refusing
 * the call.  A path that is one of several (|one_of|, an array member)
 * and that a rule denies is only left out: the child refuses that one
 * path, and the call's other paths are read.
 */
static int
add_path(struct srv *s, struct call *c, const char *user, unsigned access,
    int one_of)
{
	struct tc_diag d TC_UNINIT;
	const struct tc_deny *rule = NULL;
	struct resolved res, ent;
	struct tc_path tp;
	const char *grel;
	char *rs, *buf = NULL, **v = NULL, *gabs = NULL;
	size_t n = 0;
	int rc = 0, resolved;

	tc_diag_init(&d);
	memset(&res, 0, sizeof(res));
	memset(&ent, 0, sizeof(ent));
	if (tc_path_map(&s->pol, user, &tp, &d) != 0)
		return 0;	/* the handler reports it, as ever */
	if (tc_path_check(&s->pol, &tp, access) != 0)
		rule = tp.denied_by;
	if (rule == NULL) {
		n = strlen(tp.rel);
		if ((buf = strdup(tp.rel)) == NULL ||
		    (v = calloc(n / 2 + 2, sizeof(*v))) == NULL)
			goto nomem;
		n = tc_path_split(buf, v, n / 2 + 2);
	}
	resolved = rule == NULL && resolve(s, tp.root, v, n, 0, NULL,
	    &res) == 0;
	if (resolved)
		rule = tc_deny_match(&s->pol, res.abs, res.rel, access);
	/* A change acts on the last name itself, in the directory the rest
	 * leads to: a symbolic link there is changed, not followed. */
	if (rule == NULL && (access & TC_ACCESS_WRITE) && n > 0 &&
	    strcmp(v[n - 1], "..") != 0 &&
	    resolve(s, tp.root, v, n - 1, 1, v[n - 1], &ent) == 0) {
		char *a = NULL, *r = NULL;

		if (asprintf(&a, "%s%s%s", ent.abs, strcmp(ent.abs, "/") ?
		    "/" : "", v[n - 1]) < 0)
			a = NULL;
		if (strcmp(ent.rel, ".") == 0)
			r = strdup(v[n - 1]);
		else if (asprintf(&r, "%s/%s", ent.rel, v[n - 1]) < 0)
			r = NULL;
		resolved_release(&ent);	/* its pin stays */
		ent.abs = a;
		ent.rel = r;
		if (a == NULL || r == NULL)
			goto nomem;
		rule = tc_deny_match(&s->pol, ent.abs, ent.rel, access);
	}
	if (rule != NULL) {
		if (!one_of) {
			tc_path_denied(&d, user, rule);
			/* A pattern may be as long as a path. */
			if ((rs = malloc(RULE_MAX)) != NULL)
				tc_deny_str(rule, rs, RULE_MAX);
			deny(s, c, "policy", rs, d.msg);
			free(rs);
			rc = -1;
		}
		goto out;
	}
	if (c->consent_hit != NULL) {
		if ((gabs = tc_path_given(&s->pol, &tp, &grel)) == NULL)
			goto nomem;
		consent_mark(s, c, gabs, *grel != '\0' ? grel : ".");
		if (resolved)
			consent_mark(s, c, res.abs, res.rel);
		if (ent.abs != NULL)
			consent_mark(s, c, ent.abs, ent.rel);
		/* What they were, should consent be given for the call. */
		if ((resolved && keep_pin(c, &tp, TC_PIN_PATH, &res) != 0) ||
		    (ent.abs != NULL && keep_pin(c, &tp, TC_PIN_ENTRY,
		    &ent) != 0))
			goto nomem;
	}
	if (resolved && keep_path(c, &res) != 0)
		goto nomem;
	goto out;
nomem:
	deny(s, c, "server", NULL, "The call was not run: out of memory "
	    "while its paths were checked.");
	rc = -1;
out:
	resolved_release(&res);
	resolved_release(&ent);
	free(gabs);
	free(v);
	free(buf);
	tc_path_release(&tp);
	return rc;
}

/*
 * Collects the paths |c|'s arguments name (TC_ARG_PATH) for consent rules,
 * refusing the call if a deny rule covers one.  Returns 0, or -1 once the
 * call is refused.
 */
static int
collect_paths(struct srv *s, struct call *c)
{
	const struct tc_arg *a;
	const cJSON *v, *e;
	unsigned access;

	access = (c->call.tool->flags & TC_TOOL_NEEDS_WRITE) ?
	    TC_ACCESS_WRITE : TC_ACCESS_READ;
	if (s->pol.nconsent > 0 && (c->consent_hit = calloc(s->pol.nconsent,
	    1)) == NULL) {
		deny(s, c, "server", NULL, "The call was not run: out of "
		    "memory while its paths were checked.");
		return -1;
	}
	for (a = c->call.tool->args; a != NULL && a->name != NULL; a++) {
		if (!(a->flags & TC_ARG_PATH))
			continue;
		v = cJSON_GetObjectItemCaseSensitive(c->call.args, a->name);
		if (cJSON_IsString(v)) {
			if (add_path(s, c, v->valuestring, access, 0) != 0)
				return -1;
		} else if (cJSON_IsArray(v)) {
			cJSON_ArrayForEach(e, v)
				if (cJSON_IsString(e) &&
				    add_path(s, c, e->valuestring, access, 1) != 0)
					return -1;
		}
	}
	return 0;
}

static void	decide(struct srv *, struct call *);

static void	new_call(struct srv *, struct tc_request *,
		    const struct tc_tool *, cJSON *, char *);

/*
 * Answers |req|, a request for tool |t| (or, unknown, named |name|, or
 * NULL) that never became a call, with JSON-RPC error |code| and |msg|,
 * after a "call" record denied by |by| with |msg| as its reason: every
 * tools/call leaves one, allowed or denied.  A model probing for tools it
 * was not given, or sending what no tool takes, is worth seeing in the
 * log.  Does not take ownership of |args|.
 */
static void
refuse_request(struct srv *s, struct tc_request *req,
    const struct tc_tool *t, const char *name, const cJSON *args,
    const char *by, int code, const char *msg)
{
	struct tc_diag d TC_UNINIT;
	struct call c;

	tc_diag_init(&d);
	memset(&c, 0, sizeof(c));
	c.req = req;
	c.call.tool = t;
	c.name = name;
	c.call.args = args;
	c.seq = ++s->next_seq;
	if (tc_record_call(s, &c, "denied", by, NULL, msg, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	tc_proto_error(req, code, msg);
}

/* Returns 1 if a directory of the policy itself, before any narrowing by
 * the client's roots, is writable. */
static int
policy_writable(const struct srv *s)
{
	size_t i;

	if (s->pol.ceiling == NULL)
		return tc_policy_writable(&s->pol);
	for (i = 0; i < s->pol.nceiling; i++)
		if (s->pol.ceiling[i].flags & TC_ROOT_WRITE)
			return 1;
	return 0;
}

/*
 * Words into |msg| the refusal of a call to |name|, which tools/call
 * cannot run.  A write tool that the policy leaves on says that no
 * directory is writable, and what would make one so; a name that is no
 * tool's gets the closest tool offered, if it looks like a misspelling of
 * it.  A tool the policy switches off is an unknown tool, and is not
 * guessed at.
 */
static void
unknown_tool(const struct srv *s, const char *name, char *msg, size_t size)
{
	const struct tc_tool *t, *best = NULL;
	const struct tc_tool_policy *tp;
	char shown[104];
	size_t i, d, bestd = SIZE_MAX;

	/* The name is the model's, of any length: cut on a character
	 * boundary (and shown escaped, as every error message is). */
	tc_text_fmt(shown, sizeof(shown), "%s", name);
	t = tc_tool_find(s->def->tools, s->def->ntools, name);
	if (t != NULL && (t->flags & TC_TOOL_NEEDS_WRITE) &&
	    !(t->flags & TC_TOOL_RESOURCE) &&
	    ((tp = tc_policy_tool(&s->pol, t->name)) == NULL || tp->enabled) &&
	    !tc_policy_writable(&s->pol)) {
		if (policy_writable(s))
			tc_text_fmt(msg, size, "tool '%s' cannot run now: no "
			    "directory is writable (the client's roots leave "
			    "%s of the policy)", shown, s->pol.nroots == 0 ?
			    "no directory" : "only read-only directories");
		else
			tc_text_fmt(msg, size, "tool '%s' is not offered: no "
			    "directory is writable (start the server with "
			    "--write DIR, or give its policy an 'allow write "
			    "DIR' rule)", shown);
		return;
	}
	for (i = 0; t == NULL && i < s->def->ntools; i++) {
		if (visible_tool(s, s->def->tools[i].name) == NULL)
			continue;
		if ((d = tc_name_distance(name, s->def->tools[i].name)) <
		    bestd) {
			bestd = d;
			best = &s->def->tools[i];
		}
	}
	if (best != NULL)
		tc_text_fmt(msg, size, "unknown tool '%s'; did you mean '%s'?",
		    shown, best->name);
	else
		tc_text_fmt(msg, size, "unknown tool '%s'", shown);
}

static void
tools_call(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;
	const struct tc_tool *t;
	const cJSON *name;
	cJSON *args;
	char msg[640];

	name = cJSON_GetObjectItemCaseSensitive(req->params, "name");
	args = cJSON_GetObjectItemCaseSensitive(req->params, "arguments");
	if (!cJSON_IsString(name)) {
		refuse_request(s, req, NULL, NULL, args, "validation",
		    TC_RPC_INVALID_PARAMS,
		    "tools/call needs params.name, the tool's name");
		return;
	}
	if ((t = visible_tool(s, name->valuestring)) == NULL) {
		unknown_tool(s, name->valuestring, msg, sizeof(msg));
		refuse_request(s, req, NULL, name->valuestring, args,
		    "validation", TC_RPC_INVALID_PARAMS, msg);
		return;
	}
	if (args == NULL || cJSON_IsNull(args)) {
		cJSON_DeleteItemFromObjectCaseSensitive(req->params,
		    "arguments");
		args = cJSON_AddObjectToObject(req->params, "arguments");
		if (args == NULL) {
			refuse_request(s, req, t, NULL, NULL, "server",
			    TC_RPC_INTERNAL_ERROR, "out of memory");
			return;
		}
	}
	if (!cJSON_IsObject(args)) {
		refuse_request(s, req, t, NULL, args, "validation",
		    TC_RPC_INVALID_PARAMS,
		    "tools/call arguments must be an object");
		return;
	}
	new_call(s, req, t, args, NULL);
}

/*
 * Takes request |req| for tool |t| with |args| (a member of the request's
 * params, or for a resources/read, owned with |uri|) through validation,
 * then decides it, or holds it while the client's roots are unsettled.
 */
static void
new_call(struct srv *s, struct tc_request *req, const struct tc_tool *t,
    cJSON *args, char *uri)
{
	struct tc_diag d TC_UNINIT;
	struct call *c;
	char *msg;

	tc_diag_init(&d);
	if (find_call(s, req->id_key) != NULL) {
		refuse_request(s, req, t, NULL, args, "validation",
		    TC_RPC_INVALID_REQUEST,
		    "a request with this id is still in progress");
		if (uri != NULL)
			cJSON_Delete(args);
		free(uri);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		refuse_request(s, req, t, NULL, args, "server",
		    TC_RPC_INTERNAL_ERROR, "out of memory");
		if (uri != NULL)
			cJSON_Delete(args);
		free(uri);
		return;
	}
	if (uri != NULL) {
		c->resource_uri = uri;
		c->own_args = args;
	}
	c->srv = s;
	c->req = req;
	c->seq = ++s->next_seq;
	c->received_ms = tc_now_ms();
	c->call.tool = t;
	c->call.args = args;
	c->call.policy = &s->pol;
	c->pfd = -1;
	tc_run_init(&c->run);
	if (req->has_nul) {
		msg = msg_new("invalid arguments for '%s': strings must not "
		    "contain U+0000", t->name);
		deny(s, c, "validation", NULL, msg != NULL ? msg :
		    "invalid arguments");
		free(msg);
		return;
	}
	if (tc_args_check(t->args, args, &d) != 0) {
		msg = msg_new("invalid arguments for '%s': %s", t->name,
		    d.msg);
		deny(s, c, "validation", NULL, msg != NULL ? msg :
		    "invalid arguments");
		free(msg);
		return;
	}
	if (s->nqueued + s->nasking + s->nheld >= MAX_QUEUED) {
		msg = msg_new("the server is busy with %u calls and %u "
		    "waiting; try again when one has finished", s->ncalls,
		    s->nqueued + s->nasking + s->nheld);
		deny(s, c, "busy", NULL, msg != NULL ? msg :
		    "the server is busy; try again when a call has finished");
		free(msg);
		return;
	}
	if (roots_pending(s)) {
		/* Decided once the roots it will run under are known. */
		if (s->held == NULL && s->roots_id < 0 && !s->roots_apply)
			s->roots_deadline_ms = tc_now_ms() +
			    s->pol.roots_timeout_ms;
		append_call(&s->held_tail, c);
		s->nheld++;
		return;
	}
	decide(s, c);
}

/*
 * Decides |c| against the roots in force: deny rules on the paths it
 * names, then consent, then admission.
 */
static void
decide(struct srv *s, struct call *c)
{
	const struct tc_consent_rule *rule;

	if (collect_paths(s, c) != 0)
		return;
	if ((rule = tc_consent_rule(s, c)) != NULL) {
		if (!tc_consent_remembered(s, c, rule)) {
			tc_consent_ask(s, c, rule);
			return;
		}
		if ((c->consent = calloc(1, sizeof(*c->consent))) != NULL) {
			c->consent->rule = rule;
			c->consent->means = "session";
			c->consent->answer = "allow-session";
			c->consent->elicit_id = -1;
		}
	}
	tc_srv_admit(s, c);
}

static void
on_cancel(void *ctx, const char *id_key)
{
	struct srv *s = ctx;
	struct call *c;

	if ((c = find_call(s, id_key)) == NULL)
		return;		/* finished already, or never known */
	tc_debug("call %s cancelled", c->call.tool->name);
	if (c->consent != NULL && c->consent->answer == NULL) {
		tc_consent_abandon(s, c, "cancelled by the client while "
		    "consent was asked");
		tc_request_free(c->req);
		tc_srv_free_call(c);
		return;
	}
	if (unlink_call(&s->queue, &s->queue_tail, c)) {
		s->nqueued--;
		end_unstarted(s, c, TC_OUT_CANCELLED, "cancelled by the "
		    "client before it started");
		return;
	}
	if (unlink_call(&s->held, &s->held_tail, c)) {
		struct tc_diag d TC_UNINIT;

		tc_diag_init(&d);
		s->nheld--;
		if (tc_record_call(s, c, "cancelled", "client", NULL,
		    "cancelled by the client while the server waited for "
		    "its roots", &d) != 0)
			tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
		tc_request_free(c->req);
		tc_srv_free_call(c);
		return;
	}
	c->cancelled = 1;
	tc_run_kill(&c->run, TC_OUT_CANCELLED);
}

/*
 * Answers a resources/read with what its handler returned (|res|, a
 * CallToolResult, consumed): the body in content[0].text, as text or as
 * base64, and structuredContent's mimeType and encoding.  A tool error is
 * a resource not found (outside the roots, denied, missing, too large),
 * anything else that went wrong an internal error.
 */
static void
reply_resource(struct call *c, const struct tc_answer *a)
{
	const cJSON *sc, *mime, *enc, *text;
	cJSON *res, *out, *arr, *o, *item;

	/* The text was checked as a CallToolResult; a tree of it is
	 * needed here to move the body into a resource's contents. */
	res = cJSON_ParseWithLength(a->json, a->len);
	item = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res,
	    "content"), 0);
	text = cJSON_GetObjectItemCaseSensitive(item, "text");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "isError")) ||
	    !cJSON_IsString(text)) {
		resource_error(c, c->run.outcome == TC_OUT_OK ?
		    TC_RPC_RESOURCE_NOT_FOUND : TC_RPC_INTERNAL_ERROR,
		    cJSON_IsString(text) ? text->valuestring :
		    "the resource could not be read");
		cJSON_Delete(res);
		return;
	}
	sc = cJSON_GetObjectItemCaseSensitive(res, "structuredContent");
	mime = cJSON_GetObjectItemCaseSensitive(sc, "mimeType");
	enc = cJSON_GetObjectItemCaseSensitive(sc, "encoding");
	out = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(out, "contents");
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "uri", c->resource_uri);
	if (cJSON_IsString(mime))
		cJSON_AddStringToObject(o, "mimeType", mime->valuestring);
	/* The body moves, not copied: it may be megabytes. */
	cJSON_AddItemToObject(o, cJSON_IsString(enc) &&
	    strcmp(enc->valuestring, "base64") == 0 ? "blob" : "text",
	    cJSON_DetachItemFromObjectCaseSensitive(item, "text"));
	cJSON_AddItemToArray(arr, o);
	cJSON_Delete(res);
	if (arr == NULL || o == NULL) {
		cJSON_Delete(out);
		tc_proto_error(c->req, TC_RPC_INTERNAL_ERROR, "out of memory");
	} else
		tc_proto_reply(c->req, out);
	c->req = NULL;
}

/* Answers a finished call and frees it. */
static void
finish(struct srv *s, struct call *c)
{
	struct tc_diag d TC_UNINIT;
	struct tc_answer a;
	int rc;

	tc_diag_init(&d);
	rc = tc_run_take_answer(&c->run, &a);
	tc_debug("call %s done in %lld ms", c->call.tool->name,
	    (long long)(tc_now_ms() - c->run.start_ms));
	if (tc_record_result(s, c, rc == 0 ? &a.info : NULL, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	if (c->cancelled)	/* a cancelled request gets no response */
		tc_request_free(c->req);
	else if (rc != 0)
		tc_proto_error(c->req, TC_RPC_INTERNAL_ERROR, "out of memory");
	else if (c->resource_uri != NULL)
		reply_resource(c, &a);
	else
		tc_proto_reply_raw(c->req, a.json, a.len);
	tc_answer_release(&a);
	tc_run_release(&c->run);
	tc_srv_free_call(c);
	s->ncalls--;
}

/* --- The client's roots --- */

/* Returns the local path of "file://" URI |uri|, percent-decoded, or NULL
 * if it is not one. */
static char *
uri_path(const char *uri)
{
	const char *p;
	char *out, *w;
	int hi, lo;

	if (strncmp(uri, "file://", 7) != 0)
		return NULL;
	p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/' || (out = malloc(strlen(p) + 1)) == NULL)
		return NULL;
	for (w = out; *p != '\0' && *p != '?' && *p != '#'; p++) {
		if (*p != '%') {
			*w++ = *p;
			continue;
		}
		if ((hi = tc_hex_digit((unsigned char)p[1])) < 0 ||
		    (lo = tc_hex_digit((unsigned char)p[2])) < 0 ||
		    (hi == 0 && lo == 0)) {
			free(out);	/* malformed, or a NUL */
			return NULL;
		}
		*w++ = (char)(hi << 4 | lo);
		p += 2;
	}
	*w = '\0';
	return out;
}

static void
forget_new_roots(struct srv *s)
{
	tc_strv_free(s->roots_new);
	s->roots_new = NULL;
	s->nroots_new = 0;
}

/* Takes the client's answer to roots/list, to apply once no call runs. */
static void
on_roots(void *ctx, const cJSON *result, const cJSON *error)
{
	struct srv *s = ctx;
	const cJSON *roots, *r, *uri;
	char *path;
	size_t n = 0;

	s->roots_id = -1;
	if (result == NULL) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(error,
		    "message");

		tc_warn("roots/list failed (%s): serving the policy's "
		    "directories", cJSON_IsString(m) ? m->valuestring :
		    "no answer");
		return;
	}
	roots = cJSON_GetObjectItemCaseSensitive(result, "roots");
	if (!cJSON_IsArray(roots)) {
		tc_warn("roots/list answered without a roots array: serving "
		    "the policy's directories");
		return;
	}
	forget_new_roots(s);
	if ((s->roots_new = calloc((size_t)cJSON_GetArraySize(roots) + 1,
	    sizeof(char *))) == NULL) {
		tc_warn("out of memory: the client's roots are not applied");
		return;
	}
	cJSON_ArrayForEach(r, roots) {
		uri = cJSON_GetObjectItemCaseSensitive(r, "uri");
		if (!cJSON_IsString(uri))
			continue;
		if ((path = uri_path(uri->valuestring)) == NULL) {
			tc_warn("client root '%s' is not a file:// URI: left "
			    "out", uri->valuestring);
			continue;
		}
		s->roots_new[n++] = path;
	}
	s->nroots_new = n;
	s->roots_apply = 1;
}

/* Asks the client for its roots, if it has them. */
static void
ask_roots(struct srv *s)
{
	if (!tc_proto_client_has(&s->proto, "roots") ||
	    s->pol.roots_mode == TC_ROOTS_IGNORE)
		return;
	if (s->roots_id >= 0) {
		/* Asked again before an answer: the first deadline holds,
		 * so that a client repeating list_changed cannot keep
		 * calls waiting for ever. */
		tc_proto_forget(&s->proto, s->roots_id);
	} else
		s->roots_deadline_ms = tc_now_ms() + s->pol.roots_timeout_ms;
	s->roots_id = tc_proto_request(&s->proto, "roots/list", NULL,
	    on_roots, s);
}

/* Narrows the roots in force to the client's, once no call runs, waits
 * or is being asked about: every call is decided and run under one set
 * of roots. */
static void
apply_roots(struct srv *s)
{
	struct tc_diag d = { "", 0 };
	char note[1024];
	size_t i;

	s->roots_apply = 0;
	if (tc_policy_narrow(&s->pol, s->roots_new, s->nroots_new, &d) != 0) {
		tc_warn("the client's roots are not applied: %s", d.msg);
		forget_new_roots(s);
		return;
	}
	if (tc_sandbox_reroot(&s->sb, &d) != 0) {
		tc_log(TC_LOG_ERROR, "cannot confine calls to the client's "
		    "roots (%s): refusing every call", d.msg);
		s->roots_broken = 1;
	} else
		s->roots_broken = 0;
	if (s->pol.roots_state == TC_ROOTS_KEPT ||
	    s->pol.roots_state == TC_ROOTS_EMPTY)
		tc_warn("%s", tc_policy_roots_note(&s->pol, note,
		    sizeof(note)));
	for (i = 0; i < s->pol.nroots; i++)
		tc_debug("root in force: %s (%s)", s->pol.roots[i].path,
		    (s->pol.roots[i].flags & TC_ROOT_WRITE) ? "read-write" :
		    "read-only");
	if (tc_record_roots(s, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	forget_new_roots(s);
	if (resource_tool(s) != NULL)
		tc_proto_notify(&s->proto,
		    "notifications/resources/list_changed", NULL);
}

/* The client's roots changed: ask again. */
static void
on_roots_changed(void *ctx, struct tc_request *req)
{
	tc_request_free(req);
	ask_roots(ctx);
}

/*
 * Returns 1 while new calls must wait for the client's roots: when it has
 * them, from initialize until its answer is applied (or not given in
 * time), and again after each notifications/roots/list_changed.
 */
static int
roots_pending(const struct srv *s)
{
	if (s->roots_id >= 0 || s->roots_apply)
		return 1;
	return !s->initialized && !s->roots_gave_up && !s->proto.eof &&
	    tc_proto_client_has(&s->proto, "roots") &&
	    s->pol.roots_mode != TC_ROOTS_IGNORE;
}

/* Decides the calls held for the roots, in the order they came, once the
 * roots are settled. */
static void
release_held(struct srv *s)
{
	struct call *c;

	while (s->held != NULL && !roots_pending(s)) {
		c = s->held;
		unlink_call(&s->held, &s->held_tail, c);
		s->nheld--;
		decide(s, c);
	}
}

/* The client is ready: it said who it is at initialize. */
static void
on_initialized(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;
	struct tc_diag d = { "", 0 };

	tc_request_free(req);
	if (s->initialized)
		return;		/* said twice */
	s->initialized = 1;
	if (tc_record_client(s, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	ask_roots(s);
}

/* --- Resources: files beneath the roots, read by the resource tool --- */

/* Appends |path| to |b| as the path of a file:// URI, percent-encoded. */
static void
put_uri_path(struct tc_buf *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	char esc[3];

	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p) != NULL) {
			tc_buf_append(b, p, 1);
			continue;
		}
		esc[0] = '%';
		esc[1] = hex[*p >> 4];
		esc[2] = hex[*p & 15];
		tc_buf_append(b, esc, 3);
	}
}

/* Returns "file://ROOT/" + |suffix| for root |i|, or NULL. */
static char *
root_uri(const struct srv *s, size_t i, const char *suffix)
{
	const char *path = s->pol.roots[i].path;
	struct tc_buf b;

	tc_buf_init(&b, 4 * PATH_MAX + 64);
	tc_buf_append_str(&b, "file://");
	put_uri_path(&b, path);
	if (strcmp(path, "/") != 0)
		tc_buf_append_str(&b, "/");
	if (tc_buf_append_str(&b, suffix) != 0) {
		tc_buf_release(&b);
		return NULL;
	}
	return tc_buf_steal(&b);
}

/* Answers |req| with a list built by |item| for each root in force. */
static void
list_roots(struct srv *s, struct tc_request *req, const char *member,
    cJSON *(*item)(const struct srv *, size_t))
{
	cJSON *res, *arr;
	size_t i;

	if (resource_tool(s) == NULL) {
		tc_proto_error(req, TC_RPC_METHOD_NOT_FOUND, "method not "
		    "found: this server's policy offers no resources");
		return;
	}
	if (cJSON_GetObjectItemCaseSensitive(req->params, "cursor") != NULL) {
		tc_proto_error(req, TC_RPC_INVALID_PARAMS, "invalid cursor");
		return;
	}
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(res, member);
	for (i = 0; i < s->pol.nroots; i++)
		cJSON_AddItemToArray(arr, item(s, i));
	if (arr == NULL) {
		cJSON_Delete(res);
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	tc_proto_reply(req, res);
}

static const char *
access_name(const struct tc_root *r)
{
	return (r->flags & TC_ROOT_WRITE) ? "read-write" : "read-only";
}

/*
 * Adds the string member |key| to |o|: |head|, the root's |path| shown as
 * text.h shows it (a root can come from the client's roots, and these
 * texts are shown to people), then |tail|.
 */
static void
add_root_text(cJSON *o, const char *key, const char *head, const char *path,
    const char *tail)
{
	struct tc_buf b;

	tc_buf_init(&b, 8 * PATH_MAX + 256);
	if (tc_buf_append_str(&b, head) == 0 &&
	    tc_buf_append_shown(&b, path, strlen(path), 0) == 0 &&
	    tc_buf_append_str(&b, tail) == 0)
		cJSON_AddStringToObject(o, key, b.data);
	tc_buf_release(&b);
}

/* A root as a Resource: the directory itself. */
static cJSON *
root_resource(const struct srv *s, size_t i)
{
	const struct tc_root *r = &s->pol.roots[i];
	char *uri, tail[64];
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL ||
	    (uri = root_uri(s, i, "")) == NULL)
		return o;
	cJSON_AddStringToObject(o, "uri", uri);
	add_root_text(o, "name", "", r->path, "");
	tc_text_fmt(tail, sizeof(tail), " (%s): reading it lists its entries",
	    access_name(r));
	add_root_text(o, "description", "Allowed directory ", r->path, tail);
	cJSON_AddStringToObject(o, "mimeType", "inode/directory");
	free(uri);
	return o;
}

/* A root as a ResourceTemplate: any file beneath it. */
static cJSON *
root_template(const struct srv *s, size_t i)
{
	const struct tc_root *r = &s->pol.roots[i];
	char *uri, tail[96];
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL ||
	    (uri = root_uri(s, i, "{+path}")) == NULL)
		return o;
	cJSON_AddStringToObject(o, "uriTemplate", uri);
	add_root_text(o, "name", "files in ", r->path, "");
	tc_text_fmt(tail, sizeof(tail), " (%s), under the same rules as the "
	    "tools", access_name(r));
	add_root_text(o, "description", "A file or directory beneath ",
	    r->path, tail);
	free(uri);
	return o;
}

static void
resources_list(void *ctx, struct tc_request *req)
{
	list_roots(ctx, req, "resources", root_resource);
}

static void
resources_templates_list(void *ctx, struct tc_request *req)
{
	list_roots(ctx, req, "resourceTemplates", root_template);
}

/*
 * resources/read: the file:// URI becomes a call of the resource tool on
 * its path, taken through everything a tools/call is (deny rules,
 * consent, the audit log, a confined child).
 */
static void
resources_read(void *ctx, struct tc_request *req)
{
	struct srv *s = ctx;
	const struct tc_tool *t;
	const cJSON *uri;
	struct tc_diag d TC_UNINIT;
	char *path, *u, *msg;
	size_t n;
	cJSON *args, *data;

	tc_diag_init(&d);
	if ((t = resource_tool(s)) == NULL) {
		tc_proto_error(req, TC_RPC_METHOD_NOT_FOUND, "method not "
		    "found: this server's policy offers no resources");
		return;
	}
	uri = cJSON_GetObjectItemCaseSensitive(req->params, "uri");
	if (!cJSON_IsString(uri)) {
		tc_proto_error(req, TC_RPC_INVALID_PARAMS,
		    "resources/read needs params.uri, a string");
		return;
	}
	if ((path = uri_path(uri->valuestring)) == NULL) {
		data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "uri", uri->valuestring);
		tc_proto_error_data(req, TC_RPC_RESOURCE_NOT_FOUND, "resource "
		    "not found: only file:// URIs of local paths are served",
		    data);
		return;
	}
	/* "file:///srv/p/" names the directory /srv/p. */
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "path", path);
	free(path);
	if (tc_args_check(t->args, args, &d) != 0) {
		msg = msg_new("resource not found: %s", d.msg);
		cJSON_Delete(args);
		data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "uri", uri->valuestring);
		tc_proto_error_data(req, TC_RPC_RESOURCE_NOT_FOUND,
		    msg != NULL ? msg : "resource not found", data);
		free(msg);
		return;
	}
	if ((u = strdup(uri->valuestring)) == NULL) {
		cJSON_Delete(args);
		tc_proto_error(req, TC_RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	new_call(s, req, t, args, u);
}

static const struct tc_method methods[] = {
	{ "notifications/initialized", on_initialized,
	    TC_METHOD_NOTIFICATION },
	{ "notifications/roots/list_changed", on_roots_changed,
	    TC_METHOD_NOTIFICATION },
	{ "resources/list",	resources_list,		TC_METHOD_REQUEST },
	{ "resources/read",	resources_read,		TC_METHOD_REQUEST },
	{ "resources/templates/list", resources_templates_list,
	    TC_METHOD_REQUEST },
	{ "tools/call",		tools_call,		TC_METHOD_REQUEST },
	{ "tools/list",		tools_list,		TC_METHOD_REQUEST },
};

/* --- Set-up --- */

/*
 * Prints the help, asked for with --help: on stderr, like everything but
 * MCP messages and the report of --check.
 */
static void
usage(const struct tc_server *def)
{
	fprintf(stderr, "usage: %s [-hqVvw] [--check] [-p FILE] [-t MS] "
	    "[-u USER[:GROUP]]\n"
	    "       %*s [--max-message-bytes N] [--allow-degraded LAYER] "
	    "[DIR...]\n"
	    "       %s --print-config HOST [-w] [-p FILE] [DIR...]\n"
	    "%s.\n\n"
	    "  -p, --policy FILE        the directories and limits of "
	    "policy FILE;\n"
	    "                           see toolcell-policy(5)\n"
	    "      --check              print the effective policy on "
	    "stdout, or its\n"
	    "                           errors on stderr, and exit\n"
	    "      --print-config HOST  print what starts this server from "
	    "an MCP host\n"
	    "                           (claude-code, cursor, vscode, ...), "
	    "and exit\n"
	    "  -w, --write              the DIRs given here are writable "
	    "(read-only\n"
	    "                           otherwise)\n"
	    "  -t, --timeout MS         per-call deadline in milliseconds "
	    "(default 30000)\n"
	    "  -u, --run-as USER[:GROUP]  as root: run each call as USER "
	    "(and GROUP)\n"
	    "      --max-message-bytes N  longest input message accepted "
	    "(default 16 MiB)\n"
	    "      --allow-degraded LAYER  run even if the kernel lacks "
	    "LAYER:\n"
	    "                           landlock or seccomp\n"
	    "  -v, --verbose            log each call on stderr\n"
	    "  -q, --quiet              log only errors\n"
	    "  -V, --version            print the version and exit\n"
	    "  -h, --help               print this help and exit\n\n"
	    "DIRs are served as well as the policy's directories.  Options "
	    "given here\n"
	    "override the policy's settings.  It speaks MCP on stdin and "
	    "stdout, for an\n"
	    "MCP client (a host such as an editor or a chat application) "
	    "that starts it;\n"
	    "see %s(1).  A usage error exits 2.\n",
	    def->name, (int)strlen(def->name), "", def->name, def->summary,
	    def->name);
}

/* Says what is wrong with the command line and exits TC_EXIT_USAGE. */
static noreturn void
usage_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_usage_verror(fmt, ap);
	va_end(ap);
	exit(TC_EXIT_USAGE);
}

static long long
number(const char *name, const char *s, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		usage_fail("%s: '%s' is not a number from %lld to %lld", name,
		    s, min, max);
	return v;
}

/* Prints one error of the policy file on stderr, and counts it. */
static void
report_error(void *ctx, const char *msg)
{
	int *nerrors = ctx;

	tc_log(TC_LOG_ERROR, "%s", msg);
	(*nerrors)++;
}

/* Prints one warning about the policy on stderr. */
static void
report_warning(void *ctx, const char *msg)
{
	(void)ctx;
	tc_warn("%s", msg);
}

/*
 * Warns about what in the policy can have no effect (tc_policy_warn()), on
 * --check as at start, so that a policy that checks clean does what it
 * says.
 */
static void
warn_policy(const struct tc_server *def, const struct tc_policy *pol)
{
	const char **writers;
	size_t k, n = 0;

	if ((writers = calloc(def->ntools + 1, sizeof(*writers))) == NULL)
		tc_fatal("out of memory");
	for (k = 0; k < def->ntools; k++)
		if ((def->tools[k].flags & TC_TOOL_NEEDS_WRITE) &&
		    tc_tool_alias_of(&def->tools[k]) == NULL)
			writers[n++] = def->tools[k].name;
	tc_policy_warn(pol, writers, report_warning, NULL);
	free(writers);
}

/* What the command line says, applied over the policy file's settings. */
struct cmdline {
	const char	*policy;
	int		 check;
	unsigned	 rootflags;
	int		 timeout_ms;	/* 0: not given */
	const char	*run_as;
	unsigned	 degraded;
	const char	*host;		/* --print-config HOST */
};

/*
 * Says, when a directory given on the command line was already a root
 * (|r|, its flags |before|) and the two ask for different access, what
 * it is served with: one root, with the wider access.
 */
static void
twice(const struct tc_root *r, unsigned before, unsigned flags)
{
	char at[32];

	if (!((before ^ flags) & TC_ROOT_WRITE))
		return;
	if (r->line > 0)
		snprintf(at, sizeof(at), "line %d", r->line);
	else
		snprintf(at, sizeof(at), "command line");
	tc_warn("'%s' is given twice, %s (%s) and %s (command line): served "
	    "once, writable", r->path, (before & TC_ROOT_WRITE) ? "writable" :
	    "read-only", at, (flags & TC_ROOT_WRITE) ? "writable" :
	    "read-only");
}

/*
 * Fills |pol| from the policy file, the positional directories and the
 * options, in that order, so that the options win.  Every error is printed
 * and counted; returns the count.
 */
static int
load_policy(const struct tc_server *def, struct tc_policy *pol,
    const struct cmdline *cl, char **dirs, int ndirs)
{
	struct tc_diag d = { "", 0 };
	const char **names;
	size_t k, n = 0;
	int i, nerrors = 0, line;
	unsigned before;

	/* Before anything reads the table (an alias, the entry before it). */
	if (tc_tools_validate(def->tools, def->ntools, &d) != 0)
		TC_BUG("%s", d.msg);
	if ((names = calloc(def->ntools + 1, sizeof(*names))) == NULL)
		tc_fatal("out of memory");
	for (k = 0; k < def->ntools; k++)
		if (tc_tool_alias_of(&def->tools[k]) == NULL)
			names[n++] = def->tools[k].name;
	if (tc_policy_set_server(pol, def->name, names, n,
	    def->policy_features) != 0)
		tc_fatal("out of memory");
	free(names);
	for (k = 0; k < def->ntools; k++) {
		if (tc_tool_alias_of(&def->tools[k]) == NULL)
			continue;
		i = tc_policy_add_alias(pol, def->tools[k].name,
		    tc_tool_alias_of(&def->tools[k]));
		if (i == TC_ENOMEM)
			tc_fatal("out of memory");
		if (i != 0)
			TC_BUG("tool '%s': an alias of no tool",
			    def->tools[k].name);
	}
	if (cl->policy != NULL)
		tc_policy_load(pol, cl->policy, report_error, &nerrors, &d);
	for (i = 0; i < ndirs; i++) {
		if (tc_policy_add_root_once(pol, dirs[i], cl->rootflags, &k,
		    &before, &d) != 0) {
			tc_log(TC_LOG_ERROR, "cannot serve %s", d.msg);
			nerrors++;
		} else if (k != SIZE_MAX)
			twice(&pol->roots[k], before, cl->rootflags);
	}
	if (cl->timeout_ms != 0) {
		pol->limits.deadline_ms = cl->timeout_ms;
		pol->set_at[TC_SET_TIMEOUT] = TC_SET_CMDLINE;
	}
	if (cl->degraded & TC_DEGRADE_LANDLOCK)
		pol->set_at[TC_SET_DEGRADE_LANDLOCK] = TC_SET_CMDLINE;
	if (cl->degraded & TC_DEGRADE_SECCOMP)
		pol->set_at[TC_SET_DEGRADE_SECCOMP] = TC_SET_CMDLINE;
	pol->allow_degraded |= cl->degraded;
	/* One resolver, and so the same checks and messages, for the
	 * option and the policy's run-as. */
	if (cl->run_as != NULL) {
		free(pol->run_as_spec);
		if ((pol->run_as_spec = strdup(cl->run_as)) == NULL)
			tc_fatal("out of memory");
		pol->set_at[TC_SET_RUN_AS] = TC_SET_CMDLINE;
		if (tc_policy_run_as(pol, cl->run_as, &d) != 0) {
			tc_log(TC_LOG_ERROR, "--run-as: %s", d.msg);
			nerrors++;
		}
	} else if (pol->run_as_spec != NULL) {
		line = pol->set_at[TC_SET_RUN_AS];
		if (tc_policy_run_as(pol, pol->run_as_spec, &d) != 0) {
			tc_log(TC_LOG_ERROR, "%s:%d: run-as: %s", cl->policy,
			    line, d.msg);
			nerrors++;
		}
	}
	if (tc_policy_finish(pol, &d) != 0)
		tc_fatal("%s", d.msg);
	/* The files the server trusts, out of every call's reach; one that
	 * a call could replace refuses the start. */
	tc_own_collect(pol, cl->policy, report_error, &nerrors);
	return nerrors;
}

/*
 * --print-config HOST: writes the entry that starts this server from HOST
 * with the options given here, the policy and the directories made
 * absolute and the binary found through /proc/self/exe, so that the host,
 * which starts servers from an unknown directory, finds them.  Without a
 * directory or a policy, only VS Code has one to serve: its workspace
 * folder.  Returns the exit status.
 */
static int
print_config(const struct tc_server *def, const struct cmdline *cl,
    char **dirs, int ndirs)
{
	struct tc_hostconfig hc;
	struct tc_diag d = { "", 0 };
	struct passwd *pw;
	struct utsname u;
	const char **args;
	char exe[PATH_MAX], timeout[32], target[512], **abs;
	const char *distro;
	ssize_t n;
	size_t k = 0;
	int i, rc = 0;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
		tc_fatal("--print-config: cannot find this binary: "
		    "/proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	if (cl->policy == NULL && ndirs == 0 &&
	    strcmp(cl->host, "vscode") != 0)
		usage_fail("--print-config %s: name the directories to serve, "
		    "or --policy FILE", cl->host);
	if ((cl->rootflags & TC_ROOT_WRITE) && ndirs == 0)
		usage_fail("--write: it applies to the directories given on "
		    "the command line, and there are none");
	args = calloc((size_t)ndirs + 16, sizeof(*args));
	abs = calloc((size_t)ndirs + 1, sizeof(*abs));
	if (args == NULL || abs == NULL)
		tc_fatal("out of memory");
	/* The policy first: abs[ndirs]. */
	if (cl->policy != NULL) {
		if ((abs[ndirs] = realpath(cl->policy, NULL)) == NULL)
			tc_fatal("--print-config: cannot find policy '%s': %s",
			    cl->policy, strerror(errno));
		args[k++] = "--policy";
		args[k++] = abs[ndirs];
	}
	if (cl->timeout_ms != 0) {
		snprintf(timeout, sizeof(timeout), "%d", cl->timeout_ms);
		args[k++] = "--timeout";
		args[k++] = timeout;
	}
	if (cl->run_as != NULL) {
		args[k++] = "--run-as";
		args[k++] = cl->run_as;
	}
	if (cl->degraded & TC_DEGRADE_LANDLOCK) {
		args[k++] = "--allow-degraded";
		args[k++] = "landlock";
	}
	if (cl->degraded & TC_DEGRADE_SECCOMP) {
		args[k++] = "--allow-degraded";
		args[k++] = "seccomp";
	}
	if (cl->rootflags & TC_ROOT_WRITE)
		args[k++] = "--write";
	for (i = 0; i < ndirs; i++) {
		if ((abs[i] = realpath(dirs[i], NULL)) == NULL)
			tc_fatal("--print-config: cannot find directory '%s': "
			    "%s", dirs[i], strerror(errno));
		args[k++] = abs[i];
	}
	if (cl->policy == NULL && ndirs == 0)
		args[k++] = "${workspaceFolder}";
	/* For ssh: this user on this machine, as a starting point. */
	pw = getpwuid(getuid());
	if (uname(&u) != 0)
		snprintf(u.nodename, sizeof(u.nodename), "localhost");
	snprintf(target, sizeof(target), "%s@%s",
	    pw != NULL ? pw->pw_name : "user", u.nodename);
	distro = getenv("WSL_DISTRO_NAME");
	memset(&hc, 0, sizeof(hc));
	hc.name = def->name;
	hc.command = exe;
	hc.args = args;
	hc.wsl_distro = distro != NULL && *distro != '\0' ? distro : NULL;
	hc.ssh_target = target;
	/* The snippet is the one thing this run writes to stdout. */
	if (tc_hostconfig_print(stdout, cl->host, &hc, &d) != 0) {
		tc_log(TC_LOG_ERROR, "--print-config: %s", d.msg);
		rc = 1;
	}
	for (i = 0; i <= ndirs; i++)
		free(abs[i]);
	free(abs);
	free(args);
	return rc;
}

/*
 * Wipes the environment the server was started with: its children build
 * their own, and a secret left in it (an API key, a token) would be one
 * memory read away.  The strings themselves are zeroed, since
 * /proc/PID/environ reads them where they are, whatever environ says.
 */
static void
scrub_environment(void)
{
	char **e;

	for (e = environ; e != NULL && *e != NULL; e++)
		explicit_bzero(*e, strlen(*e));
	clearenv();
}

static void
build_instructions(struct srv *s)
{
	const struct tc_root *r;
	size_t i;

	tc_buf_init(&s->instructions, 1u << 16);
	tc_buf_printf(&s->instructions, "%s gives access to %s only under: ",
	    s->def->name, s->def->touches);
	for (i = 0; i < s->pol.nroots; i++) {
		r = &s->pol.roots[i];
		tc_buf_printf(&s->instructions, "%s%s (%s)", i ? "; " : "",
		    r->path, (r->flags & TC_ROOT_WRITE) ? "read-write" :
		    "read-only");
	}
	tc_buf_printf(&s->instructions, ". Anything else is refused; "
	    "relative paths are taken from %s. Every call runs in a "
	    "confined, short-lived process.", s->pol.roots[0].path);
	if (s->pol.run_as)
		tc_buf_printf(&s->instructions, " Calls run as uid %u, gid "
		    "%u: what that user may not read is refused.",
		    (unsigned)s->pol.run_uid, (unsigned)s->pol.run_gid);
	if (s->sb.degraded & TC_DEGRADE_LANDLOCK)
		tc_buf_printf(&s->instructions, " Degraded: the kernel's "
		    "Landlock path whitelist is not in force.");
	if (s->sb.degraded & TC_DEGRADE_SECCOMP)
		tc_buf_printf(&s->instructions, " Degraded: the kernel's "
		    "seccomp system-call filter is not in force.");
	if (s->sb.degraded & TC_DEGRADE_NAMESPACES)
		tc_buf_printf(&s->instructions, " Degraded: programs run "
		    "without namespaces of their own (the kernel denies "
		    "them).");
}

/*
 * Says on stderr what the server serves and that it waits for a client,
 * for a person who started it by hand in a terminal: it says nothing more
 * until a client speaks.  Two lines; too many directories are cut, marked.
 */
static void
say_waiting(const struct srv *s)
{
	const struct tc_root *r;
	struct tc_buf b;
	size_t i;

	tc_buf_init(&b, 4096);
	for (i = 0; i < s->pol.nroots; i++) {
		r = &s->pol.roots[i];
		if (tc_buf_printf(&b, "%s%s (%s)", i ? ", " : "", r->path,
		    (r->flags & TC_ROOT_WRITE) ? "read-write" :
		    "read-only") != 0)
			break;
	}
	tc_info("serving %s%s", b.data != NULL ? b.data : "",
	    i < s->pol.nroots ? ", " TC_TEXT_CUT : "");
	tc_info("waiting for an MCP client on standard input: an MCP host "
	    "starts this server and speaks to it (see %s(1)); Ctrl-D ends it",
	    s->def->name);
	tc_buf_release(&b);
}

static void
build_tools(struct srv *s)
{
	const struct tc_tool *rt;
	struct tc_diag d = { "", 0 };
	size_t i;

	if (tc_tools_validate(s->def->tools, s->def->ntools, &d) != 0)
		TC_BUG("%s", d.msg);
	if ((s->tools = cJSON_CreateArray()) == NULL)
		tc_fatal("out of memory");
	for (i = 0; i < s->def->ntools; i++) {
		if (visible_tool(s, s->def->tools[i].name) == NULL)
			continue;
		cJSON_AddItemToArray(s->tools,
		    tc_tool_describe(&s->def->tools[i]));
		tc_profiles_add(&s->profiles, s->def->tools[i].profile);
	}
	if ((rt = resource_tool(s)) != NULL)
		tc_profiles_add(&s->profiles, rt->profile);
}

static int
make_sigfd(void)
{
	sigset_t set;
	int fd;

	/* The client's end of stdout may close at any time: a write then
	 * fails with EPIPE instead of killing the server. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
	    (fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		tc_fatal("cannot set up signal handling: %s", strerror(errno));
	return fd;
}

/* --- The loop --- */

static void
stop_all(struct srv *s)
{
	struct call *c;

	while ((c = s->asking) != NULL)
		tc_consent_give_up(s, c, "server-stopped", "the server stopped "
		    "while consent was asked, which counts as no");
	while ((c = s->held) != NULL) {
		struct tc_diag d = { "", 0 };

		unlink_call(&s->held, &s->held_tail, c);
		s->nheld--;
		if (tc_record_call(s, c, "cancelled", "server", NULL, "the "
		    "server stopped while it waited for the client's roots",
		    &d) != 0)
			tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
		tc_request_free(c->req);
		tc_srv_free_call(c);
	}
	while ((c = s->queue) != NULL) {
		unlink_call(&s->queue, &s->queue_tail, c);
		s->nqueued--;
		end_unstarted(s, c, TC_OUT_CANCELLED, "the server stopped "
		    "before the call started");
	}
	for (c = s->calls; c != NULL; c = c->next) {
		c->cancelled = 1;
		tc_run_kill(&c->run, TC_OUT_CANCELLED);
	}
	while ((c = s->calls) != NULL) {
		tc_run_wait(&c->run);
		s->calls = c->next;
		finish(s, c);
	}
}

/*
 * Lowers *|timeout| (in ms, -1 for none) to |left|, the time to a
 * deadline; one already past means now, not never.
 */
static void
sooner(int64_t *timeout, int64_t left)
{
	if (left < 0)
		left = 0;
	if (*timeout < 0 || left < *timeout)
		*timeout = left;
}

static void
serve(struct srv *s)
{
	struct signalfd_siginfo si;
	struct pollfd *pfd = NULL;
	struct call *c, **cp, *next;
	size_t npfd, cap = 0;
	int64_t now, timeout, t;
	int n, dead, ndead;

	for (;;) {
		if (s->proto.dead || s->stop || (s->proto.eof &&
		    s->calls == NULL && s->queue == NULL && s->held == NULL))
			break;
		/* Nothing is running: prepare the standby children the calls
		 * used up.  Not while a call runs, which preparing a child
		 * (clone, confinement: CPU-bound) would slow down. */
		if (!s->proto.eof && s->calls == NULL)
			tc_sandbox_refill(&s->sb);
		if (cap < 2 + 2 * (size_t)s->ncalls + 3 * (size_t)s->nasking +
		    TC_DEAD_MAX) {
			cap = 2 + 2 * (size_t)s->ncalls +
			    3 * (size_t)s->nasking + TC_DEAD_MAX + 16;
			free(pfd);
			if ((pfd = calloc(cap, sizeof(*pfd))) == NULL)
				tc_fatal("out of memory");
		}
		npfd = 0;
		pfd[npfd].fd = s->sigfd;
		pfd[npfd++].events = POLLIN;
		pfd[npfd].fd = s->proto.eof ? -1 : s->proto.cfg.in_fd;
		pfd[npfd++].events = POLLIN;
		now = tc_now_ms();
		timeout = -1;
		for (c = s->calls; c != NULL; c = c->next) {
			c->pfd = (int)npfd;
			c->npfd = tc_run_pollfds(&c->run, pfd + npfd);
			npfd += (size_t)c->npfd;
			if (!c->run.killed)
				sooner(&timeout, c->run.deadline_ms - now);
		}
		for (c = s->asking; c != NULL; c = c->next) {
			c->pfd = (int)npfd;
			c->npfd = tc_consent_pollfds(c, pfd + npfd);
			npfd += (size_t)c->npfd;
		}
		/* The children of answered calls, until they are reaped. */
		dead = (int)npfd;
		ndead = tc_sandbox_pollfds(&s->sb, pfd + npfd);
		npfd += (size_t)ndead;
		if ((t = tc_consent_next_deadline(s)) >= 0)
			sooner(&timeout, t - now);
		if (s->roots_id >= 0 || (s->held != NULL &&
		    roots_pending(s) && !s->roots_apply))
			sooner(&timeout, s->roots_deadline_ms - now);
		if (timeout > INT_MAX)
			timeout = INT_MAX;
		n = poll(pfd, (nfds_t)npfd, (int)timeout);
		if (n < 0 && errno != EINTR)
			tc_fatal("poll: %s", strerror(errno));
		if (n > 0 && pfd[0].revents) {
			while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
				tc_info("signal %u: stopping", si.ssi_signo);
				s->stop = 1;
				s->stop_reason = "signal";
			}
		}
		if (n > 0)
			tc_sandbox_step(&s->sb, pfd + dead, ndead);
		/* Calls first: a new call started by this round's input has
		 * no pollfds yet. */
		now = tc_now_ms();
		for (cp = &s->calls; (c = *cp) != NULL;) {
			if (tc_run_step(&c->run, c->npfd ? pfd + c->pfd : NULL,
			    c->npfd, now)) {
				*cp = c->next;
				finish(s, c);
			} else
				cp = &c->next;
		}
		/* Settling consent unlinks the call (and may start it): walk
		 * a snapshot of the list. */
		for (c = s->asking; c != NULL; c = next) {
			next = c->next;
			if (c->pfd >= 0)
				tc_consent_step(s, c, c->npfd ? pfd + c->pfd :
				    NULL, c->npfd, now);
		}
		if (n > 0 && pfd[1].fd >= 0 && pfd[1].revents)
			tc_proto_read(&s->proto);
		/* Nobody is left to answer a question for consent: an
		 * elicitation's answer would come on the input. */
		while (s->proto.eof && (c = s->asking) != NULL)
			tc_consent_give_up(s, c, "input-closed", "the input "
			    "closed while consent was asked, which counts as "
			    "no");
		now = tc_now_ms();
		if (s->roots_id >= 0 && (now >= s->roots_deadline_ms ||
		    s->proto.eof)) {
			tc_warn("no answer to roots/list within %d ms: serving "
			    "the roots in force", s->pol.roots_timeout_ms);
			tc_proto_forget(&s->proto, s->roots_id);
			s->roots_id = -1;
		}
		if (s->held != NULL && !s->initialized && !s->roots_gave_up &&
		    now >= s->roots_deadline_ms) {
			tc_warn("tools/call before notifications/initialized, "
			    "which did not come within %d ms: serving the "
			    "policy's directories", s->pol.roots_timeout_ms);
			s->roots_gave_up = 1;
		}
		if (s->roots_apply && s->calls == NULL && s->queue == NULL &&
		    s->asking == NULL)
			apply_roots(s);
		release_held(s);
		start_queued(s);
	}
	free(pfd);
	stop_all(s);
}

int
tc_server_main(const struct tc_server *def, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "policy",		required_argument,	NULL, 'p' },
		{ "check",		no_argument,		NULL, 'C' },
		{ "write",		no_argument,		NULL, 'w' },
		{ "timeout",		required_argument,	NULL, 't' },
		{ "run-as",		required_argument,	NULL, 'u' },
		{ "max-message-bytes",	required_argument,	NULL, 'M' },
		{ "allow-degraded",	required_argument,	NULL, 'D' },
		{ "verbose",		no_argument,		NULL, 'v' },
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "version",		no_argument,		NULL, 'V' },
		{ "help",		no_argument,		NULL, 'h' },
		{ "print-config",	required_argument,	NULL, 'P' },
		{ NULL,			0,			NULL, 0 }
	};
	enum tc_log_level level = TC_LOG_INFO;
	struct tc_proto_config pc;
	struct tc_diag d = { "", 0 };
	struct cmdline cl;
	struct srv s;
	size_t max_frame = TC_MAX_FRAME;
	int ch, nerrors;

	memset(&s, 0, sizeof(s));
	memset(&cl, 0, sizeof(cl));
	s.def = def;
	s.queue_tail = &s.queue;
	s.held_tail = &s.held;
	s.roots_id = -1;
	tc_log_init(def->name, level);
	tc_policy_init(&s.pol);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":p:wt:u:vqVh", opts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'p':
			if (cl.policy != NULL)
				usage_fail("--policy: given twice; one policy "
				    "file says everything");
			cl.policy = optarg;
			break;
		case 'C':
			cl.check = 1;
			break;
		case 'w':
			cl.rootflags |= TC_ROOT_WRITE;
			break;
		case 't':
			cl.timeout_ms = (int)number("--timeout", optarg, 1,
			    3600 * 1000);
			break;
		case 'u':
			cl.run_as = optarg;
			break;
		case 'M':
			max_frame = (size_t)number("--max-message-bytes",
			    optarg, 64, 1LL << 30);
			break;
		case 'D':
			if (strcmp(optarg, "landlock") == 0)
				cl.degraded |= TC_DEGRADE_LANDLOCK;
			else if (strcmp(optarg, "seccomp") == 0)
				cl.degraded |= TC_DEGRADE_SECCOMP;
			else
				usage_fail("--allow-degraded: unknown layer "
				    "'%s' (known: landlock, seccomp)", optarg);
			break;
		case 'P':
			if (!tc_hostconfig_known(optarg))
				usage_fail("--print-config: unknown host '%s' "
				    "(known: %s)", optarg,
				    tc_hostconfig_hosts());
			cl.host = optarg;
			break;
		case 'v':
			level = TC_LOG_DEBUG;
			break;
		case 'q':
			level = TC_LOG_ERROR;
			break;
		case 'V':
			fprintf(stderr, "%s %s\n", def->name, def->version);
			return 0;
		case 'h':
			usage(def);
			return 0;
		default:
			tc_usage_bad_option(NULL, ch, argv, opts);
			return TC_EXIT_USAGE;
		}
	}
	if (cl.host != NULL) {
		tc_log_init(def->name, level);
		return print_config(def, &cl, argv + optind, argc - optind);
	}
	if (cl.policy == NULL && optind == argc) {
		tc_log(TC_LOG_ERROR, "no directories to serve: run '%s "
		    "--policy FILE' (see toolcell-policy(5)), '%s DIR...' to "
		    "serve DIR read-only, or '%s --write DIR...' to allow "
		    "changes", def->name, def->name, def->name);
		return TC_EXIT_USAGE;
	}
	/* Not a silent no-op: the user meant something by it. */
	if ((cl.rootflags & TC_ROOT_WRITE) && optind == argc)
		usage_fail("--write: it applies to the directories given on "
		    "the command line, and there are none; write 'allow write "
		    "DIR' in the policy instead");
	tc_log_init(def->name, level);
	nerrors = load_policy(def, &s.pol, &cl, argv + optind, argc - optind);
	/* The tools first: the sandbox prepares only their profiles.  Then
	 * every check of a start, for --check as well (start.c); a start
	 * already refused still lists what else is wrong. */
	build_tools(&s);
	tc_srv_prepare(&s, cl.check ? TC_PREP_CHECK : nerrors > 0 ?
	    TC_PREP_REFUSED : TC_PREP_START, report_error, &nerrors);
	if (nerrors > 0)
		tc_fatal("%d error%s%s", nerrors, nerrors == 1 ? "" : "s",
		    cl.check ? "" : ": not starting");
	warn_policy(def, &s.pol);
	if (cl.check) {
		/* No MCP session is started with --check, so its report is
		 * the one thing ever written to stdout outside protocol.c. */
		if (tc_policy_print(&s.pol, stdout) != 0)
			tc_fatal("cannot write the policy: %s",
			    strerror(errno));
		tc_sandbox_release(&s.sb);
		cJSON_Delete(s.tools);
		tc_policy_release(&s.pol);
		return 0;
	}
	/* What a consent hook may need (the desktop session, the
	 * terminal), kept before everything else goes. */
	tc_hook_env_capture();
	scrub_environment();
	build_instructions(&s);
	s.sigfd = make_sigfd();

	memset(&pc, 0, sizeof(pc));
	pc.name = def->name;
	pc.title = def->title;
	pc.version = def->version;
	pc.instructions = s.instructions.data;
	/* Resources are declared only when the policy lets them be read;
	 * their list follows the roots, which the client may narrow. */
	pc.capabilities = resource_tool(&s) != NULL ?
	    "{\"tools\":{},\"resources\":{\"listChanged\":true}}" :
	    "{\"tools\":{}}";
	pc.methods = methods;
	pc.nmethods = TC_NITEMS(methods);
	pc.on_cancel = on_cancel;
	pc.ctx = &s;
	pc.max_frame = max_frame;
	pc.in_fd = STDIN_FILENO;
	pc.out_fd = STDOUT_FILENO;
	/* A client reading a large answer in one go, not 64 KiB at a time
	 * while the server waits on each. */
	tc_stream_grow(STDOUT_FILENO, 4 * TC_PIPE_BYTES);
	tc_proto_init(&s.proto, &pc);
	/* The log was opened (tc_srv_prepare()) before the spawner is
	 * forked, which then closes it with every fd it does not need: the
	 * children it forks know the log made now as one of the server's
	 * own files (own.h). */
	if (s.audit != NULL) {
		if (tc_record_start(&s, &d) != 0) {
			tc_log(TC_LOG_ERROR, "%s", d.msg);
			tc_fatal("1 error: not starting");
		}
		if (tc_own_refresh(&s.pol) != 0)
			tc_fatal("out of memory");
	}
	tc_sandbox_prefork(&s.sb, s.pol.children);

	if (isatty(STDIN_FILENO))
		say_waiting(&s);
	serve(&s);

	if (tc_record_stop(&s, &d) != 0)
		tc_log(TC_LOG_ERROR, "audit: %s", d.msg);
	tc_audit_close(s.audit);
	while (s.allowed != NULL) {
		struct allowance *a = s.allowed;

		s.allowed = a->next;
		free(a);
	}
	tc_proto_release(&s.proto);
	cJSON_Delete(s.tools);
	tc_buf_release(&s.instructions);
	tc_sandbox_release(&s.sb);
	tc_policy_release(&s.pol);
	close(s.sigfd);
	return 0;
}
