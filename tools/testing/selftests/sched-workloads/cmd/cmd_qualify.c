// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads qualify: is this machine class ready to judge kernels?
 *
 *   sched-workloads qualify [-k K] [--no-record] [-m M] [-n N] [-B DIR]
 *                           [-r DIR] [-g S] [-w DIR] [WORKLOAD...]
 *
 * Records the baselines of the workloads (unless --no-record), then runs
 * K clean batteries against them on the same kernel and prints, per
 * check, how often it passed, the least room it had (how far its value
 * stayed from its bound, or from the regression threshold) and, for an
 * absolute check, how many single repetitions fell beyond its bound: the
 * q of the rules (Documentation/dev-tools/sched-workloads/verdicts.rst),
 * which must stay below 3% for the battery to fail falsely at most once
 * in 20 runs. A check is too tight when its count shows q above 3% (a
 * one-sided binomial test, p <= 0.05): one repetition of 30 beyond a
 * bound is what a q of 0.5% gives as often as one of 10% does, and is
 * listed, not judged. From the shares seen, it also prints the false
 * failures a battery can expect under the rules' sequential vote.
 * A baseline check drifts when its first rounds regressed more often
 * than the 2 in 56 a clean round allows (judge/compare.c), by the same test:
 * the machine moves it further than its threshold, and only the
 * confirmation rounds stand between it and a false failure.
 * Per baseline check, it prints the detectable effect its verdicts
 * state (judge/detectable.h) and names the checks that cannot do their
 * job. Each battery runs as a child process, its
 * KTAP kept in battery-<k>.ktap; the record of the qualification goes
 * to baselines/<class>/qualification.json beside the baselines.
 * Exits 0 when every battery passed, 1 otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "judge/baseline.h"
#include "judge/detectable.h"
#include "lib/cleanup.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "machine/fingerprint.h"
#include "lib/stats.h"
#include "lib/util.h"
#include "judge/verdict.h"
#include "lib/results.h"
#include "run/baseline_record.h"
#include "run/battery.h"

/* The per-repetition rate beyond a bound the rules (verdicts.rst) allow. */
#define QUALIFY_MAX_Q 0.03
/* ... and the level at which a count shows a check above it */
#define QUALIFY_TIGHT_P 0.05
/*
 * The most often a clean first round of a baseline check may regress:
 * the two most extreme orderings of 3 repetitions against 5 (judge/compare.c).
 */
#define QUALIFY_MAX_REGRESSED (2.0 / 56)

/* One check across the batteries. */
struct qcheck {
	char name[160];
	char unit[16];
	int pass, fail, skip;
	double worst_room;	/* NAN until a value is seen */
	long reps, beyond;	/* absolute: repetitions, those beyond */
	long rounds, regressed;	/* baseline: first rounds, those regressed */
	char last_fail[1536];
	/* baseline: its detectable effect (judge/detectable.h), as judged */
	struct json_object *detect;
	char detect_text[256];
	int cannot;
};

struct qualify {
	struct qcheck *c;
	size_t n, cap;
	int batteries, clean;
	int confirmations, disturbed;
	double seconds;
};

static struct qcheck *qcheck_get(struct qualify *q, const char *name)
{
	struct qcheck *c;
	size_t i;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->c[i].name, name))
			return &q->c[i];
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;

		c = realloc(q->c, cap * sizeof(*c));
		if (!c)
			return NULL;
		q->c = c;
		q->cap = cap;
	}
	c = &q->c[q->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->worst_room = NAN;
	return c;
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_string(v) : "";
}

static double num_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

