# SPDX-License-Identifier: GPL-2.0
"""sched-workloads mutants [--tree TREE] [--arch ARCH] [-j N] [-o DIR]
                           [--only NAME]... [PATCH...] [-- RUN-ARGUMENTS]

The battery measured against bugs in the scheduler's code, as mutation
testing measures a test suite. Each patch of mutants/ (or each PATCH
given: a reviewer's own bugs) is built into the tree (kbuild.py: the
tree itself never modified, each build incremental on the last), the
battery runs on it in the judging guest (vm --deterministic), and its
verdicts are set against those of the base, the same tree unpatched:

  caught   a check that passes on the base fails on the mutant; the
           table names each such check and the first line of its
           diagnostic (what the check says the kernel got wrong)
  missed   every check that passes on the base passes on the mutant

A control (a patch whose header says "Control:") is a change that must
not change behaviour: caught is then a false alarm, the battery's fault.
The base's baselines are recorded once, in the judging guest, and every
kernel is judged against them. N kernels run at once (default 2: each
guest is deterministic, so the host's load does not show in its
numbers). The same campaign run twice gives the same table.

A campaign takes longer than a sitting (the whole battery on 24 kernels,
about 8 minutes of both CPUs each on a 2-CPU machine): run again on the
same DIR, it goes on where it stopped. A kernel judged there before,
built from the same base image and the same patch, with the same
battery (guest_verdicts.battery_digest: the binary's sources and the
workloads) and the same arguments, is neither built nor run again
(logs/<name>.json says what it was judged from); the base's baselines
are recorded again when the base or the battery changed
(logs/baselines.json).

Writes DIR (default results/mutants-<date>): runs/<name>/ (each
kernel's run directory and KTAP), baselines/ (the base's), campaign.json
and table.txt; prints the table and the wall time. Exit: 0 every
mutant caught and no control failed, 1 otherwise, 2 usage, 4 a
prerequisite missing, 130 interrupted (the kernel whose guest was
stopped is not recorded: run again, it runs again).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import sys
import threading
import time

import kbuild
import kbuild_source
import sw_paths
from guest_verdicts import (INTERRUPTED, Interrupted, battery_digest,
                            boot_bound, checks, guest, judge, read_record,
                            split_run_args, stop_guests_on_sigterm)
from vm import sha256
from facts import EXIT_FAIL, EXIT_RUN_ERROR, EXIT_SKIP, EXIT_USAGE

IN_TREE = os.path.join(sw_paths.DESK, "mutants")


class Patch:
    """A patch of the campaign and what its header says: "Mutant: NAME"
    or "Control: NAME", "Mechanism: what it breaks"."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.kind, self.name, self.mechanism = "mutant", None, "(not said)"
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith(("--- ", "diff ")):
                    break
                m = re.match(r"(Mutant|Control|Mechanism):\s*(.*)", line)
                if m and m.group(1) == "Mechanism":
                    self.mechanism = m.group(2).strip()
                elif m:
                    self.kind = m.group(1).lower()
                    self.name = m.group(2).strip()
        stem = os.path.basename(path).rsplit(".", 1)[0]
        self.name = re.sub(r"[^A-Za-z0-9._-]", "-", self.name or stem)


def in_tree_patches():
    return [Patch(p) for p in sorted(glob.glob(os.path.join(IN_TREE,
                                                            "*.patch")))]


def parse_args(argv):
    argv, run_args = split_run_args(argv)
    ap = argparse.ArgumentParser(
        prog="sched-workloads mutants",
        description="The battery measured against scheduler bugs built "
        "into a kernel tree.")
    ap.add_argument("--tree", default=kbuild.REFERENCE_TREE,
                    help="a kernel tree or linux-source tarball the "
                    "patches apply to (default: %(default)s)")
    ap.add_argument("--arch", choices=sorted(kbuild.KARCH),
                    default="aarch64")
    ap.add_argument("-j", type=int, default=2, metavar="N",
                    help="kernels in the guest at once")
    ap.add_argument("-o", "--output", metavar="DIR")
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="of the in-tree set, only these (a name or a "
                    "file name's start, e.g. 01)")
    ap.add_argument("patches", nargs="*", metavar="PATCH",
                    help="patches of your own, measured beside the "
                    "in-tree set (or alone, with --only none)")
    a = ap.parse_args(argv)
    a.run_args = run_args
    if a.j < 1:
        ap.error("-j %d: one kernel at a time at least" % a.j)
    return a


