// SPDX-License-Identifier: GPL-2.0
/*
 * Repetitions and canaries from rt-app, now (run/live_source.h).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/results.h"
#include "machine/canary.h"
#include "run/ktap.h"
#include "run/live_source.h"
#include "run/repetition.h"

/* Disturbed repetitions in a row before "machine too busy". */
#define DISTURBED_MAX 3

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

const struct rounds_source *live_source(struct wl *wl,
					struct rounds_source *src)
{
	src->ctx = wl;
	src->rep = live_rep;
	src->canary = wl->s->o.no_canary ? NULL : live_canary;
	src->now = now_s;
	return src;
}