/* Every result of one workload's verdicts.json into the tallies. */
static int tally_file(struct qualify *q, const char *path, int *failed)
{
	struct json_object *arr = json_object_from_file(path);
	size_t i;

	if (!arr || !json_object_is_type(arr, json_type_array)) {
		json_object_put(arr);
		return -1;
	}
	for (i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *r = json_object_array_get_idx(arr, i), *d, *v;
		const char *st = str_of(r, "status");
		struct qcheck *c = qcheck_get(q, str_of(r, "name"));
		double room = num_of(r, "room"), reps = num_of(r, "reps");

		if (!c) {
			json_object_put(arr);
			return -1;
		}
		snprintf(c->unit, sizeof(c->unit), "%s", str_of(r, "unit"));
		if (!strcmp(st, "pass")) {
			c->pass++;
		} else if (!strcmp(st, "skip")) {
			c->skip++;
		} else {
			c->fail++;
			(*failed)++;
			snprintf(c->last_fail, sizeof(c->last_fail), "%s",
				 str_of(r, "diag"));
		}
		if (!isnan(room) && !(c->worst_room <= room))
			c->worst_room = room;
		if (json_object_object_get_ex(r, "detectable", &d)) {
			json_object_put(c->detect);
			c->detect = json_object_get(d);
			snprintf(c->detect_text, sizeof(c->detect_text), "%s",
				 str_of(d, "text"));
			c->cannot = json_object_object_get_ex(d, "cannot", &v) &&
				    json_object_get_boolean(v);
		}
		if (!isnan(reps)) {
			c->reps += (long)reps;
			c->beyond += (long)num_of(r, "beyond");
		}
		/* a regression the canary explained skips, and counts */
		if (!strcmp(str_of(r, "kind"), "baseline") &&
		    !strcmp(str_of(r, "change"), "regression")) {
			c->rounds++;
			c->regressed++;
		} else if (!strcmp(str_of(r, "kind"), "baseline") &&
			   strcmp(st, "skip")) {
			c->rounds++;
		}
	}
	json_object_put(arr);
	return 0;
}

/* The results directory a battery wrote under @root (the only one). */
static int tally_battery(struct qualify *q, const char *root, int *failed)
{
	char run[PATH_MAX], wdir[PATH_MAX * 2], path[PATH_MAX * 3];
	struct dirent *de;
	DIR *d = opendir(root), *w;
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    (size_t)snprintf(run, sizeof(run), "%s/%s", root,
				     de->d_name) < sizeof(run))
			found = 1;
	closedir(d);
	w = found ? opendir(run) : NULL;
	if (!w)
		return -1;
	while ((de = readdir(w))) {
		if (de->d_name[0] == '.')
			continue;
		results_workload_dir(wdir, sizeof(wdir), run, de->d_name);
		results_path(path, sizeof(path), wdir, RF_VERDICTS);
		if (!access(path, R_OK) && tally_file(q, path, failed)) {
			closedir(w);
			return -1;
		}
	}
	closedir(w);
	return 0;
}

/* What the KTAP of a battery says about its run, besides the results. */
static void tally_log(struct qualify *q, const char *path)
{
	char line[4096];
	double s;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		q->confirmations += strstr(line, ": judging ") != NULL;
		q->disturbed += strstr(line, " disturbed: ") != NULL;
		if (strstr(line, " s in all") &&
		    sscanf(strrchr(line, ':') + 1, "%lf", &s) == 1)
			q->seconds += s;
	}
	fclose(f);
}

struct qopts {
	int k, no_record;
	struct battery_opts run, record;
	char *const *names;
	int nnames;
};

/* Its repetitions beyond the bound show q above QUALIFY_MAX_Q. */
static int too_tight(const struct qcheck *c)
{
	return c->reps && c->beyond &&
	       stats_binom_at_least(c->beyond, c->reps, QUALIFY_MAX_Q) <=
	       QUALIFY_TIGHT_P;
}

/* Its first rounds regressed more often than a clean round may. */
static int drifts(const struct qcheck *c)
{
	return c->regressed &&
	       stats_binom_at_least(c->regressed, c->rounds,
				    QUALIFY_MAX_REGRESSED) <= QUALIFY_TIGHT_P;
}

/* False failures of this check a battery can expect, at its q seen. */
static double expected_false(const struct qcheck *c)
{
	if (!c->reps || !c->beyond)
		return 0;
	return stats_sequential_majority((double)c->beyond / c->reps,
					 VERDICT_LEAD, VERDICT_LEAD,
					 VERDICT_MAX_REPS);
}

