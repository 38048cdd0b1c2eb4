/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task/CPU state machine: what each task and CPU is doing, and the
 * time each spent doing it. ta_report_init() sizes a report; the
 * transitions below are the steps the events (trace/trace_events.h) and
 * the unrecorded switches (trace/trace_infer.h) are made of.
 */
#ifndef SW_TRACE_SCHED_H
#define SW_TRACE_SCHED_H

#include <stdint.h>

struct trace_opts;
struct trace_report;
struct ta_cpu;
struct ta_task;

/* For @ncpus (at most CPUBITS_MAX_CPUS); 0, or -1 (out of memory). */
int ta_report_init(struct trace_report *r, const char *path, int ncpus,
		   const struct trace_opts *o);
/* CPU @cpu of the trace, or NULL when it has none of that number. */
struct ta_cpu *ta_cpu_of(struct trace_report *r, int cpu);
/* @pid (0: idle) runs on @cpu from @ts, at kernel prio @prio. */
void ta_cpu_set_curr(struct trace_report *r, int cpu, int pid, int prio,
		     uint64_t ts);
/* Adds the time spent in the current state and leaves it. */
void ta_task_leave(struct trace_report *r, struct ta_task *t, uint64_t ts);
/* @preempted: switched out runnable, not woken or moved there. */
void ta_task_wait(struct trace_report *r, struct ta_task *t, int cpu,
		  uint64_t ts, int preempted);
/* Moves a waiting task to another runqueue. */
void ta_wait_move(struct trace_report *r, struct ta_task *t, int cpu,
		  uint64_t ts);
/* The pid is gone (exited, or reused without an exit seen). */
void ta_task_retire(struct trace_report *r, struct ta_task *t, uint64_t ts);
/* Ends @t's PI wait at @at, when it is switched in; @ts is the event's. */
void ta_pi_end(struct trace_report *r, struct ta_task *t, uint64_t at,
	       uint64_t ts);
/* @t runs on @cpu from @ts on (the caller sets the CPU's side). */
void ta_task_run(struct trace_report *r, struct ta_task *t, int cpu,
		 uint64_t ts);
/* Closes the books of every CPU and task at @end, no counter touched. */
void ta_sched_finish(struct trace_report *r, uint64_t end);

#endif /* SW_TRACE_SCHED_H */
