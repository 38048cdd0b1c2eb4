// SPDX-License-Identifier: GPL-2.0
/*
 * The pages reader (trace/tracedat_read.c) takes a version 7 file,
 * uncompressed or zstd, whose timestamps need no correction; libtracecmd
 * reads the others (version 6, another compression, DATE, OFFSET,
 * TIME_SHIFT or TSC2NSEC options), and any file when asked to, which is
 * how the tests compare the two. Only libtracecmd's public API (trace-cmd.h)
 * is used: a distribution's next libtracecmd may drop the rest. What it
 * does not tell, the CPU count, where each CPU's data lies and the
 * kernel's statistics, comes from trace/tracedat_layout.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <trace-cmd.h>

#include "lib/subprocess.h"
#include "trace/trace_source.h"
#include "trace/tracedat.h"
#include "trace/tracedat_layout.h"
#include "trace/tracedat_read.h"

/* Cheap checks that give a clear message before libtracecmd gets the file. */
static int check_file(const char *path, struct sw_err *err)
{
	char magic[10];
	struct stat st;
	FILE *f;
	size_t n;

	f = fopen(path, "rb");
	if (!f)
		return sw_err_set(err, SW_EXIT_BAD_TRACE, "%s: cannot open: %s",
				  path, strerror(errno));
	n = fread(magic, 1, sizeof(magic), f);
	if (fstat(fileno(f), &st))
		st.st_size = 0;
	fclose(f);
	if (!st.st_size)
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: empty file, not a trace.dat", path);
	if (n < sizeof(magic) || memcmp(magic, TRACEDAT_MAGIC, sizeof(magic)))
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: not a trace-cmd trace.dat (bad magic)",
				  path);
	return 0;
}

static int count_record(struct tracecmd_input *h, struct tep_record *rec,
			int cpu, void *arg)
{
	(void)h;
	(void)rec;
	(void)cpu;
	(*(unsigned long *)arg)++;
	return 0;
}

/* What libtracecmd made of the file in a child. */
enum { TRY_EVENTS, TRY_REFUSED, TRY_EMPTY };

/*
 * In a child (child_try()): libtracecmd opens the file and reads every
 * event of its top level, which tells whether it has any too. A crash is
 * libtracecmd's own.
 */
static int try_libtracecmd(void *arg)
{
	struct tracecmd_input *h;
	unsigned long n = 0;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(arg, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		return TRY_REFUSED;
	tracecmd_iterate_events(h, NULL, 0, count_record, &n);
	tracecmd_close(h);
	return n ? TRY_EVENTS : TRY_EMPTY;
}

/*
 * Whether libtracecmd finds an event in instance @i, whose data @b
 * describes; the handle is spent finding out, and closed.
 */
static int instance_has_events(struct tracecmd_input *top, int i,
			       const struct tracedat_buffer *b)
{
	struct tracecmd_input *h = tracecmd_buffer_instance_handle(top, i);
	struct tep_record *rec;
	int k, found = 0;

	/* a CPU without data has no section: reading it crashes */
	for (k = 0; h && b && k < b->ncpus && !found; k++) {
		rec = tracecmd_read_cpu_first(h, b->cpus[k].cpu);
		found = !!rec;
		tracecmd_free_record(rec);
	}
	if (h)
		tracecmd_close(h);
	return found;
}

/*
 * The top-level buffer, or a named instance, or (when the top level is
 * empty, as with `trace-cmd extract -B`) the first instance with data.
 */
static struct tracecmd_input *pick_buffer(struct trace_source *src,
					  int top_has_events, const char *want,
					  struct sw_err *err)
{
	int i, n = tracecmd_buffer_instances(src->top);
	struct tracecmd_input *h;

	src->buffer = NULL;
	if (!want && (top_has_events || !n))
		return src->top;
	for (i = 0; i < n; i++) {
		const char *bn = tracecmd_buffer_instance_name(src->top, i);

		if (!bn || (want && strcmp(bn, want)))
			continue;
		if (!want &&
		    !instance_has_events(src->top, i,
					 tracedat_layout_buffer(src->layout, bn)))
			continue;
		h = tracecmd_buffer_instance_handle(src->top, i);
		if (h) {
			src->buffer = bn;
			return h;
		}
	}
	if (want) {
		sw_err_set(err, SW_EXIT_BAD_TRACE,
			   "%s: no buffer named '%s' in the trace", src->path,
			   want);
		return NULL;
	}
	return src->top;	/* every buffer is empty */
}

/*
 * The CPU count libtracecmd gives the buffer read (its tracecmd_cpus(),
 * not in trace-cmd.h): the most CPUs that a CPU count of the file, the
 * top level's CPU data or the buffer's name.
 */
static int cpus_as_libtracecmd_counts(const struct trace_source *src)
{
	const struct tracedat_buffer *top;
	int n = src->layout->cpus_named;

	top = tracedat_layout_buffer(src->layout, "");
	if (top && top->max_cpus > n)
		n = top->max_cpus;
	if (src->data && src->data->max_cpus > n)
		n = src->data->max_cpus;
	return n;
}

/*
 * trace/tracedat_read.c when it takes the file, else libtracecmd,
 * checked first where it would read unchecked.
 */
static int source_open(const char *path, const char *buffer,
		       int use_libtracecmd, struct trace_source *src,
		       struct sw_err *err)
{
	int rc = 1, tried;

	if (!use_libtracecmd)
		rc = trace_pages_open(path, buffer, &src->pages, err);
	if (rc < 0)
		return -1;
	if (!rc) {
		src->tep = trace_pages_tep(src->pages);
		src->buffer = trace_pages_buffer(src->pages);
		src->cpustats = trace_pages_cpustats(src->pages);
		src->ncpus = trace_pages_ncpus(src->pages);
		return 0;
	}
	if (trace_pages_check(path, buffer, err))
		return -1;
	/*
	 * What trace/tracedat_read.c cannot check (a version 6 file; the
	 * formats of systems it does not parse) libtracecmd 1.3.1 may crash
	 * on: it reads the file in a child first.
	 */
	tried = child_try(try_libtracecmd, (void *)path);
	if (tried < 0)
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: corrupt trace.dat (libtracecmd crashes reading it)",
				  path);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	src->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!src->top)
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: corrupt or truncated trace.dat (libtracecmd cannot open it)",
				  path);
	if (tracedat_layout_open(path, TRACEDAT_ANY, &src->layout, err))
		return -1;
	src->h = pick_buffer(src, tried == TRY_EVENTS, buffer, err);
	if (!src->h)
		return -1;
	src->data = tracedat_layout_buffer(src->layout,
					   src->buffer ? src->buffer : "");
	src->tep = tracecmd_get_tep(src->h);
	src->cpustats = src->layout->cpustats;
	src->ncpus = cpus_as_libtracecmd_counts(src);
	return 0;
}

