// SPDX-License-Identifier: GPL-2.0
/*
 * One repetition of a workload, and reading it back.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/capture.h"
#include "lib/event_hist.h"
#include "machine/host_gauge.h"
#include "machine/task_groups.h"
#include "lib/cleanup.h"
#include "run/ktap.h"
#include "trace/kthreads.h"
#include "machine/cpu_cores.h"
#include "rtapp/run_json.h"
#include "machine/sched_settings.h"
#include "run/repetition.h"
#include "rtapp/rtapp_log.h"
#include "rtapp/rtapp_metrics.h"
#include "rtapp/rtapp_run.h"
#include "run/measure.h"
#include "lib/results.h"

/* rt-app may end this much (or 1%) before the workload's duration */
#define RTAPP_EARLY_S 0.05

static int print_metrics(FILE *f, const void *set)
{
	return metric_set_write_json(set, f);
}

/* The last line rt-app printed: usually the reason it gave up. */
static void last_line(const char *path, char *buf, size_t len)
{
	char *text = read_text_file(path, NULL), *end, *start;

	buf[0] = '\0';
	if (!text)
		return;
	end = text + strlen(text);
	while (end > text && end[-1] == '\n')
		*--end = '\0';
	start = strrchr(text, '\n');
	snprintf(buf, len, "%s", start ? start + 1 : text);
	free(text);
}

/* Adds the time since @t to *@to; returns now. */
static uint64_t cost_mark(const struct repetition_opts *o, uint64_t t,
			  double *to)
{
	uint64_t now = now_mono_ns();

	if (o->cost && to)
		*to += (now - t) / 1e9;
	return now;
}

/* A killed rt-app's threads still in the workload's groups, named. */
static void stuck_in_groups(const struct task_groups *groups,
			    struct sw_err *err)
{
	char stuck[256], msg[SW_ERR_LEN];

	task_groups_stuck(groups, stuck, sizeof(stuck));
	snprintf(msg, sizeof(msg), "%s", err->msg);
	if (stuck[0])
		sw_err_set(err, err->code, "%.200s: %s", msg, stuck);
}

/* rt-app under a trace of its own: run.json, logs, trace.dat. */
static int record(const struct workload *w, const struct repetition_opts *o,
		  const char *dir, uint64_t *run_end_ns, struct sw_err *err)
{
	struct prepare_opts po = {
		.logdir = dir, .basename = RESULTS_RTAPP_BASENAME,
		.calibration = o->calibration,
	};
	char run_json[PATH_MAX], out[PATH_MAX], trace[PATH_MAX], msg[256];
	char kt[PATH_MAX], cores_txt[PATH_MAX];
	struct kthread_list kl = { 0 };
	struct cpu_cores cores = { 0 };
	struct capture cap = { 0 };
	struct task_groups groups;
	struct child_exit ex;
	char *online = NULL, *online_after = NULL;
	double duration;
	uint64_t t = now_mono_ns();
	int ret = -1, ran;

	if (results_path(run_json, sizeof(run_json), dir, RF_RUN_JSON) ||
	    results_path(out, sizeof(out), dir, RF_RTAPP_OUT) ||
	    results_path(trace, sizeof(trace), dir, RF_TRACE) ||
	    results_path(kt, sizeof(kt), dir, RF_KTHREADS) ||
	    results_path(cores_txt, sizeof(cores_txt), dir, RF_CORES))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: path too long", dir);
	if (prepare_run_json(w, &po, run_json, &duration, err) ||
	    task_groups_parse(w, &groups, err))
		return -1;
	/* Kernel threads alive before and after: they are not neighbours. */
	online = settings_online_cpus();
	if (kthreads_scan(&kl, err) || capture_start(&cap, o->buffer_kb, err))
		goto fail;
	if (o->phase_ns) {
		struct timespec ts = {
			.tv_sec = o->phase_ns / 1000000000,
			.tv_nsec = o->phase_ns % 1000000000,
		};

		nanosleep(&ts, NULL);
	}
	t = cost_mark(o, t, o->cost ? &o->cost->setup : NULL);
	if (task_groups_create(&groups, err))
		goto fail;
	ran = rtapp_run(rtapp_binary(), run_json, out, duration * 1.5 + 10,
			groups.n ? task_groups_place : NULL, &groups, &ex, err);
	if (ran && ex.timed_out)
		stuck_in_groups(&groups, err);
	cleanup_pop(&groups);
	if (ran || (ex.exited && !ex.code && task_groups_check(&groups, err)))
		goto fail;
	t = cost_mark(o, t, o->cost ? &o->cost->rtapp : NULL);
	capture_stop(&cap);
	/* A CPU taken away (or given) is the machine's doing, not judged. */
	online_after = settings_online_cpus();
	if (online && online_after && strcmp(online, online_after)) {
		sw_err_set(err, SW_EXIT_SKIP,
			   "the machine changed during the repetition: CPUs online %s -> %s",
			   online, online_after);
		goto fail;
	}
	if (kthreads_scan(&kl, err) || kthreads_write(&kl, kt, err) ||
	    cpu_cores_scan(&cores, err) ||
	    cpu_cores_write(&cores, cores_txt, err))
		goto fail;
	if (!ex.exited || ex.code) {
		last_line(out, msg, sizeof(msg));
		sw_err_set(err, SW_EXIT_RUN_ERROR, "rt-app %s %d after %.1f s: %s (%s)",
			   ex.exited ? "exited with" : "killed by signal", ex.code,
			   ex.wall_s, msg, out);
		goto fail;
	}
	/* Killed by SIGTERM, rt-app exits 0: only its run time tells. */
	if (ex.wall_s < duration - fmax(RTAPP_EARLY_S, duration / 100)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR,
			   "rt-app ended after %.2f s of a %.0f s workload (killed?): a shorter run is not judged (%s)",
			   ex.wall_s, duration, out);
		goto fail;
	}
	/*
	 * The run ends with the duration; rt-app itself may exit well after
	 * it, waiting for a thread to end the pass it was in (one the CBS
	 * throttles to a third of its job takes ten periods).
	 */
	*run_end_ns = ex.end_ns - (uint64_t)(fmax(0, ex.wall_s - duration) * 1e9);
	t = cost_mark(o, t, o->cost ? &o->cost->setup : NULL);
	if (capture_save(&cap, trace, err))
		goto fail;
	cost_mark(o, t, o->cost ? &o->cost->save : NULL);
	ktap_diag("%s: rt-app ran %.1f s; trace %s, %u events enabled, %llu lost",
		  w->name, ex.wall_s, trace, cap.nr_events,
		  (unsigned long long)capture_lost_events(&cap));
	ret = 0;
