/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists as the kernel writes them ("0-3,8,10-11": sysfs's online
 * file, cpuset.cpus, taskset -c), read and written in one place.
 */
#ifndef SW_CPU_LIST_H
#define SW_CPU_LIST_H

#include <sched.h>
#include <stddef.h>

/* @s into @set (@setsize bytes, CPU_ALLOC_SIZE); -1 when malformed. */
int cpu_list_parse(const char *s, cpu_set_t *set, size_t setsize);
/* Whether @cpu is in @s: 1 or 0; -1 when @s is malformed. */
int cpu_list_has(const char *s, int cpu);
/* The CPUs set in the first @bits of @set, as a list (malloc'd). */
char *cpu_list_format(const cpu_set_t *set, size_t setsize, size_t bits);

#endif /* SW_CPU_LIST_H */
