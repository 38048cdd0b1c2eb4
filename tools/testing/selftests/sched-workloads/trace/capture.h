/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracefs instance a run records into: created with the mono clock
 * (rt-app's timestamps are CLOCK_MONOTONIC), the scheduler events enabled,
 * saved to trace.dat and destroyed on every exit path.
 */
#ifndef SW_CAPTURE_H
#define SW_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include "lib/util.h"

struct tracefs_instance;

struct capture {
	struct tracefs_instance *inst;
	char name[64];
	size_t buffer_kb;	/* per CPU */
	unsigned int nr_events;	/* events enabled */
};

/* Removes instances left by sched-workloads runs that no longer exist. */
void capture_sweep_stale(void);
/* Checks tracefs and the events runs need; a reason string when not. */
const char *capture_unavailable(void);
int capture_start(struct capture *c, size_t buffer_kb, struct sw_err *err);
int capture_stop(struct capture *c);
/* Events the ring buffer overwrote or dropped since the start. */
uint64_t capture_lost_events(struct capture *c);
/* Drains the instance into an uncompressed trace.dat (trace/tracedat_write.h). */
int capture_save(struct capture *c, const char *path, struct sw_err *err);
void capture_destroy(struct capture *c);

#endif /* SW_CAPTURE_H */
