// SPDX-License-Identifier: GPL-2.0
/*
 * Running the battery: one workload at a time, in file-name order.
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
#include <sys/file.h>
#include <sys/utsname.h>

#include "baseline.h"
#include "battery.h"
#include "capture.h"
#include "cleanup.h"
#include "fingerprint.h"
#include "ktap.h"
#include "metrics.h"
#include "prepare.h"
#include "refusal.h"
#include "probe.h"
#include "rtapp_log.h"
#include "rtapp_run.h"
#include "samples.h"
#include "sysctl.h"
#include "trace_analyze.h"
#include "trace_scope.h"
#include "verdict.h"
#include "workload.h"

#define RTAPP_BASENAME "rt-app"
#define LOCK_FILE "/tmp/sched-workloads-live.lock"

/* What one workload's run produced. */
struct workload_run {
	struct workload w;
	struct verdict_block vb;
	struct verdict_results res;
	enum verdict_status status;
	char reason[SW_ERR_LEN];
	int exit_code;			/* for bad input: SW_EXIT_* */
	uint64_t lost_events;		/* by the ring buffer or the trace */
	const struct fingerprint *fp;
	char no_base[SW_ERR_LEN];	/* why baseline checks SKIP */
};

static int file_copy(const char *from, const char *to)
{
	char *text = read_text_file(from, NULL);
	int ret;

	if (!text)
		return -1;
	ret = write_text_file(to, text);
	free(text);
	return ret;
}

static int write_json_file(const char *dir, const char *name,
			   int (*fn)(const void *obj, FILE *f), const void *obj)
{
	char path[PATH_MAX];
	FILE *f;
	int ret;

	if (path_join(path, sizeof(path), dir, name))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fn(obj, f);
	if (fclose(f))
		ret = -1;
	return ret;
}

static int write_metrics(const void *obj, FILE *f)
{
	return metric_set_write_json(obj, f);
}

static int write_verdicts(const void *obj, FILE *f)
{
	return verdict_results_write_json(obj, f);
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

static int record_run(struct workload_run *r, const struct battery_opts *o,
		      const char *dir, struct sw_err *err)
{
	struct prepare_opts po = {
		.logdir = dir, .basename = RTAPP_BASENAME,
		.calibration = o->calibration,
	};
	char run_json[PATH_MAX], out[PATH_MAX], trace[PATH_MAX], msg[256];
	struct capture cap = { 0 };
	struct rtapp_exit ex;
	double duration;
	uint64_t lost;

	if (path_join(run_json, sizeof(run_json), dir, "run.json") ||
	    path_join(out, sizeof(out), dir, "rt-app.out") ||
	    path_join(trace, sizeof(trace), dir, "trace.dat"))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: path too long", dir);
	if (prepare_run_json(&r->w, &po, run_json, &duration, err))
		return -1;
	if (capture_start(&cap, o->buffer_kb, err))
		goto fail;
	if (rtapp_run(rtapp_binary(), run_json, out, duration * 1.5 + 10, &ex, err))
		goto fail;
	capture_stop(&cap);
	lost = capture_lost_events(&cap);
	if (lost > r->lost_events)
		r->lost_events = lost;
	if (!ex.exited || ex.code) {
		last_line(out, msg, sizeof(msg));
		sw_err_set(err, SW_EXIT_RUN_ERROR, "rt-app %s %d after %.1f s: %s (%s)",
			   ex.exited ? "exited with" : "killed by signal", ex.code,
			   ex.wall_s, msg, out);
		goto fail;
	}
	if (capture_save(&cap, trace, err))
		goto fail;
	capture_destroy(&cap);
	ktap_diag("%s: rt-app ran %.1f s; trace %s, %u events enabled, %llu lost",
		  r->w.name, ex.wall_s, trace, cap.nr_events,
		  (unsigned long long)lost);
	return 0;
fail:
	capture_destroy(&cap);
	return -1;
}

static int add_trace_metrics(struct workload_run *r, const char *dir,
			     const struct rtapp_logs *logs,
			     struct metric_set *set, struct sw_err *err)
{
	char trace[PATH_MAX], explain[PATH_MAX];
	struct trace_scope scope;
	uint64_t lost = 0;
	int ret;

	if (path_join(trace, sizeof(trace), dir, "trace.dat") ||
	    path_join(explain, sizeof(explain), dir, "explain.txt"))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: path too long", dir);
	if (trace_scope_init(&scope, &r->w, logs, err))
		return -1;
	/* where wc.* and rt.* come from, for whoever looks into a failure */
	scope.explain = fopen(explain, "w");
	ret = trace_scope_measure(&scope, trace, set, &lost, err);
	if (scope.explain)
		fclose(scope.explain);
	trace_scope_free(&scope);
	if (lost > r->lost_events)
		r->lost_events = lost;
	return ret;
}

/* rt-app's logs and the trace, into one metric set and metrics.json. */
static int measure(struct workload_run *r, const char *dir,
		   struct metric_set *set, struct sw_err *err)
{
	struct rtapp_logs logs;
	int ret;

	if (rtapp_logs_load(dir, RTAPP_BASENAME, &logs, err))
		return -1;
	ret = rtapp_logs_add_metrics(&logs, set, err);
	if (!ret)
		ret = add_trace_metrics(r, dir, &logs, set, err);
	rtapp_logs_free(&logs);
	if (!ret && write_json_file(dir, "metrics.json", write_metrics, set))
		ret = sw_err_set(err, SW_EXIT_RUN_ERROR,
				 "%s/metrics.json: cannot write", dir);
	return ret;
}

/* One repetition into @dir: the run, then its metrics. */
static int run_rep(struct workload_run *r, const struct battery_opts *o,
		   const char *dir, struct metric_set *set, struct sw_err *err)
{
	if (mkdir_p(dir))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot create: %s",
				  dir, strerror(errno));
	return record_run(r, o, dir, err) || measure(r, dir, set, err) ? -1 : 0;
}

