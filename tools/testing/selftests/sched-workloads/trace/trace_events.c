// SPDX-License-Identifier: GPL-2.0
/*
 * What each scheduler, IPI and power event means to the books (the rules
 * are trace/trace_metrics.c's, "Task states"). A sched_switch's prev_pid
 * and every record's common_pid may contradict the books: those switches
 * are inferred first (trace/trace_infer.h).
 */
#include <math.h>

#include "trace/trace_activation.h"
#include "trace/trace_conditions.h"
#include "trace/trace_events.h"
#include "trace/trace_fork.h"
#include "trace/trace_infer.h"
#include "trace/trace_report.h"
#include "trace/trace_rt_placement.h"
#include "trace/trace_sched.h"
#include "trace/trace_tasks.h"
#include "trace/trace_window.h"

void ta_switch(struct trace_report *r, int cpu, uint64_t ts, int prev_pid,
	       const char *prev_comm, int prev_prio, long prev_state,
	       int next_pid, const char *next_comm, int next_prio)
{
	struct ta_cpu *c = ta_cpu_of(r, cpu);
	struct ta_task *t;

	if (!c)
		return;
	/* prev_pid ran here, whatever the books said */
	if (prev_pid >= 0)
		ta_cpu_observe(r, cpu, prev_pid, ts);
	t = ta_task_get(r, prev_pid, prev_comm, ts);
	if (t) {
		/* 6.x: runnable (preempted) iff the low byte is 0 */
		int runnable = (prev_state & 0xff) == 0;

		t->prio = prev_prio;
		t->switch_prio = prev_prio;
		if (ta_in_window(r, ts)) {
			if (runnable)
				t->invol++;
			else
				t->vol++;
		}
		/* A wakeup seen while it was still on the CPU is void. */
		t->waking_ts = 0;
		if (t->state != TS_RUNNING)
			t->cpu = cpu;	/* it ran here after all */
		if (runnable) {
			ta_task_wait(r, t, cpu, ts, 1);
		} else if (t->exiting) {
			ta_task_retire(r, t, ts);
		} else {
			ta_task_leave(r, t, ts);
			t->state = TS_SLEEPING;
			ta_activation_end(r, t, cpu, ts);
		}
	}

	t = ta_task_get(r, next_pid, next_comm, ts);
	if (t) {
		t->prio = next_prio;
		t->switch_prio = next_prio;
		/* an observed switch in: the one exact latency sample */
		if (t->state == TS_WAITING && t->waking_ts &&
		    ta_in_window(r, ts) &&
		    series_add(&t->wakeup_lat, (ts - t->waking_ts) / 1e3))
			r->failed = 1;
		ta_pi_end(r, t, ts, ts);
		ta_task_run(r, t, cpu, ts);
	}
	ta_cpu_set_curr(r, cpu, next_pid > 0 ? next_pid : 0, next_prio, ts);
}

void ta_waking(struct trace_report *r, uint64_t ts, int pid,
	       const char *comm, int prio, int target_cpu, int is_new,
	       int waker)
{
	struct ta_task *t = ta_task_get(r, pid, comm, ts);

	if (!t)
		return;
	/* A fork reusing a pid we knew: the old task is gone. */
	if (is_new && t->state != TS_UNKNOWN) {
		ta_task_retire(r, t, ts);
		t = ta_task_get(r, pid, comm, ts);
		if (!t)
			return;
	}
	/* creation order names a task's threads (lib/entity_name.h) */
	if (is_new && !t->born_ts) {
		t->born_ts = ts;
		if (ta_fork_placed(r, t, target_cpu))
			r->failed = 1;
	}
	t->prio = prio;
	if (t->state == TS_RUNNING || t->state == TS_WAITING) {
		if (t->state == TS_WAITING)
			ta_rt_list_update(r, t);
		return;		/* still on a CPU or a runqueue */
	}
	/* A new task has no sched_waking: it waits, but is no wakeup sample. */
	t->waking_ts = is_new ? 0 : ts;
	ta_task_wait(r, t, target_cpu, ts, 0);
	if (!is_new)
		ta_activation_begin(r, t, waker, ts);
}

