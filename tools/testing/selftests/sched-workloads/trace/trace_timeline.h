/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timeline trace_opts may ask for (timeline_start_ns, _end_ns): the
 * segments the state machine hands over as they end, kept where they
 * overlap the span. trace_report_timeline() (trace/trace.h) writes it.
 */
#ifndef SW_TRACE_TIMELINE_H
#define SW_TRACE_TIMELINE_H

#include <stdint.h>

struct trace_report;

int tl_init(struct trace_report *r, uint64_t start, uint64_t end);
void tl_free(struct trace_report *r);
/* A segment that ended: @waiting 0, @pid ran on @cpu; 1, it waited there. */
void tl_add(struct trace_report *r, int waiting, int cpu, int pid, int prio,
	    const char *comm, uint64_t start, uint64_t end);

#endif /* SW_TRACE_TIMELINE_H */
