// SPDX-License-Identifier: GPL-2.0
/*
 * Verdict blocks: parsing and evaluation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"
#include "workload.h"

static const char *const check_keys[] = {
	"metric", "task", "cpu", "min", "max", "why",
};

static int key_known(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(check_keys); i++)
		if (!strcmp(key, check_keys[i]))
			return 1;
	return 0;
}

static int is_number(struct json_object *o)
{
	return json_object_is_type(o, json_type_int) ||
	       json_object_is_type(o, json_type_double);
}

static int parse_bound(struct json_object *c, const char *key, int *has,
		       double *v, const char *file, size_t i, struct sw_err *err)
{
	struct json_object *o;

	if (!json_object_object_get_ex(c, key, &o))
		return 0;
	if (!is_number(o))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu].%s: not a number", file, i, key);
	*has = 1;
	*v = json_object_get_double(o);
	return 0;
}

static int parse_selector(struct json_object *c, struct check *ck,
			  const char *file, size_t i, struct sw_err *err)
{
	int task_metric = ck->def->source == SRC_RTAPP_TASK ||
			  ck->def->source == SRC_TRACE_TASK;
	struct json_object *task, *cpu;
	int has_task = json_object_object_get_ex(c, "task", &task);
	int has_cpu = json_object_object_get_ex(c, "cpu", &cpu);
	const char *sel;

	if (has_task && !task_metric)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu].task: metric \"%s\" is measured on %s, not on a task",
				  file, i, ck->def->name,
				  metric_source_name(ck->def->source));
	if (has_cpu && ck->def->source != SRC_TRACE_CPU)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu].cpu: metric \"%s\" is not a per-CPU metric",
				  file, i, ck->def->name);
	if (task_metric && !has_task)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu]: metric \"%s\" needs \"task\" (a name or glob)",
				  file, i, ck->def->name);
	if (has_task && !json_object_is_type(task, json_type_string))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu].task: not a string", file, i);
	if (has_cpu && !json_object_is_type(cpu, json_type_int) &&
	    !(json_object_is_type(cpu, json_type_string) &&
	      !strcmp(json_object_get_string(cpu), "*")))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu].cpu: a CPU number or \"*\"", file, i);

	sel = has_task ? json_object_get_string(task) :
	      has_cpu ? json_object_get_string(cpu) : "*";
	if (!*sel || strpbrk(sel, " \t#") ||
	    strlen(sel) >= sizeof(ck->selector))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu]: selector \"%s\" is empty, too long or has spaces or '#'",
				  file, i, sel);
	strcpy(ck->selector, sel);
	return 0;
}

static int parse_check(struct json_object *c, struct check *ck,
		       const char *file, size_t i, struct sw_err *err)
{
	struct json_object *metric, *why;

	if (!json_object_is_type(c, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu]: not an object", file, i);
	json_object_object_foreach(c, key, val) {
		(void)val;
		if (!key_known(key))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu].%s: unknown key (known: metric, task, cpu, min, max, why)",
					  file, i, key);
	}
	if (!json_object_object_get_ex(c, "metric", &metric) ||
	    !json_object_is_type(metric, json_type_string))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu].metric: missing or not a string",
				  file, i);
	ck->def = metric_find(json_object_get_string(metric));
	if (!ck->def)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu].metric: unknown metric \"%s\" (sched-workloads metrics lists them)",
				  file, i, json_object_get_string(metric));
	if (parse_selector(c, ck, file, i, err) ||
	    parse_bound(c, "min", &ck->has_min, &ck->min, file, i, err) ||
	    parse_bound(c, "max", &ck->has_max, &ck->max, file, i, err))
		return -1;
	if (!ck->has_min && !ck->has_max)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu]: neither \"min\" nor \"max\": a check that cannot fail",
				  file, i);
	if (ck->has_min && ck->has_max && ck->min > ck->max)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks[%zu]: min %g > max %g", file, i,
				  ck->min, ck->max);
	if (json_object_object_get_ex(c, "why", &why))
		snprintf(ck->why, sizeof(ck->why), "%s",
			 json_object_get_string(why));
	return 0;
}

int verdict_parse(struct json_object *block, const char *file,
		  struct verdict_block *vb, struct sw_err *err)
{
	struct json_object *checks;
	size_t i, n;

	memset(vb, 0, sizeof(*vb));
	if (!json_object_object_get_ex(block, "checks", &checks) ||
	    !json_object_is_type(checks, json_type_array) ||
	    !(n = json_object_array_length(checks)))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks: missing, empty or not an array: a workload without checks gives no verdict",
				  file);
	vb->checks = calloc(n, sizeof(*vb->checks));
	if (!vb->checks)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	for (i = 0; i < n; i++) {
		if (parse_check(json_object_array_get_idx(checks, i),
				&vb->checks[i], file, i, err)) {
			verdict_block_free(vb);
			return -1;
		}
		vb->n++;
	}
	return 0;
}

void verdict_block_free(struct verdict_block *vb)
{
	free(vb->checks);
	memset(vb, 0, sizeof(*vb));
}

static int selects(const struct check *ck, const struct metric_value *mv)
{
	char id[16];

	if (mv->def != ck->def)
		return 0;
	if (ck->def->source == SRC_TRACE_CPU) {
		snprintf(id, sizeof(id), "%d", mv->id);
		return glob_match(ck->selector, id);
	}
	return glob_match(ck->selector, mv->group) ||
	       glob_match(ck->selector, mv->entity);
}

static void format_expect(const struct check *ck, char *buf, size_t len)
{
	if (ck->has_min && ck->has_max)
		snprintf(buf, len, "in [%g, %g]", ck->min, ck->max);
	else if (ck->has_min)
		snprintf(buf, len, ">= %g", ck->min);
	else
		snprintf(buf, len, "<= %g", ck->max);
}

static int push_result(struct verdict_results *out, const struct verdict_result *r)
{
	struct verdict_result *nr = realloc(out->r, (out->n + 1) * sizeof(*nr));

	if (!nr)
		return -1;
	out->r = nr;
	out->r[out->n++] = *r;
	return 0;
}

/* Two checks of one metric on one entity get #2, #3... to stay unique. */
static void make_unique(const struct verdict_results *out, char *name,
			size_t len)
{
	size_t base = strlen(name), i;
	int k = 1, clash;

	do {
		clash = 0;
		for (i = 0; i < out->n; i++)
			if (!strcmp(out->r[i].name, name))
				clash = 1;
		if (clash)
			snprintf(name + base, len - base, ".%d", ++k);
	} while (clash);
}

