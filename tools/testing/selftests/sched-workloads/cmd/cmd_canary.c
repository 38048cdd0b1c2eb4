// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads canary [--compare METRIC BASE... -- CUR]
 *
 * Without options: takes the live lock, measures the canary once and
 * prints its metrics as JSON ({"canary": {"cpu0": {...}, "system":
 * {...}}}). --compare (for the tests and for a look by hand) applies
 * canary_compare() to values given on the command line and prints
 * "slower", "normal" or "faster" and why.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/canary.h"
#include "judge/machine_drift.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "judge/metric_registry.h"
#include "lib/util.h"

/* @what and @pos name the value in the message: "baseline value 2". */
static int parse_value(const char *s, const char *what, int pos, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v)) {
		fprintf(stderr,
			"sched-workloads: canary --compare: %s%.0d \"%s\" is not a finite number\n",
			what, pos, s);
		return -1;
	}
	return 0;
}

static int compare_args(int argc, char **argv)
{
	const struct metric_def *def;
	double *base = NULL, cur;
	char why[256];
	int i, nb = 0, sep = -1, ret = SW_EXIT_USAGE, r;

	def = metric_find(argv[0]);
	if (!def || def->source != SRC_CANARY) {
		fprintf(stderr,
			"sched-workloads: canary --compare: \"%s\" is not a canary metric (see sched-workloads metrics)\n",
			argv[0]);
		return SW_EXIT_USAGE;
	}
	for (i = 1; i < argc && sep < 0; i++)
		if (!strcmp(argv[i], "--"))
			sep = i;
	if (sep < 2 || sep != argc - 2) {
		fprintf(stderr,
			"sched-workloads: canary --compare: want METRIC, at least one baseline value, \"--\" and one current value\n");
		return SW_EXIT_USAGE;
	}
	base = calloc(sep - 1, sizeof(*base));
	if (!base)
		return SW_EXIT_RUN_ERROR;
	for (i = 1; i < sep; i++)
		if (parse_value(argv[i], "baseline value ", i, &base[nb++]))
			goto out;
	if (parse_value(argv[sep + 1], "current value", 0, &cur))
		goto out;
	r = canary_compare(base, nb, cur, def, why, sizeof(why));
	printf("%s: %s\n", r > 0 ? "slower" : r < 0 ? "faster" : "normal", why);
	ret = 0;
out:
	free(base);
	return ret;
}

static void lock_waiting(const char *path)
{
	fprintf(stderr, "sched-workloads: waiting for another live run (%s)\n",
		path);
}

int cmd_canary(int argc, char **argv)
{
	struct metric_set set = { 0 };
	struct sw_err err = { 0 };
	int fd, ret = 0, compare = 0, first, rc;
	char why[512];
	const struct cmd_option opts[] = {
		OPT_FLAG("compare", 0, &compare,
			 "judge CUR against the baseline values BASE... of METRIC, as a run does"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0],
		.synopsis = "\n--compare METRIC BASE... -- CUR",
		.what = "Measures the machine for about a second (the canary a run takes\n"
			"before each round) and prints it as JSON.",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
		.stop_at_operand = 1, .max_operands = -1,
	};

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	if (compare && argc - first >= 1)
		return compare_args(argc - first, argv + first);
	if (compare || first != argc) {
		options_usage(&u, stderr);
		return SW_EXIT_USAGE;
	}
	fd = live_lock_take(lock_waiting, NULL);
	rc = canary_measure(&set, CANARY_BOUND_S, why, sizeof(why), &err);
	if (rc < 0) {
		fprintf(stderr, "sched-workloads: %s\n", err.msg);
		ret = err.code;
	} else if (rc) {
		fprintf(stderr, "sched-workloads: canary: %s\n", why);
		ret = SW_EXIT_SKIP;
	} else if (metric_set_write_json(&set, stdout)) {
		fprintf(stderr, "sched-workloads: canary: cannot write to stdout\n");
		ret = SW_EXIT_RUN_ERROR;
	}
	if (fd >= 0)
		close(fd);
	metric_set_free(&set);
	return ret;
}
