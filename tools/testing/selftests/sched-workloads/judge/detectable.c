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

/* More draws of a tail round than this: drawn at random, not all. */
#define DETECT_TAIL_ENUMERATE	500
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

/* The smallest shift every one of @rounds rounds detects often enough. */
static double effect_of(detect_share_fn share, void *ctx,
			const struct compare_rule *rule, int rounds,
			double scale, double most)
{
	double target = pow(DETECT_POWER, 1.0 / (rounds > 0 ? rounds : 1));

	return smallest_shift(share, ctx, rule, target, scale, most);
}

static void conclude(struct detectable *d)
{
	d->ratio = d->baseline ? d->effect / fabs(d->baseline) : NAN;
	d->cannot = d->effect > DETECT_CANNOT * d->matters;
}

struct median_whatif {
	const double *base;
	size_t nb, reps;
	double median, sd;
	int bad;		/* +1: higher is worse, -1: lower is */
	double *z;		/* DETECT_DRAWS rounds of @reps normal draws */
};

static double median_share(void *ctx, double shift,
			   const struct compare_rule *rule)
{
	const struct median_whatif *w = ctx;
	double v[METRIC_MAX_REPS];
	struct change ch;
	size_t d, i, hit = 0;

	for (d = 0; d < DETECT_DRAWS; d++) {
		for (i = 0; i < w->reps; i++)
			v[i] = w->median + w->bad * shift +
			       w->sd * w->z[d * w->reps + i];
		compare_samples(w->base, w->nb, v, w->reps, rule, &ch);
		hit += ch.kind == CHANGE_REGRESSION;
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
	};
	uint64_t seed = DETECT_SEED, key;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!nb || !reps || reps > METRIC_MAX_REPS)
		return -1;
	key = hash_bytes(hash_common(rule, reps, rounds, 0), base,
			 nb * sizeof(*base));
	if (cache_get(key, out))
		return 0;
	w.median = stats_median(base, nb);
	w.sd = std_dev(base, nb);
	out->baseline = w.median;
	out->matters = fmax(rule->rel * fabs(w.median), rule->abs);
	out->effect = INFINITY;
	/* no direction declared: nothing is ever a regression */
	if (rule->better) {
		w.z = malloc(DETECT_DRAWS * reps * sizeof(*w.z));
		if (!w.z)
			return -1;
		for (i = 0; i < DETECT_DRAWS * reps; i++)
			w.z[i] = normal(&seed);
		out->effect = effect_of(median_share, &w, rule, rounds,
					fmax(fmax(out->matters, w.sd), 1e-9),
					HUGE_VAL);
		free(w.z);
	}
	conclude(out);
	cache_put(key, out);
	return 0;
}

struct tail_whatif {
	const struct event_samples *base;
	const struct metric_def *def;
	size_t reps;
	struct event_hist moved[METRIC_MAX_REPS];
	/* the rounds: indices into the baseline's repetitions, and weights */
	size_t (*idx)[METRIC_MAX_REPS];
	double *weight;
	size_t nrounds;
};

/* Every multiset of @w->reps of the baseline's repetitions, weighted. */
static int enumerate(struct tail_whatif *w, size_t *cur, size_t depth,
		     size_t from, size_t cap)
{
	size_t i, j, same;
	double p;

	if (depth == w->reps) {
		if (w->nrounds == cap)
			return -1;
		/* reps! / prod(multiplicity!) / nb^reps */
		p = 1;
		for (i = 0, same = 1; i < w->reps; i++) {
			p *= (double)(i + 1) / w->base->n;
			same = i && cur[i] == cur[i - 1] ? same + 1 : 1;
			p /= same;
		}
		memcpy(w->idx[w->nrounds], cur, w->reps * sizeof(*cur));
		w->weight[w->nrounds++] = p;
		return 0;
	}
	for (j = from; j < w->base->n; j++) {
		cur[depth] = j;
		if (enumerate(w, cur, depth + 1, j, cap))
			return -1;
	}
	return 0;
}

