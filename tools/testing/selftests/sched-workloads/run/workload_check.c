// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of a workload file that need no run (run/workload_check.h).
 */
#include <string.h>

#include "rtapp/run_json.h"
#include "run/prereq.h"
#include "judge/refusal.h"
#include "machine/task_groups.h"
#include "rtapp/rtapp_grammar.h"
#include "run/sysctl.h"
#include "run/workload_check.h"

/*
 * Every place json-c or rt-app 1.0 would read other than written, listed
 * on @list, before the first error stops the checks: a file of rt-app's
 * own (no block) is checked this far too.
 */
static int list_problems(const char *path, FILE *list, struct sw_err *err)
{
	struct json_object *root;
	int n = 0, block;

	root = workload_read_json(path, list, &n, err);
	if (!root)
		return -1;
	if (!json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: top level is not a JSON object", path);
	}
	block = json_object_object_get_ex(root, WORKLOAD_BLOCK_KEY, NULL);
	n += rtapp_grammar_check(root, path, list, err);
	json_object_put(root);
	if (!block)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: no \"%s\" block: an rt-app file, not a workload of the battery; %d problem%s listed above",
				  path, WORKLOAD_BLOCK_KEY, n, n == 1 ? "" : "s");
	if (n)
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: %d problem%s listed above", path, n,
				  n == 1 ? "" : "s");
	return 0;
}

int workload_check(const char *path, struct workload *w,
		   struct verdict_block *vb, FILE *list, struct sw_err *err)
{
	struct task_groups groups;
	struct refusal rf;

	memset(w, 0, sizeof(*w));
	memset(vb, 0, sizeof(*vb));
	if (list && list_problems(path, list, err))
		return -1;
	if (workload_load(path, w, err))
		return -1;
	if (rtapp_grammar_check(w->root, path, list, err) ||
	    verdict_parse(w->block, path, vb, err) ||
	    verdict_check_selectors(vb, json_object_object_get(w->root, "tasks"),
				    path, err) ||
	    refusal_parse(w->block, path, &rf, err) ||
	    task_groups_parse(w, &groups, err) ||
	    prepare_validate(w, err) || probe_validate_policies(w, err) ||
	    sysctl_check_present(json_object_object_get(w->block, "sysctl"),
				 path, err))
		return -1;
	return 0;
}
