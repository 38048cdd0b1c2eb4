/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between two settings objects (machine/sched_settings.h),
 * a baseline's and a run's, in one line a verdict can carry.
 */
#ifndef SW_SETTINGS_DIFF_H
#define SW_SETTINGS_DIFF_H

#include <stddef.h>
#include <json-c/json.h>

/*
 * Writes "key base -> cur" for every key whose value differs, sorted by
 * key and separated by ", " ("(unset)" for a key one side lacks; of two
 * word lists, only the words that differ) into @buf, cut with "..." at an
 * item's end when @len is short. Returns how many keys differ: 0 with an
 * empty @buf when @base is NULL (recorded before settings were).
 */
size_t settings_diff(struct json_object *base, struct json_object *cur,
		     char *buf, size_t len);

#endif /* SW_SETTINGS_DIFF_H */
