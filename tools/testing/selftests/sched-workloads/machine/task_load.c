// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU time of every thread, from /proc (machine/task_load.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/task_load.h"
#include "lib/util.h"

#define PF_KTHREAD	0x00200000
#define HEAVIEST_MIN	0.01	/* a share below this names no one */

/* "fair nice 0", "rt 50", "deadline": as the trace's analysis says it. */
static void policy_of(int policy, int rt_prio, int nice, char *buf,
		      size_t len)
{
	switch (policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		snprintf(buf, len, "rt %d", rt_prio);
		break;
	case SCHED_IDLE:
		snprintf(buf, len, "idle");
		break;
#ifdef SCHED_DEADLINE
	case SCHED_DEADLINE:
		snprintf(buf, len, "deadline");
		break;
#endif
	default:
		snprintf(buf, len, "fair nice %d", nice);
	}
}

/*
 * /proc/<pid>/task/<tid>/stat: "tid (comm) state ppid ...": fields from
 * the last ')' on, as proc(5) numbers them.
 */
static int parse_stat(const char *text, struct task_tick *t)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long f[42] = { 0 };
	const char *p;
	char *end;
	int i;

	if (!open || !close || close < open)
		return -1;
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(close - open - 1),
		 open + 1);
	p = close + 2;
	/* field 3 is the state letter; numbers from field 4 on */
	while (*p && !isspace((unsigned char)*p))
		p++;
	for (i = 4; i <= 41; i++) {
		f[i] = strtoull(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	t->kthread = !!(f[9] & PF_KTHREAD);
	t->ticks = f[14] + f[15];
	t->start = f[22];
	policy_of((int)f[41], (int)f[40], (int)(long long)f[19], t->policy,
		  sizeof(t->policy));
	return 0;
}

static int add_thread(struct task_load *s, pid_t tgid, pid_t tid)
{
	char path[64], *text;
	struct task_tick t = { .tgid = tgid, .tid = tid };

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, tid);
	text = read_text_file(path, NULL);
	/* gone since the directory was read: not an error */
	if (!text || parse_stat(text, &t)) {
		free(text);
		return 0;
	}
	free(text);
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 512;
		struct task_tick *nt = realloc(s->t, cap * sizeof(*nt));

		if (!nt)
			return -1;
		s->t = nt;
		s->cap = cap;
	}
	s->t[s->n++] = t;
	return 0;
}

static int numeric(const char *name)
{
	if (!*name)
		return 0;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return 0;
	return 1;
}

int task_load_read(struct task_load *s)
{
	struct dirent *pe, *te;
	char path[sizeof(pe->d_name) + 16];
	DIR *proc, *task;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->at_ns = now_mono_ns();
	proc = opendir("/proc");
	if (!proc)
		return -1;
	while (!ret && (pe = readdir(proc))) {
		if (!numeric(pe->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", pe->d_name);
		task = opendir(path);
		if (!task)
			continue;
		while (!ret && (te = readdir(task)))
			if (numeric(te->d_name))
				ret = add_thread(s, atoi(pe->d_name),
						 atoi(te->d_name));
		closedir(task);
	}
	closedir(proc);
	if (ret)
		task_load_free(s);
	return ret;
}

void task_load_free(struct task_load *s)
{
	free(s->t);
	memset(s, 0, sizeof(*s));
}

static const struct task_tick *find(const struct task_load *s,
				    const struct task_tick *t)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].tid == t->tid && s->t[i].start == t->start)
			return &s->t[i];
	return NULL;
}

double task_load_heaviest(const struct task_load *a, const struct task_load *b,
			  char *buf, size_t len)
{
	double cap = (b->at_ns - a->at_ns) / 1e9 *
		     sysconf(_SC_NPROCESSORS_ONLN) * sysconf(_SC_CLK_TCK);
	const struct task_tick *top = NULL, *was;
	unsigned long long most = 0, d;
	pid_t self = getpid();
	size_t i;

	for (i = 0; i < b->n; i++) {
		if (b->t[i].tgid == self)
			continue;
		was = find(a, &b->t[i]);
		/* born in between: all its time is in between */
		d = b->t[i].ticks - (was ? was->ticks : 0);
		if (d > most) {
			most = d;
			top = &b->t[i];
		}
	}
	if (!top || cap <= 0 || most / cap < HEAVIEST_MIN) {
		snprintf(buf, len, "not one task above %.0f%%",
			 100 * HEAVIEST_MIN);
		return cap > 0 ? most / cap : 0;
	}
	snprintf(buf, len, "%s (pid %d, %s%s) %.1f%%", top->comm, top->tid,
		 top->kthread ? "kernel thread, " : "", top->policy,
		 100 * most / cap);
	return most / cap;
}
