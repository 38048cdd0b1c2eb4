// SPDX-License-Identifier: GPL-2.0
/*
 * Verdict blocks: parsing them from a workload file (judge/verdict.c
 * judges, by the rules of verdicts.rst).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/entity_name.h"
#include "judge/bound_expr.h"
#include "rtapp/rtapp_grammar.h"
#include "judge/samples.h"
#include "judge/checks.h"
#include "rtapp/workload.h"

static const char *const absolute_keys[] = {
	"metric", "task", "pooled", "cpu", "min", "max", "semantics", "why",
	NULL,
};

static const char *const baseline_keys[] = {
	"metric", "task", "pooled", "cpu", "better", "rel", "abs", "why",
	NULL,
};

static const char *const *keys_of(enum check_kind kind)
{
	return kind == CHECK_ABSOLUTE ? absolute_keys : baseline_keys;
}

static const char *list_name(enum check_kind kind)
{
	return kind == CHECK_ABSOLUTE ? "checks" : "baseline";
}

static int key_known(enum check_kind kind, const char *key)
{
	const char *const *k;

	for (k = keys_of(kind); *k; k++)
		if (!strcmp(key, *k))
			return 1;
	return 0;
}

static int is_number(struct json_object *o)
{
	return json_object_is_type(o, json_type_int) ||
	       json_object_is_type(o, json_type_double);
}

/* Where a check sits, for messages: "file: sched-workloads.checks[2]". */
struct place {
	const char *file;
	char at[64];
};

static int parse_number(struct json_object *c, const char *key, int *has,
			double *v, const struct place *pl, struct sw_err *err)
{
	struct json_object *o;

	if (!json_object_object_get_ex(c, key, &o))
		return 0;
	if (!is_number(o))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: %s.%s: not a number",
				  pl->file, pl->at, key);
	*has = 1;
	*v = json_object_get_double(o);
	/* NaN or 1e400 (infinite to json-c): a bound that cannot fail */
	if (!isfinite(*v))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.%s: not a finite number", pl->file,
				  pl->at, key);
	return 0;
}

static int parse_selector(struct json_object *c, struct check *ck,
			  const struct place *pl, struct sw_err *err)
{
	int task_metric = ck->def->source == SRC_RTAPP_TASK ||
			  ck->def->source == SRC_TRACE_TASK;
	struct json_object *task, *cpu;
	int has_task = json_object_object_get_ex(c, "task", &task);
	int has_cpu = json_object_object_get_ex(c, "cpu", &cpu);
	const char *sel;

	if (has_task && !task_metric)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.task: metric \"%s\" is measured on %s, not on a task",
				  pl->file, pl->at, ck->def->name,
				  metric_source_name(ck->def->source));
	if (has_cpu && ck->def->source != SRC_TRACE_CPU)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.cpu: metric \"%s\" is not a per-CPU metric",
				  pl->file, pl->at, ck->def->name);
	if (task_metric && !has_task)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s: metric \"%s\" needs \"task\" (a name or glob)",
				  pl->file, pl->at, ck->def->name);
	if (has_task && !json_object_is_type(task, json_type_string))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: %s.task: not a string",
				  pl->file, pl->at);
	if (has_cpu && !json_object_is_type(cpu, json_type_int) &&
	    !(json_object_is_type(cpu, json_type_string) &&
	      !strcmp(json_object_get_string(cpu), "*")))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.cpu: a CPU number or \"*\"", pl->file, pl->at);

	sel = has_task ? json_object_get_string(task) :
	      has_cpu ? json_object_get_string(cpu) : "*";
	if (!*sel || !entity_ktap_ok(sel) ||
	    strlen(sel) >= sizeof(ck->selector))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s: selector \"%s\" is empty, too long or has a blank, a control character or '#'",
				  pl->file, pl->at, sel);
	strcpy(ck->selector, sel);
	return 0;
}

