/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's speed during a repetition, measured by the workload itself.
 *
 * The canary (machine/canary.h) measures the machine for a second before a round;
 * a host that halves a vCPU's speed for seconds at a time slips between
 * two canaries. rt-app's own loops see it while it happens: the loops its
 * threads ran (the perf column of every pass, summed) per microsecond they
 * spent on a CPU (the trace's cpu_time, summed). Time on a CPU is what
 * the guest kernel gives; how much work a microsecond of it does is the
 * host's business (its other guests, its SMT siblings), and a scheduler
 * that preempts, throttles or migrates a thread changes the first, not
 * the second. One value per repetition: host.loops_per_us of entity
 * "run", source "host". Its scale depends on the workload (the share of
 * its time on a CPU spent outside run events) and on rt-app's build, so
 * it is only ever compared with the same workload's baseline.
 */
#ifndef SW_HOST_GAUGE_H
#define SW_HOST_GAUGE_H

#include <stddef.h>
#include "rtapp/rtapp_log.h"
#include "lib/metric_set.h"

#define HOST_GAUGE_KEY	"host/run/host.loops_per_us"

/*
 * Adds host.loops_per_us to @set from @logs and the trace's cpu_time of
 * rt-app's threads already in @set; nothing when the trace gave none.
 */
int host_gauge_add(const struct rtapp_logs *logs, struct metric_set *set);
/* Its row of the metric registry (source SRC_HOST). */
extern const struct metric_table host_metric_table;
#endif /* SW_HOST_GAUGE_H */