def chosen(a):
    """The Patches of the campaign: the in-tree set (those --only names)
    and the command line's."""
    pats = in_tree_patches()
    if a.only:
        def wanted(p):
            base = os.path.basename(p.path)
            return any(p.name == o or base.startswith(o) for o in a.only)
        pats = [p for p in pats if wanted(p)]
    for path in a.patches:
        if not os.path.isfile(path):
            raise SystemExit("sched-workloads mutants: %s: no such patch"
                             % path)
        pats.append(Patch(path))
    names = [p.name for p in pats]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SystemExit("sched-workloads mutants: two patches named %s"
                         % ", ".join(dup))
    return pats


def table(rows):
    """The campaign's table, a row per patch: its text."""
    out = ["%-30s %-8s %-9s %s" % ("patch", "kind", "verdict",
                                   "checks that caught it: the first one's "
                                   "diagnostic")]
    for r in rows:
        first = ("%d: %s: %s" % (len(r["caught_by"]), r["caught_by"][0][0],
                                 r["caught_by"][0][1])
                 if r["caught_by"] else r.get("detail", ""))
        out.append("%-30s %-8s %-9s %s" % (r["name"], r["kind"],
                                           r["verdict"], first))
    return "\n".join(out) + "\n"


def judged_before(out, name, key):
    """(status, seconds) of kernel @name's battery in an earlier run of
    campaign @out from the same inputs @key, its KTAP there; else
    None."""
    d = read_record(os.path.join(out, "logs", name + ".json"))
    if (not isinstance(d, dict) or d.get("key") != key or
            not os.path.isfile(os.path.join(out, "logs", name + ".ktap"))):
        return None
    return d.get("status"), d.get("seconds")


def key_of(base_image, run_args, battery, patch=None):
    """What a kernel's verdicts follow from: the base image (the tree,
    the config, the compiler), the patch, the battery (its sources and
    workloads: @battery, battery_digest's) and its arguments."""
    key = {"base": sha256(base_image), "battery": battery,
           "run_args": run_args}
    if patch:
        key["patch"] = sha256(patch)
    return key


def stopped(what, out):
    """An interrupted guest: nothing of it is recorded as judged."""
    print("# %s: interrupted; run again on %s, the campaign goes on "
          "where it stopped" % (what, out))
    return INTERRUPTED


def verdict_of(kind, caught_by):
    if kind == "control":
        return "FALSE-ALARM" if caught_by else "passed"
    return "caught" if caught_by else "missed"


