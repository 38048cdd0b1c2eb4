// SPDX-License-Identifier: GPL-2.0
/*
 * Judging a workload's checks on its repetitions and rounds.
 *
 * The rules, and the false-alarm rate they are built for. A clean battery
 * judges about 120 absolute and 70 baseline results (21 workloads, 2-CPU
 * machine); the battery is designed to fail falsely at most once in 20
 * clean runs, so each result may fail falsely with probability at most
 * about 0.05 / 190 = 2.6e-4. A single repetition of a workload on a shared
 * VM is far from that good, hence:
 *
 * Absolute checks: each repetition votes (its value within the bound or
 * beyond it) and the check holds when the median of the repetitions lies
 * within. Repetitions are added one at a time while the votes are split
 * without a lead of VERDICT_LEAD (3 of 3, 4 to 1, 5 to 2, ...), up to
 * VERDICT_MAX_REPS (9): a sequential test that stops at an odd count, so
 * the median is a majority. With q the chance that one clean repetition
 * falls beyond the bound, a clean check fails falsely with probability
 * about q^3 + 126 q^5 (q = 0.03: 3e-5; q = 0.1: 2e-3; exactly:
 * stats_sequential_majority()). The qualification command counts q per
 * check: one whose count shows q above 0.03 is too tight for the
 * battery's rate and must be fixed (its workload, its metric or its
 * bound, for a reason written in the workload). With fewer than three
 * repetitions asked for, nothing is added, not even the rounds below:
 * each check is judged on what was asked (the breakers' runs and
 * contributors' first tries are one repetition, and must be quick).
 * Those rates hold for independent repetitions; a host that
 * drifts for a minute moves every repetition of a round together. So a
 * check beyond its bound in the first round is judged again in later
 * rounds, minutes apart, as a regression is confirmed (below): it fails
 * only when it is beyond in every one of VERDICT_ROUNDS rounds; within
 * in one, it passes saying it was not confirmed, and what the canary said
 * of round 1.
 *
 * Baseline checks: a round (the first repetitions, or a confirmation) is
 * compared with the baseline by judge/compare.h (a rank test on medians, or the
 * pooled events of a tail), each round on its own. A regression in the
 * first round is only reported when it is still there in VERDICT_ROUNDS
 * (3) rounds, each taken minutes after the one before (run/battery.c): drift
 * of the machine lasts a minute or two, a kernel regression stays. With
 * independent rounds a clean check regresses falsely in all three with
 * probability below 0.05^3 = 1.25e-4 (the rank test of 3 repetitions
 * against 5 cannot go below p = 1/56, so the usual level is 2/56: 4.7e-5).
 *
 * The canary (machine/canary.h) measures the machine before every round. When a
 * regression came and went, and the canary said the machine was slower
 * in a regressed round and no longer in the round where it was gone, the
 * check SKIPs with both sets of numbers: that was the machine. A
 * regression that did not go away FAILs whatever the canary says, with
 * the canary shown beside it: a canary can explain a regression, never
 * hide one that lasts. One that went away with the canary quiet passes,
 * saying it was not confirmed.
 *
 * The host gauge (machine/host_gauge.h) measures the host during every
 * repetition, with the workload's own loops. A time the host stretches
 * (metric_def.host_timed) that regressed, or stayed beyond its bound, in
 * every round while the gauge said the host was slower than in the
 * baseline in every round SKIPs with the gauge's numbers: a kernel gives
 * a thread CPU time, it does not slow the loops run in it. One round
 * with the host as in the baseline and the rules above decide.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/canary.h"
#include "judge/machine_drift.h"
#include "judge/bound_expr.h"
#include "machine/host_gauge.h"
#include "lib/cpu_list.h"
#include "lib/json_util.h"
#include "machine/settings_diff.h"
#include "judge/verdict.h"

/* Appends printf output to @buf, which always stays terminated. */
__printf(3, 4)
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(buf);
	va_list ap;

	if (off + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

static int selects(const struct check *ck, const struct metric_samples *ms)
{
	char id[16];

	if (ms->def != ck->def)
		return 0;
	if (ck->def->source == SRC_TRACE_CPU) {
		snprintf(id, sizeof(id), "%d", ms->id);
		return glob_match(ck->selector, id);
	}
	/*
	 * A pooled check takes a task's pooled entity, or its only thread
	 * (named after the task); the others take threads.
	 */
	if (ms->pooled ? !ck->pooled :
	    ck->pooled && strcmp(ms->entity, ms->group))
		return 0;
	return glob_match(ck->selector, ms->group) ||
	       glob_match(ck->selector, ms->entity);
}

static int push_result(struct verdict_results *out,
		       const struct verdict_result *r)
{
	struct verdict_result *nr = realloc(out->r, (out->n + 1) * sizeof(*nr));

	if (!nr)
		return -1;
	out->r = nr;
	out->r[out->n++] = *r;
	return 0;
}

/* Two checks of one metric on one entity get .2, .3... to stay unique. */
static void make_unique(const struct verdict_results *out, char *name,
			size_t len)
{
	size_t base = strlen(name), i;
	int k = 1, clash;

	do {
		clash = 0;
		for (i = 0; i < out->n; i++)
			if (!strcmp(out->r[i].name, name))
				clash = 1;
		if (clash)
			snprintf(name + base, len - base, ".%d", ++k);
	} while (clash);
}

/* " (median of 3: 12 15 13)" when there was more than one value. */
static void format_values(const double *v, size_t n, char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	if (n < 2)
		return;
	append(buf, len, " (median of %zu:", n);
	for (i = 0; i < n; i++)
		append(buf, len, " %.4g", v[i]);
	append(buf, len, ")");
}

/*
 * Whether CPU @cpu was one the run could use, by the settings it
 * recorded: online, in its affinity and in its cpuset. 1 when they do
 * not say; else 0 with the lists that leave it out in @why.
 */
static int run_had_cpu(const struct verdict_input *in, int cpu, char *why,
		       size_t len)
{
	static const char *const keys[] = {
		"cpus.online", "affinity", "cgroup.cpuset.effective_cpus",
	};
	struct json_object *v;
	size_t i;

	why[0] = '\0';
	for (i = 0; in->settings && i < ARRAY_SIZE(keys); i++) {
		if (!json_object_object_get_ex(in->settings, keys[i], &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    cpu_list_has(json_object_get_string(v), cpu))
			continue;
		append(why, len, "%s%s \"%s\"", why[0] ? ", " : "", keys[i],
		       json_object_get_string(v));
	}
	return !why[0];
}

/*
 * A CPU the run could not use, trace values of a trace that lost events,
 * or unmeasurable values.
 */
static int judge_unusable(const struct check *ck, const struct metric_samples *ms,
			  double v, const struct verdict_input *in,
			  struct verdict_result *r)
{
	char why[256];

	/* The machine's shape, not the kernel's doing: nothing to judge. */
	if (ck->def->source == SRC_TRACE_CPU &&
	    !run_had_cpu(in, ms->id, why, sizeof(why))) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s: cpu%d was not one of the run's CPUs (%s)",
			 ms->entity, ck->def->name, ms->id, why);
		return 1;
	}
	if (ck->def->source != SRC_RTAPP_TASK && in->lost_events) {
		r->status = V_ERROR;
		snprintf(r->diag, sizeof(r->diag),
			 "ERROR %s: %s: the trace lost %llu events, the value is not trustworthy",
			 ms->entity, ck->def->name, in->lost_events);
		return 1;
	}
	if (isnan(v)) {
		r->status = ck->def->unavailable ? V_SKIP : V_FAIL;
		snprintf(r->diag, sizeof(r->diag), "%s: %s: %s", ms->entity,
			 ck->def->name, ck->def->unavailable ?
			 ck->def->unavailable : "not measured (no samples)");
		return 1;
	}
	return 0;
}

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

	*min = ck->min;
	*max = ck->max;
	if ((ck->min_expr[0] && expr_eval(ck->min_expr, 0, in->settings, min,
					  why, sizeof(why))) ||
	    (ck->max_expr[0] && expr_eval(ck->max_expr, 0, in->settings, max,
					  why, sizeof(why)))) {
		r->status = V_ERROR;
		snprintf(r->diag, sizeof(r->diag), "ERROR %s: bound: %s",
			 ck->def->name, why);
		return -1;
	}
	return 0;
}

