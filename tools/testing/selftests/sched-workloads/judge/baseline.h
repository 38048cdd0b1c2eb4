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
int baseline_path(char *buf, size_t len, const char *dir,
		  const char *class_name, const char *workload);
/* The record of the class's qualification: DIR/<class>/qualification.json */
int baseline_qualification_path(char *buf, size_t len, const char *dir,
				const char *class_name);
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
