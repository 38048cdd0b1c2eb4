# SPDX-License-Identifier: GPL-2.0
"""The two ways "analyze" reads a trace.dat give the same report: the
ring-buffer pages read directly (trace/tracedat_read.c, the default for
version 7 files) and libtracecmd's iteration (--reader libtracecmd), on every
recorded fixture, on a zstd-compressed copy (trace-cmd convert) and on a
version 6 copy (which only libtracecmd reads). A buffer is found by
name. A damaged page header or chunk header is refused with the file
named, never read as fewer events. What libtracecmd's public API does not
tell (the kernel's statistics, each CPU's data) is read from a version 6
file and from a version 7 file libtracecmd reads.

Where each CPU's data lies is worked out here by parsers of the file
formats of their own (trace-cmd.dat.v7(5), trace-cmd.dat.v6(5)), not
taken from the C code.
"""
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

from swtest import (COLLECTION, EXIT_BAD_TRACE, EXIT_FAIL, EXIT_PASS, sw,
                    unpack_traces)

FIXTURES = os.path.join(COLLECTION, "tests", "fixtures", "trace")
LOGS = os.path.join(COLLECTION, "tests", "fixtures", "logs", "disturbed")
WORKLOAD = os.path.join(COLLECTION, "tests", "fixtures", "workloads",
                        "disturbed.json")
OPT_DONE, OPT_BUFFER, OPT_UNAME, OPT_OFFSET = 0, 3, 5, 7


def cstr(data, at):
    end = data.index(b"\0", at)
    return data[at:end].decode(), end + 1


def cpu_data(path):
    """[(cpu, offset, size, where size is written)] of the first buffer
    with data, and whether that buffer's section is compressed.
    Little-endian files only."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:10] == b"\x17\x08Dtracing" and data[10:12] == b"7\0"
    at = 18                                 # endian, long size, page size
    _, at = cstr(data, at)                  # compression name
    _, at = cstr(data, at)                  # and version
    (off,) = struct.unpack_from("<Q", data, at)
    while off:
        sec_id, flags, _, size = struct.unpack_from("<HHIQ", data, off)
        assert sec_id == 0 and not flags & 1, "options section expected"
        at, end, nxt = off + 16, off + 16 + size, 0
        while at < end:
            opt, n = struct.unpack_from("<HI", data, at)
            body = data[at + 6:at + 6 + n]
            at += 6 + n
            if opt == OPT_DONE:
                (nxt,) = struct.unpack_from("<Q", body)
                break
            if opt != OPT_BUFFER:
                continue
            (sec,) = struct.unpack_from("<Q", body)
            _, p = cstr(body, 8)             # name
            _, p = cstr(body, p)             # clock
            _, count = struct.unpack_from("<II", body, p)
            at_cpus = at - n + p + 8        # the file offset of entry 0
            cpus = [struct.unpack_from("<IQQ", body, p + 8 + 20 * i) +
                    (at_cpus + 20 * i + 12,) for i in range(count)]
            cpus = [c for c in cpus if c[2]]
            if cpus:
                (flags,) = struct.unpack_from("<H", data, sec + 2)
                return cpus, bool(flags & 1)
        off = nxt
    raise AssertionError("%s: no buffer with data" % path)


def options_of(data):
    """[(option id, offset of its id)] of a little-endian version 7
    file's options sections."""
    at = 18                                 # endian, long size, page size
    _, at = cstr(data, at)                  # compression name
    _, at = cstr(data, at)                  # and version
    (off,) = struct.unpack_from("<Q", data, at)
    out = []
    while off:
        size = struct.unpack_from("<HHIQ", data, off)[3]
        at, end, nxt = off + 16, off + 16 + size, 0
        while at < end:
            opt, n = struct.unpack_from("<HI", data, at)
            if opt == OPT_DONE:
                (nxt,) = struct.unpack_from("<Q", data, at + 6)
                break
            out.append((opt, at))
            at += 6 + n
        off = nxt
    return out


def skip_sized(data, at, n):
    """Past a size of @n bytes at @at and the data it counts."""
    (size,) = struct.unpack_from("<I" if n == 4 else "<Q", data, at)
    return at + n + size


