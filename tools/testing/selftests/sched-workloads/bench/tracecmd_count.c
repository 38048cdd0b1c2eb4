// SPDX-License-Identifier: GPL-2.0
/*
 * tracecmd_count: the yardstick of "make bench": counts the events of a
 * trace.dat (its first buffer with data, as "analyze" picks it) with
 * libtracecmd's own iteration and nothing else, and prints the count.
 */
#include <stdio.h>
#include <trace-cmd.h>

static int count(struct tracecmd_input *h, struct tep_record *rec, int cpu,
		 void *data)
{
	(void)h;
	(void)rec;
	(void)cpu;
	(*(unsigned long long *)data)++;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *top, *h;
	unsigned long long n = 0;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: tracecmd_count trace.dat\n");
		return 2;
	}
	top = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!top) {
		fprintf(stderr, "%s: cannot open\n", argv[1]);
		return 1;
	}
	h = top;
	/* trace-cmd extract -B leaves the top level empty */
	for (i = 0; i < tracecmd_buffer_instances(top) && h == top; i++)
		h = tracecmd_buffer_instance_handle(top, i);
	if (!h)
		h = top;
	tracecmd_iterate_events(h, NULL, 0, count, &n);
	printf("%llu\n", n);
	if (h != top)
		tracecmd_close(h);
	tracecmd_close(top);
	return 0;
}
