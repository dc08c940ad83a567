/*
 * admission.c: whether a tools/call may run: its tool and arguments, the
 * paths it names, resolved beneath the roots, the deny rules, and the
 * consent it needs, decided before anything is forked.
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
#include "base/clock.h"
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
	/* No name resolved: |fd| is the root itself, most likely. */
	if ((have != 0 || tc_path_where_root(&s->pol, root, fd, &w) != 0) &&
	    tc_path_where(&s->pol, root, fd, &w, &why) != 0)
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
 * their patterns for |kind| matches a subject of that kind whose value is
 * |value|: for a path or cwd (|value| absolute, |rel| relative to its
 * root), as deny rules match it, through every root that holds it.
 */
static void
consent_mark(struct srv *s, struct call *c, enum tc_subject_kind kind,
    const char *value, const char *rel)
{
	const struct tc_consent_rule *r;
	const char *tool = tc_tool_policy_name(c->call.tool);
	unsigned bit = 1u << kind;
	size_t i;

	if (c->consent_hit == NULL)
		return;
	for (i = 0; i < s->pol.nconsent; i++) {
		r = &s->pol.consent[i];
		if ((c->consent_hit[i] & bit) || !(r->kinds & bit) ||
		    (strcmp(r->tool, "*") != 0 && strcmp(r->tool, tool) != 0))
			continue;
		if (tc_consent_rule_match(&s->pol, r, kind, value, rel))
			c->consent_hit[i] |= bit;
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
 * Refuses |c|, whose working directory |d| says is outside the allowed
 * directories, as the policy's decision, with what the roots are when
 * the client gives them.  Returns -1.
 */
static int
deny_cwd_outside(struct srv *s, struct call *c, const struct tc_diag *d)
{
	char note[1024], *msg;

	if (*tc_policy_roots_note(&s->pol, note, sizeof(note)) != '\0')
		msg = tc_text_alloc("cwd %s. %s", d->msg, note);
	else
		msg = tc_text_alloc("cwd %s", d->msg);
	tc_srv_deny(s, c, "policy", NULL, msg != NULL ? msg : d->msg);
	free(msg);
	return -1;
}

/*
 * Returns 1 if the working directory |tp| (|user| as given), which did not
 * resolve, leads out of its root (".." above it, a symbolic link out of
 * it), with |d| saying so, as the child would; else 0: whatever else
 * stops it (not there, not a directory) is the handler's to report.
 */
static int
cwd_leaves_root(struct srv *s, const struct tc_path *tp, const char *user,
    struct tc_diag *d)
{
	int fd;

	if ((fd = tc_path_openat(&s->pol, tp, O_PATH | O_DIRECTORY |
	    O_CLOEXEC, 0)) >= 0) {
		close(fd);
		return 0;
	}
	return tc_path_error(d, user, errno) == TC_EOUTSIDE;
}

/*
 * Adds the path |user| names to |c|'s paths, resolved to where it really
 * leads, and checks it against the deny rules, as given and as resolved
 * (the child checks again on what it opens); for a tool that changes
 * files, also where the change is made: the last name in the directory
 * it really is in, which a change never follows.  Each of these spellings
 * is matched against the consent rules.  Returns 0, or -1 after refusing
 * the call.  A path that is one of several (|one_of|, an array member)
 * and that a rule denies is only left out: the child refuses that one
 * path, and the call's other paths are read.  A path outside every root
 * is left to the handler to report, but a working directory (|kind|
 * TC_SUBJECT_CWD) outside them, or leading out of one, is refused here.
 */
static int
add_path(struct srv *s, struct call *c, const char *user, unsigned access,
    int one_of, enum tc_subject_kind kind)
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
	/* A path outside every root is the handler's to report, as ever; a
	 * working directory is refused here, so that the record and the
	 * consent rules on "cwd" see it: no program runs outside. */
	if ((rc = tc_path_map(&s->pol, user, &tp, &d)) != 0)
		return kind == TC_SUBJECT_CWD && rc == TC_EOUTSIDE ?
		    deny_cwd_outside(s, c, &d) : 0;
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
	if (rule == NULL && !resolved && kind == TC_SUBJECT_CWD &&
	    cwd_leaves_root(s, &tp, user, &d)) {
		rc = deny_cwd_outside(s, c, &d);
		goto out;
	}
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
			tc_srv_deny(s, c, "policy", rs, d.msg);
			free(rs);
			rc = -1;
		}
		goto out;
	}
	if (c->consent_hit != NULL) {
		if ((gabs = tc_path_given(&s->pol, &tp, &grel)) == NULL)
			goto nomem;
		consent_mark(s, c, kind, gabs, *grel != '\0' ? grel : ".");
		if (resolved)
			consent_mark(s, c, kind, res.abs, res.rel);
		if (ent.abs != NULL)
			consent_mark(s, c, kind, ent.abs, ent.rel);
		/* What they were, should consent be given for the call. */
		if ((resolved && keep_pin(c, &tp, TC_PIN_PATH, &res) != 0) ||
		    (ent.abs != NULL && keep_pin(c, &tp, TC_PIN_ENTRY,
		    &ent) != 0))
			goto nomem;
	}
	if (resolved && tc_subjects_add(&c->subjects, kind, res.abs,
	    kind != TC_SUBJECT_PATH ? 0 : (access & TC_ACCESS_WRITE) ?
	    TC_SUBJECT_WRITE : TC_SUBJECT_READ) != 0)
		goto nomem;
	if (resolved && kind == TC_SUBJECT_PATH && keep_path(c, &res) != 0)
		goto nomem;
	goto out;
