// SPDX-License-Identifier: GPL-2.0
/*
 * SMT cores: from sysfs, and the cores.txt a repetition keeps.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cpubits.h"
#include "machine/cpu_cores.h"

/* The first CPU of @cpu's thread_siblings_list; @cpu itself when unknown. */
static int first_sibling(int cpu)
{
	char path[96], buf[64];
	FILE *f;
	int first = cpu;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu);
	f = fopen(path, "r");
	if (!f)
		return cpu;
	if (fgets(buf, sizeof(buf), f) && isdigit((unsigned char)buf[0]))
		first = atoi(buf);
	fclose(f);
	return first >= 0 && first <= cpu ? first : cpu;
}

int cpu_cores_scan(struct cpu_cores *c, struct sw_err *err)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int i;

	memset(c, 0, sizeof(*c));
	if (n < 1 || n > CPUBITS_MAX_CPUS)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "%ld CPUs configured: not a count this tool handles", n);
	c->core_of = calloc(n, sizeof(*c->core_of));
	if (!c->core_of)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
	c->n = (int)n;
	for (i = 0; i < c->n; i++)
		c->core_of[i] = first_sibling(i);
	return 0;
}

static int print_cores(FILE *f, const void *arg)
{
	const struct cpu_cores *c = arg;
	int i;

	for (i = 0; i < c->n; i++)
		if (fprintf(f, "%d %d\n", i, c->core_of[i]) < 0)
			return -1;
	return 0;
}

int cpu_cores_write(const struct cpu_cores *c, const char *path,
		    struct sw_err *err)
{
	if (write_stream_file(path, print_cores, c))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot write: %s",
				  path, strerror(errno));
	return 0;
}

int cpu_cores_read(const char *path, struct cpu_cores *c, struct sw_err *err)
{
	FILE *f = fopen(path, "r");
	int cpu, core, end, ret = 0;
	char line[64];

	memset(c, 0, sizeof(*c));
	if (!f && errno == ENOENT)
		return 1;
	if (!f)
		return sw_err_set(err, SW_EXIT_BAD_LOG, "%s: cannot open: %s",
				  path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		int *more;

		end = 0;
		/* "cpu core", the CPUs in order, a core its lowest sibling */
		if (sscanf(line, "%d %d%n", &cpu, &core, &end) != 2 ||
		    (line[end] != '\n' && line[end]) || cpu != c->n ||
		    core < 0 || core > cpu || c->n >= CPUBITS_MAX_CPUS) {
			ret = sw_err_set(err, SW_EXIT_BAD_LOG,
					 "%s:%d: expected \"%d CORE\" (CPU %d's SMT core, its lowest sibling)",
					 path, c->n + 1, c->n, c->n);
			break;
		}
		more = realloc(c->core_of, (c->n + 1) * sizeof(*more));
		if (!more) {
			ret = sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
			break;
		}
		c->core_of = more;
		c->core_of[c->n++] = core;
	}
	if (!ret && ferror(f))
		ret = sw_err_set(err, SW_EXIT_BAD_LOG, "%s: read error", path);
	fclose(f);
	if (ret)
		cpu_cores_free(c);
	return ret;
}

int cpu_cores_smt(const struct cpu_cores *c)
{
	int i, k;

	for (i = 0; i < c->n; i++) {
		for (k = 0; k < c->n; k++)
			if (k != i && c->core_of[k] == c->core_of[i])
				break;
		if (k == c->n)
			return 0;
	}
	return c->n > 0;
}

void cpu_cores_free(struct cpu_cores *c)
{
	free(c->core_of);
	memset(c, 0, sizeof(*c));
}
