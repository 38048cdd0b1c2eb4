// SPDX-License-Identifier: GPL-2.0
/*
 * A/B comparison of two runs of the battery.
 *
 * For every workload both runs have, every metric both measured: the
 * medians, the change, the rank test's p and a verdict. Metrics a
 * workload's "baseline" checks name are judged by those checks' rules
 * (direction, smallest change that matters); the others only say
 * "changed" when the change is significant. Exit 1 when a judged metric
 * regressed.
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd_compare.h"
#include "compare.h"
#include "fingerprint.h"
#include "samples.h"
#include "verdict.h"
#include "workload.h"

struct compare_totals {
	int rows, regressions, improvements, changed;
};

/* Tails move a lot with noise: judged by ranges, not by ranks. */
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

static int load_samples(const char *dir, const char *workload,
			struct sample_set *ss, struct sw_err *err)
{
	struct json_object *o;
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/%s/samples.json", dir, workload);
	o = json_object_from_file(path);
	if (!o)
		return sw_err_set(err, SW_EXIT_USAGE,
				  "%s: missing or not JSON: not a result directory of this tool",
				  path);
	ret = sample_set_from_json(ss, o, path, err);
	json_object_put(o);
	return ret;
}

/* The verdict block of the workload as run B ran it, if it parses. */
static int load_rules(const char *dir, const char *workload,
		      struct verdict_block *vb)
{
	struct sw_err err = { 0 };
	char path[PATH_MAX];
	struct workload w;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/%s.json", dir, workload, workload);
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
	struct verdict_block vb = { 0 };
	int have_rules;
	struct sw_err err = { 0 };
	size_t i;

	if (load_samples(a_dir, workload, &a, &err) ||
	    load_samples(b_dir, workload, &b, &err)) {
		printf("%s: %s\n", workload, err.msg);
		goto out;
	}
	have_rules = !load_rules(b_dir, workload, &vb);
	for (i = 0; i < b.n; i++) {
		double va[SAMPLES_MAX_REPS], vb_[SAMPLES_MAX_REPS];
		const struct metric_samples *ma;
		struct compare_rule rule;
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
		compare_samples(va, na, vb_, nb, &rule, &ch);
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
}

static const char *class_check(const char *a_dir, const char *b_dir)
{
	static char why[PATH_MAX + 64];
	struct json_object *a, *b;
	char path[PATH_MAX];
	const char *mismatch;

	snprintf(path, sizeof(path), "%s/fingerprint.json", a_dir);
	a = json_object_from_file(path);
	if (!a) {
		snprintf(why, sizeof(why), "%s: missing or not JSON", path);
		return why;
	}
	snprintf(path, sizeof(path), "%s/fingerprint.json", b_dir);
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

static const struct option compare_opts[] = {
	{ "force", no_argument, NULL, 'f' },
	{ NULL, 0, NULL, 0 },
};

int cmd_compare(int argc, char **argv)
{
	struct compare_totals t = { 0 };
	const char *a_dir, *b_dir, *why;
	int c, force = 0, workloads = 0;
	struct dirent *de;
	DIR *d;

	while ((c = getopt_long(argc, argv, "f", compare_opts, NULL)) != -1) {
		if (c != 'f')
			goto usage;
		force = 1;
	}
	if (argc - optind != 2)
		goto usage;
	a_dir = argv[optind];
	b_dir = argv[optind + 1];
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
		snprintf(probe, sizeof(probe), "%s/%s/samples.json", a_dir,
			 de->d_name);
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
usage:
	fprintf(stderr, "usage: sched-workloads compare [--force] RESULTS_A RESULTS_B\n");
	return SW_EXIT_USAGE;
}
