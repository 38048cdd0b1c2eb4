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
#include <json-c/json.h>

#include "trace/trace_report.h"
#include "trace/trace_metrics.h"	/* ta_window_ns() */

/* The neighbours worth naming: the top few above 0.1% of the CPUs. */
#define NEIGHBOURS	5
#define NEIGHBOUR_MIN	0.001

/* Who was involved as the stretch began, in words. */
static void stretch_who(const struct ta_stretch *e, char *buf, size_t len)
{
	char other[64];

	if (e->other_cpu < 0) {
		snprintf(buf, len, "(no waiting task named)");
		return;
	}
	if (!e->other_pid)
		snprintf(other, sizeof(other), "idled");
	else if (e->other_pid < 0)
		snprintf(other, sizeof(other), "%s a fair task",
			 e->other_taken ? "was about to run" : "ran");
	else
		snprintf(other, sizeof(other), "%s %s (pid %d, prio %d)",
			 e->other_taken ? "was about to run" : "ran",
			 e->other_comm, e->other_pid, e->other_prio);
	snprintf(buf, len, "%s (pid %d) waited on cpu%d while cpu%d %s",
		 e->comm, e->pid, e->cpu, e->other_cpu, other);
}

/* The trace clock time of @ns as explain prints it: "1617.924384". */
static void clock_text(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%06llu",
		 (unsigned long long)(ns / 1000000000ull),
		 (unsigned long long)(ns % 1000000000ull / 1000));
}

static void explain_stretch(FILE *f, const struct ta_stretch *e,
			    uint64_t base)
{
	char at[32], who[160];

	clock_text(e->start, at, sizeof(at));
	stretch_who(e, who, sizeof(who));
	fprintf(f, "  at %s (%+.6f s): %.1f us; %s\n", at,
		((double)e->start - (double)base) / 1e9, e->len / 1e3, who);
}

static void explain_stretches(FILE *f, const char *what, const char *cond,
			      const struct ta_stretches *s, uint64_t total,
			      uint64_t base)
{
	int i;

	fprintf(f, "%s: %lu stretch%s with %s: %.1f us in all, the longest %.1f us\n",
		what, s->count, s->count == 1 ? "" : "es", cond, total / 1e3,
		s->top[0].len / 1e3);
	for (i = 0; i < TA_STRETCHES && s->top[i].len; i++)
		explain_stretch(f, &s->top[i], base);
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
				  &r->wc_stretches, r->wc_ns, base);
		explain_stretches(f, "rt",
				  "an RT task waiting while a CPU it may use idled or ran lower",
				  &r->rt_stretches, r->rt_lower_ns, base);
	}
	explain_neighbours(r, f);
}

static struct json_object *stretch_json(const struct ta_stretch *e,
					uint64_t base)
{
	struct json_object *o = json_object_new_object();
	char at[32], who[160];

	clock_text(e->start, at, sizeof(at));
	stretch_who(e, who, sizeof(who));
	json_object_object_add(o, "start_s",
			       json_object_new_double_s(e->start / 1e9, at));
	json_object_object_add(o, "offset_s",
			       json_object_new_double(((double)e->start -
						       (double)base) / 1e9));
	json_object_object_add(o, "len_us", json_object_new_double(e->len / 1e3));
	json_object_object_add(o, "who", json_object_new_string(who));
	if (e->other_cpu < 0)
		return o;
	json_object_object_add(o, "pid", json_object_new_int(e->pid));
	json_object_object_add(o, "comm", json_object_new_string(e->comm));
	json_object_object_add(o, "cpu", json_object_new_int(e->cpu));
	json_object_object_add(o, "other_cpu", json_object_new_int(e->other_cpu));
	/* 0: idle; -1: a fair task, not named */
	json_object_object_add(o, "other_pid", json_object_new_int(e->other_pid));
	if (e->other_pid > 0) {
		json_object_object_add(o, "other_comm",
				       json_object_new_string(e->other_comm));
		json_object_object_add(o, "other_prio",
				       json_object_new_int(e->other_prio));
	}
	json_object_object_add(o, "other_taken",
			       json_object_new_boolean(e->other_taken));
	return o;
}

static struct json_object *stretches_json(const struct trace_report *r,
					  const struct ta_stretches *s,
					  uint64_t total, uint64_t base)
{
	struct json_object *o = json_object_new_object();
	struct json_object *top = json_object_new_array();
	int i;

	json_object_object_add(o, "measured",
			       json_object_new_boolean(r->aff_known));
	if (!r->aff_known) {
		json_object_put(top);
		return o;
	}
	json_object_object_add(o, "stretches", json_object_new_int64(s->count));
	json_object_object_add(o, "total_us", json_object_new_double(total / 1e3));
	for (i = 0; i < TA_STRETCHES && s->top[i].len; i++)
		json_object_array_add(top, stretch_json(&s->top[i], base));
	json_object_object_add(o, "longest", top);
	return o;
}

static struct json_object *neighbours_json(const struct trace_report *r)
{
	const struct ta_task *top[NEIGHBOURS];
	struct json_object *o = json_object_new_object();
	struct json_object *tasks = json_object_new_array();
	int i, n = neighbours(r, top);
	char pol[32];

	json_object_object_add(o, "user_share", r->foreign_known ?
			       json_object_new_double(cpus_share(r, r->foreign_ns)) :
			       NULL);
	json_object_object_add(o, "kthread_share",
			       json_object_new_double(cpus_share(r, r->kthread_ns)));
	for (i = 0; i < n; i++) {
		struct json_object *t = json_object_new_object();

		json_object_object_add(t, "comm", json_object_new_string(top[i]->comm));
		json_object_object_add(t, "pid", json_object_new_int(top[i]->pid));
		json_object_object_add(t, "kthread",
				       json_object_new_boolean(top[i]->kthread));
		json_object_object_add(t, "policy",
				       json_object_new_string(policy(top[i], pol,
								     sizeof(pol))));
		json_object_object_add(t, "share",
				       json_object_new_double(cpus_share(r, top[i]->cpu_ns)));
		json_object_array_add(tasks, t);
	}
	json_object_object_add(o, "tasks", tasks);
	return o;
}

struct json_object *trace_report_explain_json(const struct trace_report *r)
{
	uint64_t base = r->ws > r->first_ts ? r->ws : r->first_ts;
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "wc", stretches_json(r, &r->wc_stretches,
						       r->wc_ns, base));
	json_object_object_add(o, "rt", stretches_json(r, &r->rt_stretches,
						       r->rt_lower_ns, base));
	json_object_object_add(o, "neighbours", neighbours_json(r));
	return o;
}
