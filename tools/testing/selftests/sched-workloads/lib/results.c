// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of a results directory (lib/results.h).
 */
#include <stdio.h>
#include <json-c/json.h>

#include "lib/results.h"
#include "lib/util.h"

enum results_level { RL_RUN, RL_WORKLOAD, RL_REP };

static const struct {
	const char *name;	/* in its directory */
	const char *key;	/* in index.json */
	enum results_level level;
} files[RF_NR] = {
	[RF_INDEX] = { "index.json", "index", RL_RUN },
	[RF_FINGERPRINT] = { "fingerprint.json", "fingerprint", RL_RUN },
	[RF_TIME] = { "time.json", "time", RL_RUN },
	[RF_VERDICTS] = { "verdicts.json", "verdicts", RL_WORKLOAD },
	[RF_SAMPLES] = { "samples.json", "samples", RL_WORKLOAD },
	[RF_ROUNDS] = { "rounds.json", "rounds", RL_WORKLOAD },
	[RF_SETTINGS] = { "settings.json", "settings", RL_WORKLOAD },
	[RF_RUN_JSON] = { "run.json", "run_json", RL_REP },
	[RF_RTAPP_OUT] = { "rt-app.out", "rtapp_out", RL_REP },
	[RF_TRACE] = { "trace.dat", "trace", RL_REP },
	[RF_KTHREADS] = { "kthreads.txt", "kthreads", RL_REP },
	[RF_CORES] = { "cores.txt", "cores", RL_REP },
	[RF_METRICS] = { "metrics.json", "metrics", RL_REP },
	[RF_EVENTS] = { "events.json", "events", RL_REP },
	[RF_EXPLAIN] = { "explain.txt", "explain", RL_REP },
	[RF_EXPLAIN_JSON] = { "explain.json", "explain_json", RL_REP },
};

const char *results_name(enum results_file f)
{
	return files[f].name;
}

const char *results_key(enum results_file f)
{
	return files[f].key;
}

static int fits(int n, size_t len)
{
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

int results_path(char *buf, size_t len, const char *dir, enum results_file f)
{
	return path_join(buf, len, dir, files[f].name);
}

int results_run_dir(char *buf, size_t len, const char *root, time_t when,
		    const char *release)
{
	char stamp[32];

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&when));
	return fits(snprintf(buf, len, "%s/%s-%s", root, stamp, release), len);
}

int results_workload_dir(char *buf, size_t len, const char *run,
			 const char *workload)
{
	return path_join(buf, len, run, workload);
}

int results_workload_copy(char *buf, size_t len, const char *wdir,
			  const char *workload)
{
	return fits(snprintf(buf, len, "%s/%s.json", wdir, workload), len);
}

int results_rep_dir(char *buf, size_t len, const char *wdir, int id)
{
	return fits(snprintf(buf, len, "%s/" RESULTS_REP_PREFIX "%d", wdir, id),
		    len);
}

static void add_template(struct json_object *o, const char *key,
			 const char *path)
{
	json_object_object_add(o, key, json_object_new_string(path));
}

/* The path functions above, with placeholders for the names. */
struct json_object *results_layout_json(void)
{
	struct json_object *root = json_object_new_object();
	struct json_object *level[3] = {
		json_object_new_object(), json_object_new_object(),
		json_object_new_object(),
	};
	const char *wdir = "{workload}", *dir;
	char rep[64], path[128];
	size_t f;

	snprintf(rep, sizeof(rep), "%s/" RESULTS_REP_PREFIX "{rep}", wdir);
	add_template(level[RL_WORKLOAD], "dir", wdir);
	results_workload_copy(path, sizeof(path), wdir, wdir);
	add_template(level[RL_WORKLOAD], "copy", path);
	add_template(level[RL_REP], "dir", rep);
	for (f = 0; f < RF_NR; f++) {
		dir = files[f].level == RL_WORKLOAD ? wdir :
		      files[f].level == RL_REP ? rep : NULL;
		if (dir)
			results_path(path, sizeof(path), dir, f);
		else
			snprintf(path, sizeof(path), "%s", files[f].name);
		add_template(level[files[f].level], files[f].key, path);
	}
	json_object_object_add(root, "run", level[RL_RUN]);
	json_object_object_add(root, "workload", level[RL_WORKLOAD]);
	json_object_object_add(root, "repetition", level[RL_REP]);
	return root;
}
