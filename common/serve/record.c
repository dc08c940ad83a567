/*
 * record.c: what the server writes to its audit log, one JSON object per
 * event (audit.c adds the sequence number, the time and the chain).
 *
 *	start	once, before serving: versions, kernel features in force,
 *		the policy and its digest
 *	client	once the client has said who it is
 *	call	every tools/call, whatever becomes of it, even one that
 *		names no tool: the decision ("run", "denied",
 *		"cancelled"), who made it (policy, consent, validation,
 *		busy, client, server) and the rule or answer; the
 *		arguments (paths as given, contents redacted:
 *		tc_audit_args()), the paths resolved, and the subjects
 *		(the paths again, typed, and what the tool found besides)
 *	result	every call admitted to run: the paths and subjects again,
 *		outcome,
 *		duration, bytes, status (one cancelled before it started
 *		is "cancelled")
 *	stop	at exit
 *
 * A "call" record is written before the call is forked: when it cannot be,
 * the call does not run (the log fails closed).  No value is too long to
 * be written: long ones are cut, and the record says so (append()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "base/clock.h"
#include "base/log.h"
#include "serve/server-int.h"

/*
 * Appends |rec| (consumed) to the log, if there is one.  Every value goes
 * in, however long: one longer than TC_AUDIT_VALUE_MAX is cut, and the
 * record's "cut" member says so (tc_audit_cut()).  Should the line still
 * be over its cap (a record naming many long paths full of characters
 * that JSON escapes), strings are cut to TC_AUDIT_VALUE_MIN and arrays to
 * TC_AUDIT_ITEMS_MIN items, and it is written again: a record too long is
 * never a reason to leave a call unrecorded.
 */
static int
append(struct srv *s, cJSON *rec, struct tc_diag *d)
{
	int rc;

	if (s->audit == NULL) {
		cJSON_Delete(rec);
		return 0;
	}
	if (rec == NULL ||
	    tc_audit_cut(rec, TC_AUDIT_VALUE_MAX, SIZE_MAX) != 0) {
		cJSON_Delete(rec);
		return tc_diag(d, TC_ENOMEM, "out of memory"), -1;
	}
	rc = tc_audit_append(s->audit, rec, d);
	if (rc == TC_ETOOBIG) {
		if (tc_audit_cut(rec, TC_AUDIT_VALUE_MIN,
		    TC_AUDIT_ITEMS_MIN) != 0)
			rc = tc_diag(d, TC_ENOMEM, "out of memory");
		else
			rc = tc_audit_append(s->audit, rec, d);
	}
	cJSON_Delete(rec);
	return rc == 0 ? 0 : -1;
}

/*
 * Adds "paths": each path |c| names, resolved to where it leads (symbolic
 * links and ".." followed, by the kernel, within its root), as its root
 * and the path relative to it: [{"root":"/srv/p","path":"docs/a.txt"}].
 * The server resolved them to decide the call (deny rules, consent), so
 * they are what the call touches, whatever its arguments look like.  A
 * path is c->abs[i], the root's canonical path and c->rel[i] joined by
 * "/" (or the root itself, for "."): the root is what comes before.
 */
static void
add_paths(cJSON *r, const struct call *c)
{
	const char *abs, *rel;
	size_t i, la, lr, lroot;
	char *root;
	cJSON *a, *o;

	if (c->npaths == 0 || (a = cJSON_AddArrayToObject(r, "paths")) ==
	    NULL)
		return;
	for (i = 0; i < c->npaths; i++) {
		abs = c->abs[i];
		rel = c->rel[i];
		la = strlen(abs);
		lr = strlen(rel);
		if ((o = cJSON_CreateObject()) == NULL ||
		    !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			return;
		}
		if (strcmp(rel, ".") == 0)
			lroot = la;
		else if (la > lr && strcmp(abs + la - lr, rel) == 0 &&
		    abs[la - lr - 1] == '/')
			lroot = la - lr - 1 > 0 ? la - lr - 1 : 1;
		else {
			/* Not the shape resolve() gives: said whole. */
			cJSON_AddStringToObject(o, "path", abs);
			continue;
		}
		if ((root = strndup(abs, lroot)) != NULL)
			cJSON_AddStringToObject(o, "root", root);
		free(root);
		cJSON_AddStringToObject(o, "path", rel);
	}
}

/*
 * Adds "subjects": everything |c| acts on, typed (policy/subject.h), as
 * [{"kind":"program","value":"/usr/bin/git","access":"execute"}]: its
 * paths again (absolute, with the access the call has to them), and what
 * its tool found in its arguments besides.  Left out when there is none.
 */
static void
add_subjects(cJSON *r, const struct call *c)
{
	cJSON *a;

	if (c->subjects.n == 0)
		return;
	/* Out of memory: the record goes without, like a member
	 * cJSON_Add* could not add. */
	if ((a = tc_subjects_json(&c->subjects)) != NULL &&
	    !cJSON_AddItemToObject(r, "subjects", a))
		cJSON_Delete(a);
}

