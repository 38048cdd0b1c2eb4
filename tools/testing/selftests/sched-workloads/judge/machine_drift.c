// SPDX-License-Identifier: GPL-2.0
/*
 * The machine against a baseline's: the canary's rule and the host
 * gauge's (judge/machine_drift.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "machine/canary.h"
#include "judge/compare.h"
#include "machine/host_gauge.h"
#include "judge/machine_drift.h"
#include "judge/metric_registry.h"

/*
 * The canary's rule (canary_compare()), and the figures it was set on: a 2-CPU AMD EPYC
 * firecracker VM, 30 canaries 20 s apart, idle but for another user's
 * unit tests during the first four. Quiet ranges of "system", min-max
 * (median): loop_ns 1.62-1.83 (1.68), timer_lat.p50 35-45 (38),
 * timer_lat.p90 39-69 (43), wake_lat.p50 36-55 (44). The per-CPU values
 * spread more (timer_lat.p50 32-61 on cpu1).
 * Each block of 5 taken in turn as the baseline, the other 25 judged
 * (150 judgements a value): "system" was never called slower or faster
 * for loop_ns and the two p50s; timer_lat.p90 once (0.7%). Judging the
 * CPU entities too, 21 of the 150 canaries had some value called slower:
 * a battery should judge "system" and show the CPUs.
 * The drift this is for is 2-3x; a milder one (1.3-1.6x for two minutes,
 * seen once) is called slower by the p50s in 4 of 5 canaries.
 * libm_ns, 43 canaries 10 s apart on the idle VM: 13.5-15.2 ns (median
 * 14.0), a 12% spread; no block of 5 called another canary slower (304
 * judgements) at 15%, 3 at 10%. The slow state it is for is +37-45%.
 */
static const struct {
	double rel, abs;
} canary_margin[] = {
	[CV_LOOP] = { 0.15, 0.05 },
	[CV_LIBM] = { 0.15, 0.2 },
	[CV_TIMER_P50] = { 0.30, 10 },
	[CV_TIMER_P90] = { 0.50, 20 },
	[CV_WAKE_P50] = { 0.30, 10 },
};

int canary_compare(const double *base, size_t nb, double cur,
		   const struct metric_def *def, char *why, size_t len)
{
	double lo = INFINITY, hi = -INFINITY, m_hi, m_lo, rel, abs_m;
	char dummy[1];
	size_t i;

	if (!why) {
		why = dummy;
		len = sizeof(dummy);
	}
	if (!def || def->source != SRC_CANARY || def->arg < 0 ||
	    def->arg >= (int)ARRAY_SIZE(canary_margin) ||
	    !canary_margin[def->arg].rel) {
		snprintf(why, len, "%s: not a canary speed, not compared",
			 def ? def->name : "(none)");
		return 0;
	}
	rel = canary_margin[def->arg].rel;
	abs_m = canary_margin[def->arg].abs;
	for (i = 0; i < nb; i++) {
		if (isnan(base[i]))
			break;
		lo = fmin(lo, base[i]);
		hi = fmax(hi, base[i]);
	}
	if (!nb || i < nb || isnan(cur)) {
		snprintf(why, len, "%s: nothing to judge (%s)", def->name,
			 isnan(cur) ? "not measured now" :
			 "baseline has no canary value");
		return 0;
	}
	m_hi = fmax(rel * fabs(hi), abs_m);
	m_lo = fmax(rel * fabs(lo), abs_m);
	if (cur > hi + m_hi) {
		snprintf(why, len,
			 "%s %.4g %s: above the baseline's %.4g-%.4g %s by more than max(%g%%, %g %s) = %.4g",
			 def->name, cur, def->unit, lo, hi, def->unit, rel * 100,
			 abs_m, def->unit, m_hi);
		return 1;
	}
	if (cur < lo - m_lo) {
		snprintf(why, len,
			 "%s %.4g %s: below the baseline's %.4g-%.4g %s by more than max(%g%%, %g %s) = %.4g",
			 def->name, cur, def->unit, lo, hi, def->unit, rel * 100,
			 abs_m, def->unit, m_lo);
		return -1;
	}
	snprintf(why, len,
		 "%s %.4g %s: within the baseline's %.4g-%.4g %s widened to %.4g-%.4g",
		 def->name, cur, def->unit, lo, hi, def->unit, lo - m_lo,
		 hi + m_hi);
	return 0;
}

/* The first value of @key in @ss, NAN without one. */
static double first_value(const struct sample_set *ss, const char *key)
{
	const struct metric_samples *ms = sample_set_find(ss, key);
	double v[METRIC_MAX_REPS];

	return ms && samples_measured(ms, v) ? v[0] : NAN;
}

/*
 * Which of the @n canary values @judged ("canary.loop_ns"...) of @cur's
 * "system" lie above the baseline's range by canary_compare(): 1 if any,
 * with them in @buf.
 */
