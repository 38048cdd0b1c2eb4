// SPDX-License-Identifier: GPL-2.0
/*
 * A workload's task groups (machine/task_groups.h).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/cleanup.h"
#include "lib/entity_name.h"
#include "machine/cgroup_mount.h"
#include "machine/task_groups.h"

#define GROUP_PREFIX	"sw-tg-"
#define DEFAULT_PERIOD_US 100000
/* the kernel's limits of cpu.cfs_period_us and cpu.weight */
#define PERIOD_MIN_US	1000
#define PERIOD_MAX_US	1000000
#define WEIGHT_MAX	10000
#define NO_BANDWIDTH "a group of it has a CFS quota, and this kernel has no CFS bandwidth control (CONFIG_CFS_BANDWIDTH)"

/* "<file>: "sched-workloads.cgroups[.GROUP][.KEY]": what" */
static int bad(struct sw_err *err, const char *file, const char *group,
	       const char *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			  "%s: \"%s.cgroups%s%s%s%s\": %s", file,
			  WORKLOAD_BLOCK_KEY, group ? "." : "", group ? group : "",
			  key ? "." : "", key ? key : "", what);
}

/* An integer key of a group in [lo, hi] into *@out (absent: 0). */
static int int_key(struct json_object *g, const char *key, long long lo,
		   long long hi, long long *out, const char *file,
		   const char *group, struct sw_err *err)
{
	struct json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(g, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < lo || json_object_get_int64(v) > hi)
		return bad(err, file, group, key, "%s: not an integer in %lld-%lld",
			   json_object_to_json_string(v), lo, hi);
	*out = json_object_get_int64(v);
	return 0;
}

static int in_group(const struct task_group *g, const char *task)
{
	int k;

	for (k = 0; k < g->ntasks; k++)
		if (!strcmp(g->tasks[k], task))
			return 1;
	return 0;
}

/* Which group holds @task already, or -1. */
static int group_of(const struct task_groups *tg, const char *task)
{
	int i;

	for (i = 0; i < tg->n; i++)
		if (in_group(&tg->g[i], task))
			return i;
	return -1;
}

static int parse_tasks(const struct workload *w, struct json_object *list,
		       struct task_group *g, const struct task_groups *tg,
		       struct sw_err *err)
{
	struct json_object *tasks, *t, *delay;
	size_t i;

	if (!list || !json_object_is_type(list, json_type_array) ||
	    !json_object_array_length(list) ||
	    json_object_array_length(list) > TASK_GROUP_TASKS_MAX)
		return bad(err, w->path, g->name, "tasks",
			   "missing, or not an array of 1-%d task names",
			   TASK_GROUP_TASKS_MAX);
	json_object_object_get_ex(w->root, "tasks", &tasks);
	for (i = 0; i < json_object_array_length(list); i++) {
		const char *name = json_object_get_string(
					json_object_array_get_idx(list, i));

		if (!json_object_is_type(json_object_array_get_idx(list, i),
					 json_type_string) ||
		    !json_object_object_get_ex(tasks, name, &t))
			return bad(err, w->path, g->name, "tasks",
				   "[%zu]: %s: not a task of the workload",
				   i, json_object_to_json_string(
					json_object_array_get_idx(list, i)));
		if (group_of(tg, name) >= 0 || in_group(g, name))
			return bad(err, w->path, g->name, "tasks",
				   "[%zu]: \"%s\" is in a group already",
				   i, name);
		/* its threads move in while they wait (task_groups.h) */
		if (!json_object_object_get_ex(t, "delay", &delay) ||
		    !json_object_is_type(delay, json_type_int) ||
		    json_object_get_int64(delay) < TASK_GROUP_MIN_DELAY_US)
			return bad(err, w->path, g->name, "tasks",
				   "[%zu]: task \"%s\" needs a \"delay\" of %d us or more: its threads are moved into the group before they start",
				   i, name, TASK_GROUP_MIN_DELAY_US);
		snprintf(g->tasks[g->ntasks], sizeof(g->tasks[0]), "%s", name);
		g->delay_us[g->ntasks++] = json_object_get_int64(delay);
	}
	return 0;
}

