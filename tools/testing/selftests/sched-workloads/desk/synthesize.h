/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reproducer from a trace: each chosen thread of a recorded program as
 * one rt-app 1.0 task that behaves like it (desk/synthesize.c says how).
 */
#ifndef SW_SYNTHESIZE_H
#define SW_SYNTHESIZE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "trace/trace.h"

/* What /proc said of a thread while it was recorded (record.json). */
struct synth_sched {
	int known;
	char policy[16];	/* "SCHED_OTHER", "SCHED_FIFO", ... */
	int rt_priority;	/* "SCHED_FIFO:10" in record.json; -1 none */
	int nice;
	char cpus[128];		/* "0-1,4"; "" = not recorded */
};

struct synth_input {
	const struct trace_profile *p;	/* its activations, prio, CPU time */
	struct synth_sched sched;
	double wakeup_lat_p90_us;	/* from the trace's metrics; NAN none */
};

struct synth_opts {
	const char *name;	/* the workload's, for its description */
	const char *source;	/* the trace, named in the header */
	const char *command;	/* what was recorded; NULL = unknown */
	uint64_t window_ns;	/* the trace's window */
	uint64_t start_ns;	/* its start (trace clock) */
	int ncpus;		/* CPUs online here (affinity lists) */
};

/*
 * Writes to @out the workload, a C comment (its header: source, what
 * each thread was found to do, what was left out and why) then the
 * JSON. Threads that did not run in the window are named in the header
 * and left out. Returns 0, or -1 with @err set.
 */
int synthesize(const struct synth_input *in, size_t n,
	       const struct synth_opts *o, char **out, struct sw_err *err);

#endif /* SW_SYNTHESIZE_H */
