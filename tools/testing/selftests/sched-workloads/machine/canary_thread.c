// SPDX-License-Identifier: GPL-2.0
/*
 * The canary's threads: their work and their bounded life
 * (machine/canary_thread.h).
 */
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "machine/canary_thread.h"

/* loop: one warm-up chunk, then LOOP_CHUNKS of LOOP_ITERS iterations. */
#define LOOP_ITERS	(1u << 21)
/* libm: as loop, a chunk of LIBM_ITERS steps of four ldexp calls. */
#define LIBM_ITERS	(1u << 17)
/*
 * The exponent Debian's rt-app 1.0 passes: gcc folds the inner calls of
 * its waste_cpu_cycles() to this constant and keeps four calls of
 * ldexp(0.95, 31129) a loop, each overflowing to inf (errno ERANGE).
 */
#define LIBM_EXP	31129
/* A pause between chunks lets kernel threads of that CPU run. */
#define LOOP_GAP_NS	NSEC_PER_MSEC
/* How often a join looks for a signal. */
#define JOIN_SLICE_NS	(50 * NSEC_PER_MSEC)

/* Keep the loops' results alive: the compiler cannot drop the loops. */
static uint64_t canary_sink;
static double canary_fsink;

static void sleep_until(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/*
 * A dependent chain of multiply, add, shift and xor: no shortcut. The
 * empty asm makes every step's value needed, so the compiler can neither
 * fold nor vectorise the loop.
 */
static uint64_t spin(uint64_t x, uint32_t n)
{
	while (n--) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		x ^= x >> 29;
		__asm__ __volatile__("" : "+r" (x));
	}
	return x;
}

/*
 * rt-app's own kind of work, as its Debian binary runs it: four calls of
 * ldexp() a step, through libm's errno-setting overflow path. A host can
 * slow this by 40% for a minute while spin() moves 1% (measured on the
 * AMD class): rt-app's rate follows this loop, not that one. The empty
 * asm hides the arguments, so that every call is made.
 */
static double libm_spin(uint32_t n)
{
	double x = 0.95, r = 0;
	int e = LIBM_EXP;

	while (n--) {
		__asm__ __volatile__("" : "+x" (x), "+r" (e));
		r += ldexp(x, e);
		r += ldexp(x, e);
		r += ldexp(x, e);
		r += ldexp(x, e);
		__asm__ __volatile__("" : "+x" (r));
	}
	return r;
}

int canary_must_stop(struct canary_stop *st)
{
	int why = __atomic_load_n(&st->why, __ATOMIC_RELAXED);

	if (why)
		return why;
	if (cleanup_interrupted())
		why = STOP_SIGNAL;
	else if (now_mono_ns() > st->deadline_ns)
		why = STOP_BOUND;
	if (why)
		__atomic_store_n(&st->why, why, __ATOMIC_RELAXED);
	return why;
}

static void record(struct canary_thread *t, double v)
{
	if (t->n < t->cap)
		t->samples[t->n++] = v;
}

/* loop and libm: timed chunks of the integer chain or of libm calls. */
static void loop_run(struct canary_thread *t)
{
	int libm = t->role == ROLE_LIBM;
	uint32_t iters = libm ? LIBM_ITERS : LOOP_ITERS;
	uint64_t x = (uint64_t)t->cpu + 1, t0, t1;
	double r = 0;
	int c;

	sleep_until(t->start_ns);
	for (c = 0; c <= LOOP_CHUNKS && !canary_must_stop(t->stop); c++) {
		t0 = now_mono_ns();
		if (libm)
			r += libm_spin(iters);
		else
			x = spin(x, iters);
		/* The loop is done before the clock is read again. */
		__asm__ __volatile__("" : "+r" (x), "+x" (r) : : "memory");
		t1 = now_mono_ns();
		if (c)
			record(t, (double)(t1 - t0) / iters);
		sleep_until(t1 + LOOP_GAP_NS);
	}
	__atomic_store_n(&canary_sink, x, __ATOMIC_RELAXED);
	canary_fsink = r;
}

static void timer_run(struct canary_thread *t)
{
	uint64_t exp, now;
	int i;

	for (i = 0; i < WARMUP + TIMER_PERIODS && !canary_must_stop(t->stop);
	     i++) {
		exp = t->start_ns + (uint64_t)i * TIMER_PERIOD_NS;
		sleep_until(exp);
		now = now_mono_ns();
		if (i >= WARMUP)
			record(t, (double)(now - exp) / 1000);
		/* Woken after later expiries: those never slept, skip them. */
		while (i + 1 < WARMUP + TIMER_PERIODS &&
		       t->start_ns + (uint64_t)(i + 1) * TIMER_PERIOD_NS <= now)
			i++;
	}
}

