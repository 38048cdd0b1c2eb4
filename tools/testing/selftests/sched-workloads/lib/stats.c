// SPDX-License-Identifier: GPL-2.0
/*
 * Sample series and their statistics.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

/* The bin of @v: 0 for |v| < 2^SERIES_MIN_EXP, signed like @v. */
static int series_bin(double v)
{
	double a = fabs(v);
	int e, b;

	if (!(a >= ldexp(1, SERIES_MIN_EXP)))
		return 0;
	/* a = m * 2^e with 0.5 <= m < 1 */
	a = frexp(a, &e);
	e -= 1;
	if (e >= SERIES_MAX_EXP)
		b = SERIES_HALF;
	else
		b = 1 + (e - SERIES_MIN_EXP) * SERIES_BINS_PER_OCTAVE +
		    (int)((2 * a - 1) * SERIES_BINS_PER_OCTAVE);
	if (b > SERIES_HALF)
		b = SERIES_HALF;
	return v < 0 ? -b : b;
}

/* The middle of bin @b (0: zero), clamped to what was seen. */
static double series_bin_mid(const struct series *s, int b)
{
	int a = b < 0 ? -b : b, e, k;
	double lo, hi, mid;

	if (!a)
		return 0;
	e = (a - 1) / SERIES_BINS_PER_OCTAVE + SERIES_MIN_EXP;
	k = (a - 1) % SERIES_BINS_PER_OCTAVE;
	lo = ldexp(1 + (double)k / SERIES_BINS_PER_OCTAVE, e);
	hi = ldexp(1 + (double)(k + 1) / SERIES_BINS_PER_OCTAVE, e);
	mid = (lo + hi) / 2 * (b < 0 ? -1 : 1);
	if (mid < s->min)
		mid = s->min;
	if (mid > s->max)
		mid = s->max;
	return mid;
}

/* Moves the exact samples into the histogram. */
static int series_to_bins(struct series *s)
{
	size_t i;

	s->bins = calloc(SERIES_NBINS, sizeof(*s->bins));
	if (!s->bins)
		return -1;
	for (i = 0; i < s->n; i++)
		s->bins[series_bin(s->v[i]) + SERIES_HALF]++;
	free(s->v);
	s->v = NULL;
	s->cap = 0;
	return 0;
}

int series_add(struct series *s, double v)
{
	if (!s->bins && s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		double *nv;

		if (s->n >= SERIES_EXACT_MAX) {
			if (series_to_bins(s))
				return -1;
		} else {
			nv = realloc(s->v, cap * sizeof(*nv));
			if (!nv)
				return -1;
			s->v = nv;
			s->cap = cap;
		}
	}
	if (s->bins)
		s->bins[series_bin(v) + SERIES_HALF]++;
	else
		s->v[s->n] = v;
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->n++;
	s->sum += v;
	s->neg += v < 0;
	s->sorted = 0;
	return 0;
}

