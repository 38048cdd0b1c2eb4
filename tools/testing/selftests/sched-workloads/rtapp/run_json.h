/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run copy of a workload: what rt-app actually reads.
 */
#ifndef SW_PREPARE_H
#define SW_PREPARE_H

/* The longest global.duration: three repetitions within 900 s. */
#define PREPARE_MAX_DURATION_S 300

#include "rtapp/workload.h"

struct prepare_opts {
	const char *logdir;
	const char *basename;	/* rt-app's log_basename */
	long calibration;	/* ns per loop, used unless the file fixes one */
};

/*
 * Writes @out: the workload without our block, logging into @logdir,
 * with a fixed calibration (rt-app's auto-calibration takes seconds and
 * varies) and rt-app's ftrace markers off (they need the top-level
 * buffer). Stores global.duration in @duration_s: a workload must say
 * how long it runs.
 */
int prepare_run_json(const struct workload *w, const struct prepare_opts *o,
		     const char *out, double *duration_s, struct sw_err *err);

/*
 * The workload with the numbers that follow the CPU count set ("scale"),
 * nothing else changed: what the run copy's tasks will be. Put it.
 */
struct json_object *prepare_scaled(const struct workload *w,
				   struct sw_err *err);

/* Everything prepare_run_json() checks, without writing anything. */
int prepare_validate(const struct workload *w, struct sw_err *err);

#endif /* SW_PREPARE_H */
