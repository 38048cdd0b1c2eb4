/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The values one repetition produced: each metric of each entity (a
 * thread, a CPU, the system, the machine), and optionally the events
 * behind the tail metrics as histograms (lib/event_hist.h).
 */
#ifndef SW_METRIC_SET_H
#define SW_METRIC_SET_H

#include <stdio.h>

#include "lib/metric.h"

/* One measured value: which metric, on which entity. */
struct metric_value {
	const struct metric_def *def;
	char entity[64];	/* "audio", "hog-1", "cpu1", "system" */
	char group[32];		/* selector key: rt-app task name or comm */
	int id;			/* pid or cpu number, -1 when none */
	/*
	 * 1: every thread of a task of several, as one entity named after
	 * the task (rtapp/rtapp_metrics.c); what a "pooled" check judges.
	 */
	int pooled;
	double value;		/* NAN when it could not be measured */
};

struct event_rep;

struct metric_set {
	struct metric_value *v;
	size_t n;
	size_t cap;
	/* When set, every entity's event series go there too. */
	struct event_rep *events;
};

/*
 * Evaluates every metric of @table whose source is @src on @entity and
 * appends the values (and its series to set->events). @name is the
 * entity's display name, @group the name selectors match (task name or
 * comm), @id a pid or CPU number (or -1).
 */
int metric_set_add_entity(struct metric_set *set,
			  const struct metric_table *table,
			  enum metric_source src, const void *entity,
			  const char *name, const char *group, int id);
/* The value of metric @name of entity @id of @src; NAN when not there. */
double metric_set_value(const struct metric_set *set, enum metric_source src,
			int id, const char *name);
/* The first value of metric @name, whatever its entity; NAN when none. */
double metric_set_first(const struct metric_set *set, const char *name);
/* Appends one value (no series). */
int metric_set_push(struct metric_set *set, const struct metric_value *mv);
void metric_set_free(struct metric_set *set);
/*
 * {"rtapp_tasks": {"audio": {"slack.p50": 812, ...}}, "trace_tasks":
 *  {...}, "cpus": {...}, "system": {"system": {...}}}: metrics.json, read
 * back by metric_set_from_json() (judge/metric_registry.h).
 */
int metric_set_write_json(const struct metric_set *set, FILE *f);

#endif /* SW_METRIC_SET_H */
