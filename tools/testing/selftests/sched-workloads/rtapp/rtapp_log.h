/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rt-app's per-thread logs: <logdir>/<basename>-<task>-<idx>.log.
 */
#ifndef SW_RTAPP_LOG_H
#define SW_RTAPP_LOG_H

#include <stddef.h>
#include "lib/metric_set.h"
#include "lib/stats.h"
#include "lib/util.h"

/* The series derived from one thread's passes, in microseconds. */
enum rtapp_series {
	RS_SLACK,		/* timer slack; < 0: the period was missed */
	RS_WU_LAT,		/* wakeup latency after the timer */
	RS_RUN_INFLATION,	/* run / c_duration: 1.0 = never preempted */
	RS_PERIOD_JITTER,	/* |period - c_period| */
	RS_RATE,		/* perf / run: work done per us of run */
	RS_NR_SERIES,
};

enum { STEP_NONE, STEP_SETTLING, STEP_SETTLED };

struct rtapp_task_log {
	char name[64];		/* "<task>" or "<task>-<k>" (lib/entity_name.h) */
	char task[48];		/* the task's key in the workload */
	int idx;		/* rt-app's thread index */
	char policy[32];	/* from the "# Policy" header */
	size_t passes;		/* every logged pass, the first included */
	int has_first;
	double first[RS_NR_SERIES];	/* the first pass, judged apart */
	/*
	 * Start-up: the first pass and the catch-up passes its lateness
	 * caused (rtapp/rtapp_log.c); the steady state is every pass after them.
	 */
	size_t startup_passes;
	int in_startup;
	double catchup_us;	/* lateness a catch-up pass may still absorb */
	/* The first duty-cycle step, start-up included (rtapp/rtapp_log.c). */
	double prev_c_duration;
	int step_state;		/* STEP_* */
	size_t step_missed;
	struct series s[RS_NR_SERIES];
	double perf_total;	/* rt-app's perf (loops) of every pass, summed */
	double start_us, end_us;	/* CLOCK_MONOTONIC span of the passes */
};

struct rtapp_logs {
	struct rtapp_task_log *t;
	size_t n;
};

/*
 * Loads every <basename>-*.log of @dir. Logs without the rt-app header,
 * with a line of the wrong shape or cut off mid-line are errors
 * (SW_EXIT_BAD_LOG) naming the file and line.
 */
int rtapp_logs_load(const char *dir, const char *basename,
		    struct rtapp_logs *logs, struct sw_err *err);
/* One log file; @task may be NULL to take it from the file name. */
int rtapp_log_parse(const char *path, const char *basename,
		    struct rtapp_task_log *t, struct sw_err *err);
void rtapp_logs_free(struct rtapp_logs *logs);

#endif /* SW_RTAPP_LOG_H */
