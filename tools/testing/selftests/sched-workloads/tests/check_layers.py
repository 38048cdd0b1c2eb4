#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the layer map of the collection (layers.txt) on its C sources.

    check_layers.py [COLLECTION]

A violation is one line "file:line: what", and the exit code 1:
 - an include of a header in a layer above the file's, or in another
   directory of the same layer;
 - a cycle of modules (x.c with x.h) through their includes;
 - a function declared "extern" in a .c file (calls go through headers,
   where the includes above see them);
 - stdout, stderr, printf() or the KTAP printers used in a layer that is
   not marked "output".
"""
import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
EXTERN_RE = re.compile(r"^\s*extern\b")
OUTPUT_RE = re.compile(r"\b(stdout|stderr|printf|puts|perror|putchar|"
                       r"ktap_\w+)\b")
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(\\.|[^\"\\])*\"", re.S)


def read_map(root):
    """[(rank, [directories], output)] from layers.txt, rank 0 the top."""
    layers = []
    with open(os.path.join(root, "layers.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            dirs, output, _ = (x.strip() for x in line.split("|", 2))
            layers.append((len(layers), dirs.split(), output == "output"))
    return layers


def blank_comments(text):
    """@text with comments and string literals blanked, lines kept."""
    return COMMENT_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def sources(root, layers):
    """{path relative to root: (rank, directory, output)}."""
    out = {}
    for rank, dirs, output in layers:
        for d in dirs:
            for f in sorted(os.listdir(os.path.join(root, d))):
                if f.endswith((".c", ".h")):
                    out[os.path.normpath(os.path.join(d, f))] = \
                        (rank, d, output)
    return out


def resolve(root, src, inc):
    """The collection path @inc of @src names, or None (outside)."""
    for base in (os.path.dirname(src), ""):
        path = os.path.normpath(os.path.join(base, inc))
        if os.path.exists(os.path.join(root, path)):
            return path if not path.startswith("..") else None
    return None


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def check(root):
    layers = read_map(root)
    srcs = sources(root, layers)
    problems, edges = [], {}
    for path, (rank, d, output) in sorted(srcs.items()):
        with open(os.path.join(root, path)) as f:
            text = f.read()
        code = blank_comments(text).splitlines()
        mod = path[:-2]
        for n, line in enumerate(text.splitlines(), 1):
            m = INCLUDE_RE.match(line)
            if m:
                target = resolve(root, path, m.group(1))
                if target in srcs:
                    trank, td, _ = srcs[target]
                    if td != d and trank <= rank:
                        problems.append(
                            "%s:%d: %s includes %s, %s" %
                            (path, n, d, target, "a layer above it"
                             if trank < rank else "a layer beside it"))
                    if target[:-2] != mod:
                        edges.setdefault(mod, set()).add(target[:-2])
            if path.endswith(".c") and EXTERN_RE.match(code[n - 1]):
                problems.append("%s:%d: extern in a .c file: declare it "
                                "in a header" % (path, n))
            if not output:
                m = OUTPUT_RE.search(code[n - 1])
                if m:
                    problems.append("%s:%d: %s in layer %s, which does "
                                    "not write output" %
                                    (path, n, m.group(1), d))
    for comp in cycles(edges):
        problems.append("cycle of modules: %s" % " -> ".join(comp))
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check(root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
