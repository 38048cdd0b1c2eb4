// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads record: a trace of a real program, for turning it into a
 * reproducer. The trace is taken as a run's is (trace/capture.c: a tracefs
 * instance of the tool's own, the events the analyzer needs, the mono
 * clock), into DIR/trace.dat; DIR/record.json says what was traced: the
 * command or pid or the whole system, the window, and every thread of the
 * traced process tree as /proc showed it (comm, policy, nice, affinity:
 * what the trace does not carry), with the machine's fingerprint.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "trace/capture.h"
#include "lib/subprocess.h"
#include "lib/cleanup.h"
#include "cmd/options.h"
#include "desk/desk.h"
#include "machine/fingerprint.h"
#include "lib/json_util.h"
#include "run/battery.h"
#include "run/prereq.h"
#include "machine/task_sched.h"

#define RECORD_POLL_NS		(50 * 1000 * 1000)	/* /proc sampling */
#define RECORD_MAX_TASKS	4096	/* threads of the traced tree */
#define RECORD_MAX_PROCS	65536	/* processes on the machine */

struct rec_task {
	int tid, tgid, ppid;
	char comm[16];
	char policy[64];
	int nice;
	char *cpus;		/* affinity, a CPU list */
};

struct recording {
	int root;		/* the traced process, 0: the whole system */
	struct rec_task *t;
	size_t n;
	int truncated;		/* more than RECORD_MAX_TASKS threads */
};

/*
 * Fields 3 (state) and 4 (ppid) of /proc/PID/stat, after the comm (which
 * may hold spaces and parentheses). 0, or -1 when the process is gone.
 */
static int read_stat(int pid, char *state, int *ppid)
{
	char path[64], buf[512], *p;
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %c %d", state, ppid) == 2)
			ret = 0;
	}
	fclose(f);
	return ret;
}

static int read_ppid(int pid)
{
	int ppid;
	char state;

	return read_stat(pid, &state, &ppid) ? -1 : ppid;
}

static struct rec_task *find_task(struct recording *r, int tid)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->t[i].tid == tid)
			return &r->t[i];
	return NULL;
}

/* Samples thread @tid of process @tgid: its latest state is kept. */
static void sample_thread(struct recording *r, int tgid, int tid, int ppid)
{
	struct rec_task *t = find_task(r, tid);
	char path[96], *text;
	size_t len;

	if (!t) {
		if (r->n == RECORD_MAX_TASKS) {
			r->truncated = 1;
			return;
		}
		t = &r->t[r->n];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->tgid = tgid;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, tid);
	text = read_text_file(path, &len);
	if (!text)
		return;		/* gone meanwhile */
	text[strcspn(text, "\n")] = '\0';
	snprintf(t->comm, sizeof(t->comm), "%s", text);
	free(text);
	if (task_policy_name(tid, t->policy, sizeof(t->policy)))
		return;
	errno = 0;
	t->nice = getpriority(PRIO_PROCESS, tid);
	if (t->nice == -1 && errno)
		return;
	free(t->cpus);
	t->cpus = task_affinity_list(tid);
	t->ppid = ppid;
	if (t == &r->t[r->n])
		r->n++;
}

static void sample_process(struct recording *r, int pid, int ppid)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			sample_thread(r, pid, atoi(de->d_name), ppid);
	closedir(d);
}

/*
 * The root and every process descended from it, as /proc shows them now:
 * one pass over /proc for every process's parent, then the tree found in
 * that table (a child may be listed before its parent).
 */
static void sample_tree(struct recording *r)
{
	/* a bit per pid up to the kernel's limit (PID_MAX_LIMIT): 512 KB */
	static uint64_t in[(4 << 20) / 64];
	static int pid[RECORD_MAX_PROCS], ppid[RECORD_MAX_PROCS];
	size_t n = 0, i;
	struct dirent *de;
	int grown = 1;
	DIR *d;

	if (r->root <= 0 || r->root >= 64 * (int)ARRAY_SIZE(in))
		return;
	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d)) && n < RECORD_MAX_PROCS) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid[n] = atoi(de->d_name);
		ppid[n] = read_ppid(pid[n]);
		if (pid[n] < 64 * (int)ARRAY_SIZE(in) && ppid[n] >= 0 &&
		    ppid[n] < 64 * (int)ARRAY_SIZE(in))
			n++;
	}
	closedir(d);
	memset(in, 0, sizeof(in));
	in[r->root / 64] |= 1ull << (r->root % 64);
	/* a pass per generation at most */
	while (grown) {
		grown = 0;
		for (i = 0; i < n; i++) {
			if (in[pid[i] / 64] >> (pid[i] % 64) & 1 ||
			    !(in[ppid[i] / 64] >> (ppid[i] % 64) & 1))
				continue;
			in[pid[i] / 64] |= 1ull << (pid[i] % 64);
			grown = 1;
		}
	}
	for (i = 0; i < n; i++)
		if (in[pid[i] / 64] >> (pid[i] % 64) & 1)
			sample_process(r, pid[i], ppid[i]);
}

