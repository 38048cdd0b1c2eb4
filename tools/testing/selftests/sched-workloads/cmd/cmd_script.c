// SPDX-License-Identifier: GPL-2.0
/*
 * The python3 programs the binary runs as subcommands, with their own
 * --help: they read result directories and draw, and nothing there needs
 * the tracing or rt-app code. SW_BINARY names this binary for them. The
 * lab's (export) is here; the desk's are in desk/desk_tools.c.
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

int run_python(const char *path, int argc, char **argv)
{
	char self[PATH_MAX];
	char **args;
	int i;

	if (exe_path(self, sizeof(self))) {
		fprintf(stderr, "sched-workloads: %s: /proc/self/exe: %s\n",
			argv[0], strerror(errno));
		return SW_EXIT_SKIP;
	}
	args = calloc(argc + 2, sizeof(*args));
	if (!args) {
		fprintf(stderr, "sched-workloads: out of memory\n");
		return SW_EXIT_RUN_ERROR;
	}
	args[0] = "python3";
	args[1] = (char *)path;
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

/*
 * The lab's programs are installed with the collection, in lab/ beside
 * the binary; a binary built elsewhere (O=) takes its sources' lab/.
 */
static int find_lab_script(const char *script, char *path, size_t len)
{
	char dir[PATH_MAX], rel[128];

	snprintf(rel, sizeof(rel), "lab/%s", script);
	if (!exe_dir(dir, sizeof(dir)) && !path_join(path, len, dir, rel) &&
	    !access(path, R_OK))
		return 0;
	return path_join(path, len, SW_SOURCE_DIR, rel) || access(path, R_OK);
}

int cmd_export(int argc, char **argv)
{
	char path[PATH_MAX];

	if (find_lab_script("kcidb.py", path, sizeof(path))) {
		fprintf(stderr, "sched-workloads: %s: kcidb.py not found beside the binary (install the collection with its lab/)\n",
			argv[0]);
		return SW_EXIT_SKIP;
	}
	return run_python(path, argc, argv);
}
