// SPDX-License-Identifier: GPL-2.0
/*
 * Measuring a repetition from its files (run/measure.h).
 *
 * What the trace analysis is told about a run: the window rt-app's
 * threads were active in, and each thread's affinity as the workload
 * declares it (its "cpus" key, else every CPU). Only rt-app's threads get
 * per-task metrics and take part in work conservation: the affinity of
 * anything else on the machine is unknown, and never assumed.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/host_gauge.h"
#include "machine/sched_settings.h"
#include "lib/cpubits.h"
#include "rtapp/rtapp_metrics.h"
#include "run/measure.h"
#include "trace/kthreads.h"
#include "machine/cpu_cores.h"
#include "trace/trace.h"
#include "lib/results.h"

struct scope {
	struct trace_opts opts;
	struct trace_affinity *aff;
	const char **globs;
	char (*comms)[16];	/* rt-app thread names as the kernel cuts them */
	size_t n;
	struct kthread_list kthreads;	/* scope_load_kthreads() */
	struct cpu_cores cores;		/* scope_load_cores() */
};

static void scope_free(struct scope *s)
{
	size_t i;

	kthreads_free(&s->kthreads);
	cpu_cores_free(&s->cores);
	for (i = 0; s->aff && i < s->n; i++)
		free((int *)s->aff[i].cpus);
	free(s->aff);
	free(s->globs);
	free(s->comms);
	memset(s, 0, sizeof(*s));
}

static int task_cpus(struct json_object *task, const char *name,
		     const char *file, struct trace_affinity *aff,
		     struct sw_err *err)
{
	struct json_object *cpus;
	int *list;
	size_t i, n;

	aff->cpus = NULL;
	aff->ncpus = 0;
	if (!json_object_object_get_ex(task, "cpus", &cpus))
		return 0;
	if (!json_object_is_type(cpus, json_type_array))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: tasks.%s.cpus: not an array of CPU numbers",
				  file, name);
	n = json_object_array_length(cpus);
	list = calloc(n ? n : 1, sizeof(*list));
	if (!list)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	for (i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(cpus, i);
		int cpu = json_object_get_int(c);

		if (!json_object_is_type(c, json_type_int) || cpu < 0 ||
		    cpu >= CPUBITS_MAX_CPUS) {
			free(list);
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: tasks.%s.cpus[%zu]: %s is not a CPU number 0..%d",
					  file, name, i,
					  json_object_to_json_string(c),
					  CPUBITS_MAX_CPUS - 1);
		}
		list[i] = cpu;
	}
	aff->cpus = list;
	aff->ncpus = n;
	return 0;
}

static void window_from_logs(struct trace_opts *o, const struct rtapp_logs *logs)
{
	double start = 0, end = 0;
	size_t i;

	for (i = 0; logs && i < logs->n; i++) {
		if (!logs->t[i].passes)
			continue;
		if (!start || logs->t[i].start_us < start)
			start = logs->t[i].start_us;
		if (logs->t[i].end_us > end)
			end = logs->t[i].end_us;
	}
	if (start > 0 && end > start) {
		o->start_ns = (uint64_t)(start * 1000);
		o->end_ns = (uint64_t)(end * 1000);
	}
}

static int scope_init(struct scope *s, const struct workload *w,
		     const struct rtapp_logs *logs, struct sw_err *err)
{
	struct json_object *tasks;
	size_t n;

	memset(s, 0, sizeof(*s));
	if (!json_object_object_get_ex(w->root, "tasks", &tasks))
		return 0;
	n = json_object_object_length(tasks);
	s->aff = calloc(n, sizeof(*s->aff));
	s->globs = calloc(n, sizeof(*s->globs));
	s->comms = calloc(n, sizeof(*s->comms));
	if (!s->aff || !s->globs || !s->comms) {
		scope_free(s);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	}
	json_object_object_foreach(tasks, name, task) {
		if (task_cpus(task, name, w->path, &s->aff[s->n], err)) {
			scope_free(s);
			return -1;
		}
		/* The kernel keeps 15 characters of a thread name. */
		snprintf(s->comms[s->n], sizeof(s->comms[s->n]), "%s", name);
		s->aff[s->n].comm = s->comms[s->n];
		s->globs[s->n] = s->comms[s->n];
		s->n++;
	}
	s->opts.aff = s->aff;
	s->opts.naff = s->n;
	s->opts.task_globs = s->globs;
	s->opts.ntask_globs = s->n;
	window_from_logs(&s->opts, logs);
	return 0;
}

