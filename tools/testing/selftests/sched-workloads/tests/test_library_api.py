# SPDX-License-Identifier: GPL-2.0
"""The binary calls only what the installed headers of libtracecmd,
libtraceevent and libtracefs declare. libtracecmd 1.3 exports functions
its header (trace-cmd.h) leaves out, tracecmd_cpus() among them: a
distribution's next release may drop them, and a binary that called one
would no longer start. What the binary imports from each library
(nm -D) is looked up in that library's headers (pkg-config)."""
import os
import re
import shutil
import subprocess
import unittest

from swtest import BINARY

LIBS = ("libtracecmd", "libtraceevent", "libtracefs")
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
CALLED_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def output(*argv):
    return subprocess.run(argv, capture_output=True, text=True,
                          check=True).stdout


def declared(text):
    """The names a header's text declares or defines as functions (or
    function-like macros): any name followed by "(" outside comments."""
    return set(CALLED_RE.findall(COMMENT_RE.sub(" ", text)))


def symbols(path, which):
    """The dynamic symbols of @path, "--defined-only" or
    "--undefined-only", without their versions."""
    return {line.split()[-1].split("@")[0]
            for line in output("nm", "-D", which, path).splitlines()
            if line.strip()}


def headers(lib):
    """The text of every header in @lib's include directories."""
    text = []
    for flag in output("pkg-config", "--cflags-only-I", lib).split():
        d = flag[2:]
        for name in sorted(os.listdir(d)):
            if name.endswith(".h"):
                with open(os.path.join(d, name)) as f:
                    text.append(f.read())
    return "\n".join(text)


def linked(binary):
    """{library name: path} of what @binary is linked with (ldd)."""
    out = {}
    for line in output("ldd", binary).splitlines():
        m = re.match(r"\s*(lib[\w+-]+)\.so\S*\s+=>\s+(\S+)", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


class TestLibraryApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in ("nm", "ldd", "pkg-config"):
            if not shutil.which(tool):
                raise unittest.SkipTest("%s missing" % tool)
        if not os.path.exists(BINARY):
            raise unittest.SkipTest("%s not built" % BINARY)

    def test_declared(self):
        self.assertEqual(declared("int a_b(void);\n/* c() */ #define d(x)"
                                  " x\nstruct e *\nf (int g);\n"),
                         {"a_b", "d", "f"})

    def test_public_only(self):
        libs = linked(BINARY)
        imported = symbols(BINARY, "--undefined-only")
        for lib in LIBS:
            self.assertIn(lib, libs, "the binary is not linked with it")
            used = imported & symbols(libs[lib], "--defined-only")
            self.assertTrue(used, "%s: nothing imported from it" % lib)
            private = sorted(used - declared(headers(lib)))
            self.assertEqual(private, [], "%s: the binary calls what its "
                             "installed headers do not declare" % lib)


if __name__ == "__main__":
    unittest.main()
