// SPDX-License-Identifier: GPL-2.0
/*
 * What a battery and a baseline's recording share (run/session.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "machine/canary.h"
#include "judge/refusal.h"
#include "machine/sched_settings.h"
#include "lib/cleanup.h"
#include "lib/results.h"
#include "rtapp/rtapp_grammar.h"
#include "rtapp/rtapp_run.h"
#include "rtapp/run_json.h"
#include "run/ktap.h"
#include "run/prereq.h"
#include "run/run_index.h"
#include "run/session.h"
#include "run/sysctl.h"
#include "trace/capture.h"

/* Disturbed repetitions in a row before "machine too busy". */
#define DISTURBED_MAX 3

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

static double now_s(void *ctx, size_t round)
{
	(void)ctx;
	(void)round;
	return now_mono_ns() / 1e9;
}

/*
 * The user tasks outside the workload that ran most in the repetition of
 * @dir, as its explain.json names them (trace/trace.h), kept in @wl.
 */
static void keep_neighbours(struct wl *wl, const char *dir)
{
	struct json_object *ex, *nb, *tasks, *t, *k, *users;
	char path[PATH_MAX];
	size_t i;

	if (results_path(path, sizeof(path), dir, RF_EXPLAIN_JSON))
		return;
	ex = json_object_from_file(path);
	if (!json_object_object_get_ex(ex, "neighbours", &nb) ||
	    !json_object_object_get_ex(nb, "tasks", &tasks)) {
		json_object_put(ex);
		return;
	}
	users = json_object_new_array();
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		if (json_object_object_get_ex(t, "kthread", &k) &&
		    json_object_get_boolean(k))
			continue;
		json_object_array_add(users, json_object_get(t));
	}
	json_object_put(wl->neighbours);
	wl->neighbours = users;
	json_object_put(ex);
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_string(v) : "?";
}

/* "stress-ng (pid 4242, fair nice 0) 12.1%": the first of @tasks. */
static void heaviest(struct json_object *tasks, char *buf, size_t len)
{
	struct json_object *t = tasks && json_object_array_length(tasks) ?
				json_object_array_get_idx(tasks, 0) : NULL;
	struct json_object *share;

	if (!t || !json_object_object_get_ex(t, "share", &share)) {
		snprintf(buf, len, "not one task above 0.1%%");
		return;
	}
	snprintf(buf, len, "%s (pid %s, %s) %.1f%%", str_of(t, "comm"),
		 str_of(t, "pid"), str_of(t, "policy"),
		 100 * json_object_get_double(share));
}

/*
 * Where repetition @id starts in the tick (of @hz, 250 when unknown):
 * the fractional part of @id times the golden ratio's, which spreads any
 * number of repetitions evenly over it.
 */
static uint64_t tick_phase_ns(int hz, int id)
{
	uint64_t tick = 1000000000ull / (hz > 0 ? hz : 250);

	return (uint64_t)id * 618034 % 1000000 * tick / 1000000;
}

/* The live source of repetitions: rt-app, now (run/rounds.h). */
static int live_rep(void *ctx, size_t round, struct metric_set *set, int *id,
		    char *why, size_t len, struct sw_err *err)
{
	struct repetition_opts ro;
	struct wl *wl = ctx;
	char dir[PATH_MAX + 16], who[512];
	double share;

	(void)round;
	ro.calibration = wl->s->o.calibration;
	ro.buffer_kb = wl->s->o.buffer_kb;
	ro.cost = &wl->s->cost;
	for (;;) {
		if (cleanup_interrupted())
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "interrupted");
		if (session_out_of_time(wl->s)) {
			snprintf(why, len, "%s", session_out_of_time(wl->s));
			return 1;
		}
		*id = wl->next_rep++;
		ro.phase_ns = tick_phase_ns(wl->s->fp.hz, *id);
		if (results_rep_dir(dir, sizeof(dir), wl->dir, *id))
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  "%s: path too long", wl->dir);
		if (repetition_run(&wl->w, &ro, dir, set, who, sizeof(who),
				   err)) {
			/* the machine changed under it: no repetition, no error */
			if (err->code != SW_EXIT_SKIP)
				return -1;
			snprintf(why, len, "%s", err->msg);
			ktap_diag("%s: %s: %s; not counted", wl->w.name,
				  dir + strlen(wl->dir) + 1, err->msg);
			return 1;
		}
		share = metric_set_first(set, "foreign.cpu_share");
		if (!(share > REPETITION_DISTURBED_SHARE)) {
			wl->disturbed = 0;
			return 0;
		}
		ktap_diag("%s: %s disturbed: user tasks outside the workload used %.1f%% of the CPUs (limit %.0f%%): %s; not counted",
			  wl->w.name, dir + strlen(wl->dir) + 1, 100 * share,
			  100 * REPETITION_DISTURBED_SHARE,
			  who[0] ? who : "no single task above 0.1%");
		keep_neighbours(wl, dir);
		if (++wl->disturbed >= DISTURBED_MAX) {
			heaviest(wl->neighbours, who, sizeof(who));
			snprintf(why, len,
				 "machine too busy: %d repetitions in a row disturbed by other tasks, the heaviest %s (see %s/%s*)",
				 wl->disturbed, who, wl->w.name, RESULTS_REP_PREFIX);
			return 1;
		}
		set->n = 0;
		if (set->events)
			event_rep_free(set->events);
	}
}

