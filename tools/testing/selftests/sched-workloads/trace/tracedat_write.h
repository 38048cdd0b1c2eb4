/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Saving a tracefs instance's ring buffer as a version 7 trace.dat, in
 * this process. trace-cmd extract copies every event format of the kernel
 * (~2000 files, 2 MB) and /proc/kallsyms (5 MB) into each file, which costs
 * a run 0.18 s and 7.5 MB a repetition; this writes the formats of the
 * events the instance has enabled and the ring-buffer pages, and nothing
 * the analysis or `trace-cmd report` does not need. The file is written
 * under a temporary name and renamed when complete.
 */
#ifndef SW_TRACEDAT_WRITE_H
#define SW_TRACEDAT_WRITE_H

#include "lib/util.h"

struct tracefs_instance;

/*
 * Drains @inst's per-CPU buffers into @path as the top-level buffer of
 * an uncompressed version 7 trace.dat, with the instance's clock, the
 * kernel's per-CPU statistics (read before draining) and the saved
 * command lines. Tracing should be off. Returns 0, or -1 with @err set
 * (SW_EXIT_RUN_ERROR) naming the file and what failed; a failed write
 * leaves no file at @path.
 */
int trace_write(struct tracefs_instance *inst, const char *path,
		struct sw_err *err);

#endif /* SW_TRACEDAT_WRITE_H */
