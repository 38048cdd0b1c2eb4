// SPDX-License-Identifier: GPL-2.0
/*
 * Pieces the diagnostic lines of verdicts are built from.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "judge/verdict_text.h"

void verdict_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(buf);
	va_list ap;

	if (off + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

void verdict_format_values(const double *v, size_t n, char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	if (n < 2)
		return;
	verdict_append(buf, len, " (median of %zu:", n);
	for (i = 0; i < n; i++)
		verdict_append(buf, len, " %.4g", v[i]);
	verdict_append(buf, len, ")");
}
