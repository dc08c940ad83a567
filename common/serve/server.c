/*
 * server.c: tc_server_main(): the start of a server, from its command
 * line to the serving loop, and the method table that wires the other
 * files of serve/ to the protocol.
 *
 * One thread, one poll(2) loop (loop.c) over stdin, a signalfd and every
 * running call's pipe and pidfd, so that pings, cancellations and new
 * calls are served while other calls run.  What is the server's own (its
 * command line, instructions, resources, which tools a policy offers)
 * comes from its struct tc_server (server.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/strv.h"
#include "policy/glob.h"
#include "serve/hostconfig.h"
#include "base/log.h"
#include "base/text.h"
#include "policy/own.h"
#include "policy/policy.h"
#include "protocol/protocol.h"
#include "sandbox/sandbox.h"
#include "serve/server-int.h"
#include "serve/server.h"
#include "serve/usage.h"

extern char **environ;

const struct tc_method tc_srv_methods[] = {
	{ "notifications/initialized", tc_srv_on_initialized,
	    TC_METHOD_NOTIFICATION },
	{ "notifications/roots/list_changed", tc_srv_on_roots_changed,
	    TC_METHOD_NOTIFICATION },
	{ "resources/list",	tc_srv_resources_list,		TC_METHOD_REQUEST },
	{ "resources/read",	tc_srv_resources_read,		TC_METHOD_REQUEST },
	{ "resources/templates/list", tc_srv_resources_templates_list,
	    TC_METHOD_REQUEST },
	{ "tools/call",		tc_srv_tools_call,		TC_METHOD_REQUEST },
	{ "tools/list",		tc_srv_tools_list,		TC_METHOD_REQUEST },
};
const size_t tc_srv_nmethods = TC_NITEMS(tc_srv_methods);

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

void
tc_srv_build_instructions(struct srv *s)
{
	struct tc_buf *b = &s->instructions;

	tc_buf_init(b, 1u << 16);
	/* What the server gives access to is its own to say; how calls
	 * run is the same for every server. */
	if (s->def->instructions != NULL &&
	    s->def->instructions(s->def, &s->pol, b) != 0)
		tc_fatal("cannot write the instructions: %s",
		    b->len > 0 ? "too long" : "out of memory");
	tc_buf_printf(b, "%sEvery call runs in a confined, short-lived "
	    "process.", b->len > 0 ? " " : "");
	if (s->pol.run_as)
		tc_buf_printf(b, " Calls run as uid %u, gid %u: what that user "
		    "may not read is refused.", (unsigned)s->pol.run_uid,
		    (unsigned)s->pol.run_gid);
	if (s->sb.degraded & TC_DEGRADE_LANDLOCK)
		tc_buf_printf(b, " Degraded: the kernel's Landlock path "
		    "whitelist is not in force%s%s.",
		    s->def->without_landlock != NULL ? ": " : "",
		    s->def->without_landlock != NULL ?
		    s->def->without_landlock : "");
	if (s->sb.degraded & TC_DEGRADE_SECCOMP)
		tc_buf_printf(b, " Degraded: the kernel's seccomp system-call "
		    "filter is not in force.");
	if (s->sb.degraded & TC_DEGRADE_NAMESPACES)
		tc_buf_printf(b, " Degraded: programs run without namespaces "
		    "of their own (the kernel denies them).");
}

/*
 * Says on stderr what the server serves and that it waits for a client,
 * for a person who started it by hand in a terminal: it says nothing more
 * until a client speaks.  The directories, what else it serves (its
 * programs, its databases), and that it waits; a line too long is cut,
 * marked.
 */
static void
say_waiting(const struct srv *s)
{
	const struct tc_root *r;
	struct tc_buf b;
	size_t i;
	int cut;

	tc_buf_init(&b, 4096);
	for (i = 0; i < s->pol.nroots; i++) {
		r = &s->pol.roots[i];
		if (tc_buf_printf(&b, "%s%s (%s)", i ? ", " : "", r->path,
		    (r->flags & TC_ROOT_WRITE) ? "read-write" :
		    "read-only") != 0)
			break;
	}
	if (s->pol.nroots > 0)
		tc_info("serving %s%s", b.data != NULL ? b.data : "",
		    i < s->pol.nroots ? ", " TC_TEXT_CUT : "");
	if (s->def->serving != NULL) {
		tc_buf_reset(&b);
		cut = s->def->serving(&s->pol, &b) != 0;
		if (b.len > 0)
			tc_info("%s%s", b.data, cut ? ", " TC_TEXT_CUT : "");
	}
	tc_info("waiting for an MCP client on standard input: an MCP host "
	    "starts this server and speaks to it (see %s(1)); Ctrl-D ends it",
	    s->def->name);
	tc_buf_release(&b);
}

