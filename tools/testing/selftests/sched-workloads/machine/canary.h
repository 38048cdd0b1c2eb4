/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The canary: one second that measures the machine, not the scheduler.
 *
 * On a VM the host drifts: for a minute or two the same kernel wakes
 * tasks 2-3x slower, then it is back. The canary runs the same fixed
 * work before every workload and with every baseline, so that a
 * regression that comes and goes with it can be told from the kernel's.
 * Nothing in it depends on a scheduling decision: each thread is alone
 * on its CPU, so what it sees is the CPU, the timer, the idle exit and
 * the IPI as the host delivers them.
 */
#ifndef SW_CANARY_H
#define SW_CANARY_H

#include <stddef.h>

#include "lib/metric_set.h"
#include "lib/util.h"

/*
 * At most this many CPUs are measured, evenly spread over the online
 * CPUs the caller may run on, so the canary stays ~1 s on any machine.
 */
#define CANARY_MAX_CPUS		8
/* Its bound in a run: five times what it takes on an idle machine. */
#define CANARY_BOUND_S		5

/* What each row of the canary's table measures (its metric_def.arg). */
enum canary_value {
	CV_LOOP,
	CV_LIBM,
	CV_TIMER_P50,
	CV_TIMER_P90,
	CV_WAKE_P50,
	CV_FIFO,
};

/*
 * Measures the machine for about a second and adds SRC_CANARY entities
 * to @set: "cpu<N>" for each measured CPU, then "system" (all of them
 * pooled). Four phases, one after the other; in each, every measured
 * CPU runs one thread of the canary and nothing else of it:
 *
 *   loop   (~50 ms) a thread pinned to each CPU, SCHED_FIFO, runs a
 *          fixed integer recurrence in 10 chunks: canary.loop_ns is the
 *          median wall time per iteration (host steal, frequency);
 *   libm   (~30 ms) the same with rt-app's own loop, four libm ldexp()
 *          calls a step: canary.libm_ns. A host slowed it by 40% for a
 *          minute while loop_ns moved 1%, and rt-app's rates with it;
 *   timer  (0.31 s) a thread pinned to each CPU, SCHED_FIFO, sleeps to
 *          absolute CLOCK_MONOTONIC expiries 1 ms apart (the CPUs'
 *          expiries interleaved): canary.timer_lat.* is wakeup time minus
 *          expiry (idle exit, timer, vCPU wakeup); expiries it slept
 *          through are not counted;
 *   wake   (0.21 s a round; two rounds, three for an odd CPU count) a
 *          FIFO thread on one CPU wakes (futex) every 1 ms a FIFO thread
 *          blocked on another, idle, CPU: canary.wake_lat.p50 is the time
 *          from the waker's futex call to the wakee running (the IPI
 *          path); on a CPU entity, the wakeups that CPU received.
 *
 * 0.93 s on 2 CPUs. When the kernel refuses SCHED_FIFO, the threads run
 * SCHED_OTHER (timer slack 1 ns) and canary.fifo is 0: the values then
 * include whatever else runs there and do not compare with a FIFO
 * baseline. Threads are created and joined inside; the caller's
 * affinity and policy are not touched. With one CPU there is no
 * cross-CPU wakeup: canary.wake_lat.p50 is NAN.
 *
 * What moves it (2-CPU VM): the host's wakeup cost (a 1.3-1.6x drift
 * moved both p50s), the host taking the vCPU away (a FIFO hog 50% of
 * the time: loop_ns 1.55x, timer_lat.p90 1.7 ms; 10%: timer_lat.p90
 * only). Busy CPUs make the latencies LOWER (no idle exit: SCHED_OTHER
 * hogs on every CPU took timer_lat.p50 from 37 to 24 us), and SCHED_OTHER
 * load leaves loop_ns alone. It cannot see a scheduling decision (the
 * point), nor a drift shorter than itself.
 *
 * It ends within @bound_s whatever runs beside it: its threads stop at
 * the bound, or at a signal (lib/cleanup.h), between one step of work
 * and the next (a timer period, a chunk of a loop). A thread other tasks
 * keep off its CPU past the bound and a second more is left to finish
 * on its own; its memory is then not freed.
 *
 * Returns 0; 1 when it stopped before it measured everything, @why
 * saying why ("interrupted", or the bound passed and the thread of
 * another process that took most of the CPUs meanwhile, from
 * machine/task_load.h); -1 with @err set (SW_EXIT_RUN_ERROR) when a
 * thread cannot be created or pinned.
 */
int canary_measure(struct metric_set *set, double bound_s, char *why,
		   size_t len, struct sw_err *err);
/* Its rows of the metric registry (source SRC_CANARY). */
extern const struct metric_table canary_metric_table;

#endif /* SW_CANARY_H */
