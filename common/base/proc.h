/*
 * proc.h: who a process is, as /proc says, so that a directory named for
 * a server can be told, after the server is gone, from one whose server
 * lives: its PID namespace (the inode of /proc/self/ns/pid), its pid there
 * and its start time (field 22 of /proc/PID/stat, clock ticks since boot).
 * No other process, in this namespace or another, and no later one given
 * the same pid, has all three.  pids.c names a server's cgroup directory
 * so, and toolcell-shell its scratch base.
 *
 * Returns (base/): 0 or -1 with errno set; a question 1 or 0; a parse
 * what follows what it read (NULL: not one).
 */
#ifndef TC_PROC_H
#define TC_PROC_H

#include <sys/types.h>

struct tc_proc_id {
	unsigned long long ns;		/* PID namespace's inode */
	long		   pid;		/* pid in it */
	unsigned long long start;	/* start time, clock ticks */
};

/* "NS-PID-START", for printf with the three fields in that order. */
#define TC_PROC_ID_FMT	"%llu-%ld-%llu"

/*
 * Reads the small file |path| (one of /proc's, /sys's or cgroupfs's,
 * which give their text in one read) whole into |buf|, at most |len| - 1
 * bytes, NUL-terminated, retrying a read that a signal interrupted.
 * Returns how many bytes it read, or -1 with errno set.
 */
ssize_t	tc_read_small(const char *path, char *buf, size_t len);

/* Reads the start time of process |pid| (0: the caller) into *|start|.
 * Returns 0 or -1. */
int	tc_proc_start(long pid, unsigned long long *start);

/* Fills |id| for the calling process.  Returns 0 or -1. */
int	tc_proc_me(struct tc_proc_id *id);

/*
 * Parses "NS-PID-START" at |s|, each a decimal number, the last ended by
 * |stop| (which may be '\0'), into |id|.  Returns what follows |stop|
 * (|s|'s end for '\0'), or NULL if |s| does not start with one (a pid of
 * 0 or above INT_MAX is not one).
 */
const char *tc_proc_id_parse(const char *s, char stop, struct tc_proc_id *id);

/* Returns 1 if /proc shows the processes of the caller's PID namespace
 * (its "self" is the caller's pid): only then does /proc/PID name the
 * process that kill(PID) reaches. */
int	tc_proc_is_ours(void);

/*
 * Returns 1 if the process |id| names is proved gone, as the calling
 * process |me| (tc_proc_me()) sees it: of |me|'s PID namespace, and no
 * process has its pid now, or, where /proc shows that namespace, the one
 * that has it started at another time (as read in the caller's time
 * namespace, which must be that process's: /proc gives a start time in
 * the reader's).  Anything it cannot tell (another namespace, whose pids
 * mean nothing here; a process of that pid that may be it, or whose time
 * namespace it may not look at) is 0.
 */
int	tc_proc_gone(const struct tc_proc_id *id, const struct tc_proc_id *me);

#endif /* TC_PROC_H */
