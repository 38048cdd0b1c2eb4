// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the machine fingerprint from /proc and /sys.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "machine/fingerprint.h"
#include "machine/sched_settings.h"

/* The value of the first "key<spaces>: value" line of /proc/cpuinfo. */
static void cpuinfo_field(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t klen = strlen(key);
	char line[1024];

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, klen) || !colon)
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

static int read_int_file(const char *path, int *v)
{
	FILE *f = fopen(path, "r");
	int ret = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", v) == 1)
		ret = 0;
	fclose(f);
	return ret;
}

/*
 * Counts packages, cores and threads from the topology of online CPUs.
 * Package ids need not be dense: the distinct ones are kept in a list
 * as long as the CPUs configured (a lab machine has 512).
 */
static void read_topology(struct fingerprint *fp)
{
	int cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	int *pkgs, npkg = 0, cores = 0, i;
	char path[128];

	pkgs = calloc(ncpus > 0 ? ncpus : 1, sizeof(*pkgs));
	for (cpu = 0; pkgs && cpu < ncpus; cpu++) {
		int pkg, first;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			 cpu);
		if (read_int_file(path, &pkg))
			continue;	/* offline */
		for (i = 0; i < npkg && pkgs[i] != pkg; i++)
			;
		if (i == npkg)
			pkgs[npkg++] = pkg;
		/* A core is counted once, by its first sibling. */
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 cpu);
		if (!read_int_file(path, &first) && first == cpu)
			cores++;
	}
	free(pkgs);
	snprintf(fp->topology, sizeof(fp->topology),
		 "%d package%s, %d cores, %d threads", npkg,
		 npkg == 1 ? "" : "s", cores, fp->cpus_online);
}

static void scan_kernel_config(struct fingerprint *fp, FILE *f)
{
	static const char *const models[] = { "none", "voluntary", "full", "lazy", "rt" };
	static const char *const options[] = {
		"CONFIG_PREEMPT_NONE=y", "CONFIG_PREEMPT_VOLUNTARY=y",
		"CONFIG_PREEMPT=y", "CONFIG_PREEMPT_LAZY=y", "CONFIG_PREEMPT_RT=y",
	};
	char line[256];
	size_t i;

	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CONFIG_HZ=", 10))
			fp->hz = atoi(line + 10);
		for (i = 0; i < ARRAY_SIZE(options); i++)
			if (!strncmp(line, options[i], strlen(options[i])))
				snprintf(fp->preempt, sizeof(fp->preempt), "%s",
					 models[i]);
	}
}

/*
 * CONFIG_HZ and the preemption model from /proc/config.gz, else the
 * /boot/config-<release> distributions install (Debian's kernels have
 * no /proc/config.gz), and the command line.
 */
static void read_kernel_config(struct fingerprint *fp)
{
	char line[256], path[128], *p;
	struct utsname u;
	FILE *f;

	snprintf(fp->preempt, sizeof(fp->preempt), "unknown");
	f = popen("zcat /proc/config.gz 2>/dev/null", "r");
	if (f) {
		scan_kernel_config(fp, f);
		pclose(f);
	}
	if (!fp->hz && !uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%.64s", u.release);
		f = fopen(path, "r");
		if (f) {
			scan_kernel_config(fp, f);
			fclose(f);
		}
	}
	/* PREEMPT_DYNAMIC: the boot command line overrides the default. */
	f = fopen("/proc/cmdline", "r");
	if (f && fgets(line, sizeof(line), f)) {
		p = strstr(line, "preempt=");
		if (p && (p == line || p[-1] == ' ')) {
			p += 8;
			p[strcspn(p, "\t\n ")] = '\0';
			snprintf(fp->preempt, sizeof(fp->preempt), "%.*s",
				 (int)sizeof(fp->preempt) - 1, p);
		}
	}
	if (f)
		fclose(f);
}

static void read_rtapp_version(struct fingerprint *fp)
{
	static const char cmd[] = "dpkg-query -W -f '${Version}' rt-app 2>/dev/null";
	FILE *f = popen(cmd, "r");

	snprintf(fp->rtapp, sizeof(fp->rtapp), "unknown");
	if (f) {
		if (!fgets(fp->rtapp, sizeof(fp->rtapp), f) || !fp->rtapp[0])
			snprintf(fp->rtapp, sizeof(fp->rtapp), "unknown");
		pclose(f);
	}
}

/* "Intel(R) Xeon(R) Processor @ 2.5GHz" -> "intel-xeon-processor". */
static void model_slug(const char *model, char *buf, size_t len)
{
	size_t n = 0;
	const char *p;
	int dash = 0;

	for (p = model; *p && n + 2 < len; p++) {
		if (*p == '@')
			break;
		if (*p == '(') {
			p += strcspn(p, ")");
			if (!*p)
				break;
			continue;
		}
		if (isalnum((unsigned char)*p)) {
			if (dash && n)
				buf[n++] = '-';
			buf[n++] = tolower((unsigned char)*p);
			dash = 0;
		} else {
			dash = 1;
		}
	}
	buf[n] = '\0';
}

/*
 * SCHED_WORKLOADS_VM: the virtual machine "sched-workloads vm" boots the
 * kernel in (QEMU's version, the topology preset, the accelerator, or
 * "icount" when deterministic). Under TCG the guest's CPUs are QEMU's,
 * not the host's: this, not the CPU model, is what a baseline is valid
 * for. Only [a-z0-9.-]: it is part of a file name.
 */
