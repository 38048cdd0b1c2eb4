// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads list, check and metrics: the battery, its files and the
 * metrics they may name, without running anything; with a baseline
 * directory, what size of change each baseline check can see.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "judge/baseline.h"
#include "judge/checks.h"
#include "judge/metric_registry.h"
#include "judge/verdict.h"
#include "lib/util.h"
#include "rtapp/rtapp_grammar.h"
#include "rtapp/workload.h"
#include "run/session.h"
#include "run/workload_check.h"

static int list_dir(const char *dir)
{
	struct sw_err err = { 0 };
	int i, n, rc = 0;
	char **paths;

	n = workload_list_dir(dir, &paths, &err);
	if (n < 0) {
		fprintf(stderr, "sched-workloads: %s\n", err.msg);
		return err.code;
	}
	for (i = 0; i < n; i++) {
		struct workload w;

		if (workload_load(paths[i], &w, &err)) {
			fprintf(stderr, "sched-workloads: %s\n", err.msg);
			rc = err.code;
			continue;
		}
		printf("%-28s %s\n", w.name, w.description);
		workload_free(&w);
	}
	workload_list_free(paths, n);
	return rc;
}

/* The metrics of @src a task with events @have may be checked on. */
struct task_metrics {
	enum metric_source src;
	unsigned int have;
	const char *names[128];
	size_t n;
};

static void add_task_metric(const struct metric_def *def, void *arg)
{
	struct task_metrics *tm = arg;

	if (def->source == tm->src && !(def->needs & ~tm->have) &&
	    tm->n < ARRAY_SIZE(tm->names))
		tm->names[tm->n++] = def->name;
}

/* The length of "slack" in "slack.p50"; 0 for a name without a dot. */
static size_t family_len(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot ? (size_t)(dot - name) : 0;
}

/* "passes, slack.{min,p50}, cpu_share": a family's members together. */
static void print_names(const struct task_metrics *tm)
{
	size_t i = 0, k, f;

	while (i < tm->n) {
		f = family_len(tm->names[i]);
		for (k = i + 1; f && k < tm->n && family_len(tm->names[k]) == f &&
		     !strncmp(tm->names[k], tm->names[i], f); k++)
			;
		printf("%s", i ? ", " : " ");
		if (k - i < 2) {
			printf("%s", tm->names[i++]);
			continue;
		}
		printf("%.*s.{", (int)f, tm->names[i]);
		for (; i < k; i++)
			printf("%s%s", tm->names[i] + f + 1, i + 1 < k ? "," : "}");
	}
	printf("\n");
}

static void print_task_metrics(const char *task, struct json_object *t)
{
	static const enum metric_source srcs[] = {
		SRC_RTAPP_TASK, SRC_TRACE_TASK,
	};
	struct task_metrics tm = { .have = rtapp_task_events(t) };
	size_t i;

	printf("  %s:\n", task);
	for (i = 0; i < ARRAY_SIZE(srcs); i++) {
		tm.src = srcs[i];
		tm.n = 0;
		metric_for_each(add_task_metric, &tm);
		printf("    %s:", metric_source_name(tm.src));
		print_names(&tm);
	}
}

struct check_opts {
	int list_metrics, as_json, reps;
	const char *detect_dir;	/* a class's (or platform's) baselines */
};

/*
 * Per baseline check of @w, the smallest change it detects against its
 * baseline in @o->detect_dir (judge/detectable.h), as a battery runs it.
 */
