// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and writing baseline files.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "judge/baseline.h"
#include "machine/sched_settings.h"
#include "lib/stats.h"

void baseline_default_dir(char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (exe_dir(dir, sizeof(dir)) || path_join(buf, len, dir, "baselines"))
		snprintf(buf, len, "baselines");
}

int baseline_path(char *buf, size_t len, const char *dir,
		  const char *class_name, const char *workload)
{
	int n = snprintf(buf, len, "%s/%s/%s.json", dir, class_name, workload);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int baseline_qualification_path(char *buf, size_t len, const char *dir,
				const char *class_name)
{
	return baseline_path(buf, len, dir, class_name, "qualification");
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
