// SPDX-License-Identifier: GPL-2.0
/*
 * The pages of a version 7 trace.dat, where trace/tracedat_layout.c found
 * them: raw, or, when the buffer's section is flagged compressed, in
 * chunks of whole pages each one zstd frame. Every page header and event
 * length is checked against its page before it is used: the file may come
 * from anywhere.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <traceevent/kbuffer.h>

#include "lib/subprocess.h"
#include "trace/tracedat_layout.h"
#include "trace/tracedat_read.h"

#define TP_BATCH_PAGES		64		/* read per CPU at a time */

struct tp_cpu {
	struct tracedat_cpu where;	/* the CPU's data in the file */
	uint64_t done;		/* bytes of it consumed (compressed: of chunks) */
	uint32_t chunks;	/* compressed: chunks left */
	char *buf;		/* loaded pages */
	size_t len, cap, page;	/* bytes loaded, room, next page's offset */
	const char *cur;	/* page kbuf holds; NULL: none yet */
	struct kbuffer *kbuf;
	struct tep_record rec;	/* the CPU's next event */
};

struct trace_pages {
	struct tracedat_layout *l;
	int long_size;		/* of the kernel: the page header's commit */
	char *zbuf;		/* one compressed chunk */
	size_t zcap;
	int *has_events;	/* per buffer: some CPU's first page holds data */
	const struct tracedat_buffer *buf;	/* the one read */
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
	return tracedat_num(p->l, src, n);
}

static int bad(const struct trace_pages *p, struct sw_err *err,
	       const char *what, uint64_t at)
{
	return tracedat_bad(p->l, err, what, at);
}

static int oom(const struct trace_pages *p, struct sw_err *err)
{
	return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory",
			  p->l->path);
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

/* Loads the next batch of @c's pages. Returns 1, 0 at the end, -1. */
static int load(struct trace_pages *p, struct tp_cpu *c, struct sw_err *err)
{
	uint64_t at = c->where.off + c->done;
	size_t want;

	if (!p->compressed) {
		want = c->where.size - c->done;
		if (!want)
			return 0;
		if (want > (size_t)p->page_size * TP_BATCH_PAGES)
			want = (size_t)p->page_size * TP_BATCH_PAGES;
		if (tracedat_pread(p->l, c->buf, want, at, err))
			return -1;
	} else {
		size_t zsize, r;

		if (!c->chunks)
			return 0;
		/*
		 * The chunk count, not the BUFFER option's size (4 bytes
		 * short in trace-cmd 3.1's files), says where the data ends.
		 */
		if (tracedat_chunk_header(p->l, at, p->page_size, &zsize,
					  &want, err) ||
		    grow(p, &p->zbuf, &p->zcap, zsize, err) ||
		    grow(p, &c->buf, &c->cap, want, err))
			return -1;
		if (tracedat_pread(p->l, p->zbuf, zsize, at + 8, err))
			return -1;
		r = ZSTD_decompressDCtx(p->l->zctx, c->buf, want, p->zbuf,
					zsize);
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
 * The first page of the CPU data @where, which libtracecmd reads
 * (unchecked) when it looks for the buffer with data: checked before it
 * gets the file. Sets *@has_data when the page holds any.
 */
static int check_first_page(struct trace_pages *p,
			    const struct tracedat_cpu *where, int *has_data,
			    struct sw_err *err)
{
	struct tp_cpu c = { .where = *where };
	int rc;

	if (!p->compressed) {
		c.buf = malloc(p->page_size);
		if (!c.buf)
			return oom(p, err);
		if (where->size < p->page_size)
			rc = bad(p, err, "CPU data smaller than a page",
				 where->off);
		else
			rc = tracedat_pread(p->l, c.buf, p->page_size,
					    where->off, err);
	} else {
		c.chunks = 1;
		c.done = 4;
		rc = load(p, &c, err) < 0 ? -1 : 0;
	}
	if (!rc && c.buf && !page_sane(p, c.buf))
		rc = bad(p, err, "page header out of range", where->off);
	if (!rc && c.buf && rd(p, c.buf + 8, p->long_size) & ((1U << 27) - 1))
		*has_data = 1;
	free(c.buf);
	return rc;
}

/*
 * What libtracecmd would read unchecked: every chunk header, each CPU's
 * first page (whether it holds data, too).
 */
static int check_buffer(struct trace_pages *p, const struct tracedat_buffer *b,
			int *has_events, struct sw_err *err)
{
	int i;

	p->compressed = b->compressed;
	p->page_size = b->page_size;
	for (i = 0; i < b->ncpus; i++) {
		const struct tracedat_cpu *c = &b->cpus[i];

		if (b->compressed &&
		    tracedat_check_chunks(p->l, c, b->page_size, err))
			return -1;
		if (check_first_page(p, c, has_events, err))
			return -1;
	}
	return 0;
}

/*
 * As libtracecmd users pick: the buffer named @want; else the top level
 * when it has events or there is nothing else, else the first instance
 * with events, else the top level.
 */
static const struct tracedat_buffer *choose(struct trace_pages *p,
					    const char *want,
					    struct sw_err *err)
{
	const struct tracedat_buffer *bufs = p->l->bufs;
	int i, top = -1, n = p->l->nbufs;

	for (i = 0; i < n; i++) {
		if (want && !strcmp(bufs[i].name, want))
			return &bufs[i];
		if (top < 0 && !bufs[i].name[0])
			top = i;
	}
	if (want) {
		sw_err_set(err, SW_EXIT_BAD_TRACE,
			   "%s: no buffer named '%s' in the trace", p->l->path,
			   want);
		return NULL;
	}
	if (top >= 0 && (p->has_events[top] || n == 1))
		return &bufs[top];
	for (i = 0; i < n; i++)
		if (bufs[i].name[0] && p->has_events[i])
			return &bufs[i];
	if (top < 0) {
		bad(p, err, "no top-level buffer", p->l->options);
		return NULL;
	}
	return &bufs[top];
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
	tep_set_file_bigendian(tep, p->l->big_endian ? TEP_BIG_ENDIAN :
						       TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN :
							  TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, p->l->long_size);
	tep_set_page_size(tep, p->l->page_size);
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
	const struct tracedat_layout *l = p->l;
	struct formats_try f = { .p = p };
	size_t len, at = 0;
	uint64_t size;
	const char *name;
	char *d;
	int id, rc;

	p->tep = new_tep(p);
	if (!p->tep)
		return oom(p, err);
	if (!l->header_sec || !l->formats_sec)
		return bad(p, err, "no header or event formats section",
			   l->options);

	d = tracedat_read_section(l, l->header_sec, &id, &len, err);
	if (!d)
		return -1;
	name = take_str(d, len, &at);
	if (!name || strcmp(name, "header_page") ||
	    take_num(p, d, len, &at, 8, &size) || size > len - at ||
	    tep_parse_header_page(p->tep, d + at, size, l->long_size)) {
		free(d);
		return bad(p, err, "bad header_page", l->header_sec);
	}
	free(d);

	d = tracedat_read_section(l, l->formats_sec, &id, &len, err);
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
		return bad(p, err, "bad event formats section", l->formats_sec);
	if (rc)
		return bad(p, err, "an event format libtraceevent crashes on",
			   l->formats_sec);
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
					   c->where.off + c->done);
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
				   c->where.off + c->done);
		d = kbuffer_read_event(c->kbuf, &ts);
		c->rec.missed_events = kbuffer_missed_events(c->kbuf);
	}
	c->rec.ts = ts;
	c->rec.data = d;
	c->rec.size = kbuffer_event_size(c->kbuf);
	if (c->rec.size < 0 ||
	    (const char *)d + c->rec.size > c->cur + p->page_size)
		return bad(p, err, "event runs past its page",
			   c->where.off + c->done);
	return 1;
}

