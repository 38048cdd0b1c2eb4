// SPDX-License-Identifier: GPL-2.0
/*
 * kthreads_check: trace/kthreads.c from the command line, for the tests and for
 * recording fixtures.
 *
 *   kthreads_check FILE     adds the kernel threads alive now to FILE's
 *                           list (created if missing) and writes it back
 *   kthreads_check -r FILE  reads FILE and prints it as written
 *
 * Called before and after a run, the first form leaves in FILE what the
 * battery keeps as rep-K/kthreads.txt. Exits with the module's code and
 * its message on stderr.
 */
#include <stdio.h>
#include <string.h>

#include "trace/kthreads.h"

int main(int argc, char **argv)
{
	struct kthread_list l = { 0 };
	struct sw_err err = { 0 };
	int read_only = argc == 3 && !strcmp(argv[1], "-r");
	const char *file = argv[argc - 1];
	int ret;

	if (argc != 2 && !read_only) {
		fputs("kthreads_check [-r] FILE\n", stderr);
		return SW_EXIT_USAGE;
	}
	ret = kthreads_read(file, &l, &err);
	if (ret < 0 || (ret > 0 && read_only)) {
		fprintf(stderr, "kthreads_check: %s\n",
			ret < 0 ? err.msg : "no such file");
		return ret < 0 ? err.code : SW_EXIT_USAGE;
	}
	if (read_only)
		ret = kthreads_write(&l, "/dev/stdout", &err);
	else
		ret = kthreads_scan(&l, &err) || kthreads_write(&l, file, &err);
	if (ret)
		fprintf(stderr, "kthreads_check: %s\n", err.msg);
	kthreads_free(&l);
	return ret ? err.code : SW_EXIT_PASS;
}
