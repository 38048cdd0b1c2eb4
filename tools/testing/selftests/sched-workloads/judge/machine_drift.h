/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the machine, not the kernel, moved since a baseline was
 * recorded: the canary measured before a round (machine/canary.h) against
 * the baseline's canaries, and the host gauge of a round's repetitions
 * (machine/host_gauge.h) against the baseline's. A check asks, round by
 * round (judge/round_drift.h), before it blames the kernel for a
 * regression.
 */
#ifndef SW_MACHINE_DRIFT_H
#define SW_MACHINE_DRIFT_H

#include <stddef.h>

#include "judge/samples.h"
#include "lib/metric.h"

/* The smallest drop of the host gauge that counts (docs: verdicts.rst). */
#define HOST_GAUGE_REL	0.15

/*
 * Whether one canary value @cur lies outside what the baseline's canary
 * values (@base, one per repetition) make normal, for the canary metric
 * @def: +1 the machine is slower (higher), -1 faster (lower), 0 normal or
 * nothing to judge (no base value, a NAN, canary.fifo, not a canary
 * metric). @why (may be NULL) says which and by how much.
 *
 * The rule: the baseline's range [lo, hi] widened on each side by the
 * larger of a relative and an absolute margin of the metric,
 *   slower  iff  cur > hi + max(rel * hi, abs)
 *   faster  iff  cur < lo - max(rel * lo, abs)
 * so a value must be beyond the range by both margins to count:
 *   canary.loop_ns        15%, 0.05 ns
 *   canary.libm_ns        15%, 0.2 ns
 *   canary.timer_lat.p50  30%, 10 us
 *   canary.wake_lat.p50   30%, 10 us
 *   canary.timer_lat.p90  50%, 20 us
 * Measured on an idle 2-CPU VM (30 canaries over 10 minutes, each block
 * of 5 as the baseline against the other 25): the "system" values of
 * loop_ns and the two p50s were never called slower or faster in 150
 * judgements each, timer_lat.p90 once (0.7%); a 1.3-1.6x host drift was
 * called slower in 4 canaries of 5. Per-CPU values are noisier (21 of
 * 150 canaries had one called slower): judge "system", show the CPUs.
 */
int canary_compare(const double *base, size_t nb, double cur,
		   const struct metric_def *def, char *why, size_t len);

/*
 * The canary's figures that tell a slower machine: canary.loop_ns,
 * canary.libm_ns, canary.timer_lat.p50 and canary.wake_lat.p50. The
 * history of a series of runs searches the same ones for a change of
 * host ("sched-workloads --facts").
 */
extern const char *const canary_machine_metrics[];
extern const size_t canary_machine_nmetrics;

/*
 * Whether the canary of a round (@cur: one measurement) says the machine
 * is slower than when the baseline (@base: one measurement per
 * repetition) was recorded: the "system" values of
 * canary_machine_metrics by canary_compare().
 * Returns +1 when one of them is slower, 0 otherwise (and when the two
 * are not comparable: canary.fifo differs, or nothing is measured on one
 * side). @buf gets the values that moved against the baseline's range,
 * "timer_lat.p50 95.2 us (baseline 38.1-41.0)", or why they cannot be
 * compared.
 */
int canary_shifted(const struct sample_set *base, const struct sample_set *cur,
		   char *buf, size_t len);

/*
 * The same for the CPU's own speed alone (canary.loop_ns, canary.libm_ns):
 * +1 when the CPU ran the canary's loops slower than in the baseline. A
 * metric of work per us (metric_def.cpu_speed) moves with them whatever
 * the kernel does.
 */
int canary_cpu_slower(const struct sample_set *base,
		      const struct sample_set *cur, char *buf, size_t len);

/*
 * Whether the repetitions of @cur ran the workload's loops slower on the
 * CPU than those of @base: by HOST_GAUGE_REL at least and by a one-sided
 * rank test (judge/compare.h). 1 with both in @buf; 0 when not slower or either
 * side has no gauge.
 */
int host_gauge_slower(const struct sample_set *base,
		      const struct sample_set *cur, char *buf, size_t len);

/*
 * Whether the workload's threads were on a CPU for less time in the
 * repetitions of @cur than in those of @base (the trace's cpu_time of
 * every thread, summed): by HOST_GAUGE_REL at least and by a one-sided
 * rank test. A slower host stretches what a thread does in its time on
 * a CPU, it does not take the time away (a runtime event ends on the
 * clock, a stalled vCPU is charged to the thread it stalls); the kernel
 * does, by throttling, starving or not waking it. 1 with both in @buf;
 * 0 when not less or either side has no cpu_time.
 */
int threads_cpu_time_lower(const struct sample_set *base,
			   const struct sample_set *cur, char *buf, size_t len);

#endif /* SW_MACHINE_DRIFT_H */
