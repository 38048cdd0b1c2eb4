// SPDX-License-Identifier: GPL-2.0
/*
 * Running the battery: every workload's first round in file-name order,
 * and the confirmation rounds of those with a check to judge again (a
 * regression, or a bound missed), each at least
 * opts->confirm_gap_s after the workload's round before
 * (protocol.h, verdict.c): between first rounds once their gap has
 * passed, then, waiting for their gaps, those still due. Results are
 * printed in file-name order as they become final.
 *
 * Recording baselines runs the battery N times over with one repetition
 * of each workload each time, so that the baseline spreads over the
 * minutes a battery takes, as the machine drifts, instead of over a few
 * seconds of one state of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "judge/baseline.h"
#include "run/battery.h"
#include "judge/canary.h"
#include "trace/capture.h"
#include "lib/cleanup.h"
#include "judge/fingerprint.h"
#include "run/ktap.h"
#include "run/prereq.h"
#include "rtapp/run_json.h"
#include "run/rounds.h"
#include "judge/refusal.h"
#include "run/repetition.h"
#include "rtapp/rtapp_grammar.h"
#include "rtapp/rtapp_run.h"
#include "judge/sched_settings.h"
#include "run/sysctl.h"
#include "judge/verdict.h"
#include "rtapp/workload.h"

/* Disturbed repetitions in a row before "machine too busy". */
#define DISTURBED_MAX 3

enum wl_state { WL_NEW, WL_PENDING, WL_DONE };

/* One workload through the battery. */
struct wl {
	struct workload w;
	struct verdict_block vb;
	struct baseline base;
	int has_base;
	struct protocol p;
	const struct battery_opts *o;
	const struct fingerprint *fp;
	char dir[PATH_MAX];	/* results/<run>/<workload> */
	int next_rep;		/* rep-<next_rep> is the next directory */
	int disturbed;		/* in a row */
	enum wl_state state;
	enum verdict_status status;
	char reason[SW_ERR_LEN];
	int exit_code;		/* for bad input: SW_EXIT_* */
	char no_base[SW_ERR_LEN];	/* why baseline checks SKIP */
	struct verdict_results res;	/* what is printed */
};

/* Where this battery's time went (time.json, and its last lines). */
static struct repetition_cost cost;
static double canary_s;

static double now_s(void *ctx, size_t round)
{
	(void)ctx;
	(void)round;
	return now_mono_ns() / 1e9;
}

/* The live source of repetitions: rt-app, now (protocol.h). */
static int live_rep(void *ctx, size_t round, struct metric_set *set, int *id,
		    char *why, size_t len, struct sw_err *err)
{
	struct repetition_opts ro;
	struct wl *wl = ctx;
	char dir[PATH_MAX + 16], who[512];
	double share;

	(void)round;
	ro.calibration = wl->o->calibration;
	ro.buffer_kb = wl->o->buffer_kb;
	ro.cost = &cost;
	for (;;) {
		if (cleanup_interrupted())
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "interrupted");
		*id = wl->next_rep++;
		snprintf(dir, sizeof(dir), "%s/rep-%d", wl->dir, *id);
		if (repetition_run(&wl->w, &ro, dir, set, who, sizeof(who), err))
			return -1;
		share = metric_set_first(set, "foreign.cpu_share");
		if (!(share > REPETITION_DISTURBED_SHARE)) {
			wl->disturbed = 0;
			return 0;
		}
		ktap_diag("%s: rep-%d disturbed: user tasks outside the workload used %.1f%% of the CPUs (limit %.0f%%): %s; not counted",
			  wl->w.name, *id, 100 * share,
			  100 * REPETITION_DISTURBED_SHARE,
			  who[0] ? who : "no single task above 0.1%");
		if (++wl->disturbed >= DISTURBED_MAX) {
			snprintf(why, len,
				 "machine too busy: %d repetitions in a row disturbed by other tasks (see %s/rep-*)",
				 wl->disturbed, wl->w.name);
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
	rc = canary_measure(set, &cerr);
	canary_s += (now_mono_ns() - t) / 1e9;
	/* Without a canary a round still runs: it only explains less. */
	if (rc) {
		snprintf(why, len, "%s", cerr.msg);
		ktap_diag("%s: no canary: %s", wl->w.name, why);
		return 1;
	}
	return 0;
}

static const struct protocol_source *live_source(struct wl *wl,
						 struct protocol_source *src)
{
	src->ctx = wl;
	src->rep = live_rep;
	src->canary = live_canary;
	src->now = now_s;
	return src;
}

static int write_json(const char *dir, const char *name,
		      struct json_object *o)
{
	return write_json_file(dir, name, o, JSON_C_TO_STRING_PRETTY);
}

static int print_verdicts(FILE *f, const void *res)
{
	return verdict_results_write_json(res, f);
}

static int write_verdicts(struct wl *wl, struct sw_err *err)
{
	char path[PATH_MAX];

	if (path_join(path, sizeof(path), wl->dir, "verdicts.json") ||
	    write_stream_file(path, print_verdicts, &wl->res))
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "cannot write %s/verdicts.json: %s", wl->dir,
				  strerror(errno));
	return 0;
}

