/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Judging the checks of a workload (judge/checks.h) on rounds of
 * repetitions, into results (judge/verdict_result.h); verdicts.json is
 * written by judge/verdict_json.h.
 *
 * How a verdict is decided: Documentation/dev-tools/sched-workloads/verdicts.rst
 */
#ifndef SW_VERDICT_H
#define SW_VERDICT_H

#include "judge/baseline.h"
#include "judge/checks.h"
#include "judge/verdict_result.h"

/*
 * One result per (check, matching entity). A check that matches nothing
 * fails; so does a value that could not be measured, unless the metric
 * says the system cannot measure it (then SKIP).
 */
int verdict_evaluate(const struct verdict_block *vb,
		     const struct verdict_input *in,
		     struct verdict_results *out);
/*
 * The detectable effect of every baseline check of @vb on the entities
 * of @base, with rounds of @reps repetitions confirmed in @rounds rounds:
 * one result each, named as a run names it (status V_SKIP and the reason
 * in diag when it cannot be computed).
 */
int verdict_detectable(const struct verdict_block *vb,
		       const struct baseline *base, const char *prefix,
		       size_t reps, int rounds, struct verdict_results *out);

#endif /* SW_VERDICT_H */
