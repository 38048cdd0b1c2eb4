/* SPDX-License-Identifier: GPL-2.0 */
/*
 * index.json of a run: where each file is (the layout of lib/results.h,
 * as templates), how its event histograms are binned, and every workload
 * of the battery with its state, so that report, export and history read
 * what is where and what became of each workload, and derive neither.
 *
 *   {"format": 1, "layout": {...}, "event_bins": {"per_octave": 16,
 *    "min_abs": 0.01, "octaves": 44}, "workloads": {"<name>": {"state":
 *    "pass", "reason": "", "baseline": "/.../<workload>.json", "files":
 *    ["copy", "verdicts", ...], "repetitions": [1, 2, 3]}, ...}}
 *
 * "state" is "pending" until the workload is done, then "pass", "fail",
 * "skip" or "error" as its KTAP line says, "neighbours" (when other tasks
 * kept disturbing it) the user tasks outside it that ran most in its
 * last disturbed repetition; "baseline" the baseline file
 * its checks were judged against (null: none, or not known); "files" and
 * "repetitions" are what its directory holds.
 */
#ifndef SW_RUN_INDEX_H
#define SW_RUN_INDEX_H

#include <stddef.h>

#include <json-c/json.h>

#include "lib/util.h"

#define RUN_INDEX_FORMAT 1

struct run_index_entry {
	const char *name;	/* the workload */
	const char *state;
	const char *reason;	/* why it skipped or broke; "" */
	const char *baseline;	/* the file it was judged against, or NULL */
	/* who made the machine too busy for it: explain.json's tasks */
	struct json_object *neighbours;
};

/* Writes @run/index.json; -1 with @err (SW_EXIT_RUN_ERROR) naming it. */
int run_index_write(const char *run, const struct run_index_entry *e,
		    size_t n, struct sw_err *err);
/*
 * The index of a run written before runs had one: each directory of @run
 * that holds a copy of its workload file or its verdicts, its state the
 * worst of its verdicts.json ("unknown" without one). Returns the number of workloads,
 * or -1 with @err (SW_EXIT_BAD_RESULTS) when @run is not a run.
 */
int run_index_rebuild(const char *run, struct sw_err *err);

#endif /* SW_RUN_INDEX_H */
