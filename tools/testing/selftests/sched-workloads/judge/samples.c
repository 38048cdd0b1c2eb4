// SPDX-License-Identifier: GPL-2.0
/*
 * Metric samples over repetitions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/entity_name.h"
#include "lib/json_util.h"
#include "judge/samples.h"
#include "lib/stats.h"

static struct metric_samples *find_or_add(struct sample_set *ss,
					  const struct metric_def *def,
					  const char *entity)
{
	struct metric_samples *ms;
	size_t i;

	for (i = 0; i < ss->n; i++)
		if (ss->s[i].def == def && !strcmp(ss->s[i].entity, entity))
			return &ss->s[i];
	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? ss->cap * 2 : 128;
		struct metric_samples *ns = realloc(ss->s, cap * sizeof(*ns));

		if (!ns)
			return NULL;
		ss->s = ns;
		ss->cap = cap;
	}
	ms = &ss->s[ss->n++];
	memset(ms, 0, sizeof(*ms));
	ms->def = def;
	ms->id = -1;
	snprintf(ms->entity, sizeof(ms->entity), "%s", entity);
	/* Missing from the repetitions before this one. */
	for (ms->n = 0; ms->n < ss->reps; ms->n++)
		ms->v[ms->n] = NAN;
	return ms;
}

int sample_set_add_rep(struct sample_set *ss, const struct metric_set *set)
{
	size_t i;

	if (ss->reps == METRIC_MAX_REPS)
		return -1;
	for (i = 0; i < set->n; i++) {
		const struct metric_value *mv = &set->v[i];
		struct metric_samples *ms = find_or_add(ss, mv->def, mv->entity);

		if (!ms)
			return -1;
		snprintf(ms->group, sizeof(ms->group), "%s", mv->group);
		ms->id = mv->id;
		ms->pooled = mv->pooled;
		if (ms->n == ss->reps)
			ms->v[ms->n++] = mv->value;
	}
	ss->reps++;
	/* Entities this repetition did not have. */
	for (i = 0; i < ss->n; i++)
		while (ss->s[i].n < ss->reps)
			ss->s[i].v[ss->s[i].n++] = NAN;
	return 0;
}

int sample_set_append(struct sample_set *to, const struct sample_set *from)
{
	size_t r, i;

	if (to->reps + from->reps > METRIC_MAX_REPS)
		return -1;
	for (r = 0; r < from->reps; r++) {
		for (i = 0; i < from->n; i++) {
			const struct metric_samples *fs = &from->s[i];
			struct metric_samples *ms = find_or_add(to, fs->def,
								fs->entity);

			if (!ms)
				return -1;
			snprintf(ms->group, sizeof(ms->group), "%s", fs->group);
			ms->id = fs->id;
			ms->pooled = fs->pooled;
			ms->v[ms->n++] = r < fs->n ? fs->v[r] : NAN;
		}
		to->reps++;
		for (i = 0; i < to->n; i++)
			while (to->s[i].n < to->reps)
				to->s[i].v[to->s[i].n++] = NAN;
	}
	return 0;
}

int sample_set_rep_values(const struct sample_set *ss, size_t rep,
			  struct metric_set *out)
{
	size_t i;

	for (i = 0; i < ss->n; i++) {
		const struct metric_samples *ms = &ss->s[i];
		struct metric_value mv = {
			.def = ms->def, .id = ms->id, .pooled = ms->pooled,
			.value = rep < ms->n ? ms->v[rep] : NAN,
		};

		snprintf(mv.entity, sizeof(mv.entity), "%s", ms->entity);
		snprintf(mv.group, sizeof(mv.group), "%s", ms->group);
		if (metric_set_push(out, &mv))
			return -1;
	}
	return 0;
}

void sample_set_free(struct sample_set *ss)
{
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}

size_t samples_measured(const struct metric_samples *ms, double *out)
{
	size_t i, n = 0;

	for (i = 0; i < ms->n; i++)
		if (!isnan(ms->v[i]))
			out[n++] = ms->v[i];
	return n;
}

double samples_median(const struct metric_samples *ms)
{
	double v[METRIC_MAX_REPS];
	size_t n = samples_measured(ms, v);

	return n ? stats_median(v, n) : NAN;
}

