// SPDX-License-Identifier: GPL-2.0
/*
 * The canary: fixed work on each CPU, timed (judge/machine_drift.c
 * compares it with a baseline's).
 *
 * Every thread measures into an array allocated and touched before its
 * phase starts, so nothing allocates or takes a lock while it measures. A
 * thread that cannot finish (its partner never came) gives up a second
 * after its phase should have ended; every thread stops at the canary's
 * bound or a signal, and one kept off its CPU past the bound is not
 * waited for: joining never hangs.
 */
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/cpu_list.h"
#include "lib/stats.h"
#include "machine/canary.h"
#include "machine/task_load.h"

#define NSEC_PER_MSEC	1000000ull
#define NSEC_PER_SEC	1000000000ull

/* loop: one warm-up chunk, then LOOP_CHUNKS of LOOP_ITERS iterations. */
#define LOOP_CHUNKS	10
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
/* timer and wake: WARMUP periods not counted, then the measured ones. */
#define TIMER_PERIOD_NS	NSEC_PER_MSEC
#define TIMER_PERIODS	300
#define WAKE_PERIOD_NS	NSEC_PER_MSEC
#define WAKES		200
#define WARMUP		10
/* Time for the threads of a phase to start, pin and block. */
#define SETUP_NS	(20 * NSEC_PER_MSEC)
#define GIVE_UP_NS	NSEC_PER_SEC
/* How often a join looks for a signal. */
#define JOIN_SLICE_NS	(50 * NSEC_PER_MSEC)

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

/* What one CPU, or all of them pooled ("system"), measured. */
struct canary_cpu {
	int fifo;		/* every thread that measured it ran FIFO */
	struct series loop;	/* ns per iteration, one per chunk */
	struct series libm;	/* ns per libm step, one per chunk */
	struct series timer;	/* us late, one per expiry */
	struct series wake;	/* us from futex wake to running */
};

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

