// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads: scheduler workload reproducers with verdicts.
 *
 * With no arguments (as kselftest runs it) it runs the whole battery.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_analyze.h"
#include "judge/baseline.h"
#include "run/battery.h"
#include "lib/cleanup.h"
#include "cmd/cmd_canary.h"
#include "cmd/cmd_compare.h"
#include "cmd/cmd_fingerprint.h"
#include "cmd/cmd_qualify.h"
#include "desk/cmd_record.h"
#include "desk/cmd_fidelity.h"
#include "desk/cmd_synthesize.h"
#include "cmd/cmd_replay.h"
#include "cmd/cmd_script.h"
#include "judge/metric_registry.h"
#include "judge/samples.h"
#include "judge/verdict.h"
#include "rtapp/workload.h"
#include "run/workload_check.h"
#include "rtapp/rtapp_grammar.h"

#define DEFAULT_CALIBRATION	10	/* ns per loop; see README */
#define DEFAULT_BUFFER_KB	32768	/* lost no events under hackbench */
/*
 * Repetitions: the stable metrics (medians of a run) spread 5-10% from
 * run to run here, their tails 100-1000%. Three runs give a median that
 * one disturbed run cannot move, and a rank test that can reach p = 0.018
 * against a baseline of five (1 / C(8, 3)); five for the baseline make
 * it the larger, longer-lived side.
 */
#define DEFAULT_RUN_REPS	3
#define DEFAULT_BASELINE_REPS	5
/*
 * Rounds of a confirmation: the host drift seen on VMs lasts a minute or
 * two; three rounds at least a minute apart span more than two.
 */
#define DEFAULT_CONFIRM_GAP_S	60

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: sched-workloads [run] [options] [WORKLOAD...]\n"
		"       sched-workloads baseline [options] [WORKLOAD...]\n"
		"       sched-workloads compare [--force] RESULTS_A RESULTS_B\n"
		"       sched-workloads list [-w DIR]\n"
		"       sched-workloads fingerprint [-c NS] [--diff FILE]\n"
		"       sched-workloads check [-m] FILE...\n"
		"       sched-workloads metrics\n"
		"       sched-workloads analyze --logs DIR [--trace FILE] [--workload FILE]\n"
		"       sched-workloads canary  (one measurement of the machine, JSON)\n"
		"       sched-workloads replay [--baseline FILE | -B DIR] RESULTS/WORKLOAD\n"
		"       sched-workloads qualify [-k K] [--no-record] [options] [WORKLOAD...]\n"
		"       sched-workloads record [-o DIR] (-- COMMAND... | -p PID | -a -d S)\n"
		"       sched-workloads synthesize [-o FILE] [-t GLOB | -p PID | -T PID] TRACE\n"
		"       sched-workloads fidelity [-r DIR] ORIGINAL.dat WORKLOAD.json\n"
		"       sched-workloads report [-o FILE] RESULTS [RESULTS_B]\n"
		"       sched-workloads export --kcidb [-o FILE] RESULTS\n"
		"       sched-workloads history RESULTS...\n"
		"\n"
		"  run       run workloads (all of -w DIR by default), print KTAP\n"
		"  baseline  run workloads and record their baselines for this\n"
		"            machine class\n"
		"  compare   every metric of two result directories, A vs B\n"
		"  list      the battery, one workload and its purpose per line\n"
		"  check     validate workload files and their verdict blocks\n"
		"  metrics   every metric a verdict block may name\n"
		"  fingerprint  this machine's class, kernel and settings, as runs\n"
		"            record them (--diff FILE: the settings that differ\n"
		"            from those FILE recorded)\n"
		"  analyze   metrics (JSON) and verdicts of a finished run\n"
		"  replay    the run protocol again on a workload's recorded rounds\n"
		"  qualify   record baselines, then K clean batteries against them:\n"
		"            per check, how often it passed and its least room\n"
		"  record    trace a command, a process or the system, for a\n"
		"            reproducer (record --help)\n"
		"  synthesize  an rt-app workload that behaves like threads of a\n"
		"            recorded trace (synthesize --help)\n"
		"  fidelity  run a synthesized workload once and compare it, task\n"
		"            by task, with the trace it was made from\n"
		"  report    one HTML file of a run (or of A against B): verdicts,\n"
		"            distributions against the baseline's, CPU timelines\n"
		"  export    a run as KCIDB I/O JSON, for KernelCI's database\n"
		"  history   runs of successive kernels: per metric, the series\n"
		"            and where it changed (E-divisive means)\n"
		"  (report, export and history are python3 programs: --help)\n"
		"\n"
		"  -w, --workloads DIR   workload directory (default: next to the binary)\n"
		"  -r, --results DIR     where result directories go (default ./results)\n"
		"  -c, --calibration NS  ns per loop for rt-app run events (default %d)\n"
		"  -b, --buffer-kb KB    trace buffer per CPU (default %d)\n"
		"  -n, --repetitions N   runs per workload (default %d; baseline: %d)\n"
		"  -B, --baselines DIR   baseline directory (default: next to the binary)\n"
		"  -g, --confirm-gap S   least seconds between two rounds of a\n"
		"                        workload confirming a regression (default %d)\n"
		"\n"
		"Exit: 0 pass, 1 a check failed, 2 usage, 4 skipped (missing\n"
		"prerequisite), 5 bad workload, 6 bad rt-app log, 7 bad trace,\n"
		"8 the run broke, 9 bad result directory.\n", DEFAULT_CALIBRATION, DEFAULT_BUFFER_KB,
		DEFAULT_RUN_REPS, DEFAULT_BASELINE_REPS, DEFAULT_CONFIRM_GAP_S);
}

