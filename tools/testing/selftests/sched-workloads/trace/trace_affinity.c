// SPDX-License-Identifier: GPL-2.0
/*
 * Affinity classes: TA_MASK_ALL and one per trace_opts.aff entry, their
 * CPUs those of the trace the entry names (a workload may come from a
 * bigger machine).
 */
#include <stdlib.h>
#include <string.h>

#include "trace/kthreads.h"
#include "trace/trace_affinity.h"
#include "trace/trace_report.h"

static uint64_t *mask_bits(const struct trace_report *r, int m)
{
	return r->masks + (size_t)m * r->nwords;
}

const uint64_t *ta_mask_bits(const struct trace_report *r, int m)
{
	return mask_bits(r, m);
}

int ta_mask_has(const struct trace_report *r, int m, int cpu)
{
	return m == TA_MASK_ALL || cpubits_test(mask_bits(r, m), cpu);
}

/* The first matching "cpus" entry, else all or none. */
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
int ta_task_mask(const struct trace_report *r, struct ta_task *t)
{
	if (!t->aff_valid) {
		t->aff_class = task_mask_of(r, t);
		t->aff_valid = 1;
	}
	return t->aff_class;
}

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

int ta_affinity_init(struct trace_report *r)
{
	const struct trace_opts *o = r->opts;

	r->aff_known = o->affinity_all || o->naff;
	r->nmask = 2 + (int)o->naff;
	r->masks = calloc((size_t)r->nmask * r->nwords, sizeof(*r->masks));
	if (!r->masks)
		return -1;
	masks_fill(r);
	return 0;
}