/* What differs from the baseline's settings, appended to a failure. */
static void append_settings(const struct verdict_input *in, char *buf,
			    size_t len)
{
	char diff[512];

	if (!in->base || !in->settings ||
	    !settings_diff(baseline_settings(in->base), in->settings, diff,
			   sizeof(diff)))
		return;
	append(buf, len, "; settings differ from the baseline's: %s", diff);
}

/*
 * Whether the canary of round @i says the machine was slower than when
 * the baseline was recorded (1), or not (0); its values, if any, go to
 * @buf.
 */
static int round_slower(const struct verdict_input *in, size_t i, char *buf,
			size_t len)
{
	const struct sample_set *cur = in->rounds[i].canary;

	buf[0] = '\0';
	if (!cur || !cur->reps || !in->base || !in->base->canary.reps)
		return 0;
	return canary_shifted(&in->base->canary, cur, buf, len) > 0;
}

/* The canary of every round against the baseline's, for a regression. */
static void append_canary(const struct verdict_input *in, char *buf,
			  size_t len)
{
	char what[512];
	size_t i;

	if (!in->base || !in->base->canary.reps) {
		append(buf, len, "; no canary in the baseline to compare the machine with");
		return;
	}
	for (i = 0; i < in->nrounds; i++) {
		if (!in->rounds[i].canary || !in->rounds[i].canary->reps)
			continue;
		append(buf, len, "; canary of round %zu: %s", i + 1,
		       round_slower(in, i, what, sizeof(what)) ?
		       what : "as in the baseline");
	}
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
 * Whether the workload's own loops ran slower on the CPU than in the
 * baseline in every one of the @nr rounds (machine/host_gauge.h), round 1's
 * gauge in @buf.
 */
static int host_slower_throughout(const struct verdict_input *in, size_t nr,
				  char *buf, size_t len)
{
	char what[256];
	size_t i;

	buf[0] = '\0';
	if (!in->base)
		return 0;
	for (i = 0; i < nr; i++) {
		if (!host_gauge_slower(&in->base->samples, in->rounds[i].cur,
				       what, sizeof(what)))
			return 0;
		if (!i)
			snprintf(buf, len, "%s", what);
	}
	return nr > 0;
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
	char first[640], slow[320], reps[256];
	double vals[METRIC_MAX_REPS], v;
	size_t i, n;

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
		format_values(vals, n, reps, sizeof(reps));
		set_value(ck, min, max, v, r);
		r->status = V_PASS;
		snprintf(r->diag, sizeof(r->diag),
			 "ok, not confirmed: %s: %s = %g %s%.200s in round %zu at +%.0f s, expected %.200s; beyond in round 1",
			 ms->entity, ck->def->name, v, ck->def->unit, reps,
			 i + 1, in->rounds[i].at_s, expect);
		if (round_slower(in, 0, slow, sizeof(slow)))
			append(r->diag, sizeof(r->diag),
			       ", when the canary said the machine was slower, %s: the machine, not the kernel",
			       slow);
		append(r->diag, sizeof(r->diag), "; round 1: %s", first);
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
	/* As for a baseline check (judge_baseline()). */
	if (ck->def->host_timed &&
	    host_slower_throughout(in, in->nrounds, slow, sizeof(slow))) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s was beyond its bound in all %zu rounds, and in all of them the workload's loops ran slower on the CPU than in the baseline (round 1: %.200s): the host was slower during the run, not judged; round 1: %s",
			 ms->entity, ck->def->name, in->nrounds, slow, first);
		return;
	}
	for (i = 1; i < in->nrounds; i++) {
		v = round_values(ms, in, i, vals, &n);
		append(r->diag, sizeof(r->diag), "%s round %zu at +%.0f s: %g %s",
		       i == 1 ? "; still beyond in" : " and", i + 1,
		       in->rounds[i].at_s, v, ck->def->unit);
	}
	if (in->base && in->base->canary.reps)
		append_canary(in, r->diag, sizeof(r->diag));
}

