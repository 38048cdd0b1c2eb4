/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offline analysis: metrics and verdicts of a run made elsewhere.
 */
#ifndef SW_CMD_ANALYZE_H
#define SW_CMD_ANALYZE_H

int cmd_analyze(int argc, char **argv);

#endif /* SW_CMD_ANALYZE_H */