static int earlier(const struct trace_pages *p, int a, int b)
{
	const struct tp_cpu *x = &p->cpus[a], *y = &p->cpus[b];

	if (x->rec.ts != y->rec.ts)
		return x->rec.ts < y->rec.ts;
	return x->where.cpu < y->where.cpu;
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

/*
 * Opens @path, reads its layout, checks every buffer.
 * Returns 0, 1 (not ours), -1.
 */
static int pages_new(const char *path, struct trace_pages **out,
		     struct sw_err *err)
{
	struct trace_pages *p;
	int i, rc;

	*out = p = calloc(1, sizeof(*p));
	if (!p)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory",
				  path);
	rc = tracedat_layout_open(path, TRACEDAT_PAGES_READER, &p->l, err);
	if (rc)
		return rc;
	p->long_size = p->l->long_size;	/* until the header page says */
	p->has_events = calloc(p->l->nbufs ? p->l->nbufs : 1,
			       sizeof(*p->has_events));
	if (!p->has_events)
		return oom(p, err);
	for (i = 0; !rc && i < p->l->nbufs; i++)
		rc = check_buffer(p, &p->l->bufs[i], &p->has_events[i], err);
	return rc;
}

int trace_pages_open(const char *path, const char *buffer,
		     struct trace_pages **out, struct sw_err *err)
{
	enum kbuffer_long_size ls;
	enum kbuffer_endian endian;
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
	p->ncpus = p->buf->ncpus;
	p->cpus = calloc(p->ncpus ? p->ncpus : 1, sizeof(*p->cpus));
	p->heap = calloc(p->ncpus ? p->ncpus : 1, sizeof(*p->heap));
	if (!p->cpus || !p->heap) {
		rc = oom(p, err);
		goto out;
	}
	p->long_size = tep_get_header_page_size(p->tep) == 8 ? 8 : 4;
	ls = p->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4;
	endian = p->l->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE;
	for (i = 0; i < p->ncpus; i++) {
		struct tp_cpu *c = &p->cpus[i];

		c->where = p->buf->cpus[i];
		c->rec.cpu = c->where.cpu;
		c->kbuf = kbuffer_alloc(ls, endian);
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
			rc = tracedat_chunk_count(p->l, &c->where, &c->chunks,
						  err);
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
		return p->l->cpucount;
	return p->buf->max_cpus;
}

const char *trace_pages_buffer(const struct trace_pages *p)
{
	return p->buf->name[0] ? p->buf->name : NULL;
}

const char *trace_pages_cpustats(const struct trace_pages *p)
{
	return p->l->cpustats;
}

void trace_pages_close(struct trace_pages *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; p->cpus && i < p->ncpus; i++) {
		kbuffer_free(p->cpus[i].kbuf);
		free(p->cpus[i].buf);
	}
	free(p->cpus);
	free(p->heap);
	free(p->has_events);
	free(p->zbuf);
	if (p->tep)
		tep_free(p->tep);
	tracedat_layout_close(p->l);
	free(p);
}
