/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rt-app's metrics: what each thread's log says of its passes (slack,
 * wakeup latency, missed periods, run inflation, rate), per thread and
 * for the threads of a task pooled.
 */
#ifndef SW_RTAPP_METRICS_H
#define SW_RTAPP_METRICS_H

#include "lib/metric_set.h"
#include "lib/util.h"
#include "rtapp/rtapp_log.h"

/* Its rows of the metric registry (source SRC_RTAPP_TASK). */
extern const struct metric_table rtapp_metric_table;

/* Every rt-app metric of every thread, into @set. */
int rtapp_logs_add_metrics(const struct rtapp_logs *logs,
			   struct metric_set *set, struct sw_err *err);

#endif /* SW_RTAPP_METRICS_H */
