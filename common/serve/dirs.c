/*
 * dirs.c: directories named on the command line, for a server that
 * serves directories (dirs.h): DIR... and -w, --write.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/strv.h"
#include "policy/policy.h"
#include "serve/dirs.h"

int tc_dirs_write;

const struct tc_option tc_dirs_options[] = {
	TC_DIRS_WRITE_OPTION,
};

/*
 * --print-config: the directories made absolute, since the host starts
 * the server from a directory of its own; without a directory or a
 * policy, VS Code's workspace folder (tc_dirs_cmdline() let no other
 * host through).
 */
static char **
carry(const struct tc_cmdline *cl, struct tc_diag *d)
{
	char **v;
	int i;

	if ((v = calloc((size_t)cl->noperands + 2, sizeof(*v))) == NULL) {
		tc_diag(d, TC_ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < cl->noperands; i++) {
		if ((v[i] = realpath(cl->operands[i], NULL)) == NULL) {
			tc_diag(d, TC_ESYS, "cannot find directory '%s': %s",
			    cl->operands[i], strerror(errno));
			tc_strv_free(v);
			return NULL;
		}
	}
	if (cl->noperands == 0 && cl->policy == NULL &&
	    (v[0] = strdup("${workspaceFolder}")) == NULL) {
		tc_diag(d, TC_ENOMEM, "out of memory");
		tc_strv_free(v);
		return NULL;
	}
	return v;
}

const struct tc_operands tc_dirs_operands = {
	.name = "DIR",
	.help = "DIRs are served as well as the policy's directories.",
	.carry = carry,
};

int
tc_dirs_cmdline(const struct tc_cmdline *cl, struct tc_diag *d)
{
	if (cl->host != NULL) {
		if (cl->policy == NULL && cl->noperands == 0 &&
		    strcmp(cl->host, "vscode") != 0)
			return tc_diag(d, TC_EINVAL, "--print-config %s: name "
			    "the directories to serve, or --policy FILE",
			    cl->host);
		if (tc_dirs_write && cl->noperands == 0)
			return tc_diag(d, TC_EINVAL, "--write: it applies to "
			    "the directories given on the command line, and "
			    "there are none");
		return 0;
	}
	/* Not a silent no-op: the user meant something by it.  Without a
	 * policy either, tc_dirs_ready() says what to give. */
	if (tc_dirs_write && cl->noperands == 0 && cl->policy != NULL)
		return tc_diag(d, TC_EINVAL, "--write: it applies to the "
		    "directories given on the command line, and there are "
		    "none; write 'allow write DIR' in the policy instead");
	return 0;
}

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

void
tc_dirs_configure(struct tc_policy *pol, const struct tc_cmdline *cl,
    tc_policy_report_fn *report, void *ctx)
{
	struct tc_diag d = { "", 0 };
	unsigned flags = tc_dirs_write ? TC_ROOT_WRITE : 0, before;
	char msg[TC_DIAG_MAX + 16];
	size_t k;
	int i;

	for (i = 0; i < cl->noperands; i++) {
		if (tc_policy_add_root_once(pol, cl->operands[i], flags, &k,
		    &before, &d) != 0) {
			snprintf(msg, sizeof(msg), "cannot serve %s", d.msg);
			report(ctx, msg);
		} else if (k != SIZE_MAX)
			twice(&pol->roots[k], before, flags);
	}
}

int
tc_dirs_ready(const struct tc_server *srv, const struct tc_policy *pol,
    struct tc_diag *d)
{
	if (pol->nroots > 0)
		return 0;
	return tc_diag(d, TC_EINVAL, "no directories to serve: run '%s "
	    "--policy FILE' (see toolcell-policy(5)), '%s DIR...' to serve "
	    "DIR read-only, or '%s --write DIR...' to allow changes",
	    srv->name, srv->name, srv->name);
}
