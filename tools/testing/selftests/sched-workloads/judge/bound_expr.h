/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Expectations that follow the machine: a bound may be an expression
 * over numbers, "cpus" (CPUs online) and "sysctl:kernel.NAME" (its value
 * in the settings the run recorded while the workload ran, its own
 * sysctls applied; else /proc/sys/kernel/NAME when the check is judged;
 * also a debugfs knob the settings record, "sysctl:sched.latency_ns"),
 * with + - * / and parentheses. For example the CFS share left by RT
 * throttling:
 *
 *   "1 - sysctl:kernel.sched_rt_runtime_us / sysctl:kernel.sched_rt_period_us"
 */
#ifndef SW_EXPR_H
#define SW_EXPR_H

#include <stddef.h>
#include <json-c/json.h>

/*
 * Evaluates @text, sysctls from @settings (machine/sched_settings.h; may
 * be NULL) first. With @dry, sysctls are not read (they count as 1): a
 * syntax check for the verdict parser. Returns 0, or -1 with a message
 * in @why; -2 when what failed first is a debugfs knob (sched.*) the
 * run did not record and the machine does not show (debugfs locked
 * down, a knob of another fair class): the check cannot be judged here.
 */
int expr_eval(const char *text, int dry, struct json_object *settings,
	      double *out, char *why, size_t len);

#endif /* SW_EXPR_H */
