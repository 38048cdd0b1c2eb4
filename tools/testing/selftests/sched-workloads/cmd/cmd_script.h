/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched-workloads report / export / history: python3 programs installed
 * next to the binary (they read result directories and draw; nothing
 * there needs the tracing or rt-app code), run as subcommands.
 */
#ifndef SW_CMD_SCRIPT_H
#define SW_CMD_SCRIPT_H

/*
 * Runs python3 (/usr/bin's if any) <binary's directory>/@script with
 * argv[1..]; SW_BINARY
 * names this binary for it. Returns only on error: SW_EXIT_SKIP when
 * python3 or the script is missing, saying so.
 */
int cmd_script(const char *script, int argc, char **argv);

#endif /* SW_CMD_SCRIPT_H */