static void judge_absolute(const struct check *ck,
			   const struct metric_samples *ms,
			   const struct verdict_input *in,
			   struct verdict_result *r)
{
	double v = samples_median(ms), min, max, vals[METRIC_MAX_REPS];
	size_t n = samples_measured(ms, vals), i, lead;
	char expect[320], reps[256];

	if (judge_unusable(ck, ms, v, in, r) || other_semantics(ck, ms, in, r) ||
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
	format_values(vals, n, reps, sizeof(reps));

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
		append(r->diag, sizeof(r->diag),
		       "; split: %zu of %zu repetitions beyond the bound%s",
		       r->beyond, n, lead >= VERDICT_LEAD ? "" :
		       r->undecided ? ", more repetitions follow" :
		       in->extend ? ", still split after the most repetitions a check gets: judged by their median" :
		       ", judged by their median");
	if (r->status == V_FAIL && !r->undecided)
		confirm_absolute(ck, ms, in, min, max, expect, r);
	if (r->status == V_FAIL)
		append_settings(in, r->diag, sizeof(r->diag));
}

/* A baseline check's comparison in one round. */
struct round_change {
	struct change ch;
	struct tail_change tc;
	int tail;
	double v[METRIC_MAX_REPS];	/* the round's values (not tails) */
	size_t n;
};

/*
 * Compares round @i with the baseline. Returns 1 when the baseline has
 * nothing to compare with (the reason in @why), else 0.
 */
static int compare_round(const struct check *ck, const struct metric_samples *ms,
			 const struct verdict_input *in, size_t i,
			 struct round_change *rc, char *why, size_t len)
{
	const struct baseline *b = in->base;
	const struct verdict_round *rd = &in->rounds[i];
	double base[METRIC_MAX_REPS];
	const struct metric_samples *bs, *cs;
	char key[256];
	size_t nb;

