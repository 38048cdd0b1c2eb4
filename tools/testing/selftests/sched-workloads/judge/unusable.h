/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Values a check cannot judge, whatever its rule: of a CPU the run could
 * not use, of a trace that lost events, or not measured at all.
 */
#ifndef SW_UNUSABLE_H
#define SW_UNUSABLE_H

#include <stddef.h>
#include "judge/verdict_result.h"

enum unusable {
	USABLE,
	UNUSABLE_CPU,		/* not one of the run's CPUs: SKIP */
	UNUSABLE_LOST_EVENTS,	/* the trace lost events: ERROR */
	UNUSABLE_NOT_MEASURED,	/* SKIP if the metric says why, else FAIL */
};

/*
 * Whether @ck can judge @v, the value of @ms; for UNUSABLE_CPU the
 * recorded CPU lists that leave the CPU out go to @why.
 */
enum unusable unusable_value(const struct check *ck,
			     const struct metric_samples *ms, double v,
			     const struct verdict_input *in, char *why,
			     size_t len);
enum verdict_status unusable_status(const struct check *ck, enum unusable u);
/* The diagnostic line of @u, @why as unusable_value() wrote it. */
void unusable_describe(const struct check *ck, const struct metric_samples *ms,
		       const struct verdict_input *in, enum unusable u,
		       const char *why, char *buf, size_t len);
/* Both into @r: 1 when @v cannot be judged, 0 when it can (@r untouched). */
int verdict_unusable(const struct check *ck, const struct metric_samples *ms,
		     double v, const struct verdict_input *in,
		     struct verdict_result *r);

#endif /* SW_UNUSABLE_H */
