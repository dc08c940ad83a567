/*
 * checks.c: hostile tools aimed at three checks that a single deliberate
 * bug could turn off unseen: Landlock's write rights, tried on a directory
 * by every call that changes one; the server's check of the UTF-8 in a
 * child's result, fed one that is not; and the root fds a child keeps,
 * which its profile says.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/buf.h"
#include "hostile.h"
#include "policy/policy.h"

/* One attempt: 0 when it did what it tried, else the errno. */
struct attempt {
	const char	*op;
	int		 err;
};

/* Joins |dir| and |name| into |buf| (PATH_MAX). */
static const char *
at(char *buf, const char *dir, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

/* Opens |path| with |flags| and writes a byte; 0 or the errno. */
static int
open_write(const char *path, int flags)
{
	int fd, err = 0;

	if ((fd = openat(AT_FDCWD, path, flags | O_CLOEXEC | O_NOCTTY,
	    0644)) < 0)
		return errno;
	if (write(fd, "X", 1) != 1)
		err = errno != 0 ? errno : EIO;
	close(fd);
	return err;
}

/* An unnamed file in |dir|, written, then linked in as |path|. */
static int
tmpfile_link(const char *dir, const char *path)
{
	char self[64];
	int fd, err = 0;

	if ((fd = openat(AT_FDCWD, dir, O_TMPFILE | O_WRONLY | O_CLOEXEC,
	    0644)) < 0)
		return errno;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (write(fd, "X", 1) != 1 || linkat(AT_FDCWD, self, AT_FDCWD, path,
	    AT_SYMLINK_FOLLOW) != 0)
		err = errno != 0 ? errno : EIO;
	close(fd);
	return err;
}

/* Opens |path| read-only and changes its mode; 0 or the errno. */
static int
fchmod_rdonly(const char *path, mode_t mode)
{
	int fd, err = 0;

	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) <
	    0)
		return errno;
	if (fchmod(fd, mode) != 0)
		err = errno;
	close(fd);
	return err;
}

/* Records system call |call| as attempt |name|: 0, or its errno. */
#define TRY(name, call)	do {						\
	errno = 0;							\
	v[n].op = (name);						\
	v[n].err = (call) == 0 ? 0 : errno != 0 ? errno : EIO;		\
	n++;								\
} while (0)
/* Records |expr|, already 0 or an errno, as attempt |name|. */
#define TRYE(name, expr)	do {					\
	v[n].op = (name);						\
	v[n].err = (expr);						\
	n++;								\
} while (0)

/*
 * Tries to change directory |dir| in every way a child of the fs-write
 * profile could: each attempt is one system call (or an open and a write)
 * on names the test made, "victim", "doomed", "doomed.d", "mover",
 * "swap" and "leaver" in |dir| and "incoming" and "linksrc" in |other|,
 * a directory where writing is allowed.  Each attempt is reported with
 * its errno (0: it worked); "escaped" is true if any of them worked.
 */
