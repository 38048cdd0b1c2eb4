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
 *    10x, every repetition must fall beyond the other side's whole range.
 */
#ifndef SW_COMPARE_H
#define SW_COMPARE_H

#include <stddef.h>

#define COMPARE_ALPHA 0.05

enum change_kind {
	CHANGE_NONE,		/* within noise or below the threshold */
	CHANGE_REGRESSION,
	CHANGE_IMPROVEMENT,
	CHANGE_CHANGED,		/* significant, but no direction declared */
	CHANGE_UNKNOWN,		/* no values on one side */
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
const char *change_kind_name(enum change_kind kind);

#endif /* SW_COMPARE_H */
