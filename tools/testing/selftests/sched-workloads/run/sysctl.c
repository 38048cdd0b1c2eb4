// SPDX-License-Identifier: GPL-2.0
/*
 * Setting and restoring sysctls around a run, with a journal that
 * outlives the process: each old value is written (and synced) to it
 * before the sysctl changes, and the journal is removed once every value
 * is back. A run killed in between (SIGKILL, a power cut) leaves the
 * journal; the next run replays it before it reads any "old" value.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/cleanup.h"
#include "run/ktap.h"
#include "run/sysctl.h"

#define MAX_SYSCTLS 8

static struct {
	char path[160];
	char old[64];
} saved[MAX_SYSCTLS];
static int nsaved;
static int pushed;		/* on the cleanup stack */

static int name_ok(const char *name)
{
	const char *p;

	if (!*name || name[0] == '.' || strstr(name, ".."))
		return 0;
	for (p = name; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    *p != '_' && *p != '.')
			return 0;
	return 1;
}

int sysctl_validate(struct json_object *map, const char *file,
		    struct sw_err *err)
{
	if (!map)
		return 0;
	if (!json_object_is_type(map, json_type_object) ||
	    json_object_object_length(map) > MAX_SYSCTLS)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: sched-workloads.sysctl: an object of at most %d \"kernel.NAME\": value",
				  file, MAX_SYSCTLS);
	json_object_object_foreach(map, name, val) {
		if (!name_ok(name))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: sched-workloads.sysctl.%s: not a sysctl name",
					  file, name);
		if (!json_object_is_type(val, json_type_int))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: sched-workloads.sysctl.%s: not an integer",
					  file, name);
	}
	return 0;
}

/* /proc/sys/kernel/NAME of "kernel.NAME" */
static void sysctl_path(const char *name, char *buf, size_t len)
{
	char *p;

	snprintf(buf, len, "/proc/sys/%s", name);
	for (p = buf + 10; *p; p++)
		if (*p == '.')
			*p = '/';
}

int sysctl_check_present(struct json_object *map, const char *file,
			 struct sw_err *err)
{
	char path[160];

	if (!map || sysctl_validate(map, file, err))
		return map ? -1 : 0;
	json_object_object_foreach(map, name, val) {
		(void)val;
		sysctl_path(name, path, sizeof(path));
		if (access(path, F_OK))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: sched-workloads.sysctl.%s: not a sysctl of this kernel (%s: %s)",
					  file, name, path, strerror(errno));
	}
	return 0;
}

static int write_value(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fputs(value, f) == EOF)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* "kernel.NAME" back from "/proc/sys/kernel/NAME", if it is one */
static int journal_name_ok(const char *path)
{
	char name[160], *p;

	if (strncmp(path, "/proc/sys/", 10))
		return 0;
	snprintf(name, sizeof(name), "%s", path + 10);
	for (p = name; *p; p++)
		if (*p == '/')
			*p = '.';
	return name_ok(name);
}

const char *sysctl_journal_path(void)
{
	const char *env = getenv("SCHED_WORKLOADS_JOURNAL");

	return env && *env ? env : SYSCTL_JOURNAL;
}

/* Appends "PATH VALUE" and syncs it, before the sysctl changes. */
static int journal_add(const char *path, const char *old)
{
	const char *file = sysctl_journal_path();
	char dir[4096], *slash;
	int fd, n, e = 0;

	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
	}
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	n = dprintf(fd, "%s %.*s\n", path, (int)strcspn(old, "\n"), old);
	if (n < 0 || fsync(fd))
		e = errno ? -errno : -EIO;
	if (close(fd) && !e)
		e = -errno;
	return e;
}

static void sysctl_cleanup(void *arg)
{
	int failed = 0;

	(void)arg;
	while (nsaved > 0) {
		nsaved--;
		failed |= !!write_value(saved[nsaved].path, saved[nsaved].old);
	}
	/* a value not put back stays journaled for the next run */
	if (!failed)
		unlink(sysctl_journal_path());
}

int sysctl_journal_replay(struct sw_err *err)
{
	const char *file = sysctl_journal_path();
	char line[256], path[160], value[64];
	struct {
		char path[160], value[64];
	} e[64];
	int n = 0, lineno = 0, rc;
	FILE *f = fopen(file, "r");

	if (!f)
		return errno == ENOENT ? 0 :
		       sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot read: %s",
				  file, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (n == (int)ARRAY_SIZE(e) ||
		    sscanf(line, "%159s %63s", path, value) != 2 ||
		    !journal_name_ok(path) ||
		    strspn(value, "-0123456789") != strlen(value)) {
			fclose(f);
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  "%s:%d: not a sysctl journal line (remove the file once the sysctls are checked by hand)",
					  file, lineno);
		}
		snprintf(e[n].path, sizeof(e[n].path), "%s", path);
		snprintf(e[n].value, sizeof(e[n].value), "%s", value);
		n++;
	}
	fclose(f);
	/* newest first: a sysctl changed twice ends at its first old value */
	while (n-- > 0) {
		rc = write_value(e[n].path, e[n].value);
		if (rc)
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  "%s: cannot restore %s to %s, as a run that did not finish left it: %s",
					  file, e[n].path, e[n].value,
					  strerror(-rc));
		ktap_diag("restored %s to %s: a run that did not finish (killed?) had changed it",
			  e[n].path, e[n].value);
	}
	if (unlink(file))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "%s: cannot remove: %s",
				  file, strerror(errno));
	return 0;
}

void sysctl_restore(void)
{
	if (pushed)
		cleanup_pop(saved);
	pushed = 0;
}

int sysctl_apply(struct json_object *map, const char *file, char *reason,
		 size_t len, struct sw_err *err)
{
	if (!map)
		return 0;
	if (sysctl_validate(map, file, err))
		return -1;
	if (cleanup_push(sysctl_cleanup, saved))
		return sw_err_set(err, SW_EXIT_RUN_ERROR, "cleanup stack full");
	pushed = 1;
	json_object_object_foreach(map, name, val) {
		char value[32];
		FILE *f;
		int e;

		sysctl_path(name, saved[nsaved].path,
			    sizeof(saved[nsaved].path));
		f = fopen(saved[nsaved].path, "r");
		if (!f || !fgets(saved[nsaved].old, sizeof(saved[nsaved].old), f)) {
			snprintf(reason, len, "sysctl %s: cannot read: %s", name,
				 strerror(errno));
			if (f)
				fclose(f);
			goto refused;
		}
		fclose(f);
		snprintf(value, sizeof(value), "%lld",
			 (long long)json_object_get_int64(val));
		e = journal_add(saved[nsaved].path, saved[nsaved].old);
		if (e) {
			sysctl_restore();
			return sw_err_set(err, SW_EXIT_RUN_ERROR,
					  "%s: cannot journal sysctl %s before changing it: %s",
					  sysctl_journal_path(), name,
					  strerror(-e));
		}
		nsaved++;
		e = write_value(saved[nsaved - 1].path, value);
		if (e) {
			snprintf(reason, len, "kernel refuses sysctl %s = %s: %s",
				 name, value, strerror(-e));
			goto refused;
		}
	}
	return 0;
refused:
	sysctl_restore();
	return 1;
}
