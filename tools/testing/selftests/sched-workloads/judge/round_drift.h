/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine during the rounds of a verdict against the machine of its
 * baseline: the canary before each round, the host gauge of its
 * repetitions (judge/machine_drift.h) and the settings the run recorded.
 * A check that moved asks them before it blames the kernel, and names
 * them beside a failure.
 */
#ifndef SW_ROUND_DRIFT_H
#define SW_ROUND_DRIFT_H

#include <stddef.h>
#include "judge/verdict_result.h"

/*
 * Whether the canary of round @i says the machine was slower than when
 * the baseline was recorded (1), or not (0); its values, if any, go to
 * @buf.
 */
int drift_round_slower(const struct verdict_input *in, size_t i, char *buf,
		       size_t len);
/*
 * Whether the workload's own loops ran slower on the CPU than in the
 * baseline in every one of the first @nr rounds (machine/host_gauge.h),
 * round 1's gauge in @buf: 1 when they did; -1 when they did but the
 * workload's threads also had less time on a CPU in a round
 * (threads_cpu_time_lower(), appended to @buf): the kernel took that
 * time, whatever the host did; 0 otherwise.
 */
int drift_host_slower_throughout(const struct verdict_input *in, size_t nr,
				 char *buf, size_t len);
/*
 * Whether the canary of every one of the first @nr rounds ran its loops
 * slower than the baseline's (1), the CPU's values of the first in @buf.
 */
int drift_cpu_slower_throughout(const struct verdict_input *in, size_t nr,
				char *buf, size_t len);
/*
 * Appends why a slower host does not excuse a failure: @why, from
 * drift_host_slower_throughout() when it returned -1.
 */
void drift_append_host_not_to_blame(const char *why, char *buf, size_t len);
/* Appends the canary of every round against the baseline's. */
void drift_append_canary(const struct verdict_input *in, char *buf,
			 size_t len);
/* Appends what differs from the baseline's settings, if anything. */
void drift_append_settings(const struct verdict_input *in, char *buf,
			   size_t len);

#endif /* SW_ROUND_DRIFT_H */
