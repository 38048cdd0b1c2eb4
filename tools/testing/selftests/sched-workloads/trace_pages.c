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

#include "trace_pages.h"

#define TP_MAGIC		"\027\010\104tracing"
#define TP_SEC_COMPRESSED	1
#define TP_OPT_DONE		0
#define TP_OPT_DATE		1
#define TP_OPT_BUFFER		3
#define TP_OPT_OFFSET		7
#define TP_OPT_TIME_SHIFT	12
#define TP_OPT_TSC2NSEC		14
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

struct trace_pages {
	const char *path;
	int fd;
	uint64_t file_size;
	int big_endian;
	int long_size;		/* of the kernel: the page header's commit */
	int compressed;
	uint32_t page_size;
	struct tep_handle *tep;	/* NULL: checking only */
	uint64_t options;	/* the first options section */
	ZSTD_DCtx *zctx;
	char *zbuf;		/* one compressed chunk */
	size_t zcap;
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
		sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory", p->path);
		return NULL;
	}
	if (pread_all(p, raw, size, off + sizeof(h), err))
		goto fail;
	if (!(rd(p, h + 2, 2) & TP_SEC_COMPRESSED)) {
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
		sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory", p->path);
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
		unsigned char h[8];
		size_t zsize, r;

		if (!c->chunks)
			return 0;
		/*
		 * The chunk count, not the BUFFER option's size (4 bytes
		 * short in trace-cmd 3.1's files), says where the data ends.
		 */
		if (pread_all(p, h, 8, at, err))
			return -1;
		zsize = rd(p, h, 4);
		want = rd(p, h + 4, 4);
		if (zsize > p->file_size - at - 8 || !want ||
		    want > TP_MAX_CHUNK || want % p->page_size)
			return bad(p, err, "bad compressed chunk header", at);
		if (zsize > p->zcap) {
			char *z = realloc(p->zbuf, zsize);

			if (!z)
				return sw_err_set(err, SW_EXIT_RUN_ERROR,
						  "%s: out of memory", p->path);
			p->zbuf = z;
			p->zcap = zsize;
		}
		if (want > c->cap) {
			char *b = realloc(c->buf, want);

			if (!b)
				return sw_err_set(err, SW_EXIT_RUN_ERROR,
						  "%s: out of memory", p->path);
			c->buf = b;
			c->cap = want;
		}
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
 * for the buffer with data: checked before it gets the file.
 */
static int check_first_page(struct trace_pages *p, struct tp_cpu *c,
			    struct sw_err *err)
{
	int rc;

	if (!p->compressed) {
		c->cap = p->page_size;
		c->buf = malloc(c->cap);
		if (!c->buf)
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  "%s: out of memory", p->path);
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
	free(c->buf);
	c->buf = NULL;
	c->cap = 0;
	return rc;
}

/* Every chunk header of compressed CPU data @c, before anyone reads it. */
static int check_chunks(struct trace_pages *p, const struct tp_cpu *c,
			struct sw_err *err)
{
	uint64_t at = c->off + 4, size;
	unsigned char h[8];
	uint32_t n;

	if (c->size < 4 || pread_all(p, h, 4, c->off, err))
		return c->size < 4 ? bad(p, err, "compressed CPU data without a chunk count",
					 c->off) : -1;
	for (n = rd(p, h, 4); n; n--) {
		if (pread_all(p, h, 8, at, err))
			return -1;
		size = rd(p, h + 4, 4);
		if (rd(p, h, 4) > p->file_size - at - 8 || !size ||
		    size > TP_MAX_CHUNK || size % p->page_size)
			return bad(p, err, "bad compressed chunk header", at);
		at += 8 + rd(p, h, 4);
	}
	return 0;
}

/*
 * Fills p->cpus from the BUFFER option of @d (@n bytes) if it names
 * @buffer. Returns 1 when it does, 0 when it names another, -1 on error.
 * With @buffer NULL, checks the option's CPU data and returns 0.
 */
static int take_buffer(struct trace_pages *p, const char *d, size_t n,
		       const char *buffer, int ncpus, uint64_t at,
		       struct sw_err *err)
{
	const char *name = d + 8, *clock, *q;
	uint64_t sec;
	uint32_t count, i;
	unsigned char h[16];

	if (n < 10 || !memchr(name, '\0', n - 8))
		return bad(p, err, "bad BUFFER option", at);
	if (buffer && strcmp(name, buffer))
		return 0;
	clock = name + strlen(name) + 1;
	if (clock >= d + n || !memchr(clock, '\0', d + n - clock))
		return bad(p, err, "bad BUFFER option", at);
	q = clock + strlen(clock) + 1;
	if (q + 8 > d + n)
		return bad(p, err, "bad BUFFER option", at);
	p->page_size = rd(p, q, 4);
	count = rd(p, q + 4, 4);
	q += 8;
	if (p->page_size < 64 || p->page_size > (1 << 24) ||
	    (p->page_size & (p->page_size - 1)) ||
	    count > (uint32_t)ncpus || (size_t)(d + n - q) < count * 20ULL)
		return bad(p, err, "bad BUFFER option", at);

	sec = rd(p, d, 8);
	if (pread_all(p, h, sizeof(h), sec, err))
		return -1;
	p->compressed = !!(rd(p, h + 2, 2) & TP_SEC_COMPRESSED);

	p->cpus = calloc(count ? count : 1, sizeof(*p->cpus));
	p->heap = calloc(count ? count : 1, sizeof(*p->heap));
	if (!p->cpus || !p->heap)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory",
				  p->path);
	for (i = 0; i < count; i++, q += 20) {
		struct tp_cpu *c = &p->cpus[p->ncpus];
		int k;

		c->cpu = rd(p, q, 4);
		c->off = rd(p, q + 4, 8);
		c->size = rd(p, q + 12, 8);
		if (c->cpu < 0 || c->cpu >= ncpus)
			return bad(p, err, "BUFFER option names a CPU the trace does not have",
				   at);
		for (k = 0; k < p->ncpus; k++)
			if (p->cpus[k].cpu == c->cpu)
				return bad(p, err, "BUFFER option names a CPU twice",
					   at);
		if (c->off > p->file_size || c->size > p->file_size - c->off)
			return bad(p, err, "CPU data runs past the end of the file",
				   c->off);
		if (!c->size)
			continue;
		p->ncpus++;
		if (!buffer && p->compressed && check_chunks(p, c, err))
			return -1;
		if (!buffer && check_first_page(p, c, err))
			return -1;
	}
	if (buffer)
		return 1;
	/* checked: forget it, the next BUFFER option may come */
	free(p->cpus);
	free(p->heap);
	p->cpus = NULL;
	p->heap = NULL;
	p->ncpus = 0;
	return 0;
}

