/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The platform a run or a baseline measured: the settings of the machine
 * that neither the kernel under test nor the workload choose, and that
 * move what the battery measures. Two instances of one machine class
 * differ in them (one hypervisor offers halt polling, the other not), so
 * a baseline judges runs of its own platform only; a class may hold
 * baselines of several (judge/baseline.h). The other settings (sysctls,
 * the run's cgroup, timer slack, preemption model, HZ) are the kernel's
 * or the run's to change: they stay diagnostics of a regression, never a
 * reason not to judge it. Why each key is here is in
 * Documentation/dev-tools/sched-workloads/verdicts.rst, "Platforms".
 */
#ifndef SW_PLATFORM_H
#define SW_PLATFORM_H

#include <stddef.h>
#include <json-c/json.h>

/*
 * The keys of the settings (machine/sched_settings.h) that make the
 * platform, NULL-terminated: cpuidle.driver, cpuidle.governor,
 * clocksource, cpufreq.driver, cpufreq.governor, smt.active.
 */
extern const char *const platform_keys[];

/*
 * The platform keys whose values differ between @base (a baseline's
 * settings) and @cur, as settings_diff() writes them into @buf; the
 * count. A key @base does not hold (recorded before it was) is not
 * compared; nor is anything when @base is NULL.
 */
size_t platform_diff(struct json_object *base, struct json_object *cur,
		     char *buf, size_t len);

/*
 * A directory name for the platform of @settings, its values in
 * platform_keys order: "idle-haltpoll.gov-haltpoll.clock-tsc" (absent
 * keys left out; characters outside [A-Za-z0-9_.-] made '_').
 */
void platform_slug(struct json_object *settings, char *buf, size_t len);

#endif /* SW_PLATFORM_H */
