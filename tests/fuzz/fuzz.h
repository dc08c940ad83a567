/*
 * fuzz.h: what the harnesses in tests/fuzz share.  Each harness is one
 * file with LLVMFuzzerInitialize() and LLVMFuzzerTestOneInput(), built two
 * ways: with clang's libFuzzer for `make fuzz`, and with the normal
 * compiler and replay.c's main() for `make test`, which runs every file of
 * the harness's corpus through it.
 *
 * A harness checks an oracle on every input, not only that nothing
 * crashed; FUZZ_CHECK() states one.  When it fails, the harness says what
 * and where on stderr and aborts, which libFuzzer reports as a crash (and
 * saves the input) and replay.c as a failed test.
 */
#ifndef TC_FUZZ_H
#define TC_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void	fuzz_fail(const char *, int, const char *, const char *, ...)
		    __attribute__((format(printf, 4, 5), __noreturn__, unused));

/* Reports a failed oracle and aborts. */
static void
fuzz_fail(const char *file, int line, const char *cond, const char *fmt,
    ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "fuzz: oracle failed at %s:%d: %s\nfuzz: ", file, line,
	    cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

#define FUZZ_CHECK(cond, ...) do {					\
	if (!(cond))							\
		fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);	\
} while (0)

#endif /* TC_FUZZ_H */
