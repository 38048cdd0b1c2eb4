/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of a workload's verdict block, and their evaluation against
 * the metrics of a run.
 *
 *   "checks": [ { "metric": "wu_lat.p99", "task": "audio*", "max": 2000,
 *                 "why": "..." }, ... ]
 *
 * "task" is a glob matched against the rt-app task name (or the comm, for
 * trace metrics) and against the entity name ("audio-0", "audio:1234");
 * "cpu" a CPU number or "*"; "min"/"max" inclusive bounds.
 */
#ifndef SW_VERDICT_H
#define SW_VERDICT_H

#include <json-c/json.h>
#include "metrics.h"
#include "util.h"

struct check {
	const struct metric_def *def;
	char selector[64];	/* glob on task/comm, or CPU number; "*" */
	int has_min, has_max;
	double min, max;
	char why[256];
};

struct verdict_block {
	struct check *checks;
	size_t n;
};

enum verdict_status { V_PASS, V_FAIL, V_SKIP, V_ERROR };

struct verdict_result {
	char name[160];		/* unique, space-free subtest name */
	enum verdict_status status;
	char diag[640];		/* metric, value, expectation, why */
};

struct verdict_results {
	struct verdict_result *r;
	size_t n;
};

/*
 * Parses block["checks"]. Unknown keys or metrics, missing bounds and
 * wrong types are SW_EXIT_BAD_WORKLOAD errors naming @file and the key.
 */
int verdict_parse(struct json_object *block, const char *file,
		  struct verdict_block *vb, struct sw_err *err);
void verdict_block_free(struct verdict_block *vb);

/*
 * One result per (check, matching entity). A check that matches nothing
 * fails; so does a value that could not be measured, unless the metric
 * says the system cannot measure it (then SKIP). @lost_events > 0 turns
 * trace checks into errors: the trace is incomplete.
 */
int verdict_evaluate(const struct verdict_block *vb,
		     const struct metric_set *set, const char *prefix,
		     unsigned long long lost_events,
		     struct verdict_results *out);
void verdict_results_free(struct verdict_results *res);
/* The worst status of all results: FAIL/ERROR > PASS > SKIP. */
enum verdict_status verdict_overall(const struct verdict_results *res);
int verdict_results_write_json(const struct verdict_results *res, FILE *f);

#endif /* SW_VERDICT_H */
