/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands of a contributor's desk: record a program, synthesize a
 * reproducer from its trace, measure how faithful it is; and the desk's
 * python3 tools of the tree (desk/desk_tools.c). They are built into the
 * same binary but are not what a lab runs.
 */
#ifndef SW_DESK_H
#define SW_DESK_H

int cmd_record(int argc, char **argv);
int cmd_synthesize(int argc, char **argv);
int cmd_fidelity(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_kbuild(int argc, char **argv);
int cmd_mutants(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_series(int argc, char **argv);
int cmd_contribute(int argc, char **argv);

#endif /* SW_DESK_H */