static int live_canary(void *ctx, size_t round, struct metric_set *set,
		       char *why, size_t len, struct sw_err *err)
{
	struct wl *wl = ctx;
	struct sw_err cerr = { 0 };
	uint64_t t = now_mono_ns();
	int rc;

	(void)round;
	(void)err;
	rc = canary_measure(set, CANARY_BOUND_S, why, len, &cerr);
	wl->s->canary_s += (now_mono_ns() - t) / 1e9;
	/* Without a canary a round still runs: it only explains less. */
	if (rc < 0) {
		snprintf(why, len, "%s", cerr.msg);
		ktap_diag("%s: no canary: %s", wl->w.name, why);
		return 1;
	}
	/* A machine the canary cannot measure in time runs no workload. */
	if (rc && !cleanup_interrupted()) {
		char stop[256];

		snprintf(stop, sizeof(stop), "%s", why);
		snprintf(why, len, "machine too busy: %s", stop);
	}
	return rc ? 2 : 0;
}

const struct rounds_source *session_source(struct wl *wl,
					   struct rounds_source *src)
{
	src->ctx = wl;
	src->rep = live_rep;
	src->canary = wl->s->o.no_canary ? NULL : live_canary;
	src->now = now_s;
	return src;
}

static int write_json(const char *dir, enum results_file f,
		      struct json_object *o)
{
	return write_json_file(dir, results_name(f), o,
			       JSON_C_TO_STRING_PRETTY);
}

static int print_verdicts(FILE *f, const void *res)
{
	return verdict_results_write_json(res, f);
}

static int write_verdicts(struct wl *wl, struct sw_err *err)
{
	char path[PATH_MAX];

	if (results_path(path, sizeof(path), wl->dir, RF_VERDICTS) ||
	    write_stream_file(path, print_verdicts, &wl->res))
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "cannot write %s: %s", path, strerror(errno));
	return 0;
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

void session_finish(struct wl *wl,
		    int (*keep)(struct wl *wl, const struct sample_set *all,
				struct sw_err *err))
{
	struct sample_set all = { 0 };
	struct sw_err err = { 0 };

	/* A file not written is an error of the run, never a silent pass. */
	if (rounds_all_samples(&wl->p, &all))
		sw_err_set(&err, SW_EXIT_RUN_ERROR, "out of memory");
	else if (write_json(wl->dir, RF_SAMPLES, sample_set_to_json(&all)) ||
		 write_json(wl->dir, RF_ROUNDS, rounds_json(&wl->p)) ||
		 (wl->p.settings &&
		  write_json(wl->dir, RF_SETTINGS,
			     json_object_get(wl->p.settings))))
		sw_err_set(&err, SW_EXIT_RUN_ERROR,
			   "cannot write the samples, rounds and settings of %s: %s",
			   wl->dir, strerror(errno));
	wl->res = wl->p.res;
	memset(&wl->p.res, 0, sizeof(wl->p.res));
	if (!err.code)
		write_verdicts(wl, &err);
	if (err.code)
		session_error(wl, &err);
	else if (keep && keep(wl, &all, &err))
		session_error(wl, &err);
	sample_set_free(&all);
	rounds_free(&wl->p);
	if (wl->status != V_ERROR) {
		wl->status = verdict_overall(&wl->res);
		snprintf(wl->reason, sizeof(wl->reason), "%s",
			 wl->p.stopped[0] ? wl->p.stopped : "every check skipped");
	}
	wl->state = WL_DONE;
}

/* A workload the kernel must refuse: rt-app once, no trace, one result. */
static int run_refusal(struct wl *wl, const struct refusal *rf,
		       struct sw_err *err)
{
	struct prepare_opts po = {
		.basename = RESULTS_RTAPP_BASENAME,
		.calibration = wl->s->o.calibration,
	};
	char dir[PATH_MAX], run_json[PATH_MAX], out[PATH_MAX];
	struct child_exit ex;
	double duration;

