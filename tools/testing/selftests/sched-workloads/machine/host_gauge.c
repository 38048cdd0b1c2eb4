// SPDX-License-Identifier: GPL-2.0
/*
 * The host's speed during a repetition: rt-app's loops per microsecond
 * on a CPU (machine/host_gauge.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "machine/host_gauge.h"

struct host_gauge {
	double loops;	/* perf, every pass of every thread */
	double cpu_us;	/* the trace's cpu_time of the same threads */
};

static double gauge_value(const void *entity, const struct metric_def *def)
{
	const struct host_gauge *g = entity;

	(void)def;
	return g->loops > 0 && g->cpu_us > 0 ? g->loops / g->cpu_us : NAN;
}

static const struct metric_def host_metric_defs[] = {
	{ .name = "host.loops_per_us", .unit = "loops/us", .source = SRC_HOST,
	  .extract = gauge_value,
	  .help = "rt-app's loops per us its threads were on a CPU: the host's speed during the run" },
};

const struct metric_table host_metric_table = {
	.defs = host_metric_defs,
	.ndefs = ARRAY_SIZE(host_metric_defs),
};

int host_gauge_add(const struct rtapp_logs *logs, struct metric_set *set)
{
	struct host_gauge g = { 0 };
	size_t i;

	for (i = 0; i < logs->n; i++)
		g.loops += logs->t[i].perf_total;
	/* A task's pooled entity counts its threads a second time. */
	for (i = 0; i < set->n; i++)
		if (set->v[i].def->source == SRC_TRACE_TASK && !set->v[i].pooled &&
		    !strcmp(set->v[i].def->name, "cpu_time") &&
		    !isnan(set->v[i].value))
			g.cpu_us += set->v[i].value;
	if (!(g.cpu_us > 0))
		return 0;
	return metric_set_add_entity(set, &host_metric_table, SRC_HOST, &g,
				     "run", "run", -1);
}