void ta_wakeup(struct trace_report *r, uint64_t ts, int pid,
	       const char *comm, int prio, int target_cpu, int is_new,
	       int waker)
{
	struct ta_task *t;

	if (is_new) {
		ta_waking(r, ts, pid, comm, prio, target_cpu, 1, waker);
		return;
	}
	t = ta_task_get(r, pid, comm, ts);
	if (!t)
		return;
	if (t->state == TS_WAITING) {
		/* sched_waking guessed the CPU; this is where it queued */
		ta_wait_move(r, t, target_cpu, ts);
		return;
	}
	/* No sched_waking recorded: the wakeup starts the wait. */
	ta_waking(r, ts, pid, comm, prio, target_cpu, 0, waker);
}

void ta_migrate(struct trace_report *r, uint64_t ts, int pid,
		const char *comm, int orig_cpu, int dest_cpu)
{
	struct ta_task *t = ta_task_get(r, pid, comm, ts);

	if (!t || !ta_cpu_of(r, dest_cpu))
		return;
	if (orig_cpu != dest_cpu && ta_in_window(r, ts))
		t->migrations++;
	if (t->state == TS_WAITING)
		ta_wait_move(r, t, dest_cpu, ts);
	else if (t->state != TS_RUNNING)
		t->cpu = dest_cpu;
}

void ta_exit(struct trace_report *r, uint64_t ts, int pid, const char *comm)
{
	struct ta_task *t = ta_task_get(r, pid, comm, ts);

	if (t)
		t->exiting = 1;
}

void ta_pi_setprio(struct trace_report *r, uint64_t ts, int waiter, int pid,
		   int oldprio, int newprio)
{
	struct ta_task *t = ta_task_get(r, pid, NULL, ts), *w;

	if (!t)
		return;
	t->prio = newprio;
	if (t->state == TS_WAITING)
		ta_rt_list_update(r, t);
	else if (newprio < 100)
		t->was_rt = 1;
	if (newprio >= oldprio)
		return;
	if (ta_in_window(r, ts))
		t->pi_boosts++;
	/* The task raising the owner's priority is the one about to block. */
	if (waiter <= 0 || waiter == pid)
		return;
	w = ta_task_get(r, waiter, NULL, ts);
	if (w && !w->pi_block_ts)
		w->pi_block_ts = ts;
}

void ta_ipi(struct trace_report *r, uint64_t ts, int cpu)
{
	if (!ta_cpu_of(r, cpu) || !ta_in_window(r, ts))
		return;
	r->cpu[cpu].ipi++;
	r->ipi_total++;
}

void ta_freq(struct trace_report *r, uint64_t ts, int cpu, unsigned long khz)
{
	struct ta_cpu *c = ta_cpu_of(r, cpu);
	uint64_t start = r->ws ? r->ws : r->first_ts;

	if (!c)
		return;
	c->freq_events++;
	if (ts < start) {
		c->freq_before = khz;
		if (khz > c->freq_max) {
			c->freq_max = khz;
			c->freq_reach_ts = 0;
		}
		return;
	}
	if (!ta_in_window(r, ts))
		return;
	if (khz > c->freq_max) {
		c->freq_max = khz;
		c->freq_reach_ts = ts;
	} else if (khz == c->freq_max && !c->freq_reach_ts) {
		c->freq_reach_ts = ts;
	}
}

/* freq.time_to_max of @cp, from the window's start at @start. */
static void freq_finish(struct ta_cpu *cp, uint64_t start)
{
	cp->freq_to_max_us = NAN;
	if (cp->freq_events && cp->freq_before &&
	    cp->freq_before == cp->freq_max)
		cp->freq_to_max_us = 0;	/* already at max */
	else if (cp->freq_reach_ts)
		cp->freq_to_max_us = (cp->freq_reach_ts - start) / 1e3;
}

void ta_finish(struct trace_report *r)
{
	uint64_t end = r->last_ts;
	int c;

	if (r->we && r->we < end)
		end = r->we;
	r->end_ts = end;
	ta_conditions_finish(r, end);
	ta_sched_finish(r, end);
	for (c = 0; c < r->ncpus; c++)
		freq_finish(&r->cpu[c], r->ws ? r->ws : r->first_ts);
}