/* A zombie (exited, not yet reaped by its parent) is gone. */
static int pid_alive(int pid)
{
	int ppid;
	char state;

	return !read_stat(pid, &state, &ppid) && state != 'Z';
}

/* Sleeps in steps, sampling, until @end_ns, @pid is gone, or a signal. */
static void watch(struct recording *r, uint64_t end_ns, int pid)
{
	struct timespec step = { 0, RECORD_POLL_NS };

	while (!cleanup_interrupted() && (!end_ns || now_mono_ns() < end_ns) &&
	       (!pid || pid_alive(pid))) {
		sample_tree(r);
		nanosleep(&step, NULL);
	}
}

/* While the command runs (lib/subprocess.c): its tree sampled, now and then. */
static void on_tick(pid_t child, void *arg)
{
	static uint64_t next;
	struct recording *r = arg;
	uint64_t now = now_mono_ns();

	if (now < next)
		return;
	next = now + RECORD_POLL_NS;
	r->root = child;
	sample_tree(r);
}

static struct json_object *tasks_json(const struct recording *r)
{
	struct json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; arr && i < r->n; i++) {
		const struct rec_task *t = &r->t[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "tid", json_object_new_int(t->tid));
		json_object_object_add(o, "tgid", json_object_new_int(t->tgid));
		json_object_object_add(o, "ppid", json_object_new_int(t->ppid));
		json_object_object_add(o, "comm", json_object_new_string(t->comm));
		json_object_object_add(o, "policy",
				       json_object_new_string(t->policy));
		json_object_object_add(o, "nice", json_object_new_int(t->nice));
		json_object_object_add(o, "cpus",
				       t->cpus ? json_object_new_string(t->cpus) :
				       NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}

struct record_opts {
	const char *dir;
	size_t buffer_kb;
	int pid;		/* -p */
	int all;		/* -a */
	double seconds;		/* -d; 0: until the command or pid ends */
	char **argv;		/* the command, or NULL */
};

static int write_record(const struct record_opts *o, const struct recording *r,
			uint64_t start_ns, uint64_t end_ns, int exit_code,
			uint64_t lost, const char *why_stopped, struct sw_err *err)
{
	struct json_object *doc = json_object_new_object(), *cmd;
	struct fingerprint fp;
	int i;

	json_object_object_add(doc, "format", json_object_new_int(1));
	if (o->argv) {
		cmd = json_object_new_array();
		for (i = 0; o->argv[i]; i++)
			json_object_array_add(cmd, json_object_new_string(o->argv[i]));
		json_object_object_add(doc, "command", cmd);
		json_object_object_add(doc, "exit", json_object_new_int(exit_code));
	} else if (o->pid) {
		json_object_object_add(doc, "pid", json_object_new_int(o->pid));
	} else {
		json_object_object_add(doc, "system", json_object_new_boolean(1));
	}
	json_object_object_add(doc, "stopped", json_object_new_string(why_stopped));
	/* the trace's clock is mono: the window in its terms */
	json_object_object_add(doc, "start_ns", json_object_new_int64(start_ns));
	json_object_object_add(doc, "end_ns", json_object_new_int64(end_ns));
	json_object_object_add(doc, "seconds",
			       json_new_number((end_ns - start_ns) / 1e9));
	json_object_object_add(doc, "lost_events", json_object_new_int64(lost));
	json_object_object_add(doc, "tasks", tasks_json(r));
	if (r->truncated)
		json_object_object_add(doc, "tasks_truncated",
				       json_object_new_boolean(1));
	if (!fingerprint_read(&fp, 0)) {
		json_object_object_add(doc, "fingerprint", fingerprint_to_json(&fp));
		fingerprint_free(&fp);
	}
	if (write_json_file(o->dir, "record.json", doc,
			    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE))
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "%s/record.json: cannot write: %s", o->dir,
				  strerror(errno));
	return 0;
}

