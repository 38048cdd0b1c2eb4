// SPDX-License-Identifier: GPL-2.0
/*
 * A workload's start and finish (run/workload_run.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/refusal.h"
#include "judge/verdict_json.h"
#include "lib/results.h"
#include "machine/sched_settings.h"
#include "machine/task_groups.h"
#include "rtapp/rtapp_run.h"
#include "rtapp/run_json.h"
#include "run/ktap.h"
#include "run/prereq.h"
#include "run/sysctl.h"
#include "run/workload_run.h"

static int write_json(const char *dir, enum results_file f,
		      struct json_object *o)
{
	return write_json_file(dir, results_name(f), o,
			       JSON_C_TO_STRING_PRETTY);
}

static int write_verdicts(struct wl *wl, struct sw_err *err)
{
	char path[PATH_MAX];

	if (results_path(path, sizeof(path), wl->dir, RF_VERDICTS) ||
	    verdict_results_write_file(&wl->res, path))
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "cannot write %s: %s", path, strerror(errno));
	return 0;
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
	    rtapp_run(rtapp_binary(), run_json, out, duration * 1.5 + 10,
		      NULL, NULL, &ex, err))
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

int wl_sysctls_apply(struct wl *wl, struct sw_err *err)
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

void wl_sysctls_restore(void)
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
	snprintf(r->entity, sizeof(r->entity), "system");
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
	struct task_groups groups;
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
	if (!refused) {
		if (task_groups_parse(&wl->w, &groups, err))
			return -1;
		refused = task_groups_probe(&groups, wl->reason,
					    sizeof(wl->reason));
	}
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
		refused = wl_sysctls_apply(wl, err);
		if (!refused)
			refused = run_refusal(wl, &rf, err);
		wl_sysctls_restore();
		return refused < 0 ? -1 : 1;
	}
	wl->next_rep = 1;
	wl->p.name = wl->w.name;
	wl->p.vb = &wl->vb;
	wl->p.extend = wl->s->o.repetitions >= VERDICT_LEAD;
	wl->p.confirm = 1;
	return 0;
}

int wl_start(struct wl *wl)
{
	struct sw_err err = { 0 };
	int ret = start(wl, &err);

	if (ret < 0)
		session_error(wl, &err);
	return ret;
}

void wl_finish(struct wl *wl,
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
