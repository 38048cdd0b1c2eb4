// SPDX-License-Identifier: GPL-2.0
/*
 * The metric registry, and metrics.json read back by name.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "machine/canary.h"
#include "machine/host_gauge.h"
#include "judge/metric_registry.h"
#include "lib/json_util.h"
#include "lib/util.h"
#include "rtapp/rtapp_metrics.h"
#include "trace/trace.h"

static const struct metric_table *const metric_tables[] = {
	&rtapp_metric_table,
	&trace_metric_table,
	&canary_metric_table,
	&host_metric_table,
};

void metric_for_each(void (*fn)(const struct metric_def *def, void *arg),
		     void *arg)
{
	size_t t, i;

	for (t = 0; t < ARRAY_SIZE(metric_tables); t++)
		for (i = 0; i < metric_tables[t]->ndefs; i++)
			fn(&metric_tables[t]->defs[i], arg);
}

const struct metric_def *metric_find(const char *name)
{
	size_t t, i;

	for (t = 0; t < ARRAY_SIZE(metric_tables); t++)
		for (i = 0; i < metric_tables[t]->ndefs; i++)
			if (!strcmp(metric_tables[t]->defs[i].name, name))
				return &metric_tables[t]->defs[i];
	return NULL;
}

int metric_set_from_json(struct metric_set *set, struct json_object *o,
			 const char *file, struct sw_err *err)
{
	if (!json_object_is_type(o, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: not an object of metric sources", file);
	json_object_object_foreach(o, sname, entities) {
		enum metric_source src;

		if (metric_source_parse(sname, strlen(sname), &src) ||
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
