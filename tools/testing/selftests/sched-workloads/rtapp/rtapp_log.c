// SPDX-License-Identifier: GPL-2.0
/*
 * Parser of rt-app's per-thread logs.
 *
 * The second header line names the columns; both rt-app 1.0 and newer
 * upstream releases write at least the ones below, so columns are found
 * by name and extra ones are ignored.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/entity_name.h"
#include "rtapp/rtapp_log.h"

enum col {
	COL_PERF, COL_RUN, COL_PERIOD, COL_START, COL_END, COL_SLACK,
	COL_C_DURATION, COL_C_PERIOD, COL_WU_LAT, NR_COLS,
};

static const char *const col_names[NR_COLS] = {
	"perf", "run", "period", "start", "end", "slack",
	"c_duration", "c_period", "wu_lat",
};

#define MAX_COLS 32

/* Maps our columns to positions in "#idx perf run ..."; -1 if absent. */
static int parse_column_header(char *line, int pos[NR_COLS], int *ncols)
{
	char *save, *tok;
	int i, n = 0;

	for (i = 0; i < NR_COLS; i++)
		pos[i] = -1;
	if (line[0] != '#')
		return -1;
	for (tok = strtok_r(line + 1, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save), n++) {
		for (i = 0; i < NR_COLS; i++)
			if (!strcmp(tok, col_names[i]))
				pos[i] = n;
	}
	*ncols = n;
	for (i = 0; i < NR_COLS; i++)
		if (pos[i] < 0)
			return -1;
	return n <= MAX_COLS ? 0 : -1;
}

/*
 * A first pass that ends late (rt-app started the thread after its
 * absolute timer's first expiry) leaves a backlog: the next passes start
 * at once, without a sleep, and may overrun too until the spare time of
 * their periods (c_period - c_duration) has absorbed the first pass's
 * lateness. Those catch-up passes say how rt-app started, not how the
 * kernel schedules: they belong to the start-up. A pass is one when the
 * pass before it was start-up and overran, and it ends no later than the
 * backlog still unabsorbed: each one uses up a period's spare time, so
 * the chain is at most first lateness / spare long. A miss beyond that,
 * or after a pass that slept, is steady state.
 */
/* Whether pass @c catches up; if so, what it absorbed is used up. */
static int catchup_pass(struct rtapp_task_log *t, const double *c)
{
	double spare = c[COL_C_PERIOD] - c[COL_C_DURATION];

	if (!t->in_startup || c[COL_C_PERIOD] <= 0 || spare <= 0 ||
	    c[COL_SLACK] >= 0 || -c[COL_SLACK] > t->catchup_us)
		return 0;
	t->catchup_us -= spare;
	if (t->catchup_us > -c[COL_SLACK])
		t->catchup_us = -c[COL_SLACK];
	return 1;
}

/*
 * The first duty-cycle step: a timer pass whose configured run
 * (c_duration) is at least twice the one before it, as when a phase of
 * light jobs gives way to heavy ones. The passes from it on that overran,
 * until one met its period, say how fast the task got the CPU time (and,
 * with loop-count run events and cpufreq, the frequency) its new duty
 * needs. Start-up passes count too: a task starved from the start must
 * not hide its step in a start-up that never ends.
 */
static void step_track(struct rtapp_task_log *t, const double *c)
{
	if (c[COL_C_PERIOD] <= 0)
		return;
	if (t->step_state == STEP_NONE && t->passes &&
	    t->prev_c_duration > 0 &&
	    c[COL_C_DURATION] >= 2 * t->prev_c_duration)
		t->step_state = STEP_SETTLING;
	t->prev_c_duration = c[COL_C_DURATION];
	if (t->step_state != STEP_SETTLING)
		return;
	if (c[COL_SLACK] < 0)
		t->step_missed++;
	else
		t->step_state = STEP_SETTLED;
}