static void print_report(const struct qualify *q, const char *class_name)
{
	size_t i, tight = 0, drifting = 0, failing = 0, cannot = 0;
	double expected = 0;

	printf("%-64s %4s %4s %4s %12s %8s\n", "check", "pass", "fail",
	       "skip", "least room", "beyond");
	for (i = 0; i < q->n; i++) {
		const struct qcheck *c = &q->c[i];
		char room[32] = "-", beyond[32] = "-";

		if (!isnan(c->worst_room))
			snprintf(room, sizeof(room), "%.4g %s", c->worst_room,
				 c->unit);
		if (c->reps)
			snprintf(beyond, sizeof(beyond), "%ld/%ld", c->beyond,
				 c->reps);
		printf("%-64s %4d %4d %4d %12s %8s\n", c->name, c->pass,
		       c->fail, c->skip, room, beyond);
		tight += too_tight(c);
		drifting += drifts(c);
		expected += expected_false(c);
		failing += c->fail > 0;
	}
	printf("# qualification of %s: %d batteries, %d without a failure; %zu results a battery, %zu of them failed at least once\n",
	       class_name, q->batteries, q->clean, q->batteries ? q->n : 0,
	       failing);
	printf("# %d confirmation rounds, %d disturbed repetitions, %.0f s of batteries\n",
	       q->confirmations, q->disturbed, q->seconds);
	printf("# designed for at most 1 false failure in 20 batteries: every absolute check needs under %.0f%% of its repetitions beyond its bound\n",
	       100 * QUALIFY_MAX_Q);
	printf("# at the shares of repetitions beyond the bounds seen, a battery fails falsely with probability %.2g (sequential rule of verdicts.rst)\n",
	       expected);
	for (i = 0; i < q->n; i++) {
		const struct qcheck *c = &q->c[i];

		if (too_tight(c))
			printf("# too tight: %s: %ld of %ld repetitions beyond its bound, more than %.0f%% (binomial p = %.2g)\n",
			       c->name, c->beyond, c->reps,
			       100 * QUALIFY_MAX_Q,
			       stats_binom_at_least(c->beyond, c->reps,
						    QUALIFY_MAX_Q));
		else if (c->beyond)
			printf("# beyond at times: %s: %ld of %ld repetitions, not shown above %.0f%% (binomial p = %.2g)\n",
			       c->name, c->beyond, c->reps,
			       100 * QUALIFY_MAX_Q,
			       stats_binom_at_least(c->beyond, c->reps,
						    QUALIFY_MAX_Q));
		if (drifts(c))
			printf("# drifts: %s: its first round regressed in %ld of %ld batteries, more than %.1f%% (binomial p = %.2g)\n",
			       c->name, c->regressed, c->rounds,
			       100 * QUALIFY_MAX_REGRESSED,
			       stats_binom_at_least(c->regressed, c->rounds,
						    QUALIFY_MAX_REGRESSED));
		else if (c->regressed)
			printf("# regressed at times: %s: first round in %ld of %ld batteries, not shown above %.1f%% (binomial p = %.2g)\n",
			       c->name, c->regressed, c->rounds,
			       100 * QUALIFY_MAX_REGRESSED,
			       stats_binom_at_least(c->regressed, c->rounds,
						    QUALIFY_MAX_REGRESSED));
		if (c->fail)
			printf("# failed %d times: %s: %s\n", c->fail, c->name,
			       c->last_fail);
	}
	printf("# detectable effects: the smallest change each baseline check fails on %.0f times in 100 (judge/detectable.h)\n",
	       100 * DETECT_POWER);
	for (i = 0; i < q->n; i++) {
		const struct qcheck *c = &q->c[i];

		if (!c->detect_text[0])
			continue;
		printf("# detects: %s: %s\n", c->name, c->detect_text);
		cannot += c->cannot;
	}
	if (cannot)
		printf("# %zu baseline checks cannot do their job: the spread of their repetitions, not the workload, decides what they see\n",
		       cannot);
	if (!tight)
		printf("# no absolute check too tight\n");
	if (!drifting)
		printf("# no baseline check drifts\n");
}

