// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: a trace.dat through the trace analyzer, read both
 * ways (trace/tracedat_read.c and libtracecmd), with its metrics and explanation.
 * Accepted, the values are finite or unknown; when both readers accept a
 * file, they must find the same metrics, as a reader that takes a
 * corrupt page for events would not. What trace/tracedat_read.c accepts is also
 * made a workload of (desk/synthesize.c), every thread chosen: that must not
 * crash either, and fails only with a message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "desk/synthesize.h"
#include "trace/trace.h"

static FILE *devnull;

/* 0 and @set filled, or -1 (refused). */
/* Every thread of @r as a workload: output, or an error with a message. */
static void synthesize_all(const struct trace_report *r)
{
	struct synth_opts so = { .name = "fuzz", .source = "trace.dat",
				 .ncpus = 2 };
	struct synth_input *in;
	struct trace_profile *p;
	struct sw_err err = { 0 };
	char *text = NULL;
	size_t n, i;

	if (trace_report_profiles(r, &p, &n, &so.start_ns, &so.window_ns))
		return;
	in = calloc(n ? n : 1, sizeof(*in));
	for (i = 0; in && i < n; i++) {
		in[i].p = &p[i];
		in[i].wakeup_lat_p90_us = NAN;
	}
	if (in && n && synthesize(in, n, &so, &text, &err) && !err.msg[0])
		fuzz_fail("synthesize failed with no message");
	free(text);
	free(in);
	free(p);
}

static int analyze(const char *path, int use_libtracecmd,
		   struct metric_set *set)
{
	struct trace_opts opts = { .use_libtracecmd = use_libtracecmd,
				   .keep_activations = !use_libtracecmd };
	struct sw_err err = { 0 };
	struct trace_report *r;
	int ret = 0;

	if (trace_analyze(path, &opts, &r, &err)) {
		if (!err.msg[0] || !err.code)
			fuzz_fail("refused with no message or exit code");
		return -1;
	}
	if (trace_report_add_metrics(r, &opts, set))
		ret = -1;
	else
		fuzz_check_values(set, use_libtracecmd ? "libtracecmd" :
				  "trace_pages");
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (devnull)
		trace_report_explain(r, devnull);
	if (!use_libtracecmd)
		synthesize_all(r);
	trace_report_free(r);
	return ret;
}

static int same_value(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void compare(const struct metric_set *a, const struct metric_set *b)
{
	size_t i;

	if (a->n != b->n)
		fuzz_fail("trace_pages finds %zu values, libtracecmd %zu",
			  a->n, b->n);
	for (i = 0; i < a->n; i++)
		if (a->v[i].def != b->v[i].def ||
		    strcmp(a->v[i].entity, b->v[i].entity) ||
		    !same_value(a->v[i].value, b->v[i].value))
			fuzz_fail("%s of %s: trace_pages %g, libtracecmd %s of %s %g",
				  a->v[i].def->name, a->v[i].entity,
				  a->v[i].value, b->v[i].def->name,
				  b->v[i].entity, b->v[i].value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("trace.dat", data, size);
	struct metric_set a = { 0 }, b = { 0 };
	int ra, rb;

	ra = analyze(path, 0, &a);
	rb = analyze(path, 1, &b);
	if (!ra && !rb)
		compare(&a, &b);
	metric_set_free(&a);
	metric_set_free(&b);
	return 0;
}
