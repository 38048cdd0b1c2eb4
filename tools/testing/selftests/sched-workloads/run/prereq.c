// SPDX-License-Identifier: GPL-2.0
/*
 * Prerequisite probes.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "run/prereq.h"
#include "machine/cpu_cores.h"
#include "rtapp/rtapp_run.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* glibc 2.36 has no wrapper for sched_setattr(2). */
struct sw_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

const char *probe_root(void)
{
	return geteuid() ? "must run as root (tracefs, real-time policies, mlock)" :
	       NULL;
}

const char *probe_rtapp(void)
{
	return rtapp_binary() ? NULL :
	       "rt-app not found (Debian package rt-app, or set RTAPP=/path/to/rt-app)";
}

struct policy_probe {
	const struct workload *w;
	char *reason;
	size_t len;
	struct sw_err *err;
	int dry;		/* check the attributes, ask no kernel */
};

/*
 * rt-app 1.0 reads these with json_object_get_int(): an int, saturated
 * beyond. A value it would not read as written is refused, as is a
 * deadline parameter (in us) whose ns overflow (found by fuzz_workload).
 */
static int get_int(struct policy_probe *p, const char *task,
		   struct json_object *t, const char *key, long def,
		   long *out)
{
	struct json_object *v;
	int64_t x;

	*out = def;
	if (!json_object_object_get_ex(t, key, &v))
		return 0;
	x = json_object_get_int64(v);
	if (x < INT32_MIN || x > INT32_MAX)
		return sw_err_set(p->err, SW_EXIT_BAD_WORKLOAD,
				  "%s: tasks.%s.%s: %lld is beyond an int (what rt-app 1.0 reads)",
				  p->w->path, task, key, (long long)x);
	*out = x;
	return 0;
}

static int attr_from_task(struct policy_probe *p, const char *task,
			  struct json_object *t, struct sw_sched_attr *a,
			  const char **name)
{
	long x, y, z;

	*name = workload_policy(p->w, t);
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (!strcmp(*name, "SCHED_OTHER")) {
		a->sched_policy = SCHED_OTHER;
		if (get_int(p, task, t, "priority", 0, &x))
			return -1;
		a->sched_nice = x;
		if (a->sched_nice < -20 || a->sched_nice > 19)
			return sw_err_set(p->err, SW_EXIT_BAD_WORKLOAD,
					  "%s: tasks.%s.priority: nice %d outside -20..19",
					  p->w->path, task, a->sched_nice);
	} else if (!strcmp(*name, "SCHED_IDLE")) {
		a->sched_policy = SCHED_IDLE;
	} else if (!strcmp(*name, "SCHED_FIFO") || !strcmp(*name, "SCHED_RR")) {
		a->sched_policy = (*name)[6] == 'F' ? SCHED_FIFO : SCHED_RR;
		if (get_int(p, task, t, "priority", 10, &x))
			return -1;
		if (x < 1 || x > 99)
			return sw_err_set(p->err, SW_EXIT_BAD_WORKLOAD,
					  "%s: tasks.%s.priority: %ld outside 1..99 for %s",
					  p->w->path, task, x, *name);
		a->sched_priority = x;
	} else if (!strcmp(*name, "SCHED_DEADLINE")) {
		a->sched_policy = SCHED_DEADLINE;
		if (get_int(p, task, t, "dl-runtime", 0, &x) ||
		    get_int(p, task, t, "dl-period", 0, &y) ||
		    get_int(p, task, t, "dl-deadline", 0, &z))
			return -1;
		if (x < 0 || y < 0 || z < 0)
			return sw_err_set(p->err, SW_EXIT_BAD_WORKLOAD,
					  "%s: tasks.%s: a negative SCHED_DEADLINE parameter",
					  p->w->path, task);
		a->sched_runtime = (uint64_t)x * 1000;
		a->sched_period = (uint64_t)y * 1000;
		a->sched_deadline = (uint64_t)z * 1000;
		if (!a->sched_deadline)
			return sw_err_set(p->err, SW_EXIT_BAD_WORKLOAD,
					  "%s: tasks.%s: SCHED_DEADLINE needs dl-deadline (rt-app 1.0 does not default it)",
					  p->w->path, task);
	} else {
		return sw_err_set(p->err, SW_EXIT_BAD_WORKLOAD,
				  "%s: tasks.%s.policy: unknown policy \"%s\"",
				  p->w->path, task, *name);
	}
	return 0;
}

/* 0 when the kernel admits the attributes, else -errno. */
static int try_policy(const struct sw_sched_attr *a)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		struct sw_sched_attr attr = *a;

		if (syscall(SYS_sched_setattr, 0, &attr, 0))
			_exit(errno & 0xff);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

static int probe_task(const char *task, struct json_object *t, void *arg)
{
	struct policy_probe *p = arg;
	struct sw_sched_attr a;
	const char *name;
	int e;

	if (attr_from_task(p, task, t, &a, &name))
		return -1;
	if (p->dry)
		return 0;
	e = try_policy(&a);
	if (!e)
		return 0;
	snprintf(p->reason, p->len, "kernel refuses %s for task %s: %s",
		 name, task, strerror(-e));
	return 1;
}

static int walk_policies(const struct workload *w, char *reason, size_t len,
			 struct sw_err *err, int dry)
{
	struct policy_probe p = {
		.w = w, .reason = reason, .len = len, .err = err, .dry = dry,
	};

	reason[0] = '\0';
	return workload_walk_tasks(w, probe_task, &p);
}

int probe_policies(const struct workload *w, char *reason, size_t len,
		   struct sw_err *err)
{
	return walk_policies(w, reason, len, err, 0);
}

int probe_validate_policies(const struct workload *w, struct sw_err *err)
{
	char reason[8];

	return walk_policies(w, reason, sizeof(reason), err, 1);
}

int probe_topology(const struct workload *w, char *reason, size_t len)
{
	struct sw_err err = { 0 };
	struct cpu_cores cores;
	int smt;

	if (!json_object_object_get(w->block, "topology"))
		return 0;
	if (cpu_cores_scan(&cores, &err)) {
		snprintf(reason, len, "needs SMT siblings: %s", err.msg);
		return 1;
	}
	smt = cpu_cores_smt(&cores);
	cpu_cores_free(&cores);
	if (smt)
		return 0;
	snprintf(reason, len,
		 "needs SMT siblings on every CPU, which this machine's lack (a guest with them: sched-workloads vm --topology smt2x2)");
	return 1;
}
