// SPDX-License-Identifier: GPL-2.0
/*
 * The options the C checkers of the tests share (checker_opts.h).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpu_list.h"
#include "lib/cpubits.h"
#include "checker_opts.h"

static int cpu_lists[CHECKER_MAX_ARGS][CPUBITS_MAX_CPUS];
static int core_list[CPUBITS_MAX_CPUS];

/*
 * The CPU list @s ("0-3,7", lib/cpu_list.h) into @cpus, ascending; -1
 * when malformed. CPUs from CPUBITS_MAX_CPUS on are left out.
 */
static int parse_cpus(const char *s, int *cpus, size_t *n)
{
	size_t size = CPU_ALLOC_SIZE(CPUBITS_MAX_CPUS);
	cpu_set_t *set = CPU_ALLOC(CPUBITS_MAX_CPUS);
	int cpu, ret = -1;

	*n = 0;
	if (set && !cpu_list_parse(s, set, size)) {
		for (cpu = 0; cpu < CPUBITS_MAX_CPUS; cpu++)
			if (CPU_ISSET_S(cpu, size, set))
				cpus[(*n)++] = cpu;
		ret = 0;
	}
	if (set)
		CPU_FREE(set);
	return ret;
}

/* "0,0,2,2" (the core of each CPU in turn) into @cores; -1 when malformed. */
static int parse_cores(const char *s, int *cores, size_t *n)
{
	char *end;

	*n = 0;
	while (*s) {
		unsigned long core = strtoul(s, &end, 10);

		if (end == s || core >= CPUBITS_MAX_CPUS || *n == CPUBITS_MAX_CPUS)
			return -1;
		cores[(*n)++] = (int)core;
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return 0;
}

int checker_opt(struct checker_opts *c, int opt, char *arg)
{
	struct trace_affinity *a;
	size_t n;
	char *eq;

	switch (opt) {
	case 'a':
		c->o.affinity_all = 1;
		return 1;
	case 'A':
		eq = strchr(arg, '=');
		if (!eq || c->o.naff == CHECKER_MAX_ARGS)
			return -1;
		*eq = '\0';
		a = &c->aff[c->o.naff];
		a->comm = arg;
		if (parse_cpus(eq + 1, cpu_lists[c->o.naff], &a->ncpus))
			return -1;
		a->cpus = cpu_lists[c->o.naff++];
		return 1;
	case 'C':
		if (parse_cores(arg, core_list, &n))
			return -1;
		c->o.core_of = core_list;
		c->o.ncore_of = (int)n;
		return 1;
	case 't':
		if (c->nglobs == CHECKER_MAX_ARGS)
			return -1;
		c->globs[c->nglobs++] = arg;
		return 1;
	}
	return 0;
}

void checker_opts_done(struct checker_opts *c)
{
	c->o.aff = c->aff;
	if (c->nglobs) {
		c->o.task_globs = c->globs;
		c->o.ntask_globs = c->nglobs;
	}
}
