#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the layer map of the collection (layers.txt) on its C sources.

    check_layers.py [COLLECTION]

A violation is one line (most "file:line: what"), and the exit code 1:
 - an include of a header in a layer above the file's, or in another
   directory of the same layer;
 - a cycle of modules (x.c with x.h) through their includes;
 - files of one directory that use each other's functions or variables
   (a.c calls b.c, and b.c calls a.c, or round a longer circle): a
   header that declares the functions of several files would hide these
   from the includes, so they are found from what each .c file defines
   and names;
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
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(\\.|[^\"\\])*\"|"
                        r"'(\\.|[^'\\])+'", re.S)
CPP_RE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
# A name used, not a member of a struct.
USE_RE = re.compile(r"(?<![\w.>])[A-Za-z_]\w*")
KEYWORDS = {"static", "extern", "typedef", "const", "volatile", "inline",
            "struct", "union", "enum", "unsigned", "signed", "int", "char",
            "long", "short", "void", "double", "float"}

# Pairs (or circles) of files of one directory that may still use each
# other, each while the split that separates them is under way, with why:
#   ("dir/a.c", "dir/b.c"): "what will separate them",
TWO_WAY_ALLOWED = {
}


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
    """@text with comments, string and character literals blanked, lines
    kept."""
    return COMMENT_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def blank(text):
    """@text with comments, literals and preprocessor lines blanked."""
    return CPP_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                      blank_comments(text))


def statements(code):
    """The file-scope declarations of @code (blanked), the bodies of their
    braces left out: (text, True) for a function definition, else
    (text up to its ";", False)."""
    head, depth, function = "", 0, False
    for ch in code:
        if depth:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if not depth and function:
                yield head, True
                head = ""
            elif not depth:
                head += "{}"
        elif ch == "{":
            depth = 1
            function = "=" not in head and head.rstrip().endswith(")")
        elif ch == ";":
            yield head, False
            head = ""
        else:
            head += ch


def function_name(head):
    """The name before the parameter list that ends @head."""
    depth, i = 0, len(head.rstrip())
    while i > 0:
        i -= 1
        depth += {")": 1, "(": -1}.get(head[i], 0)
        if not depth:
            break
    m = re.search(r"([A-Za-z_]\w*)\s*$", head[:i])
    return m.group(1) if m else None


def definitions(code):
    """{name: static?} of the functions and variables @code (blanked)
    defines at file scope."""
    defs = {}
    for text, function in statements(code):
        words = IDENT_RE.findall(text)
        if not words or words[0] in ("typedef", "extern"):
            continue
        if function:
            name = function_name(text)
        else:
            decl = text.split("=", 1)[0]
            if "(" in decl or decl.rstrip().endswith("{}"):
                continue        # a prototype, a macro, a type
            names = [w for w in IDENT_RE.findall(re.sub(r"\[[^]]*\]", " ",
                                                        decl))
                     if w not in KEYWORDS]
            name = names[-1] if names else None
        if name:
            defs[name] = "static" in words
    return defs


def used_names(code):
    """Every name @code (blanked) uses, but members of structs."""
    return set(USE_RE.findall(code))


def two_way_calls(root, srcs):
    """Problems: files of one directory that use each other, directly or
    round a circle, unless TWO_WAY_ALLOWED names them."""
    defs, uses = {}, {}
    for path in srcs:
        if path.endswith(".c"):
            with open(os.path.join(root, path)) as f:
                code = blank(f.read())
            defs[path] = definitions(code)
            uses[path] = used_names(code)
    owner = {}
    for path, names in defs.items():
        for name, static in names.items():
            if not static:
                owner[name] = path
    edges, what = {}, {}
    for path, names in uses.items():
        for name in sorted(names - set(defs[path])):
            other = owner.get(name)
            if other and os.path.dirname(other) == os.path.dirname(path):
                edges.setdefault(path, set()).add(other)
                what.setdefault((path, other), []).append(name)
    problems, seen = [], set()
    for comp in cycles(edges):
        seen.add(tuple(comp))
        if tuple(comp) in TWO_WAY_ALLOWED:
            continue
        uses_text = "; ".join(
            "%s uses %s of %s" % (a, ", ".join(what[(a, b)]), b)
            for a in comp for b in comp if (a, b) in what)
        problems.append("%s use each other: %s" %
                        (" and ".join(comp), uses_text))
    for comp in sorted(set(TWO_WAY_ALLOWED) - seen):
        problems.append("%s no longer use each other: remove them from "
                        "TWO_WAY_ALLOWED" % " and ".join(comp))
    return problems


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
    return problems + two_way_calls(root, srcs)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check(root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
