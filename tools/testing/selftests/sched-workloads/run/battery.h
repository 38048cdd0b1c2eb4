/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The battery: every workload through its rounds of repetitions
 * (protocol.h), reported as KTAP in file-name order.
 */
#ifndef SW_BATTERY_H
#define SW_BATTERY_H

#include <stddef.h>

struct battery_opts {
	const char *workload_dir;
	const char *results_root;	/* NULL: ./results, else /tmp */
	const char *baseline_dir;	/* NULL: baselines/ by the binary */
	long calibration;		/* ns per loop for run events */
	size_t buffer_kb;		/* trace buffer per CPU */
	int repetitions;		/* of each workload, in each round */
	int record;			/* record baselines, do not compare */
	double confirm_gap_s;		/* least time between two rounds */
};

/* Runs the named workloads (all when @n is 0); returns the exit code. */
int battery_run(const struct battery_opts *o, char *const names[], int n);

#endif /* SW_BATTERY_H */
