/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One workload of a session (struct wl, run/session.h) from its start to
 * its files: its prerequisites, its directory and the copy of its file, a
 * refusal run at once, its sysctls around each round, and once its rounds
 * are over its samples, rounds, settings and verdicts written and its
 * status final. Between the two its caller runs the rounds.
 */
#ifndef SW_WORKLOAD_RUN_H
#define SW_WORKLOAD_RUN_H

#include "run/session.h"

/*
 * Everything before a workload's first round: its prerequisites, its
 * directory and the copy of its file; a workload the kernel must refuse
 * runs now and is done. The rounds are set up for the battery's rules
 * (extend: a split check takes repetitions; confirm: a regression a
 * round); the caller sets the baseline. 1 when the workload is done, -1
 * on error (it is done then too).
 */
int wl_start(struct wl *wl);
/*
 * Sets the workload's sysctls for its next repetitions: 0, or 1 when the
 * kernel refuses one (the workload is done: SKIP), or -1 on error.
 * wl_sysctls_restore() puts them back.
 */
int wl_sysctls_apply(struct wl *wl, struct sw_err *err);
void wl_sysctls_restore(void);
/*
 * Its rounds are over: samples, rounds, settings and verdicts written,
 * @keep (may be NULL) called with every repetition before the rounds are
 * freed, the status final.
 */
void wl_finish(struct wl *wl,
	       int (*keep)(struct wl *wl, const struct sample_set *all,
			   struct sw_err *err));

#endif /* SW_WORKLOAD_RUN_H */
