// SPDX-License-Identifier: GPL-2.0
/*
 * A version 7 trace.dat (trace-cmd.dat.v7(5)) starts with a small header
 * and the offset of its first options section; options sections chain by
 * their DONE option. A BUFFER option names one buffer (instance) and gives,
 * per CPU, where its ring-buffer pages lie; that data is raw pages, or,
 * when the buffer's section is flagged compressed, a count of chunks each
 * holding whole pages as one zstd frame. Every number and offset read here
 * is checked against the file before it is used: the file may come from
 * anywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <traceevent/kbuffer.h>

#include "lib/subprocess.h"
#include "lib/cpubits.h"
#include "trace/tracedat.h"
#include "trace/tracedat_read.h"

#define TP_MAX_SECTIONS		4096
#define TP_MAX_OPTIONS		(1 << 24)	/* bytes of one options section */
#define TP_MAX_CHUNK		(64 << 20)	/* trace-cmd writes 10 pages */
#define TP_BATCH_PAGES		64		/* read per CPU at a time */

struct tp_cpu {
	int cpu;
	uint64_t off, size;	/* the CPU's data in the file */
	uint64_t done;		/* bytes of it consumed (compressed: of chunks) */
	uint32_t chunks;	/* compressed: chunks left */
	char *buf;		/* loaded pages */
	size_t len, cap, page;	/* bytes loaded, room, next page's offset */
	const char *cur;	/* page kbuf holds; NULL: none yet */
	struct kbuffer *kbuf;
	struct tep_record rec;	/* the CPU's next event */
};

/* One BUFFER option: a buffer (instance) and its CPUs' data. */
struct tp_buffer {
	char *name;		/* "": the top level */
	int compressed;
	uint32_t page_size;
	int max_cpus;		/* the highest CPU it lists, plus one */
	int has_events;		/* some CPU's first page holds data */
	struct tp_cpu *cpus;	/* those with data */
	int ncpus;
};

struct trace_pages {
	const char *path;
	int fd;
	uint64_t file_size;
	int big_endian;
	int user_long_size;	/* the file header's */
	int long_size;		/* of the kernel: the page header's commit */
	uint32_t file_page_size;
	ZSTD_DCtx *zctx;
	char *zbuf;		/* one compressed chunk */
	size_t zcap;
	uint64_t options;	/* the first options section */
	uint64_t header_sec, formats_sec;	/* HEADER_INFO, EVENT_FORMATS */
	int cpucount;		/* the CPUCOUNT option: the machine's CPUs */
	char *cpustats;		/* the CPUSTAT options, one after the other */
	size_t cpustats_len;
	struct tp_buffer *bufs;
	int nbufs;
	struct tp_buffer *buf;	/* the one read */
	struct tep_handle *tep;
	/* the buffer read, as its CPUs are walked */
	int compressed;
	uint32_t page_size;
	struct tp_cpu *cpus;
	int ncpus;
	int *heap;		/* indexes into cpus, earliest event first */
	int nheap;
};

