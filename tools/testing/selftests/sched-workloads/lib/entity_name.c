// SPDX-License-Identifier: GPL-2.0
/*
 * Entity names (lib/entity_name.h has the rule).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lib/entity_name.h"

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

int entity_task_name_ok(const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++)
		if (i == ENTITY_TASK_MAX || !name_char(name[i]))
			return 0;
	return i > 0;
}

void entity_sanitize(const char *comm, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; comm[i] && i + 1 < len; i++)
		buf[i] = name_char(comm[i]) ? comm[i] : '_';
	buf[i] = '\0';
}

void entity_thread_name(const char *task, int k, int n, char *buf,
			size_t len)
{
	if (n > 1)
		snprintf(buf, len, "%s-%d", task, k);
	else
		snprintf(buf, len, "%s", task);
}

void entity_task_of(const char *entity, char *buf, size_t len)
{
	size_t n = strlen(entity), end = n;

	while (end && entity[end - 1] >= '0' && entity[end - 1] <= '9')
		end--;
	/* a "-<digits>" suffix after a non-empty name is an instance number */
	if (end == n || end < 2 || entity[end - 1] != '-')
		end = n + 1;
	snprintf(buf, len, "%.*s", (int)(end - 1), entity);
}

int entity_ktap_ok(const char *s)
{
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == '#')
			return 0;
	return 1;
}
