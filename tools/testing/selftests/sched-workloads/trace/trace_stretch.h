/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stretches of a condition (struct ta_stretch): each one, as it ends, is
 * counted and kept if it is among the longest.
 */
#ifndef SW_TRACE_STRETCH_H
#define SW_TRACE_STRETCH_H

#include <stdint.h>

struct trace_report;
struct ta_stretch;
struct ta_stretches;

/*
 * Ends @e at @ts: its length is the part inside the window, and @s counts
 * it and keeps it among its longest, unless that part is empty.
 */
void ta_stretch_end(const struct trace_report *r, struct ta_stretches *s,
		    struct ta_stretch *e, uint64_t ts);

#endif /* SW_TRACE_STRETCH_H */
