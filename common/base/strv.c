/* strv.c: NULL-terminated arrays of owned strings. */
#include <stdlib.h>

#include "base/strv.h"

void
tc_strv_free(char **v)
{
	char **s;

	for (s = v; s != NULL && *s != NULL; s++)
		free(*s);
	free(v);
}
