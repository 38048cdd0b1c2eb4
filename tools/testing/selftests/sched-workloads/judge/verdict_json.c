// SPDX-License-Identifier: GPL-2.0
/*
 * verdicts.json, the results of a workload's checks as JSON.
 */
#include <stdio.h>

#include "judge/verdict_json.h"
#include "lib/json_util.h"

static struct json_object *detectable_json(const struct detectable *d,
					   const char *unit)
{
	struct json_object *o = json_object_new_object();
	char text[256];

	detectable_describe(d, unit, text, sizeof(text));
	json_object_object_add(o, "baseline", json_new_number(d->baseline));
	json_object_object_add(o, "matters", json_new_number(d->matters));
	json_object_object_add(o, "effect", json_new_number(d->effect));
	json_object_object_add(o, "ratio", json_new_number(d->ratio));
	json_object_object_add(o, "cannot", json_object_new_boolean(d->cannot));
	json_object_object_add(o, "text", json_object_new_string(text));
	return o;
}

int verdict_results_write_json(const struct verdict_results *res, FILE *f)
{
	struct json_object *arr = json_object_new_array();
	size_t i;
	int ret = 0;

	if (!arr)
		return -1;
	for (i = 0; i < res->n; i++) {
		const struct verdict_result *r = &res->r[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(r->name));
		json_object_object_add(o, "status",
				       json_object_new_string(verdict_status_name(r->status)));
		json_object_object_add(o, "kind", json_object_new_string(
				       r->kind == CHECK_ABSOLUTE ? "absolute" :
				       "baseline"));
		json_object_object_add(o, "entity",
				       json_object_new_string(r->entity));
		if (r->def) {
			json_object_object_add(o, "metric",
					       json_object_new_string(r->def->name));
			json_object_object_add(o, "unit",
					       json_object_new_string(r->def->unit));
		}
		json_object_object_add(o, "value", json_new_number(r->value));
		json_object_object_add(o, "limit", json_new_number(r->limit));
		json_object_object_add(o, "room", json_new_number(r->room));
		if (r->kind == CHECK_ABSOLUTE && r->reps) {
			json_object_object_add(o, "reps",
					       json_object_new_int64(r->reps));
			json_object_object_add(o, "beyond",
					       json_object_new_int64(r->beyond));
		}
		if (r->kind == CHECK_BASELINE)
			json_object_object_add(o, "change", json_object_new_string(
					       change_kind_name(r->change)));
		if (r->has_detect)
			json_object_object_add(o, "detectable",
					       detectable_json(&r->detect,
							       r->def->unit));
		json_object_object_add(o, "diag", json_object_new_string(r->diag));
		json_object_array_add(arr, o);
	}
	if (fprintf(f, "%s\n", json_object_to_json_string_ext(arr,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -1;
	json_object_put(arr);
	return ret;
}

static int write_results(FILE *f, const void *res)
{
	return verdict_results_write_json(res, f);
}

int verdict_results_write_file(const struct verdict_results *res,
			       const char *path)
{
	return write_stream_file(path, write_results, res);
}
