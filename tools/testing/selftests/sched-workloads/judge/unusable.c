// SPDX-License-Identifier: GPL-2.0
/*
 * Values a check cannot judge.
 */
#include <math.h>
#include <stdio.h>

#include "judge/unusable.h"
#include "judge/verdict_text.h"
#include "lib/cpu_list.h"

/*
 * Whether CPU @cpu was one the run could use, by the settings it
 * recorded: online, in its affinity and in its cpuset. 1 when they do
 * not say; else 0 with the lists that leave it out in @why.
 */
static int run_had_cpu(const struct verdict_input *in, int cpu, char *why,
		       size_t len)
{
	static const char *const keys[] = {
		"cpus.online", "affinity", "cgroup.cpuset.effective_cpus",
	};
	struct json_object *v;
	size_t i;

	why[0] = '\0';
	for (i = 0; in->settings && i < ARRAY_SIZE(keys); i++) {
		if (!json_object_object_get_ex(in->settings, keys[i], &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    cpu_list_has(json_object_get_string(v), cpu))
			continue;
		verdict_append(why, len, "%s%s \"%s\"", why[0] ? ", " : "",
			       keys[i], json_object_get_string(v));
	}
	return !why[0];
}

enum unusable unusable_value(const struct check *ck,
			     const struct metric_samples *ms, double v,
			     const struct verdict_input *in, char *why,
			     size_t len)
{
	/* The machine's shape, not the kernel's doing: nothing to judge. */
	if (ck->def->source == SRC_TRACE_CPU &&
	    !run_had_cpu(in, ms->id, why, len))
		return UNUSABLE_CPU;
	if (ck->def->source != SRC_RTAPP_TASK && in->lost_events)
		return UNUSABLE_LOST_EVENTS;
	if (isnan(v))
		return UNUSABLE_NOT_MEASURED;
	return USABLE;
}

enum verdict_status unusable_status(const struct check *ck, enum unusable u)
{
	switch (u) {
	case UNUSABLE_CPU:
		return V_SKIP;
	case UNUSABLE_LOST_EVENTS:
		return V_ERROR;
	case UNUSABLE_NOT_MEASURED:
		return ck->def->unavailable ? V_SKIP : V_FAIL;
	case USABLE:
		break;
	}
	return V_PASS;
}

void unusable_describe(const struct check *ck, const struct metric_samples *ms,
		       const struct verdict_input *in, enum unusable u,
		       const char *why, char *buf, size_t len)
{
	switch (u) {
	case UNUSABLE_CPU:
		snprintf(buf, len,
			 "%s: %s: cpu%d was not one of the run's CPUs (%s)",
			 ms->entity, ck->def->name, ms->id, why);
		break;
	case UNUSABLE_LOST_EVENTS:
		snprintf(buf, len,
			 "ERROR %s: %s: the trace lost %llu events, the value is not trustworthy",
			 ms->entity, ck->def->name, in->lost_events);
		break;
	case UNUSABLE_NOT_MEASURED:
		snprintf(buf, len, "%s: %s: %s", ms->entity, ck->def->name,
			 ck->def->unavailable ? ck->def->unavailable :
			 "not measured (no samples)");
		break;
	case USABLE:
		break;
	}
}

int verdict_unusable(const struct check *ck, const struct metric_samples *ms,
		     double v, const struct verdict_input *in,
		     struct verdict_result *r)
{
	char why[256];
	enum unusable u = unusable_value(ck, ms, v, in, why, sizeof(why));

	if (u == USABLE)
		return 0;
	r->status = unusable_status(ck, u);
	unusable_describe(ck, ms, in, u, why, r->diag, sizeof(r->diag));
	return 1;
}
