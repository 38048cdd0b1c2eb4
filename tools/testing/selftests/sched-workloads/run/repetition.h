/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One repetition of a workload: the run copy prepared, rt-app run while
 * the scheduler events are recorded, then its logs and trace measured.
 */
#ifndef SW_REPETITION_H
#define SW_REPETITION_H

#include <stddef.h>
#include <stdint.h>
#include "judge/metric_registry.h"
#include "lib/util.h"
#include "rtapp/workload.h"

/*
 * User-space tasks outside the workload taking more than this share of
 * the CPUs during a repetition make it no evidence either way (LISA
 * calls such a run undecided at 1%). Measured on the 2-CPU VMs: 0.2-0.7%
 * in quiet runs (a host agent thread), 10-50% with a compiler or a test
 * suite running beside. Kernel threads do not count here: they have a
 * check of their own (judge/verdict.h).
 */
#define REPETITION_DISTURBED_SHARE 0.05

/* Where a repetition's wall time went, summed over repetitions (s). */
struct repetition_cost {
	double setup;		/* run copy, tracing instance, kernel threads */
	double rtapp;		/* rt-app running, traced */
	double save;		/* trace.dat written */
	double analysis;	/* logs and trace measured, JSON written */
	int reps;
};

struct repetition_opts {
	long calibration;	/* ns per loop for rt-app's run events */
	/*
	 * Waited before rt-app starts: repetitions that all start at one
	 * phase of the tick can stay in one of a workload's modes (the
	 * deterministic guest's do), so each starts at another
	 * (run/live_source.c).
	 */
	uint64_t phase_ns;
	size_t buffer_kb;	/* trace buffer per CPU */
	struct repetition_cost *cost;	/* added to when not NULL */
};

/*
 * Runs @w once in @dir (created): run.json, rt-app's logs and output,
 * trace.dat, then metrics.json, events.json (the series behind the tail
 * metrics) and explain.txt. The metrics go to @set, their series to
 * set->events when set; the foreign tasks that used the CPUs most, in
 * words, to @neighbours.
 */
int repetition_run(const struct workload *w, const struct repetition_opts *o,
		   const char *dir, struct metric_set *set, char *neighbours,
		   size_t nlen, struct sw_err *err);
/* Reads back what repetition_run() wrote into @dir. */
int repetition_load(const char *dir, struct metric_set *set,
		    struct sw_err *err);

#endif /* SW_REPETITION_H */
