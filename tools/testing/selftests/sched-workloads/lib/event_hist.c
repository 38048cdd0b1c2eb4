// SPDX-License-Identifier: GPL-2.0
/*
 * Event distributions as log-binned histograms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event_hist.h"
#include "lib/json_util.h"

static int bin_of(double v)
{
	double a = fabs(v);
	int b;

	if (a < EVENT_MIN_ABS)
		return 0;
	b = 1 + (int)floor(EVENT_BINS_PER_OCTAVE * log2(a / EVENT_MIN_ABS));
	if (b > EVENT_HALF)
		b = EVENT_HALF;
	return v < 0 ? -b : b;
}

/* The edges of bin @b, low < high; bin 0 spans the small values. */
static void bin_edges(int b, double *low, double *high)
{
	int a = b < 0 ? -b : b;
	double lo, hi;

	if (!a) {
		*low = -EVENT_MIN_ABS;
		*high = EVENT_MIN_ABS;
		return;
	}
	lo = EVENT_MIN_ABS * exp2((double)(a - 1) / EVENT_BINS_PER_OCTAVE);
	hi = EVENT_MIN_ABS * exp2((double)a / EVENT_BINS_PER_OCTAVE);
	if (a == EVENT_HALF)
		hi = INFINITY;
	*low = b < 0 ? -hi : lo;
	*high = b < 0 ? -lo : hi;
}

struct json_object *event_bins_json(int edges)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr;
	double low, high;
	int b;

	json_object_object_add(o, "per_octave",
			       json_object_new_int(EVENT_BINS_PER_OCTAVE));
	json_object_object_add(o, "min_abs",
			       json_object_new_double(EVENT_MIN_ABS));
	json_object_object_add(o, "octaves", json_object_new_int(EVENT_OCTAVES));
	if (!edges)
		return o;
	arr = json_object_new_array();
	for (b = 0; b <= EVENT_HALF; b++) {
		bin_edges(b, &low, &high);
		json_object_array_add(arr, json_new_number(high));
	}
	json_object_object_add(o, "edges", arr);
	return o;
}

static int hist_alloc(struct event_hist *h)
{
	if (h->count)
		return 0;
	h->count = calloc(EVENT_NBINS, sizeof(*h->count));
	return h->count ? 0 : -1;
}

int event_hist_add_n(struct event_hist *h, double v, uint64_t count)
{
	if (isnan(v) || !count || hist_alloc(h))
		return isnan(v) || !count ? 0 : -1;
	h->count[bin_of(v) + EVENT_HALF] += count;
	if (!h->n || v < h->min)
		h->min = v;
	if (!h->n || v > h->max)
		h->max = v;
	h->n += count;
	return 0;
}

int event_hist_add(struct event_hist *h, double v)
{
	return event_hist_add_n(h, v, 1);
}

int event_hist_merge(struct event_hist *to, const struct event_hist *from)
{
	int i;

	if (!from->n)
		return 0;
	if (hist_alloc(to))
		return -1;
	for (i = 0; i < EVENT_NBINS; i++)
		to->count[i] += from->count[i];
	if (!to->n || from->min < to->min)
		to->min = from->min;
	if (!to->n || from->max > to->max)
		to->max = from->max;
	to->n += from->n;
	return 0;
}

void event_hist_free(struct event_hist *h)
{
	free(h->count);
	memset(h, 0, sizeof(*h));
}

double event_hist_quantile(const struct event_hist *h, double q)
{
	uint64_t rank, seen = 0;
	double low, high;
	int i;

	if (!h->n)
		return NAN;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* Nearest rank, as lib/stats.h; the epsilon keeps 0.99 * 100 at 99. */
	rank = (uint64_t)ceil(q * (double)h->n - 1e-9);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < EVENT_NBINS; i++) {
		seen += h->count[i];
		if (seen >= rank)
			break;
	}
	bin_edges(i - EVENT_HALF, &low, &high);
	/* The middle of the bin, kept within what was observed. */
	if (i == EVENT_HALF)
		low = high = 0;
	else if (isinf(high))
		high = low;
	low = (low + high) / 2;
	return fmin(fmax(low, h->min), h->max);
}

