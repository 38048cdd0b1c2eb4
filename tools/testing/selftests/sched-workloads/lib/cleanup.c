// SPDX-License-Identifier: GPL-2.0
/*
 * The cleanup stack and the signal handlers that make it run.
 *
 * Handlers only record the signal: libtracefs and stdio are not
 * async-signal-safe. The waits in the run poll cleanup_interrupted(), unwind
 * through their normal error paths and end in cleanup_all(), which also
 * runs from atexit() for early exits.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "lib/cleanup.h"
#include "lib/util.h"

#define MAX_CLEANUPS 16

/* Lock-free atomics are async-signal-safe; volatile is not needed. */
static int interrupted;

static struct {
	void (*fn)(void *arg);
	void *arg;
} stack[MAX_CLEANUPS];
static int depth;
static pid_t child_pgid;

int cleanup_interrupted(void)
{
	return __atomic_load_n(&interrupted, __ATOMIC_SEQ_CST);
}

static void on_signal(int sig)
{
	__atomic_store_n(&interrupted, sig, __ATOMIC_SEQ_CST);
	/* A second Ctrl-C should not leave rt-app behind either. */
	if (child_pgid > 0)
		kill(-child_pgid, SIGKILL);
}

void cleanup_set_child(pid_t pgid)
{
	child_pgid = pgid;
}

int cleanup_push(void (*fn)(void *arg), void *arg)
{
	if (depth == MAX_CLEANUPS)
		return -1;
	stack[depth].fn = fn;
	stack[depth].arg = arg;
	depth++;
	return 0;
}

void cleanup_pop(void *arg)
{
	int i;

	for (i = depth - 1; i >= 0; i--) {
		if (stack[i].arg != arg)
			continue;
		stack[i].fn(stack[i].arg);
		memmove(&stack[i], &stack[i + 1], (depth - i - 1) * sizeof(stack[0]));
		depth--;
		return;
	}
}

void cleanup_all(void)
{
	if (child_pgid > 0) {
		kill(-child_pgid, SIGKILL);
		while (waitpid(-child_pgid, NULL, 0) > 0)
			;
		child_pgid = 0;
	}
	while (depth > 0) {
		depth--;
		stack[depth].fn(stack[depth].arg);
	}
	if (cleanup_interrupted()) {
		int sig = cleanup_interrupted();

		__atomic_store_n(&interrupted, 0, __ATOMIC_SEQ_CST);
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

static void cleanup_atexit(void)
{
	cleanup_all();
}

void cleanup_install_handlers(void)
{
	/* SIGPIPE: `sched-workloads run | head` must restore too */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must interrupt the waits. */
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	atexit(cleanup_atexit);
}
