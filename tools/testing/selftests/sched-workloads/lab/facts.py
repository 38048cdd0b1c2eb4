# SPDX-License-Identifier: GPL-2.0
"""What the python3 programs take from the binary rather than restate:
its exit codes, the edges of its event histograms' bins and the canary's
figures that tell a slower machine, as "sched-workloads --facts" prints
them (cmd/cmd_facts.c). They are read once, on first use, from the
binary that runs these programs (SW_BINARY, which it sets), else from
the one beside lab/ (an installed collection, or the tree once built).

The exit codes are this module's EXIT_<NAME>, for lib/util.h's
SW_EXIT_<NAME>: facts.EXIT_BAD_RESULTS, "from facts import EXIT_USAGE".
"""
import json
import os
import subprocess
import sys

LAB = os.path.dirname(os.path.abspath(__file__))

_facts = None


def binary():
    """The binary the programs run and take their facts from."""
    return os.environ.get("SW_BINARY",
                          os.path.join(os.path.dirname(LAB),
                                       "sched-workloads"))


def load():
    """The facts, as the binary prints them; exits (1) with a message
    when it cannot be run: nothing else knows the exit codes."""
    global _facts
    if _facts is None:
        path = binary()
        try:
            r = subprocess.run([path, "--facts"], capture_output=True,
                               text=True)
        except OSError as e:
            sys.exit("%s: %s (build it, or name another with SW_BINARY)"
                     % (path, e.strerror))
        if r.returncode:
            sys.exit("%s --facts: exit %d: %s"
                     % (path, r.returncode, r.stderr.strip()))
        _facts = json.loads(r.stdout)
    return _facts


def __getattr__(name):
    if name.startswith("EXIT_"):
        codes = load()["exit_codes"]
        if name[5:] in codes:
            return codes[name[5:]]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def event_bins():
    """lib/event_hist.h's binning: {"per_octave", "min_abs", "octaves",
    "edges"}, edges[b] the upper edge of bin b >= 0 (None: open)."""
    return load()["event_bins"]


def canary_machine():
    """[(metric, unit)]: the canary's figures that tell a slower machine
    (judge/machine_drift.h), in the binary's order."""
    return [(m["metric"], m["unit"]) for m in load()["canary_machine"]]
