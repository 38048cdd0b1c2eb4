/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads canary: one measurement of the machine, as JSON.
 */
#ifndef SW_CMD_CANARY_H
#define SW_CMD_CANARY_H

int cmd_canary(int argc, char **argv);

#endif /* SW_CMD_CANARY_H */
