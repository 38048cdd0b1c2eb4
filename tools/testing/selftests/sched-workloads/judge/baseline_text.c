// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline checks, the text: every outcome of judge/baseline_check.h in
 * words, the first round's comparison leading.
 */
#include <math.h>
#include <stdio.h>

#include "judge/baseline_text.h"
#include "judge/round_drift.h"
#include "judge/verdict_text.h"

static const char *direction(const struct check *ck)
{
	return ck->rule.better < 0 ? "lower is better" : "higher is better";
}

/* The first round's comparison, the way every baseline result starts. */
static void describe_first(const struct check *ck,
			   const struct metric_samples *ms,
			   const struct round_change *rc, size_t nb,
			   char *buf, size_t len)
{
	const struct change *ch = &rc->ch;
	const struct tail_change *tc = &rc->tc;
	char reps[256];

	if (!rc->tail) {
		verdict_format_values(rc->v, rc->n, reps, sizeof(reps));
		snprintf(buf, len,
			 "%s: %s = %g %s%s vs baseline %g (median of %zu): %+.1f%%, p=%.3g%s; %s, counts beyond max(%g%%, %g %s)",
			 ms->entity, ck->def->name, ch->b_median, ck->def->unit,
			 reps, ch->a_median, nb, isnan(ch->ratio) ? 0 : 100 * ch->ratio,
			 ch->p, ch->separate ? ", ranges apart" : "",
			 direction(ck), 100 * ck->rule.rel, ck->rule.abs,
			 ck->def->unit);
		return;
	}
	if (ck->def->tail == TAIL_NEGATIVE)
		snprintf(buf, len,
			 "%s: %s: %.3g%% of %llu events pooled from %zu repetitions overran vs %.3g%% of %llu in the baseline (%zu): dispersion %.2g, p=%.3g; %s, counts beyond max(%g%%, %g %s)",
			 ms->entity, ck->def->name, 100 * ch->b_median,
			 (unsigned long long)tc->nc, ch->nb, 100 * ch->a_median,
			 (unsigned long long)tc->nb, ch->na, tc->dispersion, ch->p,
			 direction(ck), 100 * ck->rule.rel, ck->rule.abs,
			 ck->def->unit);
	else
		snprintf(buf, len,
			 "%s: %s = %g %s pooled from %llu events of %zu repetitions vs baseline %g (%llu events of %zu): %llu now and %llu before beyond %g %s, dispersion %.2g, p=%.3g; %s, counts beyond max(%g%%, %g %s)",
			 ms->entity, ck->def->name, ch->b_median, ck->def->unit,
			 (unsigned long long)tc->nc, ch->nb, ch->a_median,
			 (unsigned long long)tc->nb, ch->na,
			 (unsigned long long)tc->kc, (unsigned long long)tc->kb,
			 tc->t, ck->def->unit, tc->dispersion, ch->p,
			 direction(ck), 100 * ck->rule.rel, ck->rule.abs,
			 ck->def->unit);
}

/* A later round, briefly: "round 2 at +214 s: 98 us, +263%, p=0.018". */
static void describe_round(const struct check *ck, const struct verdict_input *in,
			   size_t i, const struct round_change *rc, char *buf,
			   size_t len)
{
	const struct change *ch = &rc->ch;

	verdict_append(buf, len, "round %zu at +%.0f s: ", i + 1,
		       in->rounds[i].at_s);
	if (ch->kind == CHANGE_UNKNOWN || ch->kind == CHANGE_TOO_FEW) {
		verdict_append(buf, len, "not measured");
		return;
	}
	if (ck->def->tail == TAIL_NEGATIVE)
		verdict_append(buf, len, "%.3g%% overran", 100 * ch->b_median);
	else
		verdict_append(buf, len, "%g %s", ch->b_median, ck->def->unit);
	verdict_append(buf, len, ", %+.1f%%, p=%.3g", isnan(ch->ratio) ? 0 :
		       100 * ch->ratio, ch->p);
}

