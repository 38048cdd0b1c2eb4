/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options trace_check and sched_stream_check share:
 *
 *   -a             tasks without a matching -A may run on every CPU
 *   -A GLOB=CPUS   tasks whose comm matches GLOB may run on CPUS
 *                  ("1", "0-3,7"; the CPUs below CPUBITS_MAX_CPUS)
 *   -t GLOB        tasks that get per-task metrics (default: all)
 *   -C CORES       the SMT core of each CPU in turn ("0,0,2,2": CPUs 0
 *                  and 1 are one core's threads, 2 and 3 another's)
 */
#ifndef SW_CHECKER_OPTS_H
#define SW_CHECKER_OPTS_H

#include "trace/trace.h"

#define CHECKER_MAX_ARGS 16

struct checker_opts {
	struct trace_opts o;
	struct trace_affinity aff[CHECKER_MAX_ARGS];
	const char *globs[CHECKER_MAX_ARGS];
	size_t nglobs;
};

/*
 * Takes option @opt with argument @arg (kept, not copied) into @c:
 * 1 when it was one of the above, 0 when not, -1 when malformed or one
 * too many.
 */
int checker_opt(struct checker_opts *c, int opt, char *arg);
/* Points c->o at what the options gave, once they are all taken. */
void checker_opts_done(struct checker_opts *c);

#endif /* SW_CHECKER_OPTS_H */
