// SPDX-License-Identifier: GPL-2.0
/*
 * The results of a workload's checks: naming them, keeping them, and
 * what they add up to.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/verdict_result.h"

/* Two checks of one metric on one entity get .2, .3... to stay unique. */
static void make_unique(const struct verdict_results *res, char *name,
			size_t len)
{
	size_t base = strlen(name), i;
	int k = 1, clash;

	do {
		clash = 0;
		for (i = 0; i < res->n; i++)
			if (!strcmp(res->r[i].name, name))
				clash = 1;
		if (clash)
			snprintf(name + base, len - base, ".%d", ++k);
	} while (clash);
}

void verdict_result_init(struct verdict_result *r,
			 const struct verdict_results *res,
			 enum check_kind kind, const struct metric_def *def,
			 const char *prefix, const char *entity)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->def = def;
	r->value = r->limit = r->room = NAN;
	snprintf(r->entity, sizeof(r->entity), "%s", entity);
	snprintf(r->name, sizeof(r->name), "%s.%s.%s%s", prefix, entity,
		 def->name, kind == CHECK_BASELINE ? ".vs-baseline" : "");
	make_unique(res, r->name, sizeof(r->name));
}

int verdict_results_push(struct verdict_results *res,
			 const struct verdict_result *r)
{
	struct verdict_result *nr = realloc(res->r, (res->n + 1) * sizeof(*nr));

	if (!nr)
		return -1;
	res->r = nr;
	res->r[res->n++] = *r;
	return 0;
}

void verdict_results_free(struct verdict_results *res)
{
	free(res->r);
	memset(res, 0, sizeof(*res));
}

const char *verdict_status_name(enum verdict_status st)
{
	static const char *const names[] = { "pass", "fail", "skip", "error" };

	return names[st];
}

enum verdict_status verdict_overall(const struct verdict_results *res)
{
	enum verdict_status st = V_SKIP;
	size_t i;

	for (i = 0; i < res->n; i++) {
		if (res->r[i].status == V_FAIL || res->r[i].status == V_ERROR)
			return V_FAIL;
		if (res->r[i].status == V_PASS)
			st = V_PASS;
	}
	return st;
}

size_t verdict_regressions(const struct verdict_results *res)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += res->r[i].change == CHANGE_REGRESSION;
	return n;
}

size_t verdict_pending(const struct verdict_results *res)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += res->r[i].pending;
	return n;
}

size_t verdict_undecided(const struct verdict_results *res)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += res->r[i].undecided;
	return n;
}
