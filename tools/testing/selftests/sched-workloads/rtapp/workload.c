// SPDX-License-Identifier: GPL-2.0
/*
 * Loading workload files and finding them on disk.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpubits.h"
#include "lib/entity_name.h"
#include "lib/json_util.h"
#include "rtapp/workload.h"

static struct json_object *parse_json_text(const char *path, const char *text,
					   size_t len, FILE *list, int *problems,
					   struct sw_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;
	enum json_tokener_error jerr;
	int line, col;

	if (!tok) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory", path);
		return NULL;
	}
	obj = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!obj || jerr != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		size_t end = json_tokener_get_parse_end(tok);

		/* Trailing blanks after the object are fine. */
		if (obj && jerr == json_tokener_success &&
		    strspn(text + end, " \t\r\n") == len - end)
			goto out;
		json_line_col(text, end, &line, &col);
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s:%d:%d: invalid JSON: %s",
			   path, line, col,
			   jerr == json_tokener_success ?
			   "unexpected data after the top-level object" :
			   jerr == json_tokener_continue ?
			   "the file ends inside an object, array or string" :
			   json_tokener_error_desc(jerr));
		json_object_put(obj);
		obj = NULL;
	}
out:
	json_tokener_free(tok);
	if (obj) {
		int n = json_check_text(path, text, len, list, err);

		if (n < 0 || (n && !list)) {
			json_object_put(obj);
			return NULL;
		}
		*problems += n;
	}
	return obj;
}

struct json_object *workload_read_json(const char *path, FILE *list,
				       int *problems, struct sw_err *err)
{
	struct json_object *root;
	size_t len;
	char *text;

	text = read_text_file(path, &len);
	if (!text) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: cannot read: %s",
			   path, strerror(errno));
		return NULL;
	}
	root = parse_json_text(path, text, len, list, problems, err);
	free(text);
	return root;
}

/*
 * "origin": what synthesize made the workload from, for fidelity:
 * {"trace": PATH, "tasks": {TASK: PID, ...}}, each TASK one of "tasks".
 */
static int origin_check(const struct workload *w, const char *path,
			struct sw_err *err)
{
	struct json_object *o, *v, *tasks, *wt;

	if (!json_object_object_get_ex(w->block, "origin", &o))
		return 0;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "trace", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !json_object_object_get_ex(o, "tasks", &tasks) ||
	    !json_object_is_type(tasks, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: \"%s.origin\": not {\"trace\": PATH, \"tasks\": {TASK: PID, ...}}",
				  path, WORKLOAD_BLOCK_KEY);
	json_object_object_get_ex(w->root, "tasks", &wt);
	json_object_object_foreach(tasks, task, pid) {
		if (!json_object_is_type(pid, json_type_int) ||
		    json_object_get_int64(pid) <= 0 ||
		    json_object_get_int64(pid) > INT32_MAX ||
		    !json_object_object_get_ex(wt, task, NULL))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: \"%s.origin.tasks.%s\": not a pid of a task of \"tasks\"",
					  path, WORKLOAD_BLOCK_KEY, task);
	}
	return 0;
}

