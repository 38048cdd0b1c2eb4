// SPDX-License-Identifier: GPL-2.0
/*
 * A reproducer from a trace.
 *
 * Each chosen thread becomes one rt-app task with its policy, nice or
 * priority and affinity (from record.json when the recording has it, else
 * the priority of its last sched_switch), and its behaviour as phases,
 * from its activations (trace/trace.h: woken while asleep, asleep
 * again; the CPU time in between is a burst):
 *
 * - its life in the window is cut into slices (1 s, or 20 of its median
 *   wakeup gaps if longer), and adjacent slices whose utilisation and
 *   wakeup rate stay within 25% (2% of a CPU) of the phase's go into one
 *   phase; at most SYNTH_PHASES;
 * - a phase whose wakeup gaps spread by at most 10% of their median
 *   (p10 to p90), with 10 activations or more, is periodic: a run of the
 *   mean burst, then an absolute "timer" of the median gap;
 * - any other phase is bursty: SYNTH_PAIRS pairs of run and "sleep"
 *   taken at evenly spaced quantiles of its bursts and sleeps, scaled so
 *   that their means are the measured means (the utilisation and the
 *   spread of both, not their order); the sleeps rise with the runs when
 *   a burst and the sleep after it go together (Pearson r above 0.3: a
 *   duty cycle kept), fall when they go opposite ways, and are strided
 *   through when unrelated;
 * - a thread that never slept (no activation) runs for its whole life;
 * - a thread woken at least SYNTH_WAKER_SHARE of the time from another
 *   chosen thread's context waits for it: it "suspend"s before each
 *   burst, and the waker "resume"s it after each of its own, when their
 *   activation counts agree within 25%; else the relation is only named.
 *
 * A burst is a "runtime" event of the CPU time the original used: wall
 * time on a CPU of its own, whatever the host's speed. A "run" (loops of
 * calibrated work) would take 43% more CPU time while this class's host
 * is slow (the rate.p50 drift of its qualification), and make a copy as
 * slow as the host rather than like its original. The draft
 * verdict block holds the copy to the original's own measurements, and
 * to the baseline of the machine class it is recorded on, with the
 * margins stated in each "why".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpu_list.h"
#include "lib/entity_name.h"
#include "desk/synthesize.h"
#include "lib/stats.h"

#define SYNTH_PHASES		8
#define SYNTH_PAIRS		8
#define SYNTH_SLICE_NS		1000000000ULL
#define SYNTH_CHANGE_REL	0.25
#define SYNTH_CHANGE_ABS	0.02
#define SYNTH_PERIODIC_SPREAD	0.10
#define SYNTH_PERIODIC_MIN	10
#define SYNTH_WAKER_SHARE	0.7
/* Below this share of one CPU a thread is left out, and said so. */
#define SYNTH_MIN_SHARE		0.0001

enum phase_kind { PH_PERIODIC, PH_BURSTY, PH_BUSY };

struct phase {
	enum phase_kind kind;
	uint64_t start, end;		/* trace clock */
	size_t a0, a1;			/* its activations [a0, a1) */
	double period_us, run_us;	/* periodic, busy (run_us a chunk) */
	double runs[SYNTH_PAIRS], sleeps[SYNTH_PAIRS];
	int pairs;
	long loops;
};

struct thread {
	const struct synth_input *in;
	char task[ENTITY_TASK_MAX + 1];
	uint64_t start, end;		/* its life in the window */
	double share;			/* of one CPU over its life */
	double window_share;		/* ... over the window: cpu_share */
	double rate;			/* activations per second */
	struct phase ph[SYNTH_PHASES];
	int nph;
	int waker;			/* index of the thread waking it, -1 */
	int resumes;			/* index it resumes, -1 */
	int left_out;
};

/* Utilisation and wakeup rate of activations [a0, a1) over @ns. */
static void slice_stats(const struct trace_profile *p, size_t a0, size_t a1,
			uint64_t ns, double *util, double *rate)
{
	uint64_t run = 0;
	size_t i;

	for (i = a0; i < a1; i++)
		run += p->acts[i].run_ns;
	*util = ns ? (double)run / ns : 0;
	*rate = ns ? (a1 - a0) / (ns / 1e9) : 0;
}