static int tail_rounds(struct tail_whatif *w)
{
	size_t cur[METRIC_MAX_REPS], d, i;
	uint64_t seed = DETECT_SEED;

	w->idx = calloc(DETECT_TAIL_ENUMERATE, sizeof(*w->idx));
	w->weight = calloc(DETECT_TAIL_ENUMERATE, sizeof(*w->weight));
	if (!w->idx || !w->weight)
		return -1;
	if (!enumerate(w, cur, 0, 0, DETECT_TAIL_ENUMERATE))
		return 0;
	for (d = 0; d < DETECT_TAIL_ENUMERATE; d++) {
		for (i = 0; i < w->reps; i++)
			w->idx[d][i] = next_u64(&seed) % w->base->n;
		w->weight[d] = 1.0 / DETECT_TAIL_ENUMERATE;
	}
	w->nrounds = DETECT_TAIL_ENUMERATE;
	return 0;
}

static double tail_share(void *ctx, double shift,
			 const struct compare_rule *rule)
{
	struct tail_whatif *w = ctx;
	struct event_samples cur;
	struct tail_change tc;
	struct change ch;
	double hit = 0;
	size_t r, d, i;
	int bad;

	for (r = 0; r < w->base->n; r++) {
		const struct event_hist *h = &w->base->rep[r];

		if (w->def->tail == TAIL_NEGATIVE) {
			uint64_t k = (uint64_t)llround(shift * (double)h->n);

			if (event_hist_overrun(h, k, &w->moved[r]))
				return 0;
			continue;
		}
		bad = w->def->tail == TAIL_HIGH ? 1 : -1;
		if (event_hist_shift(h, bad * shift, &w->moved[r]))
			return 0;
	}
	cur = *w->base;
	cur.n = w->reps;
	for (d = 0; d < w->nrounds; d++) {
		for (i = 0; i < w->reps; i++)
			cur.rep[i] = w->moved[w->idx[d][i]];
		compare_tail(w->base, &cur, w->def, rule, &ch, &tc);
		if (ch.kind == CHANGE_REGRESSION)
			hit += w->weight[d];
	}
	return hit;
}

/* The pooled overrun share of the baseline's repetitions at @shift. */
static double overrun_share(struct tail_whatif *w, double shift)
{
	uint64_t k = 0, n = 0;
	size_t r;

	for (r = 0; r < w->base->n; r++) {
		if (event_hist_overrun(&w->base->rep[r],
				       (uint64_t)llround(shift *
							 (double)w->base->rep[r].n),
				       &w->moved[r]))
			return NAN;
		k += event_hist_beyond(&w->moved[r], 0, -1, 0);
		n += w->moved[r].n;
	}
	return n ? (double)k / n : NAN;
}

int detectable_tail(const struct event_samples *base,
		    const struct metric_def *def,
		    const struct compare_rule *rule, size_t reps, int rounds,
		    struct detectable *out)
{
	struct tail_whatif w = { .base = base, .def = def, .reps = reps };
	struct tail_change tc;
	struct change ch;
	double events = 0, scale = 1;
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
		double thr = share ? rule->abs : rule->abs / events;

		out->matters = fmax(rule->rel * out->baseline, thr);
		scale = fmax(out->matters, 0.001);
	} else {
		out->matters = fmax(rule->rel * fabs(out->baseline), rule->abs);
		scale = fmax(out->matters, fmax(fabs(out->baseline) / 100,
						 1e-6));
	}
	if (tail_rounds(&w))
		goto out;
	out->effect = effect_of(tail_share, &w, rule, rounds, scale,
				def->tail == TAIL_NEGATIVE ? 1 : HUGE_VAL);
	if (def->tail == TAIL_NEGATIVE && isfinite(out->effect)) {
		/* the share that shift gives, counted as the rule counts */
		out->effect = overrun_share(&w, out->effect) - out->baseline;
		if (strcmp(def->unit, "share")) {
			/* passes per repetition */
			out->baseline *= events;
			out->matters *= events;
			out->effect *= events;
		}
	}
	conclude(out);
	cache_put(key, out);
	ret = 0;
out:
	for (r = 0; r < METRIC_MAX_REPS; r++)
		event_hist_free(&w.moved[r]);
	free(w.idx);
	free(w.weight);
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
