// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads fidelity: does a synthesized workload behave like the
 * program it was made from?
 *
 *   sched-workloads fidelity [-r DIR] ORIGINAL.dat WORKLOAD.json
 *
 * Runs WORKLOAD once, traced, as "run -n 1" does (its verdicts are not
 * this command's business), then reads both traces with the same
 * analyser and compares, for each task of the workload's "origin" (the
 * thread of ORIGINAL it stands for), the copy with the original:
 *
 *   utilisation   CPU time over its life in the window (first to last
 *                 event): within FID_UTIL_REL, relative, or FID_UTIL_ABS
 *                 of a CPU. Not judged when the original's mean burst is
 *                 under FID_SHORT_US: rt-app 1.0 spends 11-41 us of its
 *                 own on a pass (clock reads, the log line, the timer;
 *                 the copy's mean burst less the mean "run" asked, which
 *                 is printed), 10% of 500 us: cyclictest's 5 us a wakeup
 *                 cannot be copied
 *   period        wakeup_gap.p50, for a task synthesized periodic (an
 *                 absolute timer): within FID_PERIOD_REL
 *   wakeup rate   wakeups.rate over its life (as utilisation):
 *                 within FID_RATE_REL
 *
 * and prints, not judged: the run-burst and wakeup-gap spread (p50,
 * p90), migrations, the share of CPU time on the CPU used most. A task
 * whose original woke fewer than FID_MIN_WAKEUPS times has no rate or
 * period to compare at 10%: a few dozen wakeups move by more than that
 * with where the window cuts them. KTAP out, one result per comparison; exits 0 when
 * every one holds, 1 otherwise.
 */
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/subprocess.h"
#include "cmd/options.h"
#include "desk/desk.h"
#include "lib/cleanup.h"
#include "lib/results.h"
#include "run/battery.h"
#include "trace/trace.h"
#include "run/workload_check.h"

#define FID_UTIL_REL	0.10
#define FID_UTIL_ABS	0.002
#define FID_SHORT_US	500
#define FID_PERIOD_REL	0.05
#define FID_RATE_REL	0.10
#define FID_MIN_WAKEUPS	50

/* One side's trace, read: its metrics and profiles. */
struct side {
	struct trace_report *r;
	struct metric_set set;
	struct trace_profile *prof;
	size_t n;
	uint64_t start, win;
};

static void side_free(struct side *s)
{
	free(s->prof);
	metric_set_free(&s->set);
	trace_report_free(s->r);
	memset(s, 0, sizeof(*s));
}

static int side_read(const char *path, struct side *s, struct sw_err *err)
{
	struct trace_opts o = { 0 };

	memset(s, 0, sizeof(*s));
	if (trace_analyze(path, &o, &s->r, err))
		return -1;
	if (trace_report_add_metrics(s->r, &o, &s->set) ||
	    trace_report_profiles(s->r, &s->prof, &s->n, &s->start, &s->win)) {
		side_free(s);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	}
	return 0;
}

/* A trace metric of the task with pid @pid; NAN if none. */
static double metric(const struct side *s, int pid, const char *name)
{
	return metric_set_value(&s->set, SRC_TRACE_TASK, pid, name);
}

/* The pid of the copy's thread named @task (its comm); 0 if none. */
static int pid_named(const struct side *s, const char *task)
{
	size_t i;
	int pid = 0;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->prof[i].comm, task) &&
		    (!pid || s->prof[i].cpu_ns > 0))
			pid = s->prof[i].pid;
	return pid;
}

/*
 * The life of @pid in the window, first to last event, in ns (0 if not
 * there), and its CPU time in @cpu_ns.
 */
static uint64_t life(const struct side *s, int pid, uint64_t *cpu_ns)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct trace_profile *p = &s->prof[i];
		uint64_t a = p->first_ns > s->start ? p->first_ns : s->start;
		uint64_t b = p->last_ns < s->start + s->win ? p->last_ns :
			     s->start + s->win;

		if (p->pid == pid) {
			*cpu_ns = p->cpu_ns;
			return b > a ? b - a : 0;
		}
	}
	return 0;
}

static double utilisation(const struct side *s, int pid)
{
	uint64_t cpu, ns = life(s, pid, &cpu);

	return ns ? (double)cpu / ns : NAN;
}

/* The mean run of a pass of @task, in us: what its bursts should be. */
static double run_asked(struct json_object *tasks, const char *task)
{
	struct json_object *t, *phases, *loop;
	double run = 0, runs = 0;

	if (!json_object_object_get_ex(tasks, task, &t) ||
	    !json_object_object_get_ex(t, "phases", &phases))
		return NAN;
	json_object_object_foreach(phases, name, ph) {
		double loops = 1, sum = 0, n = 0;

		(void)name;
		if (json_object_object_get_ex(ph, "loop", &loop))
			loops = json_object_get_double(loop);
		json_object_object_foreach(ph, key, val) {
			if (strncmp(key, "run", 3))	/* run and runtime */
				continue;
			sum += json_object_get_double(val);
			n++;
		}
		run += loops * sum;
		runs += loops * n;
	}
	return runs ? run / runs : NAN;
}

