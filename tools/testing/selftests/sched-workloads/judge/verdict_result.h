/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results of a workload's checks, what they are judged on, and what
 * they add up to (judge/verdict_result.c). Each check of judge/checks.h
 * gives one result per entity it selects (judge/verdict.h).
 *
 * How a verdict is decided: Documentation/dev-tools/sched-workloads/verdicts.rst
 */
#ifndef SW_VERDICT_RESULT_H
#define SW_VERDICT_RESULT_H

#include <json-c/json.h>
#include "judge/baseline.h"
#include "judge/checks.h"
#include "judge/compare.h"
#include "judge/detectable.h"
#include "judge/samples.h"
#include "lib/event_hist.h"

/* The numbers of the rules (verdicts.rst says why these). */
#define VERDICT_LEAD		3	/* votes ahead that decide a check */
#define VERDICT_MAX_REPS	9	/* repetitions a split check may get */
#define VERDICT_ROUNDS		3	/* rounds a regression must last */

enum verdict_status { V_PASS, V_FAIL, V_SKIP, V_ERROR };

struct verdict_result {
	char name[160];		/* unique, space-free subtest name */
	/*
	 * What it is about, the part of the name between the workload and
	 * the metric: a task, a thread, "cpu1", "system" or "rtapp" (a
	 * check that matched nothing: its selector).
	 */
	char entity[64];
	enum verdict_status status;
	enum check_kind kind;
	enum change_kind change;	/* baseline checks: of the first round */
	const struct metric_def *def;
	/*
	 * What the verdict rests on, for qualification: the value judged
	 * (absolute: the median; baseline: the first round's median or
	 * pooled quantile), the limit it is held to (the bound, or the
	 * baseline value moved by the smallest change that matters) and the
	 * room left, in the metric's unit (negative: beyond the limit).
	 */
	double value, limit, room;
	size_t reps, beyond;	/* absolute: repetitions, those beyond */
	int undecided;		/* absolute: more repetitions would decide */
	int pending;		/* another round will judge it */
	/* baseline checks: the smallest change they see (judge/detectable.h) */
	struct detectable detect;
	int has_detect;
	char diag[1536];	/* metric, value, expectation, why */
};

struct verdict_results {
	struct verdict_result *r;
	size_t n;
};

/*
 * A round of repetitions: the first, or a confirmation taken minutes
 * later, with the canary measured just before it.
 */
struct verdict_round {
	const struct sample_set *cur;
	const struct event_set *events;		/* may be NULL */
	const struct sample_set *canary;	/* may be NULL or empty */
	double at_s;		/* start, seconds after the first round's */
};

/* What the checks are judged on. */
struct verdict_input {
	const char *prefix;		/* the workload: first part of names */
	const struct verdict_round *rounds;	/* [0]: the first round */
	size_t nrounds;
	const struct baseline *base;	/* NULL: no baseline */
	const char *no_base;		/* why not: baseline checks SKIP */
	struct json_object *settings;	/* as in force now; may be NULL */
	unsigned long long lost_events;	/* > 0: trace checks are errors */
	int extend;	/* a split absolute check may ask for repetitions */
	int confirm;	/* a regression may ask for another round */
	/*
	 * Why no other round will come (the battery's time limit), or NULL:
	 * what would wait for one SKIPs saying so.
	 */
	const char *no_more_rounds;
	int confirm_bounds;	/* so may a bound missed (3+ repetitions) */
};

/*
 * A result of a @kind check of @def about @entity, not judged yet: named
 * "<prefix>.<entity>.<metric>", ".vs-baseline" added for a baseline
 * check, and ".2", ".3"... when @res has that name already (two checks
 * of one metric on one entity).
 */
void verdict_result_init(struct verdict_result *r,
			 const struct verdict_results *res,
			 enum check_kind kind, const struct metric_def *def,
			 const char *prefix, const char *entity);
/* Appends a copy of @r; -1 when out of memory. */
int verdict_results_push(struct verdict_results *res,
			 const struct verdict_result *r);
void verdict_results_free(struct verdict_results *res);
/* "pass", "fail", "skip", "error": as verdicts.json and index.json say it. */
const char *verdict_status_name(enum verdict_status st);
/* The worst status of all results: FAIL/ERROR > PASS > SKIP. */
enum verdict_status verdict_overall(const struct verdict_results *res);
/* Baseline checks that found a regression, confirmed or not. */
size_t verdict_regressions(const struct verdict_results *res);
/* Checks waiting for another round to judge them. */
size_t verdict_pending(const struct verdict_results *res);
/* Absolute checks whose repetitions are split without a decision. */
size_t verdict_undecided(const struct verdict_results *res);

#endif /* SW_VERDICT_RESULT_H */