void
tc_srv_build_tools(struct srv *s)
{
	const struct tc_tool *rt;
	struct tc_diag d = { "", 0 };
	size_t i;

	if (tc_tools_validate(s->def->tools, s->def->ntools, &d) != 0)
		TC_BUG("%s", d.msg);
	if (s->def->resources != NULL && (s->def->resources->tool == NULL ||
	    s->def->resources->read == NULL))
		TC_BUG("%s: a resource provider needs a tool and a read hook",
		    s->def->name);
	if ((s->tools = cJSON_CreateArray()) == NULL)
		tc_fatal("out of memory");
	for (i = 0; i < s->def->ntools; i++) {
		if (tc_srv_visible_tool(s, s->def->tools[i].name) == NULL)
			continue;
		cJSON_AddItemToArray(s->tools,
		    tc_tool_describe(&s->def->tools[i]));
		if (!(s->def->tools[i].flags & TC_TOOL_SERVER_SIDE))
			tc_profiles_add(&s->profiles,
			    s->def->tools[i].profile);
	}
	if ((rt = tc_srv_resource_tool(s)) != NULL)
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

int
tc_server_main(const struct tc_server *def, int argc, char *argv[])
{
	struct tc_proto_config pc;
	struct tc_diag d = { "", 0 };
	struct tc_cmdline cl;
	struct srv s;
	int nerrors, rc;

	memset(&s, 0, sizeof(s));
	s.def = def;
	s.queue_tail = &s.queue;
	s.held_tail = &s.held;
	s.settled_tail = &s.settled;
	s.roots_id = -1;
	tc_jobs_init(&s.jobs, &s);
	tc_log_init(def->name, TC_LOG_INFO);
	if ((rc = tc_srv_cmdline(def, argc, argv, &cl)) >= 0)
		return rc;
	tc_policy_init(&s.pol);
	nerrors = tc_srv_load_policy(def, &s.pol, &cl);
	/* Nothing to serve says so in one line, as a usage error does;
	 * a policy with errors has said what is wrong already. */
	if (nerrors == 0 && (rc = tc_srv_ready(def, &s.pol)) >= 0) {
		tc_policy_release(&s.pol);
		return rc;
	}
	/* The tools first: the sandbox prepares only their profiles.  Then
	 * every check of a start, for --check as well (start.c); a start
	 * already refused still lists what else is wrong. */
	tc_srv_build_tools(&s);
	tc_srv_prepare(&s, cl.check ? TC_PREP_CHECK : nerrors > 0 ?
	    TC_PREP_REFUSED : TC_PREP_START, tc_srv_report_error, &nerrors);
	if (nerrors > 0)
		tc_fatal("%d error%s%s", nerrors, nerrors == 1 ? "" : "s",
		    cl.check ? "" : ": not starting");
	tc_srv_warn_policy(def, &s.pol);
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
	tc_srv_build_instructions(&s);
	s.sigfd = make_sigfd();

	memset(&pc, 0, sizeof(pc));
	pc.name = def->name;
	pc.title = def->title;
	pc.version = def->version;
	pc.instructions = s.instructions.data;
	/* Resources are declared only when the server has a provider and
	 * the policy lets its tool run; their list follows the roots,
	 * which the client may narrow. */
	pc.capabilities = tc_srv_resource_tool(&s) != NULL ?
	    "{\"tools\":{},\"resources\":{\"listChanged\":true}}" :
	    "{\"tools\":{}}";
	pc.methods = tc_srv_methods;
	pc.nmethods = tc_srv_nmethods;
	pc.on_cancel = tc_srv_on_cancel;
	pc.ctx = &s;
	pc.max_frame = cl.max_frame;
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
	tc_srv_serve(&s);

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