/* The baseline of this workload on this machine class, if any. */
static int load_baseline(struct wl *wl, struct sw_err *err)
{
	char path[PATH_MAX];
	int ret;

	if (wl->o->record) {
		snprintf(wl->no_base, sizeof(wl->no_base),
			 "recording the baseline");
		return 0;
	}
	if (baseline_path(path, sizeof(path), wl->o->baseline_dir,
			  wl->fp->class_name, wl->w.name))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "baseline path too long");
	ret = baseline_load(path, &wl->base, err);
	if (ret < 0)
		return -1;
	wl->has_base = !ret;
	if (ret)
		snprintf(wl->no_base, sizeof(wl->no_base),
			 "no baseline for machine class %s: record one with \"sched-workloads baseline %s\"",
			 wl->fp->class_name, wl->w.name);
	return 0;
}

/* A series the workload's tail checks need from a baseline. */
static int tail_needed(const struct event_samples *e, void *arg)
{
	const struct verdict_block *vb = arg;
	size_t i;

	for (i = 0; i < vb->n; i++)
		if (vb->checks[i].kind == CHECK_BASELINE &&
		    vb->checks[i].def->tail != TAIL_NONE &&
		    vb->checks[i].def->source == e->source &&
		    !strcmp(vb->checks[i].def->series, e->series))
			return 1;
	return 0;
}

static int save_baseline(struct wl *wl, const struct sample_set *all,
			 struct sw_err *err)
{
	struct protocol_round *rd = &wl->p.round[0];
	char path[PATH_MAX];

	if (wl->p.lost_events)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "not recording a baseline: the trace lost %llu events",
				  wl->p.lost_events);
	if (verdict_overall(&wl->res) == V_FAIL)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "not recording a baseline: absolute checks failed");
	if (baseline_path(path, sizeof(path), wl->o->baseline_dir,
			  wl->fp->class_name, wl->w.name) ||
	    baseline_save(path, wl->w.name, wl->fp, wl->p.settings, all,
			  &rd->events, tail_needed, &wl->vb, &rd->canary, err))
		return -1;
	ktap_diag("%s: baseline of %zu repetitions written to %s", wl->w.name,
		  all->reps, path);
	return 0;
}

static void set_error(struct wl *wl, const struct sw_err *err)
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

