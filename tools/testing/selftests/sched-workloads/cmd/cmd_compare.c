// SPDX-License-Identifier: GPL-2.0
/*
 * A/B comparison of two runs of the battery.
 *
 * For every workload both runs have, every metric both measured: the
 * medians, the change, the rank test's p and a verdict. Metrics a
 * workload's "baseline" checks name are judged by those checks' rules
 * (direction, smallest change that matters); the others only say
 * "changed" when the change is significant. A tail metric is compared
 * on the pooled events of every repetition (compare_tail(), in the bad
 * direction only) when both directories kept them (rounds.json and
 * rep-<K>/events.json), else by the ranges of its values. Exit 1 when a
 * judged metric regressed.
 */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "judge/compare.h"
#include "lib/event_hist.h"
#include "machine/fingerprint.h"
#include "judge/samples.h"
#include "judge/verdict.h"
#include "rtapp/workload.h"
#include "lib/results.h"

struct compare_totals {
	int rows, regressions, improvements, changed;
};

/* Tails move a lot with noise: without events, judged by ranges. */
static int is_tail(const struct metric_def *def)
{
	static const char *const tails[] = {
		".p99", ".p999", ".max", ".min", ".p1", ".longest",
	};
	size_t i, n = strlen(def->name);

	for (i = 0; i < ARRAY_SIZE(tails); i++) {
		size_t t = strlen(tails[i]);

		if (n > t && !strcmp(def->name + n - t, tails[i]))
			return 1;
	}
	return 0;
}

/* The rule of the first baseline check naming this metric and entity. */
static void rule_for(const struct verdict_block *vb,
		     const struct metric_samples *ms, struct compare_rule *rule)
{
	size_t i;

	memset(rule, 0, sizeof(*rule));
	rule->tail = is_tail(ms->def);
	for (i = 0; vb && i < vb->n; i++) {
		const struct check *ck = &vb->checks[i];

		if (ck->kind != CHECK_BASELINE || ck->def != ms->def)
			continue;
		if (glob_match(ck->selector, ms->group) ||
		    glob_match(ck->selector, ms->entity)) {
			*rule = ck->rule;
			return;
		}
	}
}

/* @run/@workload's file @f. */
static void workload_file(char *buf, size_t len, const char *run,
			  const char *workload, enum results_file f)
{
	char wdir[PATH_MAX];

	results_workload_dir(wdir, sizeof(wdir), run, workload);
	results_path(buf, len, wdir, f);
}

/* The events.json of repetition @id of @run/@workload. */
static void rep_events(char *buf, size_t len, const char *run,
		       const char *workload, int id)
{
	char wdir[PATH_MAX], rep[PATH_MAX + 16];

	results_workload_dir(wdir, sizeof(wdir), run, workload);
	results_rep_dir(rep, sizeof(rep), wdir, id);
	results_path(buf, len, rep, RF_EVENTS);
}

static int load_samples(const char *dir, const char *workload,
			struct sample_set *ss, struct sw_err *err)
{
	struct json_object *o;
	char path[PATH_MAX];
	int ret;

	workload_file(path, sizeof(path), dir, workload, RF_SAMPLES);
	o = json_object_from_file(path);
	if (!o)
		return sw_err_set(err, SW_EXIT_USAGE,
				  "%s: missing or not JSON: not a result directory of this tool",
				  path);
	ret = sample_set_from_json(ss, o, path, err);
	json_object_put(o);
	return ret;
}

/*
 * Every event of every counted repetition of @workload: 0, or 1 when the
 * directory kept none (written before events were), or -1.
 */
static int load_events(const char *dir, const char *workload,
		       struct event_set *es, struct sw_err *err)
{
	struct json_object *rounds, *reps, *o;
	char path[PATH_MAX + 64];
	size_t i, k;
	int ret = 0;

