// SPDX-License-Identifier: GPL-2.0
/*
 * The file written (trace-cmd.dat.v7(5)), every number in this machine's
 * byte order, sections one after the other so that a reader scanning them
 * (trace-cmd dump does, for the strings) finds each:
 *
 *   initial header, offset of the options section
 *   HEADER_INFO   header_page and header_event
 *   EVENT_FORMATS the formats of the events enabled in the instance
 *   CMDLINES      saved_cmdlines
 *   flyrecord     padding to a page boundary, then each CPU's pages
 *   OPTIONS       where the above lie, clock, uname, CPU count, the
 *                 per-CPU statistics, the BUFFER option, DONE
 *   STRINGS       the sections' descriptions
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <tracefs.h>

#include "trace/tracedat.h"
#include "trace/tracedat_write.h"


/* Section descriptions: the strings section holds them, NUL-separated. */
static const char *const tw_strings[] = {
	"options", "headers", "events format", "command lines",
	"buffer flyrecord ", "strings",
};

enum { TW_STR_OPTIONS, TW_STR_HEADERS, TW_STR_FORMATS, TW_STR_CMDLINES,
	TW_STR_FLYRECORD, TW_STR_STRINGS };

struct tw_file {
	const char *path;	/* the name it will have, for messages */
	int fd;
	uint64_t off;		/* bytes written */
	struct sw_err *err;
};

static int tw_fail(struct tw_file *f, const char *what)
{
	return sw_err_set(f->err, SW_EXIT_RUN_ERROR,
			  "%s: cannot save the trace: %s (at byte %llu): %s",
			  f->path, what, (unsigned long long)f->off,
			  errno ? strerror(errno) : "short write");
}

static int put(struct tw_file *f, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(f->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = 0;
			return tw_fail(f, "write failed");
		}
		p += w;
		n -= w;
		f->off += w;
	}
	return 0;
}

static int put16(struct tw_file *f, uint16_t v)
{
	return put(f, &v, sizeof(v));
}

static int put32(struct tw_file *f, uint32_t v)
{
	return put(f, &v, sizeof(v));
}

static int put64(struct tw_file *f, uint64_t v)
{
	return put(f, &v, sizeof(v));
}

static int put_str(struct tw_file *f, const char *s)
{
	return put(f, s, strlen(s) + 1);
}

/* Overwrites 8 bytes already written (a size or an offset). */
static int patch64(struct tw_file *f, uint64_t at, uint64_t v)
{
	if (pwrite(f->fd, &v, sizeof(v), at) != sizeof(v))
		return tw_fail(f, "write failed");
	return 0;
}

static uint32_t string_id(int which)
{
	uint32_t id = 0;
	int i;

	for (i = 0; i < which; i++)
		id += strlen(tw_strings[i]) + 1;
	return id;
}

/* A section header with its size to patch in section_end(). */
static int section_begin(struct tw_file *f, uint16_t id, int desc,
			 uint64_t *start)
{
	*start = f->off;
	return put16(f, id) || put16(f, 0) || put32(f, string_id(desc)) ||
	       put64(f, 0);
}

static int section_end(struct tw_file *f, uint64_t start)
{
	return patch64(f, start + 8, f->off - start - 16);
}

static int option(struct tw_file *f, uint16_t id, const void *data,
		  uint32_t size)
{
	return put16(f, id) || put32(f, size) || put(f, data, size);
}

static int option64(struct tw_file *f, uint16_t id, uint64_t v)
{
	return option(f, id, &v, sizeof(v));
}

/* A file of the top tracing directory, which the reader must have. */
static char *tracing_file(struct tw_file *f, const char *name, int *size)
{
	char *text = tracefs_instance_file_read(NULL, name, size);

	if (!text)
		tw_fail(f, name);
	return text;
}

static int write_headers(struct tw_file *f, uint64_t *at)
{
	static const char *const files[][2] = {
		{ "header_page", "events/header_page" },
		{ "header_event", "events/header_event" },
	};
	size_t i;
	int rc;

	if (section_begin(f, TRACEDAT_OPT_HEADER_INFO, TW_STR_HEADERS, at))
		return -1;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		int size;
		char *text = tracing_file(f, files[i][1], &size);

		if (!text)
			return -1;
		rc = put_str(f, files[i][0]) || put64(f, size) ||
		     put(f, text, size);
		free(text);
		if (rc)
			return -1;
	}
	return section_end(f, *at);
}

struct tw_event {
	const char *sys, *name;
};

static int by_system(const void *a, const void *b)
{
	const struct tw_event *x = a, *y = b;
	int c = strcmp(x->sys, y->sys);

	return c ? c : strcmp(x->name, y->name);
}

