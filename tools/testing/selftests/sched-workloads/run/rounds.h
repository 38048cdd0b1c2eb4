/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run protocol of one workload: rounds of repetitions, each after a
 * canary; more repetitions while an absolute check is split; another
 * round, minutes later, while a regression waits for confirmation
 * (the rules and their false-alarm rate:
 * Documentation/dev-tools/sched-workloads/verdicts.rst). The
 * battery (run/battery.c) decides when rounds run, "replay"
 * (cmd/cmd_replay.c) runs the same protocol on recorded repetitions, and
 * a baseline's recording (run/baseline_record.c) adds its repetitions to
 * one round, one at a time.
 */
#ifndef SW_ROUNDS_H
#define SW_ROUNDS_H

#include <json-c/json.h>
#include "judge/baseline.h"
#include "lib/event_hist.h"
#include "judge/samples.h"
#include "judge/verdict.h"

/* Where repetitions and canaries come from: rt-app now, or files. */
struct rounds_source {
	void *ctx;
	/*
	 * The next counted repetition of round @round (0-based) into @set
	 * (with set->events set); @id names its directory (lib/results.h).
	 * Returns 0, or 1 when there is none (the machine stayed too busy,
	 * or a recording has no more; the reason in @why), or -1 on error.
	 */
	int (*rep)(void *ctx, size_t round, struct metric_set *set, int *id,
		   char *why, size_t len, struct sw_err *err);
	/*
	 * The canary before round @round; 1: none (the reason in @why), the
	 * round goes on; 2: the round stops before its repetitions (why).
	 */
	int (*canary)(void *ctx, size_t round, struct metric_set *set,
		      char *why, size_t len, struct sw_err *err);
	/* Seconds on a monotonic clock, for the times of round @round. */
	double (*now)(void *ctx, size_t round);
};

struct round {
	struct sample_set cur;		/* its counted repetitions */
	struct event_set events;
	struct sample_set canary;	/* one entry per canary taken */
	double start_s, end_s;		/* source->now() */
	int ids[METRIC_MAX_REPS];	/* of its repetitions, in order */
};

/* One workload's judgement so far. */
struct rounds {
	const char *name;		/* the workload */
	const struct verdict_block *vb;
	const struct baseline *base;	/* NULL: none */
	const char *no_base;
	struct json_object *settings;	/* in force during the run */
	int extend, confirm;		/* verdict_input's */
	const char *no_more;		/* verdict_input.no_more_rounds */
	struct round round[VERDICT_ROUNDS];
	size_t nrounds;
	unsigned long long lost_events;
	struct verdict_results res;
	char stopped[256];	/* why a round ended short, if it did */
};

/*
 * Runs one more round of @reps repetitions (extended while a check is
 * split) and judges every round so far into p->res. Returns 0, 1 when the
 * source ran out (p->stopped says why; judged on what there is), -1 on
 * error.
 */
int rounds_next(struct rounds *p, const struct rounds_source *src,
		int reps, struct sw_err *err);
/*
 * Adds a canary and @reps repetitions to round @idx (a new one when it is
 * the next), judging nothing: 0, 1 when the source ran out, -1 on error.
 */
int rounds_add(struct rounds *p, const struct rounds_source *src, size_t idx,
	       int reps, struct sw_err *err);
/* Judges every round so far into p->res; -1 when out of memory. */
int rounds_judge(struct rounds *p);
/* Another round is due (a regression awaits confirmation). */
int rounds_pending(const struct rounds *p);
/* Repetitions judged in all rounds, first round first, for samples.json. */
int rounds_all_samples(const struct rounds *p, struct sample_set *out);
/* rounds.json: each round's repetitions count, times and canary. */
struct json_object *rounds_json(const struct rounds *p);
void rounds_free(struct rounds *p);

#endif /* SW_ROUNDS_H */
