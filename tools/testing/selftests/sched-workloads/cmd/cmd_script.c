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
 * Where a program is: the lab's in lab/ beside the binary (an installed
 * collection, or the tree), else in the tree it was built from; the
 * desk's in that tree's scripts/sched-workloads/ only.
 */
static int find_script(const char *script, int desk, char *path, size_t len)
{
	char dir[PATH_MAX], rel[128];

	snprintf(rel, sizeof(rel), "%s%s",
		 desk ? "../../../../scripts/sched-workloads/" : "lab/", script);
	if (!desk && !exe_dir(dir, sizeof(dir)) &&
	    !path_join(path, len, dir, rel) && !access(path, R_OK))
		return 0;
	return path_join(path, len, SW_SOURCE_DIR, rel) || access(path, R_OK);
}

/*
 * Runs python3 (/usr/bin's if any) on @script with argv[1..]. Returns
 * only on error: SW_EXIT_SKIP when python3 or the script is missing,
 * saying so.
 */
static int run_script(const char *script, int desk, int argc, char **argv)
{
	char path[PATH_MAX], self[PATH_MAX];
	char **args;
	int i;

	if (exe_path(self, sizeof(self)) ||
	    find_script(script, desk, path, sizeof(path))) {
		fprintf(stderr, "sched-workloads: %s: %s not found%s\n", argv[0],
			script, desk ?
			": a tool of a desk, in a kernel tree's scripts/sched-workloads/, not installed with the collection" :
			" beside the binary (install the collection with its lab/)");
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
	return run_script("kcidb.py", 0, argc, argv);
}

int cmd_report(int argc, char **argv)
{
	return run_script("report.py", 1, argc, argv);
}

int cmd_history(int argc, char **argv)
{
	return run_script("history.py", 1, argc, argv);
}

int cmd_vm(int argc, char **argv)
{
	return run_script("vm.py", 1, argc, argv);
}
