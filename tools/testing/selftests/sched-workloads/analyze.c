// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads analyze: the measuring half of a run, on files.
 *
 * Without --workload it prints the metrics as JSON; with one, it
 * evaluates the workload's checks and prints them as KTAP (the metrics
 * then go to --metrics-out, if given).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "ktap.h"
#include "metrics.h"
#include "rtapp_log.h"
#include "verdict.h"
#include "workload.h"

struct analyze_opts {
	const char *logs, *basename, *trace, *workload, *metrics_out;
};

static const struct option analyze_long_opts[] = {
	{ "logs", required_argument, NULL, 'l' },
	{ "basename", required_argument, NULL, 'n' },
	{ "trace", required_argument, NULL, 't' },
	{ "workload", required_argument, NULL, 'W' },
	{ "metrics-out", required_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 },
};

static void analyze_usage(void)
{
	fprintf(stderr,
		"usage: sched-workloads analyze [--logs DIR [--basename rt-app]]\n"
		"                               [--trace trace.dat] [--workload FILE]\n"
		"                               [--metrics-out FILE]\n");
}

static int add_rtapp_metrics(const struct analyze_opts *o,
			     struct metric_set *set, struct sw_err *err)
{
	struct rtapp_logs logs;
	size_t i;
	int ret = 0;

	if (rtapp_logs_load(o->logs, o->basename, &logs, err))
		return -1;
	for (i = 0; i < logs.n && !ret; i++)
		ret = metric_set_add_entity(set, SRC_RTAPP_TASK, &logs.t[i],
					    logs.t[i].name, logs.t[i].task, -1);
	rtapp_logs_free(&logs);
	if (ret)
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	return ret;
}

static int judge_workload(const struct analyze_opts *o,
			  const struct metric_set *set, struct sw_err *err)
{
	struct verdict_results res = { 0 };
	struct verdict_block vb;
	enum verdict_status st;
	struct workload w;

	if (workload_load(o->workload, &w, err))
		return -1;
	if (verdict_parse(w.block, o->workload, &vb, err)) {
		workload_free(&w);
		return -1;
	}
	ktap_begin(1);
	ktap_diag("%s: %s", w.name, w.description);
	if (verdict_evaluate(&vb, set, w.name, 0, &res)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		st = V_ERROR;
	} else {
		st = verdict_overall(&res);
	}
	ktap_subtests(&res);
	ktap_result(w.name, st, "every check skipped");
	verdict_results_free(&res);
	verdict_block_free(&vb);
	workload_free(&w);
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = { .basename = "rt-app" };
	struct metric_set set = { 0 };
	struct sw_err err = { 0 };
	FILE *mf;
	int c;

	while ((c = getopt_long(argc, argv, "", analyze_long_opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o.logs = optarg;
			break;
		case 'n':
			o.basename = optarg;
			break;
		case 't':
			o.trace = optarg;
			break;
		case 'W':
			o.workload = optarg;
			break;
		case 'm':
			o.metrics_out = optarg;
			break;
		default:
			analyze_usage();
			return SW_EXIT_USAGE;
		}
	}
	if ((!o.logs && !o.trace) || optind != argc) {
		analyze_usage();
		return SW_EXIT_USAGE;
	}
	if (o.logs && add_rtapp_metrics(&o, &set, &err))
		goto fail;
	if (o.metrics_out || !o.workload) {
		mf = o.metrics_out ? fopen(o.metrics_out, "w") : stdout;
		if (!mf || metric_set_write_json(&set, mf)) {
			sw_err_set(&err, SW_EXIT_RUN_ERROR, "%s: cannot write",
				   o.metrics_out ? o.metrics_out : "stdout");
			goto fail;
		}
		if (mf != stdout)
			fclose(mf);
	}
	if (o.workload) {
		if (judge_workload(&o, &set, &err))
			goto fail;
		metric_set_free(&set);
		return ktap_finish();
	}
	metric_set_free(&set);
	return 0;
fail:
	metric_set_free(&set);
	fprintf(stderr, "sched-workloads: %s\n", err.msg);
	return err.code;
}
