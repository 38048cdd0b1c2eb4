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
int cmd_export(int argc, char **argv);		/* cmd/cmd_script.c */
/* "sched-workloads --facts": argv[0] is "--facts" (cmd/cmd_facts.c). */
int cmd_facts(int argc, char **argv);

/*
 * Runs python3 (/usr/bin's if any) on the program at @path with
 * argv[1..], SW_BINARY naming this binary. Returns only on error:
 * SW_EXIT_SKIP when python3 is missing, saying so.
 */
int run_python(const char *path, int argc, char **argv);

#endif /* SW_CMD_H */
