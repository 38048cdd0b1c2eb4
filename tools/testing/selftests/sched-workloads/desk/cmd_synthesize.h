/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads synthesize: a workload file from a recorded trace
 * (cmd_synthesize.c).
 */
#ifndef SW_CMD_SYNTHESIZE_H
#define SW_CMD_SYNTHESIZE_H

int cmd_synthesize(int argc, char **argv);

#endif /* SW_CMD_SYNTHESIZE_H */
