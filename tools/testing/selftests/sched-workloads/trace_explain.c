// SPDX-License-Identifier: GPL-2.0
/*
 * Where a trace metric's value comes from, in words a developer can take
 * to `trace-cmd report`: for work conservation, how many stretches the
 * window held and the longest ones, each with its start (trace clock and
 * offset from the window start), an idle CPU and a task that waited on
 * another CPU although it may run there.
 */
#include <stdio.h>

#include "trace_internal.h"

static void explain_episode(FILE *f, const struct trace_report *r,
			    const struct ta_episode *e, uint64_t base)
{
	fprintf(f, "  at %llu.%06llu (+%.6f s): %.1f us;",
		(unsigned long long)(e->start / 1000000000ull),
		(unsigned long long)(e->start % 1000000000ull / 1000),
		(e->start - base) / 1e9, e->len / 1e3);
	if (e->idle_cpu < 0 || e->idle_cpu >= r->ncpus) {
		fprintf(f, " (no waiting task named)\n");
		return;
	}
	fprintf(f, " cpu%d idle while %s (pid %d) waited on cpu%d\n",
		e->idle_cpu, e->comm, e->pid, e->wait_cpu);
}

void trace_report_explain(const struct trace_report *r, FILE *f)
{
	uint64_t base = r->ws > r->first_ts ? r->ws : r->first_ts;
	int i;

	if (!r->aff_known) {
		fprintf(f, "wc: not measured: no affinity (a workload's tasks, or --all-cpus)\n");
		return;
	}
	fprintf(f, "wc: %lu stretch%s with a CPU idle while a task that may run there waited: %.1f us in all, the longest %.1f us\n",
		r->wc_count, r->wc_count == 1 ? "" : "es", r->wc_ns / 1e3,
		r->wc_longest / 1e3);
	for (i = 0; i < TA_EPISODES && r->wc_top[i].len; i++)
		explain_episode(f, r, &r->wc_top[i], base);
}
