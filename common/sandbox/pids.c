/*
 * pids.c: each call's pids cgroup (see pids.h): where the server may
 * make them, found once at start; the server's directory among them;
 * and the keeper's steps into and out of a call's own.  It calls nothing
 * else of the sandbox.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/pids.h"

/* What tc_pids_open() made, for tc_pids_current(). */
static const struct tc_pids *opened;

/* Returns 1 if the list |list| (|n| bytes, words separated by |sep|)
 * holds |word|. */
static int
has_word(const char *list, size_t n, char sep, const char *word)
{
	size_t w = strlen(word), k;

	while (n > 0) {
		for (k = 0; k < n && list[k] != sep; k++)
			;
		if (k == w && memcmp(list, word, w) == 0)
			return 1;
		list += k < n ? k + 1 : k;
		n -= k < n ? k + 1 : k;
	}
	return 0;
}

/*
 * Finds in /proc/self/cgroup's text the path of our cgroup in the
 * hierarchy of |kind|: "0::PATH" for v2, "ID:...,pids,...:PATH" for v1.
 * Sets *|path| and *|plen| to it.  Returns 1 if found.
 */
static int
own_path(const char *text, enum tc_pids_kind kind, const char **path,
    size_t *plen)
{
	const char *line, *eol, *c1, *c2;

	for (line = text; *line != '\0'; line = *eol ? eol + 1 : eol) {
		eol = line + strcspn(line, "\n");
		if ((c1 = memchr(line, ':', (size_t)(eol - line))) == NULL ||
		    (c2 = memchr(c1 + 1, ':', (size_t)(eol - c1 - 1))) == NULL)
			continue;
		if (kind == TC_PIDS_V2 ? (c1 - line == 1 && line[0] == '0' &&
		    c2 == c1 + 1) : has_word(c1 + 1, (size_t)(c2 - c1 - 1),
		    ',', "pids")) {
			*path = c2 + 1;
			*plen = (size_t)(eol - c2 - 1);
			return *plen > 0 && **path == '/';
		}
	}
	return 0;
}

/*
 * Finds in /proc/self/mountinfo's text a mount of the hierarchy of |kind|
 * ("ID PARENT M:N ROOT POINT OPTS [TAGS] - FSTYPE SOURCE SUPEROPTS"):
 * sets *|root| and *|point| (with their lengths).  A path with an escape
 * (a blank or a backslash in it) is not taken.  Returns 1 if found.
 */
static int
mount_of(const char *text, enum tc_pids_kind kind, const char **root,
    size_t *rlen, const char **point, size_t *plen)
{
	const char *line, *eol, *f[5], *dash, *fs, *super;
	size_t n, i;

	for (line = text; *line != '\0'; line = *eol ? eol + 1 : eol) {
		eol = line + strcspn(line, "\n");
		f[0] = line;
		for (i = 1; i < 5; i++) {
			f[i] = memchr(f[i - 1], ' ', (size_t)(eol - f[i - 1]));
			if (f[i] == NULL)
				break;
			f[i]++;
		}
		if (i < 5 || (dash = strstr(f[4], " - ")) == NULL ||
		    dash > eol)
			continue;
		fs = dash + 3;
		n = strcspn(fs, " \n");
		if (kind == TC_PIDS_V2 ? !(n == 7 && memcmp(fs, "cgroup2",
		    7) == 0) : !(n == 6 && memcmp(fs, "cgroup", 6) == 0))
			continue;
		if (kind == TC_PIDS_V1) {
			/* The source, then the super options. */
			if ((super = memchr(fs + n + 1, ' ',
			    (size_t)(eol - fs - n - 1))) == NULL ||
			    !has_word(super + 1, (size_t)(eol - super - 1), ',',
			    "pids"))
				continue;
		}
		*root = f[3];
		*rlen = (size_t)(f[4] - f[3] - 1);
		*point = f[4];
		*plen = strcspn(f[4], " \n");
		if (memchr(*root, '\\', *rlen) != NULL ||
		    memchr(*point, '\\', *plen) != NULL)
			continue;
		return 1;
	}
	return 0;
}

int
tc_pids_find(const char *cgroup, const char *mountinfo,
    enum tc_pids_kind kind, char *out, size_t len)
{
	const char *path, *root, *point;
	size_t n, rlen, plen;
	int w;

