// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads replay: the run protocol of one workload again, on the
 * repetitions and canaries a run recorded, against a baseline.
 *
 *   sched-workloads replay [-n N] [--baseline FILE | -B DIR] RESULTS/<workload>
 *
 * The directory is what the battery wrote for a workload: the workload
 * file as run, rounds.json (each round's repetitions rep-<K>, its start
 * and its canary), rep-<K>/metrics.json and events.json, settings.json.
 * The protocol takes repetitions from the round they were recorded in,
 * in order, as it would take them live: a split check takes more of
 * them, a regression asks for the next round; when a round has no more,
 * it is judged on what there is and a diagnostic says so. So the rules
 * (Documentation/dev-tools/sched-workloads/verdicts.rst) can be tried on
 * a recording, and tested on fixtures.
 * Without a baseline (neither option, and none of this machine class in
 * the default directory), baseline checks skip.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/baseline.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "run/battery.h"
#include "run/ktap.h"
#include "run/rounds.h"
#include "run/repetition.h"
#include "rtapp/workload.h"
#include "lib/results.h"

struct replay {
	const char *dir;
	struct json_object *rounds;	/* rounds.json */
	size_t used[VERDICT_ROUNDS];	/* repetitions handed out */
};

static struct json_object *round_obj(const struct replay *rp, size_t round)
{
	return round < json_object_array_length(rp->rounds) ?
	       json_object_array_get_idx(rp->rounds, round) : NULL;
}

static int replay_rep(void *ctx, size_t round, struct metric_set *set,
		      int *id, char *why, size_t len, struct sw_err *err)
{
	struct replay *rp = ctx;
	struct json_object *o = round_obj(rp, round), *reps;
	char dir[PATH_MAX];

	if (!o || !json_object_object_get_ex(o, "reps", &reps)) {
		snprintf(why, len, "the recording has no round %zu", round + 1);
		return 1;
	}
	if (rp->used[round] >= json_object_array_length(reps)) {
		snprintf(why, len,
			 "the recording has no more repetitions for round %zu (%zu used)",
			 round + 1, rp->used[round]);
		return 1;
	}
	*id = json_object_get_int(json_object_array_get_idx(reps,
							   rp->used[round]++));
	results_rep_dir(dir, sizeof(dir), rp->dir, *id);
	return repetition_load(dir, set, err);
}

static int replay_canary(void *ctx, size_t round, struct metric_set *set,
			 char *why, size_t len, struct sw_err *err)
{
	struct replay *rp = ctx;
	struct json_object *o = round_obj(rp, round), *c;
	struct sample_set ss;
	char file[PATH_MAX];
	int ret;

	if (!o || !json_object_object_get_ex(o, "canary", &c)) {
		snprintf(why, len, "no canary recorded for round %zu", round + 1);
		return 1;
	}
	results_path(file, sizeof(file), rp->dir, RF_ROUNDS);
	if (sample_set_from_json(&ss, c, file, err))
		return -1;
	ret = ss.reps ? sample_set_rep_values(&ss, 0, set) : 1;
	sample_set_free(&ss);
	if (ret > 0)
		snprintf(why, len, "an empty canary for round %zu", round + 1);
	return ret < 0 ? sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory") :
	       ret;
}

static double replay_now(void *ctx, size_t round)
{
	struct json_object *o = round_obj(ctx, round), *t;

	return o && json_object_object_get_ex(o, "start_s", &t) ?
	       json_object_get_double(t) : 0;
}

/* The baseline: the file given, or this machine class's in -B DIR. */
static int find_baseline(const char *file, const char *bdir, const char *dir,
			 const char *name, struct baseline *b, char *no_base,
			 size_t len, struct sw_err *err)
{
	struct json_object *fp = NULL, *cls;
	char path[PATH_MAX], parent[PATH_MAX];
	int ret;

	if (file) {
		ret = baseline_load(file, b, err);
		if (ret > 0)
			return sw_err_set(err, SW_EXIT_USAGE, "%s: no such file",
					  file);
		return ret;
	}
	snprintf(parent, sizeof(parent), "%s", dir);
	results_path(path, sizeof(path), dirname(parent), RF_FINGERPRINT);
	fp = json_object_from_file(path);
	if (!fp || !json_object_object_get_ex(fp, "class", &cls)) {
		snprintf(no_base, len, "no baseline: %.400s names no machine class",
			 path);
		json_object_put(fp);
		return 1;
	}
	/* the baseline of the run's class and platform */
	ret = baseline_find(bdir, json_object_get_string(cls), name,
			    json_object_object_get(fp, "settings"), b, path,
			    sizeof(path), no_base, len, err);
	json_object_put(fp);
	return ret;
}

