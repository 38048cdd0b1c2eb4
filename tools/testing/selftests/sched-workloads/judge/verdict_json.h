/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verdicts.json: a workload's results as a JSON array, one object per
 * result: name, status, kind, entity, metric, unit, value, limit, room,
 * reps and beyond (absolute), change and detectable (baseline), diag.
 * lab/results.py reads it back.
 */
#ifndef SW_VERDICT_JSON_H
#define SW_VERDICT_JSON_H

#include <stdio.h>
#include "judge/verdict_result.h"

int verdict_results_write_json(const struct verdict_results *res, FILE *f);
/* The same into @path, whole or not at all (lib/util.h); -1 with errno. */
int verdict_results_write_file(const struct verdict_results *res,
			       const char *path);

#endif /* SW_VERDICT_JSON_H */
