/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workloads the kernel must refuse ("refusal" in the block): a
 * SCHED_DEADLINE set over the admission limit, say. rt-app runs once;
 * the workload passes when rt-app fails with the expected message, and
 * fails when the kernel let it run.
 *
 *   "refusal": { "output": "Device or resource busy", "why": "..." }
 */
#ifndef SW_REFUSAL_H
#define SW_REFUSAL_H

#include <json-c/json.h>
#include "rtapp/rtapp_run.h"
#include "lib/util.h"
#include "judge/verdict.h"

struct refusal {
	int expected;		/* the block has a "refusal" */
	char output[128];	/* text rt-app's output must contain */
	char why[256];
};

int refusal_parse(struct json_object *block, const char *file,
		  struct refusal *rf, struct sw_err *err);
/* One result, "<prefix>.rtapp.refused", from how rt-app ended. */
void refusal_judge(const struct refusal *rf, const char *prefix,
		   const struct child_exit *ex, const char *outlog,
		   struct verdict_result *r);

#endif /* SW_REFUSAL_H */