static int record_trace(const struct record_opts *o, struct sw_err *err)
{
	struct recording r = { .root = o->pid };
	struct capture cap = { 0 };
	struct child_exit ex;
	char trace[PATH_MAX];
	const char *why = "the command exited";
	uint64_t start, end;
	int exit_code = 0, ret = -1;
	size_t i;

	if (path_join(trace, sizeof(trace), o->dir, "trace.dat"))
		return sw_err_set(err, SW_EXIT_USAGE, "%s: path too long", o->dir);
	if (mkdir_p(o->dir))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot create: %s",
				  o->dir, strerror(errno));
	r.t = calloc(RECORD_MAX_TASKS, sizeof(*r.t));
	if (!r.t)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	capture_sweep_stale();
	if (capture_start(&cap, o->buffer_kb, err))
		goto out;
	start = now_mono_ns();
	if (o->argv) {
		if (child_run(o->argv[0], o->argv, NULL, 0, on_tick, &r, &ex,
			      err)) {
			if (!cleanup_interrupted())
				goto out;
			why = "interrupted";	/* keep what was traced */
		}
		exit_code = ex.exited ? ex.code : 128 + ex.code;
	} else {
		uint64_t until = o->seconds > 0 ?
				 start + (uint64_t)(o->seconds * 1e9) : 0;

		watch(&r, until, o->pid);
		why = cleanup_interrupted() ? "interrupted" :
		      o->pid && !pid_alive(o->pid) ? "the process exited" :
		      "the time was up";
	}
	end = now_mono_ns();
	capture_stop(&cap);
	if (capture_save(&cap, trace, err))
		goto out;
	ret = write_record(o, &r, start, end, exit_code,
			   capture_lost_events(&cap), why, err);
	if (!ret)
		printf("record: %s: %.1f s traced (%s), %zu threads seen, %llu events lost\n",
		       o->dir, (end - start) / 1e9, why, r.n,
		       (unsigned long long)capture_lost_events(&cap));
out:
	capture_destroy(&cap);
	for (i = 0; i < r.n; i++)
		free(r.t[i].cpus);
	free(r.t);
	return ret;
}

static void lock_waiting(const char *path)
{
	fprintf(stderr, "sched-workloads: record: waiting for another live run (%s)\n",
		path);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct sw_err err = { 0 };
	long buffer_kb = BATTERY_BUFFER_KB;
	const struct cmd_option opts[] = {
		OPT_TEXT("output", 'o', &o.dir, "DIR",
			 "where trace.dat and record.json go (record-<date>-<time>)"),
		OPT_BUFFER_KB(&buffer_kb),
		OPT_INT("pid", 'p', &o.pid, 1, INT_MAX, "PID",
			 "trace the process PID (until it exits, or -d)"),
		OPT_FLAG("all", 'a', &o.all,
			 "trace the whole system for -d SECONDS"),
		OPT_SECONDS("duration", 'd', &o.seconds, 0.001, 86400, "SECONDS",
			    "how long to trace"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0],
		.synopsis = "[-o DIR] [-b KB] -- COMMAND [ARG...]\n"
			    "[-o DIR] [-b KB] -p PID [-d SECONDS]\n"
			    "[-o DIR] [-b KB] -a -d SECONDS",
		.what = "Traces COMMAND until it exits, or process PID until it exits or\n"
			"for SECONDS, or the whole system (-a) for SECONDS, into\n"
			"DIR/trace.dat, with DIR/record.json: what was traced, when, and\n"
			"each thread of the traced process tree with its policy, nice and\n"
			"affinity. Needs root. Ctrl-C stops the recording and keeps what\n"
			"was traced.",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
		/* the command's own options are its own */
		.stop_at_operand = 1, .max_operands = -1,
	};
	char dir[64];
	const char *why;
	int rc, lock, first;

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	o.buffer_kb = buffer_kb;
	if (first < argc)
		o.argv = argv + first;
	if (!!o.argv + !!o.pid + o.all != 1 || (o.all && !o.seconds) ||
	    (o.argv && o.seconds) || (o.pid && !pid_alive(o.pid))) {
		if (o.pid && !pid_alive(o.pid))
			fprintf(stderr, "sched-workloads: record: no process %d\n",
				o.pid);
		options_usage(&u, stderr);
		return SW_EXIT_USAGE;
	}
	why = probe_root();
	if (!why)
		why = capture_unavailable();
	if (why) {
		fprintf(stderr, "sched-workloads: record: %s\n", why);
		return SW_EXIT_SKIP;
	}
	if (!o.dir) {
		time_t now = time(NULL);

		strftime(dir, sizeof(dir), "record-%Y%m%d-%H%M%S",
			 localtime(&now));
		o.dir = dir;
	}
	cleanup_install_handlers();
	/* a battery running meanwhile would be in the trace, and disturbed */
	lock = live_lock_take(lock_waiting, cleanup_interrupted);
	if (lock == LIVE_LOCK_BROKEN) {
		fprintf(stderr, "sched-workloads: record: the lock that keeps runs apart cannot be taken: %s\n",
			strerror(errno));
		return SW_EXIT_RUN_ERROR;
	}
	if (cleanup_interrupted()) {
		fprintf(stderr, "sched-workloads: record: interrupted while waiting for the lock\n");
		rc = SW_EXIT_SKIP;
	} else if (record_trace(&o, &err)) {
		fprintf(stderr, "sched-workloads: record: %s\n", err.msg);
		rc = err.code;
	} else {
		rc = SW_EXIT_PASS;
	}
	if (lock >= 0)
		close(lock);
	cleanup_all();
	return rc;
}
