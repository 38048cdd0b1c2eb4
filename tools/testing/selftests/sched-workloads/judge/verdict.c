// SPDX-License-Identifier: GPL-2.0
/*
 * Judging a workload's checks: every check on every entity it selects,
 * one result each, on the rounds of repetitions measured so far.
 * Absolute checks are judged by judge/absolute_check.c, baseline checks
 * decided by judge/baseline_check.c and worded by judge/baseline_text.c;
 * a result that wants more repetitions or another round says so, and
 * run/rounds.c takes them and judges again.
 *
 * How a verdict is decided: Documentation/dev-tools/sched-workloads/verdicts.rst
 */
#include <string.h>

#include "judge/absolute_check.h"
#include "judge/baseline_check.h"
#include "judge/baseline_text.h"
#include "judge/verdict.h"

static int selects(const struct check *ck, const struct metric_samples *ms)
{
	char id[16];

	if (ms->def != ck->def)
		return 0;
	if (ck->def->source == SRC_TRACE_CPU) {
		snprintf(id, sizeof(id), "%d", ms->id);
		return glob_match(ck->selector, id);
	}
	/*
	 * A pooled check takes a task's pooled entity, or its only thread
	 * (named after the task); the others take threads.
	 */
	if (ms->pooled ? !ck->pooled :
	    ck->pooled && strcmp(ms->entity, ms->group))
		return 0;
	return glob_match(ck->selector, ms->group) ||
	       glob_match(ck->selector, ms->entity);
}

static void judge_baseline(const struct check *ck,
			   const struct metric_samples *ms,
			   const struct verdict_input *in,
			   struct verdict_result *r)
{
	struct baseline_decision d;

	baseline_decide(ck, ms, in, &d, r);
	baseline_describe(ck, ms, in, &d, r);
}

static int evaluate_check(const struct check *ck, const struct verdict_input *in,
			  struct verdict_results *out)
{
	const struct sample_set *cur = in->rounds[0].cur;
	struct verdict_result r;
	int matched = 0;
	size_t i;

	for (i = 0; i < cur->n; i++) {
		if (!selects(ck, &cur->s[i]))
			continue;
		matched++;
		verdict_result_init(&r, out, ck->kind, ck->def, in->prefix,
				    cur->s[i].entity);
		if (ck->kind == CHECK_ABSOLUTE)
			judge_absolute(ck, &cur->s[i], in, &r);
		else
			judge_baseline(ck, &cur->s[i], in, &r);
		if (verdict_results_push(out, &r))
			return -1;
	}
	/* Not traced (analyze of logs alone): nothing for it to judge. */
	if (matched || ck->implicit)
		return 0;
	verdict_result_init(&r, out, ck->kind, ck->def, in->prefix,
			    ck->selector);
	r.status = V_FAIL;
	snprintf(r.diag, sizeof(r.diag),
		 "FAIL %s: selector \"%s\" matched nothing measured on %s",
		 ck->def->name, ck->selector, metric_source_name(ck->def->source));
	return verdict_results_push(out, &r);
}

int verdict_evaluate(const struct verdict_block *vb,
		     const struct verdict_input *in,
		     struct verdict_results *out)
{
	size_t c;

	memset(out, 0, sizeof(*out));
	if (!in->nrounds)
		return -1;
	for (c = 0; c < vb->n; c++)
		if (evaluate_check(&vb->checks[c], in, out))
			return -1;
	return 0;
}

int verdict_detectable(const struct verdict_block *vb,
		       const struct baseline *base, const char *prefix,
		       size_t reps, int rounds, struct verdict_results *out)
{
	const struct metric_samples *ms;
	const struct check *ck;
	struct verdict_result r;
	size_t c, i;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < vb->n; c++) {
		ck = &vb->checks[c];
		for (i = 0; ck->kind == CHECK_BASELINE &&
		     i < base->samples.n; i++) {
			ms = &base->samples.s[i];
			if (!selects(ck, ms))
				continue;
			verdict_result_init(&r, out, ck->kind, ck->def, prefix,
					    ms->entity);
			r.has_detect = !baseline_detectable(ck, ms, base, reps,
							    rounds, &r.detect);
			r.status = r.has_detect ? V_PASS : V_SKIP;
			if (r.has_detect)
				detectable_describe(&r.detect, ck->def->unit,
						    r.diag, sizeof(r.diag));
			else if (ck->def->tail != TAIL_NONE)
				snprintf(r.diag, sizeof(r.diag),
					 "the baseline has no events of series %s (recorded before tails were judged on events)",
					 ck->def->series);
			else
				snprintf(r.diag, sizeof(r.diag),
					 "the baseline has no value for it");
			if (verdict_results_push(out, &r))
				return -1;
		}
	}
	return 0;
}
