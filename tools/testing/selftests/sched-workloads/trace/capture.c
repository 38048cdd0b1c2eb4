// SPDX-License-Identifier: GPL-2.0
/*
 * Recording a run into a tracefs instance of our own, with libtracefs.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>

#include "trace/capture.h"
#include "lib/cleanup.h"
#include "trace/tracedat_write.h"

#define INSTANCE_PREFIX "sched-workloads-"

/* What the trace analysis reads; the first two are required. */
static const struct {
	const char *system, *event;
} capture_events[] = {
	{ "sched", "sched_switch" },
	{ "sched", "sched_waking" },
	{ "sched", "sched_wakeup" },
	{ "sched", "sched_wakeup_new" },
	{ "sched", "sched_migrate_task" },
	{ "sched", "sched_process_fork" },
	{ "sched", "sched_process_exit" },
	{ "sched", "sched_pi_setprio" },
	{ "ipi", "ipi_send_cpu" },
	{ "ipi", "ipi_send_cpumask" },
	{ "power", "cpu_idle" },
	{ "power", "cpu_frequency" },
};

#define NR_REQUIRED_EVENTS 2

static int event_exists(const char *system, const char *event)
{
	return tracefs_event_file_exists(NULL, system, event, "format");
}

const char *capture_unavailable(void)
{
	static char reason[256];
	size_t i;

	if (!tracefs_tracing_dir())
		return "tracefs is not mounted and cannot be mounted (CONFIG_FTRACE)";
	for (i = 0; i < NR_REQUIRED_EVENTS; i++) {
		if (!event_exists(capture_events[i].system, capture_events[i].event)) {
			snprintf(reason, sizeof(reason),
				 "trace event %s:%s missing (CONFIG_SCHED_TRACER / tracepoints)",
				 capture_events[i].system, capture_events[i].event);
			return reason;
		}
	}
	return NULL;
}

void capture_sweep_stale(void)
{
	const char *dir = tracefs_tracing_dir();
	char path[4096];
	struct dirent *de;
	DIR *d;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/instances", dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct tracefs_instance *inst;
		long pid;

		if (strncmp(de->d_name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)))
			continue;
		pid = strtol(de->d_name + strlen(INSTANCE_PREFIX), NULL, 10);
		if (pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		inst = tracefs_instance_alloc(NULL, de->d_name);
		if (inst) {
			tracefs_instance_destroy(inst);
			tracefs_instance_free(inst);
		}
	}
	closedir(d);
}

static void capture_cleanup(void *arg)
{
	struct capture *c = arg;

	if (!c->inst)
		return;
	tracefs_trace_off(c->inst);
	tracefs_instance_destroy(c->inst);
	tracefs_instance_free(c->inst);
	c->inst = NULL;
}

int capture_start(struct capture *c, size_t buffer_kb, struct sw_err *err)
{
	size_t i;

	snprintf(c->name, sizeof(c->name), INSTANCE_PREFIX "%d", getpid());
	c->buffer_kb = buffer_kb;
	c->nr_events = 0;
	c->inst = tracefs_instance_create(c->name);
	if (!c->inst)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "tracefs: cannot create instance %s: %s", c->name,
				  strerror(errno));
	if (cleanup_push(capture_cleanup, c)) {
		capture_cleanup(c);
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "cleanup stack full");
	}
	tracefs_trace_off(c->inst);
	if (tracefs_instance_file_write(c->inst, "trace_clock", "mono") < 0)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "tracefs %s: cannot select the mono clock", c->name);
	if (tracefs_instance_set_buffer_size(c->inst, buffer_kb, -1) < 0)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "tracefs %s: cannot size the buffer to %zu KB per CPU",
				  c->name, buffer_kb);
	for (i = 0; i < ARRAY_SIZE(capture_events); i++) {
		if (!event_exists(capture_events[i].system, capture_events[i].event))
			continue;
		if (tracefs_event_enable(c->inst, capture_events[i].system,
					 capture_events[i].event) < 0)
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  "tracefs %s: cannot enable %s:%s", c->name,
					  capture_events[i].system,
					  capture_events[i].event);
		c->nr_events++;
	}
	if (tracefs_trace_on(c->inst) < 0)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "tracefs %s: cannot turn tracing on", c->name);
	return 0;
}

int capture_stop(struct capture *c)
{
	return c->inst ? tracefs_trace_off(c->inst) : -1;
}

static unsigned long long stat_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

uint64_t capture_lost_events(struct capture *c)
{
	long cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t lost = 0;

	for (cpu = 0; c->inst && cpu < ncpus; cpu++) {
		char file[64], *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", cpu);
		text = tracefs_instance_file_read(c->inst, file, NULL);
		if (!text)
			continue;	/* offline CPU */
		lost += stat_field(text, "overrun:");
		lost += stat_field(text, "dropped events:");
		free(text);
	}
	return lost;
}

int capture_save(struct capture *c, const char *path, struct sw_err *err)
{
	if (!c->inst)
		return sw_err_set(err, SW_EXIT_RUN_ERROR,
				  "%s: no tracefs instance to save", path);
	return trace_write(c->inst, path, err);
}

void capture_destroy(struct capture *c)
{
	cleanup_pop(c);
}