/* "pooled": only where rtapp/rtapp_metrics.c pools a task's threads. */
static int parse_pooled(struct json_object *c, struct check *ck,
			const struct place *pl, struct sw_err *err)
{
	struct json_object *o;

	if (!json_object_object_get_ex(c, "pooled", &o))
		return 0;
	if (!json_object_is_type(o, json_type_boolean))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.pooled: not true or false", pl->file,
				  pl->at);
	ck->pooled = json_object_get_boolean(o);
	if (ck->pooled && ck->def->source != SRC_RTAPP_TASK)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.pooled: \"%s\" is measured on %s: only rt-app metrics pool a task's threads",
				  pl->file, pl->at, ck->def->name,
				  metric_source_name(ck->def->source));
	if (ck->pooled && ck->def->thread_only)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.pooled: \"%s\" is one pass of one thread: it has no pooled value",
				  pl->file, pl->at, ck->def->name);
	return 0;
}

/* A number, or an expression checked now and evaluated when judged. */
static int parse_bound(struct json_object *c, const char *key, int *has,
		       double *v, char *expr, size_t len,
		       const struct place *pl, struct sw_err *err)
{
	struct json_object *o;
	char why[128];

	if (!json_object_object_get_ex(c, key, &o) ||
	    !json_object_is_type(o, json_type_string))
		return parse_number(c, key, has, v, pl, err);
	if (expr_eval(json_object_get_string(o), 1, NULL, v, why,
		      sizeof(why)) ||
	    strlen(json_object_get_string(o)) >= len)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: %s.%s: %s",
				  pl->file, pl->at, key, why);
	snprintf(expr, len, "%s", json_object_get_string(o));
	*has = 1;
	return 0;
}

static int parse_bounds(struct json_object *c, struct check *ck,
			const struct place *pl, struct sw_err *err)
{
	if (parse_bound(c, "min", &ck->has_min, &ck->min, ck->min_expr,
			sizeof(ck->min_expr), pl, err) ||
	    parse_bound(c, "max", &ck->has_max, &ck->max, ck->max_expr,
			sizeof(ck->max_expr), pl, err))
		return -1;
	if (!ck->has_min && !ck->has_max)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s: neither \"min\" nor \"max\": a check that cannot fail",
				  pl->file, pl->at);
	if (ck->has_min && ck->has_max && ck->min > ck->max &&
	    !ck->min_expr[0] && !ck->max_expr[0])
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: %s: min %g > max %g",
				  pl->file, pl->at, ck->min, ck->max);
	return 0;
}

static int parse_rule(struct json_object *c, struct check *ck,
		      const struct place *pl, struct sw_err *err)
{
	struct json_object *better;
	int has_rel = 0, has_abs = 0;
	const char *b;

	if (!json_object_object_get_ex(c, "better", &better) ||
	    !json_object_is_type(better, json_type_string))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.better: missing; \"lower\" or \"higher\"",
				  pl->file, pl->at);
	b = json_object_get_string(better);
	if (strcmp(b, "lower") && strcmp(b, "higher"))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.better: \"%s\": \"lower\" or \"higher\"",
				  pl->file, pl->at, b);
	ck->rule.better = b[0] == 'l' ? -1 : 1;
	if (parse_number(c, "rel", &has_rel, &ck->rule.rel, pl, err) ||
	    parse_number(c, "abs", &has_abs, &ck->rule.abs, pl, err))
		return -1;
	if ((!has_rel || ck->rule.rel <= 0) && (!has_abs || ck->rule.abs <= 0))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s: neither \"rel\" nor \"abs\" > 0: the smallest change that matters is needed",
				  pl->file, pl->at);
	if (ck->rule.rel < 0 || ck->rule.abs < 0)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s: \"rel\" and \"abs\" are sizes, not signed",
				  pl->file, pl->at);
	/* A tail is judged on its pooled events, in the bad direction. */
	if (ck->def->tail != TAIL_NONE &&
	    ck->rule.better != (ck->def->tail == TAIL_LOW ? 1 : -1))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.better: %s is a tail of its events, judged in one direction: \"%s\"",
				  pl->file, pl->at, ck->def->name,
				  ck->def->tail == TAIL_LOW ? "higher" : "lower");
	return 0;
}

