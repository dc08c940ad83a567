/* util.c: reporting and small helpers shared by the hostile tools. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"
#include "policy/policy.h"

int
hs_outcome(struct tc_result *res, int escaped, int err, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	hs_bool(res, "escaped", escaped);
	hs_int(res, "errno", err);
	hs_str(res, "detail", detail);
	tc_result_printf(res, "escaped=%s errno=%d: %s\n",
	    escaped ? "true" : "false", err, detail);
	return 0;
}

void
hs_int(struct tc_result *res, const char *name, long long v)
{
	cJSON *o = tc_result_obj(res);

	if (o != NULL) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, name);
		cJSON_AddNumberToObject(o, name, (double)v);
	}
}

void
hs_str(struct tc_result *res, const char *name, const char *v)
{
	cJSON *o = tc_result_obj(res);

	if (o != NULL) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, name);
		cJSON_AddStringToObject(o, name, v);
	}
}

void
hs_bool(struct tc_result *res, const char *name, int v)
{
	cJSON *o = tc_result_obj(res);

	if (o != NULL) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, name);
		cJSON_AddBoolToObject(o, name, v != 0);
	}
}

ssize_t
hs_read_some(int fd, char *buf, size_t cap)
{
	size_t got = 0;
	ssize_t n;

	while (got < cap) {
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return got > 0 ? (ssize_t)got : -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int
hs_contains(const char *buf, size_t n, const char *needle)
{
	size_t k = strlen(needle);

	return k > 0 && n >= k && memmem(buf, n, needle, k) != NULL;
}

int
hs_read_secret(int dirfd, const char *path, const char *secret, int *err,
    ssize_t *nread)
{
	static char buf[64 << 10];
	int fd, found;

	*err = 0;
	*nread = -1;
	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		*err = errno;
		return 0;
	}
	if ((*nread = hs_read_some(fd, buf, sizeof(buf))) < 0)
		*err = errno;
	found = *nread > 0 && hs_contains(buf, (size_t)*nread, secret);
	close(fd);
	return found;
}

long
hs_outer_pid(int *nested)
{
	char line[256], *p, *end;
	long first = 0;
	FILE *f;

	*nested = 0;
	if ((f = fopen("/proc/self/status", "re")) == NULL)
		return (long)getpid();
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		first = strtol(line + 6, &end, 10);
		for (p = end; *p == ' ' || *p == '\t'; p++)
			;
		*nested = *p >= '0' && *p <= '9';
	}
	fclose(f);
	return first > 0 ? first : (long)getpid();
}

long
hs_server_pid(const struct tc_call *call)
{
	pid_t ppid = getppid();

	/* In a PID namespace of our own the server is outside it and
	 * getppid() says 0: the test tells us its pid instead. */
	if (ppid > 0)
		return (long)ppid;
	return (long)tc_arg_int(call, "pid", 0);
}

const char *
hs_root_path(const struct tc_call *call, size_t i)
{
	return i < call->policy->nroots ? call->policy->roots[i].path : NULL;
}

int
hs_root_fd(const struct tc_call *call, size_t i)
{
	return i < call->policy->nroots ? call->policy->roots[i].fd : -1;
}