static uint64_t rd(const struct trace_pages *p, const void *src, int n)
{
	const unsigned char *b = src;
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)b[p->big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

static int bad(const struct trace_pages *p, struct sw_err *err,
	       const char *what, uint64_t at)
{
	return sw_err_set(err, SW_EXIT_BAD_TRACE,
			  "%s: truncated or corrupt trace.dat: %s (at byte %llu)",
			  p->path, what, (unsigned long long)at);
}

static int oom(const struct trace_pages *p, struct sw_err *err)
{
	return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory", p->path);
}

/* Reads exactly @n bytes at @off; anything less is the file's fault. */
static int pread_all(struct trace_pages *p, void *dst, size_t n, uint64_t off,
		     struct sw_err *err)
{
	size_t got = 0;

	if (off > p->file_size || n > p->file_size - off)
		return bad(p, err, "data runs past the end of the file", off);
	while (got < n) {
		ssize_t r = pread(p->fd, (char *)dst + got, n - got, off + got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return sw_err_set(err, SW_EXIT_BAD_TRACE,
					  "%s: read error at byte %llu: %s",
					  p->path,
					  (unsigned long long)(off + got),
					  r ? strerror(errno) : "end of file");
		got += r;
	}
	return 0;
}

/* A section's body, decompressed if flagged so; *@id and *@len set. */
static char *read_section(struct trace_pages *p, uint64_t off, int *id,
			  size_t *len, struct sw_err *err)
{
	unsigned char h[16];
	uint64_t size, usize;
	char *raw, *out;
	size_t r;

	if (pread_all(p, h, sizeof(h), off, err))
		return NULL;
	*id = rd(p, h, 2);
	size = rd(p, h + 8, 8);
	if (size > TP_MAX_OPTIONS) {
		bad(p, err, "implausible section size", off);
		return NULL;
	}
	raw = malloc(size + 1);
	if (!raw) {
		oom(p, err);
		return NULL;
	}
	if (pread_all(p, raw, size, off + sizeof(h), err))
		goto fail;
	if (!(rd(p, h + 2, 2) & TRACEDAT_SEC_COMPRESSED)) {
		raw[size] = '\0';
		*len = size;
		return raw;
	}
	usize = size < 8 ? 0 : rd(p, raw + 4, 4);
	if (size < 8 || rd(p, raw, 4) != size - 8 || usize > TP_MAX_OPTIONS) {
		bad(p, err, "bad compressed section header", off);
		goto fail;
	}
	out = malloc(usize + 1);
	if (!out) {
		oom(p, err);
		goto fail;
	}
	r = ZSTD_decompressDCtx(p->zctx, out, usize, raw + 8, size - 8);
	free(raw);
	if (ZSTD_isError(r) || r != usize) {
		free(out);
		bad(p, err, "compressed section does not decompress", off);
		return NULL;
	}
	out[usize] = '\0';
	*len = usize;
	return out;
fail:
	free(raw);
	return NULL;
}

/* Makes *@buf hold at least @want bytes. */
static int grow(const struct trace_pages *p, char **buf, size_t *cap,
		size_t want, struct sw_err *err)
{
	char *b;

	if (want <= *cap)
		return 0;
	b = realloc(*buf, want);
	if (!b)
		return oom(p, err);
	*buf = b;
	*cap = want;
	return 0;
}

/* A compressed CPU's data starts with its number of chunks. */
static int chunk_count(struct trace_pages *p, const struct tp_cpu *c,
		       uint32_t *n, struct sw_err *err)
{
	unsigned char b[4];

	if (c->size < 4)
		return bad(p, err, "compressed CPU data without a chunk count",
			   c->off);
	if (pread_all(p, b, 4, c->off, err))
		return -1;
	*n = rd(p, b, 4);
	return 0;
}

/*
 * The chunk header at @at: the compressed size, then the size of the
 * whole pages it holds. Each is checked against the file.
 */
static int chunk_header(struct trace_pages *p, uint64_t at, size_t *zsize,
			size_t *size, struct sw_err *err)
{
	unsigned char h[8];

	if (pread_all(p, h, 8, at, err))
		return -1;
	*zsize = rd(p, h, 4);
	*size = rd(p, h + 4, 4);
	if (*zsize > p->file_size - at - 8 || !*size ||
	    *size > TP_MAX_CHUNK || *size % p->page_size)
		return bad(p, err, "bad compressed chunk header", at);
	return 0;
}

/* Loads the next batch of @c's pages. Returns 1, 0 at the end, -1. */
static int load(struct trace_pages *p, struct tp_cpu *c, struct sw_err *err)
{
	uint64_t at = c->off + c->done;
	size_t want;

	if (!p->compressed) {
		want = c->size - c->done;
		if (!want)
			return 0;
		if (want > (size_t)p->page_size * TP_BATCH_PAGES)
			want = (size_t)p->page_size * TP_BATCH_PAGES;
		if (pread_all(p, c->buf, want, at, err))
			return -1;
	} else {
		size_t zsize, r;

		if (!c->chunks)
			return 0;
		/*
		 * The chunk count, not the BUFFER option's size (4 bytes
		 * short in trace-cmd 3.1's files), says where the data ends.
		 */
		if (chunk_header(p, at, &zsize, &want, err) ||
		    grow(p, &p->zbuf, &p->zcap, zsize, err) ||
		    grow(p, &c->buf, &c->cap, want, err))
			return -1;
		if (pread_all(p, p->zbuf, zsize, at + 8, err))
			return -1;
		r = ZSTD_decompressDCtx(p->zctx, c->buf, want, p->zbuf, zsize);
		if (ZSTD_isError(r) || r != want)
			return bad(p, err, "compressed chunk does not decompress",
				   at);
		want = zsize + 8;	/* what the chunk takes in the file */
		c->chunks--;
		c->len = r;
		c->page = 0;
		c->done += want;
		return 1;
	}
	c->len = want;
	c->page = 0;
	c->done += want;
	return 1;
}

/*
 * A page starts with its time stamp and its commit, the bytes it uses,
 * with the kernel's "events were lost" flags in bits 30 and 31 (bit 31
 * sign-extended through a 64-bit commit: it is added as an int). Other
 * high bits mean damage, which kbuffer would not see: it keeps the low
 * 27 bits only.
 */
static int page_sane(const struct trace_pages *p, const char *page)
{
	uint64_t commit = rd(p, page + 8, p->long_size);
	uint64_t high = commit >> 32;

	if (high && !(high == 0xffffffffULL && (commit & (1ULL << 31))))
		return 0;
	return (commit & ((1U << 30) - 1)) <= p->page_size - 8 - p->long_size;
}

/*
 * The first page of @c, which libtracecmd reads (unchecked) when it looks
 * for the buffer with data: checked before it gets the file. Sets
 * *@has_data when the page holds any.
 */
static int check_first_page(struct trace_pages *p, struct tp_cpu *c,
			    int *has_data, struct sw_err *err)
{
	int rc;

	if (!p->compressed) {
		c->cap = p->page_size;
		c->buf = malloc(c->cap);
		if (!c->buf)
			return oom(p, err);
		if (c->size < p->page_size)
			return bad(p, err, "CPU data smaller than a page",
				   c->off);
		rc = pread_all(p, c->buf, p->page_size, c->off, err);
	} else {
		c->chunks = 1;
		c->done = 4;
		rc = load(p, c, err);
		rc = rc < 0 ? -1 : 0;
	}
	if (!rc && c->buf && !page_sane(p, c->buf))
		rc = bad(p, err, "page header out of range", c->off);
	if (!rc && c->buf && rd(p, c->buf + 8, p->long_size) & ((1U << 27) - 1))
		*has_data = 1;
	free(c->buf);
	c->buf = NULL;
	c->cap = 0;
	c->len = 0;
	c->page = 0;
	c->done = 0;
	c->chunks = 0;
	return rc;
}

/* Every chunk header of compressed CPU data @c, before anyone reads it. */
static int check_chunks(struct trace_pages *p, const struct tp_cpu *c,
			struct sw_err *err)
{
	uint64_t at = c->off + 4;
	size_t zsize, size;
	uint32_t n;

	if (chunk_count(p, c, &n, err))
		return -1;
	for (; n; n--) {
		if (chunk_header(p, at, &zsize, &size, err))
			return -1;
		at += 8 + zsize;
	}
	return 0;
}

/* Appends the BUFFER option @d (@n bytes) to p->bufs. */
static int parse_buffer(struct trace_pages *p, const char *d, size_t n,
			uint64_t at, struct sw_err *err)
{
	const char *name = d + 8, *clock, *q;
	struct tp_buffer *b;
	unsigned char h[16];
	uint32_t count, i;

	if (n < 10 || !memchr(name, '\0', n - 8))
		return bad(p, err, "bad BUFFER option", at);
	clock = name + strlen(name) + 1;
	if (clock >= d + n || !memchr(clock, '\0', d + n - clock))
		return bad(p, err, "bad BUFFER option", at);
	q = clock + strlen(clock) + 1;
	if (q + 8 > d + n)
		return bad(p, err, "bad BUFFER option", at);
	b = realloc(p->bufs, (p->nbufs + 1) * sizeof(*b));
	if (!b)
		return oom(p, err);
	p->bufs = b;
	b = &p->bufs[p->nbufs++];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->page_size = rd(p, q, 4);
	count = rd(p, q + 4, 4);
	q += 8;
	if (!b->name)
		return oom(p, err);
	if (b->page_size < 64 || b->page_size > (1 << 24) ||
	    (b->page_size & (b->page_size - 1)) ||
	    count > CPUBITS_MAX_CPUS || (size_t)(d + n - q) < count * 20ULL)
		return bad(p, err, "bad BUFFER option", at);
	/*
	 * libtracecmd 1.3.1 pages through a buffer by the header's page
	 * size: a header that says otherwise has it read 200 events of
	 * 1262 without a word (found by fuzz_trace).
	 */
	if (b->page_size != p->file_page_size)
		return bad(p, err, "the file's page size is not its buffer's",
			   14);
	if (pread_all(p, h, sizeof(h), rd(p, d, 8), err))
		return -1;
	b->compressed = !!(rd(p, h + 2, 2) & TRACEDAT_SEC_COMPRESSED);
	b->cpus = calloc(count ? count : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return oom(p, err);
	for (i = 0; i < count; i++, q += 20) {
		struct tp_cpu *c = &b->cpus[b->ncpus];
		int k;

		c->cpu = rd(p, q, 4);
		c->off = rd(p, q + 4, 8);
		c->size = rd(p, q + 12, 8);
		if (c->cpu < 0 || c->cpu >= CPUBITS_MAX_CPUS)
			return bad(p, err, "BUFFER option names an impossible CPU",
				   at);
		for (k = 0; k < b->ncpus; k++)
			if (b->cpus[k].cpu == c->cpu)
				return bad(p, err, "BUFFER option names a CPU twice",
					   at);
		if (c->off > p->file_size || c->size > p->file_size - c->off)
			return bad(p, err, "CPU data runs past the end of the file",
				   c->off);
		if (c->cpu + 1 > b->max_cpus)
			b->max_cpus = c->cpu + 1;
		if (c->size)
			b->ncpus++;
	}
	return 0;
}

static int add_cpustat(struct trace_pages *p, const char *d, size_t n,
		       struct sw_err *err)
{
	char *s;

	if (!n)
		return 0;
	s = realloc(p->cpustats, p->cpustats_len + n + 1);
	if (!s)
		return oom(p, err);
	memcpy(s + p->cpustats_len, d, n);
	/* each ends in a NUL: a line break instead, as libtracecmd does */
	s[p->cpustats_len + n - 1] = '\n';
	p->cpustats_len += n;
	s[p->cpustats_len] = '\0';
	p->cpustats = s;
	return 0;
}

/* One option of an options section. Returns 0, 1 (not ours) or -1. */
static int take_option(struct trace_pages *p, int opt, const char *o,
		       size_t n, uint64_t at, struct sw_err *err)
{
	switch (opt) {
	case TRACEDAT_OPT_DATE:
	case TRACEDAT_OPT_OFFSET:
	case TRACEDAT_OPT_TIME_SHIFT:
	case TRACEDAT_OPT_TSC2NSEC:
		return 1;	/* timestamps to correct: libtracecmd's job */
	case TRACEDAT_OPT_BUFFER:
		return parse_buffer(p, o, n, at, err);
	case TRACEDAT_OPT_CPUSTAT:
		return add_cpustat(p, o, n, err);
	case TRACEDAT_OPT_CPUCOUNT:
		if (n >= 4 && rd(p, o, 4) <= CPUBITS_MAX_CPUS)
			p->cpucount = rd(p, o, 4);
		return 0;
	case TRACEDAT_OPT_HEADER_INFO:
		if (n >= 8)
			p->header_sec = rd(p, o, 8);
		return 0;
	case TRACEDAT_OPT_EVENT_FORMATS:
		if (n >= 8)
			p->formats_sec = rd(p, o, 8);
		return 0;
	}
	return 0;
}

/*
 * Walks the chain of options sections, collecting the buffers, the
 * kernel's per-CPU statistics and where the formats are. Returns 0, 1
 * when the file needs libtracecmd (timestamp corrections), -1 on error.
 */
static int walk_options(struct trace_pages *p, struct sw_err *err)
{
	uint64_t off = p->options;
	int sections = 0;

	while (off) {
		size_t len, at = 0;
		uint64_t next = 0;
		int id, rc = 0;
		char *d;

		if (++sections > TP_MAX_SECTIONS)
			return bad(p, err, "options sections loop", off);
		d = read_section(p, off, &id, &len, err);
		if (!d)
			return -1;
		if (id != TRACEDAT_OPT_DONE)
			rc = bad(p, err, "not an options section", off);
		while (!rc && at + 6 <= len) {
			int opt = rd(p, d + at, 2);
			uint64_t n = rd(p, d + at + 2, 4);
			const char *o = d + at + 6;

			if (n > len - at - 6) {
				rc = bad(p, err, "option runs past its section",
					 off);
				break;
			}
			at += 6 + n;
			if (opt == TRACEDAT_OPT_DONE) {
				next = n >= 8 ? rd(p, o, 8) : 0;
				break;
			}
			rc = take_option(p, opt, o, n, off, err);
		}
		free(d);
		if (rc)
			return rc;
		off = next;
	}
	return 0;
}

/*
 * What libtracecmd would read unchecked: every chunk header, each CPU's
 * first page (whether it holds data, too).
 */
static int check_buffer(struct trace_pages *p, struct tp_buffer *b,
			struct sw_err *err)
{
	int i;

	p->compressed = b->compressed;
	p->page_size = b->page_size;
	for (i = 0; i < b->ncpus; i++) {
		struct tp_cpu *c = &b->cpus[i];

		if (b->compressed && check_chunks(p, c, err))
			return -1;
		if (check_first_page(p, c, &b->has_events, err))
			return -1;
	}
	return 0;
}

/*
 * As libtracecmd users pick: the buffer named @want; else the top level
 * when it has events or there is nothing else, else the first instance
 * with events, else the top level.
 */
static struct tp_buffer *choose(struct trace_pages *p, const char *want,
				struct sw_err *err)
{
	struct tp_buffer *top = NULL;
	int i;

	for (i = 0; i < p->nbufs; i++) {
		if (want && !strcmp(p->bufs[i].name, want))
			return &p->bufs[i];
		if (!top && !p->bufs[i].name[0])
			top = &p->bufs[i];
	}
	if (want) {
		sw_err_set(err, SW_EXIT_BAD_TRACE,
			   "%s: no buffer named '%s' in the trace", p->path,
			   want);
		return NULL;
	}
	if (top && (top->has_events || p->nbufs == 1))
		return top;
	for (i = 0; i < p->nbufs; i++)
		if (p->bufs[i].name[0] && p->bufs[i].has_events)
			return &p->bufs[i];
	if (!top)
		bad(p, err, "no top-level buffer", p->options);
	return top;
}

/* The bytes of @d from *@at on: a NUL-terminated string. */
static const char *take_str(const char *d, size_t len, size_t *at)
{
	const char *s = d + *at;

	if (*at >= len || !memchr(s, '\0', len - *at))
		return NULL;
	*at += strlen(s) + 1;
	return s;
}

static int take_num(const struct trace_pages *p, const char *d, size_t len,
		    size_t *at, int n, uint64_t *v)
{
	if (*at > len || len - *at < (size_t)n)
		return -1;
	*v = rd(p, d + *at, n);
	*at += n;
	return 0;
}

/* The systems whose event formats the analysis reads (trace/trace_read.c). */
static int wanted_system(const char *sys)
{
	return !strcmp(sys, "sched") || !strcmp(sys, "ipi") ||
	       !strcmp(sys, "power");
}

static struct tep_handle *new_tep(const struct trace_pages *p)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, p->big_endian ? TEP_BIG_ENDIAN :
						    TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN :
							  TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, p->user_long_size);
	tep_set_page_size(tep, p->file_page_size);
	return tep;
}

/* The formats section @d: 0, or -1 when its structure is broken. */
static int parse_formats(const struct trace_pages *p, struct tep_handle *tep,
			 const char *d, size_t len)
{
	uint64_t nsys, nev, size;
	size_t at = 0;

	if (take_num(p, d, len, &at, 4, &nsys))
		return -1;
	while (nsys--) {
		const char *sys = take_str(d, len, &at);

		if (!sys || take_num(p, d, len, &at, 4, &nev))
			return -1;
		while (nev--) {
			if (take_num(p, d, len, &at, 8, &size) ||
			    size > len - at)
				return -1;
			/* one that does not parse is as good as absent */
			if (wanted_system(sys))
				tep_parse_event(tep, d + at, size, sys);
			at += size;
		}
	}
	return 0;
}

struct formats_try {
	const struct trace_pages *p;
	const char *d;
	size_t len;
};

/* In a child (child_try()): 0, 2 for a broken structure; or it crashes. */
static int try_formats(void *arg)
{
	const struct formats_try *f = arg;
	struct tep_handle *tep = new_tep(f->p);

	return !tep || parse_formats(f->p, tep, f->d, f->len) ? 2 : 0;
}

/*
 * A tep with the header page and the formats of the wanted systems only:
 * parsing the ~2000 formats a file holds costs libtracecmd 0.1 s.
 */
static int build_tep(struct trace_pages *p, struct sw_err *err)
{
	struct formats_try f = { .p = p };
	size_t len, at = 0;
	uint64_t size;
	const char *name;
	char *d;
	int id, rc;

	p->tep = new_tep(p);
	if (!p->tep)
		return oom(p, err);
	if (!p->header_sec || !p->formats_sec)
		return bad(p, err, "no header or event formats section",
			   p->options);

	d = read_section(p, p->header_sec, &id, &len, err);
	if (!d)
		return -1;
	name = take_str(d, len, &at);
	if (!name || strcmp(name, "header_page") ||
	    take_num(p, d, len, &at, 8, &size) || size > len - at ||
	    tep_parse_header_page(p->tep, d + at, size, p->user_long_size)) {
		free(d);
		return bad(p, err, "bad header_page", p->header_sec);
	}
	free(d);

	d = read_section(p, p->formats_sec, &id, &len, err);
	if (!d)
		return -1;
	/*
	 * libtraceevent 1.7 dereferences NULL on some malformed formats
	 * (found by fuzz_trace): they are parsed in a child first, and a
	 * file whose formats crash it is refused, not the tool.
	 */
	f.d = d;
	f.len = len;
	rc = child_try(try_formats, &f);
	if (!rc && parse_formats(p, p->tep, d, len))
		rc = 2;
	free(d);
	if (rc == 2)
		return bad(p, err, "bad event formats section", p->formats_sec);
	if (rc)
		return bad(p, err, "an event format libtraceevent crashes on",
			   p->formats_sec);
	return 0;
}

/* Moves @c to its next event. Returns 1, 0 when it has none left, -1. */
static int next_event(struct trace_pages *p, struct tp_cpu *c,
		      struct sw_err *err)
{
	unsigned long long ts;
	void *d = NULL;
	int rc;

	if (c->cur)
		d = kbuffer_next_event(c->kbuf, &ts);
	c->rec.missed_events = 0;
	while (!d) {
		if (c->page + p->page_size > c->len) {
			if (c->page < c->len)
				return bad(p, err, "CPU data ends inside a page",
					   c->off + c->done);
			rc = load(p, c, err);
			if (rc <= 0)
				return rc;
			continue;
		}
		c->cur = c->buf + c->page;
		c->page += p->page_size;
		if (!page_sane(p, c->cur) ||
		    kbuffer_load_subbuffer(c->kbuf, (void *)c->cur) < 0 ||
		    kbuffer_start_of_data(c->kbuf) +
		    kbuffer_subbuffer_size(c->kbuf) > (int)p->page_size)
			return bad(p, err, "page header out of range",
				   c->off + c->done);
		d = kbuffer_read_event(c->kbuf, &ts);
		c->rec.missed_events = kbuffer_missed_events(c->kbuf);
	}
	c->rec.ts = ts;
	c->rec.data = d;
	c->rec.size = kbuffer_event_size(c->kbuf);
	if (c->rec.size < 0 ||
	    (const char *)d + c->rec.size > c->cur + p->page_size)
		return bad(p, err, "event runs past its page",
			   c->off + c->done);
	return 1;
}

static int earlier(const struct trace_pages *p, int a, int b)
{
	const struct tp_cpu *x = &p->cpus[a], *y = &p->cpus[b];

	if (x->rec.ts != y->rec.ts)
		return x->rec.ts < y->rec.ts;
	return x->cpu < y->cpu;
}

static void sift_down(struct trace_pages *p, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i, t;

		if (l < p->nheap && earlier(p, p->heap[l], p->heap[m]))
			m = l;
		if (l + 1 < p->nheap && earlier(p, p->heap[l + 1], p->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = p->heap[i];
		p->heap[i] = p->heap[m];
		p->heap[m] = t;
		i = m;
	}
}

int trace_pages_iterate(struct trace_pages *p,
			int (*fn)(struct tep_record *rec, void *arg),
			void *arg, struct sw_err *err)
{
	int i, rc;

	p->nheap = 0;
	for (i = 0; i < p->ncpus; i++) {
		rc = next_event(p, &p->cpus[i], err);
		if (rc < 0)
			return -1;
		if (rc)
			p->heap[p->nheap++] = i;
	}
	for (i = p->nheap / 2 - 1; i >= 0; i--)
		sift_down(p, i);
	while (p->nheap) {
		struct tp_cpu *c = &p->cpus[p->heap[0]];

		if (fn(&c->rec, arg))
			return 0;
		rc = next_event(p, c, err);
		if (rc < 0)
			return -1;
		if (!rc)
			p->heap[0] = p->heap[--p->nheap];
		sift_down(p, 0);
	}
	return 0;
}

/* The fixed header: magic, version, endianness, long size, page size. */
static int read_header(struct trace_pages *p, uint64_t *options,
		       struct sw_err *err)
{
	char h[128], *s, *end;
	size_t n;
	ssize_t r;

	r = pread(p->fd, h, sizeof(h) - 1, 0);
	if (r < 0)
		return sw_err_set(err, SW_EXIT_BAD_TRACE, "%s: %s", p->path,
				  strerror(errno));
	n = r;
	h[n] = '\0';
	if (n < 12 || memcmp(h, TRACEDAT_MAGIC, 10))
		return bad(p, err, "bad magic", 0);
	if (strcmp(h + 10, TRACEDAT_VERSION))
		return 1;	/* version 6 and older: libtracecmd */
	p->big_endian = h[12];
	p->user_long_size = h[13] == 4 ? 4 : 8;
	p->long_size = p->user_long_size;	/* until the header page says */
	p->file_page_size = rd(p, h + 14, 4);
	/* after endianness, long size and page size: compression name, version */
	s = h + 18;
	if ((size_t)(s - h) >= n)
		return bad(p, err, "header cut short", n);
	end = s + strlen(s) + 1;
	if (strcmp(s, "none") && strcmp(s, "zstd"))
		return 1;	/* a compression libtracecmd may know */
	if ((size_t)(end - h) >= n)
		return bad(p, err, "header cut short", n);
	end += strlen(end) + 1;
	if ((size_t)(end - h) + 8 > n)
		return bad(p, err, "header cut short", n);
	*options = rd(p, end, 8);
	return 0;
}

/*
 * Opens @path, reads its header and options, checks every buffer.
 * Returns 0, 1 (not ours), -1.
 */
static int pages_new(const char *path, struct trace_pages **out,
		     struct sw_err *err)
{
	struct trace_pages *p;
	struct stat st;
	int i, rc;

	*out = p = calloc(1, sizeof(*p));
	if (!p)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory",
				  path);
	p->path = path;
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0 || fstat(p->fd, &st))
		return sw_err_set(err, SW_EXIT_BAD_TRACE, "%s: %s", path,
				  strerror(errno));
	p->file_size = st.st_size;
	p->zctx = ZSTD_createDCtx();
	if (!p->zctx)
		return oom(p, err);
	rc = read_header(p, &p->options, err);
	if (!rc)
		rc = walk_options(p, err);
	for (i = 0; !rc && i < p->nbufs; i++)
		rc = check_buffer(p, &p->bufs[i], err);
	return rc;
}

