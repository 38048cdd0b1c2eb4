/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The battery: every workload through its rounds of repetitions
 * (protocol.h), reported as KTAP in file-name order.
 */
#ifndef SW_BATTERY_H
#define SW_BATTERY_H

#include <stddef.h>

/* ns per loop of rt-app's run events (rt-app's own calibration varies) */
#define BATTERY_CALIBRATION	10
/* per CPU: lost no events under hackbench */
#define BATTERY_BUFFER_KB	32768
/*
 * Repetitions: the stable metrics (medians of a run) spread 5-10% from
 * run to run here, their tails 100-1000%. Three runs give a median that
 * one disturbed run cannot move, and a rank test that can reach p = 0.018
 * against a baseline of five (1 / C(8, 3)); five for the baseline make
 * it the larger, longer-lived side.
 */
#define BATTERY_REPS		3
#define BATTERY_BASELINE_REPS	5
/*
 * Rounds of a confirmation: the host drift seen on VMs lasts a minute or
 * two; three rounds at least a minute apart span more than two.
 */
#define BATTERY_CONFIRM_GAP_S	60

struct battery_opts {
	const char *workload_dir;	/* NULL: workloads/ by the binary */
	const char *results_root;	/* NULL: ./results, else /tmp */
	const char *baseline_dir;	/* NULL: baselines/ by the binary */
	long calibration;		/* ns per loop for run events */
	size_t buffer_kb;		/* trace buffer per CPU */
	int repetitions;		/* of each workload, in each round */
	int record;			/* record baselines, do not compare */
	double confirm_gap_s;		/* least time between two rounds */
};

/* The defaults above, for @record (baselines) or a run. */
void battery_opts_init(struct battery_opts *o, int record);
/* Runs the named workloads (all when @n is 0); returns the exit code. */
int battery_run(const struct battery_opts *o, char *const names[], int n);

/*
 * battery_run() with its KTAP into @log (created) instead of stdout, for
 * the caller that holds the live lock already (qualify, fidelity): in a
 * child process, killed with the caller. Returns its exit code, or -1.
 */
int battery_run_logged(const struct battery_opts *o, char *const names[],
		       int n, const char *log);

#endif /* SW_BATTERY_H */
