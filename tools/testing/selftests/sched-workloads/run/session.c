// SPDX-License-Identifier: GPL-2.0
/*
 * A session of workloads, opened, flushed and closed (run/session.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "lib/cleanup.h"
#include "lib/results.h"
#include "rtapp/rtapp_grammar.h"
#include "run/ktap.h"
#include "run/prereq.h"
#include "run/run_index.h"
#include "run/session.h"
#include "run/sysctl.h"
#include "trace/capture.h"

void battery_opts_init(struct battery_opts *o, int baseline)
{
	memset(o, 0, sizeof(*o));
	o->calibration = BATTERY_CALIBRATION;
	o->buffer_kb = BATTERY_BUFFER_KB;
	o->repetitions = baseline ? BATTERY_BASELINE_REPS : BATTERY_REPS;
	o->confirm_gap_s = BATTERY_CONFIRM_GAP_S;
	o->time_limit_s = baseline ? 0 : BATTERY_TIME_LIMIT_S;
}

const char *session_out_of_time(struct session *s)
{
	double ran = (now_mono_ns() - s->t0) / 1e9;

	if (s->out_of_time[0])
		return s->out_of_time;
	if (!s->o.time_limit_s || ran < s->o.time_limit_s)
		return NULL;
	snprintf(s->out_of_time, sizeof(s->out_of_time),
		 "out of time: the battery's time limit of %g s (-T) was reached",
		 s->o.time_limit_s);
	ktap_diag("%s after %.0f s: no more rounds start", s->out_of_time, ran);
	return s->out_of_time;
}

void session_error(struct wl *wl, const struct sw_err *err)
{
	wl->state = WL_DONE;
	/* Stopped by a signal to us: not judged, as those after it. */
	if (cleanup_interrupted()) {
		wl->status = V_SKIP;
		snprintf(wl->reason, sizeof(wl->reason), "interrupted");
		return;
	}
	wl->status = V_ERROR;
	wl->exit_code = err->code;
	snprintf(wl->reason, sizeof(wl->reason), "%s", err->msg);
}

static int load(struct wl *wl, const char *path)
{
	struct sw_err err = { 0 };

	if (workload_load(path, &wl->w, &err) ||
	    rtapp_grammar_check(wl->w.root, path, NULL, &err) ||
	    verdict_parse(wl->w.block, path, &wl->vb, &err) ||
	    verdict_check_selectors(&wl->vb,
				    json_object_object_get(wl->w.root, "tasks"),
				    path, &err)) {
		if (!wl->w.name[0])
			snprintf(wl->w.name, sizeof(wl->w.name), "unnamed");
		session_error(wl, &err);
		return -1;
	}
	return 0;
}

static void release(struct wl *wl)
{
	rounds_free(&wl->p);
	json_object_put(wl->p.settings);
	wl->p.settings = NULL;
	verdict_results_free(&wl->res);
	verdict_block_free(&wl->vb);
	baseline_free(&wl->base);
	workload_free(&wl->w);
	/* what index.json keeps saying of it stays: name, state, neighbours */
}

/* index.json: every workload, done or not, as it stands now. */
static void write_index(struct session *s)
{
	struct run_index_entry *e;
	struct sw_err err = { 0 };
	int i;

	if (!s->have_results)
		return;
	e = calloc(s->total ? s->total : 1, sizeof(*e));
	if (!e)
		return;
	for (i = 0; i < s->total; i++) {
		e[i].name = s->wls[i].w.name;
		e[i].state = s->wls[i].state == WL_DONE ?
			     verdict_status_name(s->wls[i].status) : "pending";
		e[i].reason = s->wls[i].state == WL_DONE &&
			      s->wls[i].status != V_PASS &&
			      s->wls[i].status != V_FAIL ? s->wls[i].reason : "";
		e[i].baseline = s->wls[i].has_base ? s->wls[i].base_path : NULL;
		e[i].neighbours = s->wls[i].neighbours;
	}
	if (run_index_write(s->results, e, s->total, &err))
		ktap_diag("error: %s", err.msg);
	free(e);
}

void session_flush(struct session *s)
{
	int first = s->next, i;

	for (; s->next < s->total && s->wls[s->next].state == WL_DONE;
	     s->next++) {
		struct wl *wl = &s->wls[s->next];

		if (wl->status == V_ERROR)
			ktap_diag("error: %s", wl->reason);
		if (wl->exit_code == SW_EXIT_BAD_WORKLOAD)
			s->bad_input = 1;
		ktap_subtests(&wl->res);
		ktap_result(wl->w.name, wl->status, wl->reason);
	}
	if (s->next == first)
		return;
	write_index(s);
	for (i = first; i < s->next; i++)
		release(&s->wls[i]);
}