void series_free(struct series *s)
{
	free(s->v);
	free(s->bins);
	memset(s, 0, sizeof(*s));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void series_sort(struct series *s)
{
	if (!s->sorted && !s->bins) {
		qsort(s->v, s->n, sizeof(*s->v), cmp_double);
		s->sorted = 1;
	}
}

/* Sample number @rank (1-based) in sorted order. */
static double series_rank(struct series *s, size_t rank)
{
	uint64_t seen = 0;
	int b;

	if (!s->bins) {
		series_sort(s);
		return s->v[rank - 1];
	}
	if (rank == 1)
		return s->min;
	if (rank == s->n)
		return s->max;
	for (b = -SERIES_HALF; b <= SERIES_HALF; b++) {
		seen += s->bins[b + SERIES_HALF];
		if (seen >= rank)
			return series_bin_mid(s, b);
	}
	return s->max;
}

double series_percentile(struct series *s, double p)
{
	size_t rank;

	if (!s->n)
		return NAN;
	/* Nearest rank; the epsilon keeps 0.99 * 100 from rounding up. */
	rank = (size_t)ceil(p / 100.0 * (double)s->n - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > s->n)
		rank = s->n;
	return series_rank(s, rank);
}

int series_each(const struct series *s,
		int (*fn)(double v, uint64_t count, void *arg), void *arg)
{
	size_t i;
	int b, rc;

	for (i = 0; !s->bins && i < s->n; i++) {
		rc = fn(s->v[i], 1, arg);
		if (rc)
			return rc;
	}
	if (!s->bins || !s->n)
		return 0;
	/* the extremes are known exactly: give them as they are */
	rc = fn(s->min, 1, arg);
	for (b = -SERIES_HALF; !rc && b <= SERIES_HALF; b++) {
		uint64_t c = s->bins[b + SERIES_HALF];

		c -= b == series_bin(s->min);
		c -= b == series_bin(s->max);
		if (c)
			rc = fn(series_bin_mid(s, b), c, arg);
	}
	return rc ? rc : fn(s->max, 1, arg);
}

static int add_n(double v, uint64_t count, void *to)
{
	while (count--)
		if (series_add(to, v))
			return -1;
	return 0;
}

int series_merge(struct series *to, const struct series *from)
{
	return series_each(from, add_n, to);
}

double series_stat(struct series *s, enum series_stat stat)
{
	if (stat == STAT_COUNT)
		return (double)s->n;
	if (!s->n)
		return stat == STAT_SUM ? 0 : NAN;

	switch (stat) {
	case STAT_MIN:
		return s->min;
	case STAT_MAX:
		return s->max;
	case STAT_SUM:
		return s->sum;
	case STAT_MEAN:
		return s->sum / (double)s->n;
	case STAT_P1:
		return series_percentile(s, 1);
	case STAT_P10:
		return series_percentile(s, 10);
	case STAT_P50:
		return series_percentile(s, 50);
	case STAT_P90:
		return series_percentile(s, 90);
	case STAT_P99:
		return series_percentile(s, 99);
	case STAT_P999:
		return series_percentile(s, 99.9);
	case STAT_NEG_SHARE:
		return (double)s->neg / (double)s->n;
	default:
		return NAN;
	}
}

/*
 * Statistics over repetitions (one value per run).
 *
 * stats_median() is the symmetric median, not series_percentile(s, 50):
 * with an even number of runs the nearest-rank p50 is the lower of the
 * two middle values, so a set of repetitions would be summarised by its
 * lower half and two sets compared through a value biased down. The mean
 * of the middle pair treats both halves alike.
 */

/* The usual repetition counts are copied to the stack, not allocated. */
#define STATS_STACK_N 64

struct scratch {
	double stack[STATS_STACK_N];
	double *v;
};

static double *scratch_get(struct scratch *sc, size_t n)
{
	if (n <= STATS_STACK_N)
		sc->v = sc->stack;
	else if (n > SIZE_MAX / sizeof(*sc->v))
		sc->v = NULL;
	else
		sc->v = malloc(n * sizeof(*sc->v));
	return sc->v;
}

static void scratch_put(struct scratch *sc)
{
	if (sc->v != sc->stack)
		free(sc->v);
}

/* A NAN sample has no rank: callers get NAN rather than a made-up order. */
static int any_nan(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			return 1;
	return 0;
}

/* Sorts v in place; halves before adding so huge values cannot overflow. */
static double median_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return v[n / 2 - 1] / 2 + v[n / 2] / 2;
}

double stats_median(const double *v, size_t n)
{
	struct scratch sc;
	double *buf, m;

	if (!n || any_nan(v, n))
		return NAN;
	buf = scratch_get(&sc, n);
	if (!buf)
		return NAN;
	memcpy(buf, v, n * sizeof(*buf));
	m = median_sort(buf, n);
	scratch_put(&sc);
	return m;
}

/*
 * Raw MAD: the 1.4826 that makes it estimate a normal sigma is left out,
 * because run-to-run values here are not normal (some are bimodal) and
 * the MAD is compared with other MADs or medians of the same metric.
 */
double stats_mad(const double *v, size_t n)
{
	struct scratch sc;
	double *buf, med, mad;
	size_t i;

	if (!n || any_nan(v, n))
		return NAN;
	buf = scratch_get(&sc, n);
	if (!buf)
		return NAN;
	memcpy(buf, v, n * sizeof(*buf));
	med = median_sort(buf, n);
	for (i = 0; i < n; i++)
		buf[i] = fabs(v[i] - med);
	mad = median_sort(buf, n);
	scratch_put(&sc);
	return mad;
}

/*
 * Mann-Whitney U on the pooled sample a + b (element i < na is a[i], the
 * rest b[i - na]). Tied values get their mid-rank, doubled so that it
 * stays an integer: 2 * (number below) + (number equal, itself included)
 * + 1. Ranks are counted pairwise, O(N^2), so nothing is allocated.
 */
static double pooled(const double *a, size_t na, const double *b, size_t i)
{
	return i < na ? a[i] : b[i - na];
}

static void count_rank(double x, const double *v, size_t n,
		       size_t *below, size_t *equal)
{
	size_t i;

	for (i = 0; i < n; i++) {
		*below += v[i] < x;
		*equal += v[i] == x;
	}
}

static size_t rank2(double x, const double *a, size_t na,
		    const double *b, size_t nb, size_t *equal)
{
	size_t below = 0;

	*equal = 0;
	count_rank(x, a, na, &below, equal);
	count_rank(x, b, nb, &below, equal);
	return 2 * below + *equal + 1;
}

