/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads fingerprint: this machine's class, kernel and settings,
 * or how its settings differ from those a baseline or a run recorded.
 */
#ifndef SW_CMD_FINGERPRINT_H
#define SW_CMD_FINGERPRINT_H

/* @calibration: the default of -c, as runs record it. */
int cmd_fingerprint(int argc, char **argv, long calibration);

#endif /* SW_CMD_FINGERPRINT_H */
