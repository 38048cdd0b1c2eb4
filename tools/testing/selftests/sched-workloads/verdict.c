// SPDX-License-Identifier: GPL-2.0
/*
 * Verdict blocks: parsing and evaluation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "samples.h"
#include "verdict.h"
#include "workload.h"

static const char *const absolute_keys[] = {
	"metric", "task", "cpu", "min", "max", "why", NULL,
};

static const char *const baseline_keys[] = {
	"metric", "task", "cpu", "better", "rel", "abs", "tail", "why", NULL,
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
	if (!*sel || strpbrk(sel, " \t#") ||
	    strlen(sel) >= sizeof(ck->selector))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %s: selector \"%s\" is empty, too long or has spaces or '#'",
				  pl->file, pl->at, sel);
	strcpy(ck->selector, sel);
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
	if (expr_eval(json_object_get_string(o), 1, v, why, sizeof(why)) ||
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
	struct json_object *better, *tail;
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
	if (json_object_object_get_ex(c, "tail", &tail)) {
		if (!json_object_is_type(tail, json_type_boolean))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: %s.tail: true or false", pl->file,
					  pl->at);
		ck->rule.tail = json_object_get_boolean(tail);
	}
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
					  "metric, task, cpu, min, max, why" :
					  "metric, task, cpu, better, rel, abs, tail, why");
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
	if (parse_selector(c, ck, pl, err))
		return -1;
	if (ck->kind == CHECK_ABSOLUTE ? parse_bounds(c, ck, pl, err) :
	    parse_rule(c, ck, pl, err))
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
	return 0;
}

void verdict_block_free(struct verdict_block *vb)
{
	free(vb->checks);
	memset(vb, 0, sizeof(*vb));
}

static int selects(const struct check *ck, const struct metric_samples *ms)
{
	char id[16];

	if (ms->def != ck->def)
		return 0;
	if (ck->def->source == SRC_TRACE_CPU) {
		snprintf(id, sizeof(id), "%d", ms->id);
		return glob_match(ck->selector, id);
	}
	return glob_match(ck->selector, ms->group) ||
	       glob_match(ck->selector, ms->entity);
}

static int push_result(struct verdict_results *out,
		       const struct verdict_result *r)
{
	struct verdict_result *nr = realloc(out->r, (out->n + 1) * sizeof(*nr));

	if (!nr)
		return -1;
	out->r = nr;
	out->r[out->n++] = *r;
	return 0;
}

/* Two checks of one metric on one entity get .2, .3... to stay unique. */
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

/* " (median of 3: 12 15 13)" when there was more than one repetition. */
static void format_reps(const struct metric_samples *ms, char *buf, size_t len)
{
	size_t i, off;

	buf[0] = '\0';
	if (ms->n < 2)
		return;
	off = snprintf(buf, len, " (median of %zu:", ms->n);
	for (i = 0; i < ms->n && off < len; i++)
		off += snprintf(buf + off, len - off, " %.4g", ms->v[i]);
	if (off < len)
		snprintf(buf + off, len - off, ")");
}

/* Trace values of a trace that lost events, or unmeasurable values. */
static int judge_unusable(const struct check *ck, const struct metric_samples *ms,
			  double v, const struct verdict_input *in,
			  struct verdict_result *r)
{
	if (ck->def->source != SRC_RTAPP_TASK && in->lost_events) {
		r->status = V_ERROR;
		snprintf(r->diag, sizeof(r->diag),
			 "ERROR %s: %s: the trace lost %llu events, the value is not trustworthy",
			 ms->entity, ck->def->name, in->lost_events);
		return 1;
	}
	if (isnan(v)) {
		r->status = ck->def->unavailable ? V_SKIP : V_FAIL;
		snprintf(r->diag, sizeof(r->diag), "%s: %s: %s", ms->entity,
			 ck->def->name, ck->def->unavailable ?
			 ck->def->unavailable : "not measured (no samples)");
		return 1;
	}
	return 0;
}

/* The bounds of a check now: expressions read the machine as it is. */
static int eval_bounds(const struct check *ck, double *min, double *max,
		       struct verdict_result *r)
{
	char why[128];

	*min = ck->min;
	*max = ck->max;
	if ((ck->min_expr[0] && expr_eval(ck->min_expr, 0, min, why, sizeof(why))) ||
	    (ck->max_expr[0] && expr_eval(ck->max_expr, 0, max, why, sizeof(why)))) {
		r->status = V_ERROR;
		snprintf(r->diag, sizeof(r->diag), "ERROR %s: bound: %s",
			 ck->def->name, why);
		return -1;
	}
	return 0;
}

static void judge_absolute(const struct check *ck,
			   const struct metric_samples *ms,
			   const struct verdict_input *in,
			   struct verdict_result *r)
{
	double v = samples_median(ms), min, max;
	char expect[320], reps[160];

