/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one option parser of the subcommands. Each command declares its
 * options as a table (what each fills, its limits, its help) and gets its
 * usage printed from it; the options several commands take are the
 * OPT_*() entries below, so that an option has one name, one meaning and
 * one set of limits wherever it is taken. Defaults are whatever the
 * command put in the fields before parsing: the usage prints them.
 */
#ifndef SW_OPTIONS_H
#define SW_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "lib/metric.h"

enum option_type {
	OPTION_FLAG,		/* int: set to 1 */
	OPTION_TEXT,		/* const char *: the argument */
	OPTION_INT,		/* int within [min, max] */
	OPTION_LONG,		/* long within [min, max] */
	OPTION_SECONDS,		/* double within [min, max]: "90", "1.5s", "200ms" */
	OPTION_CALL,		/* call(): a list, a pair, a choice */
};

struct cmd_option {
	const char *name;	/* --name */
	int key;		/* -k; 0: only the long form */
	enum option_type type;
	void *dest;
	double min, max;	/* OPTION_INT, OPTION_LONG, OPTION_SECONDS */
	const char *arg;	/* the argument in the usage; NULL: none */
	const char *help;
	/* OPTION_CALL: takes @arg into @dest; -1 with what is wrong in @why */
	int (*call)(const char *arg, void *dest, char *why, size_t len);
};

struct cmd_usage {
	const char *cmd;	/* "run" */
	const char *synopsis;	/* operands and option summary, lines by \n */
	const char *what;	/* what the command does, lines by \n */
	const struct cmd_option *opts;
	size_t nopts;
	/* Options end at the first operand (a command line to run after). */
	int stop_at_operand;
	int min_operands;
	int max_operands;	/* -1: any number */
};

#define OPTIONS_HELP	(-1)
#define OPTIONS_BAD	(-2)

/*
 * Parses argv[1..] (argv[0] is the command) by @u. Returns the index of
 * the first operand; OPTIONS_HELP after printing the usage on stdout (the
 * command then exits 0); OPTIONS_BAD after printing what is wrong and the
 * usage on stderr (exit SW_EXIT_USAGE).
 */
int options_parse(const struct cmd_usage *u, int argc, char **argv);
/* The exit code for what options_parse() returned when not an index. */
int options_exit(int parsed);
/* "usage: sched-workloads CMD SYNOPSIS", what it does, each option. */
void options_usage(const struct cmd_usage *u, FILE *f);

/*
 * Repetitions of a workload in one round. A split check may take more
 * (up to VERDICT_MAX_REPS), and the rounds of a confirmation are kept
 * with the first: METRIC_MAX_REPS holds three rounds of this many.
 */
#define OPTIONS_REPS_MAX	(METRIC_MAX_REPS / 2)
#define OPTIONS_CALIBRATION_MAX	1000000		/* ns a loop: 1 ms */
#define OPTIONS_BUFFER_KB_MAX	(4L << 20)	/* 4 GB per CPU */
#define OPTIONS_GAP_MAX_S	3600

/* One option of each type, for the tables. */
#define OPT_FLAG(n, k, d, h) { .name = n, .key = k, .type = OPTION_FLAG, \
	.dest = d, .help = h }
#define OPT_TEXT(n, k, d, a, h) { .name = n, .key = k, .type = OPTION_TEXT, \
	.dest = d, .arg = a, .help = h }
#define OPT_INT(n, k, d, lo, hi, a, h) { .name = n, .key = k, \
	.type = OPTION_INT, .dest = d, .min = lo, .max = hi, .arg = a, \
	.help = h }
#define OPT_LONG(n, k, d, lo, hi, a, h) { .name = n, .key = k, \
	.type = OPTION_LONG, .dest = d, .min = lo, .max = hi, .arg = a, \
	.help = h }
#define OPT_SECONDS(n, k, d, lo, hi, a, h) { .name = n, .key = k, \
	.type = OPTION_SECONDS, .dest = d, .min = lo, .max = hi, .arg = a, \
	.help = h }
#define OPT_CALL(n, k, d, a, h, fn) { .name = n, .key = k, \
	.type = OPTION_CALL, .dest = d, .arg = a, .help = h, .call = fn }

/* The options several commands take: one name, one meaning, one limit. */
#define OPT_WORKLOADS(d) OPT_TEXT("workloads", 'w', d, "DIR", \
	"workload directory (the battery next to the binary)")
#define OPT_RESULTS(d) OPT_TEXT("results", 'r', d, "DIR", \
	"where result directories go (./results, else /tmp)")
#define OPT_BASELINES(d) OPT_TEXT("baselines", 'B', d, "DIR", \
	"baseline directory, one directory a machine class")
#define OPT_CALIBRATION(d) OPT_LONG("calibration", 'c', d, 1, \
	OPTIONS_CALIBRATION_MAX, "NS", "ns per loop for rt-app's run events")
#define OPT_BUFFER_KB(d) OPT_LONG("buffer-kb", 'b', d, 1, \
	OPTIONS_BUFFER_KB_MAX, "KB", "trace buffer per CPU")
#define OPT_REPETITIONS(d, h) OPT_INT("repetitions", 'n', d, 1, \
	OPTIONS_REPS_MAX, "N", h)
#define OPT_CONFIRM_GAP(d) OPT_SECONDS("confirm-gap", 'g', d, 0, \
	OPTIONS_GAP_MAX_S, "S", \
	"least time between two rounds of a workload confirming\na regression")

#endif /* SW_OPTIONS_H */
