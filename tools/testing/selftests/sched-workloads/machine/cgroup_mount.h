/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where this process's cgroup of a controller is mounted: its line in
 * /proc/self/cgroup (the controller's v1 hierarchy, else the v2 one)
 * and the mount of that hierarchy in /proc/self/mountinfo that holds
 * it. Both files, and the mount point, are read under a root ("" or
 * NULL: the real system), as machine/sched_settings.h reads.
 */
#ifndef SW_CGROUP_MOUNT_H
#define SW_CGROUP_MOUNT_H

#include <limits.h>
#include <stddef.h>

/* Where a controller's hierarchy holds this process. */
struct cgroup_place {
	int v2;
	char path[PATH_MAX];		/* as /proc/self/cgroup names it */
	char mnt[PATH_MAX];		/* <root><mount point> */
	char mnt_root[PATH_MAX];	/* the hierarchy's directory mounted */
};

/*
 * This process's cgroup of @controller under @root into @pl, and its
 * directory into @dir. 0, or -1 when it has none that can be reached (no
 * such hierarchy mounted, or only another part of it).
 */
int cgroup_find(const char *root, const char *controller,
		struct cgroup_place *pl, char *dir, size_t len);
/*
 * The directory of the cgroup @path of @pl's hierarchy (an ancestor of
 * pl->path, say); -1 when @path lies outside the part mounted.
 */
int cgroup_dir(const struct cgroup_place *pl, const char *path, char *buf,
	       size_t len);

#endif /* SW_CGROUP_MOUNT_H */
