// SPDX-License-Identifier: GPL-2.0
/*
 * The machine during the rounds of a verdict against its baseline's.
 */
#include <stdio.h>

#include "judge/machine_drift.h"
#include "judge/round_drift.h"
#include "judge/verdict_text.h"
#include "machine/settings_diff.h"

int drift_round_slower(const struct verdict_input *in, size_t i, char *buf,
		       size_t len)
{
	const struct sample_set *cur = in->rounds[i].canary;

	buf[0] = '\0';
	if (!cur || !cur->reps || !in->base || !in->base->canary.reps)
		return 0;
	return canary_shifted(&in->base->canary, cur, buf, len) > 0;
}

int drift_host_slower_throughout(const struct verdict_input *in, size_t nr,
				 char *buf, size_t len)
{
	char what[256], less[256];
	size_t i;

	buf[0] = '\0';
	if (!in->base)
		return 0;
	for (i = 0; i < nr; i++) {
		if (!host_gauge_slower(&in->base->samples, in->rounds[i].cur,
				       what, sizeof(what)))
			return 0;
		if (!i)
			snprintf(buf, len, "%s", what);
	}
	for (i = 0; i < nr; i++) {
		if (!threads_cpu_time_lower(&in->base->samples,
					    in->rounds[i].cur, less,
					    sizeof(less)))
			continue;
		verdict_append(buf, len, "; round %zu: %s", i + 1, less);
		return -1;
	}
	return nr > 0;
}

int drift_cpu_slower_throughout(const struct verdict_input *in, size_t nr,
				char *buf, size_t len)
{
	char what[512];
	size_t i;

	buf[0] = '\0';
	if (!in->base || !in->base->canary.reps)
		return 0;
	for (i = 0; i < nr; i++) {
		if (!in->rounds[i].canary || !in->rounds[i].canary->reps ||
		    canary_cpu_slower(&in->base->canary, in->rounds[i].canary,
				      what, sizeof(what)) <= 0)
			return 0;
		if (!i)
			snprintf(buf, len, "%s", what);
	}
	return nr > 0;
}

void drift_append_canary(const struct verdict_input *in, char *buf,
			 size_t len)
{
	char what[512];
	size_t i;

	if (!in->base || !in->base->canary.reps) {
		verdict_append(buf, len, "; no canary in the baseline to compare the machine with");
		return;
	}
	for (i = 0; i < in->nrounds; i++) {
		if (!in->rounds[i].canary || !in->rounds[i].canary->reps)
			continue;
		verdict_append(buf, len, "; canary of round %zu: %s", i + 1,
			       drift_round_slower(in, i, what, sizeof(what)) ?
			       what : "as in the baseline");
	}
}

void drift_append_settings(const struct verdict_input *in, char *buf,
			   size_t len)
{
	char diff[512];

	if (!in->base || !in->settings ||
	    !settings_diff(baseline_settings(in->base), in->settings, diff,
			   sizeof(diff)))
		return;
	verdict_append(buf, len, "; settings differ from the baseline's: %s",
		       diff);
}

void drift_append_host_not_to_blame(const char *why, char *buf, size_t len)
{
	verdict_append(buf, len,
		       "; the workload's loops ran slower on the CPU in every round too (round 1: %s): a slower host stretches a thread's time on a CPU, it does not take it away; the kernel does",
		       why);
}