nomem:
	tc_srv_deny(s, c, "server", NULL, "The call was not run: out of memory "
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
 * Collects the paths |c|'s arguments name (TC_ARG_PATH), its first
 * subjects, for consent rules, refusing the call if a deny rule covers
 * one.  Returns 0, or -1 once the call is refused.
 */
static int
collect_paths(struct srv *s, struct call *c)
{
	const struct tc_arg *a;
	const cJSON *v, *e;
	unsigned access;

	/* A tool that is not read-only may change what it names. */
	access = (c->call.tool->flags & TC_TOOL_READONLY) ?
	    TC_ACCESS_READ : TC_ACCESS_WRITE;
	if (s->pol.nconsent > 0 && (c->consent_hit = calloc(s->pol.nconsent,
	    sizeof(*c->consent_hit))) == NULL) {
		tc_srv_deny(s, c, "server", NULL, "The call was not run: out of "
		    "memory while its paths were checked.");
		return -1;
	}
	for (a = c->call.tool->args; a != NULL && a->name != NULL; a++) {
		if (!(a->flags & TC_ARG_PATH))
			continue;
		v = cJSON_GetObjectItemCaseSensitive(c->call.args, a->name);
		if (cJSON_IsString(v)) {
			if (add_path(s, c, v->valuestring, access, 0,
			    TC_SUBJECT_PATH) != 0)
				return -1;
		} else if (cJSON_IsArray(v)) {
			cJSON_ArrayForEach(e, v)
				if (cJSON_IsString(e) &&
				    add_path(s, c, e->valuestring, access, 1,
				    TC_SUBJECT_PATH) != 0)
					return -1;
		}
	}
	return 0;
}


/*
 * Adds the subjects |c|'s tool finds in its arguments (tools.h) after its
 * paths: a path or working directory is resolved and checked as a path
 * argument is; the other kinds are taken as the tool gives them and
 * matched against the consent rules.  The tool may refuse the call.
 * Returns 0, or -1 once the call is refused.
 */
static int
collect_subjects(struct srv *s, struct call *c)
{
	const struct tc_tool *t = c->call.tool;
	struct tc_subject_ctx ctx;
	struct tc_subjects more;
	const struct tc_subject *sub;
	struct tc_diag d TC_UNINIT;
	char *msg;
	size_t i;
	int rc;

	if (t->subjects == NULL)
		return 0;
	tc_diag_init(&d);
	tc_subjects_init(&more);
	ctx.policy = &s->pol;
	ctx.tool = t;
	if ((rc = t->subjects(&ctx, c->call.args, &more, &d)) != 0) {
		if (d.msg[0] == '\0')
			tc_text_fmt(d.msg, sizeof(d.msg), "%s", tc_strerror(rc));
		msg = rc == TC_EINVAL ? tc_text_alloc("invalid arguments for "
		    "'%s': %s", t->name, d.msg) : NULL;
		tc_srv_deny(s, c, rc == TC_EDENIED ? "policy" : rc == TC_ENOMEM ?
		    "server" : "validation", NULL, msg != NULL ? msg : d.msg);
		free(msg);
		tc_subjects_release(&more);
		return -1;
	}
	for (i = 0; i < more.n; i++) {
		sub = &more.v[i];
		if (sub->kind == TC_SUBJECT_PATH || sub->kind == TC_SUBJECT_CWD) {
			if (add_path(s, c, sub->value, (sub->access &
			    TC_SUBJECT_WRITE) ? TC_ACCESS_WRITE :
			    TC_ACCESS_READ, 0, sub->kind) != 0) {
				tc_subjects_release(&more);
				return -1;
			}
			continue;
		}
		if (tc_subjects_add(&c->subjects, sub->kind, sub->value,
		    sub->access) != 0) {
			tc_subjects_release(&more);
			tc_srv_deny(s, c, "server", NULL, "The call was not "
			    "run: out of memory while its subjects were "
			    "checked.");
			return -1;
		}
		consent_mark(s, c, sub->kind, sub->value, NULL);
	}
	tc_subjects_release(&more);
	return 0;
}



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

/*
 * Words into |msg| the refusal of a call to |name|, which tools/call
 * cannot run.  A tool that the policy leaves on but the server does not
 * offer under it says why, in the server's words (its offered hook); a
 * name that is no tool's gets the closest tool offered, if it looks like
 * a misspelling of it.  A tool the policy switches off is an unknown
 * tool, and is not guessed at.
 */
static void
unknown_tool(const struct srv *s, const char *name, char *msg, size_t size)
{
	const struct tc_tool *t, *best = NULL;
	const struct tc_tool_policy *tp;
	char shown[104], why[512];
	size_t i, d, bestd = SIZE_MAX;

	/* The name is the model's, of any length: cut on a character
	 * boundary (and shown escaped, as every error message is). */
	tc_text_fmt(shown, sizeof(shown), "%s", name);
	why[0] = '\0';
	t = tc_tool_find(s->def->tools, s->def->ntools, name);
	if (t != NULL && !(t->flags & TC_TOOL_RESOURCE) &&
	    ((tp = tc_policy_tool(&s->pol, t->name)) == NULL || tp->enabled) &&
	    s->def->offered != NULL &&
	    !s->def->offered(&s->pol, t, why, sizeof(why))) {
		tc_text_fmt(msg, size, "tool '%s' %s", shown, why[0] != '\0' ?
		    why : "is not offered");
		return;
	}
	for (i = 0; t == NULL && i < s->def->ntools; i++) {
		if (tc_srv_visible_tool(s, s->def->tools[i].name) == NULL)
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

void
tc_srv_tools_call(void *ctx, struct tc_request *req)
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
	if ((t = tc_srv_visible_tool(s, name->valuestring)) == NULL) {
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
	tc_srv_new_call(s, req, t, args, NULL);
}

/* Whether tools/list shows the tool |name|: a refusal points the model
 * to no other. */
static int
offered_tool(const void *ctx, const char *name)
{
	return tc_srv_visible_tool(ctx, name) != NULL;
}

/*
 * Takes request |req| for tool |t| with |args| (a member of the request's
 * params, or for a resources/read, owned with |uri|) through validation,
 * then decides it, or holds it while the client's roots are unsettled.
 */
void
tc_srv_new_call(struct srv *s, struct tc_request *req, const struct tc_tool *t,
    cJSON *args, char *uri)
{
	struct tc_diag d TC_UNINIT;
	struct call *c;
	char *msg;

	tc_diag_init(&d);
	if (tc_srv_find_call(s, req->id_key) != NULL) {
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
		msg = tc_text_alloc("invalid arguments for '%s': strings must not "
		    "contain U+0000", t->name);
		tc_srv_deny(s, c, "validation", NULL, msg != NULL ? msg :
		    "invalid arguments");
		free(msg);
		return;
	}
	if (tc_tool_args_check(t, args, offered_tool, s, &d) != 0) {
		msg = tc_text_alloc("invalid arguments for '%s': %s", t->name,
		    d.msg);
		tc_srv_deny(s, c, "validation", NULL, msg != NULL ? msg :
		    "invalid arguments");
		free(msg);
		return;
	}
	if (s->nqueued + s->nasking + s->nheld >= MAX_QUEUED) {
		msg = tc_text_alloc("the server is busy with %u calls and %u "
		    "waiting; try again when one has finished", s->ncalls,
		    s->nqueued + s->nasking + s->nheld);
		tc_srv_deny(s, c, "busy", NULL, msg != NULL ? msg :
		    "the server is busy; try again when a call has finished");
		free(msg);
		return;
	}
	if (tc_srv_roots_pending(s)) {
		/* Decided once the roots it will run under are known. */
		if (s->held == NULL && s->roots_id < 0 && !s->roots_apply)
			s->roots_deadline_ms = tc_now_ms() +
			    s->pol.roots_timeout_ms;
		tc_srv_append_call(&s->held_tail, c);
		s->nheld++;
		return;
	}
	tc_srv_decide(s, c);
}

/*
 * Decides |c| against the roots in force: deny rules on the paths it
 * names, then consent, then admission.
 */
void
tc_srv_decide(struct srv *s, struct call *c)
{
	const struct tc_consent_rule *rule;

	if (collect_paths(s, c) != 0 || collect_subjects(s, c) != 0)
		return;
	if ((rule = tc_consent_rule(s, c)) != NULL) {
		if (!tc_consent_remembered(s, c, rule)) {
			if (tc_consent_ask(s, c, rule) != 0)
				tc_srv_fail(s, c, "out of memory while asking "
				    "for consent");
			else	/* settled at once when nobody can be asked */
				tc_srv_settled(s);
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

/* Decides the calls held for the roots, in the order they came, once the
 * roots are settled. */
void
tc_srv_release_held(struct srv *s)
{
	struct call *c;

	while (s->held != NULL && !tc_srv_roots_pending(s)) {
		c = s->held;
		tc_srv_unlink_call(&s->held, &s->held_tail, c);
		s->nheld--;
		tc_srv_decide(s, c);
	}
}
