/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Affinity classes: the CPUs a task may use, as trace_opts says
 * (trace_affinity, affinity_all), kept as one CPU mask per class for work
 * conservation and RT placement. A task's class comes from its comm.
 */
#ifndef SW_TRACE_AFFINITY_H
#define SW_TRACE_AFFINITY_H

#include <stdint.h>

struct trace_report;
struct ta_task;

/* The classes of r->opts and their masks; 0, or -1 out of memory. */
int ta_affinity_init(struct trace_report *r);
/* @t's class: TA_MASK_NONE, TA_MASK_ALL or 2 + its trace_opts.aff entry. */
int ta_task_mask(const struct trace_report *r, struct ta_task *t);
/* The CPUs of class @m, r->nwords words (lib/cpubits.h). */
const uint64_t *ta_mask_bits(const struct trace_report *r, int m);
/* Class @m has @cpu, one of the trace's. */
int ta_mask_has(const struct trace_report *r, int m, int cpu);

#endif /* SW_TRACE_AFFINITY_H */