static int scope_load_kthreads(struct scope *s, const char *dir,
			      struct sw_err *err)
{
	char path[PATH_MAX];
	int ret;

	if (results_path(path, sizeof(path), dir, RF_KTHREADS))
		return sw_err_set(err, SW_EXIT_USAGE, "%s: path too long", dir);
	kthreads_free(&s->kthreads);
	ret = kthreads_read(path, &s->kthreads, err);
	if (ret < 0)
		return -1;
	s->opts.kthreads = ret ? NULL : &s->kthreads;
	return 0;
}

/* The SMT cores the repetition kept beside its trace, when it did. */
static int scope_load_cores(struct scope *s, const char *dir,
			    struct sw_err *err)
{
	char path[PATH_MAX];
	int ret;

	if (results_path(path, sizeof(path), dir, RF_CORES))
		return sw_err_set(err, SW_EXIT_USAGE, "%s: path too long", dir);
	cpu_cores_free(&s->cores);
	ret = cpu_cores_read(path, &s->cores, err);
	if (ret < 0)
		return -1;
	s->opts.core_of = s->cores.core_of;
	s->opts.ncore_of = s->cores.n;
	return 0;
}

/*
 * The passes a thread of @task logs when it runs its whole event list,
 * its "loop" times the loops of its phases (one line each), or 0 when it
 * loops until the end (a "loop" of -1, the default).
 */
static size_t finite_passes(const struct workload *w, const char *task)
{
	struct json_object *tasks, *t, *v, *phases;
	long loop = -1, per = 0;

	if (!json_object_object_get_ex(w->root, "tasks", &tasks) ||
	    !json_object_object_get_ex(tasks, task, &t))
		return 0;
	if (json_object_object_get_ex(t, "loop", &v))
		loop = json_object_get_int64(v);
	if (loop <= 0)
		return 0;
	if (!json_object_object_get_ex(t, "phases", &phases))
		return loop;
	json_object_object_foreach(phases, name, ph) {
		long n = 1;

		(void)name;
		if (json_object_object_get_ex(ph, "loop", &v))
			n = json_object_get_int64(v);
		if (n <= 0)
			return 0;
		per += n;
	}
	return loop * per;
}

/*
 * rt-app logs a pass as it ends, and a workload runs threads to its end
 * (else rt-app exits early, refused above): the last logged pass ends at
 * most about two passes before the run does (its duration, or rt-app's
 * exit if sooner), as the pass the duration cuts is not logged. Logs
 * that stop earlier lost their end (a full disk, a cut file) and would
 * be judged as a shorter run. A thread of a finite
 * "loop" that logged every pass of it ended on its own (a synthesized
 * copy's, up to a second before the whole seconds of "duration"): it is
 * complete wherever it stops. No pass at all is a result (threads that
 * never ran), for "passes" checks to judge.
 */
#define LOG_END_SLACK_S 0.1

/* How the logs end against the run: 1 when they stop too early. */
struct logs_end {
	double last_us;		/* CLOCK_MONOTONIC end of the last pass */
	double gap_s;		/* from it to the run's end */
	double pass_s;		/* a pass, on average */
};

static int logs_end_early(const struct workload *w,
			  const struct rtapp_logs *logs, uint64_t run_end_ns,
			  struct logs_end *e)
{
	double pass = 0;
	size_t i, all;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < logs->n; i++) {
		const struct rtapp_task_log *t = &logs->t[i];

		all = finite_passes(w, t->task);
		if (!t->passes || (all && t->passes == all))
			continue;
		e->last_us = fmax(e->last_us, t->end_us);
		pass = fmax(pass, (t->end_us - t->start_us) / t->passes);
	}
	if (!e->last_us)
		return 0;
	e->gap_s = (run_end_ns / 1e3 - e->last_us) / 1e6;
	e->pass_s = pass / 1e6;
	return e->gap_s > 2 * e->pass_s + LOG_END_SLACK_S;
}

