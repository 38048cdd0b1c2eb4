// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline checks, the decision: what the rounds came to against the
 * baseline, and the values the verdict rests on.
 *
 * How a verdict is decided: Documentation/dev-tools/sched-workloads/verdicts.rst
 */
#include <math.h>
#include <string.h>

#include "judge/baseline_check.h"
#include "judge/round_drift.h"

/*
 * Compares round @i with the baseline. Returns 0, or the outcome when
 * the baseline has nothing to compare with.
 */
static enum baseline_outcome compare_round(const struct check *ck,
					   const struct metric_samples *ms,
					   const struct verdict_input *in,
					   size_t i, struct round_change *rc)
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
		if (!be)
			return BASELINE_NO_EVENTS;
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
	if (!nb)
		return BASELINE_NO_VALUE;
	cs = sample_set_find(rd->cur, key);
	rc->n = cs ? samples_measured(cs, rc->v) : 0;
	compare_samples(base, nb, rc->v, rc->n, &ck->rule, &rc->ch);
	return 0;
}

int baseline_detectable(const struct check *ck, const struct metric_samples *ms,
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

/* The first round's change, its limit and room, and what it detects. */
static void first_round(const struct check *ck, const struct metric_samples *ms,
			const struct verdict_input *in,
			struct baseline_decision *d, struct verdict_result *r)
{
	const struct round_change *rc = &d->rc[0];
	double base[METRIC_MAX_REPS];
	const struct metric_samples *bs;
	char key[256];

	samples_key(ms, key, sizeof(key));
	bs = sample_set_find(&in->base->samples, key);
	if (bs)
		d->nb = samples_measured(bs, base);
	r->has_detect = !baseline_detectable(ck, ms, in->base, rc->ch.nb,
					     in->confirm ? VERDICT_ROUNDS : 1,
					     &r->detect);
	r->change = rc->ch.kind;
	r->value = rc->ch.b_median;
	r->limit = rc->tail ? rc->tc.t : rc->ch.a_median -
		   ck->rule.better * fmax(ck->rule.rel * fabs(rc->ch.a_median),
					  ck->rule.abs);
	r->room = ck->rule.better * (r->value - r->limit);
	if (rc->tail && ck->def->tail == TAIL_NEGATIVE)
		r->room = NAN;	/* a share has no limit of its own */
}

/*
 * A regression in the first round is reported when it lasts
 * VERDICT_ROUNDS rounds, unless the machine was slower in all of them;
 * one that went away was the machine when the canary went with it.
 */
static enum baseline_outcome decide(const struct check *ck,
				    const struct metric_samples *ms,
				    const struct verdict_input *in,
				    struct baseline_decision *d,
				    struct verdict_result *r)
{
	enum baseline_outcome missing;
	char back[512];
	size_t i;
	int host;

	d->unusable = unusable_value(ck, ms, samples_median(ms), in, d->why,
				     sizeof(d->why));
	if (d->unusable != USABLE)
		return BASELINE_UNUSABLE;
	if (!in->base)
		return BASELINE_NONE;
	d->nr = in->nrounds < VERDICT_ROUNDS ? in->nrounds : VERDICT_ROUNDS;
	for (i = 0; i < d->nr; i++) {
		missing = compare_round(ck, ms, in, i, &d->rc[i]);
		if (missing)
			return missing;
	}
	if (d->rc[0].ch.kind == CHANGE_TOO_FEW)
		return BASELINE_TOO_FEW;
	first_round(ck, ms, in, d, r);
	if (r->change != CHANGE_REGRESSION)
		return BASELINE_WITHIN;
	for (i = 1; i < d->nr && !d->clean; i++)
		if (d->rc[i].ch.kind != CHANGE_REGRESSION)
			d->clean = i;
	if (!d->clean && in->confirm && d->nr < VERDICT_ROUNDS)
		return in->no_more_rounds ? BASELINE_UNCONFIRMABLE :
		       BASELINE_TO_CONFIRM;
	if (!d->clean) {
		/*
		 * Work per us drops with the host's CPU speed: when the
		 * canary's loops were slower in every round too, the rounds
		 * cannot tell the kernel from the host (a kernel does not
		 * slow a FIFO thread alone on its CPU).
		 */
		if (ck->def->cpu_speed &&
		    drift_cpu_slower_throughout(in, d->nr, d->slow,
						sizeof(d->slow)))
			return BASELINE_CPU_SLOWER;
		/*
		 * A time stretched in every round while the workload's loops
		 * ran slower on the CPU in every round: a kernel gives a
		 * thread its CPU time, it does not slow the loops run in it;
		 * the host does both. Unless the threads had less CPU time
		 * too: the host does not take it away.
		 */
		host = ck->def->host_timed ?
		       drift_host_slower_throughout(in, d->nr, d->slow,
						    sizeof(d->slow)) : 0;
		if (host > 0)
			return BASELINE_HOST_SLOWER;
		d->host_not_to_blame = host < 0;
		return BASELINE_REGRESSION;
	}
	if (d->rc[d->clean].ch.kind == CHANGE_UNKNOWN ||
	    d->rc[d->clean].ch.kind == CHANGE_TOO_FEW)
		return BASELINE_GONE_UNMEASURED;
	/* It went away: with the machine, or as noise. */
	for (i = 0; i < d->clean; i++)
		if (drift_round_slower(in, i, d->slow, sizeof(d->slow)))
			break;
	d->slow_round = i;
	if (i < d->clean && !drift_round_slower(in, d->clean, back,
						sizeof(back)))
		return BASELINE_DRIFT;
	return BASELINE_NOT_CONFIRMED;
}

static enum verdict_status outcome_status(const struct check *ck,
					  const struct baseline_decision *d)
{
	switch (d->outcome) {
	case BASELINE_UNUSABLE:
		return unusable_status(ck, d->unusable);
	case BASELINE_WITHIN:
	case BASELINE_TO_CONFIRM:
	case BASELINE_NOT_CONFIRMED:
		return V_PASS;
	case BASELINE_REGRESSION:
		return V_FAIL;
	case BASELINE_NONE:
	case BASELINE_NO_EVENTS:
	case BASELINE_NO_VALUE:
	case BASELINE_TOO_FEW:
	case BASELINE_UNCONFIRMABLE:
	case BASELINE_CPU_SLOWER:
	case BASELINE_HOST_SLOWER:
	case BASELINE_GONE_UNMEASURED:
	case BASELINE_DRIFT:
		break;
	}
	return V_SKIP;
}

void baseline_decide(const struct check *ck, const struct metric_samples *ms,
		     const struct verdict_input *in, struct baseline_decision *d,
		     struct verdict_result *r)
{
	memset(d, 0, sizeof(*d));
	d->outcome = decide(ck, ms, in, d, r);
	r->status = outcome_status(ck, d);
	r->pending = d->outcome == BASELINE_TO_CONFIRM;
}