/* Whether to stop now; checked between one step of work and the next. */
static int must_stop(struct canary_stop *st)
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
	for (c = 0; c <= LOOP_CHUNKS && !must_stop(t->stop); c++) {
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

	for (i = 0; i < WARMUP + TIMER_PERIODS && !must_stop(t->stop); i++) {
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

	for (i = 0; i < WARMUP + WAKES && !must_stop(t->stop); i++) {
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
	       !must_stop(t->stop)) {
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

/*
 * Starts @n threads and joins them all. A creation failure stops the
 * creating; those started still finish (or give up) and are joined.
 * Returns 1 when one was left running (its memory must then stay).
 */
static int run_threads(struct canary_thread *th, int n, struct sw_err *err)
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

/*
 * The CPUs to measure: online ones the caller may run on, at most
 * CANARY_MAX_CPUS of them spread evenly. Returns how many, 0 on error.
 */
static int pick_cpus(int *ids, size_t *setsize, struct sw_err *err)
{
	size_t bits = sysconf(_SC_NPROCESSORS_CONF) > 0 ?
		      sysconf(_SC_NPROCESSORS_CONF) : 1;
	cpu_set_t *aff = NULL, *online = NULL;
	int *all = NULL, n = 0, m = 0, i;
	size_t size, c;
	char *text;

	/* The kernel refuses a mask shorter than its own: grow until not. */
	for (;;) {
		size = CPU_ALLOC_SIZE(bits);
		aff = CPU_ALLOC(bits);
		if (!aff)
			goto nomem;
		if (!sched_getaffinity(0, size, aff))
			break;
		CPU_FREE(aff);
		aff = NULL;
		if (errno != EINVAL || bits > (1u << 22)) {
			sw_err_set(err, SW_EXIT_RUN_ERROR,
				   "canary: sched_getaffinity: %s",
				   strerror(errno));
			goto out;
		}
		bits *= 2;
	}
	online = CPU_ALLOC(bits);
	all = calloc(size * 8, sizeof(*all));
	if (!online || !all)
		goto nomem;
	text = read_text_file("/sys/devices/system/cpu/online", NULL);
	if (!text || cpu_list_parse(text, online, size))
		memcpy(online, aff, size);	/* no sysfs: trust the mask */
	free(text);
	for (c = 0; c < size * 8; c++)
		if (CPU_ISSET_S(c, size, aff) && CPU_ISSET_S(c, size, online))
			all[n++] = c;
	if (!n) {
		sw_err_set(err, SW_EXIT_RUN_ERROR,
			   "canary: no online CPU in this process's affinity");
		goto out;
	}
	m = n < CANARY_MAX_CPUS ? n : CANARY_MAX_CPUS;
	for (i = 0; i < m; i++)
		ids[i] = all[(size_t)i * n / m];
	*setsize = size;
	goto out;
nomem:
	sw_err_set(err, SW_EXIT_RUN_ERROR, "canary: out of memory");
out:
	free(all);
	if (online)
		CPU_FREE(online);
	if (aff)
		CPU_FREE(aff);
	return m;
}

static struct canary_thread *threads_alloc(int n, size_t cap)
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

static void threads_free(struct canary_thread *th, int n)
{
	int i;

	for (i = 0; th && i < n; i++)
		free(th[i].samples);
	free(th);
}

/* The series a thread of @role fills. */
static struct series *series_of(struct canary_cpu *c, enum canary_role role)
{
	switch (role) {
	case ROLE_LOOP:
		return &c->loop;
	case ROLE_LIBM:
		return &c->libm;
	case ROLE_TIMER:
		return &c->timer;
	case ROLE_WAKER:
	case ROLE_WAKEE:
		break;
	}
	return &c->wake;
}

/* Adds a thread's samples to its CPU's series and to the system's. */
static int collect(const struct canary_thread *t, struct canary_cpu *cpu,
		   struct canary_cpu *sys)
{
	struct series *a = series_of(cpu, t->role), *b = series_of(sys, t->role);
	size_t i;

	for (i = 0; i < t->n; i++)
		if (series_add(a, t->samples[i]) || series_add(b, t->samples[i]))
			return -1;
	if (!t->fifo)
		cpu->fifo = sys->fifo = 0;
	return 0;
}

/*
 * loop, libm then timer: one thread per CPU, all CPUs at once. Returns 0,
 * 1 when a thread was left running (its memory stays), -1 on error.
 */
static int phase_per_cpu(enum canary_role role, const int *ids, int m,
			 size_t setsize, struct canary_stop *stop,
			 struct canary_cpu *cpus, struct canary_cpu *sys,
			 struct sw_err *err)
{
	size_t cap = role == ROLE_TIMER ? TIMER_PERIODS : LOOP_CHUNKS;
	struct canary_thread *th = threads_alloc(m, cap);
	uint64_t start = now_mono_ns() + SETUP_NS;
	int i, ret = -1;

	if (!th)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "canary: out of memory");
	for (i = 0; i < m; i++) {
		th[i].stop = stop;
		th[i].role = role;
		th[i].cpu = ids[i];
		th[i].setsize = setsize;
		/* Spread the CPUs' expiries over a period: one at a time. */
		th[i].start_ns = start + (role == ROLE_TIMER ?
					  TIMER_PERIOD_NS * i / m : 0);
	}
	ret = run_threads(th, m, err);
	if (ret > 0)
		return 1;	/* a thread left running keeps its memory */
	if (ret)
		goto out;
	ret = -1;
	for (i = 0; i < m; i++)
		if (collect(&th[i], &cpus[i], sys))
			goto nomem;
	ret = 0;
	goto out;
nomem:
	sw_err_set(err, SW_EXIT_RUN_ERROR, "canary: out of memory");
out:
	threads_free(th, m);
	return ret;
}

/*
 * One round of cross-CPU wakeups: wakee k runs on CPU ids[tgt[k]],
 * its waker on ids[src[k]]; no CPU appears twice in a round. Returns as
 * phase_per_cpu().
 */
static int wake_round(const int *ids, const int *tgt, const int *src, int np,
		      size_t setsize, struct canary_stop *stop,
		      struct canary_cpu *cpus, struct canary_cpu *sys,
		      struct sw_err *err)
{
	struct canary_pair *pairs = calloc(np, sizeof(*pairs));
	struct canary_thread *th = threads_alloc(2 * np, WAKES);
	uint64_t start = now_mono_ns() + SETUP_NS;
	int k, ret = -1;

	if (!pairs || !th) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "canary: out of memory");
		goto out;
	}
	for (k = 0; k < np; k++) {
		struct canary_thread *wakee = &th[2 * k], *waker = &th[2 * k + 1];

		wakee->stop = waker->stop = stop;
		wakee->role = ROLE_WAKEE;
		wakee->cpu = ids[tgt[k]];
		waker->role = ROLE_WAKER;
		waker->cpu = ids[src[k]];
		wakee->pair = waker->pair = &pairs[k];
		wakee->setsize = waker->setsize = setsize;
		waker->start_ns = start + WAKE_PERIOD_NS * k / np;
		wakee->give_up_ns = start + (WARMUP + WAKES) * WAKE_PERIOD_NS +
				    GIVE_UP_NS;
	}
	ret = run_threads(th, 2 * np, err);
	if (ret > 0)
		return 1;	/* a thread left running keeps its memory */
	if (ret)
		goto out;
	ret = -1;
	for (k = 0; k < np; k++) {
		if (collect(&th[2 * k], &cpus[tgt[k]], sys)) {
			sw_err_set(err, SW_EXIT_RUN_ERROR, "canary: out of memory");
			goto out;
		}
		/* The waker's policy matters too: it must send on time. */
		if (!th[2 * k + 1].fifo)
			cpus[tgt[k]].fifo = sys->fifo = 0;
	}
	ret = 0;
out:
	threads_free(th, 2 * np);
	free(pairs);
	return ret;
}