/*
 * What the workload's threads did in the gap between their last logged
 * pass and the run's end, from the trace: their time runnable but not
 * running, and their time running, each summed over the threads (us).
 */
static int gap_activity(const struct measure_in *in,
			const struct rtapp_logs *logs, const struct logs_end *e,
			double *waited, double *ran, struct sw_err *err)
{
	struct trace_report *report = NULL;
	struct metric_set set = { 0 };
	struct scope s = { 0 };
	size_t i;
	int ret = -1;

	*waited = *ran = 0;
	if (scope_init(&s, in->w, logs, err))
		goto out;
	s.opts.start_ns = (uint64_t)(e->last_us * 1000);
	s.opts.end_ns = s.opts.start_ns + (uint64_t)(e->gap_s * 1e9);
	s.opts.buffer = in->buffer;
	if (trace_analyze(in->trace, &s.opts, &report, err))
		goto out;
	if (trace_report_add_metrics(report, &s.opts, &set)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		goto out;
	}
	for (i = 0; i < set.n; i++) {
		const struct metric_value *v = &set.v[i];

		if (v->def->source != SRC_TRACE_TASK || v->pooled ||
		    isnan(v->value))
			continue;
		if (!strcmp(v->def->name, "runnable_wait.total"))
			*waited += v->value;
		else if (!strcmp(v->def->name, "cpu_time"))
			*ran += v->value;
	}
	ret = 0;
out:
	metric_set_free(&set);
	trace_report_free(report);
	scope_free(&s);
	return ret;
}

/* "kernel.sched_rt_runtime_us 300000 of 1000000", when RT is throttled. */
static void rt_bandwidth(char *buf, size_t len)
{
	long rt, per;

	buf[0] = '\0';
	if (!settings_rt_bandwidth(&rt, &per) && rt >= 0 && rt < per)
		snprintf(buf, len, "; RT bandwidth: kernel.sched_rt_runtime_us %ld of kernel.sched_rt_period_us %ld",
			 rt, per);
}

/*
 * Logs that stop well before the run did lost their end (a full disk, a
 * cut file), and a shorter run is not judged: an error. Unless the trace
 * shows the workload's threads runnable and not running for at least
 * half that gap: the kernel throttled or starved them (RT bandwidth, a
 * higher priority), so their last passes ran late or not at all. That is
 * the kernel's behaviour, for the workload's checks to judge: named in
 * @late, not an error.
 */
static int check_logs_reach_end(const struct measure_in *in,
				const struct rtapp_logs *logs, char *late,
				size_t len, struct sw_err *err)
{
	double waited, ran;
	struct logs_end e;
	char rt[160];

	late[0] = '\0';
	if (!logs_end_early(in->w, logs, in->run_end_ns, &e))
		return 0;
	if (in->trace) {
		if (gap_activity(in, logs, &e, &waited, &ran, err))
			return -1;
		if (waited >= e.gap_s * 1e6 / 2) {
			rt_bandwidth(rt, sizeof(rt));
			snprintf(late, len,
				 "rt-app's logs end %.2f s before its run did: its threads waited runnable %.2f s and ran %.2f s in that time, throttled or starved by the kernel%s",
				 e.gap_s, waited / 1e6, ran / 1e6, rt);
			return 0;
		}
	}
	return sw_err_set(err, SW_EXIT_BAD_LOG,
			  "%s: rt-app's logs end %.2f s before its run did (a pass takes %.3f s on average): they lost their end (a full disk, a cut file), and a shorter run is not judged",
			  in->logs, e.gap_s, e.pass_s);
}

/* The trace's metrics, scoped to the workload's threads and window. */
static int add_trace_metrics(const struct measure_in *in,
			     const struct rtapp_logs *logs,
			     struct metric_set *set, struct measure_out *out,
			     struct sw_err *err)
{
	struct trace_report *report = NULL;
	struct scope s = { 0 };
	int ret = -1;