/* Its rounds are over: files written, the verdict final. */
static void finish(struct wl *wl)
{
	struct sample_set all = { 0 };
	struct sw_err err = { 0 };

	/* A file not written is an error of the run, never a silent pass. */
	if (protocol_all_samples(&wl->p, &all))
		sw_err_set(&err, SW_EXIT_RUN_ERROR, "out of memory");
	else if (write_json(wl->dir, "samples.json", sample_set_to_json(&all)) ||
		 write_json(wl->dir, "rounds.json", protocol_rounds_json(&wl->p)) ||
		 (wl->p.settings &&
		  write_json(wl->dir, "settings.json",
			     json_object_get(wl->p.settings))))
		sw_err_set(&err, SW_EXIT_RUN_ERROR,
			   "cannot write %s/{samples,rounds,settings}.json: %s",
			   wl->dir, strerror(errno));
	wl->res = wl->p.res;
	memset(&wl->p.res, 0, sizeof(wl->p.res));
	if (!err.code)
		write_verdicts(wl, &err);
	if (err.code)
		set_error(wl, &err);
	if (wl->o->record && save_baseline(wl, &all, &err))
		set_error(wl, &err);
	sample_set_free(&all);
	protocol_free(&wl->p);
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
		.basename = REPETITION_BASENAME,
		.calibration = wl->o->calibration,
	};
	char dir[PATH_MAX], run_json[PATH_MAX], out[PATH_MAX];
	struct child_exit ex;
	double duration;

	po.logdir = dir;
	if (path_join(dir, sizeof(dir), wl->dir, "rep-1") || mkdir_p(dir) ||
	    path_join(run_json, sizeof(run_json), dir, "run.json") ||
	    path_join(out, sizeof(out), dir, "rt-app.out"))
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

/*
 * One round (or, recording, one more repetition) with the workload's
 * sysctls in force. Returns -1 on error (wl is then done).
 */
static int run_round(struct wl *wl, struct sw_err *err)
{
	struct protocol_source src;
	int refused, ret;

	refused = sysctl_apply(json_object_object_get(wl->w.block, "sysctl"),
			       wl->w.path, wl->reason, sizeof(wl->reason), err);
	if (refused < 0)
		return -1;
	if (refused) {
		wl->status = V_SKIP;
		wl->state = WL_DONE;
		return 0;
	}
	/* What shapes scheduling now, the workload's own sysctls included. */
	if (!wl->p.settings)
		wl->p.settings = settings_read(NULL);
	ret = protocol_round(&wl->p, live_source(wl, &src),
			     wl->o->record ? 1 : wl->o->repetitions, err);
	sysctl_restore();
	if (ret < 0)
		return -1;
	if (wl->o->record)
		return 0;
	if (ret > 0 && wl->p.nrounds == 1 && !wl->p.round[0].cur.reps) {
		/* Not one repetition counted: nothing to judge. */
		wl->status = V_SKIP;
		snprintf(wl->reason, sizeof(wl->reason), "%s", wl->p.stopped);
		protocol_free(&wl->p);
		wl->state = WL_DONE;
		return 0;
	}
	if (protocol_pending(&wl->p)) {
		ktap_diag("%s: %zu checks regressed or were beyond their bounds in round %zu; round %zu follows in %.0f s or more",
			  wl->w.name, verdict_pending(&wl->p.res), wl->p.nrounds,
			  wl->p.nrounds + 1, wl->o->confirm_gap_s);
		wl->state = WL_PENDING;
	} else {
		finish(wl);
	}
	return 0;
}

/* Everything before the first round; 1 when the workload is done. */
static int start(struct wl *wl, const char *results, struct sw_err *err)
{
	char copy[PATH_MAX];
	struct refusal rf;
	int refused;

	ktap_diag("%s: %s", wl->w.name, wl->w.description);
	refused = probe_policies(&wl->w, wl->reason, sizeof(wl->reason), err);
	if (refused < 0)
		return -1;
	if (refused) {
		wl->status = V_SKIP;
		wl->state = WL_DONE;
		return 1;
	}
	/* The copy keeps the workload's name for a later "analyze". */
	if (path_join(wl->dir, sizeof(wl->dir), results, wl->w.name) ||
	    mkdir_p(wl->dir) ||
	    snprintf(copy, sizeof(copy), "%s/%s.json", wl->dir, wl->w.name) >=
	    (int)sizeof(copy) || copy_text_file(wl->w.path, copy))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s/%s: cannot create: %s",
				  results, wl->w.name, strerror(errno));
	if (refusal_parse(wl->w.block, wl->w.path, &rf, err))
		return -1;
	if (rf.expected) {
		refused = sysctl_apply(json_object_object_get(wl->w.block, "sysctl"),
				       wl->w.path, wl->reason,
				       sizeof(wl->reason), err);
		if (!refused)
			refused = run_refusal(wl, &rf, err);
		sysctl_restore();
		if (refused > 0) {
			wl->status = V_SKIP;
			wl->state = WL_DONE;
		}
		return refused < 0 ? -1 : 1;
	}
	if (load_baseline(wl, err))
		return -1;
	wl->next_rep = 1;
	wl->p.name = wl->w.name;
	wl->p.vb = &wl->vb;
	wl->p.base = wl->has_base ? &wl->base : NULL;
	wl->p.no_base = wl->no_base;
	wl->p.extend = wl->o->repetitions >= VERDICT_LEAD;
	wl->p.confirm = 1;
	wl->p.record = wl->o->record;
	return 0;
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
		set_error(wl, &err);
		return -1;
	}
	return 0;
}

