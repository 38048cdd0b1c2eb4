/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event distributions: every activation of a repetition (each wakeup
 * latency, each pass's slack), kept as a histogram so that tails can be
 * judged on the pooled events of all repetitions (judge/compare.c) instead of
 * on one p99 per repetition, which one disturbed second moves tenfold.
 *
 * Bins are logarithmic and signed, EVENT_BINS_PER_OCTAVE per doubling
 * (4.4% wide): a value v with |v| >= EVENT_MIN_ABS falls in bin
 * sign(v) * (1 + floor(EVENT_BINS_PER_OCTAVE * log2(|v| / EVENT_MIN_ABS))),
 * a smaller one in bin 0. The smallest and largest values are kept
 * exactly. Values are in the metric's unit (us, or a ratio).
 */
#ifndef SW_EVENTS_H
#define SW_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "lib/metric.h"
#include "lib/util.h"

#define EVENT_BINS_PER_OCTAVE	16
#define EVENT_MIN_ABS		0.01
#define EVENT_OCTAVES		44	/* up to 1.7e11: days in us */
#define EVENT_HALF		(EVENT_OCTAVES * EVENT_BINS_PER_OCTAVE)
#define EVENT_NBINS		(2 * EVENT_HALF + 1)

struct event_hist {
	uint32_t *count;	/* EVENT_NBINS, bin b at count[b + EVENT_HALF] */
	uint64_t n;
	double min, max;
};

int event_hist_add(struct event_hist *h, double v);
/* @count events of value @v. */
int event_hist_add_n(struct event_hist *h, double v, uint64_t count);
/* Adds every event of @from to @to (pooling repetitions). */
int event_hist_merge(struct event_hist *to, const struct event_hist *from);
void event_hist_free(struct event_hist *h);
/*
 * The q-quantile by nearest rank (q = 0: the minimum, 1: the maximum,
 * both exact; otherwise the middle of the rank's bin); NAN when empty.
 */
double event_hist_quantile(const struct event_hist *h, double q);
/*
 * Events above @t (@side > 0) or below it (@side < 0). A bin that @t
 * cuts is counted when @inclusive, not otherwise: the two give the
 * bounds between which the exact count lies.
 */
uint64_t event_hist_beyond(const struct event_hist *h, double t, int side,
			   int inclusive);
/*
 * What-if copies, for the detectable effect of a tail check
 * (judge/detectable.h). @out is emptied first and may be reused.
 * event_hist_shift(): every event of @h moved by @by (each bin's events
 * at its middle). event_hist_overrun(): @h with its @k lowest events at
 * or above 0 moved to -1 (a pass's slack turned into an overrun).
 */
int event_hist_shift(const struct event_hist *h, double by,
		     struct event_hist *out);
int event_hist_overrun(const struct event_hist *h, uint64_t k,
		       struct event_hist *out);

/*
 * How events are binned, as a run's index.json states it: {"per_octave",
 * "min_abs", "octaves"}; with @edges, also "edges": the upper edge of
 * bins 0 to EVENT_HALF, null for the last (open) one. Bin 0 spans
 * -edges[0] to edges[0], bin b > 0 edges[b - 1] to edges[b], bin -b is
 * bin b mirrored. The python3 readers draw with these edges
 * ("sched-workloads --facts") rather than work them out again.
 */
struct json_object *event_bins_json(int edges);

/* The distributions of one series of one entity, one per repetition. */
struct event_samples {
	enum metric_source source;
	char entity[64];
	char series[32];
	size_t n;			/* repetitions */
	struct event_hist rep[METRIC_MAX_REPS];
};

struct event_set {
	struct event_samples *s;
	size_t n, cap;
	size_t reps;
};

/* One series of one entity in one repetition. */
struct event_entry {
	enum metric_source source;
	char entity[64];
	char series[32];
	struct event_hist h;
};

/* Every series of one repetition, before it joins an event_set. */
struct event_rep {
	struct event_entry *e;
	size_t n, cap;
};

/* The histogram of that series in @r, created empty when new. */
struct event_hist *event_rep_hist(struct event_rep *r, enum metric_source src,
				  const char *entity, const char *series);
void event_rep_free(struct event_rep *r);

/*
 * Appends one repetition; series absent from it get an empty histogram
 * there, as do series new in it for the repetitions before.
 */
int event_set_add_rep(struct event_set *es, const struct event_rep *r);
void event_set_free(struct event_set *es);
const struct event_samples *event_set_find(const struct event_set *es,
					   enum metric_source src,
					   const char *entity,
					   const char *series);
/* "source/entity/series", the key in files. */
void event_samples_key(const struct event_samples *e, char *buf, size_t len);
/*
 * {"key": [{"n": N, "min": x, "max": y, "bins": [b, count, ...]}, ...]};
 * @keep (may be NULL) says which series to write.
 */
struct json_object *event_set_to_json(const struct event_set *es,
				      int (*keep)(const struct event_samples *e,
						  void *arg), void *arg);
int event_set_from_json(struct event_set *es, struct json_object *o,
			const char *file, struct sw_err *err);
/* One repetition's histograms, as event_set_to_json() writes one. */
struct json_object *event_rep_to_json(const struct event_rep *r);
int event_rep_from_json(struct event_rep *r, struct json_object *o,
			const char *file, struct sw_err *err);

#endif /* SW_EVENTS_H */
