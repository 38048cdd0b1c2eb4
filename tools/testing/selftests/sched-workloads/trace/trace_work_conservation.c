// SPDX-License-Identifier: GPL-2.0
/*
 * Work conservation, decided on every event from the sets the CPU classes
 * keep (trace/trace_cpu_class.h): some idle CPU in the mask of a class
 * that has tasks waiting on busy CPUs. Only as a stretch begins are the
 * tasks walked, to name one of them.
 */
#include <stdio.h>
#include <string.h>

#include "trace/trace_affinity.h"
#include "trace/trace_cpu_class.h"
#include "trace/trace_report.h"
#include "trace/trace_stretch.h"
#include "trace/trace_work_conservation.h"

/* Some idle CPU could run a task that waits behind another on a busy CPU. */
static int wc_condition(const struct trace_report *r)
{
	int m;

	if (!r->nidle)
		return 0;
	for (m = 1; m < r->nmask; m++) {
		if (!r->busy_wait[m])
			continue;
		if (cpubits_intersect(ta_mask_bits(r, m), r->idle_cpus,
				      r->nwords))
			return 1;
	}
	return 0;
}

/* Names one idle CPU and one task that may run there but waits. */
static void wc_stretch_begin(struct trace_report *r, uint64_t ts)
{
	struct ta_stretch *e = &r->wc_cur;
	const struct ta_task *t;
	int c;

	memset(e, 0, sizeof(*e));
	e->start = ts;
	e->other_cpu = -1;
	for (t = r->tasks; t; t = t->next) {
		if (t->state != TS_WAITING || t->mask == TA_MASK_NONE ||
		    t->cpu < 0 || ta_cpu_class(&r->cpu[t->cpu]) != CPU_BUSY)
			continue;
		for (c = 0; c < r->ncpus; c++) {
			if (ta_cpu_class(&r->cpu[c]) != CPU_IDLE ||
			    !ta_mask_has(r, t->mask, c))
				continue;
			e->pid = t->pid;
			e->cpu = t->cpu;
			snprintf(e->comm, sizeof(e->comm), "%s", t->comm);
			e->other_cpu = c;
			return;
		}
	}
}

void ta_wc_advance(struct trace_report *r, uint64_t d)
{
	if (r->wc_active)
		r->wc_ns += d;
}

void ta_wc_reevaluate(struct trace_report *r, uint64_t ts)
{
	int active;

	if (!r->aff_known)
		return;
	active = wc_condition(r);
	if (active && !r->wc_active)
		wc_stretch_begin(r, ts);
	if (!active && r->wc_active)
		ta_stretch_end(r, &r->wc_stretches, &r->wc_cur, ts);
	r->wc_active = active;
}

void ta_wc_finish(struct trace_report *r, uint64_t end)
{
	if (r->wc_active)
		ta_stretch_end(r, &r->wc_stretches, &r->wc_cur, end);
}
