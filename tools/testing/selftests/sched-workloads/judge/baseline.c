// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and writing baseline files.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "judge/baseline.h"
#include "lib/stats.h"
#include "machine/platform.h"
#include "machine/sched_settings.h"

void baseline_default_dir(char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (exe_dir(dir, sizeof(dir)) || path_join(buf, len, dir, "baselines"))
		snprintf(buf, len, "baselines");
}

int baseline_path(char *buf, size_t len, const char *cdir,
		  const char *workload)
{
	int n = snprintf(buf, len, "%s/%s.json", cdir, workload);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int baseline_qualification_path(char *buf, size_t len, const char *cdir)
{
	return path_join(buf, len, cdir, BASELINE_QUALIFICATION);
}

/*
 * The settings the baselines of @cdir were recorded with: those of the
 * first (by name) baseline file there; NULL when it holds none. Owned.
 */
static struct json_object *class_settings(const char *cdir)
{
	struct json_object *doc = NULL, *settings = NULL;
	struct dirent **names;
	char path[PATH_MAX];
	struct sw_err err;
	int n, i;

	n = scandir(cdir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *f = names[i]->d_name;
		size_t len = strlen(f);

		if (!doc && len > 5 && !strcmp(f + len - 5, ".json") &&
		    strcmp(f, BASELINE_QUALIFICATION) &&
		    !path_join(path, sizeof(path), cdir, f)) {
			doc = json_object_from_file(path);
			if (doc && !settings_of(doc, path, &settings, &err) &&
			    settings)
				json_object_get(settings);
			else
				settings = NULL;
			if (!settings) {
				json_object_put(doc);
				doc = NULL;
			}
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	json_object_put(doc);
	return settings;
}

int baseline_class_dir(char *buf, size_t len, const char *dir,
		       const char *class_name, struct json_object *settings)
{
	struct json_object *theirs;
	char slug[128];
	int ret;

	if (path_join(buf, len, dir, class_name))
		return -1;
	theirs = class_settings(buf);
	ret = platform_diff(theirs, settings, NULL, 0);
	json_object_put(theirs);
	if (!ret)
		return 0;
	platform_slug(settings, slug, sizeof(slug));
	return snprintf(buf + strlen(buf), len - strlen(buf), "/%s", slug) >=
	       (int)(len - strlen(buf)) ? -1 : 0;
}

int baseline_find(const char *dir, const char *class_name,
		  const char *workload, struct json_object *settings,
		  struct baseline *b, char *path, size_t plen, char *why,
		  size_t wlen, struct sw_err *err)
{
	char cdir[PATH_MAX], top[PATH_MAX], diff[512];
	struct json_object *theirs;
	int ret;

	memset(b, 0, sizeof(*b));
	if (baseline_class_dir(cdir, sizeof(cdir), dir, class_name, settings) ||
	    baseline_path(path, plen, cdir, workload) ||
	    path_join(top, sizeof(top), dir, class_name))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "baseline path too long");
	ret = baseline_load(path, b, err);
	if (ret < 0)
		return -1;
	if (!ret && platform_diff(baseline_settings(b), settings, diff,
				  sizeof(diff))) {
		/* a file put there by hand, or by an older version */
		snprintf(why, wlen,
			 "the baseline %s was recorded on another platform (%s): record this one's with \"sched-workloads baseline %s\"",
			 path, diff, workload);
		baseline_free(b);
		return 1;
	}
	if (!ret)
		return 0;
	if (!strcmp(cdir, top)) {
		snprintf(why, wlen,
			 "no baseline for machine class %s: record one with \"sched-workloads baseline %s\"",
			 class_name, workload);
		return 1;
	}
	theirs = class_settings(top);
	platform_diff(theirs, settings, diff, sizeof(diff));
	json_object_put(theirs);
	snprintf(why, wlen,
		 "no baseline for machine class %s on this platform: its baselines were recorded on another (%s); record this one's (%s) with \"sched-workloads baseline %s\"",
		 class_name, diff, cdir + strlen(top) + 1, workload);
	return 1;
}

int baseline_load(const char *path, struct baseline *b, struct sw_err *err)
{
	struct json_object *root, *metrics, *f, *o;
	int ret;

	memset(b, 0, sizeof(*b));
	if (access(path, F_OK))
		return 1;
	root = json_object_from_file(path);
	if (!root || !json_object_object_get_ex(root, "metrics", &metrics) ||
	    !json_object_object_get_ex(root, "fingerprint", &f) ||
	    !json_object_is_type(f, json_type_object)) {
		json_object_put(root);
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: not a baseline file (invalid JSON, or no \"metrics\" or \"fingerprint\")",
				  path);
	}
	b->format = 1;
	if (json_object_object_get_ex(root, "format", &o))
		b->format = json_object_get_int(o);
	if (json_object_object_get_ex(root, "recorded", &o))
		snprintf(b->recorded, sizeof(b->recorded), "%s",
			 json_object_get_string(o));
	ret = sample_set_from_json(&b->samples, metrics, path, err);
	if (!ret && json_object_object_get_ex(root, "events", &o))
		ret = event_set_from_json(&b->events, o, path, err);
	if (!ret && json_object_object_get_ex(root, "canary", &o))
		ret = sample_set_from_json(&b->canary, o, path, err);
	if (!ret && settings_of(f, path, &o, err))
		ret = -1;
	if (!ret)
		b->fingerprint = json_object_get(f);
	json_object_put(root);
	if (ret)
		baseline_free(b);
	return ret;
}

void baseline_free(struct baseline *b)
{
	sample_set_free(&b->samples);
	event_set_free(&b->events);
	sample_set_free(&b->canary);
	json_object_put(b->fingerprint);
	memset(b, 0, sizeof(*b));
}

struct json_object *baseline_settings(const struct baseline *b)
{
	struct json_object *o;

	if (b->fingerprint &&
	    json_object_object_get_ex(b->fingerprint, "settings", &o) &&
	    json_object_is_type(o, json_type_object))
		return o;
	return NULL;
}

/* Median, MAD and range of each metric: what a reader wants at a glance. */
static struct json_object *summary(const struct sample_set *ss)
{
	struct json_object *o = json_object_new_object();
	double v[METRIC_MAX_REPS];
	size_t i, n;

	for (i = 0; o && i < ss->n; i++) {
		struct json_object *m;
		char key[256];

		n = samples_measured(&ss->s[i], v);
		if (!n)
			continue;
		m = json_object_new_object();
		json_object_object_add(m, "median",
				       json_object_new_double(stats_median(v, n)));
		json_object_object_add(m, "mad",
				       json_object_new_double(stats_mad(v, n)));
		json_object_object_add(m, "n", json_object_new_int(n));
		samples_key(&ss->s[i], key, sizeof(key));
		json_object_object_add(o, key, m);
	}
	return o;
}

int baseline_save(const char *path, const char *workload,
		  const struct fingerprint *fp, struct json_object *settings,
		  const struct sample_set *ss, const struct event_set *events,
		  int (*keep)(const struct event_samples *e, void *arg),
		  void *keep_arg, const struct sample_set *canary,
		  struct sw_err *err)
{
	struct json_object *root = json_object_new_object();
	struct json_object *fpj = fingerprint_to_json(fp);
	char dir[PATH_MAX], stamp[32], *slash;
	time_t now = time(NULL);
	int ret = 0;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (settings)
		json_object_object_add(fpj, "settings", json_object_get(settings));
	json_object_object_add(root, "workload", json_object_new_string(workload));
	json_object_object_add(root, "class",
			       json_object_new_string(fp->class_name));
	json_object_object_add(root, "format",
			       json_object_new_int(BASELINE_FORMAT));
	json_object_object_add(root, "recorded", json_object_new_string(stamp));
	json_object_object_add(root, "repetitions",
			       json_object_new_int(ss->reps));
	json_object_object_add(root, "fingerprint", fpj);
	json_object_object_add(root, "summary", summary(ss));
	json_object_object_add(root, "metrics", sample_set_to_json(ss));
	if (canary && canary->reps)
		json_object_object_add(root, "canary", sample_set_to_json(canary));
	if (events)
		json_object_object_add(root, "events",
				       event_set_to_json(events, keep, keep_arg));

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if ((slash && mkdir_p(dir)) ||
	    json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE))
		ret = sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot write: %s",
				 path, strerror(errno));
	json_object_put(root);
	return ret;
}
