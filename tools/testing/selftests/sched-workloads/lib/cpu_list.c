// SPDX-License-Identifier: GPL-2.0
/*
 * CPU lists: "0-3,8,10-11", with or without the newline sysfs ends with.
 * An empty list is an empty set (cpuset.cpus of a group with no CPUs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/cpu_list.h"

/*
 * Calls @fn for every range of @s, in order; stops at the first non-zero
 * return. -1 when @s is malformed.
 */
static int cpu_list_walk(const char *s, int (*fn)(unsigned long a,
						   unsigned long b, void *arg),
			 void *arg)
{
	unsigned long a, b;
	char *end;
	int ret;

	while (*s && *s != '\n') {
		errno = 0;
		a = strtoul(s, &end, 10);
		if (errno || end == s || *s == '-')
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (errno || end == s || *s == '-' || b < a)
				return -1;
		}
		ret = fn(a, b, arg);
		if (ret)
			return ret;
		s = end;
		if (*s == ',' && s[1] && s[1] != '\n')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return 0;
}

struct set_arg {
	cpu_set_t *set;
	size_t setsize;
};

static int add_range(unsigned long a, unsigned long b, void *arg)
{
	struct set_arg *sa = arg;

	for (; a <= b && a < sa->setsize * 8; a++)
		CPU_SET_S(a, sa->setsize, sa->set);
	return 0;
}

int cpu_list_parse(const char *s, cpu_set_t *set, size_t setsize)
{
	struct set_arg sa = { .set = set, .setsize = setsize };

	CPU_ZERO_S(setsize, set);
	return cpu_list_walk(s, add_range, &sa) < 0 ? -1 : 0;
}

static int holds(unsigned long a, unsigned long b, void *arg)
{
	unsigned long cpu = *(int *)arg;

	return a <= cpu && cpu <= b;
}

int cpu_list_has(const char *s, int cpu)
{
	if (cpu < 0)
		return 0;
	return cpu_list_walk(s, holds, &cpu);
}

char *cpu_list_format(const cpu_set_t *set, size_t setsize, size_t bits)
{
	size_t cpu, first = 0, len;
	int in_run = 0, any = 0;
	char *out = NULL;
	FILE *m;

	m = open_memstream(&out, &len);
	if (!m)
		return NULL;
	for (cpu = 0; cpu <= bits; cpu++) {
		int in = cpu < bits && CPU_ISSET_S(cpu, setsize, set);

		if (in && !in_run) {
			first = cpu;
			in_run = 1;
		} else if (!in && in_run) {
			fprintf(m, "%s%zu", any ? "," : "", first);
			if (cpu - 1 > first)
				fprintf(m, "-%zu", cpu - 1);
			in_run = 0;
			any = 1;
		}
	}
	if (fclose(m)) {
		free(out);
		return NULL;
	}
	return out;
}
