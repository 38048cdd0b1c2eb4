/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What trace/trace_metrics.c gives the other files of the analysis: the
 * classification of a report's tasks and the measured window.
 */
#ifndef SW_TRACE_METRICS_H
#define SW_TRACE_METRICS_H

#include <stdint.h>

#include "trace/trace_report.h"

/* Which tasks are the workload's, kernel threads, the tool's own, ... */
void ta_classify(struct trace_report *r);
/* The measured window's length (0: no events in it). */
uint64_t ta_window_ns(const struct trace_report *r);

#endif /* SW_TRACE_METRICS_H */
