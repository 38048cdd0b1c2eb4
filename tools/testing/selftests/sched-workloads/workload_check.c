// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of a workload file that need no run (workload_check.h).
 */
#include <string.h>

#include "prepare.h"
#include "probe.h"
#include "refusal.h"
#include "rtapp_grammar.h"
#include "sysctl.h"
#include "workload_check.h"

int workload_check(const char *path, struct workload *w,
		   struct verdict_block *vb, FILE *list, struct sw_err *err)
{
	struct refusal rf;

	memset(w, 0, sizeof(*w));
	memset(vb, 0, sizeof(*vb));
	if (workload_load(path, w, err))
		return -1;
	if (rtapp_grammar_check(w->root, path, list, err) ||
	    verdict_parse(w->block, path, vb, err) ||
	    verdict_check_selectors(vb, json_object_object_get(w->root, "tasks"),
				    path, err) ||
	    refusal_parse(w->block, path, &rf, err) ||
	    prepare_validate(w, err) || probe_validate_policies(w, err) ||
	    sysctl_check_present(json_object_object_get(w->block, "sysctl"),
				 path, err))
		return -1;
	return 0;
}