static void release(struct wl *wl)
{
	protocol_free(&wl->p);
	json_object_put(wl->p.settings);
	wl->p.settings = NULL;
	verdict_results_free(&wl->res);
	verdict_block_free(&wl->vb);
	baseline_free(&wl->base);
	workload_free(&wl->w);
}

/* Prints the workloads that are final, in order, from *next on. */
static void flush(struct wl *wls, int total, int *next, int *bad_input)
{
	for (; *next < total && wls[*next].state == WL_DONE; (*next)++) {
		struct wl *wl = &wls[*next];

		if (wl->status == V_ERROR)
			ktap_diag("error: %s", wl->reason);
		if (wl->exit_code == SW_EXIT_BAD_WORKLOAD)
			*bad_input = 1;
		ktap_subtests(&wl->res);
		ktap_result(wl->w.name, wl->status, wl->reason);
		release(wl);
	}
}

/* Seconds until @wl's next round may start: the gap after its last. */
static double gap_left(const struct wl *wl)
{
	const struct protocol_round *rd = &wl->p.round[wl->p.nrounds - 1];

	return rd->end_s + wl->o->confirm_gap_s - now_s(NULL, 0);
}

/* Waits until @wl's round before ended at least the gap ago. */
static int wait_gap(const struct wl *wl)
{
	double left = gap_left(wl);

	if (left > 0)
		ktap_diag("%s: waiting %.0f s before round %zu (rounds of a confirmation are %.0f s apart)",
			  wl->w.name, left, wl->p.nrounds + 1,
			  wl->o->confirm_gap_s);
	while (gap_left(wl) > 0) {
		if (cleanup_interrupted())
			return -1;
		usleep(200 * 1000);
	}
	return 0;
}

static int make_results_dir(const struct battery_opts *o, char *buf, size_t len)
{
	char stamp[32], rel[PATH_MAX], abs[PATH_MAX];
	struct utsname u;
	time_t now = time(NULL);

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	uname(&u);
	if (o->results_root) {
		snprintf(buf, len, "%s/%s-%s", o->results_root, stamp, u.release);
		return mkdir_p(buf);
	}
	/* An installed collection may sit on a read-only path. */
	snprintf(rel, sizeof(rel), "results/%s-%s", stamp, u.release);
	if (!mkdir_p(rel) && !access(rel, W_OK) && realpath(rel, abs) &&
	    strlen(abs) < len) {
		strcpy(buf, abs);
		return 0;
	}
	snprintf(buf, len, "/tmp/sched-workloads-results/%s-%s", stamp, u.release);
	return mkdir_p(buf);
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
	if (!write_json(results, "fingerprint.json", fingerprint_to_json(fp)))
		return 0;
	ktap_diag("error: cannot write %s/fingerprint.json: %s", results,
		  strerror(errno));
	return -1;
}