static int differs(double a, double b, double abs_tol)
{
	double d = fabs(a - b);

	return d > abs_tol && d > SYNTH_CHANGE_REL * fmax(a, b);
}

/* The gaps between the wakeups of activations [a0, a1) into @gap, in us. */
static int gaps(const struct trace_profile *p, size_t a0, size_t a1,
		struct series *gap)
{
	size_t i;

	for (i = a0 + 1; i < a1; i++)
		if (series_add(gap, (p->acts[i].wake_ns -
				     p->acts[i - 1].wake_ns) / 1e3))
			return -1;
	return 0;
}

/* Cuts @t's life into phases of like utilisation and wakeup rate. */
static void cut_phases(struct thread *t)
{
	const struct trace_profile *p = t->in->p;
	struct series gap = { 0 };
	uint64_t slice = SYNTH_SLICE_NS, s;
	size_t a = 0, b;
	double u0 = 0, r0 = 0, median;

	/* out of memory: no gap, slices of a second */
	median = gaps(p, 0, p->nacts, &gap) ? NAN : series_stat(&gap, STAT_P50);
	series_free(&gap);
	if (!isnan(median) && 20e3 * median > slice)
		slice = (uint64_t)(20e3 * median);
	t->nph = 0;
	for (s = t->start; s < t->end; s += slice) {
		uint64_t e = s + slice < t->end ? s + slice : t->end;
		struct phase *ph = t->nph ? &t->ph[t->nph - 1] : NULL;
		double u, r, noise;

		for (b = a; b < p->nacts && p->acts[b].wake_ns < e; b++)
			;
		slice_stats(p, a, b, e - s, &u, &r);
		/* a count of k wakeups a slice varies by sqrt(k): 3 of it */
		noise = 3 * sqrt(fmax(r0, 1) * (slice / 1e9)) / (slice / 1e9);
		if (ph && (t->nph == SYNTH_PHASES ||
			   !(differs(u, u0, SYNTH_CHANGE_ABS) ||
			     differs(r, r0, noise)) || e - s < slice / 2)) {
			ph->end = e;
			ph->a1 = b;
			slice_stats(p, ph->a0, b, e - ph->start, &u0, &r0);
		} else {
			ph = &t->ph[t->nph++];
			memset(ph, 0, sizeof(*ph));
			ph->start = s;
			ph->end = e;
			ph->a0 = a;
			ph->a1 = b;
			u0 = u;
			r0 = r;
		}
		a = b;
	}
}

/*
 * @n values at evenly spaced quantiles of @v, scaled so that their mean
 * is @v's, in @order: 1 rising, -1 falling, 0 shuffled (a fixed stride
 * through them, for values unrelated to the runs').
 */
static void quantiles(struct series *v, double *out, int n, int order)
{
	double m = series_stat(v, STAT_MEAN), qm = 0;
	int j, k;

	for (j = 0; j < n; j++) {
		k = order > 0 ? j : order < 0 ? n - 1 - j :
		    n % 3 ? (3 * j) % n : j;
		out[k] = series_percentile(v, 100 * (j + 0.5) / n);
		qm += out[k] / n;
	}
	for (j = 0; j < n && qm > 0; j++)
		out[j] *= m / qm;
}

/* The sleep after activation @i (to the next wakeup) in us, or NAN. */
static double sleep_after(const struct trace_profile *p, size_t i)
{
	if (i + 1 >= p->nacts || p->acts[i + 1].wake_ns <= p->acts[i].end_ns)
		return NAN;
	return (p->acts[i + 1].wake_ns - p->acts[i].end_ns) / 1e3;
}

/*
 * How a burst and the sleep after it go together in activations
 * [a0, a1): 1 when long bursts come with long sleeps (a duty cycle
 * kept), -1 with short ones, 0 unrelated (|Pearson r| under 0.3).
 */