static void judge(const struct check *ck, const struct metric_value *mv,
		  unsigned long long lost, struct verdict_result *r)
{
	int trace = ck->def->source != SRC_RTAPP_TASK;
	char expect[64];
	double v = mv->value;

	format_expect(ck, expect, sizeof(expect));
	if (trace && lost) {
		r->status = V_ERROR;
		snprintf(r->diag, sizeof(r->diag),
			 "ERROR %s: %s: the trace lost %llu events, the value is not trustworthy",
			 mv->entity, ck->def->name, lost);
		return;
	}
	if (isnan(v)) {
		r->status = ck->def->unavailable ? V_SKIP : V_FAIL;
		snprintf(r->diag, sizeof(r->diag), "%s: %s: %s", mv->entity,
			 ck->def->name, ck->def->unavailable ?
			 ck->def->unavailable : "not measured (no samples)");
		return;
	}
	if ((ck->has_min && v < ck->min) || (ck->has_max && v > ck->max))
		r->status = V_FAIL;
	else
		r->status = V_PASS;
	snprintf(r->diag, sizeof(r->diag), "%s %s: %s = %g %s, expected %s%s%s",
		 r->status == V_PASS ? "ok" : "FAIL", mv->entity, ck->def->name,
		 v, ck->def->unit, expect, ck->why[0] ? ": " : "", ck->why);
}

int verdict_evaluate(const struct verdict_block *vb,
		     const struct metric_set *set, const char *prefix,
		     unsigned long long lost_events,
		     struct verdict_results *out)
{
	size_t c, i;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < vb->n; c++) {
		const struct check *ck = &vb->checks[c];
		int matched = 0;

		for (i = 0; i < set->n; i++) {
			struct verdict_result r = { 0 };

			if (!selects(ck, &set->v[i]))
				continue;
			matched++;
			snprintf(r.name, sizeof(r.name), "%s.%s.%s", prefix,
				 set->v[i].entity, ck->def->name);
			make_unique(out, r.name, sizeof(r.name));
			judge(ck, &set->v[i], lost_events, &r);
			if (push_result(out, &r))
				return -1;
		}
		if (!matched) {
			struct verdict_result r = { .status = V_FAIL };

			snprintf(r.name, sizeof(r.name), "%s.%s.%s", prefix,
				 ck->selector, ck->def->name);
			make_unique(out, r.name, sizeof(r.name));
			snprintf(r.diag, sizeof(r.diag),
				 "FAIL %s: selector \"%s\" matched nothing measured on %s",
				 ck->def->name, ck->selector,
				 metric_source_name(ck->def->source));
			if (push_result(out, &r))
				return -1;
		}
	}
	return 0;
}

void verdict_results_free(struct verdict_results *res)
{
	free(res->r);
	memset(res, 0, sizeof(*res));
}

enum verdict_status verdict_overall(const struct verdict_results *res)
{
	enum verdict_status st = V_SKIP;
	size_t i;

	for (i = 0; i < res->n; i++) {
		if (res->r[i].status == V_FAIL || res->r[i].status == V_ERROR)
			return V_FAIL;
		if (res->r[i].status == V_PASS)
			st = V_PASS;
	}
	return st;
}

static const char *status_name(enum verdict_status st)
{
	static const char *const names[] = { "pass", "fail", "skip", "error" };

	return names[st];
}

int verdict_results_write_json(const struct verdict_results *res, FILE *f)
{
	struct json_object *arr = json_object_new_array();
	size_t i;
	int ret = 0;

	if (!arr)
		return -1;
	for (i = 0; i < res->n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name",
				       json_object_new_string(res->r[i].name));
		json_object_object_add(o, "status",
				       json_object_new_string(status_name(res->r[i].status)));
		json_object_object_add(o, "diag",
				       json_object_new_string(res->r[i].diag));
		json_object_array_add(arr, o);
	}
	if (fprintf(f, "%s\n", json_object_to_json_string_ext(arr,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -1;
	json_object_put(arr);
	return ret;
}
