// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the settings that shape scheduling (machine/sched_settings.h).
 *
 * Values are kept as the kernel prints them (trailing blanks cut), so a
 * difference reads as the files do. Nothing here writes or mounts: what
 * cannot be read (debugfs under lockdown, no cpufreq) is just absent.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "machine/cgroup_mount.h"
#include "machine/sched_settings.h"
#include "machine/task_sched.h"

/* <root><path>; -1 when it does not fit. */
static int rooted(char *buf, size_t len, const char *root, const char *path)
{
	int n = snprintf(buf, len, "%s%s", root ? root : "", path);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The file's text without its trailing blanks, or NULL. */
static char *read_value(const char *path)
{
	char *s = read_text_file(path, NULL);
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int settings_has_word(const char *s, const char *w, size_t wlen)
{
	size_t len;

	for (;;) {
		s += strspn(s, SETTINGS_BLANKS);
		len = strcspn(s, SETTINGS_BLANKS);
		if (!len)
			return 0;
		if (len == wlen && !strncmp(s, w, len))
			return 1;
		s += len;
	}
}

static void add(struct json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, json_object_new_string(value));
}

/* Adds @key with the value of the file at @path, when it can be read. */
static void add_path(struct json_object *o, const char *key, const char *path)
{
	char *v = read_value(path);

	if (v)
		add(o, key, v);
	free(v);
}

static void add_file(struct json_object *o, const char *key,
		     const char *root, const char *path)
{
	char full[PATH_MAX];

	if (!rooted(full, sizeof(full), root, path))
		add_path(o, key, full);
}

/* kernel.sched_*, and the two other kernel sysctls that move tasks. */
static void read_sysctls(struct json_object *o, const char *root)
{
	char dir[PATH_MAX], path[PATH_MAX], key[300];
	struct dirent *de;
	DIR *d;

	if (rooted(dir, sizeof(dir), root, "/proc/sys/kernel"))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "sched_", 6) &&
		    strcmp(de->d_name, "timer_migration") &&
		    strcmp(de->d_name, "numa_balancing"))
			continue;
		/* A directory (sched_domain/ of old kernels) reads as NULL. */
		if (path_join(path, sizeof(path), dir, de->d_name))
			continue;
		snprintf(key, sizeof(key), "kernel.%s", de->d_name);
		add_path(o, key, path);
	}
	closedir(d);
}

/*
 * The scheduler's debugfs knobs: readable only without lockdown. CFS's
 * (before 6.6) latency_ns and min_granularity_ns size its slices, which
 * bound expressions read (sysctl:sched.latency_ns); EEVDF's slice is
 * base_slice_ns.
 */
static void read_sched_debug(struct json_object *o, const char *root)
{
	static const char *const knobs[] = {
		"features", "base_slice_ns", "latency_ns", "min_granularity_ns",
		"wakeup_granularity_ns", "migration_cost_ns", "nr_migrate",
	};
	char path[PATH_MAX], rel[64], key[64], *v, *open, *close;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(rel, sizeof(rel), "/sys/kernel/debug/sched/%s", knobs[i]);
		if (rooted(path, sizeof(path), root, rel))
			continue;
		snprintf(key, sizeof(key), "sched.%s", knobs[i]);
		add_path(o, key, path);
	}
	/* Before 5.13 the features had a file of their own. */
	if (!json_object_object_get_ex(o, "sched.features", NULL))
		add_file(o, "sched.features", root,
			 "/sys/kernel/debug/sched_features");
	if (rooted(path, sizeof(path), root, "/sys/kernel/debug/sched/preempt"))
		return;
	v = read_value(path);
	if (!v)
		return;
	/* "none voluntary (full) lazy": the model in force is in brackets. */
	open = strchr(v, '(');
	close = open ? strchr(open, ')') : NULL;
	if (close) {
		*close = '\0';
		add(o, "sched.preempt", open + 1);
	} else {
		add(o, "sched.preempt", v);
	}
	free(v);
}

struct policy_value {
	long cpu;
	char *value;
};

