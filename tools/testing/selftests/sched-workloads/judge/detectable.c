// SPDX-License-Identifier: GPL-2.0
/*
 * The detectable effect of a baseline check (judge/detectable.h): the
 * check's own rule run on what-if rounds, the shift found by bisection.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detectable.h"
#include "lib/stats.h"

/* What-if runs of a tail check: each judges rounds of whole histograms. */
#define DETECT_TAIL_RUNS	200
#define DETECT_DOUBLINGS	40
#define DETECT_PRECISION	1e-3	/* of the shift, relative */
#define DETECT_SEED		0x5c4ed0e7ULL
#define DETECT_CACHE		256

/* What was computed, by a hash of everything it depends on. */
static struct {
	uint64_t key;
	struct detectable d;
} cache[DETECT_CACHE];
static size_t cached, cache_next;

/* FNV-1a, continued from @h. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

static uint64_t hash_common(const struct compare_rule *rule, size_t reps,
			    int rounds, int tail)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = hash_bytes(h, &rule->better, sizeof(rule->better));
	h = hash_bytes(h, &rule->rel, sizeof(rule->rel));
	h = hash_bytes(h, &rule->abs, sizeof(rule->abs));
	h = hash_bytes(h, &reps, sizeof(reps));
	h = hash_bytes(h, &rounds, sizeof(rounds));
	return hash_bytes(h, &tail, sizeof(tail));
}

static int cache_get(uint64_t key, struct detectable *out)
{
	size_t i;

	for (i = 0; i < cached; i++)
		if (cache[i].key == key) {
			*out = cache[i].d;
			return 1;
		}
	return 0;
}

static void cache_put(uint64_t key, const struct detectable *d)
{
	cache[cache_next].key = key;
	cache[cache_next].d = *d;
	cache_next = (cache_next + 1) % DETECT_CACHE;
	if (cached < DETECT_CACHE)
		cached++;
}

/* splitmix64: the same what-if rounds on every machine and every run. */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
	return ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
	double u = uniform(s), v = uniform(s);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* The share of what-if rounds the rule calls a regression at @shift. */
typedef double (*detect_share_fn)(void *ctx, double shift,
				  const struct compare_rule *rule);

/*
 * The smallest shift in (0, @most] detected in @target of the rounds,
 * INFINITY when none is; @scale: where to start looking.
 */