def v6_cpu_data(path):
    """[(cpu, offset, size, where size is written)] of every buffer of a
    little-endian version 6 file, instances after the top level."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[10:12] == b"6\0"
    at = 18                                 # endian, long size, page size
    for name in (b"header_page\0", b"header_event\0"):
        assert data[at:at + len(name)] == name
        at = skip_sized(data, at + len(name), 8)
    (n,) = struct.unpack_from("<I", data, at)  # ftrace's own formats
    at += 4
    for _ in range(n):
        at = skip_sized(data, at, 8)
    (n,) = struct.unpack_from("<I", data, at)  # each system's formats
    at += 4
    for _ in range(n):
        _, at = cstr(data, at)
        (k,) = struct.unpack_from("<I", data, at)
        at += 4
        for _ in range(k):
            at = skip_sized(data, at, 8)
    for n in (4, 4, 8):                     # kallsyms, printk, cmdlines
        at = skip_sized(data, at, n)
    (ncpus,) = struct.unpack_from("<I", data, at)
    assert data[at + 4:at + 14] == b"options  \0"
    at += 14
    instances = []
    while True:
        (opt,) = struct.unpack_from("<H", data, at)
        if opt == OPT_DONE:
            break
        (n,) = struct.unpack_from("<I", data, at + 2)
        if opt == OPT_BUFFER:
            instances.append(struct.unpack_from("<Q", data, at + 6)[0])
        at += 6 + n
    out = []
    for at in [at + 2] + instances:
        assert data[at:at + 10] == b"flyrecord\0"
        for cpu in range(ncpus):
            off, size = struct.unpack_from("<QQ", data, at + 10 + 16 * cpu)
            out.append((cpu, off, size, at + 18 + 16 * cpu))
    return out


def patch(src, dst, offset, raw):
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as f:
        f.seek(offset)
        f.write(raw)


class TestTraceReaders(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sw-readers-")
        cls.plain = unpack_traces(FIXTURES, cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def converted(self, name, *args):
        if not shutil.which("trace-cmd"):
            self.skipTest("trace-cmd missing")
        out = os.path.join(self.tmp, "%s-%s.dat" % (name, "-".join(args)))
        subprocess.run(["trace-cmd", "convert", "-i", self.plain[name],
                        "-o", out] + list(args), check=True,
                       capture_output=True, timeout=60)
        return out

    def assertReadersAgree(self, path):
        pages = sw("analyze", "--trace", path, "--all-cpus")
        tcmd = sw("analyze", "--trace", path, "--all-cpus",
                  "--reader", "libtracecmd")
        self.assertEqual((pages.returncode, pages.stdout),
                         (tcmd.returncode, tcmd.stdout),
                         "%s: %s / %s" % (path, pages.stderr, tcmd.stderr))
        return pages

    def test_fixtures(self):
        self.assertGreaterEqual(len(self.plain), 8)
        passed = 0
        for path in self.plain.values():
            passed += self.assertReadersAgree(path).returncode == EXIT_PASS
        self.assertGreaterEqual(passed, 6)    # not all refused alike

    def test_buffer_by_name(self):
        # the fixtures were recorded in an instance of this name
        path = self.plain["fifo"]
        default = sw("analyze", "--trace", path, "--all-cpus")
        for reader in ("pages", "libtracecmd"):
            named = sw("analyze", "--trace", path, "--all-cpus",
                       "--buffer", "swfix-fifo", "--reader", reader)
            self.assertEqual((named.returncode, named.stdout),
                             (EXIT_PASS, default.stdout), named.stderr)
            r = sw("analyze", "--trace", path, "--all-cpus",
                   "--buffer", "nosuch", "--reader", reader)
            self.assertEqual(r.returncode, EXIT_BAD_TRACE, r.stderr)
            self.assertIn("'nosuch'", r.stderr)

    def test_compressed(self):
        for name in ("fifo", "disturbed"):
            path = self.converted(name, "--compression", "zstd")
            self.assertTrue(cpu_data(path)[1], "%s not compressed" % path)
            r = self.assertReadersAgree(path)
            self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
            plain = sw("analyze", "--trace", self.plain[name], "--all-cpus")
            self.assertEqual(r.stdout.replace(path, self.plain[name]),
                             plain.stdout)

    def test_version6(self):
        path = self.converted("fifo", "--file-version", "6")
        with open(path, "rb") as f:
            self.assertEqual(f.read(12)[10:], b"6\0")
        r = sw("analyze", "--trace", path, "--all-cpus")
        plain = sw("analyze", "--trace", self.plain["fifo"], "--all-cpus")
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        self.assertEqual(r.stdout.replace(path, self.plain["fifo"]),
                         plain.stdout)

    def test_version6_statistics(self):
        # the kernel's statistics (CPUSTAT options), which libtracecmd's
        # public API does not give, are read from the file: the lost
        # events of a version 6 copy are the original's
        path = self.converted("lost", "--file-version", "6")
        r = sw("analyze", "--trace", path, "--all-cpus")
        plain = sw("analyze", "--trace", self.plain["lost"], "--all-cpus")
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        self.assertEqual(r.stdout.replace(path, self.plain["lost"]),
                         plain.stdout)
        self.assertGreater(json.loads(r.stdout)["system"]["system"]
                           ["system.lost_events"], 0)

    def test_version6_cut_inside_a_page(self):
        # The file cut inside the last page of its last CPU data, that
        # data's size written to match: libtracecmd would read the page
        # past the end of the file, or drop it without a word.
        path = self.converted("fifo", "--file-version", "6")
        cpu, off, size, size_at = max(v6_cpu_data(path),
                                      key=lambda c: c[1] + c[2])
        self.assertEqual(off + size, os.path.getsize(path))
        for cut in (100, 4000):
            short = os.path.join(self.tmp, "v6-cut-%d.dat" % cut)
            with open(path, "rb") as src, open(short, "wb") as dst:
                dst.write(src.read(off + size - cut))
            with open(short, "r+b") as f:
                f.seek(size_at)
                f.write(struct.pack("<Q", size - cut))
            r = sw("analyze", "--trace", short, "--all-cpus")
            self.assertEqual(r.returncode, EXIT_BAD_TRACE, r.stderr)
            self.assertIn("%s: truncated: CPU %d data runs past the end of "
                          "the file" % (short, cpu), r.stderr)

    def test_timestamp_option(self):
        # A file with an OFFSET option (its timestamps to correct: here
        # by 0, the uname's text read as a number) is libtracecmd's, its
        # CPU count, data and statistics read by us: the same report.
        for name in ("fifo", "lost"):
            for args in ((), ("--compression", "zstd")):
                path = self.converted(name, *args) if args else \
                    self.plain[name]
                with open(path, "rb") as f:
                    data = f.read()
                (_, at), = [o for o in options_of(data) if o[0] == OPT_UNAME]
                offset = os.path.join(self.tmp, "offset-%s.dat" % name)
                patch(path, offset, at, struct.pack("<H", OPT_OFFSET))
                r = sw("analyze", "--trace", offset, "--all-cpus")
                plain = sw("analyze", "--trace", self.plain[name],
                           "--all-cpus")
                self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
                self.assertEqual(r.stdout.replace(offset, self.plain[name]),
                                 plain.stdout)

    def test_bad_page_header(self):
        cpus, compressed = cpu_data(self.plain["fifo"])
        self.assertFalse(compressed)
        _, off, _, _ = cpus[0]
        bad = os.path.join(self.tmp, "bad-page.dat")
        # the first page's commit (bytes used) past the page; then with a
        # bit above the kernel's flags (kbuffer keeps 27 bits: 0 bytes)
        for commit in (1 << 20, 1 << 40):
            patch(self.plain["fifo"], bad, off + 8,
                  struct.pack("<Q", commit))
            r = sw("analyze", "--trace", bad, "--all-cpus")
            self.assertEqual(r.returncode, EXIT_BAD_TRACE,
                             "%#x: %s" % (commit, r.stderr))
            self.assertIn(bad, r.stderr)
            self.assertIn("page header", r.stderr)

    def test_event_past_its_page(self):
        # The first event of CPU 0 says it is longer than its page.
        # libtracecmd 1.3.1 read such pages unchecked: it judged the file
        # (exit 0), or, as fuzz_trace found, crashed in kbuffer.
        cpus, _ = cpu_data(self.plain["fifo"])
        _, off, _, _ = cpus[0]
        bad = os.path.join(self.tmp, "event-past-page.dat")
        # after the page's timestamp and commit: type_len 0 (the length
        # follows), then the length
        for length in (4000, 1 << 20, 0xfffffff0):
            patch(self.plain["fifo"], bad, off + 16,
                  struct.pack("<II", 0, length))
            for reader in ("pages", "libtracecmd"):
                r = sw("analyze", "--trace", bad, "--all-cpus",
                       "--reader", reader)
                self.assertEqual(r.returncode, EXIT_BAD_TRACE,
                                 "%s, %d: %s" % (reader, length, r.stderr))
                self.assertIn("event runs past its page", r.stderr)

    def test_header_page_size_not_the_buffers(self):
        # libtracecmd pages through the data by the header's page size:
        # with another one it read 218 events of 1262 and judged them
        # (found by fuzz_trace). Both readers refuse the file.
        bad = os.path.join(self.tmp, "page-size.dat")
        for size in (8192, 0x711c1000):
            patch(self.plain["fifo"], bad, 14, struct.pack("<I", size))
            for reader in ("pages", "libtracecmd"):
                r = sw("analyze", "--trace", bad, "--all-cpus",
                       "--reader", reader)
                self.assertEqual(r.returncode, EXIT_BAD_TRACE,
                                 "%s, %d: %s" % (reader, size, r.stderr))
                self.assertIn("the file's page size is not its buffer's",
                              r.stderr)

    def test_format_libtraceevent_crashes_on(self):
        # fuzz_trace's input: a mutated event format on which
        # libtraceevent 1.7 dereferences NULL. The tool parsed it in
        # process and died of SIGSEGV; now it is refused, both ways.
        bad = os.path.join(COLLECTION, "fuzz", "corpus", "fuzz_trace",
                           "crash-libtraceevent-format.dat")
        for reader in ("pages", "libtracecmd"):
            r = sw("analyze", "--trace", bad, "--all-cpus",
                   "--reader", reader)
            self.assertEqual(r.returncode, EXIT_BAD_TRACE,
                             "%s: %s" % (reader, r.stderr))
            self.assertIn("an event format libtraceevent crashes on",
                          r.stderr)

    def test_bad_chunk_header(self):
        path = self.converted("fifo", "--compression", "zstd")
        cpus, _ = cpu_data(path)
        _, off, _, _ = cpus[0]
        bad = os.path.join(self.tmp, "bad-chunk.dat")
        # after the chunk count: the first chunk's compressed size
        patch(path, bad, off + 4, struct.pack("<I", 0xfffffff0))
        r = sw("analyze", "--trace", bad, "--all-cpus")
        self.assertEqual(r.returncode, EXIT_BAD_TRACE, r.stderr)
        self.assertIn(bad, r.stderr)
        self.assertIn("chunk", r.stderr)

    def test_cut_inside_data(self):
        cpus, _ = cpu_data(self.plain["fifo"])
        _, off, size, _ = max(cpus, key=lambda c: c[1])
        cut = os.path.join(self.tmp, "cut.dat")
        with open(self.plain["fifo"], "rb") as src, open(cut, "wb") as dst:
            dst.write(src.read(off + size // 2))
        r = sw("analyze", "--trace", cut, "--all-cpus")
        self.assertEqual(r.returncode, EXIT_BAD_TRACE, r.stderr)
        self.assertIn(cut, r.stderr)

    def test_events_end_before_the_run(self):
        # Every CPU's data cut to its first page, the sizes written to
        # match: a well-formed file whose events stop long before the
        # run's last pass (in its rt-app logs) is refused, not judged.
        src = self.plain["disturbed"]
        cpus, _ = cpu_data(src)
        short = os.path.join(self.tmp, "short.dat")
        shutil.copyfile(src, short)
        with open(short, "r+b") as f:
            for _, _, size, size_at in cpus:
                self.assertGreater(size, 4096)
                f.seek(size_at)
                f.write(struct.pack("<Q", 4096))
        args = ["analyze", "--logs", LOGS, "--workload", WORKLOAD]
        whole = sw(*args, "--trace", src)
        self.assertIn(whole.returncode, (EXIT_PASS, EXIT_FAIL), whole.stderr)
        for reader in ("pages", "libtracecmd"):
            r = sw(*args, "--trace", short, "--reader", reader)
            self.assertEqual(r.returncode, EXIT_BAD_TRACE, r.stderr)
            self.assertIn("%s: truncated: the events end at" % short,
                          r.stderr)


if __name__ == "__main__":
    unittest.main()
