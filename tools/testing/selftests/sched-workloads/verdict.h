/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of a workload's verdict block, and their evaluation.
 *
 *   "checks":   [ { "metric": "wu_lat.p90", "task": "audio*", "max": 2000,
 *                   "why": "..." }, ... ]
 *   "baseline": [ { "metric": "wu_lat.p50", "task": "audio", "better":
 *                   "lower", "rel": 0.25, "abs": 20, "tail": false }, ... ]
 *
 * "task" is a glob matched against the rt-app task name (or the comm, for
 * trace metrics) and against the entity name ("audio", "hog-2"); "cpu"
 * a CPU number or "*". Absolute checks bound the median over the run's
 * repetitions ("min"/"max", inclusive; a number, or an expression of
 * expr.h judged when the check is). Baseline checks compare the
 * repetitions with the baseline's by the rule of compare.h: "better" says
 * which way is good, "rel" (a fraction) and "abs" (in the metric's unit)
 * the smallest change that matters, "tail" that the metric is a tail.
 */
#ifndef SW_VERDICT_H
#define SW_VERDICT_H

#include <json-c/json.h>
#include "compare.h"
#include "metrics.h"
#include "samples.h"
#include "util.h"

enum check_kind { CHECK_ABSOLUTE, CHECK_BASELINE };

struct check {
	enum check_kind kind;
	const struct metric_def *def;
	char selector[64];	/* glob on task/comm, or CPU number; "*" */
	int has_min, has_max;	/* absolute */
	double min, max;
	char min_expr[128];	/* when a bound is an expression (expr.h) */
	char max_expr[128];
	struct compare_rule rule;	/* baseline */
	char why[256];
};

struct verdict_block {
	struct check *checks;
	size_t n;
	size_t n_baseline;
};

enum verdict_status { V_PASS, V_FAIL, V_SKIP, V_ERROR };

struct verdict_result {
	char name[160];		/* unique, space-free subtest name */
	enum verdict_status status;
	enum check_kind kind;
	enum change_kind change;	/* baseline checks */
	char diag[1024];	/* metric, value, expectation, why */
};

struct verdict_results {
	struct verdict_result *r;
	size_t n;
};

/* What the checks are judged on. */
struct verdict_input {
	const char *prefix;		/* the workload: first part of names */
	const struct sample_set *cur;	/* this run's repetitions */
	const struct sample_set *base;	/* NULL: no baseline */
	const char *no_base;		/* why not: baseline checks SKIP */
	unsigned long long lost_events;	/* > 0: trace checks are errors */
};

/*
 * Parses block["checks"] and block["baseline"]. Unknown keys or metrics,
 * missing bounds and wrong types are SW_EXIT_BAD_WORKLOAD errors naming
 * @file and the key.
 */
int verdict_parse(struct json_object *block, const char *file,
		  struct verdict_block *vb, struct sw_err *err);
void verdict_block_free(struct verdict_block *vb);

/*
 * One result per (check, matching entity). A check that matches nothing
 * fails; so does a value that could not be measured, unless the metric
 * says the system cannot measure it (then SKIP).
 */
int verdict_evaluate(const struct verdict_block *vb,
		     const struct verdict_input *in,
		     struct verdict_results *out);
void verdict_results_free(struct verdict_results *res);
/* The worst status of all results: FAIL/ERROR > PASS > SKIP. */
enum verdict_status verdict_overall(const struct verdict_results *res);
/* Baseline checks that found a regression. */
size_t verdict_regressions(const struct verdict_results *res);
int verdict_results_write_json(const struct verdict_results *res, FILE *f);

#endif /* SW_VERDICT_H */
