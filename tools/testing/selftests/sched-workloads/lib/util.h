/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers every stage needs: exit codes, error reporting that names
 * the file and the place, paths and globs.
 */
#ifndef SW_UTIL_H
#define SW_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes: 0, 1 and 4 follow kselftest; the others say what was bad. */
#define SW_EXIT_PASS		0
#define SW_EXIT_FAIL		1	/* a verdict failed */
#define SW_EXIT_USAGE		2	/* bad command line */
#define SW_EXIT_SKIP		4	/* KSFT_SKIP: a prerequisite is missing */
#define SW_EXIT_BAD_WORKLOAD	5	/* workload JSON or verdict block invalid */
#define SW_EXIT_BAD_LOG		6	/* rt-app log truncated or foreign */
#define SW_EXIT_BAD_TRACE	7	/* trace.dat corrupt or foreign */
#define SW_EXIT_RUN_ERROR	8	/* the run itself broke (rt-app, tracefs) */
#define SW_EXIT_BAD_RESULTS	9	/* a result directory unreadable or foreign */

/*
 * Every exit code with its name and what it tells, for --help and for
 * the python3 programs ("sched-workloads --facts"), which take the values
 * from here rather than restate them.
 */
struct sw_exit_code {
	int code;
	const char *name;	/* "BAD_WORKLOAD" for SW_EXIT_BAD_WORKLOAD */
	const char *what;	/* "bad workload" */
};

extern const struct sw_exit_code sw_exit_codes[];
extern const size_t sw_exit_ncodes;

#define SW_ERR_LEN 512

/* An error to hand up the stack: which exit code, and a message. */
struct sw_err {
	int code;
	char msg[SW_ERR_LEN];
};

/* The kernel's __printf(), which userspace headers do not have. */
#ifndef __printf
#define __printf(fmt, args) __attribute__((				\
	__format__(__printf__, fmt, args)))
#endif

__printf(3, 4)
int sw_err_set(struct sw_err *err, int code, const char *fmt, ...);

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

int mkdir_p(const char *path);
int path_join(char *buf, size_t len, const char *dir, const char *name);
int exe_path(char *buf, size_t len);
int exe_dir(char *buf, size_t len);
int glob_match(const char *pattern, const char *s);
char *read_text_file(const char *path, size_t *len);
/*
 * Writes go to PATH.tmp, renamed to PATH once every byte is written: a
 * full disk or a kill leaves the old file or none, never a truncated
 * one. A PATH that exists and is not a regular file (/dev/stdout, a
 * pipe) is written in place. They return 0, or -1 with errno set (and
 * no PATH.tmp left).
 */
int write_file_atomic(const char *path, const char *data, size_t len);
int write_text_file(const char *path, const char *text);
struct json_object;
/* @dir/@name from @o (json-c's JSON_C_TO_STRING_* @flags); puts @o. */
int write_json_file(const char *dir, const char *name,
		    struct json_object *o, int flags);
/* @path from what @fn prints to a memory stream; @fn returns 0 or -1. */
int write_stream_file(const char *path, int (*fn)(FILE *f, const void *arg),
		      const void *arg);
int copy_text_file(const char *from, const char *to);
uint64_t now_mono_ns(void);

/*
 * Live runs disturb each other's measurements: they take turns on one
 * lock file, $SCHED_WORKLOADS_LOCK or SW_LIVE_LOCK; an empty variable
 * means the caller holds it already. Blocks until the lock is free,
 * calling @waiting (may be NULL) once first when it is not, and giving
 * up when @interrupted (may be NULL) says so after a signal. Returns the
 * fd to close to release it; -1: no lock taken (none wanted, or
 * interrupted); LIVE_LOCK_BROKEN: the file cannot be opened or locked
 * (errno says why), which must stop a run rather than let it go on
 * unserialised.
 */
#define SW_LIVE_LOCK "/tmp/sched-workloads-live.lock"
#define LIVE_LOCK_BROKEN (-2)
int live_lock_take(void (*waiting)(const char *path), int (*interrupted)(void));
int parse_duration_s(const char *s, double *out);

#endif /* SW_UTIL_H */
