// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads: scheduler workload reproducers with verdicts.
 *
 * The subcommands, one table: what a lab installs and runs (cmd/), and
 * the tooling people run at their desk (desk/). With no command (as
 * kselftest runs it), or options first, it is "run": the whole battery.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "desk/desk.h"
#include "lib/util.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what;
	int desk;		/* tooling at a desk, not the installed battery */
};

#define LAB(n, f, w) { .name = n, .fn = f, .what = w }
#define DESK(n, f, w) { .name = n, .fn = f, .what = w, .desk = 1 }

static const struct command commands[] = {
	LAB("run", cmd_run, "run workloads (all of the battery by default), print KTAP"),
	LAB("baseline", cmd_baseline, "run workloads and record their baselines for this machine class"),
	LAB("list", cmd_list, "the battery, one workload and its purpose per line"),
	LAB("check", cmd_check, "validate workload files and their verdict blocks"),
	LAB("metrics", cmd_metrics, "every metric a verdict block may name"),
	LAB("analyze", cmd_analyze, "metrics (JSON), verdicts, --explain or --timeline of a finished run"),
	LAB("compare", cmd_compare, "every metric of two result directories, A vs B"),
	LAB("replay", cmd_replay, "the run protocol again on a workload's recorded rounds"),
	LAB("qualify", cmd_qualify, "record baselines, then K clean batteries against them"),
	LAB("fingerprint", cmd_fingerprint, "this machine's class, kernel and settings (--diff FILE)"),
	LAB("canary", cmd_canary, "one measurement of the machine, as JSON"),
	LAB("index", cmd_index, "write index.json of a run made before runs wrote one"),
	LAB("export", cmd_export, "a run as KCIDB I/O JSON, for KernelCI's database (python3)"),
	DESK("record", cmd_record, "trace a command, a process or the system, for a reproducer"),
	DESK("synthesize", cmd_synthesize, "an rt-app workload that behaves like threads of a trace"),
	DESK("fidelity", cmd_fidelity, "a synthesized workload run once, against its trace"),
	DESK("report", cmd_report, "one HTML page of a run, or of A against B (python3)"),
	DESK("history", cmd_history, "runs of successive kernels: where each metric changed (python3)"),
	DESK("vm", cmd_vm, "the battery on a kernel image, booted in a QEMU guest (python3)"),
	DESK("kbuild", cmd_kbuild, "a kernel for vm's guest from a source tree, with patches (python3)"),
	DESK("mutants", cmd_mutants, "the battery against scheduler bugs built into a kernel (python3)"),
	DESK("bisect", cmd_bisect, "the first commit of a kernel git tree at which workloads regress (python3)"),
	DESK("series", cmd_series, "the battery over a series of kernel packages: change points and their commits (python3)"),
	DESK("contribute", cmd_contribute, "a program to a reproducer, its breaker and baseline (python3)"),
};

static void print_commands(FILE *f, int desk)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].desk == desk)
			fprintf(f, "  %-12s %s\n", commands[i].name,
				commands[i].what);
}

/* "Exit: 0 pass, 1 a check failed, ...", folded within 62 columns. */
static void print_exit_codes(FILE *f)
{
	char text[512], *word, *save;
	size_t i, off, col = 0;

	off = snprintf(text, sizeof(text), "Exit:");
	for (i = 0; i < sw_exit_ncodes && off < sizeof(text); i++)
		off += snprintf(text + off, sizeof(text) - off, " %d %s%s",
				sw_exit_codes[i].code, sw_exit_codes[i].what,
				i + 1 < sw_exit_ncodes ? "," : ".");
	for (word = strtok_r(text, " ", &save); word;
	     word = strtok_r(NULL, " ", &save)) {
		if (col && col + 1 + strlen(word) > 62) {
			fputc('\n', f);
			col = 0;
		}
		col += fprintf(f, "%s%s", col ? " " : "", word);
	}
	fputc('\n', f);
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: sched-workloads [COMMAND] [options] [ARGS...]\n"
		"\n"
		"The battery, as a lab installs and runs it (no COMMAND: run):\n");
	print_commands(f, 0);
	fprintf(f, "\nTooling at a desk (a kernel tree):\n");
	print_commands(f, 1);
	fprintf(f,
		"\n\"sched-workloads COMMAND --help\" for its options.\n");
	print_exit_codes(f);
	fprintf(f,
		"\"sched-workloads --facts\" prints them as JSON, with the other\n"
		"facts its python3 programs take from the binary.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_usage(stdout);
		return SW_EXIT_PASS;
	}
	/* For the python3 programs, not a command of the battery's. */
	if (argc > 1 && !strcmp(argv[1], "--facts"))
		return cmd_facts(argc - 1, argv + 1);
	/* No command: "run", with the options given. */
	if (argc < 2 || argv[1][0] == '-') {
		argv[0] = "run";
		return cmd_run(argc, argv);
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "sched-workloads: unknown command \"%s\"\n", argv[1]);
	print_usage(stderr);
	return SW_EXIT_USAGE;
}
