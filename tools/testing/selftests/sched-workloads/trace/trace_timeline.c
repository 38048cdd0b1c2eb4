// SPDX-License-Identifier: GPL-2.0
/*
 * A timeline of a short span of the trace, for a figure of what happened
 * around a stretch that --explain names: per CPU, what ran (pid 0 when
 * idle), and each wait of a runnable task on a CPU's runqueue.
 * trace/trace_sched.c hands over every segment as it ends (tl_add()); those
 * that overlap the span are kept, clipped to it, and written as JSON.
 */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "trace/trace_report.h"
#include "trace/trace_timeline.h"

int tl_init(struct trace_report *r, uint64_t start, uint64_t end)
{
	r->tl = calloc(1, sizeof(*r->tl));
	if (!r->tl)
		return -1;
	r->tl->start = start;
	r->tl->end = end;
	return 0;
}

void tl_free(struct trace_report *r)
{
	if (!r->tl)
		return;
	free(r->tl->seg);
	free(r->tl);
	r->tl = NULL;
}

void tl_add(struct trace_report *r, int waiting, int cpu, int pid, int prio,
	    const char *comm, uint64_t start, uint64_t end)
{
	struct ta_timeline *tl = r->tl;
	struct tl_segment *s;

	if (start < tl->start)
		start = tl->start;
	if (end > tl->end)
		end = tl->end;
	if (end <= start || cpu < 0 || cpu >= r->ncpus)
		return;
	if (tl->n == tl->cap) {
		size_t cap = tl->cap ? 2 * tl->cap : 256;
		struct tl_segment *seg = realloc(tl->seg, cap * sizeof(*seg));

		if (!seg) {
			r->failed = 1;
			return;
		}
		tl->seg = seg;
		tl->cap = cap;
	}
	s = &tl->seg[tl->n++];
	s->waiting = waiting;
	s->cpu = cpu;
	s->pid = pid;
	s->prio = prio;
	s->start = start;
	s->end = end;
	snprintf(s->comm, sizeof(s->comm), "%s", pid ? comm : "idle");
}

static int seg_cmp(const void *a, const void *b)
{
	const struct tl_segment *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void print_ts(FILE *f, uint64_t ns)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(ns / 1000000000ull),
		(unsigned long long)(ns % 1000000000ull));
}

/* The comm as a JSON string: a thread may name itself anything. */
static void print_comm(FILE *f, const char *comm)
{
	struct json_object *o = json_object_new_string(comm);

	fputs(o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						  JSON_C_TO_STRING_NOSLASHESCAPE) :
		  "\"?\"", f);
	json_object_put(o);
}

static void print_list(FILE *f, const struct ta_timeline *tl, int waiting)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < tl->n; i++) {
		const struct tl_segment *s = &tl->seg[i];

		if (s->waiting != waiting)
			continue;
		fprintf(f, "%s\n  {\"cpu\": %d, \"start\": ", sep, s->cpu);
		print_ts(f, s->start);
		fprintf(f, ", \"end\": ");
		print_ts(f, s->end);
		fprintf(f, ", \"pid\": %d, \"comm\": ", s->pid);
		print_comm(f, s->comm);
		fprintf(f, ", \"prio\": %d}", s->prio);
		sep = ",";
	}
}

void trace_report_timeline(const struct trace_report *r, FILE *f)
{
	struct ta_timeline *tl = r->tl;

	if (!tl)
		return;
	qsort(tl->seg, tl->n, sizeof(*tl->seg), seg_cmp);
	fprintf(f, "{\"start\": ");
	print_ts(f, tl->start);
	fprintf(f, ", \"end\": ");
	print_ts(f, tl->end);
	fprintf(f, ", \"cpus\": %d,\n\"running\": [", r->ncpus);
	print_list(f, tl, 0);
	fprintf(f, "],\n\"waiting\": [");
	print_list(f, tl, 1);
	fprintf(f, "]}\n");
}
