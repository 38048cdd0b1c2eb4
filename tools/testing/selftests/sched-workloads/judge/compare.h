/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deciding whether a metric changed between two sets of repetitions
 * (baseline vs now, kernel A vs kernel B).
 *
 * A change counts when it is both large enough to matter (beyond the
 * larger of the relative and absolute thresholds the workload declares)
 * and unlikely to be noise:
 *  - for most metrics, a one-sided Mann-Whitney U test, p <= 0.05, on
 *    the repetitions (medians of stable metrics are compared, never one
 *    run's value); "<=" because 3 runs against 3 that separate completely
 *    give exactly p = 1/20;
 *  - for a tail metric (p99, max, ...), which one run's noise can move by
 *    10x: compare_tail() below, on every event of every repetition; or,
 *    where no events were kept (compare of old result directories),
 *    every repetition beyond the other side's whole range (rule.tail).
 */
#ifndef SW_CHANGE_H
#define SW_CHANGE_H

#include <stdint.h>
#include <stddef.h>
#include "lib/event_hist.h"
#include "lib/metric.h"

#define COMPARE_ALPHA 0.05

enum change_kind {
	CHANGE_NONE,		/* within noise or below the threshold */
	CHANGE_REGRESSION,
	CHANGE_IMPROVEMENT,
	CHANGE_CHANGED,		/* significant, but no direction declared */
	CHANGE_UNKNOWN,		/* no values on one side */
	CHANGE_TOO_FEW,		/* a tail with too few events to judge */
};

struct compare_rule {
	int better;		/* -1: lower is better, +1: higher, 0: neither */
	double rel;		/* smallest relative change that matters */
	double abs;		/* smallest absolute change that matters */
	int tail;		/* judge by ranges, not by a rank test */
};

struct change {
	enum change_kind kind;
	double a_median, b_median;
	double delta;		/* b - a */
	double ratio;		/* delta / |a_median|, NAN when a is 0 */
	double p;		/* one-sided p in the direction of delta */
	int separate;		/* every b beyond every a */
	int significant;
	size_t na, nb;
};

/* @a: the reference (baseline, kernel A); @b: the values judged. */
void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     const struct compare_rule *rule, struct change *out);

/*
 * Tails on the events. A tail metric (metric_def.tail) is judged on
 * every event of every repetition pooled, each side apart:
 *  - the threshold t: the baseline's pooled q-quantile moved in the bad
 *    direction by the smallest change that matters, max(rel * |Q|, abs)
 *    (for overrun shares t is 0: an event is an overrun);
 *  - the change counts when the current pooled q-quantile lies beyond t
 *    (for shares: the current share exceeds the baseline's by the
 *    smallest change that matters, abs converted to a share for a
 *    count) and more events lie beyond t now than before by a one-sided
 *    Fisher exact test, p <= COMPARE_TAIL_ALPHA;
 *  - events of one repetition are not independent (a disturbed second
 *    puts many of them in the tail together), so both sides' counts are
 *    divided by the dispersion the repetitions show (Pearson chi2 / df
 *    of the per-repetition counts, each side around its own share, at
 *    the baseline's q-quantile (overruns: at 0), at least 1) before the
 *    test: a Rao-Scott design-effect correction;
 *  - a quantile needs COMPARE_TAIL_MIN_EVENTS events beyond it to be
 *    estimated at all: a side with fewer than that / (1 - q) events (a
 *    p99: 1000; p999: 10000) gives CHANGE_TOO_FEW. max and min have no
 *    such floor: the test itself needs several events beyond the
 *    baseline's extreme before it can become significant.
 * Only the bad direction is tested (rule.better must point away from
 * the tail: lower for TAIL_HIGH and TAIL_NEGATIVE, higher for TAIL_LOW).
 */
#define COMPARE_TAIL_ALPHA	0.05
#define COMPARE_TAIL_MIN_EVENTS	10

struct tail_change {
	double t;		/* the threshold */
	uint64_t kb, nb;	/* baseline: events beyond t, events */
	uint64_t kc, nc;	/* current */
	double dispersion;
	uint64_t need;		/* events a side needs (CHANGE_TOO_FEW) */
};

void compare_tail(const struct event_samples *base,
		  const struct event_samples *cur,
		  const struct metric_def *def, const struct compare_rule *rule,
		  struct change *out, struct tail_change *tc);
/*
 * The test of compare_tail() on counts: @kb of @nb baseline events
 * beyond t against @kc of @nc current ones, both divided by
 * @dispersion. Returns the one-sided p of more beyond now.
 */
double compare_tail_p(uint64_t kb, uint64_t nb, uint64_t kc, uint64_t nc,
		      double dispersion);
const char *change_kind_name(enum change_kind kind);

#endif /* SW_CHANGE_H */
