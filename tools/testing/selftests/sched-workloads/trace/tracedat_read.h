/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of one buffer of a version 7 trace.dat, read straight from its
 * ring-buffer pages (libtraceevent's kbuffer) and merged by time. This is
 * the analyzer's fast path: libtracecmd 1.3 allocates a record per event
 * and, on a zstd-compressed file, keeps every decompressed chunk and walks
 * a growing list of them (0.3 M events/s on a 10 M-event trace). Here each
 * CPU holds one batch of pages (one chunk when compressed), so memory does
 * not grow with the trace.
 *
 * It needs no libtracecmd: it parses only the event formats the analysis
 * reads, where libtracecmd parses all ~2000 a file holds (0.1 s). Files
 * it does not take (version 6, a compression other than zstd, timestamps
 * that need libtracecmd's corrections) are left to libtracecmd, which
 * gives the same events.
 *
 * Its handle, struct trace_pages, names its functions: the pages of one
 * buffer, as trace/tracedat_read.c holds them.
 */
#ifndef SW_TRACEDAT_READ_H
#define SW_TRACEDAT_READ_H

#include <traceevent/event-parse.h>

#include "lib/util.h"

struct trace_pages;

/*
 * Opens @path and reads what the analysis needs of it on its own: the
 * header page, the formats of the sched, ipi and power events, the
 * kernel's per-CPU statistics and the CPU data of buffer @buffer (NULL:
 * the top level when it has events, else the first instance that has).
 * Returns 0 with *@out set; 1 when the file is not one this reader takes
 * (the caller uses libtracecmd); -1 with @err set (SW_EXIT_BAD_TRACE) when
 * the file is truncated or its layout is corrupt, or the buffer missing.
 */
int trace_pages_open(const char *path, const char *buffer,
		     struct trace_pages **out, struct sw_err *err);
/* What trace_pages_open() read. */
struct tep_handle *trace_pages_tep(const struct trace_pages *p);
/*
 * The CPU count of the buffer: the highest CPU it lists, plus one (the
 * machine's for a top level that lists none).
 */
int trace_pages_ncpus(const struct trace_pages *p);
/* The buffer's name; NULL for the top level. */
const char *trace_pages_buffer(const struct trace_pages *p);
/* The CPUSTAT options' text, one after the other, each line ended. */
const char *trace_pages_cpustats(const struct trace_pages *p);

/*
 * Reads @buffer of a version 7 file as trace_pages_open() and
 * trace_pages_iterate() would, so that libtracecmd gets only a file whose
 * structure, pages and events are sound: its kbuffer reads past a page
 * whose event lengths are corrupt (libtracecmd 1.3.1, found by
 * fuzz_trace). Returns 0 (also for a file of another version, which only
 * libtracecmd reads), or -1 with @err set.
 */
int trace_pages_check(const char *path, const char *buffer,
		      struct sw_err *err);

/*
 * Calls @fn for every event in time order (equal times: the lower CPU
 * first); @rec has cpu, ts, data, size and missed_events set (the last
 * non-zero only on a page's first event: -1 when the count is unknown).
 * Stops when @fn returns non-zero. Returns 0, or -1 with @err set when a
 * page or chunk is corrupt or the file ends inside the data.
 */
int trace_pages_iterate(struct trace_pages *p,
			int (*fn)(struct tep_record *rec, void *arg),
			void *arg, struct sw_err *err);

void trace_pages_close(struct trace_pages *p);

#endif /* SW_TRACEDAT_READ_H */
