/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Baselines: every repetition's metric values of a workload, recorded on
 * one machine class, in baselines/<class>/<workload>.json, with what a
 * later run needs to judge itself against them: the events of the series
 * its tail checks name (lib/event_hist.h), the canary measured before each
 * repetition, and the fingerprint with the settings in force.
 */
#ifndef SW_BASELINE_H
#define SW_BASELINE_H

#include "lib/event_hist.h"
#include "machine/fingerprint.h"
#include "judge/samples.h"

/* Bumped when the meaning of recorded values changes. */
#define BASELINE_FORMAT 2

struct baseline {
	int format;
	struct sample_set samples;
	struct event_set events;	/* only the series tail checks need */
	struct sample_set canary;	/* one "repetition" per canary */
	struct json_object *fingerprint;	/* as recorded, settings too */
	char recorded[32];		/* UTC, ISO 8601 */
};

/* The default baselines/ directory, next to the binary (else ./). */
void baseline_default_dir(char *buf, size_t len);
/*
 * The directory of the baselines of machine class @class_name recorded
 * on the platform of @settings (machine/platform.h): DIR/<class>/ when
 * the baselines there were recorded on it, or when there are none yet;
 * else DIR/<class>/<platform slug>/. The first baselines of a class make
 * the platform of its directory; those of other platforms go below it.
 */
int baseline_class_dir(char *buf, size_t len, const char *dir,
		       const char *class_name, struct json_object *settings);
/* @cdir/<workload>.json, and the record of the class's qualification. */
#define BASELINE_QUALIFICATION "qualification.json"
int baseline_path(char *buf, size_t len, const char *cdir,
		  const char *workload);
int baseline_qualification_path(char *buf, size_t len, const char *cdir);
/*
 * Loads the baseline of @workload of this class and platform (@settings:
 * the run's) into @b, its file in @path. Returns 0; 1 when there is none
 * for this platform, @why saying what there is instead (the platform
 * settings that differ) and the command that records one; -1 with @err
 * set when the file is not a baseline.
 */
int baseline_find(const char *dir, const char *class_name,
		  const char *workload, struct json_object *settings,
		  struct baseline *b, char *path, size_t plen, char *why,
		  size_t wlen, struct sw_err *err);
/*
 * Loads @path into @b. Returns 1 when the file does not exist, -1 with
 * SW_EXIT_BAD_WORKLOAD naming the file and key when it is not a
 * baseline. A format 1 file (no events, no canary) loads: its tail
 * checks and canary comparisons then have nothing to use.
 */
int baseline_load(const char *path, struct baseline *b, struct sw_err *err);
void baseline_free(struct baseline *b);
/* The settings recorded with it (fingerprint "settings"), or NULL. */
struct json_object *baseline_settings(const struct baseline *b);
/*
 * Writes @path; @settings (may be NULL) replaces the fingerprint's own
 * (those of the workload's run: its sysctls applied); @keep selects the
 * series of @events to keep.
 */
int baseline_save(const char *path, const char *workload,
		  const struct fingerprint *fp, struct json_object *settings,
		  const struct sample_set *ss, const struct event_set *events,
		  int (*keep)(const struct event_samples *e, void *arg),
		  void *keep_arg, const struct sample_set *canary,
		  struct sw_err *err);

#endif /* SW_BASELINE_H */
