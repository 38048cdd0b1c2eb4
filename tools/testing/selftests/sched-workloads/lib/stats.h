/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growable series of samples and the statistics verdicts use.
 *
 * Percentiles use the nearest-rank definition: the p-th percentile of N
 * sorted samples is sample number ceil(p / 100 * N) (1-based), so it is
 * always a value that was observed and easy to work out by hand.
 */
#ifndef SW_STATS_H
#define SW_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Up to SERIES_EXACT_MAX samples are kept as they are; from the next one
 * on, a series keeps a log histogram instead (SERIES_BINS_PER_OCTAVE bins
 * per doubling of |v|, from 2^SERIES_MIN_EXP to 2^SERIES_MAX_EXP, one bin
 * for smaller values), so that a long trace does not need memory in
 * proportion to its events. Count, sum, mean, minimum, maximum and the
 * share of negative samples stay exact; a percentile is then the middle
 * of its sample's bin, within 0.4% of it.
 */
#define SERIES_EXACT_MAX	16384
#define SERIES_BINS_PER_OCTAVE	128
#define SERIES_MIN_EXP		(-10)
#define SERIES_MAX_EXP		40
#define SERIES_HALF	((SERIES_MAX_EXP - SERIES_MIN_EXP) * SERIES_BINS_PER_OCTAVE)
#define SERIES_NBINS	(2 * SERIES_HALF + 1)

struct series {
	double *v;		/* the samples while exact */
	size_t n;		/* samples added */
	size_t cap;
	int sorted;
	uint32_t *bins;		/* SERIES_NBINS once past SERIES_EXACT_MAX */
	double sum, min, max;
	size_t neg;
};

enum series_stat {
	STAT_COUNT,
	STAT_MIN,
	STAT_MAX,
	STAT_MEAN,
	STAT_SUM,
	STAT_P1,
	STAT_P10,
	STAT_P50,
	STAT_P90,
	STAT_P99,
	STAT_P999,
	STAT_NEG_SHARE,		/* share of samples < 0 */
};

int series_add(struct series *s, double v);
/*
 * Adds every sample of @from to @to: exactly while @from is exact, else
 * as series_each() gives them (extremes exact, bin middles).
 */
int series_merge(struct series *to, const struct series *from);
void series_free(struct series *s);
/* NAN when the series is empty (COUNT and SUM give 0). */
double series_stat(struct series *s, enum series_stat stat);
double series_percentile(struct series *s, double p);
/*
 * Calls @fn with each sample (exact), or with the minimum, each histogram
 * bin's middle and count (the extremes taken out) and the maximum; stops
 * at and returns @fn's first non-zero return.
 */
int series_each(const struct series *s,
		int (*fn)(double v, uint64_t count, void *arg), void *arg);

/*
 * Statistics for comparing repetitions of a run (a few values a side, one
 * per run) against a baseline. None of them modifies its input. Each
 * gives NAN (stats_ranges_separate(): 0) when a side is empty or holds a
 * NAN: there is nothing to judge then.
 */

/* The usual median: mean of the two middle values when n is even. */
double stats_median(const double *v, size_t n);
/* Median of |v[i] - median|, raw (not scaled by 1.4826). */
double stats_mad(const double *v, size_t n);

/*
 * One-sided Mann-Whitney U test. stats_mwu_p_greater() is the p-value for
 * "b is stochastically greater than a", stats_mwu_p_less() for "less".
 * Exact (with ties: exact permutation distribution of the mid-rank sum)
 * when na + nb <= STATS_MWU_EXACT_MAX, else the normal approximation with
 * continuity and tie correction. Costs O((na + nb)^2): meant for tens of
 * repetitions, not for the samples of one run.
 */
#define STATS_MWU_EXACT_MAX 20
double stats_mwu_p_greater(const double *a, size_t na,
			   const double *b, size_t nb);
double stats_mwu_p_less(const double *a, size_t na,
			const double *b, size_t nb);

/*
 * LKP's range rule: 1 when every value of b lies beyond every value of a
 * in direction dir (+1: greater, -1: less), strictly; else 0. Nothing is
 * trimmed (see lib/stats.c).
 */
int stats_ranges_separate(const double *a, size_t na,
			  const double *b, size_t nb, int dir);

/*
 * Counts of events (how many of n went beyond a threshold), for tails
 * judged on the events of every repetition pooled.
 *
 * stats_fisher_greater(): one-sided Fisher exact test, the p-value for
 * "sample 2 has the larger share" given k1 of n1 and k2 of n2: the
 * hypergeometric probability that k2 or more of the k1 + k2 events fall
 * in sample 2. NAN for impossible counts (k > n).
 */
double stats_fisher_greater(uint64_t k1, uint64_t n1, uint64_t k2,
			    uint64_t n2);

/*
 * Pearson's chi-square of per-repetition counts k[i] of n[i] around
 * their pooled share, and its degrees of freedom (reps - 1), added to
 * *chi2 and *df; nothing is added when the share is 0 or 1 (no spread
 * can show) or when there are fewer than two repetitions with events.
 * chi2 / df estimates how much more the counts spread than independent
 * events would (the dispersion of a quasi-binomial model).
 */
void stats_dispersion_add(const double *k, const double *n, size_t reps,
			  double *chi2, double *df);

/*
 * P(X >= k) for X binomial(n, p): the one-sided p-value for "the share
 * is above p" given k of n. NAN for k > n or p outside [0, 1].
 */
double stats_binom_at_least(unsigned int k, unsigned int n, double p);

/*
 * A majority vote taken sequentially: @first votes, then one more at a
 * time while neither side leads by @lead, at most @max votes; the side
 * with more votes wins. Returns the probability that the side each vote
 * takes with probability @q wins (the absolute checks of verdicts.rst: a
 * clean check failing, q the share of clean repetitions beyond the bound).
 */
double stats_sequential_majority(double q, unsigned int first,
				 unsigned int lead, unsigned int max);

#endif /* SW_STATS_H */