static int write_record(const struct qualify *q, const char *bdir,
			const struct fingerprint *fp)
{
	struct json_object *root = json_object_new_object();
	struct json_object *checks = json_object_new_object();
	char cdir[PATH_MAX], path[PATH_MAX + 32], stamp[32];
	time_t now = time(NULL);
	size_t i;
	int ret;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	json_object_object_add(root, "class",
			       json_object_new_string(fp->class_name));
	json_object_object_add(root, "date", json_object_new_string(stamp));
	json_object_object_add(root, "kernel",
			       json_object_new_string(fp->kernel_release));
	json_object_object_add(root, "batteries",
			       json_object_new_int(q->batteries));
	json_object_object_add(root, "clean_batteries",
			       json_object_new_int(q->clean));
	json_object_object_add(root, "confirmation_rounds",
			       json_object_new_int(q->confirmations));
	json_object_object_add(root, "disturbed_repetitions",
			       json_object_new_int(q->disturbed));
	json_object_object_add(root, "seconds",
			       json_object_new_double(q->seconds));
	for (i = 0; i < q->n; i++) {
		const struct qcheck *c = &q->c[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "pass", json_object_new_int(c->pass));
		json_object_object_add(j, "fail", json_object_new_int(c->fail));
		json_object_object_add(j, "skip", json_object_new_int(c->skip));
		json_object_object_add(j, "least_room", isnan(c->worst_room) ?
				       NULL : json_object_new_double(c->worst_room));
		if (c->reps) {
			json_object_object_add(j, "reps",
					       json_object_new_int64(c->reps));
			json_object_object_add(j, "beyond",
					       json_object_new_int64(c->beyond));
			json_object_object_add(j, "too_tight",
					       json_object_new_boolean(too_tight(c)));
		}
		if (c->rounds) {
			json_object_object_add(j, "first_rounds",
					       json_object_new_int64(c->rounds));
			json_object_object_add(j, "regressed",
					       json_object_new_int64(c->regressed));
			json_object_object_add(j, "drifts",
					       json_object_new_boolean(drifts(c)));
		}
		if (c->detect)
			json_object_object_add(j, "detectable",
					       json_object_get(c->detect));
		json_object_object_add(checks, c->name, j);
	}
	json_object_object_add(root, "checks", checks);
	if (baseline_class_dir(cdir, sizeof(cdir), bdir, fp->class_name,
			       fp->settings) ||
	    baseline_qualification_path(path, sizeof(path), cdir)) {
		json_object_put(root);
		return -1;
	}
	ret = json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY |
				      JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(root);
	if (!ret)
		printf("# record: %s\n", path);
	return ret;
}

static void lock_waiting(const char *path)
{
	printf("# waiting for another sched-workloads run (%s)\n", path);
	fflush(stdout);
}


