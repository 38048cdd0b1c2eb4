// SPDX-License-Identifier: GPL-2.0
/*
 * The task table: a hash of the live pids over the list of every
 * incarnation.
 */
#include <stdlib.h>
#include <string.h>

#include "trace/trace_report.h"
#include "trace/trace_tasks.h"

static struct ta_task *task_new(struct trace_report *r, int pid, uint64_t ts)
{
	struct ta_task *t = calloc(1, sizeof(*t));

	if (!t)
		goto fail;
	t->cpu_ns_on = calloc(r->ncpus, sizeof(*t->cpu_ns_on));
	if (!t->cpu_ns_on)
		goto fail;
	t->report = r;
	t->pid = pid;
	t->prio = 120;
	t->switch_prio = TA_NO_PRIO;
	t->cpu = -1;
	t->since = ts;
	t->first_ts = ts;
	strcpy(t->comm, "<...>");
	t->hnext = r->hash[pid % TA_HASH_SIZE];
	r->hash[pid % TA_HASH_SIZE] = t;
	*r->tail = t;
	r->tail = &t->next;
	r->ntasks++;
	return t;
fail:
	free(t);
	r->failed = 1;
	return NULL;
}

struct ta_task *ta_task_find(const struct trace_report *r, int pid)
{
	struct ta_task *t;

	if (pid <= 0)
		return NULL;
	for (t = r->hash[pid % TA_HASH_SIZE]; t; t = t->hnext)
		if (t->pid == pid)
			break;
	return t;
}

struct ta_task *ta_task_get(struct trace_report *r, int pid,
			    const char *comm, uint64_t ts)
{
	struct ta_task *t;

	if (pid <= 0)
		return NULL;
	t = ta_task_find(r, pid);
	if (!t)
		t = task_new(r, pid, ts);
	if (t)
		t->last_ts = ts;
	/*
	 * Latest name wins: rt-app and exec rename threads after fork.
	 * Compared first: this runs for nearly every event.
	 */
	if (t && comm && comm[0] && strncmp(t->comm, comm, sizeof(t->comm))) {
		size_t n = strnlen(comm, sizeof(t->comm) - 1);

		memcpy(t->comm, comm, n);
		t->comm[n] = '\0';
		t->aff_valid = 0;
	}
	return t;
}

void ta_task_unhash(struct trace_report *r, struct ta_task *t)
{
	struct ta_task **pp;

	for (pp = &r->hash[t->pid % TA_HASH_SIZE]; *pp; pp = &(*pp)->hnext) {
		if (*pp == t) {
			*pp = t->hnext;
			break;
		}
	}
	t->hnext = NULL;
}