/*
 * Walks the chain of options sections. Returns 0 with the buffer found
 * (@buffer NULL: every buffer checked), 1 when the file needs libtracecmd
 * (timestamp corrections), -1 on error.
 */
static int find_buffer(struct trace_pages *p, uint64_t off, const char *buffer,
		       int ncpus, struct sw_err *err)
{
	int found = 0, sections = 0;

	while (off) {
		size_t len, at = 0;
		uint64_t next = 0;
		char *d;
		int id;

		if (++sections > TP_MAX_SECTIONS)
			return bad(p, err, "options sections loop", off);
		d = read_section(p, off, &id, &len, err);
		if (!d)
			return -1;
		if (id != TP_OPT_DONE) {
			free(d);
			return bad(p, err, "not an options section", off);
		}
		while (at + 6 <= len) {
			int opt = rd(p, d + at, 2);
			uint64_t n = rd(p, d + at + 2, 4);
			const char *o = d + at + 6;
			int rc = 0;

			if (n > len - at - 6) {
				free(d);
				return bad(p, err, "option runs past its section",
					   off);
			}
			at += 6 + n;
			if (opt == TP_OPT_DATE || opt == TP_OPT_OFFSET ||
			    opt == TP_OPT_TIME_SHIFT || opt == TP_OPT_TSC2NSEC) {
				free(d);
				return 1;
			}
			if (opt == TP_OPT_BUFFER && !found)
				rc = take_buffer(p, o, n, buffer, ncpus, off, err);
			if (rc < 0) {
				free(d);
				return -1;
			}
			found |= rc;
			if (opt == TP_OPT_DONE) {
				next = n >= 8 ? rd(p, o, 8) : 0;
				break;
			}
		}
		free(d);
		off = next;
	}
	if (!found && buffer)
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: no buffer '%s' in the trace", p->path,
				  buffer);
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

