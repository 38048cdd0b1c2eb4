// SPDX-License-Identifier: GPL-2.0
/*
 * Reads a trace.dat in one time-ordered pass and feeds the scheduler state
 * machine (trace/trace_sched.c). This file owns the file: opening it with
 * libtracecmd (headers, event formats, buffers), choosing the buffer,
 * reading its events (trace/tracedat_read.c, or libtracecmd's iteration for files
 * that reader leaves alone), decoding fields with bounds checks (a foreign
 * or damaged file must never crash us), and the lost-event accounting.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strchrnul, off64_t */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "lib/subprocess.h"
#include "trace/trace_state.h"
#include "trace/tracedat_read.h"
#include "trace/tracecmd_private.h"
#include "trace/tracedat.h"


enum ta_kind {
	EV_SWITCH,
	EV_WAKING,
	EV_WAKEUP,
	EV_WAKEUP_NEW,
	EV_MIGRATE,
	EV_EXIT,
	EV_PI,
	EV_IPI_CPU,
	EV_IPI_MASK,
	EV_FREQ,
	EV_NR,
};

#define MAX_FIELDS 8

static const struct {
	const char *sys, *name;
	const char *fields[MAX_FIELDS];
} ev_desc[EV_NR] = {
	[EV_SWITCH] = { "sched", "sched_switch", { "prev_comm", "prev_pid",
		"prev_prio", "prev_state", "next_comm", "next_pid",
		"next_prio" } },
	[EV_WAKING] = { "sched", "sched_waking",
		{ "comm", "pid", "prio", "target_cpu" } },
	[EV_WAKEUP] = { "sched", "sched_wakeup",
		{ "comm", "pid", "prio", "target_cpu" } },
	[EV_WAKEUP_NEW] = { "sched", "sched_wakeup_new",
		{ "comm", "pid", "prio", "target_cpu" } },
	[EV_MIGRATE] = { "sched", "sched_migrate_task",
		{ "comm", "pid", "orig_cpu", "dest_cpu" } },
	[EV_EXIT] = { "sched", "sched_process_exit", { "comm", "pid" } },
	[EV_PI] = { "sched", "sched_pi_setprio",
		{ "pid", "oldprio", "newprio" } },
	[EV_IPI_CPU] = { "ipi", "ipi_send_cpu", { "cpu" } },
	[EV_IPI_MASK] = { "ipi", "ipi_send_cpumask", { "cpumask" } },
	[EV_FREQ] = { "power", "cpu_frequency", { "state", "cpu_id" } },
};

/* A field's place in the record, from its format, looked up once. */
struct ta_field {
	int offset, size;	/* size 0: the event lacks the field */
	int is_signed, dynamic, relative;
};

struct ta_event {
	int id;			/* -1: not in this trace */
	struct ta_field f[MAX_FIELDS];
};

struct ta_ctx {
	struct trace_report *r;
	struct tep_handle *tep;
	struct ta_event ev[EV_NR];
	struct ta_field common_type, common_pid;
	int swap;		/* the file's byte order is not ours */
	int long_size;
};

static void field_set(struct ta_field *to, const struct tep_format_field *f)
{
	memset(to, 0, sizeof(*to));
	if (!f || f->offset < 0 || f->size <= 0)
		return;
	to->offset = f->offset;
	to->size = f->size;
	to->is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED);
	to->dynamic = !!(f->flags & TEP_FIELD_IS_DYNAMIC);
	to->relative = !!(f->flags & TEP_FIELD_IS_RELATIVE);
	if (f->flags & TEP_FIELD_IS_ARRAY)
		to->dynamic |= 2;	/* a string, not a number */
}

/* A 1, 2, 4 or 8-byte number of the file's byte order. */
static unsigned long long rdnum(const struct ta_ctx *x, const void *p,
				int size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		memcpy(&v2, p, 2);
		return x->swap ? __builtin_bswap16(v2) : v2;
	case 4:
		memcpy(&v4, p, 4);
		return x->swap ? __builtin_bswap32(v4) : v4;
	default:
		memcpy(&v8, p, 8);
		return x->swap ? __builtin_bswap64(v8) : v8;
	}
}

/* A field is usable only if the record really holds it. */
static int fnum(const struct ta_ctx *x, const struct tep_record *rec,
		const struct ta_field *f, long long *out)
{
	unsigned long long v;

	if (!f->size || f->size > 8 || (f->size & (f->size - 1)) ||
	    f->offset + f->size > rec->size)
		return -1;
	v = rdnum(x, (const char *)rec->data + f->offset, f->size);
	/* sign-extend the 4-byte pid/prio/cpu fields */
	if (f->size == 4 && f->is_signed)
		*out = (int)v;
	else
		*out = (long long)v;
	return 0;
}

