// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics measured on rt-app's logs, one thread at a time.
 *
 * Series metrics cover the steady state: every logged pass after the
 * start-up, because a late start of rt-app's threads makes the first
 * period miss on a healthy kernel, and with an absolute timer the next
 * passes catch up on that lateness (rtapp/rtapp_log.c says which count). The
 * first pass has its own first.* metrics, startup.passes says how long
 * the start-up lasted. step.missed_periods counts the overruns from the
 * first duty-cycle step (start-up included) until a pass met its period
 * again (rtapp/rtapp_log.c), NAN for a task without such a step.
 * slack, wu_lat and period_jitter only count passes that have a timer
 * (c_period > 0), wu_lat only those that slept (slack >= 0);
 * run_inflation only passes with run events (c_duration > 0).
 *
 * run_inflation sees preemption only for loop-count "run" events: a
 * time-based "runtime" event ends when its wall time is up, preempted or
 * not. rate (perf / run: loops done per us inside run events) drops when
 * the thread is preempted mid-run in either kind; its scale depends on
 * the CPU and on the rt-app flavour (upstream logs perf / 1000), so it
 * is for comparisons on one machine class, not absolute checks.
 *
 * A task of several threads is also measured as one entity named after
 * the task: every steady-state pass of every thread in one series, the
 * counts summed. Which of a task's identical threads EDF leaves third, or
 * which two hogs share a CPU, is decided by the order they happened to
 * start in: a thread's median then takes one of two values from run to
 * run, while the task's stays put. first.* (one pass of one thread) has
 * no pooled value.
 */
#include <math.h>
#include <string.h>

#include "rtapp/rtapp_metrics.h"
#include "lib/util.h"

#define SERIES_ARG(series, stat)	((series) * 100 + (stat))

static double rtapp_series_metric(const void *entity,
				  const struct metric_def *def)
{
	/* Statistics sort the series in place: the cast drops const only. */
	struct rtapp_task_log *t = (struct rtapp_task_log *)entity;

	return series_stat(&t->s[def->arg / 100], def->arg % 100);
}

static double rtapp_first_metric(const void *entity,
				 const struct metric_def *def)
{
	const struct rtapp_task_log *t = entity;

	return t->has_first ? t->first[def->arg] : NAN;
}

static double rtapp_passes(const void *entity, const struct metric_def *def)
{
	const struct rtapp_task_log *t = entity;

	(void)def;
	return (double)t->passes;
}

static double rtapp_startup(const void *entity, const struct metric_def *def)
{
	const struct rtapp_task_log *t = entity;

	(void)def;
	return (double)t->startup_passes;
}

static double rtapp_step_missed(const void *entity,
				const struct metric_def *def)
{
	const struct rtapp_task_log *t = entity;

	(void)def;
	return t->step_state == STEP_NONE ? NAN : (double)t->step_missed;
}

static double rtapp_missed(const void *entity, const struct metric_def *def)
{
	struct rtapp_task_log *t = (struct rtapp_task_log *)entity;
	(void)def;
	return (double)t->s[RS_SLACK].neg;
}

/* Slack, wu_lat and period jitter come from timers, the rest from runs. */
#define NEEDS_OF(ser) ((ser) == RS_RUN_INFLATION || (ser) == RS_RATE ? \
		       NEEDS_RUN : NEEDS_TIMER)
#define ROW(n, u, fn, a, h, nd) { .name = n, .unit = u, \
	.source = SRC_RTAPP_TASK, .extract = fn, .arg = a, .help = h, \
	.needs = nd, .host_timed = 1 }
#define S(n, u, ser, stat, h) \
	ROW(n, u, rtapp_series_metric, SERIES_ARG(ser, stat), h, NEEDS_OF(ser))
/* A rate of rt-app's loop: follows the CPU's speed. */
#define SPEED(n, stat, h) { .name = n, .unit = "loops/us", \
	.source = SRC_RTAPP_TASK, .extract = rtapp_series_metric, \
	.arg = SERIES_ARG(RS_RATE, stat), .help = h, \
	.needs = NEEDS_OF(RS_RATE), .cpu_speed = 1, .host_timed = 1 }
/* A tail of series @sname: compared on pooled events (judge/compare.h). */
#define T(n, u, ser, stat, h, sname, side, quantile) { .name = n, \
	.unit = u, .source = SRC_RTAPP_TASK, .extract = rtapp_series_metric, \
	.arg = SERIES_ARG(ser, stat), .help = h, .series = sname, \
	.tail = side, .q = quantile, .needs = NEEDS_OF(ser), .host_timed = 1 }

