/* err.c: the error table expanded into names and descriptions. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/text.h"

const char *
tc_strerror(int code)
{
	switch (code) {
#define TC_ERR_STR(name, num, text) case (num): return text;
	TC_ERRORS(TC_ERR_STR)
#undef TC_ERR_STR
	}
	return "unknown error";
}

const char *
tc_errname(int code)
{
	switch (code) {
#define TC_ERR_NAME(name, num, text) case (num): return "TC_E" #name;
	TC_ERRORS(TC_ERR_NAME)
#undef TC_ERR_NAME
	}
	return "TC_E?";
}

static void
vdiag(struct tc_diag *d, const char *fmt, va_list ap)
{
	tc_text_vfmt(d->msg, sizeof(d->msg), fmt, ap);
}

int
tc_diag(struct tc_diag *d, int code, const char *fmt, ...)
{
	va_list ap;

	if (d == NULL)
		return code;
	va_start(ap, fmt);
	vdiag(d, fmt, ap);
	va_end(ap);
	d->sys_errno = 0;
	return code;
}

int
tc_diag_errno(struct tc_diag *d, int code, const char *fmt, ...)
{
	int saved = errno;
	size_t n;
	va_list ap;

	if (d == NULL)
		return code;
	va_start(ap, fmt);
	vdiag(d, fmt, ap);
	va_end(ap);
	n = strlen(d->msg);
	tc_text_fmt(d->msg + n, sizeof(d->msg) - n, ": %s", strerror(saved));
	d->sys_errno = saved;
	errno = saved;
	return code;
}
