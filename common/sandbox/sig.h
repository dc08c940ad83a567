/*
 * sig.h: a signal's disposition back to the default, for the processes
 * the server forks (a call's child before its confinement, the consent
 * hook's child before exec).
 * Returns (sandbox/): a step that a child or a keeper takes against the
 * kernel 0 or -1 with errno set.
 */
#ifndef TC_SIG_H
#define TC_SIG_H

/*
 * Sets |sig|'s disposition to SIG_DFL, with no flags and an empty mask:
 * by sigaction(2), or, for the two signals glibc keeps for itself (32
 * and 33, whose dispositions its sigaction() neither reads nor changes,
 * and which an ancestor may have ignored: GNU make does), by the
 * kernel's own call.  Returns 0, or -1 (SIGKILL, SIGSTOP, or no signal).
 */
int	tc_signal_default(int sig);

#endif /* TC_SIG_H */
