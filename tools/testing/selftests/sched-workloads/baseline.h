/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Baselines: every repetition's metric values of a workload, recorded on
 * one machine class, in baselines/<class>/<workload>.json.
 */
#ifndef SW_BASELINE_H
#define SW_BASELINE_H

#include "fingerprint.h"
#include "samples.h"

/* The default baselines/ directory, next to the binary. */
int baseline_default_dir(char *buf, size_t len);
int baseline_path(char *buf, size_t len, const char *dir,
		  const char *class_name, const char *workload);
/*
 * Loads @path into @ss; @fp (may be NULL) gets the recorded fingerprint
 * (json_object_put() it). Returns 1 when the file does not exist.
 */
int baseline_load(const char *path, struct sample_set *ss,
		  struct json_object **fp, struct sw_err *err);
int baseline_save(const char *path, const char *workload,
		  const struct fingerprint *fp, const struct sample_set *ss,
		  struct sw_err *err);

#endif /* SW_BASELINE_H */
