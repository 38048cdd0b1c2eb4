/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings that shape scheduling on this machine, for this process
 * (rt-app inherits them): scheduler sysctls and debugfs knobs, the cpu
 * and cpuset cgroup, timer slack, nice, affinity and policy, online and
 * isolated CPUs, cpufreq and cpuidle. Each run and each baseline records
 * them, so that a verdict can say what differs from its baseline's.
 */
#ifndef SW_SETTINGS_H
#define SW_SETTINGS_H

#include <sys/types.h>
#include <json-c/json.h>
#include "lib/util.h"

/*
 * A new flat object of string values, keys in sorted order, e.g.
 * "kernel.sched_rt_runtime_us": "950000". Every /proc and /sys path is
 * read under @root ("" or NULL: the real system); what cannot be read is
 * left out. NULL only when out of memory.
 */
struct json_object *settings_read(const char *root);

/*
 * Writes "key base -> cur" for every key whose value differs, sorted by
 * key and separated by ", " ("(unset)" for a key one side lacks; of two
 * word lists, only the words that differ) into @buf, cut with "..." at an
 * item's end when @len is short. Returns how many keys differ: 0 with an
 * empty @buf when @base is NULL (recorded before settings were).
 */
size_t settings_diff(struct json_object *base, struct json_object *cur,
		     char *buf, size_t len);

/*
 * The settings recorded in @doc, a fingerprint or a baseline file (its
 * "fingerprint"), borrowed: *@out is NULL when @doc has none. Returns -1
 * with @err when they are not an object of strings.
 */
int settings_of(struct json_object *doc, const char *file,
		struct json_object **out, struct sw_err *err);

/* The CPUs online now, as the kernel lists them ("0-3"); NULL if unknown. */
char *settings_online_cpus(void);
/*
 * The RT bandwidth now: kernel.sched_rt_runtime_us (-1: unlimited) and
 * kernel.sched_rt_period_us. -1 when unreadable.
 */
int settings_rt_bandwidth(long *runtime_us, long *period_us);

/*
 * Task @tid's affinity as a CPU list ("0-3,6"), its mask sized to the
 * kernel's CPU count; NULL when it cannot be read. To be freed.
 */
char *settings_affinity_list(pid_t tid);
/*
 * Its policy: "SCHED_OTHER", "SCHED_FIFO:50", with "|SCHED_RESET_ON_FORK"
 * if set. 0, or -1 when the task is gone.
 */
int settings_policy_name(pid_t tid, char *buf, size_t size);

#endif /* SW_SETTINGS_H */
