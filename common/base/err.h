/*
 * err.h: toolcell's error codes and the detail that goes with them.
 *
 * Every code has a fixed number that keeps its meaning forever; a retired
 * code stays in the table, marked unused.  Functions that can fail return 0
 * or a negative TC_E* code; those whose failure a person must read also take
 * a struct tc_diag * that receives a one-line message.
 *
 * Returns (base/): 0 or a negative TC_E* code; yes/no questions 1 or 0;
 * what computes a value (a length, a pointer) returns it, NULL only when
 * memory ran out.  A code is always named: a bare -1 reads as TC_ENOMEM,
 * and make lint refuses one passed to tc_diag().
 */
#ifndef TC_ERR_H
#define TC_ERR_H

#include <limits.h>
#include <stddef.h>

#define TC_ERRORS(X)							\
	X(OK,		  0, "success")					\
	X(NOMEM,	 -1, "out of memory")				\
	X(TOOBIG,	 -2, "input exceeds its size limit")		\
	X(BADJSON,	 -3, "malformed JSON")				\
	X(INVAL,	 -4, "invalid argument")			\
	X(DENIED,	 -5, "denied by policy")			\
	X(NOCONSENT,	 -6, "consent was not given")			\
	X(TIMEOUT,	 -7, "deadline exceeded")			\
	X(CHILD,	 -8, "sandboxed handler failed")		\
	X(SYS,		 -9, "system call failed")			\
	X(NOTSUP,	-10, "required kernel feature is missing")	\
	X(NOTFOUND,	-11, "not found")				\
	X(OUTSIDE,	-12, "outside what the policy allows")		\
	X(CANCELLED,	-13, "cancelled")				\
	X(BUSY,		-14, "too many calls in flight")

enum tc_err {
#define TC_ERR_ENUM(name, num, text) TC_E##name = (num),
	TC_ERRORS(TC_ERR_ENUM)
#undef TC_ERR_ENUM
};

/*
 * Room for a message that names two paths of PATH_MAX bytes ("cannot
 * rename 'A' to 'B': ..."), and the words around them: a message is never
 * cut inside a path that a person must copy.
 */
#define TC_DIAG_MAX	(2 * PATH_MAX + 512)

/* Detail for a human, filled where the context is known. */
struct tc_diag {
	char	msg[TC_DIAG_MAX];	/* "x.policy:12: unknown keyword
					   'alow'" */
	int	sys_errno;	/* saved at the failing call */
};

/*
 * A struct tc_diag is big, and clearing it whole (as an initializer does,
 * or the build's -ftrivial-auto-var-init=zero for a variable without one)
 * costs on the path of every call.  There, declare it TC_UNINIT and make
 * it ready with tc_diag_init(), which clears only what a reader looks at:
 *
 *	struct tc_diag d TC_UNINIT;
 *	...
 *	tc_diag_init(&d);
 *
 * Elsewhere, "struct tc_diag d = { "", 0 };" is as good.
 */
#if defined(__has_attribute)
#if __has_attribute(uninitialized)
#define TC_UNINIT	__attribute__((uninitialized))
#endif
#endif
#ifndef TC_UNINIT
#define TC_UNINIT
#endif

static inline void
tc_diag_init(struct tc_diag *d)
{
	d->msg[0] = '\0';
	d->sys_errno = 0;
}

/* Returns a static description of |code|, or "unknown error". */
const char	*tc_strerror(int code);

/* Returns the static name of |code| ("TC_EINVAL"), or "TC_E?". */
const char	*tc_errname(int code);

/*
 * Formats a message into |d| (if not NULL) and returns |code|, a TC_E*
 * code, so that a failure costs one line:
 * return tc_diag(d, TC_EINVAL, "bad '%s'", s);
 */
int		 tc_diag(struct tc_diag *d, int code, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));

/* As tc_diag(), and records errno (read before formatting) in |d|. */
int		 tc_diag_errno(struct tc_diag *d, int code, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));

#define TC_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* TC_ERR_H */
