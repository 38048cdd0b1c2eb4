// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler state rebuilt from the events, in time order, and the
 * accumulators the trace metrics read. trace/trace_metrics.c defines each metric;
 * this file only keeps the books.
 *
 * Time is integrated lazily: a task or CPU adds the time spent in its
 * current state when that state changes, and the system-wide conditions
 * (work conservation, RT placement) are integrated by ta_advance() before
 * each state change and re-evaluated by ta_reevaluate() after it. Every
 * interval is clipped to the measured window.
 *
 * Switches the trace did not record are inferred (trace/trace_metrics.c has the
 * rule): ta_cpu_observe() checks every record's common_pid against what
 * the books say runs on its CPU, and infer_switch() brings them in line.
 * The only retroactive change to the books is the estimate of
 * infer_switch(), which moves one interval from runnable to running and
 * from idle to busy; it never moves a `since` backwards.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_state.h"

uint64_t ta_clip(const struct trace_report *r, uint64_t a, uint64_t b)
{
	if (a < r->ws)
		a = r->ws;
	if (r->we && b > r->we)
		b = r->we;
	return b > a ? b - a : 0;
}

int ta_in_window(const struct trace_report *r, uint64_t ts)
{
	return ts >= r->ws && (!r->we || ts <= r->we);
}

static struct ta_cpu *cpu_of(struct trace_report *r, int cpu)
{
	return cpu >= 0 && cpu < r->ncpus ? &r->cpu[cpu] : NULL;
}

/* Affinity class of @t: the first matching "cpus" entry, else all or none. */
static int task_mask_of(const struct trace_report *r,
			const struct ta_task *t)
{
	const struct trace_opts *o = r->opts;
	size_t i;

	if (!r->aff_known)
		return TA_MASK_NONE;
	for (i = 0; i < o->naff; i++)
		if (glob_match(o->aff[i].comm, t->comm))
			return 2 + (int)i;
	if (o->affinity_all && !kthread_percpu_comm(t->comm))
		return TA_MASK_ALL;
	return TA_MASK_NONE;
}

/* Cached per comm: it is asked on every wakeup and preemption. */
static int task_mask(const struct trace_report *r, struct ta_task *t)
{
	if (!t->aff_valid) {
		t->aff_class = task_mask_of(r, t);
		t->aff_valid = 1;
	}
	return t->aff_class;
}

static uint64_t *mask_bits(const struct trace_report *r, int m)
{
	return r->masks + (size_t)m * r->nwords;
}

/* @cpu is one of the trace's. */
static int mask_has(const struct trace_report *r, int m, int cpu)
{
	return m == TA_MASK_ALL || cpubits_test(mask_bits(r, m), cpu);
}

/* Affinity class TA_MASK_ALL and one per trace_opts.aff entry. */
static void masks_fill(struct trace_report *r)
{
	const struct trace_opts *o = r->opts;
	size_t i, k;
	int c;

	for (c = 0; c < r->ncpus; c++)
		cpubits_set(mask_bits(r, TA_MASK_ALL), c);
	for (i = 0; i < o->naff; i++) {
		uint64_t *bits = mask_bits(r, 2 + (int)i);

		if (!o->aff[i].cpus) {
			memcpy(bits, mask_bits(r, TA_MASK_ALL),
			       r->nwords * sizeof(*bits));
			continue;
		}
		for (k = 0; k < o->aff[i].ncpus; k++) {
			c = o->aff[i].cpus[k];
			if (c >= 0 && c < r->ncpus)
				cpubits_set(bits, c);
		}
	}
}

enum { CPU_UNKNOWN, CPU_IDLE, CPU_BUSY, CPU_TAKEN };

/* The cores of trace_opts.core_of, every thread not yet known. */
static int smt_init(struct trace_report *r)
{
	const struct trace_opts *o = r->opts;
	size_t slots = r->ncpus > 0 ? (size_t)r->ncpus : 1;
	int c;

	if (!o->core_of || o->ncore_of != r->ncpus)
		return 0;
	for (c = 0; c < r->ncpus; c++)
		if (o->core_of[c] < 0 || o->core_of[c] >= r->ncpus)
			return 0;
	r->core_threads = calloc(slots, sizeof(*r->core_threads));
	r->core_busy = calloc(slots, sizeof(*r->core_busy));
	r->core_idle = calloc(slots, sizeof(*r->core_idle));
	if (!r->core_threads || !r->core_busy || !r->core_idle)
		return -1;
	for (c = 0; c < r->ncpus; c++)
		r->core_threads[o->core_of[c]]++;
	r->smt_known = 1;
	return 0;
}

