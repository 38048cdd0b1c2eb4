// SPDX-License-Identifier: GPL-2.0
/*
 * CPU classes, and the sets the conditions read instead of walking the
 * CPUs on every event: r->idle_cpus and r->nidle, r->wait_cnt and
 * r->busy_wait per affinity class, and the full and empty SMT cores.
 */
#include <stdlib.h>

#include "trace/trace_cpu_class.h"
#include "trace/trace_report.h"

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

int ta_cpu_class_init(struct trace_report *r)
{
	size_t slots = r->ncpus > 0 ? (size_t)r->ncpus : 1;

	r->idle_cpus = calloc(r->nwords, sizeof(*r->idle_cpus));
	r->wait_cnt = calloc((size_t)r->nmask * slots, sizeof(*r->wait_cnt));
	r->busy_wait = calloc(r->nmask, sizeof(*r->busy_wait));
	if (!r->idle_cpus || !r->wait_cnt || !r->busy_wait)
		return -1;
	return smt_init(r);
}

int ta_cpu_class(const struct ta_cpu *c)
{
	if (!c->known)
		return CPU_UNKNOWN;
	if (c->curr)
		return CPU_BUSY;
	return c->nfresh ? CPU_TAKEN : CPU_IDLE;
}

void ta_cpu_reclass(struct trace_report *r, int cpu, int before)
{
	int after = ta_cpu_class(&r->cpu[cpu]), m;

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

void ta_cpu_waiters(struct trace_report *r, const struct ta_task *t,
		    int delta)
{
	struct ta_cpu *c = &r->cpu[t->cpu];
	int before = ta_cpu_class(c);

	c->nwait += delta;
	if (!t->rq_preempted)
		c->nfresh += delta;
	if (t->mask != TA_MASK_NONE) {
		r->wait_cnt[t->mask * r->ncpus + t->cpu] += delta;
		if (before == CPU_BUSY)
			r->busy_wait[t->mask] += delta;
	}
	ta_cpu_reclass(r, t->cpu, before);
}
