/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "check" and a run ask of a workload file before rt-app starts it:
 * parsed, its verdict block valid, its selectors naming tasks, CPUs,
 * policies and sysctls this machine has. Nothing on the machine changes.
 */
#ifndef SW_WORKLOAD_CHECK_H
#define SW_WORKLOAD_CHECK_H

#include <stdio.h>
#include "lib/util.h"
#include "judge/verdict.h"
#include "rtapp/workload.h"

/*
 * Loads @path into @w and its verdict block into @vb (both to be freed by
 * the caller, also on error). Errors name the file and the place; the
 * keys rt-app 1.0 would ignore or misread are each listed on @list when
 * it is not NULL (rtapp/rtapp_grammar.h).
 */
int workload_check(const char *path, struct workload *w,
		   struct verdict_block *vb, FILE *list, struct sw_err *err);

#endif /* SW_WORKLOAD_CHECK_H */
