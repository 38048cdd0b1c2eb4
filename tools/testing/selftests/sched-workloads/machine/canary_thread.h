/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The threads of the canary (machine/canary.h), for machine/canary.c:
 * each pinned to one CPU, SCHED_FIFO when the kernel allows it, doing one
 * role's fixed work and timing it into an array allocated and touched
 * before it starts, so that nothing allocates or takes a lock while it
 * measures. Every thread stops at the canary's bound or a signal,
 * between one step of work and the next; a wakee whose waker never came
 * gives up a second after its phase should have ended; one that other
 * tasks keep off its CPU past the bound is let go: joining never hangs.
 */
#ifndef SW_CANARY_THREAD_H
#define SW_CANARY_THREAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

#define NSEC_PER_MSEC	1000000ull
#define NSEC_PER_SEC	1000000000ull

#define CANARY_FIFO_PRIO	50
/* loop and libm: one warm-up chunk, then LOOP_CHUNKS timed ones. */
#define LOOP_CHUNKS	10
/* timer and wake: WARMUP periods not counted, then the measured ones. */
#define TIMER_PERIOD_NS	NSEC_PER_MSEC
#define TIMER_PERIODS	300
#define WAKE_PERIOD_NS	NSEC_PER_MSEC
#define WAKES		200
#define WARMUP		10
/* How long past its end a phase, or the bound, is waited for. */
#define GIVE_UP_NS	NSEC_PER_SEC

enum canary_role { ROLE_LOOP, ROLE_LIBM, ROLE_TIMER, ROLE_WAKER, ROLE_WAKEE };

/* When every thread of the canary stops: at the bound, or a signal. */
struct canary_stop {
	uint64_t deadline_ns;
	int why;		/* STOP_*, set once, read by every thread */
};

enum { STOP_NONE, STOP_BOUND, STOP_SIGNAL, STOP_LEFT };

/* What a waker and its wakee share. */
struct canary_pair {
	uint32_t seq;		/* futex word: wakeups sent so far */
	uint64_t sent_ns;	/* when the last one was sent */
};

struct canary_thread {
	pthread_t tid;
	struct canary_stop *stop;
	enum canary_role role;
	int cpu;
	size_t setsize;		/* CPU_ALLOC_SIZE for pinning */
	uint64_t start_ns;	/* first chunk, expiry or wakeup */
	uint64_t give_up_ns;
	struct canary_pair *pair;
	double *samples;
	size_t n, cap;
	int fifo;		/* it got SCHED_FIFO */
	int pin_err;		/* errno of pinning, 0 when pinned */
};

/* Whether to stop now (STOP_*, 0: go on), checked between two steps. */
int canary_must_stop(struct canary_stop *st);
/* @n threads, each with room for @cap samples; NULL when out of memory. */
struct canary_thread *canary_threads_alloc(int n, size_t cap);
void canary_threads_free(struct canary_thread *th, int n);
/*
 * Starts the @n threads of @th, set up by the caller (role, CPU, stop,
 * start, pair), and joins them all. A creation failure stops the
 * creating; those started still finish (or give up) and are joined.
 * Returns 0; 1 when one was left running (the memory of @th and of what
 * it points to must then stay); -1 with @err when a thread could not be
 * created or pinned.
 */
int canary_threads_run(struct canary_thread *th, int n, struct sw_err *err);

#endif /* SW_CANARY_THREAD_H */
