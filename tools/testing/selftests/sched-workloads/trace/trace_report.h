/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct trace_report, which trace/trace.h leaves opaque, and its parts:
 * the tasks, CPUs and system-wide conditions the analysis rebuilds from
 * the events. Types only, shared by the analysis modules; each declares
 * its functions in a header named for it. The events enter through
 * trace/trace_events.h; trace/trace_sched.c keeps the books.
 */
#ifndef SW_TRACE_REPORT_H
#define SW_TRACE_REPORT_H

#include <stdint.h>

#include "lib/cpubits.h"
#include "lib/stats.h"
#include "trace/trace.h"

#define TA_COMM_LEN	16
#define TA_NO_PRIO	(-1000)	/* no sched_switch seen */
#define TA_HASH_SIZE	1024

enum ta_state {
	TS_UNKNOWN,	/* not seen on a CPU nor woken yet */
	TS_RUNNING,
	TS_WAITING,	/* runnable, not running */
	TS_SLEEPING,
	TS_DEAD,
};

/* Affinity classes: 0 = unknown, 1 = every CPU, 2 + i = opts->aff[i]. */
#define TA_MASK_NONE	0
#define TA_MASK_ALL	1

/*
 * A stretch: one unbroken interval during which a condition held (work
 * conservation broken, an RT task waiting while lower), as it began: a
 * task waiting on one CPU while another CPU it may use idled or ran
 * something lower. "Stretch" is the word of the --explain output and of
 * wc.longest, so the code uses no other for it.
 */
struct ta_stretch {
	uint64_t start, len;
	int pid, cpu;		/* the waiting task, and where it waited */
	char comm[TA_COMM_LEN];
	int other_cpu;		/* the CPU it could have used; -1 unnamed */
	int other_taken;	/* it was taken: about to run other_pid */
	int other_pid;		/* what ran there (0 idle, -1 a fair task) */
	int other_prio;
	char other_comm[TA_COMM_LEN];
};

/* How many stretches ended in the window, and the longest ones. */
#define TA_STRETCHES	5
struct ta_stretches {
	unsigned long count;
	struct ta_stretch top[TA_STRETCHES];	/* longest first */
};

/* One task incarnation: a reused pid starts a new one. */
struct ta_task {
	const struct trace_report *report;
	int pid;
	char comm[TA_COMM_LEN];
	int prio;		/* last kernel prio seen (< 100: RT) */
	enum ta_state state;
	int cpu;		/* where it runs or waits; -1 = unknown */
	int exiting;		/* sched_process_exit seen */
	uint64_t since;		/* start of the current state */
	uint64_t waking_ts;	/* wakeup pending since; 0 = none */
	uint64_t rq_ts;		/* waiting: last queued on t->cpu */
	int rq_preempted;	/* ... by a switch out while runnable */
	int mask;		/* affinity class it was counted under */
	int aff_class;		/* ta_task_mask() of this comm, if aff_valid */
	int aff_valid;		/* cleared when the comm changes */
	int rt_lower;		/* waiting while an allowed CPU runs lower */
	int rt_listed;		/* on the report's rt_waiting list */
	int was_rt;
	uint64_t pi_block_ts;	/* boosted a lock owner, not run since */
	struct ta_stretch rt_cur;	/* the rt_lower stretch going on */

	struct series wakeup_lat;	/* us */
	uint64_t cpu_ns, wait_ns, wait_max_ns, wait_cur_ns;
	uint64_t rt_lower_ns;
	uint64_t *cpu_ns_on;		/* [ncpus] */
	unsigned long vol, invol, migrations;
	unsigned long inferred, lat_unobserved;
	uint64_t est_ns;		/* part of cpu_ns estimated */
	unsigned long pi_boosts, pi_blocks;
	uint64_t pi_blocked_ns, pi_blocked_max_ns;
	uint64_t born_ts;		/* its sched_wakeup_new; 0 = not seen */
	uint64_t *fork_idle;		/* [nwords]: idle CPUs, if born stacked */
	uint64_t first_ts, last_ts;	/* its first and last event */
	/* Activations (trace/trace_activation.c): woken while asleep, asleep again. */
	int act_open;			/* woken, not asleep since */
	uint64_t act_wake_ts;		/* that wakeup */
	uint64_t act_cpu_ns;		/* cpu_ns at it */
	int act_waker;
	uint64_t sleep_ts;		/* asleep since; 0 = not asleep */
	uint64_t last_wake_ts;		/* previous wakeup; 0 = none */
	unsigned long wakeups;		/* such wakeups in the window */
	struct series run_burst, sleep, wakeup_gap;	/* us */
	struct trace_activation *acts;	/* trace_opts.keep_activations */
	size_t nacts, acts_cap;
	int switch_prio;		/* prio in its last sched_switch */

