/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Activations: a task woken while asleep runs until it is next switched
 * out asleep. Each feeds the task's run_burst, sleep and wakeup_gap series
 * and, with trace_opts.keep_activations, its list of struct
 * trace_activation (trace/trace.h).
 */
#ifndef SW_TRACE_ACTIVATION_H
#define SW_TRACE_ACTIVATION_H

#include <stdint.h>

struct trace_report;
struct ta_task;

/* @t, asleep (or never seen), is woken at @ts in @waker's context. */
void ta_activation_begin(struct trace_report *r, struct ta_task *t,
			 int waker, uint64_t ts);
/* @t was switched out of @cpu at @ts while not runnable: asleep. */
void ta_activation_end(struct trace_report *r, struct ta_task *t, int cpu,
		       uint64_t ts);

#endif /* SW_TRACE_ACTIVATION_H */
