/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measured window, [trace_opts.start_ns, end_ns] (0: the trace's
 * first or last event): every interval the analysis books is clipped to
 * it, and every count is of events inside it.
 */
#ifndef SW_TRACE_WINDOW_H
#define SW_TRACE_WINDOW_H

#include <stdint.h>

struct trace_report;

/* Length of [a, b) inside the window. */
uint64_t ta_clip(const struct trace_report *r, uint64_t a, uint64_t b);
int ta_in_window(const struct trace_report *r, uint64_t ts);

#endif /* SW_TRACE_WINDOW_H */
