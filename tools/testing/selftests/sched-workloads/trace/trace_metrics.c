// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics measured on the trace, and how a trace_report becomes metric
 * entities.
 *
 * Conventions. Times are microseconds (double). Every interval is clipped
 * to the measured window: [start_ns, end_ns] of trace_opts, where 0 means
 * the first / last event of the trace; counts only include events inside
 * the window. A state is known from the first event that shows it: a task
 * alive before the trace starts counts from its first sched_switch (or the
 * first event taken while it ran), a CPU from its first event of any kind
 * (its common_pid says what runs there). NAN (json null) = not measurable.
 *
 * Task states, rebuilt from sched_switch / sched_waking / sched_wakeup /
 * sched_wakeup_new / sched_migrate_task / sched_process_exit:
 *   running    between sched_switch in and sched_switch out;
 *   runnable   from sched_waking (or sched_wakeup / sched_wakeup_new when no
 *              sched_waking was recorded), or from a switch out with
 *              (prev_state & 0xff) == 0 (preempted), to the next switch in;
 *   sleeping   after a switch out with any other prev_state.
 * A wakeup of a task that is still running or already runnable is ignored
 * (it never left the CPU), so no latency spans a period it was on the CPU.
 * After sched_process_exit, the task's last switch out ends it; a pid seen
 * again afterwards (or in a sched_wakeup_new) is a new task, reported as a
 * separate entity (see the naming below).
 *
 * Unrecorded switches. A trace can miss a sched_switch: lost events, and
 * tasks whose events in their own (process) context never reach the ring
 * buffer. On the 2-CPU 6.18 VM this was written on, the idle task of CPU 1
 * records no sched_switch out of idle and no power:cpu_idle, although its
 * interrupt-context events ("<idle>-0 [001] sched_waking") and every
 * switch into idle are there; a host agent thread on CPU 0 likewise never
 * records its switch out. So every record is checked against the books:
 * its common_pid is what runs on its CPU at its timestamp (in interrupt
 * context too: common_pid is the interrupted task). When it differs from
 * the task believed current there (the idle task included), the switch
 * is inferred at that timestamp; a sched_switch whose prev_pid differs
 * from the believed current infers a switch to prev_pid first. Inferred:
 *   - the task believed current leaves the CPU without a switch out: it is
 *     neither running nor runnable (state unknown, no voluntary or
 *     involuntary switch counted) until its next event, or is gone if it
 *     had exited;
 *   - common_pid 0 infers a switch to idle: the idle task is current, so
 *     the believed task is not running; how and when it left is unknown;
 *   - a task believed running on another CPU has left that CPU unseen:
 *     that CPU's state is unknown (neither busy nor idle) until its next
 *     event, like a CPU before its first event;
 *   - the switch time lies between the wakeup and the inferring event (on
 *     this VM often milliseconds apart), so an inferred switch in gives
 *     no wakeup_lat sample: it is counted in wakeup_lat.unobserved;
 *   - states change at the inferring event, except for one estimate: when
 *     the CPU was believed idle and the task waited queued on that CPU
 *     (sched_waking / sched_wakeup target_cpu, or sched_migrate_task
 *     dest_cpu, or preempted there), the switch most likely came right
 *     after the later of (a) the event that queued it there and (b) the
 *     last sign of idle on that CPU (switch to idle or record with
 *     common_pid 0): an idle CPU with a queued task reschedules at once,
 *     and nothing else ran there in between (it would have left a record
 *     or the idle task would have). That interval moves from
 *     runnable_wait to cpu_time (cpu_time.estimated) and from cpu.idle to
 *     cpu.busy, a PI wait ends at its start; cpu.overloaded keeps the
 *     state believed at the time (the task waiting on an idle CPU). No
 *     estimate after lost events or on a CPU's first event.
 *
 * Taken CPUs. A CPU believed idle with a task queued on it that was woken
 * or moved there (not one switched out runnable before the CPU idled:
 * throttled) is taken: it is about to run that task. wc.* and rt.* count
 * it neither as an idle CPU nor as a task waiting behind another, so a
 * wakeup onto an idle CPU is no work-conservation or RT-placement event
 * on any machine, and the unrecorded switches above do not inflate them.
 * For rt.*, a taken CPU runs its first fresh RT waiter (by priority, then
 * queueing order) next, or a fair task when it has no RT one.
 *
 * Per task (SRC_TRACE_TASK, last comm seen; lib/entity_name.h names it: the comm,
 * any character outside [A-Za-z0-9_] made '_', alone or "-k" for the k-th
 * (from 0) of the selected tasks of that name by creation; the pid is the
 * id):
 *   wakeup_lat.*          sched_waking -> sched_switch in, one sample per
 *                         wakeup that ended in the window with a recorded
 *                         switch in; p50/p90/p99/p999 are nearest-rank
 *                         (lib/stats.h); NAN w/o samples
 *   wakeup_lat.unobserved wakeups that ended in the window with an
 *                         inferred switch in: latency unknown, no sample
 *   runnable_wait.total   time runnable but not running (wakeup latency
 *                         plus every wait after preemption)
 *   runnable_wait.max     longest single runnable stretch
 *   cpu_time              time running
 *   cpu_share             cpu_time / the window: the part of one CPU the
 *                         task got over the whole window (lower for a
 *                         task that lived only part of it)
 *   cpu_time.estimated    part of cpu_time from the estimate above
 *   cpu_time.top_share    share of cpu_time on the CPU it used most
 *   cpu_time.top_cpu      that CPU's number
 *   cpus_used             CPUs it ran on at all
 *   switches.voluntary    switches out while not runnable (slept, blocked)
 *   switches.involuntary  switches out while runnable (preempted)
 *   switches.inferred     switches in inferred in the window (above)
 *   migrations            sched_migrate_task events with orig != dest
 *   run_burst.*           an activation runs from a sched_waking of the
 *                         task while it slept to its next switch out while
 *                         not runnable; its CPU time in between (the
 *                         estimate above included), one sample per
 *                         activation ending in the window
 *   sleep.*               from a switch out while not runnable to the next
 *                         such sched_waking in the window
 *   wakeup_gap.*          between two such sched_wakings in the window
 *                         (a periodic task's period, a bursty one's
 *                         inter-arrival time)
 *   wakeups.rate          such sched_wakings in the window per second
 *   pi.boosts             sched_pi_setprio events that raised this task's
 *                         priority (newprio < oldprio): it held a PI lock
 *                         a higher-priority task waited for
 *   pi.blocked_*          a "PI wait" of task W starts at the first
 *                         sched_pi_setprio raising another task's priority
 *                         taken in W's context (the kernel boosts the lock
 *                         owner from the task that blocks on the lock) and
 *                         ends when W is next switched in: _count stretches
 *                         ended in the window, _total and _max their length
 *                         (0 without stretches); a wait still open at the
 *                         end of the window is not counted
 *   rt.wait_while_lower   for a task that was RT (prio < 100) while
 *                         runnable: runnable time during which some CPU of
 *                         its affinity (trace_opts) was idle (not taken),
 *                         ran a task of lower priority (greater prio), or
 *                         was taken by a lower one; not while it is the
 *                         one a taken CPU runs next. A wakeup onto a CPU
 *                         running a lower task counts its latency, one
 *                         onto an idle CPU does not. NAN for non-RT tasks
 *                         or unknown affinity.
 *   fork.stacked          1 when the task, at its sched_wakeup_new (its
 *                         creation: before the window, which starts at
 *                         rt-app's first pass), was queued on a CPU that
 *                         ran a task and had another waiting, while a
 *                         CPU of its affinity (trace_opts, by its comm
 *                         at the end) was idle (not taken); else 0. NAN
 *                         when its creation is not in the trace or its
 *                         affinity is unknown (trace/trace_fork.h)
 *
 * Per CPU (SRC_TRACE_CPU, "cpuN"), over the time the CPU's state is known:
 *   cpu.busy, cpu.idle    time running a task / the idle task (pid 0)
 *   cpu.busy_share        busy / (busy + idle)
 *   cpu.overloaded        time with more than one runnable task on it
 *                         (the running one plus >= 1 waiting, or >= 2
 *                         waiting)
 *   ipi.received          ipi_send_cpu to it + ipi_send_cpumask naming it
 *   freq.time_to_max      power:cpu_frequency: from window start to the
 *                         first event in the window reaching the highest
 *                         frequency seen on this CPU (0 if it was already
 *                         there); NAN without cpu_frequency events (VMs)
 *
 * System (SRC_TRACE_SYSTEM, "system"):
 *   wc.idle_while_waiting time during which some CPU is idle (not taken)
 *                         while a task allowed on it waits runnable on a
 *                         CPU that runs another task (Lozi et al.'s work
 *                         conservation).
 *                         Allowed = the first trace_opts.aff glob matching
 *                         the comm, else every CPU if affinity_all (except
 *                         per-CPU kthreads, comm "name/<digit>..."), else
 *                         the task is left out. NAN with no affinity info.
 *   wc.share              wc.idle_while_waiting / window length
 *   wc.longest            longest unbroken such stretch
 *   rt.wait_while_lower_total  sum of the tasks' rt.wait_while_lower
 *   smt.stacked_share     share of the window during which some core of
 *                         two or more SMT threads ran a task on every
 *                         thread while another core was idle on all of
 *                         its (trace_opts.core_of; NAN without it): tasks
 *                         stacked on siblings that cores of their own
 *                         would run at full speed
 *   ipi.total             IPIs received by all CPUs
 *   freq.time_to_max_worst  largest freq.time_to_max of the CPUs
 *   system.lost_events    events the ring buffer dropped: the larger of the
 *                         records' missed_events sum and the overruns and
 *                         drops in the file's per-CPU stats (a loss without
 *                         a count counts 1); metrics near a loss are
 *                         unreliable and the caller should say so
 *   trace.window          length of the measured window
 *   trace.events          events read in it (and before it)
 *   foreign.cpu_share     CPU time of the user-space tasks outside the
 *                         workload (not matched by trace_opts.task_globs,
 *                         not kernel threads) over window * CPUs; NAN
 *                         without task_globs. A run where this is large
 *                         was disturbed by something else on the machine
 *   kthread.cpu_share     CPU time of kernel threads over window * CPUs. A
 *                         kernel thread is a pid of trace_opts.kthreads
 *                         (read from /proc around the run), else a comm
 *                         of the per-CPU pattern above or "kworker/..."
 *                         (trace/kthreads.h). Kernel threads work for the
 *                         workload too (its timers, its I/O): a large
 *                         share is news about the kernel, not a busy
 *                         machine
 *   trace.inferred_switches  switches inferred in the window, to a task or
 *                         to idle; many on a CPU mean its idle task (or
 *                         some task) leaves no events of its own
 *
 * An empty trace (no events) analyses fine: no tasks, NAN CPU and system
 * metrics, and trace_report_note() says why. A trace with events but no
 * sched_switch was recorded without the sched events: trace_analyze()
 * refuses it (SW_EXIT_BAD_TRACE) rather than report zeros.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/entity_name.h"