/* "semantics": the fair class whose behaviour the bound encodes. */
static int parse_semantics(struct json_object *c, struct check *ck,
			   const struct place *pl, struct sw_err *err)
{
	struct json_object *o;
	const char *v;

	if (!json_object_object_get_ex(c, "semantics", &o))
		return 0;
	v = json_object_get_string(o);
	if (!json_object_is_type(o, json_type_string) ||
	    (strcmp(v, "eevdf") && strcmp(v, "cfs")))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.semantics: %s: \"eevdf\" or \"cfs\" (the fair class the bound holds for)",
				  pl->file, pl->at, json_object_to_json_string(o));
	snprintf(ck->semantics, sizeof(ck->semantics), "%s", v);
	return 0;
}

static int parse_check(struct json_object *c, struct check *ck,
		       const struct place *pl, struct sw_err *err)
{
	struct json_object *metric, *why;

	if (!json_object_is_type(c, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: %s: not an object",
				  pl->file, pl->at);
	json_object_object_foreach(c, key, val) {
		(void)val;
		if (!key_known(ck->kind, key))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: %s.%s: unknown key (known: %s)",
					  pl->file, pl->at, key,
					  ck->kind == CHECK_ABSOLUTE ?
					  "metric, task, pooled, cpu, min, max, semantics, why" :
					  "metric, task, pooled, cpu, better, rel, abs, why");
	}
	if (!json_object_object_get_ex(c, "metric", &metric) ||
	    !json_object_is_type(metric, json_type_string))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.metric: missing or not a string",
				  pl->file, pl->at);
	ck->def = metric_find(json_object_get_string(metric));
	if (!ck->def)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.metric: unknown metric \"%s\" (sched-workloads metrics lists them)",
				  pl->file, pl->at, json_object_get_string(metric));
	/* The canary and the host gauge measure the host, never the kernel. */
	if (ck->def->source == SRC_CANARY || ck->def->source == SRC_HOST)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s.metric: \"%s\" measures the host, not the kernel: it explains verdicts, it is not judged",
				  pl->file, pl->at, ck->def->name);
	if (parse_selector(c, ck, pl, err) || parse_pooled(c, ck, pl, err))
		return -1;
	if (ck->kind == CHECK_ABSOLUTE ? parse_bounds(c, ck, pl, err) :
	    parse_rule(c, ck, pl, err))
		return -1;
	if (parse_semantics(c, ck, pl, err))
		return -1;
	if (json_object_object_get_ex(c, "why", &why))
		snprintf(ck->why, sizeof(ck->why), "%s",
			 json_object_get_string(why));
	return 0;
}

static int parse_list(struct json_object *block, enum check_kind kind,
		      const char *file, struct verdict_block *vb,
		      struct sw_err *err)
{
	const char *name = list_name(kind);
	struct json_object *list;
	struct check *nc;
	size_t i, n;

	if (!json_object_object_get_ex(block, name, &list))
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".%s: not an array",
				  file, name);
	n = json_object_array_length(list);
	nc = realloc(vb->checks, (vb->n + n + 1) * sizeof(*nc));
	if (!nc)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	vb->checks = nc;
	for (i = 0; i < n; i++) {
		struct check *ck = &vb->checks[vb->n];
		struct place pl = { .file = file };

		memset(ck, 0, sizeof(*ck));
		ck->kind = kind;
		snprintf(pl.at, sizeof(pl.at), WORKLOAD_BLOCK_KEY ".%s[%zu]",
			 name, i);
		if (parse_check(json_object_array_get_idx(list, i), ck, &pl, err))
			return -1;
		vb->n++;
		vb->n_baseline += kind == CHECK_BASELINE;
	}
	return 0;
}

/*
 * Kernel threads are part of what is tested, not neighbours to skip: a
 * kernel change that makes one spin during a workload must fail it. Every
 * workload gets this check unless it names the metric itself.
 */