	memset(es, 0, sizeof(*es));
	workload_file(path, sizeof(path), dir, workload, RF_ROUNDS);
	rounds = json_object_from_file(path);
	if (!rounds || !json_object_is_type(rounds, json_type_array)) {
		json_object_put(rounds);
		return 1;
	}
	for (i = 0; !ret && i < json_object_array_length(rounds); i++) {
		if (!json_object_object_get_ex(json_object_array_get_idx(rounds, i),
					       "reps", &reps))
			continue;
		for (k = 0; !ret && k < json_object_array_length(reps); k++) {
			struct event_rep r;

			rep_events(path, sizeof(path), dir, workload,
				   json_object_get_int(json_object_array_get_idx(reps, k)));
			o = json_object_from_file(path);
			if (!o) {
				ret = 1;
				break;
			}
			ret = event_rep_from_json(&r, o, path, err);
			json_object_put(o);
			if (!ret && event_set_add_rep(es, &r))
				ret = sw_err_set(err, SW_EXIT_RUN_ERROR,
						 "more than %d repetitions",
						 METRIC_MAX_REPS);
			event_rep_free(&r);
		}
	}
	json_object_put(rounds);
	if (ret)
		event_set_free(es);
	return ret;
}

/* The events of a tail of both sides, or NULL. */
static int tail_pair(const struct event_set *ea, const struct event_set *eb,
		     const struct metric_samples *ms,
		     const struct event_samples **a,
		     const struct event_samples **b)
{
	if (ms->def->tail == TAIL_NONE)
		return 0;
	*a = event_set_find(ea, ms->def->source, ms->entity, ms->def->series);
	*b = event_set_find(eb, ms->def->source, ms->entity, ms->def->series);
	return *a && *b;
}

/* The verdict block of the workload as run B ran it, if it parses. */
static int load_rules(const char *dir, const char *workload,
		      struct verdict_block *vb)
{
	struct sw_err err = { 0 };
	char path[PATH_MAX], wdir[PATH_MAX];
	struct workload w;
	int ret;

	results_workload_dir(wdir, sizeof(wdir), dir, workload);
	results_workload_copy(path, sizeof(path), wdir, workload);
	if (workload_load(path, &w, &err))
		return -1;
	ret = verdict_parse(w.block, path, vb, &err);
	workload_free(&w);
	return ret;
}

static void compare_workload(const char *a_dir, const char *b_dir,
			     const char *workload, struct compare_totals *t)
{
	struct sample_set a = { 0 }, b = { 0 };
	struct event_set ea = { 0 }, eb = { 0 };
	struct verdict_block vb = { 0 };
	int have_rules, have_events;
	struct sw_err err = { 0 };
	size_t i;

	if (load_samples(a_dir, workload, &a, &err) ||
	    load_samples(b_dir, workload, &b, &err)) {
		printf("%s: %s\n", workload, err.msg);
		goto out;
	}
	have_events = !load_events(a_dir, workload, &ea, &err) &&
		      !load_events(b_dir, workload, &eb, &err);
	have_rules = !load_rules(b_dir, workload, &vb);
	for (i = 0; i < b.n; i++) {
		double va[METRIC_MAX_REPS], vb_[METRIC_MAX_REPS];
		const struct event_samples *ta, *tb;
		const struct metric_samples *ma;
		struct compare_rule rule;
		struct tail_change tc;
		struct change ch;
		char key[256];
		size_t na, nb;

		samples_key(&b.s[i], key, sizeof(key));
		ma = sample_set_find(&a, key);
		if (!ma)
			continue;
		na = samples_measured(ma, va);
		nb = samples_measured(&b.s[i], vb_);
		if (!na || !nb)
			continue;
		rule_for(have_rules ? &vb : NULL, &b.s[i], &rule);
		if (have_events && tail_pair(&ea, &eb, &b.s[i], &ta, &tb)) {
			struct compare_rule r = rule;

			/* Unjudged: any significant move into the tail. */
			if (!r.better)
				r.better = b.s[i].def->tail == TAIL_LOW ? 1 : -1;
			compare_tail(ta, tb, b.s[i].def, &r, &ch, &tc);
			if (!rule.better && ch.kind == CHANGE_REGRESSION)
				ch.kind = CHANGE_CHANGED;
		} else {
			compare_samples(va, na, vb_, nb, &rule, &ch);
		}
		t->rows++;
		t->regressions += ch.kind == CHANGE_REGRESSION;
		t->improvements += ch.kind == CHANGE_IMPROVEMENT;
		t->changed += ch.kind == CHANGE_CHANGED;
		printf("%-22s %-18s %-26s %12.4g %12.4g %+8.1f%% %8.3g  %s%s\n",
		       workload, b.s[i].entity, b.s[i].def->name, ch.a_median,
		       ch.b_median, isnan(ch.ratio) ? 0 : 100 * ch.ratio, ch.p,
		       change_kind_name(ch.kind), rule.better ? " (judged)" : "");
	}
out:
	verdict_block_free(&vb);
	sample_set_free(&a);
	sample_set_free(&b);
	event_set_free(&ea);
	event_set_free(&eb);
}