int task_groups_parse(const struct workload *w, struct task_groups *tg,
		      struct sw_err *err)
{
	struct json_object *map, *tasks = NULL;
	long long v;

	memset(tg, 0, sizeof(*tg));
	if (!json_object_object_get_ex(w->block, "cgroups", &map))
		return 0;
	if (!json_object_is_type(map, json_type_object) ||
	    !json_object_object_length(map) ||
	    json_object_object_length(map) > TASK_GROUPS_MAX)
		return bad(err, w->path, NULL, NULL, "an object of 1-%d groups",
			   TASK_GROUPS_MAX);
	/*
	 * All of rt-app runs in the workload's cgroup, and a new cgroup has
	 * no RT runtime where CONFIG_RT_GROUP_SCHED is set.
	 */
	json_object_object_get_ex(w->root, "tasks", &tasks);
	json_object_object_foreach(tasks, task, t) {
		const char *policy = workload_policy(w, t);

		if (strcmp(policy, "SCHED_OTHER") && strcmp(policy, "SCHED_BATCH") &&
		    strcmp(policy, "SCHED_IDLE"))
			return bad(err, w->path, NULL, NULL,
				   "task \"%s\" is %s: a workload with cgroups has fair tasks only (a new cgroup has no RT runtime under CONFIG_RT_GROUP_SCHED)",
				   task, policy);
	}
	json_object_object_foreach(map, name, g) {
		struct task_group *tgr = &tg->g[tg->n];

		if (!entity_task_name_ok(name))
			return bad(err, w->path, name, NULL,
				   "a group name is 1-%d characters of A-Z, a-z, 0-9 and _",
				   ENTITY_TASK_MAX);
		snprintf(tgr->name, sizeof(tgr->name), "%s", name);
		if (!json_object_is_type(g, json_type_object))
			return bad(err, w->path, name, NULL, "not an object");
		json_object_object_foreach(g, key, val) {
			(void)val;
			if (strcmp(key, "tasks") && strcmp(key, "weight") &&
			    strcmp(key, "quota_us") && strcmp(key, "period_us"))
				return bad(err, w->path, name, key,
					   "unknown key (known: tasks, weight, quota_us, period_us)");
		}
		if (parse_tasks(w, json_object_object_get(g, "tasks"), tgr, tg,
				err) ||
		    int_key(g, "weight", 1, WEIGHT_MAX, &v, w->path, name, err))
			return -1;
		tgr->weight = v;
		if (int_key(g, "period_us", PERIOD_MIN_US, PERIOD_MAX_US,
			    &tgr->period_us, w->path, name, err) ||
		    int_key(g, "quota_us", PERIOD_MIN_US, 1000LL * PERIOD_MAX_US,
			    &tgr->quota_us, w->path, name, err))
			return -1;
		if (tgr->period_us && !tgr->quota_us)
			return bad(err, w->path, name, "period_us",
				   "without quota_us: a period limits nothing");
		if (!tgr->period_us)
			tgr->period_us = DEFAULT_PERIOD_US;
		tg->n++;
	}
	return 0;
}

/* Where the workload's cgroups go: the cpu hierarchy's top, into @top. */
static int find_top(char *top, size_t size, int *v2, char *reason,
		    size_t len)
{
	struct cgroup_place pl;
	char dir[PATH_MAX];

	if (cgroup_find(NULL, "cpu", &pl, dir, sizeof(dir))) {
		snprintf(reason, len,
			 "its tasks run in cgroups of the cpu controller, which is not mounted here");
		return 1;
	}
	*v2 = pl.v2;
	snprintf(top, size, "%s", pl.mnt);
	return 0;
}

static int has_file(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return !path_join(path, sizeof(path), dir, name) && !access(path, F_OK);
}

/* Does the space-separated list in @dir/@name hold @word? */
static int file_lists(const char *dir, const char *name, const char *word)
{
	char path[PATH_MAX], *text, *tok, *save;
	int found = 0;

	if (path_join(path, sizeof(path), dir, name))
		return 0;
	text = read_text_file(path, NULL);
	for (tok = text ? strtok_r(text, "\n ", &save) : NULL; tok && !found;
	     tok = strtok_r(NULL, "\n ", &save))
		found = !strcmp(tok, word);
	free(text);
	return found;
}