static int by_cpu(const void *a, const void *b)
{
	const struct policy_value *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/*
 * @file of every cpufreq policy: one value when all agree, else
 * "cpu0:x,cpu4:y" (a policy is named by its first CPU). NULL without
 * cpufreq.
 */
static char *policies_value(const char *root, const char *file)
{
	char dir[PATH_MAX], path[PATH_MAX], *out = NULL, *end;
	struct policy_value *pv = NULL, *grown;
	size_t n = 0, i, size;
	struct dirent *de;
	FILE *m;
	DIR *d;

	if (rooted(dir, sizeof(dir), root, "/sys/devices/system/cpu/cpufreq"))
		return NULL;
	d = opendir(dir);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		long cpu;
		char *v;
		int len;

		if (strncmp(de->d_name, "policy", 6))
			continue;
		cpu = strtol(de->d_name + 6, &end, 10);
		if (end == de->d_name + 6 || *end)
			continue;
		len = snprintf(path, sizeof(path), "%s/%s/%s", dir, de->d_name,
			       file);
		if (len < 0 || (size_t)len >= sizeof(path))
			continue;
		v = read_value(path);
		if (!v)
			continue;
		grown = realloc(pv, (n + 1) * sizeof(*pv));
		if (!grown) {
			free(v);
			goto out;
		}
		pv = grown;
		pv[n].cpu = cpu;
		pv[n++].value = v;
	}
	if (!n)
		goto out;
	qsort(pv, n, sizeof(*pv), by_cpu);
	for (i = 1; i < n && !strcmp(pv[i].value, pv[0].value); i++)
		;
	if (i == n) {
		out = strdup(pv[0].value);
		goto out;
	}
	m = open_memstream(&out, &size);
	if (!m)
		goto out;
	for (i = 0; i < n; i++)
		fprintf(m, "%scpu%ld:%s", i ? "," : "", pv[i].cpu, pv[i].value);
	if (fclose(m)) {
		free(out);
		out = NULL;
	}
out:
	closedir(d);
	for (i = 0; i < n; i++)
		free(pv[i].value);
	free(pv);
	return out;
}

char *settings_online_cpus(void)
{
	return read_value("/sys/devices/system/cpu/online");
}

int settings_rt_bandwidth(long *runtime_us, long *period_us)
{
	char *rt = read_value("/proc/sys/kernel/sched_rt_runtime_us");
	char *per = read_value("/proc/sys/kernel/sched_rt_period_us");
	int ret = rt && per ? 0 : -1;

	*runtime_us = rt ? atol(rt) : 0;
	*period_us = per ? atol(per) : 0;
	free(rt);
	free(per);
	return ret;
}

/*
 * "sched.fair": the policy of the fair class, "eevdf" (6.6 and later) or
 * "cfs": checks that encode one of them say so (judge/checks.h). The
 * features tell when debugfs is readable (PLACE_LAG came with EEVDF,
 * GENTLE_FAIR_SLEEPERS went with CFS), else the kernel's version.
 */
static void read_fair_class(struct json_object *o, const char *root)
{
	struct json_object *f;
	char path[PATH_MAX], *rel;
	int major = 0, minor = 0;
	const char *s;

	if (json_object_object_get_ex(o, "sched.features", &f)) {
		s = json_object_get_string(f);
		if (settings_has_word(s, "PLACE_LAG", 9) ||
		    settings_has_word(s, "NO_PLACE_LAG", 12)) {
			add(o, "sched.fair", "eevdf");
			return;
		}
		if (settings_has_word(s, "GENTLE_FAIR_SLEEPERS", 20) ||
		    settings_has_word(s, "NO_GENTLE_FAIR_SLEEPERS", 23)) {
			add(o, "sched.fair", "cfs");
			return;
		}
	}
	if (rooted(path, sizeof(path), root, "/proc/sys/kernel/osrelease"))
		return;
	rel = read_value(path);
	if (rel && sscanf(rel, "%d.%d", &major, &minor) == 2)
		add(o, "sched.fair", major > 6 || (major == 6 && minor >= 6) ?
		    "eevdf" : "cfs");
	free(rel);
}

