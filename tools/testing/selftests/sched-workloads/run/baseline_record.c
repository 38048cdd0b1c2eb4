// SPDX-License-Identifier: GPL-2.0
/*
 * Recording baselines (run/baseline_record.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "run/baseline_record.h"
#include "run/ktap.h"
#include "run/live_source.h"
#include "run/session.h"
#include "run/workload_run.h"

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

static int save(struct wl *wl, const struct sample_set *all,
		struct sw_err *err)
{
	const struct session *s = wl->s;
	struct round *rd = &wl->p.round[0];
	char cdir[PATH_MAX], path[PATH_MAX + 64];

	if (!all->reps)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "not recording a baseline: no repetition counted (%s)",
				  wl->p.stopped[0] ? wl->p.stopped : "none ran");
	if (wl->p.lost_events)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "not recording a baseline: the trace lost %llu events",
				  wl->p.lost_events);
	if (verdict_overall(&wl->res) == V_FAIL)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "not recording a baseline: absolute checks failed");
	if (baseline_class_dir(cdir, sizeof(cdir), s->o.baseline_dir,
			       s->fp.class_name, s->fp.settings) ||
	    baseline_path(path, sizeof(path), cdir, wl->w.name) ||
	    baseline_save(path, wl->w.name, &s->fp, wl->p.settings, all,
			  &rd->events, tail_needed, &wl->vb, &rd->canary, err))
		return -1;
	ktap_diag("%s: baseline of %zu repetitions written to %s", wl->w.name,
		  all->reps, path);
	return 0;
}

/* One more repetition, with a canary, into the workload's one round. */
static int record_one(struct wl *wl, struct sw_err *err)
{
	struct rounds_source src;
	int ret;

	ret = wl_sysctls_apply(wl, err);
	if (ret)
		return ret < 0 ? -1 : 0;
	ret = rounds_add(&wl->p, live_source(wl, &src), 0, 1, err);
	wl_sysctls_restore();
	return ret < 0 ? -1 : 0;
}

int baseline_record(const struct battery_opts *o, char *const names[], int n)
{
	struct sw_err err = { 0 };
	struct session s;
	struct wl *wl;
	int i, k, rc = session_open(&s, o, names, n);

	if (rc)
		return rc;
	for (i = 0; i < s.total && !cleanup_interrupted(); i++) {
		wl = &s.wls[i];
		if (wl->state == WL_DONE || wl_start(wl))
			continue;
		/* Its absolute checks only, on every repetition recorded. */
		wl->p.extend = 0;
		wl->p.confirm = 0;
		snprintf(wl->no_base, sizeof(wl->no_base),
			 "recording the baseline");
		wl->p.no_base = wl->no_base;
	}
	for (k = 0; k < s.o.repetitions; k++) {
		if (s.o.repetitions > 1)
			ktap_diag("recording: repetition %d of %d of every workload",
				  k + 1, s.o.repetitions);
		for (i = 0; i < s.total && !cleanup_interrupted(); i++) {
			wl = &s.wls[i];
			if (wl->state == WL_NEW && record_one(wl, &err))
				session_error(wl, &err);
		}
	}
	for (i = 0; i < s.total && !cleanup_interrupted(); i++) {
		wl = &s.wls[i];
		if (wl->state != WL_NEW)
			continue;
		if (wl->p.nrounds && wl->p.round[0].cur.reps &&
		    rounds_judge(&wl->p)) {
			sw_err_set(&err, SW_EXIT_RUN_ERROR, "out of memory");
			session_error(wl, &err);
			continue;
		}
		wl_finish(wl, save);
	}
	return session_close(&s);
}
