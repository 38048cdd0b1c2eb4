// SPDX-License-Identifier: GPL-2.0
/*
 * The platform of a run or a baseline (machine/platform.h).
 */
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "machine/platform.h"
#include "machine/settings_diff.h"

const char *const platform_keys[] = {
	"cpuidle.driver", "cpuidle.governor", "clocksource",
	"cpufreq.driver", "cpufreq.governor", "smt.active", NULL,
};

/* Their short names in a slug, in the same order. */
static const char *const slug_names[] = {
	"idle", "gov", "clock", "freq", "fgov", "smt",
};

static const char *value_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ?
	       json_object_get_string(v) : NULL;
}

size_t platform_diff(struct json_object *base, struct json_object *cur,
		     char *buf, size_t len)
{
	struct json_object *b, *c;
	const char *bv, *cv;
	size_t i, n;

	if (len)
		buf[0] = '\0';
	if (!base)
		return 0;
	b = json_object_new_object();
	c = json_object_new_object();
	for (i = 0; b && c && platform_keys[i]; i++) {
		bv = value_of(base, platform_keys[i]);
		if (!bv)
			continue;
		json_object_object_add(b, platform_keys[i],
				       json_object_new_string(bv));
		cv = value_of(cur, platform_keys[i]);
		if (cv)
			json_object_object_add(c, platform_keys[i],
					       json_object_new_string(cv));
	}
	n = b && c ? settings_diff(b, c, buf, len) : 0;
	json_object_put(b);
	json_object_put(c);
	return n;
}

void platform_slug(struct json_object *settings, char *buf, size_t len)
{
	size_t i, used = 0;
	const char *v;
	char *p;
	int w;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; platform_keys[i]; i++) {
		v = value_of(settings, platform_keys[i]);
		if (!v || !*v)
			continue;
		w = snprintf(buf + used, len - used, "%s%s-%s", used ? "." : "",
			     slug_names[i], v);
		if (w < 0 || used + w >= len) {
			buf[used] = '\0';
			break;
		}
		used += w;
	}
	for (p = buf; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
			*p = '_';
	if (!buf[0])
		snprintf(buf, len, "unknown");
}
