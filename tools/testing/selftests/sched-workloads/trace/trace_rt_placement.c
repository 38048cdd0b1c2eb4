// SPDX-License-Identifier: GPL-2.0
/*
 * RT placement. A taken CPU runs its first fresh RT waiter next (by
 * priority, then queueing order), or a fair task when it has none; the
 * task it runs next waits for no CPU (trace/trace_metrics.c, "Taken
 * CPUs").
 */
#include <stdio.h>
#include <string.h>

#include "trace/trace_affinity.h"
#include "trace/trace_cpu_class.h"
#include "trace/trace_report.h"
#include "trace/trace_rt_placement.h"
#include "trace/trace_stretch.h"
#include "trace/trace_tasks.h"

static void rt_stretch_end(struct trace_report *r, struct ta_task *t,
			   uint64_t ts)
{
	t->rt_lower = 0;
	ta_stretch_end(r, &r->rt_stretches, &t->rt_cur, ts);
}

void ta_rt_list_del(struct trace_report *r, struct ta_task *t)
{
	struct ta_task **pp;

	for (pp = &r->rt_waiting; *pp; pp = &(*pp)->rt_next) {
		if (*pp == t) {
			*pp = t->rt_next;
			break;
		}
	}
	t->rt_next = NULL;
	t->rt_listed = 0;
	/* the conditions were integrated up to this event */
	if (t->rt_lower)
		rt_stretch_end(r, t, r->last_adv);
}

void ta_rt_list_update(struct trace_report *r, struct ta_task *t)
{
	/* all of them: they make the CPUs they are about to take busy */
	int listed = t->state == TS_WAITING && t->prio < 100;

	if (t->rt_listed && !listed) {
		ta_rt_list_del(r, t);
	} else if (!t->rt_listed && listed) {
		t->rt_next = r->rt_waiting;
		r->rt_waiting = t;
		t->rt_listed = 1;
	}
	if (t->prio < 100)
		t->was_rt = 1;
}

/* Runs before @b on a CPU both were queued on (FIFO within a priority). */
static int runs_first(const struct ta_task *a, const struct ta_task *b)
{
	if (a->prio != b->prio)
		return a->prio < b->prio;
	if (a->rq_ts != b->rq_ts)
		return a->rq_ts < b->rq_ts;
	return a->pid < b->pid;
}

/*
 * The waiting task a taken CPU runs next: the first of its fresh RT
 * waiters, NULL when they are all fair tasks (lower than any RT one).
 */
static const struct ta_task *taken_by(const struct trace_report *r, int cpu)
{
	const struct ta_task *t, *best = NULL;

	for (t = r->rt_waiting; t; t = t->rt_next)
		if (t->cpu == cpu && !t->rq_preempted &&
		    (!best || runs_first(t, best)))
			best = t;
	return best;
}

/* A CPU of @t's affinity that idles or runs lower while @t waits, or -1. */
static int rt_condition(const struct trace_report *r, const struct ta_task *t)
{
	const struct ta_task *next;
	int c;

	if (t->mask == TA_MASK_NONE)
		return -1;
	/* about to run on the CPU it took: not waiting for one */
	if (t->cpu >= 0 && ta_cpu_class(&r->cpu[t->cpu]) == CPU_TAKEN &&
	    taken_by(r, t->cpu) == t)
		return -1;
	for (c = 0; c < r->ncpus; c++) {
		const struct ta_cpu *cp = &r->cpu[c];

		if (!ta_mask_has(r, t->mask, c))
			continue;
		switch (ta_cpu_class(cp)) {
		case CPU_IDLE:
			return c;
		case CPU_BUSY:
			if (cp->curr_prio > t->prio)
				return c;
			break;
		case CPU_TAKEN:
			next = taken_by(r, c);
			if (!next || next->prio > t->prio)
				return c;
			break;
		}
	}
	return -1;
}

/* Starts @t's rt_lower stretch at @ts, naming @cpu and what it runs. */
static void rt_stretch_begin(struct trace_report *r, struct ta_task *t,
			     int cpu, uint64_t ts)
{
	const struct ta_cpu *cp = &r->cpu[cpu];
	struct ta_stretch *e = &t->rt_cur;
	const struct ta_task *o = NULL;

	memset(e, 0, sizeof(*e));
	t->rt_lower = 1;
	e->start = ts;
	e->pid = t->pid;
	e->cpu = t->cpu;
	snprintf(e->comm, sizeof(e->comm), "%s", t->comm);
	e->other_cpu = cpu;
	e->other_pid = -1;
	if (ta_cpu_class(cp) == CPU_BUSY) {
		e->other_pid = cp->curr;
		e->other_prio = cp->curr_prio;
		o = ta_task_find(r, cp->curr);
	} else if (ta_cpu_class(cp) == CPU_IDLE) {
		e->other_pid = 0;
	} else {
		e->other_taken = 1;
		o = taken_by(r, cpu);	/* NULL: a fair task is next */
		if (o) {
			e->other_pid = o->pid;
			e->other_prio = o->prio;
		}
	}
	if (o)
		snprintf(e->other_comm, sizeof(e->other_comm), "%s", o->comm);
}

void ta_rt_advance(struct trace_report *r, uint64_t d)
{
	struct ta_task *t;

	for (t = r->rt_waiting; t; t = t->rt_next) {
		if (t->rt_lower) {
			t->rt_lower_ns += d;
			r->rt_lower_ns += d;
		}
	}
}

void ta_rt_reevaluate(struct trace_report *r, uint64_t ts)
{
	struct ta_task *t;

	for (t = r->rt_waiting; t; t = t->rt_next) {
		int cpu = rt_condition(r, t);

		if (cpu >= 0 && !t->rt_lower)
			rt_stretch_begin(r, t, cpu, ts);
		else if (cpu < 0 && t->rt_lower)
			rt_stretch_end(r, t, ts);
	}
}

void ta_rt_finish(struct trace_report *r, uint64_t end)
{
	struct ta_task *t;

	for (t = r->rt_waiting; t; t = t->rt_next)
		if (t->rt_lower)
			rt_stretch_end(r, t, end);
}