	if (len > 0)
		out[0] = '\0';
	if (kind == TC_PIDS_NONE || !own_path(cgroup, kind, &path, &n) ||
	    !mount_of(mountinfo, kind, &root, &rlen, &point, &plen))
		return 0;
	/* Both paths are seen from our cgroup namespace: the mount shows
	 * the part of the hierarchy below its root. */
	if (rlen > 1) {
		if (n < rlen || memcmp(path, root, rlen) != 0 ||
		    (n > rlen && path[rlen] != '/'))
			return 0;
		path += rlen;
		n -= rlen;
	} else if (rlen != 1 || root[0] != '/')
		return 0;
	/* "/" alone adds nothing to the mount point. */
	if (n == 1)
		n = 0;
	w = snprintf(out, len, "%.*s%.*s", (int)plen, point, (int)n, path);
	if (w < 0 || (size_t)w >= len) {
		if (len > 0)
			out[0] = '\0';
		return 0;
	}
	return 1;
}

/* Reads small file |path| into |buf| (NUL-terminated).  Returns 0 or -1. */
static int
read_small(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (got < len - 1 && (r = read(fd, buf + got, len - 1 - got)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return 0;
}

/* Writes |text| to |dir|/|name| in one write.  Returns 0 or -1. */
static int
write_at(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 32];
	size_t n = strlen(text);
	ssize_t w;
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	w = write(fd, text, n);
	err = errno;
	close(fd);
	if (w != (ssize_t)n) {
		errno = w < 0 ? err : EIO;
		return -1;
	}
	return 0;
}

/* Returns 1 if the server may make cgroups in |home| and move into and
 * out of it, as its effective ids. */
static int
writable(const char *home)
{
	char procs[PATH_MAX + 32];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", home);
	return eaccess(home, W_OK | X_OK) == 0 && eaccess(procs, W_OK) == 0;
}

int
tc_pids_probe(struct tc_pids *p)
{
	static const enum tc_pids_kind order[] = { TC_PIDS_V2, TC_PIDS_V1 };
	char *cg, *mi, ctl[PATH_MAX + 32], list[512];
	size_t i;

	memset(p, 0, sizeof(*p));
	cg = malloc(8192);
	mi = malloc(65536);
	if (cg == NULL || mi == NULL ||
	    read_small("/proc/self/cgroup", cg, 8192) != 0 ||
	    read_small("/proc/self/mountinfo", mi, 65536) != 0) {
		free(cg);
		free(mi);
		return 0;
	}
	for (i = 0; i < TC_NITEMS(order); i++) {
		if (!tc_pids_find(cg, mi, order[i], p->home, sizeof(p->home)))
			continue;
		/* On v2, pids must already be given to our cgroup's
		 * children: we may not enable it while we are in it (no
		 * process in a cgroup whose children have controllers). */
		if (order[i] == TC_PIDS_V2) {
			snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control",
			    p->home);
			if (read_small(ctl, list, sizeof(list)) != 0 ||
			    !has_word(list, strcspn(list, "\n"), ' ', "pids"))
				continue;
		}
		if (!writable(p->home))
			continue;
		p->kind = order[i];
		break;
	}
	free(cg);
	free(mi);
	if (p->kind == TC_PIDS_NONE)
		p->home[0] = '\0';
	return p->kind != TC_PIDS_NONE;
}

/* Removes |dir|'s calls' cgroups (those whose processes are gone; the
 * others stay, busy), then |dir| itself if it is empty by then. */
static void
remove_dir(const char *dir)
{
	char sub[PATH_MAX + 32];
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s", dir,
			    de->d_name) < (int)sizeof(sub))
				(void)rmdir(sub);
		}
		closedir(d);
	}
	(void)rmdir(dir);
}

/*
 * Who a process is, for the name of a server's directory: its PID
 * namespace (the inode of /proc/self/ns/pid), its pid there and its start
 * time (field 22 of /proc/PID/stat, in clock ticks since boot), so that
 * neither a server in another PID namespace nor a later process given a
 * dead server's pid has the same name.
 */
struct who {
	unsigned long long ns;
	long		   pid;
	unsigned long long start;
};

/* Reads the start time of process |pid| (0: ourselves) from /proc into
 * *|start|.  Returns 0 or -1. */
static int
start_time(long pid, unsigned long long *start)
{
	char path[64], buf[1024], *p, *end;
	int i;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/stat");
	else
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_small(path, buf, sizeof(buf)) != 0)
		return -1;
	/* "PID (COMM) STATE PPID ...": the name may hold anything, so
	 * count from its last ')'; the state is field 3. */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	for (p++, i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return -1;
	errno = 0;
	*start = strtoull(p + 1, &end, 10);
	return errno != 0 || end == p + 1 || *end != ' ' ? -1 : 0;
}

/* Fills |w| for the calling process.  Returns 0 or -1. */
static int
who_am_i(struct who *w)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) != 0 ||
	    start_time(0, &w->start) != 0)
		return -1;
	w->ns = (unsigned long long)st.st_ino;
	w->pid = (long)getpid();
	return 0;
}