/*
 * Exact p-value: the share of the C(N, nb) ways to pick nb of the pooled
 * values whose doubled rank sum is at least (dir > 0) or at most (dir < 0)
 * the observed one, counted by dynamic programming. With ties this is the
 * exact permutation distribution of the mid-rank sum (the ties as
 * observed are kept in every permutation), so no tie correction is needed;
 * without ties it is the textbook distribution of U, since U_b = R_b -
 * nb (nb + 1) / 2. ways[k][s] = subsets of k of the values seen so far
 * with doubled rank sum s; the largest count, C(20, 10) = 184756, fits an
 * unsigned int.
 */
#define MWU_SUM2_MAX (STATS_MWU_EXACT_MAX * (STATS_MWU_EXACT_MAX + 1))

static double mwu_exact(const double *a, size_t na, const double *b,
			size_t nb, size_t obs2, int dir)
{
	unsigned int ways[STATS_MWU_EXACT_MAX + 1][MWU_SUM2_MAX + 1];
	size_t n = na + nb, i, k, s, r, eq, top;
	/* no doubled rank exceeds 2 N: the sums that can occur, no more */
	size_t smax = 2 * n * nb < MWU_SUM2_MAX ? 2 * n * nb : MWU_SUM2_MAX;
	double hit = 0, all = 0;

	for (k = 0; k <= nb; k++)
		memset(ways[k], 0, (smax + 1) * sizeof(ways[k][0]));
	ways[0][0] = 1;
	for (i = 0; i < n; i++) {
		r = rank2(pooled(a, na, b, i), a, na, b, nb, &eq);
		/* Downwards in k so that each value is picked at most once. */
		top = i < nb - 1 ? i : nb - 1;
		for (k = top + 1; k-- > 0;)
			for (s = 0; s + r <= smax; s++)
				ways[k + 1][s + r] += ways[k][s];
	}
	for (s = 0; s <= smax; s++) {
		all += ways[nb][s];
		if (dir > 0 ? s >= obs2 : s <= obs2)
			hit += ways[nb][s];
	}
	return hit / all;
}

/*
 * Normal approximation: U has mean na nb / 2 and, with ties, variance
 * na nb / 12 * (N + 1 - sum(t^3 - t) / (N (N - 1))) over the tie groups
 * of size t. The continuity correction moves U half a step towards the
 * mean. With every value tied there is no evidence either way: p = 1.
 */
static double mwu_normal(double u, size_t na, size_t nb, double ties,
			 int dir)
{
	double n = (double)(na + nb), nab = (double)na * (double)nb;
	double var = nab / 12 * (n + 1 - ties / (n * (n - 1)));
	double z;

	if (var <= 0)
		return 1;
	if (dir > 0) {
		z = (u - nab / 2 - 0.5) / sqrt(var);
		return 0.5 * erfc(z / sqrt(2.0));
	}
	z = (u - nab / 2 + 0.5) / sqrt(var);
	return 0.5 * erfc(-z / sqrt(2.0));
}

static double mwu_p(const double *a, size_t na, const double *b, size_t nb,
		    int dir)
{
	size_t i, eq, sum2 = 0;
	double ties = 0;

	if (!na || !nb || any_nan(a, na) || any_nan(b, nb))
		return NAN;
	for (i = 0; i < na + nb; i++) {
		size_t r = rank2(pooled(a, na, b, i), a, na, b, nb, &eq);

		/* Each member of a tie group of t adds t^2 - 1: t^3 - t. */
		ties += (double)eq * (double)eq - 1;
		if (i >= na)
			sum2 += r;
	}
	if (na + nb <= STATS_MWU_EXACT_MAX)
		return mwu_exact(a, na, b, nb, sum2, dir);
	/* U_b = R_b - nb (nb + 1) / 2, from the doubled rank sum. */
	return mwu_normal(((double)sum2 - (double)nb * (double)(nb + 1)) / 2,
			  na, nb, ties, dir);
}

double stats_mwu_p_greater(const double *a, size_t na,
			   const double *b, size_t nb)
{
	return mwu_p(a, na, b, nb, 1);
}

double stats_mwu_p_less(const double *a, size_t na,
			const double *b, size_t nb)
{
	return mwu_p(a, na, b, nb, -1);
}

