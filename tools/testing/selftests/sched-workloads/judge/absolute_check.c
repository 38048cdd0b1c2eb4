// SPDX-License-Identifier: GPL-2.0
/*
 * Absolute checks: the median of a round's repetitions against the
 * check's bounds, a split vote taking more repetitions, a bound missed
 * in round 1 judged again in later rounds.
 *
 * How a verdict is decided: Documentation/dev-tools/sched-workloads/verdicts.rst
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/absolute_check.h"
#include "judge/bound_expr.h"
#include "judge/round_drift.h"
#include "judge/unusable.h"
#include "judge/verdict_text.h"

/*
 * A bound that encodes one fair class's semantics, on a kernel whose fair
 * class is the other (the run's "sched.fair"): not judged. Recorded
 * before the setting was: judged.
 */
static int other_semantics(const struct check *ck,
			   const struct metric_samples *ms,
			   const struct verdict_input *in,
			   struct verdict_result *r)
{
	struct json_object *v;
	const char *fair;

	if (!ck->semantics[0] || !in->settings ||
	    !json_object_object_get_ex(in->settings, "sched.fair", &v))
		return 0;
	fair = json_object_get_string(v);
	if (!strcmp(fair, ck->semantics))
		return 0;
	r->status = V_SKIP;
	snprintf(r->diag, sizeof(r->diag),
		 "%s: %s: the bound holds for %s, and this kernel's fair class is %s (sched.fair): not judged%s%s",
		 ms->entity, ck->def->name, ck->semantics, fair,
		 ck->why[0] ? "; its reason: " : "", ck->why);
	return 1;
}

/*
 * The bounds of a check: expressions read the settings the run recorded
 * (@in->settings), else the machine as it is (judge/bound_expr.h).
 */
static int eval_bounds(const struct check *ck, const struct verdict_input *in,
		       double *min, double *max, struct verdict_result *r)
{
	char why[128];
	int rc = 0;

	*min = ck->min;
	*max = ck->max;
	if (ck->min_expr[0])
		rc = expr_eval(ck->min_expr, 0, in->settings, min, why,
			       sizeof(why));
	if (!rc && ck->max_expr[0])
		rc = expr_eval(ck->max_expr, 0, in->settings, max, why,
			       sizeof(why));
	if (rc == -2) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: bound: %s: this machine does not show it",
			 ck->def->name, why);
		return -1;
	}
	if (rc) {
		r->status = V_ERROR;
		snprintf(r->diag, sizeof(r->diag), "ERROR %s: bound: %s",
			 ck->def->name, why);
		return -1;
	}
	return 0;
}

/* The value judged, its limit: the bound it is nearer to, and the room. */
static void set_value(const struct check *ck, double min, double max,
		      double v, struct verdict_result *r)
{
	r->value = v;
	r->room = INFINITY;
	if (ck->has_max) {
		r->limit = max;
		r->room = max - v;
	}
	if (ck->has_min && v - min < r->room) {
		r->limit = min;
		r->room = v - min;
	}
}

/*
 * An absolute check's values in round @i (0: @ms itself) into @vals;
 * their median, NAN when the round measured none.
 */
static double round_values(const struct metric_samples *ms,
			   const struct verdict_input *in, size_t i,
			   double *vals, size_t *n)
{
	const struct metric_samples *cs = ms;
	char key[256];

	if (i) {
		samples_key(ms, key, sizeof(key));
		cs = sample_set_find(in->rounds[i].cur, key);
	}
	*n = cs ? samples_measured(cs, vals) : 0;
	return *n ? samples_median(cs) : NAN;
}

/*
 * An absolute check beyond its bound in round 1 gets the later rounds,
 * minutes apart: it fails when every round has it beyond; the first
 * round that has it within passes it, as not confirmed.
 */
static void confirm_absolute(const struct check *ck,
			     const struct metric_samples *ms,
			     const struct verdict_input *in, double min,
			     double max, const char *expect,
			     struct verdict_result *r)
{
	char first[640], slow[512], reps[256];
	double vals[METRIC_MAX_REPS], v;
	size_t i, n;
	int host = 0;