/*
 * Other tasks on the machine taking more than this share of the CPUs
 * during a repetition make it no evidence either way (LISA calls such a
 * run undecided at 1%). Measured here: 0.2-1.3% in quiet runs (a host
 * agent thread), 10-50% with a compiler or a test suite running beside.
 */
#define DISTURBED_SHARE 0.05

static double foreign_share(const struct metric_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].def->name, "foreign.cpu_share"))
			return set->v[i].value;
	return NAN;
}

/*
 * @count undisturbed repetitions into @ss, numbered from *@next; a
 * disturbed one is kept on disk but not counted, and is retried, up to
 * @count times in all. Returns 1 when the machine stayed too busy.
 */
static int run_reps(struct workload_run *r, const struct battery_opts *o,
		    const char *wdir, int *next, int count,
		    struct sample_set *ss, struct sw_err *err)
{
	int done = 0, disturbed = 0, ret = 0;
	char dir[PATH_MAX];

	while (done < count && !ret) {
		struct metric_set set = { 0 };
		double share;

		snprintf(dir, sizeof(dir), "%s/rep-%d", wdir, (*next)++);
		ret = run_rep(r, o, dir, &set, err);
		share = ret ? NAN : foreign_share(&set);
		if (!ret && share > DISTURBED_SHARE) {
			ktap_diag("%s: %s disturbed: other tasks used %.1f%% of the CPUs (limit %.0f%%); not counted",
				  r->w.name, dir, 100 * share, 100 * DISTURBED_SHARE);
			if (++disturbed > count) {
				snprintf(r->reason, sizeof(r->reason),
					 "machine too busy: %d repetitions disturbed by other tasks (see %s/rep-*)",
					 disturbed, r->w.name);
				ret = 1;
			}
		} else if (!ret) {
			if (sample_set_add_rep(ss, &set))
				ret = sw_err_set(err, SW_EXIT_RUN_ERROR,
						 "more than %d repetitions",
						 SAMPLES_MAX_REPS);
			done++;
		}
		metric_set_free(&set);
	}
	return ret;
}

/* The baseline of this workload on this machine class, if any. */
static int load_baseline(struct workload_run *r, const struct battery_opts *o,
			 struct sample_set *base, struct sw_err *err)
{
	char path[PATH_MAX];
	int ret;

	if (o->record) {
		snprintf(r->no_base, sizeof(r->no_base), "recording the baseline");
		return 1;
	}
	if (baseline_path(path, sizeof(path), o->baseline_dir, r->fp->class_name,
			  r->w.name))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "baseline path too long");
	ret = baseline_load(path, base, NULL, err);
	if (ret > 0)
		snprintf(r->no_base, sizeof(r->no_base),
			 "no baseline for machine class %s: record one with \"sched-workloads baseline %s\"",
			 r->fp->class_name, r->w.name);
	return ret;
}

static int evaluate(struct workload_run *r, const struct sample_set *cur,
		    const struct sample_set *base)
{
	struct verdict_input in = {
		.prefix = r->w.name, .cur = cur, .base = base,
		.no_base = r->no_base, .lost_events = r->lost_events,
	};

	verdict_results_free(&r->res);
	return verdict_evaluate(&r->vb, &in, &r->res);
}

