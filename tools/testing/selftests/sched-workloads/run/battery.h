/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The battery: every workload through its rounds of repetitions
 * (run/rounds.h), reported as KTAP in file-name order.
 */
#ifndef SW_BATTERY_H
#define SW_BATTERY_H

#include <stddef.h>

#include "run/session.h"

/* Runs the named workloads (all when @n is 0); returns the exit code. */
int battery_run(const struct battery_opts *o, char *const names[], int n);

/*
 * @run (battery_run(), or baseline_record()) with its KTAP into @log
 * (created) instead of stdout, for a caller that holds the live lock
 * already (qualify, fidelity): in a child process, killed with the
 * caller. Returns its exit code, or -1.
 */
int battery_run_logged(int (*run)(const struct battery_opts *o,
				  char *const names[], int n),
		       const struct battery_opts *o, char *const names[], int n,
		       const char *log);

#endif /* SW_BATTERY_H */
