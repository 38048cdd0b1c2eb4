# SPDX-License-Identifier: GPL-2.0
"""The sources kbuild.py builds: a kernel tree the user gave, which is
never modified, mirrored into the build cache, with the patches of one
build (a mutant, a reviewer's change) applied to the mirror only.

The mirror is a tree of hard links (rsync --link-dest; copies across
file systems), so making it costs seconds, not gigabytes. A file a
patch changes is replaced by a copy of its own first: the tree's file,
which shares its inode, is never written. Make decides what to rebuild
by modification times, so the next build must see every file the last
build's patches touched as changed: the mirror's copy of it gets the
time of now when it goes back to the tree's text. Build products of an
in-tree build (a developer's tree), .git and the tree's .config are left
out: kbuild's out-of-tree build refuses a source tree that has them.

Debian's linux-source-<version>.tar.xz (the reference tree) is extracted
into the cache once and used as a tree.
"""
import os
import re
import shutil
import subprocess

# What the mirror leaves out: an in-tree build's products and state
RSYNC_EXCLUDES = ("/.git", "/.config", "/.config.old", "/include/config/",
                  "/include/generated/", "/arch/*/include/generated/",
                  "*.o", "*.ko", "*.a", ".*.cmd", "*.mod", "*.mod.c",
                  "/vmlinux", "/System.map", "/Module.symvers",
                  "/modules.order")
# The file of the mirror that lists what the last build's patches changed
PATCHED_LIST = ".sw-patched"


class SourceError(Exception):
    """@code: the exit status it means (2: what was given is wrong)."""

    def __init__(self, msg, code=1):
        super().__init__(msg)
        self.code = code


def is_kernel_tree(path):
    return (os.path.isfile(os.path.join(path, "Makefile")) and
            os.path.isfile(os.path.join(path, "kernel", "sched", "core.c")))


def release_of(tree):
    """The kernel version its top Makefile gives (VERSION.PATCHLEVEL.
    SUBLEVEL plus EXTRAVERSION)."""
    fields = {}
    with open(os.path.join(tree, "Makefile")) as f:
        for line in f:
            m = re.match(r"(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)"
                         r"\s*=\s*(\S*)", line)
            if m and m.group(1) not in fields:
                fields[m.group(1)] = m.group(2)
            if len(fields) == 4:
                break
    v = ".".join(fields.get(k, "0") for k in
                 ("VERSION", "PATCHLEVEL", "SUBLEVEL"))
    return v + fields.get("EXTRAVERSION", "")


def tree_of(arg, cache):
    """The kernel tree of @arg: a tree, or a linux-source tarball
    extracted into @cache once."""
    if os.path.isdir(arg):
        if not is_kernel_tree(arg):
            raise SourceError("%s: not a kernel source tree (no Makefile "
                              "and kernel/sched/core.c)" % arg, 2)
        return os.path.realpath(arg)
    if not os.path.isfile(arg):
        raise SourceError("%s: no such kernel tree or tarball" % arg, 2)
    if not re.search(r"\.tar(\.(xz|gz|bz2|zst))?$", arg):
        raise SourceError("%s: neither a kernel tree nor a .tar(.xz) of "
                          "one" % arg, 2)
    name = re.sub(r"\.tar(\.\w+)?$", "", os.path.basename(arg))
    dest = os.path.join(cache, "sources", name)
    # the path of the tree in it, once extracted whole
    done = os.path.join(dest, ".sw-extracted")
    if not os.path.isfile(done):
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        r = subprocess.run(["tar", "-xf", arg, "-C", dest],
                           capture_output=True, text=True)
        tops = [os.path.join(dest, d) for d in sorted(os.listdir(dest))]
        tops = [dest] if is_kernel_tree(dest) else \
            [t for t in tops if is_kernel_tree(t)]
        if r.returncode or len(tops) != 1:
            shutil.rmtree(dest, ignore_errors=True)
            raise SourceError("%s: %s" % (arg, r.stderr.strip()[-500:] if
                                          r.returncode else
                                          "no kernel tree in it"), 2)
        with open(done, "w") as f:
            f.write(tops[0] + "\n")
    with open(done) as f:
        return f.read().strip()


def patched_files(patch):
    """The files (paths in the tree) a unified diff @patch changes,
    from its "+++ b/<path>" lines."""
    files = []
    with open(patch, errors="replace") as f:
        for line in f:
            if line.startswith("+++ "):
                path = line[4:].split("\t")[0].strip()
                if path != "/dev/null":
                    files.append(path.split("/", 1)[1] if "/" in path
                                 else path)
    if not files:
        raise SourceError("%s: not a unified diff (no +++ line)" % patch, 2)
    return files


def own_copy(path):
    """@path, a hard link into the tree, made a file of its own (modified
    now): writing it no longer writes the tree."""
    tmp = path + ".sw-tmp"
    shutil.copyfile(path, tmp)
    shutil.copymode(path, tmp)
    os.replace(tmp, path)


def mirror(tree, dest, patches):
    """@dest made the text of @tree with @patches applied (in order,
    patch -p1): what the build of these patches compiles."""
    os.makedirs(dest, exist_ok=True)
    listed = os.path.join(dest, PATCHED_LIST)
    before = []
    if os.path.isfile(listed):
        with open(listed) as f:
            before = [line.strip() for line in f if line.strip()]
    argv = ["rsync", "-a", "--delete", "--link-dest=" + tree]
    argv += ["--exclude=" + e for e in RSYNC_EXCLUDES + (PATCHED_LIST,)]
    r = subprocess.run(argv + [tree + "/", dest + "/"],
                       capture_output=True, text=True)
    if r.returncode:
        raise SourceError("rsync %s -> %s: %s" %
                          (tree, dest, r.stderr.strip()[-500:]))
    # back to the tree's text: newer than the objects built from the
    # patched text, so make compiles them again
    for path in before:
        if os.path.isfile(os.path.join(dest, path)):
            own_copy(os.path.join(dest, path))
    changed = []
    for p in patches:
        files = patched_files(p)
        for path in files:
            if os.path.isfile(os.path.join(dest, path)):
                own_copy(os.path.join(dest, path))
        changed += files
        # the list first: a patch that half applies is undone next time
        with open(listed, "w") as f:
            f.write("".join(c + "\n" for c in before + changed))
        with open(p) as f:
            r = subprocess.run(["patch", "-p1", "-N", "-s", "-d", dest,
                                "--no-backup-if-mismatch", "-r", "-"],
                               stdin=f, capture_output=True, text=True)
        if r.returncode:
            raise SourceError("%s does not apply to %s: %s" %
                              (p, tree, (r.stdout + r.stderr).strip()
                               [-800:]), 2)
    with open(listed, "w") as f:
        f.write("".join(c + "\n" for c in changed))