	if ((in->w && scope_init(&s, in->w, logs, err)) ||
	    (in->logs && (scope_load_kthreads(&s, in->logs, err) ||
			  scope_load_cores(&s, in->logs, err))))
		goto out;
	s.opts.affinity_all = in->all_cpus;
	s.opts.buffer = in->buffer;
	s.opts.use_libtracecmd = in->use_libtracecmd;
	s.opts.timeline_start_ns = in->timeline_start_ns;
	s.opts.timeline_end_ns = in->timeline_end_ns;
	if (trace_analyze(in->trace, &s.opts, &report, err))
		goto out;
	out->lost_events = trace_report_lost_events(report);
	if (trace_report_note(report))
		fprintf(stderr, "sched-workloads: %s: %s\n", in->trace,
			trace_report_note(report));
	if (in->explain)
		trace_report_explain(report, in->explain);
	if (in->explain_json)
		*in->explain_json = trace_report_explain_json(report);
	if (in->timeline)
		trace_report_timeline(report, in->timeline);
	trace_report_neighbours(report, out->neighbours,
				sizeof(out->neighbours));
	if (trace_report_add_metrics(report, &s.opts, set)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		goto out;
	}
	ret = 0;
out:
	trace_report_free(report);
	scope_free(&s);
	return ret;
}

/*
 * Logs that reach their end can hide throttling too: the kernel held the
 * threads back, their passes ran late but ran. A SCHED_FIFO or SCHED_RR
 * thread of the workload runnable for RT_HELD_S at a stretch, while the
 * RT bandwidth is limited, was throttled (nothing else keeps a runnable
 * RT thread off a CPU that long: the battery's own wait behind higher
 * priorities is a few ms, and the kernel's default 95% holds an RT hog
 * back for 50 ms a second): named in @late.
 */
#define RT_HELD_S	0.25

static int task_is_rt(const struct workload *w, const char *task)
{
	struct json_object *tasks, *t = NULL;
	const char *policy;

	if (json_object_object_get_ex(w->root, "tasks", &tasks))
		json_object_object_get_ex(tasks, task, &t);
	policy = workload_policy(w, t);
	return !strcmp(policy, "SCHED_FIFO") || !strcmp(policy, "SCHED_RR");
}

static void name_rt_throttling(const struct measure_in *in,
			       const struct metric_set *set, char *late,
			       size_t len)
{
	const struct metric_value *mv, *held = NULL;
	char rt[160];
	size_t i;

	if (!in->w || late[0])
		return;
	for (i = 0; i < set->n; i++) {
		mv = &set->v[i];
		if (mv->def->source != SRC_TRACE_TASK ||
		    strcmp(mv->def->name, "runnable_wait.max") ||
		    !(mv->value >= RT_HELD_S * 1e6) ||
		    !task_is_rt(in->w, mv->group))
			continue;
		if (!held || mv->value > held->value)
			held = mv;
	}
	if (!held)
		return;
	rt_bandwidth(rt, sizeof(rt));
	if (rt[0])
		snprintf(late, len,
			 "%s waited runnable %.2f s at a stretch: throttled by the kernel%s",
			 held->entity, held->value / 1e6, rt);
}

int measure_files(const struct measure_in *in, struct metric_set *set,
		  struct measure_out *out, struct sw_err *err)
{
	struct rtapp_logs logs = { 0 };
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (in->logs && rtapp_logs_load(in->logs, in->basename, &logs, err))
		return -1;
	if (in->run_end_ns)
		ret = check_logs_reach_end(in, &logs, out->late,
					   sizeof(out->late), err);
	if (!ret)
		ret = rtapp_logs_add_metrics(&logs, set, err);
	if (!ret && in->trace)
		ret = add_trace_metrics(in, &logs, set, out, err);
	if (!ret && in->trace && in->run_end_ns)
		name_rt_throttling(in, set, out->late, sizeof(out->late));
	if (!ret && host_gauge_add(&logs, set))
		ret = sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	rtapp_logs_free(&logs);
	return ret;
}
