// SPDX-License-Identifier: GPL-2.0
/*
 * Reads a trace.dat in one time-ordered pass and feeds the scheduler state
 * machine (trace/trace_sched.c): the events of the buffer
 * trace/trace_source.c opened, their fields decoded with bounds checks (a
 * foreign or damaged file must never crash us), and the lost-event
 * accounting.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strchrnul */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_source.h"
#include "trace/trace_conditions.h"
#include "trace/trace_events.h"
#include "trace/trace_infer.h"
#include "trace/trace_report.h"
#include "trace/trace_sched.h"
#include "trace/trace_timeline.h"
#include "trace/trace_metrics.h"


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
		return 1;	/* past the window: the rest is not needed */
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

/* How long before the run's end a complete trace may have gone quiet */
#define TA_END_SLACK_NS (100 * 1000 * 1000ULL)

/* Every event to on_event(). Returns 0, or -1 with @err set. */
static int read_events(struct trace_source *src, const char *path,
		       struct ta_ctx *x, struct sw_err *err)
{
	struct trace_report *r = x->r;

	if (trace_source_iterate(src, on_event, x, err))
		return -1;
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
	struct trace_source src = { 0 };
	struct trace_report *r = NULL;
	struct ta_ctx x = { 0 };

	*out = NULL;
	if (!opts)
		opts = &none;
	if (opts->end_ns && opts->start_ns > opts->end_ns)
		return sw_err_set(err, SW_EXIT_USAGE,
				  "%s: window starts after it ends", path);
	if (trace_source_open(path, opts->buffer, opts->use_libtracecmd, &src,
			      err))
		return -1;
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
	r->lost_stats = stats_lost(src.cpustats, src.buffer);
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
	trace_source_close(&src);
	*out = r;
	return 0;

fail:
	trace_report_free(r);
	trace_source_close(&src);
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
		free(t->fork_idle);
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
