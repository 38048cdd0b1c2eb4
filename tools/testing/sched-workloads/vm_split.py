# SPDX-License-Identifier: GPL-2.0
"""The judging guest's battery across two boots, and their results as
one run.

A deterministic guest runs one vCPU at a time on one host thread: the
whole battery in one boot takes twice the wall time of two boots of the
same kernel running at once, each with half of it. The halves are fixed
(the battery's workloads in order, every other one), whatever the host:
what each boot measures depends on what ran before it in that boot, so
a split that followed the host's CPU count would make the results the
host's. Each boot's run directory and KTAP come back as usual; here the
second boot's workloads join the first's run directory, and the two KTAP
texts become one, in the battery's order.
"""
import json
import os
import re
import shutil

import sw_paths  # noqa: F401 (the collection's lab/ on sys.path)
from facts import EXIT_PASS, EXIT_SKIP

RESULT = re.compile(r"^(not ok|ok) [0-9]+ (\S+)(.*)$")
TOTALS = "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:%d"


def halves(names):
    """@names (the battery's order) as the two boots' shares."""
    return [names[0::2], names[1::2]]


class Ktap:
    """One boot's KTAP: its header (up to the plan and the lines that
    name the run), each workload's block (the lines up to and including
    its result line) by name, and the trailer after the last result."""

    def __init__(self, text):
        self.header, self.blocks, self.order, block = [], {}, [], []
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = RESULT.match(line)
            if m:
                block.append(line)
                self.blocks[m.group(2)] = block
                self.order.append(m.group(2))
                block = []
            elif not self.order and (line.startswith("TAP version") or
                                     re.match(r"^1\.\.[0-9]+$", line) or
                                     line.startswith("# results: ") or
                                     line.startswith("# machine class ")):
                self.header.append(line)
            else:
                block.append(line)
        self.trailer = [line for line in block
                        if not line.startswith("# Totals:")]


def merge_ktap(texts, order):
    """One KTAP of the boots' @texts: their workloads in the order of
    @order (names), numbered again, with totals of all; each boot's
    trailer as diagnostics."""
    parts = [Ktap(t) for t in texts]
    blocks = {}
    for p in parts:
        blocks.update(p.blocks)
    names = [n for n in order if n in blocks]
    names += sorted(n for n in blocks if n not in names)
    out = [line if not re.match(r"^1\.\.[0-9]+$", line) else
           "1..%d" % len(names) for line in parts[0].header]
    counts = {"pass": 0, "fail": 0, "skip": 0, "error": 0}
    for k, name in enumerate(names, 1):
        *body, result = blocks[name]
        m = RESULT.match(result)
        out += body
        out.append("%s %d %s%s" % (m.group(1), k, name, m.group(3)))
        if m.group(1) == "ok":
            counts["skip" if "# SKIP" in m.group(3) else "pass"] += 1
        else:
            counts["error" if "# error" in m.group(3) else "fail"] += 1
    for i, p in enumerate(parts, 1):
        out += ["# boot %d of %d: %s" % (i, len(parts), line[2:])
                for line in p.trailer if line.startswith("# ")]
    out.append(TOTALS % (counts["pass"], counts["fail"], counts["skip"],
                         counts["error"]))
    return "\n".join(out) + "\n"


def merge_status(statuses):
    """The exit status of the boots together: the first that is neither
    a pass nor a skip, else a pass when one passed, else a skip."""
    for s in statuses:
        if s not in (EXIT_PASS, EXIT_SKIP):
            return s
    return EXIT_PASS if EXIT_PASS in statuses else EXIT_SKIP


def merge_runs(first, others):
    """The workloads of the run directories @others moved into run
    directory @first, their index.json entries into its index.json, each
    one's vm/ into first's vm/boot-<k>/; @others removed. Returns the
    workloads moved."""
    with open(os.path.join(first, "index.json")) as f:
        index = json.load(f)
    moved = []
    for k, run in enumerate(others, 2):
        with open(os.path.join(run, "index.json")) as f:
            theirs = json.load(f)
        for name, entry in theirs["workloads"].items():
            src = os.path.join(run, name)
            if os.path.isdir(src):
                os.rename(src, os.path.join(first, name))
            index["workloads"][name] = entry
            moved.append(name)
        vm = os.path.join(first, "vm", "boot-%d" % k)
        if os.path.isdir(os.path.join(run, "vm")):
            os.rename(os.path.join(run, "vm"), vm)
        os.makedirs(vm, exist_ok=True)
        os.rename(os.path.join(run, "time.json"),
                  os.path.join(vm, "time.json"))
        shutil.rmtree(run)
    index["workloads"] = dict(sorted(index["workloads"].items()))
    tmp = os.path.join(first, "index.json.tmp")
    with open(tmp, "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")
    os.rename(tmp, os.path.join(first, "index.json"))
    return moved