int task_groups_probe(const struct task_groups *tg, char *reason,
		      size_t len)
{
	char top[PATH_MAX];
	int i, v2, quota = 0;

	if (!tg->n)
		return 0;
	if (geteuid()) {
		snprintf(reason, len,
			 "its tasks run in cgroups, which only root creates");
		return 1;
	}
	if (find_top(top, sizeof(top), &v2, reason, len))
		return 1;
	if (v2 && !file_lists(top, "cgroup.controllers", "cpu")) {
		snprintf(reason, len,
			 "its tasks run in cgroups of the cpu controller, which %s/cgroup.controllers does not offer (bound to a v1 hierarchy?)",
			 top);
		return 1;
	}
	for (i = 0; i < tg->n; i++)
		quota |= !!tg->g[i].quota_us;
	/* v2's top has no cpu.max: task_groups_create() looks in a child */
	if (quota && !v2 && !has_file(top, "cpu.cfs_quota_us")) {
		snprintf(reason, len, "%s", NO_BANDWIDTH);
		return 1;
	}
	return 0;
}

/* Writes @fmt... to @dir/@name; 0 or -errno. */
static int cg_write(const char *dir, const char *name, const char *fmt, ...)
{
	char path[PATH_MAX], text[64];
	va_list ap;
	FILE *f;
	int ret = 0;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (path_join(path, sizeof(path), dir, name))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* unbuffered: the kernel's answer to this write is the one */
	setvbuf(f, NULL, _IONBF, 0);
	if (fputs(text, f) == EOF)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* rmdir that waits out the kernel releasing a cgroup's exited tasks. */
static void rmdir_patient(const char *dir)
{
	struct timespec step = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 100 && rmdir(dir) && errno == EBUSY; i++)
		nanosleep(&step, NULL);
}

/* Removes @dir's child cgroups, then @dir. */
static void remove_tree(const char *dir)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.' &&
		    !path_join(sub, sizeof(sub), dir, de->d_name))
			rmdir_patient(sub);
	if (d)
		closedir(d);
	rmdir_patient(dir);
}

/* Workload cgroups of runs that died without removing theirs. */
static void remove_stale(const char *top)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(top);
	long pid;
	char *end;

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, GROUP_PREFIX, strlen(GROUP_PREFIX)))
			continue;
		pid = strtol(de->d_name + strlen(GROUP_PREFIX), &end, 10);
		if (*end || pid <= 0 || (kill(pid, 0) && errno == ESRCH))
			if (!path_join(dir, sizeof(dir), top, de->d_name))
				remove_tree(dir);
	}
	if (d)
		closedir(d);
}

void task_groups_remove(struct task_groups *tg)
{
	if (!tg->dir[0])
		return;
	remove_tree(tg->dir);
	tg->dir[0] = '\0';
	if (tg->enabled_cpu)
		cg_write(tg->top, "cgroup.subtree_control", "-cpu");
	tg->enabled_cpu = 0;
}

static void cleanup_groups(void *arg)
{
	task_groups_remove(arg);
}

static int set_group(const struct task_groups *tg, const struct task_group *g)
{
	int ret = 0;

	if (tg->v2) {
		if (g->weight)
			ret = cg_write(g->dir, "cpu.weight", "%d", g->weight);
		if (!ret && g->quota_us)
			ret = cg_write(g->dir, "cpu.max", "%lld %lld",
				       g->quota_us, g->period_us);
		return ret;
	}
	if (g->weight)
		ret = cg_write(g->dir, "cpu.shares", "%d",
			       (g->weight * 1024 + 50) / 100);
	if (!ret && g->quota_us)
		ret = cg_write(g->dir, "cpu.cfs_period_us", "%lld",
			       g->period_us);
	if (!ret && g->quota_us)
		ret = cg_write(g->dir, "cpu.cfs_quota_us", "%lld", g->quota_us);
	return ret;
}

