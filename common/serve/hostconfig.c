/*
 * hostconfig.c: --print-config HOST, the entry that starts a server from
 * an MCP host, in that host's configuration format (hostconfig.h).
 *
 * The formats, as each host documents them:
 *
 *	claude-code		.mcp.json: mcpServers, "type": "stdio"
 *	claude-desktop		claude_desktop_config.json: mcpServers
 *	claude-desktop-wsl	the same, starting the server in WSL through
 *				wsl.exe (Claude Desktop on Windows)
 *	claude-desktop-ssh	the same, starting it on a Linux machine
 *				through ssh (Claude Desktop on macOS)
 *	codex			~/.codex/config.toml: [mcp_servers.NAME]
 *	cursor			.cursor/mcp.json: mcpServers
 *	gemini			.gemini/settings.json: mcpServers
 *	vscode			.vscode/mcp.json: servers, "type": "stdio"
 *	zed			settings.json: context_servers,
 *				"source": "custom"
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "serve/hostconfig.h"

enum format {
	F_MCP,			/* { "mcpServers": { NAME: {...} } } */
	F_CLAUDE_CODE,		/* the same, with "type": "stdio" */
	F_VSCODE,		/* { "servers": { NAME: { "type": "stdio" } } } */
	F_ZED,			/* { "context_servers": { NAME: {...} } } */
	F_CODEX,		/* TOML: [mcp_servers.NAME] */
};

enum via {
	DIRECT,			/* the host starts the server itself */
	WSL,			/* through wsl.exe -e */
	SSH,			/* through ssh, on another machine */
};

/* By name: tc_hostconfig_hosts() lists them in this order. */
static const struct host {
	const char	*name;
	enum format	 format;
	enum via	 via;
} hosts[] = {
	{ "claude-code",	F_CLAUDE_CODE,	DIRECT },
	{ "claude-desktop",	F_MCP,		DIRECT },
	{ "claude-desktop-ssh",	F_MCP,		SSH },
	{ "claude-desktop-wsl",	F_MCP,		WSL },
	{ "codex",		F_CODEX,	DIRECT },
	{ "cursor",		F_MCP,		DIRECT },
	{ "gemini",		F_MCP,		DIRECT },
	{ "vscode",		F_VSCODE,	DIRECT },
	{ "zed",		F_ZED,		DIRECT },
};

#define NHOSTS	(sizeof(hosts) / sizeof(hosts[0]))
#define MAXARGS	64		/* of the command a host runs */

static const struct host *
find_host(const char *name)
{
	size_t i;

	for (i = 0; i < NHOSTS; i++)
		if (strcmp(hosts[i].name, name) == 0)
			return &hosts[i];
	return NULL;
}

const char *
tc_hostconfig_hosts(void)
{
	static char list[256];
	size_t i, n = 0;

	if (list[0] != '\0')
		return list;
	for (i = 0; i < NHOSTS; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
		    i > 0 ? ", " : "", hosts[i].name);
	return list;
}

int
tc_hostconfig_known(const char *host)
{
	return find_host(host) != NULL;
}

/*
 * Returns |s| quoted for a POSIX shell, which ssh hands the remote command
 * to: as it is when it holds only characters no shell treats specially,
 * else in single quotes ('\'' for a quote).  The caller frees it.
 */
static char *
shell_quote(const char *s)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-./,:=+@%";
	struct tc_buf b;
	const char *p;
	int rc;

	if (*s != '\0' && strspn(s, plain) == strlen(s))
		return strdup(s);
	tc_buf_init(&b, 1u << 20);
	rc = tc_buf_append_str(&b, "'");
	for (p = s; *p != '\0' && rc == 0; p++)
		rc = *p == '\'' ? tc_buf_append_str(&b, "'\\''") :
		    tc_buf_append(&b, p, 1);
	if (rc == 0)
		rc = tc_buf_append_str(&b, "'");
	if (rc != 0) {
		tc_buf_release(&b);
		return NULL;
	}
	return tc_buf_steal(&b);
}

/* Writes |s| as a JSON string. */
static void
json_str(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Writes |s| as a TOML basic string, which allows no control character
 * but tab, nor DEL. */
static void
toml_str(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04X", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Writes |v| (|n| strings) as a JSON or TOML array on one line. */
static void
array(FILE *f, const char *const *v, size_t n, int toml)
{
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i > 0)
			fputs(", ", f);
		if (toml)
			toml_str(f, v[i]);
		else
			json_str(f, v[i]);
	}
	fputc(']', f);
}