int trace_pages_open(const char *path, const char *buffer,
		     struct trace_pages **out, struct sw_err *err)
{
	enum kbuffer_long_size ls;
	struct trace_pages *p;
	int i, rc;

	*out = NULL;
	rc = pages_new(path, &p, err);
	if (!rc) {
		p->buf = choose(p, buffer, err);
		rc = p->buf ? build_tep(p, err) : -1;
	}
	if (rc)
		goto out;
	p->compressed = p->buf->compressed;
	p->page_size = p->buf->page_size;
	p->cpus = p->buf->cpus;
	p->ncpus = p->buf->ncpus;
	p->heap = calloc(p->ncpus ? p->ncpus : 1, sizeof(*p->heap));
	if (!p->heap) {
		rc = oom(p, err);
		goto out;
	}
	p->long_size = tep_get_header_page_size(p->tep) == 8 ? 8 : 4;
	ls = p->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4;
	for (i = 0; i < p->ncpus; i++) {
		struct tp_cpu *c = &p->cpus[i];

		c->rec.cpu = c->cpu;
		c->kbuf = kbuffer_alloc(ls, p->big_endian ? KBUFFER_ENDIAN_BIG :
							    KBUFFER_ENDIAN_LITTLE);
		if (!p->compressed) {
			c->cap = (size_t)p->page_size * TP_BATCH_PAGES;
			c->buf = malloc(c->cap);
		}
		if (!c->kbuf || (!p->compressed && !c->buf)) {
			rc = oom(p, err);
			goto out;
		}
		if (tep_is_old_format(p->tep))
			kbuffer_set_old_format(c->kbuf);
		if (p->compressed) {
			rc = chunk_count(p, c, &c->chunks, err);
			if (rc)
				goto out;
			c->done = 4;
		}
	}
	*out = p;
	return 0;
out:
	trace_pages_close(p);
	return rc;
}

