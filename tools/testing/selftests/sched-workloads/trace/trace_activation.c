// SPDX-License-Identifier: GPL-2.0
/*
 * Activations. A sample is the window's when the event that ends it is in
 * the window: the switch out for run_burst, the wakeup for sleep and
 * wakeup_gap.
 */
#include <stdlib.h>

#include "trace/trace_activation.h"
#include "trace/trace_report.h"
#include "trace/trace_window.h"

static void add_us(struct trace_report *r, struct series *s, uint64_t ns)
{
	if (series_add(s, ns / 1e3))
		r->failed = 1;
}

void ta_activation_begin(struct trace_report *r, struct ta_task *t,
			 int waker, uint64_t ts)
{
	if (ta_in_window(r, ts)) {
		t->wakeups++;
		if (t->sleep_ts)
			add_us(r, &t->sleep, ts - t->sleep_ts);
		if (t->last_wake_ts)
			add_us(r, &t->wakeup_gap, ts - t->last_wake_ts);
	}
	t->sleep_ts = 0;
	t->last_wake_ts = ts;
	t->act_open = 1;
	t->act_wake_ts = ts;
	t->act_cpu_ns = t->cpu_ns;
	t->act_waker = waker;
}

void ta_activation_end(struct trace_report *r, struct ta_task *t, int cpu,
		       uint64_t ts)
{
	struct trace_activation *a;

	t->sleep_ts = ts;
	if (!t->act_open)
		return;
	t->act_open = 0;
	if (!ta_in_window(r, ts))
		return;
	add_us(r, &t->run_burst, t->cpu_ns - t->act_cpu_ns);
	/* every task's: which are selected is known after the reading */
	if (!r->opts || !r->opts->keep_activations)
		return;
	if (t->nacts == t->acts_cap) {
		size_t cap = t->acts_cap ? 2 * t->acts_cap : 256;

		a = realloc(t->acts, cap * sizeof(*a));
		if (!a) {
			r->failed = 1;
			return;
		}
		t->acts = a;
		t->acts_cap = cap;
	}
	a = &t->acts[t->nacts++];
	a->wake_ns = t->act_wake_ts;
	a->end_ns = ts;
	a->run_ns = t->cpu_ns - t->act_cpu_ns;
	a->waker = t->act_waker;
	a->cpu = cpu;
}
