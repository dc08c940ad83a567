/*
 * server.h: tc_server_main() wires protocol, tools, policy and sandbox into
 * a serving loop; a server's main() only declares its tools and calls it.
 */
#ifndef TC_SERVER_H
#define TC_SERVER_H

#include "base/err.h"
#include "protocol/tools.h"

#define TC_VERSION	"0.1.0"

struct tc_policy_section;

struct tc_server {
	const char		*name;		/* "toolcell-fs" */
	const char		*title;		/* "toolcell files" */
	const char		*version;
	const char		*summary;	/* one line for --help */
	const char		*touches;	/* "files and directories" */
	const struct tc_tool	*tools;		/* with at most one that has
						   TC_TOOL_RESOURCE */
	size_t			 ntools;
	unsigned		 policy_features;	/* TC_POLICY_F_* */
	const struct tc_policy_section *policy_section;	/* its own
						   keywords (section.h), or
						   NULL */
};

/* Parses the command line, loads the policy, serves stdio; returns status. */
int	tc_server_main(const struct tc_server *srv, int argc, char *argv[]);

#endif /* TC_SERVER_H */
