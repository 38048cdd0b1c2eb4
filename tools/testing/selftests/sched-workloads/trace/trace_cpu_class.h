/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each CPU counts as for the system-wide conditions, and what is
 * kept in step with it: the set of idle CPUs, the waiting tasks of each
 * affinity class on busy CPUs, and the SMT cores whose threads are all
 * busy or all idle. An idle CPU with a task woken or moved onto it is
 * taken: it is about to run that task, so it is no idle CPU another task
 * could use, and the task does not wait behind anyone
 * (trace/trace_metrics.c, "Taken CPUs").
 */
#ifndef SW_TRACE_CPU_CLASS_H
#define SW_TRACE_CPU_CLASS_H

struct trace_report;
struct ta_cpu;
struct ta_task;

enum { CPU_UNKNOWN, CPU_IDLE, CPU_BUSY, CPU_TAKEN };

/*
 * The idle set, the waiting counts and the SMT cores (trace_opts.core_of,
 * when it fits the trace), after ta_affinity_init(); 0, or -1 out of
 * memory.
 */
int ta_cpu_class_init(struct trace_report *r);
int ta_cpu_class(const struct ta_cpu *c);
/* @cpu's class may have changed from @before: the sets follow it. */
void ta_cpu_reclass(struct trace_report *r, int cpu, int before);
/*
 * @t joins (@delta 1) or leaves (-1) the tasks waiting on t->cpu, one of
 * the trace's, counted under its affinity class t->mask.
 */
void ta_cpu_waiters(struct trace_report *r, const struct ta_task *t,
		    int delta);

#endif /* SW_TRACE_CPU_CLASS_H */