static int make_results_dir(const struct battery_opts *o, char *buf, size_t len)
{
	char rel[PATH_MAX], abs[PATH_MAX];
	struct utsname u;
	time_t now = time(NULL);

	uname(&u);
	if (o->results_root)
		return results_run_dir(buf, len, o->results_root, now,
				       u.release) || mkdir_p(buf);
	/* An installed collection may sit on a read-only path. */
	if (!results_run_dir(rel, sizeof(rel), "results", now, u.release) &&
	    !mkdir_p(rel) && !access(rel, W_OK) && realpath(rel, abs) &&
	    strlen(abs) < len) {
		strcpy(buf, abs);
		return 0;
	}
	return results_run_dir(buf, len, "/tmp/sched-workloads-results", now,
			       u.release) || mkdir_p(buf);
}

/* Two batteries on one machine disturb each other: take turns. */
static void lock_waiting(const char *path)
{
	ktap_diag("waiting for another sched-workloads run (%s)", path);
}

static const char *global_skip_reason(void)
{
	const char *why = probe_root();

	if (!why)
		why = probe_rtapp();
	if (!why)
		why = capture_unavailable();
	return why;
}

static int select_paths(const struct battery_opts *o, char *const names[],
			int n, char ***paths)
{
	struct sw_err err = { 0 };
	int i, total;

	if (!n) {
		total = workload_list_dir(o->workload_dir, paths, &err);
		if (total < 0)
			fprintf(stderr, "sched-workloads: %s\n", err.msg);
		return total;
	}
	*paths = calloc(n, sizeof(**paths));
	if (!*paths)
		return -1;
	for (i = 0; i < n; i++) {
		/* A name from the battery, or the path of any workload file. */
		if (strchr(names[i], '/') || strstr(names[i], ".json"))
			(*paths)[i] = strdup(names[i]);
		else if (asprintf(&(*paths)[i], "%s/%s.json", o->workload_dir,
				  names[i]) < 0)
			(*paths)[i] = NULL;
		if (!(*paths)[i]) {
			workload_list_free(*paths, i);
			return -1;
		}
	}
	return n;
}

/* fingerprint.json: what "compare" checks before it compares two runs. */
static int write_fingerprint(const struct fingerprint *fp, const char *results)
{
	ktap_diag("machine class %s; kernel %s; preempt %s, HZ %d; rt-app %s",
		  fp->class_name, fp->kernel_release, fp->preempt, fp->hz,
		  fp->rtapp);
	if (!write_json_file(results, results_name(RF_FINGERPRINT),
			     fingerprint_to_json(fp), JSON_C_TO_STRING_PRETTY))
		return 0;
	ktap_diag("error: cannot write %s/%s: %s", results,
		  results_name(RF_FINGERPRINT), strerror(errno));
	return -1;
}

/* Why nothing can run: NULL when all is in place (results made). */
static const char *set_up(struct session *s, const char **skip)
{
	struct sw_err err = { 0 };

	*skip = global_skip_reason();
	if (*skip)
		return NULL;
	capture_sweep_stale();
	s->lock = live_lock_take(lock_waiting, cleanup_interrupted);
	if (cleanup_interrupted()) {
		*skip = "interrupted while waiting for the lock";
		return NULL;
	}
	if (s->lock == LIVE_LOCK_BROKEN) {
		ktap_diag("error: lock file %s: %s",
			  getenv("SCHED_WORKLOADS_LOCK") ?: SW_LIVE_LOCK,
			  strerror(errno));
		return "the lock that keeps runs apart cannot be taken";
	}
	if (sysctl_journal_replay(&err)) {
		ktap_diag("error: %s", err.msg);
		return "a sysctl left changed by an earlier run cannot be restored";
	}
	if (make_results_dir(&s->o, s->results, sizeof(s->results))) {
		ktap_diag("error: cannot create the results directory %s: %s",
			  s->results, strerror(errno));
		return "no writable results directory";
	}
	s->have_results = 1;
	ktap_diag("results: %s", s->results);
	fingerprint_read(&s->fp, s->o.calibration);
	if (write_fingerprint(&s->fp, s->results))
		return "cannot write fingerprint.json";
	return NULL;
}

