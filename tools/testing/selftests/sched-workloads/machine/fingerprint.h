/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What identifies the machine and the kernel a run measured.
 *
 * The machine class (arch, CPUs, topology, CPU model, virtualised or
 * not) decides which baselines a run may be compared with; the kernel and
 * rt-app parts are what such a comparison is about, so they are recorded
 * but do not change the class; so are the settings in force (machine/sched_settings.h).
 */
#ifndef SW_FINGERPRINT_H
#define SW_FINGERPRINT_H

#include <json-c/json.h>
#include "lib/util.h"

struct fingerprint {
	/* The machine class. */
	char arch[32];
	int cpus_online;
	char topology[64];	/* "1 package, 2 cores, 1 thread per core" */
	char model[128];
	int virtualized;
	/*
	 * What runs the kernel when its CPUs cannot say: "" or, in the
	 * guests of "sched-workloads vm", e.g. "qemu7.2-flat2-icount".
	 */
	char vm[48];
	char class_name[208];	/* "x86_64-2cpu-intel-xeon-processor-vm" */
	/* The kernel and the tools. */
	char kernel_release[128];
	char kernel_version[160];
	char preempt[32];	/* preemption model in force */
	int hz;			/* CONFIG_HZ, 0 when unknown */
	char rtapp[64];		/* rt-app package version or "unknown" */
	long calibration;
	/* What shapes scheduling here (settings_read()), owned. */
	struct json_object *settings;
	/*
	 * What made a deterministic guest (the object in the file
	 * $SCHED_WORKLOADS_MADE_BY, which "sched-workloads vm" writes:
	 * commit, binary, userspace, QEMU, kernel), owned; NULL elsewhere.
	 */
	struct json_object *made_by;
};

/* Fills @fp, which fingerprint_free() then releases. */
int fingerprint_read(struct fingerprint *fp, long calibration);
/* Releases @fp's settings; a zeroed @fp is fine. */
void fingerprint_free(struct fingerprint *fp);
struct json_object *fingerprint_to_json(const struct fingerprint *fp);
/* Why two fingerprints are not the same class, or NULL when they are. */
const char *fingerprint_class_mismatch(struct json_object *a,
				       struct json_object *b);

#endif /* SW_FINGERPRINT_H */
