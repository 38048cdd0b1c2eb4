// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel threads from /proc, and the kthreads.txt file that keeps them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/kthreads.h"

/* include/linux/sched.h: "I am a kernel thread". */
#define PF_KTHREAD	0x00200000UL

static int add(struct kthread_list *l, int pid, const char *comm)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->n && l->v[lo].pid == pid)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct kthread *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		l->v = nv;
		l->cap = cap;
	}
	memmove(&l->v[lo + 1], &l->v[lo], (l->n - lo) * sizeof(*l->v));
	l->v[lo].pid = pid;
	snprintf(l->v[lo].comm, sizeof(l->v[lo].comm), "%s", comm);
	l->n++;
	return 0;
}

/*
 * "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": the comm
 * may hold spaces and parentheses, so the fields count from the last ')'.
 * Returns 1 for a kernel thread (its comm in @comm), 0 for a user task or
 * a pid gone meanwhile.
 */
static int stat_kthread(int pid, char *comm, size_t len)
{
	char path[64], buf[1024], *open, *close;
	unsigned long flags;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open ||
	    sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1 ||
	    !(flags & PF_KTHREAD))
		return 0;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	return 1;
}

int kthreads_scan(struct kthread_list *l, struct sw_err *err)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char comm[64];

	if (!d)
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "/proc: cannot open: %s",
				  strerror(errno));
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || !stat_kthread((int)pid, comm, sizeof(comm)))
			continue;
		if (add(l, (int)pid, comm)) {
			closedir(d);
			return sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		}
	}
	closedir(d);
	return 0;
}

static int print_kthreads(FILE *f, const void *arg)
{
	const struct kthread_list *l = arg;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (fprintf(f, "%d %s\n", l->v[i].pid, l->v[i].comm) < 0)
			return -1;
	return 0;
}

int kthreads_write(const struct kthread_list *l, const char *path,
		   struct sw_err *err)
{
	if (write_stream_file(path, print_kthreads, l))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot write: %s",
				  path, strerror(errno));
	return 0;
}

int kthreads_read(const char *path, struct kthread_list *l,
		  struct sw_err *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, ret = 0;

	memset(l, 0, sizeof(*l));
	if (!f && errno == ENOENT)
		return 1;
	if (!f)
		return sw_err_set(err, SW_EXIT_BAD_LOG, "%s: cannot open: %s",
				  path, strerror(errno));
	while ((len = getline(&line, &cap, f)) > 0) {
		char *p = line, *end;
		long pid;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || pid <= 0 || pid > 0x7fffffff ||
		    *end != ' ' || !end[1] || isspace((unsigned char)end[1])) {
			ret = sw_err_set(err, SW_EXIT_BAD_LOG,
					 "%s:%d: expected \"pid comm\" (a kernel thread)",
					 path, lineno);
			break;
		}
		if (add(l, (int)pid, end + 1)) {
			ret = sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
			break;
		}
	}
	if (!ret && ferror(f))
		ret = sw_err_set(err, SW_EXIT_BAD_LOG, "%s: read error", path);
	free(line);
	fclose(f);
	if (ret)
		kthreads_free(l);
	return ret;
}

const struct kthread *kthreads_find(const struct kthread_list *l, int pid)
{
	size_t lo = 0, hi = l ? l->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->v[mid].pid == pid)
			return &l->v[mid];
		if (l->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void kthreads_free(struct kthread_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int kthread_percpu_comm(const char *comm)
{
	const char *slash = strchr(comm, '/');

	return slash && slash[1] >= '0' && slash[1] <= '9';
}

int kthread_comm(const char *comm)
{
	return kthread_percpu_comm(comm) || !strncmp(comm, "kworker/", 8);
}
