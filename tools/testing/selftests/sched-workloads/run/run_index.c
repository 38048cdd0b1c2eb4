// SPDX-License-Identifier: GPL-2.0
/*
 * index.json of a run (run/run_index.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "lib/event_hist.h"
#include "lib/results.h"
#include "run/run_index.h"

static const enum results_file workload_files[] = {
	RF_VERDICTS, RF_SAMPLES, RF_ROUNDS, RF_SETTINGS,
};

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The numbers of @wdir's repetition directories, ascending. */
static struct json_object *repetitions(const char *wdir)
{
	struct json_object *arr = json_object_new_array();
	size_t n = 0, cap = 0, plen = strlen(RESULTS_REP_PREFIX), i;
	int *ids = NULL, *grown;
	struct dirent *de;
	DIR *d = opendir(wdir);
	char *end;
	long id;

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, RESULTS_REP_PREFIX, plen))
			continue;
		id = strtol(de->d_name + plen, &end, 10);
		if (*end || end == de->d_name + plen || id < 0 || id > INT_MAX)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(ids, cap * sizeof(*ids));
			if (!grown)
				break;
			ids = grown;
		}
		ids[n++] = (int)id;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(ids, n, sizeof(*ids), int_cmp);
	for (i = 0; i < n; i++)
		json_object_array_add(arr, json_object_new_int(ids[i]));
	free(ids);
	return arr;
}

static struct json_object *workload_json(const char *run,
					 const struct run_index_entry *e)
{
	struct json_object *o = json_object_new_object();
	struct json_object *files = json_object_new_array();
	char wdir[PATH_MAX], path[PATH_MAX + 64];
	size_t i;

	json_object_object_add(o, "state", json_object_new_string(e->state));
	json_object_object_add(o, "reason",
			       json_object_new_string(e->reason ? e->reason : ""));
	json_object_object_add(o, "baseline", e->baseline ?
			       json_object_new_string(e->baseline) : NULL);
	if (e->neighbours)
		json_object_object_add(o, "neighbours",
				       json_object_get(e->neighbours));
	results_workload_dir(wdir, sizeof(wdir), run, e->name);
	if (!results_workload_copy(path, sizeof(path), wdir, e->name) &&
	    !access(path, R_OK))
		json_object_array_add(files, json_object_new_string("copy"));
	for (i = 0; i < ARRAY_SIZE(workload_files); i++)
		if (!results_path(path, sizeof(path), wdir, workload_files[i]) &&
		    !access(path, R_OK))
			json_object_array_add(files,
				json_object_new_string(results_key(workload_files[i])));
	json_object_object_add(o, "files", files);
	json_object_object_add(o, "repetitions", repetitions(wdir));
	return o;
}

int run_index_write(const char *run, const struct run_index_entry *e,
		    size_t n, struct sw_err *err)
{
	struct json_object *root = json_object_new_object();
	struct json_object *wls = json_object_new_object();
	size_t i;

	json_object_object_add(root, "format",
			       json_object_new_int(RUN_INDEX_FORMAT));
	json_object_object_add(root, "layout", results_layout_json());
	json_object_object_add(root, "event_bins", event_bins_json(0));
	for (i = 0; i < n; i++)
		json_object_object_add(wls, e[i].name, workload_json(run, &e[i]));
	json_object_object_add(root, "workloads", wls);
	if (write_json_file(run, results_name(RF_INDEX), root,
			    JSON_C_TO_STRING_PRETTY))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s/%s: cannot write: %s",
				  run, results_name(RF_INDEX), strerror(errno));
	return 0;
}

/* The worst state of @wdir's verdicts.json, as a workload's KTAP line. */
static const char *state_of(const char *wdir)
{
	struct json_object *arr, *st;
	const char *state = "unknown";
	char path[PATH_MAX];
	size_t i;

	if (results_path(path, sizeof(path), wdir, RF_VERDICTS))
		return state;
	arr = json_object_from_file(path);
	if (!arr || !json_object_is_type(arr, json_type_array)) {
		json_object_put(arr);
		return state;
	}
	state = "skip";
	for (i = 0; i < json_object_array_length(arr); i++) {
		if (!json_object_object_get_ex(json_object_array_get_idx(arr, i),
					       "status", &st))
			continue;
		if (!strcmp(json_object_get_string(st), "fail") ||
		    !strcmp(json_object_get_string(st), "error")) {
			state = "fail";
			break;
		}
		if (!strcmp(json_object_get_string(st), "pass"))
			state = "pass";
	}
	json_object_put(arr);
	return state;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct run_index_entry *)a)->name,
		      ((const struct run_index_entry *)b)->name);
}

int run_index_rebuild(const char *run, struct sw_err *err)
{
	char fp[PATH_MAX], wdir[PATH_MAX], copy[PATH_MAX + 64];
	char verdicts[PATH_MAX];
	struct run_index_entry *e = NULL, *grown;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int ret = -1;

	if (results_path(fp, sizeof(fp), run, RF_FINGERPRINT) || access(fp, R_OK))
		return sw_err_set(err, SW_EXIT_BAD_RESULTS,
				  "%s: no %s: not a run of sched-workloads", run,
				  results_name(RF_FINGERPRINT));
	d = opendir(run);
	if (!d)
		return sw_err_set(err, SW_EXIT_BAD_RESULTS, "%s: %s", run,
				  strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    results_workload_dir(wdir, sizeof(wdir), run, de->d_name) ||
		    results_workload_copy(copy, sizeof(copy), wdir, de->d_name) ||
		    results_path(verdicts, sizeof(verdicts), wdir, RF_VERDICTS) ||
		    (access(copy, R_OK) && access(verdicts, R_OK)))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			grown = realloc(e, cap * sizeof(*e));
			if (!grown) {
				sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
				goto out;
			}
			e = grown;
		}
		e[n].name = strdup(de->d_name);
		e[n].state = state_of(wdir);
		e[n].reason = "";
		e[n].baseline = NULL;
		e[n].neighbours = NULL;
		if (!e[n].name) {
			sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
			goto out;
		}
		n++;
	}
	if (n)
		qsort(e, n, sizeof(*e), name_cmp);
	ret = run_index_write(run, e, n, err) ? -1 : (int)n;
out:
	closedir(d);
	for (i = 0; i < n; i++)
		free((char *)e[i].name);
	free(e);
	return ret;
}
