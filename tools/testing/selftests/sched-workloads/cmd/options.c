// SPDX-License-Identifier: GPL-2.0
/*
 * The option parser of the subcommands (cmd/options.h), on getopt_long.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/options.h"
#include "lib/util.h"

#define OPTIONS_MAX	32
#define DEFAULT_LEN	64

static int parse_number(const struct cmd_option *o, const char *arg,
			char *why, size_t len)
{
	char *end;
	double v;
	long l;

	errno = 0;
	if (o->type == OPTION_SECONDS) {
		if (parse_duration_s(arg, &v) || v < o->min || v > o->max)
			goto bad;
		*(double *)o->dest = v;
		return 0;
	}
	l = strtol(arg, &end, 10);
	if (errno || end == arg || *end || l < o->min || l > o->max)
		goto bad;
	if (o->type == OPTION_INT)
		*(int *)o->dest = (int)l;
	else
		*(long *)o->dest = l;
	return 0;
bad:
	snprintf(why, len, "%s from %g to %g, not \"%s\"",
		 o->type == OPTION_SECONDS ? "seconds" : "an integer",
		 o->min, o->max, arg);
	return -1;
}

static int take(const struct cmd_option *o, const char *arg, char *why,
		size_t len)
{
	switch (o->type) {
	case OPTION_FLAG:
		*(int *)o->dest = 1;
		return 0;
	case OPTION_TEXT:
		*(const char **)o->dest = arg;
		return 0;
	case OPTION_INT:
	case OPTION_LONG:
	case OPTION_SECONDS:
		return parse_number(o, arg, why, len);
	case OPTION_CALL:
		return o->call(arg, o->dest, why, len);
	}
	return -1;
}

/* The value a field holds before parsing, for the usage; "" for none. */
static void default_of(const struct cmd_option *o, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (o->type) {
	case OPTION_TEXT:
		if (*(const char **)o->dest)
			snprintf(buf, len, "%s", *(const char **)o->dest);
		break;
	case OPTION_INT:
		if (*(int *)o->dest)
			snprintf(buf, len, "%d", *(int *)o->dest);
		break;
	case OPTION_LONG:
		if (*(long *)o->dest)
			snprintf(buf, len, "%ld", *(long *)o->dest);
		break;
	case OPTION_SECONDS:
		snprintf(buf, len, "%g s", *(double *)o->dest);
		break;
	case OPTION_FLAG:
	case OPTION_CALL:
		break;
	}
}

/* @help's lines, the second on under the first. */
static void print_help(FILE *f, const char *help)
{
	const char *nl;

	while ((nl = strchr(help, '\n'))) {
		fprintf(f, "%.*s\n%27s", (int)(nl - help), help, "");
		help = nl + 1;
	}
	fprintf(f, "%s", help);
}

static void print_usage(const struct cmd_usage *u,
			char defaults[][DEFAULT_LEN], FILE *f)
{
	const char *line = u->synopsis, *nl;
	size_t i;
	int w;

	for (i = 0; line; i++) {
		nl = strchr(line, '\n');
		fprintf(f, "%s sched-workloads %s %.*s\n", i ? "      " : "usage:",
			u->cmd, nl ? (int)(nl - line) : (int)strlen(line), line);
		line = nl ? nl + 1 : NULL;
	}
	if (u->what)
		fprintf(f, "\n%s\n", u->what);
	if (u->nopts)
		fprintf(f, "\n");
	for (i = 0; i < u->nopts; i++) {
		const struct cmd_option *o = &u->opts[i];

		w = o->key ? fprintf(f, "  -%c, --%s", o->key, o->name) :
			     fprintf(f, "      --%s", o->name);
		if (o->arg)
			w += fprintf(f, " %s", o->arg);
		fprintf(f, "%*s ", w < 26 ? 26 - w : 1, "");
		print_help(f, o->help);
		if (defaults && defaults[i][0])
			fprintf(f, " (default %s)", defaults[i]);
		fprintf(f, "\n");
	}
	fprintf(f, "  -h, --help%14s this text\n", "");
}

void options_usage(const struct cmd_usage *u, FILE *f)
{
	char defaults[OPTIONS_MAX][DEFAULT_LEN];
	size_t i;

	for (i = 0; i < u->nopts && i < OPTIONS_MAX; i++)
		default_of(&u->opts[i], defaults[i], DEFAULT_LEN);
	print_usage(u, defaults, f);
}

static int bad(const struct cmd_usage *u, char defaults[][DEFAULT_LEN],
	       const char *what)
{
	if (what)
		fprintf(stderr, "sched-workloads %s: %s\n", u->cmd, what);
	print_usage(u, defaults, stderr);
	return OPTIONS_BAD;
}

int options_parse(const struct cmd_usage *u, int argc, char **argv)
{
	char defaults[OPTIONS_MAX][DEFAULT_LEN], shorts[3 * OPTIONS_MAX + 4];
	struct option longs[OPTIONS_MAX + 2];
	char why[256], what[320];
	size_t i, n = 0;
	int c, idx, operands;

	if (u->nopts > OPTIONS_MAX)
		return bad(u, NULL, "too many options (OPTIONS_MAX)");
	if (u->stop_at_operand)
		shorts[n++] = '+';
	shorts[n++] = ':';	/* a missing argument is told apart */
	for (i = 0; i < u->nopts; i++) {
		const struct cmd_option *o = &u->opts[i];

		default_of(o, defaults[i], DEFAULT_LEN);
		longs[i].name = o->name;
		longs[i].has_arg = o->arg ? required_argument : no_argument;
		longs[i].flag = NULL;
		longs[i].val = o->key ? o->key : 256 + (int)i;
		if (o->key) {
			shorts[n++] = (char)o->key;
			if (o->arg)
				shorts[n++] = ':';
		}
	}
	memset(&longs[u->nopts], 0, sizeof(longs[0]) * 2);
	longs[u->nopts].name = "help";
	longs[u->nopts].val = 'h';
	shorts[n++] = 'h';
	shorts[n] = '\0';

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, &idx)) != -1) {
		const struct cmd_option *o = NULL;

		if (c == 'h') {
			print_usage(u, defaults, stdout);
			return OPTIONS_HELP;
		}
		if (c == '?' || c == ':') {
			snprintf(what, sizeof(what), "%s \"%s\"",
				 c == ':' ? "no argument for" : "unknown option",
				 argv[optind - 1]);
			return bad(u, defaults, what);
		}
		for (i = 0; i < u->nopts && !o; i++)
			if ((u->opts[i].key ? u->opts[i].key : 256 + (int)i) == c)
				o = &u->opts[i];
		if (!o || take(o, optarg, why, sizeof(why))) {
			snprintf(what, sizeof(what), "--%s: %s", o ? o->name : "?",
				 o ? why : "not an option");
			return bad(u, defaults, what);
		}
	}
	operands = argc - optind;
	if (operands < u->min_operands ||
	    (u->max_operands >= 0 && operands > u->max_operands))
		return bad(u, defaults, NULL);
	return optind;
}

int options_exit(int parsed)
{
	return parsed == OPTIONS_HELP ? SW_EXIT_PASS : SW_EXIT_USAGE;
}