int workload_load(const char *path, struct workload *w, struct sw_err *err)
{
	const char *base = strrchr(path, '/');
	struct json_object *desc, *tasks;
	int problems = 0;
	size_t n;

	memset(w, 0, sizeof(*w));
	snprintf(w->path, sizeof(w->path), "%s", path);
	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	if (n >= sizeof(w->name))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: file name too long for a workload name", path);
	memcpy(w->name, base, n);
	if (!entity_ktap_ok(w->name))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: a workload name (the file's) carries no blank, control character or '#': it starts every KTAP result name",
				  path);

	w->root = workload_read_json(path, NULL, &problems, err);
	if (!w->root)
		return -1;
	if (!json_object_is_type(w->root, json_type_object))
		goto bad_root;
	if (!json_object_object_get_ex(w->root, "tasks", &tasks) ||
	    !json_object_is_type(tasks, json_type_object) ||
	    !json_object_object_length(tasks)) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			   "%s: \"tasks\": missing or empty; rt-app needs at least one task",
			   path);
		goto fail;
	}
	/* A task name is its threads' comm and part of result names. */
	json_object_object_foreach(tasks, task, tval) {
		(void)tval;
		if (!entity_task_name_ok(task)) {
			sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				   "%s: \"tasks.%s\": a task name is 1-%d characters of A-Z, a-z, 0-9 and _ (a thread's comm keeps %d; '-', '.', '#' and spaces would break result names)",
				   path, task, ENTITY_TASK_MAX, ENTITY_TASK_MAX);
			goto fail;
		}
	}
	if (!json_object_object_get_ex(w->root, WORKLOAD_BLOCK_KEY, &w->block) ||
	    !json_object_is_type(w->block, json_type_object)) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			   "%s: \"%s\": missing or not an object; it holds the description and the checks",
			   path, WORKLOAD_BLOCK_KEY);
		goto fail;
	}
	json_object_object_foreach(w->block, key, val) {
		static const char *const known[] = {
			"description", "checks", "baseline", "scale", "sysctl",
			"refusal", "origin", "topology", "min_cpus",
			"cgroups",
		};
		size_t i;

		(void)val;
		for (i = 0; i < ARRAY_SIZE(known) && strcmp(key, known[i]); i++)
			;
		if (i == ARRAY_SIZE(known)) {
			sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				   "%s: \"%s.%s\": unknown key (known: description, checks, baseline, scale, sysctl, refusal, origin, topology, min_cpus, cgroups)",
				   path, WORKLOAD_BLOCK_KEY, key);
			goto fail;
		}
	}
	if (origin_check(w, path, err))
		goto fail;
	/* what the workload needs of the machine's CPUs (run/prereq.h) */
	if (json_object_object_get_ex(w->block, "topology", &desc) &&
	    (!json_object_is_type(desc, json_type_string) ||
	     (strcmp(json_object_get_string(desc), "smt") &&
	      strcmp(json_object_get_string(desc), "numa")))) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			   "%s: \"%s.topology\": %s: not \"smt\" (SMT siblings on every CPU) or \"numa\" (two NUMA nodes or more)",
			   path, WORKLOAD_BLOCK_KEY,
			   json_object_to_json_string(desc));
		goto fail;
	}
	if (json_object_object_get_ex(w->block, "min_cpus", &desc) &&
	    (!json_object_is_type(desc, json_type_int) ||
	     json_object_get_int64(desc) < 1 ||
	     json_object_get_int64(desc) > CPUBITS_MAX_CPUS)) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			   "%s: \"%s.min_cpus\": %s: not a CPU count (1-%d)",
			   path, WORKLOAD_BLOCK_KEY,
			   json_object_to_json_string(desc), CPUBITS_MAX_CPUS);
		goto fail;
	}
	if (!json_object_object_get_ex(w->block, "description", &desc) ||
	    !json_object_is_type(desc, json_type_string)) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			   "%s: \"%s.description\": missing or not a string",
			   path, WORKLOAD_BLOCK_KEY);
		goto fail;
	}
	snprintf(w->description, sizeof(w->description), "%s",
		 json_object_get_string(desc));
	return 0;

bad_root:
	sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: top level is not a JSON object",
		   path);
fail:
	json_object_put(w->root);
	w->root = NULL;
	return -1;
}

void workload_free(struct workload *w)
{
	json_object_put(w->root);
	w->root = NULL;
	w->block = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int workload_list_dir(const char *dir, char ***paths, struct sw_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	int n = 0;

	if (!d)
		return sw_err_set(err, SW_EXIT_USAGE, "%s: cannot open: %s", dir,
				  strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **nv;

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") ||
		    de->d_name[0] == '.')
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			goto oom;
		v = nv;
		if (asprintf(&v[n], "%s/%s", dir, de->d_name) < 0)
			goto oom;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_str);
	*paths = v;
	return n;
oom:
	closedir(d);
	workload_list_free(v, n);
	return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
}

void workload_list_free(char **paths, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

void workload_default_dir(char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (exe_dir(dir, sizeof(dir)) || path_join(buf, len, dir, "workloads"))
		snprintf(buf, len, "workloads");
}

int workload_walk_tasks(const struct workload *w, workload_task_fn fn,
			   void *arg)
{
	struct json_object *tasks;
	int ret;

	if (!json_object_object_get_ex(w->root, "tasks", &tasks))
		return 0;
	json_object_object_foreach(tasks, key, val) {
		ret = fn(key, val, arg);
		if (ret)
			return ret;
	}
	return 0;
}

const char *workload_policy(const struct workload *w, struct json_object *t)
{
	struct json_object *global, *v;

	if (t && json_object_object_get_ex(t, "policy", &v))
		return json_object_get_string(v);
	if (json_object_object_get_ex(w->root, "global", &global) &&
	    json_object_object_get_ex(global, "default_policy", &v))
		return json_object_get_string(v);
	return "SCHED_OTHER";
}
