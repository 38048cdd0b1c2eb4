// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the run copy of a workload with json-c.
 */
#include <errno.h>
#include <string.h>

#include "prepare.h"

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

int prepare_run_json(const struct workload *w, const struct prepare_opts *o,
		     const char *out, double *duration_s, struct sw_err *err)
{
	struct json_object *run = NULL, *global;
	int ret = -1;

	if (json_object_deep_copy(w->root, &run, NULL) || !run)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	json_object_object_del(run, WORKLOAD_BLOCK_KEY);
	if (!json_object_object_get_ex(run, "global", &global)) {
		global = json_object_new_object();
		json_object_object_add(run, "global", global);
	}
	if (!json_object_is_type(global, json_type_object)) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: global: not an object",
			   w->path);
		goto out;
	}
	if (set_global(global, o, w->path, duration_s, err))
		goto out;
	if (json_object_to_file_ext(out, run, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot write: %s", out,
			   strerror(errno));
		goto out;
	}
	ret = 0;
out:
	json_object_put(run);
	return ret;
}
