// SPDX-License-Identifier: GPL-2.0
/*
 * The rt-app child process.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "cleanup.h"
#include "rtapp_run.h"

const char *rtapp_binary(void)
{
	static char found[4096];
	const char *env = getenv("RTAPP");
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save;

	if (env && *env)
		return access(env, X_OK) ? NULL : env;
	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (snprintf(found, sizeof(found), "%s/rt-app", dir) < (int)sizeof(found) &&
		    !access(found, X_OK))
			return found;
	}
	return NULL;
}

static void child_exec(const char *rtapp, const char *json, const char *outlog,
		       pid_t parent)
{
	int fd = open(outlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	sigset_t none;

	/*
	 * A SCHED_FIFO workload must not outlive the tool: SIGKILL (a lab's
	 * watchdog) runs no cleanup, so the kernel kills rt-app for us.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	execl(rtapp, "rt-app", json, (char *)NULL);
	fprintf(stderr, "sched-workloads: exec %s: %s\n", rtapp, strerror(errno));
	_exit(127);
}

static void kill_group(pid_t pid)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	kill(-pid, SIGTERM);
	for (i = 0; i < 50; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			goto reap_rest;
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
reap_rest:
	kill(-pid, SIGKILL);
}

int rtapp_run(const char *rtapp, const char *json, const char *outlog,
	      double timeout_s, struct rtapp_exit *ex, struct sw_err *err)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	uint64_t t0 = now_mono_ns(), deadline;
	pid_t pid, self = getpid();
	int status;

	memset(ex, 0, sizeof(*ex));
	deadline = t0 + (uint64_t)(timeout_s * 1e9);
	pid = fork();
	if (pid < 0)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "fork: %s", strerror(errno));
	if (!pid)
		child_exec(rtapp, json, outlog, self);
	/* Both sides set the group: no window where a kill misses it. */
	setpgid(pid, pid);
	cleanup_set_child(pid);

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			cleanup_set_child(0);
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "waitpid: %s",
					  strerror(errno));
		}
		if (cleanup_interrupted() || now_mono_ns() > deadline) {
			ex->timed_out = !cleanup_interrupted();
			kill_group(pid);
			cleanup_set_child(0);
			ex->end_ns = now_mono_ns();
			ex->wall_s = (ex->end_ns - t0) / 1e9;
			if (cleanup_interrupted())
				return sw_err_set(err, SW_EXIT_RUN_ERROR,
						  "interrupted by signal %d",
						  cleanup_interrupted());
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  "rt-app still running after %.0f s: killed",
					  timeout_s);
		}
		nanosleep(&tick, NULL);
	}
	/* rt-app's threads are gone with it; anything it forked is not. */
	kill(-pid, SIGKILL);
	cleanup_set_child(0);
	ex->end_ns = now_mono_ns();
	ex->wall_s = (ex->end_ns - t0) / 1e9;
	/* the signal handler killed it (cleanup.c): not rt-app's doing */
	if (cleanup_interrupted())
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "interrupted by signal %d", cleanup_interrupted());
	ex->exited = WIFEXITED(status);
	ex->code = ex->exited ? WEXITSTATUS(status) : WTERMSIG(status);
	return 0;
}
