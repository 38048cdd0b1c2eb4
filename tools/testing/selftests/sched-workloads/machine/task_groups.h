/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload's task groups: cgroups of the cpu controller that some of
 * its tasks run in, for what only group scheduling shows (a group's
 * weight against its siblings', CFS bandwidth control). rt-app 1.0 has
 * no cgroup key, so the workload names them in its block:
 *
 *   "cgroups": { "GROUP": { "tasks": [ "TASK", ... ],
 *                           "weight": 1-10000,
 *                           "quota_us": N, "period_us": N }, ... }
 *
 * weight is cgroup v2's cpu.weight (100 the default; v1's cpu.shares is
 * weight * 1024 / 100); quota_us and period_us are CFS bandwidth control
 * (cpu.max, v1's cpu.cfs_quota_us and cpu.cfs_period_us; the period
 * defaults to 100000).
 *
 * Each repetition gets a fresh set: the workload's cgroup
 * "sw-tg-<pid>" at the top of the cpu hierarchy, one child per group
 * (v2: threaded, the workload's cgroup its threaded domain). rt-app
 * goes into the workload's cgroup as it starts, and each thread of a
 * grouped task (a thread's comm is its task's name) into its group
 * while it is still in its start "delay", which such a task must have:
 * a thread that had started its work first is an error of the run,
 * never a silently diluted measurement. Everything is removed after the
 * repetition, after a signal too; one left by a SIGKILLed run is removed
 * by the next.
 */
#ifndef SW_TASK_GROUPS_H
#define SW_TASK_GROUPS_H

#include <limits.h>
#include <sys/types.h>

#include "rtapp/workload.h"

#define TASK_GROUPS_MAX		4
#define TASK_GROUP_TASKS_MAX	4
#define TASK_GROUP_THREADS_MAX	64
/* the start delay a grouped task needs: 5 of the run's 10 ms ticks */
#define TASK_GROUP_MIN_DELAY_US	50000

struct task_group {
	char name[16];
	char tasks[TASK_GROUP_TASKS_MAX][16];
	long long delay_us[TASK_GROUP_TASKS_MAX];
	int ntasks;
	int weight;			/* 0: the default */
	long long quota_us;		/* 0: no limit */
	long long period_us;
	char dir[PATH_MAX];
	int threads;			/* threads moved in */
};

struct task_groups {
	int n;
	struct task_group g[TASK_GROUPS_MAX];
	/* set by task_groups_create() */
	int v2;
	int enabled_cpu;		/* we wrote +cpu at the top (v2) */
	char top[PATH_MAX];		/* the hierarchy's mount point */
	char dir[PATH_MAX];		/* the workload's cgroup */
	/* set while rt-app runs */
	pid_t pid;			/* rt-app's */
	int proc_moved;
	double first_tick_s;
	pid_t seen[TASK_GROUP_THREADS_MAX];
	int nseen;
	char error[512];		/* the first failure to place a thread */
};

/*
 * The "cgroups" of @w's block into @tg (none: tg->n == 0). A malformed
 * block is SW_EXIT_BAD_WORKLOAD naming the key.
 */
int task_groups_parse(const struct workload *w, struct task_groups *tg,
		      struct sw_err *err);
/*
 * Whether this machine can run @tg: 0, or 1 with the reason in @reason
 * (no cpu controller, no CFS bandwidth control, not root).
 */
int task_groups_probe(const struct task_groups *tg, char *reason,
		      size_t len);
/* Creates the cgroups of @tg (removed on any exit, lib/cleanup.h). */
int task_groups_create(struct task_groups *tg, struct sw_err *err);
/* lib/subprocess.h's tick: moves rt-app (@child) and its threads in. */
void task_groups_place(pid_t child, void *arg);
/*
 * After the run: 0 when every grouped task had its threads moved in
 * during their delay, else SW_EXIT_RUN_ERROR saying which did not.
 */
int task_groups_check(const struct task_groups *tg, struct sw_err *err);
/*
 * After rt-app was killed and would not die: its threads still alive
 * that are in a group, with the group's settings, into @buf ("" if
 * none): a thread that never runs again is the group's doing.
 */
void task_groups_stuck(const struct task_groups *tg, char *buf,
		       size_t len);
/* Removes the cgroups of @tg, and undoes what was enabled for them. */
void task_groups_remove(struct task_groups *tg);

#endif /* SW_TASK_GROUPS_H */