/* The outcomes decided before there was a first round to describe. */
static int describe_missing(const struct check *ck,
			    const struct metric_samples *ms,
			    const struct verdict_input *in,
			    const struct baseline_decision *d, char *buf,
			    size_t len)
{
	const struct round_change *rc = &d->rc[0];

	switch (d->outcome) {
	case BASELINE_UNUSABLE:
		unusable_describe(ck, ms, in, d->unusable, d->why, buf, len);
		return 1;
	case BASELINE_NONE:
		snprintf(buf, len, "%s", in->no_base);
		return 1;
	case BASELINE_NO_EVENTS:
		snprintf(buf, len,
			 "%s: %s: the baseline has no events of series %s (recorded before tails were judged on events): record it again",
			 ms->entity, ck->def->name, ck->def->series);
		return 1;
	case BASELINE_NO_VALUE:
		snprintf(buf, len,
			 "%s: %s: the baseline has no value for it: record it again",
			 ms->entity, ck->def->name);
		return 1;
	case BASELINE_TOO_FEW:
		snprintf(buf, len,
			 "%s: %s: too few events to judge a tail: %llu now and %llu in the baseline, %llu a side needed",
			 ms->entity, ck->def->name,
			 (unsigned long long)rc->tc.nc,
			 (unsigned long long)rc->tc.nb,
			 (unsigned long long)rc->tc.need);
		return 1;
	default:
		return 0;
	}
}

void baseline_describe(const struct check *ck, const struct metric_samples *ms,
		       const struct verdict_input *in,
		       const struct baseline_decision *d,
		       struct verdict_result *r)
{
	size_t i, len = sizeof(r->diag);
	char first[1024], sees[256];
	char *buf = r->diag;

	if (describe_missing(ck, ms, in, d, buf, len))
		return;
	describe_first(ck, ms, &d->rc[0], d->nb, first, sizeof(first));
	if (r->has_detect) {
		detectable_describe(&r->detect, ck->def->unit, sees,
				    sizeof(sees));
		verdict_append(first, sizeof(first), "; detects %s", sees);
	}
	/*
	 * What was not judged names the check, says why not and gives the
	 * first round last; a verdict starts with the first round (or its
	 * own word for it) and ends with the check's reason.
	 */
	buf[0] = '\0';
	if (r->status == V_SKIP)
		verdict_append(buf, len, "%s: %s ", ms->entity, ck->def->name);
	switch (d->outcome) {
	case BASELINE_WITHIN:
		verdict_append(buf, len, "%s %s",
			       r->change == CHANGE_IMPROVEMENT ? "improved" : "ok",
			       first);
		break;
	case BASELINE_UNCONFIRMABLE:
		verdict_append(buf, len, "regressed and could not be confirmed: %s",
			       in->no_more_rounds);
		break;
	case BASELINE_TO_CONFIRM:
		verdict_append(buf, len,
			       "regressed, to be confirmed by round %zu: %s",
			       d->nr + 1, first);
		break;
	case BASELINE_CPU_SLOWER:
		verdict_append(buf, len,
			       "regressed in all %zu rounds, and in all of them the canary's loops ran slower than in the baseline's (round 1: %s): the host's CPU was slower, not judged",
			       d->nr, d->slow);
		break;
	case BASELINE_HOST_SLOWER:
		verdict_append(buf, len,
			       "regressed in all %zu rounds, and in all of them the workload's loops ran slower on the CPU than in the baseline (round 1: %s): the host was slower during the run, not judged",
			       d->nr, d->slow);
		break;
	case BASELINE_REGRESSION:
		verdict_append(buf, len, "REGRESSION %s", first);
		for (i = 1; i < d->nr; i++) {
			verdict_append(buf, len, i == 1 ? "; still there in " :
				       " and ");
			describe_round(ck, in, i, &d->rc[i], buf, len);
		}
		drift_append_canary(in, buf, len);
		drift_append_settings(in, buf, len);
		if (d->host_not_to_blame)
			drift_append_host_not_to_blame(d->slow, buf, len);
		break;
	case BASELINE_GONE_UNMEASURED:
		verdict_append(buf, len,
			       "regressed and could not be confirmed: round %zu measured nothing",
			       d->clean + 1);
		break;
	case BASELINE_DRIFT:
		verdict_append(buf, len,
			       "regressed while the canary said the machine was slower (round %zu: %s), and was gone in ",
			       d->slow_round + 1, d->slow);
		describe_round(ck, in, d->clean, &d->rc[d->clean], buf, len);
		verdict_append(buf, len,
			       " with the canary back as in the baseline: machine drift, not the kernel");
		break;
	case BASELINE_NOT_CONFIRMED:
		verdict_append(buf, len, "ok, not confirmed: %s; gone in ", first);
		describe_round(ck, in, d->clean, &d->rc[d->clean], buf, len);
		break;
	default:
		break;
	}
	if (r->status == V_SKIP)
		verdict_append(buf, len, "; first round: %s", first);
	else if (ck->why[0])
		verdict_append(buf, len, ": %s", ck->why);
}
