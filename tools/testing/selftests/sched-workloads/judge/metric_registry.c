// SPDX-License-Identifier: GPL-2.0
/*
 * The metric registry and the values of one run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/event_hist.h"
#include "lib/json_util.h"
#include "judge/metric_registry.h"
#include "lib/util.h"

static const struct {
	const struct metric_def *defs;
	const size_t *count;
} metric_tables[] = {
	{ rtapp_metric_defs, &rtapp_metric_count },
	{ trace_metric_defs, &trace_metric_count },
	{ canary_metric_defs, &canary_metric_count },
	{ host_metric_defs, &host_metric_count },
};

#define N_TABLES ARRAY_SIZE(metric_tables)

void metric_for_each(void (*fn)(const struct metric_def *def, void *arg),
		     void *arg)
{
	size_t t, i;

	for (t = 0; t < N_TABLES; t++)
		for (i = 0; i < *metric_tables[t].count; i++)
			fn(&metric_tables[t].defs[i], arg);
}

const struct metric_def *metric_find(const char *name)
{
	size_t t, i;

	for (t = 0; t < N_TABLES; t++)
		for (i = 0; i < *metric_tables[t].count; i++)
			if (!strcmp(metric_tables[t].defs[i].name, name))
				return &metric_tables[t].defs[i];
	return NULL;
}

const char *metric_source_name(enum metric_source src)
{
	switch (src) {
	case SRC_RTAPP_TASK:
		return "rtapp_tasks";
	case SRC_TRACE_TASK:
		return "trace_tasks";
	case SRC_TRACE_CPU:
		return "cpus";
	case SRC_TRACE_SYSTEM:
		return "system";
	case SRC_CANARY:
		return "canary";
	case SRC_HOST:
		return "host";
	}
	return "unknown";
}

static const struct {
	const struct series_def *defs;
	const size_t *count;
} series_tables[] = {
	{ rtapp_series_defs, &rtapp_series_count },
	{ trace_series_defs, &trace_series_count },
};

static int hist_add_n(double v, uint64_t count, void *h)
{
	return event_hist_add_n(h, v, count);
}

/* Every series of @entity into its histograms of the repetition. */
static int add_series(struct event_rep *r, enum metric_source src,
		      const void *entity, const char *name)
{
	size_t t, i;

	for (t = 0; t < ARRAY_SIZE(series_tables); t++) {
		for (i = 0; i < *series_tables[t].count; i++) {
			const struct series_def *sd = &series_tables[t].defs[i];
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

int metric_set_add_entity(struct metric_set *set, enum metric_source src,
			  const void *entity, const char *name,
			  const char *group, int id)
{
	size_t t, i;

	for (t = 0; t < N_TABLES; t++) {
		for (i = 0; i < *metric_tables[t].count; i++) {
			const struct metric_def *def = &metric_tables[t].defs[i];
			struct metric_value mv = { .def = def, .id = id };

			if (def->source != src)
				continue;
			snprintf(mv.entity, sizeof(mv.entity), "%s", name);
			snprintf(mv.group, sizeof(mv.group), "%s", group);
			mv.value = def->extract(entity, def);
			if (metric_set_push(set, &mv))
				return -1;
		}
	}
	return set->events ? add_series(set->events, src, entity, name) : 0;
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

void metric_set_free(struct metric_set *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/*
 * {"rtapp_tasks": {"audio": {"slack.p50": 812, ...}}, "trace_tasks":
 *  {...}, "cpus": {...}, "system": {"system": {...}}}
 */
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

/* The source a metrics.json section names. */
static int source_of(const char *name, enum metric_source *src)
{
	int s;

	for (s = SRC_RTAPP_TASK; s <= SRC_HOST; s++) {
		if (!strcmp(name, metric_source_name(s))) {
			*src = s;
			return 0;
		}
	}
	return -1;
}

int metric_set_from_json(struct metric_set *set, struct json_object *o,
			 const char *file, struct sw_err *err)
{
	if (!json_object_is_type(o, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: not an object of metric sources", file);
	json_object_object_foreach(o, sname, entities) {
		enum metric_source src;

		if (source_of(sname, &src) ||
		    !json_object_is_type(entities, json_type_object))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: %s: not a metric source", file,
					  sname);
		json_object_object_foreach(entities, ename, values) {
			struct metric_value mv = { .id = -1 };
			struct json_object *g;

			if (!json_object_is_type(values, json_type_object))
				return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
						  "%s: %s.%s: not an object",
						  file, sname, ename);
			snprintf(mv.entity, sizeof(mv.entity), "%s", ename);
			snprintf(mv.group, sizeof(mv.group), "%s", ename);
			if (json_object_object_get_ex(values, "group", &g))
				snprintf(mv.group, sizeof(mv.group), "%s",
					 json_object_get_string(g));
			if (json_object_object_get_ex(values, "id", &g))
				mv.id = json_object_get_int(g);
			if (json_object_object_get_ex(values, "pooled", &g))
				mv.pooled = json_object_get_boolean(g);
			json_object_object_foreach(values, mname, v) {
				if (!strcmp(mname, "group") || !strcmp(mname, "id") ||
				    !strcmp(mname, "pooled"))
					continue;
				mv.def = metric_find(mname);
				/* A metric this version no longer has. */
				if (!mv.def || mv.def->source != src)
					continue;
				if (json_read_number(v, &mv.value))
					return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
							  "%s: %s.%s.%s: not a finite number or null",
							  file, sname, ename, mname);
				if (metric_set_push(set, &mv))
					return sw_err_set(err, SW_EXIT_RUN_ERROR,
							  "out of memory");
			}
		}
	}
	return 0;
}
