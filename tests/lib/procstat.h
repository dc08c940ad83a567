/*
 * procstat.h: field N (1-based) of /proc/PID/stat, split on blanks after
 * the name's last ')', for the tests of code that reads it (base/proc.h):
 * read here apart from that code, so that a test names a process by its
 * start time (stat_field(pid, 22)) the way the kernel gives it; and the
 * caller's PID namespace (pid_ns()), the first part of such a name.
 */
#ifndef TC_TEST_PROCSTAT_H
#define TC_TEST_PROCSTAT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Field |n| of /proc/|pid|/stat (n >= 3), or 0 if it cannot be read. */
static __attribute__((unused)) unsigned long long
stat_field(pid_t pid, int n)
{
	char path[64], buf[1024], *p, *tok, *save = NULL;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return 0;
	for (i = 3, tok = strtok_r(p + 1, " ", &save); tok != NULL;
	    i++, tok = strtok_r(NULL, " ", &save))
		if (i == n)
			return strtoull(tok, NULL, 10);
	return 0;
}

/* The inode of the caller's PID namespace, or 0. */
static __attribute__((unused)) unsigned long long
pid_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ?
	    (unsigned long long)st.st_ino : 0;
}

#endif /* TC_TEST_PROCSTAT_H */