static double smallest_shift(detect_share_fn share, void *ctx,
			     const struct compare_rule *rule, double target,
			     double scale, double most)
{
	double lo = 0, hi = fmin(scale, most), mid;
	int i;

	for (i = 0; share(ctx, hi, rule) < target; i++) {
		if (i == DETECT_DOUBLINGS || hi >= most)
			return INFINITY;
		lo = hi;
		hi = fmin(2 * hi, most);
	}
	while (hi - lo > DETECT_PRECISION * hi) {
		mid = (lo + hi) / 2;
		if (share(ctx, mid, rule) >= target)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static void conclude(struct detectable *d)
{
	d->ratio = d->baseline ? d->effect / fabs(d->baseline) : NAN;
	d->cannot = d->effect > DETECT_CANNOT * d->matters;
}

/*
 * The machines of DETECT_DRAWS what-if runs, as uncertain as @nb
 * baseline repetitions leave them: each a spread, the baseline's @sd
 * scaled by a chi-square draw of nb - 1 degrees of freedom, and a center,
 * @center moved by that spread times @se (the standard error of the
 * center per unit of spread); then the normal draws of each run's
 * rounds (@rounds of @reps).
 */
struct machines {
	double *center, *sd;	/* DETECT_DRAWS of each */
	double *z;		/* DETECT_DRAWS * rounds * reps normal draws */
};

static int machines_draw(struct machines *m, size_t nb, int rounds,
			 size_t reps, double center, double sd, double se)
{
	uint64_t seed = DETECT_SEED;
	size_t d, i, nz = DETECT_DRAWS * rounds * reps;
	double chi2, z;

	m->center = malloc(DETECT_DRAWS * sizeof(*m->center));
	m->sd = malloc(DETECT_DRAWS * sizeof(*m->sd));
	m->z = malloc(nz * sizeof(*m->z));
	if (!m->center || !m->sd || !m->z)
		return -1;
	for (d = 0; d < DETECT_DRAWS; d++) {
		for (i = 0, chi2 = 0; i + 1 < nb; i++) {
			z = normal(&seed);
			chi2 += z * z;
		}
		m->sd[d] = chi2 > 0 ? sd * sqrt((nb - 1) / chi2) : sd;
		m->center[d] = center + m->sd[d] * normal(&seed) * se;
	}
	for (i = 0; i < nz; i++)
		m->z[i] = normal(&seed);
	return 0;
}

static void machines_free(struct machines *m)
{
	free(m->center);
	free(m->sd);
	free(m->z);
}

/*
 * What-if runs of a check on repetitions. Each draws where the clean
 * repetitions center and how they spread, as uncertain as the
 * baseline's few repetitions leave them (the spread from its standard
 * deviation and a chi-square draw, the center from its median and that
 * spread over the repetitions), then its rounds: a run shares its machine
 * across its rounds, so every round of it must regress.
 */
struct median_whatif {
	const double *base;
	size_t nb, reps;
	int rounds, bad;	/* bad: +1 higher is worse, -1 lower is */
	struct machines m;
};

static double median_share(void *ctx, double shift,
			   const struct compare_rule *rule)
{
	const struct median_whatif *w = ctx;
	double v[METRIC_MAX_REPS];
	const double *z;
	struct change ch;
	size_t d, i, hit = 0;
	int k;

	for (d = 0; d < DETECT_DRAWS; d++) {
		for (k = 0; k < w->rounds; k++) {
			z = w->m.z + (d * w->rounds + k) * w->reps;
			for (i = 0; i < w->reps; i++)
				v[i] = w->m.center[d] + w->bad * shift +
				       w->m.sd[d] * z[i];
			compare_samples(w->base, w->nb, v, w->reps, rule, &ch);
			if (ch.kind != CHANGE_REGRESSION)
				break;
		}
		hit += k == w->rounds;
	}
	return (double)hit / DETECT_DRAWS;
}

static double std_dev(const double *v, size_t n)
{
	double mean = 0, ss = 0;
	size_t i;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		mean += v[i] / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (n - 1));
}

int detectable_samples(const double *base, size_t nb,
		       const struct compare_rule *rule, size_t reps,
		       int rounds, struct detectable *out)
{
	struct median_whatif w = {
		.base = base, .nb = nb, .reps = reps, .bad = -rule->better,
		.rounds = rounds > 0 ? rounds : 1,
	};
	double median, sd;
	uint64_t key;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!nb || !reps || reps > METRIC_MAX_REPS)
		return -1;
	key = hash_bytes(hash_common(rule, reps, rounds, 0), base,
			 nb * sizeof(*base));
	if (cache_get(key, out))
		return 0;
	median = stats_median(base, nb);
	sd = std_dev(base, nb);
	out->baseline = median;
	out->matters = fmax(rule->rel * fabs(median), rule->abs);
	out->effect = INFINITY;
	/* no direction declared: nothing is ever a regression */
	if (rule->better) {
		/* a median's standard error: sqrt(pi / 2) times the mean's */
		if (machines_draw(&w.m, nb, w.rounds, reps, median, sd,
				  sqrt(M_PI / 2 / nb)))
			goto out;
		out->effect = smallest_shift(median_share, &w, rule,
					     DETECT_POWER,
					     fmax(fmax(out->matters, sd), 1e-9),
					     HUGE_VAL);
	}
	conclude(out);
	cache_put(key, out);
	ret = 0;
out:
	machines_free(&w.m);
	return ret;
}

/*
 * What-if runs of a tail check. Each draws its machine as the baseline's
 * repetitions drawn again with replacement (a bootstrap: what five
 * repetitions say of the machine, no more), then its rounds from that
 * machine's repetitions: every round of a run must regress.
 */
struct tail_whatif {
	const struct event_samples *base;
	const struct metric_def *def;
	size_t reps;
	int rounds;
	struct event_hist moved[METRIC_MAX_REPS];
	size_t *idx;	/* DETECT_TAIL_RUNS * rounds * reps: base repetitions */
};

static int tail_draws(struct tail_whatif *w)
{
	size_t machine[METRIC_MAX_REPS], d, i, n = w->base->n;
	size_t per_run = w->rounds * w->reps;
	uint64_t seed = DETECT_SEED;

	w->idx = malloc(DETECT_TAIL_RUNS * per_run * sizeof(*w->idx));
	if (!w->idx)
		return -1;
	for (d = 0; d < DETECT_TAIL_RUNS; d++) {
		for (i = 0; i < n; i++)
			machine[i] = next_u64(&seed) % n;
		for (i = 0; i < per_run; i++)
			w->idx[d * per_run + i] = machine[next_u64(&seed) % n];
	}
	return 0;
}