/*
 * Counts @cpu's core in or out of the full and empty cores as its class
 * goes from @before to @after: full, every thread of a core of two or
 * more running a task; empty, every thread idle.
 */
static void smt_reclass(struct trace_report *r, int cpu, int before,
			int after)
{
	int core = r->opts->core_of[cpu], n = r->core_threads[core];
	int full = n > 1 && r->core_busy[core] == n;
	int empty = r->core_idle[core] == n;

	r->core_busy[core] += (after == CPU_BUSY) - (before == CPU_BUSY);
	r->core_idle[core] += (after == CPU_IDLE) - (before == CPU_IDLE);
	r->ncores_full += (n > 1 && r->core_busy[core] == n) - full;
	r->ncores_empty += (r->core_idle[core] == n) - empty;
}

int ta_report_init(struct trace_report *r, const char *path, int ncpus,
		   const struct trace_opts *o)
{
	size_t slots = ncpus > 0 ? (size_t)ncpus : 1;

	if (ncpus < 0 || ncpus > CPUBITS_MAX_CPUS)
		return -1;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->tail = &r->tasks;
	r->ncpus = ncpus;
	r->cpu = calloc(slots, sizeof(*r->cpu));
	r->opts = o;
	r->ws = o->start_ns;
	r->we = o->end_ns;
	r->aff_known = o->affinity_all || o->naff;
	r->nmask = 2 + (int)o->naff;
	r->nwords = cpubits_words(ncpus);
	r->masks = calloc((size_t)r->nmask * r->nwords, sizeof(*r->masks));
	r->idle_cpus = calloc(r->nwords, sizeof(*r->idle_cpus));
	r->wait_cnt = calloc((size_t)r->nmask * slots, sizeof(*r->wait_cnt));
	r->busy_wait = calloc(r->nmask, sizeof(*r->busy_wait));
	if (!r->cpu || !r->masks || !r->idle_cpus || !r->wait_cnt ||
	    !r->busy_wait)
		return -1;
	if (o->timeline_end_ns &&
	    tl_init(r, o->timeline_start_ns, o->timeline_end_ns))
		return -1;
	masks_fill(r);
	return smt_init(r);
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

/*
 * An idle CPU with a task woken or moved onto it is taken: it is about to
 * run that task, so it is no idle CPU another task could use, and the
 * task does not wait behind anyone (trace/trace_metrics.c, "Taken CPUs").
 */
static int cpu_class(const struct ta_cpu *c)
{
	if (!c->known)
		return CPU_UNKNOWN;
	if (c->curr)
		return CPU_BUSY;
	return c->nfresh ? CPU_TAKEN : CPU_IDLE;
}

/* Keeps the idle set and busy_wait[] in step with a change of class. */
static void cpu_reclass(struct trace_report *r, int cpu, int before)
{
	int after = cpu_class(&r->cpu[cpu]), m;

	if (before == after)
		return;
	if (r->smt_known)
		smt_reclass(r, cpu, before, after);
	if (before == CPU_IDLE) {
		r->nidle--;
		cpubits_clear(r->idle_cpus, cpu);
	}
	if (after == CPU_IDLE) {
		r->nidle++;
		cpubits_set(r->idle_cpus, cpu);
	}
	if (before != CPU_BUSY && after != CPU_BUSY)
		return;
	for (m = 1; m < r->nmask; m++) {
		unsigned int n = r->wait_cnt[m * r->ncpus + cpu];

		if (before == CPU_BUSY)
			r->busy_wait[m] -= n;
		else
			r->busy_wait[m] += n;
	}
}

static struct ta_task *task_find(const struct trace_report *r, int pid);

/* The timeline's segment of what @cpu ran until @ts. */
static void timeline_cpu(struct trace_report *r, int cpu, uint64_t ts)
{
	struct ta_cpu *c = &r->cpu[cpu];
	struct ta_task *t = task_find(r, c->curr);

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
	int before = cpu_class(c);

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
	cpu_reclass(r, cpu, before);
}

static void cpu_set_curr(struct trace_report *r, int cpu, int pid, int prio,
			 uint64_t ts)
{
	cpu_update(r, cpu, 1, pid, prio, ts);
}

/* What runs on @cpu is unknown until its next event (ta_cpu_seen()). */
static void cpu_forget(struct trace_report *r, int cpu, uint64_t ts)
{
	cpu_update(r, cpu, 0, 0, 120, ts);
}

static void wait_count(struct trace_report *r, struct ta_task *t, int delta,
		       uint64_t ts)
{
	struct ta_cpu *c = cpu_of(r, t->cpu);
	int before;

	if (!c)
		return;
	cpu_account(r, c, ts);
	before = cpu_class(c);
	c->nwait += delta;
	if (!t->rq_preempted)
		c->nfresh += delta;
	if (t->mask != TA_MASK_NONE) {
		r->wait_cnt[t->mask * r->ncpus + t->cpu] += delta;
		if (before == CPU_BUSY)
			r->busy_wait[t->mask] += delta;
	}
	cpu_reclass(r, t->cpu, before);
}

/* Ends stretch @e at @ts; @s counts it and keeps the longest ones. */
static void stretch_end(const struct trace_report *r, struct ta_stretches *s,
			struct ta_stretch *e, uint64_t ts)
{
	int i;

	e->len = ta_clip(r, e->start, ts);
	if (!e->len)
		return;
	s->count++;
	for (i = TA_STRETCHES - 1; i >= 0 && s->top[i].len < e->len; i--) {
		if (i < TA_STRETCHES - 1)
			s->top[i + 1] = s->top[i];
		s->top[i] = *e;
	}
}

static void rt_ep_end(struct trace_report *r, struct ta_task *t, uint64_t ts)
{
	t->rt_lower = 0;
	stretch_end(r, &r->rt_eps, &t->rt_ep, ts);
}

static void rt_list_del(struct trace_report *r, struct ta_task *t)
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
		rt_ep_end(r, t, r->last_adv);
}

