/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU bit arrays sized from a CPU count: bit N % 64 of word N / 64 is CPU
 * N. The trace analysis keeps its idle CPUs and its affinity classes in
 * them for as many CPUs as the trace has, up to the kernel's largest
 * NR_CPUS.
 */
#ifndef SW_CPUBITS_H
#define SW_CPUBITS_H

#include <stddef.h>
#include <stdint.h>

#define CPUBITS_MAX_CPUS	8192	/* CONFIG_NR_CPUS_RANGE_END */

static inline size_t cpubits_words(int ncpus)
{
	return ((size_t)(ncpus > 0 ? ncpus : 1) + 63) / 64;
}

static inline void cpubits_set(uint64_t *bits, int cpu)
{
	bits[cpu / 64] |= 1ull << (cpu % 64);
}

static inline void cpubits_clear(uint64_t *bits, int cpu)
{
	bits[cpu / 64] &= ~(1ull << (cpu % 64));
}

static inline int cpubits_test(const uint64_t *bits, int cpu)
{
	return bits[cpu / 64] >> (cpu % 64) & 1;
}

static inline int cpubits_intersect(const uint64_t *a, const uint64_t *b,
				    size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		if (a[i] & b[i])
			return 1;
	return 0;
}

#endif /* SW_CPUBITS_H */
