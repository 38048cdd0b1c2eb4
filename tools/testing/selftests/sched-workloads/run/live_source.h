/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live source of a workload's rounds (run/rounds.h): its repetitions
 * run by rt-app now, each phased differently against the tick, and the
 * canary before each round. A repetition that other user tasks disturbed
 * is not counted: its neighbours are kept (explain.json's), and the
 * workload stops as "machine too busy" after a few in a row, or when the
 * canary cannot measure the machine within its bound. No repetition
 * starts past the battery's time limit (session_out_of_time()).
 */
#ifndef SW_LIVE_SOURCE_H
#define SW_LIVE_SOURCE_H

#include "run/rounds.h"
#include "run/session.h"

/* @src filled for @wl, the canary left out with battery_opts.no_canary. */
const struct rounds_source *live_source(struct wl *wl,
					struct rounds_source *src);

#endif /* SW_LIVE_SOURCE_H */