static int run_qualification(const struct qopts *o, const char *root)
{
	struct battery_opts run = o->run, record = o->record;
	struct qualify q = { 0 };
	struct fingerprint fp;
	char dir[PATH_MAX], log[PATH_MAX + 32], bdir[PATH_MAX + 32], stamp[32];
	time_t now = time(NULL);
	int k, rc, failed, lock, ret = 1;

	fingerprint_read(&fp, 0);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	snprintf(dir, sizeof(dir), "%s/qualify-%s", root, stamp);
	if (mkdir_p(dir)) {
		fprintf(stderr, "sched-workloads: %s: cannot create: %s\n", dir,
			strerror(errno));
		return SW_EXIT_RUN_ERROR;
	}
	lock = live_lock_take(lock_waiting, cleanup_interrupted);
	printf("# qualifying %s: results in %s\n", fp.class_name, dir);
	if (!o->no_record) {
		snprintf(log, sizeof(log), "%s/baseline.ktap", dir);
		record.results_root = dir;
		if (baseline_class_dir(bdir, sizeof(bdir), record.baseline_dir,
				       fp.class_name, fp.settings))
			goto out;
		printf("# recording the baselines into %s (%s)\n", bdir, log);
		rc = battery_run_logged(baseline_record, &record, o->names,
					 o->nnames, log);
		if (rc) {
			printf("# recording failed (exit %d): see %s\n", rc, log);
			goto out;
		}
	}
	for (k = 1; k <= o->k && !cleanup_interrupted(); k++) {
		snprintf(bdir, sizeof(bdir), "%s/battery-%d", dir, k);
		snprintf(log, sizeof(log), "%s/battery-%d.ktap", dir, k);
		if (mkdir_p(bdir))
			goto out;
		run.results_root = bdir;
		rc = battery_run_logged(battery_run, &run, o->names, o->nnames,
					log);
		failed = 0;
		if (rc < 0 || tally_battery(&q, bdir, &failed)) {
			printf("# battery %d broke (exit %d): see %s\n", k, rc, log);
			goto out;
		}
		tally_log(&q, log);
		q.batteries++;
		q.clean += !failed && !rc;
		printf("# battery %d of %d: %s, %d results failed (%s)\n", k,
		       o->k, rc ? "FAIL" : "pass", failed, log);
		fflush(stdout);
	}
	print_report(&q, fp.class_name);
	if (q.batteries && write_record(&q, run.baseline_dir, &fp))
		printf("# cannot write the qualification record\n");
	ret = q.batteries == o->k && q.clean == q.batteries ? 0 : 1;
out:
	for (k = 0; k < (int)q.n; k++)
		json_object_put(q.c[k].detect);
	free(q.c);
	if (lock >= 0)
		close(lock);
	return ret;
}

int cmd_qualify(int argc, char **argv)
{
	struct qopts o = { .k = 10 };
	const char *root = "results";
	char bdir[PATH_MAX];
	long calibration;
	const struct cmd_option opts[] = {
		OPT_INT("batteries", 'k', &o.k, 1, 1000, "K",
			 "clean batteries run against the baselines"),
		OPT_FLAG("no-record", 0, &o.no_record,
			 "keep the baselines there are, record none"),
		OPT_REPETITIONS(&o.run.repetitions,
				"runs of each workload in a round of a battery"),
		OPT_INT("baseline-repetitions", 'm', &o.record.repetitions, 1,
			OPTIONS_REPS_MAX, "M",
			"repetitions of each workload in its baseline"),
		OPT_BASELINES(&o.run.baseline_dir),
		OPT_RESULTS(&root),
		OPT_CONFIRM_GAP(&o.run.confirm_gap_s),
		OPT_WORKLOADS(&o.run.workload_dir),
		OPT_CALIBRATION(&calibration),
	};
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "[-k K] [--no-record] [options] [WORKLOAD...]",
		.what = "Records the baselines of the workloads (unless --no-record), then\n"
			"runs K clean batteries against them on the same kernel and\n"
			"prints, per check, how often it passed and its least room.",
		.opts = opts, .nopts = ARRAY_SIZE(opts), .max_operands = -1,
	};
	int first;

	battery_opts_init(&o.run, 0);
	battery_opts_init(&o.record, 1);
	calibration = o.run.calibration;
	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	if (!o.run.baseline_dir) {
		baseline_default_dir(bdir, sizeof(bdir));
		o.run.baseline_dir = bdir;
	}
	o.run.calibration = calibration;
	/* The baselines are recorded as the batteries will run. */
	o.record.calibration = calibration;
	o.record.baseline_dir = o.run.baseline_dir;
	o.record.workload_dir = o.run.workload_dir;
	o.record.confirm_gap_s = o.run.confirm_gap_s;
	o.names = argv + first;
	o.nnames = argc - first;
	cleanup_install_handlers();
	return run_qualification(&o, root);
}
