// SPDX-License-Identifier: GPL-2.0
/*
 * A version 7 trace.dat (trace-cmd.dat.v7(5)) starts with a small header
 * and the offset of its first options section; options sections chain by
 * their DONE option. A BUFFER option names one buffer (instance) and gives,
 * per CPU, where its ring-buffer pages lie; that data is raw pages, or,
 * when the buffer's section is flagged compressed, a count of chunks each
 * holding whole pages as one compressed frame.
 *
 * A version 6 file (trace-cmd.dat.v6(5)) has no sections: after the same
 * header come the header page and event, the ftrace and event formats,
 * kallsyms, the printk formats and the cmdlines, each with its size; then
 * the CPU count, the options, and each CPU's offset and size. An
 * instance's BUFFER option gives the offset of its own CPU entries.
 *
 * Every number and offset read here is checked against the file before it
 * is used: the file may come from anywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "lib/cpubits.h"
#include "trace/tracedat.h"
#include "trace/tracedat_layout.h"

#define TL_MAX_SECTIONS		4096
#define TL_MAX_OPTIONS		(1 << 24)	/* bytes of one options section */
#define TL_MAX_CHUNK		(64 << 20)	/* trace-cmd writes 10 pages */

int tracedat_bad(const struct tracedat_layout *l, struct sw_err *err,
		 const char *what, uint64_t at)
{
	return sw_err_set(err, SW_EXIT_BAD_TRACE,
			  "%s: truncated or corrupt trace.dat: %s (at byte %llu)",
			  l->path, what, (unsigned long long)at);
}

static int oom(const struct tracedat_layout *l, struct sw_err *err)
{
	return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory", l->path);
}

