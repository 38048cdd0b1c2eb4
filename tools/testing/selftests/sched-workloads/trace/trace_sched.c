// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler state rebuilt from the events, in time order, and the
 * accumulators the trace metrics read. trace/trace_metrics.c defines each
 * metric; this file only keeps the books.
 *
 * Time is integrated lazily: a task or CPU adds the time spent in its
 * current state when that state changes, as the system-wide conditions
 * do (trace/trace_conditions.h). Every interval is clipped to the
 * measured window. No transition moves a `since` backwards.
 */
#include <stdio.h>
#include <stdlib.h>

#include "trace/trace_affinity.h"
#include "trace/trace_cpu_class.h"
#include "trace/trace_report.h"
#include "trace/trace_rt_placement.h"
#include "trace/trace_sched.h"
#include "trace/trace_tasks.h"
#include "trace/trace_timeline.h"
#include "trace/trace_window.h"

int ta_report_init(struct trace_report *r, const char *path, int ncpus,
		   const struct trace_opts *o)
{
	size_t slots = ncpus > 0 ? (size_t)ncpus : 1;

	if (ncpus < 0 || ncpus > CPUBITS_MAX_CPUS)
		return -1;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->tail = &r->tasks;
	r->ncpus = ncpus;
	r->opts = o;
	r->ws = o->start_ns;
	r->we = o->end_ns;
	r->nwords = cpubits_words(ncpus);
	r->cpu = calloc(slots, sizeof(*r->cpu));
	if (!r->cpu || ta_affinity_init(r) || ta_cpu_class_init(r))
		return -1;
	if (o->timeline_end_ns &&
	    tl_init(r, o->timeline_start_ns, o->timeline_end_ns))
		return -1;
	return 0;
}

struct ta_cpu *ta_cpu_of(struct trace_report *r, int cpu)
{
	return cpu >= 0 && cpu < r->ncpus ? &r->cpu[cpu] : NULL;
}

static void cpu_account(struct trace_report *r, struct ta_cpu *c, uint64_t ts)
{
	uint64_t d;

	if (c->known) {
		d = ta_clip(r, c->since, ts);
		if (c->curr)
			c->busy_ns += d;
		else
			c->idle_ns += d;
		if ((c->curr != 0) + c->nwait >= 2)
			c->over_ns += d;
	}
	c->since = ts;
}

/* The timeline's segment of what @cpu ran until @ts. */
static void timeline_cpu(struct trace_report *r, int cpu, uint64_t ts)
{
	struct ta_cpu *c = &r->cpu[cpu];
	struct ta_task *t = ta_task_find(r, c->curr);

	if (c->known)
		tl_add(r, 0, cpu, c->curr, c->curr_prio, t ? t->comm : "<...>",
		       c->tl_since, ts);
	c->tl_since = ts;
}

static void timeline_wait(struct trace_report *r, const struct ta_task *t,
			  uint64_t ts)
{
	tl_add(r, 1, t->cpu, t->pid, t->prio, t->comm, t->rq_ts, ts);
}

/* Sets what runs on @cpu (@known 0: nothing is known any more). */
static void cpu_update(struct trace_report *r, int cpu, int known, int pid,
		       int prio, uint64_t ts)
{
	struct ta_cpu *c = &r->cpu[cpu];
	int before = ta_cpu_class(c);

	if (r->tl && (c->known != known || c->curr != (known ? pid : 0)))
		timeline_cpu(r, cpu, ts);
	cpu_account(r, c, ts);
	if (known && !c->first_ts)
		c->first_ts = ts;
	c->known = known;
	c->curr = known ? pid : 0;
	c->curr_prio = prio;
	if (known && !pid)
		c->idle_ts = ts;
	ta_cpu_reclass(r, cpu, before);
}

void ta_cpu_set_curr(struct trace_report *r, int cpu, int pid, int prio,
		     uint64_t ts)
{
	cpu_update(r, cpu, 1, pid, prio, ts);
}

/* What runs on @cpu is unknown until its next event. */
static void cpu_forget(struct trace_report *r, int cpu, uint64_t ts)
{
	cpu_update(r, cpu, 0, 0, 120, ts);
}

/* @t joins (@delta 1) or leaves (-1) the tasks waiting on its CPU. */
static void wait_count(struct trace_report *r, struct ta_task *t, int delta,
		       uint64_t ts)
{
	struct ta_cpu *c = ta_cpu_of(r, t->cpu);

	if (!c)
		return;
	cpu_account(r, c, ts);
	ta_cpu_waiters(r, t, delta);
}

