/*
 * tap.h: a header-only TAP producer for the unit tests, with no plan up
 * front: ok(), is_int(), is_str(), like(), skip(), then done_testing(),
 * which prints the plan and returns the exit status.  Test names are
 * printf formats.  Every line is flushed at once, so a forked child never
 * repeats buffered output.
 */
#ifndef TC_TAP_H
#define TC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TAP_FN	static __attribute__((unused))

static int tap_run, tap_failed;

TAP_FN __attribute__((format(printf, 4, 0))) int
tap_vok(const char *file, int line, int cond, const char *fmt, va_list ap)
{
	printf("%sok %d - ", cond ? "" : "not ", ++tap_run);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

/* Prints "#   label: 's'" on one line, control bytes escaped. */
TAP_FN void
tap_show(const char *label, const char *s)
{
	printf("#  %7s: ", label);
	if (s == NULL) {
		printf("(null)\n");
		return;
	}
	putchar('\'');
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	printf("'\n");
}

#define TAP_START(cond)	do {						\
	va_list ap;							\
									\
	va_start(ap, fmt);						\
	cond = tap_vok(file, line, cond, fmt, ap);			\
	va_end(ap);							\
} while (0)

TAP_FN __attribute__((format(printf, 4, 5))) int
tap_ok(const char *file, int line, int cond, const char *fmt, ...)
{
	TAP_START(cond);
	return cond;
}

TAP_FN __attribute__((format(printf, 5, 6))) int
tap_is_int(const char *file, int line, long long got, long long want,
    const char *fmt, ...)
{
	int cond = got == want;

	TAP_START(cond);
	if (!cond)
		printf("#      got: %lld\n#     want: %lld\n", got, want);
	fflush(stdout);
	return cond;
}

TAP_FN __attribute__((format(printf, 5, 6))) int
tap_is_str(const char *file, int line, const char *got, const char *want,
    const char *fmt, ...)
{
	int cond = got == NULL || want == NULL ? got == want :
	    strcmp(got, want) == 0;

	TAP_START(cond);
	if (!cond) {
		tap_show("got", got);
		tap_show("want", want);
	}
	fflush(stdout);
	return cond;
}

TAP_FN __attribute__((format(printf, 5, 6))) int
tap_like(const char *file, int line, const char *got, const char *sub,
    const char *fmt, ...)
{
	int cond = got != NULL && strstr(got, sub) != NULL;

	TAP_START(cond);
	if (!cond) {
		tap_show("got", got);
		tap_show("substr", sub);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...)	tap_ok(__FILE__, __LINE__, (cond) != 0, __VA_ARGS__)
#define is_int(got, want, ...)						\
	tap_is_int(__FILE__, __LINE__, (long long)(got), (long long)(want), \
	    __VA_ARGS__)
#define is_str(got, want, ...)						\
	tap_is_str(__FILE__, __LINE__, (got), (want), __VA_ARGS__)
#define like(got, sub, ...)						\
	tap_like(__FILE__, __LINE__, (got), (sub), __VA_ARGS__)

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
