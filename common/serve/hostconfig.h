/*
 * hostconfig.h: the entry that adds a server to an MCP host's own
 * configuration (--print-config HOST), in the file format that host reads:
 * the mcpServers JSON of Claude Code's .mcp.json, Claude Desktop, Cursor
 * and Gemini CLI, VS Code's servers JSON, Zed's context_servers JSON, and
 * Codex CLI's mcp_servers TOML.  Claude Desktop on Windows or macOS starts
 * the server in WSL (wsl.exe) or on a Linux machine (ssh).
 *
 * Returns (serve/): 0 or a negative TC_E* code, with a struct tc_diag
 * saying why; a question returns 1 or 0.
 */
#ifndef TC_HOSTCONFIG_H
#define TC_HOSTCONFIG_H

#include <stdio.h>

#include "base/err.h"

struct tc_hostconfig {
	const char	 *name;		/* the entry's name: "toolcell-fs" */
	const char	 *command;	/* the server binary, absolute */
	const char *const *args;	/* its arguments; NULL-terminated */
	const char	 *wsl_distro;	/* wsl.exe -d DISTRO, or NULL */
	const char	 *ssh_target;	/* ssh's destination: "user@host" */
};

/* Returns the names of the hosts, as "a, b, c", for messages. */
const char *tc_hostconfig_hosts(void);

/* Returns 1 if |host| is one of them, else 0. */
int	tc_hostconfig_known(const char *host);

/*
 * Writes to |f| the configuration that starts |hc|'s server from |host|,
 * as a whole file of that host's format (merge it into an existing one by
 * hand).  Every string is escaped for its format; the arguments that ssh
 * hands to the remote shell are quoted for it too.  Returns 0, TC_EINVAL
 * for an unknown host or a string that is not UTF-8 (neither JSON nor
 * TOML can hold it), or TC_ESYS if writing failed; |d| says which.
 */
int	tc_hostconfig_print(FILE *f, const char *host,
	    const struct tc_hostconfig *hc, struct tc_diag *d);

#endif /* TC_HOSTCONFIG_H */