/* Start and length of a string or __data_loc field, inside the record. */
static const char *fraw(const struct ta_ctx *x, const struct tep_record *rec,
			const struct ta_field *f, int *len)
{
	long long loc;
	int off;

	if (!f->size)
		return NULL;
	if (!(f->dynamic & 1)) {
		if (f->offset + f->size > rec->size)
			return NULL;
		*len = f->size;
		return (const char *)rec->data + f->offset;
	}
	if (fnum(x, rec, f, &loc))
		return NULL;
	off = loc & 0xffff;
	*len = (loc >> 16) & 0xffff;
	if (f->relative)
		off += f->offset + f->size;
	if (off < 0 || off + *len > rec->size)
		return NULL;
	return (const char *)rec->data + off;
}

static void fcomm(const struct ta_ctx *x, const struct tep_record *rec,
		  const struct ta_field *f, char *buf)
{
	const char *s;
	int len = 0;

	buf[0] = '\0';
	s = fraw(x, rec, f, &len);
	if (!s)
		return;
	if (len > TA_COMM_LEN - 1)
		len = TA_COMM_LEN - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';	/* the comm's own NUL, if any, comes first */
}

static void on_ipi_mask(struct ta_ctx *x, const struct tep_record *rec,
			uint64_t ts)
{
	const char *bits;
	int len = 0, cpu, ls = x->long_size;

	bits = fraw(x, rec, &x->ev[EV_IPI_MASK].f[0], &len);
	if (!bits)
		return;
	for (cpu = 0; cpu < x->r->ncpus && cpu / 8 < len; cpu++) {
		int word = cpu / (8 * ls), bit = cpu % (8 * ls);
		unsigned long long w;

		if ((word + 1) * ls > len)
			break;
		w = rdnum(x, bits + word * ls, ls);
		if (w >> bit & 1)
			ta_ipi(x->r, ts, cpu);
	}
}

static void dispatch(struct ta_ctx *x, int kind, const struct tep_record *rec,
		     int common_pid, uint64_t ts)
{
	struct trace_report *r = x->r;
	const struct ta_field *f = x->ev[kind].f;
	char c1[TA_COMM_LEN], c2[TA_COMM_LEN];
	long long v[MAX_FIELDS] = { 0 };
	int i;

	/* every numeric field must be there; strings are optional */
	for (i = 0; i < MAX_FIELDS && ev_desc[kind].fields[i]; i++) {
		if (f[i].dynamic)
			continue;
		if (fnum(x, rec, &f[i], &v[i]))
			return;
	}
	switch (kind) {
	case EV_SWITCH:
		r->nswitch++;
		fcomm(x, rec, &f[0], c1);
		fcomm(x, rec, &f[4], c2);
		ta_switch(r, rec->cpu, ts, v[1], c1, v[2], v[3], v[5], c2,
			  v[6]);
		break;
	case EV_WAKING:
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
		fcomm(x, rec, &f[0], c1);
		if (kind == EV_WAKING)
			ta_waking(r, ts, v[1], c1, v[2], v[3], 0, common_pid);
		else
			ta_wakeup(r, ts, v[1], c1, v[2], v[3],
				  kind == EV_WAKEUP_NEW, common_pid);
		break;
	case EV_MIGRATE:
		fcomm(x, rec, &f[0], c1);
		ta_migrate(r, ts, v[1], c1, v[2], v[3]);
		break;
	case EV_EXIT:
		fcomm(x, rec, &f[0], c1);
		ta_exit(r, ts, v[1], c1);
		break;
	case EV_PI:
		ta_pi_setprio(r, ts, common_pid, v[0], v[1], v[2]);
		break;
	case EV_IPI_CPU:
		ta_ipi(r, ts, v[0]);
		break;
	case EV_IPI_MASK:
		on_ipi_mask(x, rec, ts);
		break;
	case EV_FREQ:
		ta_freq(r, ts, v[1], v[0]);
		break;
	}
}

