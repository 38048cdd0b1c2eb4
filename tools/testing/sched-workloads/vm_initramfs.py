# SPDX-License-Identifier: GPL-2.0
"""The guest's whole root, as an initramfs: what "sched-workloads vm"
boots the kernel under test with.

The guest must not need the host's distribution, so the archive holds
every file the battery runs: busybox, the collection's binary, rt-app,
the shared libraries these need (their DT_NEEDED closure, resolved as
the dynamic loader would in the root they come from), the kernel
modules that the results disk needs (in dependency order, from their
.modinfo), and the collection's workloads and baselines.

The archive is newc cpio, uncompressed, its entries sorted and owned by
root with mtime 0: the same inputs give the same bytes.
"""
import gzip
import lzma
import os
import stat
import struct

# Where Debian's loader looks by default; Debian ships no RPATHs here.
LIB_DIRS = ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu",
            "lib/aarch64-linux-gnu", "usr/lib/aarch64-linux-gnu",
            "lib64", "lib", "usr/lib")

PT_INTERP = 3
DT_NEEDED = 1


class ElfError(Exception):
    pass


class Elf:
    """The parts of a 64-bit little-endian ELF file read here: its
    sections by name, its interpreter, its DT_NEEDED entries."""

    def __init__(self, path, data=None):
        self.path = path
        if data is None:
            with open(path, "rb") as f:
                data = f.read()
        self.data = d = data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            raise ElfError("%s: not a 64-bit little-endian ELF file" % path)
        (self.phoff, self.shoff) = struct.unpack_from("<QQ", d, 0x20)
        (self.phentsize, self.phnum, self.shentsize, self.shnum,
         self.shstrndx) = struct.unpack_from("<HHHHH", d, 0x36)

    def _section_headers(self):
        for i in range(self.shnum):
            off = self.shoff + i * self.shentsize
            (name, stype, _, _, offset, size, link) = struct.unpack_from(
                "<IIQQQQI", self.data, off)
            yield name, stype, offset, size, link

    def sections(self):
        """{name: (offset, size, link)}; link is the index of the
        section it refers to."""
        hdrs = list(self._section_headers())
        if not hdrs:
            return {}
        self.headers = hdrs
        names = hdrs[self.shstrndx][2]
        out = {}
        for name, _, offset, size, link in hdrs:
            end = self.data.index(b"\0", names + name)
            out[self.data[names + name:end].decode()] = (offset, size, link)
        return out

    def interpreter(self):
        for i in range(self.phnum):
            off = self.phoff + i * self.phentsize
            ptype, _, offset, _, _, filesz = struct.unpack_from(
                "<IIQQQQ", self.data, off)
            if ptype == PT_INTERP:
                return self.data[offset:offset + filesz].rstrip(b"\0").decode()
        return None

    def needed(self):
        secs = self.sections()
        if ".dynamic" not in secs:
            return []
        offset, size, link = secs[".dynamic"]
        strtab = self.headers[link][2]
        out = []
        for pos in range(offset, offset + size, 16):
            tag, val = struct.unpack_from("<qQ", self.data, pos)
            if tag == 0:
                break
            if tag == DT_NEEDED:
                end = self.data.index(b"\0", strtab + val)
                out.append(self.data[strtab + val:end].decode())
        return out

    def modinfo(self):
        """The .modinfo of a kernel module: {key: [values]}."""
        secs = self.sections()
        if ".modinfo" not in secs:
            raise ElfError("%s: no .modinfo: not a kernel module" %
                           self.path)
        offset, size = secs[".modinfo"][:2]
        info = {}
        for item in self.data[offset:offset + size].split(b"\0"):
            if b"=" in item:
                k, v = item.decode(errors="replace").split("=", 1)
                info.setdefault(k, []).append(v)
        return info


def find_library(root, soname):
    for d in LIB_DIRS:
        p = os.path.join(root, d, soname)
        if os.path.exists(p):
            return os.path.join("/", d, soname)
    return None


def library_closure(root, programs):
    """Every file the dynamic loader maps for @programs (paths inside
    @root), the loaders included: a sorted list of paths inside @root.
    An unresolved soname is an error naming it."""
    seen, todo = set(), list(programs)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        elf = Elf(os.path.join(root, path.lstrip("/")))
        interp = elf.interpreter()
        if interp:
            todo.append(interp)
        for soname in elf.needed():
            lib = find_library(root, soname)
            if not lib:
                raise ElfError("%s needs %s, which is not in %s" %
                               (path, soname, root))
            todo.append(lib)
    return sorted(seen)


# How a distribution compresses its modules (Debian's 6.12: xz): the
# guest gets them decompressed, for busybox's insmod.
MODULE_SUFFIXES = {".ko": None, ".ko.xz": lzma.decompress,
                   ".ko.gz": gzip.decompress}