static const struct metric_def rtapp_metric_defs[] = {
	ROW("passes", "count", rtapp_passes, 0,
	    "passes through the task's event list that rt-app logged", 0),
	ROW("startup.passes", "count", rtapp_startup, 0,
	    "the first pass and the passes catching up on its lateness", 0),
	{ .name = "missed_periods", .unit = "count", .source = SRC_RTAPP_TASK,
	  .extract = rtapp_missed,
	  .help = "steady-state passes with negative slack (period overrun)",
	  .series = "slack", .tail = TAIL_NEGATIVE, .needs = NEEDS_TIMER,
	  .host_timed = 1 },
	T("slack.negative_share", "share", RS_SLACK, STAT_NEG_SHARE,
	  "share of steady-state timer passes that missed their period",
	  "slack", TAIL_NEGATIVE, 0),
	T("slack.min", "us", RS_SLACK, STAT_MIN, "smallest timer slack",
	  "slack", TAIL_LOW, 0),
	S("slack.p50", "us", RS_SLACK, STAT_P50, "median timer slack"),
	S("slack.p10", "us", RS_SLACK, STAT_P10,
	  "10th percentile of timer slack (the low side is the bad one)"),
	T("slack.p1", "us", RS_SLACK, STAT_P1, "1st percentile of timer slack",
	  "slack", TAIL_LOW, 0.01),
	S("slack.mean", "us", RS_SLACK, STAT_MEAN, "mean timer slack"),
	S("wu_lat.p50", "us", RS_WU_LAT, STAT_P50,
	  "median wakeup latency after the timer (rt-app's wu_lat)"),
	S("wu_lat.p90", "us", RS_WU_LAT, STAT_P90, "90th percentile of wu_lat"),
	T("wu_lat.p99", "us", RS_WU_LAT, STAT_P99, "99th percentile of wu_lat",
	  "wu_lat", TAIL_HIGH, 0.99),
	T("wu_lat.p999", "us", RS_WU_LAT, STAT_P999,
	  "99.9th percentile of wu_lat", "wu_lat", TAIL_HIGH, 0.999),
	T("wu_lat.max", "us", RS_WU_LAT, STAT_MAX, "largest wu_lat",
	  "wu_lat", TAIL_HIGH, 1),
	S("wu_lat.mean", "us", RS_WU_LAT, STAT_MEAN, "mean wu_lat"),
	S("run_inflation.p50", "ratio", RS_RUN_INFLATION, STAT_P50,
	  "median of run / c_duration: 1.0 when the run was never preempted"),
	S("run_inflation.p90", "ratio", RS_RUN_INFLATION, STAT_P90,
	  "90th percentile of run / c_duration"),
	T("run_inflation.p99", "ratio", RS_RUN_INFLATION, STAT_P99,
	  "99th percentile of run / c_duration", "run_inflation", TAIL_HIGH,
	  0.99),
	T("run_inflation.max", "ratio", RS_RUN_INFLATION, STAT_MAX,
	  "largest run / c_duration", "run_inflation", TAIL_HIGH, 1),
	S("run_inflation.mean", "ratio", RS_RUN_INFLATION, STAT_MEAN,
	  "mean run / c_duration"),
	S("period_jitter.p50", "us", RS_PERIOD_JITTER, STAT_P50,
	  "median of |period - c_period| over timer passes"),
	S("period_jitter.p90", "us", RS_PERIOD_JITTER, STAT_P90,
	  "90th percentile of |period - c_period|"),
	T("period_jitter.p99", "us", RS_PERIOD_JITTER, STAT_P99,
	  "99th percentile of |period - c_period|", "period_jitter",
	  TAIL_HIGH, 0.99),
	T("period_jitter.max", "us", RS_PERIOD_JITTER, STAT_MAX,
	  "largest |period - c_period|", "period_jitter", TAIL_HIGH, 1),
	SPEED("rate.p50", STAT_P50,
	      "median of perf / run: work done per us inside run events"),
	SPEED("rate.p10", STAT_P10,
	      "10th percentile of perf / run (the passes that got least CPU)"),
	ROW("step.missed_periods", "count", rtapp_step_missed, 0,
	    "overruns from the first duty step (c_duration x2) to a pass on time",
	    NEEDS_TIMER),
	{ .name = "first.slack", .unit = "us", .source = SRC_RTAPP_TASK,
	  .extract = rtapp_first_metric, .arg = RS_SLACK,
	  .help = "timer slack of the first pass", .needs = NEEDS_TIMER,
	  .thread_only = 1, .host_timed = 1 },
	{ .name = "first.wu_lat", .unit = "us", .source = SRC_RTAPP_TASK,
	  .extract = rtapp_first_metric, .arg = RS_WU_LAT,
	  .help = "wakeup latency of the first pass", .needs = NEEDS_TIMER,
	  .thread_only = 1, .host_timed = 1 },
};


