# SPDX-License-Identifier: GPL-2.0
"""sched-workloads bisect --good COMMIT --bad COMMIT [--arch ARCH]
                          [-o DIR] TREE -- WORKLOAD...

The first commit of a kernel git tree at which WORKLOADS regress: git
bisect run, each step an incremental build (kbuild.py) and the
workloads in the judging guest (vm --deterministic), whose verdicts do
not depend on the host's load, so a step is judged once.

The good commit is run first: its baselines are recorded in the guest
and its verdicts kept. A step is bad when a check that passes at the
good commit fails at it, good otherwise; a commit that does not build is
skipped (git bisect's 125). The bad commit is checked before the
bisection starts: when it shows no such failure there is nothing to
find (exit 2). The bisection runs in a git worktree of its own in the
cache: the tree's own checkout and files are never touched.

Prints each step (commit, verdict, the first check that failed, time),
then the first bad commit with its subject and its verdict. Writes DIR
(default results/bisect-<date>): baselines/, each step's run directory
and KTAP, bisect.log (git's). Exit: 0 found, 1 git bisect found none,
2 usage or a bad commit that is not bad, 4 a prerequisite missing.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

import kbuild
import kbuild_source
import sw_paths
from guest_verdicts import checks, guest, judge
from facts import EXIT_FAIL, EXIT_RUN_ERROR, EXIT_SKIP, EXIT_USAGE

# git bisect run's exit codes of a step
GOOD, BAD, UNTESTABLE = 0, 1, 125


class BisectError(Exception):
    def __init__(self, msg, code=EXIT_USAGE):
        super().__init__(msg)
        self.code = code


def git(tree, *args, check=True):
    r = subprocess.run(["git", "-C", tree] + list(args),
                       capture_output=True, text=True)
    if check and r.returncode:
        raise BisectError("git %s: %s" % (" ".join(args),
                                          r.stderr.strip()))
    return r.stdout.strip()


def worktree_of(tree):
    key = hashlib.sha1(os.path.realpath(tree).encode()).hexdigest()[:10]
    return os.path.join(kbuild.CACHE, "bisect", "%s-%s" % (
        os.path.basename(os.path.realpath(tree)), key))


def judge_commit(wt, arch, out, workloads, record=False):
    """Builds the worktree @wt's checkout, runs @workloads on it in the
    judging guest (first recording their baselines when @record): (the
    commit, its checks (guest_verdicts.checks()) or None when it did
    not build, seconds)."""
    start = time.monotonic()
    commit = git(wt, "rev-parse", "HEAD")
    try:
        kernel, _, _ = kbuild.build(wt, arch, [], "sw-" + commit[:12])
    except (kbuild.BuildError, kbuild_source.SourceError) as e:
        with open(os.path.join(out, commit[:12] + ".build-error"), "w") as f:
            f.write(str(e) + "\n")
        return commit, None, time.monotonic() - start
    bl = os.path.join(out, "baselines")
    if record:
        guest(kernel, bl, os.path.join(out, "runs"),
              ["baseline"] + workloads, os.path.join(out, "baseline.ktap"))
    ktap = os.path.join(out, commit[:12] + ".ktap")
    guest(kernel, bl, os.path.join(out, "runs", commit[:12]),
          ["run"] + workloads, ktap)
    return commit, checks(ktap), time.monotonic() - start


def step(a):
    """One step of git bisect run, in the worktree a.tree: its exit
    status for git."""
    out = a.output
    with open(os.path.join(out, "good.json")) as f:
        good = {k: tuple(v) for k, v in json.load(f).items()}
    commit, got, took = judge_commit(a.tree, a.arch, out, a.workloads)
    if got is None:
        verdict, code, why = "untestable", UNTESTABLE, "does not build"
    elif not got:
        verdict, code, why = "untestable", UNTESTABLE, "no results"
    else:
        failed = judge(good, got)
        verdict, code = ("bad", BAD) if failed else ("good", GOOD)
        why = "%s: %s" % failed[0] if failed else ""
    subject = git(a.tree, "log", "-1", "--format=%s", commit)
    line = "# step %s %s: %s in %.0f s%s" % (commit[:12], subject, verdict,
                                             took, ": " + why if why else "")
    with open(os.path.join(out, "steps.txt"), "a") as f:
        f.write(line + "\n")
    print(line, file=sys.stderr)
    return code


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="sched-workloads bisect",
        description="The first commit of a kernel git tree at which "
        "workloads regress, judged in the deterministic guest.")
    ap.add_argument("--good", required=True, metavar="COMMIT")
    ap.add_argument("--bad", required=True, metavar="COMMIT")
    ap.add_argument("--arch", choices=sorted(kbuild.KARCH),
                    default="aarch64")
    ap.add_argument("-o", "--output", metavar="DIR")
    ap.add_argument("--step", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("tree", metavar="TREE", help="a kernel git tree")
    ap.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                    help="after --: the workloads that regressed")
    a = ap.parse_args(argv)
    if not a.workloads:
        ap.error("the workloads that regressed, after --")
    return a


def bisect(a):
    tree = os.path.realpath(a.tree)
    if not kbuild_source.is_kernel_tree(tree):
        raise BisectError("%s: not a kernel source tree" % a.tree)
    if git(tree, "rev-parse", "--is-inside-work-tree", check=False) != \
            "true":
        raise BisectError("%s: not a git tree" % a.tree)
    good = git(tree, "rev-parse", "--verify", a.good + "^{commit}")
    bad = git(tree, "rev-parse", "--verify", a.bad + "^{commit}")
    out = a.output
    for d in ("baselines", "runs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    wt = worktree_of(tree)
    if os.path.exists(wt):
        git(tree, "worktree", "remove", "--force", wt, check=False)
        shutil.rmtree(wt, ignore_errors=True)
    git(tree, "worktree", "prune")
    os.makedirs(os.path.dirname(wt), exist_ok=True)
    git(tree, "worktree", "add", "--detach", wt, good)
    try:
        return bisect_in(a, wt, good, bad, out)
    finally:
        git(wt, "bisect", "reset", check=False)
        git(tree, "worktree", "remove", "--force", wt, check=False)


def bisect_in(a, wt, good, bad, out):
    start = time.monotonic()
    _, at_good, took = judge_commit(wt, a.arch, out, a.workloads, True)
    if not at_good:
        raise BisectError("the good commit %s %s" % (
            good[:12], "does not build" if at_good is None else
            "gave no results"), EXIT_RUN_ERROR)
    with open(os.path.join(out, "good.json"), "w") as f:
        json.dump(at_good, f, indent=1, sort_keys=True)
    print("# good %s: %d checks pass in %.0f s" % (
        good[:12], sum(ok for ok, _ in at_good.values()), took))
    git(wt, "checkout", "-q", "--detach", bad)
    _, got, took = judge_commit(wt, a.arch, out, a.workloads)
    failed = judge(at_good, got or {})
    if not failed:
        raise BisectError("the bad commit %s shows no check failing that "
                          "passes at %s: nothing to bisect" %
                          (bad[:12], good[:12]))
    print("# bad %s: %d checks fail that pass at good, in %.0f s: %s: %s"
          % ((bad[:12], len(failed), took) + failed[0]))
    sys.stdout.flush()
    git(wt, "bisect", "start", bad, good)
    r = subprocess.run(
        ["git", "-C", wt, "bisect", "run", sys.executable,
         os.path.abspath(__file__), "--step", "--good", good, "--bad", bad,
         "--arch", a.arch, "-o", out, wt, "--"] + a.workloads,
        capture_output=True, text=True,
        env=dict(os.environ, SW_BINARY=sw_paths.binary()))
    with open(os.path.join(out, "bisect.log"), "w") as f:
        f.write(r.stdout + r.stderr)
        f.write(git(wt, "bisect", "log", check=False) + "\n")
    steps = open(os.path.join(out, "steps.txt")).read() \
        if os.path.exists(os.path.join(out, "steps.txt")) else ""
    print(steps, end="")
    m = re.search(r"^([0-9a-f]{40}) is the first bad commit", r.stdout, re.M)
    wall = time.monotonic() - start
    if not m:
        print("# git bisect found no first bad commit (log %s); wall time "
              "%.0f s" % (os.path.join(out, "bisect.log"), wall))
        return EXIT_FAIL
    first = m.group(1)
    subject = git(wt, "log", "-1", "--format=%s", first)
    verdict = [s for s in steps.splitlines() if s.startswith(
        "# step %s " % first[:12])]
    print("first bad commit: %s %s" % (first, subject))
    if verdict:
        print("  its verdict: %s" % verdict[-1].split(": ", 1)[-1])
    print("# %d steps; wall time %.0f s; %s" % (
        len(steps.splitlines()), wall, out))
    return 0


def main(argv):
    a = parse_args(argv)
    missing = kbuild.missing_tools(a.arch) + (
        [] if shutil.which("git") else ["git (Debian package git)"])
    if missing:
        print("sched-workloads bisect: SKIP: not found: %s" %
              ", ".join(missing), file=sys.stderr)
        return EXIT_SKIP
    if a.step:
        return step(a)
    a.output = os.path.abspath(a.output or os.path.join(
        "results", "bisect-" + time.strftime("%Y%m%d-%H%M%S")))
    try:
        return bisect(a)
    except BisectError as e:
        print("sched-workloads bisect: %s" % e, file=sys.stderr)
        return e.code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
