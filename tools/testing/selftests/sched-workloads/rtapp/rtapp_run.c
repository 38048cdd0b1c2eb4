// SPDX-License-Identifier: GPL-2.0
/*
 * Finding rt-app and running it on a workload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtapp/rtapp_run.h"

const char *rtapp_binary(void)
{
	static char found[4096];
	const char *env = getenv("RTAPP");
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save;

	if (env && *env)
		return access(env, X_OK) ? NULL : env;
	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (snprintf(found, sizeof(found), "%s/rt-app", dir) < (int)sizeof(found) &&
		    !access(found, X_OK))
			return found;
	}
	return NULL;
}

int rtapp_run(const char *rtapp, const char *json, const char *outlog,
	      double timeout_s, child_tick_fn tick, void *arg,
	      struct child_exit *ex, struct sw_err *err)
{
	char *const argv[] = { "rt-app", (char *)json, NULL };

	return child_run(rtapp, argv, outlog, timeout_s, tick, arg, ex, err);
}
