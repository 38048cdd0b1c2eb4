/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Absolute checks: a value held to the bounds of the check
 * (judge/absolute_check.c).
 */
#ifndef SW_ABSOLUTE_CHECK_H
#define SW_ABSOLUTE_CHECK_H

#include "judge/verdict_result.h"

/*
 * Judges @ck on the values of @ms, the first round's, into @r (named
 * already): its status, value, limit, votes and diagnostic line.
 */
void judge_absolute(const struct check *ck, const struct metric_samples *ms,
		    const struct verdict_input *in, struct verdict_result *r);

#endif /* SW_ABSOLUTE_CHECK_H */
