// SPDX-License-Identifier: GPL-2.0
/*
 * Running the battery: every workload's first round in file-name order,
 * and the confirmation rounds of those with a check to judge again (a
 * regression, or a bound missed), each at least opts->confirm_gap_s
 * after the workload's round before (run/rounds.h, verdicts.rst):
 * between first rounds once their gap has passed, then, waiting for their
 * gaps, those still due. Results are printed in file-name order as they
 * become final (run/session.h).
 *
 * Every phase is bounded (the canary, rt-app, the gaps), and so is the
 * battery: past opts->time_limit_s (kselftest's timeout less a margin)
 * no round nor repetition starts. A workload not started SKIPs, one
 * whose confirmation is still due is judged on the rounds it has, its
 * unconfirmed checks SKIP (verdicts.rst): whatever runs beside it,
 * the battery ends within the timeout with every workload accounted for.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "lib/cleanup.h"
#include "run/battery.h"
#include "run/ktap.h"
#include "run/live_source.h"
#include "run/session.h"
#include "run/workload_run.h"

/* The baseline of this workload on this machine class, if any. */
static int load_baseline(struct wl *wl, struct sw_err *err)
{
	const struct session *s = wl->s;
	int ret;

	ret = baseline_find(s->o.baseline_dir, s->fp.class_name, wl->w.name,
			    s->fp.settings, &wl->base, wl->base_path,
			    sizeof(wl->base_path), wl->no_base,
			    sizeof(wl->no_base), err);
	if (ret < 0)
		return -1;
	wl->has_base = !ret;
	wl->p.base = wl->has_base ? &wl->base : NULL;
	wl->p.no_base = wl->no_base;
	return 0;
}

/* One round with the workload's sysctls in force; -1 on error. */
static int run_round(struct wl *wl, struct sw_err *err)
{
	struct rounds_source src;
	int ret;

	ret = wl_sysctls_apply(wl, err);
	if (ret)
		return ret < 0 ? -1 : 0;
	ret = rounds_next(&wl->p, live_source(wl, &src),
			  wl->s->o.repetitions, err);
	wl_sysctls_restore();
	if (ret < 0)
		return -1;
	if (ret > 0 && wl->p.nrounds == 1 && !wl->p.round[0].cur.reps) {
		/* Not one repetition counted: nothing to judge. */
		wl->status = V_SKIP;
		snprintf(wl->reason, sizeof(wl->reason), "%s", wl->p.stopped);
		rounds_free(&wl->p);
		wl->state = WL_DONE;
		return 0;
	}
	if (rounds_pending(&wl->p)) {
		ktap_diag("%s: %zu checks regressed or were beyond their bounds in round %zu; round %zu follows in %.0f s or more",
			  wl->w.name, verdict_pending(&wl->p.res), wl->p.nrounds,
			  wl->p.nrounds + 1, wl->s->o.confirm_gap_s);
		wl->state = WL_PENDING;
	} else {
		wl_finish(wl, NULL);
	}
	return 0;
}

/* Seconds until @wl's next round may start: the gap after its last. */
static double gap_left(const struct wl *wl)
{
	const struct round *rd = &wl->p.round[wl->p.nrounds - 1];

	return rd->end_s + wl->s->o.confirm_gap_s - now_mono_ns() / 1e9;
}

/* Waits until @wl's round before ended at least the gap ago. */
static int wait_gap(const struct wl *wl)
{
	double left = gap_left(wl);

	if (left > 0)
		ktap_diag("%s: waiting %.0f s before round %zu (rounds of a confirmation are %.0f s apart)",
			  wl->w.name, left, wl->p.nrounds + 1,
			  wl->s->o.confirm_gap_s);
	while (gap_left(wl) > 0) {
		if (cleanup_interrupted() || session_out_of_time(wl->s))
			return -1;
		usleep(200 * 1000);
	}
	return 0;
}

/* Past the time limit: what waits for a round is judged without it. */
static void close_pending(struct session *s)
{
	struct wl *wl;
	int i;

	for (i = 0; i < s->total; i++) {
		wl = &s->wls[i];
		if (wl->state != WL_PENDING)
			continue;
		wl->p.no_more = session_out_of_time(s);
		if (rounds_judge(&wl->p))
			continue;	/* out of memory: stays "interrupted" */
		wl_finish(wl, NULL);
	}
	session_flush(s);
}

/*
 * Confirmation rounds whose gap has passed, the longest due first; with
 * @wait, waits for each in turn until no workload is pending.
 */
static void confirmations(struct session *s, int wait)
{
	struct sw_err err = { 0 };
	struct wl *due;
	int i;

	while (!cleanup_interrupted()) {
		if (session_out_of_time(s)) {
			close_pending(s);
			return;
		}
		due = NULL;
		for (i = 0; i < s->total; i++)
			if (s->wls[i].state == WL_PENDING &&
			    (!due || gap_left(&s->wls[i]) < gap_left(due)))
				due = &s->wls[i];
		if (!due || (!wait && gap_left(due) > 0))
			return;
		/* cut short by a signal or the time limit: seen above */
		if (wait_gap(due))
			continue;
		ktap_diag("%s: round %zu: judging %zu checks again",
			  due->w.name, due->p.nrounds + 1,
			  verdict_pending(&due->p.res));
		if (run_round(due, &err))
			session_error(due, &err);
		session_flush(s);
	}
}

/*
 * The first round of every workload. A confirmation round whose gap has
 * passed runs before the next first round: the gap is spent measuring
 * other workloads, not waiting.
 */
static void first_rounds(struct session *s)
{
	struct sw_err err = { 0 };
	struct wl *wl;
	int i;

	for (i = 0; i < s->total && !cleanup_interrupted(); i++) {
		wl = &s->wls[i];
		if (wl->state == WL_DONE || wl_start(wl))
			continue;
		if (load_baseline(wl, &err))
			session_error(wl, &err);
	}
	for (i = 0; i < s->total && !cleanup_interrupted(); i++) {
		wl = &s->wls[i];
		if (wl->state != WL_NEW)
			continue;
		confirmations(s, 0);
		if (session_out_of_time(s)) {
			wl->status = V_SKIP;
			snprintf(wl->reason, sizeof(wl->reason),
				 "%s before it started", session_out_of_time(s));
			wl->state = WL_DONE;
		} else if (run_round(wl, &err)) {
			session_error(wl, &err);
		}
		session_flush(s);
	}
}

int battery_run(const struct battery_opts *o, char *const names[], int n)
{
	struct session s;
	int rc = session_open(&s, o, names, n);

	if (rc)
		return rc;
	first_rounds(&s);
	confirmations(&s, 1);
	return session_close(&s);
}

/*
 * The battery in a child of this process, forked, not executed again:
 * the kselftest counters, the cleanup stack and the signal state of a
 * battery are per process, and a battery that breaks leaves its caller
 * standing.
 */
int battery_run_logged(int (*run)(const struct battery_opts *o,
				  char *const names[], int n),
		       const struct battery_opts *o, char *const names[], int n,
		       const char *log)
{
	pid_t pid, self = getpid();
	int fd, status;

	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd);
		return -1;
	}
	if (!pid) {
		/* Killed with us, it still restores what it changed. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != self)
			_exit(127);
		dup2(fd, STDOUT_FILENO);
		setenv("SCHED_WORKLOADS_LOCK", "", 1);
		cleanup_install_handlers();
		_exit(run(o, names, n));
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
		/* Ours to stop: it restores what it changed, then exits. */
		if (cleanup_interrupted())
			kill(pid, SIGTERM);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