static void rt_list_update(struct trace_report *r, struct ta_task *t)
{
	/* all of them: they make the CPUs they are about to take busy */
	int listed = t->state == TS_WAITING && t->prio < 100;

	if (t->rt_listed && !listed) {
		rt_list_del(r, t);
	} else if (!t->rt_listed && listed) {
		t->rt_next = r->rt_waiting;
		r->rt_waiting = t;
		t->rt_listed = 1;
	}
	if (t->prio < 100)
		t->was_rt = 1;
}

/* Adds the time spent in the current state and leaves it. */
static void task_leave(struct trace_report *r, struct ta_task *t, uint64_t ts)
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
			rt_list_del(r, t);
	}
	t->since = ts;
}

/* @preempted: switched out runnable, not woken or moved there. */
static void task_wait(struct trace_report *r, struct ta_task *t, int cpu,
		      uint64_t ts, int preempted)
{
	task_leave(r, t, ts);
	t->state = TS_WAITING;
	t->cpu = cpu_of(r, cpu) ? cpu : -1;
	t->rq_ts = ts;
	t->rq_preempted = preempted;
	t->wait_cur_ns = 0;
	t->mask = task_mask(r, t);
	wait_count(r, t, 1, ts);
	rt_list_update(r, t);
}

/* Moves a waiting task to another runqueue. */
static void wait_move(struct trace_report *r, struct ta_task *t, int cpu,
		      uint64_t ts)
{
	if (!cpu_of(r, cpu) || cpu == t->cpu)
		return;
	if (r->tl)
		timeline_wait(r, t, ts);
	wait_count(r, t, -1, ts);
	t->cpu = cpu;
	t->rq_ts = ts;
	t->rq_preempted = 0;
	wait_count(r, t, 1, ts);
}

static void task_unhash(struct trace_report *r, struct ta_task *t)
{
	struct ta_task **pp;

	for (pp = &r->hash[t->pid % TA_HASH_SIZE]; *pp; pp = &(*pp)->hnext) {
		if (*pp == t) {
			*pp = t->hnext;
			break;
		}
	}
	t->hnext = NULL;
}

/* The pid is gone (exited, or reused without an exit seen). */
static void task_retire(struct trace_report *r, struct ta_task *t, uint64_t ts)
{
	task_leave(r, t, ts);
	t->state = TS_DEAD;
	t->waking_ts = 0;
	t->pi_block_ts = 0;
	task_unhash(r, t);
}

static struct ta_task *task_new(struct trace_report *r, int pid, uint64_t ts)
{
	struct ta_task *t = calloc(1, sizeof(*t));

