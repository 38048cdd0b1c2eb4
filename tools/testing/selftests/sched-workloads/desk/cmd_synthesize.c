// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads synthesize: a workload file from a trace of a real
 * program (record's trace.dat), for the threads chosen by comm, pid or
 * process tree. record.json beside the trace, when there, gives each
 * thread's policy, nice and affinity and the recorded process tree; the
 * output goes through the same checks as "check" before it is kept.
 */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/options.h"
#include "desk/desk.h"
#include "lib/entity_name.h"
#include "judge/metric_registry.h"
#include "desk/synthesize.h"
#include "run/workload_check.h"

#define SYNTH_MAX_PICKS	64

/* What the command line chose, and what record.json knows. */
struct choice {
	const char *globs[SYNTH_MAX_PICKS];
	int nglobs;
	int pids[SYNTH_MAX_PICKS];
	int npids;
	int tree;			/* --tree PID; 0 none */
	struct json_object *record;	/* record.json, or NULL */
	const char *record_path;
};

/* The record.json entry of thread @tid, or NULL. */
static struct json_object *record_task(const struct choice *c, int tid)
{
	struct json_object *tasks, *t, *v;
	size_t i;

	if (!c->record ||
	    !json_object_object_get_ex(c->record, "tasks", &tasks) ||
	    !json_object_is_type(tasks, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		if (json_object_object_get_ex(t, "tid", &v) &&
		    json_object_get_int(v) == tid)
			return t;
	}
	return NULL;
}

static int record_int(struct json_object *t, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(t, key, &v) ?
	       json_object_get_int(v) : -1;
}

/* Whether @tid is @root, one of its threads, or descends from it. */
static int in_tree(const struct choice *c, int tid, int root)
{
	int depth;

	for (depth = 0; tid > 0 && depth < 64; depth++) {
		struct json_object *t = record_task(c, tid);

		if (tid == root || (t && record_int(t, "tgid") == root))
			return 1;
		if (!t)
			return 0;
		tid = record_int(t, "ppid");
	}
	return 0;
}

static int chosen(const struct choice *c, const struct trace_profile *p)
{
	int i;

	for (i = 0; i < c->nglobs; i++)
		if (glob_match(c->globs[i], p->comm))
			return 1;
	for (i = 0; i < c->npids; i++)
		if (c->pids[i] == p->pid)
			return 1;
	if (c->tree)
		return in_tree(c, p->pid, c->tree);
	/* nothing asked: what was recorded */
	return !c->nglobs && !c->npids && record_task(c, p->pid);
}

static void sched_from_record(const struct choice *c, int tid,
			      struct synth_sched *s)
{
	struct json_object *t = record_task(c, tid), *v;

	memset(s, 0, sizeof(*s));
	s->rt_priority = -1;
	if (!t)
		return;
	s->rt_priority = -1;
	if (json_object_object_get_ex(t, "policy", &v) &&
	    json_object_is_type(v, json_type_string)) {
		const char *pol = json_object_get_string(v);
		const char *colon = strchr(pol, ':');

		/* "SCHED_FIFO:10": the policy and its RT priority */
		snprintf(s->policy, sizeof(s->policy), "%.*s",
			 colon ? (int)(colon - pol) : (int)strlen(pol), pol);
		if (colon)
			s->rt_priority = atoi(colon + 1);
		s->known = 1;
	}
	s->nice = record_int(t, "nice");
	if (json_object_object_get_ex(t, "cpus", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(s->cpus, sizeof(s->cpus), "%s",
			 json_object_get_string(v));
}

/* record.json's command as one line, for the header. */
static void record_command(const struct choice *c, char *buf, size_t len)
{
	struct json_object *cmd, *v;
	size_t i, off = 0;

	buf[0] = '\0';
	if (!c->record)
		return;
	if (json_object_object_get_ex(c->record, "command", &cmd) &&
	    json_object_is_type(cmd, json_type_array)) {
		for (i = 0; i < json_object_array_length(cmd) && off < len; i++)
			off += snprintf(buf + off, len - off, "%s%s", i ? " " : "",
					json_object_get_string(
					json_object_array_get_idx(cmd, i)));
	} else if (json_object_object_get_ex(c->record, "pid", &v)) {
		snprintf(buf, len, "pid %d", json_object_get_int(v));
	} else if (json_object_object_get_ex(c->record, "system", &v)) {
		snprintf(buf, len, "the whole system");
	}
	/* the header is a C comment: nothing may close it */
	for (i = 0; buf[i]; i++)
		if (buf[i] == '*' && buf[i + 1] == '/')
			buf[i] = '+';
}

static int load_record(struct choice *c, const char *trace, const char *path,
		       struct sw_err *err)
{
	char def[PATH_MAX], copy[PATH_MAX];
	struct json_object *tasks;

	if (!path) {
		snprintf(copy, sizeof(copy), "%s", trace);
		snprintf(def, sizeof(def), "%s/record.json", dirname(copy));
		if (access(def, F_OK))
			return 0;	/* a trace of another tool: none */
		path = def;
	}
	c->record = json_object_from_file(path);
	if (!c->record || !json_object_object_get_ex(c->record, "tasks", &tasks) ||
	    !json_object_is_type(tasks, json_type_array))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: not a record.json of sched-workloads record (no \"tasks\" array)",
				  path);
	c->record_path = strdup(path);
	return 0;
}

/* The output through workload_check(), as "check" would take it. */
static int check_output(const char *text, const char *out, struct sw_err *err)
{
	char tmp[PATH_MAX];
	struct verdict_block vb = { 0 };
	struct workload w = { 0 };
	int fd, ret;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", out ? out : "/tmp/synthesized");
	fd = mkstemp(tmp);
	if (fd < 0)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot create", tmp);
	ret = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	if (!ret)
		ret = workload_check(tmp, &w, &vb, stderr, err);
	else
		sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot write", tmp);
	workload_free(&w);
	verdict_block_free(&vb);
	if (!ret && out && rename(tmp, out))
		ret = sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot write", out);
	if (ret || !out)
		unlink(tmp);
	return ret;
}

static int run(const char *trace, struct choice *c, const char *out,
	       const char *name, struct sw_err *err)
{
	struct trace_opts opts = { .keep_activations = 1 };
	struct metric_set set = { 0 };
	struct trace_report *r = NULL;
	struct trace_profile *prof = NULL;
	struct synth_input *in = NULL;
	struct synth_opts so = { .name = name, .source = trace };
	char command[512], *text = NULL;
	size_t np, n = 0, i;
	int ret = -1;

	if (trace_analyze(trace, &opts, &r, err))
		return -1;
	if (trace_report_add_metrics(r, &opts, &set) ||
	    trace_report_profiles(r, &prof, &np, &so.start_ns, &so.window_ns)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		goto out;
	}
	in = calloc(np ? np : 1, sizeof(*in));
	if (!in) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		goto out;
	}
	for (i = 0; i < np; i++) {
		if (!chosen(c, &prof[i]))
			continue;
		in[n].p = &prof[i];
		sched_from_record(c, prof[i].pid, &in[n].sched);
		in[n].wakeup_lat_p90_us = metric_set_value(&set, SRC_TRACE_TASK,
							    prof[i].pid,
							    "wakeup_lat.p90");
		n++;
	}
	if (!n) {
		sw_err_set(err, SW_EXIT_USAGE,
			   "%s: no thread of the trace is chosen%s", trace,
			   c->record ? "" :
			   " (no record.json: name them with -t, -p or -T)");
		goto out;
	}
	record_command(c, command, sizeof(command));
	so.command = command[0] ? command : NULL;
	so.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (synthesize(in, n, &so, &text, err))
		goto out;
	if (check_output(text, out, err))
		goto out;
	if (!out)
		fputs(text, stdout);
	else
		fprintf(stderr, "sched-workloads: %s: %zu threads from %s\n",
			out, n, trace);
	ret = 0;
out:
	free(text);
	free(in);
	free(prof);
	metric_set_free(&set);
	trace_report_free(r);
	return ret;
}

static int add_glob(const char *arg, void *dest, char *why, size_t len)
{
	struct choice *c = dest;

	if (c->nglobs == SYNTH_MAX_PICKS) {
		snprintf(why, len, "at most %d", SYNTH_MAX_PICKS);
		return -1;
	}
	c->globs[c->nglobs++] = arg;
	return 0;
}

static int add_pid(const char *arg, void *dest, char *why, size_t len)
{
	struct choice *c = dest;
	char *end;
	long pid = strtol(arg, &end, 10);

	if (*end || end == arg || pid < 1 || pid > INT_MAX ||
	    c->npids == SYNTH_MAX_PICKS) {
		snprintf(why, len, "at most %d pids, each a positive integer, not \"%s\"",
			 SYNTH_MAX_PICKS, arg);
		return -1;
	}
	c->pids[c->npids++] = (int)pid;
	return 0;
}

int cmd_synthesize(int argc, char **argv)
{
	const char *out = NULL, *name = NULL, *record = NULL;
	struct choice c = { 0 };
	struct sw_err err = { 0 };
	char defname[64], copy[PATH_MAX];
	const struct cmd_option opts[] = {
		OPT_TEXT("output", 'o', &out, "FILE",
			 "the workload (standard output)"),
		OPT_TEXT("name", 'n', &name, "NAME",
			 "what its description calls it (the file's name)"),
		OPT_TEXT("record", 'R', &record, "RECORD",
			 "record.json of \"sched-workloads record\" (beside the trace)"),
		OPT_CALL("task", 't', &c, "GLOB",
			 "the threads whose comm matches (repeatable)", add_glob),
		OPT_CALL("pid", 'p', &c, "PID",
			 "the thread PID (repeatable)", add_pid),
		OPT_INT("tree", 'T', &c.tree, 1, INT_MAX, "PID",
			 "the process tree of PID: its threads and descendants"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "[-o FILE] [-n NAME] [-R RECORD] [-t GLOB]... [-p PID]... [-T PID] TRACE.dat",
		.what = "Writes an rt-app workload that behaves like the chosen threads of\n"
			"TRACE.dat: by default every thread record.json lists. The file\n"
			"passes \"check\".",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
		.min_operands = 1, .max_operands = 1,
	};
	int ret, first;

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	if (!name) {
		char *dot;

		snprintf(copy, sizeof(copy), "%s", out ? out : "synthesized");
		snprintf(defname, sizeof(defname), "%s", basename(copy));
		dot = strrchr(defname, '.');
		if (dot && dot != defname)
			*dot = '\0';
		name = defname;
	}
	if (load_record(&c, argv[first], record, &err) ||
	    (c.tree && !c.record &&
	     sw_err_set(&err, SW_EXIT_USAGE,
			"-T needs record.json: the trace has no process tree"))) {
		ret = err.code;
		goto done;
	}
	ret = run(argv[first], &c, out, name, &err) ? err.code : 0;
done:
	if (ret)
		fprintf(stderr, "sched-workloads: %s\n", err.msg);
	json_object_put(c.record);
	free((char *)c.record_path);
	return ret;
}
