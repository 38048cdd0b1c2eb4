/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A task's affinity and scheduling policy, as the settings (this
 * process's, machine/sched_settings.h), the canary (the CPUs it may
 * measure) and a recording (every task of a program) name them.
 */
#ifndef SW_TASK_SCHED_H
#define SW_TASK_SCHED_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Task @tid's affinity (0: the caller), its mask sized to the kernel's
 * CPU count (its size in bytes in *@setsize), to be CPU_FREE'd; NULL
 * with errno set when it cannot be read.
 */
cpu_set_t *task_affinity(pid_t tid, size_t *setsize);
/* The same as a CPU list ("0-3,6"); NULL when it cannot be read. Freed. */
char *task_affinity_list(pid_t tid);
/*
 * Its policy: "SCHED_OTHER", "SCHED_FIFO:50", with "|SCHED_RESET_ON_FORK"
 * if set. 0, or -1 when the task is gone.
 */
int task_policy_name(pid_t tid, char *buf, size_t size);

#endif /* SW_TASK_SCHED_H */