	if (judge_unusable(ck, ms, v, in, r) || eval_bounds(ck, &min, &max, r))
		return;
	if (ck->has_min && ck->has_max)
		snprintf(expect, sizeof(expect), "in [%g, %g]", min, max);
	else if (ck->has_min)
		snprintf(expect, sizeof(expect), ">= %g", min);
	else
		snprintf(expect, sizeof(expect), "<= %g", max);
	if (ck->min_expr[0] || ck->max_expr[0])
		snprintf(expect + strlen(expect), sizeof(expect) - strlen(expect),
			 " (%s)", ck->min_expr[0] ? ck->min_expr : ck->max_expr);
	format_reps(ms, reps, sizeof(reps));
	r->status = (ck->has_min && v < min) || (ck->has_max && v > max) ?
		    V_FAIL : V_PASS;
	snprintf(r->diag, sizeof(r->diag), "%s %s: %s = %g %s%s, expected %s%s%s",
		 r->status == V_PASS ? "ok" : "FAIL", ms->entity, ck->def->name,
		 v, ck->def->unit, reps, expect, ck->why[0] ? ": " : "", ck->why);
}

static void judge_baseline(const struct check *ck,
			   const struct metric_samples *ms,
			   const struct verdict_input *in,
			   struct verdict_result *r)
{
	double cur[SAMPLES_MAX_REPS], base[SAMPLES_MAX_REPS];
	const struct metric_samples *bs = NULL;
	size_t nc, nb = 0;
	struct change ch;
	char key[256], reps[160];

	if (judge_unusable(ck, ms, samples_median(ms), in, r))
		return;
	if (!in->base) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag), "%s", in->no_base);
		return;
	}
	samples_key(ms, key, sizeof(key));
	bs = sample_set_find(in->base, key);
	if (bs)
		nb = samples_measured(bs, base);
	if (!nb) {
		r->status = V_SKIP;
		snprintf(r->diag, sizeof(r->diag),
			 "%s: %s: the baseline has no value for it: record it again",
			 ms->entity, ck->def->name);
		return;
	}
	nc = samples_measured(ms, cur);
	compare_samples(base, nb, cur, nc, &ck->rule, &ch);
	r->change = ch.kind;
	r->status = ch.kind == CHANGE_REGRESSION ? V_FAIL : V_PASS;
	format_reps(ms, reps, sizeof(reps));
	snprintf(r->diag, sizeof(r->diag),
		 "%s %s: %s = %g %s%s vs baseline %g (median of %zu): %+.1f%%, p=%.3g%s; %s beyond max(%g%%, %g %s)%s%s",
		 ch.kind == CHANGE_REGRESSION ? "REGRESSION" :
		 ch.kind == CHANGE_IMPROVEMENT ? "improved" : "ok",
		 ms->entity, ck->def->name, ch.b_median, ck->def->unit, reps,
		 ch.a_median, nb, isnan(ch.ratio) ? 0 : 100 * ch.ratio, ch.p,
		 ch.separate ? ", ranges apart" : "",
		 ck->rule.better < 0 ? "lower is better, counts" :
		 "higher is better, counts", 100 * ck->rule.rel, ck->rule.abs,
		 ck->def->unit, ck->why[0] ? ": " : "", ck->why);
}

static int evaluate_check(const struct check *ck, const struct verdict_input *in,
			  struct verdict_results *out)
{
	const char *suffix = ck->kind == CHECK_BASELINE ? ".vs-baseline" : "";
	const struct sample_set *cur = in->cur;
	struct verdict_result r;
	int matched = 0;
	size_t i;

	for (i = 0; i < cur->n; i++) {
		if (!selects(ck, &cur->s[i]))
			continue;
		matched++;
		memset(&r, 0, sizeof(r));
		r.kind = ck->kind;
		snprintf(r.name, sizeof(r.name), "%s.%s.%s%s", in->prefix,
			 cur->s[i].entity, ck->def->name, suffix);
		make_unique(out, r.name, sizeof(r.name));
		if (ck->kind == CHECK_ABSOLUTE)
			judge_absolute(ck, &cur->s[i], in, &r);
		else
			judge_baseline(ck, &cur->s[i], in, &r);
		if (push_result(out, &r))
			return -1;
	}
	if (matched)
		return 0;
	memset(&r, 0, sizeof(r));
	r.kind = ck->kind;
	r.status = V_FAIL;
	snprintf(r.name, sizeof(r.name), "%s.%s.%s%s", in->prefix, ck->selector,
		 ck->def->name, suffix);
	make_unique(out, r.name, sizeof(r.name));
	snprintf(r.diag, sizeof(r.diag),
		 "FAIL %s: selector \"%s\" matched nothing measured on %s",
		 ck->def->name, ck->selector, metric_source_name(ck->def->source));
	return push_result(out, &r);
}

int verdict_evaluate(const struct verdict_block *vb,
		     const struct verdict_input *in,
		     struct verdict_results *out)
{
	size_t c;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < vb->n; c++)
		if (evaluate_check(&vb->checks[c], in, out))
			return -1;
	return 0;
}

size_t verdict_regressions(const struct verdict_results *res)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += res->r[i].change == CHANGE_REGRESSION;
	return n;
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
