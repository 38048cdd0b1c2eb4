// SPDX-License-Identifier: GPL-2.0
/*
 * The host's speed during a repetition: rt-app's loops per microsecond
 * on a CPU (host_gauge.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/compare.h"
#include "host_gauge.h"

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

const struct metric_def host_metric_defs[] = {
	{ .name = "host.loops_per_us", .unit = "loops/us", .source = SRC_HOST,
	  .extract = gauge_value,
	  .help = "rt-app's loops per us its threads were on a CPU: the host's speed during the run" },
};

const size_t host_metric_count = ARRAY_SIZE(host_metric_defs);

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
	return metric_set_add_entity(set, SRC_HOST, &g, "run", "run", -1);
}

int host_gauge_slower(const struct sample_set *base,
		      const struct sample_set *cur, char *buf, size_t len)
{
	static const struct compare_rule faster = { .better = 1,
						    .rel = HOST_GAUGE_REL };
	const struct metric_samples *bs = sample_set_find(base, HOST_GAUGE_KEY);
	const struct metric_samples *cs = sample_set_find(cur, HOST_GAUGE_KEY);
	double bv[SAMPLES_MAX_REPS], cv[SAMPLES_MAX_REPS];
	size_t nb, nc;
	struct change ch;

	buf[0] = '\0';
	nb = bs ? samples_measured(bs, bv) : 0;
	nc = cs ? samples_measured(cs, cv) : 0;
	if (!nb || !nc)
		return 0;
	compare_samples(bv, nb, cv, nc, &faster, &ch);
	if (ch.kind != CHANGE_REGRESSION)
		return 0;
	snprintf(buf, len,
		 "host.loops_per_us %.3g, %+.0f%% against the baseline's %.3g (p=%.3g)",
		 ch.b_median, 100 * ch.ratio, ch.a_median, ch.p);
	return 1;
}
