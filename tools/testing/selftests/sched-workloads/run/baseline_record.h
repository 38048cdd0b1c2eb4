/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recording the baselines of a machine class: the battery run N times
 * over with one repetition of each workload each time, so that a baseline
 * spreads over the minutes a battery takes, as the machine drifts,
 * instead of over a few seconds of one state of it. Each workload's
 * absolute checks are judged on all of them; a workload whose checks
 * failed, or whose trace lost events, gets no baseline.
 */
#ifndef SW_BASELINE_RECORD_H
#define SW_BASELINE_RECORD_H

#include "run/battery.h"

/*
 * Records @o->repetitions repetitions of the named workloads (all when @n
 * is 0) into @o->baseline_dir/<class>/<workload>.json, reported as KTAP;
 * returns the exit code.
 */
int baseline_record(const struct battery_opts *o, char *const names[], int n);

#endif /* SW_BASELINE_RECORD_H */
