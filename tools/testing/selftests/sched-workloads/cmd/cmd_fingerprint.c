// SPDX-License-Identifier: GPL-2.0
/*
 * sched-workloads fingerprint [-c NS] [--diff FILE]: prints the fingerprint as runs and baselines record it, or with --diff
 * the settings that differ from those FILE (a baseline, or a run's
 * fingerprint.json) recorded, as a verdict names them. Two options are
 * for the tests: --root DIR reads the settings under a fake tree, and
 * --width N cuts the difference line as a short buffer would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "machine/fingerprint.h"
#include "machine/sched_settings.h"
#include "machine/settings_diff.h"
#include "run/battery.h"

#define DIFF_WIDTH	(256 * 1024)

/* @path's JSON object, or NULL with @err naming the file and the place. */
static struct json_object *load(const char *path, struct sw_err *err)
{
	struct json_object *o = NULL;
	struct json_tokener *tok;
	size_t len, at, i, line = 1, col = 1;
	char *text;

	text = read_text_file(path, &len);
	if (!text) {
		sw_err_set(err, SW_EXIT_USAGE, "%s: cannot read", path);
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
		goto out;
	}
	/* The terminating NUL tells the tokener the text is complete. */
	o = json_tokener_parse_ex(tok, text, len + 1);
	if (!o) {
		at = json_tokener_get_parse_end(tok);
		for (i = 0; i < at && i < len; i++, col++) {
			if (text[i] == '\n') {
				line++;
				col = 0;
			}
		}
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s:%zu:%zu: invalid JSON: %s",
			   path, line, col,
			   json_tokener_error_desc(json_tokener_get_error(tok)));
	} else if (!json_object_is_type(o, json_type_object)) {
		sw_err_set(err, SW_EXIT_BAD_WORKLOAD, "%s: not a JSON object",
			   path);
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
out:
	free(text);
	return o;
}

static int print_diff(const char *file, struct json_object *cur,
		      size_t width)
{
	struct json_object *doc, *base;
	struct sw_err err = { 0 };
	char *buf;
	size_t n;

	doc = load(file, &err);
	if (doc && !json_object_object_get_ex(doc, "fingerprint", NULL) &&
	    !json_object_object_get_ex(doc, "class", NULL)) {
		sw_err_set(&err, SW_EXIT_BAD_WORKLOAD,
			   "%s: neither a baseline (no \"fingerprint\") nor a fingerprint (no \"class\")",
			   file);
		goto fail;
	}
	if (!doc || settings_of(doc, file, &base, &err))
		goto fail;
	if (!base) {
		printf("# %s records no settings\n", file);
		json_object_put(doc);
		return SW_EXIT_PASS;
	}
	buf = malloc(width + 1);
	if (!buf) {
		sw_err_set(&err, SW_EXIT_RUN_ERROR, "out of memory");
		goto fail;
	}
	n = settings_diff(base, cur, buf, width + 1);
	if (n)
		printf("# %zu setting%s differ%s from %s\n%s\n", n,
		       n == 1 ? "" : "s", n == 1 ? "s" : "", file, buf);
	else
		printf("# no setting differs from %s\n", file);
	free(buf);
	json_object_put(doc);
	return SW_EXIT_PASS;
fail:
	json_object_put(doc);
	fprintf(stderr, "sched-workloads: %s\n", err.msg);
	return err.code;
}

int cmd_fingerprint(int argc, char **argv)
{
	const char *diff = NULL, *root = NULL;
	long calibration = BATTERY_CALIBRATION, width = DIFF_WIDTH;
	const struct cmd_option opts[] = {
		OPT_CALIBRATION(&calibration),
		OPT_TEXT("diff", 'd', &diff, "FILE",
			 "the settings that differ from FILE's (a baseline or a run's fingerprint.json)"),
		OPT_TEXT("root", 0, &root, "DIR",
			 "read the settings under DIR, not / (for the tests)"),
		OPT_LONG("width", 0, &width, 1, DIFF_WIDTH, "N",
			 "cut the difference line at N bytes (for the tests)"),
	};
	const struct cmd_usage u = {
		.cmd = argv[0], .synopsis = "[-c NS] [--diff FILE]",
		.what = "Prints the fingerprint as runs and baselines record it: the machine\n"
			"class, the kernel, rt-app and the settings in force; with --diff,\n"
			"the settings that differ from those FILE recorded, as a verdict\n"
			"names them.",
		.opts = opts, .nopts = ARRAY_SIZE(opts),
	};
	int first = options_parse(&u, argc, argv);
	struct fingerprint fp;
	struct json_object *j;
	struct stat st;
	int rc;

	if (first < 0)
		return options_exit(first);
	if (root && (stat(root, &st) || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, "sched-workloads: --root %s: not a directory\n",
			root);
		return SW_EXIT_USAGE;
	}
	fingerprint_read(&fp, calibration);
	if (root) {
		json_object_put(fp.settings);
		fp.settings = settings_read(root);
	}
	if (diff) {
		rc = print_diff(diff, fp.settings, width);
	} else {
		j = fingerprint_to_json(&fp);
		printf("%s\n", json_object_to_json_string_ext(j,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
		rc = SW_EXIT_PASS;
	}
	fingerprint_free(&fp);
	return rc;
}
