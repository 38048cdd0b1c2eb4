// SPDX-License-Identifier: GPL-2.0
/*
 * A recursive-descent evaluator for bound expressions.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/bound_expr.h"

struct expr_ctx {
	const char *p;
	int dry;
	struct json_object *settings;
	char *why;
	size_t len;
	int failed;
	int absent;	/* the first failure: a setting the machine lacks */
};

static double expr_sum(struct expr_ctx *c);

static double fail(struct expr_ctx *c, const char *msg, const char *at)
{
	if (!c->failed)
		snprintf(c->why, c->len, "%s at \"%.20s\"", msg, at);
	c->failed = 1;
	return NAN;
}

static void skip_blanks(struct expr_ctx *c)
{
	while (isspace((unsigned char)*c->p))
		c->p++;
}

/*
 * sysctl:kernel.sched_rt_runtime_us: as the run's settings recorded it,
 * else /proc/sys/kernel/sched_rt_runtime_us. A workload's own sysctls
 * are restored before its checks may be judged (a baseline's, after the
 * last of its passes over the battery): the settings kept them.
 * sysctl:sched.latency_ns: a debugfs knob the settings record, else
 * /sys/kernel/debug/sched/latency_ns; one missing (debugfs locked down
 * or unmounted, a knob of another fair class) is not judged, where a
 * missing sysctl is the workload's mistake.
 */
static double sysctl_value(struct expr_ctx *c)
{
	const char *start = c->p;
	char name[128], path[160];
	struct json_object *rec;
	int knob = !strncmp(start, "sched.", 6);
	size_t n = 0, i;
	double v;
	char *end;
	FILE *f;

	while ((isalnum((unsigned char)*c->p) || *c->p == '_' || *c->p == '.') &&
	       n + 1 < sizeof(name)) {
		name[n++] = *c->p;
		c->p++;
	}
	name[n] = '\0';
	if (!n)
		return fail(c, "sysctl name expected", start);
	if (c->dry)
		return 1;
	if (json_object_object_get_ex(c->settings, name, &rec)) {
		v = strtod(json_object_get_string(rec), &end);
		if (end != json_object_get_string(rec))
			return v;
	}
	for (i = 0; i < n; i++)
		if (name[i] == '.')
			name[i] = '/';
	if (knob)
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s", name);
	else
		snprintf(path, sizeof(path), "/proc/sys/%s", name);
	f = fopen(path, "r");
	if (!f) {
		c->absent = knob && !c->failed;
		return fail(c, knob ? "neither recorded nor readable" :
				      "cannot read the sysctl", start);
	}
	if (fscanf(f, "%lf", &v) != 1)
		v = fail(c, "sysctl is not a number", start);
	fclose(f);
	return v;
}

static double expr_atom(struct expr_ctx *c)
{
	double v;
	char *end;

	skip_blanks(c);
	if (*c->p == '(') {
		c->p++;
		v = expr_sum(c);
		skip_blanks(c);
		if (*c->p != ')')
			return fail(c, "')' expected", c->p);
		c->p++;
		return v;
	}
	if (*c->p == '-') {
		c->p++;
		return -expr_atom(c);
	}
	if (!strncmp(c->p, "cpus", 4) && !isalnum((unsigned char)c->p[4])) {
		c->p += 4;
		return (double)sysconf(_SC_NPROCESSORS_ONLN);
	}
	if (!strncmp(c->p, "sysctl:", 7)) {
		c->p += 7;
		return sysctl_value(c);
	}
	errno = 0;
	v = strtod(c->p, &end);
	if (end == c->p || errno)
		return fail(c, "number, cpus, sysctl:NAME or '(' expected", c->p);
	c->p = end;
	return v;
}

static double expr_product(struct expr_ctx *c)
{
	double v = expr_atom(c);

	for (;;) {
		skip_blanks(c);
		if (*c->p == '*') {
			c->p++;
			v *= expr_atom(c);
		} else if (*c->p == '/') {
			c->p++;
			v /= expr_atom(c);
		} else {
			return v;
		}
	}
}

static double expr_sum(struct expr_ctx *c)
{
	double v = expr_product(c);

	for (;;) {
		skip_blanks(c);
		if (*c->p == '+') {
			c->p++;
			v += expr_product(c);
		} else if (*c->p == '-') {
			c->p++;
			v -= expr_product(c);
		} else {
			return v;
		}
	}
}

int expr_eval(const char *text, int dry, struct json_object *settings,
	      double *out, char *why, size_t len)
{
	struct expr_ctx c = {
		.p = text, .dry = dry, .settings = settings, .why = why,
		.len = len,
	};
	double v = expr_sum(&c);

	skip_blanks(&c);
	if (!c.failed && *c.p)
		fail(&c, "unexpected text", c.p);
	if (!c.failed && !isfinite(v))
		fail(&c, "not a finite number", text);
	if (c.failed)
		return c.absent ? -2 : -1;
	*out = v;
	return 0;
}
