// SPDX-License-Identifier: GPL-2.0
/*
 * The canary: fixed work on each CPU, timed (judge/machine_drift.c
 * compares it with a baseline's). Here the CPUs are picked, the phases
 * laid out (which thread runs where and when, machine/canary_thread.h
 * runs them) and what the threads measured pooled by CPU and for the
 * system, into the canary's metrics.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/cpu_list.h"
#include "lib/stats.h"
#include "machine/canary.h"
#include "machine/canary_thread.h"
#include "machine/sched_settings.h"
#include "machine/task_load.h"
#include "machine/task_sched.h"

/* Time for the threads of a phase to start, pin and block. */
#define SETUP_NS	(20 * NSEC_PER_MSEC)

/* What one CPU, or all of them pooled ("system"), measured. */
struct canary_cpu {
	int fifo;		/* every thread that measured it ran FIFO */
	struct series loop;	/* ns per iteration, one per chunk */
	struct series libm;	/* ns per libm step, one per chunk */
	struct series timer;	/* us late, one per expiry */
	struct series wake;	/* us from futex wake to running */
};

/*
 * The CPUs to measure: online ones the caller may run on, at most
 * CANARY_MAX_CPUS of them spread evenly. Returns how many, 0 on error.
 */
static int pick_cpus(int *ids, size_t *setsize, struct sw_err *err)
{
	cpu_set_t *aff, *online = NULL;
	int *all = NULL, n = 0, m = 0, i;
	size_t size, c;
	char *text;

	aff = task_affinity(0, &size);
	if (!aff && errno == ENOMEM)
		goto nomem;
	if (!aff) {
		sw_err_set(err, SW_EXIT_RUN_ERROR,
			   "canary: sched_getaffinity: %s", strerror(errno));
		goto out;
	}
	online = CPU_ALLOC(size * 8);
	all = calloc(size * 8, sizeof(*all));
	if (!online || !all)
		goto nomem;
	text = settings_online_cpus();
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
	struct canary_thread *th = canary_threads_alloc(m, cap);
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
	ret = canary_threads_run(th, m, err);
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
	canary_threads_free(th, m);
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
	struct canary_thread *th = canary_threads_alloc(2 * np, WAKES);
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
	ret = canary_threads_run(th, 2 * np, err);
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
	canary_threads_free(th, 2 * np);
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
	if (ret || canary_must_stop(stop))
		return ret;
	np = 0;
	for (k = 1; k < m; k += 2) {
		tgt[np] = k;
		src[np++] = k - 1;
	}
	ret = np ? wake_round(ids, tgt, src, np, setsize, stop, cpus, sys,
			      err) : 0;
	if (ret || canary_must_stop(stop) || m < 3 || !(m % 2))
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
	for (i = 0; i < (int)ARRAY_SIZE(per_cpu) && !canary_must_stop(stop);
	     i++) {
		ret = phase_per_cpu(per_cpu[i], ids, m, setsize, stop, cpus,
				    &sys, err);
		if (ret < 0)
			goto out;
	}
	ret = canary_must_stop(stop) ? 0 :
	      phase_wake(ids, m, setsize, stop, cpus, &sys, err);
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