	memset(rc, 0, sizeof(*rc));
	rc->tail = ck->def->tail != TAIL_NONE;
	if (rc->tail) {
		const struct event_samples *be, *ce;

		be = event_set_find(&b->events, ms->def->source, ms->entity,
				    ck->def->series);
		ce = rd->events ? event_set_find(rd->events, ms->def->source,
						 ms->entity, ck->def->series) :
		     NULL;
		if (!be) {
			snprintf(why, len,
				 "%s: %s: the baseline has no events of series %s (recorded before tails were judged on events): record it again",
				 ms->entity, ck->def->name, ck->def->series);
			return 1;
		}
		if (!ce) {
			rc->ch.kind = CHANGE_UNKNOWN;
			return 0;
		}
		compare_tail(be, ce, ck->def, &ck->rule, &rc->ch, &rc->tc);
		return 0;
	}
	samples_key(ms, key, sizeof(key));
	bs = sample_set_find(&b->samples, key);
	nb = bs ? samples_measured(bs, base) : 0;
	if (!nb) {
		snprintf(why, len,
			 "%s: %s: the baseline has no value for it: record it again",
			 ms->entity, ck->def->name);
		return 1;
	}
	cs = sample_set_find(rd->cur, key);
	rc->n = cs ? samples_measured(cs, rc->v) : 0;
	compare_samples(base, nb, rc->v, rc->n, &ck->rule, &rc->ch);
	return 0;
}

static const char *direction(const struct check *ck)
{
	return ck->rule.better < 0 ? "lower is better" : "higher is better";
}

/*
 * The detectable effect of @ck on the entity of @ms against @b, in rounds
 * of @reps repetitions; -1 when the baseline has nothing for it.
 */
static int detect_one(const struct check *ck, const struct metric_samples *ms,
		      const struct baseline *b, size_t reps, int rounds,
		      struct detectable *d)
{
	double base[METRIC_MAX_REPS];
	const struct metric_samples *bs;
	const struct event_samples *be;
	char key[256];
	size_t nb;

