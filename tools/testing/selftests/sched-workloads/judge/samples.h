/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metric values over repetitions of one workload: what absolute checks
 * judge (the median) and what baseline comparisons test (all of them).
 *
 * A metric of an entity is matched across repetitions by source, entity
 * name and metric; entity names are stable from run to run ("decoder",
 * "hog-2", "cpu1"), pids are not part of them.
 */
#ifndef SW_SAMPLES_H
#define SW_SAMPLES_H

#include <json-c/json.h>
#include "judge/metric_registry.h"
#include "lib/util.h"

struct metric_samples {
	const struct metric_def *def;
	char entity[64];
	char group[32];
	int id;
	int pooled;			/* lib/metric_set.h */
	size_t n;			/* repetitions so far */
	double v[METRIC_MAX_REPS];	/* NAN: not measured in that one */
};

struct sample_set {
	struct metric_samples *s;
	size_t n, cap;
	size_t reps;
};

/* Appends one repetition's values; entities new in it start with NANs. */
int sample_set_add_rep(struct sample_set *ss, const struct metric_set *set);
/* The values of repetition @rep, appended to @out as one run's. */
int sample_set_rep_values(const struct sample_set *ss, size_t rep,
			  struct metric_set *out);
/* Appends every repetition of @from after those of @to. */
int sample_set_append(struct sample_set *to, const struct sample_set *from);
void sample_set_free(struct sample_set *ss);
/* The values that were measured (not NAN), copied to @out; the count. */
size_t samples_measured(const struct metric_samples *ms, double *out);
/* Median of the measured values; NAN when there are none. */
double samples_median(const struct metric_samples *ms);
/* "source/entity/metric", the key of baseline files. */
void samples_key(const struct metric_samples *ms, char *buf, size_t len);
const struct metric_samples *sample_set_find(const struct sample_set *ss,
					     const char *key);
/* {"key": [v1, v2, ...], ...}; and back, for baselines and result dirs. */
struct json_object *sample_set_to_json(const struct sample_set *ss);
int sample_set_from_json(struct sample_set *ss, struct json_object *o,
			 const char *file, struct sw_err *err);

#endif /* SW_SAMPLES_H */
