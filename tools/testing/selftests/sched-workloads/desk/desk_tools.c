// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads report / history / vm / kbuild / mutants / bisect /
 * series / contribute: the desk's tools, python3 programs of a kernel tree
 * that a lab does not install (they need the tree: its sources, git, a kernel
 * to build or boot). They are found in one place: $SCHED_WORKLOADS_DESK
 * when set (another tree's tools, or a binary copied away from its
 * tree), else the directory build.mk named when the binary was built,
 * SW_DESK_DIR.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "desk/desk.h"
#include "lib/util.h"

static const char *desk_dir(void)
{
	const char *env = getenv("SCHED_WORKLOADS_DESK");

	return env && *env ? env : SW_DESK_DIR;
}

static int run_desk_tool(const char *script, int argc, char **argv)
{
	char path[PATH_MAX];

	if (path_join(path, sizeof(path), desk_dir(), script) ||
	    access(path, R_OK)) {
		fprintf(stderr, "sched-workloads: %s: no %s in %s: the desk's tools are a kernel tree's, not installed with the collection (SCHED_WORKLOADS_DESK names where they are)\n",
			argv[0], script, desk_dir());
		return SW_EXIT_SKIP;
	}
	return run_python(path, argc, argv);
}

int cmd_report(int argc, char **argv)
{
	return run_desk_tool("report.py", argc, argv);
}

int cmd_history(int argc, char **argv)
{
	return run_desk_tool("history.py", argc, argv);
}

int cmd_vm(int argc, char **argv)
{
	return run_desk_tool("vm.py", argc, argv);
}

int cmd_kbuild(int argc, char **argv)
{
	return run_desk_tool("kbuild.py", argc, argv);
}

int cmd_mutants(int argc, char **argv)
{
	return run_desk_tool("mutants.py", argc, argv);
}

int cmd_bisect(int argc, char **argv)
{
	return run_desk_tool("kbisect.py", argc, argv);
}

int cmd_series(int argc, char **argv)
{
	return run_desk_tool("series.py", argc, argv);
}

int cmd_contribute(int argc, char **argv)
{
	return run_desk_tool("contribute.py", argc, argv);
}