int
hs_write_every_way(const struct tc_call *call, struct tc_result *res)
{
	const char *dir = tc_arg_str(call, "dir");
	const char *other = tc_arg_str(call, "other");
	char a[PATH_MAX], b[PATH_MAX];
	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };
	struct attempt v[24];
	cJSON *list, *it;
	size_t n = 0, i, worked = 0;
	char names[512];
	size_t len = 0;

	TRYE("open_write", open_write(at(a, dir, "victim"), O_WRONLY));
	TRYE("open_append", open_write(at(a, dir, "victim"),
	    O_WRONLY | O_APPEND));
	TRYE("open_rdwr", open_write(at(a, dir, "victim"), O_RDWR));
	TRYE("open_trunc", open_write(at(a, dir, "victim"),
	    O_WRONLY | O_TRUNC));
	TRYE("open_creat", open_write(at(a, dir, "new-file"),
	    O_WRONLY | O_CREAT | O_EXCL));
	TRYE("tmpfile_link", tmpfile_link(dir, at(a, dir, "new-tmpfile")));
	TRY("mkdirat", mkdirat(AT_FDCWD, at(a, dir, "new-dir"), 0755));
	TRY("unlinkat", unlinkat(AT_FDCWD, at(a, dir, "doomed"), 0));
	TRY("rmdir", unlinkat(AT_FDCWD, at(a, dir, "doomed.d"),
	    AT_REMOVEDIR));
	TRY("rename", syscall(SYS_renameat2, AT_FDCWD, at(a, dir, "mover"),
	    AT_FDCWD, at(b, dir, "moved"), 0));
	TRY("exchange", syscall(SYS_renameat2, AT_FDCWD, at(a, dir, "swap"),
	    AT_FDCWD, at(b, dir, "victim"), RENAME_EXCHANGE));
	TRY("rename_out", syscall(SYS_renameat2, AT_FDCWD,
	    at(a, dir, "leaver"), AT_FDCWD, at(b, other, "left"), 0));
	TRY("rename_in", syscall(SYS_renameat2, AT_FDCWD,
	    at(a, other, "incoming"), AT_FDCWD, at(b, dir, "incoming"), 0));
	TRY("symlinkat", symlinkat("victim", AT_FDCWD,
	    at(a, dir, "new-symlink")));
	TRY("linkat", linkat(AT_FDCWD, at(a, dir, "victim"), AT_FDCWD,
	    at(b, dir, "new-hardlink"), AT_SYMLINK_FOLLOW));
	TRY("link_in", linkat(AT_FDCWD, at(a, other, "linksrc"), AT_FDCWD,
	    at(b, dir, "linked-in"), AT_SYMLINK_FOLLOW));
	TRY("mknodat_fifo", mknodat(AT_FDCWD, at(a, dir, "new-fifo"),
	    S_IFIFO | 0644, 0));
	TRY("truncate", syscall(SYS_truncate, at(a, dir, "victim"), 0));
	/* What Landlock does not govern: a file's mode and times. */
	TRY("fchmodat", fchmodat(AT_FDCWD, at(a, dir, "victim"), 0600, 0));
	TRYE("fchmod_rdonly", fchmod_rdonly(at(a, dir, "victim"), 0640));
	TRY("utimensat", utimensat(AT_FDCWD, at(a, dir, "victim"), ts, 0));

	if ((list = cJSON_AddArrayToObject(tc_result_obj(res), "attempts")) ==
	    NULL)
		return TC_ENOMEM;
	names[0] = '\0';
	for (i = 0; i < n; i++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "op", v[i].op);
		cJSON_AddNumberToObject(it, "errno", v[i].err);
		cJSON_AddItemToArray(list, it);
		if (v[i].err != 0)
			continue;
		worked++;
		if (len < sizeof(names))
			len += (size_t)snprintf(names + len,
			    sizeof(names) - len, " %s", v[i].op);
	}
	hs_int(res, "worked", (long long)worked);
	return hs_outcome(res, worked > 0, 0, "%zu of %zu changes to '%s' "
	    "worked:%s", worked, n, dir, worked > 0 ? names : " none");
}

/*
 * Returns a result whose text, structuredContent or one of its keys holds
 * |marker| followed by bytes that are not UTF-8: a stray continuation
 * byte, 0xff, an overlong '/', a surrogate and a sequence cut short (for
 * "none", the text holds the marker alone).
 * tc_result_text() would have replaced them; they go into the buffer as
 * they are, as a handler that a bug or an attacker controls could put
 * them.
 */
int
hs_bad_utf8(const struct tc_call *call, struct tc_result *res)
{
	static const char bad[] = "\x80\xff\xc0\xaf\xed\xa0\x80\xe2\x82";
	const char *where = tc_arg_str(call, "where");
	const char *marker = tc_arg_str(call, "marker");
	char s[PATH_MAX + sizeof(bad)];
	cJSON *o;

	snprintf(s, sizeof(s), "%s%s", marker, strcmp(where, "none") == 0 ?
	    "" : bad);
	if (strcmp(where, "text") == 0 || strcmp(where, "none") == 0) {
		hs_bool(res, "ok", 1);
		return tc_buf_append(&res->text, s, strlen(s));
	}
	tc_result_printf(res, "the structured content holds bytes that "
	    "are not UTF-8\n");
	if ((o = tc_result_obj(res)) == NULL)
		return TC_ENOMEM;
	if (strcmp(where, "key") == 0)
		cJSON_AddTrueToObject(o, s);
	else
		cJSON_AddStringToObject(o, "value", s);
	return 0;
}

/*
 * Counts the policy's root fds still open in this child ("roots"), and
 * the open fds above 2 that are directories ("dirs"): a root fd moved or
 * copied elsewhere would be one.  "escaped" when either is not 0, which is
 * what a profile that keeps no root expects.
 */
int
hs_root_fds(const struct tc_call *call, struct tc_result *res)
{
	struct stat st;
	long long roots = 0, dirs = 0;
	size_t i;
	int fd;

	for (i = 0; i < call->policy->nroots; i++)
		if (fcntl(call->policy->roots[i].fd, F_GETFD) >= 0 &&
		    fstat(call->policy->roots[i].fd, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			roots++;
	for (fd = 3; fd < 1024; fd++)
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			dirs++;
	hs_int(res, "roots", roots);
	hs_int(res, "dirs", dirs);
	hs_int(res, "nroots", (long long)call->policy->nroots);
	return hs_outcome(res, roots > 0 || dirs > 0, 0, "%lld of %zu root fds "
	    "open, %lld directory fds", roots, call->policy->nroots, dirs);
}