/*
 * Every measured CPU is woken once per round set: round 0 wakes the even
 * positions from the next one, round 1 the odd ones from the previous,
 * and with an odd count the last position is woken from the first in a
 * round of its own.
 */
static int phase_wake(const int *ids, int m, size_t setsize,
		      struct canary_stop *stop, struct canary_cpu *cpus,
		      struct canary_cpu *sys, struct sw_err *err)
{
	int tgt[CANARY_MAX_CPUS], src[CANARY_MAX_CPUS], np, k, ret;

	np = 0;
	for (k = 0; k + 1 < m; k += 2) {
		tgt[np] = k;
		src[np++] = k + 1;
	}
	ret = np ? wake_round(ids, tgt, src, np, setsize, stop, cpus, sys,
			      err) : 0;
	if (ret || must_stop(stop))
		return ret;
	np = 0;
	for (k = 1; k < m; k += 2) {
		tgt[np] = k;
		src[np++] = k - 1;
	}
	ret = np ? wake_round(ids, tgt, src, np, setsize, stop, cpus, sys,
			      err) : 0;
	if (ret || must_stop(stop) || m < 3 || !(m % 2))
		return ret;
	tgt[0] = m - 1;
	src[0] = 0;
	return wake_round(ids, tgt, src, 1, setsize, stop, cpus, sys, err);
}

/* Why the canary stopped short, into @why; 1. */
static int stopped(int why_stopped, double bound_s,
		   const struct task_load *before, char *why, size_t len)
{
	struct task_load after;
	char who[128];

	if (why_stopped == STOP_SIGNAL || cleanup_interrupted()) {
		snprintf(why, len, "interrupted");
		return 1;
	}
	if (task_load_read(&after))
		snprintf(who, sizeof(who), "/proc unreadable");
	else
		task_load_heaviest(before, &after, who, sizeof(who));
	task_load_free(&after);
	snprintf(why, len,
		 "the canary could not measure the machine within %.0f s: other tasks took its CPUs, the heaviest %s",
		 bound_s, who);
	return 1;
}

