// SPDX-License-Identifier: GPL-2.0
/*
 * Where a trace metric's value comes from, in words a developer can take
 * to `trace-cmd report`: how many stretches of the condition the window
 * held and the longest ones, each with its start (trace clock and offset
 * from the window start) and who was involved as it began: a task that
 * waited on one CPU while another CPU it may use idled (wc.*: work
 * conservation) or, for an RT task, idled or ran something lower
 * (rt.wait_while_lower).
 */
#include <stdio.h>

#include "trace_internal.h"

static void explain_episode(FILE *f, const struct ta_episode *e,
			    uint64_t base)
{
	fprintf(f, "  at %llu.%06llu (%+.6f s): %.1f us;",
		(unsigned long long)(e->start / 1000000000ull),
		(unsigned long long)(e->start % 1000000000ull / 1000),
		((double)e->start - (double)base) / 1e9, e->len / 1e3);
	if (e->other_cpu < 0) {
		fprintf(f, " (no waiting task named)\n");
		return;
	}
	fprintf(f, " %s (pid %d) waited on cpu%d while cpu%d ", e->comm,
		e->pid, e->cpu, e->other_cpu);
	if (!e->other_pid) {
		fprintf(f, "idled\n");
		return;
	}
	fprintf(f, "%s", e->other_taken ? "was about to run " : "ran ");
	if (e->other_pid < 0)
		fprintf(f, "a fair task\n");
	else
		fprintf(f, "%s (pid %d, prio %d)\n", e->other_comm,
			e->other_pid, e->other_prio);
}

static void explain_stretches(FILE *f, const char *what, const char *cond,
			      const struct ta_stretches *s, uint64_t total,
			      uint64_t base)
{
	int i;

	fprintf(f, "%s: %lu stretch%s with %s: %.1f us in all, the longest %.1f us\n",
		what, s->count, s->count == 1 ? "" : "es", cond, total / 1e3,
		s->top[0].len / 1e3);
	for (i = 0; i < TA_EPISODES && s->top[i].len; i++)
		explain_episode(f, &s->top[i], base);
}

void trace_report_explain(const struct trace_report *r, FILE *f)
{
	uint64_t base = r->ws > r->first_ts ? r->ws : r->first_ts;

	if (!r->aff_known) {
		fprintf(f, "wc: not measured: no affinity (a workload's tasks, or --all-cpus)\n");
		fprintf(f, "rt: not measured: no affinity\n");
		return;
	}
	explain_stretches(f, "wc",
			  "a CPU idle while a task that may run there waited",
			  &r->wc_eps, r->wc_ns, base);
	explain_stretches(f, "rt",
			  "an RT task waiting while a CPU it may use idled or ran lower",
			  &r->rt_eps, r->rt_lower_ns, base);
}
