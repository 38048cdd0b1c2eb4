// SPDX-License-Identifier: GPL-2.0
/*
 * Fork placement. Only a CPU with a task running and another waiting
 * counts as stacked: a kernel may leave a new thread with its creator
 * when that is all the CPU runs (6.18.44 did so for about half of
 * rt-app's first threads beside an idle CPU; 6.1 never did), but no
 * kernel with fork balancing queues it behind two (Documentation/
 * dev-tools/sched-workloads/kernels.rst, fair-fork-no-balance).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/cpubits.h"
#include "trace/trace_affinity.h"
#include "trace/trace_cpu_class.h"
#include "trace/trace_fork.h"
#include "trace/trace_report.h"

int ta_fork_placed(struct trace_report *r, struct ta_task *t, int cpu)
{
	const struct ta_cpu *c;

	if (cpu < 0 || cpu >= r->ncpus || !r->nidle)
		return 0;
	c = &r->cpu[cpu];
	if (ta_cpu_class(c) != CPU_BUSY || c->nwait < 1)
		return 0;
	/* its affinity is known by its name, which it takes later */
	t->fork_idle = malloc(r->nwords * sizeof(*t->fork_idle));
	if (!t->fork_idle)
		return -1;
	memcpy(t->fork_idle, r->idle_cpus, r->nwords * sizeof(*t->fork_idle));
	return 0;
}

int ta_fork_stacked(const struct trace_report *r, struct ta_task *t)
{
	int m;

	if (!t->born_ts || !r->aff_known)
		return -1;
	if (!t->fork_idle)
		return 0;
	m = ta_task_mask(r, t);
	if (m == TA_MASK_NONE)
		return -1;
	return cpubits_intersect(ta_mask_bits(r, m), t->fork_idle, r->nwords);
}
