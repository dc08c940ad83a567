/*
 * start.c: what a server checks before it serves, once its policy is
 * loaded: the kernel's confinement layers, and the audit log and its key.
 * A start and --check run the same code, tc_srv_prepare(), so that
 * --check finds every problem a start would meet, in the same words;
 * --check only stops short of serving and of writing the log.
 */
#include <string.h>

#include "audit.h"
#include "log.h"
#include "policy.h"
#include "sandbox.h"
#include "server-int.h"

/* --- The confinement layers --- */

static void
layers(struct srv *s, tc_policy_report_fn *report, void *ctx)
{
	struct tc_diag d = { "", 0 };

	if (tc_sandbox_init_profiles(&s->sb, &s->pol, s->profiles, &d) != 0) {
		report(ctx, d.msg);
		return;
	}
	if (s->sb.degraded & TC_DEGRADE_SECCOMP)
		tc_warn("running without seccomp (--allow-degraded seccomp): "
		    "a call may make any system call its other layers allow");
	if (s->sb.degraded & TC_DEGRADE_LANDLOCK)
		tc_warn("running without Landlock (--allow-degraded landlock): "
		    "the allowed directories are enforced by path resolution "
		    "only");
	else
		tc_debug("Landlock ABI %d in force", s->sb.landlock_abi);
	if ((s->sb.degraded & TC_DEGRADE_NAMESPACES) &&
	    (s->profiles & 1u << TC_PROFILE_SHELL_EXEC))
		tc_warn("the kernel denies new namespaces: programs run "
		    "without their own network, PID and user namespaces");
}

/* --- The audit log --- */

/*
 * Opens the audit log (or, |mode| not TC_PREP_START, checks that it could
 * be), with its key.
 */
static void
audit(struct srv *s, enum tc_prep mode, tc_policy_report_fn *report,
    void *ctx)
{
	struct tc_audit_opts ao;
	struct tc_diag d = { "", 0 };

	memset(&ao, 0, sizeof(ao));
	ao.path = s->pol.audit_file;
	ao.key_file = s->pol.audit_key_file;
	ao.sync = s->pol.audit_sync;
	ao.rotate_bytes = s->pol.audit_rotate_bytes;
	ao.keep = s->pol.audit_keep;
	ao.check = mode != TC_PREP_START;
	if (tc_audit_open(&s->audit, &ao, &d) != 0)
		report(ctx, d.msg);
}

void
tc_srv_prepare(struct srv *s, enum tc_prep mode, tc_policy_report_fn *report,
    void *ctx)
{
	layers(s, report, ctx);
	if (s->pol.audit_file != NULL)
		audit(s, mode, report, ctx);
}
