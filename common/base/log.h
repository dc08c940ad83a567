/*
 * log.h: diagnostics on stderr.  A server's stdout carries MCP messages only,
 * so everything a person should read goes here, one line per message,
 * prefixed with the program's name.
 *
 * Returns (base/): nothing here fails; tc_fatal() and tc_bug() do not
 * return.
 */
#ifndef TC_LOG_H
#define TC_LOG_H

#include <stdnoreturn.h>

enum tc_log_level {
	TC_LOG_ERROR,
	TC_LOG_WARN,
	TC_LOG_INFO,
	TC_LOG_DEBUG,
};

/* Sets the prefix ("toolcell-fs") and the most verbose level printed. */
void		tc_log_init(const char *progname, enum tc_log_level level);

/* Returns the prefix given to tc_log_init(). */
const char     *tc_log_progname(void);

void		tc_log(enum tc_log_level level, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

#define tc_warn(...)	tc_log(TC_LOG_WARN, __VA_ARGS__)
#define tc_info(...)	tc_log(TC_LOG_INFO, __VA_ARGS__)
#define tc_debug(...)	tc_log(TC_LOG_DEBUG, __VA_ARGS__)

/*
 * Prints the message and exits 1.  Only for start-up, before the serving
 * loop begins: nothing a client sends may reach it.
 */
noreturn void	tc_fatal(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));

/* A broken invariant: prints where and aborts. */
noreturn void	tc_bug(const char *file, int line, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
#define TC_BUG(...)	tc_bug(__FILE__, __LINE__, __VA_ARGS__)

#endif /* TC_LOG_H */
