# SPDX-License-Identifier: GPL-2.0
"""Reading the tool's KTAP back: its result lines, nested ones too."""


def ktap_results(text):
    """(indent, ok, name, directive) of every KTAP result line."""
    out = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        for prefix, ok in (("ok ", True), ("not ok ", False)):
            if stripped.startswith(prefix):
                rest = stripped[len(prefix):].split(" ", 1)
                tail = rest[1] if len(rest) > 1 else ""
                name, _, directive = tail.partition(" # ")
                out.append((indent, ok, name, directive))
                break
    return out
