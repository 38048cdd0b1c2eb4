// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the run copy of a workload with json-c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtapp/run_json.h"
#include "lib/cpubits.h"
#include "lib/results.h"

/*
 * "cpus", "cpus+1", "cpus-1", "2*cpus", "2*cpus+1": a count that follows
 * the CPUs online. Returns -1 on a malformed expression.
 */
static long scale_eval(const char *expr, long cpus)
{
	long mult = 1, add = 0, v;
	const char *p = expr;
	char *end;

	if (*p >= '0' && *p <= '9') {
		mult = strtol(p, &end, 10);
		if (*end != '*')
			return -1;
		p = end + 1;
	}
	if (strncmp(p, "cpus", 4))
		return -1;
	p += 4;
	if (*p == '+' || *p == '-') {
		add = strtol(p, &end, 10);
		if (end == p + 1 || *end)
			return -1;
	} else if (*p) {
		return -1;
	}
	v = mult * cpus + add;
	return v < 1 ? 1 : v;
}

/* Finds the object holding the last component of "tasks.hog.instance". */
static struct json_object *scale_target(struct json_object *root, char *path,
					char **last)
{
	struct json_object *o = root;
	char *dot;

	while ((dot = strchr(path, '.'))) {
		*dot = '\0';
		if (!json_object_object_get_ex(o, path, &o) ||
		    !json_object_is_type(o, json_type_object))
			return NULL;
		path = dot + 1;
	}
	*last = path;
	return o;
}

/*
 * block.scale: { "tasks.hog.instance": "cpus", ... }: the workload says
 * which of its numbers follow the machine, so no code names a workload.
 */
static int apply_scale(struct json_object *run, const struct workload *w,
		       struct sw_err *err)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct json_object *scale;

	if (!json_object_object_get_ex(w->block, "scale", &scale))
		return 0;
	if (!json_object_is_type(scale, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.scale: not an object", w->path,
				  WORKLOAD_BLOCK_KEY);
	json_object_object_foreach(scale, key, val) {
		char path[256], *last;
		struct json_object *parent;
		long v = -1;

		if (json_object_is_type(val, json_type_string))
			v = scale_eval(json_object_get_string(val), cpus);
		if (v < 0)
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: %s.scale.%s: expected \"cpus\", \"cpus+N\", \"cpus-N\" or \"K*cpus[+-N]\"",
					  w->path, WORKLOAD_BLOCK_KEY, key);
		snprintf(path, sizeof(path), "%s", key);
		parent = scale_target(run, path, &last);
		if (!parent)
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: %s.scale.%s: no such object in the workload",
					  w->path, WORKLOAD_BLOCK_KEY, key);
		json_object_object_add(parent, last, json_object_new_int64(v));
	}
	return 0;
}

static int set_global(struct json_object *global, const struct prepare_opts *o,
		      const char *file, double *duration_s, struct sw_err *err)
{
	struct json_object *v;

	if (!json_object_object_get_ex(global, "duration", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int(v) <= 0)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: global.duration: missing or not a positive integer (seconds); rt-app 1.0 tasks without phases loop forever",
				  file);
	*duration_s = json_object_get_int(v);
	if (*duration_s > PREPARE_MAX_DURATION_S)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: global.duration: %.0f s; at most %d, so that three repetitions fit kselftest's timeout (settings: 900 s)",
				  file, *duration_s, PREPARE_MAX_DURATION_S);

	json_object_object_add(global, "logdir",
			       json_object_new_string(o->logdir));
	json_object_object_add(global, "log_basename",
			       json_object_new_string(o->basename));
	if (!json_object_object_get_ex(global, "calibration", &v) ||
	    !json_object_is_type(v, json_type_int))
		json_object_object_add(global, "calibration",
				       json_object_new_int64(o->calibration));
	json_object_object_add(global, "ftrace", json_object_new_boolean(0));
	/* 1.0 writes no data lines with "file" or "auto". */
	if (json_object_object_get_ex(global, "log_size", &v) &&
	    json_object_is_type(v, json_type_string))
		json_object_object_del(global, "log_size");
	return 0;
}

/*
 * Every "cpus" of a task is a CPU number a kernel can have. Whether this
 * machine has it online is a prerequisite of the run (a SKIP, see
 * run/prereq.c), not a fault of the file: a workload pinned for a
 * bigger machine is still a valid workload.
 */
static int check_affinity(struct json_object *run, const char *file,
			  struct sw_err *err)
{
	struct json_object *tasks = json_object_object_get(run, "tasks");

	json_object_object_foreach(tasks, task, t) {
		struct json_object *cpus = json_object_object_get(t, "cpus");
		size_t i, n;

		if (!cpus)
			continue;
		if (!json_object_is_type(cpus, json_type_array))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: tasks.%s.cpus: not an array of CPU numbers",
					  file, task);
		n = json_object_array_length(cpus);
		for (i = 0; i < n; i++) {
			struct json_object *c = json_object_array_get_idx(cpus, i);
			int64_t cpu = json_object_get_int64(c);

			if (!json_object_is_type(c, json_type_int) || cpu < 0 ||
			    cpu >= CPUBITS_MAX_CPUS)
				return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
						  "%s: tasks.%s.cpus[%zu]: %s is not a CPU number (0-%d)",
						  file, task, i,
						  json_object_get_string(c),
						  CPUBITS_MAX_CPUS - 1);
		}
	}
	return 0;
}

/* The run copy as a json-c object; NULL with @err set on bad input. */
static struct json_object *build_run(const struct workload *w,
				     const struct prepare_opts *o,
				     double *duration_s, struct sw_err *err)
{
	struct json_object *run = NULL, *global;

	if (json_object_deep_copy(w->root, &run, NULL) || !run) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		return NULL;
	}
	json_object_object_del(run, WORKLOAD_BLOCK_KEY);
	if (!json_object_object_get_ex(run, "global", &global)) {
		global = json_object_new_object();
		json_object_object_add(run, "global", global);
	}
	if (!json_object_is_type(global, json_type_object)) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: global: not an object",
			   w->path);
		goto fail;
	}
	if (set_global(global, o, w->path, duration_s, err) ||
	    apply_scale(run, w, err) || check_affinity(run, w->path, err))
		goto fail;
	return run;
fail:
	json_object_put(run);
	return NULL;
}

struct json_object *prepare_scaled(const struct workload *w,
				   struct sw_err *err)
{
	struct json_object *run = NULL;

	if (json_object_deep_copy(w->root, &run, NULL) || !run) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		return NULL;
	}
	if (apply_scale(run, w, err)) {
		json_object_put(run);
		return NULL;
	}
	return run;
}

int prepare_validate(const struct workload *w, struct sw_err *err)
{
	struct prepare_opts o = { .logdir = ".", .basename = RESULTS_RTAPP_BASENAME,
				  .calibration = 1 };
	struct json_object *run;
	double duration;

	run = build_run(w, &o, &duration, err);
	json_object_put(run);
	return run ? 0 : -1;
}

int prepare_run_json(const struct workload *w, const struct prepare_opts *o,
		     const char *out, double *duration_s, struct sw_err *err)
{
	struct json_object *run = build_run(w, o, duration_s, err);
	int ret = 0;

	if (!run)
		return -1;
	if (json_object_to_file_ext(out, run, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE))
		ret = sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot write: %s",
				 out, strerror(errno));
	json_object_put(run);
	return ret;
}
