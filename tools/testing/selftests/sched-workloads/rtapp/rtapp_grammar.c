// SPDX-License-Identifier: GPL-2.0
/*
 * rt-app 1.0's workload grammar (rtapp/rtapp_grammar.h): what its
 * rt-app_parse_config.c reads, and how.
 *
 * Top level: "global", "tasks", "resources" (and this tool's block).
 * A task: the keys of task_keys[]; its events directly, or "phases",
 * each phase being "loop" and events. An event is any key that starts
 * with one of the names of event_kinds[] ("run0", "sleep_b"): the
 * prefix, in that table's order, gives its type.
 */
#include <stdarg.h>
#include <string.h>

#include "lib/metric.h"
#include "rtapp/rtapp_grammar.h"
#include "rtapp/workload.h"

enum value_kind {
	V_INT,		/* a JSON integer */
	V_BOOL,
	V_STRING,
	V_INT_OR_STRING,
	V_CPUS,		/* an array of integers */
	V_OBJECT,	/* checked by its own table */
	V_ANY,		/* the value is not read */
};

struct key_rule {
	const char *name;
	enum value_kind kind;
};

static const struct key_rule global_keys[] = {
	{ "duration", V_INT }, { "calibration", V_INT_OR_STRING },
	{ "default_policy", V_STRING }, { "logdir", V_STRING },
	{ "log_basename", V_STRING }, { "log_size", V_INT_OR_STRING },
	{ "ftrace", V_BOOL }, { "lock_pages", V_BOOL },
	{ "pi_enabled", V_BOOL }, { "io_device", V_STRING },
	{ "mem_buffer_size", V_INT }, { "cumulative_slack", V_BOOL },
	{ "gnuplot", V_BOOL },
};

static const struct key_rule task_keys[] = {
	{ "instance", V_INT }, { "loop", V_INT }, { "policy", V_STRING },
	{ "priority", V_INT }, { "dl-runtime", V_INT }, { "dl-period", V_INT },
	{ "dl-deadline", V_INT }, { "cpus", V_CPUS }, { "delay", V_INT },
	{ "phases", V_OBJECT },
};

/* rt-app tests "run" before "runtime" (a "run" prefix): both are integers. */
static const struct key_rule event_kinds[] = {
	{ "runtime", V_INT }, { "run", V_INT }, { "sleep", V_INT },
	{ "mem", V_INT },
	{ "iorun", V_INT }, { "lock", V_STRING }, { "unlock", V_STRING },
	{ "signal", V_STRING }, { "broad", V_STRING }, { "wait", V_OBJECT },
	{ "sync", V_OBJECT }, { "barrier", V_STRING }, { "timer", V_OBJECT },
	{ "resume", V_STRING }, { "suspend", V_STRING }, { "yield", V_ANY },
};

static const struct key_rule timer_keys[] = {
	{ "ref", V_STRING }, { "period", V_INT }, { "mode", V_STRING },
};

static const struct key_rule wait_keys[] = {
	{ "ref", V_STRING }, { "mutex", V_STRING },
};

struct grammar {
	const char *file;
	FILE *list;
	struct sw_err *err;
	int n;
};

static __printf(3, 4)
void problem(struct grammar *g, const char *path, const char *fmt, ...)
{
	char why[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (g->list)
		fprintf(g->list, "sched-workloads: %s: \"%s\": %s\n", g->file,
			path, why);
	else if (!g->n)
		sw_err_set(g->err, SW_EXIT_BAD_WORKLOAD, "%s: \"%s\": %s",
			   g->file, path, why);
	g->n++;
}

static const char *kind_name(enum value_kind k)
{
	static const char *const names[] = {
		[V_INT] = "an integer", [V_BOOL] = "true or false",
		[V_STRING] = "a string",
		[V_INT_OR_STRING] = "an integer or a string",
		[V_CPUS] = "an array of CPU numbers", [V_OBJECT] = "an object",
		[V_ANY] = "anything",
	};

	return names[k];
}

static int has_kind(struct json_object *v, enum value_kind k)
{
	size_t i;

	switch (k) {
	case V_INT:
		return json_object_is_type(v, json_type_int);
	case V_BOOL:
		return json_object_is_type(v, json_type_boolean);
	case V_STRING:
		return json_object_is_type(v, json_type_string);
	case V_INT_OR_STRING:
		return json_object_is_type(v, json_type_int) ||
		       json_object_is_type(v, json_type_string);
	case V_CPUS:
		if (!json_object_is_type(v, json_type_array))
			return 0;
		for (i = 0; i < json_object_array_length(v); i++)
			if (!json_object_is_type(json_object_array_get_idx(v, i),
						 json_type_int))
				return 0;
		return 1;
	case V_OBJECT:
		return json_object_is_type(v, json_type_object);
	case V_ANY:
		return 1;
	}
	return 0;
}

static const struct key_rule *find_rule(const struct key_rule *t, size_t n,
					const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, key))
			return &t[i];
	return NULL;
}