def main(argv):
    a = parse_args(argv)
    start = time.monotonic()
    stop_guests_on_sigterm()
    pats = chosen(a)
    if not pats:
        print("sched-workloads mutants: no patches", file=sys.stderr)
        return EXIT_USAGE
    missing = kbuild.missing_tools(a.arch)
    if missing:
        print("sched-workloads mutants: SKIP: not found: %s" %
              ", ".join(missing), file=sys.stderr)
        return EXIT_SKIP
    out = os.path.abspath(a.output or os.path.join(
        "results", "mutants-" + time.strftime("%Y%m%d-%H%M%S")))
    for d in ("runs", "baselines", "logs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    try:
        tree = kbuild_source.tree_of(a.tree, kbuild.CACHE)
    except kbuild_source.SourceError as e:
        print("sched-workloads mutants: %s" % e, file=sys.stderr)
        return e.code
    kernels, rows = {}, []
    try:
        kernels["base"], _, took = kbuild.build(tree, a.arch, [], "sw")
    except (kbuild.BuildError, kbuild_source.SourceError) as e:
        print("sched-workloads mutants: the base does not build: %s" % e,
              file=sys.stderr)
        return EXIT_RUN_ERROR
    print("# base: built in %.0f s: %s" % (took, kernels["base"]))
    base_image = glob.glob(os.path.join(kernels["base"], "boot",
                                        "vmlinuz-*"))[0]
    battery = battery_digest()
    keys = {"base": key_of(base_image, a.run_args, battery)}
    before = {}
    for p in pats:
        keys[p.name] = key_of(base_image, a.run_args, battery, p.path)
        before[p.name] = judged_before(out, p.name, keys[p.name])
        if before[p.name]:
            kernels[p.name] = None
            print("# %s: judged before, not built again" % p.name)
            continue
        try:
            kernels[p.name], _, took = kbuild.build(tree, a.arch, [p.path],
                                                    "sw-" + p.name)
            print("# %s: built in %.0f s" % (p.name, took))
        except (kbuild.BuildError, kbuild_source.SourceError) as e:
            why = str(e).splitlines()[0]
            print("# %s: does not build: %s" % (p.name, why))
            rows.append({"name": p.name, "kind": p.kind, "verdict":
                         "unbuilt", "mechanism": p.mechanism,
                         "caught_by": [], "detail": why})
    sys.stdout.flush()
    bl = os.path.join(out, "baselines")
    t = time.monotonic()
    recorded = os.path.join(out, "logs", "baselines.json")
    bl_key = {"base": keys["base"]["base"], "battery": battery}
    if not (glob.glob(os.path.join(bl, "*", "*.json")) and
            read_record(recorded) == bl_key):
        # none yet, or of another base or battery: recorded again
        shutil.rmtree(bl)
        os.makedirs(bl)
        status = guest(kernels["base"], bl, os.path.join(out, "runs"),
                       ["baseline"] + a.run_args[1:],
                       os.path.join(out, "logs", "base-baseline.ktap"))
        print("# base: baselines recorded in %.0f s (exit %d)" %
              (time.monotonic() - t, status))
        sys.stdout.flush()
        if status == INTERRUPTED:
            return stopped("the base's baselines", out)
        with open(recorded, "w") as f:
            json.dump(bl_key, f, indent=1)
    before["base"] = judged_before(out, "base", keys["base"])

    stop = threading.Event()    # set by an interrupted guest

    def one(name):
        if before[name]:
            return name, before[name][0], before[name][1], False
        if stop.is_set():
            raise Interrupted(name)
        t0 = time.monotonic()
        log = os.path.join(out, "logs", name + ".ktap")
        status = guest(kernels[name], bl, os.path.join(out, "runs", name),
                       a.run_args, log, boot_bound(a.j))
        secs = round(time.monotonic() - t0)
        if status == INTERRUPTED:
            stop.set()
            raise Interrupted(name)
        # written last: a campaign stopped during this kernel runs it again
        with open(os.path.join(out, "logs", name + ".json"), "w") as f:
            json.dump({"key": keys[name], "status": status,
                       "seconds": secs}, f, indent=1)
        return name, status, secs, True

    names = ["base"] + [p.name for p in pats if p.name in kernels]
    took = {}
    with concurrent.futures.ThreadPoolExecutor(a.j) as pool:
        try:
            for name, status, secs, ran in pool.map(one, names):
                took[name] = secs
                print("# %s: battery exit %d in %.0f s%s" % (
                    name, status, secs, "" if ran else " (judged before)"))
                sys.stdout.flush()
        except (Interrupted, KeyboardInterrupt) as e:
            # no kernel starts after this; one in a guest ends first
            pool.shutdown(cancel_futures=True)
            return stopped(str(e) or "the campaign", out)
    base = checks(os.path.join(out, "logs", "base.ktap"))
    if not base:
        print("sched-workloads mutants: the base's battery gave no "
              "results (%s)" % os.path.join(out, "logs", "base.ktap"),
              file=sys.stderr)
        return EXIT_RUN_ERROR
    for p in pats:
        if p.name not in kernels:
            continue
        got = checks(os.path.join(out, "logs", p.name + ".ktap"))
        caught_by = judge(base, got)
        row = {"name": p.name, "kind": p.kind, "mechanism": p.mechanism,
               "caught_by": caught_by,
               "verdict": verdict_of(p.kind, caught_by),
               "seconds": round(took[p.name])}
        if not got:
            row.update(verdict="no-results", detail="its battery gave no "
                       "results: logs/%s.ktap" % p.name)
        rows.append(row)
    order = {p.name: i for i, p in enumerate(pats)}
    rows.sort(key=lambda r: order[r["name"]])
    text = table(rows)
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(text)
    wall = time.monotonic() - start
    with open(os.path.join(out, "campaign.json"), "w") as f:
        json.dump({"tree": tree, "release": kbuild_source.release_of(tree),
                   "arch": a.arch, "run_args": a.run_args,
                   "base_checks": len(base), "rows": rows,
                   "wall_seconds": round(wall)}, f, indent=1)
    print(text, end="")
    mutants = [r for r in rows if r["kind"] == "mutant"]
    controls = [r for r in rows if r["kind"] == "control"]
    print("# %d of %d mutants caught, %d of %d controls passed; %d checks "
          "judged on the base; wall time %.0f s; %s" % (
              sum(r["verdict"] == "caught" for r in mutants), len(mutants),
              sum(r["verdict"] == "passed" for r in controls),
              len(controls), len(base), wall, out))
    good = (all(r["verdict"] == "caught" for r in mutants) and
            all(r["verdict"] == "passed" for r in controls))
    return 0 if good else EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