/* The battery's wall time by phase: printed, and in time.json. */
static void write_cost(const char *results, int have_results, double wall)
{
	double other = wall - cost.setup - cost.rtapp - cost.save -
		       cost.analysis - canary_s;
	struct json_object *o;

	ktap_diag("time: %.0f s: rt-app %.0f s (%.0f%%), setup %.1f s, trace saving %.1f s (%.1f%%), analysis %.1f s (%.1f%%), canary %.1f s, other %.1f s (gaps, baselines, verdicts)",
		  wall, cost.rtapp, 100 * cost.rtapp / wall, cost.setup,
		  cost.save, 100 * cost.save / wall, cost.analysis,
		  100 * cost.analysis / wall, canary_s, other);
	if (!have_results)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "wall_s", json_object_new_double(wall));
	json_object_object_add(o, "rtapp_s", json_object_new_double(cost.rtapp));
	json_object_object_add(o, "setup_s", json_object_new_double(cost.setup));
	json_object_object_add(o, "trace_save_s",
			       json_object_new_double(cost.save));
	json_object_object_add(o, "analysis_s",
			       json_object_new_double(cost.analysis));
	json_object_object_add(o, "canary_s", json_object_new_double(canary_s));
	json_object_object_add(o, "other_s", json_object_new_double(other));
	json_object_object_add(o, "repetitions", json_object_new_int(cost.reps));
	if (write_json(results, "time.json", o))
		ktap_diag("cannot write %s/time.json", results);
}

/*
 * Confirmation rounds whose gap has passed, the longest due first; with
 * @wait, waits for each in turn until no workload is pending.
 */
static void confirmations(struct wl *wls, int total, int *next,
			  int *bad_input, int wait)
{
	struct sw_err err = { 0 };
	struct wl *due;
	int i;

	while (!cleanup_interrupted()) {
		due = NULL;
		for (i = 0; i < total; i++)
			if (wls[i].state == WL_PENDING &&
			    (!due || gap_left(&wls[i]) < gap_left(due)))
				due = &wls[i];
		if (!due || (!wait && gap_left(due) > 0) || wait_gap(due))
			return;
		ktap_diag("%s: round %zu: judging %zu checks again",
			  due->w.name, due->p.nrounds + 1,
			  verdict_pending(&due->p.res));
		if (run_round(due, &err))
			set_error(due, &err);
		flush(wls, total, next, bad_input);
	}
}

/*
 * The first round of every workload, or every repetition when recording.
 * A confirmation round whose gap has passed runs before the next first
 * round: the gap is spent measuring other workloads, not waiting.
 */
static void first_rounds(struct wl *wls, int total, const char *results,
			 int *next, int *bad_input)
{
	int i, k, reps = wls[0].o->record ? wls[0].o->repetitions : 1;
	struct sw_err err = { 0 };

	for (i = 0; i < total && !cleanup_interrupted(); i++) {
		if (wls[i].state == WL_DONE)
			continue;
		if (start(&wls[i], results, &err) < 0)
			set_error(&wls[i], &err);
	}
	for (k = 0; k < reps; k++) {
		if (reps > 1)
			ktap_diag("recording: repetition %d of %d of every workload",
				  k + 1, reps);
		for (i = 0; i < total && !cleanup_interrupted(); i++) {
			if (wls[i].state != WL_NEW)
				continue;
			if (!wls[0].o->record)
				confirmations(wls, total, next, bad_input, 0);
			if (run_round(&wls[i], &err))
				set_error(&wls[i], &err);
			if (!wls[0].o->record)
				flush(wls, total, next, bad_input);
		}
	}
	for (i = 0; wls[0].o->record && i < total; i++)
		if (wls[i].state == WL_NEW)
			finish(&wls[i]);
}

void battery_opts_init(struct battery_opts *o, int record)
{
	memset(o, 0, sizeof(*o));
	o->calibration = BATTERY_CALIBRATION;
	o->buffer_kb = BATTERY_BUFFER_KB;
	o->repetitions = record ? BATTERY_BASELINE_REPS : BATTERY_REPS;
	o->record = record;
	o->confirm_gap_s = BATTERY_CONFIRM_GAP_S;
}

