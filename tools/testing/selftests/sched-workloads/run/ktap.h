/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output: kselftest.h for the top level, one result line per
 * workload, each preceded by its checks as an indented subtest block.
 */
#ifndef SW_KTAP_H
#define SW_KTAP_H

#include "lib/util.h"
#include "judge/verdict.h"

void ktap_begin(unsigned int nr_workloads);
__printf(1, 2) void ktap_diag(const char *fmt, ...);
/* The checks of one workload, as a nested KTAP block. */
void ktap_subtests(const struct verdict_results *res);
void ktap_result(const char *name, enum verdict_status st, const char *reason);
/* Prints the totals; returns the kselftest exit code for the run. */
int ktap_finish(void);

#endif /* SW_KTAP_H */
