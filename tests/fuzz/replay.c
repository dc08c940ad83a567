/*
 * replay.c: a main() for a fuzz harness built without libFuzzer, so that
 * `make test` needs no clang:
 *
 *	replay-NAME DIR|FILE...
 *
 * runs every file given, and every file in each directory given (in name
 * order), through LLVMFuzzerTestOneInput(), each in a child process of its
 * own so that one crash or failed oracle fails one test, and prints TAP:
 * one test per input.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static int ntests, nfailed;

/* Reads all of |path| into a new buffer; returns it, or NULL. */
static uint8_t *
slurp(const char *path, size_t *len)
{
	uint8_t *buf = NULL, *grown;
	size_t cap = 0, n = 0;
	ssize_t r;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			if ((grown = realloc(buf, cap)) == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = grown;
		}
		if ((r = (ssize_t)fread(buf + n, 1, cap - n, f)) <= 0)
			break;
		n += (size_t)r;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Runs one input in a child and reports it as one test. */
static void
replay(const char *path)
{
	uint8_t *data;
	size_t len = 0;
	pid_t pid;
	int status;

	ntests++;
	fflush(stdout);
	if ((pid = fork()) < 0) {
		printf("not ok %d - %s: fork: %s\n", ntests, path,
		    strerror(errno));
		nfailed++;
		return;
	}
	if (pid == 0) {
		if ((data = slurp(path, &len)) == NULL) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			_exit(3);
		}
		LLVMFuzzerTestOneInput(data, len);
		free(data);
		fflush(NULL);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		continue;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok %d - %s\n", ntests, path);
		return;
	}
	nfailed++;
	if (WIFSIGNALED(status))
		printf("not ok %d - %s: killed by signal %d\n", ntests, path,
		    WTERMSIG(status));
	else
		printf("not ok %d - %s: exit status %d\n", ntests, path,
		    WEXITSTATUS(status));
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays the regular files of |dir| in name order. */
static int
replay_dir(const char *dir)
{
	struct dirent *de;
	char **names = NULL, **grown, path[4096];
	size_t n = 0, cap = 0, i;
	struct stat sb;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((grown = realloc(names, cap * sizeof(*names))) ==
			    NULL)
				abort();
			names = grown;
		}
		if ((names[n++] = strdup(de->d_name)) == NULL)
			abort();
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
			replay(path);
		free(names[i]);
	}
	free(names);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct stat sb;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
		return 2;
	}
	/* Once, in the parent: the children share what it sets up. */
	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb) != 0) {
			printf("not ok %d - %s: %s\n", ++ntests, argv[i],
			    strerror(errno));
			nfailed++;
		} else if (S_ISDIR(sb.st_mode)) {
			if (replay_dir(argv[i]) != 0) {
				printf("not ok %d - %s: %s\n", ++ntests,
				    argv[i], strerror(errno));
				nfailed++;
			}
		} else
			replay(argv[i]);
	}
	if (ntests == 0)
		printf("1..0 # SKIP no inputs\n");
	else
		printf("1..%d\n", ntests);
	return nfailed > 0;
}
