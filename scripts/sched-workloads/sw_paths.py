# SPDX-License-Identifier: GPL-2.0
"""Where the collection is, seen from scripts/sched-workloads/, the
desk's tools: its binary, its battery, and its lab/ python (the reader
of result directories, which the installed collection has too), which
importing this puts on sys.path."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.normpath(os.path.join(
    HERE, "..", "..", "tools", "testing", "selftests", "sched-workloads"))
LAB = os.path.join(COLLECTION, "lab")

if LAB not in sys.path:
    sys.path.insert(1, LAB)


def binary():
    """The binary the tools run: the one that ran them, else the
    tree's."""
    return os.environ.get("SW_BINARY",
                          os.path.join(COLLECTION, "sched-workloads"))
