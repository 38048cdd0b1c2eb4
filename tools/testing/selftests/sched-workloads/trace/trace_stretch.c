// SPDX-License-Identifier: GPL-2.0
/*
 * The longest stretches are kept by insertion: there are TA_STRETCHES of
 * them, and far fewer stretches than events.
 */
#include "trace/trace_report.h"
#include "trace/trace_stretch.h"
#include "trace/trace_window.h"

void ta_stretch_end(const struct trace_report *r, struct ta_stretches *s,
		    struct ta_stretch *e, uint64_t ts)
{
	int i;

	e->len = ta_clip(r, e->start, ts);
	if (!e->len)
		return;
	s->count++;
	for (i = TA_STRETCHES - 1; i >= 0 && s->top[i].len < e->len; i--) {
		if (i < TA_STRETCHES - 1)
			s->top[i + 1] = s->top[i];
		s->top[i] = *e;
	}
}
