/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pieces the diagnostic lines of verdicts are built from.
 */
#ifndef SW_VERDICT_TEXT_H
#define SW_VERDICT_TEXT_H

#include <stddef.h>
#include "lib/util.h"

/* Appends printf output to @buf, which always stays terminated. */
__printf(3, 4)
void verdict_append(char *buf, size_t len, const char *fmt, ...);
/* " (median of 3: 12 15 13)" when there was more than one value, else "". */
void verdict_format_values(const double *v, size_t n, char *buf, size_t len);

#endif /* SW_VERDICT_TEXT_H */