static int print_detectable(const struct check_opts *o,
			    const struct workload *w,
			    const struct verdict_block *vb)
{
	struct verdict_results res;
	struct sw_err err = { 0 };
	struct baseline b;
	char path[PATH_MAX];
	size_t i;
	int ret;

	if (baseline_path(path, sizeof(path), o->detect_dir, w->name))
		return SW_EXIT_RUN_ERROR;
	ret = baseline_load(path, &b, &err);
	if (ret) {
		if (ret > 0)
			printf("  no baseline: %s\n", path);
		else
			fprintf(stderr, "sched-workloads: %s\n", err.msg);
		return ret > 0 ? 0 : err.code;
	}
	if (verdict_detectable(vb, &b, w->name, o->reps, VERDICT_ROUNDS,
			       &res)) {
		baseline_free(&b);
		return SW_EXIT_RUN_ERROR;
	}
	printf("  detectable effects (rounds of %d repetitions, confirmed in %d rounds) against %s:\n",
	       o->reps, VERDICT_ROUNDS, path);
	for (i = 0; i < res.n; i++) {
		const struct verdict_result *r = &res.r[i];
		const struct detectable *d = &r->detect;

		if (!r->has_detect) {
			printf("    %s: %s\n", r->name, r->diag);
			continue;
		}
		printf("    %s: baseline %.4g %s, %.3g %s matters, detects %s\n",
		       r->name, d->baseline, r->def->unit, d->matters,
		       r->def->unit, r->diag);
	}
	verdict_results_free(&res);
	baseline_free(&b);
	return 0;
}

static int check_one(const char *path, const struct check_opts *o)
{
	struct verdict_block vb;
	struct sw_err err = { 0 };
	struct workload w;
	int ret = 0;

	if (workload_check(path, &w, &vb, stderr, &err)) {
		fprintf(stderr, "sched-workloads: %s\n", err.msg);
		ret = err.code;
	} else if (o->as_json) {
		printf("%s\n", json_object_to_json_string_ext(w.root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		printf("%s: %s: %zu checks\n", path, w.name, vb.n);
		if (o->list_metrics) {
			json_object_object_foreach(json_object_object_get(w.root,
									  "tasks"),
						   task, t)
				print_task_metrics(task, t);
		}
		if (o->detect_dir)
			ret = print_detectable(o, &w, &vb);
	}
	verdict_block_free(&vb);
	workload_free(&w);
	return ret;
}

int cmd_list(int argc, char **argv)
{
	const char *dir = NULL;
	const struct cmd_option opts[] = { OPT_WORKLOADS(&dir) };
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "[-w DIR]",
		.what = "The battery: one workload and its purpose per line.",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
	};
	char def[PATH_MAX];
	int first = options_parse(&u, argc, argv);

	if (first < 0)
		return options_exit(first);
	if (!dir) {
		workload_default_dir(def, sizeof(def));
		dir = def;
	}
	return list_dir(dir);
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = { .reps = BATTERY_REPS };
	int rc = 0, r, i;
	const struct cmd_option opts[] = {
		OPT_FLAG("metrics", 'm', &o.list_metrics,
			 "also list, per task, the metrics its checks may name"),
		OPT_FLAG("json", 'j', &o.as_json,
			 "print each valid file as plain JSON (its comments dropped)\n"
			 "instead of the summary: what rt-app and other programs read"),
		OPT_TEXT("detectable", 'd', &o.detect_dir, "DIR",
			 "also print, per baseline check, the smallest change it\n"
			 "detects against the baselines in DIR (one class, or one\n"
			 "platform of it: baselines/<class>[/<platform>])"),
		OPT_REPETITIONS(&o.reps, "repetitions of a round, for -d"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "[-m] [-d DIR [-n N]] | -j FILE...",
		.what = "Validates workload files and their verdict blocks: what a run\n"
			"would refuse, with the file and the place.",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
		.min_operands = 1, .max_operands = -1,
	};
	int first = options_parse(&u, argc, argv);

	if (first < 0)
		return options_exit(first);
	for (i = first; i < argc; i++) {
		r = check_one(argv[i], &o);
		if (r)
			rc = r;
	}
	return rc;
}

static void print_metric(const struct metric_def *def, void *arg)
{
	(void)arg;
	printf("%-26s %-6s %-12s %s\n", def->name, def->unit,
	       metric_source_name(def->source), def->help);
}

int cmd_metrics(int argc, char **argv)
{
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "",
		.what = "Every metric a verdict block may name: name, unit, source, what.",
	};
	int first = options_parse(&u, argc, argv);

	if (first < 0)
		return options_exit(first);
	metric_for_each(print_metric, NULL);
	return SW_EXIT_PASS;
}