static int save_baseline(struct workload_run *r, const struct battery_opts *o,
			 const struct sample_set *cur, struct sw_err *err)
{
	char path[PATH_MAX];

	if (r->lost_events)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "not recording a baseline: the trace lost %llu events",
				  (unsigned long long)r->lost_events);
	if (verdict_overall(&r->res) == V_FAIL)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "not recording a baseline: absolute checks failed");
	if (baseline_path(path, sizeof(path), o->baseline_dir, r->fp->class_name,
			  r->w.name) ||
	    baseline_save(path, r->w.name, r->fp, cur, err))
		return -1;
	ktap_diag("%s: baseline of %zu repetitions written to %s", r->w.name,
		  cur->reps, path);
	return 0;
}

static int write_samples(const void *obj, FILE *f)
{
	struct json_object *o = sample_set_to_json(obj);
	int ret;

	ret = fprintf(f, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ret < 0 ? -1 : 0;
}

/*
 * Repetitions, then the checks on them. A regression against the
 * baseline is only reported once it survives as many repetitions again,
 * as 0-day confirms a bisection before it reports.
 */
static int run_and_judge(struct workload_run *r, const struct battery_opts *o,
			 const char *dir, struct sw_err *err)
{
	struct sample_set cur = { 0 }, base = { 0 };
	int has_base, busy, next = 1, ret = -1;
	size_t regressed;

	has_base = load_baseline(r, o, &base, err);
	if (has_base < 0)
		return -1;
	has_base = !has_base;
	busy = run_reps(r, o, dir, &next, o->repetitions, &cur, err);
	if (busy) {
		ret = busy;
		goto out;
	}
	if (evaluate(r, &cur, has_base ? &base : NULL))
		goto out;
	regressed = verdict_regressions(&r->res);
	if (regressed) {
		ktap_diag("%s: %zu baseline checks regressed; confirming with %d more repetitions",
			  r->w.name, regressed, o->repetitions);
		busy = run_reps(r, o, dir, &next, o->repetitions, &cur, err);
		if (busy) {
			ret = busy;
			goto out;
		}
		if (evaluate(r, &cur, &base))
			goto out;
		ktap_diag("%s: %zu baseline checks still regressed after the re-run",
			  r->w.name, verdict_regressions(&r->res));
	}
	write_json_file(dir, "samples.json", write_samples, &cur);
	write_json_file(dir, "verdicts.json", write_verdicts, &r->res);
	ret = o->record ? save_baseline(r, o, &cur, err) : 0;
out:
	sample_set_free(&cur);
	sample_set_free(&base);
	return ret;
}

/* A workload the kernel must refuse: rt-app once, no trace, one result. */
static int run_refusal(struct workload_run *r, const struct battery_opts *o,
		       const char *wdir, const struct refusal *rf,
		       struct sw_err *err)
{
	struct prepare_opts po = {
		.basename = RTAPP_BASENAME, .calibration = o->calibration,
	};
	char dir[PATH_MAX], run_json[PATH_MAX], out[PATH_MAX];
	struct rtapp_exit ex;
	double duration;

	po.logdir = dir;
	if (path_join(dir, sizeof(dir), wdir, "rep-1") || mkdir_p(dir) ||
	    path_join(run_json, sizeof(run_json), dir, "run.json") ||
	    path_join(out, sizeof(out), dir, "rt-app.out"))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot create", dir);
	if (prepare_run_json(&r->w, &po, run_json, &duration, err) ||
	    rtapp_run(rtapp_binary(), run_json, out, duration * 1.5 + 10, &ex, err))
		return -1;
	r->res.r = calloc(1, sizeof(*r->res.r));
	if (!r->res.r)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	r->res.n = 1;
	refusal_judge(rf, r->w.name, &ex, out, r->res.r);
	write_json_file(wdir, "verdicts.json", write_verdicts, &r->res);
	return 0;
}

static void run_one(struct workload_run *r, const struct battery_opts *o,
		    const char *results)
{
	struct refusal rf;
	struct sw_err err = { 0 };
	char dir[PATH_MAX], copy[PATH_MAX];
	int refused, ret;

	r->status = V_FAIL;
	ktap_diag("%s: %s", r->w.name, r->w.description);
	refused = probe_policies(&r->w, r->reason, sizeof(r->reason), &err);
	if (refused < 0)
		goto error;
	if (refused) {
		r->status = V_SKIP;
		return;
	}
	/* The copy keeps the workload's name for a later "analyze". */
	if (path_join(dir, sizeof(dir), results, r->w.name) || mkdir_p(dir) ||
	    snprintf(copy, sizeof(copy), "%s/%s.json", dir, r->w.name) >=
	    (int)sizeof(copy) || file_copy(r->w.path, copy)) {
		sw_err_set(&err, SW_EXIT_RUN_ERROR, "%s/%s: cannot create: %s",
			   results, r->w.name, strerror(errno));
		goto error;
	}
	refused = sysctl_apply(json_object_object_get(r->w.block, "sysctl"),
			       r->w.path, r->reason, sizeof(r->reason), &err);
	if (refused < 0)
		goto error;
	if (refused) {
		r->status = V_SKIP;
		return;
	}
	ret = refusal_parse(r->w.block, r->w.path, &rf, &err);
	if (!ret)
		ret = rf.expected ? run_refusal(r, o, dir, &rf, &err) :
		      run_and_judge(r, o, dir, &err);
	sysctl_restore();
	if (ret < 0)
		goto error;
	if (ret) {
		r->status = V_SKIP;
		return;
	}
	r->status = verdict_overall(&r->res);
	snprintf(r->reason, sizeof(r->reason), "every check skipped");
	return;
error:
	r->status = V_ERROR;
	r->exit_code = err.code;
	snprintf(r->reason, sizeof(r->reason), "%s", err.msg);
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

/*
 * Two batteries on one machine disturb each other: take turns.
 * $SCHED_WORKLOADS_LOCK names another lock file; empty, none (for a
 * caller that already holds the lock).
 */
static int take_lock(void)
{
	const char *path = getenv("SCHED_WORKLOADS_LOCK");
	int fd;

	if (!path)
		path = LOCK_FILE;
	if (!*path)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ktap_diag("waiting for another sched-workloads run (%s)", path);
		while (flock(fd, LOCK_EX)) {
			if (cleanup_interrupted()) {
				close(fd);
				return -1;
			}
		}
	}
	return fd;
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

static int load_workload(struct workload_run *r, const char *path)
{
	struct sw_err err = { 0 };

	if (workload_load(path, &r->w, &err) ||
	    verdict_parse(r->w.block, path, &r->vb, &err)) {
		r->status = V_ERROR;
		r->exit_code = err.code;
		snprintf(r->reason, sizeof(r->reason), "%s", err.msg);
		if (!r->w.name[0])
			snprintf(r->w.name, sizeof(r->w.name), "unnamed");
		return -1;
	}
	return 0;
}

/* fingerprint.json: what "compare" checks before it compares two runs. */
static void write_fingerprint(const struct fingerprint *fp, const char *results)
{
	struct json_object *o = fingerprint_to_json(fp);
	char path[PATH_MAX];

	if (!path_join(path, sizeof(path), results, "fingerprint.json"))
		json_object_to_file_ext(path, o, JSON_C_TO_STRING_PRETTY |
					JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	ktap_diag("machine class %s; kernel %s; preempt %s, HZ %d; rt-app %s",
		  fp->class_name, fp->kernel_release, fp->preempt, fp->hz,
		  fp->rtapp);
}

int battery_run(const struct battery_opts *o, char *const names[], int n)
{
	const char *skip = global_skip_reason();
	int i, total, lock = -1, bad_input = 0, rc;
	uint64_t t0 = now_mono_ns();
	char results[PATH_MAX];
	struct fingerprint fp;
	char **paths;

	total = select_paths(o, names, n, &paths);
	if (total < 0)
		return SW_EXIT_USAGE;
	ktap_begin(total);
	if (!skip) {
		capture_sweep_stale();
		lock = take_lock();
		if (cleanup_interrupted()) {
			skip = "interrupted while waiting for the lock";
		} else if (make_results_dir(o, results, sizeof(results))) {
			ktap_diag("cannot create a results directory: %s",
				  strerror(errno));
			skip = "no writable results directory";
		} else {
			ktap_diag("results: %s", results);
			fingerprint_read(&fp, o->calibration);
			write_fingerprint(&fp, results);
		}
	}
	for (i = 0; i < total && !cleanup_interrupted(); i++) {
		struct workload_run r = { .fp = &fp };

		if (!load_workload(&r, paths[i])) {
			if (skip) {
				r.status = V_SKIP;
				snprintf(r.reason, sizeof(r.reason), "%s", skip);
			} else {
				run_one(&r, o, results);
			}
		}
		if (r.status == V_ERROR)
			ktap_diag("error: %s", r.reason);
		if (r.exit_code == SW_EXIT_BAD_WORKLOAD)
			bad_input = 1;
		ktap_subtests(&r.res);
		ktap_result(r.w.name, r.status, r.reason);
		verdict_results_free(&r.res);
		verdict_block_free(&r.vb);
		workload_free(&r.w);
	}
	workload_list_free(paths, total);
	if (lock >= 0)
		close(lock);
	ktap_diag("%d workloads, %d repetitions each: %.0f s in all", total,
		  o->repetitions, (now_mono_ns() - t0) / 1e9);
	rc = ktap_finish();
	cleanup_all();
	return bad_input ? SW_EXIT_BAD_WORKLOAD : rc;
}
