// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads index RESULTS...: writes the index.json of runs made
 * before runs wrote one, so that report, export and history read them
 * (run/run_index.h).
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "lib/util.h"
#include "run/run_index.h"

int cmd_index(int argc, char **argv)
{
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "RESULTS...",
		.what = "Writes RESULTS/index.json for runs of an older sched-workloads:\n"
			"each workload with its state as its verdicts.json says it.",
		.min_operands = 1, .max_operands = -1,
	};
	struct sw_err err = { 0 };
	int first, i, n, rc = SW_EXIT_PASS;

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	for (i = first; i < argc; i++) {
		n = run_index_rebuild(argv[i], &err);
		if (n < 0) {
			fprintf(stderr, "sched-workloads: %s\n", err.msg);
			rc = err.code;
			continue;
		}
		printf("%s: %d workloads\n", argv[i], n);
	}
	return rc;
}
