/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work conservation (wc.*): the time during which some CPU idles, not
 * taken, while a task allowed on it waits runnable behind another on a
 * busy CPU (Lozi et al.), in stretches. Only with affinity classes
 * (trace_opts): without them no task is known to be allowed anywhere.
 */
#ifndef SW_TRACE_WORK_CONSERVATION_H
#define SW_TRACE_WORK_CONSERVATION_H

#include <stdint.h>

struct trace_report;

/* Adds @d if the condition holds (ta_advance()). */
void ta_wc_advance(struct trace_report *r, uint64_t d);
/* Whether the condition holds as of @ts: a stretch starts or ends. */
void ta_wc_reevaluate(struct trace_report *r, uint64_t ts);
/* Ends the stretch still open at @end, the window's. */
void ta_wc_finish(struct trace_report *r, uint64_t end);

#endif /* SW_TRACE_WORK_CONSERVATION_H */
