/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RT placement (rt.wait_while_lower): the time an RT task waits runnable
 * while some CPU of its affinity idles, runs a lower task or is taken by
 * one, in stretches per task. The RT tasks waiting, whatever their
 * affinity, are kept on the report's rt_waiting list: they are the only
 * tasks the condition is evaluated for, and they make the CPUs they are
 * about to take busy for one another.
 */
#ifndef SW_TRACE_RT_PLACEMENT_H
#define SW_TRACE_RT_PLACEMENT_H

#include <stdint.h>

struct trace_report;
struct ta_task;

/* @t's state or prio changed: on the list iff waiting with an RT prio. */
void ta_rt_list_update(struct trace_report *r, struct ta_task *t);
/* @t, listed, stops waiting; a stretch of it ends at r->last_adv. */
void ta_rt_list_del(struct trace_report *r, struct ta_task *t);
/* Adds @d to the listed tasks waiting while lower (ta_advance()). */
void ta_rt_advance(struct trace_report *r, uint64_t d);
/* Starts and ends the listed tasks' stretches as of @ts. */
void ta_rt_reevaluate(struct trace_report *r, uint64_t ts);
/* Ends the stretches still open at @end, the window's. */
void ta_rt_finish(struct trace_report *r, uint64_t end);

#endif /* SW_TRACE_RT_PLACEMENT_H */