#include "trace/trace_fork.h"
#include "trace/trace_metrics.h"

enum {
	T_WAIT_TOTAL, T_WAIT_MAX, T_CPU, T_SHARE, T_TOP_SHARE, T_TOP_CPU, T_NCPUS,
	T_VOL, T_INVOL, T_MIGR, T_PI_BOOSTS, T_PI_COUNT, T_PI_TOTAL, T_PI_MAX,
	T_RT_LOWER, T_FORK, T_UNOBSERVED, T_EST, T_INFERRED, T_WAKEUP_RATE,
	C_BUSY, C_IDLE, C_BUSY_SHARE, C_OVER, C_IPI, C_FREQ,
	S_WC, S_WC_SHARE, S_WC_LONGEST, S_STACKED, S_RT_LOWER, S_IPI, S_FREQ, S_LOST,
	S_WINDOW, S_EVENTS, S_INFERRED, S_FOREIGN, S_KTHREAD,
};

static double us(uint64_t ns)
{
	return ns / 1e3;
}

static double task_lat(const void *e, const struct metric_def *d)
{
	/* sorting the samples in place leaves every statistic unchanged */
	struct series *s = (struct series *)&((const struct ta_task *)e)->wakeup_lat;

	return series_stat(s, d->arg);
}

uint64_t ta_window_ns(const struct trace_report *r)
{
	uint64_t start = r->ws > r->first_ts ? r->ws : r->first_ts;

	return r->nevents && r->end_ts > start ? r->end_ts - start : 0;
}

