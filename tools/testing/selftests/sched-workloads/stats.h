/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growable series of samples and the statistics verdicts use.
 *
 * Percentiles use the nearest-rank definition: the p-th percentile of N
 * sorted samples is sample number ceil(p / 100 * N) (1-based), so it is
 * always a value that was observed and easy to work out by hand.
 */
#ifndef SW_STATS_H
#define SW_STATS_H

#include <stddef.h>

struct series {
	double *v;
	size_t n;
	size_t cap;
	int sorted;
};

enum series_stat {
	STAT_COUNT,
	STAT_MIN,
	STAT_MAX,
	STAT_MEAN,
	STAT_SUM,
	STAT_P1,
	STAT_P10,
	STAT_P50,
	STAT_P90,
	STAT_P99,
	STAT_P999,
	STAT_NEG_SHARE,		/* share of samples < 0 */
};

int series_add(struct series *s, double v);
void series_free(struct series *s);
/* NAN when the series is empty (COUNT and SUM give 0). */
double series_stat(struct series *s, enum series_stat stat);
double series_percentile(struct series *s, double p);

#endif /* SW_STATS_H */