int battery_run(const struct battery_opts *opts, char *const names[], int n)
{
	char wdir[PATH_MAX], bdir[PATH_MAX];
	struct battery_opts dirs = *opts, *o = &dirs;
	const char *skip = global_skip_reason(), *broken = NULL;
	struct sw_err journal_err = { 0 };
	int i, total, lock = -1, bad_input = 0, next = 0, rc, have_results = 0;
	uint64_t t0 = now_mono_ns();
	char results[PATH_MAX];
	struct fingerprint fp;
	struct wl *wls;
	char **paths;

	if (!o->workload_dir) {
		workload_default_dir(wdir, sizeof(wdir));
		o->workload_dir = wdir;
	}
	if (!o->baseline_dir) {
		baseline_default_dir(bdir, sizeof(bdir));
		o->baseline_dir = bdir;
	}
	memset(&cost, 0, sizeof(cost));
	canary_s = 0;
	total = select_paths(o, names, n, &paths);
	if (total < 0)
		return SW_EXIT_USAGE;
	wls = calloc(total ? total : 1, sizeof(*wls));
	if (!wls) {
		workload_list_free(paths, total);
		return SW_EXIT_RUN_ERROR;
	}
	ktap_begin(total);
	memset(&fp, 0, sizeof(fp));
	if (!skip) {
		capture_sweep_stale();
		lock = live_lock_take(lock_waiting, cleanup_interrupted);
		if (cleanup_interrupted()) {
			skip = "interrupted while waiting for the lock";
		} else if (lock == LIVE_LOCK_BROKEN) {
			ktap_diag("error: lock file %s: %s",
				  getenv("SCHED_WORKLOADS_LOCK") ?: SW_LIVE_LOCK,
				  strerror(errno));
			broken = "the lock that keeps runs apart cannot be taken";
		} else if (sysctl_journal_replay(&journal_err)) {
			ktap_diag("error: %s", journal_err.msg);
			broken = "a sysctl left changed by an earlier run cannot be restored";
		} else if (make_results_dir(o, results, sizeof(results))) {
			ktap_diag("error: cannot create the results directory %s: %s",
				  results, strerror(errno));
			broken = "no writable results directory";
		} else {
			have_results = 1;
			ktap_diag("results: %s", results);
			fingerprint_read(&fp, o->calibration);
			if (write_fingerprint(&fp, results))
				broken = "cannot write fingerprint.json";
		}
	}
	for (i = 0; i < total; i++) {
		wls[i].o = o;
		wls[i].fp = &fp;
		if (load(&wls[i], paths[i]))
			continue;
		if (skip || broken) {
			wls[i].status = broken ? V_ERROR : V_SKIP;
			snprintf(wls[i].reason, sizeof(wls[i].reason), "%s",
				 broken ? broken : skip);
			wls[i].state = WL_DONE;
		}
	}
	if (total)
		first_rounds(wls, total, results, &next, &bad_input);
	confirmations(wls, total, &next, &bad_input, 1);
	/* Interrupted: what was not judged is not reported as passing. */
	for (i = next; i < total; i++) {
		if (wls[i].state == WL_DONE)
			continue;
		wls[i].status = V_SKIP;
		snprintf(wls[i].reason, sizeof(wls[i].reason), "interrupted");
		verdict_results_free(&wls[i].res);
		wls[i].state = WL_DONE;
	}
	flush(wls, total, &next, &bad_input);
	free(wls);
	workload_list_free(paths, total);
	fingerprint_free(&fp);
	if (lock >= 0)
		close(lock);
	ktap_diag("%d workloads, %d repetitions each: %.0f s in all", total,
		  o->repetitions, (now_mono_ns() - t0) / 1e9);
	write_cost(results, have_results, (now_mono_ns() - t0) / 1e9);
	if (have_results)
		ktap_diag("to see it: sched-workloads report %s", results);
	rc = ktap_finish();
	cleanup_all();
	return bad_input ? SW_EXIT_BAD_WORKLOAD : rc;
}

/*
 * The battery in a child of this process, forked, not executed again:
 * the kselftest counters, the cleanup stack and the signal state of a
 * battery are per process, and a battery that breaks leaves its caller
 * standing.
 */
int battery_run_logged(const struct battery_opts *o, char *const names[],
		       int n, const char *log)
{
	pid_t pid, self = getpid();
	int fd, status;

	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd);
		return -1;
	}
	if (!pid) {
		/* Killed with us, it still restores what it changed. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != self)
			_exit(127);
		dup2(fd, STDOUT_FILENO);
		setenv("SCHED_WORKLOADS_LOCK", "", 1);
		cleanup_install_handlers();
		_exit(battery_run(o, names, n));
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
		/* Ours to stop: it restores what it changed, then exits. */
		if (cleanup_interrupted())
			kill(pid, SIGTERM);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