static const struct key_rule *event_kind(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(event_kinds); i++)
		if (!strncmp(key, event_kinds[i].name,
			     strlen(event_kinds[i].name)))
			return &event_kinds[i];
	return NULL;
}

static void check_type(struct grammar *g, const char *path,
		       struct json_object *v, const struct key_rule *r,
		       const char *what)
{
	if (!has_kind(v, r->kind))
		problem(g, path, "%s takes %s%s", what, kind_name(r->kind),
			r->kind == V_INT && json_object_is_type(v, json_type_double) ?
			" (rt-app 1.0 reads no fraction)" : "");
}

/* The keys of @o against the table @t, none other allowed. */
static void check_object(struct grammar *g, const char *path,
			 struct json_object *o, const struct key_rule *t,
			 size_t n, const char *what)
{
	char sub[256];

	json_object_object_foreach(o, key, v) {
		const struct key_rule *r = find_rule(t, n, key);

		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (!r)
			problem(g, sub, "not a key of %s in rt-app 1.0, which would ignore it",
				what);
		else
			check_type(g, sub, v, r, "it");
	}
}

static void check_event(struct grammar *g, const char *path,
			const char *key, struct json_object *v,
			const struct key_rule *kind)
{
	if (!has_kind(v, kind->kind)) {
		problem(g, path, "a \"%s\" event takes %s; rt-app 1.0 would run it as a \"run\" of 0",
			kind->name, kind_name(kind->kind));
		return;
	}
	if (!strcmp(kind->name, "timer")) {
		struct json_object *mode;

		check_object(g, path, v, timer_keys, ARRAY_SIZE(timer_keys),
			     "a timer");
		if (json_object_object_get_ex(v, "mode", &mode) &&
		    json_object_is_type(mode, json_type_string) &&
		    strcmp(json_object_get_string(mode), "absolute") &&
		    strcmp(json_object_get_string(mode), "relative"))
			problem(g, path, "mode \"%s\": rt-app 1.0 knows \"absolute\" and \"relative\" (it takes anything else for relative)",
				json_object_get_string(mode));
	} else if (kind->kind == V_OBJECT) {
		check_object(g, path, v, wait_keys, ARRAY_SIZE(wait_keys),
			     key);
	}
}

/*
 * A phase, or a task without phases: events, and the keys @t allows
 * (a phase's "loop"; a task's keys). Counts the events.
 */
static void check_events(struct grammar *g, const char *path,
			 struct json_object *o, const struct key_rule *t,
			 size_t n, const char *what)
{
	int events = 0;
	char sub[256];

	json_object_object_foreach(o, key, v) {
		const struct key_rule *r = find_rule(t, n, key);
		const struct key_rule *kind = event_kind(key);

		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (r) {
			check_type(g, sub, v, r, "it");
		} else if (kind) {
			check_event(g, sub, key, v, kind);
			events++;
		} else {
			problem(g, sub, "neither an event nor a key of %s in rt-app 1.0, which would ignore it",
				what);
		}
	}
	if (!events)
		problem(g, path, "no event: rt-app 1.0 refuses a %s without one",
			what);
}

static void check_task(struct grammar *g, const char *name,
		       struct json_object *t)
{
	static const struct key_rule phase_keys[] = { { "loop", V_INT } };
	struct json_object *phases;
	char path[160], sub[256];

