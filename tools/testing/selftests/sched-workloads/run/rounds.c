// SPDX-License-Identifier: GPL-2.0
/*
 * The run protocol of one workload (run/rounds.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/rounds.h"

/* One counted repetition into @rd; 1 when the source has none. */
static int take_rep(struct rounds *p, const struct rounds_source *src,
		    size_t idx, struct round *rd, struct sw_err *err)
{
	struct event_rep ev = { 0 };
	struct metric_set set = { .events = &ev };
	double lost;
	int id = 0, ret;

	if (rd->cur.reps == METRIC_MAX_REPS) {
		snprintf(p->stopped, sizeof(p->stopped),
			 "at most %d repetitions a round", METRIC_MAX_REPS);
		return 1;
	}
	ret = src->rep(src->ctx, idx, &set, &id, p->stopped,
		       sizeof(p->stopped), err);
	if (!ret) {
		rd->ids[rd->cur.reps] = id;
		if (sample_set_add_rep(&rd->cur, &set) ||
		    event_set_add_rep(&rd->events, &ev))
			ret = sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		lost = metric_set_first(&set, "system.lost_events");
		if (lost > p->lost_events)
			p->lost_events = (unsigned long long)lost;
	}
	metric_set_free(&set);
	event_rep_free(&ev);
	return ret;
}

/* 0, 1 when the round must stop before its repetitions, -1 on error. */
static int take_canary(struct rounds *p, const struct rounds_source *src,
		       size_t idx, struct round *rd, struct sw_err *err)
{
	struct metric_set set = { 0 };
	char why[256];
	int ret;

	if (!src->canary)
		return 0;
	ret = src->canary(src->ctx, idx, &set, why, sizeof(why), err);
	if (!ret && sample_set_add_rep(&rd->canary, &set))
		ret = sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	metric_set_free(&set);
	if (ret == 2) {
		snprintf(p->stopped, sizeof(p->stopped), "%s", why);
		return 1;
	}
	/* No canary (refused, or none recorded): rounds go on without. */
	return ret < 0 ? -1 : 0;
}

int rounds_judge(struct rounds *p)
{
	struct verdict_round vr[VERDICT_ROUNDS];
	struct verdict_input in = {
		.prefix = p->name, .rounds = vr, .nrounds = p->nrounds,
		.base = p->base, .no_base = p->no_base,
		.settings = p->settings, .lost_events = p->lost_events,
		.extend = p->extend && p->nrounds == 1,
		.confirm = p->confirm,
		.no_more_rounds = p->no_more,
		/* one repetition asked for: judged on what was asked */
		.confirm_bounds = p->confirm && p->extend,
	};
	size_t i;

	for (i = 0; i < p->nrounds; i++) {
		vr[i].cur = &p->round[i].cur;
		vr[i].events = &p->round[i].events;
		vr[i].canary = &p->round[i].canary;
		vr[i].at_s = p->round[i].start_s - p->round[0].start_s;
	}
	verdict_results_free(&p->res);
	return verdict_evaluate(p->vb, &in, &p->res);
}

int rounds_add(struct rounds *p, const struct rounds_source *src, size_t idx,
	       int reps, struct sw_err *err)
{
	struct round *rd = &p->round[idx];
	int i, ret = 0;

	if (idx > p->nrounds || idx >= VERDICT_ROUNDS)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: no round %zu",
				  p->name, idx + 1);
	if (idx == p->nrounds) {
		memset(rd, 0, sizeof(*rd));
		rd->start_s = src->now(src->ctx, idx);
		p->nrounds++;
	}
	p->stopped[0] = '\0';
	ret = take_canary(p, src, idx, rd, err);
	for (i = 0; i < reps && !ret; i++)
		ret = take_rep(p, src, idx, rd, err);
	rd->end_s = src->now(src->ctx, idx);
	return ret;
}

int rounds_next(struct rounds *p, const struct rounds_source *src,
		int reps, struct sw_err *err)
{
	size_t idx = p->nrounds;
	struct round *rd = &p->round[idx];
	int ret;

	ret = rounds_add(p, src, idx, reps, err);
	if (ret < 0)
		return -1;
	/* A first round without repetitions has nothing to judge. */
	if (!p->round[0].cur.reps)
		return 1;
	if (rounds_judge(p))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	/* A split check gets repetitions, one at a time, until decided. */
	while (!ret && verdict_undecided(&p->res)) {
		ret = take_rep(p, src, idx, rd, err);
		if (!ret && rounds_judge(p))
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	}
	rd->end_s = src->now(src->ctx, idx);
	return ret;
}

int rounds_pending(const struct rounds *p)
{
	return p->nrounds < VERDICT_ROUNDS && verdict_pending(&p->res) > 0;
}

int rounds_all_samples(const struct rounds *p, struct sample_set *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < p->nrounds; i++)
		if (sample_set_append(out, &p->round[i].cur))
			return -1;
	return 0;
}

struct json_object *rounds_json(const struct rounds *p)
{
	struct json_object *arr = json_object_new_array();
	size_t i, r;

	for (i = 0; arr && i < p->nrounds; i++) {
		const struct round *rd = &p->round[i];
		struct json_object *o = json_object_new_object();
		struct json_object *ids = json_object_new_array();

		for (r = 0; r < rd->cur.reps; r++)
			json_object_array_add(ids, json_object_new_int(rd->ids[r]));
		json_object_object_add(o, "round", json_object_new_int(i + 1));
		json_object_object_add(o, "reps", ids);
		json_object_object_add(o, "start_s",
				       json_object_new_double(rd->start_s -
							      p->round[0].start_s));
		json_object_object_add(o, "seconds",
				       json_object_new_double(rd->end_s -
							      rd->start_s));
		json_object_object_add(o, "canary", sample_set_to_json(&rd->canary));
		json_object_array_add(arr, o);
	}
	return arr;
}

void rounds_free(struct rounds *p)
{
	size_t i;

	for (i = 0; i < p->nrounds; i++) {
		sample_set_free(&p->round[i].cur);
		event_set_free(&p->round[i].events);
		sample_set_free(&p->round[i].canary);
	}
	p->nrounds = 0;
	verdict_results_free(&p->res);
}