	if (ck->def->tail != TAIL_NONE) {
		be = event_set_find(&b->events, ms->def->source, ms->entity,
				    ck->def->series);
		return be ? detectable_tail(be, ck->def, &ck->rule, reps,
					    rounds, d) : -1;
	}
	samples_key(ms, key, sizeof(key));
	bs = sample_set_find(&b->samples, key);
	nb = bs ? samples_measured(bs, base) : 0;
	return nb ? detectable_samples(base, nb, &ck->rule, reps, rounds, d) :
	       -1;
}

/* The first round's comparison, the way every baseline result starts. */
static void describe_first(const struct check *ck,
			   const struct metric_samples *ms,
			   const struct round_change *rc, size_t nb,
			   char *buf, size_t len)
{
	const struct change *ch = &rc->ch;
	const struct tail_change *tc = &rc->tc;
	char reps[256];

	if (!rc->tail) {
		format_values(rc->v, rc->n, reps, sizeof(reps));
		snprintf(buf, len,
			 "%s: %s = %g %s%s vs baseline %g (median of %zu): %+.1f%%, p=%.3g%s; %s, counts beyond max(%g%%, %g %s)",
			 ms->entity, ck->def->name, ch->b_median, ck->def->unit,
			 reps, ch->a_median, nb, isnan(ch->ratio) ? 0 : 100 * ch->ratio,
			 ch->p, ch->separate ? ", ranges apart" : "",
			 direction(ck), 100 * ck->rule.rel, ck->rule.abs,
			 ck->def->unit);
		return;
	}
	if (ck->def->tail == TAIL_NEGATIVE)
		snprintf(buf, len,
			 "%s: %s: %.3g%% of %llu events pooled from %zu repetitions overran vs %.3g%% of %llu in the baseline (%zu): dispersion %.2g, p=%.3g; %s, counts beyond max(%g%%, %g %s)",
			 ms->entity, ck->def->name, 100 * ch->b_median,
			 (unsigned long long)tc->nc, ch->nb, 100 * ch->a_median,
			 (unsigned long long)tc->nb, ch->na, tc->dispersion, ch->p,
			 direction(ck), 100 * ck->rule.rel, ck->rule.abs,
			 ck->def->unit);
	else
		snprintf(buf, len,
			 "%s: %s = %g %s pooled from %llu events of %zu repetitions vs baseline %g (%llu events of %zu): %llu now and %llu before beyond %g %s, dispersion %.2g, p=%.3g; %s, counts beyond max(%g%%, %g %s)",
			 ms->entity, ck->def->name, ch->b_median, ck->def->unit,
			 (unsigned long long)tc->nc, ch->nb, ch->a_median,
			 (unsigned long long)tc->nb, ch->na,
			 (unsigned long long)tc->kc, (unsigned long long)tc->kb,
			 tc->t, ck->def->unit, tc->dispersion, ch->p,
			 direction(ck), 100 * ck->rule.rel, ck->rule.abs,
			 ck->def->unit);
}

/* A later round, briefly: "round 2 at +214 s: 98 us, +263%, p=0.018". */
static void describe_round(const struct check *ck, const struct verdict_input *in,
			   size_t i, const struct round_change *rc, char *buf,
			   size_t len)
{
	const struct change *ch = &rc->ch;

	append(buf, len, "round %zu at +%.0f s: ", i + 1, in->rounds[i].at_s);
	if (ch->kind == CHANGE_UNKNOWN || ch->kind == CHANGE_TOO_FEW) {
		append(buf, len, "not measured");
		return;
	}
	if (ck->def->tail == TAIL_NEGATIVE)
		append(buf, len, "%.3g%% overran", 100 * ch->b_median);
	else
		append(buf, len, "%g %s", ch->b_median, ck->def->unit);
	append(buf, len, ", %+.1f%%, p=%.3g", isnan(ch->ratio) ? 0 :
	       100 * ch->ratio, ch->p);
}

/*
 * Whether the canary of every one of the @nr rounds ran its loops slower
 * than the baseline's (1), the CPU's values of the first in @buf.
 */
static int cpu_slower_throughout(const struct verdict_input *in, size_t nr,
				 char *buf, size_t len)
{
	char what[512];
	size_t i;

	buf[0] = '\0';
	if (!in->base || !in->base->canary.reps)
		return 0;
	for (i = 0; i < nr; i++) {
		if (!in->rounds[i].canary || !in->rounds[i].canary->reps ||
		    canary_cpu_slower(&in->base->canary, in->rounds[i].canary,
				      what, sizeof(what)) <= 0)
			return 0;
		if (!i)
			snprintf(buf, len, "%s", what);
	}
	return nr > 0;
}

static void judge_baseline(const struct check *ck,
			   const struct metric_samples *ms,
			   const struct verdict_input *in,
			   struct verdict_result *r)
{
	struct round_change rc[VERDICT_ROUNDS];
	char first[1024], slow[512], back[512], sees[256];
	size_t i, nr = in->nrounds, nb = 0, clean = 0;
	double base[METRIC_MAX_REPS];
	const struct metric_samples *bs;
	char key[256];

