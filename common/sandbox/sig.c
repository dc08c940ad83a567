/*
 * sig.c: a signal's disposition back to the default (sig.h).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/sig.h"

int
tc_signal_default(int sig)
{
	/* The kernel's struct sigaction, whatever its layout on this
	 * architecture: all zeroes is SIG_DFL, no flags, an empty mask. */
	unsigned long ksa[8];
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	if (sigaction(sig, &sa, NULL) == 0)
		return 0;
	if (errno != EINVAL)
		return -1;
	memset(ksa, 0, sizeof(ksa));
	return syscall(SYS_rt_sigaction, sig, ksa, NULL,
	    (size_t)(NSIG - 1) / 8) == 0 ? 0 : -1;
}
