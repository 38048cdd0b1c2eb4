/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running rt-app on a workload, as a child (lib/subprocess.h).
 */
#ifndef SW_RTAPP_RUN_H
#define SW_RTAPP_RUN_H

#include "lib/subprocess.h"
#include "lib/util.h"

/* The rt-app to run: $RTAPP, else "rt-app" from PATH; NULL if none. */
const char *rtapp_binary(void);
/*
 * Runs @rtapp on @json, output to @outlog, as child_run() does (@tick,
 * if not NULL, called with @arg every 10 ms while it runs).
 */
int rtapp_run(const char *rtapp, const char *json, const char *outlog,
	      double timeout_s, child_tick_fn tick, void *arg,
	      struct child_exit *ex, struct sw_err *err);

#endif /* SW_RTAPP_RUN_H */
