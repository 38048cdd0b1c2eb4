// SPDX-License-Identifier: GPL-2.0
/*
 * Prerequisite probes.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "run/prereq.h"
#include "lib/cpu_list.h"
#include "lib/cpubits.h"
#include "machine/sched_settings.h"
#include "machine/cpu_cores.h"
#include "rtapp/rtapp_run.h"
#include "rtapp/run_json.h"

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

/* At most this many DEADLINE threads are admitted together by the probe. */
#define DL_PROBE_MAX	1024

/*
 * The kernel's share of each CPU that SCHED_DEADLINE may take: the RT
 * bandwidth (unlimited: INFINITY); NAN when unreadable. @what names it.
 */
static double dl_limit_per_cpu(char *what, size_t len)
{
	long rt, per;

	if (settings_rt_bandwidth(&rt, &per) || per <= 0) {
		snprintf(what, len, "the RT bandwidth (unreadable)");
		return NAN;
	}
	snprintf(what, len,
		 "kernel.sched_rt_runtime_us %ld of kernel.sched_rt_period_us %ld",
		 rt, per);
	return rt < 0 ? INFINITY : (double)rt / per;
}

struct dl_probe {
	struct policy_probe p;
	struct sw_sched_attr attr[DL_PROBE_MAX];
	const char *task[DL_PROBE_MAX];
	size_t n;
	double demand;		/* sum of runtime / period, in CPUs */
};

/* Each instance of a DEADLINE task of the scaled workload, in @arg. */
static int collect_dl(const char *task, struct json_object *t, void *arg)
{
	struct dl_probe *d = arg;
	struct sw_sched_attr a;
	const char *name;
	long inst, i;

	if (attr_from_task(&d->p, task, t, &a, &name))
		return -1;
	if (a.sched_policy != SCHED_DEADLINE)
		return 0;
	if (get_int(&d->p, task, t, "instance", 1, &inst))
		return -1;
	for (i = 0; i < inst && d->n < DL_PROBE_MAX; i++) {
		d->attr[d->n] = a;
		d->task[d->n++] = task;
		d->demand += (double)a.sched_runtime /
			     (a.sched_period ? a.sched_period : a.sched_deadline);
	}
	return 0;
}

/*
 * Admits every thread of @d at once: a child each, holding its
 * reservation until all have asked. The first refusal's -errno, its
 * index in @first and the count of refusals in @refused; 0 when all were
 * admitted.
 */
static int admit_all(const struct dl_probe *d, size_t *first, size_t *refused)
{
	pid_t pids[DL_PROBE_MAX];
	int fd[2], msg[2], ret = 0;
	size_t i, started = 0;

	if (pipe(fd))
		return -errno;
	for (i = 0; i < d->n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			ret = -errno;
			break;
		}
		if (!pids[i]) {
			struct sw_sched_attr attr = d->attr[i];

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(fd[0]);
			msg[0] = i;
			msg[1] = syscall(SYS_sched_setattr, 0, &attr, 0) ?
				 errno : 0;
			if (write(fd[1], msg, sizeof(msg)) != sizeof(msg))
				_exit(1);
			while (!msg[1])
				pause();	/* keep the bandwidth */
			_exit(0);
		}
		started++;
	}
	close(fd[1]);
	for (i = 0; i < started; i++) {
		if (read(fd[0], msg, sizeof(msg)) != sizeof(msg)) {
			ret = ret ? ret : -ECHILD;
			break;
		}
		if (!msg[1])
			continue;
		++*refused;
		if (!ret) {
			ret = -msg[1];
			*first = msg[0];
		}
	}
	close(fd[0]);
	for (i = 0; i < started; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	return ret;
}

int probe_dl_admission(const struct workload *w, char *reason, size_t len,
		       struct sw_err *err)
{
	struct json_object *run = prepare_scaled(w, err), *tasks;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double share, limit;
	struct dl_probe *d;
	char what[128];
	size_t first = 0, refused = 0;
	int e, ret = 0;