int canary_measure(struct metric_set *set, double bound_s, char *why,
		   size_t len, struct sw_err *err)
{
	struct canary_cpu cpus[CANARY_MAX_CPUS] = { 0 }, sys = { 0 };
	/* on the heap: a thread left running still reads it */
	struct canary_stop *stop = calloc(1, sizeof(*stop));
	int ids[CANARY_MAX_CPUS], m, i, ret = -1, why_stopped;
	static const enum canary_role per_cpu[] = {
		ROLE_LOOP, ROLE_LIBM, ROLE_TIMER,
	};
	struct task_load before = { 0 };
	size_t setsize = 0;
	char name[32];

	if (!stop)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "canary: out of memory");
	m = pick_cpus(ids, &setsize, err);
	if (!m) {
		free(stop);
		return -1;
	}
	stop->deadline_ns = now_mono_ns() + (uint64_t)(bound_s * NSEC_PER_SEC);
	/* without /proc, a canary past its bound names no one */
	task_load_read(&before);
	sys.fifo = 1;
	for (i = 0; i < m; i++)
		cpus[i].fifo = 1;
	for (i = 0; i < (int)ARRAY_SIZE(per_cpu) && !must_stop(stop); i++) {
		ret = phase_per_cpu(per_cpu[i], ids, m, setsize, stop, cpus,
				    &sys, err);
		if (ret < 0)
			goto out;
	}
	ret = must_stop(stop) ? 0 : phase_wake(ids, m, setsize, stop, cpus,
						&sys, err);
	if (ret < 0)
		goto out;
	/* what a thread or a check between phases saw, not the clock now */
	why_stopped = __atomic_load_n(&stop->why, __ATOMIC_RELAXED);
	if (why_stopped) {
		ret = stopped(why_stopped, bound_s, &before, why, len);
		goto out;
	}
	ret = -1;
	for (i = 0; i < m; i++) {
		snprintf(name, sizeof(name), "cpu%d", ids[i]);
		if (metric_set_add_entity(set, &canary_metric_table,
					  SRC_CANARY, &cpus[i], name, name,
					  ids[i]))
			goto nomem;
	}
	if (metric_set_add_entity(set, &canary_metric_table, SRC_CANARY,
				  &sys, "system", "system", -1))
		goto nomem;
	ret = 0;
	goto out;
nomem:
	sw_err_set(err, SW_EXIT_RUN_ERROR, "canary: out of memory");
out:
	if (__atomic_load_n(&stop->why, __ATOMIC_RELAXED) != STOP_LEFT)
		free(stop);
	task_load_free(&before);
	for (i = 0; i < m; i++) {
		series_free(&cpus[i].loop);
		series_free(&cpus[i].libm);
		series_free(&cpus[i].timer);
		series_free(&cpus[i].wake);
	}
	series_free(&sys.loop);
	series_free(&sys.libm);
	series_free(&sys.timer);
	series_free(&sys.wake);
	return ret;
}

/* The metrics. */

static double canary_extract(const void *e, const struct metric_def *d)
{
	struct canary_cpu *c = (struct canary_cpu *)e;

	switch (d->arg) {
	case CV_LOOP:
		return series_stat(&c->loop, STAT_P50);
	case CV_LIBM:
		return series_stat(&c->libm, STAT_P50);
	case CV_TIMER_P50:
		return series_stat(&c->timer, STAT_P50);
	case CV_TIMER_P90:
		return series_stat(&c->timer, STAT_P90);
	case CV_WAKE_P50:
		return series_stat(&c->wake, STAT_P50);
	case CV_FIFO:
		return c->fifo;
	}
	return NAN;
}

#define CANARY(n, u, a, h) { .name = "canary." n, .unit = u, \
	.source = SRC_CANARY, .extract = canary_extract, .arg = a, .help = h }

static const struct metric_def canary_metric_defs[] = {
	CANARY("loop_ns", "ns", CV_LOOP,
	       "median wall time per iteration of a fixed loop (FIFO)"),
	CANARY("libm_ns", "ns", CV_LIBM,
	       "median wall time per step of rt-app's ldexp loop (FIFO)"),
	CANARY("timer_lat.p50", "us", CV_TIMER_P50,
	       "median lateness of a 1 ms absolute timer, CPU otherwise idle"),
	CANARY("timer_lat.p90", "us", CV_TIMER_P90,
	       "90th percentile of the timer's lateness"),
	{ .name = "canary.wake_lat.p50", .unit = "us", .source = SRC_CANARY,
	  .extract = canary_extract, .arg = CV_WAKE_P50,
	  .unavailable = "one CPU: no cross-CPU wakeup",
	  .help = "median futex wake -> running on another, idle, CPU" },
	CANARY("fifo", "bool", CV_FIFO,
	       "1: the canary ran SCHED_FIFO; 0: refused, SCHED_OTHER"),
};

const struct metric_table canary_metric_table = {
	.defs = canary_metric_defs,
	.ndefs = ARRAY_SIZE(canary_metric_defs),
};