	if (!in->confirm_bounds)
		return;
	/* what round 1 had, without its "FAIL " */
	snprintf(first, sizeof(first), "%.639s",
		 r->diag + (strncmp(r->diag, "FAIL ", 5) ? 0 : 5));
	for (i = 1; i < in->nrounds; i++) {
		v = round_values(ms, in, i, vals, &n);
		if (isnan(v)) {
			r->status = V_SKIP;
			snprintf(r->diag, sizeof(r->diag),
				 "%s: %s was beyond its bound in round 1 and could not be judged again: round %zu measured nothing; round 1: %s",
				 ms->entity, ck->def->name, i + 1, first);
			return;
		}
		if ((ck->has_min && v < min) || (ck->has_max && v > max))
			continue;
		verdict_format_values(vals, n, reps, sizeof(reps));
		set_value(ck, min, max, v, r);
		r->status = V_PASS;
		snprintf(r->diag, sizeof(r->diag),
			 "ok, not confirmed: %s: %s = %g %s%.200s in round %zu at +%.0f s, expected %.200s; beyond in round 1",
			 ms->entity, ck->def->name, v, ck->def->unit, reps,
			 i + 1, in->rounds[i].at_s, expect);
		if (drift_round_slower(in, 0, slow, sizeof(slow)))
			verdict_append(r->diag, sizeof(r->diag),
				       ", when the canary said the machine was slower, %s: the machine, not the kernel",
				       slow);
		verdict_append(r->diag, sizeof(r->diag), "; round 1: %s", first);
		return;
	}
	if (in->confirm && in->nrounds < VERDICT_ROUNDS &&
	    in->no_more_rounds) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s was beyond its bound in round 1 and could not be judged again: %s; round 1: %s",
			 ms->entity, ck->def->name, in->no_more_rounds, first);
		return;
	}
	if (in->confirm && in->nrounds < VERDICT_ROUNDS) {
		r->status = V_PASS;
		r->pending = 1;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s beyond its bound, to be judged again in round %zu: %s",
			 ms->entity, ck->def->name, in->nrounds + 1, first);
		return;
	}
	/* As for a baseline check (judge/baseline_check.c). */
	if (ck->def->host_timed)
		host = drift_host_slower_throughout(in, in->nrounds, slow,
						    sizeof(slow));
	if (host > 0) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s was beyond its bound in all %zu rounds, and in all of them the workload's loops ran slower on the CPU than in the baseline (round 1: %.200s): the host was slower during the run, not judged; round 1: %s",
			 ms->entity, ck->def->name, in->nrounds, slow, first);
		return;
	}
	for (i = 1; i < in->nrounds; i++) {
		v = round_values(ms, in, i, vals, &n);
		verdict_append(r->diag, sizeof(r->diag),
			       "%s round %zu at +%.0f s: %g %s",
			       i == 1 ? "; still beyond in" : " and", i + 1,
			       in->rounds[i].at_s, v, ck->def->unit);
	}
	if (in->base && in->base->canary.reps)
		drift_append_canary(in, r->diag, sizeof(r->diag));
	if (host < 0)
		drift_append_host_not_to_blame(slow, r->diag, sizeof(r->diag));
}

void judge_absolute(const struct check *ck, const struct metric_samples *ms,
		    const struct verdict_input *in, struct verdict_result *r)
{
	double v = samples_median(ms), min, max, vals[METRIC_MAX_REPS];
	size_t n = samples_measured(ms, vals), i, lead;
	char expect[320], reps[256];

	if (verdict_unusable(ck, ms, v, in, r) ||
	    other_semantics(ck, ms, in, r) ||
	    eval_bounds(ck, in, &min, &max, r))
		return;
	if (ck->has_min && ck->has_max)
		snprintf(expect, sizeof(expect), "in [%g, %g]", min, max);
	else if (ck->has_min)
		snprintf(expect, sizeof(expect), ">= %g", min);
	else
		snprintf(expect, sizeof(expect), "<= %g", max);
	if (ck->min_expr[0] || ck->max_expr[0])
		snprintf(expect + strlen(expect), sizeof(expect) - strlen(expect),
			 " (%s)", ck->min_expr[0] ? ck->min_expr : ck->max_expr);
	verdict_format_values(vals, n, reps, sizeof(reps));

	r->reps = n;
	for (i = 0; i < n; i++)
		r->beyond += (ck->has_min && vals[i] < min) ||
			     (ck->has_max && vals[i] > max);
	set_value(ck, min, max, v, r);
	r->status = r->room < 0 ? V_FAIL : V_PASS;
	lead = r->beyond > n - r->beyond ? 2 * r->beyond - n :
	       n - 2 * r->beyond;
	/* Bounded by the repetitions taken, measured or not. */
	r->undecided = in->extend && n >= VERDICT_LEAD && lead < VERDICT_LEAD &&
		       in->rounds[0].cur->reps < VERDICT_MAX_REPS;
	snprintf(r->diag, sizeof(r->diag), "%s %s: %s = %g %s%s, expected %s%s%s",
		 r->status == V_PASS ? "ok" : "FAIL", ms->entity, ck->def->name,
		 v, ck->def->unit, reps, expect, ck->why[0] ? ": " : "", ck->why);
	if (r->beyond && r->beyond < n)
		verdict_append(r->diag, sizeof(r->diag),
			       "; split: %zu of %zu repetitions beyond the bound%s",
			       r->beyond, n, lead >= VERDICT_LEAD ? "" :
			       r->undecided ? ", more repetitions follow" :
			       in->extend ? ", still split after the most repetitions a check gets: judged by their median" :
			       ", judged by their median");
	if (r->status == V_FAIL && !r->undecided)
		confirm_absolute(ck, ms, in, min, max, expect, r);
	if (r->status == V_FAIL)
		drift_append_settings(in, r->diag, sizeof(r->diag));
}