static double tail_share(void *ctx, double shift,
			 const struct compare_rule *rule)
{
	struct tail_whatif *w = ctx;
	struct event_samples cur;
	struct tail_change tc;
	struct change ch;
	size_t r, d, i, hit = 0;
	const size_t *idx;
	int bad, k;

	bad = w->def->tail == TAIL_HIGH ? 1 : -1;
	for (r = 0; r < w->base->n; r++)
		if (event_hist_shift(&w->base->rep[r], bad * shift,
				     &w->moved[r]))
			return 0;
	cur = *w->base;
	cur.n = w->reps;
	for (d = 0; d < DETECT_TAIL_RUNS; d++) {
		for (k = 0; k < w->rounds; k++) {
			idx = w->idx + (d * w->rounds + k) * w->reps;
			for (i = 0; i < w->reps; i++)
				cur.rep[i] = w->moved[idx[i]];
			compare_tail(w->base, &cur, w->def, rule, &ch, &tc);
			if (ch.kind != CHANGE_REGRESSION)
				break;
		}
		hit += k == w->rounds;
	}
	return (double)hit / DETECT_TAIL_RUNS;
}

/*
 * What-if runs of an overrun share, on counts: compare_tail() on
 * overruns depends on each repetition's overruns and passes alone.
 * Each run draws its machine as the medians do (a spread of the
 * repetitions' shares from the baseline's and a chi-square draw, at
 * least what counting alone gives; a center from their mean), then its
 * rounds' shares, normal around it.
 */
struct overrun_whatif {
	size_t reps;
	int rounds;
	double passes;		/* a repetition's, on average */
	double share_b, thr;	/* as compare_tail() takes them */
	uint64_t kb, n_b;	/* the baseline's pooled count, cut bin in */
	double chi2_b, df_b;	/* the baseline's own dispersion sums */
	struct machines m;
};

static int overrun_round(const struct overrun_whatif *w, const double *share)
{
	double k[METRIC_MAX_REPS], n[METRIC_MAX_REPS];
	double chi2 = w->chi2_b, df = w->df_b, kc = 0, nc = 0, p;
	size_t i;

	for (i = 0; i < w->reps; i++) {
		k[i] = round(share[i] * w->passes);
		n[i] = w->passes;
		kc += k[i];
		nc += n[i];
	}
	stats_dispersion_add(k, n, w->reps, &chi2, &df);
	p = compare_tail_p(w->kb, w->n_b, (uint64_t)kc, (uint64_t)nc,
			   df > 0 ? fmax(1, chi2 / df) : 1);
	return p <= COMPARE_TAIL_ALPHA && kc / nc - w->share_b > w->thr;
}

static double overrun_share(void *ctx, double shift,
			    const struct compare_rule *rule)
{
	const struct overrun_whatif *w = ctx;
	double v[METRIC_MAX_REPS], q, sd;
	const double *z;
	size_t d, i, hit = 0;
	int k;

	(void)rule;
	for (d = 0; d < DETECT_DRAWS; d++) {
		for (k = 0; k < w->rounds; k++) {
			z = w->m.z + (d * w->rounds + k) * w->reps;
			for (i = 0; i < w->reps; i++) {
				q = fmin(fmax(w->m.center[d] + shift, 0), 1);
				sd = fmax(w->m.sd[d],
					  sqrt(q * (1 - q) / w->passes));
				v[i] = fmin(fmax(q + sd * z[i], 0), 1);
			}
			if (!overrun_round(w, v))
				break;
		}
		hit += k == w->rounds;
	}
	return (double)hit / DETECT_DRAWS;
}