	if (!t)
		goto fail;
	t->cpu_ns_on = calloc(r->ncpus, sizeof(*t->cpu_ns_on));
	if (!t->cpu_ns_on)
		goto fail;
	t->report = r;
	t->pid = pid;
	t->prio = 120;
	t->switch_prio = TA_NO_PRIO;
	t->cpu = -1;
	t->since = ts;
	t->first_ts = ts;
	strcpy(t->comm, "<...>");
	t->hnext = r->hash[pid % TA_HASH_SIZE];
	r->hash[pid % TA_HASH_SIZE] = t;
	*r->tail = t;
	r->tail = &t->next;
	r->ntasks++;
	return t;
fail:
	free(t);
	r->failed = 1;
	return NULL;
}

static struct ta_task *task_find(const struct trace_report *r, int pid)
{
	struct ta_task *t;

	if (pid <= 0)
		return NULL;
	for (t = r->hash[pid % TA_HASH_SIZE]; t; t = t->hnext)
		if (t->pid == pid)
			break;
	return t;
}

struct ta_task *ta_task_get(struct trace_report *r, int pid,
			    const char *comm, uint64_t ts)
{
	struct ta_task *t;

	if (pid <= 0)
		return NULL;
	t = task_find(r, pid);
	if (!t)
		t = task_new(r, pid, ts);
	if (t)
		t->last_ts = ts;
	/*
	 * Latest name wins: rt-app and exec rename threads after fork.
	 * Compared first: this runs for nearly every event.
	 */
	if (t && comm && comm[0] && strncmp(t->comm, comm, sizeof(t->comm))) {
		size_t n = strnlen(comm, sizeof(t->comm) - 1);

		memcpy(t->comm, comm, n);
		t->comm[n] = '\0';
		t->aff_valid = 0;
	}
	return t;
}

void ta_advance(struct trace_report *r, uint64_t ts)
{
	struct ta_task *t;
	uint64_t d;

	if (ts <= r->last_adv)
		return;
	d = ta_clip(r, r->last_adv, ts);
	if (r->wc_active)
		r->wc_ns += d;
	if (r->stacked_active)
		r->stacked_ns += d;
	for (t = r->rt_waiting; t; t = t->rt_next) {
		if (t->rt_lower) {
			t->rt_lower_ns += d;
			r->rt_lower_ns += d;
		}
	}
	r->last_adv = ts;
}