/* Parses a server's directory name "toolcell-NS-PID-START" into |w|.
 * Returns 1 if it is one. */
static int
parse_name(const char *name, struct who *w)
{
	const char *p = name + 9;
	char *end;

	if (strncmp(name, "toolcell-", 9) != 0)
		return 0;
	if (!isdigit((unsigned char)*p))
		return 0;
	errno = 0;
	w->ns = strtoull(p, &end, 10);
	if (errno != 0 || *end != '-' || !isdigit((unsigned char)end[1]))
		return 0;
	w->pid = strtol(end + 1, &end, 10);
	if (errno != 0 || *end != '-' || !isdigit((unsigned char)end[1]) ||
	    w->pid <= 0 || w->pid > INT_MAX)
		return 0;
	w->start = strtoull(end + 1, &end, 10);
	return errno == 0 && *end == '\0';
}

/* Returns 1 if /proc shows the processes of our own PID namespace (its
 * "self" is our pid there): only then does /proc/PID name the process
 * that kill(PID) reaches. */
static int
proc_is_ours(void)
{
	char link[32];
	ssize_t n;

	if ((n = readlink("/proc/self", link, sizeof(link) - 1)) <= 0)
		return 0;
	link[n] = '\0';
	return strtol(link, NULL, 10) == (long)getpid();
}

/*
 * Removes the directories that servers of our PID namespace killed
 * before their end (SIGKILL) left in |home|: those named for a pid that
 * no process has now, or (where /proc shows our namespace) that a
 * process started later has.  A live server's is left alone, however
 * empty, and so is every directory of another namespace, whose pids mean
 * nothing here.  |me| is the calling server.
 */
static void
sweep(const char *home, const struct who *me)
{
	char dir[PATH_MAX + 32];
	unsigned long long start;
	struct dirent *de;
	struct who w;
	int ours = proc_is_ours();
	DIR *d;

	if ((d = opendir(home)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!parse_name(de->d_name, &w) || w.ns != me->ns)
			continue;
		if (w.pid == me->pid) {
			if (w.start == me->start)
				continue;	/* ours: tc_pids_open() */
		} else if (kill((pid_t)w.pid, 0) == 0 || errno != ESRCH) {
			/* Alive (or another user's): the same process only
			 * if it started when the name says. */
			if (!ours || start_time(w.pid, &start) != 0 ||
			    start == w.start)
				continue;
		}
		if (snprintf(dir, sizeof(dir), "%s/%s", home, de->d_name) <
		    (int)sizeof(dir))
			remove_dir(dir);
	}
	closedir(d);
}

int
tc_pids_open(struct tc_pids *p, unsigned long nproc, struct tc_diag *d)
{
	struct who me;
	int rc;

	if (p->kind == TC_PIDS_NONE)
		return 0;
	if (who_am_i(&me) != 0)
		return tc_diag_errno(d, TC_ESYS, "cannot tell this server's "
		    "PID namespace and start time from /proc/self");
	if (snprintf(p->dir, sizeof(p->dir), "%s/toolcell-%llu-%ld-%llu",
	    p->home, me.ns, me.pid, me.start) >= (int)sizeof(p->dir)) {
		p->dir[0] = '\0';
		errno = ENAMETOOLONG;
		return tc_diag_errno(d, TC_ESYS, "cannot make the calls' pids "
		    "cgroup in '%s'", p->home);
	}
	sweep(p->home, &me);
	/* One of that name is no one's now (this server made none yet):
	 * its calls' cgroups go with it, and a fresh one is made. */
	rc = mkdir(p->dir, 0755);
	if (rc != 0 && errno == EEXIST) {
		remove_dir(p->dir);
		rc = mkdir(p->dir, 0755);
	}
	if (rc != 0) {
		(void)tc_diag_errno(d, TC_ESYS, "cannot make the calls' pids "
		    "cgroup '%s'", p->dir);
		p->dir[0] = '\0';
		return TC_ESYS;
	}
	/* On v2 the calls' cgroups have pids.max only if their parent gives
	 * them the controller. */
	if (p->kind == TC_PIDS_V2 &&
	    write_at(p->dir, "cgroup.subtree_control", "+pids") != 0) {
		(void)tc_diag_errno(d, TC_ESYS, "cannot enable the pids "
		    "controller in '%s'", p->dir);
		(void)rmdir(p->dir);
		p->dir[0] = '\0';
		return TC_ESYS;
	}
	p->max = tc_pids_max(nproc);
	p->owner = getpid();
	opened = p;
	return 0;
}