/* The activation series of trace/trace_sched.c, by metric_def.arg. */
enum { A_RUN_BURST, A_SLEEP, A_WAKEUP_GAP };
#define ACT_ARG(series, stat)	((series) * 100 + (stat))

static double task_act(const void *e, const struct metric_def *d)
{
	/* sorting the samples in place leaves every statistic unchanged */
	struct ta_task *t = (struct ta_task *)e;
	struct series *s[] = { &t->run_burst, &t->sleep, &t->wakeup_gap };

	return series_stat(s[d->arg / 100], d->arg % 100);
}

static double task_val(const void *e, const struct metric_def *d)
{
	const struct ta_task *t = e;
	const struct trace_report *r = t->report;
	uint64_t top = 0;
	int c, top_cpu = -1, n = 0;

	for (c = 0; c < r->ncpus; c++) {
		n += t->cpu_ns_on[c] > 0;
		if (t->cpu_ns_on[c] > top) {
			top = t->cpu_ns_on[c];
			top_cpu = c;
		}
	}
	switch (d->arg) {
	case T_WAIT_TOTAL:
		return us(t->wait_ns);
	case T_WAIT_MAX:
		return us(t->wait_max_ns);
	case T_CPU:
		return us(t->cpu_ns);
	case T_SHARE:
		return ta_window_ns(r) ? (double)t->cpu_ns / ta_window_ns(r) : NAN;
	case T_TOP_SHARE:
		return t->cpu_ns ? (double)top / t->cpu_ns : NAN;
	case T_TOP_CPU:
		return top_cpu >= 0 ? top_cpu : NAN;
	case T_NCPUS:
		return n;
	case T_VOL:
		return t->vol;
	case T_INVOL:
		return t->invol;
	case T_MIGR:
		return t->migrations;
	case T_PI_BOOSTS:
		return t->pi_boosts;
	case T_PI_COUNT:
		return t->pi_blocks;
	case T_PI_TOTAL:
		return us(t->pi_blocked_ns);
	case T_PI_MAX:
		return us(t->pi_blocked_max_ns);
	case T_RT_LOWER:
		return t->was_rt && r->aff_known ? us(t->rt_lower_ns) : NAN;
	case T_FORK:
		return t->fork_stacked < 0 ? NAN : t->fork_stacked;
	case T_UNOBSERVED:
		return t->lat_unobserved;
	case T_EST:
		return us(t->est_ns);
	case T_INFERRED:
		return t->inferred;
	case T_WAKEUP_RATE:
		return ta_window_ns(r) ? t->wakeups / (ta_window_ns(r) / 1e9) :
					 NAN;
	}
	return NAN;
}