static const struct option long_opts[] = {
	{ "workloads", required_argument, NULL, 'w' },
	{ "results", required_argument, NULL, 'r' },
	{ "calibration", required_argument, NULL, 'c' },
	{ "buffer-kb", required_argument, NULL, 'b' },
	{ "repetitions", required_argument, NULL, 'n' },
	{ "baselines", required_argument, NULL, 'B' },
	{ "confirm-gap", required_argument, NULL, 'g' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int cmd_list(const char *dir)
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

static int check_one(const char *path, int list_metrics)
{
	struct verdict_block vb;
	struct sw_err err = { 0 };
	struct workload w;
	int ret = 0;

	if (workload_check(path, &w, &vb, stderr, &err)) {
		fprintf(stderr, "sched-workloads: %s\n", err.msg);
		ret = err.code;
	} else {
		printf("%s: %s: %zu checks\n", path, w.name, vb.n);
		if (list_metrics) {
			json_object_object_foreach(json_object_object_get(w.root,
									  "tasks"),
						   task, t)
				print_task_metrics(task, t);
		}
	}
	verdict_block_free(&vb);
	workload_free(&w);
	return ret;
}

/* argv[0] is "check". */
static int cmd_check(int argc, char **argv)
{
	int i, rc = 0, r, list_metrics = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_usage(stdout);
			return SW_EXIT_PASS;
		}
		if (strcmp(argv[i], "-m") && strcmp(argv[i], "--metrics")) {
			print_usage(stderr);
			return SW_EXIT_USAGE;
		}
		list_metrics = 1;
	}
	if (i == argc) {
		print_usage(stderr);
		return SW_EXIT_USAGE;
	}
	for (; i < argc; i++) {
		r = check_one(argv[i], list_metrics);
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

int main(int argc, char **argv)
{
	struct battery_opts o = {
		.calibration = DEFAULT_CALIBRATION,
		.buffer_kb = DEFAULT_BUFFER_KB,
		.confirm_gap_s = DEFAULT_CONFIRM_GAP_S,
	};
	char wdir[PATH_MAX], bdir[PATH_MAX];
	const char *cmd = "run";
	int c, reps = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && argv[1][0] != '-') {
		cmd = argv[1];
		argv++;
		argc--;
	}
	if (!strcmp(cmd, "analyze"))
		return cmd_analyze(argc, argv);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(argc, argv);
	if (!strcmp(cmd, "fingerprint"))
		return cmd_fingerprint(argc, argv, DEFAULT_CALIBRATION);
	if (!strcmp(cmd, "canary"))
		return cmd_canary(argc, argv);
	if (!strcmp(cmd, "record"))
		return cmd_record(argc, argv);
	if (!strcmp(cmd, "synthesize"))
		return cmd_synthesize(argc, argv);
	if (!strcmp(cmd, "fidelity"))
		return cmd_fidelity(argc, argv);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc, argv);
	if (!strcmp(cmd, "replay"))
		return cmd_replay(argc, argv);
	if (!strcmp(cmd, "qualify"))
		return cmd_qualify(argc, argv);
	if (!strcmp(cmd, "report"))
		return cmd_script("report.py", argc, argv);
	if (!strcmp(cmd, "export"))
		return cmd_script("kcidb.py", argc, argv);
	if (!strcmp(cmd, "history"))
		return cmd_script("history.py", argc, argv);
	if (workload_default_dir(wdir, sizeof(wdir)))
		snprintf(wdir, sizeof(wdir), "workloads");
	o.workload_dir = wdir;
	if (baseline_default_dir(bdir, sizeof(bdir)))
		snprintf(bdir, sizeof(bdir), "baselines");
	o.baseline_dir = bdir;
	while ((c = getopt_long(argc, argv, "w:r:c:b:n:B:g:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'w':
			o.workload_dir = optarg;
			break;
		case 'r':
			o.results_root = optarg;
			break;
		case 'c':
			o.calibration = strtol(optarg, NULL, 10);
			break;
		case 'b':
			o.buffer_kb = strtoul(optarg, NULL, 10);
			break;
		case 'n':
			reps = atoi(optarg);
			if (reps < 1 || reps > METRIC_MAX_REPS / 2) {
				fprintf(stderr, "sched-workloads: repetitions: 1 to %d\n",
					METRIC_MAX_REPS / 2);
				return SW_EXIT_USAGE;
			}
			break;
		case 'B':
			o.baseline_dir = optarg;
			break;
		case 'g':
			if (parse_duration_s(optarg, &o.confirm_gap_s) ||
			    o.confirm_gap_s < 0) {
				fprintf(stderr, "sched-workloads: --confirm-gap: seconds, not \"%s\"\n",
					optarg);
				return SW_EXIT_USAGE;
			}
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return SW_EXIT_USAGE;
		}
	}
	if (o.calibration <= 0 || !o.buffer_kb) {
		fprintf(stderr, "sched-workloads: calibration and buffer size must be positive\n");
		return SW_EXIT_USAGE;
	}
	if (!strcmp(cmd, "run") || !strcmp(cmd, "baseline")) {
		o.record = !strcmp(cmd, "baseline");
		o.repetitions = reps ? reps : o.record ? DEFAULT_BASELINE_REPS :
				DEFAULT_RUN_REPS;
		cleanup_install_handlers();
		return battery_run(&o, argv + optind, argc - optind);
	}
	if (!strcmp(cmd, "list"))
		return cmd_list(o.workload_dir);
	if (!strcmp(cmd, "metrics")) {
		metric_for_each(print_metric, NULL);
		return 0;
	}
	fprintf(stderr, "sched-workloads: unknown command \"%s\"\n", cmd);
	print_usage(stderr);
	return SW_EXIT_USAGE;
}
