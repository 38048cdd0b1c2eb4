/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a trace.dat keeps what, read without libtracecmd: its header, the
 * kernel's per-CPU statistics, the CPU count, and for each buffer (the top
 * level, each instance) the page size, whether its data is compressed and
 * where each CPU's ring-buffer pages lie. The pages reader
 * (trace/tracedat_read.c) walks them from here; the libtracecmd reader
 * (trace/trace_source.c) takes from here what libtracecmd's public API
 * does not tell.
 */
#ifndef SW_TRACEDAT_LAYOUT_H
#define SW_TRACEDAT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct tracedat_cpu {
	int cpu;
	uint64_t off, size;	/* its data in the file */
};

struct tracedat_buffer {
	char *name;		/* "": the top level */
	int compressed;		/* its data is in compressed chunks */
	uint32_t page_size;
	int max_cpus;		/* the highest CPU it lists, plus one */
	struct tracedat_cpu *cpus;	/* those with data, in file order */
	int ncpus;
};

struct tracedat_layout {
	const char *path;
	int fd;
	uint64_t file_size;
	int version;		/* 6 or 7 */
	int big_endian;
	int long_size;		/* the file header's: of user space */
	uint32_t page_size;	/* the file header's */
	struct ZSTD_DCtx_s *zctx;	/* for compressed sections */
	uint64_t options;	/* version 7: the first options section */
	uint64_t header_sec, formats_sec;	/* HEADER_INFO, EVENT_FORMATS */
	int cpucount;		/* the last plausible CPUCOUNT option */
	/* the most CPUs a CPUCOUNT option or a version 6 header names */
	int cpus_named;
	char *cpustats;		/* the CPUSTAT options, one after the other */
	size_t cpustats_len;
	struct tracedat_buffer *bufs;	/* in the file's order */
	int nbufs;
};

/* The files tracedat_layout_open() reads. */
enum tracedat_files {
	/*
	 * Version 7 only, uncompressed or zstd, whose timestamps need no
	 * correction (no DATE, OFFSET, TIME_SHIFT or TSC2NSEC option):
	 * those the pages reader reads itself.
	 */
	TRACEDAT_PAGES_READER,
	TRACEDAT_ANY,		/* version 6 too, any compression */
};

/*
 * Reads the layout of @path. Returns 0 with *@out set; 1 when the file is
 * not one of @files; -1 with @err set (SW_EXIT_BAD_TRACE: the file is
 * truncated, corrupt, or of no version that has one).
 */
int tracedat_layout_open(const char *path, enum tracedat_files files,
			 struct tracedat_layout **out, struct sw_err *err);
void tracedat_layout_close(struct tracedat_layout *l);
/* The buffer named @name ("": the top level), or NULL. */
const struct tracedat_buffer *
tracedat_layout_buffer(const struct tracedat_layout *l, const char *name);

/* An @n-byte number of the file's byte order at @src. */
static inline uint64_t tracedat_num(const struct tracedat_layout *l,
				    const void *src, int n)
{
	const unsigned char *b = src;
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)b[l->big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

/*
 * Sets @err to "PATH: truncated or corrupt trace.dat: @what (at byte
 * @at)" and returns -1.
 */
int tracedat_bad(const struct tracedat_layout *l, struct sw_err *err,
		 const char *what, uint64_t at);
/* Reads exactly @n bytes at @off; anything less is the file's fault. */
int tracedat_pread(const struct tracedat_layout *l, void *dst, size_t n,
		   uint64_t off, struct sw_err *err);
/*
 * The body of the version 7 section at @off, decompressed if flagged so,
 * NUL-terminated (malloc()ed); *@id and *@len set. NULL with @err set.
 */
char *tracedat_read_section(const struct tracedat_layout *l, uint64_t off,
			    int *id, size_t *len, struct sw_err *err);
/*
 * Compressed CPU data @c starts with its number of chunks; each chunk
 * with its compressed size, then the size of the whole pages of
 * @page_size bytes it holds, each checked against the file here.
 */
int tracedat_chunk_count(const struct tracedat_layout *l,
			 const struct tracedat_cpu *c, uint32_t *n,
			 struct sw_err *err);
int tracedat_chunk_header(const struct tracedat_layout *l, uint64_t at,
			  uint32_t page_size, size_t *zsize, size_t *size,
			  struct sw_err *err);
/* Every chunk header of compressed CPU data @c: all lie in the file. */
int tracedat_check_chunks(const struct tracedat_layout *l,
			  const struct tracedat_cpu *c, uint32_t page_size,
			  struct sw_err *err);

#endif /* SW_TRACEDAT_LAYOUT_H */