/* Writes the SHA-256 of file |path| in hex into |hex| (65 bytes); returns
 * 0 or -1. */
static int
file_digest(const char *path, char *hex)
{
	struct sha256_ctx ctx;
	uint8_t buf[8192], dig[SHA256_DIGEST_SIZE];
	ssize_t n;
	int fd, i;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return -1;
	sha256_init(&ctx);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(&ctx, (size_t)n, buf);
	close(fd);
	if (n < 0)
		return -1;
	sha256_digest(&ctx, sizeof(dig), dig);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", dig[i]);
	return 0;
}

int
tc_record_start(struct srv *s, struct tc_diag *d)
{
	struct utsname u;
	cJSON *r, *deg, *ns;
	char hex[2 * SHA256_DIGEST_SIZE + 1];

	if (s->audit == NULL)
		return 0;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "event", "start");
	cJSON_AddStringToObject(r, "server", s->def->name);
	cJSON_AddStringToObject(r, "version", s->def->version);
	cJSON_AddNumberToObject(r, "pid", (double)getpid());
	cJSON_AddNumberToObject(r, "uid", (double)geteuid());
	if (uname(&u) == 0)
		cJSON_AddStringToObject(r, "kernel", u.release);
	cJSON_AddNumberToObject(r, "landlock_abi",
	    (s->sb.degraded & TC_DEGRADE_LANDLOCK) ? 0 : s->sb.landlock_abi);
	cJSON_AddBoolToObject(r, "seccomp",
	    !(s->sb.degraded & TC_DEGRADE_SECCOMP));
	ns = cJSON_AddArrayToObject(r, "namespaces");
	/* Those in force: no "net" where the policy grants a network. */
	if (s->sb.ns_flags != 0 &&
	    !(s->sb.degraded & TC_DEGRADE_NAMESPACES))
		cJSON_AddItemToArray(ns, cJSON_CreateString(
		    (s->sb.ns_flags & CLONE_NEWNET) ?
		    "user, net, pid, ipc, uts for programs" :
		    "user, pid, ipc, uts for programs"));
	deg = cJSON_AddArrayToObject(r, "degraded");
	if (s->sb.degraded & TC_DEGRADE_LANDLOCK)
		cJSON_AddItemToArray(deg, cJSON_CreateString("landlock"));
	if (s->sb.degraded & TC_DEGRADE_SECCOMP)
		cJSON_AddItemToArray(deg, cJSON_CreateString("seccomp"));
	if (s->sb.degraded & TC_DEGRADE_NAMESPACES)
		cJSON_AddItemToArray(deg, cJSON_CreateString("namespaces"));
	if (s->pol.file != NULL) {
		cJSON_AddStringToObject(r, "policy", s->pol.file);
		if (file_digest(s->pol.file, hex) == 0)
			cJSON_AddStringToObject(r, "policy_sha256", hex);
	} else
		cJSON_AddNullToObject(r, "policy");
	if (s->pol.run_as) {
		cJSON_AddNumberToObject(r, "run_uid", (double)s->pol.run_uid);
		cJSON_AddNumberToObject(r, "run_gid", (double)s->pol.run_gid);
	}
	return append(s, r, d);
}

int
tc_record_client(struct srv *s, struct tc_diag *d)
{
	cJSON *r, *c;

	if (s->audit == NULL)
		return 0;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "event", "client");
	c = cJSON_AddObjectToObject(r, "client");
	if (s->proto.client_name != NULL)
		cJSON_AddStringToObject(c, "name", s->proto.client_name);
	if (s->proto.client_version != NULL)
		cJSON_AddStringToObject(c, "version", s->proto.client_version);
	cJSON_AddStringToObject(r, "protocol", s->proto.version);
	cJSON_AddBoolToObject(r, "elicitation",
	    tc_proto_client_has(&s->proto, "elicitation"));
	cJSON_AddBoolToObject(r, "roots",
	    tc_proto_client_has(&s->proto, "roots"));
	return append(s, r, d);
}

