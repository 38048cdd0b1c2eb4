// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP output on top of kselftest.h.
 *
 * Every result line carries a name without spaces, skips included:
 * kselftest.h's ksft_test_result_skip() prints none in older kernels and
 * LKFT's parser drops such lines, so skips are printed here.
 */
#include <stdarg.h>
#include <stdio.h>

#include "../../kselftest.h"
#include "run/ktap.h"

void ktap_begin(unsigned int nr_workloads)
{
	ksft_print_header();
	ksft_set_plan(nr_workloads);
}

void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

void ktap_subtests(const struct verdict_results *res)
{
	size_t i;

	if (!res->n)
		return;
	printf("  KTAP version 1\n  1..%zu\n", res->n);
	for (i = 0; i < res->n; i++) {
		const struct verdict_result *r = &res->r[i];

		if (r->status != V_SKIP)
			printf("  # %s\n", r->diag);
		switch (r->status) {
		case V_PASS:
			printf("  ok %zu %s\n", i + 1, r->name);
			break;
		case V_SKIP:
			printf("  ok %zu %s # SKIP %s\n", i + 1, r->name, r->diag);
			break;
		case V_FAIL:
		case V_ERROR:
			printf("  not ok %zu %s\n", i + 1, r->name);
			break;
		}
	}
	fflush(stdout);
}

void ktap_result(const char *name, enum verdict_status st, const char *reason)
{
	switch (st) {
	case V_PASS:
		ksft_test_result_pass("%s\n", name);
		break;
	case V_SKIP:
		ksft_inc_xskip_cnt();
		printf("ok %u %s # SKIP %s\n", ksft_test_num(), name, reason);
		break;
	case V_FAIL:
		ksft_test_result_fail("%s\n", name);
		break;
	case V_ERROR:
		ksft_inc_error_cnt();
		printf("not ok %u %s # error %s\n", ksft_test_num(), name, reason);
		break;
	}
	fflush(stdout);
}

int ktap_finish(void)
{
	int failed = ksft_get_fail_cnt() + ksft_get_error_cnt();
	int passed = ksft_get_pass_cnt();

	ksft_print_cnts();
	fflush(stdout);
	if (failed)
		return KSFT_FAIL;
	return passed ? KSFT_PASS : KSFT_SKIP;
}
