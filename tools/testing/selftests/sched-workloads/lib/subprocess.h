/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a child (rt-app, or a command "record" traces) in a process
 * group of its own: killed with the tool, by the kernel after SIGKILL
 * (PR_SET_PDEATHSIG), by lib/cleanup.c after any other signal, and with
 * everything it forked once it ends or times out.
 */
#ifndef SW_CHILD_H
#define SW_CHILD_H

#include <stdint.h>
#include <sys/types.h>
#include "lib/util.h"

struct child_exit {
	int exited;		/* 1: exited with code; 0: killed */
	int code;		/* exit code, or signal number */
	int timed_out;
	double wall_s;
	uint64_t end_ns;	/* CLOCK_MONOTONIC when it was seen gone */
};

/* Called every 10 ms while the child runs (rate-limit inside). */
typedef void (*child_tick_fn)(pid_t child, void *arg);

/*
 * Runs @path (looked up in PATH when it has no '/') with @argv, whose
 * argv[0] names it in messages; output to @outlog (NULL: the tool's own).
 * Kills the whole process group after @timeout_s (0: never) or on a
 * signal to us (SW_EXIT_RUN_ERROR then). @tick may be NULL.
 */
int child_run(const char *path, char *const argv[], const char *outlog,
	      double timeout_s, child_tick_fn tick, void *arg,
	      struct child_exit *ex, struct sw_err *err);

/*
 * Runs @fn in a forked child, for code that may crash on what it is
 * given (a library parsing a file). Returns what @fn returned (0-255),
 * or -1 when it crashed, was killed, or could not be run.
 */
int child_try(int (*fn)(void *arg), void *arg);

#endif /* SW_CHILD_H */