static double cpu_val(const void *e, const struct metric_def *d)
{
	const struct ta_cpu *c = e;
	uint64_t known = c->busy_ns + c->idle_ns;

	if (d->arg == C_IPI)
		return c->ipi;
	if (d->arg == C_FREQ)
		return c->freq_to_max_us;
	if (!known)
		return NAN;
	switch (d->arg) {
	case C_BUSY:
		return us(c->busy_ns);
	case C_IDLE:
		return us(c->idle_ns);
	case C_BUSY_SHARE:
		return (double)c->busy_ns / known;
	case C_OVER:
		return us(c->over_ns);
	}
	return NAN;
}

/*
 * The events the ring-buffer pages say were lost, or the kernel's overrun
 * and drop counts if larger: one figure for system.lost_events and for
 * run/measure.c.
 */
uint64_t trace_report_lost_events(const struct trace_report *r)
{
	uint64_t n = r->lost_rec;

	if (!n && r->lost_unknown)
		n = 1;	/* lost, count unknown: never report zero */
	return n > r->lost_stats ? n : r->lost_stats;
}

static double sys_val(const void *e, const struct metric_def *d)
{
	const struct trace_report *r = e;
	uint64_t win = ta_window_ns(r);
	double worst = NAN;
	int c;

	switch (d->arg) {
	case S_LOST:
		return trace_report_lost_events(r);
	case S_EVENTS:
		return r->nevents;
	case S_IPI:
		return r->ipi_total;
	case S_INFERRED:
		return r->inferred;
	}
	if (!win)
		return NAN;
	switch (d->arg) {
	case S_WC:
		return r->aff_known ? us(r->wc_ns) : NAN;
	case S_WC_SHARE:
		return r->aff_known ? (double)r->wc_ns / win : NAN;
	case S_STACKED:
		return r->smt_known ? (double)r->stacked_ns / win : NAN;
	case S_WC_LONGEST:
		return r->aff_known ? us(r->wc_stretches.top[0].len) : NAN;
	case S_RT_LOWER:
		return r->aff_known ? us(r->rt_lower_ns) : NAN;
	case S_FREQ:
		for (c = 0; c < r->ncpus; c++)
			if (!isnan(r->cpu[c].freq_to_max_us) &&
			    !(worst >= r->cpu[c].freq_to_max_us))
				worst = r->cpu[c].freq_to_max_us;
		return worst;
	case S_WINDOW:
		return us(win);
	case S_FOREIGN:
		return r->foreign_known && r->ncpus ?
		       (double)r->foreign_ns / ((double)win * r->ncpus) : NAN;
	case S_KTHREAD:
		return r->ncpus ?
		       (double)r->kthread_ns / ((double)win * r->ncpus) : NAN;
	}
	return NAN;
}

