/*
 * dirs.h: directories named on the command line, for a server that serves
 * directories (toolcell-fs, and the test servers built like it): DIR...
 * operands served as roots beside the policy's, read-only unless -w,
 * --write is given; "no directories to serve" when neither the policy nor
 * the command line names one; and --print-config passing them on made
 * absolute.  A server takes all of it by putting TC_DIRS_CMDLINE in its
 * struct tc_server; a server that serves no directories from its command
 * line (toolcell-shell, toolcell-sqlite) leaves it out.
 *
 * Return convention: as server.h, 0 or a negative TC_E* code.
 */
#ifndef TC_DIRS_H
#define TC_DIRS_H

#include "serve/server.h"

/* Set by -w, --write: the DIRs given are writable. */
extern int				tc_dirs_write;

/* -w, --write, as an entry of an options table: a server with options of
 * its own puts it in its table, beside them. */
#define TC_DIRS_WRITE_OPTION						\
	{ "write", 'w', NULL, "the DIRs given here are writable "	\
	  "(read-only\notherwise)", tc_option_flag, &tc_dirs_write,	\
	  TC_OPTION_CARRY }

/* A table of that one option. */
extern const struct tc_option		tc_dirs_options[];
#define TC_DIRS_NOPTIONS		1

/* DIR...: each a root, as given on the command line. */
extern const struct tc_operands		tc_dirs_operands;

/*
 * The command line's checks: --write without a DIR is a usage error (a
 * silent no-op would surprise), and --print-config needs a DIR or a
 * policy, except for VS Code, whose workspace folder stands for them.
 */
int	tc_dirs_cmdline(const struct tc_cmdline *cl, struct tc_diag *d);

/*
 * Adds each DIR as a root (writable with --write), after the policy
 * file's: one it already names is served once, with the wider access,
 * and a warning when the two differ.  Reports each directory that cannot
 * be served.
 */
void	tc_dirs_configure(struct tc_policy *pol, const struct tc_cmdline *cl,
	    tc_policy_report_fn *report, void *ctx);

/* TC_EINVAL "no directories to serve: run ..." when |pol| has no root. */
int	tc_dirs_ready(const struct tc_server *srv, const struct tc_policy *pol,
	    struct tc_diag *d);

/* The members of a struct tc_server that make its command line take
 * directories as above. */
#define TC_DIRS_CMDLINE							\
	.options = tc_dirs_options, .noptions = TC_DIRS_NOPTIONS,	\
	.operands = &tc_dirs_operands, .cmdline = tc_dirs_cmdline,	\
	.configure = tc_dirs_configure, .ready = tc_dirs_ready

#endif /* TC_DIRS_H */