/* Writes the JSON of |fmt|: the host's top-level member, the entry
 * |name|, and the command |cmd| with |argv| (|argc| strings). */
static void
json_file(FILE *f, enum format fmt, const char *name, const char *cmd,
    const char *const *argv, size_t argc)
{
	const char *top = fmt == F_VSCODE ? "servers" :
	    fmt == F_ZED ? "context_servers" : "mcpServers";

	fprintf(f, "{\n  \"%s\": {\n    ", top);
	json_str(f, name);
	fputs(": {\n", f);
	if (fmt == F_CLAUDE_CODE || fmt == F_VSCODE)
		fputs("      \"type\": \"stdio\",\n", f);
	if (fmt == F_ZED)
		fputs("      \"source\": \"custom\",\n", f);
	fputs("      \"command\": ", f);
	json_str(f, cmd);
	fputs(",\n      \"args\": ", f);
	array(f, argv, argc, 0);
	if (fmt == F_ZED)
		fputs(",\n      \"env\": {}", f);
	fputs("\n    }\n  }\n}\n", f);
}

/* Writes Codex's TOML table for entry |name|. */
static void
toml_file(FILE *f, const char *name, const char *cmd,
    const char *const *argv, size_t argc)
{
	static const char bare[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-";

	fputs("[mcp_servers.", f);
	if (*name != '\0' && strspn(name, bare) == strlen(name))
		fputs(name, f);
	else
		toml_str(f, name);
	fputs("]\ncommand = ", f);
	toml_str(f, cmd);
	fputs("\nargs = ", f);
	array(f, argv, argc, 1);
	fputc('\n', f);
}

int
tc_hostconfig_print(FILE *f, const char *host,
    const struct tc_hostconfig *hc, struct tc_diag *d)
{
	const struct host *h;
	const char *argv[MAXARGS], *cmd;
	char *quoted[MAXARGS];
	size_t argc = 0, nq = 0, i;
	int rc = 0;

	if ((h = find_host(host)) == NULL)
		return tc_diag(d, TC_EINVAL, "unknown host '%s' (known: %s)",
		    host, tc_hostconfig_hosts());
	cmd = hc->command;
	if (h->via == WSL) {
		cmd = "wsl.exe";
		if (hc->wsl_distro != NULL) {
			argv[argc++] = "-d";
			argv[argc++] = hc->wsl_distro;
		}
		argv[argc++] = "-e";
		argv[argc++] = hc->command;
	} else if (h->via == SSH) {
		cmd = "ssh";
		argv[argc++] = "-T";
		argv[argc++] = "-o";
		argv[argc++] = "BatchMode=yes";
		argv[argc++] = hc->ssh_target;
		if ((quoted[nq] = shell_quote(hc->command)) == NULL)
			return tc_diag(d, TC_ENOMEM, "out of memory");
		argv[argc++] = quoted[nq++];
	}
	for (i = 0; hc->args[i] != NULL; i++) {
		if (argc >= MAXARGS - 1) {
			rc = tc_diag(d, TC_EINVAL, "too many arguments");
			goto out;
		}
		if (h->via == SSH) {
			if ((quoted[nq] = shell_quote(hc->args[i])) == NULL) {
				rc = tc_diag(d, TC_ENOMEM, "out of memory");
				goto out;
			}
			argv[argc++] = quoted[nq++];
		} else {
			argv[argc++] = hc->args[i];
		}
	}
	/* Nothing is written unless all of it can be. */
	for (i = 0; i < argc; i++)
		if (!tc_utf8_valid(argv[i], strlen(argv[i]))) {
			rc = tc_diag(d, TC_EINVAL, "'%s' is not UTF-8, which "
			    "%s's configuration cannot hold", argv[i], host);
			goto out;
		}
	if (!tc_utf8_valid(cmd, strlen(cmd)) ||
	    !tc_utf8_valid(hc->name, strlen(hc->name))) {
		rc = tc_diag(d, TC_EINVAL, "'%s' is not UTF-8, which %s's "
		    "configuration cannot hold", cmd, host);
		goto out;
	}
	if (h->format == F_CODEX)
		toml_file(f, hc->name, cmd, argv, argc);
	else
		json_file(f, h->format, hc->name, cmd, argv, argc);
	if (fflush(f) != 0 || ferror(f))
		rc = tc_diag(d, TC_ESYS, "cannot write the configuration");
out:
	for (i = 0; i < nq; i++)
		free(quoted[i]);
	return rc;
}
