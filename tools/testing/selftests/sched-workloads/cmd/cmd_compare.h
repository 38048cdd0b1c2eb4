/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads compare: two result directories, kernel A vs kernel B.
 */
#ifndef SW_CMD_COMPARE_H
#define SW_CMD_COMPARE_H

int cmd_compare(int argc, char **argv);

#endif /* SW_CMD_COMPARE_H */
