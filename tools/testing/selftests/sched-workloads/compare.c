// SPDX-License-Identifier: GPL-2.0
/*
 * The regression rule.
 */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "stats.h"

const char *change_kind_name(enum change_kind kind)
{
	static const char *const names[] = {
		"same", "regression", "improvement", "changed", "unknown",
	};

	return names[kind];
}

void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     const struct compare_rule *rule, struct change *out)
{
	double threshold;
	int dir;

	memset(out, 0, sizeof(*out));
	out->na = na;
	out->nb = nb;
	out->a_median = out->b_median = out->delta = out->ratio = out->p = NAN;
	if (!na || !nb) {
		out->kind = CHANGE_UNKNOWN;
		return;
	}
	out->a_median = stats_median(a, na);
	out->b_median = stats_median(b, nb);
	out->delta = out->b_median - out->a_median;
	if (out->a_median != 0)
		out->ratio = out->delta / fabs(out->a_median);
	dir = out->delta > 0 ? 1 : -1;
	out->p = dir > 0 ? stats_mwu_p_greater(a, na, b, nb) :
		 stats_mwu_p_greater(b, nb, a, na);
	out->separate = stats_ranges_separate(a, na, b, nb, dir);
	out->significant = rule->tail ? out->separate : out->p <= COMPARE_ALPHA;

	threshold = fmax(rule->rel * fabs(out->a_median), rule->abs);
	if (!out->significant || out->delta == 0 ||
	    fabs(out->delta) <= threshold) {
		out->kind = CHANGE_NONE;
		return;
	}
	if (!rule->better)
		out->kind = CHANGE_CHANGED;
	else
		out->kind = dir == rule->better ? CHANGE_IMPROVEMENT :
			    CHANGE_REGRESSION;
}
