// SPDX-License-Identifier: GPL-2.0
/*
 * Setting and restoring sysctls around a run.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "sysctl.h"

#define MAX_SYSCTLS 8

static struct {
	char path[160];
	char old[64];
} saved[MAX_SYSCTLS];
static int nsaved;
static int pushed;		/* on the cleanup stack */

static int name_ok(const char *name)
{
	const char *p;

	if (!*name || name[0] == '.' || strstr(name, ".."))
		return 0;
	for (p = name; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    *p != '_' && *p != '.')
			return 0;
	return 1;
}

int sysctl_validate(struct json_object *map, const char *file,
		    struct sw_err *err)
{
	if (!map)
		return 0;
	if (!json_object_is_type(map, json_type_object) ||
	    json_object_object_length(map) > MAX_SYSCTLS)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: sched-workloads.sysctl: an object of at most %d \"kernel.NAME\": value",
				  file, MAX_SYSCTLS);
	json_object_object_foreach(map, name, val) {
		if (!name_ok(name))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: sched-workloads.sysctl.%s: not a sysctl name",
					  file, name);
		if (!json_object_is_type(val, json_type_int))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: sched-workloads.sysctl.%s: not an integer",
					  file, name);
	}
	return 0;
}

static int write_value(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fputs(value, f) == EOF)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static void sysctl_cleanup(void *arg)
{
	(void)arg;
	while (nsaved > 0) {
		nsaved--;
		write_value(saved[nsaved].path, saved[nsaved].old);
	}
}

void sysctl_restore(void)
{
	if (pushed)
		cleanup_pop(saved);
	pushed = 0;
}

int sysctl_apply(struct json_object *map, const char *file, char *reason,
		 size_t len, struct sw_err *err)
{
	if (!map)
		return 0;
	if (sysctl_validate(map, file, err))
		return -1;
	if (cleanup_push(sysctl_cleanup, saved))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "cleanup stack full");
	pushed = 1;
	json_object_object_foreach(map, name, val) {
		char *p, value[32];
		FILE *f;
		int e;

		snprintf(saved[nsaved].path, sizeof(saved[nsaved].path),
			 "/proc/sys/%s", name);
		for (p = saved[nsaved].path + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		f = fopen(saved[nsaved].path, "r");
		if (!f || !fgets(saved[nsaved].old, sizeof(saved[nsaved].old), f)) {
			snprintf(reason, len, "sysctl %s: cannot read: %s", name,
				 strerror(errno));
			if (f)
				fclose(f);
			goto refused;
		}
		fclose(f);
		snprintf(value, sizeof(value), "%lld",
			 (long long)json_object_get_int64(val));
		nsaved++;
		e = write_value(saved[nsaved - 1].path, value);
		if (e) {
			snprintf(reason, len, "kernel refuses sysctl %s = %s: %s",
				 name, value, strerror(-e));
			goto refused;
		}
	}
	return 0;
refused:
	sysctl_restore();
	return 1;
}
