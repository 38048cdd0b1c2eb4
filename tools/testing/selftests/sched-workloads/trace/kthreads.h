/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which pids are kernel threads: read from /proc around a run, kept as a
 * small text file beside its trace (lib/results.h: kthreads.txt, one "pid comm"
 * line each, pids ascending), so that the trace analysis can tell a
 * kernel thread that spins from a user task that disturbs the run.
 */
#ifndef SW_KTHREADS_H
#define SW_KTHREADS_H

#include <stddef.h>
#include "lib/util.h"

/*
 * The comm as /proc/PID/stat says it: "kworker/0:1-events" ends in the
 * kworker's current work, where the trace says "kworker/0:1".
 */
struct kthread {
	int pid;
	char comm[64];
};

/* Sorted by pid, no pid twice. */
struct kthread_list {
	struct kthread *v;
	size_t n, cap;
};

/*
 * Adds the kernel threads alive now (PF_KTHREAD in /proc/PID/stat) to
 * @l: called before and after a run, it holds both. A pid already there
 * keeps its first comm. Returns 0, or -1 with @err set (no /proc).
 */
int kthreads_scan(struct kthread_list *l, struct sw_err *err);
int kthreads_write(const struct kthread_list *l, const char *path,
		   struct sw_err *err);
/*
 * Reads a file kthreads_write() wrote. Returns 0; 1 when @path does not
 * exist (@l left empty); -1 with @err set (SW_EXIT_BAD_LOG, naming the
 * file and line) when a line is not "pid comm".
 */
int kthreads_read(const char *path, struct kthread_list *l,
		  struct sw_err *err);
const struct kthread *kthreads_find(const struct kthread_list *l, int pid);
void kthreads_free(struct kthread_list *l);

/*
 * Kernel threads by naming convention, for a pid the list does not know:
 * per-CPU ones are "name/<digit>..." ("ksoftirqd/0", "kworker/1:2",
 * "migration/1"), and every workqueue worker is "kworker/..." (the
 * unbound ones too: "kworker/u4:1"). A user task may take such a name; a
 * list from /proc settles it.
 */
int kthread_percpu_comm(const char *comm);
int kthread_comm(const char *comm);

#endif /* SW_KTHREADS_H */