static long futex(uint32_t *uaddr, int op, uint32_t val,
		  const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

static void waker_run(struct canary_thread *t)
{
	struct canary_pair *p = t->pair;
	uint32_t i;

	for (i = 0; i < WARMUP + WAKES && !canary_must_stop(t->stop);
	     i++) {
		sleep_until(t->start_ns + (uint64_t)i * WAKE_PERIOD_NS);
		__atomic_store_n(&p->sent_ns, now_mono_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&p->seq, i + 1, __ATOMIC_RELEASE);
		futex(&p->seq, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
}

/*
 * Counts a wakeup only when futex_wait slept and returned for exactly
 * the next one: not when the word had moved on before it slept, nor when
 * the waker sent another before this thread read the send time.
 */
static void wakee_run(struct canary_thread *t)
{
	const struct timespec poll = { .tv_nsec = 100 * NSEC_PER_MSEC };
	struct canary_pair *p = t->pair;
	uint32_t seen = 0, s;
	uint64_t woke, sent;
	long r;

	while (seen < WARMUP + WAKES && now_mono_ns() < t->give_up_ns &&
	       !canary_must_stop(t->stop)) {
		r = futex(&p->seq, FUTEX_WAIT_PRIVATE, seen, &poll);
		woke = now_mono_ns();
		s = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		if (s == seen)
			continue;	/* timed out or spurious */
		sent = __atomic_load_n(&p->sent_ns, __ATOMIC_RELAXED);
		if (!r && s == seen + 1 && seen >= WARMUP &&
		    __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE) == s &&
		    woke >= sent)
			record(t, (double)(woke - sent) / 1000);
		seen = s;
	}
}

static void *canary_thread_main(void *arg)
{
	struct sched_param sp = { .sched_priority = CANARY_FIFO_PRIO };
	struct canary_thread *t = arg;
	cpu_set_t *set = CPU_ALLOC(t->setsize * 8);

	if (!set) {
		t->pin_err = ENOMEM;
		return NULL;
	}
	CPU_ZERO_S(t->setsize, set);
	CPU_SET_S(t->cpu, t->setsize, set);
	if (sched_setaffinity(0, t->setsize, set))
		t->pin_err = errno;
	CPU_FREE(set);
	if (t->pin_err)
		return NULL;
	/* SCHED_OTHER sleeps get 50 us of timer slack by default. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	t->fifo = !pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	memset(t->samples, 0, t->cap * sizeof(*t->samples));

	switch (t->role) {
	case ROLE_LOOP:
	case ROLE_LIBM:
		loop_run(t);
		break;
	case ROLE_TIMER:
		timer_run(t);
		break;
	case ROLE_WAKER:
		waker_run(t);
		break;
	case ROLE_WAKEE:
		wakee_run(t);
		break;
	}
	return NULL;
}

/* Joins @t by @until; 0, or -1 at @until or (@signals) at a signal. */
static int join_until(struct canary_thread *t, uint64_t until, int signals)
{
	struct timespec ts;
	uint64_t now, slice;

	for (;;) {
		now = now_mono_ns();
		slice = until > now ? until - now : 0;
		if (slice > JOIN_SLICE_NS)
			slice = JOIN_SLICE_NS;
		/* sliced: a signal does not end a timed join */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += slice / NSEC_PER_SEC;
		ts.tv_nsec += slice % NSEC_PER_SEC;
		if (ts.tv_nsec >= (long)NSEC_PER_SEC) {
			ts.tv_sec++;
			ts.tv_nsec -= NSEC_PER_SEC;
		}
		if (!pthread_timedjoin_np(t->tid, NULL, &ts))
			return 0;
		if ((signals && cleanup_interrupted()) ||
		    now_mono_ns() >= until)
			return -1;
	}
}

/*
 * A thread other tasks keep off its CPU (a higher real-time priority,
 * all the time) would hold the canary, and even the process's exit,
 * until they let it run: it may run on any CPU now, as a plain task,
 * and stops at its next check.
 */
static void release(struct canary_thread *t)
{
	struct sched_param sp = { 0 };
	cpu_set_t *all = CPU_ALLOC(t->setsize * 8);
	size_t c;

	if (all) {
		CPU_ZERO_S(t->setsize, all);
		for (c = 0; c < t->setsize * 8; c++)
			CPU_SET_S(c, t->setsize, all);
		pthread_setaffinity_np(t->tid, t->setsize, all);
		CPU_FREE(all);
	}
	pthread_setschedparam(t->tid, SCHED_OTHER, &sp);
}

/*
 * Joins @t, waiting until a second after the canary's bound, or until a
 * signal; then it is released and gets a second more. One that still
 * did not end is left to finish alone (-1: its memory must stay).
 */
static int join(struct canary_thread *t)
{
	int why, none = 0;

	if (!join_until(t, t->stop->deadline_ns + GIVE_UP_NS, 1))
		return 0;
	why = cleanup_interrupted() ? STOP_SIGNAL : STOP_BOUND;
	__atomic_compare_exchange_n(&t->stop->why, &none, why, 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	release(t);
	if (!join_until(t, now_mono_ns() + GIVE_UP_NS, 0))
		return 0;
	pthread_detach(t->tid);
	__atomic_store_n(&t->stop->why, STOP_LEFT, __ATOMIC_RELAXED);
	return -1;
}

int canary_threads_run(struct canary_thread *th, int n, struct sw_err *err)
{
	int i, created, ret = 0, e = 0, left = 0;

	for (created = 0; created < n; created++) {
		e = pthread_create(&th[created].tid, NULL, canary_thread_main,
				   &th[created]);
		if (e)
			break;
	}
	for (i = 0; i < created; i++)
		left |= join(&th[i]) != 0;
	if (left)
		return 1;
	if (e)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "canary: cannot create a thread: %s",
				  strerror(e));
	for (i = 0; i < n && !ret; i++)
		if (th[i].pin_err)
			ret = sw_err_set(err, SW_EXIT_RUN_ERROR,
					 "canary: cannot pin a thread to cpu%d: %s",
					 th[i].cpu, strerror(th[i].pin_err));
	return ret;
}

struct canary_thread *canary_threads_alloc(int n, size_t cap)
{
	struct canary_thread *th = calloc(n, sizeof(*th));
	int i;

	if (!th)
		return NULL;
	for (i = 0; i < n; i++) {
		th[i].cap = cap;
		th[i].samples = calloc(cap ? cap : 1, sizeof(double));
		if (!th[i].samples) {
			while (i--)
				free(th[i].samples);
			free(th);
			return NULL;
		}
	}
	return th;
}

void canary_threads_free(struct canary_thread *th, int n)
{
	int i;

	for (i = 0; th && i < n; i++)
		free(th[i].samples);
	free(th);
}
