// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics measured on the trace (filled in by the trace analyzer work).
 */
#include "metrics.h"

const struct metric_def trace_metric_defs[] = {
	{ NULL },
};
const size_t trace_metric_count;
