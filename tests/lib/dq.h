/*
 * dq.h: JSON written in C strings with ' for ", so that test cases read as
 * JSON does: dq("{'a':1}") returns {"a":1} in one of a few rotating
 * buffers (so several can be used in one call).
 */
#ifndef TC_TEST_DQ_H
#define TC_TEST_DQ_H

#include <stddef.h>

static __attribute__((unused)) const char *
dq(const char *s)
{
	static char bufs[4][1024];
	static int next;
	char *b = bufs[next++ % 4];
	size_t i;

	for (i = 0; s[i] != '\0' && i < sizeof(bufs[0]) - 1; i++)
		b[i] = s[i] == '\'' ? '"' : s[i];
	b[i] = '\0';
	return b;
}

#endif /* TC_TEST_DQ_H */
