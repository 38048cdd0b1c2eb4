/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a metric is: the row every source (rt-app's logs, the trace, the
 * canary, the host gauge) declares for each metric it measures, and the
 * series of events a tail metric is judged on. The sources' tables are
 * stitched into one registry a layer up (judge/metric_registry.h).
 */
#ifndef SW_METRIC_H
#define SW_METRIC_H

#include <stddef.h>

/*
 * The most repetitions of one workload a set of values or of event
 * histograms holds: rounds of a confirmation included.
 */
#define METRIC_MAX_REPS 32

/*
 * The rt-app events a task needs for a metric of it to have a value: a
 * check naming it for a task without them could never be judged.
 */
enum metric_needs {
	NEEDS_TIMER = 1,	/* a "timer": slack, wu_lat, missed periods */
	NEEDS_RUN = 2,		/* "run" or "runtime": run inflation, rate */
	NEEDS_LOCK = 4,		/* "lock": priority inheritance */
};

/*
 * What a metric is measured on; this also fixes what a selector names.
 * The name of a metric says its source where the same quantity is
 * measured twice: wu_lat.* is rt-app's (its log's column: timer expiry
 * to the thread running), wakeup_lat.* the trace's (sched_waking to
 * sched_switch), canary.* the canary's.
 */
enum metric_source {
	SRC_RTAPP_TASK,		/* one rt-app thread, from its log */
	SRC_TRACE_TASK,		/* one thread (pid), from the trace */
	SRC_TRACE_CPU,		/* one CPU, from the trace */
	SRC_TRACE_SYSTEM,	/* the whole run, from the trace */
	SRC_CANARY,		/* the machine: a CPU or all, machine/canary.h */
	SRC_HOST,		/* the host during a run, machine/host_gauge.h */
	SRC_NR,
};

/*
 * What a tail metric says about its series, for the pooled comparisons
 * of judge/compare.h: the q-quantile of the high side (p99, max), of the
 * low side (p1, min), or the share of events below zero (overruns).
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
	 * stretches as a slower kernel would: machine/host_gauge.h tells them
	 * apart.
	 */
	int host_timed;
};

struct series;

/*
 * A series of events of one entity (every wakeup latency of a thread...),
 * kept per repetition as a histogram (lib/event_hist.h) for tails.
 */
struct series_def {
	const char *name;	/* "wu_lat": what metric_def.series names */
	enum metric_source source;
	struct series *(*get)(const void *entity, int arg);
	int arg;
};

/* What one source measures: its metrics and the series behind its tails. */
struct metric_table {
	const struct metric_def *defs;
	size_t ndefs;
	const struct series_def *series;
	size_t nseries;
};

/* "rtapp_tasks", "trace_tasks", "cpus", "system", "canary", "host". */
const char *metric_source_name(enum metric_source src);
/* The source of that name (@len bytes of @name); -1 when none. */
int metric_source_parse(const char *name, size_t len, enum metric_source *src);

#endif /* SW_METRIC_H */
