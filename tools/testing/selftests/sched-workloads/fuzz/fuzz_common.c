// SPDX-License-Identifier: GPL-2.0
/*
 * Input files and oracles of the harnesses (fuzz_common.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "lib/util.h"

static char fuzz_dir[PATH_MAX];
static char fuzz_path[PATH_MAX];

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: silent acceptance: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void remove_dir(void)
{
	if (fuzz_path[0])
		unlink(fuzz_path);
	rmdir(fuzz_dir);
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	FILE *f;

	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/sw-fuzz-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			perror(fuzz_dir);
			abort();
		}
		atexit(remove_dir);
	}
	if (fuzz_path[0])
		unlink(fuzz_path);
	if (path_join(fuzz_path, sizeof(fuzz_path), fuzz_dir, name)) {
		fprintf(stderr, "fuzz: %s/%s: path too long\n", fuzz_dir, name);
		abort();
	}
	f = fopen(fuzz_path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "fuzz: %s: %s\n", fuzz_path, strerror(errno));
		abort();
	}
	return fuzz_path;
}

void fuzz_check_values(const struct metric_set *set, const char *what)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (isinf(set->v[i].value))
			fuzz_fail("%s: %s of %s is %g", what,
				  set->v[i].def->name, set->v[i].entity,
				  set->v[i].value);
}