#define ROW(n, u, src, fn, a, h) { .name = n, .unit = u, .source = src, \
	.extract = fn, .arg = a, .help = h }
/* Latencies: a slower host stretches them too (metric_def.host_timed). */
#define LAT(n, st, h) { .name = "wakeup_lat." n, \
	.unit = n[0] == 'c' ? "count" : "us", .source = SRC_TRACE_TASK, \
	.extract = task_lat, .arg = st, .help = h, .host_timed = 1 }
/* A tail of the wakeup latencies: compared on pooled events. */
#define LAT_TAIL(n, st, h, quantile) { .name = "wakeup_lat." n, .unit = "us", \
	.source = SRC_TRACE_TASK, .extract = task_lat, .arg = st, .help = h, \
	.series = "wakeup_lat", .tail = TAIL_HIGH, .q = quantile, \
	.host_timed = 1 }
#define TASK(n, u, a, h) ROW(n, u, SRC_TRACE_TASK, task_val, a, h)
#define WAIT(n, a, h) { .name = n, .unit = "us", .source = SRC_TRACE_TASK, \
	.extract = task_val, .arg = a, .help = h, .host_timed = 1 }
/* Priority inheritance happens only around rt-app's locks. */
#define PI_TASK(n, u, a, h) { .name = n, .unit = u, \
	.source = SRC_TRACE_TASK, .extract = task_val, .arg = a, .help = h, \
	.needs = NEEDS_LOCK }
#define ACT(n, ser, st, h) ROW(n, "us", SRC_TRACE_TASK, task_act, \
	ACT_ARG(ser, st), h)
#define CPU(n, u, a, h) ROW(n, u, SRC_TRACE_CPU, cpu_val, a, h)
#define SYS(n, u, a, h) ROW(n, u, SRC_TRACE_SYSTEM, sys_val, a, h)
#define NO_CPUFREQ "no power:cpu_frequency events (no cpufreq driver?)"
#define NO_SMT "no SMT topology known for the trace's CPUs"