static void read_cpus(struct json_object *o, const char *root)
{
	static const char cpu[] = "/sys/devices/system/cpu";
	char path[128], *v;

	snprintf(path, sizeof(path), "%s/online", cpu);
	add_file(o, "cpus.online", root, path);
	snprintf(path, sizeof(path), "%s/isolated", cpu);
	add_file(o, "cpus.isolated", root, path);
	snprintf(path, sizeof(path), "%s/nohz_full", cpu);
	add_file(o, "nohz_full", root, path);
	/* 1: SMT siblings share cores; absent without SMT support */
	snprintf(path, sizeof(path), "%s/smt/active", cpu);
	add_file(o, "smt.active", root, path);
	add_file(o, "clocksource", root,
		 "/sys/devices/system/clocksource/clocksource0/current_clocksource");

	v = policies_value(root, "scaling_governor");
	if (v)
		add(o, "cpufreq.governor", v);
	free(v);
	v = policies_value(root, "scaling_driver");
	if (v)
		add(o, "cpufreq.driver", v);
	free(v);
	snprintf(path, sizeof(path), "%s/cpufreq/boost", cpu);
	add_file(o, "cpufreq.boost", root, path);

	snprintf(path, sizeof(path), "%s/cpuidle/current_driver", cpu);
	add_file(o, "cpuidle.driver", root, path);
	snprintf(path, sizeof(path), "%s/cpuidle/current_governor", cpu);
	add_file(o, "cpuidle.governor", root, path);
	if (json_object_object_get_ex(o, "cpuidle.governor", NULL))
		return;
	snprintf(path, sizeof(path), "%s/cpuidle/current_governor_ro", cpu);
	add_file(o, "cpuidle.governor", root, path);
}

/* The integer that starts the file @name in @dir; -1 when none does. */
static int read_ll(const char *dir, const char *name, long long *out)
{
	char path[PATH_MAX], *v, *end;
	int ret = -1;

	if (path_join(path, sizeof(path), dir, name))
		return -1;
	v = read_value(path);
	if (!v)
		return -1;
	errno = 0;
	*out = strtoll(v, &end, 10);
	if (end != v && !errno)
		ret = 0;
	free(v);
	return ret;
}

/* The cgroup at @dir's CFS bandwidth limit; -1 when it has none. */
static int cg_quota(const char *dir, int v2, long long *q, long long *p)
{
	char path[PATH_MAX], *v;
	int ok;

	if (v2) {
		if (path_join(path, sizeof(path), dir, "cpu.max"))
			return -1;
		v = read_value(path);	/* "max 100000" or "50000 100000" */
		ok = v && sscanf(v, "%lld %lld", q, p) == 2;
		free(v);
	} else {
		ok = !read_ll(dir, "cpu.cfs_quota_us", q) &&
		     !read_ll(dir, "cpu.cfs_period_us", p);
	}
	return ok && *q > 0 && *p > 0 ? 0 : -1;
}

/*
 * A limit on an ancestor caps the run as surely as one on its own
 * cgroup: the tightest quota/period between the root (which cannot have
 * one) and the process's cgroup, as "quota/period".
 */
static void add_ancestor_limit(struct json_object *o,
			       const struct cgroup_place *pl)
{
	char anc[PATH_MAX], dir[PATH_MAX], val[64];
	long long q, p, best_q = 0, best_p = 0;
	char *slash;

	snprintf(anc, sizeof(anc), "%s", pl->path);
	while ((slash = strrchr(anc, '/')) && slash != anc) {
		*slash = '\0';
		if (cgroup_dir(pl, anc, dir, sizeof(dir)) ||
		    cg_quota(dir, pl->v2, &q, &p))
			continue;
		if (!best_p || (double)q / p < (double)best_q / best_p) {
			best_q = q;
			best_p = p;
		}
	}
	if (!best_p)
		return;
	snprintf(val, sizeof(val), "%lld/%lld", best_q, best_p);
	add(o, "cgroup.cpu.ancestor_limit", val);
}

static void add_cgroup_files(struct json_object *o, const char *dir,
			     const char *const *files, size_t n)
{
	char path[PATH_MAX], key[64];
	size_t i;

	for (i = 0; i < n; i++) {
		if (path_join(path, sizeof(path), dir, files[i]))
			continue;
		snprintf(key, sizeof(key), "cgroup.%s", files[i]);
		add_path(o, key, path);
	}
}

/*
 * The cpu and cpuset cgroup of this process: their knobs, and whether it
 * is the root, but not the path (it names pids and sessions).
 */
