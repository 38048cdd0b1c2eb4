/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entity names: the second part of a result name
 * "<workload>.<entity>.<metric>" and of a baseline key
 * "source/entity/metric". A thread has one name, whether it is read from
 * rt-app's logs or from the trace, and the same one in every run:
 *
 *   - a task (its key in the workload's "tasks") with one thread in the
 *     run: the task name ("decoder");
 *   - a task with N > 1 threads: "<task>-<k>", k = 0..N-1 its instance
 *     number within the task (logs: rt-app's thread index minus the
 *     task's smallest; trace: creation order among the threads with
 *     that name);
 *   - CPUs "cpu<N>", the whole run "system".
 *
 * Task names are 1-15 characters of [A-Za-z0-9_]: 15 is the kernel's comm
 * length, so a thread's comm is its task name; without '-' the suffix
 * parses back unambiguously, without '.' the result name splits on dots,
 * and nothing in them is special to KTAP ('#' starts a directive). A comm
 * in a trace analysed without a workload gets every other character
 * replaced by '_' ("kworker/0:1" -> "kworker_0_1").
 */
#ifndef SW_ENTITY_H
#define SW_ENTITY_H

#include <stddef.h>

/* The kernel's TASK_COMM_LEN less its NUL. */
#define ENTITY_TASK_MAX	15

/* Whether @name may name a task: 1-15 characters of [A-Za-z0-9_]. */
int entity_task_name_ok(const char *name);
/*
 * Whether @s may be part of a KTAP result name: printable, no blank or
 * control character, no '#' (a directive follows it).
 */
int entity_ktap_ok(const char *s);
/* @comm with every character outside [A-Za-z0-9_] replaced by '_'. */
void entity_sanitize(const char *comm, char *buf, size_t len);
/* The name of thread @k (0-based) of the @n threads of @task. */
void entity_thread_name(const char *task, int k, int n, char *buf,
			size_t len);
/* The task of an entity name: "hog-1" -> "hog", "decoder" -> "decoder". */
void entity_task_of(const char *entity, char *buf, size_t len);

#endif /* SW_ENTITY_H */
