// SPDX-License-Identifier: GPL-2.0
/*
 * Building the trace analysis options of a run.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpubits.h"
#include "run/measure.h"

/*
 * rt-app 1.0's "cpus": an array of CPU numbers, into @aff (cpus NULL when
 * absent: every CPU). Any CPU the kernel could have is accepted: the
 * trace may come from a bigger machine than this one.
 */
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

int trace_scope_init(struct trace_scope *s, const struct workload *w,
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
		trace_scope_free(s);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	}
	json_object_object_foreach(tasks, name, task) {
		if (task_cpus(task, name, w->path, &s->aff[s->n], err)) {
			trace_scope_free(s);
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

int trace_scope_measure(struct trace_scope *s, const char *trace,
			struct metric_set *set, uint64_t *lost,
			struct sw_err *err)
{
	struct trace_report *report = NULL;
	int ret = -1;

	s->neighbours[0] = '\0';
	if (trace_analyze(trace, &s->opts, &report, err))
		goto out;
	*lost = trace_report_lost_events(report);
	if (trace_report_note(report))
		fprintf(stderr, "sched-workloads: %s: %s\n", trace,
			trace_report_note(report));
	if (s->explain)
		trace_report_explain(report, s->explain);
	if (s->timeline)
		trace_report_timeline(report, s->timeline);
	trace_report_neighbours(report, s->neighbours, sizeof(s->neighbours));
	if (trace_report_add_metrics(report, &s->opts, set)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		goto out;
	}
	ret = 0;
out:
	trace_report_free(report);
	return ret;
}

int trace_scope_load_kthreads(struct trace_scope *s, const char *dir,
			      struct sw_err *err)
{
	char path[PATH_MAX];
	int ret;

	if (path_join(path, sizeof(path), dir, KTHREADS_FILE))
		return sw_err_set(err, SW_EXIT_USAGE, "%s: path too long", dir);
	kthreads_free(&s->kthreads);
	ret = kthreads_read(path, &s->kthreads, err);
	if (ret < 0)
		return -1;
	s->opts.kthreads = ret ? NULL : &s->kthreads;
	return 0;
}

void trace_scope_free(struct trace_scope *s)
{
	size_t i;

	kthreads_free(&s->kthreads);
	for (i = 0; s->aff && i < s->n; i++)
		free((int *)s->aff[i].cpus);
	free(s->aff);
	free(s->globs);
	free(s->comms);
	memset(s, 0, sizeof(*s));
}