int task_groups_create(struct task_groups *tg, struct sw_err *err)
{
	char reason[256], name[32];
	int i, ret;

	tg->proc_moved = 0;
	tg->pid = 0;
	tg->nseen = 0;
	tg->first_tick_s = 0;
	tg->error[0] = '\0';
	if (!tg->n)
		return 0;
	if (find_top(tg->top, sizeof(tg->top), &tg->v2, reason, sizeof(reason)))
		return sw_err_set(err, SW_EXIT_SKIP, "%s", reason);
	remove_stale(tg->top);
	snprintf(name, sizeof(name), GROUP_PREFIX "%d", (int)getpid());
	if (path_join(tg->dir, sizeof(tg->dir), tg->top, name) ||
	    mkdir(tg->dir, 0755)) {
		ret = errno;
		tg->dir[0] = '\0';
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "cannot create the workload's cgroup in %s: %s",
				  tg->top, strerror(ret));
	}
	if (cleanup_push(cleanup_groups, tg)) {
		task_groups_remove(tg);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "cleanup stack full");
	}
	/* v2: the controller is enabled top down, the top's first */
	if (tg->v2 && !file_lists(tg->top, "cgroup.subtree_control", "cpu")) {
		ret = cg_write(tg->top, "cgroup.subtree_control", "+cpu");
		if (ret)
			goto fail_top;
		tg->enabled_cpu = 1;
	}
	for (i = 0; i < tg->n; i++) {
		struct task_group *g = &tg->g[i];

		g->threads = 0;
		if (path_join(g->dir, sizeof(g->dir), tg->dir, g->name) ||
		    mkdir(g->dir, 0755)) {
			ret = -errno;
			goto fail;
		}
		/* v2: threads of one process in several groups */
		ret = tg->v2 ? cg_write(g->dir, "cgroup.type", "threaded") : 0;
		if (ret)
			goto fail;
	}
	/* v2: the groups' cpu files appear once their parent enables cpu */
	ret = tg->v2 ? cg_write(tg->dir, "cgroup.subtree_control", "+cpu") : 0;
	if (ret) {
		i = -1;
		goto fail;
	}
	for (i = 0; i < tg->n; i++) {
		if (tg->g[i].quota_us && tg->v2 &&
		    !has_file(tg->g[i].dir, "cpu.max")) {
			cleanup_pop(tg);
			return sw_err_set(err, SW_EXIT_SKIP, "%s", NO_BANDWIDTH);
		}
		ret = set_group(tg, &tg->g[i]);
		if (ret)
			goto fail;
	}
	return 0;

fail_top:
	cleanup_pop(tg);
	return sw_err_set(err, SW_EXIT_RUN_ERROR,
			  "cannot enable the cpu controller in %s/cgroup.subtree_control: %s",
			  tg->top, strerror(-ret));
fail:
	cleanup_pop(tg);
	return sw_err_set(err, SW_EXIT_RUN_ERROR,
			  "cannot set up cgroup %s: %s",
			  i < 0 ? tg->dir : tg->g[i].dir, strerror(-ret));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds since thread @tid of @pid started, from its stat; -1 unknown. */
static double thread_age(pid_t pid, pid_t tid)
{
	char path[64], *text, *p;
	unsigned long long start;
	double up;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)tid);
	text = read_text_file(path, NULL);
	/* the fields after the comm, which may hold spaces and ')' */
	p = text ? strrchr(text, ')') : NULL;
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &start) != 1) {
		free(text);
		return -1;
	}
	free(text);
	f = fopen("/proc/uptime", "r");
	if (!f)
		return -1;
	i = fscanf(f, "%lf", &up);
	fclose(f);
	return i == 1 ? up - (double)start / sysconf(_SC_CLK_TCK) : -1;
}

static int seen(struct task_groups *tg, pid_t tid)
{
	int i;

	for (i = 0; i < tg->nseen; i++)
		if (tg->seen[i] == tid)
			return 1;
	if (tg->nseen < TASK_GROUP_THREADS_MAX)
		tg->seen[tg->nseen++] = tid;
	return 0;
}

