// SPDX-License-Identifier: GPL-2.0
/*
 * Where a trace metric's value comes from, in words a developer can take
 * to `trace-cmd report`: how many stretches of the condition the window
 * held and the longest ones, each with its start (trace clock and offset
 * from the window start) and who was involved as it began: a task that
 * waited on one CPU while another CPU it may use idled (wc.*: work
 * conservation) or, for an RT task, idled or ran something lower
 * (rt.wait_while_lower). Then the neighbours: the tasks outside the
 * workload that ran most, which make a repetition "disturbed"
 * (foreign.cpu_share) or say that a kernel thread was busy
 * (kthread.cpu_share).
 */
#include <stdio.h>

#include "trace/trace_state.h"

/* The neighbours worth naming: the top few above 0.1% of the CPUs. */
#define NEIGHBOURS	5
#define NEIGHBOUR_MIN	0.001

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

/* Share of window * CPUs. */
static double cpus_share(const struct trace_report *r, uint64_t ns)
{
	double cap = (double)ta_window_ns(r) * r->ncpus;

	return cap > 0 ? ns / cap : 0;
}

/*
 * The tasks outside the workload (kernel threads included) that ran most,
 * largest first, into @top; returns how many.
 */
static int neighbours(const struct trace_report *r,
		      const struct ta_task *top[NEIGHBOURS])
{
	const struct ta_task *t;
	int n = 0, i;

	for (t = r->tasks; t; t = t->next) {
		if ((t->selected && !t->kthread) ||
		    cpus_share(r, t->cpu_ns) <= NEIGHBOUR_MIN)
			continue;
		for (i = n; i > 0 && top[i - 1]->cpu_ns < t->cpu_ns; i--)
			if (i < NEIGHBOURS)
				top[i] = top[i - 1];
		if (i < NEIGHBOURS)
			top[i] = t;
		if (n < NEIGHBOURS)
			n++;
	}
	return n;
}

/* "fair nice 0", "rt 50", "deadline", from the prio sched_switch shows. */
static const char *policy(const struct ta_task *t, char *buf, size_t len)
{
	int p = t->switch_prio;

	if (p == TA_NO_PRIO)
		snprintf(buf, len, "never switched");
	else if (p < 0)
		snprintf(buf, len, "deadline");
	else if (p < 100)
		snprintf(buf, len, "rt %d", 99 - p);
	else if (p < 140)
		snprintf(buf, len, "fair nice %d", p - 120);
	else
		snprintf(buf, len, "prio %d", p);
	return buf;
}

static int neighbour_str(const struct trace_report *r,
			 const struct ta_task *t, int kind, char *buf,
			 size_t len)
{
	char pol[32];

	return snprintf(buf, len, "%s (pid %d, %s%s) %.1f%%", t->comm, t->pid,
			kind && t->kthread ? "kernel thread, " : "",
			policy(t, pol, sizeof(pol)),
			100 * cpus_share(r, t->cpu_ns));
}

void trace_report_neighbours(const struct trace_report *r, char *buf,
			     size_t len)
{
	const struct ta_task *top[NEIGHBOURS];
	int i, w, n = neighbours(r, top);
	size_t used = 0;
	char one[128];

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		neighbour_str(r, top[i], 1, one, sizeof(one));
		w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", one);
		if (w < 0 || used + w >= len) {
			buf[used] = '\0';	/* whole entries only */
			break;
		}
		used += w;
	}
}

static void explain_neighbours(const struct trace_report *r, FILE *f)
{
	const struct ta_task *top[NEIGHBOURS];
	int i, n = neighbours(r, top), kthread;
	char buf[128];

	fprintf(f, "neighbours: the tasks outside the workload that ran most (at most %d, each above %.1f%% of window x CPUs)\n",
		NEIGHBOURS, 100 * NEIGHBOUR_MIN);
	for (kthread = 0; kthread < 2; kthread++) {
		int named = 0;

		if (kthread)
			fprintf(f, "  kernel threads: %.1f%% in all (kthread.cpu_share)\n",
				100 * cpus_share(r, r->kthread_ns));
		else if (r->foreign_known)
			fprintf(f, "  user tasks: %.1f%% in all (foreign.cpu_share)\n",
				100 * cpus_share(r, r->foreign_ns));
		else
			fprintf(f, "  user tasks: not known (no workload says which tasks are its own)\n");
		for (i = 0; i < n; i++) {
			if (top[i]->kthread != kthread)
				continue;
			neighbour_str(r, top[i], 0, buf, sizeof(buf));
			fprintf(f, "    %s\n", buf);
			named++;
		}
		if (!named && (kthread || r->foreign_known))
			fprintf(f, "    none of them\n");
	}
}

void trace_report_explain(const struct trace_report *r, FILE *f)
{
	uint64_t base = r->ws > r->first_ts ? r->ws : r->first_ts;

	if (!r->aff_known) {
		fprintf(f, "wc: not measured: no affinity (a workload's tasks, or --all-cpus)\n");
		fprintf(f, "rt: not measured: no affinity\n");
	} else {
		explain_stretches(f, "wc",
				  "a CPU idle while a task that may run there waited",
				  &r->wc_eps, r->wc_ns, base);
		explain_stretches(f, "rt",
				  "an RT task waiting while a CPU it may use idled or ran lower",
				  &r->rt_eps, r->rt_lower_ns, base);
	}
	explain_neighbours(r, f);
}
