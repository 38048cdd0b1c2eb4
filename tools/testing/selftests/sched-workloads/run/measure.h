/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measuring a repetition from its files: rt-app's logs, the trace and the
 * kernel threads seen around it (kthreads.txt) into one set of metrics.
 * A run measures each repetition so once rt-app has ended; "analyze" does
 * the same on files from elsewhere.
 */
#ifndef SW_MEASURE_H
#define SW_MEASURE_H

#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "lib/metric_set.h"
#include "lib/util.h"
#include "rtapp/workload.h"

struct measure_in {
	/*
	 * The workload that ran: its tasks are the threads of the trace that
	 * get per-task metrics, their "cpus" where they may run. NULL: every
	 * task of the trace, and work conservation as @all_cpus says.
	 */
	const struct workload *w;
	const char *logs;	/* rt-app's logs and kthreads.txt; may be NULL */
	const char *basename;	/* rt-app's log_basename */
	const char *trace;	/* trace.dat; NULL: rt-app's metrics only */
	/*
	 * CLOCK_MONOTONIC ns at which the run ended: rt-app's logs must
	 * reach it, else they lost their end (0: not checked).
	 */
	uint64_t run_end_ns;
	int all_cpus;		/* every task of the trace may use every CPU */
	const char *buffer;	/* the trace.dat buffer to read; NULL: found */
	int use_libtracecmd;	/* read the trace with libtracecmd's iteration */
	FILE *explain;		/* trace_report_explain() there, if set */
	/* Set: the same as JSON (trace_report_explain_json()) goes there. */
	struct json_object **explain_json;
	FILE *timeline;		/* trace_report_timeline() there, if set */
	uint64_t timeline_start_ns, timeline_end_ns;
};

struct measure_out {
	uint64_t lost_events;	/* the trace lost them */
	/*
	 * The tasks outside the workload that ran most, in words
	 * (trace_report_neighbours()), to name who disturbed a repetition;
	 * "" when none did.
	 */
	char neighbours[512];
	/*
	 * Set when rt-app's logs end early because the kernel throttled or
	 * starved the workload's threads (with @run_end_ns): what the trace
	 * shows of it, for a diagnostic.
	 */
	char late[384];
};

/*
 * Adds rt-app's metrics of @in->logs, the trace's of @in->trace and the
 * host gauge to @set (with their series when set->events is set). Errors
 * name the file and the place (SW_EXIT_BAD_LOG, SW_EXIT_BAD_TRACE); why
 * the trace's metrics are unknown, when they are, goes to stderr.
 */
int measure_files(const struct measure_in *in, struct metric_set *set,
		  struct measure_out *out, struct sw_err *err);

#endif /* SW_MEASURE_H */
