// SPDX-License-Identifier: GPL-2.0
/*
 * trace_check: analyse one trace.dat offline and print its trace metrics
 * as metrics.json does. For the trace fixtures test and for by-hand use.
 *
 *   trace_check [-s START_NS] [-e END_NS] [-a] [-A GLOB=CPULIST]...
 *               [-t GLOB]... [-b BUFFER] [-k KTHREADS] FILE
 *
 * -a: tasks without a matching -A may run on every CPU; -A "hog*=1" or
 * "w*=0-1,3" gives the CPUs of tasks whose comm matches; -k a
 * kthreads.txt (trace/kthreads.h). Exits with the analyser's code (7 = bad
 * trace) and its message on stderr; the explanation goes to stderr too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"
#include "checker_opts.h"

static int help(void)
{
	fputs("trace_check [-s START_NS] [-e END_NS] [-a] [-A GLOB=CPUS]... [-t GLOB]... [-b BUFFER] [-k KTHREADS] FILE\n",
	      stderr);
	return SW_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct checker_opts c = { 0 };
	struct trace_opts *o = &c.o;
	struct kthread_list kt = { 0 };
	struct metric_set set = { 0 };
	struct trace_report *r = NULL;
	struct sw_err err = { 0 };
	const char *note;
	int opt, ret = SW_EXIT_PASS;

	while ((opt = getopt(argc, argv, "s:e:aA:t:b:k:")) != -1) {
		switch (checker_opt(&c, opt, optarg)) {
		case 1:
			continue;
		case -1:
			return help();
		}
		switch (opt) {
		case 's':
			o->start_ns = strtoull(optarg, NULL, 10);
			break;
		case 'e':
			o->end_ns = strtoull(optarg, NULL, 10);
			break;
		case 'b':
			o->buffer = optarg;
			break;
		case 'k':
			if (o->kthreads || kthreads_read(optarg, &kt, &err)) {
				fprintf(stderr, "trace_check: %s\n", err.msg[0] ?
					err.msg : "-k given twice, or no such file");
				kthreads_free(&kt);
				return err.code ? err.code : SW_EXIT_USAGE;
			}
			o->kthreads = &kt;
			break;
		default:
			return help();
		}
	}
	if (optind != argc - 1)
		return help();
	checker_opts_done(&c);

	if (trace_analyze(argv[optind], o, &r, &err)) {
		fprintf(stderr, "trace_check: %s\n", err.msg);
		kthreads_free(&kt);
		return err.code;
	}
	note = trace_report_note(r);
	if (note)
		fprintf(stderr, "trace_check: %s: %s\n", argv[optind], note);
	trace_report_explain(r, stderr);
	if (trace_report_add_metrics(r, o, &set) ||
	    metric_set_write_json(&set, stdout)) {
		fprintf(stderr, "trace_check: %s\n", strerror(errno));
		ret = SW_EXIT_RUN_ERROR;
	}
	metric_set_free(&set);
	trace_report_free(r);
	kthreads_free(&kt);
	return ret;
}
