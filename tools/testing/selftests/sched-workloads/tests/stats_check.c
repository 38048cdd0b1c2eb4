// SPDX-License-Identifier: GPL-2.0
/*
 * stats_check: run one of the repetition statistics of lib/stats.h on numbers
 * given as arguments and print the result. For tests/test_stats.py and
 * for by-hand use.
 *
 *   stats_check median V...
 *   stats_check mad V...
 *   stats_check mwu-greater A... -- B...
 *   stats_check mwu-less A... -- B...
 *   stats_check separate A... -- B... DIR
 *   stats_check fisher K1 N1 K2 N2
 *   stats_check dispersion K1 N1 K2 N2 ...     chi2 / df, or 1 (none)
 *   stats_check binom K N P                    P(X >= K), X ~ B(N, P)
 *   stats_check majority Q FIRST LEAD MAX
 *   stats_check series FIRST STEP N            the series FIRST + i * STEP,
 *       i < N: count sum min max p50 p99 p999 neg_share, then, from
 *       series_each(), the count, sum, min and max it gives
 *
 * Prints a number with %.17g (separate: 1 or 0); exits 2 on bad usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "lib/util.h"

#define EXIT_USAGE 2

static int usage(void)
{
	fputs("stats_check median|mad V... | mwu-greater|mwu-less A... -- B... | separate A... -- B... DIR | fisher K1 N1 K2 N2 | dispersion K N ... | binom K N P | majority Q FIRST LEAD MAX | series FIRST STEP N\n",
	      stderr);
	return EXIT_USAGE;
}

/* Parses args up to "--" or the end; returns how many it took, or -1. */
static int parse(char **args, int n, double *out, int *taken)
{
	int i;

	for (i = 0; i < n && strcmp(args[i], "--"); i++) {
		char *end;

		out[i] = strtod(args[i], &end);
		if (end == args[i] || *end)
			return -1;
	}
	*taken = i;
	return i;
}

struct each_acc {
	double n, sum, min, max;
};

static int each_add(double v, uint64_t count, void *arg)
{
	struct each_acc *e = arg;

	if (!e->n || v < e->min)
		e->min = v;
	if (!e->n || v > e->max)
		e->max = v;
	e->n += count;
	e->sum += v * count;
	return 0;
}

static int series(double first, double step, size_t n)
{
	static const enum series_stat st[] = { STAT_COUNT, STAT_SUM, STAT_MIN,
		STAT_MAX, STAT_P50, STAT_P99, STAT_P999, STAT_NEG_SHARE };
	struct series s = { 0 };
	struct each_acc e = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		if (series_add(&s, first + (double)i * step))
			return 1;
	for (i = 0; i < ARRAY_SIZE(st); i++)
		printf("%.17g ", series_stat(&s, st[i]));
	series_each(&s, each_add, &e);
	printf("%.17g %.17g %.17g %.17g\n", e.n, e.sum, e.min, e.max);
	series_free(&s);
	return 0;
}

static int run(const char *cmd, char **args, int n, double *a, double *b)
{
	int na, nb, used;
	long dir;
	char *end;

	if (parse(args, n, a, &used) < 0)
		return usage();
	na = used;
	if (!strcmp(cmd, "fisher")) {
		if (na != 4)
			return usage();
		printf("%.17g\n", stats_fisher_greater(a[0], a[1], a[2], a[3]));
		return 0;
	}
	if (!strcmp(cmd, "binom")) {
		if (na != 3 || a[0] < 0 || a[1] < 0)
			return usage();
		printf("%.17g\n", stats_binom_at_least(a[0], a[1], a[2]));
		return 0;
	}
	if (!strcmp(cmd, "majority")) {
		if (na != 4 || a[1] < 0 || a[2] < 0 || a[3] < 0)
			return usage();
		printf("%.17g\n", stats_sequential_majority(a[0], a[1], a[2],
							     a[3]));
		return 0;
	}
	if (!strcmp(cmd, "series")) {
		if (na != 3 || a[2] < 0)
			return usage();
		return series(a[0], a[1], (size_t)a[2]);
	}
	if (!strcmp(cmd, "dispersion")) {
		double k[64], nn[64], chi2 = 0, df = 0;
		int i;

		if (na != n || na % 2 || na > 128)
			return usage();
		for (i = 0; i < na / 2; i++) {
			k[i] = a[2 * i];
			nn[i] = a[2 * i + 1];
		}
		stats_dispersion_add(k, nn, na / 2, &chi2, &df);
		printf("%.17g\n", df ? chi2 / df : 1);
		return 0;
	}
	if (!strcmp(cmd, "median") || !strcmp(cmd, "mad")) {
		if (na != n)
			return usage();
		printf("%.17g\n", !strcmp(cmd, "median") ?
		       stats_median(a, na) : stats_mad(a, na));
		return 0;
	}
	if (na == n)		/* no "--" */
		return usage();
	if (parse(args + na + 1, n - na - 1, b, &used) < 0 ||
	    na + 1 + used != n)
		return usage();
	nb = used;
	if (!strcmp(cmd, "mwu-greater")) {
		printf("%.17g\n", stats_mwu_p_greater(a, na, b, nb));
		return 0;
	}
	if (!strcmp(cmd, "mwu-less")) {
		printf("%.17g\n", stats_mwu_p_less(a, na, b, nb));
		return 0;
	}
	if (strcmp(cmd, "separate") || nb < 1)
		return usage();
	/* The last number after "--" is the direction, not a sample. */
	nb--;
	dir = strtol(args[n - 1], &end, 10);
	if (*end || (dir != 1 && dir != -1))
		return usage();
	printf("%d\n", stats_ranges_separate(a, na, b, nb, (int)dir));
	return 0;
}

int main(int argc, char **argv)
{
	double *a, *b;
	int ret;

	if (argc < 2)
		return usage();
	a = calloc(argc, sizeof(*a));
	b = calloc(argc, sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return 1;
	}
	ret = run(argv[1], argv + 2, argc - 2, a, b);
	free(a);
	free(b);
	return ret;
}
