/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running rt-app as a child in its own process group, with a timeout.
 */
#ifndef SW_RTAPP_RUN_H
#define SW_RTAPP_RUN_H

#include <stdint.h>
#include "util.h"

struct rtapp_exit {
	int exited;		/* 1: exited with code; 0: killed */
	int code;		/* exit code, or signal number */
	int timed_out;
	double wall_s;
	uint64_t end_ns;	/* CLOCK_MONOTONIC when it was seen gone */
};

/* The rt-app to run: $RTAPP, else "rt-app" from PATH; NULL if none. */
const char *rtapp_binary(void);
/*
 * Runs @rtapp on @json, output to @outlog; kills the whole process group
 * after @timeout_s or on a signal to us (SW_EXIT_RUN_ERROR then).
 */
int rtapp_run(const char *rtapp, const char *json, const char *outlog,
	      double timeout_s, struct rtapp_exit *ex, struct sw_err *err);

#endif /* SW_RTAPP_RUN_H */
