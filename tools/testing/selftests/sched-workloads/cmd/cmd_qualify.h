/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads qualify: baselines, then K clean batteries against them.
 */
#ifndef SW_CMD_QUALIFY_H
#define SW_CMD_QUALIFY_H

int cmd_qualify(int argc, char **argv);

#endif /* SW_CMD_QUALIFY_H */
