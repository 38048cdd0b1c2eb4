/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tasks of a trace: a struct ta_task for each incarnation of a pid,
 * every one on the report's list, first seen first, the live ones found
 * by pid through its hash.
 */
#ifndef SW_TRACE_TASKS_H
#define SW_TRACE_TASKS_H

#include <stdint.h>

struct trace_report;
struct ta_task;

/*
 * The live task of @pid, new from @ts if there is none; its last event is
 * at @ts and its comm @comm when set. NULL for @pid <= 0, and when out of
 * memory (r->failed set).
 */
struct ta_task *ta_task_get(struct trace_report *r, int pid,
			    const char *comm, uint64_t ts);
/* The live task of @pid, or NULL. */
struct ta_task *ta_task_find(const struct trace_report *r, int pid);
/* @t is no longer live: the next task of its pid is a new incarnation. */
void ta_task_unhash(struct trace_report *r, struct ta_task *t);

#endif /* SW_TRACE_TASKS_H */