/* The formats of the events set_event lists, grouped by system. */
static int write_formats(struct tw_file *f, struct tracefs_instance *inst,
			 uint64_t *at)
{
	char *text = tracefs_instance_file_read(inst, "set_event", NULL);
	struct tw_event *ev = NULL;
	char *line, *save, *colon;
	size_t n = 0, i, j;
	uint32_t nsys = 0;
	int rc = -1;

	if (!text)
		return tw_fail(f, "cannot read set_event");
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct tw_event *grown = realloc(ev, (n + 1) * sizeof(*ev));

		if (!grown) {
			tw_fail(f, "out of memory");
			goto out;
		}
		ev = grown;
		colon = strchr(line, ':');
		if (!colon) {
			errno = 0;
			tw_fail(f, "a set_event line without system:event");
			goto out;
		}
		*colon = '\0';
		ev[n].sys = line;
		ev[n++].name = colon + 1;
	}
	qsort(ev, n, sizeof(*ev), by_system);
	for (i = 0; i < n; i++)
		nsys += !i || strcmp(ev[i].sys, ev[i - 1].sys);

	if (section_begin(f, TRACEDAT_OPT_EVENT_FORMATS, TW_STR_FORMATS, at) ||
	    put32(f, nsys))
		goto out;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(ev[j].sys, ev[i].sys); j++)
			;
		if (put_str(f, ev[i].sys) || put32(f, j - i))
			goto out;
		for (; i < j; i++) {
			int size, bad;
			char *fmt = tracefs_event_file_read(NULL, ev[i].sys,
							    ev[i].name,
							    "format", &size);

			if (!fmt) {
				tw_fail(f, "cannot read an event format");
				goto out;
			}
			bad = put64(f, size) || put(f, fmt, size);
			free(fmt);
			if (bad)
				goto out;
		}
	}
	rc = section_end(f, *at);
out:
	free(ev);
	free(text);
	return rc;
}

static int write_cmdlines(struct tw_file *f, uint64_t *at)
{
	int size, rc;
	char *text = tracing_file(f, "saved_cmdlines", &size);

	if (!text)
		return -1;
	rc = section_begin(f, TRACEDAT_OPT_CMDLINES, TW_STR_CMDLINES, at) ||
	     put64(f, size) || put(f, text, size) || section_end(f, *at);
	free(text);
	return rc ? -1 : 0;
}

/* Per CPU of the buffer: where its pages lie in the file. */
struct tw_cpu {
	uint32_t cpu;
	uint64_t off, size;
};

/*
 * Copies each CPU's pages as trace_pipe_raw hands them out (the partly
 * filled last page included, since tracing is off), after padding to a
 * page boundary so that readers can map them.
 */
static int write_data(struct tw_file *f, struct tracefs_instance *inst,
		      struct tw_cpu *cpus, int ncpus, int *nsaved,
		      uint32_t *subbuf, uint64_t *at)
{
	long page = sysconf(_SC_PAGESIZE);
	static const char zeros[4096];
	int cpu;

	*nsaved = 0;
	*subbuf = page;
	if (section_begin(f, TRACEDAT_OPT_BUFFER, TW_STR_FLYRECORD, at))
		return -1;
	while (f->off % page)
		if (put(f, zeros, page - f->off % page > sizeof(zeros) ?
			sizeof(zeros) : page - f->off % page))
			return -1;
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct tracefs_cpu *tcpu = tracefs_cpu_open(inst, cpu, true);
		struct tw_cpu *c = &cpus[*nsaved];
		int rc = 0, r = 0;
		char *page_buf;

		if (!tcpu)
			continue;	/* not online: no per_cpu directory */
		*subbuf = tracefs_cpu_read_size(tcpu);
		page_buf = malloc(*subbuf);
		c->cpu = cpu;
		c->off = f->off;
		/* one sub-buffer a read, until the CPU's buffer is empty */
		while (page_buf && !rc &&
		       (r = tracefs_cpu_read(tcpu, page_buf, true)) > 0) {
			/* readers find a page's end in its header */
			memset(page_buf + r, 0, *subbuf - r);
			rc = put(f, page_buf, *subbuf);
		}
		/*
		 * An offline CPU's buffer reads ENODEV: it recorded nothing
		 * while it was off, and the file says so (an empty CPU).
		 */
		if (!rc && r < 0 && errno != EAGAIN && errno != ENODEV)
			rc = tw_fail(f, "cannot read a CPU's trace_pipe_raw");
		tracefs_cpu_close(tcpu);
		if (!page_buf)
			return tw_fail(f, "out of memory");
		free(page_buf);
		if (rc)
			return -1;
		c->size = f->off - c->off;
		(*nsaved)++;
	}
	return section_end(f, *at);
}

static int write_cpustats(struct tw_file *f, char **stats, int ncpus)
{
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		if (!stats[cpu])
			continue;
		if (option(f, TRACEDAT_OPT_CPUSTAT, stats[cpu],
			   strlen(stats[cpu]) + 1))
			return -1;
	}
	return 0;
}

