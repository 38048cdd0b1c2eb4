// SPDX-License-Identifier: GPL-2.0
/*
 * Sample series and their statistics.
 */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

int series_add(struct series *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		double *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	s->sorted = 0;
	return 0;
}

void series_free(struct series *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
	s->cap = 0;
	s->sorted = 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void series_sort(struct series *s)
{
	if (!s->sorted) {
		qsort(s->v, s->n, sizeof(*s->v), cmp_double);
		s->sorted = 1;
	}
}

double series_percentile(struct series *s, double p)
{
	size_t rank;

	if (!s->n)
		return NAN;
	series_sort(s);
	/* Nearest rank; the epsilon keeps 0.99 * 100 from rounding up. */
	rank = (size_t)ceil(p / 100.0 * (double)s->n - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > s->n)
		rank = s->n;
	return s->v[rank - 1];
}

double series_stat(struct series *s, enum series_stat stat)
{
	double acc = 0;
	size_t i, neg = 0;

	if (stat == STAT_COUNT)
		return (double)s->n;
	if (!s->n)
		return stat == STAT_SUM ? 0 : NAN;

	switch (stat) {
	case STAT_MIN:
		series_sort(s);
		return s->v[0];
	case STAT_MAX:
		series_sort(s);
		return s->v[s->n - 1];
	case STAT_SUM:
	case STAT_MEAN:
		for (i = 0; i < s->n; i++)
			acc += s->v[i];
		return stat == STAT_SUM ? acc : acc / (double)s->n;
	case STAT_P1:
		return series_percentile(s, 1);
	case STAT_P10:
		return series_percentile(s, 10);
	case STAT_P50:
		return series_percentile(s, 50);
	case STAT_P90:
		return series_percentile(s, 90);
	case STAT_P99:
		return series_percentile(s, 99);
	case STAT_P999:
		return series_percentile(s, 99.9);
	case STAT_NEG_SHARE:
		for (i = 0; i < s->n; i++)
			neg += s->v[i] < 0;
		return (double)neg / (double)s->n;
	default:
		return NAN;
	}
}
