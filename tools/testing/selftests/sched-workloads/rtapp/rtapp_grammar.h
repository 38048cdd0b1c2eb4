/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload grammar of rt-app 1.0 (Debian's rt-app, upstream tag v1.0),
 * checked before rt-app reads a file. rt-app 1.0 ignores a key it does
 * not know, at every level, and turns an event whose value has the wrong
 * type into a zero-length "run": both exit 0, so a typo ("slep") or a
 * newer rt-app's key ("fork", a phase's "cpus") silently changes the
 * workload. Every such key is refused here, with its JSON path.
 */
#ifndef SW_RTAPP_GRAMMAR_H
#define SW_RTAPP_GRAMMAR_H

#include <stdio.h>
#include <json-c/json.h>
#include "lib/util.h"

/*
 * Checks @root (a whole workload file, @file). Returns the number of
 * problems; each is printed as one line "FILE: PATH: reason" to @list
 * when it is not NULL, and @err (SW_EXIT_BAD_WORKLOAD) holds the first,
 * or the count when they were listed.
 */
int rtapp_grammar_check(struct json_object *root, const char *file,
			FILE *list, struct sw_err *err);

/*
 * The NEEDS_* (lib/metric.h) a task of the workload meets: the kinds of
 * event it has, directly or in a phase.
 */
unsigned int rtapp_task_events(struct json_object *task);

#endif /* SW_RTAPP_GRAMMAR_H */
