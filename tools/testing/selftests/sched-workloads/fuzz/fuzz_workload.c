// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: a workload file and its verdict block, through every
 * check "check" makes (run/workload_check.c). Accepted, each check must be
 * one that can fail: a named metric, a KTAP-safe selector, finite bounds
 * in order.
 */
#include <math.h>
#include <stdio.h>

#include "fuzz_common.h"
#include "lib/entity_name.h"
#include "run/workload_check.h"

static void check_accepted(const struct workload *w,
			   const struct verdict_block *vb)
{
	size_t i;

	if (!entity_ktap_ok(w->name))
		fuzz_fail("workload name \"%s\"", w->name);
	for (i = 0; i < vb->n; i++) {
		const struct check *ck = &vb->checks[i];

		if (!ck->def)
			fuzz_fail("check %zu names no metric", i);
		if (!ck->selector[0] || !entity_ktap_ok(ck->selector))
			fuzz_fail("check %zu: selector \"%s\"", i, ck->selector);
		if (ck->kind == CHECK_BASELINE)
			continue;
		if (!ck->has_min && !ck->has_max)
			fuzz_fail("check %zu (%s) has no bound", i,
				  ck->def->name);
		if ((ck->has_min && !ck->min_expr[0] && !isfinite(ck->min)) ||
		    (ck->has_max && !ck->max_expr[0] && !isfinite(ck->max)))
			fuzz_fail("check %zu (%s): bounds %g..%g", i,
				  ck->def->name, ck->min, ck->max);
		if (ck->has_min && ck->has_max && !ck->min_expr[0] &&
		    !ck->max_expr[0] && ck->min > ck->max)
			fuzz_fail("check %zu (%s): min %g above max %g", i,
				  ck->def->name, ck->min, ck->max);
	}
}

/* One way of checking: a run's (@list NULL) or check's (every problem). */
static int check_one(const char *path, FILE *list)
{
	struct sw_err err = { 0 };
	struct verdict_block vb;
	struct workload w;
	int ok;

	ok = !workload_check(path, &w, &vb, list, &err);
	if (ok)
		check_accepted(&w, &vb);
	else if (!err.msg[0] || !err.code)
		fuzz_fail("refused with no message or exit code");
	verdict_block_free(&vb);
	workload_free(&w);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("fuzz.json", data, size);
	static FILE *devnull;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	/* listing every problem must not let through what a run refuses */
	if (check_one(path, devnull) && !check_one(path, NULL))
		fuzz_fail("check accepts what a run refuses");
	return 0;
}
