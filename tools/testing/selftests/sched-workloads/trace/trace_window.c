// SPDX-License-Identifier: GPL-2.0
/*
 * The measured window: r->ws and r->we, where we == 0 leaves it open at
 * the end.
 */
#include "trace/trace_report.h"
#include "trace/trace_window.h"

uint64_t ta_clip(const struct trace_report *r, uint64_t a, uint64_t b)
{
	if (a < r->ws)
		a = r->ws;
	if (r->we && b > r->we)
		b = r->we;
	return b > a ? b - a : 0;
}

int ta_in_window(const struct trace_report *r, uint64_t ts)
{
	return ts >= r->ws && (!r->we || ts <= r->we);
}
