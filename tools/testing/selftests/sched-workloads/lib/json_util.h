/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What json-c accepts silently in a file people write: a key repeated in
 * one object (json-c keeps the last, so the first is ignored without a
 * word) and a comma before a closing brace or bracket (not JSON). rt-app
 * parses with json-c as well, so it would take both the same way. And the
 * numbers of the files runs write and read back (metrics, samples,
 * events, baselines), in the one form both sides agree on.
 */
#ifndef SW_JSON_CHECK_H
#define SW_JSON_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include "lib/util.h"

/*
 * Scans @text (@len bytes, already parsed by json-c: comments allowed)
 * for the above. Returns 0, or the number of problems: each is a line on
 * @list (naming @path, the line and column, and the key) when @list is
 * not NULL, and @err (SW_EXIT_BAD_WORKLOAD) holds the first or the count.
 * -1: the text cannot be scanned (@err says why).
 */
int json_check_text(const char *path, const char *text, size_t len,
		    FILE *list, struct sw_err *err);
/* The 1-based line and column of byte @off of @text. */
void json_line_col(const char *text, size_t off, int *line, int *col);

struct json_object;
/*
 * A recorded value: null (NULL here) is NAN, "not measured"; else a JSON
 * number that is finite. json-c parses "1e400" as infinity and takes a
 * string for 0 when asked for a double: both are refused (-1).
 */
int json_read_number(struct json_object *v, double *out);
/*
 * What json_read_number() reads back: null for NAN (and infinity), an
 * integer when @v is one (counts stay counts), else a double.
 */
struct json_object *json_new_number(double v);

#endif /* SW_JSON_CHECK_H */