static int hist_reset(struct event_hist *h)
{
	if (hist_alloc(h))
		return -1;
	memset(h->count, 0, EVENT_NBINS * sizeof(*h->count));
	h->n = 0;
	return 0;
}

/* Where the events of bin @i stand, within what @h observed. */
static double bin_middle(const struct event_hist *h, int i)
{
	double low, high;

	if (i == EVENT_HALF)
		return fmin(fmax(0, h->min), h->max);
	bin_edges(i - EVENT_HALF, &low, &high);
	if (isinf(low))
		low = high;
	if (isinf(high))
		high = low;
	return fmin(fmax((low + high) / 2, h->min), h->max);
}

int event_hist_shift(const struct event_hist *h, double by,
		     struct event_hist *out)
{
	int i;

	if (hist_reset(out))
		return -1;
	for (i = 0; i < EVENT_NBINS && h->n; i++)
		if (h->count[i] &&
		    event_hist_add_n(out, bin_middle(h, i) + by, h->count[i]))
			return -1;
	if (out->n) {
		out->min = h->min + by;
		out->max = h->max + by;
	}
	return 0;
}

int event_hist_overrun(const struct event_hist *h, uint64_t k,
		       struct event_hist *out)
{
	uint64_t c, moved = 0;
	int i;

	if (hist_reset(out))
		return -1;
	for (i = 0; i < EVENT_NBINS && h->n; i++) {
		c = h->count[i];
		if (i >= EVENT_HALF && moved < k) {
			uint64_t m = c < k - moved ? c : k - moved;

			if (event_hist_add_n(out, -1, m))
				return -1;
			c -= m;
			moved += m;
		}
		if (event_hist_add_n(out, bin_middle(h, i), c))
			return -1;
	}
	/* The exact extremes stay where events stayed. */
	if (out->n) {
		out->min = moved ? fmin(h->min, -1) : h->min;
		if (bin_of(out->max) == bin_of(h->max))
			out->max = h->max;
	}
	return 0;
}

uint64_t event_hist_beyond(const struct event_hist *h, double t, int side,
			   int inclusive)
{
	uint64_t k = 0;
	double low, high;
	int i;

	if (!h->n)
		return 0;
	for (i = 0; i < EVENT_NBINS; i++) {
		if (!h->count[i])
			continue;
		bin_edges(i - EVENT_HALF, &low, &high);
		/* The exact extremes narrow the bins at both ends. */
		low = fmax(low, h->min);
		high = fmin(high, h->max);
		if (side > 0 ? low > t || (inclusive && high > t) :
		    high < t || (inclusive && low < t))
			k += h->count[i];
	}
	return k;
}

struct event_hist *event_rep_hist(struct event_rep *r, enum metric_source src,
				  const char *entity, const char *series)
{
	struct event_entry *e;
	size_t i;

	for (i = 0; i < r->n; i++) {
		e = &r->e[i];
		if (e->source == src && !strcmp(e->entity, entity) &&
		    !strcmp(e->series, series))
			return &e->h;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;

		e = realloc(r->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		r->e = e;
		r->cap = cap;
	}
	e = &r->e[r->n++];
	memset(e, 0, sizeof(*e));
	e->source = src;
	snprintf(e->entity, sizeof(e->entity), "%s", entity);
	snprintf(e->series, sizeof(e->series), "%s", series);
	return &e->h;
}

void event_rep_free(struct event_rep *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		event_hist_free(&r->e[i].h);
	free(r->e);
	memset(r, 0, sizeof(*r));
}

static struct event_samples *set_find(struct event_set *es,
				      enum metric_source src,
				      const char *entity, const char *series)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		if (es->s[i].source == src && !strcmp(es->s[i].entity, entity) &&
		    !strcmp(es->s[i].series, series))
			return &es->s[i];
	return NULL;
}

const struct event_samples *event_set_find(const struct event_set *es,
					   enum metric_source src,
					   const char *entity,
					   const char *series)
{
	return set_find((struct event_set *)es, src, entity, series);
}