static int pairing(const struct trace_profile *p, size_t a0, size_t a1)
{
	double sb = 0, ss = 0, sbs = 0, sbb = 0, sss = 0, n = 0, vb, vs, r;
	size_t i;

	for (i = a0; i < a1; i++) {
		double b = p->acts[i].run_ns / 1e3, z = sleep_after(p, i);

		if (isnan(z))
			continue;
		n++;
		sb += b;
		ss += z;
		sbs += b * z;
		sbb += b * b;
		sss += z * z;
	}
	if (n < 3)
		return 0;
	vb = sbb - sb * sb / n;
	vs = sss - ss * ss / n;
	if (vb <= 0 || vs <= 0)
		return 0;
	r = (sbs - sb * ss / n) / sqrt(vb * vs);
	return r > 0.3 ? 1 : r < -0.3 ? -1 : 0;
}

static int model_phase(const struct trace_profile *p, struct phase *ph)
{
	struct series burst = { 0 }, sleep = { 0 }, gap = { 0 };
	size_t n = ph->a1 - ph->a0, i;
	uint64_t len = ph->end - ph->start;
	double spread, period;
	int ret = -1;

	if (!p->nacts) {
		/* it never slept: busy all its life */
		ph->kind = PH_BUSY;
		ph->run_us = 10000;
		ph->loops = (long)fmax(1, round(len / 1e3 / ph->run_us));
		return 0;
	}
	if (n < 2) {
		/* asleep, but for one burst at most: run it, sleep the rest */
		ph->kind = PH_BURSTY;
		ph->pairs = 1;
		ph->runs[0] = n ? round(p->acts[ph->a0].run_ns / 1e3) : 0;
		ph->sleeps[0] = fmax(1, round(len / 1e3 - ph->runs[0]));
		ph->loops = 1;
		return 0;
	}
	for (i = ph->a0; i < ph->a1; i++) {
		double z = sleep_after(p, i);

		if (series_add(&burst, p->acts[i].run_ns / 1e3) ||
		    (!isnan(z) && series_add(&sleep, z)))
			goto out;
	}
	if (gaps(p, ph->a0, ph->a1, &gap))
		goto out;
	period = series_stat(&gap, STAT_P50);
	spread = series_stat(&gap, STAT_P90) - series_stat(&gap, STAT_P10);
	if (n >= SYNTH_PERIODIC_MIN && spread <= SYNTH_PERIODIC_SPREAD * period) {
		ph->kind = PH_PERIODIC;
		ph->period_us = round(period);
		ph->run_us = round(series_stat(&burst, STAT_MEAN));
		ph->loops = (long)fmax(1, round(len / 1e3 / ph->period_us));
	} else {
		ph->kind = PH_BURSTY;
		ph->pairs = n < SYNTH_PAIRS ? (int)n : SYNTH_PAIRS;
		quantiles(&burst, ph->runs, ph->pairs, 1);
		if (sleep.n)
			quantiles(&sleep, ph->sleeps, ph->pairs,
				  pairing(p, ph->a0, ph->a1));
		for (i = 0; i < (size_t)ph->pairs; i++) {
			ph->runs[i] = round(ph->runs[i]);
			ph->sleeps[i] = sleep.n ? fmax(1, round(ph->sleeps[i])) : 1;
		}
		ph->loops = (long)fmax(1, round((double)n / ph->pairs));
	}
	ret = 0;
out:
	series_free(&burst);
	series_free(&sleep);
	series_free(&gap);
	return ret;
}

/* Task names: the comm as an entity name, "_k" when several share it. */
static void name_threads(struct thread *t, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		char base[ENTITY_TASK_MAX + 1];
		int k = 0, same = 0;

		entity_sanitize(t[i].in->p->comm, base, sizeof(base));
		for (j = 0; j < n; j++) {
			char other[ENTITY_TASK_MAX + 1];

			entity_sanitize(t[j].in->p->comm, other, sizeof(other));
			if (strcmp(base, other))
				continue;
			same++;
			k += j < i;
		}
		if (same == 1) {
			snprintf(t[i].task, sizeof(t[i].task), "%s", base);
		} else {
			char sfx[12];
			int room;

			snprintf(sfx, sizeof(sfx), "_%d", k);
			room = ENTITY_TASK_MAX - (int)strlen(sfx);
			snprintf(t[i].task, sizeof(t[i].task), "%.*s%s", room,
				 base, sfx);
		}
	}
}