/*
 * Wakeups a second of its life: a copy's window also holds rt-app's
 * start and end, an original's the recording's.
 */
static double wakeup_rate(const struct side *s, int pid)
{
	uint64_t cpu, ns = life(s, pid, &cpu);

	return ns ? metric(s, pid, "wakeups.rate") * (s->win / 1e9) /
		    (ns / 1e9) : NAN;
}

/* Whether @task of the workload has an absolute timer in a phase. */
static int periodic(struct json_object *tasks, const char *task)
{
	struct json_object *t, *phases;

	if (!json_object_object_get_ex(tasks, task, &t))
		return 0;
	if (!json_object_object_get_ex(t, "phases", &phases))
		return json_object_object_get_ex(t, "timer", NULL);
	json_object_object_foreach(phases, name, ph) {
		(void)name;
		if (json_object_object_get_ex(ph, "timer", NULL))
			return 1;
	}
	return 0;
}

struct verdicts {
	int n, failed;
};

static void judge(struct verdicts *v, const char *wl, const char *task,
		  const char *what, double copy, double orig, double tol,
		  double allow, const char *unit)
{
	double rel = orig ? (copy - orig) / orig : NAN;
	int ok = !isnan(copy) && !isnan(orig) &&
		 fabs(copy - orig) <= fmax(tol * fabs(orig), allow);

	printf("  # %s %s: %s = %.4g %s, original %.4g (%+.1f%%), within %.0f%%",
	       ok ? "ok" : "FAIL", task, what, copy, unit, orig, 100 * rel,
	       100 * tol);
	if (allow > 0)
		printf(" or %.4g", allow);
	printf("\n");
	printf("  %sok %d %s.%s.%s\n", ok ? "" : "not ", ++v->n, wl, task, what);
	v->failed += !ok;
}

static void info(const struct side *c, int cpid, const struct side *o,
		 int opid, const char *task)
{
	static const char *const shown[] = {
		"run_burst.p50", "run_burst.p90", "wakeup_gap.p10",
		"wakeup_gap.p50", "wakeup_gap.p90", "migrations",
		"cpu_time.top_share",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shown); i++)
		printf("  # %s %s: copy %.4g, original %.4g\n", task, shown[i],
		       metric(c, cpid, shown[i]), metric(o, opid, shown[i]));
}

/* Runs @w once, traced, under @dir; the trace of its repetition. */
static int run_copy(const struct workload *w, const char *dir, char *trace,
		    size_t len, struct sw_err *err)
{
	char base[PATH_MAX + 16], log[PATH_MAX + 16], pattern[PATH_MAX];
	char run[PATH_MAX], wdir[PATH_MAX], rep[PATH_MAX];
	char *names[1];
	struct battery_opts o;
	int ret, lock;
	glob_t g;

	names[0] = (char *)w->path;
	battery_opts_init(&o, 0);
	o.repetitions = 1;
	o.results_root = dir;
	/* no baseline: the copy's verdicts are not what is asked */
	snprintf(base, sizeof(base), "%s/no-baselines", dir);
	o.baseline_dir = base;
	snprintf(log, sizeof(log), "%s/run.ktap", dir);
	if (mkdir_p(dir))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot create", dir);
	/* a battery running meanwhile would disturb the copy, and be */
	lock = live_lock_take(NULL, cleanup_interrupted);
	ret = battery_run_logged(battery_run, &o, names, 1, log);
	if (lock >= 0)
		close(lock);
	if (ret != SW_EXIT_PASS && ret != SW_EXIT_FAIL)
		return sw_err_set(err, ret == SW_EXIT_SKIP ? SW_EXIT_SKIP :
				  SW_EXIT_RUN_ERROR,
				  "the run of %s exited %d: see %s", w->path,
				  ret, log);
	/* the one run under @dir, whatever its directory is called */
	if (path_join(run, sizeof(run), dir, "*") ||
	    results_workload_dir(wdir, sizeof(wdir), run, w->name) ||
	    results_rep_dir(rep, sizeof(rep), wdir, 1) ||
	    results_path(pattern, sizeof(pattern), rep, RF_TRACE))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: path too long", dir);
	ret = glob(pattern, 0, NULL, &g);
	if (ret || g.gl_pathc != 1) {
		if (!ret)
			globfree(&g);
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "%s: no single trace of the run (%s)", dir,
				  pattern);
	}
	snprintf(trace, len, "%s", g.gl_pathv[0]);
	globfree(&g);
	return 0;
}

/* The copy's trace against the original's @o (read from @orig_path). */
static int judge_copy(const struct workload *w, const char *orig_path,
		      const struct side *o, const char *copy_path,
		      struct sw_err *err)
{
	struct json_object *origin, *tasks, *wtasks;
	struct side c;
	struct verdicts v = { 0 };
	int ntasks = 0;