void samples_key(const struct metric_samples *ms, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s", metric_source_name(ms->def->source),
		 ms->entity, ms->def->name);
}

const struct metric_samples *sample_set_find(const struct sample_set *ss,
					     const char *key)
{
	char k[256];
	size_t i;

	for (i = 0; i < ss->n; i++) {
		samples_key(&ss->s[i], k, sizeof(k));
		if (!strcmp(k, key))
			return &ss->s[i];
	}
	return NULL;
}

struct json_object *sample_set_to_json(const struct sample_set *ss)
{
	struct json_object *o = json_object_new_object();
	size_t i, r;

	for (i = 0; o && i < ss->n; i++) {
		struct json_object *arr = json_object_new_array();
		char key[256];

		for (r = 0; r < ss->s[i].n; r++)
			json_object_array_add(arr,
					      json_new_number(ss->s[i].v[r]));
		samples_key(&ss->s[i], key, sizeof(key));
		json_object_object_add(o, key, arr);
	}
	return o;
}

/* "source/entity/metric" back into its parts. */
static int parse_key(const char *key, const struct metric_def **def,
		     char *entity, size_t len)
{
	const char *a = strchr(key, '/'), *b = strrchr(key, '/');

	if (!a || a == b || (size_t)(b - a - 1) >= len)
		return -1;
	*def = metric_find(b + 1);
	if (!*def || strncmp(key, metric_source_name((*def)->source), a - key))
		return -1;
	memcpy(entity, a + 1, b - a - 1);
	entity[b - a - 1] = '\0';
	return 0;
}

/*
 * The selector name of an entity read back from a file: threads "hog-1"
 * and "hog" were task (or comm) "hog" (lib/entity_name.h); others are their own.
 */
static void group_of(const struct metric_def *def, const char *entity,
		     char *group, size_t len)
{
	if (def->source == SRC_RTAPP_TASK || def->source == SRC_TRACE_TASK)
		entity_task_of(entity, group, len);
	else	/* cut to the group's size */
		snprintf(group, len, "%.*s", (int)strnlen(entity, len - 1),
			 entity);
}

/*
 * A key names no more than "source/entity/metric": a task's entity is
 * its threads pooled when threads "<task>-<k>" of the same metric are
 * there too (a task of one thread has no other name).
 */
static void mark_pooled(struct sample_set *ss)
{
	size_t i, j;

	for (i = 0; i < ss->n; i++) {
		struct metric_samples *ms = &ss->s[i];

		if (ms->def->source != SRC_RTAPP_TASK ||
		    strcmp(ms->entity, ms->group))
			continue;
		for (j = 0; j < ss->n && !ms->pooled; j++)
			ms->pooled = j != i && ss->s[j].def == ms->def &&
				     !strcmp(ss->s[j].group, ms->entity);
	}
}

int sample_set_from_json(struct sample_set *ss, struct json_object *o,
			 const char *file, struct sw_err *err)
{
	memset(ss, 0, sizeof(*ss));
	if (!json_object_is_type(o, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: metrics: not an object", file);
	json_object_object_foreach(o, key, arr) {
		const struct metric_def *def;
		struct metric_samples *ms;
		char entity[64];
		size_t r, n;

		if (parse_key(key, &def, entity, sizeof(entity)))
			/* A metric this version no longer has: ignore it. */
			continue;
		n = json_object_is_type(arr, json_type_array) ?
		    json_object_array_length(arr) : METRIC_MAX_REPS + 1;
		if (n > METRIC_MAX_REPS) {
			sample_set_free(ss);
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: metrics.%s: not an array of at most %d values",
					  file, key, METRIC_MAX_REPS);
		}
		ms = find_or_add(ss, def, entity);
		if (!ms) {
			sample_set_free(ss);
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		}
		group_of(def, entity, ms->group, sizeof(ms->group));
		for (r = 0; r < n; r++) {
			struct json_object *v = json_object_array_get_idx(arr, r);

			if (json_read_number(v, &ms->v[r])) {
				sample_set_free(ss);
				return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
						  "%s: metrics.%s[%zu]: not a finite number or null",
						  file, key, r);
			}
		}
		ms->n = n;
		if (n > ss->reps)
			ss->reps = n;
	}
	mark_pooled(ss);
	return 0;
}