	if (judge_unusable(ck, ms, samples_median(ms), in, r))
		return;
	if (!in->base) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag), "%s", in->no_base);
		return;
	}
	if (nr > VERDICT_ROUNDS)
		nr = VERDICT_ROUNDS;
	for (i = 0; i < nr; i++) {
		if (compare_round(ck, ms, in, i, &rc[i], r->diag,
				  sizeof(r->diag))) {
			r->status = V_SKIP;
			return;
		}
	}
	if (rc[0].ch.kind == CHANGE_TOO_FEW) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s: too few events to judge a tail: %llu now and %llu in the baseline, %llu a side needed",
			 ms->entity, ck->def->name,
			 (unsigned long long)rc[0].tc.nc,
			 (unsigned long long)rc[0].tc.nb,
			 (unsigned long long)rc[0].tc.need);
		return;
	}
	samples_key(ms, key, sizeof(key));
	bs = sample_set_find(&in->base->samples, key);
	if (bs)
		nb = samples_measured(bs, base);
	describe_first(ck, ms, &rc[0], nb, first, sizeof(first));
	r->has_detect = !detect_one(ck, ms, in->base, rc[0].ch.nb,
				    in->confirm ? VERDICT_ROUNDS : 1,
				    &r->detect);
	if (r->has_detect) {
		detectable_describe(&r->detect, ck->def->unit, sees,
				    sizeof(sees));
		append(first, sizeof(first), "; detects %s", sees);
	}

	r->change = rc[0].ch.kind;
	r->value = rc[0].ch.b_median;
	r->limit = rc[0].tail ? rc[0].tc.t : rc[0].ch.a_median -
		   ck->rule.better * fmax(ck->rule.rel * fabs(rc[0].ch.a_median),
					  ck->rule.abs);
	r->room = ck->rule.better * (r->value - r->limit);
	if (rc[0].tail && ck->def->tail == TAIL_NEGATIVE)
		r->room = NAN;	/* a share has no limit of its own */

	if (r->change != CHANGE_REGRESSION) {
		r->status = V_PASS;
		snprintf(r->diag, sizeof(r->diag), "%s %s",
			 r->change == CHANGE_IMPROVEMENT ? "improved" : "ok", first);
		goto why;
	}
	for (i = 1; i < nr && !clean; i++)
		if (rc[i].ch.kind != CHANGE_REGRESSION)
			clean = i;
	if (!clean && in->confirm && nr < VERDICT_ROUNDS &&
	    in->no_more_rounds) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s regressed and could not be confirmed: %s; first round: %s",
			 ms->entity, ck->def->name, in->no_more_rounds, first);
		return;
	}
	if (!clean && in->confirm && nr < VERDICT_ROUNDS) {
		r->status = V_PASS;
		r->pending = 1;
		snprintf(r->diag, sizeof(r->diag),
			 "regressed, to be confirmed by round %zu: %s", nr + 1,
			 first);
		goto why;
	}
	/*
	 * Work per us drops with the host's CPU speed: when the canary's
	 * loops were slower in every round too, the rounds cannot tell the
	 * kernel from the host (a kernel does not slow a FIFO thread alone
	 * on its CPU).
	 */
	if (!clean && ck->def->cpu_speed &&
	    cpu_slower_throughout(in, nr, slow, sizeof(slow))) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s regressed in all %zu rounds, and in all of them the canary's loops ran slower than in the baseline's (round 1: %s): the host's CPU was slower, not judged; first round: %s",
			 ms->entity, ck->def->name, nr, slow, first);
		return;
	}
	/*
	 * A time stretched in every round while the workload's loops ran
	 * slower on the CPU in every round: a kernel gives a thread its CPU
	 * time, it does not slow the loops run in it; the host does both.
	 */
	if (!clean && ck->def->host_timed &&
	    host_slower_throughout(in, nr, slow, sizeof(slow))) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s regressed in all %zu rounds, and in all of them the workload's loops ran slower on the CPU than in the baseline (round 1: %s): the host was slower during the run, not judged; first round: %s",
			 ms->entity, ck->def->name, nr, slow, first);
		return;
	}
	if (!clean) {
		r->status = V_FAIL;
		snprintf(r->diag, sizeof(r->diag), "REGRESSION %s", first);
		for (i = 1; i < nr; i++) {
			append(r->diag, sizeof(r->diag), i == 1 ?
			       "; still there in " : " and ");
			describe_round(ck, in, i, &rc[i], r->diag,
				       sizeof(r->diag));
		}
		append_canary(in, r->diag, sizeof(r->diag));
		append_settings(in, r->diag, sizeof(r->diag));
		goto why;
	}
	if (rc[clean].ch.kind == CHANGE_UNKNOWN ||
	    rc[clean].ch.kind == CHANGE_TOO_FEW) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s regressed and could not be confirmed: round %zu measured nothing; first round: %s",
			 ms->entity, ck->def->name, clean + 1, first);
		return;
	}
	/* It went away: with the machine, or as noise. */
	for (i = 0; i < clean; i++)
		if (round_slower(in, i, slow, sizeof(slow)))
			break;
	if (i < clean && !round_slower(in, clean, back, sizeof(back))) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s regressed while the canary said the machine was slower (round %zu: %s), and was gone in ",
			 ms->entity, ck->def->name, i + 1, slow);
		describe_round(ck, in, clean, &rc[clean], r->diag,
			       sizeof(r->diag));
		append(r->diag, sizeof(r->diag),
		       " with the canary back as in the baseline: machine drift, not the kernel; first round: %s",
		       first);
		return;
	}
	r->status = V_PASS;
	snprintf(r->diag, sizeof(r->diag), "ok, not confirmed: %s; gone in ",
		 first);
	describe_round(ck, in, clean, &rc[clean], r->diag, sizeof(r->diag));
