/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Leaving the machine as found: what a run changed is registered here and
 * undone on every exit path, SIGINT, SIGTERM (kselftest's timeout),
 * SIGHUP, SIGQUIT and SIGPIPE included; the process then dies of that
 * signal. Against SIGKILL, rt-app gets a parent-death signal
 * (rtapp/rtapp_run.c) and changed sysctls a journal (run/sysctl.h).
 */
#ifndef SW_CLEANUP_H
#define SW_CLEANUP_H

#include <signal.h>
#include <sys/types.h>

/* The signal that asked us to stop, or 0; long waits poll it and unwind. */
int cleanup_interrupted(void);

void cleanup_install_handlers(void);
/* The process group of the running rt-app, killed on any exit. */
void cleanup_set_child(pid_t pgid);
/* A function that undoes a change; run in reverse order of registration. */
int cleanup_push(void (*fn)(void *arg), void *arg);
/* Runs and forgets the most recent cleanup registered with @arg. */
void cleanup_pop(void *arg);
/* Undoes everything now; re-raises the pending signal, if any. */
void cleanup_all(void);

#endif /* SW_CLEANUP_H */