static const char *class_check(const char *a_dir, const char *b_dir)
{
	static char why[PATH_MAX + 64];
	struct json_object *a, *b;
	char path[PATH_MAX];
	const char *mismatch;

	results_path(path, sizeof(path), a_dir, RF_FINGERPRINT);
	a = json_object_from_file(path);
	if (!a) {
		snprintf(why, sizeof(why), "%s: missing or not JSON", path);
		return why;
	}
	results_path(path, sizeof(path), b_dir, RF_FINGERPRINT);
	b = json_object_from_file(path);
	if (!b) {
		json_object_put(a);
		snprintf(why, sizeof(why), "%s: missing or not JSON", path);
		return why;
	}
	mismatch = fingerprint_class_mismatch(a, b);
	if (mismatch)
		snprintf(why, sizeof(why), "different machine classes: %s",
			 mismatch);
	json_object_put(a);
	json_object_put(b);
	return mismatch ? why : NULL;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_totals t = { 0 };
	const char *a_dir, *b_dir, *why;
	int force = 0, workloads = 0, first;
	const struct cmd_option opts[] = {
		OPT_FLAG("force", 'f', &force,
			 "compare runs of two machine classes all the same"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "[--force] RESULTS_A RESULTS_B",
		.what = "Every metric of every workload both result directories hold:\n"
			"the medians, the change, the rank test's p and a verdict, by the\n"
			"rules of the workload's baseline checks. Exit 1 when one regressed.",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
		.min_operands = 2, .max_operands = 2,
	};
	struct dirent *de;
	DIR *d;

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	a_dir = argv[first];
	b_dir = argv[first + 1];
	why = class_check(a_dir, b_dir);
	if (why && !force) {
		fprintf(stderr, "sched-workloads: refusing to compare %s and %s: %s (--force compares anyway)\n",
			a_dir, b_dir, why);
		return SW_EXIT_USAGE;
	}
	if (why)
		printf("# warning: %s\n", why);
	d = opendir(b_dir);
	if (!d) {
		fprintf(stderr, "sched-workloads: %s: cannot open\n", b_dir);
		return SW_EXIT_USAGE;
	}
	printf("%-22s %-18s %-26s %12s %12s %9s %8s  %s\n", "workload", "entity",
	       "metric", "A", "B", "change", "p", "verdict");
	while ((de = readdir(d))) {
		char probe[PATH_MAX];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		workload_file(probe, sizeof(probe), a_dir, de->d_name,
			      RF_SAMPLES);
		f = fopen(probe, "r");
		if (!f)
			continue;
		fclose(f);
		compare_workload(a_dir, b_dir, de->d_name, &t);
		workloads++;
	}
	closedir(d);
	printf("# %d workloads, %d metrics: %d regressions, %d improvements, %d other significant changes\n",
	       workloads, t.rows, t.regressions, t.improvements, t.changed);
	if (!workloads) {
		fprintf(stderr, "sched-workloads: no workload in both %s and %s\n",
			a_dir, b_dir);
		return SW_EXIT_USAGE;
	}
	return t.regressions ? SW_EXIT_FAIL : SW_EXIT_PASS;
}
