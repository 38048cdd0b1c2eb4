/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands a lab installs and runs, one cmd_<name>.c each (the
 * table is in sched-workloads.c). Each takes its argv from the command's
 * name on (argv[0]) and returns the exit code.
 */
#ifndef SW_CMD_H
#define SW_CMD_H

int cmd_run(int argc, char **argv);		/* cmd/cmd_run.c */
int cmd_baseline(int argc, char **argv);	/* cmd/cmd_run.c */
int cmd_list(int argc, char **argv);		/* cmd/cmd_check.c */
int cmd_check(int argc, char **argv);		/* cmd/cmd_check.c */
int cmd_metrics(int argc, char **argv);		/* cmd/cmd_check.c */
int cmd_analyze(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_qualify(int argc, char **argv);
int cmd_fingerprint(int argc, char **argv);
int cmd_canary(int argc, char **argv);
int cmd_index(int argc, char **argv);
/*
 * The python3 programs (cmd/cmd_script.c): export for a lab, report and
 * history for a desk.
 */
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_vm(int argc, char **argv);

#endif /* SW_CMD_H */
