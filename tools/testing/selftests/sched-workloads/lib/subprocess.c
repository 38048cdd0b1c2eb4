// SPDX-License-Identifier: GPL-2.0
/*
 * A child process in a process group of its own, gone with the tool
 * (lib/subprocess.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "lib/subprocess.h"
#include "lib/cleanup.h"

/* In the child: never returns; a failed exec sends its errno up @errfd. */
static void child_exec(const char *path, char *const argv[], const char *outlog,
		       pid_t parent, int errfd)
{
	int fd = outlog ? open(outlog, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	sigset_t none;

	/*
	 * A SCHED_FIFO workload must not outlive the tool: SIGKILL (a lab's
	 * watchdog) runs no cleanup, so the kernel kills the child for us.
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
	execvp(path, argv);
	if (write(errfd, &errno, sizeof(errno)) < 0)
		_exit(126);
	_exit(127);
}

/*
 * SIGTERM, then SIGKILL after a second. 0 once @pid is reaped; -1 when
 * it is still there 10 s after SIGKILL: a thread of it stuck in the
 * kernel (one that never runs again cannot die), left to the kernel
 * rather than hanging the battery on it.
 */
static int kill_group(pid_t pid)
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
	for (i = 0; i < 500; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			goto reap_rest;
		nanosleep(&ts, NULL);
	}
	return -1;
reap_rest:
	kill(-pid, SIGKILL);
	return 0;
}

int child_try(int (*fn)(void *arg), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		static const int crashes[] = {
			SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
		};
		struct rlimit none = { 0, 0 };
		size_t i;

		/*
		 * A crash is an answer here: no core file, and no sanitizer
		 * or fuzzer report (theirs would take the crash for ours).
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setrlimit(RLIMIT_CORE, &none);
		for (i = 0; i < ARRAY_SIZE(crashes); i++)
			signal(crashes[i], SIG_DFL);
		_exit(fn(arg) & 0xff);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A pidfd of @pid (readable once it ends), or -1 before Linux 5.3. */
static int child_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return syscall(SYS_pidfd_open, pid, 0);
#else
	return -1;
#endif
}

/*
 * Waits for the child to end, up to @ns: on its pidfd, so that the tool
 * does not wake on the workload's CPUs while rt-app runs (a wakeup every
 * 10 ms preempted a hog 300 times in 3 s); at most a second at a time,
 * which bounds how late a signal that came just before the poll is
 * seen. In steps of 10 ms with a @tick to call, or without a pidfd.
 */
static void child_wait(int pidfd, int tick, uint64_t ns)
{
	struct timespec step = { 0, 10 * 1000 * 1000 };
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	if (tick || pidfd < 0) {
		nanosleep(&step, NULL);
		return;
	}
	poll(&p, 1, ns > 1000000000ull ? 1000 : (int)(ns / 1000000) + 1);
}

int child_run(const char *path, char *const argv[], const char *outlog,
	      double timeout_s, child_tick_fn tick, void *arg,
	      struct child_exit *ex, struct sw_err *err)
{
	uint64_t t0 = now_mono_ns(), deadline;
	pid_t pid, self = getpid();
	int status, pipefd[2], exec_errno = 0, pidfd;
	ssize_t got;

	memset(ex, 0, sizeof(*ex));
	deadline = timeout_s > 0 ? t0 + (uint64_t)(timeout_s * 1e9) :
				   UINT64_MAX;
	/* Closed by a successful exec: an errno read from it is a failed one. */
	if (pipe2(pipefd, O_CLOEXEC))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "fork: %s", strerror(errno));
	}
	if (!pid)
		child_exec(path, argv, outlog, self, pipefd[1]);
	/* Both sides set the group: no window where a kill misses it. */
	setpgid(pid, pid);
	cleanup_set_child(pid);
	close(pipefd[1]);
	do
		got = read(pipefd[0], &exec_errno, sizeof(exec_errno));
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);
	if (got == sizeof(exec_errno)) {
		waitpid(pid, NULL, 0);
		cleanup_set_child(0);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "cannot run %s: %s",
				  path, strerror(exec_errno));
	}

	pidfd = child_pidfd(pid);
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
			int stuck;

			if (pidfd >= 0)
				close(pidfd);
			ex->timed_out = !cleanup_interrupted();
			stuck = kill_group(pid);
			cleanup_set_child(0);
			ex->end_ns = now_mono_ns();
			ex->wall_s = (ex->end_ns - t0) / 1e9;
			if (cleanup_interrupted())
				return sw_err_set(err, SW_EXIT_RUN_ERROR,
						  "interrupted by signal %d",
						  cleanup_interrupted());
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  stuck ? "%s still running after %.0f s, and not gone 10 s after SIGKILL: a thread of it is stuck in the kernel" :
						  "%s still running after %.0f s: killed",
					  argv[0], timeout_s);
		}
		if (tick)
			tick(pid, arg);
		child_wait(pidfd, !!tick, deadline - now_mono_ns());
	}
	if (pidfd >= 0)
		close(pidfd);
	/* rt-app's threads are gone with it; anything it forked is not. */
	kill(-pid, SIGKILL);
	cleanup_set_child(0);
	ex->end_ns = now_mono_ns();
	ex->wall_s = (ex->end_ns - t0) / 1e9;
	/* the signal handler killed it (lib/cleanup.c): not rt-app's doing */
	if (cleanup_interrupted())
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "interrupted by signal %d", cleanup_interrupted());
	ex->exited = WIFEXITED(status);
	ex->code = ex->exited ? WEXITSTATUS(status) : WTERMSIG(status);
	return 0;
}
