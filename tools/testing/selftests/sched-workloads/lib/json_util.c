// SPDX-License-Identifier: GPL-2.0
/*
 * A scanner over JSON text that json-c has already accepted: it walks
 * strings, comments and nesting, keeping per open object the keys seen
 * (as spans of the text: the same key spelt with different escapes is
 * not caught, and need not be).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/json_util.h"

#define JC_MAX_DEPTH 64

struct jc_frame {
	int is_object;
	int want_key;		/* the next string is a key */
	size_t first_key;	/* its keys: spans[first_key..nspans) */
};

struct jc_span {
	size_t off, len;
};

int json_read_number(struct json_object *v, double *out)
{
	if (!v) {
		*out = NAN;
		return 0;
	}
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return -1;
	*out = json_object_get_double(v);
	return isfinite(*out) ? 0 : -1;
}

struct json_object *json_new_number(double v)
{
	if (!isfinite(v))
		return NULL;
	if (v == floor(v) && fabs(v) < 9e15)
		return json_object_new_int64((int64_t)v);
	return json_object_new_double(v);
}

void json_line_col(const char *text, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* One problem: listed on @list, or, without one, the error. */
static void jc_problem(const char *path, const char *text, size_t off,
		       FILE *list, struct sw_err *err, const char *what,
		       const char *key, int keylen)
{
	const char *tail = key ?
		"\" (json-c would keep this one and drop the first silently)" :
		"";
	int line, col;

	json_line_col(text, off, &line, &col);
	if (list)
		fprintf(list, "sched-workloads: %s:%d:%d: %s%.*s%s\n", path, line,
			col, what, keylen, key ? key : "", tail);
	else
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s:%d:%d: %s%.*s%s",
			   path, line, col, what, keylen, key ? key : "", tail);
}

/* The end of the string opening at @i (the index of its closing quote). */
static size_t string_end(const char *text, size_t len, size_t i)
{
	for (i++; i < len && text[i] != '"'; i++)
		if (text[i] == '\\')
			i++;
	return i;
}

/* Past the comment at @i, or @i when there is none. */
static size_t skip_comment(const char *text, size_t len, size_t i)
{
	const char *end;

	if (i + 1 >= len || text[i] != '/')
		return i;
	if (text[i + 1] == '/') {
		end = memchr(text + i, '\n', len - i);
		return end ? (size_t)(end - text) : len;
	}
	if (text[i + 1] == '*') {
		end = strstr(text + i + 2, "*/");
		return end ? (size_t)(end - text) + 2 : len;
	}
	return i;
}

int json_check_text(const char *path, const char *text, size_t len,
		    FILE *list, struct sw_err *err)
{
	struct jc_frame stack[JC_MAX_DEPTH];
	struct jc_span *spans = NULL, *grown;
	size_t nspans = 0, cap = 0, i = 0, j, k, comma = 0;
	int depth = 0, rc = 0, found = 0;
	char last = 0;		/* the last character that is not blank */

	while (i < len && !rc && (list || !found)) {
		char c = text[i];

		j = skip_comment(text, len, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			i++;
			continue;
		}
		if (c == '"') {
			struct jc_frame *f = depth ? &stack[depth - 1] : NULL;

			j = string_end(text, len, i);
			if (f && f->is_object && f->want_key) {
				for (k = f->first_key; k < nspans; k++)
					if (spans[k].len == j - i - 1 &&
					    !memcmp(text + spans[k].off,
						    text + i + 1, j - i - 1))
						break;
				if (k < nspans) {
					jc_problem(path, text, i, list, err,
						   "key repeated in its object: \"",
						   text + i + 1, j - i - 1);
					found++;
				}
				if (nspans == cap) {
					cap = cap ? 2 * cap : 64;
					grown = realloc(spans, cap * sizeof(*spans));
					if (!grown) {
						rc = sw_err_set(err, SW_EXIT_RUN_ERROR,
								"%s: out of memory", path);
						break;
					}
					spans = grown;
				}
				spans[nspans].off = i + 1;
				spans[nspans++].len = j - i - 1;
				f->want_key = 0;
			}
			i = j + 1;
			last = '"';
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth == JC_MAX_DEPTH) {
				jc_problem(path, text, i, NULL, err,
					   "nested too deep", NULL, 0);
				rc = -1;
				break;
			}
			stack[depth].is_object = c == '{';
			stack[depth].want_key = c == '{';
			stack[depth].first_key = nspans;
			depth++;
		} else if (c == '}' || c == ']') {
			if (last == ',') {
				jc_problem(path, text, comma, list, err,
					   "comma before a closing bracket (not JSON)",
					   NULL, 0);
				found++;
			}
			if (depth) {
				depth--;
				nspans = stack[depth].first_key;
			}
		} else if (c == ',') {
			comma = i;
			if (depth && stack[depth - 1].is_object)
				stack[depth - 1].want_key = 1;
		}
		last = c;
		i++;
	}
	free(spans);
	if (!rc && found && list)
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
			   "%s: %d place%s json-c would read other than written (listed above)",
			   path, found, found == 1 ? "" : "s");
	return rc ? rc : found;
}