	snprintf(path, sizeof(path), "tasks.%s", name);
	if (!json_object_is_type(t, json_type_object)) {
		problem(g, path, "a task is an object");
		return;
	}
	if (!json_object_object_get_ex(t, "phases", &phases)) {
		check_events(g, path, t, task_keys, ARRAY_SIZE(task_keys),
			     "a task");
		return;
	}
	check_object(g, path, t, task_keys, ARRAY_SIZE(task_keys), "a task");
	if (!json_object_is_type(phases, json_type_object))
		return;	/* check_object() said so */
	if (!json_object_object_length(phases))
		problem(g, path, "\"phases\" is empty");
	json_object_object_foreach(phases, pname, p) {
		snprintf(sub, sizeof(sub), "%s.phases.%s", path, pname);
		if (!json_object_is_type(p, json_type_object))
			problem(g, sub, "a phase is an object");
		else
			check_events(g, sub, p, phase_keys,
				     ARRAY_SIZE(phase_keys), "a phase");
	}
}

static void check_resources(struct grammar *g, struct json_object *res)
{
	static const struct key_rule resource_keys[] = {
		{ "type", V_STRING },
	};
	char path[256];

	if (!json_object_is_type(res, json_type_object)) {
		problem(g, "resources", "an object of resources");
		return;
	}
	json_object_object_foreach(res, name, r) {
		snprintf(path, sizeof(path), "resources.%s", name);
		if (!json_object_is_type(r, json_type_object)) {
			problem(g, path, "a resource is an object");
			continue;
		}
		/* rt-app refuses a type it does not know: no need here */
		check_object(g, path, r, resource_keys,
			     ARRAY_SIZE(resource_keys), "a resource");
	}
}

static unsigned int events_of(struct json_object *o)
{
	unsigned int have = 0;

	json_object_object_foreach(o, key, v) {
		const struct key_rule *kind = event_kind(key);

		(void)v;
		if (!kind)
			continue;
		if (!strcmp(kind->name, "timer"))
			have |= NEEDS_TIMER;
		else if (!strcmp(kind->name, "run") ||
			 !strcmp(kind->name, "runtime"))
			have |= NEEDS_RUN;
		else if (!strcmp(kind->name, "lock"))
			have |= NEEDS_LOCK;
	}
	return have;
}

unsigned int rtapp_task_events(struct json_object *task)
{
	struct json_object *phases;
	unsigned int have;

	if (!json_object_is_type(task, json_type_object))
		return 0;
	have = events_of(task);
	if (json_object_object_get_ex(task, "phases", &phases) &&
	    json_object_is_type(phases, json_type_object)) {
		json_object_object_foreach(phases, name, p) {
			(void)name;
			if (json_object_is_type(p, json_type_object))
				have |= events_of(p);
		}
	}
	return have;
}

int rtapp_grammar_check(struct json_object *root, const char *file,
			FILE *list, struct sw_err *err)
{
	struct grammar g = { .file = file, .list = list, .err = err };
	struct json_object *global, *tasks;

	json_object_object_foreach(root, key, v) {
		(void)v;
		if (strcmp(key, "global") && strcmp(key, "tasks") &&
		    strcmp(key, "resources") && strcmp(key, WORKLOAD_BLOCK_KEY))
			problem(&g, key, "not a top-level key of rt-app 1.0 (global, tasks, resources) nor \"%s\"",
				WORKLOAD_BLOCK_KEY);
	}
	if (json_object_object_get_ex(root, "global", &global)) {
		if (json_object_is_type(global, json_type_object))
			check_object(&g, "global", global, global_keys,
				     ARRAY_SIZE(global_keys), "global");
		else
			problem(&g, "global", "an object");
	}
	if (json_object_object_get_ex(root, "resources", &global))
		check_resources(&g, global);
	if (json_object_object_get_ex(root, "tasks", &tasks) &&
	    json_object_is_type(tasks, json_type_object)) {
		json_object_object_foreach(tasks, name, t)
			check_task(&g, name, t);
	}
	if (g.n && list)
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			   "%s: %d key%s rt-app 1.0 would ignore or misread (listed above)",
			   file, g.n, g.n == 1 ? "" : "s");
	return g.n;
}
