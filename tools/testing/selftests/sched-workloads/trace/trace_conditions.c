// SPDX-License-Identifier: GPL-2.0
/*
 * The conditions over time: r->last_adv is where they were last
 * integrated, never moved backwards.
 */
#include "trace/trace_conditions.h"
#include "trace/trace_report.h"
#include "trace/trace_rt_placement.h"
#include "trace/trace_window.h"
#include "trace/trace_work_conservation.h"

void ta_advance(struct trace_report *r, uint64_t ts)
{
	uint64_t d;

	if (ts <= r->last_adv)
		return;
	d = ta_clip(r, r->last_adv, ts);
	ta_wc_advance(r, d);
	if (r->stacked_active)
		r->stacked_ns += d;
	ta_rt_advance(r, d);
	r->last_adv = ts;
}

void ta_reevaluate(struct trace_report *r, uint64_t ts)
{
	/* a core runs two tasks on its threads while another core idles */
	r->stacked_active = r->ncores_full && r->ncores_empty;
	ta_wc_reevaluate(r, ts);
	ta_rt_reevaluate(r, ts);
}

void ta_conditions_finish(struct trace_report *r, uint64_t end)
{
	ta_advance(r, end);
	ta_wc_finish(r, end);
	ta_rt_finish(r, end);
}