static int no_op(struct tep_record *rec, void *arg)
{
	(void)rec;
	(void)arg;
	return 0;
}

int trace_pages_check(const char *path, const char *buffer,
		      struct sw_err *err)
{
	struct trace_pages *p;
	int rc;

	rc = trace_pages_open(path, buffer, &p, err);
	if (rc)
		return rc < 0 ? -1 : 0;
	rc = trace_pages_iterate(p, no_op, NULL, err);
	trace_pages_close(p);
	return rc;
}

struct tep_handle *trace_pages_tep(const struct trace_pages *p)
{
	return p->tep;
}

int trace_pages_ncpus(const struct trace_pages *p)
{
	/* a top level without CPU data has the machine's, as in libtracecmd */
	if (!p->buf->name[0] && !p->buf->max_cpus)
		return p->cpucount;
	return p->buf->max_cpus;
}

const char *trace_pages_buffer(const struct trace_pages *p)
{
	return p->buf->name[0] ? p->buf->name : NULL;
}

const char *trace_pages_cpustats(const struct trace_pages *p)
{
	return p->cpustats;
}

void trace_pages_close(struct trace_pages *p)
{
	int i, k;

	if (!p)
		return;
	for (i = 0; i < p->nbufs; i++) {
		for (k = 0; k < p->bufs[i].ncpus; k++) {
			kbuffer_free(p->bufs[i].cpus[k].kbuf);
			free(p->bufs[i].cpus[k].buf);
		}
		free(p->bufs[i].cpus);
		free(p->bufs[i].name);
	}
	free(p->bufs);
	free(p->heap);
	free(p->zbuf);
	free(p->cpustats);
	if (p->tep)
		tep_free(p->tep);
	ZSTD_freeDCtx(p->zctx);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}