static struct series *rtapp_series(const void *entity, int arg)
{
	/* The histograms only read the series: the cast drops const only. */
	return &((struct rtapp_task_log *)entity)->s[arg];
}

static const struct series_def rtapp_series_defs[] = {
	{ "slack", SRC_RTAPP_TASK, rtapp_series, RS_SLACK },
	{ "wu_lat", SRC_RTAPP_TASK, rtapp_series, RS_WU_LAT },
	{ "run_inflation", SRC_RTAPP_TASK, rtapp_series, RS_RUN_INFLATION },
	{ "period_jitter", SRC_RTAPP_TASK, rtapp_series, RS_PERIOD_JITTER },
	{ "rate", SRC_RTAPP_TASK, rtapp_series, RS_RATE },
};

const struct metric_table rtapp_metric_table = {
	.defs = rtapp_metric_defs,
	.ndefs = ARRAY_SIZE(rtapp_metric_defs),
	.series = rtapp_series_defs,
	.nseries = ARRAY_SIZE(rtapp_series_defs),
};

/* The threads of @task after @from in @logs: 0 when it has one. */
static size_t other_threads(const struct rtapp_logs *logs, size_t from)
{
	size_t i, n = 0;

	for (i = 0; i < logs->n; i++)
		n += i != from && !strcmp(logs->t[i].task, logs->t[from].task);
	return n;
}

/* Every thread of @t's task (in @logs) into @pool, one pseudo-thread. */
static int pool_task(const struct rtapp_logs *logs,
		     const struct rtapp_task_log *t,
		     struct rtapp_task_log *pool)
{
	size_t i, k;

	memset(pool, 0, sizeof(*pool));
	snprintf(pool->name, sizeof(pool->name), "%s", t->task);
	snprintf(pool->task, sizeof(pool->task), "%s", t->task);
	snprintf(pool->policy, sizeof(pool->policy), "%s", t->policy);
	pool->idx = -1;
	pool->start_us = t->start_us;
	pool->end_us = t->end_us;
	for (i = 0; i < logs->n; i++) {
		const struct rtapp_task_log *o = &logs->t[i];

		if (strcmp(o->task, t->task))
			continue;
		pool->passes += o->passes;
		pool->startup_passes += o->startup_passes;
		if (o->step_state != STEP_NONE)
			pool->step_state = STEP_SETTLED;
		pool->step_missed += o->step_missed;
		pool->start_us = fmin(pool->start_us, o->start_us);
		pool->end_us = fmax(pool->end_us, o->end_us);
		for (k = 0; k < RS_NR_SERIES; k++)
			if (series_merge(&pool->s[k], &o->s[k]))
				return -1;
	}
	return 0;
}

static void pool_free(struct rtapp_task_log *pool)
{
	size_t k;

	for (k = 0; k < RS_NR_SERIES; k++)
		series_free(&pool->s[k]);
}

int rtapp_logs_add_metrics(const struct rtapp_logs *logs,
			   struct metric_set *set, struct sw_err *err)
{
	struct rtapp_task_log pool;
	size_t i, j, from;
	int ret;

	for (i = 0; i < logs->n; i++)
		if (metric_set_add_entity(set, &rtapp_metric_table,
					  SRC_RTAPP_TASK, &logs->t[i],
					  logs->t[i].name, logs->t[i].task,
					  -1))
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	for (i = 0; i < logs->n; i++) {
		/* once a task: at its first thread */
		for (j = 0; j < i; j++)
			if (!strcmp(logs->t[j].task, logs->t[i].task))
				break;
		if (j < i || !other_threads(logs, i))
			continue;
		from = set->n;
		ret = pool_task(logs, &logs->t[i], &pool) ||
		      metric_set_add_entity(set, &rtapp_metric_table,
					    SRC_RTAPP_TASK, &pool, pool.name,
					    pool.task, -1);
		pool_free(&pool);
		if (ret)
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		for (j = from; j < set->n; j++)
			set->v[j].pooled = 1;
	}
	return 0;
}
