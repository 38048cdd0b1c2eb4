/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads record: trace a command, a process or the system, for a
 * reproducer to be made from (cmd_record.c).
 */
#ifndef SW_CMD_RECORD_H
#define SW_CMD_RECORD_H

int cmd_record(int argc, char **argv);

#endif /* SW_CMD_RECORD_H */
