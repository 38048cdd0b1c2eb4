// SPDX-License-Identifier: GPL-2.0
/*
 * What differs between two settings objects (machine/settings_diff.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/sched_settings.h"
#include "machine/settings_diff.h"

/* What ends a diff cut short, when other items follow. */
#define MORE	", ..."

/* The string value of @key, or NULL when @o lacks it. */
static const char *value_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

/* Counts, and prints to @m unless NULL, the words of @a that @b lacks. */
static int words_only_in(const char *a, const char *b, FILE *m)
{
	int n = 0;
	size_t len;

	for (;;) {
		a += strspn(a, SETTINGS_BLANKS);
		len = strcspn(a, SETTINGS_BLANKS);
		if (!len)
			break;
		if (!settings_has_word(b, a, len)) {
			if (m)
				fprintf(m, "%s%.*s", n ? " " : "", (int)len, a);
			n++;
		}
		a += len;
	}
	if (m && !n)
		fputs("(none)", m);
	return n;
}

static void print_value(FILE *m, const char *v)
{
	fputs(!v ? "(unset)" : !*v ? "\"\"" : v, m);
}

/*
 * "key a -> b". Of two word lists (sched.features) only the words that
 * differ: the whole lists would bury the one flag that changed.
 */
static char *diff_item(const char *key, const char *a, const char *b)
{
	char *out = NULL;
	size_t size;
	FILE *m;

	m = open_memstream(&out, &size);
	if (!m)
		return NULL;
	fprintf(m, "%s ", key);
	if (a && b && strpbrk(a, SETTINGS_BLANKS) &&
	    strpbrk(b, SETTINGS_BLANKS) &&
	    (words_only_in(a, b, NULL) || words_only_in(b, a, NULL))) {
		words_only_in(a, b, m);
		fputs(" -> ", m);
		words_only_in(b, a, m);
	} else {
		print_value(m, a);
		fputs(" -> ", m);
		print_value(m, b);
	}
	if (fclose(m)) {
		free(out);
		return NULL;
	}
	return out;
}

static int differs(const char *a, const char *b)
{
	return !a != !b || (a && strcmp(a, b));
}

size_t settings_diff(struct json_object *base, struct json_object *cur,
		     char *buf, size_t len)
{
	const char **bk = NULL, **ck = NULL, **diff = NULL;
	size_t nb, nc, i = 0, j = 0, n = 0, k, pos = 0;

	if (len)
		buf[0] = '\0';
	if (!base)
		return 0;
	bk = settings_sorted_keys(base, &nb);
	ck = settings_sorted_keys(cur, &nc);
	diff = calloc(nb + nc + 1, sizeof(*diff));
	if (!bk || !ck || !diff)
		goto out;
	/* The union of the two sorted key lists, in order. */
	while (i < nb || j < nc) {
		int c = i == nb ? 1 : j == nc ? -1 : strcmp(bk[i], ck[j]);
		const char *key = c <= 0 ? bk[i] : ck[j];

		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
		if (differs(value_of(base, key), value_of(cur, key)))
			diff[n++] = key;
	}
	for (k = 0; k < n; k++) {
		const char *sep = pos ? ", " : "";
		char *item = diff_item(diff[k], value_of(base, diff[k]),
				       value_of(cur, diff[k]));
		size_t need;

		if (!item)
			break;
		/* Room for the item, and for MORE after it if others follow. */
		need = strlen(sep) + strlen(item) +
		       (k + 1 < n ? strlen(MORE) : 0);
		if (pos + need < len) {
			pos += snprintf(buf + pos, len - pos, "%s%s", sep, item);
			free(item);
			continue;
		}
		free(item);
		if (pos)
			snprintf(buf + pos, len - pos, "%s", MORE);
		else if (len > strlen("..."))
			snprintf(buf, len, "...");
		break;
	}
out:
	free(bk);
	free(ck);
	free(diff);
	return n;
}
