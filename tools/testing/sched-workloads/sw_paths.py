# SPDX-License-Identifier: GPL-2.0
"""Where things are, for the desk's tools: the one module of them that
knows the kernel tree's layout.

Two homes, split by who runs what:

  tools/testing/selftests/sched-workloads/  the collection: what a lab
      installs and runs with kselftest (run_kselftest.sh): the binary,
      workloads/, baselines/, lab/ (its wrapper, LAVA definition, KCIDB
      export, the reader of result directories)
  tools/testing/sched-workloads/  the desk, here: what a developer runs
      in a kernel tree: vm (a kernel booted in a QEMU guest), report,
      history, contribute, and the kernel builds and campaigns to come

Why: kselftest installs and tars a collection whole, and a lab has no
use for the desk's tools, which need a tree (its sources, git, a kernel
to build or boot, QEMU, apt): so not inside the collection. They are
test tooling of a kernel tree, as kunit.py is (tools/testing/kunit,
which builds and boots kernels too), not the kernel's build scripts
(scripts/): so beside kunit. And not a project of their own as
virtme-ng is: they go with the collection commit for commit (vm builds
the guest's binary from these sources, --reproduce checks out the
commit a baseline names).

Each side finds the other once. The binary runs the desk's tools from
the directory its build.mk named when it was built (SW_DESK_DIR, in the
tree it was built from: an O= build, or a guest's binary, is not beside
the tree), or from $SCHED_WORKLOADS_DESK, and names itself to them in
SW_BINARY. The tools find the collection here, from their own place in
the tree: they need its sources (to build a guest's binary, to write a
contributed workload, for git's view of the commit), which the binary
that ran them, an installed or O= one, need not sit beside. Importing
this puts the collection's lab/ on sys.path (the reader of result
directories).
"""
import os
import sys

# Where each home is in a kernel tree, from its top
DESK_IN_TREE = os.path.join("tools", "testing", "sched-workloads")
COLLECTION_IN_TREE = os.path.join("tools", "testing", "selftests",
                                  "sched-workloads")

# This directory: the desk's tools
DESK = os.path.dirname(os.path.abspath(__file__))


def tree_top(desk):
    """The top of the kernel tree whose desk's tools are at @desk."""
    tail = os.sep + DESK_IN_TREE
    if not desk.endswith(tail):
        raise ImportError("%s: not a kernel tree's %s" % (desk, DESK_IN_TREE))
    return desk[:-len(tail)]


def collection(top):
    """The collection's directory in the kernel tree at @top."""
    return os.path.join(top, COLLECTION_IN_TREE)


TOP = tree_top(DESK)
COLLECTION = collection(TOP)
LAB = os.path.join(COLLECTION, "lab")

if LAB not in sys.path:
    sys.path.insert(1, LAB)

import facts  # noqa: E402 (from LAB)


def binary():
    """The binary the tools run: the one that ran them, else the
    tree's."""
    return facts.binary()


def battery():
    """The directory of the binary's battery (its workloads/ and
    baselines/ beside it), whichever binary that is."""
    return os.path.dirname(os.path.realpath(binary()))
