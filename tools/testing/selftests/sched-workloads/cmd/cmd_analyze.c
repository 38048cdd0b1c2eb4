// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads analyze: the measuring half of a run, on files.
 *
 * Without --workload it prints the metrics as JSON; with one, it
 * evaluates the workload's checks and prints them as KTAP (the metrics
 * then go to --metrics-out, if given, and the verdicts as a run's
 * verdicts.json to --verdicts-out). --explain prints instead where
 * the trace's wc.* and rt.wait_while_lower come from, and who else ran.
 * A kthreads.txt in the --logs directory says which pids were kernel
 * threads (trace/kthreads.h); without it they are known by name.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "judge/baseline.h"
#include "lib/event_hist.h"
#include "run/ktap.h"
#include "judge/metric_registry.h"
#include "judge/samples.h"
#include "run/measure.h"
#include "judge/verdict.h"
#include "judge/verdict_json.h"
#include "rtapp/workload.h"
#include "lib/results.h"

struct analyze_opts {
	const char *logs, *basename, *trace, *workload, *metrics_out;
	const char *events_out, *verdicts_out;
	const char *buffer, *baseline;
	int all_cpus, explain, explain_json, use_libtracecmd;
	uint64_t timeline_start, timeline_end;	/* ns; end 0: none */
};

/*
 * The workload, when given, scopes the trace as in a run: its threads,
 * their affinity, the window of the logs. Without one, every task of the
 * trace gets metrics and work conservation needs --all-cpus.
 */
static int measure(const struct analyze_opts *o, struct metric_set *set,
		   unsigned long long *lost, struct sw_err *err)
{
	struct measure_in in = {
		.logs = o->logs, .basename = o->basename, .trace = o->trace,
		.all_cpus = o->all_cpus, .buffer = o->buffer,
		.use_libtracecmd = o->use_libtracecmd,
		.explain = o->explain ? stdout : NULL,
		.timeline = o->timeline_end ? stdout : NULL,
		.timeline_start_ns = o->timeline_start,
		.timeline_end_ns = o->timeline_end,
	};
	struct json_object *explain = NULL;
	struct measure_out out;
	struct workload w;
	int ret;

	if (o->workload) {
		if (workload_load(o->workload, &w, err))
			return -1;
		in.w = &w;
	}
	if (o->explain_json)
		in.explain_json = &explain;
	ret = measure_files(&in, set, &out, err);
	if (o->workload)
		workload_free(&w);
	if (explain)
		printf("%s\n", json_object_to_json_string_ext(explain,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(explain);
	*lost = out.lost_events;
	return ret;
}

static int judge_workload(const struct analyze_opts *o,
			  const struct metric_set *set, unsigned long long lost,
			  struct sw_err *err)
{
	struct sample_set cur = { 0 };
	struct event_set events = { 0 };
	struct baseline base = { 0 };
	struct verdict_results res = { 0 };
	struct verdict_round round = { .cur = &cur, .events = &events };
	struct verdict_input in = {
		.rounds = &round, .nrounds = 1, .lost_events = lost,
		.no_base = "no baseline given (--baseline FILE)",
	};
	struct verdict_block vb;
	enum verdict_status st;
	struct workload w;
	int ret = -1;

	if (workload_load(o->workload, &w, err))
		return -1;
	if (verdict_parse(w.block, o->workload, &vb, err))
		goto out_w;
	if (o->baseline) {
		ret = baseline_load(o->baseline, &base, err);
		if (ret > 0)
			sw_err_set(err, SW_EXIT_USAGE, "%s: no such file", o->baseline);
		if (ret)
			goto out_vb;
		in.base = &base;
	}
	ret = -1;
	if (sample_set_add_rep(&cur, set) ||
	    (set->events && event_set_add_rep(&events, set->events))) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		goto out_vb;
	}
	in.prefix = w.name;
	ktap_begin(1);
	ktap_diag("%s: %s", w.name, w.description);
	if (verdict_evaluate(&vb, &in, &res)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		st = V_ERROR;
	} else {
		st = verdict_overall(&res);
	}
	if (o->verdicts_out &&
	    verdict_results_write_file(&res, o->verdicts_out)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "cannot write %s: %s",
			   o->verdicts_out, strerror(errno));
		verdict_results_free(&res);
		goto out_vb;
	}
	ktap_subtests(&res);
	ktap_result(w.name, st, "every check skipped");
	verdict_results_free(&res);
	ret = 0;
out_vb:
	sample_set_free(&cur);
	event_set_free(&events);
	baseline_free(&base);
	verdict_block_free(&vb);
out_w:
	workload_free(&w);
	return ret;
}

/*
 * The bound keeps the output (a few segments per millisecond per CPU)
 * small: it is for a figure of a stretch, not a trace dump.
 */
#define TIMELINE_MAX_S	10

/*
 * A time of the trace clock as --explain prints it, "2012.620021" (at most
 * 10 digits and 9 decimals), read exactly into ns; *@end: what follows.
 */
