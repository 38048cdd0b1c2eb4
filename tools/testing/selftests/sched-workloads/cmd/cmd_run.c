// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads run: the battery against the running kernel, as KTAP;
 * sched-workloads baseline: the same workloads, recorded as the baselines
 * of this machine class.
 */
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "lib/cleanup.h"
#include "lib/util.h"
#include "run/baseline_record.h"
#include "run/battery.h"

static int run_battery(int argc, char **argv, int record)
{
	struct battery_opts o;
	long calibration, buffer_kb;
	const struct cmd_option opts[] = {
		OPT_WORKLOADS(&o.workload_dir),
		OPT_RESULTS(&o.results_root),
		OPT_CALIBRATION(&calibration),
		OPT_BUFFER_KB(&buffer_kb),
		OPT_REPETITIONS(&o.repetitions, record ?
				"repetitions of each workload, each in a battery of its own" :
				"runs of each workload in a round"),
		OPT_BASELINES(&o.baseline_dir),
		OPT_CONFIRM_GAP(&o.confirm_gap_s),
		OPT_SECONDS("time-limit", 'T', &o.time_limit_s, 0, 1e6, "S",
			    "no round nor repetition starts after S s of the\n"
			    "battery; what is left SKIPs (0: no limit)"),
		OPT_FLAG("no-canary", 0, &o.no_canary,
			 "no canary before each round: for a machine that\n"
			 "cannot drift (the deterministic guest)"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0],
		.synopsis = "[options] [WORKLOAD...]",
		.what = record ?
			"Runs the workloads (all of -w DIR by default) and records their\n"
			"baselines for this machine class in -B DIR/<class>/." :
			"Runs the workloads (all of -w DIR by default; a name or any\n"
			"workload file) and prints their verdicts as KTAP; the files of\n"
			"the run go to a results directory (-r).",
		.opts = opts, .nopts = ARRAY_SIZE(opts), .max_operands = -1,
	};
	int first;

	battery_opts_init(&o, record);
	calibration = o.calibration;
	buffer_kb = o.buffer_kb;
	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	o.calibration = calibration;
	o.buffer_kb = buffer_kb;
	cleanup_install_handlers();
	return (record ? baseline_record : battery_run)(&o, argv + first,
							argc - first);
}

int cmd_run(int argc, char **argv)
{
	return run_battery(argc, argv, 0);
}

int cmd_baseline(int argc, char **argv)
{
	return run_battery(argc, argv, 1);
}
