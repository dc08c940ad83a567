/*
 * call.c: a struct call's memory, which every part of serve/ that holds a
 * call (admission, calls, consent, jobs) gives back the same way.
 */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "policy/subject.h"
#include "serve/server-int.h"

void
tc_srv_free_call(struct call *c)
{
	size_t i;

	for (i = 0; i < c->npaths; i++) {
		free(c->abs[i]);
		free(c->rel[i]);
	}
	free(c->abs);
	free(c->rel);
	free(c->consent_hit);
	tc_subjects_release(&c->subjects);
	for (i = 0; i < c->npins; i++)
		free(c->pins[i].rel);
	free(c->pins);
	free(c->unconsented);
	free(c->consent);
	free(c->resource_uri);
	cJSON_Delete(c->own_args);
	free(c);
}
