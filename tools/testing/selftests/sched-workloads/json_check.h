/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What json-c accepts silently in a file people write: a key repeated in
 * one object (json-c keeps the last, so the first is ignored without a
 * word) and a comma before a closing brace or bracket (not JSON). rt-app
 * parses with json-c as well, so it would take both the same way.
 */
#ifndef SW_JSON_CHECK_H
#define SW_JSON_CHECK_H

#include <stddef.h>
#include "util.h"

/*
 * Scans @text (@len bytes, already parsed by json-c: comments allowed)
 * for the above. Returns 0, or -1 with @err (SW_EXIT_BAD_WORKLOAD) naming
 * @path, the line and column, and the key.
 */
int json_check_text(const char *path, const char *text, size_t len,
		    struct sw_err *err);
/* The 1-based line and column of byte @off of @text. */
void json_line_col(const char *text, size_t off, int *line, int *col);

#endif /* SW_JSON_CHECK_H */
