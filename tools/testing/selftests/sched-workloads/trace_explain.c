// SPDX-License-Identifier: GPL-2.0
/*
 * Where a trace metric's value comes from, in words a developer can take
 * to `trace-cmd report`: how many stretches of the condition the window
 * held and the longest ones, each with its start (trace clock and offset
 * from the window start) and who was involved as it began. For work
 * conservation (wc.*), an idle CPU and a task that waited on another CPU
 * although it may run there; for RT placement (rt.wait_while_lower), the
 * waiting RT task and a CPU it may use that idled or ran something lower.
 */
#include <stdio.h>

#include "trace_internal.h"

static void explain_when(FILE *f, uint64_t start, uint64_t len,
			 uint64_t base)
{
	fprintf(f, "  at %llu.%06llu (%+.6f s): %.1f us;",
		(unsigned long long)(start / 1000000000ull),
		(unsigned long long)(start % 1000000000ull / 1000),
		((double)start - (double)base) / 1e9, len / 1e3);
}

static void explain_episode(FILE *f, const struct trace_report *r,
			    const struct ta_episode *e, uint64_t base)
{
	explain_when(f, e->start, e->len, base);
	if (e->idle_cpu < 0 || e->idle_cpu >= r->ncpus) {
		fprintf(f, " (no waiting task named)\n");
		return;
	}
	fprintf(f, " cpu%d idle while %s (pid %d) waited on cpu%d\n",
		e->idle_cpu, e->comm, e->pid, e->wait_cpu);
}

static void explain_rt_episode(FILE *f, const struct ta_rt_episode *e,
			       uint64_t base)
{
	explain_when(f, e->start, e->len, base);
	fprintf(f, " %s (pid %d) waited on cpu%d while cpu%d ", e->comm,
		e->pid, e->cpu, e->other_cpu);
	if (!e->other_pid) {
		fprintf(f, "idled\n");
		return;
	}
	if (e->other_taken)
		fprintf(f, "was about to run ");
	else
		fprintf(f, "ran ");
	if (e->other_pid < 0)
		fprintf(f, "a fair task\n");
	else
		fprintf(f, "%s (pid %d, prio %d)\n", e->other_comm,
			e->other_pid, e->other_prio);
}

static void explain_rt(const struct trace_report *r, FILE *f, uint64_t base)
{
	int i;

	fprintf(f, "rt: %lu stretch%s with an RT task waiting while a CPU it may use idled or ran lower: %.1f us in all, the longest %.1f us\n",
		r->rt_count, r->rt_count == 1 ? "" : "es", r->rt_lower_ns / 1e3,
		r->rt_top[0].len / 1e3);
	for (i = 0; i < TA_EPISODES && r->rt_top[i].len; i++)
		explain_rt_episode(f, &r->rt_top[i], base);
}

void trace_report_explain(const struct trace_report *r, FILE *f)
{
	uint64_t base = r->ws > r->first_ts ? r->ws : r->first_ts;
	int i;

	if (!r->aff_known) {
		fprintf(f, "wc: not measured: no affinity (a workload's tasks, or --all-cpus)\n");
		fprintf(f, "rt: not measured: no affinity\n");
		return;
	}
	fprintf(f, "wc: %lu stretch%s with a CPU idle while a task that may run there waited: %.1f us in all, the longest %.1f us\n",
		r->wc_count, r->wc_count == 1 ? "" : "es", r->wc_ns / 1e3,
		r->wc_longest / 1e3);
	for (i = 0; i < TA_EPISODES && r->wc_top[i].len; i++)
		explain_episode(f, r, &r->wc_top[i], base);
	explain_rt(r, f, base);
}
