// SPDX-License-Identifier: GPL-2.0
/*
 * Finding this process's cgroup directory (machine/cgroup_mount.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "machine/cgroup_mount.h"

/* The text of /proc/self/@name under @root, or NULL. */
static char *read_self(const char *root, const char *name)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/proc/self/%s",
			 root ? root : "", name);

	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	return read_text_file(path, NULL);
}

/* Does the comma-separated @list hold @word? */
static int list_has(const char *list, const char *word)
{
	size_t n = strlen(word), len;

	while (*list) {
		len = strcspn(list, ",");
		if (len == n && !strncmp(list, word, n))
			return 1;
		list += len;
		if (*list)
			list++;
	}
	return 0;
}

/*
 * The cgroup of this process for @controller: the line of its v1
 * hierarchy in /proc/self/cgroup, else the v2 line ("0::/path").
 */
static int cg_path(const char *root, const char *controller,
		   struct cgroup_place *pl)
{
	char *text, *line, *save, *v2 = NULL, *found = NULL;

	text = read_self(root, "cgroup");
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *ctrl = strchr(line, ':'), *path;

		if (!ctrl)
			continue;
		*ctrl++ = '\0';
		path = strchr(ctrl, ':');	/* the path may hold ':' */
		if (!path)
			continue;
		*path++ = '\0';
		if (!strcmp(line, "0") && !*ctrl)
			v2 = path;
		else if (list_has(ctrl, controller))
			found = path;
	}
	pl->v2 = !found;
	if (!found)
		found = v2;
	if (found)
		snprintf(pl->path, sizeof(pl->path), "%s", found);
	free(text);
	return found ? 0 : -1;
}

/* Undoes mountinfo's octal escapes ("\040" for a space) in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') * 64 + (s[2] - '0') * 8 + s[3] - '0';
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* <mount point>/<@path below the mounted directory>. */
int cgroup_dir(const struct cgroup_place *pl, const char *path, char *buf,
	       size_t len)
{
	size_t n = strlen(pl->mnt_root);
	const char *rel = path;
	int w;

	if (strcmp(pl->mnt_root, "/")) {
		if (strncmp(path, pl->mnt_root, n) ||
		    (path[n] && path[n] != '/'))
			return -1;
		rel = path + n;
	}
	if (!strcmp(rel, "/"))
		rel = "";
	w = snprintf(buf, len, "%s%s", pl->mnt, rel);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/*
 * The mount of @controller's hierarchy (v1), or of the v2 one, from
 * /proc/self/mountinfo: "id parent dev ROOT POINT opts [tags] - TYPE
 * source SUPER-OPTIONS".
 */
static int cg_mount(const char *root, const char *controller,
		    struct cgroup_place *pl)
{
	char dir[PATH_MAX], *text, *line, *save;
	int ret = -1;

	text = read_self(root, "mountinfo");
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line && ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[3] = { NULL }, *type = NULL, *super = NULL, *tok, *s2;
		int i = 0, after = -1, n;

		for (tok = strtok_r(line, " ", &s2); tok;
		     tok = strtok_r(NULL, " ", &s2), i++) {
			if (i >= 3 && i <= 4)
				f[i - 3] = tok;
			else if (i > 5 && after < 0 && !strcmp(tok, "-"))
				after = i;
			else if (after >= 0 && i == after + 1)
				type = tok;
			else if (after >= 0 && i == after + 3)
				super = tok;
		}
		if (!f[1] || !type || !super)
			continue;
		if (pl->v2 ? strcmp(type, "cgroup2") :
		    (strcmp(type, "cgroup") || !list_has(super, controller)))
			continue;
		unescape(f[0]);
		unescape(f[1]);
		snprintf(pl->mnt_root, sizeof(pl->mnt_root), "%s", f[0]);
		n = snprintf(pl->mnt, sizeof(pl->mnt), "%s%s", root ? root : "",
			     f[1]);
		/* A mount of another part of the hierarchy does not count. */
		if (n >= 0 && (size_t)n < sizeof(pl->mnt))
			ret = cgroup_dir(pl, pl->path, dir, sizeof(dir));
	}
	free(text);
	return ret;
}

int cgroup_find(const char *root, const char *controller,
		struct cgroup_place *pl, char *dir, size_t len)
{
	if (cg_path(root, controller, pl) || cg_mount(root, controller, pl))
		return -1;
	return cgroup_dir(pl, pl->path, dir, len);
}
