// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by every stage.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/util.h"

#define EXIT_CODE(n, w) { .code = SW_EXIT_##n, .name = #n, .what = w }

const struct sw_exit_code sw_exit_codes[] = {
	EXIT_CODE(PASS, "pass"),
	EXIT_CODE(FAIL, "a check failed"),
	EXIT_CODE(USAGE, "usage"),
	EXIT_CODE(SKIP, "skipped (missing prerequisite)"),
	EXIT_CODE(BAD_WORKLOAD, "bad workload"),
	EXIT_CODE(BAD_LOG, "bad rt-app log"),
	EXIT_CODE(BAD_TRACE, "bad trace"),
	EXIT_CODE(RUN_ERROR, "the run broke"),
	EXIT_CODE(BAD_RESULTS, "bad result directory"),
};

const size_t sw_exit_ncodes = ARRAY_SIZE(sw_exit_codes);

int sw_err_set(struct sw_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

int path_join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* This binary's path. */
int exe_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The directory holding this binary: workloads/ and baselines/ sit there. */
int exe_dir(char *buf, size_t len)
{
	char *slash;

	if (exe_path(buf, len))
		return -1;
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return 0;
}

int glob_match(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, 0) == 0;
}

char *read_text_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	errno = 0;
	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;	/* EISDIR for a directory */

		free(buf);
		fclose(f);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	size_t done = 0;
	int fd, e = 0, in_place;
	struct stat st;

	/* /dev/stdout, a pipe: written where it is, never renamed over */
	in_place = !stat(path, &st) && !S_ISREG(st.st_mode);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(in_place ? path : tmp,
		  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	while (done < len && !e) {
		ssize_t w = write(fd, data + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			e = w ? errno : ENOSPC;
		else
			done += w;
	}
	if (close(fd) && !e)
		e = errno;
	if (!e && !in_place && rename(tmp, path))
		e = errno;
	if (e) {
		if (!in_place)
			unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int write_text_file(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

int write_json_file(const char *dir, const char *name,
		    struct json_object *o, int flags)
{
	char path[PATH_MAX];
	const char *text;
	size_t len;
	int ret = -1;

	text = o ? json_object_to_json_string_length(
			   o, flags | JSON_C_TO_STRING_NOSLASHESCAPE, &len) : NULL;
	if (!text)
		errno = ENOMEM;
	else if (path_join(path, sizeof(path), dir, name))
		errno = ENAMETOOLONG;
	else
		ret = write_file_atomic(path, text, len);
	json_object_put(o);
	return ret;
}

int write_stream_file(const char *path, int (*fn)(FILE *f, const void *arg),
		      const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret = -1;

	if (!f)
		return -1;
	if (fn(f, arg)) {
		fclose(f);
		errno = ENOMEM;
	} else if (fclose(f)) {
		errno = ENOMEM;
	} else {
		ret = write_file_atomic(path, buf, len);
	}
	free(buf);
	return ret;
}

uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int live_lock_take(void (*waiting)(const char *path), int (*interrupted)(void))
{
	const char *path = getenv("SCHED_WORKLOADS_LOCK");
	int fd;

	if (!path)
		path = SW_LIVE_LOCK;
	if (!*path)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return LIVE_LOCK_BROKEN;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return fd;
	if (waiting)
		waiting(path);
	while (flock(fd, LOCK_EX)) {
		int e = errno;

		if (e != EINTR || (interrupted && interrupted())) {
			close(fd);
			errno = e;
			return e == EINTR ? -1 : LIVE_LOCK_BROKEN;
		}
	}
	return fd;
}

/* "10", "2.5", "500ms", "3s": seconds as a double. */
int parse_duration_s(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (*end && strcmp(end, "s"))
		return -1;
	*out = v;
	return 0;
}

int copy_text_file(const char *from, const char *to)
{
	char *text = read_text_file(from, NULL);
	int ret;

	if (!text)
		return -1;
	ret = write_text_file(to, text);
	free(text);
	return ret;
}
