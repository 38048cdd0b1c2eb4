/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The detectable effect of a baseline check: the smallest change in its
 * bad direction that the check fails on with probability DETECT_POWER,
 * given the baseline's own spread, the repetitions of a round and the
 * rule (judge/compare.h, a regression confirmed in every round by
 * judge/baseline_check.c), at the false-alarm rate that rule is built
 * for.
 *
 * A change is modelled as a shift: every repetition (for a tail, every
 * event) moved by the same amount in the bad direction; for an overrun
 * share, that share of every repetition's passes turned into overruns.
 *  - A check on repetitions: DETECT_DRAWS what-if runs. Five
 *    repetitions tell where clean ones center and how they spread only
 *    roughly, so each run first draws its machine: a spread from the
 *    baseline's standard deviation and a chi-square draw, a center from
 *    the baseline's median and that spread's standard error; then its
 *    rounds, normal around that center. Every round is judged by
 *    compare_samples() against the baseline's own repetitions, and the
 *    run fails when all of them regress. The same draws serve every
 *    shift, so the share detected only grows with it.
 *  - An overrun share: the same on each repetition's share of
 *    overruns (its spread at least what counting alone gives), the
 *    rounds' counts judged by compare_tail_p() and the share's threshold,
 *    as compare_tail() judges them.
 *  - A tail quantile: DETECT_TAIL_RUNS what-if runs, each drawing its
 *    machine as the baseline's repetitions drawn again with replacement
 *    (a bootstrap), then its rounds as that machine's repetitions, each
 *    with its events shifted, judged by compare_tail() against the
 *    baseline; the run fails when all its rounds regress.
 * The effect is the smallest shift detected in DETECT_POWER of the
 * runs, found by bisection. On held-out repetitions of a qualification
 * (tests/test_detectable.py) the stated effect was detected in 52-98%
 * of runs, 71% on average; models that took the baseline as it is (its
 * median and spread, or its repetitions drawn again for every round)
 * gave 46-80%: they ignored how little five repetitions say.
 *
 * The workload declares the smallest change that matters,
 * max(rel * |baseline|, abs). The threshold puts every detectable effect
 * above it (a change just beyond it is seen in half the rounds); the
 * spread of the repetitions adds the rest. A check whose detectable
 * effect is more than DETECT_CANNOT times that change cannot do its
 * job: the spread adds more than the threshold itself, and changes that
 * matter go unseen more often than not. Results are kept for the
 * process (a workload is judged again after every round), keyed by
 * everything they depend on.
 */
#ifndef SW_DETECTABLE_H
#define SW_DETECTABLE_H

#include <stddef.h>
#include "judge/compare.h"
#include "lib/event_hist.h"
#include "lib/metric.h"

#define DETECT_POWER	0.8
#define DETECT_DRAWS	1000
#define DETECT_CANNOT	2

struct detectable {
	double baseline;	/* median, pooled quantile or overrun share */
	double matters;		/* the smallest change that matters */
	double effect;		/* detected with DETECT_POWER; INFINITY: never */
	double ratio;		/* effect / |baseline|; NAN when that is 0 */
	int cannot;		/* effect > DETECT_CANNOT * matters */
};

/*
 * For a median check with baseline repetitions @base[@nb], rounds of
 * @reps repetitions, @rounds of them. Returns 0, or -1 when there is no
 * baseline value or memory.
 */
int detectable_samples(const double *base, size_t nb,
		       const struct compare_rule *rule, size_t reps,
		       int rounds, struct detectable *out);
/* The same for a tail check on the baseline's events @base. */
int detectable_tail(const struct event_samples *base,
		    const struct metric_def *def,
		    const struct compare_rule *rule, size_t reps, int rounds,
		    struct detectable *out);
/*
 * "a change of 4.1 us (12%) in 80% of runs", and for a check that cannot
 * do its job, why; "no change, however large, ..." when none is.
 */
void detectable_describe(const struct detectable *d, const char *unit,
			 char *buf, size_t len);

#endif /* SW_DETECTABLE_H */
