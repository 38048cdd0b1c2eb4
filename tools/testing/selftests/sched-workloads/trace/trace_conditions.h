/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system-wide conditions, integrated lazily: ta_advance() adds the
 * time since the last event to each condition that held over it, before
 * an event changes any state; ta_reevaluate(), after the event, decides
 * which hold now, starting and ending their stretches. They are work
 * conservation (trace/trace_work_conservation.h), RT placement
 * (trace/trace_rt_placement.h) and SMT stacking (smt.stacked_share): a
 * core of two or more threads running a task on each while another core
 * idles on all of its, as the CPU classes count them.
 */
#ifndef SW_TRACE_CONDITIONS_H
#define SW_TRACE_CONDITIONS_H

#include <stdint.h>

struct trace_report;

void ta_advance(struct trace_report *r, uint64_t ts);
void ta_reevaluate(struct trace_report *r, uint64_t ts);
/* Integrates up to @end, the window's, and ends the stretches open there. */
void ta_conditions_finish(struct trace_report *r, uint64_t end);

#endif /* SW_TRACE_CONDITIONS_H */
