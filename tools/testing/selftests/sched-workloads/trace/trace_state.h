/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transitional: what trace/trace_read.c and trace/trace_metrics.c see of
 * the analysis until they include the headers of what they call. The
 * types are trace/trace_report.h's, the functions are each declared in
 * the header of their file; but trace/trace_metrics.c has none yet, and
 * its two functions that other files call are declared here.
 */
#ifndef SW_TRACE_STATE_H
#define SW_TRACE_STATE_H

#include <stdint.h>

#include "trace/trace_conditions.h"
#include "trace/trace_events.h"
#include "trace/trace_infer.h"
#include "trace/trace_report.h"
#include "trace/trace_sched.h"
#include "trace/trace_timeline.h"

/* trace/trace_metrics.c: which tasks are the workload's, kernel threads, ... */
void ta_classify(struct trace_report *r);
/* The measured window's length (0: no events in it). */
uint64_t ta_window_ns(const struct trace_report *r);

#endif /* SW_TRACE_STATE_H */