int tracedat_pread(const struct tracedat_layout *l, void *dst, size_t n,
		   uint64_t off, struct sw_err *err)
{
	size_t got = 0;

	if (off > l->file_size || n > l->file_size - off)
		return tracedat_bad(l, err, "data runs past the end of the file",
				    off);
	while (got < n) {
		ssize_t r = pread(l->fd, (char *)dst + got, n - got, off + got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return sw_err_set(err, SW_EXIT_BAD_TRACE,
					  "%s: read error at byte %llu: %s",
					  l->path,
					  (unsigned long long)(off + got),
					  r ? strerror(errno) : "end of file");
		got += r;
	}
	return 0;
}

char *tracedat_read_section(const struct tracedat_layout *l, uint64_t off,
			    int *id, size_t *len, struct sw_err *err)
{
	unsigned char h[16];
	uint64_t size, usize;
	char *raw, *out;
	size_t r;

	if (tracedat_pread(l, h, sizeof(h), off, err))
		return NULL;
	*id = tracedat_num(l, h, 2);
	size = tracedat_num(l, h + 8, 8);
	if (size > TL_MAX_OPTIONS) {
		tracedat_bad(l, err, "implausible section size", off);
		return NULL;
	}
	raw = malloc(size + 1);
	if (!raw) {
		oom(l, err);
		return NULL;
	}
	if (tracedat_pread(l, raw, size, off + sizeof(h), err))
		goto fail;
	if (!(tracedat_num(l, h + 2, 2) & TRACEDAT_SEC_COMPRESSED)) {
		raw[size] = '\0';
		*len = size;
		return raw;
	}
	usize = size < 8 ? 0 : tracedat_num(l, raw + 4, 4);
	if (size < 8 || tracedat_num(l, raw, 4) != size - 8 ||
	    usize > TL_MAX_OPTIONS) {
		tracedat_bad(l, err, "bad compressed section header", off);
		goto fail;
	}
	out = malloc(usize + 1);
	if (!out) {
		oom(l, err);
		goto fail;
	}
	r = ZSTD_decompressDCtx(l->zctx, out, usize, raw + 8, size - 8);
	free(raw);
	if (ZSTD_isError(r) || r != usize) {
		free(out);
		tracedat_bad(l, err, "compressed section does not decompress",
			     off);
		return NULL;
	}
	out[usize] = '\0';
	*len = usize;
	return out;
fail:
	free(raw);
	return NULL;
}

int tracedat_chunk_count(const struct tracedat_layout *l,
			 const struct tracedat_cpu *c, uint32_t *n,
			 struct sw_err *err)
{
	unsigned char b[4];

	if (c->size < 4)
		return tracedat_bad(l, err,
				    "compressed CPU data without a chunk count",
				    c->off);
	if (tracedat_pread(l, b, 4, c->off, err))
		return -1;
	*n = tracedat_num(l, b, 4);
	return 0;
}

int tracedat_chunk_header(const struct tracedat_layout *l, uint64_t at,
			  uint32_t page_size, size_t *zsize, size_t *size,
			  struct sw_err *err)
{
	unsigned char h[8];

	if (tracedat_pread(l, h, 8, at, err))
		return -1;
	*zsize = tracedat_num(l, h, 4);
	*size = tracedat_num(l, h + 4, 4);
	if (*zsize > l->file_size - at - 8 || !*size ||
	    *size > TL_MAX_CHUNK || *size % page_size)
		return tracedat_bad(l, err, "bad compressed chunk header", at);
	return 0;
}

int tracedat_check_chunks(const struct tracedat_layout *l,
			  const struct tracedat_cpu *c, uint32_t page_size,
			  struct sw_err *err)
{
	uint64_t at = c->off + 4;
	size_t zsize, size;
	uint32_t n;

	if (tracedat_chunk_count(l, c, &n, err))
		return -1;
	for (; n; n--) {
		if (tracedat_chunk_header(l, at, page_size, &zsize, &size, err))
			return -1;
		at += 8 + zsize;
	}
	return 0;
}

/* A new buffer at the end of l->bufs, named @name (copied), or NULL. */
static struct tracedat_buffer *add_buffer(struct tracedat_layout *l,
					  const char *name, uint32_t ncpus,
					  struct sw_err *err)
{
	struct tracedat_buffer *b;

	b = realloc(l->bufs, (l->nbufs + 1) * sizeof(*b));
	if (!b) {
		oom(l, err);
		return NULL;
	}
	l->bufs = b;
	b = &l->bufs[l->nbufs++];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->cpus = calloc(ncpus ? ncpus : 1, sizeof(*b->cpus));
	if (!b->name || !b->cpus) {
		oom(l, err);
		return NULL;
	}
	return b;
}

/* Appends the version 7 BUFFER option @d (@n bytes) to l->bufs. */
static int parse_buffer(struct tracedat_layout *l, const char *d, size_t n,
			uint64_t at, struct sw_err *err)
{
	const char *name = d + 8, *clock, *q;
	struct tracedat_buffer *b;
	unsigned char h[16];
	uint32_t count, page_size, i;

	if (n < 10 || !memchr(name, '\0', n - 8))
		return tracedat_bad(l, err, "bad BUFFER option", at);
	clock = name + strlen(name) + 1;
	if (clock >= d + n || !memchr(clock, '\0', d + n - clock))
		return tracedat_bad(l, err, "bad BUFFER option", at);
	q = clock + strlen(clock) + 1;
	if (q + 8 > d + n)
		return tracedat_bad(l, err, "bad BUFFER option", at);
	page_size = tracedat_num(l, q, 4);
	count = tracedat_num(l, q + 4, 4);
	q += 8;
	if (page_size < 64 || page_size > (1 << 24) ||
	    (page_size & (page_size - 1)) ||
	    count > CPUBITS_MAX_CPUS || (size_t)(d + n - q) < count * 20ULL)
		return tracedat_bad(l, err, "bad BUFFER option", at);
	/*
	 * libtracecmd 1.3.1 pages through a buffer by the header's page
	 * size: a header that says otherwise has it read 200 events of
	 * 1262 without a word (found by fuzz_trace).
	 */
	if (page_size != l->page_size)
		return tracedat_bad(l, err,
				    "the file's page size is not its buffer's",
				    14);
	if (tracedat_pread(l, h, sizeof(h), tracedat_num(l, d, 8), err))
		return -1;
	b = add_buffer(l, name, count, err);
	if (!b)
		return -1;
	b->page_size = page_size;
	b->compressed = !!(tracedat_num(l, h + 2, 2) & TRACEDAT_SEC_COMPRESSED);
	for (i = 0; i < count; i++, q += 20) {
		struct tracedat_cpu *c = &b->cpus[b->ncpus];
		int k;

		c->cpu = tracedat_num(l, q, 4);
		c->off = tracedat_num(l, q + 4, 8);
		c->size = tracedat_num(l, q + 12, 8);
		if (c->cpu < 0 || c->cpu >= CPUBITS_MAX_CPUS)
			return tracedat_bad(l, err,
					    "BUFFER option names an impossible CPU",
					    at);
		for (k = 0; k < b->ncpus; k++)
			if (b->cpus[k].cpu == c->cpu)
				return tracedat_bad(l, err,
						    "BUFFER option names a CPU twice",
						    at);
		if (c->off > l->file_size || c->size > l->file_size - c->off)
			return tracedat_bad(l, err,
					    "CPU data runs past the end of the file",
					    c->off);
		if (c->cpu + 1 > b->max_cpus)
			b->max_cpus = c->cpu + 1;
		if (c->size)
			b->ncpus++;
	}
	return 0;
}

static int add_cpustat(struct tracedat_layout *l, const char *d, size_t n,
		       struct sw_err *err)
{
	char *s;

	if (!n)
		return 0;
	s = realloc(l->cpustats, l->cpustats_len + n + 1);
	if (!s)
		return oom(l, err);
	memcpy(s + l->cpustats_len, d, n);
	/* each ends in a NUL: a line break instead, as libtracecmd does */
	s[l->cpustats_len + n - 1] = '\n';
	l->cpustats_len += n;
	s[l->cpustats_len] = '\0';
	l->cpustats = s;
	return 0;
}

/* A CPU count the file names (libtracecmd keeps the largest). */
static void count_cpus(struct tracedat_layout *l, uint32_t n)
{
	if (n <= CPUBITS_MAX_CPUS)
		l->cpucount = n;
	if ((int32_t)n > l->cpus_named)
		l->cpus_named = (int32_t)n;
}

/*
 * One option, but a version 6 file's BUFFER. Returns 0, 1 (a file the
 * pages reader leaves to libtracecmd) or -1.
 */
static int take_option(struct tracedat_layout *l, enum tracedat_files files,
		       int opt, const char *o, size_t n, uint64_t at,
		       struct sw_err *err)
{
	switch (opt) {
	case TRACEDAT_OPT_DATE:
	case TRACEDAT_OPT_OFFSET:
	case TRACEDAT_OPT_TIME_SHIFT:
	case TRACEDAT_OPT_TSC2NSEC:
		/* timestamps to correct: libtracecmd's job */
		return files == TRACEDAT_PAGES_READER;
	case TRACEDAT_OPT_BUFFER:
		return parse_buffer(l, o, n, at, err);
	case TRACEDAT_OPT_CPUSTAT:
		return add_cpustat(l, o, n, err);
	case TRACEDAT_OPT_CPUCOUNT:
		if (n >= 4)
			count_cpus(l, tracedat_num(l, o, 4));
		return 0;
	case TRACEDAT_OPT_HEADER_INFO:
		if (n >= 8)
			l->header_sec = tracedat_num(l, o, 8);
		return 0;
	case TRACEDAT_OPT_EVENT_FORMATS:
		if (n >= 8)
			l->formats_sec = tracedat_num(l, o, 8);
		return 0;
	}
	return 0;
}

/*
 * Walks the chain of options sections of a version 7 file, collecting
 * the buffers, the kernel's per-CPU statistics and where the formats
 * are. Returns 0, 1 (timestamps to correct, see take_option()), -1.
 */
static int walk_options(struct tracedat_layout *l, enum tracedat_files files,
			struct sw_err *err)
{
	uint64_t off = l->options;
	int sections = 0;

	while (off) {
		size_t len, at = 0;
		uint64_t next = 0;
		int id, rc = 0;
		char *d;

		if (++sections > TL_MAX_SECTIONS)
			return tracedat_bad(l, err, "options sections loop", off);
		d = tracedat_read_section(l, off, &id, &len, err);
		if (!d)
			return -1;
		if (id != TRACEDAT_OPT_DONE)
			rc = tracedat_bad(l, err, "not an options section", off);
		while (!rc && at + 6 <= len) {
			int opt = tracedat_num(l, d + at, 2);
			uint64_t n = tracedat_num(l, d + at + 2, 4);
			const char *o = d + at + 6;

			if (n > len - at - 6) {
				rc = tracedat_bad(l, err,
						  "option runs past its section",
						  off);
				break;
			}
			at += 6 + n;
			if (opt == TRACEDAT_OPT_DONE) {
				next = n >= 8 ? tracedat_num(l, o, 8) : 0;
				break;
			}
			rc = take_option(l, files, opt, o, n, off, err);
		}
		free(d);
		if (rc)
			return rc;
		off = next;
	}
	return 0;
}

/* A number of @n bytes at *@at, which moves past it. */
static int v6_num(const struct tracedat_layout *l, uint64_t *at, int n,
		  uint64_t *v, struct sw_err *err)
{
	unsigned char b[8];

	if (tracedat_pread(l, b, n, *at, err))
		return -1;
	*v = tracedat_num(l, b, n);
	*at += n;
	return 0;
}

/* Past a size of @n bytes at *@at and the data it counts. */
static int v6_skip(const struct tracedat_layout *l, uint64_t *at, int n,
		   struct sw_err *err)
{
	uint64_t size;

	if (v6_num(l, at, n, &size, err))
		return -1;
	if (size > l->file_size - *at)
		return tracedat_bad(l, err, "data runs past the end of the file",
				    *at);
	*at += size;
	return 0;
}

/* Past the NUL-terminated string at *@at. */
static int v6_string(const struct tracedat_layout *l, uint64_t *at,
		     struct sw_err *err)
{
	const char *nul = NULL;
	char b[64];
	size_t n;

	while (!nul) {
		n = l->file_size - *at;
		if (!n)
			return tracedat_bad(l, err, "string runs past the end of the file",
					    *at);
		if (n > sizeof(b))
			n = sizeof(b);
		if (tracedat_pread(l, b, n, *at, err))
			return -1;
		nul = memchr(b, '\0', n);
		*at += nul ? (size_t)(nul - b) + 1 : n;
	}
	return 0;
}

/* The @n-byte word at *@at, which moves past it. */
static int v6_word(const struct tracedat_layout *l, uint64_t *at, char *w,
		   size_t n, struct sw_err *err)
{
	if (tracedat_pread(l, w, n, *at, err))
		return -1;
	*at += n;
	return 0;
}

/* A version 6 instance: its name and where its CPU entries are. */
struct v6_instance {
	char *name;
	uint64_t off;
};

struct v6_instances {
	struct v6_instance *v;
	size_t n;
};

static int v6_add_instance(struct tracedat_layout *l,
			   struct v6_instances *in, const char *d, size_t n,
			   uint64_t at, struct sw_err *err)
{
	struct v6_instance *v;

	if (n < 9 || !memchr(d + 8, '\0', n - 8))
		return tracedat_bad(l, err, "bad BUFFER option", at);
	if (!d[8])
		return 0;	/* the top level's: no instance */
	v = realloc(in->v, (in->n + 1) * sizeof(*v));
	if (!v)
		return oom(l, err);
	in->v = v;
	v[in->n].off = tracedat_num(l, d, 8);
	v[in->n].name = strdup(d + 8);
	if (!v[in->n++].name)
		return oom(l, err);
	return 0;
}

/*
 * Version 6 options from *@at to their end (option 0, without a size).
 * A CPUCOUNT option sets *@cpus, the number of CPU entries that follow.
 * The top level's (@in set) give the kernel's statistics and the
 * instances; an instance's own are read for their CPU count only, as
 * libtracecmd does.
 */
static int v6_options(struct tracedat_layout *l, uint64_t *at,
		      uint32_t *cpus, struct v6_instances *in,
		      struct sw_err *err)
{
	uint64_t opt, n;
	char *d;
	int rc;

	for (;;) {
		if (v6_num(l, at, 2, &opt, err))
			return -1;
		if (opt == TRACEDAT_OPT_DONE)
			return 0;
		if (v6_num(l, at, 4, &n, err))
			return -1;
		if (n > TL_MAX_OPTIONS)
			return tracedat_bad(l, err, "implausible option size",
					    *at);
		d = malloc(n + 1);
		if (!d)
			return oom(l, err);
		rc = tracedat_pread(l, d, n, *at, err);
		if (!rc && opt == TRACEDAT_OPT_CPUCOUNT && n >= 4)
			*cpus = tracedat_num(l, d, 4);
		if (!rc && in && opt == TRACEDAT_OPT_BUFFER)
			rc = v6_add_instance(l, in, d, n, *at, err);
		else if (!rc && in)
			rc = take_option(l, TRACEDAT_ANY, opt, d, n, *at, err);
		free(d);
		if (rc)
			return -1;
		*at += n;
	}
}

/*
 * At @at: a version 6 buffer's options, if any, then its CPU entries,
 * *@cpus of them as its options leave it (or latency data: no CPU
 * entries), as the buffer @name.
 */
static int v6_buffer(struct tracedat_layout *l, uint64_t at, const char *name,
		     uint32_t *cpus, struct v6_instances *in,
		     struct sw_err *err)
{
	struct tracedat_buffer *b;
	uint64_t off, size;
	uint32_t i, n;
	char w[10];

	if (v6_word(l, &at, w, sizeof(w), err))
		return -1;
	if (!strncmp(w, "options", 7)) {
		if (v6_options(l, &at, cpus, in, err) ||
		    v6_word(l, &at, w, sizeof(w), err))
			return -1;
	}
	if (!strncmp(w, "latency", 7))
		return 0;
	if (strncmp(w, "flyrecord", 9))
		return tracedat_bad(l, err, "neither flyrecord nor latency data",
				    at - sizeof(w));
	/* too many to analyze: the CPU count says so (trace_analyze()) */
	n = *cpus > CPUBITS_MAX_CPUS ? 0 : *cpus;
	b = add_buffer(l, name, n, err);
	if (!b)
		return -1;
	b->page_size = l->page_size;
	for (i = 0; i < n; i++) {
		struct tracedat_cpu *c = &b->cpus[b->ncpus];

		if (v6_num(l, &at, 8, &off, err) ||
		    v6_num(l, &at, 8, &size, err))
			return -1;
		if (size && (off > l->file_size || size > l->file_size - off))
			return tracedat_bad(l, err,
					    "CPU data runs past the end of the file",
					    off);
		c->cpu = i;
		c->off = off;
		c->size = size;
		if (size)
			b->ncpus++;
	}
	b->max_cpus = n;
	return 0;
}

/*
 * A version 6 file from *@at, past its fixed header: what precedes the
 * CPU count is skipped, then the top level and each instance read.
 */
static int read_v6(struct tracedat_layout *l, uint64_t at,
		   struct sw_err *err)
{
	struct v6_instances in = { 0 };
	uint64_t n, k, count;
	uint32_t cpus, inst_cpus;
	char w[13];
	size_t i;
	int rc = -1;

	if (l->page_size < 64 || l->page_size > (1 << 24) ||
	    (l->page_size & (l->page_size - 1)))
		return tracedat_bad(l, err, "implausible page size", 14);
	if (v6_word(l, &at, w, 12, err) || memcmp(w, "header_page", 12))
		return tracedat_bad(l, err, "no header_page", at);
	if (v6_skip(l, &at, 8, err))
		return -1;
	if (v6_word(l, &at, w, 13, err) || memcmp(w, "header_event", 13))
		return tracedat_bad(l, err, "no header_event", at);
	if (v6_skip(l, &at, 8, err) || v6_num(l, &at, 4, &n, err))
		return -1;
	while (n--)			/* ftrace's own formats */
		if (v6_skip(l, &at, 8, err))
			return -1;
	if (v6_num(l, &at, 4, &n, err))
		return -1;
	while (n--) {			/* the formats of each system */
		if (v6_string(l, &at, err) || v6_num(l, &at, 4, &k, err))
			return -1;
		while (k--)
			if (v6_skip(l, &at, 8, err))
				return -1;
	}
	/* kallsyms, the printk formats, the cmdlines; the CPU count */
	if (v6_skip(l, &at, 4, err) || v6_skip(l, &at, 4, err) ||
	    v6_skip(l, &at, 8, err) || v6_num(l, &at, 4, &count, err))
		return -1;
	cpus = count;
	count_cpus(l, cpus);
	if (v6_buffer(l, at, "", &cpus, &in, err))
		goto out;
	for (i = 0; i < in.n; i++) {
		inst_cpus = cpus;	/* the top level's, unless it says */
		if (v6_buffer(l, in.v[i].off, in.v[i].name, &inst_cpus, NULL,
			      err))
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < in.n; i++)
		free(in.v[i].name);
	free(in.v);
	return rc;
}

/*
 * The fixed header: magic, version, endianness, long size, page size;
 * then, in version 7, the compression and the first options section.
 * Sets *@at past it. Returns 0, 1 (not one of @files), -1.
 */
static int read_header(struct tracedat_layout *l, enum tracedat_files files,
		       uint64_t *at, struct sw_err *err)
{
	char h[128], *s, *end;
	size_t n, v;
	ssize_t r;

	r = pread(l->fd, h, sizeof(h) - 1, 0);
	if (r < 0)
		return sw_err_set(err, SW_EXIT_BAD_TRACE, "%s: %s", l->path,
				  strerror(errno));
	n = r;
	h[n] = '\0';
	if (n < 12 || memcmp(h, TRACEDAT_MAGIC, 10))
		return tracedat_bad(l, err, "bad magic", 0);
	l->version = strtol(h + 10, NULL, 10);
	if (files == TRACEDAT_PAGES_READER && strcmp(h + 10, TRACEDAT_VERSION))
		return 1;	/* version 6 and older: libtracecmd */
	if (l->version != 6 && l->version != 7)
		return tracedat_bad(l, err, "unknown version", 10);
	v = 10 + strlen(h + 10) + 1;	/* past the version */
	if (v + 6 >= n)
		return tracedat_bad(l, err, "header cut short", n);
	l->big_endian = h[v];
	l->long_size = h[v + 1] == 4 ? 4 : 8;
	l->page_size = tracedat_num(l, h + v + 2, 4);
	*at = v + 6;
	if (l->version == 6)
		return 0;
	/* after endianness, long size and page size: compression name, version */
	s = h + v + 6;
	end = s + strlen(s) + 1;
	if (files == TRACEDAT_PAGES_READER && strcmp(s, "none") &&
	    strcmp(s, "zstd"))
		return 1;	/* a compression libtracecmd may know */
	if ((size_t)(end - h) >= n)
		return tracedat_bad(l, err, "header cut short", n);
	end += strlen(end) + 1;
	if ((size_t)(end - h) + 8 > n)
		return tracedat_bad(l, err, "header cut short", n);
	l->options = tracedat_num(l, end, 8);
	return 0;
}

int tracedat_layout_open(const char *path, enum tracedat_files files,
			 struct tracedat_layout **out, struct sw_err *err)
{
	struct tracedat_layout *l;
	uint64_t at = 0;
	struct stat st;
	int rc;

	*out = l = calloc(1, sizeof(*l));
	if (!l)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory",
				  path);
	l->path = path;
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0 || fstat(l->fd, &st)) {
		rc = sw_err_set(err, SW_EXIT_BAD_TRACE, "%s: %s", path,
				strerror(errno));
		goto out;
	}
	l->file_size = st.st_size;
	l->zctx = ZSTD_createDCtx();
	rc = l->zctx ? read_header(l, files, &at, err) : oom(l, err);
	if (!rc && l->version == 6)
		rc = read_v6(l, at, err);
	else if (!rc)
		rc = walk_options(l, files, err);
out:
	if (rc) {
		tracedat_layout_close(l);
		*out = NULL;
	}
	return rc;
}

const struct tracedat_buffer *
tracedat_layout_buffer(const struct tracedat_layout *l, const char *name)
{
	int i;

	for (i = 0; i < l->nbufs; i++)
		if (!strcmp(l->bufs[i].name, name))
			return &l->bufs[i];
	return NULL;
}

void tracedat_layout_close(struct tracedat_layout *l)
{
	int i;

	if (!l)
		return;
	for (i = 0; i < l->nbufs; i++) {
		free(l->bufs[i].cpus);
		free(l->bufs[i].name);
	}
	free(l->bufs);
	free(l->cpustats);
	ZSTD_freeDCtx(l->zctx);
	if (l->fd >= 0)
		close(l->fd);
	free(l);
}
