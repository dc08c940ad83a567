/*
 * start.c: what a server checks before it serves, once its policy is
 * loaded: the kernel's confinement layers, whether calls can reach the
 * directories served, and the audit log and its key.  A start and
 * --check run the same code, tc_srv_prepare(), so that --check finds
 * every problem a start would meet, in the same words; --check only stops
 * short of serving and of writing the log.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/audit.h"
#include "policy/glob.h"
#include "base/log.h"
#include "policy/policy.h"
#include "sandbox/sandbox.h"
#include "serve/server-int.h"

/* --- The confinement layers --- */

static void
layers(struct srv *s, tc_policy_report_fn *report, void *ctx)
{
	struct tc_diag d = { "", 0 };

	if (tc_sandbox_init(&s->sb, &s->pol, &s->profiles, &d) != 0) {
		report(ctx, d.msg);
		return;
	}
	if (s->sb.degraded & TC_DEGRADE_SECCOMP)
		tc_warn("running without seccomp (--allow-degraded seccomp): "
		    "a call may make any system call its other layers allow");
	if (s->sb.degraded & TC_DEGRADE_LANDLOCK)
		tc_warn("running without Landlock (--allow-degraded landlock): "
		    "%s", s->def->without_landlock != NULL ?
		    s->def->without_landlock : "the allowed directories are "
		    "enforced by path resolution only");
	else
		tc_debug("Landlock ABI %d in force", s->sb.landlock_abi);
	if (s->sb.degraded & TC_DEGRADE_NAMESPACES)
		tc_warn("the kernel denies new namespaces: programs run "
		    "without their own network, PID and user namespaces");
}

/* --- The directories served --- */

/* Where root |r| was given, into |buf|: "line 3", "command line", "line 3
 * and the command line". */
static const char *
root_origin(const struct tc_root *r, char *buf, size_t len)
{
	if (r->line > 0 && r->cmdline)
		snprintf(buf, len, "line %d and the command line", r->line);
	else if (r->line > 0)
		snprintf(buf, len, "line %d", r->line);
	else
		snprintf(buf, len, "command line");
	return buf;
}

/*
 * Warns of each directory that calls, as they run, cannot read (or, for
 * a writable one, write in): every call there would fail, and only the
 * log would say why.  A warning, not an error: the directory may be made
 * readable while the server runs, and the rest served meanwhile.
 */
static void
reach(struct srv *s)
{
	unsigned char what[TC_ROOTS_MAX];
	struct tc_diag d = { "", 0 };
	const struct tc_root *r;
	struct stat st;
	char at[64];
	unsigned uid;
	size_t i;

	if (tc_sandbox_reach(&s->pol, what, &d) != 0) {
		tc_warn("%s", d.msg);
		return;
	}
	uid = s->pol.run_as ? (unsigned)s->pol.run_uid : (unsigned)geteuid();
	for (i = 0; i < s->pol.nroots; i++) {
		r = &s->pol.roots[i];
		if (what[i] == 0 || fstat(r->fd, &st) != 0)
			continue;
		root_origin(r, at, sizeof(at));
		if (what[i] & TC_REACH_NOREAD)
			tc_warn("'%s' (%s): calls, which run as uid %u without "
			    "privileges, cannot read it (mode %04o, owner uid "
			    "%u): every call in it will be refused", r->path,
			    at, uid, (unsigned)(st.st_mode & 07777),
			    (unsigned)st.st_uid);
		else
			tc_warn("'%s' (%s): calls, which run as uid %u without "
			    "privileges, cannot write in it (mode %04o, owner "
			    "uid %u): every change in it will be refused",
			    r->path, at, uid, (unsigned)(st.st_mode & 07777),
			    (unsigned)st.st_uid);
	}
}

/* --- The audit log --- */

/* Returns 1 if absolute |path| has no "." or ".." component and no
 * empty one: what it names is what it says. */
static int
plain_path(const char *path)
{
	const char *c = path;
	size_t n;

	while (*c == '/') {
		c++;
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += n;
	}
	return *c == '\0';
}

/*
 * Returns 1 if the log's directory |dir| is toolcell's own in the XDG
 * state home: $XDG_STATE_HOME/toolcell (an absolute $XDG_STATE_HOME), or
 * ~/.local/state/toolcell, the default, which the examples name; or a
 * directory beneath either.  The server makes such a directory when it is
 * missing, as the XDG Base Directory specification asks of a program
 * about to write there; anywhere else, a missing directory is the user's
 * to make.
 */
static int
xdg_place(const char *dir)
{
	const struct passwd *pw;
	const char *env, *home;
	char *own;
	int yes = 0;

	if (dir[0] != '/' || !plain_path(dir))
		return 0;
	env = getenv("XDG_STATE_HOME");
	if (env != NULL && env[0] == '/' &&
	    asprintf(&own, "%s/toolcell", env) >= 0) {
		yes = tc_path_beneath(dir, own) != NULL;
		free(own);
	}
	if ((home = getenv("HOME")) == NULL || home[0] == '\0')
		home = (pw = getpwuid(geteuid())) != NULL ? pw->pw_dir : NULL;
	if (!yes && home != NULL && home[0] == '/' &&
	    asprintf(&own, "%s/.local/state/toolcell", home) >= 0) {
		yes = tc_path_beneath(dir, own) != NULL;
		free(own);
	}
	return yes;
}

/*
 * Opens the audit log (or, |mode| not TC_PREP_START, checks that it could
 * be), with its key; makes its directory at the XDG place.
 */
static void
audit(struct srv *s, enum tc_prep mode, tc_policy_report_fn *report,
    void *ctx)
{
	struct tc_audit_opts ao;
	struct tc_diag d = { "", 0 };
	struct stat st;
	char *dir, *slash;
	int missing;

	if ((dir = strdup(s->pol.audit_file)) == NULL) {
		report(ctx, "out of memory");
		return;
	}
	if ((slash = strrchr(dir, '/')) != NULL)
		slash[slash == dir] = '\0';
	memset(&ao, 0, sizeof(ao));
	ao.path = s->pol.audit_file;
	ao.key_file = s->pol.audit_key_file;
	ao.sync = s->pol.audit_sync;
	ao.rotate_bytes = s->pol.audit_rotate_bytes;
	ao.keep = s->pol.audit_keep;
	ao.make_dir = xdg_place(dir);
	ao.check = mode != TC_PREP_START;
	missing = ao.make_dir && stat(dir, &st) != 0 && errno == ENOENT;
	if (tc_audit_open(&s->audit, &ao, &d) != 0)
		report(ctx, d.msg);
	else if (missing && mode == TC_PREP_CHECK)
		tc_info("would create the audit log's directory '%s' (mode "
		    "0700)", dir);
	else if (missing && mode == TC_PREP_START)
		tc_info("created the audit log's directory '%s' (mode 0700)",
		    dir);
	free(dir);
}

void
tc_srv_prepare(struct srv *s, enum tc_prep mode, tc_policy_report_fn *report,
    void *ctx)
{
	layers(s, report, ctx);
	tc_consent_check(s, report, ctx);
	reach(s);
	if (s->pol.audit_file != NULL)
		audit(s, mode, report, ctx);
}
