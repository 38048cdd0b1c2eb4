/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fork placement (fork.stacked): a thread that, as it was created
 * (sched_wakeup_new), was queued on a CPU that already ran one task and
 * had another waiting, while a CPU it may use was idle. Fork balancing
 * (find_idlest_cpu() for SD_BALANCE_FORK) sends a new task to an idle
 * CPU before it stacks three on one.
 */
#ifndef SW_TRACE_FORK_H
#define SW_TRACE_FORK_H

struct trace_report;
struct ta_task;

/*
 * @t is being created onto @cpu (its born_ts just set): what that CPU
 * and the idle ones were, before @t is queued. 0, or -1 out of memory.
 */
int ta_fork_placed(struct trace_report *r, struct ta_task *t, int cpu);
/*
 * Once the events are read and @t's comm gives its affinity
 * (ta_classify()): 1 stacked beside an idle CPU of its affinity, 0 not,
 * -1 unknown (its creation is not in the trace, or no affinity known).
 */
int ta_fork_stacked(const struct trace_report *r, struct ta_task *t);

#endif /* SW_TRACE_FORK_H */
