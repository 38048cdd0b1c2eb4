// SPDX-License-Identifier: GPL-2.0
/*
 * Expected refusals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/refusal.h"
#include "rtapp/workload.h"

int refusal_parse(struct json_object *block, const char *file,
		  struct refusal *rf, struct sw_err *err)
{
	struct json_object *o, *v;

	memset(rf, 0, sizeof(*rf));
	if (!json_object_object_get_ex(block, "refusal", &o))
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".refusal: not an object",
				  file);
	json_object_object_foreach(o, key, val) {
		(void)val;
		if (strcmp(key, "output") && strcmp(key, "why"))
			return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
					  "%s: " WORKLOAD_BLOCK_KEY ".refusal.%s: unknown key (known: output, why)",
					  file, key);
	}
	if (!json_object_object_get_ex(o, "output", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !*json_object_get_string(v) ||
	    strlen(json_object_get_string(v)) >= sizeof(rf->output))
		return sw_err_set(err, SW_EXIT_BAD_WORKLOAD,
				  "%s: " WORKLOAD_BLOCK_KEY ".refusal.output: the text rt-app prints when refused (a string)",
				  file);
	snprintf(rf->output, sizeof(rf->output), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "why", &v))
		snprintf(rf->why, sizeof(rf->why), "%s", json_object_get_string(v));
	rf->expected = 1;
	return 0;
}

void refusal_judge(const struct refusal *rf, const char *prefix,
		   const struct child_exit *ex, const char *outlog,
		   struct verdict_result *r)
{
	char *text = read_text_file(outlog, NULL);
	int said = text && strstr(text, rf->output);

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s.rtapp.refused", prefix);
	snprintf(r->entity, sizeof(r->entity), "rtapp");
	if (ex->exited && ex->code && said) {
		r->status = V_PASS;
		snprintf(r->diag, sizeof(r->diag),
			 "ok rt-app was refused (exit %d, \"%s\")%s%s", ex->code,
			 rf->output, rf->why[0] ? ": " : "", rf->why);
	} else {
		r->status = V_FAIL;
		snprintf(r->diag, sizeof(r->diag),
			 "FAIL rt-app %s %d without \"%s\" in %s: the kernel was expected to refuse%s%s",
			 ex->exited ? "exited with" : "was killed by signal",
			 ex->code, rf->output, outlog, rf->why[0] ? ": " : "",
			 rf->why);
	}
	free(text);
}
