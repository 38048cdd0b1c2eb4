// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads export / report / history: python3 programs (they read
 * result directories and draw; nothing there needs the tracing or rt-app
 * code), run as subcommands with their own --help. SW_BINARY names this
 * binary for them.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/util.h"

/*
 * Debian's python3 first: the python3-* packages (matplotlib) are its
 * modules, and a python3 earlier in PATH (pyenv's, a venv) lacks them.
 */
#define SYSTEM_PYTHON	"/usr/bin/python3"

/*
 * Runs python3 (/usr/bin's if any) <binary's directory>/@script with
 * argv[1..]. Returns only on error: SW_EXIT_SKIP when python3 or the
 * script is missing, saying so.
 */
static int run_script(const char *script, int argc, char **argv)
{
	char dir[PATH_MAX], path[PATH_MAX], self[PATH_MAX];
	char **args;
	int i;

	if (exe_path(self, sizeof(self)) || exe_dir(dir, sizeof(dir)) ||
	    path_join(path, sizeof(path), dir, script)) {
		fprintf(stderr, "sched-workloads: %s: cannot find this binary's directory\n",
			argv[0]);
		return SW_EXIT_SKIP;
	}
	if (access(path, R_OK)) {
		fprintf(stderr, "sched-workloads: %s: %s: %s (install the collection with its python3 programs)\n",
			argv[0], path, strerror(errno));
		return SW_EXIT_SKIP;
	}
	args = calloc(argc + 2, sizeof(*args));
	if (!args) {
		fprintf(stderr, "sched-workloads: out of memory\n");
		return SW_EXIT_RUN_ERROR;
	}
	args[0] = "python3";
	args[1] = path;
	for (i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	setenv("SW_BINARY", self, 1);
	/*
	 * Its full path as argv[0] too: python3 finds its prefix, and so
	 * its modules, from argv[0], looked up in PATH when it is bare.
	 */
	if (!access(SYSTEM_PYTHON, X_OK)) {
		args[0] = SYSTEM_PYTHON;
		execv(SYSTEM_PYTHON, args);
		args[0] = "python3";
	}
	execvp("python3", args);
	fprintf(stderr, "sched-workloads: %s: python3: %s (Debian: apt-get install python3)\n",
		argv[0], strerror(errno));
	free(args);
	return SW_EXIT_SKIP;
}

int cmd_export(int argc, char **argv)
{
	return run_script("kcidb.py", argc, argv);
}

int cmd_report(int argc, char **argv)
{
	return run_script("report.py", argc, argv);
}

int cmd_history(int argc, char **argv)
{
	return run_script("history.py", argc, argv);
}
