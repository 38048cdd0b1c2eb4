/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload file: rt-app's JSON plus our "sched-workloads" block.
 */
#ifndef SW_WORKLOAD_H
#define SW_WORKLOAD_H

#include <limits.h>
#include <stdio.h>
#include <json-c/json.h>
#include "lib/util.h"

#define WORKLOAD_BLOCK_KEY "sched-workloads"

struct workload {
	char name[64];		/* file name without .json */
	char path[PATH_MAX];
	char description[256];
	struct json_object *root;	/* the whole file */
	struct json_object *block;	/* root["sched-workloads"] */
};

/*
 * Reads and parses @path: json-c's syntax, then what json-c would read
 * other than written (lib/json_util.h). Those are errors; with @list, they
 * are listed there and counted in *@problems instead, and the object is
 * returned. Errors name the file, line and column.
 */
struct json_object *workload_read_json(const char *path, FILE *list,
				       int *problems, struct sw_err *err);
/* Parses @path; errors name the file, line and column or the key. */
int workload_load(const char *path, struct workload *w, struct sw_err *err);
void workload_free(struct workload *w);

/* Sorted workload file paths of @dir; returns the count or -1. */
int workload_list_dir(const char *dir, char ***paths, struct sw_err *err);
void workload_list_free(char **paths, int n);

/* The default workloads/ directory, next to the binary (else ./). */
void workload_default_dir(char *buf, size_t len);

/* Called per task of the workload; non-zero stops the walk. */
typedef int (*workload_task_fn)(const char *task, struct json_object *t,
				void *arg);

int workload_walk_tasks(const struct workload *w, workload_task_fn fn,
			   void *arg);

/*
 * The policy rt-app gives task @t (its object under "tasks", or NULL):
 * its own "policy", else the workload's global "default_policy", else
 * SCHED_OTHER, as rt-app does.
 */
const char *workload_policy(const struct workload *w, struct json_object *t);

#endif /* SW_WORKLOAD_H */