	po.logdir = dir;
	if (results_rep_dir(dir, sizeof(dir), wl->dir, 1) || mkdir_p(dir) ||
	    results_path(run_json, sizeof(run_json), dir, RF_RUN_JSON) ||
	    results_path(out, sizeof(out), dir, RF_RTAPP_OUT))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot create", dir);
	if (prepare_run_json(&wl->w, &po, run_json, &duration, err) ||
	    rtapp_run(rtapp_binary(), run_json, out, duration * 1.5 + 10, &ex, err))
		return -1;
	wl->res.r = calloc(1, sizeof(*wl->res.r));
	if (!wl->res.r)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	wl->res.n = 1;
	refusal_judge(rf, wl->w.name, &ex, out, wl->res.r);
	if (write_verdicts(wl, err))
		return -1;
	wl->status = verdict_overall(&wl->res);
	wl->state = WL_DONE;
	return 0;
}

int session_sysctls_apply(struct wl *wl, struct sw_err *err)
{
	int refused;

	refused = sysctl_apply(json_object_object_get(wl->w.block, "sysctl"),
			       wl->w.path, wl->reason, sizeof(wl->reason), err);
	if (refused > 0) {
		wl->status = V_SKIP;
		wl->state = WL_DONE;
	}
	/* What shapes scheduling now, the workload's own sysctls included. */
	if (!refused && !wl->p.settings)
		wl->p.settings = settings_read(NULL);
	return refused;
}

void session_sysctls_restore(void)
{
	sysctl_restore();
}

/*
 * The kernel refused SCHED_DEADLINE admission to a set its settings
 * admit (run/prereq.h): one failed result, "<workload>.system.dl.admitted",
 * saying so; rt-app is not run.
 */
static int refused_within_limits(struct wl *wl, struct sw_err *err)
{
	struct verdict_result *r = calloc(1, sizeof(*r));

	if (!r)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	r->status = V_FAIL;
	r->value = r->limit = r->room = NAN;
	snprintf(r->name, sizeof(r->name), "%s.system.dl.admitted",
		 wl->w.name);
	snprintf(r->diag, sizeof(r->diag), "FAIL %s", wl->reason);
	wl->res.r = r;
	wl->res.n = 1;
	if (write_verdicts(wl, err))
		return -1;
	wl->status = V_FAIL;
	wl->state = WL_DONE;
	return 0;
}

static int start(struct wl *wl, struct sw_err *err)
{
	char copy[PATH_MAX];
	struct refusal rf;
	int refused;

	ktap_diag("%s: %s", wl->w.name, wl->w.description);
	if (refusal_parse(wl->w.block, wl->w.path, &rf, err))
		return -1;
	refused = probe_topology(&wl->w, wl->reason, sizeof(wl->reason));
	if (!refused)
		refused = probe_policies(&wl->w, wl->reason, sizeof(wl->reason),
					 err);
	/* the set together, unless the kernel is to refuse it */
	if (!refused && !rf.expected)
		refused = probe_dl_admission(&wl->w, wl->reason,
					     sizeof(wl->reason), err);
	if (refused < 0)
		return -1;
	if (refused == 1) {
		wl->status = V_SKIP;
		wl->state = WL_DONE;
		return 1;
	}
	/* The copy keeps the workload's name for a later "analyze". */
	if (results_workload_dir(wl->dir, sizeof(wl->dir), wl->s->results,
				 wl->w.name) || mkdir_p(wl->dir) ||
	    results_workload_copy(copy, sizeof(copy), wl->dir, wl->w.name) ||
	    copy_text_file(wl->w.path, copy))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s/%s: cannot create: %s",
				  wl->s->results, wl->w.name, strerror(errno));
	if (refused == 2)
		return refused_within_limits(wl, err) ? -1 : 1;
	if (rf.expected) {
		refused = session_sysctls_apply(wl, err);
		if (!refused)
			refused = run_refusal(wl, &rf, err);
		session_sysctls_restore();
		return refused < 0 ? -1 : 1;
	}
	wl->next_rep = 1;
	wl->p.name = wl->w.name;
	wl->p.vb = &wl->vb;
	wl->p.extend = wl->s->o.repetitions >= VERDICT_LEAD;
	wl->p.confirm = 1;
	return 0;
}

int session_start(struct wl *wl)
{
	struct sw_err err = { 0 };
	int ret = start(wl, &err);

	if (ret < 0)
		session_error(wl, &err);
	return ret;
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
	if (!write_json(results, RF_FINGERPRINT, fingerprint_to_json(fp)))
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
	if (write_json(s->results, RF_TIME, o))
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