static int add_kthread_check(struct verdict_block *vb, struct sw_err *err)
{
	const struct metric_def *def = metric_find(VERDICT_KTHREAD_METRIC);
	struct check *ck;
	size_t i;

	if (!def)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "no metric %s",
				  VERDICT_KTHREAD_METRIC);
	for (i = 0; i < vb->n; i++)
		if (vb->checks[i].def == def)
			return 0;
	ck = realloc(vb->checks, (vb->n + 1) * sizeof(*ck));
	if (!ck)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	vb->checks = ck;
	ck = &vb->checks[vb->n++];
	memset(ck, 0, sizeof(*ck));
	ck->kind = CHECK_ABSOLUTE;
	ck->def = def;
	ck->implicit = 1;
	strcpy(ck->selector, "*");
	ck->has_max = 1;
	snprintf(ck->max_expr, sizeof(ck->max_expr), "%s", VERDICT_KTHREAD_MAX);
	snprintf(ck->why, sizeof(ck->why), "%s", VERDICT_KTHREAD_WHY);
	return 0;
}

int verdict_parse(struct json_object *block, const char *file,
		  struct verdict_block *vb, struct sw_err *err)
{
	memset(vb, 0, sizeof(*vb));
	if (parse_list(block, CHECK_ABSOLUTE, file, vb, err) ||
	    parse_list(block, CHECK_BASELINE, file, vb, err)) {
		verdict_block_free(vb);
		return -1;
	}
	/* A workload the kernel must refuse is judged on that alone. */
	if (vb->n == vb->n_baseline &&
	    !json_object_object_get_ex(block, "refusal", NULL)) {
		verdict_block_free(vb);
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".checks: missing or empty: a workload without absolute checks gives no verdict on a machine without baseline",
				  file);
	}
	if (vb->n > vb->n_baseline && add_kthread_check(vb, err)) {
		verdict_block_free(vb);
		return -1;
	}
	return 0;
}

void verdict_block_free(struct verdict_block *vb)
{
	free(vb->checks);
	memset(vb, 0, sizeof(*vb));
}

/*
 * Whether @ck's selector names task @task, or one of its threads
 * ("hog-0"); a pooled check names tasks only.
 */
static int selects(const struct check *ck, const char *task)
{
	char thread[ENTITY_TASK_MAX + 8];

	entity_thread_name(task, 0, 2, thread, sizeof(thread));
	return glob_match(ck->selector, task) ||
	       (!ck->pooled && glob_match(ck->selector, thread));
}

int verdict_check_selectors(const struct verdict_block *vb,
			    struct json_object *tasks, const char *file,
			    struct sw_err *err)
{
	size_t i, nth[2] = { 0, 0 };

	for (i = 0; i < vb->n; i++) {
		const struct check *ck = &vb->checks[i];
		int baseline = ck->kind != CHECK_ABSOLUTE, found = 0;

		if (ck->implicit)
			continue;
		nth[baseline]++;
		if (ck->def->source != SRC_RTAPP_TASK &&
		    ck->def->source != SRC_TRACE_TASK)
			continue;
		json_object_object_foreach(tasks, task, tval) {
			unsigned int lack;

			if (!selects(ck, task))
				continue;
			found = 1;
			lack = ck->def->needs & ~rtapp_task_events(tval);
			if (lack)
				return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
						  "%s: %s.%s[%zu]: %s needs a \"%s\" event, and task \"%s\" has none: the check could never be judged",
						  file, WORKLOAD_BLOCK_KEY,
						  baseline ? "baseline" : "checks",
						  nth[baseline] - 1, ck->def->name,
						  lack & NEEDS_TIMER ? "timer" :
						  lack & NEEDS_RUN ? "run" : "lock",
						  task);
		}
		if (!found)
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: %s.%s[%zu].task: \"%s\" matches no task of \"tasks\": the check could never be judged",
					  file, WORKLOAD_BLOCK_KEY,
					  baseline ? "baseline" : "checks",
					  nth[baseline] - 1, ck->selector);
	}
	return 0;
}
