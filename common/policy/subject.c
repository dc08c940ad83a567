/*
 * subject.c: a call's typed subjects, their names, their patterns and
 * their JSON form.
 */
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "policy/glob.h"
#include "policy/policy.h"
#include "policy/subject.h"

/* Indexed by enum tc_subject_kind. */
static const char *const kind_names[TC_SUBJECT_NKINDS] = {
	"path", "cwd", "program", "arg", "env", "database", "statement",
};

/* Indexed by TC_SUBJECT_READ | TC_SUBJECT_WRITE | TC_SUBJECT_EXEC. */
static const char *const access_names[8] = {
	NULL, "read", "write", "read-write", "execute", "read-execute",
	"write-execute", "read-write-execute",
};

static const char *const statements[] = { "read", "write", "schema" };

void
tc_subjects_init(struct tc_subjects *s)
{
	s->v = NULL;
	s->n = s->cap = 0;
}

void
tc_subjects_release(struct tc_subjects *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].value);
	free(s->v);
	tc_subjects_init(s);
}

/* Returns 1 if |v| is a statement kind. */
static int
statement_kind(const char *v)
{
	size_t i;

	for (i = 0; i < TC_NITEMS(statements); i++)
		if (strcmp(v, statements[i]) == 0)
			return 1;
	return 0;
}

int
tc_subjects_add(struct tc_subjects *s, enum tc_subject_kind kind,
    const char *value, unsigned access)
{
	struct tc_subject *nv;
	size_t cap;

	if ((unsigned)kind >= TC_SUBJECT_NKINDS || value == NULL ||
	    access >= TC_NITEMS(access_names) ||
	    (kind == TC_SUBJECT_STATEMENT && !statement_kind(value)))
		return TC_EINVAL;
	if (s->n == s->cap) {
		cap = s->cap ? 2 * s->cap : 8;
		if ((nv = reallocarray(s->v, cap, sizeof(*nv))) == NULL)
			return TC_ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	if ((s->v[s->n].value = strdup(value)) == NULL)
		return TC_ENOMEM;
	s->v[s->n].kind = kind;
	s->v[s->n].access = access;
	s->n++;
	return 0;
}

int
tc_subjects_put(struct tc_subjects *s, enum tc_subject_kind kind,
    const char *value, unsigned access, struct tc_diag *d)
{
	int rc;

	if ((rc = tc_subjects_add(s, kind, value, access)) != 0)
		return tc_diag(d, rc, "cannot add the %s subject",
		    tc_subject_kind_name(kind));
	return 0;
}

size_t
tc_subjects_count(const struct tc_subjects *s, enum tc_subject_kind kind)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->v[i].kind == kind;
	return n;
}

const char *
tc_subject_kind_name(enum tc_subject_kind kind)
{
	return (unsigned)kind < TC_SUBJECT_NKINDS ? kind_names[kind] : NULL;
}