static const struct metric_def trace_metric_defs[] = {
	LAT("p50", STAT_P50, "median sched_waking -> switch-in latency"),
	LAT("p90", STAT_P90, "90th percentile wakeup latency"),
	LAT_TAIL("p99", STAT_P99, "99th percentile wakeup latency", 0.99),
	LAT_TAIL("p999", STAT_P999, "99.9th percentile wakeup latency", 0.999),
	LAT_TAIL("max", STAT_MAX, "longest wakeup latency", 1),
	LAT("count", STAT_COUNT, "wakeups that ended in the window"),
	TASK("wakeup_lat.unobserved", "count", T_UNOBSERVED,
	     "wakeups ended by an inferred switch in: latency unknown"),
	WAIT("runnable_wait.total", T_WAIT_TOTAL,
	     "time runnable but not running (wakeups and preemptions)"),
	WAIT("runnable_wait.max", T_WAIT_MAX,
	     "longest single runnable-not-running stretch"),
	TASK("cpu_time", "us", T_CPU, "time running"),
	TASK("cpu_share", "share", T_SHARE,
	     "cpu_time / window: the part of one CPU it got"),
	TASK("cpu_time.estimated", "us", T_EST,
	     "part of cpu_time estimated after an unrecorded switch in"),
	TASK("cpu_time.top_share", "share", T_TOP_SHARE,
	     "share of cpu_time on the most used CPU"),
	TASK("cpu_time.top_cpu", "cpu", T_TOP_CPU, "the most used CPU"),
	TASK("cpus_used", "count", T_NCPUS, "CPUs the task ran on"),
	TASK("switches.voluntary", "count", T_VOL,
	     "switches out while sleeping or blocked"),
	TASK("switches.involuntary", "count", T_INVOL,
	     "switches out while runnable (preempted)"),
	TASK("switches.inferred", "count", T_INFERRED,
	     "switches in deduced from its events, not recorded"),
	TASK("migrations", "count", T_MIGR, "sched_migrate_task events"),
	ACT("run_burst.p50", A_RUN_BURST, STAT_P50,
	    "median CPU time from a wakeup to the next sleep"),
	ACT("run_burst.p90", A_RUN_BURST, STAT_P90,
	    "90th percentile of run_burst"),
	ACT("run_burst.mean", A_RUN_BURST, STAT_MEAN, "mean run_burst"),
	ACT("sleep.p50", A_SLEEP, STAT_P50,
	    "median time asleep, switch out to the next wakeup"),
	ACT("sleep.p90", A_SLEEP, STAT_P90, "90th percentile of sleep"),
	ACT("wakeup_gap.p10", A_WAKEUP_GAP, STAT_P10,
	    "10th percentile of the time between two wakeups"),
	ACT("wakeup_gap.p50", A_WAKEUP_GAP, STAT_P50,
	    "median time between two wakeups: a periodic task's period"),
	ACT("wakeup_gap.p90", A_WAKEUP_GAP, STAT_P90,
	    "90th percentile of wakeup_gap"),
	TASK("wakeups.rate", "1/s", T_WAKEUP_RATE,
	     "wakeups from sleep per second of the window"),
	PI_TASK("pi.boosts", "count", T_PI_BOOSTS,
		"priority raised by a PI waiter"),
	PI_TASK("pi.blocked_count", "count", T_PI_COUNT,
		"PI waits: boosting a lock owner until switched in again"),
	PI_TASK("pi.blocked_total", "us", T_PI_TOTAL, "time in PI waits"),
	PI_TASK("pi.blocked_max", "us", T_PI_MAX, "longest PI wait"),
	TASK("rt.wait_while_lower", "us", T_RT_LOWER,
	     "RT task runnable while an allowed CPU idles or runs lower prio"),
	TASK("fork.stacked", "count", T_FORK,
	     "created behind a running and a waiting task beside an idle CPU"),
	CPU("cpu.busy", "us", C_BUSY, "time running a task"),
	CPU("cpu.idle", "us", C_IDLE, "time running the idle task"),
	CPU("cpu.busy_share", "share", C_BUSY_SHARE,
	    "busy / (busy + idle) over the known time"),
	CPU("cpu.overloaded", "us", C_OVER, "time with > 1 runnable task"),
	CPU("ipi.received", "count", C_IPI, "IPIs sent to this CPU"),
	{ .name = "freq.time_to_max", .unit = "us", .source = SRC_TRACE_CPU,
	  .extract = cpu_val, .arg = C_FREQ, .unavailable = NO_CPUFREQ,
	  .help = "window start to first cpu_frequency at the CPU's max" },
	SYS("wc.idle_while_waiting", "us", S_WC,
	    "a free CPU idles while a task allowed on it waits elsewhere"),
	SYS("wc.share", "share", S_WC_SHARE,
	    "wc.idle_while_waiting / window"),
	SYS("wc.longest", "us", S_WC_LONGEST,
	    "longest work-conservation violation"),
	SYS("rt.wait_while_lower_total", "us", S_RT_LOWER,
	    "sum of the tasks' rt.wait_while_lower"),
	{ .name = "smt.stacked_share", .unit = "share",
	  .source = SRC_TRACE_SYSTEM, .extract = sys_val, .arg = S_STACKED,
	  .unavailable = NO_SMT,
	  .help = "a core busy on all its threads while another idles" },
	SYS("ipi.total", "count", S_IPI, "IPIs received by all CPUs"),
	{ .name = "freq.time_to_max_worst", .unit = "us",
	  .source = SRC_TRACE_SYSTEM, .extract = sys_val, .arg = S_FREQ,
	  .unavailable = NO_CPUFREQ, .help = "largest freq.time_to_max" },
	SYS("system.lost_events", "count", S_LOST,
	    "events dropped by the ring buffer"),
	SYS("trace.window", "us", S_WINDOW, "length of the measured window"),
	SYS("trace.events", "count", S_EVENTS, "events read"),
	SYS("foreign.cpu_share", "share", S_FOREIGN,
	    "CPU time of user tasks outside the workload / (window * CPUs)"),
	SYS("kthread.cpu_share", "share", S_KTHREAD,
	    "CPU time of kernel threads / (window * CPUs)"),
	SYS("trace.inferred_switches", "count", S_INFERRED,
	    "context switches deduced from the events, not recorded"),
};