/* One event, from either reader; non-zero stops the reading. */
static int on_event(struct tep_record *rec, void *data)
{
	struct ta_ctx *x = data;
	struct trace_report *r = x->r;
	uint64_t ts = rec->ts;
	int kind, id, pid, cpu = rec->cpu;
	long long v, type;

	if (r->we && ts > r->we) {
		r->stopped = 1;
		return -1;	/* 1.3.1 stops only on a negative return */
	}
	if (rec->size < 8 || cpu < 0 || cpu >= r->ncpus)
		return 0;
	if (fnum(x, rec, &x->common_pid, &v) || fnum(x, rec, &x->common_type,
						     &type))
		return 0;
	pid = v;
	id = type;
	ts = ta_record(r, cpu, pid, ts, rec->missed_events);

	for (kind = 0; kind < EV_NR; kind++)
		if (x->ev[kind].id == id)
			break;
	if (kind < EV_NR)
		dispatch(x, kind, rec, pid, ts);
	ta_reevaluate(r, ts);
	return r->failed ? -1 : 0;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec,
		     int cpu, void *data)
{
	(void)h;
	(void)cpu;	/* rec->cpu says the same */
	return on_event(rec, data);
}

static void find_events(struct ta_ctx *x)
{
	int k, i;

	for (k = 0; k < EV_NR; k++) {
		struct tep_event *e = tep_find_event_by_name(x->tep,
				ev_desc[k].sys, ev_desc[k].name);

		x->ev[k].id = e ? e->id : -1;
		for (i = 0; i < MAX_FIELDS; i++)
			field_set(&x->ev[k].f[i], e && ev_desc[k].fields[i] ?
				  tep_find_field(e, ev_desc[k].fields[i]) :
				  NULL);
		if (k == EV_SWITCH && e) {
			field_set(&x->common_pid,
				  tep_find_common_field(e, "common_pid"));
			field_set(&x->common_type,
				  tep_find_common_field(e, "common_type"));
		}
	}
	x->swap = tep_is_file_bigendian(x->tep) !=
		  tep_is_local_bigendian(x->tep);
}

/* Sums the overruns and drops the kernel reported for @buffer's CPUs. */
static uint64_t stats_lost(const char *stats, const char *buffer)
{
	const char *p = stats, *end;
	uint64_t lost = 0;
	int in = !buffer;

	if (!p)
		return 0;
	for (; *p; p = *end ? end + 1 : end) {
		unsigned long long v;

		end = strchrnul(p, '\n');
		if (!strncmp(p, "Buffer: ", 8)) {
			in = buffer && (size_t)(end - p - 8) == strlen(buffer) &&
			     !strncmp(p + 8, buffer, end - p - 8);
			continue;
		}
		if (!in)
			continue;
		if (sscanf(p, "overrun: %llu", &v) == 1 ||
		    sscanf(p, "commit overrun: %llu", &v) == 1 ||
		    sscanf(p, "dropped events: %llu", &v) == 1)
			lost += v;
	}
	return lost;
}

static int has_data(struct tracecmd_input *h)
{
	int cpu, n = tracecmd_cpus(h);

	for (cpu = 0; cpu < n; cpu++) {
		struct tep_record *rec;

		/* a CPU without events has no section: reading it crashes */
		if (tracecmd_get_cpu_file_size(h, cpu) <= 0)
			continue;
		rec = tracecmd_read_cpu_first(h, cpu);
		if (rec) {
			tracecmd_free_record(rec);
			return 1;
		}
	}
	return 0;
}

/*
 * The top-level buffer, or a named instance, or (when the top level is
 * empty, as with `trace-cmd extract -B`) the first instance with data.
 */
static struct tracecmd_input *pick_buffer(struct tracecmd_input *top,
					  const char *want, const char **name,
					  const char *path, struct sw_err *err)
{
	int i, n = tracecmd_buffer_instances(top);
	struct tracecmd_input *h;

	*name = NULL;
	if (!want && (has_data(top) || !n))
		return top;
	for (i = 0; i < n; i++) {
		const char *bn = tracecmd_buffer_instance_name(top, i);

		if (want && (!bn || strcmp(bn, want)))
			continue;
		h = tracecmd_buffer_instance_handle(top, i);
		if (!h)
			continue;
		if (want || has_data(h)) {
			*name = bn;
			return h;
		}
		tracecmd_close(h);
	}
	if (want) {
		sw_err_set(err, SW_EXIT_BAD_TRACE,
			   "%s: no buffer named '%s' in the trace", path, want);
		return NULL;
	}
	return top;	/* every buffer is empty */
}

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

/*
 * libtracecmd refuses most truncated files at open, but make sure every
 * CPU's last record can be read, and, in an uncompressed file, that its
 * data page lies within the file, before reading it. A compressed file's
 * record offsets are offsets in the decompressed data, which may well be
 * larger than the file: there, a cut shows as a last chunk that cannot be
 * read. (A cut inside the trailing section-name strings of a v7 file goes
 * unnoticed by libtracecmd and by us; no event is lost then.) @top is the
 * file's handle, @h the buffer's.
 */
