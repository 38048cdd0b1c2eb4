/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Baseline checks, the decision: each round compared with the baseline
 * (judge/compare.h), a regression confirmed over rounds or explained by
 * the machine (judge/round_drift.h). judge/baseline_text.h words the
 * outcome.
 */
#ifndef SW_BASELINE_CHECK_H
#define SW_BASELINE_CHECK_H

#include "judge/unusable.h"
#include "judge/verdict_result.h"

/* What a baseline check came to; the status each gives is in the .c. */
enum baseline_outcome {
	BASELINE_UNUSABLE,	/* the value cannot be judged (unusable.h) */
	BASELINE_NONE,		/* no baseline to compare with */
	BASELINE_NO_EVENTS,	/* the baseline lacks the tail's events */
	BASELINE_NO_VALUE,	/* the baseline lacks the value */
	BASELINE_TOO_FEW,	/* too few events to judge a tail */
	BASELINE_WITHIN,	/* no regression in the first round */
	BASELINE_UNCONFIRMABLE,	/* regressed, and no round will come */
	BASELINE_TO_CONFIRM,	/* regressed, the next round will tell */
	BASELINE_CPU_SLOWER,	/* regressed throughout, the host's CPU slower */
	BASELINE_HOST_SLOWER,	/* regressed throughout, the host slower */
	BASELINE_REGRESSION,	/* regressed in every round */
	BASELINE_GONE_UNMEASURED, /* a later round measured nothing */
	BASELINE_DRIFT,		/* came and went with the canary */
	BASELINE_NOT_CONFIRMED,	/* gone in a later round, the canary quiet */
};

/* A baseline check's comparison in one round. */
struct round_change {
	struct change ch;
	struct tail_change tc;
	int tail;
	double v[METRIC_MAX_REPS];	/* the round's values (not tails) */
	size_t n;
};

/* The outcome and the values its diagnostic line names. */
struct baseline_decision {
	enum baseline_outcome outcome;
	enum unusable unusable;		/* BASELINE_UNUSABLE: why */
	char why[256];			/* ... and the CPU lists */
	struct round_change rc[VERDICT_ROUNDS];
	size_t nr;		/* the rounds compared */
	size_t nb;		/* the baseline's values (not tails) */
	size_t clean;		/* the first round without the regression */
	size_t slow_round;	/* BASELINE_DRIFT: round with the canary slower */
	char slow[512];		/* the machine that was slower, in words */
	int host_not_to_blame;	/* slower, and the threads' CPU time fell */
};

/*
 * Decides @ck on @ms: @r (named already) gets its status and the values
 * the verdict rests on, @d the outcome for baseline_describe().
 */
void baseline_decide(const struct check *ck, const struct metric_samples *ms,
		     const struct verdict_input *in, struct baseline_decision *d,
		     struct verdict_result *r);
/*
 * The detectable effect of @ck on the entity of @ms against @b, in rounds
 * of @reps repetitions confirmed in @rounds rounds; -1 when the baseline
 * has nothing for it.
 */
int baseline_detectable(const struct check *ck, const struct metric_samples *ms,
			const struct baseline *b, size_t reps, int rounds,
			struct detectable *d);

#endif /* SW_BASELINE_CHECK_H */