static struct series *task_series(const void *e, int arg)
{
	(void)arg;
	/* The histograms only read the series: the cast drops const only. */
	return &((struct ta_task *)e)->wakeup_lat;
}

static const struct series_def trace_series_defs[] = {
	{ "wakeup_lat", SRC_TRACE_TASK, task_series, 0 },
};

const struct metric_table trace_metric_table = {
	.defs = trace_metric_defs,
	.ndefs = ARRAY_SIZE(trace_metric_defs),
	.series = trace_series_defs,
	.nseries = ARRAY_SIZE(trace_series_defs),
};

static int task_selected(const struct ta_task *t, const struct trace_opts *o)
{
	size_t i;

	if (!o || !o->task_globs)
		return 1;
	for (i = 0; i < o->ntask_globs; i++)
		if (glob_match(o->task_globs[i], t->comm))
			return 1;
	return 0;
}

/*
 * Called at the end of trace_analyze(), while the options are known:
 * which tasks the workload has, which are kernel threads (trace/kthreads.h: in
 * the list, else by name), and the CPU time of the others.
 */
void ta_classify(struct trace_report *r)
{
	const struct trace_opts *o = r->opts;
	struct ta_task *t;

	r->foreign_known = o && o->task_globs;
	r->foreign_ns = r->kthread_ns = 0;
	for (t = r->tasks; t; t = t->next) {
		t->selected = task_selected(t, o);
		t->kthread = (o && kthreads_find(o->kthreads, t->pid)) ||
			     kthread_comm(t->comm);
		entity_sanitize(t->comm, t->name, sizeof(t->name));
		t->fork_stacked = ta_fork_stacked(r, t);
		if (t->kthread)
			r->kthread_ns += t->cpu_ns;
		else if (!t->selected)
			r->foreign_ns += t->cpu_ns;
	}
}

/*
 * Entity names must not change from run to run (subtest names, baseline
 * keys), so no pid is part of them: the rule of lib/entity_name.h, on the comm made
 * a name. Threads of one name are numbered in creation order when the
 * trace has every one's sched_wakeup_new, else in pid order (rt-app
 * creates a task's threads in index order; a reused pid's incarnations
 * count in the order they appeared). The pid is the entity's id.
 */
static void task_entity_name(const struct trace_report *r,
			     const struct ta_task *t, char *buf, size_t len)
{
	const struct ta_task *p;
	int rank = 0, total = 0, born = 1, before = 1;

	for (p = r->tasks; p; p = p->next) {
		if (p->selected && !strcmp(p->name, t->name)) {
			total++;
			born &= p->born_ts != 0;
		}
	}
	for (p = r->tasks; p; p = p->next) {
		if (p == t)
			before = 0;
		if (p == t || !p->selected || strcmp(p->name, t->name))
			continue;
		if (born)
			rank += p->born_ts < t->born_ts ||
				(p->born_ts == t->born_ts && before);
		else
			rank += p->pid < t->pid || (p->pid == t->pid && before);
	}
	entity_thread_name(t->name, rank, total, buf, len);
}

int trace_report_add_metrics(struct trace_report *r,
			     const struct trace_opts *opts,
			     struct metric_set *set)
{
	const struct ta_task *t;
	char name[64];
	int c;

	(void)opts;	/* ta_classify() applied them */
	for (t = r->tasks; t; t = t->next) {
		if (!t->selected)
			continue;
		task_entity_name(r, t, name, sizeof(name));
		if (metric_set_add_entity(set, &trace_metric_table,
					  SRC_TRACE_TASK, t, name, t->name,
					  t->pid))
			return -1;
	}
	for (c = 0; c < r->ncpus; c++) {
		snprintf(name, sizeof(name), "cpu%d", c);
		if (metric_set_add_entity(set, &trace_metric_table,
					  SRC_TRACE_CPU, &r->cpu[c], name,
					  name, c))
			return -1;
	}
	return metric_set_add_entity(set, &trace_metric_table,
				     SRC_TRACE_SYSTEM, r, "system", "system",
				     -1);
}
