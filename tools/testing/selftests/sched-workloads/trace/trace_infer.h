/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Switches the trace did not record (trace/trace_metrics.c, "Unrecorded
 * switches"): every record's common_pid says what runs on its CPU, and
 * where the books say otherwise, a switch there is inferred.
 */
#ifndef SW_TRACE_INFER_H
#define SW_TRACE_INFER_H

#include <stdint.h>

struct trace_report;

/*
 * Every record first, before its own event: counts it, integrates up to
 * @ts (made monotonic: returned), books @missed events lost before it
 * (< 0: an unknown number) and what its pid says runs on @cpu. After its
 * event: ta_reevaluate() (trace/trace_conditions.h).
 */
uint64_t ta_record(struct trace_report *r, int cpu, int pid, uint64_t ts,
		   long long missed);
/* @pid runs on @cpu at @ts (0: the idle task does). */
void ta_cpu_observe(struct trace_report *r, int cpu, int pid, uint64_t ts);

#endif /* SW_TRACE_INFER_H */
