/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings that shape scheduling on this machine, for this process
 * (rt-app inherits them): scheduler sysctls and debugfs knobs, the cpu
 * and cpuset cgroup, timer slack, nice, affinity and policy, online and
 * isolated CPUs, cpufreq and cpuidle. Each run and each baseline records
 * them, so that a verdict can say what differs from its baseline's
 * (machine/settings_diff.h).
 *
 * A settings object is flat, of string values, as the kernel prints
 * them: a few are lists of words (sched.features).
 */
#ifndef SW_SETTINGS_H
#define SW_SETTINGS_H

#include <stddef.h>
#include <json-c/json.h>
#include "lib/util.h"

/* What separates the words of a value. */
#define SETTINGS_BLANKS	" \t\n"

/*
 * A new settings object, keys in sorted order, e.g.
 * "kernel.sched_rt_runtime_us": "950000". Every /proc and /sys path is
 * read under @root ("" or NULL: the real system); what cannot be read is
 * left out. NULL only when out of memory.
 */
struct json_object *settings_read(const char *root);

/*
 * The settings recorded in @doc, a fingerprint or a baseline file (its
 * "fingerprint"), borrowed: *@out is NULL when @doc has none. Returns -1
 * with @err when they are not an object of strings.
 */
int settings_of(struct json_object *doc, const char *file,
		struct json_object **out, struct sw_err *err);

/* @o's *@n keys, sorted, borrowed from @o; NULL when out of memory. */
const char **settings_sorted_keys(struct json_object *o, size_t *n);
/* Is @w (@wlen bytes) one of the words of the value @s? */
int settings_has_word(const char *s, const char *w, size_t wlen);

/* The CPUs online now, as the kernel lists them ("0-3"); NULL if unknown. */
char *settings_online_cpus(void);
/*
 * The RT bandwidth now: kernel.sched_rt_runtime_us (-1: unlimited) and
 * kernel.sched_rt_period_us. -1 when unreadable.
 */
int settings_rt_bandwidth(long *runtime_us, long *period_us);

#endif /* SW_SETTINGS_H */
