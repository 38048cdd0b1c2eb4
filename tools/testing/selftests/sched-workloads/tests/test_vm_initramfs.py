# SPDX-License-Identifier: GPL-2.0
"""The guest's root (tools/testing/sched-workloads/vm_initramfs.py): the ELF
reading it rests on, checked against the host's own tools (ldd, readelf)
and against objects built here; the module order on modules built here
with the .modinfo a kernel module carries; the archive read back by
busybox's cpio."""
import gzip
import lzma
import os
import shutil
import subprocess
import tempfile
import unittest

import swtest  # noqa: F401 (puts the desk's tools on sys.path)
import vm_initramfs


def ldd_closure(path):
    """What the host's loader maps for @path, by ldd: real paths."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True,
                         check=True).stdout
    libs = set()
    for line in out.splitlines():
        parts = line.split()
        if "=>" in parts and parts[parts.index("=>") + 1].startswith("/"):
            libs.add(os.path.realpath(parts[parts.index("=>") + 1]))
        elif parts and parts[0].startswith("/"):
            libs.add(os.path.realpath(parts[0]))
    return libs


@unittest.skipUnless(shutil.which("gcc") and shutil.which("ldd"),
                     "needs gcc and ldd")
class TestElf(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-vm-elf-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def build(self, name, source, *flags):
        src = os.path.join(self.tmp, name + ".c")
        with open(src, "w") as f:
            f.write(source)
        out = os.path.join(self.tmp, name)
        subprocess.run(["gcc", "-o", out, src] + list(flags), check=True)
        return out

    def test_needed_and_interpreter_as_the_loader_sees_them(self):
        prog = self.build("prog", "#include <math.h>\n"
                          "int main(int c, char **v)"
                          "{ return (int)sqrt(c + v[0][0]); }\n", "-lm")
        elf = vm_initramfs.Elf(prog)
        self.assertEqual(sorted(elf.needed()), ["libc.so.6", "libm.so.6"])
        self.assertEqual(elf.interpreter(), "/lib64/ld-linux-x86-64.so.2")
        mapped = {os.path.realpath(p)
                  for p in vm_initramfs.library_closure("/", [prog])}
        self.assertEqual(mapped - {os.path.realpath(prog)},
                         ldd_closure(prog))

    def test_the_collections_own_binary(self):
        binary = swtest.BINARY
        if not os.path.exists(binary):
            self.skipTest("the binary is not built")
        mapped = {os.path.realpath(p)
                  for p in vm_initramfs.library_closure("/", [binary])}
        self.assertEqual(mapped - {os.path.realpath(binary)},
                         ldd_closure(binary))

    def test_static_has_no_needed(self):
        prog = self.build("static", "int main(void) { return 0; }\n",
                          "-static")
        self.assertEqual(vm_initramfs.Elf(prog).needed(), [])
        self.assertIsNone(vm_initramfs.Elf(prog).interpreter())

    def test_not_elf(self):
        path = os.path.join(self.tmp, "text")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
        with self.assertRaisesRegex(vm_initramfs.ElfError,
                                    "text: not a 64-bit"):
            vm_initramfs.Elf(path)

    def test_unresolved_soname_is_named(self):
        lib = self.build("libsw_gone.so", "int sw_gone(void){return 1;}\n",
                         "-shared", "-fPIC", "-Wl,-soname,libsw_gone.so")
        prog = self.build("needs", "int sw_gone(void);\n"
                          "int main(void) { return sw_gone(); }\n",
                          lib)
        with self.assertRaisesRegex(vm_initramfs.ElfError,
                                    "needs libsw_gone.so, which is not"):
            vm_initramfs.library_closure("/", [prog])

    def module(self, moddir, name, depends):
        """An object carrying the .modinfo of a module named @name."""
        src = os.path.join(self.tmp, name + ".c")
        with open(src, "w") as f:
            f.write('__attribute__((section(".modinfo"), used))\n'
                    'static const char info[] = "license=GPL\\0'
                    'depends=%s\\0name=%s";\n' % (depends, name))
        out = os.path.join(moddir, "kernel", name + ".ko")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run(["gcc", "-c", "-o", out, src], check=True)

    def test_module_order(self):
        moddir = os.path.join(self.tmp, "modules")
        self.module(moddir, "blk", "pci,ring")
        self.module(moddir, "pci", "core,ring")
        self.module(moddir, "ring", "")
        self.module(moddir, "core", "builtin_one")
        self.module(moddir, "unused", "")
        with open(os.path.join(moddir, "modules.builtin"), "w") as f:
            f.write("kernel/builtin-one.ko\n")
        self.assertEqual(vm_initramfs.module_order(moddir, ["blk"]),
                         ["kernel/core.ko", "kernel/ring.ko",
                          "kernel/pci.ko", "kernel/blk.ko"])
        self.assertEqual(vm_initramfs.module_order(moddir, ["builtin-one"]),
                         [])
        with self.assertRaisesRegex(vm_initramfs.ElfError,
                                    "module absent is neither built in"):
            vm_initramfs.module_order(moddir, ["absent"])

    def test_compressed_modules(self):
        # Debian's 6.12 packages ship .ko.xz: read through the
        # compression, named as .ko in the guest
        moddir = os.path.join(self.tmp, "modules")
        self.module(moddir, "blk", "ring")
        self.module(moddir, "ring", "")
        for name, pack, suffix in (("blk", lzma.compress, ".xz"),
                                   ("ring", gzip.compress, ".gz")):
            ko = os.path.join(moddir, "kernel", name + ".ko")
            with open(ko, "rb") as f:
                plain = f.read()
            with open(ko + suffix, "wb") as f:
                f.write(pack(plain))
            os.remove(ko)
        order = vm_initramfs.module_order(moddir, ["blk"])
        self.assertEqual(order, ["kernel/ring.ko.gz", "kernel/blk.ko.xz"])
        self.assertEqual([vm_initramfs.module_guest_path(m) for m in order],
                         ["kernel/ring.ko", "kernel/blk.ko"])
        data = vm_initramfs.module_bytes(os.path.join(moddir, order[1]))
        self.assertEqual(data[:4], b"\x7fELF")
        with open(os.path.join(moddir, order[1]), "wb") as f:
            f.write(b"\xfd7zXZ\0 cut short")
        with self.assertRaisesRegex(vm_initramfs.ElfError,
                                    "blk.ko.xz: cannot decompress"):
            vm_initramfs.module_order(moddir, ["blk"])

    def test_module_cycle_is_named(self):
        moddir = os.path.join(self.tmp, "modules")
        self.module(moddir, "a", "b")
        self.module(moddir, "b", "a")
        with self.assertRaisesRegex(vm_initramfs.ElfError,
                                    "a -> b -> a"):
            vm_initramfs.module_order(moddir, ["a"])


@unittest.skipUnless(shutil.which("busybox"), "needs busybox")
class TestCpio(unittest.TestCase):
    def test_read_back(self):
        c = vm_initramfs.Cpio()
        c.add_file("etc/sw/args", b"run\n-n\n1\n")
        c.add_file("init", b"#!/bin/sh\n", 0o755)
        c.add_symlink("bin/sh", "busybox")
        c.add_chardev("dev/console", 5, 1)
        c.add_file("odd", b"x" * 5)
        blob = c.bytes()
        self.assertEqual(len(blob) % 512, 0)
        self.assertEqual(blob, c.bytes(), "the same entries, the same bytes")
        tmp = tempfile.mkdtemp(prefix="sw-vm-cpio-")
        try:
            r = subprocess.run(["busybox", "cpio", "-tv"], input=blob,
                               capture_output=True, check=True)
            listing = r.stdout.decode()
            for name in ("etc/sw/args", "init", "bin/sh -> busybox",
                         "dev/console", "etc", "etc/sw", "bin", "odd"):
                self.assertIn(name, listing)
            self.assertRegex(listing, r"crw------- .* dev/console")
            self.assertRegex(listing, r"-rwxr-xr-x .* init")
            subprocess.run(["busybox", "cpio", "-id"], input=blob,
                           cwd=tmp, capture_output=True, check=True)
            with open(os.path.join(tmp, "etc/sw/args"), "rb") as f:
                self.assertEqual(f.read(), b"run\n-n\n1\n")
            with open(os.path.join(tmp, "odd"), "rb") as f:
                self.assertEqual(f.read(), b"xxxxx")
            self.assertEqual(os.readlink(os.path.join(tmp, "bin/sh")),
                             "busybox")
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main()
