/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Baseline checks, the text: the diagnostic line of what
 * judge/baseline_check.h decided.
 */
#ifndef SW_BASELINE_TEXT_H
#define SW_BASELINE_TEXT_H

#include "judge/baseline_check.h"

/*
 * @r's diagnostic line for @d: the first round against the baseline,
 * the rounds after it, and the machine's part, as the outcome needs;
 * @r as baseline_decide() left it.
 */
void baseline_describe(const struct check *ck, const struct metric_samples *ms,
		       const struct verdict_input *in,
		       const struct baseline_decision *d,
		       struct verdict_result *r);

#endif /* SW_BASELINE_TEXT_H */