why:
	if (ck->why[0])
		append(r->diag, sizeof(r->diag), ": %s", ck->why);
}

static int evaluate_check(const struct check *ck, const struct verdict_input *in,
			  struct verdict_results *out)
{
	const char *suffix = ck->kind == CHECK_BASELINE ? ".vs-baseline" : "";
	const struct sample_set *cur = in->rounds[0].cur;
	struct verdict_result r;
	int matched = 0;
	size_t i;

	for (i = 0; i < cur->n; i++) {
		if (!selects(ck, &cur->s[i]))
			continue;
		matched++;
		memset(&r, 0, sizeof(r));
		r.kind = ck->kind;
		r.def = ck->def;
		r.value = r.limit = r.room = NAN;
		snprintf(r.name, sizeof(r.name), "%s.%s.%s%s", in->prefix,
			 cur->s[i].entity, ck->def->name, suffix);
		make_unique(out, r.name, sizeof(r.name));
		if (ck->kind == CHECK_ABSOLUTE)
			judge_absolute(ck, &cur->s[i], in, &r);
		else
			judge_baseline(ck, &cur->s[i], in, &r);
		if (push_result(out, &r))
			return -1;
	}
	/* Not traced (analyze of logs alone): nothing for it to judge. */
	if (matched || ck->implicit)
		return 0;
	memset(&r, 0, sizeof(r));
	r.kind = ck->kind;
	r.def = ck->def;
	r.value = r.limit = r.room = NAN;
	r.status = V_FAIL;
	snprintf(r.name, sizeof(r.name), "%s.%s.%s%s", in->prefix, ck->selector,
		 ck->def->name, suffix);
	make_unique(out, r.name, sizeof(r.name));
	snprintf(r.diag, sizeof(r.diag),
		 "FAIL %s: selector \"%s\" matched nothing measured on %s",
		 ck->def->name, ck->selector, metric_source_name(ck->def->source));
	return push_result(out, &r);
}

int verdict_evaluate(const struct verdict_block *vb,
		     const struct verdict_input *in,
		     struct verdict_results *out)
{
	size_t c;

	memset(out, 0, sizeof(*out));
	if (!in->nrounds)
		return -1;
	for (c = 0; c < vb->n; c++)
		if (evaluate_check(&vb->checks[c], in, out))
			return -1;
	return 0;
}