static struct event_samples *set_add(struct event_set *es,
				     enum metric_source src,
				     const char *entity, const char *series)
{
	struct event_samples *s = set_find(es, src, entity, series);

	if (s)
		return s;
	if (es->n == es->cap) {
		size_t cap = es->cap ? 2 * es->cap : 32;

		s = realloc(es->s, cap * sizeof(*s));
		if (!s)
			return NULL;
		es->s = s;
		es->cap = cap;
	}
	s = &es->s[es->n++];
	memset(s, 0, sizeof(*s));
	s->source = src;
	snprintf(s->entity, sizeof(s->entity), "%s", entity);
	snprintf(s->series, sizeof(s->series), "%s", series);
	/* Empty in the repetitions before this one. */
	s->n = es->reps;
	return s;
}

int event_set_add_rep(struct event_set *es, const struct event_rep *r)
{
	size_t i;

	if (es->reps == METRIC_MAX_REPS)
		return -1;
	for (i = 0; i < r->n; i++) {
		const struct event_entry *e = &r->e[i];
		struct event_samples *s = set_add(es, e->source, e->entity,
						  e->series);

		if (!s || event_hist_merge(&s->rep[es->reps], &e->h))
			return -1;
	}
	es->reps++;
	for (i = 0; i < es->n; i++)
		es->s[i].n = es->reps;
	return 0;
}

void event_set_free(struct event_set *es)
{
	size_t i, r;

	for (i = 0; i < es->n; i++)
		for (r = 0; r < es->s[i].n; r++)
			event_hist_free(&es->s[i].rep[r]);
	free(es->s);
	memset(es, 0, sizeof(*es));
}

void event_samples_key(const struct event_samples *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s", metric_source_name(e->source),
		 e->entity, e->series);
}

static struct json_object *hist_to_json(const struct event_hist *h)
{
	struct json_object *o = json_object_new_object();
	struct json_object *bins = json_object_new_array();
	int i;

	json_object_object_add(o, "n", json_object_new_int64(h->n));
	if (h->n) {
		json_object_object_add(o, "min", json_new_number(h->min));
		json_object_object_add(o, "max", json_new_number(h->max));
	}
	for (i = 0; h->n && i < EVENT_NBINS; i++) {
		if (!h->count[i])
			continue;
		json_object_array_add(bins, json_object_new_int(i - EVENT_HALF));
		json_object_array_add(bins, json_object_new_int64(h->count[i]));
	}
	json_object_object_add(o, "bins", bins);
	return o;
}

static int hist_from_json(struct event_hist *h, struct json_object *o,
			  const char *file, const char *key,
			  struct sw_err *err)
{
	struct json_object *n, *bins, *min, *max;
	uint64_t sum = 0;
	size_t i, len;

	memset(h, 0, sizeof(*h));
	if (!json_object_object_get_ex(o, "n", &n) ||
	    !json_object_is_type(n, json_type_int) ||
	    json_object_get_int64(n) < 0 ||
	    !json_object_object_get_ex(o, "bins", &bins) ||
	    !json_object_is_type(bins, json_type_array))
		goto bad;
	len = json_object_array_length(bins);
	if (len % 2)
		goto bad;
	h->n = json_object_get_int64(n);
	if (!h->n)
		return len ? sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					"%s: events.%s: bins of an empty histogram",
					file, key) : 0;
	if (!json_object_object_get_ex(o, "min", &min) ||
	    !json_object_object_get_ex(o, "max", &max) ||
	    hist_alloc(h))
		goto bad;
	if (!min || !max || json_read_number(min, &h->min) ||
	    json_read_number(max, &h->max) || h->min > h->max)
		goto bad;
	for (i = 0; i < len; i += 2) {
		struct json_object *b = json_object_array_get_idx(bins, i);
		struct json_object *c = json_object_array_get_idx(bins, i + 1);
		int64_t bin = json_object_get_int64(b);
		int64_t cnt = json_object_get_int64(c);

		if (!json_object_is_type(b, json_type_int) ||
		    !json_object_is_type(c, json_type_int) ||
		    bin < -EVENT_HALF || bin > EVENT_HALF || cnt < 0 ||
		    cnt > UINT32_MAX)
			goto bad;
		h->count[bin + EVENT_HALF] += cnt;
		sum += cnt;
	}
	if (sum != h->n || h->min > h->max)
		goto bad;
	return 0;