fail:
	capture_destroy(&cap);
	kthreads_free(&kl);
	cpu_cores_free(&cores);
	free(online);
	free(online_after);
	return ret;
}

static struct json_object *events_json(const struct metric_set *set)
{
	return set->events ? event_rep_to_json(set->events) :
	       json_object_new_object();
}

int repetition_run(const struct workload *w, const struct repetition_opts *o,
		   const char *dir, struct metric_set *set, char *neighbours,
		   size_t nlen, struct sw_err *err)
{
	struct measure_in in = {
		.w = w, .logs = dir, .basename = RESULTS_RTAPP_BASENAME,
	};
	char path[PATH_MAX], trace[PATH_MAX];
	struct json_object *explain = NULL;
	struct measure_out out;
	uint64_t t;
	int ret;

	if (mkdir_p(dir))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot create: %s",
				  dir, strerror(errno));
	if (record(w, o, dir, &in.run_end_ns, err))
		return -1;
	t = now_mono_ns();
	if (results_path(trace, sizeof(trace), dir, RF_TRACE) ||
	    results_path(path, sizeof(path), dir, RF_EXPLAIN))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: path too long", dir);
	in.trace = trace;
	/* where wc.* and rt.* come from, for whoever looks into a failure */
	in.explain = fopen(path, "w");
	in.explain_json = &explain;
	ret = measure_files(&in, set, &out, err);
	if (in.explain)
		fclose(in.explain);
	snprintf(neighbours, nlen, "%s", out.neighbours);
	if (!ret && out.late[0])
		ktap_diag("%s: %s: %s; judged as it ran", w->name,
			  strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir,
			  out.late);
	if (ret) {
		json_object_put(explain);
		return -1;
	}
	/* the same for programs: the report draws the longest stretches */
	if (explain && write_json_file(dir, results_name(RF_EXPLAIN_JSON),
				       explain, JSON_C_TO_STRING_PRETTY))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s/%s: cannot write: %s",
				  dir, results_name(RF_EXPLAIN_JSON),
				  strerror(errno));
	if (results_path(path, sizeof(path), dir, RF_METRICS))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: path too long", dir);
	if (write_stream_file(path, print_metrics, set))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot write: %s",
				  path, strerror(errno));
	if (write_json_file(dir, results_name(RF_EVENTS), events_json(set),
			    JSON_C_TO_STRING_PLAIN))
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "%s/%s: cannot write: %s", dir,
				  results_name(RF_EVENTS), strerror(errno));
	cost_mark(o, t, o->cost ? &o->cost->analysis : NULL);
	if (o->cost)
		o->cost->reps++;
	return 0;
}

int repetition_load(const char *dir, struct metric_set *set,
		    struct sw_err *err)
{
	char path[PATH_MAX];
	struct json_object *o;
	int ret;

	if (results_path(path, sizeof(path), dir, RF_METRICS))
		return sw_err_set(err, SW_EXIT_USAGE, "%s: path too long", dir);
	o = json_object_from_file(path);
	if (!o)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: missing or not JSON", path);
	ret = metric_set_from_json(set, o, path, err);
	json_object_put(o);
	if (ret || !set->events)
		return ret;
	if (results_path(path, sizeof(path), dir, RF_EVENTS))
		return sw_err_set(err, SW_EXIT_USAGE, "%s: path too long", dir);
	o = json_object_from_file(path);
	if (!o)
		/* Recorded before events were kept: no tails to judge. */
		return 0;
	event_rep_free(set->events);
	ret = event_rep_from_json(set->events, o, path, err);
	json_object_put(o);
	return ret;
}
