/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metric registry: every metric a verdict block may name, one row
 * (lib/metric.h) in the table of the source that measures it. The
 * verdict parser, the metrics.json reader, "sched-workloads metrics" and
 * the documentation test all read this one list, in this order: rt-app's
 * logs, the trace, the canary, the host gauge.
 */
#ifndef SW_METRIC_REGISTRY_H
#define SW_METRIC_REGISTRY_H

#include <stdio.h>
#include <json-c/json.h>
#include "lib/metric_set.h"
#include "lib/util.h"

const struct metric_def *metric_find(const char *name);
/* Calls fn for every registered metric, in table order. */
void metric_for_each(void (*fn)(const struct metric_def *def, void *arg),
		     void *arg);

/*
 * Reads what metric_set_write_json() (lib/metric_set.h) wrote: every
 * name is looked up here. Errors name @file; a metric this version no
 * longer has is left out.
 */
int metric_set_from_json(struct metric_set *set, struct json_object *o,
			 const char *file, struct sw_err *err);

#endif /* SW_METRIC_REGISTRY_H */
