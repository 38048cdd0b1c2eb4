// SPDX-License-Identifier: GPL-2.0
/*
 * Running the battery: one workload at a time, in file-name order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/utsname.h>

#include "battery.h"
#include "capture.h"
#include "cleanup.h"
#include "ktap.h"
#include "metrics.h"
#include "prepare.h"
#include "probe.h"
#include "rtapp_log.h"
#include "rtapp_run.h"
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

static int measure(struct workload_run *r, const char *dir,
		   struct metric_set *set, struct sw_err *err)
{
	struct rtapp_logs logs;
	size_t i;
	int ret = -1;

	if (rtapp_logs_load(dir, RTAPP_BASENAME, &logs, err))
		return -1;
	for (i = 0; i < logs.n; i++)
		if (metric_set_add_entity(set, SRC_RTAPP_TASK, &logs.t[i],
					  logs.t[i].name, logs.t[i].task, -1))
			goto out;
	if (write_json_file(dir, "metrics.json", write_metrics, set)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "%s/metrics.json: cannot write",
			   dir);
		goto out;
	}
	ret = 0;
out:
	rtapp_logs_free(&logs);
	(void)r;
	return ret;
}

static void run_one(struct workload_run *r, const struct battery_opts *o,
		    const char *results)
{
	struct metric_set set = { 0 };
	struct sw_err err = { 0 };
	char dir[PATH_MAX], copy[PATH_MAX];
	int refused;

	r->status = V_FAIL;
	ktap_diag("%s: %s", r->w.name, r->w.description);
	refused = probe_policies(&r->w, r->reason, sizeof(r->reason), &err);
	if (refused < 0)
		goto error;
	if (refused) {
		r->status = V_SKIP;
		return;
	}
	if (path_join(dir, sizeof(dir), results, r->w.name) || mkdir_p(dir) ||
	    path_join(copy, sizeof(copy), dir, "workload.json") ||
	    file_copy(r->w.path, copy)) {
		sw_err_set(&err, SW_EXIT_RUN_ERROR, "%s/%s: cannot create: %s",
			   results, r->w.name, strerror(errno));
		goto error;
	}
	if (record_run(r, o, dir, &err) || measure(r, dir, &set, &err))
		goto error;
	if (verdict_evaluate(&r->vb, &set, r->w.name, 0, &r->res)) {
		sw_err_set(&err, SW_EXIT_RUN_ERROR, "out of memory");
		goto error;
	}
	write_json_file(dir, "verdicts.json", write_verdicts, &r->res);
	r->status = verdict_overall(&r->res);
	snprintf(r->reason, sizeof(r->reason), "every check skipped");
	metric_set_free(&set);
	return;
error:
	metric_set_free(&set);
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
			if (sw_interrupted) {
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

int battery_run(const struct battery_opts *o, char *const names[], int n)
{
	const char *skip = global_skip_reason();
	int i, total, lock = -1, bad_input = 0, rc;
	char results[PATH_MAX];
	char **paths;

	total = select_paths(o, names, n, &paths);
	if (total < 0)
		return SW_EXIT_USAGE;
	ktap_begin(total);
	if (!skip) {
		capture_sweep_stale();
		lock = take_lock();
		if (make_results_dir(o, results, sizeof(results))) {
			ktap_diag("cannot create a results directory: %s",
				  strerror(errno));
			skip = "no writable results directory";
		} else {
			ktap_diag("results: %s", results);
		}
	}
	for (i = 0; i < total && !sw_interrupted; i++) {
		struct workload_run r = { 0 };

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
	rc = ktap_finish();
	cleanup_all();
	return bad_input ? SW_EXIT_BAD_WORKLOAD : rc;
}
