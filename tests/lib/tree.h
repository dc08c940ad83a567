/*
 * tree.h: a scratch tree for a unit test, beneath $TMPDIR (or /tmp), made
 * at the start and removed at the end.  tree_make("stem") makes it (its
 * canonical path in tree_root); at(rel) names a path in it, in one of a
 * few rotating buffers; put_file(rel, text, mode) writes a file;
 * must(rc, what) stops the test (exit 2, with perror()) when |rc| is not
 * 0; tree_remove() removes the tree.  A failure to make the tree is not a
 * test's failure: it exits 2.  Short names, as tap.h's: everything is
 * static, for the one test file that includes it.
 */
#ifndef TC_TEST_TREE_H
#define TC_TEST_TREE_H

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define TREE_FN		static __attribute__((unused))

static char tree_root[PATH_MAX];	/* canonical; "" until tree_make() */

TREE_FN void
must(int rc, const char *what)
{
	if (rc != 0) {
		perror(what);
		exit(2);
	}
}

TREE_FN const char *
at(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	if (snprintf(b, PATH_MAX, "%s/%s", tree_root, rel) >= PATH_MAX)
		abort();
	return b;
}

/* Writes |text| into at(|rel|), made or truncated, with |mode|. */
TREE_FN void
put_file(const char *rel, const char *text, mode_t mode)
{
	const char *p = at(rel);
	FILE *f;

	unlink(p);
	if ((f = fopen(p, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) != 0 || chmod(p, mode) != 0) {
		perror(p);
		exit(2);
	}
}

/* Makes the tree: an empty directory "stem.XXXXXX", mode 0700. */
TREE_FN void
tree_make(const char *stem)
{
	char tmpl[PATH_MAX];
	const char *tmp = getenv("TMPDIR");

	if (tmp == NULL || *tmp != '/')
		tmp = "/tmp";
	if (snprintf(tmpl, sizeof(tmpl), "%s/%s.XXXXXX", tmp, stem) >=
	    (int)sizeof(tmpl))
		abort();
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, tree_root) == NULL) {
		perror(tmpl);
		exit(2);
	}
}

static int
tree_rm_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Removes the tree, if it was made. */
TREE_FN void
tree_remove(void)
{
	if (tree_root[0] != '\0')
		nftw(tree_root, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* TC_TEST_TREE_H */
