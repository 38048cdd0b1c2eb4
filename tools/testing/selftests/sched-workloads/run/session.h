/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session: what a battery (run/battery.c: judging rounds) and the
 * recording of baselines (run/baseline_record.c) share around their
 * workloads. It picks and loads the workloads, takes the live lock,
 * restores what a killed run left changed, makes the results directory
 * with its fingerprint, keeps the battery's time limit, prints the KTAP
 * of the workloads that are final in file-name order (updating the
 * index) and releases them, and at its close writes time.json and leaves
 * the machine as found. A workload's own start and finish are
 * run/workload_run.h's, its repetitions run/live_source.h's.
 */
#ifndef SW_SESSION_H
#define SW_SESSION_H

#include <limits.h>
#include <stdint.h>

#include "judge/baseline.h"
#include "judge/checks.h"
#include "machine/fingerprint.h"
#include "judge/verdict.h"
#include "rtapp/workload.h"
#include "run/repetition.h"
#include "run/rounds.h"

/* ns per loop of rt-app's run events (rt-app's own calibration varies) */
#define BATTERY_CALIBRATION	10
/* per CPU: lost no events under hackbench */
#define BATTERY_BUFFER_KB	32768
/*
 * Repetitions: the stable metrics (medians of a run) spread 5-10% from
 * run to run here, their tails 100-1000%. Three runs give a median that
 * one disturbed run cannot move, and a rank test that can reach p = 0.018
 * against a baseline of five (1 / C(8, 3)); five for the baseline make
 * it the larger, longer-lived side.
 */
#define BATTERY_REPS		3
#define BATTERY_BASELINE_REPS	5
/*
 * Rounds of a confirmation: the host drift seen on VMs lasts a minute or
 * two; three rounds at least a minute apart span more than two.
 */
#define BATTERY_CONFIRM_GAP_S	60
/*
 * A battery's time limit: kselftest's timeout (settings: 900 s) less
 * what may still run past the limit: the repetition in flight (rt-app
 * killed at 1.5 times its duration plus 10 s, then its trace and
 * analysis) and the summary. No round or repetition starts after it.
 */
#define BATTERY_TIME_LIMIT_S	840

/* The options of a battery, judging or recording baselines. */
struct battery_opts {
	const char *workload_dir;	/* NULL: workloads/ by the binary */
	const char *results_root;	/* NULL: ./results, else /tmp */
	const char *baseline_dir;	/* NULL: baselines/ by the binary */
	long calibration;		/* ns per loop for run events */
	size_t buffer_kb;		/* trace buffer per CPU */
	int repetitions;		/* of each workload, in each round */
	double confirm_gap_s;		/* least time between two rounds */
	double time_limit_s;		/* 0: none (run/battery.c) */
	/*
	 * No canary before the rounds: a machine that cannot drift (the
	 * deterministic guest, whose clock counts its instructions) has
	 * nothing for it to explain.
	 */
	int no_canary;
};

/* The defaults above, for a run or for recording @baseline. */
void battery_opts_init(struct battery_opts *o, int baseline);

enum wl_state { WL_NEW, WL_PENDING, WL_DONE };

struct session;

/* One workload through a battery or a recording. */
struct wl {
	struct session *s;
	struct workload w;
	struct verdict_block vb;
	struct baseline base;	/* a battery's: the baseline judged against */
	char base_path[PATH_MAX];	/* its file */
	int has_base;
	struct rounds p;
	char dir[PATH_MAX];	/* results/<run>/<workload> */
	int next_rep;		/* the number of its next repetition */
	int disturbed;		/* repetitions disturbed in a row */
	enum wl_state state;
	enum verdict_status status;
	char reason[SW_ERR_LEN];
	int exit_code;		/* for bad input: SW_EXIT_* */
	char no_base[SW_ERR_LEN];	/* why baseline checks SKIP */
	/*
	 * The user tasks outside the workload that ran most in its last
	 * disturbed repetition (explain.json's "neighbours"), or NULL.
	 */
	struct json_object *neighbours;
	struct verdict_results res;	/* what is printed */
};

struct session {
	struct battery_opts o;	/* the directories resolved */
	char workload_dir[PATH_MAX], baseline_dir[PATH_MAX];
	struct wl *wls;
	int total;
	int next;		/* the first workload not printed yet */
	int bad_input;		/* a workload file was invalid */
	char **paths;
	char results[PATH_MAX];
	int have_results;
	struct fingerprint fp;
	int lock;
	uint64_t t0;
	char out_of_time[160];	/* why no more rounds start, once so */
	struct repetition_cost cost;	/* where the time went */
	double canary_s;
};

/*
 * Picks and loads the workloads (@names, or all of the directory), takes
 * the live lock, restores what a killed run left changed, makes the
 * results directory. A workload that cannot run here is done already
 * (SKIP or error, with the reason). Returns 0, or the exit code when
 * nothing can be run at all (bad names).
 */
int session_open(struct session *s, const struct battery_opts *o,
		 char *const names[], int n);
/*
 * NULL while the battery's time limit is ahead (or there is none); else
 * why no round nor repetition may start any more.
 */
const char *session_out_of_time(struct session *s);
/* A workload broken by @err (or interrupted): done. */
void session_error(struct wl *wl, const struct sw_err *err);
/*
 * Prints the workloads that are final, in order, updates the index and
 * frees what they held.
 */
void session_flush(struct session *s);
/*
 * What was not judged is SKIP ("interrupted"); everything printed, the
 * totals, time.json; the lock released and the machine as found.
 * Returns the exit code of the battery.
 */
int session_close(struct session *s);

#endif /* SW_SESSION_H */