static int check_whole(struct tracecmd_input *top, struct tracecmd_input *h,
		       const char *path, struct sw_err *err)
{
	int cpu, n = tracecmd_cpus(h), ps = tracecmd_page_size(h);
	int compressed = !tracecmd_get_file_compress_proto(top, NULL, NULL);
	struct stat st;

	if (ps <= 0)
		ps = 1;
	if (stat(path, &st))
		return sw_err_set(err, SW_EXIT_BAD_TRACE, "%s: %s", path,
				  strerror(errno));
	for (cpu = 0; cpu < n; cpu++) {
		off64_t size = tracecmd_get_cpu_file_size(h, cpu);
		struct tep_record *rec;
		unsigned long long end = 0;

		if (size <= 0)
			continue;	/* no events on this CPU (or offline) */
		rec = tracecmd_read_cpu_last(h, cpu);
		if (!rec && compressed)
			return sw_err_set(err, SW_EXIT_BAD_TRACE,
					  "%s: truncated or corrupt: the compressed data of CPU %d cannot be read to its end",
					  path, cpu);
		if (rec) {
			/* data is stored in whole pages: check the last one */
			end = rec->offset / ps * ps + ps;
			tracecmd_free_record(rec);
		}
		if (!compressed && end > (unsigned long long)st.st_size)
			return sw_err_set(err, SW_EXIT_BAD_TRACE,
					  "%s: truncated: CPU %d data runs past the end of the file",
					  path, cpu);
	}
	return 0;
}

/* What either way of opening the file gives the analysis. */
struct ta_source {
	struct trace_pages *pages;	/* or libtracecmd's: */
	struct tracecmd_input *top, *h;
	struct tep_handle *tep;
	const char *bufname;		/* NULL: the top level */
	const char *cpustats;
	int ncpus;
};

static void source_close(struct ta_source *src)
{
	trace_pages_close(src->pages);
	if (src->h && src->h != src->top)
		tracecmd_close(src->h);
	if (src->top)
		tracecmd_close(src->top);
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

/*
 * In a child (child_try()): libtracecmd opens the file and reads every
 * event of it. 0, or 1 when it refuses; a crash is libtracecmd's own.
 */
static int try_libtracecmd(void *arg)
{
	struct tracecmd_input *h;
	unsigned long n = 0;
	int rc;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(arg, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		return 1;
	rc = tracecmd_iterate_events(h, NULL, 0, count_record, &n) < 0;
	tracecmd_close(h);
	return rc;
}

/*
 * trace/tracedat_read.c when it takes the file (a version 7 one), else
 * libtracecmd, checked first where it would read unchecked.
 */
static int source_open(const char *path, const struct trace_opts *opts,
		       struct ta_source *src, struct sw_err *err)
{
	int rc = 1;

	memset(src, 0, sizeof(*src));
	if (!opts->use_libtracecmd)
		rc = trace_pages_open(path, opts->buffer, &src->pages, err);
	if (rc < 0)
		return -1;
	if (!rc) {
		src->tep = trace_pages_tep(src->pages);
		src->bufname = trace_pages_buffer(src->pages);
		src->cpustats = trace_pages_cpustats(src->pages);
		src->ncpus = trace_pages_ncpus(src->pages);
		return 0;
	}
	if (trace_pages_check(path, opts->buffer, err))
		return -1;
	/*
	 * What trace/tracedat_read.c cannot check (a version 6 file; the formats
	 * of systems it does not parse) libtracecmd 1.3.1 may crash on:
	 * it reads the file in a child first.
	 */
	if (child_try(try_libtracecmd, (void *)path) < 0)
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: corrupt trace.dat (libtracecmd crashes reading it)",
				  path);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	src->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!src->top)
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: corrupt or truncated trace.dat (libtracecmd cannot open it)",
				  path);
	src->h = pick_buffer(src->top, opts->buffer, &src->bufname, path, err);
	if (!src->h)
		return -1;
	src->tep = tracecmd_get_tep(src->h);
	src->cpustats = tracecmd_get_cpustats(src->top);
	src->ncpus = tracecmd_cpus(src->h);
	return 0;
}

/* How long before the run's end a complete trace may have gone quiet */
#define TA_END_SLACK_NS (100 * 1000 * 1000ULL)

/* Every event to on_event(). Returns 0, or -1 with @err set. */
static int read_events(struct ta_source *src, const char *path,
		       struct ta_ctx *x, struct sw_err *err)
{
	struct trace_report *r = x->r;