	if (!run)
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d) {
		json_object_put(run);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	}
	d->p = (struct policy_probe){ .w = w, .err = err };
	tasks = json_object_object_get(run, "tasks");
	json_object_object_foreach(tasks, task, t) {
		if (collect_dl(task, t, d)) {
			ret = -1;
			goto out;
		}
	}
	if (d->n < 2)
		goto out;	/* one alone was admitted by probe_policies() */
	e = admit_all(d, &first, &refused);
	if (!e)
		goto out;
	if (e != -EBUSY) {
		snprintf(reason, len,
			 "kernel refuses SCHED_DEADLINE for task %s beside the workload's other DEADLINE threads: %s",
			 d->task[first], strerror(-e));
		ret = 1;
		goto out;
	}
	share = dl_limit_per_cpu(what, sizeof(what));
	limit = share * cpus;
	/*
	 * Since 6.12 the fair server takes its reservation (50 ms a second
	 * on each CPU by default) out of the same bandwidth.
	 */
	ret = !(d->demand + 0.05 * cpus <= limit) ? 1 : 2;
	snprintf(reason, len,
		 "the kernel refuses SCHED_DEADLINE admission (EBUSY) to the workload's %zu DEADLINE threads together, %.2f CPUs of bandwidth (admitted: %zu), while %s on each of %ld CPUs admits %.2f: %s",
		 d->n, d->demand, d->n - refused, what, cpus, limit,
		 ret == 1 ? "the RT bandwidth is too low for it" :
		 "admission control refused a set that fits (or DEADLINE tasks outside the workload hold bandwidth)");
out:
	free(d);
	json_object_put(run);
	return ret;
}

struct pin_probe {
	const char *online;	/* "0-1": the CPUs online */
	char *reason;
	size_t len;
};

/* A task pinned ("cpus") to a CPU that is not online: 1 with the reason. */
static int probe_pinned(const char *task, struct json_object *t, void *arg)
{
	struct json_object *cpus = json_object_object_get(t, "cpus"), *c;
	struct pin_probe *p = arg;
	size_t i;

	if (!json_object_is_type(cpus, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(cpus); i++) {
		c = json_object_array_get_idx(cpus, i);
		if (!json_object_is_type(c, json_type_int) ||
		    cpu_list_has(p->online, json_object_get_int(c)))
			continue;
		snprintf(p->reason, p->len,
			 "task %s is pinned to cpu%d, which is not online here (online: %s)",
			 task, json_object_get_int(c), p->online);
		return 1;
	}
	return 0;
}

/* Two NUMA nodes online or more, else 1 with the reason. */
static int probe_numa(char *reason, size_t len)
{
	char *nodes = read_text_file("/sys/devices/system/node/online", NULL);
	int n = 0, node;

	for (node = 0; nodes && node < CPUBITS_MAX_CPUS; node++)
		n += cpu_list_has(nodes, node) > 0;
	if (n >= 2) {
		free(nodes);
		return 0;
	}
	snprintf(reason, len,
		 "needs two NUMA nodes or more, which this machine lacks (nodes online: %s; a guest with them: sched-workloads vm --topology numa2x4)",
		 nodes ? strtok(nodes, "\n") : "unknown");
	free(nodes);
	return 1;
}

/* SMT siblings on every CPU, else 1 with the reason. */
static int probe_smt(char *reason, size_t len)
{
	struct sw_err err = { 0 };
	struct cpu_cores cores;
	int smt;

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

/*
 * The machine the workload needs, most general first: a workload for
 * another topology names that, not a CPU its tasks are pinned to there.
 */
int probe_topology(const struct workload *w, char *reason, size_t len)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct pin_probe pin = { .reason = reason, .len = len };
	struct json_object *need;
	const char *topo;
	char *list;
	int ret;

	if (json_object_object_get_ex(w->block, "min_cpus", &need) &&
	    online < json_object_get_int64(need)) {
		snprintf(reason, len,
			 "needs %lld CPUs online, this machine has %ld: what it measures happens between CPUs",
			 (long long)json_object_get_int64(need), online);
		return 1;
	}
	topo = json_object_get_string(json_object_object_get(w->block,
							     "topology"));
	if (topo && (!strcmp(topo, "numa") ? probe_numa(reason, len) :
		     probe_smt(reason, len)))
		return 1;
	list = settings_online_cpus();
	pin.online = list;
	ret = list ? workload_walk_tasks(w, probe_pinned, &pin) : 0;
	free(list);
	return ret;
}
