// SPDX-License-Identifier: GPL-2.0
/*
 * Unrecorded switches, inferred where a record's common_pid differs from
 * what the books put on its CPU: ta_cpu_observe() checks, infer_switch()
 * brings the books in line. The only retroactive change to the books is
 * the estimate of infer_switch(), which moves one interval from runnable
 * to running and from idle to busy; it never moves a `since` backwards.
 */
#include "trace/trace_conditions.h"
#include "trace/trace_infer.h"
#include "trace/trace_report.h"
#include "trace/trace_sched.h"
#include "trace/trace_tasks.h"
#include "trace/trace_window.h"

/*
 * The task the books put on @cpu is not there at @ts, and no switch out
 * said how it left: it counts neither as running nor as runnable until its
 * next event (TS_SLEEPING without a voluntary switch), or is gone if it
 * was exiting.
 */
static void task_gone(struct trace_report *r, int cpu, uint64_t ts)
{
	struct ta_task *t = ta_task_find(r, r->cpu[cpu].curr);

	if (!t || t->state != TS_RUNNING || t->cpu != cpu)
		return;
	if (t->exiting) {
		ta_task_retire(r, t, ts);
		return;
	}
	ta_task_leave(r, t, ts);
	t->state = TS_SLEEPING;
}

/*
 * A switch on @cpu (known) to @pid (0 = idle) that the trace did not
 * record, seen at @ts. The switch time is unknown, so a pending wakeup
 * gives no latency sample. With @guess (no events lost), a task woken or
 * moved onto @cpu while it idled most likely ran right after the later of
 * its queueing and the last sign of idle there: that interval moves from
 * runnable to running and from idle to busy (cpu_time.estimated). Not a
 * task switched out runnable before the CPU went idle: that one was
 * throttled (CFS bandwidth, RT throttling) and waited for its quota.
 */
static void infer_switch(struct trace_report *r, int cpu, int pid,
			 uint64_t ts, int guess)
{
	struct ta_cpu *c = &r->cpu[cpu];
	struct ta_task *t = NULL;
	uint64_t from = ts, max_before, d;
	int was_idle = !c->curr;

	if (pid > 0) {
		t = ta_task_get(r, pid, NULL, ts);
		if (!t)
			return;
	}
	if (ta_in_window(r, ts))
		r->inferred++;
	task_gone(r, cpu, ts);
	if (!t) {
		ta_cpu_set_curr(r, cpu, 0, 120, ts);
		return;
	}
	if (t->state == TS_WAITING) {
		if (t->waking_ts && ta_in_window(r, ts))
			t->lat_unobserved++;
		if (guess && was_idle && t->cpu == cpu && !t->rq_preempted)
			from = t->rq_ts > c->idle_ts ? t->rq_ts : c->idle_ts;
	}
	if (ta_in_window(r, ts))
		t->inferred++;
	ta_pi_end(r, t, from, ts);
	max_before = t->wait_max_ns;
	ta_task_run(r, t, cpu, ts);
	ta_cpu_set_curr(r, cpu, pid, t->prio, ts);

	/* both sides were integrated as waiting and idle up to @ts */
	d = from < ts ? ta_clip(r, from, ts) : 0;
	if (!d || d > t->wait_cur_ns || d > c->idle_ns)
		return;
	t->wait_ns -= d;
	t->wait_cur_ns -= d;
	t->wait_max_ns = max_before > t->wait_cur_ns ? max_before :
			 t->wait_cur_ns;
	t->cpu_ns += d;
	t->cpu_ns_on[cpu] += d;
	t->est_ns += d;
	c->idle_ns -= d;
	c->busy_ns += d;
}

/* First event on a CPU: the task it interrupted is the one running there. */
static void cpu_seen(struct trace_report *r, int cpu, int pid, uint64_t ts)
{
	struct ta_task *t = NULL;
	int prio = 120;

	if (!ta_cpu_of(r, cpu) || r->cpu[cpu].known)
		return;
	if (pid > 0) {
		t = ta_task_get(r, pid, NULL, ts);
		if (!t)
			return;
		prio = t->prio;
		if (t->state != TS_UNKNOWN) {
			/* a task we know about was switched in unseen */
			ta_cpu_set_curr(r, cpu, 0, 120, ts);
			infer_switch(r, cpu, pid, ts, 0);
			return;
		}
		t->state = TS_RUNNING;
		t->cpu = cpu;
		t->since = ts;
	}
	ta_cpu_set_curr(r, cpu, pid > 0 ? pid : 0, prio, ts);
}

/*
 * Events were lost on @cpu before this record: what ran there in between
 * is unknown, so resynchronise on the task the record was taken in, with
 * no estimate.
 */
static void cpu_lost(struct trace_report *r, int cpu, int pid, uint64_t ts)
{
	struct ta_cpu *c = ta_cpu_of(r, cpu);

	if (!c || !c->known || pid < 0 || c->curr == pid)
		return;
	infer_switch(r, cpu, pid, ts, 0);
}

void ta_cpu_observe(struct trace_report *r, int cpu, int pid, uint64_t ts)
{
	struct ta_cpu *c = ta_cpu_of(r, cpu);

	if (!c || !c->known || pid < 0)
		return;
	if (c->curr != pid)
		infer_switch(r, cpu, pid, ts, 1);
	else if (!pid)
		c->idle_ts = ts;
}

uint64_t ta_record(struct trace_report *r, int cpu, int pid, uint64_t ts,
		   long long missed)
{
	/* clocks may step back a little between CPUs: never go back */
	if (ts < r->last_ts)
		ts = r->last_ts;
	if (!r->nevents++)
		r->first_ts = ts;
	r->last_ts = ts;
	ta_advance(r, ts);
	if (missed) {
		if (missed > 0)
			r->lost_rec += missed;
		else
			r->lost_unknown = 1;
		cpu_lost(r, cpu, pid, ts);
	}
	cpu_seen(r, cpu, pid, ts);
	/* the record's own task runs here: a switch may have gone unrecorded */
	ta_cpu_observe(r, cpu, pid, ts);
	return ts;
}
