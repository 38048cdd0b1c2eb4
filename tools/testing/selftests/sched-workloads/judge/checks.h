/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of a workload's verdict block, parsed (judge/checks.c); judge/verdict.h
 * judges them.
 *
 *   "checks":   [ { "metric": "wu_lat.p90", "task": "audio*", "max": 2000,
 *                   "why": "..." }, ... ]
 *   "baseline": [ { "metric": "wu_lat.p50", "task": "audio", "better":
 *                   "lower", "rel": 0.25, "abs": 20 }, ... ]
 *
 * "task" is a glob matched against the rt-app task name (or the comm, for
 * trace metrics) and against the entity name ("audio", "hog-1"); "cpu" a
 * CPU number or "*". Absolute checks bound the median of the first
 * round's repetitions ("min"/"max", inclusive; a number, or an expression
 * of judge/bound_expr.h judged when the check is). Baseline checks compare each round
 * with the baseline by the rules of judge/compare.h: "better" says which way is
 * good, "rel" (a fraction) and "abs" (in the metric's unit) the smallest
 * change that matters; a tail metric (metric_def.tail) is compared on its
 * pooled events. How repetitions and rounds decide, and the false-alarm
 * rate the rules are built for:
 * Documentation/dev-tools/sched-workloads/verdicts.rst
 */
#ifndef SW_CHECKS_H
#define SW_CHECKS_H

#include <json-c/json.h>
#include "judge/compare.h"
#include "lib/metric.h"
#include "lib/util.h"

/* The check every workload gets (judge/checks.c). */
#define VERDICT_KTHREAD_METRIC	"kthread.cpu_share"
/*
 * Kernel threads used 0.003-0.28% of 2 CPUs during the battery's clean
 * runs (kdamond.0 most), 0.006 of one CPU at most; one that spins uses a
 * whole CPU. The bound, a tenth of one CPU over the window, holds on any
 * CPU count and sits 15x above the one and 10x below the other.
 */
#define VERDICT_KTHREAD_MAX	"0.1 / cpus"
#define VERDICT_KTHREAD_WHY	"kernel threads use at most a tenth of one CPU during a workload; more is a kernel thread spinning, a bug of the kernel under test"

enum check_kind { CHECK_ABSOLUTE, CHECK_BASELINE };

struct check {
	enum check_kind kind;
	const struct metric_def *def;
	char selector[64];	/* glob on task/comm, or CPU number; "*" */
	int pooled;		/* its threads as one (lib/metric_set.h) */
	int has_min, has_max;	/* absolute */
	double min, max;
	char min_expr[128];	/* when a bound is an expression (judge/bound_expr.h) */
	char max_expr[128];
	/*
	 * absolute: the fair class ("eevdf", "cfs") whose semantics the
	 * bound encodes, "" for any; judged only on a kernel that has it
	 * (the run's settings, "sched.fair"), else a SKIP naming both.
	 */
	char semantics[8];
	struct compare_rule rule;	/* baseline */
	char why[256];
	int implicit;	/* added, not written: no result without a value */
};

struct verdict_block {
	struct check *checks;
	size_t n;
	size_t n_baseline;
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
 * Every task check's selector names a task of @tasks (the workload's
 * "tasks") or a thread of one: else an error (SW_EXIT_BAD_WORKLOAD) with
 * the check's place, since it could never be judged.
 */
int verdict_check_selectors(const struct verdict_block *vb,
			    struct json_object *tasks, const char *file,
			    struct sw_err *err);

#endif /* SW_CHECKS_H */
