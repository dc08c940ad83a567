/*
 * policyload.h: policy files for the unit tests of a policy loader, in a
 * scratch directory D (tree.h's tree_root), which policy_scratch() makes
 * and makes the working directory.  In a text, "@D@" stands for D:
 * subst() returns it replaced (the caller frees it), S() the same in one
 * of a few rotating buffers, and put() writes such a text into a file of
 * D.  load() (load_mode(), with a mode) loads a text as D/t.policy into a
 * struct result, every message in r->errs a line, for the server the
 * test's own pl_server() sets up (tc_policy_set_server() and its
 * section); valid() and invalid() check that it loads, or fails with
 * exactly the messages given.  Everything is static, for the one test
 * file that includes it.
 */
#ifndef TC_TEST_POLICYLOAD_H
#define TC_TEST_POLICYLOAD_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "policy/policy.h"
#include "tap.h"
#include "tree.h"

#define D	tree_root

/* The test's: makes |p| the policy of its server.  Returns 0 or -1. */
static int	pl_server(struct tc_policy *p, struct tc_diag *d);

struct result {
	int		 rc;
	struct tc_diag	 d;
	struct tc_buf	 errs;		/* one message a line */
	struct tc_policy p;
};

/* Makes D ("stem.XXXXXX" in TMPDIR) and goes there. */
TREE_FN void
policy_scratch(const char *stem)
{
	tree_make(stem);
	must(chdir(D), D);
}

TREE_FN char *
subst(const char *text)
{
	struct tc_buf b;
	const char *s;

	tc_buf_init(&b, 1u << 20);
	while ((s = strstr(text, "@D@")) != NULL) {
		tc_buf_append(&b, text, (size_t)(s - text));
		tc_buf_append_str(&b, D);
		text = s + 3;
	}
	tc_buf_append_str(&b, text);
	return tc_buf_steal(&b);
}

TREE_FN const char *
S(const char *text)
{
	static char bufs[8][PATH_MAX * 2];
	static int next;
	char *b = bufs[next++ % 8], *t = subst(text);

	if (snprintf(b, sizeof(bufs[0]), "%s", t) >= (int)sizeof(bufs[0]))
		abort();
	free(t);
	return b;
}

/* Writes |text| (after subst()) into D/|name| with |mode|. */
TREE_FN void
put(const char *name, const char *text, mode_t mode)
{
	char *t = subst(text);

	put_file(name, t, mode);
	free(t);
}

/* Appends |msg| and a newline to the tc_buf |ctx|. */
TREE_FN void
collect(void *ctx, const char *msg)
{
	tc_buf_printf(ctx, "%s\n", msg);
}

/* Loads |text| written as t.policy with |mode| into |r|. */
TREE_FN void
load_mode(struct result *r, const char *text, mode_t mode)
{
	memset(r, 0, sizeof(*r));
	tc_buf_init(&r->errs, 1u << 20);
	tc_policy_init(&r->p);
	if (pl_server(&r->p, &r->d) != 0)
		abort();
	put("t.policy", text, mode);
	r->rc = tc_policy_load(&r->p, "t.policy", collect, &r->errs,
	    &r->d);
	if (r->errs.data == NULL)
		tc_buf_append_str(&r->errs, "");
}

TREE_FN void
load(struct result *r, const char *text)
{
	load_mode(r, text, 0644);
}

TREE_FN void
release(struct result *r)
{
	tc_policy_release(&r->p);
	tc_buf_release(&r->errs);
}

/* Checks that |text| loads without an error. */
TREE_FN void
valid(struct result *r, const char *text, const char *what)
{
	load(r, text);
	is_int(r->rc, 0, "%s: loads", what);
	is_str(r->errs.data, "", "%s: no errors", what);
}

/* Checks that |text| fails with exactly the messages |want| (subst()). */
TREE_FN void
invalid(const char *text, const char *want, const char *what)
{
	struct result r;
	char *w = subst(want);

	load(&r, text);
	is_int(r.rc, TC_EINVAL, "%s: refused", what);
	is_str(r.errs.data, w, "%s: messages", what);
	free(w);
	release(&r);
}

#endif /* TC_TEST_POLICYLOAD_H */
