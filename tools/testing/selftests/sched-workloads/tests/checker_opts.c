// SPDX-License-Identifier: GPL-2.0
/*
 * The options the C checkers of the tests share (checker_opts.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/cpubits.h"
#include "checker_opts.h"

static int cpu_lists[CHECKER_MAX_ARGS][CPUBITS_MAX_CPUS];
static int core_list[CPUBITS_MAX_CPUS];

/* "0-3,7" into @cpus; -1 when malformed. */
static int parse_cpus(const char *s, int *cpus, size_t *n)
{
	char *end;

	*n = 0;
	while (*s) {
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -1;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (a > b || b >= CPUBITS_MAX_CPUS)
			return -1;
		for (; a <= b && *n < CPUBITS_MAX_CPUS; a++)
			cpus[(*n)++] = (int)a;
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
		if (parse_cpus(arg, core_list, &n))
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