int verdict_detectable(const struct verdict_block *vb,
		       const struct baseline *base, const char *prefix,
		       size_t reps, int rounds, struct verdict_results *out)
{
	const struct metric_samples *ms;
	const struct check *ck;
	struct verdict_result r;
	size_t c, i;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < vb->n; c++) {
		ck = &vb->checks[c];
		for (i = 0; ck->kind == CHECK_BASELINE &&
		     i < base->samples.n; i++) {
			ms = &base->samples.s[i];
			if (!selects(ck, ms))
				continue;
			memset(&r, 0, sizeof(r));
			r.kind = ck->kind;
			r.def = ck->def;
			r.value = r.limit = r.room = NAN;
			snprintf(r.name, sizeof(r.name), "%s.%s.%s.vs-baseline",
				 prefix, ms->entity, ck->def->name);
			make_unique(out, r.name, sizeof(r.name));
			r.has_detect = !detect_one(ck, ms, base, reps, rounds,
						   &r.detect);
			r.status = r.has_detect ? V_PASS : V_SKIP;
			if (r.has_detect)
				detectable_describe(&r.detect, ck->def->unit,
						    r.diag, sizeof(r.diag));
			else if (ck->def->tail != TAIL_NONE)
				snprintf(r.diag, sizeof(r.diag),
					 "the baseline has no events of series %s (recorded before tails were judged on events)",
					 ck->def->series);
			else
				snprintf(r.diag, sizeof(r.diag),
					 "the baseline has no value for it");
			if (push_result(out, &r))
				return -1;
		}
	}
	return 0;
}

size_t verdict_regressions(const struct verdict_results *res)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += res->r[i].change == CHANGE_REGRESSION;
	return n;
}

size_t verdict_pending(const struct verdict_results *res)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += res->r[i].pending;
	return n;
}

size_t verdict_undecided(const struct verdict_results *res)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += res->r[i].undecided;
	return n;
}

void verdict_results_free(struct verdict_results *res)
{
	free(res->r);
	memset(res, 0, sizeof(*res));
}

enum verdict_status verdict_overall(const struct verdict_results *res)
{
	enum verdict_status st = V_SKIP;
	size_t i;

	for (i = 0; i < res->n; i++) {
		if (res->r[i].status == V_FAIL || res->r[i].status == V_ERROR)
			return V_FAIL;
		if (res->r[i].status == V_PASS)
			st = V_PASS;
	}
	return st;
}

const char *verdict_status_name(enum verdict_status st)
{
	static const char *const names[] = { "pass", "fail", "skip", "error" };

	return names[st];
}

static struct json_object *detectable_json(const struct detectable *d,
					   const char *unit)
{
	struct json_object *o = json_object_new_object();
	char text[256];

	detectable_describe(d, unit, text, sizeof(text));
	json_object_object_add(o, "baseline", json_new_number(d->baseline));
	json_object_object_add(o, "matters", json_new_number(d->matters));
	json_object_object_add(o, "effect", json_new_number(d->effect));
	json_object_object_add(o, "ratio", json_new_number(d->ratio));
	json_object_object_add(o, "cannot", json_object_new_boolean(d->cannot));
	json_object_object_add(o, "text", json_object_new_string(text));
	return o;
}

int verdict_results_write_json(const struct verdict_results *res, FILE *f)
{
	struct json_object *arr = json_object_new_array();
	size_t i;
	int ret = 0;

	if (!arr)
		return -1;
	for (i = 0; i < res->n; i++) {
		const struct verdict_result *r = &res->r[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(r->name));
		json_object_object_add(o, "status",
				       json_object_new_string(verdict_status_name(r->status)));
		json_object_object_add(o, "kind", json_object_new_string(
				       r->kind == CHECK_ABSOLUTE ? "absolute" :
				       "baseline"));
		if (r->def) {
			json_object_object_add(o, "metric",
					       json_object_new_string(r->def->name));
			json_object_object_add(o, "unit",
					       json_object_new_string(r->def->unit));
		}
		json_object_object_add(o, "value", json_new_number(r->value));
		json_object_object_add(o, "limit", json_new_number(r->limit));
		json_object_object_add(o, "room", json_new_number(r->room));
		if (r->kind == CHECK_ABSOLUTE && r->reps) {
			json_object_object_add(o, "reps",
					       json_object_new_int64(r->reps));
			json_object_object_add(o, "beyond",
					       json_object_new_int64(r->beyond));
		}
		if (r->kind == CHECK_BASELINE)
			json_object_object_add(o, "change", json_object_new_string(
					       change_kind_name(r->change)));
		if (r->has_detect)
			json_object_object_add(o, "detectable",
					       detectable_json(&r->detect,
							       r->def->unit));
		json_object_object_add(o, "diag", json_object_new_string(r->diag));
		json_object_array_add(arr, o);
	}
	if (fprintf(f, "%s\n", json_object_to_json_string_ext(arr,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -1;
	json_object_put(arr);
	return ret;
}