/* Who wakes whom: a chosen thread waking another most of the time. */
static void find_wakers(struct thread *t, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i++)
		t[i].waker = t[i].resumes = -1;
	for (i = 0; i < n; i++) {
		const struct trace_profile *p = t[i].in->p;

		if (t[i].left_out || p->nacts < SYNTH_PERIODIC_MIN)
			continue;
		for (j = 0; j < n; j++) {
			size_t by = 0;

			if (j == i || t[j].left_out)
				continue;
			for (k = 0; k < p->nacts; k++)
				by += p->acts[k].waker == t[j].in->p->pid;
			if (by >= SYNTH_WAKER_SHARE * p->nacts) {
				t[i].waker = (int)j;
				break;
			}
		}
	}
	for (i = 0; i < n; i++) {
		int w = t[i].waker;
		double ratio;

		if (w < 0 || t[w].resumes >= 0 || !t[w].in->p->nacts)
			continue;
		ratio = (double)t[i].in->p->nacts / t[w].in->p->nacts;
		if (ratio >= 0.8 && ratio <= 1.25)
			t[w].resumes = (int)i;
	}
}

static const char *kind_name(enum phase_kind k)
{
	return k == PH_PERIODIC ? "periodic" : k == PH_BURSTY ? "bursty" :
	       "busy";
}

/* The policy line of the header and the task's keys. */
static void sched_of(const struct thread *t, const char **policy,
		     int *priority)
{
	const struct synth_sched *s = &t->in->sched;
	int prio = t->in->p->prio;

	if (s->known && strcmp(s->policy, "SCHED_FIFO") &&
	    strcmp(s->policy, "SCHED_RR")) {
		*policy = strcmp(s->policy, "SCHED_BATCH") &&
			  strcmp(s->policy, "SCHED_IDLE") ? "SCHED_OTHER" :
			  s->policy;
		*priority = s->nice;
		return;
	}
	if (s->known && s->rt_priority > 0) {
		*policy = s->policy;
		*priority = s->rt_priority;
		return;
	}
	if (prio >= 0 && prio < 100) {
		*policy = s->known ? s->policy : "SCHED_FIFO";
		*priority = 99 - prio;
		return;
	}
	*policy = "SCHED_OTHER";
	*priority = prio >= 100 && prio < 140 ? prio - 120 : 0;
}

/*
 * A recorded affinity list as rt-app's "cpus"; NULL for all of this
 * machine's CPUs or none of them (no affinity), or a list that does not
 * parse (the task is then synthesized without one).
 */
static struct json_object *cpus_json(const char *list, int ncpus)
{
	struct json_object *a;
	int c, n = 0, in;

	for (c = 0; c < ncpus; c++) {
		in = cpu_list_has(list, c);
		if (in < 0)
			return NULL;
		n += in;
	}
	if (!n || n >= ncpus)
		return NULL;
	a = json_object_new_array();
	for (c = 0; a && c < ncpus; c++)
		if (cpu_list_has(list, c) > 0)
			json_object_array_add(a, json_object_new_int(c));
	return a;
}

