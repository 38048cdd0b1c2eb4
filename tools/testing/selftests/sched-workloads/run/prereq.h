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
 * The CPU topology the workload's "topology" asks for ("smt": every CPU
 * has an SMT sibling): 1 with @reason when this machine lacks it.
 */
int probe_topology(const struct workload *w, char *reason, size_t len);

/* The same policy checks without asking the kernel (for "check"). */
int probe_validate_policies(const struct workload *w, struct sw_err *err);

#endif /* SW_PROBE_H */
