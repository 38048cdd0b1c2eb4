/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace.dat opened for the analysis (trace/trace_read.c) one of two
 * ways: its pages read directly (trace/tracedat_read.c) when that reader
 * takes the file, else through libtracecmd's public API.
 */
#ifndef SW_TRACE_SOURCE_H
#define SW_TRACE_SOURCE_H

#include <traceevent/event-parse.h>

#include "lib/util.h"

struct trace_pages;
struct tracecmd_input;
struct tracedat_layout;
struct tracedat_buffer;

struct trace_source {
	struct tep_handle *tep;		/* the event formats */
	const char *buffer;		/* the buffer read; NULL: the top level */
	const char *cpustats;		/* the CPUSTAT options' text, or NULL */
	int ncpus;
	/* the pages reader's, or libtracecmd's: */
	const char *path;
	struct trace_pages *pages;
	struct tracecmd_input *top, *h;	/* the file, the buffer */
	struct tracedat_layout *layout;	/* where its data lies */
	const struct tracedat_buffer *data;	/* the buffer's, in it */
};

/*
 * Opens @path and picks the buffer named @buffer (NULL: the top level
 * when it has events, else the first instance that has); libtracecmd
 * reads it when @use_libtracecmd is set or the pages reader does not take
 * the file. Returns 0, or -1 with @err set (SW_EXIT_BAD_TRACE: not a
 * trace.dat, corrupt, truncated, or the buffer missing).
 */
int trace_source_open(const char *path, const char *buffer,
		      int use_libtracecmd, struct trace_source *src,
		      struct sw_err *err);
/*
 * Calls @fn for every event in time order, until it returns non-zero.
 * Returns 0, or -1 with @err set when the data is truncated or corrupt.
 */
int trace_source_iterate(struct trace_source *src,
			 int (*fn)(struct tep_record *rec, void *arg),
			 void *arg, struct sw_err *err);
void trace_source_close(struct trace_source *src);

#endif /* SW_TRACE_SOURCE_H */
