/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout of a results directory, the one place that knows it:
 *
 *   <root>/<YYYYmmdd-HHMMSS>-<release>/    one run
 *     index.json                  what is where, and every workload's state
 *     fingerprint.json, time.json the machine and kernel; where time went
 *     <workload>/
 *       <workload>.json           the workload file as run
 *       verdicts.json             its checks' results
 *       samples.json, rounds.json every counted repetition's metrics; the
 *       settings.json             rounds, their canaries; settings in force
 *       rep-<K>/                  one repetition: run.json, rt-app.out,
 *                                 rt-app-<task>-<i>.log, trace.dat,
 *                                 kthreads.txt, cores.txt (the SMT cores),
 *                                 metrics.json, events.json,
 *                                 explain.txt and .json
 *
 * C asks these functions for a path; the python3 programs read the same
 * layout from the run's index.json (results_layout_json()).
 */
#ifndef SW_RESULTS_H
#define SW_RESULTS_H

#include <stddef.h>
#include <time.h>

enum results_file {
	/* a run's */
	RF_INDEX,
	RF_FINGERPRINT,
	RF_TIME,
	/* a workload's */
	RF_VERDICTS,
	RF_SAMPLES,
	RF_ROUNDS,
	RF_SETTINGS,
	/* a repetition's */
	RF_RUN_JSON,
	RF_RTAPP_OUT,
	RF_TRACE,
	RF_KTHREADS,
	RF_CORES,
	RF_METRICS,
	RF_EVENTS,
	RF_EXPLAIN,
	RF_EXPLAIN_JSON,
	RF_NR,
};

/* A repetition's directory is the prefix and its number: rep-1. */
#define RESULTS_REP_PREFIX	"rep-"
/* rt-app's log_basename in a repetition: rt-app-<task>-<i>.log */
#define RESULTS_RTAPP_BASENAME	"rt-app"

/* The file's name in its directory: "verdicts.json". */
const char *results_name(enum results_file f);
/* @dir/<name of @f>; -1 when it does not fit in @len. */
int results_path(char *buf, size_t len, const char *dir, enum results_file f);
/* @root/<YYYYmmdd-HHMMSS>-<release>, the run of @when (local time). */
int results_run_dir(char *buf, size_t len, const char *root, time_t when,
		    const char *release);
/* @run/@workload, and the copy of its file there: @wdir/<workload>.json */
int results_workload_dir(char *buf, size_t len, const char *run,
			 const char *workload);
int results_workload_copy(char *buf, size_t len, const char *wdir,
			  const char *workload);
/* @wdir/rep-<id> */
int results_rep_dir(char *buf, size_t len, const char *wdir, int id);

struct json_object;
/*
 * The layout as index.json states it, paths relative to the run with
 * "{workload}" and "{rep}" standing for a workload's name and a
 * repetition's number: {"run": {"fingerprint": "fingerprint.json", ...},
 * "workload": {"dir": "{workload}", "copy": "{workload}/{workload}.json",
 * "verdicts": ...}, "repetition": {"dir": "{workload}/rep-{rep}",
 * "metrics": ...}}.
 */
struct json_object *results_layout_json(void);
/* The key of @f in that object ("verdicts"). */
const char *results_key(enum results_file f);

#endif /* SW_RESULTS_H */
