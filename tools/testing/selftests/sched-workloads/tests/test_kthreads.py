# SPDX-License-Identifier: GPL-2.0
"""trace/kthreads.c: which pids are kernel threads, and kthreads.txt.

Builds tests/kthreads_check.c with the module under AddressSanitizer and
compares its list with this file's own reading of /proc: the flags
field of /proc/PID/stat (the ninth, counted after the comm's closing
parenthesis) with PF_KTHREAD (0x00200000) set.
"""
import os
import shutil
import subprocess
import unittest

from swtest import EXIT_BAD_LOG, EXIT_PASS, EXIT_USAGE, setup_checker

PF_KTHREAD = 0x00200000


def proc_kthreads():
    """{pid: comm} of the kernel threads alive now."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue        # gone meanwhile
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 1:].split()
        if int(fields[6]) & PF_KTHREAD:
            out[int(d)] = comm
    return out


def read_list(path):
    with open(path) as f:
        return [(int(p), c) for p, c in
                (ln.rstrip("\n").split(" ", 1) for ln in f)]


class TestKthreads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        setup_checker(cls, "kthreads_check",
                      ["trace/kthreads.c", "lib/util.c"], ("json-c",))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_check(self, *args):
        return subprocess.run([self.bin] + list(args), capture_output=True,
                              text=True, timeout=60)

    def test_scan_matches_proc(self):
        path = os.path.join(self.tmp, "scan.txt")
        before = proc_kthreads()
        r = self.run_check(path)
        after = proc_kthreads()
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        got = read_list(path)
        pids = [p for p, _ in got]
        self.assertEqual(pids, sorted(set(pids)), "sorted, each pid once")
        # kernel threads alive throughout are listed, with their comm (a
        # kworker's /proc name ends in the work it does: "-events", ...);
        # a listed pid is a kernel thread at one of the two readings
        listed = dict(got)
        for pid in set(before) & set(after):
            self.assertIn(pid, listed)
            self.assertEqual(listed[pid].split("-")[0],
                             after[pid].split("-")[0])
        now = proc_kthreads()
        for pid, comm in got:
            if pid in set(before) | set(after):
                continue
            # came and went between the readings (a kworker, say)
            self.assertTrue(pid in now or
                            not os.path.exists("/proc/%d" % pid), comm)
        self.assertIn(2, pids, "kthreadd")
        self.assertNotIn(os.getpid(), pids)

    def test_scan_adds_to_the_list(self):
        """Before and after a run: the union, a pid's first comm kept."""
        path = os.path.join(self.tmp, "union.txt")
        with open(path, "w") as f:
            f.write("1 not_a_kthread\n2 renamed\n4000000 gone\n")
        before = proc_kthreads()
        r = self.run_check(path)
        after = proc_kthreads()
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        got = dict(read_list(path))
        self.assertEqual(got[1], "not_a_kthread")
        self.assertEqual(got[2], "renamed")
        self.assertEqual(got[4000000], "gone")
        self.assertLessEqual(set(before) & set(after), set(got))
        self.assertLessEqual(set(got) - {1, 4000000},
                             set(before) | set(after))

    def test_read_back(self):
        path = os.path.join(self.tmp, "rw.txt")
        with open(path, "w") as f:
            f.write("77 kworker/1:2\n12 ksoftirqd/0\n300 a comm with spaces\n")
        r = self.run_check("-r", path)
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        self.assertEqual(r.stdout, "12 ksoftirqd/0\n77 kworker/1:2\n"
                         "300 a comm with spaces\n")

    def test_bad_files(self):
        cases = {
            "no pid": "kworker/0:1\n",
            "no comm": "12\n",
            "empty comm": "12 \n",
            "negative": "-3 x\n",
            "pid then tab": "12\tx\n",
        }
        for what, text in cases.items():
            with self.subTest(what):
                path = os.path.join(self.tmp, "bad.txt")
                with open(path, "w") as f:
                    f.write("2 kthreadd\n" + text)
                r = self.run_check("-r", path)
                self.assertEqual(r.returncode, EXIT_BAD_LOG, r.stderr)
                self.assertIn("%s:2: expected \"pid comm\"" % path, r.stderr)
        r = self.run_check("-r", os.path.join(self.tmp, "missing.txt"))
        self.assertEqual(r.returncode, EXIT_USAGE, r.stderr)


if __name__ == "__main__":
    unittest.main()