int
tc_record_call(struct srv *s, const struct call *c, const char *decision,
    const char *by, const char *rule, const char *reason, struct tc_diag *d)
{
	const struct consent *k = c->consent;
	cJSON *r, *o;

	if (s->audit == NULL)
		return 0;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "event", "call");
	cJSON_AddNumberToObject(r, "call", (double)c->seq);
	if (c->req != NULL && c->req->id != NULL)
		cJSON_AddStringToObject(r, "request_id", c->req->id);
	/* The name asked for, however long (cut by append()); null when
	 * the request named no tool. */
	if (c->call.tool != NULL || c->name != NULL)
		cJSON_AddStringToObject(r, "tool", c->call.tool != NULL ?
		    c->call.tool->name : c->name);
	else
		cJSON_AddNullToObject(r, "tool");
	if (c->call.tool != NULL && tc_tool_alias_of(c->call.tool) != NULL)
		cJSON_AddStringToObject(r, "alias_of",
		    tc_tool_alias_of(c->call.tool));
	if (c->call.args != NULL)
		cJSON_AddItemToObject(r, "args", tc_audit_args(c->call.args,
		    c->call.tool != NULL ? c->call.tool->args : NULL));
	add_paths(r, c);
	add_subjects(r, c);
	cJSON_AddStringToObject(r, "decision", decision);
	if (by != NULL)
		cJSON_AddStringToObject(r, "by", by);
	if (rule != NULL)
		cJSON_AddStringToObject(r, "rule", rule);
	if (k != NULL && k->answer != NULL) {
		o = cJSON_AddObjectToObject(r, "consent");
		cJSON_AddStringToObject(o, "means", k->means != NULL ?
		    k->means : "none");
		cJSON_AddStringToObject(o, "answer", k->answer);
		if (k->detail[0] != '\0')
			cJSON_AddStringToObject(o, "detail", k->detail);
	}
	if (reason != NULL)
		cJSON_AddStringToObject(r, "reason", reason);
	return append(s, r, d);
}

static const char *
outcome_name(const struct tc_run *run, const struct tc_result_info *info)
{
	switch (run->outcome) {
	case TC_OUT_OK:
		return info != NULL && info->is_error ? "tool-error" : "ok";
	case TC_OUT_TIMEOUT:
		return "timeout";
	case TC_OUT_CANCELLED:
		return "cancelled";
	case TC_OUT_TOOBIG:
		return "over-limit";
	case TC_OUT_BADFRAME:
		return "bad-result";
	case TC_OUT_CRASHED:
		return "crashed";
	case TC_OUT_NORESULT:
		return "no-result";
	case TC_OUT_CONFINE:
		return "confinement";
	case TC_OUT_SPAWN:
		return "spawn";
	}
	return "unknown";
}

int
tc_record_result(struct srv *s, const struct call *c,
    const struct tc_result_info *info, struct tc_diag *d)
{
	const struct tc_run *run = &c->run;
	cJSON *r;
	int st = run->status;

	if (s->audit == NULL)
		return 0;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "event", "result");
	cJSON_AddNumberToObject(r, "call", (double)c->seq);
	cJSON_AddStringToObject(r, "tool", c->call.tool->name);
	if (tc_tool_alias_of(c->call.tool) != NULL)
		cJSON_AddStringToObject(r, "alias_of",
		    tc_tool_alias_of(c->call.tool));
	add_paths(r, c);
	add_subjects(r, c);
	cJSON_AddStringToObject(r, "outcome", outcome_name(run, info));
	cJSON_AddNumberToObject(r, "duration_ms", run->start_ms > 0 ?
	    (double)(tc_now_ms() - run->start_ms) : 0);
	/* Known only when the child was reaped before the call ended: one
	 * that answered first is reaped after its record is written. */
	if (run->pid > 0 && run->pidfd < 0 && WIFEXITED(st))
		cJSON_AddNumberToObject(r, "exit", WEXITSTATUS(st));
	else if (run->pid > 0 && run->pidfd < 0 && WIFSIGNALED(st)) {
		char sig[32];
		const char *abbrev = sigabbrev_np(WTERMSIG(st));

		if (abbrev != NULL)
			snprintf(sig, sizeof(sig), "SIG%s", abbrev);
		else
			snprintf(sig, sizeof(sig), "%d", WTERMSIG(st));
		cJSON_AddStringToObject(r, "signal", sig);
	}
	cJSON_AddNumberToObject(r, "bytes", (double)run->result_bytes);
	cJSON_AddBoolToObject(r, "truncated", info != NULL &&
	    info->truncated);
	if (run->outcome != TC_OUT_OK && run->why[0] != '\0')
		cJSON_AddStringToObject(r, "detail", run->why);
	return append(s, r, d);
}

int
tc_record_stop(struct srv *s, struct tc_diag *d)
{
	cJSON *r;

	if (s->audit == NULL)
		return 0;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "event", "stop");
	cJSON_AddStringToObject(r, "reason", s->stop_reason != NULL ?
	    s->stop_reason : "eof");
	cJSON_AddNumberToObject(r, "calls", (double)s->ncalls_total);
	return append(s, r, d);
}

int
tc_record_roots(struct srv *s, struct tc_diag *d)
{
	const struct tc_root *rt;
	cJSON *r, *a, *o;
	size_t i;

	if (s->audit == NULL)
		return 0;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "event", "roots");
	a = cJSON_AddArrayToObject(r, "client");
	for (i = 0; i < s->nroots_new; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(s->roots_new[i]));
	a = cJSON_AddArrayToObject(r, "in_force");
	for (i = 0; i < s->pol.nroots; i++) {
		rt = &s->pol.roots[i];
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", rt->path);
		cJSON_AddStringToObject(o, "access",
		    (rt->flags & TC_ROOT_WRITE) ? "read-write" : "read-only");
		cJSON_AddItemToArray(a, o);
	}
	return append(s, r, d);
}