static int add_pass(struct rtapp_task_log *t, const double *c)
{
	double v[RS_NR_SERIES];
	int have[RS_NR_SERIES] = { 0 };
	int i;

	/*
	 * Timer-driven passes only: slack and wu_lat mean nothing else. A
	 * pass with negative slack overran its period and did not sleep:
	 * rt-app logs a wu_lat of 0 that measured no wakeup.
	 */
	if (c[COL_C_PERIOD] > 0) {
		v[RS_SLACK] = c[COL_SLACK];
		v[RS_WU_LAT] = c[COL_WU_LAT];
		v[RS_PERIOD_JITTER] = fabs(c[COL_PERIOD] - c[COL_C_PERIOD]);
		have[RS_SLACK] = have[RS_PERIOD_JITTER] = 1;
		have[RS_WU_LAT] = c[COL_SLACK] >= 0;
	}
	if (c[COL_C_DURATION] > 0) {
		v[RS_RUN_INFLATION] = c[COL_RUN] / c[COL_C_DURATION];
		have[RS_RUN_INFLATION] = 1;
	}
	if (c[COL_RUN] > 0) {
		v[RS_RATE] = c[COL_PERF] / c[COL_RUN];
		have[RS_RATE] = 1;
	}

	if (!t->passes) {
		t->has_first = 1;
		t->start_us = c[COL_START];
		for (i = 0; i < RS_NR_SERIES; i++)
			t->first[i] = have[i] ? v[i] : NAN;
		t->in_startup = 1;
		t->catchup_us = c[COL_C_PERIOD] > 0 && c[COL_SLACK] < 0 ?
				-c[COL_SLACK] : 0;
	} else if (!catchup_pass(t, c)) {
		t->in_startup = 0;
		for (i = 0; i < RS_NR_SERIES; i++)
			if (have[i] && series_add(&t->s[i], v[i]))
				return -1;
	}
	step_track(t, c);
	t->perf_total += c[COL_PERF];
	t->startup_passes += t->in_startup;
	t->end_us = c[COL_END];
	t->passes++;
	return 0;
}

/* "<basename>-<task>-<idx>.log" -> task, idx. */
static int name_from_file(const char *path, const char *basename,
			  struct rtapp_task_log *t)
{
	const char *file = strrchr(path, '/');
	size_t blen = strlen(basename), len;
	const char *dash, *p;
	char *end;

	file = file ? file + 1 : path;
	len = strlen(file);
	if (strncmp(file, basename, blen) || file[blen] != '-' || len < blen + 7 ||
	    strcmp(file + len - 4, ".log"))
		return -1;
	p = file + blen + 1;
	dash = file + len - 4;
	while (dash > p && dash[-1] != '-')
		dash--;
	if (dash <= p + 1)
		return -1;
	t->idx = (int)strtol(dash, &end, 10);
	if (end != file + len - 4 || (size_t)(dash - 1 - p) >= sizeof(t->task))
		return -1;
	memcpy(t->task, p, dash - 1 - p);
	t->task[dash - 1 - p] = '\0';
	/* alone until rtapp_logs_load() sees the task's other threads */
	entity_thread_name(t->task, 0, 1, t->name, sizeof(t->name));
	return 0;
}

static void task_log_free(struct rtapp_task_log *t)
{
	int i;

	for (i = 0; i < RS_NR_SERIES; i++)
		series_free(&t->s[i]);
}

int rtapp_log_parse(const char *path, const char *basename,
		    struct rtapp_task_log *t, struct sw_err *err)
{
	int pos[NR_COLS], ncols = 0, lineno = 0, ret = -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	memset(t, 0, sizeof(*t));
	if (name_from_file(path, basename, t))
		return sw_err_set(err, SW_EXIT_BAD_LOG,
				  "%s: not named <%s>-<task>-<idx>.log", path,
				  basename);
	f = fopen(path, "r");
	if (!f)
		return sw_err_set(err, SW_EXIT_BAD_LOG, "%s: cannot open: %s",
				  path, strerror(errno));

