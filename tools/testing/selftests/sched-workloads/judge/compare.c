// SPDX-License-Identifier: GPL-2.0
/*
 * The rules that say whether a metric changed: on repetitions, and on
 * the pooled events of a tail.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/compare.h"
#include "judge/samples.h"
#include "lib/stats.h"

const char *change_kind_name(enum change_kind kind)
{
	static const char *const names[] = {
		"same", "regression", "improvement", "changed", "unknown",
		"too-few-events",
	};

	return names[kind];
}

void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     const struct compare_rule *rule, struct change *out)
{
	double threshold;
	int dir;

	memset(out, 0, sizeof(*out));
	out->na = na;
	out->nb = nb;
	out->a_median = out->b_median = out->delta = out->ratio = out->p = NAN;
	if (!na || !nb) {
		out->kind = CHANGE_UNKNOWN;
		return;
	}
	out->a_median = stats_median(a, na);
	out->b_median = stats_median(b, nb);
	out->delta = out->b_median - out->a_median;
	if (out->a_median != 0)
		out->ratio = out->delta / fabs(out->a_median);
	dir = out->delta > 0 ? 1 : -1;
	out->p = dir > 0 ? stats_mwu_p_greater(a, na, b, nb) :
		 stats_mwu_p_greater(b, nb, a, na);
	out->separate = stats_ranges_separate(a, na, b, nb, dir);
	out->significant = rule->tail ? out->separate : out->p <= COMPARE_ALPHA;

	threshold = fmax(rule->rel * fabs(out->a_median), rule->abs);
	if (!out->significant || out->delta == 0 ||
	    fabs(out->delta) <= threshold) {
		out->kind = CHANGE_NONE;
		return;
	}
	if (!rule->better)
		out->kind = CHANGE_CHANGED;
	else
		out->kind = dir == rule->better ? CHANGE_IMPROVEMENT :
			    CHANGE_REGRESSION;
}

/* Every repetition's events pooled into one histogram. */
static int pool(const struct event_samples *e, struct event_hist *h)
{
	size_t r;

	memset(h, 0, sizeof(*h));
	for (r = 0; r < e->n; r++)
		if (event_hist_merge(h, &e->rep[r]))
			return -1;
	return 0;
}

/*
 * Per-repetition counts beyond @t on @side into the dispersion sums;
 * each side's repetitions spread around that side's own share.
 */
static void spread(const struct event_samples *e, double t, int side,
		   double *chi2, double *df)
{
	double k[METRIC_MAX_REPS], n[METRIC_MAX_REPS];
	size_t r;

	for (r = 0; r < e->n; r++) {
		k[r] = (double)event_hist_beyond(&e->rep[r], t, side, 0);
		n[r] = (double)e->rep[r].n;
	}
	stats_dispersion_add(k, n, e->n, chi2, df);
}

/* Counts divided by the dispersion, rounded, at least one event in all. */
static void deflate(uint64_t k, uint64_t n, double d, uint64_t *ko,
		    uint64_t *no)
{
	*no = (uint64_t)llround((double)n / d);
	if (*no < 1)
		*no = 1;
	*ko = (uint64_t)llround((double)k / d);
	if (*ko > *no)
		*ko = *no;
}

double compare_tail_p(uint64_t kb, uint64_t nb, uint64_t kc, uint64_t nc,
		      double dispersion)
{
	deflate(kb, nb, dispersion, &kb, &nb);
	deflate(kc, nc, dispersion, &kc, &nc);
	return stats_fisher_greater(kb, nb, kc, nc);
}

void compare_tail(const struct event_samples *base,
		  const struct event_samples *cur,
		  const struct metric_def *def, const struct compare_rule *rule,
		  struct change *out, struct tail_change *tc)
{
	int side = def->tail == TAIL_HIGH ? 1 : -1;
	double qd, chi2 = 0, df = 0, thr, share_b = 0, share_c = 0;
	int beyond;
	struct event_hist hb, hc;

	memset(out, 0, sizeof(*out));
	memset(tc, 0, sizeof(*tc));
	out->a_median = out->b_median = out->delta = out->ratio = out->p = NAN;
	out->kind = CHANGE_UNKNOWN;
	tc->t = tc->dispersion = NAN;
	if (pool(base, &hb) || pool(cur, &hc) || !hb.n || !hc.n)
		goto out;
	out->na = base->n;
	out->nb = cur->n;
	tc->nb = hb.n;
	tc->nc = hc.n;

	if (def->tail == TAIL_NEGATIVE) {
		/* Overruns: events below 0, both sides at that threshold. */
		tc->t = 0;
		qd = 0;
		share_b = (double)event_hist_beyond(&hb, 0, -1, 0) / hb.n;
		share_c = (double)event_hist_beyond(&hc, 0, -1, 0) / hc.n;
		/* A count per repetition becomes a share of the passes. */
		thr = rule->abs;
		if (strcmp(def->unit, "share"))
			thr = rule->abs * cur->n / hc.n;
		thr = fmax(rule->rel * share_b, thr);
		out->a_median = share_b;
		out->b_median = share_c;
		tc->need = (uint64_t)ceil(COMPARE_TAIL_MIN_EVENTS /
					  fmax(share_b + thr, 1e-9));
	} else {
		double q = def->q, qb = event_hist_quantile(&hb, q);

		thr = fmax(rule->rel * fabs(qb), rule->abs);
		tc->t = qb + side * thr;
		out->a_median = qb;
		out->b_median = event_hist_quantile(&hc, q);
		/* The spread is seen where events are: not past the max. */
		qd = side > 0 ? fmin(q, 0.99) : fmax(q, 0.01);
		qd = event_hist_quantile(&hb, qd);
		if (q > 0 && q < 1)
			tc->need = (uint64_t)ceil(COMPARE_TAIL_MIN_EVENTS /
						  fmin(q, 1 - q));
	}
	out->delta = out->b_median - out->a_median;
	if (out->a_median != 0)
		out->ratio = out->delta / fabs(out->a_median);
	if (hb.n < tc->need || hc.n < tc->need) {
		out->kind = CHANGE_TOO_FEW;
		goto out;
	}
	/*
	 * The baseline counts a bin t cuts, the current one does not: both
	 * err towards "no regression".
	 */
	tc->kb = event_hist_beyond(&hb, tc->t, side, 1);
	tc->kc = event_hist_beyond(&hc, tc->t, side, 0);
	spread(base, qd, side, &chi2, &df);
	spread(cur, qd, side, &chi2, &df);
	tc->dispersion = df > 0 ? fmax(1, chi2 / df) : 1;
	out->p = compare_tail_p(tc->kb, tc->nb, tc->kc, tc->nc,
				tc->dispersion);
	out->significant = out->p <= COMPARE_TAIL_ALPHA;
	/* The current quantile (share) is beyond what matters. */
	if (def->tail == TAIL_NEGATIVE)
		beyond = share_c - share_b > thr;
	else
		beyond = side > 0 ? out->b_median > tc->t :
			 out->b_median < tc->t;
	out->kind = out->significant && beyond ? CHANGE_REGRESSION :
		    CHANGE_NONE;
out:
	event_hist_free(&hb);
	event_hist_free(&hc);
}