static int values_slower(const struct sample_set *base,
			 const struct sample_set *cur,
			 const char *const *judged, size_t n, char *buf,
			 size_t len)
{
	double fb, fc, bv[METRIC_MAX_REPS], v, lo, hi;
	const struct metric_samples *ms;
	const struct metric_def *def;
	size_t i, k, nb, off = 0;
	char key[128];
	int slower = 0;

	buf[0] = '\0';
	fb = first_value(base, "canary/system/canary.fifo");
	fc = first_value(cur, "canary/system/canary.fifo");
	if (!isnan(fb) && !isnan(fc) && fb != fc) {
		snprintf(buf, len, "not comparable: the canary ran %s now, %s in the baseline",
			 fc ? "SCHED_FIFO" : "SCHED_OTHER",
			 fb ? "SCHED_FIFO" : "SCHED_OTHER");
		return 0;
	}
	for (i = 0; i < n; i++) {
		def = metric_find(judged[i]);
		snprintf(key, sizeof(key), "canary/system/%s", judged[i]);
		ms = sample_set_find(base, key);
		nb = ms ? samples_measured(ms, bv) : 0;
		v = first_value(cur, key);
		if (!def || !nb || isnan(v) ||
		    canary_compare(bv, nb, v, def, NULL, 0) <= 0)
			continue;
		lo = hi = bv[0];
		for (k = 1; k < nb; k++) {
			lo = fmin(lo, bv[k]);
			hi = fmax(hi, bv[k]);
		}
		if (off < len)
			off += snprintf(buf + off, len - off,
					"%s%s %.3g %s (baseline %.3g-%.3g)",
					slower ? ", " : "",
					judged[i] + strlen("canary."), v,
					def->unit, lo, hi);
		slower = 1;
	}
	return slower;
}

const char *const canary_machine_metrics[] = {
	"canary.loop_ns", "canary.libm_ns", "canary.timer_lat.p50",
	"canary.wake_lat.p50",
};

const size_t canary_machine_nmetrics = ARRAY_SIZE(canary_machine_metrics);

int canary_shifted(const struct sample_set *base, const struct sample_set *cur,
		   char *buf, size_t len)
{
	return values_slower(base, cur, canary_machine_metrics,
			     canary_machine_nmetrics, buf, len);
}

int canary_cpu_slower(const struct sample_set *base,
		      const struct sample_set *cur, char *buf, size_t len)
{
	static const char *const judged[] = {
		"canary.loop_ns", "canary.libm_ns",
	};

	return values_slower(base, cur, judged, ARRAY_SIZE(judged), buf, len);
}

/*
 * Whether @cv lies below @bv by HOST_GAUGE_REL at least and by a
 * one-sided rank test, @ch the comparison: the host gauge's rule, for
 * the gauge and for the threads' time on a CPU alike.
 */
static int fell(const double *bv, size_t nb, const double *cv, size_t nc,
		struct change *ch)
{
	static const struct compare_rule more_is_better = {
		.better = 1, .rel = HOST_GAUGE_REL };

	if (!nb || !nc)
		return 0;
	compare_samples(bv, nb, cv, nc, &more_is_better, ch);
	return ch->kind == CHANGE_REGRESSION;
}

int host_gauge_slower(const struct sample_set *base,
		      const struct sample_set *cur, char *buf, size_t len)
{
	const struct metric_samples *bs = sample_set_find(base, HOST_GAUGE_KEY);
	const struct metric_samples *cs = sample_set_find(cur, HOST_GAUGE_KEY);
	double bv[METRIC_MAX_REPS], cv[METRIC_MAX_REPS];
	struct change ch;

	buf[0] = '\0';
	if (!fell(bv, bs ? samples_measured(bs, bv) : 0,
		  cv, cs ? samples_measured(cs, cv) : 0, &ch))
		return 0;
	snprintf(buf, len,
		 "host.loops_per_us %.3g, %+.0f%% against the baseline's %.3g (p=%.3g)",
		 ch.b_median, 100 * ch.ratio, ch.a_median, ch.p);
	return 1;
}

/*
 * The time on a CPU of the workload's threads in each repetition of @ss,
 * summed (a task's pooled entity counts its threads a second time); the
 * repetitions in which every thread was measured go to @out.
 */
static size_t threads_cpu_time(const struct sample_set *ss, double *out)
{
	const struct metric_samples *ms;
	size_t i, rep, n = 0;
	double sum;
	int seen;

	for (rep = 0; rep < ss->reps && rep < METRIC_MAX_REPS; rep++) {
		sum = 0;
		seen = 0;
		for (i = 0; i < ss->n; i++) {
			ms = &ss->s[i];
			if (ms->def->source != SRC_TRACE_TASK || ms->pooled ||
			    strcmp(ms->def->name, "cpu_time"))
				continue;
			if (rep >= ms->n || isnan(ms->v[rep]))
				break;
			sum += ms->v[rep];
			seen = 1;
		}
		if (seen && i == ss->n)
			out[n++] = sum;
	}
	return n;
}

int threads_cpu_time_lower(const struct sample_set *base,
			   const struct sample_set *cur, char *buf, size_t len)
{
	double bv[METRIC_MAX_REPS], cv[METRIC_MAX_REPS];
	struct change ch;

	buf[0] = '\0';
	if (!fell(bv, threads_cpu_time(base, bv), cv,
		  threads_cpu_time(cur, cv), &ch))
		return 0;
	snprintf(buf, len,
		 "the workload's threads were on a CPU %.4g ms, %+.0f%% against the baseline's %.4g (p=%.3g)",
		 ch.b_median / 1000, 100 * ch.ratio, ch.a_median / 1000, ch.p);
	return 1;
}
