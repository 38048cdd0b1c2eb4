// SPDX-License-Identifier: GPL-2.0
/*
 * sched_stream_check: feed the trace analysis's scheduler state machine
 * (trace/trace_events.h) a text stream of sched events on any number of CPUs,
 * without a trace.dat, and print the trace metrics as metrics.json does.
 * For tests of machines this one is not (256 CPUs, 8192).
 *
 *   sched_stream_check [-a] [-A GLOB=CPULIST]... [-t GLOB]... [-C CORES]
 *                      NCPUS < STREAM
 *
 * -a, -A, -t and -C as trace_check's (checker_opts.h). One record per line, in time order:
 *
 *   TS_NS CPU PID switch PREV_PID PREV_COMM PREV_PRIO PREV_STATE NEXT_PID NEXT_COMM NEXT_PRIO
 *   TS_NS CPU PID waking|wakeup|wakeup_new WPID COMM PRIO TARGET_CPU
 *   TS_NS CPU PID migrate MPID COMM ORIG_CPU DEST_CPU
 *   TS_NS CPU PID exit XPID COMM
 *
 * PID is the record's common_pid. Blank lines and '#' lines are skipped.
 * A malformed line is an error naming its number (exit 2).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace_conditions.h"
#include "trace/trace_events.h"
#include "trace/trace_infer.h"
#include "trace/trace_report.h"
#include "trace/trace_sched.h"
#include "trace/trace_metrics.h"	/* ta_classify() */
#include "checker_opts.h"

/* One line's event; 0, or -1 when malformed. */
static int feed(struct trace_report *r, const char *line)
{
	char ev[16], c1[TA_COMM_LEN], c2[TA_COMM_LEN];
	unsigned long long ts;
	int cpu, pid, a, b, c, e, f, n = 0;
	long state;

	if (sscanf(line, "%llu %d %d %15s %n", &ts, &cpu, &pid, ev, &n) != 4 ||
	    cpu < 0 || cpu >= r->ncpus)
		return -1;
	line += n;
	ts = ta_record(r, cpu, pid, ts, 0);
	if (!strcmp(ev, "switch")) {
		if (sscanf(line, "%d %15s %d %ld %d %15s %d", &a, c1, &b,
			   &state, &c, c2, &e) != 7)
			return -1;
		r->nswitch++;
		ta_switch(r, cpu, ts, a, c1, b, state, c, c2, e);
	} else if (!strcmp(ev, "waking") || !strcmp(ev, "wakeup") ||
		   !strcmp(ev, "wakeup_new")) {
		if (sscanf(line, "%d %15s %d %d", &a, c1, &b, &c) != 4 ||
		    c < 0 || c >= r->ncpus)
			return -1;
		if (!strcmp(ev, "waking"))
			ta_waking(r, ts, a, c1, b, c, 0, pid);
		else
			ta_wakeup(r, ts, a, c1, b, c, !strcmp(ev, "wakeup_new"),
				  pid);
	} else if (!strcmp(ev, "migrate")) {
		if (sscanf(line, "%d %15s %d %d", &a, c1, &e, &f) != 4 ||
		    e < 0 || e >= r->ncpus || f < 0 || f >= r->ncpus)
			return -1;
		ta_migrate(r, ts, a, c1, e, f);
	} else if (!strcmp(ev, "exit")) {
		if (sscanf(line, "%d %15s", &a, c1) != 2)
			return -1;
		ta_exit(r, ts, a, c1);
	} else {
		return -1;
	}
	ta_reevaluate(r, ts);
	return 0;
}

static int help(void)
{
	fputs("sched_stream_check [-a] [-A GLOB=CPUS]... [-t GLOB]... [-C CORES] NCPUS < STREAM\n",
	      stderr);
	return SW_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct checker_opts c = { 0 };
	struct metric_set set = { 0 };
	struct trace_report *r;
	unsigned long lineno = 0;
	char line[512];
	int opt, ncpus;

	while ((opt = getopt(argc, argv, "aA:t:C:")) != -1)
		if (checker_opt(&c, opt, optarg) != 1)
			return help();
	if (optind != argc - 1)
		return help();
	checker_opts_done(&c);
	ncpus = atoi(argv[optind]);
	r = calloc(1, sizeof(*r));
	if (!r || ta_report_init(r, "stdin", ncpus, &c.o)) {
		fprintf(stderr, "sched_stream_check: bad CPU count %s, or out of memory\n",
			argv[optind]);
		trace_report_free(r);
		return SW_EXIT_USAGE;
	}
	while (fgets(line, sizeof(line), stdin)) {
		lineno++;
		if (line[strspn(line, " \t\n")] == '\0' || line[0] == '#')
			continue;
		if (feed(r, line)) {
			fprintf(stderr, "sched_stream_check: stdin:%lu: malformed record: %s",
				lineno, line);
			trace_report_free(r);
			return SW_EXIT_USAGE;
		}
	}
	ta_finish(r);
	ta_classify(r);
	trace_report_explain(r, stderr);
	if (trace_report_add_metrics(r, &c.o, &set) ||
	    metric_set_write_json(&set, stdout)) {
		fprintf(stderr, "sched_stream_check: %s\n", strerror(errno));
		trace_report_free(r);
		return SW_EXIT_RUN_ERROR;
	}
	metric_set_free(&set);
	trace_report_free(r);
	return SW_EXIT_PASS;
}