int session_open(struct session *s, const struct battery_opts *o,
		 char *const names[], int n)
{
	const char *skip = NULL, *broken;
	int i;

	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->lock = -1;
	s->t0 = now_mono_ns();
	if (!s->o.workload_dir) {
		workload_default_dir(s->workload_dir, sizeof(s->workload_dir));
		s->o.workload_dir = s->workload_dir;
	}
	if (!s->o.baseline_dir) {
		baseline_default_dir(s->baseline_dir, sizeof(s->baseline_dir));
		s->o.baseline_dir = s->baseline_dir;
	}
	s->total = select_paths(&s->o, names, n, &s->paths);
	if (s->total < 0)
		return SW_EXIT_USAGE;
	s->wls = calloc(s->total ? s->total : 1, sizeof(*s->wls));
	if (!s->wls) {
		workload_list_free(s->paths, s->total);
		return SW_EXIT_RUN_ERROR;
	}
	ktap_begin(s->total);
	broken = set_up(s, &skip);
	for (i = 0; i < s->total; i++) {
		s->wls[i].s = s;
		if (load(&s->wls[i], s->paths[i]))
			continue;
		if (skip || broken) {
			s->wls[i].status = broken ? V_ERROR : V_SKIP;
			snprintf(s->wls[i].reason, sizeof(s->wls[i].reason), "%s",
				 broken ? broken : skip);
			s->wls[i].state = WL_DONE;
		}
	}
	write_index(s);
	return 0;
}

/* The battery's wall time by phase: printed, and in time.json. */
static void write_cost(const struct session *s, double wall)
{
	const struct repetition_cost *c = &s->cost;
	double other = wall - c->setup - c->rtapp - c->save - c->analysis -
		       s->canary_s;
	struct json_object *o;

	ktap_diag("time: %.0f s: rt-app %.0f s (%.0f%%), setup %.1f s, trace saving %.1f s (%.1f%%), analysis %.1f s (%.1f%%), canary %.1f s, other %.1f s (gaps, baselines, verdicts)",
		  wall, c->rtapp, 100 * c->rtapp / wall, c->setup,
		  c->save, 100 * c->save / wall, c->analysis,
		  100 * c->analysis / wall, s->canary_s, other);
	if (!s->have_results)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "wall_s", json_object_new_double(wall));
	json_object_object_add(o, "rtapp_s", json_object_new_double(c->rtapp));
	json_object_object_add(o, "setup_s", json_object_new_double(c->setup));
	json_object_object_add(o, "trace_save_s",
			       json_object_new_double(c->save));
	json_object_object_add(o, "analysis_s",
			       json_object_new_double(c->analysis));
	json_object_object_add(o, "canary_s",
			       json_object_new_double(s->canary_s));
	json_object_object_add(o, "other_s", json_object_new_double(other));
	json_object_object_add(o, "repetitions", json_object_new_int(c->reps));
	if (write_json_file(s->results, results_name(RF_TIME), o,
			    JSON_C_TO_STRING_PRETTY))
		ktap_diag("cannot write %s/%s", s->results,
			  results_name(RF_TIME));
}

int session_close(struct session *s)
{
	double wall;
	int i, rc;

	/* Interrupted: what was not judged is not reported as passing. */
	for (i = s->next; i < s->total; i++) {
		if (s->wls[i].state == WL_DONE)
			continue;
		s->wls[i].status = V_SKIP;
		snprintf(s->wls[i].reason, sizeof(s->wls[i].reason),
			 "interrupted");
		verdict_results_free(&s->wls[i].res);
		s->wls[i].state = WL_DONE;
	}
	session_flush(s);
	for (i = 0; i < s->total; i++)
		json_object_put(s->wls[i].neighbours);
	free(s->wls);
	workload_list_free(s->paths, s->total);
	fingerprint_free(&s->fp);
	if (s->lock >= 0)
		close(s->lock);
	wall = (now_mono_ns() - s->t0) / 1e9;
	ktap_diag("%d workloads, %d repetitions each: %.0f s in all", s->total,
		  s->o.repetitions, wall);
	write_cost(s, wall);
	if (s->have_results)
		ktap_diag("to see it: sched-workloads report %s", s->results);
	rc = ktap_finish();
	cleanup_all();
	return s->bad_input ? SW_EXIT_BAD_WORKLOAD : rc;
}