static void read_cgroups(struct json_object *o, const char *root)
{
	static const char *const cpu_v1[] = {
		"cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.cfs_burst_us",
		"cpu.shares", "cpu.rt_runtime_us", "cpu.rt_period_us",
		"cpu.idle",
	};
	static const char *const cpu_v2[] = {
		"cpu.max", "cpu.max.burst", "cpu.weight", "cpu.idle",
		"cpu.uclamp.min", "cpu.uclamp.max",
	};
	static const char *const cpuset_v1[] = {
		"cpuset.cpus", "cpuset.effective_cpus",
		"cpuset.sched_load_balance",
	};
	static const char *const cpuset_v2[] = {
		"cpuset.cpus", "cpuset.cpus.effective", "cpuset.cpus.partition",
	};
	struct cgroup_place pl;
	char dir[PATH_MAX];

	if (!cgroup_find(root, "cpu", &pl, dir, sizeof(dir))) {
		if (pl.v2)
			add_cgroup_files(o, dir, cpu_v2, ARRAY_SIZE(cpu_v2));
		else
			add_cgroup_files(o, dir, cpu_v1, ARRAY_SIZE(cpu_v1));
		add(o, "cgroup.cpu.root", strcmp(pl.path, "/") ? "no" : "yes");
		add_ancestor_limit(o, &pl);
	}
	if (!cgroup_find(root, "cpuset", &pl, dir, sizeof(dir))) {
		if (pl.v2)
			add_cgroup_files(o, dir, cpuset_v2,
					 ARRAY_SIZE(cpuset_v2));
		else
			add_cgroup_files(o, dir, cpuset_v1,
					 ARRAY_SIZE(cpuset_v1));
	}
}

/* What this process passes on to rt-app across fork and exec. */
static void read_process(struct json_object *o)
{
	char num[32], policy[64], *list;
	int v;

	v = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (v >= 0) {
		snprintf(num, sizeof(num), "%d", v);
		add(o, "timer_slack_ns", num);
	}
	errno = 0;
	v = getpriority(PRIO_PROCESS, 0);
	if (v != -1 || !errno) {
		snprintf(num, sizeof(num), "%d", v);
		add(o, "nice", num);
	}
	list = task_affinity_list(0);
	if (list)
		add(o, "affinity", list);
	free(list);
	if (!task_policy_name(0, policy, sizeof(policy)))
		add(o, "policy", policy);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **settings_sorted_keys(struct json_object *o, size_t *n)
{
	const char **keys;
	size_t i = 0;

	*n = o ? json_object_object_length(o) : 0;
	keys = calloc(*n + 1, sizeof(*keys));
	if (!keys || !o)
		return keys;
	json_object_object_foreach(o, key, val) {
		(void)val;
		if (i < *n)
			keys[i++] = key;
	}
	qsort(keys, i, sizeof(*keys), by_string);
	return keys;
}

struct json_object *settings_read(const char *root)
{
	struct json_object *o = json_object_new_object(), *sorted = NULL;
	const char **keys;
	size_t i, n;

	if (!o)
		return NULL;
	read_sysctls(o, root);
	read_sched_debug(o, root);
	read_fair_class(o, root);
	read_cgroups(o, root);
	read_process(o);
	read_cpus(o, root);
	/* json-c prints keys in the order they were added. */
	keys = settings_sorted_keys(o, &n);
	if (keys)
		sorted = json_object_new_object();
	for (i = 0; sorted && i < n; i++)
		json_object_object_add(sorted, keys[i],
				       json_object_get(json_object_object_get(o, keys[i])));
	free(keys);
	json_object_put(o);
	return sorted;
}

int settings_of(struct json_object *doc, const char *file,
		struct json_object **out, struct sw_err *err)
{
	struct json_object *fp, *s;

	*out = NULL;
	/* A baseline file keeps them in its fingerprint. */
	if (json_object_object_get_ex(doc, "fingerprint", &fp))
		doc = fp;
	if (!json_object_object_get_ex(doc, "settings", &s))
		return 0;
	if (!json_object_is_type(s, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: \"settings\" is not an object", file);
	json_object_object_foreach(s, key, val) {
		if (!json_object_is_type(val, json_type_string))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: settings: \"%s\" is not a string",
					  file, key);
	}
	*out = s;
	return 0;
}
