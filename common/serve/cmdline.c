/*
 * cmdline.c: the command line, --help, --print-config, and the policy
 * it loads.
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
#include "policy/section.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/server.h"
#include "serve/server-int.h"
#include "base/text.h"
#include "serve/usage.h"

extern char **environ;

/* --- Set-up --- */

/*
 * Prints the help, asked for with --help: on stderr, like everything but
 * MCP messages and the report of --check.
 */
void
tc_srv_usage(const struct tc_server *def)
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
noreturn void
tc_srv_usage_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_usage_verror(fmt, ap);
	va_end(ap);
	exit(TC_EXIT_USAGE);
}

long long
tc_srv_number(const char *name, const char *s, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		tc_srv_usage_fail("%s: '%s' is not a number from %lld to %lld", name,
		    s, min, max);
	return v;
}

/* Prints one error of the policy file on stderr, and counts it. */
void
tc_srv_report_error(void *ctx, const char *msg)
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
void
tc_srv_warn_policy(const struct tc_server *def, const struct tc_policy *pol)
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
int
tc_srv_load_policy(const struct tc_server *def, struct tc_policy *pol,
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
	if (def->policy_section != NULL &&
	    tc_policy_set_section(pol, def->policy_section, &d) != 0)
		tc_fatal("%s", d.msg);
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
		tc_policy_load(pol, cl->policy, tc_srv_report_error, &nerrors, &d);
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
	tc_own_collect(pol, cl->policy, tc_srv_report_error, &nerrors);
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
int
tc_srv_print_config(const struct tc_server *def, const struct cmdline *cl,
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
		tc_srv_usage_fail("--print-config %s: name the directories to serve, "
		    "or --policy FILE", cl->host);
	if ((cl->rootflags & TC_ROOT_WRITE) && ndirs == 0)
		tc_srv_usage_fail("--write: it applies to the directories given on "
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
