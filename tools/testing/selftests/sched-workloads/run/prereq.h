/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prerequisites: what must hold for a workload to run here. Each returns
 * NULL when satisfied, else the reason the workload SKIPs.
 */
#ifndef SW_PROBE_H
#define SW_PROBE_H

#include "rtapp/workload.h"

const char *probe_root(void);
const char *probe_rtapp(void);
/*
 * Asks the kernel, from a throw-away child, to admit each task's
 * scheduling policy; a refusal (EPERM, EINVAL, EBUSY) is a SKIP.
 * Malformed policies are workload errors: returns -1 with @err set.
 */
int probe_policies(const struct workload *w, char *reason, size_t len,
		   struct sw_err *err);

/*
 * The CPUs the workload needs: "min_cpus" online, every CPU a task is
 * pinned to ("cpus") online, and the topology "topology" asks for
 * ("smt": every CPU has an SMT sibling; "numa": two NUMA nodes or
 * more). 1 with @reason when this
 * machine lacks one: the machine's shape, a SKIP.
 */
int probe_topology(const struct workload *w, char *reason, size_t len);

/*
 * SCHED_DEADLINE admission is of a set: each task alone may fit and all
 * of them together not. Asks the kernel to admit every DEADLINE thread
 * of the workload (its scaled instances) at once. 0: admitted; 1: refused
 * for want of bandwidth the settings give (a SKIP), or for another
 * reason; 2: refused though the settings admit the set (the kernel's
 * admission control; the workload FAILs). @reason says which, with the
 * RT bandwidth settings. -1 with @err on a malformed workload.
 */
int probe_dl_admission(const struct workload *w, char *reason, size_t len,
		       struct sw_err *err);

/* The same policy checks without asking the kernel (for "check"). */
int probe_validate_policies(const struct workload *w, struct sw_err *err);

#endif /* SW_PROBE_H */