static void add_int(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

/* Whether @t waits for the thread that wakes it (suspend/resume). */
static int resumed(const struct thread *t, const struct thread *all)
{
	return t->waker >= 0 && all[t->waker].resumes == (int)(t - all);
}

static void add_event(struct json_object *o, const char *kind, int j,
		      struct json_object *v)
{
	char key[32];

	snprintf(key, sizeof(key), "%s%d", kind, j);
	json_object_object_add(o, key, v);
}

static struct json_object *phase_json(const struct thread *t,
				      const struct thread *all,
				      const struct phase *ph)
{
	struct json_object *o = json_object_new_object();
	const char *wakes = t->resumes >= 0 ? all[t->resumes].task : NULL;
	int j, pairs = ph->kind == PH_BURSTY ? ph->pairs : 1;

	add_int(o, "loop", ph->loops);
	if (ph->kind == PH_BUSY) {
		add_int(o, "runtime", ph->run_us);
		return o;
	}
	for (j = 0; j < pairs; j++) {
		double run = ph->kind == PH_BURSTY ? ph->runs[j] : ph->run_us;

		/* woken by another thread: its sleep is the wait for it */
		if (resumed(t, all))
			add_event(o, "suspend", j,
				  json_object_new_string(t->task));
		if (run >= 1)
			add_event(o, "runtime", j,
				  json_object_new_int64((int64_t)run));
		if (wakes)
			add_event(o, "resume", j, json_object_new_string(wakes));
		if (ph->kind == PH_BURSTY && !resumed(t, all))
			add_event(o, "sleep", j,
				  json_object_new_int64((int64_t)ph->sleeps[j]));
	}
	if (ph->kind == PH_PERIODIC && !resumed(t, all)) {
		struct json_object *tm = json_object_new_object();

		json_object_object_add(tm, "ref",
				       json_object_new_string("unique"));
		add_int(tm, "period", ph->period_us);
		json_object_object_add(tm, "mode",
				       json_object_new_string("absolute"));
		json_object_object_add(o, "timer", tm);
	}
	return o;
}

static struct json_object *task_json(const struct thread *t,
				     const struct thread *all,
				     const struct synth_opts *o)
{
	struct json_object *j = json_object_new_object();
	struct json_object *phases = json_object_new_object();
	struct json_object *cpus = NULL;
	const char *policy;
	int priority, k, np = 0;
	char key[16];

	sched_of(t, &policy, &priority);
	add_int(j, "loop", 1);
	json_object_object_add(j, "policy", json_object_new_string(policy));
	add_int(j, "priority", priority);
	if (t->in->sched.known && t->in->sched.cpus[0])
		cpus = cpus_json(t->in->sched.cpus, o->ncpus);
	if (cpus)
		json_object_object_add(j, "cpus", cpus);
	if (t->start > o->start_ns + 1000000)
		add_int(j, "delay", (t->start - o->start_ns) / 1e3);
	for (k = 0; k < t->nph; k++) {
		if (!t->ph[k].loops)
			continue;
		snprintf(key, sizeof(key), "p%d", np++);
		json_object_object_add(phases, key,
				       phase_json(t, all, &t->ph[k]));
	}
	json_object_object_add(j, "phases", phases);
	return j;
}

static void add_check(struct json_object *arr, const char *metric,
		      const char *task, const char *bound, double v,
		      const char *why)
{
	struct json_object *c = json_object_new_object();
	char num[32];

	json_object_object_add(c, "metric", json_object_new_string(metric));
	json_object_object_add(c, "task", json_object_new_string(task));
	/* as written, not as a double prints: 0.0799, not 0.07989999... */
	snprintf(num, sizeof(num), "%.4g", v);
	json_object_object_add(c, bound, json_object_new_double_s(v, num));
	json_object_object_add(c, "why", json_object_new_string(why));
	json_object_array_add(arr, c);
}

static void add_baseline(struct json_object *arr, const char *metric,
			 const char *task, const char *better, double rel,
			 double abs_v, const char *why)
{
	struct json_object *c = json_object_new_object();
	char num[32];

	json_object_object_add(c, "metric", json_object_new_string(metric));
	json_object_object_add(c, "task", json_object_new_string(task));
	json_object_object_add(c, "better", json_object_new_string(better));
	snprintf(num, sizeof(num), "%.4g", rel);
	json_object_object_add(c, "rel", json_object_new_double_s(rel, num));
	snprintf(num, sizeof(num), "%.4g", abs_v);
	json_object_object_add(c, "abs", json_object_new_double_s(abs_v, num));
	json_object_object_add(c, "why", json_object_new_string(why));
	json_object_array_add(arr, c);
}

/*
 * Bounds from the original's own measurements, the margins stated; and
 * against the baseline of the machine class, the changes that matter: a
 * tenth of the task's CPU time (and a hundredth of a CPU), its wakeup
 * latency doubled (and 200 us more).
 */
static void draft_checks(const struct thread *t, size_t n,
			 struct json_object *checks, struct json_object *base)
{
	char why[256];
	size_t i;

	for (i = 0; i < n; i++) {
		double lat = t[i].in->wakeup_lat_p90_us, lim;

		if (t[i].left_out)
			continue;
		snprintf(why, sizeof(why),
			 "the original used %.4f of a CPU over the window: at least 80%% of it",
			 t[i].window_share);
		add_check(checks, "cpu_share", t[i].task, "min",
			  floor(0.8 * t[i].window_share * 1e4) / 1e4, why);
		add_baseline(base, "cpu_share", t[i].task, "higher", 0.1, 0.01,
			     "a tenth of its CPU time, and a hundredth of a CPU");
		if (isnan(lat) || !t[i].in->p->nacts)
			continue;
		lim = ceil(fmax(2 * lat, lat + 500));
		snprintf(why, sizeof(why),
			 "the original's wakeup_lat.p90 was %.0f us: twice that, or 500 us more",
			 lat);
		add_check(checks, "wakeup_lat.p90", t[i].task, "max", lim, why);
		add_baseline(base, "wakeup_lat.p90", t[i].task, "lower", 1.0,
			     200, "its wakeup latency doubled, and 200 us more");
	}
}

/* For fidelity: the trace and the thread each task stands for. */
static struct json_object *origin_json(const struct thread *t, size_t n,
				       const struct synth_opts *o)
{
	struct json_object *j = json_object_new_object();
	struct json_object *tasks = json_object_new_object();
	size_t i;

	json_object_object_add(j, "trace", json_object_new_string(o->source));
	for (i = 0; i < n; i++)
		if (!t[i].left_out)
			json_object_object_add(tasks, t[i].task,
				json_object_new_int(t[i].in->p->pid));
	json_object_object_add(j, "tasks", tasks);
	return j;
}

static void header(FILE *f, const struct thread *t, size_t n,
		   const struct synth_opts *o)
{
	size_t i;
	int k;

	fprintf(f, "/*\n * %s: made by sched-workloads synthesize from %s",
		o->name, o->source);
	if (o->command)
		fprintf(f, ",\n * a recording of \"%s\"", o->command);
	fprintf(f, " (%.3f s).\n *\n", o->window_ns / 1e9);
	for (i = 0; i < n; i++) {
		const struct trace_profile *p = t[i].in->p;
		const char *policy;
		int prio;

		if (t[i].left_out) {
			fprintf(f, " * %s (pid %d): left out, %.4f of a CPU\n",
				p->comm, p->pid, t[i].share);
			continue;
		}
		sched_of(&t[i], &policy, &prio);
		fprintf(f, " * %s: pid %d \"%s\", %s %d%s%s, %.3f of a CPU, %.1f wakeups/s\n",
			t[i].task, p->pid, p->comm, policy, prio,
			t[i].in->sched.known ? " (/proc)" : " (trace)",
			t[i].in->sched.cpus[0] ? "" : ", affinity not recorded",
			t[i].share, t[i].rate);
		for (k = 0; k < t[i].nph; k++) {
			const struct phase *ph = &t[i].ph[k];

			fprintf(f, " *   %.2f-%.2f s %s", (ph->start - o->start_ns) / 1e9,
				(ph->end - o->start_ns) / 1e9, kind_name(ph->kind));
			if (ph->kind == PH_PERIODIC)
				fprintf(f, ": period %.0f us, run %.0f us",
					ph->period_us, ph->run_us);
			else if (ph->kind == PH_BURSTY)
				fprintf(f, ": %zu activations, runs %.0f-%.0f us",
					ph->a1 - ph->a0, ph->runs[0],
					ph->runs[ph->pairs - 1]);
			else if (!ph->loops)
				fprintf(f, ": asleep");
			fprintf(f, "\n");
		}
		if (t[i].waker >= 0)
			fprintf(f, " *   woken by %s%s\n", t[t[i].waker].task,
				t[t[i].waker].resumes == (int)i ?
				" (suspend/resume)" :
				" (not modelled: activation counts differ)");
	}
	fprintf(f, " *\n * The checks are a draft: bounds from the original's own measurements.\n */\n");
}

int synthesize(const struct synth_input *in, size_t n,
	       const struct synth_opts *o, char **out, struct sw_err *err)
{
	struct json_object *root, *block, *checks, *base, *global, *tasks;
	struct thread *t = calloc(n ? n : 1, sizeof(*t));
	char desc[192];
	size_t i, len, kept = 0;
	FILE *f;
	int k;

	*out = NULL;
	if (!t)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	for (i = 0; i < n; i++) {
		const struct trace_profile *p = in[i].p;
		uint64_t we = o->start_ns + o->window_ns;

		t[i].in = &in[i];
		t[i].start = p->first_ns > o->start_ns ? p->first_ns : o->start_ns;
		t[i].end = p->last_ns && p->last_ns < we ? p->last_ns : we;
		if (t[i].end <= t[i].start)
			t[i].end = t[i].start + 1;
		t[i].share = (double)p->cpu_ns / (t[i].end - t[i].start);
		t[i].window_share = o->window_ns ?
				    (double)p->cpu_ns / o->window_ns : 0;
		t[i].rate = p->nacts / ((t[i].end - t[i].start) / 1e9);
		t[i].left_out = t[i].share < SYNTH_MIN_SHARE;
		kept += !t[i].left_out;
		if (t[i].left_out)
			continue;
		if (!p->nacts) {
			t[i].nph = 1;
			t[i].ph[0].start = t[i].start;
			t[i].ph[0].end = t[i].end;
		} else {
			cut_phases(&t[i]);
		}
		for (k = 0; k < t[i].nph; k++) {
			if (model_phase(p, &t[i].ph[k])) {
				free(t);
				return sw_err_set(err, SW_EXIT_RUN_ERROR,
						  "out of memory");
			}
		}
	}
	if (!kept) {
		free(t);
		return sw_err_set(err, SW_EXIT_USAGE,
				  "%s: none of the chosen threads ran in the window",
				  o->source);
	}
	name_threads(t, n);
	find_wakers(t, n);

	root = json_object_new_object();
	block = json_object_new_object();
	checks = json_object_new_array();
	base = json_object_new_array();
	global = json_object_new_object();
	tasks = json_object_new_object();
	snprintf(desc, sizeof(desc), "%zu threads of %.100s, synthesized from its trace",
		 kept, o->command ? o->command : o->source);
	json_object_object_add(block, "description",
			       json_object_new_string(desc));
	draft_checks(t, n, checks, base);
	json_object_object_add(block, "checks", checks);
	json_object_object_add(block, "baseline", base);
	json_object_object_add(block, "origin", origin_json(t, n, o));
	json_object_object_add(root, "sched-workloads", block);
	add_int(global, "duration", fmax(1, ceil(o->window_ns / 1e9)));
	json_object_object_add(global, "default_policy",
			       json_object_new_string("SCHED_OTHER"));
	json_object_object_add(global, "lock_pages",
			       json_object_new_boolean(1));
	json_object_object_add(root, "global", global);
	for (i = 0; i < n; i++)
		if (!t[i].left_out)
			json_object_object_add(tasks, t[i].task,
					       task_json(&t[i], t, o));
	json_object_object_add(root, "tasks", tasks);

	f = open_memstream(out, &len);
	if (!f) {
		json_object_put(root);
		free(t);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	}
	header(f, t, n, o);
	fprintf(f, "%s\n", json_object_to_json_string_ext(root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB |
		JSON_C_TO_STRING_NOSLASHESCAPE));
	fclose(f);
	json_object_put(root);
	free(t);
	return 0;
}