static int replay_dir(const char *dir, const char *file, const char *bdir,
		  int reps, struct sw_err *err)
{
	struct replay rp = { .dir = dir };
	struct rounds p = { 0 };
	struct rounds_source src = {
		.ctx = &rp, .rep = replay_rep, .canary = replay_canary,
		.now = replay_now,
	};
	char path[PATH_MAX], copy[PATH_MAX], no_base[SW_ERR_LEN] = "";
	struct verdict_block vb = { 0 };
	struct baseline base = { 0 };
	struct workload w = { 0 };
	int missing, ret = -1, r;
	enum verdict_status st;

	snprintf(copy, sizeof(copy), "%s", dir);
	results_workload_copy(path, sizeof(path), dir, basename(copy));
	if (workload_load(path, &w, err) ||
	    verdict_parse(w.block, path, &vb, err))
		goto out;
	results_path(path, sizeof(path), dir, RF_ROUNDS);
	rp.rounds = json_object_from_file(path);
	if (!rp.rounds || !json_object_is_type(rp.rounds, json_type_array)) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			   "%s: missing, or not an array of rounds", path);
		goto out;
	}
	missing = find_baseline(file, bdir, dir, w.name, &base, no_base,
				sizeof(no_base), err);
	if (missing < 0)
		goto out;
	results_path(path, sizeof(path), dir, RF_SETTINGS);
	p.settings = json_object_from_file(path);
	p.name = w.name;
	p.vb = &vb;
	p.base = missing ? NULL : &base;
	p.no_base = no_base;
	p.extend = reps >= VERDICT_LEAD;
	p.confirm = 1;

	ktap_begin(1);
	ktap_diag("%s: %s (replayed from %s)", w.name, w.description, dir);
	do {
		r = rounds_next(&p, &src, reps, err);
		if (r < 0)
			goto out;
		ktap_diag("replay: round %zu: %zu repetitions%s%s", p.nrounds,
			  p.round[p.nrounds - 1].cur.reps,
			  p.stopped[0] ? "; " : "", p.stopped);
	} while (!r && rounds_pending(&p));
	st = verdict_overall(&p.res);
	ktap_subtests(&p.res);
	ktap_result(w.name, st, p.stopped[0] ? p.stopped : "every check skipped");
	ret = 0;
out:
	rounds_free(&p);
	json_object_put(p.settings);
	json_object_put(rp.rounds);
	baseline_free(&base);
	verdict_block_free(&vb);
	workload_free(&w);
	return ret;
}

int cmd_replay(int argc, char **argv)
{
	const char *file = NULL, *bdir = NULL;
	int reps = BATTERY_REPS, first;
	const struct cmd_option opts[] = {
		OPT_TEXT("baseline", 0, &file, "FILE",
			 "the baseline to judge against (not with -B)"),
		OPT_BASELINES(&bdir),
		OPT_REPETITIONS(&reps, "repetitions of a round, as a run takes them"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0],
		.synopsis = "[-n N] [--baseline FILE | -B DIR] RESULTS/WORKLOAD",
		.what = "The run protocol again on the repetitions and canaries a run\n"
			"recorded there, against a baseline (by default this machine\n"
			"class's in the directory next to the binary).",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
		.min_operands = 1, .max_operands = 1,
	};
	char def[PATH_MAX];
	struct sw_err err = { 0 };

	first = options_parse(&u, argc, argv);
	if (first < 0)
		return options_exit(first);
	if (file && bdir) {
		options_usage(&u, stderr);
		return SW_EXIT_USAGE;
	}
	if (!bdir) {
		baseline_default_dir(def, sizeof(def));
		bdir = def;
	}
	if (replay_dir(argv[first], file, bdir, reps, &err)) {
		fprintf(stderr, "sched-workloads: %s\n", err.msg);
		return err.code;
	}
	return ktap_finish();
}