void
tc_pids_close(struct tc_pids *p)
{
	if (opened == p)
		opened = NULL;
	/* Only the server that made it removes it (a process forked from
	 * it that releases its copy of the sandbox does not). */
	if (p->dir[0] == '\0' || p->owner != getpid()) {
		p->dir[0] = '\0';
		return;
	}
	/* A call's cgroup is left only by a keeper killed before it could
	 * remove it; the processes in it are dead by now, or the rmdir
	 * fails (EBUSY) and it stays. */
	remove_dir(p->dir);
	p->dir[0] = '\0';
}

const struct tc_pids *
tc_pids_current(void)
{
	return opened;
}

/* The call's cgroup of keeper |keeper|, into |out|.  Returns 0 or -1. */
static int
call_dir(const struct tc_pids *p, pid_t keeper, char *out, size_t len)
{
	if (snprintf(out, len, "%s/%ld", p->dir, (long)keeper) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Makes the call's cgroup |dir| in the server's directory, or finds it
 * made.  A server's directory removed from under it (by hand, or by
 * another program's clean-up) is made again, so that its calls go on
 * with their limit instead of failing from then on.  Returns 0 or -1.
 */
static int
make_call_dir(const struct tc_pids *p, const char *dir)
{
	if (mkdir(dir, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	if (mkdir(p->dir, 0755) != 0 && errno != EEXIST)
		return -1;
	if (p->kind == TC_PIDS_V2 &&
	    write_at(p->dir, "cgroup.subtree_control", "+pids") != 0)
		return -1;
	return mkdir(dir, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int
tc_pids_enter(const struct tc_pids *p)
{
	char dir[PATH_MAX + 32];
	int err;

	if (p->dir[0] == '\0')
		return 0;
	if (call_dir(p, getpid(), dir, sizeof(dir)) != 0)
		return -1;
	/* The server may have made it first (tc_pids_limit()); its
	 * pids.max is the server's to write, never ours.  "0" is the
	 * writer itself. */
	if (make_call_dir(p, dir) != 0)
		return -1;
	if (write_at(dir, "cgroup.procs", "0") != 0) {
		err = errno;
		(void)rmdir(dir);
		errno = err;
		return -1;
	}
	return 0;
}

int
tc_pids_limit(const struct tc_pids *p, pid_t keeper, unsigned long nproc)
{
	char dir[PATH_MAX + 32], max[32];

	if (p->dir[0] == '\0')
		return 0;
	if (call_dir(p, keeper, dir, sizeof(dir)) != 0)
		return -1;
	snprintf(max, sizeof(max), "%lu", tc_pids_max(nproc));
	/* Mostly one write: the keeper made its cgroup long ago.  A keeper
	 * not there yet finds it made, and enters it as it is. */
	if (write_at(dir, "pids.max", max) == 0)
		return 0;
	if (errno != ENOENT || make_call_dir(p, dir) != 0)
		return -1;
	return write_at(dir, "pids.max", max);
}

void
tc_pids_leave(const struct tc_pids *p)
{
	char dir[PATH_MAX + 32];

	if (p->dir[0] == '\0' || call_dir(p, getpid(), dir, sizeof(dir)) != 0)
		return;
	/* A cgroup with a process in it cannot be removed; if the move
	 * fails, the server removes it at its end. */
	if (write_at(p->home, "cgroup.procs", "0") == 0)
		(void)rmdir(dir);
}

/* Removes the cgroup of keeper |keeper|.  Returns 1 if it is gone (or
 * was), 0 if it stays (busy, or any other failure, to be tried again). */
static int
remove_call(const struct tc_pids *p, pid_t keeper)
{
	char dir[PATH_MAX + 32];

	if (call_dir(p, keeper, dir, sizeof(dir)) != 0)
		return 1;	/* no such name: nothing to remove */
	return rmdir(dir) == 0 || errno == ENOENT;
}

void
tc_pids_reaped(struct tc_pids *p, pid_t keeper)
{
	size_t i;

	if (p->dir[0] == '\0' || keeper <= 0 || remove_call(p, keeper))
		return;
	for (i = 0; i < p->nleft; i++)
		if (p->left[i] == keeper)
			return;
	if (p->nleft < TC_PIDS_LEFT_MAX)
		p->left[p->nleft++] = keeper;
}

void
tc_pids_retry(struct tc_pids *p, pid_t keeper)
{
	size_t i = 0;

	while (i < p->nleft) {
		/* A live keeper's now, or removed: forgotten. */
		if (p->dir[0] == '\0' || p->left[i] == keeper ||
		    remove_call(p, p->left[i]))
			p->left[i] = p->left[--p->nleft];
		else
			i++;
	}
}

const char *
tc_pids_str(const struct tc_pids *p, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (p != NULL && p->kind != TC_PIDS_NONE)
		snprintf(buf, len, "pids cgroup v%d at %s",
		    p->kind == TC_PIDS_V2 ? 2 : 1, p->home);
	return buf;
}
