/*
 * keeper.h: a keeper kills a process and everything it started, however
 * it detached.
 * Returns (sandbox/): 0 or a negative TC_E* code, with a struct tc_diag
 * where a person must read why; a question 1 or 0; a count or a lookup
 * what it found (NULL: nothing); a step that a child or a keeper takes
 * against the kernel 0 or -1 with errno set.
 *
 * A process group does not hold what a program starts: a descendant that
 * calls setsid() or setpgid(), or forks twice, leaves it.  A keeper is a
 * small process between the server and such a program that has made
 * itself a child subreaper (PR_SET_CHILD_SUBREAPER): whatever the program
 * leaves behind becomes the keeper's child when its parent dies.  When the
 * program exits, or when the server asks, the keeper kills its children
 * with SIGKILL, reaps them, looks again for the orphans their deaths
 * handed it (/proc/thread-self/children, or a scan of /proc), and repeats
 * until it has none.  It blocks every signal, so that nothing but the
 * server's word (or the server's end) stops it before the tree is dead.
 *
 * The server's word is an fd the keeper watches: the read end of a pipe
 * whose write end the server holds, or the write end of a pipe whose read
 * end the server holds.  Either way the server (or its exit, however it
 * dies) closes its end, and the keeper's end reports it (POLLHUP, POLLERR
 * or end-of-file).
 *
 * The consent hook's keeper (hook.c) and a call's keeper (child.c) both
 * use these.  Without /proc, orphans cannot be found: the keeper then
 * waits for them to exit, and whoever started it kills it after a grace
 * period.
 */
#ifndef TC_KEEPER_H
#define TC_KEEPER_H

#include <sys/types.h>

/*
 * Makes the calling process a keeper: every signal blocked, a child
 * subreaper.  Returns 0 or -1.
 */
int	tc_keeper_become(void);

/*
 * Kills every descendant of the calling keeper and reaps it, recording
 * the wait status of |child| in *|status| (and *|have_status| = 1) if it
 * is reaped here.  Returns once the keeper has no child left.
 */
void	tc_keeper_kill_tree(pid_t child, int *status, int *have_status);

/*
 * Waits until |child| (whose pidfd is |child_fd|) exits or |ctl| reports
 * the server's word (readable, or hung up, or an error); then kills the
 * child if it still runs, and the whole tree (tc_keeper_kill_tree()).
 * Meanwhile it reaps the orphans it adopted as they end (SIGCHLD through
 * a signalfd): a zombie counts against the call's process limit until it
 * is reaped.  The status of |child| lands in *|status| as there.
 */
void	tc_keeper_watch(pid_t child, int child_fd, int ctl, int *status,
	    int *have_status);

#endif /* TC_KEEPER_H */