static int parse_trace_ts(const char *s, const char **end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int n = 0, d = 0;

	for (; *s >= '0' && *s <= '9' && n < 10; s++, n++)
		sec = sec * 10 + (uint64_t)(*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9' && d < 9; s++, d++)
			frac = frac * 10 + (uint64_t)(*s - '0');
	if (!n || (*s >= '0' && *s <= '9'))
		return -1;
	for (; d < 9; d++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	*end = s;
	return 0;
}

/* "START,END": seconds of the trace clock, as --explain prints them. */
static int parse_timeline(const char *arg, void *dest, char *why, size_t len)
{
	struct analyze_opts *o = dest;
	uint64_t start, end;
	const char *p;

	if (parse_trace_ts(arg, &p, &start) || *p != ',' ||
	    parse_trace_ts(p + 1, &p, &end) || *p || end <= start) {
		snprintf(why, len, "START,END in seconds of the trace clock, START < END, not \"%s\"",
			 arg);
		return -1;
	}
	if (end - start > TIMELINE_MAX_S * 1000000000ull) {
		snprintf(why, len, "%s: at most %d s apart", arg,
			 TIMELINE_MAX_S);
		return -1;
	}
	o->timeline_start = start;
	o->timeline_end = end;
	return 0;
}

static int parse_reader(const char *arg, void *dest, char *why, size_t len)
{
	if (strcmp(arg, "pages") && strcmp(arg, "libtracecmd")) {
		snprintf(why, len, "pages or libtracecmd, not \"%s\"", arg);
		return -1;
	}
	*(int *)dest = !strcmp(arg, "libtracecmd");
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = { .basename = RESULTS_RTAPP_BASENAME };
	struct event_rep ev = { 0 };
	struct metric_set set = { .events = &ev };
	struct sw_err err = { 0 };
	unsigned long long lost;
	const struct cmd_option opts[] = {
		OPT_TEXT("logs", 0, &o.logs, "DIR",
			 "rt-app's logs (and kthreads.txt, the kernel threads then)"),
		OPT_TEXT("basename", 0, &o.basename, "NAME",
			 "rt-app's log_basename"),
		OPT_TEXT("trace", 0, &o.trace, "FILE",
			 "the trace.dat"),
		OPT_TEXT("workload", 0, &o.workload, "FILE",
			 "the checks to judge; its tasks and their \"cpus\" also say\n"
			 "which threads get per-task trace metrics and where they may\n"
			 "run (work conservation)"),
		OPT_TEXT("metrics-out", 0, &o.metrics_out, "FILE",
			 "the metrics as JSON, with --workload"),
		OPT_TEXT("verdicts-out", 0, &o.verdicts_out, "FILE",
			 "the verdicts as JSON, with --workload (a run's\n"
			 "verdicts.json)"),
		OPT_TEXT("events-out", 0, &o.events_out, "FILE",
			 "the series behind the tail metrics, as histograms\n"
			 "(a repetition's events.json)"),
		OPT_TEXT("buffer", 0, &o.buffer, "NAME",
			 "the trace.dat buffer (instance) to read"),
		OPT_FLAG("all-cpus", 0, &o.all_cpus,
			 "every task of the trace may run on every CPU (a trace\n"
			 "from elsewhere, without a workload to say so)"),
		OPT_TEXT("baseline", 0, &o.baseline, "FILE",
			 "a baseline file for the workload's baseline checks"),
		OPT_FLAG("explain", 0, &o.explain,
			 "where the trace's wc.* and rt.wait_while_lower come from\n"
			 "(the longest stretches: when, which CPU, which tasks) and\n"
			 "the tasks outside the workload that ran most, instead of\n"
			 "metrics or verdicts"),
		OPT_FLAG("explain-json", 0, &o.explain_json,
			 "the same as JSON (a repetition's explain.json)"),
		OPT_CALL("timeline", 0, &o, "START,END",
			 "what ran and waited on each CPU between two times of the\n"
			 "trace clock (s, as --explain prints them; at most 10 s\n"
			 "apart), as JSON, instead of metrics or verdicts",
			 parse_timeline),
		OPT_CALL("reader", 0, &o.use_libtracecmd, "pages|libtracecmd",
			 "how to read a version 7 trace.dat: its ring-buffer pages\n"
			 "(the default) or libtracecmd's iteration (for cross-checks)",
			 parse_reader),
	};
	const struct cmd_usage u = {
		.cmd = argv[0],
		.synopsis = "[--logs DIR] [--trace FILE] [--workload FILE] [options]",
		.what = "The measuring half of a run, on files: the metrics as JSON;\n"
			"with --workload, its verdicts as KTAP.",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
	};
	FILE *mf;
	int first, explain;

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	explain = o.explain || o.explain_json;
	if ((!o.logs && !o.trace) || ((explain || o.timeline_end) && !o.trace) ||
	    (explain && o.timeline_end) || (o.explain && o.explain_json)) {
		options_usage(&u, stderr);
		return SW_EXIT_USAGE;
	}
	if (measure(&o, &set, &lost, &err))
		goto fail;
	if (o.metrics_out || (!o.workload && !explain && !o.timeline_end)) {
		mf = o.metrics_out ? fopen(o.metrics_out, "w") : stdout;
		if (!mf || metric_set_write_json(&set, mf)) {
			sw_err_set(&err, SW_EXIT_RUN_ERROR, "%s: cannot write",
				   o.metrics_out ? o.metrics_out : "stdout");
			goto fail;
		}
		if (mf != stdout)
			fclose(mf);
	}
	if (o.events_out) {
		struct json_object *ej = event_rep_to_json(&ev);

		if (!ej || json_object_to_file_ext(o.events_out, ej,
						   JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE)) {
			json_object_put(ej);
			sw_err_set(&err, SW_EXIT_RUN_ERROR, "%s: cannot write",
				   o.events_out);
			goto fail;
		}
		json_object_put(ej);
	}
	if (o.workload && !explain && !o.timeline_end) {
		if (judge_workload(&o, &set, lost, &err))
			goto fail;
		metric_set_free(&set);
		event_rep_free(&ev);
		return ktap_finish();
	}
	metric_set_free(&set);
	event_rep_free(&ev);
	return 0;
fail:
	metric_set_free(&set);
	event_rep_free(&ev);
	fprintf(stderr, "sched-workloads: %s\n", err.msg);
	return err.code;
}