/* "CPU: N" and the kernel's stats of the CPU, as trace-cmd stores them. */
static char **read_cpustats(struct tracefs_instance *inst, int ncpus)
{
	char **stats = calloc(ncpus, sizeof(*stats));
	int cpu;

	for (cpu = 0; stats && cpu < ncpus; cpu++) {
		char file[64], *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(inst, file, NULL);
		if (text && asprintf(&stats[cpu], "CPU: %d\n%s", cpu, text) < 0)
			stats[cpu] = NULL;
		free(text);
	}
	return stats;
}

static int write_buffer_option(struct tw_file *f, uint64_t data_at,
			       const char *clock, uint32_t subbuf,
			       const struct tw_cpu *cpus, int n)
{
	uint32_t size = 8 + 1 + strlen(clock) + 1 + 4 + 4 + 20 * n;
	int i;

	if (put16(f, TRACEDAT_OPT_BUFFER) || put32(f, size) || put64(f, data_at) ||
	    put_str(f, "") || put_str(f, clock) || put32(f, subbuf) ||
	    put32(f, n))
		return -1;
	for (i = 0; i < n; i++)
		if (put32(f, cpus[i].cpu) || put64(f, cpus[i].off) ||
		    put64(f, cpus[i].size))
			return -1;
	return 0;
}

static int write_strings(struct tw_file *f)
{
	uint64_t at;
	size_t i;

	if (section_begin(f, TRACEDAT_SEC_STRINGS, TW_STR_STRINGS, &at))
		return -1;
	for (i = 0; i < ARRAY_SIZE(tw_strings); i++)
		if (put_str(f, tw_strings[i]))
			return -1;
	return section_end(f, at);
}

static int write_file(struct tw_file *f, struct tracefs_instance *inst)
{
	int ncpus = sysconf(_SC_NPROCESSORS_CONF), nsaved, rc = -1;
	uint64_t headers, formats, cmdlines, data, options, options_ptr;
	char **stats = read_cpustats(inst, ncpus);
	char *clock = tracefs_get_clock(inst);
	struct tw_cpu *cpus = calloc(ncpus, sizeof(*cpus));
	char *clocks = tracefs_instance_file_read(inst, "trace_clock", NULL);
	uint32_t subbuf, n = ncpus;
	struct utsname u;
	char uname_text[4 * sizeof(u.release) + 4];

	if (!stats || !clock || !cpus || !clocks) {
		tw_fail(f, "cannot read the instance's clock and statistics");
		goto out;
	}
	uname(&u);
	snprintf(uname_text, sizeof(uname_text), "%s %s %s %s", u.sysname,
		 u.nodename, u.release, u.machine);
	if (put(f, TRACEDAT_MAGIC, strlen(TRACEDAT_MAGIC)) || put_str(f, TRACEDAT_VERSION) ||
	    put(f, &(char){ tep_is_bigendian() }, 1) ||
	    put(f, &(char){ sizeof(long) }, 1) ||
	    put32(f, sysconf(_SC_PAGESIZE)) || put_str(f, "none") ||
	    put_str(f, ""))
		goto out;
	options_ptr = f->off;
	if (put64(f, 0) || write_headers(f, &headers) ||
	    write_formats(f, inst, &formats) || write_cmdlines(f, &cmdlines) ||
	    write_data(f, inst, cpus, ncpus, &nsaved, &subbuf, &data))
		goto out;

	if (section_begin(f, TRACEDAT_SEC_OPTIONS, TW_STR_OPTIONS, &options) ||
	    option64(f, TRACEDAT_OPT_HEADER_INFO, headers) ||
	    option64(f, TRACEDAT_OPT_EVENT_FORMATS, formats) ||
	    option64(f, TRACEDAT_OPT_CMDLINES, cmdlines) ||
	    option(f, TRACEDAT_OPT_TRACECLOCK, clocks, strlen(clocks) + 1) ||
	    option(f, TRACEDAT_OPT_UNAME, uname_text, strlen(uname_text) + 1) ||
	    option(f, TRACEDAT_OPT_CPUCOUNT, &n, sizeof(n)) ||
	    write_cpustats(f, stats, ncpus) ||
	    write_buffer_option(f, data, clock, subbuf, cpus, nsaved) ||
	    option64(f, TRACEDAT_OPT_DONE, 0) || section_end(f, options) ||
	    write_strings(f) || patch64(f, options_ptr, options))
		goto out;
	rc = 0;
out:
	for (n = 0; stats && (int)n < ncpus; n++)
		free(stats[n]);
	free(stats);
	free(clock);
	free(clocks);
	free(cpus);
	return rc;
}

int trace_write(struct tracefs_instance *inst, const char *path,
		struct sw_err *err)
{
	struct tw_file f = { .path = path, .err = err };
	char tmp[4096];
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: path too long",
				  path);
	f.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f.fd < 0)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot create: %s",
				  tmp, strerror(errno));
	rc = write_file(&f, inst);
	if (close(f.fd) && !rc)
		rc = tw_fail(&f, "close failed");
	if (!rc && rename(tmp, path))
		rc = tw_fail(&f, "cannot rename the temporary file");
	if (rc)
		unlink(tmp);
	return rc;
}
