/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metric registry and the set of values one run produced.
 *
 * Every metric a verdict block may name is one row of one table
 * (metric_table[] in metrics.c): its name, unit, what it is measured on,
 * and the extractor that computes it from that source's data. The verdict
 * parser, the metrics.json writer and the documentation test all read the
 * same table.
 */
#ifndef SW_METRICS_H
#define SW_METRICS_H

#include <stdio.h>
#include <json-c/json.h>
#include "lib/stats.h"
#include "lib/util.h"

/*
 * The rt-app events a task needs for a metric of it to have a value: a
 * check naming it for a task without them could never be judged.
 */
enum metric_needs {
	NEEDS_TIMER = 1,	/* a "timer": slack, wu_lat, missed periods */
	NEEDS_RUN = 2,		/* "run" or "runtime": run inflation, rate */
	NEEDS_LOCK = 4,		/* "lock": priority inheritance */
};

/* What a metric is measured on; this also fixes what a selector names. */
enum metric_source {
	SRC_RTAPP_TASK,		/* one rt-app thread, from its log */
	SRC_TRACE_TASK,		/* one thread (pid), from the trace */
	SRC_TRACE_CPU,		/* one CPU, from the trace */
	SRC_TRACE_SYSTEM,	/* the whole run, from the trace */
	SRC_CANARY,		/* the machine: a CPU or all, from canary.c */
	SRC_HOST,		/* the host during a run, from host_gauge.c */
};

/*
 * What a tail metric says about its series, for the pooled comparisons
 * of change.h: the q-quantile of the high side (p99, max), of the low
 * side (p1, min), or the share of events below zero (overruns).
 */
enum metric_tail { TAIL_NONE, TAIL_HIGH, TAIL_LOW, TAIL_NEGATIVE };

struct metric_def;
/* Computes the metric on one entity of the def's source; NAN = unknown. */
typedef double (*metric_extract_fn)(const void *entity,
				    const struct metric_def *def);

struct metric_def {
	const char *name;	/* "slack.p50": what verdict blocks name */
	const char *unit;	/* "us", "ratio", "count", "share" */
	enum metric_source source;
	metric_extract_fn extract;
	int arg;		/* extractor argument, e.g. a series_stat */
	const char *help;	/* one line, for docs and the metrics list */
	/*
	 * Non-NULL when NAN can mean "this system cannot measure it" (no
	 * cpufreq, say): the check then SKIPs with this reason instead of
	 * failing.
	 */
	const char *unavailable;
	/* For a tail metric: its series (series_def name), side and q. */
	const char *series;
	enum metric_tail tail;
	double q;
	unsigned int needs;	/* NEEDS_*, for a task's metric */
	/* A thread's own (its first pass): not defined for threads pooled. */
	int thread_only;
	/*
	 * Work done per us of CPU: it follows the CPU's own speed, which a
	 * host slows for minutes at a time (canary_cpu_slower()).
	 */
	int cpu_speed;
	/*
	 * A time (slack, a wakeup latency, an overrun) that a slower host
	 * stretches as a slower kernel would: host_gauge.h tells them apart.
	 */
	int host_timed;
};

/*
 * A series of events of one entity (every wakeup latency of a thread...),
 * kept per repetition as a histogram (events.h) for tails.
 */
struct series_def {
	const char *name;	/* "wu_lat": what metric_def.series names */
	enum metric_source source;
	struct series *(*get)(const void *entity, int arg);
	int arg;
};

/* Each source contributes its rows; metrics.c stitches them together. */
extern const struct metric_def rtapp_metric_defs[];
extern const size_t rtapp_metric_count;
extern const struct metric_def trace_metric_defs[];
extern const size_t trace_metric_count;
extern const struct metric_def canary_metric_defs[];
extern const size_t canary_metric_count;
extern const struct metric_def host_metric_defs[];
extern const size_t host_metric_count;
extern const struct series_def rtapp_series_defs[];
extern const size_t rtapp_series_count;
extern const struct series_def trace_series_defs[];
extern const size_t trace_series_count;

const struct metric_def *metric_find(const char *name);
/* Calls fn for every registered metric, in table order. */
void metric_for_each(void (*fn)(const struct metric_def *def, void *arg),
		     void *arg);
const char *metric_source_name(enum metric_source src);

/* One measured value: which metric, on which entity. */
struct metric_value {
	const struct metric_def *def;
	char entity[64];	/* "audio", "hog-1", "cpu1", "system" */
	char group[32];		/* selector key: rt-app task name or comm */
	int id;			/* pid or cpu number, -1 when none */
	/*
	 * 1: every thread of a task of several, as one entity named after
	 * the task (rtapp_metrics.c); what a "pooled" check judges.
	 */
	int pooled;
	double value;		/* NAN when it could not be measured */
};

struct event_rep;

struct metric_set {
	struct metric_value *v;
	size_t n;
	size_t cap;
	/* When set, every entity's event series go there too (events.h). */
	struct event_rep *events;
};

/*
 * Evaluates every metric of @src on @entity and appends the values (and
 * its series to set->events). @name is the entity's display name,
 * @group the name selectors match (task name or comm), @id a pid or CPU
 * number (or -1).
 */
int metric_set_add_entity(struct metric_set *set, enum metric_source src,
			  const void *entity, const char *name,
			  const char *group, int id);
/* The value of metric @name of entity @id of @src; NAN when not there. */
double metric_set_value(const struct metric_set *set, enum metric_source src,
			int id, const char *name);
/* Appends one value (no series). */
int metric_set_push(struct metric_set *set, const struct metric_value *mv);
void metric_set_free(struct metric_set *set);
int metric_set_write_json(const struct metric_set *set, FILE *f);
/* Reads what metric_set_write_json() wrote; errors name @file. */
int metric_set_from_json(struct metric_set *set, struct json_object *o,
			 const char *file, struct sw_err *err);

#endif /* SW_METRICS_H */