int trace_source_open(const char *path, const char *buffer,
		      int use_libtracecmd, struct trace_source *src,
		      struct sw_err *err)
{
	memset(src, 0, sizeof(*src));
	src->path = path;
	if (check_file(path, err))
		return -1;
	if (source_open(path, buffer, use_libtracecmd, src, err)) {
		trace_source_close(src);
		return -1;
	}
	return 0;
}

/*
 * libtracecmd refuses most truncated files at open, but make sure that
 * each CPU's data can be read to its end before it reads them. In
 * uncompressed data, the pages are read whole: the last one must lie
 * within the file. In compressed data, where record offsets are offsets
 * in the decompressed data, which may well be larger than the file, a cut
 * shows as a chunk that runs past the end of the file. (A cut inside the
 * trailing section-name strings of a v7 file goes unnoticed by libtracecmd
 * and by us; no event is lost then.)
 */
static int check_whole(const struct trace_source *src, struct sw_err *err)
{
	const struct tracedat_buffer *b = src->data;
	const struct tracedat_layout *l = src->layout;
	int i;

	for (i = 0; b && i < b->ncpus; i++) {
		const struct tracedat_cpu *c = &b->cpus[i];
		struct sw_err why = { 0 };
		uint64_t end;

		if (b->compressed) {
			if (tracedat_check_chunks(l, c, b->page_size, &why))
				return sw_err_set(err, SW_EXIT_BAD_TRACE,
						  "%s: truncated or corrupt: the compressed data of CPU %d cannot be read to its end",
						  src->path, c->cpu);
			continue;
		}
		end = (c->off + c->size - 1) / b->page_size * b->page_size +
		      b->page_size;
		if (end > l->file_size)
			return sw_err_set(err, SW_EXIT_BAD_TRACE,
					  "%s: truncated: CPU %d data runs past the end of the file",
					  src->path, c->cpu);
	}
	return 0;
}

struct iterate_arg {
	int (*fn)(struct tep_record *rec, void *arg);
	void *arg;
	int stopped;		/* by fn, not by an error */
};

static int on_record(struct tracecmd_input *h, struct tep_record *rec,
		     int cpu, void *data)
{
	struct iterate_arg *rd = data;

	(void)h;
	(void)cpu;	/* rec->cpu says the same */
	if (!rd->fn(rec, rd->arg))
		return 0;
	rd->stopped = 1;
	return -1;	/* 1.3.1 stops only on a negative return */
}

int trace_source_iterate(struct trace_source *src,
			 int (*fn)(struct tep_record *rec, void *arg),
			 void *arg, struct sw_err *err)
{
	struct iterate_arg rd = { fn, arg, 0 };

	if (src->pages)
		return trace_pages_iterate(src->pages, fn, arg, err);
	if (check_whole(src, err))
		return -1;
	if (tracecmd_iterate_events(src->h, NULL, 0, on_record, &rd) < 0 &&
	    !rd.stopped)
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: error while reading the events",
				  src->path);
	return 0;
}

void trace_source_close(struct trace_source *src)
{
	trace_pages_close(src->pages);
	tracedat_layout_close(src->layout);
	if (src->h && src->h != src->top)
		tracecmd_close(src->h);
	if (src->top)
		tracecmd_close(src->top);
	memset(src, 0, sizeof(*src));
}
