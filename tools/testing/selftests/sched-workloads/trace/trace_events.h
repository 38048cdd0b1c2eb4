/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events the analysis reads, each as one call, in time order, between
 * ta_record() and ta_reevaluate() (trace/trace_infer.h,
 * trace/trace_conditions.h); ta_finish() after the last.
 */
#ifndef SW_TRACE_EVENTS_H
#define SW_TRACE_EVENTS_H

#include <stdint.h>

struct trace_report;

void ta_switch(struct trace_report *r, int cpu, uint64_t ts, int prev_pid,
	       const char *prev_comm, int prev_prio, long prev_state,
	       int next_pid, const char *next_comm, int next_prio);
/* @waker: the pid the event was taken in (0: idle or an interrupt of it) */
void ta_waking(struct trace_report *r, uint64_t ts, int pid,
	       const char *comm, int prio, int target_cpu, int is_new,
	       int waker);
void ta_wakeup(struct trace_report *r, uint64_t ts, int pid,
	       const char *comm, int prio, int target_cpu, int is_new,
	       int waker);
void ta_migrate(struct trace_report *r, uint64_t ts, int pid,
		const char *comm, int orig_cpu, int dest_cpu);
void ta_exit(struct trace_report *r, uint64_t ts, int pid, const char *comm);
void ta_pi_setprio(struct trace_report *r, uint64_t ts, int waiter, int pid,
		   int oldprio, int newprio);
void ta_ipi(struct trace_report *r, uint64_t ts, int cpu);
void ta_freq(struct trace_report *r, uint64_t ts, int cpu,
	     unsigned long khz);
/* The window ends at the last event, or before it: the books close. */
void ta_finish(struct trace_report *r);

#endif /* SW_TRACE_EVENTS_H */