bad:
	event_hist_free(h);
	return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			  "%s: events.%s: not a histogram ({\"n\", \"min\", \"max\", \"bins\": [bin, count, ...]} with counts adding up to n)",
			  file, key);
}

struct json_object *event_set_to_json(const struct event_set *es,
				      int (*keep)(const struct event_samples *e,
						  void *arg), void *arg)
{
	struct json_object *o = json_object_new_object();
	size_t i, r;

	for (i = 0; o && i < es->n; i++) {
		struct json_object *arr;
		char key[160];

		if (keep && !keep(&es->s[i], arg))
			continue;
		arr = json_object_new_array();
		for (r = 0; r < es->s[i].n; r++)
			json_object_array_add(arr, hist_to_json(&es->s[i].rep[r]));
		event_samples_key(&es->s[i], key, sizeof(key));
		json_object_object_add(o, key, arr);
	}
	return o;
}

/* "source/entity/series" back into its parts. */
static int parse_key(const char *key, enum metric_source *src, char *entity,
		     size_t elen, char *series, size_t slen)
{
	const char *a = strchr(key, '/'), *b = strrchr(key, '/');

	if (!a || a == b || (size_t)(b - a - 1) >= elen || strlen(b + 1) >= slen ||
	    !b[1])
		return -1;
	/* Series come from rt-app's logs and from the trace only. */
	if (metric_source_parse(key, a - key, src) || *src > SRC_TRACE_SYSTEM)
		return -1;
	memcpy(entity, a + 1, b - a - 1);
	entity[b - a - 1] = '\0';
	strcpy(series, b + 1);
	return 0;
}

int event_set_from_json(struct event_set *es, struct json_object *o,
			const char *file, struct sw_err *err)
{
	memset(es, 0, sizeof(*es));
	if (!json_object_is_type(o, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: events: not an object", file);
	json_object_object_foreach(o, key, arr) {
		enum metric_source src;
		struct event_samples *s;
		char entity[64], series[32];
		size_t r, n;

		if (parse_key(key, &src, entity, sizeof(entity), series,
			      sizeof(series)))
			goto bad_key;
		n = json_object_is_type(arr, json_type_array) ?
		    json_object_array_length(arr) : METRIC_MAX_REPS + 1;
		if (n > METRIC_MAX_REPS) {
			event_set_free(es);
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: events.%s: not an array of at most %d histograms",
					  file, key, METRIC_MAX_REPS);
		}
		s = set_add(es, src, entity, series);
		if (!s) {
			event_set_free(es);
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		}
		s->n = 0;
		for (r = 0; r < n; r++) {
			if (hist_from_json(&s->rep[r],
					   json_object_array_get_idx(arr, r),
					   file, key, err)) {
				event_set_free(es);
				return -1;
			}
			s->n++;
		}
		if (n > es->reps)
			es->reps = n;
		continue;
bad_key:
		event_set_free(es);
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: events.%s: not a \"source/entity/series\" key",
				  file, key);
	}
	return 0;
}

struct json_object *event_rep_to_json(const struct event_rep *r)
{
	struct json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; o && i < r->n; i++) {
		struct event_samples k = { .source = r->e[i].source };
		char key[160];

		snprintf(k.entity, sizeof(k.entity), "%s", r->e[i].entity);
		snprintf(k.series, sizeof(k.series), "%s", r->e[i].series);
		event_samples_key(&k, key, sizeof(key));
		json_object_object_add(o, key, hist_to_json(&r->e[i].h));
	}
	return o;
}

int event_rep_from_json(struct event_rep *r, struct json_object *o,
			const char *file, struct sw_err *err)
{
	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(o, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: not an object of histograms", file);
	json_object_object_foreach(o, key, val) {
		enum metric_source src;
		char entity[64], series[32];
		struct event_hist *h;

		if (parse_key(key, &src, entity, sizeof(entity), series,
			      sizeof(series))) {
			event_rep_free(r);
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: %s: not a \"source/entity/series\" key",
					  file, key);
		}
		h = event_rep_hist(r, src, entity, series);
		if (!h) {
			event_rep_free(r);
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		}
		if (hist_from_json(h, val, file, key, err)) {
			event_rep_free(r);
			return -1;
		}
	}
	return 0;
}