	if (src->pages) {
		if (trace_pages_iterate(src->pages, on_event, x, err))
			return -1;
	} else {
		if (check_whole(src->top, src->h, path, err))
			return -1;
		/* the checks moved the read cursors: rewind them */
		tracecmd_set_all_cpus_to_timestamp(src->h, 0);
		if (tracecmd_iterate_events(src->h, NULL, 0, on_record, x) < 0 &&
		    !r->stopped && !r->failed)
			return sw_err_set(err, SW_EXIT_BAD_TRACE,
					  "%s: error while reading the events",
					  path);
	}
	if (r->failed)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory",
				  path);
	/*
	 * The run's threads switch out as they finish its last passes: a
	 * trace whose events end well before then is cut short, not a
	 * shorter run.
	 */
	if (r->we && !r->stopped && r->nevents &&
	    r->last_ts + TA_END_SLACK_NS < r->we)
		return sw_err_set(err, SW_EXIT_BAD_TRACE,
				  "%s: truncated: the events end at %.6f s, %.3f s before the run's last pass (at %.6f s)",
				  path, r->last_ts / 1e9,
				  (r->we - r->last_ts) / 1e9, r->we / 1e9);
	return 0;
}

int trace_analyze(const char *path, const struct trace_opts *opts,
		  struct trace_report **out, struct sw_err *err)
{
	static const struct trace_opts none;
	struct trace_report *r = NULL;
	struct ta_source src = { 0 };
	struct ta_ctx x = { 0 };

	*out = NULL;
	if (!opts)
		opts = &none;
	if (opts->end_ns && opts->start_ns > opts->end_ns)
		return sw_err_set(err, SW_EXIT_USAGE,
				  "%s: window starts after it ends", path);
	if (check_file(path, err))
		return -1;
	if (source_open(path, opts, &src, err))
		goto fail;
	if (src.ncpus < 0 || src.ncpus > CPUBITS_MAX_CPUS) {
		sw_err_set(err, SW_EXIT_BAD_TRACE, "%s: implausible CPU count %d",
			   path, src.ncpus);
		goto fail;
	}
	r = calloc(1, sizeof(*r));
	if (!r || ta_report_init(r, path, src.ncpus, opts)) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory", path);
		goto fail;
	}

	x.r = r;
	x.tep = src.tep;
	x.long_size = tep_get_long_size(x.tep);
	if (x.long_size != 4 && x.long_size != 8)
		x.long_size = 8;
	find_events(&x);
	if (x.ev[EV_SWITCH].id < 0 || !x.ev[EV_SWITCH].f[1].size ||
	    !x.common_pid.size || !x.common_type.size) {
		sw_err_set(err, SW_EXIT_BAD_TRACE,
			   "%s: no sched:sched_switch format in the trace", path);
		goto fail;
	}

	if (src.ncpus && read_events(&src, path, &x, err))
		goto fail;
	r->lost_stats = stats_lost(src.cpustats, src.bufname);
	if (r->nevents && !r->nswitch) {
		sw_err_set(err, SW_EXIT_BAD_TRACE,
			   "%s: %llu events but no sched:sched_switch: record with the sched events enabled",
			   path, (unsigned long long)r->nevents);
		goto fail;
	}
	if (!r->nevents)
		snprintf(r->note, sizeof(r->note), "empty trace: no events%s",
			 r->ws ? " up to the window end" : "");
	ta_finish(r);
	ta_classify(r);
	if (r->failed) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: out of memory", path);
		goto fail;
	}
	r->opts = NULL;
	source_close(&src);
	*out = r;
	return 0;

fail:
	trace_report_free(r);
	source_close(&src);
	return -1;
}

const char *trace_report_note(const struct trace_report *r)
{
	return r->note[0] ? r->note : NULL;
}

void trace_report_free(struct trace_report *r)
{
	struct ta_task *t, *next;

	if (!r)
		return;
	for (t = r->tasks; t; t = next) {
		next = t->next;
		series_free(&t->wakeup_lat);
		series_free(&t->run_burst);
		series_free(&t->sleep);
		series_free(&t->wakeup_gap);
		free(t->acts);
		free(t->cpu_ns_on);
		free(t);
	}
	free(r->cpu);
	free(r->masks);
	free(r->idle_cpus);
	free(r->wait_cnt);
	free(r->busy_wait);
	free(r->core_threads);
	free(r->core_busy);
	free(r->core_idle);
	tl_free(r);
	free(r);
}