static void place_error(struct task_groups *tg, const char *fmt, ...)
{
	va_list ap;

	if (tg->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(tg->error, sizeof(tg->error), fmt, ap);
	va_end(ap);
}

/* The comm of thread @tid of @pid into @comm; -1 when it is gone. */
static int thread_comm(pid_t pid, pid_t tid, char *comm, size_t len)
{
	char path[64], *nl;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
		 (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(comm, len, f))
		comm[0] = '\0';
	fclose(f);
	nl = strchr(comm, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

/* Thread @tid of @child: into its task's group, if it has one. */
static void place_thread(struct task_groups *tg, pid_t child, pid_t tid)
{
	struct task_group *g;
	char comm[32];
	double age;
	int i, k, ret;

	if (thread_comm(child, tid, comm, sizeof(comm)))
		return;
	i = group_of(tg, comm);
	/* rt-app names a thread after it starts: look again next tick */
	if (i < 0 || seen(tg, tid))
		return;
	g = &tg->g[i];
	for (k = 0; strcmp(g->tasks[k], comm); k++)
		;
	ret = cg_write(g->dir, tg->v2 ? "cgroup.threads" : "tasks", "%d",
		       (int)tid);
	age = thread_age(child, tid);
	if (ret)
		place_error(tg, "cannot move thread %d of task %s into %s: %s",
			    (int)tid, comm, g->dir, strerror(-ret));
	/* one clock tick of /proc's resolution, and a margin as long */
	else if (age < 0 || age * 1e6 > g->delay_us[k] - 20000)
		place_error(tg, "thread %d of task %s moved into group %s %.0f ms after it started, past its delay of %lld ms: it ran outside its group",
			    (int)tid, comm, g->name, age * 1e3,
			    g->delay_us[k] / 1000);
	else
		g->threads++;
}

void task_groups_place(pid_t child, void *arg)
{
	struct task_groups *tg = arg;
	long long longest = 0;
	char path[64];
	struct dirent *de;
	DIR *d;
	int i, k, ret;

	if (!tg->n)
		return;
	if (!tg->proc_moved) {
		tg->proc_moved = 1;
		tg->pid = child;
		tg->first_tick_s = now_s();
		ret = cg_write(tg->dir, "cgroup.procs", "%d", (int)child);
		if (ret)
			place_error(tg, "cannot move rt-app (pid %d) into %s: %s",
				    (int)child, tg->dir, strerror(-ret));
	}
	/* past every delay, a thread still to place is placed too late */
	for (i = 0; i < tg->n; i++)
		for (k = 0; k < tg->g[i].ntasks; k++)
			if (tg->g[i].delay_us[k] > longest)
				longest = tg->g[i].delay_us[k];
	if ((now_s() - tg->first_tick_s) * 1e6 > longest + 1e6)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)child);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			place_thread(tg, child, atoi(de->d_name));
	if (d)
		closedir(d);
}

int task_groups_check(const struct task_groups *tg, struct sw_err *err)
{
	int i;

	if (tg->error[0])
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s", tg->error);
	for (i = 0; i < tg->n; i++)
		if (tg->g[i].threads < tg->g[i].ntasks)
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  "cgroup %s got %d thread%s of its %d task%s: a task's thread was never seen by its name",
					  tg->g[i].name, tg->g[i].threads,
					  tg->g[i].threads == 1 ? "" : "s",
					  tg->g[i].ntasks,
					  tg->g[i].ntasks == 1 ? "" : "s");
	return 0;
}

void task_groups_stuck(const struct task_groups *tg, char *buf, size_t len)
{
	size_t used = 0;
	int i, j, k;

	buf[0] = '\0';
	for (i = 0; tg->pid > 0 && i < tg->nseen; i++) {
		const struct task_group *g;
		char comm[32];

		if (thread_comm(tg->pid, tg->seen[i], comm, sizeof(comm)))
			continue;
		j = group_of(tg, comm);
		if (j < 0 || used >= len)
			continue;
		g = &tg->g[j];
		if (g->quota_us)
			k = snprintf(buf + used, len - used,
				     "%sthread %d of task %s alive in cgroup %s (CFS quota %lld us per %lld us)",
				     used ? "; " : "", (int)tg->seen[i], comm,
				     g->name, g->quota_us, g->period_us);
		else
			k = snprintf(buf + used, len - used,
				     "%sthread %d of task %s alive in cgroup %s (weight %d)",
				     used ? "; " : "", (int)tg->seen[i], comm,
				     g->name, g->weight ? g->weight : 100);
		if (k > 0)
			used += k;
	}
}
