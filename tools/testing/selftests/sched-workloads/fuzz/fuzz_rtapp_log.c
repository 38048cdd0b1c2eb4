// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: one rt-app log, parsed and turned into metrics as a
 * run's are. Accepted, its values are finite or unknown. (A log of no
 * pass is a thread that never ran: a result that "passes" checks judge,
 * not an error.)
 */
#include <math.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "rtapp/rtapp_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* rt-app names its logs "<basename>-<task>-<index>.log". */
	const char *path = fuzz_file("rt-app-fuzz-0.log", data, size);
	struct metric_set set = { 0 };
	struct sw_err err = { 0 };
	struct rtapp_task_log *t;
	struct rtapp_logs logs;

	t = calloc(1, sizeof(*t));
	if (!t)
		return 0;
	if (rtapp_log_parse(path, "rt-app", t, &err)) {
		if (!err.msg[0] || !err.code)
			fuzz_fail("refused with no message or exit code");
		logs.t = t;
		logs.n = 1;
		rtapp_logs_free(&logs);
		return 0;
	}
	logs.t = t;
	logs.n = 1;
	if (!rtapp_logs_add_metrics(&logs, &set, &err))
		fuzz_check_values(&set, "rt-app log");
	metric_set_free(&set);
	rtapp_logs_free(&logs);
	return 0;
}
