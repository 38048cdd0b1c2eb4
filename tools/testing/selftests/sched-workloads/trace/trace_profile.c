// SPDX-License-Identifier: GPL-2.0
/*
 * The trace's tasks as profiles: what a reproducer is synthesized from
 * (desk/synthesize.c), without the analyser's bookkeeping.
 */
#include <stdlib.h>

#include "trace/trace_report.h"
#include "trace/trace_metrics.h"	/* ta_window_ns() */

int trace_report_profiles(const struct trace_report *r,
			  struct trace_profile **out, size_t *n,
			  uint64_t *start_ns, uint64_t *win_ns)
{
	struct trace_profile *p;
	const struct ta_task *t;
	size_t i = 0;

	*out = NULL;
	*n = 0;
	*start_ns = r->ws > r->first_ts ? r->ws : r->first_ts;
	*win_ns = ta_window_ns(r);
	if (!r->ntasks)
		return 0;
	p = calloc(r->ntasks, sizeof(*p));
	if (!p)
		return -1;
	for (t = r->tasks; t && i < r->ntasks; t = t->next, i++) {
		p[i].pid = t->pid;
		p[i].comm = t->comm;
		p[i].prio = t->switch_prio != TA_NO_PRIO ? t->switch_prio :
							   t->prio;
		p[i].first_ns = t->first_ts;
		p[i].last_ns = t->last_ts;
		p[i].cpu_ns = t->cpu_ns;
		p[i].acts = t->acts;
		p[i].nacts = t->nacts;
	}
	*out = p;
	*n = i;
	return 0;
}
