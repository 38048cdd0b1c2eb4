// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads --facts: what the python3 programs (lab/, and the desk's
 * tools/testing/sched-workloads/) would otherwise restate, as JSON, so that
 * each has one owner here (lab/facts.py reads it):
 *
 *   {"exit_codes": {"PASS": 0, ...},         lib/util.h
 *    "event_bins": {..., "edges": [...]},     lib/event_hist.h
 *    "canary_machine": [{"metric": "canary.loop_ns", "unit": "ns"}, ...]}
 *                                             judge/machine_drift.h
 */
#include <stdio.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "judge/machine_drift.h"
#include "judge/metric_registry.h"
#include "lib/event_hist.h"
#include "lib/util.h"

static struct json_object *exit_codes_json(void)
{
	struct json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < sw_exit_ncodes; i++)
		json_object_object_add(o, sw_exit_codes[i].name,
				       json_object_new_int(sw_exit_codes[i].code));
	return o;
}

static struct json_object *canary_machine_json(void)
{
	struct json_object *arr = json_object_new_array();
	const struct metric_def *def;
	struct json_object *m;
	size_t i;

	for (i = 0; i < canary_machine_nmetrics; i++) {
		def = metric_find(canary_machine_metrics[i]);
		m = json_object_new_object();
		json_object_object_add(m, "metric",
				       json_object_new_string(canary_machine_metrics[i]));
		json_object_object_add(m, "unit",
				       json_object_new_string(def ? def->unit : ""));
		json_object_array_add(arr, m);
	}
	return arr;
}

int cmd_facts(int argc, char **argv)
{
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "",
		.what = "Prints, as JSON, the exit codes, the edges of the event histograms'\n"
			"bins and the canary's figures that tell a slower machine: what the\n"
			"python3 programs take from here.",
	};
	struct json_object *o;
	int first;

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	o = json_object_new_object();
	json_object_object_add(o, "exit_codes", exit_codes_json());
	json_object_object_add(o, "event_bins", event_bins_json(1));
	json_object_object_add(o, "canary_machine", canary_machine_json());
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return SW_EXIT_PASS;
}
