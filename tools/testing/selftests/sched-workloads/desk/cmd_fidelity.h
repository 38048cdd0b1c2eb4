/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads fidelity: a synthesized workload against the trace it
 * was made from (cmd_fidelity.c).
 */
#ifndef SW_CMD_FIDELITY_H
#define SW_CMD_FIDELITY_H

int cmd_fidelity(int argc, char **argv);

#endif /* SW_CMD_FIDELITY_H */