	while ((len = getline(&line, &cap, f)) > 0) {
		double c[NR_COLS], v;
		char *p = line, *end;
		int i, n;

		lineno++;
		if (line[len - 1] != '\n') {
			sw_err_set(err, SW_EXIT_BAD_LOG,
				   "%s:%d: line cut off (no newline): log truncated",
				   path, lineno);
			goto out;
		}
		if (lineno == 1) {
			if (sscanf(line, "# Policy : %31s", t->policy) != 1) {
				sw_err_set(err, SW_EXIT_BAD_LOG,
					   "%s:1: no \"# Policy :\" header: not an rt-app log",
					   path);
				goto out;
			}
			continue;
		}
		if (lineno == 2) {
			if (parse_column_header(line, pos, &ncols)) {
				sw_err_set(err, SW_EXIT_BAD_LOG,
					   "%s:2: column header lacks one of perf, run, period, start, end, slack, c_duration, c_period, wu_lat: not an rt-app log",
					   path);
				goto out;
			}
			continue;
		}
		for (n = 0; n < ncols; n++) {
			errno = 0;
			v = strtod(p, &end);
			if (end == p || errno)
				break;
			for (i = 0; i < NR_COLS; i++)
				if (pos[i] == n)
					c[i] = v;
			p = end;
		}
		if (n != ncols || strspn(p, " \t\n") != strlen(p)) {
			sw_err_set(err, SW_EXIT_BAD_LOG,
				   "%s:%d: expected %d numeric columns, got %d",
				   path, lineno, ncols, n);
			goto out;
		}
		if (add_pass(t, c)) {
			sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
			goto out;
		}
	}
	if (ferror(f)) {
		sw_err_set(err, SW_EXIT_BAD_LOG, "%s: read error", path);
		goto out;
	}
	if (lineno < 2) {
		sw_err_set(err, SW_EXIT_BAD_LOG, "%s:%d: header missing: %s",
			   path, lineno + 1,
			   lineno ? "no column line" : "file empty");
		goto out;
	}
	ret = 0;
out:
	free(line);
	fclose(f);
	if (ret)
		task_log_free(t);
	return ret;
}

static int cmp_task(const void *a, const void *b)
{
	const struct rtapp_task_log *x = a, *y = b;

	return x->idx - y->idx;
}

/*
 * Names the threads as the trace does (lib/entity_name.h): rt-app numbers its
 * threads across the whole file, so a task's instance number is its
 * index minus the smallest index among the task's logs.
 */
static void name_threads(struct rtapp_logs *logs)
{
	size_t i, j;

	for (i = 0; i < logs->n; i++) {
		struct rtapp_task_log *t = &logs->t[i];
		int n = 0, first = t->idx;

		for (j = 0; j < logs->n; j++) {
			if (strcmp(logs->t[j].task, t->task))
				continue;
			n++;
			if (logs->t[j].idx < first)
				first = logs->t[j].idx;
		}
		entity_thread_name(t->task, t->idx - first, n, t->name,
				   sizeof(t->name));
	}
}

int rtapp_logs_load(const char *dir, const char *basename,
		    struct rtapp_logs *logs, struct sw_err *err)
{
	size_t blen = strlen(basename);
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	memset(logs, 0, sizeof(*logs));
	if (!d)
		return sw_err_set(err, SW_EXIT_BAD_LOG, "%s: cannot open: %s", dir,
				  strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct rtapp_task_log *nt;

		if (strncmp(de->d_name, basename, blen) ||
		    de->d_name[blen] != '-' || len < 4 ||
		    strcmp(de->d_name + len - 4, ".log"))
			continue;
		nt = realloc(logs->t, (logs->n + 1) * sizeof(*nt));
		if (!nt) {
			sw_err_set(err, SW_EXIT_RUN_ERROR, "out of memory");
			goto fail;
		}
		logs->t = nt;
		if (path_join(path, sizeof(path), dir, de->d_name) ||
		    rtapp_log_parse(path, basename, &logs->t[logs->n], err)) {
			if (!err->msg[0])
				sw_err_set(err, SW_EXIT_BAD_LOG, "%s/%s: path too long",
					   dir, de->d_name);
			goto fail;
		}
		logs->n++;
	}
	closedir(d);
	if (!logs->n)
		return sw_err_set(err, SW_EXIT_BAD_LOG,
				  "%s: no rt-app log named %s-<task>-<idx>.log",
				  dir, basename);
	qsort(logs->t, logs->n, sizeof(*logs->t), cmp_task);
	name_threads(logs);
	return 0;
fail:
	closedir(d);
	rtapp_logs_free(logs);
	return -1;
}

void rtapp_logs_free(struct rtapp_logs *logs)
{
	size_t i;

	for (i = 0; i < logs->n; i++)
		task_log_free(&logs->t[i]);
	free(logs->t);
	memset(logs, 0, sizeof(*logs));
}