int
tc_subject_kind_parse(const char *name)
{
	size_t i;

	for (i = 0; i < TC_SUBJECT_NKINDS; i++)
		if (strcmp(name, kind_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *
tc_subject_access_name(unsigned access)
{
	return access < TC_NITEMS(access_names) ? access_names[access] : NULL;
}

/* Formats the reason into |why| and returns 0. */
static int
invalid(char *why, size_t n, const char *msg)
{
	if (why != NULL && n > 0)
		tc_text_fmt(why, n, "%s", msg);
	return 0;
}

int
tc_subject_pattern_valid(enum tc_subject_kind kind, const char *pattern,
    char *why, size_t n)
{
	if (why != NULL && n > 0)
		why[0] = '\0';
	switch (kind) {
	case TC_SUBJECT_PROGRAM:
		if (strchr(pattern, '/') == NULL)
			return tc_glob_valid_string(pattern, why, n);
		if (pattern[0] != '/')
			return invalid(why, n, "a program is matched by its "
			    "absolute path, or by its file name alone: write "
			    "'/usr/bin/git' or 'git'");
		return tc_glob_valid(pattern, why, n);
	case TC_SUBJECT_ARG:
	case TC_SUBJECT_ENV:
	case TC_SUBJECT_DATABASE:
		return tc_glob_valid_string(pattern, why, n);
	case TC_SUBJECT_STATEMENT:
		if (statement_kind(pattern))
			return 1;
		return invalid(why, n, "a statement is 'read', 'write' or "
		    "'schema'");
	case TC_SUBJECT_PATH:
	case TC_SUBJECT_CWD:
		return tc_glob_valid(pattern, why, n);
	case TC_SUBJECT_NKINDS:
		break;
	}
	return invalid(why, n, "no such kind");
}

int
tc_subject_match(enum tc_subject_kind kind, const char *pattern,
    const char *value)
{
	const char *base;

	switch (kind) {
	case TC_SUBJECT_PROGRAM:
		if (strchr(pattern, '/') != NULL)
			return tc_glob_match(pattern, value);
		base = strrchr(value, '/');
		return tc_glob_match_string(pattern, base != NULL ? base + 1 :
		    value);
	case TC_SUBJECT_ARG:
	case TC_SUBJECT_ENV:
	case TC_SUBJECT_DATABASE:
		return tc_glob_match_string(pattern, value);
	case TC_SUBJECT_STATEMENT:
		return strcmp(pattern, value) == 0;
	case TC_SUBJECT_PATH:
	case TC_SUBJECT_CWD:
	case TC_SUBJECT_NKINDS:
		break;
	}
	return 0;
}

cJSON *
tc_subjects_json(const struct tc_subjects *s)
{
	const char *access;
	cJSON *a, *o = NULL;
	size_t i;

	if ((a = cJSON_CreateArray()) == NULL)
		return NULL;
	for (i = 0; i < s->n; i++) {
		if ((o = cJSON_CreateObject()) == NULL)
			goto nomem;
		access = tc_subject_access_name(s->v[i].access);
		if (cJSON_AddStringToObject(o, "kind",
		    kind_names[s->v[i].kind]) == NULL ||
		    cJSON_AddStringToObject(o, "value", s->v[i].value) ==
		    NULL || (access != NULL &&
		    cJSON_AddStringToObject(o, "access", access) == NULL) ||
		    !cJSON_AddItemToArray(a, o))
			goto nomem;
	}
	return a;
nomem:
	cJSON_Delete(o);
	cJSON_Delete(a);
	return NULL;
}

char *const *
tc_consent_rule_values(const struct tc_consent_rule *r,
    enum tc_subject_kind kind, size_t *n)
{
	size_t off = 0;
	int k;

	*n = 0;
	if (kind == TC_SUBJECT_PATH) {
		*n = r->npatterns;
		return r->patterns;
	}
	if ((unsigned)kind >= TC_SUBJECT_NKINDS || r->values == NULL)
		return NULL;
	for (k = TC_SUBJECT_PATH + 1; k < (int)kind; k++)
		off += r->nvalues[k];
	*n = r->nvalues[kind];
	return r->values + off;
}

int
tc_consent_rule_match(const struct tc_policy *p,
    const struct tc_consent_rule *r, enum tc_subject_kind kind,
    const char *value, const char *rel)
{
	char *const *v;
	size_t i, n;

	v = tc_consent_rule_values(r, kind, &n);
	for (i = 0; i < n; i++) {
		if (kind == TC_SUBJECT_PATH || kind == TC_SUBJECT_CWD) {
			if (tc_glob_match_path(p, v[i], value, rel))
				return 1;
		} else if (tc_subject_match(kind, v[i], value))
			return 1;
	}
	return 0;
}

int
tc_consent_rule_applies(const struct tc_consent_rule *r, unsigned hits)
{
	return (r->kinds & ~hits) == 0;
}
