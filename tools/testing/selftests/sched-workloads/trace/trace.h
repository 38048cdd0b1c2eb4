/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace analysis: one streaming pass over a trace.dat (sched, ipi and
 * power events) that keeps per-task, per-CPU and system-wide accumulators,
 * then hands the values to the metric registry (trace/trace_metrics.c says what
 * each metric means).
 *
 * Memory grows with tasks and CPUs, not with events: a task's wakeup
 * latencies are kept one by one up to SERIES_EXACT_MAX (lib/stats.h), in a
 * histogram beyond.
 */
#ifndef SW_TRACE_H
#define SW_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/kthreads.h"
#include "lib/metric_set.h"
#include "lib/util.h"

/*
 * Tasks whose comm matches @comm may run on @cpus (NULL: every CPU). CPUs
 * the trace does not have are ignored: the workload may come from a
 * bigger machine.
 */
struct trace_affinity {
	const char *comm;	/* glob */
	const int *cpus;
	size_t ncpus;
};

/* What the caller knows about the run. */
struct trace_opts {
	uint64_t start_ns;	/* window, trace clock (mono) ns; 0 = trace start */
	uint64_t end_ns;	/* 0 = trace end */
	/* Tasks not matched by @aff may run on every CPU. */
	int affinity_all;
	const struct trace_affinity *aff;	/* first match wins */
	size_t naff;
	/* Tasks that get per-task metrics; NULL = all. */
	const char **task_globs;
	size_t ntask_globs;
	/* Buffer to read; NULL = top level, or the first instance with data. */
	const char *buffer;
	/*
	 * Kernel threads alive around the run (trace/kthreads.h); NULL, or a pid
	 * it lacks: known by name only (kthread_comm()).
	 */
	const struct kthread_list *kthreads;
	/* Read with libtracecmd's iteration even where trace/tracedat_read.c could. */
	int use_libtracecmd;
	/*
	 * Keep every activation of the selected tasks, one by one, for
	 * trace_report_profiles(); memory then grows with their wakeups.
	 */
	int keep_activations;
	/*
	 * Record what ran and waited on each CPU from timeline_start_ns to
	 * timeline_end_ns (trace clock ns; end 0: none), for
	 * trace_report_timeline().
	 */
	uint64_t timeline_start_ns, timeline_end_ns;
	/*
	 * The SMT core of each CPU (its lowest-numbered sibling; machine/
	 * cpu_topology.h), @ncores_of entries; NULL: unknown, and
	 * smt.stacked_* are NAN.
	 */
	const int *core_of;
	int ncore_of;
};

struct trace_report;

/*
 * Reads @path in one pass. Returns 0, or -1 with @err set
 * (SW_EXIT_BAD_TRACE: unreadable, corrupt, truncated or foreign file, or a
 * trace without sched_switch events; the message names the file).
 */
int trace_analyze(const char *path, const struct trace_opts *opts,
		  struct trace_report **out, struct sw_err *err);
/* Its rows of the metric registry (SRC_TRACE_TASK, _CPU, _SYSTEM). */
extern const struct metric_table trace_metric_table;
/*
 * Adds entities "comm" or "comm-k" (SRC_TRACE_TASK; lib/entity_name.h), "cpuN"
 * (SRC_TRACE_CPU) and "system" (SRC_TRACE_SYSTEM) with every trace
 * metric. @opts are those trace_analyze() was given.
 */
int trace_report_add_metrics(struct trace_report *r,
			     const struct trace_opts *opts,
			     struct metric_set *set);
uint64_t trace_report_lost_events(const struct trace_report *r);
/*
 * Prints where wc.* and rt.wait_while_lower come from: the number of
 * stretches of each condition and the longest ones, each with when it
 * began and who was involved (trace/trace_explain.c); then a "neighbours:"
 * section, the tasks outside the workload that ran most, user tasks and
 * kernel threads apart.
 */
void trace_report_explain(const struct trace_report *r, FILE *f);
struct json_object;
/*
 * The same, as JSON, for programs: {"wc": {"measured", "stretches",
 * "total_us", "longest": [{"start_s", "offset_s", "len_us", "who", "pid",
 * "comm", "cpu", "other_cpu", "other_pid", ...}]}, "rt": {...},
 * "neighbours": {"user_share", "kthread_share", "tasks": [{"comm", "pid",
 * "kthread", "policy", "share"}]}}; "who" is the text's sentence.
 */
struct json_object *trace_report_explain_json(const struct trace_report *r);
/*
 * The timeline trace_opts asked for, as one JSON object: {"start", "end",
 * "cpus", "running": [{"cpu", "start", "end", "pid", "comm", "prio"}],
 * "waiting": [...]}, seconds of the trace clock, sorted by CPU and start.
 */
void trace_report_timeline(const struct trace_report *r, FILE *f);
/*
 * The tasks outside the workload that ran most in the window, the top 5
 * above 0.1% of window * CPUs, largest first, as one line for a
 * diagnostic: "stress-ng (pid 4242, fair nice 0) 12.1%, kworker/1:2
 * (pid 77, kernel thread, fair nice 0) 0.4%"; "" when none. The policy
 * is read from the prio of the task's last sched_switch ("rt N",
 * "fair nice N", "deadline"); the share is of window * CPUs.
 * trace_report_explain() lists them too, kernel threads apart.
 */
void trace_report_neighbours(const struct trace_report *r, char *buf,
			     size_t len);
/* One activation (trace/trace_metrics.c, run_burst): woken while asleep, asleep again. */
struct trace_activation {
	uint64_t wake_ns, end_ns;	/* trace clock */
	uint64_t run_ns;		/* CPU time in between */
	int waker;			/* pid the waking was taken in; 0 idle */
	int cpu;			/* where it went to sleep */
};

/* A task as trace_report_profiles() gives it; points into the report. */
struct trace_profile {
	int pid;
	const char *comm;		/* the last one seen */
	int prio;			/* kernel prio at its last switch; 120 unknown */
	uint64_t first_ns, last_ns;	/* first and last event of it */
	uint64_t cpu_ns;		/* in the window */
	const struct trace_activation *acts;	/* ended in the window */
	size_t nacts;
};

/*
 * Every task of the trace, first seen first, with its activations when
 * trace_opts.keep_activations was set; *@out is malloc()ed (the strings
 * and arrays stay the report's). The window: from @start_ns, @win_ns
 * long.
 */
int trace_report_profiles(const struct trace_report *r,
			  struct trace_profile **out, size_t *n,
			  uint64_t *start_ns, uint64_t *win_ns);

/* Why metrics are unknown ("empty trace", ...), or NULL. */
const char *trace_report_note(const struct trace_report *r);
void trace_report_free(struct trace_report *r);

#endif /* SW_TRACE_H */
