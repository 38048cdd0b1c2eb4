// SPDX-License-Identifier: GPL-2.0
/*
 * Metric sources by name (lib/metric.h).
 */
#include <string.h>

#include "lib/metric.h"

static const char *const source_names[SRC_NR] = {
	[SRC_RTAPP_TASK] = "rtapp_tasks",
	[SRC_TRACE_TASK] = "trace_tasks",
	[SRC_TRACE_CPU] = "cpus",
	[SRC_TRACE_SYSTEM] = "system",
	[SRC_CANARY] = "canary",
	[SRC_HOST] = "host",
};

const char *metric_source_name(enum metric_source src)
{
	return src >= 0 && src < SRC_NR ? source_names[src] : "unknown";
}

int metric_source_parse(const char *name, size_t len, enum metric_source *src)
{
	int s;

	for (s = 0; s < SRC_NR; s++) {
		if (strlen(source_names[s]) == len &&
		    !strncmp(name, source_names[s], len)) {
			*src = s;
			return 0;
		}
	}
	return -1;
}
