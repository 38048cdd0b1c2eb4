/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SMT cores of the machine's CPUs: a CPU's core is named by the lowest
 * CPU among its thread siblings (sysfs topology/thread_siblings_list). A
 * repetition keeps them beside its trace (lib/results.h: cores.txt, a
 * "cpu core" line per CPU, in order), where the analysis reads them as
 * trace_opts.core_of, on this machine or another.
 */
#ifndef SW_CPU_CORES_H
#define SW_CPU_CORES_H

#include "lib/util.h"

struct cpu_cores {
	int *core_of;	/* [n] */
	int n;
};

/* This machine's, for every CPU it may have (online or not). */
int cpu_cores_scan(struct cpu_cores *c, struct sw_err *err);
int cpu_cores_write(const struct cpu_cores *c, const char *path,
		    struct sw_err *err);
/*
 * Reads @path. Returns 0; 1 when there is no such file; -1 with @err set
 * (SW_EXIT_BAD_LOG, naming the file and line) when it is not one.
 */
int cpu_cores_read(const char *path, struct cpu_cores *c, struct sw_err *err);
/* Whether every CPU shares its core with another. */
int cpu_cores_smt(const struct cpu_cores *c);
void cpu_cores_free(struct cpu_cores *c);

#endif /* SW_CPU_CORES_H */