/* The effect on an overrun share, in that share. */
static int overrun_effect(const struct event_samples *base,
			  const struct compare_rule *rule, size_t reps,
			  int rounds, double thr, struct detectable *out)
{
	struct overrun_whatif w = {
		.reps = reps, .rounds = rounds, .thr = thr,
	};
	double share[METRIC_MAX_REPS], k[METRIC_MAX_REPS], n[METRIC_MAX_REPS];
	double mean = 0;
	struct event_hist pooled;
	size_t r;
	int ret = -1;

	memset(&pooled, 0, sizeof(pooled));
	for (r = 0; r < base->n; r++) {
		const struct event_hist *h = &base->rep[r];

		k[r] = (double)event_hist_beyond(h, 0, -1, 0);
		n[r] = (double)h->n;
		share[r] = h->n ? k[r] / n[r] : 0;
		w.passes += n[r] / base->n;
		if (event_hist_merge(&pooled, h))
			goto out;
	}
	stats_dispersion_add(k, n, base->n, &w.chi2_b, &w.df_b);
	w.kb = event_hist_beyond(&pooled, 0, -1, 1);
	w.n_b = pooled.n;
	w.share_b = out->baseline;
	for (r = 0; r < base->n; r++)
		mean += share[r] / base->n;
	if (machines_draw(&w.m, base->n, rounds, reps, mean,
			  std_dev(share, base->n), 1 / sqrt(base->n)))
		goto out;
	out->effect = smallest_shift(overrun_share, &w, rule, DETECT_POWER,
				     fmax(thr, 0.001), 1);
	ret = 0;
out:
	event_hist_free(&pooled);
	machines_free(&w.m);
	return ret;
}

int detectable_tail(const struct event_samples *base,
		    const struct metric_def *def,
		    const struct compare_rule *rule, size_t reps, int rounds,
		    struct detectable *out)
{
	struct tail_whatif w = {
		.base = base, .def = def, .reps = reps,
		.rounds = rounds > 0 ? rounds : 1,
	};
	struct tail_change tc;
	struct change ch;
	double events = 0, scale;
	uint64_t key;
	size_t r;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!base->n || !reps || reps > METRIC_MAX_REPS)
		return -1;
	/* the metric too: an overrun share and a count differ in unit */
	key = hash_bytes(hash_common(rule, reps, rounds, def->tail), def->name,
			 strlen(def->name));
	for (r = 0; r < base->n; r++) {
		const struct event_hist *h = &base->rep[r];

		key = hash_bytes(key, &h->n, sizeof(h->n));
		if (h->count)
			key = hash_bytes(key, h->count,
					 EVENT_NBINS * sizeof(*h->count));
	}
	if (cache_get(key, out))
		return 0;
	/* the baseline against itself: its value, and whether it has enough */
	compare_tail(base, base, def, rule, &ch, &tc);
	out->baseline = ch.a_median;
	if (ch.kind == CHANGE_TOO_FEW || ch.kind == CHANGE_UNKNOWN) {
		out->matters = out->effect = out->ratio = NAN;
		return 0;
	}
	for (r = 0; r < base->n; r++)
		events += (double)base->rep[r].n / base->n;
	if (def->tail == TAIL_NEGATIVE) {
		/* a share of the passes; a count (missed_periods) per repetition */
		int share = !strcmp(def->unit, "share");

		out->matters = fmax(rule->rel * out->baseline,
				    share ? rule->abs : rule->abs / events);
		if (overrun_effect(base, rule, reps, w.rounds, out->matters,
				   out))
			goto out;
		if (!share) {
			/* passes per repetition */
			out->baseline *= events;
			out->matters *= events;
			out->effect *= events;
		}
	} else {
		out->matters = fmax(rule->rel * fabs(out->baseline), rule->abs);
		scale = fmax(out->matters, fmax(fabs(out->baseline) / 100,
						 1e-6));
		if (tail_draws(&w))
			goto out;
		out->effect = smallest_shift(tail_share, &w, rule,
					     DETECT_POWER, scale, HUGE_VAL);
	}
	conclude(out);
	cache_put(key, out);
	ret = 0;
out:
	for (r = 0; r < METRIC_MAX_REPS; r++)
		event_hist_free(&w.moved[r]);
	free(w.idx);
	return ret;
}

void detectable_describe(const struct detectable *d, const char *unit,
			 char *buf, size_t len)
{
	char ratio[32] = "";
	int n;

	if (isnan(d->effect)) {
		snprintf(buf, len, "not known: too few events");
		return;
	}
	if (isinf(d->effect)) {
		snprintf(buf, len, "no change, however large, in %.0f%% of runs",
			 100 * DETECT_POWER);
		return;
	}
	if (!isnan(d->ratio) && !isinf(d->ratio))
		snprintf(ratio, sizeof(ratio), " (%.0f%%)", 100 * d->ratio);
	n = snprintf(buf, len, "a change of %.3g %s%s in %.0f%% of runs",
		     d->effect, unit, ratio, 100 * DETECT_POWER);
	if (d->cannot && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n,
			 ", cannot do its job: more than %d times the %.3g %s that matters",
			 DETECT_CANNOT, d->matters, unit);
}
