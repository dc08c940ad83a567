/*
 * tap.h: a header-only TAP producer for the unit tests, with no plan up
 * front: ok(), is_int(), is_str(), like() and skip(), then done_testing(),
 * which prints the plan and returns the exit status.  Test names are
 * printf formats.  Every line is flushed at once, so that a forked child
 * never repeats buffered output.
 */
#ifndef TC_TAP_H
#define TC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TAP_FN		static __attribute__((unused))
#define TAP_FMT(i)	__attribute__((format(printf, i, (i) + 1)))

static int tap_run, tap_failed;

/* Prints "#   label: 's'" on one line, control bytes escaped. */
TAP_FN void
tap_show(const char *label, const char *s)
{
	printf("#  %7s: %s", label, s == NULL ? "(null)" : "'");
	for (; s != NULL && *s != '\0'; s++)
		printf((unsigned char)*s < 0x20 ? "\\x%02x" : "%c",
		    (unsigned char)*s);
	printf("%s\n", s == NULL ? "" : "'");
}

/* Reports one test; on failure, where, and |got| and |want| if given. */
TAP_FN __attribute__((format(printf, 6, 0))) int
tap_vcheck(const char *file, int line, int cond, const char *got,
    const char *want, const char *fmt, va_list ap)
{
	printf("%sok %d - ", cond ? "" : "not ", ++tap_run);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
		if (got != NULL || want != NULL) {
			tap_show("got", got);
			tap_show("want", want);
		}
	}
	fflush(stdout);
	return cond;
}

#define TAP_CHECK(cond, got, want) do {					\
	va_list ap;							\
									\
	va_start(ap, fmt);						\
	cond = tap_vcheck(file, line, cond, got, want, fmt, ap);	\
	va_end(ap);							\
} while (0)

TAP_FN TAP_FMT(4) int
tap_ok(const char *file, int line, int cond, const char *fmt, ...)
{
	TAP_CHECK(cond, NULL, NULL);
	return cond;
}

TAP_FN TAP_FMT(5) int
tap_is_int(const char *file, int line, long long got, long long want,
    const char *fmt, ...)
{
	char g[24], w[24];
	int cond = got == want;

	snprintf(g, sizeof(g), "%lld", got);
	snprintf(w, sizeof(w), "%lld", want);
	TAP_CHECK(cond, g, w);
	return cond;
}

/* |sub| nonzero: |want| need only be a substring of |got|. */
TAP_FN TAP_FMT(6) int
tap_is_str(const char *file, int line, int sub, const char *got,
    const char *want, const char *fmt, ...)
{
	int cond = got == NULL || want == NULL ? got == want && !sub :
	    sub ? strstr(got, want) != NULL : strcmp(got, want) == 0;

	TAP_CHECK(cond, got, want);
	return cond;
}

#define ok(cond, ...)	tap_ok(__FILE__, __LINE__, (cond) != 0, __VA_ARGS__)
#define is_int(got, want, ...)						\
	tap_is_int(__FILE__, __LINE__, (long long)(got), (long long)(want), \
	    __VA_ARGS__)
#define is_str(got, want, ...)						\
	tap_is_str(__FILE__, __LINE__, 0, (got), (want), __VA_ARGS__)
#define like(got, sub, ...)						\
	tap_is_str(__FILE__, __LINE__, 1, (got), (sub), __VA_ARGS__)

TAP_FN void
skip(const char *reason)
{
	printf("ok %d # SKIP %s\n", ++tap_run, reason);
	fflush(stdout);
}

/* Prints the plan; returns 0 if every test passed, else 1. */
TAP_FN int
done_testing(void)
{
	printf("1..%d\n", tap_run);
	if (tap_failed > 0)
		printf("# failed %d of %d tests\n", tap_failed, tap_run);
	fflush(stdout);
	return tap_failed > 0;
}

#endif /* TC_TAP_H */