void ta_task_leave(struct trace_report *r, struct ta_task *t, uint64_t ts)
{
	uint64_t d = ta_clip(r, t->since, ts);

	if (t->state == TS_RUNNING) {
		t->cpu_ns += d;
		if (t->cpu >= 0 && t->cpu < r->ncpus)
			t->cpu_ns_on[t->cpu] += d;
	} else if (t->state == TS_WAITING) {
		if (r->tl)
			timeline_wait(r, t, ts);
		t->wait_ns += d;
		t->wait_cur_ns += d;
		if (t->wait_cur_ns > t->wait_max_ns)
			t->wait_max_ns = t->wait_cur_ns;
		wait_count(r, t, -1, ts);
		if (t->rt_listed)
			ta_rt_list_del(r, t);
	}
	t->since = ts;
}

void ta_task_wait(struct trace_report *r, struct ta_task *t, int cpu,
		  uint64_t ts, int preempted)
{
	ta_task_leave(r, t, ts);
	t->state = TS_WAITING;
	t->cpu = ta_cpu_of(r, cpu) ? cpu : -1;
	t->rq_ts = ts;
	t->rq_preempted = preempted;
	t->wait_cur_ns = 0;
	t->mask = ta_task_mask(r, t);
	wait_count(r, t, 1, ts);
	ta_rt_list_update(r, t);
}

void ta_wait_move(struct trace_report *r, struct ta_task *t, int cpu,
		  uint64_t ts)
{
	if (!ta_cpu_of(r, cpu) || cpu == t->cpu)
		return;
	if (r->tl)
		timeline_wait(r, t, ts);
	wait_count(r, t, -1, ts);
	t->cpu = cpu;
	t->rq_ts = ts;
	t->rq_preempted = 0;
	wait_count(r, t, 1, ts);
}

void ta_task_retire(struct trace_report *r, struct ta_task *t, uint64_t ts)
{
	ta_task_leave(r, t, ts);
	t->state = TS_DEAD;
	t->waking_ts = 0;
	t->pi_block_ts = 0;
	ta_task_unhash(r, t);
}

void ta_pi_end(struct trace_report *r, struct ta_task *t, uint64_t at,
	       uint64_t ts)
{
	uint64_t d;

	if (!t->pi_block_ts)
		return;
	d = ta_clip(r, t->pi_block_ts, at);
	if (ta_in_window(r, ts))
		t->pi_blocks++;
	t->pi_blocked_ns += d;
	if (d > t->pi_blocked_max_ns)
		t->pi_blocked_max_ns = d;
	t->pi_block_ts = 0;
}

void ta_task_run(struct trace_report *r, struct ta_task *t, int cpu,
		 uint64_t ts)
{
	struct ta_cpu *was = t->state == TS_RUNNING ? ta_cpu_of(r, t->cpu) :
			     NULL;

	/* believed on another CPU: its switch out there went unrecorded */
	if (was && t->cpu != cpu && was->known && was->curr == t->pid)
		cpu_forget(r, t->cpu, ts);
	ta_task_leave(r, t, ts);
	t->waking_ts = 0;
	t->state = TS_RUNNING;
	t->cpu = cpu;
}

void ta_sched_finish(struct trace_report *r, uint64_t end)
{
	struct ta_task *t;
	int c;

	for (c = 0; c < r->ncpus; c++) {
		cpu_account(r, &r->cpu[c], end);
		if (r->tl)
			timeline_cpu(r, c, end);
	}
	for (t = r->tasks; t; t = t->next) {
		if (t->state != TS_RUNNING && t->state != TS_WAITING)
			continue;
		/* Close the books without touching the counters. */
		if (t->state == TS_RUNNING) {
			uint64_t d = ta_clip(r, t->since, end);

			t->cpu_ns += d;
			if (t->cpu >= 0)
				t->cpu_ns_on[t->cpu] += d;
		} else {
			if (r->tl)
				timeline_wait(r, t, end);
			t->wait_ns += ta_clip(r, t->since, end);
			t->wait_cur_ns += ta_clip(r, t->since, end);
			if (t->wait_cur_ns > t->wait_max_ns)
				t->wait_max_ns = t->wait_cur_ns;
		}
		t->since = end;
	}
}
