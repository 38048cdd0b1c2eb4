/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the trace analysis is told about a run: the window rt-app's
 * threads were active in, and each thread's affinity as the workload
 * declares it (its "cpus" key, else every CPU). Only rt-app's threads get
 * per-task metrics and take part in work conservation: the affinity of
 * anything else on the machine is unknown, and never assumed.
 */
#ifndef SW_TRACE_SCOPE_H
#define SW_TRACE_SCOPE_H

#include "rtapp/rtapp_log.h"
#include "trace/trace.h"
#include "rtapp/workload.h"

struct trace_scope {
	struct trace_opts opts;
	struct trace_affinity *aff;
	const char **globs;
	char (*comms)[16];	/* rt-app thread names as the kernel cuts them */
	size_t n;
	FILE *explain;		/* trace_report_explain() there, if set */
	FILE *timeline;		/* trace_report_timeline() there, if set */
	struct kthread_list kthreads;	/* trace_scope_load_kthreads() */
	/*
	 * Set by trace_scope_measure(): the tasks outside the workload that
	 * ran most (trace_report_neighbours()), to name who disturbed a
	 * repetition; "" when none did.
	 */
	char neighbours[512];
};

/* @logs may be NULL (no window: the whole trace). */
int trace_scope_init(struct trace_scope *s, const struct workload *w,
		     const struct rtapp_logs *logs, struct sw_err *err);
void trace_scope_free(struct trace_scope *s);
/*
 * Loads @dir/kthreads.txt (kthreads.h), when there, into s->kthreads and
 * points the options at it. 0 when loaded or absent; -1 with @err set
 * (SW_EXIT_BAD_LOG naming the file and line) when it is malformed.
 */
int trace_scope_load_kthreads(struct trace_scope *s, const char *dir,
			      struct sw_err *err);
/*
 * Analyses @trace as @s says and adds its metrics to @set; @lost gets the
 * events the trace lost. Why metrics are unknown, if so, goes to stderr.
 */
int trace_scope_measure(struct trace_scope *s, const char *trace,
			struct metric_set *set, uint64_t *lost,
			struct sw_err *err);

#endif /* SW_TRACE_SCOPE_H */
