// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the JSON files a run leaves and compare and the
 * battery read back (a baseline, metrics.json, samples.json,
 * events.json). Accepted, every recorded value is finite or unknown.
 */
#include <math.h>

#include "fuzz_common.h"
#include "judge/baseline.h"

static void check_samples(const struct sample_set *ss, const char *what)
{
	size_t i, k;

	for (i = 0; i < ss->n; i++) {
		if (ss->s[i].n > METRIC_MAX_REPS)
			fuzz_fail("%s: %zu repetitions", what, ss->s[i].n);
		for (k = 0; k < ss->s[i].n; k++)
			if (isinf(ss->s[i].v[k]))
				fuzz_fail("%s: %s of %s is %g", what,
					  ss->s[i].def->name, ss->s[i].entity,
					  ss->s[i].v[k]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("fuzz.json", data, size);
	struct metric_set set = { 0 };
	struct sw_err err = { 0 };
	struct sample_set ss = { 0 };
	struct event_rep r = { 0 };
	struct json_object *o;
	struct baseline b;

	if (!baseline_load(path, &b, &err)) {
		check_samples(&b.samples, "baseline");
		check_samples(&b.canary, "baseline canary");
		baseline_free(&b);
	}
	o = json_object_from_file(path);
	if (!o)
		return 0;
	if (!metric_set_from_json(&set, o, path, &err))
		fuzz_check_values(&set, "metrics.json");
	metric_set_free(&set);
	if (!sample_set_from_json(&ss, o, path, &err))
		check_samples(&ss, "samples.json");
	sample_set_free(&ss);
	event_rep_from_json(&r, o, path, &err);
	event_rep_free(&r);
	json_object_put(o);
	return 0;
}