/* A compressed CPU's data starts with its number of chunks. */
static int chunk_count(struct trace_pages *p, struct tp_cpu *c,
		       struct sw_err *err)
{
	unsigned char b[4];

	if (c->size < 4)
		return bad(p, err, "compressed CPU data without a chunk count",
			   c->off);
	if (pread_all(p, b, 4, c->off, err))
		return -1;
	c->chunks = rd(p, b, 4);
	c->done = 4;
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
	if (n < 12 || memcmp(h, TP_MAGIC, 10))
		return bad(p, err, "bad magic", 0);
	if (strcmp(h + 10, "7"))
		return 1;	/* version 6 and older: libtracecmd */
	p->big_endian = h[12];
	p->long_size = h[13] == 4 ? 4 : 8;	/* until the tep says */
	if (p->tep && p->big_endian != tep_is_file_bigendian(p->tep))
		return bad(p, err, "header disagrees with the event formats",
			   12);
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

/* Opens @path and reads its header. Returns 0, 1 (not ours) or -1. */
static int pages_new(const char *path, struct tep_handle *tep,
		     struct trace_pages **out, struct sw_err *err)
{
	struct trace_pages *p;
	struct stat st;

	*out = p = calloc(1, sizeof(*p));
	if (!p)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory",
				  path);
	p->path = path;
	p->tep = tep;
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0 || fstat(p->fd, &st))
		return sw_err_set(err, SW_EXIT_BAD_TRACE, "%s: %s", path,
				  strerror(errno));
	p->file_size = st.st_size;
	p->zctx = ZSTD_createDCtx();
	if (!p->zctx)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory",
				  path);
	return read_header(p, &p->options, err);
}

int trace_pages_open(const char *path, const char *buffer,
		     struct tep_handle *tep, int ncpus,
		     struct trace_pages **out, struct sw_err *err)
{
	enum kbuffer_long_size ls;
	struct trace_pages *p;
	int i, rc;

	*out = NULL;
	rc = pages_new(path, tep, &p, err);
	if (!rc)
		rc = find_buffer(p, p->options, buffer ? buffer : "", ncpus,
				 err);
	if (rc)
		goto out;

	p->long_size = tep_get_header_page_size(tep) == 8 ? 8 : 4;
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
			rc = sw_err_set(err, SW_EXIT_RUN_ERROR,
					"%s: out of memory", path);
			goto out;
		}
		if (tep_is_old_format(tep))
			kbuffer_set_old_format(c->kbuf);
		if (p->compressed) {
			rc = chunk_count(p, c, err);
			if (rc)
				goto out;
		}
	}
	*out = p;
	return 0;
out:
	trace_pages_close(p);
	return rc;
}

int trace_pages_check(const char *path, int max_cpus, struct sw_err *err)
{
	struct trace_pages *p;
	int rc;

	rc = pages_new(path, NULL, &p, err);
	if (!rc)
		rc = find_buffer(p, p->options, NULL, max_cpus, err);
	trace_pages_close(p);
	return rc < 0 ? -1 : 0;
}

void trace_pages_close(struct trace_pages *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->ncpus; i++) {
		kbuffer_free(p->cpus[i].kbuf);
		free(p->cpus[i].buf);
	}
	free(p->cpus);
	free(p->heap);
	free(p->zbuf);
	ZSTD_freeDCtx(p->zctx);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}