def module_suffix(name):
    return next((x for x in MODULE_SUFFIXES if name.endswith(x)), None)


def module_bytes(path):
    """The module at @path, decompressed."""
    with open(path, "rb") as f:
        data = f.read()
    unpack = MODULE_SUFFIXES[module_suffix(path)]
    if unpack is None:
        return data
    try:
        return unpack(data)
    except (lzma.LZMAError, OSError, EOFError) as e:
        raise ElfError("%s: cannot decompress: %s" % (path, e))


def module_guest_path(rel):
    """Where the guest has module @rel (its path in lib/modules/<version>,
    perhaps compressed): the same path, as a .ko."""
    return rel[:-len(module_suffix(rel))] + ".ko"


def module_order(moddir, wanted):
    """The module files of @moddir (a kernel's lib/modules/<version>;
    .ko, or compressed: MODULE_SUFFIXES) that @wanted (module names)
    need, each after what it depends on: paths relative to @moddir. A
    module built into the kernel (modules.builtin) needs no file; one
    neither built in nor found is an error."""
    files, builtin = {}, set()
    for d, _, names in os.walk(moddir):
        for n in names:
            suffix = module_suffix(n)
            if suffix:
                files[n[:-len(suffix)].replace("-", "_")] = \
                    os.path.relpath(os.path.join(d, n), moddir)
    try:
        with open(os.path.join(moddir, "modules.builtin")) as f:
            for line in f:
                base = os.path.basename(line.strip())
                builtin.add(base[:-3].replace("-", "_"))
    except FileNotFoundError:
        pass
    order, placed = [], set()

    def place(name, chain):
        name = name.replace("-", "_")
        if name in placed or name in builtin:
            return
        if name in chain:
            raise ElfError("modules depend on each other: %s" %
                           " -> ".join(chain + [name]))
        if name not in files:
            raise ElfError("module %s is neither built in nor in %s" %
                           (name, moddir))
        path = os.path.join(moddir, files[name])
        info = Elf(path, module_bytes(path)).modinfo()
        for deps in info.get("depends", []):
            for dep in filter(None, deps.split(",")):
                place(dep, chain + [name])
        placed.add(name)
        order.append(files[name])

    for name in wanted:
        place(name, [])
    return order


class Cpio:
    """A newc archive built in memory: add entries, then bytes()."""

    def __init__(self):
        self.entries = {}

    def add_dir(self, path):
        """@path and the directories above it."""
        parts = path.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            self.entries.setdefault("/".join(parts[:i]),
                                    (stat.S_IFDIR | 0o755, b"", 0))

    def _parents(self, path):
        parent = os.path.dirname(path.strip("/"))
        if parent:
            self.add_dir(parent)

    def add_file(self, path, data, mode=0o644):
        self._parents(path)
        self.entries[path.strip("/")] = (stat.S_IFREG | mode, data, 0)

    def add_symlink(self, path, target):
        self._parents(path)
        self.entries[path.strip("/")] = (stat.S_IFLNK | 0o777,
                                         target.encode(), 0)

    def add_chardev(self, path, major, minor, mode=0o600):
        self._parents(path)
        self.entries[path.strip("/")] = (stat.S_IFCHR | mode, b"",
                                         (major, minor))

    def add_host_file(self, path, host_path):
        """A file of the host, its links followed, its mode kept."""
        with open(host_path, "rb") as f:
            data = f.read()
        self.add_file(path, data, os.stat(host_path).st_mode & 0o7777)

    @staticmethod
    def _entry(ino, name, mode, data, rdev):
        major, minor = rdev if rdev else (0, 0)
        name_b = name.encode() + b"\0"
        fields = (ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, 0,
                  len(data), 0, 0, major, minor, len(name_b), 0)
        hdr = b"070701" + b"".join(b"%08X" % v for v in fields)
        out = hdr + name_b
        out += b"\0" * (-len(out) % 4)
        out += data + b"\0" * (-len(data) % 4)
        return out

    def bytes(self):
        out = []
        for ino, name in enumerate(sorted(self.entries), start=1):
            mode, data, rdev = self.entries[name]
            out.append(self._entry(ino, name, mode, data, rdev))
        out.append(self._entry(0, "TRAILER!!!", 0, b"", 0))
        blob = b"".join(out)
        return blob + b"\0" * (-len(blob) % 512)


def add_tree(cpio, dest, src):
    """@src's regular files under @dest, as they are."""
    for d, dirs, names in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(d, src)
        for n in sorted(names):
            p = os.path.join(d, n)
            if os.path.isfile(p):
                cpio.add_host_file(os.path.normpath(
                    os.path.join(dest, rel, n)), p)