	/* Set by ta_classify() once the events are read. */
	int selected;			/* matched by trace_opts.task_globs */
	int kthread;			/* a kernel thread (trace/kthreads.h) */
	char name[TA_COMM_LEN];		/* comm as an entity name (lib/entity_name.h) */
	int fork_stacked;		/* ta_fork_stacked() */

	struct ta_task *hnext;		/* live pids only */
	struct ta_task *next;		/* every incarnation, first seen first */
	struct ta_task *rt_next;	/* waiting RT tasks, any affinity */
};

struct ta_cpu {
	int known;		/* state known since the first event here */
	int curr;		/* pid on the CPU, 0 = idle */
	int curr_prio;
	int nwait;		/* tasks waiting runnable here */
	int nfresh;		/* ... woken or moved here, not preempted */
	uint64_t idle_ts;	/* idle: last time idle was known current */
	uint64_t tl_since;	/* what runs now began (r->tl only) */
	uint64_t since;		/* last accounting */
	uint64_t first_ts;
	uint64_t busy_ns, idle_ns, over_ns;
	unsigned long ipi;
	/* power:cpu_frequency, kHz */
	unsigned long freq_max, freq_before;
	uint64_t freq_reach_ts;	/* first in-window event at freq_max */
	int freq_events;
	double freq_to_max_us;	/* set by ta_finish(); NAN = unknown */
};

/* trace/trace_timeline.c: what ran and waited on each CPU over a short span. */
struct tl_segment {
	uint64_t start, end;
	int waiting;		/* 0: ran on cpu (pid 0: idle); 1: waited */
	int cpu, pid, prio;
	char comm[TA_COMM_LEN];
};

struct ta_timeline {
	uint64_t start, end;	/* the span, trace clock ns */
	struct tl_segment *seg;
	size_t n, cap;
};

struct trace_report {
	char path[256];
	int ncpus;
	struct ta_cpu *cpu;
	struct ta_task *hash[TA_HASH_SIZE];
	struct ta_task *tasks, **tail;
	struct ta_task *rt_waiting;
	size_t ntasks;

	uint64_t ws, we;		/* requested window (we 0 = open) */
	uint64_t first_ts, last_ts, end_ts;
	uint64_t nevents, nswitch;
	uint64_t inferred;		/* switches deduced, not recorded */
	/* set by ta_classify() */
	int foreign_known;		/* trace_opts says what is the workload */
	uint64_t foreign_ns;		/* CPU time of unselected user tasks */
	uint64_t kthread_ns;		/* CPU time of kernel threads */
	uint64_t lost_rec, lost_stats;
	int lost_unknown;		/* a page said "missed" without a count */
	int stopped;			/* past the window: not an error */
	int failed;			/* out of memory in a callback */

	/* affinity classes for work conservation and RT placement */
	const struct trace_opts *opts;	/* valid during trace_analyze only */
	int aff_known;
	int nmask;
	size_t nwords;			/* cpubits_words(ncpus) */
	uint64_t *masks;		/* [nmask][nwords], lib/cpubits.h */
	unsigned int *wait_cnt;		/* [nmask][ncpus] */
	unsigned int *busy_wait;	/* [nmask]: waiting on busy CPUs */
	uint64_t *idle_cpus;		/* [nwords]: known idle CPUs */
	int nidle;			/* how many */

	uint64_t last_adv;		/* last time conditions were integrated */
	int wc_active;
	uint64_t wc_ns;
	struct ta_stretch wc_cur;	/* the stretch going on */
	/* wc.longest = wc_stretches.top[0].len */
	struct ta_stretches wc_stretches;
	uint64_t rt_lower_ns;
	struct ta_stretches rt_stretches;	/* of every task's rt_lower */
	/* SMT cores (trace_opts.core_of), indexed by core: its lowest CPU */
	int smt_known;
	int *core_threads, *core_busy, *core_idle;	/* [ncpus] */
	int ncores_full, ncores_empty;	/* of 2+ threads all busy; all idle */
	int stacked_active;
	uint64_t stacked_ns;
	unsigned long ipi_total;
	struct ta_timeline *tl;		/* trace_opts.timeline_end_ns; or NULL */
	char note[160];
};

#endif /* SW_TRACE_REPORT_H */