/* Some idle CPU could run a task that waits behind another on a busy CPU. */
static int wc_condition(const struct trace_report *r)
{
	int m;

	if (!r->nidle)
		return 0;
	for (m = 1; m < r->nmask; m++) {
		if (!r->busy_wait[m])
			continue;
		if (cpubits_intersect(mask_bits(r, m), r->idle_cpus,
				      r->nwords))
			return 1;
	}
	return 0;
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
	if (t->cpu >= 0 && cpu_class(&r->cpu[t->cpu]) == CPU_TAKEN &&
	    taken_by(r, t->cpu) == t)
		return -1;
	for (c = 0; c < r->ncpus; c++) {
		const struct ta_cpu *cp = &r->cpu[c];

		if (!mask_has(r, t->mask, c))
			continue;
		switch (cpu_class(cp)) {
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
static void rt_ep_begin(struct trace_report *r, struct ta_task *t, int cpu,
			uint64_t ts)
{
	const struct ta_cpu *cp = &r->cpu[cpu];
	struct ta_stretch *e = &t->rt_ep;
	const struct ta_task *o = NULL;

	memset(e, 0, sizeof(*e));
	t->rt_lower = 1;
	e->start = ts;
	e->pid = t->pid;
	e->cpu = t->cpu;
	snprintf(e->comm, sizeof(e->comm), "%s", t->comm);
	e->other_cpu = cpu;
	e->other_pid = -1;
	if (cpu_class(cp) == CPU_BUSY) {
		e->other_pid = cp->curr;
		e->other_prio = cp->curr_prio;
		o = task_find(r, cp->curr);
	} else if (cpu_class(cp) == CPU_IDLE) {
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

/* Names one idle CPU and one task that may run there but waits. */
static void wc_begin(struct trace_report *r, uint64_t ts)
{
	struct ta_stretch *e = &r->wc_cur;
	const struct ta_task *t;
	int c;

	memset(e, 0, sizeof(*e));
	e->start = ts;
	e->other_cpu = -1;
	for (t = r->tasks; t; t = t->next) {
		if (t->state != TS_WAITING || t->mask == TA_MASK_NONE ||
		    t->cpu < 0 || cpu_class(&r->cpu[t->cpu]) != CPU_BUSY)
			continue;
		for (c = 0; c < r->ncpus; c++) {
			if (cpu_class(&r->cpu[c]) != CPU_IDLE ||
			    !mask_has(r, t->mask, c))
				continue;
			e->pid = t->pid;
			e->cpu = t->cpu;
			snprintf(e->comm, sizeof(e->comm), "%s", t->comm);
			e->other_cpu = c;
			return;
		}
	}
}

void ta_reevaluate(struct trace_report *r, uint64_t ts)
{
	struct ta_task *t;
	int active;

	/* a core runs two tasks on its threads while another core idles */
	r->stacked_active = r->ncores_full && r->ncores_empty;
	if (r->aff_known) {
		active = wc_condition(r);
		if (active && !r->wc_active)
			wc_begin(r, ts);
		if (!active && r->wc_active)
			stretch_end(r, &r->wc_eps, &r->wc_cur, ts);
		r->wc_active = active;
	}
	for (t = r->rt_waiting; t; t = t->rt_next) {
		int cpu = rt_condition(r, t);

		if (cpu >= 0 && !t->rt_lower)
			rt_ep_begin(r, t, cpu, ts);
		else if (cpu < 0 && t->rt_lower)
			rt_ep_end(r, t, ts);
	}
}

/* Ends @t's PI wait at @at, when it is switched in; @ts is the event's. */
static void pi_end(struct trace_report *r, struct ta_task *t, uint64_t at,
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

/* @t runs on @cpu from @ts on (the caller sets the CPU's side). */
static void task_run(struct trace_report *r, struct ta_task *t, int cpu,
		     uint64_t ts)
{
	struct ta_cpu *was = t->state == TS_RUNNING ? cpu_of(r, t->cpu) : NULL;

	/* believed on another CPU: its switch out there went unrecorded */
	if (was && t->cpu != cpu && was->known && was->curr == t->pid)
		cpu_forget(r, t->cpu, ts);
	task_leave(r, t, ts);
	t->waking_ts = 0;
	t->state = TS_RUNNING;
	t->cpu = cpu;
}

/*
 * The task the books put on @cpu is not there at @ts, and no switch out
 * said how it left: it counts neither as running nor as runnable until its
 * next event (TS_SLEEPING without a voluntary switch), or is gone if it
 * was exiting.
 */
static void task_gone(struct trace_report *r, int cpu, uint64_t ts)
{
	struct ta_task *t = task_find(r, r->cpu[cpu].curr);

	if (!t || t->state != TS_RUNNING || t->cpu != cpu)
		return;
	if (t->exiting) {
		task_retire(r, t, ts);
		return;
	}
	task_leave(r, t, ts);
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
		cpu_set_curr(r, cpu, 0, 120, ts);
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
	pi_end(r, t, from, ts);
	max_before = t->wait_max_ns;
	task_run(r, t, cpu, ts);
	cpu_set_curr(r, cpu, pid, t->prio, ts);

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
void ta_cpu_seen(struct trace_report *r, int cpu, int pid, uint64_t ts)
{
	struct ta_task *t = NULL;
	int prio = 120;

	if (!cpu_of(r, cpu) || r->cpu[cpu].known)
		return;
	if (pid > 0) {
		t = ta_task_get(r, pid, NULL, ts);
		if (!t)
			return;
		prio = t->prio;
		if (t->state != TS_UNKNOWN) {
			/* a task we know about was switched in unseen */
			cpu_set_curr(r, cpu, 0, 120, ts);
			infer_switch(r, cpu, pid, ts, 0);
			return;
		}
		t->state = TS_RUNNING;
		t->cpu = cpu;
		t->since = ts;
	}
	cpu_set_curr(r, cpu, pid > 0 ? pid : 0, prio, ts);
}

/*
 * Events were lost on @cpu before this record: what ran there in between
 * is unknown, so resynchronise on the task the record was taken in, with
 * no estimate.
 */
void ta_cpu_lost(struct trace_report *r, int cpu, int pid, uint64_t ts)
{
	struct ta_cpu *c = cpu_of(r, cpu);

	if (!c || !c->known || pid < 0 || c->curr == pid)
		return;
	infer_switch(r, cpu, pid, ts, 0);
}

/* Every record: its common_pid runs on @cpu (0: the idle task does). */
void ta_cpu_observe(struct trace_report *r, int cpu, int pid, uint64_t ts)
{
	struct ta_cpu *c = cpu_of(r, cpu);

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
		ta_cpu_lost(r, cpu, pid, ts);
	}
	ta_cpu_seen(r, cpu, pid, ts);
	/* the record's own task runs here: a switch may have gone unrecorded */
	ta_cpu_observe(r, cpu, pid, ts);
	return ts;
}

static void add_us(struct trace_report *r, struct series *s, uint64_t ns)
{
	if (series_add(s, ns / 1e3))
		r->failed = 1;
}

/* @t, asleep (or never seen), is woken at @ts in @waker's context. */
static void activation_begin(struct trace_report *r, struct ta_task *t,
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

/* @t was switched out of @cpu at @ts while not runnable: asleep. */
static void activation_end(struct trace_report *r, struct ta_task *t,
			   int cpu, uint64_t ts)
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

void ta_switch(struct trace_report *r, int cpu, uint64_t ts, int prev_pid,
	       const char *prev_comm, int prev_prio, long prev_state,
	       int next_pid, const char *next_comm, int next_prio)
{
	struct ta_cpu *c = cpu_of(r, cpu);
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
			task_wait(r, t, cpu, ts, 1);
		} else if (t->exiting) {
			task_retire(r, t, ts);
		} else {
			task_leave(r, t, ts);
			t->state = TS_SLEEPING;
			activation_end(r, t, cpu, ts);
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
		pi_end(r, t, ts, ts);
		task_run(r, t, cpu, ts);
	}
	cpu_set_curr(r, cpu, next_pid > 0 ? next_pid : 0, next_prio, ts);
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
		task_retire(r, t, ts);
		t = ta_task_get(r, pid, comm, ts);
		if (!t)
			return;
	}
	/* creation order names a task's threads (lib/entity_name.h) */
	if (is_new && !t->born_ts)
		t->born_ts = ts;
	t->prio = prio;
	if (t->state == TS_RUNNING || t->state == TS_WAITING) {
		if (t->state == TS_WAITING)
			rt_list_update(r, t);
		return;		/* still on a CPU or a runqueue */
	}
	/* A new task has no sched_waking: it waits, but is no wakeup sample. */
	t->waking_ts = is_new ? 0 : ts;
	task_wait(r, t, target_cpu, ts, 0);
	if (!is_new)
		activation_begin(r, t, waker, ts);
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
		wait_move(r, t, target_cpu, ts);
		return;
	}
	/* No sched_waking recorded: the wakeup starts the wait. */
	ta_waking(r, ts, pid, comm, prio, target_cpu, 0, waker);
}

void ta_migrate(struct trace_report *r, uint64_t ts, int pid,
		const char *comm, int orig_cpu, int dest_cpu)
{
	struct ta_task *t = ta_task_get(r, pid, comm, ts);

	if (!t || !cpu_of(r, dest_cpu))
		return;
	if (orig_cpu != dest_cpu && ta_in_window(r, ts))
		t->migrations++;
	if (t->state == TS_WAITING)
		wait_move(r, t, dest_cpu, ts);
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
		rt_list_update(r, t);
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
	if (!cpu_of(r, cpu) || !ta_in_window(r, ts))
		return;
	r->cpu[cpu].ipi++;
	r->ipi_total++;
}

void ta_freq(struct trace_report *r, uint64_t ts, int cpu, unsigned long khz)
{
	struct ta_cpu *c = cpu_of(r, cpu);
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

void ta_finish(struct trace_report *r)
{
	uint64_t end = r->last_ts;
	struct ta_task *t;
	int c;

	if (r->we && r->we < end)
		end = r->we;
	r->end_ts = end;
	ta_advance(r, end);
	if (r->wc_active)
		stretch_end(r, &r->wc_eps, &r->wc_cur, end);
	for (t = r->rt_waiting; t; t = t->rt_next)
		if (t->rt_lower)
			rt_ep_end(r, t, end);
	for (c = 0; c < r->ncpus; c++) {
		struct ta_cpu *cp = &r->cpu[c];
		uint64_t start = r->ws ? r->ws : r->first_ts;

		cpu_account(r, cp, end);
		if (r->tl)
			timeline_cpu(r, c, end);
		cp->freq_to_max_us = NAN;
		if (cp->freq_events && cp->freq_before &&
		    cp->freq_before == cp->freq_max)
			cp->freq_to_max_us = 0;	/* already at max */
		else if (cp->freq_reach_ts)
			cp->freq_to_max_us = (cp->freq_reach_ts - start) / 1e3;
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