static double vmin(const double *v, size_t n)
{
	double m = v[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static double vmax(const double *v, size_t n)
{
	double m = v[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/*
 * LKP trims outliers before it checks that the ranges separate. We run
 * <= 5 repetitions a side, where dropping one run throws away 20% or more
 * of the evidence and can itself create a separation, so nothing is
 * trimmed: one deviant run keeps the ranges overlapping, which errs
 * towards "not regressed". How many samples a side are enough (LKP: 3)
 * is the caller's rule.
 */
int stats_ranges_separate(const double *a, size_t na,
			  const double *b, size_t nb, int dir)
{
	if (!na || !nb || any_nan(a, na) || any_nan(b, nb))
		return 0;
	if (dir > 0)
		return vmin(b, nb) > vmax(a, na);
	if (dir < 0)
		return vmax(b, nb) < vmin(a, na);
	return 0;
}

/* log C(n, k) */
static double log_choose(uint64_t n, uint64_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) -
	       lgamma((double)(n - k) + 1);
}

/*
 * X, the events of sample 2, is hypergeometric: N = n1 + n2 items of
 * which K = k1 + k2 are events, n2 drawn. P(X >= k2) is a log-sum-exp
 * over the tail (terms scaled by the largest), so that tens of thousands
 * of events neither overflow nor lose the small terms to rounding.
 */
static double hyper_log_pmf(uint64_t x, uint64_t n, uint64_t kk, uint64_t n2)
{
	return log_choose(kk, x) + log_choose(n - kk, n2 - x) -
	       log_choose(n, n2);
}

double stats_fisher_greater(uint64_t k1, uint64_t n1, uint64_t k2,
			    uint64_t n2)
{
	uint64_t n = n1 + n2, kk = k1 + k2, x, hi, mode;
	double top, term, sum = 0;

	if (k1 > n1 || k2 > n2)
		return NAN;
	if (!k2)
		return 1;
	hi = kk < n2 ? kk : n2;
	/* unimodal: the largest term is at the mode or, past it, at k2 */
	mode = (n2 + 1) * (kk + 1) / (n + 2);
	mode = mode < k2 ? k2 : mode > hi ? hi : mode;
	top = hyper_log_pmf(mode, n, kk, n2);
	if (isinf(top))
		return 0;
	/* past the mode the terms only fall: stop when they no longer count */
	for (x = k2; x <= hi; x++) {
		term = exp(hyper_log_pmf(x, n, kk, n2) - top);
		sum += term;
		if (x > mode && term < 1e-17 * sum)
			break;
	}
	return fmin(1, sum * exp(top));
}

void stats_dispersion_add(const double *k, const double *n, size_t reps,
			  double *chi2, double *df)
{
	double tk = 0, tn = 0, p, c = 0;
	size_t i, used = 0;

	for (i = 0; i < reps; i++) {
		if (n[i] <= 0)
			continue;
		tk += k[i];
		tn += n[i];
		used++;
	}
	if (used < 2 || tk <= 0 || tk >= tn)
		return;
	p = tk / tn;
	for (i = 0; i < reps; i++) {
		if (n[i] <= 0)
			continue;
		c += (k[i] - n[i] * p) * (k[i] - n[i] * p) /
		     (n[i] * p * (1 - p));
	}
	*chi2 += c;
	*df += used - 1;
}

double stats_binom_at_least(unsigned int k, unsigned int n, double p)
{
	double sum = 0;
	unsigned int x;

	if (k > n || !(p >= 0 && p <= 1))
		return NAN;
	if (!k)
		return 1;
	if (p == 0 || p == 1)
		return p;
	for (x = k; x <= n; x++)
		sum += exp(log_choose(n, x) + x * log(p) +
			   (n - x) * log1p(-p));
	return fmin(1, sum);
}

#define SEQ_MAX_VOTES 64

double stats_sequential_majority(double q, unsigned int first,
				 unsigned int lead, unsigned int max)
{
	/* [votes][those for q's side]: the chance of getting there */
	double at[SEQ_MAX_VOTES + 1][SEQ_MAX_VOTES + 1];
	unsigned int n, b;
	double won = 0;

	if (!(q >= 0 && q <= 1) || !first || first > max ||
	    max > SEQ_MAX_VOTES)
		return NAN;
	memset(at, 0, sizeof(at));
	/* the first votes, all at once */
	for (b = 0; b <= first; b++)
		at[first][b] = exp(log_choose(first, b)) * pow(q, b) *
			       pow(1 - q, first - b);
	for (n = first; n <= max; n++) {
		for (b = 0; b <= n; b++) {
			unsigned int ahead = b > n - b ? 2 * b - n : n - 2 * b;

			if (!at[n][b])
				continue;
			if (ahead >= lead || n == max) {
				won += 2 * b > n ? at[n][b] : 0;
				continue;
			}
			at[n + 1][b + 1] += at[n][b] * q;
			at[n + 1][b] += at[n][b] * (1 - q);
		}
	}
	return won;
}
