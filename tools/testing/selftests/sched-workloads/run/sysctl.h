/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scheduler sysctls a workload sets for its run ("sysctl" in its block:
 * {"kernel.sched_rr_timeslice_ms": 10}), restored after the run and on
 * every exit path through the cleanup stack, and by the next run when
 * this one was killed (the journal).
 */
#ifndef SW_SYSCTL_H
#define SW_SYSCTL_H

#include <json-c/json.h>
#include "lib/util.h"

/* Checks names and values without touching the system. */
int sysctl_validate(struct json_object *map, const char *file,
		    struct sw_err *err);
/* sysctl_validate(), and every sysctl exists on the running kernel. */
int sysctl_check_present(struct json_object *map, const char *file,
			 struct sw_err *err);
/*
 * Saves and sets every sysctl of @map. Returns 0; 1 when the kernel
 * refuses a value (@reason says which: the workload SKIPs; what was set
 * is restored); -1 with @err on bad input.
 */
int sysctl_apply(struct json_object *map, const char *file, char *reason,
		 size_t len, struct sw_err *err);
/* Puts back every value sysctl_apply() changed. */
void sysctl_restore(void);

/*
 * The journal of values to put back ($SCHED_WORKLOADS_JOURNAL, else
 * SYSCTL_JOURNAL: /run is emptied at boot, as the kernel's values are).
 */
#define SYSCTL_JOURNAL "/run/sched-workloads/sysctl-journal"
const char *sysctl_journal_path(void);
/*
 * Restores what a run that did not finish left changed, saying so, and
 * removes the journal. Call with the live lock held, before any run.
 * Returns 0, or -1 with @err (SW_EXIT_RUN_ERROR) naming the file.
 */
int sysctl_journal_replay(struct sw_err *err);

#endif /* SW_SYSCTL_H */
