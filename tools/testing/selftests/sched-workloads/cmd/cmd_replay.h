/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads replay: the run protocol again on recorded repetitions.
 */
#ifndef SW_CMD_REPLAY_H
#define SW_CMD_REPLAY_H

int cmd_replay(int argc, char **argv);

#endif /* SW_CMD_REPLAY_H */