	json_object_object_get_ex(w->block, "origin", &origin);
	json_object_object_get_ex(origin, "tasks", &tasks);
	json_object_object_get_ex(w->root, "tasks", &wtasks);
	if (side_read(copy_path, &c, err))
		return err->code;
	printf("TAP version 13\n1..1\n  KTAP version 1\n");
	json_object_object_foreach(tasks, n0, p0) {
		(void)n0;
		(void)p0;
		ntasks++;
	}
	printf("  # %s: original %s, copy %s\n", w->name, orig_path, copy_path);
	json_object_object_foreach(tasks, task, pidj) {
		int opid = json_object_get_int(pidj), cpid = pid_named(&c, task);
		double wakeups = metric(o, opid, "wakeups.rate") * (o->win / 1e9);
		double cost, burst;

		if (!cpid) {
			printf("  # FAIL %s: no thread of that name in the copy's trace\n",
			       task);
			printf("  not ok %d %s.%s.utilisation\n", ++v.n, w->name,
			       task);
			v.failed++;
			continue;
		}
		cost = metric(&c, cpid, "run_burst.mean") -
		       run_asked(wtasks, task);
		burst = metric(o, opid, "run_burst.mean");
		if (!isnan(cost))
			printf("  # %s: the copy's bursts average %+.1f us against the run asked (rt-app's own work on a pass; runs merged or cut)\n",
			       task, cost);
		if (burst < FID_SHORT_US)
			printf("  # %s: utilisation not judged: its bursts (%.1f us on average) are under %d us, of which rt-app's own work on a pass would be more than 10%%; copy %.4g, original %.4g of a CPU\n",
			       task, burst, FID_SHORT_US,
			       utilisation(&c, cpid), utilisation(o, opid));
		else
			judge(&v, w->name, task, "utilisation",
			      utilisation(&c, cpid), utilisation(o, opid),
			      FID_UTIL_REL, FID_UTIL_ABS, "of a CPU");
		if (!(wakeups >= FID_MIN_WAKEUPS)) {
			printf("  # %s: %.0f wakeups in the original: no rate or period to compare\n",
			       task, wakeups);
		} else {
			judge(&v, w->name, task, "wakeup_rate",
			      wakeup_rate(&c, cpid), wakeup_rate(o, opid),
			      FID_RATE_REL, 0, "/s");
			if (periodic(wtasks, task))
				judge(&v, w->name, task, "period",
				      metric(&c, cpid, "wakeup_gap.p50"),
				      metric(o, opid, "wakeup_gap.p50"),
				      FID_PERIOD_REL, 0, "us");
		}
		info(&c, cpid, o, opid, task);
	}
	printf("  1..%d\n", v.n);
	printf("# %s: %d of %d comparisons within their tolerance, %d tasks\n",
	       w->name, v.n - v.failed, v.n, ntasks);
	printf("%sok 1 %s.fidelity\n", v.failed ? "not " : "", w->name);
	side_free(&c);
	return v.failed ? SW_EXIT_FAIL : 0;
}

int cmd_fidelity(int argc, char **argv)
{
	struct sw_err err = { 0 };
	struct verdict_block vb = { 0 };
	struct workload w = { 0 };
	struct side o = { 0 };
	char dir[PATH_MAX], trace[PATH_MAX];
	const char *root = NULL;
	const struct cmd_option opts[] = {
		OPT_TEXT("results", 'r', &root, "DIR",
			 "the directory of the run (results/fidelity-<pid>)"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "[-r DIR] ORIGINAL.dat WORKLOAD.json",
		.what = "Runs WORKLOAD (made by synthesize from ORIGINAL) once, traced, and\n"
			"compares each of its tasks with the thread it stands for:\n"
			"utilisation within 10%, wakeup rate within 10%, a periodic task's\n"
			"period within 5%. KTAP; exit 0 when every comparison holds, 1 when\n"
			"one does not.",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
		.min_operands = 2, .max_operands = 2,
	};
	int ret, first;

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	if (root)
		snprintf(dir, sizeof(dir), "%s", root);
	else
		snprintf(dir, sizeof(dir), "results/fidelity-%d", (int)getpid());
	ret = workload_check(argv[first + 1], &w, &vb, NULL, &err);
	if (!ret && !json_object_object_get_ex(w.block, "origin", NULL))
		ret = sw_err_set(&err, SW_EXIT_BAD_WORKLOAD,
				 "%s: no \"%s.origin\": not made by synthesize, nothing to compare it with",
				 w.path, WORKLOAD_BLOCK_KEY);
	/* the original is read first: a bad one wastes no run */
	if (!ret)
		ret = side_read(argv[first], &o, &err);
	if (!ret)
		ret = run_copy(&w, dir, trace, sizeof(trace), &err);
	if (!ret)
		ret = judge_copy(&w, argv[first], &o, trace, &err);
	else
		ret = err.code;
	if (ret && err.msg[0]) {
		fprintf(stderr, "sched-workloads: %s\n", err.msg);
		if (ret == SW_EXIT_SKIP)
			printf("TAP version 13\n1..0 # SKIP %s\n", err.msg);
	}
	side_free(&o);
	workload_free(&w);
	verdict_block_free(&vb);
	return ret;
}