static void read_vm(struct fingerprint *fp)
{
	const char *vm = getenv("SCHED_WORKLOADS_VM");

	if (!vm || !*vm || strlen(vm) >= sizeof(fp->vm) ||
	    vm[strspn(vm, "abcdefghijklmnopqrstuvwxyz0123456789.-")])
		return;
	snprintf(fp->vm, sizeof(fp->vm), "%s", vm);
}

/*
 * $SCHED_WORKLOADS_MADE_BY: what made the guest, as its host wrote it;
 * the rt-app it runs is in its userspace, which dpkg does not know.
 */
static void read_made_by(struct fingerprint *fp)
{
	const char *path = getenv("SCHED_WORKLOADS_MADE_BY");
	struct json_object *us, *v;

	if (!path || !*path)
		return;
	fp->made_by = json_object_from_file(path);
	if (!json_object_is_type(fp->made_by, json_type_object)) {
		json_object_put(fp->made_by);
		fp->made_by = NULL;
		return;
	}
	if (json_object_object_get_ex(fp->made_by, "userspace", &us) &&
	    json_object_object_get_ex(us, "rt-app", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(fp->rtapp, sizeof(fp->rtapp), "%s",
			 json_object_get_string(v));
}

int fingerprint_read(struct fingerprint *fp, long calibration)
{
	char flags[4096], slug[96];
	struct utsname u;

	memset(fp, 0, sizeof(*fp));
	uname(&u);
	snprintf(fp->arch, sizeof(fp->arch), "%.31s", u.machine);
	snprintf(fp->kernel_release, sizeof(fp->kernel_release), "%s", u.release);
	snprintf(fp->kernel_version, sizeof(fp->kernel_version), "%s", u.version);
	fp->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	cpuinfo_field("model name", fp->model, sizeof(fp->model));
	if (!fp->model[0])
		cpuinfo_field("CPU part", fp->model, sizeof(fp->model));
	if (!fp->model[0])
		snprintf(fp->model, sizeof(fp->model), "unknown");
	cpuinfo_field("flags", flags, sizeof(flags));
	fp->virtualized = !!strstr(flags, "hypervisor");
	read_topology(fp);
	read_kernel_config(fp);
	read_rtapp_version(fp);
	read_vm(fp);
	read_made_by(fp);
	fp->calibration = calibration;
	model_slug(fp->model, slug, sizeof(slug));
	snprintf(fp->class_name, sizeof(fp->class_name), "%s-%dcpu-%s%s%s%s",
		 fp->arch, fp->cpus_online, slug, fp->virtualized ? "-vm" : "",
		 fp->vm[0] ? "-" : "", fp->vm);
	/* Read after the class is named: they must not change it. */
	fp->settings = settings_read(NULL);
	return 0;
}

void fingerprint_free(struct fingerprint *fp)
{
	json_object_put(fp->settings);
	fp->settings = NULL;
	json_object_put(fp->made_by);
	fp->made_by = NULL;
}

struct json_object *fingerprint_to_json(const struct fingerprint *fp)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "class", json_object_new_string(fp->class_name));
	json_object_object_add(o, "arch", json_object_new_string(fp->arch));
	json_object_object_add(o, "cpus_online", json_object_new_int(fp->cpus_online));
	json_object_object_add(o, "topology", json_object_new_string(fp->topology));
	json_object_object_add(o, "model", json_object_new_string(fp->model));
	json_object_object_add(o, "virtualized", json_object_new_boolean(fp->virtualized));
	if (fp->vm[0])
		json_object_object_add(o, "vm", json_object_new_string(fp->vm));
	json_object_object_add(o, "kernel_release",
			       json_object_new_string(fp->kernel_release));
	json_object_object_add(o, "kernel_version",
			       json_object_new_string(fp->kernel_version));
	json_object_object_add(o, "preempt", json_object_new_string(fp->preempt));
	json_object_object_add(o, "hz", json_object_new_int(fp->hz));
	json_object_object_add(o, "rtapp", json_object_new_string(fp->rtapp));
	json_object_object_add(o, "calibration",
			       json_object_new_int64(fp->calibration));
	if (fp->settings)
		json_object_object_add(o, "settings",
				       json_object_get(fp->settings));
	if (fp->made_by)
		json_object_object_add(o, "made_by",
				       json_object_get(fp->made_by));
	return o;
}

const char *fingerprint_class_mismatch(struct json_object *a,
				       struct json_object *b)
{
	static const char *const keys[] = {
		"arch", "cpus_online", "topology", "model", "virtualized", "vm",
	};
	static char why[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		struct json_object *va, *vb;
		const char *sa, *sb;
		/* only a VM's fingerprint has one: a machine's is "" */
		int optional = !strcmp(keys[i], "vm");
		int has_a = json_object_object_get_ex(a, keys[i], &va);
		int has_b = json_object_object_get_ex(b, keys[i], &vb);

		if (!optional && (!has_a || !has_b)) {
			snprintf(why, sizeof(why), "fingerprint lacks \"%s\"", keys[i]);
			return why;
		}
		sa = has_a ? json_object_get_string(va) : "";
		sb = has_b ? json_object_get_string(vb) : "";
		if (strcmp(sa, sb)) {
			snprintf(why, sizeof(why), "%s differs: \"%s\" vs \"%s\"",
				 keys[i], sa, sb);
			return why;
		}
	}
	return NULL;
}
