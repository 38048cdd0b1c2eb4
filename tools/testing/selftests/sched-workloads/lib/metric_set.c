// SPDX-License-Identifier: GPL-2.0
/*
 * The values of one repetition (lib/metric_set.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/event_hist.h"
#include "lib/json_util.h"
#include "lib/metric_set.h"
#include "lib/stats.h"
#include "lib/util.h"

static int hist_add_n(double v, uint64_t count, void *h)
{
	return event_hist_add_n(h, v, count);
}

/* Every series of @entity into its histograms of the repetition. */
static int add_series(struct event_rep *r, const struct metric_table *table,
		      enum metric_source src, const void *entity,
		      const char *name)
{
	size_t i;

	for (i = 0; i < table->nseries; i++) {
		const struct series_def *sd = &table->series[i];
		const struct series *s;
		struct event_hist *h;

		if (sd->source != src)
			continue;
		s = sd->get(entity, sd->arg);
		h = event_rep_hist(r, src, name, sd->name);
		if (!h)
			return -1;
		if (s && series_each(s, hist_add_n, h))
			return -1;
	}
	return 0;
}

int metric_set_push(struct metric_set *set, const struct metric_value *mv)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 128;
		struct metric_value *nv = realloc(set->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		set->v = nv;
		set->cap = cap;
	}
	set->v[set->n++] = *mv;
	return 0;
}

int metric_set_add_entity(struct metric_set *set,
			  const struct metric_table *table,
			  enum metric_source src, const void *entity,
			  const char *name, const char *group, int id)
{
	size_t i;

	for (i = 0; i < table->ndefs; i++) {
		const struct metric_def *def = &table->defs[i];
		struct metric_value mv = { .def = def, .id = id };

		if (def->source != src)
			continue;
		snprintf(mv.entity, sizeof(mv.entity), "%s", name);
		snprintf(mv.group, sizeof(mv.group), "%s", group);
		mv.value = def->extract(entity, def);
		if (metric_set_push(set, &mv))
			return -1;
	}
	return set->events ? add_series(set->events, table, src, entity, name) :
	       0;
}

double metric_set_value(const struct metric_set *set, enum metric_source src,
			int id, const char *name)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->v[i].def->source == src && set->v[i].id == id &&
		    !strcmp(set->v[i].def->name, name))
			return set->v[i].value;
	return NAN;
}

double metric_set_first(const struct metric_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].def->name, name))
			return set->v[i].value;
	return NAN;
}

void metric_set_free(struct metric_set *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

int metric_set_write_json(const struct metric_set *set, FILE *f)
{
	struct json_object *root = json_object_new_object();
	size_t i;
	int ret = 0;

	if (!root)
		return -1;
	for (i = 0; i < set->n; i++) {
		const struct metric_value *mv = &set->v[i];
		const char *src = metric_source_name(mv->def->source);
		struct json_object *bysrc, *ent;

		if (!json_object_object_get_ex(root, src, &bysrc)) {
			bysrc = json_object_new_object();
			json_object_object_add(root, src, bysrc);
		}
		if (!json_object_object_get_ex(bysrc, mv->entity, &ent)) {
			ent = json_object_new_object();
			json_object_object_add(bysrc, mv->entity, ent);
			json_object_object_add(ent, "group",
					       json_object_new_string(mv->group));
			if (mv->id >= 0)
				json_object_object_add(ent, "id",
						       json_object_new_int(mv->id));
			if (mv->pooled)
				json_object_object_add(ent, "pooled",
						       json_object_new_boolean(1));
		}
		json_object_object_add(ent, mv->def->name, json_new_number(mv->value));
	}
	if (fprintf(f, "%s\n", json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -1;
	json_object_put(root);
	return ret;
}
